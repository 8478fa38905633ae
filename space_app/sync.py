"""Keep the arena's records in a Hugging Face dataset repo, because a Space's disk
is ephemeral.

Writing: finished matches and registry changes are appended, one signed JSON line each
(`signed_records`: an HMAC under a key that never leaves the arena), to files in a local folder
(`matches/<utc-date>-<random8>.jsonl`, `agents/<utc-date>-<random8>.jsonl`; every process
writes its own files, so two processes never overwrite each other). A
`huggingface_hub.CommitScheduler` uploads changed files every few minutes. Agent lines carry
the public fields only, never the secret.

Several replicas on one database (`space_app/leases.py`): each appends the matches it ended
to its own files, and the first to start restores the dataset into the database (it holds the
"sync:restore" lease while it lives; one starting meanwhile skips the restore).

Reading: `restore()` reads every file of the dataset at start and takes only lines that verify
under the arena's key (unsigned lines too when the operator trusts them once, which signs them
again); the rest are refused and counted by reason. It imports the matches the store does not
have yet (same ids, same events and seq; one restored as running is aborted) and applies the
registry records in the order they were recorded (the latest wins), held to registration's
checks and never changing the owner of an agent this store has. Restoring twice leaves the
store as restoring once.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from huggingface_hub import CommitScheduler, HfApi
from sqlalchemy import update

from .registry import restored_entry
from .safe_text import clean_name
from .signed_records import RecordSigner, signer_for
from .store import Store
from .store import agents as agents_table

log = logging.getLogger(__name__)

KINDS = ("matches", "agents")
REQUIRED_AGENT_FIELDS = ("id", "name", "kind")
# why a line is refused, as the restore report names it
REASONS = {"unreadable": "unreadable", "unsigned": "unsigned", "bad_signature": "bad signature",
           "other_key": "signed with another key", "owner_changed": "would change an agent's owner",
           "invalid": "fails registration's checks or cannot be stored"}
RESTORE_DUTY = "sync:restore"  # the lease of the replica that restores a shared database
ABORTED_ON_RESTORE = "restored from the records dataset while it was still running; its process is gone"


def _utc_date(now: float | None = None) -> str:
    return datetime.fromtimestamp(time.time() if now is None else now, tz=UTC).strftime("%Y-%m-%d")


def new_report() -> dict[str, int]:
    """A restore's counts: what came in, and every refused line by reason (`refused` is their sum)."""
    return {"files": 0, "unreadable_files": 0, "matches": 0, "matches_known": 0, "matches_aborted": 0,
            "agents": 0, "agents_inactive": 0, "agents_repaired": 0, "adopted_unsigned": 0, "refused": 0,
            **{reason: 0 for reason in REASONS}}


def report_line(counts: dict[str, int]) -> str:
    refused = ", ".join(f"{counts[r]} {what}" for r, what in REASONS.items() if counts.get(r))
    return (f"{counts['matches']} new matches ({counts['matches_known']} already here, "
            f"{counts['matches_aborted']} aborted), {counts['agents']} agents "
            f"({counts['agents_repaired']} repaired), {counts['adopted_unsigned']} unsigned lines adopted; "
            f"refused {counts['refused']} lines" + (f": {refused}" if refused else ""))


