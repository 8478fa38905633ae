"""The Avalon intention quizzes as a question suite (`avalon-intentions`), in the suite file
format, built by code at run time and the same on every build.

Source: SEEDS 6-player games in which every seat is the SDK's intention agent on the
scripted model (`exemplar.py`), played in process. Every statement that carried intentions
gives two items, each one question with four labelled intentions:
- guessing: the quest's public record up to the statement and the speaker's SPEAK; which
  intention was that player following?
- summarisation: the speaker's own THINK and SPEAK; which intention were you following?
The gold option is one of the intentions the speaker followed in the end (the review's
selection); the three distractors come from categories it followed none of, so exactly one
option is right. Choices are drawn from a hash of the item's id, never a clock.

The statements are the scripted model's (a category line and key words; a THINK that names
the categories and other key words), so the suite checks that speech can be mapped back to intentions; it is not a
sample of natural play.
"""

from __future__ import annotations

import hashlib
import string
from functools import lru_cache
from typing import Any

from sdk import scripted_caller

from ...core.events import Event
from .events import KINDS, Intentions, Proposal, QuestResult, Revision, Statement, VoteResult
from .exemplar import exemplar_model
from .intention_agent import AvalonIntentionAgent
from .intentions import Catalogue, load_catalogue
from .judge import IntentionStatement, intention_statements
from .rules import AvalonGame, AvalonSettings
from .selfplay import play_local

SUITE = "avalon-intentions"
TYPES = ("guessing", "summarisation")
SEEDS = (11, 12, 13, 14)
PLAYERS = 6
PUBLIC: tuple[type[Event], ...] = (Proposal, Revision, Statement, VoteResult, QuestResult)  # the record shown
RECORD_LINES = 12  # public events shown before the statement


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def played(seed: int) -> dict[str, Any]:
    """One seeded game of intention agents on the scripted model, as a stored match reads."""
    seats = [f"P{i}" for i in range(1, PLAYERS + 1)]
    game = AvalonGame(seats, seed, AvalonSettings(players=PLAYERS))
    agents = {s: AvalonIntentionAgent(scripted_caller(exemplar_model), name="scripted") for s in seats}
    play_local(game, agents)
    return {"id": f"seed-{seed}", "game": "avalon", "seed": seed,
            "seats": [{"seat": s, "agent_id": "scripted"} for s in seats],
            "events": [e.to_dict() for e in game.events], "result": game.result()}


def _records(match: dict[str, Any]) -> list[list[str]]:
    """Per statement (in order, as intention_statements lists them): the public record before it."""
    out: list[list[str]] = []
    public: list[str] = []
    for e in KINDS.parse_all(match["events"]):
        if isinstance(e, Intentions):
            out.append(list(public))
        if isinstance(e, PUBLIC) and e.text:
            public.append(f"{e.actor}: {e.text}" if isinstance(e, Statement) else e.text)
    return out


def _options(item_id: str, s: IntentionStatement, catalogue: Catalogue) -> tuple[dict[str, str], str, str]:
    """(labelled options, the gold label, the gold intention's category)."""
    key = _digest(item_id)
    gold = catalogue.get(s.ids[key % len(s.ids)])
    assert gold is not None
    followed = {catalogue.get(i).category for i in s.ids if catalogue.get(i)}
    others = [c for c in catalogue.categories if c not in followed]
    start = (key >> 8) % len(others)
    cats = (others[start:] + others[:start])[:3]
    distractors = []
    for n, cat in enumerate(cats):
        pool = [i for i in catalogue.intentions if i.category == cat]
        distractors.append(pool[(key >> (16 + 8 * n)) % len(pool)])
    texts = [i.text for i in distractors]
    at = (key >> 48) % 4
    texts.insert(at, gold.text)
    labels = string.ascii_uppercase[:4]
    return dict(zip(labels, texts, strict=True)), labels[at], gold.category


def items_of(match: dict[str, Any], catalogue: Catalogue) -> list[dict[str, Any]]:
    statements = intention_statements(match, catalogue)
    records = _records(match)
    out = []
    for n, (s, record) in enumerate(zip(statements, records, strict=False), start=1):
        if not s.ids or not s.speak.strip():
            continue
        shown = "\n".join(record[-RECORD_LINES:]) or "(nothing yet)"
        where = f"Avalon, {PLAYERS} players; quest {s.quest}, proposal {s.attempt}."
        base = {"suite": SUITE, "images": [], "tags": {"seed": match["seed"], "quest": s.quest, "role": s.role}}
        guess_id = f"{SUITE}-guessing-{match['seed']}-{n:03d}"
        options, answer, category = _options(guess_id, s, catalogue)
        out.append({**base, "id": guess_id,
                    "context": f"{where}\nThe public record so far:\n{shown}\n\n{s.seat} said in public:\n"
                               f"SPEAK: {s.speak}",
                    "question": f"Which of these intentions was {s.seat} following?", "options": options,
                    "answer": answer, "types": ["guessing"], "tags": {**base["tags"], "category": category}})
        summary_id = f"{SUITE}-summarisation-{match['seed']}-{n:03d}"
        options, answer, category = _options(summary_id, s, catalogue)
        out.append({**base, "id": summary_id,
                    "context": f"{where}\nYou are {s.seat}. You privately thought:\nTHINK: {s.think}\n"
                               f"and said in public:\nSPEAK: {s.speak}",
                    "question": "Which of these intentions were you following?", "options": options,
                    "answer": answer, "types": ["summarisation"], "tags": {**base["tags"], "category": category}})
    return out


@lru_cache(maxsize=1)
def _built() -> tuple[dict[str, Any], ...]:
    catalogue = load_catalogue()
    return tuple(item for seed in SEEDS for item in items_of(played(seed), catalogue))


def suite_items() -> list[dict[str, Any]]:
    """Every item, guessing and summarisation per statement, games in SEEDS order."""
    return [dict(item) for item in _built()]


__all__ = ["SEEDS", "SUITE", "TYPES", "items_of", "played", "suite_items"]
