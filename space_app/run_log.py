"""A run log: one self-contained file of stored matches (every match with its settings, seats
and result, every event, every call record) and the versions that played them, as JSON Lines,
to share, to open in another arena's Replay tab or to read with any JSON tool. The format is
documented in docs/run-log.md; each line validates against one of the models below.

    header   the format and its version, the package version and commit, what was exported
    match    one match: game, seed, status, settings, rules version, seats, result
    event    one event of a match, in the store's shape (envelope + the kind's `data`)
    call     one call record of a match (an event of kind `call`), same shape
    end      how many lines of each type came before: a cut file is refused, not half read
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from typing import Annotated, Any, Literal, TextIO

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from .core import UnknownGame, get_game
from .core.events import GENERIC, Call
from .export import code_version
from .store import Store

FORMAT = "deduction-arena-run-log"
FORMAT_VERSION = 1
MAX_LINE = 8_000_000  # characters of one line read back (a call record is bounded far below this)


class RunLogError(ValueError):
    """A file that is not a readable run log; the message says which line and why."""


class _Line(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Header(_Line):
    type: Literal["header"] = "header"
    format: Literal["deduction-arena-run-log"] = FORMAT
    format_version: int = Field(description="this format's version; a reader refuses a newer one")
    package_version: str
    commit: str
    exported_at: str = Field(description="ISO 8601, UTC")
    filter: dict[str, str | None] = Field(description="what was asked for: {'tag': ..., 'match': ...}")
    rules_versions: dict[str, str] = Field(default_factory=dict, description="each game's rules version here")


class Seat(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seat: str
    agent_id: str
    agent_name: str
    version: dict[str, str] = Field(default_factory=dict, description="which version of the agent played: "
                                    "sdk, model, revision as it reported them ({} when not kept)")


class MatchLine(_Line):
    type: Literal["match"] = "match"
    id: str = Field(min_length=1, max_length=40)
    game: str
    seed: int | None
    status: str
    tag: str = ""
    rules: str | None = None
    settings: dict[str, Any] | None = None
    seats: list[Seat]
    result: dict[str, Any] | None = None
    error: str | None = None
    created_at: float | None = None
    finished_at: float | None = None


class EventLine(_Line):
    type: Literal["event"] = "event"
    match_id: str
    seq: int = Field(ge=0)
    kind: str
    actor: str
    text: str = ""
    round: int | None = None
    visible_to: list[str] | None = None
    data: dict[str, Any] | None = None
    created_at: float | None = None


class CallLine(EventLine):
    type: Literal["call"] = "call"  # type: ignore[assignment]
    kind: Literal["call"] = "call"


class End(_Line):
    type: Literal["end"] = "end"
    matches: int
    events: int
    calls: int


Line = Annotated[Header | MatchLine | EventLine | CallLine | End, Field(discriminator="type")]
LINE = TypeAdapter(Line)

MATCH_FIELDS = ("id", "game", "seed", "status", "tag", "rules", "settings", "seats", "result", "error",
                "created_at", "finished_at")  # a match's owner (a visitor) is not shared
EVENT_FIELDS = ("seq", "kind", "actor", "text", "round", "visible_to", "data", "created_at")


def lines_of(matches: Iterable[dict[str, Any]], filter: dict[str, str | None]) -> Iterator[_Line]:
    """The log's lines for `matches` (stored matches with their events), header first, end last."""
    matches = list(matches)
    rules: dict[str, str] = {}
    for game in sorted({m["game"] for m in matches}):
        try:
            rules[game] = str(get_game(game).rules.rules_version)
        except UnknownGame:
            continue
    yield Header(format_version=FORMAT_VERSION, **code_version(), filter=filter, rules_versions=rules,
                 exported_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
    counts = {"matches": 0, "events": 0, "calls": 0}
    for m in matches:
        yield MatchLine(**{k: m.get(k) for k in MATCH_FIELDS})
        counts["matches"] += 1
        for row in m.get("events") or []:
            fields = {k: row.get(k) for k in EVENT_FIELDS}
            if GENERIC.model_of(str(row.get("kind"))) is Call:
                yield CallLine(match_id=m["id"], **fields)
                counts["calls"] += 1
            else:
                yield EventLine(match_id=m["id"], **fields)
                counts["events"] += 1
    yield End(**counts)


def stored_matches(store: Store, *, tag: str | None = None, match_id: str | None = None) -> list[dict[str, Any]]:
    """The matches a log holds: one by id, or every match (of any game and status) with `tag`."""
    if match_id:
        match = store.get_match(match_id)
        if match is None:
            raise RunLogError(f"no match {match_id!r} in this store")
        return [match]
    if tag is None:
        raise RunLogError("say which matches: --tag TAG or --match ID")
    return list(store.iter_matches(None, status=None, tag=tag))


def write_log(out: TextIO, matches: Iterable[dict[str, Any]], filter: dict[str, str | None]) -> End:
    """Write a run log; returns its end line (the counts)."""
    last: Any = None
    for line in lines_of(matches, filter):
        out.write(line.model_dump_json() + "\n")
        last = line
    assert isinstance(last, End)
    return last


class RunLog(BaseModel):
    """A run log read back: its header and its matches, each in the store's shape (with `events`,
    call records among them, in `seq` order), ready for the replay and `verify`."""

    header: Header
    matches: list[dict[str, Any]]

    def match(self, match_id: str) -> dict[str, Any]:
        for m in self.matches:
            if m["id"] == match_id:
                return m
        raise RunLogError(f"no match {match_id!r} in this run log")


def read_log(lines: Iterable[str]) -> RunLog:
    """Read a run log; RunLogError (with the line number) for anything that is not one."""
    header: Header | None = None
    matches: dict[str, dict[str, Any]] = {}
    counts = {"matches": 0, "events": 0, "calls": 0}
    end: End | None = None
    number = 0
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        if len(raw) > MAX_LINE:
            raise RunLogError(f"line {number}: longer than {MAX_LINE} characters")
        if end is not None:
            raise RunLogError(f"line {number}: a line after the end line")
        try:
            line = LINE.validate_json(raw)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            raise RunLogError(f"line {number}: not a run log line ({where}: {first.get('msg')})") from None
        if header is None:
            if not isinstance(line, Header):
                raise RunLogError(f"line {number}: a run log starts with its header line")
            if line.format_version > FORMAT_VERSION:
                raise RunLogError(f"format version {line.format_version} is newer than this arena reads "
                                  f"({FORMAT_VERSION}); update the arena")
            header = line
        elif isinstance(line, Header):
            raise RunLogError(f"line {number}: a second header")
        elif isinstance(line, MatchLine):
            if line.id in matches:
                raise RunLogError(f"line {number}: match {line.id!r} appears twice")
            matches[line.id] = {**line.model_dump(exclude={"type"}), "events": []}
            counts["matches"] += 1
        elif isinstance(line, EventLine):  # a call line too
            if GENERIC.model_of(line.kind) is Call and not isinstance(line, CallLine):
                raise RunLogError(f"line {number}: a call record must be a line of type 'call'")
            match = matches.get(line.match_id)
            if match is None:
                raise RunLogError(f"line {number}: an event of match {line.match_id!r} before that match's line")
            match["events"].append(line.model_dump(exclude={"type", "match_id"}))
            counts["calls" if isinstance(line, CallLine) else "events"] += 1
        elif isinstance(line, End):
            end = line
    if header is None:
        raise RunLogError("an empty file: a run log starts with its header line")
    if end is None:
        raise RunLogError(f"the file ends at line {number} without its end line: it was cut short")
    if counts != end.model_dump(exclude={"type"}):
        raise RunLogError(f"the end line counts {end.model_dump(exclude={'type'})}, the file holds {counts}")
    for m in matches.values():
        m["events"].sort(key=lambda e: e["seq"])
        seqs = [e["seq"] for e in m["events"]]
        if len(set(seqs)) != len(seqs):
            raise RunLogError(f"match {m['id']!r}: two events with the same seq")
    return RunLog(header=header, matches=list(matches.values()))


def read_log_file(path: str) -> RunLog:
    try:
        with open(path, encoding="utf-8") as fh:
            return read_log(fh)
    except UnicodeDecodeError:
        raise RunLogError("not a text file in UTF-8") from None


__all__ = ["FORMAT", "FORMAT_VERSION", "LINE", "CallLine", "End", "EventLine", "Header", "Line", "MatchLine",
           "RunLog", "RunLogError", "Seat", "lines_of", "read_log", "read_log_file", "stored_matches",
           "write_log"]
