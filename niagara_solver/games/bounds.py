"""Lower bounds on the rounds before a target can hold (docs/GAMES.md, "Bounds"): what lets the whole-game search
drop a position that cannot reach the target within the rounds left, without changing any answer.

Each bound is admissible: from a position at the start of a round, no play reaches the target in fewer rounds. They
rest on the solver's bound on banking (:func:`..solver.answers.bank_reach`, tested sound in tests/test_bank_reach.py):
a gem reaches a bank only in its owner's canoe entering the port (R-GEM-5, R-MOVE-5), and ``bank_reach(pos, x, k)``
is at least what player ``x`` can bank within ``k`` rounds. A bank grows only by banking (a rescue pays from it,
R-RESCUE-1), so a bank of ``n`` gems needs at least the fewest ``k`` whose reach covers the gems missing, and the
goal (R-END-1) the fewest ``k`` at which :func:`..solver.answers.could_reach_goal` allows it. Without an expansion
module only (``bank_reach`` is the base game's): with one, every bound is 0.

From a query (``Query`` of :mod:`..model.query`): ``goal(P)``, ``winner(P)`` (a winner has reached the goal,
R-END-2), ``game_over`` (some player has), ``bank(P[, colour]) >= n`` (also ``>``, ``==`` and the comparison turned
round); ``and`` takes the largest of its parts' bounds, ``or`` the smallest; ``any`` the smallest over the players,
``all`` the largest; anything else (``not``, ``that``, other counts) 0.
"""

from __future__ import annotations

from typing import Callable

from niagara_solver.model.atoms import Colour
from niagara_solver.model.limits import MAX_REACH_ROUNDS
from niagara_solver.model.position import Position
from niagara_solver.solver.answers import bank_reach, could_reach_goal

#: The bound where no number of rounds up to the search's limit suffices: one more than the most rounds a search
#: looks ahead, still a lower bound.
BEYOND = MAX_REACH_ROUNDS + 1


def rounds_to_bank(pos: Position, x: int, gems: int, colour: Colour | None = None) -> int:
    """The fewest rounds, by :func:`bank_reach`, before player ``x``'s bank can hold ``gems`` gems (of ``colour``):
    0 when it does; :data:`BEYOND` when no count of rounds up to the limit suffices; 0 with an expansion module."""
    bank = pos.players[x].bank
    missing = gems - (bank.get(colour) if colour is not None else bank.total)
    if missing <= 0 or pos.ruleset.modules:
        return 0
    for k in range(1, BEYOND):
        if bank_reach(pos, x, k) >= missing:
            return k
    return BEYOND


def rounds_to_goal(pos: Position, x: int) -> int:
    """The fewest rounds, by :func:`bank_reach` and :func:`could_reach_goal`, before player ``x`` can reach the goal
    (R-END-1): 0 when it has; :data:`BEYOND` when no count of rounds up to the limit suffices; 0 with a module."""
    if could_reach_goal(pos, x, 0) or pos.ruleset.modules:
        return 0
    for k in range(1, BEYOND):
        if could_reach_goal(pos, x, bank_reach(pos, x, k)):
            return k
    return BEYOND


#: A bound as the search takes it (:data:`.search.Bound`).
PositionBound = Callable[[Position], int]
