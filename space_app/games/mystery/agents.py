"""Murder-mystery house agents, offline and without a model.

- `NaiveMysteryAgent` (`house:mystery-naive`), the benchmark's retrieval baseline: it answers a
  question with the most relevant sentence of its own script (BM25 over sentences; English
  words, Chinese character bigrams), says "I don't know" when nothing matches, and, as the
  murderer, admits it when a question confronts it with a clue its own script confirms. It
  introduces itself from its public introduction, shares the clue sentences of its script
  that name others alongside incriminating words, questions the character its clues point
  to (one it has not questioned yet), suspects and votes for the character most named
  alongside incriminating words, and answers multiple-choice quizzes by retrieval.
- `RandomMysteryAgent` (`house:mystery-random`): generic statements, random choices.

Agents keep no state: everything is derived from the observation (the same seed replays the
same match).
"""

from __future__ import annotations

import hashlib
import math
import random
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from sdk import Agent, Observation

from ...core.events import Event
from ...core.probes import probe_question, uniform_reply
from ...core.seeding import history_key, seeded
from .events import KINDS, SPEECH, Answer, Clue, Question, QuestionTarget, Speech, Start, Statement

__all__ = ["NaiveMysteryAgent", "RandomMysteryAgent", "Index", "first_person", "sentences", "terms"]

# ---- text -------------------------------------------------------------------------------------

_WORD = re.compile(r"[a-z0-9]+(?:['’:.][a-z0-9]+)*")
_CJK = re.compile(r"[\u3400-\u9fff]+")
_TIME = re.compile(r"\b\d{1,2}[:.]\d{2}\b|\d{1,2}点(?:\d{1,2}分|半)?")
STOP_EN = frozenset("""
a about above after again against all also am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers herself
him himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or
other our ours ourselves out over own same she should so some such than that the their theirs them themselves then
there these they this those through to too under until up very was we were what when where which while who whom why
will with would you your yours yourself yourselves one two tonight evening night said says say tell told know knew
asks ask question answer round clue clues think about that's it's i'm don't didn't wasn't
""".split())
STOP_ZH = frozenset("""
一个 我们 你们 他们 她们 没有 什么 知道 自己 这个 那个 这样 就是 还是 已经 时候 可以 因为 所以 但是 不是 一下 一直
的时 了一 是你 你的 我的 他的 她的 你是 我是 在一 有人 看到 说了 问你 回答 线索 问题
""".split())


def _stem(word: str) -> str:
    """A light English stemmer: plurals, possessives, -ed, -ing (enough for overlap)."""
    word = word.replace("’", "'")
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed"):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def terms(text: str) -> list[str]:
    """Content terms: English word stems without stop words, and Chinese character bigrams
    (a run of one character is kept as it is)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    words = [w for w in _WORD.findall(text) if w not in STOP_EN and (len(w) > 1 or w.isdigit())]
    out = [t for t in map(_stem, words) if t not in STOP_EN]
    for run in _CJK.findall(text):
        grams = [run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)]
        out += [g for g in grams if g not in STOP_ZH]
    return out


def sentences(text: str) -> list[str]:
    """Sentences of a text (English and Chinese punctuation, line breaks)."""
    parts = re.split(r"(?<=[.!?。！？；])[\"'”’]?\s*|\n+", text)
    return [p.strip(" \"'“”‘’") for p in parts if len(terms(p)) >= 2]


def paragraphs(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]


# words after which "you" is an object ("told you", "with you"): "me"; elsewhere the subject: "I"
_OBJECT_BEFORE = frozenset("""
to at with for from about on of by behind than like past toward towards against into onto beside near around
without under over through after before between among upon told tell asked ask saw see seen gave give given heard
hear showed show sent send let made make call called keep kept help helped thank thanked met meet pay paid love loved
hate hated want wanted need needed knew trust trusted warn warned remind reminded expect blame blamed found find follow
followed leave left take took join joined hit beat owe owes owed offer offered promise promised bring brought invite
invited hire hired pass passed notice noticed caught catch stop stopped woke wake got get hurt drove drive
""".split())


def first_person(text: str) -> str:
    """A sentence of one's own script ("You climbed ...") as one says it ("I climbed ...")."""
    if _CJK.search(text):
        return text.replace("你", "我")
    swaps = [(r"\byou are\b", "I am"), (r"\byou were\b", "I was"), (r"\byou have\b", "I have"),
             (r"\byou've\b", "I've"), (r"\byou'd\b", "I'd"), (r"\byou'll\b", "I'll"), (r"\byou're\b", "I'm"),
             (r"\byourself\b", "myself"), (r"\byours\b", "mine"), (r"\byour\b", "my")]
    for pattern, repl in swaps:
        text = re.sub(pattern, lambda m, r=repl: _case(m.group(0), r), text, flags=re.IGNORECASE)

    def you(m: re.Match[str]) -> str:
        before = re.findall(r"[a-z0-9']+", text[: m.start()].casefold())
        after = re.match(r"\s*([a-z0-9']+)", text[m.end():].casefold())
        if before and before[-1] in _OBJECT_BEFORE:
            return "me"
        if after is None or after.group(1) in _DETERMINERS:  # "looking at you.", "leaves you a cottage"
            return "me"
        return "I"

    return re.sub(r"\byou\b", you, text, flags=re.IGNORECASE)


