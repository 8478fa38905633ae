"""What a seat may read beside the game (its murder script, its role card) and the transcript's
lines, in every game: each seat's documents hold its own script or role knowledge and nothing
another seat was told; every transcript line names its speaker and its kind in words, live
views and replays alike, with no quiz prompt or raw code in it."""

from __future__ import annotations

import re
from html import unescape

import pytest

from space_app.core import GAMES, get_game
from space_app.core.documents import seat_view
from space_app.core.events import Private
from space_app.service import Arena, MatchPlan
from space_app.store import Store
from space_app.ui.documents import documents_html
from space_app.ui.replay import transcript_html, visible


def documents_of(game, seat: str, language: str = "en") -> list:
    spec = get_game(game.id)
    return spec.presentation.seat_documents(seat_view(game.events, seat, language))


def others_secrets(events, seat: str) -> list[str]:
    """Every private text and document another seat was told and this one was not (two minions
    are told the same words: those are its own too)."""
    out, own = [], set()
    for e in events:
        if isinstance(e, Private) and e.visible_to:
            told = [e.text, e.document.text if e.document is not None else ""]
            if seat in e.visible_to:
                own.update(told)
            else:
                out.extend(told)
    return [t for t in out if t and t not in own]


@pytest.mark.parametrize(("players", "seed", "language"), [(4, 1, "en"), (5, 3, "en"), (4, 2, "zh")])
def test_a_character_reads_its_whole_script_and_no_other(players, seed, language):
    game = get_game("mystery").make(players, seed, {"language": language})
    scripts = {role.name: role.script for role in game.script.roles}
    for seat in game.seats:
        docs = documents_of(game, seat, language)
        text = "\n".join(d.text for d in docs)
        assert scripts[seat] in [d.text for d in docs]  # whole, as one document
        assert any(d.kind == "script" for d in docs) and any(d.kind == "role" for d in docs)
        assert docs[0].title.endswith(seat)  # the character card first, named after the character
        for other, script in scripts.items():
            if other != seat:
                assert script not in text
        for secret in others_secrets(game.events, seat):
            assert secret not in text


@pytest.mark.parametrize("players", [5, 7, 10])
def test_an_avalon_role_card_says_what_the_role_knows(players):
    game = get_game("avalon").make(players, 1)
    roles = game.roles
    evil = [s for s in game.seats if game.sides[s] == "evil"]
    for seat in game.seats:
        docs = documents_of(game, seat)
        assert len(docs) == 1 and docs[0].kind == "role"
        card = docs[0].text
        named = set(re.findall(r"\bP\d+\b", card)) - {seat}
        role = roles[seat]
        if role == "merlin":
            seen = [s for s in evil if roles[s] != "mordred"]
            assert "Merlin" in docs[0].title and named == set(seen)
        elif role == "percival":
            assert named == {s for s in game.seats if roles[s] in ("merlin", "morgana")}
            assert "Morgana" in card
        elif game.sides[seat] == "good":
            assert named == set(), card  # a plain good seat knows no one
        elif role != "oberon":
            assert named == {s for s in evil if roles[s] != "oberon"} - {seat}
        for secret in others_secrets(game.events, seat):
            assert secret not in card


def play(tmp_path, game: str, players: int, seed: int, settings: dict | None = None):
    """A whole match between the game's house agents, stored in a real SQLite file."""
    store = Store(str(tmp_path / f"{game}.db"))
    arena = Arena(store)
    outcome = arena.run_sync(MatchPlan(game, arena.default_seats(game, players), seed, settings or {}))
    assert outcome.status == "finished", outcome
    match = store.get_match(outcome.match_id)
    return match, get_game(game).rules.events.parse_all(match["events"])


def test_a_werewolf_role_card_holds_the_role_and_what_it_learned_at_night(tmp_path):
    from space_app.games.werewolf.events import DoctorProtect, SeerCheck, WolfChoice

    match, events = play(tmp_path, "werewolf", 8, 4)
    spec = get_game("werewolf")
    roles = match["result"]["roles"]
    wolves = {s for s, r in roles.items() if r == "werewolf"}
    for seat, role in roles.items():
        [card] = spec.presentation.seat_documents(seat_view(events, seat))
        assert card.kind == "role" and spec.presentation.word_for(role, "en").lower() in card.title.lower()
        mine = [e.text for e in events if isinstance(e, (SeerCheck, DoctorProtect, WolfChoice))
                and e.visible_to and seat in e.visible_to]
        theirs = [e.text for e in events if isinstance(e, (SeerCheck, DoctorProtect))
                  and e.visible_to and seat not in e.visible_to]
        for line in mine:
            assert line in card.text
        for line in theirs:
            assert line not in card.text
        if role == "werewolf":
            assert set(re.findall(r"\bP\d+\b", card.text.split("\n")[0])) == wolves
        elif role in ("villager", "hunter"):
            assert not re.findall(r"\bP\d+\b", card.text), card.text  # knows no one
        if role == "seer":
            assert any(isinstance(e, SeerCheck) for e in events) and "learned at night" in card.text


