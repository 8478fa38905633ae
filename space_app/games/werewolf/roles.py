"""Werewolf's roles and teams as data, and the default role counts per table size: pure
helpers shared by the rules, the house agents, the metrics and the replay panels."""

from __future__ import annotations

WEREWOLF, SEER, DOCTOR, VILLAGER, WITCH, HUNTER = "werewolf", "seer", "doctor", "villager", "witch", "hunter"
ROLES = (WEREWOLF, SEER, DOCTOR, WITCH, HUNTER, VILLAGER)  # the order the transcript lists them in
WEREWOLVES, VILLAGE = "werewolves", "village"
TEAMS = (VILLAGE, WEREWOLVES)
KEY_ROLES = (SEER, DOCTOR)  # the roles whose survival the metrics follow
MIN_PLAYERS, MAX_PLAYERS, DEFAULT_PLAYERS = 6, 15, 8


def team_of(role: str) -> str:
    return WEREWOLVES if role == WEREWOLF else VILLAGE


def default_werewolves(players: int) -> int:
    """The number of werewolves at a table of `players`: 2 at 6-8 players, 3 at 9-11, 4 at 12-15
    (about a quarter of the table, as at a live game)."""
    if players <= 8:
        return 2
    if players <= 11:
        return 3
    return 4


def role_list(players: int, werewolves: int | None = None, witch: bool = False, hunter: bool = False) -> list[str]:
    """The roles of a table before dealing: the werewolves, one Seer, one Doctor, the Witch and
    the Hunter when they are in play, and Villagers to fill the table."""
    wolves = default_werewolves(players) if werewolves is None else werewolves
    special = [SEER, DOCTOR] + ([WITCH] if witch else []) + ([HUNTER] if hunter else [])
    villagers = players - wolves - len(special)
    if wolves < 1:
        raise ValueError("at least one werewolf is needed")
    if wolves * 2 >= players:
        raise ValueError(f"{wolves} werewolves among {players} players would already be at parity")
    if villagers < 0:
        raise ValueError(f"{players} players cannot hold {wolves} werewolves and {len(special)} special roles")
    return [WEREWOLF] * wolves + special + [VILLAGER] * villagers


__all__ = ["DEFAULT_PLAYERS", "DOCTOR", "HUNTER", "KEY_ROLES", "MAX_PLAYERS", "MIN_PLAYERS", "ROLES", "SEER", "TEAMS",
           "VILLAGE", "VILLAGER", "WEREWOLF", "WEREWOLVES", "WITCH", "default_werewolves", "role_list", "team_of"]
