"""python -m space_app coe --agent SPEC ... and python -m space_app coe-matrix --agents A,B,...

`coe` plays the agent as the innocents faction (every innocent seat; the murderer is
`--murderer`, default house:mystery-naive, so every agent faces the same opponent) on each
chosen script, `--matches` per script (seeds 0, 1, ... per script, tag `study:coe:<agent>`;
each a planned match whose id is derived from the plan, so a run again plays only what did
not finish, and a seed an earlier version already stored counts), asks a sample of each script's LSU,
TIU, MIU and MMR questions through the suite runner (`--quiz-limit` per type per script; answers
stored and resumed like `bench`), and prints the eight scores with their 95% intervals, sample
sizes and the judge. The play scores read every stored match of the run's tag on those scripts.

`coe-matrix` plays every ordered pair of the agents (row as the innocents, column as the
murderer, an agent against itself too) `--matches` times per script (tag `study:coe-matrix`,
resumable the same way) and prints the win-rate matrix with draws and error matches apart.

Both store their matches as study matches (left out of the default leaderboards), and run
them (and `coe` its questions) in this process or, with `--engine ray`, as tasks on a Ray
cluster (`--address`; without it a local Ray instance is started): the same matches and
figures either way (see docs/scale-out.md)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ....core.spec import ArenaServices
from ....safe_text import terminal_text
from ..catalog import allow_command_line, catalog, get_script, is_folder_path
from .judges import HEURISTIC_LABEL, HeuristicJudge, Judge, LLMJudge
from .matrix import Matrix, matrix
from .scores import Score, play_scores, quiz_scores
from .verdicts import VerdictBook

__all__ = ["CoEReport", "coe_main", "coe_tag", "make_judge", "matrix_main", "render_report", "run_coe"]

MATRIX_TAG = "study:coe-matrix"


def default_db() -> str:
    return os.environ.get("ARENA_DB", "data/arena.db")


def coe_tag(agent: str) -> str:
    return f"study:coe:{agent}"[:100]


class CoEReport(BaseModel):
    agent: str
    judge: str
    murderer: str
    scripts: list[str]
    scores: list[Score]
    fallbacks: int = 0  # verdicts where an LLM judge's value was replaced by the heuristic one
    fallback_reasons: list[str] = []  # a few of them
    played: int = 0  # matches played by this run
    seconds: float = 0.0


def make_judge(spec: str) -> Judge:
    """'heuristic'; 'local' (or house:smollm2): the embedded SmolLM2; 'openai:MODEL': an
    OpenAI-compatible endpoint (OPENAI_BASE_URL, OPENAI_API_KEY)."""
    if spec in ("", "heuristic"):
        return HeuristicJudge()
    if spec in ("local", "house:smollm2"):
        from sdk.callers import local_caller

        return LLMJudge(local_caller(max_new_tokens=64), name="local SmolLM2-135M-Instruct")
    if spec.startswith("openai:"):
        from sdk.callers import openai_caller

        model = spec.removeprefix("openai:")
        return LLMJudge(openai_caller(model=model), name=model)
    raise ValueError(f"unknown judge {spec!r}: heuristic, local, or openai:MODEL")


def _scripts(text: str | None) -> list[str]:
    """The scripts to play: shipped ids, or script folders' paths (named here on the command line,
    so they may be read; kept as the whole path the matches store in their settings)."""
    ids = [s.strip() for s in (text or "").split(",") if s.strip()] or list(catalog().scripts)
    out = []
    for script_id in ids:
        if is_folder_path(script_id) and script_id not in catalog().scripts:
            get_script(allow_command_line(script_id))  # a link in it is refused here, naming it
            script_id = str(Path(script_id).resolve())
        get_script(script_id)  # an unknown id is refused with the shipped ones listed
        out.append(script_id)
    return out


def _suite_id(script: str) -> str:
    """Where a script's quiz answers are stored: by its id, wherever the script lies."""
    return f"mystery-{get_script(script).id}"


