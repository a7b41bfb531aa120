"""The SMT backend of the puzzle solver: the same questions answered over the z3 encoding.

Every successor comes from the encoding (its models, enumerated: rescues, the other players' turns, flows),
never from the engine. X's decisive turn — X's turn in the last round of the horizon — is an exists/forall
question settled by a counterexample-guided loop (CEGIS, as in z3's ``efsmt`` example):

1. a synthesis solver proposes a turn of X (the turn relation from the pinned position) that succeeds
   against every reply found so far;
2. a verification solver looks for a reply of the players after X (their cards and turns, and for the safe
   goal the flow) that defeats it;
3. a reply found is added to the synthesis solver as "if this reply is legal after X's turn, X still
   succeeds", and the loop goes on; no proposal left means X cannot succeed; no defeating reply means X can.

Earlier levels (phase I, X's card chosen blind, the players before X, earlier rounds) are explored in Python
over the encoding's enumerated outcomes, with the same quantifier order as the search backend.
"""

from __future__ import annotations

import time
from typing import Any

import z3

from niagara_solver.encoding.enumerate import Enumerator
from niagara_solver.encoding.relations import NCOL, Relations, SymPosition
from niagara_solver.encoding.solver import make_solver
from niagara_solver.model.atoms import Card, Phase
from niagara_solver.model.position import Player, Position, start_hand
from niagara_solver.model.readings import UncoveredRulesError
from niagara_solver.model.ruleset import Reveal
from niagara_solver.model.verdict import Verdict
from niagara_solver.model.limits import check_time, time_left
from niagara_solver.solver.answers import Answer, Goal, OutOfTime, could_reach_goal, x_gems


