"""Plain text: paragraphs are separated by blank lines; headings are read from how the
text sets them.

Plain text has no heading markup, but licences, RFCs, manuals and notes set their
headings apart all the same, and a passage under one is cited by it. A heading is a
paragraph of one short line that is numbered and in title case ("0. Definitions.",
"10.1. New Versions") or in capitals ("TERMS AND CONDITIONS"), a line underlined with
a run of one mark ("=", "-", "*", "~", …) at least about as long (as AsciiDoc and
reStructuredText set titles, the section's text perhaps on the very next line), or the
numbered title-case sentence that opens a paragraph ("2. Grant of Copyright License.
Subject to …": a block of its own, the rest another). A numbered heading's depth is its
number's ("1." over "1.1."); capitals and the first underline mark the text uses open a
level above the numbered ones, each further mark a level below the one before
(reStructuredText's rule). A numbered sentence ("5.1. The
rights granted under this License will terminate …") is no heading: its words are not
in title case; nor is a term a paragraph defines ('1.6. "Executable Form" means …'),
which stays one passage with its definition.

A text that says on its first line it is in Emacs's outline or Org mode ("-*- outline -*-",
as GNU projects' NEWS files do) sets its headings as lines of stars at the line's start
(an indented "* item" is a list's): "* Noteworthy changes in release 9.1 (2022-04-15)
[stable]" heads "** Bug fixes", which heads its entries.

A table set in columns by spaces (a program's report of figures under its header) is
read row by row, each row's cells apart (``columns``).

reStructuredText's inline markup is read as the text it shows: a link's words without
its address ("`Social Contract <https://…>`__"), a literal without its backquotes
("``subscribe``"), a cross-reference's target ("see :ref:`mentors`"); a paragraph that
is only a link target (".. _mentors:") shows nothing and is dropped.
"""

from __future__ import annotations

import itertools
import re

from footnoted.models import ParsedDocument

from .blocks import Block, Sections, assemble
from .columns import ColumnTables

