"""Results are typed records and the library makes every decision: the merged verdicts and exit statuses the commands
return, closed sets of values as enums (whose values are the words the JSON has always used), one public ``solve``
and one ``certify`` (docs/ARCHITECTURE.md, "Results and verdicts" and the cli room)."""

import ast
import errno
import json
import os
import subprocess
import sys
import typing

import pytest

import niagara_solver as ns
from niagara_solver import api
from niagara_solver.design.check import CheckReport
from niagara_solver.design.diff import PropertyDiff, fewest_players, players_for_witnesses, shared_players
from niagara_solver.model.atoms import Phase
from niagara_solver.model.errors import InputError
from niagara_solver.model.ruleset import SWITCHES, Ruleset
from niagara_solver.model.switches import PHASES, SwitchPhase
from niagara_solver.model.verdict import Verdict
from niagara_solver.solver.analysis import Analysis
from niagara_solver.solver.answers import Answer, AnsweredBy, Goal
from niagara_solver.solver.certificate import CLAIMS, KINDS, Claim, CNode, NodeKind, loads_certificate
from niagara_solver.solver.puzzles import PuzzleQuestion, question_asked
from niagara_solver.solver.solve import Solution
from niagara_solver.verify.crosscheck import CrosscheckReport, GoalStatus
from niagara_solver.verify.mutants import BY_NAME, MutantReport, MutantResult, merge_counts, mutant_verdict
from niagara_solver.verify.prove import PropertyResult

C, U, R = Verdict.CONFIRMED, Verdict.UNKNOWN, Verdict.REFUTED
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "niagara_solver")


# -- the mutants: merged over player counts, and the run's exit status, in verify/mutants.py --------------------------

def _run(name, verdicts, seconds=1.0):
    """A mutant's check for one player count: the properties R-PROP-1, -3, -6 with these verdicts."""
    results = [PropertyResult(pid, pid, v, 0.25, "m", (), ()) for pid, v in zip(("R-PROP-1", "R-PROP-3", "R-PROP-6"),
                                                                                 verdicts)]
    return MutantResult(BY_NAME[name], mutant_verdict(results), [r.id for r in results if r.verdict is R], results,
                        seconds)


def test_a_mutant_is_killed_by_a_refutation_survives_every_proof_and_is_otherwise_unknown():
    killed, survived, unknown = _run("two-gems", (C, R, C)), _run("two-gems", (C, C, C)), _run("two-gems", (C, U, C))
    assert [m.verdict for m in (killed, survived, unknown)] == [C, R, U]
    assert [(m.killed, m.survived, m.word) for m in (killed, survived, unknown)] == [
        (True, False, "killed"), (False, True, "SURVIVED"), (False, False, "UNKNOWN")]
    assert [(d["killed"], d["survived"], d["by"]) for d in (m.to_json() for m in (killed, survived, unknown))] == [
        (True, False, ["R-PROP-3"]), (False, True, []), (False, False, [])]


def test_one_player_count_that_kills_a_mutant_kills_it():
    merged = merge_counts([_run("two-gems", (C, C, R), 1.5), _run("two-gems", (R, C, R), 2.0)])
    assert merged.verdict is C and merged.by == ["R-PROP-1", "R-PROP-6"] and merged.seconds == 3.5
    assert len(merged.results) == 6
    assert merge_counts([_run("two-gems", (C, C, C)), _run("two-gems", (C, R, C))]).verdict is C
    assert merge_counts([_run("two-gems", (C, C, C)), _run("two-gems", (U, C, C))]).verdict is U
    assert merge_counts([_run("two-gems", (C, C, C)), _run("two-gems", (C, C, C))]).verdict is R


@pytest.mark.parametrize("verdicts, status", [((C, C), 0), ((C, R), 1), ((C, U), 3), ((U, R), 1)])
def test_the_mutants_exit_status_is_the_reports(verdicts, status):
    runs = {C: (R, C, C), U: (U, C, C), R: (C, C, C)}
    report = MutantReport([_run(name, runs[v]) for name, v in zip(("free-loading", "two-gems"), verdicts)], (2,))
    assert report.exit_status == status
    assert [m["mutant"] for m in report.to_json()] == ["free-loading", "two-gems"]


