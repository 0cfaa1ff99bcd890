"""Sentence-level matching of a question against retrieved chunks.

A question usually restates one sentence of the passage that answers it. Matching at
sentence level, with question terms weighted by how rare they are among the retrieved
candidates, finds that sentence — and its chunk — far more reliably than a whole-chunk
score. Both the reranker and the extractive answerer use it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .chunking import split_sentences
from .citations import MARKER
from .models import RetrievedChunk
from .text import content_words, stem

Bag = frozenset[str]


@lru_cache(maxsize=8192)
def bag(text: str) -> Bag:
    """Stemmed content words of a text."""
    return frozenset(map(stem, content_words(text)))


def _without_edge_markers(text: str, start: int, end: int) -> tuple[int, int]:
    """Narrow a sentence past a document's own footnote markers at either edge.

    A quoted "... as the editor.[2]" would read as a citation of the answer's source 2;
    narrowed, the quote stays verbatim and ends at "editor.".
    """
    while (m := MARKER.match(text, start, end)) is not None:
        start = m.end()
        while start < end and text[start].isspace():
            start += 1
    while True:
        tail = next((m for m in MARKER.finditer(text, start, end) if m.end() == end), None)
        if tail is None:
            return start, end
        end = tail.start()
        while end > start and text[end - 1].isspace():
            end -= 1


@lru_cache(maxsize=4096)
def chunk_sentences(text: str) -> tuple[tuple[int, int, Bag], ...]:
    """Sentence offsets in a chunk's text (past edge footnote markers) with their words."""
    out = []
    for s, e in split_sentences(text):
        s, e = _without_edge_markers(text, s, e)
        if e > s:
            out.append((s, e, bag(text[s:e])))
    return tuple(out)


@lru_cache(maxsize=4096)
def chunk_bag(text: str) -> Bag:
    """Stemmed content words of a chunk's sentences (a document's own markers left out)."""
    return frozenset().union(*(words for _, _, words in chunk_sentences(text)))


@dataclass(frozen=True, slots=True)
class Sentence:
    hit: int  # index into the candidates
    position: int  # sentence number within its chunk
    start: int  # offsets into the chunk text
    end: int
    terms: Bag  # the question terms this sentence contains


class QuestionTerms:
    """The question's content terms, weighted by rarity among the candidate chunks."""

    def __init__(self, question: str, candidates: Sequence[RetrievedChunk]) -> None:
        self.terms = bag(question)
        bags = [chunk_bag(h.chunk.text) for h in candidates]
        n = len(bags)
        self.idf = {
            t: math.log((n + 1) / (sum(1 for b in bags if t in b) + 0.5)) for t in self.terms
        }
        self.total = sum(self.idf.values()) or 1.0

    def weight(self, terms: Bag) -> float:
        """Share of the question's weight that ``terms`` cover, 0..1."""
        return sum(self.idf[t] for t in terms if t in self.idf) / self.total

    def sentences(self, hits: Sequence[RetrievedChunk]) -> list[Sentence]:
        out = []
        for h, hit in enumerate(hits):
            for p, (s, e, words) in enumerate(chunk_sentences(hit.chunk.text)):
                out.append(Sentence(h, p, s, e, words & self.terms))
        return out

    def best_sentence_cover(self, hit: RetrievedChunk) -> float:
        sentences = chunk_sentences(hit.chunk.text)
        return max((self.weight(words & self.terms) for _, _, words in sentences), default=0.0)
