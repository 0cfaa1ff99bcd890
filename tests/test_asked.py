"""What a question names must be named by its evidence: the answer's passages, their
section and title, or the document's cover (``answering.asked``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import shared, write
from footnoted.answering.asked import (
    ABOUT_TIMES,
    COVER_CHARS,
    asked,
    asks_version,
    counts,
    holds_number,
    names_new,
)
from footnoted.evaluation.datasets import read_passages, safe_stem
from footnoted.service.facade import Footnoted
from footnoted.settings import Settings


def test_a_question_names_its_years_and_its_names_but_not_its_first_word() -> None:
    wanted = asked("What was Uber's revenue in 2021 and how did GraphRAG compare to GPT-4?")
    assert wanted.years == {"2021"}
    assert wanted.names == ("Uber", "GraphRAG", "GPT-4")
    assert asked("Which plan has the fastest response time?").names == ()
    assert asked("How are annual plans refunded? Refunds take 5 days.").names == ()
    assert asked("what is the biggest precision I'm allowed to write?").names == ()


def test_a_year_as_finance_or_a_phrase_writes_it_is_a_year_not_a_name() -> None:
    written = (
        ("What was Lyft's FY2021 revenue?", "2021"),
        ("In its FY 22 report, what was the backlog?", "2022"),
        ("What was FY'98 revenue?", "1998"),
        ("What was 4Q22 revenue?", "2022"),
        ("Which timestamps of early-1970 are read as julian day numbers?", "1970"),
    )
    for question, year in written:
        wanted = asked(question)
        assert wanted.years == {year} and not any(year[2:] in n for n in wanted.names), question
    table = ["Years ended December 31, | 2022 | 2021", "Total revenues | $66,608 | $62,286"]
    assert asked("What were FY2022 total revenues?").missing(table) == []
    assert asked("What were FY2019 total revenues?").missing(table) == ["2019"]
    assert asked("What did the FYI note say?").years == set()


def test_a_half_year_asked_is_held_by_its_name_or_a_six_month_period() -> None:
    wanted = asked("What was Lyft's revenue in H1 2022?")
    assert wanted.halves == {1} and wanted.years == {"2022"} and wanted.names == ("Lyft",)
    assert asked("What was 2H21 revenue?").halves == {2}
    assert asked("What was H1'22 revenue?").years == {"2022"}
    assert asked("How do labs produce H2?").halves == set()  # hydrogen, not a half year
    assert wanted.missing(["Lyft: six months ended June 30, 2022 | $1,875"]) == []
    assert wanted.missing(["In the first half of 2022 Lyft's revenue rose 40%."]) == []
    assert wanted.missing(["Lyft's H1 2022 revenue was $1.9 billion."]) == []
    # a year's total, or the other half, does not answer it
    assert wanted.missing(["Lyft's revenue in 2022 was $4,095 million."]) == ["H1"]
    assert wanted.missing(["Lyft's second half of 2022 was stronger."]) == ["H1"]


def test_a_name_is_held_as_written_run_together_by_initials_or_without_accents() -> None:
    text = ["Graph RAG builds a graph. Union School District serves it.", "Jean de Rély, 1987"]
    assert asked("How does GraphRAG work?").missing(text) == []
    assert asked("Where does the USD serve?").missing(text) == []
    assert asked("What did Jean De Rely print in 1987?").missing(text) == []
    assert asked("What did Jean De Rely print in 1988?").missing(text) == ["1988"]
    assert asked("What did Uber earn?").missing(text) == ["Uber"]


def test_initials_joined_by_an_ampersand_are_held_by_the_words_they_stand_for() -> None:
    """ "S&P" is no two words "s" and "p": asked of "the S&P 500 file", the file named
    sp500__constituents-financials holds it, as "research and development" holds
    "R&D" and "Property, plant and equipment" "PP&E"; words that merely start alike
    ("we spend") do not."""
    file = ["Exxon Mobil Corp. | Energy | 2.6174698", "sp500__constituents-financials"]
    assert asked("What's ExxonMobil's price to book ratio in the S&P 500 file?").missing(file) == []
    assert (
        asked("What did Boeing spend on R&D?").missing(["Boeing's research and development"]) == []
    )
    assert (
        asked("What was Lyft's PP&E?").missing(["Lyft | Property, plant and equipment, net"]) == []
    )
    assert asked("Which S&P index is it in?").missing(["We spend a lot on ads"]) == ["S&P"]


def test_a_name_led_by_digits_is_the_whole_word() -> None:
    """A question about 3M's revenue names 3M, not "M" (which no passage holds as a
    word); an ordinal, a decade, a quarter or a filing's form names nothing."""
    assert asked("What is 3M's revenue?").names == ("3M",)
    assert asked("How many 5G subscribers did Verizon have?").names == ("5G", "Verizon")
    assert asked("Who came 2nd in the 1990s, and what was Lyft's 2Q revenue?").names == ("Lyft",)
    assert asked("Which companies did Pfizer buy, per this 10K report?").names == ("Pfizer",)
    assert asked("What is 3M's revenue?").missing(["3M Company | Net sales | $ 32,765"]) == []
    assert asked("What is 3M's revenue?").missing(["Honeywell | Net sales | $ 34,392"]) == ["3M"]


def test_a_month_asked_is_held_as_tables_abbreviate_it() -> None:
    """A report's table a month a page is headed by the month's abbreviation."""
    wanted = asked("How many deaths occurred on 20 September 2017?")
    assert wanted.missing(["SEP | 2015 | 2016 | 2017", "20 | 69 | 79 | 106"]) == []
    assert wanted.missing(["Sept. 20, 2017: 106 deaths"]) == []
    assert wanted.missing(["OCT | 2015 | 2016 | 2017", "20 | 84 | 67 | 121"]) == ["September"]


def test_a_month_asked_is_held_by_a_date_written_in_numbers() -> None:
    """A newsletter dated "2002-08-30" in its subject is the one of 30 August 2002."""
    wanted = asked("What does the NTK newsletter of 30 August 2002 say?")
    assert wanted.missing(["NTK Now, 2002-08-30"]) == []
    assert wanted.missing(["NTK Now, 2002-09-30"]) == ["August"]
    assert wanted.missing(["NTK Now, issue 2002-08"]) == ["August"]  # no date in numbers
    # a name that is a month's, not dated: held only as a name is
    named = asked("What revenue did March Networks report in 2019?")
    assert named.missing(["Filed 2019-03-05. Cisco Networks grew."]) == ["March"]


