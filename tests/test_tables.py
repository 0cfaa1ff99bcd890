"""Values asked of a table: the row the question names, under its header, with the named
cell marked; an empty cell is not an answer. Real ingest, real reader, real store."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import shared, write
from footnoted import Footnoted
from footnoted.answering.citations import Answer, exact_cell
from footnoted.answering.conversation import Conversation, Exchange
from footnoted.answering.evidence import Read
from footnoted.answering.question import Question
from footnoted.answering.quotes import abbreviates, asked_terms, column_named, stands_for
from footnoted.answering.tables import (
    Named,
    _column,
    captioned,
    changed_row,
    continuations,
    named_row,
    valued_row,
)
from footnoted.inference.reader import Reading
from footnoted.lexical import CELLS
from footnoted.loaders import load_bytes
from footnoted.loaders.blocks import table_headers
from footnoted.models import Chunk, Citation, RetrievedChunk, Span
from footnoted.service.sheets import rows_around
from test_loaders import SEC_TABLE
from test_sheets_and_slides import workbook


def ingest_markdown(service: Footnoted, path: Path, lines: list[str]) -> None:
    report = service.ingest([write(path, "\n".join(lines))])
    assert not report.failed, report.failed


def answered(service: Footnoted, question: str) -> str:
    """The answer's text; the test fails with the refusal when there is none."""
    result = service.answer(question)
    assert result.answer is not None, result.refusal
    return result.answer.text


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
    # the header, printed 150 rows up: a wide row shows its label, the cells the
    # question names and the one asked, each under its header cell
    assert text.startswith("| Symbol | Name | 52 Week High |\n| --- | --- | --- |\n")
    assert "| TSLA | Tesla Inc | 498.83 |" in text and "Filler" not in text
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


def test_a_last_empty_cell_of_a_sheet_is_not_an_answer(service: Footnoted, tmp_path: Path) -> None:
    """A CSV writes no cell after its row's last value: a release not yet out has none
    under "release". "released" names the column "release" (one stem), and the row
    keeps its empty cells under their columns, so the undated release is refused."""
    rows = ["version,codename,created,release,eol"]
    rows += [f"{n},Name{n},20{n:02d}-01-01,20{n + 2:02d}-06-10,20{n + 5:02d}-06-30"
             for n in range(1, 12)]  # fmt: skip
    rows += ["12,Bookworm,2021-08-14,2023-06-10,2026-07-11", "14,Forky,2025-08-09"]
    sheet = write(tmp_path / "docs" / "debian-releases.csv", "\n".join(rows) + "\n")
    report = service.ingest([sheet])
    assert not report.failed, report.failed
    out = service.answer("When was Bookworm released?")
    assert out.answer is not None, out.refusal
    assert exact(out.answer) == "2023-06-10"
    assert service.answer("When will Forky be released?").refused
    # a whole number given alone picks its row by the sheet's first column, its key
    out = service.answer("What's the codename of Debian 7?")
    assert out.answer is not None, out.refusal
    assert "| 7 | Name7 |" in out.answer.text and exact(out.answer) == "Name7"


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
    # "(Dollars in millions)", printed above the header row, is said under the table
    table, unit = result.answer.text.split("\n\n")[:2]
    assert table.split("\n")[2].startswith("| Net loss attributable to Boeing Shareholders |")
    assert unit == "(Dollars in millions)"
    at = result.answer.text.index(unit)
    [span] = [s for s in result.answer.spans if s.answer_start == at]
    source = service.store.document_text(result.answer.citations[0].document_id)
    assert source[span.doc_start : span.doc_end] == unit
    # a fiscal year as finance writes it is the year's column, not a name to look for
    for asked in (
        "What was Boeing's net loss attributable to shareholders in FY2021?",
        "What was the net loss attributable to Boeing shareholders in FY21?",
    ):
        result = service.answer(asked)
        assert result.answer is not None, result.refusal
        assert exact(result.answer) == "($4,202)", result.answer.text
    # a row of percentages is not in the caption's dollars
    result = service.answer("What was Boeing's effective income tax rate in 2022?")
    assert result.answer is not None, result.refusal
    assert "| Effective income tax rate | (0.6) % |" in result.answer.text
    assert "Dollars in millions" not in result.answer.text


def test_an_sec_filings_html_table_answers_under_its_years(
    service: Footnoted, tmp_path: Path
) -> None:
    """EDGAR's spacer cells and signs in cells of their own take no column: a year's
    amount is read under that year, and a year left blank is not another year's."""
    report = service.ingest([write(tmp_path / "docs" / "10-k.htm", SEC_TABLE)])
    assert not report.failed, report.failed
    result = service.answer("What was the net loss in 2021?")
    assert result.answer is not None, result.refusal
    assert "| Net loss | $(1,584,511) | $(1,009,359) | $(1,752,857) |" in result.answer.text
    assert exact(result.answer) == "$(1,009,359)"
    result = service.answer("What was revenue in 2020?")
    assert result.answer is not None, result.refusal
    assert exact(result.answer) == "$2,364,681"
    # the cell under 2021 is blank: neither 2020's cost nor another row answers it
    result = service.answer("What was the cost of revenue in 2021?")
    assert result.answer is None, result.answer.text


def test_a_report_that_says_we_and_prints_changes_after_its_years(service: Footnoted) -> None:
    """Lyft's 10-K names Lyft on its cover and says "we" on its pages; its tables print
    two changes after the years. Asked its revenue in 2021, the answer is the revenue
    row with 2021 over 2021's amount."""
    report = service.ingest([shared("pdfs-more", "R2R__lyft_2021.pdf")])
    assert not report.failed, report.failed
    result = service.answer("What was Lyft's revenue in 2021?")
    assert result.answer is not None, result.refusal
    header, _, row = result.answer.text.split("\n")[:3]
    assert row.startswith("| Revenue | $ 3,208,323 | $ 2,364,681 | $ 3,615,960 |"), row
    assert header.startswith("| | 2021 | 2020 | 2019 |"), header
    assert exact(result.answer) == "3,208,323"
    result = service.answer("What was Lyft's net loss in 2020?")
    assert result.answer is not None, result.refusal
    row = result.answer.text.split("\n")[2]
    assert row.startswith("| Net loss | $ (1,009,359) | $ (1,752,857) | $ (2,602,241) |"), row
    result = service.answer("How many people did Lyft employ at the end of 2021?")
    assert result.answer is not None, result.refusal
    assert "we had 4,453 employees" in result.answer.text
    # a follow-up after the revenue row asks about revenue, not about every table
    # printed under "2021 | 2020 | 2019 | Change (in thousands, except for percentages)"
    first = service.answer("What was Lyft's revenue in 2021?")
    assert first.answer is not None, first.refusal
    turns = Conversation((Exchange("What was Lyft's revenue in 2021?", first.answer.text),))
    result = service.answer(Question("And in 2020?", conversation=turns))
    assert result.answer is not None, result.refusal
    row = result.answer.text.split("\n")[2]
    assert row.startswith("| Revenue | $ 3,208,323 | $ 2,364,681 |"), result.answer.text
    # asked how many, "drivers have access to 24/7 support" holds no count
    result = service.answer("how many employees does lyft have")
    assert result.answer is not None, result.refusal
    assert "4,453" in result.answer.text and "24/7" not in result.answer.text
    # a row two chunks below the caption and header of its table, which the passage read
    # ends among: found in the rest of the table, quoted under its header, the caption after
    result = service.answer(
        "In the reconciliation of net loss to Adjusted EBITDA, how much stock-based "
        "compensation did Lyft add back for 2019 (in millions)?"
    )
    assert result.answer is not None, result.refusal
    table, _, caption = result.answer.text.partition("[1]\n")
    assert "| | 2021 | 2020 | 2019 |" in table, result.answer.text
    assert "| Stock-based compensation | 724.6 | 565.8 | 1,599.3 |" in table, result.answer.text
    assert caption.startswith("The following table provides a reconciliation of net loss to "
                              "Adjusted EBITDA (in millions): [2]"), result.answer.text  # fmt: skip
    assert exact(result.answer) == "1,599.3"


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


def test_a_state_of_a_wide_pdf_table_is_answered_under_its_whole_header(
    service: Footnoted,
) -> None:
    """The NICS report's header row runs past what a chunk embeds as context; its rows
    are still answered under it, and a state whose numbers ran together in the PDF
    reads cell by cell. The year asked (the report's month) names no column of a header
    without years. A row of 25 columns is shown as its label and the cell asked, each
    under its own header cell, each a verbatim piece of the document."""
    report = service.ingest([shared("pdfs-more", "pdfplumber__nics-background-checks-2015-11.pdf")])
    assert not report.failed, report.failed
    result = service.answer("How many permit checks did Kentucky run in November 2015?")
    assert result.answer is not None, result.refusal
    lines = result.answer.text.split("\n")
    assert lines[:3] == [
        "| State / Territory | Permit |",
        "| --- | --- |",
        "| Kentucky | 264,140 |",
    ]
    assert "Alabama" not in result.answer.text
    assert exact(result.answer) == "264,140"  # "permit" names its column
    source = service.store.document_text(result.answer.citations[0].document_id)
    shown = [source[s.doc_start : s.doc_end] for s in result.answer.spans]
    assert shown[:4] == ["State / Territory", "Permit", "Kentucky", "264,140"]
    text = result.answer.text
    assert all(text[s.answer_start : s.answer_end] == source[s.doc_start : s.doc_end]
               for s in result.answer.spans)  # fmt: skip
    # "total" names the Totals row; the column is the one the question's other words
    # name ("permit"), and "Totals" only where no other word names one
    permits = service.answer("What's the national total of permit checks in the NICS report?")
    assert permits.answer is not None, permits.refusal
    assert permits.answer.text.split("\n")[2] == "| Totals | 804,006 |"
    checks = service.answer("What's the nationwide total of background checks in November 2015?")
    assert checks.answer is not None, checks.refusal
    assert exact(checks.answer) == "2,236,457"


