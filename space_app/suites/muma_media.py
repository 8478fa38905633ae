"""An episode's video half as the imported questions store it: keyframes (PNG data URLs in the
item's `images`) and the action track (`tags.action_track`, each step with its frames), read from
`visual_data/<episode id>/` (`muma_visual`), derived by `muma_track`, drawn by `muma_keyframes`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .muma_keyframes import data_url, draw
from .muma_track import SAMPLE_EVERY, action_track, keyframes
from .muma_visual import VisualDataError, contradictions, read_episode


@dataclass
class Media:
    episode: str
    images: list[str] = field(default_factory=list)
    tags: dict[str, Any] = field(default_factory=dict)  # action_track, keyframes, frames
    notes: list[str] = field(default_factory=list)  # what was read and how, for the import report

    @property
    def text_only(self) -> bool:
        return not self.tags


def episode_media(root: Path, episode: str) -> Media:
    """The episode's keyframes and action track; with none (folder missing or empty, or a file
    not in the documented shape) the episode is text-only and `notes` says why."""
    media = Media(episode)
    folder = root / episode.strip()
    try:
        visual = read_episode(folder, episode)
    except VisualDataError as exc:
        media.notes.append(f"refused: {exc}; kept text-only")
        return media
    if visual is None:
        why = "missing" if not folder.is_dir() else "empty (no frame in any file)"
        media.notes.append(f"no visual data ({folder} {why}); kept text-only")
        return media
    media.notes += visual.notes
    media.notes += [c for f in visual.frames for c in contradictions(f)]
    drawn = keyframes(visual)
    media.images = [data_url(draw(visual, f)) for f in drawn]
    media.tags = {"action_track": [s.to_dict() for s in action_track(visual)],
                  "keyframes": [f.index for f in drawn], "frames": len(visual.frames),
                  "sampling": f"1 in {SAMPLE_EVERY} video frames"
                              + ("" if visual.has_frame_numbers else " (frame indices as frame numbers)")}
    return media


__all__ = ["Media", "episode_media"]
