"""A term the question asks the meaning of, answered where the documents define it: a
glossary entry, a defining sentence, an abbreviation's words. Pure rules first, then real
ingest of shared documents with the real reader and store."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import shared, write
from footnoted import Footnoted
from footnoted.answering.citations import Answer
from footnoted.answering.definitions import Definition, Term, asked_term, defining


def exact(answer: Answer) -> str | None:
    span = next((s for s in answer.spans if s.exact_start is not None), None)
    return None if span is None else answer.text[span.exact_start : span.exact_end]


@pytest.mark.parametrize(
    ("question", "term", "expands"),
    [
        ("What does SPDX stand for?", "SPDX", True),
        ("what does 'supplied software' mean in the spec", "supplied software", False),
        ("How do the slides define shareware?", "shareware", False),
        ("How does the manual describe TIFF as an image format?", "TIFF", False),
        ('What counts as a "work that uses the Library"?', "work that uses the Library", False),
        ('What does the License mean by the "Source" form of a work?', "Source form", False),
        ("In the protocol, what does the 'critical' priority for INPUT mean?", "critical", False),
        ("How does the team describe a 'Low' severity security problem?", "Low", False),
        ("In GnuPG, what does the trust code 'm' mean?", "m", False),  # a quoted code
        ("What does the significance level mean?", "significance level", False),
        # one thing named by its kind: its name, as a glossary lists it
        ("What does the purge status flag mean?", "purge", False),
        ("what does the RTRIM collating function do", "RTRIM", False),
        ("What is the collating function?", "collating function", False),  # a kind alone
        ("What is Boeing's 'core operating loss'?", "core operating loss", False),
        ("What is an insecure direct object reference?", "insecure direct object reference", False),
        ("What is GraphRAG according to the deck?", "GraphRAG", False),
        ("What is the definition of a compliance artifact?", "compliance artifact", False),
        ("What does Lyft mean by 'Contribution'?", "Contribution", False),
        ("What does 'earnings per share' mean?", "earnings per share", False),
        ("How is revenue defined in the report?", "revenue", False),
        ("What are compliance artifacts in OpenChain?", "compliance artifacts", False),
        ("What does the Multiple column mean?", "Multiple", False),  # a column's name
        ("m&a checklist: what is meant by 'dual licensing'?", "dual licensing", False),
        ("How does Lyft calculate Adjusted EBITDA?", "Adjusted EBITDA", False),
        ("how is revenue per active rider calculated", "revenue per active rider", False),
        ("What is Q in the voting rules?", "Q", False),  # where it is used said after it
        ("What does the FHS mean by shareable files?", "shareable files", False),
        # where to look said first; what a quoted term is of said after it
        ("On the limits page, what is meant by a 'term' of a compound SELECT?", "term", False),
        ("what is meant by freedom of the press", "freedom of the press", False),
        ("What is the 'accounting quantity' for a Boeing program?", "accounting quantity", False),
        # what a thing is for: what it is, where a passage says ("this field is used for …")
        ("what is the Disclaimer field for?", "Disclaimer", False),
        ("What is suEXEC used for?", "suEXEC", False),
        ("what does it mean to lurk on the mailing list?", "lurk", False),  # a verb
        # a command's option, its command said before it
        ("git interpret-trailers --parse is shorthand for what?", "--parse", False),
        # a code stands for what it means, not for words it cuts short
        ("what does the %j directive stand for in strftime?", "%j", False),
        # an option named by its kind, its long name in brackets, its program after it
        ("What does the -t (--test) option of bzip2 do?", "-t", False),
        # a name with a possessive in it, each word capitalised
        ("In the NWTS example, what is Wilm's Tumour?", "Wilm's Tumour", False),
    ],
)
def test_the_term_a_question_asks_the_meaning_of(question: str, term: str, expands: bool) -> None:
    found = asked_term(question)
    assert found is not None
    assert (found.text, found.expands) == (term, expands)


def test_a_quoted_name_before_what_is_asked_of_it_is_no_term() -> None:
    """Words after a quoted name's kind ask something of it, not what it means; a
    quoted letter is a code only after its kind, and a quoted stop word is no term."""
    assert asked_term("What is the 'Low' severity response time?") is None
    assert asked_term("What is the 'verbose' option default value?") is None
    coded = asked_term("What does the GPG trust code 'm' mean?")
    assert coded is not None and coded.text == "m"
    assert asked_term("What does 'it' mean?") is None
    rock = asked_term("What does rock 'n' roll mean?")
    assert rock is not None and rock.text == "rock 'n' roll"


@pytest.mark.parametrize(
    "question",
    [
        "What is the population of Warsaw?",  # a description, not a term
        "What is the term for a task a computer solves?",
        "What does it mean when currencies float?",
        "What do the results mean for investors?",
        "What is -?",
        "What is the theory that this king's name is the origin of 'Huguenot' called?",
        "What is Boeing's revenue?",  # a possession
        "What was the total debt in 2022?",
        "Who is Boeing's independent auditor?",
        "what is this for?",  # no term
        "What does the company do?",  # no one thing named by its kind
        "How is the company calculating its exposure?",  # no "calculated" after a term
    ],
)
def test_questions_that_ask_no_meaning(question: str) -> None:
    assert asked_term(question) is None


@pytest.mark.parametrize(
    ("term", "text", "defined"),
    [
        (  # a glossary line: the term, a dash, its definition
            Term("shareware", False),
            "Other situations\n\nShareware – proprietary software provided to users on a "
            "trial basis, for a limited time",
            "proprietary software provided to users on a trial basis, for a limited time",
        ),
        (  # a standard's numbered terms: the definition follows in lower case
            Term("supplied software", False),
            "2.7 SPDX the format standard\n2.8 supplied software software that an "
            "organization distributes to third parties\n",
            "software that an organization distributes to third parties",
        ),
        (  # a two-cell row: the term and its meaning
            Term("shareware", False),
            "Term | Meaning\nShareware | proprietary software provided on a trial basis\n",
            "proprietary software provided on a trial basis",
        ),
        (  # a sentence that opens with the term and a defining verb
            Term("Adjusted EBITDA", True),
            "Adjusted EBITDA grew. Adjusted EBITDA is defined as net loss adjusted for "
            "interest and taxes.",
            "Adjusted EBITDA is defined as net loss adjusted for interest and taxes.",
        ),
        (  # a sentence that names the term as a term first, where it is used after it
            Term("release", False),
            "VOCABULARY Release\nThe LTS of Debian releases is recent. The term “release”, in "
            "the Debian project, indicates a particular version of a distribution.",
            "The term “release”, in the Debian project, indicates a particular version of a "
            "distribution.",
        ),
        (  # a footnote's sentence, after the footnote's mark
            Term("core operating loss", False),
            "* The FAS/CAS service cost adjustment represents the difference between costs. "
            "** Core operating loss is a non-GAAP measure that excludes the FAS/CAS service "
            "cost adjustment. See pages 45 - 47.",
            "** Core operating loss is a non-GAAP measure that excludes the FAS/CAS service "
            "cost adjustment.",
        ),
        (  # a sentence that opens with the term of one thing it belongs to
            Term("type affinity", False),
            "Rigid typing converts values. The type affinity of a column is the recommended "
            "type for data stored in it.",
            "The type affinity of a column is the recommended type for data stored in it.",
        ),
        (  # or that ends naming what it describes by the term
            Term("term", False),
            "A compound SELECT is two or more SELECT statements joined by UNION. We call "
            'each individual SELECT statement within a compound SELECT a "term". Terms may '
            "be many.",
            'We call each individual SELECT statement within a compound SELECT a "term".',
        ),
        (
            Term("lock file", False),
            "A file that marks a device as in use by one program is known as a lock file.",
            "A file that marks a device as in use by one program is known as a lock file.",
        ),
        (  # or before a comma going on to say what the thing does
            Term("Capabilities", False),
            "Certain non-mandatory extensions are defined by the API. These optional "
            "extensions to the API are called Capabilities, and reveal additional "
            "functionality. Capabilities are listed below.",
            "These optional extensions to the API are called Capabilities, and reveal "
            "additional functionality.",
        ),
        (  # or before a comma going on to say why it is so called
            Term("simple transaction", False),
            "Every transaction has at least two splits. A transaction with only two splits is "
            "called a simple transaction, since it only involves the current account and a "
            "single remote account. A transaction with three or more accounts is called a "
            "split transaction.",
            "A transaction with only two splits is called a simple transaction, since it only "
            "involves the current account and a single remote account.",
        ),
        (  # a code's row in a table of codes and what each means
            Term("m", False),
            "code | description of trust\n\nn | never trust this key\n\nm | marginally trusted"
            "\n\nf | fully trusted",
            "marginally trusted",
        ),
        (  # or that names the term first, what it names after it
            Term("module", False),
            "To avoid definition clashes with Debian terminology, we will call modules any "
            "Tcl/Tk packages which consist uniquely of Tcl/Tk sources. Modules are packaged.",
            "To avoid definition clashes with Debian terminology, we will call modules any "
            "Tcl/Tk packages which consist uniquely of Tcl/Tk sources.",
        ),
        (  # or that says it defines the term
            Term("Adjusted EBITDA", True),
            "We define Adjusted EBITDA as net loss, adjusted for interest.",
            "We define Adjusted EBITDA as net loss, adjusted for interest.",
        ),
        (  # a term quoted in part
            Term("shareable files", False),
            'It is possible to define two distinctions. "Shareable" files are those that can '
            "be stored on one host and used on others.",
            '"Shareable" files are those that can be stored on one host and used on others.',
        ),
        (  # a licence's "shall mean"
            Term("Source form", False),
            'Definitions. "Source" form shall mean the preferred form for making '
            "modifications. Object form is any other.",
            '"Source" form shall mean the preferred form for making modifications.',
        ),
        (  # the term as a heading run into its sentence: the sentence alone
            Term("accounting quantity", False),
            "Accounting Quantity The accounting quantity is our estimate of the quantity of "
            "airplanes that will be produced. It is limited by the ability to estimate.",
            "The accounting quantity is our estimate of the quantity of airplanes that will "
            "be produced.",
        ),
        (  # a numbered list's item: the sentence, not its number
            Term("Q", False),
            "Quorum.\n\n    7. Q is half of the square root of the number of current "
            "Developers. K is Q or 5.",
            "Q is half of the square root of the number of current Developers.",
        ),
        (  # a table's legend: the term and its definition in brackets
            Term("Multiple", False),
            "*Other (neither handguns nor long guns)\n**Multiple (multiple types of firearms "
            "selected)\n\nDISCLAIMERS:",
            "multiple types of firearms selected",
        ),
        (  # the first sentence under a heading that is the term alone, coded or not
            Term("insecure direct object reference", False),
            "A4 – Insecure Direct Object References\n\nA direct object reference occurs when "
            "a developer exposes a reference to an internal object. Attackers can use it.",
            "A direct object reference occurs when a developer exposes a reference to an "
            "internal object.",
        ),
        (  # a slide's first bullet under its title, ended or not
            Term("GraphRAG", True),
            "GraphRAG\n\n• Construct a graph on your dataset and query it using LLMs\n\n"
            "• Natively supports population level queries",
            "Construct a graph on your dataset and query it using LLMs",
        ),
        (  # a table's row: the code, then what it means, then other cells
            Term("%j", False),
            "Directive | Meaning | Example\n\n%a | Weekday as abbreviated name. | Sun, Mon\n\n"
            "%j | Day of the year as a zero-padded decimal number. | 001, 002, …, 366",
            "Day of the year as a zero-padded decimal number.",
        ),
        (  # a manual's definition list: the option, "::" and what it is
            Term("--parse", False),
            "--trailer <key>[(=|:)<value>]:: Specify a trailer.\n\n--parse:: A convenience "
            "alias for --only-trailers --only-input --unfold. This makes it easier.",
            "A convenience alias for --only-trailers --only-input --unfold. This makes it easier.",
        ),
        (  # the term and what it means in brackets after it
            Term("lurk", False),
            "You should subscribe and lurk (that is, read without posting) for a bit.",
            "read without posting",
        ),
        (  # what it names, the term in brackets after it: the sentence
            Term("advocate", False),
            "To apply, you need an existing Debian Developer to support your application "
            "(an advocate). After you have contributed for a while, apply.",
            "To apply, you need an existing Debian Developer to support your application "
            "(an advocate).",
        ),
        (  # what it names, then the term as another name for it, between dashes
            Term("SMP", True),
            "Multiprocessor support — also called “symmetric multiprocessing” or SMP — is "
            "available for this architecture. It was once a feature of high-end servers.",
            "Multiprocessor support — also called “symmetric multiprocessing” or SMP — is "
            "available for this architecture.",
        ),
        (  # a manual's options: the short name, the long one, what it does
            Term("-t", False),
            "-z --compress The complement to -d: forces compression.\n\n-t --test Check "
            "integrity of the specified file(s), but don't decompress them.\n\n-f --force "
            "Force overwrite of output files.",
            "Check integrity of the specified file(s), but don't decompress them.",
        ),
        (  # the name typed with a straight apostrophe, printed with a curly one
            Term("Wilm's Tumour", False),
            "The data are from the National Wilm’s Tumor Study. Wilm’s Tumour is a rare "
            "cancer of the kidney in children.",
            "Wilm’s Tumour is a rare cancer of the kidney in children.",
        ),
        (  # an abbreviation's words in brackets after it
            Term("SPDX", True, expands=True),
            "the Linux Foundation’s SPDX (Software Package Data Exchange) Working Group",
            "Software Package Data Exchange",
        ),
        (  # before it, with a minor word among them
            Term("NASA", True, expands=True),
            "The National Aeronautics and Space Administration (NASA) is an agency.",
            "National Aeronautics and Space Administration",
        ),
        (  # in a sentence that uses it, letters from inside a word too (LLMs)
            Term("ALCE", True, expands=True),
            "We propose ALCE, the first benchmark for Automatic LLMs’ Citation Evaluation.",
            "Automatic LLMs’ Citation Evaluation",
        ),
        (  # glossed in brackets after it, on a slide's line run together
            Term("rush hours", False),
            "based on the display system’s hostname Rush hours (phases of frequent PDF "
            "content changes), sleep hours (phases of no PDF content changes)",
            "phases of frequent PDF content changes",
        ),
    ],
)
def test_where_a_text_defines_a_term(term: Term, text: str, defined: str) -> None:
    found = defining(term, [text])
    assert found is not None
    assert text[found[1].start : found[1].end] == defined


@pytest.mark.parametrize(
    ("term", "text"),
    [
        (Term("ALCE", True), "C ALCE is Robust to Shortcut Cases\n"),  # a heading
        (Term("ALCE", True), "3.4 ALCE is Robust to Shortcut Cases\n\nWe showcase how."),
        (Term("core operating loss", False), "Core operating loss (Non-GAAP) | ($4,690)\n"),
        (Term("shareware", False), "Shareware | 12 | 14\n"),  # a row of values
        (Term("Fast", False), "The modes are called Fast, Balanced and Quiet."),  # a list
        (Term("ALCE", True, expands=True), "ALCE is a benchmark of citations."),  # no words
        (Term("shareware", False), "The goal of shareware is to let buyers try the program."),
        (Term("wiki", False), "Wikis are enabled by wiki software, known as wiki engines."),
        # a numbered heading, a unit caption, a value, a row of values, a past statement
        (Term("Revenue", False), "1.2 Revenue recognition and related policies\n"),
        (Term("Revenue", False), "Revenue (in millions of dollars)\n"),
        (Term("Revenue", False), "Revenue: $1,234 million in 2021 compared to 2020\n"),
        (Term("Sales", False), "Sales | Up 5% on strong demand in Europe\n"),
        (Term("Revenue", False), "Revenue was $5.2 billion in 2021, up from 2020."),
        (Term("advocate", False), "Ask an advocate (Alice) to confirm it."),  # a name in brackets
        (Term("release", False), "The release indicates that the freeze is over."),  # no term
        # a bracket that names, refers or qualifies, not glosses
        (Term("Lyft", False), "Lyft, Inc. (the Company and its subsidiaries) reported."),
        (Term("operating income", False), "Operating income (excluding stock-based pay) rose."),
        (Term("target", False), "Ask the target (see Section 4.2 of this checklist)."),
        (Term("rush hours", False), "Rush hours (7 to 9 in the morning) are busy."),
        (Term("Warszawa", False), 'It is miasto Warszawa (English: "The Capital City").'),
        (Term("earnings per share", False), "Diluted earnings per share (cents per share) (1,2)"),
        (Term("rush hours", False), "Rush hours (phases of frequent changes) | 3 | 4"),
        (Term("Flask", False), "Use Flask (Django, FastAPI or Pyramid work too) for it."),
        (Term("BERT", True), "We fine-tune BERT (Devlin and others, 2019) on it."),
        (Term("BERT", True), "We fine-tune BERT (as Devlin et al. did) on it."),
        # a code's row only written as asked, in a table of two columns, in words
        (Term("m", False), "M | Medium size shirt\n\nms | millisecond time unit"),
        (Term("CA", True), "CA | Los Angeles | 3,898,747"),
        # "call" as in calling them, not naming them
        (Term("handlers", False), "We call handlers each time an event fires."),
        (Term("callbacks", False), "They call callbacks the moment the request completes."),
    ],
)
def test_what_is_no_definition(term: Term, text: str) -> None:
    assert defining(term, [text]) is None


def test_the_term_as_asked_comes_before_its_plural() -> None:
    """Asked "What is a Foundation Document?", a constitution's "The Foundation Documents
    are the works entitled …" (which lists them) read first gives way to "A Foundation
    Document is a document … regarded as critical …" read after it."""
    term = asked_term("What is a Foundation Document?")
    assert term is not None
    listing = "The Foundation Documents are the works entitled Social Contract and Guidelines."
    defined = "A Foundation Document is a document regarded as critical to the Project."
    assert defining(term, [listing, defined]) == (1, Definition(0, len(defined)))
    plural = asked_term("What is a compliance artifact?")
    assert plural is not None
    assert defining(plural, ["Compliance artifacts are the documents a program produces."])


