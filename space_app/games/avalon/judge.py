"""Judging intention-guided statements: selection reasonableness and following score (1-5).

Two judges, always named in what they produce:

- the **heuristic judge** (offline, pure; what the leaderboard columns show):
  *reasonableness* is 1 + 4 × the mean, over the intentions followed, of
  ½ [it suits the speaker's role] + ½ [the situation it names holds] (an id that is not in
  the catalogue counts 0); *following* is 1 + 4 × the mean, over the intentions, of 1 when
  one of its key words is in the SPEAK, ½ when only in the THINK, else 0. No intention or no
  SPEAK: 1 for both. Key words are lexical cues, so this measures surface agreement, not
  understanding; so that cues alone score nothing, a SPEAK that is no plain statement about
  the game (`not_judged`: empty, written to the judge, a list of words, mostly the chosen
  intentions' key words, copied from their text, or off the topic) scores 1 on both, and
  such a THINK earns no ½.
- the **LLM judge**: `judge_match(match, llm_caller)` asks any model, with the prompt below,
  for both scores of every statement that carried intentions (the player's texts quoted as
  data, `core.quoting`). It calls a model, so it runs
  outside the pure metrics: a study or the CLI calls it on a stored match.

Both read a statement the same way (`intention_statements`): the speaker's role (from the
setup), its situation (from the public events before it), the intentions it followed in
the end (`modified`, else `intentions`), THINK and SPEAK.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...core.events import Event
from ...core.quoting import Quoter
from ...core.statements import not_a_statement
from .events import KINDS, AvalonSetup, Intentions, Silence, Statement
from .intentions import SITUATION_EVENTS, Catalogue, Situation, load_catalogue, selected_ids, situation_from

HEURISTIC = "heuristic"
LLM = "llm"

JUDGE_PROMPT = """You judge one statement by a player of The Resistance: Avalon who chose intentions before speaking.

Player: {seat}, role {role} ({side}).
The moment: quest {quest}, proposal {attempt}; {situation}.

{notice}

Intentions the player chose:
{intentions}
Private reasoning (THINK):
{think}
Public statement (SPEAK):
{speak}

