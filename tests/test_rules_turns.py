"""Phase II rules, one or more tests per rule ID: R-TURN, R-MOVE, R-GEM, R-STEAL, R-WEATHER.

Each test states an exact set of legal turns (checked against the rule-by-rule interpreter) or an exact
rule violation, so that breaking the rule in the engine makes it fail.
"""

import pytest

from helpers import P, assert_turns, card, expected, notations, outcomes, position
from niagara_solver.engine.apply import apply_turn
from niagara_solver.model.notation import Turn
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.errors import IllegalTurnError
from niagara_solver.model.atoms import Card, Colour, Gems
from niagara_solver.model.position import Canoe


def illegal(pos, name, value, turn):
    """The rule the interpreter names when refusing ``turn``."""
    with pytest.raises(IllegalTurnError) as err:
        apply_turn(pos, pos.index(name), Turn.parse(turn), card(value))
    return err.value.rule


# -- R-TURN ---------------------------------------------------------------------------------------

@pytest.mark.rule("R-TURN-1")
def test_R_TURN_1_players_act_in_order_from_the_lifebuoy_and_once():
    pos = position(P("a", "port", "port"), P("b", "port", "port"), P("c", "port", "port"), lifebuoy="b")
    assert pos.turn_order() == (1, 2, 0)
    assert pos.next_to_act() == 1
    after = legal_turns(pos, 1, Card.ONE)[0].position
    assert after.acted == (1,) and after.next_to_act() == 2
    with pytest.raises(IllegalTurnError) as err:
        legal_turns(after, 1, Card.TWO)
    assert err.value.rule == "R-TURN-1"


@pytest.mark.rule("R-TURN-2")
def test_R_TURN_2_cloud_moves_the_weather_and_no_canoe_acts():
    pos = position(P("a", "3", "port"), P("b", "port", "port"), weather=0)
    assert notations(pos, "a", "cloud") == ["cloud up", "cloud down"]
    for after in outcomes(pos, "a", "cloud"):
        assert after.players[0].canoes == pos.players[0].canoes and after.caves == pos.caves
    assert {o.weather for o in outcomes(pos, "a", "cloud")} == {1, -1}
    assert illegal(pos, "a", "cloud", "3: <port") == "R-TURN-2"
    assert illegal(pos, "a", 3, "cloud up") == "R-TURN-2"


@pytest.mark.rule("R-TURN-3")
def test_R_TURN_3_river_canoe_acts_and_port_canoe_may_stay():
    pos = position(P("a", "1", "port"), P("b", "port", "port"))
    # The canoe on 1 must act (to the port, or down 1 to 2); the port canoe may add its own move to 1.
    assert_turns(pos, "a", 1, ["1: <port", "1: >2", "1: <port; port: >1", "1: >2; port: >1"])
    assert illegal(pos, "a", 1, "port: >1") == "R-TURN-3"


@pytest.mark.rule("R-TURN-3")
def test_R_TURN_3_both_canoes_on_the_river_both_act():
    pos = position(P("a", "1", "2"), P("b", "port", "port"))
    assert_turns(pos, "a", 1, ["1: <port; 2: <1", "1: <port; 2: >3", "1: >2; 2: <1", "1: >2; 2: >3"])
    assert illegal(pos, "a", 1, "1: <port") == "R-TURN-3"


@pytest.mark.rule("R-TURN-3")
def test_R_TURN_3_lone_port_canoe_may_act_or_stay():
    pos = position(P("a", "port", "fallen"), P("b", "port", "port"))
    assert_turns(pos, "a", 2, ["stay", "port: >2"])


@pytest.mark.rule("R-TURN-3")
def test_R_TURN_3_both_in_port_exactly_one_acts():
    pos = position(P("a", "port", "port"), P("b", "port", "port"))
    assert_turns(pos, "a", 1, ["port: >1"])
    assert illegal(pos, "a", 1, "port: >1; port: >1") == "R-TURN-3"
    assert illegal(pos, "a", 1, "stay") == "R-TURN-3"


@pytest.mark.rule("R-TURN-4")
def test_R_TURN_4_the_order_decides_which_canoe_takes_the_last_gem():
    # One amethyst is left in its cave (seven are banked): either canoe may take it, never both.
    pos = position(P("a", "2", "4", bank={"amethyst": 7}), P("b", "port", "port"))
    got = outcomes(pos, "a", 3)
    assert len(got) == 20  # 3 options for the canoe on 2 times 7 for the canoe on 4, less both loading it
    assert expected(pos, "a", 3, ["2: >3 +amethyst; 4: <1", "4: <3 +amethyst; 2: <port"]) <= got
    assert all(sum(c.gems.count(Colour.AMETHYST) for c in o.players[0].canoes) <= 1 for o in got)
    assert illegal(pos, "a", 3, "2: >3 +amethyst; 4: <3 +amethyst") == "R-GEM-1"


