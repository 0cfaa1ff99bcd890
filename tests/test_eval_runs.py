"""End to end: each eval runner and CLI command on a tiny real slice, real model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from footnoted.answering.evidence import passes
from footnoted.cli import app
from footnoted.evaluation import runners
from footnoted.evaluation.datasets import read_beir_corpus, read_beir_queries, read_qrels
from footnoted.evaluation.financebench import (
    UNANSWERABLE,
    filing_markdown,
    held_out,
    numbers,
    read_filings,
    run_financebench,
)
from footnoted.evaluation.owndocs import quotes_passage
from footnoted.evaluation.policies import read_conditional, read_policies, run_policyqa
from footnoted.evaluation.realdocs import holds
from footnoted.evaluation.tatqa import page_markdown, read_pages, run_tatqa

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SQUAD = DATA / "squad2" / "dev-16-articles.json"
NQ = DATA / "offtopic" / "nq-open-dev.jsonl"
SCIFACT = DATA / "scifact"
HOTPOT = DATA / "hotpotqa" / "dev-53.json"
TATQA = DATA / "tatqa" / "dataset_raw" / "tatqa_dataset_dev.json"
FINANCEBENCH = DATA / "financebench" / "financebench_open_source.jsonl"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.precision,
    pytest.mark.skipif(
        not all(p.exists() for p in (SQUAD, NQ, SCIFACT / "corpus.jsonl", HOTPOT)),
        reason=f"shared evaluation data not found under {DATA}",
    ),
]


def beir_subset(folder: Path, documents: int, queries: int) -> tuple[Path, Path]:
    """A SciFact slice: the first ``queries`` judged queries, their relevant documents,
    topped up with the first corpus documents to ``documents``; qrels filtered to match."""
    corpus = read_beir_corpus(SCIFACT)
    texts = read_beir_queries(SCIFACT)
    qrels = read_qrels(SCIFACT / "qrels" / "train.tsv")
    chosen = [q for q in qrels if q in texts][:queries]
    wanted = {d for q in chosen for d in qrels[q]}
    keep = [d for d in corpus if d.id in wanted]
    keep += [d for d in corpus if d.id not in wanted][: max(0, documents - len(keep))]
    ids = {d.id for d in keep}
    folder.mkdir()
    with (folder / "corpus.jsonl").open("w") as fh:
        for d in keep:
            fh.write(json.dumps({"_id": d.id, "title": d.title, "text": d.text}) + "\n")
    with (folder / "queries.jsonl").open("w") as fh:
        for q in chosen:
            fh.write(json.dumps({"_id": q, "text": texts[q]}) + "\n")
    qrels_path = folder / "qrels.tsv"
    rows = [f"{q}\t{d}\t{s}" for q in chosen for d, s in qrels[q].items() if d in ids]
    qrels_path.write_text("query-id\tcorpus-id\tscore\n" + "\n".join(rows) + "\n")
    return folder, qrels_path


def check_info(info: runners.RunInfo) -> None:
    assert info.model and 0 <= info.threshold <= 1 and info.top_k >= 1
    assert info.documents > 0 and info.chunks >= info.documents and info.failed_files == 0
    assert info.ingest_seconds >= 0 and info.ask_seconds >= 0


def check_metrics(result: runners.Result) -> None:
    for metric in result.metrics():
        assert metric.n >= 0
        assert (metric.value is None) == (metric.n == 0)
        assert metric.value is None or 0.0 <= metric.value <= 1.0
    json.dumps(runners.to_dict(result))  # every number serialises


def test_squad_runner() -> None:
    stages: set[str] = set()
    result = runners.run_squad(SQUAD, 1, 10, lambda s, done, total: stages.add(s))
    check_info(result.info)
    check_metrics(result)
    assert stages == {"ingest", "questions"}
    assert result.articles == 1 and result.info.documents == 1
    assert result.answerable + result.unanswerable == 10 == len(result.items)
    assert result.citation_hits <= result.answered <= result.above_threshold <= result.answerable
    assert result.contains_gold <= result.answered
    assert result.errors == 0
    # a cited chunk is a candidate, so a citation hit has a candidate rank
    assert list(result.within) == [1, 5, 20]
    assert result.within[1] <= result.within[5] <= result.within[20] <= result.answerable
    answerable = [item for item in result.items if item["answerable"]]
    assert all(item["hit_rank"] is not None for item in answerable if item["hit"])
    assert sum(item["hit_rank"] == 1 for item in answerable) == result.within[1]
    # nothing is answered below the run's threshold (the spec's rule)
    limit = result.info.threshold
    assert all(passes(item["best_score"], limit) >= (not item["refused"]) for item in answerable)


def test_offtopic_runner() -> None:
    result = runners.run_offtopic(SQUAD, NQ, limit=20, articles=1)
    check_info(result.info)
    check_metrics(result)
    assert result.questions == 20 and result.skipped + result.evaluated == 20
    assert 0 <= result.refused <= result.evaluated
    # each record holds the question's NQ answers, and an answered one what it said and cited
    assert len(result.items) == result.evaluated and all(i["gold"] for i in result.items)
    for item in result.items:
        assert ("answer" in item) == ("cited" in item) == (not item["refused"])
        assert not item.get("answer") or ("[1]" in item["answer"] and item["cited"])


def test_offtopic_runner_on_hotpot_paragraphs() -> None:
    result = runners.run_offtopic(HOTPOT, NQ, limit=20, articles=2)
    check_info(result.info)
    check_metrics(result)
    assert result.info.documents == 20  # two questions' ten paragraphs each
    assert result.questions == 20 and result.skipped + result.evaluated == 20
    assert 0 <= result.refused <= result.evaluated


def test_beir_runner(tmp_path: Path) -> None:
    folder, qrels = beir_subset(tmp_path / "scifact", documents=60, queries=10)
    result = runners.run_beir(folder, qrels)
    check_info(result.info)
    check_metrics(result)
    assert result.corpus == 60 == result.info.documents
    assert result.queries == 10 and result.missing_queries == 0
    assert result.ndcg_at_10 is not None and result.recall_at_100 is not None
    # the relevant abstracts are in the slice: a broken chunk -> id mapping scores ~0
    assert result.ndcg_at_10 > 0.3 and result.recall_at_100 > 0.5
    assert {item["query_id"] for item in result.items} == set(read_qrels(qrels))


def test_hotpot_runner() -> None:
    result = runners.run_hotpot(HOTPOT, 3)
    check_info(result.info)
    check_metrics(result)
    assert result.questions == 3
    assert result.both_cited <= result.one_cited <= result.answered <= 3
    assert result.contains_evaluated + result.yes_no_skipped == 3
    assert result.info.documents == 30 - result.conflicting_titles  # 10 paragraphs each
    for item in result.items:  # each record says what was asked, cited and answered
        assert len(item["supporting"]) == 2 and item["question"]
        assert item["both"] == (set(item["supporting"]) <= set(item["cited"]))
        assert (item["answer"] is None) == item["refused"] == (not item["cited"])
        # an answer's record says how many sentences it quoted and how many of them
        # came from the supporting paragraphs; together they are the quote precision
        assert item["refused"] or 0 <= item["quotes_right"] <= item["quotes"] > 0
    answers = [i for i in result.items if not i["refused"]]
    assert sum(i["quotes"] for i in answers) == result.quotes.quoted
    assert sum(i["quotes_right"] for i in answers) == result.quotes.right


def test_a_document_is_titled_as_its_passage_whatever_a_file_name_can_hold() -> None:
    """A passage titled with a colon or a question mark is one document under that title,
    as a user's upload titled so would be: the title is what a comparison or a bridge
    names ("Which series has more books, The Divide trilogy or Left Behind: The Kids?")."""
    titles = ["Left Behind: The Kids", "Haven't You Heard? I'm Sakamoto", "The Divide trilogy"]
    passages = {t: f"{t} is a series. It has {n} books." for n, t in enumerate(titles, 2)}
    with runners.knowledge_base(runners.passage_documents(passages)) as kb:
        documents = kb.fn.store.list_documents()
        assert sorted(d.title for d in documents) == sorted(titles)
        assert sorted(kb.key_of[d.id] for d in documents) == sorted(titles)
        assert kb.documents == 3 and kb.failed_files == 0


def test_tatqa_runner() -> None:
    """Each page is its own collection: a question is asked of its page alone, and its
    record says what was asked, answered and marked."""
    pages = read_pages(TATQA, 3)
    assert all(p.markdown.startswith(f"# Annual report page {i}") for i, p in enumerate(pages, 1))
    first = pages[0].markdown.splitlines()
    assert first[2].startswith("| ") and set(first[3]) <= {"|", " ", "-"}  # a Markdown table
    graded = sum(len(p.questions) for p in pages)
    types = {q.groups["answer type"] for p in pages for q in p.questions}
    assert graded and types <= {"span", "multi-span"}
    result = run_tatqa(TATQA, 3)
    assert result.pages == 3 and result.info.documents == 3 and result.overall.questions == graded
    assert len(result.items) == graded
    for item in result.items:
        assert item["refused"] == (item["answer"] is None)
        assert item["refused"] or (isinstance(item["holds"], bool) and item["length"] > 0)
        assert "exact" not in item or 0 <= item["f1"] <= 1
    answered = [i for i in result.items if not i["refused"]]
    assert result.overall.holds == sum(i["holds"] for i in answered)


def test_a_tatqa_cell_holding_a_pipe_stays_one_cell() -> None:
    context = {"table": {"table": [["", "2019"], ["A | B", "1"]]}, "paragraphs": []}
    assert "| A \\| B | 1 |" in page_markdown(1, context)


def financebench_subset(folder: Path, companies: set[str]) -> Path:
    """FinanceBench's questions about ``companies``, with its filings' descriptions."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = FINANCEBENCH.read_text().splitlines()
    kept = [line for line in lines if json.loads(line)["company"] in companies]
    (folder / FINANCEBENCH.name).write_text("\n".join(kept) + "\n")
    info = FINANCEBENCH.with_name("financebench_document_information.jsonl")
    (folder / info.name).write_text(info.read_text())
    return folder / FINANCEBENCH.name


