"""The whirlpool (``x_whirl``, RULES.md X-WHIRL-1..5): a disc that rides the river, pushes a canoe ending its movement
on it one disc down, makes the step onto it (or off it) upstream cost 2, and comes back at the top after the falls."""

from __future__ import annotations

import random

import pytest

from brute import brute_force_outcomes
from helpers import P, assert_turns, doc, notations, replayed_games
from niagara_solver.engine.apply import apply_turn
from niagara_solver.engine.flow import flow, flow_choices, flow_detail
from niagara_solver.play.playout import random_playout
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import FALLEN, NEXT, Card, Colour, Moose
from niagara_solver.model.errors import IllegalTurnError
from niagara_solver.model.format import position_from_json
from niagara_solver.model.notation import Turn
from niagara_solver.model.position import Position
from niagara_solver.model.ruleset import Ruleset


def pos_of(*players, rules=None, **fields) -> Position:
    return position_from_json(doc(*players, ruleset={"x_whirl": True, **(rules or {})}, **fields))


def rejected(pos: Position, name: str, value: int | str, turn: str) -> str:
    card = Card.parse(value) if isinstance(value, str) else Card(value)
    with pytest.raises(IllegalTurnError) as err:
        apply_turn(pos, pos.index(name), Turn.parse(turn), card)
    return err.value.rule


def places(pos: Position, name: str) -> list[str]:
    return sorted(c.place for c in pos.players[pos.index(name)].canoes)


@pytest.mark.rule("X-WHIRL-3")
def test_upstream_the_step_onto_the_whirlpool_costs_two():
    pos = pos_of(P("a", "5", "fallen"), P("b", "port", "port"), whirlpool="3")
    # From 5: one disc up costs 1; stopping on the whirlpool on 3 costs 1 + 2 and pushes the canoe back to 4;
    # passing it to 2 costs 1 + 2 + 1 (the same 4 points that reach 1 without a whirlpool).
    assert_turns(pos, "a", 3, ["5: <3 ~4", "5: +amber <4", "5: +amber >6L", "5: +amber >6R", "5: <4 +diamond",
                               "5: >6L +sapphire", "5: >6R +sapphire"])
    assert "5: <2" in notations(pos, "a", 4)
    assert "5: <1" not in notations(pos, "a", 4) and "5: <1" in notations(pos, "a", 5)
    assert rejected(pos, "a", 4, "5: <1") == "X-WHIRL-3"
    # Downstream every step costs 1: from the port, 5 points pass the whirlpool and reach 5.
    port = pos_of(P("a", "port", "fallen"), P("b", "port", "port"), whirlpool="3")
    assert "port: >5" in notations(port, "a", 5) and "port: >3 ~4" in notations(port, "a", 3)


@pytest.mark.rule("X-WHIRL-3")
def test_with_whirl_cost_step_leave_the_step_off_it_costs_two():
    pos = pos_of(P("a", "5", "fallen"), P("b", "port", "port"), whirlpool="3", rules={"whirl_cost_step": "leave"})
    turns = notations(pos, "a", 2)
    assert "5: <3 ~4" in turns  # onto it: 1 point a step
    assert "5: <2" not in notations(pos, "a", 3) and "5: <2" in notations(pos, "a", 4)
    # The port step off a whirlpool on 1 costs 2, and R-MOVE-5's remaining distance counts it.
    top = pos_of(P("a", "2", "fallen"), P("b", "port", "port"), whirlpool="1", rules={"whirl_cost_step": "leave"})
    assert "2: <port" not in notations(top, "a", 2) and "2: <port" in notations(top, "a", 3)
    assert rejected(top, "a", 2, "2: <port") == "X-WHIRL-3"


@pytest.mark.rule("X-WHIRL-2")
def test_a_canoe_ends_on_the_whirlpool_only_with_its_last_point_and_is_pushed_down():
    pos = pos_of(P("a", "4", "fallen"), P("b", "port", "port"), whirlpool="5")
    # At the fork the owner picks the branch.
    assert_turns(pos, "a", 1, ["4: <3", "4: >5 ~6L", "4: >5 ~6R"])
    assert_turns(pos, "a", 2, ["4: +diamond", "4: <2", "4: >6L", "4: >6R"])
    assert rejected(pos, "a", 1, "4: >5") == "X-WHIRL-2"  # the push is written
    assert rejected(pos, "a", 1, "4: >5 ~7L") == "X-WHIRL-2"  # one disc down
    # Stopping on the whirlpool for a gem action is not allowed: no gem action on it, none after the movement.
    cave = pos_of(P("a", "4", "fallen"), P("b", "port", "port"), whirlpool="5")
    assert rejected(cave, "a", 3, "4: >5 +amber") == "X-WHIRL-2"


