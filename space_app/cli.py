"""Headless arena: `python -m space_app match|tournament|compare|experiment|leaderboard|bench|verify|copy-store|...`.

Start-up stays small: this module imports nothing of the kernel, the games, the store or the
service at module level; each command imports what it uses when it runs. The parser (every
`--help`) shows the games' ids, setting options, studies and own commands from
`space_app/cli_index.json` (see space_app/cli_index.py), so printing help or parsing a command
line loads no game; a command that needs a game loads the catalogue through the registry, and a
game's own command (e.g. `coe`) loads the games and runs the spec's function. The
`import-muma-tom` options are added only when argv names that command (they live with its
importer, which loads the suites).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from .cli_index import GameFace, game_faces, report_names
from .engine_options import add_engine_args, closing_engine, open_engine_of
from .safe_text import terminal_text
from .store_error import StoreError, lost_store
from .tables import figure, render

DEFAULT_DB = os.environ.get("ARENA_DB", "data/arena.db")
SHOWN_FAILURES = 10  # failed questions `bench` lists by name, with their reasons


def say(*parts: object, **kwargs: Any) -> None:
    """print, with agents' terminal escape codes and bidi controls removed."""
    print(*(terminal_text(p) for p in parts), **kwargs)


def _arena(db: str, engine: Any = None):
    from .service import Arena
    from .store import Store

    return Arena(Store(db), engine=engine)


# the batch-engine options and the engine they open (shared with the games' commands)
_engine = open_engine_of
_closing = closing_engine


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    """Settings from --language, --probes, the games' file settings (e.g. --pairs FILE), their
    shorthands (e.g. --pair tea/coffee) and --settings JSON, in that order."""
    from .core import GAMES

    settings: dict[str, Any] = {}
    if getattr(args, "language", None):
        settings["language"] = args.language
    if getattr(args, "probes", False):
        settings["probes"] = True
    for spec in GAMES.values():
        for key, (_, parse) in spec.rules.setting_shorthands.items():
            value = getattr(args, key, None)
            if value is not None:
                settings[key] = parse(value)
        for key, load in spec.rules.setting_files.items():
            path = getattr(args, key, None)
            if path is not None:
                try:
                    settings[key] = load(Path(path))
                except ValueError as exc:
                    raise SystemExit(f"error: {exc}") from None
    if getattr(args, "settings", None):
        settings.update(json.loads(args.settings))
    return settings


def add_setting_args(p: argparse.ArgumentParser, faces: list[GameFace]) -> None:
    languages = sorted({lang for face in faces for lang in face.languages})
    p.add_argument("--language", choices=languages or None,
                   help="the language of the game (each game is played in its own: "
                        + "; ".join(f"{face.id}: {', '.join(face.languages)}" for face in faces) + ")")
    probed = [face.id for face in faces if face.probes]
    p.add_argument("--probes", action="store_true", help="ask every seat belief probes at the game's moments, "
                   f"in private (games with probes: {', '.join(probed) or 'none'}); see `probes` and "
                   "docs/methodology.md")
    seen: set[str] = set()
    for face in faces:
        for key, text in face.shorthands:
            if key not in seen:
                seen.add(key)
                p.add_argument(f"--{key}", help=text)
        for key in face.setting_files:
            if key not in seen:
                seen.add(key)
                p.add_argument(f"--{key}", metavar="FILE", help=f"{face.id}: read the '{key}' setting from this file")
    p.add_argument("--settings", help="game settings as JSON, e.g. '{\"rounds\": 2}'")


REPLAY_URL = "http://127.0.0.1:7860/"  # where `python app.py` serves the replays of its store


def _deals(args: argparse.Namespace, settings: dict[str, Any]) -> list[dict[str, Any]] | None:
    """--deals FILE: every deal's whole settings, each validated before anything is played; the
    keys the file has that were not read are reported once."""
    if not getattr(args, "deals", None):
        return None
    from .core import get_game
    from .deals import read_deals

    deals = read_deals(Path(args.deals), get_game(args.game), settings)
    if deals.ignored:
        say(f"{args.deals}: {deals.note()}", file=sys.stderr)
    return deals.settings


def cmd_match(args: argparse.Namespace) -> int:
    settings = _settings(args)
    deals = _deals(args, settings)
    if deals is None:
        return _match(args, _arena(args.db), settings)
    arena = _arena(args.db)
    failed = 0
    for i, dealt in enumerate(deals, start=1):
        say(f"\n== deal {i} of {len(deals)}: {json.dumps(dealt.get('deal'), ensure_ascii=False)}", flush=True)
        failed += _match(args, arena, dealt) != 0
    say(f"\n{len(deals) - failed} of {len(deals)} deals played to the end")
    return 0 if not failed else 1


def _match(args: argparse.Namespace, arena: Any, settings: dict[str, Any]) -> int:
    from .core import get_game
    from .core.transcript import plain_line
    from .service import MatchPlan

    seats = args.seats or arena.default_seats(args.game, players=settings.get("players"), settings=settings)
    plan = MatchPlan(args.game, seats, args.seed, settings, tag=args.tag)

    def live(items: list) -> None:
        for _, e in items:
            line = plain_line(e)
            if line is not None:
                say(line, flush=True)

    outcome = arena.run_in_own_loop(arena.run(plan, on_events=live))
    say(f"\nmatch {outcome.match_id}: {outcome.status}")
    if outcome.result:
        roles = outcome.result.get("roles") or {}
        agents = dict(zip(get_game(args.game).facts.seat_names(len(seats), {**settings, "players": len(seats)}),
                          seats, strict=False))
        for seat, pts in outcome.result["scores"].items():
            say(f"  {seat} {agents.get(seat, '?')} ({roles.get(seat, '?')}): {pts:g}")
    say(f"replay: {REPLAY_URL}?match={outcome.match_id} (python app.py on this store)")
    say("again:  " + shlex.join(["python", "-m", "space_app", "--db", args.db, "match", args.game,
                                 "--seats", *seats, "--seed", str(args.seed),
                                 *(["--settings", json.dumps(settings)] if settings else [])]))
    return 0 if outcome.status == "finished" else 1


def print_leaderboard(store: Any, game: str, tag: str | None, min_games: int,
                      sources: str | None = None, void_infra: bool = False, wide: bool = False,
                      by_version: bool = False, version: str | None = None) -> None:
    from .core import get_game
    from .leaderboard import board, cell, columns, headline_columns, kinds_for
    from .sources import describe, parse_kinds
    from .standings import catch_up

    catch_up(store, game)
    kinds = kinds_for(parse_kinds(sources) if sources else None, tag)
    rows = board(store, game, sources=kinds, tag=tag, min_matches=min_games, void_infra=void_infra,
                 by_version=by_version, version=version)
    voided = "; matches with an unreachable agent left out" if void_infra else ""
    split = ("; one row per agent and version (model, revision, SDK)"
             + (f" matching {version!r}" if version else "")) if by_version or version else ""
    say(f"{get_game(game).title} leaderboard. {describe(kinds, tag)}{voided}{split}.")
    spec = get_game(game)
    shown = columns(spec) if wide else headline_columns(spec)
    say(render([{c.key: cell(c, r) for c in shown} for r in rows], [c.key for c in shown]))
    if not wide:
        say(f"\n({len(shown)} of {len(columns(spec))} columns: `leaderboard {game} --wide` prints every one, "
            "`export --what leaderboard` writes them)")


