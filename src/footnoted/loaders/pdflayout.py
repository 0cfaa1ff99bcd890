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
from dataclasses import dataclass, field, replace

from footnoted.lexical import CELLS

from .blocks import Block, Sections, clean, clean_title, slug_title
from .pdffurniture import drop_furniture

_LIST_MARKER = re.compile(r"^\s*(?:[•◦▪▫●○■□‣⁃∙]\s*|\d{1,2}[.)]\s+(?=[A-Z]))")
_SECTION_NUMBER = re.compile(r"^\s*(\d{1,2}(?:\.\d{1,2})*|[A-Z](?:\.\d{1,2})+)\.?\s+(?=[^\W\d_])")
_ANY_NUMBER_PREFIX = re.compile(r"^\s*(?:\d+(?:\.\d+)*|[A-Z](?:\.\d+)*|[IVXLC]+)\.?\s+")
_LINE_HYPHEN = re.compile(r"([^\W\d_]+)-[ \t]*\n[ \t]*([^\W\d_]+)")
_SOFT_HYPHEN = re.compile("[\ufffe\x02][ \t\r\n]*")
_COMPOUND = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")
_SENTENCE_END = re.compile(r"[.!?:][\"'”’)\]]*(?:\[\d+\])*\s*$")
# not a heading: a check box, a blank, a sentence's end, a bullet or a quotation opening
# it (a slide's "◮", a dingbat read as "!", "- "), a link, a table's rule, or a line of
# code: an assignment to a name in capitals ("PROG = hello", "MKC_REQD= 0.19.0",
# "CPPFLAGS += -I${PATH.common}"), a command and its option ("CC -G -h libfoo.so.1",
# "--version-script foo.sym"), a directive (".include <mkc.prog.mk>"), a comment or
# "#!/bin/sh", "#include <stdio.h>", a path of two directories or more
_NOT_HEADING = re.compile(
    r"[☐☒□■✓✔]|__|\.\.|[a-z]{2}[.!?]\s+\S|^[(\[\"“'‘*•◮▪◦‣●○►▸▹➢➤!]|https?:|@|\||\$\{"
    r"|^[A-Z_][A-Z0-9_ .]*[+:?]?=(?:\s|$)|^(?:[a-z][\w.+-]*|[A-Z][A-Z0-9_]*)\s+--?[A-Za-z]"
    r"|^--?[A-Za-z\s]|^\.[a-z]|^#[a-z!\s]|^/[\w.-]+/"
)
# a filing's parts and items ("PART II", "Item 7. Management's Discussion and Analysis of
# Financial Condition and Results of Operations"): headings at any style, at levels 1 and 2
_FILING_PART = re.compile(r"PART\s+[IVX]{1,4}")
_FILING_ITEM = re.compile(r"Item\s+\d{1,2}[A-C]?\.\s+[A-Z\[]")
_LABELLED = re.compile(r"^(?:item|part|section|article|chapter|note)\s+\w{1,4}\.", re.IGNORECASE)
_COLUMN_LABELS = frozenset({"page", "pages"})  # a contents table's column, set in bold
_DANGLING = frozenset(
    {"a", "an", "and", "are", "as", "at", "by", "for", "from", "in", "into", "is", "of", "on"}
    | {"or", "our", "that", "the", "their", "this", "to", "was", "we", "were", "which", "with"}
)
_SHORT_WORDS = frozenset(
    {"a", "i", "an", "as", "at", "be", "by", "do", "go", "he", "if", "in", "is", "it", "me"}
    | {"my", "no", "of", "oh", "on", "or", "so", "to", "up", "us", "we"}
)
# a block of marks, not words: an initials box ("gn gn"), an ornament ("oOo", "* * *"), a
# figure's axis letter ("k"): lower-case letters without a vowel, or o's, zeros and stars
_MARK = r"(?:[b-df-hj-np-tv-xz]{1,2}|[oO0*·~]+)"
_MARKS = re.compile(rf"{_MARK}(?:\s+{_MARK})*")
_CAPTION = re.compile(r"(?:Figure|Fig\.|Table|Exhibit)\s+[\dA-Z]")  # a float, not the text
_PARAGRAPH_WORDS = 12  # a block this long that stops without a sentence end is unfinished
_FOOTNOTE = re.compile(r"^(?:\d{1,2}|[*∗†‡§¶])\s?(?:https?:|[A-Za-z])")  # "2 https:…", "12We"
_LETTERED_ITEM = re.compile(r"\([a-zA-Z0-9]{1,3}\)")  # "(a)", "(ii)", "(12)"
_NUMBER = re.compile(r"[-–(]?[\d.,%]+[)%]?")  # a word that is an amount: "12.5", "(3)", "40%"
LINE_GAP = 1.5  # text heights: the widest gap between two lines of one paragraph
_REFLOW_REACH = 40  # blocks looked through (a figure's labels) for a paragraph's rest
_REFLOW_WORDS = 8  # a paragraph cut by a float before its rest holds at least this many
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
    row: bool = False  # a table row, its cells joined with " | "
    # a row's cells, each as where its words are printed (left, right); empty if unknown
    cells: list[list[tuple[float, float]]] = field(default_factory=list)
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
    drop_furniture(pages)
    body = _body_size(pages)
    ratio = _gap_ratio(pages)
    heading = _first_page_heading(pages, body)
    if outline:
        _apply_outline(pages, outline)
    else:
        _detect_headings(pages, body, ratio)
        for line in heading:  # the title heads the document, not a section of it
            line.starts.clear()
    vocabulary = _Vocabulary(pages)
    blocks = _pdf_blocks(pages, ratio, vocabulary)
    return blocks, _title(meta_title, vocabulary.heading(heading) if heading else None)


