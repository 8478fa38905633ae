"""Lexical vs embedding similarity for the heuristic house agent's vote.

Plays the same seeded games (same pairs, same spy seats) with six heuristic
agents using each measure and prints vote accuracy, civilian win rate and the
median time of one vote. `python benchmarks/heuristic_vote.py [--games 200]`
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from space_app.games.spy.agents import HeuristicSpyAgent  # noqa: E402
from space_app.games.spy.metrics import study_row  # noqa: E402
from space_app.service import Arena  # noqa: E402
from space_app.store import Store  # noqa: E402


class TimedVotes(HeuristicSpyAgent):
    """The heuristic agent, recording how long each vote takes."""

    def __init__(self, name: str, similarity: str) -> None:
        super().__init__(name, similarity)
        self.vote_seconds: list[float] = []

    def vote(self, obs):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        try:
            return super().vote(obs)
        finally:
            self.vote_seconds.append(time.perf_counter() - started)


async def main_async(games: int, language: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        arena = Arena(Store(Path(tmp) / "h.db"))
        rows = []
        for spec, similarity in (("house:heuristic", "lexical"), ("house:heuristic-embed", "embedding")):
            agent = TimedVotes(spec, similarity)
            arena.catalogue.add(spec, agent)
            started = time.perf_counter()
            await arena.tournament("spy", [spec], games, seed=11, tag=spec, concurrency=8,
                                   settings={"language": language})
            wall = time.perf_counter() - started
            row = study_row(arena.store.iter_matches("spy", tag=spec))
            row.update(agent=spec, wall_s=wall, vote_ms=statistics.median(agent.vote_seconds) * 1000)
            rows.append(row)
        print(f"{games} games per measure, language {language}, 6 heuristic players each")
        print(f"{'agent':<24} {'vote accuracy':>13} {'civ win rate':>12} {'foul rate':>9} "
              f"{'median vote ms':>14} {'wall s':>7}")
        for r in rows:
            print(f"{r['agent']:<24} {r['vote_accuracy']:>13.3f} {r['civilian_win_rate']:>12.3f} "
                  f"{r['foul_rate']:>9.3f} {r['vote_ms']:>14.2f} {r['wall_s']:>7.1f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--language", choices=["en", "zh"], default="en")
    args = parser.parse_args()
    asyncio.run(main_async(args.games, args.language))


if __name__ == "__main__":
    main()
