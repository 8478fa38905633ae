"""The record store: agents, matches, seats and an append-only event log.

SQLAlchemy Core over a database URL; a plain file path means SQLite (WAL mode), and
`postgresql+psycopg://...` a PostgreSQL server. The schema is versioned (Alembic revisions
in `migrations/`) and brought up to date when a store opens.
Events are written as they happen, one transaction per step, so a crash leaves a
readable partial record; `Store(...)` marks matches still 'running' from a process that
died as 'aborted'. A running match has a lease (`match_leases`, see `leases.py`) renewed by
the process playing it, so several processes, on several machines, can share one database.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    JSON,
    Column,
    Float,
    Index,
    Integer,
    MetaData,
    Table,
    UniqueConstraint,
    bindparam,
    case,
    create_engine,
    delete,
    event,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import DBAPIError

from .dbtypes import BigId, BigInt, Chars, LongText, json_for_postgresql
from .store_error import StoreError, first_line

if TYPE_CHECKING:  # the store keeps events as kind + JSON and reads no model
    from .core.events import Event
    from .leases import Leases

metadata = MetaData()

agents = Table(
    "agents", metadata,
    Column("id", Chars(200), primary_key=True),
    Column("name", Chars(200), nullable=False),
    Column("kind", Chars(20), nullable=False),  # house | remote | wis | human
    Column("src", Chars(500), nullable=False, default=""),
    Column("secret", Chars(500), nullable=True),  # never returned by listings
    Column("owner", Chars(100), nullable=False, default=""),
    Column("description", LongText, nullable=False, default=""),
    Column("games", JSON, nullable=False, default=list),
    Column("info", JSON, nullable=False, default=dict),
    Column("created_at", Float, nullable=False),
    Column("last_seen", Float, nullable=True),
    Column("failures", Integer, nullable=False, default=0),
    Column("calls", Integer, nullable=False, default=0),
    Column("active", Integer, nullable=False, default=1),
)

matches = Table(
    "matches", metadata,
    Column("id", Chars(40), primary_key=True),
    Column("game", Chars(40), nullable=False, index=True),
    Column("seed", BigInt, nullable=False),
    Column("settings", JSON, nullable=False, default=dict),
    Column("status", Chars(20), nullable=False, index=True),  # running|finished|aborted|error
    Column("tag", Chars(100), nullable=False, default=""),
    Column("owner", Chars(100), nullable=False, default=""),
    Column("created_at", Float, nullable=False, index=True),
    Column("finished_at", Float, nullable=True),
    Column("result", JSON, nullable=True),
    Column("error", LongText, nullable=True),
    Column("process", Chars(200), nullable=False, default=""),  # host:pid running it
    # the game's rules version it was played under
    Column("rules", Chars(40), nullable=False, default="", server_default=""),
    # when its per-seat records were applied to the totals and ratings: 1, 2, 3... in that order
    # (the order a rebuild replays); 0 not yet; -1 its records could not be derived
    Column("rated", Integer, nullable=False, default=0, server_default="0", index=True),
    # where the record comes from: 'here' (played by this arena), 'dataset' (restored from the
    # records dataset, its signature verified), 'adopted' (restored unsigned, by the operator's
    # leave), '' (stored before origins were kept)
    Column("origin", Chars(20), nullable=False, default="", server_default=""),
)

seats = Table(
    "seats", metadata,
    Column("match_id", Chars(40), primary_key=True),
    Column("seat", Chars(40), primary_key=True),
    Column("position", Integer, nullable=False),
    Column("agent_id", Chars(200), nullable=False, index=True),
    Column("agent_name", Chars(200), nullable=False),
    # which version of the agent played ({'sdk', 'model', 'revision'}), as it reported it when
    # the match began; {} for house agents before this was kept and for stores from before it
    Column("version", JSON, nullable=False, default=dict, server_default="{}"),
)

events = Table(
    "events", metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("match_id", Chars(40), nullable=False, index=True),
    Column("seq", Integer, nullable=False),
    Column("kind", Chars(40), nullable=False),
    Column("actor", Chars(100), nullable=False),
    Column("round", Integer, nullable=True),
    Column("visible_to", JSON, nullable=True),
    Column("text", LongText, nullable=False, default=""),
    Column("data", JSON, nullable=False, default=dict),
    Column("created_at", Float, nullable=False),
    UniqueConstraint("match_id", "seq", name="uq_event_seq"),
)

# -- derived data (rebuildable from the events with `rescore`) --------------------------
seat_records = Table(
    "seat_records", metadata,
    Column("match_id", Chars(40), primary_key=True),
    Column("seat", Chars(40), primary_key=True),
    Column("game", Chars(40), nullable=False),
    Column("tag", Chars(100), nullable=False, default=""),
    Column("rated", Integer, nullable=False),  # the match's `rated` order
    Column("agent_id", Chars(200), nullable=False),
    Column("role", Chars(40), nullable=False),
    Column("team", Chars(40), nullable=False),
    Column("won", Integer, nullable=False),
    Column("score", Float, nullable=False),
    Column("stats", JSON, nullable=False, default=dict),
    Index("ix_seat_records_game_rated", "game", "rated"),
    Index("ix_seat_records_agent", "game", "agent_id"),
)

# running sums of the records per game, pool, agent and role ('' = every role)
agent_totals = Table(
    "agent_totals", metadata,
    Column("game", Chars(40), primary_key=True),
    Column("pool", Chars(40), primary_key=True),
    Column("agent_id", Chars(200), primary_key=True),
    Column("role", Chars(40), primary_key=True),
    Column("tally", JSON, nullable=False),
)

# current ratings per game, pool and system ('agent': one per agent; 'role': one per agent and role)
ratings = Table(
    "ratings", metadata,
    Column("game", Chars(40), primary_key=True),
    Column("pool", Chars(40), primary_key=True),
    Column("system", Chars(20), primary_key=True),
    Column("subject", Chars(240), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("matches", Integer, nullable=False),
)

# one agent's answer to one question of a suite (resumable: an answered item is not asked again)
suite_answers = Table(
    "suite_answers", metadata,
    Column("suite", Chars(200), primary_key=True),
    Column("agent_id", Chars(200), primary_key=True),
    Column("item_id", Chars(200), primary_key=True),
    Column("types", JSON, nullable=False, default=list),
    Column("gold", Chars(40), nullable=False),
    Column("parsed", Chars(200), nullable=True),  # the option the reply was read as, or None
    Column("correct", Integer, nullable=False),
    Column("status", Chars(20), nullable=False),  # ok | unparseable | timeout | error
    Column("detail", LongText, nullable=False, default=""),
    Column("reply", LongText, nullable=True),
    Column("latency_ms", Float, nullable=False),
    Column("tokens", Integer, nullable=False, default=0),
    Column("created_at", Float, nullable=False),
    # 1: the call never reached the agent's own code (unreachable, HTTP 5xx): not an answer,
    # left out of scores and asked again by the next run
    Column("retryable", Integer, nullable=False, default=0, server_default="0"),
)

# a judge's verdict on one seat of one match (e.g. a murder mystery's role-play score from an
# LLM judge): kept so a page can show what a slow or paid judge said without asking again
judge_verdicts = Table(
    "judge_verdicts", metadata,
    Column("match_id", Chars(40), primary_key=True),
    Column("seat", Chars(200), primary_key=True),
    Column("score", Chars(40), primary_key=True),  # what was judged, e.g. rp, spc, cmd
    Column("item", Integer, primary_key=True),  # which part of it (a clue's index; 0 when one value)
    Column("judge", Chars(200), primary_key=True),  # the judge's label, e.g. "llm (openai:gpt-4o)"
    Column("value", Float, nullable=False),
    Column("fallback", LongText, nullable=False, default=""),  # why another judge's value stands in, or ""
    Column("created_at", Float, nullable=False),
)

# a counterfactual branch (`branches`): a match that replayed its parent's record up to a step
# and went on from there with `agent_id` in `seat`; its events below `live_seq` are the parent's
match_branches = Table(
    "match_branches", metadata,
    Column("match_id", Chars(40), primary_key=True),
    Column("parent_id", Chars(40), nullable=False, index=True),
    Column("from_step", Integer, nullable=False),  # the replay's step number (spectator view, 1-based)
    Column("live_seq", Integer, nullable=False),  # the first seq not copied from the parent
    Column("seat", Chars(40), nullable=False),
    Column("agent_id", Chars(200), nullable=False),  # who sat in `seat` from the branch point
    Column("arm", Chars(20), nullable=False),  # 'agent' (the one asked for) or 'original' (called again)
    Column("sample", Integer, nullable=False),
    Column("salt", Chars(200), nullable=False),  # the house agents' per-branch salt (`core.seeding`)
    Column("created_at", Float, nullable=False),
)

# who plays each running match (or agent call) now, renewed on a heartbeat: see space_app/leases.py
match_leases = Table(
    "match_leases", metadata,
    Column("key", Chars(40), primary_key=True),  # a match id, or a slot's or duty's own key
    Column("replica", Chars(40), nullable=False, index=True),  # the process holding it
    Column("visitor", Chars(100), nullable=False, default="", server_default=""),
    Column("capped", Integer, nullable=False, default=0, server_default="0"),  # 1: a slot, 2: a batch call (leases.py)
    Column("expires_at", Float, nullable=False, index=True),
    Column("cancel_requested", Integer, nullable=False, default=0, server_default="0"),
)

PUBLIC_AGENT_FIELDS = ("id", "name", "kind", "src", "owner", "description", "games", "info",
                       "created_at", "last_seen", "failures", "calls", "active")


def _stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name (Linux), or [] if unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat[stat.rindex(")") + 2:].split()
    except (OSError, ValueError):
        return []


def _started(pid: int) -> str:
    """When a process started, in clock ticks since boot (Linux), or '' if unknown.
    A restarted container can reuse a PID, but not with the same start time."""
    fields = _stat(pid)
    return fields[19] if len(fields) > 19 else ""


# this process's identity: host:pid:start (a random token where the start time is unknown)
_START = _started(os.getpid()) or uuid.uuid4().hex[:12]


def this_process() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{_START}"


def _process_alive(process: str) -> bool:
    parts = (process or "").split(":")
    host, pid, start = (parts + [""])[:3] if len(parts) <= 3 else ("", "", "")
    if host != socket.gethostname() or not pid.isdigit():
        return False  # another machine's match cannot be checked: treat as dead
    if int(pid) == os.getpid():
        return start == _START  # same PID after a restart is another process
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    fields = _stat(int(pid))
    if fields[:1] in (["Z"], ["X"]):
        return False  # killed and not yet reaped by its parent (a batch worker's raylet)
    started = fields[19] if len(fields) > 19 else ""
    return not (start and started) or started == start


def _dead_here(process: str) -> bool:
    """A process of this host that is known to have ended (one of another host is unknown)."""
    return (process or "").split(":")[0] == socket.gethostname() and not _process_alive(process)


def to_url(target: str | Path) -> str:
    """A database URL as is; anything else is a SQLite file path. A PostgreSQL URL without a
    driver (the usual DATABASE_URL spelling, `postgres://` too) gets psycopg 3, the one
    installed, instead of SQLAlchemy's default psycopg2."""
    text = str(target)
    if "://" in text:
        scheme, rest = text.split("://", 1)
        return f"postgresql+psycopg://{rest}" if scheme in ("postgres", "postgresql") else text
    Path(text).expanduser().parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{Path(text).expanduser()}"


