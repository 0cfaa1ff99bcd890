"""Sniffing: what kind of document some bytes are, judged by their content, and the
decoded text (UTF-8 or BOM-marked UTF-16) of the text kinds."""

from __future__ import annotations

import codecs
import io
import re
import zipfile
from collections.abc import Callable
from pathlib import PurePath
from typing import BinaryIO

from footnoted.errors import UnsupportedType
from footnoted.models import PART_BYTES, FileBytes

from .kinds import SUPPORTED_LIST, hinted

ZIP_ERRORS = (zipfile.BadZipFile, OSError, ValueError)  # what opening a bad archive raises

_IMAGES: tuple[tuple[bytes, str], ...] = (  # read by OCR
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"II*\x00", "tiff"),
    (b"MM\x00*", "tiff"),
)
_BINARY_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "a legacy Microsoft Office file (.doc, .xls, .ppt)"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"\x7fELF", "an executable program"),
    (b"{\\rtf", "an RTF document"),
)
_OFFICE = {"word/": "docx", "xl/": "xlsx", "ppt/": "pptx"}  # an archive's folder -> kind
_DECLARED = re.compile(  # <meta charset=…>, <meta … content="text/html; charset=…">, <?xml …?>
    rb"<meta\b[^>]*?charset\s*=\s*[\"']?([a-z0-9_.:-]+)"
    rb"|<\?xml\b[^>]*?encoding\s*=\s*[\"']([a-z0-9_.:-]+)",
    re.IGNORECASE,
)
_ASCII_SUPERSETS = {"ascii", "latin-1", "iso8859-1"}  # declared as such, meant as windows-1252
_MBOX_START = re.compile(rb"From [^\s]+[ \t]+[^\r\n]*\d\d:\d\d[^\r\n]*\r?\n[!-9;-~]+:")
_HEADERS = re.compile(rb"(?:[!-9;-~]+:[^\r\n]*\r?\n(?:[ \t][^\r\n]*\r?\n)*)+\r?\n")
_HTML_START = re.compile(
    r"\A(?:\s|<!--.*?-->|<\?xml[^>]*>)*<(?:!doctype\s+html|html|head|body)[\s>/]",
    re.IGNORECASE | re.DOTALL,
)


def detect_kind(data: bytes, filename: str) -> str:
    """Return "pdf", "docx", "xlsx", "pptx", "eml", "mbox", "html", "csv", "markdown",
    "text", "png", "jpeg" or "tiff", judged by content first.

    The extension only tells CSV and Markdown from plain text (and lets an ``.html``
    fragment count as HTML). Raises :class:`UnsupportedType` for any other binary data.
    """
    return sniff(data, filename)[0]


def detect_file_kind(file: FileBytes, filename: str) -> str:
    """:func:`detect_kind` for a file read as a stream, a part at a time: an archive's
    members from its directory, a text's encoding checked as it is read through."""
    with file.opener() as stream:
        head = stream.read(PART_BYTES)
        kind = _binary_kind(head, filename, lambda: _zip_names(stream))
        if kind is not None:
            return kind
        text = _decoded_head(head, stream)
    return _text_kind(text, filename)


def display_name(filename: str) -> str:
    """The file name to show in messages: no directories, never empty."""
    return PurePath(filename).name or filename or "The file"


