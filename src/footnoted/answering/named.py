"""Documents a text names by their titles: a two-hop question's bridge, a comparison's
sides.

A question about two things the collection has a document each on ("Were Scott
Derrickson and Ed Wood of the same nationality?", "Who is older, Annie Morton or Terry
Richardson?") is answered by quoting each document, whatever the reader makes of the
question: no single passage holds the answer, and a yes/no question has no span to find.
A passage that names another document ("... written by Lee Hazlewood") leads to that
document, the second hop of "Who wrote the song ... and died in 2007?".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import groupby

from ..lexical import chunk_sentences
from ..models import RetrievedChunk

MIN_TITLE = 4  # shorter titles are too ambiguous to count as named
MAX_BRIDGES = 2  # second-hop documents read at most
# a question asking whether something holds: its first word is an auxiliary verb
YES_NO = re.compile(
    r"\s*(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should)\b",
    re.IGNORECASE,
)
_EITHER = re.compile(r"\bor\b", re.IGNORECASE)
# two years or seasons that share the words after them: "the 2010–11 and 2012–13 VCU
# Rams men's basketball teams" names "2010–11 VCU Rams men's basketball team" and
# "2012–13 VCU Rams men's basketball team"
_SEASON = r"(?:19|20)\d\d(?:[-\u2013/](?:\d\d){1,2})?"
_SHARED_HEAD = re.compile(rf"\b({_SEASON}),? (?:and|or) (?:the )?({_SEASON}) ")
MAX_SHARED = 8  # words a shared head runs to, its plural noun included
# a person titled with their style: "Pope John XXIII" is named "John XXIII" as well
_STYLE = re.compile(
    r"(?:pope|king|queen|emperor|empress|saint|st\.|sir|prince|princess|president) "
)
_COMPANY = re.compile(r"(?:inc|llc|ltd|corp|co|plc|l\.?p|n\.?v|s\.?a|ag|gmbh|limited)\.?")
# hyphens and dashes, each read as "-": a title's "Italo-Ethiopian" is printed "Italo–Ethiopian"
_DASHES = str.maketrans("\u2010\u2011\u2012\u2013\u2014\u2212", "------")


@dataclass(frozen=True, slots=True)
class Bridge:
    """A second-hop candidate and where the leading passage names it: the offsets of the
    sentence that does, in the leading passage's text (0, 0: only the question names it)."""

    hit: RetrievedChunk
    start: int
    end: int


def bridge_candidates(
    question: str, lead: RetrievedChunk, candidates: Sequence[RetrievedChunk], read: set[str]
) -> list[Bridge]:
    """Candidates from other documents that the leading passage or the question names by
    title, in the candidates' order, one chunk of each: a two-hop question's second
    passage, often ranked low (of HotpotQA dev's, "Adriana Trigiani" 24th, "Lee
    Hazlewood" below the 30th).
    One the leading passage names comes with the sentence that names it, even when it
    was read already (``read``: chunk ids), since read after that sentence it reads
    differently; one only the question names, only when unread. A document titled with
    the lead's own subject ("Warsaw (3)" for a passage of "Warsaw (5)") is no second
    hop."""
    # every candidate's title, the lead's own too: it may be the longer title around a
    # shorter one
    titles = [c.document_title for c in candidates]
    by_lead = named(titles, lead.chunk.text)
    by_question = {i for i in named(titles, question) if candidates[i].chunk.id not in read}
    own = _title_key(lead.document_title)
    bridges: dict[str, Bridge] = {}  # document id -> its first candidate named
    for i in sorted(by_lead | by_question):
        document = candidates[i].chunk.document_id
        if document in bridges or _title_key(titles[i]) == own:  # the lead's own subject
            continue
        start, end = naming_sentence(titles[i], lead.chunk.text) if i in by_lead else (0, 0)
        bridges[document] = Bridge(candidates[i], start, end)
        if len(bridges) == MAX_BRIDGES:
            break
    return list(bridges.values())


def naming_sentence(title: str, text: str) -> tuple[int, int]:
    """The offsets of the first sentence of ``text`` that names ``title`` (0, 0: none does
    on its own)."""
    for start, end, _ in chunk_sentences(text):
        if named([title], text[start:end]):
            return start, end
    return 0, 0


