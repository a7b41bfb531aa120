"""The designers' and CI's commands: render, check, diff (witnesses), sweep, report, parallel runs and progress."""

import io
import itertools
import json
import os
import shutil
import xml.etree.ElementTree as ET

import pytest

from helpers import pending_switches
from niagara_solver.design.witnesses import switch_witness, witness_from_json, witness_task
from niagara_solver.jobs import Progress, run_all, task_key
from niagara_solver.verify.jobs import prove_task
from niagara_solver.model.board import Board, standard_board
from niagara_solver.cli.main import main
from niagara_solver.engine.apply import apply_turn
from niagara_solver.model.notation import Steal, Turn, Unload
from niagara_solver.engine.rescue import rescue_options
from niagara_solver.engine.turns import legal_turns
from niagara_solver.report.svg import render_svg
from niagara_solver.model.atoms import Card
from niagara_solver.model.format import load_document, load_position, position_from_json
from niagara_solver.model.invariants import position_problems
from niagara_solver.model.ruleset import PRESETS, SWITCHES, Ruleset
from niagara_solver.model.verdict import Verdict

ROOT = os.path.join(os.path.dirname(__file__), "..")
PUZZLES = os.path.join(ROOT, "puzzles")
SVG = "{http://www.w3.org/2000/svg}"
STANDARD, BGA = PRESETS["standard"], PRESETS["bga-2013-05-09"]
STRAIGHT = Board.from_json({"name": "straight",
                            "river": {"1": "2", "2": "3", "3": "4", "4": "5", "5": "6", "6": "falls"},
                            "caves": {"amethyst": ["2"], "diamond": ["3"], "amber": ["4"], "sapphire": ["5"],
                                      "ruby": ["6"]}})


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def puzzle_folder(tmp_path, *names):
    folder = tmp_path / "puzzles"
    folder.mkdir()
    for name in names:
        shutil.copy(os.path.join(PUZZLES, f"{name}.json"), folder / f"{os.path.basename(name)}.json")
    return folder


def canoes(svg: str) -> list[ET.Element]:
    root = ET.fromstring(svg)  # well formed, or this raises
    assert root.tag == f"{SVG}svg"
    return [g for g in root.iter(f"{SVG}g") if g.get("class") == "canoe"]


# -- render -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(n[:-5] for n in os.listdir(PUZZLES) if n.endswith(".json")))
def test_every_bundled_position_renders_as_well_formed_svg_showing_every_canoe(name):
    pos = load_position(os.path.join(PUZZLES, f"{name}.json"))
    shown = canoes(render_svg(pos))
    assert len(shown) == 2 * len(pos.players)
    expected = sorted((p.name, c.place) for p in pos.players for c in p.canoes)
    assert sorted((g.get("data-player"), g.get("data-place")) for g in shown) == expected


def test_render_draws_a_legal_turn_as_one_path_per_acting_canoe(tmp_path, capsys):
    path = os.path.join(PUZZLES, "steal-after-unloading.json")
    out = tmp_path / "answer.svg"
    status, text, _ = run(capsys, "render", path, "--player", "red", "--card", "4", "--turn", "4: -ruby <2 xblue/amber",
                          "--out", str(out))
    assert status == 0 and str(out) in text
    root = ET.parse(out).getroot()
    paths = [e for e in root.iter(f"{SVG}polyline") if e.get("class") == "turn"]
    assert len(paths) == 1 and paths[0].findtext(f"{SVG}title") == "4: -ruby <2 xblue/amber"
    status, svg, _ = run(capsys, "render", path)  # standard output without --out
    assert status == 0 and len(canoes(svg)) == 4


def test_render_refuses_an_illegal_turn_naming_the_rule(capsys):
    path = os.path.join(PUZZLES, "steal-after-unloading.json")
    status, out, err = run(capsys, "render", path, "--ruleset", "bga-2013-05-09", "--player", "red", "--card", "4",
                           "--turn", "4: -ruby <2 xblue/amber")
    assert status == 2 and out == "" and "(R-STEAL-5)" in err
    status, _, err = run(capsys, "render", path, "--turn", "4: <2")
    assert status == 2 and "--player" in err


