"""Counterfactual branches (`python -m space_app branch`) on a real SQLite file with the spy
rule bots: a branch shares its parent's first events byte for byte (`verify` says so, and names
an edited prefix), a branch study prints an effect with its interval, the replay lists the
branches and where they diverge, and bad input is refused by name."""

from __future__ import annotations

import json
import random
import re
import sqlite3

import pytest

from space_app.api import ApiError, ArenaAPI
from space_app.branches import branch_point, diverges_at
from space_app.cli import main as cli_main
from space_app.config import ArenaConfig
from space_app.core.seeding import seeded
from space_app.match_plan import MatchPlan
from space_app.service import Arena
from space_app.standings import derive
from space_app.stats import rate_difference
from space_app.store import Store
from space_app.ui.watch import branch_lines

PARENT = "parent0001"
SEATS = ["house:heuristic", "house:random", "house:heuristic", "house:random"]
STEP = 10  # a statement of round 1: the spy (P2 with seed 3) has yet to speak


@pytest.fixture()
def db(tmp_path):
    path = tmp_path / "arena.db"
    arena = Arena(Store(path))
    outcome = arena.run_sync(MatchPlan("spy", SEATS, 3, match_id=PARENT))
    assert outcome.status == "finished"
    arena.store.close()
    return path


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli_main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def stored_rows(path, match_id: str) -> list[tuple]:
    """The events exactly as SQLite holds them (the JSON columns as their text)."""
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT seq, kind, actor, round, visible_to, text, data FROM events "
                            "WHERE match_id = ? ORDER BY seq", (match_id,)).fetchall()


def test_a_branch_shares_its_parents_first_steps_byte_for_byte(db, capsys):
    code, out, _ = run_cli(capsys, "--db", str(db), "branch", PARENT, "--from-step", str(STEP),
                           "--seat", "P2", "--agent", "house:heuristic")
    assert code == 0, out
    store = Store(db)
    parent = store.get_match(PARENT)
    (link,) = store.branches_of(PARENT)
    branch = store.get_match(link["match_id"])
    point = branch_point(parent, STEP)
    assert (link["from_step"], link["seat"], link["agent_id"], link["arm"]) == (STEP, "P2", "house:heuristic",
                                                                                 "agent")
    assert link["live_seq"] == point.live_seq and store.branch_of(branch["id"])["parent_id"] == PARENT
    assert store.branch_of(PARENT) is None
    # the step numbering is the replay's: step K is the K-th event a spectator sees (calls left out)
    steps = [r for r in parent["events"] if r["kind"] != "call"]
    assert point.step_seq == steps[STEP - 1]["seq"]
    # the rows below the first live call are the parent's, as SQLite stores them
    parent_rows, branch_rows = stored_rows(db, PARENT), stored_rows(db, branch["id"])
    shared = [r for r in parent_rows if r[0] < point.live_seq]
    assert len(shared) == point.live_seq > STEP
    assert [r for r in branch_rows if r[0] < point.live_seq] == shared
    # from there the new spy is called: the first live call is P2's, by the agent asked for
    assert branch["seats"][1]["agent_id"] == "house:heuristic" and parent["seats"][1]["agent_id"] == "house:random"
    assert branch_rows[point.live_seq][1:3] == ("call", "P2")
    assert branch["status"] == "finished" and branch["tag"] == f"study:branch:{PARENT}:{STEP}:P2"
    assert (branch["game"], branch["seed"], branch["settings"]) == (parent["game"], parent["seed"], parent["settings"])
    # each seat's agent version is recorded as in any match (the parent's seats' agents are the same)
    assert [s["version"] for s in branch["seats"]][2:] == [s["version"] for s in parent["seats"]][2:]
    assert all(s["version"] for s in branch["seats"])
    assert f"{branch['id']}  agent     sample 0  house:heuristic: P2 " in out
    assert f"each branch's first {point.live_seq} events are {PARENT}'s, byte for byte" in out

    # verify: the branch replays as a match of its own, and its prefix is the parent's
    code, out, _ = run_cli(capsys, "--db", str(db), "verify", branch["id"], PARENT)
    assert code == 0
    assert f"{branch['id']} (spy): identical" in out
    assert (f"{branch['id']}: branch of {PARENT} from step {STEP}: its first {point.live_seq} events "
            f"(through step {STEP}) are the parent's, byte for byte") in out
    assert f"{PARENT}: branched at step {STEP} into {branch['id']} (P2: house:heuristic, agent, sample 0, finished)" \
        in out
    store.close()


