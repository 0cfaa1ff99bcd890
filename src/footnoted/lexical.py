"""Words and sentences: the one lexical layer under retrieval, answering and ingest.

Words are lower-cased tokens with a light stemmer and English stop words; a bag is the
stemmed content words of a text. A sentence is what :func:`split_sentences` finds
(sentencex; a page break between blocks parts sentences, one inside a paragraph does
not); a chunk's sentences (:func:`chunk_sentences`) are those, narrowed past the
document's own ``[N]`` footnote markers at their edges: the sentences ingest stores a
vector for, the extractive answer quotes and grounding compares against.
:class:`QuestionTerms` weighs a question's words by how rare they are among the
retrieved candidates, to find the sentence that restates it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from pathlib import Path

from sentencex import segment

from .models import RetrievedChunk
from .pages import PAGE_BREAK

NUMBER_WORD = re.compile(  # a number written in words: "three", "a dozen", "half"
    r"\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|twenty"
    r"|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|dozen"
    r"|trillion|half|once|twice)\b"
)
GIVEN_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])")  # "1710", "1,710.5"
CELLS = " | "  # what joins a table row's cells in extracted text: each row is one block
EMPTY_CELL = "-"  # what a blank cell between others reads, so that each keeps its column
LABEL_WORDS = 12  # a longer block between a table's rows ends the table
MARKER = re.compile(r"\[(\d+(?:\s*[,\-–]\s*\d+)*)\]")
"""``[1]``, ``[1, 3]`` or ``[1-3]``; ``[1][3]`` is two matches. The only marker pattern."""
_BLOCK_PAGE_BREAK = re.compile(r"\n\f+")
# a heading's or a list item's number alone: "1.1.", "2.11", "A.", "(b)", "iv)"
_ENUMERATOR = re.compile(r"\(?(?:\d+(?:\.\d+)*|[A-Za-z]|[ivxlc]{1,5})[.)]?")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)


STOP_WORDS = Path(__file__).with_name("data") / "stop_words.txt"


@cache
def stop_words() -> frozenset[str]:
    """Words that never count as content (``data/stop_words.txt``, one per line)."""
    lines = STOP_WORDS.read_text(encoding="utf-8").splitlines()
    return frozenset(line for line in lines if line and not line.startswith("#"))


# what a question's adjective, unit or verb asks the measure of: "how deep" names a
# "depth" column, "the 423 gram chick" a "weight" one, "when did she die" a "date of death"
MEASURES = {
    "deep": "depth",
    "long": "length",
    "wide": "width",
    "high": "height",
    "tall": "height",
    "heavy": "weight",
    "weigh": "weight",
    "weighs": "weight",
    "weighed": "weight",
    "old": "age",
    "far": "distance",
    "fast": "speed",
    "big": "size",
    "large": "size",
    "gram": "weight",
    "grams": "weight",
    "kg": "weight",
    "kilograms": "weight",
    "pounds": "weight",
    "lb": "weight",
    "lbs": "weight",
    "ounces": "weight",
    "oz": "weight",
    "born": "birth",
    "die": "death",
    "died": "death",
    "dies": "death",
}


def measures(found: Sequence[str]) -> list[str]:
    """The measures the adjectives and units among ``found`` (``words``) ask about."""
    return [MEASURES[w] for w in found if w in MEASURES]


def words(text: str) -> list[str]:
    """Lower-cased word tokens (letters and digits; apostrophes kept inside words)."""
    if text.isascii():  # lower-casing ASCII maps character to character: one pass
        return _WORD.findall(text.lower())
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


# words tables abbreviate: "October" is "OCT" over a month's table, "median" its row "Med"
_ABBREVIATED = {
    "january": "jan", "february": "feb", "march": "mar", "april": "apr", "june": "jun",
    "july": "jul", "august": "aug", "september": "sep", "sept": "sep", "october": "oct",
    "november": "nov", "december": "dec", "maximum": "max", "minimum": "min",
    "average": "avg", "median": "med",
}  # fmt: skip


def abbreviated(words: Sequence[str]) -> list[str]:
    """``words`` and, after them, the abbreviation of each a table abbreviates ("october":
    "oct"): keyword search then finds a table headed "OCT" asked of October."""
    return [*words, *(_ABBREVIATED[w] for w in words if w in _ABBREVIATED)]


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A light, predictable English stemmer: possessives, plurals and common suffixes,
    and a final "e" that a suffix drops ("release", "released" and "releases" are one).

    Cached: the same words recur across every chunk a question retrieves.
    """
    w = word.lower()
    if w.endswith("'s"):
        w = w[:-2]
    for suffix, keep in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("edly", ""), ("ed", ""),
                         ("es", ""), ("s", ""), ("ly", "")):  # fmt: skip
        if w.endswith(suffix) and len(w) - len(suffix) >= 3 and not w.endswith("ss"):
            return w[: -len(suffix)] + keep
    return w[:-1] if w.endswith("e") and len(w) > 3 else w