def test_an_output_that_cannot_be_written_is_an_error_not_a_traceback(tmp_path, capsys):
    path = os.path.join(PUZZLES, "steal-after-unloading.json")
    missing = tmp_path / "no-such-folder" / "picture.svg"
    status, out, err = run(capsys, "render", path, "--out", str(missing))
    assert status == 2 and out == ""
    assert err == f"niagara-solve: error: cannot write {missing}: No such file or directory\n"
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    status, _, err = run(capsys, "report", "--out", str(blocker / "report"))  # refused before any work
    assert status == 2 and err.startswith(f"niagara-solve: error: cannot write {blocker / 'report'}")
    junit = tmp_path / "no-such-folder" / "results.xml"
    status, out, err = run(capsys, "check", "--players", "2", "--junit", str(junit))  # before the proofs, too
    assert status == 2 and out == ""
    assert err == f"niagara-solve: error: cannot write {junit}: No such file or directory\n"


def test_diff_names_the_argument_with_an_unknown_preset(capsys):
    status, out, err = run(capsys, "diff", "standard", "no-such-preset")
    assert status == 2 and out == ""
    assert "RULESET_B: unknown ruleset preset 'no-such-preset'" in err


# -- check --------------------------------------------------------------------------------------------------

def test_check_passes_with_junit_xml_one_case_per_property_and_puzzle(tmp_path, capsys, shared):
    folder = puzzle_folder(tmp_path, "steal-after-unloading", "a-sure-steal")
    junit = tmp_path / "results.xml"
    status, out, err = run(capsys, "check", "--puzzles", str(folder), "--players", "2", "--junit", str(junit))
    assert status == 0 and err == ""
    assert "16 proved, 0 refuted, 0 unknown" in out and "2 as recorded, 0 changed" in out and "PASS" in out
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("tests") == "18" and suite.get("failures") == "0"
    names = [case.get("name") for case in suite.iter("testcase")]
    assert names[0] == "R-PROP-1 no reverse flow" and names[-2:] == ["a-sure-steal", "steal-after-unloading"]


def test_check_fails_naming_the_refuted_property_and_the_changed_puzzle(tmp_path, capsys, shared):
    folder = puzzle_folder(tmp_path, "steal-after-unloading", "a-sure-steal")
    free = os.path.join(PUZZLES, "rulesets", "free-fork.json")
    junit = tmp_path / "results.xml"
    status, out, _ = run(capsys, "check", "--ruleset", free, "--puzzles", str(folder), "--players", "2",
                         "--junit", str(junit), "--json")
    assert status == 1
    data = json.loads(out)
    assert data["status"] == "fail"
    refuted = {p["id"] for p in data["properties"] if p["verdict"] == "refuted"}
    assert refuted == {"R-PROP-2", "R-PROP-12"}  # alternation, and with it the speed along a branch
    (bad,) = [p for p in data["properties"] if p["id"] == "R-PROP-2"]
    assert bad["trace"] and bad["counterexample"]["format"] == "niagara-position/1"
    failures = [c for c in ET.parse(junit).getroot().iter("testcase") if c.find("failure") is not None]
    assert [c.get("name") for c in failures] == ["R-PROP-2 fork alternation", "R-PROP-12 branch speed"]

    # A recorded answer that no longer holds: the puzzle is named with the new answer.
    doc = json.loads((folder / "a-sure-steal.json").read_text())
    doc["puzzle"]["answer"] = "no"
    (folder / "a-sure-steal.json").write_text(json.dumps(doc))
    status, out, _ = run(capsys, "check", "--puzzles", str(folder), "--players", "2")
    assert status == 1
    assert "FAIL puzzle a-sure-steal: recorded NO, now YES" in out and "now: play" in out


