"""The background model load: health states, and the long-lived heap frozen once loaded."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from footnoted.api.warmup import Warmup


@pytest.fixture
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()


def _finish(warmup: Warmup) -> None:
    warmup.start()
    warmup._thread.join(10)
    assert not warmup._thread.is_alive()


def test_a_loaded_model_freezes_what_exists(unfrozen: None) -> None:
    kept = [object() for _ in range(1000)]
    warmup = Warmup(lambda: None)
    _finish(warmup)
    assert warmup.state == "ready"
    assert gc.get_freeze_count() >= len(kept)


def test_a_failed_load_is_reported_and_freezes_nothing(unfrozen: None) -> None:
    def fail() -> None:
        raise OSError("model files missing")

    warmup = Warmup(fail)
    _finish(warmup)
    assert warmup.state == "failed"
    assert gc.get_freeze_count() == 0
