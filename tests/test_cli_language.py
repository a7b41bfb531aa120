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


def test_the_top_help_gives_every_command_a_usage_line(capsys):
    # `niagara-solve --help` opens with one usage line per command: a stranger finds every command there, not only
    # in click's list below it.
    text = help_text(capsys, "niagara-solve").split("Each command's --help", 1)[0]
    listed = {line.split()[1] for line in text.splitlines() if line.strip().startswith("niagara-solve ")}
    assert set(cli.commands) - listed == {"analyze"}  # analyze is the bare `niagara-solve POSITION` line
    assert "niagara-solve POSITION " in text


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
SAME_MEANING = {"--out": "where the command writes what it makes: a picture file (render), a report folder (report)",
                "--html": "where the command writes its pages: one page (play, solve, replay), "
                          "a folder of pages (simulate)"}


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


def test_timeout_is_the_commands_limit_in_every_command_and_a_comparisons_limit_has_its_own_name(capsys):
    # Once: crosscheck --timeout was each comparison's limit (60 s), not the command's.
    helps = {name: next(p.help for p in command.params if p.name == "timeout")
             for name, command in cli.commands.items() if any(p.name == "timeout" for p in command.params)}
    assert "crosscheck" in helps and len(set(helps.values())) == 1, helps
    assert next(iter(helps.values())).startswith("The command's time limit")
    case = next(p for p in cli.commands["crosscheck"].params if p.name == "case_timeout")
    assert case.opts == ["--case-timeout"] and case.default == 60.0
    # Past the command's limit no further position is compared, and the run is unknown (exit 3), not agreement.
    status, out, _ = run(capsys, "crosscheck", "--count", "2", "--no-rounds", "--no-cache", "--timeout", "0.1",
                         "--json")
    data = json.loads(out)
    assert status == 3 and data["unfinished"] == "the time limit ran out before every position planned was compared"
    assert data["mismatches"] == []


def test_play_reads_players_as_every_command_does(capsys):
    # Once: play --players 2-3 failed with click's "not a valid integer range".
    status, out, _ = run(capsys, "play", "--players", "3-3", "--rounds", "1", "--json")
    assert status == 0 and len(json.loads(out)["position"]["players"]) == 3
    assert refused(capsys, "play", "--players", "2-3") == (
        "niagara-solve: error: --players: play plays one game: give one count of players, not '2-3' "
        "(simulate --players 2-3 plays games of several counts) (R-COMP-1)")
    assert refused(capsys, "play", "--players", "2-x") == (
        "niagara-solve: error: --players: write a count (5), a range (2-5) or a list (2,3,5), got '2-x' (R-COMP-1)")


def test_jobs_says_what_each_command_runs_in_processes():
    helps = {name: next(p.help for p in command.params if p.name == "jobs")
             for name, command in cli.commands.items() if any(p.name == "jobs" for p in command.params)}
    assert helps["simulate"].startswith("Run the games (10 to a task) in this many processes")
    assert helps["check"].startswith("Run the proofs (one per player count) and the puzzles in this many processes")
    assert helps["crosscheck"].startswith("Run the positions' comparisons")
    assert not [name for name, text in helps.items() if "checks" in text]  # a game is no check


def test_the_rescue_note_spells_the_option_as_its_help_does(capsys):
    # Green has a fallen canoe and gems to pay with: its rescue is a choice the note points to.
    status, out, _ = run(capsys, "turns", os.path.join(ROOT, "puzzles", "steal-on-the-way-home.json"),
                         "--player", "red", "--card", "2")
    assert status == 0
    assert ("note: phase I: no rescue assumed for green (R-RESCUE-1; use --rescue NAME=CHOICE, CHOICE none, free, or "
            "the colour paid)") in out.splitlines()
    option = next(p for p in cli.commands["turns"].params if p.name == "rescue_texts")
    assert option.metavar == "NAME=CHOICE" and "none, free, or the colour paid" in (option.help or "")


