"""What retrieval puts before the reader: a table of contents, which names every section
and says nothing of any, goes after the passages that say it. Real ingest, real store."""

from __future__ import annotations

import pytest

import footnoted.retrieval as retrieval_module
from conftest import shared
from footnoted import Footnoted
from footnoted.lexical import contents_listing
from footnoted.retrieval import RERANK_DEPTH

SBOM_CONTENTS = (
    "3.5 Method of SBOM Document delivery 14\n\n3.5.1 Verification and reference material 14"
    "\n\n3.5.2 Rationale 14\n\n3.6 SBOM Document Scope 14\n\n3.6.1 Verification and reference"
    " material 15"
)
INDEX_10K = (
    "PART I Page\n\nItem 1. | Business | 1\n\nItem 1A. | Risk Factors | 6\n\nItem 1B. | "
    "Unresolved Staff Comments | 17\n\nItem 2. | Properties | 18"
)
DOTTED = "Contents\nIntroduction ........ 7\nPreface ....... ix\nScope ......... 9\nTerms ..... 10"


def test_a_table_of_contents_is_told_from_text_tables_and_lists() -> None:
    assert contents_listing(SBOM_CONTENTS)
    assert contents_listing(INDEX_10K)  # a filing's index, extracted as a table
    assert contents_listing(DOTTED)  # dot leaders, a roman page among them
    # a table of amounts: its numbers are not pages
    assert not contents_listing("Asia | $4,484 | $2,792\n\nEurope | 1,010 | 961\n\nTotal | 17 | 12")
    assert not contents_listing("Headcount | 142 | 140\n\nOffices | 12 | 11\n\nCountries | 9 | 9")
    # formulas, a list with numbers, a section going back: not a table of contents
    assert not contents_listing("Precision = 0\n\nPrecision = 1\n\nRecall = 1 if all is cited")
    assert not contents_listing("Install Python 3\n\nRun make 2\n\nOpen port 8080")
    assert not contents_listing("Scope 14\n\nTerms 9\n\nRationale 3\n\nReferences 2")
    assert not contents_listing("3.5 Method of SBOM Document delivery 14")  # one line


def test_a_table_of_contents_is_not_read_before_the_sections_it_lists(
    service: Footnoted, monkeypatch: pytest.MonkeyPatch
) -> None:
    guide = shared("docs-more", "openchain__Cross-Industry-SBOM-Quality-Guide.docx")
    report = service.ingest([guide])
    assert not report.failed, report.failed
    question = "Which elements does the CISA 2025 Minimum Elements list as required?"
    retrieval = service.retrieve(question)
    # its lines name the question's words, but the passages read are the guide's own text
    assert not any(contents_listing(h.chunk.text) for h in retrieval.hits)
    head = [contents_listing(h.chunk.text) for h in retrieval.candidates[:RERANK_DEPTH]]
    assert any(head) and head == sorted(head)  # listed, after every passage
    result = service.answer(question)
    quoted = result.answer.text if result.answer is not None else ""
    assert "Required Elements 29" not in quoted and "Version 2.1.0 29" not in quoted
    # taken for text, the table of contents is read before the sections
    monkeypatch.setattr(retrieval_module, "contents_listing", lambda text: False)
    unsorted = service.retrieve(question)
    assert any(contents_listing(h.chunk.text) for h in unsorted.hits)
