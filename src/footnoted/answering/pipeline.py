"""The question path: one driver from a question to its events, in both modes.

``prepare`` validates, retrieves, lets the reader read the top passages and judges
(``evidence.judge``), all before a word is sent; ``stream`` turns a prepared question
into events: ``Refusal`` alone, or ``Started``, ``Delta``…, ``Sources``, ``Done``. In
``extractive`` mode the answer quotes what the reader found; in ``llm`` mode the model
gets the passages read, and is never called when none answers. A comparison of
documents the question names (``named.comparison_sides``) is read side by side and
answered from its sides in both modes. Documents the best passages name are read after
the sentences that name them (``_bridges``): a two-hop question's second passage, which
leads when the first lacks a name or year the question asks and it holds them, or when
no passage is believed alone and it is, read after the sentence where the reader found
what it names (``_second_hop``). A table row the question names (``tables``), else the
passage that defines a term it asks the meaning of (``definitions``), else one that
asks the question itself and answers it next (``_posed``), or prints a label the
question names over what it introduces (``_labelled``), or gives the examples it asks
for after naming what they are of (``_exemplified``), leads the passages read.
``collect`` gathers the events into one ``AskResult``, so ``answer()`` is
``collect(ask())`` and both forms say the same.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass, field, replace
from itertools import groupby, pairwise
from typing import ParamSpec, TypeVar

from ..errors import InvalidInput, NotFound
from ..inference.embedding import SentenceTransformerEmbedder
from ..inference.reader import Calibration, Reader, Reading, get_reader
from ..lexical import CELLS, MARKER, NUMBER_WORD, bag, chunk_sentences, words
from ..models import (
    SECTION_JOIN,
    Chunk,
    Delta,
    Done,
    Event,
    Evidence,
    Failed,
    Grounding,
    Notice,
    Refusal,
    RetrievedChunk,
    Sources,
    Started,
)
from ..outbound import Outbound
from ..retrieval import Retrieval, Retriever, to_read
from ..settings import CollectionSettings, Settings
from . import evidence, trust
from .asked import (
    ROUND_THE_CLOCK,
    YEAR,
    Asked,
    asked,
    asks_how_many,
    codes,
    counts,
    holds_number,
    names_new,
    said_version,
    shows_version,
)
from .citations import Answer
from .conversation import NO_CONVERSATION, Conversation, Exchange, contextual, topic
from .definitions import asked_term, defining, spelled
from .envelope import readable
from .evidence import Link, Read
from .extractive import already_said, choose, extract
from .llm.answerer import LLMAnswerer
from .llm.client import LLMUnavailable
from .named import YES_NO, bridge_candidates, comparison_sides, named, naming_sentence
from .question import Question, without_instructions
from .quotes import (
    EXAMPLES_OPEN,
    Context,
    Quote,
    asks_why,
    caption,
    gives_reason,
    heading,
    posed_reason,
    quote,
    rationale,
)
from .tables import Named, captioned, changed_row, continuations, named_row, valued_row

MAX_QUESTION_CHARS = 4000
LEADS = 3  # the passages read first whose second hops are read after them
DEFINED_DEPTH = 20  # retrieved passages searched for the definition of a term asked
ABBREVIATED_DEPTH = 100  # passages holding an abbreviation searched for its first use
CAPTION_CHARS = 8_000  # how far before a table's passage its caption sentence is looked for
OPENING_CHARS = 20_000  # a document's opening, where a name the question asks about may be
ITEM_WORDS = 12  # the most words of a line a label introduces (more: a sentence it heads)
_DELTA = re.compile(r"\S+\s*")
RAG_OFF_MESSAGE = (
    "Document search is turned off for this knowledge base, so no documents were "
    "consulted and this reply cites nothing. An admin can turn it back on in the "
    "collection settings."
)
NO_RETRIEVAL = Retrieval((), (), None, 0)

P = ParamSpec("P")
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class AskResult:
    """Everything one question produced: an answer, or a refusal."""

    question: str
    answer: Answer | None
    refusal: Refusal | None
    retrieval: Retrieval
    warning: str | None = None
    cite: bool = True  # the collection sends citation fields with its answers
    notice: str | None = None  # e.g. the LLM was unavailable: an extractive answer instead
    info: dict[str, object] = field(default_factory=dict)  # collection, duration_ms, chunks
    failed: Failed | None = None  # generation broke off; ``answer`` holds the partial text
    read: tuple[Read, ...] = ()  # the passages the reader read, best first

    @property
    def refused(self) -> bool:
        return self.refusal is not None


@dataclass(frozen=True, slots=True)
class Prepared:
    """A question after retrieval, reading and judgement, before any answer text."""

    question: str
    config: CollectionSettings
    cite: bool
    retrieval: Retrieval
    info: dict[str, object]
    warning: str | None
    evidence: Evidence
    read: tuple[Read, ...]  # every passage read, best first
    reader_threshold: float  # the reader score an answer needs
    query: str  # what was searched and read: the question, or its standalone form
    prompt: str  # what a model is asked: the question with its instructions, or as query
    conversation: Conversation = NO_CONVERSATION  # earlier turns, the client's instructions
    sides: int = 0  # a comparison: its sides are the first ``sides`` passages read


class Pipeline:
    """Prepares and streams questions for one ``Footnoted``."""

    def __init__(
        self,
        settings: Settings,
        retriever: Retriever,
        embedder: SentenceTransformerEmbedder,
        llm_settings: Callable[[], Settings],
        context: Context | None = None,
        chunks: Callable[[str], Sequence[Chunk]] | None = None,
    ) -> None:
        """``context`` reads a piece of a document's text (``quotes.Context``): what an
        answer reads past its passages; ``chunks`` a document's chunks (a table's rows
        that retrieval did not find: ``tables.valued_row``). A document deleted while a
        question is read has no text and no chunks (``_present``)."""
        self.settings = settings
        self.context = None if context is None else _present(context, "")
        self.chunks = None if chunks is None else _present(chunks, ())
        self.retriever = retriever
        self.embedder = embedder
        self.llm_settings = llm_settings  # the LLM connection in force (an admin may change it)
        self.outbound = Outbound.of(settings)  # the operator's: what the model may be reached at

    def _extract(self, p: Prepared) -> Answer:
        """The extractive answer, with its trust (``trust``)."""
        a = extract(p.query, p.read, p.reader_threshold, p.sides, self.context)
        return replace(a, grounding=trust.shipped().assess(p.query, p.read, a, p.reader_threshold))

    def _answerer(self) -> LLMAnswerer:
        return LLMAnswerer(self.llm_settings(), self.embedder, self.outbound.transport())

    @property
    def reader(self) -> Reader:
        s = self.settings
        return get_reader(s.embedding_precision, s.model_cache, s.reader_runtime)

    def prepare(self, q: Question) -> Prepared:
        """Retrieve, read and judge the question (resolved: its collection and settings
        named); after earlier turns of its conversation a follow-up is resolved as
        ``answering/conversation.py`` says."""
        q = replace(q, text=validate_question(q.text))
        asked = without_instructions(q.text)  # "… ? Answer briefly.": what it asks

        def attempt(query: str, about: str | None = None, said: str = "") -> Prepared:
            return self._prepare(q, asked, query, about, said)

        history = q.conversation.turns
        if not history:
            return attempt(asked)
        if q.config.generation_mode == "llm":
            rewritten = self._condense(q.text, history)
            if rewritten is not None:
                return attempt(rewritten)
        alone = attempt(asked)
        if alone.evidence.reason in ("ok", "empty"):
            return alone
        query, about = contextual(asked, history), topic(asked, history)
        leaning = attempt(query, about, said=history[-1].answer)
        return leaning if leaning.evidence.reason == "ok" else alone

    def _condense(self, question: str, history: Sequence[Exchange]) -> str | None:
        """The model's standalone form of a follow-up; None when it has none to give (a
        model that is down is reported by the answer step, which falls back too)."""
        try:
            return self._answerer().condense(question, history)
        except LLMUnavailable:
            return None

    def _prepare(
        self, q: Question, asked: str, query: str, about: str | None = None, said: str = ""
    ) -> Prepared:
        """Retrieve and read ``query`` (``asked``, the question without its instructions on
        how to answer, or its standalone form; the client's embedding is the question's
        as it was sent, so it is used only for that); a passage's cosine in its evidence
        score is to ``about`` when given, else to ``query`` (its retrieval score). With
        ``said`` (the previous answer), a lead that would repeat it gives way as
        ``fresh_first`` says."""
        config, collection = q.config, q.where
        embedding = q.embedding if query == q.text else None
        question = q.text
        limit = q.threshold if q.threshold is not None else config.evidence_threshold
        k = q.top_k or config.top_k
        warning = self._length_warning(query) if embedding is None else None
        began = time.perf_counter()
        retrieval = self.retriever.retrieve(query, collection, k, embedding)
        info: dict[str, object] = {
            "collection": collection,
            "duration_ms": round((time.perf_counter() - began) * 1000, 1),
            "chunks_returned": len(retrieval.hits),
        }
        if query != question:
            info["standalone_question"] = query
        cal = self.reader.calibration(self.settings.reader_threshold)
        read: tuple[Read, ...] = ()
        sides = 0
        best = retrieval.max_score
        if best is not None and evidence.passes(best, limit):
            began = time.perf_counter()
            hits = to_read(retrieval.candidates, k, query)
            readings = self.reader.read(query, [readable(h.chunk.text, query) for h in hits])
            read = ranked(hits, readings, cal, self._cosines(about, hits))
            compared = comparison_sides(query, retrieval.candidates)
            if compared:
                read = self._sides(query, compared, read, cal, about)
                sides = len(compared)
            elif read:
                read = self._bridges(query, read, retrieval, cal, about)
                if said:
                    read = fresh_first(read, said, cal.threshold)
                row = (
                    self._named(query, read, retrieval, cal, about)
                    or self._valued(query, read, retrieval, cal, about)
                    or changed_row(query, read, self.context)
                )
                lead = (
                    row.read
                    if row is not None
                    else self._defined(q, query, read, retrieval, cal, about)
                )
                if lead is None:
                    lead = (
                        _posed(query, read) or _labelled(query, read) or _exemplified(query, read)
                    )
                if row is not None and not row.filled:
                    read = ()  # the row the question names leaves the value it asks out
                elif lead is not None:
                    read = (lead, *(r for r in read if r.hit.chunk.id != lead.hit.chunk.id))
                else:
                    read = anchored(query, read)
                read = worded_first(read, query, self.context, cal.threshold)
                read = reasoned_first(read, query, self.context, cal.threshold)
                read = defaulted(read, query)
                if read and not evidence.believed(read, cal):  # then through what each names
                    read = self._second_hop(query, read, cal, about, (), LEADS) or read
            info["reader_ms"] = round((time.perf_counter() - began) * 1000, 1)
        # a follow-up read with the conversation names what the follow-up itself names
        asking = asked if about is not None else query
        missing = self._missing(asking, read, cal) if read and not sides else ()
        hop = self._second_hop(asking, read, cal, about, missing) if missing else None
        if hop is None and missing:
            hop = self._headed(asking, read, retrieval, cal, about, missing)
        if hop is None and missing:
            hop = self._holding(asking, read, cal, missing)
        if hop is not None:
            read, missing = hop, ()
        answers = not read or bool(sides) or self._answers(asking, read)
        written = _as_written(asking, missing)
        judged = evidence.judge(retrieval, limit, read, cal, sides, written, answers)
        return Prepared(
            question,
            config,
            q.citations and config.enable_citations,
            retrieval,
            info,
            warning,
            judged,
            read,
            cal.threshold,
            query,
            question if query == asked else query,
            q.conversation,
            sides,
        )

    def _valued(
        self,
        query: str,
        read: tuple[Read, ...],
        retrieval: Retrieval,
        cal: Calibration,
        about: str | None,
    ) -> Named | None:
        """The row a value the question gives picks out of a table of the passages read or
        the best ``DEFINED_DEPTH`` retrieved (``tables.valued_row``), read at that row;
        None when there is no such one row."""
        if self.chunks is None:
            return None
        hits = [r.hit for r in read] + list(retrieval.candidates[:DEFINED_DEPTH])
        found = valued_row(query, [h.chunk for h in hits], self.chunks)
        if found is None:
            return None
        held = self._held(query, read, found.chunk.id, retrieval, cal, about)
        if held is None:
            return None
        reading = Reading(held.reading.score, found.start, found.end)
        return Named(replace(held, reading=reading, named=True), found.filled)

    def _named(
        self,
        query: str,
        read: tuple[Read, ...],
        retrieval: Retrieval,
        cal: Calibration,
        about: str | None,
    ) -> Named | None:
        """The row the question names (``tables.named_row``) in the passages read or in the
        rest of a table one of them ends among (``tables.continuations``), whose chunk is
        then read and led by that table's caption sentence; None when no row is named."""
        further = continuations(read, retrieval.candidates)
        if _AVERAGE_ASKED.search(query):  # a sheet's rows that give none are no answer
            read = tuple(r for r in read if _gives_statistic(r.hit.chunk))
            further = [c for c in further if _gives_statistic(c.read.hit.chunk)]
        found = named_row(query, read, self.context, further)
        if found is None or any(r.hit.chunk.id == found.read.hit.chunk.id for r in read):
            return found
        held = self._held(query, read, found.read.hit.chunk.id, retrieval, cal, about)
        if held is None:
            return None
        reading = Reading(held.reading.score, found.read.reading.start, found.read.reading.end)
        continued = next(c for c in further if c.read.hit.chunk.id == found.read.hit.chunk.id)
        at = captioned(continued)  # the caption, in the passage read, is quoted after the row
        link = None if at is None else Link(continued.head, *at)
        return Named(replace(held, reading=reading, named=True, link=link), found.filled)

    def _held(
        self,
        query: str,
        read: Sequence[Read],
        chunk_id: str,
        retrieval: Retrieval,
        cal: Calibration,
        about: str | None,
    ) -> Read | None:
        """The chunk's reading among ``read``, else the chunk scored as ``retrieval``
        scored its hits and read now; None when it is gone (its document deleted while
        the question was read)."""
        held = next((r for r in read if r.hit.chunk.id == chunk_id), None)
        if held is not None or retrieval.vector is None:
            return held
        live = self.retriever.scored([chunk_id], retrieval.vector)
        return self._read(query, live, cal, about)[0] if live else None

    def _defined(
        self,
        q: Question,
        query: str,
        read: tuple[Read, ...],
        retrieval: Retrieval,
        cal: Calibration,
        about: str | None,
    ) -> Read | None:
        """The passage that defines the term ``query`` asks the meaning of
        (``definitions``), read at its definition: of the passages read, else of the
        best ``DEFINED_DEPTH`` retrieved, else of those that hold the term by keyword
        rank, or an abbreviation's in the order of its documents (it is spelled out
        where first used); those read now. None when none does, or when it lacks a
        name or year the question asks about that the passage leading now holds
        ("What does 'wiki' mean in Hawaiian?")."""
        term = asked_term(query)
        if term is None:
            return None
        hits = [r.hit for r in read]
        found = defining(term, [h.chunk.text for h in hits])
        vector = retrieval.vector
        unspelled = (
            found is not None
            and term.abbreviation
            and spelled(term, hits[found[0]].chunk.text) is None
        )
        if (found is None or unspelled) and vector is not None:
            seen = {h.chunk.id for h in hits}
            wider = [h for h in retrieval.candidates[:DEFINED_DEPTH] if h.chunk.id not in seen]
            seen |= {h.chunk.id for h in wider}
            if term.abbreviation:  # spelled out where first used: each document's first
                holding = self.retriever.containing(term.text, vector, q.where, ABBREVIATED_DEPTH)
                rank = {
                    d: i for i, d in reversed(list(enumerate(h.chunk.document_id for h in holding)))
                }
                holding.sort(key=lambda h: (rank[h.chunk.document_id], h.chunk.char_start))
            else:
                holding = self.retriever.containing(term.text, vector, q.where, DEFINED_DEPTH)
            wider += [h for h in holding if h.chunk.id not in seen]
            further = defining(term, [h.chunk.text for h in wider])
            if further is not None and (
                found is None or spelled(term, wider[further[0]].chunk.text) is not None
            ):  # "ODBC is a client-server system" read: its words spelled out further
                hits, found = wider, further
        if found is None:
            return None
        i, where = found
        r = self._held(query, read, hits[i].chunk.id, retrieval, cal, about)
        if r is None:
            return None
        reading = Reading(r.reading.score, where.start, where.end)
        defined = replace(r, reading=reading, defines=True)
        if self._missing(query, (defined,), cal) and not self._missing(query, read, cal):
            return None  # it lacks a name the question asks about that the lead holds
        return defined

    def _missing(self, query: str, read: Sequence[Read], cal: Calibration) -> list[str]:
        """The years, quarters and names ``query`` asks about that the leading passage
        lacks: its text and quote (a table row's header and the label it is printed
        under included), section path and title; a year or quarter may be in the
        answer's other quotes too, a name in their passages or the document's opening
        (``asked``)."""
        wanted = asked(query)
        if not wanted.asks:
            return []
        quotes = choose(query, read, 0, self.context, cal.threshold) or [
            quote(read[0], self.context, query)
        ]
        # a year is held by the lead or another quote's words; a name by any of its passage
        near = [*_shown(quotes[0]), *(q.text for q in quotes[1:]), self._captioned(quotes[0])]
        further = [text for q in quotes[1:] for text in _shown(q)]
        gone = wanted.missing(near, further)
        quarters = {f"Q{n}" for n in wanted.quarters}  # like years: not in an opening
        if self.context is not None and set(gone) - (wanted.years - wanted.filed) - quarters:
            opening = self.context(read[0].hit.chunk.document_id, 0, OPENING_CHARS)
            place = (quotes[0].read.hit.chunk.section or "").split(SECTION_JOIN)[-1]
            gone = wanted.missing(near, further, opening, place)
        return gone

    def _captioned(self, lead: Quote) -> str:
        """The sentence a table's row is read under, printed above the table before the
        passage the row is in ("Also recorded is the total compressed size for 14 files
        of the Calgary Text Compression Corpus" over the rows of a manual's table of block
        sizes): the paragraph before the table's header row, within
        :data:`CAPTION_CHARS` before a passage that opens among the table's rows (empty
        for any other quote)."""
        chunk = lead.read.hit.chunk
        if not lead.row or self.context is None or caption(chunk.text).strip():
            return ""
        start = max(0, chunk.char_start - CAPTION_CHARS)
        before = self.context(chunk.document_id, start, chunk.char_start)
        header = (chunk.header or "").strip()
        at = before.rfind(header) if header else -1
        above = before[:at] if at >= 0 else before
        last = above.rstrip().rsplit("\n\n", 1)[-1]
        return "" if CELLS in last else last

    def _second_hop(
        self,
        query: str,
        read: tuple[Read, ...],
        cal: Calibration,
        about: str | None,
        missing: Sequence[str],
        leads: int = 1,
    ) -> tuple[Read, ...] | None:
        """``read`` led by a passage of another document that one of its first ``leads``
        passages leads to, read after the sentence that does (its ``link``) and believed
        so: the second hop of a two-hop question. With ``missing`` (the years and names
        the leading passage lacks), the first hop is the lead the reader answered, and
        so led the answer must hold each of them; without, none of the passages read was
        believed alone. A passage leads to a document it names by its title ("The film
        whose soundtrack includes ... "Silent Sigh" is an adaptation of a 1998 novel by
        which author?" read "About a Boy" in the song's passage; the film's passage
        holds "1998"), or to a passage that names what the reader found in it ("The
        team that finished first overall in the 2006-07 QMJHL regular season played in a
        Memorial Cup held at which arena?" read "The Lewiston Maineiacs", whom the 2007
        Memorial Cup's passage names; "The genus to which the narrow-leafed campion
        belongs evolved sex chromosomes how long ago?" read "Silene" in the campion's
        passage, which the passage on sex determination in Silene names). None when no
        passage read does all this."""
        titles = [r.hit.document_title for r in read]
        for lead in read[:leads]:
            text = lead.hit.chunk.text
            by_title = named(titles, text)
            found = _entity(text[lead.reading.start : lead.reading.end], query)
            for i, r in enumerate(read):
                if r.hit.chunk.document_id == lead.hit.chunk.document_id:
                    continue
                if i in by_title:
                    start, end = naming_sentence(titles[i], text)
                elif found is not None and found.search(r.hit.chunk.text):
                    start, end = _sentence_at(text, lead.reading.start)
                else:
                    continue
                if end == start:
                    continue  # no one sentence leads to it
                hop = self._hop(query, read, r, Link(lead, start, end), cal, about, missing)
                if hop is not None:
                    return hop
        return self._first_hop(query, read, cal, about, missing) if missing else None

    def _hop(
        self,
        query: str,
        read: tuple[Read, ...],
        target: Read,
        link: Link,
        cal: Calibration,
        about: str | None,
        missing: Sequence[str],
    ) -> tuple[Read, ...] | None:
        """``read`` led by ``target`` read again after ``link``'s sentence, the others
        after it; None unless so read it is believed and, with ``missing``, the two hops
        hold each of those names and years."""
        (again,) = self._read(query, [target.hit], cal, about, link)
        if again.score < cal.threshold:
            return None
        hop = (again, *(x for x in read if x is not target))
        if missing and set(self._missing(query, hop, cal)) & set(missing):
            return None
        return hop

    def _headed(
        self,
        query: str,
        read: tuple[Read, ...],
        retrieval: Retrieval,
        cal: Calibration,
        about: str | None,
        missing: Sequence[str],
    ) -> tuple[Read, ...] | None:
        """``read`` led instead by one of the best ``DEFINED_DEPTH`` passages retrieved
        whose section's heading shows a version the lead lacks (a changelog's "readxl
        1.4.1" for "Why was readxl 1.4.1 put out?", where the passages read are other
        releases'), read now, believed and lacking nothing the question asks about; None
        when there is none."""
        lacked = [v for v in asked(query).versions if said_version(v) in missing]

        def headed(hit: RetrievedChunk) -> bool:
            return any(shows_version(v, hit.chunk.section or "") for v in lacked)

        seen = {r.hit.chunk.id for r in read}
        hits = [h for h in retrieval.candidates[:DEFINED_DEPTH] if h.chunk.id not in seen]
        found = [r for r in read[1:] if headed(r.hit)]
        found += self._read(query, [h for h in hits if headed(h)], cal, about)
        for r in sorted(found, key=lambda r: -r.score):
            if r.score >= cal.threshold and not self._missing(query, (r,), cal):
                return _led_by(r, read)
        return None

    def _holding(
        self, query: str, read: tuple[Read, ...], cal: Calibration, missing: Sequence[str]
    ) -> tuple[Read, ...] | None:
        """``read`` led instead by a passage read after its lead, believed, lacking nothing
        the question asks about, and whose quote itself (with its table header, section
        path and title) holds what the lead lacks, its ``missing`` ("el_GR" of a thread's
        message measuring it, where the lead measured en_GB); None when there is none."""
        wanted = asked(query)
        for r in read[1:]:
            if r.score < cal.threshold:
                continue
            led = _led_by(r, read)
            quotes = choose(query, led, 0, self.context, cal.threshold)
            if not quotes or set(wanted.missing(_shown(quotes[0])[1:])) & set(missing):
                continue  # the quote itself, not only its passage, holds what the lead lacks
            if not self._missing(query, led, cal):
                return led
        return None

    def _first_hop(
        self,
        query: str,
        read: tuple[Read, ...],
        cal: Calibration,
        about: str | None,
        missing: Sequence[str],
    ) -> tuple[Read, ...] | None:
        """``read`` with its lead, which the reader believed but which lacks names the
        question gives, read again after the sentence of another document's passage that
        names the lead's document by its title (its ``link``): the lead is a two-hop
        question's second hop, and the names describe the first ("the place where Arnold
        Schwarzenegger and Barbara Outland shared an apartment": Santa Monica's passage
        answers, Schwarzenegger's names Santa Monica and Barbara Outland). None unless so
        read the lead is still believed and the two hops hold every name."""
        lead = read[0]
        title = lead.hit.document_title
        for r in read[1:]:
            if r.hit.chunk.document_id == lead.hit.chunk.document_id:
                continue
            start, end = naming_sentence(title, r.hit.chunk.text)
            if end == start:
                continue
            hop = self._hop(query, read, lead, Link(r, start, end), cal, about, missing)
            if hop is not None:
                return hop
        return None

    def _answers(self, query: str, read: Sequence[Read]) -> bool:
        """Whether the leading quote is an answer at all: more than headings or a
        caption (``worded_first``); for a question asking for a number
        (``asked.counts``), one that holds one (its table header aside); for one asking
        which state, country or company, one that names one (``asked.names_new``); for
        one not asking where to find something, more than a web address (a guide's
        reference list: "https://www.cisa.gov/resources-tools/…" asked which elements it
        lists); for one asking an average or a median, a spreadsheet's row only where its
        table says it gives one (``_summarised``); for one asking a default, one that says
        it is."""
        number = counts(query)
        lead = quote(read[0], self.context, query)
        if _only_headings(lead):
            return False
        # with the release it is under, where the passage prints it (one only its section
        # path names is shown, not weighed: "release 9.0" over a line on SM3 for SHA-3)
        inside = lead.group is not None and lead.group.start >= read[0].hit.chunk.char_start
        text = lead.render()[0] if inside and not lead.row else lead.text
        if number and not holds_number(text, query):
            return False
        if not names_new(text, query):
            return False  # asked which state, a quote naming none
        if lead.row and not _summarised(query, lead):
            return False  # asked an average, one flower's row
        if _ASKS_DEFAULT.search(query) and not _SAYS_DEFAULT.search(text):
            return False  # asked a default, an example: 'export BM_UPLOAD_SSH_PORT="1352"'
        return not (_WEB_ADDRESS.fullmatch(text.strip()) and not _ASKS_WHERE.search(query))

    def _cosines(self, about: str | None, hits: Sequence[RetrievedChunk]) -> list[float]:
        """Each hit's cosine to ``about``; without it, to what was searched."""
        return [h.score for h in hits] if about is None else self.retriever.cosines(about, hits)

    def _read(
        self,
        question: str,
        hits: Sequence[RetrievedChunk],
        cal: Calibration,
        about: str | None,
        link: Link | None = None,
    ) -> tuple[Read, ...]:
        """``hits`` read, in their order; with ``link``, after its sentence, each with the
        better of its own cosine and the first hop's (the question describes the second
        hop only through the first)."""
        if not hits:
            return ()
        lead = link.read.hit.chunk.text[link.start : link.end] if link else ""
        readings = self.reader.read(
            question, [readable(h.chunk.text, question) for h in hits], lead
        )
        cosines = self._cosines(about, [*hits, *([link.read.hit] if link else [])])
        if link is not None:
            first = cosines.pop()
            cosines = [max(c, first) for c in cosines]
        rows = zip(hits, readings, cosines, strict=True)
        return tuple(Read.of(h, r, cal, c, link) for h, r, c in rows)

    def _sides(
        self,
        question: str,
        sides: Sequence[RetrievedChunk],
        read: tuple[Read, ...],
        cal: Calibration,
        about: str | None,
    ) -> tuple[Read, ...]:
        """A comparison's sides read (those not read yet), in the question's order, then
        the other passages read."""
        done = {r.hit.chunk.id: r for r in read}
        more = iter(self._read(question, [h for h in sides if h.chunk.id not in done], cal, about))
        first = tuple(done[h.chunk.id] if h.chunk.id in done else next(more) for h in sides)
        ids = {h.chunk.id for h in sides}
        return first + tuple(r for r in read if r.hit.chunk.id not in ids)

    def _bridges(
        self,
        question: str,
        read: tuple[Read, ...],
        retrieval: Retrieval,
        cal: Calibration,
        about: str | None,
    ) -> tuple[Read, ...]:
        """``read`` with the second hops of its first ``LEADS`` passages
        (``named.bridge_candidates``) read: each after the sentence of the passage that
        names it (its ``link``), or alone where only the question names it. A passage
        read again this way keeps the better of its two readings. Best first."""
        best = {r.hit.chunk.id: r for r in read}
        seen = set(best)
        for first in read[:LEADS]:
            bridges = bridge_candidates(question, first.hit, retrieval.candidates, seen)
            for (start, end), group in groupby(bridges, key=lambda b: (b.start, b.end)):
                hits = [b.hit for b in group]
                link = Link(first, start, end) if end > start else None
                seen.update(h.chunk.id for h in hits)  # read alone once, however many leads
                for again in self._read(question, hits, cal, about, link):
                    held = best.get(again.hit.chunk.id)
                    if held is None or _better(again, held, question, cal.threshold):
                        best[again.hit.chunk.id] = again
        return tuple(sorted(best.values(), key=lambda r: -r.score))

    def stream(self, p: Prepared) -> Generator[Event, None, None]:
        """``Refusal`` alone, or ``Started``, ``Delta``…, ``Sources`` (when citing), ``Done``.

        In ``llm`` mode a model that is down before its first token gives ``Notice`` and
        the extractive answer; a later failure ``Failed``."""
        if p.evidence.reason != "ok":
            contact = self.settings.support_contact
            said = evidence.message(p.evidence, contact)
            yield Refusal(said, evidence.suggestions(contact), p.evidence, retrieval=p.info)
            return
        yield Started(warning=p.warning, retrieval=p.info)  # before the model's first token
        if p.config.generation_mode != "llm":
            yield from answer_events(self._extract(p), p.cite)
            return
        answerer = self._answerer()
        try:
            sources, first, tokens = answerer.open(
                p.prompt, [r.hit for r in p.read], p.conversation
            )
        except LLMUnavailable as exc:
            message = (
                f"Generation was unavailable ({exc.message}); this answer quotes the documents."
            )
            yield Notice(exc.code, message)
            yield from answer_events(self._extract(p), p.cite)
            return

        def assess(a: Answer) -> Grounding:
            return trust.shipped().assess(p.query, p.read, a, p.reader_threshold)

        yield from answerer.events(sources, first, tokens, p.evidence, p.cite, assess)

    def answer(self, p: Prepared) -> AskResult:
        return collect(p, self.stream(p))

    def _length_warning(self, question: str) -> str | None:
        tokens = self.embedder.count_tokens([question])[0]
        limit = self.embedder.max_tokens - 2
        if tokens <= limit:
            return None
        return (
            f"The question is {tokens} tokens long; only the first {limit} were used to "
            "search the documents."
        )


