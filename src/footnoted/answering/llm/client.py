"""A streaming client for any OpenAI-compatible ``/chat/completions`` (Ollama, vLLM,
llama.cpp server, LM Studio, OpenAI), over httpx through the outbound policy's transport
(a test's runs without sockets).

A stream is read within footnoted's own caps whatever the server does: at most
``llm_max_tokens`` content deltas (a server sends at most one delta per token, so one
that honours ``max_tokens`` never meets this cap), ``llm_max_bytes`` bytes and
``llm_max_seconds`` seconds. Past one, :class:`GenerationLimit` closes the connection.
A reply that is not a stream is reported by its status and, for an OpenAI-style error,
that error's message cut to one line: never the body itself.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx

from ...errors import FootnotedError
from ...outbound import OutboundBlocked
from ...settings import Settings


class LLMUnavailable(FootnotedError):
    status = 503
    code = "generation_unavailable"
    detail: str | None = None  # the server's own error message, for admins (never users)


class GenerationInterrupted(FootnotedError):
    """The model stopped part-way (after tokens were sent); the partial answer is kept."""

    status = 502
    code = "generation_interrupted"


class GenerationLimit(LLMUnavailable):
    """The stream passed one of footnoted's caps (tokens, bytes or seconds)."""

    status = 502
    code = "generation_limit"


ERROR_BYTES = 4096  # read of an error reply's body, for its message
DETAIL_CHARS = 200  # the most of that message an admin is shown


@dataclass(frozen=True, slots=True)
class StreamCaps:
    tokens: int
    bytes: int
    seconds: float

    @classmethod
    def of(cls, settings: Settings) -> StreamCaps:
        return cls(settings.llm_max_tokens, settings.llm_max_bytes, settings.llm_max_seconds)


class ChatClient:
    """A streaming client for an OpenAI-compatible ``/chat/completions``."""

    def __init__(self, settings: Settings, transport: httpx.BaseTransport) -> None:
        """``transport``: the outbound policy's (``Outbound.transport``), or a test's."""
        self.url = settings.llm_base_url.rstrip("/") + "/chat/completions"
        self.model = settings.llm_model
        self.headers = {"Accept": "text/event-stream"}
        if settings.llm_api_key:
            self.headers["Authorization"] = f"Bearer {settings.llm_api_key}"
        self.timeout = httpx.Timeout(settings.llm_timeout_s)
        self.options = {
            "max_tokens": settings.llm_max_tokens,
            "temperature": settings.llm_temperature,
        }
        self.transport = transport
        self.caps = StreamCaps.of(settings)

    def stream(self, messages: list[dict[str, str]]) -> Iterator[str]:
        """Content tokens as they arrive; raises ``LLMUnavailable`` on any failure and
        ``GenerationLimit`` past a cap (which closes the connection)."""
        body = {"model": self.model, "messages": messages, "stream": True, **self.options}
        deadline = time.monotonic() + self.caps.seconds
        try:
            with (
                httpx.Client(transport=self.transport, timeout=self.timeout) as client,
                client.stream("POST", self.url, json=body, headers=self.headers) as response,
            ):
                if response.status_code >= 300:
                    raise _refused(response)
                lines = _lines(response.iter_bytes(), self.caps, deadline)
                yield from _tokens(lines, self.caps.tokens)
        except OutboundBlocked as exc:
            raise LLMUnavailable(exc.message) from exc
        except httpx.TimeoutException as exc:
            raise LLMUnavailable("The LLM server did not answer in time.") from exc
        except httpx.HTTPError as exc:
            raise LLMUnavailable(f"The LLM server could not be reached ({exc}).") from exc


def _refused(response: httpx.Response) -> LLMUnavailable:
    """The failure a reply that is not a stream means: its status and, for an OpenAI-style
    error, that error's message cut to one line (never the body itself, which may be any
    server's page). Redirects are not followed."""
    status = response.status_code
    if status < 400:
        return LLMUnavailable(
            f"The LLM server answered HTTP {status}, a redirect; footnoted does not follow "
            "redirects: use the address it points to."
        )
    failure = LLMUnavailable(f"The LLM server answered HTTP {status}.")
    failure.detail = _error_message(response)
    return failure


def _error_message(response: httpx.Response, limit: int = ERROR_BYTES) -> str | None:
    """OpenAI's ``{"error": {"message": …}}`` (or ``{"error": "…"}``) from at most
    ``limit`` bytes of the body, as one line of at most ``DETAIL_CHARS``; else None."""
    body = b""
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) >= limit:
            break
    try:
        error = json.loads(body[:limit].decode("utf-8", "replace")).get("error")
    except (ValueError, AttributeError):
        return None
    message = error.get("message") if isinstance(error, dict) else error
    if not isinstance(message, str):
        return None
    return one_line(message, DETAIL_CHARS)


def one_line(text: str, limit: int) -> str | None:
    """The text's first line, whitespace collapsed, cut to ``limit`` characters."""
    first = " ".join((text.strip().splitlines() or [""])[0].split())
    return (first[: limit - 1] + "…" if len(first) > limit else first) or None


def _lines(chunks: Iterator[bytes], caps: StreamCaps, deadline: float) -> Iterator[str]:
    """The stream's lines, split here (no line is buffered past the byte cap)."""
    seen = 0
    pending = b""
    for chunk in chunks:
        seen += len(chunk)
        if seen > caps.bytes:
            raise GenerationLimit(
                f"The LLM stream passed footnoted's limit of {caps.bytes} bytes "
                "(FOOTNOTED_LLM_MAX_BYTES)."
            )
        if time.monotonic() > deadline:
            raise GenerationLimit(
                f"The LLM stream passed footnoted's limit of {caps.seconds:g} s "
                "(FOOTNOTED_LLM_MAX_SECONDS)."
            )
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            yield line.rstrip(b"\r").decode("utf-8", "replace")
    if pending:
        yield pending.decode("utf-8", "replace")


def _tokens(lines: Iterator[str], max_tokens: int) -> Iterator[str]:
    finished = False
    count = 0
    for line in lines:
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            return
        try:
            choice = json.loads(data)["choices"][0]
            content = (choice.get("delta") or {}).get("content") or ""
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            raise LLMUnavailable("The LLM server sent a malformed stream.") from exc
        if not isinstance(content, str):
            raise LLMUnavailable("The LLM server sent a malformed stream.")
        if content:
            count += 1
            if count > max_tokens:
                raise GenerationLimit(
                    f"The LLM wrote past footnoted's limit of {max_tokens} tokens "
                    "(FOOTNOTED_LLM_MAX_TOKENS)."
                )
            yield content
        finished = finished or bool(choice.get("finish_reason"))
    if not finished:
        raise LLMUnavailable("The LLM stream ended before the answer was complete.")