def test_an_edited_prefix_is_named_by_verify(db, capsys):
    assert run_cli(capsys, "--db", str(db), "branch", PARENT, "--from-step", str(STEP), "--seat", "P2",
                   "--agent", "house:heuristic")[0] == 0
    store = Store(db)
    (link,) = store.branches_of(PARENT)
    store.close()
    with sqlite3.connect(db) as conn:  # the parent's second statement, changed in the branch only
        seq = conn.execute("SELECT seq FROM events WHERE match_id = ? AND kind = 'statement' ORDER BY seq",
                           (link["match_id"],)).fetchall()[1][0]
        conn.execute("UPDATE events SET text = 'It is a kind of fruit.' WHERE match_id = ? AND seq = ?",
                     (link["match_id"], seq))
    code, out, _ = run_cli(capsys, "--db", str(db), "verify", link["match_id"])
    assert code == 1
    assert (f"{link['match_id']}: branch of {PARENT} from step {STEP}: the shared prefix differs at event {seq}: "
            "statement event: text is") in out and '"It is a kind of fruit."' in out
    code, out, _ = run_cli(capsys, "--db", str(db), "verify", "--all")
    assert code == 1 and "1 branch(es) whose shared prefix differs from its parent's" in out


def test_a_branch_study_prints_the_effect_with_its_interval(db, capsys):
    code, out, _ = run_cli(capsys, "--db", str(db), "branch", PARENT, "--from-step", str(STEP), "--seat", "P2",
                           "--agent", "house:heuristic", "--samples", "4")
    assert code == 0, out
    store = Store(db)
    links = store.branches_of(PARENT)
    assert sorted((b["arm"], b["sample"]) for b in links) == sorted(
        (arm, i) for i in range(4) for arm in ("agent", "original"))
    # both arms of a sample number share their house agents' salt; sample numbers differ
    assert len({b["salt"] for b in links}) == 4
    won = {"agent": 0, "original": 0}
    for b in links:
        assert b["agent_id"] == ("house:heuristic" if b["arm"] == "agent" else "house:random")
        match = store.get_match(b["match_id"])
        won[b["arm"]] += next(r.won for r in derive(match) if r.seat == "P2")
    effect = rate_difference(won["agent"], 4, won["original"], 4)
    assert effect is not None and effect.low <= effect.value <= effect.high
    assert f"house:heuristic: P2 won {won['agent']} of 4" in out
    assert f"house:random (the parent's): P2 won {won['original']} of 4" in out
    line = next(x for x in out.splitlines() if x.startswith("effect of house:heuristic in P2"))
    assert (f"{effect.value * 100:+.1f} points, [{effect.low * 100:+.1f}, {effect.high * 100:+.1f}] "
            "(95% Newcombe interval of a difference of two rates (hybrid Wilson score); n = 4 + 4)") in line
    # every branch's prefix checks out, and the study's matches stay off the leaderboards' default sources
    assert "verify: each branch's first" in out
    assert all(b["tag"].startswith("study:") for b in store.list_matches(limit=20) if b["id"] != PARENT)
    store.close()


