"""Loaders: a file's bytes -> canonical text with page, section path and offsets.

:func:`load_bytes` sniffs the kind from the content (never trusting the extension
alone), guards against oversized input and decompression bombs, and dispatches to one
loader per kind. Every loader produces blocks (one paragraph-like run of text with its
page and heading path) that :func:`.blocks.assemble` joins into
:attr:`ParsedDocument.text`, with one :class:`Segment` per block.

Modules: ``kinds`` (the one table of kinds: names, suffixes, media types), ``load``
(entry points, a loader per kind), ``sniff`` (which kind, encodings), ``sizes`` (size limit),
``blocks`` (shared block/segment builder), and one per kind: ``pdf`` (+ ``pdflayout``),
``word`` (.docx), ``web`` (HTML), ``md`` (Markdown), ``plain`` (text).
"""

from __future__ import annotations

from .kinds import KINDS, media_type
from .load import load_bytes, load_path
from .sizes import check_size
from .sniff import detect_kind

__all__ = [
    "KINDS",
    "MAX_ARCHIVE_UNCOMPRESSED_BYTES",
    "MAX_HTML_NESTING",
    "MAX_PDF_PAGES",
    "MAX_SHEET_CELLS",
    "MAX_TEXT_CHARS",
    "MAX_ZIP_MEMBERS",
    "MAX_ZIP_RATIO",
    "check_size",
    "detect_kind",
    "load_bytes",
    "load_path",
    "media_type",
]

# Limits on hostile input. The loaders read them from this package each time they run,
# so setting one here (``footnoted.loaders.MAX_PDF_PAGES = 100``) takes effect in this
# process; ingestion parses in a worker process (``footnoted.ingest.parsing``), which has its own.
MAX_PDF_PAGES = 5000
MAX_TEXT_CHARS = 20_000_000
MAX_ARCHIVE_UNCOMPRESSED_BYTES = 200 * 1024 * 1024
MAX_ZIP_RATIO = 100
MAX_ZIP_MEMBERS = 10_000
MAX_SHEET_CELLS = 5_000_000  # cells read from one workbook or CSV file
MAX_HTML_NESTING = 10_000  # the HTML parser's time grows with the square of the depth
