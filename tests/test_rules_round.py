"""Components, board, round structure, cards, rescues, flow, lifebuoy and end: one or more tests per rule ID."""

import pytest

from helpers import P, doc, position
from niagara_solver.model.board import standard_board
from niagara_solver.engine.flow import flow, flow_detail, flow_value
from niagara_solver.model.notation import Rescue
from niagara_solver.engine.rescue import apply_rescue, begin_turns, rescue_options
from niagara_solver.engine.round import end_round, goal_reached, is_finished, play_round, winners
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.errors import GameOverError, IllegalTurnError, PhaseError, PositionError
from niagara_solver.model.atoms import COLOURS, FULL_HAND, Card, Colour, Gems, Phase
from niagara_solver.model.format import position_from_json
from niagara_solver.model.position import Canoe, Player, Position


def refused(document):
    with pytest.raises(PositionError) as err:
        position_from_json(document)
    return err.value.rule


# -- R-COMP ---------------------------------------------------------------------------------------

@pytest.mark.rule("R-COMP-1")
def test_R_COMP_1_two_to_five_players_in_seat_order():
    assert refused(doc(P("a", "port", "port"))) == "R-COMP-1"
    six = [P(n, "port", "port") for n in "abcdef"]
    assert refused(doc(*six)) == "X-SIX-1"  # a sixth player needs the expansion's x_sixth_player
    assert refused(doc(*six, P("g", "port", "port"))) == "R-COMP-1"
    five = position(*[P(n, "port", "port") for n in "abcde"], lifebuoy="d")
    assert [p.name for p in five.players] == list("abcde")
    assert five.turn_order() == (3, 4, 0, 1, 2)


@pytest.mark.rule("R-COMP-2")
def test_R_COMP_2_two_canoes_six_paddles_and_a_cloud():
    start = Position.initial(["a", "b"])
    assert all(len(p.canoes) == 2 and p.hand == FULL_HAND for p in start.players)
    assert [c.label for c in FULL_HAND] == ["1", "2", "3", "4", "5", "6", "cloud"]
    assert refused(doc(P("a", "port", "port", "port"), P("b", "port", "port"))) == "R-COMP-2"
    assert refused(doc(P("a", "port", "port", hand=[8]), P("b", "port", "port"))) == "R-COMP-2"
    assert refused(doc(P("a", "port", "port", hand=[7]), P("b", "port", "port"))) == "X-CARDS-1"  # the expansion's


@pytest.mark.rule("R-COMP-3")
def test_R_COMP_3_five_colours_with_values_and_eight_gems_each():
    assert [(c.label, int(c)) for c in COLOURS] == [("amethyst", 1), ("diamond", 2), ("amber", 3), ("sapphire", 4),
                                                    ("ruby", 5)]
    start = Position.initial(["a", "b"])
    assert start.gem_totals() == Gems((8, 8, 8, 8, 8))
    assert Gems.of([Colour.RUBY, Colour.AMETHYST]).value == 6
    assert refused(doc(P("a", "4:ruby", "port", bank={"ruby": 8}), P("b", "port", "port"))) == "R-COMP-3"


@pytest.mark.rule("R-COMP-4")
def test_R_COMP_4_weather_from_sun_to_storm_starting_calm():
    assert position(P("a", "port", "port"), P("b", "port", "port")).weather == 0
    assert refused(doc(P("a", "port", "port"), P("b", "port", "port"), weather=3)) == "R-COMP-4"
    assert refused(doc(P("a", "port", "port"), P("b", "port", "port"), weather=-2)) == "R-COMP-4"


@pytest.mark.rule("R-COMP-5")
def test_R_COMP_5_the_lifebuoy_holder_acts_first():
    pos = position(P("a", "port", "port"), P("b", "port", "port"), P("c", "port", "port"), lifebuoy="c")
    assert pos.next_to_act() == 2
    assert refused(doc(P("a", "port", "port"), P("b", "port", "port"), lifebuoy="z")) == "R-COMP-5"


# -- R-BOARD --------------------------------------------------------------------------------------

@pytest.mark.rule("R-BOARD-1")
def test_R_BOARD_1_standard_board_has_a_main_bed_and_two_branches():
    board = standard_board()
    assert board.discs == ("1", "2", "3", "4", "5", "6L", "6R", "7L", "7R")
    assert board.forks == ("5",) and board.labels["5"] == ("L", "R")
    assert board.down["5"] == ("6L", "6R") and board.down["6L"] == ("7L",) and board.down["7R"] == ()


