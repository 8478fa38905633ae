"""Docs with parts generated from the code (column tables, message examples, the module table):
rewrite them, or only check that they are current (tests call the check, so a page cannot drift).
Each generator uses these; `python -m space_app.regenerate` runs them all."""

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


def between_markers(page_name: Path, page: str, start: str, end: str, body: str) -> str:
    """`page` with what lies between its `start` and `end` markers replaced by `body`."""
    head, found, rest = page.partition(start)
    if not found or end not in rest:
        raise ValueError(f"{page_name}: the markers {start!r} … {end!r} are missing")
    _, _, tail = rest.partition(end)
    return f"{head}{start}\n{body}{end}{tail}"


def command(prog: str, doc: str | None, page: Path, render: Callable[[str], str], argv: list[str] | None) -> int:
    """The command line of one generated page: rewrite it, or `--check` it."""
    import argparse

    parser = argparse.ArgumentParser(prog=prog, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only say whether the page is up to date")
    args = parser.parse_args(argv)
    return refresh(page, render, prog, args.check)


__all__ = ["between_markers", "command", "refresh"]