@pytest.mark.rule("R-TURN-4")
def test_R_TURN_4_an_outcome_only_one_order_reaches():
    # The canoe on 3 unloads its ruby; only afterwards can the other canoe load that ruby there.
    pos = position(P("a", "3:ruby", "2"), P("b", "port", "port"))
    assert expected(pos, "a", 3, ["3: -ruby >4; 2: >3 +ruby"]) <= outcomes(pos, "a", 3)
    assert illegal(pos, "a", 3, "2: >3 +ruby; 3: -ruby >4") == "R-GEM-1"


# -- R-MOVE ---------------------------------------------------------------------------------------

@pytest.mark.rule("R-MOVE-1")
def test_R_MOVE_1_gem_actions_before_and_after_one_movement():
    pos = position(P("a", "4:ruby", "fallen"), P("b", "port", "port"))
    # d = 0 is allowed: unload and load without moving.
    assert "4: -ruby +diamond" in notations(pos, "a", 4)
    assert illegal(pos, "a", 6, "4: -ruby <3 +amethyst <2") == "R-MOVE-1"  # move, gem action, move again
    assert illegal(pos, "a", 2, "4: <3 >4") == "R-MOVE-1"  # reversing direction
    assert_turns(pos, "a", 2, ["4: -ruby", "4: <2", "4: >6L", "4: >6R"])


@pytest.mark.rule("R-MOVE-2")
def test_R_MOVE_2_costs_one_per_disc_and_two_per_gem_action():
    pos = position(P("a", "port", "port"), P("b", "port", "port"))
    assert_turns(pos, "a", 3, ["port: >3"])  # leaving the port onto 1 costs 1: 3 discs for 3 points
    assert_turns(pos, "a", 4, ["port: >4"])  # 2 discs + load would be on disc 2, which has no cave
    assert illegal(pos, "a", 4, "port: >3 +amethyst") == "R-MOVE-3"


@pytest.mark.rule("R-MOVE-3")
def test_R_MOVE_3_a_canoe_spends_exactly_its_budget():
    pos = position(P("a", "2", "fallen"), P("b", "port", "port"))
    assert_turns(pos, "a", 2, ["2: <port", "2: >4"])
    assert illegal(pos, "a", 2, "2: >3") == "R-MOVE-3"
    assert illegal(pos, "a", 2, "2: <1") == "R-MOVE-3"
    assert illegal(pos, "a", 4, "2: >3 +amethyst") == "R-MOVE-3"


@pytest.mark.rule("R-MOVE-4")
def test_R_MOVE_4_branch_choice_downstream_and_no_paddling_over_the_falls():
    pos = position(P("a", "5", "7L"), P("b", "port", "port"))
    assert_turns(pos, "a", 1, ["5: <4; 7L: <6L", "5: >6L; 7L: <6L", "5: >6R; 7L: <6L"])
    assert illegal(pos, "a", 1, "5: <4; 7L: >falls") == "R-MOVE-4"


@pytest.mark.rule("R-MOVE-4")
def test_R_MOVE_4_no_crossing_between_branches():
    pos = position(P("a", "6L", "fallen"), P("b", "port", "port"))
    assert_turns(pos, "a", 2, ["6L: +sapphire", "6L: <4"])
    assert illegal(pos, "a", 2, "6L: >6R") == "R-MOVE-4"
    assert illegal(pos, "a", 3, "6L: <5 >6R") == "R-MOVE-1"


@pytest.mark.rule("R-MOVE-5")
def test_R_MOVE_5_port_entry_with_points_to_spare_banks_and_stops():
    pos = position(P("a", "2:amber", "fallen"), P("b", "port", "port"))
    assert_turns(pos, "a", 6, ["2: <port", "2: >6L -amber", "2: >6R -amber", "2: >4 -amber +diamond"])
    home = expected(pos, "a", 6, ["2: <port"]).pop()
    assert home.players[0].bank == Gems.of([Colour.AMBER])
    assert home.players[0].canoes == (Canoe("port"), Canoe("fallen"))
    assert illegal(pos, "a", 6, "2: <port >1") == "R-MOVE-5"
    far = position(P("a", "6R", "fallen"), P("b", "port", "port"))
    assert "6R: <port" not in notations(far, "a", 5)  # 6 discs away: needs 6 points
    assert illegal(far, "a", 5, "6R: <port") == "R-MOVE-5"