def comparison_sides(question: str, candidates: Sequence[RetrievedChunk]) -> list[RetrievedChunk]:
    """A comparison's sides, in the order the question names them: for a question that
    asks whether something holds ("Are ... ?") or which of two ("..., A or B?") and names
    two or more documents among the candidates by their titles, each named document's
    candidate chunk closest to the question; empty for any other question.

    Titles that name the same thing ("Ed Wood", "Ed Wood (film)") are one side, the
    document whose title is the name itself first."""
    if not (YES_NO.match(question) or _EITHER.search(question)):
        return []
    text = unfolded(question)
    sides: dict[str, RetrievedChunk] = {}
    for i in sorted(named([c.document_title for c in candidates], text)):
        hit = candidates[i]
        key = _title_key(hit.document_title)
        held = sides.get(key)
        if held is None or _better_side(hit, held):
            sides[key] = hit
    if len(sides) < 2:
        return []
    lower = text.lower()
    return [sides[key] for key in sorted(sides, key=lower.find)]


def unfolded(question: str) -> str:
    """The question as it reads with each pair of years or seasons that share a head
    written out whole, one name each, the head's plural noun made singular: "Did the
    2010–11 and 2012–13 VCU Rams men's basketball teams …?" then names both teams'
    documents, in that order. Any word ending in "s" within :data:`MAX_SHARED` words may
    be the plural that ends the head: one reading for each, joined."""
    readings: list[str] = []
    for pair in _SHARED_HEAD.finditer(question):
        words = question[pair.end() :].split()
        for k, word in enumerate(words[:MAX_SHARED]):
            noun = word.rstrip("?!.,;:")
            if len(noun) > 3 and noun.endswith("s"):
                head = " ".join([*words[:k], noun[:-1]])
                both = f"{pair[1]} {head} and {pair[2]} {head}"
                readings.append(" ".join([question[: pair.start()] + both, *words[k + 1 :]]))
    return " | ".join(readings) or question


def _better_side(hit: RetrievedChunk, held: RetrievedChunk) -> bool:
    """``hit`` is a better side than ``held``: a document titled with the name itself
    over one with more in brackets after it, then the chunk closer to the question."""
    plain, was_plain = " (" not in hit.document_title, " (" not in held.document_title
    return plain > was_plain or (plain == was_plain and hit.score > held.score)


def _title_key(title: str) -> str:
    return title.split(" (")[0].strip().lower()


@lru_cache(maxsize=8192)  # every answer asks it of each candidate's title, several times
def _keys(title: str) -> tuple[str, ...]:
    """What names a document by its title: the title (less a bracketed qualifier), a
    place's name before the region that qualifies it ("Santa Monica" of "Santa Monica,
    California", as an encyclopedia titles places), and a person's name after their
    style ("John XXIII" of "Pope John XXIII"); a short name of one word names nothing.
    Any dash is read as "-"."""
    key = _title_key(title.translate(_DASHES))
    place, _, region = key.partition(", ")
    if not region or _COMPANY.fullmatch(region):
        place = ""  # "Lyft, Inc." is a company's name whole
    styled = _STYLE.sub("", key, count=1) if _STYLE.match(key) else ""
    whole = (key,) if len(key) >= MIN_TITLE else ()
    return whole + tuple(name for name in (place, styled) if " " in name)


@lru_cache(maxsize=4096)
def _title_pattern(key: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(key)}(?!\w)")  # keys may end in "'" or ")"


def named(titles: Sequence[str], text: str) -> set[int]:
    """Indices of the ``titles`` that ``text`` names.

    A title counts only where no longer title is named around it: "These Boots Are Made
    for Walkin'" names that song, not "Boots (EP)" too. A capitalised title counts only
    where the text capitalises it: "science fantasy series" does not name the magazine
    "Science Fantasy". Any dash matches any other ("the First Italo–Ethiopian War" names
    "First Italo-Ethiopian War")."""
    text = text.translate(_DASHES)
    lower = text.lower()
    aligned = len(lower) == len(text)  # lower-casing kept every position
    spans: dict[str, list[tuple[int, int]]] = {}  # title key -> where the text names it
    found: list[tuple[int, int, int]] = []  # start, end, title index
    for i, title in enumerate(titles):
        for key in _keys(title):
            if key not in lower:
                continue
            if key not in spans:
                capital = aligned and title[:1].isupper()
                spans[key] = [
                    m.span()
                    for m in _title_pattern(key).finditer(lower)
                    if not (capital and text[m.start()].islower())
                ]
            found += [(start, end, i) for start, end in spans[key]]
    # by start, longest first: a span lies inside a longer one exactly when an earlier,
    # different span reaches as far as it does
    found.sort(key=lambda f: (f[0], -f[1]))
    out: set[int] = set()
    reach = -1
    for (_, end), group in groupby(found, key=lambda f: (f[0], f[1])):
        if reach < end:
            out.update(i for _, _, i in group)
        reach = max(reach, end)
    return out