def test_a_thing_named_by_a_letter_is_held_only_with_its_letter() -> None:
    """ "Series A" asked, "series B" held: another round of financing."""
    wanted = asked("How much did DataPower raise in its Series A financing?")
    assert wanted.items == ("Series A",)
    assert wanted.missing(["DataPower secured $9.5 million in series B financing."]) == ["Series A"]
    assert wanted.missing(["DataPower raised $3 million in its series A round."]) == []
    # a letter after a word that names no lettered set, or a function word: no such name
    assert asked("Does it run inside a nested Xephyr X server?").items == ()
    assert asked("Which version of the kutils R package is it?").items == ()
    assert asked("What is the difference between A and B?").items == ()
    assert asked("Should I use Plan B?").items == ("Plan B",)
    assert wanted.missing(["DataPower raised $3 million in its Series\nA round."]) == []  # wrapped


def test_a_currency_asked_by_its_code_is_held_by_its_sign_or_its_name() -> None:
    """A question "in USD millions" asked of a cash flow statement that prints "$" and
    "(Dollars in millions)": the currency is there, written as reports write it."""
    question = "What is 3M's FY2018 capital expenditure (in USD millions)?"
    assert asked(question).missing(["3M | 2018 | Purchases of PP&E | $ | (1,577)"]) == []
    assert asked(question).missing(["3M (Dollars in millions) 2018 capital spending 1,577"]) == []
    assert asked(question).missing(["3M 2018 capital spending 1,577"]) == ["USD"]
    assert asked("What was 3M's 2018 revenue in EUR?").missing(["3M 2018 | $ 32,765"]) == ["EUR"]
    assert asked("What was 3M's 2018 revenue in EUR?").missing(["3M 2018 | € 29,000"]) == []


def test_a_quarter_asked_is_held_by_its_name_its_number_or_a_three_month_period() -> None:
    wanted = asked("What were the revenues in the fourth quarter of 2022?")
    assert wanted.quarters == {4} and wanted.years == {"2022"}
    year = ["Years ended December 31, | 2022 | 2021", "Total revenues | $66,608 | $62,286"]
    assert wanted.missing(year) == ["Q4"]  # a year's total does not answer a quarter
    assert wanted.missing(["Revenue in the fourth quarter of 2022 was $19.98 billion."]) == []
    assert wanted.missing(["Q4 2022 revenue | $19,980"]) == []
    assert wanted.missing(["Three months ended December 31, 2022 | $19,980"]) == []
    assert wanted.missing(["2022 | First | Second | Third | Fourth"]) == []
    assert wanted.missing(["In 2022's first, third and fourth quarter, revenue grew."]) == []
    assert wanted.missing(["In the third quarter of 2022, revenue was $15.96 billion."]) == ["Q4"]
    assert asked("What was revenue in 2nd quarter and Q3?").quarters == {2, 3}
    assert asked("What was 4Q22 revenue?").quarters == {4}
    # an ordinal is a quarter only beside "quarter" or as a table's cell
    assert wanted.missing(["2022: sales to third parties rose in the first year."]) == ["Q4"]
    assert wanted.missing(["2022 | Q1 | Q2 | Q3", "Revenue | 5 | 6 | 7"]) == ["Q4"]
    assert asked("Revenue in the third quarter?").missing(["the first and third quarters"]) == []
    assert asked("Why did revenue fall by a quarter?").quarters == set()


def test_a_name_may_be_in_another_quoted_passage_a_year_only_in_what_is_quoted() -> None:
    wanted = asked("What screenwriter of Evolution co-wrote a film starring Nicolas Cage in 2000?")
    lead = ["David Weissman is a screenwriter whose credits include Evolution."]
    bridge = "The Family Man (2000) stars Nicolas Cage."
    assert wanted.missing(lead) == ["2000", "Nicolas", "Cage"]
    assert wanted.said(wanted.missing(lead)) == ("2000", "Nicolas Cage")  # as it is written
    assert wanted.missing(lead, [bridge]) == ["2000"]  # the bridge's passage, not its quote
    assert wanted.missing([*lead, bridge], [bridge]) == []


def test_a_name_may_be_on_the_documents_cover_or_named_again_and_again_in_its_opening() -> None:
    wanted = asked("What is Lyft's revenue?")
    lead = ["Revenue was $4.1 billion."]
    cover = "Lyft, Inc. Annual Report on Form 10-K."
    assert wanted.missing(lead, about=cover) == []
    far = "x " * COVER_CHARS
    assert wanted.missing(lead, about=f"{far} Lyft and Uber compete.") == ["Lyft"]
    often = " ".join(["Lyft drivers."] * ABOUT_TIMES)
    assert wanted.missing(lead, about=f"{far} {often}") == []


def test_a_place_naming_another_of_the_documents_subjects_does_not_hold_a_code_asked() -> None:
    """A paper about ASQA, QAMPARI and ELI5 names all three in its opening: that holds
    "ASQA" for a passage that names none, not for a table captioned with ELI5."""
    opening = " ".join(["We evaluate on ASQA, QAMPARI and ELI5."] * ABOUT_TIMES)
    wanted = asked("What was BM25's recall@100 on ASQA?")
    row = ["BM25 | 3.0 | 6.6 | 9.6 | 19.3 | 31.8"]
    eli5 = "Table 15: Retrieval results for ELI5 (claim recall)"
    assert wanted.missing(row, about=opening) == []
    assert wanted.missing([*row, eli5], about=opening, place=eli5) == ["ASQA"]
    # a code the question names too, or one the document is not about, is no other
    both = asked("What was BM25's recall@100 on ASQA and on ELI5?")
    assert both.missing([*row, eli5], about=opening, place=eli5) == []
    assert wanted.missing(row, about=opening, place="Table 2: Results with GPT-4") == []
    assert wanted.missing(row, about=opening, place="Table 3: Results of QAMPARI") == ["ASQA"]
    # a company asked (a name, not a code) is held by the cover under a segment's table
    boeing = asked("What was Boeing's revenue in 2022?")
    cover = "The Boeing Company Annual Report. BCA BDS BGS " * ABOUT_TIMES
    assert boeing.missing(["Revenue | 2022 | 25,867"], about=cover, place="BCA Revenues") == []


def test_a_year_naming_the_document_asked_is_held_by_its_cover() -> None:
    for question, filed in (
        ("Who signed Lyft's 2021 10-K as Chief Financial Officer?", {"2021"}),
        ("In the 2022 annual report, who is the auditor?", {"2022"}),
        ("What does the Form 10-K for fiscal year 2020 say about risk?", {"2020"}),
        ("What was Lyft's revenue in 2021?", set()),
        ("What were Lyft's gross bookings for 2021?", set()),
    ):
        assert asked(question).filed == filed, question
    lead = ["Elaine Paul, Chief Financial Officer"]
    cover = "FORM 10-K ANNUAL REPORT for the fiscal year ended December 31, 2021. Lyft, Inc."
    assert (
        asked("Who signed Lyft's 2021 10-K as Chief Financial Officer?").missing(lead, about=cover)
        == []
    )
    # a year asked of the figure is held only by what is quoted, the cover's aside
    assert asked("What was Lyft's revenue in 2021?").missing(lead, about=cover) == ["2021"]
    assert asked("Who signed Lyft's 2020 10-K?").missing(lead, about=cover) == ["2020"]


