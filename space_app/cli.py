"""Headless arena: `python -m space_app match|tournament|experiment|leaderboard ...`."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from .games import GAMES
from .games.spy_words import WordPairError, load_pairs
from .safe_text import terminal_text
from .store import Store
from .tables import ATTACK_COLUMNS, LEADERBOARD_COLUMNS, REASONING_COLUMNS, render

DEFAULT_DB = os.environ.get("ARENA_DB", "data/arena.db")


def say(*parts: object, **kwargs: Any) -> None:
    """print, with agents' terminal escape codes and bidi controls removed."""
    print(*(terminal_text(p) for p in parts), **kwargs)


def _arena(db: str):
    from .service import Arena

    return Arena(Store(db))


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    settings: dict[str, Any] = {}
    if getattr(args, "language", None):
        settings["language"] = args.language
    if getattr(args, "pair", None):
        civ, _, spy = args.pair.partition("/")
        if not spy:
            raise SystemExit("--pair must look like civilian/spy, e.g. tea/coffee")
        settings["pair"] = {"civilian": civ, "spy": spy}
    if getattr(args, "pairs", None):
        try:
            pairs = load_pairs(args.pairs)
        except WordPairError as exc:
            raise SystemExit(f"error: {exc}") from None
        settings["pairs"] = [pair.model_dump() for pair in pairs]
    if getattr(args, "settings", None):
        settings.update(json.loads(args.settings))
    return settings


def transcript_line(e: Any) -> str | None:
    kind, actor, text = e.kind, e.actor, e.text
    if kind in ("private", "call", "withheld_statement"):
        return None
    if kind == "setup":
        return f"[judge] {text}"
    if kind == "statement":
        return f"  {actor}: {text}"
    if kind == "round_start":
        return f"\n== {text}"
    return f"  [{kind}] {text}"


def cmd_match(args: argparse.Namespace) -> int:
    from .service import MatchPlan

    arena = _arena(args.db)
    plan = MatchPlan(args.game, args.seats, args.seed, _settings(args), tag=args.tag)

    def live(items: list) -> None:
        for _, e in items:
            line = transcript_line(e)
            if line is not None:
                say(line, flush=True)

    outcome = arena.run_in_own_loop(arena.run(plan, on_events=live))
    say(f"\nmatch {outcome.match_id}: {outcome.status}")
    if outcome.result:
        for seat, pts in outcome.result["scores"].items():
            say(f"  {seat} ({outcome.result['roles'][seat]}): {pts:g}")
    return 0 if outcome.status == "finished" else 1


def print_leaderboard(store: Store, game: str, tag: str | None, min_games: int) -> None:
    from .metrics.spy import leaderboard

    rows = leaderboard(store.iter_matches(game, tag=tag), min_games=min_games)
    say(render(rows, LEADERBOARD_COLUMNS))


def cmd_tournament(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    arena = _arena(args.db)
    with tqdm(total=args.games, desc=f"{args.game} tournament", unit="match", file=sys.stderr) as bar:
        outcomes = arena.run_in_own_loop(arena.tournament(
            args.game, args.seats, args.games, seed=args.seed, concurrency=args.concurrency,
            settings=_settings(args), tag=args.tag, progress=lambda _: bar.update(1)))
    failed = [o for o in outcomes if o.status != "finished"]
    say(f"{len(outcomes) - len(failed)} matches finished, {len(failed)} failed; "
          f"store: {arena.store.url}")
    print_leaderboard(arena.store, args.game, args.tag, args.min_games)
    return 0 if not failed else 1


def cmd_leaderboard(args: argparse.Namespace) -> int:
    print_leaderboard(Store(args.db), args.game, args.tag, args.min_games)
    return 0


def cmd_experiment(args: argparse.Namespace) -> int:
    from .experiments import run_study

    arena = _arena(args.db)
    studies = ["attack", "reasoning"] if args.study == "all" else [args.study]
    for study in studies:
        rows = run_study(arena, study, base=args.base, games=args.games, seed=args.seed,
                         settings=_settings(args) or None, concurrency=args.concurrency)
        title = ("Attack / defence study" if study == "attack" else "Reasoning study")
        say(f"\n{title} (base agent {args.base}, {args.games} games per condition)")
        say(render(rows, ATTACK_COLUMNS if study == "attack" else REASONING_COLUMNS))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m space_app", description=__doc__)
    parser.add_argument("--db", default=DEFAULT_DB, help="SQLite file or database URL "
                        f"(default {DEFAULT_DB}; env ARENA_DB)")
    sub = parser.add_subparsers(dest="command", required=True)

    def game_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("game", choices=sorted(GAMES))
        p.add_argument("--language", choices=["en", "zh"])
        p.add_argument("--pair", help="fixed word pair for spy, civilian/spy (e.g. tea/coffee)")
        p.add_argument("--pairs", metavar="FILE",
                       help="draw spy word pairs from this CSV or JSON file instead of the built-in ones")
        p.add_argument("--settings", help="game settings as JSON, e.g. '{\"rounds\": 2}'")
        p.add_argument("--tag", default="", help="label stored with the matches")

    m = sub.add_parser("match", help="play one match and print its transcript")
    game_args(m)
    m.add_argument("--seats", nargs="+", required=True, help="agent spec per seat")
    m.add_argument("--seed", type=int, default=0)
    m.set_defaults(func=cmd_match)

    t = sub.add_parser("tournament", help="play many matches and print the leaderboard")
    game_args(t)
    t.add_argument("--games", type=int, default=100)
    t.add_argument("--seats", nargs="+", default=["house:heuristic", "house:random"],
                   help="agent specs to draw seats from (shuffled per match)")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--concurrency", type=int, default=16)
    t.add_argument("--min-games", type=int, default=0)
    t.set_defaults(func=cmd_tournament)

    lb = sub.add_parser("leaderboard", help="print the leaderboard recomputed from the store")
    lb.add_argument("game", choices=sorted(GAMES))
    lb.add_argument("--tag", default=None)
    lb.add_argument("--min-games", type=int, default=0)
    lb.set_defaults(func=cmd_leaderboard)

    x = sub.add_parser("experiment", help="run the robustness studies and print their tables")
    x.add_argument("study", choices=["attack", "reasoning", "all"])
    x.add_argument("--base", default="house:heuristic")
    x.add_argument("--games", type=int, default=50, help="games per condition")
    x.add_argument("--seed", type=int, default=0)
    x.add_argument("--language", choices=["en", "zh"])
    x.add_argument("--pair")
    x.add_argument("--pairs", metavar="FILE")
    x.add_argument("--settings")
    x.add_argument("--concurrency", type=int, default=8,
                   help="matches in flight (1 for a local model that runs one call at a time)")
    x.set_defaults(func=cmd_experiment)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ValueError as exc:  # unknown agent/game, bad settings: a message, not a traceback
        say(f"error: {exc}", file=sys.stderr)
        return 2