def test_an_unknown_mutant_is_refused_by_the_library(capsys):
    with pytest.raises(InputError) as err:
        ns.mutants(names=["two-gem"])
    assert err.value.path == "--mutant" and "did you mean" in str(err.value) and err.value.rule == "R-PROP"


# -- the cross-check, why, check and diff decide in the library -------------------------------------------------------

def test_a_crosscheck_reports_its_goals_typed_and_words_them_as_before():
    report = CrosscheckReport(goals={"a": GoalStatus.MET, "b": GoalStatus.UNREACHABLE, "c": GoalStatus.UNKNOWN})
    assert report.unreachable_goals == ["b"] and report.unfound_goals == ["c"]
    assert report.verdict is U and report.exit_status == 3
    assert report.to_json()["goals"] == {"a": "checked", "b": "unreachable under these rules",
                                         "c": "unknown: no position was found in time"}
    assert CrosscheckReport(goals={"a": GoalStatus.MET}).exit_status == 0
    assert [s.value for s in GoalStatus] == ["met", "unreachable", "unknown"]


def test_a_check_sorts_its_properties_and_puzzles_by_verdict():
    properties = [{"id": "R-PROP-1", "verdict": "proved"}, {"id": "R-PROP-2", "verdict": "refuted"},
                  {"id": "R-PROP-3", "verdict": "unknown"}, {"id": "X-PROP-1", "verdict": "not applicable"}]
    puzzles = [{"name": n, "status": s} for n, s in (("a", "same"), ("b", "changed"), ("c", "invalid"),
                                                      ("d", "unknown"))]
    report = CheckReport(properties, puzzles)
    assert [[p["id"] for p in report.properties_by(v)] for v in (C, R, U, None)] == [
        ["R-PROP-1"], ["R-PROP-2"], ["R-PROP-3"], ["X-PROP-1"]]
    assert [[p["name"] for p in report.puzzles_by(v)] for v in (C, R, U, None)] == [["a"], ["b"], ["d"], ["c"]]
    assert not report.checked_nothing and CheckReport(properties[3:]).checked_nothing


def test_a_property_diff_says_its_change():
    def change(a, b, reasons=("", "")):
        return PropertyDiff("R-PROP-1", "t", a, b, (0.0, 0.0), reasons=reasons).change
    assert [change(C, R), change(C, C), change(U, C)] == ["changed", "same", "unknown"]
    assert change(None, C, ("x_moose is off", "")) == "not applicable in A (x_moose is off)"


def test_the_players_of_a_diff_are_the_librarys():
    standard, six = Ruleset(), Ruleset.from_json({"x_sixth_player": True})
    assert shared_players(standard, six) == [3, 4, 5] and fewest_players(standard, six) == 3
    assert fewest_players(standard, Ruleset.from_json({"capacity": 2})) == 2
    assert players_for_witnesses(standard, six, [4, 5]) == 4
    assert players_for_witnesses(standard, standard, [4, 5]) == 2
    two_only = Ruleset.from_json({"gems_per_colour": {"2": 5}})
    with pytest.raises(InputError) as err:
        fewest_players(two_only, six)
    assert err.value.path == "--players" and err.value.rule == "X-SIX-1"


def test_a_puzzles_question_with_the_options_that_replace_its_parts():
    puzzle = PuzzleQuestion(1, Goal.STEAL, 2)
    assert question_asked(puzzle) == puzzle
    assert question_asked(puzzle, 0, None, 3) == PuzzleQuestion(0, Goal.STEAL, 3)
    assert question_asked(None, 0, Goal.WIN) == PuzzleQuestion(0, Goal.WIN, 1)
    with pytest.raises(ValueError):
        question_asked(None, 0)


