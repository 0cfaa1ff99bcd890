"""Loaders: real PDFs, generated DOCX/HTML/Markdown/text, and hostile input."""

from __future__ import annotations

import io
import itertools
import os
import re
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import docx
import pypdf
import pytest

from footnoted import loaders
from footnoted.errors import DocumentError, NotFound, TooLarge, UnsupportedType
from footnoted.loaders import KINDS, detect_kind, htmltable, load_bytes, load_path, media_type
from footnoted.loaders.columns import CARRY_PARAGRAPHS, ColumnTables
from footnoted.loaders.kinds import hinted
from footnoted.loaders.load import LOADERS
from footnoted.models import ParsedDocument
from footnoted.pages import page_in_text

PDF_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "pdfs"
PDF_NAMES = [
    "ALCE__ALCE.pdf",
    "haystack__react_paper.pdf",
    "haystack__sample_pdf_1.pdf",
    "haystack__sample_pdf_2.pdf",
    "pdfplumber__issue-33-lorem-ipsum.pdf",
    "pypdf__pdflatex-outline.pdf",
]


def blocks(doc: ParsedDocument) -> list[str]:
    return [doc.text[seg.start : seg.end] for seg in doc.segments]


def sections(doc: ParsedDocument) -> set[tuple[str, ...]]:
    return {seg.section for seg in doc.segments}


def section_of(doc: ParsedDocument, block: str) -> tuple[str, ...]:
    return next(seg.section for seg in doc.segments if doc.text[seg.start : seg.end] == block)


def assert_well_formed(doc: ParsedDocument) -> None:
    """The output contract every loader must keep."""
    assert doc.segments
    texts = blocks(doc)
    # ordered, non-overlapping, covering every block; a page break ("\n\f") between pages
    separators = [doc.text[a.end : b.start] for a, b in itertools.pairwise(doc.segments)]
    assert all(re.fullmatch(r"\n\n|\n\f+", sep) for sep in separators)
    assert doc.text[: doc.segments[0].start].strip("\f") == ""
    assert doc.segments[-1].end == len(doc.text)
    for text in texts:  # a paragraph going on over a page break holds a bare "\f" there
        assert text and text == text.strip()
        assert "\n" not in text and not re.search(r"\s\f|\f\s", text)
        assert " ".join(text.split()) == " ".join(text.replace("\f", " ").split())
    for seg in doc.segments:
        assert all(isinstance(title, str) and title for title in seg.section)
        if doc.kind == "pdf":
            assert doc.page_count is not None and seg.page is not None
            assert 1 <= seg.page <= doc.page_count
        else:
            assert seg.page is None
    if doc.kind == "pdf":
        pages = [seg.page or 0 for seg in doc.segments]
        assert pages == sorted(pages)


# ---- real PDFs ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pdfs() -> dict[str, ParsedDocument]:
    if not PDF_DIR.is_dir():
        pytest.skip(f"sample PDFs not found at {PDF_DIR} (the shared data folder is missing)")
    return {name: load_path(PDF_DIR / name) for name in PDF_NAMES}


@pytest.mark.parametrize("name", PDF_NAMES)
def test_pdf_output_contract(pdfs: dict[str, ParsedDocument], name: str) -> None:
    doc = pdfs[name]
    assert doc.kind == "pdf"
    assert_well_formed(doc)


def test_pdf_outline_gives_sections(pdfs: dict[str, ParsedDocument]) -> None:
    doc = pdfs["pypdf__pdflatex-outline.pdf"]
    assert doc.page_count == 4
    assert {("Foo",), ("Bar",), ("Baz",)} <= sections(doc)
    assert section_of(doc, "1 Foo") == ("Foo",)  # the heading's own segment ends with itself
    assert section_of(doc, "5 Bar") == ("Bar",)
    assert "Contents" not in doc.text  # the table of contents is not text to quote
    assert doc.segments[0].page == 2 and doc.text.startswith("\f1 Foo")
    assert all(seg.section for seg in doc.segments if seg.page and seg.page > 1)


def test_pdf_nested_outline(pdfs: dict[str, ParsedDocument]) -> None:
    doc = pdfs["haystack__react_paper.pdf"]
    setup = ("3 Knowledge-Intensive Reasoning Tasks", "3.1 Setup")
    assert setup in sections(doc)
    assert section_of(doc, "3.1 SETUP") == setup
    assert ("B Trajectories", "B.2 ALFWorld Trajectories", "B.2.1 ReAct trajectory") in sections(
        doc
    )
    assert "Published as a conference paper" not in doc.text  # running header dropped
    assert "$FW" not in doc.text  # glyphs without a Unicode map are dropped, not garbled in


def test_pdf_without_outline_detects_title_and_headings(pdfs: dict[str, ParsedDocument]) -> None:
    doc = pdfs["ALCE__ALCE.pdf"]
    assert doc.title == "Enabling Large Language Models to Generate Text with Citations"
    assert doc.page_count == 23
    found = sections(doc)
    assert ("1 Introduction",) in found
    assert ("3 Automatic Evaluation", "3.1 Fluency") in found
    assert section_of(doc, "3.1 Fluency") == ("3 Automatic Evaluation", "3.1 Fluency")
    first_intro = next(seg for seg in doc.segments if seg.section == ("1 Introduction",))
    assert first_intro.page == 1


def test_pdf_line_joins_and_hyphenation(pdfs: dict[str, ParsedDocument]) -> None:
    text = pdfs["ALCE__ALCE.pdf"].text
    assert "prone to hallucination. In this work" in text
    assert "improving their factual correctness" in text
    assert "hal-lucination" not in text and "\ufffe" not in text
    assert "state-of-the-art" in text  # a real compound keeps its hyphens


def test_pdf_metadata_title_and_pages(pdfs: dict[str, ParsedDocument]) -> None:
    # a metadata title that is a file name loses to the first page's largest text
    assert pdfs["haystack__sample_pdf_1.pdf"].title == "A sample PDF file"
    assert pdfs["haystack__sample_pdf_2.pdf"].title == "First Page"
    assert "This is a header" not in pdfs["haystack__sample_pdf_2.pdf"].text
    lorem = pdfs["pdfplumber__issue-33-lorem-ipsum.pdf"]
    assert lorem.page_count == 2
    assert {seg.page for seg in lorem.segments} == {1, 2}
    assert (
        "Quiquia adipisci numquam tempora dolore magnam.",
        "Etincidunt consectetur porro velit sed quaerat.",
    ) in sections(lorem)
    assert pdfs["pypdf__pdflatex-outline.pdf"].title is None  # "Contents" is not a title


