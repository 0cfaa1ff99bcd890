"""Chunking: a parsed document -> sentence-aware chunks with exact offsets.

Rules:
- a chunk never cuts a sentence, unless one sentence alone is longer than a chunk;
- a chunk never spans two sections; it ends at a paragraph boundary once it holds
  ``min_tokens`` (short blocks such as headings join the paragraph after them);
- a paragraph too long for one chunk is cut between sentences, and the next chunk
  repeats the sentence before the cut, so every pair of neighbouring sentences shares
  a chunk (SQuAD dev: citation hit +1 point);
- every chunk holds at most ``max_tokens`` tokens and ``max_chars`` characters, whatever
  the input looks like: a "sentence" longer than ``max_chars`` (one 40 MB line without
  spaces reads as a single unknown token) is first cut at whitespace, or hard;
- tokens are counted in bounded batches, so memory follows the text, not its shape;
- a chunk that starts among a table's rows keeps the table's header row (``header``),
  however far above it the header is printed;
- ``chunk.text == document.text[chunk.char_start:chunk.char_end]`` always.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..lexical import split_sentences
from ..loaders.blocks import sheet_tables, table_headers
from ..models import SECTION_JOIN, Chunk, ParsedDocument, Segment
from ..pages import page_after

TokenCounter = Callable[[Sequence[str]], list[int]]
TokenOffsets = Callable[[str], list[tuple[int, int]]]

_WS = re.compile(r"\s+")
CHARS_PER_TOKEN = 16  # the character cap per token of the limit: far above real text
COUNT_BATCH = 1024  # sentences tokenised at once


@dataclass(frozen=True, slots=True)
class Piece:
    """A sentence (or a slice of an over-long one) inside one segment."""

    start: int
    end: int
    tokens: int
    segment: int  # index of the segment it belongs to


class Chunker:
    def __init__(
        self,
        count_tokens: TokenCounter,
        token_offsets: TokenOffsets,
        max_tokens: int = 200,
        min_tokens: int = 64,
        max_chars: int | None = None,
    ) -> None:
        self.count_tokens = count_tokens
        self.token_offsets = token_offsets
        self.max_tokens = max_tokens
        self.min_tokens = min(min_tokens, max_tokens // 2)
        self.max_chars = max_chars or max_tokens * CHARS_PER_TOKEN

    def chunk(self, document_id: str, parsed: ParsedDocument) -> list[Chunk]:
        segments = parsed.segments or (Segment(0, len(parsed.text)),)
        # a sheet's tables start afresh, in a chunk of their own (a PDF's table may run
        # on under the next page's section path: the Senate report's, once)
        starts = sheet_tables(segments)
        pieces = self._pieces(parsed.text, segments)
        groups = self._group(pieces, segments, frozenset(starts))
        headers = table_headers(parsed.text, [group[0].start for group in groups], starts)
        chunks: list[Chunk] = []
        for group, header in zip(groups, headers, strict=True):
            start, end = group[0].start, group[-1].end
            first, last = segments[group[0].segment], segments[group[-1].segment]
            text = parsed.text[start:end]
            chunks.append(
                Chunk(
                    id=chunk_id(document_id, len(chunks), text),
                    document_id=document_id,
                    index=len(chunks),
                    text=text,
                    char_start=start,
                    char_end=end,
                    page=page_after(first.page, parsed.text, first.start, start),
                    section=SECTION_JOIN.join(last.section) or None,
                    token_count=sum(p.tokens for p in group),
                    header=header or "",
                    rows=_rows(group, segments, start),
                )
            )
        return chunks

    def _pieces(self, text: str, segments: Sequence[Segment]) -> list[Piece]:
        spans: list[tuple[int, int, int]] = []
        for i, seg in enumerate(segments):
            for s, e in split_sentences(text, seg.start, seg.end):
                spans.extend((a, b, i) for a, b in cut_chars(text, s, e, self.max_chars))
        pieces: list[Piece] = []
        for first in range(0, len(spans), COUNT_BATCH):
            batch = spans[first : first + COUNT_BATCH]
            counts = self.count_tokens([text[s:e] for s, e, _ in batch])
            for (s, e, i), n in zip(batch, counts, strict=True):
                if n <= self.max_tokens:
                    pieces.append(Piece(s, e, n, i))
                else:
                    pieces.extend(self._split_long(text, s, e, i))
        return pieces

    def _split_long(self, text: str, start: int, end: int, seg: int) -> list[Piece]:
        """Cut one over-long sentence at token boundaries, preferring whitespace."""
        offsets = self.token_offsets(text[start:end])
        out: list[Piece] = []
        i = 0
        while i < len(offsets):
            j = min(i + self.max_tokens, len(offsets))
            if j < len(offsets):
                k = j
                while k > i + self.max_tokens // 2 and offsets[k][0] == offsets[k - 1][1]:
                    k -= 1  # back off to a token preceded by whitespace
                j = k
            s = start + offsets[i][0]
            e = start + (offsets[j][0] if j < len(offsets) else end - start)
            while e > s and text[e - 1].isspace():
                e -= 1
            if e > s:
                out.append(Piece(s, e, j - i, seg))
            i = j
        return out

    def _group(
        self, pieces: list[Piece], segments: Sequence[Segment], tables: frozenset[int]
    ) -> list[list[Piece]]:
        groups: list[list[Piece]] = []
        current: list[Piece] = []
        tokens = 0
        for piece in pieces:
            if current:
                prev = current[-1]
                new_section = segments[piece.segment].section != segments[prev.segment].section
                new_block = piece.segment != prev.segment
                new_table = new_block and segments[piece.segment].start in tables
                too_big = (
                    tokens + piece.tokens > self.max_tokens
                    or piece.end - current[0].start > self.max_chars
                )
                if (
                    too_big
                    or (new_section and not _heading_only(current, segments))
                    or new_table
                    or (new_block and tokens >= self.min_tokens)
                ):
                    groups.append(current)
                    current, tokens = self._carry(prev, piece), 0
                    tokens = sum(p.tokens for p in current)
            current.append(piece)
            tokens += piece.tokens
        if current:
            groups.append(current)
        return groups

    def _carry(self, prev: Piece, piece: Piece) -> list[Piece]:
        """Overlap: a chunk cut inside a paragraph starts with the sentence before the cut,
        so a sentence and the one that completes it are always together in some chunk."""
        if (
            prev.segment == piece.segment
            and prev.tokens + piece.tokens <= self.max_tokens
            and piece.end - prev.start <= self.max_chars
        ):
            return [prev]
        return []


def cut_chars(text: str, start: int, end: int, limit: int) -> list[tuple[int, int]]:
    """``text[start:end]`` in slices of at most ``limit`` characters, cut after the last
    whitespace in a slice's second half (or hard, where there is none), trimmed."""
    out: list[tuple[int, int]] = []
    while end - start > limit:
        cut = start + limit
        space = max(
            text.rfind(" ", start + limit // 2, cut), text.rfind("\n", start + limit // 2, cut)
        )
        e = space if space > start else cut
        while e > start and text[e - 1].isspace():
            e -= 1
        if e > start:
            out.append((start, e))
        start = space + 1 if space > start else cut
        while start < end and text[start].isspace():
            start += 1
    if end > start:
        out.append((start, end))
    return out


def _heading_only(group: list[Piece], segments: Sequence[Segment]) -> bool:
    """A group that is just a heading block: it should join the text it introduces."""
    seg = segments[group[0].segment]
    return len({p.segment for p in group}) == 1 and bool(seg.section) and len(group) == 1


@dataclass(frozen=True, slots=True)
class Heading:
    """Where one of the document's own headings is in its text (level 1: outermost)."""

    start: int
    end: int
    level: int


def headings(chunks: Sequence[Chunk]) -> list[Heading]:
    """The headings in the text, read back from stored chunks: a heading is a block of
    its own that opens its section, so the chunk of that section starts with it (a
    heading that opens a subsection at once comes right before that one's)."""
    found: dict[int, Heading] = {}
    for chunk in chunks:
        path = chunk.section.split(SECTION_JOIN) if chunk.section else []
        depth = 0
        for match in re.finditer(r"[^\n\f]+", chunk.text):
            if match.group() not in path[depth:]:
                break
            depth = path.index(match.group(), depth) + 1
            start = chunk.char_start + match.start()
            found[start] = Heading(start, start + len(match.group()), depth)
    return sorted(found.values(), key=lambda heading: heading.start)


def _rows(
    group: Sequence[Piece], segments: Sequence[Segment], start: int
) -> tuple[tuple[int, int], ...]:
    """The spreadsheet rows a chunk holds: where each starts and its number in the sheet."""
    seen = dict.fromkeys(piece.segment for piece in group)
    return tuple(
        (max(segments[i].start, start), row) for i in seen if (row := segments[i].row) is not None
    )


def chunk_id(document_id: str, index: int, text: str) -> str:
    digest = hashlib.sha256(f"{document_id}\x00{index}\x00{text}".encode()).hexdigest()
    return digest[:32]


def normalise_space(text: str) -> str:
    return _WS.sub(" ", text).strip()
