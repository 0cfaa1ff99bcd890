"""Calibrate the shipped reader: its threshold, its confidence map, its stated scores.

    export FOOTNOTED_READER_THRESHOLD=-1000   # answer whatever passes the cosine rule
    footnoted eval squad ../shared/data/squad2/dev-16-articles.json --json cal/squad.json
    footnoted eval offtopic --kb ../shared/data/squad2/dev-16-articles.json \
        --questions ../shared/data/offtopic/nq-open-dev.jsonl --json cal/offtopic.json
    unset FOOTNOTED_READER_THRESHOLD
    .venv/bin/python scripts/calibrate_reader.py cal/squad.json cal/offtopic.json \
        --squad ../shared/data/squad2/dev-16-articles.json

The eval records hold, for each question, every passage the reader read (``read``: its
reader score and cosine, in retrieval order; empty when the cosine rule refused first)
and, for answerable questions, whether each passage is a citation hit. A passage's
evidence score is its reader score plus a weight times its cosine (``Calibration``); for
each weight in ``WEIGHTS`` a question's best evidence score decides it (a threshold
answers exactly the questions scoring at or above it, so one run gives every weight's
whole trade-off curve) and its leading passage, ranked as the pipeline ranks, decides
whether the answer is a citation hit. The confidence is a logistic regression of
"answered with a citation hit" on the evidence score, with both outcomes weighted
equally: the chance that an answer is right when right and wrong answers are equally
common a priori (SQuAD 2.0 dev is half unanswerable, by design). At each weight the
threshold is the lowest on a 0.25 grid that refuses at least ``OFFTOPIC`` of the
off-topic questions (questions the documents do not hold are refused as the
specification asks) and where the confidence is at least ``MIN_CONFIDENCE`` (no answer
is given whose chance of being right is below 30%); the weight shipped is the one whose
threshold is right most often on SQuAD 2.0 dev: answerable questions answered with a
citation hit plus unanswerable questions refused, each as a share of its half (a wrong
answer costs as much as a missed one; the smallest weight on a tie). Its curve is
printed.
Each runtime's scores get their own calibration (``reader.calibrated_as``): the evals and
this script run with the reader ``FOOTNOTED_READER_RUNTIME`` picks (``auto``: int8 where
the CPU multiplies int8 natively; ``float`` for bf16 and fp32), and only that
runtime's entry of ``calibration`` is written.
The reader's own SQuAD 2.0 scores (gold paragraph, official EM/F1, the span score
alone) are then measured on the whole dev file and, at fp32 and at bf16, on its first
article with each runtime (int8 in ONNX Runtime, fp32, bf16 in PyTorch): the fixed
slice that tests/test_reader.py checks with its run's runtime.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression

from footnoted.evaluation.datasets import read_squad
from footnoted.evaluation.reader_eval import score_reader
from footnoted.inference.reader import CONFIG, Reader, calibrated_as, get_reader
from footnoted.settings import Settings

SLICE_ARTICLES = 1
OFFTOPIC = 0.98
MIN_CONFIDENCE = 0.3  # no answer whose calibrated chance of being right is lower


WEIGHTS = [w / 2 for w in range(0, 81, 5)]  # cosine weights tried: 0, 2.5, ... 40
Outcome = tuple[float | None, bool]  # best evidence score (None: nothing read), cited right


def outcome(read: list[list[Any]], weight: float) -> Outcome:
    """A question's best evidence score and whether its leading passage is a hit."""
    if not read:
        return None, False
    scores = [p[0] + weight * p[1] for p in read]
    lead = max(range(len(read)), key=lambda i: scores[i])  # the first on a tie
    return max(scores), bool(read[lead][2]) if len(read[lead]) > 2 else False


def groups(
    squad: dict[str, Any], offtopic: dict[str, Any], weight: float
) -> dict[str, list[Outcome]]:
    """Per question: answerable (good = a citation hit), unanswerable and off-topic
    (never good)."""
    items = squad["items"]
    never = [(outcome(i["read"], weight)[0], False) for i in items if not i["answerable"]]
    return {
        "answerable": [outcome(i["read"], weight) for i in items if i["answerable"]],
        "unanswerable": never,
        "offtopic": [(outcome(i["read"], weight)[0], False) for i in offtopic["items"]],
    }


def answered(rows: list[Outcome], t: float) -> np.ndarray:
    return np.array([s is not None and s >= t for s, _ in rows])


def curve(g: dict[str, list[Outcome]], t: float) -> dict[str, float]:
    a = answered(g["answerable"], t)
    good = np.array([ok for _, ok in g["answerable"]])
    return {
        "threshold": t,
        "answered": float(a.mean()),
        "hit": float((a & good).mean()),
        "unanswerable_refused": float(1 - answered(g["unanswerable"], t).mean()),
        "offtopic_refused": float(1 - answered(g["offtopic"], t).mean()),
    }


