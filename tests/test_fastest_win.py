"""The fastest possible win compared between two rulesets (design/fastest.py, ``diff --fastest-win``; docs/DIFF.md).
On the short board (1 → 2 → 3 → fork 4L / 4R) a canoe that carries two gems (``capacity: 2``) wins in 3 rounds, proved
minimal, in a fraction of a second; one gem a canoe takes 5 rounds, whose walk takes half a minute: under a short time
limit it is a lower bound, and the comparison says only what the bound allows."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from niagara_solver.cli.main import main
from niagara_solver.design.fastest import FastestWin, compare_wins, fastest_win
from niagara_solver.games.trace import replay, trace_from_json
from niagara_solver.model.format import load_board
from niagara_solver.model.limits import time_limit
from niagara_solver.model.ruleset import STANDARD, Ruleset
from niagara_solver.model.verdict import Verdict

SHORT = "puzzles/boards/short-fork.json"
TWO_GEMS = {"base": "standard", "capacity": 2}
TWO_GEMS_MUST_MOVE = {"base": "standard", "capacity": 2, "must_move": True}


def test_two_gems_a_canoe_win_in_three_rounds_proved_minimal_and_the_win_replays() -> None:
    found = fastest_win(load_board(SHORT), Ruleset.from_json(TWO_GEMS), 2)
    assert (found.verdict, found.rounds, found.at_least, found.excluded) == (Verdict.CONFIRMED, 3, 3, 2)
    assert found.text == "3 rounds, proved minimal (rounds 1..2 excluded by the bound)"
    assert found.trace is not None
    replayed = replay(trace_from_json(found.trace))
    assert replayed.ok and len(replayed.records) == 3
    assert FastestWin.from_json(found.to_json()) == dataclasses.replace(found, seconds=round(found.seconds, 3))


def test_a_walk_cut_by_the_time_limit_is_a_lower_bound_and_the_change_only_what_it_allows() -> None:
    board = load_board(SHORT)
    with time_limit(0.5):  # the walk of round 5 takes some 30 s of processor time: cut after half a second of it
        one = fastest_win(board, STANDARD, 2)
    assert (one.verdict, one.rounds, one.at_least, one.excluded, one.stopped) == (Verdict.UNKNOWN, None, 5, 4,
                                                                                   "out of time")
    assert one.text == ("≥ 5 rounds: rounds 1..4 excluded by the bound; the walk of round 5 unfinished (out of time)")
    two = fastest_win(board, Ruleset.from_json(TWO_GEMS), 2)
    compared = compare_wins(one, two)
    assert (compared.change, compared.decided) == ("at least 2 rounds fewer under B", False)
    assert compare_wins(two, one).change == "at least 2 rounds more under B"
    assert compare_wins(two, two).change == "same"
    # Two lower bounds say nothing of the change.
    assert compare_wins(one, one).change == "unknown"


def test_no_win_within_the_rounds_searched_is_a_bound_every_play_explored() -> None:
    found = fastest_win(load_board(SHORT), Ruleset.from_json(TWO_GEMS), 2, limit=2)
    assert (found.verdict, found.rounds, found.at_least) == (Verdict.REFUTED, None, 3)
    assert found.text == "≥ 3 rounds: no play wins within 2 (every play explored)"
    with pytest.raises(ValueError):
        compare_wins(found, FastestWin(3, Verdict.CONFIRMED, 3, 3, 10, 2, 0, 0.0))


def test_diff_fastest_win_json_and_text(capsys: pytest.CaptureFixture[str], tmp_path: Path, shared: None) -> None:
    # The three runs of diff ask the same proofs and searches: the second and the third reuse the first's (shared).
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(TWO_GEMS))
    b.write_text(json.dumps(TWO_GEMS_MUST_MOVE))
    empty = tmp_path / "puzzles"
    empty.mkdir()
    argv = ["diff", str(a), str(b), "--board", SHORT, "--players", "2", "--puzzles", str(empty), "--fastest-win"]
    assert main([*argv, "--json"]) == 0
    (item,) = json.loads(capsys.readouterr().out)["fastest_win"]
    assert item["players"] == 2 and item["change"] == "same"
    for side in ("a", "b"):
        figure = item[side]
        assert {k: figure[k] for k in ("rounds", "proved_minimal", "at_least", "limit", "excluded", "stopped")} == {
            "rounds": 3, "proved_minimal": True, "at_least": 3, "limit": 10, "excluded": 2, "stopped": None}
        assert replay(trace_from_json(figure["trace"])).ok
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert ("2          3 rounds, proved minimal (rounds 1..2 excluded by the bound)  3 rounds, proved minimal (rounds "
            "1..2 excluded by the bound)  same") in out
    # Without the flag, no figure: the search is opt-in.
    assert main([*argv[:-1], "--json"]) == 0
    assert "fastest_win" not in json.loads(capsys.readouterr().out)


def test_fastest_win_takes_no_value(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["diff", "standard", "standard", "--fastest-win=5"])
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1 and "--fastest-win" in err
