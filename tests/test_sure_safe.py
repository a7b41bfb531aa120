"""Two bounds of the safe goal (solver/search.py, docs/SOLVER.md "Pruning"). In the horizon's last round once X has
acted (``_kept_to_the_end``): nobody still to act may steal X's gems and the flow cannot take them over the falls.
In any round, X's card chosen and X still to act (``_sure_safe``): X's card brings its gems home to a port canoe and
nobody before X may steal them first. Each is held to the plain search, and the flow's reach to the engine's flow."""

import itertools
from functools import lru_cache

import pytest

from helpers import P, position
from niagara_solver.engine.flow import flow_outcomes
from niagara_solver.play.playout import random_playout
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.board import standard_board
from niagara_solver.model.position import Position
from niagara_solver.model.ruleset import ForkPolicy, Ruleset
from niagara_solver.solver.answers import Goal, x_gems
from niagara_solver.solver.reasons import Reason
from niagara_solver.solver.search import PLAIN, Node, Search, _places_to_falls
from strategies import LONG_BOARD


def test_places_to_the_falls_on_the_standard_river():
    board = standard_board()
    assert {d: _places_to_falls(board, d) for d in board.discs} == {
        "1": 7, "2": 6, "3": 5, "4": 4, "5": 3, "6L": 2, "6R": 2, "7L": 1, "7R": 1}


@pytest.mark.parametrize("board", [standard_board(), LONG_BOARD], ids=["standard", "long, two forks"])
@pytest.mark.parametrize("policy", [ForkPolicy.ALTERNATE, ForkPolicy.FREE])
def test_no_flow_shorter_than_the_places_to_the_falls_takes_a_canoe_over(board, policy):
    # R-FLOW-3, R-FLOW-4: whatever the fork markers say and however the branches are chosen, a canoe on a disc
    # goes over the falls only with at least as many steps as _places_to_falls counts; and from a last disc one
    # step takes it over where the marker sends the step its way.
    rules = Ruleset(fork_policy=policy).to_json()
    markers = [dict(zip(board.forks, labels)) for labels in itertools.product(*(board.labels[f] for f in board.forks))]
    def fell(after: Position) -> bool:
        return any(c.fallen for c in after.players[0].canoes)

    for disc in board.discs:
        places = _places_to_falls(board, disc)
        over = False
        for fork in markers:
            pos = position(P("a", disc, "port"), P("b", "port", "port"), board=board.description(), fork=fork,
                           ruleset=rules)
            for steps in range(0, places):
                assert not any(fell(after) for _, after in flow_outcomes(pos, steps)), (disc, fork, steps)
            over |= any(fell(after) for _, after in flow_outcomes(pos, places))
        if not board.down[disc]:
            assert over, disc


@lru_cache(maxsize=None)
def dealt(players: int, seed: int) -> tuple[Position, ...]:
    """Phase II positions of a seeded greedy game, every card chosen."""
    start = Position.initial([f"p{i}" for i in range(players)])
    return tuple(r.turns_start for r in random_playout(start, seed, rounds=14, policy="greedy"))


def after_x(pos: Position, x: int) -> list[tuple[Position, int]]:
    """Positions right after X's turn (X acting first), with X's gems when its turn began."""
    first = pos.replace(lifebuoy=x)
    return [(o.position, x_gems(first, x)) for o in legal_turns(first, x)]


def plain_keeps(pos: Position, x: int, baseline: int) -> bool:
    plain = Search(x, Goal.SAFE, 1, 120, pruning=PLAIN)
    plain.baseline = baseline
    return plain.value(pos).value


def test_kept_to_the_end_never_claims_what_the_plain_search_loses():
    # Every position right after X's turn in seeded 3- and 4-player games (X acting first, every other card known):
    # where the bound says X keeps its gems to the end of the round, the plain search, meeting every turn of the
    # others and the flow, says so too; and the bound decides many of them.
    claimed = refused = 0
    for players, seed in ((3, 0), (3, 1), (4, 2)):
        for pos in dealt(players, seed):
            for x in range(players):
                for after, baseline in after_x(pos, x)[::2]:
                    if not any(c.on_river and c.gems for c in after.players[x].canoes):
                        continue  # nothing on the river to lose
                    search = Search(x, Goal.SAFE, 1)
                    search.baseline = baseline
                    if search._kept_to_the_end(after):
                        claimed += 1
                        assert plain_keeps(after, x, baseline), (after, x)
                    else:
                        refused += 1
    assert claimed > 30 and refused > 30, (claimed, refused)


