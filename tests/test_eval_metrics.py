"""The evaluation metrics on tiny, hand-checkable examples."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from footnoted.errors import InvalidInput
from footnoted.evaluation import metrics as m
from footnoted.evaluation.datasets import (
    read_hotpot,
    read_passages,
    read_qrels,
    read_squad,
    safe_stem,
)

SHARED40 = "abcdefghijklmnopqrstuvwxyz0123456789ABCD"  # 40 distinct characters


# -- answer contains gold ----------------------------------------------------------------


def test_contains_gold_ignores_case_whitespace_and_markers() -> None:
    answer = "The Normans settled in NORMANDY [1] in the 10th [2] \n century."
    assert m.contains_gold(answer, ["10th century"])  # marker and newline in between
    assert m.contains_gold(answer, ["normandy"])
    assert m.contains_gold(answer, ["nothing here", "Normans settled"])
    assert not m.contains_gold(answer, ["11th century"])
    assert not m.contains_gold(answer, [""])  # an empty gold never matches
    assert not m.contains_gold(None, ["Normandy"])  # a refusal contains nothing


def test_normalize() -> None:
    assert m.normalize("  A [12]  b\n\tC ") == "a b c"


# -- 40-character overlap ----------------------------------------------------------------


def test_overlap_needs_forty_consecutive_characters() -> None:
    passage = "___" + SHARED40 + "___"
    assert m.shares_passage("###" + SHARED40 + "###", passage)  # 40 shared
    assert not m.shares_passage("###" + SHARED40[:39] + "###", passage)  # 39 shared
    assert m.longest_common_substring("###" + SHARED40 + "###", passage) == 40
    assert m.longest_common_substring("###" + SHARED40[:39] + "###", passage) == 39


def test_overlap_collapses_whitespace() -> None:
    passage = "x" + SHARED40[:20] + " " + SHARED40[20:] + "x"
    assert m.shares_passage(SHARED40[:20] + "\n\n  " + SHARED40[20:], passage)


def test_short_chunk_counts_when_wholly_inside_the_passage() -> None:
    assert m.shares_passage("short chunk", "a passage with a short chunk inside")
    assert not m.shares_passage("short chunk!", "a passage with a short chunk inside")
    assert not m.shares_passage("   ", "anything")


# -- citation hit ------------------------------------------------------------------------


def test_citation_hit() -> None:
    paragraph = "Intro. " + SHARED40 + " The answer is Rollo of Normandy."
    good = SHARED40 + " The answer is Rollo"  # gold + overlap with the paragraph
    off_passage = "Elsewhere it says Rollo, but in another paragraph entirely, on and on."
    no_gold = SHARED40 + " nothing else"
    golds = ["Rollo"]
    assert m.citation_hit([good], golds, paragraph)
    assert m.citation_hit([no_gold, good], golds, paragraph)  # any referenced chunk
    assert not m.citation_hit([off_passage], golds, paragraph)  # gold but wrong passage
    assert not m.citation_hit([no_gold], golds, paragraph)  # right passage, no gold
    assert not m.citation_hit(None, golds, paragraph)  # a refused question is a miss
    assert not m.citation_hit([], golds, paragraph)


def test_first_hit_is_the_rank_of_the_first_citation_hit() -> None:
    paragraph = "Intro. " + SHARED40 + " The answer is Rollo of Normandy."
    good = SHARED40 + " The answer is Rollo"
    off_passage = "Elsewhere it says Rollo, but in another paragraph entirely, on and on."
    no_gold = SHARED40 + " nothing else"
    assert m.first_hit([off_passage, no_gold, good, good], ["Rollo"], paragraph) == 3
    assert m.first_hit([good], ["Rollo"], paragraph) == 1
    assert m.first_hit([off_passage, no_gold], ["Rollo"], paragraph) is None
    assert m.first_hit([], ["Rollo"], paragraph) is None


def test_rates_with_a_refused_question() -> None:
    # three answerable questions: hit, miss, refused (None) -> 1/3
    paragraph = SHARED40 + " gold"
    outcomes = [
        m.citation_hit([SHARED40 + " gold"], ["gold"], paragraph),
        m.citation_hit(["unrelated text that mentions gold somewhere else"], ["gold"], paragraph),
        m.citation_hit(None, ["gold"], paragraph),
    ]
    assert m.rate(sum(outcomes), len(outcomes)) == pytest.approx(1 / 3)
    assert m.rate(0, 0) is None


# -- retrieval ---------------------------------------------------------------------------


def test_ndcg_at_10_by_hand() -> None:
    # qrels: d1 = 2, d2 = 1, d3 judged 0. Ranking: d3, d1, d2.
    # DCG  = 0/log2(2) + 2/log2(3) + 1/log2(4) = 1.261860 + 0.5 = 1.761860
    # IDCG = 2/log2(2) + 1/log2(3)             = 2 + 0.630930 = 2.630930
    # nDCG = 1.761860 / 2.630930 = 0.669672
    qrels = {"d1": 2, "d2": 1, "d3": 0}
    assert m.ndcg_at_k(["d3", "d1", "d2"], qrels, 10) == pytest.approx(0.669672, abs=1e-6)
    assert m.ndcg_at_k(["d1", "d2", "d3"], qrels, 10) == pytest.approx(1.0)
    assert m.ndcg_at_k(["x", "y"], qrels, 10) == 0.0
    assert m.ndcg_at_k(["d1"], {"d1": 0}, 10) == 0.0  # no relevant documents
    # the cut: a relevant document at rank 11 does not count
    assert m.ndcg_at_k([f"x{i}" for i in range(10)] + ["d1"], {"d1": 1}, 10) == 0.0
    single = m.ndcg_at_k(["x", "d1"], {"d1": 1}, 10)
    assert single == pytest.approx(1 / math.log2(3))


def test_recall_at_100() -> None:
    qrels = {"a": 1, "b": 1, "c": 2, "d": 1, "z": 0}
    ranked = ["a", *[f"x{i}" for i in range(50)], "c", *[f"y{i}" for i in range(48)], "d"]
    assert len(ranked) == 101  # d sits at rank 101
    assert m.recall_at_k(ranked, qrels, 100) == pytest.approx(0.5)
    assert m.recall_at_k(ranked, {"z": 0}, 100) == 0.0


def test_first_occurrences_keep_best_rank() -> None:
    assert m.first_occurrences(["b", "a", "b", "c", "a"]) == ["b", "a", "c"]


# -- off-topic skip rule -----------------------------------------------------------------


def test_offtopic_skip_rule_whole_words_case_insensitive() -> None:
    kb = m.kb_text(["The Normans came from Normandy.", "Warsaw is the  capital\nof Poland."])
    assert m.answer_in_text(["normandy"], kb)
    assert m.answer_in_text(["nothing", "Capital of Poland"], kb)  # phrase across a newline
    assert not m.answer_in_text(["Norman"], kb)  # part of a word only
    assert not m.answer_in_text(["war"], kb)  # prefix of "Warsaw"
    assert not m.answer_in_text(["", "   "], kb)
    assert not m.answer_in_text([], kb)
    assert m.answer_in_text(["Poland"], kb)  # followed by a full stop


# -- HotpotQA ----------------------------------------------------------------------------


def test_hotpot_title_coverage() -> None:
    supporting = ["Ed Wood", "Scott Derrickson"]
    assert m.title_coverage(["Ed Wood", "Scott Derrickson", "Other"], supporting) == (True, True)
    assert m.title_coverage(["Ed Wood", "Ed Wood"], supporting) == (False, True)
    assert m.title_coverage(["Other"], supporting) == (False, False)
    assert m.title_coverage([], supporting) == (False, False)
    assert m.is_yes_no(" Yes ") and m.is_yes_no("no") and not m.is_yes_no("Norway")


# -- readers -----------------------------------------------------------------------------


def test_safe_stem() -> None:
    assert safe_stem("Super Bowl 50") == "Super Bowl 50"
    assert safe_stem("Sky (United Kingdom)") == "Sky (United Kingdom)"
    assert safe_stem("2011–12 VCU Rams; Tunnels &amp; Trolls!") == (
        "2011–12 VCU Rams; Tunnels &amp; Trolls!"
    )
    odd = safe_stem("AC/DC")
    assert "/" not in odd and odd != safe_stem("AC_DC")
    assert not safe_stem(".hidden").startswith(".")
    assert len(safe_stem("x" * 500)) <= 130


def test_read_squad_caps_and_qrels(tmp_path: Path) -> None:
    squad = tmp_path / "squad.json"
    squad.write_text(
        '{"version": "v2.0", "data": ['
        '{"title": "A_b", "paragraphs": [{"context": "Ctx one.", "qas": ['
        '{"id": "1", "question": "q1?", "answers": [{"text": "one", "answer_start": 4},'
        ' {"text": "one", "answer_start": 4}], "is_impossible": false},'
        '{"id": "2", "question": "q2?", "answers": [], "is_impossible": true}]}]},'
        '{"title": "C", "paragraphs": []}]}'
    )
    articles = read_squad(squad, articles=1, questions=1)
    assert len(articles) == 1 and articles[0].name == "A b"
    (q,) = articles[0].questions
    assert q.answers == ("one",) and q.paragraph == "Ctx one." and not q.is_impossible
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t2\nq0\td3\t1\n")
    assert read_qrels(qrels) == {"q1": {"d1": 1, "d2": 2}, "q0": {"d3": 1}}
    assert list(read_qrels(qrels)) == ["q1", "q0"]  # file order


HOTPOT_ROWS = (
    '[{"_id": "h1", "question": "q?", "answer": "a", "supporting_facts": [["T1", 0]],'
    ' "context": [["T1", ["One. ", "Two."]], ["T2", ["Three."]]]},'
    ' {"_id": "h2", "question": "q2?", "answer": "b", "supporting_facts": [["T2", 0]],'
    ' "context": [["T2", ["Other."]], ["T3", ["Four."]]]}]'
)


def test_read_passages_takes_squad_articles_or_hotpot_paragraphs(tmp_path: Path) -> None:
    squad = tmp_path / "squad.json"
    squad.write_text(
        '{"data": [{"title": "A_b", "paragraphs": [{"context": "P one.", "qas": []},'
        ' {"context": "P two.", "qas": []}]}, {"title": "C", "paragraphs": []}]}'
    )
    assert read_passages(squad) == {"A b": "P one.\n\nP two.", "C": ""}
    assert read_passages(squad, limit=1) == {"A b": "P one.\n\nP two."}
    hotpot = tmp_path / "hotpot.json"
    hotpot.write_text(HOTPOT_ROWS)
    # a title that recurs keeps its first paragraph
    assert read_passages(hotpot) == {"T1": "One. Two.", "T2": "Three.", "T3": "Four."}
    assert read_passages(hotpot, limit=1) == {"T1": "One. Two.", "T2": "Three."}


def test_dataset_files_of_the_wrong_kind_are_refused_with_a_code(tmp_path: Path) -> None:
    hotpot = tmp_path / "hotpot.json"
    hotpot.write_text(HOTPOT_ROWS)
    jsonl = tmp_path / "questions.jsonl"
    jsonl.write_text('{"question": "a?", "answer": ["x"]}\n{"question": "b?", "answer": ["y"]}\n')
    other = tmp_path / "other.json"
    other.write_text('{"questions": []}')
    cases = [
        (lambda: read_squad(hotpot), "is not SQuAD 2.0 JSON"),
        (lambda: read_hotpot(other), "is not HotpotQA JSON"),
        (lambda: read_passages(other), "is not SQuAD 2.0 JSON (an object with a 'data' list) or"),
        (lambda: read_passages(jsonl), "is not a JSON file"),
    ]
    for read, message in cases:
        with pytest.raises(InvalidInput) as caught:
            read()
        assert caught.value.code == "invalid_dataset"
        assert message in caught.value.message
