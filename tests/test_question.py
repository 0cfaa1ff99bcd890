"""A question's instructions on how to answer: not searched, not read, still given to a
model (``answering/question.py``: ``without_instructions``), with the real pipeline."""

from __future__ import annotations

import pytest

from footnoted.answering.question import without_instructions
from footnoted.service.facade import Footnoted

ASKED = "How long do deleted files stay in the trash?"


@pytest.mark.parametrize(
    ("sent", "asked"),
    [
        ("What is ALCE? Please answer briefly.", "What is ALCE?"),
        ("What is ALCE? Answer in one sentence and cite the page.", "What is ALCE?"),
        ("Hi! What is ALCE?", "What is ALCE?"),
        ("Thanks, what is ALCE?", "what is ALCE?"),
        ("How many drivers were there? Thank you!", "How many drivers were there?"),
        ("What is ALCE?\nBe concise.", "What is ALCE?"),
        ("what is alce? keep it short", "what is alce?"),  # typed in lower case
        ("What is ALCE? please answer briefly.", "What is ALCE?"),
        (
            "List the steps to reset a password. Keep it short.",
            "List the steps to reset a password.",
        ),
        (
            "Assume that you are an analyst. Answer the following question: what is 3M's net PPNE?",
            "what is 3M's net PPNE?",
        ),
    ],
)
def test_instructions_on_how_to_answer_are_not_what_is_asked(sent: str, asked: str) -> None:
    assert without_instructions(sent) == asked


@pytest.mark.parametrize(
    "sent",
    [
        "Give examples of population-level queries from the slides",  # asks, in the imperative
        "Describe the refund policy. Is it fair?",
        "Use the Lyft 10-K. What was revenue?",
        # where to look is asked too
        "What was 3M's capex? Give a response relying on the cash flow statement.",
        "Answer using the balance sheet: what were total assets?",
        # a unit or a rounding says what kind of value is asked
        "What was Lyft's revenue in 2021? Answer in USD millions.",
        "What was the margin? Please round your answer to one decimal place.",
        "Be concise.",  # instructions alone: left whole
        "On QAMPARI, what Rec.-5 correctness did ChatGPT CLOSEDBOOK get?",  # untouched text
        "Can a packet be sent empty?  If so, is it billable?",
        "Who published What Is An Emotion?: Classic and Contemporary Readings?",
    ],
)
def test_what_asks_or_says_where_to_look_is_kept(sent: str) -> None:
    assert without_instructions(sent) == sent


def test_an_instruction_does_not_change_the_answer(samples_service: Footnoted) -> None:
    plain = samples_service.answer(ASKED)
    told = samples_service.answer(f"{ASKED} Please answer in one sentence and cite your sources.")
    assert plain.answer is not None and told.answer is not None
    assert told.answer.text == plain.answer.text
    assert [c.chunk_id for c in told.answer.citations] == [
        c.chunk_id for c in plain.answer.citations
    ]
    assert told.info["standalone_question"] == ASKED  # shown as "Read as" in the web UI
    assert "standalone_question" not in plain.info
    assert told.question.endswith("cite your sources.")  # the question as it was asked
