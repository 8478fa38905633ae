"""The murder mystery's results page: the arena's win-rate matrix as a heat map and the eight
Chain-of-Evaluation scores per agent as a table and a chart, each score linked to the games
it came from. Built from the store when the page is opened: the finished matches the
Leaderboard's filter counts, newest first (play scores judged then by the heuristic judge,
which the page names), and every stored quiz answer."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from ....core.spec import ResultsPage, ResultsScope, ResultsSection
from ..catalog import catalog
from ..quizzes import suite_items
from .judges import HeuristicJudge
from .matrix import Matrix, matrix
from .scores import SCORE_KEYS, Score, play_scores, quiz_scores
from .verdicts import VerdictBook

__all__ = ["NEWEST", "heat_map_html", "results_page", "scores_frame"]

NEWEST = 300  # matches read per opening: the page stays quick however large the store


if TYPE_CHECKING:
    import pandas as pd


def _link(match_id: str) -> str:
    return f"[{match_id[:8]}](?match={match_id})"


def _links(ids: list[str], most: int = 8) -> str:
    shown = ", ".join(_link(m) for m in ids[:most])
    return shown + (f" and {len(ids) - most} more" if len(ids) > most else "") if ids else "no games"


def _colour(rate: float | None) -> str:
    if rate is None:
        return "#eeeeee"
    # red (the murderer wins) to green (the innocents win)
    return f"hsl({round(120 * rate)}, 65%, 78%)"


def heat_map_html(m: Matrix) -> str:
    """The matrix as a coloured table: each cell the innocents' win rate of its decided matches,
    its interval, draws and error matches, and a link to its first game."""
    esc = html.escape
    head = "".join(f"<th>{esc(c)}<br><small>murderer</small></th>" for c in m.columns)
    rows = []
    for r in m.rows:
        cells = []
        for c in m.columns:
            cell = m.cell(r, c)
            rate, interval = cell.win_rate, cell.interval
            text = "-" if rate is None else f"<b>{100 * rate:.0f}%</b> of {cell.decided}"
            if interval:
                text += f"<br><small>[{100 * interval[0]:.0f}, {100 * interval[1]:.0f}]</small>"
            extra = [f"{cell.draws} draws"] * bool(cell.draws) + [f"{cell.errors} errors"] * bool(cell.errors)
            if extra:
                text += f"<br><small>{', '.join(extra)}</small>"
            if cell.matches:
                text += f'<br><small><a href="?match={esc(cell.matches[0])}">a game</a></small>'
            cells.append(f'<td style="background:{_colour(rate)};text-align:center">{text}</td>')
        avg = m.row_average(r)
        cells.append(f"<td><b>{'-' if avg is None else f'{100 * avg:.1f}%'}</b></td>")
        rows.append(f"<tr><th>{esc(r)}<br><small>innocents</small></th>{''.join(cells)}</tr>")
    loss = "".join(f"<td><b>{'-' if (v := m.column_loss(c)) is None else f'{100 * v:.1f}%'}</b></td>"
                   for c in m.columns)
    rows.append(f"<tr><th>average loss rate</th>{loss}<td></td></tr>")
    return (f'<table class="coe-heat-map"><tr><th>innocents \\ murderer</th>{head}<th>average win rate</th></tr>'
            + "".join(rows) + "</table>")


def _cell(s: Score) -> str:
    if s.value is None:
        return "-"
    fmt = (lambda v: f"{100 * v:.1f}%") if s.unit == "share" else (lambda v: f"{v:.2f}")
    interval = f" [{fmt(s.low)}, {fmt(s.high)}]" if s.low is not None and s.high is not None else ""
    return f"{fmt(s.value)}{interval} n={s.n}"


def scores_frame(scores: dict[str, list[Score]], keys: tuple[str, ...] = SCORE_KEYS) -> pd.DataFrame:
    rows = [{"agent": agent, **{s.key.upper(): _cell(s) for s in got}} for agent, got in scores.items()]
    import pandas as pd  # loaded when a results page is drawn, not when the game is imported

    return pd.DataFrame(rows, columns=["agent", *(k.upper() for k in keys)])


PLAY_KEYS = ("rp", "spc", "itd", "cmd")


def stored_judges_sections(store: Any, matches: list[dict[str, Any]], agents: list[str]) -> list[ResultsSection]:
    """One table per judge whose verdicts the `coe` command stored (an LLM judge): the play
    scores over exactly the matches that judge saw, with links to them."""
    sections = []
    ids = [m["id"] for m in matches]
    for label in store.verdict_judges():
        book = VerdictBook(label, None, store.verdicts(ids, label))
        judged = {agent: play_scores(matches, agent, book)[0] for agent in agents}
        judged = {agent: got for agent, got in judged.items() if got[0].n}
        if not judged:
            continue
        sources = [f"**{agent}**: {_links(got[0].matches)}" for agent, got in judged.items()]
        sections += [
            ResultsSection(f"Play scores judged by {label} (its stored verdicts)", "table",
                           scores_frame(judged, PLAY_KEYS)),
            ResultsSection(f"Matches judged by {label}", "markdown", "\n".join(f"- {line}" for line in sources)),
        ]
    return sections


def chart_frame(scores: dict[str, list[Score]]) -> pd.DataFrame:
    """Every score on one 0-1 scale (RP ÷ 10, CMD ÷ 100), one bar per (score, agent)."""
    scale = {"1-10": 10.0, "0-100": 100.0, "share": 1.0}
    rows = [{"score · agent": f"{s.key.upper()} · {agent}", "agent": agent, "score": s.key.upper(),
             "value": round(s.value / scale[s.unit], 4)}
            for agent, got in scores.items() for s in got if s.value is not None]
    import pandas as pd

    return pd.DataFrame(rows, columns=["score · agent", "agent", "score", "value"])


def quiz_tags() -> tuple[dict[str, dict[str, Any]], dict[str, int]]:
    """Each quiz item's tags, and its option count (2-4: the chance level follows it)."""
    items = [item for script in catalog().scripts.values() for item in suite_items(script)]
    return {i["id"]: i["tags"] for i in items}, {i["id"]: len(i["options"]) for i in items}