# -- typed results: the enums' values are the JSON's words ----------------------------------------------------------

def test_a_solution_has_its_answers_verdict():
    yes = Answer(C, "red", Goal.WIN, 1, AnsweredBy.SEARCH)
    unknown = Answer(U, "red", Goal.WIN, 1, AnsweredBy.CERTIFICATE)
    solution = Solution((yes, unknown))
    assert solution.verdict is C and solution.word == "yes" and solution.exit_status == 3
    data = solution.to_json()
    assert data["verdict"] == "yes" and list(data["backends"]) == ["search", "certificate"]
    assert json.loads(json.dumps(data))["backend"] == "search"
    pos = ns.load_position(os.path.join(ROOT, "puzzles", "a-sure-steal.json"))
    solved = ns.solve(pos, "red", "steal")
    assert solved.verdict is solved.answer.verdict is C and solved.word == "yes"


def test_who_answered_is_typed_and_read_back_from_its_word():
    assert [a.value for a in AnsweredBy] == ["search", "smt", "certificate"]
    answer = Answer(R, "blue", Goal.SAFE, 1, "smt")  # a word read back, as a report reads an answer's JSON
    assert answer.backend is AnsweredBy.SMT and answer.to_json()["backend"] == "smt"


def test_a_certificates_kinds_and_claims_are_typed_and_written_as_before():
    assert [k.value for k in KINDS] == ["card", "turn", "rescue", "flow", "leaf"]
    assert [c.value for c in CLAIMS] == ["over", "end", "steal", "rest", "unreached", "bound", "empty", "sure-steal",
                                        "any-steal", "sure-win"]
    leaf = CNode("leaf", 0, claim="rest", value=True)
    assert leaf.kind is NodeKind.LEAF and leaf.claim is Claim.REST
    assert leaf.to_json(["red"]) == {"kind": "leaf", "at": 0, "claim": "rest", "value": True}
    pos = ns.load_position(os.path.join(ROOT, "puzzles", "win-two-gems-home.json"))
    from niagara_solver.solver.proof import certificate
    from niagara_solver.solver.search import Search
    search = Search(0, Goal.WIN, 1, 60)
    cert = certificate(search, pos, search.value(pos).value)
    text = json.dumps(cert.to_json())
    again = loads_certificate(text)
    assert json.dumps(again.to_json()) == text
    assert {type(n.kind) for n in again.nodes} == {NodeKind}
    assert {type(n.claim) for n in again.nodes if n.kind is NodeKind.LEAF} == {Claim}


def test_a_switchs_phases_are_typed_and_not_a_positions_phase():
    assert [p.value for p in PHASES] == ["setup", "rescue", "turn", "flow", "end", "knowledge"]
    assert all(isinstance(p, SwitchPhase) for row in SWITCHES.values() for p in row.phases)
    assert SWITCHES["rescue_limit"].phases == (SwitchPhase.RESCUE,) and SWITCHES["reveal"].phases[0] == "knowledge"
    assert not {p.value for p in Phase} & {p.value for p in SwitchPhase}


def test_the_api_returns_typed_records():
    hints = {name: typing.get_type_hints(getattr(api, name))["return"] for name in ("analyze", "crosscheck", "mutants")}
    assert hints == {"analyze": Analysis, "crosscheck": CrosscheckReport, "mutants": MutantReport}
    over = ns.load_position(os.path.join(ROOT, "puzzles", "the-game-is-over.json"))
    analysis = ns.analyze(over)
    assert isinstance(analysis, Analysis) and analysis.finished and analysis.to_json() == {
        "finished": True, "winners": analysis.winners}


# -- one public solve, one certify, and the type checker's names ------------------------------------------------------