def test_check_exits_three_when_a_verdict_is_unknown(monkeypatch, capsys):
    from niagara_solver.verify import jobs as prove_module  # where check finds the prover
    real = prove_module.prove

    def out_of_time(*args, **kwargs):
        results = real(*args, **kwargs)
        results[0].verdict = Verdict.UNKNOWN  # as if the solver had run out of time
        return results

    monkeypatch.setattr(prove_module, "prove", out_of_time)
    status, out, _ = run(capsys, "check", "--players", "2")
    assert status == 3 and "UNKNOWN R-PROP-1" in out and out.rstrip().endswith("UNKNOWN")


def test_check_bad_input_exits_two(capsys, tmp_path):
    assert run(capsys, "check", "--players", "9")[0] == 2
    status, _, err = run(capsys, "check", "--ruleset", "no-such-preset")
    assert status == 2 and "(SWITCHES)" in err


def test_the_readme_ci_job_runs_the_check_it_documents(tmp_path, capsys, monkeypatch, shared):
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    job = text[text.index("```yaml"):]
    job = job[:job.index("```\n", 7)]
    (line,) = [x.strip() for x in job.splitlines() if "niagara-solve check" in x]
    argv = line.split("niagara-solve ", 1)[1].split()
    assert "--junit" in argv and "--puzzles" in argv
    argv[argv.index("--junit") + 1] = str(tmp_path / "junit.xml")
    monkeypatch.chdir(ROOT)
    status, out, _ = run(capsys, *argv)
    assert status == 0 and "PASS" in out
    assert ET.parse(tmp_path / "junit.xml").getroot().find("testsuite") is not None


# -- diff and witnesses -------------------------------------------------------------------------------------

def test_diff_standard_against_bga_shows_both_differences_with_witnesses(tmp_path, capsys, shared):
    folder = puzzle_folder(tmp_path, "steal-after-unloading", "a-rescue-that-costs-the-win", "a-sure-steal")
    status, out, _ = run(capsys, "diff", "standard", "bga-2013-05-09", "--players", "2", "--puzzles", str(folder),
                         "--save", str(tmp_path / "w"), "--json")
    assert status == 0
    data = json.loads(out)
    assert data["switches"] == {"steal_after_unload": [True, False], "rescue_when_none": ["pay_or_free", "free"]}
    assert all(p["a"] == p["b"] == "proved" for p in data["properties"])
    assert {p["name"]: (p["a"], p["b"]) for p in data["puzzles"] if p["changed"]} == {
        "steal-after-unloading": ("yes", "no"), "a-rescue-that-costs-the-win": ("no", "yes")}
    witnesses = {w["switch"]: w for w in data["witnesses"]}
    assert set(witnesses) == {"steal_after_unload", "rescue_when_none"}
    steal = witnesses["steal_after_unload"]
    assert steal["confirmed"] and steal["legal_in"] == "a" and steal["rules"] == ["R-STEAL-5"]
    rescue = witnesses["rescue_when_none"]
    assert rescue["confirmed"] and "R-RESCUE-3" in rescue["rules"]
    for switch, (json_path, svg_path) in ((w["switch"], w["saved"]) for w in data["witnesses"]):
        assert not position_problems(load_position(json_path))  # a witness opens like any position
        assert len(canoes(open(svg_path, encoding="utf-8").read())) == 4


def preset_witness(switch: str) -> dict:
    """The witness of ``switch`` between the two presets as ``diff`` finds it (the same job, whose answer the diff
    tests share: tests/shared.py)."""
    task = witness_task(STANDARD.to_json(), BGA.to_json(), switch, standard_board().to_json(), 2, 60.0)
    return run_all([task])[task_key(task)]["witness"]


def test_the_steal_witness_replays_in_the_engine_an_unload_then_a_steal(shared):
    w = preset_witness("steal_after_unload")
    assert w["verdict"] == "found" and {"position", "turn", "card"} <= set(w)
    back = witness_from_json(w)  # as diff reads it back from its job: the verdict typed, the JSON unchanged
    assert back.verdict is Verdict.CONFIRMED and back.to_json() == w
    position, turn, card = position_from_json(w["position"]), Turn.parse(w["turn"]), Card.parse(w["card"])
    steps = [s for action in turn.actions for s in action.steps]
    assert any(isinstance(s, Unload) for s in steps) and any(isinstance(s, Steal) for s in steps)
    # Checked here without the witness's own replay: legal under standard, no legal outcome under BGA.
    after = apply_turn(position.replace(ruleset=STANDARD), 0, turn, card).position
    under_bga = [o.position for o in legal_turns(position.replace(ruleset=BGA), 0, card)]
    assert all(o.caves != after.caves or o.players[1:] != after.players[1:] for o in under_bga)


