"""The turn generator against the rule-by-rule interpreter and a brute-force oracle.

Soundness: every generated turn is accepted by the interpreter and leads to the generated position.
Completeness: every position a brute-force search over the notation reaches (as judged by the
interpreter) is generated. Distinctness: no two generated turns lead to the same position.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from brute import brute_force_outcomes
from helpers import P, position
from niagara_solver.engine.apply import apply_turn
from niagara_solver.model.notation import Turn
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import Card
from niagara_solver.model.invariants import position_problems
from strategies import positions


def check(pos, player, card):
    outs = legal_turns(pos, player, card)
    got = [o.position for o in outs]
    assert len(set(got)) == len(got), "two turns lead to the same position"
    for o in outs:
        assert not position_problems(o.position)
        assert Turn.parse(str(o.turn)) == o.turn
        assert apply_turn(pos, player, o.turn, card).position == o.position, str(o.turn)
    brute = brute_force_outcomes(pos, player, card)
    assert brute == set(got), (f"missing {len(brute - set(got))}, extra {len(set(got) - brute)}: "
                               f"{[str(o.turn) for o in outs if o.position not in brute]}")
    return len(outs)


HAND_PICKED = [
    (position(P("red", "port", "4:ruby"), P("blue", "port", "port")), 0, Card.FIVE),
    (position(P("a", "4:ruby", "3"), P("b", "2:amber", "3:diamond")), 0, Card.FOUR),
    (position(P("a", "6L:sapphire", "5"), P("b", "5:ruby", "6L:amber")), 0, Card.THREE),
    (position(P("a", "7R", "2:amber"), P("b", "6R:ruby", "1:diamond")), 0, Card.SIX),
    (position(P("a", "3", "3:ruby"), P("b", "1:amber", "2")), 0, Card.TWO),
    (position(P("a", "5", "4:amethyst"), P("b", "3:ruby", "3:amber"), P("c", "3:diamond", "port"),
              ruleset={"capacity": 2}), 0, Card.TWO),
]


def test_generator_matches_interpreter_and_brute_force_on_chosen_positions():
    counts = [check(pos, player, card) for pos, player, card in HAND_PICKED]
    assert counts[0] == 37


@settings(max_examples=40)
@given(positions(max_players=3), st.data())
def test_generator_matches_brute_force_on_random_positions(pos, data):
    player = data.draw(st.integers(0, len(pos.players) - 1))
    card = data.draw(st.sampled_from(pos.players[player].hand))
    check(pos, player, card)
