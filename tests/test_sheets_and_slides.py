"""Excel workbooks, CSV files and PowerPoint decks: real files from the shared data, and
files made here to pin what each keeps and where reading stops."""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from pathlib import Path

import openpyxl
import pptx
import pytest
from pptx.util import Inches

import footnoted.loaders as loaders
from conftest import shared
from footnoted.errors import DocumentError
from footnoted.lexical import CELLS
from footnoted.loaders import detect_kind, load_bytes, load_path
from footnoted.loaders.blocks import sheet_tables, table_headers
from footnoted.models import ParsedDocument


def blocks(doc: ParsedDocument) -> list[tuple[str, tuple[str, ...], int | None]]:
    return [(doc.text[s.start : s.end], s.section, s.page) for s in doc.segments]


def workbook(sheets: dict[str, list[list[object]]]) -> bytes:
    book = openpyxl.Workbook()
    book.remove(book.active)
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_a_workbook_reads_each_sheet_as_a_section_with_its_header_row() -> None:
    data = workbook(
        {
            "Revenue": [
                ["Region", "2021", "2022"],
                ["Asia", 8393.5, 7000],
                [],
                ["Europe", None, 12],
                ["Africa", 40, None],
            ],
            "Notes": [["Prepared by finance", None, None]],
        }
    )
    assert detect_kind(data, "upload.bin") == "xlsx"
    doc = load_bytes(data, "report.xlsx")
    assert doc.kind == "xlsx"
    assert blocks(doc) == [
        ("Region | 2021 | 2022", ("Revenue",), None),
        ("Asia | 8393.5 | 7000", ("Revenue",), None),
        ("Europe | - | 12", ("Revenue",), None),  # an empty cell keeps its column
        ("Africa | 40 | -", ("Revenue",), None),  # so does a last one, under its header
        ("Prepared by finance", ("Notes",), None),  # a note's trailing empty cells dropped
    ]
    europe = doc.text.index("Europe")
    assert table_headers(doc.text, [europe]) == ["Region | 2021 | 2022"]
    assert [s.row for s in doc.segments] == [1, 2, 4, 5, 1]  # numbered as the sheet numbers them


def test_notes_written_around_a_sheets_table_are_lines_and_its_header_heads_it() -> None:
    """People write notes above a table and below it, spread over its cells; the table's
    header is the row of words right above its rows of values, and the notes are lines
    of text, not rows: they would head the table in its header's place."""
    data = workbook(
        {
            "arts": [
                ["Lots of people", None, None, None],
                ["simply cannot resist writing", None, None, "some notes"],
                ["at", "the", "top", "of their spreadsheets"],
                ["Name", "Profession", "Age", "Date of death"],
                ["David Bowie", "musician", 69, dt.date(2016, 1, 10)],
                ["Harper Lee", "author", 89, dt.date(2016, 2, 19)],
                [None, "some also write", None, "at the bottom"],
            ],
            "terms": [["Term", "Meaning"], ["sheet", "one grid"], ["cell", "one box", "note"]],
            "costs": [
                ["Region", "Revenue", "Cost"],
                [None, "€m", "€m"],
                ["Asia", 5, 3],
                ["Africa", 4, 2],
            ],
        }
    )
    doc = load_bytes(data, "deaths.xlsx")
    arts = [text for text, section, _ in blocks(doc) if section == ("arts",)]
    assert arts == [
        "Lots of people",
        "simply cannot resist writing some notes",
        "at the top of their spreadsheets",
        "Name | Profession | Age | Date of death",
        "David Bowie | musician | 69 | 2016-01-10",
        "Harper Lee | author | 89 | 2016-02-19",
        "some also write at the bottom",
    ]
    harper = doc.text.index("Harper Lee")
    assert table_headers(doc.text, [harper]) == ["Name | Profession | Age | Date of death"]
    assert [s.row for s in doc.segments][:7] == [1, 2, 3, 4, 5, 6, 7]
    # a sheet of words alone has no rows of values to tell its notes by: every row stays
    terms = [text for text, section, _ in blocks(doc) if section == ("terms",)]
    assert terms == ["Term | Meaning", "sheet | one grid", "cell | one box | note"]
    # nor does one whose values have only their units right above them, under the header
    costs = [text for text, section, _ in blocks(doc) if section == ("costs",)]
    assert costs == ["Region | Revenue | Cost", "- | €m | €m", "Asia | 5 | 3", "Africa | 4 | 2"]


