"""A message's envelope is read only where the question asks what it says.

Mail opens each message with its envelope ("From: Ted · To: Bob, Carol, Alice · Date:
2005-07-28 15:47 · Subject: get together for lunch to discuss Networks?",
``loaders.mail.ENVELOPE``). It answers who sent a message, to whom and when; asked why
Ted wants laptops brought, the reader would take the subject's question mark and the
names it shares with the question for the answer. So the reader reads a passage with
its envelopes blanked (the same length of spaces, every offset kept: the subject is the
message's section, as a heading is) but for the sender's name, whom the question may
name ("Why does Ted ask …"), unless the question asks who sent or received a message,
when, or its subject (:func:`asks_envelope`).
"""

from __future__ import annotations

import re

from ..loaders.mail import ENVELOPE, FIELDS

_MAILED = (
    r"(?:sen[dt]|sending|wr[io]te|written|writing|forward\w*|post(?:ed|s)?|e-?mail\w*|"
    r"mail(?:ed)?|repl(?:y|ied|ies)|answer(?:ed|s)?|respond(?:ed|s)?|cc'?d|copied|"
    r"address(?:ed)?|receiv\w*|got|message|sender|recipients?|thread|discussion|"
    r"participa\w*)"
)
_ASKS = re.compile(
    rf"\b(?:who(?:m)?|when|(?:what|which)\s+(?:date|day|time|year|month))\b[^?]*\b{_MAILED}\b"
    r"|\bto\s+whom\b|\bfrom\s+whom\b|\bwho\s+(?:is|was)\s+the\s+(?:sender|recipient)\b"
    r"|\bsubject(?:\s+line)?\s+of\b|\bhow\s+many\s+(?:people|recipients)\b",
    re.IGNORECASE,
)
_SENDER = re.compile(rf"From: (.*?){FIELDS}")


def asks_envelope(question: str) -> bool:
    """Whether the question asks who sent or received a message, when, or its subject."""
    return bool(_ASKS.search(question))


def readable(text: str, question: str) -> str:
    """``text`` as the reader reads it for ``question``: its envelopes blanked unless the
    question asks what they say."""
    if "Subject: " not in text or asks_envelope(question):
        return text
    return ENVELOPE.sub(_sender_only, text)


def _sender_only(envelope: re.Match[str]) -> str:
    """An envelope blanked but for its sender's name, who the question may name."""
    line = envelope.group()
    sender = _SENDER.match(line)
    if sender is None:
        return " " * len(line)
    return " " * sender.start(1) + sender[1] + " " * (len(line) - sender.end(1))
