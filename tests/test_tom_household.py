"""The household ToM suite: deterministic, shipped byte-for-byte, well-formed, balanced, and
every answer re-derived here from the simulated events alone.

The checker below replays each episode's primitive events from the initial placements with
its own copy of the witnessing rules (who is in the room sees it), then applies the stated
behaviour rules to find which options can hold. It never reads the generator's answer,
truth record or consistency code; it only compares its own answer with the item's at the end.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from space_app.suites.tom_household import (
    FAMILIES,
    Episode,
    generate_episodes,
    generate_suite,
    serialise,
    to_item,
    write_suite,
)
from space_app.suites.tom_household.__main__ import main as cli_main

DATA = Path(__file__).resolve().parents[1] / "space_app" / "suites" / "data" / "tom_household.jsonl"
PER_TYPE = 200
GOALS = ("help", "hinder", "independent")
KEYS = {"id", "suite", "context", "images", "question", "options", "answer", "types", "tags"}


@pytest.fixture(scope="module")
def episodes() -> list[Episode]:
    return generate_episodes(0, PER_TYPE)


@pytest.fixture(scope="module")
def items(episodes: list[Episode]) -> list[dict]:
    return [to_item(ep) for ep in episodes]


# -- determinism and the shipped file ---------------------------------------------------------


def test_same_seed_same_items_other_seed_different() -> None:
    first = generate_suite(seed=3, per_type=12)
    assert first == generate_suite(seed=3, per_type=12)
    assert serialise(first) == serialise(generate_suite(seed=3, per_type=12))
    other = generate_suite(seed=4, per_type=12)
    assert [i["context"] for i in other] != [i["context"] for i in first]


def test_shipped_file_is_a_fresh_seed_zero_suite(items: list[dict]) -> None:
    assert DATA.read_bytes() == serialise(items).encode("utf-8")
    assert items == generate_suite(0, PER_TYPE)


def test_writer_and_cli_write_the_same_bytes(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert write_suite(a, seed=7, per_type=5) == 15
    assert cli_main(["--out", str(b), "--seed", "7", "--per-type", "5"]) == 0
    assert a.read_bytes() == b.read_bytes() == serialise(generate_suite(7, 5)).encode("utf-8")
    lines = a.read_text(encoding="utf-8").split("\n")
    assert lines[-1] == "" and all(json.loads(line) for line in lines[:-1])


# -- form --------------------------------------------------------------------------------------


def test_counts_per_type(items: list[dict]) -> None:
    counts = Counter(i["types"][0] for i in items)
    assert set(counts) == set(FAMILIES)
    assert all(n >= 200 for n in counts.values())


def test_every_item_is_valid(items: list[dict]) -> None:
    assert len({i["id"] for i in items}) == len(items)
    assert len({i["tags"]["episode"] for i in items}) == len(items)
    for item in items:
        assert set(item) == KEYS
        assert item["suite"] == "tom-household"
        assert item["images"] == []
        assert item["types"] in ([f] for f in FAMILIES)
        assert item["id"].endswith("-" + item["types"][0])
        assert set(item["options"]) == {"A", "B", "C"}
        assert item["answer"] in item["options"]
        texts = [item["context"], item["question"], *item["options"].values()]
        assert all(isinstance(t, str) and t.strip() for t in texts)
        assert len(set(item["options"].values())) == 3
        assert "MOST" in item["question"] or "LEAST" in item["question"]
        tags = item["tags"]
        assert tags["phrasing"] in ("most", "least")
        assert tags["phrasing"].upper() in item["question"]
        assert tags["belief"] in ("true", "false")
        assert tags["social_goal"] in GOALS
        assert all(isinstance(v, str) for v in tags.values())


def test_options_are_of_one_form_and_similar_length(items: list[dict]) -> None:
    for item in items:
        lengths = [len(t) for t in item["options"].values()]
        assert max(lengths) <= 1.6 * min(lengths), item["options"]
        first_words = {t.split()[0] for t in item["options"].values()}
        assert len(first_words) == 1  # all three options are about the same person


# -- balance -----------------------------------------------------------------------------------


def test_balance_per_type(items: list[dict]) -> None:
    for family in FAMILIES:
        group = [i for i in items if i["types"] == [family]]
        n = len(group)
        letters = Counter(i["answer"] for i in group)
        assert all(0.28 * n <= letters[k] <= 0.39 * n for k in "ABC"), (family, letters)
        phrasing = Counter(i["tags"]["phrasing"] for i in group)
        assert all(0.4 * n <= phrasing[k] for k in ("most", "least")), (family, phrasing)
        goals = Counter(i["tags"]["social_goal"] for i in group)
        assert all(0.2 * n <= goals[g] for g in GOALS), (family, goals)
        beliefs = Counter(i["tags"]["belief"] for i in group)
        assert all(0.4 * n <= beliefs[b] for b in ("true", "false")), (family, beliefs)
    bog = [i for i in items if i["types"] == ["belief_of_goal"]]
    believed = Counter(i["tags"]["believed_goal"] for i in bog)
    assert all(0.25 * len(bog) <= believed[g] for g in GOALS), believed


# -- the independent checker -------------------------------------------------------------------


@dataclass
class Replay:
    """What the checker recomputes from the events."""

    true_location: str = ""
    speaker_belief: str | None = None
    listener_belief: str | None = None
    listener_model: str | None = None  # where the listener thinks the speaker believes it is
    act: str = ""
    said: str | None = None
    reaction: str | None = None
    unwitnessed: dict[str, int] = field(default_factory=dict)  # moves of the target a person missed
    false_seen: dict[str, bool] = field(default_factory=dict)  # a person held a false container belief


def replay(ep: Episode) -> Replay:
    s = ep.staged
    speaker, listener, target = s.speaker.name, s.listener.name, s.target
    names = (listener, speaker)
    room_of = {c.kind: c.room for c in s.house.containers}
    world = dict(s.initial)
    where: dict[str, str] = {}
    belief: dict[str, dict[str, str | None]] = {n: {} for n in names}
    model: dict[str, str | None] = {}  # listener's model of the speaker's belief about the target
    out = Replay(unwitnessed={n: 0 for n in names}, false_seen={n: False for n in names})

    def witness(here: list[str], obj: str, place: str | None) -> None:
        for n in here:
            belief[n][obj] = place
        if obj == target and listener in here and speaker in here:
            model["m"] = place

    for e in s.events:
        if e.kind in ("start", "walk"):
            where[e.actor] = e.room
            continue
        assert where[e.actor] == e.room
        if e.container is not None and e.kind in ("open", "grab", "put", "close"):
            assert room_of[e.container] == e.room
        here = [n for n in names if where.get(n) == e.room]
        if e.kind == "open":
            for obj, place in sorted(world.items()):
                if place == e.container:
                    witness(here, obj, place)
            for n in here:
                if belief[n].get(target) == e.container and world[target] != e.container:
                    belief[n][target] = None
            if listener in here and speaker in here and model.get("m") == e.container != world[target]:
                model["m"] = None
        elif e.kind in ("grab", "put"):
            assert e.obj is not None
            place = e.container if e.kind == "put" else "hand:" + e.actor
            world[e.obj] = place  # type: ignore[assignment]
            witness(here, e.obj, place)
            if e.obj == target:
                for n in names:
                    if n not in here:
                        out.unwitnessed[n] += 1
        elif e.kind == "say" and e.actor == speaker:
            out.act, out.said = e.act or "", e.container
            out.true_location = world[target]
            out.speaker_belief = belief[speaker].get(target)
            out.listener_belief = belief[listener].get(target)
            out.listener_model = model.get("m")
        elif e.kind == "react":
            out.reaction = e.act
        for n in names:
            held = belief[n].get(target)
            if held is not None and held in room_of and held != world[target]:
                out.false_seen[n] = True
                # a false belief needs a move of the target this person did not see
                assert out.unwitnessed[n] > 0, (ep.id, n)
    return out


def fits(goal: str, act: str, honest: bool) -> bool:
    """The speech rules, restated: helpers tell what they believe, hinderers point elsewhere,
    the indifferent never volunteer and, when asked, answer plainly or decline."""
    if goal == "help":
        return act in ("answer", "offer") and honest
    if goal == "hinder":
        return act in ("answer", "offer") and not honest
    return act == "decline" or (act == "answer" and honest)


def possible(ep: Episode, r: Replay) -> set[str]:
    """The values (places or goals) consistent with the story plus the stated condition."""
    q = ep.question
    assert r.speaker_belief is not None and r.speaker_belief in {c.kind for c in ep.staged.house.containers}
    honest = r.said == r.speaker_belief
    if q.family == "belief":
        kind, goal = q.condition or ("", "")
        assert kind == "goal" and fits(goal, r.act, honest)  # the condition is true of the story
        return {r.speaker_belief}
    if q.family == "social_goal":
        kind, place = q.condition or ("", "")
        assert kind == "belief" and place == r.speaker_belief and place in q.text
        return {g for g in GOALS if fits(g, r.act, honest)}
    assert q.condition is None
    if r.act == "decline":
        return {"independent"}
    if r.listener_belief == r.true_location and r.listener_model is not None:
        # she knows where it is and what the speaker last saw: she can check the directions
        return {g for g in GOALS if fits(g, r.act, r.said == r.listener_model)}
    if r.reaction == "avoid":
        return {"hinder"}
    assert r.reaction == "follow"
    return {g for g in GOALS if fits(g, r.act, True)}


def test_every_answer_rederived_from_the_events(episodes: list[Episode], items: list[dict]) -> None:
    for ep, item in zip(episodes, items, strict=True):
        r = replay(ep)
        values = possible(ep, r)
        fit = {
            letter: (any(v != c.value for v in values) if c.negated else c.value in values)
            for letter, c in ep.question.options.items()
        }
        want = item["tags"]["phrasing"] == "most"
        chosen = [letter for letter, ok in fit.items() if ok == want]
        assert len(chosen) == 1, (item["id"], values, fit)
        assert chosen[0] == item["answer"], item["id"]
        # each option's text names the value it is about
        for letter, claim in ep.question.options.items():
            if ep.question.family == "belief":
                assert f"the {claim.value}." in item["options"][letter]


# words that mark what an option says; negated readings are tried first ("not indifferent to" holds "indifferent to")
_SAYS = (
    (("help", True), ("not trying to help", "not out to help")),
    (("hinder", True), ("not trying to stop", "not out to keep")),
    (("independent", True), ("cared one way or the other", "not indifferent")),
    (("help", False), ("trying to help", "succeed in", "easier")),
    (("hinder", False), ("trying to stop", "fail at", "harder")),
    (("independent", False), ("did not care", "indifferent to", "no interest")),
)
_CONDITION = {"help": ("to help",), "hinder": ("to stop", "to keep"), "independent": ("did not care", "no stake")}


def _reading(text: str) -> tuple[str, bool] | None:
    return next((key for key, words in _SAYS if any(w in text for w in words)), None)


def test_texts_say_what_the_claims_say(episodes: list[Episode], items: list[dict]) -> None:
    for ep, item in zip(episodes, items, strict=True):
        q = ep.question
        for letter, claim in q.options.items():
            text = item["options"][letter]
            if q.family == "belief":
                assert text.endswith(f"the {claim.value}.")
                assert ("not in the" in text or "somewhere other than" in text) == claim.negated
            else:
                assert _reading(text) == (claim.value, claim.negated), text
        if q.condition and q.condition[0] == "goal":
            assert any(w in item["question"] for w in _CONDITION[q.condition[1]]), item["question"]


def test_story_states_what_the_checker_relies_on(episodes: list[Episode], items: list[dict]) -> None:
    for ep, item in zip(episodes, items, strict=True):
        r = replay(ep)
        context = item["context"]
        assert ep.staged.speaker.name in context and ep.staged.listener.name in context
        assert ep.staged.target in context
        if r.said is not None:
            assert r.said in context
        # the truth the tags report agrees with the replay
        speaker_right = r.speaker_belief == r.true_location
        assert item["tags"]["speaker_belief"] == ("true" if speaker_right else "false")
        if ep.question.family != "belief_of_goal":
            assert item["tags"]["belief"] == item["tags"]["speaker_belief"]
        # the speaker's real goal produced what they said
        assert fits(item["tags"]["social_goal"], r.act, r.said == r.speaker_belief)


def test_false_beliefs_come_from_unwitnessed_moves(episodes: list[Episode]) -> None:
    false_speakers = 0
    false_listeners = 0
    for ep in episodes:
        r = replay(ep)  # asserts: every false belief follows a move of the target that person missed
        if r.speaker_belief != r.true_location:
            false_speakers += 1
            assert r.unwitnessed[ep.staged.speaker.name] > 0
            # the speaker once saw the target where it no longer is
            assert r.speaker_belief in {e.container for e in ep.staged.events if e.kind == "open"}
        if r.false_seen[ep.staged.listener.name]:
            false_listeners += 1
    assert false_speakers >= 150 and false_listeners >= 50