class SmtSolver:
    """One query over the encoding."""

    def __init__(self, pos: Position, x: int, goal: Goal, horizon: int, timeout: float | None) -> None:
        if pos.ruleset.reveal is Reveal.AT_ONCE:  # the levels below follow the cards revealed in turn (R-TURN-1)
            raise UncoveredRulesError("ruleset.reveal", "reveal: \"at_once\" is not yet covered by the smt backend "
                                      "(the search answers it: --backend search)", "R-TURN-1")
        self.x = x
        self.goal = goal
        self.horizon = horizon
        left = time_left(timeout if timeout else None)  # its own budget, within the command's time limit
        self.deadline = time.perf_counter() + left if left is not None else None
        self.timeout = timeout
        self.relations = Relations.of(pos)
        self.enumerator = Enumerator(self.relations, timeout)
        self.memo: dict[Any, bool] = {}
        self.baseline: int | None = None
        self.nodes = 0
        self.cards: dict[int, Card | None] = {}
        #: The chains of replies :meth:`_defeat` asks about, by the players in order and their known cards: the same
        #: terms each time (the same names), so built once (building the turns took half of a question's time).
        self._chains: dict[Any, tuple[SymPosition, list[Any], SymPosition, dict[str, Any]]] = {}

    def _tick(self) -> None:
        self.nodes += 1
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise OutOfTime()

    # -- the levels explored in Python ----------------------------------------------------------------------

    def value(self, pos: Position) -> bool:
        if pos.phase is Phase.CARDS:
            return self.round_start(pos, self.horizon)
        return self.card_stage(pos, self.horizon)

    def round_start(self, pos: Position, left: int) -> bool:
        self._tick()
        won = self.enumerator.winners(pos)
        if won:
            return self.goal is Goal.WIN and self.x in won
        outcomes = sorted(self.enumerator.rescues(pos), key=lambda p: repr(p))
        order = pos.turn_order()
        return self._rescue_level(pos, outcomes, order, 0, left)

    def _rescue_level(self, pos: Position, outcomes: list[Position], order: tuple[int, ...], i: int, left: int) -> bool:
        """Open rescue decisions in seat order: each player's part of the joint outcomes, in turn."""
        if len(outcomes) == 1 or i == len(order):
            return self.card_stage(_turns_phase(outcomes[0]), left)
        p = order[i]
        parts: dict[Any, list[Position]] = {}
        for o in outcomes:
            parts.setdefault((o.players[p].canoes, o.players[p].bank), []).append(o)
        results = (self._rescue_level(pos, group, order, i + 1, left) for group in parts.values())
        return any(results) if p == self.x else all(results)

    def card_stage(self, pos: Position, left: int) -> bool:
        me = pos.players[self.x]
        if self.x in pos.acted or me.card is not None:
            return self.turn_stage(pos, left)
        return any(self.turn_stage(pos.with_player(self.x, Player(me.name, me.canoes, me.hand, me.bank, c)), left)
                   for c in me.hand)

    def turn_stage(self, pos: Position, left: int) -> bool:
        self._tick()
        key = (pos, left, self.baseline)
        if key in self.memo:
            return self.memo[key]
        p = pos.next_to_act()
        if p is None:
            result = self.end_stage(pos, left)
        elif self.goal is Goal.WIN and not could_reach_goal(
                pos, self.x, 2 * pos.ruleset.capacity * ((0 if self.x in pos.acted else 1) + left - 1)):
            result = False  # X cannot bank enough in time even unhindered (the same sound bound as the search)
        elif p == self.x:
            if self.goal is Goal.SAFE and self.baseline is None:
                self.baseline = x_gems(pos, self.x)
                result = self.turn_stage(pos, left)
                self.baseline = None
                return result
            card = pos.players[self.x].card
            assert card is not None
            if left == 1:
                result = self.decisive(pos, card)
            elif self.goal is Goal.STEAL and self.decisive(pos, card, steal_only=True):
                result = True  # a steal now reaches the goal
            else:
                result = any(self.turn_stage(after, left)
                             for after in self._ordered(pos, self.enumerator.turns(pos, self.x, card), best=True))
        else:
            player = pos.players[p]
            cards = [player.card] if player.card is not None else list(player.hand)
            result = all(self.turn_stage(after, left) for card in cards
                         for after in self._ordered(pos, self.enumerator.turns(pos, p, card), best=False))
        self.memo[key] = result
        return result

    def _ordered(self, pos: Position, outcomes: set[Position], best: bool) -> list[Position]:
        """The most telling outcomes first: X's gains for X's choices, X's losses for the others'."""
        return sorted(outcomes, key=lambda after: (-1 if best else 1) * (x_gems(after, self.x) - x_gems(pos, self.x)))

    def end_stage(self, pos: Position, left: int) -> bool:
        if left == 1:
            if self.goal is Goal.WIN:
                won = self.enumerator.winners(pos)
                return bool(won) and self.x in won
            if self.goal is Goal.STEAL:
                return False
        results = self.enumerator.flows(pos, None)
        return all(self._round_end(_next_round(after, pos), left) for after in results)

    def _round_end(self, pos: Position, left: int) -> bool:
        if self.goal is Goal.SAFE and self.baseline is not None and x_gems(pos, self.x) < self.baseline:
            return False
        won = self.enumerator.winners(pos)
        if won:
            return (self.x in won) if self.goal is Goal.WIN else self.goal is Goal.SAFE
        if left == 1:
            return self.goal is Goal.SAFE
        return self.round_start(pos, left - 1)

    # -- X's decisive turn: exists/forall by CEGIS ---------------------------------------------------------

    def decisive(self, pos: Position, card: Card, steal_only: bool = False) -> bool:
        """Is there a turn of X, with ``card``, that succeeds against every reply of the players after X?"""
        relations = self.relations
        order = [p for p in pos.turn_order() if p not in pos.acted and p != self.x]
        self.cards = {p: pos.players[p].card for p in order}
        pre = relations.position("dec.pre")
        x_turn = relations.turn(pre, self.x, "dec.x", swap=True)
        synth = make_solver(self.timeout)
        synth.add(*relations.pin(pre, pos), x_turn.plays(card))
        synth.add(*[c for _, c in x_turn.constraints])
        if self.goal is Goal.STEAL or steal_only:
            synth.add(x_turn.steals())
            return self._check(synth) == z3.sat
        if self.goal is Goal.WIN and not order:
            synth.add(relations.end(x_turn.post)[self.x])
            return self._check(synth) == z3.sat
        # Necessary conditions, which the others cannot change after X's turn: X's bank is final once X has acted
        # this round, so X must reach the goal in this turn; and X's gems can only go down after it.
        if self.goal is Goal.WIN:
            synth.add(relations.reached_goal(x_turn.post, self.x))
        if self.goal is Goal.SAFE:
            assert self.baseline is not None
            synth.add(z3.Sum([*x_turn.post.bank[self.x], *(g for k in range(2) for g in x_turn.post.cargo[self.x][k])])
                      >= self.baseline)
        replies: list[dict[str, Any]] = []
        for rounds in range(200):
            answer = self._check(synth)
            if answer == z3.unsat:
                return False
            model = synth.model()
            after_x = self._decode_after(model, x_turn, pos, card)
            reply = self._defeat(after_x, order)
            if reply is None:
                return True
            replies.append(reply)
            synth.add(*self._survives(x_turn.post, reply, order, f"dec.cex{rounds}"))
        raise OutOfTime()

    def _check(self, solver: z3.Solver) -> Any:
        answer = solver.check()
        if answer == z3.unknown:
            raise OutOfTime()
        return answer

    def _decode_after(self, model: z3.ModelRef, transition: Any, pos: Position, card: Card) -> Position:
        after = self.relations.decode_position(model, transition.post, pos)
        players = tuple(Player(p.name, a.canoes, a.hand if i == self.x else p.hand, a.bank,
                               card if i == self.x else p.card)
                        for i, (p, a) in enumerate(zip(pos.players, after.players)))
        return after.replace(players=players, acted=(*pos.acted, self.x))

    def _reply_chain(self, start: SymPosition, order: list[int], tag: str,
                     pinned: dict[str, Any] | None) -> tuple[list[Any], list[Any], SymPosition, dict[str, Any]]:
        """The players after X act in order (each with a card of the hand), then for the safe goal the flow:
        the relation's constraints, the constraints pinning the choices to ``pinned`` (if given), the final
        state and the steps (whose choices a reply is read from)."""
        relations = self.relations
        state = start
        constraints: list[Any] = []
        variables: dict[str, Any] = {}
        for p in order:
            turn = relations.turn(state, p, f"{tag}.p{p}", swap=True)
            constraints += [c for _, c in turn.constraints]
            known = self.cards.get(p)
            if known is not None:  # a card already chosen is fixed (R-CARD-1)
                constraints.append(turn.plays(known))
            variables[f"p{p}"] = turn
            state = turn.post
        if self.goal is Goal.SAFE:
            flow = relations.flow(state, f"{tag}.flow")
            constraints += [c for _, c in flow.constraints]
            variables["flow"] = flow
            state = flow.post
        pins = self._pin(variables, pinned) if pinned is not None else []
        return constraints, pins, state, variables

    def _lost(self, state: SymPosition) -> Any:
        if self.goal is Goal.WIN:
            return z3.Not(self.relations.end(state)[self.x])
        gems = z3.Sum([*state.bank[self.x], *(g for k in range(2) for g in state.cargo[self.x][k])])
        assert self.baseline is not None
        return gems < self.baseline

    def _defeat(self, after_x: Position, order: list[int]) -> dict[str, Any] | None:
        """A reply of the players after X that defeats X, as values of their choices (None if there is none)."""
        key = (tuple(order), tuple(self.cards.get(p) for p in order))
        if key not in self._chains:
            start = self.relations.position("ver.pre")
            constraints, _, final, steps = self._reply_chain(start, order, "ver", None)
            self._chains[key] = (start, constraints, final, steps)
        start, constraints, final, steps = self._chains[key]
        solver = make_solver(self.timeout)
        solver.add(*self.relations.pin(start, after_x), *constraints, self._lost(final))
        if self._check(solver) == z3.unsat:
            return None
        model = solver.model()
        return {key: step.decisions(model) for key, step in steps.items()}

    def _pin(self, steps: dict[str, Any], reply: dict[str, Any]) -> list[Any]:
        return [c for key, step in steps.items() for c in step.pin_decisions(reply[key])]

    def _survives(self, after_x: SymPosition, reply: dict[str, Any], order: list[int], tag: str) -> list[Any]:
        """If the reply (its choices fixed, hard) is legal after X's symbolic turn, X is not defeated by it."""
        constraints, pins, final, _ = self._reply_chain(after_x, order, tag, reply)
        return [*pins, z3.Implies(z3.And(constraints), z3.Not(self._lost(final)))]


