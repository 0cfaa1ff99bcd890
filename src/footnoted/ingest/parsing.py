"""Bounded parsing: a file's bytes -> parsed text and chunks, in a worker process.

The one home for parsing: ``footnoted ingest`` (:class:`~footnoted.ingest.ingest.Ingestor`) and
uploads both call :meth:`Parser.parse`. The work runs in a separate Python process whose
address space is capped (``setrlimit``) at ``FOOTNOTED_PARSE_MEMORY_MB`` and which is
killed at ``FOOTNOTED_PARSE_TIMEOUT_S``: a PDF whose content stream inflates to
gigabytes, or text of a pathological shape, costs the worker, never the caller, and
holds none of the caller's threads or its GIL. A worker is kept for the next file and
replaced after it was killed or ran out of memory.

The worker loads only the loaders, the chunker and the embedding model's tokenizer
(``tokenizer.json``, through ``tokenizers``): tens of megabytes, started in about a
second, which the time limit does not count (it starts when the file reaches a ready
worker). Messages are pickles framed by their length, on the worker's stdin and stdout; a
file's bytes follow its job as raw frames of at most ``PART_BYTES``, ended by an empty
one, so the caller never holds the whole file in its memory. A document whose chunks pass
``FOOTNOTED_MAX_DOCUMENT_CHUNKS`` fails (``too_large``) before anything is embedded, and a
parse that the caller's ``cancelled`` says is no longer wanted (the document was deleted
or is processed anew) is stopped within a quarter of a second.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..errors import Cancelled, DocumentError, FootnotedError, ModelUnavailable, TooLarge
from ..loaders import ocr
from ..loaders.sizes import check_size
from ..models import Chunk, FileBytes, ParsedDocument
from .chunking import Chunker

KEEP_IDLE = 2  # workers kept between files
_HEADER = struct.Struct("<Q")


@dataclass(frozen=True, slots=True)
class ChunkSpec:
    """How the worker chunks: the embedding model's tokenizer, the token limits and the
    most chunks one document may make."""

    tokenizer: str  # path of the model's tokenizer.json
    max_tokens: int
    max_chunks: int
    min_tokens: int = 64

    @classmethod
    def for_model(cls, model_path: str, max_tokens: int, max_chunks: int) -> ChunkSpec:
        path = Path(model_path) / "tokenizer.json"
        if not path.is_file():
            raise ModelUnavailable(
                f"The embedding model at {model_path} has no tokenizer.json (a fast "
                "tokenizer), which chunking needs; save it with a fast tokenizer."
            )
        return cls(str(path), max_tokens, max_chunks)


@dataclass(frozen=True, slots=True)
class Parsed:
    document: ParsedDocument
    chunks: list[Chunk]


@dataclass(frozen=True, slots=True)
class _Job:
    filename: str
    document_id: str
    max_bytes: int | None  # the file's bytes follow as raw frames


WATCH_S = 0.25  # how often a parse checks whether it is still wanted
START_S = 60.0  # how long a fresh worker may take to start before its parse is stopped


class Parser:
    """Parses and chunks files in worker processes, under a time and a memory limit."""

    def __init__(
        self, spec: ChunkSpec, *, timeout_s: float, memory_mb: int, ocr_engine: str = "auto"
    ) -> None:
        self.spec = spec
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self.ocr_engine = ocr_engine  # what reads scanned pages in the workers
        reads_with = ocr.engine_name(ocr_engine, ocr.rapidocr_found)
        self._worker_mb = memory_mb + (ocr.RAPIDOCR_MB if reads_with == "rapidocr" else 0)
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()

    def parse(
        self,
        file: FileBytes,
        filename: str,
        document_id: str,
        max_bytes: int | None = None,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> Parsed:
        """Parse and chunk one file; raises :class:`FootnotedError` for bad input,
        :class:`DocumentError` (``parse_timeout``, ``parse_memory_limit``) past a limit,
        and :class:`Cancelled` once ``cancelled()`` is true."""
        check_size(file.size, max_bytes, filename)
        worker = self._take()
        finished = threading.Event()
        stopped: list[str] = []  # why the worker was killed: "timeout" or "cancelled"

        began = time.monotonic()

        def watch() -> None:
            while not finished.wait(WATCH_S):
                # the limit counts from when the worker is ready or the parse began,
                # whichever is later: a fresh worker's start is not the file's time (though
                # one that never starts is stopped too), nor is a kept worker's past
                ready = worker.ready_at
                start = max(began, ready) if ready is not None else began + START_S
                why = "timeout" if time.monotonic() > start + self.timeout_s else "cancelled"
                if why == "timeout" or cancelled():
                    stopped.append(why)
                    worker.process.kill()  # the pending read then ends
                    return

        watcher = threading.Thread(target=watch, name="footnoted-parse-watch", daemon=True)
        watcher.start()
        try:
            reply = worker.call(_Job(filename, document_id, max_bytes), file.parts())
        finally:
            finished.set()
            watcher.join()
        if stopped == ["cancelled"]:
            worker.close()
            raise Cancelled(f"Processing {filename} was stopped: it is no longer wanted.")
        if reply is None or reply[0] == "memory":
            worker.close()
            raise self._stopped(filename, timed_out=stopped == ["timeout"])
        self._give(worker)
        if reply[0] == "error":
            raise reply[1]
        parsed: Parsed = reply[1]
        return parsed

    def _stopped(self, filename: str, *, timed_out: bool) -> DocumentError:
        if timed_out:
            return DocumentError(
                f"Parsing {filename} took longer than {self.timeout_s:g} s; the file may be "
                "damaged or too complex.",
                code="parse_timeout",
            )
        return DocumentError(
            f"Parsing {filename} needed more than the {self.memory_mb} MB of memory allowed "
            "(FOOTNOTED_PARSE_MEMORY_MB); the file may be a decompression bomb, or damaged.",
            code="parse_memory_limit",
        )

    def _take(self) -> _Worker:
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.alive():
                    return worker
        return _Worker(self.spec, self._worker_mb, self.ocr_engine)

    def _give(self, worker: _Worker) -> None:
        with self._lock:
            if worker.alive() and len(self._idle) < KEEP_IDLE:
                self._idle.append(worker)
                return
        worker.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.close()


class _Worker:
    """One worker process (``python -c 'footnoted.ingest.parsing.serve()'``) and its pipes."""

    def __init__(self, spec: ChunkSpec, memory_mb: int, ocr_engine: str = "auto") -> None:
        env = {
            **os.environ, "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1",
            "FOOTNOTED_OCR_ENGINE": ocr_engine,  # read by ``loaders.ocr``
        }  # fmt: skip
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from footnoted.ingest.parsing import serve; serve()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=env, close_fds=True,
        )  # fmt: skip
        assert self.process.stdin is not None
        send(self.process.stdin, (spec, memory_mb))  # small: the pipe's buffer holds it
        self.ready_at: float | None = None  # when the worker said it is ready

    def alive(self) -> bool:
        return self.process.poll() is None

    def call(self, job: _Job, parts: Iterable[bytes]) -> tuple[str, Any] | None:
        """Send a job and its file, and wait for the reply; None when the worker died (or
        was killed)."""
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            if self.ready_at is None:
                if receive(self.process.stdout) != "ready":
                    return None
                self.ready_at = time.monotonic()
            send(self.process.stdin, job)
            for part in parts:
                send_raw(self.process.stdin, part)
            send_raw(self.process.stdin, b"")
            reply: tuple[str, Any] | None = receive(self.process.stdout)
            return reply
        except (OSError, EOFError, pickle.UnpicklingError, ValueError):
            return None

    def close(self) -> None:
        """Kill the worker and close its pipes: what was still buffered for it is dropped
        (closing would flush it into a pipe nobody reads: a broken pipe)."""
        self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


def send(stream: IO[bytes], message: object) -> None:
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(payload)))
    stream.write(payload)
    stream.flush()


def send_raw(stream: IO[bytes], part: bytes) -> None:
    stream.write(_HEADER.pack(len(part)))
    stream.write(part)
    if not part:
        stream.flush()


def receive_raw(stream: IO[bytes]) -> bytes | None:
    """The next frame's bytes, or None at the end of the stream."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    payload = stream.read(size)
    return payload if len(payload) == size else None


