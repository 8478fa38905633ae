"""Every call inspectable, in a real browser: a replay turn opens to its call (the observation the
seat was sent, the messages its model was given, the raw reply), and a run log exported from
another store opens in the Replay tab without that store."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import chromium_browser, running_arena, screenshot

from sdk import LLMAgent
from sdk.callers.scripted import scripted_caller
from space_app.config import ArenaConfig
from space_app.core.events import Call
from space_app.run_log import stored_matches, write_log
from space_app.runner import SeatAgent
from space_app.service import Arena, MatchPlan
from space_app.store import Store
from space_app.ui.replay import visible
from space_app.ui.watch import typed_events

pytestmark = pytest.mark.browser

WAIT = 60_000  # ms; 2 loaded cores
HERE = "It shines on the desk. Final answer: P3"  # P1's model in the arena's own store
ELSEWHERE = "It hums in the corner. Final answer: P4"  # P1's model in another store, seen via a run log


def played(db: Path, said: str, seed: int) -> dict[str, Any]:
    """A finished Who is the Spy match with an LLMAgent on a scripted model in P1."""
    store = Store(str(db))
    agent = SeatAgent(LLMAgent(scripted_caller([said]), name="scripted-llm"), "llm:scripted", "scripted-llm")
    plan = MatchPlan(game="spy", seats=["house:heuristic"] * 5, seed=seed, tag="calls")
    out = asyncio.run(Arena(store).run(plan, extra_agents={"P1": agent}))
    assert out.status == "finished", out.error
    match = store.get_match(out.match_id)
    store.close()
    return match


def first_call_step(match: dict[str, Any], seat: str) -> int:
    """The 1-based spectator step whose event follows `seat`'s first call."""
    every = typed_events(match)
    call = next(e for e in every if isinstance(e, Call) and e.actor == seat)
    shown = visible(every, None)
    return next(i for i, e in enumerate(shown) if (e.seq or 0) > (call.seq or 0)) + 1


@pytest.fixture(scope="module")
def arena(tmp_path_factory) -> Iterator[tuple[str, dict[str, Any], dict[str, Any], Path]]:
    root = tmp_path_factory.mktemp("calls-ui")
    here = played(root / "arena.db", HERE, 3)
    elsewhere = played(root / "other.db", ELSEWHERE, 5)
    log = root / "other-run.jsonl"
    other = Store(str(root / "other.db"))
    with log.open("w", encoding="utf-8") as out:
        write_log(out, stored_matches(other, tag="calls"), {"tag": "calls", "match": None, "game": None})
    other.close()
    store = Store(str(root / "arena.db"))  # a registered agent: seats offer it by name and owner
    store.upsert_agent("alice/bot", name="Bot", kind="remote", src="http://127.0.0.1:9/", owner="alice")
    store.close()
    with running_arena(ArenaConfig(db=str(root / "arena.db"), demo_matches=0, allow_private_urls=True)) as (_, url):
        yield url, here, elsewhere, log


@pytest.fixture
def page(arena) -> Iterator[Any]:
    from playwright.sync_api import expect

    expect.set_options(timeout=WAIT)
    with chromium_browser() as browser:
        context = browser.new_context(viewport={"width": 1366, "height": 900})
        context.set_default_timeout(WAIT)
        page = context.new_page()
        page.errors = []  # type: ignore[attr-defined]
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        yield page
        context.close()


def go_to_step(page: Any, step: int) -> None:
    from playwright.sync_api import expect

    for k in range(2, step + 1):
        page.locator("#step-forward").click()
        expect(page.locator("#replay-position")).to_contain_text(re.compile(rf"Step\s+{k}\s*/"))


def expect_call_opened(page: Any, said: str) -> None:
    """The step's call panel: P1's call opened, its messages, raw reply and observation."""
    from playwright.sync_api import expect

    calls = page.locator("#replay-calls")
    expect(calls).to_contain_text("P1 (scripted-llm) · speak · ok")
    expect(calls).to_contain_text("Model call 1: messages sent")
    expect(calls).to_contain_text("You are playing 'Who is the Spy'")  # the system message, as built
    expect(calls.locator(".da-raw-reply")).to_contain_text(said)
    expect(calls.locator(".da-read")).to_contain_text(said.split(". ")[0])
    observation = calls.locator("details.da-observation")
    observation.locator("summary").click()
    expect(observation.locator("pre")).to_contain_text('"you": "P1"')


