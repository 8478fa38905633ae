"""Who is the Spy: pure rules.

Defaults (each a setting): 6 players, 1 spy, a seeded random opener, 3 rounds of
statements and votes, 10 s per reply, statements cut to 400 (English) / 120
(Chinese) characters. A statement is a foul when it contains the speaker's own
word, repeats an earlier statement of the game, or is empty/missing. Foulers are
eliminated after the round's statements, then everyone left votes (or abstains);
most votes is out, a tie eliminates nobody. The game ends when fewer than 3 players
survive, the spy is out, or the rounds are done. Scores sum to 12 (see `score`).
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from sdk.observation import ABSTAIN

from ...core.events import Private
from ...core.game import SPECTATORS, Game, Outcome, Request
from .events import Elimination, End, Foul, RoundStart, SpySetup, Start, Statement, Vote, VoteResult, WithheldStatement
from .phrases import PHRASES
from .words import WordPair, load_builtin_pairs

SPY, CIVILIAN = "spy", "civilian"
# Base points by the round in which the spy is eliminated: (spy, civilians' share).
ELIMINATION_POINTS = {1: (0.0, 12.0), 2: (4.0, 8.0), 3: (8.0, 4.0)}
SPY_WIN_POINTS = (12.0, 0.0)
# replies that skip the turn rather than describe (after normalise_statement)
SKIP_WORDS = frozenset({"pass", "skip", "i pass", "no comment", "nothing", "过", "跳过", "不说"})


class SpyDeal(BaseModel):
    """A fixed deal: the spy's seat (an index from 0: 0 is P1) and the word pair, which must be one
    of the game's pairs (the built-in ones of the match's language, or the `pairs` pool given)."""

    model_config = ConfigDict(extra="forbid")
    spy: int = Field(ge=0)
    pair: WordPair

    @field_validator("pair", mode="before")
    @classmethod
    def _pair_text(cls, value: object) -> object:
        if isinstance(value, str):  # "tea/coffee": civilian/spy, as the --pair shorthand reads it
            civilian, _, spy = value.partition("/")
            if not spy:
                raise ValueError("a pair looks like civilian/spy, e.g. tea/coffee")
            return {"civilian": civilian, "spy": spy}
        return value


class SpySettings(BaseModel):
    players: int = Field(default=6, ge=4, le=12)
    rounds: int = Field(default=3, ge=1, le=3)  # scoring is defined for up to 3 rounds
    min_survivors: int = Field(default=3, ge=2)
    seconds: float = Field(default=10.0, gt=0)
    max_chars_en: int = Field(default=400, ge=1)
    max_chars_zh: int = Field(default=120, ge=1)
    language: Literal["en", "zh"] = "en"
    # belief probes (`core/probes.py`): off by default, and left out of the stored settings when off,
    # so a match without them records (and replays) exactly as before they existed
    probes: bool = Field(default=False, exclude_if=lambda on: not on)
    difficulty: Literal["easy", "medium", "hard"] | None = None
    pair: WordPair | None = None  # a fixed pair; otherwise drawn with the seed
    # the pool to draw from instead of the built-in pairs (e.g. a user's pairs file); not
    # stored with the match: the drawn pair is, in its setup event
    pairs: list[WordPair] | None = Field(default=None, min_length=1, exclude=True)
    # a fixed deal instead of the seed's draws of the pair and the spy; left out of the stored
    # settings when not given, so a match without one records (and replays) exactly as before
    deal: SpyDeal | None = Field(default=None, exclude_if=lambda deal: deal is None)

    @model_validator(mode="after")
    def _deal_fits(self) -> SpySettings:
        deal = self.deal
        if deal is None:
            return self
        if deal.spy >= self.players:
            raise ValueError(f"deal: the spy's seat {deal.spy} is outside the table "
                             f"(seats 0-{self.players - 1}, 0 being P1)")
        pool = self.pairs or load_builtin_pairs(self.language)
        words = (deal.pair.civilian, deal.pair.spy)
        found = next((p for p in pool if (p.civilian, p.spy) == words), None)
        if found is None:
            where = "the pairs given" if self.pairs else f"the built-in {self.language} pairs"
            raise ValueError(f"deal: the word pair {deal.pair.civilian}/{deal.pair.spy} is not one of {where}")
        if self.pair is not None and (self.pair.civilian, self.pair.spy) != words:
            raise ValueError("deal: its word pair is not the one the 'pair' setting fixes; give one of the two")
        deal.pair = found  # recorded whole (difficulty, category), as the pool has it
        return self

    @property
    def max_chars(self) -> int:
        return self.max_chars_zh if self.language == "zh" else self.max_chars_en


@lru_cache(maxsize=8192)  # a pure function of its text, asked several times per statement
def normalise_statement(text: str) -> str:
    """Case, width, punctuation and spacing do not make a statement new."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join(ch for ch in text if not unicodedata.category(ch).startswith("P"))
    return re.sub(r"\s+", " ", text).strip()


