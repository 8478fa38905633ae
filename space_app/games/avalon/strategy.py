"""The rule-based house agent's decisions, one function per kind of choice, each taking
the seat's observation (read once into a Record) and returning a legal choice.

Good seats propose and approve the teams least likely to fail under their belief.
Merlin proposes teams he knows are clean (the most natural-looking of them) but votes
like a servant would, except that he rejects a team whose failure would lose the game:
votes that track the truth are what the Assassin reads (MERLIN_CANDOUR > 0 lets him vote
his knowledge more often; measured, it costs more at the assassination than it wins on
the quests). Evil seats
approve teams that can fail, play the Fail cards that are needed (the first teammates in
seat order, so two never fail a quest that one fails), and look like good players when
they lead. The Assassin names the good seat whose votes and teams beat the public belief
of their time by the widest margin.
"""

from __future__ import annotations

import random
from functools import lru_cache
from itertools import combinations

from sdk.observation import Observation

from .beliefs import Belief, Knowledge, Record, belief, beliefs_along, knowledge_of
from .table import EVIL, MAX_PROPOSALS, MERLIN, OBERON, WINNING_QUESTS

APPROVE_WITHIN = 0.85  # approve a team whose pass chance is this share of the best team's
APPROVE_WITHIN_LATE = 0.6  # ... on the fourth proposal, when a fifth rejection looms
MERLIN_CANDOUR = 0.0  # when his knowledge and a servant's view disagree, how often Merlin votes his knowledge
EVIL_BACKS_BAD = 0.5  # how often an evil seat off a team that can fail approves it anyway


def is_evil(obs: Observation) -> bool:
    return obs.private.facts.get("side") == EVIL


def role(obs: Observation) -> str:
    return str(obs.private.facts.get("role", ""))


# -- teams --------------------------------------------------------------------------------
def best_teams(b: Belief, seats: list[str], size: int, needed: int,
               include: list[str]) -> list[tuple[float, list[str]]]:
    """Every team of `size` holding `include`, with its chance to fail, safest first."""
    ranked = _ranked_teams(b, tuple(seats), size, needed, tuple(include))
    return [(p, list(team)) for p, team in ranked]


@lru_cache(maxsize=256)
def _ranked_teams(b: Belief, seats: tuple[str, ...], size: int, needed: int,
                  include: tuple[str, ...]) -> tuple[tuple[float, tuple[str, ...]], ...]:
    # cached: a seat weighs the same teams to speak and then to vote
    rest = [s for s in seats if s not in include]
    out = []
    for combo in combinations(rest, size - len(include)):
        team = tuple(s for s in seats if s in include or s in combo)
        out.append((b.p_fails_mask(b.mask(team), needed), team))
    out.sort(key=lambda x: x[0])
    return tuple(out)


def _pick(ranked: list[tuple[float, list[str]]], rng: random.Random, tie: float = 1e-9) -> list[str]:
    low = ranked[0][0]
    return rng.choice([team for p, team in ranked if p <= low + tie])


def good_team(obs: Observation, record: Record, rng: random.Random) -> list[str]:
    me = obs.you
    mine = belief(record, knowledge_of(obs, record))
    ranked = best_teams(mine, record.seats, record.size, record.needed, [me])
    if role(obs) != MERLIN:
        return _pick(ranked, rng)
    # Merlin: of the teams he knows are safest, the one a servant in his seat would find most natural
    low = ranked[0][0]
    safest = [team for p, team in ranked if p <= low + 1e-9]
    looks = belief(record, Knowledge(good=frozenset([me])))
    return min(safest, key=lambda t: (looks.p_fails(t, record.needed), rng.random()))


def evil_team(obs: Observation, record: Record, rng: random.Random) -> list[str]:
    """Me, the teammates it takes to fail the quest (least suspected first), and then the
    seats a good player in my seat would trust most."""
    me = obs.you
    know = knowledge_of(obs, record)
    looks = belief(record, Knowledge(good=frozenset([me])))
    suspicion = looks.p_evil()
    mates = sorted((s for s in know.evil if s != me), key=lambda s: (suspicion[s], record.seats.index(s)))
    team = [me, *mates[: max(0, min(record.needed, record.size) - 1)]]
    others = sorted((s for s in record.seats if s not in know.evil),
                    key=lambda s: (suspicion[s], rng.random()))
    team += others[: record.size - len(team)]
    return [s for s in record.seats if s in team]


def propose(obs: Observation, record: Record, rng: random.Random) -> list[str]:
    return evil_team(obs, record, rng) if is_evil(obs) else good_team(obs, record, rng)


