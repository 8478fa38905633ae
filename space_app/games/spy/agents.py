"""House agents that play offline with no model: random and heuristic."""

from __future__ import annotations

import random

from sdk import ABSTAIN, Agent, Observation

from ...core.belief_reading import as_reply
from ...core.probes import probe_question, uniform_reply
from ...core.seeding import history_key, seeded
from .events import KINDS, RoundStart, Statement
from .rules import contains_word, normalise_statement
from .similarity import fit_function
from .words import load_clues

GENERIC_EN = [
    "It is something quite a lot of people come across in everyday life.",
    "You could find it in many homes or towns around the world.",
    "Some people like it a lot, others do not care about it at all.",
    "It has been around for a long time.",
    "Children usually learn about it early.",
    "It comes in more than one variety.",
    "There is a certain season or moment when it matters most.",
    "Most people could describe it without much trouble.",
    "It is more common in some countries than in others.",
    "People sometimes give it as a present.",
]
LEAD_INS_EN = ["To add to that, ", "I would also say ", "In my mind, ", "One more thing: ",
               "Put simply, ", "From my side, "]
LEAD_INS_ZH = ["补充一点：", "我还想说，", "在我看来，", "再说一句：", "简单来说，", "从我这边讲，"]
GENERIC_ZH = [
    "这是日常生活中很多人都会接触到的东西。",
    "在很多家庭或城市里都能找到它。",
    "有人很喜欢它，也有人完全不在意。",
    "它已经存在很长时间了。",
    "小孩子通常很早就知道它。",
    "它有不止一种类型。",
    "在某些时候它显得特别重要。",
    "大多数人都能轻松地描述它。",
    "在有些地方它比在别的地方更常见。",
    "人们有时会把它当作礼物。",
]


def _rng(obs: Observation, salt: str = "") -> random.Random:
    """Seeded by what the seat has seen (its word, the history so far), not by the match
    id: agents keep no state, and the same game seed replays the same match."""
    return seeded(f"{obs.game}|{obs.you}|{obs.round}|{obs.phase}|{obs.private.text}|{history_key(obs)}|{salt}")


def statements(obs: Observation) -> list[Statement]:
    """The statements in the seat's history, as models."""
    return [e for e in map(KINDS.from_history, obs.history) if isinstance(e, Statement)]


def _said(obs: Observation) -> set[str]:
    return {normalise_statement(e.text) for e in statements(obs)}


def _fresh(candidates: list[str], obs: Observation, word: str) -> list[str]:
    said = _said(obs)
    return [c for c in candidates
            if normalise_statement(c) not in said and not contains_word(c, word, obs.language)]


def statements_by_player(obs: Observation) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for e in statements(obs):
        out.setdefault(e.actor, []).append(e.text)
    return out


def survivors(obs: Observation) -> list[str]:
    """The other seats still in the game, from the newest round's speaking order."""
    rounds = [e for e in map(KINDS.from_history, obs.history) if isinstance(e, RoundStart)]
    alive = rounds[-1].order if rounds else obs.seats
    return [s for s in alive if s != obs.you]


class RandomAgent(Agent):
    """Says a generic sentence and votes at random (sometimes abstains)."""

    name = "house:random"
    description = "Generic statements, random votes. A floor for every leaderboard."
    games = ("spy",)

    def speak(self, obs: Observation) -> str:
        pool = GENERIC_ZH if obs.language == "zh" else GENERIC_EN
        word = str(obs.private.facts.get("word", ""))
        fresh = _fresh(pool, obs, word) or pool
        return _rng(obs).choice(fresh)

    def vote(self, obs: Observation) -> str:
        rng = _rng(obs, "vote")
        if obs.allow_abstain and rng.random() < 0.1:
            return ABSTAIN
        return ", ".join(rng.sample(obs.options, obs.pick))

    def answer(self, obs: Observation) -> str:
        if probe_question(obs) is not None:
            return uniform_reply(obs, survivors(obs))
        if obs.options:
            return ", ".join(_rng(obs, "answer").sample(obs.options, obs.pick))
        return "I do not know."


