"""Small text helpers shared by retrieval, evidence and answering."""

from __future__ import annotations

import re
from functools import cache, lru_cache

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)


@cache
def stop_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    extra = {"does", "did", "doing", "done", "s", "t", "d", "ll", "m", "re", "ve", "whom", "whose"}
    return frozenset(ENGLISH_STOP_WORDS) | extra


def words(text: str) -> list[str]:
    """Lower-cased word tokens (letters and digits; apostrophes kept inside words)."""
    if text.isascii():  # lower-casing ASCII maps character to character: one pass
        return _WORD.findall(text.lower())
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A light, predictable English stemmer: possessives, plurals and common suffixes.

    Cached: the same words recur across every chunk a question retrieves.
    """
    w = word.lower()
    if w.endswith("'s"):
        w = w[:-2]
    for suffix, keep in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("edly", ""), ("ed", ""),
                         ("es", ""), ("s", ""), ("ly", "")):  # fmt: skip
        if w.endswith(suffix) and len(w) - len(suffix) >= 3 and not w.endswith("ss"):
            return w[: -len(suffix)] + keep
    return w


def content_words(text: str) -> list[str]:
    """Words that carry meaning: no stop words, no single letters; in order, unique."""
    stops = stop_words()
    kept = (w for w in words(text) if w not in stops and (len(w) > 1 or w.isdigit()))
    return list(dict.fromkeys(kept))


def content_stems(text: str) -> set[str]:
    return {stem(w) for w in content_words(text)}
