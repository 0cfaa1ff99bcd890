"""An HTML table's rows with each cell under its own column.

SEC filings (and pages exported from spreadsheets) lay a table out on a grid finer than
its columns: an amount's currency sign, the amount and its closing parenthesis or
percent sign sit in cells of their own, empty cells space the columns apart, and a
year's header cell spans the three cells of its amounts (``colspan``). Read cell by
cell, "Revenue | $ | 4,095,135 | $ | 3,208,323" does not line up with "2022 | 2021",
and a blank amount moves the next year's under it. So the cells are placed on the
grid their spans give, a sign joins its amount ("$4,095,135", "(1,234)", "12.5%"), and
the table's columns are the grid ranges its cells fill (narrowest first: a cell over
one column's range widens it, a cell over several spans them). Each row then gives a
cell per column, a blank one reading ``EMPTY_CELL``; a header without a label cell
starts at its first filled column, as a PDF's does. A cell spanning rows (``rowspan``:
"POSIX" beside the rows of its four shells) is read in each row it spans, in its place
on the grid. A row with a cell spanning columns ("Year Ended December 31,") keeps its
filled cells as they are, and so does every row of a table whose cells do not fit one
grid (two cells in one column) or that is wider than :data:`MAX_COLUMNS`."""

from __future__ import annotations

from dataclasses import dataclass

from footnoted.lexical import CELLS, EMPTY_CELL

from .blocks import CURRENCY

MAX_SPAN = 1000  # a colspan read as at most this many grid cells
MAX_COLUMNS = 64  # a wider table keeps its rows' filled cells as they are
_BEFORE = CURRENCY | {"(", *(f"{sign}(" for sign in CURRENCY), *(f"({sign}" for sign in CURRENCY)}
_AFTER = frozenset({")", "%", ")%", "%)"})  # closes the amount before it
_AMOUNT_START = frozenset("0123456789(.-–—")


@dataclass(frozen=True, slots=True)
class Cell:
    """A cell as the page gives it: its text and the grid columns it spans."""

    text: str
    span: int = 1
    rowspan: int = 1


@dataclass(slots=True)
class _Placed:
    text: str
    start: int
    end: int  # past the last grid column


def table_rows(rows: list[list[Cell]]) -> list[str]:
    """Each row as one " | "-joined line (rows without text are left out)."""
    rows = _unspanned(rows)
    placed = [_joined(_on_grid(row)) for row in rows]
    spans = {(c.start, c.end) for row in placed for c in row}
    columns = _columns(spans)
    where = {} if columns is None else {span: _column_of(span, columns) for span in spans}
    lines = []
    for row, cells in zip(rows, placed, strict=True):
        line = _aligned(cells, where, len(columns)) if columns is not None else None
        if line is None:
            line = CELLS.join(cell.text for cell in row if cell.text)
        if line:
            lines.append(line)
    return lines


def _unspanned(rows: list[list[Cell]]) -> list[list[Cell]]:
    """The rows with each cell that spans rows read in every row it spans, at its grid
    column there (the cells of those rows after it moved past it); no cell spans rows
    any more. A row's cell over a spanning cell's column ends that span."""
    out: list[list[Cell]] = []
    carried: dict[int, tuple[Cell, int]] = {}  # grid column -> its cell, rows left
    for row in rows:
        cells: list[Cell] = []
        own = list(reversed(row))
        at = 0
        kept: dict[int, tuple[Cell, int]] = {}
        while own or carried:
            if at in carried:
                cell, left = carried.pop(at)
                if left > 1:
                    kept[at] = (cell, left - 1)
            elif own:
                given = own.pop()
                cell = Cell(given.text, given.span)
                rows_below = min(given.rowspan, MAX_SPAN) - 1
                if rows_below > 0:
                    kept[at] = (cell, rows_below)
            else:  # only cells carried further right: an empty cell up to the next
                cell = Cell("", min(carried) - at)
            cells.append(cell)
            at += _width(cell)
            carried = {c: v for c, v in carried.items() if c >= at}  # the rest overlapped
        out.append(cells)
        carried = kept
    return out


def _width(cell: Cell) -> int:
    """How many grid columns a cell spans (``colspan``, at most :data:`MAX_SPAN`)."""
    return min(max(cell.span, 1), MAX_SPAN)


def _on_grid(row: list[Cell]) -> list[_Placed]:
    cells, at = [], 0
    for cell in row:
        span = _width(cell)
        if cell.text:
            cells.append(_Placed(cell.text, at, at + span))
        at += span
    return cells


def _joined(cells: list[_Placed]) -> list[_Placed]:
    """The row's filled cells, each sign set in a cell of its own joined to its amount."""
    joined: list[_Placed] = []
    for cell in cells:
        before = joined[-1] if joined else None
        if before is not None and (
            (cell.text in _AFTER and before.text[-1].isdigit())
            or (before.text in _BEFORE and cell.text[0] in _AMOUNT_START)
        ):
            before.text += cell.text
            before.end = cell.end
        else:
            joined.append(_Placed(cell.text, cell.start, cell.end))
    return joined


def _columns(spans: set[tuple[int, int]]) -> list[tuple[int, int]] | None:
    """The table's columns as grid ranges, left to right, from the grid ranges its cells
    fill (None: fewer than two columns, or more than :data:`MAX_COLUMNS`)."""
    columns: list[list[int]] = []
    for start, end in sorted(spans, key=lambda span: (span[1] - span[0], span[0])):
        over = [col for col in columns if col[0] < end and start < col[1]]
        if not over:
            if len(columns) == MAX_COLUMNS:
                return None
            columns.append([start, end])
        elif len(over) == 1:
            over[0][0], over[0][1] = min(over[0][0], start), max(over[0][1], end)
    if len(columns) < 2:
        return None
    return sorted((start, end) for start, end in columns)


def _column_of(span: tuple[int, int], columns: list[tuple[int, int]]) -> int | None:
    """The one column a cell's grid range falls in (None: it spans several)."""
    over = [i for i, (a, b) in enumerate(columns) if a < span[1] and span[0] < b]
    return over[0] if len(over) == 1 else None


def _aligned(
    cells: list[_Placed], where: dict[tuple[int, int], int | None], width: int
) -> str | None:
    """The row with a cell per column; None where a cell spans columns or two share one."""
    by_column: dict[int, str] = {}
    for cell in cells:
        column = where[cell.start, cell.end]
        if column is None or column in by_column:
            return None
        by_column[column] = cell.text
    if not by_column:
        return ""
    last = width - 1
    first = min(by_column) if 0 not in by_column and last in by_column else 0
    return CELLS.join(by_column.get(i, EMPTY_CELL) for i in range(first, last + 1))