_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)


def _better(again: Read, held: Read, question: str, threshold: float) -> bool:
    """Whether a passage read after a link (``again``) replaces its reading alone
    (``held``): when scored higher, or believed where the question does not name its
    document (a second hop the question describes only through the first)."""
    if again.score > held.score:
        return True
    return (
        again.score >= threshold
        and held.link is None
        and not named([again.hit.document_title], question)
    )


def _entity(span: str, query: str) -> re.Pattern[str] | None:
    """What a reader's span names, as a pattern that finds it in another passage (its
    leading article aside): a name with a capital letter of four letters or more; None
    for a number, a date or a lower-case phrase, which other passages name by chance,
    and for a name the question names itself (in any case: "premier league"), which is what
    the question is about, not the bridge it describes: the passages about it are
    retrieved by the question, not reached through the one read."""
    name = _ARTICLE.sub("", span.strip())
    letters = sum(ch.isalpha() for ch in name)
    if letters < 4 or not any(ch.isupper() for ch in name) or any(ch.isdigit() for ch in name):
        return None
    pattern = rf"(?<!\w){re.escape(name)}(?!\w)"
    return None if re.search(pattern, query, re.IGNORECASE) else re.compile(pattern)


def _summarised(question: str, row: Quote) -> bool:
    """Whether a spreadsheet's row answers the average or median ``question`` asks for,
    if it asks one: its header, its cells or its sheet's name say it gives one ("Average
    of mpg"); one flower's measurements under "Petal Length" do not. A report's table
    sums up already, and says so around it as often as in it: its rows are left be."""
    if not row.read.hit.chunk.rows or not _AVERAGE_ASKED.search(question):
        return True
    parts = (row.header, row.body, row.group)
    shown = " ".join(p.text for p in parts if p is not None)
    return bool(_STATISTIC.search(f"{shown} {row.read.hit.chunk.section or ''}"))


