"""Play tab: fill the seats, start, and watch the match stream live; optionally
take a seat yourself."""

from __future__ import annotations

import asyncio
import html
from typing import Any

import gradio as gr

from ..agents.human import HumanAgent
from ..api import RANDOM_FILL, ApiError, ArenaAPI
from ..games import GAMES
from ..runner import SeatAgent
from ..safe_text import markdown_text
from .common import visitor_of
from .replay import result_markdown, transcript_html, visible

HUMANS: dict[str, HumanAgent] = {}  # browser session -> the seat that person plays
LIVE: dict[str, str] = {}  # browser session -> the match it is playing (for Stop)


def _seed(value: str | float | None) -> int | None:
    text = str(value if value is not None else "").strip()
    if not text:
        return None
    try:
        return int(float(text))
    except ValueError:
        return abs(hash(text)) % (2**31)  # a word is a fine seed too


def _prompt_markdown(human: HumanAgent | None) -> str:
    obs = human.waiting if human else None
    if obs is None:
        return ""
    lines = [f"<div class='da-prompt'><b>Your turn, {html.escape(obs.you)}.</b> "
             f"{html.escape(obs.private.text)}<br>{html.escape(obs.instruction)}"]
    if obs.options:
        lines.append(f"<br>Options: <code>{html.escape(', '.join(obs.options))}</code>"
                     + (" or <code>abstain</code>" if obs.allow_abstain else ""))
    lines.append(f"<br><small>You have {obs.limits.seconds:g} s.</small></div>")
    return "".join(lines)


