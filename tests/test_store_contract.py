"""The store contract (``footnoted.stores.contract``) on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from footnoted import Settings
from footnoted.stores.base import Store
from footnoted.stores.contract import *  # noqa: F403 (the contract's tests)
from footnoted.stores.contract import DIM, OpenStore
from footnoted.stores.factory import open_store
from pghelpers import Postgres


@pytest.fixture(params=["sqlite", "postgres"])
def open_new(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[OpenStore]:
    """Opens another store over the same database (another process's view of it)."""
    with ExitStack() as stack:
        url = None
        if request.param == "postgres":
            pg: Postgres = request.getfixturevalue("postgres")
            url = stack.enter_context(pg.temporary())
        settings = Settings(home=tmp_path / "home", database_url=url)

        def open_one() -> Store:
            store = open_store(settings, DIM)
            stack.callback(store.close)
            return store

        yield open_one
