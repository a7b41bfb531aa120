"""The encoding counts a stop's gem actions (encoding/turn.py, GemActions; docs/PROVER.md, "A stop's gem actions,
counted"): a set of actions is legal at a stop in some order exactly when it is legal unloads first (R-GEM-1..4).
These tests hold that reading to the engine's, which plays the actions one by one, where the order matters: the room
(R-GEM-2) and several actions of one colour at one stop; and they check that a turn written in an order the rules
forbid is refused although the same actions in another order are legal."""

from __future__ import annotations

import pytest

from helpers import P, kept_enumerator, position
from niagara_solver.encoding.enumerate import Enumerator, IncrementalEnumerator
from niagara_solver.engine.apply import apply_turn
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import Card
from niagara_solver.model.errors import IllegalTurnError
from niagara_solver.model.notation import Turn
from niagara_solver.verify.why import why


def both_readings(pos, card):
    """The engine's outcomes of red's turn, asserted equal to every result the encoding enumerates on its own (no
    turn of the engine's given to it) and to those it finds checking the engine's turns; the engine's outcomes."""
    outcomes = legal_turns(pos, 0, card)
    engine = {o.position for o in outcomes}
    enumerator = kept_enumerator(Enumerator, pos)  # its relations built once per ruleset (helpers.kept_enumerator)
    assert set(enumerator.turns(pos, 0, card)) == engine
    assert set(enumerator.check_turns(pos, 0, card, {o.position: o.turn for o in outcomes})) == engine
    return outcomes


@pytest.mark.rule("R-GEM-1", "R-GEM-2", "R-GEM-4")
@pytest.mark.parametrize("capacity, canoe, card", [
    (1, "3:ruby", Card.SIX),            # a full canoe beside the amethyst cave: unload, then load, three actions
    (2, "3:ruby,diamond", Card.SIX),    # two places, both full
    (2, "3:ruby", Card.SIX),            # one place free: two loads of one colour, or unload and load twice
    (2, "4:amethyst,amethyst", Card.FIVE),  # two gems of one colour unloaded at one stop, then a movement
])
def test_several_gem_actions_at_one_stop_have_the_same_outcomes_in_both_readings(capacity, canoe, card):
    pos = position(P("red", canoe, "fallen", hand=[int(card)]), P("blue", "port", "port", hand=[1]),
                   ruleset={"base": "standard", "capacity": capacity})
    outcomes = both_readings(pos, card)
    several = [str(o.turn) for o in outcomes if sum(s.__class__.__name__ in ("Load", "Unload")
                                                    for a in o.turn.actions for s in a.steps) >= 2]
    assert several  # the case is about several actions at one stop


@pytest.mark.rule("R-GEM-2")
@pytest.mark.parametrize("capacity, canoe, card, legal, illegal", [
    (1, "3:ruby", Card.FOUR, "3: -ruby +amethyst", "3: +amethyst -ruby"),
    (2, "3:ruby,diamond", Card.SIX, "3: -ruby +amethyst <1", "3: +amethyst -ruby <1"),
    (2, "3:ruby", Card.SIX, "3: -ruby +amethyst +amethyst", "3: +amethyst +amethyst -ruby"),
])
def test_a_load_written_before_the_unload_that_makes_room_is_refused(capacity, canoe, card, legal, illegal):
    # The same actions, counted alike: the encoding accepts them unloads first and refuses the written order that
    # loads into a full canoe, as the engine does (R-GEM-2).
    pos = position(P("red", canoe, "fallen", hand=[int(card)]), P("blue", "port", "port", hand=[1]),
                   ruleset={"base": "standard", "capacity": capacity})
    good, bad = Turn.parse(legal), Turn.parse(illegal)
    after = apply_turn(pos, 0, good, card).position
    with pytest.raises(IllegalTurnError) as refused:
        apply_turn(pos, 0, bad, card)
    assert refused.value.rule == "R-GEM-2"
    assert why(pos, 0, card, good).legal
    explained = why(pos, 0, card, bad)
    assert (explained.legal, explained.rules, explained.agree) == (False, ["R-GEM-2"], True)
    # Checking a claimed set (the cross-check): the claimed turn is refused, so its position is not confirmed (the
    # cross-check reports it as the engine's alone); every other outcome is found, and the same position claimed
    # by the legal order is confirmed.
    enumerator = kept_enumerator(IncrementalEnumerator, pos)  # its relations built once for both claims, and kept
    engine = {o.position for o in legal_turns(pos, 0, card)}
    found = enumerator.check_turns(pos, 0, card, {after: bad})
    assert set(found) == engine - {after}
    found = enumerator.check_turns(pos, 0, card, {after: good})
    assert set(found) == engine and found[after] == legal