# English plurals that no suffix rule forms (a compound ending in one takes it too).
IRREGULAR_PLURALS = {
    "man": "men", "woman": "women", "child": "children", "person": "people", "mouse": "mice",
    "goose": "geese", "tooth": "teeth", "foot": "feet", "ox": "oxen", "louse": "lice",
    "cactus": "cacti", "fungus": "fungi", "die": "dice",
}


# words ending in "man" whose plural is regular
MAN_NOT_MEN = {"human", "german", "shaman", "talisman", "caiman", "ottoman", "roman", "walkman"}


def _plural_forms(word: str) -> list[str]:
    forms = [word + "s", word + "es"]
    if re.search(r"[^aeiou]y$", word):  # cherry -> cherries
        forms.append(word[:-1] + "ies")
    if word.endswith("fe"):  # knife -> knives
        forms.append(word[:-2] + "ves")
    elif word.endswith("f"):  # wolf -> wolves, leaf -> leaves
        forms.append(word[:-1] + "ves")
    for singular, plural in IRREGULAR_PLURALS.items():
        # mouse -> mice, and compounds ending in one: snowman -> snowmen, "ice man" -> "ice men"
        if word.endswith(singular) and word not in MAN_NOT_MEN:
            forms.append(word[: -len(singular)] + plural)
    return forms


def contains_word(statement: str, word: str, language: str) -> bool:
    """English: the word as a whole word, or one of its plurals (-s, -es, -y -> -ies,
    -f/-fe -> -ves, and common irregular ones), any case.
    Chinese: the word anywhere (Chinese has no spaces between words)."""
    text = unicodedata.normalize("NFKC", statement).casefold()
    word = unicodedata.normalize("NFKC", word).casefold().strip()
    if not word:
        return False
    if language == "zh" or not word.isascii():
        return word in text
    forms = "|".join(re.escape(form) for form in [word, *_plural_forms(word)])
    return re.search(rf"(?<![a-z0-9])(?:{forms})(?![a-z0-9])", text) is not None


def deal(seats: list[str], seed: int, settings: SpySettings,
         pairs: list[WordPair] | None = None) -> tuple[WordPair, str, str]:
    """The seed's draws, in this order: the word pair (unless fixed), the spy, the opener. A fixed
    deal (`settings.deal`) gives the pair and the spy; the opener is still drawn."""
    rng = random.Random(seed)
    if settings.deal is not None:
        return settings.deal.pair, seats[settings.deal.spy], rng.choice(seats)
    if settings.pair is not None:
        pair = settings.pair
    else:
        pool = pairs or settings.pairs or load_builtin_pairs(settings.language)
        if settings.difficulty:
            pool = [p for p in pool if p.difficulty == settings.difficulty] or pool
        pair = rng.choice(pool)
    return pair, rng.choice(seats), rng.choice(seats)


def dealt_roles(seats: list[str], seed: int, settings: SpySettings) -> list[str]:
    """Each seat's role under this seed (GameSpec.deal), without building a game."""
    _, spy, _ = deal(seats, seed, settings)
    return [SPY if s == spy else CIVILIAN for s in seats]


