"""A term the question asks to have defined, and where the documents define it.

The reader learned to answer from Wikipedia's sentences; asked "What does SPDX stand
for?" or "How do the slides define shareware?", it refuses a glossary entry
("Shareware – proprietary software provided to users on a trial basis…") or prefers a
sentence that only uses the term. Documents define terms in a few set forms, and where
the question asks for a term's meaning (``asked_term``) the passage that defines it in
one of them leads the answer (``definition``):

- a glossary entry: a line that starts with the term, optionally numbered or bulleted,
  followed by a dash or colon and its definition ("Shareware – proprietary …"), or in
  a standard's numbered list by the definition itself ("2.8 supplied software software
  that an organization distributes …"), or a table's legend ("**Multiple (multiple
  types of firearms selected)", asked "What does the Multiple column mean?");
- a sentence that starts with the term and defines it ("Adjusted EBITDA is defined as
  …", "The FAS/CAS service cost adjustment represents …", '"Source" form shall mean …',
  after the term as a heading run into it: "Accounting Quantity The accounting quantity
  is …"), or says it defines it ("We define Adjusted EBITDA as …"), or ends naming what
  it describes by the term ('We call each individual SELECT statement within a compound
  SELECT a "term".');
- the term and what it means side by side, one in brackets: "lurk (that is, read
  without posting)", "an existing Debian Developer to support your application (an
  advocate)";
- for an abbreviation, its words beside it ("SPDX (Software Package Data Exchange)",
  "Software Package Data Exchange (SPDX)") or in the same sentence ("ALCE, the first
  benchmark for Automatic LLMs’ Citation Evaluation"), matched letter by letter as
  Schwartz and Hearst match an abbreviation to its long form (PSB 2003);
- weaker signs, taken only where no passage read defines the term otherwise: what it
  means in brackets after it ("Rush hours (phases of frequent PDF content changes)",
  ``glossed``), then the first sentence under a heading that is the term alone, or a
  slide's first bullet under its title (``headed``).

A thing the question names by its kind ("What does the purge status flag mean?", "what
does the RTRIM collating function do") is asked by its name, as a glossary lists it;
one asked what it is for ("What is the Disclaimer field for?") by what it is, which is
where documents say what a thing is for; a quoted name before its kind ("the 'critical'
priority for INPUT") by the name.

The quote is the definition's sentence or line; what an abbreviation stands for is
marked as the exact answer (a name), a definition is not (``quotes``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from ..lexical import CELLS, line_end, split_sentences, stop_words
from .asked import DESCRIBING, WHERE_FIRST

MAX_TERM_WORDS = 6
WHAT_IS_WORDS = 4  # "What is X?" asks what X means only of a name this short
_QUOTED = re.compile(r"(?<!\w)[\"“‘']([^\"“”‘’]{2,60}?|\w)[\"”’'](?!\w)")  # 'm' too
_ABOUT = re.compile(  # where the question says the term is used: not part of the term
    r"\s+(?:according to|as (?:used|defined) in|in|per|from|within|under)\s+"
    r"(?:the|this|these|an?|our)\b.*$"
    r"|\s+(?:according to|in)\s+\S+$"
)
# (pattern, what it asks for: an abbreviation's "words", how it is calculated, its "meaning")
_ASKS = (
    (r"what (?:does|do|did) (?:the (?:acronym|abbreviation) )?(?P<t>.+?) stand for\b.*", "words"),
    (r"what (?:is|was) (?P<t>.+?) (?:short|an acronym|an abbreviation) for\b.*", "words"),
    (r"(?P<t>.+?) is (?:shorthand|short|an alias) for what\b.*", "meaning"),
    (r"what is the (?:full form|expansion|long form) of (?P<t>.+)", "words"),
    # a verb, where it is done said after it: "what does it mean to lurk on the list"
    (r"what (?:does|would) it mean to (?P<t>[a-z]+)(?: (?:on|in|at|to|with|from)\b.*)?", "meaning"),
    (r"what (?:does|do|did) .+? mean by (?:the (?:term|word|phrase) )?(?P<t>.+)", "meaning"),
    (r"what (?:does|do) (?:the (?:term|word|phrase) )?(?P<t>.+?) mean\b(?! for\b).*", "meaning"),
    (r"what is meant by (?:the (?:term|word|phrase) )?(?P<t>.+)", "meaning"),
    (r"what counts as (?P<t>.+)", "meaning"),
    (r"what (?:does|do) (?P<t>the .+?) do", "doing"),  # of a thing named by its kind
    (r"what is the (?:meaning|definition) of (?:the (?:term|word|phrase) )?(?P<t>.+)", "meaning"),
    (r"how (?:is|are|was|were) (?P<t>.+?) defined\b.*", "meaning"),
    (r"how (?:do|does|did) (?:.+? )?define (?P<t>.+)", "meaning"),
    (r"how (?:do|does|did) (?:.+? )?describe (?P<t>.+?)(?: as an? .+)?", "meaning"),
    (r"how (?:is|are) (?P<t>.+?) (?:calculated|computed)\b.*", "calculation"),
    (r"how (?:do|does) (?:.+? )?(?:calculate|compute) (?P<t>.+)", "calculation"),
    (r"define (?:the (?:term|word|phrase) )?(?P<t>.+)", "meaning"),
    # what a thing is for: what it is, where a passage says ("What is suEXEC used for?")
    (r"what(?: is|'s| are) (?:an? |the )?(?P<t>.+?) (?:used |meant )?for", "purpose"),
    (r"what(?: is|'s| are) (?:an? |the )?(?P<t>.+)", "meaning"),
)
# what a quoted term is of or for: "a 'term' of a compound SELECT", "the 'accounting
# quantity' for a program"
_OF_WHAT = re.compile(r"\s+(?:of|for)\s+(?:the|an?|each|every)\b.*$")
# where the question says to look, before it asks: "On the limits page, what is …"
_ASK_PATTERNS = tuple((re.compile(p, re.I), asks) for p, asks in _ASKS)
# words that make "What is X" a question about something else than X's meaning
_NOT_A_TERM = re.compile(
    r"\b(?:of|in|on|at|by|with|from|to|for|that|which|who|whom|whose|when|where|why|how|"
    r"what|did|does|do|was|were|has|have|had|can|could|should|would|will|his|her|their|its|"
    r"my|your|our|first|last|largest|smallest|most|least|best|main|name|number|amount|"
    r"total|date|year|time|price|cost|value|percentage|difference|term|word|other|another|"
    r"called|known|used|located|not|about)\b|\d",
    re.I,
)
_IN_TABLE = re.compile(r"(?<=\S)\s+(?:column|row|field|cell|heading|header|sheet|tab)$", re.I)
# one thing named by its kind after "the": "the purge status flag", "the RTRIM collating
# function", "the %j format specifier", "the -t (--test) option of bzip2" (not "the
# collating function": a kind alone)
_KIND = (
    r"(?:flag|status|option|setting|function|command|modifier|directive|parameter|variable|"
    r"keyword|attribute|mode|operator|macro|specifier|extension|plugin)s?"
)
_OF_KIND = re.compile(
    rf"the\s+(?P<n>\S+)(?:\s+\([^()]{{1,30}}\))?(?:\s+[a-z]+)?\s+{_KIND}(?:\s+of\s+\S+)?",
    re.I,
)
# a quoted term's kind after it, and what it is of or for: "the 'critical' priority for
# INPUT", "a 'Low' severity security problem" ask what "critical" and "Low" mean
# (unquoted, "the significance level" is a term; "the 'Low' severity response time" asks
# a time)
_KIND_AFTER = re.compile(
    rf"\s+(?:{_KIND}|priority|level"
    r"|severity(?:\s+(?:level|rating))?(?:\s+(?:security\s+)?(?:problem|issue|bug|flaw|vulnerability)s?)?)"
    r"(?:\s+(?:of|for|in)\s+\S+)?",
    re.I,
)
_ABOUT_WHAT = re.compile(
    r"\s+(?:according to|as (?:used|defined) in)\s+.*$|\s+per (?:the|this|these|our)\b.*$"
    r"|\s+in\s+\S+$|\s+in (?:the|this|these|our)\b.*$"  # "Q in the voting rules"
)
# "Boeing's revenue" is a possession; "Wilm's Tumour", "Moore's Law" are names
_POSSESSION = re.compile(r"\w['’]s\b(?!\s+[A-Z])")
_OWNER = re.compile(r"(?:the\s+)?[\w&.\-]+(?:\s+[\w&.\-]+)?['’]s|(?:an?|the)")
# a quoted code's kind before it: "the trust code 'm'", "the option 'x'"
_KIND_BEFORE = re.compile(
    r"(?:the\s+)?(?:[\w-]+\s+){0,2}(?:code|key|letter|symbol|flag|option|status|value|mode)",
    re.I,
)
_ABBREVIATION = re.compile(r"^(?=(?:\w*[A-Z]){2})[\w/&.-]{2,12}$")
_VERB = (  # "is" and "are" not before another verb ("are enabled by": no definition); "was"
    # and "were" only as "defined as" ("Revenue was $5.2 billion" defines nothing)
    r"(?:is|are|was|were) (?:defined|described|calculated|computed|measured) as"
    r"|(?:is|are)(?! \w+ed\b)|(?:shall |will )?means?|refers to|stands for|denotes|represents"
    r"|consists of"
)
_CALCULATED = r"(?:is|are) (?:calculated|computed) (?:as|by)"
# what "the term X" does where it defines X: "indicates", "designates", "is used for"
_TERMED = r"indicates|designates|describes|is used (?:to mean|for)"
_DIGIT = re.compile(r"\d")
_TITLED = re.compile(r"[\"“‘']?[A-Z][a-z]")  # a heading's word; a standard's term is lower case
_UNIT = re.compile(r"(?:in|unaudited|thousands|millions|billions|percent|%)\b", re.I)
# what the term is of, between it and its verb: "The type affinity of a column is …"
_OF_ONE = r"(?:\s+of\s+(?:an?|each|every)\s+[\w-]+)?"
_NOTE_MARK = r"(?:[*†‡§]{1,3}\s*)?"  # a footnote's mark before its first word: "** ", "† "
_MINOR = {"of", "and", "for", "the", "to", "in", "on", "a", "an", "&", "with", "by"}


@dataclass(frozen=True, slots=True)
class Term:
    """What the question asks to have defined; ``abbreviation``: the term is written as
    one (two capitals or more in one word); ``expands``: the question asks what its
    letters stand for; ``calculated``: how it is calculated ("How does Lyft calculate
    Adjusted EBITDA?"), which a sentence saying so answers before one that says what it
    is or represents."""

    text: str
    abbreviation: bool
    expands: bool = False
    calculated: bool = False


@dataclass(frozen=True, slots=True)
class Definition:
    """Where a passage defines the term: the definition's offsets in the passage's
    text (end exclusive)."""

    start: int
    end: int


def asked_term(question: str) -> Term | None:
    """The term ``question`` asks the meaning of (see the module); None when it asks
    something else. "What is X?" asks a meaning only where X is a short name of a
    thing (``_named_thing``), not a description ("What is the population of Warsaw?",
    "What is the term for …"); a quoted term may have an owner ("Boeing's 'core
    operating loss'")."""
    q = " ".join(question.split()).rstrip(" ?.!")
    body = re.sub(r"^[^:]{1,60}:\s*", "", q)  # "m&a checklist: what is …"
    body = WHERE_FIRST.sub("", body)  # "On the limits page, what is meant by …"
    for pattern, asks in _ASK_PATTERNS:
        m = pattern.fullmatch(body)
        if m is None:
            continue
        what_is = pattern is _ASK_PATTERNS[-1][0] or asks == "purpose"
        asked = m.group("t")
        quoted = _QUOTED.search(asked)
        if quoted is not None and len(quoted.group(1)) == 1:  # a code: 'm' after its kind
            before = asked[: quoted.start()].strip()
            quoted = quoted if _KIND_BEFORE.fullmatch(before) else None
        if quoted is not None:  # the quoted term whole; where it is used said after it
            after = _OF_WHAT.sub("", _ABOUT.sub("", asked[quoted.end() :]))
            term = quoted.group(1).strip()
            noun = re.fullmatch(r" ([a-z]+)", after)
            if _KIND_AFTER.fullmatch(after):  # "the 'critical' priority": its name
                after = ""
            elif noun is not None and noun[1] not in stop_words():  # 'the "Source" form'
                term, after = f"{term} {noun[1]}", ""
            rest = asked[: quoted.start()] + after
            kind = not after.strip() and _KIND_BEFORE.fullmatch(rest.strip())  # "code 'm'"
            if rest.strip() and not (_OWNER.fullmatch(rest.strip()) or kind):
                return None
        else:
            asked = (_ABOUT_WHAT if what_is else _ABOUT).sub("", asked)
            kind = _OF_KIND.fullmatch(asked.strip())
            if kind is not None and not DESCRIBING.search(kind["n"].lower()):
                asked = kind["n"]  # a glossary lists "purge - the user wants …"
            elif asks == "doing":
                return None  # "What does the company do": no one thing of a kind
            term = re.sub(r"^(?:the|an?)\s+", "", asked.strip(), flags=re.I)
            term = _IN_TABLE.sub("", term)  # "the Multiple column": its name is "Multiple"
            if _POSSESSION.search(term) or (what_is and not _named_thing(term)):
                return None  # "Boeing's revenue": a possession, not a term
        words = term.split()
        if len(words) > 1 and words[-1].startswith("-"):  # a command's option: "git … --parse"
            term, words = words[-1], words[-1:]
        coded = quoted is not None and len(term) == 1  # "the trust code 'm'"
        said = not coded and all(w.lower() in stop_words() for w in words)
        if len(words) > MAX_TERM_WORDS or said:
            return None  # "What does it mean when …": no term
        if not any(ch.isalnum() for ch in term):
            return None
        # a code ("%j", "-Fc") stands for what it means, not for words it cuts short
        expands = asks == "words" and term[:1].isalnum()
        written = expands or bool(_ABBREVIATION.match(term))
        return Term(term, written, expands, asks == "calculation")
    return None


def _named_thing(term: str) -> bool:
    """Whether "What is ``term``?" asks what a thing is: a short name, none of its words
    a function word or one that asks about something else ("the term for", "the
    largest")."""
    found = term.split()
    if not found or len(found) > WHAT_IS_WORDS or _NOT_A_TERM.search(term):
        return False
    return not any(w.lower() in stop_words() for w in found)


def definition(
    term: Term, text: str, loose: bool = False, plural: bool = True
) -> Definition | None:
    """Where ``text`` defines ``term``, in the forms the module lists: an abbreviation's
    words first, else the first glossary entry or defining sentence (of the term in
    the plural too where ``plural``); None when it does not. Only ``loose``, an
    abbreviation's words in a sentence that uses it without brackets ("ALCE, the first
    benchmark for Automatic LLMs' Citation Evaluation")."""
    expanded = _expanded(term, text, loose)
    if expanded is not None or term.expands or loose:
        return expanded
    name = _name(term.text, plural)
    forms = (partial(_glossary, code=term.text), _sentence, _called, _bracketed)
    found = [d for form in forms if (d := form(name, text)) is not None]
    return min(found, key=lambda d: d.start) if found else None


def calculation(term: Term, text: str) -> Definition | None:
    """Where ``text`` says how ``term`` is calculated ("Revenue per Active Rider is
    calculated by dividing …", "We calculate Adjusted EBITDA as …")."""
    return _sentence(_name(term.text), text, _CALCULATED, "calculates?|computes?")


def defining(term: Term, passages: Sequence[str]) -> tuple[int, Definition] | None:
    """The first of ``passages`` that defines ``term``, with where: how it is
    calculated first where that is asked, then an abbreviation spelled out beside it,
    then by a written form (the term as asked before its plural: "A Foundation Document
    is …" before "The Foundation Documents are the works entitled …"), then by an
    abbreviation's words in a sentence (the weaker sign), then glossed in brackets after
    it (``glossed``), then under a heading naming it (``headed``, the weakest), in any of
    them; None when none does."""
    forms: list[Callable[[Term, str], Definition | None]] = [
        *([calculation] if term.calculated else []),
        *([spelled] if term.abbreviation else []),
        partial(definition, loose=False, plural=False),
        partial(definition, loose=False),
        partial(definition, loose=True),
        glossed,
        headed,
    ]
    for form in forms:
        for i, text in enumerate(passages):
            found = form(term, text)
            if found is not None:
                return i, found
    return None


def spelled(term: Term, text: str) -> Definition | None:
    """Where ``text`` spells an abbreviation out beside it, in brackets ("Open Database
    Connectivity (ODBC) is a standard …"): the first thing to say of one."""
    return _expanded(term, text, loose=False)


def _name(term: str, plural: bool = True) -> str:
    """The term as a pattern: its words in any case, joined by spaces or hyphens, a
    plural allowed (where ``plural``), quoted or not, whole or in part ('"Shareable"
    files')."""
    dashes = term[: len(term) - len(term.lstrip("-"))]  # a command's option keeps its: "--parse"
    parts = [re.sub("['’]", "['’]", re.escape(w)) for w in re.split(r"[\s-]+", term) if w]
    joined = r"[\"“‘']?" + dashes + r"[\"”’']?[\s-]+[\"“‘']?".join(parts)
    return joined + (r"(?:s|es)?" if plural else r"(?![a-z])") + r"[\"”’']?"


_CODE_CHARS = 2  # a code a table's row defines in words: "m | marginally trusted"


def _glossary(name: str, text: str, code: str = "") -> Definition | None:
    """A line that starts with the term (bulleted or numbered) and goes on, after a dash
    or a colon, an option's long name ("-t --test Check integrity …"), or in a
    numbered list straight away in lower case, or as the next
    cell of a row ("%j | Day of the year as a zero-padded decimal number. | 001, …";
    a ``code`` of two letters or fewer, written as asked, in a table of two columns, in
    two words or more: "m | marginally trusted"),
    to its definition; or a line of a table's legend, the term and its definition in
    brackets."""
    entry = re.compile(
        rf"^[ \t]*(?:[•*\-–][ \t]*)?(?:(?P<n>\d+(?:\.\d+)+\.?)[ \t]+)?(?P<t>(?i:{name}))"
        r"(?:[ \t]*\([^)\n]{1,80}\))?"
        r"(?:[ \t]*(?:[–—]|::?)[ \t]*|[ \t]+-[ \t]+|(?(n)(?P<bare>[ \t]+)(?=[a-z])|(?!))|"
        r",?[ \t]+--[\w-]+[ \t]+(?=[A-Z])|"  # an option's long name: "-t --test Check …"
        + re.escape(CELLS)
        + r")(?P<d>[^\W\d_\s][^\n]{15,})",  # words, not "$1,234 million"
        re.M,
    )
    for m in entry.finditer(text):
        end = m.end("d")
        if CELLS in m.group(0)[: m.start("d") - m.start()]:  # a row: its second cell
            cut = text.find(CELLS, m.start("d"), end)
            end = end if cut < 0 else cut
            described = text[m.start("d") : end]
            # a code's, in a table of two columns: "m | marginally trusted"
            coded = (
                len(m["t"]) <= _CODE_CHARS
                and m["t"] == code
                and text.count(CELLS, m.start(), line_end(text, m.start())) == 1
            )
            least = 2 if coded else 4
            if len(described.split()) < least or _DIGIT.search(described):
                continue  # a row of values, not a term and its definition
        if m["bare"] is not None and (_TITLED.match(m["t"]) or _heading(m.group(0))):
            continue  # a numbered heading: "1.2 Revenue recognition and related policies",
            # "3.4 ALCE is Robust to Shortcut Cases"
        return Definition(m.start("d"), end)
    legend = re.compile(  # a table's legend: "**Multiple (multiple types of firearms …)"
        rf"^[ \t]*[*†‡]*[ \t]*(?i:{name})[ \t]*\((?P<d>[^()\n]{{10,200}})\)[ \t.;]*$", re.M
    )
    for m in legend.finditer(text):
        if not _UNIT.match(m["d"]) and not _DIGIT.search(m["d"]):
            return Definition(m.start("d"), m.end("d"))
    return None


_PER_UNIT = re.compile(
    r"\bper\b|\b(?:cents|dollars|euros|pounds|thousands|millions|billions)\b", re.I
)
# what a bracket after a term says of it without defining it: "(see Section 3)",
# "(excluding interest)", "(e.g. …)"
_ASIDE = re.compile(
    r"(?:see|cf|e\.\s?g|i\.\s?e|excluding|including|less|plus|net|formerly|previously|now"
    r"|hereinafter|collectively|together|each|both|also|only|optional|default|required)\b",
    re.I,
)


def glossed(term: Term, text: str) -> Definition | None:
    """What a term means, in brackets after it: "Rush hours (phases of frequent PDF
    content changes), sleep hours (…)": the words in brackets, three or more, neither
    a number nor a function word, an aside or a label first ("(the Company)", "(see
    Note 3)", "(excluding interest)", "(English: The Capital City of Warsaw)", a
    translation), nor a unit ("(cents per share)") or a table's label, nor names, a list
    or a citation ("(Django, FastAPI or Pyramid work too)", "(Devlin et al.)"). A weak
    sign, taken where no sentence defines the term."""
    if term.expands:
        return None
    gloss = re.compile(rf"(?<![\w-])(?i:{_name(term.text)})[ \t]*\((?P<d>[^()\n\d]{{10,160}})\)")
    for m in gloss.finditer(text):
        words = m["d"].split()
        first = words[0].lower()
        labelled = first.endswith(":")  # a translation: "(English: The Capital City of …)"
        named = sum(w[:1].isupper() for w in words)  # "(Django, FastAPI or Pyramid …)"
        if len(words) < 3 or first in stop_words() or _ASIDE.match(first) or labelled:
            continue
        if 2 * named > len(words) or "et al" in m["d"] or "," in m["d"]:
            continue  # names, a citation or a list: "(Devlin et al.)"
        line = text[text.rfind("\n", 0, m.start()) + 1 : line_end(text, m.end())]
        if CELLS in line or _PER_UNIT.search(m["d"]):
            continue  # a table's label and its unit: "earnings per share (cents per share)"
        return Definition(m.start("d"), m.end("d"))
    return None


def headed(term: Term, text: str) -> Definition | None:
    """The first sentence of the paragraph under a heading that is the term alone,
    numbered or coded or not ("A4 – Insecure Direct Object References" over "A direct
    object reference occurs when a developer exposes a reference to …"), or a slide's
    first bullet under its title ("GraphRAG" over "• Construct a graph on your dataset
    and query it using LLMs"): words, not a table's row. The weakest sign: a heading
    names what its section is about, which its first sentence need not define."""
    if term.expands:
        return None
    heading = re.compile(
        rf"^[ \t]*(?:[A-Z]?\d+(?:\.\d+)*\.?[ \t]*[–—:-]?[ \t]*)?(?i:{_name(term.text)})"
        r"(?:[ \t]*\([^)\n]{1,80}\))?[ \t]*\n[ \t]*\n+(?P<bullet>[•●▪◦‣∙·*-][ \t]+)?(?=[^\W\d_])",
        re.M,
    )
    for m in heading.finditer(text):
        if m["bullet"]:  # a bullet: its line, ended or not
            s, e = m.end(), line_end(text, m.end())
            ended = not text[s:e].rstrip().endswith((":", "?"))
        else:
            s, e = next(((s, e) for s, e in split_sentences(text, m.end()) if s >= m.end()), (0, 0))
            ended = text[s:e].rstrip().endswith(".")
        sentence = text[s:e]
        if CELLS in sentence or len(sentence.split()) < 6 or not ended:
            continue
        if _heading(sentence):
            continue
        return Definition(s, e)
    return None


def _sentence(
    name: str, text: str, verb: str = _VERB, says: str = "defines?|defined|calculates?|computes?"
) -> Definition | None:
    """A sentence that starts with the term and a defining ``verb`` ("Adjusted EBITDA is
    defined as …", "The type affinity of a column is …"), after the note mark a footnote
    opens with, a list item's number ("7. Q is half of …") or the term as a heading run
    into it ("Accounting Quantity The accounting quantity is …") or not ("** Core
    operating loss is a non-GAAP measure …"), or names it as a term first ('The term
    "release", in the Debian project, indicates …'), or that ``says`` it defines it ("We
    define Adjusted EBITDA as …")."""
    opening = re.compile(
        rf"{_NOTE_MARK}(?P<n>\(?\d{{1,3}}[.)]\s+)?(?P<h>(?i:{name})\s+(?=[A-Z]))?"
        rf"(?i:(?:an?|the)\s+)?(?i:{name})(?:\s*\([^)]{{1,80}}\))?{_OF_ONE},?\s+(?:{verb})\s+\S"
    )
    defines = re.compile(rf"\b(?i:{says})\s+(?i:(?:an?|the)\s+)?(?i:{name})\s+as\s+\S")
    termed = re.compile(  # 'The term "release", in the Debian project, indicates …'
        rf"{_NOTE_MARK}(?i:the\s+(?:term|word|phrase|expression)\s+)(?i:{name})"
        rf"(?:,[^,.\n]{{1,60}},)?\s+(?:{verb}|{_TERMED})\s+\S"
    )
    for s, e in split_sentences(text):
        # a sentence, or a line within it (one after a heading the splitter ran on into)
        for at in (s, *(i + 1 for i in range(s, e) if text[i] == "\n")):
            m = opening.match(text, at, e) or termed.match(text, at, e)
            m = m or defines.search(text, at, e)
            if m is not None and e - m.end() >= 10 and not _heading(text[at:e]):
                if m.re is opening and (m["h"] or m["n"]) is not None:  # past either
                    return Definition(m.end("h" if m["h"] is not None else "n"), e)
                return Definition(at, e)
    return None


def _called(name: str, text: str) -> Definition | None:
    """A sentence that names what it describes by the term, last or before a comma: 'We
    call each individual SELECT statement within a compound SELECT a "term".', "… is
    known as a lock file.", "These optional extensions to the API are called
    Capabilities, and reveal …", "A transaction with only two splits is called a simple
    transaction, since it …" (not the first of a list: "called Fast, Balanced and
    Quiet"); or first, what it names after it ("we will call modules any Tcl/Tk packages
    which consist uniquely of Tcl/Tk sources"); or between dashes or brackets after it:
    "Multiprocessor support — also called “symmetric multiprocessing” or SMP — is
    available …"."""
    calls = re.compile(
        rf"(?:\b(?i:we|they|you|people)\s+(?:call|term)\s+\S.{{8,}}?"
        rf"|\b(?:is|are)\s+(?:called|known\s+as|termed|referred\s+to\s+as))"
        rf"\s+(?i:(?:an?|the)\s+)?(?i:{name})(?:\s*[.;]?\s*$|\s*,\s*(?:and|or|which|that|since|because)\b)"
    )
    first = re.compile(  # the term first, what it names after it: "we will call modules any …"
        rf"\b(?i:we|they)\s+(?:will\s+|shall\s+)?(?:call|term)\s+(?i:{name})"
        r"\s+(?:any|all|those)\s+\w[^.;]*\b(?:which|that|who)\b"
    )  # not "we call handlers each time an event fires": "call" as in calling them
    aside = re.compile(  # "— also called “symmetric multiprocessing” or SMP —", "(also known as X)"
        rf"[—–(]\s*also\s+(?:called|known\s+as|referred\s+to\s+as)\s+"
        rf"(?:[^—–().;]{{1,60}}?\s+or\s+)?(?i:{name})\s*[—–)]"
    )
    for s, e in split_sentences(text):
        if any(p.search(text, s, e) is not None for p in (calls, first, aside)):
            return Definition(s, e)
    return None


def _bracketed(name: str, text: str) -> Definition | None:
    """The term and what it means side by side, one in brackets: "lurk (that is, read
    without posting)" (the words in brackets), or "an existing Debian Developer to
    support your application (an advocate)" (its sentence)."""
    glossed = re.search(
        rf"(?i:{name})\s*\((?:that is|i\.\s?e\.),?\s+(?P<d>[^()\n]{{3,160}})\)", text
    )
    if glossed is not None:
        return Definition(glossed.start("d"), glossed.end("d"))
    named = re.compile(rf"\S\s+\((?:an?|the)\s+(?i:{name})\)")
    for s, e in split_sentences(text):
        if named.search(text, s, e) is not None:
            return Definition(s, e)
    return None


def _heading(sentence: str) -> bool:
    """A heading, not a sentence: no closing stop, and most of its words capitalised
    ("ALCE is Robust to Shortcut Cases")."""
    words = sentence.split()
    capitalised = sum(w[:1].isupper() for w in words if w.lower() not in _MINOR)
    return not sentence.rstrip().endswith((".", ";", ")")) and 2 * capitalised > len(words)


def _expanded(term: Term, text: str, loose: bool) -> Definition | None:
    """An abbreviation's long form: in brackets after it, or before it in brackets (its
    letters spelled as ``_spells`` says, lower case or not: "Earnings per share
    (EPS)"); with ``loose``, in a sentence that uses it, as a run of capitalised words
    whose initials are its letters (minor words between them aside; the longest)."""
    if not term.abbreviation or " " in term.text:
        return None
    short = term.text
    letters = [c.lower() for c in short if c.isalnum()]
    use = re.compile(rf"(?<![\w-]){re.escape(short)}(?![\w-])")
    for s, e in split_sentences(text):
        sentence = text[s:e]
        uses = [(u.start(), u.end()) for u in use.finditer(sentence)]
        if not uses:
            continue
        words = [(w.start(), w.end()) for w in re.finditer(r"[^\s()\[\],;:.]+", sentence)]
        for start, end in uses:
            after = re.match(r"\s*\(([^()]{4,100})\)", sentence[end:])
            if not loose and after and _long_form(letters, after.group(1).split()) is not None:
                at = s + end + after.start(1)
                return Definition(at, at + len(after.group(1)))
            if not loose and sentence[start - 1 : start] == "(":  # "… Data Exchange (SPDX)"
                before = [w for w in words if w[1] < start][-12:]
                count = _long_form(letters, [sentence[a:b] for a, b in before])
                if count is not None:
                    return Definition(s + before[-count][0], s + before[-1][1])
        if loose and len(letters) >= 3:  # two capitals spell too much: "Apple Inc" AI
            run = _initialled(letters, [sentence[a:b] for a, b in words])
            if run is not None and not any(
                words[run[0]][0] <= a < words[run[1]][1] for a, _ in uses
            ):
                return Definition(s + words[run[0]][0], s + words[run[1]][1])
    return None


def _initialled(letters: list[str], words: list[str]) -> tuple[int, int] | None:
    """The first and last index of the run of capitalised words whose initials are
    ``letters`` (minor words between them count for nothing), the longest first; None
    when no run is."""
    best: tuple[int, int] | None = None
    for first, word in enumerate(words):
        if not word[:1].isupper() or word[0].lower() != letters[0]:
            continue
        i, at = 0, first
        while at < len(words) and i < len(letters):
            w = words[at]
            if w.lower() in _MINOR and i:
                at += 1
                continue
            if not w[:1].isupper() or w[0].lower() != letters[i]:
                break
            i, at = i + 1, at + 1
        if i == len(letters) and (best is None or at - 1 - first > best[1] - best[0]):
            best = (first, at - 1)
    return best


def _long_form(letters: list[str], words: list[str]) -> int | None:
    """How many of ``words``' last words spell ``letters`` (``_spells``), the first a
    major one: None when no run of them does."""
    for count in range(max(1, len(letters) - 2), min(len(words), len(letters) + 3) + 1):
        run = words[len(words) - count :]
        if run[0].lower() in _MINOR:
            continue
        if _spells(letters, [w.lower() for w in run]):
            return count
    return None


def _spells(letters: Sequence[str], run: Sequence[str], first: bool = True) -> bool:
    """Whether ``run`` spells ``letters`` as Schwartz and Hearst match a long form: the
    first word gives the first letter by its own first; every other major word gives
    the next letter by its first, or by a letter inside it (e\u0332xchange), and may give
    more from inside it in order (LLMs); a minor word gives its first letter or none."""
    if not run:
        return not letters
    if not letters:
        return False
    word, rest = run[0], run[1:]
    if word in _MINOR and not first and _spells(letters, rest, False):
        return True
    starts = [0] if word[0] == letters[0] else []
    if not first and word[0] != letters[0]:
        inner = word.find(letters[0], 1)
        starts = [inner] if inner > 0 else []
    for at in starts:
        taken = 1
        while True:  # this letter, then 0, 1, 2… more from inside the word
            if _spells(letters[taken:], rest, False):
                return True
            if taken >= len(letters):
                break
            at = word.find(letters[taken], at + 1)
            if at < 0:
                break
            taken += 1
    return False
