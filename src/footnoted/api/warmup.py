"""Loading the embedding model in the background, so the server answers at once.

Until the model is loaded ``/api/health`` says ``"model": "warming"``; chat requests
that arrive meanwhile wait for it (the embedder loads once, behind a lock).
"""

from __future__ import annotations

import gc
import logging
import threading
from collections.abc import Callable
from typing import Literal

log = logging.getLogger("footnoted.api")

ModelState = Literal["warming", "ready", "failed"]


class Warmup:
    def __init__(self, load: Callable[[], None]) -> None:
        self._load = load
        self.state: ModelState = "warming"
        self._thread = threading.Thread(target=self._run, name="footnoted-warmup", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        try:
            self._load()
        except Exception:
            log.exception("loading the models failed")
            self.state = "failed"
        else:
            # What exists now (modules, the model) lives as long as the process. A full
            # collection walked its ~500k objects in about 260 ms with the GIL held,
            # stalling every request in flight; frozen, they are never walked again.
            gc.freeze()
            self.state = "ready"
