"""Versions of a document as its readers see them: the text a citation quoted, even after
the file changed or the document was deleted, and where the quote stands now.

A changed file from the same source becomes the next version of the same document (the
store keeps the earlier text, as the retention settings allow). A citation records the
version it quoted; opening it shows that version's text, says whether the document has
changed since (or is gone), and finds the quoted passage in the current version when it
is still there, word for word or with only its spacing changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import NotFound
from ..ingest.chunking import Heading, headings
from ..models import Chunk, DocumentVersion
from ..pages import page_in_text
from ..records import User
from ..stores.base import Store
from .access import readable_or_gone


@dataclass(frozen=True, slots=True)
class Place:
    """Where a passage stands in a version's text (character offsets) and on which page."""

    start: int
    end: int
    page: int | None = None


@dataclass(frozen=True, slots=True)
class VersionView:
    """One version's text for the viewer, and how it stands against the current one."""

    version: DocumentVersion
    current: int | None  # the current version's number; None once the document is deleted
    headings: list[Heading]
    now_at: Place | None  # the quoted passage's place in the current version, if found

    @property
    def changed(self) -> bool:
        return self.current != self.version.version


def view(
    store: Store,
    document_id: str,
    user: User | None,
    version: int | None = None,
    quoted: tuple[int, int] | None = None,
) -> VersionView:
    """Version ``version`` (the current one when None) of a document ``user`` may open,
    with its headings; ``quoted`` (offsets into that version) is looked for in the
    current version when the document has changed since."""
    doc = readable_or_gone(store, document_id, user)
    if version is None:
        if doc is None or doc.status != "ready":
            raise NotFound(f"No document with id {document_id!r}.", code="document_not_found")
        version = doc.version
    kept = store.document_version(document_id, version)
    current = doc.version if doc is not None and doc.status == "ready" else None
    now_at = None
    if quoted is not None and current is not None and current != version:
        now = store.document_version(document_id, current)
        now_at = find_place(kept.text[quoted[0] : quoted[1]], now)
    return VersionView(kept, current, headings(layout_chunks(kept)), now_at)


def layout_chunks(version: DocumentVersion) -> list[Chunk]:
    """The version's chunks rebuilt from its text and layout (no vectors)."""
    return [
        Chunk(
            id=f"{version.document_id}:{version.version}:{i}",
            document_id=version.document_id,
            index=i,
            text=version.text[start:end],
            char_start=start,
            char_end=end,
            page=page,
            section=section,
        )
        for i, (start, end, page, section) in enumerate(version.layout)
    ]


def find_place(passage: str, version: DocumentVersion) -> Place | None:
    """Where ``passage`` stands in ``version``: word for word, else with its spacing
    changed (line breaks moved, spaces doubled); None if it is not there."""
    words = passage.split()
    if not words:
        return None
    start = version.text.find(passage.strip())
    if start >= 0:
        end = start + len(passage.strip())
    else:
        pattern = r"\s+".join(re.escape(w) for w in words)
        found = re.search(pattern, version.text)
        if found is None:
            return None
        start, end = found.span()
    return Place(start, end, page_of(version, start))


def page_of(version: DocumentVersion, offset: int) -> int | None:
    """The page the version's text at ``offset`` is on (None where it has no pages)."""
    if not version.page_count:
        return None
    return page_in_text(version.text, offset)
