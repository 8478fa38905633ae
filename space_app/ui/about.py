"""About tab: rules, scoring and how to build an agent."""

from __future__ import annotations

from pathlib import Path

import gradio as gr

DOCS = Path(__file__).resolve().parents[2] / "docs"


def build_about_tab() -> None:
    for name in ("rules-spy.md", "scoring.md", "build-an-agent.md"):
        path = DOCS / name
        if path.is_file():
            gr.Markdown(path.read_text(encoding="utf-8"))
