"""The flat public API (``import niagara_solver as ns``): each call gives exactly what the deeper modules give,
with friendly arguments, and the README's library example runs as written."""

import contextlib
import io
import json
import os
import re

import pytest

import niagara_solver as ns
from niagara_solver.engine.rescue import begin_turns
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import Card
from niagara_solver.model.errors import InputError
from niagara_solver.model.format import load_position
from niagara_solver.model.verdict import Verdict
from niagara_solver.solver.answers import Goal
from niagara_solver.solver.solve import answer_with

ROOT = os.path.join(os.path.dirname(__file__), "..")
ERRATUM = os.path.join(ROOT, "puzzles", "erratum-two-canoes.json")


def test_legal_turns_by_name_and_card_number_are_the_engines():
    pos = load_position(ERRATUM)
    expected = [(str(o.turn), o.position) for o in legal_turns(begin_turns(pos), pos.index("red"), Card.FIVE)]
    for card in (5, "5", Card.FIVE):
        assert [(str(o.turn), o.position) for o in ns.legal_turns(ns.load_position(ERRATUM), "red", card)] == expected
    assert [(str(o.turn), o.position) for o in ns.legal_turns(pos, pos.index("red"), 5)] == expected


def test_play_turn_gives_the_outcomes_position():
    pos = ns.load_position(ERRATUM)
    for outcome in ns.legal_turns(pos, "red", 5)[:5]:
        assert ns.play_turn(pos, "red", str(outcome.turn), 5) == outcome.position


def test_unknown_player_and_bad_card_are_input_errors_naming_the_rule():
    pos = ns.load_position(ERRATUM)
    with pytest.raises(InputError, match=r"unknown player 'nobody'.*\(R-COMP-1\)"):
        ns.legal_turns(pos, "nobody", 5)
    with pytest.raises(InputError, match=r"no seat 9.*\(R-COMP-1\)"):
        ns.legal_turns(pos, 9, 5)
    with pytest.raises(InputError, match=r"R-COMP-2"):
        ns.legal_turns(pos, "red", 9)


def test_solve_is_the_solvers_answer():
    path = os.path.join(ROOT, "puzzles", "win-two-gems-home.json")
    pos = ns.load_position(path)
    with open(path, encoding="utf-8") as f:
        puzzle = json.load(f)["puzzle"]
    solution = ns.solve(pos, puzzle["player"], puzzle["goal"], puzzle.get("horizon", 1))
    direct = answer_with(pos, pos.index(puzzle["player"]), Goal(puzzle["goal"]), puzzle.get("horizon", 1))
    assert solution.answer.word == puzzle["answer"] == direct.word
    assert solution.answer.to_json() | {"seconds": 0} == direct.to_json() | {"seconds": 0}
    assert solution.exit_status == 0 and solution.agree


def test_prove_merges_player_counts():
    report = ns.prove("standard", players=[2, 3], ids=["R-PROP-3", "R-PROP-1"])
    assert [p.id for p in report.properties] == ["R-PROP-3", "R-PROP-1"]  # in the order asked
    assert all(dict(p.by_players) == {2: Verdict.PROVED, 3: Verdict.PROVED} for p in report.properties)
    assert report.verdict is Verdict.PROVED and report.exit_status == 0
    refuted = ns.prove(os.path.join(ROOT, "puzzles", "rulesets", "free-fork.json"), players=[2], ids=["R-PROP-2"])
    assert refuted.verdict is Verdict.REFUTED and refuted.exit_status == 1
    (prop,) = refuted.properties
    assert prop.refuted is not None and prop.refuted[0] == 2 and prop.to_json()["counterexample_players"] == 2


def test_a_result_says_its_word_and_a_bank_reads_and_evaluates():
    # Once: prove(...).verdict printed Verdict.CONFIRMED where the command line says PROVED, and a bank printed as
    # Gems((2, 0, 0, 0, 0)).
    from niagara_solver.model.atoms import Gems
    report = ns.prove("standard", players=[2], ids=["R-PROP-8"])
    assert (report.word, report.properties[0].word) == ("proved", "proved")
    assert report.verdict is Verdict.PROVED is Verdict.CONFIRMED
    bank = ns.load_position(ERRATUM).players[1].bank
    assert (str(bank), repr(bank)) == ("1 diamond", "Gems(diamond=1)")
    assert eval(repr(bank), {"Gems": Gems}) == bank and (str(Gems()), repr(Gems())) == ("none", "Gems()")
    assert Gems(amethyst=2, ruby=1) == Gems((2, 0, 0, 0, 1))


def test_one_default_time_limit_per_command_for_the_library_and_the_command_line():
    # Once: solve's limit was 60 s from the library and 120 s from the command line.
    import inspect
    from niagara_solver.cli.main import cli
    from niagara_solver.model import limits

    def cli_default(command: str) -> float:
        return next(p.default for p in cli.commands[command].params if p.name == "timeout")

    def api_default(function) -> float:
        return inspect.signature(function).parameters["timeout"].default
    assert api_default(ns.solve) == cli_default("solve") == limits.SOLVE_TIMEOUT == 120
    assert api_default(ns.certify) == cli_default("certify") == limits.SOLVE_TIMEOUT
    assert api_default(ns.analyze) == cli_default("analyze") == limits.ANALYZE_TIMEOUT
    for function, command in ((ns.prove, "prove"), (ns.check, "check"), (ns.diff, "diff")):
        assert api_default(function) == cli_default(command) == limits.PROVE_TIMEOUT
    assert api_default(ns.crosscheck) == cli_default("crosscheck") == limits.CROSSCHECK_TIMEOUT
    case = inspect.signature(ns.crosscheck).parameters["case_timeout"].default
    assert case == next(p.default for p in cli.commands["crosscheck"].params if p.name == "case_timeout")


def test_unknown_property_is_an_input_error():
    with pytest.raises(InputError, match="unknown property 'R-PROP-99'"):
        ns.prove(ids=["R-PROP-99"])


def test_bundled_puzzles_are_found_from_anywhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = ns.bundled_puzzles()
    assert folder is not None
    assert sorted(n for n in os.listdir(folder) if n.endswith(".json")) == \
        sorted(n for n in os.listdir(os.path.join(ROOT, "puzzles")) if n.endswith(".json"))


def test_the_readmes_library_example_runs(monkeypatch):
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("## Library"):]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code.group(1), "README.md", "exec"), {})
    lines = out.getvalue().splitlines()
    pos = ns.load_position(ERRATUM)
    outcomes = ns.legal_turns(pos, "red", 5)
    assert lines[:len(outcomes)] == [f"{o.turn} {o.position.players[0].bank}" for o in outcomes]
    assert lines[len(outcomes):] == [ns.solve(pos, "red", "win").answer.word, "proved"]
    assert lines[0] == "4: -ruby +diamond <3 none"  # a bank prints as the game says it


def test_public_names_load_lazily_and_are_listed():
    assert set(ns.__all__) >= {"load_position", "legal_turns", "solve", "prove", "Verdict", "Card", "Turn"}
    for name in ns.__all__:
        assert getattr(ns, name) is not None
    with pytest.raises(AttributeError):
        ns.no_such_name  # noqa: B018
