"""Answer-quality regression guard: the eval commands on small slices of the shared data.

Floors sit a few points below what these exact slices measured when they were set
(docs/quality.md); a drop below one means a change made answers worse.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ROOT, SHARED_DATA, shared
from footnoted.evaluation.financebench import run_financebench
from footnoted.evaluation.realdocs import run_docs
from footnoted.evaluation.runners import run_beir, run_hotpot, run_offtopic, run_squad
from footnoted.evaluation.tatqa import run_tatqa

pytestmark = [pytest.mark.slow, pytest.mark.precision]


def test_squad_slice() -> None:
    result = run_squad(shared("squad2", "dev-16-articles.json"), articles=3, questions=30)
    answerable = result.answerable
    assert answerable >= 40
    assert result.answered / answerable >= SQUAD_ANSWERED
    assert result.citation_hits / answerable >= SQUAD_HIT
    assert result.contains_gold / answerable >= SQUAD_CONTAINS
    assert result.refused_unanswerable / result.unanswerable >= SQUAD_UNANSWERABLE
    quotes = result.quotes
    assert quotes.right / quotes.quoted >= SQUAD_QUOTE_PRECISION
    assert quotes.other_document / quotes.answers <= SQUAD_OTHER_DOCUMENT
    assert quotes.em / quotes.spans >= SQUAD_EM
    assert quotes.f1 / quotes.spans >= SQUAD_F1


def offtopic_refused(kb: Path, limit: int, articles: int, paragraphs: bool = False) -> float:
    questions = shared("offtopic", "nq-open-dev.jsonl")
    result = run_offtopic(kb, questions, limit, articles, paragraphs=paragraphs)
    assert result.evaluated >= 100
    return result.refused / result.evaluated


def test_offtopic_slice() -> None:
    kb = shared("squad2", "dev-16-articles.json")
    assert offtopic_refused(kb, limit=200, articles=3) >= OFFTOPIC_REFUSED


def test_offtopic_slice_on_other_passages() -> None:
    """The same refusals against another corpus: HotpotQA's paragraphs, not SQuAD's."""
    kb = shared("hotpotqa", "dev-53.json")
    assert offtopic_refused(kb, limit=300, articles=20) >= OFFTOPIC_OTHER_REFUSED


def test_offtopic_slice_on_a_broad_knowledge_base() -> None:
    """Thousands of short paragraphs (SQuAD 1.1 train's first 12 articles, one document
    each): off-topic questions find passages on some nearby topic far more often."""
    kb = shared("squad1.1-train", "train-v1.1.json")
    assert offtopic_refused(kb, limit=300, articles=12, paragraphs=True) >= OFFTOPIC_BROAD_REFUSED


def test_hotpot_slice() -> None:
    result = run_hotpot(shared("hotpotqa", "dev-53.json"), questions=20)
    assert result.both_cited / result.questions >= HOTPOT_BOTH
    assert result.quotes.right / result.quotes.quoted >= HOTPOT_QUOTE_PRECISION


def test_two_hop_questions_written_over_other_paragraphs() -> None:
    """Two-hop questions written over HotpotQA dev's distractor paragraphs (none of its 53
    questions' own): both of a question's supporting documents cited."""
    result = run_hotpot(ROOT / "tests" / "data" / "two-hop-fresh.json")
    assert result.questions == 40
    assert result.both_cited / result.questions >= HOTPOT_FRESH_BOTH


def test_two_hop_questions_never_tuned_on() -> None:
    """Two-hop questions written the same way over the distractor paragraphs neither of
    the sets above uses as support, and never looked at while the two-hop path was built
    or tuned: both of a question's supporting documents cited."""
    result = run_hotpot(ROOT / "tests" / "data" / "two-hop-held.json")
    assert result.questions == 60
    assert result.both_cited / result.questions >= HOTPOT_HELD_BOTH


def test_two_hop_bridges_over_squad_paragraphs() -> None:
    """Bridges written by hand over SQuAD 1.1 train's Wikipedia paragraphs: one
    paragraph names an entity, another article's gives the fact asked; both cited."""
    result = run_hotpot(ROOT / "tests" / "data" / "two-hop-squad.json")
    assert result.questions == 40
    assert result.both_cited / result.questions >= HOTPOT_SQUAD_BOTH


def test_real_documents_report_half() -> None:
    """``eval docs`` on its frozen reporting half (170 questions over every real
    document): what users meet in reports, papers, manuals, policies and tables."""
    shared("docs-more")
    questions = ROOT / "tests" / "data" / "real-documents.jsonl"
    result = run_docs(questions, SHARED_DATA, "report")
    t = result.overall
    assert t.questions == 170 and not result.missing
    assert t.right_fact / t.answerable >= DOCS_FACT
    assert t.right_place / t.answerable >= DOCS_PLACE
    assert t.found / t.answerable >= DOCS_FOUND
    assert t.refused_unanswerable / t.unanswerable >= DOCS_UNANSWERABLE
    assert t.wrong_grounded / t.questions <= DOCS_WRONG_GROUNDED
    assert t.grounded_right / t.grounded >= DOCS_GROUNDED_PRECISION


