"""Question suites answered through an agent's `answer`: the format (`items`), the runner
and its scores (`run`), the registry of shipped suites (`registry`), and the suites
themselves (each a folder that generates its file, e.g. `tom_household`)."""

from __future__ import annotations

from pathlib import Path

from ..core import GAMES
from .baselines import GuessAgent, OverlapAgent
from .muma_tom import REPORT as MUMA_REPORT
from .reference import cot_local, direct_local, limp_local
from .registry import (
    REPORTS,
    SUITES,
    TOM_RULES,
    Suite,
    SuiteSource,
    UnknownSuite,
    open_suite,
    register,
    register_report,
    suite_games,
    suite_house_agents,
)
from .tom_household_mm import SUITE as MM_SUITE
from .tom_household_mm import shipped_items as mm_items
from .tom_household_mm.reader import HouseholdReader
from .tom_household_mm.report import REPORT as MODALITY_REPORT

DATA = Path(__file__).resolve().parent / "data"

_HOUSE_AGENTS = {
    "house:guess": (GuessAgent.description, GuessAgent),
    "house:overlap": (OverlapAgent.description, OverlapAgent),
    "house:direct-local": ("The embedded model asked for the letter directly.", direct_local),
    "house:cot-local": ("The embedded model asked to reason step by step, then for the letter.", cot_local),
    "house:limp-local": ("Inverse planning: how likely each step is under each option, from the embedded "
                         "model's token log-probabilities.", limp_local),
}

register(SuiteSource(
    id="tom-household",
    title="Household Theory of Mind (belief, social goal, belief of goal)",
    path=DATA / "tom_household.jsonl",
    game="tom",
    describe="two people in a generated home; 600 three-option questions, 200 per type, each conditioned so "
             "exactly one option fits, provable from the simulated events",
    types=("belief", "social_goal", "belief_of_goal"),
    rules=TOM_RULES,
    regenerate="python -m space_app.suites.tom_household --out space_app/suites/data/tom_household.jsonl",
    house_agents=_HOUSE_AGENTS,
))

# the multi-modal suite: built in memory (its keyframes make too large a file to keep), seeded
register(SuiteSource(
    id=MM_SUITE,
    title="Household Theory of Mind, multi-modal (text half + keyframes)",
    path=None,
    items=mm_items,
    game="tom",
    describe="two people in a generated home; 300 three-option questions, 100 per type, each needing both the "
             "text and the drawn keyframes (or action track): the generator checks neither half alone decides it",
    types=("belief", "social_goal", "belief_of_goal"),
    rules=TOM_RULES,
    regenerate="python -m space_app.suites.tom_household_mm --out tom_household_mm.jsonl",
    house_agents={**_HOUSE_AGENTS, "house:household-reader": (HouseholdReader.description, HouseholdReader)},
))

# MuMA-ToM's table over stored runs of an imported MuMA-ToM file (the files are not shipped)
register_report("muma", MUMA_REPORT)
# the multi-modal household suite's modality ablation over stored `bench --condition` runs
register_report("household-modality", MODALITY_REPORT)

# every game's question sets (e.g. a murder script's CoE quizzes) are suites too
for _spec in GAMES.values():
    for _suite_id, _quiz in _spec.extras.quizzes.items():
        register(SuiteSource(id=_suite_id, title=_quiz.title, path=None, game=_spec.id, describe=_quiz.describe,
                             types=_quiz.types, items=_quiz.items, rules=_quiz.rules))

__all__ = ["REPORTS", "SUITES", "Suite", "SuiteSource", "UnknownSuite", "open_suite", "register", "register_report",
           "suite_games", "suite_house_agents"]
