"""The side of a two-sided relation a question asks about.

A court transcript lists counsel for both parties one after the other, a lease names
the landlord's duties beside the tenant's, a handbook the employer's beside the
employee's: the sentences look alike, and the reader may pick the other side's
("Who argued for the petitioner?" answered "CHARLES M. SEVILLA, ESQ.; on behalf of the
Respondent."). So where the question names one side of such a pair and not the other,
a quote that names only the other side gives way to the passage's sentence that names
the side asked."""

from __future__ import annotations

from ..lexical import bag, chunk_sentences, stem

# each pair's two sides, as their stems
_PAIRS = (
    ("petitioner", "respondent"),
    ("plaintiff", "defendant"),
    ("appellant", "appellee"),
    ("claimant", "respondent"),
    ("buyer", "seller"),
    ("purchaser", "seller"),
    ("lessor", "lessee"),
    ("licensor", "licensee"),
    ("landlord", "tenant"),
    ("employer", "employee"),
    ("borrower", "lender"),
    ("debtor", "creditor"),
)
_SIDES = tuple((stem(a), stem(b)) for a, b in _PAIRS)


def asked_side(question: str) -> list[tuple[str, str]]:
    """The pairs whose one side (first) the question names without the other (second)."""
    named = bag(question)
    found = []
    for a, b in _SIDES:
        if a in named and b not in named:
            found.append((a, b))
        elif b in named and a not in named:
            found.append((b, a))
    return found


def side_sentence(question: str, text: str, start: int, end: int) -> tuple[int, int] | None:
    """The sentence of ``text`` to quote instead of ``text[start:end]`` where that names
    only the side the question does not ask about (None: it names the side asked, or no
    sentence of the passage names it alone)."""
    sides = asked_side(question)
    if not sides:
        return None
    quoted = bag(text[start:end])
    wrong = [(a, b) for a, b in sides if b in quoted and a not in quoted]
    if not wrong:
        return None
    for s, e, _ in chunk_sentences(text):
        said = bag(text[s:e])
        if all(a in said and b not in said for a, b in wrong):
            return s, e
    return None
