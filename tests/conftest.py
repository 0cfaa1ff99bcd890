"""Shared fixtures: a real service over a real SQLite file and the real embedding model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from footnoted import Footnoted, Settings

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "home")


@pytest.fixture
def service(settings: Settings) -> Iterator[Footnoted]:
    with Footnoted(settings) as fn:
        yield fn


@pytest.fixture
def samples_service(service: Footnoted) -> Footnoted:
    report = service.ingest([SAMPLES])
    assert not report.failed, report.failed
    return service


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def shared(*parts: str) -> Path:
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared evaluation data not found at {path}")
    return path
