"""The game registry: each game folder registers its GameSpec here; generic code asks
`get_game(id)`."""

from __future__ import annotations

from .spec import GameSpec, GameSpecError, check_spec

GAMES: dict[str, GameSpec] = {}


class UnknownGame(ValueError):
    pass


def register(spec: GameSpec) -> GameSpec:
    check_spec(spec)
    if spec.id in GAMES and GAMES[spec.id] is not spec:
        raise GameSpecError(f"game {spec.id!r} is registered twice")
    taken = {name: other.id for other in GAMES.values() if other.id != spec.id for name in other.house_agents}
    for name in spec.house_agents:
        if name in taken:
            raise GameSpecError(f"game spec {spec.id!r}: house agent {name!r} is already {taken[name]!r}'s")
    GAMES[spec.id] = spec
    return spec


def get_game(game_id: str) -> GameSpec:
    try:
        return GAMES[game_id]
    except KeyError:
        raise UnknownGame(f"unknown game {game_id!r}; known: {', '.join(GAMES) or 'none'}") from None


__all__ = ["GAMES", "UnknownGame", "get_game", "register"]
