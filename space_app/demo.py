"""Demo content for a first visit: on an empty store, a few matches between each game's
demo agents and a small run of each charted study, so Watch and Leaderboard are not empty."""

from __future__ import annotations

import threading

from .core import GAMES
from .service import Arena


def warm_up(arena: Arena, matches: int) -> None:
    if matches <= 0 or arena.store.count_matches() > 0:
        return

    async def every_game() -> None:
        for spec in GAMES.values():
            if spec.house.demo:
                await arena.tournament(spec.id, list(spec.house.demo), matches, seed=2024, tag="demo")
            for study in spec.extras.studies.values():
                # so its plot has something to show: on the game's fast demo agent (a study's own
                # default base may be a model that takes minutes per match)
                if study.chart is not None and spec.house.demo:
                    await study.run(arena, base=study.base or spec.house.demo[0], games=max(5, matches), seed=7)

    # a thread of its own, so building the arena works under a running loop (Jupyter)
    worker = threading.Thread(target=lambda: arena.run_in_own_loop(every_game()), name="arena-warm-up")
    worker.start()
    worker.join()


__all__ = ["warm_up"]