def test_how_a_term_is_calculated_comes_before_what_it_represents() -> None:
    term = asked_term("How is Revenue per Active Rider calculated?")
    assert term is not None and term.calculated
    represents = "Revenue per Active Rider represents our ability to monetize our platform."
    calculated = "Revenue per Active Rider is calculated by dividing revenue by Active Riders."
    assert defining(term, [represents, calculated]) == (1, Definition(0, len(calculated)))
    # asked what it is, the first passage that defines it answers
    meaning = asked_term("What is meant by Revenue per Active Rider?")
    assert meaning is not None and not meaning.calculated
    assert defining(meaning, [represents, calculated]) == (0, Definition(0, len(represents)))
    # "We calculate X as": a lead-in is a calculation too, a longer term's is not
    ebitda = asked_term("How does Lyft calculate Adjusted EBITDA?")
    assert ebitda is not None
    margin = "Adjusted EBITDA Margin is calculated by dividing Adjusted EBITDA by revenue."
    lead_in = "We calculate Adjusted EBITDA as net loss, adjusted for:"
    assert defining(ebitda, [margin, lead_in]) == (1, Definition(0, len(lead_in)))


def test_a_gloss_in_brackets_gives_way_to_a_defining_sentence() -> None:
    term = asked_term('What does the deck mean by "rush hours"?')
    assert term is not None
    glossed = "Set the rush hours (phases of frequent PDF content changes) per display."
    defined = "Rush hours are the phases in which the PDF changes often."
    assert defining(term, [glossed, defined]) == (1, Definition(0, len(defined)))
    start = glossed.index("phases")
    end = glossed.index(")")
    assert defining(term, [glossed]) == (0, Definition(start, end))


