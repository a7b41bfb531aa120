"""The turn and rescue notation: round trips, evaluable reprs, and clear errors."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers import P, position
from niagara_solver.engine.apply import apply_turn
from niagara_solver.model.notation import (CanoeAction, CanoeRef, Load, Move, Push, Rescue, Steal, TakeMoose, Trade,
                                           Turn, Unload)
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.errors import AmbiguousTurnError, IllegalTurnError, InvalidTurnError
from niagara_solver.model.atoms import Card, Colour
from strategies import positions

EXAMPLES = ["port: >3 +amethyst", "4: -ruby +diamond <3", "3: <1 xblue/ruby", "4: <port; port: >5", "cloud up",
            "cloud down", "stay", "4[ruby]: <port; 4[empty]: >6L", "5: <3 xb/ruby xc[diamond,amber]/amber"]


@pytest.mark.parametrize("text", EXAMPLES)
def test_notation_round_trips(text):
    turn = Turn.parse(text)
    assert str(turn) == text
    assert Turn.parse(str(turn)) == turn
    assert eval(repr(turn)) == turn  # noqa: S307 - an evaluable repr, like python-chess


def test_notation_structure():
    turn = Turn.parse("4: -ruby +diamond <3; port: >5")
    assert turn.actions == (
        CanoeAction(CanoeRef("4"), (Unload(Colour.RUBY), Load(Colour.DIAMOND), Move("3", False))),
        CanoeAction(CanoeRef("port"), (Move("5", True),)))
    assert Turn.parse("3: <1 xblue/ruby").actions[0].steps[-1] == Steal("blue", Colour.RUBY)
    assert Turn.parse("  Cloud   UP ") == Turn(weather=1)
    assert Turn.parse("4: -Ruby <PORT") == Turn.parse("4: -ruby <port")


@pytest.mark.parametrize("text, fragment", [
    ("", "empty turn"),
    ("4 <3", "colon"),
    ("4: <3 +emerald", "unknown colour"),
    ("4: up3", "unknown step"),
    ("4: <", "needs a destination"),
    ("4: <3 xblue", "xPLAYER/colour"),
])
def test_invalid_notation_says_what_is_wrong(text, fragment):
    with pytest.raises(InvalidTurnError) as err:
        Turn.parse(text)
    assert fragment in str(err.value)


def test_ambiguous_canoe_must_be_named_by_its_cargo():
    pos = position(P("a", "4:ruby", "4"), P("b", "port", "port"))
    with pytest.raises(AmbiguousTurnError):
        apply_turn(pos, 0, Turn.parse("4: <port; 4: >6L"), Card.FOUR)
    named = apply_turn(pos, 0, Turn.parse("4[ruby]: <port; 4[empty]: >6L +sapphire"), Card.FOUR).position
    assert named.players[0].bank.get(Colour.RUBY) == 1
    assert all("[" in str(o.turn) for o in legal_turns(pos, 0, Card.FOUR))


def test_unknown_canoe_is_illegal():
    pos = position(P("a", "4", "port"), P("b", "port", "port"))
    with pytest.raises(IllegalTurnError) as err:
        apply_turn(pos, 0, Turn.parse("3: <port"), Card.FOUR)
    assert err.value.rule == "R-TURN-3" and "no canoe on 3" in str(err.value)


@pytest.mark.parametrize("text, payments", [("none", ()), ("ruby", (Colour.RUBY,)), ("free", (None,)),
                                            ("free,ruby", (None, Colour.RUBY)),
                                            ("amber,ruby", (Colour.AMBER, Colour.RUBY))])
def test_rescue_notation(text, payments):
    rescue = Rescue.parse(text)
    assert rescue.payments == payments and str(rescue) == text and eval(repr(rescue)) == rescue  # noqa: S307
    assert Rescue.parse("ruby,amber") == Rescue.parse("amber,ruby")


@given(positions(max_players=3), st.data())
def test_generated_notation_parses_back_to_the_same_turn(pos, data):
    player = data.draw(st.integers(0, len(pos.players) - 1))
    card = data.draw(st.sampled_from(pos.players[player].hand))
    for outcome in legal_turns(pos, player, card):
        assert Turn.parse(str(outcome.turn)) == outcome.turn


#: The expansion's notation (docs/NOTATION.md, "The expansion"): each turn round-trips, its repr evaluates to it.
EXPANSION_TURNS = [
    ("as 2; port: >2", dict(budget=2)),
    ("as 1; stay", dict(budget=1, actions=0)),
    ("lasso", dict(lasso=True, moored=None)),
    ("lasso 4[ruby]", dict(lasso=True, moored=CanoeRef("4", (Colour.RUBY,)))),
    ("7L: moose <4", dict(steps=(TakeMoose(), Move("4", False)))),
    ("7L: moose; cloud up", dict(weather=1, steps=(TakeMoose(),))),
    ("7L: moose; lasso 3(double)", dict(lasso=True, moored=CanoeRef("3", None, "double"))),
    ("6L: <5 ~6R", dict(steps=(Move("5", False), Push("6R")))),
    ("3(double): +amethyst +diamond >4", dict(ref=CanoeRef("3", None, "double"))),
    ("7L(moose): <6L; 7L: <6L", dict(ref=CanoeRef("7L", None, "moose"))),
    ("3: <2 trade-ruby+amber", dict(steps=(Move("2", False), Trade(Colour.RUBY, Colour.AMBER)))),
    ("3: <2 trade+amber", dict(steps=(Move("2", False), Trade(None, Colour.AMBER)))),
    ("3: <2 trade-ruby", dict(steps=(Move("2", False), Trade(Colour.RUBY, None)))),
    ("2: <1 xblue(double)/ruby xgreen/amber", dict(steps=(Move("1", False), Steal("blue", Colour.RUBY, None, "double"),
                                                          Steal("green", Colour.AMBER)))),
]


@pytest.mark.parametrize("text, parts", EXPANSION_TURNS, ids=[t for t, _ in EXPANSION_TURNS])
def test_the_expansion_notation_round_trips(text, parts):
    turn = Turn.parse(text)
    assert str(turn) == text and Turn.parse(str(turn)) == turn and eval(repr(turn)) == turn
    for key, value in parts.items():
        if key == "steps":
            assert turn.actions[0].steps == value
        elif key == "ref":
            assert turn.actions[0].canoe == value
        elif key == "actions":
            assert len(turn.actions) == value
        else:
            assert getattr(turn, key) == value, key


@pytest.mark.parametrize("text, rule", [
    ("as 4; stay", "X-CARDS-3"), ("as 2", "X-CARDS-3"), ("as 2; cloud up", "X-CARDS-3"),
    ("4: >5; cloud up", "X-MOOSE-1"), ("4: >5; lasso", "X-MOOSE-1"), ("3: trade", "X-JOE-3"),
    ("3: trade-ruby+", "X-JOE-3"), ("3(triple): >4", "X-DOUBLE-1"), ("3: ~", "X-WHIRL-2"),
])
def test_bad_expansion_notation_names_its_rule(text, rule):
    with pytest.raises(InvalidTurnError) as err:
        Turn.parse(text)
    assert err.value.rule == rule, str(err.value)
