from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import write
from footnoted import Footnoted, Settings
from footnoted.answering.evidence import EMPTY_MESSAGE, SUGGESTIONS, message, suggestions
from footnoted.answering.question import Question
from footnoted.models import Evidence

pytestmark = pytest.mark.precision


def _query_at(cosine: float, v: np.ndarray) -> list[float]:
    """A unit vector whose cosine with unit vector ``v`` is exactly ``cosine``."""
    rng = np.random.default_rng(7)
    u = rng.normal(size=v.shape).astype(np.float64)
    u -= u.dot(v) * v
    u /= np.linalg.norm(u)
    q = cosine * v.astype(np.float64) + np.sqrt(1 - cosine**2) * u
    return [float(x) for x in q]


@pytest.fixture
def one_chunk(service: Footnoted, tmp_path: Path) -> tuple[Footnoted, np.ndarray]:
    service.ingest([write(tmp_path / "note.txt", "The office opens at nine in the morning.")])
    (doc,) = service.store.list_documents()
    (chunk,) = service.store.document_chunks(doc.id)
    (stored,) = service.store.fetch_chunks([chunk.id])
    return service, stored.vector.astype(np.float64)


@pytest.mark.parametrize(("cosine", "refused"), [(0.34, True), (0.35, False), (0.36, False)])
def test_evidence_boundary(
    one_chunk: tuple[Footnoted, np.ndarray], cosine: float, refused: bool
) -> None:
    fn, v = one_chunk
    result = fn.answer(Question("When does the office open?", embedding=_query_at(cosine, v)))
    assert result.refused is refused
    if refused:
        assert result.refusal is not None
        assert result.refusal.message == message(result.refusal.evidence)
        assert result.refusal.message.startswith("I couldn't find the answer to that")
        assert "support" not in result.refusal.message and "0.3" not in result.refusal.message
        assert result.refusal.suggestions == SUGGESTIONS
        assert result.refusal.evidence.threshold == 0.35
        assert result.refusal.evidence.max_score == pytest.approx(0.34, abs=1e-5)
    else:
        assert result.answer is not None
        assert result.answer.citations[0].score == pytest.approx(cosine, abs=1e-4)


@pytest.mark.parametrize(("cosine", "refused"), [(0.34, True), (0.36, False)])
def test_a_sentence_as_close_as_the_threshold_lets_its_chunk_through(
    service: Footnoted, tmp_path: Path, cosine: float, refused: bool
) -> None:
    """The gate takes a chunk's closest sentence where that is closer than the chunk: a
    question at ``cosine`` to the chunk's first sentence, further from the chunk."""
    text = (
        "The office opens at nine in the morning. Visitors park free of charge on "
        "weekends. The cafeteria on the second floor serves lunch from noon to two."
    )
    service.ingest([write(tmp_path / "office.txt", text)])
    (doc,) = service.store.list_documents()
    (chunk,) = service.store.document_chunks(doc.id)
    (stored,) = service.store.fetch_chunks([chunk.id])
    assert stored.sentences is not None and len(stored.sentences) == 3
    sentence = stored.sentences[0].astype(np.float64)
    query = _query_at(cosine, sentence / np.linalg.norm(sentence))
    (hit,) = service.retriever.retrieve("When does the office open?", "default", 5, query).hits
    assert hit.score < 0.33  # the chunk alone is further than either threshold
    result = service.answer(Question("When does the office open?", embedding=query))
    ev = result.refusal.evidence if result.refusal else None
    if refused:
        assert ev is not None and ev.reason == "below_threshold"
        assert ev.max_score == pytest.approx(cosine, abs=2e-3)
    else:
        assert ev is None or ev.reason == "no_answer"  # read: the reader decides
        assert result.retrieval.max_score == pytest.approx(cosine, abs=2e-3)


def test_a_question_one_sentence_answers_in_a_chunk_about_more_is_answered(
    samples_service: Footnoted,
) -> None:
    """The handbook's support chunk is about hours and response times; its last sentence
    answers the question word for word."""
    result = samples_service.answer("What is the target first response time for Starter customers?")
    assert result.answer is not None, result.refusal
    assert "24 hours for Starter customers" in result.answer.text
    cited = result.answer.citations[0]
    assert cited.section is not None and cited.section.endswith("Support")
    assert result.retrieval.hits[0].score < 0.35  # the chunk's own cosine would refuse


