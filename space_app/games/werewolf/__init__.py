"""Werewolf, 6-15 players: the werewolves, who know each other and kill by night, against the
village (Seer, Doctor, Villagers, and optionally the Witch and the Hunter), who discuss by day
under a choice of protocols (round-robin, bidding for the floor, parallel) and vote players
out. Rules, settings and metrics: docs/rules-werewolf.md.

This package registers the game's GameSpec: its events (`events.py`), roles (`roles.py`),
rules (`rules.py`), lines in English and Chinese (`phrases.py`), metrics (`metrics.py`),
replay panels (`view.py`), house agents (`agents.py`, reading their seat's view with
`board.py`) and the discussion-protocol study (`studies.py`).
"""

from __future__ import annotations

from pathlib import Path

from ...core.registry import register
from ...core.spec import (
    Extras,
    Facts,
    GameSpec,
    HouseAgent,
    HouseAgents,
    MetricColumn,
    Metrics,
    Presentation,
    Rules,
    Study,
)
from . import studies
from .agents import RandomWerewolfAgent, RuleWerewolfAgent
from .documents import documents
from .events import KINDS
from .metrics import history, records, row
from .probes import PROBE_RULES
from .roles import DEFAULT_PLAYERS, MAX_PLAYERS, MIN_PLAYERS, ROLES, TEAMS
from .rules import WerewolfGame, WerewolfSettings, dealt_roles
from .view import VIEW, why_won

DOCS = Path(__file__).resolve().parents[3] / "docs"

METRIC_COLUMNS = (
    MetricColumn("win_rate_seer", "win % Seer", "seats won as the Seer", percent=True),
    MetricColumn("win_rate_doctor", "win % Doctor", "seats won as the Doctor", percent=True),
    MetricColumn("win_rate_villager", "win % Villager", "seats won as a Villager", percent=True),
    MetricColumn("win_rate_witch", "win % Witch", "seats won as the Witch (when in play)", percent=True),
    MetricColumn("win_rate_hunter", "win % Hunter", "seats won as the Hunter (when in play)", percent=True),
    MetricColumn("identification_precision", "identification", "a village seat's day votes that named a werewolf "
                 "÷ its day votes", percent=True),
    MetricColumn("voting_success", "voting success", "day votes for the player then voted out, when it was on the "
                 "other team ÷ day votes cast", percent=True),
    MetricColumn("seer_survival", "Seer survival", "days alive as the Seer ÷ days its games lasted", percent=True),
    MetricColumn("doctor_survival", "Doctor survival", "days alive as the Doctor ÷ days its games lasted",
                 percent=True),
    MetricColumn("seer_info_used", "Seer info used", "werewolves the seat found as the Seer that the village later "
                 "voted out ÷ werewolves it found", percent=True),
    MetricColumn("doctor_saves", "Doctor saves", "nights the seat's protection stopped the werewolves' attack ÷ "
                 "nights it protected", percent=True),
    MetricColumn("deception", "deception", "days a werewolf was voted for and still not voted out ÷ days it was "
                 "voted for", percent=True),
    MetricColumn("survival", "survival", "days alive ÷ days played, any role", percent=True),
)

# what each phase asks for, in words (generated docs)
PHASE_TITLES = {
    "introduction": "introduce yourself",
    "wolf_talk": "werewolves agree on a victim",
    "night": "night action",
    "witch": "the witch's potions",
    "hunter": "the hunter's shot",
    "discuss": "day discussion",
    "discuss_parallel": "day discussion (all at once)",
    "bid": "bid for the floor",
    "defence": "defence before the run-off",
    "last_words": "last words",
    "day_vote": "vote someone out",
    "runoff": "run-off vote",
}


SPEC = register(GameSpec(
    id="werewolf",
    facts=Facts(
        title=WerewolfGame.title,
        titles={"zh": "狼人杀"},
        min_players=MIN_PLAYERS,
        max_players=MAX_PLAYERS,
        default_players=DEFAULT_PLAYERS,
        roles=ROLES,
        sides=TEAMS,
    ),
    rules=Rules(
        probes=PROBE_RULES,
        game_class=WerewolfGame,
        settings_class=WerewolfSettings,
        events=KINDS,
        rules_doc=DOCS / "rules-werewolf.md",
        deal=dealt_roles,
    ),
    metrics=Metrics(
        records=records,
        row=row,
        columns=METRIC_COLUMNS,
        ranking_note="Ranked by the conservative rating (the low end of OpenSkill μ's 95% interval), the village "
                     "against the werewolves (uneven teams: each side's strength learned apart). Per-team and per-role "
                     "columns count seats. Click a column header to sort.",
        history=history,
        history_label="win_rate",
    ),
    presentation=Presentation(
        phase_titles=PHASE_TITLES,
        view=VIEW,
        why_won=why_won,
        documents=documents,
        value_words={"zh": {"werewolf": "狼人", "seer": "预言家", "doctor": "医生", "villager": "村民", "witch": "女巫",
                            "hunter": "猎人", "village": "好人阵营", "werewolves": "狼人阵营", "role": "身份",
                            "team": "阵营"}},
    ),
    house=HouseAgents(
        agents={
            "house:werewolf-rules": HouseAgent("Rule bots: Seer claims weighed against the reveals, votes read for who "
                                               "sides with whom; a pack that agrees on one victim, claims the Seer "
                                               "first and votes as one.", RuleWerewolfAgent),
            "house:werewolf-random": HouseAgent("Random votes, bids and night actions; generic statements.",
                                                RandomWerewolfAgent),
        },
        demo=("house:werewolf-rules", "house:werewolf-random"),
    ),
    extras=Extras(
        studies={studies.STUDY: Study(title="Discussion-protocol study", describe=studies.DESCRIBE,
                                      columns=studies.COLUMNS, run=studies.run, chart=studies.chart,
                                      chart_order=studies.CHART_ORDER, newest=studies.newest)},
    ),
))

__all__ = ["SPEC"]
