"""The quick flow (a table of where each disc ends, engine/flow.py ``_quick_flow``) against the step-by-step ride
it stands in for (``flow_choices(..., reference=True)``): the same outcomes, on generated positions of every board and
switch, on seeded games of every preset, and for every number of steps a round can flow (R-FLOW-1..6)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import P, position
from niagara_solver.engine.flow import _quick_flow, flow_choices
from niagara_solver.play.playout import random_playout
from niagara_solver.model.position import Position
from niagara_solver.model.ruleset import PRESETS
from strategies import positions


def same(pos: Position, steps: int) -> None:
    quick, ride = flow_choices(pos, steps), flow_choices(pos, steps, reference=True)
    assert quick == ride
    assert [hash(o.position) for o in quick] == [hash(o.position) for o in ride]


@settings(max_examples=300, deadline=None)
@given(positions(), st.integers(0, 9))
def test_quick_flow_equals_the_ride_on_generated_positions(pos, steps):
    same(pos, steps)


@pytest.mark.parametrize("preset,players,seed", [("standard", 3, 1), ("standard", 5, 2), ("bsw", 4, 3),
                                                 ("flussgeister", 4, 4), ("flussgeister-joe", 5, 5)])
def test_quick_flow_equals_the_ride_in_seeded_games(preset, players, seed):
    start = Position.initial([f"p{i}" for i in range(players)], ruleset=PRESETS[preset])
    quick = 0
    for record in random_playout(start, seed, rounds=25, policy="greedy"):
        before = record.turns[-1].after if record.turns else record.turns_start
        for steps in range(0, 10):
            same(before, steps)
            quick += _quick_flow(before, steps) is not None
    # The base game always takes the quick table; the expansion's pieces never do (they ride step by step).
    assert (quick > 0) == (not PRESETS[preset].modules)


def test_a_canoe_over_the_falls_returns_its_cargo_and_the_fork_alternates():
    # Standard board, fork on 5 with its marker on L: three steps send discs L, R, L (R-FLOW-4); ann's canoe rides
    # 5 -> 6L -> 7L, bob's on 7R goes over the falls in step 2 and its sapphire goes home (R-FLOW-6).
    pos = position(P("ann", "5:ruby", "port"), P("bob", "7R:sapphire", "2"))
    (outcome,) = flow_choices(pos, 3)
    after = outcome.position
    assert _quick_flow(pos, 3) == after == flow_choices(pos, 3, reference=True)[0].position
    assert [(c.place, [g.label for g in c.gems]) for c in after.players[0].canoes] == [("port", []), ("7L", ["ruby"])]
    assert sorted(c.place for c in after.players[1].canoes) == ["5", "fallen"]
    assert after.forks == (("5", "R"),)
    assert after.caves[3] == pos.caves[3].plus(pos.players[1].canoes[1].gems[0])
