"""About tab: each game's rules, scoring and how to build an agent."""

from __future__ import annotations

from pathlib import Path

import gradio as gr

from ..games import GAMES

DOCS = Path(__file__).resolve().parents[2] / "docs"


def build_about_tab() -> None:
    pages = [spec.rules_doc for spec in GAMES.values() if spec.rules_doc is not None]
    for path in [*pages, DOCS / "scoring.md", DOCS / "build-an-agent.md"]:
        if path.is_file():
            gr.Markdown(path.read_text(encoding="utf-8"))