def _title(meta_title: str | None, heading: str | None) -> str | None:
    """The metadata title unless it is junk or a file-name slug; else the first page's
    heading (a slug is still better than nothing)."""
    meta = clean_title(meta_title)
    if meta and not slug_title(meta):
        return meta
    return clean_title(heading) or meta


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
            if size > 0 and abs(prev.size - cur.size) < 0.1 * size and 0 <= gap < LINE_GAP * size:
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


def _starts_new_block(prev: Line, cur: Line, ratio: float, full: float = 0.0) -> bool:
    """Does ``cur`` open a new block after ``prev``? ``full``: where a full line of
    ``prev``'s column ends (0 when unknown)."""
    height = max(min(prev.size, cur.size), 1.0)
    if _same_row(prev, cur):
        return False
    if abs(prev.size - cur.size) > 0.2 * max(prev.size, cur.size):
        return True
    comma = prev.text.rstrip().endswith(",")
    if cur.top > prev.bottom + height:  # moved up: the next column, or a float
        # a column that stops on a comma goes on, whatever the case ("…Martin Chadwick,")
        return not (comma or _runs_on(prev.text, cur.text))
    if _LIST_MARKER.match(cur.text):
        return True
    gap = prev.bottom - cur.top
    if gap > ratio * height:
        # a full line that stops on a comma goes on below a wider gap (a double-spaced
        # list: "… Participation Agreement (dated November 27," | "2020)")
        wrapped = comma and _fills(prev, full) and not prev.row
        return not (wrapped and gap < LINE_GAP * height)
    indent = cur.left - prev.left
    if not 0.8 * height < indent < 8 * height or _LIST_MARKER.match(prev.text):
        return False
    # an indented line opens a paragraph, unless the line before stops unfinished (a
    # full line, or one ending on a word or a comma, with no sentence end): then it is
    # a hanging indent (a reference, a footnote, an exhibit's wrapped description)
    text = prev.text.rstrip()
    unfinished = _fills(prev, full) or text[-1:].islower() or text[-1:] in ",;-"
    hanging = unfinished and not prev.row and not _SENTENCE_END.search(text)
    return not hanging and not _runs_on(text, cur.text)


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


