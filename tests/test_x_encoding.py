"""The expansion in the encoding, held to the engine: the same exact outcome sets on positions that make each X rule
matter (the engine and the encoding are two independent readings of RULES.md section X)."""

from __future__ import annotations

import pytest

from helpers import P, doc
from niagara_solver.encoding.enumerate import Enumerator
from niagara_solver.engine.flow import flow_outcomes, flow_value
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import Card
from niagara_solver.model.format import position_from_json
from niagara_solver.model.position import Position


def pos_of(*players, rules=None, **fields) -> Position:
    return position_from_json(doc(*players, ruleset={"x_cards": True, **(rules or {})}, **fields))


def same_turns(pos: Position, name: str, card: Card) -> set[Position]:
    """Both readings' outcomes of a turn, asserted equal; the outcomes."""
    player = pos.index(name)
    outcomes = legal_turns(pos, player, card)
    engine = {o.position for o in outcomes}
    # The encoding pins each of the engine's turns, then looks for any result outside them (check_turns).
    encoding = set(Enumerator.of(pos).check_turns(pos, player, card, {o.position: o.turn for o in outcomes}))
    only = [str(o.turn) for o in outcomes if o.position not in encoding]
    assert engine == encoding, f"engine only: {only}; encoding only: {len(encoding - engine)}"
    return engine


HAND = [1, 2, 7, "lasso", "123", "cloud"]


@pytest.mark.rule("X-CARDS-1", "X-CARDS-3", "X-CARDS-4")
@pytest.mark.parametrize("rules, canoes", [
    ({}, ("4:ruby", "6L")), ({"lasso_scope": "one", "card_123_canoes": "all"}, ("4:ruby", "6L")),
    ({"lasso_scope": "one"}, ("port", "3")), ({"port_departure": "at_most_one"}, ("port", "port")),
    ({"card_123_canoes": "all"}, ("7R:sapphire", "fallen"))])
def test_every_expansion_card_has_the_same_outcomes_in_both_readings(rules, canoes):
    pos = pos_of(P("red", *canoes, hand=HAND), P("blue", "5:amber", "port", hand=[3, 4]), rules=rules)
    counts = {}
    for card in ("7", "lasso", "123"):
        counts[card] = len(same_turns(pos, "red", Card.parse(card)))
    assert counts["lasso"] == (1 if rules.get("lasso_scope") != "one"
                               else max(1, sum(c not in ("port", "fallen") for c in (x.split(":")[0] for x in canoes))))
    assert counts["123"] >= 3 and counts["7"] >= 1


@pytest.mark.rule("X-CARDS-2", "X-CARDS-4")
def test_moored_canoes_stay_through_the_flow_in_both_readings():
    pos = pos_of(P("red", {"at": "7L", "gem": "ruby", "moored": True}, "5", card="lasso", hand=[1, 2]),
                 P("blue", "6L", "port", card=7, hand=[1, 2]), acted=["red", "blue"], weather=1)
    assert flow_value(pos) == 8  # the 7 is the smallest paddle; the Lasso counts for nothing (X-CARDS-2)
    engine = {p for _, p in flow_outcomes(pos, flow_value(pos))}
    encoding = Enumerator.of(pos).flows(pos, None)
    assert engine == encoding and len(engine) == 1
    (after,) = engine
    assert [c.place for c in after.players[0].canoes] == ["7L", "fallen"]  # saved by the Lasso, put back
    assert not any(c.moored for p in after.players for c in p.canoes)


@pytest.mark.rule("X-CARDS-2", "X-CARDS-3", "X-CARDS-4", "X-DOUBLE-1", "X-DOUBLE-3", "X-BEAVER-2", "X-MOOSE-2")
@pytest.mark.parametrize("switches", [{"x_cards": True},
                                      {"x_cards": True, "lasso_scope": "one", "card_123_canoes": "all"},
                                      {"x_double": True},
                                      {"x_double": True, "x_cards": True, "double_one_cave": False},
                                      {"x_beaver": True, "x_cards": True},
                                      {"x_moose": True, "x_double": True}])
