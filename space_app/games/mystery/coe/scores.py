"""The eight Chain-of-Evaluation scores of one agent, from what is stored (pure: the caller
reads the store).

Play scores, from the agent's finished mystery matches (every seat it held):
- RP: the judge's 1-10 role-play naturalness of each seat's dialogue (every seat);
- SPC: of the key clue statements in the character's own script (`role.clues`), the share
  its dialogue conveyed (innocent seats: conveying clues is the innocents' task);
- ITD: key roles the seat chose to question ÷ key roles it could question (every seat, as the
  leaderboard's column, from `metrics.records`);
- CMD: the judge's 0-100 match of the final reasoning statement against the truth (innocent
  seats: the murderer knows the truth).
Intervals: RP and CMD by a seeded bootstrap over matches (each match's value the mean of the
agent's seats in it), SPC and ITD by Wilson over the pooled counts.

Quiz scores, from the agent's stored answers to the scripts' question sets (suites
`mystery-<script id>`): LSU, TIU, MIU, MMR accuracy with Wilson intervals, MMR also per depth
(an imported question of unknown depth in its own row), each with its chance level.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel

from ....stats import Rate, mean_interval
from ..catalog import UnknownScript, catalog, get_script, is_folder_path
from ..events import KINDS, MysterySetup, Reasoning, Silence, Speech, Start
from ..metrics import records
from ..rules import MURDERER
from ..scripts.script import UNKNOWN_DEPTH, Script
from .judges import Judge, Seat, Verdict
from .verdicts import VerdictBook

__all__ = ["QUIZ_KEYS", "SCORE_KEYS", "TITLES", "Score", "play_scores", "quiz_scores", "seat_of"]

QUIZ_KEYS = ("lsu", "tiu", "miu", "mmr")
PLAY_KEYS = ("rp", "spc", "itd", "cmd")
SCORE_KEYS = (*QUIZ_KEYS, *PLAY_KEYS)
TITLES = {"lsu": "LSU long-script understanding", "tiu": "TIU text-rich image understanding",
          "miu": "MIU media-rich image understanding", "mmr": "MMR multi-modal multi-hop reasoning",
          "rp": "RP role-play naturalness", "spc": "SPC scenario progression (key clues conveyed)",
          "itd": "ITD decision making (key roles questioned)", "cmd": "CMD motive and method vs the truth"}
UNITS = {"rp": "1-10", "cmd": "0-100"}  # every other score is a share (0-1)
RESAMPLES = 2000


class Score(BaseModel):
    key: str
    title: str
    value: float | None = None
    low: float | None = None
    high: float | None = None
    n: int = 0  # what it counts: questions, clue statements, key roles, or matches (RP, CMD)
    counts: str = ""  # the unit of n
    unit: str = "share"  # share (0-1), 1-10 or 0-100
    interval: str = ""  # how the 95% interval was drawn
    judge: str = ""  # the judge that produced it ("" when none is needed)
    matches: list[str] = []  # the games it came from
    by_hops: list[Score] = []  # MMR per depth ("unknown" last)
    chance: float | None = None  # quiz scores: the accuracy of answering at random (questions have 2-4 options)
    note: str = ""


def _rate(key: str, title: str, rate: Rate, counts: str, **extra: Any) -> Score:
    low, high = rate.interval or (None, None)
    return Score(key=key, title=title, value=rate.value, low=low, high=high, n=int(rate.n), counts=counts,
                 interval="Wilson", **extra)


def _mean(key: str, values: list[float], counts: str, **extra: Any) -> Score:
    value, low, high = mean_interval(values, resamples=RESAMPLES, seed=0) or (None, None, None)
    return Score(key=key, title=TITLES[key], value=value, low=low, high=high,
                 n=len(values), counts=counts, unit=UNITS[key], interval="bootstrap over matches", **extra)


def seat_of(match: dict[str, Any], seat: str) -> Seat:
    """What the judges read of one seat: its character's introduction and everything it said."""
    events = KINDS.parse_all(match.get("events") or [])
    start = next((e for e in events if isinstance(e, Start)), None) or Start()
    intro = next((c.get("introduction", "") for c in start.characters if c.get("name") == seat), "")
    said = [e.text for e in events if isinstance(e, Speech) and e.actor == seat]
    reasoning = next((e.text for e in reversed(events) if isinstance(e, Reasoning) and e.actor == seat), "")
    silences = sum(isinstance(e, Silence) and e.actor == seat for e in events)
    script_id = str((match.get("settings") or {}).get("script") or start.script or "")
    played = _script(script_id)
    role = next((r for r in played.roles if r.name == seat), None) if played else None
    characters = [str(c.get("name", "")) for c in start.characters if c.get("name")]
    return Seat(character=seat, introduction=intro, language=start.language or "en", said=said,
                silences=silences, reasoning=reasoning, script=role.script if role else "", characters=characters)


