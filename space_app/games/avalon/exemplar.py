"""A scripted model for intention-guided Avalon, offline and deterministic: an `llm_caller`
that answers the SDK agent's plan and review prompts by the markers, with a SPEAK built
from the intentions it picks (a line per category and the intention's first key words)
and a THINK that names their categories and other key words. It is no player: it lets
the intention study and the intention quiz suite run without a model, and gives
statements whose intentions can be read back.

Votes and quiz answers name the first options asked for; a judge prompt gets 3 and 3.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from sdk import LLMAgent, scripted_caller

from .intentions import Catalogue, load_catalogue

# how each category sounds in a statement (the key words say which intention of it)
CATEGORY_LINES = {
    "interrogation": "I have a question for the table",
    "defence": "let me explain my own play",
    "confrontation": "someone here is not telling the truth",
    "concealment": "I will keep my read to myself for now",
    "deception": "you can trust me on this",
    "persuasion": "we should agree on this together",
    "teamwork": "let us work as one team",
}


def _digest(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256("|".join(parts).encode()).digest()[:8], "big")


def _offered(prompt: str) -> list[str]:
    """The intention ids a plan or review prompt offers (a review: the list after the draft)."""
    return re.findall(r"^(I\d+): ", prompt.split("from this list")[-1], re.MULTILINE)


def statement(ids: list[str], catalogue: Catalogue) -> tuple[str, str]:
    """(THINK, SPEAK) that follow these intentions."""
    think, speak = [], []
    for ident in ids:
        intention = catalogue.get(ident)
        if intention is None:
            continue
        # THINK names the category and other key words than SPEAK: more to go on, not the text itself
        hints = " and ".join(intention.keywords[2:4] or intention.keywords[:1])
        think.append(f"My aim here is {intention.category}, around {hints}.")
        words = " and ".join(intention.keywords[:2])
        speak.append(f"{CATEGORY_LINES.get(intention.category, 'I have a thought')}: {words}.")
    return " ".join(think), " ".join(s[0].upper() + s[1:] for s in speak)


def offered_options(prompt: str) -> tuple[list[str], int]:
    """The option labels a prompt's 'Options:' line offers, and how many to pick."""
    line = re.search(r"^Options: (.*)\.$", prompt, re.MULTILINE)
    labels = [re.split(r"\)", o.strip())[0] for o in re.split(r"; |, ", line.group(1))] if line else []
    k = re.search(r"Pick exactly (\d+)|<(\d+) different options", prompt)
    return labels, int(next(g for g in k.groups() if g)) if k else 1


def exemplar_model(messages: list[dict[str, Any]]) -> str:
    catalogue = load_catalogue()
    prompt = "\n".join(str(m.get("content", "")) for m in messages)
    last = str(messages[-1].get("content", ""))
    if "You judge one statement" in last:
        return "REASONABLENESS: 3\nFOLLOWING: 3"
    review = "read your speak" in last.casefold()
    if "Plan your statement" in last or review:
        offered = _offered(last) or catalogue.ids
        seed = _digest(prompt)
        k = 2 + seed % 2
        picked = sorted({offered[(seed >> (8 * n)) % len(offered)] for n in range(k)}, key=offered.index)
        think, speak = statement(picked, catalogue)
        first = "SECOND-ORDER: they will read it as it is." if review else \
            "FIRST-ORDER: no firm read on anyone yet."
        return f"{first}\nINTENTIONS: {', '.join(picked)}\nTHINK: {think}\nSPEAK: {speak}"
    labels, k = offered_options(last)
    return "Final answer: " + ", ".join(labels[:k]) if labels else "I have nothing to add."


def exemplar_agent() -> LLMAgent:
    """`house:avalon-scripted-model`: an LLMAgent on the scripted model (plain; `+intentions`
    makes it intention-guided)."""
    return LLMAgent(scripted_caller(exemplar_model), name="house:avalon-scripted-model", games=("avalon",),
                    description="A scripted stand-in for a model (no model): offline runs of the intention study "
                                "and quizzes; add +intentions for intention-guided play.")


__all__ = ["CATEGORY_LINES", "exemplar_agent", "exemplar_model", "statement"]
