"""``footnoted eval docs`` on a slice of the real documents: the question set reads as it
should, and each measure counts what it says (real ingest, real model, real answers)."""

from __future__ import annotations

import json
import re
import statistics
from email.message import EmailMessage
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import ROOT, SHARED_DATA
from footnoted.cli.main import app
from footnoted.errors import InvalidInput
from footnoted.evaluation.realdocs import (
    KINDS,
    documents_base,
    fold,
    holds,
    read_questions,
    run_docs,
)

QUESTIONS = ROOT / "tests" / "data" / "real-documents.jsonl"
HANDBOOK = "docs-more/18f-handbook__leave.md"
pytestmark = pytest.mark.skipif(
    not (SHARED_DATA / HANDBOOK).exists(), reason=f"shared data not found under {SHARED_DATA}"
)


def test_the_question_set_is_as_the_issue_asks() -> None:
    """At least 250 questions over every folder and format, 60 of them on-topic
    unanswerable, split once into two halves that both hold every kind."""
    questions = read_questions(QUESTIONS)
    assert len(questions) >= 250 and len({q.id for q in questions}) == len(questions)
    assert sum(not q.answerable for q in questions) >= 60
    assert {q.doc.split("/")[0] for q in questions} == {"pdfs", "pdfs-more", "html", "docs-more"}
    assert {"pdf", "html", "docx", "pptx", "xlsx", "md", "csv", "mbox"} <= {
        q.format for q in questions
    }
    for split in ("tune", "report"):
        half = [q for q in questions if q.split == split]
        assert {q.kind for q in half} == set(KINDS) and len(half) >= 150
    for q in questions:
        assert (SHARED_DATA / q.doc).exists(), q.doc
        assert q.answerable == (q.kind != "unanswerable")


@pytest.mark.parametrize(
    ("number", "name", "files", "size", "unanswerable"),
    [
        ("1", "real-documents-unseen.jsonl", 6, 48, 10),
        ("2", "real-documents-unseen-2.jsonl", 6, 50, 14),
        ("3", "real-documents-unseen-3.jsonl", 6, 50, 14),
        ("4", "real-documents-unseen-4.jsonl", 6, 50, 14),
        ("5", "real-documents-unseen-5.jsonl", 6, 50, 14),
        ("6", "real-documents-unseen-6.jsonl", 6, 50, 14),
        ("7", "real-documents-unseen-7.jsonl", 6, 50, 14),
        ("8", "real-documents-unseen-8.jsonl", 6, 50, 14),
        ("9", "real-documents-unseen-9.jsonl", 6, 50, 14),
        ("10", "real-documents-unseen-10.jsonl", 5, 50, 14),
        ("11", "real-documents-unseen-11.jsonl", 6, 50, 14),
        ("12", "real-documents-unseen-12.jsonl", 6, 50, 14),
        ("13", "real-documents-unseen-13.jsonl", 5, 50, 14),
        ("14", "real-documents-unseen-14.jsonl", 8, 50, 14),
        ("15", "real-documents-unseen-15.jsonl", 7, 50, 14),
    ],
)
def test_a_never_seen_set_asks_of_the_documents_its_script_fetches(
    number: str, name: str, files: int, size: int, unanswerable: int
) -> None:
    """Every question of a never-seen set is about one of the files that
    scripts/unseen-documents fetches for that set, frozen in the reporting split."""
    script = (ROOT / "scripts" / "unseen-documents").read_text()
    listed = re.findall(
        r"^(\d+) (\S+) \S+ usr/\S+ [0-9a-f]{64}(?:,[0-9a-f]{64})*$", script, re.MULTILINE
    )
    fetched = {doc for n, doc in listed if n == number}
    assert len(fetched) == files
    questions = read_questions(ROOT / "tests" / "data" / name)
    assert {q.doc for q in questions} == fetched
    assert {q.split for q in questions} == {"report"} and {q.kind for q in questions} == set(KINDS)
    assert sum(not q.answerable for q in questions) == unanswerable and len(questions) == size
    for q in questions:  # a place for each answer: a PDF's pages or a deck's slides, else a section
        assert not q.answerable or bool(q.pages) == q.doc.endswith((".pdf", ".pptx")), q.id


def test_a_gold_answer_is_found_however_the_text_is_written() -> None:
    assert holds("For 2021 it was $ (1,009,359) in thousands", ["(1,009,359)"])
    assert holds("“Use or lose” means the number of\nannual leave hours", ["'use or lose' means"])
    assert holds("hal\ufffelucination rates", ["hallucination"])
    assert not holds("1,009,358", ["1,009,359"])
    # a gold answer written like a citation marker is compared as written
    assert holds("zoom parameter now limited to [10, 400] and updated. [1]", ["[10, 400]"])
    assert not holds("zoom parameter now limited. [1]", ["[10, 400]"])
    assert not holds("Released in 2020. [7]", ["7"])  # a citation marker holds no number
    assert fold("A – B") == "a - b"


