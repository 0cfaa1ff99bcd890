"""A table row the question names: how a value asked of a table is found.

The reader learned to answer from sentences; asked "Tesla 52-week high?" or "How much
did Boeing spend on research and development in 2022?", it prefers a sentence about
the metric to the row that holds the value, or believes nothing in a row of numbers. A
table answers such a question when one of its rows is named by the question and one of
its columns is too. A row is named by its label cells ("Tesla", "Research and
development"), less the words of the document's title and of the table's caption (the
passage's prose above its rows and its section: "stock-based compensation expense"
names the table, not its total row). A column is named by the year asked, in a header
of years, else by the header's words or their initials ("P/E": "Price/Earnings").
Between rows named as well, one of percentages answers a question asking for a
percentage, margin or rate, and one of amounts any other. That row, among the passages
read, leads the answer: it is quoted under its header with the named cell marked
(``quotes``), and the answer's trust says how far a row like it is right (``trust``).
Rows named equally well in different passages lead by retrieval order; a question naming
no column, or two rows of one passage alike, is left to the reader. A named row whose
named cell is empty answers nothing: the table does not hold the value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..inference.reader import Reading
from ..lexical import CELLS, bag
from .evidence import Read
from .quotes import (
    Context,
    asked_terms,
    column_terms,
    header_of,
    header_row,
    label_words,
    table_words,
    value_at,
)

YEAR = re.compile(r"\b(?:19|20)\d\d\b")
_VALUE = re.compile(r"[\s$€£%().,\-–\d]*\d[\s$€£%().,\-–\d]*")
_PERCENT = re.compile(r"%|\bpercent|\bmargin|\brate\b|\bratio\b|\bshare of\b|\bproportion")
_NOT_A_VALUE = re.compile(  # questions that ask for a reason, a way or a meaning
    r"^\s*(?:why|how (?:do|does|did|can|could|should|to)\b)|\bmean\b|\bdefin"
    r"|\b(?:drove|drive[sn]?|caused?|led to|reasons?|explains?)\b"
)


@dataclass(frozen=True, slots=True)
class Named:
    """The row the question names, as its passage read at that row; ``filled``: the
    named cell holds a value (an empty one says the table does not hold the answer)."""

    read: Read
    filled: bool


def named_row(question: str, read: Sequence[Read], context: Context | None) -> Named | None:
    """The row of the passages read that the question names (see the module); None
    when no row is named with one of its columns."""
    q = question.lower()
    if _NOT_A_VALUE.search(q):
        return None
    terms = asked_terms(question)
    years = set(YEAR.findall(question))
    percent = bool(_PERCENT.search(q))
    best: tuple[tuple[int, int, int, bool, bool], Named] | None = None
    for r in read:
        found = _row_in(r, terms, years, percent, context)
        if found is not None and (best is None or found[0] > best[0]):
            best = found
    return None if best is None else best[1]


def _row_in(
    r: Read, terms: frozenset[str], years: set[str], percent: bool, context: Context | None
) -> tuple[tuple[int, int, int, bool, bool], Named] | None:
    """The row of ``r``'s passage the question names best, with how well it is named
    (label words the table's caption lacks, label words, column words, a filled cell,
    amounts in the unit asked: percentages where ``percent``, else not), when exactly
    one row is named best and a column too."""
    text = r.hit.chunk.text
    terms = terms - bag(r.hit.document_title)  # "Boeing" of Boeing's report names no row
    table = table_words(text, r.hit.chunk.section)
    scored: list[tuple[tuple[int, int, int, bool, bool], int, int]] = []
    at = 0
    for line in text.split("\n"):
        start, end = at, at + len(line)
        at = end + 1
        cells = line.split(CELLS)
        if len(cells) < 2 or not any(_VALUE.fullmatch(c) for c in cells[1:]):
            continue  # a row of values
        label = terms & bag(label_words(line))
        if not label:
            continue
        row = r.hit.chunk.char_start + start
        header = header_row(r, row) if r.hit.chunk.header is not None else None
        if header is None:
            found = header_of(r, row, context)  # a passage stored before headers were kept
            header = None if found is None else found.text
        if header is None:
            continue
        column, index = _column(header, terms, years)
        if column:
            unit = ("%" in CELLS.join(cells[1:])) == percent
            named = (len(label - table), len(label), column, _filled(cells, header, index), unit)
            scored.append((named, start, end))
    if not scored:
        return None
    top = max(s for s, _, _ in scored)
    rows = [(a, b) for s, a, b in scored if s == top]
    if len(rows) > 1:
        return None
    start, end = rows[0]
    while start < end and not text[start].strip():
        start += 1
    reading = Reading(r.reading.score, start, end)
    return top, Named(replace(r, reading=reading, named=True), bool(top[3]))


def _column(header: str, terms: frozenset[str], years: set[str]) -> tuple[int, int | None]:
    """How well the question names a column of ``header`` (2 by a year it asks about, 1
    by its words, 0 not at all: a year asked and not in a header of years is 0; in a
    header without years, the year asked is the whole table's, and words name the
    column, by its words or their initials: "P/E" names "Price/Earnings"), and which
    column, when one is named alone."""
    names = header.split(CELLS)
    if years and YEAR.search(header):  # a header without years: the year is the table's
        named = [i for i, n in enumerate(names) if years & set(YEAR.findall(n))]
        return (2 if named else 0), (named[0] if len(named) == 1 else None)
    counts = [len(terms & column_terms(n)) for n in names]
    best = max(counts, default=0)
    return (1 if best else 0), (counts.index(best) if best and counts.count(best) == 1 else None)


def _filled(cells: list[str], header: str, index: int | None) -> bool:
    """Whether the row has a value under the named column (an empty cell, read ``-``,
    says the table does not hold it), read where ``value_at`` says."""
    if index is None:
        return True
    at = value_at(CELLS.join(cells), header, index)
    if at is None:
        return True  # no cell of the row's own there to read
    return at < len(cells) and cells[at].strip() not in ("", "-")
