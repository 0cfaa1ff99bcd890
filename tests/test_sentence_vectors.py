"""Sentence vectors: made in their chunk's own embedding pass, stored, scored, reindexed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from footnoted import Footnoted, Settings
from footnoted.inference.embedding import SentenceTransformerEmbedder, get_embedder, pool_spans
from footnoted.ingest.ingest import Parts, embedding_texts
from footnoted.lexical import chunk_sentences

pytestmark = pytest.mark.precision

HANDBOOK = (
    "# Handbook\n\n"
    "Refunds for annual plans are prorated to the day. Backups are kept for thirty days "
    "in a second region. Support answers within one working day.\n"
)


@pytest.fixture(scope="module")
def embedder() -> SentenceTransformerEmbedder:
    """fp32, whatever the CPU: the library check below compares against fp32 encode."""
    return get_embedder(Settings(embedding_precision="fp32"))


def test_span_pooling_averages_the_tokens_inside_and_skips_special_ones() -> None:
    tokens = np.array([[9, 9], [1, 0], [3, 0], [0, 2], [9, 9]], dtype=np.float32)
    offsets = np.array([[0, 0], [0, 4], [5, 8], [9, 12], [0, 0]])  # [CLS] … [SEP]
    whole = np.array([0.6, 0.8], dtype=np.float32)
    pooled = pool_spans(tokens, offsets, [(0, 8), (9, 12), (20, 30), (3, 12)], whole)
    np.testing.assert_allclose(pooled[0], [1.0, 0.0])  # mean (2, 0), normalised
    np.testing.assert_allclose(pooled[1], [0.0, 1.0])
    np.testing.assert_allclose(pooled[2], whole)  # no whole token inside: the text's vector
    np.testing.assert_allclose(pooled[3], np.array([3, 2]) / np.hypot(3, 2), rtol=1e-6)


def test_one_pass_gives_the_library_vector_and_a_vector_per_sentence(
    embedder: SentenceTransformerEmbedder,
) -> None:
    texts = [
        "Handbook\nRefunds for annual plans are prorated. Backups are kept for thirty days.",
        "Only a title",
        "Long\n" + "word " * 400 + "The end.",
    ]
    spans = [[(9, 47), (48, 82)], [], [(5, 15), (2005, 2013)]]
    vectors, sentences = embedder.embed_passages(texts, spans)
    from sentence_transformers import SentenceTransformer

    library = SentenceTransformer(embedder.path, device="cpu").encode(
        texts, normalize_embeddings=True
    )  # the library itself, which footnoted does not load
    assert float(np.min(np.sum(vectors * library, axis=1))) > 0.9999
    assert [s.shape for s in sentences] == [(2, 384), (0, 384), (2, 384)]
    np.testing.assert_allclose(np.linalg.norm(sentences[0], axis=1), 1.0, rtol=1e-5)
    question = embedder.embed(["How long are backups kept?"])[0]
    refunds, backups = sentences[0] @ question
    assert backups > refunds + 0.2
    # a sentence past the 256-token limit takes its text's vector
    assert float(sentences[2][0] @ vectors[2]) < 0.99
    np.testing.assert_allclose(sentences[2][1], vectors[2], rtol=1e-6)


def test_ingest_stores_them_retrieval_scores_them_and_reindex_fills_old_chunks(
    tmp_path: Path,
) -> None:
    (tmp_path / "handbook.md").write_text(HANDBOOK, encoding="utf-8")
    with Footnoted(Settings(home=tmp_path / "home")) as fn:
        fn.ingest([tmp_path / "handbook.md"])
        (doc,) = fn.store.list_documents()
        chunks = fn.store.document_chunks(doc.id)
        (stored,) = fn.store.fetch_chunks([c.id for c in chunks])
        spans = chunk_sentences(stored.chunk.text)

        def text_of(start: int, end: int) -> str:
            return stored.chunk.text[start:end]

        assert stored.sentences is not None and len(stored.sentences) == len(spans) == 4
        backups = next(i for i, (s, e, _) in enumerate(spans) if "Backups" in text_of(s, e))
        (text,) = embedding_texts(Parts(doc.title, fn.store.document_text(doc.id), chunks))
        shift = len(text) - len(stored.chunk.text)
        _, (fresh,) = fn.embedder.embed_passages(  # the service's own precision
            [text], [[(shift + s, shift + e) for s, e, _ in spans]]
        )
        assert float(np.min(np.sum(fresh * stored.sentences, axis=1))) > 0.999  # float16

        retrieval = fn.retriever.retrieve("How long are backups kept?", "default", 3)
        (hit,) = retrieval.hits
        assert len(hit.sentence_scores) == 4
        assert max(range(4), key=hit.sentence_scores.__getitem__) == backups

        # a document stored before sentence vectors were kept: scored by its chunk's cosine
        fn.store.save_document(
            doc, fn.store.document_text(doc.id), chunks, np.stack([stored.vector])
        )
        assert fn.store.without_sentence_vectors() == {doc.id}
        (old,) = fn.retriever.retrieve("How long are backups kept?", "default", 3).hits
        assert old.sentence_scores == () and old.sentence_score(backups) == old.score
        assert fn.reindex() == 1
        assert fn.store.without_sentence_vectors() == set()
        (again,) = fn.retriever.retrieve("How long are backups kept?", "default", 3).hits
        np.testing.assert_allclose(again.sentence_scores, hit.sentence_scores, atol=1e-6)


def test_batches_grouped_by_tokens_give_each_text_its_own_vectors() -> None:
    """Texts go into batches by their number of tokens, which characters misjudge (a row
    of figures is short in characters and long in tokens): every text and sentence gets
    the vectors it gets alone, whatever padding its batch needed."""
    embedder = SentenceTransformerEmbedder(
        Settings(embedding_precision="fp32", embedding_batch_size=2)
    )
    texts = [
        "Revenue\n2021 | 3,208,323 | 2,364,681 | 3,615,960 | 1.2% | (4,009) | 0.35 | 17,412",
        "Refunds for annual plans are prorated to the day. Backups are kept for thirty days.",
        "Support answers within one working day.",
        "Long\n" + "word " * 300,
        "Costs\n12.5 | 7.25 | 3.125 | 99.99 | 0.01",
    ]
    spans = [[(8, 30)], [(0, 48), (49, 83)], [(0, 39)], [(5, 30)], [(6, 20)]]
    tokens = embedder.count_tokens(texts)
    assert tokens[0] > tokens[1] and len(texts[0]) < len(texts[1])  # the order differs
    vectors, sentences = embedder.embed_passages(texts, spans)
    for i, (text, own) in enumerate(zip(texts, spans, strict=True)):
        alone, alone_sentences = embedder.embed_passages([text], [own])
        np.testing.assert_allclose(vectors[i], alone[0], atol=2e-5)
        np.testing.assert_allclose(sentences[i], alone_sentences[0], atol=2e-5)
