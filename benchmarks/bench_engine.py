"""Engine benchmarks (``make bench``): medians of repeated runs, measured side by side in one process.

* turn generation: distinct turn outcomes generated per second over a fixed set of positions (every card
  in hand of every player to act, in positions taken from seeded games of 2 to 5 players), for the base game
  and, side by side in the same run, with the expansion's modules (presets ``flussgeister`` and
  ``flussgeister-joe``, positions from games of 3 to 6 players);
* random full rounds per second for 3 and 5 players (uniform policy, from the start of a game), and with
  ``flussgeister`` for 3 and 6 players.
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
from niagara_solver.model.ruleset import PRESETS, Ruleset  # noqa: E402

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


def fixed_positions(preset: str = "standard", counts: tuple[int, ...] = (2, 3, 4, 5)) -> list[Position]:
    """Phase II positions from seeded greedy games: every 4th round of the first 40, for each player count."""
    out = []
    for players in counts:
        start = Position.initial([f"p{i}" for i in range(players)], ruleset=PRESETS[preset])
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


def bench_rounds(players: int, rounds: int = 150, rules: Ruleset | None = None) -> float:
    rates = []
    for repeat in range(REPEATS):
        rng = random.Random(repeat)
        policy = Uniform(rng)
        pos = Position.initial([f"p{i}" for i in range(players)], ruleset=rules or PRESETS["standard"])
        start = time.perf_counter()
        for _ in range(rounds):
            pos = random_round(pos, rng, policy).end
        rates.append(rounds / (time.perf_counter() - start))
    return statistics.median(rates)


def main() -> None:
    print(f"machine: {machine()}")
    base = None
    for preset, counts in (("standard", (2, 3, 4, 5)), ("flussgeister", (3, 4, 5, 6)),
                           ("flussgeister-joe", (3, 4, 5, 6))):
        work = queries(fixed_positions(preset, counts))
        rate, total, spread = bench_turns(work)
        base = base or rate
        print(f"turn generation, {preset} ({'-'.join(map(str, counts[::len(counts) - 1]))} players): {rate:,.0f} "
              f"distinct outcomes/s (median of {REPEATS}; {len(work)} queries, {total} outcomes per pass; spread "
              f"{spread:.0%}; {rate / base:.2f}x the base game)")
    for players in (3, 5):
        print(f"random full rounds, {players} players: {bench_rounds(players):,.0f} rounds/s (median of {REPEATS})")
    for players in (3, 6):
        rate = bench_rounds(players, rules=PRESETS["flussgeister"])
        print(f"random full rounds, flussgeister, {players} players: {rate:,.0f} rounds/s (median of {REPEATS})")


if __name__ == "__main__":
    main()