def test_a_bad_line_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "q.jsonl"
    bad.write_text(QUESTIONS.read_text().splitlines()[0] + '\n{"id": "x", "question": "?"}\n')
    with pytest.raises(InvalidInput, match=r"q.jsonl:2"):
        read_questions(bad)


def test_a_slice_is_measured(tmp_path: Path) -> None:
    """The handbook's questions over a knowledge base of the handbook and a Word guide:
    the counts add up, every question has its record, and the questions on a document
    that is not there count as not found."""
    data = tmp_path / "data"
    (data / "docs-more").mkdir(parents=True)
    for name in ("18f-handbook__leave.md", "openchain__Cross-Industry-SBOM-Quality-Guide.docx"):
        (data / "docs-more" / name).symlink_to(SHARED_DATA / "docs-more" / name)
    lines = [json.loads(line) for line in QUESTIONS.read_text().splitlines()]
    chosen = [r for r in lines if r["doc"] == HANDBOOK]
    chosen += [r for r in lines if r["doc"].endswith(".pptx")][:2]  # not in this knowledge base
    questions = tmp_path / "q.jsonl"
    questions.write_text("".join(json.dumps(r) + "\n" for r in chosen))
    result = run_docs(questions, data)
    t = result.overall
    assert result.questions == len(chosen) == len(result.items) and result.errors == 0
    assert t.answerable + t.unanswerable == len(chosen)
    assert result.missing == [chosen[-1]["doc"]]
    on_handbook = [i for i in result.items if i["doc"] == HANDBOOK and i["gold"]]
    assert sum(i["found"] for i in on_handbook) >= len(on_handbook) // 2  # Markdown reads well
    for item in result.items:
        assert not (item["right_fact"] and item["refused"])
        assert item["wrong_grounded"] <= item["grounded"]
        if item["doc"].endswith(".pptx"):
            assert not item["found"] and not item["right_fact"]
        for passage in item["read"]:  # each passage read with its evidence and reader scores
            assert isinstance(passage["score"], float) and isinstance(passage["reader"], float)
    assert any(item["read"] for item in result.items)
    assert set(result.breakdowns()) == {"kind", "format", "split"}
    assert result.breakdowns()["format"]["md"]["n"] == len(chosen) - 2
    # the answers' length, markers aside, beside the right fact a longer answer holds more
    lengths = [i["length"] for i in result.items if not i["refused"]]
    assert lengths and all(n > 0 for n in lengths)
    for item in result.items:
        if not item["refused"]:
            assert item["length"] == len(re.sub(r"\[\d+\]", "", item["answer"]).strip())
    assert t.median_length == round(statistics.median(lengths))
    on_md = [i["length"] for i in result.items if i["format"] == "md" and not i["refused"]]
    assert result.breakdowns()["format"]["md"]["chars"] == round(statistics.median(on_md))


def test_the_command_prints_every_breakdown_and_writes_json(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "docs-more").mkdir(parents=True)
    (data / "docs-more" / "leave.md").symlink_to(SHARED_DATA / HANDBOOK)
    lines = [json.loads(line) for line in QUESTIONS.read_text().splitlines()]
    chosen = [{**r, "doc": "docs-more/leave.md"} for r in lines if r["doc"] == HANDBOOK][:4]
    questions = tmp_path / "q.jsonl"
    questions.write_text("".join(json.dumps(r) + "\n" for r in chosen))
    out = tmp_path / "docs.json"
    result = CliRunner().invoke(
        app, ["eval", "docs", str(questions), "--data", str(data), "--json", str(out)]
    )
    assert result.exit_code == 0, result.output
    for title in ("footnoted eval docs", "per kind", "per format", "per split", "chars"):
        assert title in result.output
    assert "answers' median length:" in result.output
    written = json.loads(out.read_text())
    assert written["eval"] == "docs" and len(written["items"]) == 4


def test_an_attachment_read_as_a_document_is_in_its_messages_file(tmp_path: Path) -> None:
    """A question about a message's attached PDF asks of the message's file: the PDF,
    stored as a document of its own, is counted as in that file."""
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = "ada@example.org", "team@example.org", "Deck"
    m["Date"] = "Tue, 03 Mar 2026 09:15:00 +0000"
    m.set_content("The deck is attached.")
    pdf = SHARED_DATA / "pdfs" / "haystack__sample_pdf_1.pdf"
    m.add_attachment(pdf.read_bytes(), maintype="application", subtype="pdf", filename="d.pdf")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "deck.eml").write_bytes(m.as_bytes())
    with documents_base(tmp_path / "data", tmp_path / "home", None) as (kb, doc_of):
        assert kb.documents == 2 and sorted(doc_of.values()) == ["deck.eml", "deck.eml"]