# -- approving a team ------------------------------------------------------------------------
def _approves(b: Belief, record: Record, me: str) -> bool:
    """A good seat's rule: approve a team nearly as safe as the safest one it could form."""
    if record.attempt >= MAX_PROPOSALS:
        return True  # a fifth rejection hands evil the game
    p_pass = 1 - b.p_fails(record.team, record.needed)
    best = 1 - best_teams(b, record.seats, record.size, record.needed, [me])[0][0]
    share = APPROVE_WITHIN_LATE if record.attempt == MAX_PROPOSALS - 1 else APPROVE_WITHIN
    return p_pass >= share * best - 1e-9


def team_vote(obs: Observation, record: Record, rng: random.Random) -> bool:
    me = obs.you
    if record.leader == me and record.attempt < MAX_PROPOSALS and not is_evil(obs):
        return True
    if is_evil(obs):
        know = knowledge_of(obs, record)
        on_team = len(know.evil & set(record.team))
        if record.attempt >= MAX_PROPOSALS:
            return True  # rejecting a fifth proposal would give the evil side away
        looks_fine = _approves(belief(record, Knowledge(good=frozenset([me]))), record, me)
        if on_team >= record.needed:
            # a team that can fail: its members back it; others back it when a good player in
            # their seat would, or often enough to carry it, but not always (that marks them)
            _, evil_wins = record.wins()
            return (me in record.team or looks_fine or evil_wins == WINNING_QUESTS - 1
                    or rng.random() < EVIL_BACKS_BAD)
        return looks_fine  # a clean team: vote as a good player in this seat would
    mine = _approves(belief(record, knowledge_of(obs, record)), record, me)
    if role(obs) != MERLIN:
        return mine
    servant = _approves(belief(record, Knowledge(good=frozenset([me]))), record, me)
    if mine == servant:
        return mine
    _, evil_wins = record.wins()
    if not mine and evil_wins == WINNING_QUESTS - 1:
        return False  # this quest would lose the game: no more hiding
    return mine if rng.random() < MERLIN_CANDOUR else servant


# -- the quest ----------------------------------------------------------------------------
def quest_card(obs: Observation, record: Record) -> str:
    if not is_evil(obs):
        return "success"
    if role(obs) == OBERON:
        return "fail"  # he cannot coordinate with anyone
    know = knowledge_of(obs, record)
    mates = [s for s in record.seats if s in know.evil and s in record.team]
    if len(mates) < record.needed and OBERON not in record.roles_in_play:
        return "success"  # not enough of us to fail it: do not show an evil card for nothing
    return "fail" if obs.you in mates[: record.needed] else "success"


# -- naming Merlin ------------------------------------------------------------------------
def merlin_scores(record: Record, evil: set[str]) -> dict[str, float]:
    """For each seat not known to be evil: how far its votes and its teams beat the public
    belief of their time at telling teams that could fail from those that could not."""
    bit = {s: 1 << i for i, s in enumerate(record.seats)}
    truth = sum(bit[s] for s in evil if s in bit)
    scores = {s: 0.0 for s in record.seats if s not in evil}
    for item, before in beliefs_along(record):
        if item[0] == "vote":
            _, team, needed, approvers, voters = item
        elif item[0] == "lead":
            _, leader, team, needed = item
            approvers = voters = leader  # a leader "approves" the team it proposes
        else:
            continue
        bad = (truth & team).bit_count() >= needed
        p_bad = before.p_fails([s for s in record.seats if team & bit[s]], needed)
        for seat in scores:
            if voters & bit[seat]:
                approved = bool(approvers & bit[seat])
                right = approved != bad
                expected = (1 - p_bad) if approved else p_bad
                scores[seat] += float(right) - expected
    return scores


def merlin_guess(obs: Observation, record: Record, rng: random.Random, options: list[str] | None = None) -> str:
    know = knowledge_of(obs, record)
    scores = merlin_scores(record, set(know.evil))
    pool = [s for s in (options or record.seats) if s in scores and s != obs.you] or list(options or record.seats)
    return max(pool, key=lambda s: (round(scores.get(s, 0.0), 9), rng.random()))


# -- the end-of-game deduction quiz ---------------------------------------------------------
def most_likely_evil(obs: Observation, record: Record, rng: random.Random) -> list[str]:
    """The `obs.pick` options this seat's belief holds most likely evil (ties drawn with rng)."""
    p = belief(record, knowledge_of(obs, record)).p_evil()
    ranked = sorted(obs.options, key=lambda s: (-round(p.get(s, 0.0), 9), rng.random()))
    chosen = ranked[: obs.pick]
    return [s for s in obs.options if s in chosen]
