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

from ..engine.apply import apply_turn
from ..engine.notation import Load, Move, Steal, Turn, Unload
from ..errors import NiagaraError, TurnError
from ..encoding.core import Encoding
from ..encoding.solver import make_solver
from ..encoding.state import NCOL, SymPosition, decode, fix
from ..encoding.turn import OPS, GemOp, TurnChoice, encode_turn
from ..rules.atoms import Card
from ..rules.catalogue import sentence
from ..rules.position import Player, Position


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

    @property
    def explanations(self) -> list[tuple[str, str]]:
        return [(r, sentence(r)) for r in self.rules]

    def to_json(self) -> dict[str, Any]:
        from ..rules.format import position_to_json
        out: dict[str, Any] = {"turn": str(self.turn), "player": self.player, "card": self.card.to_json(),
                               "legal": self.legal, "engine": self.engine, "agree": self.agree}
        if self.legal and self.after is not None:
            out["position"] = position_to_json(self.after)
        else:
            out["rules"] = [{"id": r, "rule": s} for r, s in self.explanations]
            out["also"] = [[{"id": r, "rule": sentence(r)} for r in core] for core in self.also]
            if self.detail:
                out["detail"] = self.detail
        return out


def _structure(turn: Turn) -> tuple[str, str] | None:
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
        if split > OPS or (end - split - 1) > OPS:
            return "R-MOVE-3", "more than three gem actions at one stop cost more than the largest card"
    return None


def why(pos: Position, player: int, card: Card, turn: Turn, timeout: float | None = 30) -> WhyResult:
    """Explain whether ``player`` may play ``turn`` with ``card`` in ``pos`` (a phase II position)."""
    me = pos.players[player]
    result = WhyResult(turn, me.name, card, legal=False)
    try:
        engine_after = apply_turn(pos, player, turn, card).position
        result.engine = "the engine accepts it"
    except TurnError as err:
        engine_after = None
        result.engine = f"the engine refuses it: {err}"
    except NiagaraError as err:
        engine_after = None
        result.engine = f"the engine refuses it: {err}"
    early = _structure(turn)
    order, reason = _canoes(pos, player, turn)
    if early is None and reason is not None:
        early = reason
    if early is not None:
        result.rules, result.detail = [early[0]], early[1]
        result.agree = engine_after is None
        return result

    enc = Encoding(pos.board, pos.ruleset, len(pos.players))
    t = enc.tables
    pre = SymPosition.fresh("why.pre", len(pos.players), t)
    choice = TurnChoice.fresh("why", pos.ruleset.capacity, len(pos.players))
    transition = encode_turn(enc, pre, choice, player)
    solver = make_solver(timeout)
    solver.add(*fix(pre, pos, t, {player: order}))
    solver.add(*_pin(enc, pos, player, card, turn, choice, order))
    groups: dict[str, list[Any]] = {}
    for rule, c in transition.constraints:
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
        after = decode(model, transition.post, t, pos.ruleset, pos)
        # The decoded canoes are in the pinned order; decode() re-sorts them canonically.
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


def _canoes(pos: Position, player: int, turn: Turn) -> tuple[tuple[int, int], tuple[str, str] | None]:
    """The player's canoe order with the first-named canoe first, or the reason a canoe does not exist."""
    me = pos.players[player]
    used: list[int] = []
    for action in turn.actions:
        ref = action.canoe
        found = [i for i, c in enumerate(me.canoes) if c.place == ref.place and i not in used
                 and (ref.gems is None or tuple(sorted(ref.gems)) == c.gems)]
        if not found:
            where = "in the port" if ref.place == "port" else f"on {ref.place}"
            return (0, 1), ("R-TURN-3", f"{me.name} has no canoe {where} to act")
        used.append(found[0])
    if used and used[0] == 1:
        return (1, 0), None
    return (0, 1), None


def _pin(enc: Encoding, pos: Position, player: int, card: Card, turn: Turn, choice: TurnChoice,
         order: tuple[int, int]) -> list[Any]:
    """Constraints fixing the symbolic choices to the written turn."""
    t = enc.tables
    names = [p.name for p in pos.players]
    out: list[Any] = [choice.card == int(card)]
    out.append(choice.step == turn.weather)
    slots = choice.slots
    acting = list(turn.actions)
    # The first action belongs to slot 0 (canoe 0 after the reordering), the second to slot 1.
    for s, slot in enumerate(slots):
        if s >= len(acting):
            out.append(z3.Not(slot.on))
            out += [x == 0 for op in (*slot.pre, *slot.post) for x in op.cells()]
            out += [x == 0 for j in range(len(slot.steals)) for x in slot.steal_cells(j)]
            continue
        action = acting[s]
        out.append(slot.on)
        steps = list(action.steps)
        moves = [i for i, st in enumerate(steps) if isinstance(st, Move)]
        split = moves[0] if moves else len(steps)
        before = [st for st in steps[:split] if isinstance(st, (Load, Unload))]
        after = [st for st in steps[split:] if isinstance(st, (Load, Unload))]
        for ops, gems in ((slot.pre, before), (slot.post, after)):
            for i, op in enumerate(ops):
                out += _pin_op(op, gems[i] if i < len(gems) else None)
        if moves:
            move = steps[moves[0]]
            assert isinstance(move, Move)
            out.append(slot.move == (1 if move.downstream else -1))
            out.append(slot.dest == t.index.get(move.dest, -1))
        else:
            out.append(slot.move == 0)
        thefts = [st for st in steps if isinstance(st, Steal)]
        for j in range(len(slot.steals)):
            cells = slot.steals[j]
            if j < len(thefts):
                q = names.index(thefts[j].victim) if thefts[j].victim in names else -1
                c = int(thefts[j].colour) - 1
                out += [x == 0 for qq, canoes in enumerate(cells) for v, row in enumerate(canoes)
                        for cc, x in enumerate(row) if qq != q or cc != c]
                if q >= 0:
                    out.append(z3.Sum([cells[q][v][c] for v in range(2)]) == 1)
                else:
                    out.append(z3.BoolVal(False))
            else:
                out += [x == 0 for x in slot.steal_cells(j)]
    return out


def _pin_op(op: GemOp, step: Load | Unload | None) -> list[Any]:
    """A written gem action: its kind and colour; the cave is whichever lies beside the canoe."""
    if step is None:
        return [x == 0 for x in op.cells()]
    c = int(step.colour) - 1
    chosen = op.load if isinstance(step, Load) else op.unload
    other = op.unload if isinstance(step, Load) else op.load
    out = [x == 0 for row in other for x in row]
    out += [chosen[cc][col] == 0 for cc in range(NCOL) for col in range(NCOL) if col != c]
    out.append(z3.Sum([chosen[cc][c] for cc in range(NCOL)]) == 1)
    return out
