"""The levels walk in several processes (docs/GAMES.md, "Several processes"): ``reach`` and ``invariant`` with
``jobs`` > 1 (or a Dask cluster) give exactly the one-process answer — verdict, fewest rounds, depth, distinct,
generated and pruned counts, and the same trace, round for round — on the small starts of tests/test_games.py and
2-player queries from the standard setup; the limits stop them as they stop one process; the positions travel
packed (model/position.py ``pack``), which gives every position back."""

from __future__ import annotations

import dataclasses
import glob
import json
import os
import pickle
from typing import Any

import pytest

from test_games import EVENT_QUERIES, BOUNDED_QUERIES, near_goal_start, small_start
from niagara_solver.cli.main import main
from niagara_solver.design.simulate import start_position
from niagara_solver.games.bounds import query_bound
from niagara_solver.games.rounds import rounds
from niagara_solver.games.search import ReachResult, invariant, reach
from niagara_solver.jobs import Workers
from niagara_solver.model.format import load_board, load_document, load_ruleset
from niagara_solver.model.limits import time_limit
from niagara_solver.model.position import Canoe, Joe, Player, Position, pack, unpack
from niagara_solver.model.query import parse_query
from niagara_solver.model.verdict import Verdict

ROOT = os.path.join(os.path.dirname(__file__), "..")


def answer(result: ReachResult) -> tuple[Any, ...]:
    """Everything a search answers but its seconds: the trace as its rounds' choices and positions."""
    return (result.verdict, result.rounds, result.depth, result.distinct, result.generated, result.pruned,
            result.stopped, result.exhausted, [(t.step, t.position) for t in result.trace])


def setup(players: int = 2) -> Position:
    return start_position(load_board("standard"), load_ruleset("standard"), players)


# -- the same answers ----------------------------------------------------------------------------------------------

def test_every_query_of_the_small_starts_is_answered_alike_by_two_and_three_processes() -> None:
    """The queries tests/test_games.py holds to a plain enumeration (events and the tally, bounds), from both small
    starts, with and without the bound: the same answer, counts and trace with 1, 2 and 3 processes."""
    verdicts = set()
    for start in (small_start(), near_goal_start()):
        for text in [*EVENT_QUERIES, *BOUNDED_QUERIES, "canoes(red, 3) == 2"]:
            query = parse_query(text, ["red", "blue"], start.board)
            for bound in {None, query_bound(query)}:
                one = reach(start, query, 2, bound=bound)
                assert answer(reach(start, query, 2, bound=bound, jobs=2)) == answer(one), (text, bound)
                assert answer(reach(start, query, 2, bound=bound, jobs=3)) == answer(one), (text, bound)
                verdicts.add((one.verdict, one.rounds))
    # Both answers and every round count occur: found at the start, in round 1, in round 2, and not within 2.
    assert {(Verdict.CONFIRMED, 0), (Verdict.CONFIRMED, 1), (Verdict.CONFIRMED, 2), (Verdict.REFUTED, None)} <= verdicts


@pytest.mark.parametrize("text, bound, want", [
    # The bound drops 66 positions after round 1; a bank in round 2, found by the dive.
    ("bank(any) >= 1", True, (Verdict.CONFIRMED, 2, 1, 34, 1070, 66)),
    # Both canoes of a player over the falls: round 2.
    ("fallen(any) == 2", False, (Verdict.CONFIRMED, 2, 1, 100, 301, 0)),
])
def test_two_players_from_the_setup_alike_in_two_processes(monkeypatch: pytest.MonkeyPatch, text: str, bound: bool,
                                                           want: tuple[Any, ...]) -> None:
    start = setup()
    query = parse_query(text, ["red", "blue"], start.board)
    b = query_bound(query) if bound else None
    one = reach(start, query, 2, bound=b)
    tasks: list[int] = []
    batch = Workers.run

    def counted(self: Workers, batch_tasks: Any, *rest: Any) -> Any:
        tasks.append(len(batch_tasks))
        return batch(self, batch_tasks, *rest)
    monkeypatch.setattr(Workers, "run", counted)
    two = reach(start, query, 2, bound=b, jobs=2)
    assert tasks == [1, 2]  # round 1 from the one start in one part; round 2 in two
    assert answer(one)[:6] == want
    assert answer(two) == answer(one)
    last = two.trace[-1]
    assert len(two.trace) == 2 and query.holds(last.position, last.step.events)


