"""The one observation type every game sends to every agent, for every verb."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Verb = Literal["speak", "vote", "answer"]
ABSTAIN = "abstain"


class HistoryItem(BaseModel):
    """One event the receiving seat was allowed to see (immutable: the arena hands the
    same item to every later observation of that seat)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    who: str = Field(description="Seat name of the actor, or 'host' for the game itself.")
    kind: str = Field(description="Event kind, e.g. statement, vote, elimination, foul, system.")
    text: str = Field(default="", description="What was said or what happened, as text.")
    round: int | None = Field(default=None, description="Round the event belongs to, if any.")


class PrivateInfo(BaseModel):
    """What only this seat knows: its word, role or script."""

    model_config = ConfigDict(extra="forbid")

    facts: dict[str, Any] = Field(default_factory=dict, description="Structured private facts.")
    text: str = Field(default="", description="The same facts rendered as text for a prompt.")


class Limits(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_chars: int = Field(default=400, ge=1, le=100_000, description="Replies are cut to this.")
    seconds: float = Field(default=10.0, gt=0, le=3600, description="Time allowed for the reply.")


class Observation(BaseModel):
    """Everything an agent may know when it is asked to act."""

    model_config = ConfigDict(extra="forbid")

    game: str = Field(description="Game id, e.g. 'spy', 'avalon', 'mystery', 'tom'.")
    phase: str = Field(default="", description="Game phase, e.g. 'describe', 'vote'.")
    verb: Verb = Field(description="Which agent method answers this observation.")
    you: str = Field(description="Your seat name.")
    private: PrivateInfo = Field(default_factory=PrivateInfo)
    history: list[HistoryItem] = Field(default_factory=list, max_length=5000)
    options: list[str] = Field(default_factory=list, description="Valid choices for a vote.")
    pick: int = Field(default=1, ge=1, description="How many options to pick (e.g. a team).")
    allow_abstain: bool = Field(default=False, description="Whether 'abstain' is a valid vote.")
    instruction: str = Field(default="", description="The natural-language ask.")
    limits: Limits = Field(default_factory=Limits)
    images: list[str] = Field(default_factory=list, description="Data URLs or file references.")
    language: Literal["en", "zh"] = "en"
    match_id: str = ""
    round: int | None = None
    seats: list[str] = Field(default_factory=list, description="All seat names, in seat order.")

    @model_validator(mode="after")
    def _pick_fits_options(self) -> Observation:
        if self.verb == "vote" and not self.options:
            raise ValueError("a vote needs at least one option")
        if self.options and self.pick > len(self.options):
            raise ValueError(f"pick={self.pick} exceeds the {len(self.options)} options")
        return self

    def history_text(self, last: int | None = None) -> str:
        items = self.history[-last:] if last else self.history
        lines = []
        for item in items:
            where = f"[round {item.round}] " if item.round is not None else ""
            lines.append(f"{where}{item.who} ({item.kind}): {item.text}")
        return "\n".join(lines)


def observation_schema() -> dict[str, Any]:
    return Observation.model_json_schema()


def observation_schema_json() -> str:
    return json.dumps(observation_schema(), indent=2, ensure_ascii=False)
