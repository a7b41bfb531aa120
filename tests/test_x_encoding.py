"""The expansion in the encoding, held to the engine: the same exact outcome sets on positions that make each X rule
matter (the engine and the encoding are two independent readings of RULES.md section X)."""

from __future__ import annotations

import pytest

from helpers import P, doc, kept_enumerator
from niagara_solver.encoding.enumerate import Enumerator, IncrementalEnumerator
from niagara_solver.engine.flow import flow_outcomes, flow_value
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import Card, Colour, Moose
from niagara_solver.model.format import position_from_json
from niagara_solver.model.notation import Load, Turn, Unload
from niagara_solver.model.position import Position


def pos_of(*players, rules=None, **fields) -> Position:
    return position_from_json(doc(*players, ruleset={"x_cards": True, **(rules or {})}, **fields))


def same_turns(pos: Position, name: str, card: Card) -> set[Position]:
    """Both readings' outcomes of a turn, asserted equal; the outcomes."""
    player = pos.index(name)
    outcomes = legal_turns(pos, player, card)
    engine = {o.position for o in outcomes}
    # The encoding pins each of the engine's turns, then looks for any result outside them (check_turns), as the
    # cross-check asks it (the incremental enumerator; tests/test_evaluated.py and tests/test_crosscheck.py hold it
    # to the fresh solvers of Enumerator.check_turns). Its relations are built once for the positions of one ruleset
    # and player count (helpers.kept_enumerator).
    encoding = set(kept_enumerator(IncrementalEnumerator, pos).check_turns(pos, player, card,
                                                                           {o.position: o.turn for o in outcomes}))
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
    encoding = kept_enumerator(Enumerator, pos).flows(pos, None)
    assert engine == encoding and len(engine) == 1
    (after,) = engine
    assert [c.place for c in after.players[0].canoes] == ["7L", "fallen"]  # saved by the Lasso, put back
    assert not any(c.moored for p in after.players for c in p.canoes)


@pytest.mark.rule("X-CARDS-2", "X-CARDS-3", "X-CARDS-4", "X-DOUBLE-1", "X-DOUBLE-3", "X-BEAVER-2", "X-MOOSE-2",
                  "X-WHIRL-2", "X-WHIRL-3", "X-WHIRL-4", "X-WHIRL-5", "X-JOE-3")
@pytest.mark.parametrize("switches", [{"x_cards": True},
                                      {"x_cards": True, "lasso_scope": "one", "card_123_canoes": "all"},
                                      {"x_double": True},
                                      {"x_double": True, "x_cards": True, "double_one_cave": False},
                                      {"x_beaver": True, "x_cards": True},
                                      {"x_moose": True, "x_double": True},
                                      {"x_whirl": True, "x_joe": True},
                                      {"x_whirl": True, "x_cards": True, "whirl_cost_step": "leave",
                                       "whirl_brink": "allowed"}])
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
    assert engine == kept_enumerator(Enumerator, falling).flows(falling, None)
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


@pytest.mark.rule("X-MOOSE-2", "R-MOVE-2")
@pytest.mark.parametrize("card, rules", [("6", {}), ("7", {"x_cards": True})])
def test_a_canoe_with_the_moose_makes_four_gem_actions_at_one_stop_in_both_readings(card, rules):
    # 2 more points with the moose: a 6 pays for four gem actions where the canoe stands (8 points), a 7 for four and
    # one disc (9); the encoding's turn has room for four at each stop with the moose (gem_ops).
    pos = moose_of(P("red", {"at": "7L", "gems": ["diamond", "amber"]}, "port", hand=[int(card), 1]),
                   P("blue", "port", "port", hand=[3]), rules={"capacity": 2, **rules})
    found = same_turns(pos, "red", Card.parse(card))
    four = [str(o.turn) for o in legal_turns(pos, 0, Card.parse(card))
            if sum(isinstance(s, (Load, Unload)) for a in o.turn.actions for s in a.steps) == 4]
    assert found and four
    assert ("7L: moose -diamond -amber +ruby +ruby" in four) == (card == "6")


@pytest.mark.rule("X-MOOSE-3")
def test_the_moose_returns_after_its_canoe_falls_in_both_readings():
    pos = moose_of(P("red", {"at": "7L", "gem": "ruby", "moose": True}, "port", card=2, hand=[1]),
                   P("blue", "port", "port", card=3, hand=[1]), moose="held", acted=["red", "blue"])
    engine = {p for _, p in flow_outcomes(pos, flow_value(pos))}
    assert engine == kept_enumerator(Enumerator, pos).flows(pos, None)
    (after,) = engine
    assert after.moose.value == "waiting" and not any(c.moose for p in after.players for c in p.canoes)


