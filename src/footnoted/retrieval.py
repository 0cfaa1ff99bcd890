"""Retrieval: dense (vector) + keyword (BM25) candidates, fused by reciprocal rank.

The keyword search runs on a thread of its own beside the question's embedding and the
dense search (SQLite, ONNX Runtime and the vector index all release the GIL), and in the
asking thread when every such thread is busy, so it never waits behind other questions.

Every returned chunk carries its exact cosine similarity to the question, which the
evidence check and the citations' ``score`` use. Disabled and non-ready documents
never appear: the store filters them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .errors import InvalidInput, ReindexRequired
from .inference.embedding import Embedder, Vectors
from .lexical import (
    CELLS,
    Bag,
    QuestionTerms,
    abbreviated,
    bag,
    chunk_sentences,
    content_words,
    contents_listing,
)
from .loaders.blocks import table_headers
from .models import RetrievedChunk
from .stores.base import SearchIndex, StoredChunk

RRF_K = 60
RERANK_DEPTH = 20
# where the keyword search runs beside the question's embedding and the vector search
_BESIDE = ThreadPoolExecutor(os.cpu_count() or 1, thread_name_prefix="footnoted-keywords")


@dataclass(frozen=True, slots=True)
class Retrieval:
    hits: tuple[RetrievedChunk, ...]  # best first, at most top_k
    candidates: tuple[RetrievedChunk, ...]  # everything scored, best first
    max_score: float | None  # best ``closest`` among candidates; None for an empty collection
    total_chunks: int
    vector: Vectors | None = None  # the question's, as searched; None for an empty collection


DEPTH = 50  # candidates each search (dense, keyword) returns, at least


class Retriever:
    def __init__(
        self,
        store: SearchIndex,
        embedder: Embedder,
        depth: int = DEPTH,
        keyword_weight: float = 1.0,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.depth = depth
        self.keyword_weight = keyword_weight

    def check_models(self, collection: str) -> None:
        stale = self.store.embedding_models(collection) - {self.embedder.name}
        if stale:
            raise ReindexRequired(
                f"Collection {collection!r} holds vectors from {', '.join(sorted(stale))}, "
                f"but the embedding model is now {self.embedder.name}. "
                "Run `footnoted reindex` to re-embed its documents."
            )

    def query_vector(self, question: str, embedding: list[float] | None) -> Vectors:
        if embedding is None:
            return np.asarray(self.embedder.embed([question])[0], dtype=np.float32)
        if len(embedding) != self.embedder.dim:
            raise InvalidInput(
                f"embedding has {len(embedding)} dimensions; the model makes {self.embedder.dim}.",
                code="embedding_dimension_mismatch",
            )
        vector = np.asarray(embedding, dtype=np.float32)
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm > 0 else vector

    def cosines(self, text: str, hits: Sequence[RetrievedChunk]) -> list[float]:
        """Each hit's chunk's cosine to ``text`` (clipped to [0, 1] like a hit's score)."""
        vector = self.query_vector(text, None)
        stored = {s.chunk.id: s.vector for s in self.store.fetch_chunks([h.chunk.id for h in hits])}
        return [similarity(stored[h.chunk.id], vector) for h in hits]

    def retrieve(
        self,
        question: str,
        collection: str,
        top_k: int,
        embedding: list[float] | None = None,
    ) -> Retrieval:
        total = self.store.count_chunks(collection)
        if total == 0:
            return Retrieval((), (), None, 0)
        self.check_models(collection)
        depth = max(self.depth, 4 * top_k)
        words = abbreviated(content_words(question))
        beside = _BESIDE.submit(self.store.keyword_search, collection, words, depth)
        try:
            vector = self.query_vector(question, embedding)
            dense = self.store.dense_search(collection, vector, depth)
        finally:
            waiting = beside.cancel()  # not begun (every thread busy): searched here instead
        keyword = (
            self.store.keyword_search(collection, words, depth) if waiting else beside.result()
        )
        fused = self._fuse([cid for cid, _ in dense], keyword)
        ranked = once(rerank(question, self._score(fused, vector, dense, keyword)))
        best = max((h.closest for h in ranked), default=None)
        return Retrieval(tuple(ranked[:top_k]), tuple(ranked), best, total, vector)

    def containing(
        self, phrase: str, vector: Vectors, collection: str, k: int
    ) -> list[RetrievedChunk]:
        """The ``k`` chunks that hold ``phrase`` best by keyword rank, scored as
        retrieved for the question whose ``vector`` is given: where a term the question
        asks about is written out when the question's other words do not lead to it."""
        return self.scored(self.store.keyword_search(collection, [phrase], k), vector)

    def scored(self, ids: Sequence[str], vector: Vectors) -> list[RetrievedChunk]:
        """The chunks ``ids``, scored as retrieved for the question whose ``vector`` is
        given (``Retrieval.vector``: it is not embedded again), in that order."""
        if not ids:
            return []
        return self._score({cid: 0.0 for cid in ids}, vector, [], list(ids))

    def _fuse(self, dense: list[str], keyword: list[str]) -> dict[str, float]:
        scores: dict[str, float] = {}
        for rank, cid in enumerate(dense):
            scores[cid] = scores.get(cid, 0.0) + 1.0 / (RRF_K + rank + 1)
        for rank, cid in enumerate(keyword):
            scores[cid] = scores.get(cid, 0.0) + self.keyword_weight / (RRF_K + rank + 1)
        return scores

    def _score(
        self,
        fused: dict[str, float],
        vector: Vectors,
        dense: list[tuple[str, float]],
        keyword: list[str],
    ) -> list[RetrievedChunk]:
        order = sorted(fused, key=lambda cid: -fused[cid])
        dense_rank = {cid: i for i, (cid, _) in enumerate(dense)}
        keyword_rank = {cid: i for i, cid in enumerate(keyword)}
        stored_chunks = self.store.fetch_chunks(order)
        by_sentence = _sentence_scores(stored_chunks, vector)
        out: list[RetrievedChunk] = []
        for stored, sentence_scores in zip(stored_chunks, by_sentence, strict=True):
            cid = stored.chunk.id
            out.append(
                RetrievedChunk(
                    chunk=stored.chunk,
                    document_title=stored.document_title,
                    document_url=stored.document_url,
                    score=similarity(stored.vector, vector),
                    keyword_rank=keyword_rank.get(cid),
                    dense_rank=dense_rank.get(cid),
                    fused=fused[cid],
                    sentence_scores=sentence_scores,
                    document_version=stored.document_version,
                )
            )
        return out


def similarity(chunk: Vectors, query: Vectors) -> float:
    """A chunk's cosine to the query (both unit vectors), clipped to [0, 1]."""
    return min(1.0, max(0.0, float(np.dot(chunk, query))))


def _sentence_scores(stored: list[StoredChunk], vector: Vectors) -> list[tuple[float, ...]]:
    """Each chunk's sentences' cosines to the query, in one product; empty for a chunk
    whose stored vectors do not match its sentences (stored before they were kept)."""
    kept = [
        s.sentences
        if s.sentences is not None and len(s.sentences) == len(chunk_sentences(s.chunk.text))
        else None
        for s in stored
    ]
    present = [k for k in kept if k is not None]
    scores = iter((np.concatenate(present) @ vector).tolist() if present else [])
    return [() if k is None else tuple(next(scores) for _ in range(len(k))) for k in kept]


def rerank(question: str, candidates: list[RetrievedChunk]) -> list[RetrievedChunk]:
    """Reorder the top fused candidates by cosine plus their best sentence's coverage.

    A chunk whose single sentence covers the question's rarest terms usually holds the
    answer; a table row counts the words of its header row (``sentence_words``). Measured
    on SQuAD dev (docs/quality.md): the answering chunk ranks first for 82% of
    answerable questions instead of 75% with fusion alone (240-token chunks).
    A table of contents (``contents_listing``) goes after the others: its titles cover
    the question's words like no passage does, and it says none of what they head.
    """
    head, tail = candidates[:RERANK_DEPTH], candidates[RERANK_DEPTH:]
    terms = QuestionTerms(question, candidates)
    head.sort(key=lambda h: h.score + terms.cover(sentence_words(h.chunk.text, h.chunk.header)),
              reverse=True)  # fmt: skip
    head.sort(key=lambda hit: contents_listing(hit.chunk.text))  # stable: order kept
    return head + tail


def once(ranked: list[RetrievedChunk]) -> list[RetrievedChunk]:
    """``ranked`` with each passage a document prints again, word for word, left out
    after its first: a slide's bullets uncovered one page at a time, speaker notes copied
    onto slide after slide. Read again, they would take the places of other passages."""
    seen: set[tuple[str, str]] = set()
    out: list[RetrievedChunk] = []
    for hit in ranked:
        printed = (hit.chunk.document_id, " ".join(hit.chunk.text.split()))
        if printed not in seen:
            seen.add(printed)
            out.append(hit)
    return out


def to_read(
    ranked: Sequence[RetrievedChunk], top_k: int, question: str = ""
) -> list[RetrievedChunk]:
    """The first ``top_k`` of ``ranked``, and after them the chunk closest to the question
    by embedding where the rerank's word coverage put it further: a table's rows, whose
    cells are numbers, cover few of the question's words ("Total | $2,852 | $2,249"
    under "Years ended December 31 | 2022 | 2021", asked what was spent on research and
    development in 2022), and rows under such a header cover a year asked better than
    the sentence that answers ("As of December 31, 2022 and 2021, Boeing's total
    workforce was approximately 156,000", seventh, asked how many people worked for
    Boeing at the end of 2022); and the chunk the keyword search ranks first, where the
    rerank put it further and it holds an identifier the ``question`` names that none of
    the first ``top_k`` holds: the one row naming "ILib3MFModelMeshObject" among a
    table's rows that all cover the question's other words through their header. Not a
    table of contents, which the rerank puts last on purpose."""
    hits = list(ranked[:top_k])
    named = bag(" ".join(_IDENTIFIER.findall(question)))
    for h in hits if named else ():  # most questions name no identifier: nothing to read
        named -= bag(f"{h.chunk.header or ''}\n{h.chunk.text}")
    keyword = (h for h in ranked[top_k:] if h.keyword_rank == 0)
    for first in (
        next((h for h in ranked[top_k:] if h.dense_rank == 0), None),
        next((h for h in keyword if named & bag(h.chunk.text)), None) if named else None,
    ):
        if first is None or contents_listing(first.chunk.text):
            continue
        if all(h.chunk.id != first.chunk.id for h in hits):
            hits.append(first)
    return hits


# an identifier a question names: a word of letters with a digit or a capital inside it
# ("ILib3MFModelMeshObject", "x86_64"), not a capitalised word, an acronym nor a number
_IDENTIFIER = re.compile(r"\b(?=\w*[^\W\d_])\w*(?:\d|[a-z][A-Z])\w*\b")


@lru_cache(maxsize=4096)
def sentence_words(text: str, header: str | None) -> tuple[Bag, ...]:
    """The words of each of a chunk's sentences; a table row's with its header row's,
    the years and names its cells are read under ("Revenue | $ | 3,208,323" under
    "2021 | 2020 | 2019"), whether printed in the chunk or above it (``header``)."""
    sentences = chunk_sentences(text)
    heads = table_headers(text, [s for s, _, _ in sentences])
    out = []
    for (s, e, words), head in zip(sentences, heads, strict=True):
        above = head or (header if CELLS in text[s:e] else None)
        out.append(words | bag(above) if above else words)
    return tuple(out)