_BLANK_LINE = re.compile(r"\n[ \t\f\v]*\n")
HEADING_WORDS = 12  # a heading line is no longer
_NUMBER = r"(?P<number>\d{1,2}(?:\.\d{1,2})*)\.?"
_NUMBERED = re.compile(rf"{_NUMBER}\s+(?P<title>\S.*?)")
# a numbered title that opens its paragraph's first sentence: "2. Grant of Copyright
# License. Subject to the terms …"
_OPENING = re.compile(rf"\s*(?P<heading>{_NUMBER}\s+(?P<title>[A-Z][^.\n]{{2,80}}?)\.)\s+\S")
_QUOTES = "\"“'‘"
_CODE = re.compile(r"[=_<>{}\[\]]|^[*•-]\s")  # a setting, a name in code, a list item
_UNDERLINE = re.compile(r"(?P<mark>[-=*~^\"+#`])(?P=mark){2,}")
_LINK = re.compile(r"`([^`<>]+?)\s*<[^<>`\s]+>`__?")
_LITERAL = re.compile(r"``([^`\n]+)``")
_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`([^`\n]+)`")
_TARGET = re.compile(r"\.\. _[^:\n]+:")
_ITEM = re.compile(r"(?P<mark> *(?:\d{1,2}\.|[*•+-]) +)\S")  # a list item's marker, to its text
_FIELD = re.compile(r"\S+: |.*@")  # "Control: close 42", an address
_TERM_LEVEL = 100  # a term heads its description below every heading the text sets
# a text in Emacs's outline or Org mode ("GNU coreutils NEWS  -*- outline -*-" on its
# first line) sets its headings as lines of stars, one more a level down ("* Noteworthy
# changes in release 9.1 (2022-04-15) [stable]" over "** Bug fixes")
_OUTLINE_MODE = re.compile(r"-\*-.*\b(?:outline|org)\b.*-\*-", re.IGNORECASE)
_STARRED = re.compile(r"(?P<stars>\*{1,6}) +(?P<title>[^\s*][^\n]*)")  # not "* * *"
_SMALL = frozenset(("a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "its",
                    "of", "on", "or", "our", "than", "the", "their", "these", "this", "to",
                    "under", "with", "without", "your"))  # fmt: skip


def load_text(_data: bytes, text: str | None, _name: str) -> ParsedDocument:
    content = (text or "").replace("\r\n", "\n").replace("\r", "\n")
    parts: list[str] = []
    titles: set[int] = set()  # the parts that are a hanging list item's title
    items: set[int] = set()  # the parts that are a list's item (or its title's text)
    rows: set[int] = set()  # the parts that are a row of a table set in columns
    tables = ColumnTables()
    outline = _OUTLINE_MODE.search(content.split("\n", 1)[0])
    starred: dict[int, tuple[int, str]] = {}  # an outline's headings: level, title
    for part in _BLANK_LINE.split(content):
        star = _STARRED.match(part.lstrip("\n")) if outline else None
        if star is not None:  # at the line's start, its text perhaps on the lines below
            starred[len(parts)] = len(star["stars"]), star["title"].strip()
            parts.append(star.group())
            rest = part.lstrip("\n")[star.end() :]
            if rest.strip():
                parts.append(rest)
        elif (table := tables.rows(part.split("\n"))) is not None:
            rows.update(range(len(parts), len(parts) + len(table)))
            parts += table
        elif not _TARGET.fullmatch(part.strip()):
            pieces = _items(_shown(part))
            for item, titled in pieces:
                if titled:
                    titles.add(len(parts))
                elif len(pieces) > 1:
                    items.add(len(parts))
                parts.append(item)
    delimiters = _delimiters(parts)
    ranks = _numbered_marks(parts, delimiters)
    indented = _indented(parts)
    marks: list[str] = []  # the underline marks in the order the text first uses them
    sections = Sections()
    blocks = []
    for index, part in enumerate(parts):
        if index in items or index in rows:
            blocks.append(Block(part, sections.path))
            continue
        heading = (
            (*starred[index], "") if index in starred else _heading(part, delimiters, marks, ranks)
        )
        if heading is None and index in titles:  # a list's numbers number no sections
            heading = _TERM_LEVEL, part.strip(), ""
        if heading is None and indented and _flush_title(part):  # below an underlined title
            numbered = _NUMBERED.fullmatch(part.strip())
            level = _depth(numbered["number"]) if numbered else min(len(marks), 1)
            heading = level, part.strip(), ""
        if heading is None and _term(part, parts[index + 1] if index + 1 < len(parts) else ""):
            heading = _TERM_LEVEL, part.strip(), ""
        if heading is None:
            blocks.append(Block(part, sections.path))
            continue
        level, title, rest = heading
        if outline:  # the editor's mode is no words of the title: "GNU coreutils NEWS"
            title = " ".join(_OUTLINE_MODE.sub(" ", title).split()) or title
        blocks.append(Block(title, sections.enter(level, title)))
        if rest.strip():
            blocks.append(Block(rest, sections.path))
    return assemble(blocks, kind="text", title=None)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _items(part: str) -> list[tuple[str, bool]]:
    """A paragraph split into its list items where they hang: a line opening with a
    number or a bullet ("    1. Debian will remain 100% free") whose next lines are set
    at its text's column ("       We provide …") opens an item. An item whose first line
    is a title (short, unpunctuated, well short of the lines below, the next line opening
    a sentence) is a paragraph of that title alone (marked True), then one of the rest,
    so the title heads it; a sentence wrapped after a full line is no title."""
    lines = part.split("\n")
    starts = [
        i
        for i, line in enumerate(lines)
        if (marker := _ITEM.match(line))
        and (
            i + 1 == len(lines)
            or _ITEM.match(lines[i + 1])
            or _indent(lines[i + 1]) == marker.end("mark")
        )
        and (i == 0 or _indent(lines[i - 1]) >= _indent(line))
    ]
    hanging = [i for i in starts if i + 1 < len(lines) and not _ITEM.match(lines[i + 1])]
    if not hanging:
        return [(part, False)]
    out: list[tuple[str, bool]] = []
    bounds = [0, *starts, len(lines)] if starts[0] else [*starts, len(lines)]
    for first, end in itertools.pairwise(bounds):
        head, rest = lines[first], lines[first + 1 : end]
        title = _ITEM.sub("", head, count=1).strip()
        if (
            first in starts
            and rest
            and _short(title)
            and title[-1] not in ".,;:"
            and rest[0].strip()[:1].isupper()
            and len(head.rstrip()) * 4 < max(len(line.rstrip()) for line in rest) * 3
        ):
            out += [(head, True), ("\n".join(rest), False)]
        else:
            out.append(("\n".join(lines[first:end]), False))
    return out


def _indented(parts: list[str]) -> bool:
    """Whether the text's paragraphs are set in from the margin (a page dumped from
    HTML), so that a short line at the margin stands out as a heading."""
    lines = [part.split("\n")[0] for part in parts if part.strip()]
    return sum(_indent(line) > 0 for line in lines) * 3 > len(lines) * 2


def _lone_line(part: str) -> str | None:
    """The paragraph's line where it is one line of words that ends no sentence and
    underlines nothing (a heading's or a term's shape), else None."""
    lines = part.strip("\n").split("\n")
    line = lines[0]
    if len(lines) > 1 or not line.strip() or line.rstrip()[-1] in ".,;:!?":
        return None
    if _UNDERLINE.fullmatch(line.strip()):
        return None
    return line


def _flush_title(part: str) -> bool:
    """A paragraph of one short line at the margin that ends no sentence, in a text
    whose paragraphs are set in: '"Social Contract" with the Free Software Community';
    not a field or an address ("Forwarded: foo@example.com": a term), nor a setting."""
    line = _lone_line(part)
    return (
        line is not None
        and _indent(line) == 0
        and _short(line)
        and not _FIELD.match(line)
        and not _CODE.search(line)  # 'export BM_UPLOAD_RSYNC_DIRECTORIES="/data/photos"'
    )


def _term(part: str, following: str) -> bool:
    """A paragraph of one short line (a term: a list's address, an option) whose next
    paragraph is set in deeper, as its description ("  debian-user@lists.debian.org"
    over "      Description : Support for …"): it heads that description."""
    line = _lone_line(part)
    below = [row for row in following.split("\n") if row.strip()]
    return (
        line is not None
        and 0 < len(line.split()) <= 4
        and bool(below)
        and min(_indent(row) for row in below) > _indent(line)
    )


def _delimiters(parts: list[str]) -> set[str]:
    """The runs that delimit a listing (AsciiDoc's "------------" around an example): a
    run opening a paragraph or after a list item's "+" opens one; under a line, the
    same run closes one, and underlines no title."""
    found = set()
    for part in parts:
        lines = [line.strip() for line in part.strip().split("\n")]
        for i, line in enumerate(lines):
            if _UNDERLINE.fullmatch(line) and (i == 0 or lines[i - 1] == "+"):
                found.add(line)
    return found


def _shown(part: str) -> str:
    """A paragraph with reStructuredText's inline markup read as the text it shows."""
    return _ROLE.sub(r"\1", _LITERAL.sub(r"\1", _LINK.sub(r"\1", part)))


def _numbered_marks(parts: list[str], delimiters: set[str]) -> dict[str, int]:
    """The marks that underline numbered titles, each with the level of the highest it
    underlines ("1. About this manual" over "-----": 1)."""
    found: dict[str, int] = {}
    for part in parts:
        titled = _title_over(part, delimiters)
        numbered = None if titled is None else _NUMBERED.fullmatch(titled[0])
        if titled is not None and numbered is not None:
            depth, mark = _depth(numbered["number"]), titled[1]
            found[mark] = min(depth, found.get(mark, depth))
    return found


def _title_over(part: str, delimiters: set[str]) -> tuple[str, str] | None:
    """The title a paragraph's first line is, underlined by its second (``_underlined``,
    not a listing's delimiter), with the underline's mark; None where it is none."""
    lines = [line.strip() for line in part.strip("\n").split("\n")]
    if len(lines) >= 2 and lines[1] not in delimiters and _underlined(lines[0], lines[1]):
        return lines[0], lines[1][0]
    return None


def _heading(
    part: str, delimiters: set[str], marks: list[str], ranks: dict[str, int]
) -> tuple[int, str, str] | None:
    """The heading a paragraph is or opens: its level, its title and the paragraph's
    rest ("" where the heading is the whole paragraph; an underline is dropped); None
    for any other paragraph. An underlined title's level is its number's depth; else
    that of the numbered titles its mark underlines (``ranks``), else its mark's place
    in ``marks``, the marks in the order the text first used them (a new one
    appended)."""
    raw = part.strip("\n").split("\n")
    lines = [line.strip() for line in raw]
    titled = _title_over(part, delimiters)
    if titled is not None:
        title, mark = titled
        numbered = _NUMBERED.fullmatch(title)
        if mark not in marks:
            marks.append(mark)
        # a title underlined as numbered ones are ranks with them ("Contents" over "-----"
        # heads no "1. About this manual" set the same way); else by its mark's place
        level = _depth(numbered["number"]) if numbered else ranks.get(mark, marks.index(mark))
        return level, title, "\n".join(raw[2:])
    if len(lines) == 1 and _short(lines[0]):
        line = lines[0]
        if line.isupper() and sum(map(str.isalpha, line)) > 3 and not _CODE.search(line):
            return 0, line, ""
        numbered = _NUMBERED.fullmatch(line)
        if numbered and numbered["title"][:1] not in _QUOTES and _titled(numbered["title"]):
            return _depth(numbered["number"]), line, ""
    opening = _OPENING.match(part)
    if opening and _titled(opening["title"]):
        return _depth(opening["number"]), opening["heading"].strip(), part[opening.end() - 1 :]
    return None


def _underlined(line: str, under: str) -> bool:
    """Whether ``under`` underlines ``line`` as a heading: a short line over a run of one
    mark at least as long, give or take two (an AsciiDoc title's, whose text may follow
    on the next line; reStructuredText lets it run on past the title's end), not a
    listing's delimiter under an example's last line ("Signed-off-by: Alice
    <alice@example.com>" over "------------": the caller knows the delimiters)."""
    return _short(line) and bool(_UNDERLINE.fullmatch(under)) and len(under) >= len(line) - 2


def _short(line: str) -> bool:
    return 0 < len(line.split()) <= HEADING_WORDS


def _depth(number: str) -> int:
    """A numbered heading's level: "1" is 1, "1.1" 2 (capitals and "=" are 0)."""
    return number.count(".") + 1


def _titled(title: str) -> bool:
    """Whether a title is in title case ("Grant of Copyright License", "Protecting
    Users' Legal Rights From Anti-Circumvention Law."), not a sentence ("The rights
    granted under this License …")."""
    words = re.findall(r"[^\W\d_][\w'’-]*", title.strip().rstrip(".:"))
    return bool(words) and all(w[0].isupper() or w.lower() in _SMALL for w in words)
