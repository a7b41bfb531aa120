"""The fast generator of paddle turns (niagara_solver/engine/paddling.py) against its two slow references.

``legal_turns`` (the fast generator on the compact state) must return exactly what ``legal_turns_reference`` (the
generator on ``Snapshot``, tests/reference_turns.py) returns: the same turns, leading to the same positions, in the
same order, for the base game, every preset and random combinations of switches and modules; and every outcome it
returns must be what the rule-by-rule interpreter (engine/apply.py) makes of its turn.
"""

from __future__ import annotations

import pickle
import random
from dataclasses import FrozenInstanceError
from typing import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import P, doc, position
from niagara_solver.engine.apply import apply_turn
from niagara_solver.play.playout import random_playout
from niagara_solver.engine.outcome import TurnOutcome
from niagara_solver.engine.turns import legal_turns
from reference_turns import legal_turns_reference
from niagara_solver.model.atoms import Card
from niagara_solver.model.board import Board, standard_board
from niagara_solver.model.format import position_from_json
from niagara_solver.model.invariants import position_problems
from niagara_solver.model.position import Player, Position
from niagara_solver.model.ruleset import PRESETS, SWITCHES, Ruleset
from strategies import LONG_BOARD, positions


def queries(start: Position, seed: int, rounds: int, every: int) -> Iterator[tuple[Position, int, Card]]:
    """Every card in hand of the player to act, in every position of phase II (before each turn) of every
    ``every``-th round of a seeded game; the chosen cards are forgotten so that any card in hand may be asked."""
    for record in random_playout(start, seed, rounds, policy="greedy"):
        if record.start.round % every:
            continue
        before = [record.turns_start, *(t.after for t in record.turns[:-1])]
        for pos, turn in zip(before, record.turns):
            bare = pos.replace(players=tuple(Player(p.name, p.canoes, p.hand, p.bank, None, p.card_budget)
                                             if i not in pos.acted else p for i, p in enumerate(pos.players)))
            for card in bare.players[turn.player].hand:
                yield bare, turn.player, card


def same(pos: Position, player: int, card: Card) -> int:
    """The fast generator's outcomes are the reference generator's, turn for turn, in the same order."""
    fast = legal_turns(pos, player, card)
    slow = legal_turns_reference(pos, player, card)
    # The players and the gems read before the positions are made (TurnOutcome.player, .gems) are the made ones'.
    before = [tuple(o.player(q) for q in range(len(pos.players))) for o in fast]
    gems = [tuple(o.gems(q) for q in range(len(pos.players))) for o in legal_turns(pos, player, card)]
    assert before == [o.position.players for o in fast]
    assert gems == [tuple((p.bank.total, sum(len(c.gems) for c in p.canoes)) for p in o.position.players)
                    for o in fast]
    assert gems == [tuple(o.gems(q) for q in range(len(pos.players))) for o in fast]
    # So are each player's canoes, places and cargo, read likewise (TurnOutcome.places, in no set order).
    places = [tuple(sorted(o.places(q)) for q in range(len(pos.players))) for o in legal_turns(pos, player, card)]
    assert places == [tuple(sorted((c.place, c.gems) for c in p.canoes) for p in o.position.players) for o in fast]
    assert places == [tuple(sorted(o.places(q)) for q in range(len(pos.players))) for o in fast]
    assert [str(o.turn) for o in fast] == [str(o.turn) for o in slow]
    # The notation the generator writes with each outcome (TurnOutcome.notation) is the turn's.
    assert [o.notation for o in fast] == [str(o.turn) for o in fast]
    assert [(o.turn, o.position) for o in fast] == [(o.turn, o.position) for o in slow]
    return len(fast)


def interpreted(pos: Position, player: int, card: Card) -> None:
    """Every outcome of the fast generator is the interpreter's position after its turn; all are distinct."""
    outcomes = legal_turns(pos, player, card)
    assert len({o.position for o in outcomes}) == len(outcomes)
    for o in outcomes:
        made = apply_turn(pos, player, o.turn, card).position
        assert made == o.position, str(o.turn)
        # Equal positions hash equal: a position the generator copies keeps no hash of the one it was copied from.
        assert hash(made) == hash(o.position), str(o.turn)
        assert position_problems(o.position) == []


GAMES = [("standard", 2, 0), ("standard", 4, 1), ("standard", 5, 2), ("bga-2013-05-09", 3, 3), ("bsw", 3, 4),
         ("flussgeister", 3, 5), ("flussgeister", 5, 6), ("flussgeister", 6, 7), ("flussgeister-joe", 3, 8),
         ("flussgeister-joe", 4, 9), ("flussgeister-joe", 6, 10)]


@pytest.mark.parametrize("preset,players,seed", GAMES)
def test_fast_generator_equals_the_reference_generator_in_seeded_games(preset, players, seed):
    start = Position.initial([f"p{i}" for i in range(players)], ruleset=PRESETS[preset])
    counted = [same(pos, player, card) for pos, player, card in queries(start, seed, rounds=30, every=2)]
    assert len(counted) > 80 and sum(counted) > 500  # the games reach positions with many turns