def test_a_heading_naming_the_term_is_the_weakest_sign() -> None:
    """A definition written out in any passage read comes before the first sentence under
    a heading naming the term in an earlier one; under a heading, a table's row or a
    sentence too short to define anything is no definition."""
    term = Term("compliance artifacts", False)
    headed = "3.1.4 Compliance artifacts\n\nA process shall exist for creating the artifacts."
    glossary = "2.1 compliance artifacts a collection of artifacts that represent the output"
    found = defining(term, [headed, glossary])
    assert found is not None and found[0] == 1
    assert defining(term, [headed]) == (0, Definition(28, len(headed)))
    rows = "Compliance artifacts\n\nArtifacts | Owner | Status of the process here.\n"
    assert defining(term, [rows, "Compliance artifacts\n\nSee below.\n"]) is None
    # a bullet that leads into a list, asks, or is too short to define anything
    for bullet in ("• The artifacts the process creates are these:", "• Which ones?",
                   "• See the list"):  # fmt: skip
        assert defining(term, [f"Compliance artifacts\n\n{bullet}\n\n• Licenses\n"]) is None


def test_two_capitals_in_a_sentence_spell_nothing_and_brackets_come_first() -> None:
    assert defining(Term("AI", True, expands=True), ["Apple Inc announced AI features."]) is None
    loose = "We propose PCQA, the first benchmark for Private Company Question Answering."
    bracketed = "Passages come from PCQA (Public Code Question Answering) sets."
    found = defining(Term("PCQA", True, expands=True), [loose, bracketed])
    assert found is not None and found[0] == 1  # the bracketed form, though read later


