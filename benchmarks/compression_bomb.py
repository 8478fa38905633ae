"""Resident memory of the arena while six seats answer with a 1 GiB gzip bomb.

A real Who-is-the-Spy match in this process: three SDK agents (async client) and three
WiS agents (sync client), all pointing at a loopback server whose every reply is ~1 MB of
gzip that inflates to 1 GiB. RSS is sampled every 5 ms while the match runs; the script
prints the baseline, the peak and what is left afterwards, per match and as medians.

    python benchmarks/compression_bomb.py [--matches 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from hostile_servers import gzip_bomb, http_server, peak_rss_growth  # noqa: E402

from sdk import RemoteAgent  # noqa: E402
from space_app.core import get_game  # noqa: E402
from space_app.core.events import Call  # noqa: E402
from space_app.games.spy.wis import WiSAgent  # noqa: E402
from space_app.runner import SeatAgent, play  # noqa: E402

MB = 2**20


def one_match(url: str, seed: int) -> tuple[float, float, str]:
    game = get_game("spy").make(6, seed, {"pair": {"civilian": "tea", "spy": "coffee"}})
    seats = {seat: SeatAgent(RemoteAgent(url + "bomb/", timeout=60, wake_timeout=1) if i % 2 == 0
                             else WiSAgent(url + "bomb", timeout=60), f"bomb{i}")
             for i, seat in enumerate(game.seats)}
    outcome, grown = peak_rss_growth(lambda: asyncio.run(play(game, seats)))
    details = {e.detail[:60] for e in outcome.events if isinstance(e, Call)}
    return grown, psutil.Process().memory_info().rss / MB, "; ".join(sorted(details))[:120]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=3)
    args = parser.parse_args()
    bomb = gzip_bomb()
    print(f"bomb: {len(bomb) / MB:.2f} MB on the wire, 1024 MB inflated")
    with http_server() as server:
        start = psutil.Process().memory_info().rss / MB
        print(f"baseline RSS: {start:.0f} MB")
        growth = []
        for i in range(args.matches):
            grown, after, details = one_match(server.url, seed=i)
            growth.append(grown)
            print(f"match {i + 1}: peak growth {grown:.1f} MB, RSS after {after:.0f} MB; calls: {details}")
    print(f"median peak growth over {args.matches} matches: {statistics.median(growth):.1f} MB "
          f"(acceptance: < 50 MB)")


if __name__ == "__main__":
    main()
