"""Extractive answers: the sentence holding the reader's span leads, nothing pads it."""

from __future__ import annotations

from dataclasses import replace

from footnoted.answering.evidence import Link, Read
from footnoted.answering.extractive import SECOND_SCORE, extract
from footnoted.inference.reader import Reading
from footnoted.models import Chunk, RetrievedChunk

DOCUMENT = (
    "The harbour commission met every spring in the old customs house. "
    "Its members argued for years about the lighthouse on the northern cape. "
    "In 1871 the commission finally voted to rebuild the lighthouse in stone. "
    "The new tower was lit for the first time in the winter of 1874."
)
Q = "When did the commission vote to rebuild the lighthouse?"


def _read(doc: str, text: str, start: int, answer: str, score: float) -> Read:
    """``text`` as chunk 0 of ``doc`` starting at ``start`` in its document, with the
    reader's span on ``answer``."""
    chunk = Chunk(f"{doc}-{start}", doc, 0, text, start, start + len(text), None, None, 9)
    hit = RetrievedChunk(chunk=chunk, document_title=doc.title(), document_url=None, score=0.5)
    at = text.index(answer)
    return Read(hit, Reading(score, at, at + len(answer)), score)


def test_the_sentence_holding_the_span_leads_and_the_span_is_marked_exactly() -> None:
    answer = extract(Q, [_read("harbour", DOCUMENT, 100, "1871", 6.0)], 0.0)
    sentence = "In 1871 the commission finally voted to rebuild the lighthouse in stone."
    assert answer.text == f"{sentence} [1]"
    (span,) = answer.spans
    assert answer.text[span.answer_start : span.answer_end] == sentence
    assert span.exact_start is not None and span.exact_end is not None
    assert answer.text[span.exact_start : span.exact_end] == "1871"
    assert span.exact_doc_start is not None and span.exact_doc_end is not None
    assert DOCUMENT[span.exact_doc_start - 100 : span.exact_doc_end - 100] == "1871"
    assert DOCUMENT[span.doc_start - 100 : span.doc_end - 100] == sentence
    assert [c.index for c in answer.citations] == [1] and answer.referenced == (1,)


def test_a_span_across_two_sentences_quotes_both() -> None:
    answer = extract(Q, [_read("harbour", DOCUMENT, 0, "stone. The new tower", 5.0)], 0.0)
    assert answer.text.startswith("In 1871") and answer.text.endswith("of 1874. [1]")


def test_another_passage_is_quoted_only_on_its_own_evidence() -> None:
    lead = _read("harbour", DOCUMENT, 0, "1871", 7.0)
    text = "Agnes Marlow, an engineer from Leith, built the stone lighthouse. She died in 1890."
    weak = _read("builders", text, 0, "Agnes Marlow", SECOND_SCORE - 0.5)
    strong = _read("builders", text, 0, "Agnes Marlow", SECOND_SCORE + 0.5)
    alone = extract(Q, [lead, weak], 0.0)
    assert alone.text.count("[") == 1 and alone.referenced == (1,)  # no padding
    assert [c.document_id for c in alone.citations] == ["harbour", "builders"]  # listed
    both = extract(Q, [lead, strong], 0.0)
    assert both.text.endswith("built the stone lighthouse. [2]")
    assert [c.document_id for c in both.citations] == ["harbour", "builders"]
    assert both.spans[1].exact_start is None  # only the leading quote marks an answer


def test_a_document_the_leading_quote_names_is_quoted_as_the_second_hop() -> None:
    lead = _read(
        "harbour", "The lighthouse was designed by Agnes Marlow in 1871.", 0, "Agnes Marlow", 6.0
    )
    text = "Agnes Marlow was an engineer from Leith. She died in 1890."
    bridge = _read("agnes marlow", text, 0, "Leith", -3.0)  # does not answer on its own
    other = _read("leith", "Leith is a port north of Edinburgh.", 0, "Edinburgh", -3.0)
    answer = extract("Where was the designer of the lighthouse from?", [lead, bridge, other], 0.0)
    assert answer.text.endswith("Agnes Marlow was an engineer from Leith. [2]")
    assert answer.referenced == (1, 2) and len(answer.citations) == 2  # below 0.0: unlisted


