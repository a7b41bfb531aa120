"""Switch values a reading of the rules does not cover yet are refused by that reading, never answered by the base
game's rules (niagara_solver/model/readings.py): the engine, the encoding and the solver each raise
``UncoveredRulesError`` naming the switch and its rule, and the CLI turns it into one line with exit status 2."""

from __future__ import annotations

import dataclasses
import json

import pytest

from niagara_solver.cli.main import main
from niagara_solver.encoding.relations import Relations
from niagara_solver.engine.flow import flow
from niagara_solver.engine.rescue import rescue_options
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import Card, Phase
from niagara_solver.model.board import standard_board
from niagara_solver.model.format import dumps_position
from niagara_solver.model.position import Position
from niagara_solver.model.readings import NOT_COVERED, READINGS, UncoveredRulesError, covered, require, uncovered
from niagara_solver.model.ruleset import PRESETS, SWITCHES, Ruleset
from niagara_solver.solver.answers import Goal
from niagara_solver.solver.solve import answer_with

CASES = [(reading, name, value) for reading in READINGS for name, values in NOT_COVERED[reading].items()
         for value in values]


def _rules(name: str, value: object) -> Ruleset:
    return Ruleset.from_json({name: value})


def _start(rules: Ruleset) -> Position:
    names = ["a", "b", "c"]
    return Position.initial(names, standard_board(), rules).replace(phase=Phase.TURNS)


def test_the_table_names_real_switches_and_values():
    for reading in READINGS:
        for name, values in NOT_COVERED[reading].items():
            assert name in SWITCHES and values
            assert all(SWITCHES[name].parse(v) is not None and v != SWITCHES[name].default_json for v in values)


@pytest.mark.parametrize("reading, name, value", CASES, ids=[f"{r}-{n}-{v}" for r, n, v in CASES])
def test_an_uncovered_value_is_refused_by_its_reading(reading, name, value):
    rules = _rules(name, value)
    assert uncovered(rules, reading) == [name] and not covered(name, value)
    with pytest.raises(UncoveredRulesError) as err:
        require(rules, reading)
    assert err.value.path == f"ruleset.{name}" and err.value.rule == SWITCHES[name].rule
    pos = _start(rules)
    first = pos.turn_order()[0]
    if reading == "engine":
        for call in (lambda: legal_turns(pos, first, Card.ONE), lambda: flow(pos, 1),
                     lambda: rescue_options(pos.replace(phase=Phase.CARDS), 0)):
            with pytest.raises(UncoveredRulesError):
                call()
    elif reading == "encoding":
        with pytest.raises(UncoveredRulesError):
            Relations(standard_board(), rules, 3)
    else:
        with pytest.raises(UncoveredRulesError):
            answer_with(pos.replace(phase=Phase.CARDS), 0, Goal.WIN, 1, "search", 10)


def test_the_base_game_and_its_presets_are_covered_everywhere():
    for name in ("standard", "bga-2013-05-09", "bsw"):
        for reading in READINGS:
            require(PRESETS[name], reading)
    for name in ("flussgeister", "flussgeister-joe"):
        for reading in READINGS:
            assert uncovered(PRESETS[name], reading) == []


def test_the_cli_says_which_switch_is_not_covered_in_one_line(tmp_path, capsys, monkeypatch):
    # The refusal itself, with the whirlpool marked as not covered by the encoding (as before it was).
    monkeypatch.setitem(NOT_COVERED, "encoding", {"x_whirl": (True,)})
    pos = _start(dataclasses.replace(PRESETS["standard"], x_whirl=True)).replace(phase=Phase.CARDS)
    file = tmp_path / "whirl.json"
    file.write_text(dumps_position(pos))
    assert main(["show", str(file)]) == 0  # a position with the module loads and prints
    capsys.readouterr()
    for argv in (["solve", str(file), "--player", "a", "--goal", "win", "--backend", "smt"],
                 ["prove", "--ruleset", "flussgeister"], ["crosscheck", "--ruleset", "flussgeister", "--count", "1"]):
        assert main(argv) == 2, argv
        out, err = capsys.readouterr()
        assert err.count("\n") == 1 and "is not yet covered by" in err and "Traceback" not in err, (argv, err)
        assert err.rstrip().endswith("(X-WHIRL-1)") or err.rstrip().endswith("(X-CARDS-1)"), err
        assert "--json" in argv or out == "" or json.loads(out) is not None
