"""Grounding an LLM answer: the support check after it streamed (its text was made safe
and its ``[N]`` markers renumbered while it streamed: ``answering/safe_markdown.py``).

After the stream, :func:`check_support` scores every cited sentence against the chunk it
cites: ``0.5 * cosine + 0.5 * overlap`` with the chunk's best sentence (cosine of the
embeddings; overlap = share of the sentence's content words found in that sentence).
A span under :data:`SUPPORT_THRESHOLD` is ``supported: false``. An uncited sentence
whose best chunk scores at least :data:`ADD_THRESHOLD` (and clearly beats every other
chunk) gets that chunk's citation as a span, the citation marked ``added: true``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ...inference.embedding import Embedder
from ...lexical import MARKER, chunk_sentences, content_stems
from ...models import Citation, Grounding, RetrievedChunk, Span
from ..citations import Answer, make_citation, marker_numbers, pin_pages

SUPPORT_THRESHOLD = 0.55
ADD_THRESHOLD = 0.75
ADD_MARGIN = 0.1
COSINE_WEIGHT = 0.5

_SENTENCE_END = re.compile(r"[.!?]+(?:\s*\[[^\]\n]*\])*(?=\s|$)|\n+")


# ---- after the stream: spans and the support check ----------------------------------------


@dataclass(frozen=True, slots=True)
class _Sentence:
    start: int  # offsets in the answer text, markers excluded from the end
    end: int
    text: str
    cites: tuple[int, ...]  # dense numbers


def answer_sentences(text: str) -> list[_Sentence]:
    """The answer's sentences, each with the ``[N]`` markers that close or sit in it."""
    out: list[_Sentence] = []
    start = 0
    bounds = [m.end() for m in _SENTENCE_END.finditer(text)]
    if not bounds or bounds[-1] < len(text):
        bounds.append(len(text))
    for end in bounds:
        piece = text[start:end]
        cites = tuple(n for m in MARKER.finditer(piece) for n in marker_numbers(m.group(1)))
        bare = MARKER.sub("", piece).strip()
        lead = len(piece) - len(piece.lstrip())
        stop = len(piece.rstrip())
        tail = re.search(r"(?:\s*\[[^\]\n]*\])+\s*[.!?]*$", piece.rstrip())
        if tail is not None:
            stop = tail.start()
        if bare and len(re.findall(r"\w+", bare)) >= 3:
            out.append(_Sentence(start + lead, start + max(stop, lead), bare, cites))
        start = end
    return out


class _ChunkSentences:
    """The sentences of each cited chunk with their embeddings, for scoring."""

    def __init__(self, hits: Sequence[RetrievedChunk], embedder: Embedder) -> None:
        self.hits = hits
        self.spans = [
            [(s, e) for s, e, _ in chunk_sentences(h.chunk.text)] or [(0, len(h.chunk.text))]
            for h in hits
        ]
        self.texts = [
            [h.chunk.text[a:b] for a, b in sp] for h, sp in zip(hits, self.spans, strict=True)
        ]
        flat = [t for texts in self.texts for t in texts]
        vectors = np.asarray(embedder.embed(flat), dtype=np.float32)
        bounds = np.cumsum([0] + [len(t) for t in self.texts])
        self.vectors = [vectors[a:b] for a, b in itertools.pairwise(bounds)]

    def score(self, k: int, vec: np.ndarray, stems: set[str]) -> tuple[float, tuple[int, int]]:
        """Chunk ``k``'s best sentence for an answer sentence: (score, its chunk offsets)."""
        cos = self.vectors[k] @ vec
        best, best_score = 0, -1.0
        for i, sentence in enumerate(self.texts[k]):
            overlap = len(stems & content_stems(sentence)) / len(stems) if stems else 0.0
            score = COSINE_WEIGHT * max(float(cos[i]), 0.0) + (1 - COSINE_WEIGHT) * overlap
            if score > best_score:
                best, best_score = i, score
        return round(best_score, 4), self.spans[k][best]