def _gives_statistic(chunk: Chunk) -> bool:
    """Whether a chunk may hold a row giving an average or a median: any but a
    spreadsheet's rows, whose header, text or sheet must say it gives one (a pivot
    table's "Average of body_mass_g", not its data's "body_mass_g")."""
    said = f"{chunk.header or ''} {chunk.text} {chunk.section or ''}"
    return not chunk.rows or bool(_STATISTIC.search(said))


_STATISTIC = re.compile(r"\b(?:average|avg|median|mean)\b", re.IGNORECASE)
# "mean" as a verb asks none: "what does 'vs' mean?"
_AVERAGE_ASKED = re.compile(r"\b(?:average|avg|median|the mean|mean (?:of|value))\b", re.I)
_WEB_ADDRESS = re.compile(r"[<(\[]?(?:https?://|www\.)\S+?[>)\].,;]*")
_ASKS_WHERE = re.compile(
    r"\b(?:links?|url|website|site|web ?page|address|download|where)\b", re.IGNORECASE
)
_SCOPE = frozenset({"accord", "per"})  # "according to the slides": where, not what
# asked a default ("the default value of X", "by default"), not a way ("how do I forbid
# default access"): an example's value is no default
_ASKS_DEFAULT = re.compile(r"^(?!\s*(?:how|why)\b).*\bdefault\b", re.IGNORECASE)
_SAYS_DEFAULT = re.compile(r"\bdefault", re.IGNORECASE)


