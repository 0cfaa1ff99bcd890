from __future__ import annotations

import subprocess
import sys
from itertools import pairwise

import pytest

from footnoted import Settings
from footnoted.inference.embedding import get_embedder
from footnoted.ingest.chunking import Chunker, cut_chars
from footnoted.lexical import split_sentences
from footnoted.models import ParsedDocument, Segment


@pytest.fixture(scope="module")
def chunker() -> Chunker:
    embedder = get_embedder(Settings())
    return Chunker(embedder.count_tokens, embedder.token_offsets, max_tokens=60, min_tokens=20)


def _doc(blocks: list[tuple[str, tuple[str, ...], int | None]]) -> ParsedDocument:
    text, segments, pos = "", [], 0
    for block, section, page in blocks:
        if text:
            text += "\n\n"
            pos += 2
        segments.append(Segment(pos, pos + len(block), page, section))
        text += block
        pos += len(block)
    return ParsedDocument(text=text, kind="text", segments=tuple(segments))


SENTENCES = [f"Sentence number {i} talks about topic {i} in some detail." for i in range(30)]


def test_split_sentences_offsets_are_exact() -> None:
    text = "  Dr. Smith arrived at 5 p.m. on Monday.  He left early!\nWhy? Nobody knows.  "
    spans = split_sentences(text)
    assert [text[s:e] for s, e in spans] == [
        "Dr. Smith arrived at 5 p.m. on Monday.",
        "He left early!",
        "Why?",
        "Nobody knows.",
    ]


def test_a_number_alone_is_no_sentence() -> None:
    """A heading's or a definition's number goes on with what follows it on its line, so
    "1.1." is never quoted as an answer of its own."""
    text = (
        "1.1. Version\n\nThis is version 0.21 of the specification.\n\n"
        '1.6. "Executable Form"\n    means any form of the work. (b) It was marked.\n'
        "See Section 3. It says so.\n2.\nNext."
    )
    assert [text[s:e] for s, e in split_sentences(text)] == [
        "1.1. Version",
        "This is version 0.21 of the specification.",
        '1.6. "Executable Form"\n    means any form of the work.',
        "(b) It was marked.",
        "See Section 3.",
        "It says so.",
        "2.",  # alone on its line: nothing on the line goes on with it
        "Next.",
    ]


def test_chunk_text_equals_document_text_at_offsets(chunker: Chunker) -> None:
    doc = _doc(
        [(" ".join(SENTENCES[:12]), ("Intro",), 1), (" ".join(SENTENCES[12:]), ("Body",), 2)]
    )
    chunks = chunker.chunk("doc1", doc)
    assert len(chunks) > 2
    for i, c in enumerate(chunks):
        assert c.index == i
        assert c.text == doc.text[c.char_start : c.char_end]
        assert c.token_count <= 60
        assert c.document_id == "doc1"


def test_chunks_never_cut_a_sentence_and_overlap_by_one(chunker: Chunker) -> None:
    doc = _doc([(" ".join(SENTENCES), (), None)])
    chunks = chunker.chunk("d", doc)
    assert len(chunks) > 3
    for c in chunks:
        assert c.text.startswith("Sentence number ")
        assert c.text.endswith("detail.")
    for a, b in pairwise(chunks):
        shared = doc.text[b.char_start : a.char_end]  # cut inside a paragraph: one sentence
        assert split_sentences(shared) == [(0, len(shared))]
    assert chunks[0].char_start == 0 and chunks[-1].char_end == len(doc.text)


def test_no_overlap_across_paragraphs(chunker: Chunker) -> None:
    first, second = " ".join(SENTENCES[:4]), " ".join(SENTENCES[4:8])
    doc = _doc([(first, (), None), (second, (), None)])
    chunks = chunker.chunk("d", doc)
    assert [c.text for c in chunks] == [first, second]


def test_chunks_keep_section_and_start_page(chunker: Chunker) -> None:
    doc = _doc(
        [
            ("Refunds", ("Refunds",), 3),
            ("Annual plans", ("Refunds", "Annual plans"), 3),
            ("Annual plans are refunded in full within 30 days.", ("Refunds", "Annual plans"), 3),
            (" ".join(SENTENCES[:3]), ("Security",), 4),
        ]
    )
    chunks = chunker.chunk("d", doc)
    assert chunks[0].text.startswith("Refunds")
    assert "refunded in full" in chunks[0].text
    assert chunks[0].section == "Refunds > Annual plans"
    assert chunks[0].page == 3
    assert chunks[-1].section == "Security"
    assert chunks[-1].page == 4
    assert all("Security" not in c.text or c.section == "Security" for c in chunks)


def test_over_long_sentence_is_split_at_token_limit(chunker: Chunker) -> None:
    words = " ".join(f"word{i}" for i in range(400))
    doc = _doc([(words + ".", (), None)])
    chunks = chunker.chunk("d", doc)
    assert len(chunks) > 3
    assert all(c.token_count <= 60 for c in chunks)
    assert all(c.text == doc.text[c.char_start : c.char_end] for c in chunks)
    assert " ".join(c.text for c in chunks) == doc.text