def test_a_replay_turn_opens_to_its_calls_messages_and_raw_reply(page, arena):
    from playwright.sync_api import expect

    url, here, _, _ = arena
    page.goto(f"{url}?match={here['id']}", wait_until="domcontentloaded")
    expect(page.locator("#replay-header")).to_contain_text(here["id"])
    expect(page.locator("#replay-calls")).to_contain_text("Calls at this step")
    go_to_step(page, first_call_step(here, "P1"))
    expect_call_opened(page, HERE)
    screenshot(page, "replay-calls")
    assert not page.errors, page.errors


def test_an_exported_run_log_opens_in_the_replay_page(page, arena):
    from playwright.sync_api import expect

    url, here, elsewhere, log = arena
    page.goto(url, wait_until="domcontentloaded")
    page.get_by_role("tab", name="Watch", exact=True).click()  # the replay's tab
    page.get_by_text("Open a run log file").click()
    page.locator("#run-log-file input[type=file]").set_input_files(str(log))
    expect(page.locator("#run-log-note")).to_contain_text("Run log of 1 matches")
    # a match this arena's store does not have, replayed from the file alone
    expect(page.locator("#replay-header")).to_contain_text(elsewhere["id"])
    assert elsewhere["id"] != here["id"]
    go_to_step(page, first_call_step(elsewhere, "P1"))
    expect_call_opened(page, ELSEWHERE)
    page.locator("#step-last").click()
    expect(page.locator("#replay-transcript")).to_contain_text("P1")
    screenshot(page, "replay-run-log")
    assert "Traceback" not in page.locator("body").inner_text()
    assert not page.errors, page.errors


def test_a_person_sees_their_own_calls_while_the_match_runs_and_no_one_elses(page, arena):
    """In the Play tab, seat P1 taken by a person: once they have spoken, the match still
    running, their call shows under 'Your calls' (what they were sent and what they replied);
    no other seat's call does."""
    from playwright.sync_api import expect

    url, _, _, _ = arena
    page.goto(url, wait_until="domcontentloaded")
    page.locator("#my-seat input").click()
    page.get_by_role("option", name="P1", exact=True).click()
    expect(page.locator("#my-seat input")).to_have_value("P1")
    page.locator("#start-match").click()
    expect(page.locator("#human-prompt")).to_contain_text("Your turn, P1.")
    said = "A person's clue: it sits on a table."
    reply = page.locator("#human-reply textarea, #human-reply input").first
    reply.fill(said)
    page.locator("#send-reply").click()
    mine = page.locator("#play-my-calls")
    expect(mine).to_contain_text("Your calls (newest first)")
    expect(mine.locator(".da-raw-reply").first).to_contain_text(said)
    expect(page.locator("#play-status")).not_to_contain_text("Finished")  # still running
    summaries = mine.locator("details.da-call > summary").all_inner_texts()
    assert summaries and all(s.startswith("P1 ") for s in summaries), summaries
    observation = mine.locator("details.da-call").first.locator("details.da-observation")
    observation.locator("summary").click()
    expect(observation.locator("pre")).to_contain_text('"you": "P1"')
    page.locator("#stop-match").click()
    expect(page.locator("#play-status")).to_contain_text(re.compile("stopped|Stopped|cancel"))
    assert not page.errors, page.errors


def test_a_seat_choice_shows_its_agents_id_on_hover(page, arena):
    from playwright.sync_api import expect

    url, *_ = arena
    page.goto(url)
    page.locator("#seat-1 input").click()
    choice = page.locator('#seat-1 li.item[aria-label="Bot · alice"]')
    expect(choice).to_have_attribute("title", "alice/bot")  # the name and owner shown, the id on hover
    choice.click()
    expect(page.locator("#seat-1 input")).to_have_value("Bot · alice")
    expect(page.locator("#seat-1 input")).to_have_attribute("title", "alice/bot")
    assert not page.errors, page.errors