def test_a_sentence_that_two_overlapping_chunks_share_is_quoted_once() -> None:
    tail = DOCUMENT[DOCUMENT.index("In 1871") :]
    first = _read("harbour", DOCUMENT, 0, "1871", 7.0)
    again = _read("harbour", tail, 140, "1871", 6.5)
    answer = extract(Q, [first, again], 0.0)
    assert answer.text.count("In 1871") == 1 and answer.referenced == (1,)


def test_nothing_read_quotes_nothing() -> None:
    answer = extract(Q, [], 0.0)
    assert answer.text == "" and answer.citations == () and answer.spans == ()


def test_a_comparison_quotes_each_side_in_order_and_marks_no_answer() -> None:
    north = _read(
        "northcape",
        "The Northcape light stands on the cliffs. Its tower is built of granite blocks.",
        0,
        "granite",
        -9.0,
    )
    south = _read("southpoint", "The Southpoint light is a cast-iron tower.", 0, "cast-iron", -11.0)
    other = _read("harbour", DOCUMENT, 0, "1871", SECOND_SCORE + 5)  # believed, not a side
    q = "Are the Northcape light and the Southpoint light both built of granite?"
    answer = extract(q, [north, south, other], 0.0, sides=2)
    assert answer.text == (  # "Its tower" brings the sentence that says whose it is
        "The Northcape light stands on the cliffs. Its tower is built of granite blocks. [1] "
        "The Southpoint light is a cast-iron tower. [2]"
    )
    assert [c.document_id for c in answer.citations] == ["northcape", "southpoint", "harbour"]
    assert answer.referenced == (1, 2)  # the believed passage is listed, not quoted
    assert all(s.exact_start is None and s.exact_doc_start is None for s in answer.spans)


def test_a_comparison_of_more_documents_still_quotes_at_most_three() -> None:
    sides = [_read(f"light{n}", f"Light {n} is a stone tower.", 0, "stone", -5.0) for n in range(4)]
    answer = extract("Are lights 0, 1, 2 and 3 all stone towers?", sides, 0.0, sides=4)
    assert answer.referenced == (1, 2, 3) and answer.text.count("[") == 3


def test_a_passage_that_only_names_the_leading_document_is_not_quoted() -> None:
    lead = _read(
        "tidewatch", "Tidewatch is a series of novels told by a lighthouse keeper.", 0,
        "Tidewatch", 6.0,
    )  # fmt: skip
    review = _read(
        "reviews", "Critics compared the Tidewatch series to older sea stories.", 0,
        "older sea stories", -6.0,
    )  # fmt: skip
    answer = extract("Which series is told by a lighthouse keeper?", [lead, review], 0.0)
    assert answer.referenced == (1,) and answer.text.count("[") == 1


def test_a_document_a_bridge_names_is_the_next_hop_when_the_lead_names_none() -> None:
    lead = _read("dwyer arena", "Dwyer Arena seats 1,400 people.", 0, "1,400", 6.0)
    team = _read(
        "lewiston maineiacs", "The Lewiston Maineiacs played at the Colisee.", 0, "Colisee", 1.0
    )
    arena = _read("colisee", "The Colisee seats 3,677 people.", 0, "3,677", 4.0)
    q = "How many people can the arena of the Lewiston Maineiacs seat?"
    answer = extract(q, [lead, team, arena], 0.0)
    assert answer.referenced == (1, 2, 3)
    assert answer.text.endswith("The Colisee seats 3,677 people. [3]")


