"""Engine benchmarks (``make bench``): medians of repeated runs, measured side by side in one process.

* turn generation: distinct turn outcomes generated per second over a fixed set of positions (every card
  in hand of every player to act, in positions taken from seeded games of 2 to 5 players);
* random full rounds per second for 3 and 5 players (uniform policy, from the start of a game).
"""

from __future__ import annotations

import os
import platform
import random
import statistics
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)

from niagara_solver.engine.playout import random_playout, random_round, Uniform  # noqa: E402
from niagara_solver.engine.rescue import begin_turns, rescue_options  # noqa: E402
from niagara_solver.engine.turns import legal_turns  # noqa: E402
from niagara_solver.model.atoms import Phase  # noqa: E402
from niagara_solver.model.position import Position  # noqa: E402

REPEATS = 5


def machine() -> str:
    cpu = platform.processor() or "unknown cpu"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def fixed_positions() -> list[Position]:
    """Phase II positions from seeded greedy games: 2..5 players, every 4th round of the first 40."""
    out = []
    for players in (2, 3, 4, 5):
        start = Position.initial([f"p{i}" for i in range(players)])
        for k, record in enumerate(random_playout(start, seed=players, rounds=40, policy="greedy")):
            if k % 4 == 3:
                out.append(record.turns_start)
    return out


def queries(positions: list[Position]) -> list[tuple[Position, int, object]]:
    work = []
    for pos in positions:
        if pos.phase is Phase.CARDS:
            pos = begin_turns(pos, {i: rescue_options(pos, i)[0] for i in range(len(pos.players))})
        for i, player in enumerate(pos.players):
            clear = pos.with_player(i, type(player)(player.name, player.canoes, player.hand, player.bank, None))
            for card in player.hand:
                work.append((clear, i, card))
    return work


def bench_turns(work: list[tuple[Position, int, object]]) -> tuple[float, int, float]:
    rates, total = [], 0
    for _ in range(REPEATS):
        start = time.perf_counter()
        total = sum(len(legal_turns(pos, i, card)) for pos, i, card in work)  # type: ignore[arg-type]
        rates.append(total / (time.perf_counter() - start))
    return statistics.median(rates), total, (max(rates) - min(rates)) / statistics.median(rates)


def bench_rounds(players: int, rounds: int = 150) -> float:
    rates = []
    for repeat in range(REPEATS):
        rng = random.Random(repeat)
        policy = Uniform(rng)
        pos = Position.initial([f"p{i}" for i in range(players)])
        start = time.perf_counter()
        for _ in range(rounds):
            pos = random_round(pos, rng, policy).end
        rates.append(rounds / (time.perf_counter() - start))
    return statistics.median(rates)


def main() -> None:
    print(f"machine: {machine()}")
    work = queries(fixed_positions())
    rate, total, spread = bench_turns(work)
    print(f"turn generation: {rate:,.0f} distinct outcomes/s (median of {REPEATS}; {len(work)} queries, "
          f"{total} outcomes per pass; spread {spread:.0%})")
    for players in (3, 5):
        print(f"random full rounds, {players} players: {bench_rounds(players):,.0f} rounds/s (median of {REPEATS})")


if __name__ == "__main__":
    main()
