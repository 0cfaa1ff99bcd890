"""A PDF file written object by object, for tests that need a structure no library
writes (a content stream that inflates to gigabytes, a TeX font without a Unicode map)."""

from __future__ import annotations

import io
from collections.abc import Sequence


def pdf_file(objects: Sequence[bytes]) -> bytes:
    """``objects`` as a PDF file, numbered from 1 in order (the first the catalog), with
    its cross-reference table and trailer."""
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.writelines(b"%010d 00000 n \n" % offset for offset in offsets)
    trailer = b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
    out.write(trailer % (len(objects) + 1, xref))
    return out.getvalue()
