"""Gradio's queue under public traffic, on the real arena on loopback: its dashboard keeps few
events and summarises them now and then (not a pandas rebuild over 10,000 after every event),
and the set each plain API call leaves behind in the queue is pruned once the call is answered."""

from __future__ import annotations

import os
import time

import httpx
from browser_support import running_arena
from test_sessions import READS, rest_call

from space_app.config import ArenaConfig
from space_app.ui import queue_upkeep
from space_app.ui.queue_upkeep import ANALYTICS_EVENTS, ANALYTICS_EVERY, prune_sessions


def test_the_dashboard_keeps_few_events_and_answered_calls_leave_nothing_behind(tmp_path, monkeypatch):
    for name in ("GRADIO_ANALYTICS_MAX_EVENTS", "GRADIO_ANALYTICS_CACHE_FREQUENCY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(queue_upkeep, "PRUNE_SECONDS", 0.2)
    config = ArenaConfig(db=str(tmp_path / "arena.db"), demo_matches=0, allow_private_urls=True)
    with running_arena(config) as (demo, url), httpx.Client(timeout=60) as http:
        queue = demo._queue
        assert queue.ANALYTICS_MAX_EVENTS == ANALYTICS_EVENTS and queue.ANAYLTICS_CACHE_FREQUENCY == ANALYTICS_EVERY
        for n in range(40):
            name, data = READS[n % len(READS)]
            rest_call(http, url, name, data)
        assert len(queue.event_analytics) >= 40  # the dashboard still sees the calls
        deadline = time.monotonic() + 60
        while queue.pending_event_ids_session and time.monotonic() < deadline:
            time.sleep(0.1)
        assert queue.pending_event_ids_session == {}  # forty calls, forty sessions: none left


def test_an_operators_own_dashboard_settings_are_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADIO_ANALYTICS_MAX_EVENTS", "3000")
    monkeypatch.setenv("GRADIO_ANALYTICS_CACHE_FREQUENCY", "7")
    config = ArenaConfig(db=str(tmp_path / "arena.db"), demo_matches=0)
    with running_arena(config) as (demo, _url):
        assert demo._queue.ANALYTICS_MAX_EVENTS == 3000 and demo._queue.ANAYLTICS_CACHE_FREQUENCY == 7
    assert os.environ["GRADIO_ANALYTICS_MAX_EVENTS"] == "3000"


def test_pruning_keeps_every_session_still_waiting_for_an_answer():
    class Queue:
        pending_event_ids_session = {"answered": set(), "waiting": {"e1"}, "also-answered": set()}

    assert prune_sessions(Queue) == 2
    assert Queue.pending_event_ids_session == {"waiting": {"e1"}}