def test_chunk_ids_are_stable_content_hashes(chunker: Chunker) -> None:
    doc = _doc([(" ".join(SENTENCES[:20]), (), None)])
    first = [c.id for c in chunker.chunk("d", doc)]
    assert first == [c.id for c in chunker.chunk("d", doc)]
    assert len(set(first)) == len(first)
    assert first != [c.id for c in chunker.chunk("other", doc)]


@pytest.mark.parametrize(
    "text",
    [
        "x" * 200_000,  # one "word" of 200k characters: a single unknown token
        "river mill bends north " * 20_000,  # words without a sentence boundary
        ("a" * 150 + " ") * 2_000,  # words too long for the tokenizer's vocabulary
        "Short one. " * 20_000,
    ],
    ids=["no-spaces", "no-sentences", "long-words", "sentences"],
)
def test_every_chunk_is_bounded_whatever_the_shape(chunker: Chunker, text: str) -> None:
    doc = _doc([(text.strip(), (), None)])
    chunks = chunker.chunk("d", doc)
    assert len(chunks) > 1
    assert max(c.token_count for c in chunks) <= chunker.max_tokens
    assert max(len(c.text) for c in chunks) <= chunker.max_chars == 60 * 16
    assert all(c.text == doc.text[c.char_start : c.char_end] for c in chunks)
    covered = {c.char_start for c in chunks} | {c.char_end for c in chunks}
    assert min(covered) == 0 and max(covered) == len(doc.text)


def test_cut_chars_prefers_whitespace() -> None:
    text = "aaaa bbbb cccc dddd"
    assert [text[s:e] for s, e in cut_chars(text, 0, len(text), 10)] == [
        "aaaa bbbb",
        "cccc dddd",
    ]
    solid = "x" * 25
    assert [solid[s:e] for s, e in cut_chars(solid, 0, 25, 10)] == ["x" * 10] * 2 + ["x" * 5]


def test_a_piece_starting_in_lower_case_goes_on_with_its_sentence() -> None:
    """The splitter cuts after a title or an abbreviation; a sentence does not start in
    lower case, so that piece stays with the one before (on the same line only)."""
    reference = (
        "Hotpotqa: A dataset for diverse, explainable multi-hop question answering. "
        "arXiv preprint arXiv:1809.09600, 2018."
    )
    assert split_sentences(reference) == [(0, len(reference))]
    text = "They fled between 1621 and 1629. revolted against the crown. The revolt ended."
    assert [text[s:e] for s, e in split_sentences(text)] == [
        "They fled between 1621 and 1629. revolted against the crown.",
        "The revolt ended.",
    ]
    lines = "The list ends here.\nsecond line, lower case."
    assert len(split_sentences(lines)) == 2  # a new line is not merged


def test_content_words_come_from_the_shipped_stop_list_without_scikit_learn() -> None:
    """The stop list is package data: reading it imports neither scikit-learn nor SciPy
    (together about half a second of every process's start)."""
    code = (
        "import sys\n"
        "from footnoted.lexical import content_words\n"
        "import footnoted.cli.main\n"
        "print(sorted(content_words('Whose plans does the handbook refund?')))\n"
        "print(sorted(m for m in ('sklearn', 'scipy') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.splitlines()
    assert out == ["['handbook', 'plans', 'refund']", "[]"]


def test_a_period_with_no_space_after_it_ends_no_sentence() -> None:
    """A file's name after "and" (".YYYYMMDDHHMMSS.gnucash") starts with a period the
    splitter may cut at: with no space after it, the sentence goes on, so the quote
    holds its "30 days"."""
    text = (
        "By default GnuCash will automatically delete any .log and .YYYYMMDDHHMMSS.gnucash "
        "backup files that are older than 30 days. You can change this behavior."
    )
    assert [text[s:e] for s, e in split_sentences(text)] == [
        "By default GnuCash will automatically delete any .log and .YYYYMMDDHHMMSS.gnucash "
        "backup files that are older than 30 days.",
        "You can change this behavior.",
    ]
    # a mark that starts a word, or a period after an initial, ends no sentence
    named = "The ?LAST name is the last element. It is with non-U.S. airlines. Done."
    assert [named[s:e] for s, e in split_sentences(named)] == [
        "The ?LAST name is the last element.",
        "It is with non-U.S. airlines.",
        "Done.",
    ]
    # a sentence's end with no space after it is still its end
    glued = "Is it done?Yes it is. First sentence here.Second sentence here."
    assert [glued[s:e] for s, e in split_sentences(glued)] == [
        "Is it done?",
        "Yes it is.",
        "First sentence here.",
        "Second sentence here.",
    ]
