"""Parallel checks (``make bench``): the same ``check`` (the catalogue for 2 to 4 players and every bundled
puzzle) with ``--jobs 1`` and ``--jobs 2``, run alternately so machine noise hits both alike; medians of 3 runs
and their ratio."""

from __future__ import annotations

import os
import statistics
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)

from machine import machine  # noqa: E402

from niagara_solver.design.check import check  # noqa: E402
from niagara_solver.model.board import standard_board  # noqa: E402
from niagara_solver.model.ruleset import Ruleset  # noqa: E402

REPEATS = 3


def main() -> None:
    print(f"machine: {machine()}")
    puzzles = os.path.join(ROOT, "puzzles")
    times: dict[int, list[float]] = {1: [], 2: []}
    tasks = 0
    for _ in range(REPEATS):
        for jobs in (1, 2):
            start = time.perf_counter()
            report = check(standard_board(), Ruleset(), puzzles, [2, 3, 4], False, 120, jobs)
            times[jobs].append(time.perf_counter() - start)
            assert report.status == 0, report.to_json()
            tasks = 3 + len(report.puzzles)
    one, two = statistics.median(times[1]), statistics.median(times[2])
    print(f"check, {tasks} tasks (catalogue for 2, 3, 4 players and {tasks - 3} puzzles), {os.cpu_count()} cores: "
          f"--jobs 1 median {one:.1f} s, --jobs 2 median {two:.1f} s, speed-up x{one / two:.2f}")


if __name__ == "__main__":
    main()
