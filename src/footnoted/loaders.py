"""Loaders: a file's bytes -> canonical text with page, section path and offsets.

:func:`load_bytes` sniffs the kind from the content (never trusting the extension
alone), guards against oversized input and decompression bombs, and dispatches to one
private loader per kind. Every loader produces a list of :class:`_Block` (one
paragraph-like run of text with its page and heading path); :func:`_assemble` joins the
blocks with blank lines into :attr:`ParsedDocument.text` and records one
:class:`Segment` per block, so ``text[segment.start:segment.end]`` is exactly that block.
"""

from __future__ import annotations

import codecs
import io
import itertools
import re
import statistics
import threading
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

import docx
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from docx.document import Document as DocxDocument
from docx.oxml.ns import qn
from docx.table import Table
from docx.text.paragraph import Paragraph
from markdown_it import MarkdownIt
from markdown_it.token import Token
from selectolax.lexbor import LexborHTMLParser, LexborNode

from footnoted.errors import DocumentError, FootnotedError, NotFound, TooLarge, UnsupportedType
from footnoted.models import ParsedDocument, Segment

__all__ = [
    "KINDS",
    "MAX_DOCX_UNCOMPRESSED_BYTES",
    "MAX_HTML_NESTING",
    "MAX_PDF_PAGES",
    "MAX_TEXT_CHARS",
    "MAX_ZIP_RATIO",
    "SUPPORTED_SUFFIXES",
    "detect_kind",
    "load_bytes",
    "load_path",
]

SUPPORTED_SUFFIXES: frozenset[str] = frozenset(
    {".pdf", ".docx", ".html", ".htm", ".md", ".markdown", ".txt", ".text"}
)
KINDS: tuple[str, ...] = ("pdf", "docx", "html", "markdown", "text")

MAX_PDF_PAGES = 5000
MAX_TEXT_CHARS = 20_000_000
MAX_DOCX_UNCOMPRESSED_BYTES = 200 * 1024 * 1024
MAX_ZIP_RATIO = 100
MAX_ZIP_MEMBERS = 10_000
_RATIO_CHECK_MIN_BYTES = 1024 * 1024  # tiny members may compress well for innocent reasons
_MB = 1024 * 1024

_KIND_NAMES = {
    "pdf": "a PDF",
    "docx": "a Word document",
    "html": "an HTML page",
    "markdown": "Markdown",
    "text": "plain text",
}


# ---- public API --------------------------------------------------------------------------


def detect_kind(data: bytes, filename: str) -> str:
    """Return "pdf", "docx", "html", "markdown" or "text", judged by content first.

    The extension only tells Markdown from plain text (and lets an ``.html`` fragment
    count as HTML). Raises :class:`UnsupportedType` for any other binary data.
    """
    return _sniff(data, filename)[0]


def load_bytes(data: bytes, filename: str, *, max_bytes: int | None = None) -> ParsedDocument:
    """Parse a document held in memory; every failure is a :class:`FootnotedError`."""
    name = _display_name(filename)
    _check_size(len(data), max_bytes, name)
    if not data or data.isspace():
        raise DocumentError(f"{name} is empty.")
    kind, text = _sniff(data, filename)
    if text is not None and not _clean(text):
        raise DocumentError(f"{name} is empty.")
    try:
        document = _LOADERS[kind](data, text, name)
    except FootnotedError:
        raise
    except Exception as exc:
        raise DocumentError(
            f"Could not read {name} as {_KIND_NAMES[kind]}: {_describe(exc)}"
        ) from exc
    if not document.text:
        raise DocumentError(_no_text_message(name, kind))
    return document


def load_path(path: Path, *, max_bytes: int | None = None) -> ParsedDocument:
    """Read and parse a file, checking its size before reading it."""
    try:
        _check_size(path.stat().st_size, max_bytes, path.name)
        with path.open("rb") as handle:
            data = handle.read() if max_bytes is None else handle.read(max_bytes + 1)
    except FileNotFoundError as exc:
        raise NotFound(f"No such file: {path}") from exc
    except OSError as exc:
        raise DocumentError(f"Could not read {path.name}: {exc.strerror or exc}") from exc
    return load_bytes(data, path.name, max_bytes=max_bytes)