def _filing_label(lines: list[Line], index: int, ratio: float) -> int:
    """1 for a filing's part ("PART II"), 2 for its item ("Item 7. Management's
    Discussion ..."), each printed on a line of its own that opens a block; else 0. Filings
    set them in the body's type, so their style cannot tell them."""
    line = lines[index]
    text = line.text.strip()
    level = 1 if _FILING_PART.fullmatch(text) else 2 if _FILING_ITEM.match(text) else 0
    if not level or line.row or len(text) > 200 or _NOT_HEADING.search(text):
        return 0
    prev = lines[index - 1] if index else None
    nxt = lines[index + 1] if index + 1 < len(lines) else None
    if prev is not None and not _apart(prev, line, ratio):
        return 0
    if nxt is not None and _runs_on(text, nxt.text):
        return 0  # "Item 8. Financial Statements and" going on below: a sentence's words
    return level


def _heading_depth(lines: list[Line], index: int, body: float, ratio: float) -> int | None:
    """Numbering depth (0 when unnumbered) if the line looks like a heading, else None:
    short, no sentence punctuation, larger or bold, on a line of its own."""
    line = lines[index]
    text = line.text.strip()
    if line.row or not _heading_text(text) or text.lower() in _COLUMN_LABELS:
        return None
    depth = _section_depth(text)
    larger = body * (1.1 if depth else 1.15)  # "2.1 Examples" may be set only a little larger
    if line.size < larger and not (line.bold and line.size >= body * 0.95):
        return None
    prev = lines[index - 1] if index else None
    nxt = lines[index + 1] if index + 1 < len(lines) else None
    if prev is not None and not _apart(prev, line, ratio):
        return None
    if prev is not None and prev.row and any(n.row for n in lines[index + 1 : index + 3]):
        return None  # a label among a table's rows ("Liabilities", "Deferred provision")
    display = line.size >= body * 1.15  # set in a heading's type, not the body's
    if nxt is not None and not _apart(line, nxt, ratio):
        # a heading wrapped onto a second line of its style, a block of its own; in a
        # heading's type even where its words run on ("3.7. Using the library in a
        # stdio-free" | "environment") and the next heading follows closely below
        after = lines[index + 2] if index + 2 < len(lines) else None
        ends = (
            after is None
            or _starts_new_block(nxt, after, ratio)
            or (display and _style(nxt) != _style(after))
        )
        if not _wraps(line, nxt) or not ends or (_runs_on(text, nxt.text) and not display):
            return None
    elif nxt is not None and _runs_on(text, nxt.text) and not _starts_new_block(line, nxt, ratio):
        return None  # bold words that run on into the paragraph's sentence
    if depth or display or len(text.split()) <= 8:
        return depth
    return None


def _apart(prev: Line, cur: Line, ratio: float) -> bool:
    """A block boundary, or a change of style (a bold heading over plain text)."""
    return _starts_new_block(prev, cur, ratio) or _style(prev) != _style(cur)


def _wraps(line: Line, nxt: Line) -> bool:
    """The next line continues a heading: the same style, and the heading ends unfinished."""
    return _style(line) == _style(nxt) and _heading_text(nxt.text.strip(), wrapped=True)


_CITED_YEAR = re.compile(r"\((?:19|20)\d\d[a-z]?\)")  # a work cited by its year: "(2009)"


def _heading_text(text: str, *, wrapped: bool = False) -> bool:
    """Text a reader would take for a heading (``wrapped``: its second line)."""
    words = text.split()
    letters = [ch for ch in text if ch.isalpha()]
    body = _ANY_NUMBER_PREFIX.sub("", text, count=1)
    digits = sum(ch.isdigit() for ch in body)
    uncited = sum(ch.isdigit() for ch in _CITED_YEAR.sub("", body))  # "5.2. Petersen (2009)"
    return (
        0 < len(words) <= 12
        and len(text) <= 100
        and len(letters) >= (1 if wrapped else 3)
        and uncited <= len(letters) / 3
        and (text[-1] not in ".,;:-–—" or (text[-1] == "." and bool(_LABELLED.match(text))))
        and not ("," in body and digits)
        and (wrapped or not text[0].islower())
        and not _NOT_HEADING.search(text)
        and words[-1].lower() not in _DANGLING
        and text.count("(") == text.count(")")
    )


