"""Reference answerers for Theory-of-Mind suites on the embedded model (offline, no key):

- `house:direct-local`: asks for the letter and nothing else;
- `house:cot-local`: asks for step-by-step reasoning, then "Final answer: <letter>";
- `house:limp-local`: inverse planning (`inverse_planning.py`) on the model's exact token
  log-probabilities.

The first two are `LLMAgent`s with their own answer prompt; any `llm_caller` (e.g. an
OpenAI-compatible endpoint) gives the same two for another model.
"""

from __future__ import annotations

from collections.abc import Callable

from sdk import LLMAgent

from .inverse_planning import InversePlanningAgent

DIRECT_TEMPLATE = (
    "{private}\n\nQuestion: {instruction}\nOptions:\n{options_lines}\n"
    "Reply with the letter of the correct option only."
)
COT_TEMPLATE = (
    "{private}\n\nQuestion: {instruction}\nOptions:\n{options_lines}\n"
    "Think step by step about what each person saw, believes and wants, then end with a last line "
    "'Final answer: <letter>'."
)


def direct_agent(llm_caller: Callable, name: str) -> LLMAgent:
    agent = LLMAgent(llm_caller, name, verb_templates={"answer": DIRECT_TEMPLATE},
                         description="Asks the model for the letter directly.")
    agent.games = ("tom",)
    return agent


def cot_agent(llm_caller: Callable, name: str) -> LLMAgent:
    agent = LLMAgent(llm_caller, name, verb_templates={"answer": COT_TEMPLATE},
                         description="Asks the model to reason step by step, then for the letter.")
    agent.games = ("tom",)
    return agent


def direct_local() -> LLMAgent:
    from sdk import local_caller

    return direct_agent(local_caller(max_new_tokens=8), "house:direct-local")


def limp_local() -> InversePlanningAgent:
    """Inverse planning on the embedded model's exact token log-probabilities."""
    from sdk import local_scorer

    return InversePlanningAgent(local_scorer(), name="house:limp-local")


def cot_local() -> LLMAgent:
    from sdk import local_caller

    return cot_agent(local_caller(max_new_tokens=160), "house:cot-local")


__all__ = ["COT_TEMPLATE", "DIRECT_TEMPLATE", "cot_agent", "cot_local", "direct_agent", "direct_local", "limp_local"]