def test_solve_says_where_it_wrote_the_certificate(tmp_path, capsys):
    puzzle = os.path.join(ROOT, "puzzles", "win-two-gems-home.json")
    target = tmp_path / "red.certificate"
    status, out, _ = run(capsys, "solve", puzzle, "--certificate", str(target))
    assert status == 0 and target.exists()
    assert out.splitlines()[-1] == (f"certificate written to {target} "
                                    f"(niagara-solve certify {puzzle} {target} checks it)")
    status, out, _ = run(capsys, "solve", puzzle, "--certificate", str(target), "--json")
    assert status == 0 and json.loads(out)["certificate_file"] == str(target)


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
    from niagara_solver.verify.mutants import BY_NAME, MutantResult, mutant_verdict
    ids = ["R-PROP-1", "R-PROP-3", "R-PROP-6"]

    def check_mutants(board, rules, players, names, timeout, progress=None):
        calls.append(players)
        out = []
        for name in [n for n in BY_NAME if n in names]:  # in the catalogue's order, as the real check
            by = kills[players].get(name, [])
            results = [PropertyResult(i, i, Verdict.REFUTED if i in by else Verdict.CONFIRMED, 0.25, "m", (), ())
                       for i in ids]
            out.append(MutantResult(BY_NAME[name], mutant_verdict(results), by, results, 1.0))
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


def test_solve_asks_a_puzzle_files_own_question(capsys):
    # Once: solve wanted --player and --goal even for a puzzle file, which says both.
    puzzle = os.path.join(ROOT, "puzzles", "win-two-gems-home.json")
    own = run(capsys, "solve", puzzle, "--json")
    spelled = run(capsys, "solve", puzzle, "--player", "red", "--goal", "win", "--horizon", "1", "--json")
    assert own[0] == spelled[0] == 0
    asked, answered = json.loads(own[1]), json.loads(spelled[1])
    for answer in (asked, answered):
        for backend in answer.get("answers", []):
            backend.pop("seconds", None)
        answer.pop("seconds", None)
    assert asked == answered
    # An option replaces that part of the question: blue cannot win this round.
    status, out, _ = run(capsys, "solve", puzzle, "--player", "blue")
    assert status == 0 and out.startswith("Can blue force a win this round, whatever the others do? NO")
    status, out, _ = run(capsys, "solve", puzzle, "--goal", "safe", "--horizon", "2")
    assert status == 0 and out.startswith("Can red keep every gem safe within 2 rounds")


def test_solve_without_a_question_names_the_missing_options(capsys):
    assert refused(capsys, "solve", ERRATUM) == (
        f"niagara-solve: error: solve: --player and --goal are needed: {ERRATUM} asks no question (it has no "
        '"puzzle" object) (niagara-solve solve --help)')
    assert refused(capsys, "solve", ERRATUM, "--player", "red") == (
        f"niagara-solve: error: solve: --goal is needed: {ERRATUM} asks no question (it has no "
        '"puzzle" object) (niagara-solve solve --help)')


@pytest.mark.parametrize("puzzle, path, message", [
    ({"player": "mauve", "goal": "win"}, "puzzle.player",
     "'mauve' is no player of the position; the players: red, blue"),
    ({"player": "red", "goal": "wim"}, "puzzle.goal", "'wim' is not a goal; the goals: win, steal, safe"),
    ({"player": "red", "goal": "win", "horizon": 0}, "puzzle.horizon", "0 is not a number of rounds from 1 to 6"),
    ({"player": "red", "goal": "win", "horizon": True}, "puzzle.horizon", "True is not a number of rounds from 1 to 6"),
    ("win", "puzzle", "must be an object with the question's player, goal and horizon"),
])
def test_a_bad_puzzle_question_is_refused_naming_its_path(tmp_path, capsys, puzzle, path, message):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**doc(P("red", "port", "3"), P("blue", "port", "port")), "puzzle": puzzle}))
    assert refused(capsys, "solve", str(bad)) == f"niagara-solve: error: {bad}: {path}: {message} (FORMAT)"
    from niagara_solver.solver.puzzles import PuzzleStatus, puzzle_job
    job = puzzle_job(str(bad), None, 10)  # check, diff, sweep: the puzzle is invalid, not a crash
    assert job["status"] == PuzzleStatus.INVALID and job["error"] == f"{bad}: {path}: {message} (FORMAT)"


def test_a_puzzle_without_a_recorded_answer_is_invalid_for_a_regression_run(tmp_path, capsys):
    from niagara_solver.solver.puzzles import PuzzleStatus, puzzle_job
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps({**doc(P("red", "port", "3"), P("blue", "port", "port")),
                               "puzzle": {"player": "red", "goal": "steal", "answer": "maybe"}}))
    job = puzzle_job(str(odd), None, 10)
    assert job["status"] == PuzzleStatus.INVALID and job["error"] == (
        f"{odd}: puzzle.answer: 'maybe' is not a recorded answer (yes or no) (FORMAT)")
    status, out, _ = run(capsys, "solve", str(odd))  # the question alone is still asked
    assert status == 0 and out.startswith("Can red force a steal this round, whatever the others do? NO")


