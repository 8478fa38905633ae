"""Werewolf metrics, from a finished match's events only (read as the kinds' models).

One record per seat (`records`): its team as the role and the rated team (the village against
the werewolves), won, score (1 for the winning team) and summable stats; an agent's
leaderboard row (`row`) turns their sums into rates, each with its Wilson interval:

- win rate, overall, per team and per role (Seer, Doctor, Villager, Witch, Hunter, Werewolf);
- identification precision: a village seat's day votes that named a werewolf ÷ its day votes;
- voting success: day votes for the player then voted out, when that player was on the other
  team ÷ day votes cast (either team);
- key-role survival: days a Seer (a Doctor) was alive ÷ days its games lasted;
- the Seer's information used: werewolves it found that were later voted out ÷ werewolves it
  found;
- the Doctor's saves: nights its protection stopped the werewolves' attack ÷ nights it protected;
- the werewolves' deception: days a werewolf was voted for (accused) and still not voted out
  ÷ days it was accused.

Calls, latency, tokens and invalid actions are counted by the arena for every game.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ...core.records import AgentTotals, SeatRecord, running_win_rate
from .events import (
    KINDS,
    DayVote,
    DoctorProtect,
    GameOver,
    HunterShot,
    NightResolution,
    SeerCheck,
    Statement,
    VoteResult,
    WerewolfSetup,
)
from .roles import DOCTOR, KEY_ROLES, ROLES, SEER, VILLAGE, WEREWOLF, WEREWOLVES


def days_alive(died: tuple[str, int] | None, days: int) -> int:
    """Days a seat saw alive: all of them if it survived; a night death on night N misses day N."""
    if died is None:
        return days
    how, n = died
    return n - 1 if how == "night" else n


def records(match: dict[str, Any]) -> list[SeatRecord]:
    events = KINDS.parse_all(match["events"])
    setup = next(e for e in events if isinstance(e, WerewolfSetup))
    roles, teams = setup.roles, setup.teams
    over = next((e for e in events if isinstance(e, GameOver)), None)
    winner = over.winner if over else ""
    seats = [s["seat"] for s in match["seats"]]
    stats: dict[str, Counter[str]] = {s: Counter() for s in seats}
    died: dict[str, tuple[str, int]] = {}
    accused: set[tuple[int, str]] = set()  # (day, werewolf) it was voted for
    day_votes: dict[tuple[int, bool], list[DayVote]] = {}
    protected: dict[int, tuple[str, str | None]] = {}  # night -> (doctor, target)
    days = 0
    for e in events:
        if e.round:
            days = max(days, e.round)
        if isinstance(e, Statement) and e.actor in stats:
            stats[e.actor]["statements"] += 1
        elif isinstance(e, DayVote):
            day_votes.setdefault((e.day, e.runoff), []).append(e)
        elif isinstance(e, VoteResult):
            for v in day_votes.get((e.day, e.runoff), []):
                if v.actor not in stats or v.target is None:
                    continue
                st = stats[v.actor]
                st["votes_cast"] += 1
                st["votes_on_wolves"] += int(roles.get(v.target) == WEREWOLF)
                hit = e.eliminated == v.target and teams.get(v.target) != teams.get(v.actor)
                st["votes_successful"] += int(hit)
                if roles.get(v.target) == WEREWOLF:
                    accused.add((e.day, v.target))
            if e.eliminated is not None:
                died[e.eliminated] = ("day", e.day)
        elif isinstance(e, DoctorProtect) and e.target is not None:
            protected[e.night] = (e.actor, e.target)
        elif isinstance(e, NightResolution):
            for seat in e.causes:
                died[seat] = ("night", e.night)
            doctor = protected.get(e.night)
            if doctor is not None and doctor[0] in stats:
                stats[doctor[0]]["doctor_nights"] += 1
                stats[doctor[0]]["doctor_saves"] += int(e.saved_by == "doctor")
        elif isinstance(e, HunterShot) and e.target is not None:
            died[e.target] = (e.when, e.day)
    for day, wolf in accused:
        if wolf in stats:
            stats[wolf]["accused_days"] += 1
            stats[wolf]["accused_survived"] += int(died.get(wolf) != ("day", day))
    # a werewolf the Seer found is "used" when the village voted it out after the vision
    found_at: dict[tuple[str, str], int] = {}
    for e in events:
        if isinstance(e, SeerCheck) and e.target is not None and e.werewolf:
            found_at.setdefault((e.actor, e.target), e.night)
    for (seer, wolf), night in found_at.items():
        if seer in stats:
            stats[seer]["seer_wolves_found"] += 1
            fate = died.get(wolf)
            stats[seer]["seer_found_voted_out"] += int(fate is not None and fate[0] == "day" and fate[1] >= night)
    by_seat = {s["seat"]: s["agent_id"] for s in match["seats"]}
    out = []
    for seat in seats:
        role, team = roles[seat], teams[seat]
        won = team == winner
        st = stats[seat]
        alive = days_alive(died.get(seat), days)
        st["days_played"] += days
        st["days_alive"] += alive
        if role in KEY_ROLES:
            st[f"{role}_days"] += days
            st[f"{role}_days_alive"] += alive
        st[f"as_{role}"] = 1
        st[f"won_as_{role}"] = int(won)
        out.append(SeatRecord(seat=seat, agent_id=by_seat[seat], role=team, team=team, won=won,
                              score=1.0 if won else 0.0, stats={k: float(v) for k, v in st.items()}))
    return out


def row(totals: AgentTotals) -> dict[str, Any]:
    every, village, wolves = totals.every, totals.role(VILLAGE), totals.role(WEREWOLVES)
    return {
        **{f"win_rate_{r}": every.rate(f"won_as_{r}", f"as_{r}") for r in ROLES if r != WEREWOLF},
        "identification_precision": village.rate("votes_on_wolves", "votes_cast"),
        "voting_success": every.rate("votes_successful", "votes_cast"),
        "seer_survival": every.rate(f"{SEER}_days_alive", f"{SEER}_days"),
        "doctor_survival": every.rate(f"{DOCTOR}_days_alive", f"{DOCTOR}_days"),
        "seer_info_used": every.rate("seer_found_voted_out", "seer_wolves_found"),
        "doctor_saves": every.rate("doctor_saves", "doctor_nights"),
        "deception": wolves.rate("accused_survived", "accused_days"),
        "survival": every.rate("days_alive", "days_played"),
    }


history = running_win_rate  # the leaderboard plot: the running win rate over seats

__all__ = ["days_alive", "history", "records", "row"]
