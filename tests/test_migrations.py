"""The store's schema through versioned migrations, on SQLite files and a real PostgreSQL
server: a new store is at the newest revision and equal to the tables the code declares;
several processes opening a new store at once all succeed; stores written before
migrations upgrade in place; a store from a newer version and an unreachable server are
refused with one clear line."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from pg_server import free_port
from sqlalchemy import create_engine, func, inspect, select, text

from space_app import migrations
from space_app.cli import main as cli_main
from space_app.leaderboard import board, from_matches
from space_app.standings import catch_up
from space_app.store import Store, StoreError, agents, matches, metadata
from space_app.verify import verify_match

REPO = Path(__file__).resolve().parents[1]
# written by the arena as it was before versioned migrations (see tests/fixtures/stores/README.md)
BEFORE_MIGRATIONS = REPO / "tests" / "fixtures" / "stores" / "before-migrations.db"
# Avalon, murder-mystery and Chinese spy matches written by the same commit, before the kernel
BEFORE_KERNEL = REPO / "tests" / "fixtures" / "stores" / "before-kernel.db"


def revisions(url: str) -> tuple[str, ...]:
    engine = create_engine(url if "://" in url else f"sqlite:///{url}")
    try:
        with engine.connect() as conn:
            return migrations.current(conn)
    finally:
        engine.dispose()


def test_a_new_store_is_at_the_newest_revision_and_equal_to_the_declared_tables(new_store):
    store = Store(new_store())
    assert store.schema_before == ()  # it was empty
    with store.engine.connect() as conn:
        assert migrations.current(conn) == migrations.heads()
        # what the migrations built is what the code declares: no column, index or type apart
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
    store.close()
    again = Store(store.url)  # opening it again changes nothing
    assert again.schema_before == migrations.heads()
    again.close()


OPENER = textwrap.dedent("""
    import os, sys, time
    from pathlib import Path
    from space_app.store import Store

    target, flag, name = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    Path(f"{flag}.{name}.ready").touch()
    while not flag.exists():  # every process is past its imports: open together
        time.sleep(0.001)
    store = Store(target)
    store.create_match(name, "spy", 1, [{"seat": "P1", "agent_id": "house:random"}])
    print("opened", name)
