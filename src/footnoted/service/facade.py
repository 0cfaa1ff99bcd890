"""The ``Footnoted`` facade: wires the pipeline stages from ``Settings``.

The HTTP API, the CLI and the evaluation commands all go through this one object.
"""

from __future__ import annotations

import secrets
from collections.abc import Generator, Sequence
from dataclasses import replace
from pathlib import Path

from .. import settings as collection_settings
from ..answering.llm import connection as llm_connection
from ..answering.pipeline import MAX_QUESTION_CHARS, AskResult, Pipeline, answer_events, rag_off
from ..answering.question import Question
from ..inference.embedding import SentenceTransformerEmbedder, get_embedder
from ..inference.runtime import limit_blas_threads
from ..ingest.ingest import FileResult, Ingestor, IngestReport, ProgressFn
from ..ingest.parsing import ChunkSpec, Parser
from ..ingest.uploads import Uploads
from ..models import MAIL_KINDS, Document, Event, Evidence, Refusal, Started, attached_to
from ..records import CLI_ACTOR, Actor, RefusalEntry
from ..retrieval import Retrieval, Retriever
from ..settings import CollectionSettings, Settings
from ..stores.base import Store
from ..stores.factory import open_store


def link_epoch_name(document_id: str) -> str:
    return f"link_epoch:{document_id}"


TITLE_TOKENS = 16  # room kept for the title and section embedded with each chunk
ELSEWHERE_CHECKED = 8  # other collections a refusal looks into for the answer


def chunk_limit(settings: Settings, model_tokens: int) -> int:
    """The largest chunk in tokens: the setting, within what the model reads with the
    title and section embedded beside each chunk."""
    return min(settings.chunk_tokens, model_tokens - TITLE_TOKENS)


