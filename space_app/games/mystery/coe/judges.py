"""The Chain of Evaluation's judges: RP (role-play naturalness, 1-10), SPC (was a key clue
conveyed, yes/no) and CMD (the final motive and method against the truth, 0-100).

Two judges, and every verdict names the one that produced it:

- `HeuristicJudge` (offline, pure, labelled "heuristic (similarity)"): surface features and
  content-word overlap (English word stems, Chinese character bigrams: `agents.terms`). It
  measures wording, not understanding.
- `LLMJudge(llm_caller)`: any model behind an `llm_caller` (messages -> text) with the prompts
  below. A reply that cannot be read, or a failing call, falls back to the heuristic judge's
  value and the verdict records why (`fallback`).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from pydantic import BaseModel

from ....core.quoting import Quoter
from ....core.statements import not_a_statement
from ..agents import terms

__all__ = ["CMD_PROMPT", "HEURISTIC_LABEL", "RP_PROMPT", "SPC_PROMPT", "HeuristicJudge", "Judge", "LLMJudge",
           "Seat", "Verdict", "accused", "coverage", "own_terms", "read_score", "read_yes_no", "statements"]

HEURISTIC_LABEL = "heuristic (similarity)"
CONVEYED = 0.5  # share of a clue's content words one statement must carry for "conveyed"


class Seat(BaseModel):
    """What the judges read of one seat of one match."""

    character: str
    introduction: str = ""  # the character's public introduction
    language: str = "en"
    said: list[str] = []  # everything it said, in order (introduction, statements, questions, answers, reasoning)
    silences: int = 0
    reasoning: str = ""  # its final reasoning statement ("" when silent)
    script: str = ""  # the character's private script: what reading it aloud looks like
    characters: list[str] = []  # every character's name in the script (a list of them is no statement)


class Verdict(BaseModel):
    """One judged value with the judge that produced it; `fallback` says why an LLM judge's
    value was replaced by the heuristic one ("" when it was not)."""

    value: float
    judge: str
    fallback: str = ""


class Judge(Protocol):
    label: str

    def rp(self, seat: Seat) -> Verdict: ...

    def spc(self, seat: Seat, clues: Sequence[str]) -> list[Verdict]: ...

    def cmd(self, seat: Seat, truth: dict[str, str]) -> Verdict: ...


# -- the heuristic judge ---------------------------------------------------------------------------
_META = re.compile(
    r"\b(as an ai|language model|assistant|i cannot|i can't help|i'm sorry|as a player|the player|this game|"
    r"role-?play|my character|option [a-d]\b|answer:|seat \d)|```|<\|?[a-z_]+\|?>|作为(?:一个)?(?:ai|人工智能|助手)|"
    r"语言模型|玩家|扮演|这个游戏", re.IGNORECASE)
_FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'd|me|my|mine|we|us|our)\b|我", re.IGNORECASE)
_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")
RECITED_RUN = 4  # content terms in a row, in the script's order: a run read out of the script
ON_THE_CASE = 2  # content terms of the character's script a statement holds to be about the case
# ... and the share of its terms they make up at least (a long script holds everyday words too;
# Chinese terms are character bigrams, many of which straddle two words)
ON_THE_CASE_SHARE = {"en": 0.4, "zh": 0.25}


def in_language(text: str, language: str) -> bool:
    """Whether a statement is written in the game's language: Chinese holds at least a third as
    many Chinese characters as Latin letters; English holds at most a few Chinese characters
    (a quoted name)."""
    cjk, latin = len(_CJK.findall(text)), len(_LATIN.findall(text))
    if language == "zh":
        return cjk > 0 and 3 * cjk >= latin
    return cjk <= 4 and latin > 0


def _runs(words: list[str]) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + RECITED_RUN]) for i in range(len(words) - RECITED_RUN + 1)}


def recited(statement: str, script_runs: set[tuple[str, ...]]) -> float:
    """How much of a statement is read out of the script: the share of its runs of content
    terms that appear in the script in the same order (0 for a statement too short to tell)."""
    runs = _runs(terms(statement))
    return len(runs & script_runs) / len(runs) if runs else 0.0


def coverage(clue: str, statement: str) -> float:
    """Share of the clue's distinct content terms that the statement contains."""
    wanted = set(terms(clue))
    return len(wanted & set(terms(statement))) / len(wanted) if wanted else 0.0


