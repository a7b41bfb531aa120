"""The whole-game search (``make bench``): ``reach``'s breadth-first levels (games/search.py: rounds walked with their
stages shared, positions stored with a pointer to their parent) side by side with the plain breadth-first search (a
set of positions per level, each round walked without sharing and ended by ``end_round``), on the same levels from
a setup. Per method the medians of ``--repeats`` runs, each in a fresh process: positions per second (distinct
positions found, levels 1 to ``--rounds``) and resident memory per million stored positions (the growth of the
process over the run, divided by the positions stored).

Both find the same positions (asserted); the target never holds, so every level is explored.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from machine import machine  # noqa: E402

from niagara_solver.model.format import load_board  # noqa: E402
from niagara_solver.model.position import Position  # noqa: E402


class _Never:
    named: frozenset[str] = frozenset()
    uses_events = False
    uses_tally = False

    def holds(self, pos: Position, events: object = None, tally: object = None) -> bool:
        return False


class _Stop(Exception):
    pass


def _start(players: int, board: str) -> Position:
    return Position.initial(["red", "blue", "green", "yellow", "black"][:players], load_board(board))


def run_reach(players: int, board: str, rounds: int) -> dict[str, float]:
    """reach's levels 1..rounds, stored (the search is given one more round and stopped once they are done)."""
    from niagara_solver.games.search import Level, _Search, memory_mb
    start = _start(players, board)
    before = memory_mb()
    began = time.perf_counter()
    search = _Search(start, _Never(), rounds + 1, None, 10**9, None, began, None)
    seen: list[Level] = []

    def stop(level: Level) -> None:
        seen.append(level)
        if level.depth == rounds:
            raise _Stop()
    search.progress = stop
    try:
        search.run()
    except _Stop:
        pass
    seconds = time.perf_counter() - began
    stored = len(search.parents)
    return {"positions": stored, "seconds": seconds, "megabytes": memory_mb() - before}


def run_plain(players: int, board: str, rounds: int) -> dict[str, float]:
    """The plain breadth-first search: a visited set, levels as sets, each round walked without sharing."""
    from niagara_solver.engine.rescue import apply_rescue, begin_turns, rescue_options
    from niagara_solver.engine.round import end_round, is_finished
    from niagara_solver.engine.turns import legal_turns
    from niagara_solver.games.search import memory_mb

    def successors(pos: Position) -> set[Position]:
        out: set[Position] = set()
        if is_finished(pos):
            return out
        order = pos.turn_order()

        def rescue(p: Position, i: int) -> None:
            if i == len(order):
                turns(begin_turns(p))
                return
            for r in rescue_options(p, order[i]):
                rescue(apply_rescue(p, order[i], r), i + 1)

        def turns(p: Position) -> None:
            q = p.next_to_act()
            if q is None:
                out.add(end_round(p))
                return
            me = p.players[q]
            for card in (me.hand if me.card is None else (me.card,)):
                for o in legal_turns(p, q, card):
                    turns(o.position)
        rescue(pos, 0)
        return out

    start = _start(players, board)
    before = memory_mb()
    began = time.perf_counter()
    visited = {start}
    level = {start}
    for _ in range(rounds):
        level = {q for p in level for q in successors(p)} - visited
        visited |= level
    seconds = time.perf_counter() - began
    return {"positions": len(visited), "seconds": seconds, "megabytes": memory_mb() - before}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--board", default="puzzles/boards/short-fork.json")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--one", choices=["reach", "plain"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        run = run_reach if args.one == "reach" else run_plain
        print(json.dumps(run(args.players, os.path.join(ROOT, args.board) if args.board.endswith(".json")
                             else args.board, args.rounds)))
        return
    print(f"reach: {args.players} players, board {os.path.basename(args.board)}, levels 1..{args.rounds} from the "
          f"setup; medians of {args.repeats} runs, each a fresh process · {machine()}")
    rows = {}
    for method in ("reach", "plain"):
        runs = []
        for _ in range(args.repeats):
            out = subprocess.run([sys.executable, __file__, "--one", method, "--players", str(args.players),
                                  "--board", args.board, "--rounds", str(args.rounds)],
                                 capture_output=True, text=True, check=True, cwd=ROOT)
            runs.append(json.loads(out.stdout))
        rows[method] = runs
    counts = {m: {r["positions"] for r in runs} for m, runs in rows.items()}
    # reach stores the start too, as the plain search's visited set does: the same positions.
    assert counts["reach"] == counts["plain"] and len(counts["reach"]) == 1, counts
    print(f"{'method':<8} {'positions':>10} {'seconds':>8} {'positions/s':>12} {'MB per million':>15}")
    for method, runs in rows.items():
        positions = runs[0]["positions"]
        seconds = statistics.median(r["seconds"] for r in runs)
        per_million = statistics.median(r["megabytes"] for r in runs) / positions * 1e6
        print(f"{method:<8} {positions:>10,} {seconds:>8.1f} {positions / seconds:>12,.0f} {per_million:>15,.0f}")


if __name__ == "__main__":
    main()
