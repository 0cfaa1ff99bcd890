"""The LLM connection: the OpenAI-compatible server's base URL, the model and its key.

``FOOTNOTED_LLM_BASE_URL``, ``FOOTNOTED_LLM_MODEL`` and ``FOOTNOTED_LLM_API_KEY`` give
the defaults. What an admin saves (the admin page, ``PUT /api/admin/llm``) is kept in
the database, so every process answers with it, and overrides them until it is reset.
:func:`check` sends the model one short request the way an answer does and reports what
came back: the reply, or the server's status and, for an OpenAI-style error, its message.

A key goes only to the base URL it was given with: saving or testing another URL needs
its own ``api_key`` in the same request (``api_key_required`` otherwise), so no admin can
send the saved key, or ``FOOTNOTED_LLM_API_KEY``, anywhere else. Every request goes
through the outbound policy (:mod:`footnoted.outbound`).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ...errors import InvalidInput
from ...outbound import Outbound, checked_url
from ...records import Actor
from ...settings import Settings
from ...stores.base import Store
from .client import ChatClient, GenerationLimit, LLMUnavailable, one_line

STORED = "llm_connection"  # the secrets row that holds what an admin saved, as JSON
TARGET = "llm_connection"  # its name in the audit log
CHECK_PROMPT = [{"role": "user", "content": "Reply with the single word OK."}]
CHECK_TIMEOUT_S = 15.0
CHECK_MAX_TOKENS = 16
REPLY_CHARS = 200  # of the model's reply, on one line


class LLMConnection(BaseModel):
    """A connection to save or check. ``api_key``: left out keeps the current one;
    ``null`` or empty sends none."""

    model_config = ConfigDict(extra="forbid")

    base_url: str = Field(
        min_length=1, max_length=2000, description="The part before /chat/completions."
    )
    model: str = Field(min_length=1, max_length=200)
    api_key: str | None = Field(default=None, max_length=2000)

    @field_validator("base_url")
    @classmethod
    def _http(cls, value: str) -> str:
        return checked_url(value)


@dataclass(frozen=True, slots=True)
class Current:
    base_url: str
    model: str
    api_key_set: bool
    saved: bool  # an admin's values, not the environment's

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class CheckResult:
    ok: bool
    message: str  # for people: what happened
    latency_ms: int
    reply: str | None = None  # the model's words, when it answered
    detail: str | None = None  # the server's own error message, when it gave one

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _saved(store: Store) -> dict[str, Any]:
    try:
        data = json.loads(store.secret(STORED, lambda: "{}"))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def settings_for(settings: Settings, store: Store) -> Settings:
    """``settings`` with the saved connection, if any, in place of the environment's."""
    return _applied(settings, _saved(store))


def _applied(settings: Settings, saved: dict[str, Any]) -> Settings:
    if not saved:
        return settings
    return settings.model_copy(
        update={
            "llm_base_url": saved["base_url"],
            "llm_model": saved["model"],
            "llm_api_key": saved.get("api_key") or None,
        }
    )


def current(settings: Settings, store: Store) -> Current:
    saved = _saved(store)
    effective = _applied(settings, saved)
    return Current(
        effective.llm_base_url, effective.llm_model, bool(effective.llm_api_key), bool(saved)
    )


def _with(settings: Settings, store: Store, connection: LLMConnection) -> Settings:
    """The settings ``connection`` makes; a key left out is the current one if the URL is
    the current one, and needed in the request if it is another."""
    current_ = settings_for(settings, store)
    if "api_key" in connection.model_fields_set:
        key = connection.api_key
    elif same_url(connection.base_url, current_.llm_base_url):
        key = current_.llm_api_key
    elif current_.llm_api_key:
        raise InvalidInput(
            "The saved API key goes only to the URL it was saved with; give this URL's "
            "own api_key (null for none).",
            code="api_key_required",
        )
    else:
        key = None
    return settings.model_copy(
        update={
            "llm_base_url": connection.base_url,
            "llm_model": connection.model,
            "llm_api_key": key or None,
        }
    )


def save(settings: Settings, store: Store, connection: LLMConnection, actor: Actor) -> Current:
    """Keep ``connection`` for every process; one whose host the outbound policy refuses
    is not kept (``outbound_blocked``). Audited."""
    chosen = _with(settings, store, connection)
    Outbound.of(settings).check(chosen.llm_base_url)
    detail = {"base_url": chosen.llm_base_url, "model": chosen.llm_model,
              "api_key_set": bool(chosen.llm_api_key)}  # fmt: skip
    store.audit(actor, "llm_connection_saved", TARGET, detail)
    value = {
        "base_url": chosen.llm_base_url,
        "model": chosen.llm_model,
        "api_key": chosen.llm_api_key,
    }
    store.set_secret(STORED, json.dumps(value))
    return current(settings, store)


def reset(settings: Settings, store: Store, actor: Actor) -> Current:
    """Forget the saved connection: the environment's applies again. Audited."""
    store.set_secret(STORED, "{}")
    store.audit(actor, "llm_connection_reset", TARGET, {})
    return current(settings, store)


def same_url(a: str, b: str) -> bool:
    """The same base URL, but for the case of its scheme and host and a trailing slash."""
    one, two = urlsplit(a.strip().rstrip("/")), urlsplit(b.strip().rstrip("/"))
    return (one.scheme.lower(), one.netloc.lower(), one.path, one.query) == (
        two.scheme.lower(),
        two.netloc.lower(),
        two.path,
        two.query,
    )


def check(
    settings: Settings,
    store: Store,
    actor: Actor,
    connection: LLMConnection | None = None,
    transport: httpx.BaseTransport | None = None,
) -> CheckResult:
    """Ask the model for one word, as an answer would ask it (streamed, with the key).
    Audited: it sends a request where the admin says."""
    chosen = (
        settings_for(settings, store) if connection is None else _with(settings, store, connection)
    )
    result = _check(settings, chosen, transport)
    detail = {"base_url": chosen.llm_base_url, "model": chosen.llm_model, "ok": result.ok}
    store.audit(actor, "llm_connection_tested", TARGET, detail)
    return result


def _check(
    settings: Settings, chosen: Settings, transport: httpx.BaseTransport | None
) -> CheckResult:
    probe = chosen.model_copy(
        update={
            "llm_timeout_s": min(chosen.llm_timeout_s, CHECK_TIMEOUT_S),
            "llm_max_seconds": CHECK_TIMEOUT_S,
            "llm_max_tokens": CHECK_MAX_TOKENS,
        }
    )
    started = time.monotonic()
    pieces: list[str] = []
    try:
        client = ChatClient(probe, transport or Outbound.of(settings).transport())
        for piece in client.stream(CHECK_PROMPT):
            pieces.append(piece)
    except LLMUnavailable as exc:
        if not (isinstance(exc, GenerationLimit) and pieces):  # past a cap, yet it answered
            return CheckResult(False, exc.message, _ms(started), detail=exc.detail)
    reply = one_line("".join(pieces), REPLY_CHARS)
    where = f"{chosen.llm_model} at {chosen.llm_base_url}"
    if not reply:
        return CheckResult(False, f"{where} answered with no text.", _ms(started), reply="")
    return CheckResult(True, f"{where} answered.", _ms(started), reply=reply)


def _ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