def content_words(text: str) -> list[str]:
    """Words that carry meaning: no stop words, no single letters; in order, unique."""
    stops = stop_words()
    kept = (w for w in words(text) if w not in stops and (len(w) > 1 or w.isdigit()))
    return list(dict.fromkeys(kept))


def content_stems(text: str) -> set[str]:
    return {stem(w) for w in content_words(text)}


def line_end(text: str, at: int) -> int:
    """The offset of the end of the line of ``text`` that holds offset ``at``."""
    end = text.find("\n", at)
    return len(text) if end < 0 else end


def split_sentences(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentence offsets in ``text[start:end]``, whitespace trimmed, end exclusive. Blocks
    on different pages (``"\\n\\f"``) part sentences as blank lines do; a bare ``"\\f"``
    (a paragraph going on over a page break) does not. A piece that starts with a
    lower-case letter on the same line goes on with the sentence before: the splitter
    cut after an abbreviation or a title ("Lyon and Paris between 1621 and 1629.
    revolted…" is rare; "… question answering. arXiv preprint …" is not), and so does one
    right after a mark that starts a word ("any .log and .YYYYMMDD.gnucash files": a
    file's name, not a sentence's end; "?LAST") or a period after an initial ("non-U.S.
    airlines"). A number
    alone ("1.6.", "(b)") is no sentence: it goes on with what follows it on its line
    ("1.1. Version", '1.6. "Executable Form" means …')."""
    end = len(text) if end is None else end
    view = text[start:end]
    if PAGE_BREAK in view:  # same length, so offsets hold
        view = _BLOCK_PAGE_BREAK.sub(lambda m: "\n" * len(m[0]), view)
    spans: list[tuple[int, int]] = []
    cursor = 0
    for sentence in segment("en", view):
        found = view.find(sentence, cursor)
        s = cursor if found < 0 else found
        e = s + len(sentence)
        cursor = e
        while s < e and view[s].isspace():
            s += 1
        while e > s and view[e - 1].isspace():
            e -= 1
        if e <= s:
            continue
        if (
            spans
            and "\n" not in view[spans[-1][1] - start : s]
            and (
                view[s].islower()
                or (s == spans[-1][1] - start and _dot_started(view, s))
                or _ENUMERATOR.fullmatch(view[spans[-1][0] - start : spans[-1][1] - start])
            )
        ):
            spans[-1] = (spans[-1][0], start + e)
        else:
            spans.append((start + s, start + e))
    return spans


def _dot_started(view: str, at: int) -> bool:
    """Whether ``view`` was cut at ``at`` right after a mark that starts a word (".log
    and .YYYYMMDD.gnucash": a file's name, not a sentence's end; "the special name
    ?LAST") or a period after an initial ("non-U.S. airlines": an abbreviation's
    letters)."""
    if at < 1 or view[at - 1] not in ".?!":
        return False
    before = view[max(at - 3, 0) : at - 1]
    if not before or before[-1].isspace():
        return True  # ".log", "?LAST": the mark starts a word
    return view[at - 1] == "." and re.fullmatch(r"(?:^|[\W\d_])[^\W\d_]", before) is not None


Bag = frozenset[str]


@lru_cache(maxsize=8192)
def bag(text: str) -> Bag:
    """Stemmed content words of a text."""
    return frozenset(map(stem, content_words(text)))


def _without_edge_markers(text: str, start: int, end: int) -> tuple[int, int]:
    """Narrow a sentence past a document's own footnote markers at either edge.

    A quoted "... as the editor.[2]" would read as a citation of the answer's source 2;
    narrowed, the quote stays verbatim and ends at "editor.".
    """
    while (m := MARKER.match(text, start, end)) is not None:
        start = m.end()
        while start < end and text[start].isspace():
            start += 1
    while True:
        tail = next((m for m in MARKER.finditer(text, start, end) if m.end() == end), None)
        if tail is None:
            return start, end
        end = tail.start()
        while end > start and text[end - 1].isspace():
            end -= 1


@lru_cache(maxsize=4096)
def chunk_sentences(text: str) -> tuple[tuple[int, int, Bag], ...]:
    """Sentence offsets in a chunk's text (past edge footnote markers) with their words."""
    out = []
    for s, e in split_sentences(text):
        s, e = _without_edge_markers(text, s, e)
        if e > s:
            out.append((s, e, bag(text[s:e])))
    return tuple(out)


@lru_cache(maxsize=4096)
def chunk_bag(text: str) -> Bag:
    """Stemmed content words of a chunk's sentences (a document's own markers left out)."""
    return frozenset().union(*(words for _, _, words in chunk_sentences(text)))


# a table of contents' entry: a title, then its page ("3.5 Method of delivery 14",
# "Introduction ........ 7", "Item 1A. | Risk Factors | 6", "Preface iii")
_CONTENTS_ENTRY = re.compile(
    r"(?P<title>.*[^\W\d_][^.?!;:,=]*?[\w)\]’'\"])(?:\s*\.{2,}\s*|\s*\|\s*|\s+)"
    r"(?P<page>[1-9]\d{0,3}|[ivxlc]{1,7})"
)
CONTENTS_LINES = 3  # the fewest lines a table of contents shows


def contents_listing(text: str) -> bool:
    """Whether ``text`` is (part of) a table of contents: at least
    :data:`CONTENTS_LINES` lines, most of them a title and its page, the pages never
    going back. It points to where things are said; it says none of them."""
    lines = [line.strip().strip(PAGE_BREAK).strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    paged = sum(line[-1].isdigit() or line[-1] in "ivxlc" for line in lines)
    if paged < CONTENTS_LINES or 2 * paged <= len(lines):  # most lines do not end in a page
        return False
    pages: list[int] = []
    for line in lines:
        entry = _CONTENTS_ENTRY.fullmatch(line)
        if entry is None or any(c.strip().replace(",", "").isdigit()
                                for c in entry["title"].split("|")[1:]):  # fmt: skip
            continue
        page = entry["page"]
        pages.append(int(page) if page.isdigit() else 0)
    arabic = [n for n in pages if n]
    return 2 * len(pages) > len(lines) and len(pages) >= CONTENTS_LINES and arabic == sorted(arabic)


class QuestionTerms:
    """The question's content terms, weighted by rarity among the candidate chunks (their
    text and their document's title: a name most of them are about weighs little)."""

    def __init__(self, question: str, candidates: Sequence[RetrievedChunk]) -> None:
        self.terms = bag(question)
        bags = [chunk_bag(h.chunk.text) | _title_bag(h.document_title) for h in candidates]
        n = len(bags)
        self.idf = {
            t: math.log((n + 1) / (sum(1 for b in bags if t in b) + 0.5)) for t in self.terms
        }
        self.total = sum(self.idf.values()) or 1.0

    def weight(self, terms: Bag) -> float:
        """Share of the question's weight that ``terms`` cover, 0..1."""
        return sum(self.idf[t] for t in terms if t in self.idf) / self.total

    def cover(self, sentences: Iterable[Bag]) -> float:
        """The most of the question's weight one of ``sentences`` (their words) covers."""
        return max((self.weight(words & self.terms) for words in sentences), default=0.0)


@lru_cache(maxsize=4096)
def _title_bag(title: str) -> Bag:
    return bag(title)
