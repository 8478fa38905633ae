"""The arena's win-rate matrix over faction matches (pure: the caller reads the store).

A faction match has one agent in every innocent seat (the row) and one as the murderer (the
column). Each cell counts, over every script, the innocents' wins and losses; draws and
matches with agent errors (not finished, or any call that failed or timed out) are left out of
the rate and counted apart. A row's average is the mean of its cells' win rates (the row agent
as the innocents), a column's the mean of its cells' win rates read as the murderer's loss rate.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel

from ....core.events import Call
from ....stats import Rate
from ..events import KINDS, GameOver, MysterySetup
from ..rules import DRAW, INNOCENTS, MURDERER

__all__ = ["Cell", "Matrix", "faction", "matrix", "outcome"]


class Cell(BaseModel):
    innocents: str
    murderer: str
    wins: int = 0
    losses: int = 0
    draws: int = 0
    errors: int = 0
    matches: list[str] = []  # every match of the cell, draws and errors included

    @property
    def decided(self) -> int:
        return self.wins + self.losses

    @property
    def win_rate(self) -> float | None:
        return Rate(self.wins, self.decided).value

    @property
    def interval(self) -> tuple[float, float] | None:
        return Rate(self.wins, self.decided).interval


class Matrix(BaseModel):
    rows: list[str]  # agents as the innocents
    columns: list[str]  # agents as the murderer
    cells: dict[str, Cell]  # "row|column" -> cell

    def cell(self, row: str, column: str) -> Cell:
        return self.cells.get(f"{row}|{column}") or Cell(innocents=row, murderer=column)

    def row_average(self, row: str) -> float | None:
        rates = [r for c in self.columns if (r := self.cell(row, c).win_rate) is not None]
        return sum(rates) / len(rates) if rates else None

    def column_loss(self, column: str) -> float | None:
        rates = [r for row in self.rows if (r := self.cell(row, column).win_rate) is not None]
        return sum(rates) / len(rates) if rates else None


def faction(match: dict[str, Any]) -> tuple[str, str] | None:
    """(innocents agent, murderer agent) of a faction match; None for any other line-up."""
    setup = next((e for e in KINDS.parse_all(match.get("events") or []) if isinstance(e, MysterySetup)), None)
    if setup is None:
        return None
    roles = setup.roles
    agents = {s["seat"]: s["agent_id"] for s in match["seats"]}
    innocents = {agents[s] for s, role in roles.items() if role != MURDERER and s in agents}
    murderer = [agents[s] for s, role in roles.items() if role == MURDERER and s in agents]
    if len(innocents) != 1 or len(murderer) != 1:
        return None
    return innocents.pop(), murderer[0]


def outcome(match: dict[str, Any]) -> str:
    """'win' (the innocents won), 'loss', 'draw' or 'error' (an agent failed, or no end)."""
    events = KINDS.parse_all(match.get("events") or [])
    failed = any(isinstance(e, Call) and e.status in ("error", "timeout") for e in events)
    over = next((e for e in events if isinstance(e, GameOver)), None)
    if failed or match.get("status") != "finished" or over is None:
        return "error"
    winner = over.winner
    return {INNOCENTS: "win", MURDERER: "loss", DRAW: "draw"}.get(winner, "error")


def matrix(matches: Iterable[dict[str, Any]], agents: Sequence[str] | None = None) -> Matrix:
    """The matrix over the faction matches among `agents` (None: every agent found)."""
    cells: dict[str, Cell] = {}
    for match in matches:
        pair = faction(match)
        if pair is None or (agents is not None and not set(pair) <= set(agents)):
            continue
        cell = cells.setdefault(f"{pair[0]}|{pair[1]}", Cell(innocents=pair[0], murderer=pair[1]))
        result = outcome(match)
        cell.wins += result == "win"
        cell.losses += result == "loss"
        cell.draws += result == "draw"
        cell.errors += result == "error"
        cell.matches.append(match["id"])
    found = sorted({c.innocents for c in cells.values()} | {c.murderer for c in cells.values()})
    order = list(agents) if agents is not None else found
    return Matrix(rows=[a for a in order if any(c.innocents == a for c in cells.values()) or agents is not None],
                  columns=[a for a in order if any(c.murderer == a for c in cells.values()) or agents is not None],
                  cells=cells)