def test_the_rescue_witness_is_an_option_under_one_preset_only(shared):
    w = preset_witness("rescue_when_none")
    assert w["verdict"] == "found" and {"position", "player"} <= set(w)
    position = position_from_json(w["position"])
    player = position.index(w["player"])
    mine = rescue_options(position.replace(ruleset=BGA), player)
    theirs = rescue_options(position.replace(ruleset=STANDARD), player)
    assert set(mine) != set(theirs)
    assert all(c.fallen for c in position.players[player].canoes)  # the case R-RESCUE-3 changes
    assert position.players[player].bank.total > 0


def witness_tested(name: str) -> bool:
    """Whether switch ``name`` gets a diff witness test here: every switch of the base game (no module's, none that
    only changes what a player knows), unless a reading does not cover it yet."""
    row = SWITCHES[name]
    return row.of_module is None and "knowledge" not in row.phases and name not in pending_switches()


#: Switch -> the value whose diff witness against standard is tested here: its row's first value other than the
#: default (``tries``), for every switch :func:`witness_tested` takes; tests/test_switches.py requires every switch
#: to have this or an outcome test there.
WITNESS_VALUES = {name: row.tries[1] for name, row in SWITCHES.items() if witness_tested(name)}


@pytest.mark.parametrize("switch", sorted(WITNESS_VALUES))
def test_every_switch_has_a_witness_the_engine_confirms(switch):
    other = Ruleset.from_json({switch: WITNESS_VALUES[switch]})
    w = switch_witness(standard_board(), STANDARD, other, switch, 2, 60)
    assert w.verdict is Verdict.CONFIRMED and w.confirmed, (w.summary, w.engine)
    assert w.phase == SWITCHES[switch].phases[0]
    # The switch's own rule is named, and the first rule named is one its row changes.
    assert SWITCHES[switch].rule in w.rules and w.rules[0] in SWITCHES[switch].rules, w.rules
    if w.position is not None:
        for rules in (STANDARD, other):
            assert not position_problems(w.position.replace(ruleset=rules))


def test_a_switch_that_cannot_matter_on_a_board_is_proved_to_change_nothing():
    w = switch_witness(STRAIGHT, STANDARD, Ruleset.from_json({"fork_policy": "free"}), "fork_policy", 2, 60)
    assert w.verdict is Verdict.REFUTED and w.position is None and "proved for all positions" in w.summary
    assert w.to_json()["verdict"] == "none"  # the word diff prints and writes for it (WITNESS)


def test_diff_of_a_ruleset_with_itself_is_empty(capsys, shared):
    status, out, _ = run(capsys, "diff", "standard", "standard", "--players", "2", "--puzzles", PUZZLES)
    assert status == 0 and "nothing differs" in out and "23 of 23 answer the same; 0 change" in out


def test_witnesses_do_not_depend_on_which_process_finds_them():
    board = standard_board().to_json()
    tasks = [witness_task("standard", "bga-2013-05-09", s, board, 2, 60) for s in ("steal_after_unload",
                                                                                   "rescue_when_none")]
    tasks.append(prove_task("standard", board, 2, ["R-PROP-3"], 60))
    alone = run_all(tasks)
    pooled = run_all(list(reversed(tasks)), jobs=2)

    def strip(result):
        return {k: v for k, v in result.items() if k != "seconds"} | {
            "witness": {k: v for k, v in result.get("witness", {}).items() if k != "seconds"}}
    assert {task_key(t): strip(alone[task_key(t)]) for t in tasks[:2]} == \
        {task_key(t): strip(pooled[task_key(t)]) for t in tasks[:2]}


