"""The narrator: renders an episode's beats as plain English, with varied wording.

It says only what the beats record (who went where, what was seen inside a container, what
was said), never anyone's social goal; where people were is always told, so a reader can work
out who witnessed what.
"""

from __future__ import annotations

import random

from . import policy
from .people import Person
from .sim import Beat
from .world import House, article

_WALK = (
    "{p} went to the {room}.",
    "{p} headed into the {room}.",
    "{p} walked over to the {room}.",
    "Then {p} made {poss} way to the {room}.",
)
_WALK_FETCH = (
    "{p} went to the {room} to fetch the {x}.",
    "{p} needed the {x}, so {subj} went to the {room}.",
    "{p} headed to the {room} for the {x}.",
)
_WALK_TIDY = (
    "{p} went to the {room} to tidy up a little.",
    "{p} decided the {room} needed tidying and went there.",
    "{p} wandered into the {room}, meaning to put a few things away.",
)
_SEE = (
    "{p} opened the {c} and saw the {o} inside.",
    "{p} looked in the {c}; the {o} was there.",
    "When {p} opened the {c}, {subj} noticed the {o} inside.",
    "{p} opened the {c}, and there was the {o}.",
)
_SEE_BOTH = (
    "{p} opened the {c}, and {p} and {q} both saw the {o} inside.",
    "{p} opened the {c} while {q} looked on; the {o} was inside.",
    "{p} opened the {c}. {q} was right there, and both of them could see the {o} inside.",
)
_MISSING = (
    "{p} opened the {c}, but the {o} was not there.",
    "{p} looked in the {c} and found no sign of the {o}.",
    "{p} checked the {c}; no {o}.",
    "{p} searched the {c}, but the {o} was nowhere to be seen.",
)
_GLANCE = (
    "{p} opened the {c} and looked inside.",
    "{p} had a quick look in the {c}.",
)
_TAKE = (
    "{p} took the {x} out of the {c}.",
    "{p} opened the {c} and took out the {x}.",
    "{p} got the {x} from the {c}.",
)
_MOVE_SAME = (
    "{p} took the {o} out of the {src} and put it in the {dst}.",
    "{p} moved the {o} from the {src} to the {dst}.",
    "{p} lifted the {o} out of the {src} and put it away in the {dst}.",
)
_MOVE_ACROSS = (
    "{p} took the {o} from the {src}, carried it to the {room} and put it in the {dst}.",
    "{p} took the {o} out of the {src}, brought it to the {room} and left it in the {dst}.",
    "{p} moved the {o} from the {src} to the {dst} in the {room}.",
)
_WHEREABOUTS = (
    "{p} was in the {room}.",
    "{p} was busy in the {room}.",
    "{p} was pottering about in the {room}.",
    "{p} had settled down in the {room}.",
)
_TOGETHER = (
    "{a} and {b} were both in the {room}.",
    "{a} and {b} were in the {room} together.",
    "It began in the {room}, where {a} and {b} were chatting.",
)
_UNSEEN = (
    "All this time {p} was in the {room} and saw none of it.",
    "{p}, still in the {room}, did not see this.",
    "Meanwhile {p} stayed in the {room}.",
)
_GOAL_GET = (
    "{p} wanted the {o}.",
    "{p} needed the {o}.",
    "Now {p} wanted to get the {o}.",
    "A little later, {p} found {subj} needed the {o}.",
)
# for a listener who moved the object herself a moment ago: her need comes later
_GOAL_GET_AGAIN = (
    "A little later, {p} wanted the {o} again.",
    "Some time afterwards, {p} needed the {o}.",
    "Later on, {p} found {subj} needed the {o} after all.",
)
_GOAL_PUT_AGAIN = (
    "A little later, {p} decided the {o} belonged in the {t} instead.",
    "Some time afterwards, {p} wanted to put the {o} in the {t}.",
)
_GOAL_PUT = (
    "{p} wanted to put the {o} in the {t}.",
    "A little later, {p} decided the {o} belonged in the {t}.",
    "{p} had decided to put the {o} away in the {t}.",
    "Now {p} wanted the {o} in the {t}.",
)
_ASK = (
    '"{q}, do you know where the {o} is?" {p} asked.',
    "{p} asked {q} whether {qsubj} knew where the {o} was.",
    '"Have you seen the {o}?" {p} asked {q}.',
    '"{q}, where is the {o}?" asked {p}.',
)
_ANNOUNCE_KNOWN = (
    "{p} said {subj} was going to {inf}.",
    '"Right, time to {inf}," {p} said.',
    "{p} mentioned that {subj} was about to {inf}.",
)
_ANNOUNCE_LOST = (
    '"Where on earth is the {o}?" {p} muttered to {refl}.',
    "{p} sighed that {subj} could not find the {o} anywhere.",
    "{p} looked around the room, grumbling that the {o} had gone missing.",
)
_ANSWER = (
    '"It\'s in the {c} in the {room}," {q} replied.',
    '"Try the {c} in the {room}," said {q}.',
    "{q} told {p} it was in the {c} in the {room}.",
    '"Look in the {c}," {q} answered.',
)
_OFFER = (
    'Without being asked, {q} said, "The {o} is in the {c}."',
    '{q} looked up and said, "If you want the {o}, it\'s in the {c} in the {room}."',
    "Before {p} could ask, {q} told {pobj} the {o} was in the {c}.",
    '"You\'ll find the {o} in the {c}," {q} offered.',
)
_DECLINE = (
    "\"Sorry, I'm busy. You'll have to find it yourself,\" {q} said.",
    "{q} shrugged and said {qsubj} had {qposs} own things to deal with.",
    '"Not now, I\'m in the middle of something," {q} replied.',
)
_FOLLOW_WARM = (
    "{p} thanked {q} and went straight to the {c}.",
    '"Thanks!" said {p}, and headed for the {c} in the {room}.',
)
_FOLLOW_FLAT = (
    "{p} nodded and went to check the {c}.",
    "{p} set off for the {c} in the {room}.",
)
_AVOID = (
    "{p} gave {q} a doubtful look and went to search the {c} instead.",
    "{p} ignored the suggestion and went to look in the {c} instead.",
    "{p} did not go anywhere near the {s}; {subj} went to check the {c} instead.",
)
_THANK = (
    "{p} smiled, thanked {q}, and explained that {subj} had moved it to the {c} earlier.",
    '"That\'s kind of you," said {p}, "but I put it in the {c} a little while ago."',
)
_COLD = (
    "{p} gave {q} a long look, said nothing, and went to the {c} to fetch it.",
    "{p} frowned at {q}, then went straight to the {c} without a word.",
)
_ALONE = (
    "{p} sighed and carried on searching on {poss} own.",
    "So {p} went off to look by {refl}.",
)