def _posed(query: str, read: tuple[Read, ...]) -> Read | None:
    """The first passage read that asks the question itself and answers it in the
    sentence after (an FAQ, a slide's "How Do I Prevent CSRF?" over "Preventing CSRF
    usually requires the inclusion of an unpredictable token …"), read at that
    sentence: the document's question holds two or more of ``query``'s words and every
    one its title and section path do not ("according to" aside). A question in a
    list of them (a quiz's) is not followed by its answer, nor is one followed by
    another question or a fragment. A question that points back ("How do you avoid
    this fate?") asks with the sentence before it ("… your fierceness will turn to
    bitterness …"), and a word is held by one it begins ("bitter": "bitterness")."""
    asked = bag(query) - _SCOPE
    if not asked:
        return None
    for r in read:
        text = r.hit.chunk.text
        if "?" not in text:
            continue
        around = bag(f"{r.hit.document_title} {r.hit.chunk.section or ''}")
        sentences = chunk_sentences(text)
        questions = [text[s:e].rstrip().endswith("?") for s, e, _ in sentences]
        for i, ((qs, qe, held), (ns, ne, _)) in enumerate(pairwise(sentences)):
            if not questions[i] or (i and questions[i - 1]):
                continue  # no question, or one of a list of them (a quiz)
            if i and _POINTS_BACK.search(text[qs:qe]):
                held = held | sentences[i - 1][2]
            if asked - _held_by(asked, held | around) or len(_held_by(asked, held)) < 2:
                continue
            answer = text[ns:ne]
            if answer.rstrip().endswith("?") or len(answer.split()) < 4:
                continue
            return replace(r, reading=Reading(r.reading.score, ns, ne), posed=True)
    return None


