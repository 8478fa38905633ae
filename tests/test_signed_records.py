"""Records that can't be forged: every line the arena writes to its records dataset is signed
(HMAC-SHA256 under a key that never leaves the arena), and a restore takes only lines that
verify, refusing the rest by count and reason. Real stores (SQLite files) and real matches,
with a stand-in Hub (tests/fake_hub.py): no network."""

from __future__ import annotations

import json
import logging
import os
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from fake_hub import REPO, FakeFs, FakeHfApi

from space_app.cli import main as cli_main
from space_app.config import ArenaConfig
from space_app.core import get_game
from space_app.leaderboard import board
from space_app.registry import MAX_DESCRIPTION, RegistrationError, register_agent
from space_app.service import Arena, MatchPlan
from space_app.signed_records import KEY_FILE, RecordSigner, RecordsKeyError, signer_for
from space_app.standings import catch_up
from space_app.store import Store
from space_app.sync import ABORTED_ON_RESTORE, RecordSync, sync_for

PAIR = {"pair": {"civilian": "tea", "spy": "coffee"}}
KEY = "the-arena-records-key-kept-as-a-space-secret"
OTHER_KEY = "someone-else-s-key-of-the-right-length-000"
RLO = "\u202e"


@pytest.fixture
def hub() -> SimpleNamespace:
    files: dict[str, bytes] = {}
    return SimpleNamespace(files=files, api=FakeHfApi(files), fs=FakeFs(files))


@pytest.fixture
def make_sync(hub: SimpleNamespace, tmp_path: Path) -> Iterator[Callable[..., RecordSync]]:
    made: list[RecordSync] = []

    def _make(store: Store, name: str, *, key: str = KEY, trust_unsigned: bool = False) -> RecordSync:
        sync = RecordSync(store, REPO, signer=RecordSigner(key.encode()), trust_unsigned=trust_unsigned,
                          folder=tmp_path / f"sync-{name}", every_minutes=60, hf_api=hub.api, fs=hub.fs)
        made.append(sync)
        return sync

    yield _make
    for sync in made:
        sync.stop()


def play(arena: Arena, seeds: list[int]) -> list[str]:
    n = get_game("spy").facts.default_players
    specs = ["house:heuristic", "house:random"]
    ids = []
    for seed in seeds:
        outcome = arena.run_sync(MatchPlan("spy", [specs[i % 2] for i in range(n)], seed=seed, settings=PAIR))
        assert outcome.status == "finished", outcome.error
        ids.append(outcome.match_id)
    return ids


def lines_of(hub: SimpleNamespace, kind: str) -> list[bytes]:
    return [line for k, v in sorted(hub.files.items()) if k.startswith(f"{kind}/") for line in v.splitlines()]


def unsigned(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "_sig"}


@pytest.fixture
def recorded(hub, make_sync, tmp_path) -> SimpleNamespace:
    """An arena that played two matches and registered an agent, all synced to the dataset."""
    store = Store(tmp_path / "a.db")
    arena = Arena(store)
    sync = make_sync(store, "a")
    arena.on_finished.append(sync.record_match)
    ids = play(arena, [4, 5])
    store.upsert_agent("alice/bot-1", name="bot", kind="remote", src="https://alice.example/agent",
                       secret="s3cret", owner="alice", description="alice's bot", games=["spy"],
                       info={"name": "bot", "games": ["spy"]})
    assert sync.record_agent("alice/bot-1")
    sync.flush()
    return SimpleNamespace(store=store, ids=ids, sync=sync)


