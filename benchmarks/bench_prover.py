"""Prover benchmarks (``make bench``): seconds per property and for the whole catalogue, for 2, 3 and 5
players on the standard board (medians of 3 runs, each from a fresh prover, building included), and the
effect of asking every question of one incremental solver instead of a fresh solver each time."""

from __future__ import annotations

import os
import statistics
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)

from machine import machine  # noqa: E402

import z3  # noqa: E402

from niagara_solver.verify.properties import CATALOGUE  # noqa: E402
from niagara_solver.verify.prove import Prover  # noqa: E402
from niagara_solver.model.board import standard_board  # noqa: E402
from niagara_solver.model.ruleset import Ruleset  # noqa: E402
from niagara_solver.model.verdict import Verdict  # noqa: E402

REPEATS = 3


def catalogue(players: int) -> tuple[float, dict[str, float], float]:
    totals: list[float] = []
    per: dict[str, list[float]] = {p.id: [] for p in CATALOGUE}
    build = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        prover = Prover(standard_board(), Ruleset(), players, timeout=120)
        for prop in CATALOGUE:
            result = prover.check(prop)
            assert result.verdict is Verdict.PROVED, (prop.id, result.verdict)
            per[prop.id].append(result.seconds)
        totals.append(time.perf_counter() - start)
        build.append(prover.build_seconds)
    return statistics.median(totals), {k: statistics.median(v) for k, v in per.items()}, statistics.median(build)


def incremental_vs_fresh(players: int = 5) -> tuple[float, float]:
    """Every turn-phase question of the catalogue: one solver with push/pop, or a fresh solver each (medians of
    ``REPEATS`` runs, alternated, each from a new prover so no run profits from another's learned clauses)."""
    times: dict[str, list[float]] = {"incremental": [], "fresh": []}
    for _ in range(REPEATS):
        prover = Prover(standard_board(), Ruleset(), players, timeout=120)
        phase = prover.phase("turn")
        questions = []
        for prop in CATALOGUE:
            for name, statement in prop.obligations:
                if name == "turn":
                    stated = statement(phase.context)
                    questions += stated if isinstance(stated, list) else [stated]
        base = list(phase.solver.assertions())
        start = time.perf_counter()
        for q in questions:
            phase.solver.push()
            phase.solver.add(z3.Not(q))
            assert phase.solver.check() == z3.unsat
            phase.solver.pop()
        times["incremental"].append(time.perf_counter() - start)
        start = time.perf_counter()
        for q in questions:
            fresh = z3.Solver()
            fresh.add(*base)
            fresh.add(z3.Not(q))
            assert fresh.check() == z3.unsat
        times["fresh"].append(time.perf_counter() - start)
    return statistics.median(times["incremental"]), statistics.median(times["fresh"])


def main() -> None:
    print(f"machine: {machine()}")
    rows = {}
    for players in (2, 3, 5):
        total, per, build = catalogue(players)
        rows[players] = per
        slowest = max(per, key=per.__getitem__)
        print(f"prover, {players} players: whole catalogue {total:.2f} s (building the relations {build:.2f} s); "
              f"slowest {slowest} {per[slowest]:.2f} s")
    print("seconds per property (2 / 3 / 5 players):")
    for prop in CATALOGUE:
        print(f"  {prop.id:10} {prop.title:22} " + " / ".join(f"{rows[n][prop.id]:.2f}" for n in (2, 3, 5)))
    incremental, fresh = incremental_vs_fresh()
    print(f"turn questions, 5 players: one incremental solver {incremental:.2f} s, a fresh solver each "
          f"{fresh:.2f} s (x{fresh / incremental:.1f}; medians of {REPEATS})")


if __name__ == "__main__":
    main()