def _defined(name):
    """Every module-level function of the package with this name, as ``path``."""
    found = []
    for folder, _, files in os.walk(PACKAGE):
        for file in files:
            if file.endswith(".py"):
                path = os.path.join(folder, file)
                with open(path, encoding="utf-8") as f:
                    tree = ast.parse(f.read())
                found += [os.path.relpath(path, ROOT) for node in tree.body
                          if isinstance(node, ast.FunctionDef) and node.name == name]
    return found


def test_one_solve_and_one_certify():
    assert _defined("solve") == [os.path.join("niagara_solver", "api.py")]
    assert _defined("certify") == [os.path.join("niagara_solver", "api.py")]


def test_the_type_checker_sees_every_public_name_of_the_api():
    with open(os.path.join(PACKAGE, "__init__.py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    guarded = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    seen = {alias.name for node in guarded.body if isinstance(node, ast.ImportFrom)
            and node.module == "niagara_solver.api" for alias in node.names}
    assert seen == {name for name, module in ns._PUBLIC.items() if module == "niagara_solver.api"}
    assert seen <= set(api.__all__)


# -- the edge decides nothing: a game played, a flow, an error's exit status are the library's -------------------------

START_4P = os.path.join(ROOT, "puzzles", "start-4p.json")


def test_a_played_game_says_whether_it_is_over_and_who_won():
    from niagara_solver.play.playout import play_out

    start = ns.load_position(START_4P)
    shown = []
    game = play_out(start, 7, 100, "lookahead", shown.append)
    assert game.finished and game.winners == ("yellow",) and game.last_round == 10  # R-END-2, R-END-3
    assert len(game.records) == 10 and list(game.records) == shown and game.final == game.records[-1].end
    assert game.to_json()["finished"] is True and game.to_json()["winners"] == ["yellow"]
    stopped = play_out(start, 7, 5, "uniform")
    assert not stopped.finished and stopped.winners == () and len(stopped.records) == 5
    over = ns.load_position(os.path.join(ROOT, "puzzles", "the-game-is-over.json"))
    ended = play_out(over, 1, 100, "lookahead")  # no round is played after the round that ended the game
    assert ended.records == () and ended.final == over and ended.finished and ended.winners == ("red",)


def test_a_flow_lists_every_outcome_only_where_the_branches_are_open():
    from niagara_solver.engine.flow import flow_report
    from niagara_solver.report.text import flow_text

    river = ns.load_position(os.path.join(ROOT, "puzzles", "long-river.json"))
    free = river.replace(ruleset=ns.load_ruleset(os.path.join(ROOT, "puzzles", "rulesets", "free-fork.json")))
    open_ = flow_report(free, 3)  # fork_policy free, two forks, no branches said: every outcome (R-FLOW-4)
    assert open_.branches_open and open_.result is None and len(open_.outcomes) == 18
    assert len(open_.to_json()) == 18 and flow_text(open_).startswith(
        "fork_policy free: 18 distinct outcome(s) of 3 step(s) (R-FLOW-4)\n\nbranches 6=L,6=L,6=L:\n")
    said = flow_report(free, 1, open_.outcomes[0][0][:1])
    assert not said.branches_open and said.outcomes == () and said.result is not None
    assert not flow_report(free, 0).branches_open  # no step, no branch to choose
    assert not flow_report(river, 3).branches_open  # fork_policy alternate: the markers decide
    erratum = ns.load_position(os.path.join(ROOT, "puzzles", "erratum-two-canoes.json"))
    falls = flow_report(erratum, 6)
    assert [(o, d) for o, d, _ in falls.result.fell] == [(1, "7L"), (0, "7L")]
    assert flow_text(falls).startswith(
        "The river flows 6 step(s); over the falls: blue from 7L, red from 7L (ruby back to its cave).\n\n")


def test_how_a_command_ends_on_each_error_is_the_librarys(monkeypatch, capsys):
    from niagara_solver.cli import main as cli
    from niagara_solver.model.errors import EXPECTED, Failure, IllegalTurnError, failure_of
    from niagara_solver.model.readings import UncoveredRulesError

    bad = InputError("players[0]", "bad", "FORMAT", "p.json")
    assert failure_of(bad) == Failure(2, "p.json: players[0]: bad (FORMAT)")
    assert failure_of(IllegalTurnError("no", "R-MOVE-1")) == Failure(2, "no (R-MOVE-1)")
    assert failure_of(UncoveredRulesError("", "not yet", "X-WHIRL-1")).exit_status == 2
    assert failure_of(InputError("", "a\nb", "FORMAT")) == Failure(2, "a\\nb (FORMAT)")  # one line, whatever it says
    assert failure_of(TimeoutError("the solver gave no answer in time")) == Failure(
        3, "the time limit ran out (--timeout): the solver gave no answer in time")  # unknown, as a verdict's
    assert failure_of(FileNotFoundError(2, "No such file or directory", "out/x.svg")) == Failure(
        2, "cannot write out/x.svg: No such file or directory")
    assert failure_of(PermissionError("denied")) == Failure(2, "cannot write: denied")
    assert failure_of(BrokenPipeError()) == Failure(0, None)  # the reader took what it wanted
    # The command line says and returns what the library decided.
    said_by = [(TimeoutError("out"), 3, "niagara-solve: error: the time limit ran out (--timeout): out\n"),
               (BrokenPipeError(), 0, ""), (bad, 2, f"niagara-solve: error: {bad}\n"),
               (BrokenPipeError(errno.EPIPE, "Broken pipe"), 0, "")]  # as the OS raises it: click made that 1
    for error, status, said in said_by:
        assert isinstance(error, EXPECTED)

        def fail(*args, error=error, **kwargs):
            raise error

        monkeypatch.setattr(cli, "flow_report", fail)
        assert cli.main(["flow", START_4P, "--steps", "1"]) == status
        assert capsys.readouterr().err == said


def test_the_phase_a_proof_a_goal_or_a_witness_is_about_is_a_switchs_phase():
    # One vocabulary for the parts of a game (SwitchPhase), read back from the words the JSON has always used.
    from niagara_solver.design.witnesses import witness_from_json
    from niagara_solver.verify.crosscheck.goals import GOALS
    from niagara_solver.verify.properties import BY_ID, CATALOGUE
    from niagara_solver.verify.prove import not_asked

    assert all(isinstance(p, SwitchPhase) for prop in CATALOGUE for p, _ in prop.obligations)
    asked = not_asked(BY_ID["R-PROP-3"])
    assert asked.phases == (SwitchPhase.RESCUE, SwitchPhase.TURN, SwitchPhase.FLOW)
    assert asked.to_json()["phases"] == ["rescue", "turn", "flow"]
    assert asked.method == "one-phase proof (rescue, turn, flow)"
    assert all(isinstance(g.phase, SwitchPhase) for g in GOALS)
    steal_back = next(g for g in GOALS if g.name == "steal-a-stolen-gem")  # once the phase "two-turns"
    assert steal_back.phase is SwitchPhase.TURN and steal_back.turns == 2
    for word, phase in [("flow", SwitchPhase.FLOW), ("module", None)]:
        witness = witness_from_json({"switch": "min_flow", "a": 0, "b": 1, "phase": word, "verdict": "unknown",
                                     "rules": [], "summary": "", "detail": [], "seconds": 0.0})
        assert witness.phase is phase and witness.to_json()["phase"] == word


def test_a_command_whose_reader_closes_its_output_early_ends_with_status_0_silently() -> None:
    # `niagara-solve play ... | head -1`: the rest of the game cannot be written. Click ended such a command with 1,
    # the status of a failed check (a CI job reading `check | head` would have failed).
    code = "import sys; sys.argv[0] = 'niagara-solve'; from niagara_solver.cli.main import run; run()"
    with subprocess.Popen([sys.executable, "-c", code, "play", START_4P, "--seed", "1"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.readline().startswith(b"Round 1")
        process.stdout.close()
        assert process.wait(timeout=120) == 0
        assert process.stderr.read() == b""
