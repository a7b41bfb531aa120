"""Policy benchmarks (``make bench``): whole simulated games per second, as ``simulate`` plays them.

For 3 and 5 players, games of the ``lookahead`` policy in every seat from the start of a game (standard rules),
in one process: games per second and rounds per second, medians of repeated runs side by side in one process, and
the same for ``greedy`` (whose games last several times longer) as a yardstick. ``simulate --jobs N`` runs games in
N processes, so a machine with N free cores plays about N times as many.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from machine import machine  # noqa: E402
from niagara_solver.design.simulate import play_game, start_position  # noqa: E402
from niagara_solver.model.board import standard_board  # noqa: E402
from niagara_solver.model.ruleset import PRESETS  # noqa: E402

REPEATS = 3
GAMES = 4
#: Greedy games rarely end soon: they are cut at this many rounds (counted as played).
GREEDY_ROUNDS = 40


def bench_games(players: int, policy: str, max_rounds: int = 100) -> tuple[float, float, float]:
    """Median games/s, rounds/s and rounds per game over :data:`REPEATS` runs of :data:`GAMES` seeded games."""
    start = start_position(standard_board(), PRESETS["standard"], players)
    games, rounds, lengths = [], [], []
    for repeat in range(REPEATS):
        began = time.perf_counter()
        played = [play_game(start, repeat * GAMES + g, [policy] * players, max_rounds) for g in range(GAMES)]
        seconds = time.perf_counter() - began
        total = sum(g.rounds for g in played)
        games.append(GAMES / seconds)
        rounds.append(total / seconds)
        lengths.append(total / GAMES)
    return statistics.median(games), statistics.median(rounds), statistics.median(lengths)


def main() -> None:
    print(f"machine: {machine()}")
    for players in (3, 5):
        look = bench_games(players, "lookahead")
        greedy = bench_games(players, "greedy", GREEDY_ROUNDS)
        print(f"simulated games, {players} players: lookahead {look[0]:.2f} games/s ({look[1]:.0f} rounds/s, "
              f"{look[2]:.1f} rounds a game); greedy {greedy[1]:.0f} rounds/s (games cut at {GREEDY_ROUNDS} "
              f"rounds); one process, median of {REPEATS} runs of {GAMES} games")


if __name__ == "__main__":
    main()
