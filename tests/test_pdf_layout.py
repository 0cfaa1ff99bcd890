"""PDFs as they are: titles, sections, furniture, tables and pages on the shared PDFs.

The slow test parses and chunks every shared PDF as ``footnoted ingest``
does, then measures it. ``pytest -m slow tests/test_pdf_layout.py -s`` prints, per file, the
title, the share of chunks under a sensible section, the share of chunks and sentences
that start at a sentence start, and the header/footer/table-of-contents lines left."""

from __future__ import annotations

import ctypes
import io
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest

from footnoted.ingest.chunking import Chunker
from footnoted.ingest.parsing import Parser
from footnoted.lexical import CELLS, split_sentences
from footnoted.loaders import load_bytes, load_path
from footnoted.loaders.blocks import (
    HEADER_CHARS,
    assemble,
    clean_title,
    cut_row,
    slug_title,
    table_headers,
)
from footnoted.loaders.pdffurniture import drop_furniture
from footnoted.loaders.pdflayout import Line, _heading_text, lay_out
from footnoted.models import Chunk, FileBytes, ParsedDocument
from footnoted.pages import PAGE_BREAK, page_at, page_in_text, page_range
from rawpdf import pdf_file

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
FOLDERS = ("pdfs", "pdfs-more")

_DOT_LEADER = re.compile(r"(?:\.\s?){5,}|(?:…\s?){3,}|(?:_\s?){8,}")
_SENTENCE_END = re.compile(r"[.!?:;][\"'”’)\]]*(?:\[\d+\])*$")  # "… Jr.[3][4]" ends one
_ITEM = re.compile(  # a bullet, "(b)", "a. ", "ii) ", "2.1 "
    r"[•▪◦‣–-]\s|\([a-zA-Z0-9]{1,4}\)|(?:[a-z]{1,4}|[A-Z])[.)]\s|\d{1,2}\.(?:\d{1,2}\.?)*\s"
)
_BAD_HEADING = re.compile(r"[.,;:]$|^(?:or|and|the|of|☐|☒|□)$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Measure:
    name: str
    title: str | None
    chunks: int
    sensible: float  # share of chunks whose section looks like a heading
    no_section: float  # share of chunks without a section
    chunk_starts: float  # share of chunks that start at a sentence start
    sentence_starts: float  # share of sentences that start at a sentence start
    furniture: int  # header/footer/TOC lines left in the text


_FILING_ITEM = re.compile(r"Item \d{1,2}[A-C]?\. [A-Z]")


def sensible_heading(title: str) -> bool:
    """A section name a reader would accept: short (a filing's item as long as its title
    runs), no sentence punctuation, not a cover-page connective, with a few letters."""
    words = title.split()
    item = bool(_FILING_ITEM.match(title))
    return (
        1 <= len(words) <= (20 if item else 14)
        and len(title) <= (200 if item else 110)
        and sum(ch.isalpha() for ch in title) >= 3
        and not _BAD_HEADING.search(title)
        and not title[0].islower()
    )


def starts_sentence(text: str, start: int) -> bool:
    """Does ``text[start:]`` begin a sentence (not a continuation of the text before)?"""
    head = text[start : start + 1]
    if _ITEM.match(text, start) or CELLS in text[start : text.find("\n\n", start)]:
        return True  # a list item, a numbered clause, a footnote or a table row
    if not head or head.islower():
        return False
    before = text[max(0, start - 300) : start].rstrip()
    if not before or _SENTENCE_END.search(before):
        return True
    window = text[max(0, start - 300) : start]
    if not re.search(r"\n\n|\f", window):
        return False  # same block, the text before does not end a sentence
    block = re.split(r"\n\n|\f", before)[-1]
    # a new block after one that stops mid-sentence (a lower-case word or a comma); a
    # heading, a label or a table row before it is fine
    return len(block) < 80 or CELLS in block or not (block[-1].islower() or block[-1] in ",-")


def furniture_lines(doc: ParsedDocument) -> int:
    """Blocks that repeat on three or more pages (running headers and footers, page
    numbers) at the top or bottom of a page, and blocks holding table-of-contents dot
    leaders."""
    pages: dict[str, set[int]] = defaultdict(set)
    blocks = [(doc.text[s.start : s.end], s.page) for s in doc.segments]
    edges = [
        text
        for i, (text, page) in enumerate(blocks)
        if i in (0, len(blocks) - 1) or page not in (blocks[i - 1][1], blocks[i + 1][1])
    ]
    for text, page in blocks:
        if len(text) <= 150:
            pages[re.sub(r"\d+", "#", text.lower())].add(page or 0)
    repeated = {key for key, found in pages.items() if len(found) >= 3}
    running = sum(1 for text in edges if re.sub(r"\d+", "#", text.lower()) in repeated)
    return running + sum(1 for text, _ in blocks if _DOT_LEADER.search(text))


def measure(name: str, doc: ParsedDocument, chunks: list[Chunk]) -> Measure:
    sections = [chunk.section.split(" > ")[-1] if chunk.section else None for chunk in chunks]
    sensible = sum(1 for s in sections if s and sensible_heading(s))
    starts = sum(1 for chunk in chunks if starts_sentence(doc.text, chunk.char_start))
    sentences = [
        start for seg in doc.segments for start, _ in split_sentences(doc.text, seg.start, seg.end)
    ]
    sentence_starts = sum(1 for start in sentences if starts_sentence(doc.text, start))
    return Measure(
        name,
        doc.title,
        len(chunks),
        sensible / len(chunks),
        sections.count(None) / len(chunks),
        starts / len(chunks),
        sentence_starts / max(len(sentences), 1),
        furniture_lines(doc),
    )


def shared_pdfs() -> list[Path]:
    return sorted(path for folder in FOLDERS for path in (DATA / folder).glob("*.pdf"))


@pytest.mark.slow
def test_shared_pdfs_measured(parser: Parser) -> None:
    paths = shared_pdfs()
    if not paths:
        pytest.skip(f"shared PDFs not found under {DATA}")
    rows = []
    for path in paths:
        parsed = parser.parse(FileBytes.of_path(path), path.name, path.stem)
        rows.append(measure(path.name, parsed.document, parsed.chunks))
    print()
    print(f"{'file':42} {'chunks':>6} {'sect':>5} {'none':>5} {'chunk':>5} {'sent':>5} {'furn':>4}")
    for row in rows:
        print(
            f"{row.name[:42]:42} {row.chunks:6} {row.sensible:5.0%} {row.no_section:5.0%} "
            f"{row.chunk_starts:5.0%} {row.sentence_starts:5.0%} {row.furniture:4}"
            f"  {row.title!r}"
        )


# ---- the shared files, as a user sees them ----------------------------------------------


@pytest.fixture(scope="module")
def more() -> dict[str, ParsedDocument]:
    folder = DATA / "pdfs-more"
    if not folder.is_dir():
        pytest.skip(f"shared PDFs not found at {folder}")
    return {path.name: load_path(path) for path in sorted(folder.glob("*.pdf"))}


def texts(doc: ParsedDocument) -> list[str]:
    return [doc.text[seg.start : seg.end] for seg in doc.segments]


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("R2R__lyft_2021.pdf", "Lyft, Inc."),  # metadata: an SEC accession number
        ("pdfplumber__scotus-transcript-p1.pdf", "IN THE SUPREME COURT OF THE UNITED STATES"),
        ("R2R__graphrag.pdf", "Graph RAG"),  # metadata: "graphrag"
        (
            "pdfplumber__nics-background-checks-2015-11.pdf",
            "NICS Firearm Background Checks November - 2015",  # its two title lines
        ),
        ("pdfplumber__cupertino_usd_4-6-16.pdf", "Board of Education Special Meeting AGENDA"),
        ("pdfplumber__senate-expenditures.pdf", None),  # no heading: the file name is used
    ],
)
def test_junk_metadata_titles_lose_to_the_first_heading(
    more: dict[str, ParsedDocument], name: str, title: str | None
) -> None:
    assert more[name].title == title