def test_an_abbreviation_asked_what_it_is_is_spelled_out_first() -> None:
    """Asked "What is ODBC?", a sentence spelling it out beside it comes before one that
    says what it is without its words, wherever each is read."""
    term = asked_term("What is ODBC?")
    assert term is not None and term.abbreviation and not term.expands
    said = "ODBC is a client-server system, and it runs on a Unix server."
    spelled = "Open Database Connectivity (ODBC) is a standard to use all these sources."
    words = "Open Database Connectivity"  # its words, marked in the sentence quoted
    assert defining(term, [said, spelled]) == (1, Definition(0, len(words)))
    assert defining(term, [said]) == (0, Definition(0, len(said)))


def test_an_abbreviation_asked_is_answered_where_it_is_spelled_out(
    service: Footnoted, tmp_path: Path
) -> None:
    """The passages read say what ODBC is without its words; the one that spells it out,
    further down the retrieved passages, answers."""
    uses = [
        "ODBC is a client-server system, and we have happily connected to a DBMS running on "
        "a Unix server from a Windows client, and vice versa.",
        "On Windows ODBC support is part of the OS. On Unix you need an ODBC Driver Manager.",
        "Package RODBC provides an interface to any database with an ODBC driver.",
        "The ODBC driver is set up once, and each connection names its data source.",
    ]
    lines = ["# Relational databases", "", "There are other commonly used data sources, "
             "including spreadsheets. Open Database Connectivity (ODBC) is a standard to use "
             "all of these data sources.", ""]  # fmt: skip
    for i, text in enumerate(uses):
        lines += [f"## ODBC in practice {i + 1}", "", text, ""]
    report = service.ingest([write(tmp_path / "docs" / "R-data.md", "\n".join(lines))])
    assert not report.failed, report.failed
    result = service.answer("what is ODBC?")
    assert result.answer is not None, result.refusal
    assert "Open Database Connectivity (ODBC) is a standard" in result.answer.text
    assert result.read[0].defines


