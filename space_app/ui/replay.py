"""Turn stored events into what every replay shows: a transcript up to a step, the
markers and the result table. Pure functions; a game's own panels (rounds, votes)
come from its spec's `view`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..core import GameSpec
from ..core.events import Event
from ..core.transcript import reason_for, seat_events, without_calls
from ..safe_text import html_text, markdown_text
from .i18n import DEFAULT_LANGUAGE, language_of, text

SPECTATOR = "Spectator (everything)"  # the view's value; its label comes from the catalogue

def visible(events: Iterable[Event], seat: str | None) -> list[Event]:
    """Spectator: every event except raw call records (shown as markers instead).
    A seat: exactly the events that seat was shown."""
    return without_calls(events) if seat is None else seat_events(events, seat)


MARKER_COLUMNS = ["round", "seat", "marker", "verb", "reason", "latency_ms"]


def markers(events: Iterable[Event]) -> list[dict[str, Any]]:
    """Fouls, timeouts, errors and unreadable replies, with their reason."""
    return [m.model_dump() for m in (e.marker() for e in events) if m is not None]


def _images(e: Event, image: Callable[[str], str | None] | None) -> str:
    """The event's images as thumbnails (each reaches the views that may see its event)."""
    refs = e.images
    if image is None or not refs:
        return ""
    caption = html_text(e.alt_text())
    shown = [f"<img src='{url}' alt='{caption}' title='{caption}'>"
             for url in (image(str(ref)) for ref in refs) if url]
    return f"<div class='da-images'>{''.join(shown)}</div>" if shown else ""


def _line(e: Event, names: dict[str, str], fold_setup: bool, image: Callable[[str], str | None] | None,
          language: str, reasons: Mapping[int, str] | None) -> str:
    line = _text_line(e, names, fold_setup, language, reasons)
    pictures = _images(e, image)
    if not pictures or not line:
        return line
    end = line.rindex("</")  # inside the line's own element, before it closes
    return line[:end] + pictures + line[end:]


def speaker_name(e: Event, language: str) -> str:
    """Who says the line: its seat, or the game itself (in the page's language)."""
    who = e.said_by()
    return text(language, "replay.host") if who == "host" else who


def audience(e: Event, language: str) -> str:
    """Who saw a line that not everyone saw: the seats it names, or spectators only; "" for a
    public line."""
    if e.visible_to is None:
        return ""
    if not e.visible_to:
        return text(language, "replay.spectators_only")
    seen_by = ", ".join(f"<b>{html_text(seat)}</b>" for seat in e.visible_to)
    return text(language, "replay.only_seen_by", who=seen_by)


def _meta(e: Event, names: dict[str, str], language: str) -> str:
    """The line's speaker (with the agent that plays the seat) and its kind in words, and who
    saw it when not everyone did: every line carries them, whatever its style."""
    who = e.said_by()
    agent = (f" <span class='da-agent'>({html_text(names[who])})</span>" if who in names else "")
    seen = audience(e, language)
    seen = f" <i class='da-audience'>{seen}</i>" if seen else ""
    return (f"<span class='da-who'><b>{html_text(speaker_name(e, language))}</b>{agent}</span> "
            f"<span class='da-kind'>{html_text(e.word(language))}</span>{seen}")


def _text_line(e: Event, names: dict[str, str], fold_setup: bool, language: str,
               reasons: Mapping[int, str] | None) -> str:
    """One line drawn from what the kind declares of itself (icon, style, words, reason)."""
    if e.style == "hidden":
        return ""
    icon = e.icon
    meta = _meta(e, names, language)
    words = html_text(e.shown_text())
    cls = f"da-ev da-{html_text(e.kind)}"
    if e.style == "heading":
        return f"<div class='{cls}'><h4>{icon} {words} <small class='da-meta'>{meta}</small></h4></div>"
    if e.style == "spoiler" and fold_setup:
        # the spectators' hidden truth (who the spy is) folded away: a replay must not spoil itself
        return (f"<details class='{cls} da-secret da-spoiler'><summary>{icon} {meta}: "
                f"<i>{text(language, 'replay.hidden_setup')}</i></summary><i>{words}</i></details>")
    why = reason_for(e, reasons)
    why = f" <span class='da-reason'>— {html_text(why)}</span>" if why else ""
    secret = " da-secret" if e.style in ("secret", "spoiler") else ""
    return f"<div class='{cls}{secret}'>{icon} {meta}: <span class='da-words'>{words}</span>{why}</div>"


def transcript_html(events: list[Event], names: dict[str, str] | None = None,
                    upto: int | None = None, fold_setup: bool = False,
                    image: Callable[[str], str | None] | None = None,
                    language: str = DEFAULT_LANGUAGE, reasons: Mapping[int, str] | None = None) -> str:
    """HTML transcript of `events` (already filtered for a view), up to step `upto`;
    `fold_setup` folds the spectators' hidden setup into a click-to-show line; `image`
    turns an event's image references into thumbnails (see `ui.media`); `reasons` are the
    failed calls' reasons by the seq of the line they explain (`call_reasons`, spectators
    only); the interface's own words in `language` (the game's)."""
    shown = events if upto is None else events[: upto + 1]
    body = "\n".join(filter(None, (_line(e, names or {}, fold_setup, image, language, reasons) for e in shown)))
    empty = f"<i>{text(language, 'replay.no_events')}</i>"
    # column-reverse keeps the newest line in view without any script
    return (f"<div class='da-transcript'><div class='da-transcript-inner'>"
            f"{body or empty}</div></div>")


def game_result(match: dict[str, Any], spec: GameSpec) -> str:
    """The result table of a match of `spec`'s game, in the match's language."""
    lang = language_of(match)
    return result_markdown(match, spec.presentation.view.result_columns, why=spec.presentation.explain_win(match),
                           say=lambda value: spec.presentation.word_for(value, lang))


def result_markdown(match: dict[str, Any], columns: tuple[tuple[str, str], ...] = (("role", "roles"),),
                    why: str = "", say: Callable[[str], str] = str) -> str:
    """The result table: the winner and why (the game's one line), then seat, agent, the
    game's own columns (e.g. role, word), score; in the match's language."""
    lang = language_of(match)
    result = match.get("result") or {}
    names = {s["seat"]: s["agent_name"] for s in match.get("seats", [])}
    if match.get("status") != "finished" or not result:
        reason = match.get("error") or text(lang, "replay.did_not_finish")
        return text(lang, "replay.status_line", status=markdown_text(match.get("status")),
                    reason=markdown_text(reason))
    because = f" — {markdown_text(why)}" if why else ""
    head = [text(lang, "replay.seat"), text(lang, "replay.agent"), *(say(label) for label, _ in columns),
            text(lang, "replay.score")]
    lines = [text(lang, "replay.winner", winner=markdown_text(say(str(result.get("winner")))), because=because,
                  match=match["id"], seed=match["seed"]), "",
             "| " + " | ".join(markdown_text(label) for label in head) + " |",
             "|---|---|" + "---|" * len(columns) + "---|"]
    for seat, pts in (result.get("scores") or {}).items():
        cells = [seat, names.get(seat, ""), *[say(str((result.get(key) or {}).get(seat, ""))) for _, key in columns]]
        lines.append("| " + " | ".join(markdown_text(c) for c in cells) + f" | {pts:g} |")
    return "\n".join(lines)
