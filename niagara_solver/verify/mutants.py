"""``niagara-solve mutants``: deliberate errors in single rules, each of which the catalogue must catch.

A mutant replaces one named rule group of the encoding (:mod:`..encoding.core`), through the same mechanism
the encoding uses for every rule; nothing else changes. The property catalogue is then checked against the
mutated relations: a mutant is *killed* when some property is refuted. A surviving mutant is a gap in the
catalogue (R-PROP-13..16 were added to close such gaps, docs/PROPERTIES.md).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

import z3

from niagara_solver.model.board import Board
from niagara_solver.encoding.core import Encoding, Mutant
from niagara_solver.encoding.state import NCOL, Constraint, Expr
from niagara_solver.model.errors import InputError, did_you_mean
from niagara_solver.model.limits import out_of_time, time_limit
from niagara_solver.model.readings import require
from niagara_solver.model.verdict import MUTANT, Verdict, merge
from niagara_solver.model.ruleset import PortDeparture, Ruleset
from niagara_solver.verify.properties import catalogue_for
from niagara_solver.verify.prove import PropertyResult, Prover, not_asked
from niagara_solver.encoding.terms import z_and, z_sum


def _marker_stuck(enc: Encoding, marker: Expr, labels: int) -> Expr:
    return marker


def _no_clamp(enc: Encoding, total: Expr) -> Expr:
    return total


def _steal_any_direction(enc: Encoding, move: Expr) -> Expr:
    return move != 0


def _free_loading(enc: Encoding, ops: list[Any], distance: Expr) -> Expr:
    return distance + 2 * z_sum([op.unloads(c) for op in ops for c in range(NCOL)])


def _gem_vanishes(enc: Encoding, cave: list[list[Expr]], cargo: list[Expr]) -> list[list[Expr]]:
    return [list(row) for row in cave]


def _two_steps(enc: Encoding, weather: Expr, step: Expr) -> Expr:
    return weather + 2 * step


def _port_unlimited(enc: Encoding, active: Expr, spent: Expr, budget_points: Expr, home: Expr, start: Expr,
                    pre_spent: Expr, extra: Expr = 0) -> list[Constraint]:
    t = enc.tables
    return [("R-MOVE-3", z3.Implies(z_and(active, z3.Not(home), start != t.PORT), spent == budget_points)),
            ("R-MOVE-5", z3.Implies(z_and(active, home), pre_spent + t.depth_of(start) + extra <= budget_points))]


def _swap_allowed(enc: Encoding, ops: list[Any]) -> list[Constraint]:
    return []


def _cross_branches(enc: Encoding, start: Expr, dest: Expr, move: Expr) -> list[Constraint]:
    t = enc.tables
    return [("R-MOVE-4", z3.Implies(move == 1, z_and(t.is_disc(dest), t.depth_of(dest) > t.depth_of(start)))),
            ("R-MOVE-4", z3.Implies(move == -1, z_and(t.is_disc(start), t.depth_of(dest) < t.depth_of(start),
                                                       dest >= 0, dest <= t.D))),
            ("R-MOVE-4", z3.Implies(move == 0, dest == start))]


def _unbounded_weather(enc: Encoding, weather: Expr) -> list[Constraint]:
    return []


def _free_rescue(enc: Encoding, bank: list[Expr], cave: list[list[Expr]], rescued: Expr,
                 colour: Expr) -> tuple[list[Expr], list[list[Expr]]]:
    return list(bank), [list(row) for row in cave]


def _no_rescue_limit(enc: Encoding, rescued: list[Expr]) -> list[Constraint]:
    return []


def _two_gems(enc: Encoding, cargo: list[Expr]) -> list[Constraint]:
    return [("R-GEM-2", z_sum(cargo) <= enc.rules.capacity + 1)]


def _river_canoe_may_stay(enc: Encoding, place: list[Expr], acts: list[Expr], paddle: Expr) -> list[Constraint]:
    t = enc.tables
    out: list[Constraint] = [("R-TURN-3", z3.Implies(place[k] == t.FALLEN, z3.Not(acts[k]))) for k in range(2)]
    both_port = z_and(place[0] == t.PORT, place[1] == t.PORT)
    count = z3.If(acts[0], 1, 0) + z3.If(acts[1], 1, 0)
    if enc.rules.port_departure is PortDeparture.EXACTLY_ONE:
        out.append(("R-TURN-3", z3.Implies(z_and(paddle, both_port), count == 1)))
    return out


def _seven_not_a_paddle(enc: Encoding, cards: list[Expr], weather: Expr) -> Expr:
    least: Expr = z3.IntVal(7)
    for card in cards:
        least = z3.If(z_and(card >= 1, card <= 6, card < least), card, least)
    return z3.If(least == 7, 0, least) + weather


def _lasso_moors_nothing(enc: Encoding, place: list[Expr], is_lasso: Expr,
                         chosen: list[Expr] | None) -> tuple[list[Expr], list[Constraint]]:
    return [z3.BoolVal(False), z3.BoolVal(False)], []


def _double_three_gems(enc: Encoding, cargo: list[Expr]) -> list[Constraint]:
    return [("X-DOUBLE-1", z_sum(cargo) <= 3)]


def _beaver_no_calm(enc: Encoding, weather: Expr, fell: Expr) -> Expr:
    return weather


def _moose_no_bonus(enc: Encoding, held: Expr) -> Expr:
    return z3.IntVal(0)


def _whirl_step_free(enc: Encoding, start: Expr, dest: Expr, move: Expr, whirl: Expr) -> Expr:
    return z3.IntVal(0)


def _joe_gem_vanishes(enc: Encoding, home: list[list[Expr]], over: Expr,
                      gem: list[Expr]) -> tuple[list[list[Expr]], list[Expr]]:
    return [list(row) for row in home], [z3.If(over, 0, g) for g in gem]


def _on(module: str) -> tuple[tuple[str, Any], ...]:
    """The switch values of a module's mutant: the module on (RULES.md section X)."""
    return ((module, True),)


