"""Play tab: fill the seats, start, and watch the match stream live; optionally
take a seat yourself."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import html
import json
from typing import Any

import gradio as gr
from anyio import to_thread

from sdk import Observation

from ..agents.catalogue import plays
from ..agents.human import HumanAgent, Question
from ..api import RANDOM_FILL, ApiError, ArenaAPI
from ..core import GAMES, GameSpec, get_game
from ..core.events import Event
from ..people import person_id
from ..runner import SeatAgent
from ..safe_text import clean_name, markdown_text
from ..sources import HUMAN, VISITOR
from .calls_view import seat_calls_html
from .common import front_game, game_choices, signed_in, visitor_of
from .documents import documents_html
from .i18n import LANGUAGES, Interface, normal, refusal, text
from .media import image_resolver
from .replay import game_result, transcript_html, visible

HUMANS: dict[str, HumanAgent] = {}  # browser session -> the seat that person plays
LIVE: dict[str, str] = {}  # browser session -> the match it is playing (for Stop)


def seed_of(value: str | float | None) -> int | None:
    """The seed a visitor typed: a number, a word (hashed stably), or None when empty."""
    text = str(value if value is not None else "").strip()
    if not text:
        return None
    try:
        return int(float(text))
    except ValueError:
        # a word is a fine seed too: hashed stably (Python's hash() of a string changes with
        # every process), so the same word gives the same match after a restart
        return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") % (2**31)


def _countdown(seconds: float | None, lang: str) -> str:
    if seconds is None:
        return ""
    whole = int(seconds + 0.999)  # 0.2 s left still reads 0:01: the turn is not over yet
    urgent = " da-urgent" if whole <= 15 else ""
    left = text(lang, "play.countdown", minutes=whole // 60, seconds=f"{whole % 60:02d}")
    return f"<span class='da-countdown{urgent}' id='human-countdown'>{left}</span>"


def turn_label(question: Question, lang: str) -> str:
    """Which turn this is, in words: 'Round 2 · your vote' ('your statement' where the game
    has no round)."""
    obs = question.obs
    parts = [text(lang, "play.turn_round", round=obs.round)] if obs.round is not None else []
    return " · ".join([*parts, text(lang, f"play.turn_{obs.verb}")])


def _prompt_html(question: Question | None, lang: str, note: str = "") -> str:
    """The open question with its turn (what it is and its id, which the page's reply
    carries back) and the person's own countdown (re-drawn with every live update), in the
    game's language; `note` goes above it (why a reply was not used)."""
    if question is None:
        return note
    obs = question.obs
    turn = html.escape(text(lang, "play.your_turn", seat=obs.you))
    data = {"turn": question.turn, "number": question.number, "verb": obs.verb, "phase": obs.phase,
            "round": "" if obs.round is None else obs.round, "pick": obs.pick if obs.options else 0}
    attributes = " ".join(f"data-{k}='{html.escape(str(v), quote=True)}'" for k, v in data.items())
    label = html.escape(turn_label(question, lang))
    number = html.escape(text(lang, "play.turn_number", number=question.number))
    lines = [note, f"<div class='da-prompt' {attributes}><div class='da-turn'><b>{label}</b> · <small>{number}</small> "
             f"{_countdown(question.seconds_left(), lang)}</div><b>{turn}</b> "
             f"{html.escape(obs.private.text)}<br>{html.escape(obs.instruction)}"]
    if obs.options:
        abstain = f" {text(lang, 'play.or_abstain')} <code>abstain</code>" if obs.allow_abstain else ""
        lines.append(f"<br>{text(lang, 'play.options')} <code>{html.escape(', '.join(obs.options))}</code>"
                     + abstain)
    how = text(lang, "play.how_click" if choices_of(obs) else "play.how_type")
    limit = text(lang, "play.your_limit", seconds=f"{obs.limits.seconds:g}")
    lines.append(f"<br><small>{html.escape(how)} {html.escape(limit)}</small></div>")
    return "".join(lines)


def _number_of(turn: str) -> str:
    """A turn id's question number (the part after its last '-'), for a message."""
    return turn.rsplit("-", 1)[-1] if turn else "?"


