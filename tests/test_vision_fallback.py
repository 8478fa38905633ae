"""A vision agent whose model endpoint refuses pictures plays on with the captions: the first
refusal turns the seat to captions for the rest of the match (recorded), and the refused
turn is asked again at once. Registration asks a vision agent about a small picture and
records whether its endpoint reads images.

The model endpoint is a real OpenAI-compatible server on loopback (tests/model_server.py)
that answers 400 "image input is not supported" to any request holding an image part."""

from __future__ import annotations

from typing import Any

import pytest
from model_server import model_server

from sdk import LLMAgent, RemoteAgent, openai_caller, serve
from sdk.capabilities import PROBE_IMAGE, probe_observation, refuses_images
from space_app.core.events import GENERIC, Call, SeatDegraded
from space_app.games.mystery.catalog import get_script
from space_app.runner import SeatAgent
from space_app.service import Arena, MatchPlan
from space_app.store import Store
from space_app.verify import verify_match

SCRIPT = get_script("alder-playhouse")  # four characters, six image clues
SEAT = SCRIPT.roles[0].name


def has_image(body: dict[str, Any]) -> bool:
    return any(isinstance(m["content"], list) for m in body["messages"])


def play_mystery(tmp_path, agent: Any) -> dict:
    store = Store(tmp_path / "fallback.db")
    plan = MatchPlan("mystery", ["house:mystery-naive"] * len(SCRIPT.roles), seed=2,
                     settings={"script": SCRIPT.id, "rounds": 1})
    arena = Arena(store)
    outcome = arena.run_in_own_loop(arena.run(plan, extra_agents={SEAT: SeatAgent(agent, "seer")}))
    assert outcome.status == "finished", outcome.error
    match = store.get_match(outcome.match_id)
    store.close()
    assert match is not None
    return match


def assert_captions_after_the_first_refusal(match: dict, requests: list[dict[str, Any]]) -> None:
    # the model saw one request with pictures (refused); every later one is plain text
    assert has_image(requests[0]) and not any(has_image(body) for body in requests[1:])
    assert len(requests) > 2
    texts = [m["content"] for body in requests[1:] for m in body["messages"] if m["role"] == "user"]
    assert all("described by their captions" in t for t in texts[:1])

    events = GENERIC.parse_all(match["events"])
    calls = [e for e in events if isinstance(e, Call) and e.actor == SEAT]
    first, later = calls[0], calls[1:]
    assert first.status == "ok" and first.captions is True  # the refused turn, asked again, answered
    assert first.images_refused and refuses_images(first.images_refused)
    assert all(c.captions is True and c.images_refused is None and c.status != "error" for c in later)
    (notice,) = [e for e in events if isinstance(e, SeatDegraded)]
    assert notice.state == "captions" and notice.seat == SEAT and "image input is not supported" in notice.reason
    assert notice.visible_to == ()
    checked = verify_match(match)
    assert checked.verdict == "identical", checked.detail


def test_an_in_process_vision_agent_falls_back_to_captions_after_the_first_refusal(tmp_path):
    with model_server() as server:
        server.refuse_images = True
        agent = LLMAgent(openai_caller("m", base_url=server.url, api_key="k"), name="seer", vision=True)
        match = play_mystery(tmp_path, agent)
        assert server.refused_images == 1
        assert_captions_after_the_first_refusal(match, server.requests)


def test_a_served_vision_agent_falls_back_to_captions_too(tmp_path, launch):
    with model_server() as server:
        server.refuse_images = True
        url = launch(serve(LLMAgent(openai_caller("m", base_url=server.url, api_key="k"), name="seer",
                                    vision=True)))
        remote = RemoteAgent(url, timeout=30)
        try:
            match = play_mystery(tmp_path, remote)
        finally:
            remote.close()
        assert server.refused_images == 1
        assert_captions_after_the_first_refusal(match, server.requests)


def test_a_vision_agent_whose_model_reads_images_keeps_its_pictures(tmp_path):
    with model_server() as server:
        agent = LLMAgent(openai_caller("m", base_url=server.url, api_key="k"), name="seer", vision=True)
        match = play_mystery(tmp_path, agent)
    assert server.requests and all(has_image(body) for body in server.requests)
    assert not any(e["kind"] == "degraded" for e in match["events"])
    assert not any(e["data"].get("captions") for e in match["events"] if e["kind"] == "call")


@pytest.mark.parametrize("text", [
    "model endpoint answered 400: image input is not supported (1 attempt)",
    "Invalid content type. image_url is only supported by certain models.",
    "The model `x` does not support image input.",
    "llava is not a multimodal model",
    "unsupported content type: image_url",
])
def test_refusals_of_pictures_are_recognised_as_servers_word_them(text):
    assert refuses_images(text)


@pytest.mark.parametrize("text", ["HTTP 500: Internal Server Error", "model endpoint answered 400: bad request",
                                  "the image on the wall is not relevant", ""])
def test_other_failures_are_not_refusals_of_pictures(text):
    assert not refuses_images(text)


def test_the_probe_asks_about_one_small_picture():
    obs = probe_observation("mystery")
    assert obs.images == [PROBE_IMAGE] and obs.verb == "answer" and obs.options == ["A", "B", "C"]
    assert len(PROBE_IMAGE) < 200


# -- registration ---------------------------------------------------------------------------------
def register(tmp_path, launch, server_url: str, vision: bool) -> dict[str, Any]:
    from space_app.api import ArenaAPI
    from space_app.config import ArenaConfig

    agent = LLMAgent(openai_caller("m", base_url=server_url, api_key="k"), name="seer", vision=vision,
                     games=("mystery",))
    api = ArenaAPI(ArenaConfig(db=str(tmp_path / "reg.db"), demo_matches=0, allow_private_urls=True))
    reg = api.register_agent(launch(serve(agent)), name="seer")
    stored = api.store.get_agent(reg["agent_id"])
    assert stored is not None and stored["info"] == reg["info"]  # what was checked is kept
    return reg["info"]


def test_registration_records_that_a_vision_agents_endpoint_refuses_images(tmp_path, launch):
    with model_server() as server:
        server.refuse_images = True
        info = register(tmp_path, launch, server.url, vision=True)
        assert server.refused_images == 1 and len(server.requests) == 1
    check = info["images_check"]
    assert check["reads_images"] is False and "image input is not supported" in check["detail"]


def test_registration_records_that_a_vision_agents_endpoint_reads_images(tmp_path, launch):
    from model_server import Step

    with model_server(Step(text="A red square.\nFinal answer: A")) as server:
        info = register(tmp_path, launch, server.url, vision=True)
        (body,) = server.requests
    assert has_image(body) and body["messages"][1]["content"][1]["image_url"]["url"] == PROBE_IMAGE
    assert info["images_check"] == {"reads_images": True, "correct": True, "reply": "A"}  # what the agent replied


def test_a_text_only_agent_is_not_asked_about_pictures(tmp_path, launch):
    with model_server() as server:
        info = register(tmp_path, launch, server.url, vision=False)
        assert server.requests == []
    assert "images_check" not in info