# -- sweep --------------------------------------------------------------------------------------------------

def grid_file(tmp_path, folder, **changes):
    grid = {"switches": {"steal_after_unload": [True, False]}, "boards": ["standard"], "players": [2],
            "puzzles": os.path.relpath(folder, tmp_path)} | changes
    path = tmp_path / "grid.json"
    path.write_text(json.dumps(grid))
    return path


def test_sweep_proves_every_combination_and_answers_the_puzzles_per_ruleset(tmp_path, capsys, shared):
    folder = puzzle_folder(tmp_path, "steal-after-unloading", "steal-after-unloading-2013-05-09")
    status, out, _ = run(capsys, "sweep", str(grid_file(tmp_path, folder)), "--json")
    data = json.loads(out)
    assert [(r["switches"], r["board"], r["players"], len(r["proved"])) for r in data["rows"]] == [
        ({"steal_after_unload": True}, "standard", 2, 16), ({"steal_after_unload": False}, "standard", 2, 16)]
    # Each puzzle keeps its own ruleset and only the swept switch changes: each flips under the other value.
    assert [[c["name"] for c in p["changed"]] for p in data["puzzles"]] == [
        ["steal-after-unloading-2013-05-09"], ["steal-after-unloading"]]
    assert status == 1 and data["status"] == "fail"
    status, out, _ = run(capsys, "sweep", str(grid_file(tmp_path, folder)))
    assert status == 1 and "steal-after-unloading yes→no" in out


def test_sweep_reports_refuted_properties_per_combination(tmp_path, capsys, shared):
    folder = puzzle_folder(tmp_path)
    path = grid_file(tmp_path, folder, switches={"fork_policy": ["alternate", "free"]})
    status, out, _ = run(capsys, "sweep", str(path), "--json")
    rows = json.loads(out)["rows"]
    assert [r["refuted"] for r in rows] == [[], ["R-PROP-2", "R-PROP-12"]] and status == 1


def test_sweep_over_a_module_proves_its_own_property_and_shows_the_puzzles_it_decides(tmp_path, capsys, shared):
    # The expansion's modules are switches like any other (RULES.md section X): the moose adds X-PROP-1 to the
    # catalogue, and the puzzle whose win exists only thanks to the moose loses it with the module off.
    folder = puzzle_folder(tmp_path, "expansion/moose-carries-the-win-home", "expansion/seven-loads-and-goes-home")
    path = grid_file(tmp_path, folder, switches={"x_moose": [False, True]}, players=3)
    status, out, _ = run(capsys, "sweep", str(path), "--json")
    data = json.loads(out)
    assert [(r["switches"], r["players"], len(r["proved"]), r["refuted"], "X-PROP-1" in r["proved"])
            for r in data["rows"]] == [({"x_moose": False}, 3, 16, [], False), ({"x_moose": True}, 3, 17, [], True)]
    assert [[c["name"] for c in p["changed"]] for p in data["puzzles"]] == [["moose-carries-the-win-home"], []]
    assert status == 1
    # The bundled grid of module combinations names every module but the whirlpool (whose proofs take minutes).
    from niagara_solver.design.sweep import load_grid
    grid = load_grid(os.path.join(PUZZLES, "grids", "modules.json"))
    assert grid.size == 32 and grid.players == [3]
    assert {frozenset(k for k, v in switches.items() if v) for switches, _ in grid.variants} == {
        frozenset(c) for n in range(6) for c in itertools.combinations(
            ["x_cards", "x_double", "x_beaver", "x_moose", "x_joe"], n)}


@pytest.mark.parametrize("grid, where", [
    ({"switches": {"steal_after_unload": ["yes"]}}, "switches.steal_after_unload[0]"),
    ({"switches": {"no_such_switch": [1]}}, "switches.no_such_switch"),
    ({"players": "2-9"}, "players"),
    ({"boards": ["nowhere.json"]}, "boards[0]: nowhere.json"),
    ({"colour": "red"}, "colour"),
])
def test_a_bad_grid_is_an_error_naming_the_json_path(tmp_path, capsys, grid, where):
    path = tmp_path / "grid.json"
    path.write_text(json.dumps(grid))
    status, out, err = run(capsys, "sweep", str(path))
    assert status == 2 and out == "" and where in err and "Traceback" not in err


