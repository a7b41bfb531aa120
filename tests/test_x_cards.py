"""The expansion's cards (``x_cards``, RULES.md X-CARDS-1..4): the 7, the 1/2/3 card and the Lasso, with exact
outcome sets from the generator, each turn checked rule by rule by the interpreter (tests/helpers.py)."""

from __future__ import annotations

import random

import dataclasses

import pytest

from helpers import P, assert_turns, doc, notations, replayed_games
from niagara_solver.engine.apply import apply_turn
from niagara_solver.engine.flow import flow, flow_value_of
from niagara_solver.engine.round import end_round
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import EXPANSION_HAND, FALLEN, Card, Colour, Phase
from niagara_solver.model.errors import IllegalTurnError
from niagara_solver.model.format import position_from_json
from niagara_solver.model.notation import Turn
from niagara_solver.model.position import Position
from niagara_solver.model.ruleset import PRESETS, Ruleset

CARDS = {"x_cards": True}


def pos_of(*players, rules=None, **fields) -> Position:
    return position_from_json(doc(*players, ruleset={**CARDS, **(rules or {})}, **fields))


@pytest.mark.rule("X-CARDS-1")
def test_the_7_is_a_paddle_of_seven_points():
    # A lone port canoe (the other fell) may stay (R-TURN-3) or spend all 7: down to a last disc, or to 5 and load.
    pos = pos_of(P("a", "port", "fallen"), P("b", "port", "port"))
    assert_turns(pos, "a", 7, ["stay", "port: >5 +amber", "port: >7L", "port: >7R"])


@pytest.mark.rule("X-CARDS-2")
def test_the_7_counts_for_the_flow_and_the_lasso_and_the_123_card_do_not():
    rules = Ruleset.from_json(CARDS)
    assert flow_value_of([Card.SEVEN, Card.LASSO], 0, rules) == 7
    assert flow_value_of([Card.ONE_TWO_THREE, Card.SEVEN, Card.FIVE], 1, rules) == 6
    assert flow_value_of([Card.LASSO, Card.ONE_TWO_THREE, Card.CLOUD], 1, rules) == 1  # no paddle 1-7: 0 + weather
    assert flow_value_of([Card.LASSO, Card.ONE_TWO_THREE], -1, rules) == 0               # never negative (R-FLOW-2)


@pytest.mark.rule("X-CARDS-3")
def test_the_123_card_moves_one_canoe_with_the_chosen_budget():
    # One canoe in the port, one on 4 with a ruby: with "one" either canoe acts alone, the river canoe too may rest.
    players = (P("a", "port", "4:ruby"), P("b", "2:amber", "port"))
    assert_turns(pos_of(*players), "a", "123", [
        "as 1; port: >1", "as 1; 4: <3", "as 1; 4: >5",
        "as 2; port: >2", "as 2; 4: -ruby", "as 2; 4: <2", "as 2; 4: >6L", "as 2; 4: >6R",
        "as 3; port: >3", "as 3; 4: <1", "as 3; 4: >7L", "as 3; 4: >7R", "as 3; 4: -ruby <3", "as 3; 4: -ruby >5",
        "as 3; 4: <3 -ruby", "as 3; 4: >5 -ruby"])


@pytest.mark.rule("X-CARDS-3")
def test_the_123_card_lets_no_canoe_act_only_where_r_turn_3_does():
    # Both canoes in the port: exactly one leaves (port_departure: exactly_one) ...
    both = (P("a", "port", "port"), P("b", "port", "port"))
    assert_turns(pos_of(*both), "a", "123", ["as 1; port: >1", "as 2; port: >2", "as 3; port: >3"])
    # ... or none with at_most_one: then the chosen budget is still part of the turn (Diamond Joe reads it).
    assert notations(pos_of(*both, rules={"port_departure": "at_most_one"}), "a", "123") == [
        "as 1; stay", "as 1; port: >1", "as 2; stay", "as 2; port: >2", "as 3; stay", "as 3; port: >3"]
    pos = pos_of(*both)
    with pytest.raises(IllegalTurnError) as err:
        apply_turn(pos, 0, Turn.parse("as 2; stay"), Card.ONE_TWO_THREE)
    assert err.value.rule == "X-CARDS-3"
    after = apply_turn(pos, 0, Turn.parse("as 2; port: >2"), Card.ONE_TWO_THREE).position
    assert after.players[0].card_budget == 2 and after.players[0].card is Card.ONE_TWO_THREE


