"""Every call inspectable: what an LLMAgent's model was sent and said is kept in its call record
(bounded), each call opens to the observation its seat was sent (rebuilt by replaying the
match), who may open which calls, and the run log (`export --what log`) written and read back.
Real stores (SQLite files), real matches, a real served agent on loopback."""

from __future__ import annotations

import asyncio
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from sdk import LLMAgent, serve
from sdk.callers.scripted import scripted_caller
from space_app.api import while_running
from space_app.calls import LIVE_NOTE, call_views, observations, visible_calls
from space_app.cli import main as cli_main
from space_app.core.events import Call
from space_app.model_calls import MAX_CALLS, MAX_CONTENT, bounded_model_calls
from space_app.run_log import FORMAT_VERSION, LINE, CallLine, EventLine, Header, MatchLine, RunLogError, read_log
from space_app.run_log import End as EndLine
from space_app.runner import SeatAgent
from space_app.service import Arena, MatchPlan
from space_app.store import Store
from space_app.ui.calls_view import calls_html
from space_app.ui.watch import render_step, typed_events
from space_app.verify import verify_match

SECRET = "s3cret-agent-key-7f1e"  # an agent's shared secret: never in a call view or a log
SAID = "It glows when it is dark. Final answer: P2"


def llm_seat() -> SeatAgent:
    return SeatAgent(LLMAgent(scripted_caller([SAID]), name="scripted-llm"), "llm:scripted", "scripted-llm")


def play(store: Store, game: str, tag: str, seed: int, extra: dict[str, SeatAgent] | None = None,
         seats: list[str] | None = None) -> str:
    plan = MatchPlan(game=game, seats=seats or ["house:heuristic"] * 5, seed=seed, tag=tag)
    out = asyncio.run(Arena(store).run(plan, extra_agents=extra))
    assert out.status == "finished", out.error
    return out.match_id


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> tuple[Store, str, str]:
    """A store with two tagged matches: Who is the Spy with an LLMAgent in P1, and Avalon."""
    store = Store(str(tmp_path_factory.mktemp("calls") / "arena.db"))
    spy = play(store, "spy", "run-a", 3, {"P1": llm_seat()})
    avalon = play(store, "avalon", "run-a", 5, seats=["house:avalon-rules"] * 5)
    play(store, "spy", "other-run", 4)
    return store, spy, avalon


# -- what the call record keeps ---------------------------------------------------------------
def test_an_llm_agents_messages_and_raw_reply_are_kept_in_its_call_records(played):
    store, spy, _ = played
    match = store.get_match(spy)
    calls = [e for e in typed_events(match) if isinstance(e, Call) and e.actor == "P1"]
    assert calls, "P1 was asked at least once"
    for call in calls:
        [model] = call.model_calls  # one model call a turn: the reply names a valid option
        assert [m["role"] for m in model["messages"]] == ["system", "user"]
        assert "Who is the Spy" in model["messages"][0]["content"]
        assert model["reply"] == SAID and model["prompt_tokens"] > 0
    others = [e for e in typed_events(match) if isinstance(e, Call) and e.actor != "P1"]
    assert others and all(c.model_calls is None for c in others)  # house agents call no model


def test_each_call_opens_to_the_observation_its_seat_was_sent(played):
    store, spy, _ = played
    match = store.get_match(spy)
    views, note = call_views(match, typed_events(match), "P1")
    assert note == "" and views
    first = views[0]
    assert first.observation is not None and first.observation["you"] == "P1"
    assert first.observation["private"]["facts"]["word"]  # P1's own word: its own call shows it
    user = first.model_calls[0].messages[1].content
    # the observation rebuilt by the replay is the one the model's prompt was built from
    assert first.observation["instruction"] in user and first.observation["private"]["text"] in user
    assert first.reply == SAID and first.latency_ms is not None and first.prompt_tokens
    vote = next(v for v in views if v.verb == "vote")
    assert vote.read == "P2" or vote.refused  # what the arena read, or why it refused it


def test_a_refused_reply_says_why(tmp_path):
    store = Store(str(tmp_path / "s.db"))
    mute = SeatAgent(LLMAgent(scripted_caller(["I really cannot say."]), name="mute"), "llm:mute", "mute")
    match_id = play(store, "spy", "t", 3, {"P1": mute})
    match = store.get_match(match_id)
    views, _ = call_views(match, typed_events(match), "P1")
    refused = [v for v in views if v.verb == "vote"]
    assert refused and all(v.status == "unparseable" and v.refused for v in refused)
    assert all(len(v.model_calls) == 2 for v in refused)  # the reply and the corrective re-ask
    html = calls_html(refused[:1], "en")
    assert "Refused:" in html and "I really cannot say." in html


