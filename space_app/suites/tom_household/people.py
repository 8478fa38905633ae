"""The people in an episode: names from many languages, with the pronouns the narrator needs."""

from __future__ import annotations

import random
from dataclasses import dataclass

_SHE = (
    "Mary",
    "Aisha",
    "Lucía",
    "Priya",
    "Fatima",
    "Ingrid",
    "Sofia",
    "Amara",
    "Leila",
    "Nadia",
    "Mei",
    "Zanele",
    "Elena",
    "Yara",
    "Hana",
    "Chiamaka",
    "Astrid",
    "Rosa",
    "Keiko",
    "Daniela",
)
_HE = (
    "John",
    "Kenji",
    "Tomasz",
    "Olu",
    "Chen",
    "Mateo",
    "Kwame",
    "Hiro",
    "Diego",
    "Sven",
    "Rafael",
    "Omar",
    "Arjun",
    "Tariq",
    "Felix",
    "Bongani",
    "Luca",
    "Dmitri",
    "Ahmed",
    "Finn",
)


@dataclass(frozen=True)
class Person:
    name: str
    she: bool

    @property
    def subj(self) -> str:
        return "she" if self.she else "he"

    @property
    def obj(self) -> str:
        return "her" if self.she else "him"

    @property
    def poss(self) -> str:
        return "her" if self.she else "his"

    @property
    def refl(self) -> str:
        return "herself" if self.she else "himself"


def sample_pair(rng: random.Random) -> tuple[Person, Person]:
    """Two different people; any mix of pronouns, so a pronoun alone never tells who is meant
    unless the narrator makes it clear."""
    pool = [Person(n, True) for n in _SHE] + [Person(n, False) for n in _HE]
    first, second = rng.sample(pool, 2)
    return first, second
