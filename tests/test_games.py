"""Whole games (docs/GAMES.md): every round from a position (games/rounds.py), the breadth-first reach and its
shortest traces (games/search.py), trace files and their replay (games/trace.py).

Every count and minimal round number here is held to a plain enumeration written in this file: the rounds walked
without any sharing of stages, each ended by ``end_round`` (the flow ridden step by step, not the flow's table), and
the fewest rounds read off its levels."""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any, Callable

import pytest

from helpers import P, position
from niagara_solver.engine.rescue import apply_rescue, begin_turns, rescue_options
from niagara_solver.engine.round import end_round, end_round_detail, goal_reached, is_finished, play_round
from niagara_solver.engine.turns import legal_turns
from niagara_solver.games.bounds import (BEYOND, player_reach, query_bound, reach_within, rounds_to_bank,
                                         rounds_to_goal)
from niagara_solver.games.rounds import rounds, steals_in
from niagara_solver.games.search import Level, reach
from niagara_solver.games.trace import replay, trace_from_json, trace_json
from niagara_solver.model.atoms import Card, Colour
from niagara_solver.model.board import Board
from niagara_solver.model.errors import InputError
from niagara_solver.model.format import dumps
from niagara_solver.model.position import Position
from niagara_solver.model.query import Query, RoundEvents, Tally, parse_query
from niagara_solver.model.verdict import Verdict
from niagara_solver.solver.answers import bank_reach

#: A short river: 1 -> 2 -> 3 -> a fork into 4L and 4R, one cave a disc (R-BOARD-1, R-BOARD-4).
TINY = {"name": "tiny", "river": {"1": "2", "2": "3", "3": {"L": "4L", "R": "4R"}, "4L": "falls", "4R": "falls"},
        "caves": {"amethyst": ["1"], "diamond": ["2"], "amber": ["3"], "sapphire": ["4L"], "ruby": ["4R"]}}


def tiny_board() -> Board:
    return Board.from_json(TINY, "board")


def small_start() -> Position:
    """Two players with two cards each on the short river: red beside the amethyst cave, blue carrying a diamond
    with a canoe on a last disc. Two rounds of it are a few hundred positions."""
    return position(P("red", "1", "port", hand=[2, 4]), P("blue", "2:diamond", "4L", hand=[1, "cloud"]),
                    phase="cards", board=TINY)


def plain_rounds(pos: Position) -> set[Position]:
    """Every position one round after ``pos``, by brute force: every rescue, every card and turn of each player in
    turn order (R-RESCUE-1, R-CARD-1, R-TURN-1), each play ended by ``end_round`` (R-FLOW, R-BUOY-1); no stage
    shared."""
    out: set[Position] = set()
    if is_finished(pos):
        return out
    order = pos.turn_order()

    def rescue(p: Position, i: int) -> None:
        if i == len(order):
            turns(begin_turns(p))
            return
        for r in rescue_options(p, order[i]):
            rescue(apply_rescue(p, order[i], r), i + 1)

    def turns(p: Position) -> None:
        q = p.next_to_act()
        if q is None:
            out.add(end_round(p))
            return
        me = p.players[q]
        for card in (me.hand if me.card is None else (me.card,)):
            for o in legal_turns(p, q, card):
                turns(o.position)

    rescue(pos, 0)
    return out


def plain_levels(start: Position, depth: int) -> list[set[Position]]:
    levels = [{start}]
    for _ in range(depth):
        levels.append({q for p in levels[-1] for q in plain_rounds(p)})
    return levels


class Holds:
    """A target of the search's protocol, from a plain function of the position."""

    named: frozenset[str] = frozenset()
    uses_events = False
    uses_tally = False

    def __init__(self, test: Callable[[Position], bool]) -> None:
        self.test = test

    def holds(self, pos: Position, events: Any = None, tally: Any = None) -> bool:
        return self.test(pos)


def fewest(levels: list[set[Position]], test: Callable[[Position], bool]) -> int | None:
    return next((d for d, level in enumerate(levels) if any(test(p) for p in level)), None)


# -- rounds ----------------------------------------------------------------------------------------------------

def test_two_players_first_round_from_the_setup() -> None:
    start = Position.initial(["red", "blue"])
    found = [p for p, _ in rounds(start)]
    assert len(found) == len(set(found)) == 99
    assert set(found) == plain_rounds(start)


