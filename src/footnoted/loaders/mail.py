"""Email: one message (EML) or a mailbox of them (MBOX).

Each message is a section named by its subject. It opens with who sent it, to whom and
when ("From: … · To: … · Date: … · Subject: …"), then its text: the plain-text body (quoted lines
read as the sentences they are, the signature left out), or the HTML body's text where
there is no plain one. A text attachment (plain, Markdown, CSV, HTML) is read as a
section of its own under the message ("Attachment: notes.txt"); an attached document of
another kind footnoted reads (PDF, Word, Excel, PowerPoint, a forwarded message…) is read
as a document of its own, linked to the message (``ParsedDocument.attachments``; the
ingestor stores it); any other attachment (an image, an archive) is named under the
message. An EML's title is its subject, with its mailing list's name after it where it
has one ("[SAdev] [Bug 1053] New: IMG tag based rules (SpamAssassin Developers)"), and
so is a mailbox's of one message (a message saved with its "From " line); a mailbox's of
more is its mailing list's name where all its messages are of that one list (a mailbox
of several lists, or of none, is titled by its file's name).
"""

from __future__ import annotations

import re
from dataclasses import replace
from email import policy
from email.message import EmailMessage, MIMEPart
from email.parser import BytesParser
from email.utils import getaddresses, parsedate_to_datetime

from footnoted.errors import FootnotedError
from footnoted.models import Attachment, ParsedDocument

from .blocks import Block, assemble, clean, clean_title
from .columns import ColumnTables
from .html import html_fragment_blocks
from .sheets import load_csv
from .sniff import detect_kind

# a mailbox's messages each start with a "From " line at the start of the file or after
# a blank line; a body line starting "From " is written ">From "
_FROM_LINE = re.compile(rb"(?:\A|\n\n|\r\n\r\n)(From [^\r\n]*\r?\n)")
_TEXT_ATTACHMENTS = ("text/plain", "text/markdown", "text/csv", "text/html")
_IMAGE_KINDS = ("png", "jpeg", "tiff")
MAX_ATTACHMENTS = 100  # read as documents of their own, per file
# quote markers at a line's start (or a space in): an indented ">> NEWS <<" is text
_QUOTED = re.compile(r" ?>(?:[ \t]*>)*[ \t]?")
_LIST_NAME = re.compile(r"^\s*(.*?)\s*<[^>]*>\s*$")
FIELDS = " · "  # between the fields of a message's envelope
# a message's envelope as its first line gives it (``_envelope``): "From: … · To: … · Cc: …
# · Date: … · " (those it has, one at least), then "Subject: " and the subject (group
# ``subject``); not a memo's own "Subject: …" line
ENVELOPE = re.compile(
    rf"^(?:(?:From|To|Cc|Date): [^\n]*?{FIELDS})+Subject: (?P<subject>[^\n]*)$", re.MULTILINE
)


def load_eml(data: bytes, _text: str | None, name: str) -> ParsedDocument:
    message = _parse(data)
    attached: list[Attachment] = []
    blocks = _message_blocks(message, attached)
    parsed = assemble(blocks, kind="eml", title=_message_title(message))
    return replace(parsed, attachments=tuple(attached))


def load_mbox(data: bytes, _text: str | None, name: str) -> ParsedDocument:
    messages = [_parse(part) for part in mbox_messages(data)]
    attached: list[Attachment] = []
    blocks = [block for message in messages for block in _message_blocks(message, attached)]
    return replace(assemble(blocks, kind="mbox", title=_mailbox_title(messages)),
                   attachments=tuple(attached))  # fmt: skip


def _mailbox_title(messages: list[EmailMessage]) -> str | None:
    """The title of a mailbox of one message (a message saved with its "From " line) as
    of that message; else the mailing list's name, where every message is of that one
    list; else none (the file's name is the title)."""
    if len(messages) == 1:
        return _message_title(messages[0])
    lists = {_list_name(m) for m in messages}
    return clean_title(lists.pop() or "") if len(lists) == 1 and None not in lists else None


def _message_title(message: EmailMessage) -> str | None:
    """A message's subject, with its mailing list's name where it came by one ("[SAdev]
    [Bug 1053] New: IMG tag based rules (SpamAssassin Developers)")."""
    listed = _list_name(message)
    return clean_title(f"{_subject(message)} ({listed})" if listed else _subject(message))


def mbox_messages(data: bytes) -> list[bytes]:
    """The raw messages of a mailbox, each without its "From " line."""
    starts = list(_FROM_LINE.finditer(data))
    return [
        data[match.end(1) : starts[i + 1].start() if i + 1 < len(starts) else len(data)]
        for i, match in enumerate(starts)
    ]


def _parse(data: bytes) -> EmailMessage:
    message = BytesParser(policy=policy.default).parsebytes(data)
    assert isinstance(message, EmailMessage)
    return message


def _subject(message: EmailMessage) -> str:
    return clean(str(message.get("subject", ""))) or "(no subject)"


