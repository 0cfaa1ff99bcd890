"""How a passage is quoted: what a reader of the document needs to take the quote as it
is meant, and nothing of the page furniture around it.

The quote starts from the sentences the reader's span touches (``extractive.quote``), then:

- **a table row** is quoted whole, with the header row of its table (the years, units
  or column names its cells need), however far above the row the header is printed; it
  is shown as a small table (:meth:`Quote.render`), under it the unit its amounts are
  printed in where the document says it apart from the header ("(Dollars in
  millions)" set above the header, "(in thousands)" closing the caption); the label a
  row is printed under among its table's rows ("ChatGPT" over its methods' rows), where
  the question names it, is shown over the row and is evidence of what the row is about
  (``group_of``);
- **a lead-in** (a sentence ending in a colon) brings what it introduces: its list, its
  command, the first term of a list of terms with what it means, or the sentence after
  it, read on past the passage when the passage (or the list in it) ends first; a list
  longer than a quote takes is shown with a line "…" after it (:data:`MORE`), since the
  document lists more;
- **the heading above** a quote is shown before it where it holds what the question asks
  and the quote does not: the release asked which version, a number asked, the section
  asked which section ("Applications/Amateur Radio: Anything relating to HAM radio.");
- **a sentence that opens with a pronoun** ("This", "These", "It", "The above", …) brings
  the sentence before it, which says what the pronoun stands for; so does one that says
  "also" in its first words ("Revenue in 2021 also benefited from …"): it adds to what
  that sentence says; and one that speaks of "these" or "those" things anywhere ("The
  update-passwd tool keeps the entries in these master files in sync") that the
  sentence before names ("The Debian base-passwd package contains the master versions
  …");
- **the side asked**: where the question names one side of a pair (the petitioner, not
  the respondent; the employer, not the employee) and the sentence names only the
  other, the passage's sentence naming the side asked is quoted instead (``sides``);
- **headings, captions and running labels** are not quoted as an answer: a quote that is
  only such lines gives way to the first sentence under them, and bullets are left off;
- **the exact answer** is marked only where it is a value (a number, a date, a name, a
  table cell; the cell of the year the question asks for): not a phrase of a definition.

Offsets are the document's (a quote may run past its passage); ``Context`` reads a piece
of a document's text from the store.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..lexical import (
    CELLS,
    EMPTY_CELL,
    GIVEN_NUMBER,
    LABEL_WORDS,
    NUMBER_WORD,
    Bag,
    bag,
    chunk_sentences,
    line_end,
    measures,
    stem,
    stop_words,
    words,
)
from ..loaders.blocks import CURRENCY, table_headers
from ..loaders.captions import CAPTION
from ..models import SECTION_JOIN
from ..pages import PAGE_BREAK
from .asked import YEAR, Asked, asked, asks_version, counts, holds_number
from .evidence import Read
from .sides import side_sentence

Context = Callable[[str, int, int], str]  # (document id, start, end) -> that piece of its text

HEADER_WINDOW = 6000  # characters read above a row for its table's header
FOLLOW_WINDOW = 1500  # characters read after a lead-in for what it introduces
UNIT_WINDOW = 300  # characters read above a table's header row for its amounts' unit
UNIT_GAP = 200  # the most a unit's line may be above its header (a caption's rest)
FOLLOW_CHARS = 700  # the most a lead-in brings
FOLLOW_ITEMS = 8
MORE = "…"  # a line after a list the quote cuts short: the document lists more
ITEM_CHARS = 200  # the longest unmarked list item
TERM_WORDS = 4  # the most words of a term on a line of its own, over what it means
MEANING_WORDS = 5  # the fewest words of what a term on a line of its own means
WIDE_ROW = 6  # a row of more columns is shown as its label and the cell asked for
MAX_NAMED_CELLS = 2  # and at most this many more cells the question names
HEADING_WORDS = 14  # a line without an end stop and no longer than this may be a heading
_HOW = re.compile(r"\s*(?:To do (?:this|so|that)|This is done|Doing (?:this|so))\b")
# the next sentence says how to do what the quote says can be done: it is the answer
_SENTENCE_ENDS = (".", "!", "?", ":", ";", '"', "”", "’", ")")  # how a sentence may end
_WHY = re.compile(
    r"\bwhy\b|\bfor what reason\b|\bhow come\b|\bwhat(?:'s| is| was) the (?:reason|rationale)\b",
    re.IGNORECASE,
)
_REASON = re.compile(  # a sentence that gives a reason
    r"\b(?:because|since|due to|owing to|so that|in order to|as a result|reasons?|advantages?"
    r"|benefits?|thus|therefore|hence|that's why|which is why|this is why|so as to|causes?"
    r"|caused|leads? to|results? in|(?:this|that) is (?:intended |meant |done )?to"
    r"|(?:measure|precaution|safeguard)s?"  # "This is a security measure to keep …"
    r"|to (?:avoid|prevent|guard against|protect against|keep \w+ from|stop))\b",
    re.IGNORECASE,
)
# a sentence announcing the reason the next one gives: "There is a more important reason
# to …", "There are two reasons for this."
_ANNOUNCES_REASON = re.compile(
    r"there (?:is|are|was|were) (?!no\b|not\b|little\b)(?:\w+ ){0,3}reasons?\b"
    r"(?![^.:!?]*\b(?:because|since)\b)[^.:!?]*[.:]",
    re.IGNORECASE,
)
_EXPLAINS = re.compile(r"(?:This|That|It) is (?:because|so|done|meant|intended|needed|a|an)\b")
# "(This …", and "The above four functions …" after the list of them
_PRONOUN = re.compile(
    r"\(?(?:This|These|That|Those|It|They|Such|Its|Their)\b|The above(?![\w-])"
)  # not "The above-ground pool …"
# "these" or "those" before a noun, anywhere in a sentence, points back as an opening
# pronoun does ("The update-passwd tool keeps the entries in these master files in
# sync") where the sentence before names the things ("… contains the master versions
# of /etc/passwd"); not "those who", "these are", "these include" (a list's own lead)
_DEMONSTRATIVE = re.compile(
    r"\b(?:[Tt]hese|[Tt]hose)\s+(?!(?:are|were|include[sd]?|of|in|which|who|whose|that)\b)[a-z]"
)
_DEMONSTRATED = 3  # the words after "these" that name the things, one of them said before
_PHRASE = re.compile(r"[^\n,.;:()]*")  # words up to a stop
# a sentence that opens by concluding from the one before
_CONCLUDES = re.compile(
    r"(?:Therefore|Thus|Hence|Consequently|Accordingly|As a result|For (?:this|that|these) "
    r"reasons?|So,|So\s(?!(?:far|much|many|long|as|that)\b)|That is why|That's why"
    r"|This is why|Which is why)\b"
)
_ALSO = re.compile(r"(?:[^\s.;:]+\s+){1,6}?also\b")  # "also" among a sentence's first words
# a bullet, a list's number or letter, or a footnote's mark ("** Core operating loss …")
_BULLET = re.compile(r"[•●▪◦‣∙·\-–]\s+|[*†‡§]{1,3}\s*(?=\w)|\(?[0-9a-zA-Z]{1,2}[.)]\s+(?=\S)")
_ITEM = re.compile(r"\s*(?:[•●▪◦‣∙·\-–*]|\(?[0-9a-zA-Z]{1,3}[.)]|[A-Z]\.)\s")
_NUMBERED_HEADING = re.compile(r"(?:\d+(?:\.\d+)*\.?|[A-Z]\.|Item \d+[A-Z]?\.?)\s+\S")
_NAMED = re.compile(r"\s\([A-Z][A-Za-z0-9&/-]{1,11}\)$")  # a title's abbreviation: "… (SBOM)"
# the parts of a paper, a report or a specification, titled by their usual names
_PART_NAME = re.compile(
    r"(?i)(?:abstract|summary|executive summary|introduction|background|overview|"
    r"conclusions?|references|bibliography|acknowledge?ments|(?:table of )?contents|"
    r"preface|foreword|glossary|keywords|appendix(?: [A-Z0-9]{1,3})?)[.:]?"
)
# the unit a table's amounts are printed in: "(Dollars in millions, except per share
# data)"; a caption's "… as a percentage of revenue:"
_UNIT = re.compile(
    r"\((?:[A-Za-z]+ )?in (?:thousands|millions|billions)\b[^()\n]{0,80}\)"
    r"|\bas an? (?:percentage|percent) of (?:total |net )?(?:revenues?|sales)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Piece:
    """A piece of a document's text: offsets into it (end exclusive), and the text."""

    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class Quote:
    read: Read
    body: Piece
    header: Piece | None = None  # a table row's header row
    exact: tuple[int, int] | None = None  # the exact answer: document offsets inside the body
    unit: Piece | None = None  # a table row's unit, printed apart from its header row
    columns: tuple[int, ...] = ()  # the columns shown of a wide row (``shown_columns``): all
    more: bool = False  # a list the quote introduces goes on past its last item quoted
    # the label a table row is printed under (``group_of``), where the question names it;
    # of a passage, the heading above it that holds what is asked: the release asked for,
    # a number, the section asked for (``_heading_above``)
    group: Piece | None = None

    @property
    def text(self) -> str:
        return self.body.text

    @property
    def row(self) -> bool:
        """A table row shown under its header row (a row whose header is not printed
        above it is quoted as it is)."""
        return self.header is not None

    def render(self) -> tuple[str, list[tuple[int, Piece]]]:
        """How the answer shows it, and where each quoted piece starts in that text: a
        table row as a small Markdown table under its header row, anything else as it
        is, after the heading it is printed under where that is shown ("officer 0.6.0: add
        RTF support")."""
        if not self.row:  # a list cut short says that it goes on
            label = f"{self.group.text}: " if self.group is not None else ""
            pieces = [(0, self.group)] if self.group is not None else []
            text = label + self.body.text + (f"\n{MORE}" if self.more else "")
            return text, [*pieces, (len(label), self.body)]
        assert self.header is not None
        width = max(_width(self.header), _width(self.body))
        shift = column_offset(self.body.text, self.header.text)
        out, pieces = "", []
        if self.columns:
            rows = [[_cell_pieces(p)[c] for c in self.columns] for p in (self.header, self.body)]
        else:
            rows = [_columns(self.header), _columns(self.body)]
        for piece, parts in zip((self.header, self.body), rows, strict=True):
            if self.columns:  # the columns shown of a wide row, each cell a piece
                out += "|"
                for part in parts:
                    out += " "
                    pieces.append((len(out), part))
                    out += f"{part.text} |"
                out += "\n"
                if piece is self.header:
                    out += "|" + " --- |" * len(parts) + "\n"
                    out = self._group_row(out, pieces, len(parts))
                continue
            missing = width - _width(piece)  # empty cells: before it as ``shift`` says
            before = max(shift, 0) if piece is self.header else max(-shift, 0)
            out += "| " + "| " * before
            trail = " |" * (missing - before)
            for i, part in enumerate(parts):
                out += " " if i else ""
                pieces.append((len(out), part))
                out += part.text
            out += f" |{trail}\n"
            if piece is self.header:
                out += "| " + " | ".join(["---"] * width) + " |\n"
                out = self._group_row(out, pieces, width)
        if self.unit is not None:  # a line of its own under the table, as a note
            out += "\n"
            pieces.append((len(out), self.unit))
            out += self.unit.text
        return out.rstrip("\n"), pieces

    def _group_row(self, out: str, pieces: list[tuple[int, Piece]], width: int) -> str:
        """``out`` with the label the row is printed under as a row of its own, its other
        cells empty ("| ChatGPT | | |" over "| SNIPPET (10-psg) | 24.5 | 44.0 |")."""
        if self.group is None:
            return out
        out += "| "
        pieces.append((len(out), self.group))
        return out + f"{self.group.text} |" + " |" * (width - 1) + "\n"


