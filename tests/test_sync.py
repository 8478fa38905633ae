"""Syncing records to a Hugging Face dataset and restoring them at start, with a fake
Hub (HfApi + HfFileSystem over one dict of uploaded files): no network."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from fake_hub import REPO, FakeFs, FakeHfApi

import space_app.main as main_module
from space_app.config import ArenaConfig
from space_app.core import get_game
from space_app.leaderboard import board
from space_app.service import Arena, MatchPlan
from space_app.signed_records import RecordSigner
from space_app.standings import catch_up
from space_app.store import Store
from space_app.sync import RecordSync

PAIR = {"pair": {"civilian": "tea", "spy": "coffee"}}
SECRET = "s3cret"
# the arena's records key, kept across Space restarts as a secret (ARENA_RECORDS_KEY)
KEY = "k" * 24 + "-records-key-for-tests"


@pytest.fixture
def hub() -> SimpleNamespace:
    files: dict[str, bytes] = {}
    return SimpleNamespace(files=files, api=FakeHfApi(files), fs=FakeFs(files))


@pytest.fixture
def make_sync(hub: SimpleNamespace, tmp_path: Path) -> Iterator[Callable[..., RecordSync]]:
    made: list[RecordSync] = []

    def _make(store: Store, name: str) -> RecordSync:
        sync = RecordSync(store, REPO, signer=RecordSigner(KEY.encode()), folder=tmp_path / f"sync-{name}",
                          every_minutes=60, hf_api=hub.api, fs=hub.fs)
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


def snapshot(store: Store) -> dict[str, Any]:
    ids = sorted(m["id"] for m in store.list_matches(limit=1000))
    return {"matches": [store.get_match(i) for i in ids],
            "agents": [store.get_agent(a["id"], with_secret=True)
                       for a in store.list_agents(active_only=False)]}


def test_records_round_trip_through_the_dataset(hub, make_sync, tmp_path):
    store = Store(tmp_path / "a.db")
    arena = Arena(store)
    sync = make_sync(store, "a")
    assert hub.api.created == [{"repo_id": REPO, "private": True, "repo_type": "dataset", "exist_ok": True}]
    arena.on_finished.append(sync.record_match)
    ids = play(arena, [1, 2, 3])

    store.upsert_agent("alice/bot-1", name="bot", kind="remote", src="https://example.org/agent",
                       secret=SECRET, owner="alice", description="a test bot", games=["spy"],
                       info={"name": "bot", "games": ["spy"]})
    assert sync.record_agent("alice/bot-1")
    store.upsert_agent("bob/gone-1", name="gone", kind="remote", src="bob/gone", owner="bob")
    assert sync.record_agent("bob/gone-1")
    store.deactivate_agent("bob/gone-1")
    assert sync.record_agent("bob/gone-1")
    assert not sync.record_agent("nobody/none")
    sync.flush()

    assert sorted(k.split("/")[0] for k in hub.files) == ["agents", "matches"]
    match_lines = [json.loads(line) for k, v in hub.files.items() if k.startswith("matches/")
                   for line in v.decode().splitlines()]
    assert sorted(m["id"] for m in match_lines) == sorted(ids)
    assert all(b"s3cret" not in data for data in hub.files.values())
    agent_lines = [json.loads(line) for k, v in hub.files.items() if k.startswith("agents/")
                   for line in v.decode().splitlines()]
    assert [(a["id"], a["active"], a["has_secret"]) for a in agent_lines] == [
        ("alice/bot-1", True, True), ("bob/gone-1", True, False), ("bob/gone-1", False, False)]
    assert all("secret" not in a for a in agent_lines)

    # a new Space: empty disk, same dataset
    fresh = Store(tmp_path / "b.db")
    restorer = make_sync(fresh, "b")
    counts = restorer.restore()
    assert counts["matches"] == 3 and counts["matches_known"] == 0
    assert counts["agents"] == 2 and counts["agents_inactive"] == 1 and counts["refused"] == 0
    for match_id in ids:
        assert fresh.get_match(match_id) == store.get_match(match_id)
    # restored matches get their per-seat records and standings, the same as the original's
    assert catch_up(fresh) == 3
    assert board(fresh, "spy") == board(store, "spy")
    assert board(fresh, "spy")

    bot = fresh.get_agent("alice/bot-1", with_secret=True)
    assert bot["secret"] is None and not bot["has_secret"]
    assert bot["info"]["needs_secret"] is True
    original = store.get_agent("alice/bot-1")
    for key in ("name", "kind", "src", "owner", "description", "games", "created_at", "calls", "failures"):
        assert bot[key] == original[key], key
    assert bot["active"] == 1
    gone = fresh.get_agent("bob/gone-1")
    assert gone["active"] == 0 and "needs_secret" not in gone["info"]
    assert [a["id"] for a in fresh.list_agents()] == ["alice/bot-1"]

    # restoring again changes nothing
    before = snapshot(fresh)
    again = restorer.restore()
    assert again["matches"] == 0 and again["matches_known"] == 3 and again["agents"] == 2
    assert snapshot(fresh) == before

    # restoring into the store that wrote the records changes nothing either
    before_a = snapshot(store)
    assert make_sync(store, "a2").restore()["matches_known"] == 3
    assert snapshot(store) == before_a


def test_malformed_lines_are_refused_and_counted(hub, make_sync, tmp_path):
    store = Store(tmp_path / "a.db")
    arena = Arena(store)
    sync = make_sync(store, "a")
    arena.on_finished.append(sync.record_match)
    [match_id] = play(arena, [7])
    sync.flush()
    good = next(v for k, v in hub.files.items() if k.startswith("matches/"))
    hub.files["matches/2020-01-01-deadbeef.jsonl"] = (
        b"{not json\n" + b"[1, 2]\n" + b'{"id": "abc"}\n' + b"\n" + good)
    hub.files["agents/2020-01-01-deadbeef.jsonl"] = b'{"id": "x/y"}\n{"oops"\n'

    fresh = Store(tmp_path / "b.db")
    counts = make_sync(fresh, "b").restore()
    # 3 unreadable lines, 2 readable but unsigned; the good line after them still comes in
    assert counts["unreadable"] == 3 and counts["unsigned"] == 2 and counts["refused"] == 5
    assert counts["matches"] == 1 and counts["matches_known"] == 1
    assert fresh.get_match(match_id) == store.get_match(match_id)
    assert fresh.get_match("abc") is None and fresh.get_agent("x/y") is None


def test_unreachable_dataset_does_not_stop_the_start(make_sync, tmp_path):
    class BrokenFs:
        def glob(self, pattern: str, **kwargs: Any) -> list[str]:
            raise OSError("offline")

    sync = make_sync(Store(tmp_path / "a.db"), "a")
    sync._fs = BrokenFs()
    counts = sync.restore()
    assert counts["unreadable_files"] == 2 and counts["matches"] == 0


def test_a_failing_listener_never_breaks_a_match(tmp_path):
    store = Store(tmp_path / "a.db")
    arena = Arena(store)
    seen: list[str] = []

    def broken(match_id: str) -> None:
        raise RuntimeError("listener down")

    arena.on_finished.extend([broken, seen.append])
    [match_id] = play(arena, [3])
    assert seen == [match_id]
    assert store.get_match(match_id)["status"] == "finished"


def test_create_arena_restores_then_records(hub, make_sync, tmp_path, monkeypatch):
    # history left by an earlier Space
    earlier = Store(tmp_path / "earlier.db")
    arena = Arena(earlier)
    sync = make_sync(earlier, "earlier")
    arena.on_finished.append(sync.record_match)
    old_ids = play(arena, [11, 12])
    sync.flush()

    built: list[Any] = []
    real_build = main_module.build_app
    monkeypatch.setattr(main_module, "build_app", lambda api, **kw: built.append(api) or real_build(api, **kw))

    # demo matches asked for, but the restore comes first, so none are played
    config = ArenaConfig(db=str(tmp_path / "space" / "arena.db"), dataset_repo=REPO, demo_matches=2,
                         records_key=KEY)
    demo, kwargs = main_module.create_arena(config, hf_api=hub.api, fs=hub.fs)
    assert isinstance(kwargs, dict)
    api = built[-1]
    try:
        assert api.sync is not None and api.sync.record_match in api.arena.on_finished
        assert sorted(m["id"] for m in api.store.list_matches()) == sorted(old_ids)
        assert api.sync.scheduler.folder_path == (tmp_path / "space" / "sync").resolve()

        # a new match and a registry change reach the dataset
        n = get_game("spy").facts.default_players
        result = asyncio.run(api.run_match({"game": "spy", "seats": ["house:random"] * n,
                                            "seed": 5, "settings": PAIR}))
        api.store.upsert_agent("alice/bot-2", name="bot2", kind="remote", src="alice/bot2",
                               secret=SECRET, owner="alice")
        api.remove_agent("alice/bot-2", "alice")
        api.sync.flush()
    finally:
        api.sync.stop()
    uploaded = [json.loads(line) for k, v in hub.files.items() for line in v.decode().splitlines()]
    assert result["match_id"] in [r["id"] for r in uploaded]
    assert {"id": "alice/bot-2", "active": False, "has_secret": True}.items() <= \
        next(r for r in uploaded if r["id"] == "alice/bot-2").items()
    assert all(b"s3cret" not in data for data in hub.files.values())

    # without a dataset repo there is no sync
    demo2, _ = main_module.create_arena(ArenaConfig(db=str(tmp_path / "plain.db"), demo_matches=0))
    assert built[-1].sync is None


def test_create_arena_starts_when_the_hub_is_unreachable(tmp_path, monkeypatch):
    class DownApi(FakeHfApi):
        def create_repo(self, repo_id: str, **kwargs: Any) -> SimpleNamespace:
            raise OSError("no network")

    built: list[Any] = []
    real_build = main_module.build_app
    monkeypatch.setattr(main_module, "build_app", lambda api, **kw: built.append(api) or real_build(api, **kw))
    config = ArenaConfig(db=str(tmp_path / "arena.db"), dataset_repo=REPO, demo_matches=0)
    main_module.create_arena(config, hf_api=DownApi({}), fs=FakeFs({}))
    assert built[-1].sync is None


def test_a_restore_never_pairs_a_stored_secret_with_another_url(hub, make_sync, tmp_path):
    """A line that points an agent elsewhere is refused unless the arena signed it; and when
    it did (an arena sharing the key recorded the move), the secret kept on this disk for the
    old URL is not sent to the new one."""
    store = Store(tmp_path / "a.db")
    store.upsert_agent("alice/bot-1", name="bot", kind="remote", src="https://alice.example/agent",
                       secret=SECRET, owner="alice", games=["spy"], info={"name": "bot"})
    sync = make_sync(store, "a")
    assert sync.record_agent("alice/bot-1")
    sync.flush()
    [key] = [k for k in hub.files if k.startswith("agents/")]
    signed = hub.files[key]
    # whoever can write to the dataset points the agent elsewhere: the line no longer verifies
    hub.files[key] = signed.replace(b"https://alice.example/agent", b"https://attacker.example/")
    counts = make_sync(store, "b").restore()
    assert counts["bad_signature"] == 1 and counts["agents"] == 0
    kept = store.get_agent("alice/bot-1", with_secret=True)
    assert kept["src"] == "https://alice.example/agent" and kept["secret"] == SECRET

    moved = {k: v for k, v in json.loads(signed).items() if k != "_sig"}
    moved["src"] = "https://elsewhere.example/agent"
    hub.files[key] = (RecordSigner(KEY.encode()).line("agents", moved) + "\n").encode()
    assert make_sync(store, "c").restore()["agents"] == 1
    moved_row = store.get_agent("alice/bot-1", with_secret=True)
    assert moved_row["src"] == "https://elsewhere.example/agent"
    assert moved_row["secret"] is None and moved_row["info"]["needs_secret"] is True
