"""Extractive answering (the default, no LLM): quote the sentences that hold the answer.

The answer leads with the sentence that holds the reader's best span (a span crossing a
sentence boundary quotes both sentences), and marks that span as the exact answer. A
further passage adds its own sentence (the one holding its best span) only with evidence
of its own: the reader believes it on its own (a score of at least ``SECOND_SCORE``), or
it comes from a document not quoted yet that the question or the leading passage names
by its title, the bridge of a two-hop question ("Who directed the film that ..."; the
pipeline reads such documents' chunks too, ``named.bridge_candidates``); when the
leading passage names no other document, one a quoted bridge names too; or it was read
after a sentence of a quoted document and believed so, the second hop (``_Links``).
A leading passage that was read after another passage's sentence naming it (its
``link``: the first hop, ``pipeline.Pipeline._bridges``) is followed by that sentence.
Nothing else pads the answer. A comparison (``named.comparison_sides``) quotes each
side's sentence holding its best span, in the order the question names them, and
nothing else; it marks no span as the answer, since the answer is the comparison the
quotes let the reader make.
Every quote is verbatim and followed by its ``[N]``. The sources are the quoted chunks,
then the other passages with enough evidence (``evidence``; listed, not referenced):
never a passage that only resembles the question.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from ..lexical import MARKER, words
from ..models import Span
from .citations import Answer, make_citation, pin_pages
from .evidence import Link, Read
from .named import named
from .quotes import Context, Piece, Quote, quote, with_antecedent

MAX_QUOTES = 3
SECOND_SCORE = 8.0  # reader score a passage after the first needs to be quoted on its own
# (SQuAD dev: quoted sentences from the gold paragraph 86.5% at 4.0)


def already_said(read: Read, said: str) -> bool:
    """Whether the passage's quote (``quotes.quote``) is all in ``said``, an earlier
    answer's text, word for word (markers, punctuation and case aside): an answer leading
    with it would say again what was said."""
    quoted = " ".join(words(quote(read).text))
    return bool(quoted) and f" {quoted} " in f" {' '.join(words(MARKER.sub(' ', said)))} "


def choose(
    question: str,
    read: Sequence[Read],
    sides: int = 0,
    context: Context | None = None,
    threshold: float = math.inf,
) -> list[Quote]:
    """The best passage's quote, then quotes of other chunks with evidence of their own
    (see the module), or with ``sides`` the first ``sides`` passages' quotes alone;
    none repeats text already quoted. ``context`` reads on past a passage (a lead-in's
    list, a table row's header); ``threshold``: the evidence score a second hop needs."""
    if not read:
        return []

    def quoted(r: Read) -> Quote:
        return quote(r, context, question)

    if sides:
        return _distinct([quoted(r) for r in read[:sides]])[:MAX_QUOTES]
    quotes = [quoted(read[0])]
    link = read[0].link
    if link is not None:  # the first hop the lead was read after
        quotes = _distinct([*quotes, _linked(link)])
    links = _Links(question, read, threshold)
    waiting = list(range(1, len(read)))
    while len(quotes) < MAX_QUOTES:
        nxt = next((i for i in waiting if read[i].reading.score >= SECOND_SCORE or links(i)), None)
        if nxt is None:
            break
        waiting.remove(nxt)
        kept = _distinct([*quotes, quoted(read[nxt])])
        if len(kept) > len(quotes):
            links.quoted(nxt)
        quotes = kept
    return quotes


class _Links:
    """Which passages bridge a two-hop answer: those from a document not quoted yet that
    the question or the leading passage names by its title; when the leading passage
    names no other document, also one that a quoted bridge names (the lead answered the
    wrong hop: "The arena where the Lewiston Maineiacs played ..." leads with another
    arena, the question names the team, the team's passage names its arena).

    A passage that merely names a quoted document is no bridge: on HotpotQA dev that
    completed 2 more answers of 53, on SQuAD dev it added a quote from another article
    to 11 more answers of 2,544. A passage read after a quoted document's sentence (its
    ``link``, ``pipeline.Pipeline._bridges``) and believed so (evidence at ``threshold``)
    is one: the second hop, which the first hop's passage may name only in a chunk not
    read ("Season of the Witch reunited Dominic Sena and Nicolas Cage, who had earlier
    worked together on a film written by whom?": "Gone in 60 Seconds" read after the
    sentence that names it, "… written by Scott Rosenberg")."""

    def __init__(self, question: str, read: Sequence[Read], threshold: float) -> None:
        self.read = read
        self.threshold = threshold
        self.titles = [r.hit.document_title for r in read]
        lead = read[0].hit.chunk
        by_lead = {
            i
            for i in named(self.titles, lead.text)
            if read[i].hit.chunk.document_id != lead.document_id
        }
        self.further = not by_lead  # then the lead names only its own document's chunks
        self.named = by_lead | named(self.titles, question)
        self.documents = {lead.document_id}
        if read[0].link is not None:
            self.documents.add(read[0].link.read.hit.chunk.document_id)

    def quoted(self, i: int) -> None:
        hit = self.read[i].hit
        self.documents.add(hit.chunk.document_id)
        if self.further:
            self.named |= named(self.titles, hit.chunk.text)

    def __call__(self, i: int) -> bool:
        """Passage ``i`` is a bridge."""
        r = self.read[i]
        if r.hit.chunk.document_id in self.documents:
            return False
        if i in self.named:
            return True
        first = r.link.read.hit.chunk.document_id if r.link is not None else None
        return first in self.documents and r.score >= self.threshold  # a believed second hop


def _linked(link: Link) -> Quote:
    """The first hop's sentence a second hop was read after, with the sentence its
    pronoun stands for ("It was founded by Henry J. Kaiser …" after "Kaiser Ventures …")."""
    chunk = link.read.hit.chunk
    base = chunk.char_start
    start = with_antecedent(chunk.text, link.start, link.end, chunk.section)
    return Quote(link.read, Piece(base + start, base + link.end, chunk.text[start : link.end]))


def _distinct(quotes: Sequence[Quote]) -> list[Quote]:
    """``quotes`` less each one whose text lies within, or holds, an earlier one's."""
    kept: list[Quote] = []
    for q in quotes:
        text = q.text
        if all(text not in k.text and k.text not in text for k in kept):
            kept.append(q)
    return kept


def extract(
    question: str,
    read: Sequence[Read],
    threshold: float,
    sides: int = 0,
    context: Context | None = None,
) -> Answer:
    """The answer quoting ``read`` (every passage read, best first; the first believed),
    or with ``sides``, a comparison's: its first ``sides`` passages."""
    quotes = choose(question, read, sides, context, threshold)
    order: list[str] = []  # chunk ids in order of first quote
    for q in quotes:
        if q.read.hit.chunk.id not in order:
            order.append(q.read.hit.chunk.id)
    quoted = len(order)
    for r in read:  # then the other passages with enough evidence, listed unreferenced
        if r.hit.chunk.id not in order and r.score >= threshold:
            order.append(r.hit.chunk.id)
    number = {cid: n for n, cid in enumerate(order, start=1)}
    hits = {r.hit.chunk.id: r.hit for r in read}
    citations = tuple(make_citation(number[cid], hits[cid]) for cid in order)
    parts: list[str] = []
    spans: list[Span] = []
    cursor = 0
    for i, q in enumerate(quotes):
        if parts:
            cursor += 1  # the joining space, or line
        index = number[q.read.hit.chunk.id]
        shown, pieces = q.render()
        for at, piece in pieces:
            span = Span(cursor + at, cursor + at + len(piece.text), index, piece.start, piece.end)
            exact = q.exact if i == 0 and not sides else None
            if exact is not None and piece.start <= exact[0] and exact[1] <= piece.end:
                shift = cursor + at - piece.start
                span = replace(span, exact_start=shift + exact[0], exact_end=shift + exact[1],
                               exact_doc_start=exact[0], exact_doc_end=exact[1])  # fmt: skip
            spans.append(span)
        piece_text = f"{shown}\n\n[{index}]" if q.row else f"{shown} [{index}]"
        parts.append(piece_text)
        cursor += len(piece_text)
    referenced = tuple(range(1, quoted + 1))
    text = "".join(p if not i else ("\n" if quotes[i - 1].row or quotes[i].row else " ") + p
                   for i, p in enumerate(parts))  # fmt: skip
    return pin_pages(Answer(text, citations, referenced, tuple(spans)))
