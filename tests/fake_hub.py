"""A stand-in for the Hugging Face Hub in sync tests: an HfApi that CommitScheduler commits
through and the part of HfFileSystem that restore() reads, over one dict of uploaded files
(path in repo -> bytes). No network."""

from __future__ import annotations

import fnmatch
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from types import SimpleNamespace
from typing import Any

REPO = "me/arena-records"


class FakeHfApi:
    """What CommitScheduler calls on an HfApi; commits land in `files` (path_in_repo -> bytes)."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files
        self.commits = 0
        self.created: list[dict[str, Any]] = []
        self._serial = threading.Lock()  # the real run_as_future runs one job at a time

    def create_repo(self, repo_id: str, **kwargs: Any) -> SimpleNamespace:
        self.created.append({"repo_id": repo_id, **kwargs})
        return SimpleNamespace(repo_id=repo_id)

    def create_commit(self, repo_id: str, operations: list[Any], **kwargs: Any) -> SimpleNamespace:
        for op in operations:
            fileobj = op.path_or_fileobj
            if isinstance(fileobj, bytes):
                data = fileobj
            elif isinstance(fileobj, str):
                data = Path(fileobj).read_bytes()
            else:
                fileobj.seek(0)
                data = fileobj.read()
            self.files[op.path_in_repo] = data
        self.commits += 1
        return SimpleNamespace(oid=f"commit{self.commits}")

    def run_as_future(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Future:
        future: Future = Future()
        with self._serial:
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as exc:  # noqa: BLE001
                future.set_exception(exc)
        return future

    def super_squash_history(self, **kwargs: Any) -> None:
        pass


class FakeFs:
    """The part of HfFileSystem that restore() uses, over the same dict."""

    def __init__(self, files: dict[str, bytes], repo_id: str = REPO) -> None:
        self.files = files
        self.prefix = f"datasets/{repo_id}/"

    def glob(self, pattern: str, **kwargs: Any) -> list[str]:
        return [self.prefix + k for k in list(self.files) if fnmatch.fnmatch(self.prefix + k, pattern)]

    def read_text(self, path: str, encoding: str | None = None, **kwargs: Any) -> str:
        if not path.startswith(self.prefix) or path[len(self.prefix):] not in self.files:
            raise FileNotFoundError(path)
        return self.files[path[len(self.prefix):]].decode(encoding or "utf-8")
