"""A question as every transport asks it: one value, built once and passed down whole.

The web UI's ``/api/chat``, ``/v1``, MCP, ``footnoted ask`` and the evaluations each
build a :class:`Question` from what they were sent; ``Footnoted.ask`` and ``answer``
resolve its collection and that collection's settings once (:meth:`Question.resolved`),
and the pipeline reads everything it needs from it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..lexical import split_sentences
from ..settings import CollectionSettings
from .conversation import NO_CONVERSATION, Conversation

# a sentence that says how to answer, not what: "Please answer briefly.", "Cite the
# page.", "Assume that you are an analyst."; a greeting or thanks. (A unit or a rounding,
# "Answer in USD millions.", says what kind of value is asked: it stays.)
_HOW_TO_ANSWER = re.compile(
    r"(?:(?:please|kindly|also|and|now)\s+)*(?:"
    r"(?:answer|respond|reply|give|provide|keep|be|cite|include|use|format|write|"
    r"state|express|show|return|limit|quote|add|explain|do\s+not|don['’]t|avoid|only)\b"
    r"(?![^?]*\b(?:units?|millions|billions|thousands|percent(?:age)?s?|decimals?|round)\b)"
    r"[^?]*\b(?:answers?|response|reply|concise(?:ly)?|brief(?:ly)?|short|sentences?|"
    r"words|bullets?|format(?:ted)?|sources?|cit(?:e|ations?)|pages?|questions?|"
    r"step[\s-]by[\s-]step|detail(?:ed)?|english)\b"
    r"|(?:assume|imagine|pretend|suppose)\s+(?:that\s+)?you\s+are\b|you\s+are\s+an?\b"
    r"|act\s+as\b|(?:hi|hello|hey|thanks(?!\s+to\b)|thank\s+you|cheers)\b[^?]{0,30}$)",
    re.IGNORECASE,
)
# where to look is part of what is asked: "… using the balance sheet", "per the slides"
_WHERE = re.compile(
    r"\b(?:statements?|sheets?|tables?|sections?|chapters?|appendix|exhibits?|slides?|"
    r"reports?|filings?|10-?[KQ]|spreadsheets?|documents?|handbook|manual|guide|policy|"
    r"paper|article|essay)\b",
    re.IGNORECASE,
)
_GREETING = re.compile(r"(?:hi|hello|hey|thanks|thank\s+you)(?:\s+there)?\s*,\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    collection: str | None = None  # None: the default collection
    settings: CollectionSettings | None = None  # None: the collection's stored ones
    top_k: int | None = None  # None: the collection's
    threshold: float | None = None  # None: the collection's evidence threshold
    embedding: list[float] | None = None  # the client's own vector of ``text``
    conversation: Conversation = NO_CONVERSATION  # earlier turns, the client's instructions
    citations: bool = True  # the client wants citation fields (the collection may not)

    def resolved(self, collection: str, settings: CollectionSettings) -> Question:
        """The question with its collection and that collection's settings named."""
        return replace(
            self, collection=self.collection or collection, settings=self.settings or settings
        )

    @property
    def where(self) -> str:
        assert self.collection is not None, "resolve the question first"
        return self.collection

    @property
    def config(self) -> CollectionSettings:
        assert self.settings is not None, "resolve the question first"
        return self.settings


def without_instructions(text: str) -> str:
    """What ``text`` asks, without its sentences that say how to answer ("Answer in one
    sentence.", "Cite the page.", "Assume you are an analyst.") or greet: each would be
    searched and read as words of the question (an LLM still reads them, in the question
    it is given). A sentence that asks ("… ?") is kept, without a greeting that opens it
    ("Thanks, what …?") and without an instruction that leads into it ("Answer briefly:
    what was …?"). An instruction that says where to look ("… shown in the balance
    sheet") or what kind of value is asked ("Answer in USD millions.") is kept: that is
    asked too. A question made of instructions alone is left whole."""
    cuts: list[tuple[int, int]] = []
    for start, end in _sentences(text):
        sentence = text[start:end]
        if not sentence.endswith("?"):
            if _instruction(sentence):
                cuts.append((start, end))
            continue
        greeting = _GREETING.match(sentence)
        at = greeting.end() if greeting else 0
        colon = sentence.find(":", at)
        if colon > at and sentence[colon + 1 :].strip() and _instruction(sentence[at:colon]):
            at = colon + 1
        if at:
            cuts.append((start, start + at))
    pieces, kept = [], 0
    for start, end in cuts:
        pieces.append(text[kept:start].strip())
        kept = end
    pieces.append(text[kept:].strip())
    asked = " ".join(piece for piece in pieces if piece)
    return asked if cuts and asked else text


def _sentences(text: str) -> list[tuple[int, int]]:
    """``text``'s sentences, a question mark ending one even where the next starts in
    lower case on the same line ("what is alce? keep it short")."""
    out: list[tuple[int, int]] = []
    for start, end in split_sentences(text):
        for part in re.finditer(r"[^?]*\?+|[^?]+$", text[start:end]):
            if part.group().strip():
                lead = len(part.group()) - len(part.group().lstrip())
                out.append((start + part.start() + lead, start + part.end()))
    return out


def _instruction(sentence: str) -> bool:
    return bool(_HOW_TO_ANSWER.match(sentence)) and not _WHERE.search(sentence)
