"""Docs with parts generated from the code (column tables, message examples): rewrite them,
or only check that they are current (tests call the check, so a page cannot drift)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path


def refresh(page: Path, render: Callable[[str], str], command: str, check: bool) -> int:
    """Render `page` again; with `check`, exit code 1 (and say so) when it is out of date,
    else write it. `command` is what regenerates it, named in the message."""
    old = page.read_text(encoding="utf-8")
    new = render(old)
    if check:
        if new != old:
            print(f"{page} is out of date: run {command}", file=sys.stderr)
            return 1
        return 0
    if new != old:
        page.write_text(new, encoding="utf-8")
    print(f"{page}: {'updated' if new != old else 'up to date'}")
    return 0


__all__ = ["refresh"]