def _cell_pieces(piece: Piece) -> list[Piece]:
    """The row's cells as verbatim pieces without their spaces, a currency sign set in
    a cell of its own left out (it takes no column)."""
    cells = [Piece(a, b, piece.text[a - piece.start : b - piece.start]) for a, b in _cells(piece)]
    return [cell for cell in cells if cell.text not in CURRENCY]


def _width(piece: Piece) -> int:
    """The row's columns: its cells less currency signs set in cells of their own."""
    return sum(cell.strip() not in CURRENCY for cell in piece.text.split(CELLS))


def _columns(piece: Piece) -> list[Piece]:
    """The row as pieces that each show whole columns: a currency sign set in a cell of
    its own is shown with the amount after it ("$ 92.9"), so the row has as many columns
    as its header; verbatim pieces of the document, in order."""
    parts, start, at = [], piece.start, 0
    for cell in piece.text.split(CELLS)[:-1]:
        at += len(cell)
        if cell.strip() in CURRENCY:
            parts.append(Piece(start, piece.start + at, piece.text[start - piece.start : at]))
            start = piece.start + at + len(CELLS)
        at += len(CELLS)
    parts.append(Piece(start, piece.end, piece.text[start - piece.start :]))
    return parts


def _labelled(row: str) -> bool:
    """Does the row start with a label (words, not an amount) that cells follow?"""
    first, cells, _ = row.partition(CELLS)
    return bool(cells) and not _NO_WORDS.fullmatch(first)


def column_offset(row: str, header: str) -> int:
    """How far right of its header cell a row's cell is: a row with fewer cells than its
    header, both starting with a label, lines up from the first cell (its missing cells
    are its last: a PDF prints no empty cell); a header of years over a labelled row
    with more amounts than years sits over its first amounts ("2021 | 2020 | 2019 |
    Change" over "Revenue | 3,208,323 | 2,364,681 | 3,615,960 | 36 % | (35) %": the
    changes come after the years); otherwise they line up at their last cells (a row's
    label has no header cell above it; a row of amounts, or a header of column groups,
    sits over the last columns)."""
    shift = _width(Piece(0, len(row), row)) - _width(Piece(0, len(header), header))
    if shift < 0 and _labelled(row) and _labelled(header):
        return 0
    if shift > 1 and _labelled(row) and YEAR.fullmatch(header.split(CELLS)[0].strip()):
        return 1  # years over a labelled row's first amounts; changes after them
    return shift


def value_at(row: str, header: str, index: int) -> int | None:
    """Which of the row's cells sits under the header's cell ``index`` (``column_offset``
    lines them up; it may be past the row's last cell); None where it would be before
    the row's first cell, or the row's label under a header that has no label cell. A
    currency sign set in a cell of its own ("Adjusted EBITDA | $ | 92.9 | $ | (755.2)")
    belongs to the amount after it: it takes no column. None too where a labelled row
    has more values than a header without a label has cells: a header cell spans two
    of them, at its start or its end ("2021 | 2020 | 2019 | Change" over two changes),
    and which is not known."""
    shift = column_offset(row, header)
    at = index + shift
    labels = _labelled(row) and not _labelled(header)
    if at < 0 or (at == 0 and labels) or (labels and shift > 1):
        return None
    cells = row.split(CELLS)
    columns = [i for i, cell in enumerate(cells) if cell.strip() not in CURRENCY]
    return columns[at] if at < len(columns) else len(cells) + at - len(columns)


def asked_terms(question: str) -> frozenset[str]:
    """What names a column in the question: its words (``bag``), the measures its
    adjectives and units ask about ("How tall": "height"; ``lexical.measures``), its
    abbreviations ("P/E", "EPS", "R&D"), as ``column_terms`` writes a name's initials, and
    a letter it writes alone ("the hue (h)"), as ``column_terms`` writes a one-letter name."""
    acronyms = _ACRONYM.findall(question)
    asked = bag(question) | bag(" ".join(measures(words(question))))
    letters = {"§" + letter.lower() for letter in _LETTER_ALONE.findall(question)}
    return asked | letters | {"§" + re.sub("[/&]", "", a).lower() for a in acronyms}


def column_terms(name: str) -> frozenset[str]:
    """A column name's words, its words run together apart ("lifeExp": "life", "exp"),
    its initials ("Price/Earnings": "§pe", "Earnings per share": "§eps") and a name of one
    letter ("h": "§h"), so that a question's abbreviation names it."""
    name = _CAMEL.sub(" ", name)
    words = [w for w in re.findall(r"[^\W\d_]+", name) if w.lower() not in _LINKS]
    initials = {"§" + "".join(w[0] for w in words).lower()} if len(words) > 1 else set()
    letter = {"§" + name.strip().lower()} if len(name.strip()) == 1 else set()
    return bag(name) | initials | letter


