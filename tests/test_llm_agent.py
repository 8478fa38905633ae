"""LLMAgent on a scripted llm_caller (prompts, vote parsing, the one re-ask, usage,
errors), and the Observation model it reads."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from sdk import (
    AgentError,
    LLMAgent,
    LLMText,
    Observation,
    Reply,
    Usage,
    scripted_caller,
)
from sdk.observation import observation_schema
from sdk.prompts import GENERIC_SYSTEM

RULES = "The game's rules, as the game states them."

OPTIONS = ["P1", "P2", "P10"]


def obs(verb: str = "vote", **extra) -> Observation:
    base = {
        "game": "spy", "phase": verb, "verb": verb, "you": "P3",
        "private": {"facts": {"word": "lighthouse"}, "text": "Your secret word is 'lighthouse'."},
        "history": [
            {"who": "P1", "kind": "statement", "text": "It guides ships at night.", "round": 1},
            {"who": "P2", "kind": "statement", "text": "It stands by the sea.", "round": 1},
            {"who": "host", "kind": "elimination", "text": "P4 was voted out.", "round": 1},
        ],
        "instruction": "Vote for the player you think is the spy." if verb == "vote"
        else "Describe your word in one statement.",
        "seats": ["P1", "P2", "P3", "P10"], "match_id": "m-1", "round": 2, "rules": RULES,
    }
    if verb == "vote":
        base["options"] = OPTIONS
    base.update(extra)
    return Observation.model_validate(base)


def words(messages: list[dict]) -> int:
    """How scripted_caller counts prompt tokens."""
    return sum(len(str(m.get("content", "")).split()) for m in messages)


# -- prompts -------------------------------------------------------------------
def test_prompt_contains_private_text_history_instruction_and_options():
    caller = scripted_caller(["Final answer: P2"])
    LLMAgent(caller).vote(obs())
    assert len(caller.calls) == 1
    messages = caller.calls[0]
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"] == RULES  # the game's own rules are the system prompt
    user = messages[1]["content"]
    assert isinstance(user, str)
    assert "You are P3." in user
    assert "Your secret word is 'lighthouse'." in user
    assert "P1 (statement): It guides ships at night." in user
    assert "P2 (statement): It stands by the sea." in user
    assert "host (elimination): P4 was voted out." in user
    assert "[round 1]" in user
    assert "Vote for the player you think is the spy." in user
    assert "Options: P1, P2, P10." in user
    assert "Final answer:" in user


def test_speak_prompt_and_reply():
    caller = scripted_caller(["It shines over the water."])
    agent = LLMAgent(caller)
    reply = agent.act(obs("speak"))
    assert reply.text == "It shines over the water."
    user = caller.calls[0][1]["content"]
    assert "Describe your word in one statement." in user
    assert "at most 400 characters" in user
    assert "Options:" not in user


def test_chinese_observation_asks_for_chinese():
    caller = scripted_caller(["它在海边。"])
    LLMAgent(caller).speak(obs("speak", language="zh"))
    assert caller.calls[0][0]["content"].endswith("Always reply in Chinese.")


def test_a_game_that_sends_no_rules_gets_the_generic_system_prompt():
    caller = scripted_caller(["ok"])
    LLMAgent(caller).speak(obs("speak", game="newgame", rules=""))
    assert "social-deduction game" in caller.calls[0][0]["content"]


def test_max_history_keeps_the_newest_items():
    caller = scripted_caller(["ok"])
    LLMAgent(caller, max_history=1).speak(obs("speak"))
    user = caller.calls[0][1]["content"]
    assert "P4 was voted out." in user
    assert "It guides ships at night." not in user


# -- votes ------------------------------------------------------------------------
def test_vote_is_parsed_to_exactly_one_option():
    caller = scripted_caller(["P1 was vague, P10 repeated P2.\nFinal answer: P10"])
    reply = LLMAgent(caller).act(obs())
    assert isinstance(reply, Reply)
    assert reply.text == "P10"
    assert len(caller.calls) == 1


def test_vote_multi_pick():
    caller = scripted_caller(['{"team": ["P2", "P1", "P2"]}'])
    assert LLMAgent(caller).vote(obs(pick=2)) == "P2, P1"


def test_vote_abstain_when_allowed():
    caller = scripted_caller(["Final answer: abstain"])
    assert LLMAgent(caller).vote(obs(allow_abstain=True)) == "abstain"
    assert "You may also answer 'abstain'." in caller.calls[0][1]["content"]


def test_one_corrective_reask_when_the_first_reply_names_nothing():
    caller = scripted_caller(["I am not sure yet, everyone sounded fine.", "P2"], cycle=False)
    agent = LLMAgent(caller)
    reply = agent.act(obs())
    assert reply.text == "P2"
    assert len(caller.calls) == 2
    first, second = caller.calls
    assert second[:2] == first  # the conversation continues
    assert second[2] == {"role": "assistant", "content": "I am not sure yet, everyone sounded fine."}
    assert second[3]["role"] == "user"
    reask = second[3]["content"]
    assert "could not be read as a valid choice" in reask
    assert "names none of the options" in reask  # the reason is given to the model
    assert "P1, P2, P10" in reask
    # usage summed across both calls
    assert reply.usage == Usage(prompt_tokens=words(first) + words(second),
                                completion_tokens=8 + 1)


def test_reask_also_for_an_ambiguous_reply():
    caller = scripted_caller(["P1 or P2, hard to say.", "Final answer: P1"], cycle=False)
    assert LLMAgent(caller).vote(obs()) == "P1"
    assert "ambiguous" in caller.calls[1][3]["content"]


def test_still_unparseable_returns_the_raw_text_not_repaired():
    caller = scripted_caller(["No idea.", "Honestly, I cannot decide."], cycle=False)
    reply = LLMAgent(caller).act(obs())
    assert reply.text == "Honestly, I cannot decide."  # raw second reply, no option invented
    assert reply.text not in OPTIONS
    assert len(caller.calls) == 2  # exactly one re-ask, never more
    first, second = caller.calls
    assert reply.usage == Usage(prompt_tokens=words(first) + words(second),
                                completion_tokens=2 + 4)


def test_no_reask_when_the_first_reply_parses():
    caller = scripted_caller(["Final answer: P1"], cycle=False)
    reply = LLMAgent(caller).act(obs())
    assert reply.text == "P1"
    assert len(caller.calls) == 1
    assert reply.usage == Usage(prompt_tokens=words(caller.calls[0]), completion_tokens=3)


def test_answer_with_options_is_parsed_without_reask():
    caller = scripted_caller(["She will look in the basket.\nFinal answer: basket"], cycle=False)
    agent = LLMAgent(caller)
    observation = obs("answer", options=["basket", "box"], instruction="Where will Sally look?")
    reply = agent.act(observation)
    assert reply.text == "basket"
    assert reply.usage is not None and reply.usage.completion_tokens == 9
    assert len(caller.calls) == 1
    assert "Options: basket, box." in caller.calls[0][1]["content"]


def test_answer_without_options_is_free_text():
    caller = scripted_caller(["The butler, with the candlestick."])
    assert LLMAgent(caller).answer(obs("answer")) == "The butler, with the candlestick."


# -- images -------------------------------------------------------------------------
def test_a_vision_agent_sends_images_as_openai_content_parts_and_says_they_are_attached():
    urls = ["data:image/png;base64,iVBORw0KGgo=", "https://example.org/board.png"]
    caller = scripted_caller(["Final answer: P2"])
    LLMAgent(caller, vision=True).vote(obs(images=urls))
    content = caller.calls[0][1]["content"]
    assert isinstance(content, list)
    assert content[0]["type"] == "text" and "Options: P1, P2, P10." in content[0]["text"]
    assert "2 image(s) of this game are attached after this text" in content[0]["text"]
    assert "not attached" not in content[0]["text"]
    assert content[1:] == [{"type": "image_url", "image_url": {"url": u}} for u in urls]
    assert isinstance(caller.calls[0][0]["content"], str)  # the system prompt stays text


def test_a_text_only_agent_always_sends_plain_text_with_the_captions_standing_in():
    """vision=False (the default): even a data URL is not sent, so a text-only llm_caller
    never receives content parts; the text says the captions stand in."""
    caller = scripted_caller(["Final answer: P2"])
    LLMAgent(caller).vote(obs(images=["data:image/png;base64,iVBORw0KGgo=", "mystery/larkspur/floor_plan.png"]))
    content = caller.calls[0][1]["content"]
    assert isinstance(content, str)
    assert "2 image(s) of this game are described by their captions above" in content
    assert "data:image" not in content


def test_image_references_an_endpoint_cannot_fetch_are_left_out_and_said_so():
    """A murder script's clue reaches an agent the arena does not know reads images as a
    reference (mystery/...): a model endpoint cannot read it, so even a vision agent does not
    send it as an image part, and the text says the captions stand in."""
    caller = scripted_caller(["Final answer: P2", "Final answer: P2"])
    LLMAgent(caller, vision=True).vote(obs(images=["mystery/larkspur/floor_plan.png"]))
    content = caller.calls[0][1]["content"]
    assert isinstance(content, str) and "1 image(s) of this game are described by their captions" in content
    mixed = ["mystery/larkspur/floor_plan.png", "data:image/png;base64,iVBORw0KGgo="]
    LLMAgent(caller, vision=True).vote(obs(images=mixed))
    parts = caller.calls[1][1]["content"]
    assert [p["image_url"]["url"] for p in parts[1:]] == [mixed[1]]
    assert "1 image(s) of this game are described by their captions" in parts[0]["text"]
    assert "1 image(s) of this game are attached" in parts[0]["text"]


def test_info_declares_vision_false_by_default_and_as_given():
    assert LLMAgent(scripted_caller(["x"])).info()["vision"] is False
    assert LLMAgent(scripted_caller(["x"]), vision=True).info()["vision"] is True


# -- failures ------------------------------------------------------------------------
def test_caller_raising_connection_error_is_agent_failed():
    def caller(messages):
        raise ConnectionError("model server down")

    agent = LLMAgent(caller, name="flaky")
    for verb in ("speak", "vote", "answer"):
        with pytest.raises(AgentError) as err:
            agent.act(obs(verb))
        assert err.value.kind == "agent_failed"
        assert "ConnectionError" in err.value.message and "model server down" in err.value.message
        assert err.value.agent == "flaky"
        assert isinstance(err.value.__cause__, ConnectionError)


def test_caller_raising_agent_error_keeps_its_kind():
    def caller(messages):
        raise AgentError("timeout", "model too slow")

    with pytest.raises(AgentError) as err:
        LLMAgent(caller).speak(obs("speak"))
    assert err.value.kind == "timeout"


@pytest.mark.parametrize("bad", [None, 42, {"text": "P1"}, ["P1"], b"P1"])
def test_caller_returning_non_str_is_bad_reply(bad):
    agent = LLMAgent(lambda messages: bad)
    for verb in ("speak", "vote"):
        with pytest.raises(AgentError) as err:
            agent.act(obs(verb))
        assert err.value.kind == "bad_reply"
        assert type(bad).__name__ in err.value.message


def test_non_str_on_the_reask_is_bad_reply():
    replies = iter(["I cannot tell.", None])
    with pytest.raises(AgentError) as err:
        LLMAgent(lambda messages: next(replies)).vote(obs())
    assert err.value.kind == "bad_reply"


def test_plain_str_caller_gives_no_usage():
    reply = LLMAgent(lambda messages: "Final answer: P1").act(obs())
    assert reply.text == "P1" and reply.usage is None


def test_llmtext_usage_travels_through_speak():
    usage = Usage(prompt_tokens=11, completion_tokens=3)
    reply = LLMAgent(lambda messages: LLMText("It glows.", usage)).act(obs("speak"))
    assert (reply.text, reply.usage) == ("It glows.", usage)
    [call] = reply.meta["model_calls"]  # the turn's one model call, kept for the call record
    assert (call["reply"], call["prompt_tokens"], call["completion_tokens"]) == ("It glows.", 11, 3)
    assert [m["role"] for m in call["messages"]] == ["system", "user"]


def test_every_model_call_of_a_turn_is_reported_with_its_messages():
    """A vote re-asked once: both model calls, with the messages each was sent, in order; a
    failing caller's call is reported with its error."""
    caller = scripted_caller(["I cannot tell.", "P2"])
    reply = LLMAgent(caller).act(obs())
    calls = reply.meta["model_calls"]
    assert [c["reply"] for c in calls] == ["I cannot tell.", "P2"]
    assert [c["messages"] for c in calls] == [list(m) for m in caller.calls]
    assert calls[1]["messages"][-2] == {"role": "assistant", "content": "I cannot tell."}
    assert all(c["seconds"] >= 0 and c["error"] == "" for c in calls)