def test_sure_safe_never_claims_what_the_plain_search_loses():
    # X still to act with its card chosen, at the start of phase II of seeded games: where the bound says X's card
    # brings its gems home to a port canoe before anyone can steal them, the plain search of the round says X keeps
    # them; and the bound decides some positions where X carries a gem.
    claimed = 0
    for players, seed in ((3, 0), (3, 1), (4, 2)):
        for pos in dealt(players, seed):
            for x in range(players):
                search = Search(x, Goal.SAFE, 1)
                if search._sure_safe(pos) and any(c.on_river and c.gems for c in pos.players[x].canoes):
                    claimed += 1
                    assert Search(x, Goal.SAFE, 1, 120, pruning=PLAIN).value(pos).value, (pos, x)
    assert claimed > 5, claimed


#: red carries a ruby on disc 3 and has acted with its 4 (the smallest paddle known); blue is still to act.
def last_round(blue: dict, red_at: str = "3:ruby", red_card: int = 4) -> Position:
    return position(P("red", red_at, "port", hand=[1, 2], card=red_card, bank={"amber": 1}), blue,
                    lifebuoy="red", acted=["red"])


@pytest.mark.parametrize("blue, red_at, word, fired", [
    # Blue's canoes are upstream of red's ruby (a thief climbs onto its victim, R-STEAL-1), and the flow, at most
    # red's 4 with the weather at 0, cannot take disc 3 over the falls (5 places): kept, decided at once.
    (P("blue", "1", "port", hand=[1, 2], card=2), "3:ruby", True, True),
    # Blue's empty canoe on 4 climbs onto disc 3 with its 1 and steals the ruby (R-STEAL-1).
    (P("blue", "4", "port", hand=[1, 2], card=1), "3:ruby", False, False),
    # Red's ruby on 7L, a last disc: blue's 2 makes the flow 2, one disc enters each branch, and 7L goes over
    # (R-FLOW-4, R-FLOW-6).
    (P("blue", "1", "port", hand=[2, 5], card=2), "7L:ruby", False, False),
    # On 6L the same flow moves it one place only (one disc a branch): kept, though the bound, counting 2 steps
    # against 2 places, cannot say so; the search finds it.
    (P("blue", "1", "port", hand=[2, 5], card=2), "6L:ruby", True, False),
    # The same with blue's card still hidden (its hand a 5 and a 6): the flow is at most red's 4, and the bound
    # cannot rule it out; the plain search finds the ruby lost.
    (P("blue", "1", "port", hand=[5, 6]), "6L:ruby", False, False),
])
def test_kept_to_the_end_on_chosen_positions(blue, red_at, word, fired):
    pos = last_round(blue, red_at)
    search = Search(0, Goal.SAFE, 1).values
    search.name, search.baseline = "red", 2
    node = search._bound(pos, 1, 1)
    assert node == (Node.leaf(True, Reason("kept", "red", gems=2)) if fired else None)
    if fired:
        assert node.choice == ("nobody after red can steal its 2 gem(s), and the flow cannot take them (R-STEAL-1, "
                               "R-FLOW-6)")
    assert plain_keeps(pos, 0, 2) is word


#: The bound's node for red.
SURE_SAFE = Node.leaf(True, Reason("sure-safe", "red", gems=1))
assert SURE_SAFE.choice == ("red's card brings its 1 gem(s) home, and nobody still to act before it can steal them "
                            "(R-STEAL-1)")


def sure_safe_position(blue: dict, red_card: int = 4) -> Position:
    return position(blue, P("red", "4:ruby", "6L", hand=[2, 4, 6], card=red_card), lifebuoy="blue")


def test_sure_safe_on_chosen_positions():
    # Red's 4 brings its ruby on disc 4 home (R-MOVE-5, R-GEM-5); blue acts first but its canoes are upstream of the
    # ruby: decided at once for any horizon, where the search without pruning meets every play of three rounds.
    pos = sure_safe_position(P("blue", "2", "port", hand=[1, 3, 5], card=3))
    search = Search(1, Goal.SAFE, 3).values
    search.name = "red"
    assert search._bound(pos, 0, 3) == SURE_SAFE
    assert Search(1, Goal.SAFE, 1, 120, pruning=PLAIN).value(pos).value is True
    # Blue's empty canoe on 5 with its 1 may climb onto the ruby first (R-STEAL-1): no claim (red might still load
    # other gems to make up for it; the bound does not look so far).
    thief = sure_safe_position(P("blue", "5", "port", hand=[1, 3, 5], card=1))
    assert search._bound(thief, 0, 3) is None
    # A 2 does not bring the ruby home from disc 4: no claim either.
    assert search._bound(sure_safe_position(P("blue", "2", "port", hand=[1, 3, 5], card=3), red_card=2), 0, 3) is None
