"""The moose (``x_moose``, RULES.md X-MOOSE-1..3): taken by a canoe on a last disc, 2 more points on every action of
its canoe, back to the ruby cave after its canoe banked or fell."""

from __future__ import annotations

import random


import pytest

from helpers import P, assert_turns, doc, notations, replayed_games
from niagara_solver.engine.apply import apply_turn
from niagara_solver.engine.flow import flow
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import Card, Moose
from niagara_solver.model.errors import IllegalTurnError
from niagara_solver.model.format import position_from_json
from niagara_solver.model.notation import Turn
from niagara_solver.model.position import Position
from niagara_solver.model.ruleset import Ruleset


def pos_of(*players, rules=None, **fields) -> Position:
    return position_from_json(doc(*players, ruleset={"x_moose": True, **(rules or {})}, **fields))


def holder(pos: Position) -> list[tuple[str, str]]:
    return [(p.name, c.place) for p in pos.players for c in p.canoes if c.moose]


@pytest.mark.rule("X-MOOSE-1", "X-MOOSE-2")
def test_a_canoe_on_a_last_disc_takes_the_moose_and_acts_with_two_more_points():
    pos = pos_of(P("a", "7L", "fallen"), P("b", "port", "port"))
    # With a 1: paddle one disc up; or take the moose first and spend 3.
    assert_turns(pos, "a", 1, ["7L: <6L", "7L: moose <4", "7L: moose +ruby <6L", "7L: moose <6L +sapphire"])
    after = apply_turn(pos, 0, Turn.parse("7L: moose <4"), Card.ONE).position
    assert after.moose is Moose.HELD and holder(after) == [("a", "4")]
    # Without the module the same canoe only paddles one disc.
    base = position_from_json(doc(P("a", "7L", "fallen"), P("b", "port", "port")))
    assert notations(base, "a", 1) == ["7L: <6L"]


@pytest.mark.rule("X-MOOSE-2")
def test_the_holder_gets_two_more_points_on_every_action_and_with_the_123_card():
    pos = pos_of(P("a", {"at": "5", "moose": True}, "fallen"), P("b", "port", "port"))
    assert pos.moose is Moose.HELD
    # 3 points from 5: three discs up, or a gem action and one disc (two discs down reach no further than 7L).
    assert_turns(pos, "a", 1, ["5: <2", "5: +amber <4", "5: +amber >6L", "5: +amber >6R", "5: <4 +diamond",
                               "5: >6L +sapphire", "5: >6R +sapphire"])
    cards = pos_of(P("a", {"at": "5", "moose": True}, "fallen"), P("b", "port", "port"), rules={"x_cards": True})
    assert "as 1; 5: <2" in notations(cards, "a", "123")  # b + 2


@pytest.mark.rule("X-MOOSE-1")
def test_with_the_cloud_or_the_lasso_one_canoe_may_take_it_first():
    pos = pos_of(P("a", "7L", "7R"), P("b", "port", "port"), weather=2)
    assert notations(pos, "a", "cloud") == ["cloud down", "7L: moose; cloud down", "7R: moose; cloud down"]
    taken = apply_turn(pos, 0, Turn.parse("7R: moose; cloud down"), Card.CLOUD).position
    assert (taken.weather, holder(taken)) == (1, [("a", "7R")])
    lasso = pos_of(P("a", "7L", "7R"), P("b", "port", "port"), rules={"x_cards": True})
    outcomes = {str(o.turn): o.position for o in legal_turns(lasso, 0, Card.LASSO)}
    assert set(outcomes) == {"lasso", "7L: moose; lasso", "7R: moose; lasso"}
    moored = outcomes["7L: moose; lasso"].players[0].canoes
    assert [(c.place, c.moose, c.moored) for c in moored] == [("7L", True, True), ("7R", False, True)]
    with pytest.raises(IllegalTurnError) as err:
        apply_turn(pos, 0, Turn.parse("6L: moose; cloud down"), Card.CLOUD)
    assert err.value.rule in ("X-MOOSE-1", "R-TURN-3")


