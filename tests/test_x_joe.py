"""Diamond Joe (``x_joe``, RULES.md X-JOE-1..3): a neutral canoe that rides the river in phase III, loads and paddles
after it by the lifebuoy holder's card, and trades a gem with canoes that end their action on his disc."""

from __future__ import annotations

import random


import pytest

from helpers import P, assert_turns, doc, replayed_games
from niagara_solver.engine.apply import apply_turn
from niagara_solver.engine.flow import flow, flow_outcomes
from niagara_solver.engine.joe import joe_paddle, joe_step
from niagara_solver.engine.round import end_round
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import EXPANSION_HAND, FULL_HAND, Card, Colour
from niagara_solver.model.errors import IllegalTurnError
from niagara_solver.model.format import position_from_json
from niagara_solver.model.invariants import position_problems
from niagara_solver.model.notation import Turn
from niagara_solver.model.position import Joe, Position
from niagara_solver.model.ruleset import Ruleset


def pos_of(*players, rules=None, **fields) -> Position:
    return position_from_json(doc(*players, ruleset={"x_joe": True, **(rules or {})}, **fields))


def double(at: str, *gems: str) -> dict[str, object]:
    return {"at": at, "kind": "double", "gems": list(gems)}


def after(pos: Position, name: str, value: int | str, turn: str) -> Position:
    return apply_turn(pos, pos.index(name), Turn.parse(turn), Card.parse(value)).position


def cargo(pos: Position, name: str) -> list[tuple[str, tuple[Colour, ...]]]:
    return [(c.place, c.gems) for c in pos.players[pos.index(name)].canoes]


# -- X-JOE-3: trades ---------------------------------------------------------------------------------------------

@pytest.mark.rule("X-JOE-3")
def test_a_canoe_that_moved_onto_joe_takes_his_gem():
    pos = pos_of(P("a", "4", "fallen"), P("b", "port", "port"), joe={"at": "3", "gem": "ruby"})
    assert_turns(pos, "a", 1, ["4: <3", "4: <3 trade+ruby", "4: >5"])
    took = after(pos, "a", 1, "4: <3 trade+ruby")
    assert took.joe == Joe("3") and cargo(took, "a")[0] == ("3", (Colour.RUBY,))
    assert position_problems(took) == []


@pytest.mark.rule("X-JOE-3")
def test_a_full_canoe_swaps_a_gem_of_another_colour_only():
    pos = pos_of(P("a", "4:amber", "fallen"), P("b", "port", "port"), joe={"at": "3", "gem": "ruby"})
    assert_turns(pos, "a", 1, ["4: <3", "4: <3 trade-amber+ruby", "4: >5"])
    swapped = after(pos, "a", 1, "4: <3 trade-amber+ruby")
    assert swapped.joe == Joe("3", Colour.AMBER) and cargo(swapped, "a")[0] == ("3", (Colour.RUBY,))
    same = pos_of(P("a", "4:ruby", "fallen"), P("b", "port", "port"), joe={"at": "3", "gem": "ruby"})
    assert_turns(same, "a", 1, ["4: <3", "4: >5"])
    with pytest.raises(IllegalTurnError) as err:
        after(same, "a", 1, "4: <3 trade-ruby+ruby")
    assert err.value.rule == "X-JOE-3"


@pytest.mark.rule("X-JOE-3")
def test_a_canoe_gives_a_gem_to_an_empty_joe_downstream_too_and_a_double_canoe_picks_it():
    pos = pos_of(P("a", "4:amber", "fallen"), P("b", "port", "port"), joe={"at": "5"})
    assert_turns(pos, "a", 1, ["4: <3", "4: >5", "4: >5 trade-amber"])
    given = after(pos, "a", 1, "4: >5 trade-amber")
    assert given.joe == Joe("5", Colour.AMBER) and cargo(given, "a")[0] == ("5", ())
    two = pos_of(P("a", double("4", "amber", "ruby"), "fallen"), P("b", "port", double("port")),
                 rules={"x_double": True}, joe={"at": "5"})
    assert_turns(two, "a", 1, ["4: <3", "4: >5", "4: >5 trade-amber", "4: >5 trade-ruby"])
    full = pos_of(P("a", double("4", "amber", "ruby"), "fallen"), P("b", "port", double("port")),
                  rules={"x_double": True}, joe={"at": "5", "gem": "ruby"})
    assert_turns(full, "a", 1, ["4: <3", "4: >5", "4: >5 trade-amber+ruby"])
    room = pos_of(P("a", double("4", "amber"), "fallen"), P("b", "port", double("port")),
                  rules={"x_double": True}, joe={"at": "5", "gem": "ruby"})
    assert_turns(room, "a", 1, ["4: <3", "4: >5", "4: >5 trade+ruby", "4: >5 trade-amber+ruby"])