def _list_name(message: EmailMessage) -> str | None:
    """A mailing list's name, from its List-Id header ("Team <team.example.org>")."""
    value = clean(str(message.get("list-id", "")))
    found = _LIST_NAME.match(value)
    return found.group(1) if found and found.group(1) else None


def _message_blocks(message: EmailMessage, attached: list[Attachment]) -> list[Block]:
    """The message's blocks; its attachments that are documents of a kind footnoted
    reads (and not text, which is read under the message) are added to ``attached``."""
    section = (_subject(message),)
    blocks = [Block(_envelope(message), section)]
    body = message.get_body(preferencelist=("plain", "html"))
    if body is not None:
        blocks += [Block(t, section) for t in _texts(body)]
    for part in message.iter_attachments():
        filename = clean(part.get_filename() or "") or "unnamed"
        if part.get_content_type() in _TEXT_ATTACHMENTS:
            inner = (*section, f"Attachment: {filename}")
            blocks += [Block(t, inner) for t in _texts(part)]
            continue
        payload = part.get_payload(decode=True)
        kind = _document_kind(payload, filename) if isinstance(payload, bytes) else None
        if kind is not None and len(attached) < MAX_ATTACHMENTS:
            attached.append(Attachment(filename, payload, section[0]))  # type: ignore[arg-type]
            blocks.append(Block(f"Attachment: {filename} (read as a document of its own)", section))
        else:
            what = part.get_content_type()
            blocks.append(Block(f"Attachment (not read): {filename}, {what}", section))
    return blocks


def _document_kind(payload: bytes, filename: str) -> str | None:
    """The kind of an attached file if it is a document footnoted reads on its own: not
    an image (a logo or a signature's picture far more often than a scan)."""
    try:
        kind = detect_kind(payload, filename)
    except FootnotedError:
        return None
    return None if kind in _IMAGE_KINDS or not payload.strip() else kind


def _envelope(message: EmailMessage) -> str:
    """Who sent the message, to whom, when and about what, on one line."""
    fields = []
    for header in ("from", "to", "cc"):
        people = _people(message, header)
        if people:
            fields.append(f"{header.capitalize()}: {people}")
    date = _date(str(message.get("date", "")))
    if date:
        fields.append(f"Date: {date}")
    fields.append(f"Subject: {_subject(message)}")
    return FIELDS.join(fields)


def _people(message: EmailMessage, header: str) -> str:
    """The people of an address header, each by name where one is given (in quotes, or
    in a comment: "guido@python.org (Guido van Rossum)", which the parsed header drops
    and the raw one keeps), else by address."""
    raw = [_unescaped(v) for k, v in message.raw_items() if k.lower() == header]
    commented = {a.lower(): clean(n) for n, a in getaddresses(raw) if n and a}
    named: list[str] = []
    for value in message.get_all(header, []):  # an address header, however damaged
        for address in value.addresses:
            spec = _unescaped(address.addr_spec)
            shown = clean(_unescaped(address.display_name))
            name = shown or commented.get(spec.lower(), "") or spec
            if name:
                named.append(name)
    return ", ".join(named[:10]) + (f" and {len(named) - 10} more" if len(named) > 10 else "")


def _unescaped(value: str) -> str:
    """A raw header's value as text: its 8-bit bytes read as UTF-8 (the parser keeps them
    escaped), its comments as written."""
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _date(value: str) -> str:
    try:
        return parsedate_to_datetime(value).strftime("%Y-%m-%d %H:%M")
    except (TypeError, ValueError, IndexError):
        return clean(value)


def _texts(part: MIMEPart) -> list[str]:
    """A text part's paragraphs."""
    try:
        content = part.get_content()
    except (LookupError, ValueError):  # an unknown charset or a damaged encoding
        payload = part.get_payload(decode=True)
        content = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""
    if not isinstance(content, str):
        return []
    kind = part.get_content_type()
    if kind == "text/html":
        return [b.text for b in html_fragment_blocks(content, "")]
    if kind == "text/csv":  # its rows, as a CSV file's
        rows = load_csv(b"", content, part.get_filename() or "attachment.csv")
        return [rows.text[s.start : s.end] for s in rows.segments]
    return _paragraphs(content)


def _paragraphs(text: str) -> list[str]:
    """Plain text's paragraphs: hard-wrapped lines joined, quote markers ("> " at a line's
    start, or a space in) taken off (a change of quoting ends a paragraph), a table set in
    columns read row by row (``columns``), a signature (after "-- ") left out."""
    out: list[str] = []
    lines: list[str] = []  # the paragraph's lines as printed, their quote markers off
    depth = 0
    tables = ColumnTables()

    def flush() -> None:
        rows = tables.rows(lines)
        out.extend(rows if rows is not None else [" ".join(line.strip() for line in lines)])
        lines.clear()

    for raw in text.replace("\r\n", "\n").split("\n"):
        if raw == "-- ":
            break
        marks = _QUOTED.match(raw)
        quoted = marks.group().count(">") if marks else 0
        line = raw[marks.end() :] if marks else raw
        if lines and (not line.strip() or quoted != depth):
            flush()
        if line.strip():
            lines.append(line.rstrip())
            depth = quoted
    if lines:
        flush()
    return out
