"""Entry points: check the size, sniff the kind, dispatch to that kind's loader, and turn
every failure into a :class:`FootnotedError` that names the file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from footnoted import loaders
from footnoted.errors import DocumentError, FootnotedError, NotFound
from footnoted.models import ParsedDocument

from . import ocr
from .blocks import clean, describe
from .docx import load_docx
from .html import load_html
from .image import load_image
from .kinds import KINDS
from .mail import load_eml, load_mbox
from .markdown import load_markdown
from .pdf import load_pdf
from .sheets import load_csv, load_xlsx
from .sizes import check_size
from .slides import load_pptx
from .sniff import display_name, sniff
from .text import load_text

LOADERS: dict[str, Callable[[bytes, str | None, str], ParsedDocument]] = {  # one per kind
    "pdf": load_pdf,
    "docx": load_docx,
    "xlsx": load_xlsx,
    "pptx": load_pptx,
    "csv": load_csv,
    "eml": load_eml,
    "mbox": load_mbox,
    "html": load_html,
    "markdown": load_markdown,
    "text": load_text,
    "png": load_image,
    "jpeg": load_image,
    "tiff": load_image,
}


def load_bytes(data: bytes, filename: str, *, max_bytes: int | None = None) -> ParsedDocument:
    """Parse a document held in memory; every failure is a :class:`FootnotedError`."""
    name = display_name(filename)
    check_size(len(data), max_bytes, name)
    if not data or data.isspace():
        raise DocumentError(f"{name} is empty.")
    kind, text = sniff(data, filename)
    if text is not None and not clean(text):
        raise DocumentError(f"{name} is empty.")
    _check_text_size(len(text or ""), name)
    try:
        document = LOADERS[kind](data, text, name)
    except (FootnotedError, MemoryError):
        raise
    except Exception as exc:
        raise DocumentError(
            f"Could not read {name} as {KINDS[kind].label}: {describe(exc)}"
        ) from exc
    if not document.text:
        raise DocumentError(_no_text_message(name, kind))
    _check_text_size(len(document.text), name)
    return document


def _check_text_size(chars: int, name: str) -> None:
    """Refuse text past ``loaders.MAX_TEXT_CHARS`` (read when called, so overriding it on
    ``footnoted.loaders`` takes effect): chunking and embedding it would take hours."""
    limit = loaders.MAX_TEXT_CHARS
    if chars > limit:
        raise DocumentError(
            f"{name} holds {chars:,} characters of text, over the {limit:,} limit for one "
            "document; split it into smaller files.",
            code="text_too_long",
        )


def load_path(path: Path, *, max_bytes: int | None = None) -> ParsedDocument:
    """Read and parse a file, checking its size before reading it."""
    try:
        check_size(path.stat().st_size, max_bytes, path.name)
        with path.open("rb") as handle:
            data = handle.read() if max_bytes is None else handle.read(max_bytes + 1)
    except FileNotFoundError as exc:
        raise NotFound(f"No such file: {path}") from exc
    except OSError as exc:
        raise DocumentError(f"Could not read {path.name}: {exc.strerror or exc}") from exc
    return load_bytes(data, path.name, max_bytes=max_bytes)


def _no_text_message(name: str, kind: str) -> str:
    if kind == "pdf" and ocr.engine() is None:
        how = "turn OCR on (FOOTNOTED_OCR_ENGINE=auto)" if ocr.turned_off() else ocr.INSTALL_HINT
        return (
            f"{name} has no extractable text; it may be a scanned document without a text "
            f"layer: {how}, or run OCR on it first."
        )
    if kind == "pdf":
        return f"{name} has no extractable text, and OCR found none on its pages either."
    return f"{name} has no extractable text."
