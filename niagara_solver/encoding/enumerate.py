"""Every outcome of a phase from a concrete position, by enumerating the encoding's models.

Each relation is built once per (board, ruleset, player count) and a concrete position is pinned under
push/pop. Each model found is blocked on its resulting position *up to the order of a player's two canoes*
(the canonical form), so every distinct result is found exactly once; results are canonical positions,
comparable with the engine's.
"""

from __future__ import annotations

from typing import Any, Callable

import z3

from niagara_solver.model.notation import Turn
from niagara_solver.model.atoms import Card, Moose, Phase
from niagara_solver.model.position import Player, Position
from niagara_solver.encoding.relations import NCOL, Mutant, Relations, Step, SymPosition, canoe_order
from niagara_solver.encoding.solver import make_solver
from niagara_solver.encoding.state import MOOSE_STATES


def _canoe_terms(post: SymPosition, p: int, k: int) -> list[Any]:
    moored = [post.moored[p][k]] if post.moored is not None else []  # X-CARDS-4
    double = [post.double[p][k]] if post.double is not None else []  # X-DOUBLE-1
    holder = [post.holder[p][k]] if post.holder is not None else []  # X-MOOSE-2
    return [post.place[p][k], *post.cargo[p][k], *moored, *double, *holder]


def _same(post: SymPosition, model: z3.ModelRef) -> Any:
    """The result equals the model's, the two canoes of each player taken in either order."""
    parts = []
    for p in range(post.players):
        a = [model.eval(x, model_completion=True) for x in _canoe_terms(post, p, 0)]
        b = [model.eval(x, model_completion=True) for x in _canoe_terms(post, p, 1)]
        here = [_canoe_terms(post, p, 0), _canoe_terms(post, p, 1)]
        straight = z3.And([x == v for x, v in zip(here[0], a)] + [x == v for x, v in zip(here[1], b)])
        crossed = z3.And([x == v for x, v in zip(here[0], b)] + [x == v for x, v in zip(here[1], a)])
        parts.append(z3.Or(straight, crossed))
        parts += [x == model.eval(x, model_completion=True) for x in post.bank[p]]
        if post.budget is not None:  # the 1/2/3 card's budget is part of the result (X-CARDS-3)
            parts.append(post.budget[p] == model.eval(post.budget[p], model_completion=True))
    parts += [post.cave[cc][c] == model.eval(post.cave[cc][c], model_completion=True)
              for cc in range(NCOL) for c in range(NCOL)]
    parts.append(post.weather == model.eval(post.weather, model_completion=True))
    parts += [m == model.eval(m, model_completion=True) for m in post.marker.values()]
    if post.beaver is not None:  # X-BEAVER-1
        parts.append(post.beaver == model.eval(post.beaver, model_completion=True))
    if post.moose is not None:  # X-MOOSE-1
        parts.append(post.moose == model.eval(post.moose, model_completion=True))
    return z3.And(parts)


def _same_position(post: SymPosition, known: Position, tables: Any) -> Any:
    """The result equals a concrete position (canoes of a player in either order)."""
    from niagara_solver.model.atoms import Gems
    parts = []
    for p, player in enumerate(known.players):
        cs = [[tables.index[c.place], *Gems.of(c.gems), *([c.moored] if post.moored is not None else []),
               *([c.double] if post.double is not None else []), *([c.moose] if post.holder is not None else [])]
              for c in player.canoes]
        here = [_canoe_terms(post, p, 0), _canoe_terms(post, p, 1)]
        straight = z3.And([x == v for x, v in zip(here[0], cs[0])] + [x == v for x, v in zip(here[1], cs[1])])
        crossed = z3.And([x == v for x, v in zip(here[0], cs[1])] + [x == v for x, v in zip(here[1], cs[0])])
        parts.append(z3.Or(straight, crossed))
        parts += [post.bank[p][c] == player.bank[c] for c in range(NCOL)]
        if post.budget is not None:
            parts.append(post.budget[p] == (player.card_budget or 0))
    parts += [post.cave[cc][c] == known.caves[cc][c] for cc in range(NCOL) for c in range(NCOL)]
    parts.append(post.weather == known.weather)
    if post.beaver is not None:  # X-BEAVER-1
        parts.append(post.beaver == (tables.index[known.beaver] if known.beaver is not None else 0))
    if post.moose is not None:  # X-MOOSE-1
        parts.append(post.moose == MOOSE_STATES.index(known.moose or Moose.WAITING))
    return z3.And(parts)