# ---- shared helpers ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Block:
    text: str
    section: tuple[str, ...] = ()
    page: int | None = None


class _Sections:
    """The current heading path; entering a heading closes those at its level or deeper."""

    def __init__(self) -> None:
        self._stack: list[tuple[int, str]] = []
        self.path: tuple[str, ...] = ()

    def enter(self, level: int, title: str) -> tuple[str, ...]:
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self._stack.append((level, title))
        self.path = tuple(title for _, title in self._stack)
        return self.path


_INVISIBLE = re.compile("[\x00-\x08\x0e-\x1f\x7f\u00ad\u200b\ufeff\ufffe\uffff]")
_LIGATURES = str.maketrans(
    {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl"}
)
_JUNK_TITLE = re.compile(
    r"^(?:untitled.*|title|document\d*|no title|none|null|unknown|slide \d+"
    r"|microsoft (?:word|powerpoint|excel) - .*|.*\.(?:docx?|pdf|rtf|odt|tex|dvi|ps|pptx?"
    r"|xlsx?|txt|html?|indd|qxd|pages))$",
    re.IGNORECASE,
)


def _clean(text: str) -> str:
    """Drop invisible characters and collapse every run of whitespace to one space."""
    return " ".join(_INVISIBLE.sub("", text).translate(_LIGATURES).split())


def _clean_title(raw: str | None) -> str | None:
    title = _clean(raw or "")
    if not any(ch.isalnum() for ch in title) or _JUNK_TITLE.match(title):
        return None
    return title


def _assemble(
    blocks: Sequence[_Block], *, kind: str, title: str | None, page_count: int | None = None
) -> ParsedDocument:
    parts: list[str] = []
    segments: list[Segment] = []
    offset = 0
    for block in blocks:
        text = _clean(block.text)
        if not text:
            continue
        if parts:
            offset += 2
        segments.append(Segment(offset, offset + len(text), block.page, block.section))
        parts.append(text)
        offset += len(text)
    return ParsedDocument(
        text="\n\n".join(parts),
        kind=kind,
        title=title,
        segments=tuple(segments),
        page_count=page_count,
    )


def _display_name(filename: str) -> str:
    return PurePath(filename).name or filename or "The file"


def _megabytes(size: int) -> str:
    text = f"{size / _MB:.1f} MB"
    return text if size >= _MB // 10 else f"{text} ({size:,} bytes)"


def _check_size(size: int, max_bytes: int | None, name: str) -> None:
    if max_bytes is not None and size > max_bytes:
        raise TooLarge(
            f"{name} is {_megabytes(size)}, over the {_megabytes(max_bytes)} limit for one file."
        )


def _describe(exc: BaseException) -> str:
    text = _clean(str(exc)) or type(exc).__name__
    return text if len(text) <= 200 else text[:199] + "…"


def _no_text_message(name: str, kind: str) -> str:
    if kind == "pdf":
        return (
            f"{name} has no extractable text; it may be a scanned document without a text "
            "layer (run OCR on it first)."
        )
    return f"{name} has no extractable text."


# ---- sniffing ----------------------------------------------------------------------------

_BINARY_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "a legacy Microsoft Office file (.doc, .xls, .ppt)"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"\x7fELF", "an executable program"),
    (b"{\\rtf", "an RTF document"),
)
_HTML_START = re.compile(
    r"\A(?:\s|<!--.*?-->|<\?xml[^>]*>)*<(?:!doctype\s+html|html|head|body)[\s>/]",
    re.IGNORECASE | re.DOTALL,
)
_SUPPORTED_LIST = "PDF, Word (.docx), HTML, Markdown and plain text"


