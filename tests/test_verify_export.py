"""`python -m space_app verify` and `export` on real SQLite stores and a real PostgreSQL
server: a fresh tournament verifies, an edited event is named, an old record says so, and
exports carry every row."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sqlalchemy import make_url, update
from stores import BACKENDS, store_target

from space_app.cli import main as cli_main
from space_app.store import Store, events, matches


@pytest.fixture(scope="module", params=BACKENDS)
def store_path(request, tmp_path_factory):
    path = store_target(request.param, tmp_path_factory.mktemp("verify"), request)
    assert cli_main(["--db", str(path), "tournament", "spy", "--games", "40", "--seed", "3",
                     "--seats", "house:heuristic", "house:random"]) == 0
    return path


def run_cli(capsys, *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = cli_main(list(argv))
    return code, capsys.readouterr().out


def copy_of(store_path, tmp_path, request):
    """A consistent copy (SQLite is in WAL mode: the main file alone may lag; a PostgreSQL
    database is copied as a template)."""
    if "://" in str(store_path):
        return request.getfixturevalue("pg_server").database(template=make_url(store_path).database)
    target = tmp_path / "copy.db"
    with sqlite3.connect(store_path) as source, sqlite3.connect(target) as copy:
        source.backup(copy)
    return target


def test_every_match_of_a_fresh_tournament_verifies(store_path, capsys):
    code, out = run_cli(capsys, "--db", str(store_path), "verify", "--all")
    assert code == 0
    assert out.strip().endswith("matches/s)") and "40 matches: 40 identical" in out


def edit_first(db, kind: str, new_text: str, rules: str | None = None) -> tuple[str, dict]:
    """Change the text of the newest match's first `kind` event in SQLite (and its rules
    version, if given); returns (match id, the event as it was)."""
    store = Store(db)
    victim = store.list_matches(limit=1)[0]["id"]
    event = next(e for e in store.get_match(victim)["events"] if e["kind"] == kind)
    with store.engine.begin() as conn:
        conn.execute(update(events).where(events.c.match_id == victim, events.c.seq == event["seq"])
                     .values(text=new_text))
        if rules is not None:
            conn.execute(update(matches).where(matches.c.id == victim).values(rules=rules))
    store.close()
    return victim, event


def test_an_edited_event_is_named(store_path, tmp_path, capsys, request):
    db = copy_of(store_path, tmp_path, request)
    victim, statement = edit_first(db, "statement", "it is red, and round")
    code, out = run_cli(capsys, "--db", str(db), "verify", "--all")
    assert code == 1
    line = next(x for x in out.splitlines() if x.startswith(victim))
    assert f"differs at event {statement['seq']}" in line and "statement event: text" in line
    assert "39 identical" in out and "1 differs" in out
    # naming one match checks just that one
    code, out = run_cli(capsys, "--db", str(db), "verify", victim)
    assert code == 1 and out.count("differs") == 2


def test_a_record_from_an_older_version_of_the_rules_says_so(store_path, tmp_path, capsys, request):
    db = copy_of(store_path, tmp_path, request)
    # as if an earlier version of the rules had counted this vote differently
    victim, _ = edit_first(db, "vote_result", "The votes were counted another way.", rules="")
    code, out = run_cli(capsys, "--db", str(db), "verify", victim)
    assert "older_rules" in out and "did not record its rules" in out and "version 1" in out


def test_verify_refuses_unknown_matches_and_an_empty_request(store_path, capsys):
    code = cli_main(["--db", str(store_path), "verify", "nosuchmatch"])
    assert code == 2 and "no match nosuchmatch" in capsys.readouterr().err
    code = cli_main(["--db", str(store_path), "verify"])
    assert code == 2 and "--all" in capsys.readouterr().err


def test_a_match_drawn_from_a_pool_not_stored_is_skipped_with_the_reason(tmp_path, capsys, new_store):
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("civilian,spy\nharp,lyre\nkayak,canoe\n", encoding="utf-8")
    db = new_store()
    assert cli_main(["--db", str(db), "tournament", "spy", "--games", "3", "--pairs", str(pairs),
                     "--seats", "house:heuristic", "house:random"]) == 0
    code, out = run_cli(capsys, "--db", str(db), "verify", "--all")
    assert code == 0 and "3 skipped" in out and "not stored with matches" in out


# a process that records a match's start and is killed (-9) before its first event is written
KILLED_BEFORE_ANY_EVENT = textwrap.dedent("""
    import os, signal, sys
    from space_app.core import get_game
    from space_app.store import Store

    store = Store(sys.argv[1])
    seats = [{"seat": f"P{i}", "agent_id": "house:random"} for i in range(1, 7)]
    store.create_match("killed-early", "spy", 11, seats, rules=str(get_game("spy").rules.rules_version))
    os.kill(os.getpid(), signal.SIGKILL)
""")


def test_a_match_killed_before_its_first_event_is_reported_empty_not_failed(store_path, tmp_path, capsys,
                                                                          request):
    db = copy_of(store_path, tmp_path, request)
    repo = Path(__file__).resolve().parents[1]
    proc = subprocess.run([sys.executable, "-c", KILLED_BEFORE_ANY_EVENT, str(db)], cwd=repo,
                          env={**os.environ, "PYTHONPATH": str(repo)}, capture_output=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()[-2000:]
    reopened = Store(db)  # what the arena's next start does: the dead process's match is aborted
    assert reopened.aborted_on_open == ["killed-early"]
    assert reopened.get_match("killed-early")["events"] == []
    reopened.close()
    code, out = run_cli(capsys, "--db", str(db), "verify", "--all")
    assert code == 0, out
    assert "killed-early (spy): skipped: aborted, empty" in out
    assert "41 matches: 40 identical, 1 skipped" in out


@pytest.mark.parametrize("what", ["matches", "seats", "leaderboard"])
def test_exports_as_jsonl_and_csv(store_path, capsys, what):
    code, out = run_cli(capsys, "--db", str(store_path), "export", "--game", "spy", "--what", what)
    lines = [json.loads(x) for x in out.splitlines()]
    code_csv, out_csv = run_cli(capsys, "--db", str(store_path), "export", "--game", "spy", "--what", what,
                                "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out_csv)))
    assert code == code_csv == 0 and len(lines) == len(rows)
    expected = {"matches": 40, "seats": 40 * 6, "leaderboard": 2}[what]
    assert len(lines) == expected
    if what == "matches":
        assert lines[0]["events"] and rows[0]["winner"] in ("spy", "civilian")
    if what == "seats":
        assert {"match_id", "seat", "agent_id", "role", "score", "won"} <= set(rows[0])
        assert sum(float(r["score"]) for r in rows) == pytest.approx(12 * 40)
    if what == "leaderboard":
        assert {r["agent"] for r in lines} == {"house:heuristic", "house:random"}


def test_the_code_version_is_named_from_a_checkout_too():
    import tomllib
    from importlib import metadata

    import space_app
    from space_app.export import code_version

    version = code_version()["package_version"]
    assert version == space_app.__version__ != "unknown"
    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    assert "version" in project["dynamic"] and "version" not in project  # one place: space_app.__version__
    try:
        installed = metadata.version("deduction-arena")
    except metadata.PackageNotFoundError:
        installed = version  # a checkout that was never installed: the code's version alone
    assert installed == version
