"""Werewolf's rule bots against random seats, on both sides.

Every deal (seed) is played four times: the village and the werewolves each played by
`house:werewolf-rules` or by `house:werewolf-random` (every seat of a team the same agent).
A side's rule bots beat random play when that side wins more often with the rule bots than with
random seats, against the same opponents on the same deals. Win rates with Wilson 95% intervals.
In process, the game's own rules and house agents, every reply read as the runner reads it.

    python benchmarks/werewolf_bots.py [--games 200] [--players 7 12] [--settings JSON]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sdk import Agent  # noqa: E402
from space_app.core import get_game  # noqa: E402
from space_app.core.game import Outcome  # noqa: E402
from space_app.core.replies import outcome_text  # noqa: E402
from space_app.games.werewolf.agents import RandomWerewolfAgent, RuleWerewolfAgent  # noqa: E402
from space_app.stats import wilson  # noqa: E402

AGENTS: dict[str, Agent] = {"rules": RuleWerewolfAgent(), "random": RandomWerewolfAgent()}


def play(players: int, seed: int, village: Agent, wolves: Agent, settings: dict) -> str:
    """One match; the winning team."""
    game = get_game("werewolf").make(players, seed, settings)
    roles = game.seat_roles()
    while not game.over:
        outcomes = []
        for request in game.pending():
            agent = wolves if roles[request.seat] == "werewolf" else village
            text, status, detail = outcome_text(agent.act(request.observation).text, request.observation)
            outcomes.append(Outcome(request.seat, text, status, detail))  # type: ignore[arg-type]
        game.submit(outcomes)
    return str(game.result()["winner"])


def figure(wins: int, n: int) -> str:
    low, high = wilson(wins, n) or (0.0, 0.0)
    return f"{100 * wins / n:5.1f}% [{100 * low:4.1f}, {100 * high:4.1f}]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200, help="deals per line-up")
    parser.add_argument("--players", type=int, nargs="+", default=[7, 12])
    parser.add_argument("--settings", default="{}", help="game settings as JSON")
    args = parser.parse_args(argv)
    settings = json.loads(args.settings)
    for players in args.players:
        started = time.perf_counter()
        wins: dict[tuple[str, str], int] = {}
        for village in AGENTS:
            for wolves in AGENTS:
                wins[(village, wolves)] = sum(
                    play(players, seed, AGENTS[village], AGENTS[wolves], settings) == "village"
                    for seed in range(args.games))
        n = args.games
        print(f"\n{players} players, {n} deals per line-up (seeds 0-{n - 1}), settings {settings or 'default'} "
              f"({time.perf_counter() - started:.0f} s)")
        print(f"{'village':8} {'werewolves':10}  {'village wins':24}  {'werewolves win':24}")
        for (village, wolves), w in wins.items():
            print(f"{village:8} {wolves:10}  {figure(w, n):24}  {figure(n - w, n):24}")
        for opponent in AGENTS:
            rules, rand = wins[("rules", opponent)], wins[("random", opponent)]
            print(f"village side vs {opponent} werewolves: rules {figure(rules, n)} vs random {figure(rand, n)}")
        for opponent in AGENTS:
            rules, rand = n - wins[(opponent, "rules")], n - wins[(opponent, "random")]
            print(f"werewolf side vs {opponent} village: rules {figure(rules, n)} vs random {figure(rand, n)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
