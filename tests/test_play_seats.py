"""The Play tab's seat handlers, called as the page calls them. A table redrawn while the
person was taking a seat (a resize, another game, another language) answers with the inputs
the page sent before that choice: it must not undo the seat still at the table, and a seat
taken from the old table that the new one lacks is given up, never left shown but unseated."""

from __future__ import annotations

from typing import Any

import gradio as gr
import pytest

from space_app.config import ArenaConfig
from space_app.core import get_game
from space_app.main import create_arena
from space_app.ui.play import MAX_SEATS, RANDOM_FILL, WATCH_ONLY, YOU


@pytest.fixture(scope="module")
def handlers(tmp_path_factory) -> dict[str, Any]:
    demo, _ = create_arena(ArenaConfig(db=str(tmp_path_factory.mktemp("play") / "a.db"), demo_matches=0))
    fns = demo.fns.values() if isinstance(demo.fns, dict) else demo.fns
    return {f.name: f.fn for f in fns if f.name in {"reshape", "take_seat", "on_game"}}


def _seats(n: int) -> list[str]:
    return [RANDOM_FILL] * n + [""] * (MAX_SEATS - n)


def test_a_resize_keeps_the_seat_still_at_the_table(handlers):
    spy = get_game("spy")
    players, my_seat, *seats = handlers["reshape"]("spy", 5, "en", None, "P1", *_seats(6))[:2 + MAX_SEATS]
    assert players["value"] == 5
    # no value sent: a seat taken on the page since this update was asked for stays taken
    assert "value" not in my_seat and [v for _, v in my_seat["choices"]] == [WATCH_ONLY, *spy.facts.seat_names(5)]
    assert seats[0]["value"] == YOU and seats[1]["value"] != YOU and seats[5] == {"__type__": "update",
                                                                                  "visible": False}
    # watching, the page's value is left alone too (the person may be taking a seat right now)
    assert "value" not in handlers["reshape"]("spy", 5, "en", None, WATCH_ONLY, *_seats(6))[1]


def test_a_seat_the_redrawn_table_lacks_goes_back_to_watching(handlers):
    my_seat = handlers["reshape"]("spy", 4, "en", None, "P6", *_seats(6))[1]
    assert my_seat["value"] == WATCH_ONLY
    # the seat taken on the page before a smaller table reached it: given up by its own update
    *seats, mine = handlers["take_seat"]("spy", 4, "en", "P6", None, *_seats(6))
    assert mine == {"__type__": "update", "value": WATCH_ONLY}
    assert YOU not in [s.get("value") for s in seats]


def test_taking_a_seat_marks_it_and_leaves_the_control_as_the_person_set_it(handlers):
    *seats, mine = handlers["take_seat"]("spy", 6, "en", "P2", None, *_seats(6))
    assert seats[1]["value"] == YOU and seats[0]["value"] != YOU
    assert mine == gr.skip()  # nothing sent back: the control already shows P2


def test_another_game_keeps_a_seat_name_it_shares_and_drops_one_it_lacks(handlers):
    avalon = get_game("avalon")
    shared = avalon.facts.seat_names(avalon.facts.default_players)[0]
    out = handlers["on_game"]("avalon", "en", shared, *_seats(6))
    assert "value" not in out[1] and out[2]["value"] == YOU
    mystery = get_game("mystery")  # its seats are the script's characters
    assert shared not in mystery.facts.seat_names(mystery.facts.default_players, {"language": "en"})
    assert handlers["on_game"]("mystery", "en", shared, *_seats(6))[1]["value"] == WATCH_ONLY