@pytest.mark.parametrize(
    ("raw", "title"),
    [
        ("0001759509-22-000016", None),
        ("10811.exe", None),
        ("Microsoft Word - SPECIAL BOARD AGENDA 040616.doc", None),
        ("report_final.pdf", None),
        ("Contents", None),  # a guide's metadata naming its first page
        ("Table of Contents", None),
        ("", None),
        ("  Annual   Report 2021 ", "Annual Report 2021"),
    ],
)
def test_clean_title(raw: str, title: str | None) -> None:
    assert clean_title(raw) == title


def test_slug_titles() -> None:
    assert slug_title("sample_pdf_with_headers") and slug_title("graphrag")
    assert not slug_title("Graph RAG") and not slug_title("NICS")


@pytest.fixture(scope="module")
def boeing() -> ParsedDocument:
    path = DATA / "docs-more" / "financebench__BOEING_2022_10K.pdf"
    if not path.is_file():
        pytest.skip(f"shared PDF not found at {path}")
    return load_path(path)


def test_a_filings_parts_and_items_are_its_sections(boeing: ParsedDocument) -> None:
    """A 10-K sets "PART II" and "Item 7. Management's Discussion …" in the body's type:
    they still head what follows, so a page of Item 7 is labelled Item 7 (not the Item 6
    printed above it on the page before), and the filing's other headings sit under them."""
    doc = boeing
    item7 = (
        "Item 7. Management’s Discussion and Analysis of Financial Condition and Results "
        "of Operations"
    )
    by_page: dict[int, set[tuple[str, ...]]] = {}
    for seg in doc.segments:
        by_page.setdefault(seg.page or 0, set()).add(seg.section[:2])
    for page in (22, 30, 45):
        assert by_page[page] == {("PART II", item7)}
    assert ("PART II", "Item 6. [Reserved]") in by_page[21]
    assert ("PART I", "Item 1A. Risk Factors") in by_page[10]
    assert all(
        section[:2] == ("PART II", "Item 8. Financial Statements and Supplementary Data")
        for section in by_page[100]
    )
    names = {seg.section[-1] for seg in doc.segments if seg.section}
    assert "Page" not in names  # a contents table's column label is no heading


def test_letter_spaced_title_is_joined() -> None:
    path = DATA / "pdfs" / "haystack__react_paper.pdf"
    if not path.is_file():
        pytest.skip(f"shared PDF not found at {path}")
    assert load_path(path).title == "REACT: SYNERGIZING REASONING AND ACTING IN LANGUAGE MODELS"


def test_inferred_sections_look_like_headings(more: dict[str, ParsedDocument]) -> None:
    lyft = more["R2R__lyft_2021.pdf"]
    names = [seg.section[-1] for seg in lyft.segments if seg.section]
    assert all(sensible_heading(name) for name in names)
    assert "OR" not in names and "FORM 10-K" not in names
    assert {"PART I", "Item 1A. Risk Factors", "Results of Operations"} <= set(names)
    agenda = more["pdfplumber__cupertino_usd_4-6-16.pdf"]
    assert ("2. PUBLIC COMMENT – ITEMS ON THE AGENDA",) in {seg.section for seg in agenda.segments}
    assert not any(re.search(r"\d{1,2}, \d{4}|, Suite \d", name) for name in names)


def test_a_label_among_a_tables_rows_is_no_heading(more: dict[str, ParsedDocument]) -> None:
    """A statement's bold labels between its rows ("Liabilities, Redeemable Convertible
    Preferred Stock and Stockholders' Equity", a tax note's "Deferred provision") label
    rows, not the document: a heading there put every page after it, to the next
    heading, under a balance sheet's label."""
    lyft = more["R2R__lyft_2021.pdf"]
    names = {name for seg in lyft.segments for name in seg.section}
    assert not names & {"Deferred provision", "Current provision", "Restricted Balances",
                        "Finance Leases", "Liabilities"}  # fmt: skip
    assert not any(name.startswith("Liabilities, Redeemable") for name in names)
    at = lyft.text.index("\n\nDeferred provision\n\n")
    section = next(seg.section for seg in lyft.segments if seg.start > at)
    assert section[-1] == "13. Income Taxes"  # the note's heading goes on over its table
    assert "Income Taxes" in names and "Stock-Based Compensation" in names


def test_furniture_and_contents_are_not_text(more: dict[str, ParsedDocument]) -> None:
    lyft = more["R2R__lyft_2021.pdf"]
    assert "Table of Contents" not in lyft.text  # a running header and the contents page
    assert not any(block.startswith("Item 1A. | Risk Factors") for block in texts(lyft))
    assert "_____" not in lyft.text  # rules drawn with characters above footnotes, blanks
    assert "\n\n(1) $250.3 million of insurance expense recorded" in lyft.text  # the footnote
    transcript = more["pdfplumber__scotus-transcript-p1.pdf"]
    assert "2 3 4 5 6" not in transcript.text  # the line-number gutter