def test_three_players_first_round_on_the_short_river() -> None:
    start = Position.initial(["red", "blue", "green"], tiny_board())
    found = {p for p, _ in rounds(start)}
    assert len(found) == 993
    assert found == plain_rounds(start)


def test_two_rounds_of_the_small_start() -> None:
    levels = plain_levels(small_start(), 2)
    assert [len(level) for level in levels] == [1, 85, 557]
    mine = [{small_start()}]
    for _ in range(2):
        mine.append({q for p in mine[-1] for q, _ in rounds(p)})
    assert mine == levels


def test_every_round_replays_to_its_position_with_its_counts() -> None:
    """Each step replays with play_round to exactly its position; the falls and gems lost it says are those of the
    engine's own flow (RoundRecord.fell), the steals those of its turns, the rescues those of its phase I."""
    seen_fall = seen_rescue = 0
    for pos in [small_start(), *[p for p, _ in rounds(small_start())][:40]]:
        for child, step in rounds(pos, events=True):
            record = step.replay(pos)
            assert record.end == child
            falls = [0, 0]
            lost = [0, 0]
            for owner, _, gems in record.fell:
                falls[owner] += 1
                lost[owner] += len(gems)
            assert step.falls == tuple(falls) and step.lost == tuple(lost)
            assert step.steals == tuple(sum(steals_in(t.turn) for t in record.turns if t.player == i)
                                        for i in range(2))
            assert step.rescued == tuple(sum(len(r.payments) for q, r in record.rescues if q == i) for i in range(2))
            seen_fall += sum(falls)
            seen_rescue += sum(step.rescued)
    assert seen_fall and seen_rescue  # the cases include falls and rescues


def test_with_events_a_position_is_listed_once_per_distinct_counts() -> None:
    start = small_start()
    plain_found = {p for p, _ in rounds(start)}
    with_counts = [(p, s.counts) for p, s in rounds(start, events=True)]
    assert len(with_counts) == len(set(with_counts)) > len(plain_found)
    assert {p for p, _ in with_counts} == plain_found


def test_nothing_follows_a_finished_game() -> None:
    over = position(P("red", "port", "port", bank={"ruby": 4}), P("blue", "port", "port"), phase="cards")
    assert is_finished(over) and list(rounds(over)) == []


# -- reach ---------------------------------------------------------------------------------------------------------

CASES: list[tuple[str, Callable[[Position], bool]]] = [
    ("red banks a gem", lambda p: p.players[0].bank.total >= 1),
    ("blue banks a gem", lambda p: p.players[1].bank.total >= 1),
    ("both blue canoes fallen", lambda p: all(c.fallen for c in p.players[1].canoes)),
    ("a canoe carries two gems", lambda p: any(len(c.gems) >= 2 for _, c in p.canoes())),
    ("red carries a gem on both canoes", lambda p: all(c.gems for c in p.players[0].canoes)),
    ("both red canoes on 3", lambda p: all(c.place == "3" for c in p.players[0].canoes)),
    ("the start", lambda p: p.round == 1),
]


@pytest.fixture(scope="module")
def levels() -> list[set[Position]]:
    return plain_levels(small_start(), 2)


@pytest.mark.parametrize("name,test", CASES, ids=[c[0] for c in CASES])
def test_reach_finds_the_fewest_rounds_of_the_plain_levels(levels: list[set[Position]], name: str,
                                                            test: Callable[[Position], bool]) -> None:
    result = reach(small_start(), Holds(test), 2)
    want = fewest(levels, test)
    assert result.rounds == want
    if want is None:
        assert result.verdict is Verdict.REFUTED and result.depth == 2
        assert result.trace == []
    else:
        assert result.verdict is Verdict.CONFIRMED and len(result.trace) == want
        assert result.depth == max(0, want - 1)
        end = result.trace[-1].position if result.trace else small_start()
        assert test(end) and end in levels[want]


def test_the_expected_minimal_rounds() -> None:
    """The figures themselves, so that a change in them is seen."""
    got = {name: reach(small_start(), Holds(test), 2).rounds for name, test in CASES}
    assert got == {"red banks a gem": 1, "blue banks a gem": None, "both blue canoes fallen": 1,
                   "a canoe carries two gems": None, "red carries a gem on both canoes": 1, "both red canoes on 3": 2,
                   "the start": 0}


def test_progress_is_told_per_level() -> None:
    told: list[Level] = []
    reach(small_start(), Holds(lambda p: False), 2, progress=told.append)
    # The last level is listed (871 rounds, 557 distinct positions: test_two_rounds_of_the_small_start), not stored.
    assert [(lv.depth, lv.distinct, lv.generated, lv.frontier) for lv in told] == [(1, 86, 85, 85),
                                                                                 (2, 86, 85 + 871, 0)]