#: The mutants: a name, the rule group replaced, the replacement, what it gets wrong (and the switch values it needs:
#: a module on, a switch's other value).
MUTANTS: tuple[Mutant, ...] = (
    Mutant("fork-marker-stuck", "R-FLOW-4", _marker_stuck, "the fork marker never switches"),
    Mutant("negative-flow", "R-FLOW-2", _no_clamp, "a negative flow sum moves the river backwards"),
    Mutant("steal-after-downstream", "R-STEAL-3", _steal_any_direction, "a canoe steals after moving downstream"),
    Mutant("free-loading", "R-MOVE-2", _free_loading, "loading a gem costs nothing"),
    Mutant("fallen-gem-vanishes", "R-FLOW-6", _gem_vanishes, "a fallen canoe's gem vanishes"),
    Mutant("cloud-two-steps", "R-WEATHER-1:step", _two_steps, "the cloud moves the weather two steps"),
    Mutant("port-canoe-unlimited", "R-MOVE-3", _port_unlimited, "a canoe leaving the port has an unlimited budget"),
    Mutant("same-colour-swap", "R-GEM-4", _swap_allowed, "a canoe may unload and load the same colour"),
    Mutant("cross-branches", "R-MOVE-4", _cross_branches, "a canoe may cross from one branch to the other"),
    Mutant("weather-unbounded", "R-WEATHER-1:bounds", _unbounded_weather, "the weather may leave [-1, 2]"),
    Mutant("free-rescue", "R-RESCUE-1:payment", _free_rescue, "a rescue costs nothing"),
    Mutant("two-gems", "R-GEM-2", _two_gems, "a canoe carries one gem more than its capacity"),
    Mutant("river-canoe-stays", "R-TURN-3", _river_canoe_may_stay, "a canoe on the river may stay idle"),
    Mutant("rescue-limit-ignored", "R-RESCUE-4", _no_rescue_limit, "a player brings back two canoes in one round",
           (("rescue_limit", "one"),)),
    Mutant("seven-not-a-paddle", "R-FLOW-1", _seven_not_a_paddle, "the 7 does not count for the flow",
           _on("x_cards")),
    Mutant("lasso-moors-nothing", "X-CARDS-4:moor", _lasso_moors_nothing, "the Lasso moors no canoe", _on("x_cards")),
    Mutant("double-three-gems", "X-DOUBLE-1", _double_three_gems, "the double canoe carries three gems",
           _on("x_double")),
    Mutant("beaver-no-calm", "X-BEAVER-2", _beaver_no_calm, "the weather stays when the beaver goes over the falls",
           _on("x_beaver")),
    Mutant("moose-no-bonus", "X-MOOSE-2", _moose_no_bonus, "the moose gives no extra points", _on("x_moose")),
    Mutant("whirl-step-free", "X-WHIRL-3", _whirl_step_free, "the step onto the whirlpool costs 1 like any other",
           _on("x_whirl")),
    Mutant("joe-gem-vanishes", "X-JOE-1", _joe_gem_vanishes, "Joe's gem vanishes when he goes over the falls",
           _on("x_joe")),
)

BY_NAME = {m.name: m for m in MUTANTS}


def mutant_verdict(results: list[PropertyResult]) -> Verdict:
    """Does the catalogue catch a mutant? CONFIRMED (killed) when a property is refuted on it, REFUTED (survived)
    when every property is proved on it, else UNKNOWN (none refuted it, and some ran out of time)."""
    if any(r.verdict is Verdict.REFUTED for r in results):
        return Verdict.CONFIRMED
    return Verdict.REFUTED if all(r.verdict is Verdict.PROVED for r in results) else Verdict.UNKNOWN