def _style(line: Line) -> tuple[float, bool]:
    return round(line.size * 2) / 2, line.bold


def _detect_headings(pages: list[list[Line]], body: float, ratio: float) -> None:
    """Without an outline: headings from size, weight and numbering like "2.1 Method".
    A style used for headings on the first page only (a cover) ranks below every other,
    so the first heading of the body closes it."""
    found: list[tuple[Line, int, int]] = []
    wrapped: dict[int, Line] = {}  # a heading's second line, by the heading line's id
    labels = 0
    for number, lines in enumerate(pages):
        index = 0
        while index < len(lines):
            label = _filing_label(lines, index, ratio)
            if label:
                lines[index].heading = True
                lines[index].starts.append((label, None))
                labels += 1
                index += 1
                continue
            depth = _heading_depth(lines, index, body, ratio)
            if depth is not None:
                lines[index].heading = True
                found.append((lines[index], depth, number))
                nxt = lines[index + 1] if index + 1 < len(lines) else None
                if nxt is not None and not _apart(lines[index], nxt, ratio):
                    nxt.heading_cont = True  # a heading wrapped onto a second line
                    wrapped[id(lines[index])] = nxt
                    index += 1
            index += 1
    found = _without_figure_labels(found, wrapped)
    numbered: dict[tuple[float, bool], int] = {}
    for line, depth, _ in found:
        if depth:
            numbered[_style(line)] = min(depth, numbered.get(_style(line), depth))
    later = {_style(line) for line, _, number in found if number > 0}
    sizes = sorted({_style(line)[0] for line, depth, _ in found if not depth}, reverse=True)
    below = 2 if labels else 0  # a filing's other headings sit under its parts and items
    for line, depth, number in found:
        level = depth or numbered.get(_style(line)) or sizes.index(_style(line)[0]) + 1
        if number == 0 and later and _style(line) not in later:
            level = len(sizes) + 10  # a cover page's heading
        line.starts.append((level + below, None))


def _without_figure_labels(
    found: list[tuple[Line, int, int]], wrapped: dict[int, Line]
) -> list[tuple[Line, int, int]]:
    """Where at least three headings are numbered ("2 Multi-state curves"), a short line
    set larger than the body but in none of their sizes, not bold and past the first page,
    is a figure's label ("Years post diagnosis", "Health"), not a heading: it is read as
    text again, and so is the line it was taken to wrap onto."""
    sizes = [line.size for line, depth, _ in found if depth]
    if len(sizes) < 3:
        return found
    kept = []
    for line, depth, number in found:
        if (
            depth
            or line.bold
            or number == 0
            or any(abs(line.size - size) <= size / 50 for size in sizes)
        ):
            kept.append((line, depth, number))
        else:
            line.heading = False
            if (second := wrapped.get(id(line))) is not None:
                second.heading_cont = False
    return kept