def test_words_of_the_tables_caption_name_no_row(service: Footnoted, tmp_path: Path) -> None:
    """Asked how much stock-based compensation is in research and development, the row
    is "Research and development", not "Total stock-based compensation expense": the
    caption says what the whole table is about."""
    text = "\n".join([
        "# Annual Report 2021", "",
        "The Company recorded stock-based compensation expense on the consolidated "
        "statements of operations for the periods indicated as follows:", "",
        "| | 2021 | 2020 |", "| --- | --- | --- |",
        "| Cost of revenue | 64,032 | 42,110 |",
        "| Research and development | 414,324 | 325,624 |",
        "| Sales and marketing | 38,243 | 23,385 |",
        "| Total stock-based compensation expense | 724,560 | 565,807 |", "",
    ])  # fmt: skip
    report = service.ingest([write(tmp_path / "docs" / "compensation.md", text)])
    assert not report.failed, report.failed
    question = "How much stock-based compensation expense was in research and development in 2021?"
    result = service.answer(question)
    assert result.answer is not None, result.refusal
    assert "| Research and development | 414,324 | 325,624 |" in result.answer.text
    assert "Total stock-based" not in result.answer.text
    assert exact(result.answer) == "414,324"


def test_an_abbreviation_names_the_column_it_abbreviates(
    service: Footnoted, tmp_path: Path
) -> None:
    rows = ["Symbol,Name,Price,Price/Earnings,Earnings/Share,Dividend Yield"]
    rows += [f"X{i},Filler Company {i},{10 + i},{12 + i % 7},{1 + i % 3},0.0{i % 9}"
             for i in range(40)]  # fmt: skip
    rows += ["AAPL,Apple Inc.,309.35,35.475918,8.72,0.0035"]
    report = service.ingest([write(tmp_path / "docs" / "quotes.csv", "\n".join(rows) + "\n")])
    assert not report.failed, report.failed
    result = service.answer("What is Apple's P/E ratio?")
    assert result.answer is not None, result.refusal
    assert "| AAPL | Apple Inc. |" in result.answer.text
    assert exact(result.answer) == "35.475918"


def test_a_row_of_percentages_answers_only_a_question_asking_for_one(
    service: Footnoted, tmp_path: Path
) -> None:
    """A report states its net loss twice: in dollars, and as a share of revenue."""
    text = "\n".join([
        "# Results of Operations", "",
        "The following table sets forth our results as a percentage of revenue:", "",
        "| | 2021 | 2020 |", "| --- | --- | --- |",
        "| Revenue | 100.0 % | 100.0 % |", "| Net loss | (31.5)% | (74.1)% |", "",
        "The following table summarizes our consolidated statements of operations:", "",
        "| | 2021 | 2020 |", "| --- | --- | --- |",
        "| Revenue | 3,208,323 | 2,364,681 |", "| Net loss | (1,009,359) | (1,752,857) |", "",
    ])  # fmt: skip
    report = service.ingest([write(tmp_path / "docs" / "results.md", text)])
    assert not report.failed, report.failed
    for question, value in (("What was the net loss in 2020?", "(1,752,857)"),
                            ("What was the net loss margin in 2020?", "(74.1)%")):  # fmt: skip
        result = service.answer(question)
        assert result.answer is not None, (question, result.refusal)
        assert exact(result.answer) == value, (question, result.answer.text)


@pytest.mark.parametrize(
    ("name", "word", "cut"),
    [
        ("carb", "carburetors", True),  # its start
        ("mag", "magnitude", True),
        ("hp", "horsepower", True),  # its letters in order from its first
        ("cyl", "cylinders", True),
        ("hp", "hp", False),  # the name itself is no abbreviation of it
        ("wt", "what", False),  # too short a word to be cut
        ("hp", "shipping", False),  # not from its first letter
        ("Revenue", "revenues", False),  # a long name is named by its words
        ("2021", "20210", False),
    ],
)
def test_a_short_column_name_cuts_a_word_short(name: str, word: str, cut: bool) -> None:
    assert abbreviates(name, word) is cut


def test_a_row_under_notes_is_read_under_its_header(service: Footnoted, tmp_path: Path) -> None:
    """A sheet with notes above its table: the row a question names is shown under the
    table's header, not under a note, and "die" names the column "Date of death"."""
    people = [
        ("David Bowie", "musician", 69, "1947-01-08", "2016-01-10"),
        ("Carrie Fisher", "actor", 60, "1956-10-21", "2016-12-27"),
        ("Harper Lee", "author", 89, "1926-04-28", "2016-02-19"),
        ("Jo Cox", "politician", 41, "1974-06-22", "2016-06-16"),
        ("John Glenn", "astronaut", 95, "1921-07-28", "2016-12-08"),
    ]
    rows: list[list[object]] = [
        ["Lots of people", None, None, None, None],
        ["simply cannot resist writing", None, None, None, "some notes"],
        ["at", "the", "top", "of", "their spreadsheets"],
        ["Name", "Profession", "Age", "Date of birth", "Date of death"],
    ]
    rows += [[name, job, age, dt.date.fromisoformat(b), dt.date.fromisoformat(d)]
             for name, job, age, b, d in people]  # fmt: skip
    book = tmp_path / "docs" / "deaths.xlsx"
    book.parent.mkdir(parents=True)
    book.write_bytes(workbook({"other": rows}))
    report = service.ingest([book])
    assert not report.failed, report.failed
    out = service.answer("When did Jo Cox die?")
    assert out.answer is not None, out.refusal
    assert out.answer.text.startswith("| Name | Profession | Age | Date of birth | Date of death |")
    assert "| Jo Cox | politician | 41 | 1974-06-22 | 2016-06-16 |" in out.answer.text
    assert "notes" not in out.answer.text
    # the viewer shows the cited row under the same header, not under the first note
    [doc] = service.store.list_documents()
    at = service.store.document_text(doc.id, 0, 10_000).index("Jo Cox")
    window = rows_around(service.store, doc.id, at)
    assert window.header.cells == ["Name", "Profession", "Age", "Date of birth", "Date of death"]
    assert (window.header.number, window.cited) == (4, 8)
    assert window.rows[0].cells == ["Lots of people"]  # a note keeps its place, as one line


def test_a_pivot_table_beside_its_data_answers_what_it_sums(
    service: Footnoted, tmp_path: Path
) -> None:
    """A pivot table set beside the rows it sums (a column left empty between them):
    "sum of sepal length" is read from the pivot's row under the pivot's own header,
    not from a data row that names the same species, and the viewer shows that row
    among the pivot's rows. Asked an average, neither table answers."""
    species = ["setosa", "versicolor", "virginica"]
    rows: list[list[object]] = [["Sepal Length", "Sepal Width", "Petal Length", "Species"]]
    rows += [[4.5 + i / 10, 3.0 + i % 5 / 10, 1.2 + i % 7 / 3, species[i % 3]] for i in range(45)]
    pivot = [["Row Labels", "Sum of Sepal Length", "Sum of Petal Length"]]
    pivot += [[name, 95.5 + 10 * n, 27.299999999999997 + 30 * n] for n, name in enumerate(species)]
    for n, row in enumerate(pivot, 1):
        rows[n] += [None, *row]
    book = tmp_path / "docs" / "irises.xlsx"
    book.parent.mkdir(parents=True)
    book.write_bytes(workbook({"IrisSample": rows}))
    report = service.ingest([book])
    assert not report.failed, report.failed
    out = service.answer("What is the sum of sepal length for setosa?")
    assert out.answer is not None, out.refusal
    assert out.answer.text.startswith("| Row Labels | Sum of Sepal Length | Sum of Petal Length |")
    assert "| setosa | 95.5 | 27.3 |" in out.answer.text
    [doc] = service.store.list_documents()
    at = service.store.document_text(doc.id, 0, 10_000).index("setosa | 95.5")
    window = rows_around(service.store, doc.id, at)
    assert window.header.cells == ["Row Labels", "Sum of Sepal Length", "Sum of Petal Length"]
    assert (window.header.number, window.cited) == (2, 3)
    assert [r.cells[0] for r in window.rows] == species
    # the sheet gives sums and single flowers: an average asked of it is not there
    out = service.answer("What is the average petal length of versicolor?")
    assert out.answer is None, out.answer.text


def test_a_pivot_sheet_answers_the_average_its_data_rows_do_not(
    service: Footnoted, tmp_path: Path
) -> None:
    """A pivot table on a sheet of its own, as Excel lays it out: what it sums up over
    its "Column Labels", its "Row Labels" below. Its header reads as one row ("Average
    of body_mass_g | female | male | Grand Total"), and asked an average, its row
    answers though a data row names more of the question's words ("Adelie", "female")."""
    data: list[list[object]] = [["species", "island", "body_mass_g", "sex"]]
    data += [["Adelie", "Dream", 3000 + 50 * i, ["female", "male"][i % 2]] for i in range(30)]
    pivot: list[list[object]] = [[None], [None]]
    pivot += [["Average of body_mass_g", "Column Labels"]]
    pivot += [["Row Labels", "female", "male", "Grand Total"]]
    pivot += [["Adelie", 3400, 3966.6666666666665, 3683.3333333333335]]
    pivot += [["Grand Total", 3400, 3966.6666666666665, 3683.3333333333335]]
    book = tmp_path / "docs" / "penguins.xlsx"
    book.parent.mkdir(parents=True)
    book.write_bytes(workbook({"penguins": data, "penguins_pivot": pivot}))
    doc = load_bytes(book.read_bytes(), book.name)
    text = doc.text[doc.text.index("Average of body_mass_g") :]
    assert text.startswith("Average of body_mass_g | female | male | Grand Total\n\nAdelie | 3400")
    report = service.ingest([book])
    assert not report.failed, report.failed
    out = service.answer("What is the average body mass of female Adelie penguins?")
    assert out.answer is not None, out.refusal
    assert "| Adelie | 3400 | 3966.666667 |" in out.answer.text
    assert out.answer.citations[0].section == "penguins_pivot"