@pytest.mark.rule("X-JOE-3")
def test_a_stolen_or_just_loaded_gem_may_be_given_after_the_steal():
    pos = pos_of(P("a", "4", "fallen"), P("b", "3:sapphire", "port"), joe={"at": "3"})
    assert_turns(pos, "a", 1, ["4: <3", "4: <3 xb/sapphire", "4: <3 xb/sapphire trade-sapphire", "4: >5"])
    loaded = pos_of(P("a", "6L", "fallen"), P("b", "port", "port"), joe={"at": "5"})
    turns = {str(o.turn) for o in legal_turns(loaded, 0, Card.THREE)}
    assert "6L: <5 +amber trade-amber" in turns and "6L: +sapphire <5 trade-sapphire" in turns
    with pytest.raises(IllegalTurnError) as err:  # the trade is the very end of the action
        after(pos, "a", 1, "4: <3 trade-sapphire xb/sapphire")
    assert err.value.rule == "X-JOE-3"


@pytest.mark.rule("X-JOE-3")
def test_no_trade_without_moving_off_joes_disc_or_from_the_port():
    still = pos_of(P("a", "4", "fallen"), P("b", "port", "port"), joe={"at": "4", "gem": "ruby"})
    assert_turns(still, "a", 2, ["4: +diamond", "4: <2", "4: >6L", "4: >6R"])
    with pytest.raises(IllegalTurnError) as err:
        after(still, "a", 2, "4: +diamond trade-diamond+ruby")
    assert err.value.rule == "X-JOE-3"
    elsewhere = pos_of(P("a", "4", "fallen"), P("b", "port", "port"), joe={"at": "2", "gem": "ruby"})
    with pytest.raises(IllegalTurnError) as err:
        after(elsewhere, "a", 1, "4: <3 trade+ruby")
    assert err.value.rule == "X-JOE-3"
    home = pos_of(P("a", "2:amber", "fallen"), P("b", "port", "port"), joe={"at": "1", "gem": "ruby"})
    assert_turns(home, "a", 2, ["2: <port", "2: >4"])
    off = position_from_json(doc(P("a", "4", "fallen"), P("b", "port", "port")))
    with pytest.raises(IllegalTurnError) as err:
        after(off, "a", 1, "4: <3 trade+ruby")
    assert err.value.rule == "X-JOE-1"


@pytest.mark.rule("X-JOE-3")
def test_several_canoes_trade_with_joe_in_one_phase_two():
    pos = pos_of(P("a", "4:amber", "fallen"), P("b", "2", "port"), joe={"at": "3"})
    gave = after(pos, "a", 1, "4: <3 trade-amber")
    took = after(gave, "b", 1, "2: >3 trade+amber")
    assert took.joe == Joe("3") and ("3", (Colour.AMBER,)) in cargo(took, "b") and position_problems(took) == []


# -- X-JOE-1: riding the river -----------------------------------------------------------------------------------

@pytest.mark.rule("X-JOE-1")
def test_joe_rides_the_river_and_starts_again_on_top_after_the_falls():
    rides = pos_of(P("a", "port", "port"), P("b", "port", "port"), joe={"at": "6L", "gem": "diamond"}, fork="L")
    rode = flow(rides, 1)  # 6L -> 7L; no card known yet, so Joe does not paddle (X-JOE-2)
    assert rode.joe == Joe("7L", Colour.DIAMOND) and rode.caves == rides.caves
    pos = pos_of(P("a", "port", "port"), P("b", "port", "port"), joe={"at": "7L", "gem": "diamond"}, fork="L")
    fell = flow(pos, 3)  # over the falls (the diamond back to its cave), at once on 1, then 2, 3
    # At the end of phase III Joe, empty beside the amethyst cave, loads an amethyst (X-JOE-2).
    assert fell.joe == Joe("3", Colour.AMETHYST)
    diamond, amethyst = Colour.DIAMOND - 1, Colour.AMETHYST - 1
    assert fell.caves[diamond] == pos.caves[diamond].plus(Colour.DIAMOND)
    assert fell.caves[amethyst] == pos.caves[amethyst].minus(Colour.AMETHYST)
    assert position_problems(fell) == []
    free = pos_of(P("a", "port", "port"), P("b", "port", "port"), joe={"at": "5"},
                  rules={"fork_policy": "free"})
    assert sorted(after.joe.place for _, after in flow_outcomes(free, 1)) == ["6L", "6R"]