def test_every_line_written_is_signed_and_verifies(hub, recorded, make_sync, tmp_path):
    signer = RecordSigner(KEY.encode())
    for kind in ("matches", "agents"):
        for line in lines_of(hub, kind):
            record = json.loads(line)
            assert record["_sig"].startswith(f"hmac-sha256:{signer.key_id}:")
            assert signer.check(kind, record) == "verified"
            # moved to the other kind, the same line no longer verifies
            assert signer.check("agents" if kind == "matches" else "matches", record) == "bad_signature"
    assert all(KEY.encode() not in data for data in hub.files.values())
    counts = make_sync(Store(tmp_path / "b.db"), "b").restore()
    assert counts["matches"] == 2 and counts["agents"] == 1 and counts["refused"] == 0


def test_thirty_forged_matches_are_refused_and_never_reach_the_leaderboard(hub, recorded, make_sync, tmp_path):
    """Copies of a real match with a seat relabelled to an injected agent: unsigned, signed with
    another key, or carrying the real match's signature."""
    real = json.loads(lines_of(hub, "matches")[0])
    other = RecordSigner(OTHER_KEY.encode())
    forged = []
    for i in range(30):
        copy = unsigned(real)
        copy["id"] = f"forged-{i:02d}"
        copy["seats"] = [dict(s) for s in copy["seats"]]
        copy["seats"][0].update(agent_id="mallory/injected", agent_name="Injected")
        if i % 3 == 0:
            forged.append(json.dumps(copy))
        elif i % 3 == 1:
            forged.append(other.line("matches", copy))
        else:
            forged.append(json.dumps({**copy, "_sig": real["_sig"]}))
    hub.files["matches/2026-11-01-f0r93d00.jsonl"] = ("\n".join(forged) + "\n").encode()

    fresh = Store(tmp_path / "b.db")
    counts = make_sync(fresh, "b").restore()
    assert counts["matches"] == 2
    assert (counts["unsigned"], counts["other_key"], counts["bad_signature"]) == (10, 10, 10)
    assert counts["refused"] == 30
    assert sorted(m["id"] for m in fresh.list_matches()) == sorted(recorded.ids)
    catch_up(fresh)
    catch_up(recorded.store)
    rows = board(fresh, "spy")
    assert rows == board(recorded.store, "spy")
    assert "mallory/injected" not in {r["agent"] for r in rows}

    # the operator's leave to adopt unsigned lines covers unsigned lines only
    trusting = Store(tmp_path / "c.db")
    counts = make_sync(trusting, "c", trust_unsigned=True).restore()
    assert (counts["other_key"], counts["bad_signature"], counts["adopted_unsigned"]) == (10, 10, 10)


def test_unreadable_lines_are_counted_and_the_rest_still_restores(hub, recorded, make_sync, tmp_path):
    hub.files["matches/2026-11-05-b4d11n3s.jsonl"] = b"{not json\n[1, 2]\n" + b"[" * 200_000 + b"\n{}\n"
    counts = make_sync(Store(tmp_path / "b.db"), "b").restore()
    assert counts["unreadable"] == 4 and counts["refused"] == 4 and counts["matches"] == 2


def test_a_tampered_byte_in_a_signed_line_is_refused(hub, recorded, make_sync, tmp_path):
    [key] = [k for k in hub.files if k.startswith("matches/")]
    first, second = hub.files[key].splitlines()
    seed = json.loads(first)["seed"]
    tampered = first.replace(f'"seed": {seed},'.encode(), f'"seed": {seed + 1},'.encode(), 1)
    assert tampered != first
    # one hex digit of the other line's signature changed
    digest_at = second.index(b'"_sig": "hmac-sha256:') + len(b'"_sig": "hmac-sha256:') + 13
    flipped = second[:digest_at] + (b"0" if second[digest_at:digest_at + 1] != b"0" else b"1") + second[digest_at + 1:]
    hub.files[key] = tampered + b"\n" + flipped + b"\n"
    fresh = Store(tmp_path / "b.db")
    counts = make_sync(fresh, "b").restore()
    assert counts["bad_signature"] == 2 and counts["matches"] == 0 and fresh.list_matches() == []


