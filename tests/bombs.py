"""Hostile files made on the spot: small to send, huge or slow to parse."""

from __future__ import annotations

import io
import zipfile
import zlib

from rawpdf import pdf_file

MIB = 1024 * 1024


def inflating_pdf(inflated_mib: int = 1024) -> bytes:
    """A one-page PDF whose content stream (FlateDecode) inflates to ``inflated_mib``
    MiB of text-showing operators, about 1/1000 of that on the wire."""
    line = b"BT /F1 9 Tf 72 720 Td (Bomb text that never ends) Tj ET\n"
    block = line * (MIB // len(line))
    packer = zlib.compressobj(9)
    stream = b"".join(packer.compress(block) for _ in range(inflated_mib)) + packer.flush()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    return pdf_file(objects)


def zip_bomb_docx(inflated_mib: int = 1024) -> bytes:
    """A .docx whose document.xml inflates to ``inflated_mib`` MiB of one paragraph."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types/>')
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            member.write(b'<?xml version="1.0"?><w:document><w:body><w:p><w:r><w:t>')
            chunk = b"A" * MIB
            for _ in range(inflated_mib):
                member.write(chunk)
            member.write(b"</w:t></w:r></w:p></w:body></w:document>")
    return out.getvalue()


def large_text(mib: int) -> bytes:
    """Prose-like words without one sentence boundary, in lines."""
    words = b"river mill bends north quiet old stone bridge under evening light "
    line = words * 12 + b"\n"
    return (line * (mib * MIB // len(line) + 1))[: mib * MIB]


def single_line(mib: int) -> bytes:
    """One line of ``mib`` MiB: no spaces, no sentence boundary."""
    return b"x" * (mib * MIB)


def deep_html(depth: int = 200_000) -> bytes:
    return b"<html><body>" + b"<div>" * depth + b"deep" + b"</div>" * depth + b"</body></html>"
