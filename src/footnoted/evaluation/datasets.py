"""Readers for the evaluation datasets (official schemas) and the files they become.

Readers return plain frozen dataclasses; selection (first N articles, questions,
queries) is deterministic: always the first N in file order.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InvalidInput

# -- SQuAD 2.0 ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SquadQuestion:
    id: str
    question: str
    answers: tuple[str, ...]
    is_impossible: bool
    paragraph: str  # the gold paragraph (the context the question was written on)


@dataclass(frozen=True, slots=True)
class SquadArticle:
    title: str  # as in the file, e.g. "Super_Bowl_50"
    paragraphs: tuple[str, ...]
    questions: tuple[SquadQuestion, ...]

    @property
    def name(self) -> str:
        """The title with underscores as spaces: the document's file stem."""
        return self.title.replace("_", " ").strip()

    @property
    def text(self) -> str:
        """The document text: paragraphs joined by blank lines."""
        return "\n\n".join(p.strip() for p in self.paragraphs)


def read_squad(
    path: Path, articles: int | None = None, questions: int | None = None
) -> list[SquadArticle]:
    """The first ``articles`` articles, each with its first ``questions`` questions."""
    data = _load_json(path)
    _expect(path, data, "squad")
    return _squad_articles(data, articles, questions)


def _squad_articles(data: Any, articles: int | None, questions: int | None) -> list[SquadArticle]:
    out: list[SquadArticle] = []
    for article in data["data"][:articles]:
        paragraphs: list[str] = []
        qs: list[SquadQuestion] = []
        for para in article["paragraphs"]:
            context = str(para["context"])
            paragraphs.append(context)
            for qa in para["qas"]:
                impossible = bool(qa.get("is_impossible", False))
                golds = () if impossible else _unique(a["text"] for a in qa.get("answers", []))
                qs.append(
                    SquadQuestion(str(qa["id"]), str(qa["question"]), golds, impossible, context)
                )
        if questions is not None:
            qs = qs[:questions]
        out.append(SquadArticle(str(article["title"]), tuple(paragraphs), tuple(qs)))
    return out


# -- NQ-open -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OpenQuestion:
    question: str
    answers: tuple[str, ...]


def read_nq_open(path: Path, limit: int | None = None) -> list[OpenQuestion]:
    """The first ``limit`` questions of an NQ-open JSONL file."""
    out: list[OpenQuestion] = []
    for row in _jsonl(path):
        if limit is not None and len(out) >= limit:
            break
        answers = row.get("answer", [])
        if isinstance(answers, str):
            answers = [answers]
        out.append(OpenQuestion(str(row["question"]), _unique(answers)))
    return out


# -- BEIR --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BeirDoc:
    id: str
    title: str
    text: str

    def file_text(self) -> str:
        """``# title`` then the text (Markdown), or just the text when there is no title."""
        title = " ".join(self.title.split())
        body = self.text.strip()
        return f"# {title}\n\n{body}\n" if title else f"{body}\n"

    @property
    def suffix(self) -> str:
        return ".md" if self.title.strip() else ".txt"


Qrels = dict[str, dict[str, int]]


def read_beir_corpus(directory: Path) -> list[BeirDoc]:
    return [
        BeirDoc(str(r["_id"]), str(r.get("title") or ""), str(r.get("text") or ""))
        for r in _jsonl(directory / "corpus.jsonl")
    ]


def read_beir_queries(directory: Path) -> dict[str, str]:
    return {str(r["_id"]): str(r["text"]) for r in _jsonl(directory / "queries.jsonl")}


def read_qrels(path: Path) -> Qrels:
    """``query-id corpus-id score`` TSV with a header line; query order is file order."""
    qrels: Qrels = {}
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t")
        for i, row in enumerate(reader):
            if not row or (i == 0 and not row[-1].strip().lstrip("-").isdigit()):
                continue  # the header, or a blank line
            qid, doc, score = row[0].strip(), row[1].strip(), int(row[2])
            qrels.setdefault(qid, {})[doc] = score
    return qrels


# -- HotpotQA ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HotpotQuestion:
    id: str
    question: str
    answer: str
    supporting_titles: tuple[str, ...]  # distinct, in order
    context: tuple[tuple[str, str], ...]  # (title, paragraph text)


