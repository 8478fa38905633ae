"""The household catalogue and seeded layouts: rooms, the containers in them, and what each can hold.

Every container is something you open (so looking inside is an event), and a container kind
appears in one room of the catalogue only, so "the sideboard" always names one place.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

# Categories of things; a container holds some categories, an object belongs to one.
DISH, FOOD, SMALL, BOOK, LINEN, TOILETRY = "dish", "food", "small", "book", "linen", "toiletry"

# room -> container kind -> categories it plausibly holds
ROOMS: dict[str, dict[str, tuple[str, ...]]] = {
    "kitchen": {
        "fridge": (FOOD,),
        "cupboard": (DISH, FOOD),
        "cutlery drawer": (SMALL,),
        "pantry": (FOOD,),
        "dishwasher": (DISH,),
        "wall cabinet": (DISH, SMALL),
        "bread bin": (FOOD,),
    },
    "living room": {
        "sideboard": (DISH, SMALL, BOOK),
        "TV cabinet": (SMALL, BOOK),
        "coffee-table drawer": (SMALL, BOOK),
        "display cabinet": (DISH, BOOK),
        "storage box": (LINEN, SMALL, BOOK),
    },
    "bedroom": {
        "wardrobe": (LINEN, SMALL),
        "bedside drawer": (SMALL, BOOK, TOILETRY),
        "chest of drawers": (LINEN, SMALL),
        "blanket chest": (LINEN,),
    },
    "bathroom": {
        "medicine cabinet": (TOILETRY,),
        "vanity drawer": (TOILETRY, SMALL),
        "laundry basket": (LINEN,),
        "towel cupboard": (LINEN, TOILETRY),
    },
    "study": {
        "desk drawer": (SMALL, BOOK),
        "filing cabinet": (BOOK,),
        "supply cupboard": (SMALL, BOOK),
        "glass-fronted bookcase": (BOOK,),
    },
    "dining room": {
        "china cabinet": (DISH,),
        "drinks cabinet": (DISH, FOOD),
        "buffet cupboard": (DISH, LINEN),
    },
    "hallway": {
        "shoe cabinet": (SMALL,),
        "coat cupboard": (LINEN, SMALL),
        "console drawer": (SMALL,),
    },
}

# object -> category; all singular, so "it" always fits
OBJECTS: dict[str, str] = {
    "wine glass": DISH,
    "coffee mug": DISH,
    "teapot": DISH,
    "salad bowl": DISH,
    "cake tin": DISH,
    "jar of honey": FOOD,
    "bar of chocolate": FOOD,
    "bottle of juice": FOOD,
    "block of cheese": FOOD,
    "tub of olives": FOOD,
    "remote control": SMALL,
    "spare key": SMALL,
    "pair of scissors": SMALL,
    "phone charger": SMALL,
    "torch": SMALL,
    "tape measure": SMALL,
    "pair of sunglasses": SMALL,
    "deck of cards": SMALL,
    "cookbook": BOOK,
    "notebook": BOOK,
    "photo album": BOOK,
    "crossword book": BOOK,
    "road atlas": BOOK,
    "wool scarf": LINEN,
    "beach towel": LINEN,
    "picnic blanket": LINEN,
    "tablecloth": LINEN,
    "hairbrush": TOILETRY,
    "tube of sunscreen": TOILETRY,
    "bottle of aspirin": TOILETRY,
    "razor": TOILETRY,
}

HOMES = ("small flat", "terraced house", "cottage", "two-storey house", "rented apartment", "bungalow")


@dataclass(frozen=True)
class Container:
    kind: str
    room: str
    holds: tuple[str, ...]


@dataclass(frozen=True)
class House:
    home: str
    rooms: tuple[str, ...]
    containers: tuple[Container, ...]

    def room_of(self, kind: str) -> str:
        return self.container(kind).room

    def container(self, kind: str) -> Container:
        for c in self.containers:
            if c.kind == kind:
                return c
        raise KeyError(kind)

    def in_room(self, room: str) -> list[str]:
        return [c.kind for c in self.containers if c.room == room]

    def fitting(self, obj: str) -> list[str]:
        """Containers the object could plausibly be kept in, in layout order."""
        category = OBJECTS[obj]
        return [c.kind for c in self.containers if category in c.holds]


def sample_house(rng: random.Random) -> House:
    """Four or five rooms with two or three containers each; the kitchen is always there
    (most targets live in it) and the rest vary per episode."""
    others = sorted(r for r in ROOMS if r != "kitchen")
    rooms = ["kitchen", *rng.sample(others, rng.choice((3, 4)))]
    rng.shuffle(rooms)
    containers: list[Container] = []
    for room in rooms:
        kinds = sorted(ROOMS[room])
        for kind in rng.sample(kinds, min(len(kinds), rng.choice((2, 3, 3)))):
            containers.append(Container(kind, room, ROOMS[room][kind]))
    return House(rng.choice(HOMES), tuple(rooms), tuple(containers))


def article(noun: str) -> str:
    """'a' or 'an' for a catalogue noun (none starts with a silent letter)."""
    return "an" if noun[0].lower() in "aeiou" else "a"