def test_model_calls_are_bounded_and_checked():
    huge = "x" * (MAX_CONTENT * 3)
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 50_000}}
    kept, note = bounded_model_calls([
        {"messages": [{"role": "user", "content": [{"type": "text", "text": "look"}, image]}], "reply": huge},
        {"messages": "not a list"},
        *({"messages": [], "reply": "r"} for _ in range(MAX_CALLS + 2)),
    ])
    assert kept is not None and len(kept) == MAX_CALLS - 1  # the malformed one is dropped, the rest cut
    assert kept[0]["messages"][0]["content"].startswith("look\n[image: ")
    assert "AAAA" not in json.dumps(kept)  # an inlined picture is described, not stored
    assert len(kept[0]["reply"]) < MAX_CONTENT + 100 and "[cut:" in kept[0]["reply"]
    assert "cut" in note and "not kept" in note
    assert bounded_model_calls("junk") == (None, "model calls not kept: reported as str, not a list")
    assert bounded_model_calls(None) == (None, "")


# -- who sees what ----------------------------------------------------------------------------
def test_spectators_see_every_call_only_after_the_end_and_a_seat_only_its_own(played):
    store, spy, _ = played
    match = store.get_match(spy)
    events = typed_events(match)
    everyone = {c.actor for c in visible_calls(match, events, None)[0]}
    assert everyone == {s["seat"] for s in match["seats"]}  # finished: spectators see all
    mine, _ = visible_calls(match, events, "P2")
    assert mine and {c.actor for c in mine} == {"P2"}

    live = {**match, "status": "running"}  # the same record while it runs
    assert visible_calls(live, events, None) == ([], LIVE_NOTE)
    assert {c.actor for c in visible_calls(live, events, "P1")[0]} == {"P1"}  # its own, during the match
    # the replay page of a running match, as the arena serves it: no call, no call contents
    shown = while_running(json.loads(json.dumps(live)))
    assert not [e for e in shown["events"] if e["kind"] == "call"]
    page = " ".join(str(part) for part in render_step(shown, "", 1))
    assert SAID not in page and "Raw reply" not in page
    assert "shown once the match has ended" in render_step(live, "", 2)[4]


def test_a_seat_view_of_a_step_shows_its_own_calls_and_no_other_seats(played):
    store, spy, _ = played
    match = store.get_match(spy)
    summaries = []
    for step in range(1, 40):
        html = render_step(match, "P2", step)[4]
        summaries += re.findall(r"<summary>([^<]*)</summary>", html.replace("<summary>What", "<x>"))
        assert "Model call" not in html  # P1's model calls are P1's (P1's public statement P2 heard is not)
    assert summaries and all(s.startswith("P2 ") for s in summaries)
    html = "".join(render_step(match, "P1", step)[4] for step in range(1, 40))
    assert SAID in html and "Model call 1: messages sent" in html


def test_an_agents_secret_appears_in_no_call_view_and_no_run_log(tmp_path, launch):
    url = launch(serve(LLMAgent(scripted_caller([SAID]), name="served"), secret=SECRET))
    store = Store(str(tmp_path / "s.db"))
    store.upsert_agent("me/served", name="served", kind="remote", src=url, secret=SECRET)
    match_id = play(store, "spy", "keyed", 3, seats=["me/served"] + ["house:heuristic"] * 4)
    match = store.get_match(match_id)
    views, _ = call_views(match, typed_events(match), None)
    assert any(v.seat == "P1" and v.reply == SAID for v in views)  # the served agent did play
    shown = json.dumps([v.model_dump() for v in views]) + calls_html(views, "en")
    out = io.StringIO()
    cli = tmp_path / "log.jsonl"
    assert cli_main(["--db", str(tmp_path / "s.db"), "export", "--what", "log", "--tag", "keyed",
                     "--out", str(cli)]) == 0
    out.write(cli.read_text(encoding="utf-8"))
    for text in (shown, out.getvalue(), json.dumps(match)):
        assert SECRET not in text and url not in text


