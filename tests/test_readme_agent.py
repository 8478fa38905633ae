"""The agent from the README's "Build your agent" section, taken from the README itself,
is at most 20 lines and answers all three verbs through RemoteAgent on loopback."""

from __future__ import annotations

import re
from pathlib import Path

from sdk import Observation, RemoteAgent

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_agent_code() -> str:
    section = README.read_text(encoding="utf-8").split("## Build your agent in five minutes", 1)[1]
    blocks = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    code = next(b for b in blocks if "def llm_caller" in b)
    return "\n".join(line[3:] if line.startswith("   ") else line for line in code.splitlines())


def test_readme_agent_is_short_and_plays_every_verb(launch):
    code = readme_agent_code()
    assert len([ln for ln in code.splitlines() if ln.strip()]) <= 20
    # `my_model` stands for the author's model: a tiny deterministic one here
    namespace: dict = {"__name__": "readme_agent",
                       "my_model": lambda messages: "It is warm. Final answer: P2"}
    exec(compile(code, "README.md", "exec"), namespace)
    url = launch(namespace["app"])
    remote = RemoteAgent(url, timeout=10)
    seats = ["P1", "P2", "P3"]
    speak = Observation(game="spy", verb="speak", you="P1", seats=seats, instruction="Describe it.")
    vote = Observation(game="spy", verb="vote", you="P1", seats=seats, options=["P2", "P3"],
                       instruction="Vote.")
    answer = Observation(game="tom", verb="answer", you="P1", options=["A", "B"], instruction="A or B?")
    assert remote.act(speak).text == "It is warm. Final answer: P2"
    assert remote.act(vote).text == "P2"
    # the reply names neither option, so it comes back as it is (never silently repaired)
    assert remote.act(answer).text == "It is warm. Final answer: P2"
    assert remote.info()["name"] == "my-agent"
    remote.close()
