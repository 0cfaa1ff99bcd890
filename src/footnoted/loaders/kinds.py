"""The kinds of document footnoted reads: one row each, the one place a kind is named.

A kind's row says how messages name it, the file suffixes that hint at it (content
decides: ``sniff``), and the media type its original file is sent back as. Its loader is
the function of the same name in ``load``; a test checks every kind has one.
"""

from __future__ import annotations

from dataclasses import dataclass

OTHER_MEDIA_TYPE = "application/octet-stream"


@dataclass(frozen=True, slots=True)
class Kind:
    name: str
    label: str  # in a sentence: "Could not read x as a PDF"
    listed: str  # in the list of what is supported
    suffixes: tuple[str, ...]
    media_type: str


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind("pdf", "a PDF", "PDF", (".pdf",), "application/pdf"),
        Kind(
            "docx",
            "a Word document",
            "Word (.docx)",
            (".docx",),
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        ),
        Kind(
            "xlsx",
            "an Excel workbook",
            "Excel (.xlsx)",
            (".xlsx",),
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        ),
        Kind(
            "pptx",
            "a PowerPoint deck",
            "PowerPoint (.pptx)",
            (".pptx",),
            "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        ),
        Kind("csv", "a CSV file", "CSV", (".csv", ".tsv"), "text/csv; charset=utf-8"),
        Kind("eml", "an email message", "email (.eml)", (".eml",), "message/rfc822"),
        Kind("mbox", "a mailbox", "mailboxes (.mbox)", (".mbox", ".mbx"), "application/mbox"),
        Kind("html", "an HTML page", "HTML", (".html", ".htm"), "text/html; charset=utf-8"),
        Kind(
            "markdown",
            "Markdown",
            "Markdown",
            (".md", ".markdown"),
            "text/markdown; charset=utf-8",
        ),
        Kind("text", "plain text", "plain text", (".txt", ".text"), "text/plain; charset=utf-8"),
        Kind("png", "a PNG image", "PNG", (".png",), "image/png"),
        Kind("jpeg", "a JPEG image", "JPEG", (".jpg", ".jpeg"), "image/jpeg"),
        Kind("tiff", "a TIFF image", "TIFF (images read by OCR)", (".tif", ".tiff"), "image/tiff"),
    )
}
_LISTED = [k.listed for k in KINDS.values()]
SUPPORTED_LIST = f"{', '.join(_LISTED[:-1])} and {_LISTED[-1]}"  # for messages


def hinted(suffix: str) -> str | None:
    """The kind a file suffix (lower case, with its dot) suggests, if any."""
    return next((k.name for k in KINDS.values() if suffix in k.suffixes), None)


def media_type(kind: str) -> str:
    """What a stored original of this kind is sent as."""
    known = KINDS.get(kind)
    return OTHER_MEDIA_TYPE if known is None else known.media_type
