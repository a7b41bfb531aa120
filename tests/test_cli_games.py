"""The whole-game commands (docs/GAMES.md): reach, invariant, replay — their verdicts, exit statuses, traces and
one-line errors. The fewest rounds here are those tests/test_games.py holds to a plain enumeration."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers import P, doc
from niagara_solver.cli.main import main

TINY = {"name": "tiny", "river": {"1": "2", "2": "3", "3": {"L": "4L", "R": "4R"}, "4L": "falls", "4R": "falls"},
        "caves": {"amethyst": ["1"], "diamond": ["2"], "amber": ["3"], "sapphire": ["4L"], "ruby": ["4R"]}}


@pytest.fixture
def small(tmp_path: Path) -> str:
    """tests/test_games.py's small start: two cards a hand on the short river."""
    path = tmp_path / "small.json"
    path.write_text(json.dumps(doc(P("red", "1", "port", hand=[2, 4]), P("blue", "2:diamond", "4L", hand=[1, "cloud"]),
                                   phase="cards", board=TINY)))
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_reach_yes_with_a_shortest_trace_that_replays(capsys: pytest.CaptureFixture[str], small: str,
                                                      tmp_path: Path) -> None:
    trace = str(tmp_path / "trace.json")
    status, out, _ = run(capsys, "reach", "canoes(red, 3) == 2", "--from", small, "--rounds", "2", "--trace", trace)
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == ("reach canoes(red, 3) == 2 · 2 players (red, blue) · ruleset standard · board tiny · round 1 "
                        "· within 2 rounds")
    assert lines[1].startswith("yes in 2 rounds · ")
    assert lines[2] == "proved minimal: every play of round 1 explored"
    assert sum(1 for line in lines if line.startswith("Round ")) == 2
    assert lines[-1].startswith("  = red* 3; 3")
    written = json.loads(Path(trace).read_text())
    assert written["format"] == "niagara-trace" and written["target"] == "canoes(red, 3) == 2"
    assert len(written["rounds"]) == 2
    assert [c["at"] for c in written["rounds"][-1]["position"]["players"][0]["canoes"]] == ["3", "3"]
    status, out, _ = run(capsys, "replay", trace)
    assert status == 0
    assert out.splitlines()[-1] == "legal: 2 rounds replayed by the engine, each to its recorded position"


def test_reach_no_within_the_rounds(capsys: pytest.CaptureFixture[str], small: str, tmp_path: Path) -> None:
    trace = tmp_path / "trace.json"
    status, out, err = run(capsys, "reach", "bank(blue) >= 1", "--from", small, "--rounds", "2", "--walk", "levels",
                           "--trace", str(trace))
    assert status == 1
    lines = out.splitlines()
    assert lines[1].startswith("no · ") and lines[2].startswith("proved: every play of rounds 1..2 explored")
    # A "no" has no trace: the answer is still printed, its status kept, and the file is not written.
    assert err == f"niagara-solve: --trace: {trace} not written: no position was reached\n"
    assert not trace.exists()
    status, out, _ = run(capsys, "reach", "bank(blue) >= 1", "--from", small, "--rounds", "2")
    assert status == 1
    assert out.splitlines()[2] == ("proved: no play of round 1 reaches it by the bound on banking alone "
                                   "(docs/GAMES.md, \"Bounds\"), every play of round 2 explored, cut after each "
                                   "turn by the bound")


def test_reach_json(capsys: pytest.CaptureFixture[str], small: str) -> None:
    status, out, _ = run(capsys, "reach", "fell(blue) == 2", "--from", small, "--rounds", "2", "--json")
    assert status == 0
    answer = json.loads(out)
    assert (answer["verdict"], answer["rounds"], answer["depth"]) == ("yes", 1, 0)
    assert answer["trace"]["rounds"][0]["fell"][0]["player"] == "blue"