def test_threshold_comes_from_chat_evidence_threshold(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CHAT_EVIDENCE_THRESHOLD", "0.5")
    assert Settings(home=tmp_path).evidence_threshold == 0.5


def test_empty_knowledge_base_refuses_with_its_own_message(service: Footnoted) -> None:
    result = service.answer("What is the refund policy?")
    assert result.refusal is not None
    assert result.refusal.message == EMPTY_MESSAGE
    assert result.refusal.evidence.max_score is None


def test_a_refusal_says_why_in_words_and_names_a_contact_only_when_one_is_set() -> None:
    below = Evidence(0.12, 0.35, "below_threshold")
    assert message(below) == (
        "I couldn't find the answer to that in the documents: nothing in them comes close to "
        "this question. Try other words, or name the document or section it would be in."
    )
    read = Evidence(0.6, 0.35, "no_answer", 3.2, 0.1)
    assert "none of them answers the question" in message(read)
    unnamed = Evidence(0.6, 0.35, "unnamed", 20.0, 0.9, ("Uber", "2019"))
    assert "don't mention “Uber” or “2019”" in message(unnamed)
    assert "support" not in message(read) and suggestions() == SUGGESTIONS
    helped = message(read, "the IT help desk")
    assert helped.endswith("If it should be there, ask the IT help desk.")
    assert suggestions("the IT help desk") == ("Rephrase your question", "Ask the IT help desk")


def test_unrelated_question_refuses_with_scores(samples_service: Footnoted) -> None:
    result = samples_service.answer("Who won the 1966 football World Cup final?")
    assert result.refusal is not None
    assert result.refusal.message == message(result.refusal.evidence)
    ev = result.refusal.evidence
    assert ev.max_score is not None and ev.max_score < ev.threshold
    assert ev.to_dict()["threshold"] == 0.35


def test_wrong_embedding_dimension_is_invalid_input(samples_service: Footnoted) -> None:
    from footnoted.errors import InvalidInput

    with pytest.raises(InvalidInput) as info:
        samples_service.answer(Question("refunds?", embedding=[0.1, 0.2]))
    assert info.value.code == "embedding_dimension_mismatch"


def test_changed_model_requires_reindex(samples_service: Footnoted) -> None:
    from footnoted.errors import ReindexRequired

    db = samples_service.store.db  # type: ignore[attr-defined]
    db.execute("UPDATE documents SET embedding_model = 'some-older-model'")
    with pytest.raises(ReindexRequired) as info:
        samples_service.answer("What does the Team plan cost?")
    assert info.value.code == "reindex_required"
    assert samples_service.reindex() == 3
    assert not samples_service.answer("What does the Team plan cost?").refused


def test_a_passage_on_topic_that_does_not_answer_refuses_with_the_readers_scores(
    service: Footnoted, tmp_path: Path
) -> None:
    text = (
        "The harbour lighthouse was rebuilt in stone in 1871 after a storm destroyed the "
        "wooden tower. The rebuilt lighthouse, which cost 10,000 pounds, was first lit in 1874."
    )
    service.ingest([write(tmp_path / "lighthouse.txt", text)])
    answered = service.answer("When was the rebuilt harbour lighthouse first lit?")
    assert answered.answer is not None and "1874" in answered.answer.text
    grounding = answered.answer.grounding
    assert grounding is not None and grounding["confidence"] > 0.5
    refused = service.answer("Who painted the harbour lighthouse's lantern room red?")
    assert refused.refusal is not None
    assert refused.refusal.message == message(refused.refusal.evidence)
    ev = refused.refusal.evidence
    assert ev.reason == "no_answer"
    assert ev.max_score is not None and ev.max_score >= ev.threshold
    needed = service.pipeline.reader.calibration().threshold
    assert ev.answer_score is not None and ev.answer_score < needed
    assert ev.to_dict()["reason"] == "no_answer" and "confidence" in ev.to_dict()


def test_the_evidence_score_adds_the_passages_weighted_cosine(
    one_chunk: tuple[Footnoted, np.ndarray],
) -> None:
    """The same question and passage, read the same, score higher the closer the passage
    is to the question: by exactly the calibrated weight times the cosine."""
    fn, v = one_chunk
    cal = fn.pipeline.reader.calibration()
    assert cal.cosine_weight > 0

    def score(cosine: float) -> float:
        result = fn.answer(Question("When does the office open?", embedding=_query_at(cosine, v)))
        if result.refusal is not None:
            got = result.refusal.evidence.answer_score
        else:
            assert result.answer is not None and result.answer.grounding is not None
            got = result.answer.grounding["answer_score"]
        assert got is not None
        return got

    low, high = score(0.4), score(0.9)
    assert high - low == pytest.approx(cal.cosine_weight * 0.5, abs=1e-3)
