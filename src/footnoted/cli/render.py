"""An answer on the terminal: its text as written, a table answer as a table.

Answers are Markdown for every client: a table row comes under its header row as a
small Markdown table ("| Region | 2021 | 2022 |", "| --- | --- | --- |", …). A terminal
shows such a block as a table, its cells lined up and its figures right-aligned; the
rest of the answer prints as it streams. Piped or redirected, the answer is printed
exactly as the API gives it, Markdown and all, for a script to read.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

_RULE = re.compile(r"\|(?:\s*:?-{3,}:?\s*\|)+")  # "| --- | ---: |": a table's header rule
_FIGURE = re.compile(r"[\s$€£¥%()+\-–.,]*[0-9][0-9\s$€£¥%()+\-–.,]*")  # "$ (1,009,359)", "23.5%"
_NIL = re.compile(r"[-–—−]+|n/?a", re.IGNORECASE)  # a figure's cell that holds none: "—", "n/a"


class AnswerPrinter:
    """Prints an answer fed to it piece by piece (``feed``, then ``close``). On a
    terminal a run of table lines (each opening with "|") is held until it ends and
    printed as a table; every other line prints as soon as it arrives. ``exact`` (start,
    end in the whole answer) is shown in bold: the exact answer, or its cell."""

    def __init__(self, console: Console, exact: tuple[int, int] | None = None) -> None:
        self.console = console
        self.exact = exact
        self.tables = console.is_terminal
        self._pending = ""  # text not yet printed: the start of a line that may be a row
        self._at = 0  # where ``_pending`` starts in the whole answer
        self._rows: list[tuple[int, str]] = []  # the table being read: each line's start
        self._in_line = False  # the current line has begun printing: it is no row

    def feed(self, text: str) -> None:
        if not self.tables:
            self._text(text, self._at)
            self._at += len(text)
            return
        self._pending += text
        while True:
            if self._in_line or not self._pending:
                cut = self._pending.find("\n")
                if cut < 0:
                    self._text(self._pending, self._at)
                    self._advance(len(self._pending))
                    return
                self._text(self._pending[: cut + 1], self._at)
                self._advance(cut + 1)
                self._in_line = False
                continue
            cut = self._pending.find("\n")
            line = self._pending if cut < 0 else self._pending[:cut]
            if not line.lstrip().startswith("|"):
                if line.strip() or cut >= 0:
                    self._flush_table()
                    self._in_line = True
                    continue
                return  # nothing but spaces yet: wait for what the line is
            if cut < 0:
                return  # a row not yet whole
            self._rows.append((self._at, line))
            self._advance(cut + 1)

    def close(self) -> None:
        """Prints what is held: the last line and a table the answer ends with."""
        if self._pending.lstrip().startswith("|"):
            self._rows.append((self._at, self._pending))
            self._advance(len(self._pending))
        self._flush_table()
        if self._pending:
            self._text(self._pending, self._at)
            self._advance(len(self._pending))

    def _advance(self, n: int) -> None:
        self._pending = self._pending[n:]
        self._at += n

    def _text(self, text: str, at: int) -> None:
        if text:
            self.console.print(self._marked(text, at), end="", soft_wrap=True)

    def _marked(self, text: str, at: int) -> Text:
        shown = Text(text)
        if self.exact is not None:
            start, end = max(self.exact[0] - at, 0), min(self.exact[1] - at, len(text))
            if start < end:
                shown.stylize("bold underline", start, end)
        return shown

    def _flush_table(self) -> None:
        rows, self._rows = self._rows, []
        if not rows:
            return
        table = _table(rows, self._marked)
        if table is None:  # lines opening with "|" that are no table: as they are
            for at, line in rows:
                self._text(line + "\n", at)
            return
        self.console.print(table)


def _table(rows: list[tuple[int, str]], marked: Callable[[str, int], Text]) -> Table | None:
    """A Markdown table's lines as a table: the lines before its rule head it (none
    without one); None where the lines are not a table."""
    rule = next((i for i, (_, line) in enumerate(rows) if _RULE.fullmatch(line.strip())), None)
    cells = [_cells(at, line) for i, (at, line) in enumerate(rows) if i != rule]
    if not cells or (rule is None and len(cells) < 2):  # a rule alone is no table either
        return None
    heads = cells[:rule] if rule is not None else []
    body = cells[len(heads) :]
    width = max(len(row) for row in cells)
    table = Table(box=box.SIMPLE_HEAD, show_header=bool(heads), show_edge=False, pad_edge=False)
    for column in range(width):
        values = [row[column][1] for row in body if column < len(row) and row[column][1]]
        values = [v for v in values if not _NIL.fullmatch(v)]
        figures = bool(values) and all(_FIGURE.fullmatch(v) for v in values)
        named = [row[column] for row in heads if column < len(row)]
        head = Text(" ").join(marked(text, at) for at, text in named)
        table.add_column(head, justify="right" if figures else "left", overflow="fold")
    for row in body:
        shown = [marked(text, at) for at, text in row]
        table.add_row(*shown, *([Text("")] * (width - len(shown))))
    return table


def _cells(at: int, line: str) -> list[tuple[int, str]]:
    """A Markdown table line's cells, each with where its text starts in the answer."""
    start = line.find("|") + 1
    end = len(line.rstrip())
    end = end - 1 if line[:end].endswith("|") and end > start else end
    cells: list[tuple[int, str]] = []
    for raw in line[start:end].split("|"):
        cells.append((at + start + len(raw) - len(raw.lstrip()), raw.strip()))
        start += len(raw) + 1
    return cells
