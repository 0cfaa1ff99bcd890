"""What retrieval puts before the reader: a table of contents, which names every section
and says nothing of any, goes after the passages that say it. Real ingest, real store."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import pptx
import pytest

import footnoted.retrieval as retrieval_module
from conftest import shared
from footnoted import Footnoted
from footnoted.lexical import QuestionTerms, bag, chunk_sentences, contents_listing, stem
from footnoted.models import Chunk, RetrievedChunk
from footnoted.retrieval import RERANK_DEPTH, once, sentence_words, to_read

SBOM_CONTENTS = (
    "3.5 Method of SBOM Document delivery 14\n\n3.5.1 Verification and reference material 14"
    "\n\n3.5.2 Rationale 14\n\n3.6 SBOM Document Scope 14\n\n3.6.1 Verification and reference"
    " material 15"
)
INDEX_10K = (
    "PART I Page\n\nItem 1. | Business | 1\n\nItem 1A. | Risk Factors | 6\n\nItem 1B. | "
    "Unresolved Staff Comments | 17\n\nItem 2. | Properties | 18"
)
DOTTED = "Contents\nIntroduction ........ 7\nPreface ....... ix\nScope ......... 9\nTerms ..... 10"


def hit(text: str, title: str, cid: str, header: str | None = None) -> RetrievedChunk:
    chunk = Chunk(cid, title, 0, text, 0, len(text), header=header)
    return RetrievedChunk(chunk, title, None, 0.6)


def covers(terms: QuestionTerms, h: RetrievedChunk) -> float:
    return terms.cover(sentence_words(h.chunk.text, h.chunk.header))


def test_a_word_and_its_inflections_are_one_term() -> None:
    """A question's "released" asks for the column "release"; "changes" are "change";
    a short word keeps its letters."""
    for forms in (("release", "released", "releases", "releasing"), ("change", "changes",
                  "changed"), ("policy", "policies"), ("table", "tables")):  # fmt: skip
        assert len({stem(w) for w in forms}) == 1, forms
    assert stem("use") == "use" and stem("see") == "see"
    assert bag("When was it released?") & bag("version | release | eol")


def test_a_name_most_candidates_are_about_weighs_little() -> None:
    """A report says "we", not its company's name: the name, in the title of most
    candidates, weighs less than the words that set the answer's sentence apart."""
    question = "How many employees does Lyft have?"
    staff = hit("As of December 31, 2021, we had 4,453 employees.", "Lyft, Inc.", "a")
    aside = hit("Flexdrive is Lyft's independently managed subsidiary.", "Lyft, Inc.", "b")
    hubs = hit("Our Driver Hubs offer support.", "Lyft, Inc.", "c")
    other = hit("Employees of Uber met in San Francisco.", "Uber Technologies", "d")
    terms = QuestionTerms(question, [staff, aside, hubs, other])
    assert covers(terms, staff) > covers(terms, aside)


def test_a_table_row_is_read_with_its_header_row() -> None:
    """ "Revenue | 3,208,323" holds 2021's revenue only under "2021 | 2020 | 2019": the
    row covers the year asked, whether its header is printed in the chunk or above."""
    question = "What was Lyft's revenue in 2021?"
    table = hit("2021 | 2020 | 2019\n\nRevenue | 3,208,323 | 2,364,681 | 3,615,960", "L", "a")
    below = hit("Revenue | 3,208,323 | 2,364,681 | 3,615,960", "L", "b", "2021 | 2020 | 2019")
    prose = hit("Revenue grew in 2021, and costs rose.", "L", "c")
    terms = QuestionTerms(question, [table, below, prose])
    assert covers(terms, table) == covers(terms, below) == covers(terms, prose) > 0
    assert terms.cover(chunk_sentences(below.chunk.text)[0][2:]) < covers(terms, below)


def test_a_table_of_contents_is_told_from_text_tables_and_lists() -> None:
    assert contents_listing(SBOM_CONTENTS)
    assert contents_listing(INDEX_10K)  # a filing's index, extracted as a table
    assert contents_listing(DOTTED)  # dot leaders, a roman page among them
    # a table of amounts: its numbers are not pages
    assert not contents_listing("Asia | $4,484 | $2,792\n\nEurope | 1,010 | 961\n\nTotal | 17 | 12")
    assert not contents_listing("Headcount | 142 | 140\n\nOffices | 12 | 11\n\nCountries | 9 | 9")
    # formulas, a list with numbers, a section going back: not a table of contents
    assert not contents_listing("Precision = 0\n\nPrecision = 1\n\nRecall = 1 if all is cited")
    assert not contents_listing("Install Python 3\n\nRun make 2\n\nOpen port 8080")
    assert not contents_listing("Scope 14\n\nTerms 9\n\nRationale 3\n\nReferences 2")
    assert not contents_listing("3.5 Method of SBOM Document delivery 14")  # one line