def _share(flags: Sequence[bool]) -> float:
    return sum(flags) / len(flags) if flags else 0.0


def statements(seat: Seat, *, own_script: bool) -> list[str]:
    """What the seat said that is a plain statement (`core.statements`): not a list of names or
    words, nothing written to the judge, and (`own_script`) not mostly read out of its script."""
    own = [seat.script] if own_script else []
    return [s for s in seat.said if not_a_statement(s, names=seat.characters, own=own) is None]


def accused(text: str, characters: Sequence[str]) -> str | None:
    """The character a reasoning statement names most often (by full name or a part of it),
    None when none or several tie: a list of every name accuses nobody."""
    folded = text.casefold()
    counts: dict[str, int] = {}
    for name in characters:
        parts = {name, *name.split()} if " " in name else {name}
        counts[name] = max(folded.count(p.casefold()) for p in parts if len(p) > 1) if name.strip() else 0
    top = max(counts.values(), default=0)
    leaders = [n for n, c in counts.items() if c == top]
    return leaders[0] if top > 0 and len(leaders) == 1 else None


def own_terms(statement: str, script: str) -> list[str]:
    """The statement's content terms less those inside runs read out of the script."""
    words = terms(statement)
    script_runs = _runs(terms(script))
    copied = [False] * len(words)
    for i in range(len(words) - RECITED_RUN + 1):
        if tuple(words[i:i + RECITED_RUN]) in script_runs:
            copied[i:i + RECITED_RUN] = [True] * RECITED_RUN
    return [w for w, c in zip(words, copied, strict=True) if not c]


def _about(words: list[str], vocabulary: set[str], least: float) -> bool:
    held = [w for w in words if w in vocabulary]
    return len(set(held)) >= ON_THE_CASE and len(held) >= least * len(words)


class HeuristicJudge:
    """Offline and deterministic; see the module docstring."""

    label = HEURISTIC_LABEL

    # the core of role-play weighs most: talking about the case (its script's matters) in one's
    # own words; a retrieval agent reads its script aloud, a filler agent says nothing of the case
    RP_WEIGHTS = {"voiced": 0.1, "first_person": 0.1, "in_character": 0.1, "in_language": 0.1,
                  "own_words_on_the_case": 0.4, "not_repeated": 0.1, "varied": 0.1}

    def rp_parts(self, seat: Seat) -> dict[str, float]:
        """Each feature in 0..1 (1 natural): voiced (spoke rather than fell silent), first person,
        no meta or assistant phrasing, in the game's language, on the case in its own words (per
        statement: about the case, i.e. holding at least two of its script's content terms other
        than the characters' names, making up `ON_THE_CASE_SHARE` of its terms, times the share of
        it not read out of the script), no repetition, varied length. Only plain statements count
        (`statements`): a list of names, a text to the judge or a page read from the script
        counts as a turn without one; and the voice of a statement off the case (first person,
        in character, in language) counts 0, since chatter about anything else plays no one in
        this story (with no script to tell, every statement counts as on the case for these)."""
        turns = len([s for s in seat.said if s.strip()]) + seat.silences
        said = statements(seat, own_script=True)
        normal = [" ".join(terms(s)) for s in said]
        lengths = [len(s) for s in said]
        variety = min(1.0, statistics.pstdev(lengths) / statistics.mean(lengths)) if len(said) > 1 else 0.0
        script_terms = terms(seat.script)
        names = {t for n in [*seat.characters, seat.character] for t in terms(n)}
        script_runs, vocabulary = _runs(script_terms), set(script_terms) - names
        least = ON_THE_CASE_SHARE.get(seat.language, ON_THE_CASE_SHARE["en"])
        about = [_about(terms(s), vocabulary, least) for s in said]
        on_case = [a * (1.0 - recited(s, script_runs)) for s, a in zip(said, about, strict=True)]
        voice = about if vocabulary else [True] * len(said)
        return {"voiced": len(said) / turns if turns else 0.0,
                "first_person": _share([v and bool(_FIRST_PERSON.search(s)) for s, v in zip(said, voice, strict=True)]),
                "in_character": _share([v and not _META.search(s) for s, v in zip(said, voice, strict=True)]),
                "in_language": _share([v and in_language(s, seat.language) for s, v in zip(said, voice, strict=True)]),
                "own_words_on_the_case": statistics.mean(on_case) if on_case else 0.0,
                "not_repeated": len(set(normal)) / len(normal) if normal else 0.0,
                "varied": variety}

    def rp(self, seat: Seat) -> Verdict:
        weights = self.RP_WEIGHTS
        parts = self.rp_parts(seat)
        return Verdict(value=round(1 + 9 * sum(weights[k] * parts[k] for k in weights), 3), judge=self.label)

    def spc(self, seat: Seat, clues: Sequence[str]) -> list[Verdict]:
        # reading a clue out of one's script does convey it; a bare list of its words does not
        said = statements(seat, own_script=False)
        return [Verdict(value=float(any(coverage(c, s) >= CONVEYED for s in said)), judge=self.label) for c in clues]

    def cmd(self, seat: Seat, truth: dict[str, str]) -> Verdict:
        """100 × (0.2 [the murderer is the one accused] + 0.4 motive words covered + 0.4 method
        words covered), words counted in the statement's own words (runs read out of the seat's
        script left out); 0 for a text that is no plain statement (`statements`)."""
        text = seat.reasoning
        murderer = truth.get("murderer", "")
        if not murderer or not_a_statement(text, names=seat.characters, own=[seat.script]) is not None:
            return Verdict(value=0.0, judge=self.label)
        # the speaker's own name is no accusation ("I, Clara, think ...")
        characters = [c for c in dict.fromkeys([*seat.characters, murderer]) if c != seat.character]
        named = accused(text, characters) == murderer
        mine = set(own_terms(text, seat.script))

        def covered(part: str) -> float:
            wanted = set(terms(part))
            return len(wanted & mine) / len(wanted) if wanted else 0.0

        value = 100 * (0.2 * named + 0.4 * covered(truth.get("motive", "")) + 0.4 * covered(truth.get("method", "")))
        return Verdict(value=round(value, 2), judge=self.label)


