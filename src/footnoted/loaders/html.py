"""HTML: the main content's text, without navigation, scripts or hidden elements;
``<h1>``..``<h6>`` give the section path and table rows become " | "-joined lines, each
cell under its own column (``htmltable``: an SEC filing's spacer cells take none).

A page without heading elements (an SEC filing, a page exported from a word processor)
shows its headings as short paragraphs set wholly in bold: those are its headings there,
"PART II" above "Item 7. Management's Discussion and Analysis" above any other."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace

from selectolax.lexbor import LexborHTMLParser, LexborNode

from footnoted import loaders
from footnoted.errors import DocumentError
from footnoted.lexical import CELLS
from footnoted.models import ParsedDocument

from .blocks import Block, Sections, assemble, clean, clean_title
from .htmltable import Cell, table_rows


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_HTML_SKIP = _words(
    "script style noscript nav header footer aside form svg template head title iframe "
    "object embed canvas button select textarea dialog ix:header"
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
_HTML_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_HEADING_SELECTOR = ", ".join(_HTML_HEADINGS)
# what a data table's row does not hold: its cells are parts of a page, not values
_LAYOUT_INSIDE = "table, h1, h2, h3, h4, h5, h6, br + br"
_DISPLAY_NONE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_BOLD_STYLE = re.compile(r"font-weight\s*:\s*(?:bold(?:er)?|[6-9]00)\b", re.IGNORECASE)
_BOLD_TAGS = frozenset({"b", "strong"})
_SHOWN_HEADING_CHARS = 120  # a bold paragraph longer than this is emphasis, not a heading
_PART = re.compile(r"part\s+[ivx]+\b", re.IGNORECASE)
_ITEM = re.compile(r"item\s+\d+[a-z]?\b", re.IGNORECASE)
_SENTENCE_INSIDE = re.compile(r"[.!?]\s+[a-z]")  # a full stop inside: running text
# a printed page's break, as an SEC filing marks it ("page-break-after: always")
_PAGE_BREAK = re.compile(
    r"page-break-(before|after)\s*:\s*always|(?<!-)break-(before|after)\s*:\s*page", re.IGNORECASE
)
# a page's number as printed at its foot: "45", "- 45 -", "F-12", "Page 7", "ii", "xiv"
_PAGE_NUMBER = re.compile(
    r"(?:page\s+)?[-–—]?\s*(?:[A-Z]{1,2}\s?-\s?)?\d{1,4}\s*[-–—]?"
    r"|(?=[ivxlc])c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})",
    re.IGNORECASE,
)
_FURNITURE_CHARS = 80  # a running line printed on every page is no longer than this
_RUNNING = 3  # a line (not a sentence) printed at this many page breaks runs on every page
_SENTENCE_END = re.compile(r"[.!?:;][\"”’')\]]*$")


def load_html(_data: bytes, text: str | None, name: str) -> ParsedDocument:
    tree = _parse_html(text or "", name)
    walker = _HtmlBlocks()
    for root in _html_roots(tree):
        walker = _HtmlBlocks(shown_headings=root.css_first(_HEADING_SELECTOR) is None)
        walker.walk(root)
        if walker.blocks:
            break
    title_node = tree.css_first("title")
    title = clean_title(title_node.text() if title_node is not None else None)
    blocks = _unpaged(walker.blocks, walker.breaks)
    return assemble(
        blocks, kind="html", title=_of_work(title or clean_title(walker.first_h1), tree)
    )


def _of_work(title: str | None, tree: LexborHTMLParser) -> str | None:
    """A page's title with the work it is a page of, where the page links to that work's
    first page by its title (``<link rel="home" title="Debian Reference">``, as DocBook
    and other book tools write it) and its own title does not name it: "Chapter 10. Data
    management (Debian Reference)", so a question naming the book is asked of its
    chapter. Not a site's "Home" or "Index", nor a page that has no title of its own."""
    home = tree.css_first('link[rel="home"][title]')
    work = clean_title(home.attributes.get("title") if home is not None else None)
    if not work or not title or len(work) > _WORK_CHARS or work.casefold() in title.casefold():
        return title
    if work.casefold().strip(" .") in _NO_WORK:
        return title  # a site's "Home" names no book
    return f"{title} ({work})"