def test_a_currency_sign_heads_its_own_column(more: dict[str, ParsedDocument]) -> None:
    """Lyft's 10-K sets each column's "$" closer to the amount before it than cells
    stand apart; the sign heads the next column, as it does where it stands apart."""
    rows = [b for b in texts(more["R2R__lyft_2021.pdf"]) if b.startswith("Net loss | $ |")]
    assert "Net loss | $ | (1,009,359) | $ | (1,752,857) | $ | (2,602,241)" in rows
    assert not [row for row in rows if ") $ |" in row]


def test_marks_are_not_text(more: dict[str, ParsedDocument]) -> None:
    """An exhibit's initials boxes ("gn gn") and ornaments ("oOo") are not blocks to quote;
    short blocks of words and numbers stay."""
    blocks = texts(more["R2R__lyft_2021.pdf"])
    assert not [b for b in blocks if b in {"gn", "gn gn", "oOo", "o 0 o"}]
    text = more["R2R__lyft_2021.pdf"].text
    assert 'moral right."\n\n2. Assistance.' in text  # the initials boxes between them gone
    assert "Security Administration.\n\fAppendix A" in text  # and the ornament ("oOo")
    assert "N/A" in blocks and "(1)" in blocks


def test_table_rows_stay_rows(more: dict[str, ParsedDocument]) -> None:
    nics = texts(more["pdfplumber__nics-background-checks-2015-11.pdf"])
    assert any(block.startswith("Alabama | 18,870 | 23,022 | 22,650 |") for block in nics)
    assert all(block.count("Alaska") <= 1 for block in nics)  # one row, not all of them
    rows = {block.split(" | ")[0]: block.split(" | ") for block in nics if " | " in block}
    header = rows["State / Territory"]
    assert len(header) == 25 and header[16:19] == ["Handgun", "Long Gun", "Handgun"]
    # numbers set close together ran into one cell; cut, each under its own column
    assert rows["Texas"][1:7] == ["21,550", "56,941", "51,670", "2,532", "3,048", "0"]
    assert len(rows["Texas"]) == len(rows["Kentucky"]) == len(rows["Alabama"]) == 25
    assert rows["Kentucky"][1] == "264,140"
    # no state fills the two Rentals columns: blank, so Private Sale stays under its header
    assert rows["Alabama"][15:20] == ["0", "-", "-", "13", "14"]
    assert rows["Alabama"][-1] == "71,137"
    assert rows["Totals"][1] == "804,006" and rows["Totals"][16:19] == ["0", "0", "1,067"]
    assert len(rows["Totals"]) == 25 and rows["Totals"][-1] == "2,236,457"
    assert "98 452" in rows["California"]  # thousands spaced, in their own cells: kept
    senate = texts(more["pdfplumber__senate-expenditures.pdf"])  # a page printed sideways
    row = next(block for block in senate if block.startswith("DHAW20190001 |"))
    # the description wraps onto the lines below the row: they join its cell, not the row
    assert row.endswith(
        "| STAFF TRANSPORTATION AIRFARE FOR E JOHNSON KANSAS CITY TO WASHINGTON DC AND RETURN"
        " | 920.68"
    )
    row = next(block for block in senate if block.startswith("DHAW20190004 |"))
    assert "SAINT LOUIS TO WASHINGTON DC | 903.90" in row  # and over two lines


def test_a_label_below_a_row_of_amounts_is_not_its_cell(boeing: ParsedDocument) -> None:
    """The statement of cash flows sets its next label ("Adjustments to reconcile…:")
    under the row above at the labels' left edge: a row ending in an amount does not
    wrap into words, so the label is its own block and the header row stays a row."""
    blocks = texts(boeing)
    assert "Net loss | ($5,053) | ($4,290) | ($11,941)" in blocks
    assert "Years ended December 31, | 2022 | 2021 | 2020" in blocks
    assert "Adjustments to reconcile net loss to net cash used by operating activities:" in blocks


def test_a_label_left_of_a_row_is_not_its_cell(
    boeing: ParsedDocument, more: dict[str, ParsedDocument]
) -> None:
    """A label printed at the labels' edge under a row that starts further right (a
    header of years, a total set in from the labels) is the table's next label, not
    the row's last cell: "2019 Cash flows from operating activities" was one cell."""
    lyft = texts(more["R2R__lyft_2021.pdf"])
    assert "2021 | 2020 | 2019" in lyft and "Cash flows from operating activities" in lyft
    assert not [b for b in lyft if "2019 Cash flows" in b or "(105,702) Cash flows" in b]
    blocks = texts(boeing)
    assert "Net cash provided/(used) by operating activities | 3,512 | (3,416) | (18,410)" in blocks
    assert "Cash flows – investing activities:" in blocks
    assert "Total assets | $137,100 | $138,552" in blocks and "Liabilities and equity" in blocks


def test_a_blank_cell_keeps_the_columns_after_it(
    boeing: ParsedDocument, more: dict[str, ParsedDocument]
) -> None:
    """A statement prints nothing where a year has no amount: the amounts after the
    blank stay under their own years (2021's 3,460 was read as 2022's), and a label or
    a dash run together with the amounts beside it is cut where the columns are."""
    blocks = texts(boeing)
    assert "787 and 777X reach-forward losses | - | 3,460 | 6,493" in blocks
    assert "Customer financing valuation adjustments | 37 | - | 12" in blocks
    lyft = texts(more["R2R__lyft_2021.pdf"])
    assert "Deferred income tax from convertible senior notes | — | (46,324) | —" in lyft
    folder = DATA / "pdfs"
    if not folder.is_dir():
        pytest.skip(f"shared PDFs not found at {folder}")
    alce = load_path(folder / "ALCE__ALCE.pdf").text
    assert "\nSUMM (10-psg) | 70.0 | 43.3 | 68.9 | 61.8\n" in alce


def test_a_bulleted_list_set_as_one_text_object_is_not_a_table(
    more: dict[str, ParsedDocument],
) -> None:
    """PDFium reads some of the 10-K's bulleted lists as one line; their bullets and
    indents are not table cells, and each item is its own block."""
    lyft = texts(more["R2R__lyft_2021.pdf"])
    assert not [block for block in lyft if "• |" in block or "; • " in block]
    item = "• the sufficiency of our cash, cash equivalents and short-term investments to"
    assert sum(block.startswith(item) for block in lyft) == 1