@pytest.mark.rule("X-MOOSE-1")
def test_only_the_first_acting_canoe_takes_it_and_not_off_a_last_disc():
    pos = pos_of(P("a", "7L", "7R"), P("b", "port", "port"))
    turns = notations(pos, "a", 1)
    assert not any(t.count("moose") > 1 for t in turns)
    assert "7L: moose <4; 7R: <6R" in turns and "7L: <6L; 7R: moose <4" in turns
    with pytest.raises(IllegalTurnError) as err:
        apply_turn(pos, 0, Turn.parse("7L: moose <4; 7R: moose <4"), Card.ONE)
    assert err.value.rule == "X-MOOSE-1"
    away = pos_of(P("a", "6L", "fallen"), P("b", "port", "port"))
    with pytest.raises(IllegalTurnError) as err:
        apply_turn(away, 0, Turn.parse("6L: moose <3"), Card.ONE)
    assert err.value.rule == "X-MOOSE-1"


@pytest.mark.rule("X-MOOSE-3")
def test_the_moose_returns_after_its_canoe_banks_and_waits_after_phase_three():
    pos = pos_of(P("a", {"at": "2", "gem": "ruby", "moose": True}, "fallen"), P("b", "port", "port"))
    home = apply_turn(pos, 0, Turn.parse("2: <port"), Card.ONE).position
    assert home.moose is Moose.RETURNING and holder(home) == [] and home.players[0].bank.total == 1
    # Nobody can take it while it returns, even from a last disc.
    other = pos_of(P("a", {"at": "2", "gem": "ruby", "moose": True}, "fallen"), P("b", "7L", "port"))
    home = apply_turn(other, 0, Turn.parse("2: <port"), Card.ONE).position
    assert "moose" not in " ".join(notations(home, "b", 1))
    assert flow(home.replace(acted=(0, 1)), 0).moose is Moose.WAITING


@pytest.mark.rule("X-MOOSE-3")
def test_the_moose_returns_when_its_canoe_falls_in_the_flow():
    pos = pos_of(P("a", {"at": "7L", "moose": True}, "port"), P("b", "port", "port"))
    after = flow(pos, 1)
    assert after.moose is Moose.WAITING and holder(after) == [] and after.players[0].canoes[1].fallen


def test_random_games_with_the_moose_keep_every_invariant_and_the_two_readings_agree():
    taken = 0

    def rules_of(rng: random.Random) -> Ruleset:
        return Ruleset.from_json({"x_moose": True, "x_cards": rng.choice([True, False])})

    for record, turns in replayed_games(rules_of, range(8), [2, 3]):
        taken += sum("moose" in str(turn.turn) for turn in turns)
        assert record.end.moose in (Moose.WAITING, Moose.HELD)  # never returning at a round's start
        assert len(holder(record.end)) == (record.end.moose is Moose.HELD)  # X-PROP-1
    assert taken > 0


@pytest.mark.rule("X-MOOSE-2")
def test_the_canoe_holding_the_moose_is_named_by_it_where_both_canoes_share_a_disc():
    pos = pos_of(P("a", {"at": "6L", "moose": True}, "6L"), P("b", "port", "port"))
    turns = notations(pos, "a", 1)
    assert "6L: <5; 6L(moose): <3" in turns and "6L: <5; 6L(moose): <5 +amber" in turns
    for outcome in legal_turns(pos, 0, Card.ONE):  # the interpreter reads every name the generator writes
        assert apply_turn(pos, 0, outcome.turn, Card.ONE).position == outcome.position
    after = apply_turn(pos, 0, Turn.parse("6L(moose): <3; 6L: >7L"), Card.ONE).position
    assert sorted((c.place, c.moose) for c in after.players[0].canoes) == [("3", True), ("7L", False)]
