"""Authenticated dataset lines: an HMAC-SHA256 over each record's canonical bytes, under a key
that never leaves the arena.

Every record the arena writes to its records dataset is signed, so a restore can tell the
arena's own lines from lines made by anyone else with write access to the dataset.

A signed line is the record itself with one more field, `_sig`:
`"hmac-sha256:<key id>:<hex digest>"`. The digest covers the record's kind (`matches`,
`agents`) and its canonical JSON (keys sorted, no spaces, ASCII escapes), so a line moved to
another kind or edited in any value no longer verifies, while the dataset stays plain JSON
lines that any reader can load. The key id is a fingerprint of the key (an HMAC of a fixed
text), never the key: it lets a restore say "signed with another key" when the operator has
lost the key.

The key comes from `ARENA_RECORDS_KEY`; without it, one is generated at first start and kept in
`records.key` beside the database (mode 0600). It is never written to the dataset, a listing,
an export or a log.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import secrets
import stat
from pathlib import Path
from typing import Any, Literal

log = logging.getLogger(__name__)

SIGNATURE_FIELD = "_sig"
SCHEME = "hmac-sha256"
KEY_FILE = "records.key"
MIN_KEY_CHARS = 32
_DOMAIN = b"deduction-arena records v1\n"

Check = Literal["verified", "unsigned", "bad_signature", "other_key"]


class RecordsKeyError(ValueError):
    """The records key setting or file cannot be used."""


def canonical(kind: str, record: dict[str, Any]) -> bytes:
    """What the signature covers: the kind, then the record (without its signature) as
    compact, key-sorted, ASCII-escaped JSON. Parsing a line and canonicalising it again gives
    the same bytes, whatever spacing the line was written with."""
    body = {k: v for k, v in record.items() if k != SIGNATURE_FIELD}
    text = json.dumps(body, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
    return _DOMAIN + kind.encode("ascii") + b"\n" + text.encode("ascii")


def plain(record: dict[str, Any]) -> dict[str, Any]:
    """The record as a reader will parse it (tuples become lists, other values text), so
    what is signed is exactly what is read back."""
    return json.loads(json.dumps(record, default=str))


class RecordSigner:
    """Signs and checks dataset lines with one key."""

    def __init__(self, key: bytes) -> None:
        if len(key) < MIN_KEY_CHARS:
            raise RecordsKeyError(f"the records key must be at least {MIN_KEY_CHARS} characters")
        self._key = key
        self.key_id = hmac.new(key, b"deduction-arena records key id", hashlib.sha256).hexdigest()[:12]

    def __repr__(self) -> str:  # the key itself is never shown
        return f"RecordSigner(key id {self.key_id})"

    def _digest(self, kind: str, record: dict[str, Any]) -> str:
        return hmac.new(self._key, canonical(kind, record), hashlib.sha256).hexdigest()

    def line(self, kind: str, record: dict[str, Any]) -> str:
        """One signed JSON line (no newline) for `record`."""
        body = plain({k: v for k, v in record.items() if k != SIGNATURE_FIELD})
        body[SIGNATURE_FIELD] = f"{SCHEME}:{self.key_id}:{self._digest(kind, body)}"
        return json.dumps(body, ensure_ascii=False, sort_keys=True)

    def check(self, kind: str, record: dict[str, Any]) -> Check:
        """Whether a parsed line verifies under this key."""
        signature = record.get(SIGNATURE_FIELD)
        if signature is None:
            return "unsigned"
        parts = signature.split(":") if isinstance(signature, str) else []
        if len(parts) != 3 or parts[0] != SCHEME:
            return "bad_signature"
        if hmac.compare_digest(parts[2].encode("ascii", "replace"), self._digest(kind, record).encode("ascii")):
            return "verified"
        return "other_key" if parts[1] != self.key_id else "bad_signature"


def key_file_for(database: str | None) -> Path:
    """Where a generated key lives: beside a SQLite file, else in `data/` of the working
    directory (set ARENA_RECORDS_KEY for a server database, so every replica shares it)."""
    if database and database != ":memory:":
        return Path(database).expanduser().resolve().parent / KEY_FILE
    return Path("data").resolve() / KEY_FILE


def _read_key_file(path: Path) -> bytes:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:  # readable by others: take it back before using it
        log.warning("%s was readable by other users (mode %o); set to 0600", path, mode)
        path.chmod(0o600)
    key = path.read_bytes().strip()
    if len(key) < MIN_KEY_CHARS:
        raise RecordsKeyError(f"{path} holds no usable records key (fewer than {MIN_KEY_CHARS} characters); "
                              "remove it to have a new one generated, or set ARENA_RECORDS_KEY")
    return key


def load_or_create_key(path: Path) -> bytes:
    """The key kept in `path`, generated (0600) the first time. Two processes starting at once
    agree: the file appears whole or not at all (written aside, then linked into place)."""
    if path.exists():
        return _read_key_file(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    aside = path.with_name(f".{path.name}.{secrets.token_hex(6)}")
    fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(secrets.token_urlsafe(48).encode("ascii") + b"\n")
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(aside, path)
            log.info("generated a records key in %s; keep it across restarts as the ARENA_RECORDS_KEY secret",
                     path)
        except FileExistsError:
            pass  # another process made it first: use theirs
    finally:
        aside.unlink(missing_ok=True)
    return _read_key_file(path)


def signer_for(setting: str | None, database: str | None) -> RecordSigner:
    """The arena's signer: the ARENA_RECORDS_KEY setting when given, else the key file beside
    the database (generated at first start)."""
    if setting:
        return RecordSigner(setting.strip().encode("utf-8"))
    path = key_file_for(database)
    try:
        return RecordSigner(load_or_create_key(path))
    except OSError as exc:
        raise RecordsKeyError(f"cannot keep the records key in {path} ({exc.strerror or exc}); "
                              "set ARENA_RECORDS_KEY") from None


__all__ = ["RecordSigner", "RecordsKeyError", "canonical", "key_file_for", "load_or_create_key", "signer_for"]