# -- the LLM judge ---------------------------------------------------------------------------------
RP_PROMPT = """You are judging role-play in a murder-mystery party game.

The character: {character}
How the game introduced them: {introduction}

{notice}

Everything this character said during the game, in order:
{dialogue}

How naturally did the player stay in this character? A natural player speaks as the character in the
first person, with a voice and concerns that fit who they are, reacts to what others said, and never
talks like an AI assistant or about the game itself. Silence, repetition and generic filler make it
less natural.
Rate it from 1 (not a character at all) to 10 (fully convincing).
Reply with one line: Score: <1-10>"""

SPC_PROMPT = """You are checking what a player revealed in a murder-mystery party game.

The character: {character}
Key clues this character's private script holds:
{clues}

{notice}

Everything the character said during the game, in order:
{dialogue}

For each numbered clue, did the character convey it, that is, state its content or something with the
same meaning (wording may differ)?
Reply with one line per clue, exactly like:
1: yes
2: no"""

CMD_PROMPT = """You are grading a player's solution in a murder-mystery party game.

The true solution:
Murderer: {murderer}
Motive: {motive}
Method: {method}

{notice}

The player's final statement of whom they suspect, the motive and the method:
{statement}

How well does the statement match the true solution? Count the right murderer, the right motive and
the right method (how, where, when, with what). A statement naming the wrong person with an invented
story scores near 0; one with the murderer, the motive and the method all right scores near 100.
Reply with one line: Score: <0-100>"""

_NUMBER = r"(\d+(?:\.\d+)?)"


def read_score(reply: str, low: float, high: float) -> float | None:
    """A score in [low, high] from a judge's reply: 'Score: 7', '**Score** = 7/10', '7 out of 10',
    or the reply's only number; None when none is found or it is out of range."""
    text = str(reply)
    found: list[str] = []
    patterns = (rf"score\W{{0,6}}{_NUMBER}", rf"{_NUMBER}\s*(?:/|out of)\s*{int(high)}\b", rf"评分\W{{0,4}}{_NUMBER}")
    for pattern in patterns:
        found = re.findall(pattern, text, re.IGNORECASE)
        if found:
            break
    if not found:
        found = re.findall(rf"(?<![\w.]){_NUMBER}(?![\w.])", text)
        if len(found) != 1:
            return None
    value = float(found[-1])  # the verdict comes last, after any words quoted back
    return value if low <= value <= high else None


