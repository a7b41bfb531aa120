"""The command line speaks one language: a mistyped command is named as one, every option and command explains
itself with an example, an option name means one thing in every command, ``round`` says whose turn failed, and
every error (click's own too) is one line on standard error with exit status 2."""

import json
import os
import re
import shlex
import subprocess

import click
import pytest

from helpers import P, doc
from niagara_solver.cli.main import cli, main
from niagara_solver.model.verdict import Verdict
from niagara_solver.verify.prove import PropertyResult

ROOT = os.path.join(os.path.dirname(__file__), "..")
ERRATUM = os.path.join(ROOT, "puzzles", "erratum-two-canoes.json")
COMMANDS = ", ".join(sorted(cli.commands))


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def refused(capsys, *argv) -> str:
    """Exit 2, nothing on standard output, one line on standard error without a traceback; returns the line."""
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "", (status, out, err)
    assert err.startswith("niagara-solve: error: ") and err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err.rstrip("\n")


# -- 1. a mistyped command is not read as a position file ----------------------------------------------------------

@pytest.mark.parametrize("argv, line", [
    (["shwo", "x.json"], 'niagara-solve: error: no such command "shwo"; did you mean "show"?'),
    (["chek", "--players", "2"], 'niagara-solve: error: no such command "chek"; did you mean "check"?'),
    (["sove", ERRATUM], 'niagara-solve: error: no such command "sove"; did you mean "solve" or "prove"?'),
    (["rnder"], 'niagara-solve: error: no such command "rnder"; did you mean "render" or "round"?'),
    (["rounds", ERRATUM, "--play", "blue=3"], 'niagara-solve: error: no such command "rounds"; did you mean "round"?'),
])
def test_a_mistyped_command_is_named_with_the_closest_commands(tmp_path, monkeypatch, capsys, argv, line):
    monkeypatch.chdir(tmp_path)  # where no file has the mistyped name
    assert refused(capsys, *argv) == line


@pytest.mark.parametrize("word", ["nowhere.json", "frobnicate", "shwo.json", "puzzles/shwo"])
def test_a_first_word_that_is_neither_a_file_nor_close_to_a_command_is_a_missing_file(tmp_path, monkeypatch, capsys,
                                                                                      word):
    monkeypatch.chdir(tmp_path)
    assert refused(capsys, word, "--json") == (
        f"niagara-solve: error: {word}: no such file, and no command of that name; the commands (niagara-solve "
        f"--help): {COMMANDS} (FORMAT)")


def test_a_position_file_is_still_the_default_analysis_even_when_its_name_looks_like_a_command(tmp_path, monkeypatch,
                                                                                               capsys):
    monkeypatch.chdir(tmp_path)
    with open(ERRATUM, encoding="utf-8") as f:
        (tmp_path / "shwo").write_text(f.read(), encoding="utf-8")
    expected = run(capsys, "analyze", ERRATUM)
    assert expected[0] == 0 and "Forced win this round" in expected[1]
    assert run(capsys, "shwo") == expected
    assert run(capsys, ERRATUM) == expected


# -- 2. every option has a help line, every command an example -------------------------------------------------------

def commands() -> dict[str, click.Command]:
    return {"niagara-solve": cli, **cli.commands}


def help_text(capsys, name: str) -> str:
    status, out, err = run(capsys, "--help") if name == "niagara-solve" else run(capsys, name, "--help")
    assert status == 0 and err == ""
    return out