def whirl_of(*players, rules=None, **fields) -> Position:
    return position_from_json(doc(*players, ruleset={"x_whirl": True, **(rules or {})}, **fields))


def same_flows(pos: Position, steps: int | None = None) -> set[Position]:
    """Both readings' outcomes of phase III (``steps`` single steps, or the flow of the cards), asserted equal."""
    from niagara_solver.engine.flow import flow_choices
    engine = {o.position for o in flow_choices(pos, flow_value(pos) if steps is None else steps)}
    assert kept_enumerator(Enumerator, pos).flows(pos, steps) == engine
    return engine


@pytest.mark.rule("X-WHIRL-2", "X-WHIRL-3", "X-WHIRL-5")
@pytest.mark.parametrize("red, whirl, rules, card, expected", [
    # X-WHIRL-3: upstream, the step onto the whirlpool costs 2; stopping on it pushes the canoe back down.
    ("5", "3", {}, 3, {"4", "6L", "6R"}),  # 5: <3 ~4 among them
    ("5", "3", {}, 4, {"2", "7L", "7R"}),  # passing it costs 3 for two steps
    ("port", "3", {}, 3, {"4", "port"}),  # downstream 1 a step: onto the whirlpool on 3, pushed to 4 (or stay)
    ("5", "3", {"whirl_cost_step": "leave"}, 3, {"4", "6L", "6R"}),  # onto it 1 a step: 5: <3 is a 2
    ("2", "1", {"whirl_cost_step": "leave"}, 2, {"4"}),  # the port step off a whirlpool on 1 costs 2
    # X-WHIRL-2: at the fork the owner picks the branch.
    ("4", "5", {}, 1, {"3", "6L", "6R"}),
    # whirl_brink: avoid, and allowed (the canoe over the falls with its sapphire).
    ({"at": "6L", "gems": ["sapphire"]}, "7L", {}, 1, {"5"}),
    ({"at": "6L", "gems": ["sapphire"]}, "7L", {"whirl_brink": "allowed"}, 1, {"5", "fallen"}),
    ({"at": "port"}, "7L", {}, 6, {"6L", "6R", "4", "port"}),
    # X-WHIRL-5: on 7L below the whirlpool on 6L with 1 point there is no action: the canoe stays.
    ("7L", "6L", {}, 1, {"7L"}),
    ("7L", "6L", {}, 2, {"7L"}),  # load a ruby, or onto the whirlpool and pushed back
    ("7L", "6L", {"whirl_cost_step": "leave"}, 2, {"7L"}),  # load a ruby
])
def test_the_whirlpool_has_the_same_turns_in_both_readings(red, whirl, rules, card, expected):
    pos = whirl_of(P("red", red, "fallen", hand=[1, 2, 3, 4, 6]), P("blue", "port", "port", hand=[5]),
                   whirlpool=whirl, rules=rules)
    found = same_turns(pos, "red", Card(card))
    assert {p.players[0].canoes[0].place for p in found} == expected
    assert all(not [c for q in p.players for c in q.canoes if c.place == p.whirlpool] for p in found)  # X-PROP-2


@pytest.mark.rule("X-WHIRL-5", "X-MOOSE-1")
def test_a_canoe_with_no_action_may_take_the_moose_and_one_with_the_moose_does_not_stay_in_both_readings():
    pos = whirl_of(P("red", "7L", "fallen", hand=[1]), P("blue", "port", "port", hand=[5]), whirlpool="6L",
                   moose="waiting", rules={"x_moose": True})
    found = same_turns(pos, "red", Card.ONE)  # 3 points with the moose pass the whirlpool: no staying
    assert "7L" not in {p.players[0].canoes[0].place for p in found} and found


