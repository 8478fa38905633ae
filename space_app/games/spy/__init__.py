"""Who is the Spy: six players (4-12), one of them the spy with a different word;
describe, vote, eliminate, up to three rounds. Rules, scoring and
metrics: docs/rules-spy.md.

This package registers the game's GameSpec: its rules (`rules.py`), events (`events.py`),
word pairs and clues (`words.py`, `content/`), metrics (`metrics.py`), replay panels
(`view.py`), house agents (`agents.py`), strategy wrappers (`strategies.py`) and studies
(`studies.py`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...core.events import Event
from ...core.registry import register
from ...core.spec import (
    AgentKind,
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
from .agents import HeuristicSpyAgent, RandomAgent
from .events import KINDS, SpySetup
from .metrics import history, records, row
from .probes import PROBE_RULES
from .report import REPORT as WIS_REPORT
from .rules import CIVILIAN, SPY, SpyGame, SpySettings, dealt_roles
from .strategies import AttackerAgent, DefenderInjectionAgent, ReasoningAgent
from .studies import (
    ATTACK_CHART_BARS,
    ATTACK_CONDITIONS,
    REASONING_CONDITIONS,
    attack_chart,
    attack_defence,
    newest_attack,
    newest_reasoning,
    reasoning,
)
from .view import VIEW, why_won
from .words import WordPair, builtin_pair_keys, load_pairs, pair_key

DOCS = Path(__file__).resolve().parents[3] / "docs"


def _kind(event: Any) -> Any:
    return event.kind if isinstance(event, Event) else event.get("kind")


def replay_note(match: dict) -> str | None:
    """A pair drawn from a user's pool cannot be drawn again: the pool is not stored."""
    settings = match.get("settings") or {}
    deal = settings.get("deal")
    if isinstance(deal, dict):  # a fixed deal: its pair is checked against the pool it came from
        try:
            dealt = WordPair.model_validate(deal.get("pair"))
        except ValueError:
            return None  # replayed, and refused there naming the problem
        if pair_key(dealt) not in builtin_pair_keys(settings.get("language") or "en"):
            return "its dealt word pair came from a pool given with the request, which is not stored with matches"
        return None
    if settings.get("pair"):
        return None
    # only the setup is read (parsing every event of the match to find it cost more than the rest)
    row = next((e for e in match.get("events") or [] if _kind(e) == SpySetup.kind_name()), None)
    setup = KINDS.parse(row) if row is not None else None
    if not isinstance(setup, SpySetup):
        return None
    try:
        drawn = WordPair.model_validate(setup.pair)
    except ValueError:  # stored before this arena refused such words: never a built-in pair
        return "its word pair is not one this arena accepts now, so it cannot be drawn again"
    if pair_key(drawn) not in builtin_pair_keys(settings.get("language") or "en"):
        return "its word pair was drawn from a pool given with the request, which is not stored with matches"
    return None


def parse_pair(text: str) -> dict[str, str]:
    civilian, _, spy = text.partition("/")
    if not spy:
        raise ValueError("a pair looks like civilian/spy, e.g. tea/coffee")
    return {"civilian": civilian, "spy": spy}

METRIC_COLUMNS = (
    MetricColumn("ranking_score", "ranking score", "WiS's ranking: 100 + sum of its game scores − seats played. Each "
                 "seat adds its score − 1 and a seat scores 2 on average (12 points over 6 seats), so it grows "
                 "with the number of seats played: compare agents by the per-seat average beside it"),
    MetricColumn("avg_score", "avg score", "mean game score per seat (every game's scores sum to 12)"),
    MetricColumn("avg_score_spy", "avg score spy", "mean game score as the spy"),
    MetricColumn("avg_score_civilian", "avg score civilian", "mean game score as a civilian"),
    MetricColumn("vote_accuracy", "vote accuracy", "civilian votes that named the spy ÷ civilian votes cast"),
    MetricColumn("abstentions", "abstentions", "votes not cast (timeouts, unreadable votes, abstain)"),
    MetricColumn("survival_spy", "survival spy", "rounds completed while still in the game, as the spy"),
    MetricColumn("survival_civilian", "survival civilian", "rounds completed while still in the game, as a civilian"),
    MetricColumn("foul_rate", "foul rate", "fouls ÷ turns to speak"),
)

