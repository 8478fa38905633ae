"""The Leaderboard tab shows what each game declares and nothing else: a game without a study
has no study chart, each game's plot over games is its own, another game's study never shows;
the compact board's rank range holds the rank; the head-to-head matrix comes from real matches
in a real SQLite store, over the same matches as the board."""

from __future__ import annotations

import asyncio

import gradio as gr
import pytest

from space_app.api import ArenaAPI
from space_app.config import ArenaConfig
from space_app.core import GAMES
from space_app.leaderboard import rank_ranges
from space_app.ui.i18n import Interface
from space_app.ui.leaderboard import build_leaderboard_tab, charted_study, headline_frame

DEFAULT = ["visitor", "human", "tournament"]


@pytest.fixture(scope="module")
def tab(tmp_path_factory):
    api = ArenaAPI(ArenaConfig(db=str(tmp_path_factory.mktemp("board") / "a.db"), demo_matches=0))

    async def play() -> None:
        for game in ("spy", "avalon"):
            house = list(GAMES[game].house.demo)
            n = GAMES[game].facts.default_players
            for seed in range(3):
                seats = [house[(i + seed) % len(house)] for i in range(n)]
                outcome = await api.run_match({"game": game, "seats": seats, "seed": seed})
                assert outcome["status"] == "finished", outcome

    asyncio.run(play())
    with gr.Blocks():
        language = gr.Radio(["en", "zh"], value="en")
        board = build_leaderboard_tab(api, Interface(), language)
    return api, board


def labels_in(block: gr.blocks.BlockContext) -> list[str]:
    """The labels of every component inside a group (nested ones too)."""
    out = []
    for child in block.children:
        if getattr(child, "label", None):
            out.append(str(child.label))
        if isinstance(child, gr.blocks.BlockContext):
            out += labels_in(child)
    return out


@pytest.mark.parametrize("game", sorted(GAMES))
def test_each_game_declares_its_own_widgets_and_no_other(tab, game):
    _, board = tab
    spec = GAMES[game]
    widgets = board["extras"][game]
    assert (widgets.history is not None) == (spec.metrics.history is not None)
    charted = charted_study(spec)
    assert (widgets.study is not None) == (charted is not None)
    assert (widgets.run_study is not None) == (charted is not None and bool(spec.house.demo))
    shown = " ".join(labels_in(widgets.group))
    for other in GAMES.values():
        other_study = charted_study(other)
        if other.id != game and other_study is not None and (charted is None or
                                                              other_study[1].title != charted[1].title):
            assert other_study[1].title not in shown, f"{game}'s group shows {other.id}'s study"
    if widgets.history is not None:
        assert spec.metrics.history_label.replace("_", " ").capitalize() in shown


@pytest.mark.parametrize("game", sorted(GAMES))
def test_loading_a_game_shows_its_group_alone(tab, game):
    api, board = tab
    out = board["load"](game, 0, DEFAULT, False, False, "en")
    assert len(out) == len(board["outputs"])
    for gid, widgets in board["extras"].items():
        update = out[board["outputs"].index(widgets.group)]
        assert update.visible is (gid == game)
        if widgets.history is not None and gid != game:
            assert out[board["outputs"].index(widgets.history)] is not None  # left alone (a skip)


@pytest.mark.parametrize("game", ["spy", "avalon"])
def test_the_board_and_its_head_to_head_matrix_from_real_matches(tab, game):
    api, board = tab
    out = board["load"](game, 0, DEFAULT, False, False, "en")
    outputs = board["outputs"]
    headline = out[outputs.index(next(o for o in outputs if getattr(o, "elem_id", "") == "leaderboard-board"))]
    frame = headline.value
    agents = set(GAMES[game].house.demo)
    assert {row[1] for row in frame["data"]} == agents
    matrix = out[outputs.index(next(o for o in outputs if getattr(o, "elem_id", "") == "head-to-head"))]
    assert list(matrix.columns)[1:] == list(matrix["agent"])
    assert set(matrix["agent"]) == agents
    filled = [cell for _, row in matrix.iterrows() for cell in row.iloc[1:] if cell not in ("", "·")]
    assert filled and all("[" in cell and "n=" in cell for cell in filled)
    doc = api.head_to_head(game)
    assert doc["matches"] == 3
    for c in doc["cells"]:
        assert c["win_rate_low"] <= c["win_rate"] <= c["win_rate_high"]
    # the role chart is drawn with error bars (a layer of rules from low to high)
    chart = out[outputs.index(next(o for o in outputs if getattr(o, "elem_id", "") == "role-plot"))]
    spec = chart.to_dict()
    assert any(layer.get("mark", {}).get("type") == "rule" or layer.get("mark") == "rule"
               for layer in spec["layer"])


def test_the_board_splits_by_agent_version_and_the_matrix_stays_by_agent(tab):
    api, board = tab
    out = board["load"]("spy", 0, DEFAULT, False, True, "en")
    outputs = board["outputs"]
    frame = out[outputs.index(next(o for o in outputs if getattr(o, "elem_id", "") == "leaderboard-board"))].value
    shown = [row[1] for row in frame["data"]]
    agents = set(GAMES["spy"].house.demo)
    # one row per agent and version: every house seat reported the same version here
    assert {name.split(" @ ")[0] for name in shown} == agents and all(" @ " in name for name in shown)
    matrix = out[outputs.index(next(o for o in outputs if getattr(o, "elem_id", "") == "head-to-head"))]
    assert set(matrix["agent"]) == agents
    doc = api.leaderboard_snapshot("spy", DEFAULT, by_version=True)
    assert doc["filter"]["by_version"] is True and {r["agent_id"] for r in doc["rows"]} == agents


def test_rank_ranges_hold_the_rank_and_follow_the_intervals():
    rows = [{"agent": "a", "rating_low": 20.0, "rating_high": 30.0},
            {"agent": "b", "rating_low": 18.0, "rating_high": 28.0},
            {"agent": "c", "rating_low": 5.0, "rating_high": 15.0},
            {"agent": "d", "rating_low": None, "rating_high": None}]
    assert rank_ranges(rows) == [(1, 1, 3), (2, 1, 3), (3, 3, 4), (4, 1, 4)]  # d could be anywhere
    shown = headline_frame([{**r, "rating": (r["rating_low"] or 0) + 5 if r["rating_low"] else None, "matches": 3}
                            for r in rows])
    assert list(shown.iloc[:, 0]) == ["1 [1–3]", "2 [1–3]", "3 [3–4]", "4 [1–4]"]
