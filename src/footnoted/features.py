"""Answerability features and the small calibrated model that reads them.

A best cosine above the threshold is not enough: an on-topic question about something
the documents never mention (an off-topic question that shares a few words with them)
still lands near some chunk. These features ask how much of the question the retrieved
text actually covers, and how close its best sentences come to it (their in-context
vectors' cosines). They come from the question and the retrieval candidates alone,
a few milliseconds per question.

The model is a logistic regression (answerable vs. not), fitted by
``scripts/fit_evidence.py`` and shipped as ``data/evidence_model.json``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from .models import RetrievedChunk
from .sentences import QuestionTerms, bag, chunk_bag, chunk_sentences

FEATURES = (
    "cos1",
    "best_sentence_cover",
    "candidates_cover",
    "absent_share",
    "top_chunk_cover",
    "top_chunk_cos",
    "terms",
    "sentence_cos1",
    "sentence_cos2",
)


def features(question: str, candidates: Sequence[RetrievedChunk]) -> dict[str, float]:
    """The feature vector; ``candidates`` are the reranked retrieval candidates."""
    if not candidates:
        return dict.fromkeys(FEATURES, 0.0)
    terms = QuestionTerms(question, candidates)
    bags = [chunk_bag(h.chunk.text) | bag(h.document_title) for h in candidates]
    union = frozenset().union(*bags)
    top5 = candidates[:5]
    covers = [terms.best_sentence_cover(h) for h in top5]
    best = max(range(len(top5)), key=lambda i: covers[i])
    n = max(1, len(terms.terms))
    sentence_cos = sorted(
        (h.sentence_score(p) for h in top5 for p in range(len(chunk_sentences(h.chunk.text)))),
        reverse=True,
    )
    return {
        "cos1": max(h.score for h in candidates),
        "best_sentence_cover": covers[best],
        "candidates_cover": terms.weight(union & terms.terms),
        "absent_share": sum(1 for t in terms.terms if t not in union) / n,
        "top_chunk_cover": terms.weight(bags[best] & terms.terms),
        "top_chunk_cos": top5[best].score,
        "terms": float(len(terms.terms)),
        "sentence_cos1": sentence_cos[0] if sentence_cos else 0.0,
        "sentence_cos2": sentence_cos[1] if len(sentence_cos) > 1 else 0.0,
    }


@dataclass(frozen=True, slots=True)
class AnswerabilityModel:
    weights: tuple[float, ...]
    intercept: float
    cutoff: float  # refuse below this probability of being answerable

    def probability(self, values: dict[str, float]) -> float:
        z = self.intercept + sum(w * values[f] for w, f in zip(self.weights, FEATURES, strict=True))
        return 1.0 / (1.0 + math.exp(-z))


@cache
def model() -> AnswerabilityModel:
    data = json.loads(resources.files("footnoted").joinpath("data/evidence_model.json").read_text())
    if tuple(data["features"]) != FEATURES:
        raise RuntimeError("data/evidence_model.json was fitted on other features; refit it")
    return AnswerabilityModel(tuple(data["weights"]), data["intercept"], data["cutoff"])
