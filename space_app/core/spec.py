"""GameSpec: everything generic code (API, service, catalogue, CLI, UI) needs to know
about a game, declared as data by the game's folder in six facets (facts, rules, metrics,
presentation, house agents, extras), each read only by the generic code that needs it.
Generic code asks `get_game(id)` for it and never imports a game module."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, get_args

from pydantic import BaseModel

from sdk.agent import Agent

from .documents import DocumentsHook, SeatDocument, SeatView, told_documents
from .events import EventKinds
from .game import Game
from .probes import ProbeRules, with_probes
from .records import AgentTotals, SeatRecord
from .report import Report

MatchRecord = dict[str, Any]  # a stored match as `Store.get_match` returns it
# the generic leaderboard columns, which a game's own columns must not reuse
# the leaderboard's columns for every game (a game's own columns may not reuse them), besides
# `win_rate_<side>` for each of its sides
GENERIC_COLUMNS = frozenset({"agent", "matches", "seats", "rating", "rating_low", "rating_high", "win_rate",
                             "invalid_rate", "avg_latency_ms", "tokens", "infra_rate"})


class Tournaments(Protocol):
    """What a study needs of the arena that runs it (the service's `Arena` is one); a game
    never imports the service."""

    store: MatchStore

    async def tournament(self, game: str, specs: Sequence[str], games: int, seed: int = 0,
                         concurrency: int = 8, settings: dict[str, Any] | None = None, tag: str = "",
                         players: int | None = None, role_specs: dict[str, str] | None = None,
                         progress: Callable[[Any], None] | None = None) -> list[Any]: ...


class ArenaServices(Protocol):
    """What a game's own CLI command may use of the arena, handed to it by the CLI: a game
    never imports the service, the store or the suite runner (they import the games)."""

    # an Arena on that store (run, tournament, store, catalogue), its batches on `engine` (None: in process)
    def arena(self, db: str, engine: Any = None) -> Any: ...

    # `place` (where the command's plan puts the match, e.g. script and seed): a planned match,
    # its id derived from the plan, so a run again skips it once finished (see `run_planned`)
    def match_plan(self, game: str, seats: list[str], seed: int, settings: dict[str, Any], *, tag: str = "",
                   role_specs: dict[str, str] | None = None, place: Sequence[Any] | None = None) -> Any: ...

    # --engine, --address, --workers, --num-cpus, as the arena's own batch commands take them
    def add_engine_args(self, parser: Any, unit: str = "matches") -> None: ...

    # the engine those arguments ask for (None: in process), closed on leaving the context
    def engine(self, args: Any) -> AbstractContextManager[Any]: ...

    # play planned matches on the arena's engine, skipping those already finished; outcomes in plan order
    async def run_planned(self, arena: Any, plans: Sequence[Any], *, concurrency: int = 8,
                          tracker: Any = None) -> list[Any]: ...

    # a progress bar (done, running, failed, ETA) to pass as `tracker`; `.skipped`: done before this run
    def progress_bar(self, total: int, desc: str, unit: str = "match") -> AbstractContextManager[Any]: ...

    def open_suite(self, suite_id: str) -> Any: ...

    def first_n(self, items: list[Any], n: int) -> list[Any]: ...

    async def run_suite(self, store: Any, suite: Any, agent: Any, agent_id: str, **options: Any) -> Any: ...


# a game's own CLI command: (its help, main(argv, services) -> exit code)
GameCommand = tuple[str, Callable[[list[str], ArenaServices], int]]


@dataclass(frozen=True)
class MetricColumn:
    """One leaderboard column: its key in the game's rows, a short label, what it means."""

    key: str
    label: str
    meaning: str
    percent: bool = False  # shown ×100
    text: bool = False  # shown as it is (not a number)


@dataclass(frozen=True)
class HouseAgent:
    """An agent that ships with the game and needs no key (`house:<name>`)."""

    description: str
    build: Callable[[], Agent]
    random_fill: bool = True  # cheap enough to fill an empty seat


@dataclass(frozen=True)
class AgentKind:
    """A kind of agent a game brings that speaks an outside platform's protocol (the spy's
    `wis`: the WiS platform's HTTP agents), seated as `<kind>:<URL>` or registered with
    that kind. `build(url, timeout=, name=, egress=)` makes the agent; its `info()` answers
    registration's check."""

    describe: str
    build: Callable[..., Agent]


@dataclass(frozen=True)
class Study:
    """A headless experiment over matches of this game (e.g. attack/defence)."""

    title: str
    describe: str
    columns: tuple[str, ...]
    run: Callable[..., Awaitable[list[dict[str, Any]]]]  # run(arena, base=..., games=..., seed=..., ...)
    # store -> DataFrame(bar, condition, value, low, high) of the newest run: low and high, the
    # value's 95% interval, are drawn as error bars (None where it has none)
    chart: Callable[[MatchStore], Any] | None = None
    chart_order: tuple[str, ...] = ()  # the bars in the order they are drawn
    # store -> rows of the newest run, each with condition, what (the condition in words), tag,
    # seeds, match_ids and the columns' figures with their _low/_high/_n (for the UI's report)
    newest: Callable[[MatchStore], list[dict[str, Any]]] | None = None
    # the agent every seat plays when the study is run from the page ("": the game's first demo
    # agent); a study that needs a model to show anything names a house agent that stands in for one
    base: str = ""


@dataclass(frozen=True)
class Panel:
    """One of the game's replay panels, drawn beside the generic transcript and stepper:
    `build(events, upto)` gets the events the chosen view may see (spectator or one seat)
    and the step index, and returns a DataFrame shown as a table or a bar chart."""

    title: str
    build: Callable[[list[dict[str, Any]], int | None], Any]
    kind: str = "table"  # "table" | "bar"
    columns: tuple[str, ...] = ()  # the frame's columns (an empty panel still shows them)
    x: str = ""  # bar: the category column, the value column and the colour column
    y: str = ""
    color: str | None = None
    x_title: str = ""
    y_title: str = ""


@dataclass(frozen=True)
class ReplayView:
    """The game's own replay panels; the transcript and stepper are generic."""

    panels: tuple[Panel, ...]
    result_columns: tuple[tuple[str, str], ...] = (("role", "roles"),)  # (label, key of result)


@dataclass(frozen=True)
class QuizSet:
    """Closed questions a game ships (e.g. a murder script's CoE sets), run through the
    question-suite runner like any suite: `items()` returns them in the suite file format."""

    title: str
    describe: str
    types: tuple[str, ...]
    items: Callable[[], list[dict[str, Any]]]
    rules: str = ""  # what the questions are about, sent with each (else the title and description)


@dataclass(frozen=True)
class ResultsSection:
    """One part of a game's results page: `markdown` or `html` text (links to matches read
    `?match=<id>`), a `table` (DataFrame) or a `bar` chart (DataFrame with x, y and colour)."""

    title: str
    kind: str  # "markdown" | "html" | "table" | "bar"
    value: Any
    x: str = ""
    y: str = ""
    color: str | None = None
    y_title: str = ""
    y_lim: tuple[float, float] | None = None


@dataclass(frozen=True)
class ResultsScope:
    """Which matches a results page reads: the leaderboard's filter (source kinds read from a
    match's tag), handed over by the arena so the page and the board count the same matches
    and the page can say which."""

    keep: Callable[[str | None], bool]  # a match's tag -> whether the filter counts it
    describe: str  # what it includes, as the leaderboard's caption says it
    label: str = "default"  # short: default, all, or the kinds joined by commas


@dataclass(frozen=True)
class ResultsPage:
    """A game's own results page (the Results tab), built from the store when it is opened."""

    title: str
    note: str  # what it reads and which judge produced what
    sections: tuple[ResultsSection, ...]


class MatchStore(Protocol):
    """What a game's hooks (results page, study reports, its own commands) read of the store;
    the store satisfies it, and a game never imports it."""

    def get_match(self, match_id: str, *, with_events: bool = True) -> MatchRecord | None: ...

    def list_matches(self, *, game: str | None = None, agent_id: str | None = None, status: str | None = None,
                     tag: str | None = None, since: float | None = None, limit: int = 100, offset: int = 0,
                     agent_ids: Sequence[str] = (), agent_name: str | None = None) -> list[MatchRecord]: ...

    def iter_matches(self, game: str | None, *, status: str | None = "finished", tag: str | None = None,
                     chunk: int = 200, order: str = "created") -> Iterator[MatchRecord]: ...

    def answers(self, suite: str, agent_id: str | None = None) -> list[dict[str, Any]]: ...

    def suites_answered(self) -> list[tuple[str, str, int]]: ...

    def verdicts(self, match_ids: Sequence[str] | None = None, judge: str | None = None) -> list[dict[str, Any]]: ...

    def verdict_judges(self) -> list[str]: ...

    def save_verdicts(self, rows: list[dict[str, Any]]) -> None: ...


@dataclass(frozen=True)
class Facts:
    """What the game is: its title, its table (seats, their names and count) and what a seat
    can be dealt. Read by the catalogue, the seating and every page that names the game."""

    title: str  # in English; `titles` holds it in other languages (`title_in`)
    min_players: int
    max_players: int
    default_players: int
    roles: tuple[str, ...]  # every role a seat can be dealt (a result's `roles` values)
    # the sides a seat plays for, as its records' `role` (per-side leaderboard columns, ratings
    # and plots); empty: the roles themselves are the sides (spy: spy, civilian)
    sides: tuple[str, ...] = ()
    # the title in other languages, e.g. {"zh": "谁是卧底"}: what a page in that language shows
    titles: Mapping[str, str] = field(default_factory=dict)
    # (players, settings) -> seat names, e.g. a murder script's characters; None: P1..Pn
    seat_namer: Callable[[int, Mapping[str, Any]], list[str]] | None = None
    # settings -> the player count they call for by default (a murder script's characters in that
    # language); None: `default_players` whatever the settings
    players_for: Callable[[Mapping[str, Any]], int] | None = None

    def title_in(self, language: str | None) -> str:
        """The game's title in `language` (English when it has none there)."""
        return self.titles.get(language or "en", self.title)

    @property
    def record_roles(self) -> tuple[str, ...]:
        """What a seat record's `role` can be: the sides, or the roles when sides are the roles."""
        return self.sides or self.roles

    def seat_names(self, n: int, settings: Mapping[str, Any] | None = None) -> list[str]:
        return self.seat_namer(n, settings or {}) if self.seat_namer else [f"P{i}" for i in range(1, n + 1)]

    def players_by_default(self, settings: Mapping[str, Any] | None = None) -> int:
        """How many seats a match with these settings has unless told otherwise."""
        return self.players_for(settings or {}) if self.players_for is not None else self.default_players


@dataclass(frozen=True)
class Rules:
    """How a match is played and replayed: the game class, its settings, its event vocabulary,
    its dealing. Read by the runner, verify, seating and the settings forms."""

    game_class: type[Game]
    settings_class: type[BaseModel]
    # the game's event vocabulary (the generic kinds and its own models in `games/<id>/events.py`):
    # how stored rows read back as models and how the transcript shows each kind
    events: EventKinds = field(default_factory=EventKinds)
    rules_doc: Path | None = None
    # bump when a rule change makes a seed and the same replies give other events: `verify`
    # then tells an old record from a tampered one
    rules_version: int = 1
    # (seat names, seed, parsed settings) -> each seat's role, from the game's own pure dealing
    # code (the same the game class calls): balanced seating and duplicate comparisons read the
    # deal without building a game; None: `GameSpec.deal_roles` builds one and asks its `seat_roles`
    deal: Callable[[list[str], int, Any], list[str]] | None = None
    setting_files: Mapping[str, Callable[[Path], Any]] = field(default_factory=dict)  # key -> file loader
    # CLI shorthands for one setting: key -> (help, text -> value), e.g. spy's --pair tea/coffee
    setting_shorthands: Mapping[str, tuple[str, Callable[[str], Any]]] = field(default_factory=dict)
    # why a stored match cannot be replayed (e.g. it drew from data not kept with it), or None
    replay_note: Callable[[MatchRecord], str | None] | None = None
    # one entry of a deals file (`--deals FILE`) -> (the settings it fixes, e.g. {"players": 5,
    # "deal": {...}}, and its keys that were not read); None: an entry is the settings' `deal`
    # itself, with an optional "players" (`space_app.deals`)
    read_deal: Callable[[Mapping[str, Any]], tuple[dict[str, Any], list[str]]] | None = None
    # belief probes (`core/probes.py`), asked when the match's `probes` setting is on; None: none
    probes: ProbeRules | None = None

    @property
    def languages(self) -> tuple[str, ...]:
        """The languages the game is played in: its settings' `language` choices (a Literal),
        or English alone when it has no such setting."""
        field_info = self.settings_class.model_fields.get("language")
        choices = get_args(field_info.annotation) if field_info is not None else ()
        return tuple(str(c) for c in choices) or ("en",)


@dataclass(frozen=True)
class Metrics:
    """What a finished match says about each seat and how an agent's sums become its row of
    the leaderboard. Read by the standings and the leaderboard."""

    # a finished match's events -> one SeatRecord per seat (role, team, won, score, summable
    # stats), derived once when it ends and stored beside it
    records: Callable[[MatchRecord], list[SeatRecord]]
    # an agent's summed records -> its row of the game's own columns
    row: Callable[[AgentTotals], dict[str, Any]]
    columns: tuple[MetricColumn, ...]  # the game's own columns (generic ones come first)
    ranking_note: str  # how the leaderboard is ordered, shown above it
    # the column rows are ranked by (highest first): by default the conservative rating μ − 1.96σ,
    # so an agent with few matches (wide interval) does not top the board on luck
    sort_by: str = "rating_low"
    # one agent's stored records in the order played -> rows {agent, game (n-th played), <value>}
    # for the "over games" plot, and the value's label
    history: Callable[[str, Iterable[SeatRecord]], list[dict[str, Any]]] | None = None
    history_label: str = "rating"


@dataclass(frozen=True)
class PlayChoice:
    """A setting a visitor picks in the Play tab beside the seats (e.g. which murder script):
    its key in the settings, its label by language, and its choices in a language (label,
    value), the first being the default. The seats and their count follow the choice."""

    setting: str
    labels: Mapping[str, str]  # language -> the control's label; "en" at least
    choices: Callable[[str], list[tuple[str, str]]]

    def label(self, language: str) -> str:
        return self.labels.get(language, self.labels["en"])


@dataclass(frozen=True)
class Presentation:
    """How the game is shown beyond the generic transcript: replay panels, the winner's reason,
    pictures, words for its values in other languages and its results page. Read by the UI."""

    view: ReplayView
    # a finished match -> one line on why its winner won (e.g. "the spy P3 was voted out in
    # round 2"), shown with the result; None: the result shows only the winner
    why_won: Callable[[MatchRecord], str] | None = None
    # an image reference in an event's `images` -> the file it names (e.g. a murder script's
    # image clue), so replays can show it; None: the game has no images
    image_file: Callable[[str], Path | None] | None = None
    # the game's values (roles, sides, winners) and result-column names in other languages,
    # language -> {value: word}, e.g. {"zh": {"spy": "卧底"}}: a result table in that language
    value_words: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # the game's own results page (store, the leaderboard's filter -> ResultsPage), shown on the
    # Results tab; None: none
    results: Callable[[MatchStore, ResultsScope], ResultsPage] | None = None
    # what a seat may read beside the game (its script, its role card): its own view (the events
    # it was shown, its private information) -> titled texts, shown live to the person in the
    # seat and in that seat's replay; None: what it was told and its private documents as they are
    documents: DocumentsHook | None = None
    # a setting picked in the Play tab beside the seats (a murder script); None: the game has none
    play_choice: PlayChoice | None = None
    # what each phase asks for, in words ("vote out the spy"), for generated docs; a phase not
    # named here is shown by its id
    phase_titles: Mapping[str, str] = field(default_factory=dict)

    def seat_documents(self, view: SeatView) -> list[SeatDocument]:
        """The documents `view`'s seat may read: the game's hook, else its plain private reading."""
        return self.documents(view) if self.documents is not None else told_documents(view)

    def explain_win(self, match: MatchRecord) -> str:
        """`why_won` of a finished match, or "" (no hook, unfinished, or a record it cannot read)."""
        if self.why_won is None or match.get("status") != "finished" or not match.get("result"):
            return ""
        try:
            return self.why_won(match)
        except (KeyError, TypeError, ValueError, AttributeError):
            return ""  # an older record without what the hook reads: the winner alone still shows

    def word_for(self, value: str, language: str | None) -> str:
        """One of the game's values (a role, a side, a winner) in `language`, else as it is."""
        return (self.value_words.get(language or "en") or {}).get(value, value)


@dataclass(frozen=True)
class HouseAgents:
    """The agents that ship with the game: house agents by name, "+name" seat wrappers, the
    demo's line-up and kinds of agents for an outside platform. Read by the catalogue."""

    agents: Mapping[str, HouseAgent] = field(default_factory=dict)
    wrappers: Mapping[str, Callable[[Agent], Agent]] = field(default_factory=dict)  # "+name" seat suffixes
    demo: tuple[str, ...] = ()  # played against each other on an empty store
    # kinds of agents the game brings for an outside platform's protocol, by kind name (`wis`)
    kinds: Mapping[str, AgentKind] = field(default_factory=dict)


@dataclass(frozen=True)
class Extras:
    """What a game may bring beyond matches: studies, question sets, its own CLI commands and
    the paper-shaped reports of its stored runs."""

    studies: Mapping[str, Study] = field(default_factory=dict)
    # the game's question sets, by suite id (python -m space_app bench ID, the Suites tab)
    quizzes: Mapping[str, QuizSet] = field(default_factory=dict)
    # the question sets in a folder the operator names (`bench PATH`, e.g. a murder script played
    # where it lies): (suite id, its set), or None when the folder is not one of this game's
    folder_quizzes: Callable[[Path], tuple[str, QuizSet] | None] | None = None
    # the game's own commands for the headless CLI: name -> (help, main(argv, services) -> exit
    # code), e.g. mystery's validate-scripts; `python -m space_app NAME ...` passes the rest to main
    commands: Mapping[str, GameCommand] = field(default_factory=dict)
    # a paper's main tables from stored runs, by report name (`python -m space_app report NAME`,
    # the Results tab), e.g. mystery's "whodunit"
    reports: Mapping[str, Report] = field(default_factory=dict)


@dataclass(frozen=True)
class GameSpec:
    """A game's contract with the arena, in facets each read only by the generic code that
    needs it: `facts` (title, table), `rules` (game class, settings, events, dealing),
    `metrics` (per-seat records, leaderboard columns), `presentation` (replay panels, results
    page), `house` (agents it ships) and `extras` (studies, quizzes, commands)."""

    id: str
    facts: Facts
    rules: Rules
    metrics: Metrics
    presentation: Presentation
    house: HouseAgents = field(default_factory=HouseAgents)
    extras: Extras = field(default_factory=Extras)

    @property
    def title(self) -> str:
        return self.facts.title

    def make(self, n_seats: int, seed: int, settings: dict[str, Any] | None = None) -> Game:
        """A new match of `n_seats` seats (named by the facts) with this seed and these settings."""
        values = {**(settings or {})}
        values.setdefault("players", n_seats)
        parsed = self.rules.settings_class.model_validate(values)
        game = self.rules.game_class(self.facts.seat_names(n_seats, values), seed, parsed)
        # probes wrap the game rather than change it: the same seed plays the same game
        return with_probes(game, self.rules.probes, self.id) if getattr(parsed, "probes", False) else game

    def deal_roles(self, n_seats: int, seed: int, settings: Mapping[str, Any] | None = None) -> list[str]:
        """Each seat's role (in seat order) in a match of this seed and these settings."""
        values = {**(settings or {})}
        values.setdefault("players", n_seats)
        names = self.facts.seat_names(n_seats, values)
        if self.rules.deal is None:
            roles = self.make(n_seats, seed, values).seat_roles()
            return [roles.get(seat, "") for seat in names]
        parsed = self.rules.settings_class.model_validate(values)
        return list(self.rules.deal(names, seed, parsed))


class GameSpecError(ValueError):
    """A game registered without what generic code needs."""


def check_spec(spec: GameSpec) -> None:
    """Refuse an incomplete spec at registration, naming the facet and the part that is missing."""
    if not spec.id or not spec.id.isidentifier():
        raise GameSpecError(f"game spec {spec.id!r}: id must be a short identifier, e.g. 'avalon'")
    where = f"game spec {spec.id!r}"
    facets = (("facts", Facts), ("rules", Rules), ("metrics", Metrics), ("presentation", Presentation),
              ("house", HouseAgents), ("extras", Extras))
    for name, facet in facets:
        if not isinstance(getattr(spec, name), facet):
            raise GameSpecError(f"{where}: {name} must be a {facet.__name__}")
    facts, rules, metrics, shown, house = spec.facts, spec.rules, spec.metrics, spec.presentation, spec.house
    if not facts.title:
        raise GameSpecError(f"{where}: facts.title is missing")
    if not 1 <= facts.min_players <= facts.default_players <= facts.max_players:
        raise GameSpecError(f"{where}: facts: players must satisfy 1 <= min_players <= default_players <= max_players")
    if not facts.roles:
        raise GameSpecError(f"{where}: facts.roles are missing")
    if not (isinstance(rules.game_class, type) and issubclass(rules.game_class, Game)):
        raise GameSpecError(f"{where}: rules.game_class must be a Game subclass")
    if not (isinstance(rules.settings_class, type) and issubclass(rules.settings_class, BaseModel)):
        raise GameSpecError(f"{where}: rules.settings_class must be a pydantic model")
    if rules.probes is not None and "probes" not in rules.settings_class.model_fields:
        raise GameSpecError(f"{where}: rules.probes needs a 'probes' setting (off by default) to turn them on")
    if not callable(metrics.records):
        raise GameSpecError(f"{where}: metrics.records (a match's per-seat records) is missing")
    if not callable(metrics.row):
        raise GameSpecError(f"{where}: metrics.row (the game's leaderboard columns from summed records) is missing")
    if not metrics.columns:
        raise GameSpecError(f"{where}: metrics.columns (the game's leaderboard columns) are missing")
    generic = GENERIC_COLUMNS | {f"win_rate_{side}" for side in facts.record_roles}
    reused = sorted({c.key for c in metrics.columns} & generic)
    if reused:
        raise GameSpecError(f"{where}: metrics.columns reuse the generic columns {reused}")
    if not isinstance(shown.view, ReplayView):
        raise GameSpecError(f"{where}: presentation.view (its replay panels) is missing")
    for panel in shown.view.panels:
        bad_bar = panel.kind == "bar" and not (panel.x and panel.y)
        if panel.kind not in ("table", "bar") or not panel.columns or bad_bar:
            raise GameSpecError(f"{where}: replay panel {panel.title!r} needs columns, and x and y for a bar chart")
    if shown.documents is not None and not callable(shown.documents):
        raise GameSpecError(f"{where}: presentation.documents must be a function of a seat's view that returns "
                            "SeatDocuments")
    if shown.results is not None and not callable(shown.results):
        raise GameSpecError(f"{where}: presentation.results must be a function of the store and a ResultsScope "
                            "that returns a ResultsPage")
    for name in house.agents:
        if not name.startswith("house:"):
            raise GameSpecError(f"{where}: house agent {name!r} must be named house:<name>")
    for name in house.demo:
        if name not in house.agents:
            raise GameSpecError(f"{where}: demo agent {name!r} is not one of its house agents")
    names = facts.seat_names(facts.default_players)
    if len(names) != facts.default_players or len(set(names)) != len(names):
        raise GameSpecError(f"{where}: facts: seat names must be {facts.default_players} distinct names")


__all__ = ["GENERIC_COLUMNS", "AgentKind", "ArenaServices", "Extras", "Facts", "GameCommand", "GameSpec",
           "GameSpecError", "HouseAgent", "HouseAgents", "MatchStore", "MetricColumn", "Metrics", "Panel",
           "PlayChoice", "Presentation", "QuizSet", "ReplayView", "ResultsPage", "ResultsScope", "ResultsSection",
           "Rules", "Study", "Tournaments", "check_spec"]