def test_a_line_cannot_hand_an_existing_agent_to_a_new_owner(hub, recorded, make_sync):
    line = json.loads(lines_of(hub, "agents")[0])
    hijack = {**unsigned(line), "owner": "mallory", "recorded_at": line["recorded_at"] + 60}
    hub.files["agents/2026-11-02-h1jack00.jsonl"] = (json.dumps(hijack) + "\n").encode()
    # unsigned: refused as such; adopted by the operator's leave: still not a new owner
    assert make_sync(recorded.store, "b").restore()["unsigned"] == 1
    counts = make_sync(recorded.store, "c", trust_unsigned=True).restore()
    assert counts["owner_changed"] == 1
    # and even a line the arena signed never moves an agent this store has to someone else
    hub.files["agents/2026-11-02-h1jack00.jsonl"] = (RecordSigner(KEY.encode()).line("agents", hijack)
                                                     + "\n").encode()
    counts = make_sync(recorded.store, "d").restore()
    assert counts["owner_changed"] == 1 and counts["agents"] == 0
    kept = recorded.store.get_agent("alice/bot-1", with_secret=True)
    assert kept["owner"] == "alice" and kept["secret"] == "s3cret"
    assert kept["src"] == "https://alice.example/agent"


def test_restored_names_and_descriptions_pass_registrations_checks(hub, recorded, make_sync, tmp_path):
    signer = RecordSigner(KEY.encode())
    base = unsigned(json.loads(lines_of(hub, "agents")[0]))
    bidi = {**base, "id": "alice/bidi-1", "name": f"bot{RLO}exe.txt", "description": f"hello{RLO}\u200bworld\x1b[31m"}
    huge = {**base, "id": "alice/huge-1", "description": "x" * 60_000}
    far = {**base, "id": "alice/far-1", "src": "file:///etc/passwd"}
    real_match = unsigned(json.loads(lines_of(hub, "matches")[0]))
    renamed = {**real_match, "id": "renamed-1",
               "seats": [{**s, "agent_name": f"{RLO}{s['agent_name']}"} for s in real_match["seats"]]}
    hub.files["agents/2026-11-03-n4mes000.jsonl"] = "".join(
        signer.line("agents", r) + "\n" for r in (bidi, huge, far)).encode()
    hub.files["matches/2026-11-03-n4mes000.jsonl"] = (signer.line("matches", renamed) + "\n").encode()

    fresh = Store(tmp_path / "b.db")
    counts = make_sync(fresh, "b").restore()
    shown = fresh.get_agent("alice/bidi-1")
    assert shown["name"] == "botexe.txt" and shown["description"] == "helloworld[31m"
    assert counts["agents_repaired"] == 1 and counts["invalid"] == 2
    assert fresh.get_agent("alice/huge-1") is None and fresh.get_agent("alice/far-1") is None
    assert all(RLO not in s["agent_name"] for s in fresh.get_match("renamed-1")["seats"])
    # registration refuses the same description with the same words
    with pytest.raises(RegistrationError, match=f"longer than {MAX_DESCRIPTION} characters"):
        register_agent(fresh, "https://alice.example/agent", description="x" * 60_000)


def test_a_match_restored_while_running_is_aborted(hub, recorded, make_sync, tmp_path):
    real = unsigned(json.loads(lines_of(hub, "matches")[0]))
    running = {**real, "id": "was-running", "status": "running", "result": None, "finished_at": None,
               "events": real["events"][:5]}
    hub.files["matches/2026-11-04-runn1ng0.jsonl"] = (
        RecordSigner(KEY.encode()).line("matches", running) + "\n").encode()
    fresh = Store(tmp_path / "b.db")
    counts = make_sync(fresh, "b").restore()
    assert counts["matches_aborted"] == 1 and counts["matches"] == 3
    match = fresh.get_match("was-running")
    assert match["status"] == "aborted" and match["error"] == ABORTED_ON_RESTORE
    assert match["finished_at"] is not None and len(match["events"]) == 5
    assert fresh.list_matches(status="running") == []


