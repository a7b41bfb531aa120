"""The bound on banking with expansion modules (games/bounds.py ``module_reach``, docs/GAMES.md "Bounds"): exact values
from the setup, never below what a turn of the engine banks or what seeded games bank, and the deepening search
with it gives the fewest rounds the walk without it gives."""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import Any

import pytest

from niagara_solver.design.mine import with_card
from niagara_solver.design.simulate import start_position
from niagara_solver.engine.turns import legal_turns
from niagara_solver.games.bounds import RELAXED_MODULES, _module_turn, bounded, module_reach, rounds_to_goal
from niagara_solver.games.deepen import Deepening, rounds_needed
from niagara_solver.model.board import Board, standard_board
from niagara_solver.model.position import Position
from niagara_solver.model.query import parse_query
from niagara_solver.model.ruleset import MODULES, PRESETS, Ruleset
from niagara_solver.play.playout import random_playout

FLUSSGEISTER = PRESETS["flussgeister"]
#: The modules together and apart, with the switches that change their movement the other way.
RULES = [FLUSSGEISTER,
         Ruleset.from_json({"x_cards": True, "x_whirl": True, "whirl_cost_step": "leave", "whirl_brink": "allowed",
                            "card_123_canoes": "all", "lasso_scope": "one"}),
         Ruleset.from_json({"x_double": True, "x_moose": True, "double_one_cave": False, "x_beaver": True})]


@pytest.mark.rule("R-MOVE-5", "X-DOUBLE-1", "X-DOUBLE-3", "X-DOUBLE-4")
def test_the_setup_of_flussgeister_banks_nothing_in_round_one_and_the_goal_waits_for_round_four():
    # One canoe leaves the port in round 1 (R-TURN-3): the double canoe, loading two gems, banks them in round 2
    # (R-MOVE-5, X-DOUBLE-4); a canoe home in the port needs a round out and a round back (R-MOVE-1: one direction
    # a movement), so each banks every other round: the double 2, the single 1 (a round behind).
    pos = start_position(standard_board(), FLUSSGEISTER, 3)
    assert [module_reach(pos, 0, k) for k in range(1, 7)] == [0, 2, 3, 5, 6, 8]
    assert rounds_to_goal(pos, 0) == 4  # 4 of a colour (R-END-1) needs 4 gems: 3 by round 3 at most
    query = parse_query("goal(any)", [p.name for p in pos.players], pos.board)
    assert rounds_needed(query, pos, 5) == 4
    # A double canoe stopping on a disc with room may steal a gem from each of two canoes there (X-DOUBLE-3): one
    # point up from 3 to 2, where no cave lets it load, and it holds two gems.
    assert (("2", 2), 0) in _module_turn(standard_board(), 2, ("3", 0), 1)


def test_joe_has_no_bound_and_every_other_module_has_one():
    assert set(MODULES) - RELAXED_MODULES == {"x_joe"}
    assert not bounded(PRESETS["flussgeister-joe"]) and bounded(FLUSSGEISTER) and bounded(PRESETS["standard"])
    pos = start_position(standard_board(), PRESETS["flussgeister-joe"], 3)
    assert rounds_needed(parse_query("goal(any)", [p.name for p in pos.players], pos.board), pos, 5) == 0


@lru_cache(maxsize=None)
def games() -> list[tuple[Ruleset, int, list[Any]]]:
    out = []
    for rules in RULES:
        for players in (3, 4):
            for seed, policy in ((0, "greedy"), (1, "uniform"), (2, "lookahead")):
                start = start_position(standard_board(), rules, players)
                out.append((rules, players, list(random_playout(start, seed, 20, policy))))
    return out


def test_never_below_what_seeded_games_bank():
    # Each player from each round's phase II, over the next 1 to 3 rounds: the gems its turns banked (only a turn
    # banks, R-GEM-5; rescues are paid in phase I, which only takes from a bank).
    checked = 0
    for rules, players, records in games():
        for k, record in enumerate(records):
            for x in range(players):
                for h in (1, 2, 3):
                    span = records[k:k + h]
                    if len(span) < h:
                        continue
                    banked = sum(r.end.players[x].bank.total - r.turns_start.players[x].bank.total for r in span)
                    assert banked <= module_reach(record.turns_start, x, h), (rules.describe(), players, k, x, h)
                    checked += 1
    assert checked > 1000


def test_never_below_what_any_turn_of_the_engine_banks():
    # Every position of phase II in those games, the player to act: every card of its hand in turn (the one it
    # played, and each other it might have chosen) and every legal turn of the engine with it. What the turn banks
    # is at most the bound for this round; and what it banks plus the bound once it has acted, for this round's flow
    # and the next round, is at most the bound for the two rounds.
    checked = banking = 0
    for rules, players, records in games():
        for record in records:
            for s in [record.turns_start, *(t.after for t in record.turns)]:
                p = s.next_to_act()
                if p is None:
                    continue
                now = module_reach(s, p, 1)
                me = s.players[p]
                for card in sorted({*me.hand, *([me.card] if me.card is not None else [])}, key=str):
                    for outcome in legal_turns(with_card(s, p, card), p, card):
                        banked = outcome.position.players[p].bank.total - s.players[p].bank.total
                        assert banked <= now, (rules.describe(), s.round, p, str(card), str(outcome.turn))
                        assert module_reach(outcome.position, p, 2) + banked <= module_reach(s, p, 2)
                        checked += 1
                        banking += banked > 0
    assert checked > 5000 and banking > 20, (checked, banking)


SHORT = Board.from_json({"name": "short",
                         "river": {"1": "2", "2": "3", "3": {"L": "4L", "R": "4R"}, "4L": "falls", "4R": "falls"},
                         "caves": {"amethyst": ["1"], "diamond": ["2"], "amber": ["3"], "sapphire": ["4L"],
                                   "ruby": ["4R"]}}, "board")


@pytest.mark.parametrize("switches, text, rounds, expected", [
    ({"x_double": True, "x_moose": True}, "bank(red) >= 2", 3, 2),
    ({"x_cards": True, "x_whirl": True}, "bank(any) >= 1", 3, 2),
])
def test_the_fewest_rounds_are_the_same_with_and_without_the_bound(switches: dict[str, Any], text: str, rounds: int,
                                                                   expected: int) -> None:
    rules = dataclasses.replace(Ruleset.from_json(switches), gems_per_colour=8)
    start = Position.initial(["red", "blue"], SHORT, rules)
    query = parse_query(text, ["red", "blue"], SHORT)
    assert rounds_needed(query, start, rounds) == expected  # the bound alone rules out the rounds before
    found = []
    for use_bound in (True, False):
        result = Deepening(start, query, rounds, use_bound=use_bound).run()
        assert len(result.records) == result.rounds  # replayed by the engine round by round
        assert query.holds(result.records[-1].end)
        found.append((result.rounds, result.completed))
    assert found == [(expected, expected - 1)] * 2
