"""PDF: each page's text lines with their geometry, read with PDFium, then laid out
into blocks by :mod:`.pdflayout`. The bookmarks (outline) become section paths."""

from __future__ import annotations

import bisect
import collections
import ctypes
import itertools
import logging
import re
import statistics
import threading
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from footnoted import loaders
from footnoted.errors import DocumentError
from footnoted.lexical import CELLS, EMPTY_CELL, LABEL_WORDS
from footnoted.models import ParsedDocument

from . import ocr
from .blocks import CURRENCY, assemble, clean, describe
from .pdflayout import LINE_GAP, Bookmark, Line, lay_out

_log = logging.getLogger(__name__)
PDFIUM_LOCK = threading.Lock()  # PDFium is not thread-safe
_BOLD_WEIGHT = 600
_BOLD_NAME = re.compile(r"bold|black|heavy|semibold|demi", re.IGNORECASE)
_BULLET = re.compile(r"^(?:[•◦▪▫●○■□‣⁃∙\-–—*]|\(?[0-9a-zA-Z]{1,3}[.)])$")
_JOINED = re.compile("\ufffe(?=.)")  # a line-end hyphen inside a word: PDFium joined the lines
_RULE = re.compile(r"[_\u2014\u2015\u2500]{5,}")  # ________ or ————————
_NUMBER = r"\(?[-–]?[$€£]?\d[\d,]*(?:\.\d+)?%?\)?"
_NUMBERS = re.compile(rf"{_NUMBER}(?:\s+{_NUMBER})+")  # numbers run together in one cell
# a cell of a number, a size's unit after it ("1200k", "4GB"), or a dash for none
_CELL_NUMBER = re.compile(rf"{_NUMBER}(?:[kKMGT]i?B?)?|[-–—]")
Box = tuple[float, float, float, float]  # left, bottom, right, top (as displayed)
# A TeX font without a Unicode map prints ASCII as ASCII, and its ligatures, quotes and
# dashes as control codes, in the T1 ("Cork") encoding ("\x1cgure": "figure") or the
# older OT1 ("\x0cgure"); whichever codes a page holds tell them apart
_T1 = str.maketrans(
    {
        "\x10": "\u201c",
        "\x11": "\u201d",
        "\x15": "\u2013",
        "\x16": "\u2014",
        "\x1b": "ff",
        "\x1c": "fi",
        "\x1d": "fl",
        "\x1e": "ffi",
        "\x1f": "ffl",
        "\x88": "\u2022",
    }
)
# OT1's "fl" is "\r", which PDFium's text cannot tell from a line's end: it parts the line
_OT1 = str.maketrans({"\x0b": "ff", "\x0c": "fi", "\x0e": "ffi", "\x0f": "ffl"})
_TEX_CODES = re.compile("[\x0b\x0c\x0e-\x1f\x88]")
_T1_LIGATURES = re.compile("[\x1b-\x1f]")
_OT1_LIGATURES = re.compile("[\x0b\x0c\x0e\x0f]")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f]")  # none is text, nor a page break ("\f")


@dataclass(slots=True)
class _RawPdf:
    pages: list[list[Line]]
    outline: list[Bookmark]
    meta_title: str | None


def load_pdf(data: bytes, _text: str | None, name: str) -> ParsedDocument:
    with PDFIUM_LOCK:
        raw = _read_pdf(data, name)
    blocks, title = lay_out(raw.pages, raw.outline, raw.meta_title)
    return assemble(blocks, kind="pdf", title=title, page_count=len(raw.pages))


def _open_pdf(data: bytes, name: str) -> Any:
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise DocumentError(
                f"{name} is encrypted (password-protected); remove the password and try again."
            ) from exc
        raise DocumentError(
            f"{name} is not a readable PDF (it is damaged or truncated): {describe(exc)}"
        ) from exc