def test_the_spy_word_is_read_through_the_plain_reading():
    game = get_game("spy").make(5, 2)
    words = {e.visible_to[0]: e.facts["word"] for e in game.events if isinstance(e, Private)}
    assert len(set(words.values())) == 2  # the civilians' word and the spy's
    for seat in game.seats:
        [card] = documents_of(game, seat)
        assert card.title == "What you were told" and words[seat] in card.text
        assert all(w not in card.text for w in set(words.values()) - {words[seat]})
    [card] = documents_of(game, game.seats[0], "zh")
    assert card.title == "你被告知的"


def test_the_panel_shows_a_seat_only_its_own_documents_and_spectators_a_hint():
    spec = get_game("mystery")
    game = spec.make(4, 5)
    first, second = game.seats[:2]
    scripts = {role.name: role.script for role in game.script.roles}
    html = documents_html(spec, game.events, first, "en")
    assert f"What {first} may read" in html and "da-doc-text" in html
    assert scripts[first][:200].replace("'", "&#x27;") in html
    assert scripts[second][:200].replace("'", "&#x27;") not in html
    hint = documents_html(spec, game.events, None, "en")
    assert "Choose a seat" in hint and not any(s[:80] in hint for s in scripts.values())
    # before anything is dealt, the seat's panel says so
    assert "Nothing private" in documents_html(spec, [], first, "en")


# -- every transcript line names its speaker and its kind ---------------------------------
LINE = re.compile(r"(?=<(?:div|details) class='da-ev )")
WHO = re.compile(r"<span class='da-who'><b>([^<]+)</b>")
KIND = re.compile(r"<span class='da-kind'>([^<]+)</span>")
CODE = re.compile(r"— [a-z]+_[a-z_]+\b")  # a reason that is a code, not words


def lines_of(html: str) -> list[str]:
    body = html.split("<div class='da-transcript-inner'>", 1)[1]
    return [chunk for chunk in LINE.split(body) if chunk.startswith(("<div class='da-ev", "<details class='da-ev"))]


@pytest.mark.parametrize(("game", "players", "seed"), [("spy", 5, 1), ("avalon", 6, 2), ("mystery", 4, 3),
                                                        ("werewolf", 7, 4)])
def test_every_transcript_line_names_its_speaker_and_kind(tmp_path, game, players, seed):
    from space_app.core.events import Call

    match, events = play(tmp_path, game, players, seed)
    names = {s["seat"]: s["agent_name"] for s in match["seats"]}
    seats = [s["seat"] for s in match["seats"]]
    spec = get_game(game)
    hidden = {e.text for e in events if e.style == "hidden" and not isinstance(e, Call) and e.text}
    for view in [None, *seats]:
        shown = visible(events, view)
        for fold in (True, False):
            html = transcript_html(shown, names, fold_setup=fold)
            lines = lines_of(html)
            drawn = [e for e in shown if e.style != "hidden"]
            assert len(lines) == len(drawn) > 0
            for line, e in zip(lines, drawn, strict=True):
                who, kind = WHO.search(line), KIND.search(line)
                assert who and who.group(1).strip(), line[:200]
                assert kind and kind.group(1).strip(), line[:200]
                assert unescape(who.group(1)) == ("Game" if e.said_by() == "host" else e.said_by())
                assert unescape(kind.group(1)) == e.word("en") == e.kind_words["en"]  # words, not a code
                if e.visible_to is not None:  # who saw a line not everyone saw
                    assert "class='da-audience'" in line and ("only" in line or "spectators" in line)
                assert not CODE.search(line), line[:300]
            for prompt in hidden:  # a quiz prompt is the seat's question, never a line
                assert prompt[:60].replace("'", "&#x27;") not in html
    if game == "avalon":
        assert hidden, "an Avalon match ends with quiz questions, kept out of the transcript"
        answers = [line for line in lines_of(transcript_html(visible(events, None), names))
                   if "da-quiz_answer" in line]
        assert answers and not any(re.search(r"the (summarise|guess|deduce) question", a) for a in answers)
    assert spec.presentation.seat_documents(seat_view(events, seats[0]))


def test_every_kind_a_game_shows_is_named_in_words_in_each_of_its_languages():
    for spec in GAMES.values():
        for name, kind in spec.rules.events.by_kind.items():
            if kind.style == "hidden":
                continue
            words = kind.kind_words
            assert words.get("en"), f"{spec.id}: kind {name!r} has no English words"
            for language in spec.rules.languages:
                if language != "en":
                    assert words.get(language), f"{spec.id}: kind {name!r} has no words in {language!r}"


def test_a_chinese_transcript_names_the_game_and_kinds_in_chinese(tmp_path):
    match, events = play(tmp_path, "spy", 4, 6, {"language": "zh"})
    html = transcript_html(visible(events, None), {s["seat"]: s["agent_name"] for s in match["seats"]}, language="zh")
    kinds = {m.group(1) for m in KIND.finditer(html)}
    assert {"发言", "投票"} <= kinds
    assert "<b>主持</b>" in html
