"""Engine benchmarks (``make bench``): medians of repeated runs, measured side by side in one process.

* turn generation: distinct turn outcomes generated per second over a fixed set of positions (every card
  in hand of every player to act, in positions taken from seeded games of 2 to 5 players), for the base game
  and, side by side in the same run, with the expansion's modules (presets ``flussgeister`` and
  ``flussgeister-joe``, positions from games of 3 to 6 players). Three generators on the same queries: the
  turn generator ``legal_turns`` (engine/paddling.py: every paddle card of every preset; the cloud and the Lasso are
  shared code; every outcome's position made, though the generator leaves it to be made on first use), its slow
  reference of the tests, ``legal_turns_reference`` (tests/reference_turns.py), in alternating passes, and the turn
  generator's turns alone
  (positions left unmade, as a search lists turns to order them); and, on a fixed subset
  of the base game's queries (it takes seconds a query), the naive enumerator of tests/brute.py: every short action
  the notation can write, judged by the rule-by-rule interpreter. Each pass of the fast generator starts with its
  caches cleared (``clear_caches``), as a fresh process would;
* random full rounds per second for 3 and 5 players (uniform policy, from the start of a game), and with
  ``flussgeister`` for 3 and 6 players.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from typing import Any, Callable

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from machine import machine  # noqa: E402

from niagara_solver.play.playout import random_playout, random_round, Uniform  # noqa: E402
from niagara_solver.engine.rescue import begin_turns, rescue_options  # noqa: E402
from niagara_solver.engine.paddling import clear_caches  # noqa: E402
from niagara_solver.engine.turns import legal_turns  # noqa: E402
from reference_turns import legal_turns_reference  # noqa: E402
from niagara_solver.model.atoms import Phase  # noqa: E402
from niagara_solver.model.position import Position  # noqa: E402
from niagara_solver.model.ruleset import PRESETS, Ruleset  # noqa: E402

REPEATS = 5
#: Every NAIVE_EVERY-th query of the base game is also answered by the naive enumerator.
NAIVE_EVERY = 32


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


Work = list[tuple[Position, int, object]]


def one_pass(work: Work, generate: Callable[..., list[Any]], positions: bool = True) -> tuple[float, int]:
    """Seconds and outcomes of one pass over ``work``; the fast generator's caches cleared first. Each outcome's
    position is made (the fast generator makes it on first use) unless ``positions`` is false."""
    clear_caches()
    start = time.perf_counter()
    total = 0
    for pos, i, card in work:
        outcomes = generate(pos, i, card)
        total += len(outcomes)
        if positions:
            for outcome in outcomes:
                outcome.position
    return time.perf_counter() - start, total


def bench_turns(work: Work) -> dict[str, tuple[float, int, float]]:
    """Per generator: median outcomes/s, outcomes per pass, spread of the rates; passes alternate."""
    times: dict[str, list[float]] = {"fast": [], "reference": [], "listed": []}
    totals: dict[str, int] = {}
    for _ in range(REPEATS):
        for name, generate in (("fast", legal_turns), ("reference", legal_turns_reference), ("listed", legal_turns)):
            seconds, totals[name] = one_pass(work, generate, positions=name != "listed")
            times[name].append(seconds)
    out = {}
    for name, seconds in times.items():
        rates = [totals[name] / s for s in seconds]
        median = statistics.median(rates)
        out[name] = (median, totals[name], (max(rates) - min(rates)) / median)
    return out


def naive_outcomes(pos: Position, player: int, card: object) -> list[Any]:
    """The naive enumerator (tests/brute.py): every position a short action written in the notation reaches, as the
    interpreter judges it."""
    from brute import brute_force_outcomes

    return list(brute_force_outcomes(pos, player, card))  # type: ignore[arg-type]


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
        rates = bench_turns(work)
        rate, total, spread = rates["fast"]
        reference = rates["reference"][0]
        assert rates["reference"][1] == total
        base = base or rate
        print(f"turn generation, {preset} ({'-'.join(map(str, counts[::len(counts) - 1]))} players): {rate:,.0f} "
              f"distinct outcomes/s (median of {REPEATS}; {len(work)} queries, {total} outcomes per pass; spread "
              f"{spread:.0%}; {rate / base:.2f}x the base game); the reference generator {reference:,.0f}/s "
              f"(spread {rates['reference'][2]:.0%}): {rate / reference:.1f}x")
        print(f"  the fast generator's turns listed, their positions left to be made on first use (as the search "
              f"orders them and tries a few): {rates['listed'][0]:,.0f} outcomes/s")
        if preset == "standard":
            subset = work[::NAIVE_EVERY]
            naive_seconds, naive_total = one_pass(subset, naive_outcomes, positions=False)  # positions already
            fast = statistics.median(one_pass(subset, legal_turns)[0] for _ in range(REPEATS))
            slow = statistics.median(one_pass(subset, legal_turns_reference)[0] for _ in range(REPEATS))
            print(f"  on 1 query in {NAIVE_EVERY} ({len(subset)} queries, {naive_total} outcomes): the naive "
                  f"enumerator {naive_total / naive_seconds:,.1f} outcomes/s (one pass), the reference generator "
                  f"{naive_total / slow:,.0f}/s, the fast generator {naive_total / fast:,.0f}/s: "
                  f"{naive_seconds / fast:,.0f}x the naive enumerator")
    for players in (3, 5):
        print(f"random full rounds, {players} players: {bench_rounds(players):,.0f} rounds/s (median of {REPEATS})")
    for players in (3, 6):
        rate = bench_rounds(players, rules=PRESETS["flussgeister"])
        print(f"random full rounds, flussgeister, {players} players: {rate:,.0f} rounds/s (median of {REPEATS})")


if __name__ == "__main__":
    main()