@pytest.mark.rule("X-WHIRL-2")
def test_pushed_over_the_falls_only_where_every_action_falls_with_whirl_brink_avoid():
    pos = pos_of(P("a", {"at": "6L", "gems": ["sapphire"]}, "fallen"), P("b", "port", "port"), whirlpool="7L")
    assert_turns(pos, "a", 1, ["6L: <5"])
    assert rejected(pos, "a", 1, "6L: >7L ~fallen") == "X-WHIRL-2"
    allowed = pos_of(P("a", {"at": "6L", "gems": ["sapphire"]}, "fallen"), P("b", "port", "port"), whirlpool="7L",
                     rules={"whirl_brink": "allowed"})
    assert_turns(allowed, "a", 1, ["6L: <5", "6L: >7L ~fallen"])
    after = apply_turn(allowed, 0, Turn.parse("6L: >7L ~fallen"), Card(1)).position
    assert places(after, "a") == [FALLEN, FALLEN]
    assert after.caves[Colour.SAPPHIRE - 1].get(Colour.SAPPHIRE) == allowed.caves[Colour.SAPPHIRE - 1].get(
        Colour.SAPPHIRE) + 1  # R-FLOW-6: its gem goes home


@pytest.mark.rule("X-WHIRL-5", "X-WHIRL-3")
def test_a_canoe_with_no_legal_action_stays_and_may_still_take_the_moose():
    pos = pos_of(P("a", "7L", "fallen"), P("b", "port", "port"), whirlpool="6L")
    assert_turns(pos, "a", 1, ["7L:"])  # the worked example of X-WHIRL-5: one point, and the step up costs 2
    assert rejected(pos, "a", 2, "7L:") == "X-WHIRL-5"  # with 2 points it has actions
    # With 2 points: load a ruby where it stands, or paddle onto the whirlpool and be pushed back to 7L.
    assert_turns(pos, "a", 2, ["7L: +ruby", "7L: <6L ~7L"])
    moose = pos_of(P("a", "7L", "fallen"), P("b", "port", "port"), whirlpool="6L", moose="waiting",
                   rules={"x_moose": True})
    # With the moose the canoe has 3 points and passes the whirlpool: it has an action, so it does not stay.
    turns = notations(moose, "a", 1)
    assert "7L:" not in turns and "7L: moose <5" in turns
    assert rejected(moose, "a", 1, "7L:") == "X-WHIRL-5"


@pytest.mark.rule("X-WHIRL-2")
def test_a_pushed_canoe_neither_steals_nor_trades():
    pos = pos_of(P("a", "6L", "fallen"), P("b", {"at": "5", "gems": ["ruby"]}, "port"), whirlpool="4",
                 joe={"at": "5", "gem": "amber"}, rules={"x_joe": True})
    # Pushed onto 5, beside b's loaded canoe and Joe: no steal, no trade; an action ending on 5 by paddling trades.
    assert_turns(pos, "a", 3, ["6L: +sapphire <5", "6L: +sapphire <5 trade-sapphire+amber", "6L: +sapphire >7L",
                               "6L: <4 ~5", "6L: <5 +amber", "6L: >7L +ruby"])
    assert rejected(pos, "a", 3, "6L: <4 ~5 xb/ruby") == "X-WHIRL-2"
    assert rejected(pos, "a", 3, "6L: <4 ~5 trade+amber") == "X-WHIRL-2"


@pytest.mark.rule("X-WHIRL-1")
def test_the_whirlpool_rides_the_river_and_comes_back_at_the_top():
    pos = pos_of(P("a", "port", "port"), P("b", "port", "port"), whirlpool="6L", phase="turns")
    # The fork marker sends the first disc left: 6L goes to 7L, then over the falls, then in again on 1.
    assert [flow(pos, k).whirlpool for k in range(1, 7)] == ["7L", "7L", NEXT, "1", "2", "3"]
    # A whirlpool waiting as "next" comes in with the first step of a later flow.
    waiting = flow(pos, 3)
    assert flow(waiting.replace(forks=pos.forks), 1).whirlpool == "1"


def lasso_pos(whirl: str, canoe: dict | str, rules: dict | None = None, **fields) -> Position:
    """Both players have acted: a played the Lasso (its canoe moored), b a 1; the flow is 1."""
    return pos_of(P("a", canoe, "fallen", card="lasso", hand=[2, 3]), P("b", "port", "port", card=1, hand=[2, 3]),
                  whirlpool=whirl, rules={"x_cards": True, **(rules or {})}, acted=["a", "b"], **fields)


