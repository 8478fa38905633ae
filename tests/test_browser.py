"""The arena in a real browser: play a demo match, replay it through its share link,
step through it, look through a seat's eyes, visit every tab, and play a seat yourself.
Screenshots of each tab go to test-artifacts/screenshots/."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from browser_support import chromium_browser, running_arena, screenshot

from space_app.config import ArenaConfig

pytestmark = pytest.mark.browser

WAIT = 60_000  # ms; the machine has 2 CPU cores and Gradio's first load is heavy
MATCH_ID = re.compile(r"match\s+([0-9a-f]{12})")
STEP = re.compile(r"Step\s+(\d+)\s*/\s*(\d+)")


@pytest.fixture(scope="module")
def arena_url(tmp_path_factory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("arena") / "arena.db"
    with running_arena(ArenaConfig(db=str(db), demo_matches=1, allow_private_urls=True)) as (_, url):
        yield url


@pytest.fixture(scope="module")
def browser(arena_url) -> Iterator[Any]:
    # after the arena: create_arena's warm-up uses asyncio.run, which refuses to run
    # inside the event loop Playwright's sync API keeps in this thread
    with chromium_browser() as b:
        yield b


@pytest.fixture
def page(browser) -> Iterator[Any]:
    from playwright.sync_api import expect

    expect.set_options(timeout=WAIT)  # assertions wait as long as actions: 2 loaded cores are slow
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    context.set_default_timeout(WAIT)
    page = context.new_page()
    page.dialogs = []  # type: ignore[attr-defined]
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    try:
        yield page
    finally:
        context.close()


def tab(page: Any, name: str) -> Any:
    return page.get_by_role("tab", name=name, exact=True)


def open_tab(page: Any, name: str) -> None:
    """Click a tab; on a narrow screen the tabs that do not fit are under 'More tabs'."""
    from playwright.sync_api import expect

    page.get_by_role("tab").first.wait_for()  # the tabs are drawn
    if tab(page, name).count() == 0 or not tab(page, name).is_visible():
        page.get_by_role("button", name="More tabs").click()
        page.locator(".overflow-dropdown button", has_text=name).click()
    else:
        tab(page, name).click()
    expect(tab(page, name)).to_have_attribute("aria-selected", "true")


def assert_in_first_screen(page: Any, selector: str) -> None:
    """The element starts within the first screen: seen without scrolling."""
    box = page.locator(selector).bounding_box()
    height = page.viewport_size["height"]
    assert box is not None and 0 <= box["y"] < height, f"{selector} starts at {box} (screen height {height})"


def step_of(page: Any) -> tuple[int, int]:
    text = page.locator("#replay-position").inner_text()
    found = STEP.search(text)
    assert found, f"no step position in {text!r}"
    return int(found.group(1)), int(found.group(2))


def test_play_replay_and_every_tab(page, arena_url):
    from playwright.sync_api import expect

    page.goto(arena_url, wait_until="domcontentloaded")
    expect(tab(page, "Play")).to_have_attribute("aria-selected", "true")
    start = page.locator("#start-match")
    expect(start).to_be_visible()

    # -- play a demo match between house agents (the default seats) --------------------
    start.click()
    expect(page.locator("#live-transcript .da-statement").first).to_be_visible()
    status = page.locator("#play-status")
    expect(status).to_contain_text("Finished", timeout=2 * WAIT)
    found = MATCH_ID.search(status.inner_text())
    assert found, status.inner_text()
    match_id = found.group(1)
    expect(page.locator("#play-result")).to_contain_text("Winner")
    expect(page.locator("#live-transcript")).to_contain_text("Game over")
    screenshot(page, "play-desktop", docs=True)

    # -- the share link opens the replay on the Watch tab, its transcript in view ---------
    link = f"{arena_url}?match={match_id}"
    page.goto(link, wait_until="domcontentloaded")
    expect(tab(page, "Watch")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#replay-header")).to_contain_text(match_id)
    transcript = page.locator("#replay-transcript")
    expect(transcript.locator(".da-ev").first).to_be_visible()
    assert_in_first_screen(page, "#replay-transcript")
    expect(page.locator("#match-list")).to_be_hidden()  # the list is folded away under the replay
    share = page.locator("#share-link textarea, #share-link input").first
    expect(share).to_have_value(link)  # the full address, built from the page's own location
    page.locator("#copy-link").click()
    expect(page.locator("#copy-note")).to_contain_text(re.compile("copied|Copy the link"))

    # -- it starts at step 1 with the result hidden ----------------------------------------
    position, result = page.locator("#replay-position"), page.locator("#replay-result")
    first, total = step_of(page)
    assert first == 1 and total > 3
    expect(result).to_contain_text("hidden")
    expect(result).not_to_contain_text("Winner")
    expect(transcript).to_contain_text("Word pair:")  # the spectator's setup, folded away
    expect(transcript.locator(".da-spoiler")).to_have_count(1)
    screenshot(page, "replay-desktop", docs=True)

    # -- step forward and back, without the end showing -------------------------------------
    page.locator("#step-forward").click()
    expect(position).to_contain_text(f"Step 2 / {total}")
    page.locator("#step-forward").click()
    expect(position).to_contain_text(f"Step 3 / {total}")
    page.locator("#step-back").click()
    expect(position).to_contain_text(f"Step 2 / {total}")
    expect(transcript).not_to_contain_text("Game over")
    expect(result).not_to_contain_text("Winner")

    # -- 'show the result' reveals it and says why the winner won; unticked, hidden again ----
    page.locator("#show-result input").check()
    expect(result).to_contain_text("Winner")
    expect(result).to_contain_text("The spy")  # the game's one line on why
    expect(transcript.locator(".da-spoiler")).to_have_count(0)
    page.locator("#show-result input").uncheck()
    expect(result).not_to_contain_text("Winner")

    # -- ▶ Play at 4 steps/s runs to the end, where the result shows by itself --------------
    page.locator("#replay-speed input").click()
    page.get_by_role("option", name="4 steps/s", exact=True).click()
    page.locator("#step-play").click()
    expect(position).to_contain_text(f"Step {total} / {total}", timeout=2 * WAIT)
    expect(transcript).to_contain_text("Game over")
    expect(result).to_contain_text("Winner")
    expect(page.locator("#step-play")).to_contain_text("Play")
    screenshot(page, "watch")

    # -- what P1 saw -----------------------------------------------------------------------
    page.locator("#replay-view").get_by_text("P1", exact=True).click()
    expect(page.locator("#replay-position")).to_contain_text("what P1 saw")
    expect(transcript).to_contain_text("Your secret word is")
    expect(transcript).not_to_contain_text("Word pair:")
    seat_step, seat_total = step_of(page)
    assert seat_step == seat_total and seat_total < total
    screenshot(page, "seat-view", docs=True)

    # -- leaderboard, agents, about ------------------------------------------------------------
    open_tab(page, "Leaderboard")
    board = page.locator("#leaderboard-board")
    expect(board).to_contain_text("house:heuristic")
    expect(board).to_contain_text("house:random")
    assert board.locator("[role=row]").filter(has_text="house:").count() >= 2
    expect(page.locator("#leaderboard-table")).to_be_hidden()  # every column: one click away
    page.locator("#leaderboard-all").get_by_text("Every column of the table").click()
    expect(page.locator("#leaderboard-table")).to_contain_text("win % civilian")
    expect(page.locator("#head-to-head")).to_contain_text("house:heuristic")
    screenshot(page, "leaderboard-desktop", docs=True)
    expect(page.locator("#leaderboard-includes")).to_contain_text("Includes visitor, human and tournament matches")
    with page.expect_download() as got:
        page.locator("#download-csv").click()
    csv_text = Path(got.value.path()).read_text(encoding="utf-8")
    assert csv_text.startswith("agent,matches,seats,rating") and "win_rate_low" in csv_text
    with page.expect_download() as got:
        page.locator("#download-json").click()
    snap = json.loads(Path(got.value.path()).read_text(encoding="utf-8"))
    assert snap["filter"]["sources"] == "default" and snap["matches"] >= 1 and snap["code"]["package_version"]

    open_tab(page, "Agents")
    expect(page.locator("#agent-list")).to_contain_text("house:heuristic")
    expect(page.locator("#register-agent")).to_be_visible()
    screenshot(page, "agents", docs=True)

    open_tab(page, "About")
    expect(page.get_by_role("heading", name="Who is the Spy — rules")).to_be_visible()
    expect(page.get_by_role("heading", name="Build your agent")).to_be_visible()
    screenshot(page, "about", docs=True)

    body = page.locator("body").inner_text()
    assert "Traceback" not in body
    assert not page.dialogs, page.dialogs


@pytest.fixture
def phone(browser) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    context.set_default_timeout(WAIT)
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()


def test_on_a_phone_the_game_and_the_replay_come_first(phone, arena_url):
    """At 390×844: a share link opens on the transcript, Play shows the game before the seat
    selectors, and the leaderboard keeps its table and charts."""
    from gradio_client import Client
    from playwright.sync_api import expect

    match_id = Client(arena_url, verbose=False).predict("spy", "", "finished", 5, api_name="/list_matches")[0]["id"]
    phone.goto(f"{arena_url}?match={match_id}", wait_until="domcontentloaded")
    expect(phone.locator("#replay-transcript .da-ev").first).to_be_visible()
    assert_in_first_screen(phone, "#replay-transcript")
    expect(phone.locator("#replay-result")).not_to_contain_text("Winner")
    screenshot(phone, "replay-phone", docs=True)

    phone.goto(arena_url, wait_until="domcontentloaded")
    expect(phone.locator("#start-match")).to_be_visible()
    game_top = phone.locator("#live-transcript").bounding_box()["y"]
    assert game_top < phone.locator("#seat-0").bounding_box()["y"], "the seat selectors come first"
    assert_in_first_screen(phone, "#live-transcript")
    screenshot(phone, "play-phone", docs=True)

    open_tab(phone, "Leaderboard")
    expect(phone.locator("#leaderboard-board")).to_contain_text("house:")
    expect(phone.locator("#role-plot")).to_contain_text("Win rate by role")
    screenshot(phone, "leaderboard-phone", docs=True)


@pytest.mark.parametrize("game,own_study", [("Avalon", "Intention study"), ("Murder mystery", None)])
def test_avalon_and_mystery_leaderboards_show_their_own_widgets_and_a_head_to_head(page, arena_url, game, own_study):
    """Another game's board carries no Who-is-the-Spy widget: no attack/defence study, no spy
    plot over games; it has its own head-to-head matrix (over the demo matches, ticked here)."""
    from playwright.sync_api import expect

    page.goto(arena_url, wait_until="domcontentloaded")
    open_tab(page, "Leaderboard")
    expect(page.locator("#study-plot-spy")).to_be_visible()  # the spy's own board has its study
    choose(page, "#leaderboard-game", game)
    page.locator("#leaderboard-sources label", has_text="demo").click()
    expect(page.locator("#leaderboard-includes")).to_contain_text("Includes demo")
    expect(page.locator("#leaderboard-board")).to_contain_text("house:")
    matrix = page.locator("#head-to-head")
    expect(matrix).to_be_visible()
    expect(page.locator("#head-to-head-note")).to_contain_text("opposite teams")
    if game == "Avalon":  # two demo agents; the mystery's demo seats one agent everywhere: no pair
        expect(matrix).to_contain_text("house:avalon-rules")
    for spy_widget in ("#study-plot-spy", "#history-plot-spy", "#run-study-spy", "#study-report-spy"):
        expect(page.locator(spy_widget)).to_be_hidden()
    body = page.locator("#board-extras-spy")
    expect(body).to_be_hidden()
    visible = page.locator("body").inner_text()
    assert "Attack / defence" not in visible and "ranking score over games" not in visible.lower()
    if own_study:
        expect(page.get_by_text(f"{own_study} (newest run)")).to_be_visible()
    else:
        assert "(newest run)" not in visible
    screenshot(page, f"leaderboard-{game.split()[0].lower()}", docs=True)

    # its Results page reads the same matches and says so
    open_tab(page, "Results")
    choose(page, "#results-game", game)
    expect(page.locator("#results-note")).to_be_visible()
    if game == "Avalon":
        expect(page.get_by_text("Intention metrics (the intention study's newest run)")).to_be_visible()
        expect(page.get_by_text("Game metrics per agent")).to_be_visible()
    else:
        expect(page.get_by_text("Chain of Evaluation per agent", exact=False)).to_be_visible()
    page.locator("#results-sources label", has_text="demo").click()
    expect(page.get_by_text("of the Leaderboard's filter (Includes demo, visitor", exact=False).first).to_be_visible()
    screenshot(page, f"results-{game.split()[0].lower()}", docs=True)
    assert not page.errors, page.errors


@pytest.mark.parametrize("bad", ["doesnotexist", "<script>alert(1)</script>",
                                 '<img src="http://127.0.0.1:9/pixel.gif">', "[a link](http://127.0.0.1:9/)"])
def test_unknown_or_hostile_match_link_says_not_found(page, arena_url, bad):
    from playwright.sync_api import expect

    page.goto(f"{arena_url}?match={quote(bad)}", wait_until="domcontentloaded")
    expect(tab(page, "Watch")).to_have_attribute("aria-selected", "true")
    header = page.locator("#replay-header")
    expect(header).to_contain_text("Not found")
    text = page.locator("body").inner_text()
    assert "Traceback" not in text and "Error" not in header.inner_text()
    assert not page.dialogs, f"a script ran: {page.dialogs}"
    assert page.locator("#replay-header script").count() == 0
    # what the link carried is shown as text: no image fetched, no link planted on the page
    planted = page.locator("#replay-header img, #replay-header a")
    assert planted.count() == 0, page.locator("#replay-header").inner_html()


ASKED_OR_FINISHED = """() => {
    const asked = document.querySelector('#human-prompt')?.textContent ?? '';
    const status = document.querySelector('#play-status')?.textContent ?? '';
    if (status.includes('Finished')) return 'FINISHED';
    return asked.includes('Your turn') ? asked : false;
}"""


# the turn id of the question the page shows ('' when none): a changed turn means the page
# moved on (the same question drawn again after its reply keeps its turn)
TURN_SHOWN = "() => document.querySelector('#human-prompt .da-prompt[data-turn]')?.dataset.turn ?? ''"
MOVED_ON = """(prev) => {
    if ((document.querySelector('#play-status')?.textContent ?? '').includes('Finished')) return true;
    const now = document.querySelector('#human-prompt .da-prompt[data-turn]')?.dataset.turn;
    return now !== undefined && now !== prev;
}"""


CLICK_CHOICE = """(label) => {
    const prompt = document.querySelector('#human-prompt')?.textContent ?? '';
    if (!prompt.includes('Options:')) return 'gone';
    const button = [...document.querySelectorAll('#human-choices button')]
        .find((b) => b.textContent.trim() === label && b.offsetParent !== null);
    if (!button) return false;
    button.click();
    return 'clicked';
}"""


def test_a_visitor_plays_seat_p3_against_the_house_agents(page, arena_url):
    """Pick seat P3 under 'Take a seat yourself' with a name, answer every question the page
    asks (statements typed, votes by clicking an option's button, under a countdown of the
    person's own time) until the match ends; the record shows the person's statements as P3's
    and names the seat after the person."""
    from playwright.sync_api import expect

    page.goto(arena_url, wait_until="domcontentloaded")
    expect(page.locator("#human-reply")).to_be_hidden()  # no reply box without a person in a seat
    page.locator("#my-seat input").click()
    page.get_by_role("option", name="P3", exact=True).click()
    expect(page.locator("#my-seat input")).to_have_value("P3")
    seat_p3 = page.locator("#seat-2 input")
    expect(seat_p3).to_have_value("you (your seat)")  # no agent to pick in the person's own seat
    expect(seat_p3).to_be_disabled()
    page.locator("#human-name input, #human-name textarea").first.fill("Ada\u202e Lovelace")
    page.locator("#start-match").click()
    status = page.locator("#play-status")
    reply = page.locator("#human-reply textarea, #human-reply input").first
    said: list[str] = []
    answered = voted = 0
    while True:
        # either the page asks P3 something or the match is over (both may show at once)
        question = page.wait_for_function(ASKED_OR_FINISHED, timeout=WAIT).json_value()
        if question == "FINISHED":
            break
        assert "Your turn, P3." in question and "Your secret word is" in question
        assert re.search(r"⏳ \d+:\d\d left", question), question  # the person's own countdown
        assert "You have 180 s" in question  # their limit (ARENA_HUMAN_SECONDS), not the game's
        before = page.evaluate(TURN_SHOWN)
        options = re.search(r"Options:\s*(P\d+)", question)
        if options:  # a vote: click the button of the first player offered
            if voted == 0:
                expect(page.locator("#human-choices button", has_text=options.group(1)).first).to_be_visible()
                screenshot(page, "human-vote", docs=True, full_page=False)
            # found and clicked in one step in the page: the live updates re-draw the buttons
            clicked = page.wait_for_function(CLICK_CHOICE, arg=options.group(1), timeout=WAIT).json_value()
            if clicked == "gone":  # a live update drawn before the last reply: ask the page again
                continue
            voted += 1
        else:
            text = f"Visitor clue number {len(said) + 1}: people talk about it at home."
            said.append(text)
            expect(reply).to_be_visible()
            reply.fill(text)
            page.locator("#send-reply").click()
        # the page moves on: the next question, or the end
        page.wait_for_function(MOVED_ON, arg=before, timeout=WAIT)
        answered += 1
        assert answered < 20, "the page kept asking"
    assert said, "P3 was never asked to speak"
    found = MATCH_ID.search(status.inner_text())
    assert found
    transcript = page.locator("#live-transcript")
    expect(transcript).to_contain_text(said[0])
    expect(transcript).to_contain_text("Game over")
    result = page.locator("#play-result")
    assert voted, "P3 never voted"
    expect(result).to_contain_text("Ada Lovelace (person)")  # cleaned: no bidi override
    expect(result).not_to_contain_text("ip:")
    expect(page.locator("#human-reply")).to_be_hidden()  # gone with the match
    screenshot(page, "human-seat", docs=True)
    # the person has a leaderboard row of their own (their nickname, off a Space), not the pool's
    from gradio_client import Client
    board = Client(arena_url, verbose=False).predict("spy", 0, "human", "", False, api_name="/leaderboard")
    assert "person:ada-lovelace" in [row["agent"] for row in board]
    assert "Traceback" not in page.locator("body").inner_text()


def test_an_avalon_replay_shows_its_panels_and_a_seats_private_knowledge(page, arena_url):
    """A demo Avalon match replayed through its share link: the quest track and the proposal
    grid, roles for spectators, and P1's own role text (nothing else's) in P1's view."""
    from gradio_client import Client
    from playwright.sync_api import expect

    client = Client(arena_url, verbose=False)
    listed = client.predict("avalon", "", "finished", 5, api_name="/list_matches")
    assert listed, "the demo warm-up plays an Avalon match"
    match_id = listed[0]["id"]
    page.goto(f"{arena_url}?match={match_id}", wait_until="domcontentloaded")
    expect(page.locator("#replay-header")).to_contain_text("Avalon")
    expect(page.locator("#replay-result")).not_to_contain_text("merlin")  # hidden until asked for
    page.locator("#show-result input").check()
    expect(page.locator("#replay-result")).to_contain_text("merlin")  # spectators see the roles
    panels = page.locator("#panels-avalon")
    expect(panels).to_be_visible()
    expect(page.locator("#panels-spy")).to_be_hidden()
    expect(panels).to_contain_text("Quest track")
    expect(panels).to_contain_text("Proposals and votes")
    transcript = page.locator("#replay-transcript")
    page.locator("#step-last").click()
    expect(transcript).to_contain_text("proposes")
    screenshot(page, "avalon-watch")
    page.locator("#replay-view").get_by_text("P1", exact=True).click()
    expect(page.locator("#replay-position")).to_contain_text("what P1 saw")
    expect(transcript).to_contain_text("You are")
    assert transcript.locator(".da-secret").count() >= 1
    assert "Traceback" not in page.locator("body").inner_text()


