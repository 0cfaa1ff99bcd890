"""The ``Footnoted`` facade: wires the pipeline stages from ``Settings``.

The HTTP API, the CLI and the evaluation commands all go through this one object.
"""

from __future__ import annotations

import re
import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from . import collection_settings, evidence
from .answering.extractive import extract
from .answering.llm import LLMAnswerer, LLMUnavailable
from .citations import MARKER, Answer, answer_markdown, escape_markdown_html
from .collection_settings import CollectionSettings
from .embedding import SentenceTransformerEmbedder, get_embedder
from .errors import FootnotedError, InvalidInput
from .ingest import FileResult, Ingestor, IngestReport, ProgressFn
from .models import (
    Chunk,
    Delta,
    Document,
    Done,
    Event,
    Evidence,
    Failed,
    Notice,
    Refusal,
    Sources,
    Started,
)
from .parsing import ChunkSpec, Parser
from .records import RefusalEntry
from .retrieval import Retrieval, Retriever
from .settings import Settings
from .stores.base import Store
from .stores.factory import open_store
from .uploads import Uploads

MAX_QUESTION_CHARS = 4000
TITLE_TOKENS = 16  # room kept for the title and section embedded with each chunk
_DELTA = re.compile(r"\S+\s*")
RAG_OFF_MESSAGE = (
    "Document search is turned off for this knowledge base, so no documents were "
    "consulted and this reply cites nothing. An admin can turn it back on in the "
    "collection settings."
)


class GenerationUnavailable(FootnotedError):
    status = 503
    code = "generation_unavailable"


@dataclass(frozen=True, slots=True)
class AskResult:
    """Everything one question produced: an answer, or a refusal."""

    question: str
    answer: Answer | None
    refusal: Refusal | None
    retrieval: Retrieval
    warning: str | None = None
    cite: bool = True  # the collection sends citation fields with its answers
    notice: str | None = None  # e.g. the LLM was unavailable: an extractive answer instead
    info: dict[str, object] = field(default_factory=dict)  # collection, duration_ms, chunks
    failed: Failed | None = None  # generation broke off; ``answer`` holds the partial text

    @property
    def refused(self) -> bool:
        return self.refusal is not None


def split_deltas(text: str) -> list[str]:
    """The pieces an answer streams in: each word with the whitespace after it."""
    return _DELTA.findall(text) or [text]


def plain_text(answer: Answer) -> str:
    """The answer without its ``[N]`` markers."""
    return MARKER.sub("", answer.text).replace("  ", " ").strip()