def receive(stream: IO[bytes]) -> Any:
    """The next message, or None at the end of the stream."""
    payload = receive_raw(stream)
    return None if payload is None else pickle.loads(payload)


def _receive_file(stream: IO[bytes]) -> bytes | None:
    """A file's frames, up to the empty one that ends it."""
    parts: list[bytes] = []
    while (part := receive_raw(stream)) is not None:
        if not part:
            return b"".join(parts)
        parts.append(part)
    return None


# -- the worker process ------------------------------------------------------------------


def serve() -> None:
    """The worker's loop: a setup message, then one reply per job until stdin closes."""
    channel_in, channel_out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but replies may reach the channel
    setup = receive(channel_in)
    if setup is None:
        return
    spec, memory_mb = setup
    limit_memory(memory_mb)
    chunker = make_chunker(spec)
    from .. import loaders  # noqa: F401  # imported before the first file's time starts

    send(channel_out, "ready")
    while (job := receive(channel_in)) is not None:
        data = _receive_file(channel_in)
        if data is None:
            return
        reply = _work(job, data, chunker, spec.max_chunks)
        send(channel_out, reply)
        if reply[0] == "memory":
            return  # a heap that ran out is not worth trusting with the next file


def limit_memory(megabytes: int) -> None:
    """Cap this process's address space: allocations past it fail (MemoryError)."""
    import resource

    limit = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _work(job: _Job, data: bytes, chunker: Chunker, max_chunks: int) -> tuple[str, Any]:
    from .. import loaders

    try:
        parsed = loaders.load_bytes(data, job.filename, max_bytes=job.max_bytes)
        chunks = chunker.chunk(job.document_id, parsed)
        if len(chunks) > max_chunks:
            return "error", TooLarge(
                f"{job.filename} makes {len(chunks):,} passages, over the {max_chunks:,} one "
                "document may have (FOOTNOTED_MAX_DOCUMENT_CHUNKS): split it into smaller "
                "files, or raise the limit.",
                code="too_large",
            )
        return "ok", Parsed(parsed, chunks)
    except FootnotedError as exc:
        return "error", exc
    except MemoryError:
        return "memory", None
    except Exception as exc:  # a parser bug: report it as this file's problem
        return "error", DocumentError(f"Could not process {job.filename}: {exc}")


def make_chunker(spec: ChunkSpec) -> Chunker:
    """The chunker a parse worker cuts with: the model's tokenizer, the spec's limits."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(spec.tokenizer)
    tokenizer.no_truncation()
    tokenizer.no_padding()

    def count(texts: Sequence[str]) -> list[int]:
        return [len(e.ids) for e in tokenizer.encode_batch(list(texts), add_special_tokens=False)]

    def offsets(text: str) -> list[tuple[int, int]]:
        return [
            (int(a), int(b)) for a, b in tokenizer.encode(text, add_special_tokens=False).offsets
        ]

    return Chunker(count, offsets, max_tokens=spec.max_tokens, min_tokens=spec.min_tokens)
