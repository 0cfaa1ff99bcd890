"""Every quoted sentence's page, checked against the PDF itself.

The truth comes from another extractor than the loader's (pypdf, not PDFium): a sentence
is on the pages whose text holds its first words. ``pytest -m slow tests/test_pdf_pages.py
-s`` prints, for every shared PDF, the share of chunk sentences (what an answer quotes)
whose cited page is right: the chunk's first page (what citations said before issue 21)
and the sentence's own page (:func:`footnoted.pages.page_at`, what spans say now)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pypdf
import pytest

from footnoted.answering.citations import sources_block
from footnoted.answering.evidence import Read
from footnoted.answering.extractive import extract
from footnoted.inference.reader import Reading
from footnoted.ingest.parsing import Parser
from footnoted.lexical import chunk_sentences
from footnoted.models import Chunk, FileBytes, RetrievedChunk
from footnoted.pages import PAGE_BREAK, page_at

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
LYFT = DATA / "pdfs-more" / "R2R__lyft_2021.pdf"
KEY_CHARS = 40  # a sentence is found by its first letters and digits
_NOT_ALNUM = re.compile(r"[\W_]+")


def letters(text: str) -> str:
    return _NOT_ALNUM.sub("", unicodedata.normalize("NFKC", text).lower())


@cache
def page_letters(path: Path) -> tuple[str, ...]:
    """Each page's text as pypdf reads it, letters and digits only."""
    return tuple(letters(page.extract_text() or "") for page in pypdf.PdfReader(path).pages)


@dataclass(frozen=True, slots=True)
class Tally:
    located: int = 0  # sentences whose first words are on exactly one page
    chunk_page: int = 0  # ... whose chunk's first page is that page
    own_page: int = 0  # ... whose own page (page_at) is that page

    def add(self, truth: int, chunk_page: int, own_page: int) -> Tally:
        return Tally(
            self.located + 1,
            self.chunk_page + (chunk_page == truth),
            self.own_page + (own_page == truth),
        )


def tally(path: Path, chunks: list[Chunk]) -> Tally:
    pages = page_letters(path)
    result = Tally()
    for chunk in chunks:
        for start, end, _ in chunk_sentences(chunk.text):
            sentence = chunk.text[start:end]
            key = letters(sentence.split(PAGE_BREAK)[0])[:KEY_CHARS]
            if "|" in sentence or len(key) < KEY_CHARS:
                continue  # table rows, short lines and sentences that turn the page early
            found = [n for n, text in enumerate(pages, start=1) if key in text]
            own = page_at(chunk, chunk.char_start + start)
            if len(found) == 1 and chunk.page is not None and own is not None:
                result = result.add(found[0], chunk.page, own)
    return result


def parse(parser: Parser, path: Path) -> list[Chunk]:
    if not path.is_file():
        pytest.skip(f"shared PDF not found at {path}")
    return parser.parse(FileBytes.of_path(path), path.name, path.stem).chunks


def test_every_sentence_of_a_paper_is_on_its_page(parser: Parser) -> None:
    path = DATA / "pdfs" / "ALCE__ALCE.pdf"
    result = tally(path, parse(parser, path))
    assert result.located > 300
    assert result.own_page == result.located
    assert result.chunk_page < result.located  # chunks do run over page breaks


@pytest.mark.slow
def test_shared_pdfs_pages_measured(parser: Parser) -> None:
    paths = sorted((DATA / "pdfs").glob("*.pdf")) + sorted((DATA / "pdfs-more").glob("*.pdf"))
    if not paths:
        pytest.skip(f"shared PDFs not found under {DATA}")
    print(f"\n{'file':44} {'located':>7} {'chunk page':>10} {'own page':>9}")
    total = Tally()
    for path in paths:
        r = tally(path, parse(parser, path))
        total = Tally(
            total.located + r.located,
            total.chunk_page + r.chunk_page,
            total.own_page + r.own_page,
        )
        print(
            f"{path.name[:44]:44} {r.located:7} {r.chunk_page / max(r.located, 1):10.1%}"
            f" {r.own_page / max(r.located, 1):9.1%}"
        )
    print(
        f"{'all':44} {total.located:7} {total.chunk_page / total.located:10.1%}"
        f" {total.own_page / total.located:9.1%}"
    )
    assert total.own_page / total.located > 0.99


def test_a_quote_on_the_next_page_of_its_chunk_is_cited_there(parser: Parser) -> None:
    """The answer's span and its citation (and so the Sources line) carry the page the
    quoted sentence is on, not the page its chunk starts on."""
    path = DATA / "pdfs" / "ALCE__ALCE.pdf"
    chunks = parse(parser, path)
    chunk, start, end = next(
        (c, start, end)
        for c in chunks
        if PAGE_BREAK in c.text and c.page is not None
        for start, end, _ in chunk_sentences(c.text)
        if start > c.text.index(PAGE_BREAK)
    )  # the first sentence that opens on the page after its chunk's first
    hit = RetrievedChunk(chunk=chunk, document_title="ALCE", document_url=None, score=0.6)
    answer = extract("?", [Read(hit, Reading(9.0, start, end), 9.0)], 0.0)
    (span,) = answer.spans
    truth = page_letters(path)
    assert chunk.page is not None and span.page == chunk.page + 1
    assert letters(chunk.text[start:end])[:KEY_CHARS] in truth[span.page - 1]
    assert answer.citations[0].page == span.page
    assert f"ALCE — Page {span.page}" in sources_block(answer.citations, answer.referenced)
    assert span.to_dict()["page"] == span.page