@pytest.mark.parametrize(
    ("limit", "value", "words"),
    [("MAX_PDF_PAGES", 3, "has 4 pages; the limit is 3"), ("MAX_TEXT_CHARS", 5000, "more than")],
)
def test_pdf_bomb_limits(
    monkeypatch: pytest.MonkeyPatch, limit: str, value: int, words: str
) -> None:
    path = PDF_DIR / "pypdf__pdflatex-outline.pdf"
    if not path.is_file():
        pytest.skip(f"sample PDF not found at {path}")
    monkeypatch.setattr(loaders, limit, value)
    with pytest.raises(DocumentError, match=words):
        load_path(path)


def test_pdf_parsing_is_thread_safe() -> None:
    paths = [PDF_DIR / "haystack__sample_pdf_1.pdf", PDF_DIR / "haystack__sample_pdf_2.pdf"]
    if not all(path.is_file() for path in paths):
        pytest.skip(f"sample PDFs not found in {PDF_DIR}")
    expected = [load_path(path).text for path in paths]
    with ThreadPoolExecutor(max_workers=4) as pool:
        texts = list(pool.map(lambda path: load_path(path).text, paths * 4))
    assert texts == expected * 4


def test_pdf_paragraph_over_a_page_break_is_one_block(pdfs: dict[str, ParsedDocument]) -> None:
    doc = pdfs["pypdf__pdflatex-outline.pdf"]
    by_page = list(zip(blocks(doc), doc.segments, strict=True))
    # one paragraph runs from page 2 onto page 3: one segment, its page turning at "\f"
    joined = [seg for text, seg in by_page if "how the letters are\fwritten and an" in text]
    assert len(joined) == 1 and joined[0].page == 2
    assert page_in_text(doc.text, doc.text.index("written and an", joined[0].start)) == 3


# ---- DOCX -----------------------------------------------------------------------------


def make_docx() -> bytes:
    document = docx.Document()
    document.core_properties.title = "Billing handbook"
    document.add_paragraph("Billing handbook", style="Title")
    document.add_heading("Refunds", level=1)
    document.add_paragraph("Refunds are paid   within 30 days.")
    document.add_heading("Annual plans", level=2)
    document.add_paragraph("Annual plans are refunded pro rata.")
    table = document.add_table(rows=3, cols=3)
    for cell, text in zip(table.rows[0].cells, ["Plan", "Price", "Term"], strict=True):
        cell.text = text
    table.cell(1, 0).text = "Basic"
    table.cell(1, 1).merge(table.cell(1, 2)).text = "$5 a month"
    table.cell(2, 0).text = "Trial"  # no price: its term stays under "Term"
    table.cell(2, 2).text = "14 days"
    document.add_heading("Contact", level=1)
    document.add_paragraph("Write to billing@example.com.")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def test_docx_sections_and_tables(tmp_path: Path) -> None:
    path = tmp_path / "handbook.docx"
    path.write_bytes(make_docx())
    doc = load_path(path)
    assert_well_formed(doc)
    assert (doc.kind, doc.title) == ("docx", "Billing handbook")
    assert blocks(doc) == [
        "Billing handbook",
        "Refunds",
        "Refunds are paid within 30 days.",
        "Annual plans",
        "Annual plans are refunded pro rata.",
        "Plan | Price | Term",
        "Basic | $5 a month",
        "Trial | - | 14 days",
        "Contact",
        "Write to billing@example.com.",
    ]
    assert section_of(doc, "Refunds") == ("Refunds",)
    assert section_of(doc, "Annual plans are refunded pro rata.") == ("Refunds", "Annual plans")
    assert section_of(doc, "Basic | $5 a month") == ("Refunds", "Annual plans")
    assert section_of(doc, "Write to billing@example.com.") == ("Contact",)


def test_docx_without_heading_styles_has_the_headings_it_shows() -> None:
    """A Word document that styles no heading ("Normal" throughout) shows its headings as
    short bold lines set larger than its prose: they give the section path, by size. A bold
    label at the prose's size, a bold sentence and a code listing's small lines stay text."""
    document = docx.Document()

    def add(text: str, size: float, *, bold: bool = False) -> None:
        run = document.add_paragraph().add_run(text)
        run.bold, run.font.size = bold, docx.shared.Pt(size)

    add("Spectrum page", 22, bold=True)
    add("The page shows a spectrum and its masses to the user.", 12)
    add("Input Block:", 20, bold=True)
    add("The mass error has a default threshold of 0.1 Da.", 12)
    add("Code Flow:", 12, bold=True)
    for line in ("onLoadOfHTML() (index.js)", "setMassErrorValue() (fixed.js)", "submit()"):
        add(line, 9)
    add("Any change to the order of execution should be tested.", 12, bold=True)
    add("Spectrum Graph:", 14, bold=True)
    add("The graph is drawn with D3 when the user clicks submit.", 12)
    buffer = io.BytesIO()
    document.save(buffer)
    doc = load_bytes(buffer.getvalue(), "spectrum.docx")
    assert section_of(doc, "The page shows a spectrum and its masses to the user.") == (
        "Spectrum page",
    )
    error = ("Spectrum page", "Input Block")
    assert section_of(doc, "The mass error has a default threshold of 0.1 Da.") == error
    assert section_of(doc, "setMassErrorValue() (fixed.js)") == error
    assert section_of(doc, "Any change to the order of execution should be tested.") == error
    graph = section_of(doc, "The graph is drawn with D3 when the user clicks submit.")
    assert graph == ("Spectrum page", "Input Block", "Spectrum Graph")


# ---- HTML, Markdown, text ---------------------------------------------------------------

HTML = b"""<!DOCTYPE html>
<html><head><title>Refund policy &amp; terms</title>
<style>p { color: red }</style><script>var leak = "<p>script text</p>";</script></head>
<body><nav><a href="/">Home</a> <a href="/help">Help</a></nav>
<header><p>Site banner</p></header>
<main>
  <h1>Refunds</h1>
  <p>We refund <b>within</b> 30&nbsp;days.<br>No questions asked.</p>
  <div>Loose text in a div <span>with inline</span><p>and a paragraph</p></div>
  <h2>Annual plans</h2>
  <ul><li>Pro rata</li><li>Within <a href="https://example.com/x">one year</a></li></ul>
  <table><tr><th>Plan</th><th>Refund</th></tr><tr><td>Annual</td><td>Pro rata</td></tr></table>
  <p hidden>Hidden text</p><noscript>Enable JavaScript</noscript>
  <aside>Related links</aside><form><label>Email</label></form>
  <svg><text>chart label</text></svg><template><p>template</p></template>
  <h1>Contact</h1><p>Mail us.</p>
</main>
<footer>Copyright</footer></body></html>"""