def shown_url(url: str) -> str:
    """A store's URL fit to print: its password masked."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - not a URL SQLAlchemy can read: show nothing of it
        return "(an unreadable database URL)"


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # the wait first: switching a new file to WAL takes a lock another opener may hold
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def make_engine(url: str) -> Engine:
    """An engine for a store URL: SQLite in WAL mode; a server database with its connections
    checked before use (a restarted server is reconnected to, not failed on) and a bounded
    wait to connect."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        engine = create_engine(url)
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    options: dict[str, Any] = {"pool_pre_ping": True}
    if parsed.get_backend_name() == "postgresql":
        options["json_serializer"] = json_for_postgresql
        if "connect_timeout" not in parsed.query:
            options["connect_args"] = {"connect_timeout": 10}
    return create_engine(url, **options)


def _insert_match(conn: Any, leases: Leases, match_id: str, game: str, seed: int, seat_rows: list[dict[str, str]],
                  settings: dict | None, tag: str, owner: str, rules: str) -> None:
    """A new match, running in this process, its seats and its lease (unless admission took
    one for it already)."""
    leases.hold(conn, match_id, owner)
    conn.execute(insert(matches).values(
        id=match_id, game=game, seed=seed, settings=settings or {}, status="running",
        tag=tag, owner=owner, created_at=time.time(), process=this_process(), rules=rules,
        origin="here"))
    conn.execute(insert(seats), [
        {"match_id": match_id, "seat": r["seat"], "position": i, "agent_id": r["agent_id"],
         "agent_name": r.get("agent_name") or r["agent_id"], "version": r.get("version") or {}}
        for i, r in enumerate(seat_rows)])