@pytest.mark.rule("X-WHIRL-2", "X-JOE-3")
def test_a_pushed_canoe_neither_steals_nor_trades_in_both_readings():
    pos = whirl_of(P("red", "6L", "fallen", hand=[3]), P("blue", {"at": "5", "gems": ["ruby"]}, "port", hand=[1]),
                   whirlpool="4", joe={"at": "5", "gem": "amber"}, rules={"x_joe": True})
    found = same_turns(pos, "red", Card.THREE)
    pushed = [p for p in found if p.players[0].canoes[0].place == "5" and not p.players[0].canoes[0].gems]
    assert len(pushed) == 1 and pushed[0].players[1] == pos.players[1] and pushed[0].joe == pos.joe
    assert len(found) == 6  # the six turns of the worked example (tests/test_x_whirl.py)


@pytest.mark.rule("X-WHIRL-1")
def test_the_whirlpool_rides_and_comes_back_at_the_top_in_both_readings():
    pos = whirl_of(P("red", "port", "port"), P("blue", "port", "port"), whirlpool="6L", phase="turns")
    places = []
    for k in range(1, 7):
        (after,) = same_flows(pos, k)
        places.append(after.whirlpool)
    assert places == ["7L", "7L", "next", "1", "2", "3"]


def moored_of(whirl: str, canoe: dict, rules: dict | None = None, **fields) -> Position:
    """Both players have acted: red played the Lasso (its canoe moored), blue a 1; the flow is 1."""
    return whirl_of(P("red", canoe, "fallen", card="lasso", hand=[2, 3]), P("blue", "port", "port", card=1,
                                                                          hand=[2, 3]),
                    whirlpool=whirl, rules={"x_cards": True, **(rules or {})}, acted=["red", "blue"], **fields)


@pytest.mark.rule("X-WHIRL-4", "X-CARDS-4", "X-MOOSE-3")
@pytest.mark.parametrize("whirl, canoe, rules, fields, expected", [
    # Put back onto the whirlpool at the fork: the owner picks the branch (two outcomes).
    ("4", {"at": "5", "gems": ["amber"], "moored": True}, {}, {}, {"6L", "6R"}),
    # The worked example: the whirlpool comes down onto 7L; the canoe put back is pushed over the falls.
    ("6L", {"at": "7L", "gems": ["ruby"], "moored": True, "moose": True}, {"x_moose": True}, {"moose": "held"},
     {"fallen"}),
    ("6R", {"at": "7L", "gems": ["ruby"], "moored": True}, {}, {}, {"7L"}),
])
def test_a_canoe_put_back_onto_the_whirlpool_is_pushed_in_both_readings(whirl, canoe, rules, fields, expected):
    found = same_flows(moored_of(whirl, canoe, rules, **fields))
    assert {p.players[0].canoes[0].place for p in found} == expected
    assert all(p.moose in (None, Moose.WAITING) for p in found)


def joe_of(*players, rules=None, **fields) -> Position:
    return position_from_json(doc(*players, ruleset={"x_joe": True, **(rules or {})}, **fields))


def double(at: str, *gems: str) -> dict[str, object]:
    return {"at": at, "kind": "double", "gems": list(gems)}


@pytest.mark.rule("X-JOE-3")
@pytest.mark.parametrize("red, blue, joe, rules, card, trades", [
    ("4", ("port", "port"), {"at": "3", "gem": "ruby"}, {}, 1, 1),  # take
    ("4:amber", ("port", "port"), {"at": "3", "gem": "ruby"}, {}, 1, 1),  # swap
    ("4:ruby", ("port", "port"), {"at": "3", "gem": "ruby"}, {}, 1, 0),  # no swap of one colour
    ("4:amber", ("port", "port"), {"at": "5"}, {}, 1, 1),  # give, downstream too
    (double("4", "amber", "ruby"), ("port", double("port")), {"at": "5"}, {"x_double": True}, 1, 2),  # either gem
    (double("4", "amber", "ruby"), ("port", double("port")), {"at": "5", "gem": "ruby"}, {"x_double": True}, 1, 1),
    (double("4", "amber"), ("port", double("port")), {"at": "5", "gem": "ruby"}, {"x_double": True}, 1, 2),
    ("4", ("3:sapphire", "port"), {"at": "3"}, {}, 1, 1),  # the stolen gem given
    ("6L", ("port", "port"), {"at": "5"}, {}, 3, 2),  # a just-loaded gem given
    ("4", ("port", "port"), {"at": "4", "gem": "ruby"}, {}, 2, 0),  # no trade without moving
    ("2:amber", ("port", "port"), {"at": "1", "gem": "ruby"}, {}, 2, 0),  # nor from the port
])
def test_trades_with_joe_are_the_same_in_both_readings(red, blue, joe, rules, card, trades):
    pos = joe_of(P("red", red, "fallen", hand=[1, 2, 3]), P("blue", *blue, hand=[5]), joe=joe, rules=rules)
    found = same_turns(pos, "red", Card(card))
    assert sum(p.joe != pos.joe for p in found) == trades


