"""PDF layout: a PDF's text lines -> blocks with pages and heading paths.

Drops running headers, footers and page numbers; finds headings from the outline
(bookmarks) or, without one, from size, weight and numbering; groups lines into
paragraphs by their geometry and joins words hyphenated across lines.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field

from .blocks import Block, Sections, clean, clean_title

_PAGE_NUMBER = re.compile(
    r"^\s*(?:page\s+)?(?:\d{1,4}|[ivxlc]{1,7})(?:\s*(?:/|of)\s*\d{1,4})?\s*$", re.IGNORECASE
)
_LIST_MARKER = re.compile(r"^\s*(?:[•◦▪▫●○■□‣⁃∙]\s*|\d{1,2}[.)]\s+(?=[A-Z]))")
_SECTION_NUMBER = re.compile(r"^\s*(\d{1,2}(?:\.\d{1,2})*|[A-Z](?:\.\d{1,2})+)\.?\s+(?=[^\W\d_])")
_ANY_NUMBER_PREFIX = re.compile(r"^\s*(?:\d+(?:\.\d+)*|[A-Z](?:\.\d+)*|[IVXLC]+)\.?\s+")
_LINE_HYPHEN = re.compile(r"([^\W\d_]+)-[ \t]*\n[ \t]*([^\W\d_]+)")
_SOFT_HYPHEN = re.compile("[\ufffe\x02][ \t\r\n]*")
_COMPOUND = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")
_SENTENCE_END = re.compile(r"[.!?:][\"'”’)\]]*(?:\[\d+\])*\s*$")
_NOT_TITLES = frozenset({"contents", "tableofcontents", "abstract", "introduction"})


@dataclass(slots=True)
class Line:
    """One text line of a page with its geometry (PDF units, y grows upwards)."""

    text: str
    left: float = 0.0
    right: float = 0.0
    top: float = 0.0  # top of the line's first characters
    bottom: float = 0.0  # bottom of its last ones (PDFium may merge hyphenated lines)
    size: float = 0.0
    bold: bool = False
    garbled: bool = False  # glyphs without a Unicode mapping: unreadable text
    starts: list[tuple[int, str | None]] = field(default_factory=list)  # sections opening here
    heading: bool = False
    heading_cont: bool = False


@dataclass(frozen=True, slots=True)
class Bookmark:
    level: int
    title: str
    page: int
    y: float | None


def lay_out(
    pages: list[list[Line]], outline: list[Bookmark], meta_title: str | None
) -> tuple[list[Block], str | None]:
    """The blocks and the title of a PDF read as ``pages`` of lines (changed in place)."""
    _drop_furniture(pages)
    body = _body_size(pages)
    ratio = _gap_ratio(pages)
    if outline:
        _apply_outline(pages, outline)
    else:
        _detect_headings(pages, body, ratio)
    vocabulary = _Vocabulary(pages)
    blocks = _pdf_blocks(pages, ratio, vocabulary)
    title = clean_title(meta_title) or _first_page_title(pages, body, vocabulary)
    return blocks, title


def _furniture_key(text: str) -> str:
    return re.sub(r"\d+", "#", " ".join(text.lower().split()))


def _drop_furniture(pages: list[list[Line]]) -> None:
    """Remove page numbers and running headers/footers repeated across pages."""

    def edges(lines: list[Line]) -> set[int]:
        return {i for i in (0, 1, len(lines) - 2, len(lines) - 1) if 0 <= i < len(lines)}

    seen = Counter(
        key for lines in pages for key in {_furniture_key(lines[i].text) for i in edges(lines)}
    )
    repeated = {key for key, n in seen.items() if n >= 3 and n >= len(pages) / 2 and len(key) > 3}
    for number, lines in enumerate(pages):
        drop = {
            i
            for i in edges(lines)
            if _furniture_key(lines[i].text) in repeated
            or (i in (0, len(lines) - 1) and _PAGE_NUMBER.match(lines[i].text))
        }
        pages[number] = [line for i, line in enumerate(lines) if i not in drop]


def _body_size(pages: list[list[Line]]) -> float:
    """The most common text size, weighted by characters."""
    sizes: Counter[float] = Counter()
    for line in itertools.chain.from_iterable(pages):
        if line.size > 0:
            sizes[round(line.size * 2) / 2] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


def _gap_ratio(pages: list[list[Line]]) -> float:
    """A vertical gap (in text heights) above which a new paragraph starts."""
    ratios = []
    for lines in pages:
        for prev, cur in itertools.pairwise(lines):
            size = min(prev.size, cur.size)
            gap = prev.bottom - cur.top
            if size > 0 and abs(prev.size - cur.size) < 0.1 * size and 0 <= gap < 1.5 * size:
                ratios.append(gap / size)
    return (statistics.median(ratios) if ratios else 0.2) + 0.4


def _same_row(prev: Line, cur: Line) -> bool:
    """Pieces of one printed line that PDFium split (e.g. around superscripts)."""
    low = min(prev.size, cur.size)
    overlap = min(prev.bottom + prev.size, cur.top) - max(prev.bottom, cur.top - cur.size)
    return low > 0 and overlap > 0.5 * low and cur.left >= prev.right - 1


def _runs_on(prev: str, cur: str) -> bool:
    """Does ``cur`` look like the continuation of an unfinished ``prev``?"""
    prev, cur = prev.rstrip(), cur.lstrip()
    return (
        bool(prev and cur) and (prev[-1].isalpha() or prev[-1] in ",;-\ufffe") and cur[0].islower()
    )


def _starts_new_block(prev: Line, cur: Line, ratio: float) -> bool:
    height = max(min(prev.size, cur.size), 1.0)
    if _same_row(prev, cur):
        return False
    if abs(prev.size - cur.size) > 0.2 * max(prev.size, cur.size):
        return True
    if cur.top > prev.bottom + height:  # moved up: the next column, or a float
        return not _runs_on(prev.text, cur.text)
    if prev.bottom - cur.top > ratio * height or _LIST_MARKER.match(cur.text):
        return True
    indent = cur.left - prev.left
    return 0.8 * height < indent < 8 * height and not _LIST_MARKER.match(prev.text)


def _key(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def _title_span(lines: list[Line], start: int, key: str) -> int:
    """How many lines from ``start`` spell the heading ``key`` (0 when they do not)."""
    first = lines[start].text
    for variant in {_key(first), _key(_ANY_NUMBER_PREFIX.sub("", first, count=1))}:
        spelled = variant
        for end in range(start, min(start + 4, len(lines))):
            if end > start:
                spelled += _key(lines[end].text)
            if spelled == key:
                return end - start + 1
            if not spelled or not key.startswith(spelled):
                break
    return 0


def _place_bookmark(lines: list[Line], cursor: int, mark: Bookmark) -> int:
    """Open the bookmark's section at its heading line (found by text, else by position)."""
    key = _key(mark.title)
    entry = (mark.level, mark.title)
    for index in range(cursor, len(lines) if key else cursor):
        span = _title_span(lines, index, key)
        if span:
            lines[index].starts.append(entry)
            lines[index].heading = True
            for follower in lines[index + 1 : index + span]:
                follower.heading_cont = True
            return index + span
    index = cursor
    if mark.y is not None:
        below = (i for i in range(cursor, len(lines)) if lines[i].top <= mark.y + 1)
        index = next(below, cursor)
    lines[index].starts.append(entry)
    return index