def _join(items: list[str]) -> str:
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


def _cap(s: str) -> str:
    return s[0].upper() + s[1:]


class Narrator:
    def __init__(
        self, house: House, people: dict[str, Person], target: str, task: tuple[str, str | None], rng: random.Random
    ) -> None:
        self.house = house
        self.people = people
        self.target = target
        self.dest = task[1]  # where the listener wants to put the target (None: she just wants it)
        self.inf = f"put the {target} in the {self.dest}" if self.dest else f"get the {target}"
        self.rng = rng
        self._last_actor: str | None = None
        self._seeking: set[str] = set()  # people searching for the target: an empty container is news

    def _pick(self, options: tuple[str, ...], **slots: str) -> str:
        return _cap(self.rng.choice(options).format(**slots))

    def _who(self, name: str) -> str:
        """A pronoun for the actor of the previous sentence when it cannot be misread."""
        genders = {p.she for p in self.people.values()}
        if name == self._last_actor and len(genders) == 2 and self.rng.random() < 0.5:
            return self.people[name].subj
        return name

    def render(self, beats: tuple[Beat, ...]) -> str:
        setup: list[str] = []
        story: list[str] = []
        for b in beats:
            text = self._beat(b)
            if text:
                (setup if b.kind in ("intro", "layout") else story).append(text)
            self._last_actor = b.actor
        return " ".join(setup) + "\n\n" + " ".join(story)

    def _beat(self, b: Beat) -> str:
        handler = getattr(self, "_" + b.kind)
        return handler(b)

    # -- setting ----------------------------------------------------------------------------

    def _intro(self, b: Beat) -> str:
        a, s, home = str(b.params["listener"]), str(b.params["speaker"]), str(b.params["home"])
        pair = self.rng.choice(((a, s), (s, a)))
        return self._pick(
            (
                "{x} and {y} share a {home}.",
                "{x} and {y} live together in a {home}.",
                "{x} and {y} were spending a quiet day at home in their {home}.",
            ),
            x=pair[0],
            y=pair[1],
            home=home,
        )

    def _layout(self, b: Beat) -> str:
        rooms = list(self.house.rooms)
        parts = [self._pick(("It has {r}.", "There is {r}.", "The rooms are {r}."), r=_join([f"a {r}" for r in rooms]))]
        for room in rooms:
            kinds = [f"{article(k)} {k}" for k in self.house.in_room(room)]
            parts.append(
                self._pick(
                    ("The {room} has {k}.", "In the {room} there is {k}.", "The {room} holds {k}."),
                    room=room,
                    k=_join(kinds),
                )
            )
        return " ".join(parts)

    def _together(self, b: Beat) -> str:
        names = list(self.people)
        self.rng.shuffle(names)
        return self._pick(_TOGETHER, a=names[0], b=names[1], room=str(b.params["room"]))

    def _whereabouts(self, b: Beat) -> str:
        assert b.actor is not None
        return self._pick(_WHEREABOUTS, p=b.actor, room=str(b.params["room"]))

    def _unseen(self, b: Beat) -> str:
        assert b.actor is not None
        return self._pick(_UNSEEN, p=b.actor, room=str(b.params["room"]))

    # -- actions ------------------------------------------------------------------------------

    def _walk(self, b: Beat) -> str:
        assert b.actor is not None
        person = self.people[b.actor]
        why, room = str(b.params.get("why", "")), str(b.params["room"])
        slots = {"p": self._who(b.actor), "room": room, "poss": person.poss, "subj": person.subj}
        if why.startswith("fetch:"):
            return self._pick(_WALK_FETCH, x=why[6:], **slots)
        if why.startswith("tidy:"):
            return self._pick(_WALK_TIDY, **slots)
        return self._pick(_WALK, **slots)

    def _look(self, b: Beat) -> str:
        assert b.actor is not None
        person = self.people[b.actor]
        c, inside = str(b.params["container"]), tuple(b.params["inside"])  # type: ignore[arg-type]
        others = tuple(b.params["others"])  # type: ignore[arg-type]
        slots = {"p": self._who(b.actor), "c": c, "o": self.target, "subj": person.subj}
        if self.target in inside:
            if others:
                return self._pick(_SEE_BOTH, q=str(others[0]), **{**slots, "p": b.actor})
            return self._pick(_SEE, **slots)
        if b.actor in self._seeking:
            return self._pick(_MISSING, **slots)
        return self._pick(_GLANCE, **slots)

    def _take(self, b: Beat) -> str:
        assert b.actor is not None
        return self._pick(_TAKE, p=self._who(b.actor), x=str(b.params["obj"]), c=str(b.params["container"]))

    def _stow(self, b: Beat) -> str:
        assert b.actor is not None
        return f"{self._who(b.actor)} put the {b.params['obj']} in the {b.params['container']}."

    def _move(self, b: Beat) -> str:
        assert b.actor is not None
        src, dst, obj = str(b.params["src"]), str(b.params["dst"]), str(b.params["obj"])
        slots = {"p": self._who(b.actor), "o": obj, "src": src, "dst": dst, "room": self.house.room_of(dst)}
        if self.house.room_of(src) == self.house.room_of(dst):
            return self._pick(_MOVE_SAME, **slots)
        return self._pick(_MOVE_ACROSS, **slots)

    def _goal(self, b: Beat) -> str:
        assert b.actor is not None
        self._seeking.add(b.actor)
        again = bool(b.params.get("knows"))
        if self.dest:
            return self._pick(_GOAL_PUT_AGAIN if again else _GOAL_PUT, p=b.actor, o=self.target, t=self.dest)
        table = _GOAL_GET_AGAIN if again else _GOAL_GET
        return self._pick(table, p=b.actor, o=self.target, subj=self.people[b.actor].subj)

    # -- talk -----------------------------------------------------------------------------------

    def _say(self, b: Beat) -> str:
        assert b.actor is not None
        act = str(b.params["act"])
        me, other = self.people[b.actor], self.people[str(b.params["listener"])]
        c = b.params.get("container")
        slots = {
            "o": self.target,
            "inf": self.inf,
            "subj": me.subj,
            "refl": me.refl,
            "c": str(c),
            "room": self.house.room_of(str(c)) if c else "",
        }
        if act == policy.ASK:
            return self._pick(_ASK, p=me.name, q=other.name, qsubj=other.subj, **slots)
        if act == policy.ANNOUNCE:
            return self._pick(_ANNOUNCE_KNOWN if b.params.get("knows") else _ANNOUNCE_LOST, p=me.name, **slots)
        # the speaker answers the listener: q is the speaker here, p the listener
        slots.update(q=me.name, p=other.name, pobj=other.obj, qsubj=me.subj, qposs=me.poss)
        if act == policy.ANSWER:
            return self._pick(_ANSWER, **slots)
        if act == policy.OFFER:
            return self._pick(_OFFER, **slots)
        return self._pick(_DECLINE, **slots)

    def _react(self, b: Beat) -> str:
        assert b.actor is not None
        act = str(b.params["act"])
        me = self.people[b.actor]
        c = b.params.get("container")
        slots = {
            "p": me.name,
            "q": str(b.params["listener"]),
            "subj": me.subj,
            "poss": me.poss,
            "refl": me.refl,
            "c": str(c),
            "s": str(b.params.get("said")),
            "room": self.house.room_of(str(c)) if c else "",
        }
        table = {
            policy.AVOID: _AVOID,
            policy.THANK: _THANK,
            policy.COLD: _COLD,
            policy.ALONE: _ALONE,
        }
        if act == policy.FOLLOW:
            return self._pick(_FOLLOW_WARM if b.params.get("warm") else _FOLLOW_FLAT, **slots)
        return self._pick(table[act], **slots)


def narrate(
    house: House,
    people: dict[str, Person],
    target: str,
    task: tuple[str, str | None],
    beats: tuple[Beat, ...],
    rng: random.Random,
) -> str:
    """task: (get | put, destination or None)."""
    return Narrator(house, people, target, task, rng).render(beats)
