"""How far ahead the search backend sees (``make bench``): a fixed set of mid-game questions (12 positions from
seeded games, 3 and 4 players, rounds 5 to 15, each asked win, steal and safe for one player), answered at horizons
1, 2 and 3 with a time limit each; how many are answered (not unknown), the median and slowest times, and at
horizon 3, on six of them (:data:`ABLATION`), the same with each pruning idea switched off and with none at all
(docs/SOLVER.md, "Pruning"), side by side in one run. Verdicts of every variant are compared: any difference is
reported.

    python benchmarks/bench_horizon.py [--limit 60] [--horizons 1,2,3] [--no-ablation]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from machine import machine  # noqa: E402

from niagara_solver.play.playout import random_playout  # noqa: E402
from niagara_solver.model.limits import OutOfTime  # noqa: E402
from niagara_solver.model.position import Position  # noqa: E402
from niagara_solver.solver.answers import Goal  # noqa: E402
from niagara_solver.solver.search import PLAIN, Pruning, Search  # noqa: E402

#: (players, seed of the game, rounds whose start positions are taken): two positions a game, three games a player
#: count, from the lookahead policy's seeded games (``play/playout.py``).
GAMES = [(3, 501, (6, 11)), (3, 502, (8, 13)), (3, 503, (5, 10)),
         (4, 601, (6, 11)), (4, 602, (8, 13)), (4, 603, (5, 10))]

#: The questions of horizon 3 asked again with each idea off: the dearest the search answers within the limit with
#: every idea on (1 to 21 s on the development machine), every goal twice; the quickest show no idea's effect.
ABLATION = ["3p seed 502 round 8, safe", "4p seed 602 round 8, safe", "3p seed 501 round 11, steal",
            "4p seed 602 round 8, steal", "4p seed 603 round 10, win", "3p seed 502 round 8, win"]


def fixed_positions() -> list[tuple[str, Position, int]]:
    """The fixed set: (name, start-of-round position, the player asked about, by seat from the round)."""
    out = []
    for players, seed, rounds in GAMES:
        start = Position.initial([f"p{i}" for i in range(players)])
        for record in random_playout(start, seed, rounds=max(rounds), policy="lookahead"):
            if record.start.round in rounds:
                x = record.start.round % players
                out.append((f"{players}p seed {seed} round {record.start.round}", record.start, x))
    return out


def queries() -> list[tuple[str, Position, int, Goal]]:
    """Every position asked every goal."""
    return [(f"{name}, {goal.value}", pos, x, goal) for name, pos, x in fixed_positions() for goal in Goal]


def timed(pos: Position, x: int, goal: Goal, horizon: int, limit: float,
          pruning: Pruning) -> tuple[float, bool | None, int]:
    """Seconds for the search's answer (value and line, as ``solve`` gets them), the verdict (None: unknown) and the
    positions searched (which, unlike the seconds, other work on the machine does not change)."""
    search = Search(x, goal, horizon, limit, pruning=pruning)
    start = time.perf_counter()
    try:
        verdict: bool | None = search.value(pos).value
    except OutOfTime:
        verdict = None
    return time.perf_counter() - start, verdict, search.nodes


def summary(times: list[float], verdicts: list[bool | None]) -> str:
    answered = [t for t, v in zip(times, verdicts) if v is not None]
    median = f"{statistics.median(times):.2f} s" if times else "-"
    slowest = f"{max(answered):.2f} s" if answered else "-"
    yes = sum(1 for v in verdicts if v)
    return f"{len(answered)}/{len(times)} answered ({yes} yes), median {median}, slowest answered {slowest}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per question (default 60)")
    parser.add_argument("--horizons", default="1,2,3", help="the horizons asked with every idea on ('' for none)")
    parser.add_argument("--no-ablation", action="store_true", help="skip horizon 3 with each idea off")
    args = parser.parse_args()
    work = queries()
    print(f"machine: {machine()}; {len(work)} questions, {args.limit:g} s each")
    verdicts: dict[tuple[int, int], bool | None] = {}
    for horizon in (int(h) for h in args.horizons.split(",") if h):
        times, found = [], []
        for i, (name, pos, x, goal) in enumerate(work):
            seconds, verdict, _ = timed(pos, x, goal, horizon, args.limit, Pruning())
            times.append(seconds)
            found.append(verdict)
            verdicts[(i, horizon)] = verdict
            print(f"  h{horizon} {name}: {'unknown' if verdict is None else 'yes' if verdict else 'no'} "
                  f"{seconds:.2f} s", flush=True)
        print(f"horizon {horizon}, every idea on: {summary(times, found)}", flush=True)
    if args.no_ablation:
        return
    order = [next(i for i, q in enumerate(work) if q[0] == name) for name in ABLATION]
    variants = [("every idea on", Pruning()), *((f"without {f.name}", Pruning().without(f.name))
                                                for f in dataclasses.fields(Pruning)),
                ("no pruning", PLAIN)]
    print(f"{len(order)} questions ({'; '.join(ABLATION)}), horizons 1 to 3, each variant in turn:")
    base: dict[int, list[float]] = {}
    differ = 0
    for label, pruning in variants:
        parts = []
        for horizon in (1, 2, 3):
            times, found, nodes = [], [], 0
            for i in order:
                _, pos, x, goal = work[i]
                seconds, verdict, searched = timed(pos, x, goal, horizon, args.limit, pruning)
                nodes += searched
                times.append(seconds)
                found.append(verdict)
                known = verdicts.setdefault((i, horizon), verdict)
                differ += verdict is not None and known is not None and verdict != known
            base.setdefault(horizon, times)
            ratio = statistics.median(t / max(b, 1e-3) for t, b in zip(times, base[horizon]))
            answered = sum(v is not None for v in found)
            parts.append(f"h{horizon} {answered}/{len(found)} median {statistics.median(times):.2f} s "
                         f"max {max(times):.2f} s (x{ratio:.1f}), {nodes} nodes")
        print(f"  {label}: " + "; ".join(parts), flush=True)
    print(f"(xN: median ratio of time to every idea on, question by question); verdicts that differ between "
          f"variants: {differ}; machine at the end: {machine()}")

if __name__ == "__main__":
    main()
