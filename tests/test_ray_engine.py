"""Batch work on Ray, and planned matches recorded exactly once under failure.

One real local Ray instance (2 CPUs, no dashboard) serves the module. A tournament played on
Ray gives the same records, standings and leaderboard as the same plan played in process; a
Ray worker killed in the middle of a tournament, or a driver killed (on Ray and in process),
and the same command run again, leave every planned match finished exactly once with the same
standings; an unreachable cluster address fails at start with one line and creates nothing.
Only the measured call latencies may differ between two runs of one plan: they are left out of
the comparisons, everything else is compared byte for byte."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="ray is in requirements.txt")  # noqa: F841 - a clear message if absent

from space_app.cli import main  # noqa: E402
from space_app.engines.ray_engine import WORKER_PREFIX, join_failure  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SEATS = ["house:heuristic", "house:random"]
GAMES = 24
TIMING = {"latency_ms", "avg_latency_ms"}  # measured wall time: the one thing two runs cannot share


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def tournament_args(db: Path, *extra: str) -> list[str]:
    return ["--db", str(db), "tournament", "spy", "--games", str(GAMES), "--seed", "5", "--seats", *SEATS,
            "--tag", "ray-check", *extra]


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def exported(db: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    """The seats export (CSV) and the leaderboard export (JSON Lines), timing left out."""
    code, text, _ = run_cli(["--db", str(db), "export", "--game", "spy", "--what", "seats", "--format", "csv"],
                            capsys)
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows, "no records exported"
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, [k for k in rows[0] if k not in TIMING], extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    code, board, _ = run_cli(["--db", str(db), "export", "--game", "spy", "--what", "leaderboard"], capsys)
    assert code == 0 and board.strip()
    return {"seats": buffer.getvalue(),
            "leaderboard": "\n".join(json.dumps({k: v for k, v in json.loads(line).items() if k not in TIMING})
                                      for line in board.splitlines())}


def plays(db: Path) -> dict[str, list[tuple]]:
    """Each match's id, seed, seats and every event but its time and measured latency."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT e.match_id, e.seq, e.kind, e.actor, e.text, e.data FROM events e "
                            "ORDER BY e.match_id, e.seq").fetchall()
        seats = conn.execute("SELECT match_id, seat, agent_id FROM seats ORDER BY match_id, position").fetchall()
    out: dict[str, list[tuple]] = {}
    for match_id, seq, kind, actor, text, data in rows:
        payload = {k: v for k, v in json.loads(data).items() if k not in TIMING}
        out.setdefault(match_id, []).append((seq, kind, actor, text, json.dumps(payload, sort_keys=True)))
    for match_id, seat, agent in seats:
        out.setdefault(match_id, []).append(("seat", seat, agent))
    return out


def ledger(db: Path) -> tuple[int, list[tuple[str, str, int]], int]:
    """(matches stored, (id, status, rated order) in rated order, per-seat records)."""
    with sqlite3.connect(db) as conn:
        count = conn.execute("SELECT count(*) FROM matches").fetchone()[0]
        rows = conn.execute("SELECT id, status, rated FROM matches ORDER BY rated, id").fetchall()
        records = conn.execute("SELECT count(*) FROM seat_records").fetchone()[0]
    return count, rows, records


