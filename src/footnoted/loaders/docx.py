"""Word .docx: body paragraphs and tables in order; heading styles and outline levels
give the section path. A document that styles no heading has the headings it shows: a
short bold line set larger than its body text (``_shown_headings``). Archives that would
unpack to far more than they weigh are refused before python-docx sees them."""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import docx
from docx.document import Document as DocxDocument
from docx.oxml.ns import qn
from docx.table import Table
from docx.text.paragraph import Paragraph

from footnoted.lexical import CELLS, EMPTY_CELL
from footnoted.models import ParsedDocument

from .blocks import Block, Sections, assemble, clean, clean_title
from .sizes import check_archive

_W_P, _W_TBL, _W_SDT, _W_SDT_CONTENT = qn("w:p"), qn("w:tbl"), qn("w:sdt"), qn("w:sdtContent")
_W_OUTLINE_LEVEL, _W_VAL = qn("w:outlineLvl"), qn("w:val")
_HEADING_STYLE = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)


def load_docx(data: bytes, _text: str | None, name: str) -> ParsedDocument:
    check_archive(data, name, ".docx")
    document = docx.Document(io.BytesIO(data))
    sections = Sections()
    blocks: list[Block] = []
    first_title: str | None = None
    items = list(_docx_items(document.element.body, document))
    paragraphs = [item for item in items if isinstance(item, Paragraph) and clean(item.text)]
    levels = {id(paragraph): _docx_heading_level(paragraph) for paragraph in paragraphs}
    shown: dict[int, int] = {}
    if not any(levels.values()):  # no heading styled: those the document shows
        shown = _shown_headings(paragraphs, _default_size(document))
    for item in items:
        if isinstance(item, Table):
            blocks.extend(Block(row, sections.path) for row in _docx_rows(item))
            continue
        text = clean(item.text)
        level = levels.get(id(item), 0)
        if level and first_title is None and _is_title_style(item):
            first_title = text
        level = level or shown.get(id(item), 0)
        heading = text.removesuffix(":").rstrip() if id(item) in shown else text
        blocks.append(Block(text, sections.place(level, heading)))
    title = clean_title(document.core_properties.title) or clean_title(first_title)
    return assemble(blocks, kind="docx", title=title)


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
    for style in _styles(paragraph):
        if level:
            break
        name = (style.name or "").strip()
        match = _HEADING_STYLE.match(name)
        level = 1 if name.lower() == "title" else int(match[1]) if match else 0
        level = level or _outline_level(style.element.pPr)
    return level


def _styles(paragraph: Paragraph) -> Iterator[Any]:
    """The paragraph's style and those it is based on, nearest first (ten at most: a
    chain that loops ends)."""
    style = paragraph.style
    for _ in range(10):
        if style is None:
            return
        yield style
        style = style.base_style


def _shown_headings(paragraphs: list[Paragraph], default: float) -> dict[int, int]:
    """The paragraphs (by ``id``) a document without heading styles shows as headings, with
    their levels: all bold, at most ``_SHOWN_HEADING_WORDS`` words, not a sentence (a
    trailing colon allowed: "Input Block:"), and set larger than the body, the size most
    of its prose is set in (paragraphs that end a sentence, not a code listing's lines);
    the largest size is level 1. A bold label at the body's size ("Code Flow:") or a bold
    sentence stays text."""
    sizes: Counter[float] = Counter()
    found: dict[int, float] = {}
    for paragraph in paragraphs:
        runs = [run for run in paragraph.runs if run.text.strip()]
        run_sizes = [_run_size(run, paragraph, default) for run in runs]
        text = clean(paragraph.text)
        if text.endswith(".") and len(text.split()) >= _PROSE_WORDS:
            for run, size in zip(runs, run_sizes, strict=True):
                sizes[size] += len(run.text)
        if (
            runs
            and all(_run_bold(run, paragraph) for run in runs)
            and len(text.split()) <= _SHOWN_HEADING_WORDS
            and not text.endswith((".", "?", "!", ";", ","))
        ):
            found[id(paragraph)] = max(run_sizes)
    if not sizes:
        return {}
    body = sizes.most_common(1)[0][0]
    levels = sorted({size for size in found.values() if size > body}, reverse=True)
    return {key: levels.index(size) + 1 for key, size in found.items() if size > body}


_SHOWN_HEADING_WORDS = 12
_PROSE_WORDS = 6


def _run_size(run: Any, paragraph: Paragraph, default: float) -> float:
    """A run's font size in points: its own, else its paragraph style's (or a style it is
    based on), else the document's default."""
    size = run.font.size if run.font.size is not None else _styled(paragraph, "size")
    return float(size.pt) if size is not None else default


def _run_bold(run: Any, paragraph: Paragraph) -> bool:
    """Is a run bold: by its own setting, else its paragraph style's (or a base's)?"""
    return bool(run.bold if run.bold is not None else _styled(paragraph, "bold"))


def _styled(paragraph: Paragraph, setting: str) -> Any:
    """A font ``setting`` of the paragraph's style, or of the first style it is based on
    that sets it; None where none does."""
    values = (getattr(style.font, setting) for style in _styles(paragraph))
    return next((value for value in values if value is not None), None)


def _default_size(document: DocxDocument) -> float:
    """The document's default font size in points (Word's 11 where it sets none)."""
    found = document.styles.element.find(f"{qn('w:docDefaults')}/{qn('w:rPrDefault')}")
    size = found.find(f"{qn('w:rPr')}/{qn('w:sz')}") if found is not None else None
    value = size.get(_W_VAL) if size is not None else None
    return int(value) / 2 if value is not None and value.isdigit() else 11.0


def _docx_rows(table: Table) -> Iterator[str]:
    """One " | "-joined line per row; merged cells appear once. A blank cell between
    filled ones reads ``EMPTY_CELL``, so the cells after it stay under their columns;
    blanks before the first filled cell and after the last are left out (a header's
    empty corner, a row's empty notes)."""
    for row in table._tbl.tr_lst:
        cells = []
        for cell in row.tc_lst:
            texts = (Paragraph(p, table).text for p in cell.iter(_W_P))
            cells.append(clean(" ".join(texts)))
        filled = [i for i, cell in enumerate(cells) if cell]
        if filled:
            kept = cells[filled[0] : filled[-1] + 1]
            yield CELLS.join(cell or EMPTY_CELL for cell in kept)


def _is_title_style(paragraph: Paragraph) -> bool:
    style = paragraph.style
    return style is not None and (style.name or "").strip().lower() == "title"
