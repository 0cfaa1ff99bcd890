"""Pure metric functions used by the evaluation runners.

Everything here is deterministic and free of I/O so it can be unit-tested on tiny
hand-checked examples.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from ..lexical import MARKER

MIN_OVERLAP = 40
YES_NO = frozenset({"yes", "no"})
_WS = re.compile(r"\s+")


def normalize(text: str) -> str:
    """Lower-case, citation markers like ``[1]`` removed, whitespace collapsed."""
    return _WS.sub(" ", MARKER.sub(" ", text)).strip().lower()


def collapse(text: str) -> str:
    """Whitespace collapsed to single spaces and trimmed (case kept)."""
    return _WS.sub(" ", text).strip()


def rate(hits: int, total: int) -> float | None:
    """``hits / total``, or ``None`` when there is nothing to measure."""
    return hits / total if total else None


def answer_length(answer_text: str) -> int:
    """An answer's length in characters, its citation markers aside."""
    return len(MARKER.sub("", answer_text).strip())


def contains_any(text: str, golds: Iterable[str]) -> bool:
    """True when some non-empty gold string occurs in ``text`` (case/space-insensitive)."""
    haystack = normalize(text)
    return any(g and g in haystack for g in (normalize(g) for g in golds))


def contains_gold(answer_text: str | None, golds: Iterable[str]) -> bool:
    """Answer-contains-gold: a refusal (``None``) never contains the gold answer."""
    return answer_text is not None and contains_any(answer_text, golds)


def shares_passage(chunk: str, passage: str, min_len: int = MIN_OVERLAP) -> bool:
    """True when ``chunk`` and ``passage`` share ``min_len`` consecutive characters.

    Both sides are whitespace-collapsed first. A chunk shorter than ``min_len`` counts
    when it is contained in the passage as a whole. Equivalent to "longest common
    substring >= min_len", computed in linear time: some ``min_len``-character window
    of the chunk must be a window of the passage.
    """
    a, b = collapse(chunk), collapse(passage)
    if not a:
        return False
    if len(a) < min_len:
        return a in b
    if len(b) < min_len:
        return False
    windows = {b[i : i + min_len] for i in range(len(b) - min_len + 1)}
    return any(a[i : i + min_len] in windows for i in range(len(a) - min_len + 1))


def longest_common_substring(a: str, b: str) -> int:
    """Length of the longest common substring (for reports; O(n·m) worst case)."""
    from difflib import SequenceMatcher

    match = SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b))
    return match.size


def citation_hit(
    referenced_texts: Sequence[str] | None, golds: Sequence[str], gold_passage: str
) -> bool:
    """Some referenced chunk contains a gold answer and overlaps the gold passage.

    ``None`` (a refused question) is a miss.
    """
    if not referenced_texts:
        return False
    return any(
        contains_any(text, golds) and shares_passage(text, gold_passage)
        for text in referenced_texts
    )


def first_hit(texts: Sequence[str], golds: Sequence[str], gold_passage: str) -> int | None:
    """1-based rank of the first text that would be a citation hit; ``None`` if none is."""
    for rank, text in enumerate(texts, 1):
        if citation_hit([text], golds, gold_passage):
            return rank
    return None


def first_occurrences(items: Iterable[str]) -> list[str]:
    """Items in order of first appearance (chunks -> documents by best rank)."""
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(item, None)
    return list(seen)


def ndcg_at_k(ranked: Sequence[str], qrels: Mapping[str, int], k: int = 10) -> float:
    """nDCG@k as trec_eval/pytrec_eval ``ndcg_cut`` computes it (BEIR's definition).

    Gain is the graded relevance itself, discount ``log2(rank + 1)`` with ranks from
    1; the ideal DCG ranks all judged documents by relevance. Documents judged <= 0
    contribute nothing. A query without relevant documents scores 0.
    """
    ideal = sorted((r for r in qrels.values() if r > 0), reverse=True)[:k]
    idcg = sum(rel / math.log2(i + 2) for i, rel in enumerate(ideal))
    if idcg == 0:
        return 0.0
    dcg = sum(max(qrels.get(doc, 0), 0) / math.log2(i + 2) for i, doc in enumerate(ranked[:k]))
    return dcg / idcg


def recall_at_k(ranked: Sequence[str], qrels: Mapping[str, int], k: int = 100) -> float:
    """Share of the relevant (judged > 0) documents found in the top ``k``."""
    relevant = {doc for doc, rel in qrels.items() if rel > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def kb_text(texts: Iterable[str]) -> str:
    """Knowledge-base text prepared for :func:`answer_in_text`: lower-case, spaces collapsed."""
    return "\n".join(collapse(t).lower() for t in texts)


def answer_in_text(golds: Iterable[str], prepared: str) -> bool:
    """Off-topic skip rule: some gold answer appears as a whole word/phrase.

    ``prepared`` comes from :func:`kb_text` (case-insensitive matching). "Whole" means
    no letter or digit touches the phrase on either side.
    """
    for gold in golds:
        phrase = collapse(gold).lower()
        if not phrase or phrase not in prepared:
            continue
        if re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", prepared):
            return True
    return False


def title_coverage(cited: Iterable[str], supporting: Iterable[str]) -> tuple[bool, bool]:
    """(all supporting titles cited, at least one cited); no supporting titles -> both False."""
    need = set(supporting)
    found = need.intersection(cited)
    return (bool(need) and found == need, bool(found))


def is_yes_no(answer: str) -> bool:
    return answer.strip().lower() in YES_NO


# -- the official SQuAD answer metrics -----------------------------------------------------
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = frozenset(string.punctuation)


def squad_normalize(text: str) -> str:
    """SQuAD's answer normalisation: lower case, no punctuation, articles or extra spaces."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(prediction: str, golds: Iterable[str]) -> float:
    """1.0 when the normalised prediction equals some normalised gold answer."""
    return float(any(squad_normalize(prediction) == squad_normalize(g) for g in golds))


def f1(prediction: str, golds: Iterable[str]) -> float:
    """The best token-overlap F1 against the gold answers (SQuAD's definition)."""
    best = 0.0
    predicted = squad_normalize(prediction).split()
    for gold in golds:
        truth = squad_normalize(gold).split()
        common = sum((Counter(predicted) & Counter(truth)).values())
        if common:
            precision, recall = common / len(predicted), common / len(truth)
            best = max(best, 2 * precision * recall / (precision + recall))
    return best


def quoted_from(quotes: Sequence[str], passages: Sequence[str]) -> int:
    """How many quotes lie inside one of ``passages`` (whitespace-insensitive)."""
    flat = [collapse(p) for p in passages]
    return sum(1 for q in quotes if any(collapse(q) in p for p in flat))
