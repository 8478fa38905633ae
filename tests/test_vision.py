"""Pictures for agents that read them: an agent declares `vision` in its info; the arena then
sends the image references of that seat's observation as JPEG data URLs (and only those),
LLMAgent turns them into image parts; a text-only agent keeps the references and plain-text
prompts; the stored events keep the short references."""

from __future__ import annotations

import base64
import io
import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from PIL import Image

from sdk import Agent, LLMAgent, Observation, RemoteAgent, openai_caller, serve
from sdk.observation import Document, HistoryItem, PrivateInfo
from space_app.games.mystery.catalog import get_script, image_path
from space_app.games.mystery.rules import image_ref
from space_app.images import MODEL_WIDTH, data_url, game_resolver, inline_images
from space_app.runner import SeatAgent
from space_app.service import Arena, MatchPlan
from space_app.store import Store
from space_app.ui.media import THUMB_WIDTH, thumbnail

SCRIPT = get_script("alder-playhouse")  # four characters, six image clues
JPEG_URL = "data:image/jpeg;base64,"
Messages = list[dict[str, Any]]


def recording_caller() -> tuple[Callable[[Messages], str], list[Messages]]:
    """A model stand-in: keeps every message list it is handed and says something plain."""
    calls: list[Messages] = []

    def llm_caller(messages: Messages) -> str:
        calls.append(messages)
        return "I was backstage all evening and saw nothing."

    return llm_caller, calls


def clue_urls() -> list[str]:
    """The data URLs of the script's image clues, in the order the game deals them (every
    clue is public from the start, so every observation of every seat holds all of them)."""
    urls = [data_url(image_path(image_ref(SCRIPT.id, c.file))) for c in SCRIPT.image_clues]
    assert all(url and url.startswith(JPEG_URL) for url in urls)
    return urls


def play(tmp_path, seat_agent: Agent) -> tuple[Store, str]:
    """One short match of the script through the arena: `seat_agent` plays the first
    character, the naive house agent the others."""
    store = Store(tmp_path / "vision.db")
    plan = MatchPlan("mystery", ["house:mystery-naive"] * len(SCRIPT.roles), seed=2,
                     settings={"script": SCRIPT.id, "rounds": 1})
    arena = Arena(store)
    seat = SCRIPT.roles[0].name
    outcome = arena.run_in_own_loop(arena.run(plan, extra_agents={seat: SeatAgent(seat_agent, "seat-under-test")}))
    assert outcome.status == "finished", outcome.error
    return store, outcome.match_id


def user_contents(calls: list[Messages]) -> list[Any]:
    return [m["content"] for messages in calls for m in messages if m["role"] == "user"]


def assert_pictures_attached(calls: list[Messages]) -> None:
    first_asks = [messages[1]["content"] for messages in calls]  # re-asks repeat the first message
    assert first_asks, "the seat was never asked"
    expected = clue_urls()
    for content in first_asks:
        assert isinstance(content, list) and content[0]["type"] == "text"
        assert [p["image_url"]["url"] for p in content[1:]] == expected
        assert f"{len(expected)} image(s) of this game are attached" in content[0]["text"]
        assert "not attached" not in content[0]["text"]


def assert_events_keep_references(store: Store, match_id: str) -> None:
    stored = json.dumps(store.get_match(match_id)["events"])
    assert "data:image" not in stored
    assert image_ref(SCRIPT.id, SCRIPT.image_clues[0].file) in stored


# -- through the arena ---------------------------------------------------------------------------
def test_a_vision_agent_gets_its_observations_pictures_as_image_parts_and_the_store_keeps_references(tmp_path):
    caller, calls = recording_caller()
    store, match_id = play(tmp_path, LLMAgent(caller, name="seer", vision=True))
    assert_pictures_attached(calls)
    assert_events_keep_references(store, match_id)
    store.close()


def test_a_text_only_agent_gets_plain_text_saying_the_captions_stand_in(tmp_path):
    caller, calls = recording_caller()
    store, match_id = play(tmp_path, LLMAgent(caller, name="reader"))
    contents = user_contents(calls)
    assert contents and all(isinstance(c, str) for c in contents)
    first_asks = [messages[1]["content"] for messages in calls]
    n = len(SCRIPT.image_clues)
    assert all(f"{n} image(s) of this game are described by their captions above" in c for c in first_asks)
    assert all(SCRIPT.image_clues[0].caption in c for c in first_asks)  # the caption itself is in the text
    assert not any("data:image" in c for c in contents)
    assert_events_keep_references(store, match_id)
    store.close()


def test_a_served_vision_agent_declares_it_over_http_and_gets_data_urls(tmp_path, launch):
    caller, calls = recording_caller()
    remote = RemoteAgent(launch(serve(LLMAgent(caller, name="seer", vision=True))), timeout=30)
    try:
        store, match_id = play(tmp_path, remote)  # the arena's prepare reads the agent's info
        assert remote.info(wait=False)["vision"] is True
        assert_pictures_attached(calls)
        assert_events_keep_references(store, match_id)
        store.close()
    finally:
        remote.close()