def test_a_table_header_is_found_for_the_rows_below_it(more: dict[str, ParsedDocument]) -> None:
    lyft = more["R2R__lyft_2021.pdf"]
    row = lyft.text.index("Cost of revenue | 1,649,532 | 1,447,516 | 2,176,469")
    label = lyft.text.index("(in thousands)", row - 200)
    header = lyft.text.rindex("2021 | 2020 | 2019", 0, row)
    assert table_headers(lyft.text, [row, label, header, 0]) == [
        "2021 | 2020 | 2019",  # labels printed between header and rows stay in the table
        "2021 | 2020 | 2019",
        None,  # the header row itself
        None,  # not in a table
    ]
    # page 63's next tables print their years again, with more columns: their own header
    revenue = lyft.text.index("Revenue | $ | 3,208,323 | $ | 2,364,681 | $ | 3,615,960 | 36 %")
    assert table_headers(lyft.text, [revenue]) == [
        "2021 | 2020 | 2019 | Change (in thousands, except for percentages)"
    ]
    nics = more["pdfplumber__nics-background-checks-2015-11.pdf"]
    (found,) = table_headers(nics.text, [nics.text.index("Alaska | 209 |")])
    assert found is not None and found.startswith("State / Territory | Permit | Handgun |")
    assert found.endswith("| Totals")  # a long header is kept whole for its rows' answers
    assert cut_row(found, HEADER_CHARS).endswith(" …")  # and cut between cells for context
    assert len(cut_row(found, HEADER_CHARS)) < HEADER_CHARS + 10


def test_a_papers_table_set_with_spaces_has_rows_under_its_header() -> None:
    """A paper's table PDFium sees as one text run per line: its words standing a text
    height apart are its cells where they are numbers, and the header set over its
    columns in two lines is one header row, each column headed by the words over it."""
    folder = DATA / "pdfs"
    if not folder.is_dir():
        pytest.skip(f"shared PDFs not found at {folder}")
    alce = load_path(folder / "ALCE__ALCE.pdf")
    row = alce.text.index("Oasst-33B | 82.9 | 34.8 | 36.2 | 35.5")
    assert table_headers(alce.text, [row]) == [
        "Fluency (MAUVE) | Correct. (EM Rec.) | Citation Rec. | Citation Prec."
    ]
    # the label between header and rows stays text; so does prose whose words stand apart
    assert "\n\nOpen-source (max #tokens=2,048, 3-psg, light inst.)\n\nLLaMA-7B | 69.8" in (
        alce.text
    )
    assert "Tianyu Gao Howard Yen Jiatong Yu Danqi Chen\n" in alce.text
    react = load_path(folder / "haystack__react_paper.pdf")
    row = react.text.index("ReAct | 66.6 | 40.0")  # the words over the labels head them
    assert table_headers(react.text, [row]) == ["Method | Avg Score | Success"]


def test_table_headers_part_tables_and_skip_rows_of_amounts() -> None:
    text = "\n\n".join(
        [
            "Plans and their prices, as of this year.",
            "Plan | Monthly | Yearly",
            "Starter | $10 | $100",
            "Team | $25 | $250",
            "A paragraph after the table, long enough to end it for anyone reading it.",
            "Item | Count",  # a new table
            "Seats | 5",
            "Prices in dollars",  # a label between rows: the same table
            "Storage | 10",
            "Totals",
            "Region | Users | Share | Growth",  # more cells after a label: the next table
            "North | 10 | 5% | 1%",
            "Summary",
            "1,000 | 2,000 | 3,000",  # amounts: no header printed as a row
            "4,000 | 5,000 | 6,000",
            "A paragraph after the table, long enough to end it for anyone reading it.",
            "Debt | Issued | Due",
            "Senior notes | 2025 | 2030",  # a row of years under its label: data
            "Term loan | 2026 | 2031",
            "Revenue",
            "2021 | 2020 | 2019",
            "Net loss | (1,009) | (1,752) | (2,602)",
            "2021 | 2020 | Change (in thousands)",  # years again: the next table's header,
            "Revenue | 3,208 | 2,364 | 36 %",  # though its rows have the cells of the last
            "A paragraph after the table, long enough to end it for anyone reading it.",
            "2019 | 2018",
            "€m | €m",  # its header's units: no row of data, whatever its cells
            "Amounts falling due within one year:",
            "Amounts owed by subsidiaries | 242,976 | 220,871",
        ]
    )
    lines = ("Team |", "Storage |", "North |", "4,000 |", "Term loan |", "Revenue | 3,208",
             "Amounts owed")  # fmt: skip
    rows = [text.index(line) for line in lines]
    assert table_headers(text, rows) == ["Plan | Monthly | Yearly", "Item | Count",
                                         "Region | Users | Share | Growth", None,
                                         "Debt | Issued | Due",
                                         "2021 | 2020 | Change (in thousands)",
                                         "2019 | 2018"]  # fmt: skip


def _text_pdf(lines_per_page: list[list[str]]) -> bytes:
    """A real PDF written with PDFium: each page holds its lines in Helvetica."""
    pdf = pdfium.PdfDocument.new()
    font = pdfium_c.FPDFText_LoadStandardFont(pdf, b"Helvetica")
    for lines in lines_per_page:
        page = pdf.new_page(612, 792)
        for row, text in enumerate(lines):
            obj = pdfium_c.FPDFPageObj_CreateTextObj(pdf, font, 12.0)
            units = list(memoryview((text + "\0").encode("utf-16-le")).cast("H"))
            pdfium_c.FPDFText_SetText(obj, (ctypes.c_ushort * len(units))(*units))
            pdfium_c.FPDFPageObj_Transform(obj, 1, 0, 0, 1, 72, 720 - 16 * row)
            pdfium_c.FPDFPage_InsertObject(page, obj)
        pdfium_c.FPDFPage_GenerateContent(page)
        page.close()
    buffer = io.BytesIO()
    pdf.save(buffer)
    return buffer.getvalue()


def _set(texts: list[str], top: float, size: float = 10.0) -> list[Line]:
    """Lines of ``size`` text from ``top`` down, as PDFium measures them."""
    return [
        Line(text, left=72.0, right=72.0 + 0.52 * size * len(text), top=y, bottom=y - size,
             size=size)
        for row, text in enumerate(texts)
        for y in [top - 1.4 * size * row]
    ]  # fmt: skip


