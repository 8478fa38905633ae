"""Memory under public traffic: the real arena on loopback, read anonymously through the plain
REST route with a new session per call (as an attacker or a new `gradio_client.Client` per call
does), keeps no session for those calls and at most `ui_sessions` page sessions."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from typing import Any

import httpx
from browser_support import running_arena

from space_app.config import ArenaConfig
from space_app.ui.sessions import ArenaSessions, LeanSessionState

READS = [("list_agents", []), ("list_matches", ["", "", "", 20]),
         ("leaderboard", ["spy", 0, "all", "", False, False, ""])]


def rest_call(http: httpx.Client, url: str, name: str, data: list[Any]) -> Any:
    """POST /gradio_api/call/<name>, then read the result: no session hash is sent, so Gradio
    makes a new session for the call."""
    event = http.post(f"{url}gradio_api/call/{name}", json={"data": data})
    event.raise_for_status()
    stream = http.get(f"{url}gradio_api/call/{name}/{event.json()['event_id']}").text
    assert "event: complete" in stream, stream[:300]
    return json.loads(stream.split("event: complete\ndata: ", 1)[1].split("\n", 1)[0])[0]


def open_page(http: httpx.Client, url: str, load_fn: int) -> str:
    """What a browser does first: the page's load event under a session of its own."""
    session = uuid.uuid4().hex[:11]
    joined = http.post(f"{url}gradio_api/queue/join", json={"data": [], "fn_index": load_fn, "session_hash": session,
                                                              "event_data": None, "trigger_id": None})
    joined.raise_for_status()
    with http.stream("GET", f"{url}gradio_api/queue/data", params={"session_hash": session}) as stream:
        for line in stream.iter_lines():
            if '"process_completed"' in line:
                assert json.loads(line.removeprefix("data: "))["success"] is True, line[:300]
                break
    return session


def test_anonymous_reads_keep_no_session_and_pages_stay_within_capacity(tmp_path):
    config = ArenaConfig(db=str(tmp_path / "arena.db"), demo_matches=1, allow_private_urls=True, ui_sessions=12)
    with running_arena(config) as (demo, url), httpx.Client(timeout=60) as http:
        holder = demo.state_holder
        assert isinstance(holder, ArenaSessions) and holder.capacity == 12
        match_id = rest_call(http, url, "list_matches", ["", "", "", 1])[0]["id"]
        reads = [*READS, ("get_match", [match_id, ""])]
        for n in range(300):
            name, data = reads[n % len(reads)]
            assert isinstance(rest_call(http, url, name, data), (list, dict))
        assert len(holder.session_data) == 0  # three hundred calls, three hundred sessions, none kept

        load_fn = next(i for i, fn in demo.fns.items() if fn.name == "on_load")
        pages = [open_page(http, url, load_fn) for _ in range(20)]
        assert len(holder.session_data) == 12  # the capacity: the oldest pages went first
        assert list(holder.session_data) == pages[-12:]
        assert holder.pages == set(pages[-12:])

        for n in range(60):  # more anonymous traffic evicts no page
            name, data = reads[n % len(reads)]
            rest_call(http, url, name, data)
        assert list(holder.session_data) == pages[-12:]


def test_a_session_no_page_opened_goes_before_any_page(tmp_path):
    config = ArenaConfig(db=str(tmp_path / "arena.db"), demo_matches=0, allow_private_urls=True, ui_sessions=10)
    with running_arena(config) as (demo, _url):
        holder = demo.state_holder
        for n in range(10):
            holder[f"page{n}"]
            holder.page(f"page{n}")
        holder["listener"]  # a session that ran a listener but never loaded the page
        assert len(holder.session_data) == 11  # one over while its call runs
        holder["page0"]  # the oldest page, used again
        assert "listener" not in holder.session_data and len(holder.session_data) == 10
        holder["call"]  # an API call's session: over by one, no page lost
        assert len(holder.session_data) == 11 and all(f"page{n}" in holder.session_data for n in range(10))
        holder.release("call")
        holder["new"]
        holder.page("new")  # a new page: the least recently used page goes
        assert len(holder.session_data) == 10 and "page1" not in holder.session_data
        assert "page0" in holder.session_data
        holder.release("page0")  # an API call from a page keeps the page's session
        assert "page0" in holder.session_data


def test_idle_sessions_are_dropped_and_their_state_callbacks_run(tmp_path):
    config = ArenaConfig(db=str(tmp_path / "arena.db"), demo_matches=0, allow_private_urls=True,
                         ui_session_idle_seconds=600)
    with running_arena(config) as (demo, _url):
        holder = demo.state_holder
        holder["old"]
        holder["fresh"]
        holder.time_last_used["old"] = dt.datetime.now() - dt.timedelta(seconds=601)
        holder.delete_all_expired_state()
        assert list(holder.session_data) == ["fresh"]


def test_a_lean_session_builds_each_config_when_first_read(tmp_path):
    config = ArenaConfig(db=str(tmp_path / "arena.db"), demo_matches=0, allow_private_urls=True)
    with running_arena(config) as (demo, _url):
        from gradio.state_holder import SessionState

        lean, full = LeanSessionState(demo), SessionState(demo)
        assert dict.__len__(lean.config_values) == 0  # nothing built yet
        some = next(iter(full.config_values))
        assert some in lean.config_values and lean.config_values[some] == full.config_values[some]
        assert dict.__len__(lean.config_values) == 1
        assert dict(lean.config_values.items()) == full.config_values  # the page's deep link reads them all
        assert list(lean.components) == list(full.components)