def test_a_document_year_asked_is_read_off_the_cover(service: Footnoted, tmp_path: Path) -> None:
    filler = "\n\n".join(
        f"Section {i}. The company operates a fleet of delivery vans across {i} regions "
        "and reports its results every quarter to its shareholders." for i in range(40)
    )  # fmt: skip
    text = (
        "# Northwind Traders Annual Report\n\nFor the fiscal year ended December 31, "
        f"2021.\n\n{filler}\n\n## Signatures\n\nThe report was signed by Jane Roe, "
        "Chief Financial Officer of Northwind Traders, on March 1, 2022.\n"
    )
    report = service.ingest([write(tmp_path / "docs" / "northwind-annual-report.md", text)])
    assert not report.failed, report.failed
    asking = "Who signed Northwind's {} annual report as Chief Financial Officer?"
    answered = service.answer(asking.format(2021))
    assert answered.answer is not None, answered.refusal
    assert "Jane Roe" in answered.answer.text
    refused = service.answer(asking.format(2019))
    assert refused.refusal is not None
    assert refused.refusal.evidence.missing == ("2019",)


def test_a_question_about_what_the_documents_do_not_name_is_refused_saying_so(
    samples_service: Footnoted,
) -> None:
    refused = samples_service.answer("How are Contoso annual plans refunded?")
    assert refused.refusal is not None
    assert refused.refusal.evidence.reason == "unnamed"
    assert refused.refusal.evidence.missing == ("Contoso",)
    assert "“Contoso”" in refused.refusal.message
    # the handbook's own company is named on its cover and in its title
    answered = samples_service.answer("How are Northwind annual plans refunded?")
    assert answered.answer is not None and "refunded in full" in answered.answer.text
    # a name written as one of several is said as the question writes them
    phrased = samples_service.answer("How are Contoso Premier annual plans refunded?")
    assert phrased.refusal is not None
    assert phrased.refusal.evidence.missing == ("Contoso Premier",)
    assert "don't mention “Contoso Premier”." in phrased.refusal.message


def test_a_name_missing_is_said_with_the_names_written_beside_it() -> None:
    mean = asked("What is the Mean Average Precision of ALCE on ASQA?")
    assert mean.missing(["ALCE on ASQA: average precision"]) == ["Mean"]
    assert mean.said(["Mean"]) == ("Mean Average Precision",)
    assert mean.missing(["ALCE on ASQA: mean average precision"]) == []
    officer = asked("Who signed as Chief Financial Officer of Lyft and Uber?")
    gone = officer.missing(["Lyft: Chief Executive Officer"])
    assert gone == ["Financial", "Uber"]
    assert officer.said(gone) == ("Chief Financial Officer", "Uber")
    # a word of a phrase the passages lack is held by the opening only as the phrase: a
    # report says "financial" again and again there, and names no officer by it
    report = " ".join(["Lyft, Inc. 2021 financial statements and financial data."] * ABOUT_TIMES)
    signed = asked("Who signed Lyft's 10-K as Chief Financial Officer?")
    ceo = ["Logan Green, Chief Executive Officer"]
    assert signed.missing(ceo, about=report) == ["Financial"]
    named = f"Signed by Elaine Paul, Chief Financial Officer. {report}"
    assert signed.missing(ceo, about=named) == []
    # a word of a phrase written with a capital inside is held by the phrase too
    brotherhood = asked("When was the non-Muslim Brotherhood founded?")
    opening = " ".join(["The Muslim Brotherhood is one of many non state groups."] * ABOUT_TIMES)
    founded = ["It was founded in 1928."]
    gone = brotherhood.missing(founded, about=opening)
    assert brotherhood.said(gone) == ("non-Muslim Brotherhood",)
    # codes written side by side are no phrase: each is held as it is
    codes = asked("ALCE QAMPARI table: Rec.-5 of ChatGPT?")
    paper = " ".join(["ALCE evaluates citations."] * ABOUT_TIMES)
    assert codes.missing(["QAMPARI | Rec.-5 | ChatGPT | 24.5"], about=paper) == []
    # checked name by name: what one passage lacks and another holds is held by the two
    married = asked("Which team did Barbara Outland Baker marry into?")
    first, second = married.missing(["Barbara Outland"]), married.missing(["Barbara Baker"])
    assert first == ["Baker"] and second == ["Outland"] and not set(first) & set(second)
    assert married.said(first) == married.said(second) == ("Barbara Outland Baker",)


def test_a_believed_passage_whose_quote_holds_what_the_lead_lacks_leads_instead(
    float_service: Footnoted, tmp_path: Path
) -> None:
    """The reader leads with the message measuring en_GB; the one measuring el_GR, read
    after it and believed, names what the question asks about in its quote, so it
    answers. A locale no message names is still refused, saying so."""
    text = (
        "# Low memory thread\n\n## Message from Ann\n\nWith Ubuntu 8.04 and en_GB, the "
        "figure for the MO files is less than 600K on my laptop. The figure was measured "
        "after a fresh boot with no applications open.\n\n## Message from Bob\n\nI tried "
        "el_GR as well: there the figure for the MO files is about 900K, since most Greek "
        "text uses two-byte UTF-8 sequences.\n"
    )
    report = float_service.ingest([write(tmp_path / "docs" / "thread.md", text)])
    assert not report.failed, report.failed
    asking = "What was the figure for the MO files on Ubuntu 8.04 with {}?"
    out = float_service.answer(asking.format("el_GR"))
    assert out.answer is not None, out.refusal
    assert "about 900K" in out.answer.text and "600K" not in out.answer.text
    assert out.read[1].hit.chunk.section == "Low memory thread > Message from Ann"
    assert out.read[1].score > out.read[0].score  # the reader's lead, which lacks el_GR
    refused = float_service.answer(asking.format("de_DE"))
    assert refused.refusal is not None and refused.refusal.evidence.missing == ("de_DE",)


