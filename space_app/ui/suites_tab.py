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
from .i18n import Interface, normal, refusal, text

RESULT_COLUMNS = ["agent", "answered", "accuracy %", "95% interval", "unparsed %", "timeouts/errors %", "to retry",
                  "people"]


def keyframes_html(images: list[str], caption: str) -> str:
    """A question's keyframes in order, each numbered (the API passes only inline PNG data URLs)."""
    shown = [f"<figure class='da-keyframe'><img src='{url}' alt='{caption} {n}' width='480'>"
             f"<figcaption>{caption} {n}</figcaption></figure>" for n, url in enumerate(images, start=1)]
    return f"<div class='da-images' id='quiz-frames'>{''.join(shown)}</div>" if shown else ""


def _pct(value: float | None) -> float | None:
    return None if value is None else round(100 * value, 1)


def _interval(r: dict[str, Any], key: str) -> str:
    low, high = r.get(f"{key}_low"), r.get(f"{key}_high")
    return "-" if low is None else f"[{100 * low:.1f}, {100 * high:.1f}]"


def results_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame([{"agent": r["agent"], "answered": r["answered"], "accuracy %": _pct(r["accuracy"]),
                          "95% interval": _interval(r, "accuracy"), "unparsed %": _pct(r["unparsed_rate"]),
                          "timeouts/errors %": _pct(r["failed_rate"]), "to retry": r.get("to_retry", 0),
                          "people": r.get("people")}
                         for r in rows], columns=RESULT_COLUMNS)


def types_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    out = [{"agent · type": f"{r['agent']} · {t}", "type": t, "accuracy": round(s["accuracy"] or 0.0, 3)}
           for r in rows for t, s in r["by_type"].items()]
    return pd.DataFrame(out, columns=["agent · type", "type", "accuracy"])


def suite_markdown(suite_id: str, lang: str = "en") -> str:
    """The suite as it describes itself (its own words), and how to regenerate it or bring one."""
    s = SUITES[suite_id]
    out = text(lang, "suites.about", title=s.title, describe=s.describe, types=", ".join(s.types))
    if s.regenerate:  # a suite built when opened has no shipped file: the command writes the same items
        key = "suites.regenerate" if s.path is not None else "suites.regenerate_built"
        out = text(lang, key, text=out, command=s.regenerate)
    return text(lang, "suites.own_suite", text=out)


