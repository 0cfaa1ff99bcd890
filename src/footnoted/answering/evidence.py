"""Evidence: is there enough in the documents to answer, and what may be quoted?

Two rules, in order:
- the specification's: the best cosine similarity below ``threshold`` refuses (0.35
  passes, 0.34 refuses); an empty collection refuses with its own message;
- the question's: an answer the reader would give is refused when the leading passage
  (its text, section path, table header and document title) lacks a year or a name the
  question asks about (``asked``: Uber's revenue asked of Lyft's report);
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
NOT_FOUND = "I couldn't find the answer to that in the documents"
TRY = "Try other words, or name the document or section it would be in."
REFUSAL_MESSAGE = f"{NOT_FOUND}. {TRY}"
_WHY = {
    "below_threshold": "nothing in them comes close to this question",
    "no_answer": "passages about it were found, but none of them answers the question",
}
SUGGESTIONS = ("Rephrase your question",)


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
    named: bool = False  # read at a table row the question names (``tables``): believed
    defines: bool = False  # read at the definition of the term asked (``definitions``): believed
    posed: bool = False  # read at the answer after the document's own question: believed
    labelled: bool = False  # read at a label the question names (or the examples it asks for)

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


def message(evidence: Evidence, contact: str | None = None) -> str:
    """A refusal in people's words: what was looked for and not found, and what to try
    (no scores: those are in the evidence). ``contact``: whom an admin said to ask."""
    if evidence.reason == "empty":
        return EMPTY_MESSAGE
    if evidence.missing:
        said = (
            f"{NOT_FOUND}: the passages closest to it don't mention "
            f"{_listed(evidence.missing)}. Check the names and years in the question, or ask "
            "about what the documents cover."
        )
    else:
        why = _WHY.get(evidence.reason)
        said = f"{NOT_FOUND}: {why}. {TRY}" if why else REFUSAL_MESSAGE
    return f"{said} If it should be there, ask {contact}." if contact else said


def suggestions(contact: str | None = None) -> tuple[str, ...]:
    return (*SUGGESTIONS, f"Ask {contact}") if contact else SUGGESTIONS


def _listed(names: Sequence[str]) -> str:
    quoted = [f"“{n}”" for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def believed(read: Sequence[Read], calibration: Calibration) -> bool:
    """Whether the reader believes a passage of ``read`` (not empty): one scores at its
    threshold, or the lead was read where a rule found the answer (a table row the
    question names, the term's definition, the document's own question, a label the
    question names over what it introduces, the examples it asks for)."""
    lead = read[0]
    return (
        max(r.score for r in read) >= calibration.threshold
        or lead.named
        or lead.defines
        or lead.posed
        or lead.labelled
    )


def judge(
    retrieval: Retrieval,
    threshold: float,
    read: Sequence[Read],
    calibration: Calibration,
    sides: int = 0,
    missing: Sequence[str] = (),
    answers: bool = True,
) -> Evidence:
    """Why to answer or refuse, by the best evidence score in ``read`` (empty: nothing
    was read), or with ``sides``, a comparison's first ``sides`` passages; ``missing``:
    the years and names the question asks about that the leading passage lacks
    (``asked``), which refuse an answer the reader would give; ``answers``: whether the
    leading quote is an answer at all (``pipeline.Pipeline._answers``)."""
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
        reason = "ok" if believed(read, calibration) and answers else "no_answer"
    lacking = tuple(missing) if reason == "ok" and missing else ()
    return Evidence(
        round(best, 4), threshold, "unnamed" if lacking else reason, round(top, 4),
        round(calibration.confidence(top), 4), lacking,
    )  # fmt: skip
