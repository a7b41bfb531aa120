"""Boards other than the standard one: everything about the river's shape comes from the graph."""

import pytest

from helpers import P, assert_turns, position
from niagara_solver.model.board import Board, standard_board
from niagara_solver.engine.flow import flow_detail
from niagara_solver.model.errors import BoardError
from niagara_solver.model.atoms import Colour
from niagara_solver.model.format import dumps_position, loads_position, position_to_json
from niagara_solver.model.position import Canoe
from strategies import LONG_BOARD

LONG = LONG_BOARD.description()


def test_long_board_shape_is_derived_from_the_graph():
    b = LONG_BOARD
    assert b.top == "1" and b.forks == ("6", "7R")
    assert b.labels == {"6": ("L", "R"), "7R": ("A", "B")}
    assert b.depth["8RB"] == 8 and b.depth["8L"] == 8 and b.max_depth == 8
    assert b.below("5", 3) == ("8L", "8RA", "8RB") and b.below("port", 1) == ("1",)
    assert b.above("8RA") == ("7R", "6", "5", "4", "3", "2", "1", "port")
    assert b.cave["6"] is Colour.AMBER and b.cave["1"] is None
    assert b.brinks == ("8L", "8RA", "8RB")


def test_long_board_turns():
    pos = position(P("a", "6", "fallen"), P("b", "port", "port"), board=LONG)
    # From 6 with 2: load an amber (6 is beside the amber cave), up to 4, or down into either branch's second disc.
    assert_turns(pos, "a", 2, ["6: +amber", "6: <4", "6: >8L", "6: >8RA", "6: >8RB"])


def test_two_forks_alternate_independently():
    pos = position(P("a", "6", "7R"), P("b", "5", "port"), board=LONG, fork={"6": "R", "7R": "A"})
    result = flow_detail(pos, 3)
    # Step 1 goes R then A; step 2 goes L; step 3 goes R then B.
    assert [p[-1] for p in result.paths] == ["8RA", "8L", "8RB"]
    assert result.position.forks == (("6", "L"), ("7R", "A"))
    # a's canoe on 6 rides step 1 into 7R and step 3 on to 8RB; a's 7R goes to 8RA in step 1 only.
    assert result.position.players[0].canoes == (Canoe("8RA"), Canoe("8RB"))
    assert result.position.players[1].canoes == (Canoe("port"), Canoe("7L"))


def test_inline_board_positions_round_trip_in_canonical_form():
    pos = position(P("a", "7L:ruby", "port"), P("b", "8RB", "port"), board=LONG, fork={"7R": "B"})
    out = position_to_json(pos)
    assert out["board"]["river"]["6"] == {"L": "7L", "R": "7R"}
    assert out["fork"] == {"6": "L", "7R": "B"}
    assert loads_position(dumps_position(pos)) == pos
    assert position_to_json(position(P("a", "port", "port"), P("b", "port", "port")))["board"] == "standard"


def test_standard_board_written_inline_is_the_standard_board():
    again = Board.from_json(standard_board().description())
    assert again == standard_board() and again.to_json() == "standard"


@pytest.mark.parametrize("river, caves, fragment, rule", [
    ({"1": {"L": "2"}, "2": "falls"}, None, "at least two branches", "R-BOARD-1"),
    ({"1": {"L": "2", "R": "falls"}, "2": "falls"}, None, "must be a disc", "R-BOARD-1"),
    ({"port": "falls"}, None, "cannot name a disc", "R-BOARD-2"),
    ({"1": "1"}, None, "into itself", "R-BOARD-2"),
    ({"1": "2", "2": "falls"}, {"amethyst": ["1"], "diamond": ["1"], "amber": ["2"], "sapphire": ["2"],
                                "ruby": ["2"]}, "already beside", "R-BOARD-4"),
    ({"1": "3"}, None, "unknown disc", "R-BOARD-1"),
])
def test_board_validation(river, caves, fragment, rule):
    caves = caves or {c.label: [next(iter(river))] for c in Colour}
    with pytest.raises(BoardError) as err:
        Board.from_json({"river": river, "caves": caves})
    assert fragment in err.value.message and err.value.rule == rule


def test_no_fork_board():
    straight = {"river": {"1": "2", "2": "3", "3": "4", "4": "5", "5": "falls"},
                "caves": {"amethyst": ["1"], "diamond": ["2"], "amber": ["3"], "sapphire": ["4"], "ruby": ["5"]}}
    pos = position(P("a", "5", "port"), P("b", "port", "port"), board=straight)
    assert pos.forks == ()
    assert "fork" not in position_to_json(pos)
    assert flow_detail(pos, 1).position.players[0].canoes == (Canoe("port"), Canoe("fallen"))