""")


@pytest.mark.parametrize("round_", range(2))
def test_processes_opening_a_new_store_at_once_all_succeed(new_store, tmp_path, round_):
    """The app and a CLI run started together on a fresh store: before migrations, one died
    with 'table agents already exists'. Three real processes, released at the same instant."""
    target = new_store()
    script = tmp_path / "opener.py"
    script.write_text(OPENER)
    flag = tmp_path / f"go-{round_}"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    names = [f"p{i}" for i in range(3)]
    procs = [subprocess.Popen([sys.executable, str(script), target, str(flag), n], cwd=REPO, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for n in names]
    try:
        while not all(Path(f"{flag}.{n}.ready").exists() for n in names):
            assert all(p.poll() is None for p in procs), [p.communicate() for p in procs]
            time.sleep(0.01)
        flag.touch()
        outputs = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    for p, (out, err) in zip(procs, outputs, strict=True):
        assert p.returncode == 0, err
        assert out.startswith("opened")
    store = Store(target)
    assert store.count_matches() == 3
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM alembic_version")).scalar_one() == 1
        assert migrations.current(conn) == migrations.heads()
    store.close()


def old_copy(tmp_path: Path) -> Path:
    db = tmp_path / "old.db"
    shutil.copy(BEFORE_MIGRATIONS, db)
    return db


def test_a_store_written_before_migrations_upgrades_in_place(tmp_path):
    db = old_copy(tmp_path)
    with sqlite3.connect(db) as raw:
        tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        counts = {t: raw.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}
        secret = raw.execute("SELECT secret FROM agents WHERE secret IS NOT NULL").fetchone()[0]
    assert "alembic_version" not in tables and counts["matches"] and counts["seat_records"]
    assert counts["suite_answers"] and counts["judge_verdicts"]

    store = Store(db)
    assert store.schema_before == () and revisions(str(db)) == migrations.heads()
    with store.engine.connect() as conn:
        for table in tables:  # every row is still there
            assert conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one() == counts[table], table
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
    assert any(a["has_secret"] for a in store.list_agents(active_only=False))
    assert store.get_agent(next(a["id"] for a in store.list_agents() if a["has_secret"]),
                           with_secret=True)["secret"] == secret
    # its standings are the ones its events give, and every match still verifies
    stored = board(store, "spy")
    assert stored and stored == from_matches("spy", store.iter_matches("spy", order="rated"))
    assert {verify_match(m).verdict for m in store.iter_matches(None, status="finished")} == {"identical"}
    # and it takes new records
    store.create_match("after-upgrade", "spy", 1, [{"seat": "P1", "agent_id": "house:random"}])
    store.close()


def test_a_store_written_before_the_kernel_rescores_and_verifies_unchanged(tmp_path, capsys):
    """Matches stored before events became models read back through the games' models: every
    record derived again from the events agrees with the stored one, the standings rebuilt from
    them are the stored ones, and every match replays identical."""
    db = tmp_path / "kernel.db"
    shutil.copy(BEFORE_KERNEL, db)
    games = {"avalon": 2, "mystery": 2, "spy": 2}
    store = Store(db)
    boards = {game: board(store, game) for game in games}
    store.close()
    assert all(boards.values())

    assert cli_main(["--db", str(db), "rescore"]) == 0
    out = capsys.readouterr().out
    for game, n in games.items():
        assert (f"{game}: {n} finished matches rescored from their events: {n} agree with the stored records, "
                "0 differed (replaced), 0 had none\n") in out
    assert cli_main(["--db", str(db), "verify", "--all"]) == 0
    assert "6 matches: 6 identical;" in capsys.readouterr().out
    store = Store(db)
    for game, before in boards.items():
        after = board(store, game)
        assert [r["agent"] for r in after] == [r["agent"] for r in before]
        for x, y in zip(after, before, strict=True):
            assert x == pytest.approx(y, abs=1e-9), (game, x["agent"])
    store.close()


def test_a_store_from_before_the_rules_and_rated_columns_upgrades_in_place(tmp_path):
    """Older still: no per-seat records, standings or judges' verdicts, and matches without
    their rules version or rating order."""
    db = old_copy(tmp_path)
    with sqlite3.connect(db) as raw:
        raw.execute("DROP INDEX ix_matches_rated")
        raw.execute("ALTER TABLE matches DROP COLUMN rated")
        raw.execute("ALTER TABLE matches DROP COLUMN rules")
        for table in ("seat_records", "agent_totals", "ratings", "judge_verdicts"):
            raw.execute(f"DROP TABLE {table}")
        finished = raw.execute("SELECT count(*) FROM matches WHERE status = 'finished'").fetchone()[0]
    store = Store(db)
    with store.engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
        assert conn.execute(select(func.count()).select_from(matches).where(matches.c.rated == 0)).scalar_one()
    assert catch_up(store) == finished
    assert board(store, "spy") == from_matches("spy", store.iter_matches("spy", order="rated"))
    store.close()


def test_a_store_from_a_newer_version_is_refused_and_left_untouched(new_store, capsys):
    target = new_store()
    store = Store(target)
    store.upsert_agent("house:random", name="Random", kind="house")
    url = store.url
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999_from_the_future'"))
        conn.execute(text("CREATE TABLE future_things (id INTEGER PRIMARY KEY)"))
    store.close()
    with pytest.raises(StoreError) as refused:
        Store(target)
    message = str(refused.value)
    assert "newer version" in message and "9999_from_the_future" in message and "untouched" in message
    assert "\n" not in message
    assert revisions(url) == ("9999_from_the_future",)
    # the command line says the same in one line, with no traceback
    assert cli_main(["--db", target, "leaderboard", "spy"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "9999_from_the_future" in err and "Traceback" not in err
    engine = create_engine(url)
    with engine.connect() as conn:  # nothing was changed
        assert conn.execute(select(func.count()).select_from(agents)).scalar_one() == 1
        assert conn.execute(text("SELECT count(*) FROM future_things")).scalar_one() == 0
    engine.dispose()


def one_line_error(argv: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(argv, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO), **env},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr, done.stderr
    lines = [x for x in done.stderr.splitlines() if x.strip()]
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_an_unreachable_postgresql_server_fails_at_start_with_one_line():
    port = free_port()  # nothing listens there
    url = f"postgresql+psycopg://arena:hunter2@127.0.0.1:{port}/arena"
    line = one_line_error([sys.executable, "-m", "space_app", "--db", url, "leaderboard", "spy"], {})
    assert line.startswith("error: cannot open the store") and f"127.0.0.1:{port}" in line
    assert "hunter2" not in line and "arena:***@" in line
    # the arena itself, as `python app.py` starts it
    line = one_line_error([sys.executable, "app.py"], {"ARENA_DB": url})
    assert f"127.0.0.1:{port}" in line and "hunter2" not in line


def test_a_store_from_before_match_origins_upgrades_and_verify_says_so(tmp_path, capsys):
    """A store at the baseline revision: its matches get an empty origin, which `verify`
    reports as not recorded; matches played after the upgrade are 'written here'."""
    db = tmp_path / "baseline.db"
    engine = create_engine(f"sqlite:///{db}")
    with engine.begin() as conn:
        command.upgrade(migrations.config(conn), "0001_baseline")
    with engine.begin() as conn:  # a match stored through the baseline's columns
        assert "origin" not in {c["name"] for c in inspect(conn).get_columns("matches")}
        conn.execute(text("INSERT INTO matches (id, game, seed, settings, status, tag, owner, created_at, process) "
                          "VALUES ('older', 'spy', 1, '{}', 'aborted', '', '', 1.0, '')"))
    engine.dispose()
    store = Store(db)
    assert store.schema_before == ("0001_baseline",) and revisions(str(db)) == migrations.heads()
    with store.engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
    store.create_match("newer", "spy", 2, [{"seat": "P1", "agent_id": "house:random"}])
    store.finish_match("newer", "aborted")
    assert store.match_origins() == {"older": "", "newer": "here"}
    store.close()
    assert cli_main(["--db", str(db), "verify", "--all", "--verbose"]) == 0
    out = capsys.readouterr().out
    assert "older (spy): skipped: aborted, empty; origin not recorded" in out
    assert "newer (spy): skipped: aborted, empty; written here" in out