class RecordSync:
    def __init__(self, store: Store, repo_id: str, *, signer: RecordSigner, trust_unsigned: bool = False,
                 token: str | None = None, folder: str | Path = "data/sync", every_minutes: float = 5.0,
                 hf_api: Any = None, fs: Any = None) -> None:
        self.store = store
        self.repo_id = repo_id
        self.token = token
        self.signer = signer
        self.trust_unsigned = trust_unsigned  # the operator's one-time leave to adopt unsigned lines
        self.folder = Path(folder)
        self.last_restore: dict[str, int] | None = None
        self._fs = fs
        self._files: dict[str, tuple[str, Path]] = {}  # kind -> (utc date, local file)
        self.scheduler = CommitScheduler(repo_id=repo_id, repo_type="dataset", folder_path=self.folder,
                                         every=every_minutes, private=True,
                                         hf_api=hf_api or HfApi(token=token))

    # -- writing ---------------------------------------------------------------------
    def _file(self, kind: str) -> Path:
        """This process's file for `kind` and today (UTC); a new one each day keeps files small.
        Called under the scheduler's lock."""
        today = _utc_date()
        current = self._files.get(kind)
        if current is None or current[0] != today:
            path = self.scheduler.folder_path / kind / f"{today}-{secrets.token_hex(4)}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            current = self._files[kind] = (today, path)
        return current[1]

    def _append(self, kind: str, record: dict[str, Any]) -> None:
        line = self.signer.line(kind, record)
        with self.scheduler.lock:
            with self._file(kind).open("a", encoding="utf-8") as f:
                f.write(line + "\n")

    def record_match(self, match_id: str) -> bool:
        """Append a finished match (row, seats, every event) to this process's match file."""
        try:
            match = self.store.get_match(match_id)
            if match is None:
                return False
            self._append("matches", match)
            return True
        except Exception:  # noqa: BLE001 - the match itself is in the store; say so and go on
            log.exception("could not record match %s for the dataset", match_id)
            return False

    def record_agent(self, agent_id: str) -> bool:
        """Append the agent's current public registry entry (never its secret)."""
        try:
            row = self.store.get_agent(agent_id)  # without the secret
            if row is None:
                return False
            record = {k: v for k, v in row.items() if k != "secret"}
            record["active"] = bool(row.get("active"))
            record["has_secret"] = bool(row.get("has_secret"))
            record["recorded_at"] = time.time()
            self._append("agents", record)
            return True
        except Exception:  # noqa: BLE001
            log.exception("could not record agent %s for the dataset", agent_id)
            return False

    def flush(self) -> Any:
        """Upload what changed now and wait for it."""
        return self.scheduler.trigger().result()

    def stop(self, *, flush: bool = False) -> None:
        """Stop the scheduler (it cannot be restarted); with `flush`, upload the rest first."""
        if flush:
            self.flush()
        self.scheduler.stop()

    # -- reading ---------------------------------------------------------------------
    @property
    def fs(self) -> Any:
        if self._fs is None:
            from huggingface_hub import HfFileSystem

            self._fs = HfFileSystem(token=self.token)
        return self._fs

    def _files_of(self, kind: str, counts: dict[str, int]) -> list[str]:
        pattern = f"datasets/{self.repo_id}/{kind}/*.jsonl"
        try:
            return sorted(self.fs.glob(pattern))
        except FileNotFoundError:
            return []
        except Exception as exc:  # noqa: BLE001 - a start without the history beats no start
            log.warning("cannot list %s: %s", pattern, exc)
            counts["unreadable_files"] += 1
            return []

    @staticmethod
    def _refuse(counts: dict[str, int], reason: str, per_file: Counter[str] | None = None) -> None:
        counts[reason] += 1
        counts["refused"] += 1
        if per_file is not None:
            per_file[reason] += 1

    def _lines(self, kind: str, counts: dict[str, int]) -> list[tuple[str, int, dict[str, Any], str]]:
        """(file, line number, record, origin) of every line of `kind` that may be restored:
        origin 'dataset' for a line that verifies under the arena's key, 'adopted' for an
        unsigned one the operator trusts. The rest are counted by reason, one log line a file."""
        out = []
        for path in self._files_of(kind, counts):
            try:
                text = self.fs.read_text(path, encoding="utf-8")
            except Exception as exc:  # noqa: BLE001
                log.warning("cannot read %s: %s", path, exc)
                counts["unreadable_files"] += 1
                continue
            counts["files"] += 1
            refused: Counter[str] = Counter()
            for lineno, line in enumerate(text.splitlines()):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except (ValueError, RecursionError):  # a line nested past the parser's depth too
                    record = None
                if not isinstance(record, dict) or not record.get("id"):
                    self._refuse(counts, "unreadable", refused)
                    continue
                check = self.signer.check(kind, record)
                if check == "unsigned" and self.trust_unsigned:
                    out.append((str(path), lineno, record, "adopted"))
                elif check == "verified":
                    record.pop("_sig", None)
                    out.append((str(path), lineno, record, "dataset"))
                else:
                    self._refuse(counts, check, refused)
            if refused:
                log.warning("%s: refused %d lines (%s)", path, sum(refused.values()),
                            ", ".join(f"{n} {REASONS[r]}" for r, n in refused.items()))
        return out

    def restore(self) -> dict[str, int]:
        """Bring the dataset's matches and registry into the store. Never raises; returns the
        counts (also kept in `last_restore` and logged)."""
        counts = new_report()
        invalidate = getattr(self.fs, "invalidate_cache", None)
        if callable(invalidate):
            invalidate()  # HfFileSystem caches listings per instance
        if self.trust_unsigned:
            log.warning("ARENA_TRUST_UNSIGNED_RECORDS is set: unsigned dataset lines are adopted and signed "
                        "again; unset it once this start has synced")
        resign_matches: list[str] = []
        match_lines = self._lines("matches", counts)
        signed_ids = {str(r["id"]) for _, _, r, origin in match_lines if origin == "dataset"}
        for path, lineno, record, origin in match_lines:
            try:
                record, aborted = self._restorable_match(record)
                if self.store.import_match(record, origin=origin):
                    counts["matches"] += 1
                    counts["matches_aborted"] += aborted
                    counts["adopted_unsigned"] += origin == "adopted"
                else:
                    counts["matches_known"] += 1
            except Exception as exc:  # noqa: BLE001
                log.warning("refusing match line %s:%d: %s", path, lineno + 1, exc)
                self._refuse(counts, "invalid")
                continue
            if origin == "adopted" and str(record["id"]) not in signed_ids:
                resign_matches.append(str(record["id"]))  # the dataset has no signed copy yet
        resign_agents = self._restore_agents(counts)
        for match_id in dict.fromkeys(resign_matches):
            self.record_match(match_id)
        for agent_id in resign_agents:
            self.record_agent(agent_id)
        self.last_restore = counts
        line = report_line(counts)
        if counts["other_key"]:
            line += (f" (this arena's key is {self.signer.key_id}; if the key that wrote them was lost with the "
                     "disk, set ARENA_RECORDS_KEY to it and restart)")
        (log.warning if counts["refused"] else log.info)("restored from %s: %s", self.repo_id, line)
        return counts

    @staticmethod
    def _restorable_match(record: dict[str, Any]) -> tuple[dict[str, Any], int]:
        """The record as it is stored here: seat names cleaned as every shown name is, and a
        match still running when it was written marked aborted (nothing will finish it)."""
        record = dict(record)
        record["seats"] = [{**s, "agent_name": clean_name(s.get("agent_name") or s.get("agent_id"), 200)}
                           if isinstance(s, dict) else s for s in record.get("seats") or []]
        if record.get("status") != "running":
            return record, 0
        record.update(status="aborted", error=ABORTED_ON_RESTORE,
                      finished_at=record.get("finished_at") or time.time())
        return record, 1

    def _restore_agents(self, counts: dict[str, int]) -> list[str]:
        """Apply the latest accepted line of each agent; the ids of adopted ones, to sign again."""
        latest: dict[str, tuple[dict[str, Any], str]] = {}
        signed: set[str] = set()
        agent_lines = self._lines("agents", counts)
        # file names order by date only, so order by the recording time (then file, line)
        agent_lines.sort(key=lambda t: (float(t[2].get("recorded_at") or 0.0)
                                        if isinstance(t[2].get("recorded_at"), (int, float)) else 0.0,
                                        t[0], t[1]))
        for path, lineno, record, origin in agent_lines:
            if any(not record.get(k) for k in REQUIRED_AGENT_FIELDS):
                log.warning("refusing agent line %s:%d: missing fields", path, lineno + 1)
                self._refuse(counts, "invalid")
                continue
            latest[str(record["id"])] = (record, origin)
            if origin == "dataset":
                signed.add(str(record["id"]))
        adopted = []
        for agent_id, (record, origin) in latest.items():
            local = self.store.get_agent(agent_id)
            owner = str(record.get("owner") or "")
            if local is not None and local["owner"] != owner:
                log.warning("refusing agent record %s: it names %r as owner; this arena has %r",
                            agent_id, owner, local["owner"])
                self._refuse(counts, "owner_changed")
                continue
            try:
                entry = restored_entry(record)
                self._apply_agent(agent_id, record, entry, local)
            except Exception as exc:  # noqa: BLE001 - RegistrationError, or a row the store refuses
                log.warning("refusing agent record %s: %s", agent_id, exc)
                self._refuse(counts, "invalid")
                continue
            counts["agents"] += 1
            counts["agents_repaired"] += (entry["name"], entry["description"]) != (
                record.get("name"), record.get("description") or "")
            if not record.get("active", True):
                counts["agents_inactive"] += 1
            if origin == "adopted":
                counts["adopted_unsigned"] += 1
                if agent_id not in signed:
                    adopted.append(agent_id)
        return adopted

    def _apply_agent(self, agent_id: str, record: dict[str, Any], entry: dict[str, Any],
                     local: dict[str, Any] | None) -> None:
        info = dict(entry["info"])
        src = entry["src"]
        # the store drops a secret whose agent now points elsewhere; the owner re-enters it
        keeps_secret = local is not None and local["has_secret"] and local["src"] == src
        if keeps_secret:
            info.pop("needs_secret", None)
        elif record.get("has_secret") or (local is not None and local["has_secret"]):
            info["needs_secret"] = True  # the owner must give the secret again
        self.store.upsert_agent(
            agent_id, name=entry["name"], kind=entry["kind"], src=src, secret=None,
            owner=str(record.get("owner") or ""), description=entry["description"],
            games=entry["games"], info=info)
        if not record.get("active", True):
            self.store.deactivate_agent(agent_id)
        if local is None:  # new here: keep its history, not the time of the restore
            values = {k: record[k] for k in ("created_at", "last_seen")
                      if isinstance(record.get(k), (int, float))}
            values.update({k: int(record[k]) for k in ("calls", "failures")
                           if isinstance(record.get(k), int)})
            if values:
                with self.store._write_lock, self.store.engine.begin() as conn:
                    conn.execute(update(agents_table).where(agents_table.c.id == agent_id).values(**values))


