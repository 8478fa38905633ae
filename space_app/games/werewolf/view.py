"""Werewolf's replay panels: each night (the werewolves' choice, the Seer's vision, the Doctor's
protection, the Witch's potion, who died), each day (the deaths at dawn, every vote, who was
voted out, the Hunter's shot), the discussion (the day's statements, defences and last words,
and the werewolves' night talk) and the role board (each seat's role as far as the chosen view
knows it, and when it died). Each panel is built from the events the chosen view may see: a
villager's replay shows no night choice but its own and no role before it is revealed; the
werewolves' talk shows to spectators (and the werewolves)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.events import Event, Private
from ...core.spec import Panel, ReplayView
from .events import (
    KINDS,
    Dawn,
    DayVote,
    DoctorProtect,
    Elimination,
    GameOver,
    HunterShot,
    NightResolution,
    SeerCheck,
    Silence,
    Statement,
    VoteResult,
    WerewolfSetup,
    WitchAction,
    WolfChoice,
    WolfTalk,
)

if TYPE_CHECKING:  # pandas is imported where a frame is built
    import pandas as pd

NIGHT_COLUMNS = ("night", "werewolves chose", "Seer checked", "Doctor protected", "Witch", "died")
DAY_COLUMNS = ("day", "died at dawn", "votes", "result", "Hunter")
DISCUSSION_COLUMNS = ("round", "where", "seat", "statement")
BOARD_COLUMNS = ("seat", "role", "known from", "status")
PHASE_WORDS = {"introduction": "introduction", "discussion": "day", "defence": "defence", "last_words": "last words"}


def _shown(events: list[dict[str, Any]], upto: int | None) -> list[Event]:
    return KINDS.parse_all(events if upto is None else events[: upto + 1])


def nights(events: list[dict[str, Any]], upto: int | None = None) -> pd.DataFrame:
    import pandas as pd

    rows: dict[int, dict[str, Any]] = {}

    def night(n: int) -> dict[str, Any]:
        return rows.setdefault(n, {c: "" for c in NIGHT_COLUMNS} | {"night": n})

    for e in _shown(events, upto):
        if isinstance(e, WolfChoice):
            night(e.night)["werewolves chose"] = e.target or f"nobody ({e.how.replace('_', ' ')})"
        elif isinstance(e, SeerCheck) and e.target is not None:
            night(e.night)["Seer checked"] = f"{e.target}: {e.result}"
        elif isinstance(e, DoctorProtect) and e.target is not None:
            night(e.night)["Doctor protected"] = e.target
        elif isinstance(e, WitchAction):
            night(e.night)["Witch"] = f"{e.action} {e.target or ''}".strip()
        elif isinstance(e, NightResolution):
            night(e.night)["died"] = ", ".join(f"{s} ({c})" for s, c in e.causes.items()) or "nobody"
        elif isinstance(e, Dawn) and not night(e.day)["died"]:
            night(e.day)["died"] = ", ".join(e.deaths) or "nobody"
    return pd.DataFrame(list(rows.values()), columns=list(NIGHT_COLUMNS))


def days(events: list[dict[str, Any]], upto: int | None = None) -> pd.DataFrame:
    import pandas as pd

    rows: dict[int, dict[str, Any]] = {}

    def day(n: int) -> dict[str, Any]:
        return rows.setdefault(n, {c: "" for c in DAY_COLUMNS} | {"day": n})

    for e in _shown(events, upto):
        if isinstance(e, Dawn):
            shown = [f"{s} ({e.revealed[s]})" if s in e.revealed else s for s in e.deaths]
            day(e.day)["died at dawn"] = ", ".join(shown) or "nobody"
        elif isinstance(e, DayVote):
            row = day(e.day)
            mark = f"{e.actor}→{e.target or '–'}"
            row["votes"] = (row["votes"] + (" | run-off: " if e.runoff and "run-off" not in row["votes"] else " ")
                            + mark).strip()
        elif isinstance(e, VoteResult):
            row = day(e.day)
            said = (f"{e.eliminated} out" if e.eliminated else
                    f"tie {', '.join(e.tied)}: {'run-off' if e.outcome == 'runoff' else 'nobody out'}" if e.tied
                    else "no votes")
            row["result"] = f"{row['result']}; {said}".strip("; ")
        elif isinstance(e, Elimination) and e.revealed:
            day(e.day)["result"] += f" ({e.revealed})"
        elif isinstance(e, HunterShot):
            day(e.day)["Hunter"] = f"{e.actor} shot {e.target}" if e.target else f"{e.actor} held fire"
    return pd.DataFrame(list(rows.values()), columns=list(DAY_COLUMNS))


def discussion(events: list[dict[str, Any]], upto: int | None = None) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for e in _shown(events, upto):
        if isinstance(e, Statement):
            rows.append({"round": e.day, "where": PHASE_WORDS[e.phase], "seat": e.actor, "statement": e.text})
        elif isinstance(e, Silence):
            rows.append({"round": e.day, "where": PHASE_WORDS[e.phase], "seat": e.actor,
                         "statement": f"(silent: {e.reason or 'no statement'})"})
        elif isinstance(e, WolfTalk):
            rows.append({"round": e.night, "where": "night, werewolves only", "seat": e.actor, "statement": e.text})
    return pd.DataFrame(rows, columns=list(DISCUSSION_COLUMNS))


def role_board(events: list[dict[str, Any]], upto: int | None = None) -> pd.DataFrame:
    """Every seat with its role as far as this view knows it (its own, its pack, the reveals,
    the end of the game; spectators all of them) and when it died."""
    import pandas as pd

    seats: list[str] = []
    known: dict[str, tuple[str, str]] = {}  # seat -> (role or team, how it is known)
    status: dict[str, str] = {}
    for e in _shown(events, upto):
        if isinstance(e, WerewolfSetup):
            seats = list(e.roles)
            known.update({s: (r, "spectators") for s, r in e.roles.items()})
        elif isinstance(e, Private):
            if "role" in e.facts and e.actor not in ("host", ""):
                known.setdefault(e.actor, (str(e.facts["role"]), "own role"))
            for wolf in e.facts.get("werewolves") or []:
                known.setdefault(str(wolf), ("werewolf", "the pack"))
        elif isinstance(e, Dawn):
            for s in e.deaths:
                status[s] = f"died night {e.day}"
                if s in e.revealed:
                    known[s] = (e.revealed[s], "revealed")
        elif isinstance(e, Elimination):
            status[e.seat] = f"voted out day {e.day}"
            if e.revealed:
                known[e.seat] = (e.revealed, "revealed")
        elif isinstance(e, HunterShot) and e.target:
            status[e.target] = f"shot by the Hunter, {'night' if e.when == 'night' else 'day'} {e.day}"
            if e.revealed:
                known[e.target] = (e.revealed, "revealed")
        elif isinstance(e, GameOver):
            seats = seats or list(e.roles)
            known.update({s: (r, "game over") for s, r in e.roles.items()})
        seats += [s for s in _seats_of(e) if s not in seats]
    rows = [{"seat": s, "role": known.get(s, ("?", ""))[0], "known from": known.get(s, ("?", ""))[1],
             "status": status.get(s, "alive")} for s in seats]
    return pd.DataFrame(rows, columns=list(BOARD_COLUMNS))


def _seats_of(e: Event) -> list[str]:
    seats = getattr(e, "seats", None)
    return [str(s) for s in seats] if isinstance(seats, list) else []


VIEW = ReplayView(
    panels=(Panel("Role board", role_board, columns=BOARD_COLUMNS),
            Panel("Nights", nights, columns=NIGHT_COLUMNS),
            Panel("Days and votes (voter→target)", days, columns=DAY_COLUMNS),
            Panel("Discussion (the werewolves' night talk: spectators and werewolves only)", discussion,
                  columns=DISCUSSION_COLUMNS)),
    result_columns=(("role", "roles"), ("team", "teams")))


def why_won(match: dict[str, Any]) -> str:
    """One line on why the winner won, from the stored events (the death that decided it)."""
    from .phrases import PHRASES
    from .roles import WEREWOLF

    events = KINDS.parse_all(match.get("events") or [])
    over = next((e for e in events if isinstance(e, GameOver)), None)
    if over is None:
        return ""
    language = str((match.get("settings") or {}).get("language") or "en")
    wolves = PHRASES.join(language, [s for s, r in over.roles.items() if r == WEREWOLF])
    last_death = ""
    when = PHRASES.say(language, "when_day", n=over.day)
    for e in events:
        if isinstance(e, Dawn) and e.deaths:
            last_death, when = e.deaths[-1], PHRASES.say(language, "when_night", n=e.day)
        elif isinstance(e, Elimination):
            last_death, when = e.seat, PHRASES.say(language, "when_day", n=e.day)
        elif isinstance(e, HunterShot) and e.target:
            last_death = e.target
            when = PHRASES.say(language, "when_night" if e.when == "night" else "when_day", n=e.day)
    if over.reason == "wolves_out":
        return PHRASES.say(language, "won_wolves_out", last=last_death, when=when)
    if over.reason == "parity":
        return PHRASES.say(language, "won_parity", wolves=wolves, when=when)
    return PHRASES.say(language, "won_day_limit", wolves=wolves, days=over.day)


__all__ = ["VIEW", "days", "discussion", "nights", "role_board", "why_won"]
