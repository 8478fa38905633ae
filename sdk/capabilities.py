"""What a model endpoint can read: how endpoints say they refuse pictures, and the small
picture and question the arena sends a vision agent at registration to find out.

An endpoint without an image encoder answers an `image_url` part with an error, worded by
each server in its own way (llama.cpp's server: "image input is not supported"; OpenAI:
"image_url is only supported by certain models"; vLLM: "... is not a multimodal model").
`openai_caller` passes that wording on in its `AgentError`, so both the agent and the
arena can recognise it from the error's text alone.
"""

from __future__ import annotations

import re

from .observation import Limits, Observation

# one pattern per way servers word it; matched case-insensitively anywhere in an error's text
_REFUSALS = re.compile(
    r"images?[\w ]{0,30}\b(is|are) not (supported|allowed|enabled)"
    r"|(does not|doesn't|do not|cannot|can't|unable to) (support|accept|read|process|handle)\w*[\w ]{0,30}\bimages?"
    r"|unsupported[\w :]{0,30}\bimage|\bimage[\w :]{0,30}\bunsupported"
    r"|image_url[\w ]{0,40}only supported"
    r"|not a multimodal model|no (vision|image) (support|encoder|projector)",
    re.IGNORECASE,
)

# a 16x16 red square (PNG, 83 bytes): small enough to cost nothing, plain enough to name
PROBE_IMAGE = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAGklEQVR42mO8IyfH"
               "QApgYiARjGoY1TB0NAAAjEsBOPY5fDQAAAAASUVORK5CYII=")
PROBE_OPTIONS = {"A": "red", "B": "green", "C": "blue"}
PROBE_ANSWER = "A"


def refuses_images(error_text: str) -> bool:
    """Whether an error's text says the model endpoint cannot take image input."""
    return bool(_REFUSALS.search(error_text or ""))


def probe_observation(game: str, seconds: float = 20.0) -> Observation:
    """The question a vision agent is asked at registration: the colour of `PROBE_IMAGE`."""
    return Observation(
        game=game, phase="capability check", verb="answer", you="P1", images=[PROBE_IMAGE],
        options=list(PROBE_OPTIONS), option_texts=dict(PROBE_OPTIONS),
        instruction="This is a check of whether you can see pictures, not a game turn. "
                    "What colour is the attached square?",
        reply_format="End with a line 'Final answer: X', X being one option's letter.",
        limits=Limits(max_chars=400, seconds=seconds))


__all__ = ["PROBE_ANSWER", "PROBE_IMAGE", "PROBE_OPTIONS", "probe_observation", "refuses_images"]