def test_a_standards_glossary_entry_answers(service: Footnoted) -> None:
    report = service.ingest([shared("docs-more", "openchain-spec__openchainspec-2.1.pdf")])
    assert not report.failed, report.failed
    result = service.answer("what does 'supplied software' mean in the spec")
    assert result.answer is not None, result.refusal
    text = result.answer.text
    assert text.startswith("2.8 supplied software software that an organization distributes")
    assert result.read[0].defines
    assert exact(result.answer) is None  # a definition is no value to mark
    assert result.answer.citations[0].page is not None


def test_an_abbreviation_is_spelled_out_where_first_used(service: Footnoted) -> None:
    report = service.ingest([shared("pdfs", "ALCE__ALCE.pdf")])
    assert not report.failed, report.failed
    result = service.answer("What does ALCE stand for?")
    assert result.answer is not None, result.refusal
    assert exact(result.answer) == "Automatic LLMs’ Citation Evaluation"
    assert result.read[0].defines
    assert result.answer.citations[0].page == 1


def test_a_slide_titled_with_the_term_answers_with_its_first_bullet(service: Footnoted) -> None:
    report = service.ingest([shared("pdfs-more", "R2R__graphrag.pdf")])
    assert not report.failed, report.failed
    result = service.answer("What is GraphRAG according to the deck?")
    assert result.answer is not None, result.refusal
    assert result.answer.text.startswith("Construct a graph on your dataset and query it")


