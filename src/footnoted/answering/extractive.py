"""Extractive answering (the default, no LLM): quote the sentences that answer.

At most ``max_sentences`` sentences are quoted verbatim from the qualifying chunks,
each followed by its ``[N]``. A sentence scores by the question's content words it
covers (weighted by how rare they are among the candidate sentences) plus its
chunk's relevance; the best one leads and its neighbours or other strong sentences
follow.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..chunking import split_sentences
from ..citations import Answer, make_citation
from ..models import Citation, RetrievedChunk, Span
from ..text import content_stems


@dataclass(frozen=True, slots=True)
class Candidate:
    hit: int  # position in the qualifying list
    position: int  # sentence number within its chunk
    start: int  # offsets into the chunk text
    end: int
    text: str
    score: float


def _candidates(question: str, hits: Sequence[RetrievedChunk]) -> list[Candidate]:
    wanted = content_stems(question)
    raw: list[tuple[int, int, int, int, str, set[str]]] = []
    for h, hit in enumerate(hits):
        for p, (s, e) in enumerate(split_sentences(hit.chunk.text)):
            sentence = hit.chunk.text[s:e]
            raw.append((h, p, s, e, sentence, content_stems(sentence) & wanted))
    df = {w: sum(1 for r in raw if w in r[5]) for w in wanted}
    weight = {w: math.log(1 + len(raw) / (1 + df[w])) for w in wanted}
    total = sum(weight.values()) or 1.0
    out = []
    for h, p, s, e, sentence, found in raw:
        coverage = sum(weight[w] for w in found) / total
        short = 0.15 if len(sentence.split()) < 5 else 0.0
        score = coverage + 0.5 * hits[h].score - 0.03 * h - short
        out.append(Candidate(h, p, s, e, sentence, score))
    return out


def _select(candidates: list[Candidate], limit: int) -> list[Candidate]:
    if not candidates:
        return []
    ranked = sorted(candidates, key=lambda c: -c.score)
    best = ranked[0]
    chosen = [best]
    for c in ranked[1:]:
        if len(chosen) == limit:
            break
        if c.score >= 0.8 * best.score:
            chosen.append(c)
    for c in candidates:  # context: the sentence after the best one, then the one before
        if len(chosen) == limit:
            break
        if c.hit == best.hit and c.position == best.position + 1 and c not in chosen:
            chosen.append(c)
    return chosen


def extract(question: str, hits: Sequence[RetrievedChunk], max_sentences: int = 3) -> Answer:
    """Quote up to ``max_sentences`` sentences; number citations in order of first use."""
    chosen = _select(_candidates(question, hits), max_sentences)
    hit_order: list[int] = []
    for c in sorted(chosen, key=lambda c: -c.score):
        if c.hit not in hit_order:
            hit_order.append(c.hit)
    chosen.sort(key=lambda c: (hit_order.index(c.hit), c.position))
    number = {h: n for n, h in enumerate(hit_order, start=1)}
    rest = [h for h in range(len(hits)) if h not in number]
    number.update({h: n for n, h in enumerate(rest, start=len(hit_order) + 1)})
    citations: list[Citation] = sorted(
        (make_citation(number[h], hit) for h, hit in enumerate(hits)), key=lambda c: c.index
    )
    parts: list[str] = []
    spans: list[Span] = []
    cursor = 0
    for c in chosen:
        if parts:
            cursor += 1  # the joining space
        chunk = hits[c.hit].chunk
        spans.append(
            Span(cursor, cursor + len(c.text), number[c.hit],
                 chunk.char_start + c.start, chunk.char_start + c.end)
        )  # fmt: skip
        piece = f"{c.text} [{number[c.hit]}]"
        parts.append(piece)
        cursor += len(piece)
    return Answer(
        " ".join(parts), tuple(citations), tuple(number[h] for h in hit_order), tuple(spans)
    )