def test_a_table_of_contents_is_not_read_before_the_sections_it_lists(
    service: Footnoted, monkeypatch: pytest.MonkeyPatch
) -> None:
    guide = shared("docs-more", "openchain__Cross-Industry-SBOM-Quality-Guide.docx")
    report = service.ingest([guide])
    assert not report.failed, report.failed
    question = "Which elements does the CISA 2025 Minimum Elements list as required?"
    retrieval = service.retrieve(question)
    # its lines name the question's words, but the passages read are the guide's own text
    assert not any(contents_listing(h.chunk.text) for h in retrieval.hits)
    head = [contents_listing(h.chunk.text) for h in retrieval.candidates[:RERANK_DEPTH]]
    assert any(head) and head == sorted(head)  # listed, after every passage
    result = service.answer(question)
    quoted = result.answer.text if result.answer is not None else ""
    assert "Required Elements 29" not in quoted and "Version 2.1.0 29" not in quoted
    # taken for text, the table of contents is read before the sections
    monkeypatch.setattr(retrieval_module, "contents_listing", lambda text: False)
    unsorted = service.retrieve(question)
    assert any(contents_listing(h.chunk.text) for h in unsorted.hits)


def test_the_chunk_closest_to_the_question_is_read_where_the_rerank_passes_it_over() -> None:
    """A table's rows cover few of the question's words, so the rerank can put the chunk
    closest by embedding past the passages read; it is read after them, unless it is a
    table of contents, which the rerank puts last on purpose."""
    ranked = [hit(f"Passage {i} on research spending.", "Report", f"c{i}") for i in range(8)]
    rows = hit("Other | 278 | 184\n\nTotal | $2,852 | $2,249", "Report", "rows", "Years | 2022")
    closest = RetrievedChunk(rows.chunk, "Report", None, 0.79, dense_rank=0)
    read = to_read([*ranked, closest], 5)
    assert [h.chunk.id for h in read] == ["c0", "c1", "c2", "c3", "c4", "rows"]
    # among the first five already, nothing more is read
    read = to_read([closest, *ranked], 5)
    assert [h.chunk.id for h in read] == ["rows", "c0", "c1", "c2", "c3"]
    assert len(to_read(ranked, 5)) == 5  # no chunk from the dense search (keyword hits only)
    contents = RetrievedChunk(
        hit(SBOM_CONTENTS, "Guide", "toc").chunk, "Guide", None, 0.8, dense_rank=0
    )
    assert [h.chunk.id for h in to_read([*ranked, contents], 5)] == ["c0", "c1", "c2", "c3", "c4"]


def test_the_keyword_searchs_first_chunk_is_read_where_the_rerank_passes_it_over() -> None:
    """A table's rows all cover the question's other words through their header; the
    one row naming the identifier asked ("ILib3MFModelMeshObject") is the keyword
    search's first, and is read after the passages the rerank put first, where none of
    them names it."""
    ranked = [hit(f"IModel{i} | IBase | A model part.", "Guide", f"c{i}") for i in range(8)]
    mesh = hit("IMeshObject | IObjectResource | Mesh objects.", "Guide", "mesh")
    first = RetrievedChunk(mesh.chunk, "Guide", None, 0.5, dense_rank=9, keyword_rank=0)
    closest = RetrievedChunk(ranked[7].chunk, "Guide", None, 0.7, dense_rank=0)
    question = "Which interface is IMeshObject derived from?"
    read = to_read([*ranked[:7], first, closest], 5, question)
    assert [h.chunk.id for h in read] == ["c0", "c1", "c2", "c3", "c4", "c7", "mesh"]
    assert to_read([first, *ranked], 5, question)[0].chunk.id == "mesh"
    # a question naming no identifier, or one a passage read already holds, reads no more
    for other in ("Which interface is the mesh derived from?", "Is IModel3 an interface?"):
        assert [h.chunk.id for h in to_read([*ranked[:7], first], 5, other)][-1] == "c4"


