"""Avalon's official tables as data: sides per player count, quest team sizes, the
two-fail fourth quest, the roles and their sides. Pure helpers shared by the rules, the
house agents and (later) the metrics."""

from __future__ import annotations

from collections import Counter
from typing import Literal

Side = Literal["good", "evil"]
GOOD: Side = "good"
EVIL: Side = "evil"

MERLIN, PERCIVAL, SERVANT = "merlin", "percival", "servant"
ASSASSIN, MORGANA, MORDRED, OBERON, MINION = "assassin", "morgana", "mordred", "oberon", "minion"
GOOD_ROLES: tuple[str, ...] = (MERLIN, PERCIVAL, SERVANT)
EVIL_ROLES: tuple[str, ...] = (ASSASSIN, MORGANA, MORDRED, OBERON, MINION)
ROLES: tuple[str, ...] = GOOD_ROLES + EVIL_ROLES
# characters that exist once; servants and minions may repeat
UNIQUE_ROLES = frozenset({MERLIN, PERCIVAL, ASSASSIN, MORGANA, MORDRED, OBERON})
ROLE_NAMES: dict[str, str] = {
    MERLIN: "Merlin", PERCIVAL: "Percival", SERVANT: "Loyal Servant of Arthur",
    ASSASSIN: "Assassin", MORGANA: "Morgana", MORDRED: "Mordred", OBERON: "Oberon",
    MINION: "Minion of Mordred",
}
# how a seat is told its role: "You are {ROLE_INTRO[role]}"
ROLE_INTRO: dict[str, str] = {
    MERLIN: "Merlin", PERCIVAL: "Percival", SERVANT: "a Loyal Servant of Arthur", ASSASSIN: "the Assassin",
    MORGANA: "Morgana", MORDRED: "Mordred", OBERON: "Oberon", MINION: "a Minion of Mordred",
}
# spellings accepted in settings (after lower-casing and folding spaces/dashes to "_")
ROLE_ALIASES: dict[str, str] = {
    "loyal_servant": SERVANT, "loyal_servant_of_arthur": SERVANT, "servant_of_arthur": SERVANT,
    "minion_of_mordred": MINION,
}

MIN_PLAYERS, MAX_PLAYERS = 5, 10
QUESTS = 5
WINNING_QUESTS = 3
MAX_PROPOSALS = 5  # the fifth rejected proposal in a row of one quest hands evil the game

# players -> (good, evil)
SIDES: dict[int, tuple[int, int]] = {5: (3, 2), 6: (4, 2), 7: (4, 3), 8: (5, 3), 9: (6, 3), 10: (6, 4)}
# players -> team size of quests 1..5
TEAM_SIZES: dict[int, tuple[int, int, int, int, int]] = {
    5: (2, 3, 2, 3, 3),
    6: (2, 3, 4, 3, 4),
    7: (2, 3, 3, 4, 4),
    8: (3, 4, 4, 5, 5),
    9: (3, 4, 4, 5, 5),
    10: (3, 4, 4, 5, 5),
}


def side_of(role: str) -> Side:
    """The side a role plays for."""
    if role in GOOD_ROLES:
        return GOOD
    if role in EVIL_ROLES:
        return EVIL
    raise ValueError(f"unknown Avalon role {role!r}; known: {', '.join(ROLES)}")


def evil_count(players: int) -> int:
    _check_players(players)
    return SIDES[players][1]


def team_size(players: int, quest: int) -> int:
    """How many players go on quest `quest` (1-5)."""
    _check_players(players)
    return TEAM_SIZES[players][quest - 1]


def fails_needed(players: int, quest: int) -> int:
    """Fail cards that make quest `quest` fail: two on the fourth quest with 7+ players."""
    _check_players(players)
    return 2 if players >= 7 and quest == 4 else 1


def default_roles(players: int) -> list[str]:
    """Merlin, Percival, servants / Morgana, Assassin, minions: the classic set."""
    good, evil = SIDES[_check_players(players)]
    return [MERLIN, PERCIVAL] + [SERVANT] * (good - 2) + [MORGANA, ASSASSIN] + [MINION] * (evil - 2)


def normalise_role(name: str) -> str:
    key = "_".join(str(name).strip().lower().replace("-", " ").split())
    return ROLE_ALIASES.get(key, key)


def check_roles(players: int, roles: list[str]) -> list[str]:
    """The role set, normalised; a ValueError naming the problem when it breaks the table."""
    _check_players(players)
    roles = [normalise_role(r) for r in roles]
    unknown = sorted({r for r in roles if r not in ROLES})
    if unknown:
        raise ValueError(f"unknown role(s) {unknown}; known: {', '.join(ROLES)}")
    if len(roles) != players:
        raise ValueError(f"{players} players need {players} roles, got {len(roles)}")
    good, evil = SIDES[players]
    n_good = sum(side_of(r) == GOOD for r in roles)
    if n_good != good:
        raise ValueError(f"{players} players need {good} good and {evil} evil roles, "
                         f"got {n_good} good and {players - n_good} evil")
    counts = Counter(roles)
    for role in (MERLIN, ASSASSIN):
        if counts[role] != 1:
            raise ValueError(f"exactly one {ROLE_NAMES[role]} is required, got {counts[role]}")
    repeated = sorted(r for r in UNIQUE_ROLES if counts[r] > 1)
    if repeated:
        raise ValueError(f"these characters exist once: {', '.join(ROLE_NAMES[r] for r in repeated)}")
    return roles


def _check_players(players: int) -> int:
    if players not in SIDES:
        raise ValueError(f"Avalon is for {MIN_PLAYERS}-{MAX_PLAYERS} players, not {players}")
    return players
