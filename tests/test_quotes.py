"""A passage's quote is composed the way documents are written (``answering.quotes``):
a lead-in brings what it introduces, a pronoun its antecedent, a heading or a bullet is
never the quote, and the exact answer is marked only when it is the value asked for.

The reader's span is placed by hand where a reader puts it, so each test checks the
quote's composition alone; the pipeline's own runs over real documents are
``footnoted eval docs`` and ``tests/test_quality.py``."""

from __future__ import annotations

from dataclasses import replace

from footnoted.answering.evidence import Read
from footnoted.answering.pipeline import anchored, reasoned_first, worded_first
from footnoted.answering.quotes import Quote, asked_thing, group_of, quote, value_at
from footnoted.inference.reader import Reading
from footnoted.models import Chunk, RetrievedChunk


def read_at(text: str, span: str, section: str | None = None, after: str = "") -> Read:
    """A read of ``text`` whose reader span is the first ``span`` in it (past
    ``after``)."""
    start = text.index(span, text.index(after) if after else 0)
    chunk = Chunk("c1", "d1", 0, text, 100, 100 + len(text), section=section, header="")
    hit = RetrievedChunk(chunk, "Guide", None, 0.7)
    return Read(hit, Reading(20.0, start, start + len(span)), 20.0)


def marked(q: Quote) -> str | None:
    if q.exact is None:
        return None
    base = q.read.hit.chunk.char_start
    return q.read.hit.chunk.text[q.exact[0] - base : q.exact[1] - base]


def test_a_lead_in_brings_its_list_marked_or_not() -> None:
    unmarked = (
        "New employees complete three steps in their first week:\n\n"
        "Collect a laptop from the IT desk.\n\nSign the security policy.\n\n"
        "Meet their assigned mentor.\n\nSecond week\n\n"
        "In the second week, new employees shadow a colleague on customer calls."
    )
    q = quote(read_at(unmarked, "three steps"), None, "What do new employees do first?")
    assert q.text.startswith("New employees complete three steps")
    assert q.text.endswith("Meet their assigned mentor.")  # not the next section
    bullets = (
        "We define Adjusted EBITDA as net loss, adjusted for:\n\n• interest expense;\n\n"
        "• stock-based compensation;\n\n• restructuring charges.\n\n"
        "Adjusted EBITDA is a key measure we use to assess our performance."
    )
    q = quote(read_at(bullets, "net loss"), None, "How is Adjusted EBITDA defined?")
    assert q.text.endswith("• restructuring charges.")
    assert "key measure" not in q.text


def test_a_list_read_on_past_its_passage_and_one_cut_short_says_it_goes_on() -> None:
    items = [f"• adjustment number {n};" for n in range(1, 12)]
    document = "We calculate Adjusted EBITDA as net loss, adjusted for:\n\n" + "\n\n".join(items)
    document += "\n\nAdjusted EBITDA is a key measure we use to assess our performance."
    passage = document[: document.index(items[3]) + len(items[3])]  # the chunk ends at the 4th
    read = read_at(passage, "net loss")

    def context(document_id: str, start: int, end: int) -> str:
        assert document_id == "d1"
        return document[start - 100 : end - 100]  # the passage starts at offset 100

    whole = quote(read, context, "How is Adjusted EBITDA calculated?")
    assert whole.text.endswith(items[7])  # read on past the passage, up to eight items
    shown, _ = whole.render()
    assert shown == f"{whole.text}\n…"  # and the document lists more
    assert document.startswith(whole.text)  # the quote itself stays verbatim
    alone = quote(read, None, "How is Adjusted EBITDA calculated?")
    assert alone.text.endswith(items[3]) and alone.render()[0] == alone.text
    # a document whose text is gone (deleted as the question was read) reads on to
    # nothing: the list the passage holds stays quoted
    gone = quote(read, lambda document_id, start, end: "", "How is Adjusted EBITDA calculated?")
    assert gone.text == alone.text
    short = "\n\n".join(document.split("\n\n")[:4]) + "\n\nThat is all."
    q = quote(read_at(short, "net loss"), None, "How is Adjusted EBITDA calculated?")
    assert q.text.endswith(items[2]) and not q.more  # a whole list: nothing to say


def test_a_lead_in_brings_one_block_when_what_follows_is_no_list() -> None:
    text = (
        "Install the package with:\n\npip install footnoted\n\nThen ingest a folder of "
        "documents. Ingest reads PDF, Word and HTML. It keeps each page."
    )
    q = quote(read_at(text, "Install the package"), None, "How do I install it?")
    assert q.text == "Install the package with:\n\npip install footnoted"


def test_a_sentence_saying_what_can_be_done_brings_the_one_saying_how() -> None:
    text = (
        "Admins can export every answer with its citations. To do this, open the admin "
        "page and choose Export. Exports are kept for a week."
    )
    q = quote(read_at(text, "export every answer"), None, "How can I export answers?")
    assert q.text.endswith("open the admin page and choose Export.")
    assert "kept for a week" not in q.text


def test_a_sentence_opening_with_a_pronoun_brings_its_antecedent() -> None:
    text = (
        "The company was founded in 1998. The Falcon engine was introduced in 2019. "
        "It burns kerosene and liquid oxygen."
    )
    q = quote(read_at(text, "kerosene and liquid oxygen"), None, "What does the Falcon burn?")
    assert q.text == (
        "The Falcon engine was introduced in 2019. It burns kerosene and liquid oxygen."
    )
    # so does "The above", after what it stands for
    text = (
        "xn::Context::WaitAndUpdateAll(): Waits for all nodes to have new data. "
        "The above four functions exit after a timeout of two seconds."
    )
    q = quote(read_at(text, "two seconds"), None, "When do the functions time out?")
    assert q.text == text
    # not "The above-ground pool …"
    text = "Pools come in two kinds. The above-ground pool is cheaper to install."
    q = quote(read_at(text, "cheaper"), None, "Which pool is cheaper to install?")
    assert q.text == "The above-ground pool is cheaper to install."
    # a pronoun opening a sentence in brackets points back as well
    text = "Help files were regenerated as valid HTML5. (This is the impetus for this release.)"
    q = quote(read_at(text, "impetus"), None, "Why was the release put out?")
    assert q.text == text


def test_a_sentence_that_also_says_something_brings_what_it_adds_to() -> None:
    """Lyft's 10-K: asked why revenue rose, the reader's sentence is the second reason."""
    text = (
        "Revenue increased $843.6 million, or 36%, in 2021 as compared to the prior year, "
        "driven primarily by the significant increase in the number of Active Riders. "
        "Revenue in 2021 also benefited from revenues from licensing and data access "
        "agreements."
    )
    q = quote(read_at(text, "licensing"), None, "Why did Lyft's revenue go up in 2021?")
    assert q.text == text
    # "also" late in a sentence adds nothing to the one before; at its start, nothing is
    # before it
    late = "Revenue rose in 2021. Riders took more trips and drivers were also paid more."
    q = quote(read_at(late, "paid more"), None, "What happened to drivers' pay?")
    assert q.text == "Riders took more trips and drivers were also paid more."
    alone = "Revenue in 2021 also benefited from licensing agreements."
    assert quote(read_at(alone, "licensing"), None, "Why?").text == alone


