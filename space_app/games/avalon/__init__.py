"""The Resistance: Avalon, 5–10 players: hidden good and evil teams, Merlin, Percival,
Morgana, Mordred, Oberon, the Assassin; propose, discuss, (revise,) vote, quest, and a
final assassination. Rules as implemented: docs/rules-avalon.md.

This package registers the game's GameSpec: its tables (`table.py`), events (`events.py`),
rules (`rules.py`), metrics (`metrics.py`), replay panels (`view.py`) and house agents (`agents.py`: random
seats and rule-based bots built on `beliefs.py`, `strategy.py` and `speech.py`).
"""

from __future__ import annotations

from functools import partial
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
    QuizSet,
    Rules,
    Study,
)
from . import quizset, study
from . import report as interintent
from .agents import RandomAvalonAgent, RuleAvalonAgent, intent_local_agent
from .documents import documents
from .events import KINDS
from .exemplar import exemplar_agent
from .metrics import history, records, row
from .presets import read_deal
from .probes import PROBE_RULES
from .results import results_page
from .rules import AvalonGame, AvalonSettings, dealt_roles
from .table import EVIL, GOOD, ROLES
from .view import VIEW, why_won
from .wrappers import intention_guided

DOCS = Path(__file__).resolve().parents[3] / "docs"

METRIC_COLUMNS = (
    MetricColumn("quest_win_rate", "quest win %", "quests won by the seat's side ÷ quests played in its games",
                 percent=True),
    MetricColumn("engagement_good", "on team % good", "quests the seat was on the team ÷ quests played, as good",
                 percent=True),
    MetricColumn("engagement_evil", "on team % evil", "quests the seat was on the team ÷ quests played, as evil",
                 percent=True),
    MetricColumn("team_selection_accuracy", "team selection", "a leader's final teams that serve its side ÷ its "
                 "proposals (good: no evil member; evil: enough evil members to fail the quest)", percent=True),
    MetricColumn("failure_vote_rate", "fail card %", "Fail cards played as evil ÷ quest plays as evil", percent=True),
    MetricColumn("proposal_change_rate", "revised %", "proposals the leader revised after the discussion ÷ "
                 "proposals it could revise", percent=True),
    MetricColumn("merlin_assassinated", "Merlin shot %", "assassinations that named this agent's Merlin ÷ "
                 "assassinations it faced as Merlin", percent=True),
    MetricColumn("merlin_games", "as Merlin", "seats played as Merlin"),
    MetricColumn("assassin_hit_rate", "assassin hit %", "assassinations that found Merlin ÷ shots as the Assassin",
                 percent=True),
    # intention-guided play and the end-of-game quizzes (quiz.py, judge.py)
    MetricColumn("summarisation_f1", "summary F1", "end-of-game quiz: F1 of the intentions the seat names for its own "
                 "latest statement (shown its THINK and SPEAK) against those it selected; unanswered scores 0"),
    MetricColumn("guessing_f1", "guess F1", "end-of-game quiz: F1 of the intentions the seat guesses for another "
                 "player's statement (shown its SPEAK only) against that player's selection; unanswered scores 0"),
    MetricColumn("deduction_accuracy", "deduction %", "end-of-game quiz, before the reveal: other players put on "
                 "their true side ÷ other players judged; unanswered scores 0", percent=True),
    MetricColumn("deduction_accuracy_good", "deduction % good", "the same, as a good player", percent=True),
    MetricColumn("selection_reasonableness", "reasonable (heuristic judge)", "heuristic judge, 1-5: 1 + 4 × mean over "
                 "the intentions followed of ½ suits the role + ½ fits the moment (leader, on the team, after a "
                 "fail...), per statement with intentions; 1 when the SPEAK is no plain statement about the game "
                 "(a list, key words, a copy of the intention text, words to the judge, off the topic); an LLM "
                 "judge is judge.judge_match"),
    MetricColumn("following_score", "following (heuristic judge)", "heuristic judge, 1-5: 1 + 4 × mean over the "
                 "intentions of 1 if one of its key words is in the SPEAK, ½ if only in the THINK; a SPEAK or "
                 "THINK that is no plain statement about the game counts nothing; lexical cues, not understanding"),
    MetricColumn("intention_error_rate", "intent errors %", "statements with intentions whose pipeline reported "
                 "errors (ids not in the catalogue, missing THINK/SPEAK, a failed call) ÷ such statements",
                 percent=True),
)