def test_html_drops_chrome_and_keeps_headings() -> None:
    doc = load_bytes(HTML, "policy.html")
    assert_well_formed(doc)
    assert (doc.kind, doc.title) == ("html", "Refund policy & terms")
    assert blocks(doc) == [
        "Refunds",
        "We refund within 30 days. No questions asked.",
        "Loose text in a div with inline",
        "and a paragraph",
        "Annual plans",
        "Pro rata",
        "Within one year",
        "Plan | Refund",
        "Annual | Pro rata",
        "Contact",
        "Mail us.",
    ]
    assert section_of(doc, "Within one year") == ("Refunds", "Annual plans")
    assert section_of(doc, "Mail us.") == ("Contact",)


SEC_FILING = """<html><body>
<table><tr><td>Item 6.</td><td>[Reserved]</td><td>32</td></tr>
<tr><td>Item 7.</td><td>Management's Discussion and Analysis</td><td>33</td></tr></table>
<div><span style="font-family:Arial;font-weight:700">PART II</span></div>
<div><span style="font-weight:700">Item 6. [Reserved]</span></div>
<div><span style="font-weight:bold">Item 7. Management&#8217;s Discussion and Analysis of Financial
Condition and Results of Operations</span></div>
<div><span style="font-weight:700">Consolidated Results of Operations</span></div>
<div><span style="font-weight:400">Revenue was $33,386 million in 2022, up from $28,813
million in 2021, <b>primarily</b> due to higher commercial deliveries.</span></div>
<p><b>We expect the supply chain to remain constrained for all of 2023, and our plans
assume it: deliveries are paced by the slowest supplier and by the inspections.</b></p>
<div><span style="font-weight:700">Item 7A. Quantitative and Qualitative Disclosures About
Market Risk</span></div>
<p>Interest rate risk arises from our fixed-rate debt.</p>
</body></html>"""


def test_html_without_heading_elements_takes_its_bold_paragraphs_as_headings() -> None:
    """An SEC filing has no <h1>..<h6>: its part, item and subject headings are short
    paragraphs set in bold, and they give the section path (Item 7, not Item 6)."""
    doc = load_bytes(SEC_FILING.encode(), "10-k.htm")
    assert_well_formed(doc)
    item7 = (
        "Item 7. Management\u2019s Discussion and Analysis of Financial Condition and Results "
        "of Operations"
    )
    revenue = next(b for b in blocks(doc) if b.startswith("Revenue was"))
    assert section_of(doc, revenue) == ("PART II", item7, "Consolidated Results of Operations")
    # a long bold paragraph is emphasis: running text under the heading before it
    emphasis = next(b for b in blocks(doc) if b.startswith("We expect"))
    assert section_of(doc, emphasis) == ("PART II", item7, "Consolidated Results of Operations")
    market = "Item 7A. Quantitative and Qualitative Disclosures About Market Risk"
    assert section_of(doc, "Interest rate risk arises from our fixed-rate debt.") == (
        "PART II",
        market,
    )
    # the table of contents' rows are rows, not headings
    assert section_of(doc, "Item 6. | [Reserved] | 32") == ()
    # where the page has heading elements, bold paragraphs stay text
    marked = load_bytes(b"<h1>Guide</h1><p><b>Install</b></p><p>Run it.</p>", "g.html")
    assert section_of(marked, "Run it.") == ("Guide",)


# an SEC filing's statement of operations as EDGAR lays it out: each year's header cell
# spans the sign, the amount and the closing parenthesis of its amounts, and empty
# cells space the years apart
SEC_TABLE = """<html><body><table>
<tr><td></td><td colspan="11">Year Ended December 31,</td></tr>
<tr><td></td><td colspan="3">2022</td><td></td><td colspan="3">2021</td><td></td>
<td colspan="3">2020</td></tr>
<tr><td>Revenue</td><td>$</td><td>4,095,135</td><td></td><td></td><td>$</td>
<td>3,208,323</td><td></td><td></td><td>$</td><td>2,364,681</td><td></td></tr>
<tr><td>Costs and expenses</td><td colspan="11"></td></tr>
<tr><td>Cost of revenue</td><td></td><td>2,435,736</td><td colspan="7"></td>
<td>1,447,516</td><td></td></tr>
<tr><td>Net loss</td><td>$</td><td>(1,584,511</td><td>)</td><td></td><td>$</td>
<td>(1,009,359</td><td>)</td><td></td><td>$</td><td>(1,752,857</td><td>)</td></tr>
<tr><td>Margin</td><td></td><td>12.5</td><td>%</td><td></td><td></td><td>(3.1</td>
<td>)%</td><td></td><td></td><td>\u2014</td><td></td></tr>
</table>
<table><tr><td>Plan</td><td>Price</td><td>Seats</td></tr><tr><td>Team</td><td>25</td></tr>
<tr><td rowspan="2">Pro</td><td>40</td><td>10</td></tr><tr><td>45</td><td>20</td></tr></table>
</body></html>"""


def test_html_table_cells_stay_under_their_columns() -> None:
    """A sign joins its amount, spacer cells take no column, a blank amount keeps its
    year's place, a header without a label cell starts at its first year, and a cell
    spanning rows ("Pro" over two price rows) is read in each of them."""
    assert blocks(load_bytes(SEC_TABLE.encode(), "10-k.htm")) == [
        "Year Ended December 31,",  # spans the years: kept as the page gives it
        "2022 | 2021 | 2020",
        "Revenue | $4,095,135 | $3,208,323 | $2,364,681",
        "Costs and expenses | - | - | -",
        "Cost of revenue | 2,435,736 | - | 1,447,516",  # 2021 is blank, not 2020's amount
        "Net loss | $(1,584,511) | $(1,009,359) | $(1,752,857)",
        "Margin | 12.5% | (3.1)% | \u2014",
        # a cell spanning rows is read in each row it spans, in its column
        "Plan | Price | Seats",
        "Team | 25 | -",
        "Pro | 40 | 10",
        "Pro | 45 | 20",
    ]
    # an absurd span is read as one cell, not a grid that size
    huge = f'<table><tr><td colspan="{"9" * 5000}">a</td><td>b</td></tr></table>'
    assert blocks(load_bytes(huge.encode(), "x.html")) == ["a | b"]
    # a table wider than MAX_COLUMNS keeps its filled cells as they are
    wide = htmltable.MAX_COLUMNS + 1
    cells = "".join(f"<td>{i}</td>" for i in range(wide))
    table = f"<table><tr>{cells}</tr><tr><td>x</td><td></td><td>y</td></tr></table>"
    assert blocks(load_bytes(table.encode(), "x.html"))[1] == "x | y"


