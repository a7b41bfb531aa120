"""The bound on the gems gone over the falls (games/bounds.py ``lost_reach``, docs/GAMES.md "Bounds"): exact values
from the setup, never below what the engine's flows take over the falls after any turn or what seeded games lose,
and the deepening search with it gives the fewest rounds the walk without it gives."""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import Any

import pytest

from helpers import P, card, position
from niagara_solver.design.mine import with_card
from niagara_solver.engine.flow import flow_outcomes, flow_value
from niagara_solver.engine.turns import legal_turns
from niagara_solver.games.bounds import lost_reach, lost_together
from niagara_solver.games.deepen import Deepening, rounds_needed
from niagara_solver.model.board import Board
from niagara_solver.model.position import Position
from niagara_solver.model.query import Tally, parse_query
from niagara_solver.model.ruleset import PRESETS, STANDARD, Ruleset
from niagara_solver.play.playout import random_playout

NAMES = ["red", "blue"]


@pytest.mark.rule("R-TURN-3", "R-GEM-2", "R-RESCUE-2")
def test_from_the_setup_a_player_loses_at_most_a_gem_a_round():
    # One canoe leaves the port in round 1 (R-TURN-3) and carries one gem (R-GEM-2); the other can follow it over
    # in round 2, and from then on, with no gem banked to pay a rescue, one canoe comes back a round, for free once
    # both are fallen (R-RESCUE-2).
    pos = Position.initial(NAMES)
    assert [lost_reach(pos, 0, k) for k in (1, 2, 3)] == [1, 2, 3]
    query = parse_query("lost >= 5", NAMES)
    assert rounds_needed(query, pos, 5, Tally.zero(2)) == 3  # 2 + 2 by round 2 at most, 3 + 3 by round 3
    assert rounds_needed(query, pos, 5, Tally((1, 0))) == 2 and rounds_needed(query, pos, 5, Tally((2, 1))) == 1
    assert rounds_needed(query, pos, 5) == 0  # without the tally: no bound
    assert rounds_needed(parse_query("lost(red) >= 4", NAMES), pos, 3, Tally.zero(2)) == 4  # not within 3


@pytest.mark.rule("R-FLOW-1", "R-WEATHER-1", "R-FLOW-4")
def test_the_weather_adds_up_to_two_to_the_smallest_paddle():
    # Red plays the 1, the smallest paddle: at weather +2 the flow is 3 (R-FLOW-1) and its ruby on 5, moved one disc
    # down to a branch, goes over (the branch takes the first and the third disc, R-FLOW-4); at +1 it stays. Blue has
    # no cloud left to raise the weather (R-WEATHER-1): the bound is exact.
    for weather, lost in ((2, 1), (1, 0)):
        pos = position(P("blue", "port", "port", card=3, hand=[1, 2]), P("red", "5:ruby", "port", hand=[1, 2, 6]),
                       weather=weather, acted=["blue"])
        red = with_card(pos, 1, card(1))
        gone = {1 - sum(len(c.gems) for c in p.players[1].canoes)
                for o in legal_turns(red, 1, card(1)) for _, p in flow_outcomes(o.position, flow_value(o.position))}
        assert max(gone) == lost
        assert lost_reach(red, 1, 1) == lost


@pytest.mark.rule("R-FLOW-4")
def test_a_branch_flows_at_half_the_speed_of_the_main_bed():
    # Red's ruby rides 6L; the flow is 2 (blue's 3 and red's 2, no cloud left to raise the weather). Whichever branch
    # the marker names, the left branch takes one of the two discs (R-FLOW-4): the canoe reaches 7L and stays. With
    # `fork_policy: free` both discs may enter the left branch, and it goes over. The bound follows both readings.
    for policy, fork, lost in (("alternate", "L", 0), ("alternate", "R", 0), ("free", "L", 1)):
        pos = position(P("blue", "port", "4", card=3, hand=[1, 2]), P("red", "6L:ruby", "port", card=2, hand=[1, 3]),
                       acted=["blue", "red"], fork=fork, ruleset={"fork_policy": policy})
        gone = {1 - sum(len(c.gems) for c in p.players[1].canoes) for _, p in flow_outcomes(pos, flow_value(pos))}
        assert flow_value(pos) == 2 and max(gone) == lost, (policy, fork)
        assert lost_reach(pos, 1, 1) == lost, (policy, fork)


@pytest.mark.rule("R-FLOW-1", "R-CARD-1")
def test_the_cards_chosen_this_round_cap_its_flow():
    # In phase II every card is chosen (R-CARD-1): blue's 1 is the smallest paddle, so the flow is 1 (R-FLOW-1) and
    # red's ruby on 3, paddled at most to a 6 with red's 3, reaches a 7 at most, not the falls. The bound reads the
    # chosen cards of the round under way. With blue's cloud instead, red's 3 is the smallest paddle and the weather
    # goes up a step (R-WEATHER-1): a flow of 4 takes the canoe from 6L over the falls (R-FLOW-4).
    for blue, lost in (({"card": 1, "hand": [1, 2, 3]}, 0), ({"card": "cloud", "hand": ["cloud", 2, 3]}, 1)):
        pos = position(P("blue", "port", "2", **blue), P("red", "3:ruby", "port", card=3, hand=[1, 2, 3]),
                       lifebuoy="red")
        red = pos.index("red")
        gone = {sum(len(c.gems) for c in b.position.players[red].canoes)
                - sum(len(c.gems) for c in after.players[red].canoes)
                for o in legal_turns(pos, red, card(3))
                for b in legal_turns(o.position, 1 - red, pos.players[1 - red].card)
                for _, after in flow_outcomes(b.position, flow_value(b.position))}
        assert max(gone) == lost, blue
        assert lost_reach(pos, red, 1) == lost, blue