@pytest.fixture
def cars(service: Footnoted, tmp_path: Path) -> Footnoted:
    rows = [["mpg", "cyl", "hp", "wt", "carb"]]
    rows += [[20 + i % 9, 4 + 2 * (i % 3), 90 + i, 2.5 + i / 100, 1 + i % 4] for i in range(150)]
    rows.insert(120, [15, 8, 335, 3.57, 8])  # the one car with 8 carburetors
    quakes = [["lat", "long", "depth", "mag", "stations"]]
    quakes += [
        [-20 - i / 10, 180 + i / 10, 500 + i, 4.0 + (i % 20) / 10, 10 + i] for i in range(60)
    ]
    book = tmp_path / "docs" / "datasets.xlsx"
    book.parent.mkdir(parents=True)
    book.write_bytes(workbook({"cars": rows, "quakes": quakes}))
    report = service.ingest([book])
    assert not report.failed, report.failed
    return service


def test_a_value_given_picks_its_row_out_of_a_sheet_of_numbers(cars: Footnoted) -> None:
    result = cars.answer("How much horsepower does the car with 8 carburetors have?")
    assert result.answer is not None, result.refusal
    assert result.answer.text.startswith("| mpg | cyl | hp | wt | carb |")
    assert "| 15 | 8 | 335 | 3.57 | 8 |" in result.answer.text
    assert exact(result.answer) == "335"  # the cell of the column asked, by its short name
    # "what's" is no "wt" cut short: the one column asked is still the horsepower
    result = cars.answer("what's the horsepower of the car that does 15 mpg?")
    assert result.answer is not None, result.refusal
    assert exact(result.answer) == "335"


def test_a_value_many_rows_hold_picks_none(cars: Footnoted) -> None:
    [doc] = cars.store.list_documents()
    chunks = cars.store.document_chunks(doc.id)
    one = "How much horsepower does the car with 8 carburetors have?"
    assert valued_row(one, chunks, cars.store.document_chunks) is not None
    many = "How much horsepower does the car with 3 carburetors have?"  # 37 cars have 3
    assert valued_row(many, chunks, cars.store.document_chunks) is None


def test_a_value_given_picks_its_row_of_the_block_asked(service: Footnoted, tmp_path: Path) -> None:
    """A sheet of two models' runs in blocks on the same rows ("clock2" in A:D, "clock3" in
    F:G, their difference in I), forty rows long: the value given picks its row in the
    block whose columns the question names most, the row printed under its block's header
    in the passage that prints the header too; a column the question names by its last
    word alone ("weight" of "clock2 weight") is still named."""
    betas = [round(0.0053 + n * 0.0247, 4) for n in range(40)]
    rows = [["clock2", None, None, None, None, "clock3"]]
    rows += [["beta", "weight", "ElnfX", "w*Efx", None, "ElnfX", "w*Efx", None, "Diff ElnfX"]]
    rows += [
        [b, 0.01 + n / 1000, -36000 + n, -900 + n, None, -35000 - n, -800 - n, None, n / 10]
        for n, b in enumerate(betas)
    ]
    book = tmp_path / "docs" / "bayes-factors.xlsx"
    book.parent.mkdir(parents=True)
    book.write_bytes(workbook({"GaussLegendreK16": rows}))
    assert not service.ingest([book]).failed
    for question, row in (
        ("What is the clock3 ElnfX at beta = 0.0547?", "| 0.0547 | -35002 | -802 |"),
        ("What is the clock2 ElnfX at beta = 0.0547?", "| 0.0547 | 0.012 | -35998 | -898 |"),
        ("What weight does the point with beta = 0.0547 have?", "| 0.0547 | 0.012 |"),
        ("What is the Diff ElnfX at beta = 0.0547?", "| 0.0547 | 0.2 |"),
    ):
        result = service.answer(question)
        assert result.answer is not None, (question, result.refusal)
        assert row in result.answer.text, (question, result.answer.text)


def test_each_sheet_is_a_table_of_its_own(cars: Footnoted) -> None:
    [doc] = cars.store.list_documents()
    headers = {(c.section, c.header) for c in cars.store.document_chunks(doc.id)}
    assert ("quakes", "lat | long | depth | mag | stations") in headers
    assert not any(s == "quakes" and h and h.startswith("mpg") for s, h in headers)


def test_a_real_sheet_of_numbers(service: Footnoted) -> None:
    report = service.ingest([shared("docs-more", "readxl__datasets.xlsx")])
    assert not report.failed, report.failed
    result = service.answer(
        "In the quakes sheet, how many stations reported the magnitude 6.4 earthquake?"
    )
    assert result.answer is not None, result.refusal
    assert "| 6.4 | 122 |" in result.answer.text
    assert exact(result.answer) == "122"
    # an adjective or a unit names the measure's column: "how deep" the depth, and the
    # weight of "the 423 gram chick"
    deep = service.answer("how deep was the magnitude 6.1 quake in the quakes sheet")
    assert deep.answer is not None, deep.refusal
    assert "| -20.7 | 169.92 | 139 | 6.1 | 94 |" in deep.answer.text
    assert exact(deep.answer) == "139"
    fed = service.answer("In the chickwts sheet, which feed did the 423 gram chick get?")
    assert fed.answer is not None, fed.refusal
    assert "| 423 | sunflower |" in fed.answer.text
    assert exact(fed.answer) == "sunflower"


def test_a_parts_table_answers_after_the_whole_companys() -> None:
    """Boeing prints revenue by customer location for the company and for its segment
    BCA: a question that does not name the segment is answered by the company's table,
    wherever retrieval put it; one naming it, by the segment's."""
    header = "Years ended December 31, | 2022 | 2021 | 2020"
    part = (
        "BCA revenues by customer location consisted of the following:\n\n"
        f"{header}\n\nAsia | $4,484 | $2,792 | $2,679\n\nEurope | 4,038 | 4,334 | 3,872"
    )
    whole = f"{header}\n\nAsia | $8,393 | $5,845 | $5,931\n\nEurope | 7,916 | 8,967 | 7,961"
    reads = [
        Read(
            RetrievedChunk(
                Chunk(f"c{i}", "d1", i, text, 0, len(text)), "THE BOEING COMPANY", None, 0.7
            ),
            Reading(3.0, 0, 10),
            10.0,
        )
        for i, text in enumerate((part, whole))
    ]
    row = named_row("How much revenue did Boeing get from customers in Asia in 2022?", reads, None)
    assert row is not None and row.read.hit.chunk.id == "c1"
    bca = named_row("How much BCA revenue came from customers in Asia in 2022?", reads, None)
    assert bca is not None and bca.read.hit.chunk.id == "c0"


def test_a_row_in_the_rest_of_a_table_the_passage_read_ends_among() -> None:
    """Lyft's reconciliation of net loss to Adjusted EBITDA runs over three chunks; the
    one read holds its caption, header and first row. A row the question names whole in
    a chunk that continues that table (the same document and section, a few chunks on,
    under the same header row) is the row asked, named as under the table's caption; a
    table under other years, or too far on, continues nothing, and a row named by a word
    or two of its label does not take the place of one named in the passages read."""
    head = (
        "The following table provides a reconciliation of net loss to Adjusted EBITDA "
        "(in millions):\n\nYear Ended December 31,\n\n2021 | 2020 | 2019\n\n(in millions)"
        "\n\nNet loss | $ (1,009.4) | $ (1,752.9) | $ (2,602.2)"
    )
    rest = (
        "Stock-based compensation | 724.6 | 565.8 | 1,599.3\n\n"
        "Payroll tax expense related to stock-based compensation | 31.5 | 23.7 | 44.7"
    )
    section = "Item 7 > Reconciliation of Non-GAAP Financial Measures"

    def hit(cid: str, index: int, text: str, header: str, start: int) -> RetrievedChunk:
        chunk = Chunk(cid, "d1", index, text, start, start + len(text), section=section,
                      header=header)  # fmt: skip
        return RetrievedChunk(chunk, "Lyft, Inc.", None, 0.7)

    read = Read(hit("c0", 10, head, "", 0), Reading(3.0, 0, 10), 10.0)
    years = "2021 | 2020 | 2019"
    continued = hit("c2", 12, rest, years, 600)
    other = hit("c1", 11, rest, "Years ended December 31, | 2022 | 2021 | 2020", 400)
    far = hit("c9", 19, rest, years, 3000)
    further = continuations([read], [other, far, continued])
    assert [c.read.hit.chunk.id for c in further] == ["c2"]
    assert captioned(further[0]) is not None
    assert head[slice(*captioned(further[0]))].startswith("The following table provides")
    asked = "How much stock-based compensation did Lyft add back for 2019 in the reconciliation?"
    row = named_row(asked, [read], None, further)
    assert row is not None and row.read.hit.chunk.id == "c2"
    assert rest[row.read.reading.start : row.read.reading.end].startswith("Stock-based comp")
    assert named_row(asked, [read], None) is None  # the passage read alone names no row
    # a label named in part ("payroll tax", "stock-based compensation"): not from the rest
    partly = named_row("How much payroll tax did Lyft pay in 2019?", [read], None, further)
    assert partly is None or partly.read.hit.chunk.id == "c0"


