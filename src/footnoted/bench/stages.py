"""``bench stages``: where one question's time goes, stage by stage, in one process."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ..answering.envelope import readable
from ..lexical import content_words
from ..retrieval import rerank
from ..service.facade import Footnoted
from ..settings import Settings
from .report import Row, median

Progress = Callable[[str, int, int], None]


class Clock:
    """``with clock("stage"):`` adds the block's duration to that stage's list."""

    def __init__(self) -> None:
        self.times: dict[str, list[float]] = {}

    @contextmanager
    def __call__(self, stage: str) -> Iterator[None]:
        started = time.perf_counter()
        yield
        self.times.setdefault(stage, []).append(time.perf_counter() - started)


def profile(settings: Settings, asked: list[str], progress: Progress) -> list[Row]:
    """Median milliseconds per stage over ``asked`` (each question new to every cache)."""
    clock = Clock()
    with Footnoted(settings) as fn:
        store, retriever, coll = fn.store, fn.retriever, settings.collection
        depth = max(retriever.depth, 4 * settings.top_k)
        fn.answer(asked[-1])
        for i, question in enumerate(asked):
            with clock("embed question"):
                vector = retriever.query_vector(question, None)
            with clock("dense search"):
                dense = store.dense_search(coll, vector, depth)
            with clock("keyword search"):
                keyword = store.keyword_search(coll, content_words(question), depth)
            fused = retriever._fuse([c for c, _ in dense], keyword)
            with clock("fetch + score chunks"):
                scored = retriever._score(fused, vector, dense, keyword)
            with clock("rerank"):
                rerank(question, scored)
            with clock("retrieve (all of the above)"):
                hits = retriever.retrieve(question + "?", coll, settings.top_k).hits
            with clock(f"read (the reader over the top {settings.top_k} chunks)"):
                fn.pipeline.reader.read(question, [readable(h.chunk.text, question) for h in hits])
            with clock("answer (retrieve + read + evidence + extractive)"):
                fn.answer(question + "??")
            progress("questions", i + 1, len(asked))
    times = clock.times
    return [{"stage": k, "median_ms": round(median(v) * 1000, 2), "n": len(v)}
            for k, v in times.items()]  # fmt: skip
