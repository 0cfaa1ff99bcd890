"""Markdown: rendered to plain text, one block per paragraph, list item, code block,
table row and heading; headings give the section path."""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.token import Token

from footnoted.lexical import CELLS
from footnoted.models import ParsedDocument

from .blocks import Block, Sections, assemble, clean, clean_title
from .html import html_fragment_blocks

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_MARKDOWN = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def load_markdown(_data: bytes, text: str | None, name: str) -> ParsedDocument:
    source = _FRONT_MATTER.sub("", (text or "").replace("\r\n", "\n"), count=1)
    walker = _MarkdownBlocks(name)
    walker.feed(_MARKDOWN.parse(source))
    return assemble(walker.blocks, kind="markdown", title=clean_title(walker.title))


class _MarkdownBlocks:
    """Walks markdown-it's token stream; each paragraph, list item, code block, table
    row and heading becomes one block."""

    def __init__(self, name: str) -> None:
        self.blocks: list[Block] = []
        self.title: str | None = None
        self._name = name
        self._sections = Sections()
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
                for block in html_fragment_blocks(token.content, self._name):
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
            self._add(CELLS.join(cell for cell in (self._row or []) if cell))
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
            self._row.append(clean(text))
        elif self._heading:
            self._heading_block(clean(text))
        else:
            self._buffer.append(text)

    def _heading_block(self, text: str) -> None:
        if not text:
            return
        if self._heading == 1 and self.title is None:
            self.title = text
        self.blocks.append(Block(text, self._sections.enter(self._heading, text)))

    def _add(self, text: str) -> None:
        if clean(text):
            self.blocks.append(Block(text, self._sections.path))

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
