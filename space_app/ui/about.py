"""About tab: each game's rules (with its own scoring) and how to build an agent."""

from __future__ import annotations

from pathlib import Path

import gradio as gr

from ..core import GAMES
from .i18n import DEFAULT_LANGUAGE, Interface, text

DOCS = Path(__file__).resolve().parents[2] / "docs"


def build_about_tab(words: Interface) -> None:
    # the pages are the project's documentation (docs/*.md and each game's rules), written in
    # English and shown as they are in every page language; in another language a note says so
    words(gr.Markdown(text("en", "about.docs_note"), visible=False, elem_id="about-docs-note"),
          value="about.docs_note", visible=lambda lang: lang != DEFAULT_LANGUAGE)
    pages = [spec.rules.rules_doc for spec in GAMES.values() if spec.rules.rules_doc is not None]
    for path in [*pages, DOCS / "build-an-agent.md"]:
        if path.is_file():
            gr.Markdown(path.read_text(encoding="utf-8"))