Score two things from 1 (worst) to 5 (best):
- REASONABLENESS: do these intentions make sense for this role at this moment of the game?
- FOLLOWING: do THINK and SPEAK actually carry out these intentions?
Reply with exactly two lines:
REASONABLENESS: <1-5>
FOLLOWING: <1-5>"""


@dataclass(frozen=True)
class IntentionStatement:
    """One statement that carried intention notes, as the judges read it."""

    seat: str
    quest: int
    attempt: int
    role: str
    side: str
    situation: Situation
    chosen: tuple[str, ...]  # what the notes name (may hold ids outside the catalogue)
    ids: tuple[str, ...]  # the catalogue ids among them
    think: str
    speak: str
    errors: tuple[str, ...]


def _chosen(notes: dict[str, Any]) -> tuple[str, ...]:
    for key in ("modified", "intentions"):
        raw = notes.get(key)
        if isinstance(raw, list) and any(isinstance(x, str) for x in raw):
            return tuple(dict.fromkeys(str(x) for x in raw if isinstance(x, str)))[:10]
    return ()


def intention_statements(match: dict[str, Any], catalogue: Catalogue | None = None) -> list[IntentionStatement]:
    """Every statement whose notes take part in intention play (carry `intentions` or
    `modified`), in the order spoken."""
    catalogue = catalogue or load_catalogue()
    events = KINDS.parse_all(match["events"])
    setup = next((e for e in events if isinstance(e, AvalonSetup)), None)
    roles = setup.roles if setup else {}
    sides = setup.sides if setup else {}
    public: list[Event] = []
    waiting: dict[str, dict[str, Any]] = {}  # seat -> the notes of the statement it is making
    out: list[IntentionStatement] = []
    for e in events:
        actor = e.actor
        if isinstance(e, SITUATION_EVENTS):
            public.append(e)
        elif isinstance(e, Intentions):
            if "intentions" in e.notes or "modified" in e.notes:
                waiting[actor] = e.notes
        elif isinstance(e, (Statement, Silence)) and actor in waiting:
            notes = waiting.pop(actor)
            think = notes.get("think")
            errors = notes.get("errors")
            out.append(IntentionStatement(
                seat=actor, quest=e.quest, attempt=e.attempt,
                role=roles.get(actor, ""), side=sides.get(actor, ""), situation=situation_from(actor, public),
                chosen=_chosen(notes), ids=tuple(selected_ids(notes, catalogue)),
                think=think if isinstance(think, str) else "", speak=e.text if isinstance(e, Statement) else "",
                errors=tuple(str(x) for x in errors) if isinstance(errors, list) else ()))
    return out


# -- the heuristic judge -------------------------------------------------------------------------
# words of which a statement about the game holds at least one (matched as word beginnings)
TOPIC = ("quest", "team", "vote", "voting", "approv", "reject", "lead", "propos", "mission", "fail", "succe", "trust",
         "suspect", "suspicio", "evil", "good", "loyal", "merlin", "assassin", "percival", "morgana", "mordred",
         "oberon", "minion", "servant", "arthur", "side", "role", "card", "play", "table", "lie", "lying", "truth",
         "honest", "doubt", "pick", "chose", "choose", "round", "game", "read", "question", "explain", "agree",
         "plan", "accus", "blame", "record", "seat", "member", "sabotag", "spy", "spies", "win", "lose")


def _mentions(text: str, keyword: str) -> bool:
    return re.search(r"(?<![a-z0-9])" + re.escape(keyword), text) is not None


def not_judged(s: IntentionStatement, text: str, catalogue: Catalogue | None = None) -> str | None:
    """Why a THINK or SPEAK is no plain statement about the game (`core.statements`: empty, to
    the judge, a list, mostly the chosen intentions' key words, copied from their text, off
    the topic), or None when the judge scores it."""
    catalogue = catalogue or load_catalogue()
    chosen = [i for i in (catalogue.get(x) for x in s.chosen) if i is not None]
    return not_a_statement(text, keywords=[k for i in chosen for k in i.keywords], own=[i.text for i in chosen],
                           topic=TOPIC)


def heuristic_reasonableness(s: IntentionStatement, catalogue: Catalogue | None = None) -> float:
    catalogue = catalogue or load_catalogue()
    # intentions that no plain statement about the game carried took no part in play
    if not s.chosen or not_judged(s, s.speak, catalogue):
        return 1.0
    parts = []
    for ident in s.chosen:
        intention = catalogue.get(ident)
        parts.append(0.0 if intention is None else
                     0.5 * intention.suits(s.role) + 0.5 * intention.fits(s.situation))
    return 1.0 + 4.0 * sum(parts) / len(parts)


def heuristic_following(s: IntentionStatement, catalogue: Catalogue | None = None) -> float:
    catalogue = catalogue or load_catalogue()
    if not s.chosen or not_judged(s, s.speak, catalogue):
        return 1.0
    speak = s.speak.casefold()
    think = "" if not_judged(s, s.think, catalogue) else s.think.casefold()
    parts = []
    for ident in s.chosen:
        intention = catalogue.get(ident)
        words = intention.keywords if intention else ()
        if any(_mentions(speak, w) for w in words):
            parts.append(1.0)
        elif any(_mentions(think, w) for w in words):
            parts.append(0.5)
        else:
            parts.append(0.0)
    return 1.0 + 4.0 * sum(parts) / len(parts)


def heuristic_following_parts(s: IntentionStatement, catalogue: Catalogue | None = None) -> tuple[float, float]:
    """(THINK, SPEAK): the following score of each text on its own, 1 + 4 × the share of the
    intentions one of whose key words it holds (no intention, or a text `not_judged`: 1)."""
    catalogue = catalogue or load_catalogue()

    def score(text: str) -> float:
        if not s.chosen or not_judged(s, text, catalogue):
            return 1.0
        text = text.casefold()
        hits = []
        for ident in s.chosen:
            intention = catalogue.get(ident)
            hits.append(any(_mentions(text, w) for w in (intention.keywords if intention else ())))
        return 1.0 + 4.0 * sum(hits) / len(hits)

    return score(s.think), score(s.speak)


def heuristic_judge(s: IntentionStatement, catalogue: Catalogue | None = None) -> dict[str, Any]:
    return {"judge": HEURISTIC, "reasonableness": heuristic_reasonableness(s, catalogue),
            "following": heuristic_following(s, catalogue)}


# -- the LLM judge -------------------------------------------------------------------------------
def situation_text(s: Situation) -> str:
    parts = ["the speaker leads this proposal" if s.leader else "the speaker is not the leader",
             "is on the proposed team" if s.on_team else "is not on the proposed team",
             "a quest has failed" if s.failed else "no quest has failed",
             "the last quest succeeded" if s.last_success else ""]
    return ", ".join(p for p in parts if p)


def judge_prompt(s: IntentionStatement, catalogue: Catalogue | None = None, quoter: Quoter | None = None) -> str:
    """The judge's prompt; the player's texts (its intention list, THINK, SPEAK) are quoted as
    data by `quoter` (a fresh nonce when none is given)."""
    catalogue = catalogue or load_catalogue()
    quoter = quoter or Quoter()
    lines = [f"- {i}: {catalogue.get(i).text}" if catalogue.get(i) else f"- {i}: (not in the catalogue)"
             for i in s.chosen]
    return JUDGE_PROMPT.format(seat=s.seat, role=s.role or "unknown", side=s.side or "unknown", quest=s.quest,
                               attempt=s.attempt, situation=situation_text(s.situation), notice=quoter.notice,
                               intentions=quoter.quote("\n".join(lines), "intentions") if lines else "(none)",
                               think=quoter.quote(s.think[:1500], "think") if s.think.strip() else "(none)",
                               speak=quoter.quote(s.speak[:1000], "speak") if s.speak.strip() else "(silent)")


def read_scores(reply: str) -> tuple[int | None, int | None]:
    """(reasonableness, following) from a judge's reply; None where no 1-5 score is found."""
    def one(name: str) -> int | None:
        # the last one: the verdict comes after any words quoted back
        found = re.findall(rf"{name}[\s*_]*[:=\-][\s*]*([1-5])\b", reply, re.IGNORECASE)
        return int(found[-1]) if found else None
    return one("REASONABLENESS"), one("FOLLOWING")