_WORK_CHARS = 80  # a book's title, not a paragraph
_NO_WORK = frozenset(
    ("home", "index", "start", "contents", "table of contents", "top", "main page")
)


def html_fragment_blocks(markup: str, name: str) -> list[Block]:
    """The blocks of a piece of HTML embedded in another document (Markdown)."""
    tree = _parse_html(markup, name)
    walker = _HtmlBlocks()
    root = tree.body or tree.root
    if root is not None:
        walker.walk(root)
    return walker.blocks


@dataclass(frozen=True, slots=True)
class _End:
    """Marks where an element closes in the explicit walk stack."""

    heading: int = 0
    cell: Cell | None = None  # a cell's spans (its text is read when it closes)
    row: bool = False
    table: bool = False
    page: bool = False  # a page breaks after the element
    caption: bool = False  # a table's <caption>
    bold: bool = False  # only ends bold type; the element's own end follows
    term: bool = False  # a definition list's term (<dt>)


class _HtmlBlocks:
    """Iterative DOM walk (no recursion limit on deep markup) producing blocks."""

    def __init__(self, shown_headings: bool = False) -> None:
        self.blocks: list[Block] = []
        self._shown_headings = shown_headings  # bold paragraphs are the headings
        self._bold = 0  # bold elements open around the walk's place
        self._bold_chars = self._plain_chars = 0  # of the buffered text
        self.first_h1: str | None = None
        self._sections = Sections()
        self._buffer: list[str] = []
        self._cells: list[Cell] | None = None
        self._rows: list[list[Cell]] = []  # the rows of the table being read
        self._in_heading = False
        self._after_br = False  # a <br> and nothing but white space since
        self.breaks: list[int] = []  # where the printed pages break: before these blocks
        self._term = ""  # a definition list's term, waiting for its description's text

    def walk(self, root: LexborNode) -> None:
        stack: list[LexborNode | _End] = [root]
        while stack:
            item = stack.pop()
            if isinstance(item, _End):
                self._close(item)
            else:
                stack.extend(reversed(self._open(item)))
        self._flush()
        self._table()
        if self._term:  # a last term with no description: a line of its own
            term, self._term = self._term, ""
            self._add(term, 0)

    def _open(self, node: LexborNode) -> list[LexborNode | _End]:
        if node.is_text_node:
            text = node.text_content or ""
            self._buffer.append(text)
            if self._bold:
                self._bold_chars += len(text.strip())
            else:
                self._plain_chars += len(text.strip())
            self._after_br = self._after_br and not text.strip()
            return []
        tag = node.tag or ""
        if not node.is_element_node or tag in _HTML_SKIP or _html_hidden(node):
            return []
        if tag == "a" and "headerlink" in (node.attributes.get("class") or "").split():
            return []  # a heading's permalink, "¶" beside every title of a Sphinx page
        if tag == "br":  # two in a row part paragraphs, as pages without <p> are written
            if self._after_br and self._cells is None and not self._in_heading:
                self._flush()
            else:
                self._buffer.append(" ")
                self._after_br = True
            return []
        children: list[LexborNode | _End] = list(node.iter(include_text=True))
        if self._shown_headings and _bold(node, tag):
            self._bold += 1
            children.append(_End(bold=True))
        if tag in _HTML_INLINE or ":" in tag:
            # an element of another vocabulary (inline XBRL's ix:nonFraction around each
            # amount of an SEC filing, a word processor's o:p) wraps text where it stands
            return children
        if self._cells is not None or self._in_heading:
            return self._open_inside(node, tag, children)
        if tag == "tr" and node.css_first(_LAYOUT_INSIDE) is not None:
            return children  # a page laid out with a table: its cells hold blocks
        if tag == "tr":
            self._flush()
            self._cells = []
            return [*children, _End(row=True)]
        self._flush()
        side = _page_break(node)
        if side == "before":
            self._break()
        level = _HTML_HEADINGS.get(tag, 0)
        if level and _admonition_title(node):
            level = 0
        self._in_heading = level > 0
        table, caption = tag == "table", tag == "caption"
        term = tag == "dt"
        end = _End(level, table=table, page=side == "after", caption=caption, term=term)
        return [*children, end]

    def _open_inside(
        self, node: LexborNode, tag: str, children: list[LexborNode | _End]
    ) -> list[LexborNode | _End]:
        """Inside a table row or a heading, block elements only separate words."""
        self._buffer.append(" ")
        if self._cells is not None and tag in ("td", "th"):
            self._take()
            attributes = node.attributes
            spans = Cell("", _span(attributes, "colspan"), _span(attributes, "rowspan"))
            return [*children, _End(cell=spans)]
        return children

    def _close(self, end: _End) -> None:
        if end.bold:
            self._bold -= 1
        elif end.cell is not None and self._cells is not None:
            self._cells.append(Cell(self._take(), end.cell.span, end.cell.rowspan))
        elif end.row:
            cells, self._cells = self._cells or [], None
            self._take()
            self._rows.append(cells)
        elif end.term:  # the term opens its description's first block ("MAXYEAR — …")
            term = self._take()
            self._term = f"{self._term}, {term}" if self._term and term else self._term or term
        else:
            self._flush(end.heading, end.caption)
            self._in_heading = False
            if end.table:
                self._table()
            if end.page:
                self._break()

    def _break(self) -> None:
        self._table()
        if not self.breaks or self.breaks[-1] != len(self.blocks):
            self.breaks.append(len(self.blocks))

    def _table(self) -> None:
        """The rows of the table just read, each cell under its column."""
        rows, self._rows = self._rows, []
        for line in table_rows(rows):
            self.blocks.append(Block(line, self._sections.place(0, line)))

    def _take(self) -> str:
        """The buffered text, cleaned; the buffer and its bold count start again."""
        text = clean("".join(self._buffer))
        self._buffer.clear()
        self._bold_chars = self._plain_chars = 0
        return text

    def _flush(self, heading: int = 0, caption: bool = False) -> None:
        wholly_bold = self._shown_headings and self._bold_chars and not self._plain_chars
        text = self._take()
        if not heading and wholly_bold:
            heading = _shown_heading(text)
        self._after_br = False
        self._add(text, heading, caption)

    def _add(self, text: str, heading: int, caption: bool = False) -> None:
        if not text:
            return
        if self._term:  # a term with no description before a heading: a line of its own
            term, self._term = self._term, ""
            if heading or caption:
                self._add(term, 0)
            else:
                text = f"{term} — {text}"
        self._table()  # the table's rows read so far come before what follows them
        if heading == 1 and self.first_h1 is None:
            self.first_h1 = text
        self.blocks.append(Block(text, self._sections.place(heading, text), caption=caption))


