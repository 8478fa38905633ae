"""Avalon's house agents: offline, no model, stateless between calls (everything comes
from the observation), their randomness drawn from what the seat has seen."""

from __future__ import annotations

import json
import random

from sdk import Agent, Observation

from ...core.belief_reading import as_reply
from ...core.probes import others, probe_question, uniform_reply
from ...core.seeding import history_key, seeded
from . import speech, strategy
from .beliefs import belief, knowledge_of, read_record
from .events import AvalonInvalidAction, Proposal, Silence, Statement
from .rules import APPROVE, FAIL, REJECT, SUCCESS
from .table import MAX_PLAYERS, MIN_PLAYERS

# what may come between proposing and revising a team: left out of the team draw's seed
BETWEEN_PROPOSE_AND_REVISE = frozenset(m.kind_name() for m in (Statement, Silence, Proposal, AvalonInvalidAction))


def seat_rng(obs: Observation, salt: str = "", skip: frozenset[str] = frozenset()) -> random.Random:
    """Seeded by the seat's own view (its facts and the history so far, less the kinds in
    `skip`), never by the match id or a clock: the same game seed with house agents replays
    the same match."""
    facts = json.dumps(obs.private.facts, sort_keys=True, default=str)
    return seeded(f"{obs.game}|{obs.you}|{obs.round}|{facts}|{history_key(obs, skip)}|{salt}")


def _playable(obs: Observation) -> bool:
    """An observation the rule-based play can read (else it falls back to random choices)."""
    return MIN_PLAYERS <= len(obs.seats) <= MAX_PLAYERS and obs.you in obs.seats


class RandomAvalonAgent(Agent):
    """Random legal choices (a good seat's only legal card is success) and short generic talk."""

    name = "house:avalon-random"
    description = "Random teams, votes and cards; generic statements. A floor for the leaderboard."
    games = ("avalon",)

    def speak(self, obs: Observation) -> str:
        return seat_rng(obs, f"speak|{obs.phase}").choice(speech.GENERIC)

    def vote(self, obs: Observation) -> str:
        rng = seat_rng(obs, f"vote|{obs.phase}")
        if obs.options == [SUCCESS, FAIL] and not strategy.is_evil(obs):
            return SUCCESS
        return ", ".join(rng.sample(obs.options, obs.pick))

    def answer(self, obs: Observation) -> str:
        if probe_question(obs) is not None:
            return uniform_reply(obs)
        return ", ".join(seat_rng(obs, "answer").sample(obs.options, obs.pick)) if obs.options else "I do not know."


class RuleAvalonAgent(Agent):
    """Plays by its role: good seats infer the evil set from every public fact and their own
    knowledge; Merlin steers without showing all he knows; evil seats fail quests in turn
    and the Assassin names the seat whose play tracked the hidden truth best."""

    name = "house:avalon-rules"
    description = "Belief over evil sets from quests and votes; role-aware teams, votes, cards and assassination."
    games = ("avalon",)

    def speak(self, obs: Observation) -> str:
        if not _playable(obs):
            return RandomAvalonAgent.speak(self, obs)
        record = read_record(obs)
        rng = seat_rng(obs, f"speak|{obs.phase}")
        if obs.phase == "conference":
            return speech.conference(obs, record, rng)
        return speech.discussion(obs, record, rng)[: obs.limits.max_chars]

    def vote(self, obs: Observation) -> str:
        if not _playable(obs):
            return RandomAvalonAgent.vote(self, obs)
        record = read_record(obs)
        rng = seat_rng(obs, f"vote|{obs.phase}")
        options = obs.options
        if options == [APPROVE, REJECT]:
            return APPROVE if strategy.team_vote(obs, record, rng) else REJECT
        if options == [SUCCESS, FAIL]:
            return strategy.quest_card(obs, record)
        if obs.pick == 1 and obs.phase == "assassinate":
            return strategy.merlin_guess(obs, record, rng, options)
        if obs.phase in ("propose", "revise") and obs.pick == record.size:
            # the same draw when proposing and revising: only talk comes between them
            return ", ".join(strategy.propose(obs, record, seat_rng(obs, "team", skip=BETWEEN_PROPOSE_AND_REVISE)))
        return ", ".join(rng.sample(options, obs.pick))

    def answer(self, obs: Observation) -> str:
        if probe_question(obs) == "evil" and _playable(obs):
            # its own belief state: each seat's chance of being evil over the evil sets it allows
            record = read_record(obs)
            p_evil = belief(record, knowledge_of(obs, record)).p_evil()
            return as_reply({s: p_evil.get(s, 0.0) for s in others(obs)})
        if probe_question(obs) is not None:  # no belief kept about Merlin: every other seat alike
            return uniform_reply(obs)
        if obs.phase == "deduce" and _playable(obs) and set(obs.options) <= set(obs.seats):
            # the end-of-game quiz: the seats most likely evil under everything this seat knows
            return ", ".join(strategy.most_likely_evil(obs, read_record(obs), seat_rng(obs, "deduce")))
        return ", ".join(seat_rng(obs, "answer").sample(obs.options, obs.pick)) if obs.options else "I do not know."


# The embedded model reads a prompt at roughly 50 tokens a second on two CPU cores, so this
# agent keeps its prompts short enough for two calls within a 30-second turn: the last
# INTENT_LOCAL_HISTORY history items, INTENT_LOCAL_OFFERED intentions on offer (spread over
# the categories), INTENT_LOCAL_TOKENS new tokens a call.
INTENT_LOCAL_TOKENS = 128
INTENT_LOCAL_HISTORY = 10
INTENT_LOCAL_OFFERED = 8


def intent_local_agent() -> Agent:
    """`house:avalon-intent-local`: the SDK's intention-guided agent on the embedded model,
    built when first seated (the model loads in `prepare`, outside the turn's clock)."""
    from sdk import local_caller

    from .intention_agent import AvalonIntentionAgent

    return AvalonIntentionAgent(local_caller(max_new_tokens=INTENT_LOCAL_TOKENS), name="house:avalon-intent-local",
                                max_offered=INTENT_LOCAL_OFFERED, max_history=INTENT_LOCAL_HISTORY,
                                description="Intention-guided play (select, think, speak, reread, refine) on the "
                                            "embedded SmolLM2-135M model.")