def test_out_of_memory_is_unknown_with_the_depth_completed() -> None:
    result = reach(small_start(), Holds(lambda p: False), 2, max_positions=50)
    assert result.verdict is Verdict.UNKNOWN and result.stopped == "memory" and result.depth == 0


def test_out_of_time_is_unknown() -> None:
    from niagara_solver.model.limits import time_limit
    with time_limit(0.0):
        result = reach(small_start(), Holds(lambda p: False), 2)
    assert result.verdict is Verdict.UNKNOWN and result.stopped == "time" and result.depth == 0


# -- traces ------------------------------------------------------------------------------------------------------

def _trace_doc() -> dict[str, Any]:
    test = CASES[5][1]
    result = reach(small_start(), Holds(test), 2)
    return json.loads(dumps(trace_json(small_start(), result.trace, "canoes(red, 3) == 2")))


def test_a_trace_file_replays_legal() -> None:
    doc = _trace_doc()
    assert doc["format"] == "niagara-trace" and len(doc["rounds"]) == 2
    result = replay(trace_from_json(doc))
    assert result.ok and result.exit_status == 0 and len(result.records) == 2


def test_a_tampered_turn_fails_at_its_step() -> None:
    doc = _trace_doc()
    bad = copy.deepcopy(doc)
    turn = bad["rounds"][1]["turns"][0]
    turn["turn"] = "9: >4L"
    result = replay(trace_from_json(bad))
    assert result.exit_status == 1 and result.failure is not None
    assert result.failure.round == 2 and result.failure.player == turn["player"]


def test_a_tampered_position_fails_naming_the_difference() -> None:
    doc = _trace_doc()
    bad = copy.deepcopy(doc)
    bad["rounds"][0]["position"]["weather"] = 1
    result = replay(trace_from_json(bad))
    assert result.failure is not None and result.failure.round == 1
    assert result.failure.text().startswith("round 1: the position after the round differs from the recorded one: "
                                            "weather: played 0, recorded 1")


@pytest.mark.parametrize("change,path", [
    (lambda d: d.update(format="x"), "format"),
    (lambda d: d.pop("setup"), "setup"),
    (lambda d: d["rounds"][0].pop("cards"), "rounds[0].cards"),
    (lambda d: d["rounds"][1]["turns"][0].update(player="pink"), "rounds[1].turns[0].player"),
    (lambda d: d["rounds"][0]["position"]["players"][0].update(bank="x"), "rounds[0].position.players[0].bank"),
    (lambda d: d["rounds"][0]["turns"][0].update(turn="!!"), "rounds[0].turns[0].turn"),
])
def test_a_bad_trace_file_names_the_json_path(change: Callable[[dict[str, Any]], Any], path: str) -> None:
    doc = _trace_doc()
    change(doc)
    with pytest.raises(InputError) as err:
        trace_from_json(doc)
    assert err.value.path == path


def test_end_round_detail_is_next_round_after_the_flow() -> None:
    """engine.round.next_round (phase IV) is what end_round applies after the flow: the same position as the rounds'
    walk reaches."""
    start = small_start()
    for child, step in list(rounds(start))[:10]:
        record = play_round(start, dict(step.cards), dict(step.turns), dict(step.rescues))
        assert end_round_detail(record.before_flow)[0] == child == record.end


# -- bounds ------------------------------------------------------------------------------------------------------

def near_goal_start() -> Position:
    """Red has three rubies banked and carries a fourth; blue has six gems banked and carries nothing."""
    return position(P("red", "3:ruby", "4R", hand=[1, 4], bank={"ruby": 3}),
                    P("blue", "2", "port", hand=[2, "cloud"], bank={"amethyst": 3, "diamond": 3}),
                    phase="cards", board=TINY)