_DETERMINERS = frozenset("a an the my his her their its our that this these those some any".split())


def _case(found: str, repl: str) -> str:
    return repl[0].upper() + repl[1:] if found[:1].isupper() else repl


@dataclass(frozen=True)
class Lexicon:
    en: frozenset[str]  # English stems, matched against a text's terms
    zh: tuple[str, ...]  # Chinese words, counted in the raw text (bigrams would split them)


def _lexicon(words: str) -> Lexicon:
    items = words.split()
    return Lexicon(frozenset(_stem(w) for w in items if not _CJK.search(w)),
                   tuple(w for w in items if _CJK.search(w)))


# words that make a sentence incriminating, and the stronger ones that speak of the killing itself
INCRIMINATING = _lexicon("""
kill killed murder murdered struck strike hit blow blood body dead death weapon knife poison lie lied lying false
forged fake hid hidden hide burnt burned stole stolen debt debts money pounds owe owed threat threatened argue argued
quarrel motive alone secret wiped missing alibi fled grudge affair blackmail inheritance heir fraud angry row
杀 凶 血 毒 尸 死 刀 谎 假 伪 藏 烧 偷 钱 债 欠 吵 争 威胁 秘密 独自 擦 动机 凶器 隐瞒 火 保险 遗产 勒索
""")
GUILT = _lexicon("""
kill killed murder murdered struck strike stab stabbed strangle strangled poison poisoned smother drowned lured
dragged 杀 毒 砸 刺 勒 推下 下药 倒进 灭口 隐瞒
""")
MOTIVE = _lexicon("""
money debt debts pounds owe owed inheritance heir will jealous jealousy affair revenge secret blackmail fees loan
fraud expose ruin career hearing sold 钱 债 欠 遗产 嫉妒 报复 秘密 勒索 卖 亏 自首 公安 保险
""")
METHOD = _lexicon("""
struck strike hit blow weapon knife poison cap mallet hammer pushed dragged stair tide kettle gun rope
毒 刀 砸 推 凶器 水壶 茶 药 酊 绳 推下
""")
ADMIT = ("i admit it", "i confess", "我承认")  # an admission in what a character says
DONT_KNOW = {"en": "I don't know.", "zh": "我不知道。"}
NOTHING_NEW = {"en": "I have nothing new to add.", "zh": "我没有新的线索。"}


def weight(text: str, lexicon: Lexicon) -> int:
    """How many lexicon words a text holds (English by stem, Chinese by substring)."""
    en = sum(1 for t in terms(text) if t in lexicon.en)
    return en + sum(text.count(w) for w in lexicon.zh)