def test_a_paragraph_cut_by_floats_reads_on() -> None:
    """A footnote at the foot of a page, a caption at the head of the next and a figure
    between a column's lines: the paragraph they cut reads on, and each keeps its page."""
    page1 = _set(
        [
            "The committee reviewed every proposal it received during the spring and it",
            "found that most of them asked for the same three changes to the",
        ],
        720,
    )
    page1 += _set(["1 The full list of proposals is printed in the appendix."], 100, size=8.0)
    page2 = _set(["Table 2: Proposals received by month"], 720, size=9.0)
    page2 += _set(
        [
            "bylaws, which it will put to a vote in May. Members who cannot attend may",
            "send a proxy, but the proxy must be signed by the",
        ],
        690,
    )
    page2 += _set(["Figure 3: Attendance at past votes"], 600, size=8.0)
    page2 += _set(["member and filed a week before the vote."], 560)  # fmt: skip
    blocks, title = lay_out([page1, page2], [], None)
    doc = assemble(blocks, kind="pdf", title=title, page_count=2)
    assert texts(doc) == [
        "1 The full list of proposals is printed in the appendix.",
        "The committee reviewed every proposal it received during the spring and it found that"
        " most of them asked for the same three changes to the\fbylaws, which it will put to a"
        " vote in May. Members who cannot attend may send a proxy, but the proxy must be"
        " signed by the member and filed a week before the vote.",
        "Table 2: Proposals received by month",
        "Figure 3: Attendance at past votes",
    ]
    assert [seg.page for seg in doc.segments] == [1, 1, 2, 2]


def test_a_column_that_stops_on_a_comma_reads_on_in_the_next() -> None:
    """A reference cut by the column break after a comma reads on although the next
    column opens with a capital ("…Martin Chadwick," | "Mia Glaese, …"); after a full
    stop the next column's first line opens a block of its own."""

    def column(texts: list[str], top: float, shift: float) -> list[Line]:
        return [replace(line, left=line.left + shift, right=line.right + shift)
                for line in _set(texts, top)]  # fmt: skip

    lines = column(["Nelson Liu and Percy Liang. 2023. Evaluating verifiability."], 140, 0)
    lines += column(["Jacob Menick, Maja Trebacz, Vladimir Mikulik and Martin Chadwick,"], 100, 0)
    lines += column(["Mia Glaese and Geoffrey Irving. 2022. Teaching models to quote."], 720, 260)
    lines += column(["Sewon Min and Luke Zettlemoyer. 2020. Ambiguous questions."], 690, 260)
    blocks, title = lay_out([lines], [], None)
    assert texts(assemble(blocks, kind="pdf", title=title, page_count=1)) == [
        "Nelson Liu and Percy Liang. 2023. Evaluating verifiability.",
        "Jacob Menick, Maja Trebacz, Vladimir Mikulik and Martin Chadwick, Mia Glaese and"
        " Geoffrey Irving. 2022. Teaching models to quote.",
        "Sewon Min and Luke Zettlemoyer. 2020. Ambiguous questions.",
    ]


def test_a_full_line_that_stops_on_a_comma_reads_on_below_a_wider_gap() -> None:
    """In a double-spaced list of a single-spaced document, an item wrapped after a comma
    is one block ("…(dated November 27," | "2020)"); the next item, after a full stop,
    opens its own."""
    body = _set(
        [
            "The executive accepts the offer on the terms set out in this letter and in the",
            "attachments listed below, each of which forms part of the agreement between us",
            "and which together replace every earlier understanding about the same matters,",
            "whether written or oral, made before the date on which this letter is signed by",
            "both of the parties to it, as set out in the paragraph that follows this one.",
        ],
        720,
    )
    wide = "Attachment A: Executive Change in Control and Severance Plan (dated November 27,"
    items = [
        replace(line, top=line.top - 100 - 0.6 * index * line.size,
                bottom=line.bottom - 100 - 0.6 * index * line.size)
        for index, line in enumerate(_set([wide, "2020)", "Attachment B: Confidentiality."], 720))
    ]  # fmt: skip
    blocks, title = lay_out([body + items], [], None)
    assert texts(assemble(blocks, kind="pdf", title=title, page_count=1))[1:] == [
        f"{wide} 2020)",
        "Attachment B: Confidentiality.",
    ]


def test_a_two_column_paper_reads_on_past_its_floats() -> None:
    path = DATA / "pdfs" / "ALCE__ALCE.pdf"
    if not path.is_file():
        pytest.skip(f"shared PDF not found at {path}")
    text = load_path(path).text
    # footnotes at the foot of page 1, a table at the head of page 2
    assert "difficult to reproduce. We argue\fthat the absence of automated evaluation" in text
    # a footnote between a column's lines, after a word that cannot end a sentence
    assert "(prompts in Table 24 and 25).12 Then we replace all passages" in text
    # a table and its caption at the head of the next page
    assert "comparable correctness while demonstrating\fnotable variations in citation" in text
    # a subscript ending a line does not end its paragraph
    assert "fully supports si , ci,j partially supports si , and no c" in text
    # PDFium joins a line-end hyphen to the footnote under the column ("con\ufffe8We use")
    assert "one additional adjustment: considering that users often want" in text
    floats = {"2 https://www.bing.com/new": 1, "Table 1: The three datasets": 2,
              "8We use aliases of short answers": 4, "12We also query ChatGPT": 6,
              "Table 8: Retriever ablation": 9}  # fmt: skip
    assert {key: page_in_text(text, text.index(key)) for key in floats} == floats


def test_lines_alike_but_for_digits_are_kept() -> None:
    """Issue 24: pages whose lines differ only in their numbers are content, not a
    running header; the document must not come out empty."""
    pages = [
        [f"Invoice {n} was paid on day {n + 3}.", f"Total due {n * 7} dollars."] for n in range(10)
    ]
    doc = load_bytes(_text_pdf(pages), "invoices.pdf")
    assert doc.page_count == 10
    assert "Invoice 4 was paid on day 7." in doc.text and "Total due 63 dollars." in doc.text


def test_running_header_is_dropped() -> None:
    words = ["north", "south", "east", "west", "inland", "abroad"]
    pages = [
        [
            f"ACME quarterly report, page {n}",
            *(f"Sales {w} grew by {n + i} percent in {words[n]}." for i, w in enumerate(words)),
        ]
        for n, _ in enumerate(words)
    ]
    doc = load_bytes(_text_pdf(pages), "report.pdf")
    assert "ACME" not in doc.text and "Sales east grew by 6 percent in inland." in doc.text


