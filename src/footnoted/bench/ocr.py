"""``bench ocr``: the OCR engines side by side on scanned pages made from the shared PDFs.

Each page of a PDF with a text layer is rendered to a greyscale image (as a scanner
would make it, at ``SCAN_DPI``), each engine reads that image, and what it read is
compared with the page's own text layer: **words right** (the share of the page's words,
counted with repeats, that the engine's text holds: a space left out or a letter misread
loses the word) and **characters right** (the page's characters, spaces aside, that a
longest-matching alignment finds in the same order), and **seconds a page**. Engines run
alternately on the same pages, in one process.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium

from ..loaders import ocr
from .report import Row, median

SCAN_DPI = 200  # what an office scanner makes by default
PDFS = (
    ("pdfs", "haystack__sample_pdf_1.pdf"),
    ("pdfs", "haystack__sample_pdf_2.pdf"),
    ("pdfs", "ALCE__ALCE.pdf"),
    ("pdfs", "haystack__react_paper.pdf"),
    ("pdfs-more", "pdfplumber__scotus-transcript-p1.pdf"),
    ("pdfs-more", "R2R__lyft_2021.pdf"),
    ("pdfs-more", "pdfplumber__cupertino_usd_4-6-16.pdf"),
    ("pdfs-more", "R2R__graphrag.pdf"),
)
Progress = Callable[[str, int, int], None]


def words_right(reference: str, read: str) -> float:
    want = Counter(re.findall(r"\w+", reference.lower()))
    got = Counter(re.findall(r"\w+", read.lower()))
    total = sum(want.values())
    return sum(min(n, got[w]) for w, n in want.items()) / total if total else 1.0


def characters_right(reference: str, read: str) -> float:
    a, b = re.sub(r"\s+", "", reference), re.sub(r"\s+", "", read)
    if not a:
        return 1.0
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    return sum(block.size for block in matcher.get_matching_blocks()) / len(a)


def scanned_page(page: Any) -> Any:
    """A one-page PDF page showing only ``page`` rendered to an image (a scan of it)."""
    width, height = page.get_size()
    out = pdfium.PdfDocument.new()
    image = pdfium.PdfImage.new(out)
    image.set_bitmap(page.render(scale=SCAN_DPI / 72, grayscale=True))
    image.set_matrix(pdfium.PdfMatrix().scale(width, height))
    scan = out.new_page(width, height)
    scan.insert_obj(image)
    scan.gen_content()
    return out, scan


def run_ocr(
    data: Path, pages_per_pdf: int, engines: list[str], progress: Progress, pdfs: int = 0
) -> dict[str, Any]:
    """Each engine on the first ``pages_per_pdf`` text pages of each shared PDF (the
    first ``pdfs`` of them, when given)."""
    readers: dict[str, ocr.Reader] = {}
    for name in engines:
        found = ocr.engine(name)
        if found is None or found[0] != name:
            raise ValueError(f"the {name} engine is not installed here")
        readers[name] = found[1]
    scores: dict[str, dict[str, list[float]]] = {
        n: {"words": [], "chars": [], "seconds": []} for n in readers
    }
    pages: list[tuple[str, int]] = []
    for folder, filename in PDFS[: pdfs or None]:
        path = data / folder / filename
        if not path.exists():
            continue
        pdf = pdfium.PdfDocument(path)
        chosen = [i for i in range(len(pdf)) if pdf[i].get_textpage().get_text_range().strip()]
        pages += [(str(path), i) for i in chosen[:pages_per_pdf]]
        pdf.close()
    for n, (source, index) in enumerate(pages):
        progress("pages", n, len(pages))
        pdf = pdfium.PdfDocument(source)
        page = pdf[index]
        reference = page.get_textpage().get_text_range()
        out, scan = scanned_page(page)
        for name, read in readers.items():
            started = time.perf_counter()
            lines = read(scan)
            scores[name]["seconds"].append(time.perf_counter() - started)
            text = "\n".join(line.text for line in lines)
            scores[name]["words"].append(words_right(reference, text))
            scores[name]["chars"].append(characters_right(reference, text))
        out.close()
        pdf.close()
    progress("pages", len(pages), len(pages))
    rows: list[Row] = [
        {
            "engine": name,
            "pages": len(s["words"]),
            "words_right": round(sum(s["words"]) / max(len(s["words"]), 1), 3),
            "chars_right": round(sum(s["chars"]) / max(len(s["chars"]), 1), 3),
            "median_s": round(median(s["seconds"]), 2),
        }
        for name, s in scores.items()
    ]
    return {"scan_dpi": SCAN_DPI, "pages": [f"{Path(p).name}:{i + 1}" for p, i in pages],
            "rows": rows}  # fmt: skip
