"""The game catalogue: one folder per game (`space_app/games/<id>/`), each registering one
GameSpec with the kernel (`space_app.core`). This is the only module that imports the game
folders; the registry imports it the first time a game is asked for."""

from . import avalon, mystery, spy, werewolf  # noqa: F401 - each registers itself