@pytest.mark.rule("R-BOARD-2")
def test_R_BOARD_2_port_above_and_falls_below_the_brinks():
    board = standard_board()
    assert board.down["port"] == ("1",) and board.up["1"] == "port"
    assert board.brinks == ("7L", "7R")
    pos = position(P("a", "7L", "fallen"), P("b", "port", "port"))
    assert flow(pos, 1).players[0].canoes == (Canoe("fallen"), Canoe("fallen"))


@pytest.mark.rule("R-BOARD-3")
def test_R_BOARD_3_depth_is_the_distance_from_the_port():
    assert standard_board().depth == {"port": 0, "1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6L": 6, "6R": 6, "7L": 7,
                                      "7R": 7}


@pytest.mark.rule("R-BOARD-4")
def test_R_BOARD_4_caves_beside_their_discs():
    board = standard_board()
    assert {d: (c.label if c else None) for d, c in board.cave.items()} == {
        "1": None, "2": None, "3": "amethyst", "4": "diamond", "5": "amber", "6L": "sapphire", "6R": "sapphire",
        "7L": "ruby", "7R": "ruby"}
    pos = position(P("a", "6R", "fallen"), P("b", "port", "port"))
    loads = {str(o.turn) for o in legal_turns(pos, 0, Card.TWO) if "+" in str(o.turn)}
    assert loads == {"6R: +sapphire"}


@pytest.mark.rule("R-BOARD-5")
def test_R_BOARD_5_every_cave_starts_with_all_gems_of_its_colour():
    start = Position.initial(["a", "b"])
    assert [start.cave(c) for c in COLOURS] == [Gems.of([c] * 8) for c in COLOURS]


@pytest.mark.rule("R-BOARD-6")
def test_R_BOARD_6_any_number_of_canoes_share_a_disc():
    pos = position(*[P(n, "3", "3") for n in "abcde"])
    assert sum(1 for _, c in pos.canoes() if c.place == "3") == 10
    ends = {o.position.players[0].canoes for o in legal_turns(pos, 0, Card.TWO)}
    assert (Canoe("1"), Canoe("3", (Colour.AMETHYST,))) in ends  # one loads beside nine canoes, one paddles up


# -- R-ROUND, R-CARD ------------------------------------------------------------------------------

@pytest.mark.rule("R-ROUND-1")
def test_R_ROUND_1_phases_in_order_rescue_cards_turns_flow_lifebuoy():
    pos = position(P("a", "fallen", "3", bank={"ruby": 1}), P("b", "port", "port"), phase="cards")
    with pytest.raises(PhaseError):
        legal_turns(pos, 0, Card.ONE)
    # The canoe rescued in phase I is in the port for phase II and may act this round.
    record = play_round(pos, {0: Card.ONE, 1: Card.TWO}, {0: "3: <2; port: >1", 1: "port: >2"},
                        rescues={0: Rescue((Colour.RUBY,))})
    assert record.turns_start.players[0].canoes == (Canoe("port"), Canoe("3"))
    assert record.before_flow.players[0].canoes == (Canoe("1"), Canoe("2"))
    assert record.flow == 1  # smallest paddle 1 + weather 0, after phase II
    assert record.end.players[0].canoes == (Canoe("2"), Canoe("3"))
    assert record.end.lifebuoy == 1 and record.end.phase is Phase.CARDS and record.end.round == 2


@pytest.mark.rule("R-CARD-1")
def test_R_CARD_1_a_chosen_card_is_fixed():
    pos = position(P("a", "port", "port", card=3), P("b", "port", "port"))
    with pytest.raises(IllegalTurnError) as err:
        legal_turns(pos, 0, Card.FOUR)
    assert err.value.rule == "R-CARD-1"
    assert [str(o.turn) for o in legal_turns(pos, 0)] == ["port: >3"]


@pytest.mark.rule("R-CARD-2")
def test_R_CARD_2_played_cards_stay_out_until_all_seven_are_played():
    pos = position(P("a", "port", "port", hand=[2, 5]), P("b", "port", "port", hand=[4]), phase="cards")
    record = play_round(pos, {0: Card.FIVE, 1: Card.FOUR}, {0: "port: >5", 1: "port: >4"})
    assert record.end.players[0].hand == (Card.TWO,)
    assert record.end.players[1].hand == FULL_HAND  # b played the last card: all seven come back
    with pytest.raises(IllegalTurnError) as err:
        legal_turns(position(P("a", "port", "port", hand=[2]), P("b", "port", "port")), 0, Card.FIVE)
    assert err.value.rule == "R-CARD-2"


# -- R-RESCUE -------------------------------------------------------------------------------------

