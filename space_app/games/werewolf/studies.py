"""The discussion-protocol study: the same deals (seeds) played under each protocol, round-robin,
bidding for the floor and parallel statements, every seat the base agent (the rule bots by
default, or `--base house:smollm2`), and the village's win rate and identification precision
side by side, each with its Wilson interval. Each condition's matches are stored under the tag
`study:protocol:<condition>:<run>`, so a run is found again from the store alone."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ...core.spec import Tournaments
from ...core.study_runs import newest_run_tags, study_tag
from ...stats import Rate
from .metrics import records
from .roles import VILLAGE

if TYPE_CHECKING:  # pandas is imported where a frame is built
    import pandas as pd

STUDY = "protocol"
CONDITIONS = {"round-robin": "round_robin", "bidding": "bidding", "parallel": "parallel"}
WORDS = {
    "round-robin": "the living players speak in turn, the same number of rounds every day",
    "bidding": "before each statement every living player bids 0-3 for the floor; the highest bid speaks",
    "parallel": "every living player speaks at once each round and sees the others' statements after",
}
COLUMNS = ("condition", "games", "village_win_rate", "identification_precision", "voting_success",
           "statements_per_day")
DESCRIBE = ("the same seeds under each discussion protocol (round-robin, bidding, parallel), every seat the base "
            "agent, so the deals and the seats' roles are the same in every condition: the village's win rate "
            "(Wilson, over games), identification precision (village day votes that named a werewolf ÷ village day "
            "votes, Wilson), voting success (votes for a player of the other team who was voted out ÷ votes, "
            "Wilson) and the statements said per day")


def study_row(matches: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """One condition's figures from its stored matches."""
    played = [m for m in matches if m.get("status") == "finished"]
    village_wins = on_wolves = village_votes = successful = votes = 0
    statements = days = 0
    for m in played:
        recs = records(m)
        village_wins += int((m.get("result") or {}).get("winner") == VILLAGE)
        days += int((m.get("result") or {}).get("days") or 0)
        for r in recs:
            votes += int(r.stats.get("votes_cast", 0))
            successful += int(r.stats.get("votes_successful", 0))
            if r.team == VILLAGE:
                village_votes += int(r.stats.get("votes_cast", 0))
                on_wolves += int(r.stats.get("votes_on_wolves", 0))
            statements += int(r.stats.get("statements", 0))
    return {
        "games": len(played),
        **Rate(village_wins, len(played)).to_dict("village_win_rate"),
        **Rate(on_wolves, village_votes).to_dict("identification_precision"),
        **Rate(successful, votes).to_dict("voting_success"),
        "statements_per_day": round(statements / days, 2) if days else None,
        "seeds": sorted({m["seed"] for m in played}),
        "match_ids": [m["id"] for m in played],
    }


async def run(arena: Tournaments, base: str = "house:werewolf-rules", games: int = 60, seed: int = 0,
              settings: dict[str, Any] | None = None, concurrency: int = 8) -> list[dict[str, Any]]:
    """Every protocol on the same seeds with every seat `base`."""
    run_id = uuid.uuid4().hex[:6]
    rest = dict(settings or {})
    players = rest.pop("players", None)  # the table's size goes to the tournament's seating
    rows = []
    for name, protocol in CONDITIONS.items():
        tag = study_tag(STUDY, name, run_id)
        await arena.tournament("werewolf", [base], games, seed=seed, tag=tag, settings={**rest, "protocol": protocol},
                               concurrency=concurrency, players=players)
        rows.append({"condition": name, "what": WORDS[name], "agent": base, "tag": tag,
                     **study_row(arena.store.iter_matches("werewolf", tag=tag))})
    return rows


def newest(store: Any) -> list[dict[str, Any]]:
    """The newest stored run's rows, or [] when it never ran."""
    return [{"condition": name, "what": WORDS[name], "tag": tag,
             **study_row(store.iter_matches("werewolf", tag=tag))}
            for name, tag in newest_run_tags(store, "werewolf", STUDY, CONDITIONS).items()]


CHART_METRICS = {"village_win_rate": "village wins", "identification_precision": "identification"}
CHART_ORDER = tuple(f"{label}: {name}" for label in CHART_METRICS.values() for name in CONDITIONS)


def chart(store: Any) -> pd.DataFrame:
    """The newest run's rates, one bar per metric and protocol."""
    import pandas as pd

    out = [{"bar": f"{label}: {r['condition']}", "condition": r["condition"], "value": round(r[key], 3),
            "low": _end(r.get(f"{key}_low")), "high": _end(r.get(f"{key}_high"))}
           for key, label in CHART_METRICS.items() for r in newest(store) if r[key] is not None]
    return pd.DataFrame(out, columns=["bar", "condition", "value", "low", "high"])


def _end(value: float | None) -> float | None:
    """An interval's end rounded as the bar's value is (rounding keeps the value inside)."""
    return None if value is None else round(value, 3)


__all__ = ["COLUMNS", "CONDITIONS", "DESCRIBE", "chart", "newest", "run", "study_row"]