def _unpaged(blocks: list[Block], breaks: list[int]) -> list[Block]:
    """The blocks without the furniture printed where a page breaks (its number, a
    "Table of Contents" link repeated on every page: a line that is not a sentence, by
    :data:`_RUNNING` breaks or more), a paragraph the break cuts mid-sentence joined
    again ("… riders came back to our" | "45" | "platform in every market …")."""
    if not breaks:
        return blocks
    near = {i for b in breaks for i in range(b - 2, b + 2) if 0 <= i < len(blocks)}
    near = {i for i in near if _runs_on(blocks[i])}
    repeats = Counter(blocks[i].text.lower() for i in near)
    furniture = {
        i
        for i in near
        if _PAGE_NUMBER.fullmatch(blocks[i].text)
        or (
            repeats[blocks[i].text.lower()] >= _RUNNING and not _SENTENCE_END.search(blocks[i].text)
        )
    }
    kept: list[Block] = []
    crossed = False
    starts = set(breaks)
    for i, block in enumerate(blocks):
        crossed = crossed or i in starts
        if i in furniture:
            continue
        if crossed and kept and _cut(kept[-1], block):
            kept[-1] = replace(kept[-1], text=f"{kept[-1].text} {block.text}")
        else:
            kept.append(block)
        crossed = False
    return kept


