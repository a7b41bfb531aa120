"""Does a game reach a counterexample? (design/histories.py, games/history.py ``arises``; docs/PROVER.md, "Does a game
reach it?"). The issue's custom board and its R-PROP-10 counterexample, a planted counterexample a short game reaches
(its trace replayed), counting that refutes every round, a position within a round, the time limit, and the option's
bad values."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from niagara_solver.cli.main import main
from niagara_solver.design.histories import (catalogue_with_histories, counterexample_history, history_line,
                                             prove_with_histories)
from niagara_solver.engine.rescue import begin_turns
from niagara_solver.engine.round import play_round
from niagara_solver.games.history import hand_size_at, phase_one, setup_for
from niagara_solver.games.rounds import rounds
from niagara_solver.games.trace import load_trace, replay
from niagara_solver.model.atoms import FULL_HAND, Card, Colour, Phase
from niagara_solver.model.format import load_board, position_to_json
from niagara_solver.model.limits import time_limit
from niagara_solver.model.notation import Rescue
from niagara_solver.model.position import Position
from niagara_solver.model.ruleset import STANDARD
from niagara_solver.verify.catalogue import CatalogueReport, MergedProperty
from niagara_solver.verify.prove import Counterexample, PropertyResult

#: The issue's board: 1 → 2 → 3 → fork 4L / 4R, one cave a disc (FORMAT.md, "Boards").
ISSUE_BOARD = {"name": "issue-34", "river": {"1": "2", "2": "3", "3": {"L": "4L", "R": "4R"}, "4L": "falls",
                                              "4R": "falls"},
               "caves": {"amethyst": ["1"], "diamond": ["2"], "amber": ["3"], "sapphire": ["4L"], "ruby": ["4R"]}}


@pytest.fixture
def issue_board(tmp_path: Path) -> str:
    path = tmp_path / "issue-34.json"
    path.write_text(json.dumps(ISSUE_BOARD))
    return str(path)


def test_the_issue_s_no_deadlock_counterexample_is_unknown_for_its_hands(issue_board: str) -> None:
    report = prove_with_histories(load_board(issue_board), STANDARD, [2], ["R-PROP-10"], timeout=120)
    (merged,) = report.properties
    assert merged.word == "refuted" and merged.refuted is not None
    ce = merged.refuted[1].counterexample
    assert ce is not None
    pos = ce.position
    # The position the issue names: every gem in one cave (the amethyst cave), every other cave empty.
    assert [cave.total for cave in pos.caves] == [38, 0, 0, 0, 0]
    # Its hands hold one card each: the hands of rounds 7, 14, ... (R-CARD-2), a history of 6 rounds at least.
    assert [len(p.hand) for p in pos.players] == [1, 1]
    assert [r for r in range(1, 15) if hand_size_at(pos, r) == 1] == [7, 14]
    assert merged.history == {
        "verdict": "unknown", "rule": "LIMITS", "searched": 2,
        "reason": "its hands (1 card each) are those of rounds 7, 14, ... (R-CARD-2); round 7 needs 6 rounds of "
                  "history, more than the 2 searched"}
    assert report.to_json()["properties"][0]["history"] == merged.history


def test_prove_prints_and_writes_the_history(capsys: pytest.CaptureFixture[str], issue_board: str,
                                             tmp_path: Path) -> None:
    status = main(["prove", "--board", issue_board, "--players", "2", "--property", "R-PROP-10"])
    out = capsys.readouterr().out
    assert status == 1
    assert ("  history: whether a game reaches it is unknown: its hands (1 card each) are those of rounds 7, 14, ... "
            "(R-CARD-2); round 7 needs 6 rounds of history, more than the 2 searched (LIMITS)\n") in out
    status = main(["prove", "--board", issue_board, "--players", "2", "--property", "R-PROP-10", "--json",
                   "--history-rounds", "0"])
    item = json.loads(capsys.readouterr().out)["properties"][0]
    assert item["history"]["searched"] == 0 and item["history"]["verdict"] == "unknown"
    junit = tmp_path / "check.xml"
    assert main(["check", "--board", issue_board, "--players", "2", "--property", "R-PROP-10", "--junit",
                 str(junit), "--json"]) == 1
    checked = json.loads(capsys.readouterr().out)
    assert checked["properties"][0]["history"]["verdict"] == "unknown"
    assert "history: whether a game reaches it is unknown: its hands (1 card each)" in junit.read_text()


@pytest.mark.parametrize("value", ["-1", "21", "two"])
def test_history_rounds_out_of_range_is_one_line_exit_2(capsys: pytest.CaptureFixture[str], value: str) -> None:
    status = main(["prove", "--players", "2", "--property", "R-PROP-3", "--history-rounds", value])
    err = capsys.readouterr().err
    assert status == 2
    assert len(err.strip().splitlines()) == 1 and "--history-rounds" in err


# -- a planted counterexample a short game reaches --------------------------------------------------------------

def _short_game() -> tuple[Position, Position]:
    """The issue's board, two players: blue's canoes both over the falls in round 2 (a play ``reach 'fallen(blue) ==
    2'`` finds, 2 rounds proved fewest), so round 3 opens with blue's forced free rescue (R-RESCUE-2). Returns the
    start of round 3 and phase II of round 3 with red, the lifebuoy holder, to act with card 5."""
    from niagara_solver.model.board import Board
    from niagara_solver.model.notation import Turn
    board = Board.from_json(ISSUE_BOARD)
    pos = Position.initial(["red", "blue"], board)
    pos = play_round(pos, {0: Card(1), 1: Card(1)}, {0: Turn.parse("port: >1"), 1: Turn.parse("port: >1")}).end
    pos = play_round(pos, {0: Card(3), 1: Card(3)}, {1: Turn.parse("2: +diamond >3; port: >3"),
                                                     0: Turn.parse("2: +diamond <1")}).end
    assert [c.fallen for c in pos.players[1].canoes] == [True, True] and pos.round == 3 and pos.lifebuoy == 0
    turns = begin_turns(pos, {1: Rescue((None,))}, {0: Card(5)})
    return pos, turns


def test_a_planted_counterexample_in_phase_two_is_reachable_and_its_trace_replays(tmp_path: Path,
                                                                                  capsys: pytest.CaptureFixture[str]
                                                                                  ) -> None:
    start, turns = _short_game()
    planted = turns.replace(round=1)  # as the prover writes every position: the round is left free
    history = counterexample_history(planted)
    assert {k: v for k, v in history.items() if k != "trace"} == {
        "verdict": "reachable", "rounds": 2, "round": 3, "then": "no rescue; red chooses 5", "searched": 2}
    path = tmp_path / "history.json"
    path.write_text(json.dumps(history["trace"]))
    trace = load_trace(path)
    replayed = replay(trace)
    assert replayed.ok and len(replayed.records) == 2
    assert main(["replay", str(path)]) == 0
    # The history found is another than the one planted: blue's second canoe still in the falls, not rescued, the
    # first back in the port; phase I then chooses red's 5 and gives the very position.
    end = replayed.records[-1].end
    assert trace.setup == setup_for(turns)
    assert [c.place for c in end.players[1].canoes] == ["port", "fallen"]
    assert phase_one(end, turns) == (((0, Rescue()), (1, Rescue())), turns)
    # From the planted start of round 3 (both of blue's canoes fallen), phase I is blue's free rescue (R-RESCUE-2).
    assert phase_one(start, turns) == (((0, Rescue()), (1, Rescue((None,)))), turns)
    assert history_line(history) == ("a game reaches it: round 3, after 2 rounds from the setup; then no rescue; red "
                                     "chooses 5 (its trace: --json, history.trace; replay plays it)")
    # The start of round 3 itself (a rescue's counterexample is one): reachable too, nothing after the rounds.
    assert {k: v for k, v in counterexample_history(start.replace(round=1)).items() if k != "trace"} == {
        "verdict": "reachable", "rounds": 2, "round": 3, "searched": 2}


def test_the_catalogue_report_carries_a_planted_counterexample_s_history() -> None:
    _, turns = _short_game()
    from niagara_solver.model.switches import SwitchPhase
    ce = Counterexample(SwitchPhase.TURN, turns.replace(round=1), turns, "red holds card 5", ["planted"], "planted")
    result = PropertyResult("R-PROP-10", "no deadlock", None, 0.0, "planted", (), (SwitchPhase.TURN,), ce)
    from niagara_solver.model.verdict import Verdict
    result = dataclasses.replace(result, verdict=Verdict.REFUTED)
    merged = MergedProperty(result, ((2, Verdict.REFUTED),), 0.0, (2, result))
    report = catalogue_with_histories(CatalogueReport(turns.board, STANDARD, (2,), (merged,)))
    item = report.to_json()["properties"][0]
    assert item["history"]["verdict"] == "reachable" and item["history"]["round"] == 3


def test_a_position_one_round_cannot_leave_is_excluded_by_the_search_and_later_rounds_are_unknown() -> None:
    # A ruby in the amethyst cave of the standard board, hands of round 2: no first round unloads it there (the ruby
    # cave is 7 discs down); every successor of the setup's round is compared, then round 9 is beyond 1 round.
    setup = Position.initial(["red", "blue"])
    caves = list(setup.caves)
    caves[Colour.RUBY - 1] = caves[Colour.RUBY - 1].minus(Colour.RUBY, 1)
    caves[Colour.AMETHYST - 1] = caves[Colour.AMETHYST - 1].plus(Colour.RUBY, 1)
    players = tuple(dataclasses.replace(p, hand=FULL_HAND[:6]) for p in setup.players)
    pos = setup.replace(caves=tuple(caves), players=players)
    history = counterexample_history(pos, rounds=1)
    assert history == {"verdict": "unknown", "rule": "LIMITS", "searched": 1, "reason":
                       "no game reaches it in round 2: every play of round 1 explored; its hands (6 cards each) "
                       "are those of rounds 2, 9, ... (R-CARD-2); round 9 needs 8 rounds of history, more than the "
                       "1 searched"}
    # The search's claim, held to the rounds' enumeration: no round from either setup of round 2 leaves it.
    for lifebuoy in (0, 1):
        game = Position.initial(["red", "blue"], lifebuoy=lifebuoy)
        assert all(after != pos.replace(round=2, lifebuoy=(lifebuoy + 1) % 2) for after, _ in rounds(game))


def test_counting_refutes_every_round() -> None:
    setup = Position.initial(["red", "blue"])
    uneven = setup.with_player(1, dataclasses.replace(setup.players[1], hand=FULL_HAND[:4]))
    assert counterexample_history(uneven) == {
        "verdict": "not reachable", "rule": "R-CARD-2", "searched": 2,
        "reason": "every player plays one card a round, so all hands hold as many cards at the start of a round and "
                  "one fewer once played; here red 7, blue 4"}
    caves = list(setup.caves)
    caves[0] = caves[0].minus(Colour.AMETHYST, 1)
    missing = setup.replace(caves=tuple(caves))
    assert counterexample_history(missing)["reason"] == ("the game has 8 gems of each colour, this position 7, 8, 8, "
                                                         "8, 8")


def test_a_position_after_a_turn_is_not_searched() -> None:
    _, turns = _short_game()
    from niagara_solver.engine.turns import legal_turns
    after = legal_turns(turns, 0, Card(5))[0].position
    assert after.phase is Phase.TURNS and after.acted == (0,)
    assert counterexample_history(after) == {
        "verdict": "unknown", "rule": "FORMAT", "searched": 2,
        "reason": "a position within a round (a turn taken, or the flow to come): only a start of round, or phase "
                  "II before anyone acted, is searched"}


def test_out_of_time_is_unknown_never_a_guess() -> None:
    _, turns = _short_game()
    with time_limit(0.0):
        assert counterexample_history(turns) == {"verdict": "unknown", "rule": "LIMITS", "searched": 2,
                                                 "reason": "the time limit ran out before it was asked"}


def test_a_position_file_is_read_as_the_prover_writes_it() -> None:
    _, turns = _short_game()
    assert counterexample_history(position_to_json(turns.replace(round=1)))["verdict"] == "reachable"


def test_history_asks_a_phase_two_position_about_the_start_of_its_round(capsys: pytest.CaptureFixture[str],
                                                                         tmp_path: Path) -> None:
    from niagara_solver.games.history import history
    _, turns = _short_game()
    found = history(turns)
    assert (found.word, len(found.records), found.round, found.then) == ("reachable", 2, 3, "no rescue; red chooses 5")
    assert found.records[0].start == setup_for(turns)
    assert phase_one(found.records[-1].end, turns) is not None
    # The same position written in round 4 has round 3's hands: counting refuses it (R-CARD-2).
    assert str(history(turns.replace(round=4)).reason) == ("at the start of round 4 every hand holds 4 cards, here 5")
    path = tmp_path / "turns.json"
    path.write_text(json.dumps(position_to_json(turns)))
    trace = tmp_path / "trace.json"
    assert main(["history", str(path), "--trace", str(trace)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1] == "reachable in 2 rounds"
    assert out.rstrip().splitlines()[-1] == "then, in round 3: no rescue; red chooses 5"
    assert main(["replay", str(trace)]) == 0
    capsys.readouterr()
    # Not reachable: the answer is printed with its status, and no trace is written.
    path.write_text(json.dumps(position_to_json(turns.replace(round=4))))
    none = tmp_path / "none.json"
    assert main(["history", str(path), "--trace", str(none)]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines()[1].startswith("not reachable: at the start of round 4 every hand holds 4 cards")
    assert err == f"niagara-solve: --trace: {none} not written: no history was found\n"
    assert not none.exists()


def test_sweep_and_diff_give_each_counterexample_its_history(issue_board: str, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    from niagara_solver.design.sweep import parse_grid, sweep
    grid = parse_grid({"switches": {"must_move": [False]}, "boards": [issue_board], "players": 2, "timeout": 120})
    (row,) = sweep(grid).rows
    assert row["refuted"] == ["R-PROP-10"]
    assert row["histories"]["R-PROP-10"]["verdict"] == "unknown"
    assert row["histories"]["R-PROP-10"]["reason"].startswith("its hands (1 card each) are those of rounds 7, 14")
    empty = tmp_path / "puzzles"
    empty.mkdir()
    assert main(["diff", "standard", "bga-2013-05-09", "--board", issue_board, "--players", "2", "--puzzles",
                 str(empty), "--json"]) == 0
    (prop,) = [p for p in json.loads(capsys.readouterr().out)["properties"] if p["id"] == "R-PROP-10"]
    assert prop["history_a"]["verdict"] == prop["history_b"]["verdict"] == "unknown"