# -- 6. make run installs the tool alone, make test the test tools too ------------------------------------------------

def make_plan(target: str) -> str:
    """What ``make TARGET`` would run from scratch (``-n``: nothing runs; ``-B``: as if nothing were installed)."""
    return subprocess.run(["make", "-n", "-B", "-C", ROOT, target], capture_output=True, text=True, check=True).stdout


def test_make_run_installs_only_the_tool_and_make_test_the_test_extra():
    run_plan, test_plan = make_plan("run"), make_plan("test")
    assert "pip install --quiet -e .\n" in run_plan and "[test]" not in run_plan
    assert "niagara-solve puzzles/steal-on-the-way-home.json" in run_plan
    assert "pip install --quiet -e '.[test]'" in test_plan and "pytest" in test_plan


# -- 7. why: names that do not exist are refused as such; a legal turn shows what it did ---------------------------

@pytest.mark.parametrize("turn, line", [
    ("4: xnobody/ruby", "canoe action 1 ('4: xnobody/ruby'): no player is named 'nobody'; the players: red, blue "
                        "(NOTATION)"),
    ("4: >9", "canoe action 1 ('4: >9'): no such disc '9' on this river; its discs: 1, 2, 3, 4, 5, 6L, 6R, 7L, 7R "
              "(NOTATION)"),
    ("9: >5", "canoe action 1 ('9: >5'): no such disc '9' on this river; its discs: 1, 2, 3, 4, 5, 6L, 6R, 7L, 7R "
              "(NOTATION)"),
    ("port: >5; 4: <x", "canoe action 2 ('4: <x'): no such disc 'x' on this river; its discs: 1, 2, 3, 4, 5, 6L, 6R, "
                        "7L, 7R (NOTATION)"),
])
def test_why_refuses_an_unknown_victim_or_disc_naming_it(capsys, turn, line):
    # Once: R-STEAL-3 was blamed for a steal from nobody, R-MOVE-4 (or R-TURN-3) for a disc that does not exist.
    for extra in ([], ["--json"]):
        assert refused(capsys, "why", ERRATUM, "--player", "red", "--card", "5", "--turn", turn, *extra) == (
            f"niagara-solve: error: {line}")


def test_why_still_names_the_rule_for_the_falls_and_a_player_robbing_themself(capsys):
    status, out, _ = run(capsys, "why", ERRATUM, "--player", "red", "--card", "5", "--turn", "4: >falls")
    assert status == 0 and "ILLEGAL. Forbidden by:\n  R-MOVE-4" in out


def test_why_shows_what_a_legal_turn_banked(capsys):
    # Once: a legal turn showed only the position after it, not that the canoe on 4 banked its ruby.
    status, out, _ = run(capsys, "why", ERRATUM, "--player", "red", "--card", "5", "--turn", "4: <port; port: >5")
    assert status == 0
    assert out.split("\n\nThe position after it:")[0].splitlines()[1:] == [
        "LEGAL.",
        "spent          ends     loaded    unloaded    banked    stolen",
        "-------------  -------  --------  ----------  --------  --------",
        "4: 4; port: 5  port; 5                        ruby; -"]
    status, out, _ = run(capsys, "why", ERRATUM, "--player", "red", "--card", "5", "--turn", "4: <port; port: >5",
                         "--json")
    assert json.loads(out)["canoes"] == [
        {"start": "4", "end": "port", "spent": 4, "loaded": [], "unloaded": [], "banked": ["ruby"], "stolen": []},
        {"start": "port", "end": "5", "spent": 5, "loaded": [], "unloaded": [], "banked": [], "stolen": []}]


# -- 8. the analysis and the tables explain every mark and label every column ------------------------------------------

def test_the_players_table_explains_the_lifebuoy_and_fills_the_goal_column(capsys):
    # Once: "*" was never explained and the goal column was blank unless the goal was reached.
    status, out, _ = run(capsys, "show", ERRATUM)
    assert status == 0 and out.splitlines()[-6:] == [
        "player    canoes          hand           card    bank         value  goal",
        "--------  --------------  -------------  ------  ---------  -------  ---------",
        "red *     port; 4 (ruby)  1 2 5 6 cloud  5       none             0  4 to bank",
        "blue      2 (amber); 6L   1 3 4 6 cloud  -       1 diamond        2  3 to bank",
        "* holds the lifebuoy: acts first in phase II (R-COMP-5, R-TURN-1)",
        "goal: reached, or the fewest gems still to bank for 7 gems, one of each colour or 4 of one (R-END-1)"]