def test_an_invariant_is_answered_alike() -> None:
    start = small_start()
    for text, verdict, rounds_ in [("fallen(blue) < 2", Verdict.REFUTED, 1), ("bank(blue) == 0", Verdict.CONFIRMED,
                                                                               None)]:
        query = parse_query(text, ["red", "blue"], start.board)
        one, two = invariant(start, query, 2), invariant(start, query, 2, jobs=2)
        assert (one.verdict, one.rounds) == (verdict, rounds_)
        assert answer(two) == answer(one)


# -- the limits ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("limit, depth, distinct", [(50, 0, 51), (200, 1, 201)])
def test_out_of_memory_stops_at_the_same_position(limit: int, depth: int, distinct: int) -> None:
    # The small start's first level holds 85 positions, its second 557: the limit is passed in the first, or in the
    # second (then round 1 was explored in full).
    query = parse_query("bank(blue) >= 3", ["red", "blue"], small_start().board)
    one = reach(small_start(), query, 3, max_positions=limit)
    two = reach(small_start(), query, 3, max_positions=limit, jobs=2)
    assert (one.verdict, one.stopped, one.depth, one.distinct) == (Verdict.UNKNOWN, "memory", depth, distinct)
    assert answer(two) == answer(one)


def test_out_of_time_is_unknown_with_the_rounds_explored() -> None:
    # Round 2 from the 2-player setup lists some 89,000 rounds (about 10 s): a third of a second is not enough,
    # round 1 (some 10 ms) is.
    start = setup()
    query = parse_query("goal(any)", ["red", "blue"], start.board)
    for jobs in (1, 2):
        with time_limit(0.3):
            result = reach(start, query, 2, jobs=jobs)
        assert (result.verdict, result.stopped, result.depth, result.rounds) == (Verdict.UNKNOWN, "time", 1, None)
    with time_limit(0.0):
        assert answer(reach(small_start(), query, 2, jobs=2))[:7] == (Verdict.UNKNOWN, None, 0, 1, 0, 0, "time")


# -- the command line ----------------------------------------------------------------------------------------------

def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def _without_seconds(text: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(text)
    data.pop("seconds")
    return data


@pytest.mark.parametrize("argv", [
    # stole(any) has no bound: reach walks it level by level whatever --walk says, so --jobs splits it.
    ["reach", "stole(any) >= 1", "--players", "2", "--rounds", "2", "--walk", "decisions"],
    ["reach", "bank(any) >= 1", "--players", "2", "--rounds", "2", "--walk", "levels"],
    ["invariant", "fallen(any) < 2", "--players", "2", "--rounds", "2"],
])
def test_reach_and_invariant_answer_alike_with_jobs(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    status, one, _ = run(capsys, *argv, "--json")
    status2, two, _ = run(capsys, *argv, "--json", "--jobs", "2")
    assert status == status2 and _without_seconds(two) == _without_seconds(one)
    assert (status, json.loads(one)["rounds"], len(json.loads(one)["trace"]["rounds"])) == (
        1 if argv[0] == "invariant" else 0, 2, 2)
    if argv[1].startswith("stole"):  # a steal needs an upstream move: round 2, after every play of round 1
        assert (json.loads(two)["distinct"], json.loads(two)["generated"]) == (100, 16376)


@pytest.mark.parametrize("argv, line", [
    (["reach", "bank(red) >= 1", "--jobs", "2"],
     "niagara-solve: error: --jobs: the decisions walk (the default for a target with a bound) runs in one process; "
     "give --walk levels to split each level across processes (FORMAT)"),
    (["reach", "goal(any)", "--walk", "decisions", "--scheduler", "tcp://127.0.0.1:1"],
     "niagara-solve: error: --scheduler: the decisions walk (the default for a target with a bound) runs in one "
     "process; give --walk levels to split each level across processes (FORMAT)"),
    (["reach", "bank(red) >= 1", "--jobs", "0"],
     "niagara-solve: error: reach: invalid value for '--jobs': 0 is not in the range x>=1 "
     "(niagara-solve reach --help)"),
    (["invariant", "bank(red) == 0", "--jobs", "0"],
     "niagara-solve: error: invariant: invalid value for '--jobs': 0 is not in the range x>=1 "
     "(niagara-solve invariant --help)"),
])
def test_jobs_refused_in_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], line: str) -> None:
    status, out, err = run(capsys, *argv)
    assert (status, out, err) == (2, "", line + "\n")


