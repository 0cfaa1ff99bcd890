"""A collection kept in step with a folder: ``footnoted sync DIR``.

Each pass adds the folder's new files, re-ingests the changed ones (a file is the same
document while its path stays; it changed when its content hash did), skips the
unchanged ones without parsing or embedding them, and retires the documents whose files
are gone (they are deleted, with their chunks and vectors). Files are walked as
``footnoted ingest`` walks a folder (recursively, hidden entries skipped). Each file is
stored in its own transaction, so a pass killed part-way goes on where it stopped when
run again; running it twice changes nothing the second time.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Forbidden, InvalidInput, NotFound
from ..ingest.ingest import IngestReport, ProgressFn, walk
from ..models import Document, attached_to
from ..records import CLI_ACTOR, Actor
from .facade import Footnoted


@dataclass(slots=True)
class SyncReport:
    target: str  # the folder, or the sitemap's URL
    collection: str
    ingest: IngestReport = field(default_factory=IngestReport)
    retired: list[Document] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)  # pages robots.txt keeps footnoted from
    seconds: float = 0.0

    @property
    def changed(self) -> bool:
        """Whether the pass added, re-ingested or retired anything."""
        counts = (self.ingest.count("added"), self.ingest.count("replaced"), len(self.retired))
        return any(counts)

    def summary(self) -> str:
        r = self.ingest
        return (
            f"{r.count('added')} added, {r.count('replaced')} changed, "
            f"{r.count('unchanged')} unchanged, {len(self.retired)} retired, "
            + (f"{len(self.blocked)} blocked by robots.txt, " if self.blocked else "")
            + f"{len(r.failed)} failed; {r.chunks} chunk{'' if r.chunks == 1 else 's'} embedded "
            f"in {self.seconds:.1f} s"
        )


def sync_folder(
    fn: Footnoted,
    folder: Path,
    collection: str | None = None,
    progress: ProgressFn | None = None,
    actor: Actor = CLI_ACTOR,
    confine: bool = False,
) -> SyncReport:
    """One pass over ``folder`` into ``collection`` (the default one when None). With
    ``confine`` (a folder an admin named from the web), only files that are really
    inside it are read: a link to a file or folder elsewhere is left out."""
    root = folder.resolve()
    if not root.is_dir():
        raise InvalidInput(f"{folder} is not a folder.", code="not_a_folder")
    started = time.perf_counter()
    name = collection or fn.settings.collection
    report = SyncReport(str(root), name)
    found = [(path, path.resolve()) for path in walk([root])]
    if confine:
        found = [(path, real) for path, real in found if real.is_relative_to(root)]
    files = [path for path, _ in found]
    present = {str(real) for _, real in found}
    for doc in fn.store.list_documents(name):
        source = attached_to(doc.source) or doc.source  # an attachment goes with its message
        if _under(Path(source), root) and source not in present:
            with contextlib.suppress(NotFound):  # an attachment its message took with it
                fn.delete(doc.id, actor)  # first: a file moved here is then no duplicate
            report.retired.append(doc)
    report.ingest = fn.ingest(files, name, progress)
    report.seconds = time.perf_counter() - started
    return report


def allowed_folder(roots: str, folder: str) -> Path:
    """``folder`` resolved, if it is inside one of ``roots`` (``FOOTNOTED_SYNC_ROOTS``):
    the folders on the server that admins may sync from the web. Else 403 (none set:
    ``folder_sync_off``; outside them: ``folder_not_allowed``) or 422."""
    allowed = [Path(r.strip()).expanduser().resolve() for r in roots.split(",") if r.strip()]
    if not allowed:
        raise Forbidden(
            "Syncing a folder on the server from here is off: the server's operator names "
            "the folders admins may sync in FOOTNOTED_SYNC_ROOTS.",
            code="folder_sync_off",
        )
    path = Path(folder.strip()).expanduser()
    if not path.is_absolute():
        raise InvalidInput(
            f"Give the folder's full path on the server (inside {allowed[0]}).",
            code="invalid_folder",
        )
    resolved = path.resolve()
    if not any(resolved.is_relative_to(root) for root in allowed):
        raise Forbidden(
            f"{folder} is not inside a folder this server syncs from "
            f"({', '.join(map(str, allowed))}).",
            code="folder_not_allowed",
        )
    if not resolved.is_dir():
        raise InvalidInput(f"{folder} is not a folder on the server.", code="not_a_folder")
    return resolved


def _under(source: Path, root: Path) -> bool:
    return source.is_absolute() and source.is_relative_to(root)
