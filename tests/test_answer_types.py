"""Answer types: what a question asks for, and which sentences can hold it."""

from __future__ import annotations

import pytest

from footnoted.answer_types import AnswerType, can_answer, expected_type
from footnoted.answering.extractive import extract
from footnoted.models import Chunk, RetrievedChunk


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How many moons does Jupiter have?", AnswerType.NUMBER),
        ("What percentage of voters turned out?", AnswerType.NUMBER),
        ("When was the treaty signed?", AnswerType.DATE),
        ("In what year did the war end?", AnswerType.DATE),
        ("Which century saw the first printing press?", AnswerType.DATE),
        ("Who wrote the report?", AnswerType.PERSON),
        ("Whose army crossed the river?", AnswerType.PERSON),
        ("What does the warranty cover?", None),
        ("Why did the bridge collapse?", None),
    ],
)
def test_expected_type(question: str, kind: AnswerType | None) -> None:
    assert expected_type(question) is kind


def test_can_answer() -> None:
    assert can_answer(AnswerType.NUMBER, "The league has twelve teams.", "How many teams?")
    assert can_answer(AnswerType.NUMBER, "It grew by 40 percent.", "How much did it grow?")
    assert not can_answer(AnswerType.NUMBER, "The league has many teams.", "How many teams?")
    assert can_answer(AnswerType.DATE, "It was signed in 1648 at Münster.", "When was it signed?")
    assert can_answer(AnswerType.DATE, "It opened on 4 July.", "When did it open?")
    assert not can_answer(AnswerType.DATE, "It was signed at Münster.", "When was it signed?")
    question = "Who founded the Royal Society?"
    assert can_answer(AnswerType.PERSON, "The society was founded by Robert Moray.", question)
    # a capital at the start of the sentence or a name from the question is no answer
    assert not can_answer(AnswerType.PERSON, "The Royal Society was founded long ago.", question)


def _hit(text: str) -> RetrievedChunk:
    chunk = Chunk("c1", "d1", 0, text, 0, len(text), None, None, len(text.split()))
    return RetrievedChunk(chunk=chunk, document_title="History", document_url=None, score=0.6)


def test_extract_prefers_the_sentence_that_can_answer() -> None:
    # Both sentences cover two of the question's three terms; only the second holds a date.
    text = "The treaty talks between the cities lasted many years. The treaty was signed in 1402."
    answer = extract("When was the treaty signed by the cities?", [_hit(text)], max_sentences=1)
    assert answer.text == "The treaty was signed in 1402. [1]"
    answer = extract("Why was the treaty signed by the cities?", [_hit(text)], max_sentences=1)
    assert answer.text == "The treaty talks between the cities lasted many years. [1]"


def _doc_hit(doc: str, title: str, text: str, score: float) -> RetrievedChunk:
    chunk = Chunk(f"{doc}-0", doc, 0, text, 0, len(text), None, None, len(text.split()))
    return RetrievedChunk(chunk=chunk, document_title=title, document_url=None, score=score)


def test_extract_follows_the_document_the_leading_passage_names() -> None:
    film = _doc_hit(
        "film", "Night Harbour (film)",
        "Night Harbour is a 1961 drama film directed by Mara Lindqvist. "
        "It was shot on the island of Gotland.", 0.7,
    )  # fmt: skip
    other = _doc_hit(
        "other", "Harbour Lights",
        "Harbour Lights is a drama series set on a night ferry.", 0.5,
    )  # fmt: skip
    director = _doc_hit(
        "director", "Mara Lindqvist",
        "Mara Lindqvist (born 1929) is a Swedish director. She studied in Stockholm.", 0.3,
    )  # fmt: skip
    question = "Where did the director of the drama film Night Harbour study?"
    # the director's page is not among the hits, only among the further candidates
    candidates = [film, other, director]
    answer = extract(question, [film, other], candidates=candidates, max_sources=3)
    quoted = {c.document_id for c in answer.citations if c.index in answer.referenced}
    assert quoted >= {"film", "director"}
    assert "She studied in Stockholm." in answer.text or "Mara Lindqvist (born" in answer.text
    # the quoted chunks are sources, then the other hits while there is room
    assert {c.document_id for c in answer.citations} == {"film", "other", "director"}
    answer = extract(question, [film, other], candidates=candidates, max_sources=2)
    assert {c.document_id for c in answer.citations} == {"film", "director"}
    assert len(answer.referenced) == 2
    answer = extract(question, [film, other], candidates=candidates, max_sources=1)
    assert {c.document_id for c in answer.citations} == {"film"}