def test_inline_xbrl_and_other_vocabularies_wrap_text_where_it_stands() -> None:
    """An SEC filing in inline XBRL wraps each amount in ix:nonFraction and whole
    passages in ix:nonNumeric; its ix:header holds the facts' contexts, not text."""
    page = (
        '<html><body><div><span>Revenue was $<ix:nonFraction name="us-gaap:Revenues" '
        'contextRef="c1" unitRef="usd" decimals="-6" scale="6">33,386</ix:nonFraction> '
        'million in 2022.</span></div><div style="display:none"><ix:header><ix:hidden>'
        '<ix:nonNumeric name="dei:AmendmentFlag">false</ix:nonNumeric></ix:hidden>'
        "</ix:header></div><ix:header><ix:resources>c1 2022-12-31</ix:resources></ix:header>"
        '<div><ix:nonNumeric name="us-gaap:Policy"><span>Our policy is simple.</span> '
        "<span>It has two parts.</span></ix:nonNumeric></div>"
        '<p class="MsoNormal">Exported from Word<o:p></o:p> and read on.</p></body></html>'
    )
    assert blocks(load_bytes(page.encode(), "10-k.htm")) == [
        "Revenue was $33,386 million in 2022.",
        "Our policy is simple. It has two parts.",
        "Exported from Word and read on.",
    ]


def test_an_html_filings_page_furniture_is_dropped_and_cut_paragraphs_joined() -> None:
    """An SEC filing prints its pages: each ends with its number and a page break, the
    next starts with a "Table of Contents" link, and a paragraph runs on across."""
    page = """<html><body>
<div><span style="font-weight:bold">Item 7. Management's Discussion and Analysis</span></div>
<div><span>Revenue rose because riders came back to our</span></div>
<div style="text-align:center"><span>45</span></div>
<hr style="page-break-after:always"/>
<div><a href="#toc">Table of Contents</a></div>
<div><span>platform in every market, and costs fell.</span></div>
<div><span>None.</span></div>
<div style="text-align:center"><span>F-3</span></div>
<hr style="page-break-after:always"/>
<div><a href="#toc">Table of Contents</a></div>
<div><span>None.</span></div>
<div style="text-align:center"><span>- 47 -</span></div>
<div style="page-break-before:always"><a href="#toc">Table of Contents</a></div>
<div><span>None.</span></div>
<div><span>we expect them to fall.</span></div>
<p>The Table of Contents lists each item.</p>
</body></html>"""
    doc = load_bytes(page.encode(), "10-k.htm")
    assert blocks(doc) == [
        "Item 7. Management's Discussion and Analysis",
        "Revenue rose because riders came back to our platform in every market, and costs fell.",
        "None.",  # a sentence at each break is the filing's, not furniture
        "None.",
        "None.",
        "we expect them to fall.",  # after a sentence that ended: a paragraph of its own
        "The Table of Contents lists each item.",
    ]
    revenue = blocks(doc)[1]
    assert section_of(doc, revenue) == ("Item 7. Management's Discussion and Analysis",)
    # without page breaks, nothing is taken for furniture
    unbroken = re.sub(r' style="page-break-[a-z]+:always"', "", page)
    assert "45" in blocks(load_bytes(unbroken.encode(), "10-k.htm"))


def test_html_title_falls_back_to_first_h1() -> None:
    doc = load_bytes(b"<html><body><h1>Only heading</h1><p>Body.</p></body></html>", "a.htm")
    assert doc.title == "Only heading"


def test_a_book_pages_title_names_the_book_it_links_home_to() -> None:
    """A DocBook chapter links to its book's first page by the book's title: the
    chapter's title names the book too, so a question naming the book finds it; a page
    whose title names it already, or that links nowhere, keeps its title."""
    head = '<link rel="home" href="index.en.html" title="Debian Reference"/>'
    title = "<title>Chapter 10. Data management</title>"
    page = f"<html><head>{title}{head}</head><body><p>Text.</p></body></html>"
    assert load_bytes(page.encode(), "ch10.html").title == (
        "Chapter 10. Data management (Debian Reference)"
    )
    named = page.replace("Chapter 10. Data management", "Debian Reference: Data")
    assert load_bytes(named.encode(), "ch10.html").title == "Debian Reference: Data"
    alone = page.replace(head, "")
    assert load_bytes(alone.encode(), "ch10.html").title == "Chapter 10. Data management"
    site = page.replace('title="Debian Reference"', 'title="Home"')
    assert load_bytes(site.encode(), "ch10.html").title == "Chapter 10. Data management"


def test_html_paragraphs_made_of_line_breaks_and_layout_tables() -> None:
    """Pages without <p>, laid out with tables: two <br> part paragraphs, and a table
    whose rows hold paragraphs or tables is layout, while a data table keeps its rows."""
    page = (
        "<html><body><table><tr><td><img alt=logo></td><td>"
        "<table><tr><td><font>May 2021<br><br>First paragraph,<br>one line on.<br> <br>"
        "Second paragraph.</font></td></tr></table></td></tr></table>"
        "<table><tr><td>Plan</td><td>Price<br>per month</td></tr>"
        "<tr><td>Team</td><td>25</td></tr></table></body></html>"
    )
    assert blocks(load_bytes(page.encode(), "essay.html")) == [
        "May 2021",
        "First paragraph, one line on.",
        "Second paragraph.",
        "Plan | Price per month",
        "Team | 25",
    ]


def test_a_saved_web_page_is_read_in_the_encoding_it_declares() -> None:
    legacy = "<html><head><meta http-equiv='Content-Type' content='text/html; charset={}'>"
    body = "<title>Caf\u00e9 \u2014 menu</title></head><body><p>Cr\u00e8me br\u00fbl\u00e9e.</p>"
    for charset in ("windows-1252", "ISO-8859-1"):  # as browsers do, 8859-1 reads as 1252
        doc = load_bytes((legacy.format(charset) + body).encode("cp1252"), "menu.html")
        assert (doc.title, blocks(doc)) == (
            "Caf\u00e9 \u2014 menu",
            ["Cr\u00e8me br\u00fbl\u00e9e."],
        )
    xml = '<?xml version="1.0" encoding="iso-8859-15"?><html><body><p>5 \u20ac</p></body></html>'
    assert blocks(load_bytes(xml.encode("iso-8859-15"), "price.xhtml")) == ["5 \u20ac"]
    unknown = "<meta charset=klingon><p>caf\u00e9</p>".encode("latin-1")  # undeclared: refused
    with pytest.raises(UnsupportedType, match="UTF-8"):
        load_bytes(unknown, "menu.html")
    path = PDF_DIR.parent / "html" / "R2R__pg_essay_1.html"  # real: windows-1252, tables
    if path.is_file():
        essay = load_path(path)
        assert essay.title == "A Project of One's Own" and len(essay.segments) == 33
        assert blocks(essay)[0] == "June 2021"
        assert blocks(essay)[1].startswith("A few days ago, on the way home from school")
        assert "as happy as anything I've heard him say \u2014 not just" in essay.text