def read_hotpot(path: Path, questions: int | None = None) -> list[HotpotQuestion]:
    data = _load_json(path)
    _expect(path, data, "hotpot")
    return _hotpot_questions(data, questions)


def _hotpot_questions(data: Any, questions: int | None) -> list[HotpotQuestion]:
    out: list[HotpotQuestion] = []
    for row in data[:questions]:
        context = tuple(
            (str(title), " ".join(s.strip() for s in sentences if s.strip()))
            for title, sentences in row["context"]
        )
        titles = _unique(str(title) for title, _ in row["supporting_facts"])
        out.append(
            HotpotQuestion(
                str(row.get("_id", len(out))), str(row["question"]), str(row["answer"]),
                titles, context,
            )
        )  # fmt: skip
    return out


def hotpot_paragraphs(questions: Sequence[HotpotQuestion]) -> tuple[dict[str, str], int]:
    """Every context paragraph by title (the first where a title recurs with other text),
    and how many recurrences differed."""
    paragraphs: dict[str, str] = {}
    conflicts = 0
    for q in questions:
        for title, text in q.context:
            if title not in paragraphs:
                paragraphs[title] = text
            elif paragraphs[title] != text:
                conflicts += 1
    return paragraphs, conflicts


# -- any of them as a knowledge base -----------------------------------------------------


def read_passages(path: Path, limit: int | None = None, paragraphs: bool = False) -> dict[str, str]:
    """A knowledge base's passages, ``{title: text}``, from either question file.

    SQuAD gives one passage per article (its first ``limit`` articles), or with
    ``paragraphs`` one per paragraph ("Normans 3": a broad KB of short passages);
    HotpotQA gives the context paragraphs of its first ``limit`` questions.
    """
    data = _load_json(path)
    if _expect(path, data, "squad", "hotpot") == "squad":
        articles = _squad_articles(data, limit, None)
        if paragraphs:
            return {f"{a.name} {i}": p for a in articles for i, p in enumerate(a.paragraphs, 1)}
        return {a.name: a.text for a in articles}
    return hotpot_paragraphs(_hotpot_questions(data, limit))[0]


_SHAPES = {
    "squad": "SQuAD 2.0 JSON (an object with a 'data' list)",
    "hotpot": "HotpotQA JSON (a list of questions, each with a 'context')",
}


def _expect(path: Path, data: Any, *kinds: str) -> str:
    """Which of ``kinds`` the parsed file is; a clear error when it is none of them."""
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        kind = "squad"
    elif isinstance(data, list) and all(isinstance(r, dict) and "context" in r for r in data):
        kind = "hotpot"
    else:
        kind = ""
    if kind not in kinds:
        shapes = " or ".join(_SHAPES[k] for k in kinds)
        raise InvalidInput(f"{path} is not {shapes}", code="invalid_dataset")
    return kind


# -- files -------------------------------------------------------------------------------

# what no common file system takes in a name; everything else stays, so a document is
# titled as a user's file of that name would be ("2011–12 VCU Rams", "Tunnels &amp; Trolls")
_UNSAFE = re.compile(r'[\x00-\x1f/\\:*?"<>|]+')
MAX_STEM = 120


def safe_stem(key: str) -> str:
    """A file stem for ``key``: unsafe characters replaced, never hidden, bounded length.

    The stem is ``key`` itself when that is already safe; otherwise a short hash of
    ``key`` is appended so that two keys never share a stem.
    """
    stem = " ".join(_UNSAFE.sub("_", key).split()).lstrip(".")
    if stem == key and 0 < len(stem) <= MAX_STEM:
        return stem
    digest = hashlib.sha1(key.encode()).hexdigest()[:8]
    return f"{stem[:MAX_STEM]}-{digest}" if stem else digest


def _load_json(path: Path) -> Any:
    with path.open(encoding="utf-8") as fh:
        try:
            return json.load(fh)
        except ValueError as exc:  # not JSON, or not UTF-8
            raise InvalidInput(f"{path} is not a JSON file: {exc}", code="invalid_dataset") from exc


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def _unique(items: Any) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(str(item), None)
    return tuple(seen)
