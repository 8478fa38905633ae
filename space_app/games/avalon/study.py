"""The intention study: N games of one line-up with and without intention-guided play, and
the intention metrics side by side (summarisation F1, guessing F1, deduction accuracy, the
judges' selection reasonableness and following score) with the good side's win rate.

Conditions (each condition's matches are stored under `study:intentions:<condition>:<run>`):
- intention-guided: every seat is the base agent wrapped `+intentions` (it selects
  intentions from the catalogue, thinks, speaks, rereads and refines);
- plain: every seat is the base agent as it is.
A base without a model (a rule bot) cannot be guided: its intention-guided condition is
not played and its row says so. Quiz figures are scored against the recorded selections;
reasonableness and following come from the heuristic judge (offline) and, when a judge
agent is given, from the LLM judge (`judge.judge_match`) on the same statements.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ...core.spec import Tournaments
from ...core.study_runs import newest_run_tags, study_tag
from ...stats import Rate, mean_interval
from .intentions import load_catalogue
from .judge import heuristic_following, heuristic_reasonableness, intention_statements, judge_match
from .metrics import quiz_results
from .table import GOOD
from .wrappers import has_model

if TYPE_CHECKING:
    import pandas as pd

STUDY = "intentions"
GUIDED, PLAIN = "intention-guided", "plain"
CONDITIONS = {GUIDED: "+intentions", PLAIN: ""}
WORDS = {
    GUIDED: "every seat plays the base agent wrapped +intentions: before each statement it selects 2-3 intentions "
            "from the catalogue, writes THINK and SPEAK, rereads them as the others will and refines them",
    PLAIN: "every seat plays the base agent as it is (no intention notes: the intention quizzes are not asked)",
}
NOT_RUN = "not played: the base agent has no model to guide (a rule bot or remote agent), so no seat selects intentions"
COLUMNS = ("condition", "games", "summarisation_f1", "guessing_f1", "deduction_accuracy", "good_win_rate",
           "reasonableness_heuristic_judge", "following_heuristic_judge", "reasonableness_llm_judge",
           "following_llm_judge", "llm_judge")
DESCRIBE = ("N games of one line-up, with every seat intention-guided and plain; side by side: summarisation F1 "
            "and guessing F1 (end-of-game quiz answers against the recorded selections, mean with a seeded "
            "bootstrap over answers), deduction accuracy (other players put on their true side, Wilson), the "
            "good side's win rate (Wilson), and selection reasonableness and following score (1-5, mean over "
            "statements with intentions, seeded bootstrap) from the heuristic judge and, with --judge AGENT, "
            "the LLM judge named in the llm_judge column")

JudgeRows = dict[str, list[dict[str, Any]]]  # match id -> judge_match's rows


def _mean(key: str, values: list[float]) -> dict[str, Any]:
    value, low, high = mean_interval(values) or (None, None, None)
    return {key: value, f"{key}_low": low, f"{key}_high": high, f"{key}_n": len(values)}


def study_row(matches: Iterable[dict[str, Any]], judged: JudgeRows | None = None,
              judge: str = "") -> dict[str, Any]:
    """One condition's figures from its stored matches (and the LLM judge's rows, if run)."""
    played = list(matches)
    catalogue = load_catalogue()
    summary: list[float] = []
    guess: list[float] = []
    correct = judged_players = good_wins = 0
    reasonable: list[float] = []
    following: list[float] = []
    for m in played:
        for q in quiz_results(m, catalogue):
            if q.quiz == "summarise":
                summary.append(q.score)
            elif q.quiz == "guess":
                guess.append(q.score)
            elif q.quiz == "deduce":
                correct += int(q.score)
                judged_players += q.judged
        good_wins += int((m.get("result") or {}).get("winner") == GOOD)
        for s in intention_statements(m, catalogue):
            reasonable.append(heuristic_reasonableness(s, catalogue))
            following.append(heuristic_following(s, catalogue))
    llm = [r for m in played for r in (judged or {}).get(m["id"], [])]
    llm_reasonable = [float(r["reasonableness"]) for r in llm if r["reasonableness"] is not None]
    llm_following = [float(r["following"]) for r in llm if r["following"] is not None]
    return {
        "games": len(played),
        **_mean("summarisation_f1", summary),
        **_mean("guessing_f1", guess),
        **Rate(correct, judged_players).to_dict("deduction_accuracy"),
        **Rate(good_wins, len(played)).to_dict("good_win_rate"),
        **_mean("reasonableness_heuristic_judge", reasonable),
        **_mean("following_heuristic_judge", following),
        **(_mean("reasonableness_llm_judge", llm_reasonable) if judge else {}),
        **(_mean("following_llm_judge", llm_following) if judge else {}),
        "llm_judge": f"{judge} ({len(llm) - len(llm_following)} of {len(llm)} replies unread)" if judge else None,
        "seeds": sorted({m["seed"] for m in played}),
        "match_ids": [m["id"] for m in played],
    }


def _caller_of(arena: Tournaments, spec: str) -> Callable[[list[dict[str, Any]]], str]:
    catalogue = getattr(arena, "catalogue", None)
    agent = catalogue.resolve(spec) if catalogue is not None else None
    if agent is None or not has_model(agent):
        raise ValueError(f"--judge {spec!r}: the LLM judge needs an agent that calls a model (an LLMAgent, "
                         "e.g. house:smollm2)")
    return agent.llm_caller  # type: ignore[attr-defined]


async def _judge(caller: Callable[[list[dict[str, Any]]], str], matches: list[dict[str, Any]]) -> JudgeRows:
    # the judge's calls block (a local model, an HTTP client): off the event loop
    return {m["id"]: await asyncio.to_thread(judge_match, m, caller) for m in matches}


def _guidable(arena: Tournaments, base: str) -> bool:
    catalogue = getattr(arena, "catalogue", None)
    return catalogue is None or has_model(catalogue.resolve(base))


async def run(arena: Tournaments, base: str = "house:smollm2", games: int = 10, seed: int = 0,
              settings: dict[str, Any] | None = None, concurrency: int = 8, judge: str = "") -> list[dict[str, Any]]:
    """Both conditions on the same seeds; `judge`: an agent spec whose model is the LLM judge."""
    caller = _caller_of(arena, judge) if judge else None
    run_id = uuid.uuid4().hex[:6]
    rows = []
    for name, suffix in CONDITIONS.items():
        tag = study_tag(STUDY, name, run_id)
        head = {"condition": name, "what": WORDS[name], "agent": base + suffix, "tag": tag}
        if suffix and not _guidable(arena, base):
            rows.append({**head, "what": NOT_RUN, **study_row([], judge=judge)})
            continue
        await arena.tournament("avalon", [base + suffix], games, seed=seed, tag=tag, settings=settings,
                               concurrency=concurrency)
        matches = list(arena.store.iter_matches("avalon", tag=tag))
        judged = await _judge(caller, matches) if caller else None
        rows.append({**head, **study_row(matches, judged, judge)})
    return rows


def newest(store: Any) -> list[dict[str, Any]]:
    """The newest stored run's rows, heuristic judge only (the LLM judge's scores are not stored)."""
    rows = []
    for name, tag in newest_run_tags(store, "avalon", STUDY, CONDITIONS).items():
        matches = list(store.iter_matches("avalon", tag=tag))
        rows.append({"condition": name, "what": WORDS[name] if matches else NOT_RUN, "tag": tag,
                     **study_row(matches)})
    return rows


CHART_METRICS = {"summarisation_f1": "summary F1", "guessing_f1": "guess F1",
                 "deduction_accuracy": "deduction", "good_win_rate": "good wins"}
CHART_ORDER = tuple(f"{label}: {name}" for label in CHART_METRICS.values() for name in CONDITIONS)


def chart(store: Any) -> pd.DataFrame:
    """The newest run's 0-1 figures, one bar per metric and condition."""
    import pandas as pd

    out = [{"bar": f"{label}: {r['condition']}", "condition": r["condition"], "value": round(r[key], 3),
            "low": _end(r.get(f"{key}_low")), "high": _end(r.get(f"{key}_high"))}
           for key, label in CHART_METRICS.items() for r in newest(store) if r[key] is not None]
    return pd.DataFrame(out, columns=["bar", "condition", "value", "low", "high"])


def _end(value: float | None) -> float | None:
    """An interval's end rounded as the bar's value is (rounding keeps the value inside)."""
    return None if value is None else round(value, 3)


__all__ = ["COLUMNS", "CONDITIONS", "DESCRIBE", "chart", "newest", "run", "study_row"]