def _stored(store: Any, tag: str, script_id: str, innocents: str, murderer: str) -> list[dict[str, Any]]:
    """Finished or not, the stored matches of this tag, script and line-up, by seed."""
    from .matrix import faction

    out = []
    for m in store.list_matches(game="mystery", tag=tag, limit=100_000):
        if (m.get("settings") or {}).get("script") != script_id:
            continue
        if not {s["agent_id"] for s in m["seats"]} <= {innocents, murderer}:  # cheap, before reading events
            continue
        full = store.get_match(m["id"])
        if full is not None and faction(full) == (innocents, murderer):
            out.append(full)
    # in the plan's order, not the order they started in (which an engine's workers choose):
    # the seeded bootstrap over matches then gives the same intervals on any engine
    return sorted(out, key=lambda m: (m["seed"], m["id"]))


def _plans(services: ArenaServices, store: Any, tag: str, script_id: str, innocents: str, murderer: str,
           matches: int, rounds: int) -> list[Any]:
    """This line-up's matches on this script, seeds 0 .. matches-1, each a planned match (its id
    derived from the plan, so `run_planned` skips those already finished). A seed a match stored
    before planned ids (a random id) already played is not planned again."""
    players = len(get_script(script_id).roles)
    plans = [services.match_plan("mystery", [innocents] * players, seed,
                                 {"script": script_id, "rounds": rounds, "players": players},
                                 tag=tag, role_specs={"murderer": murderer}, place=(script_id, seed))
             for seed in range(matches)]
    ids = {p.match_id for p in plans}
    earlier = {m["seed"] for m in _stored(store, tag, script_id, innocents, murderer) if m["id"] not in ids}
    return [p for p in plans if p.seed not in earlier]


async def _play(services: ArenaServices, arena: Any, plans: list[Any], concurrency: int, desc: str) -> int:
    """Play the plans on the arena's engine; how many were played now (not finished before)."""
    with services.progress_bar(len(plans), desc) as bar:
        await services.run_planned(arena, plans, concurrency=concurrency, tracker=bar)
    return len(plans) - bar.skipped


def _quiz_sample(services: ArenaServices, script_id: str, limit: int | None) -> Any:
    """The script's suite with `limit` questions of each type (a fixed sample, see `first_n`)."""
    suite = services.open_suite(script_id if is_folder_path(script_id) else _suite_id(script_id))
    if not limit:
        return suite
    chosen = []
    for kind in ("lsu", "tiu", "miu", "mmr"):
        chosen += services.first_n([i for i in suite.loaded.items if kind in i.types], limit)
    return dataclasses.replace(suite, loaded=dataclasses.replace(suite.loaded, items=chosen))


async def _quizzes(services: ArenaServices, arena: Any, agent: str, scripts: list[str], limit: int | None,
                   concurrency: int, seconds: float) -> list[Score]:
    rows: list[dict[str, Any]] = []
    tags: dict[str, dict[str, Any]] = {}
    offered: dict[str, int] = {}  # item id -> its option count (2-4), for the chance level
    # on an engine each worker resolves the agent itself; here it is checked, and used in process
    built = arena.catalogue.resolve(agent)
    for script_id in scripts:
        suite = _quiz_sample(services, script_id, limit)
        arena.catalogue.check_plays(agent, suite.game)
        await services.run_suite(arena.store, suite, None if arena.engine else built, agent,
                                 concurrency=concurrency, seconds=seconds, engine=arena.engine)
        wanted = {i.id: i.tags for i in suite.loaded.items}
        rows += [r for r in arena.store.answers(suite.id, agent) if r["item_id"] in wanted]
        tags.update(wanted)
        offered.update({i.id: len(i.options) for i in suite.loaded.items})
    return quiz_scores(rows, tags, [_suite_id(s) for s in scripts], offered)


