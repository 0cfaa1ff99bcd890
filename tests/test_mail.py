"""Email: the shared real mailboxes, and messages made here with the standard library to
pin what a message keeps (envelope, body, attachments) and how mail is recognised."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

from apihelpers import api
from conftest import shared
from footnoted import Footnoted
from footnoted.answering.envelope import asks_envelope, readable
from footnoted.lexical import CELLS
from footnoted.loaders import detect_kind, load_bytes, load_path
from footnoted.models import ParsedDocument
from footnoted.service.sync import sync_folder

PDF = shared("pdfs", "haystack__sample_pdf_1.pdf")
DOCX = shared("docs-more", "openchain__Introductory-Merger-and-Acquisition-Checklist.docx")
COMMITTERS = "[esl-dev] Committer vote for Chuwei Huang has concluded successfully"


def blocks(doc: ParsedDocument) -> list[tuple[str, tuple[str, ...]]]:
    return [(doc.text[s.start : s.end], s.section) for s in doc.segments]


def message(**extra: str) -> EmailMessage:
    m = EmailMessage()
    m["From"] = "Ada Lovelace <ada@example.org>"
    m["To"] = "Team <team@example.org>"
    m["Date"] = "Tue, 03 Mar 2026 09:15:00 +0000"
    m["Subject"] = extra.pop("subject", "Quarterly numbers")
    for key, value in extra.items():
        m[key] = value
    m.set_content("Revenue grew 12 percent.\n\nMargins held\nat 40 percent.\n\n-- \nAda\n")
    return m


def test_a_mailbox_is_a_section_per_message_with_its_envelope() -> None:
    doc = load_path(shared("docs-more", "perceval__mbox_multipart.mbox"))
    assert doc.kind == "mbox" and doc.title is None  # two lists' mail: titled by its file
    one_list = load_path(shared("docs-more", "perceval__gnome-desktop-devel_mbox_complex.mbox"))
    assert one_list.title == "GNOME Desktop Development List"
    found = blocks(doc)
    sections = list(dict.fromkeys(section for _, section in found))
    assert sections == [
        (COMMITTERS,),
        ("[platform-dev] Removing standard menus and toolbar icons",),
    ]
    envelope, first = found[0][0], [t for t, s in found if s == (COMMITTERS,)]
    assert envelope.startswith("From: yves (yingmin) yang · To: esl-dev@eclipse.org")
    assert "Date: 2009-11-12 03:29" in envelope
    assert "Vote summary: 4/0/0 with 0 not voting" in first  # the plain part, not the HTML
    assert not any("<html" in t or "=3D" in t for t in first)


def test_quoted_lines_read_as_sentences_apart_from_the_reply() -> None:
    doc = load_path(shared("docs-more", "perceval__gnome-desktop-devel_mbox_complex.mbox"))
    texts = [t for t, s in blocks(doc) if s == ("Re: Low memory hacks",)]
    quoted = "I'll like to see some real numbers on the memory usage instead of numbers being"
    assert any(t.startswith(quoted) for t in texts)  # "> " marks gone, wrapped lines joined
    reply = next(t for t in texts if "Martin Pitt is probably" in t)
    assert not reply.startswith(">") and "real numbers" not in reply


def test_a_message_keeps_its_envelope_body_and_text_attachments() -> None:
    m = message()
    m.add_attachment("Region,2025\nNorth,1200\n", subtype="csv", filename="regions.csv")
    m.add_attachment(PDF.read_bytes(), maintype="application", subtype="pdf",
                     filename="deck.pdf")  # fmt: skip
    m.add_attachment(b"\x89PNG\r\n\x1a\n" + bytes(64), maintype="image", subtype="png",
                     filename="logo.png")  # fmt: skip
    doc = load_bytes(m.as_bytes(), "numbers.eml")
    assert doc.kind == "eml" and doc.title == "Quarterly numbers"
    assert blocks(doc) == [
        ("From: Ada Lovelace · To: Team · Date: 2026-03-03 09:15 · Subject: Quarterly numbers",
         ("Quarterly numbers",)),
        ("Revenue grew 12 percent.", ("Quarterly numbers",)),
        ("Margins held at 40 percent.", ("Quarterly numbers",)),  # the signature left out
        (f"Region{CELLS}2025", ("Quarterly numbers", "Attachment: regions.csv")),
        (f"North{CELLS}1200", ("Quarterly numbers", "Attachment: regions.csv")),
        ("Attachment: deck.pdf (read as a document of its own)", ("Quarterly numbers",)),
        ("Attachment (not read): logo.png, image/png", ("Quarterly numbers",)),
    ]  # fmt: skip
    (deck,) = doc.attachments
    assert (deck.filename, deck.message, deck.data) == (
        "deck.pdf",
        "Quarterly numbers",
        PDF.read_bytes(),
    )


def with_attachments(*names: str, subject: str = "Quarterly numbers") -> bytes:
    m = message(subject=subject)
    for name in names:
        data = {"deck.pdf": PDF, "checklist.docx": DOCX}[name].read_bytes()
        m.add_attachment(data, maintype="application", subtype="octet-stream", filename=name)
    return m.as_bytes()


def test_attachments_are_documents_linked_to_their_message_and_kept_in_step(
    service: Footnoted, tmp_path: Path
) -> None:
    folder = tmp_path / "mail"
    folder.mkdir()
    mail = folder / "numbers.eml"
    mail.write_bytes(with_attachments("deck.pdf", "checklist.docx"))
    first = sync_folder(service, folder)
    assert (first.ingest.count("added"), first.ingest.failed) == (3, [])
    docs = {d.source: d for d in service.store.list_documents()}
    deck = docs[f"{mail}#attachment/1/deck.pdf"]
    assert deck.title == "deck.pdf (attached to “Quarterly numbers”)" and deck.kind == "pdf"
    assert docs[f"{mail}#attachment/2/checklist.docx"].kind == "docx"
    result = service.answer("When did Adobe make the PDF specification available free of charge?")
    assert result.answer is not None and "1993" in result.answer.text
    assert result.answer.citations[0].document_id == deck.id
    again = sync_folder(service, folder)
    assert (again.changed, again.ingest.count("unchanged")) == (False, 1)
    mail.write_bytes(with_attachments("deck.pdf", subject="Quarterly numbers, revised"))
    revised = sync_folder(service, folder)
    assert [d.title for d in revised.retired] == []  # the message is its next version
    titles = sorted(d.title for d in service.store.list_documents())
    assert titles == ["Quarterly numbers, revised",
                      "deck.pdf (attached to “Quarterly numbers, revised”)"]  # fmt: skip
    mail.unlink()
    gone = sync_folder(service, folder)
    assert len(gone.retired) == 2 and service.store.list_documents() == []


def test_deleting_a_message_deletes_its_attachments(service: Footnoted, tmp_path: Path) -> None:
    mail = tmp_path / "numbers.eml"
    mail.write_bytes(with_attachments("deck.pdf"))
    service.ingest([mail])
    (message_doc,) = [d for d in service.store.list_documents() if d.kind == "eml"]
    service.delete(message_doc.id)
    assert service.store.list_documents() == []


def test_an_html_only_message_is_read_as_its_text() -> None:
    m = message()
    m.set_content("<html><body><h1>Launch</h1><p>We ship on <b>Friday</b>.</p></body></html>",
                  subtype="html")  # fmt: skip
    doc = load_bytes(m.as_bytes(), "launch.eml")
    assert [t for t, _ in blocks(doc)][1:] == ["Launch", "We ship on Friday."]


def test_mail_is_recognised_by_content_and_text_that_only_looks_like_it_is_not() -> None:
    raw = message().as_bytes()
    assert detect_kind(raw, "no-suffix") == "eml"
    assert detect_kind(b"From ada@example.org  Tue Mar  3 09:15:00 2026\n" + raw, "box") == "mbox"
    note = b"From: the desk of Ada\nSubject: notes\n\nJust a note.\n"  # no date, no id
    assert detect_kind(note, "note.txt") == "text"
    assert detect_kind(b"From here on, all is text.\n", "x.txt") == "text"


def test_a_mailbox_answers_with_the_message_as_its_place(service: Footnoted) -> None:
    box = shared("docs-more", "perceval__mbox_multipart.mbox")
    assert not service.ingest([box]).failed
    result = service.answer("Which project is Chuwei Huang becoming a committer on?")
    assert result.answer is not None, result.refusal
    assert "technology.esl project" in result.answer.text
    cited = [c for c in result.answer.citations if c.index in result.answer.referenced]
    assert cited and cited[0].section == COMMITTERS


def test_a_damaged_message_is_read_as_far_as_it_goes(tmp_path: Path) -> None:
    m = message()
    raw = m.as_bytes().replace(
        b"Content-Type: text/plain", b"Content-Type: text/plain; charset=x-nope"
    )
    path = tmp_path / "odd.eml"
    path.write_bytes(raw)
    doc = load_path(path)
    assert "Revenue grew 12 percent." in doc.text


def test_an_uploaded_message_brings_its_attachments(tmp_path: Path) -> None:
    with api(tmp_path / "home", ingest=False) as a:
        sent = a.client.post(
            "/api/documents",
            files={"file": ("numbers.eml", with_attachments("deck.pdf"))},
            headers=a.admin,
        )
        assert sent.status_code == 201 and sent.json()["status"] == "ready", sent.text
        docs = a.client.get("/api/documents", headers=a.admin).json()
        assert sorted(d["title"] for d in docs) == [
            "Quarterly numbers", "deck.pdf (attached to “Quarterly numbers”)"
        ]  # fmt: skip
        assert all(d["status"] == "ready" for d in docs)


def test_a_message_saved_with_its_from_line_is_titled_by_its_subject_and_list() -> None:
    m = message()
    m["List-Id"] = "Friends of Ada <fork.example.org>"
    saved = b"From ada@example.org  Tue Mar  3 09:15:00 2026\n" + m.as_bytes()
    doc = load_bytes(saved, "numbers.eml")
    assert doc.kind == "mbox" and doc.title == "Quarterly numbers (Friends of Ada)"
    assert load_bytes(m.as_bytes(), "numbers.eml").title == "Quarterly numbers (Friends of Ada)"


def test_a_sender_named_in_a_comment_is_named() -> None:
    m = message()
    m.replace_header("From", "guido@python.org (Guido van Rossum)")
    m.replace_header("To", "=?utf-8?q?Ren=C3=A9?= <rene@example.org>")
    envelope = blocks(load_bytes(m.as_bytes(), "m.eml"))[0][0]
    assert envelope.startswith("From: Guido van Rossum · To: René · Date")
    # a name in an unknown charset, or in raw 8-bit bytes: read as far as it goes
    raw = m.as_bytes().replace(b"=?utf-8?q?Ren=C3=A9?=", b"=?x-nope?q?Ren=E9?=")
    assert blocks(load_bytes(raw, "m.eml"))[0][0].startswith(
        "From: Guido van Rossum · To: Ren\ufffd · Date"
    )
    raw = m.as_bytes().replace(
        b"guido@python.org (Guido van Rossum)", "Jürgen Groß <j@x.de>".encode()
    )
    envelope = load_bytes(raw, "m.eml").text.split("\n")[0]
    assert envelope.startswith("From: Jürgen Groß · To: René") and envelope.encode()


def test_a_table_set_in_columns_is_read_row_by_row_under_its_header() -> None:
    """A report pasted into a message: its header printed once, over the first table;
    the second, printed under the same columns, is read under it too."""
    m = message()
    m.set_content(
        "Results by rule:\n\n"
        "OVERALL%   SPAM% NONSPAM%     S/O  NAME\n"
        "  15113     4797    10316    0.32  (all messages)\n"
        "  0.635    2.001    0.000    1.00  T_HTML_IMAGE_AREA14\n"
        "  0.417    1.313    0.000    1.00  T_HTML_IMAGE_AREA15\n\n"
        "The number of images:\n\n"
        "  0.648    2.043    0.000    1.00  T_HTML_NUM_IMGS08\n"
        "  6.061   10.256    4.110    0.71  T_HTML_NUM_IMGS01\n"
        "  6.233    4.753    6.921    0.41  T_HTML_NUM_IMGS02\n\n"
        "Two spaces  after a stop  do not make\nprose a table,  however  it is\n"
        "wrapped and  spaced  out.\n"  # three pieces a line, but in no columns
    )
    texts = [t for t, _ in blocks(load_bytes(m.as_bytes(), "m.eml"))][1:]
    header = CELLS.join(["OVERALL%", "SPAM%", "NONSPAM%", "S/O", "NAME"])
    assert texts[1:5] == [
        header,
        CELLS.join(["15113", "4797", "10316", "0.32", "(all messages)"]),
        CELLS.join(["0.635", "2.001", "0.000", "1.00", "T_HTML_IMAGE_AREA14"]),
        CELLS.join(["0.417", "1.313", "0.000", "1.00", "T_HTML_IMAGE_AREA15"]),
    ]
    assert texts[6:10] == [
        header,  # under the same columns: the header printed over the first
        CELLS.join(["0.648", "2.043", "0.000", "1.00", "T_HTML_NUM_IMGS08"]),
        CELLS.join(["6.061", "10.256", "4.110", "0.71", "T_HTML_NUM_IMGS01"]),
        CELLS.join(["6.233", "4.753", "6.921", "0.41", "T_HTML_NUM_IMGS02"]),
    ]
    assert texts[10:] == [
        "Two spaces after a stop do not make prose a table, however it is wrapped and spaced out."
    ]


def test_only_marks_at_a_lines_start_quote_it() -> None:
    """A newsletter's section heading set between marks is its text, not a quotation."""
    m = message()
    m.set_content(
        "                >> HARD NEWS <<\n           stiffening sinews\n\n> quoted\n\n"
        " > set in a space\n > by a client\n\n> > twice\n>>again\n"
    )
    texts = [t for t, _ in blocks(load_bytes(m.as_bytes(), "m.eml"))][1:]
    assert texts == [
        ">> HARD NEWS << stiffening sinews", "quoted", "set in a space by a client",
        "twice again",
    ]  # fmt: skip


