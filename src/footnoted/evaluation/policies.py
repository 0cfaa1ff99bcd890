"""Policy text: PolicyQA (website privacy policies) and ConditionalQA (gov.uk guidance),
each question asked of its own document alone (``owndocs``).

**PolicyQA** (test): a website's policy, its segments as paragraphs under the site's
name, is one document; every question is answerable, its answer a clause-like span of
one segment (the gold passage). **ConditionalQA** (dev): a question comes with the
asker's scenario, asked together ("scenario. question"). Its pages are not published
(``documents.json`` is missing from every copy), so a page is the evidence sentences of
its questions, in the order first seen: an easier retrieval than the full page, and the
report says so. Yes/no answers are graded only on quoting the evidence (an extractive
answer quotes, it does not say "yes"); the not-answerable questions, which have no
page, are left out. Both datasets are non-commercial: evaluation only.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from .owndocs import OwnDocsResult, OwnDocument, OwnQuestion, run_own_documents
from .runners import ProgressFn

YES_NO = frozenset({"yes", "no"})
_HEADING = re.compile(r"^<h([1-6])[^>]*>", re.I)


def read_policies(
    path: Path, policies: int | None = None, questions: int | None = None
) -> list[OwnDocument]:
    """PolicyQA's policies (the first ``policies``), each with its questions (the first
    ``questions`` of each)."""
    data = json.loads(path.read_text(encoding="utf-8"))["data"]
    out: list[OwnDocument] = []
    for policy in data[:policies] if policies else data:
        segments = [p["context"].strip() for p in policy["paragraphs"]]
        markdown = f"# {policy['title']} privacy policy\n\n" + "\n\n".join(segments) + "\n"
        asked = [
            _policy_question(q, p["context"].strip())
            for p in policy["paragraphs"]
            for q in p["qas"]
        ]
        out.append(
            OwnDocument(policy["title"], markdown, tuple(asked[:questions] if questions else asked))
        )
    return out


def _policy_question(q: dict[str, Any], segment: str) -> OwnQuestion:
    answers = tuple(dict.fromkeys(a["text"].strip() for a in q["answers"] if a["text"].strip()))
    category = str(q.get("type") or "").split("|||")[0] or "other"
    return OwnQuestion(
        q["id"], q["question"], answers[:1], answers, (segment,), {"category": category}
    )


def run_policyqa(
    path: Path,
    policies: int | None = None,
    questions: int | None = None,
    progress: ProgressFn | None = None,
) -> OwnDocsResult:
    return run_own_documents(
        "policy", "policies", read_policies(path, policies, questions), progress
    )


def read_conditional(path: Path, pages: int | None = None) -> list[OwnDocument]:
    """ConditionalQA's answerable questions, grouped by page (the first ``pages``)."""
    by_url: dict[str, tuple[list[str], list[OwnQuestion]]] = {}
    for q in json.loads(path.read_text(encoding="utf-8")):
        if q["not_answerable"] or not q["evidences"]:
            continue
        sentences, asked = by_url.setdefault(q["url"], ([], []))
        for evidence in q["evidences"]:
            if evidence not in sentences:
                sentences.append(evidence)
        asked.append(_conditional_question(q))
    out = [
        OwnDocument(url, _page_markdown(url, sentences), tuple(asked))
        for url, (sentences, asked) in by_url.items()
    ]
    return out[:pages] if pages else out


def _conditional_question(q: dict[str, Any]) -> OwnQuestion:
    answers = tuple(dict.fromkeys(str(a[0]).strip() for a in q["answers"] if str(a[0]).strip()))
    yes_no = all(a.lower() in YES_NO for a in answers)
    passages = tuple(_text(e) for e in q["evidences"] if _text(e))
    scenario = q["scenario"].strip()
    if scenario and scenario[-1] not in ".!?":
        scenario += "."  # as a person types it: the situation, then the question
    asked = f"{scenario} {q['question'].strip()}".strip()
    kind = "yes/no" if yes_no else "span"
    return OwnQuestion(
        q["id"], asked, () if yes_no else answers, () if yes_no else answers, passages,
        {"answer type": kind},
    )  # fmt: skip


def _page_markdown(url: str, sentences: list[str]) -> str:
    title = url.rstrip("/").rsplit("/", 1)[-1].replace("-", " ").capitalize()
    lines = [f"# {title}", ""]
    for sentence in sentences:
        text = _text(sentence)
        if not text:
            continue
        heading = _HEADING.match(sentence.strip())
        lines += [f"{'#' * (int(heading.group(1)) + 1)} {text}" if heading else text, ""]
    return "\n".join(lines)


def _text(html: str) -> str:
    return " ".join((LexborHTMLParser(html).text(separator=" ") or "").split())


def run_conditionalqa(
    path: Path, pages: int | None = None, progress: ProgressFn | None = None
) -> OwnDocsResult:
    return run_own_documents("gov", "pages", read_conditional(path, pages), progress)
