"""Values asked of a table: the row the question names, under its header, with the named
cell marked; an empty cell is not an answer. Real ingest, real reader, real store."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from conftest import shared, write
from footnoted import Footnoted
from footnoted.answering.citations import Answer, exact_cell
from footnoted.lexical import CELLS
from footnoted.models import Citation, Span


def exact(answer: Answer) -> str | None:
    span = next((s for s in answer.spans if s.exact_start is not None), None)
    return None if span is None else answer.text[span.exact_start : span.exact_end]


@pytest.fixture
def prices(service: Footnoted, tmp_path: Path) -> Footnoted:
    rows = ["Symbol,Name,Sector,Price,Price/Earnings,52 Week Low,52 Week High,Market Cap"]
    filler = [f"X{i},Filler Company {i},Industrials,{10 + i},{12 + i % 7},{5 + i},{20 + i},{i}000"
              for i in range(300)]  # fmt: skip
    rows += filler[:150]
    rows += ["TSLA,Tesla Inc,Consumer Discretionary,310.35,,236.34,498.83,51916000000",
             "F,Ford Motor Company,Autos,14.41,,11.11,17.78,57461256192"]  # fmt: skip
    rows += filler[150:]
    report = service.ingest([write(tmp_path / "docs" / "prices.csv", "\n".join(rows) + "\n")])
    assert not report.failed, report.failed
    return service


def test_a_row_far_below_its_header_is_answered_under_it(prices: Footnoted) -> None:
    result = prices.answer("Tesla 52-week high?")
    assert result.answer is not None, result.refusal
    text = result.answer.text
    assert text.startswith("| Symbol | Name | Sector |")  # the header, printed 150 rows up
    assert "| TSLA | Tesla Inc |" in text and "Filler" not in text
    assert exact(result.answer) == "498.83"
    [span] = [s for s in result.answer.spans if s.exact_start is not None]
    source = prices.store.document_text(result.answer.citations[0].document_id)
    assert source[span.exact_doc_start : span.exact_doc_end] == "498.83"
    label = (result.answer.grounding or {}).get("label")
    assert label in ("grounded", "partly", "weak")


def test_an_empty_cell_is_not_an_answer(prices: Footnoted) -> None:
    result = prices.answer("What is Ford Motor Company's price/earnings ratio?")
    assert result.refused, result.answer
    assert prices.answer("What is Ford Motor Company's 52 week low?").answer is not None


def test_a_question_naming_no_row_is_left_to_the_reader(prices: Footnoted) -> None:
    result = prices.answer("Why do companies pay dividends?")
    answered = result.answer.text if result.answer is not None else ""
    assert CELLS not in answered


def test_a_year_column_of_a_real_annual_report(service: Footnoted) -> None:
    report = service.ingest([shared("docs-more", "financebench__BOEING_2022_10K.pdf")])
    assert not report.failed, report.failed
    result = service.answer("What was the net loss attributable to Boeing shareholders in 2021?")
    assert result.answer is not None, result.refusal
    assert "Net loss attributable to Boeing Shareholders" in result.answer.text
    assert "| 2022 | 2021 |" in result.answer.text
    assert exact(result.answer) == "($4,202)"


def test_a_sheet_cell_is_named_as_the_sheet_names_it() -> None:
    row = " | ".join(f"v{i}" for i in range(1, 30))  # 29 cells: A … AC
    text = f"{row}\n\n{row}"
    second = len(row) + 2
    citation = Citation(
        index=1, chunk_id="c", document_id="d", document_title="Sheet", chunk_index=0,
        page=None, section="Data", url=None, excerpt="", text=text, char_start=100,
        char_end=100 + len(text), score=0.5, rows=((100, 7), (100 + second, 9)),
    )  # fmt: skip
    for cell, name in (("v1", "A9"), ("v26", "Z9"), ("v28", "AB9")):
        at = 100 + second + text[second:].index(f"{cell} ")
        span = Span(0, 2, 1, at, at + 2, exact_doc_start=at, exact_doc_end=at + 2)
        assert exact_cell(citation, span) == name
    assert exact_cell(citation, replace(span, exact_doc_start=None)) is None
