"""The win goal's bound "cannot bank enough" (solver/answers.py ``bank_reach``, docs/SOLVER.md "Pruning"): an upper
bound on the gems X can still bank, from each canoe alone on a river relaxed in X's favour. Exact values on small
positions, never below what seeded games bank, and the search with it gives the plain search's answers."""

import os
from functools import lru_cache

import pytest

from helpers import P, lookahead_start, position
from niagara_solver.play.playout import random_playout
from niagara_solver.model.position import Position
from niagara_solver.solver.answers import Goal, bank_reach
from niagara_solver.solver.search import PLAIN, Search


def test_two_port_canoes_bank_one_gem_each_per_round_trip():
    # Down to a cave and load in one round, home in the next (R-MOVE-2, R-MOVE-5): never in the same round.
    pos = position(P("red", "port", "port"), P("blue", "port", "port"))
    assert [bank_reach(pos, 0, h) for h in (1, 2, 3, 4, 5)] == [0, 2, 2, 4, 4]
    # With R-TURN-3 kept: one canoe leaves the port in the first round, the other a round later.
    assert [bank_reach(pos, 0, h, one_departure=True) for h in (1, 2, 3, 4, 5)] == [0, 1, 2, 3, 4]
    on_river = position(P("red", "3", "port"), P("blue", "port", "port"))
    assert bank_reach(on_river, 0, 4, one_departure=True) == bank_reach(on_river, 0, 4)


def test_a_gem_near_the_port_is_banked_this_round():
    pos = position(P("red", "2:ruby", "port"), P("blue", "port", "port"))
    assert [bank_reach(pos, 0, h) for h in (1, 2, 3, 4)] == [1, 2, 3, 4]


def test_a_canoe_too_deep_for_any_card_needs_two_rounds():
    # Depth 7 on the standard board: no paddle reaches the port from there (R-MOVE-5).
    pos = position(P("red", "7L:ruby", "port"), P("blue", "port", "port"))
    assert bank_reach(pos, 0, 1) == 0
    assert bank_reach(pos, 0, 2) == 2  # up 6 then home; the port canoe's own round trip


def test_the_cards_x_may_play_this_round_bound_it():
    pos = position(P("red", "3:ruby", "port", hand=[1, 2]), P("blue", "port", "port"))
    assert bank_reach(pos, 0, 1) == 0  # a 1 or a 2 does not reach the port from disc 3
    pos = position(P("red", "3:ruby", "port", hand=[3]), P("blue", "port", "port"))
    assert bank_reach(pos, 0, 1) == 1


@lru_cache(maxsize=None)
def games() -> list[tuple[int, list]]:
    out = []
    for players in (3, 4):
        for seed in range(5):
            start = Position.initial([f"p{i}" for i in range(players)])
            for policy in ("greedy", "uniform"):
                out.append((players, list(random_playout(start, seed, rounds=20, policy=policy))))
    return out


def test_never_below_what_seeded_games_bank():
    # Each player at each round's phase II, over the next 1 to 3 rounds: the gems its turns banked (a turn changes
    # only its own player's bank upwards; rescues are paid in phase I, outside the counted span).
    checked = 0
    for players, records in games():
        for k, record in enumerate(records):
            for x in range(players):
                for h in (1, 2, 3):
                    span = records[k:k + h]
                    if len(span) < h:
                        continue
                    banked = sum(r.end.players[x].bank.total - r.turns_start.players[x].bank.total for r in span)
                    assert banked <= bank_reach(record.turns_start, x, h, one_departure=True), (players, k, x, h)
                    assert banked <= bank_reach(record.turns_start, x, h), (players, k, x, h)
                    checked += 1
    assert checked > 1000


#: Positions of benchmarks/bench_horizon.py where the bound cuts (dozens of times at horizon 2), a "yes" among them.
CUT = [(3, 501, 11, "no"), (3, 503, 10, "yes"), (4, 603, 10, "no")]


@pytest.mark.parametrize("players,seed,round_,word", CUT)
def test_the_bound_gives_the_plain_answer(players, seed, round_, word):
    pos = lookahead_start(players, seed, round_)
    x = round_ % players
    for horizon in (1, 2):
        plain = Search(x, Goal.WIN, horizon, 120, pruning=PLAIN).value(pos).value
        assert Search(x, Goal.WIN, horizon, 120).value(pos).value is plain
    assert plain is (word == "yes")


def test_a_no_the_bound_decides_says_why():
    # Every choice of red fails on the bound: the answer names it once for each card, instead of "no choice works"
    # alone (the plain line rebuilt over the pruned search reads the bound's reason from the pruned search's node).
    from niagara_solver.model.format import load_document
    from niagara_solver.solver.solve import answer_with

    pos, _ = load_document(os.path.join(os.path.dirname(__file__), "..", "puzzles", "start-4p.json"))
    answer = answer_with(pos, 0, Goal.WIN, horizon=3)
    assert answer.word == "no"
    reason = "no choice of red works: red cannot bank enough in 3 round(s), even unhindered (R-END-1)"
    assert [(r["option"], r["answer"]) for r in answer.refutations] == [
        (f"red plays {card.label}", [reason]) for card in pos.players[0].hand]


def test_options_that_fail_alike_are_said_once():
    # The text answer lists red's seven cards on one line when each fails for the same reason; options that fail
    # differently keep their own lines.
    import dataclasses

    from niagara_solver.model.format import load_document
    from niagara_solver.report.text import answer_text
    from niagara_solver.solver.solve import answer_with

    pos, _ = load_document(os.path.join(os.path.dirname(__file__), "..", "puzzles", "start-4p.json"))
    answer = answer_with(pos, 0, Goal.WIN, horizon=3)
    lines = answer_text(answer).splitlines()
    assert lines[1:] == ["  every option fails:", "    red plays 1, 2, 3, 4, 5, 6, cloud: no choice of red works: red "
                         "cannot bank enough in 3 round(s), even unhindered (R-END-1)"]
    apart = dataclasses.replace(answer, refutations=[*answer.refutations[:2], {"option": "red plays 3",
                                                                               "answer": ["blue (2): 1: <port"]}])
    assert answer_text(apart).splitlines()[2:] == [
        "    red plays 1, 2: no choice of red works: red cannot bank enough in 3 round(s), even unhindered (R-END-1)",
        "    red plays 3: blue (2): 1: <port"]