def test_these_things_anywhere_in_a_sentence_bring_the_one_saying_which() -> None:
    """Debian's "Users and Groups": asked which package holds the master copies, the
    reader's sentence speaks of "these master files"; the sentence before names them
    and the package."""
    text = (
        "Every Debian system has a few static users. The Debian base-passwd package "
        "contains the master versions of /etc/passwd and /etc/group. The update-passwd "
        "tool keeps the entries in these master files in sync on all Debian systems."
    )
    question = "Which package holds the master copies of /etc/passwd?"
    q = quote(read_at(text, "update-passwd tool"), None, question)
    assert q.text == text[text.index("The Debian base-passwd") :]
    # "those who", "these are", a list's "these include", "these" in a later sentence of
    # the quote (its antecedent is quoted already) and things the sentence before does
    # not name bring nothing before
    for plain, span in (
        ("Only those who sign in can ask.", "sign in"),
        ("Partners see those transactions too.", "Partners"),
        ("Only these are kept for a week.", "kept"),
        ("The checks vary, and these include a virus scan.", "virus scan"),
        ("The admins set two limits. Uploads over these limits wait.", "limits. Uploads"),
    ):
        text = f"Uploads are checked first. {plain}"
        q = quote(read_at(text, span), None, question)
        assert q.text == plain, plain


def test_a_pronoun_stands_for_no_heading_label_or_salutation() -> None:
    """What is above a pronoun's sentence is brought only when it is a sentence: not the
    heading above it ("Miscellaneous" is not what "These Terms" are), nor a label or a
    letter's salutation."""
    for above in ("Miscellaneous", "Global Services Segment", "technology.esl Committers,"):
        text = f"{above}\n\nThese Terms are governed by the laws of the state of California."
        q = quote(read_at(text, "California"), None, "Which state's law governs the terms?")
        assert q.text == "These Terms are governed by the laws of the state of California.", above


def test_a_heading_or_a_bullet_is_never_the_quote() -> None:
    text = (
        "3.3 Citation Quality\n\nCitation quality is measured by citation recall and "
        "citation precision."
    )
    q = quote(read_at(text, "Citation Quality", "Paper > 3.3 Citation Quality"), None, "")
    assert not q.text.startswith("3.3")
    bullet = "Plans:\n\n• Starter plans answer within one business day."
    q = quote(read_at(bullet, "one business day"), None, "How fast is Starter?")
    assert q.text == "Starter plans answer within one business day."


def test_a_heading_of_the_passage_is_a_heading_however_it_ends() -> None:
    """Asked for the leave policy for jury duty, the reader's span sat in the handbook's
    heading "Court leave (jury duty)", which closes on a parenthesis as a sentence may:
    a line that is one of the passage's own section headings is a heading all the same."""
    text = (
        "Court leave (jury duty)\n\nWhen you are called to jury duty, your absence is "
        "marked as Court Leave and does not count against any of your other leave balances."
    )
    read = read_at(text, "Court leave", "Types of leave > Court leave (jury duty)")
    q = quote(read, None, "What is the leave policy for jury duty?")
    assert q.text.startswith("When you are called to jury duty")
    q = quote(read_at(text, "Court leave"), None, "What is the leave policy for jury duty?")
    assert q.text == "Court leave (jury duty)"  # no section says it heads the passage


def test_an_faqs_long_question_heading_its_passage_is_a_heading() -> None:
    """An FAQ heads each answer with its question, as long as a sentence: "7.11. What is
    meant by unknown, install, remove, purge and hold in the package status?" (15
    words) was quoted as the answer to what "purge" means."""
    text = (
        "7.11. What is meant by unknown, install, remove, purge and hold in the package "
        'status?\n\nThese "want" flags tell what the user wanted to do with a package.'
    )
    section = (
        "Chapter 7. Basics of the Debian package management system > 7.11. What is meant "
        "by unknown, install, remove, purge and hold in the package status?"
    )
    q = quote(read_at(text, "unknown, install", section), None, "What does purge mean?")
    assert q.text.startswith('These "want" flags tell')


def test_a_numbered_heading_ending_in_its_abbreviation_is_a_heading() -> None:
    """ "6.2 … (SBOM)" closes on its abbreviation, not on a sentence's end: it heads the
    text under it; a sentence closing on a parenthesis is still a sentence."""
    text = (
        "6.2 CISA - 2025 Minimum Elements for a Software Bill of Materials (SBOM)\n\n"
        "The minimum elements are the author, the timestamp and the component names."
    )
    q = quote(read_at(text, "Minimum Elements", "Guide > 6. Compliance Elements"), None, "")
    assert q.text.startswith("The minimum elements are")
    said = "6.2 The guide names three elements (the author, the timestamp and the names)"
    q = quote(read_at(said, "three elements"), None, "How many elements?")
    assert q.text == said


def test_a_papers_part_named_as_usual_is_a_heading() -> None:
    """A specification's "Abstract" on a line of its own (a DocBook title paragraph, no
    heading element) was quoted as the whole answer: a part of a paper or report named
    as such parts are is a heading, and the quote moves to the sentence under it. A
    list's one-word item is no heading."""
    text = (
        "Abstract\n\nEstablishes a standard, machine-readable format for debian/copyright "
        "files within Debian packages."
    )
    q = quote(read_at(text, "Abstract", "Machine-readable debian/copyright file"), None, "")
    assert q.text.startswith("Establishes a standard")
    listed = "Fruits we sell:\n\nApples\n\nPears"
    q = quote(read_at(listed, "Apples"), None, "Which fruits are sold?")
    assert "Apples" in q.text


def test_a_changelogs_version_heading_answers_which_version() -> None:
    """Asked which version brought a change, the quote is shown under the release's
    heading, printed above it in the passage (the sentence names no version), whether
    the reader's span sat in the heading or in the sentence; asked anything else, the
    heading gives way to the sentence and is not shown."""
    text = "officer 0.6.0\n\nFeatures\n\nadd RTF support, see rtf_doc() and rtf_add()."
    read = read_at(text, "0.6.0", "officer 0.6.0 > Features")
    q = quote(read, None, "which officer version added RTF support?")
    assert q.render()[0] == "officer 0.6.0: add RTF support, see rtf_doc() and rtf_add()."
    q = quote(read, None, "what was added for RTF?")
    assert q.render()[0] == "add RTF support, see rtf_doc() and rtf_add()."
    news = (
        "dplyr 1.0.4\n\nImproved performance for across().\n\nNew functions if_any() and if_all()."
    )
    read = read_at(news, "New functions", "dplyr 1.0.4")
    q = quote(read, None, "Which dplyr version first shipped if_any() and if_all()?")
    assert q.render()[0] == "dplyr 1.0.4: New functions if_any() and if_all()."
    assert [piece.text for _, piece in q.render()[1]] == ["dplyr 1.0.4", q.text]


