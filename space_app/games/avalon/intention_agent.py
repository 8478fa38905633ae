"""An intention-guided Avalon agent on any `llm_caller` (after the InterIntent study).

Before each discussion statement it makes two model calls:

1. *plan*: reason about every other player's likely role (first-order), select 2-3
   intentions from the catalogue (those suiting its role and the situation), and write a
   private THINK and a public SPEAK that follow them;
2. *review*: reason about how the others will read that SPEAK (second-order), keep or
   change the intentions, and refine THINK and SPEAK.

The statement carries private notes (`with_notes`): the intentions selected, the ones it
changed to (or []), THINK, both reasonings and the errors met. The arena records them
where only this seat and spectators see them. Replies are read by markers
(`INTENTIONS:`, `THINK:`, `SPEAK:` ...); whatever is missing or wrong is named in
`errors`, and the agent still speaks: the draft when the review fails, a plain
statement (one more call) when no SPEAK could be read at all. Votes and answers are
`LLMAgent`'s. The review is a fresh, short conversation (role, instruction, the draft and
the intentions on offer), so a small model is not made to reread the whole game twice.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sdk.deadline import time_left, turn
from sdk.errors import AgentError
from sdk.llm_agent import LLMAgent, LLMCaller
from sdk.memory import MatchMemory
from sdk.observation import Observation
from sdk.prompts import Message, render_fields
from sdk.usage import LLMText, Usage, usage_of, with_notes

from .events import KINDS
from .intentions import Catalogue, Intention, Situation, load_catalogue, situation_from

MARKERS = ("FIRST-ORDER", "SECOND-ORDER", "INTENTIONS", "THINK", "SPEAK")
# a marker opens a line, maybe bolded or numbered: "**THINK:**", "2. SPEAK -", "Intentions："
_MARKER = re.compile(
    r"^[ \t>*#\d.)-]*(FIRST[ _-]?ORDER|SECOND[ _-]?ORDER|INTENTIONS?|THINK|SPEAK)[ \t*]*[:：\-–][ \t*]*",
    re.IGNORECASE | re.MULTILINE)
_ID = re.compile(r"\b[Ii]\d{1,3}\b")
MAX_FIELD = 1200  # characters of one reasoning kept in the notes (the arena keeps 8000 in all)
MAX_ERRORS = 8
MIN_PICK, MAX_PICK = 2, 3

PLAN_TEMPLATE = """You are {you}. {private}

What happened so far:
{history}
{previous}
{instruction}

Intentions you may follow (id: intention):
{catalogue}

Plan your statement. Write four parts, each on a new line starting with its marker:
FIRST-ORDER: for each other player, the side or role you think they have and why (one short line each)
INTENTIONS: the ids of 2 or 3 intentions from the list, comma-separated
THINK: your private reasoning on how to follow them (the others never see it)
SPEAK: your public statement, one or two sentences, at most {max_chars} characters"""

# a fresh, short conversation (a small model reads a long one slowly): the draft and the choices
REVIEW_TEMPLATE = """You are {you}. {private}
{instruction}

Your draft, which the others have not seen yet:
INTENTIONS:
{chosen}
THINK: {think}
SPEAK: {speak}

Read your SPEAK as the other players will, each knowing only their own role and the public record. \
Would it give your role away, or make them trust or suspect you as you want? Keep your intentions or \
change them (2 or 3 ids from this list):
{catalogue}