def _labelled(query: str, read: tuple[Read, ...]) -> Read | None:
    """The first passage read that prints, on a line of its own, a label of two words or
    more the question writes out whole, ending in a colon over what it introduces (a
    slide's "Next Step:" over "Reduce partitions size", asked "what is the next step for
    HDB++"), read at that label: quoted, it brings the lines it introduces. The passage,
    its section path and its title hold every other word the question asks with
    ("according to" and the kind of document it names aside): the side effects of
    aspirin are not those a leaflet on ibuprofen lists. A label over a paragraph
    ("Theoretical fragment masses:" over its sentences) heads it: the reader reads it as
    it reads any passage. A label with a number ("Table 2:", "Q3 results:") is a
    caption, not one; one opening with an article ("A pariah expression:") is a term's,
    over its syntax, not its definition."""
    asked = f" {' '.join(words(query))} "
    wanted = bag(query) - _SCOPE - _KINDS
    for r in read:
        text = r.hit.chunk.text
        around = bag(f"{r.hit.document_title} {r.hit.chunk.section or ''}")
        if wanted - _held_by(wanted, bag(text) | around):
            continue
        for line in re.finditer(r"[^\n]+", text):
            label = _LABEL_LINE.fullmatch(line.group())
            named = [] if label is None or _DIGIT.search(label[1]) else words(label[1])
            if not named or named[0] in _ARTICLES or f" {' '.join(named)} " not in asked:
                continue  # no label, or a term's ("A pariah expression:" over its syntax)
            after = text[line.end() :].lstrip("\n").split("\n", 1)[0].strip()
            if after and after[-1] not in ":.!?" and len(after.split()) <= ITEM_WORDS:
                start, end = line.span()
                return replace(r, reading=Reading(r.reading.score, start, end), labelled=True)
    return None