def test_a_release_heading_above_the_passage_answers_which_release() -> None:
    """A changelog's release heading printed above the passage (its section path's
    outer part, not its text) shows over the quote asked which release, taken from
    where the document prints it; not asked which release, or where the quote names
    one itself, the quote stands alone."""
    document = (
        "GNU coreutils NEWS\n\n* Noteworthy changes in release 8.27 (2017-03-08) [stable]\n\n"
        "Bug fixes\n\ncp no longer fails on a directory.\n\n"
        "* Noteworthy changes in release 8.26 (2016-11-30) [stable]\n\nNew programs\n\n"
    )
    text = (
        "New programs\n\nb2sum is added to support the BLAKE2 digest algorithm with a "
        "similar interface to md5sum."
    )
    base = len(document) - len("New programs\n\n")
    full = document[:base] + text

    def context(document_id: str, start: int, end: int) -> str:
        assert document_id == "d1"
        return full[start:end]

    section = (
        "GNU coreutils NEWS > Noteworthy changes in release 8.26 (2016-11-30) [stable] > "
        "New programs"
    )
    read = read_at(text, "BLAKE2", section)
    chunk = replace(read.hit.chunk, char_start=base, char_end=base + len(text))
    read = replace(read, hit=replace(read.hit, chunk=chunk))
    q = quote(read, context, "Which coreutils release first added the b2sum program?")
    heading = "Noteworthy changes in release 8.26 (2016-11-30) [stable]"
    assert q.group is not None and q.group.text == heading
    assert full[q.group.start : q.group.end] == heading
    assert q.render()[0].startswith(heading + ": b2sum is added")
    assert quote(read, context, "What does b2sum support?").group is None
    since = text.replace("md5sum.", "md5sum since 8.26.")
    named = replace(read, hit=replace(read.hit, chunk=replace(chunk, text=since)))
    assert quote(named, context, "Which release added b2sum?").group is None
    # a chapter's number is no release; a release printed in the passage above the
    # quote is the quote's, not the one its section path lags behind at
    chapter = replace(chunk, section="Guide > Chapter 4.2 Exporting > New programs")
    read = replace(read, hit=replace(read.hit, chunk=chapter))
    assert quote(read, context, "Which version added b2sum?").group is None
    lagging = "Noteworthy changes in release 8.27\n\n" + text
    behind = replace(chunk, text=lagging, char_end=base + len(lagging))
    read = replace(read, hit=replace(read.hit, chunk=behind))
    read = replace(
        read, reading=Reading(20.0, lagging.index("BLAKE2"), lagging.index("BLAKE2") + 6)
    )
    assert quote(read, context, "Which coreutils release first added b2sum?").group is None
    # a list of bare versions above the quote (a library's, bundled) names no release
    listed = "v1.6.2\n\nv1.6.1\n\n" + text
    bundled = replace(chunk, text=listed, char_end=base + len(listed))
    at = listed.index("BLAKE2")
    read = replace(read, hit=replace(read.hit, chunk=bundled), reading=Reading(20.0, at, at + 6))
    group = quote(read, context, "Which coreutils release first added b2sum?").group
    assert group is not None and group.text == heading


def test_asked_for_a_number_a_heading_above_holding_it_labels_the_quote() -> None:
    """Asked for a number the quote does not hold, the quote is shown under its own
    section's heading, printed above it, where that holds one ("requires pip 19.0 or
    later"); a heading's numbering ("2.1.") is none, and a question asking for no
    number gets the quote alone."""
    text = (
        "On Linux, install via pip (requires pip 19.0 or later)\n\n"
        "python3 -m pip install --user pipx"
    )
    read = read_at(
        text, "python3", "Install pipx > On Linux, install via pip (requires pip 19.0 or later)"
    )
    q = quote(read, None, "What minimum pip version is needed to install pipx on Linux?")
    assert q.render()[0] == (
        "On Linux, install via pip (requires pip 19.0 or later): python3 -m pip install --user pipx"
    )
    assert quote(read, None, "How do I install pipx on Linux?").render()[0].startswith("python3")
    numbered = "2.1. Installing on Linux\n\nRun the installer as root."
    read = read_at(numbered, "Run the", "2. Setup > 2.1. Installing on Linux")
    q = quote(read, None, "How many steps does installing on Linux take?")
    assert q.render()[0] == "Run the installer as root."


def test_asked_which_section_says_it_the_heading_above_labels_the_quote() -> None:
    """A menu policy lists its sections as headings, each over what belongs there: asked
    which section is for HAM radio, the quote is shown under its section's heading; asked
    what belongs there, it is not."""
    text = "Applications/Amateur Radio\n\nAnything relating to HAM radio.\n\nExamples: twlog"
    section = "2. Menu Structure > 2.1. Preferred menu structure > Applications/Amateur Radio"
    read = read_at(text, "Anything", section)
    q = quote(read, None, "In the menu structure, which section is for anything about HAM radio?")
    assert q.render()[0] == "Applications/Amateur Radio: Anything relating to HAM radio."
    q = quote(read, None, "What goes in the Applications/Amateur Radio menu?")
    assert q.render()[0] == "Anything relating to HAM radio."


def test_a_lead_in_over_a_list_of_terms_brings_its_first_term_and_what_it_means() -> None:
    """A policy's definitions: "The following terms are used:" over a term on a line of
    its own and its meaning below; the quote is the lead-in, the term and its meaning,
    not the term alone."""
    text = (
        "1.5 Definitions\n\nThe following terms are used in this Policy Manual:\n\nASCII\n\n"
        "The character encoding specified by ANSI X3.4-1986 and its predecessor standards.\n\n"
        "UTF-8\n\nThe transformation format of ISO 10646 defined in RFC 3629."
    )
    q = quote(read_at(text, "The following"), None, "How does the manual define ASCII?")
    assert q.text == (
        "The following terms are used in this Policy Manual:\n\nASCII\n\n"
        "The character encoding specified by ANSI X3.4-1986 and its predecessor standards."
    )
    # a passage that ends with the first term's meaning reads on to see the next term
    passage = text[: text.index("UTF-8")].rstrip()

    def context(document_id: str, start: int, end: int) -> str:
        return text[start - 100 : end - 100]  # the passage starts at offset 100

    read = read_at(passage, "The following")
    assert quote(read, context, "How does the manual define ASCII?").text == q.text
    assert quote(read, None, "How does the manual define ASCII?").text.endswith("Manual:\n\nASCII")
    # fields and their values are no terms, nor a lead-in a term's meaning
    fields = (
        "This is a simple field:\n\nLicense: GPL-2+\n\nThis is a dual-licensed work:\n\n"
        "License: GPL-1+ or Artistic"
    )
    q = quote(read_at(fields, "This is a simple"), None, "How do I write GPL 2 or later?")
    assert q.text == "This is a simple field:\n\nLicense: GPL-2+"
    # a command over a paragraph is no list of terms: the lead-in brings the command
    command = "Install it with:\n\npip install footnoted\n\nThen ingest a folder. It reads PDF."
    q = quote(read_at(command, "Install it"), None, "How do I install it?")
    assert q.text == "Install it with:\n\npip install footnoted"


def test_asked_for_a_number_the_next_sentence_holding_it_comes_too() -> None:
    """Asked for a number, a quote that holds none goes on to the next sentence of its
    paragraph that does and goes on about what the quote opens with; not to the next
    paragraph's, nor to one about something else, nor for a question asking none."""
    text = (
        "datetime.MAXYEAR — The largest year number allowed in a date or datetime object. "
        "MAXYEAR is 9999.\n\nMINYEAR is 1."
    )
    read = read_at(text, "MAXYEAR")
    asked = "what's the largest year number a date or datetime object can hold?"
    assert quote(read, None, asked).text.endswith("MAXYEAR is 9999.")
    assert quote(read, None, "What is MAXYEAR?").text.endswith("datetime object.")
    alone = "The largest year number allowed in a date object.\n\nMINYEAR is 1."
    assert quote(read_at(alone, "largest"), None, asked).text.endswith("date object.")
    other = "The largest year number is MAXYEAR. The module was added in 2003."
    assert quote(read_at(other, "largest"), None, asked).text.endswith("MAXYEAR.")
    # a word a sentence opens with is no name: "Revenue in 2020" answers no count
    revenue = "Revenue in 2021 also benefited from licensing. Revenue in 2020 was also higher."
    drivers = "How many drivers were active on the Lyft platform in 2021?"
    assert quote(read_at(revenue, "licensing"), None, drivers).text.endswith("licensing.")


