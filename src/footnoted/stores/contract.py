"""One contract for every ``Store``: the tests every backend passes, SQLite and PostgreSQL
alike (``tests/test_store_contract.py`` runs them on both).

A new backend runs them too: a test module that star-imports this one and defines the
``open_new`` fixture, a function that opens another ``Store`` over one fresh database
each time it is called (another process's view of it)::

    from footnoted.stores.contract import *  # noqa: F403

    @pytest.fixture
    def open_new(tmp_path): ...

Needs pytest (the ``dev`` extra).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np
import pytest

from footnoted.errors import Cancelled, Conflict, Forbidden, NotFound
from footnoted.models import Chunk, Document, FileBytes, Progress, Retention
from footnoted.records import (
    CLI_ACTOR,
    ORIGINS,
    Actor,
    Feedback,
    NewMessage,
    Origin,
    PendingSignIn,
    RefusalEntry,
)
from footnoted.stores.base import Store, StoredFile, Vector

DIM = 384
OpenStore = Callable[[], Store]


@pytest.fixture
def store(open_new: OpenStore) -> Store:
    return open_new()


def unit(seed: int, near: Vector | None = None, spread: float = 1.0) -> Vector:
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(DIM).astype(np.float32) * spread
    if near is not None:
        v = v + near
    return (v / np.linalg.norm(v)).astype(np.float32)


def document(
    texts: list[str],
    source: str = "a.md",
    collection: str = "default",
    title: str = "Handbook",
    sections: list[str | None] | None = None,
) -> tuple[Document, str, list[Chunk]]:
    text = "\n\n".join(texts)
    digest = hashlib.sha256(f"{collection}\0{source}\0{text}".encode()).hexdigest()[:16]
    chunks, at = [], 0
    for i, t in enumerate(texts):
        section = sections[i] if sections else None
        chunks.append(Chunk(f"{digest}-{i}", digest, i, t, at, at + len(t), i + 1, section, 9))
        at += len(t) + 2
    doc = Document(
        id=digest,
        collection=collection,
        title=title,
        source=source,
        kind="md",
        content_hash=digest,
        size=len(text),
        embedding_model="model-a",
        page_count=len(texts),
    )
    return doc, text, chunks


def save(
    store: Store, texts: list[str], vectors: Vector | None = None, **kw: object
) -> tuple[Document, list[Chunk]]:
    doc, text, chunks = document(texts, **kw)  # type: ignore[arg-type]
    if vectors is None:
        vectors = np.stack(
            [unit(int(hashlib.sha256(t.encode()).hexdigest()[:8], 16)) for t in texts]
        )
    store.save_document(doc, text, chunks, vectors)
    return doc, chunks


# -- documents --------------------------------------------------------------------------


def test_documents_are_saved_listed_and_read_back(store: Store) -> None:
    doc, chunks = save(
        store, ["Refunds take ten days.", "Plans renew yearly."], sections=["A", None]
    )
    other, _ = save(store, ["Other text."], source="b.md", collection="zeta")
    got = store.get_document(doc.id)
    assert (got.title, got.status, got.enabled, got.chunk_count) == ("Handbook", "ready", True, 2)
    assert got.embedding_model == "model-a" and got.page_count == 2 and got.created_at
    assert store.find_document("default", "a.md") == got
    assert store.find_document("default", "missing.md") is None
    assert [d.id for d in store.list_documents("default")] == [doc.id]
    assert {d.id for d in store.list_documents()} == {doc.id, other.id}
    assert store.collections() == ["default", "zeta"]
    assert store.document_text(doc.id) == "Refunds take ten days.\n\nPlans renew yearly."
    assert store.document_text(doc.id, 8, 12) == "take"  # a piece, by character offsets
    assert store.document_text(doc.id, 24) == "Plans renew yearly."
    assert store.document_text(doc.id, 40, 90) == "ly." and store.document_text(doc.id, 99) == ""
    assert store.document_chunks(doc.id) == chunks
    assert store.count_chunks("default") == 2 and store.count_chunks("nowhere") == 0
    assert store.embedding_models("default") == {"model-a"}
    with pytest.raises(NotFound) as missing:
        store.get_document("nope")
    assert missing.value.code == "document_not_found"
    for read in (store.document_text, store.document_chunks, store.delete_document):
        with pytest.raises(NotFound):
            read("nope")


def test_saving_the_same_source_replaces_the_document(store: Store) -> None:
    old, old_chunks = save(store, ["First version of the policy."])
    created = store.get_document(old.id).created_at
    new, new_chunks = save(store, ["Second version.", "With two chunks."])
    assert new.id != old.id
    assert [d.id for d in store.list_documents()] == [new.id]
    assert store.get_document(new.id).created_at == created
    assert store.fetch_chunks([c.id for c in old_chunks]) == []
    assert len(store.fetch_chunks([c.id for c in new_chunks])) == 2
    assert store.count_chunks("default") == 2
    with pytest.raises(NotFound):
        store.get_document(old.id)


def next_version(store: Store, of: Document, texts: list[str]) -> tuple[Document, str, list[Chunk]]:
    """``texts`` saved as the same document (same id and source): a changed file."""
    doc, text, chunks = document(texts, source=of.source, collection=of.collection)
    chunks = [replace(c, document_id=of.id, id=f"{c.id}-{of.id[:4]}") for c in chunks]
    doc = replace(doc, id=of.id)
    store.save_document(doc, text, chunks, np.stack([unit(i + 40) for i in range(len(chunks))]))
    return doc, text, chunks


def test_a_changed_document_is_its_next_version_and_the_earlier_text_is_kept(
    store: Store,
) -> None:
    first, first_chunks = save(store, ["Refunds take ten days.", "Plans renew yearly."])
    assert store.get_document(first.id).version == 1
    _, text, chunks = next_version(store, first, ["Refunds take five days."])
    now = store.get_document(first.id)
    assert (now.version, now.content_hash, now.chunk_count) == (2, chunks[0].id[:16], 1)
    assert [d.id for d in store.list_documents()] == [first.id]
    listed = store.document_versions(first.id)
    assert [(v.version, v.ended_by) for v in listed] == [(2, None), (1, "replaced")]
    old = store.document_version(first.id, 1)
    assert old.text == "Refunds take ten days.\n\nPlans renew yearly."
    assert old.layout == tuple((c.char_start, c.char_end, c.page, c.section) for c in first_chunks)
    assert old.content_hash == first.content_hash and old.ended_at
    assert store.document_version(first.id, 2).text == text
    assert store.fetch_chunks([c.id for c in first_chunks]) == []
    assert store.fetch_chunks([chunks[0].id])[0].document_version == 2
    with pytest.raises(NotFound) as gone:
        store.document_version(first.id, 3)
    assert gone.value.code == "version_not_found"
    # the same content again (re-embedded, reprocessed) is the same version
    store.save_document(now, text, chunks, np.stack([unit(41)]))
    assert store.get_document(first.id).version == 2
    assert [v.version for v in store.document_versions(first.id)] == [2, 1]
    assert store.find_content("default", now.content_hash) == store.get_document(first.id)
    assert store.find_content("default", first.content_hash) is None
    assert store.find_content("zeta", now.content_hash) is None


def test_versions_are_kept_as_the_retention_says_and_outlive_deletion(store: Store) -> None:
    store.retention = Retention(kept=2)
    first, _ = save(store, ["Version one."])
    for n in ("two", "three", "four"):
        next_version(store, first, [f"Version {n}."])
    assert [v.version for v in store.document_versions(first.id)] == [4, 3, 2]
    store.delete_document(first.id)  # the last version is kept for the answers quoting it
    with pytest.raises(NotFound):
        store.get_document(first.id)
    assert store.list_documents() == [] and store.count_chunks("default") == 0
    kept_versions = store.document_versions(first.id)
    assert [(v.version, v.ended_by) for v in kept_versions] == [(4, "deleted"), (3, "replaced")]
    assert store.document_version(first.id, 4).text == "Version four."
    next_version(store, first, ["Version four."])  # deleted, then back as it was
    assert store.get_document(first.id).version == 4
    assert [v.version for v in store.document_versions(first.id)] == [4, 3]
    store.delete_document(first.id)
    again, _ = save(store, ["Version one."])  # other content again: it goes on from 4
    assert again.id == first.id and store.get_document(first.id).version == 5
    store.delete_document(first.id, purge=True)
    with pytest.raises(NotFound):
        store.document_versions(first.id)
    store.retention = Retention(kept=20, days=1e-7)  # 9 ms after they ended
    other, _ = save(store, ["Other one."], source="b.md")
    next_version(store, other, ["Other two."])
    time.sleep(0.05)
    save(store, ["A third document."], source="c.md")  # any save drops the aged ones
    assert [v.version for v in store.document_versions(other.id)] == [2]


def test_the_owner_of_an_answer_citing_a_document_is_known(store: Store) -> None:
    alice, bob = store.create_user("alice"), store.create_user("bob")
    doc, _ = save(store, ["Refunds take ten days."])
    question, answer = reply()
    cited = replace(answer, citations=[{"index": 1, "document_id": doc.id, "version": 1}])
    claim = store.claim_chat(alice.id, "m1", "Refund?", None, "Refund?", "w:1", never_stale)
    store.complete_chat(alice.id, "m1", claim.session_id, (question, cited), {}, None)
    assert store.cites_document(alice.id, doc.id)
    assert not store.cites_document(bob.id, doc.id)
    assert not store.cites_document(alice.id, "0" * 32)
    assert not store.cites_document(alice.id, "%")


def test_disabled_documents_leave_retrieval_at_once(store: Store) -> None:
    vectors = np.stack([unit(1), unit(2)])
    doc, chunks = save(store, ["Refunds take ten days.", "Refunds need a receipt."], vectors)
    assert store.set_enabled(doc.id, False).enabled is False
    assert store.count_chunks("default") == 0
    assert store.dense_search("default", unit(1), 5) == []
    assert store.keyword_search("default", ["refunds"], 5) == []
    assert store.fetch_chunks([c.id for c in chunks]) == []
    assert store.embedding_models("default") == {"model-a"}  # still ready, just hidden
    assert store.set_enabled(doc.id, True).enabled is True
    assert store.dense_search("default", unit(1), 1)[0][0] == chunks[0].id
    with pytest.raises(NotFound):
        store.set_enabled("nope", True)


def uploaded(name: str, data: bytes, title: str | None = None) -> StoredFile:
    return StoredFile(name, "text/markdown", FileBytes.of_bytes(data), title)


def kept(store: Store, document_id: str) -> tuple[str, str, bytes, str | None]:
    """The stored original: name, media type, bytes read back part by part, title."""
    file = store.get_file(document_id)
    assert file is not None
    data = file.content.read()
    assert file.content.size == len(data)
    return file.filename, file.media_type, data, file.title


def test_deleting_a_document_removes_chunks_and_file(store: Store) -> None:
    doc, text, chunks = document(["Uploaded text."])
    store.begin_upload(doc, uploaded("a.md", b"# Uploaded", "Given"))
    store.save_document(doc, text, chunks, np.stack([unit(3)]))
    assert kept(store, doc.id) == ("a.md", "text/markdown", b"# Uploaded", "Given")
    store.delete_document(doc.id)
    assert store.get_file(doc.id) is None
    assert store.fetch_chunks([chunks[0].id]) == []
    assert store.list_documents() == [] and store.collections() == []
    with pytest.raises(NotFound):
        store.delete_document(doc.id)


# -- retrieval --------------------------------------------------------------------------


def test_dense_search_returns_cosine_similarity_best_first(store: Store) -> None:
    texts = [
        "Annual plans are refunded in full within thirty days of purchase.",
        "The office is closed on public holidays.",
        "Passwords must be at least twelve characters long.",
        "Monthly plans can be cancelled at any time.",
    ]
    vectors = np.stack([unit(40 + i) for i in range(len(texts))])
    _, chunks = save(store, texts, vectors)
    save(store, texts, vectors, source="b.md", collection="elsewhere")
    query = unit(49, near=3 * vectors[0])  # closest to the first, then the others
    hits = store.dense_search("default", query, 3)
    assert hits[0][0] == chunks[0].id
    assert len(hits) == 3 and {h[0] for h in hits} <= {c.id for c in chunks}
    expected = {
        c.id: float(np.dot(v, query) / np.linalg.norm(v) / np.linalg.norm(query))
        for c, v in zip(chunks, vectors, strict=True)
    }
    for chunk_id, score in hits:
        assert score == pytest.approx(expected[chunk_id], abs=1e-4)
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    assert store.dense_search("empty", query, 3) == []


def test_filtered_dense_search_still_returns_k_hits(store: Store) -> None:
    """Many closer vectors in another collection and in a disabled document must not
    crowd out the k hits of the searched collection."""
    query = unit(7)
    crowd = np.stack([unit(1000 + i, near=query * 6) for i in range(200)])
    save(store, [f"crowd {i}" for i in range(200)], crowd, collection="crowd")
    hidden, _ = save(
        store,
        [f"hidden {i}" for i in range(100)],
        np.stack([unit(5000 + i, near=query * 6) for i in range(100)]),
        source="hidden.md",
    )
    store.set_enabled(hidden.id, False)
    mine = np.stack([unit(9000 + i, near=query * 0.5) for i in range(40)])
    _, chunks = save(store, [f"mine {i}" for i in range(40)], mine, source="mine.md")
    hits = store.dense_search("default", query, 10)
    assert len(hits) == 10
    assert {h[0] for h in hits} <= {c.id for c in chunks}
    best = sorted(((float(v @ query), c.id) for c, v in zip(chunks, mine, strict=True)))[-10:]
    assert {h[0] for h in hits} == {chunk_id for _, chunk_id in best}


def test_keyword_search_matches_any_term_in_text_title_or_section(store: Store) -> None:
    doc, chunks = save(
        store,
        [
            "Refunds are issued to the original card.",
            "Shipping takes five days.",
            "Nothing relevant here.",
            "Refunds and refunds again: refunds for everyone.",
        ],
        title="Billing guide",
        sections=[None, "Delivery", None, None],
    )
    save(store, ["Refunds elsewhere."], source="b.md", collection="other")
    found = store.keyword_search("default", ["refund", "delivery"], 10)
    assert set(found) == {chunks[0].id, chunks[1].id, chunks[3].id}
    assert set(store.keyword_search("default", ["billing"], 10)) == {c.id for c in chunks}
    assert store.keyword_search("default", ["refunds"], 1) == [chunks[3].id]  # most often
    assert store.keyword_search("default", ["zebra"], 10) == []
    assert store.keyword_search("default", [], 10) == []
    assert store.keyword_search("default", ['quo"te', "it's"], 10) == []
    store.set_enabled(doc.id, False)
    assert store.keyword_search("default", ["refunds"], 10) == []


def test_another_process_sees_document_changes_at_once(open_new: OpenStore) -> None:
    writer, reader = open_new(), open_new()
    assert reader.count_chunks("default") == 0
    doc, chunks = save(writer, ["Refunds take ten days."], np.stack([unit(21)]))
    assert reader.count_chunks("default") == 1
    assert reader.dense_search("default", unit(21), 1)[0][0] == chunks[0].id
    other, _ = save(writer, ["Shipping is free."], np.stack([unit(22)]), source="b.md")
    assert reader.count_chunks("default") == 2
    writer.set_enabled(doc.id, False)
    assert reader.count_chunks("default") == 1
    assert reader.dense_search("default", unit(21), 1)[0][0] != chunks[0].id
    writer.delete_document(other.id)
    assert reader.count_chunks("default") == 0
    assert reader.embedding_models("default") == {"model-a"}  # disabled, still ready


def test_what_a_process_remembers_is_forgotten_when_another_changes_documents(
    open_new: OpenStore,
) -> None:
    writer, reader = open_new(), open_new()
    save(writer, ["Refunds take ten days."], np.stack([unit(31)]))
    assert reader.embedding_models("default") == {"model-a"}
    assert reader.count_chunks("default") == 1
    doc, text, chunks = document(["Refunds need a receipt."], source="b.md")
    writer.save_document(
        replace(doc, embedding_model="model-b"), text, chunks, np.stack([unit(32)])
    )
    assert reader.embedding_models("default") == {"model-a", "model-b"}
    assert reader.count_chunks("default") == 2
    assert len(reader.keyword_search("default", ["receipt"], 5)) == 1


def test_keyword_search_looks_past_better_matches_it_must_hide(store: Store) -> None:
    crowd = [f"Refunds, refunds and more refunds, case {i}." for i in range(12)]
    save(store, crowd, source="other.md", collection="other")
    hidden, _ = save(store, crowd, source="hidden.md")
    store.set_enabled(hidden.id, False)
    _, chunks = save(store, ["A note on refunds for the late parcel."], source="note.md")
    assert store.keyword_search("default", ["refunds"], 1) == [chunks[0].id]
    assert store.keyword_search("default", ["refunds"], 3) == [chunks[0].id]


def test_fetch_chunks_keeps_the_given_order_and_drops_hidden_ones(store: Store) -> None:
    vectors = np.stack([unit(11), unit(12), unit(13)])
    _, chunks = save(store, ["One.", "Two.", "Three."], vectors, title="Numbers")
    hidden, hidden_chunks = save(store, ["Hidden."], source="h.md")
    store.set_enabled(hidden.id, False)
    wanted = [chunks[2].id, "missing", chunks[0].id, hidden_chunks[0].id, chunks[1].id]
    got = store.fetch_chunks(wanted)
    assert [s.chunk.id for s in got] == [chunks[2].id, chunks[0].id, chunks[1].id]
    assert got[0].chunk == chunks[2]
    assert got[0].document_title == "Numbers" and got[0].document_url is None
    assert got[0].vector.dtype == np.float32
    np.testing.assert_allclose(got[0].vector, vectors[2], rtol=1e-6)
    assert store.fetch_chunks([]) == []


def test_sentence_vectors_round_trip_as_float16_and_missing_ones_are_listed(
    store: Store,
) -> None:
    texts = ["Refunds take ten days. Plans renew yearly.", "A heading", "Backups are kept."]
    doc, text, chunks = document(texts)
    vectors = np.stack([unit(21), unit(22), unit(23)])
    sentences = [np.stack([unit(31), unit(32)]), np.zeros((0, DIM), np.float32), unit(33)[None]]
    store.save_document(doc, text, chunks, vectors, sentences)
    old, _ = save(store, ["Stored before sentence vectors were kept."], source="old.md")
    other, _ = save(store, ["Elsewhere."], source="o.md", collection="zeta")
    got = store.fetch_chunks([c.id for c in chunks])
    for stored, want in zip(got, sentences, strict=True):
        assert stored.sentences is not None and stored.sentences.dtype == np.float32
        assert stored.sentences.shape == want.shape
        np.testing.assert_allclose(stored.sentences, want, atol=1e-3)  # float16
    (plain,) = store.fetch_chunks([store.document_chunks(old.id)[0].id])
    assert plain.sentences is None
    assert store.without_sentence_vectors("default") == {old.id}
    assert store.without_sentence_vectors() == {old.id, other.id}
    store.delete_document(old.id)
    assert store.without_sentence_vectors("default") == set()


# -- uploads ----------------------------------------------------------------------------


def test_uploads_move_through_processing_failed_and_ready(open_new: OpenStore) -> None:
    store = open_new()
    doc, text, chunks = document(["Uploaded."], source="up.md")
    file = uploaded("up.md", b"\x00binary\xff" * 300_000)  # three parts of a megabyte
    store.begin_upload(doc, file)
    assert store.get_document(doc.id).status == "processing"
    assert kept(store, doc.id) == ("up.md", "text/markdown", b"\x00binary\xff" * 300_000, None)
    assert store.count_chunks("default") == 0
    failed = store.set_status(doc.id, "failed", "could not parse")
    assert (failed.status, failed.error) == ("failed", "could not parse")
    store.begin_upload(doc, file)  # a retry replaces the failed upload
    assert store.get_document(doc.id).status == "processing"
    second, _, _ = document(["Also uploaded."], source="second.md")
    store.begin_upload(second, file)
    assert open_new().fail_interrupted("interrupted by a restart") == 2
    assert store.get_document(second.id).error == "interrupted by a restart"
    assert store.fail_interrupted("again") == 0
    store.save_document(doc, text, chunks, np.stack([unit(4)]))
    assert store.get_document(doc.id).status == "ready"
    assert kept(store, doc.id)[2] == b"\x00binary\xff" * 300_000  # kept for reprocessing
    with pytest.raises(NotFound):
        store.set_status("nope", "failed", "x")


def test_progress_is_kept_only_while_a_document_is_processing(open_new: OpenStore) -> None:
    store, other = open_new(), open_new()
    doc, text, chunks = document(["Uploaded."], source="up.md")
    file = uploaded("up.md", b"Uploaded.")
    store.begin_upload(doc, file)
    assert store.progress() == {}  # queued: no worker on it yet
    job = store.claim_job(doc.id)
    assert store.set_progress(doc.id, Progress("parsing"), job)
    assert store.set_progress(doc.id, Progress("embedding", 64, 480), job)
    assert other.progress() == {doc.id: Progress("embedding", 64, 480)}  # every process sees it
    store.set_status(doc.id, "failed", "could not parse")
    assert store.progress() == {}
    assert not store.set_progress(doc.id, Progress("saving", 1, 1), job)  # not processing
    assert store.progress() == {}
    store.set_status(doc.id, "processing")  # reprocessed: starts over, queued
    assert store.progress() == {} and not store.job_current(doc.id, job)
    later = store.claim_job(doc.id)
    assert not store.set_progress(doc.id, Progress("embedding", 1, 1), job)  # the old job
    assert store.set_progress(doc.id, Progress("saving", 1, 1), later)
    assert store.progress() == {doc.id: Progress("saving", 1, 1)}
    with pytest.raises(Cancelled):
        store.save_document(doc, text, chunks, np.stack([unit(4)]), job=job)
    store.save_document(doc, text, chunks, np.stack([unit(4)]), job=later)
    assert store.progress() == {} and store.get_document(doc.id).status == "ready"
    second, _, _ = document(["Also uploaded."], source="second.md")
    store.begin_upload(second, file)
    job = store.claim_job(second.id)
    store.set_progress(second.id, Progress("embedding", 0, 3), job)
    store.delete_document(second.id)
    assert not store.set_progress(second.id, Progress("embedding", 3, 3), job)  # too late
    assert store.progress() == {} and not store.job_current(second.id, job)
    with pytest.raises(NotFound):
        store.claim_job(second.id)
    third, _, _ = document(["Third."], source="third.md")
    store.begin_upload(third, file)
    store.set_progress(third.id, Progress("parsing"), store.claim_job(third.id))
    assert other.fail_interrupted("interrupted by a restart") == 1
    assert store.progress() == {}


# -- users, tokens, rate limits ----------------------------------------------------------


def test_users_and_tokens(store: Store) -> None:
    alice = store.create_user("alice")
    admin = store.create_user("root", is_admin=True)
    with pytest.raises(Conflict) as taken:
        store.create_user("alice")
    assert taken.value.code == "user_exists"
    assert store.find_user("alice") == alice and store.find_user("nobody") is None
    assert [u.name for u in store.list_users()] == ["alice", "root"]
    assert admin.is_admin and not alice.is_admin
    store.set_admin(alice.id, True)
    assert store.find_user("alice").is_admin  # type: ignore[union-attr]
    with pytest.raises(NotFound):
        store.set_admin("nope", True)
    store.add_token(alice.id, "hash-1")
    store.add_token(alice.id, "hash-2")
    assert store.authenticate("hash-1") == store.find_user("alice")
    assert store.remove_token("hash-1") is True
    assert store.remove_token("hash-1") is False
    assert store.authenticate("hash-1") is None
    assert store.authenticate("hash-2") is not None


def test_rate_slots_slide_and_hold_across_two_stores(open_new: OpenStore) -> None:
    one, two = open_new(), open_new()
    user = one.create_user("limited").id
    at = 1000.0
    assert one.take_rate_slot(user, "web", 3, 60, at) is None
    assert two.take_rate_slot(user, "web", 3, 60, at + 1) is None
    assert one.take_rate_slot(user, "web", 3, 60, at + 2) is None
    assert two.take_rate_slot(user, "web", 3, 60, at + 10) == pytest.approx(50.0)
    assert one.take_rate_slot(user, "web", 3, 60, at + 20) == pytest.approx(
        40.0
    )  # refusals not counted
    assert one.take_rate_slot("someone-else", "web", 3, 60, at + 20) is None
    assert two.take_rate_slot(user, "web", 3, 60, at + 60.5) is None  # the first slot has expired
    assert one.take_rate_slot(user, "web", 3, 60, at + 60.6) == pytest.approx(0.4)
    assert two.take_rate_slot(user, "token:t1", 3, 60, at + 60.6) is None  # its own bucket


def test_each_client_of_a_user_has_its_own_rate_bucket(open_new: OpenStore) -> None:
    store = open_new()
    user = store.create_user("scripted").id
    for n in range(2):
        assert store.take_rate_slot(user, "token:script", 2, 60, 1000.0 + n) is None
    assert store.take_rate_slot(user, "token:script", 2, 60, 1003.0) == pytest.approx(57.0)
    assert store.take_rate_slot(user, "web", 2, 60, 1003.0) is None  # the web UI still asks
    assert store.take_rate_slot(user, "token:other", 2, 60, 1003.0) is None


def test_concurrent_rate_slots_never_exceed_the_limit(open_new: OpenStore) -> None:
    stores = [open_new(), open_new()]
    user = stores[0].create_user("burst").id
    now = time.time()
    with ThreadPoolExecutor(8) as pool:
        results = list(
            pool.map(lambda i: stores[i % 2].take_rate_slot(user, "web", 5, 60, now), range(24))
        )
    assert sum(r is None for r in results) == 5


# -- chat requests, sessions and messages -------------------------------------------------


def never_stale(owner: str, claimed_at: float) -> bool:
    return False


def always_stale(owner: str, claimed_at: float) -> bool:
    return True


def reply(content: str = "Refunds take ten days [1].") -> tuple[NewMessage, NewMessage]:
    citation = {"index": 1, "chunk_id": "c1", "text": "Refunds take ten days.", "score": 0.8}
    return (
        NewMessage("user", "question", "How long do refunds take?"),
        NewMessage(
            "assistant",
            "answer",
            content,
            [citation],
            [1],
            [{"answer_start": 0, "answer_end": 5, "index": 1}],
            {"supported": 1},
        ),
    )


def test_chat_claims_are_idempotent(open_new: OpenStore) -> None:
    store, other_process = open_new(), open_new()
    user = store.create_user("alice").id
    first = store.claim_chat(user, "m1", "Refund?", None, "Refund?", "w1:1", never_stale)
    assert first.outcome == "new" and first.session_id
    busy = other_process.claim_chat(user, "m1", "Refund?", None, "Refund?", "w2:1", never_stale)
    assert (busy.outcome, busy.session_id) == ("busy", first.session_id)
    mismatch = store.claim_chat(user, "m1", "Other?", None, "Other?", "w2:1", never_stale)
    assert mismatch.outcome == "mismatch"
    payload = {"type": "answer", "answer": "Ten days.", "citations": [{"index": 1}]}
    assert store.complete_chat(user, "m1", first.session_id, reply(), payload, None)
    replay = other_process.claim_chat(user, "m1", "Refund?", None, "x", "w3:1", never_stale)
    assert (replay.outcome, replay.session_id, replay.payload) == (
        "replay",
        first.session_id,
        payload,
    )
    assert [m.role for m in store.session_messages(user, first.session_id)] == ["user", "assistant"]


def test_released_or_stale_claims_can_be_taken_again(store: Store) -> None:
    user = store.create_user("bob").id
    claim = store.claim_chat(user, "m2", "Q?", None, "Q?", "w1:1", never_stale)
    store.release_chat(user, "m2", "someone-else")  # only the owner releases
    assert store.claim_chat(user, "m2", "Q?", None, "Q?", "w2:1", never_stale).outcome == "busy"
    store.release_chat(user, "m2", "w1:1")
    again = store.claim_chat(user, "m2", "Q?", None, "Q?", "w2:1", never_stale)
    assert (again.outcome, again.session_id) == ("new", claim.session_id)
    stolen = store.claim_chat(user, "m2", "Q?", None, "Q?", "w3:1", always_stale)
    assert stolen.outcome == "new"
    assert store.list_sessions(user) == []  # nothing answered yet
    assert (
        store.complete_chat(user, "m2", claim.session_id, reply(), {}, None, lambda: True) is False
    )
    assert store.session_messages(user, claim.session_id) == []
    store.delete_session(user, claim.session_id)
    with pytest.raises(NotFound):
        store.claim_chat(user, "m3", "New?", claim.session_id, "New?", "w1:1", never_stale)


def test_concurrent_duplicate_claims_make_one_owner(open_new: OpenStore) -> None:
    stores = [open_new(), open_new()]
    user = stores[0].create_user("dup").id
    barrier = threading.Barrier(8)

    def claim(i: int) -> str:
        barrier.wait()
        return (
            stores[i % 2].claim_chat(user, "same", "Q?", None, "Q?", f"w{i}", never_stale).outcome
        )

    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(claim, range(8)))
    assert sorted(outcomes) == ["busy"] * 7 + ["new"]


def test_sessions_and_messages_belong_to_their_user(store: Store) -> None:
    alice = store.create_user("alice").id
    bob = store.create_user("bob").id
    a1 = store.claim_chat(alice, "a1", "First?", None, "First?", "w", never_stale).session_id
    store.complete_chat(alice, "a1", a1, reply(), {"n": 1}, None)
    a2 = store.claim_chat(alice, "a2", "Second?", None, "Second?", "w", never_stale).session_id
    store.complete_chat(alice, "a2", a2, reply("Other."), {"n": 2}, None)
    a3 = store.claim_chat(alice, "a3", "More?", a1, "More?", "w", never_stale).session_id
    assert a3 == a1
    store.complete_chat(alice, "a3", a1, reply("Again."), {"n": 3}, None)
    assert [s.id for s in store.list_sessions(alice)] == [a1, a2]  # newest activity first
    assert [s.id for s in store.list_sessions(alice, limit=1, offset=1)] == [a2]
    assert store.get_session(alice, a1).title == "First?"
    messages = store.session_messages(alice, a1)
    assert [m.content for m in messages] == [
        "How long do refunds take?",
        "Refunds take ten days [1].",
        "How long do refunds take?",
        "Again.",
    ]
    question, answer = messages[0], messages[1]
    assert question.citations is None and question.grounding is None
    assert answer.citations == reply()[1].citations and answer.referenced_indices == [1]
    assert answer.spans == reply()[1].spans and answer.grounding == {"supported": 1}
    assert store.list_sessions(bob) == []
    for call in (store.get_session, store.session_messages, store.delete_session):
        with pytest.raises(NotFound) as hidden:
            call(bob, a1)
        assert hidden.value.code == "session_not_found"
    with pytest.raises(NotFound):
        store.claim_chat(bob, "b1", "Mine?", a1, "Mine?", "w", never_stale)
    store.delete_session(alice, a1)
    assert [s.id for s in store.list_sessions(alice)] == [a2]
    with pytest.raises(NotFound):
        store.session_messages(alice, a1)


def test_sessions_remember_where_they_began_and_filter_by_it(store: Store) -> None:
    user = store.create_user("dora").id
    ids: dict[Origin, str] = {}
    for origin in ORIGINS:
        claim = store.claim_chat(user, origin, "Q?", None, "Q?", "w", never_stale, origin)
        store.complete_chat(user, origin, claim.session_id, reply(), {}, None)
        ids[origin] = claim.session_id
    assert store.claim_chat(user, "plain", "Q?", None, "Q?", "w", never_stale).outcome == "new"
    assert [s.origin for s in store.list_sessions(user)] == ["mcp", "v1", "api", "web"]
    for origin, session_id in ids.items():
        assert [s.id for s in store.list_sessions(user, origin=origin)] == [session_id]
        assert store.get_session(user, session_id).to_dict()["origin"] == origin
    more = store.claim_chat(user, "more", "And?", ids["web"], "And?", "w", never_stale, "api")
    store.complete_chat(user, "more", more.session_id, reply(), {}, None)
    assert store.get_session(user, ids["web"]).origin == "web"  # a session keeps its origin
    assert [m.message_id for m in store.session_messages(user, ids["web"])] == [
        "web",
        "web",
        "more",
        "more",
    ]


def test_incomplete_answers_and_refusals_keep_their_details(store: Store) -> None:
    user = store.create_user("carol").id
    session = store.claim_chat(user, "m", "Q?", None, "Q?", "w", never_stale).session_id
    partial = NewMessage("assistant", "answer", "Half an", incomplete=True)
    store.complete_chat(user, "m", session, (reply()[0], partial), {}, None)
    assert [m.incomplete for m in store.session_messages(user, session)] == [False, True]
    shown = {"suggestions": ["Rephrase your question"], "evidence": {"max_score": 0.2}}
    refused = NewMessage("assistant", "refusal", "I don't know.", refusal=shown)
    store.claim_chat(user, "r", "Who?", session, "Who?", "w", never_stale)
    store.complete_chat(user, "r", session, (reply()[0], refused), {}, None)
    assert [m.refusal for m in store.session_messages(user, session)] == [None, None, None, shown]


# -- settings, refusals, secrets -----------------------------------------------------------


def test_collection_settings_round_trip(store: Store) -> None:
    assert store.get_collection_settings("default") == {}
    store.put_collection_settings("default", {"top_k": 7, "enable_rag": False})
    store.put_collection_settings("default", {"top_k": 3})
    assert store.get_collection_settings("default") == {"top_k": 3}
    assert store.get_collection_settings("other") == {}


def test_refusals_are_logged_newest_first(store: Store) -> None:
    user = store.create_user("dana")
    entry = RefusalEntry("Who won?", "default", 0.21, 0.35, "below_threshold")
    store.log_refusal(entry, user.id)
    store.log_refusal(RefusalEntry("Empty?", "other", None, 0.35, "empty"))
    session = store.claim_chat(user.id, "m", "Why?", None, "Why?", "w", never_stale).session_id
    store.complete_chat(
        user.id, "m", session, reply(), {}, RefusalEntry("Why?", "default", 0.1, 0.35, "x")
    )
    logged = store.list_refusals()
    assert [r.question for r in logged] == ["Why?", "Empty?", "Who won?"]
    assert logged[2].user_name == "dana" and logged[1].user_name is None
    assert logged[2].max_score == pytest.approx(0.21) and logged[1].max_score is None
    assert logged[0].id > logged[1].id > logged[2].id and logged[0].created_at
    assert [r.question for r in store.list_refusals(collection="other")] == ["Empty?"]
    assert len(store.list_refusals(limit=1)) == 1


def test_secrets_are_made_once_and_shared(open_new: OpenStore) -> None:
    one, two = open_new(), open_new()
    made: list[str] = []

    def make() -> str:
        made.append("x")
        return f"secret-{len(made)}"

    assert one.secret("link", make) == "secret-1"
    assert two.secret("link", make) == "secret-1"
    assert one.secret("other", make) == "secret-2"
    assert len(made) == 2
    one.set_secret("link", "replaced")  # every process sees the new value
    two.set_secret("fresh", "made")
    assert two.secret("link", make) == "replaced" and one.secret("fresh", make) == "made"
    assert len(made) == 2


# -- account management and its audit log -------------------------------------------------

ADMIN = Actor("api", "root")


def test_tokens_have_ids_kinds_and_a_last_use(store: Store) -> None:
    alice = store.create_user("alice")
    api = store.add_token(alice.id, "hash-api")
    web = store.add_token(alice.id, "hash-web", kind="session")
    assert (api.kind, web.kind) == ("api", "session") and api.id != web.id
    assert api.user_id == alice.id and api.last_used_at is None
    assert [t.id for t in store.list_tokens(alice.id)] == [api.id, web.id]
    assert store.authenticate("hash-api") == alice
    used = {t.id: t.last_used_at for t in store.list_tokens(alice.id)}
    assert used[api.id] is not None and used[web.id] is None
    store.authenticate("hash-api")  # within the minute: not written again
    assert store.list_tokens(alice.id)[0].last_used_at == used[api.id]
    bob = store.create_user("bob")
    store.add_token(bob.id, "hash-bob")
    assert {t.user_id for t in store.list_tokens()} == {alice.id, bob.id}


def test_revoke_and_rotate_take_effect_at_once_in_another_store(open_new: OpenStore) -> None:
    store, other = open_new(), open_new()
    alice, bob = store.create_user("alice"), store.create_user("bob")
    first = store.add_token(alice.id, "h1")
    second = store.add_token(alice.id, "h2")
    with pytest.raises(NotFound) as theirs:
        store.revoke_token(bob.id, first.id, ADMIN)  # not bob's token
    assert theirs.value.code == "token_not_found"
    store.revoke_token(alice.id, first.id, ADMIN)
    assert other.authenticate("h1") is None and other.authenticate("h2") == alice
    new = store.rotate_token(alice.id, second.id, "h3", ADMIN)
    assert new.kind == "api" and new.id != second.id
    assert other.authenticate("h2") is None and other.authenticate("h3") == alice
    web = store.add_token(alice.id, "h4", kind="session")
    with pytest.raises(Conflict) as session:
        store.rotate_token(alice.id, web.id, "h5", ADMIN)
    assert session.value.code == "session_token"
    assert [t.id for t in store.list_tokens(alice.id)] == [new.id, web.id]


def test_promote_demote_and_the_last_admin(store: Store) -> None:
    root = store.create_user("root", is_admin=True)
    alice = store.create_user("alice")
    with pytest.raises(Conflict) as last:
        store.set_admin(root.id, False, ADMIN)
    assert last.value.code == "last_admin"
    with pytest.raises(Conflict):
        store.delete_user(root.id, ADMIN)
    assert store.set_admin(alice.id, True, ADMIN).is_admin
    assert not store.set_admin(root.id, False, ADMIN).is_admin
    assert store.get_user(root.id).is_admin is False
    with pytest.raises(NotFound) as missing:
        store.get_user("nope")
    assert missing.value.code == "user_not_found"


def test_deleting_a_user_deletes_their_data_and_nobody_elses(store: Store) -> None:
    alice, bob = store.create_user("alice"), store.create_user("bob")
    sessions = {}
    for user in (alice, bob):
        store.add_token(user.id, f"hash-{user.name}")
        claim = store.claim_chat(user.id, "m1", "Refund?", None, "Refund?", "w:1", never_stale)
        store.complete_chat(user.id, "m1", claim.session_id, reply(), {"type": "answer"}, None)
        store.claim_chat(user.id, "m2", "Other?", None, "Other?", "w:1", never_stale)
        store.log_refusal(RefusalEntry("Who?", "default", 0.1, 0.35, "no_evidence"), user.id)
        store.take_rate_slot(user.id, "web", 10, 60.0, 1000.0)
        sessions[user.name] = claim.session_id
    gone = store.delete_user(alice.id, ADMIN)
    assert gone["sessions"] == 2 and gone["messages"] == 2 and gone["tokens"] == 1
    assert gone["refusals"] == 1 and gone["chat_requests"] == 2
    assert store.find_user("alice") is None and store.authenticate("hash-alice") is None
    assert store.list_sessions(alice.id) == [] and store.list_tokens(alice.id) == []
    with pytest.raises(NotFound):
        store.session_messages(alice.id, sessions["alice"])
    assert [r.user_name for r in store.list_refusals()] == ["bob"]
    assert len(store.session_messages(bob.id, sessions["bob"])) == 2  # bob keeps his
    assert store.authenticate("hash-bob") == bob
    # the name is free again, with nothing of the old alice
    again = store.create_user("alice")
    assert store.list_sessions(again.id) == [] and again.id != alice.id


def test_every_account_change_is_in_the_audit_log(store: Store) -> None:
    root = store.create_user("root", is_admin=True)  # from the command line
    alice = store.create_user("alice", actor=ADMIN)
    token = store.add_token(alice.id, "h1", actor=ADMIN)
    store.add_token(alice.id, "h-web", kind="session", parent_id=token.id)  # not logged
    store.authenticate("h1")  # a use: not logged
    rotated = store.rotate_token(alice.id, token.id, "h2", ADMIN)
    store.set_admin(alice.id, True, ADMIN)
    store.set_admin(alice.id, True, ADMIN)  # no change: not logged
    store.set_admin(root.id, False, ADMIN)  # the owner steps down itself
    store.revoke_token(alice.id, rotated.id, ADMIN)
    store.delete_user(root.id, Actor("api", "alice"))
    store.audit(Actor("api", "alice"), "document_disabled", "document:d1", {"title": "T"})
    log = store.list_audit()
    assert [(e.action, e.user_name, e.via, e.actor) for e in reversed(log)] == [
        ("user_created", "root", "cli", None),
        ("user_created", "alice", "api", "root"),
        ("token_issued", "alice", "api", "root"),
        ("token_rotated", "alice", "api", "root"),
        ("admin_granted", "alice", "api", "root"),
        ("admin_revoked", "root", "api", "root"),
        ("token_revoked", "alice", "api", "root"),
        ("user_deleted", "root", "api", "alice"),
        ("document_disabled", None, "api", "alice"),
    ]
    assert log[0].target == "document:d1" and log[0].detail == {"title": "T"}
    assert log[1].detail["tokens"] == 0 and log[1].user_id == root.id
    assert log[-1].detail == {"is_admin": True} and log[-1].target is None
    assert log[5].detail == {"token_id": token.id, "new_token_id": rotated.id, "sessions_ended": 1}
    assert [e.action for e in store.list_audit(2)] == ["document_disabled", "user_deleted"]
    assert len(store.list_audit(user_id=alice.id)) == 5


def test_the_owner_is_demoted_or_deleted_only_by_itself(store: Store) -> None:
    root = store.create_user("root", is_admin=True)  # the first admin owns the instance
    bob = store.create_user("bob", is_admin=True, actor=ADMIN)
    assert store.get_user(root.id).is_owner and not bob.is_owner
    for change in (
        lambda: store.set_admin(root.id, False, Actor("api", "bob")),
        lambda: store.delete_user(root.id, Actor("api", "bob")),
    ):
        with pytest.raises(Forbidden) as refused:
            change()
        assert refused.value.code == "owner_protected"
    assert store.get_user(root.id).is_admin and store.get_user(root.id).is_owner
    store.set_admin(root.id, False, Actor("api", "root"))  # by its own hand: ownership passes
    assert not store.get_user(root.id).is_owner and store.get_user(bob.id).is_owner
    store.set_admin(root.id, True, Actor("api", "bob"))
    store.delete_user(bob.id, CLI_ACTOR)  # the command line on the server may do anything
    assert store.get_user(root.id).is_owner


def test_revoking_a_token_ends_the_web_sessions_opened_with_it(store: Store) -> None:
    alice = store.create_user("alice")
    api = store.add_token(alice.id, "h-api")
    store.add_token(alice.id, "h-web", kind="session", parent_id=api.id)
    other = store.add_token(alice.id, "h-other")
    store.add_token(alice.id, "h-web2", kind="session", parent_id=other.id)
    seen = store.authenticate("h-web")
    assert seen is not None and seen.token_id == api.id  # the session speaks for its token
    assert store.token_alive(api.id)
    store.revoke_token(alice.id, api.id, ADMIN)
    assert store.authenticate("h-web") is None and not store.token_alive(api.id)
    assert store.authenticate("h-web2") is not None  # another token's session stays
    assert store.list_audit(1)[0].detail["sessions_ended"] == 1


def test_a_chunk_keeps_its_table_header_and_keyword_search_sees_it(store: Store) -> None:
    doc, text, chunks = document(["Tesla | TSLA | 498.83", "No table here."])
    chunks = [replace(chunks[0], header="Name | Symbol | 52 Week High"),
              replace(chunks[1], header="")]  # fmt: skip
    store.save_document(doc, text, chunks, np.stack([unit(1), unit(2)]))
    got = store.fetch_chunks([c.id for c in chunks])
    assert [s.chunk.header for s in got] == ["Name | Symbol | 52 Week High", ""]
    assert store.document_chunks(doc.id) == chunks
    assert store.keyword_search("default", ["week", "high"], 2) == [chunks[0].id]


# -- feedback ------------------------------------------------------------------------------


def _feedback(user_id: str, message_id: str, **fields: object) -> Feedback:
    base: dict[str, object] = {
        "id": hashlib.sha1(f"{user_id}{message_id}{fields}".encode()).hexdigest(),
        "kind": "unhelpful", "user_id": user_id, "user_name": "alice",
        "message_id": message_id, "session_id": "s1", "collection": "handbook",
        "question": "How long do refunds take?", "answer": "Refunds take ten days [1].",
        "answer_type": "answer", "citation": None, "passage": None, "note": "",
        "correction": None, "created_at": "",
    }  # fmt: skip
    return Feedback(**{**base, **fields})  # type: ignore[arg-type]


def test_the_chat_exchange_is_its_users_and_names_its_collection(store: Store) -> None:
    alice, bob = store.create_user("alice"), store.create_user("bob")
    claim = store.claim_chat(alice.id, "m1", "Refund?", None, "Refund?", "w:1", never_stale)
    store.complete_chat(
        alice.id, "m1", claim.session_id, reply(), {"type": "answer"}, None,
        collection="handbook",
    )  # fmt: skip
    exchange = store.chat_exchange(alice.id, "m1")
    assert exchange.question.content == "How long do refunds take?"
    assert exchange.reply.type == "answer" and exchange.reply.citations
    assert exchange.collection == "handbook" and exchange.reply.session_id == claim.session_id
    for user_id, message_id in ((bob.id, "m1"), (alice.id, "nope")):
        with pytest.raises(NotFound):
            store.chat_exchange(user_id, message_id)


def test_feedback_is_one_word_per_answer_and_source_newest_first(store: Store) -> None:
    alice = store.create_user("alice")
    first = store.save_feedback(_feedback(alice.id, "m1", note="slow"), ADMIN)
    flag = store.save_feedback(
        _feedback(alice.id, "m1", kind="does_not_say", citation=1,
                  passage={"index": 1, "text": "Refunds take ten days."}),
        ADMIN,
    )  # fmt: skip
    other = store.save_feedback(_feedback(alice.id, "m2", collection="other"), ADMIN)
    again = store.save_feedback(_feedback(alice.id, "m1", kind="helpful", note="now fine"), ADMIN)
    assert again.id == first.id and again.kind == "helpful" and again.note == "now fine"
    assert flag.passage == {"index": 1, "text": "Refunds take ten days."} and flag.citation == 1
    listed = store.list_feedback()
    assert [f.id for f in listed] == [again.id, other.id, flag.id]  # newest first
    assert [f.id for f in store.list_feedback(collection="other")] == [other.id]
    assert [f.id for f in store.list_feedback(kind="does_not_say")] == [flag.id]
    resolved = store.resolve_feedback(flag.id, ADMIN, "re-chunked the handbook")
    assert resolved.status == "resolved" and resolved.resolved_by == "root"
    assert resolved.resolution == "re-chunked the handbook" and resolved.resolved_at
    assert [f.id for f in store.list_feedback(status="open")] == [again.id, other.id]
    reopened = store.save_feedback(
        _feedback(alice.id, "m1", kind="wrong_page", citation=1, note="page 4"), ADMIN
    )
    assert reopened.id == flag.id and reopened.status == "open" and reopened.resolution is None
    actions = [(e.action, e.target) for e in store.list_audit(10)]
    assert ("feedback_resolved", f"feedback:{flag.id}") in actions
    assert actions.count(("feedback_given", f"feedback:{first.id}")) == 2
    with pytest.raises(NotFound):
        store.resolve_feedback("missing", ADMIN, "")
    gone = store.delete_user(alice.id, CLI_ACTOR)
    assert gone["feedback"] == 3 and store.list_feedback() == []


# -- sign-in through an identity provider ----------------------------------------------


def test_a_sign_in_under_way_is_taken_once_and_only_while_fresh(store: Store) -> None:
    pending = PendingSignIn("nonce-1", "verifier-1", "/c/abc")
    store.begin_sign_in("state-1", pending, 1000.0)
    store.begin_sign_in("state-2", PendingSignIn("n", "v", "/"), 1000.0)
    assert store.finish_sign_in("state-1", 1010.0) == pending
    assert store.finish_sign_in("state-1", 1011.0) is None  # replayed
    assert store.finish_sign_in("unknown", 1011.0) is None
    assert store.finish_sign_in("state-2", 1000.0 + 601) is None  # too old (and used up)


def test_a_provider_user_is_matched_by_subject_and_its_group_sets_admin(store: Store) -> None:
    root = store.create_user("root", is_admin=True)
    store.create_user("alice@example.com")  # a namesake made with a token
    alice = store.provider_user("sub-a", "alice@example.com", "alice@example.com", None, ADMIN)
    assert alice.name == "alice@example.com (2)" and alice.email == "alice@example.com"
    assert not alice.is_admin
    again = store.provider_user("sub-a", "alice@example.com", "alice@new.example", None, ADMIN)
    assert again.id == alice.id and again.email == "alice@new.example"
    assert store.get_user(alice.id).email == "alice@new.example"
    promoted = store.provider_user("sub-a", "x", "alice@new.example", True, ADMIN)
    assert promoted.is_admin and store.get_user(alice.id).is_admin
    demoted = store.provider_user("sub-a", "x", "alice@new.example", False, ADMIN)
    assert not demoted.is_admin
    actions = [e.action for e in store.list_audit(10, alice.id)]
    assert actions[:3] == ["admin_revoked", "admin_granted", "user_created"]
    bob = store.provider_user("sub-b", "bob@example.com", None, True, ADMIN)
    assert bob.is_admin and not bob.is_owner  # root owns the instance
    store.delete_user(root.id, CLI_ACTOR)
    kept = store.provider_user("sub-b", "bob@example.com", None, False, ADMIN)
    assert kept.is_admin  # the last admin keeps their rights: never locked out


def test_a_provider_session_is_vouched_for_by_one_request_at_a_time(store: Store) -> None:
    alice = store.create_user("alice")
    store.add_token(alice.id, "session-hash", kind="session")
    store.add_token(alice.id, "api-hash")
    assert store.session_vouched("session-hash") is None  # not opened by a provider
    store.vouch_session("session-hash", "refresh-1", 1000.0)
    assert store.session_vouched("session-hash") == ("refresh-1", 1000.0)
    assert store.session_vouched("api-hash") is None
    assert store.claim_vouch("session-hash", 1000.0, 2000.0)
    assert not store.claim_vouch("session-hash", 1000.0, 2000.5)  # another request won
    store.vouch_session("session-hash", "refresh-2", 2001.0)
    assert store.session_vouched("session-hash") == ("refresh-2", 2001.0)
    store.remove_token("session-hash")
    assert store.session_vouched("session-hash") is None
