"""Each game says in one line why the winner of a finished match won (`Presentation.why_won`),
and the result table carries that line."""

from __future__ import annotations

import pytest

from space_app.cli import main as cli_main
from space_app.core import get_game
from space_app.safe_text import markdown_text
from space_app.store import Store
from space_app.ui.replay import result_markdown

EXPECTED = {  # game -> every phrasing its explanations may take
    "spy": ("was voted out in round", "was eliminated for a foul in round", "survived"),
    "avalon": ("proposals in a row were rejected", "quests played failed", "named Merlin", "not Merlin",
               "Merlin was not named"),
    "mystery": ("innocents named the murderer",),
}


@pytest.mark.parametrize("game_id", sorted(EXPECTED))
def test_every_finished_match_says_why_its_winner_won(tmp_path, game_id):
    spec = get_game(game_id)
    db = tmp_path / "t.db"
    games = "12" if game_id == "spy" else "3"
    assert cli_main(["--db", str(db), "tournament", game_id, "--games", games, "--seed", "5",
                     "--seats", *spec.house.demo]) == 0
    store = Store(str(db))
    try:
        found = [store.get_match(m["id"]) for m in store.list_matches(limit=20)]
    finally:
        store.close()
    finished = [m for m in found if m["status"] == "finished"]
    assert finished
    for match in finished:
        why = spec.presentation.explain_win(match)
        assert any(p in why for p in EXPECTED[game_id]), why
        assert markdown_text(why) in result_markdown(match, spec.presentation.view.result_columns, why=why)


def test_an_unfinished_or_unreadable_match_explains_nothing():
    spec = get_game("spy")
    assert spec.presentation.explain_win({"status": "running", "result": {}}) == ""
    assert spec.presentation.explain_win({"status": "finished", "result": {"roles": 3}}) == ""


def test_spy_names_how_the_spy_went_out_or_survived():
    why = get_game("spy").presentation.why_won
    out = {"status": "finished", "settings": {}, "events": [
        {"kind": "elimination", "actor": "P3", "data": {"reason": "vote"}}],
           "result": {"spy": "P3", "eliminated_round": {"P3": 2}, "scores": {}, "rounds_played": 2}}
    assert why(out) == "The spy P3 was voted out in round 2."
    last_two = {"status": "finished", "settings": {"min_survivors": 3}, "events": [],
                "result": {"spy": "P1", "eliminated_round": {"P2": 1, "P3": 2},
                           "scores": {"P1": 12, "P2": 0, "P3": 0, "P4": 0}, "rounds_played": 2}}
    assert why(last_two) == "The spy P1 survived until only 2 players were left."