@dataclass
class MutantResult:
    """Which properties refute a mutant, with their counterexamples, and the verdict: is it caught (killed)?"""

    mutant: Mutant
    verdict: Verdict
    by: list[str]
    results: list[PropertyResult]
    seconds: float

    @property
    def killed(self) -> bool:
        """Some property was refuted on the mutant: the catalogue tells it from the rules."""
        return self.verdict is Verdict.CONFIRMED

    @property
    def survived(self) -> bool:
        """Every property was proved on the mutant: the catalogue cannot tell it from the rules (a gap)."""
        return self.verdict is Verdict.REFUTED

    @property
    def word(self) -> str:
        """``killed``, ``SURVIVED``, or ``UNKNOWN`` (no property refuted it, and some ran out of time): what is not
        killed is shouted."""
        word = MUTANT(self.verdict)
        return word if self.killed else word.upper()

    def to_json(self) -> dict[str, Any]:
        return {"mutant": self.mutant.name, "rule": self.mutant.key, "description": self.mutant.description,
                "killed": self.killed, "survived": self.survived, "by": self.by, "seconds": round(self.seconds, 3),
                "counterexamples": [r.to_json() for r in self.results if r.verdict is Verdict.REFUTED]}


def merge_counts(same: list[MutantResult]) -> MutantResult:
    """One mutant's results for several player counts as one: killed when the catalogue refutes it for some count
    (the least verdict: one kill is enough), survived when it survives every count; by the properties that refute
    it for some count (in the catalogue's order)."""
    if len(same) == 1:
        return same[0]
    order = [r.id for r in same[0].results]
    return MutantResult(same[0].mutant, min(m.verdict for m in same),
                        [pid for pid in order if any(pid in m.by for m in same)],
                        [r for m in same for r in m.results], sum(m.seconds for m in same))


@dataclass
class MutantReport:
    """Every mutant checked, its results merged over the player counts (:func:`merge_counts`)."""

    mutants: list[MutantResult]
    players: tuple[int, ...] = (2,)

    @property
    def verdict(self) -> Verdict:
        """CONFIRMED when every mutant is killed, REFUTED when one survived, else UNKNOWN (merging is ``max``)."""
        return merge([m.verdict for m in self.mutants])

    @property
    def exit_status(self) -> int:
        """0 every mutant killed, 1 one survived, 3 unknown."""
        return self.verdict.exit_status

    def to_json(self) -> list[dict[str, Any]]:
        return [m.to_json() for m in self.mutants]


def check_names(names: list[str] | tuple[str, ...]) -> None:
    """Refuse an unknown mutant's name (``--mutant``)."""
    for name in names:
        if name not in BY_NAME:
            raise InputError("--mutant", f"unknown mutant {name!r}; mutants: {', '.join(BY_NAME)}"
                                         f"{did_you_mean(name, BY_NAME)}", "R-PROP")


def check_mutants(board: Board, rules: Ruleset, players: int = 2, names: list[str] | None = None,
                  timeout: float | None = None, progress: Callable[[str], None] | None = None) -> list[MutantResult]:
    """Run the catalogue against each mutant, within ``timeout`` seconds in all: a property not asked in time is
    UNKNOWN, and a mutant no property refuted by then is not killed. ``progress`` is told each mutant as it
    starts."""
    out = []
    with time_limit(timeout):
        for mutant in MUTANTS:
            if names and mutant.name not in names:
                continue
            if progress is not None:
                progress(f"{mutant.name} {players}p")
            start = time.perf_counter()
            if out_of_time():
                results = [not_asked(p) for p in catalogue_for(rules)]
            else:  # a mutant is checked with the switch values its rule needs (a module on, RULES.md section X)
                mutated = mutant.ruleset(rules)
                prover = Prover(board, mutated, players, mutant, timeout)
                results = [prover.check(p) for p in catalogue_for(prover.rules)]
            refuted = [r for r in results if r.verdict is Verdict.REFUTED]
            out.append(MutantResult(mutant, mutant_verdict(results), [r.id for r in refuted], results,
                                    time.perf_counter() - start))
    return out


def mutant_report(board: Board, rules: Ruleset, players: list[int], names: list[str] | None = None,
                  timeout: float | None = None, progress: Callable[[str], None] | None = None) -> MutantReport:
    """Check the mutants (or those ``names``) for every player count in ``players``, within ``timeout`` seconds in
    all, and merge each mutant's results over the counts (``niagara-solve mutants``). A ruleset the encoding does
    not cover, a count it refuses and an unknown name are refused before any proof runs."""
    require(rules, "encoding")
    rules.check_players(players)
    check_names(names or [])
    with time_limit(timeout):
        runs = [check_mutants(board, rules, n, names or None, timeout, progress) for n in players]
    return MutantReport([merge_counts(list(same)) for same in zip(*runs)], tuple(players))