def test_a_registered_vision_agent_gets_pictures_on_its_test_page_too(tmp_path, launch):
    """'Try an agent' sends one observation without a match's prepare: the info stored at
    registration already says the agent reads images."""
    import asyncio

    from space_app.api import ArenaAPI
    from space_app.config import ArenaConfig

    caller, calls = recording_caller()
    url = launch(serve(LLMAgent(caller, name="seer", vision=True, games=("mystery",))))
    api = ArenaAPI(ArenaConfig(db=str(tmp_path / "t.db"), demo_matches=0, allow_private_urls=True))
    reg = api.register_agent(url, name="seer")
    ref = image_ref(SCRIPT.id, SCRIPT.image_clues[0].file)
    obs = {"game": "mystery", "verb": "speak", "you": SCRIPT.roles[0].name, "images": [ref],
           "instruction": "Introduce yourself."}
    got = asyncio.run(api.try_agent(reg["agent_id"], obs))
    assert got["status"] == "ok", got
    (content,) = [m["content"] for m in calls[-1] if m["role"] == "user"]
    assert [p["image_url"]["url"] for p in content[1:]] == [clue_urls()[0]]


def test_info_says_whether_an_agent_reads_images():
    assert Agent("plain").info()["vision"] is False
    assert LLMAgent(lambda messages: "ok", vision=True).info()["vision"] is True


# -- the model endpoint ---------------------------------------------------------------------------
@pytest.fixture
def chat_endpoint() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """An OpenAI-compatible chat endpoint on loopback that keeps every request body."""
    bodies: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
            bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            reply = json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                                "choices": [{"index": 0, "finish_reason": "stop",
                                             "message": {"role": "assistant", "content": "Final answer: P2"}}]})
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply.encode())

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", bodies
    server.shutdown()
    server.server_close()


def test_openai_caller_sends_image_parts_unchanged_and_text_only_agents_plain_text(chat_endpoint):
    base_url, bodies = chat_endpoint
    picture = data_url(image_path(image_ref(SCRIPT.id, SCRIPT.image_clues[0].file)))
    assert picture is not None
    vote = Observation(game="mystery", verb="vote", you="P1", options=["P2", "P3"], images=[picture],
                       instruction="Who did it?")
    for vision in (True, False):
        agent = LLMAgent(openai_caller("m", base_url=base_url, api_key="k"), vision=vision)
        assert agent.act(vote).text == "P2"
    seeing, reading = (body["messages"][1]["content"] for body in bodies)
    assert seeing[1:] == [{"type": "image_url", "image_url": {"url": picture}}]
    assert seeing[0]["type"] == "text" and "1 image(s) of this game are attached" in seeing[0]["text"]
    assert isinstance(reading, str) and "described by their captions" in reading and "data:" not in reading


# -- the conversion ------------------------------------------------------------------------------
def test_only_the_references_an_observation_holds_are_converted_each_where_it_was():
    plan, clipping = (image_ref(SCRIPT.id, c.file) for c in SCRIPT.image_clues[:2])
    item = HistoryItem(who="host", kind="clue", text="The plan.", images=[plan])
    obs = Observation(game="mystery", verb="speak", you="A", history=[item],
                      private=PrivateInfo(documents=[Document(title="note", images=[clipping, "mystery/x/none.png"])]),
                      images=[plan, clipping, "mystery/x/none.png", "https://example.org/map.png"])
    to_url = game_resolver("mystery")
    assert to_url is not None
    shown = inline_images(obs, to_url)
    urls = {ref: data_url(image_path(ref)) for ref in (plan, clipping)}
    # a reference the game does not know and a web address stay as they are
    assert shown.images == [urls[plan], urls[clipping], "mystery/x/none.png", "https://example.org/map.png"]
    assert shown.history[0].images == [urls[plan]]
    assert shown.private.documents[0].images == [urls[clipping], "mystery/x/none.png"]
    # the game's own items are untouched (the game hands the same item to later observations)
    assert item.images == [plan] and obs.private.documents[0].images == [clipping, "mystery/x/none.png"]
    assert obs.images[0] == plan


def test_a_game_without_images_or_a_label_that_is_no_game_has_no_resolver():
    assert game_resolver("spy") is None and game_resolver("no-such-game") is None


def decoded_width(url: str) -> int:
    assert url.startswith(JPEG_URL)
    with Image.open(io.BytesIO(base64.b64decode(url[len(JPEG_URL):]))) as img:
        assert img.format == "JPEG"
        return img.width


def test_models_get_pictures_up_to_their_width_and_the_ui_its_thumbnails():
    path = image_path(image_ref(SCRIPT.id, SCRIPT.image_clues[0].file))
    with Image.open(path) as img:
        width = img.width
    assert THUMB_WIDTH < width <= MODEL_WIDTH
    assert decoded_width(data_url(path)) == width
    assert decoded_width(thumbnail(path)) == THUMB_WIDTH


@pytest.mark.parametrize("missing", ["no-such-file.png", "."])
def test_an_unreadable_file_is_no_picture(tmp_path, missing):
    assert data_url(tmp_path / missing) is None