def test_a_visitor_takes_an_avalon_seat_and_plays_a_turn(page, arena_url):
    """Pick Avalon and seat P2, answer the first thing the page asks (with P2's private role
    shown to them), see the game move on, then stop the match."""
    from playwright.sync_api import expect

    page.goto(arena_url, wait_until="domcontentloaded")
    page.locator("#play-game input").click()
    page.get_by_role("option", name="Avalon", exact=True).click()
    expect(page.locator("#play-game input")).to_have_value("Avalon")
    page.locator("#my-seat input").click()
    page.get_by_role("option", name="P2", exact=True).click()
    page.locator("#start-match").click()
    question = page.wait_for_function(ASKED_OR_FINISHED, timeout=WAIT).json_value()
    assert question != "FINISHED" and "Your turn, P2." in question
    assert "You are" in question  # the seat's own role and knowledge, shown to this person only
    options = re.findall(r"\bP\d+\b", question.split("Options:", 1)[1]) if "Options:" in question else []
    team = re.search(r"pick (\d+)", question)
    if "approve" in question:
        text = "approve"
    elif options:
        text = ", ".join(dict.fromkeys(options))[: 4 * int(team.group(1)) if team else 2]
    else:
        text = "I would start with a small team of people who spoke plainly."
    before = page.evaluate(TURN_SHOWN)
    page.locator("#human-reply textarea, #human-reply input").first.fill(text)
    page.locator("#send-reply").click()
    page.wait_for_function(MOVED_ON, arg=before, timeout=WAIT)
    expect(page.locator("#live-transcript")).to_contain_text("P2")
    screenshot(page, "avalon-human-seat")
    page.locator("#stop-match").click()
    # the owner's Stop is taken at once ("cancelling"), the match ends soon after ("Stopped")
    expect(page.locator("#play-status")).to_contain_text(re.compile("cancelling|Stopped"), timeout=WAIT)
    assert "Traceback" not in page.locator("body").inner_text()