@pytest.mark.rule("X-JOE-1", "X-JOE-2")
@pytest.mark.parametrize("fields, steps, expected", [
    ({"joe": {"at": "6L", "gem": "diamond"}, "fork": "L"}, 1, ("7L", "diamond")),  # rides; no card: no paddling
    ({"joe": {"at": "7L", "gem": "diamond"}, "fork": "L"}, 3, ("3", "amethyst")),  # falls, on 1, loads at 3
    ({"joe": {"at": "5"}, "ruleset": {"fork_policy": "free"}}, 1, None),
])
def test_joe_rides_falls_and_loads_in_both_readings(fields, steps, expected):
    rules = fields.pop("ruleset", {})
    found = same_flows(joe_of(P("red", "port", "port"), P("blue", "port", "port"), rules=rules, **fields), steps)
    if expected is None:
        assert sorted(p.joe.place for p in found) == ["6L", "6R"]
    else:
        (after,) = found
        assert (after.joe.place, after.joe.gem.label) == expected


def played(name: str, value: int | str, expansion: bool = False, **fields: object) -> dict[str, object]:
    """A player who played ``value`` this round (out of the hand), both canoes in the port."""
    from niagara_solver.model.atoms import EXPANSION_HAND, FULL_HAND
    card = Card.parse(value)
    hand = [c.to_json() for c in (EXPANSION_HAND if expansion else FULL_HAND) if c != card]
    return P(name, "port", "port", card=card.to_json(), hand=hand, **fields)


@pytest.mark.rule("X-JOE-2")
@pytest.mark.parametrize("red, blue, lifebuoy, joe, rules, expected", [
    (played("red", 7, True), played("blue", 1, True), "red", {"at": "3"}, {"x_cards": True}, ("6R", "amethyst")),
    (played("red", 6), played("blue", 2), "blue", {"at": "4", "gem": "ruby"}, {}, ("2", "ruby")),
    (played("red", "cloud"), played("blue", 2), "red", {"at": "4", "gem": "ruby"}, {}, ("4", "ruby")),
    (played("red", "123", True, card_budget=3), played("blue", 7, True), "red", {"at": "4", "gem": "ruby"},
     {"x_cards": True}, ("1", "ruby")),
    (played("red", "lasso", True), played("blue", 7, True), "red", {"at": "4", "gem": "ruby"}, {"x_cards": True},
     ("4", "ruby")),
])
def test_joe_paddles_by_the_lifebuoy_holders_card_in_both_readings(red, blue, lifebuoy, joe, rules, expected):
    pos = joe_of(red, blue, rules=rules, joe=joe, lifebuoy=lifebuoy, acted=["red", "blue"])
    (after,) = same_flows(pos, 0)  # no flow: Joe's step alone
    assert (after.joe.place, after.joe.gem.label) == expected


@pytest.mark.rule("X-JOE-1", "X-JOE-2", "X-WHIRL-1", "X-WHIRL-2", "R-ROUND-1")
@pytest.mark.parametrize("rules, fields", [
    ({"x_whirl": True}, {"whirlpool": "5"}),
    ({"x_joe": True}, {"joe": {"at": "7L", "gem": "ruby"}, "fork": "L"}),  # over the falls, on 1, paddles to 2
    ({"x_whirl": True, "x_joe": True}, {"whirlpool": "3", "joe": {"at": "5", "gem": "amber"}}),
])
def test_whole_rounds_with_the_whirlpool_and_joe_are_the_same_in_both_readings(rules, fields):
    from niagara_solver.model.board import standard_board
    from niagara_solver.model.ruleset import Ruleset
    from niagara_solver.verify.crosscheck.compare import CrossChecker
    pos = position_from_json(doc(P("red", "6L", "7R"), P("blue", "4:diamond", "2"), ruleset=rules, phase="cards",
                                 **fields))
    case = CrossChecker(standard_board(), Ruleset.from_json(rules), timeout=None).round(pos, {0: Card.ONE,
                                                                                            1: Card.ONE}, limit=40)
    assert case is not None and case.unknown is None
    assert set(case.encoding) == set(case.engine) and len(case.engine) >= 2


