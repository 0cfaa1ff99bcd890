"""Evidence check: is there enough in the documents to answer?

The rule that always holds: the best cosine similarity below ``threshold`` refuses
(0.35 passes, 0.34 refuses). An empty collection refuses with its own message. Above
the threshold, a small calibrated model (``features.py``) also refuses questions whose
terms the retrieved text does not cover: on-topic-sounding questions about things the
documents never mention. So does a number in the question (a year, a count) that no
retrieved chunk or title holds: the passages are about something else.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .features import features, model
from .models import Evidence, RetrievedChunk
from .retrieval import Retrieval

EMPTY_MESSAGE = "The knowledge base is empty. Please contact an admin."
REFUSAL_MESSAGE = (
    "I don't have enough information to answer that question. "
    "You might try contacting support or rephrasing your question."
)
SUGGESTIONS = ("Contact support", "Rephrase your question")
# Once the best chunk passes the threshold, the other top chunks within this margin
# below it may be quoted too: an answer often spans the best passage and its neighbours
# (SQuAD dev: citation hit +3.5 points over quoting only chunks above the threshold).
QUALIFY_MARGIN = 0.2


@dataclass(frozen=True, slots=True)
class Verdict:
    evidence: Evidence
    qualifying: tuple[RetrievedChunk, ...]

    @property
    def ok(self) -> bool:
        return self.evidence.reason == "ok"

    @property
    def message(self) -> str:
        return EMPTY_MESSAGE if self.evidence.reason == "empty" else REFUSAL_MESSAGE


# a number standing alone: "1755", "10,000", "3.5"; not "1600s", "1950's" or "15th"
_NUMBER = re.compile(r"(?<!\w)\d+(?:[,.]\d+)*(?!\w|['’]s\b)")


@lru_cache(maxsize=4096)
def numbers(text: str) -> frozenset[str]:
    """The numbers standing alone in a text, thousands separators dropped (cached: the
    same chunks come back for many questions)."""
    return frozenset(n.replace(",", "") for n in _NUMBER.findall(text))


def missing_number(question: str, candidates: Sequence[RetrievedChunk]) -> bool:
    """True when the question holds a number that no candidate's text or title holds."""
    wanted = numbers(question)
    if not wanted:
        return False
    found: set[str] = set()
    for hit in candidates:
        found |= numbers(hit.chunk.text) | numbers(hit.document_title)
    return not wanted <= found


def passes(score: float, threshold: float) -> bool:
    """``score >= threshold`` with both rounded to 6 places, so 0.35 passes at 0.35."""
    return round(score, 6) >= round(threshold, 6)


def check(
    question: str, retrieval: Retrieval, threshold: float, answerability: bool = True
) -> Verdict:
    if retrieval.total_chunks == 0:
        return Verdict(Evidence(None, threshold, "empty"), ())
    best = retrieval.max_score
    if best is None or not passes(best, threshold):
        return Verdict(Evidence(best, threshold, "below_threshold"), ())
    if answerability:
        values = features(question, retrieval.candidates)
        answerable = model().probability(values)
        if answerable < model().cutoff or missing_number(question, retrieval.candidates):
            evidence = Evidence(round(best, 4), threshold, "not_covered", values, answerable)
            return Verdict(evidence, ())
    floor = max(0.0, threshold - QUALIFY_MARGIN)
    qualifying = tuple(h for h in retrieval.hits if passes(h.score, floor))
    if not qualifying:  # the best cosine sits among candidates beyond top_k
        qualifying = (max(retrieval.candidates, key=lambda h: h.score),)
    return Verdict(Evidence(round(best, 4), threshold), qualifying)
