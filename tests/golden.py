"""Comparing readers' outputs with their golden files."""

from __future__ import annotations

import math


def same(a: object, b: object) -> bool:
    """Equal, floats to 1e-12 relative: a mean summed exactly (`math.fsum`) may differ from a
    plain sum in its last digit."""
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, int | float) and isinstance(b, int | float) and math.isclose(a, b, rel_tol=1e-12)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b