def test_a_deprecation_brings_what_to_use_instead() -> None:
    """ "X is deprecated." goes on to the next sentence of its paragraph where that one
    says what to use instead; a sentence of the next paragraph stays out."""
    text = (
        "function slip_in_footnote() is deprecated. Use run_footnote() instead.\n\n"
        "function body_add() is removed.\n\nUse the new API everywhere."
    )
    question = "slip_in_footnote() got deprecated, what am I supposed to use now?"
    q = quote(read_at(text, "slip_in_footnote() is deprecated"), None, question)
    assert q.text == "function slip_in_footnote() is deprecated. Use run_footnote() instead."
    q = quote(read_at(text, "body_add() is removed"), None, "What happened to body_add()?")
    assert q.text == "function body_add() is removed."


def test_a_tables_caption_is_never_the_quote() -> None:
    """A reader's span in a caption's title gives way to the sentence after it, however
    long the title; a sentence that only mentions a table stays the quote."""
    text = (
        "Table 1: PaLM-540B prompting results on HotpotQA and Fever for every prompting "
        "method we compare.\n\nReAct outperforms Act consistently on both tasks."
    )
    q = quote(read_at(text, "HotpotQA and Fever"), None, "HotpotQA EM for ReAct?")
    assert q.text == "ReAct outperforms Act consistently on both tasks."
    said = "Table 1 shows that ReAct outperforms Act consistently on both tasks."
    assert quote(read_at(said, "ReAct"), None, "Which is better?").text == said


def test_a_heading_after_the_quote_is_left_off() -> None:
    """A paper's printed output runs on into the next section's heading, and the
    reader's span with it: the heading is no part of the quote."""
    text = (
        "0.050540\n\nTwo-way clustered standard errors\n\nIt would also be feasible to "
        "cluster the covariances with respect to both dimensions, firm and year."
    )
    section = "5. Illustrations > 5.2. Petersen (2009) > Two-way clustered standard errors"
    read = read_at(text, "0.050540\n\nTwo-way", section=section)  # a span run on into it
    assert quote(read, None, "What is the error of x?").text == "0.050540"
    # a line of the sentence itself that looks like a numbered heading stays
    dated = "The new policy takes effect on\n1 January 2024 for all staff"
    q = quote(read_at(dated, "takes effect"), None, "When does the policy take effect?")
    assert q.text.endswith("1 January 2024 for all staff")


def test_a_lead_quoting_only_a_caption_gives_way_or_is_no_answer() -> None:
    """A passage that ends a table (its last row and caption) with the reader's span in
    the caption quotes nothing: a believed passage that says something leads instead;
    without one the lead stays, and the pipeline takes its quote for no answer."""
    caption = read_at(
        "Supervised SoTA | 67.5 | 89.5\n\n"
        "Table 1: PaLM-540B prompting results on HotpotQA and Fever.",
        "HotpotQA and Fever",
        "3 Results > Table 1: PaLM-540B prompting results on HotpotQA and Fever",
    )
    said = read_at("ReAct reaches 27.4 EM on HotpotQA with PaLM-540B.", "27.4")
    question = "HotpotQA EM for ReAct with PaLM-540B?"
    assert worded_first((caption, said), question, None, 15.0) == (said, caption)
    assert worded_first((caption, said), question, None, 25.0) == (caption, said)
    assert worded_first((said, caption), question, None, 25.0) == (said, caption)


def test_a_lead_whose_span_names_only_what_the_question_names_gives_way() -> None:
    """A reader span on the question's own entity ("Lyft, Inc" asked who audits Lyft)
    answers nothing: a believed passage whose span is something else leads instead."""
    audit = read_at(
        "We have audited the accompanying consolidated balance sheets of Lyft, Inc. and "
        "its subsidiaries as of December 31, 2021 and 2020.",
        "Lyft, Inc",
    )
    firm = read_at(
        "/s/ PricewaterhouseCoopers LLP, San Jose, California, February 28, 2022.",
        "PricewaterhouseCoopers LLP",
    )
    question = "Which accounting firm audits Lyft's financial statements?"
    assert worded_first((audit, firm), question, None, 15.0) == (firm, audit)
    assert worded_first((audit, firm), question, None, 25.0) == (audit, firm)  # not believed
    asked = "Whose balance sheets were audited?"  # the span answers this one
    assert worded_first((audit, firm), asked, None, 15.0) == (audit, firm)
    # a number in words is what is asked, though no stop list keeps it
    layer = read_at(
        "Frame relay operates at layer two of the OSI Model.", "layer two of the OSI Model"
    )
    other = read_at("X.25 operates at the network layer of the OSI Model.", "network layer")
    asked = "At which layer of the OSI model does Frame Relay operate?"
    assert worded_first((layer, other), asked, None, 15.0) == (layer, other)
    # asked whether, the quote is the answer: a span on the question's words stays
    handshake = read_at("X.25 requires a handshake before user packets are sent.", "X.25")
    asked = "Does X.25 require a handshake before user packets are sent?"
    assert worded_first((handshake, other), asked, None, 15.0) == (handshake, other)


def test_a_lead_whose_span_is_no_answer_of_the_kind_asked_gives_way() -> None:
    """Its section's number, or a year the question does not ask about."""
    said = read_at("Recipients should be able to get at it for 12 months.", "12 months")
    rationale = read_at(
        "3.5.2 Rationale\n\nWebhosting is less stable and access is not guaranteed.",
        "3.5.2",
        "3. Guidelines > 3.5 Method of delivery > 3.5.2 Rationale",
    )
    question = "If the SBOM is published online, how long should it stay reachable?"
    assert worded_first((rationale, said), question, None, 15.0) == (said, rationale)
    # a year the question does not ask about; the year it asks about stays
    moved = read_at("2010-A8 is now 2013-A7, and CSRF dropped from 2010-A5 to 2013-A8.", "2010")
    ranked = read_at("CSRF dropped from 2010-A5 to 2013-A8.", "2013-A8")
    asked = "Where did CSRF end up in the 2013 OWASP Top 10?"
    assert worded_first((moved, ranked), asked, None, 15.0) == (ranked, moved)
    assert worded_first((moved, ranked), "When was A8 renamed?", None, 15.0) == (moved, ranked)
    # asked for a number, a span holding only the numbers the question gives: the first
    # hop of a two-hop question gives way to the second's
    school = read_at(
        "Kerry graduated from Yale University class of 1966 with a B.A.",
        "Yale University class of 1966",
    )
    founded = read_at("Yale University was founded in 1701 as the Collegiate School.", "1701")
    asked = "In what year was the university from which John Kerry graduated in 1966 founded?"
    assert worded_first((school, founded), asked, None, 15.0) == (founded, school)
    assert worded_first((school, founded), asked, None, 25.0) == (school, founded)
    which = "Which university did John Kerry graduate from in 1966?"
    assert worded_first((school, founded), which, None, 15.0) == (school, founded)
    # a sentence with no number at all may give one in words
    none = read_at("Unlike Earth, Venus has no natural satellites.", "no natural satellites")
    other = read_at("Mars has 2 moons, Phobos and Deimos.", "2")
    moons = "How many moons does Venus have?"
    assert worded_first((none, other), moons, None, 15.0) == (none, other)


