"""The shared output path of every loader: blocks of text -> :class:`ParsedDocument`.

Each loader produces a list of :class:`Block` (one paragraph-like run of text with its
page and heading path); :func:`assemble` joins the blocks with blank lines (a page break,
``"\n\f"``, between pages: see :mod:`footnoted.pages`) into
:attr:`ParsedDocument.text` and records one :class:`Segment` per block, so
``text[segment.start:segment.end]`` is exactly that block. A block that ``continues`` the
one before it on a later page (a paragraph cut by a page break) joins it with a bare
form feed and extends its segment, so chunking never cuts that paragraph in two.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from footnoted.lexical import CELLS, EMPTY_CELL, LABEL_WORDS
from footnoted.models import ParsedDocument, Segment
from footnoted.pages import PAGE_BREAK, separator

from .captions import captioned

HEADER_CHARS = 240  # a table header row embedded as a chunk's context is cut to about this
HEADER_KEPT = 4000  # a header row kept for its table's rows is cut to about this length
# a cell of an amount, or of a date written in digits ("2016-01-10")
AMOUNT = re.compile(r"^[-–—$€£¥%().,\d\s]*\d[-–—$€£¥%().,\d\s]*$")
_YEAR = re.compile(r"^(?:19|20)\d\d$")
CURRENCY = frozenset({"$", "€", "£", "¥"})  # a sign set in a cell of its own
# a cell that gives its column's unit: "€m", "$'000", "RMB’Million", "US$ millions", "%"
_UNIT_CELL = re.compile(
    r"\(?(?:[A-Z]{0,3}[$€£¥]|[A-Z]{3})?\s*['’]?\s*(?:000|m|mn|bn|k|millions?|thousands?"
    r"|billions?)\)?|%",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Block:
    text: str
    section: tuple[str, ...] = ()
    page: int | None = None
    continues: bool = False  # the rest of the previous block's paragraph, on a later page
    row: int | None = None  # a spreadsheet row's number in its sheet
    caption: bool = False  # the format marks it as its table's caption (HTML's <caption>)


class Sections:
    """The current heading path; entering a heading closes those at its level or deeper."""

    def __init__(self) -> None:
        self._stack: list[tuple[int, str]] = []
        self.path: tuple[str, ...] = ()

    def enter(self, level: int, title: str) -> tuple[str, ...]:
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self._stack.append((level, title))
        self.path = tuple(title for _, title in self._stack)
        return self.path

    def place(self, level: int, title: str) -> tuple[str, ...]:
        """The path of a block: a heading (level > 0) enters its section, others stay."""
        return self.enter(level, title) if level else self.path


_INVISIBLE = re.compile("[\x00-\x08\x0e-\x1f\x7f\u00ad\u200b\ufeff\ufffe\uffff]")
_LIGATURES = str.maketrans(
    {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl"}
)
_JUNK_TITLE = re.compile(
    r"^(?:untitled.*|title|document\d*|no title|none|null|unknown|slide \d+|(?:table of )?contents"
    r"|powerpoint presentation|microsoft (?:word|powerpoint|excel) - .*"
    r"|.*\.(?:docx?|pdf|rtf|odt|tex|dvi|ps|pptx?"
    r"|xlsx?|txt|html?|indd|qxd|pages|exe))$"
    r"|^\S+\.[a-z0-9]{2,4}$"  # any file name
    r"|^[\d\W_]*$",  # numbers only: an SEC accession number, a date, a job id
    re.IGNORECASE,
)
_SLUG = re.compile(r"^(?:\S*_\S*|[a-z0-9-]+)$")  # no spaces, with underscores or all lower case


def clean(text: str) -> str:
    """Drop invisible characters and collapse every run of whitespace to one space."""
    return " ".join(_INVISIBLE.sub("", text).translate(_LIGATURES).split())


def clean_title(raw: str | None) -> str | None:
    title = clean(raw or "")
    if sum(ch.isalpha() for ch in title) < 2 or _JUNK_TITLE.match(title):
        return None
    return title


def slug_title(title: str) -> bool:
    """A title that reads like a file name ("sample_pdf", "graphrag"): a document's own
    heading, where there is one, is the better title."""
    return bool(_SLUG.match(title))


def describe(exc: BaseException) -> str:
    """An exception as one short, clean line for an error message."""
    text = clean(str(exc)) or type(exc).__name__
    return text if len(text) <= 200 else text[:199] + "…"


def sheet_tables(segments: Sequence[Segment]) -> list[int]:
    """Where a spreadsheet's tables start, for ``table_headers``' breaks: a sheet's rows
    start a table of their own, and so do a table's set beside the last (its rows
    numbered from the top again)."""
    return [
        b.start
        for a, b in itertools.pairwise(segments)
        if b.row and (a.section != b.section or (a.row is not None and b.row <= a.row))
    ]


def table_headers(
    text: str, offsets: Sequence[int], breaks: Sequence[int] = ()
) -> list[str | None]:
    """For each offset into an assembled ``text``: the first row of the table it is in,
    when that row is above the offset's block (the header its cells need to be read),
    else None. A table is a run of rows (blocks of cells joined by ``CELLS``) and of the
    short labels printed between them; a row with another number of cells after such a
    label, once the table has data rows (a row of units right under the header, "€m |
    €m", is none), starts the next table, and so does the first
    row from each of ``breaks`` on (a spreadsheet's next sheet, which prints no label
    between its rows and the last sheet's). One pass over the blocks, however many
    offsets."""
    starts: list[int] = []
    headers: list[tuple[int, str] | None] = []
    table = _Table()
    cuts = sorted(breaks)
    cut = 0
    for match in re.finditer(r"[^\n]+", text):
        while cut < len(cuts) and cuts[cut] <= match.start():
            table, cut = _Table(), cut + 1
        starts.append(match.start())
        headers.append(table.add(match.start(), match.group().lstrip(PAGE_BREAK)))
    found: list[str | None] = []
    for offset in offsets:
        index = bisect.bisect_right(starts, offset) - 1
        row = headers[index] if index >= 0 else None
        found.append(row[1] or None if row is not None and row[0] < starts[index] else None)
    return found


_CORNER_WORDS = 2  # a header of years' first cell, over the rows' labels ("JAN", "Fiscal year")


class _Table:
    """The table being read, block by block."""

    def __init__(self) -> None:
        self.header: tuple[int, str] | None = None
        self.cells = 0  # the last row's
        self.data = False  # a row below the header was seen
        self.label = False  # a label since the last row
        # the header's cells, what each column is named (none for a header of years:
        # "2021 | 2020 | 2019", nor for a row of amounts that starts a table)
        self.columns: tuple[str, ...] = ()

    def add(self, start: int, block: str) -> tuple[int, str] | None:
        """The header of the table ``block`` belongs to (None: not in a table)."""
        if CELLS not in block:
            words = block.split()
            if self.header is None or len(words) > LABEL_WORDS or block[-1:] in ".?!":
                self.header = None
            self.label = True
            return self.header
        # a currency sign set in a cell of its own belongs to the amount after it
        cells = [cell for cell in block.split(CELLS) if cell.strip() not in CURRENCY]
        named = not any(AMOUNT.match(cell) and not _YEAR.match(cell) for cell in cells)
        # a row of years with no label before them ("2021 | 2020 | 2019 | Change") heads
        # a table, however many cells the rows before it had; but one with words beside
        # its years that goes on from the row before it (as many cells, no label
        # between) under a header of words naming each of its years' columns apart is one
        # of the rows: a timeline's "2015 | 2018 | Billing migration" under "Start | End |
        # Project" (not the years under " | | Year Ended | " or "Years Ended December 31,
        # | Years Ended December 31,": a heading over them all, they name the columns)
        kept = [cell.strip() for cell in cells]
        if self.header is not None and not self.data and not self.label and units(kept):
            return self.header  # its header's units ("€m | €m" under "2019 | 2018")
        years = [i for i, cell in enumerate(kept) if _YEAR.match(cell)]
        first = kept[0] if kept else ""
        # a corner over the rows' labels: none, a year, or a word over three years or
        # more alone, year after year ("JAN | 2015 | 2016 | 2017", a month's table of
        # days; not a timeline's row "777X-8F | 2022 | 2027" nor "Year that trend
        # reaches ultimate rate | 2028 | 2021 | 2021")
        given = [cell for cell in kept[1:] if cell and cell != EMPTY_CELL]
        corner = not first or bool(_YEAR.match(first)) or _years_apart(first, given)
        dated = named and len(years) >= 2 and corner
        worded = any(cell and not _YEAR.match(cell) for cell in kept)
        goes_on = worded and not self.label and len(cells) == self.cells == len(self.columns)
        above = [self.columns[i] for i in years] if goes_on else []
        heads = dated and not (above and all(above) and len(set(above)) == len(above))
        if self.header is None or heads or (self.label and self.data and len(cells) != self.cells):
            # a row of amounts is data: its table's header was not printed as a row
            self.header = (start, cut_row(block, HEADER_KEPT)) if named else (start, "")
            self.columns = () if dated or not named else tuple(cell.casefold() for cell in kept)
            self.data = False
        else:
            self.data = True
        self.cells, self.label = len(cells), False
        return self.header


def _years_apart(first: str, given: Sequence[str]) -> bool:
    """Whether a row's cells after its first, a word or two, are three years or more,
    year after year: a header of years over its rows' labels."""
    return (
        len(first.split()) <= _CORNER_WORDS
        and len(given) >= 3
        and all(_YEAR.match(cell) for cell in given)
        and all(abs(int(a) - int(b)) == 1 for a, b in itertools.pairwise(given))
    )


def units(cells: Sequence[str]) -> bool:
    """Whether a row's cells give only its columns' units (empty ones aside)."""
    given = [cell for cell in cells if cell]
    return bool(given) and all(_UNIT_CELL.fullmatch(cell) for cell in given)


def cut_row(row: str, limit: int) -> str:
    """``row`` cut between cells to about ``limit`` characters, marked " …" when cut."""
    if len(row) <= limit:
        return row
    cut = row.rfind(CELLS, 0, limit)
    return row[: cut if cut > 0 else limit] + " …"


def _turns(block: Block, previous: int | None) -> int:
    """The pages turned where ``block`` continues the paragraph before it (else 0)."""
    if not block.continues or previous is None or block.page is None:
        return 0
    return max(block.page - previous, 0)


def assemble(
    blocks: Sequence[Block], *, kind: str, title: str | None, page_count: int | None = None
) -> ParsedDocument:
    parts: list[str] = []
    segments: list[Segment] = []
    offset = 0
    previous: int | None = None
    for block in captioned(blocks):
        text = clean(block.text)
        if not text:
            continue
        turns = _turns(block, previous) if segments else 0
        if turns:
            parts.append(PAGE_BREAK * turns)
        elif parts:
            parts.append(separator(previous, block.page))
        elif block.page is not None and block.page > 1:
            parts.append(PAGE_BREAK * (block.page - 1))
        offset += len(parts[-1]) if parts else 0
        if turns:
            last = segments.pop()
            segments.append(
                Segment(last.start, offset + len(text), last.page, last.section, last.row)
            )
        else:
            segments.append(
                Segment(offset, offset + len(text), block.page, block.section, block.row)
            )
        parts.append(text)
        offset += len(text)
        previous = block.page
    return ParsedDocument(
        text="".join(parts),
        kind=kind,
        title=title,
        segments=tuple(segments),
        page_count=page_count,
    )