def test_reach_on_a_local_dask_cluster_answers_alike(capsys: pytest.CaptureFixture[str], tmp_path: Any) -> None:
    distributed = pytest.importorskip("distributed")
    argv = ["reach", "canoes(red, 3) == 2", "--players", "2", "--board",
            os.path.join(ROOT, "puzzles", "boards", "short-fork.json"), "--rounds", "2", "--json"]
    status, local, _ = run(capsys, *argv)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        status_dask, remote, _ = run(capsys, *argv, "--scheduler", cluster.scheduler_address)
    assert status == status_dask == 0
    assert _without_seconds(remote) == _without_seconds(local)
    assert json.loads(local)["rounds"] == 2


# -- packed positions ----------------------------------------------------------------------------------------------

def test_pack_knows_every_field() -> None:
    """pack writes each of these fields: a field added to a class must be added to pack and unpack, and here."""
    def compared(cls: Any) -> list[str]:
        return [f.name for f in dataclasses.fields(cls) if f.compare]
    assert compared(Position) == ["players", "caves", "lifebuoy", "weather", "forks", "round", "phase", "acted",
                                  "board", "ruleset", "whirlpool", "beaver", "moose", "joe"]
    assert compared(Player) == ["name", "canoes", "hand", "bank", "card", "card_budget"]
    assert compared(Canoe) == ["place", "gems", "kind", "moose", "moored"]
    assert compared(Joe) == ["place", "gem"]


def _positions() -> list[Position]:
    """The 2-player setup and its first two levels (a part), the small starts of tests/test_games.py and the first
    level of one, and every expansion puzzle (the whirlpool, the beaver, the moose, Joe, the double canoe, the
    expansion's cards)."""
    start = setup()
    first = [c for c, _ in rounds(start)]
    second = [c for p in first[:3] for c, _ in rounds(p)]
    three = [c for c, _ in rounds(small_start())]
    puzzles = [load_document(path)[0] for path in sorted(glob.glob(os.path.join(ROOT, "puzzles", "expansion",
                                                                                 "*.json")))]
    return [start, *first, *second, *three, near_goal_start(), *puzzles]


def test_pack_gives_every_position_back_and_tells_them_apart() -> None:
    positions = _positions()
    assert len(positions) > 2000
    assert any(p.joe is not None for p in positions) and any(p.moose is not None for p in positions)
    assert any(p.whirlpool is not None for p in positions) and any(p.beaver is not None for p in positions)
    packed = [pack(p) for p in positions]
    for pos, code in zip(positions, packed):
        back = unpack(pickle.loads(pickle.dumps(code)), pos.board, pos.ruleset)
        assert back == pos and hash(back) == hash(pos) and pack(back) == code
    by_board: dict[Any, set[Any]] = {}
    for pos, code in zip(positions, packed):
        by_board.setdefault((pos.board, pos.ruleset), set()).add(code)
    assert sum(len(codes) for codes in by_board.values()) == len(set(positions))
    # Only plain values: no enum, no Gems, nothing that pickles by calling Python.
    plain = (int, str, bool, type(None))

    def flat(value: Any) -> bool:
        if isinstance(value, tuple):
            return type(value) is tuple and all(flat(v) for v in value)
        return type(value) in plain
    assert all(flat(code) for code in packed)
