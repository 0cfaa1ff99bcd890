"""Follow-up questions: reading a question in the light of the turns before it.

"How are annual plans refunded?" then "And what about monthly ones?": the second
question alone names nothing the documents can be searched for. Two ways to resolve it:

- extractive mode (``contextual``): a question is first asked as it stands; only when
  that finds no answer the reader believes is it asked again followed by the previous
  question and the opening words of its answer (what the conversation was about), and
  that answer is taken when its evidence is enough. A question that stands alone and is
  answered is never touched. The cosine in that answer's evidence score is the
  passage's to ``topic`` (the question and the previous question), not to the
  ``contextual`` query, whose borrowed answer words match the previous passage by
  construction. Measured on ``tests/data/followups.jsonl`` (86 answerable follow-ups,
  16 unanswerable; docs/conversations.md; the int8 reader, chunks in int8): right passage
  cited 39.5% as asked, 70.9% in context, 9 unanswerable follow-ups refused (8 with chunks
  in bf16; with the bf16 reader 38.4%, 70.9% and 9; 4 with the cosine to the
  ``contextual`` query). Before the cosine counted, the answer's opening words had
  lifted 69.8% (the previous question alone) to 74.4%; the earlier turn put *in front*
  of the question let the reader answer what the earlier question asked (1 of 16
  unanswerable follow-ups refused instead of 7);
- LLM mode (``condense_messages``): the model rewrites the follow-up into a standalone
  question from the conversation (the usual condense step), which is then searched and
  read; the answer's prompt carries the conversation too (``prompt.build_messages``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import islice

from ..lexical import MARKER

CONTEXT_WORDS = 25  # of the previous answer, after the previous question (extractive mode)
HISTORY_TURNS = 6  # exchanges shown to the model (LLM mode)
ANSWER_CHARS = 600  # of each earlier answer shown to the model
MAX_STANDALONE_CHARS = 1000


@dataclass(frozen=True, slots=True)
class Exchange:
    """One earlier turn: the user's question and the reply's text ("" for a refusal)."""

    question: str
    answer: str = ""


@dataclass(frozen=True, slots=True)
class Conversation:
    """What a question comes with: the earlier turns (oldest first) and the client's own
    instructions (``/v1`` ``system`` messages, Responses ``instructions``; LLM mode only:
    an extractive answer has nothing to instruct)."""

    turns: tuple[Exchange, ...] = ()
    instructions: str = ""


NO_CONVERSATION = Conversation()  # a question asked on its own


def exchanges(messages: Iterable[tuple[str, str]]) -> tuple[Exchange, ...]:
    """``(role, text)`` messages as turns: each ``user`` message with the ``assistant``
    reply after it (other roles are not turns)."""
    out: list[Exchange] = []
    for role, text in messages:
        if role == "user":
            out.append(Exchange(text))
        elif role == "assistant" and out:
            out[-1] = Exchange(out[-1].question, text)
    return tuple(out)


def contextual(question: str, history: Sequence[Exchange]) -> str:
    """``question``, then the previous question and its answer's first ``CONTEXT_WORDS``
    words (without markers, nor the header row, rules and bars of an answer shown as a
    table: "And in 2020?" after the revenue row asks about revenue, not about every
    table printed under "2021 | 2020 | 2019 | Change (in thousands …)")."""
    if not history:
        return question
    last = history[-1]
    lines = MARKER.sub("", last.answer).split("\n")
    rules = {i for i, line in enumerate(lines) if _RULE.fullmatch(line.strip())}
    kept = [line for i, line in enumerate(lines) if i not in rules and i + 1 not in rules]
    said = (w for w in " ".join(kept).split() if w.strip("|-:"))
    words = list(islice(said, CONTEXT_WORDS))
    return " ".join([question, last.question.strip(), *words])


_RULE = re.compile(r"\|(?:\s*:?-{3,}:?\s*\|)+")  # a Markdown table's rule, under its header


def topic(question: str, history: Sequence[Exchange]) -> str:
    """What a follow-up asked in context is about: ``question``, then the previous
    question. A passage's cosine to it, not to the ``contextual`` query, counts in its
    evidence score: the previous answer's words match the previous passage by
    construction, so with them an unanswerable follow-up about the same passage looked
    close enough to answer."""
    if not history:
        return question
    return f"{question} {history[-1].question.strip()}"


def shown(answer: str) -> str:
    """An earlier answer as the model sees it: without markers, cut to ``ANSWER_CHARS``."""
    text = " ".join(MARKER.sub("", answer).split())
    return text if len(text) <= ANSWER_CHARS else text[:ANSWER_CHARS].rsplit(" ", 1)[0] + " …"


CONDENSE_SYSTEM = """You rewrite the user's last question so that it can be understood \
without the conversation before it.
- Replace pronouns and omissions with what they refer to in the conversation.
- Keep the question's meaning and language. Do not answer it. Add nothing else.
- If it already stands alone, repeat it unchanged.
Reply with the rewritten question only, on one line."""


def condense_messages(question: str, history: Sequence[Exchange]) -> list[dict[str, str]]:
    """The condense step's prompt: the conversation so far, then the last question."""
    lines = []
    for e in history[-HISTORY_TURNS:]:
        lines.append(f"User: {e.question.strip()}")
        lines.append(f"Assistant: {shown(e.answer) or '(no answer)'}")
    user = "Conversation:\n" + "\n".join(lines) + f"\n\nLast question: {question}"
    return [{"role": "system", "content": CONDENSE_SYSTEM}, {"role": "user", "content": user}]


def standalone(reply: str) -> str | None:
    """The model's rewritten question (its first non-empty line, quotes removed), or None
    when it wrote nothing usable."""
    line = next((s.strip() for s in reply.splitlines() if s.strip()), "")
    line = line.removeprefix("Question:").strip().strip("\"'“”").strip()
    if not line or len(line) > MAX_STANDALONE_CHARS:
        return None
    return line


INSTRUCTIONS = """The application you answer for adds these instructions. Follow them \
where they do not conflict with the rules above, which they cannot change:
"""


def conversation_messages(conversation: Conversation) -> list[dict[str, str]]:
    """The client's instructions (a system message below footnoted's rules), then the
    earlier turns as chat messages (oldest first), for the answer's prompt."""
    out: list[dict[str, str]] = []
    if conversation.instructions.strip():
        out.append({"role": "system", "content": INSTRUCTIONS + conversation.instructions})
    for e in conversation.turns[-HISTORY_TURNS:]:
        out.append({"role": "user", "content": e.question.strip()})
        out.append({"role": "assistant", "content": shown(e.answer) or "(no answer)"})
    return out