def phase_ii(name: str) -> bool:
    """Whether switch ``name`` is one the random rulesets below combine: a switch of phase II, or one of the own
    switches of a module of phase II (``whirl_start``)."""
    row = SWITCHES[name]
    return "turn" in row.phases or (row.of_module is not None and "turn" in SWITCHES[row.of_module].phases)


#: The switches phase II reads, with the expansion's modules and their own switches: read from the rows (a new
#: switch of phase II joins the random rulesets with no edit here).
PHASE_II = [name for name in SWITCHES if phase_ii(name)]


def mixed_rules(rng: random.Random) -> Ruleset:
    """A random combination of the switches phase II reads (:data:`PHASE_II`), each at one of its row's values."""
    return Ruleset.from_json({name: rng.choice(SWITCHES[name].tries) for name in PHASE_II})


@pytest.mark.parametrize("seed", range(12))
def test_fast_generator_equals_the_reference_generator_under_random_switches(seed):
    rng = random.Random(seed)
    rules = mixed_rules(rng)
    board = LONG_BOARD if seed % 3 == 0 else standard_board()
    players = rng.choice([n for n in (2, 3, 4) if n in rules.player_counts()])
    start = Position.initial([f"p{i}" for i in range(players)], board=board, ruleset=rules)
    counted = [same(pos, player, card) for pos, player, card in queries(start, seed, rounds=16, every=2)]
    assert sum(counted) > 100, rules.describe()


@pytest.mark.parametrize("preset,players,seed", [("standard", 3, 11), ("flussgeister", 4, 12),
                                                 ("flussgeister-joe", 3, 13)])
def test_fast_generator_agrees_with_the_interpreter_in_seeded_games(preset, players, seed):
    start = Position.initial([f"p{i}" for i in range(players)], ruleset=PRESETS[preset])
    for pos, player, card in queries(start, seed, rounds=18, every=6):
        interpreted(pos, player, card)


@settings(max_examples=60, deadline=None)
@given(positions(max_players=4), st.data())
def test_fast_generator_equals_the_reference_generator_on_random_positions(pos, data):
    player = data.draw(st.integers(0, len(pos.players) - 1))
    card = data.draw(st.sampled_from(pos.players[player].hand))
    same(pos, player, card)


def test_a_victims_two_alike_canoes_give_one_outcome_per_steal():
    # R-STEAL-2: stealing the ruby from either of b's two canoes on 3 (both carrying a ruby) leads to one position.
    pos = position(P("a", "4", "port"), P("b", "3:ruby", "3:ruby"), ruleset={"capacity": 2})
    assert [str(o.turn) for o in legal_turns(pos, 0, Card.ONE)] == [
        "4: <3", "4: <3 xb/ruby", "4: <3 xb/ruby xb/ruby", "4: >5", "4: <3 xb/ruby xb/ruby; port: >1",
        "4: <3 xb/ruby; port: >1", "4: <3; port: >1", "4: >5; port: >1"]
    same(pos, 0, Card.ONE)
    interpreted(pos, 0, Card.ONE)


def test_the_holder_of_the_moose_is_told_apart_from_its_twin():
    # X-MOOSE-2: of two canoes on 7L the one holding the moose is named "7L(moose)" and paddles with 2 more points;
    # either order of the two actions leads to one result, written in the first order found.
    pos = position_from_json(doc(P("a", {"at": "7L", "moose": True}, "7L"), P("b", "port", "port"),
                                 ruleset={"x_moose": True}))
    assert [str(o.turn) for o in legal_turns(pos, 0, Card.ONE)] == [
        "7L: <6L; 7L(moose): +ruby <6L", "7L: <6L; 7L(moose): <4", "7L: <6L; 7L(moose): <6L +sapphire"]
    same(pos, 0, Card.ONE)
    interpreted(pos, 0, Card.ONE)


def test_equal_boards_built_apart_give_the_same_turns():
    # The move tables are kept per board: an equal board read again gives the same answers.
    again = Board.from_json(standard_board().description())
    pos = position(P("red", "port", "4:ruby"), P("blue", "port", "port"))
    other = pos.replace(board=again)
    assert [(o.turn, o.position.replace(board=pos.board)) for o in legal_turns(other, 0, Card.FIVE)] == \
           [(o.turn, o.position) for o in legal_turns(pos, 0, Card.FIVE)]


def test_an_outcome_made_on_first_use_is_the_value_made_at_once():
    """The fast generator's outcomes make their positions on first use (TurnOutcome): equal, hashed, printed, pickled
    and frozen as an outcome given its position."""
    pos = position(P("a", "4", "2:ruby"), P("b", "3:ruby", "port"))
    outcomes = legal_turns(pos, 0, Card.TWO)
    assert len(outcomes) > 3
    for o in outcomes:
        made = TurnOutcome(o.turn, apply_turn(pos, 0, o.turn, Card.TWO).position)
        assert o == made and hash(o) == hash(made) and repr(o) == repr(made)
        assert pickle.loads(pickle.dumps(legal_turns(pos, 0, Card.TWO)[outcomes.index(o)])) == made
    with pytest.raises(FrozenInstanceError):
        outcomes[0].turn = outcomes[1].turn
    assert outcomes[0] != outcomes[1]