class Enumerator:
    """The encoding's outcomes for concrete positions, for one board, ruleset and player count."""

    def __init__(self, relations: Relations, timeout: float | None = 60) -> None:
        self.relations = relations
        self.tables = relations.tables
        self.timeout = timeout
        self._cache: dict[Any, tuple[SymPosition, Any, z3.Solver]] = {}

    @classmethod
    def of(cls, pos: Position, mutant: Mutant | None = None) -> "Enumerator":
        return cls(Relations.of(pos, mutant))

    def _relation(self, key: Any) -> tuple[SymPosition, Any, z3.Solver]:
        """The position before, the step (turn, flow, rescue or round) and a solver holding its relation."""
        if key not in self._cache:
            relations, tag = self.relations, f"enum.{key}"
            pre = relations.position(tag)
            step: Any
            if key[0] == "turn":
                step = relations.turn(pre, key[1], tag)
            elif key[0] == "flow":
                # Branch choices under either fork policy (read only when free), so the flow's terms come in one
                # order whatever the policy; with "steps", phase III alone, the number of steps is free.
                step = relations.flow(pre, tag, choice=relations.flow_choice(tag), steps=key[1] == "steps")
            elif key[0] == "rescue":
                step = relations.rescue(pre, tag)
            else:
                step = relations.round(pre, tag, key[1])
            solver = make_solver(self.timeout)
            for _, c in step.constraints:
                solver.add(c)
            self._cache[key] = (pre, step, solver)
        return self._cache[key]

    def _collect(self, solver: z3.Solver, post: SymPosition, base: Position, finish: Any,
                 limit: int) -> set[Position]:
        found: set[Position] = set()
        while len(found) < limit:
            answer = solver.check()
            if answer != z3.sat:
                if answer != z3.unsat:
                    raise TimeoutError("the solver gave no answer in time")
                break
            model = solver.model()
            found.add(finish(model))
            solver.add(z3.Not(_same(post, model)))
        return found

    # -- phases -------------------------------------------------------------------------------------------

    def turns(self, pos: Position, player: int, card: Card, limit: int = 100000) -> set[Position]:
        """Every position ``player`` can reach with ``card`` (a phase II position)."""
        return set(self.turns_with_notation(pos, player, card, limit))

    def turns_with_notation(self, pos: Position, player: int, card: Card, limit: int = 100000) -> dict[Position, str]:
        """Every position ``player`` can reach with ``card``, with a turn (in the notation) that reaches it."""
        relations = self.relations
        pre, step, _ = self._relation(("turn", player))
        me = pos.players[player]
        found: dict[Position, str] = {}
        # Slot 0 acts on canoe 0: with different canoes, either may act first. A fresh solver per order was
        # measured faster than push/pop on a shared one for this many models (docs/PROVER.md).
        for order in ([(0, 1)] if me.canoes[0] == me.canoes[1] else [(0, 1), (1, 0)]):
            solver = make_solver(self.timeout)
            solver.add(*[c for _, c in step.constraints])
            solver.add(*relations.pin(pre, pos, {player: order}))
            solver.add(step.plays(card))
            for known in found:
                solver.add(z3.Not(_same_position(step.post, known, self.tables)))

            def finish(model: z3.ModelRef) -> Position:
                after = relations.decode_position(model, step.post, pos)
                players = tuple(Player(p.name, a.canoes, a.hand if i == player else p.hand, a.bank,
                                       card if i == player else p.card,
                                       a.card_budget if i == player else p.card_budget)
                                for i, (p, a) in enumerate(zip(pos.players, after.players)))
                result = after.replace(players=players, acted=(*pos.acted, player))
                found.setdefault(result, str(relations.decode_turn(model, step)[1]))
                return result
            self._collect(solver, step.post, pos, finish, limit)
        return found

    def check_turns(self, pos: Position, player: int, card: Card, claimed: dict[Position, Turn]) -> dict[Position, str]:
        """The encoding's outcomes, found by checking a claimed set (another reader's turns and results).

        Each claimed turn is pinned and its result decoded (it may be refused, or lead elsewhere); then one
        question per canoe order asks for any result outside the claimed set, and every such result is
        enumerated. The answer is the encoding's whole outcome set, as :meth:`turns_with_notation` would give,
        several times faster when the claim is right (docs/PROVER.md).
        """
        relations = self.relations
        pre, step, _ = self._relation(("turn", player))
        me = pos.players[player]
        orders = [(0, 1)] if me.canoes[0] == me.canoes[1] else [(0, 1), (1, 0)]
        solvers = {}
        for order in orders:
            solver = make_solver(self.timeout)
            solver.add(*[c for _, c in step.constraints])
            solver.add(*relations.pin(pre, pos, {player: order}))
            solver.add(step.plays(card))
            solvers[order] = solver

        def result(model: z3.ModelRef) -> Position:
            after = relations.decode_position(model, step.post, pos)
            players = tuple(Player(p.name, a.canoes, a.hand if i == player else p.hand, a.bank,
                                   card if i == player else p.card,
                                   a.card_budget if i == player else p.card_budget)
                            for i, (p, a) in enumerate(zip(pos.players, after.players)))
            return after.replace(players=players, acted=(*pos.acted, player))
        found: dict[Position, str] = {}
        for _, turn in claimed.items():
            order, problem = canoe_order(pos, player, turn)
            if problem is not None:
                continue
            solver = solvers[order if order in solvers else (0, 1)]
            solver.push()
            solver.add(*relations.pin_turn(step, pos, card, turn))
            answer = solver.check()
            if answer == z3.sat:
                found.setdefault(result(solver.model()), str(turn))
            elif answer != z3.unsat:
                solver.pop()
                raise TimeoutError("the solver gave no answer in time")
            solver.pop()
        for order, solver in solvers.items():
            solver.add(*[z3.Not(_same_position(step.post, known, self.tables)) for known in claimed])
            solver.add(*[z3.Not(_same_position(step.post, known, self.tables)) for known in found])
            while True:
                answer = solver.check()
                if answer == z3.unsat:
                    break
                if answer != z3.sat:
                    raise TimeoutError("the solver gave no answer in time")
                model = solver.model()
                extra = result(model)
                found.setdefault(extra, str(relations.decode_turn(model, step)[1]))
                solver.add(z3.Not(_same_position(step.post, extra, self.tables)))
        return found

    def flows(self, pos: Position, steps: int | None, limit: int = 100000) -> set[Position]:
        """Every position the flow leads to (one under alternation; several with a free fork): ``steps`` single
        steps, or, with None, as many as the cards played and the weather give (R-FLOW-1, R-FLOW-2)."""
        pre, step, solver = self._relation(("flow", "steps" if steps is not None else "cards"))
        solver.push()
        solver.add(*self.relations.pin(pre, pos))
        if steps is not None:
            solver.add(step.steps == steps)
        found = self._collect(solver, step.post, pos, self._keeping_hands(step, pos), limit)
        solver.pop()
        return found

    def rescues(self, pos: Position, limit: int = 100000) -> set[Position]:
        """Every position phase I's rescue decisions lead to (a start-of-round position)."""
        pre, step, solver = self._relation(("rescue",))
        solver.push()
        solver.add(*self.relations.pin(pre, pos))
        found = self._collect(solver, step.post, pos, self._keeping_hands(step, pos), limit)
        solver.pop()
        return found

    def _keeping_hands(self, step: Step, pos: Position) -> Callable[[z3.ModelRef], Position]:
        """The position a model of a rescue or flow leads to: canoes, banks, caves and markers from the model;
        hands and cards as in ``pos`` (phases I and III never touch them)."""
        def finish(model: z3.ModelRef) -> Position:
            after = self.relations.decode_position(model, step.post, pos)
            players = tuple(Player(p.name, a.canoes, p.hand, a.bank, p.card, p.card_budget)
                            for p, a in zip(pos.players, after.players))
            return after.replace(players=players)
        return finish

    def winners(self, pos: Position) -> tuple[int, ...]:
        """The winners the encoding's end check names for the banks of ``pos``."""
        pre = self.relations.position("end.pre")
        won = self.relations.end(pre)
        solver = make_solver(self.timeout)
        solver.add(*self.relations.pin(pre, pos))
        assert solver.check() == z3.sat
        return self.relations.decode_winners(solver.model(), won)

    def rounds(self, pos: Position, cards: dict[int, Card], limit: int = 100000) -> set[Position]:
        """Every position at the start of the next round, from a start-of-round position and given cards."""
        pre, step, solver = self._relation(("round", pos.lifebuoy))
        solver.push()
        solver.add(*self.relations.pin(pre, pos))
        for p, card in cards.items():
            solver.add(step.plays(p, card))
        n = len(pos.players)

        def finish(model: z3.ModelRef) -> Position:
            after = self.relations.decode_position(model, step.post, pos)
            players = tuple(Player(a.name, a.canoes, a.hand, a.bank, None) for a in after.players)
            return after.replace(players=players, lifebuoy=(pos.lifebuoy + 1) % n, round=pos.round + 1,
                                 phase=Phase.CARDS, acted=())
        found = self._collect(solver, step.post, pos, finish, limit)
        solver.pop()
        return found


def turn_outcomes(pos: Position, player: int, card: Card, limit: int = 100000,
                  timeout: float | None = 60) -> set[Position]:
    """The positions ``player`` can reach with ``card`` according to the encoding (phase II position)."""
    return Enumerator.of(pos).turns(pos, player, card, limit)