MARKDOWN = """\
# Guide

Read the [install notes](https://example.com/install) *first*, then run `make`.

## Install

- Download the **wheel**
- Run pip
  - nested item

```bash
pip install   footnoted
```

### Verify

| Step | Result |
|------|--------|
| run  | ok     |

# Usage

Ask a question.
"""


def test_markdown_renders_plain_text_with_sections() -> None:
    doc = load_bytes(MARKDOWN.encode(), "guide.md")
    assert_well_formed(doc)
    assert (doc.kind, doc.title) == ("markdown", "Guide")
    assert blocks(doc) == [
        "Guide",
        "Read the install notes first, then run make.",
        "Install",
        "Download the wheel",
        "Run pip",
        "nested item",
        "pip install footnoted",
        "Verify",
        "Step | Result",
        "run | ok",
        "Usage",
        "Ask a question.",
    ]
    assert section_of(doc, "Guide") == ("Guide",)
    assert section_of(doc, "pip install footnoted") == ("Guide", "Install")
    assert section_of(doc, "run | ok") == ("Guide", "Install", "Verify")
    assert section_of(doc, "Ask a question.") == ("Usage",)
    assert "https://" not in doc.text and "#" not in doc.text and "*" not in doc.text


def test_plain_text_paragraphs() -> None:
    data = b"First paragraph\nwraps here.\r\n\r\n\n  Second   one.\n \nThird."
    doc = load_bytes(data, "notes.txt")
    assert_well_formed(doc)
    assert (doc.kind, doc.title) == ("text", None)
    assert blocks(doc) == ["First paragraph wraps here.", "Second one.", "Third."]
    assert sections(doc) == {()}


def test_plain_text_headings_as_the_text_sets_them() -> None:
    """A licence's headings, set apart as plain text sets them: underlined, in capitals,
    numbered and in title case on a line of their own or opening their paragraph. A
    numbered sentence is no heading, nor is a term its paragraph defines."""
    text = (
        "Example Public License\n======================\n\n"
        "TERMS AND CONDITIONS\n\n"
        "1. Definitions\n--------------\n\n"
        '1.1. "Contributor"\n    means each person who contributes.\n\n'
        "1.2. The rights granted under this License end\nif You breach it.\n\n"
        "2. Grant of Copyright License. Subject to these terms, You may copy the Work.\n\n"
        "  3. Revised Versions of this License.\n\n"
        "The steward may publish new versions.\n"
    )
    doc = load_bytes(text.encode(), "license.txt")
    assert_well_formed(doc)
    assert blocks(doc)[:3] == [
        "Example Public License",  # the underline is no text
        "TERMS AND CONDITIONS",
        "1. Definitions",
    ]
    top = ("TERMS AND CONDITIONS",)  # a heading in capitals is one of the underlined's level
    # a term a paragraph defines is no heading: it stays with its definition
    assert section_of(doc, '1.1. "Contributor" means each person who contributes.') == (
        *top,
        "1. Definitions",
    )
    assert section_of(doc, "1.2. The rights granted under this License end if You breach it.") == (
        *top,
        "1. Definitions",
    )
    assert blocks(doc)[-4:-2] == [
        "2. Grant of Copyright License.",  # a block of its own, its paragraph's rest another
        "Subject to these terms, You may copy the Work.",
    ]
    assert section_of(doc, "Subject to these terms, You may copy the Work.") == (
        *top,
        "2. Grant of Copyright License.",
    )
    assert section_of(doc, "The steward may publish new versions.") == (
        *top,
        "3. Revised Versions of this License.",
    )


def test_a_guides_unnumbered_titles_rank_with_its_numbered_chapters() -> None:
    """A user guide dumped from texinfo underlines "Contents" and "1. About this manual"
    alike: the two are peers, not the chapters under "Contents". A setting in capitals
    ('BM_TARBALL_SLICESIZE="1000M"'), a list item in capitals and a line of code at the
    margin of an indented text are no headings."""
    text = (
        "Contents\n--------\n\n     1.        About this manual\n     2.        Tarballs\n\n"
        "1. About this manual\n--------------------\n\n"
        "     Backup Manager is a system tool designed to handle backups.\n\n"
        "2. Tarballs\n-----------\n\n"
        "     If you want to limit your archives size to 1 giga byte, use such a\n"
        "     statement:\n\n"
        '          BM_TARBALL_SLICESIZE="1000M"\n\n'
        "     Here is the list of the common sizes:\n\n"
        "        * CDR/CDRW: 650, 700, 800\n\n"
        "        * DVD: 4700\n\n"
        "     Example:\n\n"
        'export BM_UPLOAD_RSYNC_DIRECTORIES="/data/photos /data/videos"\n\n'
        "2.1. Slices\n-----------\n\n"
        "     Refer to the dar manpage for details about slices.\n"
    )
    doc = load_bytes(text.encode(), "user-guide.txt")
    assert_well_formed(doc)
    assert section_of(doc, "Backup Manager is a system tool designed to handle backups.") == (
        "1. About this manual",
    )
    assert section_of(doc, "* DVD: 4700") == ("2. Tarballs",)
    assert section_of(doc, 'BM_TARBALL_SLICESIZE="1000M"') == ("2. Tarballs",)
    assert section_of(doc, "Refer to the dar manpage for details about slices.") == (
        "2. Tarballs",
        "2.1. Slices",
    )


def test_a_manual_pages_titles_underlined_with_their_text_below() -> None:
    """An AsciiDoc manual page underlines its titles and starts the text on the next
    line; an example's listing delimiter under its last line is no title."""
    text = (
        "git-frob(1)\n===========\n\n"
        "DESCRIPTION\n-----------\nFrobs the trailers of a commit message.\n\n"
        "OPTIONS\n-------\n--parse::\n\tA convenience alias for three options.\n\n"
        "EXAMPLES\n--------\n\n------------\n$ cat msg.txt\nsubject\n\n"
        "Fix #42\n------------\n\nThe trailers are kept.\n"
    )
    doc = load_bytes(text.encode(), "git-frob.txt")
    assert_well_formed(doc)
    assert section_of(doc, "Frobs the trailers of a commit message.") == (
        "git-frob(1)",
        "DESCRIPTION",
    )
    assert section_of(doc, "--parse:: A convenience alias for three options.") == (
        "git-frob(1)",
        "OPTIONS",
    )
    assert section_of(doc, "The trailers are kept.") == ("git-frob(1)", "EXAMPLES")