def test_the_catalogue_is_proved_with_the_modules_in_the_encoding(switches):
    """Every property, restated where a module makes the base game's statement false (docs/PROPERTIES.md), holds
    for every valid position with the module, alone and together: proved, not sampled."""
    from niagara_solver.model.board import standard_board
    from niagara_solver.model.ruleset import Ruleset
    from niagara_solver.model.verdict import Verdict
    from niagara_solver.verify.catalogue import prove_catalogue
    from niagara_solver.verify.properties import CATALOGUE, EXPANSION

    report = prove_catalogue(standard_board(), Ruleset.from_json(switches), [2], timeout=600)
    verdicts = {p.id: p.verdict for p in report.properties}
    own = [p for p in EXPANSION if switches.get(p.module or "")]  # the X-PROP of the modules on
    assert verdicts == {p.id: Verdict.PROVED for p in (*CATALOGUE, *own)}


def double_of(*players, rules=None, **fields) -> Position:
    return position_from_json(doc(*players, ruleset={"x_double": True, **(rules or {})}, **fields))


S, D = "single", "double"


@pytest.mark.rule("X-DOUBLE-1", "X-DOUBLE-2", "X-DOUBLE-3")
@pytest.mark.parametrize("rules, red, blue, card", [
    # The worked example: a double canoe with one gem and one free place steals from two canoes on the disc.
    ({}, [{"kind": D, "at": "6L", "gem": "ruby"}, {"kind": S, "at": "fallen"}],
     [{"kind": S, "at": "4", "gem": "amber"}, {"kind": D, "at": "4", "gems": ["diamond", "sapphire"]}], 2),
    # Loads at one cave (double_one_cave) or on both sides of the movement (false), capacity two.
    ({}, [{"kind": D, "at": "3"}, {"kind": S, "at": "5"}], [{"kind": S, "at": "port"}, {"kind": D, "at": "port"}], 5),
    ({"double_one_cave": False}, [{"kind": D, "at": "3"}, {"kind": S, "at": "5"}],
     [{"kind": S, "at": "port"}, {"kind": D, "at": "port"}], 5),
    # Two port canoes of two kinds: either may leave; and the 1/2/3 card with the expansion's cards.
    ({"x_cards": True}, [{"kind": S, "at": "port"}, {"kind": D, "at": "port"}],
     [{"kind": S, "at": "2", "gem": "ruby"}, {"kind": D, "at": "2", "gems": ["ruby", "amber"]}], "123"),
])
def test_the_double_canoe_has_the_same_outcomes_in_both_readings(rules, red, blue, card):
    pos = double_of(P("red", *red, hand=[1, 2, 5] + (["123"] if rules.get("x_cards") else [])),
                    P("blue", *blue, hand=[3, 4]), rules=rules)
    found = same_turns(pos, "red", Card.parse(str(card)))
    assert found


@pytest.mark.rule("X-DOUBLE-3")
@pytest.mark.parametrize("aboard, steals", [
    # Empty, two free places: one gem from each of blue's two canoes, or one gem alone.
    ([], ["6L: <4 xblue/amber", "6L: <4 xblue/diamond", "6L: <4 xblue/diamond xblue/amber", "6L: <4 xblue/sapphire",
          "6L: <4 xblue/sapphire xblue/amber"]),
    # One gem aboard, one free place: one gem, from either canoe (of the double one, either colour).
    (["ruby"], ["6L: <4 xblue/amber", "6L: <4 xblue/diamond", "6L: <4 xblue/sapphire"])])