def run_coe(services: ArenaServices, arena: Any, agent: str, *, scripts: list[str], judge: Judge, matches: int = 3,
            rounds: int = 3, murderer: str = "house:mystery-naive", quiz_limit: int | None = 5, concurrency: int = 4,
            seconds: float = 60.0, progress: Callable[[str], None] | None = None) -> CoEReport:
    """Play, ask, judge and score (see the module docstring)."""
    started = time.perf_counter()
    arena.catalogue.check_plays(agent, "mystery")
    arena.catalogue.check_plays(murderer, "mystery")
    tag = coe_tag(agent)

    plans = [p for s in scripts for p in _plans(services, arena.store, tag, s, agent, murderer, matches, rounds)]

    async def everything() -> tuple[int, list[Score]]:
        if progress:
            progress(f"playing {', '.join(scripts)}")
        played = await _play(services, arena, plans, concurrency, f"coe {agent}")
        if progress:
            progress("asking the quizzes")
        return played, await _quizzes(services, arena, agent, scripts, quiz_limit, concurrency, seconds)

    played, quizzes = arena.run_in_own_loop(everything())
    stored = [m for s in scripts for m in _stored(arena.store, tag, s, agent, murderer)]
    if progress:
        progress(f"judging {len(stored)} matches")
    # an LLM judge's verdicts are stored: a second run (or the results page) reuses them instead
    # of asking a slow or paid judge again; the heuristic judge is cheap and changes with the code
    keep = judge.label != HEURISTIC_LABEL
    earlier = arena.store.verdicts([m["id"] for m in stored], judge.label) if keep else []
    book = VerdictBook.asking(judge, earlier)
    play, verdicts = play_scores(stored, agent, book)
    if keep:
        arena.store.save_verdicts(book.rows())
    fallbacks = [v.fallback for v in verdicts if v.fallback]
    return CoEReport(agent=agent, judge=judge.label, murderer=murderer, scripts=scripts, scores=[*quizzes, *play],
                     fallbacks=len(fallbacks), fallback_reasons=fallbacks[:3], played=played,
                     seconds=round(time.perf_counter() - started, 1))


def _pct(v: float | None, unit: str) -> str:
    if v is None:
        return "-"
    return f"{100 * v:.1f}%" if unit == "share" else f"{v:.2f}"


def score_row(s: Score) -> dict[str, str]:
    interval = "-" if s.low is None else f"[{_pct(s.low, s.unit)}, {_pct(s.high, s.unit)}]"
    return {"score": s.key.upper() if "-" not in s.key else "  " + s.title, "value": _pct(s.value, s.unit),
            "95% interval": interval, "n": f"{s.n} {s.counts}", "chance": _pct(s.chance, "share"),
            "interval": s.interval, "judge": s.judge or "-"}


def render_report(report: CoEReport) -> str:
    from ....tables import render

    rows = []
    for s in report.scores:
        rows.append(score_row(s))
        rows += [score_row(h) for h in s.by_hops]
    lines = [f"Chain of Evaluation: {report.agent} (innocents faction against {report.murderer}), scripts "
             f"{', '.join(report.scripts)}; judge: {report.judge}",
             render(rows, ["score", "value", "95% interval", "n", "chance", "interval", "judge"])]
    play = next((s for s in report.scores if s.key == "rp"), None)
    if play is not None:
        lines.append(f"play scores from {len(play.matches)} matches ({report.played} played now); "
                     f"quiz scores from the stored answers to the sampled questions (chance: the accuracy of "
                     f"picking an option at random, questions having 2-4 options); {report.seconds:g} s")
    if report.judge != HEURISTIC_LABEL:
        lines.append(f"judge fallbacks to {HEURISTIC_LABEL}: {report.fallbacks}"
                     + "".join(f"\n  {r}" for r in report.fallback_reasons))
    return "\n".join(lines)