def test_a_lead_in_the_paragraph_before_the_one_about_what_is_asked_gives_way() -> None:
    """A passage about two things, its span in the paragraph before the one that opens
    with the name asked, gives way to a believed passage about that name; a name in the
    paragraphs before the span (its antecedent), in a later paragraph's middle or in a
    table's row is no other subject."""
    qampari = read_at(
        "On average, each question in QAMPARI has 13 answers. Same as ASQA, we use the "
        "2018-12-20 Wikipedia as the corpus.\n\n"
        "ELI5 (Fan et al., 2019) is a long-form QA dataset built on the Reddit forum.",
        "the 2018-12-20 Wikipedia",
    )
    sphere = read_at(
        "Most ELI5 questions are how/why/what questions, so we use Sphere (Piktus et al., "
        "2021) as the corpus.",
        "Sphere (Piktus et al., 2021)",
    )
    asked = "Which corpus does ALCE use for the ELI5 questions?"
    assert worded_first((qampari, sphere), asked, None, 15.0) == (sphere, qampari)
    assert worded_first((qampari, sphere), asked, None, 25.0) == (qampari, sphere)
    assert worded_first((qampari, sphere), "Which corpus does QAMPARI use?", None, 15.0) == (
        qampari,
        sphere,
    )
    # the name in the paragraph before: the span's antecedent
    segment = read_at(
        "Global Services\n\nThis segment provides services to our customers worldwide.",
        "provides services to our customers worldwide",
    )
    other = read_at("Unallocated items include common internal services.", "common internal")
    asked = "What does Boeing's Global Services segment do?"
    assert worded_first((segment, other), asked, None, 15.0) == (segment, other)
    # the name in a later paragraph's middle, or in a table's row, opens no subject
    index = read_at(
        "If both an index.md file and a README.md file are found, index.md is used.\n\n"
        "The nav configuration setting in your site's configuration file tells MkDocs "
        "which pages to include.",
        "index.md file",
    )
    asked = "If a folder has both index.md and README.md, which one does MkDocs use?"
    assert worded_first((index, other), asked, None, 15.0) == (index, other)
    label = read_at(
        "Liabilities and Stockholders' Equity\n\nDeferred revenue (2) | $24,264 | 22,319",
        "Stockholders' Equity",
    )
    asked = "What was the Deferred Revenue as reported?"
    assert worded_first((label, other), asked, None, 15.0) == (label, other)


def test_a_why_question_brings_the_sentence_that_gives_the_reason() -> None:
    text = (
        "We divide the corpus into 100-word passages following previous works. This is "
        "in contrast to commercial systems. Taking short passages has several "
        "advantages: it is easier for humans to verify. We use GTR as the retriever."
    )
    why = "Why do they split the corpus into 100-word passages?"
    q = quote(read_at(text, "100-word passages"), None, why)
    assert q.text.endswith("it is easier for humans to verify.")
    assert "GTR" not in q.text
    # not asked why, or the quote gives its reason itself: the sentence alone
    what = "How long are the passages the corpus is divided into?"
    assert quote(read_at(text, "100-word"), None, what).text.endswith("previous works.")
    given = "We divide the corpus into passages because they are easy to verify. We use GTR."
    assert quote(read_at(given, "easy to verify"), None, why).text.endswith("to verify.")
    # a sentence announcing a reason brings the next one, which gives it
    text = (
        "There is a more important reason to enumerate all of the legal values for factor "
        "variables. If a value is omitted from the key, that value will be omitted from the "
        "dataset.\n\nAmong our users, opinion is roughly balanced between the formats."
    )
    why = "Why should every legal value of a factor variable be listed in the key?"
    q = quote(read_at(text, "more important reason"), None, why)
    assert q.text.endswith("omitted from the dataset.")
    what = "What should be enumerated for factor variables?"
    assert quote(read_at(text, "legal values"), None, what).text.endswith("factor variables.")
    given = "There is a reason to list them, because a value left out is dropped. We use R."
    assert quote(read_at(given, "reason"), None, why).text.endswith("is dropped.")
    wrapped = "There is a reason to list them,\nbecause a value left out is dropped. We use R."
    assert quote(read_at(wrapped, "reason"), None, why).text.endswith("is dropped.")
    none = "There is no reason to list them. We use R for this."
    assert quote(read_at(none, "no reason"), None, why).text == "There is no reason to list them."
    several = (
        "There are several reasons for checking the globs first. First of all, sniffing is "
        "expensive. Secondly, some applications never sniff."
    )
    span = "several reasons for checking the globs first. First of all, sniffing"
    q = quote(read_at(several, span), None, "Why are globs checked first?")
    assert q.text.endswith("sniffing is expensive.")  # announced and given: no third
    q = quote(read_at(several, "several reasons"), None, "Why are globs checked first?")
    assert q.text.endswith("sniffing is expensive.")  # announced: the next gives it
    # a purpose the quote states is not the reason the next sentence opens by giving
    text = (
        "The list software will send you an email to which you must reply in order to "
        "finish subscribing. This is a security measure to keep people from subscribing "
        "others without their permission.\n\nThe language used on all lists is English."
    )
    why = "Why must I reply to an email before my subscription is completed?"
    q = quote(read_at(text, "must reply"), None, why)
    assert q.text.endswith("without their permission.")
    how = "What must I do to finish subscribing?"
    assert quote(read_at(text, "must reply"), None, how).text.endswith("finish subscribing.")
    # a quote that concludes ("Therefore …") starts at the sentence giving its reason
    text = (
        "The purpose for this behavior is twofold. First, prerelease versions frequently "
        "are updated very quickly. Therefore, by default, they are excluded from range "
        "matching semantics."
    )
    why = "why are prerelease versions left out of range matching by default"
    q = quote(read_at(text, "excluded"), None, why)
    assert q.text.startswith("First, prerelease versions frequently are updated very quickly.")
    what = "What is excluded from range matching by default?"
    assert quote(read_at(text, "excluded"), None, what).text.startswith("Therefore")
    # "So …" concludes as "Therefore" does; "So far …" and "So many …" conclude nothing
    text = (
        "The number of arguments to a function is sometimes stored in a signed character. "
        "So there is a hard upper bound on the number of arguments of 127."
    )
    why = "Why is there a hard limit on how many arguments a function can take?"
    q = quote(read_at(text, "hard upper bound"), None, why)
    assert q.text.startswith("The number of arguments to a function is sometimes stored")
    far = "The parser reads one token at a time. So far no bound on the arguments was met."
    assert quote(read_at(far, "no bound"), None, why).text.startswith("So far")
    # the reason in the sentence before, where none follows; "what's the reason" asks why
    text = (
        "To avoid denial-of-service attacks from miscreants, the length of a LIKE pattern "
        "is limited to SQLITE_MAX_LIKE_PATTERN_LENGTH bytes. The default value of this "
        "limit is 50000. A workstation evaluates such a pattern quickly."
    )
    why = "What's the reason SQLite limits how long a LIKE pattern can be?"
    q = quote(read_at(text, "The default value"), None, why)
    assert q.text.startswith("To avoid denial-of-service attacks")
    assert q.text.endswith("limit is 50000.")
    what = "What is the default limit on a LIKE pattern's length?"
    assert quote(read_at(text, "The default value"), None, what).text.startswith("The default")


