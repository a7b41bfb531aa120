"""The double canoe (``x_double``, RULES.md X-DOUBLE-1..4): one single and one double canoe per player, two gems,
gem actions at one cave, steals by free places."""

from __future__ import annotations

import random


import pytest

from helpers import P, assert_turns, doc, notations, replayed_games
from niagara_solver.engine.apply import apply_turn
from niagara_solver.engine.flow import flow
from niagara_solver.engine.rescue import rescue_options
from niagara_solver.model.atoms import Card, CanoeKind, Colour
from niagara_solver.model.errors import AmbiguousTurnError, IllegalTurnError
from niagara_solver.model.format import position_from_json
from niagara_solver.model.notation import Turn
from niagara_solver.model.position import Position
from niagara_solver.model.ruleset import Ruleset


def pos_of(*players, rules=None, **fields) -> Position:
    return position_from_json(doc(*players, ruleset={"x_double": True, **(rules or {})}, **fields))


def D(at: str, *gems: str) -> dict:
    """A double canoe."""
    return {"kind": "double", "at": at, "gems": list(gems)}


@pytest.mark.rule("X-DOUBLE-1")
def test_either_port_canoe_may_leave_and_is_named_by_its_kind():
    pos = pos_of(P("a", "port", D("port")), P("b", "port", D("port")))
    assert_turns(pos, "a", 5, ["port(double): >3 +amethyst", "port(double): >5", "port(single): >3 +amethyst",
                               "port(single): >5"])
    after = apply_turn(pos, 0, Turn.parse("port(double): >5"), Card.FIVE).position
    assert {(c.kind, c.place) for c in after.players[0].canoes} == {(CanoeKind.DOUBLE, "5"), (CanoeKind.SINGLE, "port")}
    with pytest.raises(AmbiguousTurnError):
        apply_turn(pos, 0, Turn.parse("port: >5"), Card.FIVE)


@pytest.mark.rule("X-DOUBLE-2")
def test_a_double_canoe_loads_two_gems_at_one_cave():
    pos = pos_of(P("a", "fallen", D("3")), P("b", "port", D("port")))
    assert_turns(pos, "a", 4, ["3: +amethyst +amethyst", "3: +amethyst <1", "3: +amethyst >5", "3: <port",
                               "3: >5 +amber", "3: >7L", "3: >7R"])
    two = apply_turn(pos, 0, Turn.parse("3: +amethyst +amethyst"), Card.FOUR).position
    assert two.players[0].canoes[0].gems == (Colour.AMETHYST, Colour.AMETHYST)


@pytest.mark.rule("X-DOUBLE-2")
def test_double_one_cave():
    # Unload at 3, paddle to 4, load there: two caves, allowed only with double_one_cave: false (gem_sides both).
    players = (P("a", "fallen", D("3", "ruby")), P("b", "port", D("port")))
    turn = "3: -ruby >4 +diamond"
    assert turn not in notations(pos_of(*players), "a", 5)
    with pytest.raises(IllegalTurnError) as err:
        apply_turn(pos_of(*players), 0, Turn.parse(turn), Card.FIVE)
    assert err.value.rule == "X-DOUBLE-2"
    assert turn in notations(pos_of(*players, rules={"double_one_cave": False}), "a", 5)
    # The single canoe is not bound by it.
    single = (P("a", "3:ruby", D("fallen")), P("b", "port", D("port")))
    assert "3: -ruby >4 +diamond" in notations(pos_of(*single), "a", 5)


@pytest.mark.rule("X-DOUBLE-3")
def test_an_empty_double_canoe_steals_two_gems_from_two_canoes():
    # b's single and double canoes on 1 both carry an amber: a's empty double canoe takes one, or both.
    pos = pos_of(P("a", "fallen", D("3")), P("b", "1:amber", D("1", "amber")))
    assert_turns(pos, "a", 2, ["3: +amethyst", "3: <1", "3: >5", "3: <1 xb(double)/amber", "3: <1 xb(single)/amber",
                               "3: <1 xb(single)/amber xb/amber"])
    both = apply_turn(pos, 0, Turn.parse("3: <1 xb(single)/amber xb/amber"), Card.TWO).position
    assert both.players[0].canoes[0].gems == (Colour.AMBER, Colour.AMBER)
    assert all(c.gems == () for c in both.players[1].canoes)
    with pytest.raises(IllegalTurnError) as err:  # at most one gem from each victim canoe (X-DOUBLE-3)
        apply_turn(pos_of(P("a", "fallen", D("3")), P("b", "port", D("1", "amber", "ruby"))), 0,
                   Turn.parse("3: <1 xb/amber xb/ruby"), Card.TWO)
    assert err.value.rule == "R-STEAL-1"


