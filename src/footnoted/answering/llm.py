"""LLM answering through any OpenAI-compatible chat endpoint (Ollama, vLLM, llama.cpp
server, LM Studio, OpenAI), streamed token by token.

:class:`ChatClient` speaks ``POST {base_url}/chat/completions`` with ``stream: true``
over httpx, through the outbound policy's transport (a test's runs without sockets).
:class:`LLMAnswerer` turns the token stream into ``Footnoted.ask()`` events: the text made
safe and its markers renumbered while streaming (``safe_markdown``), the support check
after. A failure before the first token raises :class:`LLMUnavailable`
from :meth:`LLMAnswerer.open` so the caller can fall back; one after it ends the events
with ``Failed``.

A stream is read within footnoted's own caps whatever the server does: at most
``llm_max_tokens`` content deltas (a server sends at most one delta per token, so one
that honours ``max_tokens`` never meets this cap), ``llm_max_bytes`` bytes and
``llm_max_seconds`` seconds. Past one, :class:`GenerationLimit` closes the connection
and the answer ends ``Failed("generation_limit")``: the text so far is kept, incomplete.
"""

from __future__ import annotations

import json
import time
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass

import httpx

from ..embedding import Embedder
from ..errors import FootnotedError
from ..grounding import check_support, dedupe_hits
from ..models import Delta, Done, Event, Evidence, Failed, Refusal, RetrievedChunk, Sources
from ..outbound import OutboundBlocked
from ..settings import Settings
from .conversation import NO_CONVERSATION, Conversation, Exchange, condense_messages, standalone
from .evidence import REFUSAL_MESSAGE, SUGGESTIONS
from .prompt import MAX_SOURCES, REFUSAL_PHRASE, build_messages
from .safe_markdown import SafeStream


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


def _norm(text: str) -> str:
    return " ".join(text.replace("’", "'").lower().split())


PHRASE = _norm(REFUSAL_PHRASE)


class LLMAnswerer:
    """One question's generation: prompt, stream, clean, check support."""

    def __init__(
        self, settings: Settings, embedder: Embedder, transport: httpx.BaseTransport
    ) -> None:
        self.client = ChatClient(settings, transport)
        self.embedder = embedder

    def condense(self, question: str, history: Sequence[Exchange]) -> str | None:
        """The follow-up ``question`` rewritten by the model to stand alone (None when the
        model wrote nothing usable); raises ``LLMUnavailable`` like ``open``."""
        return standalone("".join(self.client.stream(condense_messages(question, history))))

    def open(
        self,
        question: str,
        hits: Sequence[RetrievedChunk],
        conversation: Conversation = NO_CONVERSATION,
    ) -> tuple[list[RetrievedChunk], str, Iterator[str]]:
        """Start generating; returns the sources used, the first token and the rest.

        Raises ``LLMUnavailable`` when no token arrives (refused, timeout, 5xx, malformed).
        """
        sources = dedupe_hits(hits)[:MAX_SOURCES]
        tokens = self.client.stream(build_messages(question, sources, conversation))
        for token in tokens:
            return sources, token, tokens
        raise LLMUnavailable("The LLM server sent no answer.")

    def events(
        self,
        sources: list[RetrievedChunk],
        first: str,
        tokens: Iterator[str],
        evidence: Evidence,
        cite: bool,
        reader: dict[str, float],
    ) -> Generator[Event, None, None]:
        """``Delta``…, ``Sources`` (when citing), ``Done``; or ``Refusal``; or ``Failed``.
        ``reader`` (the reader's confidence) joins the support check's grounding."""
        urls = [h.document_url or "" for h in sources]
        cleaner = SafeStream(len(sources) if cite else 0, urls)
        try:
            head = _head(first, tokens)
            if _norm(head).startswith(PHRASE):
                _close(tokens)  # nothing more is read: the connection closes
                yield Refusal(REFUSAL_MESSAGE, SUGGESTIONS, evidence)
                return
            for piece in _chain(head, tokens):
                out = cleaner.feed(piece)
                if out:
                    yield Delta(out)
        except LLMUnavailable as exc:
            tail = cleaner.flush()
            if tail:
                yield Delta(tail)
            yield _failed(exc)
            return
        tail = cleaner.flush()
        if tail:
            yield Delta(tail)
        if cite:
            a = check_support(cleaner.text, cleaner.order, sources, self.embedder)
            yield Sources(a.citations, a.referenced, a.spans, {**(a.grounding or {}), **reader})
        yield Done(cleaner.text)


def _failed(exc: LLMUnavailable) -> Failed:
    if isinstance(exc, GenerationLimit):
        return Failed(exc.code, f"The answer is incomplete: {exc.message}")
    return Failed("generation_interrupted", f"The answer stopped part-way: {exc.message}")


def _close(tokens: Iterator[str]) -> None:
    close = getattr(tokens, "close", None)
    if close is not None:
        close()


def _head(first: str, tokens: Iterator[str]) -> str:
    """Read on while the text could still be the refusal phrase."""
    head = first
    while len(_norm(head)) < len(PHRASE) and PHRASE.startswith(_norm(head)):
        nxt = next(tokens, None)
        if nxt is None:
            break
        head += nxt
    return head


def _chain(head: str, tokens: Iterator[str]) -> Iterator[str]:
    yield head
    yield from tokens