def _sniff(data: bytes, filename: str) -> tuple[str, str | None]:
    """The kind of ``data`` and, for text kinds, its decoded text."""
    name = _display_name(filename)
    suffix = PurePath(filename).suffix.lower()
    if data[:1024].lstrip(b"\x00\t\n\r\f \xef\xbb\xbf")[:5] == b"%PDF-":
        return "pdf", None
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return _sniff_zip(data, name, suffix), None
    for signature, what in _BINARY_SIGNATURES:
        if data.startswith(signature):
            raise UnsupportedType(
                f"{name} looks like {what}, which is not supported; "
                f"supported are {_SUPPORTED_LIST}."
            )
    text = _decode(data)
    if text is None:
        raise UnsupportedType(
            f"{name} is not a supported document: it is binary data, or text in an "
            f"encoding other than UTF-8/UTF-16; supported are {_SUPPORTED_LIST}."
        )
    if _HTML_START.match(text[:65536]):
        return "html", text
    if suffix in {".html", ".htm"} and text.lstrip().startswith("<"):
        return "html", text
    return ("markdown" if suffix in {".md", ".markdown"} else "text"), text


def _sniff_zip(data: bytes, name: str, suffix: str) -> str:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        if suffix == ".docx":
            return "docx"  # a damaged Word file: the DOCX loader reports it as unreadable
        raise UnsupportedType(
            f"{name} is a damaged ZIP archive, not a supported document."
        ) from exc
    if "word/document.xml" in names or (
        "[Content_Types].xml" in names and any(n.startswith("word/") for n in names)
    ):
        return "docx"
    raise UnsupportedType(
        f"{name} is a ZIP archive (such as .xlsx, .pptx, .odt or .epub) but not a Word "
        f".docx document; supported are {_SUPPORTED_LIST}."
    )


def _decode(data: bytes) -> str | None:
    """Text from UTF-8 (BOM optional) or BOM-marked UTF-16; None when it is not text."""
    if data.startswith(codecs.BOM_UTF8):
        encoding = "utf-8-sig"
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16"
    else:
        encoding = "utf-8"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError:
        return None
    sample = text[:8192]
    controls = sum(1 for ch in sample if ch < " " and ch not in "\t\n\r\f\v")
    if "\x00" in text or controls > len(sample) // 100:
        return None
    return text


# ---- plain text --------------------------------------------------------------------------

_BLANK_LINE = re.compile(r"\n[ \t\f\v]*\n")


def _load_text(_data: bytes, text: str | None, _name: str) -> ParsedDocument:
    content = (text or "").replace("\r\n", "\n").replace("\r", "\n")
    blocks = [_Block(part) for part in _BLANK_LINE.split(content)]
    return _assemble(blocks, kind="text", title=None)


# ---- Markdown ----------------------------------------------------------------------------

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_MARKDOWN = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


class _MarkdownBlocks:
    """Walks markdown-it's token stream; each paragraph, list item, code block, table
    row and heading becomes one block."""

    def __init__(self, name: str) -> None:
        self.blocks: list[_Block] = []
        self.title: str | None = None
        self._name = name
        self._sections = _Sections()
        self._buffer: list[str] = []
        self._heading = 0
        self._row: list[str] | None = None
        self._item_depth = 0

    def feed(self, tokens: Sequence[Token]) -> None:
        for token in tokens:
            if token.type == "inline":
                self._inline(_markdown_inline(token))
            elif token.type in ("fence", "code_block"):
                self._flush()
                self._add(token.content)
            elif token.type == "html_block":
                self._flush()
                for block in _html_fragment_blocks(token.content, self._name):
                    self._add(block.text)
            else:
                self._structure(token)
        self._flush()

    def _structure(self, token: Token) -> None:
        kind = token.type
        if kind == "heading_open":
            self._flush()
            self._heading = int(token.tag[1:])
        elif kind == "heading_close":
            self._heading = 0
        elif kind == "tr_open":
            self._flush()
            self._row = []
        elif kind == "tr_close":
            self._add(" | ".join(cell for cell in (self._row or []) if cell))
            self._row = None
        elif kind in ("paragraph_open", "paragraph_close") and self._item_depth:
            self._buffer.append(" ")  # the paragraphs of one list item stay one block
        elif kind.endswith(("_open", "_close")) or kind == "hr":
            self._flush()
            if kind == "list_item_open":
                self._item_depth += 1
            elif kind == "list_item_close":
                self._item_depth -= 1

    def _inline(self, text: str) -> None:
        if self._row is not None:
            self._row.append(_clean(text))
        elif self._heading:
            self._heading_block(_clean(text))
        else:
            self._buffer.append(text)

    def _heading_block(self, text: str) -> None:
        if not text:
            return
        if self._heading == 1 and self.title is None:
            self.title = text
        self.blocks.append(_Block(text, self._sections.enter(self._heading, text)))

    def _add(self, text: str) -> None:
        if _clean(text):
            self.blocks.append(_Block(text, self._sections.path))

    def _flush(self) -> None:
        text = "".join(self._buffer)
        self._buffer.clear()
        self._add(text)


