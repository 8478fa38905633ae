"""Helpers for the browser tests (not a test module): find Debian's Chromium and
launch it through Playwright, and run the arena in-process on loopback.

Chromium comes from the system package (`apt-get install -y chromium`), never from
`playwright install` (which downloads a browser and fails offline). If it is missing
and we are root with apt-get, it is installed once; otherwise the test fails with a
message naming the command: a browser test is never skipped silently.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
INSTALL_COMMAND = "apt-get update -qq && apt-get install -y -qq chromium"
# optional: without a colour emoji font the UI's icons are blank boxes in screenshots, and
# without a CJK font a Chinese page's text is (its tests read the text, not the pixels)
EMOJI_FONT_COMMAND = "apt-get install -y -qq fonts-noto-color-emoji fonts-wqy-microhei"
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
DOC_SCREENSHOTS = ROOT / "docs" / "screenshots"  # the README's pictures, refreshed only when asked
# set by `python -m pytest --refresh-doc-screenshots`: a plain test run leaves the checkout unchanged
REFRESH_DOCS = "ARENA_REFRESH_DOC_SCREENSHOTS"

_install_lock = threading.Lock()
_install_tried = False


def _installable() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get") is not None


def find_chromium() -> str:
    """The Chromium executable; installs the Debian package once if we can, else fails."""
    global _install_tried
    if CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK):
        return str(CHROMIUM)
    with _install_lock:
        if not CHROMIUM.is_file() and not _install_tried and _installable():
            _install_tried = True
            result = subprocess.run(["bash", "-c", INSTALL_COMMAND], capture_output=True, text=True,
                                    timeout=1800)
            if result.returncode != 0:
                pytest.fail(f"installing Chromium failed ({INSTALL_COMMAND}):\n"
                            f"{result.stdout[-2000:]}\n{result.stderr[-2000:]}", pytrace=False)
            subprocess.run(["bash", "-c", EMOJI_FONT_COMMAND], capture_output=True, timeout=600)
    if CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK):
        return str(CHROMIUM)
    pytest.fail(f"Chromium not found at {CHROMIUM}. Install it with: {INSTALL_COMMAND} "
                "(as root). Do not run `playwright install`.", pytrace=False)


@contextmanager
def chromium_browser() -> Iterator[Any]:
    """A Playwright Chromium browser (the system one), closed afterwards."""
    executable = find_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=LAUNCH_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def running_arena(config: Any, **launch_extra: Any) -> Iterator[tuple[Any, str]]:
    """Build the real arena with `config`, launch it on loopback, yield (blocks, base URL)."""
    from space_app.main import create_arena

    demo, launch_kwargs = create_arena(config)
    demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", server_port=None, quiet=True,
                **launch_kwargs, **launch_extra)
    try:
        yield demo, demo.local_url
    finally:
        demo.close()


def screenshot(page: Any, name: str, docs: bool = False, full_page: bool = True) -> Path:
    """Save a full-page screenshot to test-artifacts/screenshots/<name>.png; with `docs`, also
    what the visitor sees first (the viewport) to test-artifacts/screenshots/<name>-viewport.png,
    and to docs/screenshots/<name>.png for the README when the run was asked to refresh them."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    if docs:
        page.screenshot(path=str(SCREENSHOTS / f"{name}-viewport.png"))
    if docs and os.environ.get(REFRESH_DOCS) == "1":
        DOC_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(DOC_SCREENSHOTS / f"{name}.png"))
    return path
