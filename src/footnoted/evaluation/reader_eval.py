"""The reader on its own: SQuAD 2.0's official scores over question + gold paragraph.

Each question is read against its own paragraph; the prediction is the best span when
its logits beat the no-answer logits (a span score of at least 0: the reader's own
decision, without the cosine the pipeline weighs in; ``reader.Calibration``), else
"no answer". An answerable question scores EM and
F1 against its gold answers (0 when the reader says "no answer"); an unanswerable one
scores 1 exactly when the reader says "no answer" (SQuAD 2.0's definition).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..inference.reader import Reader
from . import metrics as m
from .datasets import SquadQuestion


@dataclass(frozen=True, slots=True)
class ReaderScores:
    questions: int
    answerable: int
    exact_match: float  # all questions, SQuAD 2.0's EM
    f1: float
    has_answer_f1: float  # answerable questions only
    no_answer_accuracy: float  # unanswerable questions said "no answer"


def score_reader(reader: Reader, questions: Sequence[SquadQuestion]) -> ReaderScores:
    em: list[float] = []
    f1: list[float] = []
    has: list[float] = []
    none: list[float] = []
    for q in questions:
        (reading,) = reader.read(q.question, [q.paragraph])
        said = q.paragraph[reading.start : reading.end] if reading.score >= 0 else ""
        if q.is_impossible:
            right = float(said == "")
            em.append(right)
            f1.append(right)
            none.append(right)
        else:
            em.append(m.exact_match(said, q.answers) if said else 0.0)
            f1.append(m.f1(said, q.answers) if said else 0.0)
            has.append(f1[-1])
    n = len(questions)
    return ReaderScores(
        n,
        len(has),
        sum(em) / n if n else 0.0,
        sum(f1) / n if n else 0.0,
        sum(has) / len(has) if has else 0.0,
        sum(none) / len(none) if none else 0.0,
    )
