"""Store targets for tests that run on every backend."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

BACKENDS = ("sqlite", "postgresql")
_files = itertools.count(1)


def store_target(backend: str, directory: Path, request: pytest.FixtureRequest) -> str:
    """A new empty store: a SQLite file in `directory`, or a new database on the test server
    (the server fixture is asked for only here, so SQLite-only runs never start it)."""
    if backend == "sqlite":
        return str(directory / f"store-{next(_files)}.db")
    return request.getfixturevalue("pg_server").database()
