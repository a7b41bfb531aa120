"""The bound on what a player banks in its next turn (solver/answers.py ``bankable``): the search's "X cannot reach
the goal" and "nobody acting after X can beat X's bank" cuts rest on it (docs/SOLVER.md, "Pruning"). Exact values
on small positions, never below what any legal turn banks (gems and their value) on seeded positions of the base game
and of the expansion, and the question it once left to a million positions."""

from functools import lru_cache

import pytest

from helpers import P, lookahead_start, position
from niagara_solver.play.playout import random_playout
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.position import Position
from niagara_solver.model.ruleset import PRESETS
from niagara_solver.solver.answers import Goal, bankable
from niagara_solver.solver.search import Search


def test_a_loaded_canoe_banks_what_it_carries_not_one_gem_more():
    # Once counted 2 for the canoe on 3: its diamond, and a "load" that with a capacity of one can only be a swap
    # (an unload and a load, R-GEM-2, R-GEM-4), which adds no gem.
    pos = position(P("red", "3:diamond", "4", hand=[6]), P("blue", "port", "port"))
    assert bankable(pos, 0) == (2, 10)  # each canoe one gem home, a swapped or loaded one counted at 5
    pos = position(P("red", "3:diamond", "port", hand=[3]), P("blue", "port", "port"))
    assert bankable(pos, 0) == (1, 2)  # no point left for a gem action: the diamond (2) as it is


def test_a_canoe_out_of_reach_of_every_card_banks_nothing():
    pos = position(P("red", "5:ruby", "4", hand=[1, 2, 3]), P("blue", "port", "port"))
    assert bankable(pos, 0) == (0, 0)
    pos = position(P("red", "5:ruby", "4", hand=[1, 2, 3, 4]), P("blue", "port", "port"))
    assert bankable(pos, 0) == (0, 0)  # the empty canoe on 4 reaches the port with nothing to load on the way


def test_gem_actions_are_two_points_each():
    pos = position(P("red", "3", "port", hand=[4]), P("blue", "port", "port"))
    assert bankable(pos, 0) == (0, 0)  # 3 to go home from beside the amethyst cave, 1 left: no load
    pos = position(P("red", "3", "port", hand=[5]), P("blue", "port", "port"))
    assert bankable(pos, 0) == (1, 5)
    pos = position(P("red", "2", "port", hand=[6]), P("blue", "port", "port"))
    assert bankable(pos, 0) == (0, 0)  # no cave beside disc 2: nothing to load


@lru_cache(maxsize=None)
def seeded(preset: str) -> list[Position]:
    """Phase II positions (nobody has acted) from seeded games of 3 to 5 players."""
    out = []
    for players in (3, 4, 5):
        for seed in range(3):
            start = Position.initial([f"p{i}" for i in range(players)], ruleset=PRESETS[preset])
            for policy in ("greedy", "uniform"):
                out += [r.turns_start for r in random_playout(start, seed, rounds=25, policy=policy)]
    return out


@pytest.mark.parametrize("preset", ["standard", "flussgeister", "flussgeister-joe"])
def test_never_below_what_a_legal_turn_banks(preset):
    checked = banking = 0
    for pos in seeded(preset):
        for q, player in enumerate(pos.players):
            if q in pos.acted:
                continue
            bound = bankable(pos, q)
            before = player.bank
            for card in [player.card] if player.card is not None else sorted(set(player.hand), key=str):
                for outcome in legal_turns(pos, q, card):
                    after = outcome.player(q).bank
                    gems, value = after.total - before.total, after.value - before.value
                    assert gems <= bound[0] and value <= bound[1], (pos, q, card, str(outcome.turn), bound)
                    banking += gems > 0
                    checked += 1
    assert checked > 5000 and banking > 100, (checked, banking)


def test_the_rivals_bound_settles_a_question_once_left_to_a_million_positions():
    # benchmarks/bench_horizon.py, "4p seed 602 round 8, win": horizon 2 was unknown after 90 s (1.2 million
    # positions): the rivals' bound let a player with one diamond banked and a diamond on disc 3 bank 3 gems, so
    # every win of X in the last round was searched against every play of the three others. Its certificate of the
    # "no" is accepted by the encoding (niagara-solve solve ... --backend both).
    pos = lookahead_start(4, 602, 8)
    search = Search(8 % 4, Goal.WIN, 2, 600)
    assert search.value(pos).value is False
    assert search.nodes < 50_000, search.nodes
