"""Diamond Joe between phases III and IV (``x_joe``, X-JOE-2): he loads a gem of a cave's own colour, then paddles
upstream as far as the lifebuoy holder's card says, turning on the top disc and going down the right branch.

Joe rides the river in phase III (X-JOE-1) in :mod:`.flow`; canoes trade with him in phase II (X-JOE-3) in
:mod:`.canoe` (``joe_trades``) and :mod:`.apply`.
"""

from __future__ import annotations

from niagara_solver.model.atoms import Card
from niagara_solver.model.board import Board
from niagara_solver.model.position import Joe, Position


def joe_points(pos: Position) -> int:
    """X-JOE-2: the value of the card the lifebuoy holder played this round: a paddle at face value, the cloud and
    the Lasso 0, the 1/2/3 card the budget chosen (never the moose's bonus); 0 before the card is known."""
    holder = pos.players[pos.lifebuoy]
    card = holder.card
    if card is None:
        return 0
    if card is Card.ONE_TWO_THREE:
        return holder.card_budget or 0
    return int(card) if card.is_paddle else 0


def right_branch(board: Board, fork: str) -> str:
    """The disc below ``fork`` on its right branch, where Joe goes downstream (X-JOE-2): on the standard board the
    branch labelled ``R``; on other boards the fork's last branch label, by the board's own order."""
    return board.branch[fork, board.labels[fork][-1]]


def joe_paddle(board: Board, place: str, points: int) -> str:
    """Where Joe stops after paddling ``points`` discs from ``place`` (X-JOE-2): upstream up to the top disc, then
    downstream by the right branch; he stops on a last disc with points left, never entering the port or going
    over the falls."""
    up = board.depth[place] - board.depth[board.top]
    if points <= up:
        return board.above(place)[points - 1] if points else place
    place, points = board.top, points - up
    while points and board.down[place]:
        place = right_branch(board, place) if place in board.labels else board.down[place][0]
        points -= 1
    return place


def joe_step(pos: Position) -> Position:
    """The position after Joe's step at the end of phase III (X-JOE-2): first, when empty and beside a cave holding
    a gem of that cave's own colour, Joe loads one such gem for free; then he paddles (:func:`joe_paddle`) as many
    discs as the lifebuoy holder's card is worth (:func:`joe_points`). Without Joe the position is returned as is."""
    joe = pos.joe
    if joe is None:
        return pos
    gem, caves = joe.gem, pos.caves
    colour = pos.board.cave.get(joe.place)
    if gem is None and colour is not None and caves[colour - 1].get(colour) > 0:
        gem = colour
        caves = tuple(c.minus(colour) if i == colour - 1 else c for i, c in enumerate(caves))
    return pos.replace(caves=caves, joe=Joe(joe_paddle(pos.board, joe.place, joe_points(pos)), gem))