def test_the_replay_lists_branches_and_where_they_diverge(db, capsys):
    assert run_cli(capsys, "--db", str(db), "branch", PARENT, "--from-step", str(STEP), "--seat", "P2",
                   "--agent", "house:heuristic", "--samples", "1")[0] == 0
    api = ArenaAPI(ArenaConfig(db=str(db), demo_matches=0))
    links = api.branch_links(PARENT)
    assert links["branched_from"] is None and len(links["branches"]) == 2 and links["more"] == 0
    parent = api.store.get_match(PARENT)
    for b in links["branches"]:
        branch = api.store.get_match(b["id"])
        assert b["diverges_at"] == diverges_at(parent, branch)
        # nothing before the branch point differs; where they differ is after it (or nowhere)
        assert b["diverges_at"] is None or b["diverges_at"] > STEP
        assert api.branch_links(b["id"])["branched_from"] == {
            "parent": PARENT, "from_step": STEP, "seat": "P2", "agent": b["agent"], "arm": b["arm"], "sample": 0}
    # the spy played by another agent from step 10 says something else at once
    agent = next(b for b in links["branches"] if b["arm"] == "agent")
    assert agent["diverges_at"] == STEP + 1
    lines = branch_lines(links, "en")
    assert lines[0] == "**Branches of this match** (2):"
    assert (f"- [`{agent['id']}`](?match={agent['id']}) from step {STEP}, P2: house\\:heuristic (agent, sample 0) · "
            f"{agent['winner']} · diverges at step {STEP + 1}") in lines
    child = branch_lines(api.branch_links(agent["id"]), "en")
    assert child == [f"Branched from [`{PARENT}`](?match={PARENT}) at step {STEP}: P2 played by "
                     "house\\:heuristic from there."]
    # a long study's list stops at MAX_BRANCHES_SHOWN and says how many more there are
    assert branch_lines({**links, "more": 3}, "en", PARENT)[-1] == \
        f"- … and 3 more (`python -m space_app verify {PARENT}` lists them all)"
    with pytest.raises(ApiError, match="match not found"):
        api.branch_links("../etc")
    api.store.close()


@pytest.mark.parametrize(("argv", "message"), [
    (["--from-step", "0", "--seat", "P2"], "--from-step must be between 1 and "),
    (["--from-step", "999", "--seat", "P2"], "--from-step must be between 1 and "),
    (["--from-step", "3", "--seat", "P9"], "has no seat 'P9' (its seats: P1, P2, P3, P4)"),
    (["--from-step", "3", "--seat", "P2", "--samples", "0"], "--samples must be 1 or more, got 0"),
])
def test_bad_branch_requests_are_refused_by_name(db, capsys, argv, message):
    code, _, err = run_cli(capsys, "--db", str(db), "branch", PARENT, "--agent", "house:heuristic", *argv)
    assert code == 2 and message in err
    store = Store(db)
    assert store.branches_of(PARENT) == [] and store.count_matches() == 1
    store.close()


def test_a_branch_after_the_last_move_and_an_unknown_parent_are_refused(db, capsys):
    last = len([r for r in Store(db).get_match(PARENT)["events"] if r["kind"] != "call"])
    code, _, err = run_cli(capsys, "--db", str(db), "branch", PARENT, "--from-step", str(last), "--seat", "P2",
                           "--agent", "house:heuristic")
    assert code == 2 and f"asks no seat for a move after step {last}" in err
    code, _, err = run_cli(capsys, "--db", str(db), "branch", "nosuchmatch", "--from-step", "3", "--seat", "P2",
                           "--agent", "house:heuristic")
    assert code == 2 and "no match 'nosuchmatch'" in err


def test_a_salt_changes_house_agents_draws_and_no_salt_keeps_them():
    from space_app.core.seeding import salted

    key = "spy|P1|1|speak|lamp"
    plain = random.Random(int.from_bytes(__import__("hashlib").sha256(key.encode()).digest()[:8], "big")).random()
    assert seeded(key).random() == plain  # ordinary matches replay as before
    with salted("parent:10:P2:0"):
        one = seeded(key).random()
    with salted("parent:10:P2:1"):
        other = seeded(key).random()
    assert len({plain, one, other}) == 3
    with salted("parent:10:P2:0"):
        assert seeded(key).random() == one  # each sample is reproducible


def test_the_newcombe_interval_matches_the_published_example():
    # Newcombe (1998), Statistics in Medicine 17:873, table II example (56/70 - 48/80): 0.0524 to 0.3339
    found = rate_difference(56, 70, 48, 80)
    assert found is not None and round(found.value, 4) == 0.2
    assert (round(found.low, 4), round(found.high, 4)) == (0.0524, 0.3339)
    assert rate_difference(1, 1, 0, 0) is None