# -- the run log ------------------------------------------------------------------------------
def test_a_run_log_holds_every_match_event_and_call_and_reads_back(played, tmp_path):
    store, spy, avalon = played
    path = tmp_path / "run.jsonl"
    assert cli_main(["--db", store_path(store), "export",
                     "--what", "log", "--tag", "run-a", "--out", str(path)]) == 0
    lines = path.read_text(encoding="utf-8").splitlines()
    parsed = [LINE.validate_json(line) for line in lines]  # every line fits one of the models
    assert isinstance(parsed[0], Header) and isinstance(parsed[-1], EndLine)
    header = parsed[0]
    assert header.format_version == FORMAT_VERSION and header.package_version and header.commit
    assert header.rules_versions.keys() == {"spy", "avalon"}
    assert {p.id for p in parsed if isinstance(p, MatchLine)} == {spy, avalon}  # not the other tag's

    log = read_log(lines)
    for match_id in (spy, avalon):
        stored = store.get_match(match_id)
        back = log.match(match_id)
        for key in ("game", "seed", "status", "tag", "rules", "settings", "seats", "result"):
            assert back[key] == stored[key], key
        assert back["events"] == stored["events"]  # every event and call record, as stored
        assert "owner" not in back
        assert verify_match(back).verdict == "identical"  # anyone holding the file can check it
    calls = [p for p in parsed if isinstance(p, CallLine)]
    events = [p for p in parsed if type(p) is EventLine]
    assert len(calls) == parsed[-1].calls and len(events) == parsed[-1].events
    assert all(e.kind != "call" for e in events)


def store_path(store: Store) -> str:
    return str(store.engine.url.database)


def test_one_match_by_id_and_a_clear_error_without_a_choice(played, tmp_path):
    store, spy, _ = played
    db = store_path(store)
    path = tmp_path / "one.jsonl"
    assert cli_main(["--db", db, "export", "--what", "log", "--match", spy, "--out", str(path)]) == 0
    log = read_log(path.read_text(encoding="utf-8").splitlines())
    assert [m["id"] for m in log.matches] == [spy] and log.header.filter["match"] == spy
    with pytest.raises(SystemExit, match="--tag TAG or --match ID"):
        cli_main(["--db", db, "export", "--what", "log"])
    with pytest.raises(SystemExit, match="no match 'nope'"):
        cli_main(["--db", db, "export", "--what", "log", "--match", "nope"])


def lines_of_log(store: Store, tmp_path: Path, tag: str = "run-a") -> list[str]:
    path = tmp_path / "x.jsonl"
    assert cli_main(["--db", store_path(store), "export", "--what", "log", "--tag", tag, "--out", str(path)]) == 0
    return path.read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize(("damage", "message"), [
    (lambda ls: ls[:-1], "without its end line"),
    (lambda ls: ls[:3] + ls[4:], "the end line counts"),
    (lambda ls: ls[1:], "starts with its header line"),
    (lambda ls: [ls[0].replace('"format_version":1', '"format_version":99'), *ls[1:]], "newer than this arena"),
    (lambda ls: [ls[0], ls[2], ls[1], *ls[3:]], "before that match's line"),
    (lambda ls: [*ls[:2], "{not json", *ls[2:]], "line 3: not a run log line"),
    (lambda ls: [*ls, ls[-1]], "after the end line"),
    (lambda ls: [], "an empty file"),
])
def test_a_damaged_run_log_is_refused_with_the_reason(played, tmp_path, damage: Any, message: str):
    store, _, _ = played
    with pytest.raises(RunLogError, match=message):
        read_log(damage(lines_of_log(store, tmp_path)))


def test_a_call_record_disguised_as_an_event_line_is_refused(played, tmp_path):
    store, _, _ = played
    lines = lines_of_log(store, tmp_path)
    at = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "call")
    lines[at] = lines[at].replace('"type":"call"', '"type":"event"', 1)
    with pytest.raises(RunLogError, match="must be a line of type 'call'"):
        read_log(lines)


def test_a_match_read_from_a_run_log_replays_with_its_calls(played, tmp_path):
    store, spy, _ = played
    log = read_log(lines_of_log(store, tmp_path))
    match = log.match(spy)
    views, _ = call_views(match, typed_events(match), None)
    assert any(v.seat == "P1" and v.model_calls and v.observation for v in views)
    html = "".join(render_step(match, "", step)[4] for step in range(1, 12))
    assert SAID in html


def test_a_record_with_the_same_id_and_other_contents_gets_its_own_observations(played):
    """A run log opened in one page may carry a record under a stored match's id with another
    seed: its observations are its own, and the stored match's stay the store's."""
    store, spy, _ = played
    match = store.get_match(spy)
    real, _ = observations(match)
    forged = {**json.loads(json.dumps(match)), "seed": match["seed"] + 1}
    other, note = observations(forged)
    assert observations(match)[0] == real
    assert other != real or note  # another deal: it differs from the record at once, or its words do