@pytest.mark.rule("X-DOUBLE-3")
def test_a_double_canoe_with_one_free_place_steals_one_gem_and_a_full_one_none():
    pos = pos_of(P("a", "fallen", D("3", "ruby")), P("b", "1:amber", D("1", "sapphire", "diamond")))
    assert_turns(pos, "a", 2, ["3: +amethyst", "3: -ruby", "3: <1", "3: >5", "3: <1 xb/amber", "3: <1 xb/diamond",
                               "3: <1 xb/sapphire"])
    with pytest.raises(IllegalTurnError) as err:
        apply_turn(pos, 0, Turn.parse("3: <1 xb/amber xb/diamond"), Card.TWO)
    assert err.value.rule == "X-DOUBLE-3"
    full = pos_of(P("a", "fallen", D("3", "ruby", "ruby")), P("b", "1:amber", D("port")))
    assert not any("x" in t for t in notations(full, "a", 2))
    # A single canoe steals only empty, and may rob a double canoe, picking the gem.
    single = pos_of(P("a", "3", D("fallen")), P("b", "port", D("1", "sapphire", "diamond")))
    assert {"3: <1 xb/diamond", "3: <1 xb/sapphire"} <= set(notations(single, "a", 2))


@pytest.mark.rule("X-DOUBLE-4")
def test_a_double_canoe_banks_and_falls_with_both_gems_and_is_rescued_for_one():
    pos = pos_of(P("a", "fallen", D("2", "ruby", "amber")), P("b", "port", D("port")))
    home = apply_turn(pos, 0, Turn.parse("2: <port"), Card.TWO).position
    assert home.players[0].bank.total == 2 and home.players[0].canoes[1].gems == ()
    brink = pos_of(P("a", "port", D("7L", "ruby", "amber")), P("b", "port", D("port")))
    fallen = flow(brink, 1)
    assert fallen.players[0].canoes[1].fallen and fallen.cave(Colour.RUBY).get(Colour.RUBY) == 8
    assert fallen.cave(Colour.AMBER).get(Colour.AMBER) == 8
    rescue = pos_of(P("a", "port", D("fallen"), bank={"ruby": 2}), P("b", "port", D("port")), phase="cards")
    assert [str(r) for r in rescue_options(rescue, 0)] == ["none", "ruby"]
    no_bank = pos_of(P("a", "3:amethyst", D("2", "ruby")), P("b", "port", D("port")),
                     rules={"bank_after_load": False})
    assert "3: +amethyst <port" not in notations(no_bank, "a", 5)


def test_random_games_with_double_canoes_keep_every_invariant_and_the_two_readings_agree():
    stole = 0

    def rules_of(rng: random.Random) -> Ruleset:
        return Ruleset.from_json({"x_double": True, "double_one_cave": rng.choice([True, False]),
                                  "x_cards": rng.choice([True, False]),
                                  "x_moose": rng.choice([True, False])})

    for record, turns in replayed_games(rules_of, range(8), [2, 3, 4]):
        stole += sum(" x" in str(turn.turn) for turn in turns)
        assert all(len(c.gems) <= (2 if c.double else 1) for p in record.end.players for c in p.canoes)
    assert stole > 0


@pytest.mark.rule("X-DOUBLE-4")
def test_a_player_with_both_canoes_fallen_says_which_comes_back():
    from niagara_solver.engine.rescue import apply_rescue
    from niagara_solver.model.notation import Rescue
    pos = pos_of(P("a", "fallen", D("fallen"), bank={"ruby": 1}), P("b", "port", D("port")), phase="cards")
    assert [str(r) for r in rescue_options(pos, 0)] == ["ruby(double)", "ruby(single)"]
    back = apply_rescue(pos, 0, Rescue.parse("ruby(double)"))
    assert {(c.kind, c.place) for c in back.players[0].canoes} == {(CanoeKind.DOUBLE, "port"),
                                                                  (CanoeKind.SINGLE, "fallen")}
    assert Rescue.parse("free(single)") == Rescue((None,), "single")
    assert str(Rescue((None,), "single")) == "free(single)"
    with pytest.raises(IllegalTurnError):
        apply_rescue(pos, 0, Rescue.parse("ruby"))


@pytest.mark.rule("X-DOUBLE-1")
def test_a_single_and_a_double_canoe_bank_three_gems_a_round():
    """Red's single canoe carries an amethyst and its double canoe a ruby and a sapphire, both on disc 1; its bank
    holds an amber and a diamond, and its only card is the cloud. The search once cut this at once, "red cannot reach
    the goal in time, even unhindered", counting two gems a later round (twice the capacity): its two canoes carry
    three. The flow takes them down to 3, and red's 3 brings all three home the next round: five colours (R-END-1)."""
    from niagara_solver.solver.answers import Goal
    from niagara_solver.solver.solve import answer_with

    pos = pos_of(P("red", "1:amethyst", D("1", "ruby", "sapphire"), hand=["cloud"], bank={"diamond": 1, "amber": 1}),
                 P("blue", "port", D("port"), hand=[1], bank={"amethyst": 1}), phase="cards", round=11)
    answer = answer_with(pos, 0, Goal.WIN, 2, "search")
    assert answer.word == "yes" and answer.card is Card.CLOUD
    assert answer.line[-1] == "the game ends: red wins (R-END-2, R-END-3)"
    assert "red (3): 3[amethyst]: <port; 3[sapphire,ruby]: <port" in answer.line
