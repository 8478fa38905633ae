"""Fixed deals: Avalon's roles by seat and first leader, Who is the Spy's spy seat and word
pair, the murder mystery's character assignment. Each is a setting the game reads, refused
before the match starts when illegal (naming the problem), recorded with the match so that
`verify` replays it; `--deals FILE` plays a list of them, AvalonBench's preset files as
published (`tests/fixtures/deals/avalonbench-presets.json` has their shape, with extra keys)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError
from sqlalchemy import update

from space_app.cli import main as cli_main
from space_app.core import get_game
from space_app.deals import DealsError, read_deals
from space_app.games.avalon.events import Start
from space_app.games.avalon.rules import AvalonGame, AvalonSettings
from space_app.games.mystery.catalog import get_script
from space_app.games.spy.rules import SpyGame, SpySettings
from space_app.games.spy.words import load_builtin_pairs
from space_app.store import Store, matches

PRESETS = Path(__file__).resolve().parent / "fixtures" / "deals" / "avalonbench-presets.json"
FIVE = ["Assassin", "Servant", "Servant", "Merlin", "Minion"]
SEATS5 = [f"P{i}" for i in range(1, 6)]


# -- Avalon -------------------------------------------------------------------------------

def test_an_avalon_deal_fixes_every_seats_role_and_the_first_leader_whatever_the_seed():
    for seed in (0, 1, 7):
        game = AvalonGame(SEATS5, seed, AvalonSettings(players=5, deal={"roles": FIVE, "leader": 3}))
        assert game.roles == {"P1": "assassin", "P2": "servant", "P3": "servant", "P4": "merlin", "P5": "minion"}
        assert game.first_leader == "P4" and game.leader == "P4"
    assert get_game("avalon").deal_roles(5, 9, {"deal": {"roles": FIVE, "leader": 0}}) == [
        "assassin", "servant", "servant", "merlin", "minion"]


@pytest.mark.parametrize(("deal", "named"), [
    ({"roles": ["Assassin", "Servant", "Minion", "Merlin", "Minion"], "leader": 0}, "need 3 good and 2 evil"),
    ({"roles": ["Assassin", "Servant", "Servant", "Merlin"], "leader": 0}, "5 players need 5 roles, got 4"),
    ({"roles": FIVE, "leader": 5}, "the first leader 5 is outside the table (seats 0-4"),
    ({"roles": FIVE, "leader": -1}, "greater than or equal to 0"),
    ({"roles": ["Assassin", "Servant", "Servant", "Merlin", "Dragon"], "leader": 0}, "unknown role(s) ['dragon']"),
    ({"roles": ["Servant", "Servant", "Servant", "Minion", "Minion"], "leader": 0}, "exactly one Merlin"),
    ({"roles": FIVE, "leader": 0, "seat": 2}, "Extra inputs are not permitted"),
])
def test_an_illegal_avalon_deal_is_refused_naming_the_problem(deal, named):
    with pytest.raises(ValidationError) as err:
        AvalonSettings(players=5, deal=deal)
    assert named in str(err.value)


def test_an_avalon_deal_must_agree_with_the_roles_setting():
    roles = ["merlin", "servant", "servant", "assassin", "minion"]
    assert AvalonSettings(players=5, roles=roles, deal={"roles": FIVE, "leader": 0}).deal is not None
    with pytest.raises(ValidationError, match="not the set the 'roles' setting names"):
        AvalonSettings(players=5, roles=["merlin", "percival", "servant", "assassin", "morgana"],
                       deal={"roles": FIVE, "leader": 0})


def test_settings_without_a_deal_record_as_before_deals_existed():
    for settings in (AvalonSettings(players=5), SpySettings()):
        assert "deal" not in settings.model_dump(mode="json")
    game = get_game("mystery").make(5, 0, {"script": "larkspur"})
    assert "deal" not in game.settings.model_dump(mode="json")


def opening(game: AvalonGame) -> str:
    return next(e.text for e in game.events if isinstance(e, Start))


def test_each_avalon_variants_opening_states_its_rule_for_the_fifth_proposal():
    official = opening(AvalonGame(SEATS5, 0, AvalonSettings(players=5)))
    assert "Five rejected proposals in a row in one quest: evil wins." in official
    assert "approved automatically" not in official
    bench = opening(AvalonGame(SEATS5, 0, AvalonSettings(players=5, auto_approve_fifth=True)))
    assert "The fifth proposal of a quest is approved automatically, without a vote" in bench
    assert "rejected proposals" not in bench and "evil wins. Five" not in bench
    assert "goes ahead without a vote" in AvalonGame(SEATS5, 0, AvalonSettings(players=5,
                                                                            auto_approve_fifth=True)).rules_text()


# -- Who is the Spy ---------------------------------------------------------------------

def test_a_spy_deal_fixes_the_spy_seat_and_the_pair_recorded_as_the_pool_has_it():
    pair = load_builtin_pairs("en")[3]
    settings = SpySettings(deal={"spy": 4, "pair": f"{pair.civilian}/{pair.spy}"})
    assert settings.deal is not None and settings.deal.pair == pair  # difficulty and category from the pool
    for seed in (0, 5):
        game = SpyGame([f"P{i}" for i in range(1, 7)], seed, settings)
        assert game.spy == "P5" and game.pair == pair
        assert game.words["P5"] == pair.spy and game.words["P1"] == pair.civilian


@pytest.mark.parametrize(("deal", "extra", "named"), [
    ({"spy": 6, "pair": "PAIR"}, {}, "the spy's seat 6 is outside the table (seats 0-5"),
    ({"spy": 1, "pair": "harp/lyre"}, {}, "the word pair harp/lyre is not one of the built-in en pairs"),
    ({"spy": 1, "pair": "PAIR"}, {"pairs": [{"civilian": "harp", "spy": "lyre"}]},
     "is not one of the pairs given"),
    ({"spy": 1, "pair": "PAIR"}, {"pair": {"civilian": "harp", "spy": "lyre"}},
     "not the one the 'pair' setting fixes"),
    ({"spy": 1, "pair": "tea"}, {}, "a pair looks like civilian/spy"),
    ({"spy": 1}, {}, "deal.pair"),
])
def test_an_illegal_spy_deal_is_refused_naming_the_problem(deal, extra, named):
    pair = load_builtin_pairs("en")[0]
    deal = {**deal, **({"pair": f"{pair.civilian}/{pair.spy}"} if deal.get("pair") == "PAIR" else {})}
    with pytest.raises(ValidationError) as err:
        SpySettings(deal=deal, **extra)
    assert named in str(err.value)


# -- the murder mystery -------------------------------------------------------------------

def test_a_mystery_deal_assigns_the_characters_to_the_seats():
    names = [r.name for r in get_script("larkspur").roles]
    dealt = list(reversed(names))
    spec = get_game("mystery")
    settings = {"script": "larkspur", "deal": {"characters": dealt}}
    assert spec.facts.seat_names(5, settings) == dealt
    game = spec.make(5, 0, settings)
    assert game.seats == dealt
    murderer = next(r.name for r in get_script("larkspur").roles if r.murderer)
    assert game.roles[murderer] == "murderer" and sum(r == "murderer" for r in game.roles.values()) == 1
    assert spec.deal_roles(5, 0, settings) == [game.roles[s] for s in dealt]


@pytest.mark.parametrize(("change", "named"), [
    (lambda names: names[:-1] + ["Zed Unknown"], "unknown character(s) 'Zed Unknown'"),
    (lambda names: names[:-1] + [names[0]], "named twice"),
    (lambda names: names[:-1], "needs a seat; missing"),
])
def test_an_illegal_mystery_deal_is_refused_naming_the_problem(change, named):
    names = [r.name for r in get_script("larkspur").roles]
    with pytest.raises(ValidationError) as err:
        get_game("mystery").make(5, 0, {"script": "larkspur", "deal": {"characters": change(names)}})
    assert named in str(err.value)


# -- deals files ------------------------------------------------------------------------------

def test_avalonbench_presets_are_read_as_published_and_unknown_keys_reported_once():
    deals = read_deals(PRESETS, get_game("avalon"), {"auto_approve_fifth": True})
    published = json.loads(PRESETS.read_text(encoding="utf-8"))
    assert len(deals.settings) == len(published) and deals.players == {5}
    for dealt, preset in zip(deals.settings, published, strict=True):
        assert dealt["players"] == preset["num_players"] and dealt["auto_approve_fifth"] is True
        assert dealt["deal"] == {"roles": [r.lower() for r in preset["role_names"]], "leader": preset["quest_leader"]}
    assert deals.ignored == ("role_ids", "team_size") and "role_ids, team_size" in deals.note()


@pytest.mark.parametrize(("text", "named"), [
    ("{}", "must be a JSON list of deals"),
    ("[]", "must be a JSON list of deals"),
    ("[1]", "deal 1: must be an object"),
    ("not json", "not JSON"),
    ("[" * 5000 + "]" * 5000, "not JSON"),
    (json.dumps([{"num_players": 5, "quest_leader": 0, "role_names": FIVE},
                 {"num_players": 5, "quest_leader": 9, "role_names": FIVE}]),
     "deal 2: deal: the first leader 9 is outside the table"),
    (json.dumps([{"num_players": 5, "role_names": FIVE}]), "deal 1: an AvalonBench preset needs"),
    (json.dumps([{"num_players": 5, "quest_leader": "0", "role_names": FIVE}]), "quest_leader must be a whole number"),
    (json.dumps([{"num_players": 5, "quest_leader": 0, "role_names": FIVE[:-1] + ["Knight"]}]), "unknown role(s)"),
])
def test_a_bad_deals_file_is_refused_naming_the_deal(tmp_path, text, named):
    path = tmp_path / "deals.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DealsError) as err:
        read_deals(path, get_game("avalon"))
    assert named in str(err.value) and str(path) in str(err.value)


def test_a_spy_deals_file_in_the_arenas_own_shape(tmp_path):
    pair = load_builtin_pairs("en")[1]
    path = tmp_path / "spy.json"
    path.write_text(json.dumps([{"spy": 0, "pair": f"{pair.civilian}/{pair.spy}"},
                                {"spy": 5, "pair": {"civilian": pair.civilian, "spy": pair.spy}, "players": 6}]))
    deals = read_deals(path, get_game("spy"))
    assert [d["deal"]["spy"] for d in deals.settings] == [0, 5] and not deals.ignored
    assert deals.settings[0]["deal"]["pair"] == pair.model_dump(mode="json")


def stored_matches(db: Path) -> list[tuple[str, dict]]:
    store = Store(str(db))
    try:
        rows = [store.get_match(m["id"]) for m in store.list_matches(limit=100)]
    finally:
        store.close()
    return [(m["id"], m) for m in rows if m is not None]


def test_a_tournament_plays_the_presets_exact_deals_and_verify_replays_them(tmp_path, capsys):
    db = tmp_path / "arena.db"
    code = cli_main(["--db", str(db), "tournament", "avalon", "--deals", str(PRESETS), "--seats",
                     "house:avalon-rules", "house:avalon-random", "--settings", '{"auto_approve_fifth": true}'])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "keys not read (left out): role_ids, team_size" in captured.err
    published = json.loads(PRESETS.read_text(encoding="utf-8"))
    played = stored_matches(db)
    assert len(played) == 2 * len(published)  # every deal once per rotation of the two agents
    wanted = {(tuple(r.lower() for r in p["role_names"]), f"P{p['quest_leader'] + 1}") for p in published}
    seen = {(tuple(m["result"]["roles"][f"P{i}"] for i in range(1, 6)), m["result"]["first_leader"])
            for _, m in played}
    assert seen == wanted
    assert all(m["settings"]["auto_approve_fifth"] is True and m["settings"]["deal"] for _, m in played)
    assert cli_main(["--db", str(db), "verify", "--all"]) == 0
    assert f"{len(played)} matches: {len(played)} identical" in capsys.readouterr().out

    # a deal changed in the stored settings no longer replays the record
    victim, match = played[0]
    forged = dict(match["settings"])
    forged["deal"] = {**forged["deal"], "leader": (forged["deal"]["leader"] + 1) % 5}
    store = Store(str(db))
    with store.engine.begin() as conn:
        conn.execute(update(matches).where(matches.c.id == victim).values(settings=forged))
    store.close()
    assert cli_main(["--db", str(db), "verify", victim]) == 1
    out = capsys.readouterr().out
    assert "differs" in out and "setup event" in out


def test_match_plays_each_deal_and_a_bad_deal_stops_it_before_anything_is_stored(tmp_path, capsys):
    pair = load_builtin_pairs("en")[2]
    deals = tmp_path / "spy.json"
    deals.write_text(json.dumps([{"spy": 2, "pair": f"{pair.civilian}/{pair.spy}"}]))
    db = tmp_path / "arena.db"
    assert cli_main(["--db", str(db), "match", "spy", "--deals", str(deals)]) == 0
    out = capsys.readouterr().out
    assert "deal 1 of 1" in out and "1 of 1 deals played to the end" in out
    (_, match), = stored_matches(db)
    assert match["result"]["roles"]["P3"] == "spy" and match["settings"]["deal"]["spy"] == 2
    assert cli_main(["--db", str(db), "verify", "--all"]) == 0

    deals.write_text(json.dumps([{"spy": 2, "pair": f"{pair.civilian}/{pair.spy}"}, {"spy": 9, "pair": "x/y"}]))
    other = tmp_path / "other.db"
    assert cli_main(["--db", str(other), "match", "spy", "--deals", str(deals)]) == 2
    err = capsys.readouterr().err
    assert "deal 2" in err and "outside the table" in err
    assert not other.exists() or not stored_matches(other)