def test_the_bound_prunes_and_says_so(capsys: pytest.CaptureFixture[str], small: str) -> None:
    status, out, _ = run(capsys, "reach", "bank(red) >= 2", "--from", small, "--rounds", "2", "--walk", "levels")
    assert status == 1
    # Every position after the first round is dropped: none banks a gem in it, and a canoe banks one a turn.
    assert out.splitlines()[1] == "no · 1 distinct positions, 85 generated · " + out.splitlines()[1].split(" · ")[-1]
    assert out.splitlines()[2] == ("proved: every play of rounds 1..2 explored; 85 positions dropped by the bound on "
                                   "banking (docs/GAMES.md, \"Bounds\")")
    status, plain, _ = run(capsys, "reach", "bank(red) >= 2", "--from", small, "--rounds", "2", "--no-prune")
    assert status == 1
    assert plain.splitlines()[1].startswith("no · 86 distinct positions, 956 generated · ")


def test_invariant_broken_and_holding(capsys: pytest.CaptureFixture[str], small: str) -> None:
    status, out, _ = run(capsys, "invariant", "fallen(blue) < 2", "--from", small, "--rounds", "2")
    assert status == 1
    assert out.splitlines()[1].startswith("broken in 1 round · ")
    status, out, _ = run(capsys, "invariant", "bank(blue) == 0", "--from", small, "--rounds", "2")
    assert status == 0
    assert out.splitlines()[1].startswith("holds · ")


def test_out_of_memory_is_unknown(capsys: pytest.CaptureFixture[str], small: str) -> None:
    status, out, _ = run(capsys, "reach", "bank(blue) >= 1", "--from", small, "--rounds", "2", "--max-positions",
                         "10", "--no-prune")
    assert status == 3
    assert out.splitlines()[2] == "out of memory (no level completed)"


def _tampered(capsys: pytest.CaptureFixture[str], small: str, tmp_path: Path) -> dict[str, Any]:
    trace = tmp_path / "trace.json"
    assert run(capsys, "reach", "canoes(red, 3) == 2", "--from", small, "--rounds", "2", "--trace", str(trace))[0] == 0
    loaded: dict[str, Any] = json.loads(trace.read_text())
    return loaded


def test_replay_names_the_first_illegal_step(capsys: pytest.CaptureFixture[str], small: str, tmp_path: Path) -> None:
    written = _tampered(capsys, small, tmp_path)
    turn = written["rounds"][1]["turns"][1]
    turn["turn"] = "2: <port"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(written))
    status, out, _ = run(capsys, "replay", str(bad))
    assert status == 1
    assert out.splitlines()[-1].startswith(f"illegal: round 2, {turn['player']}: ")


def test_replay_of_a_file_not_a_trace_is_bad_input(capsys: pytest.CaptureFixture[str], small: str,
                                                    tmp_path: Path) -> None:
    written = _tampered(capsys, small, tmp_path)
    written["rounds"][0]["cards"]["red"] = "nine"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(written))
    status, out, err = run(capsys, "replay", str(bad))
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1
    assert err.startswith(f"niagara-solve: error: {bad}: rounds[0].cards.red: ")


@pytest.mark.parametrize("argv,says", [
    (["reach", "bank(red) >= 1", "--rounds", "0"], "'--rounds': 0 is not in the range 1<=x<=20"),
    (["reach", "bank(red) >= 1", "--rounds", "21"], "'--rounds': 21 is not in the range 1<=x<=20"),
    (["reach", "bank(red) >= 1", "--players", "2-3"], "--players: a search starts from one game"),
    (["reach", "bank(pink) >= 1"], "column 6: unknown player 'pink'"),
    (["reach", "bank(red) >="], "column"),
    (["invariant", "bank(red) >= 1 and", "--rounds", "1"], "column"),
    (["reach", "bank(red) >= 1", "--players", "9"], "--players"),
    (["reach", "bank(red) >= 1", "--from", "missing.json"], "missing.json"),
    (["reach", "bank(red) >= 1", "--from", "SMALL", "--players", "2"], "--players: give --from POSITION or --players"),
    (["reach", "bank(red) >= 1", "--from", "SMALL", "--board", "standard"], "--board"),
])
def test_bad_input_is_one_line_exit_2(capsys: pytest.CaptureFixture[str], small: str, argv: list[str],
                                      says: str) -> None:
    status, out, err = run(capsys, *[small if a == "SMALL" else a for a in argv])
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1 and says in err


