"""Suites tab: run an agent over a question suite, and compare every agent that answered it
(accuracy with its 95% interval, per question type as a chart)."""

from __future__ import annotations

import time
from typing import Any

import gradio as gr
import pandas as pd

from ..api import ApiError, ArenaAPI
from ..safe_text import markdown_text
from ..suites import SUITES
from .common import signed_in, visitor_of

RESULT_COLUMNS = ["agent", "answered", "accuracy %", "95% interval", "unparsed %", "timeouts/errors %", "people"]


def _pct(value: float | None) -> float | None:
    return None if value is None else round(100 * value, 1)


def _interval(r: dict[str, Any], key: str) -> str:
    low, high = r.get(f"{key}_low"), r.get(f"{key}_high")
    return "-" if low is None else f"[{100 * low:.1f}, {100 * high:.1f}]"


def results_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame([{"agent": r["agent"], "answered": r["answered"], "accuracy %": _pct(r["accuracy"]),
                          "95% interval": _interval(r, "accuracy"), "unparsed %": _pct(r["unparsed_rate"]),
                          "timeouts/errors %": _pct(r["failed_rate"]), "people": r.get("people")}
                         for r in rows], columns=RESULT_COLUMNS)


def types_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    out = [{"agent · type": f"{r['agent']} · {t}", "type": t, "accuracy": round(s["accuracy"] or 0.0, 3)}
           for r in rows for t, s in r["by_type"].items()]
    return pd.DataFrame(out, columns=["agent · type", "type", "accuracy"])


def suite_markdown(suite_id: str) -> str:
    s = SUITES[suite_id]
    text = f"**{s.title}** — {s.describe}. Question types: {', '.join(s.types)}."
    if s.regenerate:
        text += f" Regenerate the shipped file byte-for-byte with `{s.regenerate}`."
    return text + (" Bring your own suite as a JSON Lines file: "
                   "`python -m space_app bench my_suite.jsonl --agent ...` (format: docs/suites.md).")


def build_suites_tab(api: ArenaAPI) -> dict[str, Any]:
    first = next(iter(SUITES))
    with gr.Row():
        suite = gr.Dropdown(choices=[(s.title, s.id) for s in SUITES.values()], value=first, label="Suite")
        agent = gr.Dropdown(choices=api.seat_choices(SUITES[first].game), value="house:guess", label="Agent",
                            allow_custom_value=True)
        limit = gr.Slider(0, 600, value=30, step=10, label="Questions (0 = all)")
        run = gr.Button("Run", variant="primary", elem_id="run-suite")
    about = gr.Markdown(suite_markdown(first))
    status = gr.Markdown("", elem_id="suite-status")
    table = gr.Dataframe(results_frame([]), interactive=False, elem_id="suite-results",
                         label="Every agent that answered this suite (stored answers; best first)")
    chart = gr.BarPlot(types_frame([]), x="agent · type", y="accuracy", color="type", y_lim=[0, 1],
                       title="Accuracy per question type", x_label_angle=-30)

    def load(suite_id: str):
        rows = api.benchmark_results(suite_id)
        return suite_markdown(suite_id), results_frame(rows), types_frame(rows)

    def pick_suite(suite_id: str, current: str):
        """The suite's results, and the agents that answer its game's questions."""
        choices = api.seat_choices(SUITES[suite_id].game)
        value = current if current in choices else next(iter(choices), None)
        return (*load(suite_id), gr.update(choices=choices, value=value))

    async def go(suite_id: str, agent_id: str, n: float, request: gr.Request):
        try:
            visitor = visitor_of(request, api.config.trusted_proxy_hops, None)
            scores = await api.run_benchmark(suite_id, agent_id, int(n), visitor=visitor,
                                             signed_in=signed_in(visitor, api.config.on_space))
        except ApiError as exc:
            raise gr.Error(str(exc)) from exc
        rows = api.benchmark_results(suite_id)
        msg = (f"**{scores['agent']}** answered {scores['answered']} questions: accuracy "
               f"{_pct(scores['accuracy'])}% {_interval(scores, 'accuracy')}, "
               f"unparsed {_pct(scores['unparsed_rate'])}%.")
        return msg, results_frame(rows), types_frame(rows)

    with gr.Accordion("Take the quiz yourself (the human baseline)", open=False, elem_id="quiz"):
        gr.Markdown("Answer questions of this suite as they come; your answers join the **people** row of "
                    "the table above (everyone who took the quiz, with how many people and answers).")
        quiz_state = gr.State(None)  # (item id, the time it was shown)
        quiz_start = gr.Button("Start the quiz", elem_id="quiz-start")
        quiz_text = gr.Markdown("", elem_id="quiz-question")
        quiz_choice = gr.Radio([], label="Your answer", elem_id="quiz-choice")
        quiz_send = gr.Button("Answer", variant="primary", elem_id="quiz-answer")
        quiz_feedback = gr.Markdown("", elem_id="quiz-feedback")

    def ask(suite_id: str, request: gr.Request):
        q = api.quiz_question(suite_id, visitor_of(request, api.config.trusted_proxy_hops, None))
        if q["item_id"] is None:
            return None, f"You have answered every question of this suite ({q['answered']}). Thank you!", \
                gr.update(choices=[], value=None)
        text = (f"**Question {q['answered'] + 1}** · {markdown_text(', '.join(q['types']))}\n\n"
                f"{markdown_text(q['context'])}\n\n**{markdown_text(q['question'])}**")
        choices = [(f"{label}) {option}", label) for label, option in q["options"].items()]
        return (q["item_id"], time.monotonic()), text, gr.update(choices=choices, value=None)

    def answer(suite_id: str, state: Any, label: str | None, request: gr.Request):
        if not state:
            raise gr.Error("press Start the quiz first")
        if not label:
            raise gr.Error("pick one of the options")
        item_id, shown = state
        verdict = api.quiz_answer(suite_id, item_id, label, time.monotonic() - shown,
                                  visitor_of(request, api.config.trusted_proxy_hops, None))
        said = ("✅ Right." if verdict["correct"] else
                f"❌ The answer was {verdict['answer']}) {markdown_text(verdict['answer_text'])}")
        nxt_state, nxt_text, nxt_choices = ask(suite_id, request)
        rows = api.benchmark_results(suite_id)
        return said, nxt_state, nxt_text, nxt_choices, results_frame(rows), types_frame(rows)

    quiz_start.click(ask, [suite], [quiz_state, quiz_text, quiz_choice], api_visibility="private")
    quiz_send.click(answer, [suite, quiz_state, quiz_choice],
                    [quiz_feedback, quiz_state, quiz_text, quiz_choice, table, chart], api_visibility="private")
    suite.change(pick_suite, [suite, agent], [about, table, chart, agent], api_visibility="private")
    run.click(go, [suite, agent, limit], [status, table, chart], api_visibility="private")
    return {"load": load, "inputs": [suite], "outputs": [about, table, chart]}