def cmd_tournament(args: argparse.Namespace) -> int:
    engine = _engine(args)
    with _closing(engine):
        return _tournament(args, engine)


def _tournament(args: argparse.Namespace, engine: Any) -> int:
    from .engines.progress import BatchBar

    settings = _settings(args)
    deals = _deals(args, settings)  # refused, naming the deal, before anything is played
    arena = _arena(args.db, engine)
    seats = args.seats or list(dict.fromkeys(arena.default_seats(args.game)))
    arena.check_seats(args.game, [*seats, *(_role_specs(args.role) or {}).values()])  # refused before any bar is drawn
    if args.until_separated or args.until_interval is not None:
        return _stopping_tournament(args, engine, arena, seats, settings, deals)
    if args.max_games is not None or args.max_tokens is not None or args.max_cost is not None:
        raise ValueError("--max-games, --max-tokens and --max-cost are the budget of a tournament with a target "
                         "(--until-separated A B or --until-interval HALF_WIDTH); without one, --games says how "
                         "many matches")
    # every deal once per rotation of the agents over the seats, unless told how many matches
    games = args.games if args.games is not None else (len(deals) * len(seats) if deals else 100)
    with BatchBar(games, f"{args.game} tournament") as bar:
        outcomes = arena.run_in_own_loop(arena.tournament(
            args.game, seats, games, seed=args.seed, concurrency=args.concurrency,
            settings=settings, tag=args.tag, players=args.players, role_specs=_role_specs(args.role),
            tracker=bar, deals=deals))
    return _tournament_summary(args, engine, arena, outcomes, outcomes.seating, bar.skipped)


def _tournament_summary(args: argparse.Namespace, engine: Any, arena: Any, outcomes: list[Any], seating: Any,
                        skipped: int) -> int:
    """A tournament's last lines: matches finished and failed, where they are stored, the
    seating and the leaderboard; the exit code (1 when a match failed)."""
    from .store import shown_url

    failed = [o for o in outcomes if o.status != "finished"]
    before = f" ({skipped} of them before this run)" if skipped else ""
    say(f"{len(outcomes) - len(failed)} matches finished{before}, {len(failed)} failed; "
        f"store: {shown_url(arena.store.url)}" + (f"; engine: ray, {engine.workers} workers" if engine else ""))
    print_seating(seating)
    print_leaderboard(arena.store, args.game, args.tag, args.min_games, wide=args.wide)
    return 0 if not failed else 1


def _stopping_tournament(args: argparse.Namespace, engine: Any, arena: Any, seats: list[str],
                         settings: dict[str, Any], deals: list[dict[str, Any]] | None) -> int:
    """A tournament with a target: looks printed as they come, then why it stopped, the
    seating and the leaderboard."""
    from .engines.progress import BatchBar
    from .sequential import METHOD
    from .tournament_stop import TournamentRule, stopping_tournament

    budget = args.max_games if args.max_games is not None else (args.games if args.games is not None else 100)
    rule = TournamentRule(budget, separate=tuple(args.until_separated) if args.until_separated else None,
                          half_width=args.until_interval, every=args.look_every, max_tokens=args.max_tokens,
                          max_cost=args.max_cost)
    prices = _prices(args)
    say(rule.describe())
    pair = rule.separate

    def on_look(result: Any) -> None:
        if len(result.looks) == 1 and result.expected is not None:
            say(f"pilot ({result.looks[0].deals} deals, {result.looks[0].matches} matches): expected half-width "
                f"at the budget ({result.expected_deals} deals) ±{result.expected:.3f}", flush=True)
        k = result.looks[-1]
        line = f"look {k.look}: {k.deals} deals, {k.matches} matches"
        if pair is not None and k.pair is not None:
            line += (f"; {pair[0]} − {pair[1]} {k.pair.mean:+.3f} [{k.pair.low:+.3f}, {k.pair.high:+.3f}], "
                     f"{pair[0]} better in {k.pair.a_better} deals, {pair[1]} in {k.pair.b_better}, "
                     f"evidence {k.pair.evidence:.3g}")
        elif pair is None:
            agent, width = k.widest(result.specs)
            line += f"; widest interval {agent} ±{width:.3f}"
        if result.spent is not None:
            line += f"; {result.spent['tokens']:,.0f} tokens"
            line += f", {result.spent['cost_usd']:.4f} USD" if result.spent["cost_usd"] is not None else ""
        say(line, flush=True)

    with BatchBar(budget, f"{args.game} tournament") as bar:
        result = arena.run_in_own_loop(stopping_tournament(
            arena, args.game, seats, rule, seed=args.seed, concurrency=args.concurrency, settings=settings,
            tag=args.tag, players=args.players, role_specs=_role_specs(args.role), tracker=bar, deals=deals,
            prices=prices, on_look=on_look))
    say(f"stopped after {result.matches} of {budget} matches ({len(result.blocks)} deals): {result.stopped}")
    if pair is not None:
        say(result.to_dict()["test"])
    final = result.looks[-1] if result.looks else None
    if final is not None and final.agents:
        say(render([{"agent": a, "deals": k.deals, "win rate": f"{k.mean:.3f}", "interval": f"[{k.low:.3f}, "
                     f"{k.high:.3f}]"} for a, k in final.agents.items()], ["agent", "deals", "win rate", "interval"]))
        say(f"win rate: the agent's mean win over its seats per deal; {METHOD}")
    return _tournament_summary(args, engine, arena, result.outcomes, result.seating, bar.skipped)


def _prices(args: argparse.Namespace) -> Any:
    """The operator's price table (ARENA_PRICES); `--max-cost` without one is refused."""
    from .prices import parse_prices

    prices = parse_prices(os.environ.get("ARENA_PRICES"))
    if args.max_cost and not prices:
        raise ValueError("--max-cost needs a price table: set ARENA_PRICES (see docs/methodology.md)")
    return prices


def print_seating(seating: Any) -> None:
    """The schedule's agent × role and agent × seat position counts, and what they guarantee."""
    say(seating.note())
    say("\nseats taken per role")
    say(render(seating.role_rows(), ["agent", *seating.roles]))
    say("\nseats taken per seat position")
    say(render(seating.seat_rows(), ["agent", *seating.seat_names]))
    say("")


def cmd_compare(args: argparse.Namespace) -> int:
    engine = _engine(args)
    with _closing(engine):
        return _compare(args, engine)