BOUND_CASES: list[tuple[str, Callable[[], Position], Callable[[Position], bool], Callable[[Position], int]]] = [
    ("red banks a gem", small_start, lambda p: p.players[0].bank.total >= 1,
     lambda p: rounds_to_bank(p, 0, 1)),
    ("red banks two gems", small_start, lambda p: p.players[0].bank.total >= 2,
     lambda p: rounds_to_bank(p, 0, 2)),
    ("blue banks a gem", small_start, lambda p: p.players[1].bank.total >= 1,
     lambda p: rounds_to_bank(p, 1, 1)),
    ("red reaches the goal", near_goal_start, lambda p: goal_reached(p.players[0]), lambda p: rounds_to_goal(p, 0)),
    ("blue reaches the goal", near_goal_start, lambda p: goal_reached(p.players[1]),
     lambda p: rounds_to_goal(p, 1)),
    ("blue banks an amber", near_goal_start, lambda p: p.players[1].bank.get(Colour.AMBER) >= 1,
     lambda p: rounds_to_bank(p, 1, 1, Colour.AMBER)),
]


@pytest.mark.parametrize("name,start,test,bound", BOUND_CASES, ids=[c[0] for c in BOUND_CASES])
def test_a_bound_is_never_above_the_fewest_rounds(name: str, start: Callable[[], Position],
                                                   test: Callable[[Position], bool],
                                                   bound: Callable[[Position], int]) -> None:
    """From the start, and from every position of the first level, the bound is at most the fewest rounds the plain
    enumeration needs to reach the target where it does (within two rounds of the start); and pruning by it changes
    neither the verdict nor the minimal rounds nor the end of the trace."""
    s = start()
    levels = plain_levels(s, 2)
    checked = 0
    for pos in [s, *levels[1]]:  # from the start two rounds, from the first level one (the hands hold one card)
        need = fewest(levels if pos is s else plain_levels(pos, 1), test)
        if need is not None:
            assert bound(pos) <= need, (name, pos)
            checked += 1
    plain = reach(s, Holds(test), 2)
    assert checked or plain.rounds is None
    pruned = reach(s, Holds(test), 2, bound=bound)
    assert (pruned.verdict, pruned.rounds) == (plain.verdict, plain.rounds)
    if plain.trace:
        assert test(pruned.trace[-1].position)
        assert replay_ok(s, pruned)


def test_a_bank_bound_remembered_is_the_bound_counted() -> None:
    """rounds_to_bank keeps its answers by what reach_within reads (the player, whether it acted, whether the round
    is at its start; one table per board and rules): asked again, and of positions sharing a player's state, it gives
    what the count gives, at the start of a round and within one, under the base rules and with capacity 2."""
    def counted(pos: Position, x: int, gems: int, colour: Colour | None) -> int:
        bank = pos.players[x].bank
        missing = gems - (bank.get(colour) if colour is not None else bank.total)
        if missing <= 0 or pos.ruleset.modules:
            return 0
        return next((k for k in range(1, BEYOND) if reach_within(pos, x, k, missing) >= missing), BEYOND)

    two = dataclasses.replace(small_start().ruleset, capacity=2)
    starts = [small_start(), near_goal_start(), small_start().replace(ruleset=two)]
    positions = [*starts, *(c for s in starts for c, _ in rounds(s)), *(c for s in starts for c, _ in rounds(s))]
    positions += [o.position for s in starts for t in [begin_turns(s)] for p in [t.next_to_act()] if p is not None
                  for card in t.players[p].hand for o in legal_turns(t, p, card)]
    assert any(p.acted for p in positions) and len(positions) > 300
    asked = 0
    for pos in positions:
        for x in range(len(pos.players)):
            for gems, colour in ((1, None), (2, None), (3, None), (1, Colour.AMBER), (2, Colour.RUBY)):
                assert rounds_to_bank(pos, x, gems, colour) == counted(pos, x, gems, colour), (pos, x, gems, colour)
                asked += 1
    assert asked > 3000


def replay_ok(start: Position, result: Any) -> bool:
    return replay(trace_from_json(json.loads(dumps(trace_json(start, result.trace))))).ok


def test_the_bounds_figures_and_what_they_prune() -> None:
    s = near_goal_start()
    # Blue's canoe on 2 must load (2 points, R-MOVE-2) and come home (2 discs): no card of blue's hand does both; its
    # other card is the cloud (no canoe paddles), so its hand is refilled for the third round (R-CARD-2).
    assert (rounds_to_goal(s, 0), rounds_to_goal(s, 1)) == (1, 3)
    assert rounds_to_bank(small_start(), 0, 2) == 2  # a canoe banks one gem a turn
    result = reach(small_start(), Holds(lambda p: p.players[0].bank.total >= 2), 2,
                   bound=lambda p: rounds_to_bank(p, 0, 2))
    plain = reach(small_start(), Holds(lambda p: p.players[0].bank.total >= 2), 2)
    assert result.verdict is plain.verdict is Verdict.REFUTED
    assert result.pruned > 0 and result.generated < plain.generated


