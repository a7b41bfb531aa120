"""A whole round as one transition: phase I rescues, every player's turn in order from the lifebuoy holder,
the flow, and phase IV (the lifebuoy passes, played cards leave the table, empty hands refill)."""

from __future__ import annotations

from dataclasses import dataclass

import z3

from niagara_solver.encoding.core import Encoding
from niagara_solver.encoding.flow import FlowChoice, RescueChoice, encode_flow, encode_rescue, pushes_put_back
from niagara_solver.encoding.state import Constraint, Expr, SymPosition
from niagara_solver.encoding.turn import Transition, TurnChoice, encode_turn
from niagara_solver.encoding.terms import z_or


@dataclass
class RoundChoice:
    """Every decision of a round: rescues, each player's turn (card included) and canoe order, branches."""

    rescue: RescueChoice
    turns: list[TurnChoice]
    swaps: list[Expr]
    flow: FlowChoice | None

    @classmethod
    def fresh(cls, tag: str, enc: Encoding) -> "RoundChoice":
        n = enc.players
        return cls(RescueChoice.fresh(f"{tag}.rescue", n),
                   [TurnChoice.fresh(f"{tag}.turn{p}", enc.rules.capacity, n, enc.rules) for p in range(n)],
                   [z3.Bool(f"{tag}.swap{p}") for p in range(n)],
                   FlowChoice.fresh(f"{tag}.flow", enc)
                   if enc.rules.fork_policy.value == "free" or pushes_put_back(enc) else None)


def encode_round(enc: Encoding, pre: SymPosition, choice: RoundChoice, lifebuoy: int = 0,
                 parts: list[tuple[SymPosition, Transition]] | None = None) -> Transition:
    """The round from a start-of-round position ``pre`` whose lifebuoy is held by seat ``lifebuoy``. With
    ``parts``, each phase's relation is appended to it with the position before it, in the order of play: the
    rescues, each turn (in seat order from the lifebuoy holder), the flow; a model of the round is read back
    part by part (``Relations.decode_round``)."""
    out: list[Constraint] = []
    if pre.lifebuoy is not None:  # R-COMP-5: the seat holding the lifebuoy (Joe paddles by its card, X-JOE-2)
        out.append(("R-COMP-5", pre.lifebuoy == lifebuoy))
    rescue = encode_rescue(enc, pre, choice.rescue)
    out += rescue.constraints
    if parts is not None:
        parts.append((pre, rescue))
    state = rescue.post
    n = pre.players
    turns = []
    for i in range(n):
        p = (lifebuoy + i) % n  # R-TURN-1: in seat order from the lifebuoy holder
        turn = encode_turn(enc, state, choice.turns[p], p, choice.swaps[p])
        out += turn.constraints
        turns.append(turn)
        if parts is not None:
            parts.append((state, turn))
        state = turn.post
    flow = encode_flow(enc, state, choice.flow)
    out += flow.constraints
    if parts is not None:
        parts.append((state, flow))
    state = flow.post.copy()
    for p in range(n):  # R-CARD-2: a player who has played all seven cards takes them back
        empty = z3.Not(z_or(state.hand[p]))
        state.hand[p] = [z_or(h, empty) for h in state.hand[p]]
        if state.budget is not None:  # the cards leave the table (X-CARDS-3: no budget chosen any more)
            state.budget[p] = z3.IntVal(0)
    if state.lifebuoy is not None:  # R-BUOY-1
        state.lifebuoy = z3.IntVal((lifebuoy + 1) % n)
    return Transition(out, state, extra={"k": flow.extra["k"], "lifebuoy": z3.IntVal((lifebuoy + 1) % n)},
                      choice=choice)
