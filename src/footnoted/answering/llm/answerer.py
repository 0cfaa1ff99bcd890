"""LLM answering: a question's passages to the model, its token stream to
``Footnoted.ask()`` events.

:class:`LLMAnswerer` turns the stream into events: the text made safe and its markers
renumbered while streaming (``markdown``), the support check after (``grounding``). A
failure before the first token raises ``LLMUnavailable`` from :meth:`LLMAnswerer.open`
so the caller can fall back; one after it ends the events with ``Failed`` (its text so
far kept, incomplete).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Sequence

import httpx

from ...inference.embedding import Embedder
from ...models import (
    Delta,
    Done,
    Event,
    Evidence,
    Failed,
    Grounding,
    Refusal,
    RetrievedChunk,
    Sources,
)
from ...settings import Settings
from ..citations import Answer
from ..conversation import NO_CONVERSATION, Conversation, Exchange, condense_messages, standalone
from ..evidence import REFUSAL_MESSAGE, SUGGESTIONS
from .client import ChatClient, GenerationLimit, LLMUnavailable
from .grounding import check_support, dedupe_hits
from .markdown import SafeStream
from .prompt import MAX_SOURCES, REFUSAL_PHRASE, build_messages


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
        assess: Callable[[Answer], Grounding],
    ) -> Generator[Event, None, None]:
        """``Delta``…, ``Sources`` (when citing), ``Done``; or ``Refusal``; or ``Failed``.
        ``assess`` gives the checked answer its grounding (``trust``)."""
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
            yield Sources(a.citations, a.referenced, a.spans, assess(a))
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