def _compare(args: argparse.Namespace, engine: Any) -> int:
    from .compare import INTERVAL, TEST, compare
    from .engines.progress import BatchBar
    from .sequential import StopRule
    from .store import shown_url

    stop = None
    if args.until_separated or args.until_interval is not None or args.max_tokens or args.max_cost:
        stop = StopRule(separated=args.until_separated, half_width=args.until_interval, every=args.look_every,
                        max_tokens=args.max_tokens, max_cost=args.max_cost)
    prices = _prices(args)
    deals = 100 if args.deals is None else args.deals
    if args.max_games is not None:  # a budget in matches: two per deal
        if args.max_games < 2:
            raise ValueError(f"--max-games: a deal is two matches, give at least 2 (got {args.max_games})")
        deals = args.max_games // 2 if args.deals is None else min(deals, args.max_games // 2)
    arena = _arena(args.db, engine)
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()] if args.opponents else None
    with BatchBar(2 * deals, f"{args.game} compare") as bar:
        result = arena.run_in_own_loop(compare(
            arena, args.a, args.b, args.game, deals, opponents=opponents, seed=args.seed, players=args.players,
            settings=_settings(args), measure=args.measure, concurrency=args.concurrency, tag=args.tag,
            tracker=bar, stop=stop, prices=prices))
    out = result.to_dict()
    if args.json:
        print(json.dumps({k: v for k, v in out.items() if k != "per_deal"}, ensure_ascii=False, indent=2))
        return 0
    what = "win (1 if the seat's side won, else 0)" if result.measure == "win" else "the seat's game score"
    say(f"duplicate comparison in {result.game}: A = {result.a}, B = {result.b}; {out['deals']} deals "
        f"(seed {result.seed}, {result.players} players), each played twice with A and B in the same seat "
        f"against the same opponents ({', '.join(result.opponents)})")
    if result.dropped:
        say(f"{result.dropped} deals dropped: one of their two matches did not finish")
    if not out["deals"]:
        say("no deal was played to its end")
        return 1
    say(f"measure: {what}; difference A − B per deal")
    seq = out["sequential"]
    if seq is not None:
        say(f"{seq['rule']} (budget {seq['budget_deals']} deals)")
        if seq["expected_half_width_at_budget"] is not None:
            say(f"expected half-width at the budget ({seq['expected_deals']} deals), from the first look: "
                f"±{seq['expected_half_width_at_budget']:.3f}")
        say(render([{"look": k["look"], "deals": k["deals"], "mean A − B": f"{k['mean']:+.3f}",
                     "interval": f"[{k['low']:+.3f}, {k['high']:+.3f}]", "A better": k["a_better"],
                     "B better": k["b_better"], "evidence": f"{k['evidence']:.3g}"} for k in seq["looks"]],
                   ["look", "deals", "mean A − B", "interval", "A better", "B better", "evidence"]))
        say(f"stopped after {seq['deals']} of {seq['budget_deals']} deals: {seq['stopped']}")
        if seq["spent"] is not None:
            cost = seq["spent"]["cost_usd"]
            say(f"used {seq['spent']['tokens']:,.0f} tokens over {seq['spent']['matches']} matches"
                + (f", {cost:.4f} USD" if cost is not None else ", cost unknown (no model of it has a price)")
                + (f" ({seq['spent']['unpriced_tokens']:,.0f} tokens unpriced)" if seq["spent"]["unpriced_tokens"]
                   else ""))
        if "separates" in seq["rule"]:
            say(seq["test"])
        say(f"mean difference {out['mean']:+.3f} (A {out['mean_a']:.3f}, B {out['mean_b']:.3f}), "
            f"95% interval [{seq['low']:+.3f}, {seq['high']:+.3f}]: {seq['method']}")
    else:
        say(f"mean difference {out['mean']:+.3f} (A {out['mean_a']:.3f}, B {out['mean_b']:.3f}), "
            f"95% interval [{out['low']:+.3f}, {out['high']:+.3f}]: {INTERVAL}")
    say(f"A better on {out['a_better']} deals, B better on {out['b_better']}, the same on {out['same']}; "
        f"{TEST}: p = {out['p_value']:.3g}")
    rows = [{"seat role": role, "deals": r["deals"], "A better": r["a_better"], "B better": r["b_better"],
             "same": r["same"], "mean A − B": f"{r['mean']:+.3f}",
             "95% interval": f"[{r['low']:+.3f}, {r['high']:+.3f}]"} for role, r in out["by_role"].items()]
    say(render(rows, ["seat role", "deals", "A better", "B better", "same", "mean A − B", "95% interval"]))
    say(f"matches tagged {result.tag} ({2 * (out['deals'] + result.dropped)} matches; "
        f"store: {shown_url(arena.store.url)})")
    return 0


def _role_specs(given: list[str] | None) -> dict[str, str] | None:
    """--role merlin=house:avalon-random (repeatable): who plays every seat dealt that role."""
    out = {}
    for item in given or []:
        role, _, spec = item.partition("=")
        if not role or not spec:
            raise ValueError(f"--role {item!r}: give ROLE=AGENT, e.g. merlin=house:avalon-random")
        out[role.strip()] = spec.strip()
    return out or None


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from .store import Store

    print_leaderboard(Store(args.db), args.game, args.tag, args.min_games, args.sources, args.void_infra, args.wide,
                      args.by_version, args.agent_version)
    return 0


def cmd_experiment(args: argparse.Namespace) -> int:
    from .core import get_game

    if args.study == TOM_IN_PLAY:
        if args.base or args.judge:
            raise ValueError(f"the {TOM_IN_PLAY} study takes --agents, not --base or --judge")
        return _tom_in_play(args)
    if args.agents is not None or args.limit is not None or args.in_games is not None:
        raise ValueError(f"--agents, --limit and --in belong to the {TOM_IN_PLAY} study")
    args.games = 50 if args.games is None else args.games
    spec = get_game(args.game)
    if args.study != "all" and args.study not in spec.extras.studies:
        raise ValueError(f"{spec.id} has no study {args.study!r}; known: {', '.join(spec.extras.studies) or 'none'}")
    engine = _engine(args)
    with _closing(engine):
        return _experiment(args, spec, engine)


def _experiment(args: argparse.Namespace, spec: Any, engine: Any) -> int:
    import inspect

    arena = _arena(args.db, engine)
    names = list(spec.extras.studies) if args.study == "all" else [args.study]
    for name in names:
        study = spec.extras.studies[name]
        base = args.base or inspect.signature(study.run).parameters["base"].default
        extra = {"judge": args.judge} if args.judge else {}  # only studies that take an LLM judge
        if extra and "judge" not in inspect.signature(study.run).parameters:
            raise ValueError(f"{spec.id} study {name!r} takes no --judge")
        rows = arena.run_in_own_loop(study.run(arena, base=base, games=args.games, seed=args.seed,
                                               settings=_settings(args) or None, concurrency=args.concurrency,
                                               **extra))
        say(f"\n{study.title} (base agent {base}, {args.games} games per condition)")
        say("\n".join(study_report(study, rows, seed=args.seed)))
    return 0


