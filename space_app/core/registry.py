"""The game registry: each game folder registers its GameSpec here; generic code asks
`get_game(id)` or iterates `GAMES`.

The catalogue (`space_app.games`, which imports every game folder) is loaded on the first
question asked of the registry, not when the kernel is imported: the store, runner,
standings and verify import the kernel and never pay for (or depend on) the games' code
until a game is actually needed."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from .spec import GameSpec, GameSpecError, check_spec

CATALOGUE = "space_app.games"  # the one module that imports the game folders

_registered: dict[str, GameSpec] = {}
_loading = False


def _catalogue() -> dict[str, GameSpec]:
    """Every registered game, importing the catalogue once (a game registering itself while
    it loads sees the games registered so far)."""
    global _loading
    if not _loading:
        _loading = True
        try:
            importlib.import_module(CATALOGUE)
        except BaseException:
            _loading = False  # a broken game folder is reported again on the next question
            raise
    return _registered


class _Games(Mapping[str, GameSpec]):
    """`GAMES`: the registered games by id, in registration order (read-only)."""

    def __getitem__(self, game_id: str) -> GameSpec:
        return _catalogue()[game_id]

    def __iter__(self) -> Iterator[str]:
        return iter(list(_catalogue()))

    def __len__(self) -> int:
        return len(_catalogue())

    def __repr__(self) -> str:
        return f"GAMES({', '.join(_catalogue())})"


GAMES: Mapping[str, GameSpec] = _Games()


class UnknownGame(ValueError):
    pass


def register(spec: GameSpec) -> GameSpec:
    check_spec(spec)
    if spec.id in _registered and _registered[spec.id] is not spec:
        raise GameSpecError(f"game {spec.id!r} is registered twice")
    taken = {name: other.id for other in _registered.values() if other.id != spec.id for name in other.house.agents}
    for name in spec.house.agents:
        if name in taken:
            raise GameSpecError(f"game spec {spec.id!r}: house agent {name!r} is already {taken[name]!r}'s")
    _registered[spec.id] = spec
    return spec


def unregister(game_id: str) -> None:
    """Remove a game (tests that register a game of their own clean up with this)."""
    _registered.pop(game_id, None)


def get_game(game_id: str) -> GameSpec:
    try:
        return _catalogue()[game_id]
    except KeyError:
        raise UnknownGame(f"unknown game {game_id!r}; known: {', '.join(_catalogue()) or 'none'}") from None


__all__ = ["GAMES", "UnknownGame", "get_game", "register", "unregister"]