def _read_pdf(data: bytes, name: str) -> _RawPdf:
    """Every page's lines, the outline and the metadata title, within the package's
    limits (read when called, so overriding them on ``footnoted.loaders`` takes effect)."""
    max_pages = loaders.MAX_PDF_PAGES
    pdf = _open_pdf(data, name)
    try:
        count = len(pdf)
        if count > max_pages:
            raise DocumentError(f"{name} has {count:,} pages; the limit is {max_pages:,}.")
        pages = _read_pages(pdf, count, name)
        meta_title = str(pdf.get_metadata_value("Title") or "")
        return _RawPdf(pages, _read_outline(pdf, count), meta_title)
    finally:
        pdf.close()


def _read_page(pdf: Any, index: int, read_scan: ocr.Reader | None) -> list[Line]:
    """The page's lines; a page without text that shows an image is read by OCR where
    an engine is installed (:mod:`.ocr`)."""
    page = pdf[index]
    try:
        textpage = page.get_textpage()
        try:
            lines = _page_lines(_Page(textpage, int(page.get_rotation()) % 360))
        finally:
            textpage.close()
        if not lines and read_scan is not None and ocr.scanned(page):
            lines = read_scan(page)
        return lines
    finally:
        page.close()


def _read_pages(pdf: Any, count: int, name: str) -> list[list[Line]]:
    """Every page's lines, within the package's character limit. Where the OCR engine
    fails on a scanned page (out of memory, a broken model), the page stays without
    text and OCR is not tried again for this file: the pages with text still count."""
    max_chars = loaders.MAX_TEXT_CHARS
    found = ocr.engine()
    read_scan = None if found is None else found[1]
    pages: list[list[Line]] = []
    total = 0
    for index in range(count):
        try:
            pages.append(_read_page(pdf, index, read_scan))
        except Exception as exc:  # the OCR engine's own failure, MemoryError included
            if read_scan is None:
                raise
            _log.warning("OCR of page %d of %s failed (%s); it is left without text",
                         index + 1, name, describe(exc))  # fmt: skip
            read_scan = None
            pages.append(_read_page(pdf, index, None))
        total += sum(len(line.text) for line in pages[-1])
        if total > max_chars:
            raise DocumentError(
                f"{name} holds more than {max_chars:,} characters of text; "
                "refusing it as too large to index."
            )
    return pages


@dataclass(slots=True)
class _Page:
    """A text page and its rotation: boxes are turned so that lines read left to right
    and run down the page, as the page is displayed."""

    text: Any
    rotation: int
    _unmapped_reads: bool | None = None

    def unmapped_reads(self) -> bool:
        """Whether the page's glyphs without a Unicode map still read as text: a TeX
        font's codes are mostly its letters, lower case ("Multi-state models"), while a
        font numbered by glyph prints shifted letters with control codes for spaces
        ("7KLQN\\x03" for "Think "). Counted once, over the page's unmapped glyphs."""
        if self._unmapped_reads is None:
            letters = lower = controls = unmapped = 0
            for index in range(int(self.text.count_chars())):
                if int(pdfium_c.FPDFText_HasUnicodeMapError(self.text, index)) != 1:
                    continue
                char = chr(int(pdfium_c.FPDFText_GetUnicode(self.text, index)))
                unmapped += 1
                letters += char.isalpha()
                lower += char.islower()
                controls += unicodedata.category(char) in ("Cc", "Co", "Cn")
            self._unmapped_reads = lower * 2 > letters and controls * 20 <= unmapped
        return self._unmapped_reads

    def box(self, index: int) -> Box | None:
        try:
            left, bottom, right, top = self.text.get_charbox(index, loose=True)
        except pdfium.PdfiumError:
            return None
        return _turn((float(left), float(bottom), float(right), float(top)), self.rotation)

    def runs(self, first: int, last: int) -> list[Box]:
        """The boxes of the text runs PDFium sees between two characters."""
        count = int(pdfium_c.FPDFText_CountRects(self.text, first, last - first + 1))
        boxes = (self.text.get_rect(i) for i in range(count))
        return [
            _turn((float(a), float(b), float(c), float(d)), self.rotation) for a, b, c, d in boxes
        ]