def _script(script_id: str) -> Script | None:
    """The script a match was played on: shipped, or read again from its folder; None when it is
    no longer shipped or its folder cannot be read now."""
    if script_id in catalog().scripts or not is_folder_path(script_id):
        return catalog().scripts.get(script_id)
    try:
        return get_script(script_id)
    except UnknownScript:
        return None


def _key_clues(script_id: str, character: str) -> list[str] | None:
    """The clue statements of the character's script; None when the script is no longer shipped
    (or its folder cannot be read now)."""
    script = _script(script_id)
    if script is None:
        return None
    role = next((r for r in script.roles if r.name == character), None)
    return list(role.clues) if role else []


def play_scores(matches: Iterable[dict[str, Any]], agent: str, judge: Judge | VerdictBook
                ) -> tuple[list[Score], list[Verdict]]:
    """RP, SPC, ITD and CMD of `agent` over the finished matches it played (others are
    skipped), and every verdict the judge gave (to count fallbacks). `judge`: a judge, or a
    book of one judge's verdicts (stored ones reused, new ones kept in the book to store; a
    read-only book skips the matches it lacks a verdict for)."""
    book = judge if isinstance(judge, VerdictBook) else VerdictBook.asking(judge)
    rp: list[float] = []
    cmd: list[float] = []
    spc = [0, 0]
    itd = [0.0, 0.0]
    used: list[str] = []
    verdicts: list[Verdict] = []
    for match in matches:
        if match.get("status") != "finished":
            continue
        seats = [s["seat"] for s in match["seats"] if s["agent_id"] == agent]
        if not seats:
            continue
        match = {**match, "events": KINDS.parse_all(match["events"])}  # read once: each seat's reading reuses it
        setup = next((e for e in match["events"] if isinstance(e, MysterySetup)), None)
        if setup is None:
            continue
        judged = _judge_match(match, seats, setup, book)
        if judged is None:
            continue
        rp_here, cmd_here, conveyed, clues, given = judged
        used.append(match["id"])
        verdicts += given
        for r in records(match):
            if r.seat in seats:
                itd[0] += r.stats.get("key_roles_questioned", 0.0)
                itd[1] += r.stats.get("key_roles_available", 0.0)
        spc[0] += conveyed
        spc[1] += clues
        rp.append(sum(rp_here) / len(rp_here))
        if cmd_here:
            cmd.append(sum(cmd_here) / len(cmd_here))
    label = book.label
    return [
        _mean("rp", rp, "matches", judge=label, matches=used),
        _rate("spc", TITLES["spc"], Rate(spc[0], spc[1]), "key clue statements", judge=label, matches=used),
        _rate("itd", TITLES["itd"], Rate(itd[0], itd[1]), "key roles", matches=used),
        _mean("cmd", cmd, "matches", judge=label, matches=used),
    ], verdicts


