"""Markers, answer sentences, the prompt, source de-duplication and the support check."""

from __future__ import annotations

from footnoted import Footnoted
from footnoted.answering.citations import marker_numbers, referenced_indices
from footnoted.answering.llm.grounding import answer_sentences, check_support, dedupe_hits
from footnoted.answering.llm.prompt import MAX_SOURCES, SOURCE_CHARS, build_messages
from footnoted.lexical import MARKER
from footnoted.models import Chunk, RetrievedChunk


def hit(n: int, score: float, text: str = "Some text.") -> RetrievedChunk:
    chunk = Chunk(f"c{n}", "d", n, text, 0, len(text), page=n, section="S")
    return RetrievedChunk(chunk, f"Doc {n}", None, score)


def test_one_marker_pattern_reads_every_form() -> None:
    found = [marker_numbers(m.group(1)) for m in MARKER.finditer("a [1] b [2, 3] c [1-3] d [4]")]
    assert found == [[1], [2, 3], [1, 2, 3], [4]]
    assert referenced_indices("x [3][1] y [1, 2]") == [3, 1, 2]


def test_answer_sentences_attach_trailing_markers() -> None:
    text = "Data is kept for 60 days [1]. Files stay in the trash. [2] Short."
    sentences = answer_sentences(text)
    assert [(text[s.start : s.end], s.cites) for s in sentences] == [
        ("Data is kept for 60 days", (1,)),
        ("Files stay in the trash.", (2,)),
    ]


def test_sources_are_deduplicated_by_chunk_keeping_the_best_score() -> None:
    hits = [hit(1, 0.5), hit(2, 0.9), hit(1, 0.7)] + [hit(n, 0.1) for n in range(3, 30)]
    kept = dedupe_hits(hits)
    assert len(kept) == 20 and kept[0].chunk.id == "c2"
    assert [h.score for h in kept if h.chunk.id == "c1"] == [0.7]


def test_prompt_caps_sources_and_their_length() -> None:
    hits = [hit(n, 0.9, "word " * 1000) for n in range(1, 15)]
    system, user = build_messages("Why?", hits)
    assert system["role"] == "system" and user["role"] == "user"
    assert user["content"].count("<source ") == MAX_SOURCES
    assert '<source n="1" title="Doc 1" page="1" section="S">' in user["content"]
    body = user["content"].split("<source ", 2)[1]
    assert len(body) < SOURCE_CHARS + 100


SUPPORTED = [
    "Annual plans are refunded in full if cancelled within 30 days of purchase.",
    "After the first 30 days, unused whole months are refunded pro rata minus a 5 percent fee.",
    "Refunds go back to the original payment method within 10 business days.",
    "You get all your money back if you cancel an annual plan in the first month.",
    "Cancelling an annual plan within 30 days gives a full refund.",
    "A 5 percent processing fee applies to later refunds.",
]
UNSUPPORTED = [
    "The moon is made of green cheese.",
    "Monthly plans can be paused for free.",
    "Refunds are paid in cash at any Northwind office.",
    "Customers must call support to request a refund.",
    "Annual plans include a free hardware token.",
    "The Team plan costs 12 dollars per user per month.",
    "Data is kept for 60 days after an account is closed.",
]


def test_support_threshold_separates_the_calibration_set(samples_service: Footnoted) -> None:
    """The support check's calibration (docs/api.md, LLM answers): every sentence cites
    the annual-plan refund chunk."""
    question = "How are annual plans refunded?"
    hits = samples_service.retrieve(question).hits
    assert "refunded in full" in hits[0].chunk.text
    for sentence, expected in [(s, True) for s in SUPPORTED] + [(s, False) for s in UNSUPPORTED]:
        answer = check_support(sentence[:-1] + " [1].", [1], hits, samples_service.embedder)
        assert [s.supported for s in answer.spans] == [expected], sentence