def _tom_in_play(args: argparse.Namespace) -> int:
    """Probe scores beside ToM suite scores for the agents named, and their correlation."""
    from .reports import markdown
    from .tom_in_play import DEFAULT_AGENTS, chosen_games, run, tables

    names = [a.strip() for a in (args.agents or ",".join(DEFAULT_AGENTS)).split(",") if a.strip()]
    only = [g.strip() for g in args.in_games.split(",") if g.strip()] if args.in_games else None
    games, limit = args.games or 10, args.limit or 60
    engine = _engine(args)
    with _closing(engine):
        arena = _arena(args.db, engine)
        rows, left = arena.run_in_own_loop(run(arena, names, games=games, seed=args.seed, limit=limit,
                                               concurrency=args.concurrency, settings=_settings(args) or None,
                                               say=lambda line: say(line, file=sys.stderr), only=only))
    which = f" ({', '.join(chosen_games(only))} only)" if only else ""
    say(f"ToM in play vs ToM in questions: {games} probed self-play matches per game{which} and agent "
        f"(seed {args.seed}), "
        f"a fixed sample of {limit} tom-household questions")
    say(markdown(tables(rows, left, seed=args.seed)))
    return 0


def study_report(study: Any, rows: list[dict[str, Any]], seed: int) -> list[str]:
    """A study as it should be reported: what it does, each condition in words with its tag,
    seeds and match ids, then the table with every figure's 95% interval and sample size."""
    out = [f"What it does: {study.describe}.",
           f"Seed {seed}: every condition plays the same deals (seeds); the rows differ only by their condition."]
    for r in rows:
        seeds = r.get("seeds") or []
        shown = ", ".join(map(str, seeds[:8])) + (f", … ({len(seeds)} in all)" if len(seeds) > 8 else "")
        ids = r.get("match_ids") or []
        out.append(f"- {r['condition']}: {r.get('what', '')}")
        out.append(f"    tag {r.get('tag', '')}; seeds {shown or '-'}")
        out.append(f"    matches: {' '.join(ids)}" if ids else "    matches: none")
    out.append("")
    out.append(render([{c: figure(r, c) for c in study.columns} for r in rows], study.columns))
    out.append("Figures: value [95% interval] n=…; Wilson for rates, a seeded bootstrap for means (over what "
               "the study names: seats, answers, statements). Every match: python -m space_app export --tag TAG.")
    return out