def test_an_envelope_is_read_only_when_the_question_asks_what_it_says(
    service: Footnoted, tmp_path: Path
) -> None:
    """Asked why laptops are wanted, the answer is the message's sentence, not its
    envelope (whose subject ends in a question mark); asked when it was sent, the
    envelope."""
    sent = [
        ("Alice <alice@example.edu>", "NetworkX", "Bob, check out the new networkx release."),
        ("Bob <bob@example.gov>", "Re: NetworkX", "Thanks for the tip."),
        ("Ted <ted@example.com>", "get together for lunch to discuss Networks?",
         "Hey everyone! Want to meet at that restaurant on the island in Konigsburg "
         "tonight? Bring your laptops and we can install NetworkX."),
    ]  # fmt: skip
    box = b""
    for sender, subject, body in sent:
        m = message(subject=subject)
        m.replace_header("From", sender)
        m.set_content(f"{body}\n")
        box += b"From x@example.org  Tue Mar  3 09:15:00 2026\n" + m.as_bytes() + b"\n"
    path = tmp_path / "networkx.mbox"
    path.write_bytes(box)
    assert not service.ingest([path]).failed
    why = "In the NetworkX mailbox, why does Ted ask everyone to bring their laptops to the "
    why += "get-together?"
    answer = service.answer(why).answer
    assert answer is not None and "install NetworkX" in answer.text
    assert "From:" not in answer.text
    when = service.answer("In the NetworkX mailbox, when did Ted send his lunch invitation?")
    assert when.answer is not None and "From: Ted" in when.answer.text


def test_a_question_about_who_sent_a_message_or_when_reads_its_envelope() -> None:
    asking = [
        "Who forwarded the DataPower story to the list?",
        "When did Leland send his reply?",
        "On what date did Alice email Bob?",
        "To whom was the invitation addressed?",
        "What is the subject of Ted's email?",
        "Which month was the message sent in?",
        "When did Bob answer Ted?",
        "Who else was on the thread?",
    ]
    assert all(asks_envelope(q) for q in asking)
    assert not any(
        asks_envelope(q)
        for q in ("Why does Ted want laptops?", "Who is the CEO of DataPower?", "When is the show?")
    )
    text = "From: Ted · To: Bob, Alice · Date: 2005-07-28 15:47 · Subject: lunch?\n\nBring laptops."
    shown = readable(text, "Why bring laptops?")
    assert len(shown) == len(text) and shown.split() == ["Ted", "Bring", "laptops."]
    assert readable(text, "Who sent the lunch invitation?") == text
    memo = "Subject: Quarterly plan approved\n\nThe board approved it."  # a memo's own line
    assert readable(memo, "What was approved?") == memo
