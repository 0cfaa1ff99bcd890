"""Spreadsheets: Excel workbooks (.xlsx) and CSV files, a sheet at a time.

Each sheet is a section named after it; each row is a block of its cells joined by
``CELLS`` that knows its number in the sheet (a citation names it: "row 12"), the
table's header row first, so a row's column names are the table header every reader
of tables already finds (``blocks.table_headers``): chunks are embedded with it and
quotes of a row are shown under it. Notes written around the table, above its header
or below its last row, are read as lines of text, not as rows (``_notes``). Empty
rows and trailing empty cells are dropped; a workbook's cells are read as last
calculated (a formula's value, not its text). Reading stops with a clear error past
``loaders.MAX_SHEET_CELLS`` cells or ``loaders.MAX_TEXT_CHARS`` characters: a sheet that
claims a million rows is never walked to the end.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Iterable, Iterator, Sequence

from footnoted import loaders
from footnoted.errors import DocumentError
from footnoted.lexical import CELLS, EMPTY_CELL
from footnoted.models import ParsedDocument

from .blocks import AMOUNT, Block, assemble, clean, clean_title, units
from .sizes import check_archive

Cell = object


def load_xlsx(data: bytes, _text: str | None, name: str) -> ParsedDocument:
    check_archive(data, name, ".xlsx")
    import openpyxl  # here: a worker that never reads a workbook never pays its import

    book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        budget = _Budget(name)
        blocks: list[Block] = []
        for sheet in book.worksheets:
            sheet.reset_dimensions()  # never trust a sheet's claimed size: read what is there
            blocks += _sheet(clean(sheet.title), sheet.iter_rows(values_only=True), budget)
        title = clean_title(book.properties.title)
    finally:
        book.close()
    return assemble(blocks, kind="xlsx", title=title)


def load_csv(_data: bytes, text: str | None, name: str) -> ParsedDocument:
    content = text or ""
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(
            content[:65536], delimiters=",;\t|"
        )
    except csv.Error:
        dialect = csv.excel
    rows = csv.reader(io.StringIO(content, newline=""), dialect)
    try:
        blocks = _sheet("", rows, _Budget(name))
    except csv.Error as exc:
        raise DocumentError(f"{name} is not a readable CSV file: {exc}.") from exc
    return assemble(blocks, kind="csv", title=None)


class _Budget:
    """Cells and characters read so far, against the loaders' limits."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.cells = 0
        self.chars = 0

    def spend(self, cells: int, chars: int) -> None:
        self.cells += cells
        self.chars += chars
        if self.cells > loaders.MAX_SHEET_CELLS:
            raise DocumentError(
                f"{self.name} holds more than {loaders.MAX_SHEET_CELLS:,} cells; split it "
                "into smaller files.",
                code="text_too_long",
            )
        if self.chars > loaders.MAX_TEXT_CHARS:
            raise DocumentError(
                f"{self.name} holds more than {loaders.MAX_TEXT_CHARS:,} characters of text, "
                "the limit for one document; split it into smaller files.",
                code="text_too_long",
            )


def _sheet(title: str, rows: Iterable[Sequence[Cell]], budget: _Budget) -> list[Block]:
    section = (title,) if title else ()
    read = list(_rows(rows, budget))
    notes = _notes(read)
    return [
        Block(_note(cells) if n in notes else CELLS.join(cells), section, row=n)
        for n, cells in read
    ]


def _notes(rows: Sequence[tuple[int, list[str]]]) -> set[int]:
    """The numbers of the rows written around a sheet's table rather than in it, read as
    lines of text: its table is the run of rows holding values (numbers, dates,
    TRUE/FALSE) from the first two in a row to the last, under the row of words right
    above them (its header); a note spread over cells above that header ("simply cannot
    resist writing | - | - | - | - | some notes") or below the last row holding a value
    is none of its rows, and would head the table in its header's place. A sheet
    whose values have no row of words right above them, or only a row of their units
    under the header ("- | €m | €m"), keeps every row."""
    valued = [any(_value(cell) for cell in cells) for _, cells in rows]
    first = next((i for i in range(len(rows) - 1) if valued[i] and valued[i + 1]), None)
    if first is None or first == 0:
        return set()
    header = [cell for cell in rows[first - 1][1] if cell != EMPTY_CELL]
    if len(header) < 2 or valued[first - 1] or units(header):
        return set()  # no row of words right above the values, or their units ("€m | €m")
    last = max(i for i, held in enumerate(valued) if held)
    around = [*rows[: first - 1], *rows[last + 1 :]]
    return {n for n, cells in around if len(cells) > 1}


def _value(cell: str) -> bool:
    return cell in _BOOLEANS or bool(AMOUNT.match(cell))


def _note(cells: Sequence[str]) -> str:
    """A note's cells as one line of text."""
    return " ".join(cell for cell in cells if cell != EMPTY_CELL)


_BOOLEANS = frozenset({"TRUE", "FALSE"})


def _rows(rows: Iterable[Sequence[Cell]], budget: _Budget) -> Iterator[tuple[int, list[str]]]:
    """Each non-empty row's number in the sheet (counting the empty ones, as the
    spreadsheet numbers them) and its cells as text, trailing empty cells dropped; a row
    of cells keeps them up to the width of the rows above it (a release not yet dated
    under "release | eol": each cell stays under its column), a line of one cell (a
    note) does not."""
    width = 0
    for n, row in enumerate(rows, 1):
        cells = [_text(value) for value in row]
        budget.spend(len(cells), sum(map(len, cells)))
        while cells and not cells[-1]:
            cells.pop()
        if len(cells) > 1:
            cells += [""] * (width - len(cells))
            width = len(cells)
        if any(cells):
            yield n, [cell or EMPTY_CELL for cell in cells]


def _text(value: Cell) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat(" ")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return clean(str(value)).replace(CELLS, " / ")
