"""A PostgreSQL restart in the middle of a tournament: the run stops with one clear line (or
carries on), and the same command run again finishes the plan with every planned match
finished and rated exactly once, and the same leaderboard as the plan played on SQLite
without interruption. A server of its own: the restart cuts every connection to it."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from pg_server import PostgresServer, started_or_failed

from space_app.cli import main

REPO = Path(__file__).resolve().parents[1]
GAMES = 160
TIMING = {"latency_ms", "avg_latency_ms"}  # measured wall time: the one thing two runs cannot share


@pytest.fixture()
def server() -> Iterator[PostgresServer]:
    found = started_or_failed()
    yield found
    found.stop()


def tournament(db: str) -> list[str]:
    return ["--db", db, "tournament", "spy", "--games", str(GAMES), "--seed", "11", "--seats", "house:heuristic",
            "house:random", "--tag", "pg-restart"]


def scalar(url: str, sql: str) -> object:
    with psycopg.connect(url.replace("postgresql+psycopg", "postgresql"), connect_timeout=5) as conn:
        return conn.execute(sql).fetchone()[0]


def finished(url: str) -> int:
    try:
        return int(scalar(url, "SELECT count(*) FROM matches WHERE status = 'finished'"))
    except psycopg.Error:  # the schema is still being made, or the server is down
        return 0


def board(db: str, capsys: pytest.CaptureFixture[str]) -> list[dict]:
    capsys.readouterr()
    assert main(["--db", db, "export", "--game", "spy", "--what", "leaderboard"]) == 0
    lines = capsys.readouterr().out.splitlines()
    return [{k: v for k, v in json.loads(line).items() if k not in TIMING} for line in lines if line.strip()]


def test_a_server_restart_mid_tournament_loses_and_doubles_nothing(server, tmp_path, capsys):
    url = server.database("restart")
    run = subprocess.Popen([sys.executable, "-m", "space_app", *tournament(url)], cwd=REPO, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 300
        while finished(url) < 20 and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert run.poll() is None, "the tournament ended before the restart: nothing was tested"
        done_before = finished(url)
        server.restart()
        _, err = run.communicate(timeout=600)
    finally:
        if run.poll() is None:
            run.kill()
    assert "Traceback" not in err, err[-3000:]
    if run.returncode == 3:  # stopped: one line saying what happened and what to do
        said = [line for line in err.splitlines() if line.startswith("error:")]
        assert len(said) == 1 and "the store stopped answering" in said[0] and "run the same command again" in \
            said[0], err[-2000:]
    else:
        assert run.returncode == 0, err[-3000:]  # or it carried on over the restart
    assert done_before <= finished(url) < GAMES or run.returncode == 0

    again = subprocess.run([sys.executable, "-m", "space_app", *tournament(url)], cwd=REPO, text=True,
                           capture_output=True, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    assert scalar(url, "SELECT count(*) FROM matches") == GAMES
    assert finished(url) == GAMES
    assert scalar(url, "SELECT count(*) FROM seat_records") == GAMES * 6  # each match's seats counted once
    assert scalar(url, "SELECT count(DISTINCT rated) FROM matches WHERE rated IS NOT NULL") == GAMES
    assert scalar(url, "SELECT max(rated) FROM matches") == GAMES  # rated once each, in one sequence

    reference = str(tmp_path / "reference.db")  # the same plan on SQLite, never interrupted
    assert main(tournament(reference)) == 0
    assert board(url, capsys) == board(reference, capsys)