# A question is brought into view when it appears, on any screen: scrolled to so that its
# top and the reply controls under it show (its top first where both do not fit). It runs on
# every re-draw of the prompt (the countdown re-draws it every half second), so a question
# the page's layout moved (the transcript above it growing, the buttons appearing) is brought
# back, until the person scrolls, types or clicks: from then on the page is theirs until the
# next question.
SHOW_QUESTION_JS = """() => requestAnimationFrame(() => {
    if (!window.daFollowing) {
        window.daFollowing = true;
        const taken = () => { window.daMoved = window.daShownTurn; };
        for (const kind of ['wheel', 'touchmove', 'keydown', 'mousedown']) {
            window.addEventListener(kind, taken, {passive: true, capture: true});
        }
    }
    const asked = document.querySelector('#human-prompt .da-prompt[data-turn]');
    if (!asked) { window.daShownTurn = null; return; }  // a question shown again is shown anew
    if (window.daShownTurn !== asked.dataset.turn) {
        window.daShownTurn = asked.dataset.turn;
        window.daMoved = null;
    }
    if (window.daMoved === asked.dataset.turn) return;
    const top = asked.getBoundingClientRect().top;
    const bottoms = ['#human-reply-row', '#human-choices']
        .map((id) => document.querySelector(id))
        .filter((el) => el && el.offsetParent !== null)
        .map((el) => el.getBoundingClientRect().bottom);
    const bottom = Math.max(asked.getBoundingClientRect().bottom, ...bottoms);
    const height = window.innerHeight;
    if (top >= 0 && bottom <= height) return;
    const margin = 8;  // a little space above the question
    window.scrollBy(0, top < margin ? top - margin : Math.min(top - margin, bottom - height + margin));
})"""


def choices_of(obs: Observation | None) -> list[str]:
    """One button per option when the question is a single choice (a vote, a one-pick answer)."""
    if obs is None or not obs.options or obs.pick != 1 or obs.verb not in ("vote", "answer"):
        return []
    return [*obs.options, *(["abstain"] if obs.allow_abstain else [])][:MAX_CHOICES]


def choice_updates(obs: Observation | None) -> list[Any]:
    choices = choices_of(obs)
    return [gr.update(value=choices[i], visible=True) if i < len(choices) else gr.update(visible=False)
            for i in range(MAX_CHOICES)]


def display_name(request: gr.Request | None, nickname: str) -> str:
    """Who sits in the seat, as the transcript and the record name them: the signed-in name
    on a Space, else the nickname typed in (one clean line, short), else 'guest'."""
    user = getattr(request, "username", None) if request is not None else None
    return f"{clean_name(user or nickname, NAME_LIMIT) or 'guest'} (person)"


MAX_SEATS = max(spec.facts.max_players for spec in GAMES.values())  # seat slots on the page: the largest table
MAX_CHOICES = MAX_SEATS + 1  # vote buttons: every other seat, and abstain
NAME_LIMIT = 24
WATCH_ONLY = "(watch only)"
YOU = "(you)"  # the seat dropdown's value where the person sits
SEATS_QUEUE: dict[str, Any] = {"concurrency_id": "play-seats", "concurrency_limit": 1}  # see build_play_tab


def table_settings(spec: GameSpec, lang: str, picked: str | None = None) -> dict[str, Any]:
    """The settings the Play tab sets: the language, and the game's own choice (a murder
    script) when one is picked."""
    choice = spec.presentation.play_choice
    return {"language": lang, **({choice.setting: picked} if choice is not None and picked else {})}


def picked_choice(spec: GameSpec, lang: str, picked: str | None) -> str:
    """The game's Play choice (a murder script) if it is still offered in `lang`, else the default."""
    choice = spec.presentation.play_choice
    if choice is None:
        return ""
    values = [value for _, value in choice.choices(lang)]
    return picked if picked in values else (values[0] if values else "")


def choice_update(spec: GameSpec, lang: str, picked: str | None = None) -> Any:
    """The Play choice control for a game: its label and choices in `lang`; hidden when the game has none."""
    choice = spec.presentation.play_choice
    if choice is None:
        return gr.update(visible=False, choices=[], value=None)
    return gr.update(visible=True, label=choice.label(lang), choices=choice.choices(lang),
                     value=picked_choice(spec, lang, picked))


