"""The one place solvers are made: fixed seeds, a timeout, and three-valued answers.

``unknown`` (a timeout, or z3 giving up) is never counted as a proof. An analysis outside the encoding asks its
questions through a :class:`Question` (offered by the front door, :mod:`.relations`): it never holds a z3 solver
or a z3 answer itself.
"""

from __future__ import annotations

from contextlib import contextmanager
from enum import Enum
from typing import Any, Iterable, Iterator

import z3

from niagara_solver.encoding.state import Constraint, Expr, forget_terms, value
from niagara_solver.encoding.terms import assert_all
from niagara_solver.model.limits import time_left
from niagara_solver.model.verdict import Verdict

#: Fixed seeds: the same question gets the same answer (and the same counterexample) on every run.
SEED = 7

#: z3 resource units allowed to each shrinking question (about 2 s here); deterministic, unlike a timeout.
SHRINK_RLIMIT = 20_000_000

#: z3's arithmetic solver for the simplified questions (:func:`preprocessing_tactic`): 2 is the older one.
ARITH_SOLVER = 2

#: Which value z3's SMT core tries first for a Boolean it decides (:func:`preprocessing_tactic`): 1 is "true";
#: z3's default, 3, caches the last value a variable had.
PHASE_SELECTION = 1


class TimedSolver(z3.Solver):
    """A z3 solver whose every question stops at the command's time limit (model/limits.py) as well as at its own
    timeout: a question asked with no time left answers ``unknown`` at once, without asking z3."""

    def __init__(self, timeout: float | None, tactic: z3.Tactic | None = None) -> None:
        if tactic is None:
            super().__init__()
        else:
            super().__init__(z3.Z3_mk_solver_from_tactic(tactic.ctx.ref(), tactic.tactic), tactic.ctx)
        self.own_timeout = timeout

    def check(self, *assumptions: Any) -> z3.CheckSatResult:
        left = time_left(self.own_timeout)
        if left is not None:
            if left <= 0:
                return z3.unknown
            self.set("timeout", max(1, int(left * 1000)))
        return super().check(*assumptions)

    def assert_exprs(self, *args: Any) -> None:
        """``z3.Solver.assert_exprs`` (behind ``add``), the same terms asserted in the same order, each z3 Boolean at
        once through z3's C API (:func:`.terms.assert_all`)."""
        assert_all(self, z3.z3._get_args(args))


def make_solver(timeout: float | None = None) -> z3.Solver:
    """A solver with fixed seeds and, if given, a timeout in seconds; it also heeds the command's time limit."""
    return _seeded(TimedSolver(timeout), timeout)


def _seeded(solver: "TimedSolver", timeout: float | None) -> "TimedSolver":
    """``solver`` with the fixed seeds and, if given, its timeout in seconds."""
    solver.set("random_seed", SEED)
    z3.set_param("sat.random_seed", SEED)
    z3.set_param("smt.random_seed", SEED)
    if timeout is not None:
        solver.set("timeout", max(1, int(timeout * 1000)))
    return solver


def preprocessing_tactic() -> z3.Tactic:
    """Simplification before the search, for a question asked once of a relation with a position pinned: the
    pinned values propagated and their variables eliminated, equalities solved, unconstrained terms dropped and
    bounds propagated, then z3's SMT core. Each step keeps satisfiability and maps a model back to every variable.
    Measured 2.2-3.5 times faster than a plain solver on the cross-check's "any other result?" questions
    (docs/CROSSCHECK.md, "Speed").

    The SMT core runs z3's older arithmetic solver (``arith.solver=2``): what is left after the simplification is
    mostly 0/1 counters of gem actions and their sums, where it searched 1.4 times faster than the default on the
    certificate check's "any turn outside?" questions (docs/SOLVER.md, "Certified answers")."""
    return z3.Then(z3.With("simplify", elim_and=True, blast_distinct=True), "propagate-values", "solve-eqs",
                   "elim-uncnstr", "propagate-ineqs", z3.With("smt", **{"arith.solver": ARITH_SOLVER,
                                                           "phase_selection": PHASE_SELECTION}))


def make_enumerating_solver(timeout: float | None = None, arith_solver: int | None = ARITH_SOLVER) -> z3.Solver:
    """A solver like :func:`make_solver` for listing every model of a relation at a pinned position, one blocking
    clause after another (the reference enumerator, :class:`.enumerate.Enumerator`). Its SMT core runs z3's older
    arithmetic solver (``arith_solver``, :data:`ARITH_SOLVER`; ``None`` keeps z3's default): on listing a turn's
    outcomes it searched about twice as fast (benchmarks/bench_enumerate.py, docs/SPEED.md). The answer, every model
    up to the blocking clauses, is the same with either; only the order the models come in may differ."""
    solver = make_solver(timeout)
    if arith_solver is not None:
        solver.set("smt.arith.solver", arith_solver)
    return solver


def make_preprocessing_solver(timeout: float | None = None) -> z3.Solver:
    """A solver like :func:`make_solver` that simplifies its assertions before each question
    (:func:`preprocessing_tactic`); it is not incremental: each ``check`` starts again from every assertion."""
    return _seeded(TimedSolver(timeout, preprocessing_tactic()), timeout)