# what each phase asks for, in words (generated docs)
PHASE_TITLES = {
    "propose": "leader picks a team",
    "discuss": "discussion",
    "revise": "leader confirms or changes the team",
    "team_vote": "approve or reject the team",
    "quest": "quest card",
    "conference": "evil players talk",
    "assassinate": "assassination",
    "deduce": "end-of-game quiz",
}


SPEC = register(GameSpec(
    id="avalon",
    facts=Facts(
        title=AvalonGame.title,
        titles={"zh": "阿瓦隆"},
        min_players=5,
        max_players=10,
        default_players=6,
        roles=ROLES,
        sides=(GOOD, EVIL),
    ),
    rules=Rules(
        probes=PROBE_RULES,
        game_class=AvalonGame,
        settings_class=AvalonSettings,
        events=KINDS,
        rules_doc=DOCS / "rules-avalon.md",
        # 2: the end-of-game quizzes (on by default) and the `quizzes` event before `game_over`;
        # 3: under auto_approve_fifth the opening says the fifth proposal is approved automatically
        #    (it said five rejections give evil the game), and the heuristic judge's scores,
        #    recorded in each seat's stats, score only plain statements about the game
        #    (judge.not_judged)
        rules_version=3,
        deal=dealt_roles,
        read_deal=read_deal,
    ),
    metrics=Metrics(
        records=records,
        row=row,
        columns=METRIC_COLUMNS,
        ranking_note="Ranked by the conservative rating (the low end of OpenSkill μ's 95% interval), good against "
                     "evil (each side's own strength learned apart). Per-side columns count seats. Click a column "
                     "header to sort.",
        history=history,
        history_label="win_rate",
    ),
    presentation=Presentation(
        phase_titles=PHASE_TITLES,
        view=VIEW,
        why_won=why_won,
        results=partial(results_page, columns=METRIC_COLUMNS),
        documents=documents,
    ),
    house=HouseAgents(
        agents={
            "house:avalon-rules": HouseAgent("Rule-based bots: consistent-assignment reasoning, role-aware play.",
                                             RuleAvalonAgent),
            "house:avalon-random": HouseAgent("Random teams, votes and cards; generic statements.", RandomAvalonAgent),
            "house:avalon-intent-local": HouseAgent(
                "Intention-guided play on the embedded SmolLM2 model: selects intentions from the catalogue, thinks, "
                "speaks, rereads its speech as the others will and refines it (slow: two model calls a statement).",
                intent_local_agent, random_fill=False),
            "house:avalon-scripted-model": HouseAgent(
                "A scripted stand-in for a model (no model, offline): its statements are built from the intentions it "
                "picks; for offline runs of the intention study (house:avalon-scripted-model+intentions) and quizzes.",
                exemplar_agent, random_fill=False),
        },
        wrappers={"intentions": intention_guided},
        demo=("house:avalon-rules", "house:avalon-random"),
    ),
    extras=Extras(
        reports={"interintent": interintent.REPORT},
        studies={"intentions": Study(title="Intention study", describe=study.DESCRIBE, columns=study.COLUMNS,
                                     run=study.run, chart=study.chart, chart_order=study.CHART_ORDER,
                                     newest=study.newest, base="house:avalon-scripted-model")},
        quizzes={quizset.SUITE: QuizSet(
            title="Avalon intention quizzes",
            describe="guessing (a player's public SPEAK and the quest's record) and summarisation (the seat's own "
                     f"THINK and SPEAK): which of four intentions was followed; built from {len(quizset.SEEDS)} seeded "
                     "6-player games of intention agents on the scripted model, one gold option (an intention the "
                     "speaker followed) and three from categories it followed none of",
            types=quizset.TYPES, items=quizset.suite_items)},
    ),
))

__all__ = ["SPEC"]
