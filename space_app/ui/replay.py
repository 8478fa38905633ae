"""Turn stored events into what every replay shows: a transcript up to a step, the
markers and the result table. Pure functions; a game's own panels (rounds, votes)
come from its spec's `view`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core import GameSpec
from ..safe_text import html_text, markdown_text
from .i18n import DEFAULT_LANGUAGE, language_of, text

SPECTATOR = "Spectator (everything)"  # the view's value; its label comes from the catalogue

KIND_ICONS = {"statement": "💬", "foul": "🚩", "elimination": "❌", "vote": "🗳️", "vote_result": "📊",
              "round_start": "🔔", "start": "🎬", "end": "🏁", "setup": "🔒", "private": "🔑",
              "withheld_statement": "🙈", "error": "⚠️"}


def visible(events: list[dict[str, Any]], seat: str | None) -> list[dict[str, Any]]:
    """Spectator: every event except raw call records (shown as markers instead).
    A seat: exactly the events that seat was shown."""
    if seat is None:
        return with_call_reasons(events)
    return [e for e in events if e["kind"] != "call"
            and (e["visible_to"] is None or seat in e["visible_to"])]


def with_call_reasons(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The spectator's events without call records, the reason of a failed call carried to
    the next event of the same seat (its foul, abstention or invalid action), so the
    transcript line says why (a seat's own view never shows call records)."""
    out: list[dict[str, Any]] = []
    failed: dict[str, str] = {}
    for e in events:
        d = e.get("data") or {}
        if e["kind"] == "call":
            if d.get("status") not in (None, "ok"):
                failed[e["actor"]] = f"{d['status']}: {d.get('detail') or ''}".rstrip(": ")[:200]
            continue
        reason = failed.pop(e["actor"], None)
        out.append({**e, "data": {**d, "call_reason": reason}} if reason else e)
    return out


def short_reason(e: dict[str, Any]) -> str:
    """Why a turn went wrong, when its line does not already say it."""
    d = e.get("data") or {}
    # an elimination's reason is a code (vote, foul), and a foul's line already says why in the
    # game's language: only a failed call's reason is added to those
    said_already = e["kind"] in ("elimination", "foul")
    reason = d.get("call_reason") or ("" if said_already else d.get("reason") or d.get("problem")) or ""
    if not isinstance(reason, str) or not reason or reason in (e.get("text") or "") or reason == "abstained":
        return ""
    return reason[:200]


MARKER_COLUMNS = ["round", "seat", "marker", "verb", "reason", "latency_ms"]


def markers(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fouls, timeouts, errors and unreadable replies, with their reason."""
    out = []
    for e in events:
        d = e.get("data") or {}
        if e["kind"] == "call" and d.get("status") != "ok":
            out.append({"seq": e["seq"], "round": e["round"], "seat": e["actor"], "marker": d.get("status"),
                        "verb": d.get("verb"), "reason": d.get("detail") or "",
                        "latency_ms": d.get("latency_ms")})
        elif e["kind"] == "foul":
            out.append({"seq": e["seq"], "round": e["round"], "seat": e["actor"], "marker": "foul",
                        "verb": "speak", "reason": d.get("reason", e["text"]), "latency_ms": None})
    return out


def _images(e: dict[str, Any], image: Callable[[str], str | None] | None) -> str:
    """The event's images as thumbnails (each reaches the views that may see its event)."""
    refs = (e.get("data") or {}).get("images") or []
    if image is None or not refs:
        return ""
    caption = html_text((e.get("data") or {}).get("caption") or e.get("text") or "")
    shown = [f"<img src='{url}' alt='{caption}' title='{caption}'>"
             for url in (image(str(ref)) for ref in refs) if url]
    return f"<div class='da-images'>{''.join(shown)}</div>" if shown else ""


def _line(e: dict[str, Any], names: dict[str, str], fold_setup: bool = False,
          image: Callable[[str], str | None] | None = None, language: str = DEFAULT_LANGUAGE) -> str:
    line = _text_line(e, names, fold_setup, language)
    pictures = _images(e, image)
    if not pictures:
        return line
    end = line.rindex("</")  # inside the line's own element, before it closes
    return line[:end] + pictures + line[end:]


def _text_line(e: dict[str, Any], names: dict[str, str], fold_setup: bool = False,
               language: str = DEFAULT_LANGUAGE) -> str:
    icon = KIND_ICONS.get(e["kind"], "•")
    actor = e["actor"]
    who = f"<b>{html_text(actor)}</b>" + (
        f" <span class='da-agent'>({html_text(names[actor])})</span>" if actor in names else "")
    words = html_text(e["text"])
    cls = f"da-ev da-{html_text(e['kind'])}"
    if e["kind"] == "statement":
        return f"<div class='{cls}'>{icon} {who}: {words}</div>"
    if e["kind"] == "round_start":
        return f"<div class='{cls}'><h4>{icon} {words}</h4></div>"
    if e["kind"] == "setup" and fold_setup:
        # the spectators' hidden truth (who the spy is) folded away: a replay must not spoil itself
        return (f"<details class='{cls} da-secret da-spoiler'><summary>{icon} "
                f"<i>{text(language, 'replay.hidden_setup')}</i></summary><i>{words}</i></details>")
    if e["kind"] in ("private", "setup", "withheld_statement"):
        label = (text(language, "replay.only_seen_by", who=who) if e["kind"] == "private"
                 else text(language, "replay.spectators_only"))
        return f"<div class='{cls} da-secret'>{icon} <i>{label} {words}</i></div>"
    why = short_reason(e)
    why = f" <span class='da-reason'>— {html_text(why)}</span>" if why else ""
    return f"<div class='{cls}'>{icon} {words}{why}</div>"


def transcript_html(events: list[dict[str, Any]], names: dict[str, str] | None = None,
                    upto: int | None = None, fold_setup: bool = False,
                    image: Callable[[str], str | None] | None = None,
                    language: str = DEFAULT_LANGUAGE) -> str:
    """HTML transcript of `events` (already filtered for a view), up to step `upto`;
    `fold_setup` folds the spectators' hidden setup into a click-to-show line; `image`
    turns an event's image references into thumbnails (see `ui.media`); the interface's
    own words in `language` (the game's)."""
    shown = events if upto is None else events[: upto + 1]
    body = "\n".join(_line(e, names or {}, fold_setup, image, language) for e in shown)
    empty = f"<i>{text(language, 'replay.no_events')}</i>"
    # column-reverse keeps the newest line in view without any script
    return (f"<div class='da-transcript'><div class='da-transcript-inner'>"
            f"{body or empty}</div></div>")


def game_result(match: dict[str, Any], spec: GameSpec) -> str:
    """The result table of a match of `spec`'s game, in the match's language."""
    lang = language_of(match)
    return result_markdown(match, spec.view.result_columns, why=spec.explain_win(match),
                           say=lambda value: spec.word_for(value, lang))


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
