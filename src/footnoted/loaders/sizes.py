"""File sizes: the one-file size limit, and sizes as they appear in messages."""

from __future__ import annotations

from footnoted.errors import DocumentError, TooLarge

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


_RATIO_CHECK_MIN_BYTES = 1024 * 1024  # tiny members may compress well for innocent reasons


def check_archive(data: bytes, name: str, what: str) -> None:
    """Refuse an Office archive (``what``: ".docx", ".xlsx", ".pptx") that would expand
    to far more than it weighs, before its parser sees it.

    The limits are read from the package when called, so overriding them on
    ``footnoted.loaders`` takes effect.
    """
    from footnoted import loaders

    from .sniff import ZIP_ERRORS, zip_members

    try:
        members = zip_members(data)
    except ZIP_ERRORS as exc:
        raise DocumentError(f"{name} is not a valid {what} file (damaged ZIP archive).") from exc
    if len(members) > loaders.MAX_ZIP_MEMBERS:
        raise DocumentError(f"{name} holds {len(members):,} files; refusing it as a zip bomb.")
    total = sum(member.file_size for member in members)
    limit = loaders.MAX_ARCHIVE_UNCOMPRESSED_BYTES
    if total > limit:
        raise DocumentError(
            f"{name} would expand to {megabytes(total)} when unpacked, over the "
            f"{megabytes(limit)} limit; refusing it as a zip bomb."
        )
    for member in members:
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > _RATIO_CHECK_MIN_BYTES and ratio > loaders.MAX_ZIP_RATIO:
            raise DocumentError(
                f"{name} contains {member.filename!r} compressed {ratio:,.0f}:1 (the limit is "
                f"{loaders.MAX_ZIP_RATIO}:1); refusing it as a zip bomb."
            )