def _turn(box: Box, rotation: int) -> Box:
    left, bottom, right, top = box
    if rotation == 90:
        return bottom, -right, top, -left
    if rotation == 180:
        return -right, -top, -left, -bottom
    if rotation == 270:
        return -top, left, -bottom, right
    return box


def _page_lines(page: _Page) -> list[Line]:
    text = str(page.text.get_text_range())
    to_char = _char_indexer(page.text, text)
    lines = []
    spaced: dict[int, _Spaced] = {}  # rows found by their words' spacing
    chars_of: dict[int, list[int]] = {}
    for match in re.finditer(r"[^\r\n]+", text):
        # a rule drawn with characters (above footnotes, a form's blank) is not text: its
        # characters become spaces, so the line's offsets still index ``text``
        raw = _RULE.sub(lambda rule: " " * len(rule[0]), match.group())
        positions = [match.start() + i for i, ch in enumerate(raw) if not ch.isspace()]
        if positions:
            for piece, chars, runs in _printed_lines(page, raw, [to_char(p) for p in positions]):
                line = _measure(page, piece, chars)
                if line.size > 0 and (cells := _find_cells(page, line, chars, runs)):
                    spaced[id(line)] = cells
                chars_of[id(line)] = chars
                lines.append(line)
    lines = [line for line in lines if not line.garbled]
    _head_rows(page, lines, spaced, chars_of)
    _aligned_rows(lines)
    _wrapped_cells(lines)
    _even_rows(lines)
    if _TEX_CODES.search(text) and page.unmapped_reads():
        codes = _T1 if _T1_LIGATURES.search(text) or not _OT1_LIGATURES.search(text) else _OT1
        for line in lines:
            line.text = _CONTROL.sub("", line.text.translate(codes))
    return lines


def _char_indexer(textpage: Any, text: str) -> Callable[[int], int]:
    """Map an index into the extracted text to PDFium's character index."""
    if len(text) == int(textpage.count_chars()):
        return lambda index: index
    units = list(itertools.accumulate((2 if ord(ch) > 0xFFFF else 1 for ch in text), initial=0))
    return lambda index: int(pdfium_c.FPDFText_GetCharIndexFromTextIndex(textpage, units[index]))