def examples(text: str) -> list[str]:
    """The command lines of the "Examples:" block of a help text (a line ending with a backslash goes on)."""
    lines = text.split("Examples:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    joined = " ".join(line.strip() for line in lines).replace(" \\ ", " ")
    return ["niagara-solve " + line.strip() for line in joined.split("niagara-solve ") if line.strip()]


@pytest.mark.parametrize("name", list(commands()))
def test_every_option_has_a_help_line_and_every_command_an_example(capsys, name):
    command = commands()[name]
    text = help_text(capsys, name)
    assert "Example" in text, name
    for param in command.params:
        if isinstance(param, click.Option) and not param.hidden:
            assert param.help, f"{name} {param.opts[0]} has no help line"
            assert param.help.split()[0] in text, (name, param.opts[0])  # and the help shows it
    assert examples(text), name


@pytest.mark.parametrize("name", list(commands()))
def test_every_example_is_a_valid_invocation_of_bundled_files(monkeypatch, capsys, name):
    monkeypatch.chdir(ROOT)
    for line in examples(help_text(capsys, name)):
        args = shlex.split(line)[1:]
        for arg in args:
            if arg.endswith(".json"):
                assert os.path.isfile(arg), f"{line}: no file {arg}"
        if "--help" in args:
            continue
        command_name, rest = (args[0], args[1:]) if args[0] in cli.commands else ("analyze", args)
        if name != "niagara-solve":
            assert command_name == name, line
        cli.commands[command_name].make_context(command_name, rest)  # the options parse and convert


@pytest.mark.parametrize("argv", [
    ["show", "puzzles/erratum-two-canoes.json"],
    ["turns", "puzzles/erratum-two-canoes.json", "--player", "blue", "--card", "3", "--json"],
    ["flow", "puzzles/long-river.json", "--steps", "2"],
    ["round", "puzzles/erratum-two-canoes.json", "--play", "blue=3", "--act", "red=4: <port; port: >5",
     "--act", "blue=2: <port; 6L: <3"],
])
def test_the_quick_examples_run(monkeypatch, capsys, argv):
    monkeypatch.chdir(ROOT)
    assert " ".join(shlex.quote(a) for a in ["niagara-solve", *argv]) in " ".join(
        shlex.join(shlex.split(line)) for line in examples(help_text(capsys, argv[0])))
    status, out, err = run(capsys, *argv)
    assert status == 0 and err == "" and out


# -- 3. one meaning per option name ----------------------------------------------------------------------------------

#: An option name whose value takes a different form by command, with the one meaning it keeps.
SAME_MEANING = {"--out": "where the command writes what it makes: a picture file (render), a report folder (report)"}


def test_an_option_name_takes_one_form_in_every_command():
    forms: dict[str, set[str]] = {}
    for name, command in cli.commands.items():
        ctx = click.Context(command, info_name=name)
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                forms.setdefault(param.opts[0], set()).add(param.make_metavar(ctx))
    mixed = {option: sorted(metavars) for option, metavars in forms.items() if len(metavars) > 1}
    assert set(mixed) == set(SAME_MEANING), mixed
    assert forms["--card"] == {"CARD"} and forms["--turn"] == {"TURN"} and forms["--player"] == {"NAME"}
    assert forms["--players"] == {"COUNTS"} and forms["--play"] == {"NAME=CARD"} and forms["--act"] == {"NAME=TURN"}
    assert forms["--rescue"] == {"NAME=CHOICE"}


def test_round_takes_play_and_act_and_still_the_earlier_card_and_turn(capsys):
    new = run(capsys, "round", ERRATUM, "--play", "blue=3", "--act", "red=4: <port; port: >5",
              "--act", "blue=2: <port; 6L: <3", "--json")
    old = run(capsys, "round", ERRATUM, "--card", "blue=3", "--turn", "red=4: <port; port: >5",
              "--turn", "blue=2: <port; 6L: <3", "--json")
    mixed = run(capsys, "round", ERRATUM, "--card", "blue=3", "--act", "red=4: <port; port: >5",
                "--turn", "blue=2: <port; 6L: <3", "--json")
    assert new[0] == 0 and new == old == mixed
    data = json.loads(new[1])
    assert [t["player"] for t in data["turns"]] == ["red", "blue"] and data["flow"] == 3


def fake_mutants(kills: dict[int, dict[str, list[str]]], calls: list[int]):
    """A stand-in for the mutant check: for each player count, the properties refuting each mutant."""
    from niagara_solver.verify.mutants import BY_NAME, MutantResult
    ids = ["R-PROP-1", "R-PROP-3", "R-PROP-6"]

    def check_mutants(board, rules, players, names, timeout):
        calls.append(players)
        out = []
        for name in [n for n in BY_NAME if n in names]:  # in the catalogue's order, as the real check
            by = kills[players].get(name, [])
            results = [PropertyResult(i, i, Verdict.REFUTED if i in by else Verdict.CONFIRMED, 0.25, "m", (), ())
                       for i in ids]
            out.append(MutantResult(BY_NAME[name], bool(by), by, results, 1.0))
        return out
    return check_mutants


def test_mutants_take_player_counts_as_prove_does(monkeypatch, capsys):
    # A mutant is killed when the catalogue refutes it for some count; by: every property that does, in order.
    calls: list[int] = []
    kills = {2: {"two-gems": ["R-PROP-6"]}, 3: {"two-gems": ["R-PROP-1", "R-PROP-6"], "free-loading": ["R-PROP-3"]}}
    monkeypatch.setattr("niagara_solver.verify.mutants.check_mutants", fake_mutants(kills, calls))
    status, out, _ = run(capsys, "mutants", "--players", "2-3", "--mutant", "two-gems", "--mutant", "free-loading",
                         "--json")
    assert status == 0 and calls == [2, 3]
    assert [(m["mutant"], m["killed"], m["by"], m["seconds"]) for m in json.loads(out)] == [
        ("free-loading", True, ["R-PROP-3"], 2.0), ("two-gems", True, ["R-PROP-1", "R-PROP-6"], 2.0)]
    calls.clear()
    status, out, _ = run(capsys, "mutants", "--players", "2", "--mutant", "two-gems", "--mutant", "free-loading",
                         "--json")
    assert status == 1 and calls == [2]  # a single count, as before: free-loading survives with 2 players
    assert [(m["mutant"], m["killed"], m["by"]) for m in json.loads(out)] == [
        ("free-loading", False, []), ("two-gems", True, ["R-PROP-6"])]
    calls.clear()
    assert run(capsys, "mutants", "--players", "3,2", "--mutant", "two-gems", "--json")[0] == 0 and calls == [3, 2]


def test_mutants_refuse_player_counts_as_prove_does(capsys):
    for argv in (["mutants", "--players", "2-6"], ["prove", "--players", "2-6"]):
        assert refused(capsys, *argv) == ("niagara-solve: error: --players: 2 to 5 players play under standard, not 6 "
                                          "(X-SIX-1)")


# -- 4. round: whose turn failed; each player once --------------------------------------------------------------------

@pytest.mark.parametrize("argv, line", [
    # red acts first (the lifebuoy) and its turn breaks R-MOVE-3
    (["--play", "blue=3", "--act", "red=4: <port; port: >6L", "--act", "blue=2: <port; 6L: <3"],
     "--act red: paddling 6 disc(s) down to 6L costs 6 point(s) but only 5 of 5 remain (R-MOVE-3)"),
    # red's turn is legal; blue's, second, is not
    (["--play", "blue=3", "--act", "red=4: <port; port: >5", "--act", "blue=2: <port; 6L: <9"],
     "--act blue: '9' is not a disc of this river (R-MOVE-4)"),
    # the earlier spelling is named as written
    (["--card", "blue=3", "--turn", "red=4: <port; port: >6L", "--turn", "blue=2: <port; 6L: <3"],
     "--turn red: paddling 6 disc(s) down to 6L costs 6 point(s) but only 5 of 5 remain (R-MOVE-3)"),
    # a turn that is not in the notation
    (["--play", "blue=3", "--act", "red=4: <port; port: >5", "--act", "blue=2: <port; 6L <3"],
     "--act blue: canoe action 2 ('6L <3'): start with the canoe's place and a colon, e.g. \"4: <port\" (NOTATION)"),
])
def test_round_names_the_player_whose_turn_failed(capsys, argv, line):
    assert refused(capsys, "round", ERRATUM, *argv) == f"niagara-solve: error: {line}"


def test_round_names_the_player_whose_card_is_not_a_card(capsys):
    line = refused(capsys, "round", ERRATUM, "--play", "blue=9")
    assert line.startswith("niagara-solve: error: --play blue: ") and "'9'" in line and line.endswith("(R-COMP-2)")


@pytest.mark.parametrize("argv, line", [
    (["--card", "blue=3", "--card", "blue=4"],
     "--card: blue plays one card a round, given twice: '3' and '4' (R-CARD-1)"),
    (["--play", "blue=3", "--card", "blue=3"],
     "--card: blue plays one card a round, given twice: '3' and '3' (R-CARD-1)"),
    (["--play", "blue=3", "--act", "red=4: <port", "--act", "red=stay"],
     "--act: red acts once a round, given twice: '4: <port' and 'stay' (R-TURN-1)"),
    (["--play", "blue=3", "--rescue", "red=none", "--rescue", "red=free"],
     "--rescue: red decides phase I once, given twice: 'none' and 'free' (R-RESCUE-1)"),
])
def test_round_refuses_a_player_given_twice(capsys, argv, line):
    assert refused(capsys, "round", ERRATUM, *argv) == f"niagara-solve: error: {line}"


def test_turns_refuses_a_rescue_given_twice(capsys):
    assert refused(capsys, "turns", ERRATUM, "--player", "red", "--rescue", "red=none", "--rescue", "red=free") == (
        "niagara-solve: error: --rescue: red decides phase I once, given twice: 'none' and 'free' (R-RESCUE-1)")


# -- 5. click's usage errors: exit 2, one line, no traceback; the tool's own errors name the path and the rule ------

@pytest.mark.parametrize("argv, line", [
    (["--bogus"], "no such option '--bogus' (niagara-solve --help)"),
    (["show", "--bogus", ERRATUM], "show: no such option '--bogus' (niagara-solve show --help)"),
    (["show"], "show: missing argument 'POSITION' (niagara-solve show --help)"),
    (["turns", ERRATUM], "turns: missing option '--player' (niagara-solve turns --help)"),
    (["solve", ERRATUM, "--player", "red", "--goal", "wim"],
     "solve: invalid value for '--goal': 'wim' is not one of 'win', 'steal', 'safe' (niagara-solve solve --help)"),
    (["show", ERRATUM, "extra"], "show: got unexpected extra argument (extra) (niagara-solve show --help)"),
    (["play", ERRATUM, "--seed"], "play: option '--seed' requires an argument (niagara-solve play --help)"),
    (["turns", ERRATUM, "--plyer", "red"],
     "turns: no such option '--plyer'; did you mean '--player'? (niagara-solve turns --help)"),
])
def test_click_usage_errors_are_one_line_with_exit_2(capsys, argv, line):
    assert refused(capsys, *argv) == f"niagara-solve: error: {line}"


@pytest.mark.parametrize("argv", [
    ["show", "--jsn", ERRATUM], ["play", ERRATUM, "--seed", "abc"], ["play", ERRATUM, "--rounds", "0"],
    ["solve", ERRATUM, "--player", "red", "--goal", "win", "--horizon", "9"], ["check", "--puzzles", "/nowhere"],
    ["render", "--out"], ["mutants", "--json", "--json=1"],
])
def test_every_usage_error_is_one_line_ending_with_where_to_look(capsys, argv):
    line = refused(capsys, *argv)
    assert re.fullmatch(r"niagara-solve: error: (\w+: )?.+ \(niagara-solve( \w+)? --help\)", line), line


def test_the_tools_own_errors_keep_path_message_and_rule(tmp_path, capsys):
    assert refused(capsys, "prove", "--players", "9") == (
        "niagara-solve: error: --players: 2 to 6 players play (6 with x_sixth_player), got '9' (R-COMP-1)")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc(P("red", "port:ruby", "3"), P("blue", "port", "port"))))
    for command in (["show"], ["turns", "--player", "red"], []):
        assert refused(capsys, *command, str(bad)) == (
            f"niagara-solve: error: {bad}: players[0].canoes[0].gem: a canoe in the port carries no gem: it was banked "
            "(R-GEM-5)")


# -- 6. make run installs the tool alone, make test the test tools too ------------------------------------------------

def make_plan(target: str) -> str:
    """What ``make TARGET`` would run from scratch (``-n``: nothing runs; ``-B``: as if nothing were installed)."""
    return subprocess.run(["make", "-n", "-B", "-C", ROOT, target], capture_output=True, text=True, check=True).stdout


def test_make_run_installs_only_the_tool_and_make_test_the_test_extra():
    run_plan, test_plan = make_plan("run"), make_plan("test")
    assert "pip install --quiet -e .\n" in run_plan and "[test]" not in run_plan
    assert "niagara-solve puzzles/steal-on-the-way-home.json" in run_plan
    assert "pip install --quiet -e '.[test]'" in test_plan and "pytest" in test_plan
