"""Certified answers (``make bench``): ``solve --backend both`` — the search's answer with its certificate checked by
the encoding (docs/SOLVER.md, "Certified answers") — against the search alone, on every bundled puzzle (puzzles/*.json
and puzzles/expansion) at horizons 1 and 2 where the encoding covers the rules. Medians of each and of their ratio
side by side, the worst case in seconds, the check's verdicts, and the machine.

Each question runs in this one process, the search first, then both: the encoding's relations are built once per
board, ruleset and player count and kept (solver/certify.py), as in any process that checks several answers. The
questions are asked grouped by that kind, so the first of each kind builds them (marked "relations built"); the
median ratio is given over all and over the others;
``--cold`` counts that building in every question, as a single ``niagara-solve solve --backend both`` pays it.

``--fixed`` asks the mid-game questions of ``bench_horizon.py`` (12 positions of seeded games, 3 and 4 players, each
asked win, steal and safe) instead of the puzzles.

``--commands`` measures what a user waits for instead: each question asked as the two commands
``niagara-solve solve POSITION --player X --goal G --horizon H --backend search`` and ``... --backend both``, each a
fresh process (start, imports, loading the position, building the encoding's relations, printing), alternated
``--repeats`` times; per question the median wall time of each and their ratio, and the median of those ratios.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

import z3

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from machine import machine  # noqa: E402

from niagara_solver.model.format import load_document  # noqa: E402
from niagara_solver.model.position import Position  # noqa: E402
from niagara_solver.model.readings import uncovered  # noqa: E402
from niagara_solver.model.ruleset import Reveal  # noqa: E402
from niagara_solver.solver import certify  # noqa: E402
from niagara_solver.solver.answers import Backend, Goal  # noqa: E402
from niagara_solver.solver.solve import solve_with  # noqa: E402

FOLDERS = [os.path.join(ROOT, "puzzles"), os.path.join(ROOT, "puzzles", "expansion")]


def questions() -> list[tuple[str, Position, int, Goal]]:
    """Every bundled puzzle whose rules the encoding covers: its name, position, player and goal."""
    out = []
    for folder in FOLDERS:
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".json"):
                continue
            pos, extras = load_document(os.path.join(folder, name))
            puzzle = extras.get("puzzle")
            if puzzle is None or uncovered(pos.ruleset, "encoding") or pos.ruleset.reveal is Reveal.AT_ONCE:
                continue
            out.append((name, pos, pos.index(puzzle["player"]), Goal(puzzle["goal"])))
    return out


def fixed_questions() -> list[tuple[str, Position, int, Goal]]:
    """The fixed set of ``bench_horizon.py``: 12 mid-game positions of seeded games (3 and 4 players), each asked
    win, steal and safe (named as there, with a ``.json``-long tail so the names print as the puzzles' do)."""
    import bench_horizon

    return [(f"{name}.json", pos, x, goal) for name, pos, x, goal in bench_horizon.queries()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--horizons", default="1,2", help="horizons to ask at (default 1,2)")
    parser.add_argument("--cold", action="store_true", help="build the encoding's relations for every question")
    parser.add_argument("--only", default="", help="only puzzles whose name contains this")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--commands", action="store_true",
                        help="time the two commands a user runs (--backend search, --backend both), each a process")
    parser.add_argument("--repeats", type=int, default=3, help="with --commands: runs of each command per question")
    parser.add_argument("--fixed", action="store_true",
                        help="the mid-game questions of bench_horizon.py instead of the puzzles (in this process)")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    if args.commands:
        commands(args)
        return
    print(f"{'puzzle':46s} {'h':>2s} {'answer':>6s} {'search s':>9s} {'both s':>8s} {'ratio':>7s}  check")
    for horizon in (int(h) for h in args.horizons.split(",")):
        alone: list[float] = []
        both: list[float] = []
        verdicts: dict[str, int] = {}
        cold: list[bool] = []
        # Questions of one kind (players, board, ruleset) one after the other: the process keeps the relations of a
        # few kinds only (certify._KEPT), and asked in the puzzles' order it would build most of them again.
        work = sorted(fixed_questions() if args.fixed else questions(),
                      key=lambda q: (len(q[1].players), q[1].board.name or "", repr(q[1].ruleset)))
        for name, pos, x, goal in work:
            if args.only not in name:
                continue
            if args.cold:
                certify._KEPT.clear()
            cold.append((pos.board, pos.ruleset, len(pos.players), id(z3.main_ctx())) not in certify._KEPT)
            start = time.perf_counter()
            search = solve_with(pos, x, goal, horizon, Backend.SEARCH, args.timeout)
            alone.append(time.perf_counter() - start)
            start = time.perf_counter()
            checked = solve_with(pos, x, goal, horizon, Backend.BOTH, args.timeout)
            both.append(time.perf_counter() - start)
            word = checked.check.word if checked.check is not None else "unknown"
            verdicts[word] = verdicts.get(word, 0) + 1
            print(f"{name[:-5][:46]:46s} {horizon:2d} {search.answer.word:>6s} {alone[-1]:9.3f} {both[-1]:8.2f} "
                  f"{both[-1] / max(alone[-1], 1e-4):7.0f}  {word}{' (relations built)' if cold[-1] else ''}",
                  flush=True)
        if not alone:
            continue
        ratios = [b / max(a, 1e-4) for a, b in zip(alone, both)]
        warm = [r for r, c in zip(ratios, cold) if not c]
        print(f"horizon {horizon}: {len(alone)} questions; search alone median {statistics.median(alone):.3f} s, "
              f"max {max(alone):.3f} s; search + certificate check median {statistics.median(both):.2f} s, "
              f"worst {max(both):.2f} s; median ratio x{statistics.median(ratios):.0f} (x"
              f"{statistics.median(warm) if warm else float('nan'):.0f} over the {len(warm)} whose kind's relations "
              f"were built already), ratio of medians "
              f"x{statistics.median(both) / max(statistics.median(alone), 1e-4):.0f}; check: "
              + ", ".join(f"{n} {w}" for w, n in sorted(verdicts.items())))


def command(path: str, player: str, goal: Goal, horizon: int, backend: str, timeout: float) -> tuple[float, str]:
    """Wall seconds of one ``niagara-solve solve`` process, and what it found: ``answered`` (the search alone),
    ``accepted`` or ``refused`` (the certificate's check), or ``unknown`` (out of time)."""
    argv = [sys.executable, "-m", "niagara_solver", "solve", path, "--player", player, "--goal", goal.value,
            "--horizon", str(horizon), "--backend", backend, "--timeout", str(timeout)]
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    if done.returncode == 3:
        return seconds, "unknown"
    if backend == "search":
        return seconds, "answered"
    return seconds, "accepted" if " accepted (" in done.stdout else "refused"


def commands(args: argparse.Namespace) -> None:
    """The ``--commands`` measure: both commands per question, alternated, fresh processes."""
    print(f"{'puzzle':46s} {'h':>2s} {'search s':>9s} {'both s':>8s} {'ratio':>7s}  check  "
          f"(commands, median of {args.repeats})")
    for horizon in (int(h) for h in args.horizons.split(",")):
        alone: list[float] = []
        both: list[float] = []
        ratios: list[float] = []
        verdicts: dict[str, int] = {}
        for name, pos, x, goal in questions():
            if args.only not in name:
                continue
            path = next(os.path.join(f, name) for f in FOLDERS if os.path.exists(os.path.join(f, name)))
            runs: dict[str, list[float]] = {"search": [], "both": []}
            word = ""
            for _ in range(args.repeats):
                for backend in runs:
                    seconds, said = command(path, pos.players[x].name, goal, horizon, backend, args.timeout)
                    runs[backend].append(seconds)
                    word = said if backend == "both" else word
            alone.append(statistics.median(runs["search"]))
            both.append(statistics.median(runs["both"]))
            ratios.append(both[-1] / alone[-1])
            verdicts[word] = verdicts.get(word, 0) + 1
            print(f"{name[:-5][:46]:46s} {horizon:2d} {alone[-1]:9.2f} {both[-1]:8.2f} {ratios[-1]:7.1f}  {word}",
                  flush=True)
        if not alone:
            continue
        print(f"horizon {horizon}, as commands: {len(alone)} questions; --backend search median "
              f"{statistics.median(alone):.2f} s, max {max(alone):.2f} s; --backend both median "
              f"{statistics.median(both):.2f} s, worst {max(both):.2f} s; "
              f"median ratio x{statistics.median(ratios):.1f}, worst x{max(ratios):.1f}; check: "
              + ", ".join(f"{n} {w}" for w, n in sorted(verdicts.items())))


if __name__ == "__main__":
    main()