def column_named(terms: frozenset[str], name: str) -> int:
    """How many of the question's ``terms`` name the column ``name``: its words and
    initials (``column_terms``), and the words it prints cut short with a period that a
    term begins, as ``abbreviates`` cuts a word short ("Citation Rec." is named by
    "citation recall", "Citation Prec." by one word less; not a company's "Inc." nor a
    month's "Dec.": ``_NOT_CUT``)."""
    found = terms & column_terms(name)
    rest = sorted(terms - found)
    count = len(found)
    for cut in sorted({c.lower() for c in _CUT_SHORT.findall(name)} - _NOT_CUT):
        if bag(cut) & found:
            continue  # the word itself names it
        term = next((t for t in rest if t.startswith(cut) and len(t) >= len(cut) + 3), None)
        if term is not None:  # each word of the question names one cut word at most
            rest.remove(term)
            count += 1
    return count


def stands_for(letter: str, term: str) -> bool:
    """Whether a column named by one letter may stand for the question's ``term`` (a
    stem): a word of three letters or more it begins, not a function word ("g": "green",
    "h": "hue")."""
    letter = letter.strip().lower()
    return (
        len(letter) == 1
        and term.isalpha()
        and len(term) >= 3
        and term[0] == letter
        and term not in stop_words()
    )


def lettered(names: Sequence[str], terms: frozenset[str], strict: bool = False) -> list[int] | None:
    """In a header mostly of one-letter names (three or more, at least half of its
    columns: "Name | r | g | b | h | s | l", not "Country | n | mean | sd | p"), whether
    a term of ``terms`` stands for each name (1, else 0; ``stands_for``: "green" for
    "g"); None for any other header. ``strict``, for the one cell marked as the answer:
    not where a longer name begins with the same letter, which may be the word cut
    short ("points" may be a league table's "Pts", not its "P" for played)."""
    if sum(len(n.strip()) == 1 for n in names) < max(3, len(names) / 2):
        return None
    longer = {n.strip()[0].lower() for n in names if len(n.strip()) > 1} if strict else set()
    return [int(any(stands_for(n, t) and t[0] not in longer for t in terms)) for n in names]


def abbreviates(name: str, word: str) -> bool:
    """Whether a column's short name (one word of at most ``SHORT_NAME`` letters) is the
    question's ``word`` cut short: its start ("carb": "carburetors", "mag": "magnitude")
    or, for a name of up to three letters, its letters in order from its first ("hp":
    "horsepower", "mpg": "miles per gallon" written "mileage" is not); never a function
    word ("what's" cuts "wt" short no more than "weight" does)."""
    name, word = name.strip().lower(), word.lower()
    if not name.isalpha() or len(name) > SHORT_NAME or len(word) < len(name) + 3:
        return False
    if re.split(r"['’]", word)[0] in stop_words():
        return False
    if len(name) >= 3 and word.startswith(name):
        return True
    if len(name) > 3 or name[0] != word[0]:
        return False
    at = 0
    for letter in name[1:]:
        at = word.find(letter, at + 1)
        if at < 0:
            return False
    return True


def quote(read: Read, context: Context | None = None, question: str = "") -> Quote:
    """The passage's quote: see the module."""
    chunk = read.hit.chunk
    text, base = chunk.text, chunk.char_start
    span = read.reading
    line = (text.rfind("\n", 0, span.start) + 1, line_end(text, span.start))
    asked = line if read.named else _asked_row(text, question, line, chunk.header, chunk.section)
    if asked is not None:
        return _row(read, *asked, context, question)
    start, end = _sentences(text, span.start, span.end)
    start, end = side_sentence(question, text, start, end) or (start, end)
    start, end = _naming_sentence(question, text, start, end, chunk.section) or (start, end)
    start, end = _past_headings(text, start, end, chunk.section)
    start = _past_bullet(text, start, end)
    start = with_antecedent(text, start, end, chunk.section)
    start = _from_reason(text, start, question, chunk.section)
    start, end = _with_reason(text, start, end, question, chunk.section)
    end = _with_replacement(text, start, end)
    end = _with_number(text, start, end, question)
    body = Piece(base + start, base + end, text[start:end])
    more = False
    if _leads_in(body.text) or _HOW.match(text, end):
        body, more = _introduced(read, body, context)
    exact = None
    counted = words(text[span.end : span.end + 40])[:1]
    if _is_value(text[span.start : span.end], question, counted) and start <= span.start < end:
        exact = (base + span.start, base + min(span.end, end))
    above = _heading_above(text, base, start, end, question, chunk.section)
    above = above or _release_above(read, start, end, question, context)
    return Quote(read, body, exact=exact, more=more, group=above)


def _naming_sentence(
    question: str, text: str, start: int, end: int, section: str | None
) -> tuple[int, int] | None:
    """Asked for a number, the next sentence of the paragraph to quote instead of a quote
    with one that names other things and none of what the question names (nor do the
    sentences before it in its paragraph, nor its section), where that sentence names it
    all with a number ("Mac designers … use the origin 1904-01-01, while in MS Windows
    Excel dates begin at 1900-01-01." asked SPSS's origin date, followed by "The program
    SPSS uses integers for dates as well, but the origin for SPSS is 1582-10-14"); None
    otherwise."""
    wanted = asked(question)
    if not (wanted.names or wanted.items) or not counts(question):
        return None
    if not holds_number(text[start:end]):
        return None
    if not set(asked(text[start:end]).names) - set(wanted.names):
        return None  # a quote naming nothing else is about what is asked ("In total there
        # are 352 votes" of the Council the paragraph is about)
    names = Asked(frozenset(), wanted.names, items=wanted.items)
    opened = text.rfind("\n\n", 0, start)
    before = text[0 if opened < 0 else opened : end]
    asked_names = {*wanted.names, *wanted.items}
    if set(names.missing((before, section or ""))) != asked_names:
        return None  # the quote, or what it goes on from, names some of it
    stop = text.find("\n\n", end)
    for s, e, _ in chunk_sentences(text[: len(text) if stop < 0 else stop]):
        if s >= end and holds_number(text[s:e], question):
            return (s, e) if not names.missing((text[s:e],)) else None
    return None