def test_sweep_on_a_local_dask_cluster_gives_the_local_answer(tmp_path, capsys, shared):
    distributed = pytest.importorskip("distributed")
    folder = puzzle_folder(tmp_path, "steal-after-unloading")
    path = grid_file(tmp_path, folder)
    status, local, _ = run(capsys, "sweep", str(path), "--json")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        status_dask, remote, _ = run(capsys, "sweep", str(path), "--json", "--scheduler", cluster.scheduler_address)

    def verdicts(text):
        data = json.loads(text)
        return ([(r["switches"], r["proved"], r["refuted"]) for r in data["rows"]],
                [(p["switches"], p["same"], p["changed"]) for p in data["puzzles"]])
    assert status_dask == status and verdicts(remote) == verdicts(local)


# -- report -------------------------------------------------------------------------------------------------

def test_report_writes_markdown_whose_pictures_exist_and_show_every_canoe(tmp_path, shared):
    from niagara_solver.report.markdown import ReportSettings, make_report
    folder = puzzle_folder(tmp_path, "steal-after-unloading", "a-rescue-that-costs-the-win")
    settings = ReportSettings(standard_board(), [2], str(folder), mutants=["two-gems"], crosscheck_count=0,
                              simulate_games=2, simulate_players=2)
    # In this process, so that the proofs, witnesses and goal positions the other tests of its group found are
    # reused (tests/shared.py); tasks in a pool of processes give the same results (test_verdict.py, and
    # test_witnesses_do_not_depend_on_which_process_finds_them below).
    written = make_report(str(tmp_path / "out"), settings)
    text = (tmp_path / "out" / "README.md").read_text()
    for heading in ("## Rule properties per preset", "### `standard`", "### `bga-2013-05-09`", "## Mutation table",
                    "## Cross-check coverage per rule", "## Puzzles", "## Preset differences",
                    "#### `steal_after_unload`: true → false", "#### `rescue_when_none`: pay_or_free → free",
                    "## Playtesting", "`niagara-solve simulate --compare standard bga-2013-05-09 --players 2 "
                    "--games 2`"):
        assert heading in text
    assert "| `two-gems` | R-GEM-2 |" in text and "killed" in text and "**0 mismatches**" in text
    # The expansion's presets are named with the command that proves them, not proved in the report.
    assert "`niagara-solve prove --ruleset flussgeister --players 3-6`" in text and "### `flussgeister`" not in text
    links = [part.split(")")[0] for part in text.split("](img/")[1:]]
    assert sorted(f"img/{x}" for x in links) == sorted(os.path.relpath(p, tmp_path / "out") for p in written
                                                       if p.endswith(".svg"))
    charts = ["playtest-length-2p.svg", "playtest-seats-2p.svg"]
    assert set(charts) <= set(links)
    for link in links:  # every picture but the playtesting's charts is a river with its canoes
        assert canoes((tmp_path / "out" / "img" / link).read_text()) or link in charts
    pos, _ = load_document(folder / "steal-after-unloading.json")
    svg = (tmp_path / "out" / "img" / "puzzle-steal-after-unloading.svg").read_text()
    assert len(canoes(svg)) == 2 * len(pos.players) and 'class="turn"' in svg
    # The pages to step through: each puzzle's answer, and a whole bundled game (report/html.py).
    pages = [part.split(")")[0] for part in text.split("](pages/")[1:]]
    assert sorted(f"pages/{x}" for x in pages) == sorted(os.path.relpath(p, tmp_path / "out") for p in written
                                                         if p.endswith(".html"))
    assert sorted(pages) == ["game.html", "puzzle-a-rescue-that-costs-the-win.html",
                             "puzzle-steal-after-unloading.html"]
    assert "## A game, step by step" in text and "Game over after round 22: blue wins" in text
    steal = (tmp_path / "out" / "pages" / "puzzle-steal-after-unloading.html").read_text()
    assert '"heading":"Round 1 · II · red (4): 4: -ruby \\u003c2 xblue/amber"' in steal