def test_verify_reports_authenticity_alongside_the_replay(hub, recorded, make_sync, tmp_path, capsys):
    fresh_db = tmp_path / "b.db"
    make_sync(Store(fresh_db), "b").restore()
    capsys.readouterr()
    assert cli_main(["--db", str(fresh_db), "verify", "--all"]) == 0
    out = capsys.readouterr().out
    assert "2 matches: 2 identical; 2 restored from the records dataset, signature verified" in out
    assert cli_main(["--db", str(fresh_db), "verify", recorded.ids[0]]) == 0
    assert (f"{recorded.ids[0]} (spy): identical; restored from the records dataset, signature verified"
            in capsys.readouterr().out)
    assert cli_main(["--db", recorded.store.url.removeprefix("sqlite:///"), "verify", recorded.ids[1]]) == 0
    assert f"{recorded.ids[1]} (spy): identical; written here" in capsys.readouterr().out


def test_an_older_unsigned_dataset_is_refused_unless_the_operator_adopts_it_once(hub, make_sync, tmp_path,
                                                                                  capsys):
    """Lines written before signing carry no signature: refused by default; adopted (and
    signed again on the next sync) when the operator sets ARENA_TRUST_UNSIGNED_RECORDS."""
    store = Store(tmp_path / "old.db")
    ids = play(Arena(store), [8, 9])
    store.upsert_agent("bob/bot-2", name="bob's bot", kind="remote", src="bob/bot", owner="bob",
                       games=["spy"])
    # as the arena wrote them before lines were signed
    hub.files["matches/2025-01-01-01d00000.jsonl"] = "".join(
        json.dumps(store.get_match(i), ensure_ascii=False, sort_keys=True) + "\n" for i in ids).encode()
    agent = {**store.get_agent("bob/bot-2"), "active": True, "has_secret": False, "recorded_at": 1.0}
    hub.files["agents/2025-01-01-01d00000.jsonl"] = (json.dumps(agent) + "\n").encode()

    refused = Store(tmp_path / "refused.db")
    counts = make_sync(refused, "refused").restore()
    assert counts["unsigned"] == 3 and counts["matches"] == 0 and refused.get_agent("bob/bot-2") is None

    adopting = Store(tmp_path / "adopting.db")
    sync = make_sync(adopting, "adopting", trust_unsigned=True)
    counts = sync.restore()
    assert counts["adopted_unsigned"] == 3 and counts["matches"] == 2 and counts["refused"] == 0
    assert set(adopting.match_origins().values()) == {"adopted"}
    sync.flush()  # the adopted lines, signed, reach the dataset
    capsys.readouterr()
    assert cli_main(["--db", str(tmp_path / "adopting.db"), "verify", ids[0]]) == 0
    assert "restored from the records dataset unsigned, adopted by the operator" in capsys.readouterr().out

    # the next start, without the leave: the signed copies verify, the old lines stay refused
    later = Store(tmp_path / "later.db")
    counts = make_sync(later, "later").restore()
    assert counts["matches"] == 2 and counts["agents"] == 1 and counts["unsigned"] == 3
    assert later.get_agent("bob/bot-2")["owner"] == "bob"
    # starting again with the leave still set signs nothing twice
    before = len(lines_of(hub, "matches"))
    again = make_sync(adopting, "again", trust_unsigned=True)
    again.restore()
    again.flush()
    assert len(lines_of(hub, "matches")) == before