def test_a_row_above_the_rows_a_passage_read_starts_among() -> None:
    """A month's table of days runs over three chunks and the one read starts among its
    rows (days 22 on). The row asked (day 20) is in the chunk before it, under the same
    header: that is the row asked; a chunk of another table, or too far back, is not."""
    header = "SEP | 2015 | 2016 | 2017"
    section = "Deaths by day"

    def hit(cid: str, index: int, text: str, start: int, head: str = header) -> RetrievedChunk:
        chunk = Chunk(cid, "d1", index, text, start, start + len(text), section=section,
                      header=head)  # fmt: skip
        return RetrievedChunk(chunk, "Deaths by day and year", None, 0.7)

    late = "22 | 68 | 97 | 110\n\n23 | 70 | 71 | 109\n\nTotal | 2258 | 2367 | 2928"
    early = "19 | 81 | 82 | 75\n\n20 | 69 | 79 | 106\n\n21 | 70 | 67 | 124"
    read = Read(hit("c5", 5, late, 900), Reading(3.0, 0, 10), 10.0)
    before = hit("c4", 4, early, 800)
    october = hit("c3", 3, early.replace("106", "121"), 700, "OCT | 2015 | 2016 | 2017")
    far = hit("c0", 0, early.replace("106", "99"), 0)
    further = continuations([read], [october, far, before])
    assert [c.read.hit.chunk.id for c in further] == ["c4"]
    row = named_row("How many deaths occurred on 20 September 2017?", [read], None, further)
    assert row is not None and row.read.hit.chunk.id == "c4"
    assert early[row.read.reading.start : row.read.reading.end] == "20 | 69 | 79 | 106"


def test_amounts_and_percentages_told_apart_by_most_of_a_rows_values() -> None:
    header = "2021 | 2020 | 2019 | Change"  # "Change" spans two columns of changes
    rows = (
        "Adjusted EBITDA | $ | 92.9 | $ | (755.2) | $ | (678.9) | 112.3 % | (11.2)%\n\n"
        "Adjusted EBITDA Margin | 2.9 % | (31.9)% | (18.8)%"
    )
    chunk = Chunk("c1", "d1", 0, rows, 500, 500 + len(rows), section="Non-GAAP", header=header)
    read = Read(RetrievedChunk(chunk, "Lyft, Inc.", None, 0.7), Reading(3.0, 0, 10), 10.0)
    row = named_row("Lyft adjusted EBITDA for 2020", [read], None)
    assert row is not None and row.filled
    assert rows[row.read.reading.start : row.read.reading.end].startswith("Adjusted EBITDA | $")
    margin = named_row("Lyft adjusted EBITDA margin for 2020", [read], None)
    assert margin is not None
    assert rows[margin.read.reading.start :].startswith("Adjusted EBITDA Margin")


def test_one_word_of_a_longer_label_names_no_row() -> None:
    """Asked for Boeing's floor space, the segment table's "Defense, Space & Security" row
    was the answer, named by "space" alone; asked what share of its workforce unions
    represent, "Share-based plans". One word of the question names a row only where it
    is a label cell of one or two words ("Net loss", "Microsoft Corp.")."""
    header = "Years ended December 31, | 2022 | 2021 | 2020"
    rows = (
        "Commercial Airplanes | 25,867 | 19,493 | 16,162\n\n"
        "Defense, Space & Security | 23,162 | 26,540 | 26,257\n\n"
        "Share-based plans | (114) | (174) | (120)\n\n"
        "Net loss | (5,053) | (4,290) | (12,871)"
    )
    chunk = Chunk("c1", "d1", 0, rows, 800, 800 + len(rows), section="Segments", header=header)
    read = Read(RetrievedChunk(chunk, "THE BOEING COMPANY", None, 0.7), Reading(3.0, 0, 10), 10.0)
    for question in (
        "How much floor space did Boeing have at the end of 2022?",
        "What share of Boeing's workforce did unions represent at the end of 2022?",
    ):
        assert named_row(question, [read], None) is None, question
    for question, label in (
        ("What were Defense, Space & Security revenues in 2022?", "Defense, Space & Security |"),
        ("How large was the loss in 2021?", "Net loss |"),  # one word of two
    ):
        row = named_row(question, [read], None)
        assert row is not None, question
        assert rows[row.read.reading.start :].startswith(label), question


def test_a_months_table_of_days_names_its_row_by_the_month_and_the_day() -> None:
    """A report's tables of deaths by day, a month to a page, each headed by the month's
    abbreviation over its years ("SEP | 2016 | 2017"), one right after the other: that
    row heads its own table, not a row of the one before. Asked the total of October,
    the total row under "OCT" answers though September's is read first ("October" is
    "OCT"); asked a day, the row labelled by that number does."""
    text = (
        "Total | 2358 | 2367 | 2928\n\nSEP | 2015 | 2016 | 2017\n\n19 | 81 | 82 | 75\n\n"
        "20 | 69 | 79 | 106\n\nTotal | 2258 | 2367 | 2928"
    )
    rows = {m: text.partition("SEP | ")[2].replace("SEP", m) for m in ("SEP", "OCT")}
    rows["SEP"] = "SEP | " + rows["SEP"]
    rows["OCT"] = ("OCT | " + rows["OCT"]).replace("106", "121").replace("2258", "2393")
    header_of_sep = table_headers(text, [text.index("20 | 69")])
    assert header_of_sep == ["SEP | 2015 | 2016 | 2017"]
    # a row of a word and years that are not year after year is a row, not a header
    dated = "Rate | 2022 | 2021 | 2020\n\nUltimate year | 2028 | 2027 | 2027\n\nInitial | 6 | 5 | 5"
    assert table_headers(dated, [dated.index("Initial")]) == ["Rate | 2022 | 2021 | 2020"]
    read = []
    for n, month in enumerate(("SEP", "OCT")):
        body = rows[month]
        chunk = Chunk(month, "d1", n, body, 1000 * n, 1000 * n + len(body), page=9 + n)
        hit = RetrievedChunk(chunk, "Deaths by day", None, 0.7 - n / 10)
        read.append(Read(hit, Reading(3.0, 0, 10), 10.0))

    def named(question: str) -> str:
        row = named_row(question, read, None)
        assert row is not None, question
        start, end = row.read.reading.start, row.read.reading.end
        return f"{row.read.hit.chunk.id}: {row.read.hit.chunk.text[start:end]}"

    assert named("What was the total number of deaths in October 2017?") == (
        "OCT: Total | 2393 | 2367 | 2928"
    )
    assert named("How many deaths occurred on 20 September 2017?") == "SEP: 20 | 69 | 79 | 106"
    assert named("How many deaths occurred on 20 October 2017?") == "OCT: 20 | 69 | 79 | 121"


def test_a_unit_belongs_to_its_own_table(service: Footnoted, tmp_path: Path) -> None:
    """The unit closing a table's caption ("… (in thousands):") is its rows'; another
    table's unit, above rows of its own, is not; a header that says its unit is not
    told it twice."""
    ingest_markdown(service, tmp_path / "docs" / "report.md", [
        "# Annual Report 2021", "",
        "The following table summarizes our revenue (in thousands):", "",
        "| | 2021 | 2020 |", "| --- | --- | --- |",
        "| Rideshare revenue | 3,208,323 | 2,364,681 |", "",
        "Riders by quarter:", "",
        "| | 2021 | 2020 |", "| --- | --- | --- |",
        "| Active riders in the fourth quarter | 18,728 | 12,552 |", "",
        "Bike fleet:", "",
        "| | 2021 (in units) | 2020 (in millions) |", "| --- | --- | --- |",
        "| Bikes in service | 38,016 | 0.03 |", "",
    ])  # fmt: skip
    revenue = answered(service, "How much rideshare revenue was there in 2021?")
    assert "| Rideshare revenue | 3,208,323 |" in revenue
    assert "\n\n(in thousands)\n\n" in revenue
    riders = answered(service, "How many active riders were there in the fourth quarter of 2021?")
    assert "| Active riders in the fourth quarter | 18,728 |" in riders
    assert "(in " not in riders  # the revenue table's unit is not theirs
    bikes = answered(service, "How many bikes were in service in 2021?")
    assert bikes.startswith("| | 2021 (in units) | 2020 (in millions) |")
    assert bikes.count("(in ") == 2  # the header's own, not repeated under it


def test_a_table_in_percentages_by_its_caption(service: Footnoted, tmp_path: Path) -> None:
    """A 10-K prints its costs twice: in thousands, and "as a percentage of revenue" with
    bare numbers ("Sales and marketing | 12.8"). The caption's unit is shown under a row
    of the second table, and it tells the two rows apart: a question asking how much is
    answered in thousands, one asking for the percentage in percentages."""
    ingest_markdown(service, tmp_path / "docs" / "results.md", [
        "# Results of Operations", "",
        "The following table summarizes our costs and expenses (in thousands):", "",
        "| | 2021 | 2020 |", "| --- | --- | --- |",
        "| Sales and marketing | 411,406 | 416,331 |", "",
        "The following table sets forth our costs and expenses as a percentage of revenue:",
        "",
        "| | 2021 | 2020 |", "| --- | --- | --- |",
        "| Sales and marketing | 12.8 | 17.6 |", "",
    ])  # fmt: skip
    spent = answered(service, "How much was spent on sales and marketing in 2021?")
    assert "| Sales and marketing | 411,406 |" in spent
    assert "\n\n(in thousands)\n\n" in spent
    share = answered(service, "What was sales and marketing as a percentage of revenue in 2021?")
    assert "| Sales and marketing | 12.8 |" in share
    assert "\n\nas a percentage of revenue\n\n" in share