def test_a_footnotes_mark_is_not_quoted() -> None:
    text = "** Core operating loss is a non-GAAP measure that excludes the adjustment."
    q = quote(read_at(text, "non-GAAP measure"), None, "What is core operating loss?")
    assert q.text == "Core operating loss is a non-GAAP measure that excludes the adjustment."
    starred = "*Restated for the change in accounting principle."
    assert quote(read_at(starred, "Restated"), None, "").text.startswith("Restated for")


def test_the_side_asked_is_quoted_not_the_other() -> None:
    """A transcript lists counsel for both parties; the reader's span on the
    respondent's counsel gives way to the petitioner's, where that is asked."""
    text = (
        "APPEARANCES:\n\n"
        "STEVEN E. MERCER, ESQ., Deputy Attorney General, Los Angeles, Cal.; on behalf "
        "of the Petitioner.\n\n"
        "CHARLES M. SEVILLA, ESQ., San Diego, Cal.; on behalf of the Respondent."
    )
    q = quote(read_at(text, "CHARLES M. SEVILLA"), None, "Who argued for the petitioner?")
    assert q.text.startswith("STEVEN E. MERCER, ESQ.")
    assert marked(q) is None  # the reader's span is not in it
    # the side asked quoted, or a question naming both sides: the reader's sentence
    q = quote(read_at(text, "CHARLES M. SEVILLA"), None, "Who argued for the respondent?")
    assert q.text.startswith("CHARLES M. SEVILLA")
    both = "Who argued for the respondent and who for the petitioner?"
    assert quote(read_at(text, "CHARLES M. SEVILLA"), None, both).text.startswith("CHARLES")


def test_the_exact_answer_is_marked_only_when_it_is_the_value_asked_for() -> None:
    text = "The Zephyr party hall allows at most forty helium balloons per event."
    many = "How many balloons does the hall allow?"
    assert marked(quote(read_at(text, "forty"), None, many)) == "forty"
    assert marked(quote(read_at(text, "helium"), None, many)) is None  # no number
    define = "What does Zephyr mean?"
    assert marked(quote(read_at(text, "party hall"), None, define)) is None
    how = "How do guests decorate the hall?"
    assert marked(quote(read_at(text, "helium"), None, how)) is None  # a lone word
    assert marked(quote(read_at(text, "forty helium balloons"), None, how)) == (
        "forty helium balloons"
    )
    who = "Who runs the hall?"
    assert marked(quote(read_at(text, "at most"), None, who)) is None  # no name


def test_a_count_of_what_is_asked_for_is_not_its_answer() -> None:
    text = "New employees complete three steps in their first week, starting in 2019."
    steps = "What steps do new employees complete?"
    assert marked(quote(read_at(text, "three"), None, steps)) is None
    how_many = "How many steps do new employees complete?"
    assert marked(quote(read_at(text, "three"), None, how_many)) == "three"
    since = "Since when do new employees complete steps?"
    assert marked(quote(read_at(text, "2019"), None, since)) == "2019"


def test_a_tables_years_printed_again_head_its_rows_not_answer() -> None:
    """A passage that starts among one table's rows (its kept header) and prints the next
    table's years over that table's rows: the years are a header, never the row asked."""
    text = (
        "Cost of Revenue\n\n2021 | 2020 | 2019 | Change (in thousands)\n\n"
        "Cost of revenue | $ | 1,649,532 | $ | 1,447,516 | $ | 2,176,469 | 14 %"
    )
    chunk = Chunk("c1", "d1", 0, text, 100, 100 + len(text), header="2021 | 2020 | 2019")
    start = text.index("2021 | 2020 | 2019 | Change")
    read = Read(RetrievedChunk(chunk, "Report", None, 0.7), Reading(20.0, start, start + 4), 20.0)
    q = quote(read, None, "What was the change in cost of revenue, in thousands?")
    assert q.text.startswith("Cost of revenue | $ | 1,649,532") and q.row
    assert q.header is not None and q.header.text == "2021 | 2020 | 2019 | Change (in thousands)"
    # a header over one row leads to it, named by a word of the question
    alone = "Years ended | 2022 | 2021\n\nRevenue | 66,608 | 62,286"
    q = quote(read_at(alone, "2022"), None, "What was the revenue in 2022?")
    assert q.text == "Revenue | 66,608 | 62,286" and q.row


def test_a_table_header_row_is_never_the_row_asked_about() -> None:
    sheet = "Region | Revenue 2025 (USD) | Staff\n\nNorth | 1200 | 40\n\nWest | 1710 | 52"
    for reader_on in ("Revenue 2025", "North"):  # the reader on the header, or another row
        q = quote(read_at(sheet, reader_on), None, "Which region had 1710 in revenue in 2025?")
        assert q.text == "West | 1710 | 52" and q.row
        assert q.header is not None and q.header.text.startswith("Region | Revenue 2025")
    # off the header only to a row the question names by a value or by two of its words
    statement = "Years ended | 2022 | 2021\n\nNon-cash items | 4,426 | 7,851\n\nTotal | 9 | 8"
    q = quote(read_at(statement, "2022"), None, "How much cash did Boeing have in 2022?")
    assert q.text.startswith("Years ended")


def test_the_row_naming_the_thing_asked_for_is_quoted() -> None:
    """A checklist's rows of text: the question names the kind of thing it asks for right
    after its question word, and the one row that names it is quoted, although another
    names more of the question's other words."""
    checklist = (
        "Proprietary Software | Implementation | Notes\n\n"
        "Describe the target's proprietary product or products | Complete Partial\n\n"
        "Describe the distribution mechanisms (cloud, SaaS, hosted, on-prem) | Complete Partial"
    )
    asked = "What kinds of distribution mechanisms should the target describe for its products?"
    for reader_on in ("proprietary product", "distribution mechanisms"):
        q = quote(read_at(checklist, reader_on), None, asked)
        assert q.row and q.text.startswith("Describe the distribution mechanisms (cloud")
    # without such a thing named ("What was …"), the row naming most of its words
    other = "What is described of proprietary products?"
    q = quote(read_at(checklist, "distribution"), None, other)
    assert q.text.startswith("Describe the target's proprietary product")
    assert asked_thing("Which dual-licensed software is used under a commercial license?") == (
        "dual", "licens", "softwar",
    )  # fmt: skip
    assert asked_thing("Which state had the most checks?") == ()  # one word: a column's, as often
    assert asked_thing("What was the total revenue?") == ()


def test_a_rows_cell_under_a_header_cell() -> None:
    years = "2023 | 2022 | 2021"
    assert value_at("Revenue | 100 | 90 | 80", years, 0) == 1  # the label has no header cell
    assert value_at("100 | 90", years, 2) == 1  # a row of amounts under the last columns
    assert value_at("Revenue | 100 | 90", years, 0) is None  # never the label as a value
    assert value_at("100 | 90", years, 0) is None  # before the row's first cell
    # a short row under a longer header, both labelled: lined up from the label
    assert value_at("Kentucky | 264,140 | 12,155", "State | Permit | Handgun | Long Gun", 1) == 1
    # a currency sign set in a cell of its own belongs to the amount after it
    signs = "Adjusted EBITDA | $ | 92.9 | $ | (755.2) | $ | (678.9)"
    assert value_at(signs, years, 1) == 4  # "(755.2)", 2022's
    assert value_at(signs, "Years ended | 2023 | 2022 | 2021", 3) == 6
    # more values than a header of years has cells: the years come first, the changes
    # after them ("2023 | 2022 | 2021 | % Change"); under other headers, which cell
    # spans two is not known
    changes = signs + " | 112.3 % | (11.2)%"
    assert value_at(changes, years, 1) == 4 and value_at(changes, years, 2) == 6
    assert value_at(changes, "(1) | (2) | (3)", 1) is None