def _judge_match(match: dict[str, Any], seats: list[str], setup: MysterySetup, book: VerdictBook
                 ) -> tuple[list[float], list[float], int, int, list[Verdict]] | None:
    """(RP per seat, CMD per innocent seat, clues conveyed, clues, verdicts) of the agent's
    seats in one match, or None when a read-only book lacks a verdict for one of them."""
    roles, truth = setup.roles, setup.truth
    script_id = str((match.get("settings") or {}).get("script") or setup.script or "")
    rp_here: list[float] = []
    cmd_here: list[float] = []
    conveyed = clues_seen = 0
    given: list[Verdict] = []
    for seat in seats:
        read = seat_of(match, seat)
        verdict = book.rp(match["id"], read)
        if verdict is None:
            return None
        given.append(verdict)
        rp_here.append(verdict.value)
        if roles.get(seat) == MURDERER:
            continue
        verdict = book.cmd(match["id"], read, truth)
        clues = _key_clues(script_id, seat) or []
        told = book.spc(match["id"], read, clues)
        if verdict is None or told is None:
            return None
        given += [verdict, *told]
        cmd_here.append(verdict.value)
        conveyed += sum(int(v.value >= 0.5) for v in told)
        clues_seen += len(clues)
    return rp_here, cmd_here, conveyed, clues_seen, given


def _depth_order(depth: int | str) -> tuple[int, int]:
    return (1, 0) if isinstance(depth, str) else (0, depth)  # "unknown" after every known depth


def _depth_title(depth: int | str) -> str:
    return f"MMR {depth} hop{'s' if depth != 1 else ''}" if isinstance(depth, int) else f"MMR {depth} depth"


def quiz_scores(rows: list[dict[str, Any]], tags: dict[str, dict[str, Any]], suites: list[str],
                options: Mapping[str, int] | None = None) -> list[Score]:
    """LSU, TIU, MIU and MMR accuracy (MMR also per depth, an imported question of unknown depth
    in a row of its own and in MMR's total) over stored answers (`Store.answers` rows of the
    mystery suites); `tags`: item id -> its tags (for `hops`); `options`: item id -> how many
    options it offers, for each score's chance level (questions may have 2-4 options)."""
    by_type: dict[str, list[int]] = {k: [] for k in QUIZ_KEYS}
    chance: dict[str, list[float]] = {k: [] for k in QUIZ_KEYS}
    by_hops: dict[int | str, list[int]] = {}
    hop_chance: dict[int | str, list[float]] = {}
    for r in rows:
        offered = (options or {}).get(r["item_id"])
        for t in r["types"] or []:
            if t in by_type:
                by_type[t].append(int(r["correct"]))
                if offered:
                    chance[t].append(1 / offered)
        hops = (tags.get(r["item_id"]) or {}).get("hops")
        if "mmr" in (r["types"] or []) and (isinstance(hops, int) or hops == UNKNOWN_DEPTH):
            by_hops.setdefault(hops, []).append(int(r["correct"]))
            if offered:
                hop_chance.setdefault(hops, []).append(1 / offered)
    out = []
    for key in QUIZ_KEYS:
        got = by_type[key]
        hops = [_rate(f"mmr-{h}", _depth_title(h), Rate(sum(v), len(v)), "questions",
                      chance=_mean_chance(hop_chance.get(h, []), len(v)))
                for h, v in sorted(by_hops.items(), key=lambda kv: _depth_order(kv[0]))] if key == "mmr" else []
        out.append(_rate(key, TITLES[key], Rate(sum(got), len(got)), "questions", by_hops=hops,
                         chance=_mean_chance(chance[key], len(got)),
                         note="suites " + ", ".join(suites) if suites else ""))
    return out


def _mean_chance(values: list[float], answered: int) -> float | None:
    """The accuracy expected from picking an option at random: the mean over the questions of
    1 / their option count (None unless every answered question's count is known)."""
    return sum(values) / len(values) if values and len(values) == answered else None