class Footnoted:
    def __init__(self, settings: Settings | None = None, store: Store | None = None) -> None:
        self.settings = settings or Settings()
        self.embedder: SentenceTransformerEmbedder = get_embedder(self.settings)
        self.settings.home.mkdir(parents=True, exist_ok=True)
        self.store: Store = store or open_store(self.settings, self.embedder.dim)
        self.retriever = Retriever(self.store, self.embedder)
        self._ingestor: Ingestor | None = None
        self.uploads = Uploads(self)
        self.llm_transport: httpx.BaseTransport | None = None  # tests may inject one

    def close(self) -> None:
        if self._ingestor is not None:
            self._ingestor.parser.close()
        self.store.close()

    def __enter__(self) -> Footnoted:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- ingestion ---------------------------------------------------------------------
    @property
    def ingestor(self) -> Ingestor:
        if self._ingestor is None:
            limit = min(self.settings.chunk_tokens, self.embedder.max_tokens - TITLE_TOKENS)
            parser = Parser(
                ChunkSpec.for_model(self.embedder.path, limit),
                timeout_s=self.settings.parse_timeout_s,
                memory_mb=self.settings.parse_memory_mb,
            )
            max_bytes = int(self.settings.max_file_mb * 1024 * 1024)
            self._ingestor = Ingestor(self.store, self.embedder, parser, max_bytes)
        return self._ingestor

    def ingest(
        self,
        paths: Sequence[Path],
        collection: str | None = None,
        progress: ProgressFn | None = None,
    ) -> IngestReport:
        return self.ingestor.ingest_paths(paths, collection or self.settings.collection, progress)

    def ingest_bytes(
        self,
        data: bytes,
        filename: str,
        collection: str | None = None,
        *,
        title: str | None = None,
        url: str | None = None,
    ) -> FileResult:
        coll = collection or self.settings.collection
        return self.ingestor.ingest_bytes(data, filename, coll, title=title, url=url)

    def reindex(self, collection: str | None = None, progress: ProgressFn | None = None) -> int:
        """Re-embed every document whose vectors came from another model, or that was
        stored without sentence vectors."""
        done = 0
        partial = self.store.without_sentence_vectors(collection)
        for doc in self.store.list_documents(collection):
            stale = doc.embedding_model != self.embedder.name or doc.id in partial
            if doc.status == "ready" and stale:
                n = self.ingestor.reembed(doc)
                done += 1
                if progress is not None:
                    progress(FileResult(doc.source, "replaced", doc.id, doc.title, n))
        return done

    # -- documents ---------------------------------------------------------------------
    def documents(self, collection: str | None = None) -> list[Document]:
        return self.store.list_documents(collection)

    def document(self, document_id: str) -> Document:
        return self.store.get_document(document_id)

    def set_enabled(self, document_id: str, enabled: bool) -> Document:
        return self.store.set_enabled(document_id, enabled)

    def delete(self, document_id: str) -> None:
        self.store.delete_document(document_id)

    def document_text(self, document_id: str) -> str:
        return self.store.document_text(document_id)

    def document_chunks(self, document_id: str) -> list[Chunk]:
        return self.store.document_chunks(document_id)

    # -- asking ------------------------------------------------------------------------
    def retrieve(
        self, question: str, collection: str | None = None, top_k: int | None = None
    ) -> Retrieval:
        coll = collection or self.settings.collection
        return self.retriever.retrieve(question, coll, top_k or self.settings.top_k)

    def ask(
        self,
        question: str,
        collection: str | None = None,
        *,
        top_k: int | None = None,
        threshold: float | None = None,
        embedding: list[float] | None = None,
        config: CollectionSettings | None = None,
        include_citations: bool = True,
    ) -> Generator[Event, None, None]:
        """Yield ``Refusal`` alone, or ``Started``, ``Delta``…, ``Sources``, ``Done``.

        Without citations (asked for, or the collection's ``enable_citations`` off) the
        deltas carry no ``[N]`` markers and no ``Sources`` event is sent. In ``llm`` mode
        the deltas stream as the model writes; a model that is down before its first
        token gives ``Notice`` and the extractive answer, a later failure ``Failed``.
        """
        coll = collection or self.settings.collection
        cfg = config or self.collection_settings(coll)
        if cfg.generation_mode == "llm" and cfg.enable_rag:
            yield from self._ask_llm(
                question, coll, cfg, top_k, threshold, embedding, include_citations
            )
            return
        result = self.answer(
            question, collection, top_k=top_k, threshold=threshold, embedding=embedding,
            config=config,
        )  # fmt: skip
        if result.refusal is not None:
            yield result.refusal
            return
        assert result.answer is not None
        yield Started(warning=result.warning, retrieval=result.info)
        yield from answer_events(result.answer, include_citations and result.cite)

    def _ask_llm(
        self,
        question: str,
        coll: str,
        cfg: CollectionSettings,
        top_k: int | None,
        threshold: float | None,
        embedding: list[float] | None,
        include_citations: bool,
    ) -> Generator[Event, None, None]:
        question = validate_question(question)
        limit = threshold if threshold is not None else cfg.evidence_threshold
        warning = self._length_warning(question) if embedding is None else None
        k = top_k or cfg.top_k
        retrieval, info = self._retrieve(question, coll, k, embedding)
        verdict = evidence.check(question, retrieval, limit, self.settings.answerability_check)
        if not verdict.ok:
            yield Refusal(verdict.message, evidence.SUGGESTIONS, verdict.evidence)
            return
        cite = include_citations and cfg.enable_citations
        yield Started(warning=warning, retrieval=info)  # before the model's first token
        answerer = LLMAnswerer(self.settings, self.embedder, self.llm_transport)
        try:
            sources, first, tokens = answerer.open(question, verdict.qualifying)
        except LLMUnavailable as exc:
            answer = extract(
                question, verdict.qualifying, candidates=retrieval.candidates, max_sources=k
            )
            message = (
                f"Generation was unavailable ({exc.message}); this answer quotes the documents."
            )
            yield Notice(exc.code, message)
            yield from answer_events(answer, cite)
            return
        yield from answerer.events(sources, first, tokens, verdict.evidence, cite)

    def _retrieve(
        self, question: str, coll: str, k: int, embedding: list[float] | None
    ) -> tuple[Retrieval, dict[str, object]]:
        began = time.perf_counter()
        retrieval = self.retriever.retrieve(question, coll, k, embedding)
        info: dict[str, object] = {
            "collection": coll,
            "duration_ms": round((time.perf_counter() - began) * 1000, 1),
            "chunks_returned": len(retrieval.hits),
        }
        return retrieval, info

    def answer(
        self,
        question: str,
        collection: str | None = None,
        *,
        top_k: int | None = None,
        threshold: float | None = None,
        embedding: list[float] | None = None,
        config: CollectionSettings | None = None,
    ) -> AskResult:
        question = validate_question(question)
        coll = collection or self.settings.collection
        cfg = config or self.collection_settings(coll)
        if cfg.generation_mode == "llm" and cfg.enable_rag:
            events = self._ask_llm(question, coll, cfg, top_k, threshold, embedding, True)
            return collect(question, events, cfg.enable_citations)
        if not cfg.enable_rag:
            empty = Retrieval((), (), None, 0)
            return AskResult(question, Answer(RAG_OFF_MESSAGE, (), (), ()), None, empty, cite=False)
        limit = threshold if threshold is not None else cfg.evidence_threshold
        k = top_k or cfg.top_k
        warning = self._length_warning(question) if embedding is None else None
        retrieval, info = self._retrieve(question, coll, k, embedding)
        verdict = evidence.check(question, retrieval, limit, self.settings.answerability_check)
        cite = cfg.enable_citations
        if not verdict.ok:
            refusal = Refusal(verdict.message, evidence.SUGGESTIONS, verdict.evidence)
            return AskResult(question, None, refusal, retrieval, warning, cite, info=info)
        answer = extract(
            question, verdict.qualifying, candidates=retrieval.candidates, max_sources=k
        )
        return AskResult(question, answer, None, retrieval, warning, cite, info=info)

    # -- collection settings and the refusal log ---------------------------------------
    def collection_settings(self, collection: str | None = None) -> CollectionSettings:
        coll = collection or self.settings.collection
        return collection_settings.resolve(self.store.get_collection_settings(coll), self.settings)

    def update_collection_settings(
        self, collection: str, changes: dict[str, object]
    ) -> CollectionSettings:
        """Apply a partial update (validated); only the changed keys are stored."""
        updated = collection_settings.merge(self.collection_settings(collection), changes)
        stored = {**self.store.get_collection_settings(collection), **changes}
        self.store.put_collection_settings(collection, stored)
        return updated

    def refusal_entry(
        self, question: str, collection: str | None, refusal: Refusal
    ) -> RefusalEntry:
        ev = refusal.evidence
        return RefusalEntry(
            question=question,
            collection=collection or self.settings.collection,
            max_score=None if ev.max_score is None else round(ev.max_score, 4),
            threshold=ev.threshold,
            reason=ev.reason,
        )

    def log_refusal(
        self, question: str, collection: str | None, refusal: Refusal, user_id: str | None = None
    ) -> None:
        self.store.log_refusal(self.refusal_entry(question, collection, refusal), user_id)

    def _length_warning(self, question: str) -> str | None:
        tokens = self.embedder.count_tokens([question])[0]
        limit = self.embedder.max_tokens - 2
        if tokens <= limit:
            return None
        return (
            f"The question is {tokens} tokens long; only the first {limit} were used to "
            "search the documents."
        )