@pytest.mark.rule("X-WHIRL-1", "X-WHIRL-4")
def test_with_the_whirlpool_each_canoe_still_moves_in_the_flow_by_its_own_place_alone():
    # The symmetry the flow properties rest on (docs/PROPERTIES.md), with the whirlpool and the Lasso: a canoe's new
    # place reads its own place, mooring and push, and what every canoe shares (cards, weather, markers, whirlpool).
    import z3

    from niagara_solver.encoding.relations import Relations
    from niagara_solver.model.board import standard_board
    from niagara_solver.model.ruleset import Ruleset
    relations = Relations(standard_board(), Ruleset.from_json({"x_whirl": True, "x_cards": True}), 3)
    pre = relations.position("pre")
    step = relations.flow(pre, "flow")
    shared = {str(v) for v in [*pre.card, pre.weather, *pre.marker.values(), pre.whirl]}
    for p in range(3):
        for k in range(2):
            seen, names, stack = set(), set(), [step.post.place[p][k]]
            while stack:
                t = stack.pop()
                if t.get_id() not in seen:
                    seen.add(t.get_id())
                    if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
                        names.add(str(t))
                    stack.extend(t.children())
            assert names - shared == {str(pre.place[p][k]), str(pre.moored[p][k]), str(step.choice.pushes[p][k])}


@pytest.mark.rule("X-WHIRL-4", "X-CARDS-4")
def test_two_moored_canoes_put_back_onto_a_whirlpool_on_a_last_disc_both_fall_in_both_readings():
    # Both of red's canoes are moored on 7L; the flow brings the whirlpool from 6L onto 7L: each canoe put back is
    # pushed over the falls, the amber going home (once a canoe changed, the others are still each put back).
    pos = whirl_of(P("red", {"at": "7L", "moored": True}, {"at": "7L", "gems": ["amber"], "moored": True},
                     card="lasso", hand=[2, 3]), P("blue", "port", "port", card=1, hand=[2, 3]),
                   whirlpool="6L", rules={"x_cards": True}, acted=["red", "blue"], fork="L")
    (after,) = same_flows(pos)
    assert [c.place for c in after.players[0].canoes] == ["fallen", "fallen"]
    assert after.caves[2].get(Colour.AMBER) == pos.caves[2].get(Colour.AMBER) + 1


@pytest.mark.rule("X-DOUBLE-3")
def test_a_victim_named_by_its_kind_is_that_canoe_in_both_readings():
    pos = double_of(P("red", {"kind": S, "at": "port"}, {"kind": D, "at": "3"}, hand=[1]),
                    P("blue", {"kind": S, "at": "2", "gem": "amber"}, {"kind": D, "at": "2", "gems": ["amber"]},
                      hand=[4]))
    found = same_turns(pos, "red", Card.ONE)
    blue = {tuple(sorted((c.kind.value, len(c.gems)) for c in p.players[1].canoes)) for p in found
            if any(c.double and c.place == "2" for c in p.players[0].canoes)}
    # Red's double canoe paddles up onto 2 and takes blue's amber from either canoe, from both, or from none.
    assert blue == {(("double", d), ("single", s)) for d in (0, 1) for s in (0, 1)}


@pytest.mark.rule("X-MOOSE-2", "R-MOVE-2")
def test_why_explains_four_gem_actions_with_the_moose_and_refuses_them_without():
    # With the moose a 6 pays for four gem actions at one stop: why finds the turn legal, as the engine does; without
    # it the same turn costs more than any card (R-MOVE-3), refused before any solving.
    from niagara_solver.verify.why import why

    turn = Turn.parse("7L: -diamond -amber +ruby +ruby")
    held = moose_of(P("red", {"at": "7L", "gems": ["diamond", "amber"], "moose": True}, "port", hand=[6, 1]),
                    P("blue", "port", "port", hand=[3]), rules={"capacity": 2}, moose="held")
    assert why(held, 0, Card.SIX, turn).legal
    plain = position_from_json(doc(P("red", {"at": "7L", "gems": ["diamond", "amber"]}, "port", hand=[6, 1]),
                                   P("blue", "port", "port", hand=[3]), ruleset={"capacity": 2}))
    refused = why(plain, 0, Card.SIX, turn)
    assert not refused.legal and refused.rules == ["R-MOVE-3"] and "more than 3 gem actions" in refused.detail