def test_a_visitor_takes_three_quiz_questions_and_joins_the_people_row(page, arena_url):
    from playwright.sync_api import expect

    page.goto(arena_url, wait_until="domcontentloaded")
    open_tab(page, "Suites")
    page.locator("#quiz").get_by_text("Take the quiz yourself").click()
    page.locator("#quiz-start").click()
    question = page.locator("#quiz-question")
    expect(question).to_contain_text("Question 1")
    for n in range(1, 4):
        expect(question).to_contain_text(f"Question {n}")
        page.locator("#quiz-choice label").first.click()
        page.locator("#quiz-answer").click()
        expect(page.locator("#quiz-feedback")).to_contain_text(re.compile("Right|The answer was"))
    expect(question).to_contain_text("Question 4")
    results = page.locator("#suite-results")
    expect(results).to_contain_text("people")
    screenshot(page, "suites")
    assert "Traceback" not in page.locator("body").inner_text()


def test_the_quiz_on_the_multi_modal_suite_shows_its_keyframes(page, arena_url):
    from playwright.sync_api import expect

    from space_app.suites import SUITES

    page.goto(arena_url, wait_until="domcontentloaded")
    open_tab(page, "Suites")
    page.locator("#suite-pick input").click()
    page.get_by_role("option", name=SUITES["tom-household-mm"].title, exact=True).click()
    page.locator("#quiz").get_by_text("Take the quiz yourself").click()
    page.locator("#quiz-start").click()
    expect(page.locator("#quiz-question")).to_contain_text("Question 1", timeout=WAIT)
    frames = page.locator("#quiz-frames img")
    expect(frames.first).to_be_visible()
    assert frames.count() >= 2 and page.locator("#quiz-frames").inner_text().startswith("Keyframe 1")
    assert frames.first.evaluate("img => img.naturalWidth") == 480  # the PNG decoded, not a broken image
    # the docs' picture: the question at the top, its keyframes and options below
    page.evaluate("document.querySelector('#quiz-question').scrollIntoView({block: 'start'})")
    screenshot(page, "suites-keyframes", docs=True)
    assert "Traceback" not in page.locator("body").inner_text()


