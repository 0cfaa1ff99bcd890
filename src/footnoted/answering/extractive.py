"""Extractive answering (the default, no LLM): quote the sentences that hold the answer.

The answer leads with the sentence that holds the reader's best span (a span crossing a
sentence boundary quotes both sentences), and marks that span as the exact answer. A
further passage adds its own sentence (the one holding its best span) only with evidence
of its own: the reader believes it on its own (a score of at least ``SECOND_SCORE``), or
it comes from another document that the question or the leading passage names by its
title, the bridge of a two-hop question ("Who directed the film that ..."; the pipeline
reads such documents' chunks from the first ``BRIDGE_DEPTH`` candidates too). Nothing
else pads the answer.
Every quote is verbatim and followed by its ``[N]``. The sources are the quoted chunks,
then the other passages with enough evidence (``evidence``; listed, not referenced):
never a passage that only resembles the question.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import groupby

from ..citations import Answer, make_citation, pin_pages
from ..lexical import chunk_sentences
from ..models import RetrievedChunk, Span
from .evidence import Read

MAX_QUOTES = 3
SECOND_SCORE = 8.0  # reader score a passage after the first needs to be quoted on its own
# (SQuAD dev: quoted sentences from the gold paragraph 86.5% at 4.0)
MIN_TITLE = 4  # shorter titles are too ambiguous to count as named
BRIDGE_DEPTH = 20  # candidates searched for a document the question or the lead names
MAX_BRIDGES = 2  # of them, read at most this many


def bridge_candidates(
    question: str, lead: Read, candidates: Sequence[RetrievedChunk], read: set[str]
) -> list[RetrievedChunk]:
    """Unread candidates from other documents that the question or the leading passage
    names by title: a two-hop question's second passage, often ranked low."""
    pool = [
        c
        for c in candidates[:BRIDGE_DEPTH]
        if c.chunk.id not in read and c.chunk.document_id != lead.hit.chunk.document_id
    ]
    titles = [c.document_title for c in pool]
    picked = sorted(named(titles, lead.hit.chunk.text) | named(titles, question))
    return [pool[i] for i in picked[:MAX_BRIDGES]]


@dataclass(frozen=True, slots=True)
class Quote:
    read: Read
    start: int  # offsets into the chunk text
    end: int


def quote(read: Read) -> Quote:
    """The sentences of the passage that the reader's span touches, as one quote."""
    text = read.hit.chunk.text
    span = read.reading
    touched = [(s, e) for s, e, _ in chunk_sentences(text) if s < span.end and e > span.start]
    if not touched:  # the span sits outside every sentence (a heading line)
        return Quote(read, span.start, span.end)
    return Quote(read, touched[0][0], touched[-1][1])


def choose(question: str, read: Sequence[Read]) -> list[Quote]:
    """The best passage's quote, then quotes of other chunks with evidence of their own
    (see the module); none repeats text already quoted."""
    if not read:
        return []
    first = quote(read[0])
    lead_doc = read[0].hit.chunk.document_id
    titles = [r.hit.document_title for r in read]
    bridges = named(titles, read[0].hit.chunk.text) | named(titles, question)
    quotes = [first]
    for i, r in enumerate(read[1:], start=1):
        if len(quotes) == MAX_QUOTES:
            break
        bridge = i in bridges and r.hit.chunk.document_id != lead_doc
        if r.reading.score < SECOND_SCORE and not bridge:
            continue
        q = quote(r)
        text = r.hit.chunk.text[q.start : q.end]
        quoted = [c.read.hit.chunk.text[c.start : c.end] for c in quotes]
        if all(text not in c and c not in text for c in quoted):
            quotes.append(q)
    return quotes


def _title_key(title: str) -> str:
    return title.split(" (")[0].strip().lower()


@lru_cache(maxsize=4096)
def _title_pattern(key: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(key)}(?!\w)")  # keys may end in "'" or ")"


def named(titles: Sequence[str], text: str) -> set[int]:
    """Indices of the ``titles`` that ``text`` names.

    A title counts only where no longer title is named around it: "These Boots Are Made
    for Walkin'" names that song, not "Boots (EP)" too. A capitalised title counts only
    where the text capitalises it: "science fantasy series" does not name the magazine
    "Science Fantasy"."""
    lower = text.lower()
    aligned = len(lower) == len(text)  # lower-casing kept every position
    spans: dict[str, list[tuple[int, int]]] = {}  # title key -> where the text names it
    found: list[tuple[int, int, int]] = []  # start, end, title index
    for i, title in enumerate(titles):
        key = _title_key(title)
        if len(key) < MIN_TITLE or key not in lower:
            continue
        if key not in spans:
            capital = aligned and title[:1].isupper()
            spans[key] = [
                m.span()
                for m in _title_pattern(key).finditer(lower)
                if not (capital and text[m.start()].islower())
            ]
        found += [(start, end, i) for start, end in spans[key]]
    # by start, longest first: a span lies inside a longer one exactly when an earlier,
    # different span reaches as far as it does
    found.sort(key=lambda f: (f[0], -f[1]))
    out: set[int] = set()
    reach = -1
    for (_, end), group in groupby(found, key=lambda f: (f[0], f[1])):
        if reach < end:
            out.update(i for _, _, i in group)
        reach = max(reach, end)
    return out


def extract(
    question: str,
    read: Sequence[Read],
    threshold: float,
    grounding: dict[str, float] | None = None,
) -> Answer:
    """The answer quoting ``read`` (every passage read, best first; the first believed)."""
    quotes = choose(question, read)
    order: list[str] = []  # chunk ids in order of first quote
    for q in quotes:
        if q.read.hit.chunk.id not in order:
            order.append(q.read.hit.chunk.id)
    quoted = len(order)
    for r in read:  # then the other passages with enough evidence, listed unreferenced
        if r.hit.chunk.id not in order and r.score >= threshold:
            order.append(r.hit.chunk.id)
    number = {cid: n for n, cid in enumerate(order, start=1)}
    hits = {r.hit.chunk.id: r.hit for r in read}
    citations = tuple(make_citation(number[cid], hits[cid]) for cid in order)
    parts: list[str] = []
    spans: list[Span] = []
    cursor = 0
    for i, q in enumerate(quotes):
        if parts:
            cursor += 1  # the joining space
        chunk = q.read.hit.chunk
        text = chunk.text[q.start : q.end]
        index = number[chunk.id]
        base = chunk.char_start
        span = Span(cursor, cursor + len(text), index, base + q.start, base + q.end)
        if i == 0:  # the leading quote holds the exact answer
            start = min(max(q.read.reading.start, q.start), q.end)
            end = max(min(q.read.reading.end, q.end), start)
            shift = cursor - q.start
            span = replace(span, exact_start=shift + start, exact_end=shift + end,
                           exact_doc_start=base + start, exact_doc_end=base + end)  # fmt: skip
        spans.append(span)
        piece = f"{text} [{index}]"
        parts.append(piece)
        cursor += len(piece)
    referenced = tuple(range(1, quoted + 1))
    return pin_pages(Answer(" ".join(parts), citations, referenced, tuple(spans), grounding))