@pytest.mark.rule("X-CARDS-3")
def test_card_123_canoes():
    # "one" keeps the other canoe still even on the river; "all" moves both river canoes with the same budget.
    players = (P("a", "1", "3"), P("b", "port", "port"))
    one = pos_of(*players)
    assert_turns(one, "a", "123", ["as 1; 1: <port", "as 1; 1: >2", "as 1; 3: <2", "as 1; 3: >4",
                                   "as 2; 1: <port", "as 2; 1: >3", "as 2; 3: +amethyst", "as 2; 3: <1",
                                   "as 2; 3: >5", "as 3; 1: <port", "as 3; 1: >4", "as 3; 3: +amethyst <2",
                                   "as 3; 3: +amethyst >4", "as 3; 3: <port", "as 3; 3: >4 +diamond", "as 3; 3: >6L",
                                   "as 3; 3: >6R"])
    every = pos_of(*players, rules={"card_123_canoes": "all"})
    assert all(len(Turn.parse(t).actions) == 2 for t in notations(every, "a", "123"))
    assert "as 1; 1: >2; 3: >4" in notations(every, "a", "123")
    with pytest.raises(IllegalTurnError) as err:
        apply_turn(one, 0, Turn.parse("as 1; 1: >2; 3: >4"), Card.ONE_TWO_THREE)
    assert err.value.rule == "X-CARDS-3"


@pytest.mark.rule("X-CARDS-4")
def test_lasso_scope():
    players = (P("a", "3", "7L:ruby"), P("b", "port", "port"))
    every = pos_of(*players)
    assert notations(every, "a", "lasso") == ["lasso"]
    moored = legal_turns(every, 0, Card.LASSO)[0].position.players[0]
    assert [(c.place, c.moored) for c in moored.canoes] == [("3", True), ("7L", True)]
    one = pos_of(*players, rules={"lasso_scope": "one"})
    assert notations(one, "a", "lasso") == ["lasso 3", "lasso 7L"]
    after = apply_turn(one, 0, Turn.parse("lasso 7L"), Card.LASSO).position.players[0]
    assert [(c.place, c.moored) for c in after.canoes] == [("3", False), ("7L", True)]
    for bad, rules in (("lasso 7L", every), ("lasso", one), ("lasso port", one)):
        with pytest.raises(IllegalTurnError) as err:
            apply_turn(rules, 0, Turn.parse(bad), Card.LASSO)
        assert err.value.rule in ("X-CARDS-4", "R-TURN-3"), bad
    # Nothing on the river: the Lasso moors nothing, under either scope.
    home = pos_of(P("a", "port", "fallen"), P("b", "port", "port"), rules={"lasso_scope": "one"})
    assert notations(home, "a", "lasso") == ["lasso"]


@pytest.mark.rule("X-CARDS-4")
def test_a_lasso_saves_a_canoe_on_a_last_disc_from_the_falls():
    # a's loaded canoe on 7L would go over the falls with a flow of 2 (the marker sends the first disc left).
    pos = pos_of(P("a", "3", "7L:ruby"), P("b", "port", "port"))
    lassoed = apply_turn(pos, 0, Turn.parse("lasso"), Card.LASSO).position
    after = flow(lassoed, 2)
    assert [(c.place, c.gems, c.moored) for c in after.players[0].canoes] == [("3", (), False),
                                                                               ("7L", (Colour.RUBY,), False)]
    # Without it the canoe on 7L falls and its ruby goes home to the ruby cave (R-FLOW-6).
    unsaved = flow(pos, 2).players[0]
    assert [c.place for c in unsaved.canoes] == ["5", FALLEN]


