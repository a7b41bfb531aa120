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
from niagara_solver.model.atoms import Card, Phase
from niagara_solver.model.position import Player, Position
from niagara_solver.encoding.core import Encoding, Mutant
from niagara_solver.encoding.end import encode_end
from niagara_solver.encoding.flow import FlowChoice, RescueChoice, encode_flow, encode_rescue
from niagara_solver.encoding.round import RoundChoice, encode_round
from niagara_solver.encoding.solver import make_solver
from niagara_solver.encoding.state import NCOL, SymPosition, decode, fix, value
from niagara_solver.encoding.turn import Transition, TurnChoice, encode_turn


def _canoe_terms(post: SymPosition, p: int, k: int) -> list[Any]:
    return [post.place[p][k], *post.cargo[p][k]]


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
    parts += [post.cave[cc][c] == model.eval(post.cave[cc][c], model_completion=True)
              for cc in range(NCOL) for c in range(NCOL)]
    parts.append(post.weather == model.eval(post.weather, model_completion=True))
    parts += [m == model.eval(m, model_completion=True) for m in post.marker.values()]
    return z3.And(parts)


def _same_position(post: SymPosition, known: Position, tables: Any) -> Any:
    """The result equals a concrete position (canoes of a player in either order)."""
    from niagara_solver.model.atoms import Gems
    parts = []
    for p, player in enumerate(known.players):
        cs = [[tables.index[c.place], *Gems.of(c.gems)] for c in player.canoes]
        here = [_canoe_terms(post, p, 0), _canoe_terms(post, p, 1)]
        straight = z3.And([x == v for x, v in zip(here[0], cs[0])] + [x == v for x, v in zip(here[1], cs[1])])
        crossed = z3.And([x == v for x, v in zip(here[0], cs[1])] + [x == v for x, v in zip(here[1], cs[0])])
        parts.append(z3.Or(straight, crossed))
        parts += [post.bank[p][c] == player.bank[c] for c in range(NCOL)]
    parts += [post.cave[cc][c] == known.caves[cc][c] for cc in range(NCOL) for c in range(NCOL)]
    parts.append(post.weather == known.weather)
    return z3.And(parts)


