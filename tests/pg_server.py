"""A real PostgreSQL server for the tests: Debian's `postgresql` binaries, a cluster made
with initdb in a temporary directory, served on a loopback port, stopped at the end.

The server refuses to run as root, so under root (CI) the cluster belongs to the
`postgres` user the Debian package creates and every server command runs through
`runuser`. Each test asks for its own database (`database()`), created in milliseconds
from the server's template.
"""

from __future__ import annotations

import atexit
import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg

INSTALL_HINT = ("PostgreSQL's server binaries (initdb, pg_ctl) were not found. The store tests run "
                "against a real server: install Debian's package with `apt-get install -y postgresql` "
                "(or set ARENA_PG_BIN to the directory holding initdb).")
USER = "arena"


def bin_dir() -> Path | None:
    """Where initdb and pg_ctl are: ARENA_PG_BIN, Debian's versioned directory, or PATH."""
    candidates = [os.environ.get("ARENA_PG_BIN", "")]
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]), reverse=True)
    found = shutil.which("initdb")
    candidates.append(str(Path(found).parent) if found else "")
    for c in candidates:
        if c and (Path(c) / "initdb").is_file() and (Path(c) / "pg_ctl").is_file():
            return Path(c)
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    """One throw-away cluster. `start()` blocks until it accepts connections."""

    def __init__(self) -> None:
        found = bin_dir()
        if found is None:
            raise RuntimeError(INSTALL_HINT)
        self.bin = found
        self.as_root = os.geteuid() == 0
        # under /tmp, not pytest's tmp_path: the server's user must be able to reach it
        self.root = Path(tempfile.mkdtemp(prefix="arena-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self._names = itertools.count(1)

    def _run(self, *argv: str) -> None:
        cmd = [str(self.bin / argv[0]), *argv[1:]]
        if self.as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")

    def start(self, durable: bool = False) -> PostgresServer:
        """`durable`: the server's default fsync (benchmarks); tests turn it off."""
        self.data.mkdir()
        if self.as_root:
            os.chmod(self.root, 0o755)
            shutil.chown(self.data, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", USER, "-E", "UTF8", "--no-sync")
        self.options = f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 -c max_connections=200"
        if not durable:  # a throw-away cluster: the arena's durability is not what tests check
            self.options += " -c fsync=off"
        self._serve()
        atexit.register(self.stop)  # an interrupted run must not leave a server behind
        return self

    def _serve(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-o", self.options, "-l", str(self.data / "server.log"), "-w",
                  "start")

    def restart(self, down_seconds: float = 1.0) -> None:
        """Stop the server as a crash would (immediate: every connection cut, no checkpoint),
        leave it down a moment, and start it again on the same data and port."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        time.sleep(down_seconds)
        self._serve()

    def stop(self) -> None:
        if not self.root.exists():
            return
        try:
            if (self.data / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres", driver: str = "postgresql+psycopg") -> str:
        return f"{driver}://{USER}@127.0.0.1:{self.port}/{database}"

    def admin(self, sql: str) -> None:
        """One statement outside a transaction (CREATE/DROP DATABASE need that)."""
        with psycopg.connect(self.url(driver="postgresql"), autocommit=True) as conn:
            conn.execute(sql)

    def database(self, prefix: str = "t", template: str | None = None) -> str:
        """A new empty database (or a copy of `template`); returns its SQLAlchemy URL."""
        name = f"{prefix}_{next(self._names)}"
        if template:
            # a template must have no other session: end the ones left open by stores
            self.admin(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                       f"WHERE datname = '{template}' AND pid <> pg_backend_pid()")
            self.admin(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        else:
            self.admin(f'CREATE DATABASE "{name}"')
        return self.url(name)


def started_or_failed() -> PostgresServer:
    """A started server, or the test failed saying how to install the binaries."""
    import pytest

    try:
        return PostgresServer().start()
    except RuntimeError as exc:
        pytest.fail(str(exc), pytrace=False)
