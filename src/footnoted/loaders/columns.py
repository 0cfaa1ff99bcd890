"""A table set in columns by spaces, as plain text and e-mail print one.

A program's report pasted into a message or a text file lines its figures up under a
header with runs of spaces:

    OVERALL%   SPAM% NONSPAM%     S/O  NAME
      15113     4797    10316    0.32  (all messages)
      0.635    2.001    0.000    1.00  T_HTML_IMAGE_AREA14

Read as prose, its lines run together into one paragraph of numbers, and no figure can
be told from its neighbour's. A paragraph is such a table when each of its lines (but
perhaps a header on the first) splits at runs of two or more spaces into the same
number of cells, at least :data:`MIN_COLUMNS`, over at least :data:`MIN_ROWS` lines,
and the cells stand in columns: the positions blank on every line, two or more side by
side, part the lines into exactly that many columns. Rules of marks under a header or
round a table ("=====  =====") are no rows. A header printed with fewer gaps ("SPAM%
NONSPAM%" one space apart) is cut where the columns below it are (a word a column where
it has as many words as columns: "Year Revenue Profit Margin"); a first line that ends
a sentence or splits into no cells ("Results were as follows:") is no header, and the
paragraph no table. Each line is then a row of cells joined as every table's are
(:data:`footnoted.lexical.CELLS`). A table of figures printed without a header under the
columns of the table before it in the same text, a few paragraphs on, is read under
that table's header, repeated over its rows.
"""

from __future__ import annotations

import re

from footnoted.lexical import CELLS, EMPTY_CELL

MIN_ROWS = 3  # lines of cells, a header among them
MIN_COLUMNS = 3
CARRY_PARAGRAPHS = 6  # a header is carried down to a table at most this many paragraphs on
_GAP = re.compile(r"[ \t]{2,}")
_RULE = re.compile(r"\s*(?:[-=~_*+#]{3,}\s*)+")  # a rule under a header or round a table
_WORD = re.compile(r"\S+")


class ColumnTables:
    """Reads one text's paragraphs in order for tables set in columns (``rows``),
    carrying a table's header down to the next table printed without one under the same
    columns, within :data:`CARRY_PARAGRAPHS` paragraphs of it (a report that prints its
    header once, over its first table only)."""

    def __init__(self) -> None:
        self._header: str | None = None  # the last table's header row, and its columns
        self._columns: list[tuple[int, int]] = []
        self._since = 0  # paragraphs since that table

    def rows(self, lines: list[str]) -> list[str] | None:
        """The paragraph's lines as table rows (its header first, the one carried down
        where it prints none), or None where they are not a table set in columns."""
        self._since += 1
        if self._since > CARRY_PARAGRAPHS:
            self._header = None
        shown = [t.expandtabs().rstrip() for t in lines if t.strip() and not _RULE.fullmatch(t)]
        if len(shown) < MIN_ROWS:
            return None
        cells = [_GAP.split(line.strip()) for line in shown]
        width = len(cells[-1])
        headed = 0 if all(len(c) == width for c in cells) else 1
        if width < MIN_COLUMNS or any(len(c) != width for c in cells[headed:]):
            return None
        one_a_column = len(shown[0].split()) == width  # "Year Revenue Profit Margin"
        if headed and (shown[0][-1] in ".:" or (len(cells[0]) < 2 and not one_a_column)):
            return None  # a sentence over the lines, no header: "Results were as follows:"
        columns = _columns(shown[headed:])
        if len(columns) != width:
            return None
        rows = [CELLS.join(c) for c in cells[headed:]]
        figures = _numeric(cells[0])
        if headed:
            rows.insert(0, CELLS.join(_cut(shown[0], columns)))
        elif figures and self._header is not None and _under(columns, self._columns):
            rows.insert(0, self._header)  # printed under the last table's columns
        if headed or not figures:  # its first line is its header
            self._header, self._columns = rows[0], columns
        self._since = 0
        return rows


def _numeric(cells: list[str]) -> bool:
    """Whether a row is figures, not a header: most of its cells hold a digit."""
    return sum(any(ch.isdigit() for ch in cell) for cell in cells) * 2 > len(cells)


def _under(columns: list[tuple[int, int]], above: list[tuple[int, int]]) -> bool:
    """Whether each column stands under the same column of a table above."""
    return len(columns) == len(above) and all(
        max(a, c) < min(b, d) for (a, b), (c, d) in zip(columns, above, strict=True)
    )


def _columns(lines: list[str]) -> list[tuple[int, int]]:
    """The spans of the columns the lines' text stands in: runs of positions some line
    prints on, parted by two or more positions blank on every line."""
    end = max(len(line) for line in lines)
    printed = [any(i < len(line) and line[i] != " " for line in lines) for i in range(end)]
    spans: list[tuple[int, int]] = []
    start: int | None = None
    blank = 0  # blank positions since the last printed one
    for i, used in enumerate(printed):
        if used:
            start = i if start is None else start
            blank = 0
            continue
        blank += 1
        if start is not None and blank == 2:  # one blank position is a space in a cell
            spans.append((start, i - 1))
            start = None
    if start is not None:
        spans.append((start, end))
    return spans


def _cut(line: str, columns: list[tuple[int, int]]) -> list[str]:
    """A header line's words, one a column where it has as many as the columns, else
    each in the column it stands over most (the nearest where it stands over none)."""
    found = list(_WORD.finditer(line))
    if len(found) == len(columns):
        return [word.group() for word in found]
    cells: list[list[str]] = [[] for _ in columns]
    for word in found:
        a, b = word.span()

        def fit(index: int, a: int = a, b: int = b) -> tuple[int, int]:
            start, end = columns[index]
            return min(b, end) - max(a, start), -min(abs(a - end), abs(start - b))

        cells[max(range(len(columns)), key=fit)].append(word.group())
    return [" ".join(words) or EMPTY_CELL for words in cells]
