"""The service: the ``Footnoted`` facade that wires the stages (``facade``), and what the
transports share above it: accounts, conversation exports, session titles and the PDF
page viewer.
"""

from __future__ import annotations

from .facade import AskResult, Footnoted

__all__ = ["AskResult", "Footnoted"]