def test_a_benchmark_runs_from_the_suites_tab_and_starts_afresh_when_asked(page, arena_url):
    """Run resumes (the stored answers stay); with Start afresh ticked the agent's previous
    answers to the suite are forgotten first, so only the new run's are left."""
    from gradio_client import Client
    from playwright.sync_api import expect

    def stored() -> int:
        rows = Client(arena_url, verbose=False).predict("tom-household", api_name="/benchmark_results")
        return next(r["answered"] for r in rows if r["agent"] == "house:guess")

    page.goto(arena_url, wait_until="domcontentloaded")
    open_tab(page, "Suites")
    status = page.locator("#suite-status")
    page.locator("#run-suite").click()  # the default: house:guess, 30 questions
    expect(status).to_contain_text("answered 30 questions")
    assert stored() == 30
    questions = page.locator("#suite-questions input[type=number]")
    questions.fill("10")
    questions.press("Enter")
    page.locator("#run-suite").click()  # resumed: ten of the thirty, nothing forgotten
    expect(status).to_contain_text("answered 10 questions")
    assert stored() == 30
    page.locator("#suite-fresh input[type=checkbox]").check()
    page.locator("#run-suite").click()
    expect(status).to_contain_text("were forgotten first")
    expect(status).to_contain_text("answered 10 questions")
    assert stored() == 10
    assert "Traceback" not in page.locator("body").inner_text()


def test_a_murder_mystery_replay_shows_its_panels_and_keeps_scripts_private(page, arena_url):
    from gradio_client import Client
    from playwright.sync_api import expect

    client = Client(arena_url, verbose=False)
    listed = client.predict("mystery", "", "finished", 5, api_name="/list_matches")
    assert listed, "the demo warm-up plays a murder-mystery match"
    match_id = listed[0]["id"]
    page.goto(f"{arena_url}?match={match_id}", wait_until="domcontentloaded")
    expect(page.locator("#replay-header")).to_contain_text("Murder mystery")
    page.locator("#show-result input").check()
    expect(page.locator("#replay-result")).to_contain_text("murderer")
    expect(page.locator("#replay-result")).to_contain_text("innocents named the murderer")
    expect(page.locator("#panels-mystery")).to_be_visible()
    expect(page.locator("#panels-avalon")).to_be_hidden()
    screenshot(page, "mystery-watch")
    record = client.predict(match_id, "", api_name="/get_match")
    first, second = record["seats"][0]["seat"], record["seats"][1]["seat"]
    scripts = {e["visible_to"][0]: e for e in record["events"]
               if e["kind"] == "private" and e["visible_to"] and len(e["visible_to"]) == 1}
    page.locator("#replay-view").get_by_text(first, exact=True).click()
    transcript = page.locator("#replay-transcript")
    expect(page.locator("#replay-position")).to_contain_text(f"what {first} saw")
    page.locator("#step-last").click()
    expect(page.locator("#replay-position")).to_contain_text(re.compile(r"Step (\d+) / \1\b"))
    own = scripts[first]["text"].split(".")[0]
    other = (scripts[second]["data"].get("document") or {}).get("text", "")[:60]
    expect(transcript).to_contain_text(own)
    assert other and other not in transcript.inner_text()
    # the image clues this seat saw are in its transcript as pictures, each one a clue it was shown
    clues = [e for e in record["events"] if (e.get("data") or {}).get("images")
             and (e["visible_to"] is None or first in e["visible_to"])]
    pictures = transcript.locator(".da-images img")
    expect(pictures.first).to_be_visible()
    assert pictures.count() == sum(len(e["data"]["images"]) for e in clues) > 0
    assert pictures.first.get_attribute("src").startswith("data:image/jpeg;base64,")
    assert pictures.first.evaluate("img => img.decode().then(() => img.naturalWidth)") > 100  # a real picture