@dataclass(frozen=True)
class Fit:
    weight: float
    slope: float
    intercept: float
    rows: list[dict[str, float]]
    best: dict[str, float]


def right(row: dict[str, float]) -> float:
    """How often a threshold is right on SQuAD 2.0 dev, each half weighted equally."""
    return row["hit"] + row["unanswerable_refused"]


def fit(g: dict[str, list[Outcome]], weight: float) -> Fit:
    """The confidence map and the rule's threshold at one weight."""
    seen = [s for rows_ in g.values() for s, _ in rows_ if s is not None]
    grid = np.arange(np.floor(min(seen)), np.ceil(max(seen)) + 0.01, 0.25)
    rows = [curve(g, round(float(t), 2)) for t in grid]
    scored = [(s, ok) for rows_ in g.values() for s, ok in rows_ if s is not None]
    x = np.array([[s] for s, _ in scored])
    y = np.array([ok for _, ok in scored])
    model = LogisticRegression(class_weight="balanced").fit(x, y)
    slope, intercept = float(model.coef_[0][0]), float(model.intercept_[0])
    floor = (np.log(MIN_CONFIDENCE / (1 - MIN_CONFIDENCE)) - intercept) / slope
    best = next(r for r in rows if r["offtopic_refused"] >= OFFTOPIC and r["threshold"] >= floor)
    return Fit(weight, slope, intercept, rows, best)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("squad_json", type=Path)
    parser.add_argument("offtopic_json", type=Path)
    parser.add_argument("--squad", type=Path, required=True, help="SQuAD 2.0 dev JSON")
    args = parser.parse_args()
    squad = json.loads(args.squad_json.read_text())
    offtopic = json.loads(args.offtopic_json.read_text())
    fits = [fit(groups(squad, offtopic, w), w) for w in WEIGHTS]
    print("weight threshold answered hit unanswerable_refused offtopic_refused")
    for f in fits:
        b = f.best
        print(f"{f.weight:6.1f} {b['threshold']:9.2f} {b['answered']:.3f} {b['hit']:.3f} "
              f"{b['unanswerable_refused']:.3f} {b['offtopic_refused']:.3f}")  # fmt: skip
    chosen = max(fits, key=lambda f: (round(right(f.best), 6), -f.weight))
    print(f"\ncosine weight {chosen.weight}:")
    print("threshold answered hit unanswerable_refused offtopic_refused")
    for r in chosen.rows:
        mark = " <" if r is chosen.best else ""
        print(f"{r['threshold']:6.2f} {r['answered']:.3f} {r['hit']:.3f} "
              f"{r['unanswerable_refused']:.3f} {r['offtopic_refused']:.3f}{mark}")  # fmt: skip
    best = chosen.best
    s = Settings()  # the reader that read the evals: its runtime's calibration is written
    reader = get_reader(s.embedding_precision, s.model_cache, s.reader_runtime)
    config = json.loads(CONFIG.read_text())
    config["calibration"]["rule"] = (
        f"the lowest threshold refusing at least {OFFTOPIC:.0%} of off-topic questions "
        f"whose calibrated confidence is at least {MIN_CONFIDENCE}, at the cosine weight "
        "(0 to 40, steps of 2.5) where answerable questions answered with a citation "
        "hit plus unanswerable questions refused, each a share of its half, is highest"
    )
    config["calibration"][calibrated_as(reader.runtime)] = {
        "threshold": round(best["threshold"], 4),
        "slope": round(chosen.slope, 6),
        "intercept": round(chosen.intercept, 6),
        "cosine_weight": chosen.weight,
        "at_threshold": {k: round(v, 4) for k, v in best.items()},
    }
    CONFIG.write_text(json.dumps(config, indent=2) + "\n")
    questions = [q for a in read_squad(args.squad) for q in a.questions]
    first = [q for a in read_squad(args.squad, SLICE_ARTICLES) for q in a.questions]
    scores: dict[str, Any] = {"dev": {}, "slice": {}}
    scores["dev"] = {"runtime": reader.runtime, **asdict(score_reader(reader, questions))}
    cache = s.model_cache
    for precision, int8 in (("fp32", True), ("fp32", False), ("bf16", False)):
        reader = Reader(precision, cache, int8=int8)  # the test checks its run's runtime
        scores["slice"][reader.runtime] = asdict(score_reader(reader, first))
    config["scores"] = scores
    print(json.dumps(scores, indent=2))
    CONFIG.write_text(json.dumps(config, indent=2) + "\n")


if __name__ == "__main__":
    main()