def cmd_verify(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from .store import Store, shown_url
    from .verify import verify_match

    store = Store(args.db, recover=False)
    if args.match_ids:
        found = [store.get_match(m) for m in args.match_ids]
        missing = [m for m, f in zip(args.match_ids, found, strict=True) if f is None]
        if missing:
            raise ValueError(f"no match {', '.join(missing)} in {shown_url(store.url)}")
        matches = [f for f in found if f is not None]
        total = len(matches)
        origins = store.match_origins(args.match_ids)
    elif args.all or args.game:
        matches = store.iter_matches(args.game, status=None)
        total = store.count_matches(args.game)
        origins = store.match_origins()
    else:
        raise ValueError("name matches to verify, or give --all (or --game GAME)")
    counts: dict[str, int] = {}
    authentic: dict[str, int] = {}
    prefixes_differ = 0  # branches whose shared prefix is not their parent's
    started = time.perf_counter()
    with tqdm(total=total, desc="verify", unit="match", file=sys.stderr, disable=total < 20) as bar:
        for match in matches:
            result = verify_match(match, origins.get(match["id"], ""))
            counts[result.verdict] = counts.get(result.verdict, 0) + 1
            authentic[result.authenticity] = authentic.get(result.authenticity, 0) + 1
            # a named match always gets its line: the caller asked about it
            if not result.ok or args.verbose or args.match_ids:
                say(result.line())
            # a branch's prefix must be its parent's: a branch whose prefix differs is a record that differs
            link = store.branch_of(match["id"])
            if link is not None:
                from .branches import check_prefix

                prefix = check_prefix(match, link, store.get_match(link["parent_id"]))
                if not prefix.ok:
                    prefixes_differ += 1
                if not prefix.ok or args.verbose or args.match_ids:
                    say(prefix.line())
            if args.match_ids:
                for line in _branches_made(store, match["id"]):
                    say(line)
            bar.update(1)
    seconds = time.perf_counter() - started
    checked = sum(counts.values())
    say(f"{checked} matches: " + ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
        + ("; " + ", ".join(f"{n} {a}" for a, n in sorted(authentic.items())) if authentic else "")
        + (f" ({checked / seconds:.0f} matches/s)" if seconds > 0 and checked else "")
        + (f"; {prefixes_differ} branch(es) whose shared prefix differs from its parent's" if prefixes_differ else ""))
    return 0 if counts.get("differs", 0) == 0 and not prefixes_differ else 1


def cmd_branch(args: argparse.Namespace) -> int:
    from .branches import branch_study, check_prefix, study_lines

    arena = _arena(args.db)
    study = arena.run_in_own_loop(branch_study(arena, args.match_id, args.from_step, args.seat, args.agent,
                                               args.samples, args.concurrency))
    for line in study_lines(study):
        say(line)
    parent = arena.store.get_match(args.match_id)
    checks = [check_prefix(arena.store.get_match(r.match_id) or {"id": r.match_id},
                           arena.store.branch_of(r.match_id) or {}, parent) for r in study.runs]
    bad = [c for c in checks if not c.ok]
    for c in bad:
        say(c.line())
    if not bad and checks:
        say(f"verify: each branch's first {checks[0].events} events are {args.match_id}'s, byte for byte")
    return 1 if bad else 0


def _branches_made(store: Any, match_id: str) -> list[str]:
    """For `verify` of a named match: the branches made from it."""
    return [f"{match_id}: branched at step {row['from_step']} into {row['match_id']} ({row['seat']}: "
            f"{row['agent_id']}, {row['arm']}, sample {row['sample']}, {row['status']})"
            for row in store.branches_of(match_id)]


def cmd_probes(args: argparse.Namespace) -> int:
    from .probe_report import calibration, scored_probes, summarise
    from .stats import Rate
    from .store import Store

    store = Store(args.db, recover=False)
    by = [name.strip() for name in args.by.split(",") if name.strip()]
    probes = [p for match in store.iter_matches(args.game, tag=args.tag) for p in scored_probes(match)]
    if not probes:
        say(f"no belief probes in the {args.game or 'stored'} matches" + (f" tagged {args.tag!r}" if args.tag else "")
            + ": play matches with probes on, e.g. python -m space_app match spy --probes")
        return 0
    rows = summarise(probes, by)
    for row in rows:
        for key in ("brier", "log_loss", "top1"):
            row[f"{key}_shown"] = figure(row, key)
    say(render(rows, [*by, "brier_shown", "log_loss_shown", "top1_shown", "asked", "unreadable"],
               [*by, "Brier (95% CI, n)", "log loss (95% CI, n)", "top guess (95% CI, n)", "asked", "unreadable"]))
    if args.calibration:
        for key, bins in calibration(probes, by[:1] or ["agent"]).items():
            say(f"\nreliability: {' / '.join(key)}")
            shown = [{"p": f"{b.low:.1f}-{b.high:.1f}", "n": b.n, "mean_p": b.mean_p,
                      "observed": figure(Rate(b.hits, b.n).to_dict("f"), "f")} for b in bins]
            say(render(shown, ["p", "n", "mean_p", "observed"], ["p", "n", "mean p", "observed (95% CI, n)"]))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from .suites import open_suite

    suite = open_suite(args.suite)
    if suite.loaded.dropped or suite.loaded.repaired:
        say(suite.loaded.report(), file=sys.stderr)
    if args.strict and suite.loaded.dropped:
        raise ValueError(f"{suite.loaded.path}: {len(suite.loaded.dropped)} questions could not be read "
                         "(listed above); --strict runs only a whole suite")
    engine = _engine(args)
    with _closing(engine):
        return _bench(args, suite, engine)


def _bench(args: argparse.Namespace, suite: Any, engine: Any) -> int:
    from .engines.progress import BatchBar
    from .suites.run import run_suite
    from .tables import render

    arena = _arena(args.db, engine)
    arena.catalogue.check_plays(args.agent, suite.game)
    # on Ray each worker resolves the agent itself; here it is checked, and used in process
    agent = arena.catalogue.resolve(args.agent)
    if args.condition:
        from .runner import sees_images
        from .suites.conditions import with_condition

        conditioned = with_condition(suite, args.condition, vision=sees_images(agent))
        suite = conditioned.suite
        if conditioned.left_out:
            say(f"{suite.id}: {conditioned.left_out} questions have no visual data and are left out", file=sys.stderr)
    total = min(args.limit or len(suite.loaded.items), len(suite.loaded.items))
    with BatchBar(total, f"{suite.id} · {args.agent}", unit="q") as bar:
        scores = arena.run_in_own_loop(run_suite(
            arena.store, suite, None if engine else agent, args.agent, limit=args.limit,
            concurrency=args.concurrency, seconds=args.seconds, fresh=args.fresh, engine=engine, tracker=bar))
    out = scores.to_dict()
    if args.json:
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    say(f"{suite.id}: {args.agent} answered {scores.answered} questions, {scores.concurrency} at a time; "
        f"unparsed {_pct(out['unparsed_rate'])}, timeouts/errors {_pct(out['failed_rate'])}"
        + (f"; {scores.to_retry} could not reach the agent (asked again next run)" if scores.to_retry else ""))
    for failure in scores.failures[:SHOWN_FAILURES]:
        again = " (asked again next run)" if failure["retry"] else ""
        say(f"  {failure['item_id']}: {failure['status']}: {failure['reason'][:160]}{again}")
    if len(scores.failures) > SHOWN_FAILURES:
        say(f"  ... and {len(scores.failures) - SHOWN_FAILURES} more (every one with --json)")
    rows = [{"type": "all", **_ci(out, "accuracy")}]
    rows += [{"type": t, **_ci(r, "accuracy")} for t, r in out["by_type"].items()]
    if args.by_tag:
        rows += [{"type": t, **_ci(r, "accuracy")} for t, r in out["by_tag"].items()]
    say(render(rows, ["type", "n", "accuracy", "95% interval"]))
    return 0


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _ci(r: dict[str, Any], key: str) -> dict[str, Any]:
    low, high = r[f"{key}_low"], r[f"{key}_high"]
    return {"n": r[f"{key}_n"], "accuracy": _pct(r[key]),
            "95% interval": "-" if low is None else f"[{100 * low:.1f}, {100 * high:.1f}]"}


def cmd_rescore(args: argparse.Namespace) -> int:
    from .core import GAMES
    from .standings import rescore
    from .store import Store

    store = Store(args.db, recover=False)
    games = [args.game] if args.game else sorted(GAMES)
    failed = False
    for game in games:
        report = rescore(store, game)
        for line in report.lines():
            say(line)
        failed = failed or bool(report.failed)
    return 1 if failed else 0


def cmd_export(args: argparse.Namespace) -> int:
    from .export import rows, snapshot, write
    from .prices import parse_prices
    from .sources import parse_kinds
    from .store import Store

    if args.what == "log":  # one self-contained run log (docs/run-log.md)
        return export_log(args)
    if not args.game:
        raise SystemExit(f"export --what {args.what} needs --game")
    if args.match:
        raise SystemExit("--match is for --what log")
    if args.what == "snapshot":  # one JSON document: the leaderboard with its filter and versions
        doc = snapshot(Store(args.db, recover=False), args.game, tag=args.tag, void_infra=args.void_infra,
                       sources=parse_kinds(args.sources) if args.sources else None)
        text = json.dumps(doc, ensure_ascii=False, indent=1, default=str) + "\n"
        if args.out:
            Path(args.out).write_text(text, encoding="utf-8")
            print(f"snapshot of {len(doc['rows'])} rows over {doc['matches']} matches written to {args.out}",
                  file=sys.stderr)
        else:
            sys.stdout.write(text)
        return 0
    records = rows(Store(args.db, recover=False), args.game, args.what, args.format, tag=args.tag,
                   sources=parse_kinds(args.sources) if args.sources else None,
                   prices=parse_prices(os.environ.get("ARENA_PRICES")) if args.what == "accounting" else None)
    if args.out:
        with open(args.out, "w", encoding="utf-8", newline="") as out:
            n = write(out, records, args.format)
        print(f"{n} {args.what} rows written to {args.out}", file=sys.stderr)
    else:
        write(sys.stdout, records, args.format)
    return 0


def export_log(args: argparse.Namespace) -> int:
    from .run_log import RunLogError, stored_matches, write_log
    from .store import Store

    try:
        matches = stored_matches(Store(args.db, recover=False), tag=args.tag, match_id=args.match)
    except RunLogError as exc:
        raise SystemExit(str(exc)) from None
    if args.game:
        matches = [m for m in matches if m["game"] == args.game]
    what = {"tag": args.tag, "match": args.match, "game": args.game}
    if args.out:
        with open(args.out, "w", encoding="utf-8", newline="\n") as out:
            end = write_log(out, matches, what)
        print(f"run log of {end.matches} matches, {end.events} events and {end.calls} calls written to {args.out}",
              file=sys.stderr)
    else:
        write_log(sys.stdout, matches, what)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from .core.report import MixedRuns, ReportQuery
    from .reports import agents_arg, build, render
    from .store import Store

    query = ReportQuery(agents=agents_arg(args.agents), tag=args.tag, split=args.split)
    try:
        tables = build(Store(args.db, recover=False), args.name, query)
    except MixedRuns as exc:
        say(f"error: {exc}", file=sys.stderr)
        return 3
    text = render(tables, args.format)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"{len(tables)} tables of report {args.name} written to {args.out}", file=sys.stderr)
    else:
        say(text)
    return 0


