"""A test run leaves the checkout as it was: the README's pictures in docs/screenshots/ are
rewritten only by `python -m pytest --refresh-doc-screenshots`; every run's screenshots go to
test-artifacts/."""

from __future__ import annotations

import os
from pathlib import Path

import browser_support
import pytest


class Page:
    """Stands in for a Playwright page: writes a file where it is told to."""

    def screenshot(self, path: str, full_page: bool = False) -> None:
        Path(path).write_bytes(b"full" if full_page else b"viewport")


@pytest.fixture
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    artifacts, docs = tmp_path / "test-artifacts", tmp_path / "docs"
    monkeypatch.setattr(browser_support, "SCREENSHOTS", artifacts)
    monkeypatch.setattr(browser_support, "DOC_SCREENSHOTS", docs)
    return artifacts, docs


def test_a_plain_run_writes_only_test_artifacts(folders, monkeypatch):
    artifacts, docs = folders
    monkeypatch.delenv(browser_support.REFRESH_DOCS, raising=False)
    browser_support.screenshot(Page(), "play-desktop", docs=True)
    assert sorted(p.name for p in artifacts.iterdir()) == ["play-desktop-viewport.png", "play-desktop.png"]
    assert not docs.exists()


def test_asking_for_it_refreshes_the_readme_pictures(folders, monkeypatch):
    artifacts, docs = folders
    monkeypatch.setenv(browser_support.REFRESH_DOCS, "1")
    browser_support.screenshot(Page(), "play-desktop", docs=True)
    assert (docs / "play-desktop.png").read_bytes() == b"viewport"
    assert (artifacts / "play-desktop.png").read_bytes() == b"full"


def test_the_command_line_option_turns_the_refresh_on(monkeypatch):
    import conftest

    class Config:
        def __init__(self, on: bool) -> None:
            self.on = on

        def getoption(self, name: str) -> bool:
            assert name == "--refresh-doc-screenshots"
            return self.on

    monkeypatch.delenv(browser_support.REFRESH_DOCS, raising=False)
    conftest.pytest_configure(Config(False))
    assert browser_support.REFRESH_DOCS not in os.environ
    conftest.pytest_configure(Config(True))
    assert os.environ[browser_support.REFRESH_DOCS] == "1"
