"""Is a player's text a statement a heuristic judge may score?

Heuristic judges count surface cues (key words, names, a script's terms), so a text made
of cues alone would score without saying anything. Before scoring, a judge asks
`not_a_statement(...)`, which names the first way the text fails to be a plain statement:
empty; written to the judge ("Score: 10", "ignore the above"); not a sentence (too short,
or with almost none of the small words sentences are made of: a list); mostly names; mostly
the judge's own key words; mostly copied from the speaker's private text (its script, its
intention notes); off the game's topic. None means it is one. English and Chinese.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

__all__ = ["addresses_judge", "copied_share", "not_a_statement", "share_of", "tokens"]

_TOKEN = re.compile(r"[\u3400-\u9fff]|[^\W\d_\u3400-\u9fff]+(?:['’][^\W\d_\u3400-\u9fff]+)*|\d+")
_CJK = re.compile(r"[\u3400-\u9fff]")

# the words sentences are built from and lists lack
FUNCTION_EN = frozenset("""
a an the i i'm i've i'd me my mine we us our you your he him his she her it its they them their this that these
those is am are was were be been being have has had do does did done will would shall should can could may might
must not no to of in on at by for with from as and or but if so than then there here what who whom which when where
why how all any some just very too also only about into out up down over after before because while still yet
let let's it's that's don't didn't can't won't isn't wasn't
""".split())
FUNCTION_ZH = frozenset("的了是我你他她它们在有和就不也都这那吗呢吧啊很会要说把被给对从到个一没为着过还而且但")

# text addressed to whoever scores it rather than to the other players
_TO_THE_JUDGE = re.compile(
    r"\b(score|rating|grade|reasonableness|following)\W{0,4}[:=]\W{0,4}\d|\bverdict\s*[:=]|"
    r"\b(ignore|disregard|forget)\b.{0,30}\b(instructions?|prompt|system message)\b|"
    r"\bsystem prompt\b|\byou are (?:now )?(?:a|an|the) (?:judge|grader|evaluator)\b|\b(?:dear|to the) judge\b|"
    r"评分\s*[:：]|忽略.{0,10}(指令|以上|之前)", re.IGNORECASE)

MIN_TOKENS = 4  # fewer words than this is no sentence (Chinese: MIN_TOKENS + 2 characters)
MIN_FUNCTION = 0.15  # share of small words below which a text reads as a list
MIN_FUNCTION_ZH = 0.05  # Chinese carries fewer function characters per character
MAX_NAMES = 0.5  # share of a text's words that may be names
MAX_KEYWORDS = 0.4  # share of a text's words that may be the judge's key words
MAX_COPIED = 0.5  # share of a text's runs of words that may come from the speaker's private text
RUN = 4  # words in a row that make a copied run


def tokens(text: str) -> list[str]:
    """Words (case-folded), each Chinese character one token."""
    return _TOKEN.findall(unicodedata.normalize("NFKC", str(text)).casefold())


def addresses_judge(text: str) -> bool:
    return _TO_THE_JUDGE.search(str(text)) is not None


def _is_function(token: str) -> bool:
    return token in FUNCTION_EN or token in FUNCTION_ZH


def _listed(text: str) -> bool:
    """Items of one or two words between commas, semicolons or line breaks, three or more: a list."""
    items = [tokens(i) for i in re.split(r"[,;\n、，；]+", str(text)) if tokens(i)]
    return len(items) >= 3 and sum(len(i) for i in items) / len(items) <= 2


def share_of(text: str, vocabulary: Iterable[str], prefix: bool = False) -> float:
    """Share of the text's words that belong to the vocabulary (a phrase counts by its words;
    `prefix`: a word counts when it starts with a vocabulary word, as key words are matched)."""
    words = tokens(text)
    vocab = {t for v in vocabulary for t in tokens(v) if not _is_function(t)}
    if not words or not vocab:
        return 0.0
    if prefix:
        hits = sum(any(w.startswith(v) for v in vocab) for w in words)
    else:
        hits = sum(w in vocab for w in words)
    return hits / len(words)


def _runs(words: list[str]) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + RUN]) for i in range(len(words) - RUN + 1)}


def copied_share(text: str, source: str) -> float:
    """Share of the text's runs of RUN words found in the source in the same order (0 for a
    text shorter than a run)."""
    runs = _runs(tokens(text))
    return len(runs & _runs(tokens(source))) / len(runs) if runs else 0.0


def not_a_statement(text: str, *, names: Iterable[str] = (), keywords: Iterable[str] = (),
                    own: Iterable[str] = (), topic: Iterable[str] | None = None) -> str | None:
    """Why `text` is not a plain statement to score, or None when it is. `names`: the game's
    player or character names; `keywords`: the words the judge counts; `own`: the speaker's
    private texts; `topic`: words of which an on-topic statement holds at least one (None:
    no topic check)."""
    words = tokens(text)
    if not words:
        return "empty"
    if addresses_judge(text):
        return "written to the judge"
    chinese = 2 * sum(bool(_CJK.match(w)) for w in words) > len(words)
    if len(words) < MIN_TOKENS + (2 if chinese else 0):
        return "not a sentence (too short)"
    least = MIN_FUNCTION_ZH if chinese else MIN_FUNCTION
    if sum(map(_is_function, words)) / len(words) < least or _listed(text):
        return "not a sentence (a list of words)"
    if share_of(text, names) > MAX_NAMES:
        return "mostly names"
    if share_of(text, keywords, prefix=True) > MAX_KEYWORDS:
        return "mostly the judge's key words"
    if copied_share(text, "\n".join(o for o in own if o)) > MAX_COPIED:  # the private texts taken together
        return "copied from the speaker's own private text"
    if topic is not None and share_of(text, topic, prefix=True) == 0:
        return "off the topic"
    return None
