"""How far each heuristic judge agrees with labels written for the project.

Reads `benchmarks/judge_calibration.json` (statements per judge, each with the score a careful
reader gives by the judge's own question) and prints, per judge, the number of items, Spearman's
rank correlation between the judge's scores and the labels, and the share of items where the
judge's score, rounded to the label's scale, is the label (exact) or within one step of it
(±1 step: 1 point on 1-5 and 1-10, 10 points on 0-100; SPC is yes/no, so exact is its accuracy).

    python benchmarks/judge_calibration.py            # the Markdown table (docs/methodology.md)
    python benchmarks/judge_calibration.py --json     # the same figures as JSON
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from space_app import correlation  # noqa: E402
from space_app.games.avalon.intentions import Situation, load_catalogue  # noqa: E402
from space_app.games.avalon.judge import (  # noqa: E402
    IntentionStatement,
    heuristic_following,
    heuristic_reasonableness,
)
from space_app.games.mystery.catalog import get_script  # noqa: E402
from space_app.games.mystery.coe import HeuristicJudge, Seat  # noqa: E402

DATA = Path(__file__).with_name("judge_calibration.json")


# -- the labelled set, checked as it is read ------------------------------------------------------
class RPItem(BaseModel):
    label: int = Field(ge=1, le=10)
    said: list[str]
    silences: int = 0


class SPCItem(BaseModel):
    clue: int = Field(ge=0)
    label: int = Field(ge=0, le=1)
    statement: str


class CMDItem(BaseModel):
    label: int = Field(ge=0, le=100)
    reasoning: str


class Mystery(BaseModel):
    script: str
    character: str
    rp: list[RPItem]
    spc: list[SPCItem]
    cmd: list[CMDItem]


class AvalonItem(BaseModel):
    label: int = Field(ge=1, le=5)
    chosen: list[str]
    speak: str
    think: str = ""
    role: str = "servant"
    side: str = "good"
    situation: dict[str, Any] = {}


class Avalon(BaseModel):
    reasonableness: list[AvalonItem]
    following: list[AvalonItem]


class Calibration(BaseModel):
    about: str
    version: str
    mystery: Mystery
    avalon: Avalon


class Row(BaseModel):
    """One judge's agreement with its labels."""

    judge: str
    scale: str
    n: int
    spearman: float | None  # None when the judge's scores or the labels are all equal
    exact: float
    within_one: float | None  # None for a yes/no judge


# -- agreement ---------------------------------------------------------------------------------
def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rho: Pearson's correlation of the ranks (ties averaged); None when a side is constant."""
    if len(x) != len(y) or len(x) < 2:
        raise ValueError(f"spearman needs two equal lists of at least 2 values, got {len(x)} and {len(y)}")
    return correlation.spearman(x, y)


def _half_up(x: float) -> int:
    return math.floor(x + 0.5)


def agreement(judge: str, scale: str, scores: list[float], labels: list[int], step: float | None) -> Row:
    """`step`: the label scale's step (exact and ±1 step compare rounded to it); None: yes/no."""
    if step is None:
        exact = sum(int(s >= 0.5) == lab for s, lab in zip(scores, labels, strict=True)) / len(labels)
        return Row(judge=judge, scale=scale, n=len(labels), spearman=spearman(scores, labels), exact=exact,
                   within_one=None)
    steps = [abs(_half_up(s / step) - _half_up(lab / step)) for s, lab in zip(scores, labels, strict=True)]
    return Row(judge=judge, scale=scale, n=len(labels), spearman=spearman(scores, labels),
               exact=sum(d == 0 for d in steps) / len(steps), within_one=sum(d <= 1 for d in steps) / len(steps))


# -- the judges on the set -------------------------------------------------------------------------
def _mystery_rows(data: Mystery) -> list[Row]:
    script = get_script(data.script)
    role = script.role(data.character)
    names = [r.name for r in script.roles]
    judge = HeuristicJudge()

    def seat(said: list[str], silences: int = 0, reasoning: str = "") -> Seat:
        return Seat(character=data.character, said=said, silences=silences, reasoning=reasoning,
                    script=role.script, characters=names, language=script.language)

    for item in data.spc:
        if item.clue >= len(role.clues):
            raise ValueError(f"an SPC item names clue {item.clue}; {data.character} has {len(role.clues)}")
    truth = dict(script.truth)
    return [
        agreement("murder mystery RP", "1-10", [judge.rp(seat(i.said, i.silences)).value for i in data.rp],
                  [i.label for i in data.rp], 1),
        agreement("murder mystery SPC", "yes/no",
                  [judge.spc(seat([i.statement]), [role.clues[i.clue]])[0].value for i in data.spc],
                  [i.label for i in data.spc], None),
        agreement("murder mystery CMD", "0-100", [judge.cmd(seat([], reasoning=i.reasoning), truth).value
                                                  for i in data.cmd], [i.label for i in data.cmd], 10),
    ]


def _statement(item: AvalonItem) -> IntentionStatement:
    return IntentionStatement(seat="P2", quest=int(item.situation.get("quest", 1)), attempt=1, role=item.role,
                              side=item.side, situation=Situation(**item.situation), chosen=tuple(item.chosen),
                              ids=tuple(item.chosen), think=item.think, speak=item.speak, errors=())


def _avalon_rows(data: Avalon) -> list[Row]:
    catalogue = load_catalogue()
    for item in [*data.reasonableness, *data.following]:
        unknown = [i for i in item.chosen if catalogue.get(i) is None]
        if unknown:
            raise ValueError(f"Avalon items name intentions not in the catalogue: {unknown}")
    judges: list[tuple[str, list[AvalonItem], Callable[..., float]]] = [
        ("Avalon reasonableness", data.reasonableness, heuristic_reasonableness),
        ("Avalon following", data.following, heuristic_following)]
    return [agreement(name, "1-5", [score(_statement(i), catalogue) for i in items], [i.label for i in items], 1)
            for name, items, score in judges]


def calibrate(path: Path = DATA) -> list[Row]:
    try:
        data = Calibration.model_validate_json(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read the calibration set {path}: {exc}") from exc
    return [*_mystery_rows(data.mystery), *_avalon_rows(data.avalon)]


def markdown(rows: list[Row]) -> str:
    def pct(x: float | None) -> str:
        return "—" if x is None else f"{100 * x:.0f}%"

    lines = ["| judge (heuristic) | scale | n | Spearman | exact | ±1 step |", "|---|---|---:|---:|---:|---:|"]
    for r in rows:
        rho = "—" if r.spearman is None else f"{r.spearman:.2f}"
        lines.append(f"| {r.judge} | {r.scale} | {r.n} | {rho} | {pct(r.exact)} | {pct(r.within_one)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/judge_calibration.py", description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="the labelled set (default: %(default)s)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    try:
        rows = calibrate(args.data)
    except ValueError as exc:  # a pydantic ValidationError is a ValueError: the file's problem, named
        print(f"judge_calibration: {exc}", file=sys.stderr)
        return 2
    print(json.dumps([r.model_dump() for r in rows], indent=1) if args.json else markdown(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