def test_a_header_over_a_first_row_whose_values_are_blank_still_heads_the_table() -> None:
    """A sheet scoring each line of an episode prints the episode's first line with no
    score: the row of words right above the first scores is that line, not the header.
    The header names the columns of values it leaves blank, and stays the header; a note
    spread over cells above a header, even one filling more of them, is still a note."""
    data = workbook(
        {
            "Sheet1": [
                ["Episode", "Line", "Blair", "Chuck", "Dan"],
                ["S1E1", "Hey Upper East Siders. Gossip Girl here."],
                [None, "Spotted: Lonely Boy.", None, None, 1],
                [None, "Better lock it down with Nate, B.", -1],
            ],
            "notes": [
                ["written by", None, None, "the analyst"],
                ["Name", "Profession", "Age"],
                ["David Bowie", "musician", 69],
                ["Harper Lee", "author", 89],
            ],
        }
    )
    doc = load_bytes(data, "scores.xlsx")
    rows = [text for text, section, _ in blocks(doc) if section == ("Sheet1",)]
    assert rows[:2] == [
        "Episode | Line | Blair | Chuck | Dan",
        "S1E1 | Hey Upper East Siders. Gossip Girl here. | - | - | -",
    ]
    lonely = doc.text.index("Spotted: Lonely Boy.")
    assert table_headers(doc.text, [lonely]) == ["Episode | Line | Blair | Chuck | Dan"]
    notes = [text for text, section, _ in blocks(doc) if section == ("notes",)]
    assert notes[:2] == ["written by the analyst", "Name | Profession | Age | -"]
    # a note filling more cells than the header, over a header that names the values: a note
    wide = [
        ["Prepared by", "the finance team", "draft", "confidential"],
        ["Item", "Cost", "Owner"],
        ["Rent", 100, "Ann"],
        ["Power", 50, "Bob"],
    ]
    costs = load_bytes(workbook({"wide": wide}), "costs.xlsx")
    rent = costs.text.index("Rent")
    assert table_headers(costs.text, [rent]) == ["Item | Cost | Owner | -"]