def test_a_two_hop_answer_is_not_refused_for_a_name_its_bridge_holds(
    service: Footnoted, tmp_path: Path
) -> None:
    film = write(
        tmp_path / "docs" / "family-man.md",
        "# The Family Man\n\nThe Family Man is a 2000 American romantic comedy-drama film "
        "directed by Brett Ratner, written by David Diamond and David Weissman, and starring "
        "Nicolas Cage and Téa Leoni.\n",
    )
    writer = write(
        tmp_path / "docs" / "weissman.md",
        "# David Weissman\n\nDavid Weissman is a screenwriter and director. His film credits "
        'include "The Family Man" (2000), "Evolution" (2001) and "When in Rome" (2010).\n',
    )
    assert not service.ingest([film, writer]).failed
    result = service.answer(
        'What screenwriter with credits for "Evolution" co-wrote a film starring Nicolas Cage '
        "and Téa Leoni?"
    )
    assert result.answer is not None, result.refusal
    assert "David Weissman" in result.answer.text


def _fresh(service: Footnoted, tmp_path: Path, qid: str, name: str = "two-hop-fresh") -> str:
    """tests/data/``name``.json's question ``qid``, its ten paragraphs ingested as a
    document each."""
    fresh = json.loads((Path(__file__).parent / "data" / f"{name}.json").read_text())
    (q,) = [q for q in fresh if q["_id"] == qid]
    _ingest_paragraphs(service, tmp_path, q["context"])
    return str(q["question"])


def _dev(service: Footnoted, tmp_path: Path, qid: str = "", titles: tuple[str, ...] = ()) -> str:
    """HotpotQA dev-53's question ``qid`` with its ten paragraphs, or its paragraphs
    ``titles`` (from any question's), ingested as a document each."""
    dev = json.loads(shared("hotpotqa", "dev-53.json").read_text())
    if qid:
        (q,) = [q for q in dev if q["_id"] == qid]
        _ingest_paragraphs(service, tmp_path, q["context"])
        return str(q["question"])
    paragraphs = {title: lines for q in dev for title, lines in q["context"]}
    _ingest_paragraphs(service, tmp_path, [(t, paragraphs[t]) for t in titles])
    return ""


def _ingest_paragraphs(
    service: Footnoted, tmp_path: Path, context: list[tuple[str, list[str]]]
) -> None:
    paths = [
        write(tmp_path / "docs" / f"{safe_stem(title)}.txt", " ".join(s.strip() for s in lines))
        for title, lines in context
    ]
    assert not service.ingest(paths).failed


@pytest.mark.parametrize(
    ("qid", "lead", "then"),
    [
        # the reader answers the first hop ("About a Boy"); the film's passage holds "1998"
        ("fresh-14", "About a Boy (film)", "Silent Sigh"),
        # "Meqele" is the war's; the treaty's passage prints the war's title with an en dash
        ("fresh-24", "Treaty of Addis Ababa", "First Italo-Ethiopian War"),
        # the bulletin's passage names "Robert Erskine Childers", as his father's does
        ("fresh-10", "Robert Caesar Childers", "Irish Bulletin"),
    ],
)
def test_a_two_hop_answer_leads_with_the_hop_that_holds_what_the_question_names(
    service: Footnoted, tmp_path: Path, qid: str, lead: str, then: str
) -> None:
    """Three of tests/data/two-hop-fresh.json's questions, over their ten paragraphs: each
    was refused, its first hop lacking a name or year the question asks about, which the
    passage that hop leads to holds (a passage of a document it names, or one naming what
    the reader found in it)."""
    result = service.answer(_fresh(service, tmp_path, qid))
    assert result.answer is not None, result.refusal
    cited = [c.document_title for c in result.answer.citations]
    assert cited[:2] == [lead, then]
    assert result.answer.referenced[:2] == (1, 2)  # both quoted


@pytest.mark.parametrize(
    ("qid", "lead", "then"),
    [
        ("sq-29", "Beyoncé", "Kanye West"),  # the 2009 awards are Kanye West's passage's
        # Paul VI's passage names "John XXIII", whose document is "Pope John XXIII"
        ("sq-34", "Pope John XXIII", "Pope Paul VI"),
    ],
)
def test_a_believed_answer_is_read_after_the_first_hop_that_names_its_document(
    service: Footnoted, tmp_path: Path, qid: str, lead: str, then: str
) -> None:
    """Two of tests/data/two-hop-squad.json's bridges, over their ten paragraphs: the
    reader found the answer in the second hop's passage read alone ("Dangerously in
    Love", "10 August 1904"), which lacks what the question describes the bridge with
    ("at the 2009 MTV Video Music Awards", "elevated Montini … in 1958"), so the answer
    was refused or quoted one document. Read again after the sentence of another
    document that names its document, it is still believed, and the two hops hold
    every name: the answer quotes both."""
    result = service.answer(_fresh(service, tmp_path, qid, "two-hop-squad"))
    assert result.answer is not None, result.refusal
    cited = [result.answer.citations[i - 1].document_title for i in result.answer.referenced]
    assert cited[:2] == [lead, then]


def test_a_second_hop_through_what_the_reader_found_is_read_when_nothing_is_believed(
    service: Footnoted, tmp_path: Path
) -> None:
    """Asked how long ago the genus of the narrow-leafed campion evolved sex chromosomes,
    over ten of HotpotQA dev's paragraphs on Silene: the campion's passage, where the
    reader finds "Silene", names neither the genus's sex-determination passage by its
    title nor the time, and that passage alone is not believed ("5-10 million years"
    found, under the threshold). Read after the campion's sentence, it is: the answer
    quotes both, where it was refused."""
    _dev(service, tmp_path, titles=(
        "Silene tomentosa", "Ferocactus", "Silene latifolia", "Silene antirrhina",
        "Silene stenophylla", "Sex determination in Silene", "Silene conoidea",
        "Silene suksdorfii", "Silene", "Silene menziesii",
    ))  # fmt: skip
    result = service.answer(
        "The genus to which the narrow-leafed campion belongs evolved sex chromosomes how long ago?"
    )
    assert result.answer is not None, result.refusal
    cited = [result.answer.citations[i - 1].document_title for i in result.answer.referenced]
    assert cited[:2] == ["Sex determination in Silene", "Silene stenophylla"]
    assert "5-10 million years ago" in result.answer.text
    assert "narrow-leafed campion" in result.answer.text


@pytest.fixture
def float_service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Footnoted]:
    """A service whose reader and embeddings run in fp32 on every CPU."""
    monkeypatch.setenv("FOOTNOTED_READER_RUNTIME", "float")
    monkeypatch.setenv("FOOTNOTED_EMBEDDING_PRECISION", "fp32")
    with Footnoted(Settings(home=tmp_path / "home")) as fn:
        yield fn