def test_an_outline_modes_headings_are_its_lines_of_stars() -> None:
    """A GNU NEWS file says on its first line it is in Emacs's outline mode: its lines of
    stars are its headings, a star more a level down; a text that says no such thing
    keeps its starred lines as a list's items."""
    text = (
        "GNU coreutils NEWS                                    -*- outline -*-\n\n"
        "* Noteworthy changes in release 9.1 (2022-04-15) [stable]\n\n"
        "** Bug fixes\n\n  chmod -R no longer exits with error status.\n\n"
        "* Noteworthy changes in release 9.0 (2021-09-24) [stable]\n\n"
        "** New features\n\n  cp now uses the copy_file_range syscall.\n"
    )
    doc = load_bytes(text.encode(), "NEWS.txt")
    assert_well_formed(doc)
    assert section_of(doc, "chmod -R no longer exits with error status.") == (
        "Noteworthy changes in release 9.1 (2022-04-15) [stable]",
        "Bug fixes",
    )
    assert section_of(doc, "cp now uses the copy_file_range syscall.") == (
        "Noteworthy changes in release 9.0 (2021-09-24) [stable]",
        "New features",
    )
    # an indented "* item" is a list's, "* * *" parts nothing, and a heading's text may
    # start on the line below it
    items = (
        "GNU foo NEWS  -*- outline -*-\n\n* Noteworthy changes in release 2.0\n\n"
        "** Bug fixes\n\n  * foo no longer crashes.\n\n* * *\n\n* Installation\nRun make.\n"
    )
    listed = load_bytes(items.encode(), "NEWS.txt")
    assert section_of(listed, "* foo no longer crashes.") == (
        "Noteworthy changes in release 2.0",
        "Bug fixes",
    )
    assert section_of(listed, "Run make.") == ("Installation",)
    plain = load_bytes(text.replace("-*- outline -*-", "").encode(), "NEWS.txt")
    assert section_of(plain, "cp now uses the copy_file_range syscall.") != (
        "Noteworthy changes in release 9.0 (2021-09-24) [stable]",
        "New features",
    )


def test_a_table_set_in_columns_by_spaces_is_read_row_by_row() -> None:
    """A program's report in a text file: each line a row, its cells apart, the header's
    words cut where the columns below it are; prose spaced out is no table."""
    text = (
        "Hit rates:\n\n"
        "OVERALL%   SPAM% NONSPAM%  NAME\n"
        "  0.635    2.001    0.000  T_HTML_IMAGE_AREA14\n"
        "100.000   31.741   68.259  (all messages as %)\n\n"
        "name      born   role\n"
        "Ada       1815   analyst\n"
        "Charles   1791   engineer\n"
    )
    doc = load_bytes(text.encode(), "report.txt")
    assert_well_formed(doc)
    assert blocks(doc) == [
        "Hit rates:",
        "OVERALL% | SPAM% | NONSPAM% | NAME",
        "0.635 | 2.001 | 0.000 | T_HTML_IMAGE_AREA14",
        "100.000 | 31.741 | 68.259 | (all messages as %)",
        "name | born | role",
        "Ada | 1815 | analyst",
        "Charles | 1791 | engineer",
    ]
    two = load_bytes(b"one  two  three\nfour  five  six\n", "short.txt")  # too few lines
    assert blocks(two) == ["one two three four five six"]


def test_a_column_tables_header_is_a_header_and_carried_only_near() -> None:
    """A header of single-spaced words a column each; rules under it no rows; a sentence
    over the lines no header (the paragraph stays prose); a header carried down to a
    table of figures under the same columns only a few paragraphs on."""
    tables = ColumnTables()
    single = ["Year Revenue Profit Margin", "2019      100      10     10%"]
    single += ["2020      120      12     10%"]
    assert tables.rows(single) == [
        "Year | Revenue | Profit | Margin",
        "2019 | 100 | 10 | 10%",
        "2020 | 120 | 12 | 10%",
    ]
    ruled = ["=====  =====  =======", "A      B      A and B", "=====  =====  ======="]
    ruled += ["False  False  False", "True   False  False"]
    assert tables.rows(ruled) == [
        "A | B | A and B",
        "False | False | False",
        "True | False | False",
    ]
    over = ["Results were as follows:", "alpha    beta     gamma", "1        2        3"]
    assert tables.rows([*over, "4        5        6"]) is None
    near = ColumnTables()
    header = ["name     apples  pears", "bob      1       2", "ann      3       4"]
    figures = ["carl     5       6", "dora     7       8", "eve      9       10"]
    assert near.rows(header) is not None
    assert near.rows(["Some prose between."]) is None
    assert (near.rows(figures) or [])[0] == "name | apples | pears"  # carried
    far = ColumnTables()
    assert far.rows(header) is not None
    for _ in range(CARRY_PARAGRAPHS + 1):
        far.rows(["Some prose between."])
    assert (far.rows(figures) or [])[0] == "carl | 5 | 6"  # too far on: no header


def test_restructured_text_titles_underlined_past_their_end() -> None:
    """reStructuredText lets an underline run on past its title (a converted manual
    underlines every title with 128 marks); its levels follow the marks in the order the
    text first uses them ("*" over "=" over "-"). Inline markup reads as the text it
    shows, and a link target shows nothing."""
    rule = 128
    text = (
        f".. _new-member:\n\nApplying to Become a Member\n{'*' * rule}\n\n"
        f"Getting started\n{'=' * rule}\n\nSubscribe to the list first.\n\n"
        "Send ``subscribe`` to the list (see :ref:`mailing-lists`) and read the `Social\n"
        "Contract <https://www.debian.org/social_contract>`__ first.\n\n"
        f"Registering\n{'=' * rule}\n\nSend the form.\n\n"
        f"The key\n{'-' * rule}\n\nSign it with your key.\n"
    )
    doc = load_bytes(text.encode(), "new-member.rst.txt")
    assert_well_formed(doc)
    top = "Applying to Become a Member"
    assert section_of(doc, "Subscribe to the list first.") == (top, "Getting started")
    assert section_of(doc, "Send the form.") == (top, "Registering")
    assert section_of(doc, "Sign it with your key.") == (top, "Registering", "The key")
    assert not any("***" in block or "===" in block for block in blocks(doc))
    assert section_of(
        doc, "Send subscribe to the list (see mailing-lists) and read the Social Contract first."
    ) == (top, "Getting started")
    assert blocks(doc)[0] == top  # the link target ".. _new-member:" is gone