def test_a_number_reads_as_the_sheet_shows_it() -> None:
    """A sum's float error is not shown, nor an average's fifteenth digit (a column of the
    default width shows ten); a number in a format of fixed decimals, a thousands separator
    or a percentage reads as that format prints it."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Pivot"
    sheet.append(["Species", "Sum", "Average", "Share", "Growth", "Mass", "Price", "Count"])
    sheet.append(["setosa", 27.299999999999997, 3966.6666666666665, 0.23529, 1, 1234567.8, 2.5, 7])
    formats = {"D2": "0.00%", "E2": "0%", "F2": "#,##0", "G2": "_(* #,##0.00_);_(* (#,##0.00)"}
    for ref, form in formats.items():
        sheet[ref].number_format = form
    out = io.BytesIO()
    book.save(out)
    doc = load_bytes(out.getvalue(), "pivot.xlsx")
    row = "setosa | 27.3 | 3966.666667 | 23.53% | 100% | 1,234,568 | 2.50 | 7"
    assert blocks(doc)[1] == (row, ("Pivot",), None)


def test_tables_side_by_side_are_read_as_tables_of_their_own() -> None:
    """Data in A:C and its pivot table in E:F, from row 2 on: each is a table under its
    own header, the pivot's rows never glued onto the data's. A spacer column inside one
    table, its rows on both sides, parts nothing."""
    data = workbook(
        {
            "Iris": [
                ["Sepal", "Petal", "Species"],
                [6.4, 5.3, "virginica", None, "Row Labels", "Sum of Sepal"],
                [4.4, 1.3, "setosa", None, "setosa", 95.5],
                [6.9, 4.9, "versicolor", None, "versicolor", 82.3],
                [4.7, 1.3, "setosa"],
            ],
            "Costs": [["Item", None, "2021", "2022"], ["Rent", None, 5, 6], ["Staff", None, 7, 8]],
        }
    )
    doc = load_bytes(data, "iris.xlsx")
    iris = [
        (text, row)
        for (text, section, _), row in zip(blocks(doc), [s.row for s in doc.segments], strict=True)
        if section == ("Iris",)
    ]
    assert iris == [
        ("Sepal | Petal | Species", 1),
        ("6.4 | 5.3 | virginica", 2),
        ("4.4 | 1.3 | setosa", 3),
        ("6.9 | 4.9 | versicolor", 4),
        ("4.7 | 1.3 | setosa", 5),
        ("Row Labels | Sum of Sepal", 2),
        ("setosa | 95.5", 3),
        ("versicolor | 82.3", 4),
    ]
    setosa = doc.text.index("setosa | 95.5")
    starts = sheet_tables(doc.segments)
    assert table_headers(doc.text, [setosa], starts) == ["Row Labels | Sum of Sepal"]
    costs = [text for text, section, _ in blocks(doc) if section == ("Costs",)]
    assert costs == ["Item | - | 2021 | 2022", "Rent | - | 5 | 6", "Staff | - | 7 | 8"]


def test_blocks_side_by_side_on_the_same_rows_are_read_by_their_labels_and_titles() -> None:
    """Two models' results in blocks on the same rows ("clock2" in A:C, "clock3" in E:F,
    and their difference in H): each block's values are read by the row's label in
    column A and by their block's title, so a question about clock3 at beta 0.9947 finds
    its row. A row the first block has no label on (a result under the second) is as it
    is."""
    betas = [0.0053, 0.0277, 0.0672, 0.1223, 0.8777, 0.9328, 0.9723, 0.9947]
    data = workbook(
        {
            "Runs": [
                ["clock2", None, None, None, "clock3"],
                ["beta", "weight", "ElnfX", None, "ElnfX", "w*Efx", None, "Diff"],
                *(
                    [b, 0.1, -35000 - n, None, -34000 - n, -900 - n, None, n]
                    for n, b in enumerate(betas)
                ),
                ["SUM", None, -35037.1, None, None, -35036.2],
                [None, None, None, None, "Bayes factor is:", -0.98],
            ]
        }
    )
    doc = load_bytes(data, "runs.xlsx")
    assert [text for text, _, _ in blocks(doc)] == [
        "clock2",
        "beta | clock2 weight | clock2 ElnfX",
        *(f"{b} | 0.1 | {-35000 - n}" for n, b in enumerate(betas)),
        "SUM | - | -35037.1",
        "clock3",
        "beta | clock3 ElnfX | clock3 w*Efx",
        *(f"{b} | {-34000 - n} | {-900 - n}" for n, b in enumerate(betas)),
        "SUM | - | -35036.2",
        "Bayes factor is: | -0.98",
        "beta | Diff",
        *(f"{b} | {n}" for n, b in enumerate(betas)),
    ]
    row = doc.text.index("0.9947 | -34007")
    starts = sheet_tables(doc.segments)
    assert table_headers(doc.text, [row], starts) == ["beta | clock3 ElnfX | clock3 w*Efx"]
    # a row the first block leaves without values keeps the other's under their columns
    gap = workbook(
        {
            "Runs": [
                ["clock2", None, None, None, "clock3"],
                ["beta", "weight", "ElnfX", None, "ElnfX", "w*Efx"],
                *([b, 0.1, -35000 - n, None, -34000 - n, -900 - n] for n, b in enumerate(betas)),
                [0.5, None, None, None, -1, -2],
            ]
        }
    )
    assert "0.5 | -1 | -2" in [text for text, _, _ in blocks(load_bytes(gap, "gap.xlsx"))]
    # a small pivot table beside its data, untitled, its rows led by years: its own table
    sales = workbook(
        {
            "Sales": [
                ["Name", "Year", "Sales", None, "Row Labels", "Sum of Sales"],
                ["Ann", 2019, 250, None, 2019, 250],
                ["Bob", 2020, 300, None, 2020, 300],
                ["Cy", 2021, 100, None, 2021, 100],
                ["Di", 2021, 50],
            ]
        }
    )
    texts = [text for text, _, _ in blocks(load_bytes(sales, "sales.xlsx"))]
    assert texts[-4:] == ["Row Labels | Sum of Sales", "2019 | 250", "2020 | 300", "2021 | 100"]


def test_a_formula_is_read_as_its_last_calculated_value(tmp_path: Path) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Sums"
    sheet.append(["a", "b", "total"])
    sheet.append([1, 2, "=A2+B2"])
    path = tmp_path / "sums.xlsx"
    book.save(path)
    # openpyxl writes no cached value: the formula cell reads as empty, never as its text
    assert "=A2+B2" not in load_path(path).text


def test_a_csv_file_sniffs_its_delimiter_and_keeps_its_header() -> None:
    data = b"Symbol;Name;Price\nMMM;3M;178.96\nAOS;A. O. Smith;63.08\n"
    assert detect_kind(data, "prices.csv") == "csv"
    assert detect_kind(data, "prices.txt") == "text"  # content alone cannot tell
    doc = load_bytes(data, "prices.csv")
    assert doc.text.split("\n\n") == ["Symbol | Name | Price", "MMM | 3M | 178.96",
                                      "AOS | A. O. Smith | 63.08"]  # fmt: skip
    assert table_headers(doc.text, [doc.text.index("AOS")]) == ["Symbol | Name | Price"]


def test_a_timeline_row_that_starts_with_its_years_stays_under_its_header() -> None:
    """A row of years one after another heads a table ("2021 | 2020 | 2019 | Change"),
    but a timeline's years are a span's ends: its rows stay under the header printed."""
    data = (
        b"Start,End,Project\n2015,2018,Billing migration\n2019,ongoing,Data platform\n"
        b"2020,2021,Search rewrite\n"
    )
    doc = load_bytes(data, "projects.csv")
    rows = [doc.text.index(p) for p in ("2015", "Data platform", "Search rewrite")]
    assert table_headers(doc.text, rows) == ["Start | End | Project"] * 3  # fmt: skip
    # years alone under a heading of words, the label's empty cell dropped: they head
    text = "\n\n".join(["Indicators | For the year ended 31 December", "2019 | 2018",
                        "Total energy consumption (MWh) | 205,092.26 | 167,488.48"])  # fmt: skip
    assert table_headers(text, [text.index("Total")]) == ["2019 | 2018"]
    signs = "\n\n".join(["Item | 2021 | 2020", "$ | $", "Cash | 5 | 6"])  # no cell left
    assert table_headers(signs, [signs.index("Cash")]) == ["Item | 2021 | 2020"]


def test_a_cell_holding_the_cell_separator_cannot_split_its_row() -> None:
    doc = load_bytes(b'name,value\n"a | b",1\n', "bars.csv")
    assert doc.text.split("\n\n")[1] == "a / b | 1"
    assert all(len(row.split(CELLS)) == 2 for row in doc.text.split("\n\n"))


def test_reading_stops_past_the_cell_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loaders, "MAX_SHEET_CELLS", 1000)
    data = ("\n".join(",".join(["1"] * 10) for _ in range(200))).encode()
    with pytest.raises(DocumentError, match=r"big\.csv holds more than 1,000 cells") as caught:
        load_bytes(data, "big.csv")
    assert caught.value.code == "text_too_long"


def test_a_sheet_claiming_a_million_rows_is_read_as_what_it_holds() -> None:
    data = workbook({"Data": [["k", "v"], ["a", 1]]})
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            content = source.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                content = content.replace(b'<dimension ref="A1:B2"/>',
                                          b'<dimension ref="A1:XFD1048576"/>')  # fmt: skip
                assert b"XFD1048576" in content
            target.writestr(item, content)
    doc = load_bytes(out.getvalue(), "claims.xlsx")
    assert doc.text == "k | v\n\na | 1"


def test_a_workbook_zip_bomb_is_refused() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/workbook.xml", bytes(5 << 20))
    with pytest.raises(DocumentError, match=r"bomb\.xlsx contains .*zip bomb"):
        load_bytes(out.getvalue(), "bomb.xlsx")


def deck() -> bytes:
    presentation = pptx.Presentation()
    first = presentation.slides.add_slide(presentation.slide_layouts[1])  # title and content
    first.shapes.title.text = "Response times"
    body = first.placeholders[1].text_frame
    body.text = "Starter plans are answered within one business day."
    body.add_paragraph().text = "Team plans within 4 hours."
    first.notes_slide.notes_text_frame.text = "Mention the weekend rota."
    second = presentation.slides.add_slide(presentation.slide_layouts[6])  # blank
    shapes = second.shapes
    label = shapes.add_textbox(Inches(1), Inches(0.5), Inches(6), Inches(1))
    label.text_frame.text = "Prices"
    table = shapes.add_table(2, 2, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for r, row in enumerate([["Plan", "Price"], ["Starter", "$10"]]):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    out = io.BytesIO()
    presentation.save(out)
    return out.getvalue()


def test_a_deck_reads_each_slide_as_a_page_under_its_title() -> None:
    data = deck()
    assert detect_kind(data, "upload.bin") == "pptx"
    doc = load_bytes(data, "support.pptx")
    assert doc.kind == "pptx" and doc.page_count == 2 and doc.title == "Response times"
    assert blocks(doc) == [
        ("Response times", ("Response times",), 1),
        ("Starter plans are answered within one business day.", ("Response times",), 1),
        ("Team plans within 4 hours.", ("Response times",), 1),
        ("Notes: Mention the weekend rota.", ("Response times",), 1),
        ("Prices", ("Prices",), 2),  # no title placeholder: its first short line
        ("Plan | Price", ("Prices",), 2),
        ("Starter | $10", ("Prices",), 2),
    ]


def test_a_decks_footer_is_read_once_and_its_slide_numbers_not_at_all() -> None:
    """A talk's footer ("TANGO Meeting, 20 May 2015") and date are printed on every
    slide, with its number: the footer and date are read on the first slide showing them
    (a new footer on a later slide, once more), the numbers never."""
    presentation = pptx.Presentation()
    layout = presentation.slide_layouts[1]  # title and content, with footer placeholders
    furniture = {kind: ph for ph in layout.placeholders if (kind := ph.placeholder_format.type)}
    footers = ["TANGO Meeting, 20 May 2015", "TANGO Meeting, 20 May 2015", "Status, April 2015"]
    for number, footer in enumerate(footers, 1):
        slide = presentation.slides.add_slide(layout)
        slide.shapes.title.text = f"Replication {number}"
        slide.placeholders[1].text_frame.text = f"Each row is copied to {number + 2} nodes."
        for kind, text in ((15, footer), (16, "5/20/2015"), (13, f"Page {number}")):
            slide.shapes.clone_placeholder(furniture[kind])
            slide.placeholders[furniture[kind].placeholder_format.idx].text_frame.text = text
    out = io.BytesIO()
    presentation.save(out)
    doc = load_bytes(out.getvalue(), "talk.pptx")
    read = [(text, page) for text, _, page in blocks(doc)]
    assert not any(text.startswith("Page ") for text, _ in read)
    assert [page for text, page in read if text == "TANGO Meeting, 20 May 2015"] == [1]
    assert [page for text, page in read if text == "5/20/2015"] == [1]
    assert [page for text, page in read if text == "Status, April 2015"] == [3]
    assert [page for text, page in read if text.startswith("Each row")] == [1, 2, 3]


@pytest.mark.parametrize(
    ("name", "kind", "sections", "pages"),
    [
        ("readxl__datasets.xlsx", "xlsx", {("mtcars",), ("chickwts",), ("quakes",)}, None),
        ("sp500__constituents-financials.csv", "csv", {()}, None),
        ("openchain__reference-training-slides-ISO-5230.pptx", "pptx", None, 82),
        ("owasp-top10__OWASP_Top_10_-_2013_Final_-_English.pptx", "pptx", None, 22),
    ],
)
def test_real_spreadsheets_and_decks(
    name: str, kind: str, sections: set[tuple[str, ...]] | None, pages: int | None
) -> None:
    doc = load_path(shared("docs-more", name))
    assert doc.kind == kind
    if sections is not None:
        assert {s.section for s in doc.segments} == sections
    if pages is not None:
        assert doc.page_count == pages
        assert {s.page for s in doc.segments} <= set(range(1, pages + 1))
        assert any(doc.text[s.start : s.end].startswith("Notes: ") for s in doc.segments)
        assert doc.title and "PowerPoint" not in doc.title
    else:  # every row under its header
        rows = [doc.text[s.start : s.end] for s in doc.segments]
        assert all(CELLS in row for row in rows[1:])
        assert table_headers(doc.text, [doc.segments[-1].start]) != [None]
