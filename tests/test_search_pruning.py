"""The search's pruning ideas (solver/search.py ``Pruning``, docs/SOLVER.md "Pruning") change no answer: on seeded
positions, with every idea on, each one off and none at all, the verdict, X's card and turn, the line of play and
the list of refutations are the same (the bounds may add why a choice failed); and each idea is seen doing its
work."""

import dataclasses
from functools import lru_cache

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers import P, lookahead_start, position
from niagara_solver.play.playout import random_playout
from niagara_solver.model.position import Position
from niagara_solver.solver.answers import Goal
from niagara_solver.solver.reasons import Reason
from niagara_solver.solver.search import LINE_NODES, PLAIN, Node, Pruning, Search, trace
from niagara_solver.solver.answers import x_choice
from niagara_solver.solver.solve import _refutations

VARIANTS = [Pruning(), PLAIN, *(Pruning().without(f.name) for f in dataclasses.fields(Pruning))]


@lru_cache(maxsize=None)
def seeded(players: int, seed: int, k: int) -> Position:
    """The start of round k + 1 of a seeded greedy game."""
    start = Position.initial([f"p{i}" for i in range(players)])
    return list(random_playout(start, seed, rounds=k + 1, policy="greedy"))[k].start


#: (players, seed, round index, goal, horizon, verdict): questions the search without pruning answers within a few
#: seconds, with the verdict it gives.
CASES = [
    (3, 11, 4, "win", 1, False), (3, 11, 4, "win", 2, False), (3, 11, 4, "steal", 1, False),
    (3, 11, 4, "steal", 2, False), (3, 11, 4, "safe", 1, True), (3, 11, 4, "safe", 2, True),
    (3, 11, 12, "steal", 2, False), (3, 11, 12, "safe", 1, True), (3, 11, 12, "safe", 2, False),
    (3, 13, 4, "steal", 1, True), (3, 13, 4, "steal", 2, True), (3, 13, 4, "safe", 1, False),
    (3, 13, 8, "safe", 1, True), (3, 13, 12, "safe", 1, True), (3, 13, 12, "safe", 2, False),
    (4, 12, 4, "steal", 1, True), (4, 12, 8, "win", 2, False), (4, 12, 8, "steal", 1, False),
]


def answer(search: Search, pos: Position) -> tuple[object, ...]:
    """Everything of the search that goes into an answer (solve.py): verdict, card, turn, line, refutations."""
    root = search.value(pos)
    card, turn = x_choice(root)
    refutations = None if root.value else _refutations(search, pos, search.x)
    return root.value, card, turn, trace(root), refutations


def without_reasons(found: tuple[object, ...]) -> tuple[object, ...]:
    """An answer with the reasons of failures left out ("no choice of X works: <why>" -> "no choice of X works"):
    the bounds, which the plain search has not, add them (docs/SOLVER.md, "Pruning")."""
    def cut(text: str) -> str:
        if not text.startswith("no choice of "):
            return text
        return text.partition(" works: ")[0].removesuffix(" works") + " works"
    def cut_reason(reason: dict[str, object] | None) -> object:
        if reason is None or reason["kind"] != "no-choice":
            return reason
        return {"kind": "no-choice", "player": reason["player"], "text": cut(str(reason["text"]))}
    value, card, turn, line, refutations = found
    return (value, card, turn, [cut(t) for t in line],  # type: ignore[union-attr]
            None if refutations is None else [{**r, "answer": [cut(t) for t in r["answer"]],
                                               "reason": cut_reason(r.get("reason"))}
                                              for r in refutations])  # type: ignore[union-attr]


@pytest.mark.parametrize("players,seed,k,goal,horizon,verdict", CASES)
def test_every_pruning_gives_the_plain_answer(players, seed, k, goal, horizon, verdict):
    pos = seeded(players, seed, k)
    x = k % players
    plain = answer(Search(x, Goal(goal), horizon, 120, pruning=PLAIN), pos)
    assert plain[0] is verdict
    for pruning in VARIANTS[2:] + VARIANTS[:1]:
        found = answer(Search(x, Goal(goal), horizon, 120, pruning=pruning), pos)
        assert without_reasons(found) == without_reasons(plain), pruning
        if not pruning.bounds:  # nothing but the bounds adds a reason
            assert found == plain, pruning


