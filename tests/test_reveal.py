"""``reveal`` (R-TURN-1): with ``at_once`` every card is revealed at the start of phase II, so a player acting early
knows the cards of the players after them; the solver's answers depend on it (the legal moves do not)."""

from __future__ import annotations

import pytest

from helpers import P, doc
from niagara_solver.cli.main import main
from niagara_solver.model.format import position_from_json
from niagara_solver.model.readings import UncoveredRulesError
from niagara_solver.solver.answers import Goal
from niagara_solver.solver.solve import answer_with


def dodge(reveal: str):
    """Red, acting first with its only card 1, moves its ruby canoe from 5 to 4, 6L or 6R; blue's two empty canoes
    on 7L and 7R steal at 6L or 6R with a 1, at 4 with a 3 (R-STEAL-1). Knowing blue's card, red can always dodge."""
    return position_from_json(doc(
        P("red", "5:ruby", "fallen", hand=[1], bank={"amber": 1}), P("blue", "7L", "7R", hand=[1, 3]),
        phase="cards", ruleset={"reveal": reveal}, round=3))


@pytest.mark.rule("R-TURN-1")
def test_with_the_cards_revealed_at_once_the_first_player_dodges_the_thief():
    answer = answer_with(dodge("at_once"), 0, Goal.SAFE, 1, "search", 60)
    assert answer.word == "yes"
    line = " → ".join(answer.line)
    assert "blue reveals 1" in line and "red (1): 5: <4" in line  # with blue's 1 known, red goes to 4
    # Revealed in turn, red must move before seeing blue's card, and each of its three moves meets a thief.
    assert answer_with(dodge("in_turn"), 0, Goal.SAFE, 1, "search", 60).word == "no"


@pytest.mark.rule("R-TURN-1")
def test_the_smt_backend_refuses_reveal_at_once_instead_of_answering_by_the_turn_order(tmp_path, capsys):
    with pytest.raises(UncoveredRulesError) as err:
        answer_with(dodge("at_once"), 0, Goal.SAFE, 1, "smt", 60)
    assert err.value.rule == "R-TURN-1"
    from niagara_solver.model.format import dumps_position
    file = tmp_path / "dodge.json"
    file.write_text(dumps_position(dodge("at_once")))
    assert main(["solve", str(file), "--player", "red", "--goal", "safe", "--backend", "smt"]) == 2
    assert "R-TURN-1" in capsys.readouterr().err