@pytest.mark.parametrize("bank, short", [({}, 4), ({"ruby": 3}, 1), ({"ruby": 1, "amber": 1, "diamond": 1,
                                                                      "sapphire": 1}, 1),
                                         ({"ruby": 2, "amber": 2, "diamond": 2}, 1), ({"ruby": 4}, 0),
                                         ({"amethyst": 1, "diamond": 1}, 3)])
def test_gems_to_goal_is_the_nearest_of_the_three_goals(bank, short):
    from niagara_solver.model.format import position_from_json
    from niagara_solver.report.text import gems_to_goal, goal_text
    pos = position_from_json(doc(P("red", "port", "port", bank=bank), P("blue", "port", "port")))
    assert gems_to_goal(pos.players[0]) == short
    assert goal_text(pos.players[0]) == ("reached" if short == 0 else f"{short} to bank")


def _table(out: str, title: str) -> list[str]:
    """The lines of the table printed under a title line of the analysis."""
    return out.split(title + "\n", 1)[1].split("\n\n", 1)[0].splitlines()


def test_the_analysis_labels_every_column_and_shows_may_fall_only_when_it_can(tmp_path, capsys):
    # Once: the steal table had an unlabelled column; "may fall at" was an empty, unexplained column.
    status, out, _ = run(capsys, os.path.join(ROOT, "puzzles", "steal-on-the-way-home.json"))
    assert status == 0
    steals = _table(out, "Steal chances this round (possible: for some play of the players before; sure: for every "
                         "play):")
    assert steals[0].split() == ["player", "card", "possible", "from", "sure", "from"]
    assert steals[1].split() == ["--------", "------", "---------------", "-----------"]
    falls = _table(out, "Fall risk (flows that carry a canoe over the falls if it stays):")
    assert falls[0].split() == ["player", "canoe", "falls", "at", "flow"]
    free = tmp_path / "free.json"
    free.write_text(json.dumps(doc(P("red", "7L:ruby", "port"), P("blue", "port", "port"), phase="cards",
                                   ruleset={"fork_policy": "free"})))
    status, out, _ = run(capsys, str(free))
    assert status == 0 and _table(out, "Fall risk (flows that carry a canoe over the falls if it stays):") == [
        "player    canoe      falls at flow    may fall at flow",
        "--------  ---------  ---------------  ----------------------",
        "red       7L (ruby)  never            1, 2, 3, 4, 5, 6, 7, 8",
        "  (falls at: whichever branches the discs take; may fall at: on some branches only, fork_policy free, "
        "R-FLOW-4)"]


def test_an_answer_reads_as_one_card_and_one_quoted_turn(capsys):
    # Once: "play 2, then 1: <port; 2: <port" read like two cards.
    from niagara_solver.report.text import play_text
    assert play_text("2", "1: <port; 2: <port") == 'play card 2, turn "1: <port; 2: <port"'
    assert play_text("lasso", "lasso") == "play card lasso"
    assert play_text(None, "4: <port") == 'play the chosen card, turn "4: <port"'
    status, out, _ = run(capsys, "solve", os.path.join(ROOT, "puzzles", "win-two-gems-home.json"), "--player", "red",
                         "--goal", "win")
    assert status == 0 and '  play card 2, turn "1: <port; 2: <port"\n' in out


def test_prove_and_mutants_tables_name_every_column(capsys):
    # Once: prove's "property" header spanned two columns; the mutants' verdict column had no name.
    status, out, _ = run(capsys, "prove", "--players", "2", "--property", "R-PROP-3")
    assert status == 0 and out.splitlines()[1].split() == ["id", "property", "verdict", "seconds", "method",
                                                           "depends", "on"]
    assert out.splitlines()[3].startswith("R-PROP-3  gem conservation  PROVED")


