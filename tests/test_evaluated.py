"""The encoding's relations evaluated at a pinned position (encoding/enumerate.py: ``Session.evaluate`` for the flow,
``IncrementalEnumerator.winners`` for the end check) against the same relations asked of a solver (``Enumerator``):
the same results on the positions of seeded games, and the engine's (R-FLOW-1..6, R-END-1..3); and the engine's turns
confirmed on the incremental solver (``IncrementalEnumerator.check_turns``) against the fresh solvers'."""

from __future__ import annotations

import pytest

from helpers import P, position

from niagara_solver.encoding.enumerate import Enumerator, IncrementalEnumerator
from niagara_solver.encoding.relations import Relations
from niagara_solver.engine.flow import flow_choices, flow_value
from niagara_solver.engine.playout import random_playout
from niagara_solver.engine.turns import legal_turns
from niagara_solver.engine.round import winners
from niagara_solver.model.board import standard_board
from niagara_solver.model.atoms import Card
from niagara_solver.model.position import Player, Position
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


@pytest.mark.parametrize("preset,players,seed", [("standard", 3, 11), ("flussgeister-joe", 3, 12)])
def test_claimed_turns_confirmed_on_the_incremental_solver_equal_the_solvers(preset, players, seed):
    # The engine's turns pinned on the incremental solver and the question for any other result
    # (IncrementalEnumerator.check_turns) give the outcome set the fresh solvers give (Enumerator.check_turns) and
    # the engine's; on flussgeister-joe's seeded game a canoe holding the moose makes four gem actions at one stop
    # (X-MOOSE-2, gem_ops).
    rules = PRESETS[preset]
    relations = Relations(standard_board(), rules, players)
    incremental, asked = IncrementalEnumerator(relations), Enumerator(relations)
    start = Position.initial([f"p{i}" for i in range(players)], ruleset=rules)
    cases = 0
    for k, record in enumerate(random_playout(start, seed, rounds=12, policy="greedy")):
        if k % 3 != 2:
            continue
        pos, p = record.turns_start, record.turns[0].player
        for card in pos.players[p].hand[:3]:
            bare = pos.with_player(p, Player(pos.players[p].name, pos.players[p].canoes, pos.players[p].hand,
                                             pos.players[p].bank, None, None))
            claimed = {o.position: o.turn for o in legal_turns(bare, p, card)}
            found = incremental.check_turns(bare, p, card, claimed)
            assert set(found) == set(asked.check_turns(bare, p, card, claimed)) == set(claimed)
            cases += 1
    assert cases >= 6


def test_a_claimed_turn_the_rules_refuse_is_refused():
    # A turn of the 3 claimed with the 2 (R-MOVE-3: the budget is spent exactly): the encoding's outcomes are the
    # 2's alone.
    pos = position(P("a", "4", "port"), P("b", "port", "port"))
    incremental = IncrementalEnumerator(Relations.of(pos))
    two = {o.position: o.turn for o in legal_turns(pos, 0, Card.TWO)}
    three = legal_turns(pos, 0, Card.THREE)[0]
    found = incremental.check_turns(pos, 0, Card.TWO, {**two, three.position: three.turn})
    assert set(found) == set(two)
