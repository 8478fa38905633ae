"""Default prompt templates: the game's own rules as the system prompt, one user template per
verb ending with the game's reply format (both carried by the observation).

Templates are plain `str.format` strings over the fields of `render_fields(obs)`;
pass your own to `LLMAgent(system_prompts=..., verb_templates=...)` to override.
"""

from __future__ import annotations

from .observation import Observation

Message = dict  # {"role": "system"|"user"|"assistant", "content": str | list}

# used only when an observation carries no rules (an arena before SDK 0.3.0): the game's own
# rules text is the system prompt otherwise, so the SDK knows no game
GENERIC_SYSTEM = "You are an agent in a social-deduction game. Follow the instruction exactly."
# how a system prompt asks for the game's language (an unknown code is named as it is)
LANGUAGE_NAMES = {"en": "English", "zh": "Chinese", "fr": "French", "de": "German", "es": "Spanish",
                  "ja": "Japanese", "ko": "Korean", "ru": "Russian", "pt": "Portuguese", "it": "Italian"}

# How a reply is read, in English: the arena's kernel words every observation's `reply_format`
# with these lines (and their translations); an observation without one gets them here.
REPLY_FORMATS: dict[str, str] = {
    "speak": "Reply with your statement only, at most {max_chars} characters.",
    "choose": "Think briefly, then end with a last line of the form 'Final answer: <{pick}>'.{abstain}",
    "answer": "Answer concisely, at most {max_chars} characters.",
    "pick_one": "one option",
    "pick_many": "{n} different options, comma-separated",
    "abstain": " You may also answer 'abstain'.",
}

VERB_TEMPLATES: dict[str, str] = {
    "speak": "You are {you}. {private}\n\nWhat happened so far:\n{history}\n\n{instruction}\n{reply_format}",
    "vote": (
        "You are {you}. {private}\n\nWhat happened so far:\n{history}\n\n{instruction}\n"
        "Options: {options}.\n{reply_format}"
    ),
    "answer": (
        "You are {you}. {private}\n\nWhat happened so far:\n{history}\n\n{instruction}\n"
        "{options_line}{reply_format}"
    ),
}

REASK_TEMPLATE = (
    "Your reply could not be read as a valid choice ({reason}). Reply with nothing but "
    "{pick_hint} (its label) from: {options}."
)

# Asked once when the model's reply stopped at its token limit (finish_reason "length").
SHORTER_TEMPLATES: dict[str, str] = {
    "speak": ("Your reply was cut off at the length limit. Reply again with one short statement "
              "only, at most {max_chars} characters, and nothing else."),
    "vote": ("Your reply was cut off at the length limit before it gave a choice. Reply with "
             "nothing but {pick_hint} (its label) from: {options}."),
    "answer": ("Your reply was cut off at the length limit. Answer again in one or two short "
               "sentences, nothing else."),
}


def render_fields(obs: Observation, max_history: int = 60) -> dict[str, str]:
    pick_hint = REPLY_FORMATS["pick_one"] if obs.pick == 1 else REPLY_FORMATS["pick_many"].format(n=obs.pick)
    return {
        "you": obs.you,
        "game": obs.game,
        "phase": obs.phase,
        "private": obs.private_text(),
        "history": obs.history_text(last=max_history) or "(nothing yet)",
        "instruction": obs.instruction,
        "options": obs.options_text(),
        "options_line": f"Options: {obs.options_text()}.\n" if obs.options else "",
        # one option per line, "A) its text" (for answer templates that list them)
        "options_lines": "\n".join(f"{o}) {obs.option_texts[o]}" if o in obs.option_texts else o
                                   for o in obs.options),
        "pick": str(obs.pick),
        "pick_hint": pick_hint,
        "abstain": " You may also answer 'abstain'." if obs.allow_abstain else "",
        # a question with options is read like a vote: the final-answer line is the surest
        "answer_hint": (f"Answer concisely, ending with a last line of the form 'Final answer: <{pick_hint}>'."
                        if obs.options else "Answer concisely."),
        "max_chars": str(obs.limits.max_chars),
        "round": "" if obs.round is None else str(obs.round),
        "language": language_name(obs.language),
        "rules": obs.rules,
        "reply_format": obs.reply_format or fallback_format(obs, pick_hint),
    }


def language_name(code: str) -> str:
    return LANGUAGE_NAMES.get(code.split("-")[0], code)


def fallback_format(obs: Observation, pick_hint: str) -> str:
    """The reply format when the arena sent none (before SDK 0.3.0 the SDK wrote it)."""
    if obs.verb == "vote" or obs.options:
        abstain = REPLY_FORMATS["abstain"] if obs.allow_abstain else ""
        return REPLY_FORMATS["choose"].format(pick=pick_hint, abstain=abstain)
    return REPLY_FORMATS["speak" if obs.verb == "speak" else "answer"].format(max_chars=obs.limits.max_chars)


def system_prompt(obs: Observation, overrides: dict[str, str] | None = None) -> str:
    """The system message: the author's own prompt for this game if given, else the game's
    rules as the observation carries them, asking for the game's language."""
    system = (overrides or {}).get(obs.game) or obs.rules or GENERIC_SYSTEM
    if obs.language != "en":
        system += f" Always reply in {language_name(obs.language)}."
    return system


FETCHABLE = ("data:image/", "https://", "http://")


def user_content(text: str, images: list[str], *, vision: bool) -> str | list[dict]:
    """The user message's content for an observation's `images`.

    With `vision`, images a model endpoint can read (data URLs, web addresses) become
    OpenAI-style `image_url` parts after the text, and the text says how many are attached.
    An arena's own image references (e.g. `<game>/<script>/<file>`, sent to agents that do
    not declare vision) cannot be fetched by an endpoint, and a text-only model reads no
    image at all: those are left out and the text says the captions stand in. Without
    `vision` the content is always plain text."""
    usable = [url for url in images if url.startswith(FETCHABLE)] if vision else []
    left_out = len(images) - len(usable)
    if left_out:
        text += (f"\n\n({left_out} image(s) of this game are described by their captions above; "
                 "the pictures themselves are not attached.)")
    if not usable:
        return text
    text += (f"\n\n({len(usable)} image(s) of this game are attached after this text, in order; "
             "a caption in the text above describes the same picture.)")
    parts: list[dict] = [{"type": "text", "text": text}]
    parts += [{"type": "image_url", "image_url": {"url": url}} for url in usable]
    return parts