@pytest.mark.rule("R-RESCUE-1")
def test_R_RESCUE_1_a_fallen_canoe_comes_back_for_one_banked_gem():
    pos = position(P("a", "port", "fallen", bank={"ruby": 1, "amber": 2}), P("b", "port", "port"), phase="cards")
    assert {str(r) for r in rescue_options(pos, 0)} == {"none", "amber", "ruby"}
    after = apply_rescue(pos, 0, Rescue((Colour.RUBY,)))
    assert after.players[0].canoes == (Canoe("port"), Canoe("port"))
    assert after.players[0].bank == Gems.of([Colour.AMBER, Colour.AMBER])
    assert after.cave(Colour.RUBY).get(Colour.RUBY) == pos.cave(Colour.RUBY).get(Colour.RUBY) + 1
    with pytest.raises(IllegalTurnError):
        apply_rescue(pos, 0, Rescue((None,)))  # not free while a canoe is in play


@pytest.mark.rule("R-RESCUE-2")
def test_R_RESCUE_2_a_player_with_no_canoe_in_play_must_rescue():
    pos = position(P("a", "fallen", "fallen", bank={"ruby": 1, "amber": 1}), P("b", "fallen", "fallen"),
                   phase="cards")
    assert {str(r) for r in rescue_options(pos, 0)} == {"amber", "ruby", "amber,ruby"}
    assert {str(r) for r in rescue_options(pos, 1)} == {"free"}
    with pytest.raises(IllegalTurnError) as err:
        begin_turns(pos)
    assert err.value.rule == "R-RESCUE-2"
    turned = begin_turns(pos, {0: Rescue((Colour.AMBER,))})
    assert turned.players[0].canoes == (Canoe("port"), Canoe("fallen"))
    assert turned.players[1].canoes == (Canoe("port"), Canoe("fallen"))  # the forced free rescue
    with pytest.raises(PositionError) as refused_err:
        position(P("a", "fallen", "fallen"), P("b", "port", "port"))  # phase II with no canoe in play
    assert refused_err.value.rule == "R-RESCUE-2"


@pytest.mark.rule("R-RESCUE-3")
def test_R_RESCUE_3_free_switch_gives_one_canoe_back_whatever_the_bank():
    pos = position(P("a", "fallen", "fallen", bank={"ruby": 1}), P("b", "port", "port"), phase="cards",
                   ruleset={"rescue_when_none": "free"})
    assert {str(r) for r in rescue_options(pos, 0)} == {"free", "free,ruby"}


# -- R-FLOW ---------------------------------------------------------------------------------------

@pytest.mark.rule("R-FLOW-1")
def test_R_FLOW_1_smallest_paddle_plus_weather_after_phase_two():
    pos = position(P("a", "1", "port", card=3), P("b", "port", "port", card="cloud"), P("c", "port", "port", card=5),
                   weather=0)
    pos = legal_turns(pos, 0)[0].position
    pos = [o.position for o in legal_turns(pos, 1) if o.position.weather == 1][0]
    pos = legal_turns(pos, 2)[0].position
    assert flow_value(pos) == 4  # min(3, 5) + 1: the cloud is not a paddle


@pytest.mark.rule("R-FLOW-2")
def test_R_FLOW_2_no_reverse_flow():
    pos = position(P("a", "2", "port", card=1), P("b", "port", "port", card=1), weather=-1)
    pos = legal_turns(pos, 0)[0].position
    pos = legal_turns(pos, 1)[0].position
    assert flow_value(pos) == 0
    assert end_round(pos).players[0].canoes == pos.players[0].canoes
    with pytest.raises(IllegalTurnError) as err:
        flow(pos, -1)
    assert err.value.rule == "R-FLOW-2"


@pytest.mark.rule("R-FLOW-3")
def test_R_FLOW_3_one_step_moves_the_main_bed_and_the_marked_branch():
    pos = position(P("a", "1", "5"), P("b", "6L", "6R"), P("c", "7R", "7L"), fork="L")
    after = flow(pos, 1)
    assert after.players[0].canoes == (Canoe("2"), Canoe("6L"))
    assert after.players[1].canoes == (Canoe("6R"), Canoe("7L"))  # 6R did not move
    assert after.players[2].canoes == (Canoe("7R"), Canoe("fallen"))


@pytest.mark.parametrize("steps, left, right, marker", [(1, 1, 0, "R"), (2, 1, 1, "L"), (3, 2, 1, "R"),
                                                        (4, 2, 2, "L")])
@pytest.mark.rule("R-FLOW-4")
def test_R_FLOW_4_the_fork_alternates(steps, left, right, marker):
    # Canoes on 6L and 6R measure how many discs entered each branch; the marked branch L gets ceil(k/2).
    pos = position(P("a", "6L", "6R"), P("b", "port", "port"), fork="L")
    result = flow_detail(pos, steps)
    moved = {c.place for c in result.position.players[0].canoes}
    expect_left = {0: "6L", 1: "7L"}.get(left, "fallen")
    expect_right = {0: "6R", 1: "7R"}.get(right, "fallen")
    assert moved == {expect_left, expect_right}
    assert result.position.forks == (("5", marker),)
    assert [p[-1] for p in result.paths] == (["7L", "7R"] * 2)[:steps]


