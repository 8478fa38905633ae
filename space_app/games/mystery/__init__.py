"""Murder mystery with multi-modal clues: 4-7 characters, one of them the murderer; each reads
its own long private script, the public clues and the image clues, then introductions,
discussion rounds with questioning, reasoning and a final vote. Rules: docs/rules-mystery.md;
script format: docs/script-format.md.

This package registers the game's GameSpec: the script format (`script.py`, `validate.py`),
the shipped scripts (`content/`, found and loaded by `catalog.py`), the rules (`rules.py`),
metrics (`metrics.py`), replay panels (`view.py`), house agents (`agents.py`), the scripts'
question sets as suite items (`quizzes.py`) and the WhodunitBench importer (`whodunit/`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...core.registry import register
from ...core.spec import (
    Extras,
    Facts,
    GameSpec,
    HouseAgent,
    HouseAgents,
    MetricColumn,
    Metrics,
    PlayChoice,
    Presentation,
    QuizSet,
    Rules,
)
from .agents import NaiveMysteryAgent, RandomMysteryAgent
from .catalog import (
    ShippedMysteryGame,
    ShippedSettings,
    UnknownScript,
    allow_command_line,
    catalog,
    dealt_roles,
    default_script_id,
    extra_scripts,
    get_script,
    image_path,
    is_folder_path,
)
from .catalog import seat_names as character_names
from .coe.command import coe_main, matrix_main
from .coe.report import REPORT as WHODUNIT_REPORT
from .coe.results import results_page
from .deals import read_deal
from .documents import documents
from .events import KINDS, MysterySetup
from .metrics import history, records, row
from .probes import PROBE_RULES
from .quizzes import suite_items
from .rules import INNOCENT, INNOCENTS, MURDERER, MysteryGame, script_digest
from .scripts.script import Script
from .scripts.validate import SCRIPT_FILE
from .scripts.validate import main as validate_main
from .view import VIEW, why_won
from .whodunit import main as import_whodunit_main

DOCS = Path(__file__).resolve().parents[3] / "docs"


def _players_for(settings: Mapping[str, Any]) -> int:
    """The character count of the script the settings pick (the first of their language's
    when they name none); the English default when they pick none that can be played."""
    try:
        script = settings.get("script") or default_script_id(str(settings.get("language") or "en"))
        return len(get_script(str(script)).roles)
    except (UnknownScript, ValueError):
        return _default_players()


def script_choices(language: str) -> list[tuple[str, str]]:
    """The scripts Play offers in `language`: "any script with that many characters" (the
    first of the player count's), each shipped one by id, then those under ARENA_SCRIPT_DIRS by path."""
    named = [(f"{s.title} · {len(s.roles)}", i) for i, s in catalog().scripts.items() if s.language == language]
    extra = [(f"{s.title} · {len(s.roles)} · {Path(path).name}", path) for path, s in extra_scripts(language).items()]
    return [("按人数自动选择" if language == "zh" else "any, by player count", ""), *named, *extra]


def _default_players() -> int:
    """The first English script's character count (5 when no script is playable)."""
    try:
        return len(get_script(default_script_id("en")).roles)
    except UnknownScript:
        return 5


def replay_note(match: dict[str, Any]) -> str | None:
    """A match replays only on the script it was played on."""
    script_id = (match.get("settings") or {}).get("script")
    if not script_id:
        return None
    script = catalog().scripts.get(str(script_id))
    if script is None and is_folder_path(str(script_id)):  # played from a folder: read there again
        try:
            script = get_script(str(script_id))
        except UnknownScript as exc:
            return f"its script folder cannot be read now ({str(exc).splitlines()[0]})"
    if script is None:
        return f"its script {script_id!r} is no longer shipped"
    setup = next((e for e in KINDS.parse_all(match.get("events") or []) if isinstance(e, MysterySetup)), None)
    played = setup.digest if setup else None
    if played and played != script_digest(script):
        return f"its script {script_id!r} has been edited since the match was played"
    return None


def _quiz_set(script: Script) -> QuizSet:
    return QuizSet(
        title=f"Murder mystery CoE quizzes: {script.title}",
        describe=f"the closed questions of the script '{script.id}' ({script.language}): LSU on each "
                 "character's script, TIU and MIU on its text-rich and media-rich image clues, MMR multi-hop "
                 "reasoning tagged with its hops",
        types=("lsu", "tiu", "miu", "mmr"),
        items=lambda: suite_items(script))


def _quizzes() -> dict[str, QuizSet]:
    """Each shipped script's CoE question sets as a suite (`mystery-<script id>`)."""
    return {f"mystery-{script_id}": _quiz_set(script) for script_id, script in catalog().scripts.items()}


def _folder_quizzes(folder: Path) -> tuple[str, QuizSet] | None:
    """A script folder named on the command line (`bench PATH`): its CoE question sets, read
    where they lie (validated, a link in it refused, as when it is played)."""
    if not (folder / SCRIPT_FILE).is_file():
        return None
    named = str(folder) if is_folder_path(str(folder)) else f".{os.sep}{folder}"  # a bare name is an id
    script = get_script(allow_command_line(named))
    return f"mystery-{script.id}", _quiz_set(script)


METRIC_COLUMNS = (
    MetricColumn("draw_rate", "draw %", "seats whose game was a draw (exactly half the innocents named the "
                 "murderer)", percent=True),
    MetricColumn("vote_accuracy", "vote accuracy", "final votes as an innocent that named the murderer ÷ seats as "
                 "an innocent", percent=True),
    MetricColumn("itd", "ITD", "decision making: key roles (whose script holds a key clue) the seat chose to "
                 "question ÷ key roles it could question", percent=True),
    MetricColumn("questions", "questions", "questions asked per seat"),
    MetricColumn("statement_chars", "chars / statement", "mean length of what the seat said"),
)

# what each phase asks for, in words (generated docs)
PHASE_TITLES = {
    "introduction": "introduce your character",
    "share": "share clues",
    "choose": "whom to question",
    "ask": "ask a question",
    "answer": "answer a question put to you",
    "reasoning": "final reasoning",
    "vote": "vote for the murderer",
}


SPEC = register(GameSpec(
    id=MysteryGame.id,
    facts=Facts(
        title=MysteryGame.title,
        titles={"zh": "剧本杀"},
        min_players=4,
        max_players=7,
        default_players=_default_players(),
        roles=(MURDERER, INNOCENT),
        sides=(MURDERER, INNOCENTS),
        seat_namer=character_names,
        players_for=_players_for,
    ),
    rules=Rules(
        probes=PROBE_RULES,
        game_class=ShippedMysteryGame,
        settings_class=ShippedSettings,
        events=KINDS,
        rules_doc=DOCS / "rules-mystery.md",
        deal=dealt_roles,
        read_deal=read_deal,
        setting_shorthands={"script": ("mystery: a shipped script id, e.g. larkspur, or a script folder's path "
                                       "(its language and character count follow)", allow_command_line)},
        replay_note=replay_note,
    ),
    metrics=Metrics(
        records=records,
        row=row,
        columns=METRIC_COLUMNS,
        ranking_note="Ranked by the conservative rating (the low end of OpenSkill μ's 95% interval), the innocents "
                     "against the murderer (each "
                     "faction's own strength learned apart). Per-faction columns count seats; a draw is won by nobody. "
                     "Click a column header to sort.",
        history=history,
        history_label="win_rate",
    ),
    presentation=Presentation(
        phase_titles=PHASE_TITLES,
        view=VIEW,
        why_won=why_won,
        documents=documents,
        image_file=image_path,
        value_words={"zh": {"murderer": "凶手", "innocent": "无辜者", "innocents": "无辜者一方", "draw": "平局",
                            "role": "身份", "side": "阵营"}},
        results=results_page,
        play_choice=PlayChoice(setting="script", labels={"en": "Script", "zh": "剧本"}, choices=script_choices),
    ),
    house=HouseAgents(
        agents={
            "house:mystery-naive": HouseAgent("Retrieval baseline: answers from its own script (BM25), admits when its "
                                              "script confirms a clue against it, votes for the most incriminated.",
                                              NaiveMysteryAgent),
            "house:mystery-random": HouseAgent("Generic statements, random questions and votes.", RandomMysteryAgent),
        },
        demo=("house:mystery-naive",),
    ),
    extras=Extras(
        quizzes=_quizzes(),
        folder_quizzes=_folder_quizzes,
        commands={"validate-scripts": ("check murder-mystery script folders (default: the shipped ones) and name "
                                       "every problem by file, key and message", lambda argv, _: validate_main(argv)),
                  "import-whodunit": ("convert WhodunitBench release script folders (env_p_all.json, img/) into "
                                      "script folders, reporting every item dropped or repaired",
                                      lambda argv, _: import_whodunit_main(argv)),
                  "coe": ("the Chain of Evaluation: play an agent as the innocents on each script, ask the question "
                          "sets, print LSU, TIU, MIU, MMR, RP, SPC, ITD and CMD with 95% intervals and the judge",
                          coe_main),
                  "coe-matrix": ("the win-rate matrix: each agent as the innocents against each as the murderer on "
                                 "every script, draws and error matches apart", matrix_main)},
        reports={"whodunit": WHODUNIT_REPORT},
    ),
))

__all__ = ["SPEC"]
