"""Keep the arena's records in a Hugging Face dataset repo, because a Space's disk
is ephemeral.

Writing: finished matches and registry changes are appended, one JSON line each, to
files in a local folder (`matches/<utc-date>-<random8>.jsonl`,
`agents/<utc-date>-<random8>.jsonl`; every process writes its own files, so two
processes never overwrite each other). A `huggingface_hub.CommitScheduler` uploads
changed files every few minutes. Agent lines carry the public fields only, never the
secret.

Reading: `restore()` reads every file of the dataset at start, imports the matches
the store does not have yet (same ids, same events and seq) and applies the registry
records in the order they were recorded (the latest wins). Bad lines are counted and skipped; restoring twice
leaves the store as restoring once.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from huggingface_hub import CommitScheduler, HfApi
from sqlalchemy import update

from .store import Store
from .store import agents as agents_table

log = logging.getLogger(__name__)

KINDS = ("matches", "agents")
REQUIRED_AGENT_FIELDS = ("id", "name", "kind")


def _utc_date(now: float | None = None) -> str:
    return datetime.fromtimestamp(time.time() if now is None else now, tz=UTC).strftime("%Y-%m-%d")


class RecordSync:
    def __init__(self, store: Store, repo_id: str, *, token: str | None = None,
                 folder: str | Path = "data/sync", every_minutes: float = 5.0,
                 hf_api: Any = None, fs: Any = None) -> None:
        self.store = store
        self.repo_id = repo_id
        self.token = token
        self.folder = Path(folder)
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
        line = json.dumps(record, ensure_ascii=False, sort_keys=True, default=str)
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

    def _lines(self, kind: str, counts: dict[str, int]) -> list[tuple[str, int, dict[str, Any]]]:
        """(file, line number, record) of every well-formed line of every file of `kind`."""
        out = []
        for path in self._files_of(kind, counts):
            try:
                text = self.fs.read_text(path, encoding="utf-8")
            except Exception as exc:  # noqa: BLE001
                log.warning("cannot read %s: %s", path, exc)
                counts["unreadable_files"] += 1
                continue
            counts["files"] += 1
            for lineno, line in enumerate(text.splitlines()):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    record = None
                if not isinstance(record, dict) or not record.get("id"):
                    log.warning("skipping a malformed line %s:%d", path, lineno + 1)
                    counts["skipped"] += 1
                    continue
                out.append((str(path), lineno, record))
        return out

    def restore(self) -> dict[str, int]:
        """Bring the dataset's matches and registry into the store. Never raises."""
        counts = {"files": 0, "unreadable_files": 0, "skipped": 0, "matches": 0,
                  "matches_known": 0, "agents": 0, "agents_inactive": 0}
        invalidate = getattr(self.fs, "invalidate_cache", None)
        if callable(invalidate):
            invalidate()  # HfFileSystem caches listings per instance
        for path, lineno, record in self._lines("matches", counts):
            try:
                if self.store.import_match(record):
                    counts["matches"] += 1
                else:
                    counts["matches_known"] += 1
            except Exception as exc:  # noqa: BLE001
                log.warning("skipping match line %s:%d: %s", path, lineno + 1, exc)
                counts["skipped"] += 1
        latest: dict[str, dict[str, Any]] = {}
        agent_lines = self._lines("agents", counts)
        # file names order by date only, so order by the recording time (then file, line)
        agent_lines.sort(key=lambda t: (float(t[2].get("recorded_at") or 0.0)
                                        if isinstance(t[2].get("recorded_at"), (int, float)) else 0.0,
                                        t[0], t[1]))
        for path, lineno, record in agent_lines:
            if any(not record.get(k) for k in REQUIRED_AGENT_FIELDS):
                log.warning("skipping agent line %s:%d: missing fields", path, lineno + 1)
                counts["skipped"] += 1
                continue
            latest[str(record["id"])] = record
        for agent_id, record in latest.items():
            try:
                self._apply_agent(agent_id, record)
            except Exception as exc:  # noqa: BLE001
                log.warning("skipping agent record %s: %s", agent_id, exc)
                counts["skipped"] += 1
                continue
            counts["agents"] += 1
            if not record.get("active", True):
                counts["agents_inactive"] += 1
        log.info("restored from %s: %s", self.repo_id, counts)
        return counts

    def _apply_agent(self, agent_id: str, record: dict[str, Any]) -> None:
        local = self.store.get_agent(agent_id)
        info = dict(record.get("info") or {}) if isinstance(record.get("info"), dict) else {}
        src = str(record.get("src") or "")
        # the store drops a secret whose agent now points elsewhere; the owner re-enters it
        keeps_secret = local is not None and local["has_secret"] and local["src"] == src
        if keeps_secret:
            info.pop("needs_secret", None)
        elif record.get("has_secret") or (local is not None and local["has_secret"]):
            info["needs_secret"] = True  # the owner must give the secret again
        self.store.upsert_agent(
            agent_id, name=str(record["name"]), kind=str(record["kind"]), src=src,
            secret=None, owner=str(record.get("owner") or ""),
            description=str(record.get("description") or ""),
            games=list(record.get("games") or []), info=info)
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


def sync_for(store: Store, config: Any, *, hf_api: Any = None, fs: Any = None) -> RecordSync | None:
    """The RecordSync an ArenaConfig asks for (None without `dataset_repo`), already restored.
    A dataset that cannot be reached is logged and the arena starts without it."""
    if not config.dataset_repo:
        return None
    database = store.engine.url.database if store.engine.dialect.name == "sqlite" else None
    folder = Path(database).parent / "sync" if database and database != ":memory:" else Path("data/sync")
    try:
        sync = RecordSync(store, config.dataset_repo, token=config.dataset_token, folder=folder,
                          hf_api=hf_api, fs=fs)
    except Exception:  # noqa: BLE001
        log.exception("cannot reach the dataset %s; records stay on this disk only", config.dataset_repo)
        return None
    try:
        sync.restore()
    except Exception:  # noqa: BLE001 - restore() catches its own errors; this is the last guard
        log.exception("restoring from %s failed; starting with this disk's records", config.dataset_repo)
    return sync
