"""Reading a query on a position (``make bench``): the walk compiled once into closures (``Query.holds``,
model/query.py ``compiled``) side by side with the walk every reading shares (``Query.holds_as_read``, the reference
it is tested against), on every position of seeded games, for queries of the kinds the whole-game search reads
(a bank, an and-chain binding ``that``, the goal, ``or`` of ``any`` and ``all``). The medians of ``--repeats`` runs
of each, in one process, and their ratio; both give the same answers (asserted).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Callable

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from machine import machine, print_medians  # noqa: E402

from niagara_solver.model.position import Position  # noqa: E402
from niagara_solver.model.query import Query, parse_query  # noqa: E402
from niagara_solver.play.playout import random_playout  # noqa: E402

NAMES = ["red", "blue", "green"]
TEXTS = ("bank(red) >= 2", "bank(any) >= 2 and fallen(that) == 0", "goal(any)",
         "fallen(any) == 2 or bank(all) >= 1")


def positions(games: int) -> list[Position]:
    """Every position of ``games`` seeded 3-player games of 12 rounds (the start, phase II, the flow, the end)."""
    out: list[Position] = []
    for seed in range(games):
        for record in random_playout(Position.initial(NAMES), seed, rounds=12, policy="greedy"):
            out += [record.start, record.turns_start, record.before_flow, record.end]
    return out


def answers(read: Callable[[Query, Position], bool], queries: list[Query], found: list[Position]) -> list[bool]:
    return [read(q, pos) for q in queries for pos in found]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args(argv)
    found = positions(args.games)
    queries = [parse_query(text, NAMES) for text in TEXTS]
    ways: dict[str, Callable[[Query, Position], bool]] = {"compiled": Query.holds, "shared walk": Query.holds_as_read}
    assert answers(ways["compiled"], queries, found) == answers(ways["shared walk"], queries, found)
    seconds: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(args.repeats):
        for name, read in ways.items():  # interleaved: a slower stretch of the machine slows both alike
            began = time.perf_counter()
            answers(read, queries, found)
            seconds[name].append(time.perf_counter() - began)
    reads = len(found) * len(queries)
    print(f"machine: {machine()}")
    print(f"{reads} reads ({len(found)} positions of {args.games} seeded games x {len(queries)} queries), "
          f"median of {args.repeats}:")
    print_medians(seconds, reads, "reads", milliseconds=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
