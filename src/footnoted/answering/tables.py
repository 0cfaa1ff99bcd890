"""A table row the question names: how a value asked of a table is found.

The reader learned to answer from sentences; asked "Tesla 52-week high?" or "How much
did Boeing spend on research and development in 2022?", it prefers a sentence about
the metric to the row that holds the value, or believes nothing in a row of numbers. A
table answers such a question when one of its rows is named by the question and one of
its columns is too. A row is named by its label cells ("Tesla", "Research and
development"; not a value's unit: "256 megabytes"), less the words of the document's
title and of the table's caption (the
passage's prose above its rows and its section: "stock-based compensation expense"
names the table, not its total row). A column is named by the year asked, in a header
of years, else by the header's words (the title's too: "citation" of a paper on
citations), their initials ("P/E": "Price/Earnings") or a word cut short ("Rec.":
"recall").
A row of words, not values (an installation guide's table of architectures), answers
where its first cell is named whole and a column by its words, the one the question
names first after its "what" where it names several ("what is the flavor for the MIPS
Malta subarchitecture": "Flavor"); under a header of years, such a row is a second
header ("Net Sales | % of Total").
A table of two columns answers by the one other column where the row's first cell is
named whole ("Key | Description" over "L | Seek 10 frames forward"), and so does a table
of keys and values under no header of words ("Receiver | Sertifitseerimiskeskus AS"
below "Created on | 22.01.2013"), from its second row on.
A row whose first cell the question names whole leads one named by more words spread
over its other cells ("Cutoff Frequency" before a row whose note reads "control of the
filter cutoff frequency"). Between rows named as well, one of percentages answers a
question asking for a
percentage, margin or rate, and one of amounts any other; then one of a table whose
caption names no initials the question lacks (the company's revenue by customer
location before its segment's: "BCA revenues by customer location"); then the row
whose label the question names most of ("Revenue" before "Revenue from contracts with
customers"); then the label the question writes as printed, then the fewer of its
words, "no" and "with" among them, the question lacks ("With Desktop" asked "with a
desktop", not "No desktop"); then the row under a header whose first cell the question
names ("Total" under "OCT | 2016 | 2017" asked of October, in a report of a month's
table a page). A row labelled by a number is named by the question giving it ("on 20
September 2017": the row "20" of September's table of days; "with -6": the row "-6"), and
a row by a number in another cell where the question names that cell's column too ("MIDI
CC 16": the row whose MIDI CC is 16). That row, among the passages read, leads the
answer: it is quoted under
its header with the named cell marked (``quotes``), and the answer's trust says how far
a row like it is right (``trust``).
A table longer than a chunk is read where retrieval finds it; a row the question names
whole in a chunk a few on that continues the table a passage read ends among
(``continuations``: the same section, under the same header row) is read too, named as
under that table's caption, and quoted with the caption's sentence after it ("The
following table provides a reconciliation of net loss to Adjusted EBITDA (in
millions):").
Rows named equally well in different passages lead by retrieval order; a question naming
no column, or two rows of one passage alike, is left to the reader. A named row whose
named cell is empty answers nothing: the table does not hold the value.

A sentence that gives a figure's change ("Research and development expense increased by
$603 million in 2022 compared with 2021") does not answer a question asking the figure
("How much did Boeing spend on research and development in 2022?"). Where the reader
leads with such a sentence and the question asks no change, the row of its passage whose
cells under the two years differ by that amount leads instead (``changed_row``): the
prose explains the table's row ("Total | $2,852 | $2,249 | $2,476").

A row of numbers only is named by a value the question gives for one of its columns
("the car with 8 carburetors": the one row whose "carb" is 8; ``valued_row``), with
another column named for the value asked ("horsepower": "hp"); retrieval does not find
such a row by the question's words, so all the table's rows are read.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ..inference.reader import Reading
from ..lexical import (
    CELLS,
    EMPTY_CELL,
    GIVEN_NUMBER,
    abbreviated,
    bag,
    chunk_sentences,
    measures,
    words,
)
from ..loaders.blocks import table_headers
from ..models import Chunk, RetrievedChunk
from .asked import YEAR, asked
from .evidence import Read
from .quotes import (
    Context,
    abbreviates,
    asked_terms,
    caption,
    column_named,
    column_terms,
    given_numbers,
    group_of,
    header_of,
    header_row,
    in_percent,
    label_words,
    lettered,
    table_words,
    value_at,
)

_VALUE = re.compile(r"[\s$€£%().,\-–\d]*\d[\s$€£%().,\-–\d]*")
# a cell holding a value with its unit or a range of values: "2 bytes", "-32768 to +32767"
_MEASURED = re.compile(r"\s*[-+$€£]?\d[\d,.]*\s?(?:[^\W\d_]+|to\s+[-+]?\d[\d,.]*)\s*")
_PERCENT = re.compile(r"%|\bpercent|\bmargin|\brate\b|\bratio\b|\bshare of\b|\bproportion")
_NOT_A_VALUE = re.compile(  # questions that ask for a reason, a way or a meaning (a "hard
    # drive" is a thing)
    r"^\s*(?:why|how (?:do|does|did|can|could|should|to)\b)|\bmean\b|\bdefin"
    r"|\b(?:drove|(?<!hard )(?<!disk )(?<!flash )(?<!tape )drive[sn]?|caused?|led to|reasons?"
    r"|explains?)\b"
)


@dataclass(frozen=True, slots=True)
class Named:
    """The row the question names, as its passage read at that row; ``filled``: the
    named cell holds a value (an empty one says the table does not hold the answer)."""

    read: Read
    filled: bool


_Naming = tuple[
    bool, int, int, int, bool, bool, int, int, bool, int, int, bool, bool
]  # how well a row is named (``_row_in``)
FILLED = 4  # in a ``_Naming``: the named cell holds a value
WHOLE = 7  # in a ``_Naming``: less the label's words the question leaves out (0: named whole)
CONTINUED = 3  # chunks on from the passage read that a chunk may continue its table
CAPTION_WORDS = 4  # content words of a caption's sentence at the least ("Year Ended December 31,")
_SYMBOL = re.compile(r"[^\w\s'’-]")
_ASKING = frozenset(("what", "which", "what's"))
# a letter the question gives as a row's label: "row C", "pressing capital L", "key q"
# (not the article or the pronoun: "press a key", "the key I use")
_LETTER_GIVEN = re.compile(
    r"\b(?i:row|key|letter|press|pressing|capital|option|grade|class)\s+(?![aI]\b)([A-Za-z])\b"
)
# a date the question gives whole: "2015-08-31", "12/31/2021", "22.01.2013" (not a range,
# "2019-2021", "10-15", nor "64-bit")
_DATE = re.compile(
    r"(?<![\w./-])(?:\d{4}-\d\d-\d\d|\d{1,2}/\d{1,2}/(?:\d\d){1,2}|\d{1,2}\.\d{1,2}\.\d{4})(?![\w/-])"
)


def named_row(
    question: str,
    read: Sequence[Read],
    context: Context | None,
    further: Sequence[Continued] = (),
) -> Named | None:
    """The row of the passages read, or of the rest of a table one of them ends in
    (``further``: ``continuations``, named as under that table's caption), that the
    question names (see the module); None when no row is named with one of its
    columns, or by the date it gives and a word of another of its cells."""
    q = question.lower()
    if _NOT_A_VALUE.search(q):
        return None
    terms = asked_terms(question)
    years = set(asked(question).years)
    percent = bool(_PERCENT.search(q))
    written = _spelled(question)
    # the numbers it gives as words of their own, none a year: "on 20 September 2017",
    # or as an option: "compressed with -6"
    numbers = [n for n in given_numbers(question) if len(n) <= 3]
    given = frozenset(w for n in numbers for w in (n, f"-{n}") if f" {w} " in written)
    given |= {m[1] for m in _LETTER_GIVEN.finditer(question)}  # "pressing capital L"
    given |= set(_DATE.findall(question))  # "on 2015-08-31": the row dated so
    shortened = bag(" ".join(abbreviated(written.split())))  # "October" heads "OCT | 2017"
    quoted = frozenset(_cell_text(m[1]) for m in _QUOTED_CELL.finditer(question))
    best: tuple[_Naming, Named] | None = None
    captions = [frozenset[str]()] * len(read)
    captions += [bag(c.head.hit.chunk.text[slice(*c.caption)]) for c in further]
    passages = (*read, *(c.read for c in further))
    for i, (r, above) in enumerate(zip(passages, captions, strict=True)):
        found = _row_in(r, terms, years, percent, written, given, shortened, quoted, context, above)
        if found is None or (i >= len(read) and found[0][WHOLE] != 0):
            continue  # a row of the rest of a table: only one the question names whole
        if best is None or found[0] > best[0]:
            best = found
    return None if best is None else best[1]


@dataclass(frozen=True, slots=True)
class Continued:
    """A chunk that continues a table of a passage read, as that passage's reading of it
    (``read``), with the passage (``head``) and the offsets in its text of the prose above
    that table (its caption; empty where the passage starts among its rows)."""

    read: Read
    head: Read
    caption: tuple[int, int]


def continuations(read: Sequence[Read], candidates: Sequence[RetrievedChunk]) -> list[Continued]:
    """The chunks among ``candidates`` that continue the table a passage read ends in (the
    same document and section, at most :data:`CONTINUED` chunks after it, starting among
    the rows of a table under that table's header row), or hold the rows above those a
    passage read starts among (as far before it, under the same header or printing it):
    a table longer than a chunk is found where the question's words are, and its other
    rows are cut off from it ("Stock-based compensation | 724.6 | 565.8 | 1,599.3", two
    chunks after the reconciliation of net loss to Adjusted EBITDA that heads it; day 20
    of a month's table of days, in the chunk before the one read). Not themselves read:
    ``named_row`` looks in them for the row asked."""
    seen = {r.hit.chunk.id for r in read}
    heads = [(r, _tail_table(r)) for r in read]
    out: list[Continued] = []
    for hit in candidates:
        chunk = hit.chunk
        if chunk.id in seen:
            continue
        for r, tail in heads:
            near = r.hit.chunk
            if near.document_id != chunk.document_id or near.section != chunk.section:
                continue
            after = chunk.index - near.index
            if tail is not None and tail[0] == chunk.header and 0 < after <= CONTINUED:
                out.append(Continued(replace(r, hit=hit), r, tail[1]))
            elif near.header and _holds_table(chunk, near.header) and 0 < -after <= CONTINUED:
                out.append(Continued(replace(r, hit=hit), r, (0, 0)))  # its rows above
            else:
                continue
            seen.add(chunk.id)
            break
    return out


def _holds_table(chunk: Chunk, header: str) -> bool:
    """Whether ``chunk`` holds rows of the table under ``header``: it starts among them,
    or prints the header itself."""
    return chunk.header == header or f"\n{header}\n" in f"\n{chunk.text}\n"


def _tail_table(r: Read) -> tuple[str, tuple[int, int]] | None:
    """The header row of the table a passage's text ends among (``quotes.header_row``),
    and the offsets of the prose above where the passage prints it (its caption: empty
    where the passage starts under it); None when the text ends in prose."""
    chunk = r.hit.chunk
    text = chunk.text.rstrip()
    last = text.rfind("\n") + 1
    if CELLS not in text[last:]:
        return None
    header = header_row(r, chunk.char_start + last)
    if not header:
        return None
    printed = text.rfind(header, 0, last + 1)
    if printed < 0:
        return header, (0, 0)
    top = printed  # the lines of prose right above the header, back to a table's rows
    while top > 0:
        start = text.rfind("\n", 0, top - 1) + 1
        if CELLS in text[start:top]:
            break
        top = start
    return header, (top, printed)


def captioned(c: Continued) -> tuple[int, int] | None:
    """The offsets, in the passage read, of the sentence of the caption above the table
    a chunk continues that says what the table is ("The following table provides a
    reconciliation of net loss to Adjusted EBITDA (in millions):"): the last one ending
    in a colon, else the last of :data:`CAPTION_WORDS` words or more; None without."""
    text = c.head.hit.chunk.text
    base, end = c.caption
    said = [(base + a, base + b) for a, b, words in chunk_sentences(text[base:end])
            if len(words) >= CAPTION_WORDS]  # fmt: skip
    leading = [(a, b) for a, b in said if text[a:b].rstrip().endswith(":")]
    return (leading or said)[-1] if said else None


def _row_in(
    r: Read,
    terms: frozenset[str],
    years: set[str],
    percent: bool,
    written: str,
    given: frozenset[str],
    shortened: frozenset[str],
    quoted: frozenset[str],
    context: Context | None,
    above: frozenset[str] = frozenset(),
) -> tuple[_Naming, Named] | None:
    """The row of ``r``'s passage the question names best, with how well it is named
    (its first cell named whole; label words the table's caption lacks, or all of them
    where the question names the
    whole label: "Sales and marketing" under a section "Sales and Marketing"; label
    words, column words, a filled cell,
    amounts in the unit asked: percentages where ``percent``, else not; then the fewer
    initials its table's caption prints that the question lacks; then the fewer
    label words the question leaves out: "Revenue" before "Revenue from contracts with
    customers"; then a label the question (``written``, ``_spelled``) writes as printed:
    "CoT-SC → ReAct" before "ReAct → CoT-SC"; then the fewer of the label's printed words,
    stop words too, the question lacks ("No desktop" asked "with a desktop"); then the more
    of its column's words the
    question names: "sum of sepal length" names a pivot table's "Sum of Sepal Length"
    over its data's "Sepal Length"; then a header whose first cell, over the rows'
    labels, the question names: "Total" under "OCT | 2015 | 2016 | 2017" of a month's
    table of days, not September's; then a label that is the number given), when exactly
    one row is named best and a column too (or, dated as the question dates it, a word of
    another of its cells: the row whole). A cell the question quotes whole (``quoted``)
    names its row as its first cell does. ``above``: the words of the caption of the
    table a passage continues, printed in the chunk before it (``continuations``)."""
    text = r.hit.chunk.text
    title = bag(r.hit.document_title)
    every = terms  # a column is named by any of them: "citation" of a paper on citations
    terms = terms - title  # "Boeing" of Boeing's report names no row
    table = table_words(text, r.hit.chunk.section) | above
    # a part's table ("BCA revenues by customer location"): initials the question lacks
    initials = [n for n in asked(caption(text)).names if n[1:] and n[1:].isupper()]
    narrowed = -len(bag(" ".join(initials)) - terms - title)
    scored: list[tuple[_Naming, int, int]] = []
    at = 0
    before: list[str] = []  # the cells of the line above, blank lines aside
    for line in text.split("\n"):
        start, end = at, at + len(line)
        at = end + 1
        cells = line.split(CELLS)
        upper, before = before, cells if line.strip() else before
        if len(cells) < 2:
            continue
        # a row of values, or of words named by its first cell (below)
        worded_row = not any(_VALUE.fullmatch(c) or _MEASURED.fullmatch(c) for c in cells[1:])
        labelled = _numbered(cells[:1], given)  # the row's label is a number given
        numbered = labelled
        # its words, not a value's unit ("256 megabytes"; its label may be "20.04 LTS")
        named_by = CELLS.join(cells[:1] + [c for c in cells[1:] if not _MEASURED.fullmatch(c)])
        in_label = bag(label_words(named_by)) | numbered
        label = terms & in_label | numbered
        valued = {i: c.strip() for i, c in enumerate(cells) if i and c.strip() in given}
        if not label and not valued:
            continue
        row = r.hit.chunk.char_start + start
        header = header_row(r, row) if r.hit.chunk.header is not None else None
        if header is None:
            found = header_of(r, row, context)  # a passage stored before headers were kept
            header = None if found is None else found.text
        if header is None and len(cells) == len(upper) == 2 and not _paged(upper, cells):
            header = ""  # a table of keys and values under no header of words
        unheaded = header is None and not worded_row and _unheaded(r.hit.chunk, start, cells)
        if unheaded:
            header = ""  # a table that prints no header: an invoice's lines
        if header is None:
            continue
        # a number given in another cell names the row where the question names that
        # cell's column too ("MIDI CC 16": the row whose "MIDI CC" is 16)
        heads = header.split(CELLS)
        if valued and len(heads) == len(cells):
            numbered |= {v for i, v in valued.items() if column_named(every, heads[i])}
            in_label, label = in_label | numbered, label | numbered
        if not label or (len(label) == 1 and not numbered and not _one_names(label, cells)):
            continue
        first = (bag(cells[0]) - title) | labelled
        first_named = bool(first) and first <= label  # its first cell named whole
        # or a cell the question quotes whole: "the blast 'Spotted: Bass drunk…'"
        whole = first_named or any(_cell_text(c) in quoted for c in cells)
        # the words naming the row name its column only where no other word names one
        column, index, worded = _column(header, every - label, years, letters=True)
        if not column:
            column, index, _ = _column(header, every, years)
        if column == 1 and index is None:
            labelled_first = first_named and len(heads) == len(cells)  # its label under it
            index = _asked_first(header, every - label, written, labelled_first)
        # a table of two columns: "Key | Description" over "L | Seek 10 frames forward";
        # under years, words are a second header ("2019 | 2018" over "Number | Number");
        # or of keys and values under no header ("Receiver | Sertifitseerimiskeskus AS")
        keyed = whole and len(cells) == 2 and not header.strip()
        paired = worded_row and whole and len(cells) == len(heads) == 2
        paired = (paired and not YEAR.search(header)) or keyed
        if paired and not column:
            column, index = 1, 1  # a key's action, a term's meaning: the one other column
        if worded_row and not (whole and index and column == 1):
            continue  # a row of words: its label named whole and another column by its
            # words (under years, words are a second header: "Net Sales | % of Total"),
            # or the one other column there is
        # a row dated as the question dates it is told from every other by it: where no
        # column is named it answers whole, if the question names another of its cells
        # too ("Which ticker paid the dividend credited on 2015-08-31?"; not "What
        # commission was charged on 2015-08-31?")
        dated = any(_DATE.fullmatch(cell) for cell in labelled) and bool(label - labelled)
        # a row of a table printing no header names no column: named best, it answers
        # whole ("the unit price of the ATMEGA8-16PU" on an invoice's lines)
        if column or dated or (unheaded and not years):
            under = 1 if keyed else None if index is None else value_at(line, header, index)
            shown = _percent(cells, under) or in_percent(r, start, end, context)
            unit = shown == percent
            filled = _filled(cells, under) or (
                under == 0 and group_of(r, row, header_of(r, row, context), context) is not None
            )  # a row whose label is blank, under its group's label (``group_of``): that
            # a row named whole is told from its neighbours by its first cell, not by its
            # description's words ("time [ (p) ] with time zone | 12 bytes | time of day
            # (no date), with time zone" over "time [ (p) ] [ without time zone ] | 8 ...")
            own = label_words(cells[0] if whole else named_by)
            printed = _spelled(own)
            spelled = printed in written
            named = (
                whole,
                len(label if label == in_label else label - table),
                len(label),
                column,
                filled,
                unit,
                narrowed,
                -len((bag(own) | numbered) - terms),
                spelled,
                -len(set(printed.split()) - set(written.split())),
                worded,
                bool(shortened & bag(header.split(CELLS)[0])),
                bool(labelled),
            )
            scored.append((named, start, end))
    if not scored:
        return None
    top = max(s for s, _, _ in scored)
    rows = [(a, b) for s, a, b in scored if s == top]
    if len(rows) > 1:  # named alike: the one under a label naming a year or word asked
        grouped = [(a, b) for a, b in rows if _grouped(r, a, terms | years, context)]
        rows = grouped if len(grouped) == 1 else rows
    if len(rows) > 1:
        return None
    start, end = rows[0]
    while start < end and not text[start].strip():
        start += 1
    reading = Reading(r.reading.score, start, end)
    return top, Named(replace(r, reading=reading, named=True), bool(top[FILLED]))


# a cell's text quoted in a question: two words or more between quotation marks, an
# apostrophe inside a word ("Blair’s") kept, a year's elision ("the '90s") no opening
_QUOTED_CELL = re.compile(
    r"(?<!\w)[\"“‘'](?!\d+s\b)((?:[^\"“”‘’']|['’](?=\w))*?\w\s+\w(?:[^\"“”‘’']|['’](?=\w))*?)"
    r"[\"”’'](?!\w)"
)


def _cell_text(text: str) -> str:
    """A cell's text as a question quoting it may write it: its words (``words``: in
    lower case, a curly apostrophe as a straight one)."""
    return " ".join(words(text))


def _unheaded(chunk: Chunk, start: int, cells: Sequence[str]) -> bool:
    """Whether the row at ``start`` of a spreadsheet's passage (its ``cells``) is in a
    sheet that prints no header row (its first row holds amounts: a CSV file of an
    invoice's lines), the passage starting among its rows: no header is known above the
    passage, and every line above the row is a row of as many cells, the first holding
    an amount. (A PDF's table may have lost its header to the layout: its rows are no
    sheet's.)"""
    if chunk.header != "" or not chunk.rows:
        return False
    above = [line.split(CELLS) for line in chunk.text[:start].split("\n") if line.strip()]
    if any(len(row) != len(cells) for row in above):
        return False
    first = above[0] if above else cells
    return any(_VALUE.fullmatch(c) for c in first[1:])


def _paged(above: Sequence[str], cells: Sequence[str]) -> bool:
    """Whether two rows of two cells are a list of contents: page numbers rising
    ("Scope | 5" under "Introduction | 3"), not keys and their values."""
    pages = [c.strip() for c in (above[-1], cells[-1])]
    return all(p.isdigit() for p in pages) and int(pages[0]) < int(pages[1])


def _numbered(cells: Sequence[str], given: frozenset[str]) -> frozenset[str]:
    """The cells of a row that are numbers the question gives (``given``: "on 20
    September 2017" names the row "20" of a month's table of days, "MIDI CC 16" the row
    whose "MIDI CC" is 16), as words naming the row; else none."""
    return frozenset(cell.strip() for cell in cells if cell.strip() in given)


def _grouped(r: Read, start: int, asked: frozenset[str], context: Context | None) -> bool:
    """Whether the row at ``start`` of ``r``'s passage is printed under a label (``group_of``)
    naming one of the ``asked`` words or years ("2019:" over one of two "Fourth Quarter"
    rows)."""
    row = r.hit.chunk.char_start + start
    group = group_of(r, row, header_of(r, row, context), context)
    return group is not None and bool(bag(group.text) & asked)


def _one_names(label: frozenset[str], cells: list[str]) -> bool:
    """Whether one word of the question names a row: it is a label cell of one or two
    words ("Microsoft Corp.", "Net loss"), not one word of a longer one ("floor space"
    asked of "Defense, Space & Security", "share of its workforce" of "Share-based
    plans")."""
    return any(label <= words and len(words) <= 2 for words in map(bag, cells))


def _spelled(text: str) -> str:
    """``text`` lower-cased with each symbol a word of its own, words in their order
    (" cot-sc → react " for "CoT-SC→ ReAct"), padded with a space: a row's label
    written out in a question is a part of the question's."""
    return f" {' '.join(_SYMBOL.sub(lambda m: f' {m.group()} ', text.lower()).split())} "


def _percent(cells: list[str], under: int | None) -> bool:
    """Whether the row's value is a percentage: the cell ``under`` the column named
    (``value_at``), where it is known, else most of the row's values."""
    if under is not None and under < len(cells):
        return "%" in cells[under]
    values = [c for c in cells[1:] if _VALUE.fullmatch(c)]
    return 2 * sum("%" in c for c in values) > len(values)


def _column(
    header: str, terms: frozenset[str], years: set[str], letters: bool = False
) -> tuple[int, int | None, int]:
    """How well the question names a column of ``header`` (2 by a year it asks about, 1
    by its words, 0 not at all: a year asked and not in a header of years is 0; in a
    header without years, the year asked is the whole table's, and words name the
    column, by its words or their initials: "P/E" names "Price/Earnings"), which
    column, when one is named alone, and how many of ``terms`` name the column they
    name best (years or not). With ``letters`` (``terms`` the question's words that do
    not name the row), in a header of one-letter names (three or more, at least half of
    its columns: "Name | r | g | b | h | s | l", not "Country | n | mean | sd | p"), a
    word such a name begins names it where no word names a column otherwise ("green":
    "g"; ``quotes.lettered``)."""
    names = header.split(CELLS)
    counts = [column_named(terms, n) for n in names]
    if letters and not any(counts):
        counts = lettered(names, terms) or counts
    best = max(counts, default=0)
    if years and YEAR.search(header):  # a header without years: the year is the table's
        named = [i for i, n in enumerate(names) if years & set(YEAR.findall(n))]
        return (2 if named else 0), (named[0] if len(named) == 1 else None), best
    index = counts.index(best) if best and counts.count(best) == 1 else None
    return (1 if best else 0), index, best


def _asked_first(header: str, terms: frozenset[str], written: str, labelled: bool) -> int | None:
    """Of the columns ``terms`` name alike, the one the question (``written``) names
    first after its "what" or "which" ("what is the flavor for the MIPS Malta
    subarchitecture": "Flavor", not "Subarchitecture" nor the "Debian Designation" of "In
    Debian 12's table"), not the first where the row is named by its first cell, printed
    under it (``labelled``: "which interface is ILib3MFModelMeshObject derived from" asks "derived
    from", not "Interface"); None where it asks neither or names none after it."""
    tokens = written.split()
    asking = next((i for i, t in enumerate(tokens) if t in _ASKING), None)
    if asking is None:
        return None
    names = header.split(CELLS)
    counts = [column_named(terms, n) for n in names]
    best = max(counts, default=0)
    tied = [i for i, n in enumerate(counts) if n == best and best and (i or not labelled)]
    for token in tokens[asking + 1 :]:
        named = [i for i in tied if bag(token) & column_terms(names[i])]
        if named:
            return named[0] if len(named) == 1 else None
    return None


def _filled(cells: list[str], under: int | None) -> bool:
    """Whether the row has a value in the cell ``under`` the named column (``value_at``;
    an empty cell, read ``-``, says the table does not hold it); None (no column named
    alone, or no cell of the row's own there to read) is filled."""
    if under is None:
        return True
    return under < len(cells) and cells[under].strip() not in ("", EMPTY_CELL)


# a question about a change, not a figure: "How much did revenue increase in 2022?"
_ASKS_CHANGE = re.compile(
    r"\b(?:chang|increas|decreas|grow|grew|ris(?:e|es|en|ing)\b|rose\b|fell\b|fall|declin|"
    r"drop|differen|compar|higher|lower|more\b|less\b|up\b|down\b|vs\b|versus)",
    re.IGNORECASE,
)
# the words before a change's amount: "increased by $", "decreased approximately "
_CHANGED_BY = re.compile(
    r"\b(?:increased|decreased|rose|fell|grew|declined|dropped|(?:was|were) (?:up|down))"
    r"\s+(?:by\s+)?(?:approximately\s+|about\s+)?[$€£¥]?\s?$",
    re.IGNORECASE,
)
_AMOUNT = re.compile(r"[$€£¥]?\s?(\d[\d,]*(?:\.\d+)?)\s*(thousand|million|billion)?", re.IGNORECASE)
_RATE = re.compile(r"\s*(?:%|percent\b|per cent\b)", re.IGNORECASE)  # "increased 5%": a rate
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9}


def changed_row(question: str, read: Sequence[Read], context: Context | None) -> Named | None:
    """The row of the leading passage whose change between two years is the amount the
    reader's sentence gives as a change, read at that row, where the question asks the
    figure of a year, not its change (see the module); None otherwise, or where no row,
    or more than one, differs by that amount."""
    if not read or _ASKS_CHANGE.search(question) or _NOT_A_VALUE.search(question.lower()):
        return None
    years = set(asked(question).years)
    lead = read[0]
    text = lead.hit.chunk.text
    span = lead.reading
    line_start = text.rfind("\n", 0, span.start) + 1
    if (
        not years
        or CELLS in text[line_start : span.start]
        or not _CHANGED_BY.search(text[line_start : span.start])
    ):
        return None
    amount = _AMOUNT.match(text, span.start)
    if amount is None or _RATE.match(text, amount.end()):
        return None  # none, or a rate of change ("increased 5%"), not a difference
    stated = amount.group(1)
    value = float(stated.replace(",", "")) * _SCALES.get((amount.group(2) or "").lower(), 1)
    places = len(stated.partition(".")[2])
    tolerance = 0.5 * 10**-places * _SCALES.get((amount.group(2) or "").lower(), 1)
    sentence_end = text.find("\n", span.end)
    said = text[line_start : len(text) if sentence_end < 0 else sentence_end]
    year = next((y for y in YEAR.findall(said) if y in years), None)
    if year is None:
        return None
    other = next((y for y in YEAR.findall(said) if y != year), None)
    found: list[tuple[int, int]] = []
    at = 0
    for line in text.split("\n"):
        start, at = at, at + len(line) + 1
        if CELLS not in line:
            continue
        row = lead.hit.chunk.char_start + start
        header = header_row(lead, row) if lead.hit.chunk.header is not None else None
        if header is None:
            printed = header_of(lead, row, context)
            header = None if printed is None else printed.text
        if header is None or line.strip() == header.strip():
            continue
        change = _change(line, header, year, other)
        if change is not None and _same(change, value, tolerance):
            found.append((start, start + len(line)))
    if len(found) != 1:
        return None
    start, end = found[0]
    reading = Reading(lead.reading.score, start, end)
    return Named(replace(lead, reading=reading, named=True), True)


@dataclass(frozen=True, slots=True)
class _Change:
    """How far a row's two amounts are apart, to how many decimal places they are
    printed, and whether they are percentages (a change in points, never in thousands)."""

    by: float
    places: int
    percent: bool


def _change(line: str, header: str, year: str, other: str | None) -> _Change | None:
    """How far the row's amount under ``year`` is from its amount under ``other`` (the
    year beside it in the header when the sentence names none), in the table's unit;
    None where either is not an amount."""
    names = header.split(CELLS)
    columns = [i for i, n in enumerate(names) if YEAR.fullmatch(n.strip())]
    at = next((i for i in columns if names[i].strip() == year), None)
    if at is None:
        return None
    if other is not None:
        before = next((i for i in columns if names[i].strip() == other), None)
    else:
        nearby = [i for i in columns if abs(i - at) == 1]
        before = nearby[0] if len(nearby) == 1 else None
    if before is None:
        return None
    cells = line.split(CELLS)
    figures = [value_at(line, header, i) for i in (at, before)]
    if any(f is None or f >= len(cells) for f in figures):
        return None
    shown = [cells[f] for f in figures if f is not None]
    a, b = (_amount(cell) for cell in shown)
    if a is None or b is None:
        return None
    places = max(len(_digits(cell).partition(".")[2]) for cell in shown)
    return _Change(abs(abs(a) - abs(b)), places, any("%" in cell for cell in shown))


def _digits(cell: str) -> str:
    """A cell's figure as printed, its currency sign, brackets and percent sign aside."""
    return cell.strip().strip("$€£¥()% ")


def _amount(cell: str) -> float | None:
    """A cell's amount, its sign, brackets and thousands separators aside."""
    try:
        return float(_digits(cell).replace(",", ""))
    except ValueError:
        return None


def _same(change: _Change, amount: float, tolerance: float) -> bool:
    """Whether a row's change, in its table's unit (ones, thousands or millions; a
    percentage's in points), is the amount a sentence states, to the precision of both:
    the sentence's ``tolerance`` or the cells' last printed place. A unit is one the
    amount can be written in (half of one or more: "150" is no change in thousands)."""
    units = (1.0,) if change.percent else (1.0, 1e3, 1e6)
    return change.by > 0 and any(
        abs(change.by * unit - amount) <= max(tolerance, 0.5 * 10**-change.places * unit)
        for unit in units
        if unit == 1 or amount >= 0.5 * unit
    )


@dataclass(frozen=True, slots=True)
class Valued:
    """The row a value the question gives picks out of its column ("the car with 8
    carburetors": the row whose "carb" is 8): its chunk, the row's offsets in the chunk's
    text, and whether the cell of the column asked holds a value."""

    chunk: Chunk
    start: int
    end: int
    filled: bool


def valued_row(
    question: str, tables: Sequence[Chunk], chunks: Callable[[str], Sequence[Chunk]]
) -> Valued | None:
    """The one row of a table among ``tables``' (chunks read or retrieved, first
    first) that the question picks by a value of one column and asks another column of:
    a number beside a word naming a column by its name or its short name ("8
    carburetors": "carb"; "magnitude 6.4": "mag"; ``quotes.abbreviates``), and one other
    column named so ("horsepower": "hp"). All the table's rows are read (``chunks``: a
    document's chunks): a sheet's rows are numbers the question's words do not find.
    None unless exactly one row holds the value. A measure's adjective or unit names
    its column ("how deep": "depth"; "the 423 gram chick": "weight"; ``measures``). A
    whole number given alone picks its row by the table's first column ("the codename of
    Debian 10": the row whose "version" is 10)."""
    asked = words(question)
    asked += measures(asked)
    seen: set[tuple[str, str | None, str]] = set()
    documents: dict[str, Sequence[Chunk]] = {}
    best: tuple[int, Valued] | None = None
    for chunk in tables:
        header = chunk.header or _first_row(chunk.text)
        key = (chunk.document_id, chunk.section, header or "")
        if not header or key in seen:
            continue
        seen.add(key)
        names = [n.strip() for n in header.split(CELLS)]
        given = _value_given(question, names)
        if given is None:
            continue
        column, value = given
        named = {i: _named_by(n, asked) for i, n in enumerate(names) if i != column}
        most = max(named.values(), default=0)
        others = [i for i, n in named.items() if n == most and most]
        if len(others) != 1 or (best is not None and most <= best[0]):
            continue
        if chunk.document_id not in documents:
            documents[chunk.document_id] = chunks(chunk.document_id)
        found = _row_of(documents[chunk.document_id], chunk.section, header, column, value)
        if found is not None:
            row_chunk, start, end = found
            cells = row_chunk.text[start:end].split(CELLS)
            cell = cells[others[0]].strip() if others[0] < len(cells) else ""
            best = most, Valued(row_chunk, start, end, cell not in ("", EMPTY_CELL))
    return None if best is None else best[1]


def _first_row(text: str) -> str | None:
    """A chunk's first line when it is a row: a sheet's header, at its first chunk."""
    line = text.split("\n", 1)[0]
    return line if CELLS in line else None


def _names(name: str, asked: Sequence[str]) -> bool:
    """Whether the question's words name a column: its whole name, or a word it cuts
    short."""
    own = words(name)
    return bool(own) and (all(w in asked for w in own) or any(abbreviates(name, w) for w in asked))


def _named_by(name: str, asked: Sequence[str]) -> int:
    """How well the question's words name a column (0: not at all): by its whole name or
    a word it cuts short (``_names``), or by its last word, its other words counting
    for more (a block's column "clock3 ElnfX" over "clock2 ElnfX" asked of clock3; its
    "clock2 weight" asked of the weight alone)."""
    own = words(name)
    if _names(name, asked):
        return 1 + len(own)  # whole, or a word it cuts short: "hp" of "horsepower"
    return 1 + sum(w in asked for w in own) if own and own[-1] in asked else 0


_JOINING = frozenset(("of", "is", "was", "were", "at", "equal", "equals", "to", "a", "an"))


def _value_given(question: str, names: Sequence[str]) -> tuple[int, float] | None:
    """The column a number of the question is given for, and the number: the word before
    ("a population of 8,730,405": "population", past the words joining them) or after
    it names exactly one column ("8 carburetors", "magnitude 6.4"); else, for
    the one whole number the question gives, the table's first column, the key its rows
    are listed by ("Debian 10" of a sheet of releases whose first column is "version")."""
    given = list(GIVEN_NUMBER.finditer(question))
    for m in given:
        # past the words that join a name to its value: "a population of 8,730,405"
        said = [w for w in words(question[: m.start()]) if w not in _JOINING]
        before = said[-1:]
        after = words(question[m.end() :])[:1]
        beside = before + after
        named = [i for i, n in enumerate(names) if _names(n, beside + measures(beside))]
        if len(named) == 1:
            return named[0], float(m.group().replace(",", ""))
    if len(given) == 1 and given[0].group().isdigit() and not _names(names[0], words(question)):
        return 0, float(given[0].group())
    return None


def _row_of(
    chunks: Sequence[Chunk], section: str | None, header: str, column: int, value: float
) -> tuple[Chunk, int, int] | None:
    """The one row under ``header`` (in ``section``) whose cell ``column`` is ``value``:
    its chunk and offsets; None when none is, or several are. A chunk that prints the
    header among its lines holds the rows under it (``table_headers``), not those of the
    tables before and after it."""
    width = len(header.split(CELLS))
    found: list[tuple[Chunk, int, int]] = []
    for chunk in chunks:
        under = (chunk.header or _first_row(chunk.text)) == header
        if chunk.section != section or not (under or _holds_table(chunk, header)):
            continue
        lines = chunk.text.split("\n")
        starts = list(itertools.accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
        heads = [header] * len(lines) if under else table_headers(chunk.text, starts)
        at = 0
        for line, head in zip(lines, heads, strict=True):
            start, at = at, at + len(line) + 1
            if head != header:
                continue
            cells = line.split(CELLS)
            # a row may hold fewer cells than its header (a PDF row printed without its
            # empty cells, a sheet's row no wider than the rows above it)
            fits = column < len(cells) <= width and line != header
            if fits and _number(cells[column]) == value:
                found.append((chunk, start, start + len(line)))
                if len(found) > 1:
                    return None
    return found[0] if found else None


def _number(cell: str) -> float | None:
    try:
        return float(cell.strip().replace(",", ""))
    except ValueError:
        return None
