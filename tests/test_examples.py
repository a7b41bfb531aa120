"""The worked examples at the end of RULES.md, with exact outcome sets."""

import pytest

from helpers import P, assert_turns, card, expected, notations, outcomes, position
from niagara_solver.engine.apply import apply_turn
from niagara_solver.engine.flow import flow_value_of
from niagara_solver.model.notation import Turn
from niagara_solver.engine.round import play_round
from niagara_solver.model.errors import IllegalTurnError
from niagara_solver.model.atoms import Card, Colour
from niagara_solver.model.position import Canoe
from niagara_solver.model.ruleset import STANDARD


def test_bga_both_canoes_in_port_paddle_5_has_exactly_two_outcomes():
    # R-TURN-3, R-MOVE-2, R-GEM-1: one canoe on 5, or one canoe on 3 carrying an amethyst.
    pos = position(P("red", "port", "port"), P("blue", "port", "port"))
    assert_turns(pos, "red", 5, ["port: >5", "port: >3 +amethyst"])
    after = {o.players[0].canoes for o in outcomes(pos, "red", 5)}
    assert after == {(Canoe("port"), Canoe("5")), (Canoe("port"), Canoe("3", (Colour.AMETHYST,)))}


def test_bga_paddle_2_moves_up_two_discs_and_steals():
    pos = position(P("red", "3", "fallen"), P("blue", "1:ruby", "port"))
    assert_turns(pos, "red", 2, ["3: <1 xblue/ruby", "3: <1", "3: +amethyst", "3: >5"])
    stolen = expected(pos, "red", 2, ["3: <1 xblue/ruby"]).pop()
    assert stolen.players[0].canoes == (Canoe("1", (Colour.RUBY,)), Canoe("fallen"))
    assert stolen.players[1].canoes == (Canoe("port"), Canoe("1"))


@pytest.mark.parametrize("cards, weather, flow", [
    ([2, 5, "cloud", 6], 1, 3),        # BGA: 2 + 1
    ([1, 2, 4], -1, 0),                # BGA: 1 - 1
    (["cloud", "cloud", "cloud"], -1, 0),  # BGA: all clouds, sun: the river does not flow back (R-FLOW-2)
    (["cloud", 3, 4, 6], 1, 4),        # BSW: 3 + 1
])
def test_flow_examples(cards, weather, flow):
    assert flow_value_of([card(c) for c in cards], weather, STANDARD) == flow


def test_bga_flow_example_in_a_played_round():
    # Four players play 2, 5, cloud, 6 with the weather at 1: the river moves 3 (a canoe on 1 ends on 4).
    pos = position(P("a", "1", "port"), P("b", "port", "port"), P("c", "port", "port"), P("d", "port", "port"),
                   phase="cards", weather=1)
    record = play_round(pos, {0: Card.TWO, 1: Card.FIVE, 2: Card.CLOUD, 3: Card.SIX},
                        {0: "1: <port", 1: "port: >5", 2: "cloud down", 3: "port: >6L"})
    assert record.flow == 2  # the cloud moved the weather down to 0 before the flow: 2 + 0
    record = play_round(pos, {0: Card.TWO, 1: Card.FIVE, 2: Card.CLOUD, 3: Card.SIX},
                        {0: "1: <port", 1: "port: >5", 2: "cloud up", 3: "port: >6L"})
    assert record.flow == 4  # 2 + 2 (storm)
    # b's disc 5 enters branch L (step 1) and moves again in step 3; d's 6L moves in steps 1 and 3: falls.
    assert record.end.players[1].canoes == (Canoe("port"), Canoe("7L"))
    assert record.end.players[3].canoes == (Canoe("port"), Canoe("fallen"))


def test_bsw_port_canoe_with_paddle_6():
    pos = position(P("green", "port", "port"), P("blue", "port", "port"))
    assert_turns(pos, "green", 6, ["port: >4 +diamond", "port: >6L", "port: >6R"])
    with pytest.raises(IllegalTurnError) as err:
        apply_turn(pos, 0, Turn.parse("port: >3 +amethyst >4"), Card.SIX)
    assert err.value.rule == "R-MOVE-1"


ERRATUM_LOADED_CANOE = [
    "4: <port",                 # go home: the gem is banked
    "4: -ruby +diamond <3", "4: -ruby +diamond >5",   # unload, load, move 1
    "4: -ruby <1", "4: -ruby >7L", "4: -ruby >7R",    # unload, move 3
    "4: <3 -ruby +amethyst", "4: >5 -ruby +amber",    # move 1, unload and load
    "4: >7L -ruby", "4: >7R -ruby",                    # move 3 down, unload
    "4: -ruby <3 +amethyst", "4: -ruby >5 +amber",    # not in the source's list: unload, move 1, load
]


def test_erratum_port_canoe_reaches_5_or_3_and_loads():
    pos = position(P("red", "port", "4:ruby"), P("blue", "port", "port"))
    for illegal in ("4: <port; port: >6L", "4: <port; port: >4 +diamond"):
        with pytest.raises(IllegalTurnError) as err:
            apply_turn(pos, 0, Turn.parse(illegal), Card.FIVE)
        assert err.value.rule == "R-MOVE-3"


def test_erratum_complete_outcome_set_with_both_orders():
    pos = position(P("red", "port", "4:ruby"), P("blue", "port", "port"))
    both = [f"{a}; {b}" for a in ERRATUM_LOADED_CANOE for b in ("port: >5", "port: >3 +amethyst")]
    # R-TURN-4: the canoe on 4 unloads its ruby at 3, then the port canoe loads that ruby there.
    by_order = ["4: <3 -ruby +amethyst; port: >3 +ruby"]
    assert_turns(pos, "red", 5, ERRATUM_LOADED_CANOE + both + by_order)
    assert len(notations(pos, "red", 5)) == 37
    with pytest.raises(IllegalTurnError):
        apply_turn(pos, 0, Turn.parse("port: >3 +ruby; 4: <3 -ruby +amethyst"), Card.FIVE)