def _exemplified(query: str, read: tuple[Read, ...]) -> Read | None:
    """Asked for examples of something, the passage read that gives them after naming
    it: "… struggle with population level queries such as" over its bulleted questions,
    "Any dual-licensed software that the target is using under a commercial license
    (MySQL, Ghostscript)", read at the examples (a lead-in's line, quoted with the
    items it introduces; a parenthesis listing names). The sentence before them holds
    two or more of the words the question asks about and the most of any passage's; the
    passage, its section path and its title hold all of them. A lead-in's next line is
    an item (a bullet, or a short line opening in capitals), not its sentence wrapped
    on; a parenthesis lists names (capitalised, no number: not "(Smith, 2019)" nor
    "(see Table 2, Figure 3)")."""
    if not _ASKS_EXAMPLES.search(query) or _ASKS_OTHER.match(query):
        return None
    wanted = bag(query) - _SCOPE - _KINDS - _EXAMPLE_WORDS
    best: tuple[int, Read, int, int] | None = None
    for r in read:
        text = r.hit.chunk.text
        around = bag(f"{r.hit.document_title} {r.hit.chunk.section or ''}")
        if len(wanted) < 2 or wanted - _held_by(wanted, bag(text) | around):
            continue
        for m in _EXAMPLES.finditer(text):
            listed = m["listed"]
            if listed is not None and not all(map(_NAME_ITEM.fullmatch, listed.split(","))):
                continue  # years, references, a citation: no names
            if listed is None and not _ITEM_NEXT.match(text, m.end()):
                continue  # the sentence wraps on: no list
            line = text.rfind("\n", 0, m.start()) + 1
            ends = [e.end() for e in _SENTENCE_END.finditer(text, line, m.start())]
            opened = ends[-1] if ends else line
            held = len(_held_by(wanted, bag(text[opened : m.start()])))
            if held < 2 or (best is not None and held <= best[0]):
                continue
            if listed is not None:  # the parenthesis: read at its list
                best = (held, r, m.start("listed"), m.end("listed"))
            else:  # the lead-in: read at its sentence, which brings the items after it
                best = (held, r, len(text) - len(text[opened:].lstrip()), m.end())
    if best is None:
        return None
    _, r, start, end = best
    return replace(r, reading=Reading(r.reading.score, start, end), labelled=True)


# a question asking for examples ("give examples of", "what are some examples of", "which
# examples does it give"), not one about an example ("in the caching example, …", "which
# example program prints …") nor one asking something else of them ("why are examples
# of … hard", "how many examples …")
_ASKS_EXAMPLES = re.compile(
    r"\bexamples\s+(?:of|does|do|did|are|were)\b|\bas\s+examples?\b"
    r"|\b(?:give|list|name)\s+(?:\w+\s+)?examples?\b|\b(?:which|what)\s+(?:\w+\s+)?examples\b"
    r"|\bwhat\s+(?:is|are)\s+(?:an?\s+|some\s+)?examples?\s+of\b",
    re.IGNORECASE,
)
_ASKS_OTHER = re.compile(r"\W*(?:why|how|who|whom|whose|where|when)\b", re.IGNORECASE)
_EXAMPLE_WORDS = bag("example examples instance instances sample samples")
# examples after what they are of: a lead-in ending its line ("queries such as"), or a
# parenthesis listing names ("(MySQL, Ghostscript)")
_EXAMPLES = re.compile(
    rf"\b(?:{EXAMPLES_OPEN})[ \t]*(?::[ \t]*)?(?=\n)"
    r"|\((?P<listed>[^()\n,]{2,40}(?:,[^()\n,]{2,40})+)\)",
    re.IGNORECASE,
)
# a listed name: a word or a few opening in a capital, no number ("MySQL", "Affero GPL")
_NAME_ITEM = re.compile(
    r"\s*(?:and\s+|or\s+)?[A-Z][^\W\d_]*(?:[-.+#&/][^\W\d_]*)*"
    r"(?:\s+[A-Za-z][^\W\d_]*(?:[-.+#&/][^\W\d_]*)*){0,3}\s*"
)
# an item on the next line: a bullet, or a short line opening with a capital
_ITEM_NEXT = re.compile(r"\s*\n\s*(?:[•●▪◦‣∙·\-–*]\s|[A-Z\d\"“'][^\n]{0,80}(?:\n|$))")
_SENTENCE_END = re.compile(r"[.?!][\"”’)]?\s+")


_ARTICLES = frozenset({"a", "an", "the"})
_DIGIT = re.compile(r"\d")
# the kind of document a question names, as it says where to look: "the conclusion slide"
_KINDS = bag("slide slides deck presentation talk document report guide paper manual page")
# a label on a line of its own: two words or more, a colon after them
_LABEL_LINE = re.compile(r"\s*((?:[^\W\d_][\w'’+-]*\s+)+[^\W\d_][\w'’+-]*)\s*:\s*")
_POINTS_BACK = re.compile(r"\b(?:this|that|these|those|such|it)\b", re.IGNORECASE)
_STEM_LETTERS = 4  # a word this long is held by a longer one it begins


def _held_by(asked: frozenset[str], words: frozenset[str]) -> set[str]:
    """The words of ``asked`` that ``words`` hold: as they are, or begun by one
    ("bitter" by "bitterness")."""
    return {
        a for a in asked
        if a in words or (len(a) >= _STEM_LETTERS and any(w.startswith(a) for w in words))
    }  # fmt: skip


def _led_by(lead: Read, read: Sequence[Read]) -> tuple[Read, ...]:
    """``read`` with ``lead`` first, the others in their order."""
    return (lead, *(r for r in read if r is not lead))


