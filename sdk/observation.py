"""The one observation type every game sends to every agent, for every verb."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Verb = Literal["speak", "vote", "answer"]
ABSTAIN = "abstain"


STRUCTURED_SINCE = (0, 2, 0)  # option texts, history data and images, documents, shared_with
RULES_SINCE = (0, 3, 0)  # the game's rules and reply format, any language code
OLD_LANGUAGES = ("en", "zh")  # what an agent before RULES_SINCE accepts as a language


def _version(text: str | None) -> tuple[int, ...]:
    """'0.2.0' -> (0, 2, 0); anything unreadable counts as the oldest version."""
    try:
        return tuple(int(part) for part in str(text).split(".")[:3])
    except ValueError:
        return (0,)


class HistoryItem(BaseModel):
    """One event the receiving seat was allowed to see (immutable: the arena hands the
    same item to every later observation of that seat)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    who: str = Field(description="Seat name of the actor, or 'host' for the game itself.")
    kind: str = Field(description="Event kind, e.g. statement, vote, elimination, foul, system.")
    text: str = Field(default="", description="What was said or what happened, as text.")
    round: int | None = Field(default=None, description="Round the event belongs to, if any.")
    data: dict[str, Any] = Field(default_factory=dict, description=(
        "The same event as structured data, e.g. a vote's target, a team proposal's members, "
        "a quest result's fail count (read-only)."))
    images: list[str] = Field(default_factory=list, description="Images shown with this event.")


class Document(BaseModel):
    """A private document kept whole: a character's script, one clue, a role card."""

    model_config = ConfigDict(extra="forbid")

    title: str = Field(default="", description="e.g. 'Your script', 'Clue 3: the receipt'.")
    kind: str = Field(default="note", description="e.g. script, clue, role, note.")
    text: str = Field(default="", description="The whole text.")
    shared_with: list[str] = Field(default_factory=list, description=(
        "Other seats that were shown the same document (empty: only you)."))
    images: list[str] = Field(default_factory=list, description="Images that belong to it.")
    data: dict[str, Any] = Field(default_factory=dict, description="Structured content, if any.")


class PrivateInfo(BaseModel):
    """What only this seat knows: its word, role or script."""

    model_config = ConfigDict(extra="forbid")

    facts: dict[str, Any] = Field(default_factory=dict, description="Structured private facts.")
    text: str = Field(default="", description="The same facts rendered as text for a prompt.")
    documents: list[Document] = Field(default_factory=list, description=(
        "Private documents, each whole (a script, each clue separately)."))
    shared_with: list[str] = Field(default_factory=list, description=(
        "Seats that know some of these facts too (e.g. your team), beyond you."))


class Limits(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_chars: int = Field(default=400, ge=1, le=100_000, description="Replies are cut to this.")
    seconds: float = Field(default=10.0, gt=0, le=3600, description="Time allowed for the reply.")


class Observation(BaseModel):
    """Everything an agent may know when it is asked to act."""

    model_config = ConfigDict(extra="forbid")

    game: str = Field(description="The game's id (or a question suite's); its rules come in `rules`.")
    phase: str = Field(default="", description="Game phase, e.g. 'describe', 'vote'.")
    verb: Verb = Field(description="Which agent method answers this observation.")
    you: str = Field(description="Your seat name.")
    private: PrivateInfo = Field(default_factory=PrivateInfo)
    history: list[HistoryItem] = Field(default_factory=list, max_length=5000)
    options: list[str] = Field(default_factory=list, description=(
        "Valid choices (their short labels: 'P3', 'A', 'approve'). Reply with a label."))
    option_texts: dict[str, str] = Field(default_factory=dict, description=(
        "What an option's label stands for, e.g. {'A': 'in the kitchen cupboard'}."))
    pick: int = Field(default=1, ge=1, description="How many options to pick (e.g. a team).")
    allow_abstain: bool = Field(default=False, description="Whether 'abstain' is a valid vote.")
    instruction: str = Field(default="", description="The natural-language ask.")
    limits: Limits = Field(default_factory=Limits)
    images: list[str] = Field(default_factory=list, description="Data URLs or file references.")
    language: str = Field(default="en", pattern=r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$", description=(
        "The game's language (a language code such as 'en' or 'zh'): reply in it."))
    rules: str = Field(default="", description=(
        "The game's rules as the game states them to its players, in the game's language: enough to "
        "play it from (a system prompt can be this text)."))
    reply_format: str = Field(default="", description=(
        "How the reply to this request is read, in the game's language (e.g. end with a "
        "'Final answer:' line naming an option)."))
    match_id: str = ""
    round: int | None = None
    seats: list[str] = Field(default_factory=list, description="All seat names, in seat order.")

    @model_validator(mode="after")
    def _pick_fits_options(self) -> Observation:
        if self.verb == "vote" and not self.options:
            raise ValueError("a vote needs at least one option")
        if self.options and self.pick > len(self.options):
            raise ValueError(f"pick={self.pick} exceeds the {len(self.options)} options")
        unknown = set(self.option_texts) - set(self.options)
        if unknown:
            raise ValueError(f"option_texts for labels that are not options: {sorted(unknown)}")
        return self

    def options_text(self) -> str:
        """The options as a prompt shows them: 'A) in the kitchen; B) ...' or 'P1, P2'."""
        if not self.option_texts:
            return ", ".join(self.options)
        return "; ".join(f"{o}) {self.option_texts[o]}" if o in self.option_texts else o for o in self.options)

    def private_text(self) -> str:
        """The private facts and every private document, as one text for a prompt."""
        parts = [self.private.text] if self.private.text else []
        for doc in self.private.documents:
            head = doc.title or doc.kind
            shared = f" (also known to {', '.join(doc.shared_with)})" if doc.shared_with else ""
            parts.append(f"--- {head}{shared} ---\n{doc.text}")
        return "\n\n".join(parts)

    def dump_for(self, sdk_version: str | None) -> dict[str, Any]:
        """This observation as JSON for an agent built with `sdk_version` of the SDK (from its
        `info`). Agents refuse fields they do not know, so agents before 0.3.0 are sent no rules
        or reply format, and for agents older than 0.2.0 (and an unknown version) option texts
        move into the instruction, documents into the private text, and the newer fields are
        left out."""
        data = self.model_dump(mode="json")
        version = _version(sdk_version)
        if version >= RULES_SINCE:
            return data
        # before 0.3.0 an observation had no rules or reply format (the agent's SDK carried a
        # prompt per game) and its language was English or Chinese
        data.pop("rules", None)
        data.pop("reply_format", None)
        if data["language"] not in OLD_LANGUAGES:
            data["language"] = "en"
        if version >= STRUCTURED_SINCE:
            return data
        if self.option_texts:
            data["instruction"] = f"{self.instruction}\nOptions: {self.options_text()}".strip()
        data.pop("option_texts", None)
        for item in data["history"]:
            item.pop("data", None)
            item.pop("images", None)
        data["private"] = {"facts": data["private"]["facts"], "text": self.private_text()}
        return data

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
