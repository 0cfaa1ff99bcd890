"""Evaluation runners: build a knowledge base through the normal ingest path, then ask.

Each runner writes the dataset as ordinary files into a fresh temporary directory,
ingests them with ``Footnoted.ingest`` (default settings, a temporary ``home``), asks
through ``Footnoted.answer`` / ``Footnoted.retrieve`` and returns a typed result.
Documents map back to dataset keys through their source file names, never titles.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..answering.evidence import passes
from ..answering.question import Question
from ..errors import FootnotedError
from ..ingest.ingest import FileResult
from ..service.facade import AskResult, Footnoted
from ..settings import Settings
from . import metrics as m
from .datasets import (
    BeirDoc,
    SquadArticle,
    hotpot_paragraphs,
    read_beir_corpus,
    read_beir_queries,
    read_hotpot,
    read_nq_open,
    read_passages,
    read_qrels,
    read_squad,
    safe_stem,
)

ProgressFn = Callable[[str, int, int], None]
"""``progress(stage, done, total)``; stages are "ingest" then "questions" or "queries"."""

BEIR_DEPTH = 100
SQUAD_RANKS = (1, 5, 20)  # retrieval depths SQuAD reports "answer within the first k" at


@dataclass(frozen=True, slots=True)
class Metric:
    name: str
    value: float | None  # a fraction 0..1; None when n is 0
    n: int  # how many items it was measured over


@dataclass(frozen=True, slots=True)
class RunInfo:
    """The settings a run used, its knowledge base and its wall times."""

    model: str
    threshold: float
    reader_threshold: float
    reader_runtime: str  # int8, bf16 or fp32 (Reader.runtime)
    top_k: int
    chunk_tokens: int
    embedding_precision: str  # what embedded the chunks: int8, bf16 or fp32
    documents: int
    chunks: int
    failed_files: int
    model_seconds: float  # loading the embedding model (0 when already loaded)
    ingest_seconds: float
    ask_seconds: float

    @property
    def seconds(self) -> float:
        return self.model_seconds + self.ingest_seconds + self.ask_seconds


@dataclass(slots=True)
class Quotes:
    """What the answers quoted: sentences from the right passages, other documents, and
    the exact span the reader marked (SQuAD's EM and F1 against the gold answers)."""

    answers: int = 0  # answered questions the counts below are over
    quoted: int = 0  # quoted sentences
    right: int = 0  # of them, inside a gold passage
    other_document: int = 0  # answers quoting a document that holds no gold passage
    spans: int = 0  # answers with an exact span (and gold answer strings)
    em: float = 0.0  # summed over ``spans``
    f1: float = 0.0

    def add(
        self, result: AskResult, passages: Sequence[str], golds: Sequence[str], foreign: bool
    ) -> dict[str, Any]:
        """Count one answered question; returns its per-question record fields."""
        assert result.answer is not None
        text = result.answer.text
        quotes = [text[s.answer_start : s.answer_end] for s in result.answer.spans]
        right = m.quoted_from(quotes, passages)
        self.answers += 1
        self.quoted += len(quotes)
        self.right += right
        self.other_document += foreign
        item: dict[str, Any] = {
            "quotes": len(quotes),
            "quotes_right": right,
            "other_document": foreign,
        }
        exact = next((s for s in result.answer.spans if s.exact_start is not None), None)
        if exact is not None and golds:
            span = text[exact.exact_start : exact.exact_end]
            em, f1 = m.exact_match(span, golds), m.f1(span, golds)
            self.spans += 1
            self.em += em
            self.f1 += f1
            item.update(span=span, em=em, f1=round(f1, 4))
        return item

    def metrics(self, passage: str) -> list[Metric]:
        return [
            Metric(
                f"quote precision (sentences from the {passage})",
                m.rate(self.right, self.quoted),
                self.quoted,
            ),
            Metric(
                "answers quoting another document",
                m.rate(self.other_document, self.answers),
                self.answers,
            ),
            Metric(
                "exact span EM (answered)", self.em / self.spans if self.spans else None, self.spans
            ),
            Metric(
                "exact span F1 (answered)", self.f1 / self.spans if self.spans else None, self.spans
            ),
        ]


@dataclass(frozen=True, slots=True)
class SquadResult:
    info: RunInfo
    articles: int
    answerable: int
    answered: int
    citation_hits: int
    contains_gold: int
    unanswerable: int
    refused_unanswerable: int
    errors: int
    # answerable questions where a chunk (or one of its sentences) comes to the threshold
    # (``Retrieval.max_score``): no answer can be given (and so no citation hit) for the
    # rest, whatever happens after retrieval
    above_threshold: int
    # {k: answerable questions with a chunk among the first k candidates that would be a
    # citation hit}: how much a better choice among the candidates could reach
    within: dict[int, int]
    quotes: Quotes = field(default_factory=lambda: Quotes())
    items: list[dict[str, Any]] = field(default_factory=list, repr=False)

    def metrics(self) -> list[Metric]:
        a, u, q = self.answerable, self.unanswerable, self.quotes
        return [
            Metric("answered (answerable)", m.rate(self.answered, a), a),
            Metric("citation hit (answerable)", m.rate(self.citation_hits, a), a),
            Metric(
                "citation hit (answered)", m.rate(self.citation_hits, self.answered), self.answered
            ),
            *q.metrics("gold paragraph"),
            Metric("answer contains gold (answerable)", m.rate(self.contains_gold, a), a),
            Metric("refused (unanswerable)", m.rate(self.refused_unanswerable, u), u),
            Metric(
                "a chunk or sentence at or above threshold (answerable)",
                m.rate(self.above_threshold, a),
                a,
            ),
            *(Metric(_within_name(k), m.rate(n, a), a) for k, n in self.within.items()),
        ]


def _within_name(k: int) -> str:
    if k == 1:
        return "first candidate is a hit (answerable)"
    return f"a hit among the first {k} candidates (answerable)"


@dataclass(frozen=True, slots=True)
class OfftopicResult:
    info: RunInfo
    questions: int  # read from the file
    skipped: int  # a gold answer appears in the knowledge base
    evaluated: int
    refused: int
    errors: int
    items: list[dict[str, Any]] = field(default_factory=list, repr=False)

    def metrics(self) -> list[Metric]:
        return [Metric("refused (off-topic)", m.rate(self.refused, self.evaluated), self.evaluated)]


@dataclass(frozen=True, slots=True)
class BeirResult:
    info: RunInfo
    corpus: int
    queries: int  # evaluated: in qrels and in queries.jsonl
    missing_queries: int  # in qrels but not in queries.jsonl
    ndcg_at_10: float | None
    recall_at_100: float | None
    items: list[dict[str, Any]] = field(default_factory=list, repr=False)

    def metrics(self) -> list[Metric]:
        return [
            Metric("nDCG@10", self.ndcg_at_10, self.queries),
            Metric("recall@100", self.recall_at_100, self.queries),
        ]


@dataclass(frozen=True, slots=True)
class HotpotResult:
    info: RunInfo
    questions: int
    answered: int
    both_cited: int
    one_cited: int
    contains_gold: int
    contains_evaluated: int  # questions whose gold answer is not yes/no
    yes_no_skipped: int
    conflicting_titles: int  # same title, different paragraph text (first one kept)
    errors: int
    quotes: Quotes = field(default_factory=lambda: Quotes())
    items: list[dict[str, Any]] = field(default_factory=list, repr=False)

    def metrics(self) -> list[Metric]:
        q, c = self.questions, self.contains_evaluated
        return [
            Metric("answered", m.rate(self.answered, q), q),
            Metric("both supporting titles cited", m.rate(self.both_cited, q), q),
            *self.quotes.metrics("supporting paragraphs")[:1],
            Metric("at least one supporting title cited", m.rate(self.one_cited, q), q),
            Metric("answer contains gold (not yes/no)", m.rate(self.contains_gold, c), c),
        ]


Result = SquadResult | OfftopicResult | BeirResult | HotpotResult


def to_dict(result: Any) -> dict[str, Any]:
    """Every number of a result, the metrics table and the per-item records."""
    data = asdict(result)
    data["info"]["seconds"] = round(result.info.seconds, 3)
    data["metrics"] = [asdict(x) for x in result.metrics()]
    items = data.pop("items")
    data["items"] = items
    return data


# -- the knowledge base ------------------------------------------------------------------


@dataclass(slots=True)
class KnowledgeBase:
    fn: Footnoted
    key_of: dict[str, str]  # document id -> dataset key
    documents: int
    chunks: int
    failed_files: int
    model_seconds: float
    ingest_seconds: float
    vectors: dict[str, list[float]] = field(default_factory=dict)

    def info(self, ask_seconds: float) -> RunInfo:
        s = self.fn.settings
        return RunInfo(
            model=self.fn.embedder.name,
            threshold=s.evidence_threshold,
            reader_threshold=self.fn.pipeline.reader.calibration(s.reader_threshold).threshold,
            reader_runtime=self.fn.pipeline.reader.runtime,
            top_k=s.top_k,
            chunk_tokens=s.chunk_tokens,
            embedding_precision=str(getattr(self.fn.embedder, "precision", "fp32")),
            documents=self.documents,
            chunks=self.chunks,
            failed_files=self.failed_files,
            model_seconds=round(self.model_seconds, 3),
            ingest_seconds=round(self.ingest_seconds, 3),
            ask_seconds=round(ask_seconds, 3),
        )

    def prime(self, questions: Sequence[str]) -> None:
        """Embed every question up front in length-sorted batches (same vectors, far
        faster than one model call per question)."""
        unique = list(dict.fromkeys(questions))
        vectors = self.fn.embedder.embed(unique)
        self.vectors = {q: [float(x) for x in v] for q, v in zip(unique, vectors, strict=True)}

    def referenced(self, result: AskResult) -> list[tuple[str, str]]:
        """(dataset key, chunk text) of each citation the answer text refers to."""
        if result.answer is None:
            return []
        used = set(result.answer.referenced)
        return [
            (self.key_of.get(c.document_id, ""), c.text)
            for c in result.answer.citations
            if c.index in used
        ]


@contextmanager
def knowledge_base(
    documents: Mapping[str, tuple[str, str]],
    progress: ProgressFn | None = None,
) -> Iterator[KnowledgeBase]:
    """Write ``{key: (file name, text)}`` to files, ingest them in one call, yield the KB.

    A document is titled by its file name, as a user's file is; one whose key a file
    name could not hold (``safe_stem``: "Left Behind: The Kids") is ingested from memory
    under its key as its title, as an upload titled so is, not as
    "Left Behind_ The Kids-0b9f1366".

    Runs in a fresh temporary directory (removed afterwards) with default settings
    apart from ``home`` (``FOOTNOTED_*`` environment variables apply as usual).
    """
    names: dict[str, str] = {}
    for key, (name, _) in documents.items():
        if name in names:
            raise ValueError(f"two documents share the file name {name!r}")
        names[name] = key
    with tempfile.TemporaryDirectory(prefix="footnoted-eval-") as tmp:
        root = Path(tmp)
        folder = root / "documents"
        folder.mkdir()
        titled = {key for key, (name, _) in documents.items() if _renamed(key, name)}
        for key, (name, text) in documents.items():
            if key not in titled:
                (folder / name).write_text(text, encoding="utf-8")
        fn = Footnoted(Settings(home=root / "home"))
        try:
            total = len(documents)
            done = 0

            def step(_: FileResult) -> None:
                nonlocal done
                done += 1
                if progress is not None:
                    progress("ingest", done, total)

            started = time.perf_counter()
            fn.warm_up(ingest=True)
            loaded = time.perf_counter() - started
            if progress is not None:
                progress("ingest", 0, total)
            started = time.perf_counter()
            report = fn.ingest([folder], progress=step)
            for key in titled:
                name, text = documents[key]
                try:
                    result = fn.ingest_bytes(text.encode(), name, title=key)
                except FootnotedError as exc:
                    result = FileResult(name, "failed", error=exc.message, code=exc.code)
                report.results.append(result)
                step(result)
            elapsed = time.perf_counter() - started
            key_of = {
                d.id: names[Path(d.source).name]
                for d in fn.store.list_documents()
                if Path(d.source).name in names
            }
            yield KnowledgeBase(
                fn, key_of, len(key_of), report.chunks, len(report.failed), loaded, elapsed
            )
        finally:
            fn.close()


def _renamed(key: str, name: str) -> bool:
    """Whether ``name`` is the file name ``safe_stem`` gave ``key``, changed from it."""
    stem = Path(name).stem
    return stem != key and stem == safe_stem(key)


def squad_documents(articles: Sequence[SquadArticle]) -> dict[str, tuple[str, str]]:
    """One ``<Title with spaces>.txt`` per article: paragraphs joined by blank lines."""
    return passage_documents({a.name: a.text for a in articles})


def passage_documents(passages: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """One ``<title>.txt`` per passage, keyed by its title."""
    return {t: (f"{safe_stem(t)}.txt", text) for t, text in passages.items()}


def answer_score(result: AskResult | None) -> float | None:
    """The best evidence score over the passages read (None: none was read)."""
    if result is None or not result.read:
        return None
    return round(max(r.score for r in result.read), 4)


def read_record(
    result: AskResult | None, golds: Sequence[str] = (), paragraph: str = ""
) -> list[list[Any]]:
    """Each retrieved passage the reader read, in retrieval order: its reader score and
    cosine, and with ``golds``, whether it is a citation hit (what
    ``scripts/calibrate_reader.py`` weighs the two by)."""
    if result is None or not result.read:
        return []
    reading = {r.hit.chunk.id: r.reading.score for r in result.read}
    rows: list[list[Any]] = []
    for hit in result.retrieval.hits:
        row: list[Any] = [round(reading[hit.chunk.id], 4), round(hit.score, 4)]
        if golds:
            row.append(m.citation_hit([hit.chunk.text], golds, paragraph))
        rows.append(row)
    return rows


def _ask(kb: KnowledgeBase, question: str) -> AskResult | None:
    try:
        return kb.fn.answer(Question(question, embedding=kb.vectors.get(question)))
    except FootnotedError:
        return None


# -- runners -----------------------------------------------------------------------------


def run_squad(
    path: Path,
    articles: int | None = None,
    questions: int | None = None,
    progress: ProgressFn | None = None,
) -> SquadResult:
    data = read_squad(path, articles, questions)
    qs = [q for a in data for q in a.questions]
    answerable = answered = hits = contains = unanswerable = refused_u = errors = above = 0
    within = dict.fromkeys(SQUAD_RANKS, 0)
    quotes = Quotes()
    article_of = {q.id: a.name for a in data for q in a.questions}
    items: list[dict[str, Any]] = []
    with knowledge_base(squad_documents(data), progress) as kb:
        started = time.perf_counter()
        kb.prime([q.question for q in qs])
        threshold = kb.fn.settings.evidence_threshold
        for i, q in enumerate(qs):
            result = _ask(kb, q.question)
            errors += result is None
            refused = result is None or result.refused
            item: dict[str, Any] = {
                "id": q.id,
                "answerable": not q.is_impossible,
                "refused": refused,
                "answer_score": answer_score(result),
                "read": read_record(result, () if q.is_impossible else q.answers, q.paragraph),
            }
            if q.is_impossible:
                unanswerable += 1
                refused_u += refused
            else:
                answerable += 1
                texts = [t for _, t in kb.referenced(result)] if result else []
                hit = m.citation_hit(texts, q.answers, q.paragraph)
                reply = result.answer.text if result and result.answer else None
                got = m.contains_gold(reply, q.answers)
                best = result.retrieval.max_score if result else None
                passing = best is not None and passes(best, threshold)
                candidates = [c.chunk.text for c in result.retrieval.candidates] if result else []
                rank = m.first_hit(candidates, q.answers, q.paragraph)
                answered += not refused
                hits += hit
                contains += got
                above += passing
                for k in within:
                    within[k] += rank is not None and rank <= k
                item.update(hit=hit, contains_gold=got, best_score=best, hit_rank=rank)
                if result is not None and result.answer is not None:
                    keys = {key for key, _ in kb.referenced(result)}
                    foreign = bool(keys - {article_of[q.id]})
                    item.update(quotes.add(result, [q.paragraph], q.answers, foreign))
            items.append(item)
            if progress is not None:
                progress("questions", i + 1, len(qs))
        info = kb.info(time.perf_counter() - started)
    return SquadResult(
        info,
        len(data),
        answerable,
        answered,
        hits,
        contains,
        unanswerable,
        refused_u,
        errors,
        above,
        within,
        quotes,
        items,
    )


def run_offtopic(
    kb_path: Path,
    questions_path: Path,
    limit: int | None = None,
    articles: int | None = None,
    progress: ProgressFn | None = None,
    paragraphs: bool = False,
) -> OfftopicResult:
    passages = read_passages(kb_path, articles, paragraphs)
    text = m.kb_text(passages.values())
    qs = read_nq_open(questions_path, limit)
    keep = [q for q in qs if not m.answer_in_text(q.answers, text)]
    refused = errors = 0
    items: list[dict[str, Any]] = []
    with knowledge_base(passage_documents(passages), progress) as kb:
        started = time.perf_counter()
        kb.prime([q.question for q in keep])
        for i, q in enumerate(keep):
            result = _ask(kb, q.question)
            errors += result is None
            was_refused = result is None or result.refused
            refused += was_refused
            item: dict[str, Any] = {
                "question": q.question,
                "gold": list(q.answers),
                "refused": was_refused,
                "answer_score": answer_score(result),
                "read": read_record(result),
            }
            if result is not None and result.answer is not None:  # answered
                item["answer"] = result.answer.text
                item["cited"] = [key for key, _ in kb.referenced(result)]
            items.append(item)
            if progress is not None:
                progress("questions", i + 1, len(keep))
        info = kb.info(time.perf_counter() - started)
    return OfftopicResult(info, len(qs), len(qs) - len(keep), len(keep), refused, errors, items)


def run_beir(
    directory: Path,
    qrels_path: Path,
    queries: int | None = None,
    progress: ProgressFn | None = None,
    distractors: int | None = None,
) -> BeirResult:
    corpus = read_beir_corpus(directory)
    texts = read_beir_queries(directory)
    qrels = read_qrels(qrels_path)
    selected = list(qrels)[:queries]
    present = [qid for qid in selected if qid in texts]
    if distractors is not None:
        corpus = _beir_slice(corpus, [qrels[qid] for qid in present], distractors)
    documents = {d.id: (f"{safe_stem(d.id)}{d.suffix}", d.file_text()) for d in corpus}
    ndcg: list[float] = []
    recall: list[float] = []
    items: list[dict[str, Any]] = []
    with knowledge_base(documents, progress) as kb:
        started = time.perf_counter()
        kb.prime([texts[qid] for qid in present])
        collection = kb.fn.settings.collection
        for i, qid in enumerate(present):
            vector = kb.vectors[texts[qid]]
            retrieval = kb.fn.retriever.retrieve(texts[qid], collection, BEIR_DEPTH, vector)
            ranked = m.first_occurrences(
                kb.key_of[h.chunk.document_id]
                for h in retrieval.hits
                if h.chunk.document_id in kb.key_of
            )
            n10 = m.ndcg_at_k(ranked, qrels[qid], 10)
            r100 = m.recall_at_k(ranked, qrels[qid], 100)
            ndcg.append(n10)
            recall.append(r100)
            items.append({"query_id": qid, "ndcg@10": round(n10, 6), "recall@100": r100})
            if progress is not None:
                progress("queries", i + 1, len(present))
        info = kb.info(time.perf_counter() - started)
    return BeirResult(
        info,
        len(corpus),
        len(present),
        len(selected) - len(present),
        _mean(ndcg),
        _mean(recall),
        items,
    )


def _beir_slice(corpus: list[BeirDoc], judged: list[dict[str, int]], others: int) -> list[BeirDoc]:
    """The judged documents of the chosen queries plus the first ``others`` of the rest."""
    wanted = {doc for qrel in judged for doc in qrel}
    rest = [d for d in corpus if d.id not in wanted][:others]
    return [d for d in corpus if d.id in wanted] + rest


def run_hotpot(
    path: Path,
    questions: int | None = None,
    progress: ProgressFn | None = None,
) -> HotpotResult:
    qs = read_hotpot(path, questions)
    paragraphs, conflicts = hotpot_paragraphs(qs)
    documents = passage_documents(paragraphs)
    answered = both = one = contains = evaluated = yes_no = errors = 0
    quotes = Quotes()
    items: list[dict[str, Any]] = []
    with knowledge_base(documents, progress) as kb:
        started = time.perf_counter()
        kb.prime([q.question for q in qs])
        for i, q in enumerate(qs):
            result = _ask(kb, q.question)
            errors += result is None
            refused = result is None or result.refused
            cited = [key for key, _ in kb.referenced(result)] if result else []
            all_found, any_found = m.title_coverage(cited, q.supporting_titles)
            answered += not refused
            both += all_found
            one += any_found
            item: dict[str, Any] = {
                "id": q.id,
                "question": q.question,
                "supporting": list(q.supporting_titles),
                "cited": cited,
                "refused": refused,
                "both": all_found,
                "at_least_one": any_found,
                "answer": result.answer.text if result and result.answer else None,
            }
            if result is not None and result.answer is not None:
                support = [paragraphs[t] for t in q.supporting_titles if t in paragraphs]
                item.update(quotes.add(result, support, (), False))
            if m.is_yes_no(q.answer):
                yes_no += 1
            else:
                evaluated += 1
                reply = result.answer.text if result and result.answer else None
                got = m.contains_gold(reply, [q.answer])
                contains += got
                item["contains_gold"] = got
            items.append(item)
            if progress is not None:
                progress("questions", i + 1, len(qs))
        info = kb.info(time.perf_counter() - started)
    return HotpotResult(
        info,
        len(qs),
        answered,
        both,
        one,
        contains,
        evaluated,
        yes_no,
        conflicts,
        errors,
        quotes,
        items,
    )


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None