def test_a_generated_key_stays_beside_the_database_and_nowhere_else(hub, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    config = ArenaConfig(db=str(tmp_path / "space" / "arena.db"), dataset_repo=REPO)
    store = Store(config.db)
    sync = sync_for(store, config, hf_api=hub.api, fs=hub.fs)
    assert sync is not None
    key_file = tmp_path / "space" / KEY_FILE
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key = key_file.read_bytes().strip()
    assert len(key) >= 32
    assert not list((tmp_path / "space" / "sync").rglob(KEY_FILE))
    play(Arena(store), [3])
    sync.record_match(store.list_matches(limit=1)[0]["id"])
    sync.flush()
    sync.stop()
    assert hub.files and all(key not in data for data in hub.files.values())
    assert key.decode() not in caplog.text and key.decode() not in repr(sync.signer)

    # the next start on the same disk keeps the key, and its own lines verify (the first
    # process has stopped: a replica still running would hold the restore's lease)
    store.close()
    again = sync_for(Store(config.db), config, hf_api=hub.api, fs=hub.fs)
    assert again is not None and again.signer.key_id == sync.signer.key_id
    assert again.last_restore["refused"] == 0 and again.last_restore["matches_known"] == 1
    again.stop()

    # a new disk (a restarted Space) without the key refuses every line, saying why...
    caplog.clear()
    new_disk = ArenaConfig(db=str(tmp_path / "restarted" / "arena.db"), dataset_repo=REPO)
    lost = sync_for(Store(new_disk.db), new_disk, hf_api=hub.api, fs=hub.fs)
    assert lost.last_restore["other_key"] == 1 and lost.last_restore["matches"] == 0
    assert "signed with another key" in caplog.text and "set ARENA_RECORDS_KEY" in caplog.text
    lost.stop()
    # ...and with the key kept as the ARENA_RECORDS_KEY secret takes them all
    kept = ArenaConfig(db=str(tmp_path / "kept" / "arena.db"), dataset_repo=REPO, records_key=key.decode())
    assert key.decode() not in repr(kept) and key.decode() not in str(kept.model_dump())
    restored = sync_for(Store(kept.db), kept, hf_api=hub.api, fs=hub.fs)
    assert restored.last_restore["matches"] == 1 and restored.last_restore["refused"] == 0
    assert not (tmp_path / "kept" / KEY_FILE).exists()
    restored.stop()


def test_the_arena_refuses_to_start_with_an_unusable_key_in_one_line(tmp_path):
    repo = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(repo), "ARENA_DB": str(tmp_path / "arena.db"),
           "ARENA_DATASET_REPO": REPO, "ARENA_RECORDS_KEY": "too-short", "ARENA_DEMO_MATCHES": "0"}
    done = subprocess.run([sys.executable, "app.py"], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip() == "error: the records key must be at least 32 characters"


def test_an_unusable_key_stops_the_start_with_the_reason(hub, tmp_path):
    short = ArenaConfig(db=str(tmp_path / "a.db"), dataset_repo=REPO, records_key="too-short")
    with pytest.raises(RecordsKeyError, match="at least 32 characters"):
        sync_for(Store(short.db), short, hf_api=hub.api, fs=hub.fs)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / KEY_FILE).write_text("")
    empty = ArenaConfig(db=str(tmp_path / "b" / "arena.db"), dataset_repo=REPO)
    with pytest.raises(RecordsKeyError, match="no usable records key"):
        sync_for(Store(empty.db), empty, hf_api=hub.api, fs=hub.fs)
    # a key file others could read is taken back to 0600 before use
    loose = tmp_path / "c" / KEY_FILE
    loose.parent.mkdir()
    loose.write_text("k" * 40)
    loose.chmod(0o644)
    config = ArenaConfig(db=str(tmp_path / "c" / "arena.db"), dataset_repo=REPO)
    sync = sync_for(Store(config.db), config, hf_api=hub.api, fs=hub.fs)
    assert stat.S_IMODE(loose.stat().st_mode) == 0o600
    sync.stop()
    # a place no key file can be made (its folder would be a regular file)
    (tmp_path / "file").write_text("")
    with pytest.raises(RecordsKeyError, match="cannot keep the records key in .*set ARENA_RECORDS_KEY"):
        signer_for(None, str(tmp_path / "file" / "arena.db"))