def test_filings_never_tuned_on() -> None:
    """FinanceBench's 150 questions over the pages of 84 SEC filings (a third of the
    companies held out): documents no part of footnoted was built on. A held-out
    company's question is refused; nothing is shown as grounded off its gold page."""
    result = run_financebench(shared("financebench", "financebench_open_source.jsonl"))
    t = result.overall
    assert t.answerable == 94 and t.unanswerable == 56 and not result.errors
    assert t.refused_unanswerable / t.unanswerable >= FILINGS_HELD_OUT_REFUSED
    assert t.found / t.answerable >= FILINGS_FOUND
    assert t.right_page / t.answerable >= FILINGS_PAGE
    assert t.wrong_grounded / t.questions <= FILINGS_WRONG_GROUNDED


def test_tatqa_slice() -> None:
    """TAT-QA dev's first 40 pages, each asked alone: a figure from a report's table or
    the text around it."""
    result = run_tatqa(shared("tatqa", "dataset_raw", "tatqa_dataset_dev.json"), pages=40)
    span = result.by_type["span"]
    assert span.questions == 104
    assert span.holds / span.questions >= TATQA_SPAN_HOLDS
    assert span.em / span.spans >= TATQA_SPAN_EM
    assert result.median_length is not None and result.median_length <= TATQA_MEDIAN_LENGTH


def test_beir_slice(tmp_path: Path) -> None:
    """SciFact: every document judged for the first 40 queries plus 400 others."""
    source = shared("scifact")
    qrels = (source / "qrels" / "train.tsv").read_text().splitlines()
    queries = list(dict.fromkeys(line.split("\t")[0] for line in qrels[1:]))[:40]
    kept = [qrels[0]] + [line for line in qrels[1:] if line.split("\t")[0] in queries]
    wanted = {line.split("\t")[1] for line in kept[1:]}
    corpus = [json.loads(line) for line in (source / "corpus.jsonl").read_text().splitlines()]
    docs = [d for i, d in enumerate(corpus) if i < 400 or d["_id"] in wanted]
    (tmp_path / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in docs))
    (tmp_path / "queries.jsonl").write_text((source / "queries.jsonl").read_text())
    (tmp_path / "qrels.tsv").write_text("\n".join(kept))
    result = run_beir(tmp_path, tmp_path / "qrels.tsv")
    assert result.queries == 40
    assert result.ndcg_at_10 is not None and result.ndcg_at_10 >= BEIR_NDCG


# Measured on these slices when set (44 answerable / 46 unanswerable SQuAD questions,
# 179 off-topic, 232 off-topic against 199 HotpotQA paragraphs, 214 off-topic against
# the paragraphs of 12 SQuAD 1.1 train articles, 20 HotpotQA, 40 SciFact queries); each
# floor sits a few points (two or three questions) below the measured value.
SQUAD_ANSWERED = 0.75  # measured 0.773
SQUAD_HIT = 0.68  # measured 0.727
SQUAD_CONTAINS = 0.65  # measured 0.705
SQUAD_UNANSWERABLE = 0.34  # measured 0.391
SQUAD_QUOTE_PRECISION = 0.88  # measured 0.941
SQUAD_OTHER_DOCUMENT = 0.05  # measured 0.0 (a ceiling)
SQUAD_EM = 0.50  # measured 0.588 (0.559 at fp32)
SQUAD_F1 = 0.61  # measured 0.681 (0.666 at fp32)
OFFTOPIC_REFUSED = 0.98  # measured 1.0
OFFTOPIC_OTHER_REFUSED = 0.97  # measured 0.991
OFFTOPIC_BROAD_REFUSED = 0.93  # measured 0.958
HOTPOT_BOTH = 0.65  # measured 0.75 (0.25 before comparisons were answered)
HOTPOT_QUOTE_PRECISION = 0.83  # measured 0.846 (33 of 39 quotes; 0.868 before second hops
# were read after their naming sentences: 33 of 38)
HOTPOT_FRESH_BOTH = 0.825  # measured 0.875 (35 of 40; 0.75 before second hops led, 0.85 before
# believed second hops were quoted)
HOTPOT_HELD_BOTH = 0.5  # measured 0.55 (33 of 60)
HOTPOT_SQUAD_BOTH = 0.65  # measured 0.725 in fp32 (29 of 40; 0.65 before the first hop)
BEIR_NDCG = 0.78  # measured 0.827
# the real documents' reporting half (131 answerable, 39 unanswerable questions)
TATQA_SPAN_HOLDS = 0.68  # measured 0.721 (0.63 on all of dev before tables were read as tables)
TATQA_SPAN_EM = 0.38  # measured 0.431, of the answers with an exact answer marked
TATQA_MEDIAN_LENGTH = 150  # characters; measured 124 (a ceiling: answers must not pad)
DOCS_FACT = 0.6  # measured 0.641 (0.427 before answers were composed as documents are)
DOCS_PLACE = 0.71  # measured 0.756 (0.763 in fp32)
DOCS_FOUND = 0.88  # measured 0.916
DOCS_UNANSWERABLE = 0.77  # measured 0.846 (two questions: 0.051)
DOCS_WRONG_GROUNDED = 0.025  # measured 0.006 (a ceiling; 0.159 before the trust label)
DOCS_GROUNDED_PRECISION = 0.9  # measured 0.968 (30 of 31, in fp32 too)
# FinanceBench's filings (94 answerable questions, 56 about held-out companies): documents
# never tuned on; most of its answers are computed ratios and judgements no page prints
FILINGS_HELD_OUT_REFUSED = 0.95  # measured 1.0
FILINGS_FOUND = 0.89  # measured 0.926
FILINGS_PAGE = 0.08  # measured 0.117
FILINGS_WRONG_GROUNDED = 0.03  # measured 0.0 (a ceiling)
