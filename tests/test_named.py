"""Documents a question names by title: a comparison's sides and a two-hop bridge."""

from __future__ import annotations

from footnoted.answering.named import bridge_candidates, comparison_sides, named
from footnoted.models import Chunk, RetrievedChunk


def _hit(title: str, text: str = "", n: int = 0) -> RetrievedChunk:
    doc = title.lower().replace(" ", "-")
    chunk = Chunk(f"{doc}-{n}", doc, n, text or f"About {title}.", 0, 10, None, None, 9)
    return RetrievedChunk(chunk=chunk, document_title=title, document_url=None, score=0.5)


POOL = [
    _hit("Harbour Commission"),
    _hit("Southpoint Light (film)"),
    _hit("Southpoint Light"),
    _hit("Southpoint Light", n=1),
    _hit("Northcape Light"),
]


def test_a_question_whether_two_named_documents_agree_has_both_as_sides() -> None:
    sides = comparison_sides("Are Northcape Light and Southpoint Light both granite?", POOL)
    # in the question's order; the document titled with the name itself, its best chunk
    assert [s.chunk.id for s in sides] == ["northcape-light-0", "southpoint-light-0"]
    either = comparison_sides("Which is older, Southpoint Light or Northcape Light?", POOL)
    assert [s.document_title for s in either] == ["Southpoint Light", "Northcape Light"]


def test_other_questions_have_no_sides() -> None:
    assert comparison_sides("When was Northcape Light built?", POOL) == []  # no comparison
    assert comparison_sides("Is Northcape Light older than the harbour?", POOL) == []  # one
    # two titles that name the same thing are one side
    assert comparison_sides("Is Southpoint Light (film) about Southpoint Light?", POOL) == []


def test_a_document_the_lead_names_is_a_bridge_however_low_it_ranks() -> None:
    lead = _hit("Harbour Commission", "The commission hired the engineer Agnes Marlow.")
    pool = [lead] + [_hit(f"Distractor {i}") for i in range(60)] + [_hit("Agnes Marlow")]
    (bridge,) = bridge_candidates("Where was the engineer from?", lead, pool, {lead.chunk.id})
    assert bridge.hit.document_title == "Agnes Marlow"
    assert lead.chunk.text[bridge.start : bridge.end] == lead.chunk.text  # the naming sentence


def test_a_bridge_comes_with_the_sentence_that_names_it_even_when_read_already() -> None:
    text = "The commission met in May. It hired the engineer Agnes Marlow. She was young."
    lead = _hit("Harbour Commission", text)
    agnes = [_hit("Agnes Marlow", n=n) for n in range(3)]  # one chunk of a document
    pool = [lead, *agnes, _hit("Leith Docks")]
    read = {lead.chunk.id, agnes[0].chunk.id}
    (bridge,) = bridge_candidates("Where was the engineer from?", lead, pool, read)
    assert bridge.hit is agnes[0]
    assert text[bridge.start : bridge.end] == "It hired the engineer Agnes Marlow."
    # a document only the question names is read alone, and only when unread
    q = "Where was the engineer of Leith Docks from?"
    bridges = bridge_candidates(q, lead, pool, read)
    assert [(b.hit.document_title, b.start, b.end) for b in bridges] == [
        ("Agnes Marlow", 27, 62), ("Leith Docks", 0, 0),
    ]  # fmt: skip
    assert [
        b.hit.document_title for b in bridge_candidates(q, lead, pool, read | {"leith-docks-0"})
    ] == ["Agnes Marlow"]


def test_the_leads_own_title_shadows_a_shorter_title_inside_it() -> None:
    lead = _hit("These Boots", "These Boots was written by Lee Hazlewood.")
    pool = [lead, _hit("Boots (EP)"), _hit("Lee Hazlewood")]
    (bridge,) = bridge_candidates("Who wrote These Boots?", lead, pool, {lead.chunk.id})
    assert bridge.hit.document_title == "Lee Hazlewood"


def test_a_title_is_named_whichever_dash_the_text_prints() -> None:
    lead = _hit(
        "Treaty of Varnholm",
        "The Treaty of Varnholm, signed in 1721, formally ended the Second Kestrel–Ardan War.",
    )
    pool = [lead, _hit("Second Kestrel-Ardan War"), _hit("Kestrel Ardan")]
    (bridge,) = bridge_candidates("When did the war end?", lead, pool, {lead.chunk.id})
    assert bridge.hit.document_title == "Second Kestrel-Ardan War"
    assert lead.chunk.text[bridge.start : bridge.end] == lead.chunk.text


def test_two_seasons_that_share_a_head_name_a_document_each() -> None:
    pool = [
        _hit("VCU Rams men's basketball"),
        _hit("2012–13 VCU Rams men's basketball team"),
        _hit("2011–12 VCU Rams men's basketball team"),
        _hit("2010–11 VCU Rams men's basketball team"),
    ]
    q = "Did the 2010–11 and 2012–13 VCU Rams men's basketball teams play in the same conference?"
    sides = comparison_sides(q, pool)
    assert [s.document_title for s in sides] == [
        "2010–11 VCU Rams men's basketball team", "2012–13 VCU Rams men's basketball team",
    ]  # fmt: skip
    # the plural that ends the head is found among the words after the seasons
    either = "Which won more games, the 2012–13 or 2010–11 VCU Rams men's basketball teams?"
    assert [s.document_title for s in comparison_sides(either, pool)] == [
        "2012–13 VCU Rams men's basketball team", "2010–11 VCU Rams men's basketball team",
    ]  # fmt: skip
    # one season named alone is no comparison of two
    assert comparison_sides("Did the 2010–11 VCU Rams men's basketball team win?", pool) == []


def test_a_place_is_named_before_its_region_and_a_person_after_their_style() -> None:
    """An encyclopedia titles a place "Santa Monica, California" and a pope "Pope John
    XXIII"; a text names them "Santa Monica" and "John XXIII". A company's legal form is
    part of its name ("Lyft, Inc." is not named by "Lyft"), and a short name of one word
    names nothing ("Paris" is no name of "Paris, Texas")."""
    titles = ["Santa Monica, California", "Pope John XXIII", "Lyft, Inc.", "Paris, Texas"]
    text = "They shared an apartment in Santa Monica. John XXIII made him a cardinal."
    assert named(titles, text) == {0, 1}
    assert named(titles, "Lyft grew in Paris and in Santa Monica, California.") == {0}