def _column_right(line: Line, ends: dict[int, float]) -> float:
    """Where a full line of ``line``'s column ends: the furthest right any line starting
    near its left edge reaches."""
    bucket = int(line.left // 20)
    return max(ends.get(b, 0.0) for b in (bucket - 1, bucket, bucket + 1))


def _fills(line: Line, full: float) -> bool:
    """Does ``line`` run (about) to its column's right edge ``full``?"""
    return full > 0 and line.right >= full - max(3 * line.size, 0.12 * (full - line.left))


def _ends_short(prev: Line, cur: Line, full: float) -> bool:
    """A sentence that stops well before the column's right edge ends its paragraph."""
    return (
        not _fills(prev, full)
        and bool(_SENTENCE_END.search(prev.text))
        and cur.text.lstrip()[:1].isupper()
        and not _same_row(prev, cur)
    )


def _labels_row(prev: Line, row: Line) -> bool:
    """Is ``prev`` the first line of ``row``'s label, wrapped above its cells ("Issuance
    of common stock upon settlement of" over "restricted stock units | — | 19,762")?"""
    return (
        row.row
        and not (prev.row or prev.heading or prev.heading_cont or prev.starts)
        and abs(prev.left - row.left) < max(row.size, 1.0)
        and _runs_on(prev.text, row.text)
    )


def _next_label(row: Line, line: Line) -> bool:
    """Is ``line`` the table's next label below ``row`` ("Adjustments to reconcile net
    loss…:"), not text of the row's own: it starts under the row's label, or left of a
    row without one (a header of years over "Cash flows from operating activities"), and
    the row ends in an amount, which does not wrap into words? (A line set further
    right, under a cell, is that cell's own next line: a payment's description.)"""
    last = re.sub(r"[\s$€£]", "", row.text.rsplit(CELLS, 1)[-1])
    under = line.left < row.left + max(row.size, 1.0)  # under its label, or left of it
    return row.row and under and bool(_NUMBER.fullmatch(last))


def _group_lines(lines: list[Line], ratio: float) -> list[list[Line]]:
    ends: dict[int, float] = {}
    for line in lines:
        ends[int(line.left // 20)] = max(ends.get(int(line.left // 20), 0.0), line.right)
    groups: list[list[Line]] = []
    for index, line in enumerate(lines):
        prev = lines[index - 1] if index else None
        if prev is not None and _labels_row(prev, line):
            groups[-1].pop()  # the first line of the row's wrapped label
            if not groups[-1]:
                groups.pop()
            line = replace(line, text=f"{prev.text.rstrip()} {line.text.lstrip()}")
        if prev is None or line.starts or line.heading or line.row:
            new = True
        elif line.heading_cont:
            new = False
        elif prev.heading or prev.heading_cont or _next_label(prev, line):
            new = True
        else:
            row = lines[index - 2] if index >= 2 else prev
            if prev.size < 0.85 * row.size and _same_row(row, prev):
                prev = row  # a subscript ends the row: the row's text decides
            full = _column_right(prev, ends)
            new = _starts_new_block(prev, line, ratio, full) or _ends_short(prev, line, full)
        if new:
            groups.append([line])
        else:
            groups[-1].append(line)
    return groups


class _Vocabulary:
    """Words and hyphenated pairs seen in the document, to judge line-end hyphens."""

    def __init__(self, pages: list[list[Line]]) -> None:
        self.counts: Counter[str] = Counter()
        self.pairs: set[str] = set()
        for line in itertools.chain.from_iterable(pages):
            text = line.text.lower()
            self.counts.update(re.findall(r"[^\W\d_]+", text))
            for compound in _COMPOUND.findall(text):
                parts = compound.split("-")
                self.pairs.update(f"{a}-{b}" for a, b in itertools.pairwise(parts))

    def join(self, match: re.Match[str]) -> str:
        left, right = match[1], match[2]
        hyphenated = f"{left}-{right}"
        if not (left[-1].islower() and right[0].islower()):
            return hyphenated
        keep = hyphenated.lower() in self.pairs and (left + right).lower() not in self.counts
        return hyphenated if keep else left + right

    def heading(self, lines: list[Line]) -> str:
        """A heading's text, with letter-spaced words ("REAC T:") joined where the joined
        word is more common in the document than its parts."""
        words = self.text(lines).split(" ")
        out = words[:1]
        for word in words[1:]:
            left, right = out[-1], re.sub(r"\W+$", "", word)
            joined = (left + right).lower()
            short = min(len(left), len(right)) <= 2 and right.lower() not in _SHORT_WORDS
            if (
                short
                and left.isalpha()
                and right.isalpha()
                and left.lower() not in _SHORT_WORDS
                and self.counts[joined] > max(self.counts[left.lower()], self.counts[right.lower()])
            ):
                out[-1] = left + word
            else:
                out.append(word)
        text = " ".join(out)
        return text.rstrip(".") if _LABELLED.match(text) else text  # "Item 1A. Risk Factors."

    def text(self, lines: list[Line]) -> str:
        raw = _SOFT_HYPHEN.sub("-\n", "\n".join(line.text for line in lines))
        raw = _LINE_HYPHEN.sub(self.join, raw)
        return clean(re.sub(r"(?<=\S)-\n(?=\S)", "-", raw))


def _pdf_blocks(pages: list[list[Line]], ratio: float, vocabulary: _Vocabulary) -> list[Block]:
    groups = [
        _Group(number, group) for number, lines in enumerate(pages, 1)
        for group in _group_lines(lines, ratio)
    ]  # fmt: skip
    sections = Sections()
    blocks: list[Block] = []
    last: list[Line] = []  # the lines of the last block with text
    for group in _reflow(groups, vocabulary):
        text = vocabulary.text(group.lines)
        text = "" if _MARKS.fullmatch(text) else text  # never quoted
        path = sections.path
        for level, title in (entry for line in group.lines for entry in line.starts):
            if title or text:
                path = sections.enter(level, title or vocabulary.heading(group.lines))
        if text:
            turned = bool(blocks) and blocks[-1].page != group.page
            continues = turned and (
                group.resumes or _continues(last, group.lines, blocks[-1].text, text)
            )
            blocks.append(Block(text, path, group.page, continues))
            last = group.lines
    return blocks


@dataclass(slots=True)
class _Group:
    """The lines of one block-to-be, on page ``page``; ``resumes``: it goes on with the
    paragraph of the group before it (the reflow moved it there)."""

    page: int
    lines: list[Line]
    resumes: bool = False


def _reflow(groups: list[_Group], vocabulary: _Vocabulary) -> list[_Group]:
    """Paragraphs interrupted in reading order put back together.

    Two-column pages and page breaks set floats between a paragraph's lines: footnotes,
    a table or a figure's labels and caption, an initials box, a file-name footer. When a
    body paragraph stops mid-sentence and, after only such interruptions, a block of the
    same size goes on in lower case, the rest of the paragraph joins it (a hyphen at the
    break is joined as at a line end). The interruptions keep their pages: those on the
    paragraph's page move before it (after it when the rest is on the same page), those on
    the page of the rest after it."""
    out = list(groups)
    index = 0
    while index < len(out):
        rest = out[index]
        first = index - 1
        size = rest.lines[0].size
        while first >= 0 and index - first <= _REFLOW_REACH and _interrupts(out, first, size):
            first -= 1
        if (
            first < 0
            or first == index - 1
            or _interrupts(out, first, size)
            or not _goes_on(out[first], rest, vocabulary)
        ):
            index += 1
            continue
        head, between = out[first], out[first + 1 : index]
        if {group.page for group in between} - {head.page, rest.page}:
            index += 1
            continue
        if head.page == rest.page:
            joined = [_Group(head.page, head.lines + rest.lines, head.resumes)]
            moved = joined + between
        else:
            before = [group for group in between if group.page == head.page]
            after = [group for group in between if group.page != head.page]
            moved = [*before, head, _Group(rest.page, rest.lines, resumes=True), *after]
        out[first : index + 1] = moved
        index = first + len(moved)
    return out


def _interrupts(groups: list[_Group], index: int, size: float) -> bool:
    """Could block ``index`` sit between the lines of a paragraph set in ``size`` without
    being part of it: smaller text (a footnote, a table), a table row, a caption, a
    footnote (not at the head of its page: "50 bytes. Random data …" goes on with the
    sentence the page before stopped in), a figure's labels, a few words (an initials
    box, a footer)?"""
    group = groups[index]
    heads_page = index == 0 or groups[index - 1].page != group.page
    lines = group.lines
    text = " ".join(line.text.strip() for line in lines)
    words = text.split()
    if any(line.heading or line.heading_cont or line.starts for line in lines) or not words:
        return False
    if _LIST_MARKER.match(text) or _LETTERED_ITEM.match(text):
        return False  # a list item belongs to the text around it
    numbers = sum(bool(_NUMBER.fullmatch(word)) for word in words)
    return (
        any(line.row for line in lines)
        or max(line.size for line in lines) < 0.9 * size
        or bool(_CAPTION.match(text) or (_FOOTNOTE.match(text) and not heads_page))
        or len(words) <= 3
        or numbers >= 0.4 * len(words)
    )


def _goes_on(head: _Group, rest: _Group, vocabulary: _Vocabulary) -> bool:
    """Is ``rest`` the rest of ``head``'s paragraph: body text of one size, ``head``
    stopping mid-sentence and ``rest`` going on in lower case (or after a word like "and"
    that cannot end a sentence, in any case)?"""
    before, after = head.lines[-1], rest.lines[0]
    if not _body_pair(before, after):
        return False
    text = vocabulary.text(head.lines)
    words = text.split()
    nxt = after.text.lstrip()
    if len(words) < _REFLOW_WORDS or _SENTENCE_END.search(text) or _FOOTNOTE.match(nxt):
        return False
    if not (text[-1].isalpha() or text[-1] in ",;-"):
        return False
    dangling = words[-1].lower() in _DANGLING and not _LIST_MARKER.match(nxt)
    return nxt[:1].islower() or (dangling and not _CAPTION.match(nxt))


def _body_pair(before: Line, after: Line) -> bool:
    """Could ``after`` go on with the paragraph ``before`` ends: body text (no heading, no
    table row, no section opening) of one size on both sides?"""
    if any(line.heading or line.heading_cont or line.row for line in (before, after)):
        return False
    return not after.starts and abs(before.size - after.size) <= 0.1 * max(before.size, after.size)


def _continues(prev: list[Line], cur: list[Line], prev_text: str, text: str) -> bool:
    """Does the first block of a page go on with the paragraph that ended the page before
    (cut by the page break mid-sentence)? Body text of one size on both sides, and the
    text before stops unfinished: before a lower-case word, or on a comma, a word like
    "the" that cannot end a sentence, or any lower-case word ending a paragraph (not a
    label) with no sentence end."""
    before, after = prev[-1], cur[0]
    if not _body_pair(before, after):
        return False
    if _SENTENCE_END.search(prev_text) or not text[:1].isalnum() or _CAPTION.match(text):
        return False
    last_word = prev_text.rsplit(" ", 1)[-1]
    if text[0].islower() or prev_text[-1] in ",;" or last_word.lower() in _DANGLING:
        return True
    return last_word.islower() and len(prev_text.split()) >= _PARAGRAPH_WORDS


def _capitals_heading(lines: list[Line]) -> list[Line]:
    """Where no text is larger than the body: the first line in capitals that reads like
    a heading ("IN THE SUPREME COURT OF THE UNITED STATES")."""
    for line in itertools.takewhile(lambda line: not line.row, lines):
        text = line.text.strip()
        letters = [ch for ch in text if ch.isalpha()]
        if len(text.split()) >= 3 and len(letters) >= 12 and text.isupper():
            return [line] if _heading_text(text) else []
    return []


def _first_page_heading(pages: list[list[Line]], body: float) -> list[Line]:
    """The largest text in the upper part of page one, when clearly larger than the body:
    its first line and the lines of the same size right after it (up to four)."""
    lines = [line for line in (pages[0] if pages else []) if line.size > 0 and not line.row]
    if not lines:
        return []
    low, high = min(line.bottom for line in lines), max(line.top for line in lines)
    upper = [line for line in lines if line.top >= high - 0.6 * (high - low)]
    biggest = max(line.size for line in upper)
    if biggest < body * 1.2:
        return _capitals_heading(pages[0][:10])
    if sum(abs(line.size - biggest) < 0.5 for line in lines) > 4:
        return []  # a style used all over the page is not a title
    start = next(i for i, line in enumerate(lines) if line in upper and line.size == biggest)
    group = list(
        itertools.takewhile(lambda line: abs(line.size - biggest) < 0.5, lines[start : start + 4])
    )
    text = " ".join(line.text for line in group)
    letters = sum(ch.isalpha() for ch in text)
    if _key(text) in _NOT_TITLES or len(text) > 250 or _section_depth(text) or letters < 3:
        return []
    return group
