"""The suites the arena ships (each registers itself, like a game) and how a name given on
the command line or the API becomes a suite: a registered id, or a path to a JSON Lines
file in the suite format (`space_app/suites/items.py`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sdk import Agent

from ..core.report import Report
from .items import LoadedSuite, load_items, load_suite

# the Theory-of-Mind suites' rules (a file suite of no known source is read as one)
TOM_RULES = ("You answer questions about the beliefs and goals of people in a short scenario. "
             "Reason about what each person saw and wants, then answer with one of the options.")


@dataclass(frozen=True)
class SuiteSource:
    id: str
    title: str
    path: Path | None  # the suite's JSON Lines file, or None when `items` builds it
    game: str  # the Observation's game label agents see (and must declare), e.g. "tom"
    describe: str
    types: tuple[str, ...]
    regenerate: str = ""  # the command that rebuilds the shipped file byte-for-byte
    house_agents: dict[str, tuple[str, Callable[[], Agent]]] = field(default_factory=dict)
    items: Callable[[], list[dict[str, Any]]] | None = None  # a suite built in memory (a game's quizzes)
    rules: str = ""  # what answering it is about, sent with every question (Observation.rules)

    def rules_text(self) -> str:
        return self.rules or f"You answer questions: {self.title}. {self.describe}."


SUITES: dict[str, SuiteSource] = {}
# readers of a folder the operator names as a suite (a game's question sets read where they lie,
# e.g. a murder script folder): each returns the suite, or None when the folder is not its kind
FOLDER_READERS: list[Callable[[Path], SuiteSource | None]] = []
# a suite's paper-shaped report (`python -m space_app report NAME`), by report name
REPORTS: dict[str, Report] = {}


class UnknownSuite(ValueError):
    pass


def register(source: SuiteSource) -> SuiteSource:
    if not source.id or source.id in SUITES:
        raise ValueError(f"suite {source.id!r}: a unique id is needed")
    SUITES[source.id] = source
    return source


def register_report(name: str, report: Report) -> Report:
    if not name or name in REPORTS:
        raise ValueError(f"report {name!r}: a unique name is needed")
    REPORTS[name] = report
    return report


def register_folder_reader(reader: Callable[[Path], SuiteSource | None]) -> None:
    FOLDER_READERS.append(reader)


def _folder_suite(path: Path) -> Suite:
    """A folder named on the command line (the API opens registered ids only): the first reader
    that knows it builds the suite; its id must not be a registered suite's, whose stored
    answers it would join."""
    for reader in FOLDER_READERS:
        source = reader(path)
        if source is None:
            continue
        if source.id in SUITES:
            raise UnknownSuite(f"the folder {path} gives the suite id {source.id!r}, which a shipped suite has: its "
                               "answers would be stored with that suite's; give the folder's content another id")
        assert source.items is not None
        return Suite(source.id, source.game, load_items(source.items(), source.id), source.title,
                     source.rules_text())
    raise UnknownSuite(f"the folder {path} holds no suite any game reads (e.g. a murder script folder with its "
                       "script.json)")


def suite_games() -> tuple[str, ...]:
    return tuple(dict.fromkeys(s.game for s in SUITES.values()))


def suite_house_agents() -> dict[str, tuple[str, Callable[[], Agent]]]:
    out: dict[str, tuple[str, Callable[[], Agent]]] = {}
    for source in SUITES.values():
        out.update(source.house_agents)
    return out


@dataclass(frozen=True)
class Suite:
    """A suite ready to run: its id (where answers are stored), its game label, its items."""

    id: str
    game: str
    loaded: LoadedSuite
    title: str = ""
    rules: str = TOM_RULES  # sent with every question (Observation.rules)


# short names for suites (`bench tom`): the generated Theory-of-Mind suite is the one meant
ALIASES = {"tom": "tom-household"}


def open_suite(name: str) -> Suite:
    """A registered suite by id (or a short alias), a suite file by path (its id is the
    file's stem), or a folder a game reads as a suite (e.g. a murder script folder)."""
    name = ALIASES.get(name, name)
    if name in SUITES:
        source = SUITES[name]
        if source.items is not None:
            return Suite(source.id, source.game, load_items(source.items(), source.id), source.title,
                         source.rules_text())
        assert source.path is not None
        return Suite(source.id, source.game, load_suite(source.path), source.title, source.rules_text())
    path = Path(name)
    if path.is_dir():
        return _folder_suite(path)
    if path.suffix in (".jsonl", ".json") or path.exists():
        if not path.is_file():
            raise UnknownSuite(f"no suite file {name!r}")
        loaded = load_suite(path)
        labels = {item.suite for item in loaded.items if item.suite}
        known_source = next((SUITES[s] for s in labels if s in SUITES), None)
        if known_source is None:
            return Suite(f"file:{path.stem}", "tom", loaded, path.name)
        return Suite(f"file:{path.stem}", known_source.game, loaded, path.name, known_source.rules_text())
    known = ", ".join(sorted(SUITES)) or "none"
    aliases = ", ".join(f"{a} = {t}" for a, t in ALIASES.items())
    raise UnknownSuite(f"unknown suite {name!r}; known: {known}; aliases: {aliases} (or give a .jsonl file "
                       "in the suite format)")


__all__ = ["ALIASES", "FOLDER_READERS", "REPORTS", "SUITES", "Suite", "SuiteSource", "UnknownSuite", "open_suite",
           "register", "register_folder_reader", "register_report", "suite_games", "suite_house_agents"]