def test_a_name_the_question_names_is_no_bridge(float_service: Footnoted, tmp_path: Path) -> None:
    """The Premier League article's paragraphs (SQuAD 1.1 train), a document each, asked
    "who has made the most premier league appearances", which none of them says: no
    passage is believed, and the reader finds "Premier League" in one. Another naming
    "Premier League", read after that sentence, was believed, and Alan Shearer's goals
    record was the answer. The league is what the question is about, not a bridge it
    describes: refused now. In fp32: the int8 reader believes Shearer's passage on its
    own (15.8 against its threshold of 15.25, shown as weak), which no bridge decides."""
    squad = read_passages(shared("squad1.1-train", "train-v1.1.json"), paragraphs=True)
    league = [
        (key, [text]) for key, text in squad.items() if key.rsplit(" ", 1)[0] == "Premier League"
    ]
    _ingest_paragraphs(float_service, tmp_path, league)
    result = float_service.answer("who has made the most premier league appearances")
    assert result.answer is None, result.answer.text


def test_two_seasons_that_share_a_head_are_a_comparison_of_two_documents(
    service: Footnoted, tmp_path: Path
) -> None:
    """tests/data/two-hop-more.json's more-16 over its ten paragraphs, eight of them VCU
    Rams seasons: the question names each season's team once, by "the 2010–11 and
    2012–13 VCU Rams men's basketball teams". Refused before (no side named, the reader
    not believed); both teams' passages quoted now, in the question's order."""
    result = service.answer(_fresh(service, tmp_path, "more-16", "two-hop-more"))
    assert result.answer is not None, result.refusal
    cited = [result.answer.citations[i - 1].document_title for i in result.answer.referenced]
    assert cited == [
        "2010–11 VCU Rams men's basketball team", "2012–13 VCU Rams men's basketball team",
    ]  # fmt: skip


def test_a_second_hop_believed_after_its_first_keeps_that_reading(
    service: Footnoted, tmp_path: Path
) -> None:
    """HotpotQA dev's "A medieval fortress in Dirleton, East Lothian, Scotland borders on
    the south side of what coastal area?": the castle's passage is believed alone, and a
    little less when read after the sentence of Yellowcraigs' passage that names it ("It
    is bordered … to the south by the village of Dirleton and Dirleton Castle"). The
    question does not name the castle, so that reading is kept, and the answer quotes the
    sentence it was read after; it quoted the village's passage instead."""
    question = _dev(service, tmp_path, "5a7d54165542995f4f402256")
    result = service.answer(question)
    assert result.answer is not None, result.refusal
    quoted = {result.answer.citations[i - 1].document_title for i in result.answer.referenced}
    assert {"Yellowcraigs", "Dirleton Castle"} <= quoted


def test_a_believed_second_hop_is_quoted_where_the_leads_chunk_does_not_name_it(
    service: Footnoted, tmp_path: Path
) -> None:
    """tests/data/two-hop-fresh.json's fresh-06 over its ten paragraphs: the film's
    passage names "Gone in 60 Seconds" in its other chunk; read after that sentence, the
    2000 film's passage is believed and holds the writer asked for."""
    result = service.answer(_fresh(service, tmp_path, "fresh-06"))
    assert result.answer is not None, result.refusal
    quoted = {result.answer.citations[i - 1].document_title for i in result.answer.referenced}
    assert {"Season of the Witch (2011 film)", "Gone in 60 Seconds (2000 film)"} <= quoted
    assert "Scott Rosenberg" in result.answer.text


def test_a_web_address_alone_answers_only_a_question_asking_where(service: Footnoted) -> None:
    """The SBOM guide's reference list: asked which elements the CISA list names, the
    list's address is no answer (the passages were read, and none answers); asked where
    to find it, or for its link, it is."""
    guide = shared("docs-more", "openchain__Cross-Industry-SBOM-Quality-Guide.docx")
    assert not service.ingest([guide]).failed
    which = service.answer(
        "Which element names does the SBOM quality guide list as required under the CISA "
        "2025 Minimum Elements?"
    )
    assert which.refusal is not None and which.refusal.evidence.reason == "no_answer"
    assert which.read
    address = "https://www.cisa.gov/resources-tools/resources/2025-minimum-elements-software"
    for where in (
        "Where can I find the CISA 2025 Minimum Elements for an SBOM?",
        "What is the link to the CISA 2025 minimum elements?",
    ):
        result = service.answer(where)
        assert result.answer is not None, result.refusal
        assert result.answer.text.startswith(address)


def test_a_name_is_held_as_its_adjective_or_with_one_letter_off_when_long() -> None:
    text = ["Trade with Europe and Russia grew; Hartmanis and Stearns wrote the paper."]
    assert asked("What European trade grew with the Russian market?").missing(text) == []
    assert asked("What did Hatmanis and Stearn write?").missing(text) == []  # typos
    assert asked("What did Uber write?").missing(["The User wrote it."]) == ["Uber"]  # short
    assert asked("What did Hortmanns write?").missing(text) == ["Hortmanns"]  # two letters off
    # one letter off only where the passages read or the cover hold it: a guide whose
    # opening names its German translation again and again says nothing of Germany
    table = ["Standard VAT Sales | VAT:Sales:Standard [L] | 21%"]
    cover = "The GnuCash Tutorial and Concepts Guide. " * 30
    opening = f"{cover} Translated into German. The German guide. German help is apart."
    vat = asked("What is the standard VAT rate for Germany?")
    assert vat.missing(table, about=opening) == ["Germany"]
    assert vat.missing([*table, "VAT in Germany"], about=opening) == []
    hatmanis = asked("What did Hatmanis write?")
    assert hatmanis.missing([], about=f"{cover} {'Hartmanis ' * 3}") == ["Hatmanis"]
    # the cover names what the document is about: a spelling one letter off is held
    warsaw = "Warsaw (Polish: Warszawa) is the capital and largest city of Poland."
    capital = asked("In what year did Warszowa become the capital of the Duchy?")
    assert capital.missing(["It became the Duchy's capital in 1413."], about=warsaw) == []
    # a digit is no typo: a workbook of "clock2" and "clock3" runs holds no "clock1"
    runs = ["clock2 | ElnfX", "clock3 | ElnfX", "Version 11 was faster"]
    assert asked("What is the clock1 model's ElnfX?").missing(runs) == ["clock1"]
    assert asked("What is the clock3 model's ElnfX?").missing(runs) == []
    assert asked("When was Version11b out?").missing(["Version11 was out"]) == ["Version11b"]
    assert asked("What is the clock1 model's ElnfX?").missing(["clock10 | ElnfX"]) == ["clock1"]
    # a name's words run together, at the start of a word: a sheet named "GaussLegendreK16"
    sheet = ["GaussLegendreK16 | beta | weight"]
    assert asked("What weight has the Gauss-Legendre point 0.5?").missing(sheet) == []
    assert asked("What weight has the Gauss-Hermite point 0.5?").missing(sheet) == ["Gauss-Hermite"]
    canadian = ["Hayden is a Canadian singer-songwriter; Buck-Tick is a Japanese band."]
    assert asked("Hayden is from Canada, but where is Buck-Tick from?").missing(canadian) == []


