"""Every ruleset switch of RULES.md: a position where its two values give different outcome sets, exactly."""

import pytest

from helpers import P, assert_turns, position
from niagara_solver.engine.flow import flow_outcomes, flow_value
from niagara_solver.engine.rescue import rescue_options
from niagara_solver.engine.round import end_round, winners
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.errors import PositionError, RulesetError
from niagara_solver.model.atoms import Card
from niagara_solver.model.position import Canoe
from niagara_solver.model.ruleset import PRESETS, Ruleset


def with_rules(rules, *players, **fields):
    return position(*players, ruleset=rules, **fields)


def test_steal_after_unload():
    players = (P("a", "4:ruby", "fallen"), P("b", "2:amber", "port"))
    common = ["4: <port", "4: >6L -ruby", "4: >6R -ruby", "4: -ruby <2", "4: -ruby >6L", "4: -ruby >6R",
              "4: -ruby +diamond"]
    assert_turns(with_rules({"steal_after_unload": True}, *players), "a", 4, common + ["4: -ruby <2 xb/amber"])
    assert_turns(with_rules({"steal_after_unload": False}, *players), "a", 4, common)


def test_rescue_when_none():
    players = (P("a", "fallen", "fallen", bank={"ruby": 1}), P("b", "port", "port"))
    pay = with_rules({"rescue_when_none": "pay_or_free"}, *players, phase="cards")
    free = with_rules({"rescue_when_none": "free"}, *players, phase="cards")
    assert [str(r) for r in rescue_options(pay, 0)] == ["ruby"]
    assert [str(r) for r in rescue_options(free, 0)] == ["free", "free,ruby"]


def test_port_departure():
    players = (P("a", "port", "port"), P("b", "port", "port"))
    assert_turns(with_rules({"port_departure": "exactly_one"}, *players), "a", 1, ["port: >1"])
    assert_turns(with_rules({"port_departure": "at_most_one"}, *players), "a", 1, ["stay", "port: >1"])


def test_bank_after_load():
    players = (P("a", "3", "fallen"), P("b", "port", "port"))
    common = ["3: <port", "3: >6L +sapphire", "3: >6R +sapphire", "3: +amethyst >6L", "3: +amethyst >6R"]
    assert_turns(with_rules({"bank_after_load": True}, *players), "a", 5, common + ["3: +amethyst <port"])
    assert_turns(with_rules({"bank_after_load": False}, *players), "a", 5, common)


def test_must_move():
    players = (P("a", "4:ruby", "fallen"), P("b", "port", "port"))
    common = ["4: -ruby <2", "4: -ruby >6L", "4: -ruby >6R", "4: <port", "4: >6L -ruby", "4: >6R -ruby"]
    assert_turns(with_rules({"must_move": False}, *players), "a", 4, common + ["4: -ruby +diamond"])
    assert_turns(with_rules({"must_move": True}, *players), "a", 4, common)


def test_min_flow():
    def after_turns(rules):  # both players have played a 1 with the weather at -1 (sun)
        return with_rules(rules, P("a", "2", "port", hand=[2, 3], card=1), P("b", "port", "port", hand=[2], card=1),
                          weather=-1, acted=["a", "b"])
    zero, one = after_turns({"min_flow": 0}), after_turns({"min_flow": 1})
    assert (flow_value(zero), flow_value(one)) == (0, 1)
    assert end_round(zero).players[0].canoes == (Canoe("port"), Canoe("2"))
    assert end_round(one).players[0].canoes == (Canoe("port"), Canoe("3"))


def test_fork_policy():
    players = (P("a", "5", "port"), P("b", "port", "port"))
    alternate = with_rules({"fork_policy": "alternate"}, *players, fork="L")
    free = with_rules({"fork_policy": "free"}, *players, fork="L")
    ends = lambda pos: {o.players[0].canoes[1].place for _, o in flow_outcomes(pos, 2)}  # noqa: E731
    assert ends(alternate) == {"6L"}
    assert ends(free) == {"6L", "6R", "7L", "7R"}


def test_tiebreak():
    players = (P("a", "port", "port", bank={"ruby": 4}), P("b", "port", "port", bank={"amethyst": 7}))
    assert winners(with_rules({"tiebreak": "value"}, *players, phase="cards")) == (0,)   # 20 against 7
    assert winners(with_rules({"tiebreak": "count"}, *players, phase="cards")) == (1,)   # 4 gems against 7


def test_gems_per_colour():
    players = (P("a", "3", "fallen"), P("b", "port", "port", bank={"amethyst": 1}))
    assert_turns(with_rules({"gems_per_colour": 8}, *players), "a", 2, ["3: +amethyst", "3: <1", "3: >5"])
    assert_turns(with_rules({"gems_per_colour": 1}, *players), "a", 2, ["3: <1", "3: >5"])
    with pytest.raises(PositionError) as err:
        with_rules({"gems_per_colour": 6}, P("a", "port", "port", bank={"ruby": 7}), P("b", "port", "port"))
    assert err.value.rule == "R-COMP-3"


def test_capacity():
    players = (P("a", "3:ruby", "fallen"), P("b", "port", "port"))
    assert_turns(with_rules({"capacity": 1}, *players), "a", 2, ["3: -ruby", "3: <1", "3: >5"])
    assert_turns(with_rules({"capacity": 2}, *players), "a", 2, ["3: -ruby", "3: +amethyst", "3: <1", "3: >5"])


def test_capacity_two_steals_from_two_canoes():
    players = (P("a", "5", "fallen"), P("b", "3:ruby", "port"), P("c", "3:amber,diamond", "port"))
    pos = with_rules({"capacity": 2}, *players)
    steals = sorted(str(o.turn) for o in legal_turns(pos, 0, Card.TWO) if " x" in str(o.turn))
    assert steals == ["5: <3 xb/ruby", "5: <3 xb/ruby xc/amber", "5: <3 xb/ruby xc/diamond", "5: <3 xc/amber",
                      "5: <3 xc/diamond"]


def test_presets_and_unknown_switches():
    assert PRESETS["bga-2013-05-09"] == Ruleset(steal_after_unload=False, rescue_when_none="free")  # type: ignore[arg-type]
    assert Ruleset.from_json({"base": "bga-2013-05-09", "capacity": 2}).to_json() == {
        "base": "bga-2013-05-09", "capacity": 2}
    with pytest.raises(RulesetError) as err:
        Ruleset.from_json({"steal_after_unlaod": False})
    assert err.value.rule == "SWITCHES" and err.value.path == "ruleset.steal_after_unlaod"
    with pytest.raises(RulesetError) as err:
        Ruleset.from_json({"min_flow": 2})
    assert err.value.rule == "R-FLOW-2"
