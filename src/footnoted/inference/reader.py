"""The reader: does a passage answer the question, and with which span?

An extractive question-answering model (the packaged all-MiniLM-L6-v2 encoder with a
span head, trained by ``scripts/train_reader.py`` on SQuAD) reads the question with
each retrieved passage and scores every span of the passage against "no answer" (the
[CLS] position), as SQuAD 2.0 readers do. Its trained layers ship in the package
(``data/reader.safetensors``); the frozen embeddings come from the packaged encoder.
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import math
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import ModelUnavailable
from ..lexical import CELLS, split_sentences
from ..settings import DEFAULT_MODEL, Settings
from . import sentence_model
from .embedding import SAMPLE, resolve_model_path
from .onnx import cached_export, export_module, onnx_is_faster, onnx_path, session
from .runtime import cpu_has_native_int8, float_precision, model_threads, pytorch
from .sentence_model import PAD_TO

log = logging.getLogger(__name__)

MAX_LEN = 192  # question and passage window, in tokens
QUESTION_TOKENS = 48  # a longer question is cut to this many tokens (Reader._asked)
LEAD_TOKENS = 64  # a leading sentence read with the question is cut to this many tokens
# readings kept (``Reader.read``): a question's passes over its passages (its bridges, its
# second hops) read some of them again with the same words in front
READINGS_KEPT = 4096


@cache
def load_tokenizer() -> sentence_model.SharedTokenizer:
    return sentence_model.load_tokenizer(resolve_model_path(DEFAULT_MODEL))


Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float32]
NONE = np.float32(-1e4)  # the logit of what cannot be a span's start or end
MAX_SPAN = 30  # longest answer span, in tokens
# One more model call costs about what 32 more tokens in a batch do (bf16, one thread:
# 2.7 ms for a call over 8 tokens, 12 ms over 135, 57 ms for five windows of 135).
CALL_TOKENS = 32
DATA = Path(__file__).resolve().parent.parent / "data"  # the package's data folder
WEIGHTS = DATA / "reader.safetensors"
CONFIG = DATA / "reader.json"


@dataclass(frozen=True, slots=True)
class Reading:
    """What the reader found in one passage.

    ``score`` is the best span's start + end logit less the no-answer logits (above the
    calibrated threshold: the reader believes the passage answers); ``start``/``end``
    are the span's character offsets in the passage (end exclusive)."""

    score: float
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Calibration:
    """How a passage's evidence is scored, the threshold an answer needs, and the logistic
    map from that score to a probability of being right.

    A passage's evidence score is the reader's span score plus ``cosine_weight`` times
    the passage's cosine similarity to the question: the reader judges whether the
    passage answers, the cosine how closely it is about the question (at the same share
    of answerable questions answered, SQuAD 2.0 dev and NQ-open refuse more off-topic and
    unanswerable questions with both than with the reader's score alone)."""

    threshold: float
    slope: float
    intercept: float
    cosine_weight: float

    def evidence(self, score: float, cosine: float) -> float:
        return score + self.cosine_weight * cosine

    def confidence(self, score: float) -> float:
        return 1.0 / (1.0 + math.exp(-(self.slope * score + self.intercept)))


def calibrated_as(runtime: str) -> str:
    """The calibration a runtime's scores take: int8 reads its own numbers; bf16 and fp32
    read alike (the same SQuAD 2.0 slice scores, to the digit, where the CPU computes
    bf16 natively; one span of the slice's 208 otherwise where bf16 is emulated)."""
    return "int8" if runtime == "int8" else "float"


@cache
def calibration(runtime: str, threshold: float | None = None) -> Calibration:
    """The shipped calibration of ``runtime``'s scores (``Reader.runtime``); ``threshold``
    (``FOOTNOTED_READER_THRESHOLD``) replaces its threshold when set."""
    data = json.loads(CONFIG.read_text()).get("calibration", {}).get(calibrated_as(runtime))
    if data is None:
        message = f"{CONFIG} has no calibration for {runtime}: run scripts/calibrate_reader.py"
        raise ModelUnavailable(message)
    chosen = data["threshold"] if threshold is None else threshold
    return Calibration(chosen, data["slope"], data["intercept"], data["cosine_weight"])