@pytest.mark.rule("R-RESCUE-1")
def test_a_banked_gem_pays_for_a_canoe_that_goes_over_again_the_same_round():
    # Red's fallen canoe comes back for a banked gem (R-RESCUE-1), leaves the port with the 6, loads and goes over
    # with its other canoe: two gems in the round. Without the gem, only the canoe on the river.
    rich = position(P("red", "fallen", "7L:ruby", hand=[6], bank={"amethyst": 1}), P("blue", "port", "port"),
                    phase="cards")
    assert lost_reach(rich, 0, 1) == 2
    poor = position(P("red", "fallen", "7L:ruby", hand=[6]), P("blue", "port", "port"), phase="cards")
    assert lost_reach(poor, 0, 1) == 1


@lru_cache(maxsize=None)
def games() -> list[tuple[Ruleset, int, list[Any]]]:
    out = []
    for rules in (STANDARD, PRESETS["bga-2013-05-09"]):
        for players in (2, 3):
            for seed, policy in ((0, "greedy"), (1, "uniform"), (2, "lookahead"), (3, "uniform")):
                start = Position.initial([f"p{i}" for i in range(players)], ruleset=rules)
                out.append((rules, players, list(random_playout(start, seed, 16, policy))))
    return out


def _lost(record: Any, seat: int) -> int:
    return sum(len(gems) for who, _, gems in record.fell if who == seat)


def test_never_below_what_seeded_games_lose():
    # Each player from each round's start, over the next 1 and 2 rounds (3 from the first rounds: the relaxation of
    # three rounds from every start was most of the test's time): the gems its canoes took over the falls.
    # All players together, the round's flow one for all (lost_together): what all their canoes took over.
    checked = lost = together = 0
    for rules, players, records in games():
        for k, record in enumerate(records):
            for h in ((1, 2, 3) if k < 3 else (1, 2)):
                span = records[k:k + h]
                if len(span) < h:
                    continue
                each = [lost_reach(record.start, x, h) for x in range(players)]
                for x in range(players):
                    gone = sum(_lost(r, x) for r in span)
                    assert gone <= each[x], (rules.describe(), players, k, x, h)
                    checked += 1
                    lost += gone > 0
                bound = lost_together(record.start, range(players), h)
                assert sum(_lost(r, x) for r in span for x in range(players)) <= bound <= sum(each)
                together += bound < sum(each)
    assert checked > 500 and lost > 20 and together > 20, (checked, lost, together)


def test_never_below_what_any_turn_and_the_flow_after_it_lose():
    # Every position of phase II in those games where one player is left to act: every card of its hand (the one it
    # played, and each other it might have chosen) and every legal turn of the engine with it, then every way the
    # engine's flow may go: what it takes over the falls from that player's canoes is at most the bound for this
    # round, from before the turn (the card chosen) and from after it.
    checked = falls = 0
    for rules, players, records in games():
        for record in records:
            s = record.turns[-2].after if len(record.turns) >= 2 else record.turns_start
            if len(s.acted) != players - 1:
                continue
            p = s.next_to_act()
            assert p is not None
            me = s.players[p]
            for played in sorted({*me.hand, *([me.card] if me.card is not None else [])}, key=str):
                chosen = with_card(s, p, played)
                bound = lost_reach(chosen, p, 1)
                for outcome in legal_turns(chosen, p, played):
                    after = outcome.position
                    assert lost_reach(after, p, 1) <= bound
                    carried = sum(len(c.gems) for c in after.players[p].canoes)
                    for _, flowed in flow_outcomes(after, flow_value(after)):
                        gone = carried - sum(len(c.gems) for c in flowed.players[p].canoes)
                        assert gone <= lost_reach(after, p, 1), (rules.describe(), s.round, p, str(outcome.turn))
                        checked += 1
                        falls += gone > 0
    assert checked > 1000 and falls > 10, (checked, falls)


SHORT = Board.from_json({"name": "short",
                         "river": {"1": "2", "2": "3", "3": {"L": "4L", "R": "4R"}, "4L": "falls", "4R": "falls"},
                         "caves": {"amethyst": ["1"], "diamond": ["2"], "amber": ["3"], "sapphire": ["4L"],
                                   "ruby": ["4R"]}}, "board")


@pytest.mark.parametrize("text, rounds", [("lost >= 3", 3), ("lost(red) >= 2", 3)])
def test_the_fewest_rounds_are_the_same_with_and_without_the_bound(text: str, rounds: int) -> None:
    start = Position.initial(NAMES, SHORT, dataclasses.replace(STANDARD, gems_per_colour=8))
    query = parse_query(text, NAMES, SHORT)
    found = []
    for use_bound in (True, False):
        result = Deepening(start, query, rounds, use_bound=use_bound).run()
        assert result.rounds is not None and len(result.records) == result.rounds  # replayed by the engine
        found.append((result.rounds, result.completed))
    assert found[0] == found[1], found