def check_generation(collection: str, config: CollectionSettings) -> None:
    """Raise ``GenerationUnavailable`` unless the collection's generation mode can run.

    Both modes run: ``llm`` falls back to an extractive answer when the model is down.
    """
    if config.generation_mode not in ("extractive", "llm"):
        raise GenerationUnavailable(
            f"Collection {collection!r} asks for {config.generation_mode!r} generation, "
            "which this version cannot do."
        )


def answer_events(a: Answer, cite: bool) -> Generator[Event, None, None]:
    """``Delta``…, ``Sources`` (when citing), ``Done`` for a finished answer."""
    text = a.text if cite else plain_text(a)
    for piece in split_deltas(text):
        yield Delta(piece)
    if cite:
        yield Sources(a.citations, a.referenced, a.spans, a.grounding)
    yield Done(text)


def collect(question: str, events: Generator[Event, None, None], cite: bool) -> AskResult:
    """Gather ``ask()`` events into one ``AskResult`` (the JSON answer)."""
    empty = Retrieval((), (), None, 0)
    start = Started()
    notice: str | None = None
    parts: list[str] = []
    sources: Sources | None = None
    for event in events:
        if isinstance(event, Refusal):
            return AskResult(
                question, None, event, empty, start.warning, cite, info=start.retrieval or {}
            )
        if isinstance(event, Started):
            start = event
        elif isinstance(event, Notice):
            notice = event.message
        elif isinstance(event, Delta):
            parts.append(event.text)
        elif isinstance(event, Sources):
            sources = event
        elif isinstance(event, Failed):
            answer = Answer("".join(parts), (), (), ())
            return AskResult(question, answer, None, empty, start.warning, False,
                             notice, start.retrieval or {}, event)  # fmt: skip
    text = "".join(parts)
    if sources is None:
        answer = Answer(text, (), (), ())
    else:
        answer = Answer(text, sources.citations, sources.referenced_indices, sources.spans,
                        sources.grounding)  # fmt: skip
    return AskResult(question, answer, None, empty, start.warning, cite and sources is not None,
                     notice, start.retrieval or {})  # fmt: skip


