"""File sizes: the one-file size limit, and sizes as they appear in messages."""

from __future__ import annotations

from footnoted.errors import TooLarge

_MB = 1024 * 1024


def megabytes(size: int) -> str:
    """``size`` in binary megabytes, with the byte count when it is under 0.1 MB."""
    text = f"{size / _MB:.1f} MB"
    return text if size >= _MB // 10 else f"{text} ({size:,} bytes)"


def check_size(size: int, max_bytes: int | None, name: str) -> None:
    """Raise :class:`TooLarge` when a file of ``size`` bytes is over ``max_bytes``.

    ``None`` means no limit. Every path that reads a file checks it here, so they all
    say the same thing.
    """
    if max_bytes is not None and size > max_bytes:
        raise TooLarge(
            f"{name} is {megabytes(size)}, over the {megabytes(max_bytes)} limit for one file."
        )