def _database_dir(store: Store) -> str | None:
    return store.engine.url.database if store.engine.dialect.name == "sqlite" else None


def sync_for(store: Store, config: Any, *, hf_api: Any = None, fs: Any = None) -> RecordSync | None:
    """The RecordSync an ArenaConfig asks for (None without `dataset_repo`), already restored.
    A dataset that cannot be reached is logged and the arena starts without it; a records key
    that cannot be used stops the start with the reason (RecordsKeyError)."""
    if not config.dataset_repo:
        return None
    database = _database_dir(store)
    folder = Path(database).parent / "sync" if database and database != ":memory:" else Path("data/sync")
    key = config.records_key.get_secret_value() if config.records_key else None
    signer = signer_for(key, database)
    try:
        sync = RecordSync(store, config.dataset_repo, signer=signer, trust_unsigned=config.trust_unsigned_records,
                          token=config.dataset_token, folder=folder, hf_api=hf_api, fs=fs)
    except Exception:  # noqa: BLE001
        log.exception("cannot reach the dataset %s; records stay on this disk only", config.dataset_repo)
        return None
    # replicas on one database restore it once: the first to start holds the duty while it lives,
    # the others find the records in the database already
    if not store.leases.claim(RESTORE_DUTY):
        log.info("another replica on this database restores from %s; not restoring here", config.dataset_repo)
        return sync
    try:
        sync.restore()
    except Exception:  # noqa: BLE001 - restore() catches its own errors; this is the last guard
        log.exception("restoring from %s failed; starting with this disk's records", config.dataset_repo)
    return sync
