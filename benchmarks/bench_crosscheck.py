"""Cross-check benchmark (``make bench``): positions cross-checked per second, before and after, side by side in one
run, over the same goal positions, seeded playout positions and first rounds (standard rules and board).

- ``reference``: the earlier path (``crosscheck(..., reference=True)``): a fresh solver per position and canoe order
  for turns, every model of a round enumerated, the goal positions searched;
- ``incremental, goals searched``: each relation asserted once per player count, the engine's outcomes confirmed
  and one question for any other, flows evaluated; the goal positions searched (a cold cache);
- ``incremental, goals kept``: the same, the goal positions read from the cache the run before wrote;
- ``incremental, plain solver, goals kept``: the same, but each question for other results (a turn's, a round's)
  put to a plain solver rather than one that simplifies the pinned relation first (``preprocess=False``: the
  incremental path before that change);
- ``incremental, goals kept, --jobs N``: the same as ``goals kept``, the positions compared in a pool of N processes
  (``crosscheck(..., jobs=N)``; its CPU seconds are this process's only, the pool's are not counted).

``--quick`` runs only the last two (after one untimed run that writes the goal positions to the cache).

Each variant runs in this process from a fresh z3 context; wall-clock seconds and this process's CPU seconds are
both shown (the CPU figure is the steadier one on a shared machine). ``--repeat N`` runs the variants N times,
alternated, and shows medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from machine import machine  # noqa: E402

from niagara_solver.model.board import standard_board  # noqa: E402
from niagara_solver.model.ruleset import Ruleset  # noqa: E402
from niagara_solver.verify.crosscheck import crosscheck  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=6, help="playout positions (default 6)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each variant, alternated (medians)")
    parser.add_argument("--no-reference", action="store_true", help="skip the earlier path (it takes longest)")
    parser.add_argument("--jobs", type=int, default=2, help="processes of the pool variant (default 2)")
    parser.add_argument("--quick", action="store_true", help="only goals kept, in one process and in the pool")
    args = parser.parse_args()
    board, rules = standard_board(), Ruleset()
    print(f"crosscheck benchmark on {machine()}")
    print(f"standard rules and board, --count {args.count} --seed {args.seed}, {args.repeat} run(s) per variant")
    pool = f"incremental, goals kept, --jobs {args.jobs}"
    variants = [("incremental, goals searched", False, "cold"),
                ("incremental, plain solver, goals kept", False, "plain"), ("incremental, goals kept", False, "warm"),
                (pool, False, "pool")]
    if args.quick:
        variants = variants[2:]
    elif not args.no_reference:
        variants.insert(0, ("reference (earlier path)", True, None))
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in variants}
    shapes: dict[str, tuple[int, dict[str, int], int, int]] = {}
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as cache:
            if args.quick:  # the goal positions into the cache, untimed
                crosscheck(board, rules, count=0, rounds=False, cache=cache)
            for name, reference, goals in variants:
                cpu = time.process_time()
                report = crosscheck(board, rules, count=args.count, seed=args.seed, reference=reference,
                                    cache=cache if goals else None, preprocess=goals != "plain",
                                    jobs=args.jobs if goals == "pool" else 1)
                runs[name].append((report.seconds, time.process_time() - cpu))
                shapes[name] = (report.positions, dict(sorted(report.cases.items())), report.outcomes,
                                len(report.mismatches) + len(report.unknown))
    first = shapes[variants[0][0]]
    if any(shape[:3] != first[:3] for shape in shapes.values()):
        print("WARNING: the variants did not compare the same cases:", shapes)
    positions, cases, outcomes, _ = first
    print(f"{positions} positions, {sum(cases.values())} cases "
          f"({', '.join(f'{k} {v}' for k, v in cases.items())}), {outcomes} outcomes; "
          f"mismatches and unknown: {', '.join(str(s[3]) for s in shapes.values())}")
    base = statistics.median(w for w, _ in runs[variants[0][0]])
    base_cpu = statistics.median(c for _, c in runs[variants[0][0]])
    print(f"{'variant':40} {'wall s':>8} {'positions/s':>12} {'CPU s':>8} {'per CPU s':>10} {'cases/s':>8} "
          f"{'ratio (wall)':>13} {'ratio (CPU)':>12}")
    for name, _, _ in variants:
        wall = statistics.median(w for w, _ in runs[name])
        cpu = statistics.median(c for _, c in runs[name])
        if name == pool:  # the pool's CPU seconds are spent in other processes: not comparable
            print(f"{name:40} {wall:8.1f} {positions / wall:12.2f} {'-':>8} {'-':>10} "
                  f"{sum(cases.values()) / wall:8.2f} {base / wall:12.1f}x {'-':>12}")
            continue
        print(f"{name:40} {wall:8.1f} {positions / wall:12.2f} {cpu:8.1f} {positions / cpu:10.2f} "
              f"{sum(cases.values()) / wall:8.2f} {base / wall:12.1f}x {base_cpu / cpu:11.1f}x")
    kept = runs["incremental, goals kept"]
    print(f"--jobs {args.jobs} against one process (goals kept): "
          f"{statistics.median(w for w, _ in kept) / statistics.median(w for w, _ in runs[pool]):.2f}x wall-clock")
    if args.quick:
        print(f"load average after the runs: {' '.join(open('/proc/loadavg').read().split()[:3])}")
        return
    plain = runs["incremental, plain solver, goals kept"]
    print(f"simplifying the pinned relation first, against a plain solver (goals kept): "
          f"{statistics.median(w for w, _ in plain) / statistics.median(w for w, _ in kept):.2f}x wall-clock, "
          f"{statistics.median(c for _, c in plain) / statistics.median(c for _, c in kept):.2f}x CPU")
    print(f"load average after the runs: {' '.join(open('/proc/loadavg').read().split()[:3])}")


if __name__ == "__main__":
    main()