@pytest.mark.rule("R-FLOW-5")
def test_R_FLOW_5_canoes_ride_their_discs_and_the_port_never_moves():
    pos = position(P("a", "port", "3:ruby"), P("b", "port", "fallen"))
    after = flow(pos, 2)
    assert after.players[0].canoes == (Canoe("port"), Canoe("5", (Colour.RUBY,)))
    assert after.players[1].canoes == (Canoe("port"), Canoe("fallen"))


@pytest.mark.rule("R-FLOW-6")
def test_R_FLOW_6_a_canoe_over_the_falls_is_fallen_and_its_gem_goes_home():
    pos = position(P("a", "7L:amber", "port"), P("b", "port", "port"), fork="L")
    result = flow_detail(pos, 1)
    assert result.position.players[0].canoes == (Canoe("port"), Canoe("fallen"))
    assert result.position.cave(Colour.AMBER) == Gems.of([Colour.AMBER] * 8)
    assert result.fell == ((0, "7L", (Colour.AMBER,)),)


# -- R-BUOY, R-END --------------------------------------------------------------------------------

@pytest.mark.rule("R-BUOY-1")
def test_R_BUOY_1_the_lifebuoy_passes_to_the_next_seat():
    pos = position(P("a", "port", "port", card=1), P("b", "port", "port", card=1), P("c", "port", "port", card=1),
                   lifebuoy="c")
    for i in pos.turn_order():
        pos = legal_turns(pos, i)[0].position
    assert end_round(pos).lifebuoy == 0


@pytest.mark.parametrize("bank, reached", [
    ({"amethyst": 3, "diamond": 2, "ruby": 2}, True),        # 7 gems
    ({"amethyst": 1, "diamond": 1, "amber": 1, "sapphire": 1, "ruby": 1}, True),  # one of each colour
    ({"sapphire": 4}, True),                                   # 4 of one colour
    ({"amethyst": 3, "diamond": 3}, False),
    ({"amethyst": 1, "diamond": 1, "amber": 1, "sapphire": 3}, False),
])
@pytest.mark.rule("R-END-1")
def test_R_END_1_the_goal(bank, reached):
    assert goal_reached(Player("a", bank=Gems.from_mapping({Colour.parse(k): v for k, v in bank.items()}))) is reached


@pytest.mark.rule("R-END-2")
def test_R_END_2_the_game_ends_after_the_round_not_during_it():
    pos = position(P("a", "1:ruby", "port", bank={"ruby": 3}, card=1), P("b", "port", "port", card=2))
    home = [o.position for o in legal_turns(pos, 0) if o.position.players[0].bank.total == 4][0]
    assert goal_reached(home.players[0]) and not is_finished(home)
    after_b = legal_turns(home, 1)[0].position
    assert is_finished(end_round(after_b)) and winners(end_round(after_b)) == (0,)


@pytest.mark.rule("R-END-2")
def test_R_END_2_no_round_is_played_once_the_game_is_over():
    over = position(P("a", "port", "port", bank={"ruby": 4}), P("b", "port", "port"), phase="cards")
    assert is_finished(over)
    with pytest.raises(GameOverError) as refused:
        play_round(over, {0: Card.ONE, 1: Card.TWO}, {0: "port: >1", 1: "port: >2"})
    assert refused.value.rule == "R-END-2" and "a reached the goal" in refused.value.message
    going = position(P("a", "port", "port", bank={"ruby": 3}), P("b", "port", "port"), phase="cards")
    assert play_round(going, {0: Card.ONE, 1: Card.TWO}, {0: "port: >1", 1: "port: >2"}).end.round == 2


@pytest.mark.rule("R-END-3")
def test_R_END_3_highest_bank_value_wins_and_ties_share():
    pos = position(P("a", "port", "port", bank={"ruby": 4}), P("b", "port", "port", bank={"amethyst": 7}),
                   P("c", "port", "port", bank={"sapphire": 4}), phase="cards")
    assert winners(pos) == (0,)  # values 20, 7 and 16: all reached the goal, the highest value wins
    tie = position(P("a", "port", "port", bank={"ruby": 4}), P("b", "port", "port", bank={"amethyst": 7}),
                   P("c", "port", "port", bank={"sapphire": 5}), phase="cards")
    assert winners(tie) == (0, 2)  # 20 and 20: a shared win
