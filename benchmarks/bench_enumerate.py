"""Listing a turn's outcomes in the encoding (``make bench``): the reference enumerator (encoding/enumerate.py
``Enumerator.turns``, a blocking clause after each model) with z3's older arithmetic solver (``arith.solver=2``,
the default of ``make_enumerating_solver``) side by side with z3's default arithmetic solver, on the phase II
positions of seeded games (standard rules and board, 2 and 3 players), every player still to act with every card
of the hand. The medians of ``--repeats`` runs of each, alternated in one process, and their ratio; both list the
same outcomes (asserted).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from machine import machine, print_medians  # noqa: E402

from niagara_solver.encoding.enumerate import Enumerator  # noqa: E402
from niagara_solver.encoding.relations import Relations  # noqa: E402
from niagara_solver.encoding.solver import ARITH_SOLVER  # noqa: E402
from niagara_solver.model.atoms import Card  # noqa: E402
from niagara_solver.model.position import Position  # noqa: E402
from niagara_solver.play.playout import random_playout  # noqa: E402

NAMES = ["red", "blue", "green"]
WAYS = {f"arith.solver={ARITH_SOLVER}": ARITH_SOLVER, "z3's default": None}


def cases(games: int, rounds: int, cards: int | None = None) -> list[tuple[Position, int, Card]]:
    """(position, player, card) at the start of phase II of every round of ``games`` seeded games of ``rounds``
    rounds: every player still to act, with every card of the hand (or its first ``cards``)."""
    out: list[tuple[Position, int, Card]] = []
    for seed in range(games):
        start = Position.initial(NAMES[:2 + seed % 2])
        for record in random_playout(start, seed, rounds=rounds, policy="greedy"):
            pos = record.turns_start
            for player in (i for i in range(len(pos.players)) if i not in pos.acted):
                out += [(pos, player, card) for card in sorted(pos.players[player].hand)[:cards]]
    return out


def listed(arith_solver: int | None, found: list[tuple[Position, int, Card]]) -> list[frozenset[Position]]:
    """Each case's outcomes, listed by a fresh enumerator per player count (its relations built once for all)."""
    enumerators: dict[int, Enumerator] = {}
    out = []
    for pos, player, card in found:
        n = len(pos.players)
        if n not in enumerators:
            enumerators[n] = Enumerator(Relations.of(pos), arith_solver=arith_solver)
        out.append(frozenset(enumerators[n].turns(pos, player, card)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=2, help="rounds of each game (default 2)")
    parser.add_argument("--cards", type=int, default=None, help="only the first N cards of each hand")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    found = cases(args.games, args.rounds, args.cards)
    seconds: dict[str, list[float]] = {name: [] for name in WAYS}
    answers: dict[str, list[frozenset[Position]]] = {}
    for _ in range(args.repeats):
        for name, arith_solver in WAYS.items():  # alternated: a slower stretch of the machine slows both alike
            began = time.process_time()
            answers[name] = listed(arith_solver, found)
            seconds[name].append(time.process_time() - began)
    first, second = WAYS
    assert answers[first] == answers[second], "the two arithmetic solvers listed different outcomes"
    outcomes = sum(len(a) for a in answers[first])
    print(f"machine: {machine()}")
    print(f"{len(found)} turns ({outcomes} outcomes) at the phase II positions of {args.games} seeded game(s) of "
          f"{args.rounds} round(s), "
          f"CPU seconds, median of {args.repeats}:")
    print_medians(seconds, outcomes, "outcomes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
