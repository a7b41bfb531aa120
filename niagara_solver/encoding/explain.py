"""Which rules forbid a written turn, by the encoding: the one explanation ``why`` gives and the certificate check
cites when it refuses a turn, so that both name the same rule for the same turn.

The position and the turn are pinned; every rule group is asserted under a literal of its own. A legal turn is
satisfiable (its model is kept, to decode the position it leads to). An illegal one is unsatisfiable, and the unsat
core, minimised (no rule in it can be dropped), names the rules that together forbid it; with each of those switched
off in turn, any other minimal core is an independent reason. A turn whose steps cannot fit one canoe action
(R-MOVE-1), or that names a canoe the player does not have, is refused before any solving, naming that rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import z3

from niagara_solver.encoding.relations import Relations, TurnStep, canoe_order, gem_ops
from niagara_solver.encoding.solver import make_solver
from niagara_solver.model.atoms import Card
from niagara_solver.model.notation import Load, Move, Steal, Turn, Unload
from niagara_solver.model.position import Position
from niagara_solver.model.ruleset import Ruleset
from niagara_solver.encoding.terms import z_and

#: The three answers: the turn is legal, illegal (``rules`` forbid it), or the solver gave no answer in time.
LEGAL, ILLEGAL, UNKNOWN = "legal", "illegal", "unknown"


@dataclass
class TurnExplanation:
    """The encoding's word on one written turn: ``answer`` (:data:`LEGAL`, :data:`ILLEGAL`, :data:`UNKNOWN`); when
    illegal, the rules of a minimal reason (``rules``), the other independent reasons (``also``) and, for a reason
    found before solving, what it is (``detail``); when legal, the model and the turn's step, to decode where it
    leads."""

    answer: str
    rules: list[str] = field(default_factory=list)
    also: list[list[str]] = field(default_factory=list)
    detail: str = ""
    model: z3.ModelRef | None = None
    step: TurnStep | None = None


def structure_problem(turn: Turn, rules: Ruleset) -> tuple[str, str] | None:
    """A turn whose steps cannot fit one canoe action (R-MOVE-1) is refused before any solving: the rule and why."""
    for action in turn.actions:
        moves = [i for i, s in enumerate(action.steps) if isinstance(s, Move)]
        steals = [i for i, s in enumerate(action.steps) if isinstance(s, Steal)]
        first_move = action.steps[moves[0]] if moves else None
        if isinstance(first_move, Move) and first_move.dest == "port" and moves[0] < len(action.steps) - 1:
            return "R-MOVE-5", f"the canoe on {action.canoe.place} acts after entering the port"
        if len(moves) > 1:
            return "R-MOVE-1", f"the canoe on {action.canoe.place} moves twice"
        if steals and (not moves or steals[0] < moves[0]):
            return "R-STEAL-3", f"the canoe on {action.canoe.place} steals before moving"
        if steals and any(not isinstance(s, Steal) for s in action.steps[steals[0]:]):
            return "R-STEAL-3", f"the canoe on {action.canoe.place} acts after stealing"
        split = moves[0] if moves else len(action.steps)
        end = steals[0] if steals else len(action.steps)
        most = gem_ops(rules)
        gems = [isinstance(st, (Load, Unload)) for st in action.steps]
        if sum(gems[:split]) > most or sum(gems[split + 1:end]) > most:
            return "R-MOVE-3", (f"more than {most} gem actions at one stop cost more than the largest budget "
                                "(R-MOVE-2)")
    return None


def explain_turn(relations: Relations, pos: Position, player: int, card: Card, turn: Turn,
                 timeout: float | None = 30, others: bool = True) -> TurnExplanation:
    """Is ``player``'s ``turn`` with ``card`` legal in ``pos`` (a phase II position), and if not, which rules forbid
    it (``others``: look for independent reasons too)."""
    early = structure_problem(turn, pos.ruleset)
    order, reason = canoe_order(pos, player, turn)
    if early is None and reason is not None:
        early = reason
    if early is not None:
        return TurnExplanation(ILLEGAL, [early[0]], detail=early[1])
    pre = relations.position("why.pre")
    step = relations.turn(pre, player, "why")
    solver = make_solver(timeout)
    solver.add(*relations.pin(pre, pos, {player: order}))
    solver.add(*relations.pin_turn(step, pos, card, turn))
    groups: dict[str, list[Any]] = {}
    for rule, c in [*step.constraints, *relations.written_order(step, turn)]:
        if rule in ("DEF", "DOMAIN"):
            solver.add(c)
        else:
            groups.setdefault(rule, []).append(c)
    literals = {rule: z3.Bool(f"rule:{rule}") for rule in groups}
    for rule, cs in groups.items():
        solver.add(z3.Implies(literals[rule], z_and(cs)))
    answer = solver.check(*literals.values())
    if answer == z3.sat:
        return TurnExplanation(LEGAL, model=solver.model(), step=step)
    if answer != z3.unsat:
        return TurnExplanation(UNKNOWN, detail="the solver gave no answer in time (UNKNOWN)")
    names = {v.get_id(): r for r, v in literals.items()}
    core = _minimal(solver, list(solver.unsat_core()))
    result = TurnExplanation(ILLEGAL, sorted((names[lit.get_id()] for lit in core), key=rule_order))
    if not others:
        return result
    # Other, independent reasons: with each rule of the first reason switched off, is it still forbidden?
    seen = {tuple(result.rules)}
    for lit in core:
        rest = [x for x in literals.values() if not x.eq(lit)]
        if solver.check(*rest) == z3.unsat:
            other = sorted((names[x.get_id()] for x in _minimal(solver, list(solver.unsat_core()))), key=rule_order)
            if tuple(other) not in seen:
                seen.add(tuple(other))
                result.also.append(other)
    return result


def _minimal(solver: z3.Solver, core: list[Any]) -> list[Any]:
    """Drop every rule whose absence still leaves the turn impossible (a minimal unsat core)."""
    i = 0
    while i < len(core):
        trial = core[:i] + core[i + 1:]
        if solver.check(*trial) == z3.unsat:
            core = trial
        else:
            i += 1
    return core


def rule_order(rule: str) -> tuple[str, int]:
    """Rule IDs in the order of RULES.md within a family (R-MOVE-2 before R-MOVE-10)."""
    head, _, number = rule.rpartition("-")
    return head, int(number) if number.isdigit() else 0