def fresh_context() -> None:
    """Start a new global z3 context.

    z3's search follows the order in which terms were created, so the same question can get a different
    (equally valid) model in a process that asked other questions first. Each independent task starts from a
    fresh context, so its counterexamples and witnesses are the same in one process, in a pool of processes
    or on a cluster, whatever ran before. Terms of the old context must not be used afterwards.
    """
    z3.z3._main_ctx = None  # main_ctx() makes a new one on first use
    forget_terms()


def shrink(solver: z3.Solver, model: z3.ModelRef, size: Expr, rounds: int = 12) -> z3.ModelRef:
    """A model of ``solver``'s assertions with a smaller ``size`` (an integer term), by bisection; each question
    runs under a deterministic resource limit, and one the limit cuts short counts as "no smaller one"."""
    low, high = 0, value(model, size)
    for _ in range(rounds):
        if low >= high:
            break
        middle = (low + high) // 2
        solver.push()
        solver.set("rlimit", SHRINK_RLIMIT)
        solver.add(size <= middle)
        found = solver.check() == z3.sat
        if found:
            model = solver.model()
            high = value(model, size)
        else:
            low = middle + 1
        solver.pop()
    solver.set("rlimit", 0)
    return model


def add(solver: z3.Solver, constraints: Iterable[Constraint]) -> None:
    """Assert rule-tagged constraints (the tags are kept for unsat cores elsewhere)."""
    assert_all(solver, [c for _, c in constraints])


class Sat(Enum):
    """A question's answer: some model holds (``SAT``), none does (``UNSAT``), or z3 gave no answer in time
    (``UNKNOWN``, which is neither)."""

    SAT = "sat"
    UNSAT = "unsat"
    UNKNOWN = "unknown"

    @classmethod
    def of(cls, result: z3.CheckSatResult) -> "Sat":
        """The answer z3 gave."""
        return cls.SAT if result == z3.sat else cls.UNSAT if result == z3.unsat else cls.UNKNOWN


def verdict(answer: Sat) -> Verdict:
    """The verdict of "is there a position and choices breaking this?": unsat proves it (R-PROP)."""
    if answer is Sat.UNSAT:
        return Verdict.PROVED
    if answer is Sat.SAT:
        return Verdict.REFUTED
    return Verdict.UNKNOWN


class Question:
    """One solver (fixed seeds, a timeout, the command's time limit: :func:`make_solver`; with ``simplify``, one that
    simplifies each question first: :func:`make_preprocessing_solver`) asked about the terms of the front door's
    positions and steps, with three-valued answers (:class:`Sat`). Its models are read back through the door
    (``Relations.decode_*``, :func:`.state.value`).

    The methods create their terms in the order an analysis calls them, as the solver calls they stand for did:
    z3's models depend on it (:func:`fresh_context`)."""

    def __init__(self, timeout: float | None = None, *, simplify: bool = False) -> None:
        self.solver = make_preprocessing_solver(timeout) if simplify else make_solver(timeout)

    def add(self, *terms: Expr) -> None:
        """Assert terms."""
        self.solver.add(*terms)

    def hold(self, constraints: Iterable[Constraint]) -> None:
        """Assert rule-tagged constraints (a step's, or a position's well-formedness), one by one."""
        add(self.solver, constraints)

    def ask(self, *assumptions: Expr) -> Sat:
        """Whether the assertions (and the ``assumptions``, for this question only) have a model."""
        return Sat.of(self.solver.check(*assumptions))

    def model(self) -> z3.ModelRef:
        """The model of the last question answered ``SAT``."""
        return self.solver.model()

    @contextmanager
    def scope(self, *terms: Expr) -> Iterator[None]:
        """Within the block, ``terms`` hold too; after it, they and whatever else was asserted in it no longer do."""
        self.solver.push()
        try:
            self.solver.add(*terms)
            yield
        finally:
            self.solver.pop()

    @contextmanager
    def breaking(self, statement: Expr) -> Iterator[None]:
        """A :meth:`scope` where ``statement`` fails: a model in it is a counterexample to the statement."""
        self.solver.push()
        try:
            self.solver.add(z3.Not(statement))
            yield
        finally:
            self.solver.pop()

    def shrink(self, model: z3.ModelRef, size: Expr, rounds: int = 12) -> z3.ModelRef:
        """A model with a smaller ``size`` (an integer term), by bisection under a deterministic resource limit
        (:func:`shrink`)."""
        return shrink(self.solver, model, size, rounds)

    def shrink_by_halves(self, model: z3.ModelRef, size: Expr, rounds: int = 4) -> z3.ModelRef:
        """A model with a smaller ``size``: at most ``rounds`` times, one with at most half of it (below 4, one
        less), else one with less; stops where none is found under the deterministic resource limit, so the same
        question shrinks to the same model on every run."""
        solver = self.solver
        best = model
        for _ in range(rounds):
            bound = value(best, size)
            if bound == 0:
                break
            solver.push()
            solver.set("rlimit", SHRINK_RLIMIT)  # a resource limit, not a clock: the same shrink every run
            solver.add(size <= bound // 2 if bound > 3 else size < bound)
            answer = solver.check()
            if answer == z3.sat:
                best = solver.model()
            solver.pop()
            if answer != z3.sat:
                solver.push()
                solver.add(size < bound)
                again = solver.check()
                if again == z3.sat:
                    best = solver.model()
                solver.pop()
                if again != z3.sat:
                    break
        solver.set("rlimit", 0)
        return best