def test_a_currency_sign_is_shown_with_its_amount() -> None:
    text = "2021 | 2020 | 2019\n\nAdjusted EBITDA | $ | 92.9 | $ | (755.2) | $ | (678.9)"
    q = quote(read_at(text, "(755.2)"), None, "What was Lyft's adjusted EBITDA in 2020?")
    shown, pieces = q.render()
    assert shown.splitlines()[0] == "| | 2021 | 2020 | 2019 |"
    assert shown.splitlines()[2] == "| Adjusted EBITDA | $ 92.9 | $ (755.2) | $ (678.9) |"
    chunk = q.read.hit.chunk
    for at, piece in pieces:  # every piece shown is the document's text, verbatim
        assert shown[at : at + len(piece.text)] == piece.text
        assert (
            chunk.text[piece.start - chunk.char_start : piece.end - chunk.char_start] == piece.text
        )
    assert marked(q) == "(755.2)"


def test_a_header_of_years_is_shown_over_the_first_amounts_not_the_changes() -> None:
    """Lyft's 10-K: "2021 | 2020 | 2019" over revenue and its two changes. Shown lined
    up at the last cells, 2021 stood over 2019's revenue."""
    text = (
        "2021 | 2020 | 2019\n\n(in thousands)\n\n"
        "Revenue | $ | 3,208,323 | $ | 2,364,681 | $ | 3,615,960 | 36 % | (35) %"
    )
    q = quote(read_at(text, "3,208,323"), None, "What was Lyft's revenue in 2021?")
    shown, _ = q.render()
    header, _, row = shown.splitlines()[:3]
    assert header == "| | 2021 | 2020 | 2019 | | |"
    assert row == "| Revenue | $ 3,208,323 | $ 2,364,681 | $ 3,615,960 | 36 % | (35) % |"
    assert marked(q) == "3,208,323"


def test_a_short_column_name_marks_a_cell_only_where_the_question_gives_a_value() -> None:
    text = "Segment | Gross | Net\n\nStreaming | 100 | 80"
    q = quote(read_at(text, "100"), None, "What was Netflix streaming revenue?")
    assert marked(q) == "100"  # "net" is not Netflix cut short: the reader's cell
    cars = "mpg | hp | carb\n\n15 | 335 | 8"
    q = quote(
        read_at(cars, "15"), None, "How much horsepower does the car with 8 carburetors have?"
    )
    assert marked(q) == "335"


def test_a_row_is_under_the_label_it_is_printed_under_in_its_table() -> None:
    """A paper's table names a model once, on a line of its own, and its methods' rows
    under it; the row quoted is under that label (what a question naming the model and
    the method finds in the evidence), however many rows are between, and is shown
    under it, a row of its own between the header and the row, where the question names
    it."""
    text = (
        "Correctness Rec.-5 | Citation Rec.\n\nChatGPT\n\nVANILLA (5-psg) | 20.8 | 20.5\n\n"
        "SNIPPET (10-psg) | 24.5 | 22.9\n\nLLaMA-13B\n\nSUMM (10-psg) | 9.7 | 6.4"
    )
    for row, label in (("SNIPPET", "ChatGPT"), ("SUMM", "LLaMA-13B")):
        q = quote(read_at(text, row), None, f"What was the recall of {label} {row}?")
        assert q.row and q.group is not None and q.group.text == label
        assert q.group == group_of(q.read, q.body.start, q.header, None)
        assert text[q.group.start - 100 : q.group.end - 100] == label  # the document's offsets
        shown, pieces = q.render()
        assert shown.splitlines()[2] == f"| {label} | | |"
        assert shown.splitlines()[3].startswith(f"| {row} (10-psg) |")
        for at, piece in pieces:  # the label too is the document's text, verbatim
            assert shown[at : at + len(piece.text)] == piece.text
    # a row right under its header, or under prose, is under no label
    for plain in ("Model | Rec.\n\nVANILLA | 20.8", "Results follow.\n\nModel | Rec.\n\nA | 1"):
        q = quote(read_at(plain, "20.8" if "VANILLA" in plain else "A | 1"), None, "Recall?")
        assert q.row and q.group is None, plain
        assert "| --- |" in q.render()[0] and len(q.render()[0].splitlines()) == 3


def test_a_total_closes_the_rows_under_a_label_and_a_unit_or_a_page_number_is_none() -> None:
    """ "Costs and expenses" heads the rows down to their total: the net loss further
    down is under no label; nor is a row under its amounts' unit or a page number."""
    statement = (
        "2021 | 2020\n\nCosts and expenses\n\nCost of revenue | 1,649 | 1,447\n\n"
        "Total costs and expenses | 4,301 | 4,105\n\nNet loss | (1,009) | (1,752)"
    )
    costs = quote(
        read_at(statement, "1,649"), None, "What were expenses for cost of revenue in 2021?"
    )
    assert costs.group is not None and costs.group.text == "Costs and expenses"
    loss = quote(read_at(statement, "(1,009)"), None, "What was the net loss in 2021?")
    assert loss.row and loss.group is None
    total = quote(read_at(statement, "4,301"), None, "What were costs and expenses in 2021?")
    assert total.row and total.group is None  # the total itself sums the rows under the label
    # a row summing the label's rows closes them too, "Total" or not
    boeing = (
        "2022 | 2021\n\n(Loss)/earnings from operations:\n\nBCA | (2,370) | (4,575)\n\n"
        "Loss from operations | (3,547) | (2,902)\n\nInterest and debt expense | (2,533) | (2,682)"
    )
    bca = quote(read_at(boeing, "(2,370)"), None, "What was BCA's loss in 2022?")
    assert bca.group is not None and bca.group.text == "(Loss)/earnings from operations:"
    debt = quote(read_at(boeing, "(2,533)"), None, "What was interest expense in 2022?")
    assert debt.row and debt.group is None
    for above in ("(in thousands)", "58"):
        text = f"2021 | 2020\n\n{above}\n\nRevenue | 3,208 | 2,364"
        q = quote(read_at(text, "3,208"), None, "What was revenue in 2021?")
        assert q.row and q.group is None, above
    quarters = "Quarter | High\n\n2019:\n\nFourth | 11.44"
    year = quote(read_at(quarters, "11.44"), None, "What was the fourth quarter's high in 2019?")
    assert year.group is not None and year.group.text == "2019:"
    # a label the question does not name is neither shown nor weighed
    assert quote(read_at(quarters, "11.44"), None, "What was the high?").group is None


