"""The reader's table-and-text training pairs (scripts/train_reader.py): TAT-QA pages cut
as the product cuts them, answers at their offsets, unanswerable pairs that are."""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conftest import shared, write
from footnoted import Footnoted
from footnoted.evaluation.tatqa import page_markdown

ROOT = Path(__file__).resolve().parents[1]
PAGES = 6


@pytest.fixture(scope="module")
def train_reader() -> ModuleType:
    script = ROOT / "scripts" / "train_reader.py"
    spec = importlib.util.spec_from_file_location("train_reader", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["train_reader"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def pages() -> list[dict[str, Any]]:
    gold = shared("tatqa", "dataset_raw", "tatqa_dataset_test_gold.json")
    return list(json.loads(gold.read_text())[:PAGES])


def test_pages_are_chunked_as_the_product_chunks_them(
    train_reader: ModuleType, pages: list[dict[str, Any]], service: Footnoted, tmp_path: Path
) -> None:
    """The reader trains on the passages it will read: the same texts an ingested page
    is cut into."""
    trained = train_reader.page_chunks(pages)
    for i, page in enumerate(pages):
        write(tmp_path / "docs" / f"page-{i}.md", page_markdown(i + 1, page))
    report = service.ingest([tmp_path / "docs"])
    assert not report.failed, report.failed
    documents = {Path(d.source).name: d for d in service.store.list_documents()}
    for i in range(len(pages)):
        stored = service.store.document_chunks(documents[f"page-{i}.md"].id)
        assert trained[i] == [c.text for c in stored]


def test_pairs_hold_their_answers_and_the_unanswerable_do_not(
    train_reader: ModuleType, pages: list[dict[str, Any]], tmp_path: Path
) -> None:
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(pages))
    pairs = train_reader.tatqa_pairs(path, random.Random(13), tmp_path / "cache")
    asked = {
        q["question"]: q
        for page in pages
        for q in page["questions"]
        if q["answer_type"] in ("span", "multi-span")
    }
    answered = [p for p in pairs if p.answer_start >= 0]
    unanswerable = [p for p in pairs if p.answer_start < 0]
    assert len(answered) >= 0.9 * len(asked)  # nearly every question finds its chunk
    assert len(unanswerable) >= len(answered)
    for pair in answered:
        golds = [str(a).strip() for a in asked[pair.question]["answer"]]
        at, text = pair.answer_start, pair.answer_text
        assert pair.context[at : at + len(text)] == text
        assert golds[0] in text or all(g in text for g in golds)
        assert len(text) <= 200 or text == golds[0]
    swapped = 0
    for pair in unanswerable:
        if pair.question in asked:  # the question against a passage without its answer
            golds = [str(a).strip() for a in asked[pair.question]["answer"]]
            assert not train_reader.holds(golds, pair.context)
        else:  # the question with its year changed, against the passage that answered it
            swapped += 1
            shape = train_reader.YEAR.sub("", pair.question)
            original = next(q for q in asked if train_reader.YEAR.sub("", q) == shape)
            changed = set(train_reader.YEAR.findall(pair.question)) - set(
                train_reader.YEAR.findall(original)
            )
            assert changed and not any(year in pair.context for year in changed)
    assert swapped > 0


def test_distillation_holds_only_the_kept_windows_to_the_teacher(
    train_reader: ModuleType,
) -> None:
    """``--distil``'s term: nothing where the student reads as the teacher does or where
    no window is kept (TAT-QA's, learned anew), more the further apart they read."""
    import torch

    torch.manual_seed(13)
    teacher = torch.randn(4, 24)
    kept = torch.tensor([True, True, False, False])
    assert float(train_reader.held(teacher.clone(), teacher, kept)) == pytest.approx(0, abs=1e-6)
    assert (
        float(train_reader.held(torch.randn(4, 24), teacher, torch.zeros(4, dtype=torch.bool))) == 0
    )
    near = teacher + 0.1 * torch.randn(4, 24)
    far = teacher + 2.0 * torch.randn(4, 24)
    assert (
        0
        < float(train_reader.held(near, teacher, kept))
        < float(train_reader.held(far, teacher, kept))
    )
    # the windows not kept do not count, however far they read
    apart = teacher.clone()
    apart[2:] = -teacher[2:]
    assert float(train_reader.held(apart, teacher, kept)) == pytest.approx(0, abs=1e-6)


def test_a_later_stage_reads_squad2_unanswerable_questions_only(train_reader: ModuleType) -> None:
    """``--squad2 unanswerable``: the adversarial questions of SQuAD 2.0 train's first
    articles alone, each against its own paragraph with no answer; ``all`` adds the
    answerable ones at their offsets."""
    path = shared("squad2-train-10", "train-v2.0-first-10-articles.json")
    everything = train_reader.squad2_pairs(path)
    unanswerable = train_reader.squad2_pairs(path, unanswerable_only=True)
    assert len(everything) == 4719 and len(unanswerable) == 348
    assert all(p.answer_start == -1 and p.answer_text == "" for p in unanswerable)
    assert {(p.question, p.context) for p in unanswerable} == {
        (p.question, p.context) for p in everything if p.answer_start == -1
    }
    answered = [p for p in everything if p.answer_start >= 0]
    assert len(answered) == 4371
    assert all(
        p.context[p.answer_start : p.answer_start + len(p.answer_text)] == p.answer_text
        for p in answered
    )


def test_shared_normalisation_weighs_the_answer_against_all_its_question_windows(
    train_reader: ModuleType,
) -> None:
    """``--shared``'s term: the answer's start against every position of the windows
    read for the same question (their "no answer" position aside); windows of no group,
    and groups without exactly one window holding the answer, add nothing."""
    import torch

    torch.manual_seed(13)
    logits = torch.randn(6, 16)
    targets = torch.tensor([0, 5, 0, 3, 0, 0])
    groups = torch.tensor([4, 4, 4, -1, 9, 9])  # group 9 holds no answer: left out
    spans = logits[:3, 1:].reshape(-1)
    expected = torch.logsumexp(spans, 0) - logits[1, 5]
    loss = train_reader.shared(logits, targets, groups)
    assert float(loss) == pytest.approx(float(expected), rel=1e-6)
    assert float(train_reader.shared(logits, targets, torch.full((6,), -1))) == 0
    # the answer standing out in its own window and above the others' lowers the loss
    apart = logits.clone()
    apart[1, 5] += 10
    assert float(train_reader.shared(apart, targets, groups)) < float(loss)
    # raising another window's span of the same question raises it: the passages compete
    rival = logits.clone()
    rival[0, 7] += 10
    assert float(train_reader.shared(rival, targets, groups)) > float(loss)


def test_a_questions_windows_are_batched_together(train_reader: ModuleType) -> None:
    """With ``--shared`` every window of a question is in one batch (so its term sees
    them all); every window is in exactly one batch either way."""
    sizes = [(40, 0), (90, 0), (60, 0), (30, 1), (120, 1), (50, -1), (70, -1), (80, 2)]
    sizes += [(20 + i, 3 + i // 3) for i in range(30)]
    examples = [([1] * n, 0, 0, True, g) for n, g in sizes]
    for grouped in (False, True):
        plan = train_reader.batches(examples, 4, random.Random(13), grouped)
        assert sorted(id(e) for b in plan for e in b) == sorted(id(e) for e in examples)
        if grouped:
            where = {e[4]: i for i, b in enumerate(plan) for e in b if e[4] >= 0}
            for i, batch in enumerate(plan):
                assert all(where[e[4]] == i for e in batch if e[4] >= 0)
                assert len(batch) < 4 + 3  # filled to the size, a group at most over it


def test_pairs_saved_for_another_machine_are_read_back_the_same(
    train_reader: ModuleType, pages: list[dict[str, Any]], tmp_path: Path
) -> None:
    """``--save-pairs`` writes what ``--pairs`` trains on elsewhere (a GPU without the
    data): the same pairs, each passage and question written once."""
    import lzma

    path = tmp_path / "gold.json"
    path.write_text(json.dumps(pages))
    pairs = train_reader.tatqa_pairs(path, random.Random(13), tmp_path / "cache")
    pairs = [train_reader.replace(p, kept=False) for p in pairs]
    pairs.append(train_reader.Pair("Who?", pairs[0].context, -1, "", True, 7))
    saved = tmp_path / "pairs.json.xz"
    train_reader.save_pairs(pairs, saved)
    assert train_reader.load_pairs(saved) == pairs
    with lzma.open(saved, "rt") as f:
        texts = json.load(f)["texts"]
    assert len(texts) == len(set(texts)) == len({t for p in pairs for t in (p.question, p.context)})