def _sentences(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentences the span touches (the span itself where it sits outside them)."""
    touched = [(s, e) for s, e, _ in chunk_sentences(text) if s < end and e > start]
    if not touched:
        return start, end
    return touched[0][0], touched[-1][1]


def heading(line: str, section: str | None) -> bool:
    """Whether a line is a heading, not a sentence: one of the passage's own section
    headings, a numbered heading ("3.3 Citation Quality", "Item 7.", "6.2 Minimum
    Elements for a Software Bill of Materials (SBOM)") or a table's or figure's caption
    ("Table 1: PaLM-540B prompting results on HotpotQA and Fever."), or a part of a
    paper or report by its usual name on a line of its own ("Abstract", "References");
    otherwise never a line that ends a sentence, nor a table row. A short line of data
    (a date, an address, a list item) is not a heading."""
    stripped = line.strip().strip(PAGE_BREAK).strip()
    if CAPTION.match(stripped) or _PART_NAME.fullmatch(stripped):
        return True  # a table's or a figure's caption names it, however long
    if not stripped or CELLS in stripped:
        return False
    plain = _plain(stripped)
    if section and any(plain == _plain(part) for part in section.split(SECTION_JOIN)):
        return True  # however it ends or runs: "Court leave (jury duty)", an FAQ's question
    if len(stripped.split()) > HEADING_WORDS:
        return False
    ended = stripped[-1] in ".?!;,\"”'’)" and not _NAMED.search(stripped)
    if ended and not _NUMBERED_HEADING.fullmatch(stripped.rstrip(".")):
        return False
    return bool(_NUMBERED_HEADING.match(stripped)) and stripped[-1] != ":"


def _plain(text: str) -> str:
    """A heading as compared: its numbering and case left out."""
    return re.sub(r"^(?:\d+(?:\.\d+)*\.?|[A-Z]\.)\s+", "", text).casefold().strip(" .:")


def _heading_above(
    text: str, base: int, start: int, end: int, question: str, section: str | None
) -> Piece | None:
    """The heading above the quote ``text[start:end]`` that holds what the question asks
    for and the quote does not: the release asked which version ("which officer version
    added RTF support?": "officer 0.6.0" over "add RTF support, see rtf_doc() and
    rtf_add()."), a number asked ("What pip version is needed to install pipx?": "On
    Linux, install via pip (requires pip 19.0 or later)" over "python3 -m pip install
    --user pipx"), its numbering aside; one of the passage's own section headings,
    printed in it above the quote; or, asked which section (category, chapter) says
    it, the heading right above the quote ("In the menu structure, which section is for
    anything relating to HAM radio?": "Applications/Amateur Radio" over "Anything
    relating to HAM radio."); else None."""
    version = asks_version(question)
    placed = _ASKS_HEADING.search(question) is not None
    if not version and not counts(question) and not placed:
        return None

    def holds(shown: str) -> bool:
        return bool(_VERSION_NUMBER.search(shown)) if version else holds_number(shown, question)

    if not placed and holds(text[start:end]):
        return None
    parts = {_plain(part) for part in (section or "").split(SECTION_JOIN)}
    for a, b in reversed(_lines_of(text, 0, start)):
        line = text[a:b].strip()
        if _plain(line) in parts and (placed or holds(_plain(line))):  # "3.5 Delivery" holds none
            return Piece(base + a, base + b, text[a:b])
    return None


def _release_above(
    read: Read, start: int, end: int, question: str, context: Context | None
) -> Piece | None:
    """Asked which version or release, the heading of the quote's section path, printed
    above its passage, that names the release where the quote names none: a changelog's
    "Noteworthy changes in release 8.26 (2016-11-30) [stable]" over "New programs" over
    "b2sum is added to support the BLAKE2 digest algorithm …", the passage holding only
    the last two; the nearest such heading, where the document prints it within
    ``RELEASE_REACH`` characters above the passage; else None. A release heading is a
    release's number after a name or "release"/"version", a date or a note in brackets
    after it at most ("readxl 1.4.0"; not "Chapter 4.2 Exporting", "Drop support for
    Python 3.7", "Q3 revenue up 2.5%"), and none is taken where the passage prints one
    naming its release above the quote itself (its path then lags behind it). Shown,
    not weighed: the pipeline asks the passage itself for a version."""
    chunk = read.hit.chunk
    if context is None or not asks_version(question) or not chunk.section:
        return None
    if _VERSION_NUMBER.search(chunk.text[start:end]):
        return None
    if any(_named_release(chunk.text[a:b]) for a, b in _lines_of(chunk.text, 0, start)):
        return None  # the passage's own release heading (a bare "v1.6.2" is a list's item)
    for part in reversed(chunk.section.split(SECTION_JOIN)):
        name = part.strip()
        if not _RELEASE_HEADING.fullmatch(_plain(name)):
            continue  # no release, or only a section's number: "6.1 The mstate package"
        reach = max(chunk.char_start - RELEASE_REACH, 0)
        at = _printed(chunk.document_id, chunk.char_start, name, context, reach)
        return None if at is None else Piece(at, at + len(name), name)
    return None


def _named_release(line: str) -> bool:
    """Whether a line is a release's heading that names what is released or says
    "release" ("readxl 1.4.0", "Noteworthy changes in release 8.26"), not a bare number."""
    plain = _plain(line)
    return bool(_RELEASE_HEADING.fullmatch(plain)) and re.search(r"[^\W\d_]{2}", plain) is not None


RELEASE_REACH = 20_000  # characters read above a passage for the release it is under
# a release's heading: "readxl 1.4.0", "Noteworthy changes in release 8.26 (2016-11-30)
# [stable]", "Version 2.1", "v1.5.0 - 2021-03-02" (a date or a note after it at most)
_RELEASE_HEADING = re.compile(
    r"(?:(?:[\w ]*\b(?:release|version)|(?!(?:chapter|section|part|appendix|table|figure|"
    r"step|item|sprint|page|volume|issue|note|rule|article)\b)[\w+.-]+)\s+)?"
    r"v?\d+(?:\.\d+){1,3}(?:\s*(?:[-–—:]\s*)?(?:[(\[][^()\[\]]*[)\]]\s*)*|\s*[-–—]\s*\d{4}-\d\d-\d\d)",
    re.IGNORECASE,
)


# a question answered by a heading: "which section is for …", "in what category …"
_ASKS_HEADING = re.compile(
    r"\b(?:which|what)\s+(?:[\w-]+\s+)?(?:section|subsection|category|subcategory|chapter)\b",
    re.I,
)
_VERSION_NUMBER = re.compile(r"(?<![\w.])v?\d+(?:\.\d+){1,3}(?!\w|\.\d)")  # "8.26." ends a sentence


def _past_headings(text: str, start: int, end: int, section: str | None) -> tuple[int, int]:
    """A quote made only of heading lines gives way to the first sentence after them
    (in the same passage); otherwise its heading lines at the start go, and those at the
    end set apart as a paragraph of their own (a line of output run on into the next
    section's heading: "0.050540" over "Two-way clustered standard errors"; not "1
    January 2024" ending "… takes effect on")."""
    lines = _lines_of(text, start, end)
    body = [(a, b) for a, b in lines if not heading(text[a:b], section)]
    if body:
        last = body[-1][1]
        after = [a for a, _ in lines if a > last]  # heading lines after the last of the body
        apart = bool(after) and "\n\n" in text[last : after[0]]  # a paragraph of its own
        return max(start, body[0][0]), last if apart else end
    for s, e, _ in chunk_sentences(text):
        rest = [(a, b) for a, b in _lines_of(text, s, e) if not heading(text[a:b], section)]
        if s >= end and rest:
            return rest[0][0], e
    return start, end


def _lines_of(text: str, start: int, end: int) -> list[tuple[int, int]]:
    return [(start + m.start(), start + m.end()) for m in re.finditer(r"[^\n]+", text[start:end])]


def _past_bullet(text: str, start: int, end: int) -> int:
    found = _BULLET.match(text, start, end)
    return found.end() if found and found.end() < end else start


def with_antecedent(text: str, start: int, end: int, section: str | None) -> int:
    """Where the quote of ``text[start:end]`` starts: at the sentence before it when it
    opens with a pronoun, says "also" in its first words, or speaks in its first sentence
    of "these" or "those" things that sentence names (``_antecedent``)."""
    if _PRONOUN.match(text, start) or _ALSO.match(text, start, end):
        return _antecedent(text, start, section)
    first = next((e for s, e, _ in chunk_sentences(text) if e > start), end)
    pointing = _DEMONSTRATIVE.search(text, start, min(first, end))
    if pointing is None:
        return start
    before = _antecedent(text, start, section)
    return before if _demonstrated(text[pointing.end() - 1 :]) & bag(text[before:start]) else start


def _demonstrated(after: str) -> Bag:
    """The things "these" or "those" points back to, in the words ``after`` it: up to
    :data:`_DEMONSTRATED` words before a stop word or a stop ("master files" of "these
    master files in sync", "items" of "these items, operating income …")."""
    phrase = _PHRASE.match(after)
    named: list[str] = []
    for word in words(phrase.group() if phrase else ""):
        if word in stop_words() or len(named) == _DEMONSTRATED:
            break
        named.append(word)
    return bag(" ".join(named))


# a section that gives the reasons for what precedes it, as standards write one
_RATIONALE = re.compile(r"(?:rationale|reasons?|motivation|why\b.*)[.:]?", re.IGNORECASE)


def asks_why(question: str) -> bool:
    """Whether ``question`` asks why ("Why …", "For what reason …", "How come …")."""
    return _WHY.search(question) is not None


def gives_reason(q: Quote) -> bool:
    """Whether ``q`` gives a reason ("because", "due to", "to avoid", "Therefore" …)."""
    return _REASON.search(q.text) is not None


def rationale(r: Read) -> bool:
    """Whether ``r``'s passage is under a heading naming it a rationale ("Rationale",
    "Reasons"): a standard's reasons for what it requires."""
    section = (r.hit.chunk.section or "").split(SECTION_JOIN)[-1].strip()
    return _RATIONALE.fullmatch(section) is not None


def _with_reason(
    text: str, start: int, end: int, question: str, section: str | None
) -> tuple[int, int]:
    """Where the quote of ``text[start:end]`` starts and ends: for a question asking why,
    through the answer to the passage's own "Why?" right after it (``posed_reason``); to
    the end of the next sentence of its paragraph where that one opens by explaining
    it ("This is a security measure to keep …"); where the quote gives no reason, to
    the end of one of the next two sentences of the
    passage that gives one ("We divide the corpus into 100-word passages following
    previous works. … Taking short 100-word passages has several advantages: (1) It is
    easier for humans to verify"), else from the sentence before where that gives one
    ("To avoid denial-of-service attacks …, the length of a pattern is limited to …
    bytes. The default value of this limit is 50000.")."""
    if not _WHY.search(question):
        return start, end
    posed = posed_reason(text, end)
    if posed is not None:
        return start, posed  # "… it really is not an expense. Why? A credit card account
        # is a short-term loan …": the document asks why itself, and answers
    after = _next_in_paragraph(text, end)
    if after is not None and _EXPLAINS.match(text, after[0]) and _REASON.search(text, *after):
        return start, after[1]  # "… reply in order to finish subscribing. This is a
        # security measure to keep people from subscribing others …": why, said next
    announced = _ANNOUNCES_REASON.fullmatch(text[start:end].strip())
    if announced and after is not None and not heading(text[after[0] : after[1]], section):
        return start, after[1]  # "There is a more important reason to enumerate all of the
        # legal values …. If a value is omitted from the key, that value will be omitted"
    if _REASON.search(text, start, end):
        return start, end
    following = [(s, e) for s, e, _ in chunk_sentences(text) if s >= end][:2]
    for s, e in following:
        if heading(text[s:e].strip(), section):
            break
        if _REASON.search(text, s, e):
            return start, e
    before = _antecedent(text, start, section)
    return (before if _REASON.search(text, before, start) else start), end


def _with_number(text: str, start: int, end: int, question: str) -> int:
    """Where the quote of ``text[start:end]`` ends: asked for a number it does not hold,
    at the end of the next sentence of its paragraph where that one holds it and opens
    with the name, written as code, the quote opens with ("datetime.MAXYEAR — The
    largest year number allowed in a date or datetime object. MAXYEAR is 9999."); any
    other sentence with a number would answer what was not asked ("Revenue in 2020 was
    also higher …" after "Revenue in 2021 also benefited …", asked how many drivers)."""
    if not counts(question) or holds_number(text[start:end], question):
        return end
    after = _next_in_paragraph(text, end)
    if after is None:
        return end
    following = text[after[0] : after[1]]
    subject = following.split()[0].strip(",:;") if following.split() else ""
    opening = text[start:end].split()[:5]  # "datetime.MAXYEAR" opens with "MAXYEAR" too
    # a name written as code ("MAXYEAR", "ASN1_MAX"), not a word a sentence may open with
    coded = bool(re.search(r"[A-Z\d_.]", subject[1:]))
    said = coded and any(w == subject or w.endswith(f".{subject}") for w in opening)
    if not said or not holds_number(following, question):
        return end  # only a sentence going on about what the quote opens with
    return after[1]


def _with_replacement(text: str, start: int, end: int) -> int:
    """Where the quote of ``text[start:end]`` ends: a sentence saying a thing is
    deprecated or removed goes on to the next where that one, in the same paragraph,
    says what to use instead ("function slip_in_footnote() is deprecated. Use
    run_footnote() instead.")."""
    if not _RETIRED.search(text, start, end):
        return end
    after = _next_in_paragraph(text, end)
    return end if after is None or not _REPLACED.match(text, *after) else after[1]


_POSED_WHY = re.compile(  # "Why?", "Why so?", "Why is that?", "And why is that?"
    r"(?:and |but )?why(?: so| (?:is|was|does|do) (?:that|this|it|so))?\?", re.I
)
_ANSWER_WORDS = 4  # the fewest words of the answer to the passage's own "Why?" ("Read on." is none)


def posed_reason(text: str, end: int) -> int | None:
    """Where the answer ends that the passage gives its own "Why?" asked right after
    ``end``: the end of the sentence after that question, in the same paragraph; None
    where the passage asks no such question there."""
    asked = _next_in_paragraph(text, end)
    if asked is None or not _POSED_WHY.fullmatch(text[asked[0] : asked[1]]):
        return None
    answer = _next_in_paragraph(text, asked[1])
    if answer is None or len(text[answer[0] : answer[1]].split()) < _ANSWER_WORDS:
        return None
    return answer[1]


def _next_in_paragraph(text: str, end: int) -> tuple[int, int] | None:
    """The sentence after ``end``, where it goes on in the same paragraph (None past
    the paragraph's end)."""
    after = next(((s, e) for s, e, _ in chunk_sentences(text) if s >= end), None)
    return None if after is None or "\n" in text[end : after[0]] else after


_RETIRED = re.compile(r"\b(?:deprecated|removed|obsolete|superseded|defunct|retired)\b", re.I)
_REPLACED = re.compile(r"(?:please\s+)?(?:use|prefer|call|switch to)\b|.*\binstead\b", re.I)


def _from_reason(text: str, start: int, question: str, section: str | None) -> int:
    """Where the quote starting at ``start`` starts, for a question asking why: at the
    sentence before where it opens by concluding ("Therefore, by default, they are
    excluded …"): its reason is the sentence before ("… prerelease versions frequently
    are updated very quickly …")."""
    if _WHY.search(question) and _CONCLUDES.match(text, start):
        return _antecedent(text, start, section)
    return start


def _antecedent(text: str, start: int, section: str | None) -> int:
    """The start of the sentence before ``start`` in the passage (``start`` if none, or
    if what comes before is not a sentence: a heading, a label, a salutation, which the
    pronoun does not stand for: "Miscellaneous" above "These Terms are governed …")."""
    before = [s for s, e, _ in chunk_sentences(text) if e <= start]
    if not before:
        return start
    previous = before[-1]
    said = text[previous:start].strip().strip(PAGE_BREAK).rstrip()
    if heading(said, section) or not said.endswith(_SENTENCE_ENDS):
        return start
    return previous


def _introduced(read: Read, body: Piece, context: Context | None) -> tuple[Piece, bool]:
    """A lead-in's quote with what it introduces: the list items (or command lines)
    after it, or else the next sentence (the one saying how, after a quote that says
    what can be done); read on past the passage where it ends first, or where the list
    runs to its end. Also whether the list goes on past what is quoted (more items than
    a quote takes)."""
    chunk = read.hit.chunk
    after = chunk.text[body.end - chunk.char_start :]
    leads_in = _leads_in(body.text)
    listed, more = _items(after) if leads_in else (0, False)
    # read on where the passage ends first: past its list, or past a term and its meaning
    # (whether more terms follow says whether it is a list of them)
    ends = not after.strip() or (listed and not after[listed:].strip())
    if context is not None and (ends or (leads_in and len(_lines_of(after, 0, len(after))) < 3)):
        further = context(chunk.document_id, body.end, body.end + FOLLOW_WINDOW)
        reread, further_more = _items(further) if leads_in else (0, False)
        if reread >= listed:  # the document's text reads on (it holds the passage's)
            after, listed, more = further, reread, further_more
    taken = listed or _next_sentence(after)
    if taken <= 0:
        return body, False
    return Piece(body.start, body.end + taken, body.text + after[:taken]), bool(listed) and more


def _leads_in(text: str) -> bool:
    """Whether a quote ends leading into what follows it: a colon, or examples' opening
    words left at the end of its line ("… population level queries such as")."""
    said = text.rstrip()
    return said.endswith(":") or _OPENS_EXAMPLES.search(said) is not None


# the words that open a list of examples: "such as", "e.g."
EXAMPLES_OPEN = r"such as|including|e\.g\.|for example|for instance"
_OPENS_EXAMPLES = re.compile(rf"\b(?:{EXAMPLES_OPEN})$", re.I)


def _items(after: str) -> tuple[int, bool]:
    """How much of ``after`` is the list (or the lines of code) a lead-in introduces:
    its marked items, or blocks shaped alike (a list whose markers the document's
    format dropped: one short sentence each, ending the same way), or else one block
    (a command, a paragraph); and whether the list goes on past that (cut at
    :data:`FOLLOW_ITEMS` items or :data:`FOLLOW_CHARS` characters)."""
    blocks = [(m.start(), m.end()) for m in re.finditer(r"[^\n]+", after)]
    taken, items, shape, marked = 0, 0, "", False
    for n, (a, b) in enumerate(blocks):
        block = after[a:b].strip(PAGE_BREAK + " ")
        if not block:
            continue
        if heading(block, None):
            break
        if b > FOLLOW_CHARS or items >= FOLLOW_ITEMS:
            goes_on = _ITEM.match(block) is not None if marked else _shape(block) == shape
            return taken, items > 0 and bool(shape or marked) and goes_on
        if _ITEM.match(block) and not shape:
            taken, items, marked = b, items + 1, True
            continue
        if marked or (items and _shape(block) != shape):
            break
        if items == 0:
            shape = _shape(block)
            if not shape:  # one block: a command, a paragraph; or a term and what it
                # means, its first entry ("The following terms are used: / ASCII / The
                # character encoding specified by ANSI X3.4-1986 …")
                return _defined(after, blocks[n:]) or b, False
        taken, items = b, items + 1
    return taken, False


def _defined(after: str, blocks: Sequence[tuple[int, int]]) -> int:
    """Where the first entry of a list of terms ends, where ``blocks`` start with one: a
    term of a few words on a line of its own, then a paragraph of sentences saying what
    it means, then the next term (a command over the paragraph after it is no list);
    else 0."""
    filled = [(a, b) for a, b in blocks if after[a:b].strip(PAGE_BREAK + " ")]
    if len(filled) < 3:
        return 0
    (a, b), (c, d), (e, f) = filled[:3]
    meaning = after[c:d].strip()
    if not (_term(after[a:b]) and _term(after[e:f])) or CELLS in meaning:
        return 0
    said = meaning.endswith((".", "!", "?")) and len(meaning.split()) >= MEANING_WORDS
    if not said or d > FOLLOW_CHARS or heading(meaning, None):
        return 0
    return d


def _term(line: str) -> bool:
    """A term on a line of its own, over what it means: a few words, not a sentence nor
    a field and its value ("License: GPL-2+")."""
    term = line.strip(PAGE_BREAK + " ")
    return (
        bool(term)
        and len(term.split()) <= TERM_WORDS
        and term[-1] not in ".!?;:,"
        and not any(mark in term for mark in (CELLS, ": "))
    )


def _shape(block: str) -> str:
    """A list item's shape: one short sentence and how it ends ("" for anything else: a
    fragment without an end may be a heading, a link or a line of code)."""
    if len(block) > ITEM_CHARS or len(chunk_sentences(block)) > 1:
        return ""
    return "." if block[-1] in ".!?;" else ("," if block[-1] == "," else "")


def _next_sentence(after: str) -> int:
    for s, e, _ in chunk_sentences(after):
        if not heading(after[s:e], None):
            return e if e <= FOLLOW_CHARS else 0
    return 0


def _is_value(span: str, question: str, counted: Sequence[str] = ()) -> bool:
    """Whether the reader's span is the value asked for, worth marking: not a function
    word, not a phrase of a definition ("What does ReAct mean?" is answered by the
    sentence; what an abbreviation stands for is a name), a number where the question
    asks how many or how much (and not a count in words of what it asks for otherwise:
    "three" of "three steps" for "What steps ...?"; the word after the span is
    ``counted``), a name where it asks who, a phrase (not a lone word) where it asks
    how to or why."""
    found = words(span)
    if not found or all(w in _FUNCTION_WORDS for w in found):
        return False
    q = question.strip().lower()
    digits = any(ch.isdigit() for ch in span) or bool(NUMBER_WORD.search(span.lower()))
    if _MEANING.search(q) and not digits:
        return False
    numeric = bool(_NUMERIC.search(q))
    if numeric and not digits:
        return False
    number = all(NUMBER_WORD.fullmatch(w) for w in found)  # "three", not "240" or "$72"
    things = {stem(w) for w in counted if w not in _FUNCTION_WORDS}
    if number and not numeric and things & {stem(w) for w in words(q)}:
        return False
    if _PROCEDURE.match(q) and len(found) < 3:
        return False
    return not (q.startswith("who") and not any(ch.isupper() for ch in span))


_FUNCTION_WORDS = frozenset(
    (
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "by",
        "with",
        "from",
        "and",
        "or",
        "but",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "as",
        "if",
        "than",
        "then",
        "so",
        "such",
        "simple",
    )
)
_MEANING = re.compile(
    r"\bmean(?:s|ing)?\b|\bdefinition\b|^define\b|\bdefined\b"
    r"|\bwhat (?:is|are) (?:an? |the )?[\w'’/.\- ]{1,40}\?*$"
)
_PROCEDURE = re.compile(r"how (?:do|does|did|can|could|should|to)\b|why\b")
_NUMERIC = re.compile(r"\bhow (?:many|much|long|old)\b|\bpercent|\bwhat (?:share|rate|number)\b")


# -- table rows ----------------------------------------------------------------------------


def _asked_row(
    text: str,
    question: str,
    line: tuple[int, int],
    header: str | None = None,
    section: str | None = None,
) -> tuple[int, int] | None:
    """The table row of the passage the question asks about, where the reader's span is
    in a row or a label line (not a sentence): the reader's own row when it names the
    question's words as well as any other row does, else the row that names the most
    of them (a state, a payee, a line item: "diluted loss per share", or a value the
    question gives: "1710"; first the words the table's caption lacks, ``table_words``),
    if one row names more than every other; None where the
    passage holds no row the question points to. A table's header row (printed in the
    passage, or ``header``, kept for it) names its columns, not a row: it is never the
    row asked about when the passage holds others."""
    terms = bag(question)
    rows = [(a, b) for a, b in _lines_of(text, 0, len(text)) if CELLS in text[a:b]]
    heads = _header_rows(text, rows, header)
    on_header = line in heads
    rows = [row for row in rows if row not in heads] or rows
    reader_line = text[line[0] : line[1]].strip()
    in_prose = CELLS not in reader_line and (
        reader_line[-1:] in ".?!" or len(reader_line.split()) > HEADING_WORDS
    )
    if not rows or not terms or in_prose:
        return None
    thing = asked_thing(question)
    holding = [row for row in rows if thing and _holds(text[row[0] : row[1]], thing)]
    if len(holding) == 1:
        return holding[0]  # the one row that names the thing asked, as the question does
    values = given_numbers(question) - set(YEAR.findall(question))  # a year names a column
    labels = {row: terms & bag(label_words(text[row[0] : row[1]])) for row in rows}
    words_named = {row: len(label) for row, label in labels.items()}
    values_named = {
        row: len(values & {c.strip().replace(",", "") for c in text[row[0] : row[1]].split(CELLS)})
        for row in rows
    }
    table = table_words(text, section)
    named = {
        row: (len(labels[row] - table) + values_named[row], words_named[row] + values_named[row])
        for row in rows
    }
    best = max(named.values())
    own = named.get(line)
    if own is not None and own >= best:
        return line
    leaders = [row for row, n in named.items() if n == best]
    if best[1] == 0 or len(leaders) > 1:
        return line if own is not None else None
    row = leaders[0]
    if on_header and not (values_named[row] or words_named[row] >= 2 or len(rows) == 1):
        return None  # off the header only to a row named by a value asked, two words, or
    return row  # one word where the header heads that row alone


# a question that names the kind of thing it asks for right after its question word:
# "What kinds of distribution mechanisms …", "Which dual-licensed software …"
_ASKED_THING = re.compile(
    r"\s*(?:what|which)\s+(?:(?:kinds?|types?|sorts?|forms?|examples?)\s+of\s+)?(.+)",
    re.IGNORECASE,
)
THING_WORDS = 2  # the fewest words that name a thing asked as a row's label does


def asked_thing(question: str) -> tuple[str, ...]:
    """The words (stemmed) naming the kind of thing the question asks for, where it names
    it in :data:`THING_WORDS` or more words right after its question word ("What kinds of
    distribution mechanisms should …": "distribution mechanisms"); none where a verb or
    a stop word follows the question word ("What was the total revenue …")."""
    m = _ASKED_THING.match(question)
    if m is None:
        return ()
    stops = stop_words()
    thing: list[str] = []
    for w in words(m.group(1)):
        if w in stops or w.isdigit():
            break
        thing.append(stem(w))
    return tuple(thing) if len(thing) >= THING_WORDS else ()


def _holds(text: str, thing: Sequence[str]) -> bool:
    """Whether ``text``'s words hold ``thing``'s (stemmed), one after another."""
    found = [stem(w) for w in words(text)]
    size = len(thing)
    return any(tuple(found[i : i + size]) == tuple(thing) for i in range(len(found) - size + 1))


def table_words(text: str, section: str | None) -> frozenset[str]:
    """The words of a passage's section path and of its prose above its first table
    row: they name its table (its caption: "stock-based compensation expense"), not one
    of its rows (prose below the rows discusses them, naming rows as they are named)."""
    return bag(f"{caption(text)}\n{section or ''}")


def caption(text: str) -> str:
    """A passage's prose above its first table row (all of it without a row)."""
    first = text.find(CELLS)
    return text[: text.rfind("\n", 0, first) + 1] if first >= 0 else text


def _header_rows(
    text: str, rows: list[tuple[int, int]], header: str | None
) -> set[tuple[int, int]]:
    """The passage's rows that head its table: the header row kept for the table the
    passage starts among (``header``) where the passage prints it, a row that heads the
    rows after it (``table_headers``: a table's years printed again over its own rows),
    or, in a passage that starts with a table (none kept), its first row when rows
    follow it (a sheet's header row)."""
    if len(rows) < 2:
        return set()
    above = f"{header}\n" if header else ""
    heading = set(table_headers(above + text, [len(above) + a for a, _ in rows])) - {None}
    if header:
        heading.add(header)
    heads = {row for row in rows if text[row[0] : row[1]].strip(PAGE_BREAK).strip() in heading}
    first = rows[0]
    if header == "" and not text[: first[0]].strip(PAGE_BREAK).strip():
        heads.add(first)
    return heads


_NO_WORDS = re.compile(r"[\s$€£%().,\-–\d]*")  # a cell of an amount, or an empty one
_ACRONYM = re.compile(r"\b[A-Z](?:[/&]?[A-Z]){1,4}\b")  # "P/E", "EPS", "R&D"
_LINKS = frozenset({"and", "of", "the"})  # words an abbreviation leaves out
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z][a-z])")  # "lifeExp", "gdpPercap": two words
_CUT_SHORT = re.compile(r"\b([^\W\d_]{3,5})\.")  # "Rec.", "Prec.": a word cut short
# a letter written alone, as a column's name: "the hue (h)"; not the articles "a" and "I"
_LETTER_ALONE = re.compile(r"(?<![\w'’.&/-])([b-hj-zB-HJ-Z])(?![\w'’.&/-])")
_NOT_CUT = frozenset(  # abbreviations that name a company or a month, not a word cut short
    {"inc", "corp", "ltd", "llc", "plc"}
    | {"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"}
)
SHORT_NAME = 5  # letters: a column name this short may be a word cut short


def label_words(row: str) -> str:
    """A row's words but its amounts: what names the row."""
    return " ".join(cell for cell in row.split(CELLS) if not _NO_WORDS.fullmatch(cell))


def _row(read: Read, start: int, end: int, context: Context | None, question: str) -> Quote:
    """A table row quoted whole, with its table's header row when one is printed above
    it, and the cell of the year the question asks for (else the reader's) marked."""
    body, header, unit = _row_parts(read, start, end, context)
    exact = _cell(read, body, header, question)
    columns = shown_columns(body, header, exact, question)
    group = group_of(read, body.start, header, context)
    if (
        group is not None
        and not _blank_label(body.text)  # a row whose label is blank shows its group's
        and not (bag(group.text) & bag(question)) - bag(label_words(body.text))
    ):
        group = None  # shown, and weighed, only where it says what the question asks
    return Quote(read, body, header, exact, unit, columns, group=group)


_TOTAL = re.compile(r"\s*total\b", re.IGNORECASE)
_LABEL = re.compile(r"[^\W\d_]|\b(?:19|20)\d\d\b")  # words, or a year ("2019:")


def group_of(read: Read, row: int, header: Piece | None, context: Context | None) -> Piece | None:
    """The label the table row at document offset ``row`` is printed under, among its
    table's rows: the last short line without cells between its ``header`` row and it,
    past the rows between ("ChatGPT" over "VANILLA (5-psg) | 57.2 | …" and "SNIPPET
    (10-psg) | 24.5 | …": a paper's rows of one model, each named by its method alone;
    "2019:" over a quarter's row), not a page number or the amounts' unit; of a sheet's
    row whose first cell is blank, the first cell of the rows above that fills it
    (``_carried``). None where
    prose, the header or a total row ("Total costs and expenses", which closes the rows
    under "Costs and expenses"; "Loss from operations" under "(Loss)/earnings from
    operations:") comes first, or the text above the passage cannot be read."""
    if header is None:
        return None
    chunk = read.hit.chunk
    start = max(header.end, row - HEADER_WINDOW)
    text = chunk.text[max(start - chunk.char_start, 0) : row - chunk.char_start]
    if start < chunk.char_start:
        if context is None:
            return None
        text = context(chunk.document_id, start, chunk.char_start) + text
    lines = list(re.finditer(r"[^\n]+", text))
    if lines and start > header.end and lines[0].start() == 0:
        lines = lines[1:]  # the window starts inside a line: not the whole of it
    own = chunk.text[row - chunk.char_start :].split("\n", 1)[0]
    if _TOTAL.match(own):
        return None  # a total row sums the rows above it: it is under none of them
    if chunk.rows and _blank_label(own):
        carried = _carried(lines, start)
        if carried is not None:
            return carried
    passed = [bag(label_words(own))]  # the labels of the row and those between, nearest first
    for line in reversed(lines):
        label = line.group().strip(PAGE_BREAK).strip()
        if CELLS in label and _TOTAL.match(label):
            return None  # a total closes the rows above it: the row is under none of them
        if CELLS in label:
            passed.append(bag(label_words(label)))
            continue
        if not _LABEL.search(label) or _UNIT.search(label):
            continue  # a page number, the amounts' unit: no label
        if len(label.split()) > LABEL_WORDS or label[-1] in ".?!":
            return None  # prose: the row is under no label of its table
        named = bag(label)
        if any(len(named & row) >= min(2, len(named)) for row in passed):
            return None  # a row sums the label's rows ("Loss from operations")
        at = start + line.start() + line.group().index(label)
        return Piece(at, at + len(label), label)
    return None


def _blank_label(row: str) -> bool:
    """Whether a table row leaves its first cell, its label, blank."""
    return CELLS in row and row.split(CELLS, 1)[0].strip() == EMPTY_CELL


def _carried(lines: Sequence[re.Match[str]], start: int) -> Piece | None:
    """The first cell of the nearest row above, among its sheet's ``lines`` (offsets from
    ``start``), that fills it: the label a sheet prints once, in its group's first row,
    over rows that leave it blank ("S1E7 | Looks like parents…" over "- | Spotted: Bass
    drunk…"); None where a line of no cells comes first (a label line, read as any)."""
    for line in reversed(lines):
        if CELLS not in line.group():
            return None
        first = line.group().split(CELLS, 1)[0]
        label = first.strip()
        if label != EMPTY_CELL:
            at = start + line.start() + first.index(label)
            return Piece(at, at + len(label), label)
    return None


def shown_columns(
    body: Piece, header: Piece | None, exact: tuple[int, int] | None, question: str
) -> tuple[int, ...]:
    """The columns a row of more than ``WIDE_ROW`` columns is shown with: its label (a
    row of numbers has none), the cells the question names ("Tesla Inc" asked of
    Tesla) or gives ("the car with 8 carburetors": its "carb" cell) and the cell
    marked, each under its header cell ("| State / Territory | Permit |" over
    "| Illinois | 87,190 |", not 25 columns); all (none given) where no cell is marked,
    the row is narrow, or the row and its header do not line up from their first cells."""
    if header is None or exact is None:
        return ()
    heads, cells = _cell_pieces(header), _cell_pieces(body)
    wide = max(len(heads), len(cells)) > WIDE_ROW
    if not wide or column_offset(body.text, header.text) != 0:
        return ()
    at = next((i for i, p in enumerate(cells) if p.start <= exact[0] < p.end), None)
    labelled = _labelled(body.text)
    if at is None or at >= len(heads) or (labelled and at == 0):
        return ()  # the label marked, or a cell past the header's last
    terms = {t for t in bag(question) if not t.isdigit()}  # words, not a value given
    named = [i for i, c in enumerate(cells) if i != at and terms & bag(c.text)]
    given = [i for i, c in enumerate(cells) if _given(c.text, question)]
    shown = {at, *given, *named[:MAX_NAMED_CELLS]} | ({0} if labelled else set())
    shown = {i for i in shown if i < len(heads)}  # under a header cell of their own
    return tuple(sorted(shown)) if len(shown) > 1 else ()


def _row_parts(
    read: Read, start: int, end: int, context: Context | None
) -> tuple[Piece, Piece | None, Piece | None]:
    """The table row at ``start:end`` of the passage, its header row and its unit."""
    chunk = read.hit.chunk
    text, base = chunk.text, chunk.char_start
    while start < end and text[start] in PAGE_BREAK:
        start += 1
    body = Piece(base + start, base + end, text[start:end])
    header = header_of(read, body.start, context)
    unit = None if header is None else _unit(read, body, header, context)
    return body, header, unit


def in_percent(read: Read, start: int, end: int, context: Context | None) -> bool:
    """Whether the table row at ``start:end`` of the passage is in percentages by the unit
    its table prints apart ("… as a percentage of revenue:" above the header)."""
    unit = _row_parts(read, start, end, context)[2]
    return unit is not None and "percent" in unit.text.lower()


def _unit(read: Read, body: Piece, header: Piece, context: Context | None) -> Piece | None:
    """The unit the table's amounts are printed in, where the document prints it apart
    from the header row and the row: on the caption's lines just above the header (no
    row of another table between, at most ``UNIT_GAP`` characters up), or on a line of
    its own between the header and the row; None where the header or the row says it,
    or nothing does, or the row's amounts are all percentages (an "Effective income tax
    rate" row under "(Dollars in millions)")."""
    if _UNIT.search(header.text) or _UNIT.search(body.text):
        return None
    amounts = [c for c in body.text.split(CELLS)[1:] if any(ch.isdigit() for ch in c)]
    if amounts and all("%" in c for c in amounts):
        return None
    chunk = read.hit.chunk
    start = max(header.start - UNIT_WINDOW, 0)
    if start < chunk.char_start and context is not None:
        text = context(chunk.document_id, start, body.start)
    else:
        start = max(start, chunk.char_start)
        text = chunk.text[start - chunk.char_start : body.start - chunk.char_start]
    above = header.start - start  # where the header starts in ``text`` (< 0: above it)
    found = None
    for m in _UNIT.finditer(text):
        line = text[text.rfind("\n", 0, m.start()) + 1 : line_end(text, m.end())]
        gap = text[m.end() : above]
        below = m.start() >= above + len(header.text) and CELLS not in line  # not a row's label
        if below or (m.end() <= above and CELLS not in gap and len(gap.strip()) <= UNIT_GAP):
            found = m
    if found is None:
        return None
    return Piece(start + found.start(), start + found.end(), found.group())


def header_of(read: Read, row: int, context: Context | None) -> Piece | None:
    """The header row of the table the row at document offset ``row`` is in: the one
    its passage keeps (``Chunk.header``) or holds above the row; for a passage stored
    before headers were kept, looked for in the text above it."""
    chunk = read.hit.chunk
    above = chunk.text[: row - chunk.char_start]
    if chunk.header is not None:
        header = header_row(read, row)
        if header is None:
            return None
        at = above.rfind(header)
        if at >= 0:  # printed in the passage
            return Piece(chunk.char_start + at, chunk.char_start + at + len(header), header)
        if header != chunk.header or context is None:
            return None
        start = _printed(chunk.document_id, chunk.char_start, header, context)
        return None if start is None else Piece(start, start + len(header), header)
    window_start = max(chunk.char_start - HEADER_WINDOW, 0) if context else chunk.char_start
    text = above
    if context is not None and window_start < chunk.char_start:
        text = context(chunk.document_id, window_start, chunk.char_start) + text
    [header] = table_headers(f"{text}\n{_probe(chunk.text, len(above))}", [len(text) + 1])
    if not header or header.endswith(" …"):
        return None
    at = text.rfind(header)
    return Piece(window_start + at, window_start + at + len(header), header) if at >= 0 else None


def header_row(read: Read, row: int) -> str | None:
    """The header row's text of the table the row at document offset ``row`` is in, as
    its passage keeps it (None: the passage keeps no header, or was stored before
    headers were kept)."""
    chunk = read.hit.chunk
    if chunk.header is None:
        return None
    above = chunk.text[: row - chunk.char_start]
    [header] = table_headers(f"{chunk.header}\n{above}\n{_probe(chunk.text, len(above))}",
                             [len(chunk.header) + len(above) + 2])  # fmt: skip
    return None if not header or header.endswith(" …") else header


def _probe(text: str, at: int) -> str:
    """The row at ``at`` of ``text`` as ``table_headers`` is to read it below the text
    above it: its own line where that is a row (its cells count: a row under a label
    with as many cells as the rows before it goes on their table), else a row of two
    cells."""
    line = text[at : line_end(text, at)]
    return line if CELLS in line else f"x{CELLS}x"


def _printed(
    document_id: str, before: int, header: str, context: Context, floor: int = 0
) -> int | None:
    """Where ``header`` is printed last before offset ``before`` of the document (and
    not before ``floor``)."""
    end = before
    while end > floor:
        start = max(end - HEADER_WINDOW, floor)
        piece = context(document_id, start, min(end + len(header), before))
        at = piece.rfind(header)
        if at >= 0:
            return start + at
        end = start
    return None


def _cell(read: Read, body: Piece, header: Piece | None, question: str) -> tuple[int, int] | None:
    """The document offsets of the cell to mark: under the header cell the question
    names (its year, else the most of its words), else the reader's span where it lies
    in one cell of the row; never a cell holding a value the question gives (it named
    the row: "Which region had 1710?")."""
    found = _named_cell(read, body, header, question)
    if found is None:
        return None
    text = body.text[found[0] - body.start : found[1] - body.start]
    return None if _given(text, question) else found


def given_numbers(question: str) -> set[str]:
    """The numbers a question gives, without thousands separators ("1,710" -> "1710")."""
    return {n.replace(",", "") for n in GIVEN_NUMBER.findall(question)}


def _given(cell: str, question: str) -> bool:
    """Whether a cell holds a number the question gives."""
    return cell.strip().replace(",", "") in given_numbers(question)


def _named_cell(
    read: Read, body: Piece, header: Piece | None, question: str
) -> tuple[int, int] | None:
    cells = _cells(body)
    if header is not None:
        names = [c.strip() for c in header.text.split(CELLS)]
        years = set(asked(question).years)
        terms = asked_terms(question)

        def named(terms: frozenset[str]) -> list[tuple[bool, int]]:
            return [
                (bool(years & set(YEAR.findall(name))), column_named(terms, name))
                if not _gives(body, header, i, question)  # the column that picked the row
                else (False, 0)
                for i, name in enumerate(names)
            ]

        # the words naming the row name its column only where no other word names one
        unnamed = terms - bag(label_words(body.text))
        scores = named(unnamed)
        if max(scores) == (False, 0):
            scores = named(terms)
        if max(scores) == (False, 0):  # no column named by its words: by its short name
            scores = [
                (False, int(_cut_short(body, header, i, question))) for i in range(len(names))
            ]
        if max(scores) == (False, 0):  # a one-letter name a word begins: "green", "g"
            scores = [(False, n) for n in lettered(names, unnamed, strict=True) or ()] or scores
        best = max(scores)
        if best > (False, 0) and scores.count(best) == 1:
            i = value_at(body.text, header.text, scores.index(best))
            if i is not None and i < len(cells) and body.text[cells[i][0] - body.start :].strip():
                return cells[i]
    span = read.reading
    at = read.hit.chunk.char_start
    for a, b in cells:
        if a <= at + span.start and at + span.end <= b:
            return at + span.start, at + span.end
    return None


def _gives(body: Piece, header: Piece, index: int, question: str) -> bool:
    """Whether the row's cell under the header's column ``index`` holds a number the
    question gives ("the car that gets 33.9 mpg": its "mpg" picked the row, "wt" is
    asked)."""
    at = value_at(body.text, header.text, index)
    cells = body.text.split(CELLS)
    return at is not None and at < len(cells) and _given(cells[at], question)


def _cut_short(body: Piece, header: Piece, index: int, question: str) -> bool:
    """Whether the question names the header's column ``index`` by its short name
    (``abbreviates``), and the row's cell under it holds no value the question gives
    (that column picked the row: "the car with 8 carburetors"). Only in a question that
    gives a value: a short name cut from a word is a weak sign ("net" of "Netflix")."""
    name = header.text.split(CELLS)[index]
    if not GIVEN_NUMBER.search(question):  # only in a row a value picked ("8 carburetors")
        return False
    if not any(abbreviates(name, w) for w in words(question)):
        return False
    cells = body.text.split(CELLS)
    at = value_at(body.text, header.text, index)
    return at is None or at >= len(cells) or not _given(cells[at], question)


def _cells(body: Piece) -> list[tuple[int, int]]:
    out, at = [], body.start
    for cell in body.text.split(CELLS):
        lead = len(cell) - len(cell.lstrip())
        out.append((at + lead, at + lead + len(cell.strip())))  # an empty cell: empty
        at += len(cell) + len(CELLS)
    return out