def test_a_name_given_in_brackets_is_held_by_the_words_it_stands_for() -> None:
    """ "the panel data covariances (PL and PC)": a passage saying "the panel data
    covariances" holds "PL" and "PC"; one saying neither lacks them. A name in brackets
    after a name ("Apple (AAPL)") stands for no words of its own."""
    question = "Why do the panel data covariances (PL and PC) perform poorly in Experiment I?"
    said = ["Experiment I: the panel data covariances perform poorly with 5 observations."]
    assert asked(question).missing(said) == []
    other = ["Experiment I: the clustered covariances perform well."]
    assert asked(question).missing(other) == ["PL", "PC"]
    assert asked("What did Apple (AAPL) earn?").missing(["Apple earned $5."]) == ["AAPL"]
    # a name standing for none of the words before it is asked for itself
    apache = ["The Apache HTTP server listens on port 80. The web server can be configured."]
    assert asked("What is the port of the web server (Nginx)?").missing(apache) == ["Nginx"]


def test_a_name_written_with_its_middle_left_out_is_held_by_the_names_it_stands_for() -> None:
    """OpenNI's guide: "Wait...UpdateAll" asks of the functions WaitAnyUpdateAll,
    WaitAndUpdateAll, …, which the guide also writes "Wait[…]UpdateAll"."""
    question = "How long do OpenNI's Context Wait...UpdateAll functions wait?"
    listed = ["xn::Context::WaitAndUpdateAll(): Waits for all nodes to have new data."]
    assert asked(question).missing(listed, about="OpenNI User Guide") == []
    elided = ["Use one of the xn::Context::Wait[…]UpdateAll() functions."]
    assert asked(question).missing(elided, about="OpenNI User Guide") == []
    other = ["xn::Context::WaitForUpdate(): Waits for a node."]
    assert asked(question).missing(other, about="OpenNI User Guide") == ["Wait...UpdateAll"]


def test_an_identifier_is_held_only_whole() -> None:
    """A name written with "_" names one function or setting: its words apart, in
    another identifier, do not hold it."""
    decoding2 = asked("In which libtasn1 release was asn1_der_decoding2 first introduced?")
    other = "Since libtasn1 3.7 the ider and ider_len parameters of asn1_der_decoding_startEnd"
    assert decoding2.missing([other]) == ["asn1_der_decoding2"]
    assert decoding2.missing(["libtasn1 4.12 added asn1_der_decoding2()."]) == []
    # lower case, with no digit, it is still a name the evidence must hold
    exclude = asked("In which MkDocs version was the exclude_docs setting added?")
    assert exclude.names == ("MkDocs", "exclude_docs")
    assert exclude.missing(["MkDocs 1.5 excludes docs listed in the exclude setting."]) == [
        "exclude_docs"
    ]
    assert exclude.missing(["MkDocs 1.5 added EXCLUDE_DOCS."]) == []  # case aside
    # a function called and a command's option are identifiers the evidence must hold
    called = asked("In which Python version was datetime.utcnow() deprecated?")
    assert called.names == ("Python", "datetime.utcnow")
    assert called.missing(["Changed in version 3.7: Python's UTC offset may be seconds."]) == [
        "datetime.utcnow"
    ]
    assert called.missing(["Python: classmethod datetime.utcnow() returns the time."]) == []
    option = asked("which python version added the --upgrade-deps option to venv?")
    assert option.names == ("upgrade-deps",)
    assert option.missing(["Changed in version 3.9: Add --upgrade-deps option."]) == []
    # one the document's opening names again and again is what it is about, as a name is
    ranged = asked("What is the range argument of read_excel for?")
    argument = ["range is a new argument for reading a rectangular range."]
    news = "readxl 1.0.0\n\n" + "read_excel() reads a sheet. " * ABOUT_TIMES
    assert ranged.missing(argument, about=news) == []
    assert ranged.missing(argument, about="read_excel() reads a sheet.") == ["read_excel"]
    assert decoding2.missing([other], about="asn1_der_decoding_startEnd() " * 5) == [
        "asn1_der_decoding2"
    ]


def test_a_thing_named_in_lower_case_by_its_kind_is_held_only_as_written() -> None:
    """Systems name their users, groups, commands and settings in lower case: "the nobody
    user" asks about one entry of a list whose other entries answer alike ("they had
    uid/gid 41" of gnats). The word before the kind is held whole, in the passages quoted,
    not by the document's opening that lists every entry; a word that only qualifies the
    kind ("the default setting") names nothing."""
    nobody = asked("What is the numeric UID of the nobody user on Debian?")
    assert nobody.items == ("nobody",)
    gnats = "gnats: on Debian they had uid/gid 41."
    listing = " ".join(["Users: root, daemon, nobody, www-data."] * ABOUT_TIMES)
    assert nobody.missing([gnats], about=listing) == ["nobody"]
    assert nobody.missing(["nobody: its uid is 65534 on Debian."]) == []
    www = asked("Which files may the www-data user write?")
    assert www.items == ("www-data",)
    assert www.missing(["Web servers write data files to the www directory."]) == ["www-data"]
    assert www.missing(["www-data: some web servers run as www-data."]) == []
    assert asked("What does the toc extension do?").items == ("toc",)
    for plain in (
        "What is the default value of the TimeOut directive?",
        "Which is the first option listed?",
        "What does the oral argument cover?",
        "who carried the usa flag in opening ceremony",  # typed in lower case
        "what is the time setting of game of thrones",
        "what is the filename extension used for all java source files",
        "Which is the better option for long trips?",
        "What is the auditory attribute of pitch?",
    ):
        assert asked(plain).items == ()


USERS = (
    "# Users and Groups in the Debian System\n\n"
    "This chapter lists the static users and groups: root, daemon, bin, sys, sync, games, "
    "man, lp, mail, news, uucp, proxy, majordom, irc, gnats, nobody and www-data. Some of "
    "them, such as nobody and www-data, are described in later chapters.\n\n"
    "## Static users\n\n### proxy\n\n"
    "Like daemon, this user and group is used by some daemons (specifically, proxy daemons) "
    "that don't have dedicated user ids and that need to own files. For example, group proxy "
    "is used by pdnsd, and squid runs as user proxy.\n\n### majordom\n\n"
    "Majordomo has a statically allocated uid on Debian systems for historical reasons. It "
    "is not installed on new systems.\n\n### gnats\n\n"
    "Used by gnats. This had a statically allocated user and group for purely historical "
    "reasons. Since gnats has been removed from Debian, this user and group are no longer "
    "created by default; they had uid/gid 41.\n"
)