def _markdown_inline(token: Token) -> str:
    parts: list[str] = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts)


def _load_markdown(_data: bytes, text: str | None, name: str) -> ParsedDocument:
    source = _FRONT_MATTER.sub("", (text or "").replace("\r\n", "\n"), count=1)
    walker = _MarkdownBlocks(name)
    walker.feed(_MARKDOWN.parse(source))
    return _assemble(walker.blocks, kind="markdown", title=_clean_title(walker.title))


# ---- HTML --------------------------------------------------------------------------------


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_HTML_SKIP = _words(
    "script style noscript nav header footer aside form svg template head title iframe "
    "object embed canvas button select textarea dialog"
)
_HTML_INLINE = _words(
    "a abbr acronym b bdi bdo big cite code data del dfn em font i img ins kbd label mark "
    "nobr q s samp small span strike strong sub sup time tt u var wbr"
)
# elements that never nest (void) or close implicitly: they do not add to nesting depth
_HTML_FLAT = _words(
    "area base br col embed hr img input link meta param source track wbr p li dt dd tr td th "
    "option optgroup thead tbody tfoot colgroup rt rp html head body"
)
_HTML_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)([^<>]*)>")
MAX_HTML_NESTING = 10_000  # the HTML parser's time grows with the square of the depth
_HTML_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_DISPLAY_NONE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class _End:
    """Marks where an element closes in the explicit walk stack."""

    heading: int = 0
    cell: bool = False
    row: bool = False


class _HtmlBlocks:
    """Iterative DOM walk (no recursion limit on deep markup) producing blocks."""

    def __init__(self) -> None:
        self.blocks: list[_Block] = []
        self.first_h1: str | None = None
        self._sections = _Sections()
        self._buffer: list[str] = []
        self._cells: list[str] | None = None
        self._in_heading = False

    def walk(self, root: LexborNode) -> None:
        stack: list[LexborNode | _End] = [root]
        while stack:
            item = stack.pop()
            if isinstance(item, _End):
                self._close(item)
            else:
                stack.extend(reversed(self._open(item)))
        self._flush()

    def _open(self, node: LexborNode) -> list[LexborNode | _End]:
        if node.is_text_node:
            self._buffer.append(node.text_content or "")
            return []
        tag = node.tag or ""
        if not node.is_element_node or tag in _HTML_SKIP or _html_hidden(node):
            return []
        if tag == "br":
            self._buffer.append(" ")
            return []
        children: list[LexborNode | _End] = list(node.iter(include_text=True))
        if tag in _HTML_INLINE:
            return children
        if self._cells is not None or self._in_heading:
            return self._open_inside(tag, children)
        if tag == "tr":
            self._flush()
            self._cells = []
            return [*children, _End(row=True)]
        self._flush()
        level = _HTML_HEADINGS.get(tag, 0)
        self._in_heading = level > 0
        return [*children, _End(heading=level)]

    def _open_inside(self, tag: str, children: list[LexborNode | _End]) -> list[LexborNode | _End]:
        """Inside a table row or a heading, block elements only separate words."""
        self._buffer.append(" ")
        if self._cells is not None and tag in ("td", "th"):
            self._buffer.clear()
            return [*children, _End(cell=True)]
        return children

    def _close(self, end: _End) -> None:
        if end.cell and self._cells is not None:
            self._cells.append(_clean("".join(self._buffer)))
            self._buffer.clear()
        elif end.row:
            cells, self._cells = self._cells or [], None
            self._buffer.clear()
            self._add(" | ".join(cell for cell in cells if cell), 0)
        else:
            self._flush(end.heading)
            self._in_heading = False

    def _flush(self, heading: int = 0) -> None:
        text = _clean("".join(self._buffer))
        self._buffer.clear()
        self._add(text, heading)

    def _add(self, text: str, heading: int) -> None:
        if not text:
            return
        if heading == 1 and self.first_h1 is None:
            self.first_h1 = text
        section = self._sections.enter(heading, text) if heading else self._sections.path
        self.blocks.append(_Block(text, section))


