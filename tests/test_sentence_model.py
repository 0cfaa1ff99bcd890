"""A sentence-transformers folder run by transformers alone gives the library's vectors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import shared
from footnoted.errors import ModelUnavailable
from footnoted.evaluation.datasets import read_squad
from footnoted.inference.embedding import SentenceTransformerEmbedder, resolve_model_path
from footnoted.inference.reader import MAX_LEN
from footnoted.inference.sentence_model import ModelConfig, load_tokenizer
from footnoted.settings import DEFAULT_MODEL, Settings

TEXTS = ["Refunds for annual plans are prorated.", "Backups are kept for 30 days.", "x"]


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    """A copy of the packaged model folder, to be changed by a test."""
    target = tmp_path / "model"
    shutil.copytree(resolve_model_path(DEFAULT_MODEL), target)
    return target


def _edit(path: Path, **changes: object) -> None:
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data))


def test_the_packaged_model_is_mean_pooled_over_256_tokens() -> None:
    config = ModelConfig.read(Path(resolve_model_path(DEFAULT_MODEL)))
    assert config == ModelConfig(dim=384, max_tokens=256, cls_pooling=False)


def test_cls_pooling_gives_the_library_vectors(folder: Path, tmp_path: Path) -> None:
    from sentence_transformers import SentenceTransformer

    _edit(folder / "1_Pooling" / "config.json", pooling_mode_mean_tokens=False,
          pooling_mode_cls_token=True)  # fmt: skip
    settings = Settings(home=tmp_path, embedding_model=str(folder), embedding_precision="fp32",
                        model_cache=tmp_path / "cache")  # fmt: skip
    embedder = SentenceTransformerEmbedder(settings)
    assert embedder.config.cls_pooling
    ours = embedder.embed(TEXTS)
    library = SentenceTransformer(str(folder), device="cpu").encode(TEXTS)  # Normalize module
    assert float(np.min(np.sum(ours * library, axis=1))) > 0.9999
    alone = embedder.embed([TEXTS[0]])[0]  # one text runs the ONNX export, pooled the same way
    assert float(alone @ library[0]) > 0.9999


def test_a_folder_without_modules_is_a_mean_pooled_transformer(folder: Path) -> None:
    (folder / "modules.json").unlink()
    (folder / "sentence_bert_config.json").unlink()
    assert ModelConfig.read(folder) == ModelConfig(dim=384, max_tokens=256, cls_pooling=False)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("dense", "has a Dense module"),
        ("max pooling", "pools by pooling_mode_max_tokens"),
        ("lower case", "lower-cases its input"),
    ],
)
def test_what_footnoted_cannot_run_is_refused_by_name(
    folder: Path, change: str, message: str
) -> None:
    if change == "dense":
        modules = json.loads((folder / "modules.json").read_text())
        modules.append({"idx": 3, "name": "3", "path": "3_Dense",
                        "type": "sentence_transformers.models.Dense"})  # fmt: skip
        (folder / "modules.json").write_text(json.dumps(modules))
    elif change == "max pooling":
        _edit(folder / "1_Pooling" / "config.json", pooling_mode_mean_tokens=False,
              pooling_mode_max_tokens=True)  # fmt: skip
    else:
        _edit(folder / "sentence_bert_config.json", do_lower_case=True)
    with pytest.raises(ModelUnavailable, match=message):
        ModelConfig.read(folder)


def _encodings(tokenizer: Any, questions: list[str], passages: list[str]) -> list[Any]:
    """What footnoted asks of a tokenizer: texts with offsets (ingestion, questions),
    and question-passage windows (the reader)."""
    texts = tokenizer(passages, truncation=True, max_length=256, return_offsets_mapping=True)
    windows = tokenizer(
        questions, passages, truncation="only_second", max_length=MAX_LEN, stride=64,
        return_overflowing_tokens=True, return_offsets_mapping=True, padding=True,
        pad_to_multiple_of=16,
    )  # fmt: skip
    sequences = [windows.sequence_ids(w) for w in range(len(windows["input_ids"]))]
    keys = ("input_ids", "attention_mask", "offset_mapping")
    return [
        {k: texts[k] for k in keys},
        {k: windows[k] for k in (*keys, "overflow_to_sample_mapping")},
        sequences,
    ]


def test_the_tokenizer_reads_tokenizer_json_as_the_library_resolves_the_folder(
    folder: Path,
) -> None:
    """``load_tokenizer`` reads ``tokenizer.json`` directly (no class lookup, no PyTorch
    import) and gives what transformers' ``AutoTokenizer`` gives, on real paragraphs and
    questions; a folder without ``tokenizer.json`` is read by ``AutoTokenizer``."""
    from transformers import AutoTokenizer

    articles = read_squad(shared("squad2", "dev-16-articles.json"), 2)
    pairs = [(q.question, q.paragraph) for a in articles for q in a.questions][::7]
    pairs += [("Wie viel kostet es?", "Ünïcödé café — “quotes” 東京 😀\ttabs\nand $ | (1,009,359)")]
    questions, passages = [q for q, _ in pairs], [p for _, p in pairs]
    library = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    ours = load_tokenizer(str(folder))
    assert type(ours._tokenizer).__name__ != type(library).__name__  # not resolved by class
    want = _encodings(library, questions, passages)
    assert _encodings(ours, questions, passages) == want
    (folder / "tokenizer.json").unlink()
    assert _encodings(load_tokenizer(str(folder)), questions, passages) == want
