"""How far an answer can be trusted, as measured: its confidence and its label.

The reader's score says whether a passage answers a question the way SQuAD's passages
do; on reports, papers, manuals and tables a passage it believes is often the wrong row,
the wrong year or a heading. An answer's ``confidence`` is therefore a logistic fit, on
the tuning half of the real-document questions (``footnoted eval docs``,
``scripts/calibrate_trust.py``), of "the answer holds the right fact" over what the
answer itself shows (:data:`FEATURES`):

- ``score``: the reader's best evidence score over the passages read, less the threshold
  an answer needs (each runtime's scores have their own: ``reader.calibration``);
- ``margin``: how far it is ahead of the next passage's (the passages agree on a lead);
- ``overlap``: the share of the question's content words that the answer, the section
  its first source is under and that source's title hold;
- ``row``: the answer is a table row under its header;
- ``numeric``: the question asks for a number.

``grounding.label`` says how the answer is shown, the same in every client:
``grounded`` from the confidence at which answers were right at least 97% of the time on
that half, ``partly`` from 0.5, ``weak`` below; an LLM answer with a sentence its
sources do not support is never ``grounded``. The fit and its thresholds ship in
``data/trust.json``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from ..lexical import CELLS, MARKER, bag
from ..models import Grounding
from .citations import Answer
from .evidence import Read

FILE = Path(__file__).resolve().parent.parent / "data" / "trust.json"
FEATURES = ("score", "margin", "overlap", "row", "numeric")
Label = Literal["grounded", "partly", "weak"]
_NUMERIC = re.compile(
    r"\bhow (?:many|much|long|old|often)\b|\bpercent|%|\b(?:19|20)\d\d\b|\bwhat (?:was|is|were|are)"
    r"\b.*\b(?:revenue|loss|income|rate|total|number|amount|price|ratio|cost|share|margin|fee)"
)


def features(question: str, read: Sequence[Read], answer: Answer, threshold: float) -> list[float]:
    """The answer's features, in :data:`FEATURES` order."""
    best: dict[str, float] = {}
    for r in read:
        cid = r.hit.chunk.id
        best[cid] = max(best.get(cid, r.score), r.score)
    scores = sorted(best.values(), reverse=True) or [0.0]
    margin = scores[0] - (scores[1] if len(scores) > 1 else 0.0)
    lead = next((c for c in answer.citations if c.index in answer.referenced), None)
    shown = [MARKER.sub(" ", answer.text)]
    if lead is not None:
        shown += [lead.section or "", lead.document_title]
    terms = bag(question)
    overlap = len(terms & bag(" ".join(shown))) / len(terms) if terms else 0.0
    row = float(CELLS in answer.text)
    numeric = float(bool(_NUMERIC.search(question.lower())))
    return [scores[0] - threshold, margin, overlap, row, numeric]


@dataclass(frozen=True, slots=True)
class Trust:
    weights: tuple[float, ...]
    bias: float
    grounded_at: float  # the confidence from which an answer is shown as grounded
    partly_at: float = 0.5

    @classmethod
    def load(cls, path: Path = FILE) -> Trust:
        data = json.loads(path.read_text(encoding="utf-8"))
        if tuple(data["features"]) != FEATURES:
            raise ValueError(f"{path} was fitted on {data['features']}, not {FEATURES}")
        return cls(tuple(data["weights"]), data["bias"], data["grounded_at"], data["partly_at"])

    def confidence(self, values: Sequence[float]) -> float:
        z = self.bias + sum(w * x for w, x in zip(self.weights, values, strict=True))
        return round(1 / (1 + math.exp(-max(min(z, 50.0), -50.0))), 4)

    def label(self, confidence: float, supported: bool = True) -> Label:
        if confidence >= self.grounded_at and supported:
            return "grounded"
        return "partly" if confidence >= self.partly_at else "weak"

    def assess(
        self, question: str, read: Sequence[Read], answer: Answer, threshold: float
    ) -> Grounding:
        """``answer``'s grounding with its ``confidence`` and ``label`` (and the reader's
        ``answer_score``), beside what the support check counted."""
        grounding: Grounding = dict(answer.grounding or {})
        confidence = self.confidence(features(question, read, answer, threshold))
        supported = not grounding.get("unsupported")
        grounding["answer_score"] = round(max((r.score for r in read), default=0.0), 4)
        grounding["confidence"] = confidence
        grounding["label"] = self.label(confidence, supported)
        return grounding


@cache
def shipped() -> Trust:
    return Trust.load()