def _apply_outline(pages: list[list[Line]], marks: list[Bookmark]) -> None:
    by_page: dict[int, list[Bookmark]] = {}
    for mark in marks:
        by_page.setdefault(mark.page, []).append(mark)
    pending: list[Bookmark] = []
    for number, lines in enumerate(pages):
        todo, pending, cursor = pending + by_page.get(number, []), [], 0
        for mark in todo:
            if cursor < len(lines):
                cursor = _place_bookmark(lines, cursor, mark)
            else:
                pending.append(mark)


def _section_depth(text: str) -> int:
    match = _SECTION_NUMBER.match(text)
    return match[1].count(".") + 1 if match else 0


def _heading_depth(lines: list[Line], index: int, body: float, ratio: float) -> int | None:
    """Numbering depth (0 when unnumbered) if the line looks like a heading, else None."""
    line = lines[index]
    text = line.text.strip()
    if len(text.split()) > 15 or len(text) > 120 or text[-1] in ".,;:":
        return None
    if sum(ch.isalpha() for ch in text) < 2:
        return None
    depth = _section_depth(text)
    if line.size >= body * 1.15:
        return depth
    if not line.bold or line.size < body * 0.95:
        return None
    prev = lines[index - 1] if index else None
    nxt = lines[index + 1] if index + 1 < len(lines) else None
    apart = (prev is None or _starts_new_block(prev, line, ratio)) and (
        nxt is None or _starts_new_block(line, nxt, ratio)
    )
    if not apart:
        return None
    return depth if depth or (len(text.split()) <= 5 and text[0].isupper()) else None


def _style(line: Line) -> tuple[float, bool]:
    return round(line.size * 2) / 2, line.bold