def test_a_lead_is_quoted_where_its_passage_names_the_code_asked() -> None:
    """Asked of a code ("ttyS0"), the lead is quoted at the one sentence of its passage
    that names it, where the reader's span is in a sentence that does not; a product's
    name ("MkDocs") recurs, and moves nothing."""
    text = (
        'The naming convention is "LCK.." followed by the base name of the device. For '
        'example, to lock /dev/ttyS0 the file "LCK..ttyS0" would be created. The format '
        "used for the contents of such lock files must be the HDB UUCP lock file format."
    )
    read = (read_at(text, "HDB UUCP lock file format"),)
    (moved,) = anchored("What should the lock file for /dev/ttyS0 be called?", read)
    assert (
        quote(moved).text
        == 'For example, to lock /dev/ttyS0 the file "LCK..ttyS0" would be created.'
    )
    assert moved.score == read[0].score
    # a span already in the sentence naming it, or a code no sentence names, stays
    held = (read_at(text, "LCK..ttyS0"),)
    assert anchored("What should the lock file for /dev/ttyS0 be called?", held) == held
    assert anchored("What should the lock file for /dev/ttyS1 be called?", read) == read
    assert anchored("What format do MkDocs lock files use?", read) == read
    # a value the question writes in quotes, found in quotes
    keep = (
        '.keep = "all" retains all variables. .keep = "unused" keeps only variables not '
        'used to make new columns. .keep = "none" retains no input variables.'
    )
    read = (read_at(keep, "retains no input variables"),)
    (moved,) = anchored('mutate(.keep = "unused") - which columns does that keep?', read)
    assert (
        quote(moved).text == '.keep = "unused" keeps only variables not used to make new columns.'
    )


def test_a_why_question_is_answered_from_a_rationale_where_the_lead_gives_no_reason() -> None:
    """A standard gives its reasons under "Rationale": asked why, the believed passage
    under it leads where the reader's lead only lists; a lead that gives a reason, or a
    question not asking why, keeps its lead."""
    listing = "The following programs must be in /bin: tar, cpio and gzip."
    reason = "The tar, gzip and cpio commands have been added to make restoration possible."
    lead = read_at(listing, "tar, cpio and gzip", "Root > Specific Options")
    why = read_at(reason, "make restoration possible", "Root > Specific Options > Rationale")
    asked = "Why are tar, gzip and cpio in /bin?"
    assert reasoned_first((lead, why), asked, None, 15.0)[0] is why
    assert reasoned_first((lead, why), "Which programs must be in /bin?", None, 15.0)[0] is lead
    assert reasoned_first((lead, why), asked, None, 25.0)[0] is lead  # not believed
    reasoned = read_at("They must be in /bin because restoring needs them.", "restoring")
    assert reasoned_first((reasoned, why), asked, None, 15.0)[0] is reasoned


def test_a_why_the_document_asks_itself_is_answered_by_what_follows_it() -> None:
    """A guide asks "Why?" after saying what is asked, and answers next: asked why, the
    quote runs through its answer, and the lead stays though its span only repeats what
    the question says (no other passage takes its place)."""
    text = (
        "You may think of your credit card bill as an expense - but it really is not an "
        "expense. Why? A credit card account is a short-term loan - you pay it back. The "
        "purchases you make with that credit card are your expenses."
    )
    why = "Why is paying your credit card bill not really an expense?"
    lead = read_at(text, "it really is not an expense")
    q = quote(lead, None, why)
    assert q.text.endswith("A credit card account is a short-term loan - you pay it back.")
    other = read_at("An expense budget plans for buying groceries with a card.", "groceries")
    assert worded_first((lead, other), why, None, 15.0) == (lead, other)
    # not asked why: the sentence alone; a question of its own that is not "why" brings nothing
    what = "What may you think of your credit card bill as?"
    assert quote(lead, None, what).text.endswith("it really is not an expense.")
    asked = text.replace("Why?", "How so?")
    assert quote(read_at(asked, "it really is not an expense"), None, why).text.endswith(
        "it really is not an expense."
    )
    # no answer after the question ("Why? Read on."), or a lead that says something else
    # than the question (another year) is no lead kept
    unanswered = "It really is not an expense. Why? Read on. Cards are loans."
    assert quote(read_at(unanswered, "not an expense"), None, why).text == (
        "It really is not an expense."
    )
    year = read_at(
        "Revenue fell sharply in 2010. Why? Two large customers left for a rival.", "2010"
    )
    later = read_at(
        "In 2013 revenue fell because the plant closed for repairs.", "the plant closed"
    )
    assert worded_first((year, later), "Why did revenue fall in 2013?", None, 15.0)[0] is later


def test_a_value_for_another_name_gives_way_to_the_next_sentence_naming_the_one_asked() -> None:
    """Sentences giving one value each for several programs: the reader's span on the
    one before the program asked gives way to the sentence naming it, with its value."""
    text = (
        "Mac designers used the origin 1904-01-01, while in MS Windows Excel dates begin at "
        "1900-01-01. The program SPSS uses integers for dates as well, but the origin for "
        "SPSS is 1582-10-14. Happily, POSIX counts from 1970-01-01."
    )
    question = "What origin date does SPSS use for its integer dates?"
    q = quote(read_at(text, "1904-01-01"), None, question)
    assert q.text.startswith("The program SPSS") and "1582-10-14" in q.text
    assert marked(q) is None  # the reader's span is not in it
    # the program asked named in the quote, or the sentence after naming no value: kept
    q = quote(read_at(text, "1904-01-01"), None, "What origin date does Excel on the Mac use?")
    assert q.text.startswith("Mac designers")
    plain = "Mac designers used 1904-01-01. The program SPSS uses integers too."
    assert quote(read_at(plain, "1904-01-01"), None, question).text.startswith("Mac designers")
    # the name said before the quote ("It" stands for it), or one of two names asked
    # named by the quote: kept
    acme = (
        "Acme was founded in 1990. It had 500 employees in 2020. Beta, which bought 20% of "
        "Acme, had 300 employees that year."
    )
    q = quote(read_at(acme, "500"), None, "How many employees did Acme have in 2020?")
    assert "500 employees" in q.text and "Beta" not in q.text
    council = (
        "In total there are 352 votes, but for most acts there must be a qualified majority. "
        "TEU article 16(4) defines this as 55 per cent of the Council members."
    )  # a quote naming nothing else is about what the question asks
    q = quote(read_at(council, "352"), None, "How many votes in total does the Council have?")
    assert q.text.startswith("In total there are 352 votes")
    both = "What origin date does SPSS use, and what does POSIX use?"
    assert quote(read_at(text, "1582-10-14"), None, both).text.startswith("The program SPSS")


def test_a_sheets_row_with_a_blank_label_is_under_the_label_its_group_prints_once() -> None:
    """A sheet prints an episode once, in its group's first row, and leaves the cell
    blank below: a row with that blank cell is under the episode, shown over it whatever
    the question names. A paper's table in a PDF prints its model on a line of its own
    over rows that may leave their first cell blank: those rows stay under that line,
    not under the row above them."""
    sheet = (
        "Episode | Line | Chuck\n\nS1E7 | Looks like parents can be deceiving. | -\n\n"
        "- | Spotted: Bass drunk at the bar. | -1"
    )
    read = read_at(sheet, "- | Spotted")
    chunk = replace(read.hit.chunk, rows=((100 + sheet.index("S1E7"), 2),))
    read = replace(read, hit=replace(read.hit, chunk=chunk))
    q = quote(read, None, "What does Chuck score for 'Spotted: Bass drunk at the bar.'?")
    assert q.group is not None and q.group.text == "S1E7"
    assert q.render()[0].splitlines()[2] == "| S1E7 | | |"
    paper = (
        "Method | EM | F1\n\nChatGPT\n\nVANILLA (5-psg) | 57.2 | 60.1\n\n- | 24.5 | 30.2\n\n"
        "GPT-4\n\nVANILLA (5-psg) | 61.0 | 64.2\n\n- | 29.9 | 33.0"
    )
    for after, label in (("ChatGPT", "ChatGPT"), ("GPT-4", "GPT-4")):
        q = quote(read_at(paper, "- |", after=after), None, f"What F1 does {label} get?")
        assert q.group is not None and q.group.text == label
