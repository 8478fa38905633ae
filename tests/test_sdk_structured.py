"""What the SDK gives the coming games: labelled options parsed by label first, structured
data on history items, private information for a group, whole documents, images only for
the seats that may see them, and observations an older SDK can still read."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, Literal

import pytest
from pydantic import BaseModel, Field

from sdk import Agent, Document, Observation, RemoteAgent, parse_choice, serve
from sdk.prompts import render_fields
from space_app.core.events import Event, Private, SharedDocument
from space_app.core.game import Game, Outcome, Request

SEATS = ["P1", "P2", "P3"]
LOCATIONS = {"A": "the bedroom drawer", "B": "the kitchen cupboard", "C": "the garden shed"}


# -- labelled options ------------------------------------------------------------------------
@pytest.mark.parametrize("reply, expected", [
    ("I think a person would pick B", ["B"]),  # the article "a" is not option A
    ("Final answer: b", ["B"]),  # an explicit answer may use either case
    ("(C)", ["C"]),
    ("Answer: C) the garden shed", ["C"]),
    ("She would look in the kitchen cupboard first.", ["B"]),  # by the option's text
    ("B", ["B"]),
])
def test_labels_first_then_texts(reply, expected):
    choice = parse_choice(reply, list(LOCATIONS), texts=LOCATIONS)
    assert choice.ok and choice.picks == expected, choice


def test_an_answer_naming_two_option_texts_is_ambiguous():
    choice = parse_choice("either the bedroom drawer or the garden shed", list(LOCATIONS), texts=LOCATIONS)
    assert not choice.ok


def test_seat_names_still_match_whole_tokens_in_any_case():
    assert parse_choice("i vote p1", ["P1", "P10"]).picks == ["P1"]
    assert parse_choice("p10 is suspicious", ["P1", "P10"]).picks == ["P10"]


def test_option_texts_must_belong_to_options():
    with pytest.raises(ValueError, match="not options"):
        Observation(game="tom", verb="answer", you="P1", options=["A"], option_texts={"Z": "nowhere"})


def test_prompts_show_labels_with_their_texts():
    obs = Observation(game="tom", verb="answer", you="P1", options=list(LOCATIONS), option_texts=LOCATIONS,
                      instruction="Where will Mia look for the keys?")
    assert render_fields(obs)["options"] == "A) the bedroom drawer; B) the kitchen cupboard; C) the garden shed"


# -- a small pure game that uses every new kind of event ----------------------------------------------
class Settings(BaseModel):
    players: int = 3


class Plan(Event):
    kind: Literal["plan"] = "plan"
    members: list[str] = Field(default_factory=list)
    in_history: ClassVar[bool] = True


class PlanVote(Event):
    kind: Literal["vote"] = "vote"
    approve: bool
    in_history: ClassVar[bool] = True


class Heist(Game):
    """P1 and P3 are a team and know it; P1 holds a script and a clue with a picture; a
    public floor plan is shown to everyone; every player then votes on a plan."""

    id: ClassVar[str] = "heist"
    title: ClassVar[str] = "Heist"
    def __init__(self) -> None:
        super().__init__(SEATS, 0, Settings())
        self.emit(Private(text="You and P3 are the crew.", visible_to=("P1", "P3"), facts={"team": ["P1", "P3"]}))
        self.emit(Private(visible_to=("P1",), document=SharedDocument(
            title="Your script", kind="script", text="Line 1.\nLine 2.\n" * 50)))
        self.emit(Private(visible_to=("P1",), document=SharedDocument(
            title="Clue 1: the receipt", kind="clue", text="Paid 14:05, two coffees.", images=["clues/receipt.png"],
            data={"time": "14:05"})))
        self.emit(Plan(text="The floor plan of the bank.", images=["maps/bank.png"], members=["P1", "P2"]))
        self.emit(PlanVote(text="P2 approves the plan.", actor="P2", approve=True))
        self.asked: list[Observation] = []

    @property
    def over(self) -> bool:
        return len(self.asked) >= len(SEATS)

    def pending(self) -> list[Request]:
        if self.over:
            return []
        requests = []
        for seat in SEATS:
            obs = self.observe(seat, "vote", phase="plan", instruction="Approve the plan?",
                               options=["approve", "reject"])
            self.asked.append(obs)
            requests.append(Request(seat, obs))
        return requests

    def submit(self, outcomes: Iterable[Outcome]) -> None:
        pass

    def result(self) -> dict[str, Any]:
        return {"scores": dict.fromkeys(SEATS, 0.0), "winner": "none", "roles": dict.fromkeys(SEATS, "robber")}


@pytest.fixture
def views() -> dict[str, Observation]:
    return {r.seat: r.observation for r in Heist().pending()}


def test_history_items_carry_structured_data_and_their_images(views):
    plan = next(h for h in views["P2"].history if h.kind == "plan")
    assert plan.data == {"members": ["P1", "P2"]} and plan.images == ["maps/bank.png"]
    vote = next(h for h in views["P2"].history if h.kind == "vote")
    assert vote.data == {"approve": True}


def test_a_group_secret_reaches_the_group_only(views):
    for seat in ("P1", "P3"):
        assert views[seat].private.facts["team"] == ["P1", "P3"]
        assert "crew" in views[seat].private.text
    assert views["P1"].private.shared_with == ["P3"] and views["P3"].private.shared_with == ["P1"]
    outsider = views["P2"].model_dump_json()
    assert "crew" not in outsider and "team" not in views["P2"].private.facts


def test_documents_stay_whole_and_separate(views):
    docs = views["P1"].private.documents
    assert [d.kind for d in docs] == ["script", "clue"]
    assert docs[0].text == "Line 1.\nLine 2.\n" * 50 and docs[0].shared_with == []
    assert docs[1].data == {"time": "14:05"} and docs[1].images == ["clues/receipt.png"]
    assert views["P3"].private.documents == [] and views["P2"].private.documents == []


def test_images_reach_only_the_seats_that_may_see_them(views):
    assert views["P1"].images == ["clues/receipt.png", "maps/bank.png"]
    for seat in ("P2", "P3"):
        assert views[seat].images == ["maps/bank.png"]
        assert "receipt" not in views[seat].model_dump_json()


def test_prompts_include_every_document(views):
    private = render_fields(views["P1"])["private"]
    assert "--- Your script ---" in private and "--- Clue 1: the receipt ---" in private
    assert "Paid 14:05" in private


# -- older agents still understand what they are sent ---------------------------------------------------
def test_an_older_sdk_gets_what_it_can_read(views):
    old = views["P1"].dump_for("0.1.0")
    assert "option_texts" not in old and set(old["private"]) == {"facts", "text"}
    assert "Paid 14:05" in old["private"]["text"] and "Line 2." in old["private"]["text"]
    assert all(set(h) == {"who", "kind", "text", "round"} for h in old["history"])
    assert views["P1"].dump_for("0.3.0") == views["P1"].model_dump(mode="json")
    before_rules = views["P1"].dump_for("0.2.0")  # 0.2.x knows structured fields, not the rules
    assert "rules" not in before_rules and "reply_format" not in before_rules
    assert before_rules == {k: v for k, v in views["P1"].model_dump(mode="json").items()
                            if k not in ("rules", "reply_format")}
    assert views["P1"].dump_for("not a version") == old
    labelled = Observation(game="tom", verb="answer", you="P1", options=list(LOCATIONS), option_texts=LOCATIONS,
                           instruction="Where will Mia look?")
    assert "B) the kitchen cupboard" in labelled.dump_for("0.1.0")["instruction"]


class Echo(Agent):
    """Answers with what it received, so the test sees the observation on the far side."""

    def vote(self, obs: Observation) -> str:
        return obs.options[0]

    def answer(self, obs: Observation) -> str:
        return f"{len(obs.private.documents)} documents, {len(obs.images)} images"

    def speak(self, obs: Observation) -> str:
        return "ok"

    def info(self) -> dict:
        return {**super().info(), "sdk_version": self.version}


@pytest.mark.parametrize("version, documents", [("0.3.0", 2), ("0.2.0", 2), ("0.1.0", 0)])
def test_served_agents_get_the_form_their_sdk_reads(launch, views, version, documents):
    echo = Echo("echo")
    echo.version = version  # type: ignore[attr-defined]
    remote = RemoteAgent(launch(serve(echo)), timeout=30)
    remote.prepare()
    asked = views["P1"].model_copy(update={"verb": "answer", "options": [], "option_texts": {}})
    assert remote.act(asked).text == f"{documents} documents, 2 images"
    remote.close()


def test_document_is_exported_from_the_sdk():
    assert Document(title="x").kind == "note"