def test_pruning_names_and_switches():
    assert Pruning().any and not PLAIN.any
    assert Pruning().without("bounds") == Pruning(bounds=False)
    assert [f.name for f in dataclasses.fields(Pruning)] == ["deepening", "bounds", "killers", "focus", "cards",
                                                             "exposed"]
    assert Search(0, Goal.WIN, 1, pruning=PLAIN).values.pruning == PLAIN  # no second search without pruning
    pruned = Search(0, Goal.WIN, 1)
    assert pruned.active == PLAIN and pruned.values.active == Pruning()


def loaded_rivals() -> Position:
    """red (to act, card 3) has both canoes in the port and nothing carried; blue carries a ruby on disc 3, green
    an amber on 4."""
    return position(P("red", "port", "port", bank={"ruby": 1}, card=3), P("blue", "3:ruby", "port", card=2),
                    P("green", "4:amber", "port"), lifebuoy="red")


def test_a_canoe_in_the_port_cannot_steal_this_round():
    pos = loaded_rivals()
    search = Search(0, Goal.STEAL, 1).values
    search.name = "red"
    assert search._bound(pos, 0, 1) == Node.leaf(False, Reason("out-of-range", "red"))
    assert search._bound(pos, 0, 1).choice == "no canoe of red can reach an enemy's gem this round (R-STEAL-1)"
    assert search._bound(pos, 0, 2) is None  # next round red's canoe may be on the river
    acted = pos.replace(acted=(0,))
    assert search._bound(acted, 1, 1) == Node.leaf(False, Reason("no-turn-left", "red"))
    assert (search._bound(acted, 1, 1).choice
            == "red has already had its turn this round: it can steal no more (R-STEAL-1)")
    for pruning in (PLAIN, Pruning()):
        assert Search(0, Goal.STEAL, 1, 60, pruning=pruning).value(pos).value is False


def test_a_canoe_on_the_river_below_an_enemys_gem_may_steal():
    pos = position(P("red", "5", "port", card=2), P("blue", "3:ruby", "port"), lifebuoy="red")
    search = Search(0, Goal.STEAL, 1).values
    assert search._steal_in_reach(pos)
    assert Search(0, Goal.STEAL, 1, 60).value(pos).value is True  # 5 -> 4 -> 3 with the 2, and the ruby taken
    # Blue's gem below red's canoe is out of reach upstream, once blue has acted.
    below = position(P("red", "4", "port", card=2), P("blue", "6L:ruby", "port", hand=[2], card=1), lifebuoy="blue",
                     acted=["blue"])
    assert not search._steal_in_reach(below)


def test_a_bank_that_keeps_the_gems_and_a_port_canoe_are_safe_for_any_horizon():
    pos = loaded_rivals()
    search = Search(0, Goal.SAFE, 3).values
    search.name = "red"
    assert search._bound(pos, 0, 3) == Node.leaf(True, Reason("port-and-bank", "red", gems=1))
    assert search._bound(pos, 0, 3).choice == ("red's bank holds its 1 gem(s) and red can keep a canoe in the port "
                                               "(R-TURN-3, R-RESCUE-2)")
    # With a gem on the river red's count includes it: this bound does not claim it kept. Red's 3 brings the amber
    # home from disc 3 (tests/test_sure_safe.py), its 2 does not.
    carrying = position(P("red", "port", "3:amber", bank={"ruby": 1}, card=2), P("blue", "5", "port"),
                        lifebuoy="red")
    assert search._bound(carrying, 0, 3) is None
    home = carrying.with_player(0, dataclasses.replace(carrying.players[0], card=carrying.players[0].hand[2]))
    assert home.players[0].card.label == "3"
    assert search._bound(home, 0, 3) == Node.leaf(True, Reason("sure-safe", "red", gems=2))
    assert search._bound(home, 0, 3).choice == ("red's card brings its 2 gem(s) home, and nobody still to act before "
                                                "it can steal them (R-STEAL-1)")
    # Three rounds ahead in a few nodes, where the search without pruning meets every play of the others.
    quick = Search(0, Goal.SAFE, 3, 60)
    assert quick.values.value(pos).value is True and quick.nodes < 50
    assert quick.value(pos).value is True  # and the plain line rebuilt with the pruned values


def test_deepening_carries_a_steal_found_sooner_to_a_longer_horizon():
    pos = seeded(4, 12, 4)  # p0 steals this round whatever the others do (CASES)
    search = Search(0, Goal.STEAL, 3, 120)
    oracle = search.values
    proof = oracle.value(pos)
    assert proof.value is True and oracle._holds  # proved with one round: every longer horizon holds too
    short = Search(0, Goal.STEAL, 1, 120, pruning=PLAIN).value(pos)
    assert x_choice(proof) == x_choice(short)