def coe_main(argv: list[str], services: ArenaServices) -> int:
    p = argparse.ArgumentParser(prog="python -m space_app coe", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--agent", required=True, help="agent spec, e.g. house:mystery-naive, house:smollm2")
    p.add_argument("--scripts", help="comma list of script ids or script folders' paths (default: every shipped "
                   "script)")
    p.add_argument("--judge", default="heuristic", help="heuristic (default), local (the embedded SmolLM2), "
                   "or openai:MODEL (OPENAI_BASE_URL, OPENAI_API_KEY)")
    p.add_argument("--matches", type=int, default=3, help="matches per script (default 3)")
    p.add_argument("--murderer", default="house:mystery-naive", help="the opponent in the murderer's seat")
    p.add_argument("--rounds", type=int, default=3, help="discussion rounds per match (default 3)")
    p.add_argument("--quiz-limit", type=int, default=5, help="questions of each type per script (0: all)")
    p.add_argument("--concurrency", type=int, default=4, help="matches / questions in flight (1 for a local model)")
    p.add_argument("--seconds", type=float, default=60.0, help="time allowed per reply")
    p.add_argument("--db", default=default_db(), help="SQLite file or database URL (default: ARENA_DB or "
                   "data/arena.db)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    services.add_engine_args(p, "matches and questions")
    args = p.parse_args(argv)
    try:
        judge = make_judge(args.judge)
        scripts = _scripts(args.scripts)
        with services.engine(args) as engine:  # a cluster that cannot be reached stops us before the store opens
            report = run_coe(services, services.arena(args.db, engine), args.agent, scripts=scripts, judge=judge,
                             matches=args.matches, rounds=args.rounds, murderer=args.murderer,
                             quiz_limit=args.quiz_limit or None, concurrency=args.concurrency,
                             seconds=args.seconds, progress=lambda text: print(text, file=sys.stderr, flush=True))
    except ValueError as exc:
        print(f"error: {terminal_text(exc)}", file=sys.stderr)
        return 2
    print(report.model_dump_json(indent=2) if args.json else terminal_text(render_report(report)))
    return 0


def render_matrix(m: Matrix) -> str:
    from ....tables import render

    rows = []
    for r in m.rows:
        row: dict[str, str] = {"innocents \\ murderer": r}
        for c in m.columns:
            cell = m.cell(r, c)
            rate = cell.win_rate
            row[c] = "-" if rate is None else (f"{100 * rate:.0f}% of {cell.decided}"
                                               + (f" +{cell.draws}d" if cell.draws else "")
                                               + (f" +{cell.errors}e" if cell.errors else ""))
        avg = m.row_average(r)
        row["row avg win"] = "-" if avg is None else f"{100 * avg:.1f}%"
        rows.append(row)
    losses = {"innocents \\ murderer": "column avg loss"}
    for c in m.columns:
        loss = m.column_loss(c)
        losses[c] = "-" if loss is None else f"{100 * loss:.1f}%"
    rows.append(losses)
    return render(rows, ["innocents \\ murderer", *m.columns, "row avg win"])


def matrix_main(argv: list[str], services: ArenaServices) -> int:
    p = argparse.ArgumentParser(prog="python -m space_app coe-matrix", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--agents", required=True, help="comma list of agent specs")
    p.add_argument("--scripts", help="comma list of script ids or script folders' paths (default: every shipped "
                   "script)")
    p.add_argument("--matches", type=int, default=2, help="matches per pair and script (default 2)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--db", default=default_db(), help="SQLite file or database URL")
    p.add_argument("--json", action="store_true")
    services.add_engine_args(p)
    args = p.parse_args(argv)
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    try:
        scripts = _scripts(args.scripts)
        with services.engine(args) as engine:  # a cluster that cannot be reached stops us before the store opens
            arena = services.arena(args.db, engine)
            for a in agents:
                arena.catalogue.check_plays(a, "mystery")
            plans = [p for s in scripts for row in agents for column in agents
                     for p in _plans(services, arena.store, MATRIX_TAG, s, row, column, args.matches, args.rounds)]
            arena.run_in_own_loop(_play(services, arena, plans, args.concurrency, "coe-matrix"))
    except ValueError as exc:
        print(f"error: {terminal_text(exc)}", file=sys.stderr)
        return 2
    stored = [m for s in scripts for r in agents for c in agents for m in _stored(arena.store, MATRIX_TAG, s, r, c)]
    found = matrix(stored, agents)
    if args.json:
        print(json.dumps({"agents": agents, "scripts": scripts, "cells": [
            {**c.model_dump(exclude={"matches"}), "win_rate": c.win_rate, "interval": c.interval,
             "matches": c.matches} for c in found.cells.values()],
            "row_average": {r: found.row_average(r) for r in found.rows},
            "column_loss": {c: found.column_loss(c) for c in found.columns}}, indent=2))
        return 0
    print(terminal_text(f"Win-rate matrix over {', '.join(scripts)}: rows play the innocents, columns the "
                        "murderer; a cell reads the innocents' win rate of its decided matches (+Nd draws, "
                        "+Ne matches with agent errors, both left out)"))
    print(terminal_text(render_matrix(found)))
    return 0

