"""PDF page furniture: text printed on a page that is not the document's prose.

Running headers and footers (the same short line at the same place on many pages,
whatever page number or date it carries), a slide deck's navigation down its side, page
numbers, line-number gutters (a court transcript's "1 2 3 … 25"), a chart's axes (its
ticks "20 40 60 … 140" a line each, or "1 | 2 | 3 … | 31" as one row) and tables of
contents (dot leaders, or a "Contents" page whose entries end in ascending page numbers)
are removed before the layout, so they are never quoted. A guard keeps the heuristic from
emptying a document whose lines merely look alike: repeated lines are only dropped when
they are a small part of the text.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict
from typing import TYPE_CHECKING

from footnoted.lexical import CELLS

if TYPE_CHECKING:
    from .pdflayout import Line

_PAGE_NUMBER = re.compile(
    r"^\s*[-–—]?\s*(?:page\s+)?(?:\d{1,4}|[ivxlc]{1,7})(?:\s*(?:/|of)\s*\d{1,4})?\s*[-–—]?\s*$",
    re.IGNORECASE,
)
_DOT_LEADER = re.compile(r"(?:\.\s?){4,}|(?:…\s?){2,}|(?:_\s?){6,}\s*\d+\s*$")
_PAGE_REF = re.compile(r"(?:^|\s|\|\s)(\d{1,4}|[ivxlc]{1,7})\s*$", re.IGNORECASE)
_CONTENTS = frozenset({"contents", "tableofcontents"})
MAX_RUNNING_WORDS = 16  # a running header or footer is short
MAX_DROPPED_SHARE = 0.25  # repeated lines beyond this share of the text are content
AXIS_TICKS = 5  # a chart's ticks, a line each, at the least
AXIS_ROW = 10  # a chart's ticks read as one row, at the least
_TICK = re.compile(r"-?\d{1,6}(?:\.\d{1,4})?")


def furniture_key(text: str) -> str:
    return re.sub(r"\d+", "#", " ".join(text.lower().split()))


def _short(text: str) -> bool:
    """Whether a line is short enough to be furniture, and more than a mark or a number."""
    return len(text.split()) <= MAX_RUNNING_WORDS and len(_alnum(text)) > 3


def _alnum(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def drop_furniture(pages: list[list[Line]]) -> None:
    """Remove running headers/footers, page numbers, line-number gutters and tables of
    contents from ``pages`` (in place)."""
    budget = MAX_DROPPED_SHARE * sum(len(line.text) for lines in pages for line in lines)
    running = _running_lines(pages) | _trailing_lines(pages)
    side = _side_lines(pages) - running
    found: set[tuple[int, int]] = set()
    for lines_alike in (running, side):  # each within what is left of the budget
        size = _size(pages, lines_alike)
        if size <= budget:
            found |= lines_alike
            budget -= size
    _drop(pages, found)
    # then page numbers, which a running footer may have sat under
    count = len(pages)
    _drop(pages, {(p, i) for p, lines in enumerate(pages) for i in _page_furniture(lines, count)})


def _size(pages: list[list[Line]], lines: set[tuple[int, int]]) -> int:
    """How much text the ``lines`` (page, index) of ``pages`` hold."""
    return sum(len(pages[p][i].text) for p, i in lines)


def _drop(pages: list[list[Line]], lines: set[tuple[int, int]]) -> None:
    """Remove the ``lines`` (page, index) from ``pages``."""
    for number, kept in enumerate(pages):
        pages[number] = [line for i, line in enumerate(kept) if (number, i) not in lines]


def _running_lines(pages: list[list[Line]]) -> set[tuple[int, int]]:
    """Lines among a page's first and last three that repeat, digits aside, at about the
    same height on three or more pages and on at least half of them; or, a page's very
    first or last line, on three or more of a run of pages (a chapter's running head). A
    table's row is not
    one where more than one of its numbers changes from page to page: the first row of a
    table printed at the head of each page ("1 | 107 | 89 | 107" on January's page,
    "1 | 66 | 111 | 93" on February's), where a running footer changes its page number
    alone."""
    places: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for p, lines in enumerate(pages):
        edges = {i for i in (0, 1, 2, len(lines) - 3, len(lines) - 2, len(lines) - 1)}
        for i in sorted(i for i in edges if 0 <= i < len(lines)):
            text = lines[i].text
            if _short(text):
                places[furniture_key(text)].append((p, i))
    found: set[tuple[int, int]] = set()
    for spots in places.values():
        heights = Counter(round(pages[p][i].top / 4) for p, i in spots)
        steady = [
            (p, i)
            for p, i in spots
            if abs(round(pages[p][i].top / 4) - heights.most_common(1)[0][0]) <= 1
        ]
        on_pages = {p for p, _ in steady}
        rows = any(pages[p][i].row for p, i in steady)
        # a chapter's running head ("How to use bzip2" over its pages alone): a page's
        # first or last line, on at least half the pages from its first to its last
        chapter = (
            not rows
            and all(i in (0, len(pages[p]) - 1) for p, i in steady)
            and 2 * len(on_pages) >= max(on_pages) - min(on_pages) + 1
        )
        if len(on_pages) < 3 or (len(on_pages) < len(pages) / 2 and not chapter):
            continue
        if rows and _changing_numbers([pages[p][i].text for p, i in steady]) > 1:
            continue
        found.update(steady)
    return found


def _side_lines(pages: list[list[Line]]) -> set[tuple[int, int]]:
    """Short lines printed word for word at one place, the same left edge and height, on
    four or more pages and on at least three quarters of them, wherever on the page: a
    slide deck's navigation down its side ("About", "Installation", "Testing" on every
    slide). Not a slide's bullets printed again on the pages that uncover the next ones
    (a few pages of the deck), nor a table's row (a long table's header printed on each
    of its pages heads it there)."""
    places: dict[tuple[str, int, int], list[tuple[int, int]]] = defaultdict(list)
    for p, lines in enumerate(pages):
        for i, line in enumerate(lines):
            text = line.text
            if line.row or not _short(text):
                continue
            printed = " ".join(text.split())  # word for word: a page's own figures differ
            places[(printed, round(line.left / 4), round(line.top / 4))].append((p, i))
    found: set[tuple[int, int]] = set()
    for spots in places.values():
        on_pages = {p for p, _ in spots}
        if len(on_pages) >= 4 and 4 * len(on_pages) >= 3 * len(pages):
            found.update(spots)
    return found


def _changing_numbers(texts: list[str]) -> int:
    """How many of the numbers of ``texts`` (lines alike but for their digits) are not
    the same in all of them."""
    numbers = [re.findall(r"\d+", text) for text in texts]
    return sum(len(set(column)) > 1 for column in zip(*numbers, strict=True))


def _trailing_lines(pages: list[list[Line]]) -> set[tuple[int, int]]:
    """A page's last line repeated word for word as the last line of three or more pages,
    and of at least half the pages from its first to its last: a footer printed right
    under the text rather than at one height (a document's id under each page of an
    exhibit appended to a report)."""
    places: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for p, lines in enumerate(pages):
        if lines and not lines[-1].row:
            text = " ".join(lines[-1].text.split())
            if _short(text):
                places[text].append((p, len(lines) - 1))
    found: set[tuple[int, int]] = set()
    for spots in places.values():
        first, last = spots[0][0], spots[-1][0]
        if len(spots) >= 3 and 2 * len(spots) >= last - first + 1:
            found.update(spots)
    return found


def _page_furniture(lines: list[Line], page_count: int) -> set[int]:
    drop = {i for i in (0, len(lines) - 1) if lines and _PAGE_NUMBER.match(lines[i].text)}
    drop.update(i for i, line in enumerate(lines) if _gutter(line.text))
    drop.update(_number_column(lines))
    drop.update(_axes(lines))
    drop.update(i for i, line in enumerate(lines) if _DOT_LEADER.search(line.text))
    drop.update(_contents_lines(lines, page_count))
    return drop


def _gutter(text: str) -> bool:
    """A column of line numbers read as one line: "2 3 4 5 … 25"."""
    words = text.split()
    if len(words) < 5 or not all(word.isdigit() for word in words):
        return False
    numbers = [int(word) for word in words]
    return all(b == a + 1 for a, b in itertools.pairwise(numbers))


def _number_column(lines: list[Line]) -> list[int]:
    """Line numbers printed down the margin, one per line: five or more consecutive
    numbers at the same left edge."""
    numbered = [i for i, line in enumerate(lines) if line.text.strip().isdigit()]
    by_edge: dict[int, list[int]] = defaultdict(list)
    for i in numbered:
        by_edge[round(lines[i].left / 3)].append(i)
    found: list[int] = []
    for column in by_edge.values():
        values = [int(lines[i].text) for i in column]
        if len(column) >= 5 and all(b == a + 1 for a, b in itertools.pairwise(values)):
            found.extend(column)
    return found


def _axes(lines: list[Line]) -> list[int]:
    """A chart's axes: :data:`AXIS_TICKS` or more lines in a row, each a number alone,
    the same step apart ("20", "40", … "140"; "0.0", "0.2", … "1.0"), and a row of
    :data:`AXIS_ROW` integers or more the same step apart ("1 | 2 | 3 … | 31")."""
    found: list[int] = []
    run: dict[int, float] = {}  # the lines of numbers in a row so far, with their values
    for i, line in enumerate([*lines, None]):
        value = None if line is None else _number(line.text)
        if value is not None:
            run[i] = value
            continue
        if len(run) >= AXIS_TICKS and _evenly(list(run.values())):
            found.extend(run)
        run = {}
        cells = [] if line is None or not line.row else line.text.split(CELLS)
        numbers = [float(c) for c in cells if c.strip().isdigit()]
        if len(cells) >= AXIS_ROW and len(numbers) == len(cells) and _evenly(numbers):
            found.append(i)
    return found


def _number(text: str) -> float | None:
    """The number a line is, alone; None for any other line."""
    return float(text) if _TICK.fullmatch(text.strip()) else None


def _evenly(values: list[float]) -> bool:
    """Whether ``values`` go up or down by one step, the same each time."""
    steps = {round(b - a, 6) for a, b in itertools.pairwise(values)}
    return len(steps) == 1 and 0.0 not in steps


def _contents_lines(lines: list[Line], page_count: int) -> range:
    """A table of contents: from a "Contents" line to its last entry, when at least three
    entries end in ascending page numbers and half the lines are such entries."""
    start = next((i for i, line in enumerate(lines) if _alnum(line.text) in _CONTENTS), None)
    if start is None:
        return range(0)
    refs: list[tuple[int, int]] = []
    for i in range(start + 1, len(lines)):
        match = _PAGE_REF.search(lines[i].text)
        if match and match[1].isdigit() and int(match[1]) <= page_count:
            if refs and int(match[1]) < refs[-1][1]:
                break
            refs.append((i, int(match[1])))
    if len(refs) < 3 or 2 * len(refs) < refs[-1][0] - start:
        return range(0)
    return range(start, refs[-1][0] + 1)
