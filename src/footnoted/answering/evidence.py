"""Evidence: is there enough in the documents to answer, and what may be quoted?

Two rules, in order:
- the specification's: the best cosine similarity below ``threshold`` refuses (0.35
  passes, 0.34 refuses); an empty collection refuses with its own message;
- the reader's: above it, a question is answered only when some retrieved passage's
  evidence score (the reader's span score plus a calibrated weight times the passage's
  cosine; ``reader.Calibration``) is at or above the shipped calibrated threshold.
  Topical similarity alone never answers: even a passage at cosine 1.0 needs a reader
  score of at least the threshold less the weight. A comparison of documents the
  question names by title (``named.comparison_sides``) is answered by quoting each of
  them, whatever the reader makes of it; its score, and so its confidence, is its
  weakest side's.

``judge`` decides whether to answer; what an answer quotes is the answerer's choice
(``extractive.choose``; in ``llm`` mode the model reads the passages read).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..inference.reader import Calibration, Reading
from ..models import Evidence, RetrievedChunk
from ..retrieval import Retrieval

EMPTY_MESSAGE = "The knowledge base is empty. Please contact an admin."
REFUSAL_MESSAGE = (
    "I don't have enough information to answer that question. "
    "You might try contacting support or rephrasing your question."
)
SUGGESTIONS = ("Contact support", "Rephrase your question")


@dataclass(frozen=True, slots=True)
class Read:
    """A retrieved passage with what the reader found in it, and its evidence score
    (``Calibration.evidence`` of the reading's score and the passage's cosine to the
    question: the hit's own score, or for a follow-up asked in context its cosine to
    ``conversation.topic``)."""

    hit: RetrievedChunk
    reading: Reading
    score: float
    link: Link | None = None  # what it was read after: the first hop of a two-hop answer

    @classmethod
    def of(
        cls,
        hit: RetrievedChunk,
        reading: Reading,
        calibration: Calibration,
        cosine: float,
        link: Link | None = None,
    ) -> Read:
        return cls(hit, reading, calibration.evidence(reading.score, cosine), link)


@dataclass(frozen=True, slots=True)
class Link:
    """The sentence of another passage read that a passage was read after (the reader
    read the passage with the question and this sentence): offsets in that passage's
    text."""

    read: Read
    start: int
    end: int


def passes(score: float, threshold: float) -> bool:
    """``score >= threshold`` with both rounded to 6 places, so 0.35 passes at 0.35."""
    return round(score, 6) >= round(threshold, 6)


def message(evidence: Evidence) -> str:
    return EMPTY_MESSAGE if evidence.reason == "empty" else REFUSAL_MESSAGE


def judge(
    retrieval: Retrieval,
    threshold: float,
    read: Sequence[Read],
    calibration: Calibration,
    sides: int = 0,
) -> Evidence:
    """Why to answer or refuse, by the best evidence score in ``read`` (empty: nothing
    was read), or with ``sides``, a comparison's first ``sides`` passages."""
    if retrieval.total_chunks == 0:
        return Evidence(None, threshold, "empty")
    best = retrieval.max_score
    if best is None or not passes(best, threshold):
        return Evidence(best, threshold, "below_threshold")
    if not read:
        return Evidence(round(best, 4), threshold, "no_answer")
    if sides:
        top = min(r.score for r in read[:sides])
        reason = "ok"
    else:
        top = max(r.score for r in read)
        reason = "ok" if top >= calibration.threshold else "no_answer"
    return Evidence(
        round(best, 4), threshold, reason, round(top, 4), round(calibration.confidence(top), 4)
    )