@pytest.mark.rule("X-WHIRL-4", "X-CARDS-4")
def test_a_canoe_put_back_onto_the_whirlpool_is_pushed_and_its_owner_picks_the_branch():
    # a's canoe on 5 is moored; the flow of 1 brings the whirlpool from 4 onto place 5: the canoe is put back onto
    # it at the fork, and a picks the branch.
    pos = lasso_pos("4", {"at": "5", "gems": ["amber"], "moored": True})
    outcomes = flow_choices(pos, 1)
    assert sorted((o.pushes, places(o.position, "a")) for o in outcomes) == [
        (("6L",), ["6L", FALLEN]), (("6R",), ["6R", FALLEN])]
    with pytest.raises(IllegalTurnError) as err:
        flow(pos, 1)  # the owner's choice must be given
    assert err.value.rule == "X-WHIRL-4"
    assert places(flow(pos, 1, pushes=["6R"]), "a") == ["6R", FALLEN]
    assert flow(pos, 1, pushes=["6R"]).players[0].canoes[0].gems == (Colour.AMBER,)


@pytest.mark.rule("X-WHIRL-4", "X-CARDS-4", "X-MOOSE-3")
def test_a_lasso_saves_a_canoe_on_7L_and_then_puts_it_back_onto_the_whirlpool_over_the_falls():
    # The worked example: the Lasso keeps the canoe on 7L from riding over the falls, but the whirlpool comes down
    # onto 7L with the flow, and the canoe put back onto it is pushed over the falls, its gem home, its moose back.
    pos = lasso_pos("6L", {"at": "7L", "gems": ["ruby"], "moored": True, "moose": True}, {"x_moose": True},
                    moose="held")
    result = flow_detail(pos, 1)
    assert places(result.position, "a") == [FALLEN, FALLEN]
    assert result.fell == ((0, "7L", (Colour.RUBY,)),)
    assert result.position.moose is Moose.WAITING
    # Without the whirlpool coming down (a flow of 2 sends the second disc right), the canoe is saved.
    calm = lasso_pos("6R", {"at": "7L", "gems": ["ruby"], "moored": True})
    assert places(flow(calm, 1), "a") == ["7L", FALLEN]


@pytest.mark.rule("X-WHIRL-1", "X-WHIRL-2", "X-WHIRL-3", "X-WHIRL-5")
def test_generator_matches_a_brute_force_over_the_notation_with_the_whirlpool():
    """Completeness and soundness: on positions from random games with the whirlpool, every position a brute-force
    search over written actions reaches (as the interpreter judges) is one the generator lists, and no other."""
    checked = 0
    for seed in range(6):
        rules = Ruleset.from_json({"x_whirl": True, "whirl_brink": ["avoid", "allowed"][seed % 2],
                                   "whirl_cost_step": ["enter", "leave"][seed // 2 % 2],
                                   "whirl_start": ["3", "1", "5"][seed % 3]})
        start = Position.initial(["p0", "p1"], ruleset=rules)
        for record in random_playout(start, seed, 12, policy="greedy"):
            pos, turn = record.turns_start, record.turns[0]
            if record.start.round % 3 or not turn.card.is_paddle:
                continue
            got = {o.position for o in legal_turns(pos, turn.player)}
            assert brute_force_outcomes(pos, turn.player, turn.card) == got
            checked += 1
    assert checked >= 12


@pytest.mark.rule("X-WHIRL-1", "X-WHIRL-2", "X-WHIRL-4")
def test_random_games_with_the_whirlpool_and_other_modules_replay_and_stay_valid():
    def rules_of(rng: random.Random) -> Ruleset:
        return Ruleset.from_json({
            "x_whirl": True, "x_cards": rng.random() < 0.6, "x_moose": rng.random() < 0.5,
            "x_double": rng.random() < 0.5, "x_joe": rng.random() < 0.3, "x_beaver": rng.random() < 0.3,
            "whirl_brink": rng.choice(["avoid", "allowed"]), "whirl_cost_step": rng.choice(["enter", "leave"]),
            "whirl_start": rng.choice(["3", "2", "5", "1"])})

    pushed = put_back = 0
    for record, turns in replayed_games(rules_of, range(10), [2, 3], rounds=30, every_turn_each=4):
        pushed += sum("~" in str(t.turn) for t in turns)
        put_back += len(record.pushes)
        whirl = record.end.whirlpool
        # X-PROP-2: no canoe stands on the whirlpool after an action or a round.
        for t in turns:
            assert not [c for p in t.after.players for c in p.canoes
                        if c.place == t.after.whirlpool and not c.moored]
        assert not [c for p in record.end.players for c in p.canoes if c.place == whirl]
    assert pushed > 0