def _clear_winner(scores: list[float]) -> int | None:
    """The one chunk that clearly supports an uncited sentence, if any."""
    ranked = sorted(range(len(scores)), key=lambda k: -scores[k])
    if not ranked or scores[ranked[0]] < ADD_THRESHOLD:
        return None
    if len(ranked) > 1 and scores[ranked[0]] - scores[ranked[1]] < ADD_MARGIN:
        return None  # two chunks support it about equally: not clearly one
    return ranked[0]


def check_support(
    text: str,
    order: Sequence[int],
    hits: Sequence[RetrievedChunk],
    embedder: Embedder,
) -> Answer:
    """Citations, spans and grounding for a streamed answer whose markers are dense."""
    ordered = [hits[n - 1] for n in order]
    ordered += [h for i, h in enumerate(hits, start=1) if i not in order]  # [k - 1] is number k
    chunks = _ChunkSentences(ordered, embedder)
    sentences = answer_sentences(text)
    vectors = np.asarray(embedder.embed([s.text for s in sentences]), dtype=np.float32)
    spans: list[Span] = []
    added: list[int] = []
    verdicts: list[bool] = []
    for sentence, vec in zip(sentences, vectors, strict=True):
        stems = content_stems(sentence.text)
        scored = [chunks.score(k, vec, stems) for k in range(len(ordered))]
        cites = [n for n in dict.fromkeys(sentence.cites) if 1 <= n <= len(ordered)]
        if cites:
            new = [_span(sentence, n, ordered[n - 1], *scored[n - 1]) for n in cites]
            spans += new
            verdicts.append(any(s.supported for s in new))
        elif (k := _clear_winner([score for score, _ in scored])) is not None:
            if k >= len(order) and k not in added:
                added.append(k)
            spans.append(_span(sentence, k + 1, ordered[k], *scored[k]))
    counts = (len(verdicts), sum(verdicts), len(verdicts) - sum(verdicts))
    return _assemble(ordered, len(order), added, spans, counts, text)


def _span(
    sentence: _Sentence, index: int, hit: RetrievedChunk, score: float, where: tuple[int, int]
) -> Span:
    base = hit.chunk.char_start
    ok = score >= SUPPORT_THRESHOLD
    return Span(sentence.start, sentence.end, index, base + where[0], base + where[1], ok)


def _assemble(
    ordered: list[RetrievedChunk],
    used: int,
    added: list[int],
    spans: list[Span],
    counts: tuple[int, int, int],
    text: str,
) -> Answer:
    """Number the citations: used ones, then added ones, then the rest; fix span indices."""
    sequence = (
        list(range(used)) + sorted(added) + [k for k in range(used, len(ordered)) if k not in added]
    )
    number = {k: i for i, k in enumerate(sequence, start=1)}
    citations: list[Citation] = []
    for k in sequence:
        c = make_citation(number[k], ordered[k])
        citations.append(replace(c, added=True) if k in added else c)
    spans = [replace(s, index=number[s.index - 1]) for s in spans]
    names = ("cited_sentences", "supported", "unsupported")
    grounding: Grounding = dict(zip(names, counts, strict=True))
    grounding["added"] = len(added)
    referenced = tuple(range(1, used + 1))
    return pin_pages(Answer(text, tuple(citations), referenced, tuple(spans), grounding))


def dedupe_hits(hits: Sequence[RetrievedChunk], cap: int = 20) -> list[RetrievedChunk]:
    """One hit per chunk id (the highest score wins), at most ``cap``, best first."""
    best: dict[str, RetrievedChunk] = {}
    for h in hits:
        if h.chunk.id not in best or h.score > best[h.chunk.id].score:
            best[h.chunk.id] = h
    return sorted(best.values(), key=lambda h: -h.score)[:cap]
