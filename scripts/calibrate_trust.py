"""Fit the shipped trust (``answering/trust.py``) on the real-document tuning half.

    .venv/bin/python scripts/calibrate_trust.py ../shared/data \
        --questions tests/data/real-documents.jsonl --home /tmp/evalhome

Every question of the real-document set is asked over the real documents (as
``footnoted eval docs`` asks it: the same knowledge base, ``--home`` keeps it between
runs). Each answer that is not refused gives the features ``trust.features`` reads and
whether it holds the right fact (an answer to an unanswerable question never does). A
logistic regression of "right" on the features is fitted on the ``tune`` half only;
``grounded_at`` is the lowest confidence from which at least ``PRECISION`` of the tune
half's answers are right, with at least ``MIN_GROUNDED`` answers at or above it. The
curve (confidence threshold: answers at or above it, right among them) is printed for
both halves; the ``report`` half is never fitted on: its line is the evidence. The fit
is written to ``src/footnoted/data/trust.json`` (``--out``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sklearn.linear_model import LogisticRegression

from footnoted.answering.trust import FEATURES, Trust, features
from footnoted.evaluation.realdocs import documents_base, holds, read_questions
from footnoted.evaluation.runners import _ask

PRECISION = 0.97
MIN_GROUNDED = 10
OUT = Path(__file__).resolve().parent.parent / "src" / "footnoted" / "data" / "trust.json"
Row = tuple[str, list[float], bool]  # split, features, right


def collect(root: Path, questions: Path, home: Path | None) -> list[Row]:
    rows: list[Row] = []
    qs = read_questions(questions)
    with documents_base(root, home, None) as (kb, _):
        threshold = kb.fn.pipeline.reader.calibration(kb.fn.settings.reader_threshold).threshold
        kb.prime([q.question for q in qs])
        for i, q in enumerate(qs, 1):
            result = _ask(kb, q.question)
            if result is None or result.refused or result.answer is None:
                continue
            answer = result.answer
            right = q.answerable and holds(answer.text, q.answers)
            rows.append((q.split, features(q.question, result.read, answer, threshold), right))
            print(f"\r{i}/{len(qs)}", end="", file=sys.stderr)
    print(file=sys.stderr)
    return rows


def grounded_at(scored: list[tuple[float, bool]]) -> float:
    """The lowest confidence from which the answers at or above it are right at least
    :data:`PRECISION` of the time, with at least :data:`MIN_GROUNDED` of them."""
    best = 1.0
    for t in sorted({c for c, _ in scored}, reverse=True):
        above = [r for c, r in scored if c >= t]
        if len(above) >= MIN_GROUNDED and sum(above) / len(above) >= PRECISION:
            best = t
    return best


def curve(name: str, scored: list[tuple[float, bool]], at: float) -> None:
    right = sum(r for _, r in scored)
    print(f"{name}: {len(scored)} answered, {right} right ({right / max(len(scored), 1):.1%})")
    for t in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, at):
        above = [r for c, r in scored if c >= t]
        share = sum(above) / len(above) if above else float("nan")
        mark = "  <- grounded_at" if t == at else ""
        print(f"  >= {t:.3f}: {len(above):4d} answers, {sum(above):4d} right ({share:.1%}){mark}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path, help="the shared data folder")
    parser.add_argument("--questions", type=Path, default=Path("tests/data/real-documents.jsonl"))
    parser.add_argument("--home", type=Path, default=None, help="keep the knowledge base here")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    rows = collect(args.data, args.questions, args.home)
    tune = [(x, y) for split, x, y in rows if split == "tune"]
    model = LogisticRegression(C=1.0, max_iter=1000)
    model.fit([x for x, _ in tune], [y for _, y in tune])
    weights = tuple(round(float(w), 4) for w in model.coef_[0])
    fitted = Trust(weights, round(float(model.intercept_[0]), 4), 1.0)
    scored = {
        split: [(fitted.confidence(x), y) for s, x, y in rows if s == split]
        for split in ("tune", "report")
    }
    at = grounded_at(scored["tune"])
    for split, values in scored.items():
        curve(split, values, at)
    print("weights:", dict(zip(FEATURES, weights, strict=True)), "bias:", fitted.bias)
    data = {
        "features": list(FEATURES),
        "weights": list(weights),
        "bias": fitted.bias,
        "grounded_at": at,
        "partly_at": 0.5,
    }
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