def played(name: str, value: int | str, expansion: bool = False, **fields: object) -> dict[str, object]:
    """A player who played ``value`` this round (out of the hand), both canoes in the port."""
    card = Card.parse(value)
    hand = [c.to_json() for c in (EXPANSION_HAND if expansion else FULL_HAND) if c != card]
    return P(name, "port", "port", card=card.to_json(), hand=hand, **fields)


# -- X-JOE-2: loading and paddling ---------------------------------------------------------------------------------

@pytest.mark.rule("X-JOE-2")
def test_joe_loads_then_paddles_up_turns_on_top_and_takes_the_right_branch():
    pos = pos_of(played("a", 7, True), played("b", 1, True), rules={"x_cards": True}, joe={"at": "3"},
                 acted=["a", "b"])
    stepped = joe_step(pos)  # the amethyst, 2 discs up to 1, then 5 down: 2, 3, 4, 5, 6R
    assert stepped.joe == Joe("6R", Colour.AMETHYST)
    amethyst = Colour.AMETHYST - 1
    assert stepped.caves[amethyst] == pos.caves[amethyst].minus(Colour.AMETHYST)
    assert position_problems(stepped) == []
    board = pos.board
    assert [joe_paddle(board, "2", n) for n in range(9)] == ["2", "1", "2", "3", "4", "5", "6R", "7R", "7R"]
    assert joe_paddle(board, "1", 7) == "7R"  # on top already: turns at once; stops on 7R with points left
    assert joe_paddle(board, "7L", 3) == "4" and joe_paddle(board, "7L", 7) == "2"


@pytest.mark.rule("X-JOE-2")
def test_joe_paddles_by_the_lifebuoy_holders_card_only():
    base: dict[str, object] = dict(joe={"at": "4", "gem": "ruby"}, acted=["a", "b"])
    # The lifebuoy holder is b: b's card counts, not a's; a full Joe loads nothing.
    pos = pos_of(played("a", 6), played("b", 2), lifebuoy="b", **base)
    assert joe_step(pos).joe == Joe("2", Colour.RUBY) and joe_step(pos).caves == pos.caves
    cloud = pos_of(played("a", "cloud"), played("b", 2), **base)
    assert joe_step(cloud).joe == Joe("4", Colour.RUBY)
    cards = {"x_cards": True}
    for budget, place in ((1, "3"), (2, "2"), (3, "1")):
        chosen = pos_of(played("a", "123", True, card_budget=budget), played("b", 7, True), rules=cards, **base)
        assert joe_step(chosen).joe == Joe(place, Colour.RUBY)
    lasso = pos_of(played("a", "lasso", True), played("b", 7, True), rules=cards, **base)
    assert joe_step(lasso).joe == Joe("4", Colour.RUBY)


@pytest.mark.rule("X-JOE-2")
def test_a_round_ends_with_joes_step_before_the_lifebuoy_passes():
    pos = pos_of(played("a", 3), played("b", 5), joe={"at": "6L", "gem": "ruby"}, acted=["a", "b"], fork="L")
    end = end_round(pos)  # flow 3: 6L -> 7L -> falls (ruby home) -> 1; then a's 3 (lifebuoy): 2, 3, 4 ...
    # ... but first Joe, empty on 1 (no cave), loads nothing.
    assert end.joe == Joe("4") and end.lifebuoy == 1
    ruby = Colour.RUBY - 1
    assert end.caves[ruby] == pos.caves[ruby].plus(Colour.RUBY)
    assert position_problems(end) == []


def test_random_games_with_joe_keep_every_invariant_and_the_two_readings_agree():
    trades = 0

    def rules_of(rng: random.Random) -> Ruleset:
        return Ruleset.from_json({"x_joe": True, "x_cards": rng.choice([True, False]),
                                  "x_double": rng.choice([True, False]),
                                  "x_moose": rng.choice([True, False])})

    for record, turns in replayed_games(rules_of, range(8), [2, 3], every_turn_each=4):
        trades += sum("trade" in str(turn.turn) for turn in turns)
        end = record.end
        assert end.joe is not None
        assert all(end.gem_totals().get(c) == end.gems_per_colour for c in Colour)  # Joe's gem counts (X-PROP-3)
    assert trades > 0