class Footnoted:
    def __init__(self, settings: Settings | None = None, store: Store | None = None) -> None:
        self.settings = settings or Settings()
        limit_blas_threads()
        self.embedder: SentenceTransformerEmbedder = get_embedder(self.settings)
        self.settings.home.mkdir(parents=True, exist_ok=True)
        self.store: Store = store or open_store(self.settings, self.embedder.dim)
        self.retriever = Retriever(self.store, self.embedder)
        self.pipeline = Pipeline(
            self.settings, self.retriever, self.embedder, self.llm_settings,
            self.store.document_text, self.store.document_chunks,
        )  # fmt: skip
        self._ingestor: Ingestor | None = None
        self.uploads = Uploads(self.settings, self.store, lambda: self.ingestor)

    def close(self) -> None:
        if self._ingestor is not None:
            self._ingestor.parser.close()
        self.store.close()

    def warm_up(self, ingest: bool = False) -> None:
        """Load the models a question needs (the embedder, then the reader) ahead of it;
        with ``ingest``, what ingestion needs too."""
        self.embedder.warm_up(batches=ingest)
        _ = self.pipeline.reader

    def __enter__(self) -> Footnoted:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- ingestion ---------------------------------------------------------------------
    @property
    def ingestor(self) -> Ingestor:
        if self._ingestor is None:
            limit = chunk_limit(self.settings, self.embedder.max_tokens)
            parser = Parser(
                ChunkSpec.for_model(self.embedder.path, limit, self.settings.max_document_chunks),
                timeout_s=self.settings.parse_timeout_s,
                memory_mb=self.settings.parse_memory_mb,
                ocr_engine=self.settings.ocr_engine,
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
        touched: list[str] = []  # the collection of each document re-embedded
        partial = self.store.without_sentence_vectors(collection)
        for doc in self.store.list_documents(collection):
            stale = doc.embedding_model != self.embedder.name or doc.id in partial
            if doc.status == "ready" and stale:
                n = self.ingestor.reembed(doc)
                touched.append(doc.collection)
                if progress is not None:
                    progress(FileResult(doc.source, "replaced", doc.id, doc.title, n))
        for name in dict.fromkeys(touched):
            self.store.refresh_index(name)
        return len(touched)

    # -- documents ---------------------------------------------------------------------
    def llm_settings(self) -> Settings:
        """The settings with the LLM connection in force: an admin's saved one, else the
        environment's."""
        return llm_connection.settings_for(self.settings, self.store)

    def set_enabled(self, document_id: str, enabled: bool, actor: Actor = CLI_ACTOR) -> Document:
        """Disabling a document also revokes its public links for good: links signed
        before carry the old ``link_epoch`` and stay dead when it is enabled again."""
        doc = self.store.set_enabled(document_id, enabled)
        if not enabled:
            self.store.set_secret(link_epoch_name(document_id), secrets.token_hex(8))
        action = "document_enabled" if enabled else "document_disabled"
        self.store.audit(actor, action, f"document:{doc.id}", {"title": doc.title})
        return doc

    def link_epoch(self, document_id: str) -> str:
        """What a document's public links are signed over besides its id and expiry
        ("" until it is first disabled)."""
        return self.store.secret(link_epoch_name(document_id), str)

    def delete(self, document_id: str, actor: Actor = CLI_ACTOR, purge: bool = False) -> None:
        """Delete a document. Its last version stays readable from the answers that quoted
        it (as the retention allows); ``purge`` removes every version too. Audited."""
        doc = self.store.get_document(document_id)
        self.store.delete_document(document_id, purge=purge)
        detail: dict[str, str | bool] = {"title": doc.title, "collection": doc.collection}
        if purge:
            detail["purged"] = True
        self.store.audit(actor, "document_deleted", f"document:{doc.id}", detail)
        if doc.kind not in MAIL_KINDS:
            return
        for attachment in self.store.list_documents(doc.collection):
            if attached_to(attachment.source) == doc.source:  # it came with this message
                self.delete(attachment.id, actor, purge)

    # -- asking ------------------------------------------------------------------------
    def retrieve(
        self, question: str, collection: str | None = None, top_k: int | None = None
    ) -> Retrieval:
        coll = collection or self.settings.collection
        return self.retriever.retrieve(question, coll, top_k or self.settings.top_k)

    def question(self, question: Question | str) -> Question:
        """``question`` resolved: its collection (the default one when it names none) and
        that collection's settings (its stored ones when it brings none)."""
        q = Question(question) if isinstance(question, str) else question
        collection = q.collection or self.settings.collection
        return q.resolved(collection, q.settings or self.collection_settings(collection))

    def ask(self, question: Question | str) -> Generator[Event, None, None]:
        """Yield ``Refusal`` alone, or ``Started``, ``Delta``…, ``Sources``, ``Done``.

        Without citations (asked for, or the collection's ``enable_citations`` off) the
        deltas carry no ``[N]`` markers and no ``Sources`` event is sent. Everything up to
        the first event (retrieval, reading, the evidence check) happens on the first
        ``next()``; see ``answering/pipeline.py``. After earlier turns of the question's
        conversation a follow-up is read in their light.
        """
        q = self.question(question)
        if not q.config.enable_rag:
            result = rag_off(q.text)
            assert result.answer is not None
            yield Started()
            yield from answer_events(result.answer, False)
            return
        prepared = self.pipeline.prepare(q)
        for event in self.pipeline.stream(prepared):
            yield (
                self._pointed(event, prepared.query, q.where)
                if isinstance(event, Refusal)
                else event
            )

    def answer(self, question: Question | str) -> AskResult:
        """The whole answer (or refusal) at once: the same events as ``ask``, collected."""
        q = self.question(question)
        if not q.config.enable_rag:
            return rag_off(q.text)
        prepared = self.pipeline.prepare(q)
        result = self.pipeline.answer(prepared)
        if result.refusal is None:
            return result
        return replace(result, refusal=self._pointed(result.refusal, prepared.query, q.where))

    def _pointed(self, refusal: Refusal, query: str, collection: str) -> Refusal:
        """A refusal for want of evidence names the other collections that answer it (a
        model that declined had its evidence: it is left as it is)."""
        if refusal.evidence.reason == "ok":
            return refusal
        return replace(refusal, elsewhere=self.elsewhere(query, collection))

    def elsewhere(self, query: str, collection: str) -> tuple[str, ...]:
        """The other collections (at most ``ELSEWHERE_CHECKED`` of them, by name) whose
        documents pass the evidence check for ``query``, reader included."""
        found: list[str] = []
        others = [c for c in self.store.collections() if c != collection]
        for other in others[:ELSEWHERE_CHECKED]:
            cfg = self.collection_settings(other)
            if not cfg.enable_rag:
                continue
            checked = self.pipeline.prepare(Question(query, other, cfg, citations=False))
            if checked.evidence.reason == "ok":
                found.append(other)
        return tuple(found)

    # -- collection settings and the refusal log ---------------------------------------
    def collection_settings(self, collection: str | None = None) -> CollectionSettings:
        coll = collection or self.settings.collection
        return collection_settings.resolve(self.store.get_collection_settings(coll), self.settings)

    def update_collection_settings(
        self, collection: str, changes: dict[str, object], actor: Actor = CLI_ACTOR
    ) -> CollectionSettings:
        """Apply a partial update (validated); only the changed keys are stored."""
        updated = collection_settings.merge(self.collection_settings(collection), changes)
        stored = {**self.store.get_collection_settings(collection), **changes}
        self.store.put_collection_settings(collection, stored)
        shown = updated.model_dump(mode="json")
        detail = {key: shown[key] for key in changes if key in shown}
        self.store.audit(actor, "collection_settings_changed", f"collection:{collection}", detail)
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


__all__ = [
    "MAX_QUESTION_CHARS",
    "AskResult",
    "Evidence",
    "Footnoted",
]