def test_a_row_named_whole_under_a_section_of_its_own_name(
    service: Footnoted, tmp_path: Path
) -> None:
    """Lyft's 10-K gives its sales and marketing costs in dollars under a section titled
    "Sales and Marketing", and as a percentage of revenue under "Results of Operations".
    Words of a table's caption and section name no row, so the row under its own
    section was named by nothing the other lacked; a label the question names whole is
    named all the same, and the unit asked tells the two apart."""
    ingest_markdown(service, tmp_path / "docs" / "annual.md", [
        "# Annual Report 2021", "",
        "## Results of Operations", "",
        "The following table sets forth our costs and expenses as a percentage of revenue:",
        "",
        "| | 2021 | 2020 |", "| --- | --- | --- |",
        "| Sales and marketing | 12.8 | 17.6 |",
        "| General and administrative | 28.5 | 40.0 |", "",
        "## Sales and Marketing", "",
        "Sales and marketing expenses (in thousands):", "",
        "| | 2021 | 2020 |", "| --- | --- | --- |",
        "| Sales and marketing | 411,406 | 416,331 |", "",
    ])  # fmt: skip
    spent = answered(service, "How much did the company spend on sales and marketing in 2021?")
    assert "| Sales and marketing | 411,406 |" in spent


def test_a_label_written_out_in_the_question_wins_over_its_words_reordered() -> None:
    """ReAct's Table 1 has rows "CoT-SC → ReAct" and "ReAct→ CoT-SC": the same words,
    named alike; the question writes out the first."""
    header = "Prompt Methoda | HotpotQA | Fever (EM) (Acc)"
    rows = (
        "ReAct | 27.4 | 60.9\n\nCoT-SC → ReAct | 34.2 | 64.6\n\nReAct→ CoT-SC | 35.1 | 62.0\n\n"
        "Supervised SoTAb | 67.5 | 89.5"
    )
    chunk = Chunk("c1", "d1", 0, rows, 900, 900 + len(rows), section="3 Results", header=header)
    read = Read(RetrievedChunk(chunk, "ReAct", None, 0.6), Reading(3.0, 0, 10), 10.0)
    for question, label in (
        ("Best Fever accuracy in Table 1 of ReAct, CoT-SC → ReAct?", "CoT-SC → ReAct |"),
        ("Fever accuracy of ReAct → CoT-SC?", "ReAct→ CoT-SC |"),
    ):
        row = named_row(question, [read], None)
        assert row is not None, question
        assert rows[row.read.reading.start :].startswith(label), question
    assert named_row("Fever accuracy of ReAct and CoT-SC together?", [read], None) is None


def test_a_row_of_a_real_papers_table_named_in_its_printed_order(service: Footnoted) -> None:
    report = service.ingest([shared("pdfs", "haystack__react_paper.pdf")])
    assert not report.failed, report.failed
    result = service.answer("Best Fever accuracy in Table 1 of ReAct, CoT-SC → ReAct?")
    assert result.answer is not None, result.refusal
    assert "| CoT-SC → ReAct | 34.2 | 64.6 |" in result.answer.text
    assert "ReAct→ CoT-SC" not in result.answer.text


def test_a_column_is_named_by_the_papers_title_words_and_by_a_word_cut_short() -> None:
    """ALCE's retriever ablation heads its columns "Citation Rec." and "Citation Prec.";
    the paper is titled "... with Citations". The title's words name no row (Boeing of
    Boeing's report), but they name a column, and "recall" names the column that prints
    it cut short, one word more than its neighbour."""
    header = "Fluency (MAUVE) | Correct. (EM) | Citation Rec. | Citation Prec."
    rows = (
        "ChatGPT (VANILLA)\n\nDPR (5-psg) | 61.8 | 36.1 | 65.0 | 65.6\n\n"
        "GTR (1-psg) | 69.5 | 38.4 | 56.0 | 64.0"
    )
    text = f"{header}\n\n{rows}"
    chunk = Chunk("c1", "d1", 0, text, 900, 900 + len(text), section="Table 8", header="")
    title = "Enabling Large Language Models to Generate Text with Citations"
    read = Read(RetrievedChunk(chunk, title, None, 0.6), Reading(3.0, 0, 10), 10.0)
    question = "In the retriever ablation on ASQA, what citation recall does DPR with 5 passages?"
    row = named_row(question, [read], None)
    assert row is not None
    named = text[row.read.reading.start : row.read.reading.end]
    assert named == "DPR (5-psg) | 61.8 | 36.1 | 65.0 | 65.6"
    terms = asked_terms(question)
    assert [column_named(terms, name) for name in header.split(CELLS)] == [0, 0, 2, 1]


@pytest.mark.parametrize(
    ("question", "name", "named"),
    [
        ("citation recall", "Citation Rec.", 2),
        ("citation recall", "Citation Prec.", 1),
        ("gross margin", "Mar. 31, 2024", 0),  # a month's abbreviation cuts no word short
        ("revenue decrease", "Dec. 31, 2023", 0),
        ("operating income", "Apple Inc.", 0),  # nor a company's
        ("stock price", "St. Louis", 0),  # two letters: too short to say
        ("precision", "Pre. Prec.", 1),  # one word of the question names one cut word
    ],
)
def test_a_word_printed_cut_short_names_its_column(question: str, name: str, named: int) -> None:
    assert column_named(asked_terms(question), name) == named


def test_a_real_papers_column_printed_cut_short(service: Footnoted) -> None:
    report = service.ingest([shared("pdfs", "ALCE__ALCE.pdf")])
    assert not report.failed, report.failed
    result = service.answer(
        "In the retriever ablation on ASQA, what citation recall does DPR with 5 passages give?"
    )
    assert result.answer is not None, result.refusal
    assert "| DPR (5-psg) | 61.8 | 36.1 | 65.0 | 65.6 |" in result.answer.text
    assert exact(result.answer) == "65.0"


def test_rows_named_alike_are_told_apart_by_the_label_they_are_printed_under(
    service: Footnoted, tmp_path: Path
) -> None:
    """A report's stock prices list each year's quarters under the year: of the two
    "Fourth Quarter" rows, the one under the year asked."""
    ingest_markdown(service, tmp_path / "prices.md", [
        "# Market information", "",
        "The high and low sales prices per share of our common stock as reported by NASDAQ.",
        "", "|  | High | Low |", "| --- | --- | --- |", "| 2019: |  |  |",
        "| Fourth Quarter | $11.44 | $9.47 |", "| Third Quarter | $14.96 | $10.26 |",
        "| 2018: |  |  |", "| Fourth Quarter | $12.16 | $7.43 |",
        "| Third Quarter | $20.60 | $10.95 |",
    ])  # fmt: skip
    asking = "What were the high and low sale prices of the stock in the fourth quarter of {}?"
    assert "| Fourth Quarter | $11.44 | $9.47 |" in answered(service, asking.format(2019))
    assert "| Fourth Quarter | $12.16 | $7.43 |" in answered(service, asking.format(2018))


def test_a_real_papers_row_is_held_by_the_model_it_is_printed_under(service: Footnoted) -> None:
    """ALCE's QAMPARI table names ChatGPT once, on a line above its methods' rows: a
    question naming the model and the method finds both in the row's evidence."""
    report = service.ingest([shared("pdfs", "ALCE__ALCE.pdf")])
    assert not report.failed, report.failed
    result = service.answer("ALCE QAMPARI table: Rec.-5 for ChatGPT SNIPPET (10-psg)?")
    assert result.answer is not None, result.refusal
    assert "| ChatGPT | | | | |\n| SNIPPET (10-psg) | 24.5 | 21.5 | 22.9 | 24.9 |" in (
        result.answer.text
    )


def test_a_change_picks_only_a_row_that_changed_by_it_in_its_own_unit() -> None:
    """The row whose years differ by the amount a sentence gives as a change: not a
    percentage's row for a count ("increased by 150" is not a 0.2-point move read in
    thousands), and never for a rate of change ("increased 5%" is no difference)."""

    def lead(sentence: str, at: str, rows: list[str]) -> Read:
        text = "\n".join([sentence, "Item | 2022 | 2021", *rows])
        start = text.index(at)
        chunk = Chunk("c0", "d1", 0, text, 0, len(text), section="Results", header="")
        hit = RetrievedChunk(chunk, "Annual report", None, 0.8)
        return Read(hit, Reading(5.0, start, start + len(at)), 9.0)

    def row(found: Named | None) -> str | None:
        if found is None:
            return None
        return found.read.hit.chunk.text[found.read.reading.start : found.read.reading.end]

    rows = ["Gross margin | 41.2% | 41.0%", "Stores | 310 | 290", "Other income | 12 | 7"]
    count = lead("Employees increased by 150 in 2022 compared with 2021.", "150", rows)
    assert row(changed_row("How many employees did it have in 2022?", [count], None)) is None
    stores = lead("Stores increased by 20 in 2022 compared with 2021.", "20", rows)
    assert row(changed_row("How many stores were there in 2022?", [stores], None)) == rows[1]
    points = lead("Gross margin increased by 0.2 points in 2022 from 2021.", "0.2", rows)
    assert row(changed_row("What was the gross margin in 2022?", [points], None)) == rows[0]
    rate = lead("Other income increased 5% in 2022 compared with 2021.", "5", rows)
    assert row(changed_row("What was other income in 2022?", [rate], None)) is None