def test_diff_properties_table_names_every_column(monkeypatch, capsys):
    # Once: the diff's properties table ended with an unlabelled column.
    from niagara_solver.design.diff import DiffReport, PropertyDiff
    from niagara_solver.model.ruleset import PRESETS
    from niagara_solver.model.board import standard_board
    props = (PropertyDiff("R-PROP-1", "no reverse flow", Verdict.PROVED, Verdict.PROVED, (0.1, 0.1)),
             PropertyDiff("R-PROP-2", "fork alternation", Verdict.PROVED, Verdict.REFUTED, (0.1, 0.1)),
             PropertyDiff("R-PROP-3", "gem conservation", Verdict.PROVED, Verdict.UNKNOWN, (0.1, 0.1)))
    report = DiffReport(PRESETS["standard"], PRESETS["bga-2013-05-09"], standard_board(), [2], list(props), [], [],
                        1.0)
    monkeypatch.setattr("niagara_solver.design.diff.diff", lambda *a, **k: report)
    status, out, _ = run(capsys, "diff", "standard", "bga-2013-05-09")
    assert _table(out, "properties (for all positions):") == [
        "id        property          A       B        A → B",
        "--------  ----------------  ------  -------  -------",
        "R-PROP-1  no reverse flow   PROVED  PROVED   same",
        "R-PROP-2  fork alternation  PROVED  REFUTED  changed",
        "R-PROP-3  gem conservation  PROVED  UNKNOWN  unknown"]
    assert [p.changed for p in props] == [False, True, False]  # out of time is not a change


# -- 9. the bundled puzzles, wherever the command runs -----------------------------------------------------------------

def test_check_diff_and_report_find_the_bundled_puzzles_outside_the_repository(tmp_path, monkeypatch, capsys,
                                                                             shared):
    # Once: diff looked for ./puzzles and report failed outside the repository.
    from niagara_solver.cli.common import PUZZLES
    from niagara_solver.model.puzzles import bundled_puzzles, puzzle_paths
    monkeypatch.chdir(tmp_path)
    assert PUZZLES.convert("bundled", None, None) == bundled_puzzles()
    defaults = {name: next(p.default for p in cli.commands[name].params if p.name == "puzzles_dir")
                for name in ("diff", "report")}
    assert defaults == {"diff": "bundled", "report": "bundled"}
    status, out, _ = run(capsys, "check", "--puzzles", "bundled", "--players", "2", "--json")
    assert status == 0
    puzzles = [path for path in puzzle_paths(bundled_puzzles()) if '"puzzle"' in open(path, encoding="utf-8").read()]
    assert len(puzzles) >= 20 and sorted(p["path"] for p in json.loads(out)["puzzles"]) == puzzles
    assert refused(capsys, "check", "--puzzles", "puzzles") == (
        "niagara-solve: error: check: invalid value for '--puzzles': folder 'puzzles' does not exist (or write "
        "bundled for the bundled puzzles) (niagara-solve check --help)")


# -- plain words ------------------------------------------------------------------------------------------------

def test_the_budget_rule_says_what_a_legal_port_entry_shows(capsys):
    # Once: R-MOVE-3 read "spends exactly the points of the card" beside a legal turn into the port spending 4 of 5.
    from niagara_solver.model.catalogue import sentence
    status, out, _ = run(capsys, "why", ERRATUM, "--player", "red", "--card", "5", "--turn", "4: <port; port: >5")
    assert status == 0 and "4: 4; port: 5" in out  # the canoe on 4 enters the port with 4 of its 5 points
    assert sentence("R-MOVE-3") == ("A canoe spends exactly its budget, the card's points, unless it enters the port "
                                    "moving upstream, where the points left over are lost (R-MOVE-5).")


def test_the_fall_risk_of_an_answer_reads_as_a_sentence(capsys):
    # Once: "7R (ruby) falls at flow 2, 3, 4, 5, 6, 7, 8" and "falls at flow never".
    from niagara_solver.model.verdict import Verdict
    from niagara_solver.report.text import answer_text
    from niagara_solver.solver.answers import Answer, Goal
    status, out, _ = run(capsys, "solve", os.path.join(ROOT, "puzzles", "steal-on-the-way-home.json"), "--player",
                         "red", "--goal", "safe")
    assert status == 0
    assert out.splitlines()[-2:] == ["  the canoe on 4: over the falls at a flow of 6 to 8",
                                     "  the canoe on 7R (ruby): over the falls at a flow of 2 to 8"]
    answer = Answer(Verdict.REFUTED, "red", Goal.SAFE, 1, "search",
                    details={"falls": [{"canoe": "1", "falls at": []},
                                       {"canoe": "6L", "falls at": [3, 5], "may fall at": [2]}]})
    assert answer_text(answer).splitlines()[-2:] == [
        "  the canoe on 1: no flow this round takes it over the falls",
        "  the canoe on 6L: over the falls at a flow of 3 or 5 (and perhaps at 2, by the branches taken)"]
