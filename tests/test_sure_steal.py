"""The steal goal's lower bound in the last round (solver/search.py ``Search._sure_steal``, docs/SOLVER.md "Cheap
bounds first"): where it claims that X steals whatever the players before X do, every play of theirs is tried and X's
card steals after each; and it saves the search the others' plays."""

from __future__ import annotations

from functools import lru_cache

from helpers import P, position
from niagara_solver.design.simulate import start_position
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.board import standard_board
from niagara_solver.model.position import Position
from niagara_solver.model.ruleset import PRESETS
from niagara_solver.play.playout import random_playout
from niagara_solver.solver.answers import Goal, has_steal
from niagara_solver.solver.search import PLAIN, Pruning, Search


def at_x(pos: Position, x: int) -> set[Position]:
    """Every position at X's turn this round, whatever the players before X play (their cards too)."""
    front = {pos}
    while (p := next(iter(front)).next_to_act()) != x:
        assert p is not None
        grown: set[Position] = set()
        for s in front:
            player = s.players[p]
            for c in player.playable:
                grown.update(o.position for o in legal_turns(s, p, c))
        front = grown
    return front


def x_steals_after_every_play(pos: Position, x: int) -> bool:
    card = pos.players[x].card
    return all(any(has_steal(o.turn) for o in legal_turns(s, x, card)) for s in at_x(pos, x))


@lru_cache(maxsize=None)
def rounds(players: int, seed: int) -> tuple[object, ...]:
    start = start_position(standard_board(), PRESETS["standard"], players)
    return tuple(random_playout(start, seed, 16, "lookahead"))


def test_the_claim_holds_on_the_positions_of_seeded_games() -> None:
    # Every phase II position of seeded 3- and 4-player games, each player still to act after some of the others
    # with the card it played: where the bound says yes, X's card steals after every play of those before X (with one
    # or two of them still to act: more make too many plays to try). It fires often enough to matter.
    claimed = checked = 0
    for players, seed in [(3, 5), (3, 6), (4, 11), (4, 0), (4, 1)]:
        for record in rounds(players, seed):
            states = [record.turns_start, *(t.after for t in record.turns)]
            for s in states:
                p = s.next_to_act()
                if p is None:
                    continue
                for x in range(players):
                    if x in s.acted or x == p:
                        continue
                    search = Search(x, Goal.STEAL, 1).values
                    if not search._sure_steal(s):
                        continue
                    claimed += 1
                    if len(search._before_x(s)) <= 2:
                        assert x_steals_after_every_play(s, x), (players, seed, s.round, x)
                        checked += 1
    assert claimed >= 10 and checked >= 8, (claimed, checked)


def test_a_gem_beyond_the_reach_of_those_before_x_is_stolen_whatever_they_do() -> None:
    # Red acts last with a 2: its empty canoe on 4 climbs onto 2 and takes green's amber (R-STEAL-1). Green has
    # acted, so its canoe stays; blue, still to act, has only port canoes, which only go down (R-MOVE-6).
    pos = position(P("blue", "port", "port"), P("green", "2:amber", "port", hand=[2], card=1),
                   P("red", "4", "port", card=2), lifebuoy="blue", acted=["green"])
    search = Search(2, Goal.STEAL, 1).values
    assert search._sure_steal(pos)
    assert x_steals_after_every_play(pos, 2)
    plain = Search(2, Goal.STEAL, 1, 60, pruning=PLAIN)
    pruned = Search(2, Goal.STEAL, 1, 60, pruning=Pruning(), _lines=False)
    assert plain.value(pos).value is pruned.value(pos).value is True
    assert pruned.nodes < plain.nodes
    # Green still to act before red: its canoe may paddle away with the amber (or bank it), so no claim.
    moving = position(P("blue", "port", "port"), P("green", "2:amber", "port"), P("red", "4", "port", card=2),
                      lifebuoy="blue")
    assert not Search(2, Goal.STEAL, 1).values._sure_steal(moving)
    # A canoe of blue on 3 may climb onto 2 with a 1 and take the amber first: no claim.
    thief = position(P("blue", "3", "port"), P("green", "2:amber", "port", hand=[2], card=1),
                     P("red", "4", "port", card=2), lifebuoy="blue", acted=["green"])
    assert not Search(2, Goal.STEAL, 1).values._sure_steal(thief)