def test_reach_names_the_dive_that_found_its_trace(capsys: pytest.CaptureFixture[str]) -> None:
    # Three players on the short river: blue's dive (blue's every option, red and green one each) meets the target
    # in round 2 after round 1 was walked in full (tests/test_deepen.py holds it to the full walk's fewest rounds).
    board = str(Path(__file__).parent.parent / "puzzles" / "boards" / "short-fork.json")
    status, out, _ = run(capsys, "reach", "bank(red) >= 1 and fallen(blue) >= 1", "--players", "3", "--board",
                         board, "--rounds", "3")
    assert status == 0
    lines = out.splitlines()
    assert lines[1].startswith("yes in 2 rounds · ")
    assert lines[2].endswith("; found by the dive that walked every option of blue (red and green one option each "
                             "decision) (docs/GAMES.md, \"Dives\")")
    status, out, _ = run(capsys, "reach", "bank(red) >= 1 and fallen(blue) >= 1", "--players", "3", "--board",
                         board, "--rounds", "3", "--json")
    assert json.loads(out)["dived"] == ["blue"]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_bundled_fastest_wins_replay_legal_and_end_in_a_win_in_round_five(
        capsys: pytest.CaptureFixture[str], players: int) -> None:
    # reports/games (make games): each trace reach wrote, replayed by the engine, ends in round 5 with a winner.
    trace = Path(__file__).parent.parent / "reports" / "games" / f"fastest-win-{players}p.json"
    status, out, _ = run(capsys, "replay", str(trace))
    assert status == 0 and out.splitlines()[-1] == ("legal: 5 rounds replayed by the engine, each to its recorded "
                                                    "position")
    assert "game over: " in out and out.count("\nRound ") == 4  # rounds 2..5 after the first line's round 1


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_expansion_s_fastest_wins_are_proved_in_round_four_and_replay_legal(
        capsys: pytest.CaptureFixture[str], players: int) -> None:
    # Under flussgeister the bound with modules (games/bounds.py, module_reach) rules out rounds 1..3 and the dive
    # finds a win in round 4: a round sooner than the standard game's 5; the bundled traces replay legal.
    status, out, _ = run(capsys, "reach", "goal(any)", "--players", str(players), "--ruleset", "flussgeister",
                         "--rounds", "5", "--json")
    answer = json.loads(out)
    assert status == 0 and (answer["verdict"], answer["rounds"]) == ("yes", 4)
    trace = Path(__file__).parent.parent / "reports" / "games" / f"fastest-win-flussgeister-{players}p.json"
    status, out, _ = run(capsys, "replay", str(trace))
    assert status == 0 and out.splitlines()[-1] == ("legal: 4 rounds replayed by the engine, each to its recorded "
                                                    "position")
    assert "game over: " in out


def test_the_most_gems_over_the_falls_are_bounded_by_the_falls(capsys: pytest.CaptureFixture[str]) -> None:
    # Two players lose at most 2 + 2 gems by round 2 and 3 + 3 by round 3 in the relaxation of falls
    # (games/bounds.py, lost_reach); the walk of round 3, cut after every turn, finds no play losing 6.
    status, out, _ = run(capsys, "reach", "lost >= 6", "--players", "2", "--rounds", "3")
    assert status == 1
    assert out.splitlines()[1].startswith("no · ")
    assert out.splitlines()[2] == ("proved: no play of rounds 1..2 reaches it by the bound on falls alone "
                                   "(docs/GAMES.md, \"Bounds\"), every play of round 3 explored, cut after each turn "
                                   "by the bound")
