"""docs/api.md: every named endpoint has an example, and the examples run as written
against the real arena and an SDK agent, both on loopback (only their addresses change)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

from browser_support import running_arena
from gradio_client import Client

from space_app.config import ArenaConfig

ROOT = Path(__file__).resolve().parents[1]
API_DOC = ROOT / "docs" / "api.md"
ARENA_URL, AGENT_URL = "http://127.0.0.1:7860/", "http://127.0.0.1:7861/"


def snippets() -> list[str]:
    return re.findall(r"```python\n(.*?)```", API_DOC.read_text(encoding="utf-8"), re.S)


def rule_agent_app() -> Any:
    spec = importlib.util.spec_from_file_location("api_doc_rule_agent", ROOT / "example_agents/rule_agent/app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.app


def test_every_snippet_runs_against_a_local_arena(tmp_path, launch, capsys):
    config = ArenaConfig(db=str(tmp_path / "arena.db"), demo_matches=0, allow_private_urls=True)
    agent_url = launch(rule_agent_app())
    with running_arena(config) as (_, url):
        named = Client(url, verbose=False).view_api(print_info=False, return_format="dict")["named_endpoints"]
        text = API_DOC.read_text(encoding="utf-8")
        missing = [name for name in named if f'api_name="{name}"' not in text]
        assert not missing, f"endpoints without an example in docs/api.md: {missing}"

        scope: dict[str, Any] = {"__name__": "api_doc"}
        # one pass: the servers' real ports may be each other's documented ones
        live = {AGENT_URL: agent_url, ARENA_URL: url}
        for i, code in enumerate(snippets()):
            code = re.sub("|".join(map(re.escape, live)), lambda m: live[m.group(0)], code)
            exec(compile(code, f"docs/api.md (example {i + 1})", "exec"), scope)
    assert scope["match"]["status"] == "finished"
    assert scope["got"]["status"] == "ok" and scope["got"]["read_as"] in ("P2", "P3")
    assert scope["mine"] and scope["mine"][0]["id"] == scope["match"]["match_id"]  # found by name
    assert f"?match={scope['match']['match_id']}" in capsys.readouterr().out
    assert scope["health"]["running"] is True and scope["health"]["samples"] > 0  # started with the server


def test_the_page_links_to_the_api_docs_and_does_not_hide_them():
    from space_app.ui import i18n
    from space_app.ui.common import CSS

    app_source = (ROOT / "space_app" / "ui" / "app.py").read_text(encoding="utf-8")
    assert '"app.header"' in app_source  # the page header, worded in every language
    assert all("(?view=api)" in i18n.text(code, "app.header") for code in i18n.LANGUAGES)
    assert "footer" not in CSS  # Gradio's "Use via API" link lives in the footer
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/api.md" in readme and "docs/build-an-agent.md" in readme