def test_the_double_canoe_steals_as_many_gems_as_it_has_free_places_one_from_each_canoe(aboard, steals):
    pos = double_of(P("red", {"kind": D, "at": "6L", "gems": aboard}, {"kind": S, "at": "fallen"}, hand=[2]),
                    P("blue", {"kind": S, "at": "4", "gem": "amber"},
                      {"kind": D, "at": "4", "gems": ["diamond", "sapphire"]}, hand=[3]))
    assert sorted(str(o.turn) for o in legal_turns(pos, 0, Card(2)) if "x" in str(o.turn)) == steals
    same_turns(pos, "red", Card(2))


@pytest.mark.rule("X-BEAVER-1", "X-BEAVER-2")
def test_the_beaver_jumps_on_and_calms_the_weather_in_both_readings():
    # A cloud up to +2 brings the beaver onto the top disc (X-BEAVER-1) ...
    pos = position_from_json(doc(P("red", "3", "port", hand=["cloud", 2]), P("blue", "port", "port", hand=[3]),
                                 ruleset={"x_beaver": True}, weather=1))
    (up,) = [p for p in same_turns(pos, "red", Card.CLOUD) if p.weather == 2]
    assert up.beaver == "1"
    # ... and when its disc goes over the falls the weather is set to 0 at the end of phase III (X-BEAVER-2).
    falling = position_from_json(doc(P("red", "3", "port", card=2, hand=[1]), P("blue", "port", "port", card=3,
                                                                              hand=[1]),
                                     ruleset={"x_beaver": True}, weather=2, beaver="7L", acted=["red", "blue"]))
    engine = {p for _, p in flow_outcomes(falling, flow_value(falling))}
    assert engine == Enumerator.of(falling).flows(falling, None)
    (after,) = engine
    assert (after.beaver, after.weather) == (None, 0)


def moose_of(*players, rules=None, **fields) -> Position:
    return position_from_json(doc(*players, ruleset={"x_moose": True, **(rules or {})}, **fields))


@pytest.mark.rule("X-MOOSE-1", "X-MOOSE-2", "X-MOOSE-3")
@pytest.mark.parametrize("red, card, fields", [
    # Taken on a last disc at the start of the action, then 2 more points (the worked example).
    (("7L", "fallen"), 1, {}),
    # Two canoes on last discs: the first to act may take it, the second only if the first did not.
    (("7L", "7R:ruby"), 2, {}),
    # The holder paddles with 2 more points, and brings it home: it is returning.
    (({"at": "3", "moose": True}, "6L"), 1, {"moose": "held"}),
    # With the cloud, one canoe on a last disc may take it first.
    (("7L", "7R"), "cloud", {"weather": 1}),
])
def test_the_moose_has_the_same_outcomes_in_both_readings(red, card, fields):
    pos = moose_of(P("red", *red, hand=[1, 2, "cloud"]), P("blue", "5:amber", "port", hand=[3]), **fields)
    found = same_turns(pos, "red", Card.parse(str(card)))
    assert found


@pytest.mark.rule("X-MOOSE-1", "X-MOOSE-2")
def test_the_moose_with_the_123_card_and_the_lasso_in_both_readings():
    pos = moose_of(P("red", "7L", "7R:ruby", hand=["123", "lasso", 7]), P("blue", "port", "port", hand=[3]),
                   rules={"x_cards": True})
    for card in ("123", "lasso", "7"):
        assert same_turns(pos, "red", Card.parse(card))


@pytest.mark.rule("X-MOOSE-3")
def test_the_moose_returns_after_its_canoe_falls_in_both_readings():
    pos = moose_of(P("red", {"at": "7L", "gem": "ruby", "moose": True}, "port", card=2, hand=[1]),
                   P("blue", "port", "port", card=3, hand=[1]), moose="held", acted=["red", "blue"])
    engine = {p for _, p in flow_outcomes(pos, flow_value(pos))}
    assert engine == Enumerator.of(pos).flows(pos, None)
    (after,) = engine
    assert after.moose.value == "waiting" and not any(c.moose for p in after.players for c in p.canoes)