def validate_question(question: str) -> str:
    text = question.strip()
    if not text:
        raise InvalidInput("The question is empty.", code="empty_question")
    if len(question) > MAX_QUESTION_CHARS:
        raise InvalidInput(
            f"The question is {len(question)} characters long; the limit is {MAX_QUESTION_CHARS}.",
            code="question_too_long",
        )
    return text


def refusal_payload(refusal: Refusal) -> dict[str, object]:
    return {
        "type": "refusal",
        "message": refusal.message,
        "suggestions": list(refusal.suggestions),
        "evidence": refusal.evidence.to_dict(),
    }


def answer_payload(
    answer: Answer,
    *,
    session_id: str | None = None,
    message_id: str | None = None,
    include_citations: bool = True,
    warning: str | None = None,
    notice: str | None = None,
) -> dict[str, object]:
    """The JSON answer object of the ``/api/chat`` contract."""
    payload: dict[str, object] = {
        "type": "answer",
        "session_id": session_id,
        "message_id": message_id,
        "answer": answer.text,
    }
    if include_citations:
        payload["answer_markdown"] = answer_markdown(answer)
        payload["citations"] = [c.to_dict() for c in answer.citations]
        payload["referenced_indices"] = list(answer.referenced)
        payload["spans"] = [s.to_dict() for s in answer.spans]
        payload["citation_map"] = {
            str(c.index): {
                "text": c.text[:500],
                "source": c.url or c.document_title,
                "title": c.document_title,
                "score": c.score,
                "metadata": {"page": c.page, "section": c.section},
            }
            for c in answer.citations
        }
        if answer.grounding is not None:
            payload["grounding"] = dict(answer.grounding)
    else:
        plain = plain_text(answer)
        payload["answer"] = plain
        payload["answer_markdown"] = escape_markdown_html(plain)
    if warning:
        payload["warning"] = warning
    if notice:
        payload["notice"] = notice
    return payload


__all__ = [
    "AskResult",
    "Evidence",
    "Footnoted",
    "GenerationUnavailable",
    "answer_payload",
    "check_generation",
    "plain_text",
    "refusal_payload",
    "split_deltas",
]
