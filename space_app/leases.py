"""Leases on running matches, so several arena replicas on one database act as one arena.

Every running match has a row in `match_leases` naming the replica (process) that plays it,
the visitor it counts against and when the lease expires. The replica renews its leases on a
heartbeat (`ARENA_HEARTBEAT_SECONDS`, default 5) to `ARENA_LEASE_SECONDS` (default 30) ahead.
So, across processes and machines, without host or PID checks:

- the caps are counted in the database: admission (`take`) counts the unexpired leases that
  count against the caps inside one locked transaction, so two replicas cannot both take the
  last slot. Every match played for a visitor holds one (a single match, an agent call, each
  match or question of a batch: `space_app.admission.MatchSlots` takes them), and so does each
  batch call (`take_call`: a visitor has at most as many as match slots);
- a match is cancelled from any replica: `request_cancel` marks its lease, and the heartbeat
  of the replica playing it sees the mark and stops the match there (`on_cancel`);
- a replica that dies stops renewing: once its leases expire, whichever replica's heartbeat
  sees them first marks their matches aborted (`reap`);
- a planned match is played once: a claim finds the other replica's live lease (`holder`);
- a batch's played match keeps its lease until its command marks it ended: the worker that
  played it renews it, and the command takes it over (`adopt`) as the outcome comes back.
  So every running match that someone is playing or about to mark holds a live lease, and a
  running match without one is nobody's (`Store.abort_running` marks it aborted).

The heartbeat is a daemon thread, started by the first lease a process takes (an app, a CLI
run, a batch worker: whoever plays matches renews them) and stopped with the store.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Mapping
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field, ValidationError, model_validator
from sqlalchemy import delete, func, insert, select, update

# what a lease counts against (`match_leases.capped`)
UNCAPPED = 0  # a match's own lease (a batch's, a CLI run's) or a duty: nothing
MATCH = 1  # a slot: ARENA_MAX_MATCHES and ARENA_MAX_MATCHES_PER_VISITOR
CALL = 2  # a visitor's batch call (a comparison, a study, a benchmark): their batch calls


class LeaseStore(Protocol):
    """What leases need of the store that keeps them (`space_app.store.Store`)."""

    engine: Any
    _write_lock: Any

    def lease_schema(self) -> tuple[Any, Any, Callable[[Any], None]]:
        """The lease table, the matches table and the transaction's write lock."""
        ...

log = logging.getLogger(__name__)
ABORTED_LEASE = "its replica stopped renewing its lease (the process died or lost the database)"


class LeaseSettings(BaseModel):
    """How long a lease lasts, and how often a replica renews its own."""

    seconds: float = Field(default=30.0, gt=0, description="ARENA_LEASE_SECONDS: a lease's life")
    heartbeat: float = Field(default=5.0, gt=0, description="ARENA_HEARTBEAT_SECONDS: how often leases are renewed")

    @model_validator(mode="after")
    def _renewed_in_time(self) -> LeaseSettings:
        if self.heartbeat >= self.seconds:
            raise ValueError(f"ARENA_HEARTBEAT_SECONDS ({self.heartbeat:g}) must be shorter than "
                             f"ARENA_LEASE_SECONDS ({self.seconds:g}), or leases expire between renewals")
        return self

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> LeaseSettings:
        values: dict[str, Any] = {}
        for field, name in (("seconds", "ARENA_LEASE_SECONDS"), ("heartbeat", "ARENA_HEARTBEAT_SECONDS")):
            raw = (environ.get(name) or "").strip()
            if raw:
                try:
                    values[field] = float(raw)
                except ValueError:
                    raise ValueError(f"{name} must be a number of seconds, got {raw!r}") from None
        try:
            return cls(**values)
        except ValidationError as exc:
            first = exc.errors()[0]
            name = {"seconds": "ARENA_LEASE_SECONDS", "heartbeat": "ARENA_HEARTBEAT_SECONDS"}.get(
                str(first["loc"][0]) if first["loc"] else "", "")
            reason = str(first["msg"]).removeprefix("Value error, ")  # a validator's own message, as written
            raise ValueError(f"{name + ': ' if name else ''}{reason}") from None


