"""The answer's trust: its features, the shipped fit, and the label every client shows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from footnoted.answering.citations import Answer
from footnoted.answering.evidence import Read
from footnoted.answering.trust import FEATURES, FILE, Trust, features, shipped
from footnoted.inference.reader import Calibration, Reading
from footnoted.models import Chunk, Citation, RetrievedChunk

CAL = Calibration(threshold=5.0, slope=0.5, intercept=-2.0, cosine_weight=0.0)


def read(text: str, score: float, cid: str = "c1", section: str | None = None) -> Read:
    chunk = Chunk(cid, "d1", 0, text, 0, len(text), None, section)
    hit = RetrievedChunk(chunk, "Lyft Annual Report", None, 0.6)
    return Read.of(hit, Reading(score, 0, len(text)), CAL, 0.6)


def answer(text: str, r: Read) -> Answer:
    c = r.hit.chunk
    cite = Citation(1, c.id, c.document_id, r.hit.document_title, 0, None, c.section, None,
                    text, c.text, c.char_start, c.char_end, r.hit.score)  # fmt: skip
    return Answer(f"{text} [1]", (cite,), (1,), ())


def test_features_read_what_the_answer_shows() -> None:
    lead = read("Revenue was $3,208 million in 2021.", 12.0, section="Results of Operations")
    other = read("Riders took 70 million rides.", 7.0, cid="c2")
    shown = answer("Revenue was $3,208 million in 2021.", lead)
    score, margin, overlap, row, numeric = features(
        "What was Lyft's revenue in 2021?", [lead, other], shown, threshold=5.0
    )
    assert (score, margin, row, numeric) == (7.0, 5.0, 0.0, 1.0)
    assert overlap == 1.0  # lyft (the title), revenue and 2021 are all shown
    table = answer("| Year | 2021 |\n| --- | --- |\n| Revenue | 3,208 |", lead)
    assert features("Revenue?", [lead], table, 5.0)[3] == 1.0


def test_the_shipped_fit_is_monotone_in_evidence_and_labels_by_its_thresholds() -> None:
    trust = shipped()
    data = json.loads(FILE.read_text())
    assert tuple(data["features"]) == FEATURES and 0.5 <= trust.grounded_at <= 1.0
    weak = trust.confidence([-5.0, 0.0, 0.0, 0.0, 0.0])
    strong = trust.confidence([15.0, 10.0, 1.0, 0.0, 0.0])
    assert weak < strong
    assert trust.label(trust.grounded_at) == "grounded"
    assert trust.label(trust.grounded_at, supported=False) == "partly"
    assert trust.label(0.49) == "weak" and trust.label(0.5) in ("partly", "grounded")


def test_assess_sets_the_label_and_keeps_the_support_counts() -> None:
    lead = read("Data is kept for 60 days after an account is closed.", 20.0)
    shown = answer("Data is kept for 60 days after an account is closed.", lead)
    counted = {"cited_sentences": 1, "supported": 0, "unsupported": 1, "added": 0}
    checked = Answer(shown.text, shown.citations, shown.referenced, (), dict(counted))
    trust = Trust((0.0,) * len(FEATURES), 10.0, 0.9)  # confident whatever it reads
    assert trust.assess("How long is data kept?", [lead], shown, 5.0)["label"] == "grounded"
    grounding = trust.assess("How long is data kept?", [lead], checked, 5.0)
    assert grounding["label"] == "partly" and grounding["unsupported"] == 1
    assert grounding["answer_score"] == 20.0 and grounding["confidence"] == 1.0


def test_a_fit_on_other_features_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "trust.json"
    path.write_text(json.dumps({"features": ["score"], "weights": [1.0], "bias": 0.0,
                                "grounded_at": 0.9, "partly_at": 0.5}))  # fmt: skip
    with pytest.raises(ValueError, match="was fitted on"):
        Trust.load(path)