def _html_hidden(node: LexborNode) -> bool:
    attributes = node.attributes
    if "hidden" in attributes or attributes.get("aria-hidden") == "true":
        return True
    return bool(_DISPLAY_NONE.search(attributes.get("style") or ""))


def _html_roots(tree: LexborHTMLParser) -> list[LexborNode]:
    roots = [tree.css_first(selector) for selector in ("main", "[role=main]", "article")]
    roots.extend([tree.body, tree.root])
    return [root for root in roots if root is not None]


def _parse_html(markup: str, name: str) -> LexborHTMLParser:
    """Parse after refusing absurdly deep nesting, which would take minutes to parse."""
    depth = peak = 0
    tags = _HTML_TAG.finditer(markup) if markup.count("<") > MAX_HTML_NESTING else ()
    for match in tags:
        if match[3].endswith("/") or match[2].lower() in _HTML_FLAT:
            continue
        depth = max(depth - 1, 0) if match[1] else depth + 1
        peak = max(peak, depth)
        if peak > MAX_HTML_NESTING:
            raise DocumentError(
                f"{name} nests HTML elements more than {MAX_HTML_NESTING:,} deep; "
                "refusing it as malformed."
            )
    return LexborHTMLParser(markup)


def _html_fragment_blocks(markup: str, name: str) -> list[_Block]:
    tree = _parse_html(markup, name)
    walker = _HtmlBlocks()
    root = tree.body or tree.root
    if root is not None:
        walker.walk(root)
    return walker.blocks


def _load_html(_data: bytes, text: str | None, name: str) -> ParsedDocument:
    tree = _parse_html(text or "", name)
    walker = _HtmlBlocks()
    for root in _html_roots(tree):
        walker = _HtmlBlocks()
        walker.walk(root)
        if walker.blocks:
            break
    title_node = tree.css_first("title")
    title = _clean_title(title_node.text() if title_node is not None else None)
    return _assemble(walker.blocks, kind="html", title=title or _clean_title(walker.first_h1))


# ---- DOCX --------------------------------------------------------------------------------

_W_P, _W_TBL, _W_SDT, _W_SDT_CONTENT = qn("w:p"), qn("w:tbl"), qn("w:sdt"), qn("w:sdtContent")
_W_OUTLINE_LEVEL, _W_VAL = qn("w:outlineLvl"), qn("w:val")
_HEADING_STYLE = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)


