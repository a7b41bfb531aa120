"""The second reading of whole games (games/bmc.py): the time of each k of the bounded check, 2 players, on the
short custom board of tests/test_bmc.py and on the standard board, for a few targets (position predicates,
docs/QUERIES.md) up to K rounds (default 2), with a time limit per question; wall-clock and processor seconds
(other work on the machine slows the first). Every play found is replayed by the engine.

    python benchmarks/bench_bmc.py [--rounds 2] [--limit 60] [--boards short,standard] [--targets loaded,banked,...]
"""

from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from machine import machine  # noqa: E402

from niagara_solver.games.bmc import bounded_reach, replay  # noqa: E402
from niagara_solver.model.board import Board, standard_board  # noqa: E402
from niagara_solver.model.position import Position  # noqa: E402
from niagara_solver.model.query import parse_query  # noqa: E402

#: The short custom board of tests/test_bmc.py: 1 -> 2 -> 3 -> fork 4L / 4R -> the falls, one cave a disc.
SHORT = {"name": "short", "river": {"1": "2", "2": "3", "3": {"L": "4L", "R": "4R"}, "4L": "falls", "4R": "falls"},
         "caves": {"amethyst": ["1"], "diamond": ["2"], "amber": ["3"], "sapphire": ["4L"], "ruby": ["4R"]}}

#: The targets: position predicates (docs/QUERIES.md) by name.
TARGETS = {
    "loaded": "loaded(any) >= 1",
    "fallen": "fallen(any) >= 1",
    "banked": "bank(any) >= 1",
    "banked-two": "bank(any) >= 2",
    "cave-emptied": "cave(amethyst) == 0 or cave(diamond) == 0 or cave(amber) == 0 or cave(sapphire) == 0 "
                    "or cave(ruby) == 0",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="the bound K (default 2; 3 is out of reach for now)")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per question (default 60)")
    parser.add_argument("--boards", default="short,standard")
    parser.add_argument("--targets", default="loaded,banked,banked-two", help=f"of {', '.join(TARGETS)}")
    args = parser.parse_args()
    print(f"machine: {machine()}; K = {args.rounds}, {args.limit:g} s a question", flush=True)
    for board_name in args.boards.split(","):
        board = standard_board() if board_name == "standard" else Board.from_json(SHORT, "board")
        start = Position.initial(["red", "blue"], board)
        for name in args.targets.split(","):
            query = parse_query(TARGETS[name], [p.name for p in start.players])
            result = bounded_reach(start, query, args.rounds, timeout=args.limit)
            replay(result)  # the engine plays the decoded rounds to the decoded positions
            per_k = ", ".join(f"k={k}: {wall:.2f} s ({cpu:.2f} s cpu)"
                              for k, (wall, cpu) in enumerate(zip(result.seconds, result.cpu)))
            found = f"k = {result.k}" if result.k is not None else f"K = {args.rounds}"
            print(f"  {board_name} {name}: {result.reach.value} ({found}); {per_k}", flush=True)
    print(f"machine at the end: {machine()}")


if __name__ == "__main__":
    main()
