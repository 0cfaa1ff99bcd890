"""What a question names that its evidence must name too.

A question about Uber's revenue asked of Lyft's annual report, or about 2019 asked of a
table of 2020 to 2022, finds passages that look right and are not: the reader answers
the question it can. So before an answer is given, the years and the names a question
asks about (a company, a product, a person, a model: a capitalised or mixed-case word
that does not open the question, an acronym, a word with digits; a currency's code is
found by its sign: "USD" by "$") must be found in the evidence: the leading passage's
text, its section path, its table's header and the label its row is printed under
("ChatGPT" over the rows of its methods), and the document's title. A year may also be
in the answer's other quotes; a name in the other passages the answer quotes (a two-hop
answer's bridge names the film the question describes), on the document's cover (its
first :data:`COVER_CHARS` characters: "Northwind Cloud" atop its policy) or in its
opening pages, when they name it again and again (a paper that calls itself "ALCE"
there, a report naming its company: not a competitor it mentions twice). A year that
names the document rather than the figure ("Who signed Lyft's 2021 10-K?") is held by
the document's cover too. Where one is not, the question is refused, and the refusal
says what was looked for and not found. A quarter the question asks about ("the fourth
quarter of 2022") is held as a year is: a year's total does not answer it. A thing a
question names in lower case by its kind ("the nobody user", "the www-data user", "the
toc extension": one entry of the many a guide lists) is held only as written by the
passages quoted, never by the document's opening that lists them all; a word of a
name written as a phrase ("Financial" of "Chief Financial Officer") only by the phrase,
where the passages lack it; a name run together with its version ("GPLv3") by its
initials and that version. A question asking for a number ("How many …", "What
percentage …", "In what year …", ``counts``) is answered only by a leading quote that
holds one other than those the question gives itself (``holds_number``).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from ..lexical import NUMBER_WORD, abbreviated, stem, stop_words, words

ABOUT_TIMES = 3  # how often a document's opening names what it is about
COVER_CHARS = 1000  # a document's cover: its title, its owner, what it is
TYPO_LETTERS = 6  # names this long are held with one letter wrong
_ENDINGS = frozenset(("n", "an", "ian", "ean", "ese", "ish", "i", "ic", "s", "es", "ns", "ans"))
YEAR = re.compile(r"\b(?:19|20)\d\d\b")
# a year that says which document is asked ("Lyft's 2021 10-K", "the annual report for
# 2022"), not which figure: its cover holds it
_DOCUMENT = r"(?:annual\s+report|(?:form\s+)?10-?[KQ]|proxy\s+statement|report|filing)"
_FILED = re.compile(
    rf"\b((?:19|20)\d\d)\s+{_DOCUMENT}\b"
    rf"|\b{_DOCUMENT}\s+(?:for\s+(?:the\s+)?(?:fiscal\s+)?(?:year\s+)?|of\s+)((?:19|20)\d\d)\b",
    re.IGNORECASE,
)
# a year written the way finance writes it: "FY2018", "FY 22", "FY'21", "4Q22", "H1'22"
_SHORT_YEAR = re.compile(
    r"\b(?:FY\s?['’]?|H[12]\s?['’])(\d{4}|\d{2})\b|\b(?:[1-4]Q|[12]H)(\d{4}|\d{2})\b",
    re.IGNORECASE,
)
_FORM = re.compile(r"\d{1,2}-?[KQF]", re.IGNORECASE)  # a filing's form: "10K", "8-K", "20F"
# a name and its version run together: "GPLv3", "LGPLv2.1", "HTTPv2"
_VERSIONED = re.compile(r"([A-Za-z]{2,})v(\d+(?:\.\d+)*)")
_NEGATED = re.compile(r"\bnon-[\w-]+", re.IGNORECASE)  # "non-liveCD": not a liveCD
_WHEN_IN_YEAR = re.compile(r"[a-z]+-(?:19|20)\d\d")  # "early-1970", "mid-2021", "pre-2000"
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3,
             "fourth": 4, "4th": 4}  # fmt: skip
_NTH = "|".join(_ORDINALS)
# "the fourth quarter", "first, third and fourth quarters", "Q4", "4Q22"
_QUARTER = re.compile(
    rf"\b((?:{_NTH})(?:\s*(?:,|and|&|or)\s*(?:{_NTH}))*)[\s-]+(?:fiscal\s+)?quarters?\b"
    r"|\bQ([1-4])\b|\b([1-4])Q(?:\d\d){0,2}\b",
    re.IGNORECASE,
)
_QUARTER_CELL = re.compile(rf"(?:^|\|)\s*({_NTH})\s*(?=\||$)", re.IGNORECASE | re.MULTILINE)
_QUARTER_ENDED = re.compile(r"\bthree months ended\b", re.IGNORECASE)  # a quarter, by its end
# a half year as finance writes it ("H1 2022", "1H22"), and as a report prints one
# (with its year: a bare "H2" is as likely hydrogen or a heading)
_HALF = re.compile(
    r"\bH([12])(?=\s*(?:FY\s?)?['’]?(?:19|20)?\d\d\b)|\b([12])H(?=\d\d)", re.IGNORECASE
)
_HALF_SHOWN = re.compile(r"\b(first|second)[\s-]+half\b|\bH([12])\b", re.IGNORECASE)
_HALF_ENDED = re.compile(r"\bsix months ended\b", re.IGNORECASE)
# a name written with its middle left out, as the question writes it: "Wait...UpdateAll"
_ELIDED = re.compile(r"\.\.\.|…|\[…\]|\[\.\.\.\]")
_DIGIT = re.compile(r"\d")
# words in lower case and the names in brackets after them that stand for them
_ALIASED = re.compile(
    r"(?P<words>(?:\b[a-z][a-z-]+\s+){0,2}\b[a-z][a-z-]+)\s+\((?P<inner>[^()]{1,40})\)"
)
_TOKEN = re.compile(r"[A-Za-z][\w'’&.-]*[\w]|[A-Za-z]")
# capitalised words that name nothing in particular
_COMMON = frozenset(
    (
        "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "is", "are", "was",
        "were", "do", "does", "did", "can", "could", "should", "would", "will", "may", "might",
        "must", "shall", "the", "a", "an", "in", "on", "of", "for", "to", "and", "or", "if", "i",
        "my", "me", "we", "our", "us", "you", "your", "it", "its", "this", "that", "these",
        "those", "there", "their", "they", "please", "tell", "give", "list", "name", "show",
        "explain", "describe", "according", "per", "under", "vs", "versus", "q1", "q2", "q3", "q4",
        "fy", "i'm", "i’m", "i've", "i’ve", "i'd", "i’d", "i'll", "i’ll",
    )
)  # fmt: skip


# questions that ask for a number: "How many …", "What percentage …", "In what year …"
# which version or release: "which officer version", "what minimum pip version"
_WHICH_VERSION = (
    r"(?:which|what) (?:(?!(?:is|was|were|are|did|does|do|has|had)\b)[\w-]+ ){0,2}"
    r"(?:version|release)(?! control| notes)"
)
_COUNT = re.compile(
    r"^\s*(?:how (?:many|much)|what (?:percentage|percent|proportion|fraction|share of)|"
    r"(?:in |on )?what (?:(?:release|origin|start|starting|end|ending|due|effective|fiscal|"
    r"calendar|launch|birth|closing|filing|expiry|expiration|publication|issue|opening|"
    r"completion|cut-?off|record) )?(?:year|date)\b|what (?:is|was) the numeric(?:al)? value|"
    # the largest or smallest of a count or a size: "what's the largest year number"
    r"what(?:'s| is| was) the (?:largest|smallest|maximum|minimum|highest|lowest) "
    rf"(?:[\w-]+ )?(?:number|value|count|size|length|amount)|(?:in )?{_WHICH_VERSION})\b",
    re.IGNORECASE,
)
# where to look, said first: "On the limits page, …", "According to the kutils essay, …"
WHERE_FIRST = re.compile(r"^\s*(?:on|in|according to|per|from)\s[^,]{1,60},\s*", re.I)
_ASKS_VERSION = re.compile(rf"\b{_WHICH_VERSION}\b", re.IGNORECASE)


def counts(question: str) -> bool:
    """Whether the question asks for a number (after where to look, if it says that
    first: "In the kutils essay, how many …"): how many, how much, what percentage or
    share of, in what year or on what (release, origin…) date, which version, the
    largest or smallest number, value or size of something ("What is the discount rate
    used for?" asks no number: a noun alone does not say; nor does "What is the default
    value of strict?", answered "False")."""
    return any(_COUNT.match(q) for q in _readings(question))


_HOW_MANY = re.compile(r"\s*how many\b", re.IGNORECASE)
# a version a question names: "version 1.1 of the Apache License", "CycloneDX v1.6", or
# three numbers or more joined by points ("readxl 1.3.0")
_VERSION = re.compile(
    r"\bversion\s+(\d+(?:\.\d+)*)\b|\bv(\d+\.\d+(?:\.\d+)*)\b|(?<![\w.])(\d+(?:\.\d+){2,})(?!\w|\.\d)",
    re.IGNORECASE,
)
_WHICH_YEAR = re.compile(r"\s*(?:in |on |from |by )?(?:what|which) year\b", re.IGNORECASE)
# a year as text writes one: "1621", "2018", "the 1990s" (not "10.3" nor "1,599")
_YEARLIKE = re.compile(r"(?<![\d.,])[1-9]\d{2,3}(?!\d|[.,]\d)")
_AMOUNT_OR_SHARE = re.compile(
    r"[$€£¥]\s?\(?\d[\d,.]*\)?(?:\s?(?:thousand|million|billion|trillion)\b)?"
    r"|\(?\d[\d,.]*\)?\s?(?:%|percent\b|per cent\b)",
    re.IGNORECASE,
)
_IN_WORDS = re.compile(rf"{NUMBER_WORD.pattern}|\bnone\b")  # "twelve", "half", "none"
ROUND_THE_CLOCK = re.compile(r"\b24\s?[/x×]\s?7\b", re.IGNORECASE)  # "24/7 support": no count


# a question asking which place or body: its answer is one by name ("In which US state is
# SPI incorporated?" is not answered by "SPI was created in the U.S.")
_WHICH_NAMED = re.compile(
    r"\b(?i:which|what) (?:(?:[Uu]\.?[Ss]\.?|American|Australian|Indian|Mexican) state|"
    r"(?i:country|city|town|province|county|company|university|college))\b"
)  # not "what state is the working fluid in"


def names_new(text: str, question: str) -> bool:
    """Whether ``text`` names something by a capitalised word (not a function word
    opening a sentence: "The", "It") that ``question`` does not name; true for a
    question not asking which place or body (``_WHICH_NAMED``)."""
    if not _WHICH_NAMED.search(question):
        return True
    given = {t.group().replace(".", "").lower() for t in _TOKEN.finditer(question)}
    common = _COMMON | stop_words()
    for m in _TOKEN.finditer(text):
        token = m.group()
        name = token.replace(".", "").lower()
        if not token[0].isupper() or name in given:
            continue
        if name not in common or token.isupper() or "." in token:  # "U.S." is no "us"
            return True
    return False


def asks_how_many(question: str) -> bool:
    """Whether the question asks for a count ("How many employees …")."""
    return any(_HOW_MANY.match(q) for q in _readings(question))


def _readings(question: str) -> tuple[str, ...]:
    """The question, and what it asks after where to look where it says that first ("In
    the kutils essay, how many …"): a question may ask first ("In what year, according to
    the report, …")."""
    return question, WHERE_FIRST.sub("", question, count=1)


def asks_version(question: str) -> bool:
    """Whether the question asks which version or release ("Which officer version added
    RTF support?", "In the changelog, what minimum pip version …")."""
    return bool(_ASKS_VERSION.search(question))


def holds_number(text: str, question: str = "") -> bool:
    """Whether ``text`` holds a number other than those ``question`` gives (asked how
    many drivers Lyft had in 2021, "revenue in 2021 also benefited …" holds none):
    digits, or a number in words ("twelve", "a dozen", "half", "none"); asked how many,
    a count, not an amount of money, a percentage or a version ("$942.9 million", "36%",
    "Version 1.0"); asked in what year, a year ("Section 10.3" holds none); asked which
    version, digits ("of which survival is one" holds none)."""
    given = set(re.findall(r"\d[\d,.]*\d|\d", question))
    if asks_how_many(question):  # a count: not money, a percentage, "24/7", a version
        text = _VERSION.sub(" ", ROUND_THE_CLOCK.sub(" ", _AMOUNT_OR_SHARE.sub(" ", text)))
    for number in sorted(given, key=len, reverse=True):
        text = re.sub(rf"(?<![\d,.]){re.escape(number)}(?![\d]|[,.]\d)", " ", text)
    if any(_WHICH_YEAR.match(q) for q in _readings(question)):
        return bool(_YEARLIKE.search(text))
    digits = any(ch.isdigit() for ch in text)
    if asks_version(question):  # "(of which survival is one)" names no version
        return digits
    return digits or bool(_IN_WORDS.search(text.lower()))


@dataclass(frozen=True, slots=True)
class Asked:
    """The years, the names, and the quarters and halves of a year a question asks
    about."""

    years: frozenset[str]
    names: tuple[str, ...]
    quarters: frozenset[int] = frozenset()  # "the fourth quarter", "Q4": 4
    halves: frozenset[int] = frozenset()  # "H1", "1H22": 1
    filed: frozenset[str] = frozenset()  # years naming the document asked: "its 2021 10-K"
    # each name's run of names in the question ("Mean" of "Mean Average Precision"): what
    # a refusal says is not mentioned
    phrases: tuple[tuple[str, str], ...] = ()
    versions: frozenset[str] = frozenset()  # "version 1.1", "v2.2": "1.1", "2.2"
    # lower-case names given by their kind ("the nobody user": "nobody"): one item among
    # the many a document lists, held only as written by the passages quoted
    items: tuple[str, ...] = ()
    # names the question gives in brackets after the words they stand for ("the panel
    # data covariances (PL and PC)": "PL" and "PC" by "panel data covariances")
    aliases: tuple[tuple[str, str], ...] = ()
    # months the question dates ("30 August 2002", "August 2002"), held too by a date
    # written in numbers ("2002-08-30"); not a name that is a month's ("March Networks")
    dated: frozenset[str] = frozenset()

    @property
    def asks(self) -> bool:
        """Whether the question names anything its evidence must hold."""
        return bool(self.years or self.names or self.items or self.quarters or self.versions)

    def missing(
        self,
        evidence: Iterable[str],
        further: Iterable[str] = (),
        about: str = "",
        place: str = "",
    ) -> list[str]:
        """The years, quarters and halves none of the ``evidence`` texts holds (a quarter
        is held as the question names it, by "the first, third and fourth quarters", by a
        table cell "Fourth", or by "three months ended": a quarter's table by its end; a
        half year as "H1", "the first half" or "six months ended") and the
        names neither they nor ``further`` (the other passages the answer quotes: a
        two-hop answer's bridge) nor ``about`` (the document's opening, on its cover or
        where it occurs :data:`ABOUT_TIMES` times) hold; not ``about`` where the leading
        passage's ``place`` (its section's heading, a table's caption) names another of
        the things the document is about, shaped as the name is ("Table 15: Retrieval
        results for ELI5" answers nothing asked of ASQA in a paper about both). A year
        that names the document asked (``filed``: "Lyft's 2021 10-K") is held by its
        cover too, as a version asked is ("version 1.1": "1.1", not "11.1" nor "1.1.2").
        An identifier written with "_" is held only as written, whole, in the evidence or
        ``further``: its words apart ("asn1_der_decoding_startEnd" for
        "asn1_der_decoding2") name another function; so is an ``item`` ("nobody" of "the
        nobody user"), which the document's opening lists beside the others. Any other
        name is held as a word, its stem, two words run together, the start of a word
        ("Nov" of "November"), a month the question dates by a date written in numbers
        ("30 August 2002" by "2002-08-30"), a word and a short ending ("European"), one
        letter off in a long word where the passages or the cover hold it (``_held``;
        "German" said again and again in the opening holds no "Germany"), the initials of
        capitalised words ("USD" of "Union School District") or, for initials joined by
        "&", the words they stand for ("R&D": "research and development"; ``_spelled_out``), a
        name of words run together as the start of a word ("Gauss-Legendre" of a sheet
        "GaussLegendreK16"), a name written with its
        middle left out by the word it stands for ("Wait...UpdateAll": "WaitAnyUpdateAll"
        or "Wait[…]UpdateAll"), a name given in brackets after the words it stands for
        by those words ("the panel data covariances (PL and PC)"); not by "non-" before it ("a
        non-liveCD image" holds no "liveCD", "non-GAAP" no "GAAP") unless the question says
        so too or the name is a capitalised word ("non-Russian nations" hold "Russia")."""
        near = _folded(" ".join(evidence))
        about = _folded(about)
        front = about[:COVER_CHARS]
        cover = set(YEAR.findall(front)) & self.filed
        gone = sorted(self.years - set(YEAR.findall(near)) - cover)
        shown = _quarters(near) | {_ORDINALS[m[1].lower()] for m in _QUARTER_CELL.finditer(near)}
        if self.quarters - shown and not _QUARTER_ENDED.search(near):
            gone += [f"Q{n}" for n in sorted(self.quarters - shown)]
        halves = {1 if (m[1] or "").lower() == "first" or m[2] == "1" else 2
                  for m in _HALF_SHOWN.finditer(near)}  # fmt: skip
        if self.halves - halves and not _HALF_ENDED.search(near):
            gone += [f"H{n}" for n in sorted(self.halves - halves)]
        text = _folded(f"{near} {' '.join(further)}")
        gone += [
            said_version(v)
            for v in sorted(self.versions)
            if not shows_version(v, text) and not _names_version(v, front)
        ]
        counted = Counter(words(about))
        often = " ".join(w for w, n in counted.items() if n >= ABOUT_TIMES)
        often = f"{front} {often}"
        everything = f"{text} {often}"
        # each with what "non-" negates left out too: "a non-liveCD image" does not hold
        # "liveCD", where the question asks it so
        held, affirmed = _said(everything)
        held_near, affirmed_near = _said(text)
        covered, covered_affirmed = _said(f"{text} {front}")  # held one letter off too
        phrase = dict(self.phrases)
        written = " ".join(words(f"{text} {front}")) if phrase else ""  # only a phrase reads it
        aliased = dict(self.aliases)
        for name in self.names + self.items:
            if "_" in name or name in self.items:  # held whole ("asn1_der_decoding2"), or not
                written = re.escape(name).replace(r"\ ", r"\s+")  # "Series A" wrapped
                whole = re.compile(rf"(?<![\w-]){written}(?![\w-])", re.IGNORECASE)
                # an identifier the opening names again and again is what the document is
                # about ("read_excel" in readxl's changelog), as a name is
                about_it = name not in self.items and len(whole.findall(about)) >= ABOUT_TIMES
                if not whole.search(text) and not about_it:
                    gone.append(name)
                continue
            versioned = _VERSIONED.fullmatch(name)
            if versioned is not None:  # "GPLv3": the licence's initials and its version
                letters, number = versioned[1].lower(), versioned[2]
                if name.lower() in held or (
                    _held(letters, held) and shows_version(number, _version_said(everything))
                ):
                    continue
                gone.append(name)
                continue
            if name.lower() in self.dated and name.lower() in _numbered_months(everything):
                continue  # "30 August 2002" by "2002-08-30"
            stands_for = [w for w in words(aliased.get(name, "")) if w not in stop_words()]
            if stands_for and all(_held(w, held_near) for w in stands_for):
                continue  # "PL" asked as "the panel data covariances (PL and PC)"
            elided = _ELIDED.split(name)
            if len(elided) == 2 and all(elided):  # "Wait...UpdateAll": its middle left out
                first, last = map(re.escape, elided)
                if re.search(rf"\b{first}[\w\[\]….]*{last}\b", text, re.IGNORECASE):
                    continue  # "WaitAndUpdateAll", "Wait[…]UpdateAll"
            parts = [p for p in words(name) if p not in _COMMON]
            # a people's word is loosely asked ("Russia's right" of "non-Russian nations")
            loose = bool(_NEGATED.match(name)) or name.istitle()
            said, said_near, cover = (
                (held, held_near, covered) if loose else (affirmed, affirmed_near, covered_affirmed)
            )
            # "Gauss-Legendre" run together: "GaussLegendreK16" (words, not initials: "S&P")
            joined = "".join(parts) if len(parts) > 1 and min(map(len, parts)) >= 3 else ""
            if not parts or all(_held(p, said_near) for p in parts) or _spelled_out(name, text):
                continue
            if joined and any(h.startswith(joined) for h in said_near):
                continue
            if (
                name in phrase
                and not _coded(name)
                and f" {' '.join(words(phrase[name]))} " not in f" {written} "
            ):  # a word of a phrase ("Financial" of "Chief Financial Officer", "non-Muslim"
                # of "non-Muslim Brotherhood"; not a code beside another: "ALCE QAMPARI")
                # the passages lack is held only by the phrase written whole: a report's
                # opening says "financial" again and again, and names no officer by it
                gone.append(name)
                continue
            if (
                # one letter off, held only on the cover or near: "Warszowa" by a cover's
                # "Warszawa", not "Germany" by "German" said again and again further on
                all(_held(p, said, typo=False) or _held(p, cover) for p in parts)
                or (joined and any(h.startswith(joined) for h in said))
                or _spelled_out(name, everything)
            ) and not (_shaped(name) and _another(place, often, self.names)):
                continue
            gone.append(name)
        return gone

    def said(self, missing: Iterable[str]) -> tuple[str, ...]:
        """What ``missing`` names, as the question writes them: each name with the names
        written beside it ("Nicolas Cage" for "Cage", "Mean Average Precision" for
        "Mean"), once each; what a refusal says is not mentioned."""
        phrase = dict(self.phrases)
        return tuple(dict.fromkeys(phrase.get(name, name) for name in missing))


_SEPARATOR = r"[\s,/_-]+"


def shows_version(version: str, text: str) -> bool:
    """Whether ``text`` shows a version: "1.1" in "Version 1.1" or "v1.1", not in "11.1"
    or "1.1.2"."""
    return re.search(rf"(?<![\d.]){re.escape(version)}(?!\d|\.\d)", text) is not None


def said_version(version: str) -> str:
    """How ``missing`` says a version is not found: "version 1.1", or "1.3.2" alone (three
    numbers may number a section: "under 3.1.3")."""
    return version if version.count(".") > 1 else f"version {version}"


def _version_said(text: str) -> str:
    """The versions ``text`` says it is of ("Version 3", "v2.1"), one a line, each as
    its number alone."""
    return "\n".join(m[1] for m in re.finditer(r"\b(?:version|v)\s?(\d+(?:\.\d+)*)", text, re.I))


def _names_version(version: str, cover: str) -> bool:
    """Whether a document's ``cover`` names it by ``version``: shows it, and, for a
    version of three numbers or more, no other of as many (a changelog's opening lists
    "readxl 1.4.2", "readxl 1.4.1", "readxl 1.4.0": it is no one version's document)."""
    if not shows_version(version, cover):
        return False
    if version.count(".") < 2:
        return True
    shape = rf"(?<![\d.])\d+(?:\.\d+){{{version.count('.')}}}(?!\d|\.\d)"
    return set(re.findall(shape, cover)) == {version}


def codes(question: str) -> tuple[re.Pattern[str], ...]:
    """The codes a question names: written in lower case with digits or "_" ("ttyS0",
    "asn1_get_length_der", "el_GR"; not a product's name: "MkDocs", "GPT-4"), or a value
    in lower case it writes in quotes ('.keep = "unused"', found in quotes), each as a
    pattern finding it whole in a text."""
    named = (
        n
        for n in asked(question).names
        if n[0].islower() and any(ch.isdigit() or ch == "_" for ch in n)
    )
    found = [re.compile(rf"(?<![\w-]){re.escape(n)}(?![\w-])", re.IGNORECASE) for n in named]
    # a value written in quotes: 'mutate(.keep = "unused")', found in quotes too
    found += [re.compile(rf"[\"'`“‘]{re.escape(v)}[\"'`”’]") for v in _LITERAL.findall(question)]
    return tuple(found)


_LITERAL = re.compile(r"(?<![\w\"'`])[\"`“]([a-z][\w.-]{0,19})[\"`”](?![\w\"'`])")


def _coded(token: str) -> bool:
    """A name written as a code of capitals or digits ("QAMPARI", "ELI5", "X1")."""
    return token.isupper() or any(ch.isdigit() for ch in token)


def _shaped(token: str) -> bool:
    """A name written as a code: upper case past its first letter, or with digits
    ("ASQA", "ELI5", "GraphRAG", "X1")."""
    return any(ch.isupper() for ch in token[1:]) or any(ch.isdigit() for ch in token)


def _another(place: str, about: str, names: Iterable[str]) -> bool:
    """Whether ``place`` names, as a code (``_shaped``), one of what the document is
    ``about`` that the question's ``names`` do not: a caption naming ELI5 where ASQA is
    asked."""
    asked = {w for name in names for w in words(name)}
    codes = (t.group() for t in _TOKEN.finditer(_folded(place)) if _shaped(t.group()))
    shown = {w for code in codes for w in words(code)}
    return bool((shown - asked) & set(words(about)))


def _spelled_out(name: str, text: str) -> bool:
    """Whether ``text`` holds a name of initials joined by "&" ("R&D", "S&P", "PP&E")
    as the words it stands for ("research and development", "Merger-and-Acquisition",
    "property, plant and equipment") or as its letters run together, with digits after
    them or none ("sp500" of a file's name, for "S&P 500")."""
    groups = name.split("&")
    if len(groups) < 2 or not all(g.isalpha() for g in groups):
        return False
    initials = [_SEPARATOR.join(rf"{c}\w*" for c in g) for g in groups]
    spelled = rf"\b{f'{_SEPARATOR}(?:and|&){_SEPARATOR}'.join(initials)}\b"
    joined = rf"(?<![a-z]){''.join(groups)}\d*(?![a-z])"
    return any(re.search(p, text, re.IGNORECASE) for p in (spelled, joined))


def _quarters(text: str) -> frozenset[int]:
    """The quarters of a year ``text`` names: "the fourth quarter", "the first, third and
    fourth quarters", "Q4", "4Q22"."""
    found: set[int] = set()
    for m in _QUARTER.finditer(text):
        if m[1]:
            found |= {_ORDINALS[w.lower()] for w in re.findall(_NTH, m[1], re.IGNORECASE)}
        else:
            found.add(int(m[2] or m[3]))
    return frozenset(found)


def _folded(text: str) -> str:
    """``text`` without its accents: "Rély" is held as "Rely"."""
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


# a currency a question names by its code ("in USD millions") is held by its sign or
# its name: a report writes "$ 1,577" and "Dollars in millions", not "USD"
_CURRENCIES = {
    "usd": ("$", "dollar"),
    "eur": ("€", "euro"),
    "gbp": ("£", "sterling", "pound"),
    "jpy": ("¥", "yen"),
    "inr": ("₹", "rupee"),
    "cny": ("yuan", "renminbi", "rmb"),
}


def _vocabulary(text: str) -> set[str]:
    """The words of ``text``, their stems, two words run together ("Graph RAG" holds
    "GraphRAG"), the abbreviations tables print for them ("Sept." holds "sep"), the
    initials of capitalised words and the codes of the currencies it shows
    (``_CURRENCIES``)."""
    found = words(text)
    held = set(found) | {a + b for a, b in pairwise(found)}
    lower = text.lower()
    shown = {code for code, signs in _CURRENCIES.items() if any(s in lower for s in signs)}
    short = abbreviated(found)[len(found) :]
    return held | {stem(w) for w in held} | set(short) | _initials(text) | shown


_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")  # fmt: skip
_LETTER = re.compile(r"[A-HJ-Z]")  # a capital letter but "I", which is a word
# words that name one of a set by a letter: "Series A", "Class B", "Exhibit C"
_LETTERED = frozenset((
    "series", "class", "type", "plan", "appendix", "annex", "exhibit", "schedule", "part",
    "grade", "category", "tier", "phase", "round", "option", "group", "division", "level",
    "zone", "figure", "table", "model", "unit", "block", "building", "wing", "gate",
    "terminal", "platform", "stage", "item", "article", "chapter", "volume", "section",
))  # fmt: skip
# a month dated by a day or a year: "30 August 2002", "August 30", "August 2002"
_DATED = re.compile(
    rf"(?:\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?=(?:{'|'.join(_MONTHS)})\b)|"
    rf"\b(?=(?:{'|'.join(_MONTHS)})\s+(?:\d{{1,2}}\b|(?:1[89]|20)\d\d\b)))"
    rf"({'|'.join(_MONTHS)})\b",
    re.IGNORECASE,
)
# a date written in numbers as ISO 8601 does: "2002-08-30"
_NUMBERED_DATE = re.compile(r"\b(?:1[89]|20)\d\d-(0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])\b")


def _numbered_months(text: str) -> set[str]:
    """The months of the dates ``text`` writes in numbers ("2002-08-30": "august")."""
    return {_MONTHS[int(m[1]) - 1] for m in _NUMBERED_DATE.finditer(text)}


def _said(text: str) -> tuple[set[str], set[str]]:
    """``text``'s vocabulary (``_vocabulary``), and the same with what "non-" negates
    left out ("a non-liveCD image" holds no "liveCD")."""
    held = _vocabulary(text)
    return held, (_vocabulary(_NEGATED.sub(" ", text)) if _NEGATED.search(text) else held)


def _held(word: str, held: set[str], typo: bool = True) -> bool:
    """Whether ``held`` holds the name's word: as it is, stemmed, as tables abbreviate it
    ("SEP" of "September"), as the start of a word ("Nov" of "November"), as a word and a
    short ending ("European" of "Europe", "Canada" of "Canadian"), or, where ``typo``,
    with one letter wrong, missing, extra or swapped in a word of :data:`TYPO_LETTERS` or
    more ("Hartmanis" asked as "Hatmanis"), not a digit: "clock1" is not "clock2"."""
    if word in held or stem(word) in held:
        return True
    if set(abbreviated([word.lower()])[1:]) & held:
        return True  # "September" by "SEP" over a month's table, or by "Sept."
    if len(word) >= 3 and any(h.startswith(word) and not _counted_on(word, h) for h in held):
        return True
    if any(_derived(word, h) for h in held):
        return True
    if not typo or len(word) < TYPO_LETTERS or _DIGIT.search(word):
        return False
    return any(_one_edit(word, h) for h in held if not _DIGIT.search(h))


def _counted_on(word: str, longer: str) -> bool:
    """Whether ``longer`` goes on from ``word``'s last digit with another: "clock10" is
    not "clock1"."""
    return word[-1:].isdigit() and longer[len(word) : len(word) + 1].isdigit()


def _derived(a: str, b: str) -> bool:
    """One word is the other with the ending of a people or a language, or both share a
    stem that differs in its last letter: "Europe" and "European", "Canada" and
    "Canadian", "Japan" and "Japanese" (not "India" and "indices")."""
    shorter, longer = sorted((a, b), key=len)
    shared = next((i for i in range(len(shorter)) if a[i] != b[i]), len(shorter))
    return shared >= max(5, len(shorter) - 1) and longer[shared:] in _ENDINGS


def _one_edit(a: str, b: str) -> bool:
    """``a`` and ``b`` differ by one letter changed, added, dropped or two swapped."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        i, j = diff[0], diff[-1]
        return len(diff) == 2 and j == i + 1 and a[i] == b[j] and a[j] == b[i]
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = next((k for k in range(len(short)) if short[k] != long[k]), len(short))
    return short[i:] == long[i + 1 :]


def _initials(text: str) -> set[str]:
    """The initials of each run of two to five capitalised words ("paul graham" -> "pg")."""
    out: set[str] = set()
    for run in re.finditer(r"(?:\b[A-Z][a-z]+\b[ \t]+){1,4}\b[A-Z][a-z]+\b", text):
        capitals = [w[0].lower() for w in run.group().split()]
        for size in range(2, len(capitals) + 1):
            for start in range(len(capitals) - size + 1):
                out.add("".join(capitals[start : start + size]))
    return out


# a thing a question names in lower case by what kind of thing it is: "the nobody user",
# "the www-data user", "the toc extension" (systems name their users, commands and
# options in lower case); not a flag nor a setting, which ordinary English gives a
# country and a story ("the usa flag", "the time setting of a novel")
_KINDS = (
    "user|command|directive|option|parameter|variable|macro|keyword|attribute|plugin|"
    "extension|daemon"
)
_KIND_NAMED = re.compile(rf"\b(?:the|a|an|its|their)\s+([a-z][\w.+/-]*\w)\s+(?:{_KINDS})s?\b")
# what such a word may be without naming one thing: "the default option", "a new user"
_MODIFIERS = frozenset(
    (
        "default", "main", "first", "second", "third", "last", "new", "old", "same", "other",
        "given", "following", "current", "previous", "next", "specific", "particular", "certain",
        "special", "single", "primary", "local", "remote", "global", "standard", "custom",
        "public", "private", "empty", "entire", "whole", "original", "final", "initial",
        "additional", "optional", "required", "numeric", "numerical", "maximum", "minimum",
        "total", "correct", "right", "wrong", "proper", "appropriate", "relevant", "actual",
        "real", "official", "top", "bottom", "full", "source", "target", "system", "root",
        "only", "very", "most", "least", "more", "less", "few", "many", "much", "own", "such",
        "various", "several", "both", "all", "any", "some", "each", "every", "no", "one", "two",
        "end", "average", "normal", "regular", "ordinary", "typical", "common", "admin",
        "file", "filename", "better", "worse", "bigger", "larger", "smaller", "higher",
        "lower", "greater",
    )
)  # fmt: skip


# the endings of words that describe ("the ethnic group", "the largest group", "the
# auditory attribute")
DESCRIBING = re.compile(r"(?:ic|al|ous|ive|ary|ory|ful|less|ed|ing|est|ese|ish|ian)$")


def _kind_named(question: str) -> list[str]:
    """The lower-case names ``question`` gives by the kind of thing they are ("the nobody
    user": "nobody"), not the words that only qualify one ("the default option", "the
    ethnic group")."""
    found = (m[1] for m in _KIND_NAMED.finditer(question))
    return [w for w in found if w not in _MODIFIERS and not DESCRIBING.search(w)]


@lru_cache(maxsize=1024)  # an answer asks it of each passage and quote it weighs
def asked(question: str) -> Asked:
    """The years a question names (written out, or as finance writes them: "FY2018",
    "FY22", "4Q22"), its quarters ("the fourth quarter", "Q4"), its halves ("H1",
    "1H22"), and its names: capitalised, mixed-case or upper-case words (and words with
    digits: "X1", and "3M" or "5G" whole, not "M" or "G"; identifiers: "exclude_docs",
    "utcnow" of "datetime.utcnow()", "upgrade-deps" of "--upgrade-deps")
    past the first word of each of its sentences, but the question's own words."""
    names: list[str] = []
    lettered: list[str] = []  # a thing named by a word and a letter: "Series A", "Plan B"
    runs: list[list[tuple[str, int, int]]] = []  # names written one after another
    question = _folded(question)
    short = list(_SHORT_YEAR.finditer(question))
    halves = list(_HALF.finditer(question))
    quarters = list(_QUARTER.finditer(question))
    tokens = list(_TOKEN.finditer(question))
    for i, match in enumerate(tokens):
        start = match.start()
        while match.group()[0].isupper() and start > 0 and question[start - 1].isdigit():
            start -= 1  # a name led by digits is the whole word: "3M", "5G" (not "2nd")
        token = question[start : match.end()].strip("'’.-")
        lower = token.lower()
        if _LETTER.fullmatch(token) and i and _lettered(question, tokens[i - 1], match):
            lettered.append(question[tokens[i - 1].start() : match.end()])  # "Series A"
            continue
        if lower in _COMMON or len(token.removesuffix("'s").removesuffix("’s")) < 2:
            continue
        if any(y.start() <= start < y.end() for y in (*short, *halves, *quarters)):
            continue  # "FY2018" is the year 2018, "H1" the first half, "2Q" a quarter
        if _VERSION.fullmatch(token):
            continue  # "v1.6": a version, held as versions are
        if _FORM.fullmatch(token):
            continue  # "this 10K report": what the document is, not what it is about
        if _WHEN_IN_YEAR.fullmatch(token):
            continue  # "early-1970": the year 1970, asked as a year
        opens = i == 0 or question[:start].rstrip()[-1:] in ".?!:"
        capital = token[0].isupper() and not opens  # a sentence's first word names nothing
        # an identifier: a function called ("datetime.utcnow()"), a command's option
        coded = question.startswith("()", match.end()) or question[:start].endswith("--")
        if (capital or _shaped(token) or "_" in token or coded) and not YEAR.fullmatch(token):
            name = token.removesuffix("'s").removesuffix("’s")
            names.append(name)
            end = start + len(name)
            if runs and not question[runs[-1][-1][2] : start].strip():
                runs[-1].append((name, start, end))
            else:
                runs.append([(name, start, end)])
    years = frozenset(YEAR.findall(question)) | {_full_year(y[1] or y[2]) for y in short}
    half = frozenset(int(m[1] or m[2]) for m in halves)
    filed = frozenset(m[1] or m[2] for m in _FILED.finditer(question))
    phrases = tuple(
        (name, question[run[0][1] : run[-1][2]])
        for run in runs
        if len(run) > 1
        for name, _, _ in run
    )
    versions = frozenset(m[1] or m[2] or m[3] for m in _VERSION.finditer(question))
    items = tuple(dict.fromkeys([*(n for n in _kind_named(question) if n not in names),
                                 *lettered]))  # fmt: skip
    aliases = tuple(
        (name, m["words"])
        for m in _ALIASED.finditer(question)
        for name in names
        if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", m["inner"])
        and _initial_of(name, m["words"])
    )
    dated = frozenset(m[1].lower() for m in _DATED.finditer(question))
    return Asked(
        years,
        tuple(dict.fromkeys(names)),
        _quarters(question),
        half,
        filed,
        phrases,
        versions,
        items,
        aliases,
        dated,
    )


def _lettered(question: str, before: re.Match[str], letter: re.Match[str]) -> bool:
    """Whether a capital letter names one of a lettered set with the word right before it
    ("Series A financing", "Plan B", "Appendix C"): a word of :data:`_LETTERED`, not any
    ("the Xephyr X server", "the kutils R package" name no "Xephyr X" nor "kutils R")."""
    gap = question[before.end() : letter.start()]
    return gap == " " and before.group().lower() in _LETTERED


def _initial_of(name: str, said: str) -> bool:
    """Whether a name in brackets may stand for the words before it: its first letter
    starts one of them ("PL" of "panel data covariances"; "Nginx" of "the web server"
    does not)."""
    return any(w[:1] == name[:1].lower() for w in words(said) if w not in stop_words())


def _full_year(digits: str) -> str:
    """A year written with two digits or four: "22" is 2022, "98" 1998."""
    if len(digits) == 4:
        return digits
    return f"{'19' if int(digits) >= 50 else '20'}{digits}"
