"""Spreadsheets: Excel workbooks (.xlsx) and CSV files, a sheet at a time.

Each sheet is a section named after it; each row is a block of its cells joined by
``CELLS`` that knows its number in the sheet (a citation names it: "row 12"), the
table's header row first, so a row's column names are the table header every reader
of tables already finds (``blocks.table_headers``): chunks are embedded with it and
quotes of a row are shown under it. Notes written around the table, above its header
or below its last row, are read as lines of text, not as rows (``_notes``). Tables set
side by side are read apart; blocks of one table's columns for another model, year or
run, on the same rows, are read by the first block's labels and named by their titles
("beta | clock3 ElnfX": ``_side_by_side``). Empty
rows and trailing empty cells are dropped; a workbook's cells are read as last
calculated (a formula's value, not its text), and a number as the sheet shows it: a
percentage as one ("0.00%": 23.53%), a format of fixed decimals or a thousands separator as
it prints ("#,##0": 1,234,568), any other to the 10 significant digits a column of the
default width shows (a sum's 27.299999999999997 is 27.3, an average 3966.666667). Reading
stops with a clear error past ``loaders.MAX_SHEET_CELLS`` cells or
``loaders.MAX_TEXT_CHARS`` characters: a sheet that claims a million rows is never walked
to the end.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import itertools
import re
from collections.abc import Iterable, Iterator, Sequence

from footnoted import loaders
from footnoted.errors import DocumentError
from footnoted.lexical import CELLS, EMPTY_CELL
from footnoted.models import ParsedDocument

from .blocks import AMOUNT, Block, assemble, clean, clean_title, units
from .sizes import check_archive

Cell = object
SHARED_ROWS = (
    0.75  # of the rows of two tables side by side, shared: one's read by the other's labels
)


def load_xlsx(data: bytes, _text: str | None, name: str) -> ParsedDocument:
    check_archive(data, name, ".xlsx")
    import openpyxl  # here: a worker that never reads a workbook never pays its import

    book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        budget = _Budget(name)
        blocks: list[Block] = []
        for sheet in book.worksheets:
            sheet.reset_dimensions()  # never trust a sheet's claimed size: read what is there
            rows = ([_shown(cell) for cell in row] for row in sheet.iter_rows())
            blocks += _sheet(clean(sheet.title), rows, budget)
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
    blocks = []
    for table in map(_pivot_header, _side_by_side(list(_rows(rows, budget)))):
        notes = _notes(table)
        blocks += [
            Block(_note(cells) if n in notes else CELLS.join(cells), section, row=n)
            for n, cells in table
        ]
    return blocks


Row = tuple[int, list[str]]
Rows = list[Row]


def _side_by_side(rows: Rows) -> list[Rows]:
    """A sheet's tables set side by side, each read as a table of its own, left to right
    (data in A:E and its pivot table in G:K, from row 2 to 6): columns empty in every
    row part them, where the rows on the two sides begin or end apart. A spacer column
    inside one table (a label, an empty column, its figures) has its rows on both sides
    and parts nothing, unless its blocks print their titles above their headers ("clock2"
    over A:D, "clock3" over F:G). Titled blocks on the same rows are read by the first's
    labels and their titles (``_titled``)."""
    width = max((len(cells) for _, cells in rows), default=0)
    empty = {
        c
        for c in range(1, width - 1)
        if all(len(cells) <= c or cells[c] == EMPTY_CELL for _, cells in rows)
    }
    spans = [  # the runs of columns between empty ones
        (run[0], run[-1] + 1)
        for held, group in itertools.groupby(range(width), key=lambda c: c not in empty)
        if held and (run := list(group))
    ]
    parts = [
        [(n, cells[lo:hi]) for n, cells in rows if any(c != EMPTY_CELL for c in cells[lo:hi])]
        for lo, hi in spans
    ]
    parts = [part for part in parts if part]
    if len(parts) < 2:
        return [rows]
    first, others = parts[0], parts[1:]
    named = _titled(first)
    titled = named != first  # blocks of one table: each titled above its header
    shared = [titled and _shares(first, part) for part in others]
    apart = len({(part[0][0], part[-1][0]) for part in parts}) == len(parts)
    if not apart and not any(shared):
        return [rows]  # one table, a spacer column inside it
    if not any(shared):
        return parts  # a pivot table beside its data: a table of its own
    header = next(n for n, cells in first if _filled(cells) >= 2)  # titled: it has one
    keys = {n: cells[0] for n, cells in first if n >= header}
    keyed = [
        _titled([_led(n, cells, keys, header, first[-1][0]) for n, cells in part]) if ours else part
        for part, ours in zip(others, shared, strict=True)
    ]
    return [named, *keyed]


def _led(n: int, cells: list[str], keys: dict[int, str], header: int, last: int) -> Row:
    """A row of a block beside the first, led by the first block's label cell on its
    row, an empty one where the first prints none (so its values stay under their
    columns), from the first's header to its last row; a row above or below them (a
    title, a result under the block) as it is."""
    if not header <= n <= last:
        return n, cells
    return n, [keys.get(n, EMPTY_CELL), *cells]


def _shares(first: Rows, part: Rows) -> bool:
    """Whether a table set beside the sheet's first (titled above its header) is a block
    of its columns for another model, year or run ("clock2" in A:D, "clock3" in F:G, rows
    2 to 18 both): on the same rows, its rows led by values, not labels of their own (a
    pivot table beside its data has its own rows and labels)."""
    ours, theirs = {n for n, _ in part}, {n for n, _ in first}
    if len(ours & theirs) < SHARED_ROWS * len(ours | theirs):
        return False
    leads = [cells[0] for _, cells in part if _filled(cells) and cells[0] != EMPTY_CELL]
    return 2 * sum(map(_value, leads)) > len(leads)


def _titled(part: Rows) -> Rows:
    """A table of blocks side by side on the same rows, read as one: each of a block's
    rows led by the first block's label cell of that row (the caller: "beta | ElnfX"
    over "0.9947 | -34998.8522"), and its columns named with the title it prints in one
    cell right above its header ("clock3" over "ElnfX | w*Efx": "clock3 ElnfX"), as a
    header over two rows is read, so each value is read by its row and its block."""
    at = next((i for i, (_, cells) in enumerate(part) if _filled(cells) >= 2), None)
    if not at or _filled(part[at - 1][1]) != 1:
        return part
    title = next(c for c in part[at - 1][1] if c != EMPTY_CELL)
    n, cells = part[at]
    named = [cells[0], *(c if c == EMPTY_CELL else f"{title} {c}" for c in cells[1:])]
    return [*part[:at], (n, named), *part[at + 1 :]]


def _filled(cells: Sequence[str]) -> int:
    return sum(c != EMPTY_CELL for c in cells)


def _pivot_header(rows: Rows) -> Rows:
    """A pivot table's header as one row: Excel sets what it sums up over its column
    labels ("Average of body_mass_g | Column Labels") and "Row Labels" before them
    ("Row Labels | female | male | Grand Total"); read as "Average of body_mass_g |
    female | male | Grand Total", its rows are read under their columns and what they
    give."""
    for i in range(1, len(rows)):
        above, (n, cells) = rows[i - 1][1], rows[i]
        filled = [cell for cell in above if cell != EMPTY_CELL]
        if cells[0] == _ROW_LABELS and len(filled) == 2 and filled[1] == _COLUMN_LABELS:
            return [*rows[: i - 1], (n, [filled[0], *cells[1:]]), *rows[i + 1 :]]
    return rows


_ROW_LABELS, _COLUMN_LABELS = "Row Labels", "Column Labels"


def _notes(rows: Sequence[tuple[int, list[str]]]) -> set[int]:
    """The numbers of the rows written around a sheet's table rather than in it, read as
    lines of text: its table is the run of rows holding values (numbers, dates,
    TRUE/FALSE) from the first two in a row to the last, under the row of words right
    above them (its header), or the row above rows of words that leave blank the columns
    of values it names (a first row whose values are all blank); a note spread over
    cells above that header ("simply cannot resist writing | - | - | - | - | some
    notes") or below the last row holding a value is none of its rows, and would head
    the table in its header's place. A sheet whose values have no row of words right
    above them, or only a row of their units under the header ("- | €m | €m"), keeps
    every row."""
    valued = [any(_value(cell) for cell in cells) for _, cells in rows]
    first = next((i for i in range(len(rows) - 1) if valued[i] and valued[i + 1]), None)
    if first is None or first == 0:
        return set()
    columns = [i for i, cell in enumerate(rows[first][1]) if _value(cell)]
    while first > 1 and not valued[first - 2] and _blank_under(rows[first - 2 : first], columns):
        first -= 1  # its first rows hold no value ("S1E1 | Hey Upper East Siders…" under
        # "Season/episode | Blast | Blair | …", its scores blank): the header names them
    header = [cell for cell in rows[first - 1][1] if cell != EMPTY_CELL]
    if len(header) < 2 or valued[first - 1] or units(header):
        return set()  # no row of words right above the values, or their units ("€m | €m")
    last = max(i for i, held in enumerate(valued) if held)
    around = [*rows[: first - 1], *rows[last + 1 :]]
    return {n for n, cells in around if len(cells) > 1}


def _blank_under(pair: Sequence[Row], columns: Sequence[int]) -> bool:
    """Whether of two rows the lower leaves blank every column of values (``columns``)
    that the upper fills: the lower is a row of the table whose values are missing, the
    upper its header."""
    (_, upper), (_, lower) = pair
    return all(
        i < len(upper) and upper[i] != EMPTY_CELL and (i >= len(lower) or lower[i] == EMPTY_CELL)
        for i in columns
    )


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


def _shown(cell: object) -> Cell:
    """A workbook cell's number as the sheet shows it: in a format of fixed decimals, a
    thousands separator or a percentage as that format prints it ("0.00%": 23.53%,
    "#,##0": 1,234,568), any other (General) to the 10 significant digits a column of
    the default width shows (3966.666667)."""
    value = getattr(cell, "value", None)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    form = (getattr(cell, "number_format", None) or "").split(";")[0]
    fixed = _FIXED.fullmatch(_PADDING.sub("", form).strip())
    if fixed is None:
        return value if isinstance(value, int) or value.is_integer() else float(f"{value:.10g}")
    places = len(fixed["decimals"] or ".") - 1
    separator = "," if fixed["thousands"] else ""
    if fixed["percent"]:
        return f"{value * 100:{separator}.{places}f}%"
    return f"{value:{separator}.{places}f}"


_FIXED = re.compile(r"(?P<thousands>#,##)?0(?P<decimals>\.0+)?(?P<percent>%)?")
_PADDING = re.compile(r"_.|\*.")  # a space a character wide, a fill: alignment alone


def _text(value: Cell) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.15g}"
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat(" ")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return clean(str(value)).replace(CELLS, " / ")
