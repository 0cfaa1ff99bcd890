"""Extractive answering (the default, no LLM): quote the sentences that answer.

At most ``max_sentences`` sentences are quoted verbatim from the qualifying chunks,
each followed by its ``[N]``. A sentence scores by the question's content words it
covers (weighted by how rare they are among the retrieved chunks) and its chunk's
relevance; the best one, also scored by its own cosine to the question (its in-context
vector, made with its chunk's), leads, then the sentences that add most to it: from
other chunks, or the one right after it, which often holds the answer the best one
leads up to. No sentence is quoted twice, though overlapping chunks repeat some. A
sentence that cannot hold the kind of answer the question asks for (a date for "when",
a number for "how many", a name for "who") scores lower.

A question may need two documents ("Who directed the film that ...?"): the sentences
after the first may also come from the next-best retrieval candidates (or any candidate
whose title the question or a hit names), preferring another document, above all one
the question or the leading passage names by its title, and most of all one the leading
sentence itself names: the bridge to the second hop.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from itertools import groupby

from ..answer_types import AnswerType, can_answer, expected_type
from ..citations import Answer, make_citation
from ..models import Citation, RetrievedChunk, Span
from ..sentences import QuestionTerms, Sentence

SHORT_WORDS = 5
TYPE_MISMATCH = 0.2  # the sentence holds no date / number / name the question asks for
EXTRA_DEPTH = 20  # candidates that may supply the sentences after the first
OTHER_DOCUMENT = 0.05  # bonus: a document not yet quoted
LINKED = 0.3  # bonus: a document the question or the leading passage names by its title
# (twice over when the leading sentence itself names it)
NEXT_SENTENCE = 0.1  # handicap of the best sentence's successor against other chunks' sentences
MIN_TITLE = 4  # shorter titles are too ambiguous to count as named
SENTENCE_COSINE = 1.0  # weight of the leading sentence's own cosine to the question


class _Scorer:
    def __init__(
        self, question: str, terms: QuestionTerms, hits: Sequence[RetrievedChunk], leads: int
    ) -> None:
        self.question = question
        self.terms = terms
        self.hits = hits  # the first ``leads`` are the qualifying hits, then candidates
        self.leads = leads
        self.kind: AnswerType | None = expected_type(question)
        self.named: set[int] = set()  # hits the question or the leading passage names
        # the leading sentence scores by its own cosine where any hit has sentence
        # vectors (hits stored without them stand in their chunk's cosine)
        self.sentence_weight = SENTENCE_COSINE if any(h.sentence_scores for h in hits) else 0.0

    def base(self, s: Sentence) -> float:
        text = self.hits[s.hit].chunk.text[s.start : s.end]
        short = 0.15 if len(text.split()) < SHORT_WORDS else 0.0
        mismatch = (
            TYPE_MISMATCH
            if self.kind is not None and not can_answer(self.kind, text, self.question)
            else 0.0
        )
        # a named document from deep in the candidates ranks like the last hit
        rank = min(s.hit, self.leads) if s.hit in self.named else s.hit
        relevance = 0.5 * self.hits[s.hit].score - 0.03 * rank
        return self.terms.weight(s.terms) + relevance - short - mismatch

    def lead(self, s: Sentence) -> float:
        """How well ``s`` would lead the answer: ``base`` plus its own cosine to the question.

        Only the leading sentence gains by its cosine. The sentences after it add what it
        leaves out, and a second hop's passage is about another thing than the question
        (HotpotQA dev both-cited fell from 83% to 62% when they gained by it too)."""
        return self.base(s) + self.sentence_weight * self.hits[s.hit].sentence_score(s.position)


def _title_key(title: str) -> str:
    return title.split(" (")[0].strip().lower()


@lru_cache(maxsize=4096)
def _title_pattern(key: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(key)}(?!\w)")  # keys may end in "'" or ")"


def _named(hits: Sequence[RetrievedChunk], text: str, besides: str | None = None) -> set[int]:
    """Hits (from documents other than ``besides``) whose document title ``text`` names.

    A title counts only where no longer title is named around it: "These Boots Are Made
    for Walkin'" names that song, not "Boots (EP)" too. A capitalised title counts only
    where the text capitalises it: "science fantasy series" does not name the magazine
    "Science Fantasy"."""
    lower = text.lower()
    aligned = len(lower) == len(text)  # lower-casing kept every position
    spans: dict[str, list[tuple[int, int]]] = {}  # title key -> where the text names it
    found: list[tuple[int, int, int]] = []  # start, end, hit
    for i, hit in enumerate(hits):
        key = _title_key(hit.document_title)
        if len(key) < MIN_TITLE or key not in lower:
            continue
        if key not in spans:
            capital = aligned and hit.document_title[:1].isupper()
            spans[key] = [
                m.span()
                for m in _title_pattern(key).finditer(lower)
                if not (capital and text[m.start()].islower())
            ]
        found += [(start, end, i) for start, end in spans[key]]
    # by start, longest first: a span lies inside a longer one exactly when an earlier,
    # different span reaches as far as it does
    found.sort(key=lambda f: (f[0], -f[1]))
    named: set[int] = set()
    reach = -1
    for (_, end), group in groupby(found, key=lambda f: (f[0], f[1])):
        if reach < end:
            named.update(i for _, _, i in group if hits[i].chunk.document_id != besides)
        reach = max(reach, end)
    return named


def _select(
    scorer: _Scorer, sentences: list[Sentence], limit: int, max_sources: int
) -> list[Sentence]:
    """The best sentence, then the sentences that add most to it, then context.

    The best sentence comes from the qualifying hits. After it, a sentence from
    another chunk may join when it covers at least 30% as much of the question, or
    comes from a document the question or the best one names; it is preferred for
    covering what the chosen ones leave uncovered and for adding a document (so a
    question that needs two passages cites both), as long as at most ``max_sources``
    chunks are quoted. The sentence right after the best one competes with them on the
    same score less ``NEXT_SENTENCE``: in SQuAD dev it holds the gold answer in 92 of the
    216 answers that cite the right chunk but miss the answer. Remaining room goes to the
    best sentence's neighbours, which often complete it.
    """
    first = [s for s in sentences if s.hit < scorer.leads]
    if not first:
        return []
    terms, hits = scorer.terms, scorer.hits
    best = max(first, key=scorer.lead)
    chosen = [best]
    floor = 0.3 * terms.weight(best.terms)
    lead_doc = hits[best.hit].chunk.document_id
    named = _named(hits, hits[best.hit].chunk.text, lead_doc)
    named |= _named(hits, scorer.question, lead_doc)
    scorer.named = named
    # a document the best sentence itself names is the likeliest second hop
    bridges = _named(hits, hits[best.hit].chunk.text[best.start : best.end], lead_doc)

    def gain(s: Sentence, covered: frozenset[str], documents: set[str]) -> float:
        other = OTHER_DOCUMENT if hits[s.hit].chunk.document_id not in documents else 0.0
        link = LINKED * ((s.hit in named) + (s.hit in bridges))
        return scorer.base(s) + terms.weight(s.terms - covered) + other + link

    # where each sentence sits in its document: overlapping chunks repeat sentences
    spot = {
        s: (hits[s.hit].chunk.document_id, hits[s.hit].chunk.char_start + s.start)
        for s in sentences
    }
    eligible = [s for s in sentences if terms.weight(s.terms) >= floor > 0 or s.hit in named]

    def neighbour(step: int) -> list[Sentence]:
        return [s for s in sentences if s.hit == best.hit and s.position == best.position + step]

    after = neighbour(1)

    while len(chosen) < limit and len({c.hit for c in chosen}) < max_sources:
        covered = frozenset().union(*(c.terms for c in chosen))
        used = {c.hit for c in chosen}
        quoted = {spot[c] for c in chosen}
        documents = {hits[c.hit].chunk.document_id for c in chosen}
        scored = [
            (gain(s, covered, documents), s)
            for s in eligible
            if s.hit not in used and spot[s] not in quoted
        ]
        scored += [
            (scorer.base(s) + terms.weight(s.terms - covered) - NEXT_SENTENCE, s)
            for s in after
            if spot[s] not in quoted
        ]
        if not scored:
            break
        chosen.append(max(scored, key=lambda pair: pair[0])[1])
    for step in (1, -1):  # context: the sentence after the best one, then the one before
        near = neighbour(step)
        if len(chosen) < limit and near and spot[near[0]] not in {spot[c] for c in chosen}:
            chosen.append(near[0])
    return chosen


def extract(
    question: str,
    hits: Sequence[RetrievedChunk],
    max_sentences: int = 3,
    candidates: Sequence[RetrievedChunk] = (),
    max_sources: int | None = None,
) -> Answer:
    """Quote up to ``max_sentences`` sentences; number citations in order of first use.

    The answer lists at most ``max_sources`` sources (default: as many as ``hits``): the
    quoted chunks first, then the other hits in their order.
    """
    limit = max_sources or len(hits)
    terms = QuestionTerms(question, candidates or hits)
    ids = {h.chunk.id for h in hits}
    pool = [*hits, *(c for c in candidates[:EXTRA_DEPTH] if c.chunk.id not in ids)]
    # deeper candidates only when the question or a hit names their document
    deep = [c for c in candidates[EXTRA_DEPTH:] if c.chunk.id not in ids]
    naming = " ".join([question, *(h.chunk.text for h in hits)])
    pool += [deep[i] for i in sorted(_named(deep, naming))]
    scorer = _Scorer(question, terms, pool, leads=len(hits))
    chosen = _select(scorer, terms.sentences(pool), max_sentences, limit)
    # the quoted chunks, then the other hits while there is room
    quoted = sorted({c.hit for c in chosen})
    room = max(0, limit - len(quoted))
    kept = sorted([*quoted, *[h for h in range(len(hits)) if h not in quoted][:room]])
    position = {old: new for new, old in enumerate(kept)}
    hits = [pool[i] for i in kept]
    chosen = [replace(c, hit=position[c.hit]) for c in chosen]
    hit_order: list[int] = []
    for c in chosen:
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
        text = chunk.text[c.start : c.end]
        spans.append(
            Span(cursor, cursor + len(text), number[c.hit],
                 chunk.char_start + c.start, chunk.char_start + c.end)
        )  # fmt: skip
        piece = f"{text} [{number[c.hit]}]"
        parts.append(piece)
        cursor += len(piece)
    return Answer(
        " ".join(parts), tuple(citations), tuple(number[h] for h in hit_order), tuple(spans)
    )