class SpyGame(Game):
    id: ClassVar[str] = "spy"
    title: ClassVar[str] = "Who is the Spy"

    def __init__(self, seats: list[str], seed: int, settings: SpySettings | None = None,
                 pairs: list[WordPair] | None = None) -> None:
        settings = settings or SpySettings(players=len(seats))
        if len(seats) != settings.players:
            raise ValueError(f"spy needs {settings.players} seats, got {len(seats)}")
        super().__init__(seats, seed, settings)
        self.settings: SpySettings = settings
        pair, self.spy, self.opener = deal(self.seats, seed, settings, pairs)
        self.pair = pair
        self.words = {s: (pair.spy if s == self.spy else pair.civilian) for s in self.seats}
        self.alive = list(self.seats)
        self.round = 1
        self.phase: Literal["describe", "vote", "over"] = "describe"
        self.spoken: list[str] = []  # normalised statements of the whole game
        self.order: list[str] = []
        self.turn = 0
        self.round_fouls: list[str] = []
        self.vote_points: Counter[str] = Counter()
        self.eliminated_round: dict[str, int] = {}
        self.spy_out_round: int | None = None
        self._start()

    # -- setup --------------------------------------------------------------
    def _start(self) -> None:
        s = self.settings
        say = self._say
        self.emit(SpySetup(text=say("setup", civilian=self.pair.civilian, spy_word=self.pair.spy, spy=self.spy,
                                    opener=self.opener), visible_to=SPECTATORS,
                           roles={x: (SPY if x == self.spy else CIVILIAN) for x in self.seats},
                           words=dict(self.words), spy=self.spy, opener=self.opener,
                           pair=self.pair.model_dump(), settings=s.model_dump(exclude={"pair"})))
        for seat in self.seats:
            word = self.words[seat]
            self.emit(Private(text=say("your_word", word=word), actor=seat, visible_to=(seat,), facts={"word": word}))
        self.emit(Start(text=say("start", n=len(self.seats), seats=self._list(self.seats), opener=self.opener,
                                 rounds=s.rounds),
                        seats=list(self.seats), opener=self.opener))
        self._begin_round()

    def _begin_round(self) -> None:
        first = self.opener
        if first not in self.alive:  # next surviving player in seat order
            i = self.seats.index(self.opener)
            ring = self.seats[i + 1:] + self.seats[:i]
            first = next(x for x in ring if x in self.alive)
        k = self.alive.index(first)
        self.order = self.alive[k:] + self.alive[:k]
        self.turn = 0
        self.round_fouls = []
        self.phase = "describe"
        self.emit(RoundStart(text=self._say("round_start", round=self.round, order=self._list(self.order)),
                             round=self.round, order=list(self.order)))

    def rules_text(self) -> str:
        return self._say("rules", rounds=self.settings.rounds, min_survivors=self.settings.min_survivors)

    def _say(self, key: str, **values: Any) -> str:
        """One of the game's lines in the match's language."""
        return PHRASES.say(self.settings.language, key, **values)

    def _list(self, seats: list[str]) -> str:
        return PHRASES.join(self.settings.language, seats)

    def seat_roles(self) -> dict[str, str]:
        return {x: (SPY if x == self.spy else CIVILIAN) for x in self.seats}

    # -- protocol -----------------------------------------------------------
    def pending(self) -> list[Request]:
        lang = self.settings.language
        if self.phase == "describe":
            seat = self.order[self.turn]
            instruction = self._say("describe", round=self.round)
            obs = self.observe(seat, "speak", phase="describe", instruction=instruction,
                               limits=self.turn_limits(), round=self.round, language=lang)
            return [Request(seat, obs)]
        if self.phase == "vote":
            requests = []
            for seat in self.alive:
                options = [x for x in self.alive if x != seat]
                instruction = self._say("vote", round=self.round)
                obs = self.observe(seat, "vote", phase="vote", instruction=instruction,
                                   options=options, allow_abstain=True, limits=self.turn_limits(),
                                   round=self.round, language=lang)
                requests.append(Request(seat, obs))
            return requests
        return []

    def submit(self, outcomes: Iterable[Outcome]) -> None:
        outcomes = list(outcomes)
        if self.phase == "describe":
            expected = self.order[self.turn]
            (outcome,) = [o for o in outcomes if o.seat == expected]
            self._statement(expected, outcome)
        elif self.phase == "vote":
            self._vote({o.seat: o for o in outcomes})
        else:
            raise RuntimeError("the game is over")

    # -- describing ---------------------------------------------------------
    def _statement(self, seat: str, outcome: Outcome) -> None:
        limit = self.settings.max_chars
        raw = (outcome.text or "") if outcome.ok else ""
        text = raw.strip()[:limit].strip()
        word = self.words[seat]
        why = ""  # the foul, if any: a REASON_KEYS entry
        # a person's own limit, not the game's
        seconds = f"{outcome.seconds or self.settings.seconds:g}"
        said = normalise_statement(text)  # once: it is the statement's costliest step
        if not outcome.ok:
            # public text stays generic; the agent's error detail lives in the call record
            why = "timeout" if outcome.status == "timeout" else "failed"
        elif not said:
            why = "empty"
        elif said in SKIP_WORDS:
            why = "skipped"
        elif contains_word(text, word, self.settings.language):
            why = "own_word"
        elif said in self.spoken:
            why = "repeat"
        if text:
            self.spoken.append(said)
        if why:
            self.round_fouls.append(seat)
            # the record keeps the English reason (metrics read it); the line is in the game's language
            reason = PHRASES.say("en", f"reason_{why}", seconds=seconds)
            shown = self._say("withheld") if why == "own_word" else text
            if text and shown == text:
                self.emit(Statement(text=text, actor=seat, round=self.round, foul=True))
            self.emit(Foul(text=self._say("foul", seat=seat, reason=self._say(f"reason_{why}", seconds=seconds)),
                           actor=seat, round=self.round, reason=reason, status=outcome.status, shown=shown))
            if text and shown != text:
                self.emit(WithheldStatement(text=text, actor=seat, round=self.round, visible_to=SPECTATORS))
        else:
            self.emit(Statement(text=text, actor=seat, round=self.round, truncated=len(raw.strip()) > limit))
        self.turn += 1
        if self.turn >= len(self.order):
            self._end_of_statements()

    def _eliminate(self, seat: str, reason: str, text: str) -> None:
        self.alive.remove(seat)
        self.eliminated_round[seat] = self.round
        if seat == self.spy:
            self.spy_out_round = self.round
        self.emit(Elimination(text=text, actor=seat, round=self.round, reason=reason))

    def _end_of_statements(self) -> None:
        for seat in self.round_fouls:
            self._eliminate(seat, "foul", self._say("judge_eliminates", seat=seat))
        if self._check_end():
            return
        self.phase = "vote"

    # -- voting -------------------------------------------------------------
    def _vote(self, outcomes: dict[str, Outcome]) -> None:
        tally: Counter[str] = Counter()
        for voter in list(self.alive):
            options = [x for x in self.alive if x != voter]
            outcome = outcomes.get(voter)
            target = outcome.text.strip() if outcome and outcome.ok and outcome.text else ""
            if target in options:
                tally[target] += 1
                text, reason = self._say("votes_for", voter=voter, target=target), ""
                if target == self.spy and voter != self.spy:
                    self.vote_points[voter] += 1
                    self.vote_points[self.spy] -= 1
            else:
                if outcome is None or not outcome.ok:
                    status = outcome.status if outcome else "missing"
                    reason = f"{status}: {outcome.detail if outcome else 'no reply'}"[:200]
                elif target.lower() == ABSTAIN:
                    reason = "abstained"
                else:
                    reason = f"'{target[:60]}' is not on the list"
                target = ""
                text = self._say("abstains", voter=voter)
            self.emit(Vote(text=text, actor=voter, round=self.round, target=target or None, reason=reason))
        ranking = tally.most_common()
        if ranking and (len(ranking) == 1 or ranking[0][1] > ranking[1][1]):
            out = ranking[0][0]
            self.emit(VoteResult(text=self._say("voted_out", seat=out, votes=ranking[0][1]),
                                 round=self.round, tally=dict(tally), eliminated=out))
            self._eliminate(out, "vote", self._say("eliminated_by_vote", seat=out))
        else:
            text = self._say("tie" if ranking else "no_votes")
            self.emit(VoteResult(text=text, round=self.round, tally=dict(tally), eliminated=None))
        if self._check_end():
            return
        if self.round >= self.settings.rounds:
            self._finish()
            return
        self.round += 1
        self._begin_round()

    # -- ending and scoring -----------------------------------------------------
    def _check_end(self) -> bool:
        if self.spy not in self.alive or len(self.alive) < self.settings.min_survivors:
            self._finish()
            return True
        return False

    def _finish(self) -> None:
        self.phase = "over"
        result = self.result()
        lang = self.settings.language
        winner = self._say("spy_wins" if result["winner"] == SPY else "civilians_win")
        self.emit(End(text=self._say("end", winner=winner, spy=self.spy, spy_word=self.pair.spy,
                                     civilian=self.pair.civilian),
                      round=self.round, winner=result["winner"], roles=result["roles"],
                      words=dict(self.words), scores=result["scores"], language=lang))

    def result(self) -> dict[str, Any]:
        return score(self.seats, self.spy, self.alive, self.spy_out_round, self.vote_points) | {
            "roles": {x: (SPY if x == self.spy else CIVILIAN) for x in self.seats},
            "words": dict(self.words),
            "eliminated_round": dict(self.eliminated_round),
            "rounds_played": self.round,
        }


def score(seats: list[str], spy: str, alive: list[str], spy_out_round: int | None,
          vote_points: Counter[str] | dict[str, float]) -> dict[str, Any]:
    """Scores of one game; they always sum to 12.

    Spy out in round 1/2/3: spy 0/4/8, surviving civilians share 12/8/4. Spy alive at
    the end: spy 12, civilians 0. Each civilian vote for the spy: +1 voter, -1 spy.
    If the spy is out and no civilian survives, all civilians share their part.
    """
    civilians = [s for s in seats if s != spy]
    base: dict[str, float] = {s: 0.0 for s in seats}
    if spy_out_round is None:
        winner = SPY
        base[spy] = SPY_WIN_POINTS[0]
    else:
        winner = CIVILIAN
        spy_pts, civ_pts = ELIMINATION_POINTS[min(spy_out_round, 3)]
        base[spy] = spy_pts
        sharers = [c for c in civilians if c in alive] or civilians
        for c in sharers:
            base[c] = civ_pts / len(sharers)
    scores = {s: round(base[s] + float(vote_points.get(s, 0)), 6) for s in seats}
    return {"scores": scores, "winner": winner, "spy": spy}