def build_play_tab(api: ArenaAPI, seat_dropdowns: list[gr.Dropdown]) -> dict[str, Any]:
    with gr.Row():
        with gr.Column(scale=2):
            game = gr.Dropdown(choices=[(g.title, g.id) for g in GAMES.values()], value="spy",
                               label="Game")
            with gr.Row():
                language = gr.Radio(["en", "zh"], value="en", label="Language")
                seed = gr.Textbox(value="", label="Seed (empty = random)", max_length=12,
                                  placeholder="random")
            with gr.Group():
                for i in range(6):
                    dd = gr.Dropdown(choices=[RANDOM_FILL, *api.seat_choices()],
                                     value="house:heuristic" if i % 2 == 0 else "house:random",
                                     label=f"Seat P{i + 1}", allow_custom_value=False)
                    seat_dropdowns.append(dd)
            take_seat = gr.Checkbox(label="Take seat P1 yourself", value=False, elem_id="take-seat")
            with gr.Row():
                start = gr.Button("Start match", variant="primary", elem_id="start-match", scale=3)
                stop = gr.Button("Stop", variant="stop", elem_id="stop-match", scale=1)
        with gr.Column(scale=3):
            status = gr.Markdown("Pick the seats and press **Start match**.", elem_id="play-status")
            transcript = gr.HTML(transcript_html([]), elem_id="live-transcript")
            prompt = gr.HTML("", elem_id="human-prompt")
            with gr.Row():
                reply = gr.Textbox(label="Your reply", placeholder="Your statement, or the player you vote for",
                                   scale=4, max_lines=3, max_length=400, elem_id="human-reply")
                send = gr.Button("Send", scale=1, elem_id="send-reply")
            result = gr.Markdown("", elem_id="play-result")

    # the six seats are named parameters: Gradio cannot inject `request` after `*args`
    async def run(game_id: str, lang: str, seed_value: str, take: bool, s1: str, s2: str,
                  s3: str, s4: str, s5: str, s6: str, request: gr.Request):
        rest = (s1, s2, s3, s4, s5, s6)
        visitor = visitor_of(request, api.config.trusted_proxy_hops)
        signed_in = visitor.startswith("user:") or not api.config.on_space
        req = {"game": game_id, "seats": [s or "" for s in rest],
               "seed": _seed(seed_value),
               "settings": {"language": lang}}
        try:
            plan = api.plan(req, owner=visitor, signed_in=signed_in)
        except ApiError as exc:
            yield f"⚠️ {markdown_text(exc)}", transcript_html([]), "", ""
            return
        human = None
        extra: dict[str, SeatAgent] = {}
        if take:
            human = HumanAgent(name=f"you ({visitor.split(':', 1)[-1][:12]})")
            HUMANS[request.session_hash or visitor] = human
            extra["P1"] = SeatAgent(human, "human", human.name, seconds=api.config.human_seconds)
        queue: asyncio.Queue = asyncio.Queue()
        events: list[dict[str, Any]] = []
        names: dict[str, str] = {}
        seat_view = "P1" if human else None
        task = asyncio.create_task(api.run_match(
            {}, visitor=visitor, plan=plan, extra_agents=extra,
            on_events=lambda items: queue.put_nowait(items)))
        match_id = plan.match_id
        session = request.session_hash or visitor
        LIVE[session] = match_id
        names = {seat: spec for seat, spec in zip([f"P{i + 1}" for i in range(len(plan.seats))],
                                                  plan.seats, strict=True)}
        if human is not None:
            names["P1"] = human.name
        yield "⏳ Starting…", transcript_html([]), "", ""
        try:
            while True:
                getter = asyncio.ensure_future(queue.get())
                done, _ = await asyncio.wait({getter, task}, timeout=0.5,
                                             return_when=asyncio.FIRST_COMPLETED)
                if getter in done:
                    for seq, e in getter.result():
                        events.append({"seq": seq, **e.to_dict()})
                else:
                    getter.cancel()
                public = [e for e in visible(events, seat_view)
                          if seat_view is not None or e["visible_to"] is None]
                head = f"🔴 Live — match `{match_id}`"
                yield head, transcript_html(public, names), _prompt_markdown(human), ""
                if task.done() and queue.empty():
                    break
            outcome = task.result()
        except ApiError as exc:
            yield f"⚠️ {markdown_text(exc)}", transcript_html([]), "", ""
            return
        finally:
            LIVE.pop(session, None)
            if human is not None:
                HUMANS.pop(request.session_hash or visitor, None)
        if outcome["status"] == "aborted":
            yield (f"⏹ Stopped — match `{match_id}`: {markdown_text(outcome['error'])}",
                   transcript_html(visible(api.get_match(match_id)["events"], seat_view), names), "", "")
            return
        match = api.store.get_match(outcome["match_id"])
        names = {s["seat"]: s["agent_name"] for s in match["seats"]}
        final_events = visible(match["events"], seat_view)
        link = f"?match={outcome['match_id']}"
        yield (f"✅ Finished — match `{outcome['match_id']}` · [open the replay]({link})",
               transcript_html(final_events, names), "", result_markdown(match))

    start.click(run, [game, language, seed, take_seat, *seat_dropdowns],
                [status, transcript, prompt, result], concurrency_limit=None,
                api_visibility="private")

    def stop_match(request: gr.Request) -> str:
        visitor = visitor_of(request, api.config.trusted_proxy_hops)
        match_id = LIVE.get(request.session_hash or visitor)
        if match_id is None:
            return "Nothing of yours is running."
        try:
            return f"⏹ {api.cancel_match(match_id, visitor)}…"
        except ApiError as exc:
            return f"⚠️ {markdown_text(exc)}"

    stop.click(stop_match, None, [status], concurrency_limit=None, api_visibility="private")

    def send_reply(text: str, request: gr.Request) -> tuple[str, str]:
        human = HUMANS.get(request.session_hash or visitor_of(request, api.config.trusted_proxy_hops))
        if human is None or not human.submit((text or "")[:400]):
            return text, "<i>Nothing is waiting for your reply right now.</i>"
        return "", "<i>Sent.</i>"

    send.click(send_reply, [reply], [reply, prompt], concurrency_limit=None, api_visibility="private")
    reply.submit(send_reply, [reply], [reply, prompt], concurrency_limit=None, api_visibility="private")
    return {"status": status}