@pytest.mark.rule("X-CARDS-4")
def test_a_moored_canoe_cannot_be_stolen_from():
    # b's canoe on 2 could steal a's ruby on 1 (paddle 1 up from 2) unless a moored it with the Lasso.
    players = (P("a", "1:ruby", "fallen"), P("b", "2", "port"))
    pos = pos_of(*players)
    lassoed = apply_turn(pos, 0, Turn.parse("lasso"), Card.LASSO).position
    assert_turns(lassoed, "b", 1, ["2: <1", "2: >3", "2: <1; port: >1", "2: >3; port: >1"])
    with pytest.raises(IllegalTurnError) as err:
        apply_turn(lassoed, 1, Turn.parse("2: <1 xa/ruby"), Card.ONE)
    assert err.value.rule == "R-STEAL-1"
    unlassoed = pos.replace(players=(dataclasses.replace(pos.players[0], card=Card.SIX,
                                                          hand=tuple(c for c in EXPANSION_HAND if c != Card.SIX)),
                                     pos.players[1]), acted=(0,))
    assert "2: <1 xa/ruby" in notations(unlassoed, "b", 1)


@pytest.mark.rule("X-CARDS-1")
def test_hands_of_ten_come_back_after_the_tenth_card():
    pos = pos_of(P("a", "port", "port", hand=["123"]), P("b", "port", "port", hand=[7]), phase="turns")
    played = apply_turn(pos, 0, Turn.parse("as 1; port: >1"), Card.ONE_TWO_THREE).position
    played = apply_turn(played, 1, Turn.parse("port: >7L"), Card.SEVEN).position
    after = end_round(played)
    assert after.phase is Phase.CARDS and all(p.hand == EXPANSION_HAND and p.card is None for p in after.players)
    assert all(p.card_budget is None for p in after.players)


def test_random_games_with_the_cards_keep_every_invariant_and_round_trip():
    seen: set[Card] = set()

    def rules_of(rng: random.Random) -> Ruleset:
        return Ruleset.from_json({**CARDS, "lasso_scope": rng.choice(["all", "one"]),
                                  "card_123_canoes": rng.choice(["one", "all"])})

    for record, turns in replayed_games(rules_of, range(6), [2, 3, 4], rounds=30):
        seen |= {turn.card for turn in turns}
        assert all(not c.moored for p in record.end.players for c in p.canoes)  # put back (X-CARDS-4)
    assert {Card.SEVEN, Card.LASSO, Card.ONE_TWO_THREE} <= seen


def test_the_cards_are_covered_by_every_reading():
    # The engine, the search and the encoding cover the cards, and the whole flussgeister preset
    # (niagara_solver/model/readings.py).
    from niagara_solver.model.readings import uncovered
    rules = Ruleset.from_json(CARDS)
    assert uncovered(rules, "engine") == uncovered(rules, "solver") == uncovered(rules, "encoding") == []
    assert PRESETS["flussgeister"].x_cards and uncovered(PRESETS["flussgeister"], "encoding") == []


def test_a_lasso_answer_is_not_written_twice():
    from niagara_solver.model.format import load_document
    from niagara_solver.report.text import answer_text
    from niagara_solver.solver.answers import Goal
    from niagara_solver.solver.solve import answer_with
    import os
    pos, _ = load_document(os.path.join(os.path.dirname(__file__), "..", "puzzles", "expansion",
                                        "lasso-holds-the-ruby.json"))
    text = answer_text(answer_with(pos, 0, Goal.SAFE, 1, "search", 60))
    assert "  play card lasso\n" in text + "\n" and "turn" not in text.splitlines()[1]
