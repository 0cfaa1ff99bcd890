"""A table's caption is the last part of its rows' section path, on the side of the
tables the document prints its captions: under them in a paper, above them in a report."""

from __future__ import annotations

import io

import docx

from conftest import shared
from footnoted.lexical import CELLS
from footnoted.loaders import load_bytes, load_path
from footnoted.loaders.blocks import Block
from footnoted.loaders.captions import captioned
from footnoted.models import ParsedDocument


def section_of(doc: ParsedDocument, start: str) -> tuple[str, ...]:
    return next(s.section for s in doc.segments if doc.text[s.start : s.end].startswith(start))


def test_a_papers_tables_are_under_the_captions_printed_below_them() -> None:
    doc = load_path(shared("pdfs", "haystack__react_paper.pdf"))
    webshop = ("4 Decision Making Tasks", "Table 4: Results on Webshop")
    assert section_of(doc, "ReAct | 66.6 | 40.0")[-2:] == webshop
    assert section_of(doc, "Method | Avg Score | Success")[-2:] == webshop
    # a label printed among the rows and the caption itself are the table's too
    assert section_of(doc, "Human 82.1 59.6 Expert")[-2:] == webshop
    assert section_of(doc, "Table 4: Results on Webshop. IL and IL+RL")[-2:] == webshop
    # the text after the caption is the section's again
    after = doc.text.index("Table 4: Results on Webshop.")
    nxt = next(s for s in doc.segments if s.start > after + 80)
    assert nxt.section[-1] != webshop[-1]
    alce = load_path(shared("pdfs", "ALCE__ALCE.pdf"))
    # the first sentence, its abbreviations kept ("vs."), is the title
    nine = "Table 9: Comparing human vs. ALCE\u2019s citation quality evaluation on ASQA"
    assert section_of(alce, "Table 9: Comparing human")[-1] == nine


def test_a_reports_tables_are_under_the_captions_printed_above_them() -> None:
    document = docx.Document()
    document.add_heading("Results", level=1)
    for n, (name, rows) in enumerate(
        [("Revenue by region.", [("Europe", "120"), ("Asia", "80")]),
         ("Staff by office.", [("Paris", "14"), ("Tokyo", "9")])], start=1
    ):  # fmt: skip
        document.add_paragraph(f"Table {n}: {name}")
        table = document.add_table(rows=len(rows), cols=2)
        for row, values in zip(table.rows, rows, strict=True):
            for cell, value in zip(row.cells, values, strict=True):
                cell.text = value
    buffer = io.BytesIO()
    document.save(buffer)
    doc = load_bytes(buffer.getvalue(), "report.docx")
    assert section_of(doc, "Asia | 80") == ("Results", "Table 1: Revenue by region")
    # right under the first table, the second table's caption is not the first's
    assert section_of(doc, "Table 2: Staff by office.") == ("Results", "Table 2: Staff by office")
    assert section_of(doc, "Tokyo | 9") == ("Results", "Table 2: Staff by office")


def test_an_html_caption_element_names_its_table_whatever_it_says() -> None:
    page = (
        "<html><body><h1>Prices</h1><p>Our plans.</p><table>"
        "<caption>Monthly prices by plan</caption><tr><th>Plan</th><th>Price</th></tr>"
        "<tr><td>Team</td><td>25</td></tr><tr><td>Pro</td><td>40</td></tr></table>"
        "<p>Prices do not include tax.</p></body></html>"
    )
    doc = load_bytes(page.encode(), "prices.html")
    assert section_of(doc, "Pro | 40") == ("Prices", "Monthly prices by plan")
    assert section_of(doc, "Prices do not include tax.") == ("Prices",)


def test_rows_without_a_caption_and_prose_naming_a_table_stay_as_they_are() -> None:
    rows = [Block(CELLS.join(("Plan", "Price")), ("Billing",)),
            Block(CELLS.join(("Team", "25")), ("Billing",)),
            Block("Table 3 shows what each plan costs, billed monthly.", ("Billing",))]  # fmt: skip
    assert captioned(rows) == rows
    # one row is not a table; a caption under another section is not this table's
    lone = [Block(CELLS.join(("Plan", "Price")), ("A",)), Block("Table 1: Prices.", ("A",))]
    assert captioned(lone) == lone
    apart = [*rows[:2], Block("Table 1: Prices.", ("Other",))]
    assert captioned(apart) == apart


def test_a_financial_statements_title_names_its_table() -> None:
    """A 10-K's statements are titled over their tables, not as "Table N:": the title is
    the section of their rows (searched with them, shown in their citation), whole,
    the company's "Inc." kept; a sentence that names a statement captions nothing."""
    boeing = load_path(shared("docs-more", "financebench__BOEING_2022_10K.pdf"))
    flows = "Consolidated Statements of Cash Flows (Dollars in millions)"
    row = "Treasury shares issued for 401(k) contribution | 1,215"
    assert section_of(boeing, row)[-1] == f"The Boeing Company and Subsidiaries {flows}"
    lyft = load_path(shared("pdfs-more", "R2R__lyft_2021.pdf"))
    title = "Lyft, Inc. Consolidated Statements of Cash Flows (in thousands)"
    assert section_of(lyft, "Depreciation and amortization | 139,347")[-1] == title
    assert section_of(lyft, "Cash flows from operating activities")[-1] == title  # a label
    said = "Personnel expenses are included in the consolidated statement of profit or loss."
    rows = [Block(said, ("Notes",)), Block(CELLS.join(("", "2019", "2018")), ("Notes",)),
            Block(CELLS.join(("Wages", "12", "10")), ("Notes",))]  # fmt: skip
    assert captioned(rows) == rows
    titled = [Block("CONSOLIDATED STATEMENTS OF OPERATIONS (in millions)", ("Notes",)), *rows[1:]]
    assert {b.section for b in captioned(titled)} == {
        ("Notes", "CONSOLIDATED STATEMENTS OF OPERATIONS (in millions)")
    }


def test_a_statements_title_is_its_name_not_its_period_nor_a_label() -> None:
    def caption_of(title: str) -> tuple[str, ...]:
        rows = [Block(title, ("Report",)), Block(CELLS.join(("", "2021", "2020")), ("Report",)),
                Block(CELLS.join(("Revenue", "12", "10")), ("Report",))]  # fmt: skip
        return captioned(rows)[2].section

    named = {
        "Consolidated Statements of Income and Comprehensive Income": None,
        "Consolidated Statements of Changes in Equity": None,
        "Statement of Partners’ Capital": None,
        "Income Statement": None,
        "Balance Sheets as of December 31, 2021 and 2020": "Balance Sheets",
        "Balance Sheets (continued)": "Balance Sheets",
        "Statements of Operations (Unaudited) (in millions) For the Years Ended December 31,":
            "Statements of Operations (Unaudited) (in millions)",
    }  # fmt: skip
    for title, name in named.items():
        assert caption_of(title) == ("Report", name or title), title
    for label in ("Statement of Operations Data:", "Selected Balance Sheet Data"):
        assert caption_of(label) == ("Report",), label  # a label among the rows names none


def test_a_heading_that_names_its_statement_is_not_said_twice() -> None:
    page = "# Annual report\n\n## Consolidated Statements of Operations\n\n" + (
        "| | 2021 | 2020 |\n| --- | --- | --- |\n| Revenue | 12 | 10 |\n| Costs | 8 | 7 |\n"
    )
    doc = load_bytes(page.encode(), "report.md")
    named = ("Annual report", "Consolidated Statements of Operations")
    assert section_of(doc, "Revenue | 12 | 10") == named
