"""What kind of answer a question asks for, and whether a sentence can hold one.

"When ...?" wants a date, "How many ...?" a number, "Who ...?" a name. A sentence that
repeats the question's words but holds no date, number or new name rarely answers it;
the extractive answerer prefers sentences that can.
"""

from __future__ import annotations

import re
from enum import Enum


class AnswerType(Enum):
    NUMBER = "number"
    DATE = "date"
    PERSON = "person"


_NUMBER_QUESTION = re.compile(
    r"\bhow (many|much|long|far|old|large|big|tall|high|often)\b"
    r"|\bwhat (percentage|percent|number|amount)\b",
    re.IGNORECASE,
)
_DATE_QUESTION = re.compile(
    r"^\s*when\b|\b(what|which) (year|century|decade|date|day|month)\b|\bin what year\b",
    re.IGNORECASE,
)
_PERSON_QUESTION = re.compile(r"^\s*(who|whom|whose)\b", re.IGNORECASE)

_NUMBER = re.compile(
    r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty"
    r"|forty|fifty|hundred|thousand|million|billion|dozen|half)\b",
    re.IGNORECASE,
)
_DATE = re.compile(
    r"\b(1[0-9]{3}|20[0-9]{2})s?\b|\b\d+(st|nd|rd|th)\b|\bcentur(y|ies)\b"
    r"|\b(January|February|March|April|May|June|July|August|September|October|November"
    r"|December)\b"
)
_NAME = re.compile(r"(?<!^)(?<![.!?] )\b[A-Z][a-z]+")
_WORD = re.compile(r"[A-Za-z]+")


def expected_type(question: str) -> AnswerType | None:
    """The answer type a question asks for, when its wording makes that clear."""
    if _NUMBER_QUESTION.search(question):
        return AnswerType.NUMBER
    if _DATE_QUESTION.search(question):
        return AnswerType.DATE
    if _PERSON_QUESTION.search(question):
        return AnswerType.PERSON
    return None


def can_answer(kind: AnswerType, sentence: str, question: str) -> bool:
    """Whether the sentence holds something of that type (a name: one not in the question)."""
    if kind is AnswerType.NUMBER:
        return _NUMBER.search(sentence) is not None
    if kind is AnswerType.DATE:
        return _DATE.search(sentence) is not None
    asked = {w.lower() for w in _WORD.findall(question)}
    return any(m.group(0).lower() not in asked for m in _NAME.finditer(sentence))