def test_an_operators_extra_script_folder_is_offered_in_play_and_played_there(page, arena_url, tmp_path,
                                                                              monkeypatch):
    """A script folder under ARENA_SCRIPT_DIRS appears in Play's script choice beside the shipped
    ones; picking it sets the seats to its characters, and the match is played on it."""
    import shutil

    from gradio_client import Client
    from playwright.sync_api import expect

    from space_app.games.mystery.catalog import SCRIPT_DIRS_ENV, catalog

    folder = tmp_path / "scripts" / "alder-extra"
    shutil.copytree(catalog().folders["alder-playhouse"], folder)
    data = json.loads((folder / "script.json").read_text(encoding="utf-8"))
    data.update(id="alder-extra", title="The Extra Playhouse")
    (folder / "script.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    monkeypatch.setenv(SCRIPT_DIRS_ENV, str(tmp_path / "scripts"))

    page.goto(arena_url, wait_until="domcontentloaded")
    expect(page.locator("#play-choice")).to_be_hidden()  # Who is the Spy has no such choice
    choose(page, "#play-game", "Murder mystery")
    expect(page.locator("#play-choice")).to_be_visible()
    page.locator("#play-choice input").click()
    options = page.get_by_role("option")
    expect(options.filter(has_text="The Perseid Night at Larkspur")).to_have_count(1)  # the shipped ones
    label = "The Extra Playhouse · 4 · alder-extra"
    page.get_by_role("option", name=label, exact=True).click()
    expect(page.locator("#play-choice input")).to_have_value(label)
    expect(page.locator("#play-players input[type=number]")).to_have_value("4")
    characters = [r["name"] for r in data["roles"]]
    for i, name in enumerate(characters):
        expect(page.locator(f"#seat-{i} label, #seat-{i} span[data-testid='block-info']").first).to_contain_text(name)
    expect(page.locator("#seat-4")).to_be_hidden()
    screenshot(page, "play-extra-script", docs=True)
    page.locator("#start-match").click()
    status = page.locator("#play-status")
    expect(status).to_contain_text("Finished", timeout=4 * WAIT)
    match_id = MATCH_ID.search(status.inner_text()).group(1)
    played = Client(arena_url, verbose=False).predict(match_id, "", api_name="/get_match")
    assert played["settings"]["script"] == str(folder.resolve())
    assert len(played["seats"]) == 4 and played["status"] == "finished"


def test_the_header_links_the_api_page_and_the_footer_is_not_hidden(page, arena_url):
    from playwright.sync_api import expect

    page.goto(arena_url)
    assert page.locator("#page-header a", has_text="API").get_attribute("href") == "?view=api"
    expect(page.get_by_role("button", name="Use via API")).to_be_visible()  # the footer is not hidden
    # the header's link opens Gradio's API page straight away, every named endpoint listed
    page.goto(f"{arena_url}?view=api", wait_until="domcontentloaded")
    docs = page.locator(".api-docs")
    expect(docs).to_be_visible()
    for endpoint in ("/run_match", "/leaderboard", "/register_agent", "/get_match"):
        expect(docs).to_contain_text(endpoint)
    screenshot(page, "api-page", docs=True, full_page=False)


def test_the_interface_switches_to_chinese_with_the_game(page, arena_url):
    """Choosing Chinese as the game's language re-words the page around it (tabs, labels,
    buttons, seat names, the status line, the other tabs), a Chinese match streams with Chinese interface
    lines, its replay opens in Chinese, and an English replay switches the page back."""
    from gradio_client import Client
    from playwright.sync_api import expect

    page.goto(arena_url, wait_until="domcontentloaded")
    expect(page.locator("#play-language")).to_contain_text("Language of the game and of this page")
    page.locator("#play-language label", has_text="中文").click()
    expect(tab(page, "对局")).to_be_visible()
    expect(tab(page, "回放")).to_be_visible()
    expect(page.locator("#start-match")).to_have_text("开始对局")
    expect(page.locator("#play-game input")).to_have_value("谁是卧底")  # the game's own title in Chinese
    expect(page.locator("#play-language")).to_contain_text("对局语言（也是本页界面语言）")
    expect(page.locator("#play-status")).to_contain_text("选好座位")
    expect(page.locator("#seat-0")).to_contain_text("座位 P1")
    expect(page.locator("#page-header")).to_contain_text("推理竞技场")
    # the murder mystery in Chinese seats the Chinese script's characters, a person too
    page.locator("#play-game input").click()
    page.get_by_role("option", name="剧本杀", exact=True).click()
    expect(page.locator("#seat-0")).to_contain_text("座位 沈青")
    page.locator("#my-seat input").click()
    expect(page.get_by_role("option", name="沈青", exact=True)).to_be_visible()
    page.keyboard.press("Escape")
    page.locator("#play-game input").click()
    page.get_by_role("option", name="谁是卧底", exact=True).click()
    expect(page.locator("#seat-0")).to_contain_text("座位 P1")
    open_tab(page, "排行榜")  # the other tabs follow: their labels, and what their handlers write
    expect(page.locator("#leaderboard-sources")).to_contain_text("对局来源")
    expect(page.locator("#leaderboard-includes")).to_contain_text("包含访客、真人和锦标赛对局")
    expect(page.locator("#role-plot")).to_contain_text("各身份胜率")
    open_tab(page, "智能体")
    expect(page.locator("#register-agent")).to_have_text("注册")
    open_tab(page, "对局")
    page.locator("#play-players input[type=number]").fill("4")
    page.locator("#play-players input[type=number]").press("Enter")
    page.locator("#start-match").click()
    status = page.locator("#play-status")
    expect(status).to_contain_text("已结束", timeout=WAIT * 3)
    expect(status).to_contain_text("打开回放")
    expect(page.locator("#play-result")).to_contain_text("胜方")
    expect(page.locator("#play-result")).to_contain_text("平民")  # the game's roles in Chinese too
    match_id = MATCH_ID.search(status.inner_text()) or re.search(r"`?([0-9a-f]{12})`?", status.inner_text())
    assert match_id
    screenshot(page, "play-zh", docs=True)

    # a Chinese replay link opens in Chinese; an English one switches the page back
    page.goto(f"{arena_url}?match={match_id.group(1)}", wait_until="domcontentloaded")
    expect(page.locator("#replay-position")).to_contain_text("观众视角")
    expect(page.locator("#replay-header")).to_contain_text("谁是卧底")
    expect(tab(page, "回放")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#step-forward")).to_have_text("前进 ▶")
    expect(page.locator("#replay-result")).to_contain_text("最后一步之前是隐藏的")
    page.locator("#match-list-box").get_by_text("已录制的对局").click()  # the folded list, in Chinese
    expect(page.locator("#match-list")).to_contain_text("点击一行即可回放")
    english = next(m["id"] for m in Client(arena_url, verbose=False).predict("spy", "", "finished", 20,
                                                                              api_name="/list_matches")
                   if m["id"] != match_id.group(1))  # every other match here was played in English
    page.locator("#replay-match-id input, #replay-match-id textarea").first.fill(english)
    page.locator("#open-replay").click()
    expect(page.locator("#replay-position")).to_contain_text("spectator view")
    expect(tab(page, "Watch")).to_be_visible()
    expect(page.locator("#step-forward")).to_have_text("Forward ▶")
    # a game played only in English offers only English (the control is the game's language)
    open_tab(page, "Play")
    page.locator("#play-game input").click()
    page.get_by_role("option", name="Avalon", exact=False).first.click()
    expect(page.locator("#play-language label", has_text="中文")).to_have_count(0)
    assert "Traceback" not in page.locator("body").inner_text()


# -- a person at full speed: every reply lands on its own question ------------------------
# The page's state when a question is shown: its turn id and what it asks (from the prompt's
# data attributes), or FINISHED. `gap` records that the question was off the page since the
# last reply (a 'Sent' line, a redraw): the same turn shown again then counts as new, so a
# question drawn again after it was answered is answered again, as a quick person would.
NEXT_QUESTION = """(last) => {
    const status = document.querySelector('#play-status')?.textContent ?? '';
    if (status.includes('Finished')) return {finished: true};
    if (/Stopped|⚠️/.test(status)) return {ended: status};
    const asked = document.querySelector('#human-prompt .da-prompt[data-turn]');
    if (!asked) { window.daGap = true; return false; }
    if (asked.dataset.turn === last && !window.daGap) return false;
    const box = asked.getBoundingClientRect();
    const buttons = [...document.querySelectorAll('#human-choices button')]
        .filter((b) => b.offsetParent !== null).map((b) => b.textContent.trim());
    const options = (asked.textContent.match(/Options:\\s*([^\\n]*?)(?:\\s+or abstain|Click|Type|$)/) || [])[1] ?? '';
    return {turn: asked.dataset.turn, number: Number(asked.dataset.number), verb: asked.dataset.verb,
            phase: asked.dataset.phase, round: asked.dataset.round, pick: Number(asked.dataset.pick),
            options: options.split(',').map((o) => o.trim()).filter(Boolean), buttons,
            text: asked.textContent, top: box.top, height: window.innerHeight};
}"""

# Reply to the question on the page now, in one step of the page's own code (nothing is
# drawn in between): the turn is read from the prompt at the moment of sending. `texts` are
# typed and sent one after the other (a second one is a reply to a question just answered:
# it must be refused); `click` presses that option's button instead. Returns the turn replied
# to, or null when the page moved on before.
REPLY = """([turn, texts, click]) => {
    const asked = document.querySelector('#human-prompt .da-prompt[data-turn]');
    if (!asked || asked.dataset.turn !== turn) return null;
    window.daGap = false;
    if (click) {
        const button = [...document.querySelectorAll('#human-choices button')]
            .find((b) => b.textContent.trim() === click && b.offsetParent !== null);
        if (button) { button.click(); return turn; }
        texts = [click];  // its button is not drawn yet: typing the option is the same reply
    }
    const box = document.querySelector('#human-reply textarea, #human-reply input');
    for (const said of texts) {
        box.value = said;
        box.dispatchEvent(new Event('input', {bubbles: true}));
        document.querySelector('#send-reply').click();
    }
    return turn;
}"""


def wait_on_page(page: Any, script: str, arg: Any, what: str) -> Any:
    """`page.wait_for_function`, failing with what the page showed when it did not happen."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        return page.wait_for_function(script, arg=arg, timeout=WAIT).json_value()
    except PlaywrightTimeout:
        state = page.evaluate("""() => ({status: document.querySelector('#play-status')?.textContent,
            prompt: document.querySelector('#human-prompt')?.innerHTML, scrollY: window.scrollY,
            top: document.querySelector('#human-prompt')?.getBoundingClientRect().top,
            height: window.innerHeight})""")
        pytest.fail(f"{what} (waited {WAIT / 1000:g} s): {state}", pytrace=False)


def choose(page: Any, selector: str, name: str) -> None:
    from playwright.sync_api import expect

    page.locator(f"{selector} input").click()
    page.get_by_role("option", name=name, exact=True).click()
    expect(page.locator(f"{selector} input")).to_have_value(name)


def choose_game(page: Any, game_id: str) -> None:
    """Pick a game on the Play tab and wait until its own seats are drawn: the page redraws
    the table when the game's update lands, so a table size typed before that is replaced."""
    from playwright.sync_api import expect

    from space_app.core import get_game

    spec = get_game(game_id)
    choose(page, "#play-game", spec.title)
    expect(page.locator("#seat-0 input")).to_have_value(spec.house.demo[0])
    expect(page.locator("#play-players input[type=number]")).to_have_value(str(spec.facts.default_players))


@pytest.mark.parametrize(("game", "players", "phone_width"), [
    ("spy", 4, True), ("avalon", 5, False), ("mystery", 4, False)])
def test_a_person_replying_at_full_speed_answers_each_question_once(browser, arena_url, game, players, phone_width):
    """A person takes a seat and replies to every question the moment the page shows it,
    sends a second statement right after each first one (as a double send, or typing on
    under a question just answered), and answers a question again whenever the page draws
    it again. The prompt names the turn and is in view when it is asked, on a phone too.
    The stored match then shows, question by question, the reply sent for that question:
    no reply landed on another one, and no second statement was taken at all."""
    from gradio_client import Client
    from playwright.sync_api import expect

    size = {"width": 390, "height": 844} if phone_width else {"width": 1366, "height": 900}
    context = browser.new_context(viewport=size, has_touch=phone_width)
    context.set_default_timeout(WAIT)
    expect.set_options(timeout=WAIT)
    page = context.new_page()
    try:
        page.goto(arena_url, wait_until="domcontentloaded")
        if game != "spy":
            choose_game(page, game)
        number = page.locator("#play-players input[type=number]")
        number.fill(str(players))
        number.press("Enter")
        expect(number).to_have_value(str(players))
        page.locator("#my-seat input").click()
        seat = page.get_by_role("option").nth(1).inner_text().strip()  # the first seat after 'watch only'
        page.get_by_role("option", name=seat, exact=True).click()
        expect(page.locator("#my-seat input")).to_have_value(seat)
        # every refusal the page draws, however briefly it stays before the next update
        page.evaluate("""() => {
            window.daRefusals = [];
            new MutationObserver(() => {
                const note = document.querySelector('#human-prompt .da-refused');
                if (note && window.daRefusals.at(-1) !== note) window.daRefusals.push(note);
            }).observe(document.querySelector('#human-prompt'), {childList: true, subtree: true});
        }""")
        page.locator("#start-match").click()

        asked: dict[str, dict[str, Any]] = {}  # turn id -> what the page showed
        sent: dict[str, list[str]] = {}  # turn id -> every reply sent while it was shown
        last = ""
        while True:
            shown = wait_on_page(page, NEXT_QUESTION, last, "the page showed no new question nor the end")
            if shown.get("finished"):
                break
            assert not shown.get("ended"), shown
            turn = shown["turn"]
            assert turn.endswith(f"-{shown['number']}")
            label = f"Round {shown['round']} · " if shown["round"] else ""
            assert f"{label}your {dict(speak='statement', vote='vote', answer='answer')[shown['verb']]}" \
                in shown["text"], shown["text"]
            # in view when asked, whatever the screen: its top is on the screen
            wait_on_page(page, """(turn) => {
                const asked = document.querySelector('#human-prompt .da-prompt[data-turn]');
                if (!asked || asked.dataset.turn !== turn) return true;  // moved on: nothing to see
                const top = asked.getBoundingClientRect().top;
                return top >= 0 && top < window.innerHeight;
            }""", turn, f"question {turn} was not brought into view")
            if not asked and game != "spy":  # the seat's script or role card is there from the first question
                expect(page.locator("#seat-documents")).to_contain_text(f"What {seat} may read")
            asked.setdefault(turn, shown)
            n = shown["number"]
            options = [o for o in shown["options"] if o != "abstain"]
            click, texts = "", []
            if options and shown["pick"] == 1:
                click = options[n % len(options)]  # a different option from the previous question's
            elif options:
                start = n % len(options)
                texts = [", ".join((options[start:] + options[:start])[:shown["pick"]])]
            else:
                texts = [f"Reply to question {n}: I trust the quiet ones.",
                         f"A second statement, typed on under question {n}."]
            replied = page.evaluate(REPLY, [turn, texts, click])
            if replied is not None:
                sent.setdefault(turn, []).extend([click] if click else texts)
            last = turn
            assert len(asked) < 80, "the page kept asking"
        expect(page.locator("#play-result")).to_contain_text("Winner")
        # each second statement was refused with a message on the page, not used
        refusals = page.evaluate("() => window.daRefusals.map((n) => n.textContent)")
        assert refusals and all(re.search(r"Not used: that reply was for question \d+", r) for r in refusals)
        status = page.locator("#play-status").inner_text()
        found = MATCH_ID.search(status)
        assert found, status
        # every line of the live transcript names who said it and what kind of line it is
        unnamed = page.evaluate(LINES_WITHOUT_SPEAKER, "#live-transcript")
        assert not unnamed, unnamed[:3]
        assert page.locator("#live-transcript .da-ev").count() > 10
        if game != "spy":
            papers = page.locator("#seat-documents")
            expect(papers).to_be_visible()
            everything = Client(arena_url, verbose=False).predict(found.group(1), "", api_name="/get_match")
            mine, theirs = told_in_private(everything["events"], seat)
            assert mine
            for told in mine:  # whole: the script's last words are there too
                expect(papers).to_contain_text(told[:120])
                expect(papers).to_contain_text(told[-120:])
            panel = " ".join(papers.inner_text().split())
            assert not [t for t in theirs if " ".join(t[:120].split()) in panel]
            if game == "mystery":
                expect(papers).to_contain_text("Your script:")
                papers.scroll_into_view_if_needed()
                screenshot(page, "seat-script-live", full_page=False)
        screenshot(page, f"human-full-speed-{game}-{'phone' if phone_width else 'desktop'}", docs=True)
        assert "Traceback" not in page.locator("body").inner_text()
    finally:
        context.close()

    record = Client(arena_url, verbose=False).predict(found.group(1), "", api_name="/get_match")
    calls = [e for e in record["events"] if e["kind"] == "call" and e["actor"] == seat]
    match_id = record["id"]
    assert calls and len(calls) == len(asked), (len(calls), sorted(asked))
    for i, call in enumerate(calls, start=1):
        turn = f"{match_id}-{i}"
        shown = asked[turn]  # the i-th question the runner asked is the page's question i
        assert (call["data"]["verb"], call["data"]["phase"]) == (shown["verb"], shown["phase"])
        assert str(call["round"] if call["round"] is not None else "") == shown["round"]
        assert call["data"]["status"] == "ok", call
        reply = call["data"]["reply"]
        assert reply in sent[turn], (turn, reply, sent[turn])  # the reply sent for this very question
        if shown["verb"] == "speak":
            assert reply == sent[turn][0] or reply == sent[turn][1]
            assert reply.endswith(f"question {i}.") or f"question {i}:" in reply
    taken = [c["data"]["reply"] for c in calls]
    # of each pair of statements sent for one question (sent again when the page drew it
    # again), exactly one was taken
    for t, replies in sent.items():
        if asked[t]["verb"] == "speak":
            assert sum(r in taken for r in set(replies)) == 1, (t, replies, taken)


# -- what a seat may read, and who said each line ------------------------------------------
# The transcript's lines that lack a speaker or a kind (their first words), in `selector`.
LINES_WITHOUT_SPEAKER = """(selector) => [...document.querySelectorAll(selector + ' .da-ev')]
    .filter((line) => !(line.querySelector('.da-who')?.textContent.trim()
                        && line.querySelector('.da-kind')?.textContent.trim()))
    .map((line) => line.textContent.slice(0, 120))"""


def told_in_private(events: list[dict[str, Any]], seat: str) -> tuple[list[str], list[str]]:
    """What `seat` was told in private (texts and whole documents), and what other seats were
    told and it was not."""
    mine: list[str] = []
    theirs: list[str] = []
    for e in events:
        if e["kind"] != "private" or not e["visible_to"]:
            continue
        told = [t for t in (e["text"], ((e.get("data") or {}).get("document") or {}).get("text", "")) if t]
        (mine if seat in e["visible_to"] else theirs).extend(told)
    return mine, [t for t in theirs if t not in mine]


@pytest.mark.parametrize(("game", "phone"), [("mystery", False), ("mystery", True), ("avalon", False),
                                             ("avalon", True)])
def test_a_seats_replay_shows_its_script_or_role_card_beside_the_game(browser, arena_url, game, phone):
    """A demo match's replay through one seat's eyes shows, beside its transcript, what that
    seat was handed (a murder script whole, an Avalon role card with what the role knows) and
    nothing another seat was; spectators are told to choose a seat. Every line names its
    speaker and kind; a line not everyone saw says who did."""
    from gradio_client import Client
    from playwright.sync_api import expect

    client = Client(arena_url, verbose=False)
    listed = client.predict(game, "", "finished", 5, api_name="/list_matches")
    assert listed, f"the demo warm-up plays a {game} match"
    record = client.predict(listed[0]["id"], "", api_name="/get_match")
    # Avalon through Merlin's eyes (the card that knows most), a murder mystery through its last character's
    roles = record["result"]["roles"]
    seat = next((s for s, role in roles.items() if role == "merlin"), record["seats"][-1]["seat"])
    mine, theirs = told_in_private(record["events"], seat)
    assert mine and theirs
    size = {"width": 390, "height": 844} if phone else {"width": 1366, "height": 900}
    context = browser.new_context(viewport=size, has_touch=phone)
    context.set_default_timeout(WAIT)
    expect.set_options(timeout=WAIT)
    page = context.new_page()
    try:
        page.goto(f"{arena_url}?match={record['id']}", wait_until="domcontentloaded")
        papers = page.locator("#replay-documents")
        expect(papers).to_contain_text("Choose a seat under View")
        page.locator("#replay-view").get_by_text(seat, exact=True).click()
        expect(page.locator("#replay-position")).to_contain_text(f"what {seat} saw")
        page.locator("#step-last").click()
        expect(papers).to_contain_text(f"What {seat} may read")
        for told in mine:
            expect(papers).to_contain_text(told[:120])
            expect(papers).to_contain_text(told[-120:])
        panel = " ".join(papers.inner_text().split())
        assert not [t for t in theirs if " ".join(t[:120].split()) in panel]
        expect(papers).to_contain_text("Your script:" if game == "mystery" else "Your role card: Merlin")
        if game == "avalon":
            expect(papers).to_contain_text("You see these players as evil")
        transcript = page.locator("#replay-transcript")
        assert not page.evaluate(LINES_WITHOUT_SPEAKER, "#replay-transcript")
        expect(transcript.locator(".da-audience").first).to_contain_text(f"only {seat} saw this")
        if game == "avalon":  # the end-of-game questions are prompts, not lines; no code shows
            assert "Which of the other players" not in transcript.inner_text()
            assert not re.search(r"— [a-z]+_[a-z_]+", transcript.inner_text())
        papers.scroll_into_view_if_needed()
        name = "seat-script" if game == "mystery" else "avalon-role-card"
        screenshot(page, f"{name}-{'phone' if phone else 'desktop'}", docs=True, full_page=False)
        assert "Traceback" not in page.locator("body").inner_text()
    finally:
        context.close()


# -- Werewolf as a person: a night action and a day vote by the page's buttons ------------
# Press the button of `label` for the question `turn` (one step of the page's own code):
# 'clicked', 'missing' while its button is not drawn yet, or null once the page moved on.
CLICK_FOR_TURN = """([turn, label]) => {
    const asked = document.querySelector('#human-prompt .da-prompt[data-turn]');
    if (!asked || asked.dataset.turn !== turn) return null;
    const button = [...document.querySelectorAll('#human-choices button')]
        .find((b) => b.textContent.trim() === label && b.offsetParent !== null);
    if (!button) return 'missing';
    window.daGap = false;
    button.click();
    return 'clicked';
}"""


def test_a_person_plays_werewolf_a_night_and_a_day_then_replays_it(browser, arena_url):
    """A person takes the Doctor's seat of a 6-player Werewolf table (the seat found from the
    seed by the game's own dealing) against the house agents: protects a player at night and
    votes by day with the option buttons the page draws from each question's options, types
    every statement, and plays on to the end. The record holds both choices as that seat's,
    and the match's replay shows the night (the Doctor's protection) and the day (the vote)."""
    from gradio_client import Client
    from playwright.sync_api import expect

    from space_app.core import get_game

    spec, players, seed = get_game("werewolf"), 6, 3
    roles = spec.deal_roles(players, seed, {"language": "en"})
    seat = spec.facts.seat_names(players)[roles.index("doctor")]
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    context.set_default_timeout(WAIT)
    expect.set_options(timeout=WAIT)
    page = context.new_page()
    try:
        page.goto(arena_url, wait_until="domcontentloaded")
        choose_game(page, "werewolf")  # its own seats are drawn before the table is resized
        number = page.locator("#play-players input[type=number]")
        number.fill(str(players))
        number.press("Enter")
        expect(number).to_have_value(str(players))
        page.get_by_label("Seed (empty = random)").fill(str(seed))
        choose(page, "#my-seat", seat)
        page.locator("#start-match").click()

        clicked: dict[str, str] = {}  # phase -> the first option pressed in it
        last = ""
        while True:
            shown = wait_on_page(page, NEXT_QUESTION, last, "the page showed no new question nor the end")
            if shown.get("finished"):
                break
            assert not shown.get("ended"), shown
            turn, last = shown["turn"], shown["turn"]
            assert f"Your turn, {seat}." in shown["text"] and "You are the Doctor" in shown["text"], shown["text"]
            options = [o for o in shown["options"] if o != "abstain"]
            if not options:
                page.evaluate(REPLY, [turn, [f"{seat} speaks plainly: question {shown['number']}."], ""])
                continue
            # the Doctor protects itself on the first night (always allowed), so it lives to vote
            # by day; it votes for the first other player offered
            pick = seat if shown["phase"] == "night" and seat in options else options[0]
            if shown["phase"] in ("night", "day_vote") and shown["phase"] not in clicked:
                # pressed once its button is drawn (the buttons come with a live update)
                pressed = wait_on_page(page, "(args) => { const r = (" + CLICK_FOR_TURN + ")(args); "
                                       "return r === 'missing' ? false : (r ?? 'moved on'); }",
                                       [turn, pick], f"no button {pick} for question {turn}")
                assert pressed == "clicked", f"question {turn} moved on before its button was pressed"
                clicked[shown["phase"]] = pick
            else:
                page.evaluate(REPLY, [turn, [], pick])
            assert int(shown["number"]) < 60, "the page kept asking"
        expect(page.locator("#play-result")).to_contain_text("Winner")
        assert set(clicked) == {"night", "day_vote"}, clicked
        status = page.locator("#play-status").inner_text()
        found = MATCH_ID.search(status)
        assert found, status
        screenshot(page, "werewolf-human-seat")
        assert "Traceback" not in page.locator("body").inner_text()

        # the record: the protection and the vote are the seat's, as pressed
        record = Client(arena_url, verbose=False).predict(found.group(1), "", api_name="/get_match")
        assert record["seed"] == seed
        events = record["events"]
        protect = next(e for e in events if e["kind"] == "doctor_protect" and e["actor"] == seat)
        assert protect["data"]["target"] == clicked["night"] == seat and protect["data"]["night"] == 1
        vote = next(e for e in events if e["kind"] == "day_vote" and e["actor"] == seat)
        assert vote["data"]["target"] == clicked["day_vote"] and vote["data"]["day"] == 1
        assert not [e for e in events if e["kind"] == "invalid_action" and e["actor"] == seat]

        # the replay shows the night and the day, in the transcript and in the game's panels
        page.goto(f"{arena_url}?match={record['id']}", wait_until="domcontentloaded")
        expect(page.locator("#replay-header")).to_contain_text("Werewolf")
        panels = page.locator("#panels-werewolf")
        expect(panels).to_be_visible()
        page.locator("#step-last").click()
        transcript = page.locator("#replay-transcript")
        expect(transcript).to_contain_text("Night 1 falls")
        expect(transcript).to_contain_text(f"You protect {seat} tonight.")
        expect(transcript).to_contain_text("Day 1 begins")
        expect(transcript).to_contain_text(f"{seat} votes for {clicked['day_vote']}.")
        expect(transcript).to_contain_text("Game over")
        expect(panels).to_contain_text("Nights")
        expect(panels).to_contain_text("Days and votes")
        expect(panels).to_contain_text(f"{seat}→{clicked['day_vote']}")
        page.locator("#show-result input").check()
        expect(page.locator("#replay-result")).to_contain_text("doctor")
        screenshot(page, "werewolf-watch")
        assert "Traceback" not in page.locator("body").inner_text()
    finally:
        context.close()
