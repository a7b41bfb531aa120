"""``niagara-solve why``: is this turn legal, and if not, which rules forbid it.

The position and the turn are pinned in the encoding; every rule group is asserted under a literal of its
own. A legal turn is satisfiable and its result is decoded. An illegal one is unsatisfiable, and the unsat
core, minimised (no rule in it can be dropped), names the rules that together forbid it. The engine's own
verdict on the same turn is shown beside it, and a disagreement is reported as such.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import z3

from niagara_solver.engine.apply import CanoeReport, apply_turn
from niagara_solver.model.notation import Load, Move, Push, Steal, Turn, Unload
from niagara_solver.model.errors import InvalidTurnError, NiagaraError, TurnError, quoted
from niagara_solver.encoding.relations import Relations, canoe_order, gem_ops
from niagara_solver.encoding.solver import make_solver
from niagara_solver.model.atoms import FALLEN, FALLS, PORT, Card
from niagara_solver.model.catalogue import sentence
from niagara_solver.model.position import Player, Position
from niagara_solver.model.ruleset import Ruleset


@dataclass
class WhyResult:
    """The answer: legal with its result, or the rules that forbid the turn."""

    turn: Turn
    player: str
    card: Card
    legal: bool
    rules: list[str] = field(default_factory=list)
    also: list[list[str]] = field(default_factory=list)
    after: Position | None = None
    engine: str = ""
    agree: bool = True
    detail: str = ""
    #: What each acting canoe did (the engine's account: spent, loaded, unloaded, banked, stolen), when legal.
    canoes: tuple[CanoeReport, ...] = ()

    @property
    def explanations(self) -> list[tuple[str, str]]:
        return [(r, sentence(r)) for r in self.rules]

    def to_json(self) -> dict[str, Any]:
        from niagara_solver.model.format import position_to_json
        out: dict[str, Any] = {"turn": str(self.turn), "player": self.player, "card": self.card.to_json(),
                               "legal": self.legal, "engine": self.engine, "agree": self.agree}
        if self.legal and self.after is not None:
            out["position"] = position_to_json(self.after)
            out["canoes"] = [{"start": r.start, "end": r.end, "spent": r.spent,
                              "loaded": [c.label for c in r.loaded], "unloaded": [c.label for c in r.unloaded],
                              "banked": [c.label for c in r.banked],
                              "stolen": [{"from": v, "gem": c.label} for v, c in r.stolen]} for r in self.canoes]
        else:
            out["rules"] = [{"id": r, "rule": s} for r, s in self.explanations]
            out["also"] = [[{"id": r, "rule": sentence(r)} for r in core] for core in self.also]
            if self.detail:
                out["detail"] = self.detail
        return out


#: The places a turn may name that are not discs: what the rules say of them (a canoe paddling over the falls,
#: a fallen canoe acting) is a rule's answer, not a misspelt name.
_PLACES = (PORT, FALLEN, FALLS)


def check_names(pos: Position, turn: Turn) -> None:
    """Every disc a turn names is a disc of the river, every victim a player of the game.

    A name that does not exist is a mistake in writing the turn, not a rule it breaks: it is refused as such
    (:class:`InvalidTurnError`, naming it and what exists), before any rule is asked."""
    discs = set(pos.board.discs)
    names = [p.name for p in pos.players]
    for k, action in enumerate(turn.actions, start=1):
        where = f"canoe action {k} ({quoted(str(action))})"
        places = [action.canoe.place, *(s.dest for s in action.steps if isinstance(s, (Move, Push)))]
        for place in places:
            if place not in discs and place.lower() not in _PLACES:
                shown = ", ".join(pos.board.discs[:12]) + (", ..." if len(discs) > 12 else "")
                raise InvalidTurnError(f"{where}: no such disc {quoted(place)} on this river; its discs: {shown}")
        for step in action.steps:
            if isinstance(step, Steal) and step.victim not in names:
                raise InvalidTurnError(f"{where}: no player is named {quoted(step.victim)}; the players: "
                                       f"{', '.join(names)}")


def _structure(turn: Turn, rules: Ruleset) -> tuple[str, str] | None:
    """A turn whose steps cannot fit one canoe action (R-MOVE-1) is refused before any solving."""
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


def why(pos: Position, player: int, card: Card, turn: Turn, timeout: float | None = 30) -> WhyResult:
    """Explain whether ``player`` may play ``turn`` with ``card`` in ``pos`` (a phase II position)."""
    me = pos.players[player]
    check_names(pos, turn)
    result = WhyResult(turn, me.name, card, legal=False)
    try:
        engine_result = apply_turn(pos, player, turn, card)
        engine_after = engine_result.position
        result.canoes = engine_result.canoes
        result.engine = "the engine accepts it"
    except TurnError as err:
        engine_after = None
        result.engine = f"the engine refuses it: {err}"
    except NiagaraError as err:
        engine_after = None
        result.engine = f"the engine refuses it: {err}"
    early = _structure(turn, pos.ruleset)
    order, reason = canoe_order(pos, player, turn)
    if early is None and reason is not None:
        early = reason
    if early is not None:
        result.rules, result.detail = [early[0]], early[1]
        result.agree = engine_after is None
        return result

    relations = Relations.of(pos)
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
        solver.add(z3.Implies(literals[rule], z3.And(cs)))
    answer = solver.check(*literals.values())
    if answer == z3.sat:
        result.legal = True
        model = solver.model()
        after = relations.decode_position(model, step.post, pos)
        # The decoded canoes are in the pinned order; decode_position re-sorts them canonically.
        revealed = tuple(Player(p.name, a.canoes, a.hand, a.bank, a.card) if i == player else
                         Player(p.name, a.canoes, p.hand, a.bank, p.card)
                         for i, (p, a) in enumerate(zip(pos.players, after.players)))
        result.after = after.replace(players=revealed, acted=(*pos.acted, player))
        result.agree = engine_after is not None and _same(engine_after, result.after)
        return result
    if answer != z3.unsat:
        result.detail = "the solver gave no answer in time (UNKNOWN)"
        result.agree = True
        return result
    names = {v.get_id(): r for r, v in literals.items()}
    core = _minimal(solver, list(solver.unsat_core()))
    result.rules = sorted((names[lit.get_id()] for lit in core), key=_rule_order)
    # Other, independent reasons: with each rule of the first reason switched off, is it still forbidden?
    seen = {tuple(result.rules)}
    for lit in core:
        rest = [x for x in literals.values() if not x.eq(lit)]
        if solver.check(*rest) == z3.unsat:
            other = sorted((names[x.get_id()] for x in _minimal(solver, list(solver.unsat_core()))), key=_rule_order)
            if tuple(other) not in seen:
                seen.add(tuple(other))
                result.also.append(other)
    result.agree = engine_after is None
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


def _rule_order(rule: str) -> tuple[str, int]:
    head, _, number = rule.rpartition("-")
    return head, int(number) if number.isdigit() else 0


def _same(a: Position, b: Position) -> bool:
    return a.caves == b.caves and a.weather == b.weather and all(
        x.canoes == y.canoes and x.bank == y.bank for x, y in zip(a.players, b.players))