@pytest.fixture(scope="module")
def in_process(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plan played in process: the reference every other run must equal."""
    db = tmp_path_factory.mktemp("local") / "arena.db"
    assert main(tournament_args(db)) == 0
    return db


def assert_same_as_reference(db: Path, reference: Path, capsys: pytest.CaptureFixture[str]) -> None:
    count, rows, records = ledger(db)
    ref_count, ref_rows, ref_records = ledger(reference)
    assert count == ref_count == GAMES
    assert rows == ref_rows  # the same ids, all finished, rated once each, in the plan's order
    assert {status for _, status, _ in rows} == {"finished"}
    assert [rated for _, _, rated in rows] == list(range(1, GAMES + 1))
    assert records == ref_records == GAMES * 6
    assert plays(db) == plays(reference)
    assert exported(db, capsys) == exported(reference, capsys)


def test_a_ray_tournament_equals_the_same_plan_in_process(cluster: str, in_process: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "ray.db"
    code, out, err = run_cli(tournament_args(db, "--engine", "ray"), capsys)
    assert code == 0, err
    assert f"{GAMES} matches finished, 0 failed" in out and "engine: ray, 2 workers" in out
    assert "running=" in err and "failed=" in err  # the bar shows what runs and what failed
    assert_same_as_reference(db, in_process, capsys)


def finished_count(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=10) as conn:
            return conn.execute("SELECT count(*) FROM matches WHERE status = 'finished'").fetchone()[0]
    except sqlite3.OperationalError:  # the schema is still being created
        return 0


def wait_for(db: Path, finished: int, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while finished_count(db) < finished:
        assert time.monotonic() < deadline, f"fewer than {finished} matches finished in {seconds} s"
        time.sleep(0.05)


def test_a_killed_ray_worker_loses_nothing_and_counts_nothing_twice(cluster: str, in_process: Path, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    import ray

    db = tmp_path / "killed-worker.db"
    args = tournament_args(db, "--engine", "ray", "--concurrency", "2")
    result: dict[str, int] = {}
    run = threading.Thread(target=lambda: result.update(code=main(args)))
    run.start()
    wait_for(db, 3)
    names = [a["name"] for a in ray.util.list_named_actors(all_namespaces=True) if a["name"].startswith(WORKER_PREFIX)]
    assert names, "no worker of the batch found"
    pid = ray.get(ray.get_actor(names[0]).pid.remote())
    os.kill(pid, signal.SIGKILL)  # the worker dies with matches in flight
    run.join(timeout=120)
    assert not run.is_alive()
    first = capsys.readouterr()
    # Ray restarted the worker and played its matches in flight again: the run itself completed
    assert result["code"] == 0, first.err
    assert f"{GAMES} matches finished, 0 failed" in first.out
    code, out, err = run_cli(args, capsys)  # the same command again
    assert code == 0, err
    assert f"{GAMES} matches finished" in out
    assert_same_as_reference(db, in_process, capsys)


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ARENA_DB",) and "proxy" not in k.lower()}
    env.update(PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1", PYTHONIOENCODING="utf-8")
    return env


@pytest.mark.parametrize("engine", ["ray", "local"])
def test_a_killed_driver_and_the_same_command_again(engine: str, cluster: str, in_process: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The command's own process is killed mid-tournament (its Ray workers die with it), then
    run again: what finished is kept, what was half written is replaced, the rest is played."""
    db = tmp_path / f"killed-driver-{engine}.db"
    extra = ["--engine", "ray", "--address", cluster] if engine == "ray" else []
    args = tournament_args(db, *extra, "--concurrency", "2")
    driver = subprocess.Popen([sys.executable, "-m", "space_app", *args], cwd=REPO, env=clean_env(),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(db, 3, seconds=90)
    finally:
        driver.send_signal(signal.SIGKILL)
        driver.wait(timeout=30)
    stopped = finished_count(db)
    assert stopped < GAMES, "the driver finished before it could be killed"
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    assert f"{GAMES} matches finished ({stopped} of them before this run)" in out
    assert_same_as_reference(db, in_process, capsys)


def test_an_unreachable_cluster_fails_at_start_with_one_line(cluster: str, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = tmp_path / "never" / "arena.db"
    code, out, err = run_cli(tournament_args(db, "--engine", "ray", "--address", f"127.0.0.1:{port}"), capsys)
    assert code == 2
    assert err.splitlines() == [f"error: cannot reach the Ray cluster at 127.0.0.1:{port}: Connection refused"]
    assert "Traceback" not in out + err
    assert not db.parent.exists()  # no store was created


def test_a_suite_on_ray_scores_as_in_process(cluster: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each question a task of a worker that resolved the agent once; the answers stored here."""
    scores = {}
    for engine in ("local", "ray"):
        args = ["--db", str(tmp_path / f"{engine}.db"), "bench", "tom-household", "--agent", "house:guess",
                "--limit", "20", "--json", "--engine", engine]
        code, out, err = run_cli(args, capsys)
        assert code == 0, err
        scores[engine] = json.loads(out)
    assert scores["ray"] == scores["local"]
    assert scores["ray"]["answered"] == 20


MYSTERY = ["--scripts", "tingyu-teahouse", "--rounds", "1"]
NAIVE, RANDOM = "house:mystery-naive", "house:mystery-random"


def test_the_mystery_matrix_on_ray_equals_it_in_process_and_a_rerun_plays_nothing(
        cluster: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`coe-matrix`: its matches planned (ids from the plan), the same records and matrix on either engine."""
    found = {}
    for engine in ("local", "ray"):
        args = ["coe-matrix", "--agents", f"{NAIVE},{RANDOM}", "--matches", "1", *MYSTERY, "--json",
                "--db", str(tmp_path / f"{engine}.db"), "--engine", engine]
        code, out, err = run_cli(args, capsys)
        assert code == 0, err
        found[engine] = json.loads(out)
    assert found["ray"] == found["local"]
    assert sum(len(c["matches"]) for c in found["ray"]["cells"]) == 4  # each ordered pair once
    ray_db, local_db = tmp_path / "ray.db", tmp_path / "local.db"
    assert ledger(ray_db) == ledger(local_db)
    assert {status for _, status, _ in ledger(ray_db)[1]} == {"finished"}
    assert plays(ray_db) == plays(local_db)

    code, out, err = run_cli(["coe-matrix", "--agents", f"{NAIVE},{RANDOM}", "--matches", "1", *MYSTERY, "--json",
                              "--db", str(ray_db), "--engine", "ray"], capsys)
    assert code == 0, err
    assert json.loads(out) == found["ray"]
    assert ledger(ray_db) == ledger(local_db)  # nothing played again, nothing rated twice


def test_coe_on_ray_scores_as_in_process_and_a_rerun_plays_nothing(
        cluster: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`coe`: its matches and its questions on Ray workers; the same records and scores."""
    reports = {}
    for engine in ("local", "ray"):
        args = ["coe", "--agent", NAIVE, "--murderer", RANDOM, "--matches", "2", "--quiz-limit", "1", *MYSTERY,
                "--json", "--db", str(tmp_path / f"{engine}.db"), "--engine", engine]
        code, out, err = run_cli(args, capsys)
        assert code == 0, err
        reports[engine] = json.loads(out)
        assert reports[engine].pop("seconds") >= 0  # the run's wall time: the one figure that may differ
        assert reports[engine]["played"] == 2
    assert reports["ray"] == reports["local"]
    ray_db, local_db = tmp_path / "ray.db", tmp_path / "local.db"
    assert ledger(ray_db) == ledger(local_db) and ledger(ray_db)[0] == 2
    assert plays(ray_db) == plays(local_db)

    code, out, err = run_cli(["coe", "--agent", NAIVE, "--murderer", RANDOM, "--matches", "2", "--quiz-limit", "1",
                              *MYSTERY, "--json", "--db", str(ray_db), "--engine", "ray"], capsys)
    assert code == 0, err
    again = json.loads(out)
    again.pop("seconds")
    assert again["played"] == 0 and again["scores"] == reports["ray"]["scores"]
    assert ledger(ray_db) == ledger(local_db)


def test_a_local_model_loads_once_per_worker_on_one_thread_each(cluster: str, tmp_path: Path) -> None:
    """`house:limp-local` over 4 questions on 2 workers of one CPU: each worker loads the embedded
    model once (its loader counts) and runs it on the one thread its CPU allows."""
    import asyncio

    from space_app.engines import open_engine
    from space_app.store import Store
    from space_app.suites import open_suite
    from space_app.suites.run import run_suite

    engine = open_engine("ray", concurrency=1, workers=2)
    store = Store(tmp_path / "limp.db")
    scores = asyncio.run(run_suite(store, open_suite("tom-household"), None, "house:limp-local", limit=4,
                                   seconds=600, engine=engine))
    assert scores.answered == 4 and scores.failed.k == 0
    usage = engine.worker_usage
    assert len(usage) == 2 and len({u["pid"] for u in usage}) == 2
    assert [u["model_loads"] for u in usage] == [1, 1]
    assert [u["local_threads"] for u in usage] == ["1", "1"]


def test_a_refused_join_names_the_token_a_ray_start_cluster_asks_for() -> None:
    # a cluster from `ray start` (Ray 2.59+) refuses a client without RAY_AUTH_MODE=token, and the
    # client sees only a failed connection: the line names the likely cause and the fix
    failed = ConnectionError("Failed to connect to Ray cluster at 192.0.2.2:6379\nmore detail")
    line = join_failure("127.0.0.1:6379", failed, {})
    assert line.startswith("cannot join the Ray cluster at 127.0.0.1:6379: ConnectionError: Failed to connect")
    assert "\n" not in line and "RAY_AUTH_MODE=token" in line and "~/.ray/auth_token" in line
    # with the token mode set, the cause is something else: the line is the failure alone
    alone = join_failure("127.0.0.1:6379", failed, {"RAY_AUTH_MODE": "token"})
    assert alone == "cannot join the Ray cluster at 127.0.0.1:6379: ConnectionError: Failed to connect to Ray " \
                    "cluster at 192.0.2.2:6379"