def anchored(query: str, read: tuple[Read, ...]) -> tuple[Read, ...]:
    """``read`` with its lead's reading moved to the one sentence of its passage that
    holds more of the codes the question names (``codes``: "ttyS0", "asn1_get_length_der")
    than the sentence the reader's span is in: asked what the lock file for /dev/ttyS0 is
    called, "For example, to lock /dev/ttyS0 the file "LCK..ttyS0" would be created.",
    not the sentence after it on the file's format."""
    wanted = codes(query)
    if not read or not wanted:
        return read
    lead = read[0]
    text = lead.hit.chunk.text

    def held(start: int, end: int) -> int:
        return sum(1 for c in wanted if c.search(text, start, end))

    counted = [(held(s, e), s, e) for s, e, _ in chunk_sentences(text)]
    spanned = next((n for n, s, e in counted if s <= lead.reading.start < e), 0)
    best = max(counted, default=(0, 0, 0))
    if best[0] <= spanned or [n for n, _, _ in counted].count(best[0]) > 1:
        return read
    moved = replace(lead, reading=Reading(lead.reading.score, best[1], best[2]))
    return (moved, *read[1:])


def defaulted(read: tuple[Read, ...], query: str) -> tuple[Read, ...]:
    """``read`` with its lead's reading moved, where the question asks a default and the
    sentence the reader's span is in says none, to the sentence of its passage that does
    (the one naming most of the question's words): asked what port a backup method uses
    by default, "_Type: string, default: `3306'._", not "The port on `BM_MYSQL_HOST'
    where the mysql server is listening." beside it. A row named or a definition stays."""
    if not read or not _ASKS_DEFAULT.search(query) or read[0].named or read[0].defines:
        return read
    lead = read[0]
    text = lead.hit.chunk.text
    start, end = _sentence_at(text, lead.reading.start)
    if _SAYS_DEFAULT.search(text, start, end):
        return read
    asked_words = bag(query)
    saying = [
        (len(words & asked_words), s, e)
        for s, e, words in chunk_sentences(text)
        if _SAYS_DEFAULT.search(text, s, e)
    ]
    if not saying:
        return read
    _, start, end = max(saying, key=lambda found: found[0])  # the first of the best
    return (replace(lead, reading=Reading(lead.reading.score, start, end)), *read[1:])


def _sentence_at(text: str, at: int) -> tuple[int, int]:
    """The offsets of the sentence of ``text`` that holds offset ``at`` (0, 0: none)."""
    return next(((s, e) for s, e, _ in chunk_sentences(text) if s <= at < e), (0, 0))


def ranked(
    hits: Sequence[RetrievedChunk],
    readings: Sequence[Reading],
    cal: Calibration,
    cosines: Sequence[float],
) -> tuple[Read, ...]:
    """The passages read, by evidence score (ties in retrieval order).

    The cosine in the evidence score stands in for the retrieval order: with the shipped
    calibration, the reader's score alone less 1 per place in that order leads with a
    citation hit for 80.5% of SQuAD dev's answerable questions, the evidence score less
    the same 80.6%, the evidence score alone 80.6%."""
    rows = zip(hits, readings, cosines, strict=True)
    return tuple(sorted((Read.of(h, r, cal, c) for h, r, c in rows), key=lambda r: -r.score))


def worded_first(
    read: tuple[Read, ...], question: str, context: Context | None, threshold: float
) -> tuple[Read, ...]:
    """``read``, led instead by the next believed passage whose quote says something when
    the lead's quote would be only headings or a caption (its reader's span in a
    table's caption, with nothing after it in the passage: "Table 1: PaLM-540B
    prompting results on HotpotQA and Fever."), or when the lead's span is no answer
    to the question (``_misses``; a table row the question names is no span of the
    reader's: a follow-up's query holds the previous row's figures; a span that only
    says again what a why-question says is one where the passage asks "Why?" next and
    answers, ``quotes.posed_reason``) and another's is; a lead read at a label the
    question names (``_labelled``) stays, read at what it introduces.
    Where no other passage is believed, the lead stays; with only headings it is no
    answer (``Pipeline._answers``)."""
    if not read:
        return read
    lead = read[0]
    # a row named is read whole; a passage read at a label is read at what it introduces
    missed = not (lead.named or lead.labelled) and _misses(lead, question)
    if missed and asks_why(question):
        # "… it really is not an expense. Why? A credit card account is a short-term loan":
        # a span restating what is asked, answered by the text next
        text, span = lead.hit.chunk.text, lead.reading
        ends = [e for s, e, _ in chunk_sentences(text) if s <= span.start < e]
        restates = not bag(text[span.start : span.end]) - bag(question)
        missed = not (restates and ends and posed_reason(text, ends[0]) is not None)
    if not _only_headings(quote(lead, context, question)) and not missed:
        return read
    said = (r for r in read[1:] if r.score >= threshold and not _misses(r, question))
    worded = next((r for r in said if not _only_headings(quote(r, context, question))), None)
    if worded is None:
        return read
    return _led_by(worded, read)


def reasoned_first(
    read: tuple[Read, ...], question: str, context: Context | None, threshold: float
) -> tuple[Read, ...]:
    """``read``, led instead by the next believed passage under a rationale's heading
    (``quotes.rationale``) where the question asks why and the lead's quote gives no
    reason ("Why are tar, gzip and cpio in /bin?": the list of commands in /bin leads,
    its "Rationale" follows). Not any passage giving a reason: the reader's lead
    explains more often than another's "due to"."""
    if not read or not asks_why(question) or rationale(read[0]):
        return read
    reasoned = next((r for r in read[1:] if r.score >= threshold and rationale(r)), None)
    if reasoned is None or gives_reason(quote(read[0], context, question)):
        return read
    return _led_by(reasoned, read)


def _misses(r: Read, question: str) -> bool:
    """Whether the reader's span is no answer to ``question``: it names only what the
    question names ("Lyft, Inc" for "Which accounting firm audits Lyft's financial
    statements?"; "layer two of the OSI Model" names a number the question does not, for
    "At which layer of the OSI model does Frame Relay operate?"), the number of the
    section it is in ("3.5.2" under "3.5.2 Rationale"), a year other than those the
    question asks about ("2010" for "Where did CSRF end up in the 2013 ranking?"), or,
    asked how many, a number that counts nothing ("24/7" for "How many employees does
    Lyft have?"; a vague "thousands" or a share, "40%" of an electorate, may be
    answered in its sentence), or, asked for a number, in a sentence whose only numbers
    are those the question gives ("Yale University class of 1966" for "In what year was
    the university from which John Kerry graduated in 1966 founded?": the next hop's
    "1701" answers; a sentence with no number at all may say it in words: "Mars has no
    moons")."""
    span = r.hit.chunk.text[r.reading.start : r.reading.end].strip()
    if _HEADING_NUMBER.fullmatch(span):
        parts = (r.hit.chunk.section or "").split(SECTION_JOIN)
        if any(part.startswith(f"{span.rstrip('.')} ") for part in parts):
            return True
    if YEAR.fullmatch(span):
        years = asked(question).years
        return bool(years) and span not in years
    if asks_how_many(question) and ROUND_THE_CLOCK.search(span):
        return not holds_number(span, question)  # "24/7" counts nothing
    said = _sentence(r)
    if counts(question) and holds_number(said) and not holds_number(said, question):
        return True  # asked in what year, "Yale University class of 1966": the year given
    if _elsewhere(r, question):
        return True
    words = bag(span)
    if not words or not words <= bag(question) or YES_NO.match(question):
        return False  # asked whether, the quote is the answer, whatever the span
    given = set(NUMBER_WORD.findall(question.lower()))  # "layer two" says what is asked
    return all(n in given for n in NUMBER_WORD.findall(span.lower()))