def test_a_passage_printed_again_word_for_word_is_read_once() -> None:
    """A slide's bullets uncovered one page at a time print the same text page after
    page: the first of them ranked stays, the others give their places to other passages
    (in another document, the same words are a passage of their own)."""
    first, again = (
        hit("Rack:  logical set of nodes", "Talk", "p5"),
        hit("Rack: logical set of\nnodes", "Talk", "p6"),
    )
    other = hit("Rack: logical set of nodes", "Notes", "n1")
    other = RetrievedChunk(Chunk("n1", "notes", 0, other.chunk.text, 0, 26), "Notes", None, 0.6)
    ranked = [first, hit("Data center: logical set of racks", "Talk", "p7"), again, other]
    assert [h.chunk.id for h in once(ranked)] == ["p5", "p7", "n1"]


def test_speaker_notes_copied_onto_slide_after_slide_leave_room_for_the_answer(
    service: Footnoted, tmp_path: Path
) -> None:
    """A talk whose speaker notes on consistency are pasted onto six slides: those notes
    are among the candidates once, and the slide defining the consistency level is read."""
    deck = pptx.Presentation()
    notes = " ".join(  # long enough to be a passage of its own, on each slide
        f"Success on replica {n} means that the data was written to its commit log and "
        f"its memtable, and that replica {n} told the coordinator so within the timeout."
        for n in range(12)
    )
    for number in range(6):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = f"Consistency QUORUM write {number}"
        slide.placeholders[1].text_frame.text = f"Coordinator and node {number}"
        slide.notes_slide.notes_text_frame.text = notes
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Consistency"
    slide.placeholders[1].text_frame.text = (
        "The consistency level is the number of replicas that must acknowledge a request. "
        "QUORUM means RF/2 + 1 of them."
    )
    out = io.BytesIO()
    deck.save(out)
    (tmp_path / "talk.pptx").write_bytes(out.getvalue())
    assert not service.ingest([tmp_path / "talk.pptx"]).failed
    retrieval = service.retrieve("What does a consistency level of QUORUM mean for writes?")
    texts = [" ".join(h.chunk.text.split()) for h in retrieval.candidates]
    assert len(texts) == len(set(texts))
    assert sum("replica 11 told" in t for t in texts) == 1  # the notes' end, on six slides
    assert any("RF/2 + 1" in h.chunk.text for h in retrieval.hits)


def test_the_keyword_search_runs_beside_the_embedding_and_the_vector_search(
    service: Footnoted, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a free thread of its own, the keyword search overlaps the question's embedding
    and the vector search; with every such thread busy it runs in the asking thread,
    never waiting behind others. The candidates are the same either way."""
    guide = shared("docs-more", "openchain__Cross-Industry-SBOM-Quality-Guide.docx")
    assert not service.ingest([guide]).failed
    question = "Which elements does the CISA 2025 Minimum Elements list as required?"
    store, retriever = service.retriever.store, service.retriever
    searched, real_vector = store.keyword_search, retriever.query_vector
    where: list[str] = []
    began = threading.Event()

    def watched(*args: object, **kwargs: object) -> list[str]:
        where.append(threading.current_thread().name)
        began.set()
        return searched(*args, **kwargs)  # type: ignore[arg-type]

    def embedded(text: str, embedding: list[float] | None) -> object:
        began.wait(5)  # the keyword search has begun before the embedding ends
        return real_vector(text, embedding)

    monkeypatch.setattr(store, "keyword_search", watched)
    monkeypatch.setattr(retriever, "query_vector", embedded)
    beside = service.retrieve(question)
    assert began.is_set() and where == [where[0]] and where[0].startswith("footnoted-keywords")
    assert beside.candidates

    busy = threading.Event()
    pool = retrieval_module._BESIDE
    blockers = [pool.submit(busy.wait, 5) for _ in range(pool._max_workers)]
    where.clear()
    monkeypatch.setattr(retriever, "query_vector", real_vector)
    try:
        inline = service.retrieve(question)
    finally:
        busy.set()
        for blocker in blockers:
            blocker.result()
    assert where == [threading.current_thread().name]
    assert [h.chunk.id for h in inline.candidates] == [h.chunk.id for h in beside.candidates]
