"""Plain text: paragraphs are separated by blank lines."""

from __future__ import annotations

import re

from footnoted.models import ParsedDocument

from .blocks import Block, assemble

_BLANK_LINE = re.compile(r"\n[ \t\f\v]*\n")


def load_text(_data: bytes, text: str | None, _name: str) -> ParsedDocument:
    content = (text or "").replace("\r\n", "\n").replace("\r", "\n")
    blocks = [Block(part) for part in _BLANK_LINE.split(content)]
    return assemble(blocks, kind="text", title=None)