def test_financebench_reads_filings_as_their_pages_under_a_cover() -> None:
    filings, questions = read_filings(FINANCEBENCH)
    assert len(questions) == 150 and len(filings) == 84
    markdown = filing_markdown("3M_2018_10K", filings["3M_2018_10K"])
    assert markdown.startswith("# 3M: Form 10-K for 2018\n")
    assert "## Page 59\n" in markdown and "Purchases of property, plant and equipment" in markdown
    capex = next(q for q in questions if q.id == "financebench_id_03029")
    assert capex.pages == (59,) and capex.figure == 1577.0  # "$1577.00", printed "1,577"
    assert numbers("$ (1,577) and 8.70%") == [1577.0, 8.7]
    assert {q.company for q in questions if q.kind == UNANSWERABLE} == {
        q.company for q in questions if held_out(q.company)
    }
    assert 0.25 < sum(held_out(q.company) for q in questions) / len(questions) < 0.45


def test_financebench_runner_asks_of_the_kept_filings_and_grades_by_page(tmp_path: Path) -> None:
    """3M's filings are ingested and its questions graded by the page they cite; Best
    Buy's are held out, so its questions are another company's, to be refused."""
    assert not held_out("3M") and held_out("Best Buy")
    subset = financebench_subset(tmp_path, {"3M", "Best Buy"})
    result = run_financebench(subset)
    assert result.companies == 1 and result.filings == result.info.documents == 3
    t = result.overall
    assert t.answerable == 8 and t.unanswerable == 8 and len(result.items) == 16
    for item in result.items:
        assert item["refused"] == (item["answer"] is None)
        pages = {f"Page {p}" for p in item["pages"]}
        on_page = [c for c in item["cited"] if c["doc"] == item["doc"]
                   and c["section"].split(" > ")[-1] in pages]  # fmt: skip
        assert item["right_page"] == bool(on_page)
        assert item["wrong_grounded"] == (item["grounded"] and not item["right_page"])
        if item["kind"] == UNANSWERABLE:
            assert not item["found"] and not item["right_page"]
            assert all(r["doc"] != item["doc"] for r in item["read"])  # not in the base
    assert t.found == sum(i["found"] for i in result.items)


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("squad", [str(SQUAD), "--articles", "1", "--questions", "3"]),
        (
            "offtopic",
            ["--kb", str(SQUAD), "--questions", str(NQ), "--articles", "1", "--limit", "3"],
        ),
        ("hotpot", [str(HOTPOT), "--questions", "1"]),
        ("tatqa", [str(TATQA), "--pages", "2"]),
        ("policyqa", [str(DATA / "policyqa" / "test.json"), "--policies", "1", "--questions", "3"]),
        ("conditionalqa", [str(DATA / "conditionalqa" / "dev.json"), "--pages", "1"]),
        ("beir", []),
        ("financebench", []),
    ],
)
def test_cli_prints_table_and_writes_json(name: str, args: list[str], tmp_path: Path) -> None:
    if name == "beir":
        folder, qrels = beir_subset(tmp_path / "scifact", documents=8, queries=2)
        args = [str(folder), "--qrels", str(qrels)]
    if name == "financebench":
        args = [str(financebench_subset(tmp_path / "financebench", {"Costco", "Foot Locker"}))]
    out = tmp_path / "out" / f"{name}.json"
    result = CliRunner().invoke(app, ["eval", name, *args, "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert f"footnoted eval {name}" in result.stdout
    assert "metric" in result.stdout and "threshold" in result.stdout and "%" in result.stdout
    data = json.loads(out.read_text())
    assert data["eval"] == name and data["metrics"] and data["info"]["model"]
    for metric in data["metrics"]:
        assert metric["value"] is None or 0 <= metric["value"] <= 1


def test_cli_names_a_knowledge_base_file_of_the_wrong_kind() -> None:
    args = ["eval", "offtopic", "--kb", str(NQ), "--questions", str(NQ)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1
    assert "[invalid_dataset]" in result.output and "is not a JSON file" in result.output


def test_cli_rejects_a_missing_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["eval", "squad", str(tmp_path / "nope.json")])
    assert result.exit_code != 0


def test_policy_evals_ask_each_document_alone() -> None:
    """PolicyQA: a policy is a document of its segments, each question carrying its
    segment as the gold passage; ConditionalQA: a page of its questions' evidence, the
    scenario asked with the question, yes/no answers graded on the evidence only."""
    policies = read_policies(DATA / "policyqa" / "test.json", 2, 5)
    assert len(policies) == 2 and all(len(p.questions) == 5 for p in policies)
    first = policies[0]
    assert first.markdown.startswith(f"# {first.id} privacy policy")
    for q in first.questions:
        assert q.passages[0] in first.markdown and holds(q.passages[0], [q.answers[0]])
    pages = read_conditional(DATA / "conditionalqa" / "dev.json")
    asked = [q for p in pages for q in p.questions]
    assert len(asked) == 271  # the 14 not answerable have no page
    yes_no = [q for q in asked if q.groups["answer type"] == "yes/no"]
    assert yes_no and all(not q.answers and q.passages for q in yes_no)
    assert all(not p.markdown.count("<") for p in pages)  # the evidence as text
    result = run_policyqa(DATA / "policyqa" / "test.json", 1, 4)
    assert result.overall.questions == 4 and len(result.items) == 4
    for item in result.items:
        assert item["refused"] or isinstance(item["quotes_passage"], bool)


def test_an_answer_quotes_the_passage_when_its_first_quote_is_in_it() -> None:
    passage = "We collect your email address when you register. We never sell it."
    assert quotes_passage("We collect your email address when you register. [1]", [passage])
    assert not quotes_passage("Cookies are set by partners. [1] We never sell it. [2]", [passage])
    assert quotes_passage("We never sell it. [1]", [passage, "Other text entirely here."])