def test_a_page_dumped_as_text_keeps_its_headings_items_and_terms() -> None:
    """A web page saved as text sets its paragraphs in from the margin: a short line at
    the margin is a heading (a numbered one at its number's depth); a list item whose
    title hangs over its text heads that text, while a sentence wrapped after a full line
    stays one item; a one-line term over a description set in deeper heads it."""
    text = (
        "   Version 1.2 ratified on October 1st, 2022.\n\n"
        '"Social Contract" with the Free Software Community\n\n'
        "    1. Debian will remain 100% free\n"
        "       We provide the guidelines that we use to determine if a work is\n"
        '       "free". We will never make the system require a non-free component.\n'
        "    2. We will not hide problems\n"
        "       We will keep our entire bug report database open for public view.\n"
        "    3. Developers are volunteers who agree to further the aims of the\n"
        "       Project as far as they are willing to do so.\n\n"
        "Lists\n\n"
        "  debian-user@lists.debian.org\n\n"
        "      Description : Support for Debian users who speak English.\n"
        "      Moderated   : no\n\n"
        "  debian-security@lists.debian.org\n\n"
        "      Description : Discussion about security issues.\n"
    )
    doc = load_bytes(text.encode(), "contract.txt")
    assert_well_formed(doc)

    def section_of(start: str) -> tuple[str, ...]:
        return next(s.section for s in doc.segments if doc.text[s.start : s.end].startswith(start))

    contract = '"Social Contract" with the Free Software Community'
    assert section_of("We will keep our entire bug report database open for public view.") == (
        contract,
        "2. We will not hide problems",
    )
    assert section_of("We provide the guidelines that we use to determine if a work is") == (
        contract,
        "1. Debian will remain 100% free",
    )
    wrapped = "3. Developers are volunteers who agree to further the aims of the Project"
    assert any(block.startswith(wrapped) for block in blocks(doc))
    constitution = (
        "   The Constitution sets out how the Project decides.\n\n"
        "   Nothing in it creates an obligation for anyone.\n\n"
        "4. The Developers by way of General Resolution\n\n  4.1. Powers\n\n"
        "   Together, the Developers may appoint or recall the Project Leader.\n\n"
        "5. Project Leader\n\n   The Project Leader is elected by the Developers.\n"
    )
    numbered = load_bytes(constitution.encode(), "constitution.txt")
    assert_well_formed(numbered)
    assert [seg.section for seg in numbered.segments][-3:] == [
        ("4. The Developers by way of General Resolution", "4.1. Powers"),
        ("5. Project Leader",),
        ("5. Project Leader",),
    ]
    assert section_of("Description : Discussion about security issues.") == (
        "Lists",
        "debian-security@lists.debian.org",
    )
    assert section_of("Description : Support for Debian users") == (
        "Lists",
        "debian-user@lists.debian.org",
    )


def test_an_html_notes_title_heads_no_section() -> None:
    """A boxed note's title ("Note" atop a DocBook admonition) is a line of the box: the
    text after the box stays under its own heading, and the next heading is its own."""
    page = (
        "<html><body><h2>8.1. Numeric Types</h2><h3>8.1.2. Arbitrary Precision</h3>"
        "<p>The scale is the count of decimal digits in the fraction.</p>"
        '<div class="note"><h3 class="title">Note</h3><p>The maximum precision is 1000.</p>'
        "</div><p>Numeric values round ties away from zero.</p>"
        "<h3>8.1.4. Serial Types</h3><p>Serial values may have gaps.</p></body></html>"
    )
    doc = load_bytes(page.encode(), "numeric.html")
    assert_well_formed(doc)
    precision = ("8.1. Numeric Types", "8.1.2. Arbitrary Precision")
    assert section_of(doc, "The maximum precision is 1000.") == precision
    assert section_of(doc, "Numeric values round ties away from zero.") == precision
    assert section_of(doc, "Serial values may have gaps.") == (
        "8.1. Numeric Types",
        "8.1.4. Serial Types",
    )


def test_a_reference_pages_terms_open_their_descriptions() -> None:
    """A Sphinx reference page: a heading's permalink "¶" is no text, and a definition
    list's term opens its description's first paragraph ("datetime.MAXYEAR — The
    largest year …"), so the two are read, retrieved and quoted together; a term left
    without a description before the next heading is a line of its own."""
    page = (
        '<html><body><h2>Constants<a class="headerlink" href="#c">¶</a></h2>'
        '<dl><dt id="m">datetime.<b>MAXYEAR</b><a class="headerlink" href="#m">¶</a></dt>'
        "<dd><p>The largest year number allowed in a date object. MAXYEAR is 9999.</p>"
        "<p>New in version 3.2.</p></dd>"
        "<dt>-a</dt><dt>--data-only</dt><dd><p>Dump only the data.</p></dd>"
        "<dt>Orphan</dt></dl><h2>Types</h2><p>A date object.</p></body></html>"
    )
    doc = load_bytes(page.encode(), "datetime.html")
    assert_well_formed(doc)
    assert "¶" not in doc.text
    assert section_of(
        doc, "datetime.MAXYEAR — The largest year number allowed in a date object. MAXYEAR is 9999."
    ) == ("Constants",)
    assert section_of(doc, "New in version 3.2.") == ("Constants",)
    assert section_of(doc, "-a, --data-only — Dump only the data.") == ("Constants",)
    assert section_of(doc, "Orphan") == ("Constants",)
    assert section_of(doc, "A date object.") == ("Types",)
    last = load_bytes(b"<html><body><p>Flags:</p><dl><dt>-v</dt></dl></body></html>", "f.html")
    assert blocks(last) == ["Flags:", "-v"]  # a last term with no description is kept


@pytest.mark.parametrize(
    "data",
    [
        "\ufeffCaf\u00e9 menu\n\nSecond".encode(),
        "Caf\u00e9 menu\n\nSecond".encode("utf-16"),
        b"\xfe\xff" + "Caf\u00e9 menu\n\nSecond".encode("utf-16-be"),
    ],
    ids=["utf-8-bom", "utf-16-le-bom", "utf-16-be-bom"],
)
def test_text_encodings(data: bytes) -> None:
    doc = load_bytes(data, "menu.txt")
    assert blocks(doc) == ["Caf\u00e9 menu", "Second"]


# ---- sniffing ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "filename", "kind"),
    [
        (b"%PDF-1.7\n...", "report.bin", "pdf"),
        (b"  <!doctype html><p>x</p>", "page.txt", "html"),
        (b"\xef\xbb\xbf<html><body>x</body></html>", "page", "html"),
        (b"<!-- c --><body>x</body>", "page.md", "html"),
        (b"<p>fragment</p>", "page.htm", "html"),
        (b"# Title\n\ntext", "notes.md", "markdown"),
        (b"# Title\n\ntext", "notes.markdown", "markdown"),
        (b"# Title\n\ntext", "notes.txt", "text"),
        (b"plain words", "README", "text"),
        (b"plain words", "fake.pdf", "text"),  # the extension does not make it a PDF
    ],
)
def test_detect_kind_sniffs_content(data: bytes, filename: str, kind: str) -> None:
    assert detect_kind(data, filename) == kind


