"""Where a match came from, read from its tag, and the filter every leaderboard applies.

A match's tag is set by whoever started it, and its source kind follows from the tag:

| kind         | tag                                  | started by                                   |
|--------------|--------------------------------------|----------------------------------------------|
| `demo`       | `demo`                               | the arena itself, on its first start         |
| `visitor`    | `visitor`                            | the Play tab or the API, agents only         |
| `human`      | `human`                              | the Play tab with a person in a seat         |
| `study`      | `study:…` or `compare:…`             | a study or a duplicate comparison            |
| `tournament` | anything else (`tournament`, `cli`, a researcher's own label; `''` from older stores) |

Leaderboards, the CLI, the API and exports share one default: visitor, human and tournament
matches; demo and study matches only when asked for (studies play fixed line-ups under
unusual conditions, demos are the house agents warming the page up).
"""

from __future__ import annotations

from collections.abc import Iterable

DEMO, VISITOR, HUMAN, TOURNAMENT, STUDY = "demo", "visitor", "human", "tournament", "study"
KINDS = (DEMO, VISITOR, HUMAN, TOURNAMENT, STUDY)
DEFAULT_KINDS = frozenset({VISITOR, HUMAN, TOURNAMENT})
EVERY_KIND = frozenset(KINDS)
STUDY_PREFIXES = ("study:", "compare:")
KEYWORDS = {"default": DEFAULT_KINDS, "all": EVERY_KIND}


def kind_of(tag: str | None) -> str:
    """The source kind of a match with this tag."""
    tag = tag or ""
    if tag in (DEMO, VISITOR, HUMAN):
        return tag
    if tag.startswith(STUDY_PREFIXES):
        return STUDY
    return TOURNAMENT


def parse_kinds(text: str | Iterable[str] | None) -> frozenset[str]:
    """A filter from 'default', 'all' or a comma list of kinds (and keywords): 'default,demo'."""
    if text is None:
        return DEFAULT_KINDS
    words = [w.strip().lower() for w in (text.split(",") if isinstance(text, str) else text)]
    chosen: set[str] = set()
    for word in filter(None, words):
        if word in KEYWORDS:
            chosen |= KEYWORDS[word]
        elif word in KINDS:
            chosen.add(word)
        else:
            raise ValueError(f"unknown match source {word!r}; known: {', '.join(KINDS)}, default, all")
    return frozenset(chosen) if chosen else DEFAULT_KINDS


def describe(kinds: Iterable[str], tag: str | None = None) -> str:
    """One line saying what a table includes, e.g. for its caption."""
    chosen = [k for k in KINDS if k in set(kinds)]
    left_out = [k for k in KINDS if k not in chosen]
    text = f"{_words(chosen)} matches" if chosen else "no matches"
    if left_out:
        text += f" ({_words(left_out)} matches left out)"
    if tag is not None:
        text += f", tag {tag!r} only"
    return "Includes " + text


def label(kinds: Iterable[str]) -> str:
    """A short name of a filter: 'default', 'all' or the kinds joined by commas."""
    chosen = frozenset(kinds)
    for word, members in KEYWORDS.items():
        if chosen == members:
            return word
    return ",".join(k for k in KINDS if k in chosen)


def _words(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


__all__ = ["DEFAULT_KINDS", "DEMO", "EVERY_KIND", "HUMAN", "KINDS", "STUDY", "STUDY_PREFIXES", "TOURNAMENT",
           "VISITOR", "describe", "kind_of", "label", "parse_kinds"]