def _turns_phase(pos: Position) -> Position:
    """The start of phase II after phase I's decisions (every card still to be chosen)."""
    return pos.replace(phase=Phase.TURNS, acted=())


def _next_round(after_flow: Position, before_flow: Position) -> Position:
    """Phase IV: the lifebuoy passes (R-BUOY-1); cards leave the table, empty hands refill (R-CARD-2)."""
    players = tuple(Player(p.name, p.canoes, p.hand or start_hand(after_flow.ruleset), p.bank,
                           None) for p in after_flow.players)
    return after_flow.replace(players=players, lifebuoy=(before_flow.lifebuoy + 1) % len(players),
                              round=before_flow.round + 1, phase=Phase.CARDS, acted=())


def solve_smt(pos: Position, player: int, goal: Goal, horizon: int = 1, timeout: float | None = 60) -> Answer:
    """Answer ``goal`` for ``player`` over the encoding."""
    start = time.perf_counter()
    name = pos.players[player].name
    answer = Answer(Verdict.UNKNOWN, name, goal, horizon, "smt")
    try:
        check_time()  # no encoding is built past the time limit
        solver = SmtSolver(pos, player, goal, horizon, timeout)
        won = solver.enumerator.winners(pos) if pos.phase is Phase.CARDS else ()
        if won:
            answer.verdict = Verdict.of(goal is Goal.WIN and player in won)
            answer.note = "the game is over"
            answer.details["finished"] = True
        else:
            answer.verdict = Verdict.of(solver.value(pos))
        answer.nodes = solver.nodes
    except (OutOfTime, TimeoutError):
        answer.verdict = Verdict.UNKNOWN
        answer.note = "the solver ran out of time"
    answer.seconds = time.perf_counter() - start
    return answer


__all__ = ["solve_smt", "SmtSolver", "NCOL"]
