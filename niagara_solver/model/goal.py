"""The goal and the winners (R-END-1..3): pure functions of a position, read by the engine's end of a round, the
solvers, the reports and the position predicates (:mod:`.query`)."""

from __future__ import annotations

from niagara_solver.model.atoms import COLOURS, Phase
from niagara_solver.model.position import Player, Position
from niagara_solver.model.ruleset import Tiebreak

#: R-END-1: seven gems, or one of each colour, or four of one colour.
GOAL_TOTAL = 7
GOAL_SAME = 4


def goal_reached(player: Player) -> bool:
    """R-END-1: the player's bank holds 7 gems, or one of each of the 5 colours, or 4 of one colour."""
    bank = player.bank
    return (bank.total >= GOAL_TOTAL or all(bank.get(c) >= 1 for c in COLOURS)
            or any(bank.get(c) >= GOAL_SAME for c in COLOURS))


def winners(pos: Position) -> tuple[int, ...]:
    """The winners if the game ended now (R-END-2, R-END-3): among the players who reached the goal, the
    highest bank value (``tiebreak: value``) or the most gems (``count``); a tie is a shared win. With
    ``tiebreak: shared`` every player who reached the goal wins (BSW)."""
    reached = [i for i, p in enumerate(pos.players) if goal_reached(p)]
    if not reached:
        return ()
    if pos.ruleset.tiebreak is Tiebreak.SHARED:
        return tuple(reached)
    if pos.ruleset.tiebreak is Tiebreak.COUNT:
        score = {i: pos.players[i].bank.total for i in reached}
    else:
        score = {i: pos.players[i].bank.value for i in reached}
    best = max(score.values())
    return tuple(i for i in reached if score[i] == best)


def is_finished(pos: Position) -> bool:
    """True when the game is over: at the start of a round, some player has reached the goal (R-END-2).

    Within a round the goal is not checked: a round is always played to its end (R-END-1).
    """
    return pos.phase is Phase.CARDS and bool(winners(pos))
