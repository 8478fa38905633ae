"""Bounded state and inert output: the agent cache, which process owns a running match,
secrets that belong to one URL, text from strangers in pages and terminals, and the
arena starting in Space mode exactly as a Space starts it."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from hostile_servers import ESCAPES, http_server
from sqlalchemy import delete, update

from sdk import RemoteAgent
from space_app.agents.catalogue import PLAIN_URL_WAKE_SECONDS, AgentCatalogue
from space_app.core import get_game
from space_app.safe_text import clean_name, markdown_text, terminal_text
from space_app.store import Store, match_leases, matches, this_process
from space_app.ui.replay import result_markdown, transcript_html

REPO = Path(__file__).resolve().parents[1]


# -- the agent cache --------------------------------------------------------------------------
def test_the_agent_cache_is_bounded_and_closes_what_it_evicts():
    catalogue = AgentCatalogue(max_cached=16)
    first = catalogue.resolve("remote:http://127.0.0.1:9/a0/")
    first._sync_client()  # an open connection pool, as after a call
    for i in range(1, 200):
        catalogue.resolve(f"remote:http://127.0.0.1:9/a{i}/")
    catalogue.resolve("house:random")
    assert catalogue.cached() == 16 + 1  # the LRU, plus the house agent that always stays
    assert first._client is None, "an evicted agent's connections were left open"
    # the most recently used ones are the ones kept
    assert catalogue.resolve("remote:http://127.0.0.1:9/a199/") is catalogue.resolve("remote:http://127.0.0.1:9/a199/")


def test_a_plain_url_fails_fast_where_a_space_may_be_waking():
    catalogue = AgentCatalogue()
    plain = catalogue.resolve("remote:http://127.0.0.1:9/")
    space = catalogue.resolve("remote:someone/sleepy-agent")
    assert isinstance(plain, RemoteAgent) and plain.wake_timeout == PLAIN_URL_WAKE_SECONDS
    assert isinstance(space, RemoteAgent) and space.wake_timeout > PLAIN_URL_WAKE_SECONDS


# -- which process owns a running match ---------------------------------------------------------
def test_a_restart_with_the_same_host_and_pid_is_another_process(tmp_path):
    """A container restarted with the same hostname and PID: its old matches are not 'ours'.
    A match without a lease is nobody's, whatever process it names (an older version's)."""
    db = tmp_path / "p.db"
    store = Store(db)
    seats = [{"seat": "P1", "agent_id": "a", "agent_name": "a"}]
    store.create_match("ours", "spy", 1, seats)
    store.create_match("before-restart", "spy", 2, seats)
    host, pid, _ = this_process().split(":")
    assert (host, pid) == (socket.gethostname(), str(os.getpid()))
    store.create_match("old-format", "spy", 3, seats)
    with store.engine.begin() as conn:
        conn.execute(update(matches).where(matches.c.id == "before-restart")
                     .values(process=f"{host}:{pid}:an-earlier-start"))
        conn.execute(update(matches).where(matches.c.id == "old-format").values(process=f"{host}:{pid}"))
        conn.execute(delete(match_leases).where(match_leases.c.key == "old-format"))  # as stored before leases
    again = Store(db)  # while `store` plays "ours" and renews its lease
    assert sorted(again.aborted_on_open) == ["before-restart", "old-format"]
    assert again.get_match("ours")["status"] == "running"
    store.close()
    again.close()


# -- secrets belong to one URL -------------------------------------------------------------------
def test_a_stored_secret_never_follows_its_agent_to_another_url(tmp_path):
    store = Store(tmp_path / "s.db")
    store.upsert_agent("me/agent", name="agent", kind="remote", src="https://a.example/", secret="s3")
    store.upsert_agent("me/agent", name="agent", kind="remote", src="https://a.example/")  # same URL
    assert store.get_agent("me/agent", with_secret=True)["secret"] == "s3"
    store.upsert_agent("me/agent", name="agent", kind="remote", src="https://b.example/")  # moved
    assert store.get_agent("me/agent", with_secret=True)["secret"] is None


# -- text from strangers ----------------------------------------------------------------------------
HOSTILE = ['<img src="https://evil.example/x.png">', "[click me](https://evil.example/)",
           "![](https://evil.example/pixel.gif)", "**bold** | broken | table", "<script>alert(1)</script>",
           "visit https://evil.example/now or www.evil.example", "write to me@evil.example"]


def test_markdown_text_is_literal():
    for text in HOSTILE:
        out = markdown_text(text)
        assert "<img" not in out and "<script" not in out
        assert "](" not in out and "|" not in out.replace("\\|", "")
        assert not re.search(r"https?://|www\.|\w@", out)  # nothing a renderer would auto-link


def test_word_pairs_and_names_in_a_replay_are_inert():
    words = {f"P{i}": HOSTILE[i % len(HOSTILE)] for i in range(1, 5)}
    match = {"id": "abc123", "seed": 1, "status": "finished",
             "seats": [{"seat": s, "agent_name": "\u202eevil" + w} for s, w in words.items()],
             "result": {"winner": "spy", "roles": {s: "civilian" for s in words},
                        "words": words, "scores": {s: 1.0 for s in words}}}
    page = result_markdown(match)
    assert "<img" not in page and "<script" not in page and "](https" not in page
    assert len(page.splitlines()) == 2 + 2 + len(words), "a word broke the table"
    events = [{"seq": 0, "kind": "statement", "actor": "P1", "round": 1, "text": HOSTILE[0] + HOSTILE[4],
               "visible_to": None, "data": {}}]
    html_page = transcript_html(get_game("spy").rules.events.parse_all(events), {"P1": HOSTILE[4]})
    assert "<img" not in html_page and "<script" not in html_page


def test_names_lose_control_and_bidi_characters():
    assert clean_name("\u202eabc\u200b\x1b[31m def\n ghi\x00") == "abc[31m def ghi"
    assert clean_name("x" * 100, 60) == "x" * 60


def test_terminal_text_strips_escape_sequences():
    raw = f"{ESCAPES}red\x1b[0m text\x1b(B \u202eflipped\ttab\nnext"
    assert terminal_text(raw) == "red text flipped\ttab\nnext"


def test_the_cli_prints_no_escape_codes_from_agents(tmp_path):
    with http_server() as hostile:
        seats = [f"remote:{hostile.url}named/"] + ["house:heuristic", "house:random"] * 2 + ["house:heuristic"]
        out = subprocess.run([sys.executable, "-m", "space_app", "--db", str(tmp_path / "cli.db"), "match",
                              "spy", "--seats", *seats, "--seed", "3"],
                             cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "often found in a kitchen" in out.stdout  # the agent's statements are printed ...
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout  # ... without their escapes


# -- Space mode -------------------------------------------------------------------------------------
@pytest.mark.parametrize("real_space", [False, True])
def test_the_arena_starts_in_space_mode(tmp_path, real_space):
    """`python app.py` with SPACE_ID set (and, as on a real Space, SYSTEM=spaces and the
    OAuth variables the Space provides) serves its page."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "SPACE_ID": "someone/deduction-arena", "ARENA_DB": str(tmp_path / "space.db"),
           "ARENA_DEMO_MATCHES": "0", "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port),
           "HF_HUB_OFFLINE": "1"}
    if real_space:
        env.update(SYSTEM="spaces", OAUTH_CLIENT_ID="client", OAUTH_CLIENT_SECRET="secret",
                   OAUTH_SCOPES="openid profile", OPENID_PROVIDER_URL="http://127.0.0.1:9")
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=REPO, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        status = None
        for _ in range(240):
            if proc.poll() is not None:
                break
            try:
                status = httpx.get(f"http://127.0.0.1:{port}/", timeout=2).status_code
                break
            except httpx.HTTPError:
                time.sleep(0.5)
        assert status == 200, proc.stdout.read() if proc.poll() is not None else "no answer"
        if real_space:  # Sign-in is offered (the route exists; it would go on to the Hub)
            login = httpx.get(f"http://127.0.0.1:{port}/login/huggingface", timeout=10)
            assert login.status_code != 404
    finally:
        proc.terminate()
        proc.wait(30)


def test_credentials_stored_in_an_old_agent_url_are_never_listed(tmp_path):
    from space_app.api import ArenaAPI
    from space_app.config import ArenaConfig

    api = ArenaAPI(ArenaConfig(db=str(tmp_path / "l.db"), demo_matches=0))
    api.store.upsert_agent("old/agent", name="old", kind="remote", src="https://bob:hunter2@agent.example/x")
    listed = {a["id"]: a for a in api.list_agents()}["old/agent"]
    assert listed["src"] == "https://***@agent.example/x" and "hunter2" not in repr(api.list_agents())
    # and it cannot be seated: the egress policy refuses credentials in a URL
    with pytest.raises(Exception, match="credentials"):
        api.plan({"game": "spy", "seats": ["old/agent"]})
