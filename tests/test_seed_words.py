"""A word typed as a seed gives the same match in every process (Python's own string hash is
salted per process, so it cannot be the seed)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from space_app.ui.play import seed_of

ROOT = Path(__file__).resolve().parents[1]


def seed_in_new_process(word: str, hash_seed: str) -> int:
    code = f"from space_app.ui.play import seed_of; print(seed_of({word!r}))"
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def test_a_word_seeds_the_same_match_after_a_restart():
    here = seed_of("lighthouse")
    assert here is not None and 0 <= here < 2**31
    assert seed_in_new_process("lighthouse", "1") == seed_in_new_process("lighthouse", "2") == here
    assert seed_of("lighthouse") != seed_of("lighthouses")


def test_numbers_and_empty_seeds():
    assert seed_of("42") == 42 and seed_of(7.0) == 7 and seed_of(" 3 ") == 3
    assert seed_of("") is None and seed_of(None) is None