def _detect_headings(pages: list[list[Line]], body: float, ratio: float) -> None:
    """Without an outline: headings from size, weight and numbering like "2.1 Method"."""
    found: list[tuple[Line, int]] = []
    for lines in pages:
        previous: Line | None = None
        for index, line in enumerate(lines):
            depth = _heading_depth(lines, index, body, ratio)
            if depth is None:
                previous = None
            elif (
                previous is not None
                and depth == 0
                and _style(previous) == _style(line)
                and not _starts_new_block(previous, line, ratio)
            ):
                line.heading_cont = True  # a heading wrapped onto a second line
            else:
                line.heading = True
                found.append((line, depth))
                previous = line
    numbered: dict[tuple[float, bool], int] = {}
    for line, depth in found:
        if depth:
            numbered[_style(line)] = min(depth, numbered.get(_style(line), depth))
    sizes = sorted({_style(line)[0] for line, depth in found if not depth}, reverse=True)
    for line, depth in found:
        level = depth or numbered.get(_style(line)) or sizes.index(_style(line)[0]) + 1
        line.starts.append((level, None))


def _ends_short(prev: Line, cur: Line, ends: dict[int, float]) -> bool:
    """A sentence that stops well before the column's right edge ends its paragraph."""
    bucket = int(prev.left // 20)
    full = max(ends.get(b, 0.0) for b in (bucket - 1, bucket, bucket + 1))
    slack = max(3 * prev.size, 0.12 * (full - prev.left))
    return (
        prev.right < full - slack
        and bool(_SENTENCE_END.search(prev.text))
        and cur.text.lstrip()[:1].isupper()
        and not _same_row(prev, cur)
    )


def _group_lines(lines: list[Line], ratio: float) -> list[list[Line]]:
    ends: dict[int, float] = {}
    for line in lines:
        ends[int(line.left // 20)] = max(ends.get(int(line.left // 20), 0.0), line.right)
    groups: list[list[Line]] = []
    for index, line in enumerate(lines):
        prev = lines[index - 1] if index else None
        if prev is None or line.starts or line.heading:
            new = True
        elif line.heading_cont:
            new = False
        elif prev.heading or prev.heading_cont:
            new = True
        else:
            new = _starts_new_block(prev, line, ratio) or _ends_short(prev, line, ends)
        if new:
            groups.append([line])
        else:
            groups[-1].append(line)
    return groups


class _Vocabulary:
    """Words and hyphenated pairs seen in the document, to judge line-end hyphens."""

    def __init__(self, pages: list[list[Line]]) -> None:
        self.words: set[str] = set()
        self.pairs: set[str] = set()
        for line in itertools.chain.from_iterable(pages):
            text = line.text.lower()
            self.words.update(re.findall(r"[^\W\d_]+", text))
            for compound in _COMPOUND.findall(text):
                parts = compound.split("-")
                self.pairs.update(f"{a}-{b}" for a, b in itertools.pairwise(parts))

    def join(self, match: re.Match[str]) -> str:
        left, right = match[1], match[2]
        hyphenated = f"{left}-{right}"
        if not (left[-1].islower() and right[0].islower()):
            return hyphenated
        keep = hyphenated.lower() in self.pairs and (left + right).lower() not in self.words
        return hyphenated if keep else left + right

    def text(self, lines: list[Line]) -> str:
        raw = _SOFT_HYPHEN.sub("-\n", "\n".join(line.text for line in lines))
        raw = _LINE_HYPHEN.sub(self.join, raw)
        return clean(re.sub(r"(?<=\S)-\n(?=\S)", "-", raw))


def _pdf_blocks(pages: list[list[Line]], ratio: float, vocabulary: _Vocabulary) -> list[Block]:
    sections = Sections()
    blocks: list[Block] = []
    for number, lines in enumerate(pages, start=1):
        for group in _group_lines(lines, ratio):
            text = vocabulary.text(group)
            path = sections.path
            for level, title in (entry for line in group for entry in line.starts):
                if title or text:
                    path = sections.enter(level, title or text)
            if text:
                blocks.append(Block(text, path, number))
    return blocks


def _first_page_title(pages: list[list[Line]], body: float, vocabulary: _Vocabulary) -> str | None:
    """The largest text at the top of page one, when it is clearly larger than the body."""
    lines = pages[0] if pages else []
    biggest = max((line.size for line in lines), default=0.0)
    if biggest < body * 1.2:
        return None
    group = list(
        itertools.takewhile(
            lambda line: abs(line.size - biggest) < 0.5,
            itertools.dropwhile(lambda line: abs(line.size - biggest) >= 0.5, lines[:8]),
        )
    )
    text = vocabulary.text(group)
    if not group or _key(text) in _NOT_TITLES or len(text) > 250 or _section_depth(text):
        return None
    return clean_title(text)