def _wis_agent(url: str, **options: Any) -> Any:
    """An agent of the WiS platform (its HTTP protocol), loaded when one is seated."""
    from .wis import WiSAgent

    return WiSAgent(url, **options)


# what each phase asks for, in words (generated docs)
PHASE_TITLES = {
    "describe": "describe your word",
    "vote": "vote out the spy",
}


SPEC = register(GameSpec(
    id="spy",
    facts=Facts(
        title=SpyGame.title,
        titles={"zh": "谁是卧底"},
        min_players=4,
        max_players=12,
        default_players=6,
        roles=(SPY, CIVILIAN),
    ),
    rules=Rules(
        probes=PROBE_RULES,
        game_class=SpyGame,
        settings_class=SpySettings,
        events=KINDS,
        rules_doc=DOCS / "rules-spy.md",
        deal=dealt_roles,
        setting_files={"pairs": lambda path: [pair.model_dump() for pair in load_pairs(path)]},
        setting_shorthands={"pair": ("spy: a fixed word pair civilian/spy, e.g. tea/coffee", parse_pair)},
        replay_note=replay_note,
    ),
    metrics=Metrics(
        records=records,
        row=row,
        columns=METRIC_COLUMNS,
        ranking_note="Ranked by the conservative rating (the low end of OpenSkill μ's 95% interval, spy against "
                     "civilians). WiS's ranking score is kept, with the per-seat average beside it. Click a column "
                     "header to sort.",
        history=history,
        history_label="ranking_score",
    ),
    presentation=Presentation(
        phase_titles=PHASE_TITLES,
        view=VIEW,
        why_won=why_won,
        value_words={"zh": {"spy": "卧底", "civilian": "平民", "role": "身份", "word": "词语"}},
    ),
    house=HouseAgents(
        agents={
            "house:random": HouseAgent("Generic statements, random votes.", RandomAgent),
            "house:heuristic": HouseAgent("Shipped clue lists + lexical statement similarity.", HeuristicSpyAgent),
            "house:heuristic-embed": HouseAgent(
                "Shipped clue lists + MiniLM sentence-embedding similarity.",
                lambda: HeuristicSpyAgent("house:heuristic-embed", "embedding"), random_fill=False),
        },
        wrappers={"attacker": AttackerAgent, "defender": DefenderInjectionAgent, "reasoning": ReasoningAgent},
        demo=("house:heuristic", "house:random"),
        kinds={"wis": AgentKind("the WiS platform's Who-is-the-Spy HTTP protocol", _wis_agent)},
    ),
    extras=Extras(
        reports={"wis": WIS_REPORT},
        studies={
            "attack": Study("Attack / defence study",
                            "the same seeds as a baseline, with an attacker spy (a prompt injection telling the "
                            "others to state their word) and with a defender-injection spy (a fake notice that it "
                            "is confirmed innocent); conditions: " + ", ".join(ATTACK_CONDITIONS),
                            ("condition", "games", "vote_accuracy", "foul_rate", "civilian_foul_rate",
                             "avg_score_civilian", "avg_score_spy", "civilian_win_rate"),
                            attack_defence, chart=attack_chart, chart_order=ATTACK_CHART_BARS,
                            newest=newest_attack),
            "reasoning": Study("Reasoning study",
                               "civilians without and with an explicit analysis before voting; conditions: "
                               + ", ".join(REASONING_CONDITIONS),
                               ("condition", "games", "vote_accuracy", "civilian_win_rate", "avg_score_civilian"),
                               reasoning, newest=newest_reasoning),
        },
    ),
))

__all__ = ["SPEC"]