def _runs_on(block: Block) -> bool:
    """A short line of text that is neither a heading nor a table row."""
    return len(block.text) <= _FURNITURE_CHARS and not _heads(block) and CELLS not in block.text


def _heads(block: Block) -> bool:
    """Whether the block is a heading: the last part of its own section path."""
    return bool(block.section) and block.section[-1] == block.text


def _cut(before: Block, after: Block) -> bool:
    """Whether ``after`` goes on with the sentence that ``before`` leaves unfinished."""
    if CELLS in before.text or CELLS in after.text or before.section != after.section:
        return False
    if _heads(before) or _heads(after):
        return False
    return not _SENTENCE_END.search(before.text) and after.text[:1].islower()


_ADMONITIONS = frozenset(("note", "warning", "tip", "caution", "important", "admonition"))


def _admonition_title(node: LexborNode) -> bool:
    """Whether ``node`` titles a boxed note ("Note", "Warning" atop a DocBook or Sphinx
    admonition): a line of the box, not a heading the rest of the page falls under."""
    parent = node.parent
    classes = (parent.attributes.get("class") or "").split() if parent is not None else []
    return any(c.lower() in _ADMONITIONS for c in classes)


def _page_break(node: LexborNode) -> str | None:
    """ "before" or "after": where the element's style breaks the printed page."""
    found = _PAGE_BREAK.search(node.attributes.get("style") or "")
    return None if found is None else (found[1] or found[2]).lower()


def _span(attributes: dict[str, str | None], name: str) -> int:
    """A cell's ``colspan`` or ``rowspan`` (1 where absent or not a number)."""
    value = (attributes.get(name) or "").strip()
    return int(value) if value.isdigit() and len(value) < 5 and int(value) > 0 else 1


def _bold(node: LexborNode, tag: str) -> bool:
    return tag in _BOLD_TAGS or bool(_BOLD_STYLE.search(node.attributes.get("style") or ""))


def _shown_heading(text: str) -> int:
    """The level of a paragraph set wholly in bold, as a page without heading elements
    shows its headings (0: not a heading): a part of a filing, an item of it, any other."""
    if len(text) > _SHOWN_HEADING_CHARS or _SENTENCE_INSIDE.search(text):
        return 0
    if not any(c.isalpha() for c in text) or text.endswith((",", ";")):
        return 0
    if _PART.match(text):
        return 1
    return 2 if _ITEM.match(text) else 3


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
    """Parse after refusing absurdly deep nesting, which would take minutes to parse.

    The limit is read from the package when called, so overriding
    ``footnoted.loaders.MAX_HTML_NESTING`` takes effect.
    """
    limit = loaders.MAX_HTML_NESTING
    depth = peak = 0
    tags = _HTML_TAG.finditer(markup) if markup.count("<") > limit else ()
    for match in tags:
        if match[3].endswith("/") or match[2].lower() in _HTML_FLAT:
            continue
        depth = max(depth - 1, 0) if match[1] else depth + 1
        peak = max(peak, depth)
        if peak > limit:
            raise DocumentError(
                f"{name} nests HTML elements more than {limit:,} deep; refusing it as malformed."
            )
    return LexborHTMLParser(markup)