# -- templates ------------------------------------------------------------------------
def test_custom_templates_override_the_defaults():
    caller = scripted_caller(["P1"])
    agent = LLMAgent(
        caller,
        system_prompts={"spy": "CUSTOM SYSTEM"},
        verb_templates={"vote": "[{you}|{options}|{pick_hint}|{round}|{language}] {instruction}"},
    )
    assert agent.vote(obs()) == "P1"
    system, user = caller.calls[0]
    assert system == {"role": "system", "content": "CUSTOM SYSTEM"}
    assert user == {"role": "user", "content": "[P3|P1, P2, P10|one option|2|English] "
                                               "Vote for the player you think is the spy."}
    # the other verbs and games keep their defaults: the rules the game sends
    agent.speak(obs("speak", game="avalon"))
    assert caller.calls[1][0]["content"] == RULES
    assert "Reply with your statement only" in caller.calls[1][1]["content"]


# -- Observation ----------------------------------------------------------------------
def test_vote_without_options_is_rejected():
    with pytest.raises(ValidationError, match="a vote needs at least one option"):
        Observation(game="spy", verb="vote", you="P1")


def test_pick_larger_than_options_is_rejected():
    with pytest.raises(ValidationError, match="pick=3 exceeds the 2 options"):
        Observation(game="avalon", verb="vote", you="P1", options=["P1", "P2"], pick=3)