# ---- retrieval --------------------------------------------------------------------------------

class Index:
    """BM25 over a list of passages."""

    def __init__(self, passages: list[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.passages = passages
        self.bags = [Counter(terms(p)) for p in passages]
        self.k1, self.b = k1, b
        self.avg = sum(sum(bag.values()) for bag in self.bags) / max(1, len(self.bags))
        df: Counter[str] = Counter(t for bag in self.bags for t in bag)
        n = len(self.bags)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def score(self, query: Iterable[str], i: int) -> float:
        bag, total = self.bags[i], sum(self.bags[i].values())
        out = 0.0
        for t in dict.fromkeys(query):  # in query order: the same float sum in every process
            f = bag.get(t, 0)
            if f:
                out += self.idf[t] * f * (self.k1 + 1) / (f + self.k1 * (1 - self.b + self.b * total / (self.avg or 1)))
        return out

    def ranked(self, query: Iterable[str]) -> list[tuple[float, int]]:
        q = list(query)
        scores = [(self.score(q, i), i) for i in range(len(self.passages))]
        return sorted((s for s in scores if s[0] > 0), key=lambda s: (-s[0], s[1]))


@lru_cache(maxsize=64)
def _script_index(text: str) -> tuple[Index, tuple[bool, ...]]:
    """A script's sentences, indexed, each flagged when its paragraph speaks of the killing
    (the murderer's guilty knowledge). Cached: every turn of a match reads the same script."""
    passages: list[str] = []
    guilty: list[bool] = []
    for para in paragraphs(text):
        flagged = weight(para, GUILT) > 0
        for s in sentences(para):
            passages.append(s)
            guilty.append(flagged)
    return Index(passages), tuple(guilty)


# ---- what a seat knows ------------------------------------------------------------------------

CLAIM_WEIGHT = 0.5  # what another character says, against 2 for its own script and the host's clues


@dataclass
class Seen:
    """One observation, read once: the seat's script, the public record and the cast."""

    obs: Observation

    def __post_init__(self) -> None:
        obs = self.obs
        self.lang = obs.language
        self.script = next((d.text for d in obs.private.documents if d.kind == "script"), "")
        self.history = _events(obs)
        self.index, self.guilty = _script_index(self.script)
        self.murderer = obs.private.facts.get("role") == "murderer"
        self.others = [s for s in obs.seats if s != obs.you]
        self.aliases = _aliases(obs.seats)

    def reveals(self, i: int) -> bool:
        """Whether sentence i of the script gives the murderer away (its paragraph speaks of
        the killing, or the sentence itself does)."""
        return self.guilty[i] or weight(self.index.passages[i], GUILT) > 0

    def mentions(self, text: str) -> set[str]:
        folded = text.casefold()
        return {seat for alias, seat in self.aliases.items() if _mentions(folded, alias)}

    def public(self) -> list[Clue | Speech]:
        """What was said and shown: clues and speech."""
        return [e for e in self.history if isinstance(e, Clue | Speech)]

    def said_by_me(self, *kinds: type[Speech]) -> str:
        return "\n".join(e.text for e in self.history if e.actor == self.obs.you and isinstance(e, kinds))

    def suspicion(self) -> Counter[str]:
        """Each other character's weight: incriminating words in sentences that name it. Its
        own script and the host's clues are facts (twice the weight of what others claim);
        an admission outweighs everything."""
        score: Counter[str] = Counter()
        weighed = [(2, s) for s in self.index.passages]
        for e in self.public():
            if e.actor != self.obs.you and not isinstance(e, Question):  # a question quotes; it claims nothing
                weighed += [(2 if isinstance(e, Clue) else CLAIM_WEIGHT, s) for s in sentences(e.text)]
        for factor, text in weighed:
            w = weight(text, INCRIMINATING)
            if w:
                for seat in self.mentions(text):
                    score[seat] += factor * w
        for e in self.public():
            if isinstance(e, SPEECH) and any(marker in e.text.casefold() for marker in ADMIT):
                score[e.actor] += 1000
        score.pop(self.obs.you, None)
        return score

    def suspect(self) -> str:
        score = self.suspicion()
        return max(self.others, key=lambda s: (score[s], _tiebreak(self.obs, s)))


def _aliases(seats: list[str]) -> dict[str, str]:
    """Names a character goes by: the full name, the first name (English) or the given name
    (a Chinese name of three characters); an alias two characters share is dropped."""
    found: dict[str, list[str]] = {}
    for seat in seats:
        names = {seat.casefold()}
        if _CJK.search(seat):
            if len(seat) >= 3:
                names.add(seat[1:])
        else:
            parts = [p for p in re.split(r"\s+", seat.casefold()) if p not in ("dr", "dr.", "mr", "mrs", "ms")]
            if parts and len(parts[0]) >= 3:
                names.add(parts[0])
        for name in names:
            found.setdefault(name, []).append(seat)
    return {name: owners[0] for name, owners in found.items() if len(set(owners)) == 1}


def _mentions(folded: str, alias: str) -> bool:
    if _CJK.search(alias):
        return alias in folded
    return re.search(rf"(?<![a-z]){re.escape(alias)}(?![a-z])", folded) is not None


def _tiebreak(obs: Observation, seat: str) -> float:
    key = f"{obs.you}|{obs.round}|{obs.phase}|{seat}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:4], "big") / 2**32


# ---- the naive agent ---------------------------------------------------------------------------

class NaiveMysteryAgent(Agent):
    name = "house:mystery-naive"
    description = ("Retrieval baseline: answers from its own script by BM25, admits guilt when its script confirms "
                   "a clue it is confronted with, votes for the character most named with incriminating words.")
    games = ("mystery",)

    # -- speak ---------------------------------------------------------------------------------
    def speak(self, obs: Observation) -> str:
        seen = Seen(obs)
        if obs.phase == "introduction":
            return self._introduce(seen)
        if obs.phase == "ask":
            return self._ask(seen)
        if obs.phase == "answer":
            return self._reply(seen, _question_to_me(seen))
        if obs.phase == "reasoning":
            return self._reason(seen)
        return self._share(seen)

    def _introduce(self, seen: Seen) -> str:
        start = next((e for e in seen.history if isinstance(e, Start)), None)
        cast = start.characters if start else []
        intro = next((c.get("introduction", "") for c in cast if c.get("name") == seen.obs.you), "")
        if seen.lang == "zh":
            return f"我是{seen.obs.you}。{intro}"
        return f"I am {seen.obs.you}. {intro}".strip()

    def _share(self, seen: Seen) -> str:
        """The clue sentence of its script that names others alongside incriminating words
        (never one that speaks of its own killing, for the murderer), not shared before."""
        said = seen.said_by_me(Statement, Question, Answer)
        best, best_key = "", (-1.0, 0.0)
        for i, s in enumerate(seen.index.passages):
            clue = first_person(_unheaded(s))
            if clue in said or (seen.murderer and seen.reveals(i)):
                continue
            named = len(seen.mentions(s) - {seen.obs.you})
            key = (weight(s, INCRIMINATING) + 2.0 * named + (1.0 if _TIME.search(s) else 0.0), -i)
            if key > best_key:
                best, best_key = clue, key
        if not best:
            return NOTHING_NEW[seen.lang]
        suspect = seen.suspect()
        if seen.lang == "zh":
            return f"{best} 目前线索最指向{suspect}。"
        return f"{best} So far the clues point most to {suspect}."

    def _ask(self, seen: Seen) -> str:
        """A question quoting the most incriminating clue about the target: from its own
        script first, else from the public clues; one it has not asked before."""
        target = _target(seen)
        asked = seen.said_by_me(Question)
        pool = [(1, weight(s, INCRIMINATING), -i, first_person(_unheaded(s)))
                for i, s in enumerate(seen.index.passages)
                if target in seen.mentions(s) and not (seen.murderer and seen.reveals(i))]
        pool += [(0, weight(s, INCRIMINATING), -i, _unheaded(s)) for i, e in enumerate(seen.public())
                 if isinstance(e, Clue) for s in sentences(e.text) if target in seen.mentions(s)]
        pool = [p for p in pool if p[3] not in asked]
        if not pool:
            return (f"{target}，案发时你在哪里，看到了什么？" if seen.lang == "zh" else
                    f"{target}, where were you at the time of the murder, and what did you see?")
        clue = max(pool)[3]
        if seen.lang == "zh":
            return f"{target}，关于这一点：“{clue}”你知道什么？"
        return f"{target}, about this: \"{clue}\" What do you know about it?"

    def _reply(self, seen: Seen, question: str) -> str:
        """The best sentence of its own script for the question; "I don't know" without one.
        The murderer admits when the question quotes a clue its script confirms about the
        killing, and otherwise answers only from what does not give it away."""
        names = {t for s in seen.obs.seats for t in terms(s)}
        query = [t for t in dict.fromkeys(terms(question)) if t not in names]
        ranked = seen.index.ranked(query)
        if seen.murderer and ranked:
            i = ranked[0][1]
            shared = set(query) & set(seen.index.bags[i])
            if seen.guilty[i] and len(shared) >= max(3, math.ceil(0.3 * len(query))):
                admission = first_person(seen.index.passages[i])
                return f"我承认：{admission}" if seen.lang == "zh" else f"I admit it: {admission}"
            ranked = [(s, j) for s, j in ranked if not seen.reveals(j)]
        for _, i in ranked:
            if len(set(query) & set(seen.index.bags[i])) >= 2:
                return first_person(seen.index.passages[i])
        return DONT_KNOW[seen.lang]

    def _reason(self, seen: Seen) -> str:
        suspect = seen.suspect()
        texts = [first_person(_unheaded(t)) for t in seen.index.passages]
        texts += [_unheaded(s) for e in seen.public() if e.actor != seen.obs.you for s in sentences(e.text)]
        about = [t for t in dict.fromkeys(texts) if suspect in seen.mentions(t)
                 and not (seen.murderer and weight(t, GUILT))]
        motive = _best(about, MOTIVE)
        method = _best([t for t in about if t != motive], METHOD)
        if seen.lang == "zh":
            return f"我怀疑{suspect}。动机：{motive or '我还不清楚'}。手法：{method or '我还不清楚'}。"
        return (f"I suspect {suspect}. Motive: {motive or 'not clear to me yet'}. "
                f"Method: {method or 'not clear to me yet'}.")

    # -- vote ----------------------------------------------------------------------------------
    def vote(self, obs: Observation) -> str:
        seen = Seen(obs)
        if obs.phase == "choose":
            return self._choose(seen)
        suspect = seen.suspect()
        return suspect if suspect in obs.options else obs.options[0]

    def _choose(self, seen: Seen) -> str:
        """The character its clues point to most, among those it has not questioned yet."""
        score = seen.suspicion()
        for s in seen.index.passages:
            for seat in seen.mentions(s):
                score[seat] += 1
        done = Counter(e.target for e in seen.history if isinstance(e, QuestionTarget) and e.actor == seen.obs.you)
        options = seen.obs.options
        return max(options, key=lambda s: (-done[s], score[s], _tiebreak(seen.obs, s)))

    # -- answer --------------------------------------------------------------------------------
    def answer(self, obs: Observation) -> str:
        if probe_question(obs) is not None:  # no belief state kept: every other character alike
            return uniform_reply(obs)
        if obs.options:
            return choose_option(obs)
        return self._reply(Seen(obs), obs.instruction)


def _best(texts: list[str], lexicon: Lexicon) -> str:
    scored = [(weight(t, lexicon), -i, t) for i, t in enumerate(texts)]
    scored = [x for x in scored if x[0] > 0]
    return max(scored)[2].rstrip(".。") if scored else ""


def _unheaded(sentence: str) -> str:
    """A sentence without a label before a colon ("A clue I know: ...", "Image clue x (kind): ..."),
    so what is quoted is the clue itself; times ("22:38") are not labels."""
    m = re.match(r"^([^:：\d]{2,60})[:：]\s*(\S.*)$", sentence)
    return m.group(2) if m else sentence


def _events(obs: Observation) -> list[Event]:
    """The seat's history as the game's events."""
    return [KINDS.from_history(h) for h in obs.history]


def _target(seen: Seen) -> str:
    obs = seen.obs
    for e in reversed(seen.history):
        if isinstance(e, QuestionTarget) and e.asker == obs.you:
            return e.target
    others = [s for s in obs.seats if s != obs.you]
    return others[0] if others else ""


def _question_to_me(seen: Seen) -> str:
    obs = seen.obs
    for e in reversed(seen.history):
        if isinstance(e, Question) and e.target == obs.you:
            return e.text
    return obs.instruction


# ---- quizzes by retrieval ----------------------------------------------------------------------

def choose_option(obs: Observation) -> str:
    """The option whose text the context confirms best: passages are ranked by the question,
    and each option scores by its own terms (those not shared by every option) in the best
    passages; ties go to the best match over the whole context, then to the first option."""
    texts = [d.text for d in obs.private.documents] + [h.text for h in obs.history]
    passages = [s for t in texts for s in sentences(t)]
    if not passages or not obs.options:
        return obs.options[0] if obs.options else DONT_KNOW.get(obs.language, "I don't know.")
    index = Index(passages)
    question = terms(obs.instruction)
    option_terms = {o: list(dict.fromkeys(terms(obs.option_texts.get(o, o)))) for o in obs.options}
    common = set.intersection(*(set(ts) for ts in option_terms.values()))
    own = {o: [t for t in ts if t not in common] for o, ts in option_terms.items()}  # lists: a fixed order
    top = [i for _, i in index.ranked(question)[:5]]

    def key(o: str) -> tuple[float, float, int]:
        near = max((index.score(own[o], i) + index.score(question, i) * bool(set(own[o]) & set(index.bags[i]))
                    for i in top), default=0.0)
        anywhere = max((index.score(own[o] + question, i) for i in range(len(passages))), default=0.0)
        return near, anywhere, -obs.options.index(o)

    return max(obs.options, key=key)


# ---- the random agent ------------------------------------------------------------------------

GENERIC = {
    "en": ["I was nowhere near the scene when it happened.", "Something about the timings does not add up.",
           "I would like to hear more from everyone before I decide.", "One of the clues bothers me, but I "
           "cannot say which yet.", "We should compare where each of us was that evening.",
           "I am not sure; I need to think about it."],
    "zh": ["案发时我根本不在现场。", "时间线上有些地方对不上。", "我想先多听听大家的说法。",
           "有一条线索让我很在意，但还说不清。", "我们应该对一下当晚每个人的行踪。", "我不确定，还得再想想。"],
}


def _rng(obs: Observation) -> random.Random:
    """Seeded by what the seat has seen (not by the match id): the same seed replays the same match."""
    return seeded(f"{obs.you}|{obs.round}|{obs.phase}|{obs.instruction}|{history_key(obs)}")


class RandomMysteryAgent(Agent):
    name = "house:mystery-random"
    description = "Generic statements, random questions and votes. A floor for the leaderboard."
    games = ("mystery",)

    def speak(self, obs: Observation) -> str:
        return _rng(obs).choice(GENERIC["zh" if obs.language == "zh" else "en"])

    def vote(self, obs: Observation) -> str:
        return _rng(obs).choice(obs.options)

    def answer(self, obs: Observation) -> str:
        if probe_question(obs) is not None:  # no belief state kept: every other character alike
            return uniform_reply(obs)
        if obs.options:
            return _rng(obs).choice(obs.options)
        return DONT_KNOW.get(obs.language, "I don't know.")
