"""Team ratings shared by every game: OpenSkill (Plackett–Luce) over the teams a match
declares, suited to asymmetric teams.

OpenSkill's team strength is the sum of its members, so in a 1-against-5 game (Who is
the Spy) the five are expected to win almost always and every agent's μ drifts with
the mix of roles it drew. Two changes make a team's strength comparable across sizes:

- **mean strength**: each member enters its team scaled by 1/n (μ/n, σ/n) and its update
  is scaled back by n. That is exactly the Weng–Lin update for a team whose performance
  is the *mean* of its members' (the chain rule with weight 1/n), computed by the
  library itself;
- **a side pseudo-player** (`side:<team>`) joins each team unscaled and learns how much
  that side wins by itself (e.g. how often the spy wins against equal opponents), so
  the members' ratings measure skill, not the side they were dealt.

An agent in several seats of one match gets the sum of its seats' μ updates (its weight
in the team is its share of the seats) and the product of their σ shrinkages.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

Z95 = 1.959963984540054  # two-sided 95% normal quantile
SIDE = "side:"  # subjects named so are the side pseudo-players, never shown as agents


@dataclass
class Skill:
    mu: float
    sigma: float
    matches: int = 0

    @property
    def low(self) -> float:
        return self.mu - Z95 * self.sigma

    @property
    def high(self) -> float:
        return self.mu + Z95 * self.sigma


@dataclass(frozen=True)
class Placing:
    """One seat of a rated match: who played it, on which team, and the team's rank
    (0 best; teams that share a rank drew)."""

    subject: str
    team: str
    rank: int


class TeamRating:
    """Ratings of subjects (agents, or agent·role) updated one match at a time."""

    def __init__(self, skills: Mapping[str, Skill] | None = None) -> None:
        self.model = PlackettLuce()
        self.skills: dict[str, Skill] = dict(skills or {})

    def get(self, subject: str) -> Skill:
        found = self.skills.get(subject)
        if found is None:
            found = self.skills[subject] = Skill(self.model.mu, self.model.sigma)
        return found

    def rate(self, placings: Sequence[Placing]) -> set[str]:
        """Apply one match; returns the subjects whose skill changed (pseudo-players too).
        A match with fewer than two teams carries no information and changes nothing."""
        teams: dict[str, list[Placing]] = {}
        for p in placings:
            teams.setdefault(p.team, []).append(p)
        if len(teams) < 2:
            return set()
        names = sorted(teams)
        ranks = []
        rated_teams = []
        for name in names:
            members = teams[name]
            rank = {p.rank for p in members}
            if len(rank) != 1:
                raise ValueError(f"team {name!r} has seats with different ranks {sorted(rank)}")
            ranks.append(rank.pop())
            n = len(members)
            team = [self.model.rating(mu=self.get(p.subject).mu / n, sigma=self.get(p.subject).sigma / n)
                    for p in members]
            side = self.get(SIDE + name)
            team.append(self.model.rating(mu=side.mu, sigma=side.sigma))
            rated_teams.append(team)
        new = self.model.rate(rated_teams, ranks=ranks)
        moves: dict[str, tuple[float, float]] = {}  # subject -> (sum of Δμ, product of σ² factors)
        for name, before, after in zip(names, rated_teams, new, strict=True):
            n = len(teams[name])
            for p, old, rated in zip(teams[name], before[:-1], after[:-1], strict=True):
                delta, shrink = moves.get(p.subject, (0.0, 1.0))
                moves[p.subject] = (delta + n * (rated.mu - old.mu), shrink * (rated.sigma / old.sigma) ** 2)
            side = self.get(SIDE + name)
            side.mu, side.sigma, side.matches = after[-1].mu, after[-1].sigma, side.matches + 1
        for subject, (delta, shrink) in moves.items():
            skill = self.get(subject)
            skill.mu += delta
            skill.sigma *= math.sqrt(shrink)
            skill.matches += 1
        return set(moves) | {SIDE + name for name in names}


def placings(seats: Iterable[tuple[str, str, bool]]) -> list[Placing]:
    """(subject, team, won) per seat -> placings: winners rank 0, the rest 1; a match
    nobody won is a draw between its teams."""
    seats = list(seats)
    anyone = any(won for _, _, won in seats)
    return [Placing(subject, team, 0 if (won or not anyone) else 1) for subject, team, won in seats]


__all__ = ["SIDE", "Z95", "Placing", "Skill", "TeamRating", "placings"]