def test_the_plain_line_is_kept_when_the_pruned_search_ends_sooner():
    # Safe for red two rounds ahead: the pruned search proves it by the bound, the plain line still shows the
    # card red would be told to play, the first that keeps its gems.
    pos = seeded(3, 11, 4)
    plain = Search(1, Goal.SAFE, 2, 120, pruning=PLAIN).value(pos)
    pruned = Search(1, Goal.SAFE, 2, 120).value(pos)
    assert (pruned.value, trace(pruned, 40), x_choice(pruned)) == (plain.value, trace(plain, 40), x_choice(plain))


def test_x_s_cards_by_budget_keep_a_gem_safe_at_once():
    # 3p seed 503 round 10 (benchmarks/bench_horizon.py): p1's amethyst on disc 4 goes home with the 4 (R-MOVE-5), and
    # its port canoe then keeps it so. In the hand's order the 1 comes first, and refuting it ran past a minute.
    pos = lookahead_start(3, 503, 10)
    search = Search(1, Goal.SAFE, 3, 60, pruning=Pruning(), _lines=False)
    assert search.value(pos).value is True
    assert search.nodes < 1000


def test_the_line_has_a_budget_of_its_own():
    # 4p seed 602 round 8, steal within 3 rounds: the pruned search proves "yes" in a few hundred positions; rebuilding
    # the plain line ran the whole minute. Past its budget the answer is the pruned search's own, the same verdict.
    pos = lookahead_start(4, 602, 8)
    search = Search(0, Goal.STEAL, 3, 60)
    assert search.value(pos).value is True
    assert search.nodes < LINE_NODES + 1000


def test_the_steal_goal_s_last_round_is_told_apart_only_by_what_a_turn_reads():
    # Card-choice positions of a seeded 4-player game as `mine` asks them (p0's 3 in round 2: three players act
    # before it): the same value with `focus` as without it and as the plain search, in fewer positions, since the
    # acted players' empty canoes, banks and cards no longer tell positions apart (Search._steal_projection).
    from niagara_solver.design.mine import card_position, with_card
    from niagara_solver.design.simulate import start_position
    from niagara_solver.model.atoms import Card
    from niagara_solver.model.board import standard_board
    from niagara_solver.model.ruleset import PRESETS
    start = start_position(standard_board(), PRESETS["standard"], 4)
    records = list(random_playout(start, 11, 10, "lookahead"))
    # (The others' turns ordered by the gems they leave in X's reach, `exposed`, find the refutation of these three at
    # once, with or without `focus`: 4, 3 and 3 positions against 1,135, 45 and 126; focus is measured without it.)
    fewer = 0
    for k, x, card in [(1, 0, Card.THREE), (1, 3, Card.THREE), (9, 3, Card.THREE)]:
        pos = with_card(card_position(records[k]), x, card)
        found = []
        for pruning in (Pruning(exposed=False), Pruning(exposed=False).without("focus"), PLAIN, Pruning()):
            search = Search(x, Goal.STEAL, 1, 120, pruning=pruning, _lines=False)
            found.append((search.value(pos).value, search.nodes))
        assert found[0][0] is found[1][0] is found[2][0] is found[3][0], (k, x, card)
        assert found[0][1] <= found[1][1] and found[3][1] * 10 < found[0][1]
        fewer += found[0][1] < found[1][1]
    assert fewer == 3


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(-2, 12), st.booleans()), max_size=40))
def test_turns_sorted_as_reached_come_in_the_order_of_a_full_sort(rows):
    # Search._order and the others' turns sort by several keys, each worked out only within the groups reached
    # (_lazily_sorted): the order of a stable sort by all the keys at once, and a key never asked past the first
    # group when only the first item is taken.
    from niagara_solver.solver.search import _lazily_sorted
    items = list(enumerate(rows))
    asked: list[int] = []

    def key(k):
        def read(item):
            asked.append(k)
            return item[1][k]
        return read
    keys = [key(0), key(1), key(2)]
    assert list(_lazily_sorted(items, keys)) == sorted(items, key=lambda item: item[1])
    asked.clear()
    first = next(iter(_lazily_sorted(items, keys)), None)
    assert first == min(items, key=lambda item: item[1], default=None)
    low = [row for row in rows if row[0] == min(rows)[0]]
    assert asked.count(1) == (len(low) if len(rows) > 1 and len(low) > 1 else 0)