def judge_match(match: dict[str, Any], llm_caller: Callable[[list[dict[str, Any]]], str],
                catalogue: Catalogue | None = None) -> list[dict[str, Any]]:
    """One row per statement with intentions: who, when, the intentions, the LLM judge's two
    scores (None where its reply could not be read, with `error`) and the heuristic judge's
    beside them for comparison. A failing caller is recorded per row, never raised."""
    catalogue = catalogue or load_catalogue()
    agents = {s["seat"]: s.get("agent_id", "") for s in match.get("seats", [])}
    rows = []
    for s in intention_statements(match, catalogue):
        row: dict[str, Any] = {"match": match.get("id"), "seat": s.seat, "agent": agents.get(s.seat, ""),
                               "role": s.role, "quest": s.quest, "attempt": s.attempt, "intentions": list(s.chosen),
                               "judge": LLM, "reasonableness": None, "following": None, "error": "",
                               "heuristic": heuristic_judge(s, catalogue)}
        quoter = Quoter()
        try:
            reply = llm_caller([{"role": "user", "content": judge_prompt(s, catalogue, quoter)}])
        except Exception as exc:  # noqa: BLE001 - a judge's failure is reported in its row
            row["error"] = f"{type(exc).__name__}: {exc}"[:300]
        else:
            row["reasonableness"], row["following"] = read_scores(quoter.unquote(str(reply)))
            if row["reasonableness"] is None or row["following"] is None:
                row["error"] = f"unreadable judge reply: {str(reply)[:200]}"
        rows.append(row)
    return rows


__all__ = ["HEURISTIC", "JUDGE_PROMPT", "LLM", "TOPIC", "IntentionStatement", "heuristic_following",
           "heuristic_following_parts", "heuristic_judge", "not_judged",
           "heuristic_reasonableness", "intention_statements", "judge_match", "judge_prompt", "read_scores",
           "situation_text"]