def table_size(spec: GameSpec, players: float | None) -> int:
    """The seats the page's player count gives: the game's default when empty, held to its limits."""
    return max(spec.facts.min_players, min(int(players or spec.facts.default_players), spec.facts.max_players))


def seat_updates(api: ArenaAPI, game_id: str, players: float, current: list[str] | None = None,
                 lang: str = "en", mine: str | None = None, picked: str | None = None) -> list[Any]:
    """The seat dropdowns for `players` seats of a game: its seat names, agents that declare
    the game, the rest hidden; a choice that no longer fits falls back to random fill; the
    seat a person takes (`mine`) shows 'you'."""
    spec = get_game(game_id)
    n = table_size(spec, players)
    # a murder script's characters (the one picked, or one of that language and count)
    names = spec.facts.seat_names(n, table_settings(spec, lang, picked))
    choices: list[Any] = [(text(lang, "play.random_fill"), RANDOM_FILL), *agent_choices(api, game_id)]
    values = [value for _, value in choices]
    demo = list(spec.house.demo) or [RANDOM_FILL]
    out = []
    for i in range(MAX_SEATS):
        if i >= n:
            out.append(gr.update(visible=False))
            continue
        label = text(lang, "play.seat", name=names[i])
        if names[i] == mine:  # the person's own seat: no agent to pick there
            # the agents stay among its choices: a Start pressed before this update reached the
            # page sends the seat's agent, which must still be a valid choice (the person takes
            # the seat all the same)
            out.append(gr.update(choices=[(text(lang, "play.you"), YOU), *choices], value=YOU, label=label,
                                 visible=True, interactive=False))
            continue
        value = (current or [None] * MAX_SEATS)[i]
        if value not in values:
            value = demo[i % len(demo)] if demo[i % len(demo)] in values else RANDOM_FILL
        out.append(gr.update(choices=choices, value=value, label=label, visible=True, interactive=True))
    return out


def agent_choices(api: ArenaAPI, game_id: str) -> list[tuple[str, str]]:
    """The agents a seat may take, by name and owner ('my agent · alice'; a house agent by its
    id); a label two agents share is told apart by their ids."""
    agents = [a for a in api.list_agents() if plays(a.get("games") or [], game_id)]
    labels = [agent_label(a) for a in agents]
    return [(label if labels.count(label) == 1 else f"{label} ({a['id']})", a["id"])
            for label, a in zip(labels, agents, strict=True)]


def agent_ids_html(api: ArenaAPI) -> str:
    """The id behind each seat choice's label, for the page to show on hover (SEAT_IDS_JS):
    a label names an agent and its owner, the id is what a command or an API call takes."""
    ids = {label: value for game_id in GAMES for label, value in agent_choices(api, game_id) if label != value}
    return f"<div data-ids='{html.escape(json.dumps(ids, ensure_ascii=False), quote=True)}'></div>"


# each seat choice (and a seat's chosen agent) shows its agent's id on hover; Gradio draws
# a dropdown's options only while it is open, so the titles are set as they appear
SEAT_IDS_JS = """() => {
    if (window.daSeatIds) return;
    window.daSeatIds = true;
    const name = () => {
        const held = document.querySelector('#seat-agent-ids [data-ids]');
        let ids = {};
        try { ids = JSON.parse(held ? held.dataset.ids : '{}'); } catch (e) { ids = {}; }
        document.querySelectorAll('[id^="seat-"] li.item[aria-label]').forEach((li) => {
            const id = ids[li.getAttribute('aria-label')];
            if (id && li.title !== id) li.title = id;
        });
        document.querySelectorAll('[id^="seat-"] input').forEach((input) => {
            const id = ids[input.value] || '';
            if (input.title !== id) input.title = id;
        });
    };
    new MutationObserver(name).observe(document.body, {childList: true, subtree: true});
    name();
}"""


def agent_label(agent: dict[str, Any]) -> str:
    if agent.get("kind") == "house":
        return str(agent["id"])
    owner = str(agent.get("owner") or "")
    owner = "guest" if not owner or owner.startswith("ip:") else owner.removeprefix("user:")
    return f"{clean_name(agent.get('name') or agent['id'], 40)} · {clean_name(owner, 40)}"


