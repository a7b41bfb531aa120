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
    assert engine == encoding, (f"engine only: {[str(o.turn) for o in legal_turns(pos, player, card) if o.position not in encoding]}; "
                                f"encoding only: {len(encoding - engine)}")
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