@pytest.mark.parametrize("where", ["top", "history", "private", "limits"])
def test_extra_fields_are_rejected(where):
    data = obs().model_dump(mode="json")
    if where == "top":
        data["secret_role"] = "spy"
    elif where == "history":
        data["history"][0]["hidden"] = True
    else:
        data[where]["extra"] = 1
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        Observation.model_validate(data)


@pytest.mark.parametrize("bad", [{"verb": "shout"}, {"pick": 0}, {"language": "French"}, {"language": "fr; rm"},
                                 {"limits": {"seconds": 0}}, {"limits": {"max_chars": 0}}])
def test_other_invalid_values_are_rejected(bad):
    with pytest.raises(ValidationError):
        Observation.model_validate({**obs().model_dump(mode="json"), **bad})


def test_json_round_trip():
    original = obs(images=["data:image/png;base64,AAAA"], language="zh", pick=2, allow_abstain=True)
    again = Observation.model_validate_json(original.model_dump_json())
    assert again == original
    assert Observation.model_validate(json.loads(json.dumps(original.model_dump(mode="json")))) == original


def test_schema_has_the_documented_fields():
    schema = observation_schema()
    props = schema["properties"]
    for name in ("game", "phase", "verb", "you", "private", "history", "options", "option_texts", "pick",
                 "allow_abstain", "instruction", "limits", "images", "language", "match_id",
                 "round", "seats", "rules", "reply_format"):
        assert name in props, name
    assert set(schema["required"]) == {"game", "verb", "you"}
    assert props["verb"]["enum"] == ["speak", "vote", "answer"]
    assert "pattern" in props["language"]  # any language code: the SDK lists no game's languages
    assert schema.get("additionalProperties") is False
    defs = schema["$defs"]
    assert set(defs["HistoryItem"]["properties"]) == {"who", "kind", "text", "round", "data", "images"}
    assert set(defs["PrivateInfo"]["properties"]) == {"facts", "text", "documents", "shared_with"}
    assert set(defs["Document"]["properties"]) == {"title", "kind", "text", "shared_with", "images", "data"}
    assert set(defs["Limits"]["properties"]) == {"max_chars", "seconds"}
    json.dumps(schema)  # serialisable as is


# -- the game's rules and reply format come with the observation --------------------------
def test_the_prompt_is_built_from_what_the_game_sends():
    caller = scripted_caller(["It shines."])
    sent = obs("speak", game="a-game-the-sdk-never-heard-of", language="fr",
               reply_format="Répondez par une seule phrase.")
    LLMAgent(caller).speak(sent)
    system, user = caller.calls[0]
    assert system["content"] == RULES + " Always reply in French."
    assert user["content"].endswith("Répondez par une seule phrase.")


def test_an_observation_without_rules_gets_the_generic_prompt_and_format():
    caller = scripted_caller(["Final answer: P2"])
    LLMAgent(caller).vote(obs(rules=""))
    system, user = caller.calls[0]
    assert system["content"] == GENERIC_SYSTEM
    assert user["content"].endswith(
        "Think briefly, then end with a last line of the form 'Final answer: <one option>'.")
