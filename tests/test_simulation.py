"""Random simulation (OpenSpiel style): thousands of seeded rounds for 2 to 5 players, on the standard and
an inline board, under random switches, checking after every phase that gems and canoes are conserved,
capacities and weather bounds hold, banks only grow outside rescues, and every position round-trips through
JSON with a stable canonical form."""

import dataclasses
import random

import pytest

from niagara_solver.model.board import standard_board
from niagara_solver.play.playout import random_playout
from niagara_solver.model.atoms import COLOURS, Card, Phase
from niagara_solver.model.format import dumps_position, loads_position
from niagara_solver.model.invariants import position_problems
from niagara_solver.model.position import Position
from niagara_solver.model.ruleset import Ruleset
from strategies import LONG_BOARD, SWITCH_VALUES


def check(pos: Position) -> None:
    assert not position_problems(pos), position_problems(pos)
    assert all(len(p.canoes) == 2 for p in pos.players)                       # R-PROP-4
    assert all(len(c.gems) <= c.capacity(pos.ruleset.capacity) for _, c in pos.canoes())  # R-PROP-6
    assert -1 <= pos.weather <= 2                                             # R-PROP-8
    assert pos.gem_totals() == tuple([pos.gems_per_colour] * 5)       # R-PROP-3
    text = dumps_position(pos)
    again = loads_position(text)
    assert again == pos and hash(again) == hash(pos)
    assert dumps_position(again) == text


def random_rules(rng: random.Random) -> Ruleset:
    return Ruleset.from_json({k: rng.choice(v) for k, v in SWITCH_VALUES.items()})


GAMES = [(seed, 2 + seed % 4, board) for seed in range(24) for board in ("standard", "long")]
#: Six players (X-SIX-1), on both boards.
GAMES += [(seed, 6, board) for seed in (24, 25) for board in ("standard", "long")]


@pytest.mark.parametrize("seed, players, board", GAMES)
def test_random_rounds_keep_every_invariant(seed, players, board):
    rng = random.Random(seed)
    rules = random_rules(rng) if seed % 3 else Ruleset()
    # The sixth player's module allows 3 to 6 players (X-SIX-1): set it as the count of players needs.
    rules = dataclasses.replace(rules, x_sixth_player=players == 6 or (players > 2 and rules.x_sixth_player))
    pos = Position.initial([f"p{i}" for i in range(players)], LONG_BOARD if board == "long" else standard_board(),
                           rules, lifebuoy=seed % players)
    rounds = 0
    # A round starts with the very position the last one ended with, and its flow with the one its last turn left:
    # each position is checked once.
    checked: dict[int, Position] = {}

    def check_once(pos: Position) -> None:
        if id(pos) not in checked:
            checked[id(pos)] = pos  # kept, so that no other position takes its id
            check(pos)
    for record in random_playout(pos, seed, 45, policy="greedy" if seed % 2 else "uniform"):
        rounds += 1
        check_once(record.start)
        check_once(record.turns_start)
        assert record.turns_start.phase is Phase.TURNS and record.turns_start.acted == ()
        # Phase I: banks shrink only by rescue payments, one gem per rescued canoe (R-RESCUE-1, R-PROP-9).
        for i, rescue in record.rescues:
            paid = sum(1 for c in rescue.payments if c is not None)
            assert record.start.players[i].bank.total - record.turns_start.players[i].bank.total == paid
        previous = record.turns_start
        order = iter(record.turns_start.turn_order())
        for turn in record.turns:
            assert turn.player == next(order)                                       # R-TURN-1
            check_once(turn.after)
            after, before = turn.after.players[turn.player], previous.players[turn.player]
            assert turn.card not in after.hand and after.card == turn.card         # R-CARD-2
            if turn.card is Card.CLOUD:
                assert abs(turn.after.weather - previous.weather) == 1              # R-PROP-8
            else:
                assert turn.after.weather == previous.weather
            for b0, b1 in zip(previous.players, turn.after.players):
                for c in COLOURS:
                    assert b1.bank.get(c) >= b0.bank.get(c)                         # R-PROP-9
            previous = turn.after
        check_once(record.before_flow)
        check_once(record.end)
        assert record.end.lifebuoy == (record.start.lifebuoy + 1) % players          # R-BUOY-1
        assert record.end.round == record.start.round + 1
        depth = record.end.board.depth
        for p0, p1 in zip(record.before_flow.players, record.end.players):
            assert p0.bank == p1.bank
            assert sum(1 for c in p1.canoes if c.in_port) == sum(1 for c in p0.canoes if c.in_port)  # R-FLOW-5
            before = sorted(depth[c.place] for c in p0.canoes if c.on_river)
            after = sorted(depth[c.place] if c.on_river else 99 for c in p1.canoes if not c.in_port)
            assert all(a >= b for a, b in zip(after, before))                       # R-PROP-1
    assert rounds > 0