def build_suites_tab(api: ArenaAPI, words: Interface, language: gr.Radio) -> dict[str, Any]:
    first = next(iter(SUITES))
    with gr.Row():
        suite = words(gr.Dropdown(choices=[(s.title, s.id) for s in SUITES.values()], value=first,
                                  label=text("en", "suites.suite"), elem_id="suite-pick"), label="suites.suite")
        agent = words(gr.Dropdown(choices=api.seat_choices(SUITES[first].game), value="house:guess",
                                  label=text("en", "suites.agent"), allow_custom_value=True), label="suites.agent")
        limit = words(gr.Slider(0, 600, value=30, step=10, label=text("en", "suites.questions"),
                                elem_id="suite-questions"),
                      label="suites.questions")
        run = words(gr.Button(text("en", "suites.run"), variant="primary", elem_id="run-suite"), value="suites.run")
    # a registered agent's owner redoes its benchmark from scratch (e.g. after a fix)
    fresh = words(gr.Checkbox(False, label=text("en", "suites.fresh"), elem_id="suite-fresh"), label="suites.fresh")
    about = gr.Markdown(suite_markdown(first))  # worded by `load` when the tab opens
    status = gr.Markdown("", elem_id="suite-status")
    table = words(gr.Dataframe(results_frame([]), interactive=False, elem_id="suite-results",
                               label=text("en", "suites.results")), label="suites.results")
    chart = words(gr.BarPlot(types_frame([]), x="agent · type", y="accuracy", color="type", y_lim=[0, 1],
                             title=text("en", "suites.chart_title"), x_label_angle=-30), title="suites.chart_title")

    def load(suite_id: str, lang: str | None = None):
        rows = api.benchmark_results(suite_id)
        return suite_markdown(suite_id, normal(lang)), results_frame(rows), types_frame(rows)

    def pick_suite(suite_id: str, current: str, lang: str):
        """The suite's results, and the agents that answer its game's questions."""
        choices = api.seat_choices(SUITES[suite_id].game)
        value = current if current in choices else next(iter(choices), None)
        return (*load(suite_id, lang), gr.update(choices=choices, value=value))

    async def go(suite_id: str, agent_id: str, n: float, afresh: bool, lang: str, request: gr.Request):
        try:
            visitor = visitor_of(request, api.config.trusted_proxy_hops, None)
            scores = await api.run_benchmark(suite_id, agent_id, int(n), visitor=visitor,
                                             signed_in=signed_in(visitor, api.config.on_space), fresh=bool(afresh))
        except ApiError as exc:
            raise gr.Error(refusal(lang, exc)) from exc
        rows = api.benchmark_results(suite_id)
        lang = normal(lang)
        msg = text(lang, "suites.scored", agent=markdown_text(scores["agent"]), answered=scores["answered"],
                   accuracy=_pct(scores["accuracy"]), interval=_interval(scores, "accuracy"),
                   unparsed=_pct(scores["unparsed_rate"]))
        if afresh:
            msg += text(lang, "suites.forgotten")
        if scores.get("to_retry"):
            msg += text(lang, "suites.to_retry", count=scores["to_retry"])
        return msg, results_frame(rows), types_frame(rows)

    with words(gr.Accordion(text("en", "suites.quiz_box"), open=False, elem_id="quiz"), label="suites.quiz_box"):
        words(gr.Markdown(text("en", "suites.quiz_intro")), value="suites.quiz_intro")
        quiz_state = gr.State(None)  # (item id, the time it was shown)
        quiz_start = words(gr.Button(text("en", "suites.quiz_start"), elem_id="quiz-start"), value="suites.quiz_start")
        quiz_text = gr.Markdown("", elem_id="quiz-question")
        quiz_frames = gr.HTML("", elem_id="quiz-keyframes")
        quiz_choice = words(gr.Radio([], label=text("en", "suites.your_answer"), elem_id="quiz-choice"),
                            label="suites.your_answer")
        quiz_send = words(gr.Button(text("en", "suites.answer"), variant="primary", elem_id="quiz-answer"),
                          value="suites.answer")
        quiz_feedback = gr.Markdown("", elem_id="quiz-feedback")

    def ask(suite_id: str, lang: str, request: gr.Request):
        """The next question (the suite's own words) under a heading in the page's language."""
        lang = normal(lang)
        q = api.quiz_question(suite_id, visitor_of(request, api.config.trusted_proxy_hops, None))
        if q["item_id"] is None:
            return None, text(lang, "suites.all_answered", answered=q["answered"]), \
                gr.update(choices=[], value=None), ""
        heading = text(lang, "suites.question", number=q["answered"] + 1, types=markdown_text(", ".join(q["types"])))
        shown = f"{heading}\n\n{markdown_text(q['context'])}\n\n**{markdown_text(q['question'])}**"
        choices = [(f"{label}) {option}", label) for label, option in q["options"].items()]
        return (q["item_id"], time.monotonic()), shown, gr.update(choices=choices, value=None), \
            keyframes_html(q["images"], text(lang, "suites.keyframe"))

    def answer(suite_id: str, state: Any, label: str | None, lang: str, request: gr.Request):
        lang = normal(lang)
        if not state:
            raise gr.Error(text(lang, "suites.start_first"))
        if not label:
            raise gr.Error(text(lang, "suites.pick_option"))
        item_id, shown = state
        verdict = api.quiz_answer(suite_id, item_id, label, time.monotonic() - shown,
                                  visitor_of(request, api.config.trusted_proxy_hops, None))
        said = (text(lang, "suites.right") if verdict["correct"] else
                text(lang, "suites.wrong", label=verdict["answer"], text=markdown_text(verdict["answer_text"])))
        nxt_state, nxt_text, nxt_choices, nxt_frames = ask(suite_id, lang, request)
        rows = api.benchmark_results(suite_id)
        return said, nxt_state, nxt_text, nxt_choices, nxt_frames, results_frame(rows), types_frame(rows)

    quiz_start.click(ask, [suite, language], [quiz_state, quiz_text, quiz_choice, quiz_frames],
                     api_visibility="private")
    quiz_send.click(answer, [suite, quiz_state, quiz_choice, language],
                    [quiz_feedback, quiz_state, quiz_text, quiz_choice, quiz_frames, table, chart],
                    api_visibility="private")
    suite.change(pick_suite, [suite, agent, language], [about, table, chart, agent], api_visibility="private")
    run.click(go, [suite, agent, limit, fresh, language], [status, table, chart], api_visibility="private")
    return {"load": load, "inputs": [suite, language], "outputs": [about, table, chart]}
