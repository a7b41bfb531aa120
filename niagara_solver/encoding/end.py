"""The end check (R-END-1..3): who reached the goal, and who wins among them."""

from __future__ import annotations

import z3

from niagara_solver.encoding.core import Encoding
from niagara_solver.encoding.state import Expr, SymPosition
from niagara_solver.encoding.terms import z_and


def encode_end(enc: Encoding, pos: SymPosition) -> list[Expr]:
    """For each player, whether they win if the game ends now: they reached the goal (R-END-1) and no player
    who reached it has a higher score (R-END-3; equal scores share the win)."""
    reached = [enc.rule("R-END-1")(enc, pos.bank[p]) for p in range(pos.players)]
    score = [enc.rule("R-END-3")(enc, pos.bank[p]) for p in range(pos.players)]
    return [z_and(reached[p], z_and([z3.Implies(reached[q], score[q] <= score[p]) for q in range(pos.players)]))
            for p in range(pos.players)]