def test_a_chapters_running_head_is_dropped_and_a_statements_unit_is_kept() -> None:
    """A manual heads each page with its chapter's title, "How to use bzip2" over that
    chapter's pages alone (fewer than half the document's): dropped, so a sentence going
    on over the page does not read "…in the region ofHow to use bzip2". A line repeated
    under the first of each of a run of pages, "(in thousands)" under each statement's
    title, is the statement's unit, and stays."""
    chapters = ["Introduction"] * 3 + ["How to use bzip2"] * 5 + ["Programming with it"] * 5
    titles = ["Balance sheets", "Statements of operations", "Statements of cash flows"]
    nouns = ["archive", "block", "buffer", "file", "header", "index", "library", "memory"]
    nouns += ["option", "stream", "table", "trailer", "window"]
    verbs = ["adds", "drops", "keeps", "reads", "sends", "skips", "takes", "writes"]
    pages = [
        [chapter]
        + ([titles[n - 9], "(in thousands)"] if 9 <= n < 12 else [])
        + [f"The {nouns[n]} {verb} {i + n} bytes." for i, verb in enumerate(verbs)]
        for n, chapter in enumerate(chapters)
    ]
    text = load_bytes(_text_pdf(pages), "manual.pdf").text
    assert "How to use bzip2" not in text and "Programming with it" not in text
    assert text.count("(in thousands)") == 3 and "Statements of operations" in text
    assert "The index writes 12 bytes." in text


def test_a_slide_decks_navigation_is_dropped() -> None:
    """A deck exported to PDF prints its sections down the side of every slide ("About",
    "Installation", "Testing"), read before the slide's own lines and past the first
    three, where no running header sits: dropped, so the title slide reads "Dec 2016"
    without them. The section over a run of slides ("Configuration . . .", in the bar at
    their top) and the slide's own title under it, repeated on the pages that uncover
    its bullets, stay: they are the slide's, read once the navigation is gone."""
    sections = ["About", "Installation", "Configuration", "Testing", "Authors"]
    titles = ["Impressive Display HowTo"] + ["Configure the display"] * 3
    titles += [f"Testing step {n}" for n in range(4)]
    nouns = ["size", "font", "colour", "clock", "timer", "screen", "folder", "cache", "host"]
    nouns += ["port", "user", "delay", "font size", "background", "refresh rate"]
    things = [nouns[n : n + 6] for n in range(len(titles))]
    pages = []
    for number, title in enumerate(titles):
        body = [f"Step {number} sets the {thing} of the display." for thing in things[number]]
        lines = [Line(name, left=10, top=700 - 20 * i, size=8) for i, name in enumerate(sections)]
        if number:
            bar = "Configuration . . ." if number < 4 else "Testing . . ."
            lines += [Line(bar, left=120, top=760, size=8)]
        lines += [Line(title, left=120, top=700, size=14)]
        lines += [Line(text, left=120, top=650 - 30 * i, size=10) for i, text in enumerate(body)]
        pages.append(lines)
    pages[0].append(Line("Dec 2016", left=120, top=400, size=10))
    drop_furniture(pages)
    kept = [line.text for lines in pages for line in lines]
    assert not set(sections) & set(kept)
    assert kept.count("Configuration . . .") == 3
    assert kept.count("Configure the display") == 3 and "Dec 2016" in kept
    assert "Step 5 sets the host of the display." in kept


def test_a_short_decks_bullets_uncovered_page_by_page_are_kept() -> None:
    """A six-page deck uncovers one slide's bullets over three pages: the bullets are
    printed word for word at one place on half the pages, but they are the slide's text,
    not navigation (that is on nearly every page). A running header is dropped as before,
    however many such lines there are."""
    bullets = ["Revenue grew 12% to 4.1 billion", "Margins held at 31%", "Cash rose again"]
    topics = ["sales", "staff", "plants", "costs", "debt", "outlook"]
    pages = []
    for number, topic in enumerate(topics):
        said = [
            f"The {topic} section, paragraph {n}, says what changed in {topic}." for n in "abcdefgh"
        ]
        shown = said[:4] + (bullets[: number + 1] if number < 3 else []) + said[4:]
        lines = [Line("ACME Corp Annual Review", left=72, top=760, size=9)]
        lines += [Line(text, left=72, top=700 - 30 * i, size=12) for i, text in enumerate(shown)]
        pages.append(lines)
    drop_furniture(pages)
    kept = [line.text for lines in pages for line in lines]
    assert "ACME Corp Annual Review" not in kept
    assert kept.count("Revenue grew 12% to 4.1 billion") == 3


def test_a_table_row_at_the_head_of_every_page_is_kept() -> None:
    """A month's table on each page, its first row at the same height on every page: the
    row's numbers change from page to page, so it is the table's, not a running header
    (each month's day 1 was dropped)."""
    months = ["JAN", "FEB", "MAR", "APR"]
    rows = {m: [[day, 60 + 7 * i + day, 90 - 5 * i + day] for day in (1, 2, 3)]
            for i, m in enumerate(months)}  # fmt: skip
    gap = " " * 8
    pages = [
        [f"Deaths in {m} by day", gap.join([m, "2016", "2017"])]
        + [gap.join(map(str, row)) for row in rows[m]]
        for m in months
    ]
    text = load_bytes(_text_pdf(pages), "deaths.pdf").text
    for m in months:
        assert " | ".join(map(str, rows[m][0])) in text  # day 1: "1 | 61 | 91"


def test_a_charts_axes_are_not_text() -> None:
    """A chart's ticks read as text: its values axis a number a line, the same step
    apart, and its days axis one row of numbers. Neither is quoted or read; a column of
    values a line each, not evenly apart, is the table's."""
    page = ["Deaths by day in September, and the chart of them below."]
    page += [str(tick) for tick in range(20, 160, 20)]  # 20 … 140
    page += [(" " * 6).join(str(day) for day in range(1, 13))]
    page += ["Values recorded by hand:", "107", "89", "115", "92", "121", "End of the record."]
    text = load_bytes(_text_pdf([page]), "chart.pdf").text
    assert "Deaths by day in September" in text
    assert "\n40\n" not in f"\n{text}\n" and "140" not in text
    assert "1 | 2 | 3" not in text
    assert "107 89 115 92 121" in text


def test_page_of_every_offset() -> None:
    path = DATA / "pdfs" / "ALCE__ALCE.pdf"
    if not path.is_file():
        pytest.skip(f"shared PDF not found at {path}")
    doc = load_path(path)
    for seg in doc.segments:  # a paragraph going on over a page break is one segment
        assert page_in_text(doc.text, seg.start) == seg.page
        turns = doc.text.count(PAGE_BREAK, seg.start, seg.end)
        assert page_in_text(doc.text, seg.end - 1) == seg.page + turns  # type: ignore[operator]

    def words(texts: Sequence[str]) -> list[int]:
        return [len(text.split()) for text in texts]

    def offsets(text: str) -> list[tuple[int, int]]:
        return [m.span() for m in re.finditer(r"\S+", text)]

    chunks = Chunker(words, offsets, max_tokens=120, min_tokens=40).chunk("alce", doc)
    spanning = [c for c in chunks if (r := page_range(c)) is not None and r[1] > r[0]]
    assert spanning  # chunks run over page breaks; each offset still knows its page
    for chunk in chunks:  # where a block starts or ends inside a chunk, the chunk knows its page
        for seg in doc.segments:
            for offset in (seg.start, seg.end - 1):
                if chunk.char_start <= offset < chunk.char_end:
                    assert page_at(chunk, offset) == page_in_text(doc.text, offset)
    assert page_range(chunks[0]) == (1, 1)