LISTED = 100_000  # light rows (no events) read to find the newest matches of the filter


def results_page(store: Any, scope: ResultsScope, newest: int = NEWEST) -> ResultsPage:
    """The page over the matches the leaderboard's filter (`scope`) counts, newest first, at
    most `newest` of them read with their events."""
    counted = [x for x in store.list_matches(game="mystery", status="finished", limit=LISTED) if scope.keep(x["tag"])]
    matches = [m for m in (store.get_match(x["id"]) for x in counted[:newest]) if m is not None]
    suites = {f"mystery-{s}" for s in catalog().scripts}
    answered: dict[str, list[str]] = {}
    for suite, agent, _ in store.suites_answered():
        if suite in suites:
            answered.setdefault(agent, []).append(suite)
    agents = sorted({s["agent_id"] for m in matches for s in m["seats"]} | set(answered))
    judge = HeuristicJudge()
    tags, offered = quiz_tags() if answered else ({}, {})
    scores: dict[str, list[Score]] = {}
    for agent in agents:
        rows = [r for suite in sorted(answered.get(agent, [])) for r in store.answers(suite, agent)]
        play, _ = play_scores(matches, agent, judge)
        scores[agent] = [*quiz_scores(rows, tags, sorted(answered.get(agent, [])), offered), *play]
    found = matrix(matches)
    links = []
    for agent, got in scores.items():
        links.append(f"**{agent}**")
        for s in got:
            source = _links(s.matches) if s.key in ("rp", "spc", "itd", "cmd") else (
                f"{s.n} stored answers ({s.note or 'none yet'})")
            links.append(f"- {s.key.upper()}: {source}")
    read = ("no finished murder-mystery matches" if not counted else
            f"all {len(counted)} finished murder-mystery matches" if len(matches) == len(counted) else
            f"the newest {len(matches)} of the {len(counted)} finished murder-mystery matches")
    note = (f"From {read} of the Leaderboard's filter ({scope.describe}: the same matches its board counts; "
            "change the filter above to read others) and every stored answer to the scripts' question sets "
            "(answers come from the suites, whatever the filter). RP, SPC and CMD judged now by the "
            f"**{judge.label}** judge; an LLM "
            "judge runs from the CLI (`python -m space_app coe --judge ...`), which stores its verdicts, shown "
            "below in a table of their own over the matches that judge saw. ITD and the quizzes need no judge. "
            "Intervals are 95%: Wilson for shares, a bootstrap over matches for RP (1-10) and CMD (0-100).")
    return ResultsPage(title="Murder mystery: the arena and the Chain of Evaluation", note=note, sections=(
        ResultsSection("Win-rate matrix (heat map)", "html", heat_map_html(found) if found.cells else
                       "<p>No faction matches yet (one agent in every innocent seat): run "
                       "<code>python -m space_app coe-matrix --agents A,B</code>.</p>"),
        ResultsSection("How to read the matrix", "markdown",
                       "Rows play the innocents, columns the murderer, over every script. A cell is the innocents' "
                       "win rate over its decided matches with its Wilson interval; draws and matches with agent "
                       "errors are counted apart and left out. Row: average win rate; column: average loss rate."),
        ResultsSection(f"Chain of Evaluation per agent (judge: {judge.label})", "table", scores_frame(scores)),
        ResultsSection("The eight scores on one scale (RP ÷ 10, CMD ÷ 100)", "bar", chart_frame(scores),
                       x="score · agent", y="value", color="agent", y_title="score (0-1)", y_lim=(0.0, 1.0)),
        ResultsSection("Where each score came from", "markdown", "\n".join(links) or "No agent has played yet."),
        *stored_judges_sections(store, matches, agents),
    ))
