"""Head to head from hand-built per-seat records with known pairwise results: who sat on
opposite teams, who won, draws when an agent is split across sides, and the matrix read from a
real SQLite store with the leaderboard's filter."""

from __future__ import annotations

import pytest

from space_app.core import SeatRecord
from space_app.head_to_head import head_to_head, match_outcomes, order, tally
from space_app.standings import record_row
from space_app.store import Store


def seat(seat: str, agent: str, team: str, won: bool) -> SeatRecord:
    return SeatRecord(seat=seat, agent_id=agent, role=team, team=team, won=won)


def spy_match(spy: str, civilians: list[str], spy_won: bool) -> list[SeatRecord]:
    out = [seat("P1", spy, "spy", spy_won)]
    out += [seat(f"P{i + 2}", a, "civilian", not spy_won) for i, a in enumerate(civilians)]
    return out


def test_one_match_opposite_sides_only():
    records = spy_match("A", ["B", "C", "C"], spy_won=True)
    outcomes = match_outcomes(records)
    assert outcomes[("A", "B")] == 1 and outcomes[("B", "A")] == -1
    assert outcomes[("A", "C")] == 1 and outcomes[("C", "A")] == -1
    assert ("B", "C") not in outcomes  # teammates: the match does not count for the pair


def test_an_agent_on_both_sides_against_one_side_wins_on_points_or_draws():
    # A holds the spy and a civilian seat; B a civilian seat; the civilians win
    records = [seat("P1", "A", "spy", False), seat("P2", "A", "civilian", True), seat("P3", "B", "civilian", True)]
    # opposed seat pairs: (A spy, B civ) -> B scores; (A civ, B civ) same team, not counted
    assert match_outcomes(records) == {("A", "B"): -1, ("B", "A"): 1}
    # with a second B seat on the spy's side the points are level: a draw
    records.append(seat("P4", "B", "spy", False))
    assert match_outcomes(records) == {("A", "B"): 0, ("B", "A"): 0}


def test_every_seat_lost_is_a_draw():
    records = [seat("P1", "A", "red", False), seat("P2", "B", "blue", False)]
    assert match_outcomes(records) == {("A", "B"): 0, ("B", "A"): 0}


def test_known_pairwise_results_over_several_matches():
    matches = [
        spy_match("A", ["B", "C"], spy_won=True),   # A beats B and C
        spy_match("A", ["B", "C"], spy_won=False),  # B and C beat A
        spy_match("B", ["A", "C"], spy_won=False),  # A and C beat B
        spy_match("C", ["A", "B"], spy_won=True),   # C beats A and B
        [seat("P1", "A", "red", False), seat("P2", "B", "blue", False)],  # A, B draw
    ]
    pairs = tally(matches)
    ab, ba = pairs[("A", "B")], pairs[("B", "A")]
    assert (ab.matches, ab.wins, ab.losses, ab.draws) == (4, 2, 1, 1)
    assert (ba.matches, ba.wins, ba.losses, ba.draws) == (4, 1, 2, 1)
    assert ab.rate().value == pytest.approx(2.5 / 4) and ba.rate().value == pytest.approx(1.5 / 4)
    low, high = ab.rate().interval
    assert low <= 2.5 / 4 <= high
    ac = pairs[("A", "C")]
    assert (ac.matches, ac.wins, ac.losses, ac.draws) == (3, 1, 2, 0)
    assert pairs[("C", "B")].matches == 2  # C and B sat together in the first two matches
    assert order(pairs) == ["A", "B", "C"]  # A: 7 matches against anyone, B: 6, C: 5
    assert order(pairs, ["C"]) == ["C", "A", "B"]


def test_the_matrix_from_a_store_follows_the_leaderboard_filter(tmp_path):
    store = Store(str(tmp_path / "arena.db"))
    matches = [("m1", "", spy_match("A", ["B", "B"], spy_won=True)),
               ("m2", "tournament:t1", spy_match("B", ["A", "A"], spy_won=True)),
               ("m3", "demo", spy_match("A", ["B", "B"], spy_won=True))]
    with store.deriving() as tx:
        for order_no, (match_id, tag, records) in enumerate(matches, 1):
            tx.put_records(match_id, "spy", tag, order_no, [record_row(r) for r in records])
    shown = head_to_head(store, "spy")  # default: visitor, human and tournament matches
    assert shown["matches"] == 2 and shown["filter"]["sources"] == "default"
    cells = {(c["a"], c["b"]): c for c in shown["cells"]}
    assert (cells[("A", "B")]["wins"], cells[("A", "B")]["losses"]) == (1, 1)
    everything = head_to_head(store, "spy", sources=["demo", "visitor", "human", "tournament", "study"])
    assert everything["matches"] == 3
    assert {(c["a"], c["b"]): c["wins"] for c in everything["cells"]} == {("A", "B"): 2, ("B", "A"): 1}
    assert head_to_head(store, "spy", tag="tournament:t1")["cells"][0]["matches"] == 1
    assert head_to_head(store, "spy", agents=["B"])["cells"] == []  # a pair needs both agents shown