def zip_members(data: bytes) -> list[zipfile.ZipInfo]:
    """The entries of a ZIP archive held in memory; raises one of :data:`ZIP_ERRORS`."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return archive.infolist()


def _zip_names(stream: BinaryIO) -> set[str]:
    with zipfile.ZipFile(stream) as archive:
        return {member.filename for member in archive.infolist()}


def sniff(data: bytes, filename: str) -> tuple[str, str | None]:
    """The kind of ``data`` and, for text kinds, its decoded text."""

    def names() -> set[str]:
        return {member.filename for member in zip_members(data)}

    kind = _binary_kind(data, filename, names)
    if kind is not None:
        return kind, None
    text = _decode(data)
    return _text_kind(text, filename), text


def _binary_kind(head: bytes, filename: str, names: Callable[[], set[str]]) -> str | None:
    """ "pdf", an Office, mail or image kind, by the file's first bytes (and an archive's
    member ``names``); None for what may be text; ``UnsupportedType`` for other binary
    data."""
    name = display_name(filename)
    if head[:1024].lstrip(b"\x00\t\n\r\f \xef\xbb\xbf")[:5] == b"%PDF-":
        return "pdf"
    mail = _mail_kind(head)
    if mail is not None:
        return mail
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return _sniff_zip(names, name, PurePath(filename).suffix.lower())
    for signature, kind in _IMAGES:
        if head.startswith(signature):
            return kind
    for signature, what in _BINARY_SIGNATURES:
        if head.startswith(signature):
            raise UnsupportedType(
                f"{name} looks like {what}, which is not supported; supported are {SUPPORTED_LIST}."
            )
    return None


def _mail_kind(head: bytes) -> str | None:
    """ "mbox" for a mailbox (a "From " line, then a message's headers), "eml" for a
    message (header lines up to the first blank line, with a sender and a date or a
    message id among them), None for anything else."""
    if _MBOX_START.match(head):
        return "mbox"
    block = _HEADERS.match(head)
    if block is None:
        return None
    names = {m.group(1).lower() for m in re.finditer(rb"(?m)^([!-9;-~]+):", block.group())}
    return "eml" if b"from" in names and names & {b"date", b"message-id"} else None


def _text_kind(text: str | None, filename: str) -> str:
    if text is None:
        raise UnsupportedType(
            f"{display_name(filename)} is not a supported document: it is binary data, or "
            f"text in an encoding other than UTF-8/UTF-16; supported are {SUPPORTED_LIST}."
        )
    if _HTML_START.match(text[:65536]):
        return "html"
    hint = hinted(PurePath(filename).suffix.lower())
    if hint == "html" and text.lstrip().startswith("<"):
        return "html"
    return hint if hint in ("markdown", "csv") else "text"


def _sniff_zip(names: Callable[[], set[str]], name: str, suffix: str) -> str:
    try:
        members = names()
    except ZIP_ERRORS as exc:
        if hinted(suffix) in _OFFICE.values():
            return hinted(suffix) or ""  # a damaged Office file: its loader says it is unreadable
        raise UnsupportedType(
            f"{name} is a damaged ZIP archive, not a supported document."
        ) from exc
    if "word/document.xml" in members:
        return "docx"
    for folder, kind in _OFFICE.items():
        if any(n.startswith(folder) for n in members) and "[Content_Types].xml" in members:
            return kind
    raise UnsupportedType(
        f"{name} is a ZIP archive (such as .odt or .epub) but not a Word, Excel or "
        f"PowerPoint document; supported are {SUPPORTED_LIST}."
    )


def _encoding(head: bytes) -> str:
    """UTF-8 (BOM optional), BOM-marked UTF-16, or the encoding an HTML page or XML file
    declares at its top (a saved web page in windows-1252). Undeclared legacy encodings
    are not guessed."""
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    return _declared(head) or "utf-8"


def _decode(data: bytes) -> str | None:
    """The text of ``data`` (:func:`_encoding`); None when it is not text."""
    try:
        text = data.decode(_encoding(data))
    except UnicodeDecodeError:
        return None
    return text if _looks_like_text(text, text) else None


def _decoded_head(head: bytes, stream: BinaryIO) -> str | None:
    """The first part's text, once the whole stream has decoded as text; else None."""
    decoder = codecs.getincrementaldecoder(_encoding(head))()
    try:
        first = decoder.decode(head)
        nul = "\x00" in first
        while part := stream.read(PART_BYTES):
            nul = nul or "\x00" in decoder.decode(part)
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return None
    return first if not nul and _looks_like_text(first, "") else None


def _looks_like_text(start: str, whole: str) -> bool:
    """No NUL (in ``whole``) and few control characters at the ``start``."""
    sample = start[:8192]
    controls = sum(1 for ch in sample if ch < " " and ch not in "\t\n\r\f\v")
    return "\x00" not in start and "\x00" not in whole and controls <= len(sample) // 100


def _declared(data: bytes) -> str | None:
    """The encoding declared in the first 4 KiB (Python's name for it), if Python knows it.
    As browsers do, ASCII and ISO-8859-1 are read as windows-1252, their superset."""
    found = _DECLARED.search(data[:4096])
    if found is None:
        return None
    try:
        name = codecs.lookup((found[1] or found[2]).decode("ascii")).name
    except LookupError:
        return None
    return "cp1252" if name in _ASCII_SUPERSETS else name