class Enumerator:
    """The encoding's outcomes for concrete positions, for one board, ruleset and player count."""

    def __init__(self, enc: Encoding, timeout: float | None = 60) -> None:
        self.enc = enc
        self.tables = enc.tables
        self.timeout = timeout
        self._cache: dict[Any, tuple[SymPosition, Any, Transition, z3.Solver]] = {}

    @classmethod
    def of(cls, pos: Position, mutant: Mutant | None = None) -> "Enumerator":
        return cls(Encoding(pos.board, pos.ruleset, len(pos.players), mutant))

    def _relation(self, key: Any) -> tuple[SymPosition, Any, Transition, z3.Solver]:
        if key not in self._cache:
            enc, n = self.enc, self.enc.players
            pre = SymPosition.fresh(f"enum.{key}", n, self.tables)
            choice: Any
            if key[0] == "turn":
                choice = TurnChoice.fresh(f"enum.{key}", enc.rules.capacity, n)
                transition = encode_turn(enc, pre, choice, key[1])
            elif key[0] == "flow":
                choice = FlowChoice.fresh(f"enum.{key}", enc)
                steps = z3.Int(f"enum.{key}.steps") if key[1] == "steps" else None
                transition = encode_flow(enc, pre, choice if enc.rules.fork_policy.value == "free" else None,
                                         steps=steps)
                transition.extra["steps"] = steps
            elif key[0] == "rescue":
                choice = RescueChoice.fresh(f"enum.{key}", n)
                transition = encode_rescue(enc, pre, choice)
            else:
                choice = RoundChoice.fresh(f"enum.{key}", enc)
                transition = encode_round(enc, pre, choice, key[1])
            solver = make_solver(self.timeout)
            for _, c in transition.constraints:
                solver.add(c)
            self._cache[key] = (pre, choice, transition, solver)
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
        from niagara_solver.encoding.trace import decode_turn
        pre, choice, transition, _ = self._relation(("turn", player))
        me = pos.players[player]
        found: dict[Position, str] = {}
        # Slot 0 acts on canoe 0: with different canoes, either may act first. A fresh solver per order was
        # measured faster than push/pop on a shared one for this many models (docs/PROVER.md).
        for order in ([(0, 1)] if me.canoes[0] == me.canoes[1] else [(0, 1), (1, 0)]):
            solver = make_solver(self.timeout)
            solver.add(*[c for _, c in transition.constraints])
            solver.add(*fix(pre, pos, self.tables, {player: order}))
            solver.add(choice.card == int(card))
            for known in found:
                solver.add(z3.Not(_same_position(transition.post, known, self.tables)))

            def finish(model: z3.ModelRef) -> Position:
                after = decode(model, transition.post, self.tables, pos.ruleset, pos)
                players = tuple(Player(p.name, a.canoes, a.hand if i == player else p.hand, a.bank,
                                       card if i == player else p.card)
                                for i, (p, a) in enumerate(zip(pos.players, after.players)))
                result = after.replace(players=players, acted=(*pos.acted, player))
                found.setdefault(result, str(decode_turn(model, choice, self.tables, pre, player)[1]))
                return result
            self._collect(solver, transition.post, pos, finish, limit)
        return found

    def check_turns(self, pos: Position, player: int, card: Card, claimed: dict[Position, Turn]) -> dict[Position, str]:
        """The encoding's outcomes, found by checking a claimed set (another reader's turns and results).

        Each claimed turn is pinned and its result decoded (it may be refused, or lead elsewhere); then one
        question per canoe order asks for any result outside the claimed set, and every such result is
        enumerated. The answer is the encoding's whole outcome set, as :meth:`turns_with_notation` would give,
        several times faster when the claim is right (docs/PROVER.md).
        """
        from niagara_solver.encoding.pin import canoe_order, pin_turn
        from niagara_solver.encoding.trace import decode_turn
        pre, choice, transition, _ = self._relation(("turn", player))
        me = pos.players[player]
        orders = [(0, 1)] if me.canoes[0] == me.canoes[1] else [(0, 1), (1, 0)]
        solvers = {}
        for order in orders:
            solver = make_solver(self.timeout)
            solver.add(*[c for _, c in transition.constraints])
            solver.add(*fix(pre, pos, self.tables, {player: order}))
            solver.add(choice.card == int(card))
            solvers[order] = solver

        def result(model: z3.ModelRef) -> Position:
            after = decode(model, transition.post, self.tables, pos.ruleset, pos)
            players = tuple(Player(p.name, a.canoes, a.hand if i == player else p.hand, a.bank,
                                   card if i == player else p.card)
                            for i, (p, a) in enumerate(zip(pos.players, after.players)))
            return after.replace(players=players, acted=(*pos.acted, player))
        found: dict[Position, str] = {}
        for _, turn in claimed.items():
            order, problem = canoe_order(pos, player, turn)
            if problem is not None:
                continue
            solver = solvers[order if order in solvers else (0, 1)]
            solver.push()
            solver.add(*pin_turn(self.enc, pos, card, turn, choice))
            answer = solver.check()
            if answer == z3.sat:
                found.setdefault(result(solver.model()), str(turn))
            elif answer != z3.unsat:
                solver.pop()
                raise TimeoutError("the solver gave no answer in time")
            solver.pop()
        for order, solver in solvers.items():
            solver.add(*[z3.Not(_same_position(transition.post, known, self.tables)) for known in claimed])
            solver.add(*[z3.Not(_same_position(transition.post, known, self.tables)) for known in found])
            while True:
                answer = solver.check()
                if answer == z3.unsat:
                    break
                if answer != z3.sat:
                    raise TimeoutError("the solver gave no answer in time")
                model = solver.model()
                extra = result(model)
                found.setdefault(extra, str(decode_turn(model, choice, self.tables, pre, player)[1]))
                solver.add(z3.Not(_same_position(transition.post, extra, self.tables)))
        return found

    def flows(self, pos: Position, steps: int | None, limit: int = 100000) -> set[Position]:
        """Every position the flow leads to (one under alternation; several with a free fork): ``steps`` single
        steps, or, with None, as many as the cards played and the weather give (R-FLOW-1, R-FLOW-2)."""
        pre, _, transition, solver = self._relation(("flow", "steps" if steps is not None else "cards"))
        solver.push()
        solver.add(*fix(pre, pos, self.tables))
        if steps is not None:
            solver.add(transition.extra["steps"] == steps)
        found = self._collect(solver, transition.post, pos, self._keeping_hands(transition, pos), limit)
        solver.pop()
        return found

    def rescues(self, pos: Position, limit: int = 100000) -> set[Position]:
        """Every position phase I's rescue decisions lead to (a start-of-round position)."""
        pre, _, transition, solver = self._relation(("rescue",))
        solver.push()
        solver.add(*fix(pre, pos, self.tables))
        found = self._collect(solver, transition.post, pos, self._keeping_hands(transition, pos), limit)
        solver.pop()
        return found

    def _keeping_hands(self, transition: Transition, pos: Position) -> Callable[[z3.ModelRef], Position]:
        """The position a model of a rescue or flow leads to: canoes, banks, caves and markers from the model;
        hands and cards as in ``pos`` (phases I and III never touch them)."""
        def finish(model: z3.ModelRef) -> Position:
            after = decode(model, transition.post, self.tables, pos.ruleset, pos)
            players = tuple(Player(p.name, a.canoes, p.hand, a.bank, p.card)
                            for p, a in zip(pos.players, after.players))
            return after.replace(players=players)
        return finish

    def winners(self, pos: Position) -> tuple[int, ...]:
        """The winners the encoding's end check names for the banks of ``pos``."""
        pre = SymPosition.fresh("end.pre", self.enc.players, self.tables)
        won = encode_end(self.enc, pre)
        solver = make_solver(self.timeout)
        solver.add(*fix(pre, pos, self.tables))
        assert solver.check() == z3.sat
        model = solver.model()
        return tuple(p for p, w in enumerate(won) if value(model, w))

    def rounds(self, pos: Position, cards: dict[int, Card], limit: int = 100000) -> set[Position]:
        """Every position at the start of the next round, from a start-of-round position and given cards."""
        pre, choice, transition, solver = self._relation(("round", pos.lifebuoy))
        solver.push()
        solver.add(*fix(pre, pos, self.tables))
        for p, card in cards.items():
            solver.add(choice.turns[p].card == int(card))
        n = len(pos.players)

        def finish(model: z3.ModelRef) -> Position:
            after = decode(model, transition.post, self.tables, pos.ruleset, pos)
            players = tuple(Player(a.name, a.canoes, a.hand, a.bank, None) for a in after.players)
            return after.replace(players=players, lifebuoy=(pos.lifebuoy + 1) % n, round=pos.round + 1,
                                 phase=Phase.CARDS, acted=())
        found = self._collect(solver, transition.post, pos, finish, limit)
        solver.pop()
        return found


def turn_outcomes(pos: Position, player: int, card: Card, limit: int = 100000,
                  timeout: float | None = 60) -> set[Position]:
    """The positions ``player`` can reach with ``card`` according to the encoding (phase II position)."""
    return Enumerator.of(pos).turns(pos, player, card, limit)