def test_a_term_used_but_never_defined_is_left_to_the_reader(service: Footnoted) -> None:
    report = service.ingest([shared("pdfs", "ALCE__ALCE.pdf")])
    assert not report.failed, report.failed
    question = "What does the acronym ASQA stand for?"
    term = asked_term(question)
    assert term is not None and term.expands
    [doc] = service.store.list_documents()
    assert defining(term, [c.text for c in service.store.document_chunks(doc.id)]) is None
    result = service.answer(question)
    assert result.read and not any(r.defines for r in result.read)  # read, not defined


def test_a_definition_lacking_what_the_question_names_gives_way(
    service: Footnoted, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    defined = "A wiki is essentially a database for creating, browsing and searching information."
    named = "Ward Cunningham named his WikiWikiWeb after the Hawaiian word wiki, which means quick."
    report = service.ingest([write(docs / "wikis.md", f"# Wikis\n\n{defined}\n"),
                             write(docs / "name.md", f"# The name\n\n{named}\n")])  # fmt: skip
    assert not report.failed, report.failed
    plain = service.answer("What does 'wiki' mean?")
    assert plain.answer is not None, plain.refusal
    assert plain.read[0].defines and plain.answer.text.startswith(defined)
    result = service.answer("What does 'wiki' mean in Hawaiian?")
    assert result.answer is not None, result.refusal
    assert not result.read[0].defines
    assert result.answer.text.startswith(named)