class Store:
    def __init__(self, target: str | Path = "arena.db", *, recover: bool = True) -> None:
        from . import migrations
        from .leases import Leases

        self.url = to_url(target)
        try:
            self.engine: Engine = make_engine(self.url)
        except Exception as exc:  # noqa: BLE001 - a malformed URL or a missing driver: one line
            raise StoreError(f"cannot open the store {shown_url(self.url)}: {first_line(exc)}") from None
        try:
            self.schema_before = migrations.upgrade(self.engine)
        except migrations.NewerSchema as exc:
            self.engine.dispose()
            raise StoreError(f"cannot open the store {shown_url(self.url)}: {exc}") from None
        except DBAPIError as exc:
            self.engine.dispose()
            raise StoreError(f"cannot open the store {shown_url(self.url)}: {first_line(exc)}") from None
        self._write_lock = threading.Lock()  # SQLite has one writer; keep waits in-process
        try:
            self.leases = Leases(self)  # this process's leases on the matches it plays (a replica)
        except ValueError as exc:  # ARENA_LEASE_SECONDS / ARENA_HEARTBEAT_SECONDS unusable: one line
            self.engine.dispose()
            raise StoreError(str(exc)) from None
        self.aborted_on_open = self.abort_running() if recover else []

    @property
    def backend(self) -> str:
        """'sqlite' or 'postgresql' (or another SQLAlchemy dialect's name)."""
        return self.engine.dialect.name

    def lease_schema(self) -> tuple[Table, Table, Callable[[Any], None]]:
        """The lease and match tables and the write lock, for this store's `Leases`."""
        return match_leases, matches, _serialise_writes

    def close(self) -> None:
        self.leases.stop()
        self.engine.dispose()

    # -- agents ---------------------------------------------------------------
    def upsert_agent(self, agent_id: str, *, name: str, kind: str, src: str = "",
                     secret: str | None = None, owner: str = "", description: str = "",
                     games: list[str] | None = None, info: dict | None = None) -> None:
        now = time.time()
        row = {"name": name, "kind": kind, "src": src, "owner": owner,
               "description": description, "games": games or [], "info": info or {},
               "active": 1}
        with self._write_lock, self.engine.begin() as conn:
            exists = conn.execute(select(agents.c.id, agents.c.src).where(agents.c.id == agent_id)).first()
            if exists:
                if secret is not None:
                    row["secret"] = secret
                elif exists.src != src:
                    row["secret"] = None  # a secret belongs to the URL it was given for, never another
                conn.execute(update(agents).where(agents.c.id == agent_id).values(**row))
            else:
                conn.execute(insert(agents).values(id=agent_id, secret=secret, created_at=now,
                                                   last_seen=now, failures=0, calls=0, **row))

    def get_agent(self, agent_id: str, *, with_secret: bool = False) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(agents).where(agents.c.id == agent_id)).mappings().first()
        if row is None:
            return None
        out = {k: row[k] for k in PUBLIC_AGENT_FIELDS}
        if with_secret:
            out["secret"] = row["secret"]
        out["has_secret"] = bool(row["secret"])
        return out

    def list_agents(self, *, active_only: bool = True) -> list[dict[str, Any]]:
        query = select(*[agents.c[k] for k in PUBLIC_AGENT_FIELDS], agents.c.secret)
        if active_only:
            query = query.where(agents.c.active == 1)
        with self.engine.connect() as conn:
            rows = conn.execute(query.order_by(agents.c.created_at)).mappings().all()
        return [{**{k: r[k] for k in PUBLIC_AGENT_FIELDS}, "has_secret": bool(r["secret"])}
                for r in rows]

    def deactivate_agent(self, agent_id: str) -> bool:
        with self._write_lock, self.engine.begin() as conn:
            res = conn.execute(update(agents).where(agents.c.id == agent_id).values(active=0))
        return res.rowcount > 0

    def note_agent_calls(self, counts: dict[str, tuple[int, int]]) -> None:
        """Add a match's calls and failures to each agent's counters: {agent_id: (calls, failures)},
        in one transaction (an id with no row, an ad-hoc spec, changes nothing)."""
        now = time.time()
        params = [{"agent": a, "more_calls": c, "more_failures": f, "seen": now if c > f else None}
                  for a, (c, f) in counts.items()]
        if not params:
            return
        statement = update(agents).where(agents.c.id == bindparam("agent")).values(
            calls=agents.c.calls + bindparam("more_calls"), failures=agents.c.failures + bindparam("more_failures"),
            last_seen=func.coalesce(bindparam("seen"), agents.c.last_seen))
        with self._write_lock, self.engine.begin() as conn:
            conn.execute(statement, params)

    def set_seat_versions(self, match_id: str, versions: dict[str, dict[str, str]]) -> None:
        """Note which version of its agent each seat's agent reported: {seat: version}."""
        if not versions:
            return
        statement = update(seats).where(seats.c.match_id == match_id, seats.c.seat == bindparam("the_seat")
                                        ).values(version=bindparam("the_version"))
        with self._write_lock, self.engine.begin() as conn:
            conn.execute(statement, [{"the_seat": s, "the_version": v} for s, v in versions.items()])

    def seat_versions(self, game: str) -> dict[tuple[str, str], dict[str, str]]:
        """{(match id, seat): version} of every seat of a game's matches that has one."""
        query = (select(seats.c.match_id, seats.c.seat, seats.c.version)
                 .join(matches, matches.c.id == seats.c.match_id).where(matches.c.game == game))
        with self.engine.connect() as conn:
            return {(m, s): v for m, s, v in conn.execute(query) if v}

    # -- matches ----------------------------------------------------------------
    def create_match(self, match_id: str, game: str, seed: int, seat_rows: list[dict[str, str]],
                     settings: dict | None = None, tag: str = "", owner: str = "", rules: str = "") -> None:
        with self._write_lock, self.engine.begin() as conn:
            _insert_match(conn, self.leases, match_id, game, seed, seat_rows, settings, tag, owner, rules)

    def claim_match(self, match_id: str, game: str, seed: int, seat_rows: list[dict[str, str]],
                    settings: dict | None = None, tag: str = "", owner: str = "", rules: str = "") -> str:
        """Create a planned match whose id may already be stored (a retried or re-run batch):
        'created' when it is to be played now (a half-written record, left 'running' by a
        process that died, or without a lease, 'aborted' or 'error', is replaced in the same
        transaction); 'finished' when it was played to its end already (kept as it is);
        'leased' when a live process holds an unexpired lease on it (on whatever machine: it
        is playing it, or it played it and its batch has yet to mark it; it may also die and
        let the lease lapse), left alone."""
        with self._write_lock, self.engine.begin() as conn:
            _serialise_writes(conn)
            row = conn.execute(select(matches.c.status, matches.c.process)
                               .where(matches.c.id == match_id)).first()
            lease = self.leases.holder(conn, match_id)
            if lease == "elsewhere" and not (row is not None and _dead_here(row.process)):
                return "leased"
            if row is not None:
                if row.status == "finished":
                    return "finished"
                for table in (events, seats, seat_records, judge_verdicts):
                    conn.execute(delete(table).where(table.c.match_id == match_id))
                conn.execute(delete(matches).where(matches.c.id == match_id))
            _insert_match(conn, self.leases, match_id, game, seed, seat_rows, settings, tag, owner, rules)
        return "created"

    def adopt_match(self, match_id: str) -> bool:
        """Take over a played match's lease from the worker that played it (another process, on
        whatever machine): the batch marks it ended later, and this process renews it until
        then, whatever becomes of the worker. Whether it was still running."""
        with self._write_lock, self.engine.begin() as conn:
            _serialise_writes(conn)
            taken = conn.execute(update(matches).where(matches.c.id == match_id, matches.c.status == "running")
                                 .values(process=this_process()))
            if not taken.rowcount:
                return False
            self.leases.adopt(conn, match_id)
        return True

    def match_states(self, match_ids: Sequence[str]) -> dict[str, tuple[str, int]]:
        """(status, rated order) of those of `match_ids` that are stored."""
        out: dict[str, tuple[str, int]] = {}
        ids = list(match_ids)
        with self.engine.connect() as conn:
            for i in range(0, len(ids), 500):
                query = select(matches.c.id, matches.c.status, matches.c.rated).where(matches.c.id.in_(ids[i:i + 500]))
                out.update({m: (status, int(rated)) for m, status, rated in conn.execute(query)})
        return out

    def append_events(self, match_id: str, items: Iterable[tuple[int, Event]]) -> None:
        now = time.time()
        rows = [{"match_id": match_id, "seq": seq, "kind": e.kind, "actor": e.actor,
                 "round": e.round, "visible_to": None if e.visible_to is None else list(e.visible_to),
                 "text": e.text, "data": e.payload(), "created_at": now} for seq, e in items]
        if not rows:
            return
        with self._write_lock, self.engine.begin() as conn:
            conn.execute(insert(events), rows)

    def finish_match(self, match_id: str, status: str, result: dict | None = None,
                     error: str | None = None, *, if_running: bool = False) -> bool:
        """Mark a match ended and drop its lease; `if_running`: only if it is still marked
        running. Whether it was."""
        query = update(matches).where(matches.c.id == match_id)
        if if_running:
            query = query.where(matches.c.status == "running")
        with self._write_lock, self.engine.begin() as conn:
            done = conn.execute(query.values(status=status, result=result, error=error, finished_at=time.time()))
            conn.execute(delete(match_leases).where(match_leases.c.key == match_id))
        return done.rowcount > 0

    def abort_running(self) -> list[str]:
        """Matches left 'running' by a process that died are marked 'aborted': those whose
        lease expired (any machine's: `leases.reap`); those of a process of this host that
        ended (it cannot renew: no need to wait for its leases to expire); and those without a
        lease (a store of an older version, a process that gave its leases up as it closed):
        every match someone plays, or played and has yet to mark ended, holds one. A match
        with a live lease held by another machine's process, or a live one of this host, is
        left; no process id of another machine is ever judged."""
        ids = self.leases.reap()
        with self._write_lock, self.engine.begin() as conn:
            _serialise_writes(conn)
            # the matches first, then the leases: a match is created with its lease, in one
            # transaction, so one seen running has its lease in the later read unless it ended
            # meanwhile (which the update's own condition leaves alone)
            rows = conn.execute(select(matches.c.id, matches.c.process).where(matches.c.status == "running")).all()
            leased = set(conn.execute(select(match_leases.c.key)).scalars())
            dead = [match_id for match_id, process in rows if match_id not in leased or _dead_here(process)]
            if dead:
                conn.execute(update(matches).where(matches.c.id.in_(dead), matches.c.status == "running").values(
                    status="aborted", error="the process stopped before the match ended",
                    finished_at=time.time()))
                conn.execute(delete(match_leases).where(match_leases.c.key.in_(dead)))
        return ids + dead

    def _match_row(self, row: Any, seat_rows: list[Any]) -> dict[str, Any]:
        return {"id": row["id"], "game": row["game"], "seed": row["seed"], "settings": row["settings"],
                "status": row["status"], "tag": row["tag"], "owner": row["owner"],
                "created_at": row["created_at"], "finished_at": row["finished_at"],
                "result": row["result"], "error": row["error"], "rules": row["rules"],
                "seats": [{"seat": s["seat"], "agent_id": s["agent_id"], "agent_name": s["agent_name"],
                           "version": s["version"] or {}}
                          for s in sorted(seat_rows, key=lambda s: s["position"])]}

    def get_match(self, match_id: str, *, with_events: bool = True) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(matches).where(matches.c.id == match_id)).mappings().first()
            if row is None:
                return None
            seat_rows = conn.execute(select(seats).where(seats.c.match_id == match_id)).mappings().all()
            out = self._match_row(row, list(seat_rows))
            if with_events:
                out["events"] = self.events_of(match_id, conn=conn)
        return out

    def events_of(self, match_id: str, conn: Any = None) -> list[dict[str, Any]]:
        query = select(events).where(events.c.match_id == match_id).order_by(events.c.seq)
        if conn is None:
            with self.engine.connect() as c:
                rows = c.execute(query).mappings().all()
        else:
            rows = conn.execute(query).mappings().all()
        return [{"seq": r["seq"], "kind": r["kind"], "actor": r["actor"], "round": r["round"],
                 "visible_to": r["visible_to"], "text": r["text"], "data": r["data"],
                 "created_at": r["created_at"]} for r in rows]

    def list_matches(self, *, game: str | None = None, agent_id: str | None = None,
                     status: str | None = None, tag: str | None = None, since: float | None = None,
                     limit: int = 100, offset: int = 0, agent_ids: Sequence[str] = (),
                     agent_name: str | None = None) -> list[dict[str, Any]]:
        """Newest first. `agent_id`: matches that seat it; `agent_ids`/`agent_name`: matches that
        seat any of those ids or an agent shown under that name (any case)."""
        query = select(matches)
        if game:
            query = query.where(matches.c.game == game)
        if status:
            query = query.where(matches.c.status == status)
        if tag is not None:
            query = query.where(matches.c.tag == tag)
        if since:
            query = query.where(matches.c.created_at >= since)
        if agent_id:
            query = query.where(matches.c.id.in_(select(seats.c.match_id).where(seats.c.agent_id == agent_id)))
        if agent_ids or agent_name:
            who = [seats.c.agent_id.in_(list(agent_ids))] if agent_ids else []
            if agent_name:
                who.append(func.lower(seats.c.agent_name) == agent_name.lower())
            query = query.where(matches.c.id.in_(select(seats.c.match_id).where(or_(*who))))
        query = query.order_by(matches.c.created_at.desc()).limit(limit).offset(offset)
        with self.engine.connect() as conn:
            rows = conn.execute(query).mappings().all()
            ids = [r["id"] for r in rows]
            seat_rows = conn.execute(select(seats).where(seats.c.match_id.in_(ids))).mappings().all() if ids else []
        by_match: dict[str, list[Any]] = {}
        for s in seat_rows:
            by_match.setdefault(s["match_id"], []).append(s)
        return [self._match_row(r, by_match.get(r["id"], [])) for r in rows]

    def iter_matches(self, game: str | None, *, status: str | None = "finished", tag: str | None = None,
                     chunk: int = 200, order: str = "created") -> Iterator[dict[str, Any]]:
        """Every match of a game (None: of every game) with its events, oldest first (for
        metrics, verify and export); `status=None` takes every status. `order="rated"`: in
        the order their records were applied to the standings (the rest after, as they ended)."""
        query = select(matches.c.id)
        if game is not None:
            query = query.where(matches.c.game == game)
        if status is not None:
            query = query.where(matches.c.status == status)
        if tag is not None:
            query = query.where(matches.c.tag == tag)
        if order == "rated":
            unrated_last = case((matches.c.rated > 0, matches.c.rated), else_=2**62)
            query = query.order_by(unrated_last, matches.c.finished_at, matches.c.created_at, matches.c.id)
        else:
            query = query.order_by(matches.c.created_at, matches.c.id)
        with self.engine.connect() as conn:
            ids = [r[0] for r in conn.execute(query)]
        for i in range(0, len(ids), chunk):
            part = ids[i:i + chunk]
            with self.engine.connect() as conn:
                mrows = {r["id"]: r for r in conn.execute(select(matches).where(matches.c.id.in_(part))).mappings()}
                srows: dict[str, list[Any]] = {}
                for s in conn.execute(select(seats).where(seats.c.match_id.in_(part))).mappings():
                    srows.setdefault(s["match_id"], []).append(s)
                erows: dict[str, list[dict[str, Any]]] = {}
                for r in conn.execute(select(events).where(events.c.match_id.in_(part))
                                      .order_by(events.c.match_id, events.c.seq)).mappings():
                    erows.setdefault(r["match_id"], []).append(
                        {"seq": r["seq"], "kind": r["kind"], "actor": r["actor"], "round": r["round"],
                         "visible_to": r["visible_to"], "text": r["text"], "data": r["data"],
                         "created_at": r["created_at"]})
            for mid in part:
                out = self._match_row(mrows[mid], srows.get(mid, []))
                out["events"] = erows.get(mid, [])
                yield out

    def match_origins(self, match_ids: Sequence[str] | None = None) -> dict[str, str]:
        """Where each match's record comes from (see `matches.origin`); every match's when
        `match_ids` is None."""
        query = select(matches.c.id, matches.c.origin)
        if match_ids is not None:
            query = query.where(matches.c.id.in_(list(match_ids)))
        with self.engine.connect() as conn:
            return {m: o for m, o in conn.execute(query)}

    # -- counterfactual branches (`branches`) -----------------------------------------
    def copy_events(self, match_id: str, rows: Iterable[dict[str, Any]]) -> None:
        """Store `rows` (as `events_of` returns them, another match's) as `match_id`'s, unchanged."""
        keys = ("seq", "kind", "actor", "round", "visible_to", "text", "data", "created_at")
        copied = [{"match_id": match_id, **{k: r[k] for k in keys}} for r in rows]
        if copied:
            with self._write_lock, self.engine.begin() as conn:
                conn.execute(insert(events), copied)

    def add_branch(self, row: dict[str, Any]) -> None:
        with self._write_lock, self.engine.begin() as conn:
            conn.execute(insert(match_branches).values(created_at=time.time(), **row))

    def branch_of(self, match_id: str) -> dict[str, Any] | None:
        """The branch row of `match_id`, None when it is no branch."""
        with self.engine.connect() as conn:
            row = conn.execute(select(match_branches).where(match_branches.c.match_id == match_id)).mappings().first()
        return None if row is None else dict(row)

    def branches_of(self, parent_id: str) -> list[dict[str, Any]]:
        """The branches made from `parent_id`, oldest first, with each branch match's status."""
        query = (select(match_branches, matches.c.status)
                 .join(matches, matches.c.id == match_branches.c.match_id)
                 .where(match_branches.c.parent_id == parent_id)
                 .order_by(match_branches.c.from_step, match_branches.c.sample, match_branches.c.arm,
                           match_branches.c.created_at))
        with self.engine.connect() as conn:
            return [dict(r) for r in conn.execute(query).mappings()]

    def count_matches(self, game: str | None = None) -> int:
        query = select(func.count()).select_from(matches)
        if game:
            query = query.where(matches.c.game == game)
        with self.engine.connect() as conn:
            return int(conn.execute(query).scalar_one())

    def import_match(self, record: dict[str, Any], *, origin: str = "") -> bool:
        """Insert a match exactly as `get_match()` returned it (row, seats in order, events
        with their original seq), in one transaction, noting where it came from (`origin`).
        False if the id is already stored."""
        match_id = str(record["id"])
        match_row = {"id": match_id, "game": str(record["game"]), "seed": int(record["seed"]),
                     "settings": record.get("settings") or {}, "status": str(record["status"]),
                     "tag": record.get("tag") or "", "owner": record.get("owner") or "",
                     "created_at": float(record["created_at"]),
                     "finished_at": record.get("finished_at"), "result": record.get("result"),
                     "error": record.get("error"), "rules": str(record.get("rules") or ""),
                     "origin": origin}
        seat_rows = [{"match_id": match_id, "seat": str(s["seat"]), "position": i,
                      "agent_id": str(s["agent_id"]), "agent_name": str(s.get("agent_name") or s["agent_id"]),
                      "version": s.get("version") if isinstance(s.get("version"), dict) else {}}
                     for i, s in enumerate(record.get("seats") or [])]
        event_rows = [{"match_id": match_id, "seq": int(e["seq"]), "kind": str(e["kind"]),
                       "actor": str(e["actor"]), "round": e.get("round"), "visible_to": e.get("visible_to"),
                       "text": e.get("text") or "", "data": e.get("data") or {},
                       "created_at": float(e.get("created_at") or match_row["created_at"])}
                      for e in record.get("events") or []]
        with self._write_lock, self.engine.begin() as conn:
            if conn.execute(select(matches.c.id).where(matches.c.id == match_id)).first():
                return False
            conn.execute(insert(matches).values(**match_row))
            if seat_rows:
                conn.execute(insert(seats), seat_rows)
            if event_rows:
                conn.execute(insert(events), event_rows)
        return True

    # -- derived data: per-seat records, running totals, ratings --------------------
    @contextmanager
    def deriving(self) -> Iterator[DerivedWriter]:
        """One transaction (under the write lock) that reads and writes derived data, so a
        match's records, totals and rating updates land together or not at all."""
        with self._write_lock, self.engine.begin() as conn:
            _serialise_derived(conn)
            yield DerivedWriter(conn)

    def rated_per_tag(self, game: str) -> dict[str, int]:
        """Finished matches whose records are in the standings, counted per tag."""
        query = (select(matches.c.tag, func.count()).where(matches.c.game == game, matches.c.status == "finished",
                                                           matches.c.rated > 0).group_by(matches.c.tag))
        with self.engine.connect() as conn:
            return {tag or "": n for tag, n in conn.execute(query)}

    def unrated(self, game: str | None = None) -> list[str]:
        """Finished matches whose records have not been derived yet, oldest first."""
        query = select(matches.c.id).where(matches.c.status == "finished", matches.c.rated == 0)
        if game is not None:
            query = query.where(matches.c.game == game)
        with self.engine.connect() as conn:
            return [r[0] for r in conn.execute(query.order_by(matches.c.finished_at, matches.c.id))]

    def totals(self, game: str, pool: str) -> list[tuple[str, str, dict[str, Any]]]:
        """(agent, role, tally) rows of a pool; role '' is every role."""
        query = select(agent_totals.c.agent_id, agent_totals.c.role, agent_totals.c.tally).where(
            agent_totals.c.game == game, agent_totals.c.pool == pool)
        with self.engine.connect() as conn:
            return [(a, r, t) for a, r, t in conn.execute(query)]

    def skills(self, game: str, pool: str, system: str) -> dict[str, tuple[float, float, int]]:
        query = select(ratings.c.subject, ratings.c.mu, ratings.c.sigma, ratings.c.matches).where(
            ratings.c.game == game, ratings.c.pool == pool, ratings.c.system == system)
        with self.engine.connect() as conn:
            return {s: (mu, sigma, n) for s, mu, sigma, n in conn.execute(query)}

    def records(self, game: str, *, tag: str | None = None, exclude_prefix: str | tuple[str, ...] | None = None,
                agents: Iterable[str] | None = None, chunk: int = 5000) -> Iterator[dict[str, Any]]:
        """Stored per-seat records of a game, in the order they were applied (match by match)."""
        query = select(seat_records).where(seat_records.c.game == game)
        if tag is not None:
            query = query.where(seat_records.c.tag == tag)
        if exclude_prefix:
            prefixes = (exclude_prefix,) if isinstance(exclude_prefix, str) else exclude_prefix
            query = query.where(~or_(*(seat_records.c.tag.startswith(p) for p in prefixes)))
        if agents is not None:
            query = query.where(seat_records.c.agent_id.in_(list(agents)))
        query = query.order_by(seat_records.c.rated, seat_records.c.seat)
        with self.engine.connect() as conn:
            result = conn.execute(query.execution_options(yield_per=chunk)).mappings()
            for r in result:
                yield dict(r)

    def clear_derived(self, game: str) -> None:
        """Drop a game's derived data; its matches are unrated again (`catch_up` derives them)."""
        with self.deriving() as tx:
            tx.clear(game)

    # -- question suites -------------------------------------------------------------
    def save_answers(self, suite: str, agent_id: str, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        now = time.time()
        with self._write_lock, self.engine.begin() as conn:
            conn.execute(delete(suite_answers).where(
                suite_answers.c.suite == suite, suite_answers.c.agent_id == agent_id,
                suite_answers.c.item_id.in_([r["item_id"] for r in rows])))
            conn.execute(insert(suite_answers), [
                {"suite": suite, "agent_id": agent_id, "created_at": now, **r} for r in rows])

    def answers(self, suite: str, agent_id: str | None = None) -> list[dict[str, Any]]:
        """The answers given (a question to retry is none: see `to_retry`)."""
        query = select(suite_answers).where(suite_answers.c.suite == suite, suite_answers.c.retryable == 0)
        if agent_id is not None:
            query = query.where(suite_answers.c.agent_id == agent_id)
        with self.engine.connect() as conn:
            return [dict(r) for r in conn.execute(query.order_by(suite_answers.c.agent_id,
                                                                 suite_answers.c.item_id)).mappings()]

    def answered(self, suite: str, agent_id: str) -> set[str]:
        """The questions an agent answered (not those to retry): a resumed run skips them."""
        query = select(suite_answers.c.item_id).where(suite_answers.c.suite == suite,
                                                     suite_answers.c.agent_id == agent_id,
                                                     suite_answers.c.retryable == 0)
        with self.engine.connect() as conn:
            return {r[0] for r in conn.execute(query)}

    def to_retry(self, suite: str) -> dict[str, set[str]]:
        """agent -> the questions whose call failed for infrastructure reasons, to ask again."""
        query = select(suite_answers.c.agent_id, suite_answers.c.item_id).where(
            suite_answers.c.suite == suite, suite_answers.c.retryable == 1)
        out: dict[str, set[str]] = {}
        with self.engine.connect() as conn:
            for agent_id, item_id in conn.execute(query):
                out.setdefault(agent_id, set()).add(item_id)
        return out

    def retry_reasons(self, suite: str, agent_id: str) -> dict[str, str]:
        """The questions to ask `agent_id` again (see `to_retry`), each with why its call failed."""
        query = select(suite_answers.c.item_id, suite_answers.c.detail).where(
            suite_answers.c.suite == suite, suite_answers.c.agent_id == agent_id, suite_answers.c.retryable == 1)
        with self.engine.connect() as conn:
            return {item_id: detail or "" for item_id, detail in conn.execute(query)}

    def forget_answers(self, suite: str, agent_id: str) -> None:
        with self._write_lock, self.engine.begin() as conn:
            conn.execute(delete(suite_answers).where(suite_answers.c.suite == suite,
                                                     suite_answers.c.agent_id == agent_id))

    def suites_answered(self) -> list[tuple[str, str, int]]:
        """(suite, agent, answers) for every suite an agent answered."""
        query = select(suite_answers.c.suite, suite_answers.c.agent_id, func.count()).where(
            suite_answers.c.retryable == 0).group_by(
            suite_answers.c.suite, suite_answers.c.agent_id)
        with self.engine.connect() as conn:
            return [(s, a, int(n)) for s, a, n in conn.execute(query)]


    # -- judges' verdicts -------------------------------------------------------------
    def save_verdicts(self, rows: list[dict[str, Any]]) -> None:
        """Store verdicts ({match_id, seat, score, item, judge, value, fallback}); a verdict
        given again by the same judge replaces the old one."""
        if not rows:
            return
        now = time.time()
        keys = ("match_id", "seat", "score", "item", "judge")
        with self._write_lock, self.engine.begin() as conn:
            for r in rows:
                conn.execute(delete(judge_verdicts).where(*(judge_verdicts.c[k] == r[k] for k in keys)))
            conn.execute(insert(judge_verdicts), [{"fallback": "", "created_at": now, **r} for r in rows])

    def verdicts(self, match_ids: Sequence[str] | None = None, judge: str | None = None) -> list[dict[str, Any]]:
        query = select(judge_verdicts)
        if match_ids is not None:
            query = query.where(judge_verdicts.c.match_id.in_(list(match_ids)))
        if judge is not None:
            query = query.where(judge_verdicts.c.judge == judge)
        with self.engine.connect() as conn:
            return [dict(r) for r in conn.execute(query).mappings()]

    def verdict_judges(self) -> list[str]:
        """Every judge that has a stored verdict."""
        with self.engine.connect() as conn:
            return sorted(r[0] for r in conn.execute(select(judge_verdicts.c.judge).distinct()))


DERIVED_LOCK = 0x4152_454E_4144_4552  # PostgreSQL advisory lock of derived writes, same in every process
CLAIM_LOCK = 0x4152_454E_4143_4C4D  # PostgreSQL advisory lock of claims and leases, same in every process


def _serialise_writes(conn: Any) -> None:
    """Take the database's write lock at the start of a read-then-write transaction, so two
    processes claiming one id, or counting leases against a cap, cannot both read the same
    state and both write (SQLite: its one write lock; PostgreSQL: an advisory lock held to
    the end of the transaction)."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({CLAIM_LOCK})")
    elif conn.dialect.name == "sqlite":
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def _serialise_derived(conn: Any) -> None:
    """Derived writes read the running totals and the next order, then write them back: two
    processes doing that at once would lose an update. Take the database's own lock first
    (SQLite: its one write lock, at once rather than at the first write; PostgreSQL: an
    advisory lock held to the end of the transaction)."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({DERIVED_LOCK})")
    elif conn.dialect.name == "sqlite":
        conn.exec_driver_sql("BEGIN IMMEDIATE")


