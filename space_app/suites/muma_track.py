"""From an episode's per-frame predicates (`muma_visual`) to what an agent is given of its video:
an action track in plain English and the frames drawn as keyframes.

Action track: consecutive frames are compared and each change becomes one step, naming the two
frames it comes from (`Step.frames`), so every step can be traced to the data:

- the person's room changes          -> "walks to the kitchen"
- something is held that was not     -> "grabs the mug from the kitchentable" (where it was)
- something held is no longer held   -> "puts the mug in the cabinet" / "on the sofa" (where it is)
- something is open / no longer open -> "opens the fridge" / "closes the fridge"

The person's room is the room of the furniture they are close to (by the episode's room boxes
when `boxes.json` has them, else by the usual room of that furniture in the simulator's homes).

Keyframes: the MuMA-ToM paper gives image models one video frame in 20. When the episode has its
video frame numbers (`frames.json`), the first frame of each 20-frame window is drawn; otherwise
each frame index stands for its own number (indices 0, 20, 40, ...). The last frame is always
drawn: it shows where things ended up.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .muma_visual import EpisodeVisual, Frame

SAMPLE_EVERY = 20  # video frames per keyframe, as the paper samples for image models
ROOMS = ("kitchen", "livingroom", "bedroom", "bathroom")
# where the simulator's homes put furniture, for episodes without room boxes
USUAL_ROOM = {
    **dict.fromkeys(("kitchentable", "kitchencounter", "kitchencabinet", "kitchencabinets", "stove", "fridge",
                     "microwave", "dishwasher", "coffeepot", "sink", "toaster", "cabinet"), "kitchen"),
    **dict.fromkeys(("sofa", "coffeetable", "tvstand", "tv", "bookshelf", "armchair", "livingroom"), "livingroom"),
    **dict.fromkeys(("bed", "nightstand", "closet", "desk", "dresser", "bedroom"), "bedroom"),
    **dict.fromkeys(("toilet", "bathroomcabinet", "bathroomcounter", "bathtub", "towelrack", "bathroom"), "bathroom"),
}


@dataclass(frozen=True)
class Step:
    text: str
    frames: tuple[int, int]  # (before, after): the frame indices the change was read from

    def to_dict(self) -> dict[str, object]:
        return {"step": self.text, "frames": list(self.frames)}


def room_of(thing: str, frame: Frame) -> str | None:
    """The room `thing` (furniture) is in: the room box holding its centre, else its usual room."""
    rooms = [b for b in frame.boxes.values() if b.class_name in ROOMS]
    for box in frame.boxes.values():
        if box.class_name == thing:
            x, z = box.centre
            inside = [r for r in rooms if r.x_min <= x <= r.x_max and r.z_min <= z <= r.z_max]
            if len(inside) == 1:
                return inside[0].class_name
    return USUAL_ROOM.get(thing)


def person_room(frame: Frame) -> str | None:
    """The room most of what the person is close to is in; None when nothing close has a room."""
    votes = Counter(r for thing in frame.close if (r := room_of(thing, frame)) is not None)
    return votes.most_common(1)[0][0] if votes else None


def _where(places: list[tuple[str, str]]) -> str:
    return " and ".join(f"{p} the {w}" for p, w in places)


def action_track(visual: EpisodeVisual) -> list[Step]:
    steps: list[Step] = []
    room: str | None = None
    prev: Frame | None = None
    for frame in visual.frames:
        now_room = person_room(frame)
        if now_room is not None and now_room != room:
            before = prev.index if prev is not None else frame.index
            steps.append(Step(f"The person walks to the {now_room}." if room else f"The person is in the {now_room}.",
                              (before, frame.index)))
            room = now_room
        if prev is not None:
            span = (prev.index, frame.index)
            for obj in dict.fromkeys(frame.holds):
                if obj not in prev.holds:
                    was = prev.places(obj)
                    source = f" from the {was[0][1]}." if was else "."
                    steps.append(Step(f"The person grabs the {obj}{source}", span))
            for obj in dict.fromkeys(prev.holds):
                if obj not in frame.holds:
                    now = frame.places(obj)
                    steps.append(Step(f"The person puts the {obj} {_where(now)}." if now
                                      else f"The person puts down the {obj}.", span))
            opened = [t for t in dict.fromkeys(frame.opened) if t not in prev.opened]
            closed = [t for t in dict.fromkeys(prev.opened) if t not in frame.opened]
            steps += [Step(f"The person opens the {t}.", span) for t in opened]
            steps += [Step(f"The person closes the {t}.", span) for t in closed]
        elif frame.opened:
            steps += [Step(f"The {t} is open.", (frame.index, frame.index)) for t in dict.fromkeys(frame.opened)]
        prev = frame
    return steps


def track_text(steps: list[Step]) -> str:
    """The track as the text an agent reads, each step with its frames."""
    return "\n".join(f"{i}. {s.text} (frames {s.frames[0]}-{s.frames[1]})" for i, s in enumerate(steps, start=1))


def keyframes(visual: EpisodeVisual, every: int = SAMPLE_EVERY) -> list[Frame]:
    """One frame in `every` video frames (see the module's docstring), and the last frame."""
    chosen: list[Frame] = []
    window: int | None = None
    for frame in visual.frames:
        number = frame.video_frame if frame.video_frame is not None else frame.index
        if number // every != window:
            if visual.has_frame_numbers or number % every == 0:
                chosen.append(frame)
            window = number // every
    if visual.frames and (not chosen or chosen[-1] is not visual.frames[-1]):
        chosen.append(visual.frames[-1])
    return chosen


__all__ = ["ROOMS", "SAMPLE_EVERY", "Step", "USUAL_ROOM", "action_track", "keyframes", "person_room", "room_of",
           "track_text"]