Write four parts, each on a new line starting with its marker:
SECOND-ORDER: how the others will read your SPEAK
INTENTIONS: the ids you will follow now
THINK: your refined private reasoning
SPEAK: your refined public statement, at most {max_chars} characters"""

# when there is no time left for any model call: a neutral line rather than silence
FALLBACK_SPEECH = "I have no firm read yet; I will judge this team by how people vote."
MARGIN = 0.5  # seconds kept back from the turn for the arena's own handling
MIN_CALL = 3.0  # a model call is not started with less time than this left in the turn
PLAN_SHARE = 0.55  # of the turn's time left, what the plan may take (the review gets the rest)


@dataclass
class Plan:
    """One reply read by its markers, with what could not be read."""

    sections: dict[str, str]
    ids: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def get(self, marker: str) -> str:
        return self.sections.get(marker, "")


def _canonical(marker: str) -> str:
    word = re.sub(r"[ _-]", "", marker.upper())
    return {"FIRSTORDER": "FIRST-ORDER", "SECONDORDER": "SECOND-ORDER", "INTENTION": "INTENTIONS"}.get(word, word)


def sections_of(reply: str) -> dict[str, str]:
    """Marker -> its text (up to the next marker); a marker given twice keeps its first text."""
    found = list(_MARKER.finditer(reply))
    out: dict[str, str] = {}
    for n, m in enumerate(found):
        end = found[n + 1].start() if n + 1 < len(found) else len(reply)
        out.setdefault(_canonical(m.group(1)), reply[m.end():end].strip())
    return out


def clean_speech(text: str, limit: int) -> str:
    """A SPEAK section as one public line: no wrapping quotes or markdown, cut to the limit."""
    text = " ".join(text.replace("**", "").split()).strip().strip('"“”\'').strip()
    return text[:limit].strip()


def read_ids(text: str, allowed: dict[str, Intention], catalogue: Catalogue) -> tuple[list[str], list[str]]:
    """The intention ids named in an INTENTIONS section -> (usable ids, problems). Ids are
    usable when they are in the catalogue and among the ones offered (its role's)."""
    named: list[str] = []
    for token in _ID.findall(text):
        ident = token.upper()
        if ident not in named:
            named.append(ident)
    problems: list[str] = []
    unknown = [i for i in named if i not in catalogue]
    if unknown:
        problems.append(f"intentions not in the catalogue: {', '.join(unknown[:6])}")
    other = [i for i in named if i in catalogue and i not in allowed]
    if other:
        problems.append(f"intentions not offered for this role and moment: {', '.join(other[:6])}")
    ids = [i for i in named if i in allowed]
    if not named:
        problems.append("no intention ids")
    elif len(ids) > MAX_PICK:
        problems.append(f"{len(ids)} intentions selected, the first {MAX_PICK} kept")
        ids = ids[:MAX_PICK]
    elif ids and len(ids) < MIN_PICK:
        problems.append(f"only {len(ids)} intention selected")
    return ids, problems


def situation_of(obs: Observation) -> Situation:
    return situation_from(obs.you, (KINDS.from_history(h) for h in obs.history))


def _cut(text: str) -> str:
    return text if len(text) <= MAX_FIELD else text[: MAX_FIELD - 1] + "…"


@contextmanager
def _within(seconds: float | None) -> Iterator[None]:
    """A shorter deadline for one model call inside the turn (none outside a turn)."""
    if seconds is None:
        yield
    else:
        with turn(seconds):
            yield


def _left() -> float | None:
    left = time_left()
    return None if left is None else left - MARGIN


class AvalonIntentionAgent(LLMAgent):
    """Avalon with intention-guided discussion; see the module docstring for the pipeline.

    `max_offered` caps the intentions listed in a prompt (spread over the categories) and
    `max_history` the history items, for small models that read long prompts slowly. Inside
    a turn with a time limit the plan may take PLAN_SHARE of the time left and the review the
    rest; a review with no time left is skipped (and named in `errors`)."""

    games = ("avalon",)

    def __init__(self, llm_caller: LLMCaller, name: str = "avalon-intention", *,
                 catalogue: Catalogue | None = None, max_offered: int | None = None, description: str = "",
                 **kwargs: Any) -> None:
        super().__init__(llm_caller, name, description=description or
                         "Avalon agent that selects intentions from a catalogue, thinks, speaks, "
                         "then rereads its speech as the others will and refines it.", **kwargs)
        self.catalogue = catalogue or load_catalogue()
        self.max_offered = max_offered
        self.memory = MatchMemory()  # the previous THINK per match and seat: continuity across rounds

    # -- prompts ---------------------------------------------------------------------------
    def offered(self, obs: Observation) -> list[Intention]:
        """The intentions offered: its role's that fit the moment (its role's, if none fit),
        at most `max_offered`, taken in turn from each category (starting at a category that
        moves with the round, so a short list still varies)."""
        role = str(obs.private.facts.get("role") or "")
        fitting = self.catalogue.for_role(role, situation_of(obs)) or self.catalogue.for_role(role)
        if self.max_offered is None or len(fitting) <= self.max_offered:
            return fitting
        cats = [c for c in self.catalogue.categories if any(i.category == c for i in fitting)]
        shift = (obs.round or 1) % len(cats)
        queues = [[i for i in fitting if i.category == c] for c in cats[shift:] + cats[:shift]]
        picked: list[Intention] = []
        while len(picked) < self.max_offered:
            for queue in queues:
                if queue and len(picked) < self.max_offered:
                    picked.append(queue.pop(0))
        return sorted(picked, key=fitting.index)

    def _system(self, obs: Observation) -> Message:
        # the game's own rules text, unless the author gave a system prompt for this game
        return {"role": "system", "content": self.system_prompts.get(obs.game) or obs.rules}

    def plan_messages(self, obs: Observation, offered: list[Intention]) -> list[Message]:
        fields = render_fields(obs, self.max_history)
        previous = self.memory.get(obs.match_id).get(obs.you, "") if obs.match_id else ""
        user = PLAN_TEMPLATE.format(
            you=fields["you"], private=fields["private"], history=fields["history"],
            previous=f"\nYour private thoughts last time: {previous}\n" if previous else "",
            instruction=fields["instruction"], max_chars=fields["max_chars"],
            catalogue="\n".join(i.label() for i in offered))
        return [self._system(obs), {"role": "user", "content": user}]

    def review_messages(self, obs: Observation, offered: list[Intention], draft: Plan) -> list[Message]:
        chosen = [self.catalogue.by_id[i].label() for i in draft.ids] or ["(none could be read)"]
        user = REVIEW_TEMPLATE.format(
            you=obs.you, private=obs.private_text(), instruction=obs.instruction, chosen="\n".join(chosen),
            think=draft.get("THINK") or "(none)", speak=draft.get("SPEAK") or "(none)",
            catalogue="\n".join(i.label() for i in offered), max_chars=obs.limits.max_chars)
        return [self._system(obs), {"role": "user", "content": user}]

    # -- the pipeline ----------------------------------------------------------------------
    def _read(self, reply: str, allowed: dict[str, Intention], stage: str, needs: tuple[str, ...]) -> Plan:
        plan = Plan(sections_of(reply))
        if not plan.sections:
            plan.errors.append(f"{stage}: no markers in the reply")
        else:
            missing = [m for m in needs if not plan.get(m)]
            if missing:
                plan.errors.append(f"{stage}: missing {', '.join(missing)}")
        if plan.get("INTENTIONS"):
            plan.ids, problems = read_ids(plan.get("INTENTIONS"), allowed, self.catalogue)
            plan.errors += [f"{stage}: {p}" for p in problems]
        return plan

    def speak(self, obs: Observation) -> str:
        if obs.phase != "discuss":  # the evil conference and anything else: a plain statement
            return super().speak(obs)
        limit = obs.limits.max_chars
        offered = self.offered(obs)
        allowed = {i.id: i for i in offered}
        errors: list[str] = []
        usage: Usage | None = None

        def add(reply: str) -> None:
            nonlocal usage
            got = usage_of(reply)
            usage = got if usage is None else usage + got

        left = _left()
        try:
            with _within(None if left is None else max(MIN_CALL, left * PLAN_SHARE)):
                first = self._call(self.plan_messages(obs, offered))
        except AgentError as exc:
            errors.append(f"plan: the model failed ({exc.message[:160]})")
            return self._plain(obs, errors, usage)
        add(first)
        draft = self._read(first, allowed, "plan", ("FIRST-ORDER", "INTENTIONS", "THINK", "SPEAK"))
        errors += draft.errors
        think, speech = draft.get("THINK"), clean_speech(draft.get("SPEAK"), limit)
        second_order, modified = "", []
        left = _left()
        if left is not None and left < MIN_CALL:
            errors.append("review: skipped, the turn's time was nearly up")
        else:
            try:
                with _within(left):
                    second = self._call(self.review_messages(obs, offered, draft))
            except AgentError as exc:
                errors.append(f"review: the model failed ({exc.message[:160]}); the draft stands")
            else:
                add(second)
                final = self._read(second, allowed, "review", ("SECOND-ORDER", "INTENTIONS", "THINK", "SPEAK"))
                errors += final.errors
                second_order = final.get("SECOND-ORDER")
                if final.ids and set(final.ids) != set(draft.ids):
                    modified = final.ids
                think = final.get("THINK") or think
                speech = clean_speech(final.get("SPEAK"), limit) or speech
        if not speech:
            errors.append("no SPEAK could be read; a plain statement was made instead")
            return self._plain(obs, errors, usage, draft.ids, modified, think, draft.get("FIRST-ORDER"),
                               second_order)
        if obs.match_id and think:
            self.memory.get(obs.match_id)[obs.you] = think[:300]
        return with_notes(LLMText(speech, usage), self._notes(draft.ids, modified, think, draft.get("FIRST-ORDER"),
                                                              second_order, errors))

    def _plain(self, obs: Observation, errors: list[str], usage: Usage | None, ids: list[str] | None = None,
               modified: list[str] | None = None, think: str = "", first_order: str = "",
               second_order: str = "") -> str:
        """The fallback: LLMAgent's own statement (a neutral line when the turn has no time
        left for it), still with notes saying what went wrong. A model that fails here too
        is the arena's to record (the turn's error)."""
        notes = self._notes(ids or [], modified or [], think, first_order, second_order, errors)
        left = _left()
        if left is not None and left < MIN_CALL:
            notes["errors"] = [*notes["errors"], "no time left for a plain statement: a neutral line instead"]
            return with_notes(LLMText(FALLBACK_SPEECH[: obs.limits.max_chars], usage), notes)
        text = super().speak(obs)
        total = usage + usage_of(text) if usage is not None else usage_of(text)
        return with_notes(LLMText(str(text), total), notes)

    def _notes(self, ids: list[str], modified: list[str], think: str, first_order: str, second_order: str,
               errors: list[str]) -> dict[str, Any]:
        notes: dict[str, Any] = {
            "intentions": ids, "modified": modified, "think": _cut(think), "first_order": _cut(first_order),
            "second_order": _cut(second_order), "errors": [e[:240] for e in errors[:MAX_ERRORS]],
            "catalogue": self.catalogue.version}
        # the arena drops notes over 8000 characters of JSON: shrink the reasonings first
        for _ in range(12):
            if len(json.dumps(notes, ensure_ascii=False)) <= 7500:
                break
            for key in ("second_order", "first_order", "think"):
                notes[key] = notes[key][: len(notes[key]) // 2]
        return notes


__all__ = ["AvalonIntentionAgent", "Plan", "clean_speech", "read_ids", "sections_of", "situation_of"]