def test_a_figure_asked_is_its_row_not_the_sentence_giving_its_change(
    service: Footnoted, tmp_path: Path
) -> None:
    """A sentence that gives how far a figure moved ("increased by $603 million in 2022
    compared with 2021") does not answer how large it was: the row of its passage whose
    years differ by that amount does. A question about the change keeps the sentence."""
    ingest_markdown(service, tmp_path / "docs" / "annual-report.md", [
        "# Annual Report 2022", "", "## Research and Development", "",
        "Research and development expense by segment (dollars in millions):", "",
        "| Years ended December 31, | 2022 | 2021 | 2020 |", "| --- | --- | --- | --- |",
        "| Commercial Airplanes | 1,900 | 1,500 | 1,700 |",
        "| Defense, Space & Security | 674 | 565 | 536 |",
        "| Other | 278 | 184 | 240 |",
        "| Total | $2,852 | $2,249 | $2,476 |", "",
        "Research and development expense increased by $603 million in 2022 compared with "
        "2021 primarily due to higher spending on new aircraft programs and product "
        "development.", "",
    ])  # fmt: skip
    spent = service.answer("How much did the company spend on research and development in 2022?")
    assert spent.answer is not None, spent.refusal
    assert "| Total | $2,852 | $2,249 | $2,476 |" in spent.answer.text
    assert exact(spent.answer) == "$2,852"  # the year asked, marked in its row
    grew = answered(service, "How much did research and development expense increase in 2022?")
    assert "increased by $603 million" in grew and "| Total |" not in grew


def test_a_row_of_sizes_and_ranges_is_named_as_a_row_of_numbers_is() -> None:
    """A reference manual's table holds values with their units and ranges ("2 bytes",
    "-32768 to +32767"): a row named by its label and a column by its name answers; a
    column written in camel case ("lifeExp") is named by its words."""
    types = (
        "Name | Storage Size | Description | Range\n\n"
        "smallint | 2 bytes | small-range integer | -32768 to +32767\n\n"
        "integer | 4 bytes | typical choice for integer | -2147483648 to +2147483647"
    )
    chunk = Chunk("c1", "d1", 0, types, 0, len(types), section="Numeric Types", header="")
    read = Read(RetrievedChunk(chunk, "Numeric Types", None, 0.6), Reading(3.0, 0, 10), 10.0)
    row = named_row("postgres smallint range?", [read], None)
    assert row is not None
    assert types[row.read.reading.start :].startswith("smallint | 2 bytes")
    figures = (
        "country | year | lifeExp | pop | gdpPercap\n\n"
        "Albania | 1952 | 55.23 | 1282697 | 1601.056136\n\n"
        "Austria | 1952 | 66.8 | 6927772 | 6137.076492"
    )
    chunk = Chunk("c2", "d2", 0, figures, 0, len(figures), section=None, header="")
    read = Read(RetrievedChunk(chunk, "gapminder", None, 0.6), Reading(3.0, 0, 10), 10.0)
    row = named_row("what was austria's life expectancy in 1952?", [read], None)
    assert row is not None
    assert figures[row.read.reading.start :].startswith("Austria | 1952 | 66.8")


def test_more_of_a_columns_words_named_pick_the_pivot_row() -> None:
    """A data row and a pivot table's row both name "setosa": "sum of sepal length" names
    the pivot's "Sum of Sepal Length" with one word more than the data's "Sepal
    Length", so the pivot's row answers, whichever passage was read first."""
    data = "Sepal Length | Sepal Width | Species\n\n4.6 | 3.6 | setosa\n\n6.4 | 2.7 | virginica"
    pivot = "Row Labels | Sum of Sepal Length\n\nsetosa | 95.5\n\nversicolor | 82.3"
    read = []
    for n, text in enumerate((data, pivot)):
        chunk = Chunk(f"c{n}", "d1", n, text, 0, len(text), section="IrisSample", header="")
        read.append(Read(RetrievedChunk(chunk, "irises", None, 0.6), Reading(3.0, 0, 10), 10.0))
    row = named_row("sum of sepal length for setosa?", read, None)
    assert row is not None and row.read.hit.chunk.id == "c1"
    assert pivot[row.read.reading.start :].startswith("setosa | 95.5")


def test_a_value_given_after_the_words_joining_it_to_its_column(
    service: Footnoted, tmp_path: Path
) -> None:
    """ "a population of 8,730,405" gives the value of the "pop" column, written with
    commas the cell does not print."""
    rows = [
        "country,year,lifeExp,pop,gdpPercap",
        "Albania,1952,55.23,1282697,1601.056136",
        "Austria,1952,66.8,6927772,6137.076492",
        "Belgium,1952,68,8730405,8343.105127",
    ]
    report = service.ingest([write(tmp_path / "docs" / "gapminder.csv", "\n".join(rows) + "\n")])
    assert not report.failed, report.failed
    result = service.answer("which country in the table had a population of 8,730,405?")
    assert result.answer is not None, result.refusal
    assert "| Belgium | 1952 | 68 | 8730405 | 8343.105127 |" in result.answer.text
    assert exact(result.answer) == "Belgium"


def _sheet_read(
    header: str, rows: str, title: str = "MIDI Mappings VA", numbered: bool = False
) -> Read:
    """A passage of a table's ``rows`` under its ``header``; ``numbered``: each row
    numbered, as a spreadsheet's rows are (not a PDF's table)."""
    starts = [i for i in range(len(rows)) if i == 0 or rows[i - 2 : i] == "\n\n"]
    chunk = Chunk(
        "c1",
        "d1",
        0,
        rows,
        500,
        500 + len(rows),
        section="By Module",
        header=header,
        rows=tuple((500 + at, n) for n, at in enumerate(starts, start=1)) if numbered else (),
    )
    return Read(RetrievedChunk(chunk, title, None, 0.6), Reading(3.0, 0, 10), 10.0)


def _named_text(question: str, read: Read) -> str | None:
    row = named_row(question, [read], None)
    if row is None:
        return None
    return read.hit.chunk.text[row.read.reading.start : row.read.reading.end]


def test_a_row_is_named_by_its_label_before_a_note_that_uses_more_of_the_words() -> None:
    """A synthesizer's MIDI mapping: "Cutoff Frequency" labels the row asked; another
    row's note says "control of the filter cutoff frequency", more of the question's
    words, but its label is not named."""
    header = "Function | MIDI CC | Module | Type | Notes"
    rows = (
        "Filter Modulation Enable | 19 | 4 - Filter | switch | Enable modulation control of "
        "the filter cutoff frequency\n\n"
        "Cutoff Frequency | 74 | 4 - Filter | knob | Filter cutoff frequency\n\n"
        "Emphasis | 37 | 4 - Filter | knob | Filter Resonance (Q)"
    )
    read = _sheet_read(header, rows)
    question = "In the synth's MIDI mapping, which MIDI CC controls the filter's Cutoff Frequency?"
    assert _named_text(question, read) == (
        "Cutoff Frequency | 74 | 4 - Filter | knob | Filter cutoff frequency"
    )


def test_rows_named_whole_are_told_apart_by_their_labels_not_their_descriptions() -> None:
    """PostgreSQL's table of date/time types: asked the storage of "time with time
    zone", the row labelled so answers, though its description has more words the
    question leaves out than "time ... without time zone"'s."""
    header = "Name | Storage Size | Description | Low Value | High Value | Resolution"
    rows = (
        "time [ (p) ] [ without time zone ] | 8 bytes | time of day (no date) | 00:00:00 "
        "| 24:00:00 | 1 microsecond\n\n"
        "time [ (p) ] with time zone | 12 bytes | time of day (no date), with time zone "
        "| 00:00:00+1559 | 24:00:00-1559 | 1 microsecond"
    )
    read = _sheet_read(header, rows)
    question = "In PostgreSQL, how much storage does a value of type time with time zone take?"
    assert (_named_text(question, read) or "").startswith("time [ (p) ] with time zone | 12")
    without = "How much storage does a time without time zone value take?"
    assert (_named_text(without, read) or "").startswith("time [ (p) ] [ without time zone ]")


def test_a_letter_given_names_a_keys_row_and_its_one_other_column_answers() -> None:
    """OpenNI's viewer: asked what pressing capital L does, the row of the key "L"
    answers, not "l" nor a row about recording; its action is the one other column, so
    no column need be named. A letter not given as a key names no row."""
    header = "Key | Description"
    rows = (
        "d | Start recording in 5 seconds\n\n"
        "l | Seek one frame forward (recordings only)\n\n"
        "L | Seek 10 frames forward (recordings only)\n\n"
        "k | Seek one frame backwards (recordings only)"
    )
    read = _sheet_read(header, rows)
    question = "While playing back a recording in the viewer, how far does pressing capital L jump?"
    assert _named_text(question, read) == "L | Seek 10 frames forward (recordings only)"
    assert _named_text("How far does the L train jump while recording?", read) is None
    # the article and the pronoun are no letters given: "press a key", "the key I use"
    keys = _sheet_read(header, "a | Append after the cursor\n\nI | Insert at the line's start")
    assert _named_text("What happens when I press a key twice?", keys) is None
    assert _named_text("What does the key I use to insert do?", keys) is None
    # a row of two cells under a header of three is no pair: its answer is not the cell
    checklist = _sheet_read(
        "Policies & Management | Implementation | Notes, Action Items",
        "Describe the target's proprietary products | Complete Partial Not applicable",
    )
    asked = "What should the target describe for its proprietary products?"
    assert _named_text(asked, checklist) is None
    # under years, a row of words is a second header
    options = _sheet_read("2019 | 2018", "Number | Number")
    assert _named_text("In which years was the number of options counted?", options) is None