def cmd_copy_store(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from .copy_store import copy_store
    from .store import Store

    source = Store(args.source, recover=False)  # a store in use keeps its running matches as they are
    target = Store(args.target, recover=False)
    with tqdm(desc="copy-store", unit="row", file=sys.stderr, disable=args.quiet) as bar:
        report = copy_store(source, target, chunk=args.chunk, progress=lambda _, n: bar.update(n))
    for line in report.lines():
        say(line)
    source.close()
    target.close()
    return 0 if report.ok else 1


SOURCES_HELP = ("match sources to include: 'default' (visitor, human and tournament matches), 'all', or a comma "
                "list of demo, visitor, human, tournament, study (default: 'default'; with --tag: every match "
                "of that tag)")


IMPORT_MUMA_TOM = "import-muma-tom"
TOM_IN_PLAY = "tom-in-play"  # the generic study of `experiment` (space_app/tom_in_play.py)
DEALS_HELP = ("a JSON list of fixed deals, each validated before any match is played (avalon: roles by seat and "
              "the first leader, AvalonBench's preset files as published; spy: the spy's seat and the word pair; "
              "mystery: the character of each seat; see docs/deals.md)")


def add_budget_args(p: argparse.ArgumentParser, when: str, whose: str, checked: str, look_every: int) -> None:
    """The token and cost budgets of a run that may stop early, and how often it looks
    (tournament and compare)."""
    p.add_argument("--max-tokens", type=float, default=None, metavar="N",
                   help=f"{when}stop once {whose} have used N tokens (every seat, as the agents report them; "
                        f"checked {checked})")
    p.add_argument("--max-cost", type=float, default=None, metavar="USD",
                   help=f"{when}stop once they have cost USD, priced by ARENA_PRICES (checked {checked})")
    p.add_argument("--look-every", type=int, default=look_every, metavar="N",
                   help=f"{when or 'with a stopping rule: '}look after every N deals (default {look_every})")


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The whole command line, shown from the games' index (no game is imported). The options
    of `import-muma-tom` are added when `argv` names it, or when no `argv` is given (every
    command complete, as tests walk it)."""
    faces = game_faces()
    games = sorted(face.id for face in faces)
    parser = argparse.ArgumentParser(prog="python -m space_app", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--db", default=DEFAULT_DB, help="SQLite file or database URL "
                        f"(default {DEFAULT_DB}; env ARENA_DB)")
    sub = parser.add_subparsers(dest="command", required=True)

    def game_args(p: argparse.ArgumentParser, tag: str) -> None:
        p.add_argument("game", choices=games)
        add_setting_args(p, faces)
        p.add_argument("--tag", default=tag, help=f"label stored with the matches (default {tag!r}; a tag "
                       "starting 'study:' marks study matches, left out of leaderboards unless asked for)")

    m = sub.add_parser("match", help="play one match and print its transcript")
    game_args(m, "cli")
    m.add_argument("--seats", nargs="+", default=None,
                   help="agent spec per seat (default: the game's own house agents, turned over its table)")
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--deals", metavar="FILE", default=None, help=DEALS_HELP + "; one match per deal, in order")
    m.set_defaults(func=cmd_match)

    t = sub.add_parser("tournament", help="play many matches and print the leaderboard")
    game_args(t, "tournament")
    t.add_argument("--games", type=int, default=None, help="matches to play (default 100; with --deals, every "
                   "deal once per rotation of the agents over the seats)")
    t.add_argument("--deals", metavar="FILE", default=None, help=DEALS_HELP + "; the tournament's deals, taken in turn")
    t.add_argument("--seats", nargs="+", default=None,
                   help="agent specs; each deal is played once per rotation of them over the seats "
                        "(balanced seating: use a multiple of their number of --games for equal counts; "
                        "default: the game's own house agents, e.g. spy: house:heuristic house:random)")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--concurrency", type=int, default=16)
    t.add_argument("--min-games", type=int, default=0)
    t.add_argument("--players", type=int, default=None, help="seats per match (default: the game's)")
    t.add_argument("--role", action="append", metavar="ROLE=AGENT",
                   help="seat this agent wherever ROLE is dealt (repeatable), e.g. merlin=house:avalon-random")
    t.add_argument("--wide", action="store_true", help="every column of the game's leaderboard (default: the "
                   "compact board: matches, seats, rating with its 95%% interval, win %%, the game's headline metric)")
    t.add_argument("--until-separated", nargs=2, metavar=("A", "B"), default=None,
                   help="stop once a sequential sign test separates agents A and B (both among --seats), seated "
                        "together in every deal, A and B swapped on the same deal; or at the budget, claiming no "
                        "difference; see docs/methodology.md")
    t.add_argument("--until-interval", type=float, default=None, metavar="HALF_WIDTH",
                   help="stop once every agent's anytime-valid 95%% win-rate interval has at most this half-width")
    t.add_argument("--max-games", type=int, default=None, metavar="N",
                   help="with a target: the most matches it may play (default --games, else 100; whole deals "
                        "only, never more than N)")
    add_budget_args(t, "with a target: ", "its matches", "after each look", look_every=10)
    add_engine_args(t)
    t.set_defaults(func=cmd_tournament)

    c = sub.add_parser("compare", help="duplicate mode: two agents on the same deals, swapped into the same seat "
                       "against the same opponents; the paired difference with its interval and a sign test")
    c.add_argument("a", metavar="A", help="agent spec, e.g. house:heuristic")
    c.add_argument("b", metavar="B", help="agent spec, e.g. house:random (may be A again)")
    c.add_argument("--game", default="spy", choices=games)
    c.add_argument("--deals", type=int, default=None,
                   help="deals, each played twice (default 100, or half --max-games); with a stopping rule, the "
                        "most it may play")
    c.add_argument("--max-games", type=int, default=None, metavar="N",
                   help="the most matches it may play: N // 2 deals (with --deals, the smaller of the two)")
    c.add_argument("--until-separated", action="store_true",
                   help="stop as soon as an anytime-valid 95%% interval of A − B excludes 0 (or at --deals, "
                        "claiming no difference); see docs/methodology.md")
    c.add_argument("--until-interval", type=float, default=None, metavar="HALF_WIDTH",
                   help="stop as soon as that interval's half-width is at most HALF_WIDTH (e.g. 0.05)")
    add_budget_args(c, "", "the comparison's matches", "after each batch", look_every=20)
    c.add_argument("--opponents", default=None, metavar="SPEC,...",
                   help="agents for the other seats, turned over them deal by deal "
                        "(default: the game's first random-fill house agent)")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--players", type=int, default=None, help="seats per match (default: the game's)")
    c.add_argument("--measure", choices=["win", "score"], default="win",
                   help="the seat's outcome: win = 1/0 (default) or its game score")
    c.add_argument("--concurrency", type=int, default=16)
    c.add_argument("--tag", default="", help="label stored with the matches (default compare:<A>-vs-<B>:<seed>)")
    c.add_argument("--json", action="store_true", help="print the result as JSON")
    add_setting_args(c, faces)
    add_engine_args(c)
    c.set_defaults(func=cmd_compare)

    lb = sub.add_parser("leaderboard", help="print the leaderboard recomputed from the store")
    lb.add_argument("game", choices=games)
    lb.add_argument("--tag", default=None, help="only matches with this tag (of any source)")
    lb.add_argument("--sources", default=None, help=SOURCES_HELP)
    lb.add_argument("--void-infra", action="store_true", help="leave out matches in which a call could not reach "
                    "its agent (connection refused, DNS, a Space that never woke): see docs/methodology.md")
    lb.add_argument("--min-games", type=int, default=0)
    lb.add_argument("--by-version", action="store_true", help="one row per agent and version: the model, "
                    "revision and SDK version it reported for each match (rated apart)")
    lb.add_argument("--agent-version", default=None, metavar="TEXT", help="only agent versions whose label "
                    "contains TEXT, e.g. a model name or 'rev 3f2a9c1' (implies --by-version)")
    lb.add_argument("--wide", action="store_true", help="every column of the game's leaderboard (default: the "
                   "compact board: matches, seats, rating with its 95%% interval, win %%, the game's headline metric)")
    lb.set_defaults(func=cmd_leaderboard)

    pr = sub.add_parser("probes", help="belief probes of stored matches scored against the truth: Brier score, "
                        "log loss and top-guess accuracy per agent, role, moment and question, with 95%% intervals")
    pr.add_argument("--game", choices=games, default=None, help="one game's matches (default: every game)")
    pr.add_argument("--tag", default=None, help="only matches with this tag")
    pr.add_argument("--by", default="agent,role,moment,question",
                    help="how rows are grouped: a comma list of agent, role, moment, question (default: all four)")
    pr.add_argument("--calibration", action="store_true", help="also print the reliability diagram (forecasts "
                    "binned by probability, the observed frequency beside their mean) of each group's first key")
    pr.set_defaults(func=cmd_probes)

    studies = sorted({name for face in faces for name in face.studies})
    x = sub.add_parser("experiment", help="run a game's studies and print their tables; tom-in-play: every game's "
                       "belief probes beside the tom-household suite's accuracy per type, correlated across agents")
    x.add_argument("study", choices=[*studies, TOM_IN_PLAY, "all"])
    x.add_argument("--game", default="spy", choices=games, help="whose studies (default spy)")
    x.add_argument("--base", default=None, help="the agent every seat plays (default: the study's own, e.g. "
                   "house:heuristic for spy, house:smollm2 for avalon's intentions)")
    x.add_argument("--games", type=int, default=None, help="games per condition (default 50; tom-in-play: "
                   "probed matches per game and agent, default 10)")
    x.add_argument("--agents", default=None, metavar="A,B,...", help="tom-in-play: the agents (default "
                   "house-rules,house-random: each game's rule bots with house:overlap answering the suite, its "
                   "random bots with house:guess; a spec such as house:smollm2 plays and answers itself; "
                   "PLAY@ANSWER pairs them, e.g. house-rules@house:guess)")
    x.add_argument("--limit", type=int, default=None, help="tom-in-play: a fixed sample of N suite questions "
                   "(default 60; a larger N includes a smaller one's)")
    x.add_argument("--in", dest="in_games", default=None, metavar="GAME,...", help="tom-in-play: play only these "
                   "games with probes (default: every one), the same for every agent; e.g. --in spy for a slow model")
    x.add_argument("--seed", type=int, default=0)
    add_setting_args(x, faces)
    x.add_argument("--concurrency", type=int, default=8,
                   help="matches in flight (1 for a local model that runs one call at a time)")
    x.add_argument("--judge", default="", help="an agent spec whose model judges the matches (studies that "
                   "take an LLM judge, e.g. avalon's intentions: --judge house:smollm2)")
    add_engine_args(x)
    x.set_defaults(func=cmd_experiment)

    v = sub.add_parser("verify", help="replay stored matches through their game and check every event; "
                       "say whether each record was written here or restored with a verified signature")
    v.add_argument("match_ids", nargs="*", metavar="MATCH_ID")
    v.add_argument("--all", action="store_true", help="every stored match")
    v.add_argument("--game", choices=games, help="every stored match of this game")
    v.add_argument("--verbose", action="store_true", help="a line for identical matches too")
    v.set_defaults(func=cmd_verify)

    br = sub.add_parser("branch", help="counterfactual branch: replay a stored match's recorded replies up to a "
                        "step, then play on with another agent in one seat; with --samples, a study of that "
                        "seat's effect on its win rate (the agent vs the parent's, from the same state)")
    br.add_argument("match_id", metavar="MATCH_ID", help="the stored match to branch (the parent)")
    br.add_argument("--from-step", type=int, required=True, metavar="K",
                    help="the replay's step (the Watch tab's step slider: spectator events, from 1); every "
                         "request before step K's event gets the parent's recorded reply, the rest are played")
    br.add_argument("--seat", required=True, help="the seat that changes hands at step K, e.g. P3")
    br.add_argument("--agent", required=True, help="agent spec for that seat from step K, e.g. house:heuristic")
    br.add_argument("--samples", type=int, default=None, metavar="N",
                    help="play N branches with --agent and N with the parent's agent in that seat, and print "
                         "the effect on the seat's win rate with a 95%% interval (default: one branch)")
    br.add_argument("--concurrency", type=int, default=4, help="branches played at once (default 4)")
    br.set_defaults(func=cmd_branch)

    b = sub.add_parser("bench", help="run an agent's answer over a question suite and print its accuracy")
    b.add_argument("suite", help="a shipped suite (tom-household), a .jsonl file in the suite format, or a folder a "
                   "game reads as questions (a murder script folder: its CoE question sets, where it lies)")
    b.add_argument("--agent", required=True, help="agent spec, e.g. house:guess, house:smollm2, a registered id")
    b.add_argument("--limit", type=int, default=None,
                   help="a fixed sample of N questions spread over the file (a larger N includes a smaller one's)")
    b.add_argument("--concurrency", type=int, default=1,
                   help="questions in flight at once (default 1: a local model or a one-slot server answers one "
                        "at a time; raise it for a provider that serves many)")
    b.add_argument("--seconds", type=float, default=60.0, help="time allowed per answer")
    b.add_argument("--fresh", action="store_true", help="forget this agent's stored answers and ask again")
    b.add_argument("--json", action="store_true", help="print the scores as JSON")
    b.add_argument("--strict", action="store_true", help="refuse a suite file with any unreadable question")
    b.add_argument("--by-tag", action="store_true", help="accuracy per tag value too (phrasing=least, ...)")
    b.add_argument("--condition", choices=("multimodal", "text", "video", "track"),
                   help="for items with a video half (import-muma-tom --visual-data): text and keyframes (the "
                        "action track for a text-only agent), text only, video only, or text and action track; "
                        "stored apart as SUITE@CONDITION")
    add_engine_args(b, "questions")
    b.set_defaults(func=cmd_bench)

    r = sub.add_parser("rescore", help="derive every finished match's per-seat records again from its events, "
                       "check them against the stored ones and rebuild totals and ratings")
    r.add_argument("--game", choices=games, help="only this game (default: every game)")
    r.set_defaults(func=cmd_rescore)

    for face in faces:  # each game's own commands (e.g. validate-scripts)
        for name, text in face.commands:
            # argparse %-formats help text: a game's plain "95%" must reach it as "95%%"
            c = sub.add_parser(name, help=f"{face.id}: {text}".replace("%", "%%"), add_help=False)
            c.add_argument("rest", nargs=argparse.REMAINDER)
            c.set_defaults(func=lambda args, name=name: run_game_command(name, list(args.rest)))

    # the published MuMA-ToM files as a suite; its options live with its importer
    muma = sub.add_parser(IMPORT_MUMA_TOM, help="convert the MuMA-ToM benchmark's questions.json (and texts.json) "
                          "into a suite file")
    if argv is None or IMPORT_MUMA_TOM in argv:
        from .suites.muma_import import configure

        configure(muma)

    names = report_names()
    rp = sub.add_parser("report", help="a paper's main tables from stored runs (agents as rows, the paper's columns, "
                        "n and 95%% intervals) as Markdown, CSV or LaTeX: " + "; ".join(
                            f"{name} = {title}" for name, title in names.items()).replace("%", "%%"))
    rp.add_argument("name", choices=sorted(names), help="which paper's tables")
    rp.add_argument("--agents", default=None, metavar="A,B,...", help="the rows, in this order (default: every "
                    "agent with stored runs)")
    rp.add_argument("--tag", default=None, help="only runs with this tag (default: the report's own runs, e.g. "
                    "the coe and coe-matrix tags; see docs/reports.md)")
    rp.add_argument("--format", choices=["markdown", "csv", "latex"], default="markdown")
    rp.add_argument("--out", default=None, metavar="FILE", help="write here (default: standard output)")
    rp.add_argument("--split", action="store_true", help="runs that mix settings or rule versions: a table set "
                    "per group (default: refuse, naming what differs)")
    rp.set_defaults(func=cmd_report)

    cs = sub.add_parser("copy-store", help="copy a whole store to another backend (e.g. a SQLite file to an empty "
                        "PostgreSQL database) and check that every count and every game's standings agree")
    cs.add_argument("source", metavar="SRC", help="SQLite file or database URL to copy from")
    cs.add_argument("target", metavar="DST", help="SQLite file or database URL to copy to (must be empty), e.g. "
                    "postgresql+psycopg://USER:PASSWORD@HOST:5432/DB")
    cs.add_argument("--chunk", type=int, default=2000, help="rows read and written at a time")
    cs.add_argument("--quiet", action="store_true", help="no progress bar")
    cs.set_defaults(func=cmd_copy_store)

    e = sub.add_parser("export", help="write matches, per-seat records or the leaderboard as JSONL or CSV, "
                       "or a run log")
    e.add_argument("--game", choices=games, help="the game (needed except for --what log, where it narrows)")
    e.add_argument("--what", choices=["matches", "seats", "leaderboard", "accounting", "snapshot", "log"],
                   default="matches",
                   help="accounting: calls, prompt and completion tokens, re-asks, unreadable and truncated replies, "
                   "latency and a cost estimate from ARENA_PRICES, per agent; "
                   "snapshot: the leaderboard as one JSON document with its filter, the number of matches, "
                   "the rules and code versions and the time (what to cite); log: one self-contained run log "
                   "(matches, events, calls, settings, versions; docs/run-log.md) of --tag TAG or --match ID, "
                   "which the Replay tab opens")
    e.add_argument("--match", default=None, help="log: the one match to write")
    e.add_argument("--format", choices=["jsonl", "csv"], default="jsonl")
    e.add_argument("--tag", default=None, help="only matches with this tag")
    e.add_argument("--sources", default=None, help=SOURCES_HELP)
    e.add_argument("--void-infra", action="store_true", help="snapshot: leave out matches with an unreachable agent")
    e.add_argument("--out", help="file to write (default: standard output)")
    e.set_defaults(func=cmd_export)
    return parser


def game_command(argv: list[str]) -> tuple[str, list[str]] | None:
    """(name, the rest) when argv runs a game's own command: its options reach it untouched
    (argparse's remainder would take them for the arena's own); a global --db becomes ARENA_DB."""
    commands = {name for face in game_faces() for name, _ in face.commands}
    i = 0
    db = None
    while i < len(argv) and argv[i].startswith("--db"):
        if argv[i] == "--db" and i + 1 < len(argv):
            db, i = argv[i + 1], i + 2
        elif argv[i].startswith("--db="):
            db, i = argv[i].split("=", 1)[1], i + 1
        else:
            return None
    if i >= len(argv) or argv[i] not in commands:
        return None
    if db is not None:
        os.environ["ARENA_DB"] = db
    return argv[i], argv[i + 1:]


def run_game_command(name: str, rest: list[str]) -> int:
    """Run a game's own command: the games are loaded and the spec's function gets the rest."""
    from .command_services import CliServices
    from .core import GAMES

    run = next((spec.extras.commands[name][1] for spec in GAMES.values() if name in spec.extras.commands), None)
    if run is None:  # the index names a command no spec declares any more
        raise SystemExit(f"error: no game has a command {name!r}; regenerate the index: python -m space_app.cli_index")
    return run(rest, CliServices())


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except StoreError as exc:  # unreachable, or written by a newer version: one line, no traceback
        say(f"error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        lost = lost_store(exc)
        if lost is None:
            raise
        # planned matches are recorded exactly once: a run stopped here is finished by the
        # same command, which skips what finished and replaces what was half-written
        say(f"error: the store stopped answering in the middle of the run ({lost}); the matches that "
            "finished are kept: run the same command again to finish the rest", file=sys.stderr)
        return 3


def _main(argv: list[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    direct = game_command(argv)
    if direct is not None:
        return run_game_command(*direct)
    args = build_parser(argv).parse_args(argv)
    try:
        return args.func(args)
    except ValueError as exc:  # unknown agent/game, bad settings: a message, not a traceback
        say(f"error: {exc}", file=sys.stderr)
        return 2
