"""The event simulator: where everyone is, where every object is, and what each person believes.

Beliefs come only from what a person witnesses: everyone in a room sees a container opened
there (and what is inside), and sees objects taken out or put in. Nothing else updates a
belief, so a move made while someone is in another room leaves that person with a false
belief. Each person also keeps a model of the other's beliefs, updated only by events both
of them witnessed (each sees the other there), which is what a listener knows of a speaker.

Composite actions (look, take, move, ...) append primitive events for the truth and one
"beat" for the narrator, so the story can only say what happened.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .world import House

HAND = "hand:"  # world/belief value prefix for an object being carried


@dataclass(frozen=True)
class Event:
    """One primitive step. kind: start | walk | open | grab | put | close | say | react."""

    kind: str
    actor: str
    room: str
    container: str | None = None
    obj: str | None = None
    listener: str | None = None
    act: str | None = None  # say: ask | answer | decline | offer | announce; react: follow | avoid | ...


@dataclass(frozen=True)
class Beat:
    """One narrated moment; params are plain strings/tuples chosen by the simulator."""

    kind: str
    actor: str | None
    params: dict[str, object] = field(default_factory=dict)


class Simulator:
    def __init__(self, house: House, names: tuple[str, str], placements: dict[str, str]) -> None:
        self.house = house
        self.names = names
        self.world: dict[str, str] = dict(placements)
        self.where: dict[str, str] = {}
        self.belief: dict[str, dict[str, str | None]] = {n: {} for n in names}
        # model[p][q][obj]: where p thinks q believes obj is (None: p cannot tell)
        self.model: dict[str, dict[str, dict[str, str | None]]] = {p: {q: {} for q in names if q != p} for p in names}
        self.events: list[Event] = []
        self.beats: list[Beat] = []

    # -- primitive events ------------------------------------------------------------------

    def _present(self, room: str) -> list[str]:
        return [n for n in self.names if self.where.get(n) == room]

    def _see(self, witnesses: list[str], obj: str, place: str | None) -> None:
        for w in witnesses:
            self.belief[w][obj] = place
        for p in witnesses:  # each witness saw the others see it
            for q in witnesses:
                if q != p:
                    self.model[p][q][obj] = place

    def _apply(self, e: Event) -> None:
        self.events.append(e)
        if e.kind in ("start", "walk"):
            self.where[e.actor] = e.room
            return
        if self.where.get(e.actor) != e.room:
            raise AssertionError(f"{e.actor} acts in {e.room} but is in {self.where.get(e.actor)}")
        present = self._present(e.room)
        if e.kind == "open":
            assert e.container is not None
            for obj in sorted(self.world):
                if self.world[obj] == e.container:
                    self._see(present, obj, e.container)
            # whoever expected something inside now knows it is gone (and the others see that they know)
            for p in present:
                for obj, place in sorted(self.belief[p].items()):
                    if place == e.container and self.world.get(obj) != e.container:
                        self.belief[p][obj] = None
                for q in present:
                    if q == p:
                        continue
                    for obj, place in sorted(self.model[p][q].items()):
                        if place == e.container and self.world.get(obj) != e.container:
                            self.model[p][q][obj] = None
        elif e.kind == "grab":
            assert e.obj is not None and self.world[e.obj] == e.container
            self.world[e.obj] = HAND + e.actor
            self._see(present, e.obj, HAND + e.actor)
        elif e.kind == "put":
            assert e.obj is not None and e.container is not None and self.world[e.obj] == HAND + e.actor
            self.world[e.obj] = e.container
            self._see(present, e.obj, e.container)

    # -- composite actions (each is one beat) ----------------------------------------------

    def start(self, name: str, room: str) -> None:
        self._apply(Event("start", name, room))

    def beat(self, kind: str, actor: str | None = None, **params: object) -> None:
        self.beats.append(Beat(kind, actor, dict(params)))

    def walk(self, name: str, room: str, why: str = "") -> None:
        if self.where[name] == room:
            return
        self._apply(Event("walk", name, room))
        self.beat("walk", name, room=room, why=why)

    def look(self, name: str, kind: str) -> tuple[str, ...]:
        """Open a container, see what is inside, close it; returns what was inside."""
        room = self.house.room_of(kind)
        self.walk(name, room)
        inside = tuple(sorted(o for o, p in self.world.items() if p == kind))
        others = tuple(n for n in self._present(room) if n != name)
        self._apply(Event("open", name, room, kind))
        self._apply(Event("close", name, room, kind))
        self.beat("look", name, container=kind, inside=inside, others=others)
        return inside

    def take(self, name: str, obj: str, kind: str) -> None:
        room = self.house.room_of(kind)
        self.walk(name, room)
        others = tuple(n for n in self._present(room) if n != name)
        self._apply(Event("open", name, room, kind))
        self._apply(Event("grab", name, room, kind, obj))
        self._apply(Event("close", name, room, kind))
        self.beat("take", name, obj=obj, container=kind, others=others)

    def stow(self, name: str, obj: str, kind: str) -> None:
        room = self.house.room_of(kind)
        self.walk(name, room)
        others = tuple(n for n in self._present(room) if n != name)
        self._apply(Event("open", name, room, kind))
        self._apply(Event("put", name, room, kind, obj))
        self._apply(Event("close", name, room, kind))
        self.beat("stow", name, obj=obj, container=kind, others=others)

    def move(self, name: str, obj: str, src: str, dst: str) -> None:
        """Take obj out of src and put it in dst, walking between rooms if needed."""
        src_room, dst_room = self.house.room_of(src), self.house.room_of(dst)
        self.walk(name, src_room)
        others = tuple(n for n in self._present(src_room) if n != name)
        self._apply(Event("open", name, src_room, src))
        self._apply(Event("grab", name, src_room, src, obj))
        self._apply(Event("close", name, src_room, src))
        if dst_room != src_room:
            self._apply(Event("walk", name, dst_room))
        others += tuple(n for n in self._present(dst_room) if n != name and n not in others)
        self._apply(Event("open", name, dst_room, dst))
        self._apply(Event("put", name, dst_room, dst, obj))
        self._apply(Event("close", name, dst_room, dst))
        self.beat("move", name, obj=obj, src=src, dst=dst, others=others)

    def say(self, name: str, act: str, listener: str, obj: str, container: str | None = None, **extra: object) -> None:
        room = self.where[name]
        self._apply(Event("say", name, room, container, obj, listener, act))
        self.beat("say", name, act=act, listener=listener, obj=obj, container=container, **extra)

    def react(self, name: str, act: str, listener: str, obj: str, container: str, **extra: object) -> None:
        room = self.where[name]
        self._apply(Event("react", name, room, container, obj, listener, act))
        self.beat("react", name, act=act, listener=listener, obj=obj, container=container, **extra)