@pytest.mark.rule("R-MOVE-6")
def test_R_MOVE_6_a_port_canoe_only_moves_downstream():
    pos = position(P("a", "port", "fallen"), P("b", "port", "port"))
    assert_turns(pos, "a", 1, ["stay", "port: >1"])
    assert illegal(pos, "a", 1, "port: <port") == "R-MOVE-6"


# -- R-GEM ----------------------------------------------------------------------------------------

MIXED_CAVES = {"amethyst": {"amethyst": 7, "ruby": 1}, "diamond": {"diamond": 8}, "amber": {"amber": 8},
               "sapphire": {"sapphire": 8}, "ruby": {"ruby": 7, "amethyst": 1}}


@pytest.mark.rule("R-GEM-1")
def test_R_GEM_1_load_any_colour_present_in_the_cave_beside():
    pos = position(P("a", "3", "fallen"), P("b", "port", "port"), caves=MIXED_CAVES)
    assert_turns(pos, "a", 2, ["3: +amethyst", "3: +ruby", "3: <1", "3: >5"])
    assert illegal(pos, "a", 2, "3: +diamond") == "R-GEM-1"


@pytest.mark.rule("R-GEM-1")
def test_R_GEM_1_no_gem_actions_without_a_cave():
    pos = position(P("a", "2:ruby", "fallen"), P("b", "port", "port"))
    assert_turns(pos, "a", 2, ["2: <port", "2: >4"])
    assert illegal(pos, "a", 2, "2: -ruby") == "R-GEM-1"


@pytest.mark.rule("R-GEM-2")
def test_R_GEM_2_a_canoe_carries_one_gem():
    pos = position(P("a", "3:ruby", "fallen"), P("b", "port", "port"))
    assert_turns(pos, "a", 2, ["3: -ruby", "3: <1", "3: >5"])
    assert illegal(pos, "a", 6, "3: -ruby +amethyst +amethyst") == "R-GEM-2"


@pytest.mark.rule("R-GEM-3")
def test_R_GEM_3_an_unloaded_gem_stays_in_that_cave():
    pos = position(P("a", "4:ruby", "fallen"), P("b", "port", "port"))
    after = expected(pos, "a", 2, ["4: -ruby"]).pop()
    assert after.cave(Colour.DIAMOND) == Gems.of([Colour.DIAMOND] * 8 + [Colour.RUBY])
    assert after.cave(Colour.RUBY) == pos.cave(Colour.RUBY)


@pytest.mark.rule("R-GEM-4")
def test_R_GEM_4_no_load_and_unload_of_one_colour_by_one_canoe():
    pos = position(P("a", "3:amethyst", "fallen"), P("b", "port", "port"))
    assert "3: -amethyst +amethyst" not in notations(pos, "a", 4)
    assert illegal(pos, "a", 4, "3: -amethyst +amethyst") == "R-GEM-4"
    loaded = position(P("a", "3", "fallen"), P("b", "port", "port"))
    assert illegal(loaded, "a", 5, "3: +amethyst >4 -amethyst") == "R-GEM-4"
    assert illegal(loaded, "a", 4, "3: +amethyst -amethyst") == "R-GEM-4"


@pytest.mark.rule("R-GEM-4")
def test_R_GEM_4_binds_each_canoe_separately():
    # The canoe on 4 unloads its amethyst at 3; the player's other canoe may load an amethyst there.
    pos = position(P("a", "4:amethyst", "2"), P("b", "port", "port"))
    assert expected(pos, "a", 3, ["4: <3 -amethyst; 2: >3 +amethyst"]) <= outcomes(pos, "a", 3)


@pytest.mark.rule("R-GEM-5")
def test_R_GEM_5_banking_a_gem_loaded_this_turn():
    pos = position(P("a", "3", "fallen"), P("b", "port", "port"))
    home = expected(pos, "a", 5, ["3: +amethyst <port"]).pop()
    assert home in outcomes(pos, "a", 5)
    assert home.players[0].bank == Gems.of([Colour.AMETHYST])
    assert home.cave(Colour.AMETHYST).get(Colour.AMETHYST) == 7


# -- R-STEAL --------------------------------------------------------------------------------------

@pytest.mark.rule("R-STEAL-1")
def test_R_STEAL_1_conditions_all_hold():
    # a's empty canoe on 4 paddles 2 up to 2, where b's loaded canoe is: it may steal.
    pos = position(P("a", "4", "fallen"), P("b", "2:ruby", "port"), P("c", "2", "port"))
    assert_turns(pos, "a", 2, ["4: <2 xb/ruby", "4: <2", "4: +diamond", "4: >6L", "4: >6R"])