def _measure(page: _Page, raw: str, chars: list[int]) -> Line:
    """Geometry from a few sampled characters: the first four, the middle, the last four."""
    sample = sorted({*chars[:4], chars[len(chars) // 2], *chars[-4:]})
    boxes = {index: box for index in sample if (box := page.box(index)) is not None}
    if not boxes:
        return Line(raw)
    head = [boxes[i] for i in chars[:4] if i in boxes] or list(boxes.values())
    tail = [boxes[i] for i in chars[-4:] if i in boxes] or list(boxes.values())
    garbled = sum(int(pdfium_c.FPDFText_HasUnicodeMapError(page.text, i)) == 1 for i in sample)
    return Line(
        raw,
        left=head[0][0],
        right=tail[-1][2],
        top=max(box[3] for box in head),
        bottom=min(box[1] for box in tail),
        size=statistics.median(box[3] - box[1] for box in boxes.values()),
        bold=all(_bold(page.text, i) for i in sorted(boxes)),
        garbled=garbled * 2 > len(sample) and not page.unmapped_reads(),
    )


def _bold(textpage: Any, index: int) -> bool:
    """A heavy weight or, where the font does not say its weight, a bold font name."""
    weight = int(pdfium_c.FPDFText_GetFontWeight(textpage, index))
    if weight > 0:
        return weight >= _BOLD_WEIGHT
    name = ctypes.create_string_buffer(128)
    flags = ctypes.c_int()
    pdfium_c.FPDFText_GetFontInfo(textpage, index, name, len(name), ctypes.byref(flags))
    return bool(_BOLD_NAME.search(name.value.decode("latin-1")))


def _printed_lines(
    page: _Page, raw: str, chars: list[int]
) -> list[tuple[str, list[int], list[Box]]]:
    """PDFium reports some runs of printed lines as one line (a bulleted list set as one
    text object); split such a line where its words wrap back to a lower line, so its
    bullets and gaps are not read as table cells. ``chars`` are the PDFium indexes of
    ``raw``'s non-space characters; each piece comes with its text runs."""
    runs = page.runs(chars[0], chars[-1])
    size = min((top - bottom for _, bottom, _, top in runs), default=0.0)
    if len(runs) < 3 or size <= 0 or max(r[1] for r in runs) - min(r[1] for r in runs) < size:
        return [(raw, chars, runs)]
    pieces: list[tuple[list[str], list[int]]] = []
    offset = 0
    previous: Box | None = None
    for word in _words(page, raw, chars):
        box = page.box(chars[offset])
        wraps = (
            box is not None
            and previous is not None
            and (box[3] < previous[1] + 0.2 * size and box[0] < previous[0])
        )
        if not pieces or wraps:
            pieces.append(([], []))
        pieces[-1][0].append(word)
        pieces[-1][1].extend(chars[offset : offset + len(word)])
        offset += len(word)
        previous = box or previous
    return [
        (" ".join(words), indexes, page.runs(indexes[0], indexes[-1])) for words, indexes in pieces
    ]


def _words(page: _Page, raw: str, chars: list[int]) -> list[str]:
    """``raw``'s words, a word PDFium joined across a line-end hyphen split after the
    hyphen where what follows is not the next line of its paragraph but lower text of
    another size, or text well below (a footnote under the column: "con\ufffe8We use
    aliases…"), so the two can part."""
    out: list[str] = []
    offset = 0
    for word in raw.split():
        cut = 0
        for match in _JOINED.finditer(word):
            hyphen = page.box(chars[offset + match.start()])
            after = page.box(chars[offset + match.end()])
            if hyphen is not None and after is not None and _off_the_line(hyphen, after):
                out.append(word[cut : match.end()])
                cut = match.end()
        out.append(word[cut:])
        offset += len(word)
    return out


def _off_the_line(hyphen: Box, after: Box) -> bool:
    """Is ``after``, the character after a line-end hyphen, on a line of another
    paragraph: below the hyphen's line, in another size or more than ``LINE_GAP`` text
    heights below?"""
    height, other = hyphen[3] - hyphen[1], after[3] - after[1]
    if height <= 0 or after[3] >= hyphen[1]:
        return False  # not below the hyphen's line
    gap = hyphen[1] - after[3]
    return abs(height - other) > 0.2 * height or gap > LINE_GAP * height


Cell = tuple[str, float, float]  # a word's or a cell's text, left and right


@dataclass(frozen=True, slots=True)
class _Spaced:
    """A line PDFium sees as one text run: its words and its cells (runs of words less
    than a text height apart), each with its extent."""

    words: list[Cell]
    cells: list[Cell]


def _find_cells(page: _Page, line: Line, chars: list[int], runs: list[Box]) -> _Spaced | None:
    """A line whose text runs stand apart by more than a text height, twice or more, is
    a table row: its cells are joined with " | " (``line.row``). Where PDFium sees the
    line as one run (a paper's table set with spaces), words standing that far apart
    make the cells, and the line is a row only where most of them, two or more, are
    numbers ("Oasst-33B 82.9 34.8 36.2 35.5"); such a row's words and cells are
    returned (for ``_head_rows``)."""
    starts = [cur[0] for prev, cur in itertools.pairwise(runs) if cur[0] - prev[2] > line.size]
    if len(starts) < 2:
        numbers = sum(bool(_CELL_NUMBER.fullmatch(word)) for word in line.text.split())
        if numbers < 2:
            return None
        found = _spaced_cells(page, line, chars)
        texts = [text for text, _, _ in found.cells]
        numbers = sum(bool(_CELL_NUMBER.fullmatch(text)) for text in texts[1:])
        if len(texts) < 3 or numbers < 2 or 2 * numbers < len(texts) - 1:
            return None
        line.text, line.row = CELLS.join(texts), True
        line.cells = [[(left, right)] for _, left, right in found.cells]
        return found
    cells: list[list[Cell]] = [[]]
    offset = 0
    for word in line.text.split():  # a cell starts at a word that starts a run
        box = page.box(chars[offset])
        last = page.box(chars[offset + len(word) - 1])
        bullet = len(cells[-1]) == 1 and _BULLET.match(cells[-1][0][0])
        if (
            cells[-1]
            and not bullet
            and box is not None
            and any(abs(box[0] - x) < 1.0 for x in starts)
        ):
            cells.append([])
        left = box[0] if box is not None else (cells[-1][-1][2] if cells[-1] else line.left)
        cells[-1].append((word, left, last[2] if last is not None else left))
        offset += len(word)
    if len(cells) >= 3:
        apart = _signs_apart(cells)
        line.text = CELLS.join(" ".join(word for word, _, _ in cell) for cell in apart)
        line.cells = [[(left, right) for _, left, right in cell] for cell in apart]
        line.row = True
    return None


def _signs_apart(cells: list[list[Cell]]) -> list[list[Cell]]:
    """``cells`` with a currency sign that ends a cell set in a cell of its own: the sign
    heads the next column, printed closer to the amount before it than the gap between
    cells ("(1,009,359) $ | (1,752,857)" is "(1,009,359) | $ | (1,752,857)")."""
    out: list[list[Cell]] = []
    for i, cell in enumerate(cells):
        if len(cell) > 1 and cell[-1][0] in CURRENCY and i + 1 < len(cells):
            out += [cell[:-1], cell[-1:]]
        else:
            out.append(cell)
    return out


def _spaced_cells(page: _Page, line: Line, chars: list[int]) -> _Spaced:
    """The line's words and the cells they make (words more than a text height apart)."""
    words: list[Cell] = []
    cells: list[Cell] = []
    offset = 0
    for word in line.text.split():
        first, last = page.box(chars[offset]), page.box(chars[offset + len(word) - 1])
        left = first[0] if first is not None else (words[-1][2] if words else line.left)
        right = last[2] if last is not None else left
        if cells and left - cells[-1][2] > line.size:
            cells.append((word, left, right))
        elif cells:
            cells[-1] = (f"{cells[-1][0]} {word}", cells[-1][1], right)
        else:
            cells.append((word, left, right))
        words.append((word, left, right))
        offset += len(word)
    return _Spaced(words, cells)


def _head_rows(
    page: _Page, lines: list[Line], spaced: dict[int, _Spaced], chars_of: dict[int, list[int]]
) -> None:
    """The header of a table whose rows were found by their spaced words, set as text
    over its columns of values in one or two lines ("Fluency Correct. Citation" over
    "(MAUVE) (EM Rec.) Rec. Prec."): the lines right above its first row whose words
    stand apart as cells over two of those columns or more, up to two (short labels
    between them and the rows aside: "ChatGPT"), become one header row, each column
    headed by the words over it ("Fluency (MAUVE) | Correct. (EM Rec.) | Citation
    Rec. | Citation Prec.")."""
    i = 0
    while i < len(lines):
        line = lines[i]
        first = spaced.get(id(line))
        if first is None or (i > 0 and lines[i - 1].row):
            i += 1
            continue
        columns = [(left, right) for _, left, right in first.cells[1:]]
        found: list[int] = []
        heading: dict[int, _Spaced] = {}
        j = i - 1
        while j >= 0 and len(found) < 2 and i - j <= 4:
            above = lines[j]
            if above.row:  # rows after a label: the table's header is above them
                found = []
                break
            close = lines[j + 1].top - above.top <= 2.5 * line.size
            if not close or above.size <= 0 or above.right > line.right + 4 * line.size:
                break
            words = heading[j] = _spaced_cells(page, above, chars_of[id(above)])
            over = {c for _, left, right in words.words for c in _under(columns, left, right)}
            if len(words.cells) >= 2 and len(over) >= 2:
                found.append(j)
            elif found or len(words.words) > LABEL_WORDS or above.left < line.left - line.size:
                break
            j -= 1
        if found:
            label: list[str] = []  # words over the rows' labels: the labels' heading
            heads: list[list[str]] = [[] for _ in columns]
            for j in reversed(found):  # top line first
                for word, left, right in heading[j].words:
                    if right < columns[0][0] - 1:
                        label.append(word)
                        continue
                    for c in _under(columns, left, right, nearest=True):
                        heads[c].append(word)
            if all(heads):
                top = lines[found[-1]]
                named = [label] if label else []
                top.text = CELLS.join(" ".join(head) for head in [*named, *heads])
                top.row = True
                top.cells = [[(top.left, columns[0][0])]] if label else []
                top.cells += [[column] for column in columns]
                for j in found[:-1]:
                    del lines[j]
                    i -= 1
        i += 1


def _under(
    columns: list[tuple[float, float]], left: float, right: float, nearest: bool = False
) -> list[int]:
    """The columns a word from ``left`` to ``right`` stands over (else, with
    ``nearest``, the nearest)."""
    over = [c for c, (start, end) in enumerate(columns) if left < end + 1 and right > start - 1]
    if over or not nearest:
        return over
    middle = (left + right) / 2
    return [min(range(len(columns)), key=lambda c: abs(sum(columns[c]) / 2 - middle))]


def _aligned_rows(lines: list[Line]) -> None:
    """Give a row that holds fewer cells than its table's columns a cell for each column
    it leaves blank (``EMPTY_CELL``), so that each of its cells stays under its own
    column's header (a state's "Private Sale" checks after the two "Rentals" columns
    that no state fills are not read as its rentals; a year's blank is not filled by
    the next year's amount). The columns are those of the table's widest row
    (consecutive rows on the page) where it is the table's first row (its header) or
    three rows or more hold as many cells; a column reaches halfway to the next. A row
    is aligned only where each of its cells (each number of numbers run together in one
    cell: "21,550 56,941") is printed over a column of its own, in the columns' order;
    a row whose cells are over the last columns alone stays as it is
    (``quotes.column_offset`` lines it up at its end: a header without a label cell). A
    table whose rows print a currency sign in a cell of its own is left as it is (some
    rows print one before each amount, most print none: ``_even_rows`` counts them
    out)."""
    for is_row, run in itertools.groupby(lines, key=lambda line: line.row):
        rows = list(run)
        if not is_row or len(rows) < 3:
            continue
        if any(_values(row.text.split(CELLS)) < len(row.cells) for row in rows):
            continue
        counts = collections.Counter(len(row.cells) for row in rows)
        widest = max(counts)
        if widest == 0 or (len(rows[0].cells) != widest and counts[widest] < 3):
            continue
        template = next(row.cells for row in rows if len(row.cells) == widest)
        bounds = [(a[-1][1] + b[0][0]) / 2 for a, b in itertools.pairwise(template)]
        for row in rows:
            if 0 < len(row.cells) < widest:
                placed = _placed(row.text.split(CELLS), row.cells, bounds)
                if placed is not None and (
                    len(placed) > len(row.cells) or min(placed) + len(placed) < widest
                ):
                    row.text = CELLS.join(placed.get(c, EMPTY_CELL) for c in range(widest))
                    row.cells = template


def _placed(
    texts: list[str], cells: list[list[tuple[float, float]]], bounds: list[float]
) -> dict[int, str] | None:
    """The row's cells by the column each is printed over (the one its words' middles
    fall in, between ``bounds``); a cell whose words fall in several columns is cut
    between them where all but its first part are numbers or dashes ("SUMM (10-psg)
    70.0", "— (46,324)", "21,550 56,941"). None where a cell spans columns otherwise,
    or two would share a column, or the columns' order would not be kept."""
    placed: dict[int, str] = {}
    for text, extents in zip(texts, cells, strict=True):
        words = text.split()
        if len(words) != len(extents):
            extents = [(extents[0][0], extents[-1][1])] * len(words)  # a cell as one run
        parts: dict[int, list[str]] = {}
        for word, (left, right) in zip(words, extents, strict=True):
            parts.setdefault(bisect.bisect(bounds, (left + right) / 2), []).append(word)
        rest = [word for column in list(parts)[1:] for word in parts[column]]
        if not all(_CELL_NUMBER.fullmatch(word) for word in rest):
            return None
        for column, part in parts.items():
            if placed and column <= max(placed):
                return None
            placed[column] = " ".join(part)
    return placed


def _wrapped_cells(lines: list[Line]) -> None:
    """Join to a row's cell the lines its text wraps onto below the row: a line right
    under the row (or under such a line) that starts where the cell starts and ends
    before the next cell does ("STAFF TRANSPORTATION" over "AIRFARE FOR E JOHNSON KANSAS
    CITY …", its amount beside the first line). Only a cell of words between others (an
    amount does not wrap): what starts under a row's first cell is the next row's label
    or a label over the rows that follow ("Costs and expenses"), and under its last,
    text after the table."""
    i = 0
    while i < len(lines):
        row = lines[i]
        i += 1
        if not row.row or len(row.cells) < 2:
            continue
        texts = row.text.split(CELLS)
        if len(texts) != len(row.cells):
            continue
        starts = [cell[0][0] for cell in row.cells]
        size = max(row.size, 1.0)
        last = row
        while i < len(lines):
            line = lines[i]
            below = -size / 2 <= last.bottom - line.top < LINE_GAP * size
            column = next(
                (c for c in range(1, len(starts) - 1) if abs(line.left - starts[c]) < size),
                None,
            )
            if line.row or not below or column is None or line.right >= starts[column + 1]:
                break
            if _CELL_NUMBER.fullmatch(texts[column].strip()):
                break  # an amount does not wrap (an axis's "k" under its "50")
            texts[column] = f"{texts[column]} {line.text.strip()}"
            last = line
            del lines[i]
        if last is not row:
            row.text = CELLS.join(texts)


def _even_rows(lines: list[Line]) -> None:
    """Split the cells of a row that holds fewer than the rows around it where numbers
    set close together ran into one cell ("21,550 56,941 51,670"): only when every such
    cell, cut at its spaces, gives the row exactly as many cells as the most that three
    or more rows of its table (consecutive rows on the page) hold. A currency sign's
    own cell is not counted: some rows print one before each amount, most print none."""
    for is_row, run in itertools.groupby(lines, key=lambda line: line.row):
        rows = list(run)
        if not is_row or len(rows) < 3:
            continue
        counts = [_values(row.text.split(CELLS)) for row in rows]
        shared = [n for n, seen in collections.Counter(counts).items() if seen >= 3]
        if not shared:
            continue  # no count the table's whole rows share
        usual = max(shared)
        for row, count in zip(rows, counts, strict=True):
            if count >= usual:
                continue
            cells = [
                cell.split() if _NUMBERS.fullmatch(cell.strip()) else [cell]
                for cell in row.text.split(CELLS)
            ]
            if sum(_values(cell) for cell in cells) == usual:
                row.text = CELLS.join(itertools.chain.from_iterable(cells))


def _values(cells: Sequence[str]) -> int:
    """How many of ``cells`` are not a currency sign's own."""
    return sum(cell.strip() not in CURRENCY for cell in cells)


def _read_outline(pdf: Any, page_count: int) -> list[Bookmark]:
    marks: list[Bookmark] = []
    for item in itertools.islice(pdf.get_toc(max_depth=10), 10_000):
        dest = item.get_dest()
        title = clean(str(item.get_title() or ""))
        index = dest.get_index() if dest is not None else None
        if not title or index is None or not 0 <= int(index) < page_count:
            continue
        mode, view = dest.get_view()
        marks.append(Bookmark(int(item.level), title, int(index), _dest_top(int(mode), view)))
    return marks


def _dest_top(mode: int, view: Sequence[float]) -> float | None:
    if mode == pdfium_c.PDFDEST_VIEW_XYZ and len(view) >= 2 and view[1]:
        return float(view[1])
    if mode in (pdfium_c.PDFDEST_VIEW_FITH, pdfium_c.PDFDEST_VIEW_FITBH) and view and view[0]:
        return float(view[0])
    return None
