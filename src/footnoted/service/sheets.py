"""A spreadsheet's rows around a cited one, for the viewer: the row in its table.

A workbook or CSV file is stored as text, a row a block, each chunk knowing where its
rows start and their numbers in the sheet (``Chunk.rows``). The viewer shows a cited
row as the sheet shows it: under its table's header row (the sheet's first, or the row
of words right above its values where notes are written above it), with the rows
around it, each with its number (a table set beside another: its own rows).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import NotFound
from ..lexical import CELLS, line_end
from ..loaders.blocks import table_headers
from ..stores.base import Store

AROUND = 10  # rows shown before and after the cited one


@dataclass(frozen=True, slots=True)
class SheetRow:
    number: int  # in the sheet, as the spreadsheet numbers it
    cells: list[str]
    start: int  # document offsets of the row's text
    end: int


@dataclass(frozen=True, slots=True)
class SheetWindow:
    sheet: str | None  # the sheet's name (None: a CSV file)
    header: SheetRow
    rows: list[SheetRow]  # the cited row and those around it, the header left out
    cited: int  # the cited row's number


def rows_around(store: Store, document_id: str, at: int) -> SheetWindow:
    """The sheet rows around the one at document offset ``at`` (``NotFound``:
    ``not_a_sheet`` where the document has no rows there)."""
    places: dict[int, tuple[int, str | None]] = {}  # row start -> (number, sheet)
    for chunk in store.document_chunks(document_id):
        for start, number in chunk.rows:
            places.setdefault(start, (number, chunk.section))
    starts = sorted(places)
    before = [s for s in starts if s <= at]
    if not before:
        raise NotFound("The document has no spreadsheet row there.", code="not_a_sheet")
    cited_start = before[-1]
    cited, sheet = places[cited_start]
    same = _table_of(cited_start, [s for s in starts if places[s][1] == sheet], places)
    text = store.document_text(document_id, same[0], _end_of(store, document_id, same[-1]))
    rows = [_row(text, same[0], start, places[start][0]) for start in same]
    [heading] = table_headers(text, [cited_start - same[0]])
    # the table's header row, past the notes written above it; else the sheet's first
    header = next((r for r in rows if CELLS.join(r.cells) == heading), rows[0])
    body = [r for r in rows if r is not header]
    where = next((i for i, r in enumerate(body) if r.start == cited_start), 0)
    window = body[max(where - AROUND, 0) : where + AROUND + 1]
    return SheetWindow(sheet, header, window, cited)


def _table_of(at: int, starts: list[int], places: dict[int, tuple[int, str | None]]) -> list[int]:
    """The starts of the rows of the table holding the row at ``at``, among its sheet's:
    a table set beside another numbers its rows from the top again."""
    tables: list[list[int]] = []
    for start in starts:
        if not tables or places[start][0] <= places[tables[-1][-1]][0]:
            tables.append([])
        tables[-1].append(start)
    return next(table for table in tables if at in table)


def _end_of(store: Store, document_id: str, start: int) -> int:
    """Where the block starting at ``start`` ends (a row is one line)."""
    line = store.document_text(document_id, start, start + 100_000)
    cut = line.find("\n")
    return start + (len(line) if cut < 0 else cut)


def _row(text: str, base: int, start: int, number: int) -> SheetRow:
    at = start - base
    end = line_end(text, at)
    return SheetRow(number, text[at:end].split(CELLS), start, base + end)
