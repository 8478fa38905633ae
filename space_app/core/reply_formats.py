"""How a reply to each kind of request is read, said to the agent in the game's language: the
kernel writes it into every observation (`Observation.reply_format`), so an agent builds its
prompt from what the game sends and no agent needs a line of per-game code. The wording matches
what the reader accepts (`core/replies.py`, the SDK's `parse_choice`): a statement is cut to the
turn's limit; a choice is read from its last 'Final answer:' line, by label first."""

from __future__ import annotations

from sdk.observation import Verb
from sdk.prompts import REPLY_FORMATS

from .phrasebook import Phrasebook

FORMATS = Phrasebook({
    "en": REPLY_FORMATS,  # the SDK's own wording, which it uses when an observation has none
    "zh": {
        "speak": "只回复你的发言本身，不超过{max_chars}个字符。",
        "choose": "先简短思考，最后单独一行写成“最终答案：<{pick}>”。{abstain}",
        "answer": "简洁作答，不超过{max_chars}个字符。",
        "pick_one": "一个选项",
        "pick_many": "{n}个不同的选项，用逗号分隔",
        "abstain": "你也可以回答“abstain”（弃权）。",
    },
})


def reply_format(verb: Verb, language: str, *, options: list[str], pick: int = 1, allow_abstain: bool = False,
                 max_chars: int = 400) -> str:
    """The reply format for one request: a statement, or a choice among `options`."""
    if verb == "vote" or options:
        picked = FORMATS.say(language, "pick_one") if pick == 1 else FORMATS.say(language, "pick_many", n=pick)
        abstain = FORMATS.say(language, "abstain") if allow_abstain else ""
        return FORMATS.say(language, "choose", pick=picked, abstain=abstain)
    return FORMATS.say(language, "speak" if verb == "speak" else "answer", max_chars=max_chars)


__all__ = ["FORMATS", "reply_format"]
