"""Timestamps and JSON columns, stored the same way by every backend."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any


def now() -> str:
    """UTC, to the microsecond: sessions updated in the same millisecond keep their order."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)