def test_a_key_named_whole_in_a_table_of_keys_and_values_answers_with_its_row() -> None:
    """A Word guide's "Document information": rows of a key and its value under no header
    of words (its first row holds a date). Asked who the receiver is, the "Receiver" row
    answers, not the row holding more of the question's words; the first row, which
    could be a header, answers nothing, and neither does a row of a table of three."""
    rows = (
        "Document information\n\n"
        "Created on | 22.01.2013\n\n"
        "Reference | CDigiDoc Programmer’s Guide\n\n"
        "Receiver | Sertifitseerimiskeskus AS\n\n"
        "Author | Veiko Sinivee, Kersti Üts\n\n"
        "Version | 3.10"
    )
    read = _sheet_read("", rows, title="CDigiDoc Programmer’s Guide")
    asked = "Who is listed as the receiver of the CDigiDoc Programmer's Guide?"
    assert _named_text(asked, read) == "Receiver | Sertifitseerimiskeskus AS"
    assert _named_text("Who is the author of the guide?", read) == (
        "Author | Veiko Sinivee, Kersti Üts"
    )
    assert _named_text("When was the guide created on?", read) is None
    three = _sheet_read("", "Created | 2013 | draft\n\nReceiver | SK | final")
    assert _named_text("Who is the receiver?", three) is None
    # a list of contents, its pages rising, is no table of keys and values
    contents = _sheet_read("", "Introduction | 3\n\nScope | 5\n\nDefinitions | 7")
    assert _named_text("What is the scope of the policy?", contents) is None


def test_a_number_given_names_its_row_where_its_column_is_named_too() -> None:
    """Asked which function is on "MIDI CC 16", the row whose MIDI CC is 16 answers; a
    number given of a column the question does not name ("6 carburetors" and a row whose
    cylinders are 6) names no row, and a row whose other cell merely holds it is not
    named by it."""
    header = "Function | MIDI CC | Module | Type | Notes"
    rows = (
        "Noise Amp | 32 | 3 - Mixer | knob | Noise gain\n\n"
        "White/pink toggle | 16 | 3 - Mixer | switch | Noise pink/white\n\n"
        "Filter Modulation Enable | 19 | 4 - Filter | switch | Enable modulation control"
    )
    read = _sheet_read(header, rows)
    assert _named_text("Which function is mapped to MIDI CC 16?", read) == (
        "White/pink toggle | 16 | 3 - Mixer | switch | Noise pink/white"
    )
    cars = _sheet_read("model | cyl | qsec | carb", "Valiant | 6 | 20.2 | 1\n\nDino | 6 | 15.5 | 6")
    assert _named_text("What's the qsec of the car with 6 in its model name?", cars) is None
    assert _named_text("Which model has a qsec of 6 carb?", cars) == "Dino | 6 | 15.5 | 6"


def test_a_row_named_by_its_label_and_a_value_given_leads_a_row_named_by_the_label() -> None:
    """Asked the Module of "the Sustain function on CC 64": the row labelled "Sustain" on
    CC 64, not "Sustain Level" on 42."""
    header = "Function | MIDI CC | Module | Type | Notes"
    rows = (
        "Sustain Level | 42 | 4 - Filter | knob | VCF envelope generator sustain level\n\n"
        "Sustain | 64 | midi sustain foot pedal | switch | Note sustain, preempts the VCF/VCA "
        "release stage"
    )
    read = _sheet_read(header, rows)
    question = "What is listed in the Module column for the Sustain function on CC 64?"
    named = _named_text(question, read)
    assert named is not None and named.startswith("Sustain | 64 |")


def test_a_rows_label_with_or_without_no_and_its_units_not_words_of_the_label() -> None:
    """An installation guide's table: "No desktop" and "With Desktop" are both named by
    "desktop"; the question's "no" or "with a" tells them apart, and the units of the
    cells ("256 megabytes") do not count as words the question leaves out. "Hard drive"
    is a column, not a question of what drives something."""
    header = "Install Type | RAM (minimum) | RAM (recommended) | Hard Drive"
    rows = (
        "No desktop | 256 megabytes | 512 megabytes | 4 gigabytes\n\n"
        "With Desktop | 1 gigabytes | 2 gigabytes | 10 gigabytes"
    )
    read = _sheet_read(header, rows, title="Installation Guide")
    no = "How much hard drive space is recommended for an install with no desktop?"
    assert _named_text(no, read) == "No desktop | 256 megabytes | 512 megabytes | 4 gigabytes"
    desktop = "What is the minimum RAM for an install with a desktop?"
    assert _named_text(desktop, read) == "With Desktop | 1 gigabytes | 2 gigabytes | 10 gigabytes"


def test_an_option_given_names_the_row_it_labels() -> None:
    """A manual's table of memory by block size, its rows labelled by the flag ("-6"):
    a question giving the flag names that row."""
    header = "Flag | Compress usage | Decompress usage | Decompress -s usage | Corpus Size"
    rows = "-5 | 4400k | 2100k | 1350k | 845160\n\n-6 | 5200k | 2500k | 1600k | 838626"
    read = _sheet_read(header, rows, title="bzip2 and libbzip2")
    question = "How much memory does decompression with -s use for a file compressed with -6?"
    assert _named_text(question, read) == "-6 | 5200k | 2500k | 1600k | 838626"


def test_a_row_of_words_answers_the_column_asked_first_after_what() -> None:
    """An installation guide's table of architectures holds words, not numbers: its row
    is named by its first cell whole and the question's other words ("MIPS Malta"), and
    of the columns the question names ("Debian", "subarchitecture", "flavor") the one it
    asks for is the first after "what". A row of words under a header of years is a
    second header ("Net Sales | % of Total"), no answer."""
    header = "Architecture | Debian Designation | Subarchitecture | Flavor"
    rows = (
        "64bit MIPS (little-endian) | mips64el | Cavium Octeon | octeon\n\n"
        "32bit MIPS (little-endian) | mipsel | MIPS Malta | 4kc-malta\n\n"
        "64bit MIPS (little-endian) | mips64el | MIPS Malta | 5kc-malta"
    )
    read = _sheet_read(header, rows, title="Supported Hardware")
    question = (
        "In Debian 12's supported architectures table, what is the flavor for the MIPS Malta "
        "subarchitecture of 64bit MIPS (little-endian)?"
    )
    assert _named_text(question, read) == (
        "64bit MIPS (little-endian) | mips64el | MIPS Malta | 5kc-malta"
    )
    sales = _sheet_read(
        "| Fiscal Year 2018 | Fiscal Year 2017",
        "Net Sales | % of Total | Net Sales | % of Total\n\nAPAC | $479,987 | 40.0% | $288,764",
        title="Annual report",
    )
    named = _named_text("What was the net sales in APAC in 2017?", sales)
    assert named is None or named.startswith("APAC")


def test_a_rows_table_is_named_by_the_sentence_printed_above_it(
    service: Footnoted, tmp_path: Path
) -> None:
    """A manual's table of block sizes is introduced by the sentence that says what its
    last column records ("the total compressed size for 14 files of the Calgary Text
    Compression Corpus"). A row read in a later passage, one that opens with the table's
    rows, holds the names of that sentence too: the row answers, not the sentence."""
    rows = [f"| -{n} | {400 * n}k | {300 * n}k | {200 * n}k | {920000 - 7000 * n} |"
            for n in range(1, 41)]  # fmt: skip
    intro = " ".join(
        f"Chapter {n} of the manual explains how the program reads its options, its input "
        f"files and its environment variables, and what it prints when asked for help."
        for n in range(1, 12)
    )  # a cover of other words: the table's names are not on it
    lines = [
        "# Introduction", "", intro, "",
        "# Memory management", "",
        "Compression and decompression use memory in proportion to the block size. Here is "
        "a table which summarises the maximum memory usage for different block sizes. Also "
        "recorded is the total compressed size for 14 files of the Calgary Text Compression "
        "Corpus totalling 3,141,622 bytes. This column gives some feel for how compression "
        "varies with block size. These figures tend to understate the advantage of larger "
        "block sizes for larger files, since the Corpus is dominated by smaller files.", "",
        "| Flag | Compress usage | Decompress usage | Decompress -s usage | Corpus Size |",
        "| --- | --- | --- | --- | --- |",
        *rows, "",
    ]  # fmt: skip
    ingest_markdown(service, tmp_path / "docs" / "manual.md", lines)
    question = "What total compressed size is recorded for the Calgary Text Compression Corpus"
    answer = answered(service, f"{question} with -35?")
    assert "| -35 | 14000k | 10500k | 7000k | 675000 |" in answer