def test_when_the_lead_names_its_second_hop_no_looser_link_is_quoted() -> None:
    lead = _read(
        "kiss and tell", "Kiss and Tell stars Shirley Temple as Corliss Archer.", 0,
        "Shirley Temple", 6.0,
    )  # fmt: skip
    star = _read(
        "shirley temple", "Shirley Temple later served as an ambassador.", 0, "ambassador", -4.0
    )
    sequel = _read(
        "a kiss for corliss", "A Kiss for Corliss is the sequel to Kiss and Tell.", 0, "sequel",
        -2.0,
    )  # fmt: skip
    q = "What post did the actress who played Corliss Archer hold?"
    answer = extract(q, [lead, sequel, star], 0.0)
    assert answer.referenced == (1, 2)
    assert answer.text.endswith("Shirley Temple later served as an ambassador. [2]")


def test_a_bridged_document_gives_one_quote_and_leaves_room_for_the_next() -> None:
    lead = _read("season 2010", "The 2010 team represented the State College.", 0, "2010", 5.0)
    season = "The 2011 team played twelve games. Its coach was in his third year."
    first = _read("season 2011", season, 0, "2011", 1.0)
    second = _read("season 2011", season[35:], 35, "third", -8.0)
    college = _read("state college", "The State College was founded in 1838.", 0, "1838", -13.0)
    q = "The Season 2011 team represented the State College, founded when?"
    answer = extract(q, [lead, first, second, college], 0.0)
    assert answer.referenced == (1, 2, 3)
    assert answer.text.endswith("The State College was founded in 1838. [3]")


def test_a_passage_read_after_a_naming_sentence_leads_and_that_sentence_follows() -> None:
    text = "The harbour commission met in May. It hired the engineer Agnes Marlow in 1870."
    first = _read("harbour", text, 0, "Agnes Marlow", -2.0)
    naming = text.index("It hired")
    second = _read(
        "agnes marlow", "Agnes Marlow was born in Leith. She died in 1890.", 0, "Leith", 9.0
    )
    led = replace(second, link=Link(first, naming, len(text)))
    q = "Where was the engineer the harbour commission hired born?"
    answer = extract(q, [led, first], 0.0)
    assert answer.text == (  # the sentence "It" stands for comes with it, as in any quote
        "Agnes Marlow was born in Leith. [1] The harbour commission met in May. "
        "It hired the engineer Agnes Marlow in 1870. [2]"
    )
    assert answer.referenced == (1, 2)
    lead_span = answer.spans[0]
    assert lead_span.exact_start is not None and lead_span.exact_end is not None
    assert answer.text[lead_span.exact_start : lead_span.exact_end] == "Leith"
    assert answer.spans[1].exact_start is None
    # without the link the first hop is not quoted: it holds no evidence of its own
    assert extract(q, [second, first], 0.0).referenced == (1,)


def test_a_believed_second_hop_of_a_quoted_document_is_quoted_though_unnamed_there() -> None:
    """The lead's chunk does not name the second hop's document (another of its chunks
    did, and the second hop was read after that chunk's sentence); believed, the second
    hop is quoted, not believed it is not."""
    lead = _read(
        "witch", "Season of the Witch is a 2011 film directed by Dominic Sena.", 0, "Sena", 4.0
    )
    naming = "Sena and Cage had worked together on Gone in 60 Seconds."
    other = _read("witch", naming, 0, "Gone in 60 Seconds", 1.0)
    film = "Gone in 60 Seconds is a 2000 heist film written by Scott Rosenberg."
    for score, quoted in ((7.0, True), (5.0, False)):
        hop = replace(
            _read("gone", film, 0, "Scott Rosenberg", score), link=Link(other, 0, len(naming))
        )
        answer = extract("Who wrote the film Sena and Cage made first?", [lead, hop, other], 6.0)
        assert ("written by Scott Rosenberg. [2]" in answer.text) is quoted, score
        assert answer.referenced == ((1, 2) if quoted else (1,))