#: Starts on the short river, two cards a hand (two rounds before the hands are refilled): canoes in the port, on the
#: river, loaded, fallen; with and without the cloud.
REACH_STARTS = [
    (P("red", "port", "port", hand=[3, 4]), P("blue", "4L:ruby", "port", hand=[1, "cloud"])),
    (P("red", "fallen", "3:amber", hand=[2, 5], bank={"ruby": 1}), P("blue", "1", "2", hand=[4, 6])),
    (P("red", "4R", "4L", hand=[6, "cloud"]), P("blue", "fallen", "fallen", hand=[3, 5], bank={"amber": 2})),
    (P("red", "1:amethyst", "2:diamond", hand=[1, 2]), P("blue", "port", "3", hand=[5, 6])),
]


@pytest.mark.parametrize("players", REACH_STARTS, ids=[str(i) for i in range(len(REACH_STARTS))])
def test_the_players_relaxation_is_never_below_what_a_player_banks(players: Any) -> None:
    """player_reach and bank_reach bound what each player's bank gains in one and two rounds, every play of the
    plain enumeration looked at; and player_reach is the tighter somewhere (its rules kept: one card for both canoes,
    each card once, one canoe out of the port, R-CARD-2, R-TURN-3)."""
    start = position(*players, phase="cards", board=TINY)
    levels = plain_levels(start, 2)
    for x in range(2):
        before = start.players[x].bank.total
        for k in (1, 2):
            gained = max(p.players[x].bank.total for p in levels[k]) - before
            assert bank_reach(start, x, k) >= gained
            assert player_reach(start, x, k, 7) >= gained, (x, k)


def test_the_players_relaxation_is_tighter() -> None:
    """Two canoes in the port: bank_reach lets both leave at once, the player's relaxation one (R-TURN-3); a hand
    of the cloud and a 1: no trip home before the hand is refilled (R-CARD-2)."""
    start = position(*REACH_STARTS[0], phase="cards", board=TINY)
    assert [bank_reach(start, 0, k) for k in (1, 2, 3, 4)] == [0, 2, 2, 4]
    assert [player_reach(start, 0, k, 7) for k in (1, 2, 3, 4)] == [0, 1, 2, 3]
    assert [bank_reach(start, 1, k) for k in (1, 2, 3, 4)] == [0, 2, 2, 4]
    assert [player_reach(start, 1, k, 7) for k in (1, 2, 3, 4)] == [0, 0, 2, 2]


# -- queries: the last round's events and the tally -------------------------------------------------------------

def plain_rounds_with_events(pos: Position) -> set[tuple[Position, tuple[int, ...], tuple[int, ...],
                                                           tuple[int, ...], tuple[int, ...]]]:
    """Every (position, steals, falls, lost, rescued) one round after ``pos``, by brute force: the steals counted in
    each turn's notation, the falls and their gems from the flow's own report (``end_round_detail``)."""
    out: set[Any] = set()
    n = len(pos.players)
    order = pos.turn_order()

    def rescue(p: Position, i: int, rescued: tuple[int, ...]) -> None:
        if i == len(order):
            turns(begin_turns(p), rescued, (0,) * n)
            return
        for r in rescue_options(p, order[i]):
            more = tuple(c + (len(r.payments) if q == order[i] else 0) for q, c in enumerate(rescued))
            rescue(apply_rescue(p, order[i], r), i + 1, more)

    def turns(p: Position, rescued: tuple[int, ...], steals: tuple[int, ...]) -> None:
        q = p.next_to_act()
        if q is None:
            end, flow = end_round_detail(p)
            falls, lost = [0] * n, [0] * n
            for owner, _, gems in flow.fell:
                falls[owner] += 1
                lost[owner] += len(gems)
            out.add((end, steals, tuple(falls), tuple(lost), rescued))
            return
        me = p.players[q]
        for card in (me.hand if me.card is None else (me.card,)):
            for o in legal_turns(p, q, card):
                stole = sum(1 for a in o.turn.actions for s in a.steps if type(s).__name__ == "Steal")
                turns(o.position, rescued, tuple(c + (stole if k == q else 0) for k, c in enumerate(steals)))

    if not is_finished(pos):
        rescue(pos, 0, (0,) * n)
    return out


