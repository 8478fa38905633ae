"""Question suites answered through an agent's `answer`: the format (`items`), the runner
and its scores (`run`), the registry of shipped suites (`registry`), and the suites
themselves (each a folder that generates its file, e.g. `tom_household`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..core import GAMES
from ..core.spec import QuizSet
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
    register_folder_reader,
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



def _quiz_source(suite_id: str, quiz: QuizSet, game: str) -> SuiteSource:
    return SuiteSource(id=suite_id, title=quiz.title, path=None, game=game, describe=quiz.describe,
                       types=quiz.types, items=quiz.items, rules=quiz.rules)


def _folder_reader(game: str,
                   read: Callable[[Path], tuple[str, QuizSet] | None]) -> Callable[[Path], SuiteSource | None]:
    def reader(path: Path) -> SuiteSource | None:
        found = read(path)
        return None if found is None else _quiz_source(*found, game)
    return reader


# every game's question sets (e.g. a murder script's CoE quizzes) are suites too, and a folder a
# game reads as question sets (a murder script folder) is a suite on the command line
for _spec in GAMES.values():
    for _suite_id, _quiz in _spec.extras.quizzes.items():
        register(_quiz_source(_suite_id, _quiz, _spec.id))
    if _spec.extras.folder_quizzes is not None:
        register_folder_reader(_folder_reader(_spec.id, _spec.extras.folder_quizzes))

__all__ = ["REPORTS", "SUITES", "Suite", "SuiteSource", "UnknownSuite", "open_suite", "register", "register_report",
           "suite_games", "suite_house_agents"]
