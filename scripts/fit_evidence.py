"""Refit the answerability model shipped as src/footnoted/data/evidence_model.json.

    .venv/bin/python scripts/fit_evidence.py ../shared/data/squad2/dev-16-articles.json \
        ../shared/data/offtopic/nq-open-dev.jsonl

Positives: answerable SQuAD questions; negatives: NQ-open questions whose answers appear
nowhere in the SQuAD articles. Every question goes through the normal ingest and
retrieval path. The model is a logistic regression over ``footnoted.features.FEATURES``,
checked by 5-fold cross-validation grouped by article (so no article is in both the
training and the test fold). The cut-off keeps 99% of the answerable questions that pass
the cosine rule, measured on the held-out folds.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

from footnoted.evaluation import metrics
from footnoted.evaluation.datasets import read_nq_open, read_squad
from footnoted.evaluation.runners import knowledge_base, squad_documents
from footnoted.features import FEATURES, features

OUT = Path(__file__).resolve().parents[1] / "src" / "footnoted" / "data" / "evidence_model.json"
KEEP = 0.99


def collect(squad: Path, nq: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    articles = read_squad(squad)
    text = metrics.kb_text(a.text for a in articles)
    rows: list[tuple[str, int, str]] = [
        (q.question, 1, a.title) for a in articles for q in a.questions if not q.is_impossible
    ]
    off = [q for q in read_nq_open(nq) if not metrics.answer_in_text(q.answers, text)]
    rows += [(q.question, 0, f"nq{i % 5}") for i, q in enumerate(off)]
    with knowledge_base(squad_documents(articles), None) as kb:
        kb.prime([r[0] for r in rows])
        fn = kb.fn
        feats, cos = [], []
        for question, _, _ in rows:
            retrieval = fn.retriever.retrieve(
                question, fn.settings.collection, fn.settings.top_k, kb.vectors[question]
            )
            values = features(question, retrieval.candidates)
            feats.append([values[f] for f in FEATURES])
            cos.append(retrieval.max_score or 0.0)
        threshold = fn.settings.evidence_threshold
    x = np.array(feats)
    y = np.array([r[1] for r in rows])
    groups = np.array([r[2] for r in rows])
    passes = np.array(cos) >= threshold
    return x, y, groups, passes


def main(squad: Path, nq: Path) -> None:
    x, y, groups, passes = collect(squad, nq)
    held_out = np.zeros(len(y))
    for train, test in GroupKFold(5).split(x, y, groups):
        fold = LogisticRegression(max_iter=2000).fit(x[train], y[train])
        held_out[test] = fold.predict_proba(x[test])[:, 1]
    positives = np.sort(held_out[(y == 1) & passes])
    cutoff = float(positives[int((1 - KEEP) * len(positives))])
    answered = float(((held_out >= cutoff) & passes)[y == 1].mean())
    refused = float(1 - ((held_out >= cutoff) & passes)[y == 0].mean())
    final = LogisticRegression(max_iter=2000).fit(x, y)
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(
        json.dumps(
            {
                "features": list(FEATURES),
                "weights": [round(float(w), 6) for w in final.coef_[0]],
                "intercept": round(float(final.intercept_[0]), 6),
                "cutoff": round(cutoff, 6),
                "cross_validation": {
                    "folds": 5,
                    "answerable_answered": round(answered, 4),
                    "offtopic_refused": round(refused, 4),
                    "positives": int(y.sum()),
                    "negatives": int(len(y) - y.sum()),
                },
                "data": [squad.name, nq.name],
            },
            indent=2,
        )
        + "\n"
    )
    print(
        f"cutoff {cutoff:.4f}; held-out: answered {answered:.3f}, off-topic refused {refused:.3f}"
    )
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
