"""The benchmark script stays runnable (``make bench`` is not run by CI; this keeps it from rotting)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))

import bench_engine  # noqa: E402


def test_bench_inputs_are_phase_two_queries():
    work = bench_engine.queries(bench_engine.fixed_positions()[:2])
    assert work and all(pos.phase.value == "turns" for pos, _, _ in work)
    assert sum(len(bench_engine.legal_turns(pos, i, card)) for pos, i, card in work) > 0


def test_bench_certify_times_the_two_commands_and_reads_the_check():
    import bench_certify
    from niagara_solver.solver.answers import Goal

    path = os.path.join(bench_certify.ROOT, "puzzles", "win-two-gems-home.json")
    seconds, word = bench_certify.command(path, "red", Goal.WIN, 1, "both", 60.0)
    assert seconds > 0 and word == "accepted"
    assert bench_certify.command(path, "red", Goal.WIN, 1, "search", 60.0)[1] == "answered"


def test_bench_bmc_targets_are_queries_on_both_boards():
    import bench_bmc
    from niagara_solver.model.board import Board, standard_board
    from niagara_solver.model.query import parse_query

    for board in (Board.from_json(bench_bmc.SHORT, "board"), standard_board()):
        read = [parse_query(text, ["red", "blue"], board) for text in bench_bmc.TARGETS.values()]
        assert [str(q) for q in read][:2] == ["loaded(any) >= 1", "fallen(any) >= 1"]


def test_bench_reach_finds_the_same_positions_both_ways():
    import bench_reach

    reach = bench_reach.run_reach(2, "standard", 1)
    plain = bench_reach.run_plain(2, "standard", 1)
    assert reach["positions"] == plain["positions"] == 100  # the setup and the 99 positions after its first round


def test_every_benchmark_prints_its_machine_and_collects_cycles_as_a_command_does():
    # A figure is read with the machine and its load (benchmarks/machine.py), and measures what a user of the command
    # line waits for: the benchmark's process collects cycles as a command's (niagara_solver/jobs.py).
    import gc
    import glob
    import re

    from niagara_solver.jobs import COLLECTOR_THRESHOLDS

    folder = os.path.join(os.path.dirname(__file__), "..", "benchmarks")
    scripts = sorted(glob.glob(os.path.join(folder, "bench_*.py")))
    assert len(scripts) >= 11
    for script in scripts:
        with open(script, encoding="utf-8") as f:
            text = f.read()
        printed = re.search(r'\{machine\(\)\}', text)
        assert "from machine import machine" in text and printed, script
    gc.set_threshold(700, 10, 10)
    try:
        sys.modules.pop("machine", None)
        import machine  # noqa: F401
        assert gc.get_threshold() == COLLECTOR_THRESHOLDS
    finally:
        gc.set_threshold(*COLLECTOR_THRESHOLDS)


def test_bench_query_reads_the_same_answers_both_ways():
    import bench_query
    from niagara_solver.model.query import Query, parse_query

    found = bench_query.positions(1)
    queries = [parse_query(text, bench_query.NAMES) for text in bench_query.TEXTS]
    compiled = bench_query.answers(Query.holds, queries, found)
    assert compiled == bench_query.answers(Query.holds_as_read, queries, found) and True in compiled
    assert bench_query.main(["--games", "1", "--repeats", "1"]) == 0


def test_bench_enumerate_lists_the_same_outcomes_both_ways():
    import bench_enumerate
    from niagara_solver.encoding.enumerate import Enumerator
    from niagara_solver.encoding.relations import Relations

    (pos, player, card), *_ = bench_enumerate.cases(1, 1, cards=1)
    older, default = (Enumerator(Relations.of(pos), arith_solver=a).turns(pos, player, card) for a in (2, None))
    assert older == default and len(older) >= 2
    assert bench_enumerate.main(["--rounds", "1", "--cards", "1", "--repeats", "1"]) == 0
