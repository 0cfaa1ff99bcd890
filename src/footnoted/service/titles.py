"""Session titles: the first message, cut to at most 80 characters at a word boundary.

When the message is cut, trailing stop words and punctuation are dropped and "…" is
appended; a message that fits is kept as it is (whitespace collapsed).
"""

from __future__ import annotations

MAX_TITLE_CHARS = 80
ELLIPSIS = "…"
_TRAILING_STOP_WORDS = frozenset(
    (
        "a", "about", "above", "after", "again", "against", "all", "also", "an", "and", "any",
        "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
        "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each",
        "either", "for", "from", "had", "has", "have", "having", "he", "her", "here", "hers",
        "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "me", "more", "most",
        "my", "neither", "nor", "not", "of", "off", "on", "once", "only", "or", "other", "our",
        "ours", "out", "over", "own", "per", "same", "she", "should", "so", "some", "such", "than",
        "that", "the", "their", "theirs", "them", "then", "there", "these", "they", "this",
        "those", "through", "to", "too", "under", "until", "up", "upon", "very", "via", "was",
        "we", "were", "what", "when", "where", "which", "while", "who", "whom", "whose", "why",
        "will", "with", "within", "without", "would", "you", "your", "yours",
    )
)  # fmt: skip
_PUNCTUATION = ".,;:!?-–—…'\"()[]{}/\\&*_`~|<>=+#@%^"


def session_title(message: str) -> str:
    text = " ".join(message.split())
    if len(text) <= MAX_TITLE_CHARS:
        return text
    budget = MAX_TITLE_CHARS - len(ELLIPSIS)
    head = text[: budget + 1]
    cut = head.rsplit(" ", 1)[0] if " " in head else text[:budget]
    cut = cut[:budget]
    return _trim(cut) + ELLIPSIS


def _trim(text: str) -> str:
    """Drop trailing stop words and punctuation; keep the text if nothing would remain."""
    words = text.split(" ")
    while words:
        last = words[-1].rstrip(_PUNCTUATION)
        if last and last.lower() not in _TRAILING_STOP_WORDS:
            words[-1] = last
            return " ".join(words)
        words.pop()
    return text.rstrip(_PUNCTUATION) or text