class DerivedWriter:
    """Reads and writes of derived data inside one `Store.deriving()` transaction."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def next_order(self) -> int:
        return int(self.conn.execute(select(func.max(matches.c.rated))).scalar() or 0) + 1

    def unrated(self, match_id: str) -> bool:
        """Whether the match has no records yet and is not marked underivable: read inside
        the lock, so a writer that finds it unrated is the one that rates it."""
        return self.conn.execute(select(matches.c.rated).where(matches.c.id == match_id)).scalar() == 0

    def clear(self, game: str) -> None:
        """A game's records, totals and ratings dropped, and its matches unrated."""
        self.conn.execute(delete(seat_records).where(seat_records.c.game == game))
        self.conn.execute(delete(agent_totals).where(agent_totals.c.game == game))
        self.conn.execute(delete(ratings).where(ratings.c.game == game))
        self.conn.execute(update(matches).where(matches.c.game == game).values(rated=0))

    def tallies(self, game: str, pool: str, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], dict]:
        wanted = set(keys)
        agents_of = {a for a, _ in wanted}
        if not agents_of:
            return {}
        rows = self.conn.execute(select(agent_totals.c.agent_id, agent_totals.c.role, agent_totals.c.tally).where(
            agent_totals.c.game == game, agent_totals.c.pool == pool, agent_totals.c.agent_id.in_(agents_of)))
        return {(a, r): t for a, r, t in rows if (a, r) in wanted}

    def put_tallies(self, game: str, pool: str, items: dict[tuple[str, str], dict]) -> None:
        if not items:
            return
        # one statement for every key (executemany), not one compiled delete per key
        self.conn.execute(delete(agent_totals).where(
            agent_totals.c.game == game, agent_totals.c.pool == pool,
            agent_totals.c.agent_id == bindparam("a"), agent_totals.c.role == bindparam("r")),
            [{"a": a, "r": r} for a, r in items])
        self.conn.execute(insert(agent_totals), [
            {"game": game, "pool": pool, "agent_id": a, "role": r, "tally": t} for (a, r), t in items.items()])

    def skills(self, game: str, pool: str, system: str, subjects: Iterable[str]) -> dict[str, tuple[float, float, int]]:
        wanted = list(set(subjects))
        if not wanted:
            return {}
        rows = self.conn.execute(select(ratings.c.subject, ratings.c.mu, ratings.c.sigma, ratings.c.matches).where(
            ratings.c.game == game, ratings.c.pool == pool, ratings.c.system == system,
            ratings.c.subject.in_(wanted)))
        return {s: (mu, sigma, n) for s, mu, sigma, n in rows}

    def put_skills(self, game: str, pool: str, system: str, items: dict[str, tuple[float, float, int]]) -> None:
        if not items:
            return
        self.conn.execute(delete(ratings).where(
            ratings.c.game == game, ratings.c.pool == pool, ratings.c.system == system,
            ratings.c.subject.in_(list(items))))
        self.conn.execute(insert(ratings), [
            {"game": game, "pool": pool, "system": system, "subject": s, "mu": mu, "sigma": sigma, "matches": n}
            for s, (mu, sigma, n) in items.items()])

    def put_records(self, match_id: str, game: str, tag: str, order: int, rows: list[dict[str, Any]]) -> None:
        if rows:
            self.conn.execute(insert(seat_records), [
                {"match_id": match_id, "game": game, "tag": tag, "rated": order, **row} for row in rows])
        self.mark(match_id, order)

    def mark(self, match_id: str, order: int) -> None:
        self.conn.execute(update(matches).where(matches.c.id == match_id).values(rated=order))

    def put_many_records(self, game: str, items: list[tuple[str, str, int, list[dict[str, Any]]]]) -> None:
        """Many matches' records at once (a rebuild): (match_id, tag, order, rows) each."""
        rows = [{"match_id": m, "game": game, "tag": tag, "rated": order, **row}
                for m, tag, order, part in items for row in part]
        for i in range(0, len(rows), 5000):
            self.conn.execute(insert(seat_records), rows[i:i + 5000])
        marks = [{"match": m, "order": order} for m, _, order, _ in items]
        if marks:
            self.conn.execute(update(matches).where(matches.c.id == bindparam("match"))
                              .values(rated=bindparam("order")), marks)


