"""The beaver (``x_beaver``, RULES.md X-BEAVER-1..2): a cloud to +2 puts it on the top disc, it rides the river,
and when it goes over the falls the weather is set to 0 at the end of that phase III."""

from __future__ import annotations

import random

import pytest

from helpers import P, doc
from niagara_solver.engine.apply import apply_turn
from niagara_solver.engine.flow import flow, flow_outcomes
from niagara_solver.play.playout import random_playout
from niagara_solver.engine.round import end_round_detail
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import Card
from niagara_solver.model.format import dumps_position, loads_position, position_from_json
from niagara_solver.model.invariants import position_problems
from niagara_solver.model.notation import Turn
from niagara_solver.model.position import Position
from niagara_solver.model.ruleset import Ruleset


def pos_of(*players, rules=None, **fields) -> Position:
    return position_from_json(doc(*players, ruleset={"x_beaver": True, **(rules or {})}, **fields))


PLAYERS = (P("a", "port", "port"), P("b", "port", "port"))


@pytest.mark.rule("X-BEAVER-1")
def test_a_cloud_to_storm_puts_the_beaver_on_the_top_disc():
    pos = pos_of(*PLAYERS, weather=1)
    outcomes = {str(o.turn): o.position for o in legal_turns(pos, 0, Card.CLOUD)}
    assert set(outcomes) == {"cloud up", "cloud down"}
    assert (outcomes["cloud up"].weather, outcomes["cloud up"].beaver) == (2, "1")
    assert (outcomes["cloud down"].weather, outcomes["cloud down"].beaver) == (0, None)
    assert apply_turn(pos, 0, Turn.parse("cloud up"), Card.CLOUD).position == outcomes["cloud up"]
    # Already on the river: another cloud to +2 does nothing more.
    riding = pos_of(*PLAYERS, weather=1, beaver="6L")
    assert {o.position.beaver for o in legal_turns(riding, 0, Card.CLOUD)} == {"6L"}
    # Without the module there is no beaver.
    base = position_from_json(doc(*PLAYERS, weather=1))
    assert {o.position.beaver for o in legal_turns(base, 0, Card.CLOUD)} == {None}


@pytest.mark.rule("X-BEAVER-1")
def test_the_beaver_rides_its_disc_down_the_river():
    pos = pos_of(*PLAYERS, beaver="4")
    assert flow(pos, 1).beaver == "5"
    # The disc leaving 5 in the first step goes left and the marker switches: the beaver's disc goes right, and
    # stays there while the next disc enters the left branch (R-FLOW-4).
    assert flow(pos, 2).beaver == "6R" and flow(pos, 3).beaver == "6R" and flow(pos, 4).beaver == "7R"
    assert flow(pos.replace(beaver="5"), 2).beaver == "6L"
    free = pos_of(*PLAYERS, beaver="5", rules={"fork_policy": "free"})
    assert sorted(o.beaver or "-" for _, o in flow_outcomes(free, 1)) == ["6L", "6R"]


@pytest.mark.rule("X-BEAVER-2")
def test_over_the_falls_the_beaver_leaves_and_the_weather_is_set_to_zero():
    for weather in (2, 1, -1):
        pos = pos_of(*PLAYERS, beaver="7L", weather=weather)
        after = flow(pos, 1)
        assert (after.beaver, after.weather) == (None, 0), weather
    # A flow that does not take it over leaves the weather alone.
    pos = pos_of(*PLAYERS, beaver="7L", weather=2, fork="R")
    assert (flow(pos, 1).beaver, flow(pos, 1).weather) == ("7L", 2)
    # The round's flow is not changed: it was counted before the river moved (cards 3 and 3, weather +2: 5).
    hand = [1, 2, 4, 5, 6, "cloud"]
    played = pos_of(P("a", "port", "port", card=3, hand=hand), P("b", "port", "port", card=3, hand=hand),
                    beaver="6L", weather=2, acted=["a", "b"])
    end, detail = end_round_detail(played)
    assert len(detail.paths) == 5 and end.weather == 0 and end.beaver is None


def test_random_games_with_the_beaver_keep_every_invariant():
    reset = 0
    for seed in range(8):
        rng = random.Random(seed)
        rules = Ruleset.from_json({"x_beaver": True, "fork_policy": rng.choice(["alternate", "free"])})
        start = Position.initial([f"p{i}" for i in range(rng.choice([2, 3, 4]))], ruleset=rules)
        for record in random_playout(start, seed, 40):
            assert position_problems(record.end) == []
            assert loads_position(dumps_position(record.end)) == record.end
            went_over = record.before_flow.beaver is not None and record.end.beaver is None
            if went_over:  # X-PROP-4
                assert record.end.weather == 0
                reset += 1
    assert reset > 0