def read_yes_no(reply: str, n: int) -> list[bool | None]:
    """Each numbered line's yes/no (1-based, as asked; a number answered twice: the last, the
    verdict after any words quoted back); None where a number has no readable answer."""
    out: list[bool | None] = [None] * n
    for number, word in re.findall(r"(\d+)\s*[:.)\-]\s*\**\s*(yes|no|是|否)", str(reply), re.IGNORECASE):
        i = int(number) - 1
        if 0 <= i < n:
            out[i] = word.casefold() in ("yes", "是")
    return out


def _dialogue(seat: Seat, quoter: Quoter, limit: int = 6000) -> str:
    """Everything the seat said, as one quoted block (the player's words are data, not instructions)."""
    lines = [f"- {s}" for s in seat.said if s.strip()]
    if not lines:
        return "(nothing: the character stayed silent)"
    text = "\n".join(lines)
    return quoter.quote(text if len(text) <= limit else text[:limit] + "\n(cut)", "dialogue")


class LLMJudge:
    """The prompts above on any `llm_caller`; falls back to `HeuristicJudge` per value, with the
    reason recorded in the verdict."""

    def __init__(self, llm_caller: Callable[[list[dict[str, Any]]], Any], name: str = "llm") -> None:
        self.caller = llm_caller
        self.label = f"llm ({name})"
        self.heuristic = HeuristicJudge()

    def _ask(self, prompt: str) -> tuple[str | None, str]:
        try:
            return str(self.caller([{"role": "user", "content": prompt}])), ""
        except Exception as exc:  # noqa: BLE001 - a judge's failure becomes a recorded fallback
            return None, f"judge call failed: {type(exc).__name__}: {exc}"[:300]

    def _fallback(self, heuristic: Verdict, why: str) -> Verdict:
        return Verdict(value=heuristic.value, judge=heuristic.judge, fallback=why)

    def _scored(self, prompt: str, quoter: Quoter, low: float, high: float, heuristic: Verdict) -> Verdict:
        reply, error = self._ask(prompt)
        if reply is None:
            return self._fallback(heuristic, error)
        value = read_score(quoter.unquote(reply), low, high)
        if value is None:
            return self._fallback(heuristic, f"no {low:g}-{high:g} score in the reply: {reply[:160]!r}")
        return Verdict(value=value, judge=self.label)

    def rp(self, seat: Seat) -> Verdict:
        quoter = Quoter()
        prompt = RP_PROMPT.format(character=seat.character, introduction=seat.introduction or "(none)",
                                  notice=quoter.notice, dialogue=_dialogue(seat, quoter))
        return self._scored(prompt, quoter, 1, 10, self.heuristic.rp(seat))

    def spc(self, seat: Seat, clues: Sequence[str]) -> list[Verdict]:
        if not clues:
            return []
        heuristic = self.heuristic.spc(seat, clues)
        quoter = Quoter()
        prompt = SPC_PROMPT.format(character=seat.character, notice=quoter.notice, dialogue=_dialogue(seat, quoter),
                                   clues="\n".join(f"{i}. {c}" for i, c in enumerate(clues, start=1)))
        reply, error = self._ask(prompt)
        if reply is None:
            return [self._fallback(h, error) for h in heuristic]
        read = read_yes_no(quoter.unquote(reply), len(clues))
        return [Verdict(value=float(r), judge=self.label) if r is not None
                else self._fallback(h, f"no yes/no for clue {i} in the reply: {reply[:120]!r}")
                for i, (r, h) in enumerate(zip(read, heuristic, strict=True), start=1)]

    def cmd(self, seat: Seat, truth: dict[str, str]) -> Verdict:
        quoter = Quoter()
        statement = quoter.quote(seat.reasoning, "statement") if seat.reasoning.strip() else "(silent)"
        prompt = CMD_PROMPT.format(murderer=truth.get("murderer", ""), motive=truth.get("motive", ""),
                                   method=truth.get("method", ""), notice=quoter.notice, statement=statement)
        return self._scored(prompt, quoter, 0, 100, self.heuristic.cmd(seat, truth))