def test_pages_are_none_without_pages() -> None:
    doc = load_bytes(b"# Title\n\nOne paragraph.\n\nAnother one.", "notes.md")
    chunk = Chunker(lambda t: [len(x.split()) for x in t], lambda t: [], 50).chunk("n", doc)[0]
    assert page_at(chunk, chunk.char_start) is None and page_range(chunk) is None


@pytest.fixture(scope="module")
def papers() -> dict[str, ParsedDocument]:
    names = ("ALCE__ALCE.pdf", "haystack__react_paper.pdf")
    paths = [DATA / "pdfs" / name for name in names]
    if not all(path.is_file() for path in paths):
        pytest.skip(f"shared PDFs not found under {DATA / 'pdfs'}")
    return {path.name: load_path(path) for path in paths}


def test_hanging_indents_continue_their_paragraph(
    more: dict[str, ParsedDocument], papers: dict[str, ParsedDocument]
) -> None:
    """A line indented under one that stops unfinished goes on with it: a footnote's, a
    reference's or an exhibit's wrapped lines are one block, not a new paragraph each."""
    lyft = more["R2R__lyft_2021.pdf"].text
    assert "earlier periods. $204.1\n\nmillion" not in lyft
    assert "$204.1 million of insurance expense recorded during the year ended" in lyft
    exhibit = "10.18 Sublease between the registrant and Dropbox, Inc., dated as of February 23,"
    assert exhibit + " 2016." in lyft
    react = papers["haystack__react_paper.pdf"].text
    assert "Dorsa Sadigh. Lila: Language-informed latent actions. In CoRL" in react


def test_a_row_label_wrapped_over_its_cells_stays_in_the_row(
    more: dict[str, ParsedDocument],
) -> None:
    lyft = texts(more["R2R__lyft_2021.pdf"])
    row = "Issuance of common stock upon settlement of restricted stock units | — — | 19,762 |"
    assert any(block.startswith(row) for block in lyft)
    assert "Issuance of common stock upon settlement of" not in lyft  # no half label


def test_a_footer_printed_under_the_text_is_furniture(more: dict[str, ParsedDocument]) -> None:
    """An exhibit's document id under each of its pages (at varying heights, above its page
    number) goes, with the page number: the paragraphs it cut run on over the page."""
    lyft = more["R2R__lyft_2021.pdf"]
    assert "4857-0921-6260.2" not in lyft.text
    turn = "If disclosure is required, the" + PAGE_BREAK + "Consultant will give the Company"
    assert turn in lyft.text


def test_a_paragraph_stopping_on_a_word_goes_on_over_the_page(
    more: dict[str, ParsedDocument], papers: dict[str, ParsedDocument]
) -> None:
    lyft = more["R2R__lyft_2021.pdf"].text
    assert "Confidential Information or other" + PAGE_BREAK + "Company property" in lyft
    # a figure's caption at the top of the next page is not the rest of the paragraph
    react = papers["haystack__react_paper.pdf"].text
    assert "feedback thoughts within" + PAGE_BREAK + "Figure 4" not in react


def test_bold_words_running_into_a_paragraph_are_not_a_heading(
    papers: dict[str, ParsedDocument],
) -> None:
    alce = papers["ALCE__ALCE.pdf"]
    assert "\n\nInstructGPT generates coherent and faithful sub-claims. To ensure" in alce.text
    assert not any("faithful" in (seg.section or "") for seg in alce.segments)


def _tex_pdf(pages: list[list[tuple[float, float, bytes]]]) -> bytes:
    """A real PDF set the way dvips sets TeX: a Type3 font whose glyphs are named
    /a0 … /a255 (no Unicode map), its codes in the T1 encoding: ASCII as ASCII, "fi"
    as 0x1C. Each line is (size, baseline, codes); every glyph is a filled box."""
    names = b" ".join(b"/a%d" % code for code in range(256))
    procs = b" ".join(b"/a%d 4 0 R" % code for code in range(256))
    glyph = b"500 0 0 0 450 700 d1 0 0 450 700 re f"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>"
        % (b" ".join(b"%d 0 R" % (5 + 2 * n) for n in range(len(pages))), len(pages)),
        b"<< /Type /Font /Subtype /Type3 /FontMatrix [0.001 0 0 0.001 0 0] "
        b"/FontBBox [0 0 500 700] /FirstChar 0 /LastChar 255 /Widths [%s] "
        b"/Encoding << /Type /Encoding /Differences [0 %s] >> /CharProcs << %s >> "
        b"/Resources << >> >>" % (b"500 " * 256, names, procs),
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(glyph), glyph),
    ]
    for number, lines in enumerate(pages):
        content = b"".join(
            b"BT /F1 %.2f Tf 72 %.1f Td <%s> Tj ET\n" % (size, y, codes.hex().encode())
            for size, y, codes in lines
        )
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
            b"/Resources << /Font << /F1 3 0 R >> >> >>" % (6 + 2 * number)
        )
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content))
    return pdf_file(objects)