class Reader:
    """The shipped reader. Where the CPU multiplies int8 natively (``cpu_has_native_int8``)
    it runs in ONNX Runtime with int8 weights (dynamic quantisation, per channel, made
    from the shipped weights on first use): on a 2-core AMD EPYC with AVX512-VNNI, one
    thread read five chunks in 0.65 of bf16 PyTorch's time, with the same SQuAD 2.0 dev
    scores. int8 activations are scaled per call, so each window is read alone: a
    passage reads the same whatever else is read. Elsewhere it runs at the embedder's
    precision: bf16 weights in PyTorch, or fp32 in ONNX Runtime where that is the faster
    on this CPU (``onnx_is_faster``; the same logits, to 1e-5: on a 2-core AMD EPYC in
    0.6 of PyTorch's time, 54 ms instead of 92 over five passages). An export that fails
    leaves PyTorch.

    In ONNX Runtime a question's windows are read alone and side by side, one thread
    each, by a pool with a thread per CPU core (``_windows``): on 2 cores a lone
    question's five passages read in 0.65 of one thread's time in int8 (0.73 of one
    session on two threads) and 0.66 in fp32 (against its windows in one batch), the
    same readings; questions read at once share the pool. PyTorch reads them in batches
    of similar length (``length_groups``)."""

    def __init__(self, precision: str, cache: Path, *, int8: bool | None = None) -> None:
        """``int8``: run in int8 or not (None: where the CPU multiplies int8 natively;
        ``Settings.reader_runtime``). Each runtime has its own calibration."""
        if not WEIGHTS.exists():
            raise ModelUnavailable(f"The reader's weights are missing: {WEIGHTS}")
        self.tokenizer = load_tokenizer()
        self.bf16 = float_precision(precision) == "bf16"
        self._model: Any = None  # PyTorch's, loaded on first use (``model``)
        self._model_lock = threading.Lock()
        self.runtime = "bf16" if self.bf16 else "fp32"  # what reads: int8, bf16 or fp32
        self._onnx: Any = None
        self._windows: ThreadPoolExecutor | None = None  # ONNX: reads windows side by side
        self._kept: OrderedDict[bytes, Reading] = OrderedDict()  # ``read``'s latest readings
        self._kept_lock = threading.Lock()
        if cpu_has_native_int8() if int8 is None else int8:
            self._onnx = self._load_onnx(cache, "int8")
        elif not self.bf16:
            self._onnx = self._load_onnx(cache, "fp32")

    def calibration(self, threshold: float | None = None) -> Calibration:
        """The shipped calibration of this reader's scores (see ``calibration``)."""
        return calibration(self.runtime, threshold)

    @property
    def model(self) -> Any:
        """The reader in PyTorch (``reader_model``), bf16 or fp32, loaded on first use:
        where ONNX Runtime reads and its export is cached, it is never loaded, and
        neither PyTorch nor the encoder's modelling code is imported (a question asked
        from the command line starts seconds sooner)."""
        if self._model is None:
            with self._model_lock:
                if self._model is None:
                    pytorch()
                    from . import reader_model

                    self._model = reader_model.load(WEIGHTS, self.bf16)
        return self._model

    def _load_onnx(self, cache: Path, runtime: str) -> Any:
        # named after the reader's weights, the encoder's (its frozen embeddings) and how
        # it is exported: windows are read alone, unpadded (``without_attention_mask``)
        encoder = onnx_path(resolve_model_path(DEFAULT_MODEL), cache, "fp32").stem
        named = WEIGHTS.read_bytes() + encoder.encode() + b"unpadded"
        digest = hashlib.sha256(named).hexdigest()[:12]
        int8 = runtime == "int8"

        def make(target: Path) -> None:
            sample = self.tokenizer(["a question"], ["a passage"], return_tensors="pt")
            args = (sample["input_ids"], sample["attention_mask"])
            model = copy.deepcopy(self.model).float() if self.bf16 else self.model  # fp32 weights
            export_module(
                model, args, ("ids", "mask"), ("start", "end"), target, int8, unpadded=True
            )

        try:
            path = cached_export(cache / f"reader-{digest}-{runtime}.onnx", make)
            onnx = session(path, 1)  # a window a thread
        except Exception as exc:
            log.warning("the reader runs in PyTorch: ONNX export failed (%s)", exc)
            return None
        windows = ThreadPoolExecutor(os.cpu_count() or 1, thread_name_prefix="footnoted-reader")
        if int8:
            self.runtime = runtime
            self._windows = windows
            return onnx
        five = self.tokenizer(["When is an answer refused?"] * 5, [SAMPLE] * 5, return_tensors="np")
        ids, mask = five["input_ids"], five["attention_mask"]

        def in_torch() -> object:  # loads the model on its first run (of three; median)
            return self._in_torch(ids, mask)

        def in_onnx() -> object:
            feeds = [{"ids": ids[i : i + 1], "mask": mask[i : i + 1]} for i in range(5)]
            return list(windows.map(lambda f: onnx.run(None, f), feeds))

        if onnx_is_faster(path, model_threads(), in_torch, in_onnx):
            self._windows = windows
            return onnx
        windows.shutdown()
        return None

    def _logits(self, ids: Ints, mask: Ints) -> tuple[Floats, Floats]:
        if self._onnx is not None:
            start, end = self._onnx.run(None, {"ids": ids, "mask": mask})
            return start, end
        return self._in_torch(ids, mask)

    def _in_torch(self, ids: Ints, mask: Ints) -> tuple[Floats, Floats]:
        import torch

        with torch.inference_mode():
            start, end = self.model(torch.from_numpy(ids), torch.from_numpy(mask))
        return start.float().numpy(), end.float().numpy()

    def _batched_logits(self, ids: Ints, mask: Ints) -> tuple[Floats, Floats]:
        """Every window's logits: in ONNX Runtime each window alone and unpadded, side by
        side on the pool's threads; in PyTorch in batches of similar length
        (``length_groups``), each padded only to its own longest, rounded up to ``PAD_TO``."""
        start = np.full(ids.shape, NONE)
        end = np.full(ids.shape, NONE)
        lengths = mask.sum(axis=1).tolist()
        alone = self._onnx is not None
        if alone:
            groups, widths = [[i] for i in range(len(lengths))], lengths
        else:
            groups = length_groups(lengths)
            widths = [-(-lengths[g[0]] // PAD_TO) * PAD_TO for g in groups]

        def run(group: list[int], width: int) -> tuple[Floats, Floats]:
            return self._logits(ids[group, :width], mask[group, :width])

        pool = self._windows if alone else None  # (None: one after the other)
        logits = pool.map(run, groups, widths) if pool is not None else map(run, groups, widths)
        for group, width, (s, e) in zip(groups, widths, logits, strict=True):
            start[group, :width] = s
            end[group, :width] = e
        return start, end

    def _asked(self, question: str) -> str:
        """The question as the reader reads it: whole when it fits ``QUESTION_TOKENS``.
        A longer one that sets out a situation and asks last ("My nephew has lived with
        us for two years… How long will it be before I hear back from the court?": only
        its last sentence asks) is read as that last sentence, cut to fit; any other (a
        follow-up read with the question before it, a long single question) as its first
        ``QUESTION_TOKENS`` tokens. On ConditionalQA's train questions the last sentence
        alone read better than the last sentences that fit (69.7% refused against 80.6%;
        the gold held 15.5% against 7.3%): the reader learned from SQuAD's one-sentence
        questions."""
        if self._count(question) <= QUESTION_TOKENS:
            return question
        sentences = [question[s:e] for s, e in split_sentences(question)]
        asks_last = len(sentences) > 1 and sentences[-1].rstrip().endswith("?")
        if asks_last and not any("?" in s for s in sentences[:-1]):
            return self._cut(sentences[-1], QUESTION_TOKENS)
        return self._cut(question, QUESTION_TOKENS)

    def _count(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def _cut(self, text: str, tokens: int) -> str:
        """``text`` cut to its first ``tokens`` tokens."""
        encoded = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        offsets = encoded["offset_mapping"]
        if len(offsets) <= tokens:
            return text
        return text[: offsets[tokens - 1][1]]

    def read(self, question: str, passages: Sequence[str], lead: str = "") -> list[Reading]:
        """One reading per passage, all windows of all passages in one batch. ``lead``, a
        sentence of another passage that names the passages' subject (the first hop of a
        two-hop question), is read after the question, so the reader finds the answer in
        the passages knowing what the question's description stands for: "What was the
        father of Kasper Schmeichel voted to be ...?" read with "... Kasper Schmeichel is
        the son of Peter Schmeichel" in front of Peter Schmeichel's passage.

        A passage read again with the same words in front (a question's bridges and second
        hops read some passages twice; a question asked again) is not read again: its last
        :data:`READINGS_KEPT` readings are kept."""
        if not passages:
            return []
        first = self._asked(question)
        if lead:
            first = f"{first} {self._cut(lead, LEAD_TOKENS)}"
        keys = [
            hashlib.blake2b(f"{first}\0{p}".encode(), digest_size=16).digest() for p in passages
        ]
        with self._kept_lock:
            kept = [self._kept.get(k) for k in keys]
        new = [i for i, r in enumerate(kept) if r is None]
        if new:
            readings = self._read(first, [passages[i] for i in new])
            with self._kept_lock:
                for i, reading in zip(new, readings, strict=True):
                    kept[i] = self._kept[keys[i]] = reading
                while len(self._kept) > READINGS_KEPT:
                    self._kept.popitem(last=False)
        return [r for r in kept if r is not None]

    def forget(self) -> None:
        """Drop the kept readings: the next ``read`` reads every passage anew."""
        with self._kept_lock:
            self._kept.clear()

    def _read(self, first: str, passages: Sequence[str]) -> list[Reading]:
        """One reading per passage, read after ``first`` (the question and any lead)."""
        enc = self.tokenizer(
            [first] * len(passages),
            list(passages),
            truncation="only_second",
            max_length=MAX_LEN,
            stride=64,
            return_overflowing_tokens=True,
            return_offsets_mapping=True,
            padding=True,
            pad_to_multiple_of=PAD_TO,
            return_tensors="np",
        )
        start_logits, end_logits = self._batched_logits(enc["input_ids"], enc["attention_mask"])
        best: dict[int, Reading] = {}
        owners = enc["overflow_to_sample_mapping"].tolist()
        for w, owner in enumerate(owners):
            reading = _best_span(
                start_logits[w], end_logits[w], enc.sequence_ids(w), enc["offset_mapping"][w]
            )
            if owner not in best or reading.score > best[owner].score:
                best[owner] = reading
        return [tidy(best[i], passages[i]) for i in range(len(passages))]


def length_groups(lengths: Sequence[int]) -> list[list[int]]:
    """Window indices, longest first, cut into batches: a window starts a new batch when
    padding it and the shorter ones after it to the batch's longest would cost more
    tokens than one more model call (``CALL_TOKENS``)."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    groups: list[list[int]] = []
    for rank, i in enumerate(order):
        if not groups or (len(order) - rank) * (lengths[groups[-1][0]] - lengths[i]) > CALL_TOKENS:
            groups.append([i])
        else:
            groups[-1].append(i)
    return groups


def _best_span(start: Floats, end: Floats, sequence: list[int | None], offsets: Ints) -> Reading:
    context = np.array([s == 1 for s in sequence])
    if not context.any():
        return Reading(-math.inf, 0, 0)
    s = np.where(context, start, NONE)
    e = np.where(context, end, NONE)
    pair = np.where(_band(len(sequence)), s[:, None] + e[None, :], NONE)
    flat = int(np.argmax(pair))
    i, j = divmod(flat, pair.shape[1])
    null = float(start[0] + end[0])
    return Reading(float(pair[i, j]) - null, int(offsets[i][0]), int(offsets[j][1]))


@cache
def _band(tokens: int) -> npt.NDArray[np.bool_]:
    """Which (start, end) pairs are spans: the end at or after the start, at most
    ``MAX_SPAN`` tokens on."""
    return np.tril(np.triu(np.ones((tokens, tokens), dtype=bool)), MAX_SPAN - 1)


_PAIRS = (("(", ")"), ("[", "]"))


def tidy(reading: Reading, text: str) -> Reading:
    """The reading's span as an answer reads (its score unchanged): within one table
    cell, the one holding most of its letters and digits ("$ | (1,009,359" of "Net loss |
    $ | (1,009,359) $ | …" is "(1,009,359"), and with the bracket its other end opens or
    closes ("(1,009,359)")."""
    start, end = reading.start, reading.end
    if CELLS in text[start:end]:
        cells, at = [], start
        for cell in text[start:end].split(CELLS):
            cells.append((at, at + len(cell), sum(ch.isalnum() for ch in cell)))
            at += len(cell) + len(CELLS)
        first, last, letters = max(cells, key=lambda c: c[2])
        if letters:
            start, end = first, last
            while text[start].isspace():
                start += 1
            while text[end - 1].isspace():
                end -= 1
    for opening, closing in _PAIRS:
        span = text[start:end]
        if span.count(opening) > span.count(closing) and text[end : end + 1] == closing:
            end += 1
        elif span.count(closing) > span.count(opening) and text[start - 1 : start] == opening:
            start -= 1
    return Reading(reading.score, start, end)


_shared: dict[tuple[str, str], Reader] = {}
_shared_lock = threading.Lock()


def get_reader(precision: str, cache: Path | None = None, runtime: str = "auto") -> Reader:
    """One reader per precision and ``runtime`` (``Settings.reader_runtime``) per process:
    the model is loaded once. ``cache`` is where its ONNX export is kept
    (``Settings.model_cache``)."""
    int8 = None if runtime == "auto" else runtime == "int8"
    with _shared_lock:
        if (precision, runtime) not in _shared:
            reader = Reader(precision, cache or Settings().model_cache, int8=int8)
            _shared[precision, runtime] = reader
        return _shared[precision, runtime]