def plain_fewest_with_events(start: Position, query: Query, depth: int) -> int | None:
    if query.holds(start, RoundEvents.none(2), Tally.zero(2)):
        return 0
    level = {(start, Tally.zero(2))}
    for d in range(1, depth + 1):
        nxt = set()
        for pos, tally in level:
            for end, steals, falls, lost, rescued in plain_rounds_with_events(pos):
                events = RoundEvents(steals, falls, rescued, lost)
                after = tally.after(events)
                if query.holds(end, events, after):
                    return d
                nxt.add((end, after))
        level = nxt
    return None


EVENT_QUERIES = ["fell(blue) == 2", "rescued(any) >= 1", "lost >= 1", "stole(any) >= 1",
                 "lost(blue) >= 1 and bank(red) >= 1", "fell(red) >= 1", "lost(red) >= 1", "stole(blue) >= 1"]


def test_queries_of_events_and_the_tally_reach_in_the_fewest_rounds() -> None:
    """The search's rounds and their counts against a brute force that reads the counts off the engine's own report
    of the flow and the turns' notation: the same fewest rounds (or none within two) for every query."""
    start = small_start()
    got, want = {}, {}
    for text in EVENT_QUERIES:
        query = parse_query(text, ["red", "blue"], start.board)
        result = reach(start, query, 2)
        got[text] = result.rounds
        want[text] = plain_fewest_with_events(start, query, 2)
        if result.trace:
            assert replay_ok(start, result)
            last = result.trace[-1]
            assert query.holds(last.position, last.step.events, Tally(tuple(
                sum(t.step.lost[i] for t in result.trace) for i in range(2))))
    assert got == want
    assert got == {"fell(blue) == 2": 1, "rescued(any) >= 1": 2, "lost >= 1": 1, "stole(any) >= 1": 1,
                   "lost(blue) >= 1 and bank(red) >= 1": 1, "fell(red) >= 1": 1, "lost(red) >= 1": 1,
                   "stole(blue) >= 1": 1}


BOUNDED_QUERIES = ["bank(red) >= 1", "goal(any)", "bank(blue) >= 1 or goal(red)", "winner(red)",
                   "bank(red, amethyst) >= 1 and fallen(blue) == 2", "1 <= bank(any)", "bank(all) > 0", "game_over",
                   "not bank(red) >= 1", "cargo(any) >= 2"]


def test_the_bound_of_a_query_changes_no_answer() -> None:
    """query_bound reads the query's tree (goal, winner, game_over, bank comparisons; and, or, any, all): the pruned
    search gives the plain search's verdict and fewest rounds on each, from both small starts."""
    for start in (small_start(), near_goal_start()):
        for text in BOUNDED_QUERIES:
            query = parse_query(text, ["red", "blue"], start.board)
            bound = query_bound(query)
            plain = reach(start, query, 2)
            pruned = reach(start, query, 2, bound=bound)
            assert (pruned.verdict, pruned.rounds) == (plain.verdict, plain.rounds), (text, start)


def test_what_the_bound_of_a_query_reads() -> None:
    start = near_goal_start()
    names = ["red", "blue"]

    def bound(text: str) -> int | None:
        found = query_bound(parse_query(text, names, start.board))
        return None if found is None else found(start)
    assert bound("goal(red)") == 1 and bound("goal(blue)") == 3
    assert bound("goal(any)") == 1 and bound("goal(all)") == 3 and bound("game_over") == 1
    assert bound("goal(red) and goal(blue)") == 3 and bound("goal(red) or goal(blue)") == 1
    # Two more gems: the ruby home this round, another the next (a steal on the way, in the relaxation).
    assert bound("bank(red) >= 4") == 1 and bound("bank(red) > 4") == 2 and bound("5 <= bank(red)") == 2
    assert bound("bank(red, ruby) == 3") == 0
    assert bound("not goal(red)") is None and bound("cargo(any) >= 2") is None
    assert bound("fallen(any) == 2 and goal(that)") is None


def test_a_round_begun_is_finished_first() -> None:
    """From a position in phase II (red has acted), the rounds finish the round: blue's turns, the flow, phase IV;
    each replays with play_round from that position, and they are the brute force's."""
    start = small_start()
    mid = next(o.position for o in legal_turns(begin_turns(start), 0, Card.parse(4)))
    found = {}
    for child, step in rounds(mid):
        assert step.replay(mid).end == child and step.rescues == ()
        found[child] = step
    me = mid.players[1]
    want = {end_round(o.position) for card in me.hand for o in legal_turns(mid, 1, card)}
    assert set(found) == want and all(p.round == 2 for p in found)
