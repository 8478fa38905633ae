"""Input conditions (`bench --condition`) for suites whose items carry a video half.

The items hold keyframes in `images` and an action track in `tags.action_track`, as
`import-muma-tom --visual-data` stores them; the conditions follow the MuMA-ToM paper's
modality comparison:

- `multimodal`: the text, and the video: keyframes for an agent that reads images, the action
  track (in words) for one that does not;
- `text`: the text only, no keyframes, no track;
- `video`: the video only (keyframes, or the track for a text-only agent), no text; an item
  without visual data has nothing to show and is left out (counted in `Conditioned.left_out`);
- `track`: the text and the action track, no keyframes, for every agent (what an
  inverse-planning model gets from its perception step).

Answers are stored under the suite id with `@condition` added, so conditions never mix.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from .items import LoadedSuite, SuiteItem
from .registry import Suite

CONDITIONS = ("multimodal", "text", "video", "track")
TRACK_HEADING = "What the video shows, step by step:"
_TRACK_LINE = re.compile(r"^\s*\d+\.\s+(?P<step>.+?)(?:\s+\(frames \d+-\d+\))?\s*$")


@dataclass(frozen=True)
class Conditioned:
    suite: Suite
    left_out: int  # items with no visual data, under `video`


def track_words(tags: dict[str, Any]) -> str:
    """The stored action track as text, each step with the frames it was read from."""
    steps = tags.get("action_track") or []
    lines = [f"{i}. {s['step']} (frames {s['frames'][0]}-{s['frames'][1]})" for i, s in enumerate(steps, start=1)]
    return f"{TRACK_HEADING}\n" + "\n".join(lines) if lines else ""


def read_track(text: str) -> tuple[str, list[str]]:
    """`track_words` read back out of what an agent is shown: (the text without the track, the
    track's steps without their numbers and frames); (text unchanged, []) when it holds no track."""
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if line.strip() == TRACK_HEADING), None)
    if start is None:
        return text, []
    end, steps = start + 1, []
    while end < len(lines) and (m := _TRACK_LINE.match(lines[end])):
        steps.append(m.group("step"))
        end += 1
    return "\n".join(lines[:start] + lines[end:]).strip(), steps


def _join(*parts: str) -> str:
    return "\n\n".join(p for p in parts if p)


def conditioned_item(item: SuiteItem, condition: str, vision: bool) -> SuiteItem | None:
    """The item as shown under `condition` to an agent that does (`vision`) or does not read images;
    None when it has nothing to show (no visual data under `video`)."""
    if condition not in CONDITIONS:
        raise ValueError(f"unknown condition {condition!r}; known: {', '.join(CONDITIONS)}")
    has_video = bool(item.tags.get("action_track") or item.images)
    track = track_words(item.tags)
    if condition == "text":
        return item.model_copy(update={"images": []})
    if condition == "track":
        return item.model_copy(update={"images": [], "context": _join(item.context, track)})
    if condition == "video" and not has_video:
        return None
    text = item.context if condition == "multimodal" else ""
    if vision and item.images:
        return item.model_copy(update={"context": text})
    return item.model_copy(update={"images": [], "context": _join(text, track)})


def with_condition(suite: Suite, condition: str, vision: bool) -> Conditioned:
    kept = [c for item in suite.loaded.items if (c := conditioned_item(item, condition, vision)) is not None]
    if not kept:
        raise ValueError(f"{suite.id}: no item has visual data, so condition {condition!r} leaves nothing to ask "
                         "(import the suite with --visual-data)")
    loaded = LoadedSuite(suite.loaded.path, kept, list(suite.loaded.dropped), list(suite.loaded.repaired))
    return Conditioned(dataclasses.replace(suite, id=f"{suite.id}@{condition}", loaded=loaded),
                       len(suite.loaded.items) - len(kept))


__all__ = ["CONDITIONS", "TRACK_HEADING", "Conditioned", "conditioned_item", "read_track", "track_words",
           "with_condition"]
