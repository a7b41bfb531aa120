"""The one place solvers are made: fixed seeds, a timeout, and three-valued answers.

``unknown`` (a timeout, or z3 giving up) is never counted as a proof.
"""

from __future__ import annotations

from enum import Enum
from typing import Iterable

import z3

from .state import Constraint, Expr

#: Fixed seeds: the same question gets the same answer (and the same counterexample) on every run.
SEED = 7


class Verdict(Enum):
    """The answer to "is there a position and choices breaking this?"."""

    PROVED = "proved"      # unsat: no position breaks it
    REFUTED = "refuted"    # sat: a counterexample
    UNKNOWN = "unknown"    # timeout or the solver gave up


def make_solver(timeout: float | None = None) -> z3.Solver:
    """A solver with fixed seeds and, if given, a timeout in seconds."""
    solver = z3.Solver()
    solver.set("random_seed", SEED)
    z3.set_param("sat.random_seed", SEED)
    z3.set_param("smt.random_seed", SEED)
    if timeout is not None:
        solver.set("timeout", max(1, int(timeout * 1000)))
    return solver


def fresh_context() -> None:
    """Start a new global z3 context.

    z3's search follows the order in which terms were created, so the same question can get a different
    (equally valid) model in a process that asked other questions first. Each independent task starts from a
    fresh context, so its counterexamples and witnesses are the same in one process, in a pool of processes
    or on a cluster, whatever ran before. Terms of the old context must not be used afterwards.
    """
    z3.z3._main_ctx = None  # main_ctx() makes a new one on first use


def add(solver: z3.Solver, constraints: Iterable[Constraint]) -> None:
    """Assert rule-tagged constraints (the tags are kept for unsat cores elsewhere)."""
    for _, c in constraints:
        solver.add(c)


def verdict(result: z3.CheckSatResult) -> Verdict:
    if result == z3.unsat:
        return Verdict.PROVED
    if result == z3.sat:
        return Verdict.REFUTED
    return Verdict.UNKNOWN


def conj(items: Iterable[Expr]) -> Expr:
    items = list(items)
    return z3.And(items) if items else z3.BoolVal(True)