class HeuristicSpyAgent(Agent):
    """Describes its word from the clues it ships with (vague first, more specific in
    later rounds) and votes for the player whose statements fit the group least."""

    name = "house:heuristic"
    description = "Clue lists + statement similarity. Offline, instant."
    games = ("spy",)

    def __init__(self, name: str | None = None, similarity: str = "lexical") -> None:
        super().__init__(name)
        self.similarity = similarity
        self._fit = fit_function(similarity)

    def speak(self, obs: Observation) -> str:
        word = str(obs.private.facts.get("word", ""))
        clues = load_clues(obs.language).get(word.casefold(), [])
        round_no = obs.round or 1
        # Round r draws from the first half of the clue list widened by r: vague
        # clues first, so a spy is not handed the civilians' word too early.
        window = clues[: max(2, len(clues) // 2 + round_no - 1)]
        fresh = _fresh(window, obs, word) or _fresh(clues, obs, word)
        if not fresh and clues:
            # five civilians share one clue list, so it runs out by round 2: restate a
            # clue in other words rather than fall back to a statement with no content
            lead_ins = LEAD_INS_ZH if obs.language == "zh" else LEAD_INS_EN
            restated = [f"{lead}{clue[0].lower() + clue[1:] if obs.language != 'zh' else clue}"
                        for lead in lead_ins for clue in clues]
            fresh = _fresh(restated, obs, word)
        if not fresh:
            pool = GENERIC_ZH if obs.language == "zh" else GENERIC_EN
            fresh = _fresh(pool, obs, word) or [f"{obs.you}: {len(_said(obs)) + 1}."]
        return _rng(obs).choice(fresh)

    def suspicion(self, obs: Observation) -> dict[str, float]:
        """Higher = fits the group less. Only players on the ballot are scored."""
        statements = statements_by_player(obs)
        return {p: 1.0 - self._fit(p, statements) for p in obs.options}

    def vote(self, obs: Observation) -> str:
        scores = self.suspicion(obs)
        if not any(statements_by_player(obs).get(p) for p in obs.options):
            return _rng(obs, "vote").choice(obs.options)
        rng = _rng(obs, "tiebreak")
        ranked = sorted(obs.options, key=lambda p: (-scores[p], rng.random()))
        return ", ".join(ranked[: obs.pick])

    def analyse(self, obs: Observation) -> str:
        """The reasoning mode: weigh two pieces of evidence per player, write them out,
        then vote. Fit with the group (as in `vote`) and fit with what this agent knows
        of its own word (its clues and its own statements): a civilian's own word is
        most likely the majority word, so a player far from it is suspect."""
        statements = statements_by_player(obs)
        group = self.suspicion(obs)
        word = str(obs.private.facts.get("word", ""))
        mine = load_clues(obs.language).get(word.casefold(), []) + statements.get(obs.you, [])
        scored: dict[str, float] = {}
        lines = ["Analysis:"]
        for p in obs.options:
            own_fit = self._fit(p, {p: statements.get(p, []), "__mine__": mine})
            scored[p] = 0.5 * group[p] + 0.5 * (1.0 - own_fit)
            lines.append(f"- {p}: fit with the others {1 - group[p]:.2f}, fit with my word "
                         f"{own_fit:.2f}, suspicion {scored[p]:.2f}.")
        rng = _rng(obs, "tiebreak")
        ranked = sorted(obs.options, key=lambda p: (-scored[p], rng.random()))
        pick = ranked[: obs.pick]
        lines.append(f"The spy is most likely {', '.join(pick)}: their statements share the least "
                     "with the others' and with my own word.")
        lines.append(f"Final answer: {', '.join(pick)}")
        return "\n".join(lines)

    def answer(self, obs: Observation) -> str:
        if probe_question(obs) is not None:
            return self.belief_reply(obs)
        if obs.options:
            return ", ".join(_rng(obs, "answer").sample(obs.options, obs.pick))
        return "I do not know."

    def belief_reply(self, obs: Observation) -> str:
        """A belief probe answered from the suspicion its vote ranks by: each survivor's
        misfit with the group, as weights (all alike while nobody has spoken)."""
        candidates = survivors(obs)
        suspicion = self.suspicion(obs.model_copy(update={"options": candidates}))
        if not any(statements_by_player(obs).get(p) for p in candidates) or not any(suspicion.values()):
            return uniform_reply(obs, candidates)
        return as_reply({p: max(0.0, suspicion[p]) for p in candidates})