def test_a_tex_font_without_a_unicode_map_is_read_with_its_ligatures() -> None:
    """A report typeset by TeX in Type3 fonts carries no Unicode map: its text was
    dropped as unreadable. Its codes read as letters, "\\x1cgure" as "figure"; a
    figure's labels are not headings though set larger than the body, while "2.1
    Examples", set only a little larger, is one."""
    body = b"Subjects move from one state to the next as the \x1cgure shows, and each arrow"
    end = b"is a possible transition between two of the states of the model."
    page1 = [(16.0, 740, b"Competing risks"), (13.0, 700, b"1 Multi-state models")]
    page1 += [(10.0, 680 - 13 * n, body) for n in range(6)] + [(10.0, 602, end)]
    page1 += [(13.0, 560, b"2 Multi-state curves")]
    page1 += [(10.0, 540 - 13 * n, body) for n in range(6)] + [(10.0, 462, end)]
    page2 = [(11.4, 740, b"2.1 Examples")]
    page2 += [(10.0, 720 - 13 * n, body) for n in range(6)] + [(10.0, 642, end)]
    page2 += [(12.0, 560, b"Years after diagnosis"), (9.0, 530, b"Figure 2: Survival by sex.")]
    page2 += [(10.0, 500 - 13 * n, body) for n in range(3)] + [(10.0, 461, end)]
    page2 += [(13.0, 420, b"3 Rate models")]
    page2 += [(10.0, 400 - 13 * n, body) for n in range(4)] + [(10.0, 348, end)]
    doc = load_bytes(_tex_pdf([page1, page2]), "compete.pdf")
    assert "as the figure shows" in doc.text and "\x1c" not in doc.text
    assert doc.text.count("possible transition") == 5
    sections = {seg.section for seg in doc.segments}
    assert ("2 Multi-state curves", "2.1 Examples") in sections
    assert ("3 Rate models",) in sections
    assert all("Years after diagnosis" not in part for section in sections for part in section)
    labelled = next(seg for seg in doc.segments if "Years after" in doc.text[seg.start : seg.end])
    assert labelled.section == ("2 Multi-state curves", "2.1 Examples")
    # the older OT1 encoding sets "fi" as "\x0c", a page break if read as it is
    ot1 = [(10.0, 700 - 13 * n, body.replace(b"\x1c", b"\x0c")) for n in range(8)]
    doc = load_bytes(_tex_pdf([ot1]), "compete-ot1.pdf")
    assert doc.text.count("as the figure shows") == 8 and "\f" not in doc.text


def test_a_heading_wrapped_in_its_large_type_heads_the_subsections_below() -> None:
    """A numbered heading set large and wrapped mid-phrase ("3.7. Using the library in a
    stdio-free" | "environment"), its first subheading close below in a smaller type: the
    two lines are one heading, and the subsections sit under it, not under 3.6."""
    body = [
        "The zlib compatibility functions are provided for the convenience of those who",
        "port code from zlib; they are neither complete nor documented here at length.",
    ]
    lines = _set(["3.6. zlib compatibility functions"], 740, size=19.4)
    lines += _set(body, 700, size=9.0)
    lines += _set(["3.7. Using the library in a stdio-free", "environment"], 640, size=19.4)
    lines += _set(["3.7.1. Getting rid of stdio"], 588, size=16.2)
    lines += _set(["In a deeply embedded application you might want to use just the"], 560, 9.0)
    lines += _set(["memory-to-memory functions, compiled without the standard I/O."], 547.4, 9.0)
    lines = [replace(line, bold=line.size > 10) for line in lines]
    blocks, title = lay_out([lines], [], None)
    doc = assemble(blocks, kind="pdf", title=title, page_count=1)
    sections = {doc.text[seg.start : seg.end]: seg.section for seg in doc.segments}
    assert sections["3.7. Using the library in a stdio-free environment"] == (
        "3.7. Using the library in a stdio-free environment",
    )
    embedded = next(text for text in sections if text.startswith("In a deeply embedded"))
    assert sections[embedded] == (
        "3.7. Using the library in a stdio-free environment",
        "3.7.1. Getting rid of stdio",
    )


def test_a_heading_naming_a_work_by_its_year_is_a_heading() -> None:
    """A paper's "5.2. Petersen (2009)", the data set it illustrates named by its
    author's work: a heading, the text below under it; a line of years is none."""
    body = [
        "Petersen (2009) provides simulated benchmark data for assessing clustered standard",
        "error estimates in the linear regression model, for 500 firms over 10 years.",
    ]
    lines = _set(["5. Illustrations"], 740, size=14.0)
    lines += _set(body, 712, size=10.0)
    lines += _set(["5.2. Petersen (2009)"], 670, size=12.0)
    lines += _set(body, 645, size=10.0)
    lines += _set(["2019 2018 2017"], 600, size=12.0)
    lines += _set(body, 575, size=10.0)
    lines = [replace(line, bold=line.size > 10) for line in lines]
    blocks, title = lay_out([lines], [], None)
    doc = assemble(blocks, kind="pdf", title=title, page_count=1)
    sections = [seg.section for seg in doc.segments]
    assert sections[-1] == ("5. Illustrations", "5.2. Petersen (2009)")
    assert not any("2019" in part for section in sections for part in section)
    # a reference line is no heading for its year: its comma and digits say so
    assert _heading_text("5.2. Petersen (2009)") and not _heading_text("Smith, J. (2009)")


def test_a_slides_bullets_and_code_are_no_headings() -> None:
    """A slide deck sets its bullets and its code larger than its notes: a line opening
    with a bullet ("◮", a dingbat read as "!") or reading as code ("PROG = hello",
    "MKC_REQD= 0.19.0", ".include <mkc.prog.mk>", "#!/bin/sh", "CC -G -h libfoo.so.1", a
    path) is text under the slide's heading, not a heading of its own, so it can be
    quoted; the slide's title still heads it."""
    lines = _set(["Design principles and goals"], 740, size=14.0)
    lines += _set(["◮ Written in bmake, portable version of NetBSD make(1)"], 700, size=12.0)
    lines += _set(["! Dynamically generated methods for class properties"], 680, size=12.0)
    lines += _set(["but bmake+sh is good enough for this task and others"], 660, size=9.0)
    lines += _set(["Example 2: Makefile"], 620, size=14.0)
    code = [
        "PROG = hello",
        "MKC_REQD= 0.19.0",
        "CPPFLAGS += -I${PATH.common}/include",
        ".include <mkc.prog.mk>",
        "#!/bin/sh",
        "CC -G -h libfoobar.so.1",
        "/usr/local/lib/libfoobar.1.0.dylib",
    ]
    for n, text in enumerate(code):
        lines += _set([text], 580 - 40 * n, size=12.0)
        lines += _set(["and the rest of what the slide says in its notes"], 560 - 40 * n, 9.0)
    cover = _set(["MK-CONFIGURE, an alternative to GNU Autotools"], 500, size=20.0)
    blocks, title = lay_out([cover, lines], [], None)
    doc = assemble(blocks, kind="pdf", title=title, page_count=2)
    sections = {tuple(seg.section) for seg in doc.segments if seg.page == 2}
    assert sections == {("Design principles and goals",), ("Example 2: Makefile",)}
    for text in (*code, "◮ Written in bmake", "! Dynamically generated methods", "#include <x.h>"):
        assert not _heading_text(text), text
    # headings that name an option, a setting or a directory are still headings
    for text in (
        "Example 2: Makefile",
        "2.3 The --prefix option",
        "4.1 Setting CFLAGS = -O2",
        "Results for k = 5",
        "Using git --amend",
        "The -O2 flag",
        "/bin : Essential user command binaries",
        "#MeToo and the press",
    ):
        assert _heading_text(text), text
