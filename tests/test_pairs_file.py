"""A user's own word-pair file (CSV or JSON): loaded into games, and every malformed file
or row refused with a message that names the file and the row."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from space_app.games.spy.rules import SpyGame, SpySettings
from space_app.games.spy.words import WordPair, WordPairError, load_builtin_pairs, load_pairs
from space_app.store import Store

REPO = Path(__file__).resolve().parents[1]
SEATS = [f"P{i}" for i in range(1, 7)]
GOOD_CSV = "civilian,spy,difficulty,category\nlighthouse,windmill,hard,place\nkettle,teapot,easy,object\n"


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_a_csv_file_loads_with_its_difficulty_and_category(tmp_path):
    pairs = load_pairs(write(tmp_path, "mine.csv", GOOD_CSV))
    assert pairs == [WordPair(civilian="lighthouse", spy="windmill", difficulty="hard", category="place"),
                     WordPair(civilian="kettle", spy="teapot", difficulty="easy", category="object")]


def test_a_json_file_loads_and_difficulty_defaults_to_medium(tmp_path):
    path = write(tmp_path, "mine.json", json.dumps([{"civilian": "茶", "spy": "咖啡"},
                                                    {"civilian": "violin", "spy": "cello", "difficulty": "hard"}]))
    pairs = load_pairs(path)
    assert [(p.civilian, p.spy, p.difficulty) for p in pairs] == [("茶", "咖啡", "medium"),
                                                                   ("violin", "cello", "hard")]


def test_a_csv_with_a_byte_order_mark_and_only_the_two_required_columns(tmp_path):
    path = write(tmp_path, "excel.csv", "\ufeffcivilian,spy\nmoon,sun\n".encode("utf-8"))
    assert load_pairs(path) == [WordPair(civilian="moon", spy="sun")]


@pytest.mark.parametrize(("name", "text", "where", "why"), [
    ("bad.csv", "civilian,spy\ntea,coffee\nmilk,\n", "row 3", "spy"),
    ("bad.csv", "civilian,spy\ntea,coffee\njuice,JUICE\n", "row 3", "must differ"),
    ("bad.csv", "civilian,spy\ntea,coffee\nsun,sunflower\n", "row 3", "contain"),
    ("bad.csv", "civilian,spy,difficulty\ntea,coffee,easy\nmilk,cream,impossible\n", "row 3", "difficulty"),
    ("bad.csv", "civilian,spy\ntea,coffee\nmilk,cream,extra\n", "row 3", "too many fields"),
    ("bad.csv", "first,second\ntea,coffee\n", "row 1", "header"),
    ("bad.csv", "civilian,spy\n" + "x" * 41 + ",coffee\n", "row 2", "40 characters"),
    ("bad.json", '[{"civilian": "tea", "spy": "coffee"}, ["milk", "cream"]]', "row 2", "object"),
    ("bad.json", '[{"civilian": "tea", "spy": "coffee"}, {"civilian": "milk"}]', "row 2", "spy"),
    ("bad.json", '{"civilian": "tea", "spy": "coffee"}', "", "JSON list"),
    ("bad.json", '[{"civilian": "tea", ', "", "not valid JSON"),
    ("empty.csv", "civilian,spy\n", "", "no pairs"),
    ("latin1.csv", "civilian,spy\ncaf\xe9,tea\n".encode("latin-1"), "", "UTF-8"),
])
def test_a_malformed_file_is_refused_naming_the_file_and_the_row(tmp_path, name, text, where, why):
    path = write(tmp_path, name, text)
    with pytest.raises(WordPairError) as caught:
        load_pairs(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ")
    assert where in message and why in message, message


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(WordPairError, match="no such file"):
        load_pairs(tmp_path / "nowhere.csv")


def test_games_draw_only_from_the_users_pairs(tmp_path):
    pairs = load_pairs(write(tmp_path, "mine.csv", GOOD_CSV))
    settings = SpySettings(pairs=pairs)
    drawn = {(SpyGame(list(SEATS), seed, settings).pair.civilian) for seed in range(30)}
    assert drawn == {"lighthouse", "kettle"}
    assert "pairs" not in settings.model_dump(mode="json")  # the pool is not stored with each match


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "PYTHONIOENCODING": "utf-8"}
    env.pop("ARENA_DB", None)
    return subprocess.run([sys.executable, "-m", "space_app", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)


def test_cli_plays_from_a_pairs_file(tmp_path):
    db = tmp_path / "p.db"
    path = write(tmp_path, "mine.csv", GOOD_CSV)
    proc = cli("--db", str(db), "tournament", "spy", "--games", "4", "--seats", "house:heuristic",
               "--pairs", str(path))
    assert proc.returncode == 0, proc.stderr[-2000:]
    store = Store(str(db))
    words = {frozenset(e["data"]["words"].values())
             for m in store.iter_matches("spy") for e in m["events"] if e["kind"] == "setup"}
    store.close()
    assert len(words) >= 1 and words <= {frozenset({"lighthouse", "windmill"}), frozenset({"kettle", "teapot"})}


def test_cli_refuses_a_malformed_pairs_file_before_any_match(tmp_path):
    db = tmp_path / "p.db"
    path = write(tmp_path, "bad.csv", "civilian,spy\ntea,coffee\nmilk,\n")
    proc = cli("--db", str(db), "match", "spy", "--seats", "house:random", "--pairs", str(path))
    assert proc.returncode != 0
    assert f"{path}: row 3" in proc.stderr and "Traceback" not in proc.stderr
    store = Store(str(db))
    assert store.list_matches() == []
    store.close()


# -- invisible and control characters ------------------------------------------------------
HIDDEN = [("\x00", "U+0000 (a control character)"),
          ("\x1b[31m", "U+001B (a control character)"),
          ("\u202e", "U+202E RIGHT-TO-LEFT OVERRIDE"),
          ("\u2066", "U+2066 LEFT-TO-RIGHT ISOLATE"),
          ("\u200b", "U+200B ZERO WIDTH SPACE"),
          ("\u200d", "U+200D ZERO WIDTH JOINER")]


@pytest.mark.parametrize(("hidden", "named"), HIDDEN)
def test_a_pairs_file_with_a_hidden_character_is_refused_naming_the_pair_and_the_character(tmp_path, hidden,
                                                                                         named):
    for path in (write(tmp_path, "hidden.csv", f"civilian,spy\ntea,coffee\nmilk,cr{hidden}eam\n"),
                 write(tmp_path, "hidden.json", json.dumps([{"civilian": "tea", "spy": "coffee"},
                                                            {"civilian": "milk", "spy": f"cr{hidden}eam"}]))):
        with pytest.raises(WordPairError) as caught:
            load_pairs(path)
        message = str(caught.value)
        where = "row 3" if path.suffix == ".csv" else "row 2"
        assert message.startswith(f"{path}: {where}: ") and named in message, message
        assert f"the pair 'milk' / {f'cr{hidden}eam'!r}: the spy word contains" in message, message
        assert hidden not in message  # the character itself is shown escaped, never raw


@pytest.mark.parametrize(("hidden", "named"), HIDDEN)
def test_a_visitors_word_pair_with_a_hidden_character_is_refused_before_any_match(tmp_path, hidden, named):
    from space_app.api import ApiError, ArenaAPI
    from space_app.config import ArenaConfig

    api = ArenaAPI(ArenaConfig(db=str(tmp_path / "a.db"), demo_matches=0))
    try:
        for settings in ({"pair": {"civilian": f"t{hidden}ea", "spy": "coffee"}},
                         {"pairs": [{"civilian": "kettle", "spy": "teapot"},
                                    {"civilian": f"t{hidden}ea", "spy": "coffee"}]}):
            with pytest.raises(ApiError) as caught:
                api.plan({"game": "spy", "seats": ["house:random"] * 6, "settings": settings}, owner="visitor")
            message = str(caught.value)
            assert f"the pair {f't{hidden}ea'!r} / 'coffee': the civilian word contains {named}" in message, message
            assert hidden not in message
        assert api.store.list_matches() == []
    finally:
        api.store.close()


def test_the_built_in_pairs_have_no_hidden_characters():
    for language in ("en", "zh"):
        assert load_builtin_pairs(language)  # every row passed the same check while loading