def test_a_user_a_guide_lists_is_asked_of_its_own_entry(
    float_service: Footnoted, tmp_path: Path
) -> None:
    """A guide's opening lists every user; asked the uid of one it describes nowhere, the
    entry of another that reads alike ("they had uid/gid 41" of gnats) is refused for the
    name it lacks, and that other's own uid is still answered."""
    assert not float_service.ingest([write(tmp_path / "docs" / "users.md", USERS)]).failed
    for user in ("nobody", "www-data"):
        result = float_service.answer(f"What is the numeric UID of the {user} user on Debian?")
        assert result.refusal is not None, result.answer
        if result.refusal.evidence.reason == "unnamed":
            assert result.refusal.evidence.missing == (user,)
    gnats = float_service.answer("What UID did the gnats user have?")
    assert gnats.answer is not None, gnats.refusal
    assert "41" in gnats.answer.text


def test_a_version_asked_is_held_as_written_or_on_the_cover(
    service: Footnoted, tmp_path: Path
) -> None:
    """Asked of version 1.1, a licence whose cover says "Version 2.0" answers nothing; asked
    of the version it is, its cover holds the version, whatever passage answers."""
    text = (
        "Example License\nVersion 2.0, January 2004\n\n"
        "TERMS AND CONDITIONS\n\n"
        "1. Grant of Copyright License. Each Contributor hereby grants to You a perpetual, "
        "worldwide, royalty-free copyright license to reproduce the Work.\n\n"
        "2. Termination. The license terminates automatically when You breach any of its "
        "terms, thirty days after written notice from the Contributor.\n"
    )
    report = service.ingest([write(tmp_path / "docs" / "LICENSE.txt", text)])
    assert not report.failed, report.failed
    older = service.answer("How long after notice does version 1.1 of the license end?")
    assert older.refusal is not None
    assert older.refusal.evidence.missing == ("version 1.1",)
    this = service.answer("How long after notice does version 2.0 of the license end?")
    assert this.answer is not None, this.refusal
    assert "thirty days after written notice" in this.answer.text
    assert this.answer.citations[0].section == "TERMS AND CONDITIONS > 2. Termination."
    wanted = asked("Which CycloneDX v1.6 field holds it, as of version 2 of the guide?")
    assert wanted.versions == {"1.6", "2"}
    assert wanted.missing(["CycloneDX 1.6 | bom.metadata", "guide 2.1"]) == ["version 2"]
    assert asked("What are two cars with V8 engines?").versions == frozenset()


def test_a_question_asking_for_a_number_and_what_holds_one() -> None:
    numbers = [
        "How many stations reported it?",
        "how much did it cost?",
        "What percentage of revenue was it?",
        "In what year was it founded?",
        "On what date was it signed?",
        "In which version was the setting added?",
        "In which MkDocs version was the setting added?",
        "What is the numeric value of ASN1_MAX_ERROR_DESCRIPTION_SIZE?",
        "what's the largest year number a date or datetime object can hold?",
        "What is the maximum value of a smallint?",
        # where to look said first: what is asked comes after it
        "In the kutils essay, how many observations did the six files hold?",
        "According to the NTK newsletter, on what date is the conference?",
        "What origin date does SPSS use?",
        "In what year, according to the report, was Acme founded?",
    ]
    assert all(counts(q) for q in numbers)
    others = [
        "Which directive limits how long a client may take?",
        "When does it lock?",
        "How long does it last?",  # a length may be in words: "a decade"
        "What is TimeOut?",
        "What is the default value of strict?",  # may be "False"
        "What makes date parsing hard?",
        "What is year-over-year growth?",
        "What version control system does it use?",
        "What share class was issued?",
        "What type of value does it return?",
        "What is the name of the band?",
        "What counts as the 'Services' in the terms?",
        "What was the discount rate used to state?",
        "What is the increase in total revenue attributed to?",
        "What is the largest city?",  # a name
    ]
    assert not any(counts(q) for q in others)
    assert holds_number("It costs $5 million.") and holds_number("It took twelve days.")
    assert holds_number("About half of them.") and not holds_number("Setting it low hurts.")
    assert holds_number("The company has Fifteen employees.")
    asked_2021 = "How many drivers did Lyft have in 2021?"
    assert not holds_number("Revenue in 2021 also benefited from licensing.", asked_2021)
    assert holds_number("In 2021 we had 1,200 drivers.", asked_2021)
    much_2021 = "How much revenue did Lyft make in 2021?"
    assert holds_number("Revenue was $2,021 million.", much_2021)  # not the year given
    # asked how many, a count: an amount of money or a percentage is not one
    assert not holds_number("Incentives cut revenue by $942.9 million in 2021.", asked_2021)
    assert not holds_number("Active drivers grew 36% (or 12.5 percent) in 2021.", asked_2021)
    assert holds_number("We had 4,453 employees, paid $942.9 million.", asked_2021)
    assert not holds_number("Drivers have 24/7 support and 24x7 tools.", asked_2021)
    adopted = "How many companies have adopted the guide so far?"
    assert not holds_number("Version 1.0", adopted)  # its version counts nothing
    assert not holds_number("Changes since v2.1 are listed.", adopted)
    assert holds_number("Version 1.0 was adopted by 12 companies.", adopted)
    assert holds_number("We answer 24/7.", "What hours does support answer?")
    assert counts("What minimum pip version is needed to install pipx?")
    assert not counts("What release notes come with it?")
    assert not asks_version("On what date was version 1.0 of the guide released?")
    # asked which version, digits: a number in words names no version
    version = "Which version of the R survival package does the vignette describe?"
    assert not holds_number("Packages on the list (of which survival is one) may not.", version)
    assert holds_number("It describes survival 3.5-3.", version)
    assert holds_number("Revenue grew 36% in 2021.", "What percentage did revenue grow?")
    # asked in what year, a year: a section's number is none
    year = "In what year was the Mozilla Public License 2.0 published?"
    assert not holds_number("Except as provided in Section 10.3, no one may publish it.", year)
    assert not holds_number("Each version will be given a distinguishing number.", year)
    assert holds_number("It was published in January 2012.", year)
    assert holds_number("Lyon revolted in 1621.", "In what year did Lyon revolt?")
    assert not holds_number("Revenue was $1,599.3 million.", "What year had the most revenue?")