def _elsewhere(r: Read, question: str) -> bool:
    """Whether the paragraph the reader's span is in lacks a name the question asks that
    another paragraph of the passage holds: the passage is about two things and the span
    is in the other's paragraph ("Same as ASQA, we use the 2018-12-20 Wikipedia as the
    corpus." of QAMPARI, followed by "ELI5 (Fan et al., 2019) is …", for "Which corpus
    does ALCE use for the ELI5 questions?")."""
    wanted = asked(question)
    if not wanted.names:
        return False
    text, span = r.hit.chunk.text, r.reading
    start = text.rfind("\n\n", 0, span.start)
    start = 0 if start < 0 else start + 2
    end = text.find("\n\n", span.end)
    end = len(text) if end < 0 else end
    paragraph = text[start:end]
    if (start == 0 and end == len(text)) or " | " in paragraph:
        return False
    names = Asked(frozenset(), wanted.names)
    shown = (text[:end], r.hit.chunk.section or "", r.hit.document_title)
    gone = set(names.missing(shown))
    later = [p for p in text[end:].split("\n\n") if p.strip() and " | " not in p]
    return any(gone - set(names.missing((_opening(p),))) for p in later)


def _opening(paragraph: str) -> str:
    """A paragraph's subject: the whole words of its first 40 characters."""
    found = _OPENING.match(paragraph)
    return found[0] if found else ""


_OPENING = re.compile(r".{0,40}\b", re.DOTALL)


def _sentence(r: Read) -> str:
    """The sentences the reader's span is in (the span itself outside any)."""
    text, span = r.hit.chunk.text, r.reading
    said = [text[a:b] for a, b, _ in chunk_sentences(text) if a < span.end and b > span.start]
    return " ".join(said) or text[span.start : span.end]


_HEADING_NUMBER = re.compile(r"\d+(?:\.\d+)+\.?|\d+\.")


def _present(read: Callable[P, T], empty: T) -> Callable[P, T]:
    """``read`` (a document's text or chunks) as an answer reads it: a document deleted
    while the question is read (``NotFound``) reads as ``empty``, so the answer is given
    from the passages already read, not failed."""

    def reading(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return read(*args, **kwargs)
        except NotFound:
            return empty

    return reading


def _as_written(question: str, missing: Sequence[str]) -> tuple[str, ...]:
    """The names ``missing`` as ``question`` writes them, for its refusal to say
    (``Asked.said``): the two hops are checked name by name, the refusal says the phrase."""
    return asked(question).said(missing)


def _only_headings(q: Quote) -> bool:
    section = q.read.hit.chunk.section
    lines = [line for line in q.text.split("\n") if line.strip()]
    return bool(lines) and not q.row and all(heading(line, section) for line in lines)


def fresh_first(read: tuple[Read, ...], said: str, threshold: float) -> tuple[Read, ...]:
    """``read``, led instead by the best believed passage the reader itself scores higher
    when the lead's quote is one ``said`` (the previous answer) holds already
    (``extractive.already_said``): the cosine in the evidence score is partly to the
    previous question, so it favours the passage that answered it."""
    if not read or not already_said(read[0], said):
        return read
    lead = read[0].reading.score
    better = [r for r in read if r.score >= threshold and r.reading.score > lead]
    fresh = next((r for r in better if not already_said(r, said)), None)
    if fresh is None:
        return read
    return _led_by(fresh, read)


def _shown(q: Quote) -> tuple[str, ...]:
    """What a quote shows of its passage: the passage, the quote with its table header
    and the label its row is printed under (``quotes.group_of``), the section path and
    the document's title."""
    hit = q.read.hit
    header = q.header.text if q.header else ""
    group = q.group.text if q.group else ""
    return (hit.chunk.text, q.text, header, group, hit.chunk.section or "", hit.document_title)


def rag_off(question: str) -> AskResult:
    """The reply of a collection whose document search is turned off."""
    return AskResult(question, Answer(RAG_OFF_MESSAGE, (), (), ()), None, NO_RETRIEVAL, cite=False)


def split_deltas(text: str) -> list[str]:
    """The pieces an answer streams in: each word with the whitespace after it."""
    return _DELTA.findall(text) or [text]


def plain_text(answer: Answer) -> str:
    """The answer without its ``[N]`` markers."""
    return MARKER.sub("", answer.text).replace("  ", " ").strip()


def answer_events(a: Answer, cite: bool) -> Generator[Event, None, None]:
    """``Delta``…, ``Sources`` (when citing), ``Done`` for a finished answer."""
    text = a.text if cite else plain_text(a)
    for piece in split_deltas(text):
        yield Delta(piece)
    if cite:
        yield Sources(a.citations, a.referenced, a.spans, a.grounding)
    yield Done(text)


class Fold:
    """Events folded into an answer, as they come: the one place that knows how a stream
    of events makes an answer (``collect`` here, the chat service's stream in the API)."""

    def __init__(self) -> None:
        self.start = Started()
        self.notice: str | None = None
        self.parts: list[str] = []
        self.sources: Sources | None = None
        self.refusal: Refusal | None = None
        self.failed: Failed | None = None

    def feed(self, event: Event) -> None:
        match event:
            case Started():
                self.start = event
            case Notice(message=message):
                self.notice = message
            case Delta(text=text):
                self.parts.append(text)
            case Sources():
                self.sources = event
            case Refusal():
                self.refusal = event
            case Failed():
                self.failed = event

    @property
    def text(self) -> str:
        return "".join(self.parts)

    @property
    def cited(self) -> bool:
        return self.sources is not None and self.failed is None

    def answer(self) -> Answer:
        """The answer so far: its text, and its citations once ``Sources`` came (none for
        an answer that broke off)."""
        s = self.sources if self.cited else None
        if s is None:
            return Answer(self.text, (), (), ())
        return Answer(self.text, s.citations, s.referenced_indices, s.spans, s.grounding)


def collect(p: Prepared, events: Iterable[Event]) -> AskResult:
    """Gather a prepared question's events into one ``AskResult`` (the JSON answer)."""
    fold = Fold()
    for event in events:
        fold.feed(event)
        if isinstance(event, (Refusal, Failed)):
            break
    warning = fold.start.warning or p.warning
    info = dict(fold.start.retrieval or p.info)
    if fold.refusal is not None:
        return AskResult(
            p.question,
            None,
            fold.refusal,
            p.retrieval,
            warning,
            cite=p.cite,
            info=info,
            read=p.read,
        )
    return AskResult(
        p.question,
        fold.answer(),
        None,
        p.retrieval,
        warning,
        cite=p.cite and fold.cited,
        notice=fold.notice,
        info=info,
        failed=fold.failed,
        read=p.read,
    )


def validate_question(question: str) -> str:
    text = question.strip()
    if not text:
        raise InvalidInput("The question is empty.", code="empty_question")
    if len(question) > MAX_QUESTION_CHARS:
        raise InvalidInput(
            f"The question is {len(question)} characters long; the limit is {MAX_QUESTION_CHARS}.",
            code="question_too_long",
        )
    return text
