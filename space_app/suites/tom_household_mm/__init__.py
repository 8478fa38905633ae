"""Multi-modal household Theory-of-Mind suite (`tom-household-mm`): generated two-person
episodes whose information is split between a text half and a video half by construction,
asked as MuMA-ToM's three question types (belief, social goal, belief of goal).

`episode` stages an episode as structured facts, each in one modality; `solver` enumerates
the hidden states each modality leaves open (the generator's modality check: one option with
both halves, two or more with either alone); `video` films the video half as drawn keyframes
and an action track; `suite` turns episodes into items; `lexical` runs the word-overlap
baseline per condition; `report` is the modality-ablation table from stored runs.

Regenerate (a file, byte-identical for the same seed):
`python -m space_app.suites.tom_household_mm --out FILE [--seed N] [--per-type N]`.
"""

from __future__ import annotations

from .episode import TYPES, Episode, Fact, stage
from .solver import Check, check
from .suite import SUITE, ModalityCheckFailed, generate_episodes, generate_suite, shipped_items, write_suite

__all__ = ["SUITE", "TYPES", "Check", "Episode", "Fact", "ModalityCheckFailed", "check", "generate_episodes",
           "generate_suite", "shipped_items", "stage", "write_suite"]
