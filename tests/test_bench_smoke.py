"""The benchmark script stays runnable (``make bench`` is not run by CI; this keeps it from rotting)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))

import bench_engine  # noqa: E402


def test_bench_inputs_are_phase_two_queries():
    work = bench_engine.queries(bench_engine.fixed_positions()[:2])
    assert work and all(pos.phase.value == "turns" for pos, _, _ in work)
    assert sum(len(bench_engine.legal_turns(pos, i, card)) for pos, i, card in work) > 0