def _check_zip_bomb(data: bytes, name: str) -> None:
    """Refuse archives that would expand to far more than they weigh, before parsing."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise DocumentError(f"{name} is not a valid .docx file (damaged ZIP archive).") from exc
    if len(members) > MAX_ZIP_MEMBERS:
        raise DocumentError(f"{name} holds {len(members):,} files; refusing it as a zip bomb.")
    total = sum(member.file_size for member in members)
    if total > MAX_DOCX_UNCOMPRESSED_BYTES:
        raise DocumentError(
            f"{name} would expand to {_megabytes(total)} when unpacked, over the "
            f"{_megabytes(MAX_DOCX_UNCOMPRESSED_BYTES)} limit; refusing it as a zip bomb."
        )
    for member in members:
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > _RATIO_CHECK_MIN_BYTES and ratio > MAX_ZIP_RATIO:
            raise DocumentError(
                f"{name} contains {member.filename!r} compressed {ratio:,.0f}:1 (the limit is "
                f"{MAX_ZIP_RATIO}:1); refusing it as a zip bomb."
            )


def _docx_items(element: Any, document: DocxDocument) -> Iterator[Paragraph | Table]:
    """Body paragraphs and tables in order, looking inside content controls."""
    for child in element.iterchildren():
        if child.tag == _W_P:
            yield Paragraph(child, document)
        elif child.tag == _W_TBL:
            yield Table(child, document)
        elif child.tag == _W_SDT:
            content = child.find(_W_SDT_CONTENT)
            if content is not None:
                yield from _docx_items(content, document)


def _outline_level(p_pr: Any) -> int:
    found = p_pr.find(_W_OUTLINE_LEVEL) if p_pr is not None else None
    value = found.get(_W_VAL) if found is not None else None
    return int(value) + 1 if value is not None and value.isdigit() and int(value) < 9 else 0


def _docx_heading_level(paragraph: Paragraph) -> int:
    """1..9 for "Title"/"Heading N" styles (or their descendants) and outline levels."""
    level = _outline_level(paragraph._p.pPr)
    style = paragraph.style
    for _ in range(10):
        if level or style is None:
            break
        name = (style.name or "").strip()
        match = _HEADING_STYLE.match(name)
        level = 1 if name.lower() == "title" else int(match[1]) if match else 0
        level = level or _outline_level(style.element.pPr)
        style = style.base_style
    return level


def _docx_rows(table: Table) -> Iterator[str]:
    """One " | "-joined line per row; merged cells appear once."""
    for row in table._tbl.tr_lst:
        cells = []
        for cell in row.tc_lst:
            texts = (Paragraph(p, table).text for p in cell.iter(_W_P))
            cells.append(_clean(" ".join(texts)))
        yield " | ".join(cell for cell in cells if cell)


def _is_title_style(paragraph: Paragraph) -> bool:
    style = paragraph.style
    return style is not None and (style.name or "").strip().lower() == "title"


def _load_docx(data: bytes, _text: str | None, name: str) -> ParsedDocument:
    _check_zip_bomb(data, name)
    document = docx.Document(io.BytesIO(data))
    sections = _Sections()
    blocks: list[_Block] = []
    first_title: str | None = None
    for item in _docx_items(document.element.body, document):
        if isinstance(item, Table):
            blocks.extend(_Block(row, sections.path) for row in _docx_rows(item))
            continue
        text = _clean(item.text)
        level = _docx_heading_level(item) if text else 0
        if level and first_title is None and _is_title_style(item):
            first_title = text
        blocks.append(_Block(text, sections.enter(level, text) if level else sections.path))
    title = _clean_title(document.core_properties.title) or _clean_title(first_title)
    return _assemble(blocks, kind="docx", title=title)


# ---- PDF ---------------------------------------------------------------------------------

_PDFIUM_LOCK = threading.Lock()  # PDFium is not thread-safe
_BOLD_WEIGHT = 600
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
class _Line:
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
class _Bookmark:
    level: int
    title: str
    page: int
    y: float | None


@dataclass(slots=True)
class _RawPdf:
    pages: list[list[_Line]]
    outline: list[_Bookmark]
    meta_title: str | None


def _load_pdf(data: bytes, _text: str | None, name: str) -> ParsedDocument:
    with _PDFIUM_LOCK:
        raw = _read_pdf(data, name)
    pages = raw.pages
    _drop_furniture(pages)
    body = _body_size(pages)
    ratio = _gap_ratio(pages)
    if raw.outline:
        _apply_outline(pages, raw.outline)
    else:
        _detect_headings(pages, body, ratio)
    vocabulary = _Vocabulary(pages)
    blocks = _pdf_blocks(pages, ratio, vocabulary)
    title = _clean_title(raw.meta_title) or _first_page_title(pages, body, vocabulary)
    return _assemble(blocks, kind="pdf", title=title, page_count=len(pages))


def _open_pdf(data: bytes, name: str) -> Any:
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise DocumentError(
                f"{name} is encrypted (password-protected); remove the password and try again."
            ) from exc
        raise DocumentError(
            f"{name} is not a readable PDF (it is damaged or truncated): {_describe(exc)}"
        ) from exc


def _read_pdf(data: bytes, name: str) -> _RawPdf:
    pdf = _open_pdf(data, name)
    try:
        count = len(pdf)
        if count > MAX_PDF_PAGES:
            raise DocumentError(f"{name} has {count:,} pages; the limit is {MAX_PDF_PAGES:,}.")
        pages: list[list[_Line]] = []
        total = 0
        for index in range(count):
            pages.append(_read_page(pdf, index))
            total += sum(len(line.text) for line in pages[-1])
            if total > MAX_TEXT_CHARS:
                raise DocumentError(
                    f"{name} holds more than {MAX_TEXT_CHARS:,} characters of text; "
                    "refusing it as too large to index."
                )
        meta_title = str(pdf.get_metadata_value("Title") or "")
        return _RawPdf(pages, _read_outline(pdf, count), meta_title)
    finally:
        pdf.close()


def _read_page(pdf: Any, index: int) -> list[_Line]:
    page = pdf[index]
    try:
        textpage = page.get_textpage()
        try:
            return _page_lines(textpage)
        finally:
            textpage.close()
    finally:
        page.close()


def _page_lines(textpage: Any) -> list[_Line]:
    text = str(textpage.get_text_range())
    to_char = _char_indexer(textpage, text)
    lines = []
    for match in re.finditer(r"[^\r\n]+", text):
        raw = match.group()
        positions = [match.start() + i for i, ch in enumerate(raw) if not ch.isspace()]
        if positions:
            lines.append(_measure(textpage, raw, [to_char(p) for p in positions]))
    return [line for line in lines if not line.garbled]


def _char_indexer(textpage: Any, text: str) -> Callable[[int], int]:
    """Map an index into the extracted text to PDFium's character index."""
    if len(text) == int(textpage.count_chars()):
        return lambda index: index
    units = list(itertools.accumulate((2 if ord(ch) > 0xFFFF else 1 for ch in text), initial=0))
    return lambda index: int(pdfium_c.FPDFText_GetCharIndexFromTextIndex(textpage, units[index]))


