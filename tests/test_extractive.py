"""Extractive answers: which sentences are quoted, and that none is quoted twice."""

from __future__ import annotations

from footnoted.answering.extractive import extract
from footnoted.chunking import split_sentences
from footnoted.models import Chunk, RetrievedChunk

DOCUMENT = (
    "The harbour commission met every spring in the old customs house. "
    "Its members argued for years about the lighthouse on the northern cape. "
    "In 1871 the commission finally voted to rebuild the lighthouse in stone. "
    "The new tower was lit for the first time in the winter of 1874."
)


def _chunk(doc: str, index: int, text: str, start: int, score: float, title: str) -> RetrievedChunk:
    chunk = Chunk(f"{doc}-{index}", doc, index, text, start, start + len(text), None, None, 9)
    return RetrievedChunk(chunk=chunk, document_title=title, document_url=None, score=score)


def _whole(doc: str, text: str, score: float, title: str) -> RetrievedChunk:
    """A document held in one chunk."""
    return _chunk(doc, 0, text, 0, score, title)


def _sentences(text: str) -> list[str]:
    return [text[s:e] for s, e in split_sentences(text)]


def test_a_sentence_that_two_overlapping_chunks_share_is_quoted_once() -> None:
    # the second chunk repeats the first one's last sentence, as the chunker does
    # when it cuts a long paragraph between sentences
    sentences = _sentences(DOCUMENT)
    first = " ".join(sentences[:3])
    second_start = DOCUMENT.index(sentences[2])
    second = DOCUMENT[second_start:]
    hits = [
        _chunk("d1", 0, first, 0, 0.62, "Harbour"),
        _chunk("d1", 1, second, second_start, 0.61, "Harbour"),
    ]
    answer = extract("When did the commission vote to rebuild the lighthouse?", hits)
    quoted = [answer.text[s.answer_start : s.answer_end] for s in answer.spans]
    assert quoted.count(sentences[2]) == 1
    assert len({(s.index, s.doc_start) for s in answer.spans}) == len(answer.spans)
    assert len({s.doc_start for s in answer.spans}) == len(answer.spans)


def test_the_sentence_after_the_best_one_is_quoted_when_it_holds_the_answer() -> None:
    # The best sentence restates the question; the answer is in the next one. Another
    # document's sentence covers some of the question too, but adds nothing to it.
    lead = (
        "The harbour commission chose a builder for the stone lighthouse after a long vote. "
        "Agnes Marlow, an engineer from Leith, won the contract with the lowest price."
    )
    other = "The harbour commission of another county chose to keep its wooden lighthouse."
    hits = [
        _whole("d1", lead, 0.66, "Harbour"),
        _whole("d2", other, 0.52, "County towers"),
    ]
    answer = extract(
        "Who did the harbour commission choose to build the stone lighthouse?",
        hits,
        max_sentences=2,
    )
    assert answer.text == (
        "The harbour commission chose a builder for the stone lighthouse after a long vote. [1] "
        "Agnes Marlow, an engineer from Leith, won the contract with the lowest price. [1]"
    )


def test_the_document_the_leading_sentence_names_is_the_second_source() -> None:
    # Both people are named by the leading passage; only one by the sentence that
    # answers the first half of the question. The other shares more of its words.
    film = (
        "Harbour Lights is a 1950 film starring Mara Lind as the keeper's daughter. "
        "It was shot in Oban, and its music was written by Tomas Bell."
    )
    hits = [
        _whole("d1", film, 0.68, "Harbour Lights (film)"),
        _whole("d2", "Tomas Bell wrote the music for the film Harbour Lights.", 0.47, "Tomas Bell"),
        _whole("d3", "Mara Lind was an actress who later served as mayor.", 0.31, "Mara Lind"),
    ]
    answer = extract(
        "What office did the woman who starred in the film Harbour Lights later hold?",
        hits,
        max_sentences=2,
    )
    assert answer.text == (
        "Harbour Lights is a 1950 film starring Mara Lind as the keeper's daughter. [1] "
        "Mara Lind was an actress who later served as mayor. [2]"
    )


def test_a_title_inside_a_longer_named_title_is_not_named() -> None:
    # The question names the song, whose title ends in an apostrophe; the EP's title
    # "Lights" lies inside it and is not named. The songwriter the leading sentence
    # names is the second hop, though the EP's passage repeats more of the question.
    song = "These Lights Are Made for Sailin' is a song written by Ewan Roy and sung by Isla Kerr."
    cover = "Lights is an EP by the Drifters, with a cover of These Lights Are Made for Sailin'."
    hits = [
        _whole("d1", song, 0.68, "These Lights Are Made for Sailin'"),
        _whole("d2", cover, 0.64, "Lights (EP)"),
        _whole("d3", "Ewan Roy (1931 – 1999) was a Scottish songwriter.", 0.30, "Ewan Roy"),
    ]
    answer = extract(
        "Who wrote These Lights Are Made for Sailin' and died in 1999?", hits, max_sentences=2
    )
    assert answer.text == f"{song} [1] Ewan Roy (1931 – 1999) was a Scottish songwriter. [2]"


def test_a_capitalised_title_is_not_named_by_the_same_words_in_lower_case() -> None:
    # "science fantasy" in the question is a genre, not the magazine of that name: the
    # second place goes to the candidate that adds the companion books
    series = "Starfall is a science fantasy series for young adults, told by a girl from Mars."
    magazine = "Science Fantasy was a British magazine of science fantasy stories."
    companions = "The companion books tell of other worlds."
    lead = _whole("d1", series, 0.61, "Starfall")
    other = _whole("d2", magazine, 0.47, "Science Fantasy (magazine)")
    deeper = _whole("d3", companions, 0.30, "Starfall Companions")
    answer = extract(
        "Which science fantasy series has companion books about enslaved worlds?",
        [lead, other],
        max_sentences=2,
        candidates=[lead, other, deeper],
    )
    assert answer.text == f"{series} [1] {companions} [2]"