# -- progress -----------------------------------------------------------------------------------------------

class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_only_on_a_terminal(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    bar = Progress(2, "check", True)
    bar.step("prove")
    bar.step("puzzle")
    bar.close()
    assert "check [###############...............] 1/2" in terminal.getvalue()
    assert "2/2" in terminal.getvalue()
    quiet = _Terminal()
    monkeypatch.setattr("sys.stderr", quiet)
    bar = Progress(2, "check", False)  # --json
    bar.step()
    bar.close()
    assert quiet.getvalue() == ""
    piped = io.StringIO()
    monkeypatch.setattr("sys.stderr", piped)
    bar = Progress(2, "check", True)  # not a terminal
    bar.step()
    bar.close()
    assert piped.getvalue() == ""


def test_a_long_search_reports_its_progress_now_and_then():
    from niagara_solver.solver.answers import Goal
    from niagara_solver.solver.solve import answer_with
    from helpers import lookahead_start
    # A "no" the search needs some 12,500 positions for (3p seed 502 round 8 of benchmarks/bench_horizon.py, win
    # within 2 rounds).
    pos = lookahead_start(3, 502, 8)
    calls = []
    answer = answer_with(pos, 2, Goal.WIN, 2, "search", 120, progress=calls.append)
    assert answer.word == "no" and answer.nodes > 2 * 4096  # long enough for a few progress calls
    assert calls == list(range(4096, answer.nodes + 1, 4096))


@pytest.mark.parametrize("module, puzzle", [("x_beaver", "beaver-calms-the-storm"),
                                            ("x_whirl", "whirlpool-brink-drives-the-victim-up"),
                                            ("x_joe", "joe-swaps-in-the-fifth-colour")])
def test_a_module_switch_has_a_puzzle_as_its_witness_not_a_vacuous_proof(module, puzzle):
    # No position valid under both rulesets holds the module's pieces, so "no position is affected" would be
    # vacuous: the witness is a bundled puzzle of the module whose answer changes when the module is taken away.
    import dataclasses
    from niagara_solver.design.witnesses import switch_witness
    from niagara_solver.model.ruleset import PRESETS
    from niagara_solver.model.verdict import Verdict
    base = dataclasses.replace(PRESETS["standard"], gems_per_colour=6)
    w = switch_witness(standard_board(), base, PRESETS["flussgeister-joe"], module, 3, 120)
    assert w.verdict is Verdict.CONFIRMED and w.phase is None and w.confirmed and w.position is not None
    assert w.to_json()["phase"] == "module"  # sought in no phase's relations, and so named in JSON as before
    assert w.summary.startswith(f"puzzle {puzzle}: ") and f"with {module} on" in w.summary
    assert module in w.position.ruleset.modules and all(r.startswith("X-") for r in w.rules) and w.rules


def test_diff_plays_the_fewest_players_both_rulesets_allow_unless_told(capsys):
    # flussgeister is played by 3 to 6 (X-SIX-1): its diff against standard defaults to 3 players; 2 is refused.
    status, _, err = run(capsys, "diff", "flussgeister", "standard", "--players", "2")
    assert status == 2 and "3 to 6 players play under flussgeister, not 2 (X-SIX-1)" in err
    from niagara_solver.design.diff import diff_tasks
    from niagara_solver.model.ruleset import PRESETS
    kinds = [t.job.__name__ for t in diff_tasks(standard_board(), PRESETS["flussgeister"], STANDARD, [3],
                                                         PUZZLES)]
    # The witnesses (seconds) come before the proofs (minutes under the expansion), so a time limit spares them.
    assert kinds[0] == "witness_job" and kinds[-1] == "prove_job" and kinds.index("prove_job") > kinds.index(
        "puzzle_job")

