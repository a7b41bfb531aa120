"""Solver benchmarks (``make bench``): seconds per query for each backend, side by side in one run, with their
ratio, on the puzzle suite and on generated positions (horizon 1 for 5 players; horizon 2 for 3 players)."""

from __future__ import annotations

import os
import random
import statistics
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)

from machine import machine  # noqa: E402

from niagara_solver.solver.answers import Goal  # noqa: E402
from niagara_solver.solver.solve import answer_with  # noqa: E402
from niagara_solver.play.playout import random_playout  # noqa: E402
from niagara_solver.model.format import load_document  # noqa: E402
from niagara_solver.model.position import Position  # noqa: E402

FOLDER = os.path.join(ROOT, "puzzles")


def timed(pos: Position, x: int, goal: Goal, horizon: int, backend: str) -> tuple[float, str]:
    start = time.perf_counter()
    answer = answer_with(pos, x, goal, horizon, backend, timeout=600)
    return time.perf_counter() - start, answer.verdict


def generated(players: int, count: int, seed: int) -> list[Position]:
    """Start-of-round positions from seeded greedy games (every 3rd round from round 6)."""
    out = []
    game = 0
    while len(out) < count:
        start = Position.initial([f"p{i}" for i in range(players)])
        for k, record in enumerate(random_playout(start, seed + game, rounds=24, policy="greedy")):
            if k >= 5 and k % 3 == 0 and len(out) < count:
                out.append(record.start)
        game += 1
    return out


def compare(label: str, queries: list[tuple[Position, int, Goal, int]], backends: list[str]) -> None:
    times: dict[str, list[float]] = {b: [] for b in backends}
    disagree = 0
    for pos, x, goal, horizon in queries:
        verdicts = set()
        for b in backends:
            seconds, verdict = timed(pos, x, goal, horizon, b)
            times[b].append(seconds)
            verdicts.add(verdict)
        disagree += len(verdicts) > 1
    parts = [f"{b} median {statistics.median(times[b]):.3f} s, max {max(times[b]):.2f} s" for b in backends]
    ratio = ""
    if len(backends) == 2:
        ratio = f"; median ratio smt/search x{statistics.median(s / max(q, 1e-4) for q, s in zip(*times.values())):.0f}"
    print(f"{label}: {len(queries)} queries; " + "; ".join(parts) + ratio + f"; disagreements {disagree}")


def main() -> None:
    print(f"machine: {machine()}")
    puzzles = []
    for name in sorted(os.listdir(FOLDER)):
        if name.endswith(".json"):
            pos, extras = load_document(os.path.join(FOLDER, name))
            if "puzzle" in extras:
                p = extras["puzzle"]
                puzzles.append((pos, pos.index(p["player"]), Goal(p["goal"]), p["horizon"]))
    compare("puzzles, both backends", puzzles, ["search", "smt"])
    rng = random.Random(5)
    five = [(pos, rng.randrange(5), Goal.WIN, 1) for pos in generated(5, 20, 100)]
    compare("5 players, horizon 1, win, search", five, ["search"])
    compare("5 players, horizon 1, win, both (first 5)", five[:5], ["search", "smt"])
    three = [(pos, rng.randrange(3), Goal.WIN, 2) for pos in generated(3, 6, 200)]
    compare("3 players, horizon 2, win, search", three, ["search"])
    compare("3 players, horizon 2, win, both (first 3)", three[:3], ["search", "smt"])


if __name__ == "__main__":
    main()
