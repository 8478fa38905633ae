"""The store's schema, versioned: Alembic revisions in `versions/`, applied when a store opens.

`upgrade(engine)` brings any store to the newest revision this code knows: an empty database
gets the tables, a store written before migrations (no alembic_version table) is brought to
the baseline in place, and a store stamped with a revision this code does not know (written
by a newer version) is refused before anything is touched.

Several processes may open a new store at once (the app and a CLI run on a fresh file, two
replicas on one database): the upgrade runs under a lock the database itself holds (SQLite:
the write lock of BEGIN IMMEDIATE; PostgreSQL: a transaction-level advisory lock), and each
process checks the revision again once it holds it, so exactly one applies each revision.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

HERE = Path(__file__).resolve().parent
ADVISORY_KEY = 0x4152_454E_4153_4348  # any fixed 64-bit number, the same in every process
LOCK_WAIT_MS = 120_000  # SQLite: how long an opener waits for another's migration or write


class NewerSchema(RuntimeError):
    """The store was written by a newer version of the arena."""


def config(connection: Connection | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(HERE))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def script() -> ScriptDirectory:
    return ScriptDirectory.from_config(config())


def heads() -> tuple[str, ...]:
    return tuple(script().get_heads())


def current(conn: Connection) -> tuple[str, ...]:
    """The store's revisions (empty for a new store or one written before migrations)."""
    return tuple(MigrationContext.configure(conn).get_current_heads())


def _check_known(at: tuple[str, ...], scripts: ScriptDirectory) -> None:
    known = {r.revision for r in scripts.walk_revisions()}
    unknown = [r for r in at if r not in known]
    if unknown:
        raise NewerSchema(f"it was written by a newer version of the arena (schema revision {', '.join(unknown)}; "
                          f"this version knows up to {', '.join(scripts.get_heads())}); it was left untouched: "
                          "open it with that version or a later one")


def _lock(conn: Connection) -> None:
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": ADVISORY_KEY})
    elif conn.dialect.name == "sqlite":
        # the driver begins transactions lazily, at the first write: take the write lock now,
        # so a second opener waits here instead of racing to create the same tables
        conn.exec_driver_sql(f"PRAGMA busy_timeout={LOCK_WAIT_MS}")
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def upgrade(engine: Engine) -> tuple[str, ...]:
    """Bring the store to the newest revision; returns the revisions it was at before
    (unchanged when it was already there). Raises NewerSchema for an unknown revision."""
    scripts = script()
    wanted = set(scripts.get_heads())
    with engine.connect() as conn:
        at = current(conn)
        conn.rollback()
        _check_known(at, scripts)
        if set(at) == wanted:  # the common case: no lock taken
            return at
        with conn.begin():
            _lock(conn)
            at = current(conn)  # again: another process may have done it while this one waited
            _check_known(at, scripts)
            if set(at) != wanted:
                command.upgrade(config(conn), "heads")
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql("PRAGMA busy_timeout=10000")
    return at