def test_a_date_given_names_the_row_it_labels() -> None:
    """A brokerage statement's rows are told apart by their dates: asked the HOOL
    dividend paid on 2015-07-26, the row dated so answers, not the HOOL dividend of
    2015-07-02; asked which ticker paid on 2015-08-31, a column the table does not
    print, the row dated so answers whole, where the question names another of its cells
    too. A date no row holds names none, and a range is no date."""
    header = "DATE | TYPE | REF # | DESCRIPTION | FEES | AMOUNT | BALANCE"
    rows = (
        "2015-07-02 | DIV | 27217440 | ORDINARY DIVIDEND~HOOL | 0 | 26.19 | 3976.66\n\n"
        "2015-07-26 | DIV | 75756901 | ORDINARY DIVIDEND~HOOL | 0 | 14.45 | 983.48\n\n"
        "2015-08-31 | DIV | 97130478 | ORDINARY DIVIDEND~BAPL | 0 | 11.21 | 1002.84"
    )
    read = _sheet_read(header, rows)
    asked = "How much was the HOOL ordinary dividend paid on 2015-07-26?"
    assert _named_text(asked, read) == (
        "2015-07-26 | DIV | 75756901 | ORDINARY DIVIDEND~HOOL | 0 | 14.45 | 983.48"
    )
    ticker = "Which ticker paid the ordinary dividend credited on 2015-08-31?"
    assert _named_text(ticker, read) == (
        "2015-08-31 | DIV | 97130478 | ORDINARY DIVIDEND~BAPL | 0 | 11.21 | 1002.84"
    )
    assert _named_text("Which ticker paid the dividend credited on 2015-10-15?", read) is None
    # the date alone names no row whole: the question names nothing else of it
    assert _named_text("What commission was charged on 2015-08-31?", read) is None
    # a range is no date: "10-15 years" names no row labelled so
    leave = _sheet_read("Years | Days", "0-5 | 10\n\n10-15 | 20")
    assert _named_text("Who approves leave for staff with 10-15 years?", leave) is None


def test_a_row_of_a_sheet_printing_no_header_is_named_by_its_words_and_answers_whole() -> None:
    """An invoice's lines as a CSV file print no header: asked the unit price of one
    item, the row naming it answers whole (no column can be named); asked the bill's
    vendor, which no row names, none does. A PDF's table whose header was lost to the
    layout (no sheet's rows) is left to the reader."""
    rows = (
        "MEC-0072 | - | 000013 | 34-0655 > PROTOBLOC 2 BREADBOARD | ea | Expenses:Materials "
        "General | 1 | 4.39\n\n"
        "MEC-0072 | - | 000013 | 73-4290 > ATMEGA8-16PU 8-BIT MICRO 8K DIL-28 (RC) | ea | "
        "Expenses:Materials General | 3 | 1.99\n\n"
        "MEC-0072 | - | 000013 | DELIVERY | ea | Expenses:Postage | 1 | 4.95"
    )
    read = _sheet_read("", rows, title="invoice", numbered=True)
    price = "What is the unit price of the ATMEGA8-16PU 8-bit microcontroller on bill MEC-0072?"
    named = _named_text(price, read)
    assert named is not None and named.endswith("| 3 | 1.99")
    delivery = "Which expense account is the delivery charge on bill MEC-0072 booked to?"
    assert (_named_text(delivery, read) or "").endswith("Expenses:Postage | 1 | 4.95")
    assert _named_text("What is the name of the vendor that issued bill MEC-0072?", read) is None
    pdf = _sheet_read("", rows, title="invoice")
    assert _named_text(price, pdf) is None


def test_a_column_named_by_one_letter_is_named_by_its_letter_or_a_word_it_begins() -> None:
    """A colour's table names its columns "r | g | b | h | s | l": a question writing the
    letter alone ("the hue (h)") names the column, and in a header of such names a word
    one begins ("green", "hue") does, where no word names a column otherwise; the
    articles "a" and "I" name none, nor does a function word, nor a word of a header
    with a one-letter name or two among words ("population" is no "p" of a p-value)."""
    assert "§h" in asked_terms("What is the hue (h) value of Crimson?")
    assert column_named(asked_terms("What is the hue (h) value of Crimson?"), "h") == 1
    assert not {"§a", "§i"} & asked_terms("Is a colour I like named?")
    colours = "Name | r | g | b | h | s | l"
    green = asked_terms("What is Tomato's green value?") - {"tomato"}
    assert _column(colours, green, set(), letters=True)[:2] == (1, 2)
    assert _column(colours, green, set())[:2] == (0, None)  # the row's words: no letters
    hue = asked_terms("What is Crimson's hue?") - {"crimson"}
    assert _column(colours, hue, set(), letters=True)[:2] == (1, 4)
    assert not stands_for("w", "what") and stands_for("w", "weight")
    survey = "Country | n | mean | sd | p"
    population = asked_terms("What was the population of Norway?") - {"norway"}
    assert _column(survey, population, set(), letters=True)[:2] == (0, None)


COLOURS = [
    ("Pink", 255, 192, 203, 350, 100, 88),
    ("Crimson", 220, 20, 60, 348, 83, 47),
    ("FireBrick", 178, 34, 34, 0, 68, 42),
    ("Tomato", 255, 99, 71, 9, 100, 64),
    ("Coral", 255, 127, 80, 16, 100, 66),
    ("Gold", 255, 215, 0, 51, 100, 50),
]


def test_a_colours_row_answers_the_column_its_letter_names(
    service: Footnoted, tmp_path: Path
) -> None:
    """Asked a colour's hue, written "(h)", the colour's row answers under that column;
    asked its green value, its row answers under the "g" column, its cell marked."""
    rows = ["Name,r,g,b,h,s,l"] + [",".join(map(str, c)) for c in COLOURS]
    rows += [f"Grey{i},{i},{i},{i},0,0,{i % 100}" for i in range(40)]
    report = service.ingest([write(tmp_path / "docs" / "colours.csv", "\n".join(rows) + "\n")])
    assert not report.failed, report.failed
    hue = answered(service, "What is the hue (h) value of Crimson?")
    assert "| Crimson | 348 |" in hue and "Pink" not in hue
    green = answered(service, "What is Tomato's green value?")
    assert "| Name | g |" in green and "| Tomato | 99 |" in green and "Pink" not in green
    result = service.answer("What is Tomato's green value?")
    assert result.answer is not None and exact(result.answer) == "99"  # the g column's cell


def test_a_letter_a_longer_name_also_begins_marks_no_cell(
    service: Footnoted, tmp_path: Path
) -> None:
    """A league table's "P" (played) and "Pts" (points): asked Leeds' points, the cell
    under "P", the letter "points" begins, is not marked nor shown alone as the answer
    ("Pts" may be the word cut short): the row answers whole."""
    rows = ["Team,P,W,D,L,GF,GA,Pts"]
    rows += [f"Club{i},38,{i % 20},{i % 7},{i % 11},{40 + i},{30 + i},{50 + i}" for i in range(30)]
    rows.insert(5, "Leeds,38,21,5,12,62,47,68")
    report = service.ingest([write(tmp_path / "docs" / "league.csv", "\n".join(rows) + "\n")])
    assert not report.failed, report.failed
    result = service.answer("How many points did Leeds get?")
    assert result.answer is not None, result.refusal
    assert "| Leeds | 38 | 21 | 5 | 12 | 62 | 47 | 68 |" in result.answer.text
    assert exact(result.answer) != "38"


def test_a_cell_quoted_whole_names_its_row_under_the_label_its_group_prints_once(
    service: Footnoted, tmp_path: Path
) -> None:
    """A sheet of lines scored per character prints each episode once, in its first row,
    and leaves it blank below; the first row's scores are blank too. Asked the score of a
    line it quotes, the row of that line answers (not the episode's first row, which the
    episode names), its episode shown over it; the header stays the header."""
    lines: list[list[object]] = [["Episode", "Line", "Blair", "Chuck", "Dan"]]
    for n in range(1, 9):
        lines.append([f"S1E{n}", f"Episode {n} opens on the steps of the Met again.", None])
        lines.append([None, f"Spotted: a quiet brunch number {n}.", None, None, 1])
        lines.append([None, f"Word is that the party {n} ended early.", -1, None, None])
    lines.insert(21, [None, "Spotted: Bass drunk at the bar.", None, -1, None])
    path = tmp_path / "docs" / "lines.xlsx"
    path.parent.mkdir(parents=True)
    path.write_bytes(workbook({"Sheet1": lines}))
    report = service.ingest([path])
    assert not report.failed, report.failed
    text = answered(
        service, "For the S1E7 line 'Spotted: Bass drunk at the bar.', what is the Chuck score?"
    )
    assert "| - | Spotted: Bass drunk at the bar. | - | -1 | - |" in text
    assert "| S1E7 |" in text and "Episode 7 opens" not in text
    # asked its episode, the row shows the label it is printed under
    text = answered(service, "Which episode has the line 'Spotted: Bass drunk at the bar.'?")
    assert "| S1E7 |" in text and "Spotted: Bass drunk at the bar." in text


def test_a_row_named_by_its_label_asks_another_column_than_the_labels(
    service: Footnoted, tmp_path: Path
) -> None:
    """ "Which interface is IMeshObject derived from?": the word after "which" names the
    column of labels, but the question names the row by its label; it asks the other
    column its words name."""
    names = ["Model", "Factory", "Component", "Resource", "Texture", "Slice", "Mesh"]
    lines = [
        "# Interfaces",
        "",
        "The following interfaces specify an in-memory representation of the document.",
        "",
        "| Interface | derived from | Description |",
        "| --- | --- | --- |",
    ]
    lines += [f"| I{n}Object | IBase | I{n}Object handles the {n.lower()} nodes. |" for n in names]
    lines[-1] = "| IMeshObject | IObjectResource | IMeshObject handles the mesh objects. |"
    ingest_markdown(service, tmp_path / "docs" / "interfaces.md", lines)
    text = answered(service, "Which interface is IMeshObject derived from?")
    assert "| IMeshObject | IObjectResource |" in text
