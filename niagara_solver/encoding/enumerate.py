"""Every outcome of a phase from a concrete position, by enumerating the encoding's models.

Each model found is blocked on the resulting position, so every distinct result is found once per canoe
order; the results are returned as canonical positions, comparable with the engine's.
"""

from __future__ import annotations

import z3

from ..rules.atoms import Card
from ..rules.position import Player, Position
from .core import Encoding
from .solver import make_solver
from .state import NCOL, SymPosition, decode, fix
from .turn import TurnChoice, encode_turn


def turn_outcomes(pos: Position, player: int, card: Card, limit: int = 100000,
                  timeout: float | None = 60) -> set[Position]:
    """The positions ``player`` can reach with ``card`` according to the encoding (phase II position)."""
    enc = Encoding(pos.board, pos.ruleset, len(pos.players))
    t = enc.tables
    pre = SymPosition.fresh("enum.pre", len(pos.players), t)
    choice = TurnChoice.fresh("enum", pos.ruleset.capacity, len(pos.players))
    transition = encode_turn(enc, pre, choice, player)
    post = transition.post
    terms = ([x for row in post.place for x in row] + [g for row in post.cargo for k in row for g in k]
             + [post.cave[cc][c] for cc in range(NCOL) for c in range(NCOL)]
             + [g for row in post.bank for g in row] + [post.weather])
    found: set[Position] = set()
    me = pos.players[player]
    orders = [(0, 1)] if me.canoes[0] == me.canoes[1] else [(0, 1), (1, 0)]
    for order in orders:  # slot 0 acts on canoe 0: try either canoe first
        solver = make_solver(timeout)
        solver.add(*fix(pre, pos, t, {player: order}))
        solver.add(choice.card == int(card))
        for _, c in transition.constraints:
            solver.add(c)
        while len(found) < limit and solver.check() == z3.sat:
            model = solver.model()
            after = decode(model, post, t, pos.ruleset, pos)
            players = tuple(Player(p.name, a.canoes, a.hand if i == player else p.hand, a.bank,
                                   card if i == player else p.card)
                            for i, (p, a) in enumerate(zip(pos.players, after.players)))
            found.add(after.replace(players=players, acted=(*pos.acted, player)))
            solver.add(z3.Or([x != model.eval(x, model_completion=True) for x in terms]))
    return found