def test_a_question_asking_for_a_number_is_not_answered_by_a_quote_without_one(
    service: Footnoted, tmp_path: Path
) -> None:
    text = (
        "# Timeouts\n\nThe TimeOut directive sets how long the server waits for a client. "
        "Setting the TimeOut directive to a low value introduces problems with long running "
        "CGI scripts.\n"
    )
    report = service.ingest([write(tmp_path / "docs" / "timeouts.md", text)])
    assert not report.failed, report.failed
    asked_value = service.answer("How many seconds does the TimeOut directive wait by default?")
    assert asked_value.refused and asked_value.read  # read, and found no answer
    assert asked_value.refusal is not None and asked_value.refusal.evidence.reason == "no_answer"
    assert "passages about it were found" in asked_value.refusal.message
    said = text.replace("for a client.", "for a client; its default value is 60 seconds.")
    report = service.ingest([write(tmp_path / "docs" / "timeouts.md", said)])
    assert not report.failed, report.failed
    answered = service.answer("How many seconds does the TimeOut directive wait by default?")
    assert answered.answer is not None, answered.refusal
    assert "60 seconds" in answered.answer.text


def test_a_release_numbered_in_full_is_a_version_a_changelogs_opening_does_not_hold() -> None:
    """Three numbers or more joined by points name a version however the question writes
    it ("readxl 1.3.2"); a changelog's opening lists every release, so it holds none of
    them, where a manual's cover naming its one version holds it."""
    wanted = asked("What changed in readxl 1.3.2?")
    assert wanted.versions == {"1.3.2"}
    assert asked("How much is 3.5 million?").versions == frozenset()
    changelog = "readxl 1.4.2\n\nNo changes.\n\nreadxl 1.4.1\n\nreadxl 1.3.2\n\nFixes."
    evidence = ["readxl 1.4.2", "No changes."]
    assert wanted.missing(evidence, about=changelog) == ["1.3.2"]
    manual = "readxl 1.3.2 reference manual\n\nHow to read sheets."
    assert wanted.missing(["Sheets are read with read_excel()."], about=manual) == []
    assert wanted.missing(["readxl 1.3.2", "Fixes."]) == []


def test_a_release_asked_of_a_changelog_is_answered_from_its_own_section(
    service: Footnoted, tmp_path: Path
) -> None:
    """A release's changes are read under its own heading, not another release's that
    reads better; a release the changelog does not list is refused, saying so."""
    releases = [
        ("2.3.0", "This release adds support for reading encrypted workbooks with a password."),
        ("2.2.1", "This release fixes a crash when a workbook has no sheets at all."),
        ("2.2.0", "This release was put out to move the package from Rcpp to cpp11."),
        ("2.1.0", "This release adds the skip argument, to leave rows out at the top."),
        ("2.0.0", "This release drops support for R versions older than 3.4."),
    ]
    lines = ["# sheetreader news", ""]
    for number, text in releases:
        lines += [f"## sheetreader {number}", "", text, ""]
    report = service.ingest([write(tmp_path / "docs" / "NEWS.md", "\n".join(lines))])
    assert not report.failed, report.failed
    out = service.answer("Why was sheetreader 2.2.1 released?")
    assert out.answer is not None, out.refusal
    assert "crash when a workbook has no sheets" in out.answer.text
    lead = next(c for c in out.answer.citations if c.index in out.answer.referenced)
    assert lead.section is not None and lead.section.endswith("sheetreader 2.2.1")
    missing = service.answer("What changed in sheetreader 2.1.1?")
    assert missing.refusal is not None
    assert missing.refusal.evidence.missing == ("2.1.1",)


def test_a_name_and_its_version_run_together_are_held_by_its_initials_and_version() -> None:
    """ "GPLv3" names the GNU General Public License, version 3: held by a cover that
    spells out those initials and says that version, not by version 2's."""
    wanted = asked("How can I convey GPLv3 object code using peer-to-peer transmission?")
    assert wanted.names == ("GPLv3",)
    cover = (
        "GNU GENERAL PUBLIC LICENSE Version 3, 29 June 2007. The GNU General Public License "
        "is a free, copyleft license for software."
    )
    evidence = ["Convey the object code using peer-to-peer transmission."]
    assert wanted.missing(evidence, about=cover) == []
    assert wanted.missing(evidence, about=cover.replace("Version 3", "Version 2")) == ["GPLv3"]
    assert wanted.missing(evidence, about="The Apache License, Version 3.") == ["GPLv3"]
    assert wanted.missing(["GPLv3 allows it."]) == []  # or written as asked


def test_a_question_asking_which_place_or_body_is_answered_only_by_one_named() -> None:
    """Asked in which state SPI is incorporated, "created in the U.S." names none: the
    country the question gives itself."""
    asking = "In which US state is SPI incorporated?"
    assert not names_new("SPI was created in the U.S. to hold money in trust there.", asking)
    assert names_new("SPI is incorporated in the state of New York.", asking)
    assert not names_new("It is incorporated in a state.", "Which company makes it?")
    assert names_new("Contoso makes it.", "Which company makes it?")  # a sentence's first word
    assert names_new("The U.S. considered it.", "Which country was thinking of war?")  # no "us"
    # a question asking no place or body asks for no name: a state of matter is none
    assert names_new("Hold it with apt-mark hold.", "How do I hold a package?")
    assert names_new("It is a liquid.", "During compression, what state is the fluid in?")


def test_a_name_after_non_is_not_held_unless_the_question_says_non_too() -> None:
    """An installation guide's "a non-liveCD image is used" says nothing of a liveCD:
    asked the RAM a liveCD install needs, it holds no "liveCD"; asked of a non-liveCD
    image, or with the name printed plainly elsewhere, it does."""
    guide = "Debian's minimum RAM values assume a non-liveCD image is used."
    assert asked("What RAM does a liveCD install of Debian need?").missing([guide]) == ["liveCD"]
    assert asked("What RAM does a non-liveCD install need?").missing([guide]) == []
    assert asked("What RAM does a liveCD install need?").missing([guide, "Boot the liveCD."]) == []
    gaap = "Boeing's core operating loss is a non-GAAP measure."
    assert asked("What is Boeing's non-GAAP core operating loss?").missing([gaap]) == []
    assert asked("What is Boeing's GAAP core operating loss?").missing([gaap]) == ["GAAP"]
    # a people's word is asked loosely: "Russia's right" of the rights of non-Russian nations
    lenin = "Lenin asserted the right of the non-Russian nations to self-determination."
    assert asked("Who asserted Russia's right to self-determination?").missing([lenin]) == []
