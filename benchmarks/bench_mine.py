"""Mining benchmark (``make bench``): puzzles found per minute, and the share of the time spent playing, solving,
certifying, replaying and rating, as ``niagara-solve mine`` mines.

Seeded four-player games (standard rules) are mined for the win and the steal within one round, each question
with the command's default time limit, in ``--jobs`` processes (default 1; ``--jobs 2`` on two cores). The figures
depend on the games: a game with many steals in reach gives many puzzles. ``--games`` sets how many, ``--seed`` the
run's seed. With one process the CPU time is given too (the seconds of the phases are wall-clock seconds): on a
shared machine it is the steadier figure. A question's time limit is wall-clock, so on a busy machine more questions
run out of it (``unknown``) and the puzzles found may differ; the kept puzzles' names are printed to compare runs.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from machine import machine  # noqa: E402
from niagara_solver.design.mine import PHASES, MineSettings, mine  # noqa: E402
from niagara_solver.model.board import standard_board  # noqa: E402
from niagara_solver.model.ruleset import PRESETS  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2, help="four-player games mined (default 2)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    settings = MineSettings(PRESETS["standard"], standard_board(), (args.players,), args.games, ("win", "steal"),
                            (1,), seed=args.seed)
    cpu = time.process_time()
    report = mine(settings, jobs=args.jobs)
    cpu = time.process_time() - cpu
    work = sum(report.phases.values()) or 1.0
    shares = ", ".join(f"{phase} {100 * report.phases[phase] / work:.0f}%" for phase in PHASES)
    print(f"mine: {args.games} {args.players}-player game(s), seed {args.seed}, win and steal within 1 round, "
          f"--jobs {args.jobs}: {report.asked} questions, {len(report.puzzles)} puzzles in {report.seconds:.1f} s = "
          f"{report.per_minute:.1f} puzzles a minute, {report.seconds / args.games:.1f} s a game; time: {shares}; "
          f"dropped: " + ", ".join(f"{why} {n}" for why, n in report.dropped.items()))
    if args.jobs == 1:
        print(f"CPU: {cpu:.1f} s = {cpu / args.games:.1f} s a game, {60 * len(report.puzzles) / cpu:.1f} puzzles a "
              f"minute of CPU")
    print("puzzles: " + " ".join(p.name for p in report.puzzles))


if __name__ == "__main__":
    main()