def test_detect_kind_docx_by_content() -> None:
    assert detect_kind(make_docx(), "upload.bin") == "docx"


def test_detect_kind_refuses_other_binaries() -> None:
    with pytest.raises(UnsupportedType, match=r"photo\.pdf looks like a GIF image"):
        detect_kind(b"GIF89a" + bytes(32), "uploads/photo.pdf")
    assert detect_kind(b"\xff\xd8\xff\xe0" + bytes(32), "photo.pdf") == "jpeg"  # by content


def test_every_kind_has_a_loader_a_media_type_and_suffixes_that_hint_at_it() -> None:
    kinds = {"pdf", "docx", "xlsx", "pptx", "csv", "eml", "mbox", "html", "markdown", "text",
             "png", "jpeg", "tiff"}  # fmt: skip
    assert set(LOADERS) == set(KINDS) == kinds
    for kind in KINDS.values():
        assert media_type(kind.name) == kind.media_type and "/" in kind.media_type
        assert kind.suffixes and all(hinted(s) == kind.name for s in kind.suffixes)
    assert media_type("nope") == "application/octet-stream" and hinted(".exe") is None
    note = b"# Title\n\nSome text.\n"  # content alone cannot tell: the suffix decides
    assert detect_kind(note, "notes.markdown") == "markdown"
    assert detect_kind(note, "notes.text") == detect_kind(note, "notes") == "text"
    assert detect_kind(b"<p>Hello</p>\n", "page.htm") == "html"
    listed = (
        "supported are PDF, Word (.docx), Excel (.xlsx), PowerPoint (.pptx), CSV, email (.eml), "
        "mailboxes (.mbox), HTML, Markdown, plain text, PNG, JPEG and TIFF (images read by OCR)."
    )
    with pytest.raises(UnsupportedType, match=re.escape(listed)):
        detect_kind(b"GIF87a" + bytes(32), "photo.gif")


# ---- bad input ------------------------------------------------------------------------


def zip_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def encrypted_pdf() -> bytes:
    writer = pypdf.PdfWriter()
    writer.add_blank_page(200, 200)
    writer.encrypt("secret", algorithm="RC4-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def blank_pdf() -> bytes:
    writer = pypdf.PdfWriter()
    writer.add_blank_page(200, 200)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("data", "filename", "error", "words"),
    [
        (b"", "empty.txt", DocumentError, "empty.txt is empty"),
        (b" \n\t\r\n ", "blank.md", DocumentError, "blank.md is empty"),
        ("\ufeff \n".encode(), "bom.txt", DocumentError, "is empty"),
        (b"%PDF-1.4 garbage", "broken.pdf", DocumentError, "not a readable PDF"),
        (encrypted_pdf(), "locked.pdf", DocumentError, "encrypted"),
        (blank_pdf(), "scan.pdf", DocumentError, "no extractable text"),
        (b"GIF89a" + bytes(64), "x.pdf", UnsupportedType, "x.pdf looks like a GIF"),
        (os.urandom(4096), "noise.bin", UnsupportedType, "noise.bin is not a supported"),
        (b"text\x00with\x00nuls", "nul.txt", UnsupportedType, "binary data"),
        ("caf\u00e9".encode("latin-1"), "latin.txt", UnsupportedType, "UTF-8"),
        (zip_bytes({"a.txt": b"hi"}), "a.zip", UnsupportedType, "not a Word, Excel or PowerPoint"),
        (b"PK\x03\x04 damaged", "broken.docx", DocumentError, "damaged ZIP"),
        (zip_bytes({"word/document.xml": b"<w:"}), "bad.docx", DocumentError, "bad.docx"),
        (b"<html><script>only()</script></html>", "s.html", DocumentError, "no extractable"),
    ],
    ids=[
        "empty",
        "whitespace",
        "bom-only",
        "garbage-pdf",
        "encrypted-pdf",
        "no-text-layer",
        "png-named-pdf",
        "random",
        "nul-bytes",
        "latin-1",
        "plain-zip",
        "damaged-docx",
        "bad-docx-xml",
        "script-only-html",
    ],
)
def test_bad_input(data: bytes, filename: str, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=re.escape(words)) as caught:
        load_bytes(data, filename)
    assert type(caught.value) is error


def test_truncated_real_pdf() -> None:
    path = PDF_DIR / "ALCE__ALCE.pdf"
    if not path.is_file():
        pytest.skip(f"sample PDF not found at {path}")
    data = path.read_bytes()
    with pytest.raises(DocumentError, match=r"ALCE\.pdf"):
        load_bytes(data[: len(data) // 2], "ALCE.pdf")


def test_zip_bomb_by_total_size(tmp_path: Path) -> None:
    path = tmp_path / "bomb.docx"
    zeros = bytes(8 << 20)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("word/document.xml", "<w:document/>")
        with archive.open("word/media/zeros.bin", "w", force_zip64=True) as member:
            for _ in range(300 // 8 + 1):  # a little over 300 MB, streamed
                member.write(zeros)
    assert path.stat().st_size < 2 << 20
    with pytest.raises(DocumentError, match=r"bomb\.docx would expand to 30\d\.\d MB.*zip bomb"):
        load_path(path)


def test_zip_bomb_by_ratio() -> None:
    data = zip_bytes({"word/document.xml": bytes(5 << 20)})
    with pytest.raises(DocumentError, match=r"compressed [\d,]+:1 \(the limit is 100:1\)"):
        load_bytes(data, "ratio.docx")


def test_html_nested_absurdly_deep_is_refused() -> None:
    data = b"<html><body>" + b"<div>" * 12_000 + b"x" + b"</div>" * 12_000 + b"</body></html>"
    with pytest.raises(DocumentError, match=r"deep\.html nests HTML elements more than"):
        load_bytes(data, "deep.html")


def test_too_large_bytes() -> None:
    with pytest.raises(TooLarge, match=r"big\.txt is 2\.0 MB, over the 1\.0 MB limit"):
        load_bytes(b"x" * (2 << 20), "big.txt", max_bytes=1 << 20)


def test_load_path_checks_size_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "big.txt"
    path.write_bytes(b"word " * 1000)

    def no_read(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the file was opened before its size was checked")

    monkeypatch.setattr(Path, "open", no_read)
    with pytest.raises(TooLarge, match=r"big\.txt"):
        load_path(path, max_bytes=100)


def test_load_path_missing_file(tmp_path: Path) -> None:
    with pytest.raises(NotFound, match=r"nothing\.pdf"):
        load_path(tmp_path / "nothing.pdf")