def _measure(textpage: Any, raw: str, chars: list[int]) -> _Line:
    """Geometry from a few sampled characters: the first four, the middle, the last four."""
    sample = sorted({*chars[:4], chars[len(chars) // 2], *chars[-4:]})
    boxes = {index: box for index in sample if (box := _char_box(textpage, index)) is not None}
    if not boxes:
        return _Line(raw)
    head = [boxes[i] for i in chars[:4] if i in boxes] or list(boxes.values())
    tail = [boxes[i] for i in chars[-4:] if i in boxes] or list(boxes.values())
    weights = [int(pdfium_c.FPDFText_GetFontWeight(textpage, i)) for i in sorted(boxes)]
    garbled = sum(int(pdfium_c.FPDFText_HasUnicodeMapError(textpage, i)) == 1 for i in sample)
    return _Line(
        raw,
        left=head[0][0],
        right=tail[-1][2],
        top=max(box[3] for box in head),
        bottom=min(box[1] for box in tail),
        size=statistics.median(box[3] - box[1] for box in boxes.values()),
        bold=min(weights) >= _BOLD_WEIGHT,
        garbled=garbled * 2 > len(sample),
    )


def _char_box(textpage: Any, index: int) -> tuple[float, float, float, float] | None:
    try:
        left, bottom, right, top = textpage.get_charbox(index, loose=True)
    except pdfium.PdfiumError:
        return None
    return float(left), float(bottom), float(right), float(top)


def _read_outline(pdf: Any, page_count: int) -> list[_Bookmark]:
    marks: list[_Bookmark] = []
    for item in itertools.islice(pdf.get_toc(max_depth=10), 10_000):
        dest = item.get_dest()
        title = _clean(str(item.get_title() or ""))
        index = dest.get_index() if dest is not None else None
        if not title or index is None or not 0 <= int(index) < page_count:
            continue
        mode, view = dest.get_view()
        marks.append(_Bookmark(int(item.level), title, int(index), _dest_top(int(mode), view)))
    return marks


def _dest_top(mode: int, view: Sequence[float]) -> float | None:
    if mode == pdfium_c.PDFDEST_VIEW_XYZ and len(view) >= 2 and view[1]:
        return float(view[1])
    if mode in (pdfium_c.PDFDEST_VIEW_FITH, pdfium_c.PDFDEST_VIEW_FITBH) and view and view[0]:
        return float(view[0])
    return None


def _furniture_key(text: str) -> str:
    return re.sub(r"\d+", "#", " ".join(text.lower().split()))


def _drop_furniture(pages: list[list[_Line]]) -> None:
    """Remove page numbers and running headers/footers repeated across pages."""

    def edges(lines: list[_Line]) -> set[int]:
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


def _body_size(pages: list[list[_Line]]) -> float:
    """The most common text size, weighted by characters."""
    sizes: Counter[float] = Counter()
    for line in itertools.chain.from_iterable(pages):
        if line.size > 0:
            sizes[round(line.size * 2) / 2] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


def _gap_ratio(pages: list[list[_Line]]) -> float:
    """A vertical gap (in text heights) above which a new paragraph starts."""
    ratios = []
    for lines in pages:
        for prev, cur in itertools.pairwise(lines):
            size = min(prev.size, cur.size)
            gap = prev.bottom - cur.top
            if size > 0 and abs(prev.size - cur.size) < 0.1 * size and 0 <= gap < 1.5 * size:
                ratios.append(gap / size)
    return (statistics.median(ratios) if ratios else 0.2) + 0.4


def _same_row(prev: _Line, cur: _Line) -> bool:
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


def _starts_new_block(prev: _Line, cur: _Line, ratio: float) -> bool:
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


def _title_span(lines: list[_Line], start: int, key: str) -> int:
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


def _place_bookmark(lines: list[_Line], cursor: int, mark: _Bookmark) -> int:
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


def _apply_outline(pages: list[list[_Line]], marks: list[_Bookmark]) -> None:
    by_page: dict[int, list[_Bookmark]] = {}
    for mark in marks:
        by_page.setdefault(mark.page, []).append(mark)
    pending: list[_Bookmark] = []
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


def _heading_depth(lines: list[_Line], index: int, body: float, ratio: float) -> int | None:
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


def _style(line: _Line) -> tuple[float, bool]:
    return round(line.size * 2) / 2, line.bold


def _detect_headings(pages: list[list[_Line]], body: float, ratio: float) -> None:
    """Without an outline: headings from size, weight and numbering like "2.1 Method"."""
    found: list[tuple[_Line, int]] = []
    for lines in pages:
        previous: _Line | None = None
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


def _ends_short(prev: _Line, cur: _Line, ends: dict[int, float]) -> bool:
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


def _group_lines(lines: list[_Line], ratio: float) -> list[list[_Line]]:
    ends: dict[int, float] = {}
    for line in lines:
        ends[int(line.left // 20)] = max(ends.get(int(line.left // 20), 0.0), line.right)
    groups: list[list[_Line]] = []
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

    def __init__(self, pages: list[list[_Line]]) -> None:
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

    def text(self, lines: list[_Line]) -> str:
        raw = _SOFT_HYPHEN.sub("-\n", "\n".join(line.text for line in lines))
        raw = _LINE_HYPHEN.sub(self.join, raw)
        return _clean(re.sub(r"(?<=\S)-\n(?=\S)", "-", raw))


def _pdf_blocks(pages: list[list[_Line]], ratio: float, vocabulary: _Vocabulary) -> list[_Block]:
    sections = _Sections()
    blocks: list[_Block] = []
    for number, lines in enumerate(pages, start=1):
        for group in _group_lines(lines, ratio):
            text = vocabulary.text(group)
            path = sections.path
            for level, title in (entry for line in group for entry in line.starts):
                if title or text:
                    path = sections.enter(level, title or text)
            if text:
                blocks.append(_Block(text, path, number))
    return blocks


def _first_page_title(pages: list[list[_Line]], body: float, vocabulary: _Vocabulary) -> str | None:
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
    return _clean_title(text)


_LOADERS: dict[str, Callable[[bytes, str | None, str], ParsedDocument]] = {
    "pdf": _load_pdf,
    "docx": _load_docx,
    "html": _load_html,
    "markdown": _load_markdown,
    "text": _load_text,
}
