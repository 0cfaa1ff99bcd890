"""A table's caption as the last part of its rows' section path.

A paper's table is named by its caption ("Table 4: Results on Webshop."), printed under
it; a report's, often above. Its rows name neither the table nor what it measures
("ReAct | 66.6 | 40.0"), so a question about "ReAct's success rate on WebShop" finds
nothing in them that it names. So the rows of a table, the short labels printed among
them and the caption itself are placed under a section of their own, the caption's
first sentence: searched with the rows (the keyword index sees a passage's section),
shown in their citation ("4 Decision Making Tasks > Table 4: Results on Webshop") and
checked as the evidence of what a question names. A caption is a block a format marks as one
(HTML's ``<caption>``) or one that opens "Table N:". A document prints its captions on
one side of its tables: the side most of its captioned tables have (under them on a
tie). A financial statement's title ("Consolidated Statements of Cash Flows") names the
table under it, whichever side the document's captions are on."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from footnoted.lexical import CELLS, LABEL_WORDS

if TYPE_CHECKING:
    from .blocks import Block

CAPTION_CHARS = 100  # a caption's title is cut at a word to about this length
_NUMBERED = r"\s+[A-Z]?\d+(?:\.\d+)*\s*[:.–—-]\s*\S"
# "Table 4: Results on Webshop.", "TABLE 2. Summary", "Table A1 - Prompts"
_CAPTION = re.compile(rf"(?:Table|TABLE|Tab\.){_NUMBERED}")
# a financial statement's title printed over its table, capitalised as a title and not
# a sentence ("The Boeing Company and Subsidiaries Consolidated Statements of Cash Flows
# (Dollars in millions)", "Lyft, Inc. Consolidated Balance Sheets (in thousands)",
# "Statements of Changes in Equity", "Income Statement"; not "… in the consolidated
# statement of profit or loss." nor a label: "Statement of Operations Data:")
_STATEMENT = re.compile(
    r"\b(?:S(?:TATEMENTS?|tatements?)\s+(?i:of\s+(?:[\w’']+\s+){0,6}?(?:operations|income|"
    r"earnings|loss|cash\s+flows|(?:financial\s+)?position|equity|deficit|capital))"
    r"|B(?:ALANCE\s+SHEETS?|alance\s+[Ss]heets?)|I(?:NCOME\s+STATEMENTS?|ncome\s+[Ss]tatements?))"
    r"\b(?!\s+(?i:data)\b)"
)
# what follows a statement's name and is not the table's: its period, "(continued)"
_NOT_TITLE = re.compile(
    r"\s+(?:for\s+the\s+)?(?:(?:fiscal\s+)?years?|quarters?|(?:three|six|nine|twelve)\s+"
    r"months|periods?)\s+ended\b.*|\s+(?:as\s+)?(?:of|at)\s+(?:december|january|february|"
    r"march|april|may|june|july|august|september|october|november|\d).*|\s*\(continued\)",
    re.IGNORECASE,
)
STATEMENT_WORDS = 20  # a statement's title is short: longer, it is prose that names one
CAPTION = re.compile(rf"(?:Table|TABLE|Tab\.|Figure|FIGURE|Fig\.|Exhibit|EXHIBIT){_NUMBERED}")
# a sentence's end: not an abbreviation's full stop ("vs. ALCE", "et al. (2022)")
_SENTENCE_END = re.compile(
    r"(?<!\bvs)(?<!\bal)(?<!\be\.g)(?<!\bi\.e)(?<!\bFig)(?<!\bNo)(?<!\bcf)"
    r"[.!?](?=\s+[A-Z(“\"‘']|\s*$)"
)


def captioned(blocks: Sequence[Block]) -> list[Block]:
    """``blocks`` with each captioned table's rows, labels and caption under the caption;
    a statement's title, always printed above its table, whichever side the document
    prints its captions."""
    tables = _tables(blocks)
    above = {start: _caption_above(blocks, start) for start, _, _ in tables}
    titled = {start for start, at in above.items() if at is not None and _statement(blocks[at])}
    under = sum(at is not None for _, _, at in tables) >= sum(
        at is not None and start not in titled for start, at in above.items()
    )
    out = list(blocks)
    for start, end, below in tables:
        at = below if under and start not in titled else above[start]
        if at is None:
            continue
        title = _title(blocks[at].text)
        if blocks[at].section[-1:] == (title,):
            continue  # a heading that names its table is its section already
        for i in range(at, end) if at < start else range(start, at + 1):
            out[i] = replace(blocks[i], section=(*blocks[i].section, title))
    return out


def _tables(blocks: Sequence[Block]) -> list[tuple[int, int, int | None]]:
    """Each table as ``(start, end, caption)``: block indexes of its first row and past
    its last, two rows or more (blocks of cells) and the short labels between them under
    one section path, and the caption printed under it (None: none is)."""
    tables: list[tuple[int, int, int | None]] = []
    i = 0
    while i < len(blocks):
        if CELLS not in blocks[i].text:
            i += 1
            continue
        start, rows, last, caption = i, 0, i, None
        for j in range(i, len(blocks)):
            text = blocks[j].text
            if blocks[j].section != blocks[start].section:
                break
            if CELLS in text:
                rows, last = rows + 1, j
            elif _captions(blocks[j]):
                caption = j
                break
            elif len(text.split()) > LABEL_WORDS or _statement(blocks[j]):  # prose, a title
                break
        if rows >= 2:
            tables.append((start, last + 1, caption))
        i = last + 1
    return tables


def _caption_above(blocks: Sequence[Block], start: int) -> int | None:
    """The caption printed above the table whose first row is ``start``, right above it
    or above one short label ("(Dollars in millions)")."""
    section = blocks[start].section
    for at in (start - 1, start - 2):
        if at < 0 or blocks[at].section != section:
            return None
        if _captions(blocks[at]) or _statement(blocks[at]):
            return at
        if CELLS in blocks[at].text or len(blocks[at].text.split()) > LABEL_WORDS:
            return None
    return None


def _captions(block: Block) -> bool:
    """Whether the block is a table's caption: marked so by its format (HTML's
    ``<caption>``), or written as one ("Table 4: …")."""
    return block.caption or bool(_CAPTION.match(block.text))


def _statement(block: Block) -> bool:
    """Whether the block is a financial statement's title (short, not a sentence)."""
    text = block.text
    short = CELLS not in text and len(text.split()) <= STATEMENT_WORDS
    return short and text.rstrip()[-1:] not in (".", ":") and bool(_STATEMENT.search(text))


def _title(caption: str) -> str:
    """The caption's first sentence, without its full stop (a statement's title whole,
    less its period), cut to about :data:`CAPTION_CHARS` at a word."""
    label = _CAPTION.match(caption)
    if label is None and _STATEMENT.search(caption):
        # whole, the company's "Inc." kept ("Lyft, Inc. Consolidated …"), less its period
        title = _NOT_TITLE.sub("", caption)
    else:
        found = _SENTENCE_END.search(caption, label.end() if label else 0)
        title = caption[: found.start()] if found else caption
    if len(title) > CAPTION_CHARS:
        title = title[: title.rfind(" ", 0, CAPTION_CHARS)].rstrip(",;: ") + " …"
    return title.strip()