@pytest.mark.rule("R-STEAL-1")
def test_R_STEAL_1_no_steal_with_points_left_or_loaded_or_from_oneself():
    loaded = position(P("a", "4:amber", "fallen"), P("b", "2:ruby", "port"))
    assert not [t for t in notations(loaded, "a", 2) if "x" in t.split(":")[1]]
    assert illegal(loaded, "a", 2, "4: <2 xb/ruby") == "R-STEAL-1"
    own = position(P("a", "4", "2:ruby"), P("b", "port", "port"))
    assert not [t for t in notations(own, "a", 2) if " xa" in t]
    assert illegal(own, "a", 2, "4: <2 xa/ruby; 2: <port") == "R-STEAL-1"
    spare = position(P("a", "3", "fallen"), P("b", "2:ruby", "port"))
    assert illegal(spare, "a", 3, "3: <2 xb/ruby") == "R-STEAL-1"  # a point left: not a thief's stop


@pytest.mark.rule("R-STEAL-2")
def test_R_STEAL_2_the_thief_picks_one_victim():
    pos = position(P("a", "5", "fallen"), P("b", "3:ruby", "3:amber"), P("c", "3:diamond", "port"))
    steals = [t for t in notations(pos, "a", 2) if " x" in t]
    assert sorted(steals) == ["5: <3 xb/amber", "5: <3 xb/ruby", "5: <3 xc/diamond"]
    assert illegal(pos, "a", 2, "5: <3 xb/ruby xc/diamond") == "R-STEAL-2"


@pytest.mark.rule("R-STEAL-3")
def test_R_STEAL_3_no_steal_downstream_passing_or_before_moving():
    pos = position(P("a", "1", "fallen"), P("b", "3:ruby", "2:amber"))
    assert not [t for t in notations(pos, "a", 2) if " x" in t]  # downstream onto 3: no steal
    assert illegal(pos, "a", 2, "1: >3 xb/ruby") == "R-STEAL-3"
    up = position(P("a", "4", "fallen"), P("b", "3:ruby", "2:amber"))
    assert illegal(up, "a", 1, "4: xb/ruby <3") == "R-STEAL-3"    # before moving
    assert not [t for t in notations(up, "a", 2) if "xb/ruby" in t]  # passing 3 on the way to 2
    assert "4: <2 xb/amber" in notations(up, "a", 2)


@pytest.mark.rule("R-STEAL-4")
def test_R_STEAL_4_a_stolen_gem_may_be_stolen_again_in_the_same_phase():
    # b steals a's ruby on 2; then c, also paddling up to 2, steals it from b.
    pos = position(P("a", "2:ruby", "port", card=1), P("b", "4", "port", card=2), P("c", "5", "port", card=3),
                   lifebuoy="b")
    after_b = apply_turn(pos, 1, Turn.parse("4: <2 xa/ruby")).position
    assert after_b.players[1].canoes == (Canoe("port"), Canoe("2", (Colour.RUBY,)))
    assert "5: <2 xb/ruby" in notations(after_b, "c", 3)
    after_c = apply_turn(after_b, 2, Turn.parse("5: <2 xb/ruby")).position
    assert after_c.players[2].canoes == (Canoe("port"), Canoe("2", (Colour.RUBY,)))
    assert after_c.players[1].canoes == (Canoe("port"), Canoe("2"))
    assert after_c.players[0].canoes == (Canoe("port"), Canoe("2"))


@pytest.mark.rule("R-STEAL-5")
def test_R_STEAL_5_unload_move_up_then_steal_by_default():
    pos = position(P("a", "4:ruby", "fallen"), P("b", "2:amber", "port"))
    assert_turns(pos, "a", 4, ["4: <port", "4: >6L -ruby", "4: >6R -ruby", "4: -ruby <2", "4: -ruby <2 xb/amber",
                               "4: -ruby >6L", "4: -ruby >6R", "4: -ruby +diamond"])


# -- R-WEATHER ------------------------------------------------------------------------------------

@pytest.mark.parametrize("weather, turns", [(2, ["cloud down"]), (-1, ["cloud up"]), (1, ["cloud up", "cloud down"])])
@pytest.mark.rule("R-WEATHER-1")
def test_R_WEATHER_1_one_step_within_bounds(weather, turns):
    pos = position(P("a", "port", "port"), P("b", "port", "port"), weather=weather)
    assert notations(pos, "a", "cloud") == turns
    if weather == 2:
        assert illegal(pos, "a", "cloud", "cloud up") == "R-WEATHER-1"
