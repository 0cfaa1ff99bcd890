"""Calibrate the shipped reader: its threshold, its confidence map, its stated scores.

    export FOOTNOTED_READER_THRESHOLD=-1000   # answer whatever passes the cosine rule
    footnoted eval squad ../shared/data/squad2/dev-16-articles.json --json cal/squad.json
    footnoted eval offtopic --kb ../shared/data/squad2/dev-16-articles.json \
        --questions ../shared/data/offtopic/nq-open-dev.jsonl --json cal/offtopic.json
    unset FOOTNOTED_READER_THRESHOLD
    .venv/bin/python scripts/calibrate_reader.py cal/squad.json cal/offtopic.json \
        --squad ../shared/data/squad2/dev-16-articles.json

The eval records hold each question's best reader score (``answer_score``; none when the
cosine rule refused first) and, for answerable questions, whether the answer cited the
gold passage. A threshold answers exactly the questions scoring at or above it, so one
run gives the whole trade-off curve, printed here. The confidence is a logistic
regression of "answered with a citation hit" on the score, with both outcomes weighted
equally: the chance that an answer is right when right and wrong answers are equally
common a priori (SQuAD 2.0 dev is half unanswerable, by design). The threshold chosen is
the lowest on a 0.25 grid that refuses at least ``OFFTOPIC`` of the off-topic questions
(questions the documents do not hold are refused as the specification asks) and where
the confidence is at least ``MIN_CONFIDENCE`` (no answer is given whose chance of being
right is below 30%); every answerable question the reader can answer above that line is
answered.
The reader's own SQuAD 2.0 scores (gold paragraph, official EM/F1) are then measured on
the whole dev file and, at fp32 and at bf16, on its first article: the fixed slice that
tests/test_reader.py checks at its run's precision.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression

from footnoted.evaluation.datasets import read_squad
from footnoted.evaluation.reader_eval import score_reader
from footnoted.reader import CONFIG, get_reader
from footnoted.settings import Settings

SLICE_ARTICLES = 1
OFFTOPIC = 0.98
MIN_CONFIDENCE = 0.3  # no answer whose calibrated chance of being right is lower


def groups(
    squad: dict[str, Any], offtopic: dict[str, Any]
) -> dict[str, list[tuple[float | None, bool]]]:
    """(score, good answer) per question: answerable (good = citation hit),
    unanswerable and off-topic (never good)."""
    items = squad["items"]
    return {
        "answerable": [(i["answer_score"], bool(i.get("hit"))) for i in items if i["answerable"]],
        "unanswerable": [(i["answer_score"], False) for i in items if not i["answerable"]],
        "offtopic": [(i["answer_score"], False) for i in offtopic["items"]],
    }


def answered(rows: list[tuple[float | None, bool]], t: float) -> np.ndarray:
    return np.array([s is not None and s >= t for s, _ in rows])


def curve(g: dict[str, list[tuple[float | None, bool]]], t: float) -> dict[str, float]:
    a = answered(g["answerable"], t)
    good = np.array([ok for _, ok in g["answerable"]])
    return {
        "threshold": t,
        "answered": float(a.mean()),
        "hit": float((a & good).mean()),
        "unanswerable_refused": float(1 - answered(g["unanswerable"], t).mean()),
        "offtopic_refused": float(1 - answered(g["offtopic"], t).mean()),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("squad_json", type=Path)
    parser.add_argument("offtopic_json", type=Path)
    parser.add_argument("--squad", type=Path, required=True, help="SQuAD 2.0 dev JSON")
    args = parser.parse_args()
    g = groups(json.loads(args.squad_json.read_text()), json.loads(args.offtopic_json.read_text()))
    seen = [s for rows_ in g.values() for s, _ in rows_ if s is not None]
    grid = np.arange(np.floor(min(seen)), np.ceil(max(seen)) + 0.01, 0.25)
    rows = [curve(g, round(float(t), 2)) for t in grid]

    scored = [(s, ok) for rows_ in g.values() for s, ok in rows_ if s is not None]
    x = np.array([[s] for s, _ in scored])
    y = np.array([ok for _, ok in scored])
    fit = LogisticRegression(class_weight="balanced").fit(x, y)
    slope, intercept = float(fit.coef_[0][0]), float(fit.intercept_[0])
    floor = (np.log(MIN_CONFIDENCE / (1 - MIN_CONFIDENCE)) - intercept) / slope
    best = next(r for r in rows if r["offtopic_refused"] >= OFFTOPIC and r["threshold"] >= floor)
    print("threshold answered hit unanswerable_refused offtopic_refused")
    for r in rows:
        mark = " <" if r is best else ""
        print(f"{r['threshold']:6.2f} {r['answered']:.3f} {r['hit']:.3f} "
              f"{r['unanswerable_refused']:.3f} {r['offtopic_refused']:.3f}{mark}")  # fmt: skip
    config = json.loads(CONFIG.read_text())
    config["calibration"] = {
        "threshold": round(best["threshold"], 4),
        "slope": round(slope, 6),
        "intercept": round(intercept, 6),
        "rule": (
            f"the lowest threshold refusing at least {OFFTOPIC:.0%} of off-topic questions "
            f"whose calibrated confidence is at least {MIN_CONFIDENCE}"
        ),
        "at_threshold": {k: round(v, 4) for k, v in best.items()},
    }
    CONFIG.write_text(json.dumps(config, indent=2) + "\n")
    questions = [q for a in read_squad(args.squad) for q in a.questions]
    first = [q for a in read_squad(args.squad, SLICE_ARTICLES) for q in a.questions]
    t = best["threshold"]
    scores: dict[str, Any] = {"dev": {}, "slice": {}}
    scores["dev"] = asdict(score_reader(get_reader(Settings().embedding_precision), questions, t))
    for precision in ("fp32", "bf16"):  # the test checks the slice at its run's precision
        scores["slice"][precision] = asdict(score_reader(get_reader(precision), first, t))
    config["scores"] = scores
    print(json.dumps(scores, indent=2))
    CONFIG.write_text(json.dumps(config, indent=2) + "\n")


if __name__ == "__main__":
    main()
