"""Turn a free-text vote into exactly valid options, or say why it cannot.

Rules, in order of preference:
1. a JSON answer (``{"vote": "P3"}``, ``{"team": ["P1", "P4"]}``), anywhere in the reply;
2. an explicit final answer ("Final answer: P3", "I vote for P3", "Vote: P3"), the last one wins;
3. the whole reply is an option;
4. the last line names exactly the options needed;
5. the whole reply names exactly the options needed.
Options match as whole tokens ("P1" never matches inside "P10"), case-insensitively,
longest first, except that in free text (rules 4 and 5) a one- or two-letter label must
match its case: "I think a person would pick B" names B, not the article "a". When an
observation gives option texts ({"A": "the kitchen"}) and no rule finds a label, a reply
that names exactly the needed option texts is read as those options (rule 6).
Multi-picks are de-duplicated. Anything else is reported, not repaired.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from .observation import ABSTAIN

_ABSTAIN_WORDS = re.compile(
    r"\b(abstain|abstention|no vote|pass|skip)\b|弃权|不投", re.IGNORECASE
)
_JSON_KEYS = ("vote", "votes", "choice", "choices", "answer", "pick", "picks", "team",
              "target", "option", "options", "final_answer", "final")
_EXPLICIT = re.compile(
    # strong phrases stand alone; bare keywords ("vote", "team") need "is" or a colon,
    # so "P2 got a vote from P3" in the reasoning is not taken for an answer
    r"(?:(?:final\s+(?:answer|vote|choice)|my\s+(?:final\s+)?(?:vote|answer|choice|team)|"
    r"i\s+(?:will\s+)?(?:vote(?:\s+for)?|choose|pick|select|propose)|"
    r"最终答案|我投给|我投|投票给|我选)\s*(?:is|are|=|:|：|-|—)?"
    r"|(?:answer|vote|choice|team|pick|答案|投票|选择)\s*(?:is|are|=|:|：))"
    # `rest` is a lookahead, so a later marker on the same line is still found
    # ("Final answer: P2. Actually, final answer: P7" -> P7)
    r"\s*(?=(?P<rest>[^\n]*))",
    re.IGNORECASE,
)


@dataclass
class Choice:
    picks: list[str] = field(default_factory=list)
    abstain: bool = False
    ok: bool = False
    reason: str = ""
    via: str = ""  # which rule matched: json, explicit, exact, last_line, whole

    def as_text(self) -> str:
        if self.abstain:
            return ABSTAIN
        return ", ".join(self.picks)


def _is_ascii_word(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch == "_")


def _is_short_label(option: str) -> bool:
    return len(option) <= 2 and option.isascii() and option.isalpha()


def _option_pattern(option: str, strict_case: bool = False) -> re.Pattern[str]:
    # Word boundaries only where the option itself starts/ends with an ASCII word
    # character: CJK text has no spaces, so "我投张三" must still match "张三".
    head = r"(?<![A-Za-z0-9_])" if option and _is_ascii_word(option[0]) else ""
    tail = r"(?![A-Za-z0-9_])" if option and _is_ascii_word(option[-1]) else ""
    flags = 0 if strict_case and _is_short_label(option) else re.IGNORECASE
    return re.compile(head + re.escape(option) + tail, flags)


def find_options(text: str, options: list[str], strict_case: bool = False) -> list[str]:
    """Options named in `text`, in order of first appearance, de-duplicated.
    `strict_case`: short letter labels ("A", "b") must match their case (free text)."""
    spans: list[tuple[int, int, str]] = []
    taken = [False] * len(text)
    for option in sorted(set(options), key=len, reverse=True):
        for m in _option_pattern(option, strict_case).finditer(text):
            if any(taken[m.start():m.end()]):
                continue
            for i in range(m.start(), m.end()):
                taken[i] = True
            spans.append((m.start(), m.end(), option))
    spans.sort()
    seen: list[str] = []
    for _, _, option in spans:
        if option not in seen:
            seen.append(option)
    return seen


def _json_candidates(text: str) -> list[object]:
    found: list[object] = []
    stripped = text.strip()
    blocks = re.findall(r"```(?:json)?\s*(.*?)```", text, re.DOTALL)
    for chunk in [stripped, *blocks, *re.findall(r"\{[^{}]*\}", text)]:
        try:
            found.append(json.loads(chunk))
        except (ValueError, TypeError):
            continue
    return found


def _from_json(value: object, options: list[str]) -> tuple[list[str], bool] | None:
    """(picks, abstain) if the JSON value names options, else None."""
    if isinstance(value, dict):
        for key in _JSON_KEYS:
            for k, v in value.items():
                if k.lower() == key:
                    got = _from_json(v, options)
                    if got is not None:
                        return got
        return None
    if value is None:
        return [], True
    if isinstance(value, str):
        if value.strip().lower() in (ABSTAIN, "none", "pass", ""):
            return [], True
        exact = [o for o in options if o.lower() == value.strip().lower()]
        return (exact, False) if exact else None
    if isinstance(value, list):
        picks: list[str] = []
        for item in value:
            if not isinstance(item, str):
                return None
            exact = [o for o in options if o.lower() == item.strip().lower()]
            if not exact:
                return None
            if exact[0] not in picks:
                picks.append(exact[0])
        return picks, False
    return None


def _by_text(body: str, options: list[str], texts: dict[str, str]) -> list[str]:
    """Options whose text the reply quotes (whole phrase, any case), in order of appearance."""
    found: list[tuple[int, str]] = []
    lowered = body.casefold()
    for option in options:
        phrase = (texts.get(option) or "").strip().casefold()
        if len(phrase) >= 3:
            at = lowered.find(phrase)
            if at >= 0:
                found.append((at, option))
    return [o for _, o in sorted(found)]


def parse_choice(text: object, options: list[str], pick: int = 1,
                 allow_abstain: bool = False, texts: dict[str, str] | None = None) -> Choice:
    if not isinstance(text, str):
        return Choice(reason=f"reply is {type(text).__name__}, not text")
    if not options:
        return Choice(reason="no options to choose from")
    body = text.strip()
    if not body:
        return Choice(reason="empty reply")

    def done(picks: list[str], via: str) -> Choice:
        if len(picks) == pick:
            return Choice(picks=picks, ok=True, via=via)
        return Choice(picks=picks, via=via,
                      reason=f"needs {pick} option(s), found {len(picks)}: {picks}")

    # 1. JSON
    for candidate in _json_candidates(body):
        got = _from_json(candidate, options)
        if got is None:
            continue
        picks, abstain = got
        if abstain:
            if allow_abstain:
                return Choice(abstain=True, ok=True, via="json")
            return Choice(reason="abstention is not allowed here", via="json")
        return done(picks, "json")

    # 2. explicit final answer: the last one that names options wins
    markers = list(_EXPLICIT.finditer(body))
    for i in reversed(range(len(markers))):
        m = markers[i]
        end = m.end("rest")
        if i + 1 < len(markers):  # stop at the next marker on the same line
            end = min(end, markers[i + 1].start())
        rest = body[m.start("rest"):end]
        named = find_options(rest, options)
        if named:
            return done(named[:pick] if len(named) > pick and pick == 1 else named, "explicit")
        if allow_abstain and _ABSTAIN_WORDS.search(rest):
            return Choice(abstain=True, ok=True, via="explicit")

    # 3. the whole reply is an option (or the abstain word)
    bare = body.strip(" .!\"'`*[]()")
    exact = [o for o in options if o.lower() == bare.lower()]
    if exact:
        return done(exact, "exact")
    if bare.lower() == ABSTAIN or _ABSTAIN_WORDS.fullmatch(bare):
        if allow_abstain:
            return Choice(abstain=True, ok=True, via="exact")
        return Choice(reason="abstention is not allowed here", via="exact")

    # 4. last line, 5. whole reply
    lines = [ln for ln in body.splitlines() if ln.strip()]
    last = find_options(lines[-1], options, strict_case=True) if lines else []
    if len(last) == pick:
        return Choice(picks=last, ok=True, via="last_line")
    named = find_options(body, options, strict_case=True)
    if len(named) == pick:
        return Choice(picks=named, ok=True, via="whole")
    # 6. the option texts themselves
    if texts and len(named) != pick:
        quoted = _by_text(body, options, texts)
        if len(quoted) == pick:
            return Choice(picks=quoted, ok=True, via="text")
    if not named:
        if allow_abstain and _ABSTAIN_WORDS.search(body):
            return Choice(abstain=True, ok=True, via="whole")
        return Choice(reason="the reply names none of the options")
    return Choice(picks=named, reason=f"ambiguous: needs {pick} option(s), the reply names {named}")
