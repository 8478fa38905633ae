"""The methodology page's column tables are generated from the game specs: they must match."""

from __future__ import annotations

from space_app.core import GAMES, get_game
from space_app.leaderboard import columns
from space_app.methodology import PAGE, columns_reference, main, render


def test_the_page_lists_every_column_of_every_game_as_the_code_defines_it():
    page = PAGE.read_text(encoding="utf-8")
    assert render(page) == page, "docs/methodology.md is out of date: run python -m space_app.methodology"
    assert main(["--check"]) == 0
    reference = columns_reference()
    for game in GAMES:
        for c in columns(get_game(game)):
            assert f"`{c.key}`" in reference


def test_a_stale_page_is_found_out(tmp_path, monkeypatch):
    head, marker, generated = PAGE.read_text(encoding="utf-8").partition("<!-- columns:start")
    stale = head + marker + generated.replace("`win_rate`", "`old_name`", 1)
    target = tmp_path / "methodology.md"
    target.write_text(stale, encoding="utf-8")
    monkeypatch.setattr("space_app.methodology.PAGE", target)
    assert main(["--check"]) == 1
    assert main([]) == 0 and main(["--check"]) == 0