def game_language_choices(spec: GameSpec) -> list[tuple[str, str]]:
    """The languages a game is played in that the page speaks, as (label, code)."""
    return [(LANGUAGES[code], code) for code in spec.rules.languages if code in LANGUAGES]


def game_languages(spec: GameSpec, lang: str) -> Any:
    """The language control for a game: the languages it is played in."""
    return gr.update(choices=game_language_choices(spec), value=lang)


def my_seat_choices(lang: str, names: list[str]) -> list[tuple[str, str]]:
    return [(text(lang, "play.watch_only"), WATCH_ONLY), *((name, name) for name in names)]


def my_seat_update(lang: str, names: list[str], mine: str | None) -> Any:
    """The 'take a seat' control for a redrawn table. A seat the page sent that is still at the
    table is left as the page has it: the person may have taken another seat while this update
    was on its way, and a value sent back would undo that choice (its own update comes after
    this one and checks it). Only a seat that left the table is set back to watching."""
    choices = my_seat_choices(lang, names)
    if mine == WATCH_ONLY or mine in names:
        return gr.update(choices=choices)
    return gr.update(choices=choices, value=WATCH_ONLY)


def build_play_tab(api: ArenaAPI, seat_dropdowns: list[gr.Dropdown], words: Interface) -> dict[str, Any]:
    default = front_game(api.config)
    default_names = default.facts.seat_names(default.facts.default_players)
    # two columns on a desktop; on a phone the game column comes first (CSS order, common.CSS)
    with gr.Row(elem_id="play-layout"):
        with gr.Column(scale=2, elem_id="play-setup"):
            # what the person's seat may read (its script, its role card): only while a person plays
            documents = gr.HTML("", visible=False, elem_id="seat-documents")
            game = words(gr.Dropdown(choices=game_choices("en"), value=default.id, label=text("en", "play.game"),
                                     elem_id="play-game"), label="play.game", choices=game_choices)
            with gr.Row():
                # the game's language, and so the page's (every tab re-words itself, see app.py)
                language = words(gr.Radio(game_language_choices(default), value=default.rules.languages[0],
                                          label=text("en", "play.language"), elem_id="play-language"),
                                 label="play.language")
                seed = words(gr.Textbox(value="", label=text("en", "play.seed"), max_length=12,
                                        placeholder=text("en", "play.seed_placeholder")),
                             label="play.seed", placeholder="play.seed_placeholder")
            # the game's own choice (a murder script: shipped, or from the operator's folders)
            initial_choice = choice_update(default, "en")
            picked = gr.Dropdown(choices=initial_choice.get("choices", []), value=initial_choice.get("value"),
                                 label=initial_choice.get("label", ""), visible=initial_choice.get("visible", False),
                                 allow_custom_value=False, elem_id="play-choice")
            table = default.facts
            players = words(gr.Slider(table.min_players, table.max_players, value=table.default_players,
                                      step=1, label=text("en", "play.players"), elem_id="play-players"),
                            label="play.players")
            with gr.Row():
                my_seat = words(gr.Dropdown(choices=my_seat_choices("en", default_names), value=WATCH_ONLY,
                                            label=text("en", "play.my_seat"), elem_id="my-seat"),
                                label="play.my_seat")
                nickname = words(gr.Textbox(label=text("en", "play.nickname"), max_length=NAME_LIMIT,
                                            placeholder=text("en", "play.nickname_placeholder"),
                                            info=text("en", "play.nickname_info"), elem_id="human-name"),
                                 label="play.nickname", placeholder="play.nickname_placeholder",
                                 info="play.nickname_info")
            with gr.Row():
                start = words(gr.Button(text("en", "play.start"), variant="primary", elem_id="start-match",
                                        scale=3), value="play.start")
                stop = words(gr.Button(text("en", "play.stop"), variant="stop", elem_id="stop-match", scale=1),
                             value="play.stop")
            with words(gr.Accordion(text("en", "play.seats_box"), open=True, elem_id="seat-box"),
                       label="play.seats_box"):
                initial = seat_updates(api, default.id, default.facts.default_players)
                for i in range(MAX_SEATS):
                    props = initial[i]
                    dd = gr.Dropdown(choices=props.get("choices", [RANDOM_FILL]), value=props.get("value"),
                                     label=props.get("label", f"Seat {i + 1}"), visible=props.get("visible", False),
                                     allow_custom_value=False, elem_id=f"seat-{i}")
                    seat_dropdowns.append(dd)
                agent_ids = gr.HTML(agent_ids_html(api), elem_id="seat-agent-ids", elem_classes=["da-hidden"])
        with gr.Column(scale=3, elem_id="play-game-column"):
            status = words.resting(gr.Markdown(text("en", "play.idle"), elem_id="play-status"), "play.idle")
            transcript = gr.HTML(transcript_html([]), elem_id="live-transcript")
            prompt = gr.HTML("", elem_id="human-prompt")
            # the turn id of the question the page shows, sent back with every reply
            turn_box = gr.Textbox("", visible=False, elem_id="human-turn")
            with gr.Row(visible=False, elem_id="human-choices") as choice_row:
                choice_buttons = [gr.Button("", visible=False, size="sm", min_width=60, elem_id=f"choice-{i}")
                                  for i in range(MAX_CHOICES)]
            # the reply box only while a person plays (hidden for matches between agents)
            with gr.Row(visible=False, elem_id="human-reply-row") as reply_row:
                reply = words(gr.Textbox(label=text("en", "play.reply"), scale=4, max_lines=3, max_length=400,
                                         placeholder=text("en", "play.reply_placeholder"), elem_id="human-reply"),
                              label="play.reply", placeholder="play.reply_placeholder")
                send = words(gr.Button(text("en", "play.send"), scale=1, elem_id="send-reply"), value="play.send")
            result = gr.Markdown("", elem_id="play-result")
            my_calls = gr.HTML("", elem_id="play-my-calls")  # a person's own calls (theirs alone)

    def reshape(game_id: str, n: float, lang: str, chosen: str | None, mine: str | None, *current: str):
        """The seats for `n` players; a picked choice (a murder script) that calls for another
        count gives way to the default, which picks by count. The person's seat (`mine`, as
        the page sent it) stays theirs while it is still at the table."""
        spec, lang = get_game(game_id), normal(lang)
        n = table_size(spec, n)
        chosen = picked_choice(spec, lang, chosen)
        if chosen and spec.facts.players_by_default(table_settings(spec, lang, chosen)) != n:
            chosen = picked_choice(spec, lang, "")
        names = spec.facts.seat_names(n, table_settings(spec, lang, chosen))
        kept = mine if mine in names else None
        return (gr.update(minimum=spec.facts.min_players, maximum=spec.facts.max_players, value=n),
                my_seat_update(lang, names, mine),
                *seat_updates(api, game_id, n, list(current), lang, kept, chosen), choice_update(spec, lang, chosen))

    def on_game(game_id: str, lang: str, mine: str | None, *current: str):
        """The game's seats, and its languages: a game played only in English switches the
        page to English (the control is the game's language)."""
        spec = get_game(game_id)
        lang = lang if lang in spec.rules.languages else spec.rules.languages[0]
        chosen = picked_choice(spec, lang, "")
        return (*reshape(game_id, spec.facts.players_by_default(table_settings(spec, lang, chosen)), lang, chosen,
                         mine, *current),
                game_languages(spec, lang))

    def on_choice(game_id: str, lang: str, chosen: str, mine: str | None, *current: str):
        """A picked choice (a murder script) sets the player count it calls for and its seats."""
        spec, lang = get_game(game_id), normal(lang)
        n = spec.facts.players_by_default(table_settings(spec, lang, chosen))
        return reshape(game_id, n, lang, chosen, mine, *current)

    shaped = [players, my_seat, *seat_dropdowns, picked]
    # every update of the seats runs in one queue, in the order the page sent them: the seat
    # refresh the page sends on load (with the first game) cannot land after the visitor's
    # choice of game and draw the first game's seats under it
    game.change(on_game, [game, language, my_seat, *seat_dropdowns], [*shaped, language], api_visibility="private",
                **SEATS_QUEUE)
    players.release(reshape, [game, players, language, picked, my_seat, *seat_dropdowns], shaped,
                    api_visibility="private", **SEATS_QUEUE)
    picked.select(on_choice, [game, language, picked, my_seat, *seat_dropdowns], shaped, api_visibility="private",
                  **SEATS_QUEUE)

    def reword_seats(game_id: str, n: float, lang: str, mine: str, chosen: str | None, *current: str):
        """The seats in the new language: their labels, 'watch only', and where the language
        picks other seats (a murder script of that language: its characters, its count) those;
        every choice that still fits is kept."""
        spec, lang = get_game(game_id), normal(lang)
        chosen = picked_choice(spec, lang, chosen)  # a script in the other language is not offered
        settings = table_settings(spec, lang, chosen)
        if spec.facts.players_for is not None:
            n = spec.facts.players_by_default(settings)
        names = spec.facts.seat_names(int(n), settings)
        return (gr.update(value=n), my_seat_update(lang, names, mine),
                *seat_updates(api, game_id, n, list(current), lang, mine if mine in names else None, chosen),
                choice_update(spec, lang, chosen))

    language.change(reword_seats, [game, players, language, my_seat, picked, *seat_dropdowns],
                    [players, my_seat, *seat_dropdowns, picked], api_visibility="private", **SEATS_QUEUE)

    def take_seat(game_id: str, n: float, lang: str, mine: str, chosen: str | None, *current: str):
        """'you' in the seat the person takes; the seat they leave offers agents again. A seat
        taken from a table redrawn since (a smaller one, another game's) is given up: the
        control says 'watch only' rather than seat nobody."""
        spec, lang = get_game(game_id), normal(lang)
        n = table_size(spec, n)
        names = spec.facts.seat_names(n, table_settings(spec, lang, chosen))  # as Start reads them
        seated = mine in names
        return (*seat_updates(api, game_id, n, list(current), lang, mine if seated else None, chosen),
                gr.skip() if seated or mine == WATCH_ONLY else gr.update(value=WATCH_ONLY))

    my_seat.input(take_seat, [game, players, language, my_seat, picked, *seat_dropdowns], [*seat_dropdowns, my_seat],
                  api_visibility="private", **SEATS_QUEUE)

    def frame(head: str, html_transcript: str, asked: str = "", outcome: str = "", person: bool = False,
              choices: list[Any] | None = None, live: bool = False, turn: str = "", calls: str | None = None,
              papers: Any = None) -> tuple:
        """One update of the live area: status, transcript, question and its turn id, result,
        the person's reply box (left as it is while `live`), the choice buttons (None: left as
        they are), the person's own calls and the seat's documents panel (None: left as they
        are). The question and its turn id always change together."""
        buttons = choices if choices is not None else [gr.skip()] * MAX_CHOICES
        shown = person and choices is not None and any(u.get("visible") for u in choices)
        row = gr.update(visible=shown) if choices is not None else gr.skip()
        reply_box = gr.skip() if live else gr.update(visible=person)
        return (head, html_transcript, asked, turn, outcome, reply_box, row, *buttons,
                gr.skip() if calls is None else calls, gr.skip() if papers is None else papers)

    def closed(head: str, html_transcript: str, outcome: str = "", calls: str | None = None,
               papers: Any = None) -> tuple:
        return frame(head, html_transcript, "", outcome, False, choice_updates(None), calls=calls, papers=papers)

    # `request` comes first: Gradio injects it by position, and cannot after `*seats`
    async def run(request: gr.Request, game_id: str, lang: str, seed_value: str, n_players: float, mine: str,
                  name: str, table_choice: str | None, *seats: str):
        lang = normal(lang)
        spec = get_game(game_id)
        pictures = image_resolver(spec)  # the game's image clues as thumbnails in the transcript
        n = table_size(spec, n_players)
        chosen = [RANDOM_FILL if s == YOU else s for s in list(seats)[:n]]  # the person's seat is theirs below
        visitor = visitor_of(request, api.config.trusted_proxy_hops)
        req = {"game": game_id, "seats": [s or "" for s in chosen],
               "seed": seed_of(seed_value),
               "settings": {**table_settings(spec, lang, table_choice), "players": n}}
        try:
            person = mine in spec.facts.seat_names(n, req["settings"])
            # a seat by URL is checked by resolving its name: off the event loop
            plan = await to_thread.run_sync(functools.partial(
                api.plan, req, owner=visitor, signed_in=signed_in(visitor, api.config.on_space),
                tag=HUMAN if person else VISITOR))
        except ApiError as exc:
            yield closed(text(lang, "play.problem", reason=markdown_text(refusal(lang, exc))),
                         transcript_html([], language=lang), papers=gr.update(visible=False, value=""))
            return
        human = None
        extra: dict[str, SeatAgent] = {}
        if person:
            human = HumanAgent(name=display_name(request, name))
            HUMANS[request.session_hash or visitor] = human
            # each person their own leaderboard row (see people.py); no name: the anonymous pool
            who = person_id(getattr(request, "username", None), name, api.config.on_space)
            extra[mine] = SeatAgent(human, who, human.name, seconds=api.config.human_seconds)
        queue: asyncio.Queue = asyncio.Queue()
        events: list[Event] = []
        seat_view = mine if human else None
        task = asyncio.create_task(api.run_match(
            {}, visitor=visitor, plan=plan, extra_agents=extra,
            on_events=lambda items: queue.put_nowait(items)))
        match_id = plan.match_id
        session = request.session_hash or visitor
        LIVE[session] = match_id
        names = dict(zip(spec.facts.seat_names(len(plan.seats), plan.settings), plan.seats, strict=True))
        if human is not None:
            names[mine] = human.name
        # the seat's documents, shown to the person who plays it (drawn from that seat's view alone)
        papers = documents_html(spec, [], mine, lang) if human is not None else ""
        yield frame(text(lang, "play.starting"), transcript_html([], language=lang), person=human is not None,
                    choices=choice_updates(None), calls="", papers=gr.update(visible=human is not None, value=papers))
        # the person's own calls, while the match runs: the record as it stands, with its seed
        # (kept on the server) so each call shows the observation the person was sent
        record = {"id": match_id, "game": game_id, "seed": plan.seed, "settings": plan.settings,
                  "status": "running", "seats": [{"seat": s, "agent_name": a} for s, a in names.items()]}
        asked = ""  # the turn id of the question the buttons show
        frames = 0
        try:
            while True:
                getter = asyncio.ensure_future(queue.get())
                done, _ = await asyncio.wait({getter, task}, timeout=0.5,
                                             return_when=asyncio.FIRST_COMPLETED)
                if getter in done:
                    for seq, e in getter.result():
                        events.append(e.model_copy(update={"seq": seq}))
                else:
                    getter.cancel()
                public = [e for e in visible(events, seat_view)
                          if seat_view is not None or e.visible_to is None]
                question = human.question() if human else None
                turn = question.turn if question else ""
                # the buttons are re-sent when the question changes, and every few updates in
                # case the page skipped one; not every half second: a re-drawn button moves
                # under the pointer
                frames += 1
                buttons = (choice_updates(question.obs if question else None)
                           if turn != asked or frames % 4 == 0 else None)
                asked = turn
                mine_so_far = (seat_calls_html({**record, "events": [{**e.to_dict(), "seq": e.seq} for e in events]},
                                               events, mine, lang, names) if human is not None else None)
                # with every update: the page may skip an update (it draws the newest one), and the
                # same text sent again is not drawn again, so the reader keeps their place
                papers = gr.update(value=documents_html(spec, events, mine, lang)) if human is not None else None
                yield frame(text(lang, "play.live", match=match_id),
                            transcript_html(public, names, image=pictures, language=lang),
                            _prompt_html(question, lang), person=human is not None, choices=buttons, live=True,
                            turn=turn, calls=mine_so_far, papers=papers)
                if task.done() and queue.empty():
                    break
            outcome = task.result()
        except ApiError as exc:
            yield closed(text(lang, "play.problem", reason=markdown_text(refusal(lang, exc))),
                         transcript_html([], language=lang))
            return
        finally:
            LIVE.pop(session, None)
            if human is not None:
                HUMANS.pop(request.session_hash or visitor, None)
        # the seat's documents stay to read after the end (drawn once more: the page may have
        # skipped the last live update)
        papers = gr.update(value=documents_html(spec, events, mine, lang)) if human is not None else None
        if outcome["status"] == "aborted":
            stored = spec.rules.events.parse_all(api.get_match(match_id)["events"])
            yield closed(text(lang, "play.stopped", match=match_id, reason=markdown_text(outcome["error"])),
                         transcript_html(visible(stored, seat_view), names, image=pictures, language=lang),
                         papers=papers)
            return
        match = api.get_match(outcome["match_id"])
        names = {s["seat"]: s["agent_name"] for s in match["seats"]}
        every = spec.rules.events.parse_all(match["events"])
        final_events = visible(every, seat_view)
        link = f"?match={outcome['match_id']}"
        yield closed(text(lang, "play.finished", match=outcome["match_id"], link=link),
                     transcript_html(final_events, names, image=pictures, language=lang),
                     game_result(match, spec),
                     calls=seat_calls_html(match, every, mine, lang, names) if human is not None else None,
                     papers=papers)

    live_outputs = [status, transcript, prompt, turn_box, result, reply_row, choice_row, *choice_buttons, my_calls,
                    documents]
    start.click(run, [game, language, seed, players, my_seat, nickname, picked, *seat_dropdowns], live_outputs,
                concurrency_limit=None, api_visibility="private")

    def stop_match(lang: str, request: gr.Request) -> str:
        visitor = visitor_of(request, api.config.trusted_proxy_hops)
        match_id = LIVE.get(request.session_hash or visitor)
        if match_id is None:
            return text(lang, "play.nothing_running")
        try:
            return text(lang, "play.stopping", message=api.cancel_match(match_id, visitor))
        except ApiError as exc:
            return text(lang, "play.problem", reason=markdown_text(refusal(lang, exc)))

    stop.click(stop_match, [language], [status], concurrency_limit=None, api_visibility="private")

    def send_reply(reply_text: str, lang: str, turn: str, request: gr.Request) -> tuple:
        """The person's reply, for the question whose turn id the page showed with it: taken
        only while that question is the open one. A reply for a question answered already
        (or timed out) is refused and said so, with the open question drawn again, and the
        text is left in the box; it never answers the next question."""
        human = HUMANS.get(request.session_hash or visitor_of(request, api.config.trusted_proxy_hops))
        verdict = human.submit((reply_text or "")[:400], turn or "") if human is not None else "closed"
        if verdict == "sent":
            return ("", f"<i>{html.escape(text(lang, 'play.sent', number=_number_of(turn)))}</i>", "",
                    gr.update(visible=False), *[gr.skip()] * MAX_CHOICES)
        question = human.question() if human is not None else None
        if verdict == "stale" or turn:
            note = text(lang, "play.stale", number=_number_of(turn))
        else:
            note = text(lang, "play.nothing_waiting")
        note = f"<p class='da-refused'><b>⚠️ {html.escape(note)}</b></p>"
        # the open question drawn again with its own turn id and its own buttons (the ones on
        # the page may still be an earlier question's)
        obs = question.obs if question else None
        return (reply_text, _prompt_html(question, lang, note), question.turn if question else "",
                gr.update(visible=bool(choices_of(obs))), *choice_updates(obs))

    sent_outputs = [reply, prompt, turn_box, choice_row, *choice_buttons]
    send.click(send_reply, [reply, language, turn_box], sent_outputs, concurrency_limit=None,
               api_visibility="private")
    reply.submit(send_reply, [reply, language, turn_box], sent_outputs, concurrency_limit=None,
                 api_visibility="private")
    for button in choice_buttons:  # a button's value is its option: clicking sends that choice
        button.click(send_reply, [button, language, turn_box], sent_outputs, concurrency_limit=None,
                     api_visibility="private")
    prompt.change(None, None, None, js=SHOW_QUESTION_JS)

    def refresh(game_id: str, n: float, lang: str, chosen: str | None, mine: str | None, *current: str):
        """Newly registered agents appear in the dropdowns (those that play this game), their
        ids known to the page for hovering; the person's seat still shows 'you'."""
        return *seat_updates(api, game_id, n, list(current), normal(lang), mine, chosen), agent_ids_html(api)

    return {"status": status, "refresh": refresh, "refresh_queue": SEATS_QUEUE,
            "refresh_inputs": [game, players, language, picked, my_seat, *seat_dropdowns],
            "refresh_outputs": [*seat_dropdowns, agent_ids], "language": language}