def test_branch_rows_are_plain_json(db, capsys):
    """The link rows the CLI and the replay read are plain values (no SQL types leak out)."""
    assert run_cli(capsys, "--db", str(db), "branch", PARENT, "--from-step", str(STEP), "--seat", "P2",
                   "--agent", "house:heuristic")[0] == 0
    store = Store(db)
    (row,) = store.branches_of(PARENT)
    assert json.loads(json.dumps(row)) == row
    assert re.fullmatch(r"[0-9a-f]{12}", row["match_id"])
    store.close()


@pytest.mark.browser
def test_the_watch_tab_links_a_match_and_its_branches(db, capsys):
    """In a real browser: the parent's replay lists its branch with where it diverges; the link
    opens the branch's replay, which says where it was branched from."""
    from browser_support import chromium_browser, running_arena
    from playwright.sync_api import expect

    assert run_cli(capsys, "--db", str(db), "branch", PARENT, "--from-step", str(STEP), "--seat", "P2",
                   "--agent", "house:heuristic")[0] == 0
    store = Store(db)
    (link,) = store.branches_of(PARENT)
    store.close()
    with running_arena(ArenaConfig(db=str(db), demo_matches=0)) as (_, url), chromium_browser() as browser:
        page = browser.new_page()
        page.set_default_timeout(60_000)
        expect.set_options(timeout=60_000)
        page.goto(f"{url}?match={PARENT}", wait_until="domcontentloaded")
        header = page.locator("#replay-header")
        expect(header).to_contain_text("Branches of this match (1):")
        expect(header).to_contain_text(f"{link['match_id']} from step {STEP}, P2: house:heuristic (agent, sample 0)")
        expect(header).to_contain_text(f"diverges at step {STEP + 1}")
        # the link is the branch's share link (Gradio opens Markdown links in a new tab: followed here)
        href = header.get_by_role("link", name=link["match_id"]).get_attribute("href")
        assert href == f"?match={link['match_id']}"
        page.goto(f"{url}{href}", wait_until="domcontentloaded")
        expect(page.locator("#replay-header")).to_contain_text(link["match_id"])
        expect(page.locator("#replay-header")).to_contain_text(
            f"Branched from {PARENT} at step {STEP}: P2 played by house:heuristic from there.")


def test_a_parent_whose_other_agents_cannot_be_called_again_is_refused(db, capsys):
    with sqlite3.connect(db) as conn:  # as if P1 had been an agent since removed from the arena
        conn.execute("UPDATE seats SET agent_id = 'gone-agent' WHERE match_id = ? AND seat = 'P1'", (PARENT,))
    code, _, err = run_cli(capsys, "--db", str(db), "branch", PARENT, "--from-step", str(STEP), "--seat", "P2",
                           "--agent", "house:heuristic")
    assert code == 2 and "seat P1's agent 'gone-agent' cannot be called again: " in err
    store = Store(db)
    assert store.branches_of(PARENT) == [] and store.count_matches() == 1
    store.close()


@pytest.mark.parametrize("game", ["avalon", "werewolf", "mystery"])
def test_every_game_branches_from_its_middle_and_verifies(tmp_path, capsys, game):
    """The branch point, the replayed prefix and the check are the kernel's: each game's house
    agents branch from half-way through a match, and `verify` finds each prefix the parent's."""
    db = tmp_path / "arena.db"
    arena = Arena(Store(db))
    parent_id = f"{game}parent"
    assert arena.run_sync(MatchPlan(game, arena.default_seats(game), 2, match_id=parent_id)).status == "finished"
    parent = arena.store.get_match(parent_id)
    arena.store.close()
    steps = len([r for r in parent["events"] if r["kind"] != "call"])
    seat = parent["seats"][0]
    code, out, _ = run_cli(capsys, "--db", str(db), "branch", parent_id, "--from-step", str(steps // 2),
                           "--seat", seat["seat"], "--agent", seat["agent_id"], "--samples", "1")
    assert code == 0, out
    assert re.search(r"effect of .+ points, \[.+\] \(95% Newcombe .+; n = 1 \+ 1\)", out), out
    code, out, _ = run_cli(capsys, "--db", str(db), "verify", "--all", "--verbose")
    assert code == 0 and "3 matches: 3 identical" in out
    assert out.count(f": branch of {parent_id} from step {steps // 2}: its first ") == 2
    assert out.count("are the parent's, byte for byte") == 2