class Leases:
    """One process's leases on one store (`Store.leases`)."""

    def __init__(self, store: LeaseStore, settings: LeaseSettings | None = None) -> None:
        self.store = store
        # the store's lease and match tables and its write lock, handed over by the store (it
        # owns the schema; this module only reads and writes the rows)
        self.table, self.matches, self.serialise = store.lease_schema()
        self.settings = settings or LeaseSettings.from_env()
        self.replica = uuid.uuid4().hex[:16]  # this process, for as long as its store is open
        self.on_cancel: list[Callable[[str], None]] = []  # called with each key someone asked to cancel
        self.on_beat: list[Callable[[], None]] = []  # called after each heartbeat (slots freed elsewhere)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()

    def _expiry(self) -> float:
        return time.time() + self.settings.seconds

    # -- taking and dropping --------------------------------------------------------
    def take(self, key: str, visitor: str, *, total: int, per_visitor: int,
             refuse: Callable[..., Exception]) -> None:
        """A lease counted against the caps for a match (or call) about to start, or `refuse`d
        with whose limit was reached: at most `total` such leases live in the whole database
        and `per_visitor` of them for one visitor, whichever replica holds them."""
        now = time.time()
        with self.store._write_lock, self.store.engine.begin() as conn:
            self.serialise(conn)
            self._check_room(conn, now, total, refuse)
            mine = self._live(conn, MATCH, now, visitor)
            if mine >= per_visitor:
                raise refuse(f"You already have {mine} matches running (limit {per_visitor}); "
                             "wait for one to finish.", "your_matches", running=mine, limit=per_visitor)
            self._insert(conn, key, visitor, MATCH, now)
        self.start()

    def take_call(self, key: str, visitor: str, *, limit: int, total: int,
                  refuse: Callable[..., Exception]) -> None:
        """A lease for a visitor's batch call (its matches take slots of their own), or
        `refuse`d: the visitor has `limit` batch calls live already, on any replica, or the
        arena runs `total` matches."""
        now = time.time()
        with self.store._write_lock, self.store.engine.begin() as conn:
            self.serialise(conn)
            calls = self._live(conn, CALL, now, visitor)
            if calls >= limit:
                raise refuse(f"You already have {calls} comparisons, studies or benchmarks running "
                             f"(limit {limit}); wait for one to finish.", "your_batches", running=calls, limit=limit)
            self._check_room(conn, now, total, refuse)
            self._insert(conn, key, visitor, CALL, now)
        self.start()

    def _check_room(self, conn: Any, now: float, total: int, refuse: Callable[..., Exception]) -> None:
        """`refuse`d when the arena runs `total` matches already, on every replica together."""
        running = self._live(conn, MATCH, now)
        if running >= total:
            raise refuse(f"The arena is running {running} matches, its limit; try again in a minute.",
                         "arena_full", total=running)

    def _live(self, conn: Any, capped: int, now: float, visitor: str | None = None) -> int:
        live = (self.table.c.capped == capped) & (self.table.c.expires_at >= now)
        if visitor is not None:
            live = live & (self.table.c.visitor == visitor[:100])
        return int(conn.execute(select(func.count()).where(live)).scalar_one())

    def _insert(self, conn: Any, key: str, visitor: str, capped: int, now: float) -> None:
        conn.execute(delete(self.table).where(self.table.c.key == key, self.table.c.expires_at < now))
        conn.execute(insert(self.table).values(key=key, replica=self.replica, visitor=visitor[:100],
                                                 capped=capped, expires_at=self._expiry()))

    def count(self, visitor: str | None = None) -> int:
        """Matches running now against the caps, on every replica (`visitor`: theirs)."""
        with self.store.engine.connect() as conn:
            return self._live(conn, MATCH, time.time(), visitor)

    def hold(self, conn: Any, key: str, visitor: str) -> None:
        """Inside a match's creating transaction: its lease, unless admission took one."""
        # a dead replica's expired lease on this key (a planned match played again) gives way
        conn.execute(delete(self.table).where(self.table.c.key == key, self.table.c.expires_at < time.time()))
        held = conn.execute(select(self.table.c.replica).where(self.table.c.key == key)).first()
        if held is None:
            conn.execute(insert(self.table).values(key=key, replica=self.replica, visitor=(visitor or "")[:100],
                                                     capped=UNCAPPED, expires_at=self._expiry()))
        self.start()

    def adopt(self, conn: Any, key: str) -> None:
        """Inside a transaction: `key`'s lease made this replica's (a batch's driver taking
        over a match its worker played), kept as it was otherwise; a lost one is given again."""
        row = conn.execute(select(self.table.c.visitor, self.table.c.capped).where(self.table.c.key == key)).first()
        conn.execute(delete(self.table).where(self.table.c.key == key))
        conn.execute(insert(self.table).values(key=key, replica=self.replica, visitor=row.visitor if row else "",
                                                 capped=row.capped if row else UNCAPPED, expires_at=self._expiry()))
        self.start()

    def claim(self, key: str) -> bool:
        """A lease on a named duty (e.g. "sync:restore") if no live replica holds it: True
        when this replica has it now. Kept while this process lives (the heartbeat renews it)."""
        now = time.time()
        with self.store._write_lock, self.store.engine.begin() as conn:
            self.serialise(conn)
            conn.execute(delete(self.table).where(self.table.c.key == key, self.table.c.expires_at < now))
            row = conn.execute(select(self.table.c.replica).where(self.table.c.key == key)).first()
            if row is not None:
                return row.replica == self.replica
            conn.execute(insert(self.table).values(key=key, replica=self.replica, visitor="", capped=UNCAPPED,
                                                     expires_at=self._expiry()))
        self.start()
        return True

    def holder(self, conn: Any, key: str) -> Literal["here", "elsewhere", "expired"] | None:
        """Who holds `key`'s lease: this replica, another one whose lease is live, one whose
        lease expired (a dead replica), or nobody (None)."""
        row = conn.execute(select(self.table.c.replica, self.table.c.expires_at)
                           .where(self.table.c.key == key)).first()
        if row is None:
            return None
        if row.replica == self.replica:
            return "here"
        return "elsewhere" if row.expires_at >= time.time() else "expired"

    def release(self, key: str) -> None:
        with self.store._write_lock, self.store.engine.begin() as conn:
            conn.execute(delete(self.table).where(self.table.c.key == key,
                                                    self.table.c.replica == self.replica))

    # -- cancelling from anywhere ----------------------------------------------------
    def request_cancel(self, key: str, visitor: str) -> Literal["requested", "not_yours", "none"]:
        """Ask the replica playing `key` to stop it (its heartbeat will): only the visitor it
        counts against may."""
        with self.store._write_lock, self.store.engine.begin() as conn:
            row = conn.execute(select(self.table.c.visitor).where(
                self.table.c.key == key, self.table.c.capped == MATCH,
                self.table.c.expires_at >= time.time())).first()
            if row is None:
                return "none"
            if row.visitor != visitor:
                return "not_yours"
            conn.execute(update(self.table).where(self.table.c.key == key).values(cancel_requested=1))
        return "requested"

    # -- the heartbeat -------------------------------------------------------------------
    def renew(self) -> list[str]:
        """Push this replica's leases forward; returns those someone asked to cancel."""
        mine = select(self.table.c.key, self.table.c.cancel_requested).where(self.table.c.replica == self.replica)
        with self.store.engine.connect() as conn:
            held = conn.execute(mine).all()
        if not held:  # a read only: an idle replica takes no write lock every beat
            return []
        with self.store._write_lock, self.store.engine.begin() as conn:
            conn.execute(update(self.table).where(self.table.c.replica == self.replica)
                         .values(expires_at=self._expiry()))
        return [key for key, cancel in held if cancel]

    def reap(self) -> list[str]:
        """Matches whose lease expired (their replica died) marked aborted, and the expired
        leases dropped; returns the matches aborted."""
        now = time.time()
        expired = select(self.table.c.key).where(self.table.c.expires_at < now)
        with self.store.engine.connect() as conn:
            if conn.execute(expired.limit(1)).first() is None:
                return []
        with self.store._write_lock, self.store.engine.begin() as conn:
            self.serialise(conn)  # read again under the lock: one replica reaps each
            keys = [k for (k,) in conn.execute(expired)]
            if not keys:
                return []
            running = [m for (m,) in conn.execute(select(self.matches.c.id).where(
                self.matches.c.id.in_(keys), self.matches.c.status == "running"))]
            if running:
                conn.execute(update(self.matches).where(self.matches.c.id.in_(running)).values(
                    status="aborted", error=ABORTED_LEASE, finished_at=now))
            conn.execute(delete(self.table).where(self.table.c.key.in_(keys), self.table.c.expires_at < now))
        if running:
            log.warning("marked %d matches of a replica that stopped aborted: %s", len(running), ", ".join(running))
        return running

    def beat(self) -> None:
        """One heartbeat: renew, pass on cancel requests, reap expired leases, then tell the
        `on_beat` listeners (slots waiting for one another replica freed try again)."""
        for key in self.renew():
            for listener in list(self.on_cancel):
                try:
                    listener(key)
                except Exception:  # noqa: BLE001 - a listener never stops the heartbeat
                    log.exception("cancel listener %r failed for %s", listener, key)
        self.reap()
        for beat in list(self.on_beat):
            try:
                beat()
            except Exception:  # noqa: BLE001 - the next beat tries again
                log.exception("heartbeat listener %r failed", beat)

    def start(self) -> None:
        """Start the heartbeat (once). Held weakly: a store nobody uses any more is not kept."""
        with self._start_lock:
            if self._thread is not None or self._stop.is_set():
                return
            self._thread = threading.Thread(target=_heartbeat, args=(weakref.ref(self), self._stop,
                                                                      self.settings.heartbeat),
                                            name="arena-lease-heartbeat", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop the heartbeat and give up this replica's leases (the store is closing)."""
        self._stop.set()
        if self._thread is None:
            return
        try:
            with self.store._write_lock, self.store.engine.begin() as conn:
                conn.execute(delete(self.table).where(self.table.c.replica == self.replica))
        except Exception:  # noqa: BLE001 - a database already gone: the leases expire by themselves
            log.debug("could not drop the leases of %s at close", self.replica)


def _heartbeat(ref: weakref.ref[Leases], stop: threading.Event, every: float) -> None:
    while not stop.wait(every):
        leases = ref()
        if leases is None:
            return
        try:
            leases.beat()
        except Exception as exc:  # noqa: BLE001 - a database away for a moment: try again next beat
            log.warning("lease heartbeat failed (%s); retrying", str(exc).splitlines()[0] if str(exc) else exc)
        del leases


__all__ = ["ABORTED_LEASE", "CALL", "MATCH", "UNCAPPED", "LeaseSettings", "Leases"]
