"""The encoding's relations evaluated at a pinned position (encoding/enumerate.py: ``Session.evaluate`` for the flow,
``IncrementalEnumerator.winners`` for the end check) against the same relations asked of a solver (``Enumerator``):
the same results on the positions of seeded games, and the engine's (R-FLOW-1..6, R-END-1..3)."""

from __future__ import annotations

import pytest

from niagara_solver.encoding.enumerate import Enumerator, IncrementalEnumerator
from niagara_solver.encoding.relations import Relations
from niagara_solver.engine.flow import flow_choices, flow_value
from niagara_solver.engine.playout import random_playout
from niagara_solver.engine.round import winners
from niagara_solver.model.board import standard_board
from niagara_solver.model.position import Position
from niagara_solver.model.ruleset import PRESETS


@pytest.mark.parametrize("preset,players,seed", [("standard", 3, 7), ("bga-2013-05-09", 2, 8), ("flussgeister", 3, 9)])
def test_evaluated_flows_and_winners_equal_the_solvers_and_the_engines(preset, players, seed):
    rules = PRESETS[preset]
    relations = Relations(standard_board(), rules, players)
    evaluated, asked = IncrementalEnumerator(relations), Enumerator(relations)
    start = Position.initial([f"p{i}" for i in range(players)], ruleset=rules)
    ends = flows = 0
    for k, record in enumerate(random_playout(start, seed, rounds=None, policy="greedy")):
        for pos in (record.start, record.end):
            assert evaluated.winners(pos) == asked.winners(pos) == winners(pos)
            ends += bool(winners(pos))
        if k % 4:
            continue  # a flow every fourth round: the solver's reading of a flow takes a second
        before = record.before_flow
        engine = {o.position for o in flow_choices(before, flow_value(before))}
        assert evaluated.flows(before, None) == asked.flows(before, None) == engine
        flows += 1
    assert flows >= 5 and ends >= 1  # the games end: some end check names a winner
