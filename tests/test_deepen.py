"""The deepening search (games/deepen.py): the fewest rounds to a target, the same with and without its bound, each
play it finds replayed by the engine; the bound itself never above the plain search's answer."""

import dataclasses

import pytest

from niagara_solver.games.deepen import Deepening, QueryTarget, dive_plans, rounds_needed
from niagara_solver.model.board import Board
from niagara_solver.model.position import Position
from niagara_solver.model.query import Query, RoundEvents, Tally, parse_query
from niagara_solver.model.ruleset import STANDARD

SHORT = Board.from_json({"name": "short",
                         "river": {"1": "2", "2": "3", "3": {"L": "4L", "R": "4R"}, "4L": "falls", "4R": "falls"},
                         "caves": {"amethyst": ["1"], "diamond": ["2"], "amber": ["3"], "sapphire": ["4L"],
                                   "ruby": ["4R"]}}, "board")
NAMES = ["red", "blue"]


def _setup(board: Board | None = None, gems: int = 8) -> Position:
    return Position.initial(NAMES, board, dataclasses.replace(STANDARD, gems_per_colour=gems))


def _deepen(start: Position, text: str, rounds: int, bound: bool = True) -> tuple[int | None, int]:
    result = Deepening(start, parse_query(text, NAMES, start.board), rounds, use_bound=bound).run()
    if result.rounds is not None:
        assert len(result.records) == result.rounds  # the play, replayed by the engine round by round
        end = result.records[-1].end
        assert parse_query(text, NAMES).holds(end) or "stole" in text or "lost" in text or "fell" in text
    return result.rounds, result.completed


@dataclasses.dataclass(frozen=True)
class Either:
    """A target (games/deepen.py ``Target``) met where any of its queries holds, each read as it reads alone."""

    queries: tuple[Query, ...]
    uses_events = False
    uses_tally = False

    def holds(self, pos: Position, events: RoundEvents | None = None, tally: Tally | None = None) -> bool:
        return any(q.holds(pos, events, tally) for q in self.queries)

    def rounds_needed(self, pos: Position, limit: int) -> int:
        return 0  # no bound: the walk without it is the one asked for


@pytest.mark.parametrize("texts, rounds, expected", [
    (("loaded(any) >= 1",), 2, 1),
    (("fallen(any) >= 1",), 2, 1),
    (("bank(any) >= 1",), 3, 2),
    # Two queries whose walks without the bound are one walk (below): walked once, for both.
    (("bank(red) >= 2", "bank(any) >= 2 and fallen(that) == 0"), 4, 3),
    (("stole(any) >= 1",), 3, 2),
    (("lost >= 1",), 2, 1),
], ids=lambda value: " + ".join(value) if isinstance(value, tuple) else None)
def test_the_fewest_rounds_are_the_same_with_and_without_the_bound(texts: tuple[str, ...], rounds: int,
                                                                   expected: int,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    start = _setup(SHORT)
    given: list[int] = []
    real = QueryTarget.rounds_needed

    def spy(self: QueryTarget, pos: Position, limit: int, *tally: Tally) -> int:
        given.append(real(self, pos, limit, *tally))
        return given[-1]
    monkeypatch.setattr(QueryTarget, "rounds_needed", spy)
    for text in texts:
        given.clear()
        assert _deepen(start, text, rounds) == (expected, expected - 1), text
        assert given  # the bound was asked, at the start and after every turn
    if set(given) == {0}:
        # The bound gives 0 for this query wherever it is asked (it reads no bank and no goal: stole, lost, loaded,
        # fallen), and Deepening reads use_bound only through that answer (0 without the bound): the walk without
        # the bound is this very walk, position for position. Walking it again asserted nothing more.
        assert len(texts) == 1
        return
    if len(texts) == 1:
        assert _deepen(start, texts[0], rounds, bound=False) == (expected, expected - 1)
        return
    # Without the bound, Deepening reads a query only at the start and where a round ends (does it hold there?) and,
    # for the keys of its tables, whether it reads the round's events or the tally: for queries that read neither,
    # the walks are the same, position for position, up to the first round's end where one holds. The walk of
    # "either" goes that far once (the full walk of two rounds, some 100,000 positions, 8 s): if every query holds
    # where it stops, each one's own walk stops there too, with the same rounds and depths completed, none of them
    # having held anywhere before.
    queries = [parse_query(text, NAMES, start.board) for text in texts]
    assert not any(q.uses_events or q.uses_tally for q in queries)
    plain = Deepening(start, Either(tuple(queries)), rounds, use_bound=False).run()
    assert (plain.rounds, plain.completed) == (expected, expected - 1)
    assert len(plain.records) == plain.rounds  # the play, replayed by the engine round by round
    assert all(q.holds(plain.records[-1].end) for q in queries), texts


def test_no_play_banks_a_gem_in_one_round_and_the_bound_says_so_without_a_search() -> None:
    start = _setup()
    query = parse_query("bank(any) >= 1", NAMES)
    assert rounds_needed(query, start, 5) == 2
    result = Deepening(start, query, 1).run()
    assert (result.rounds, result.completed, result.excluded_below, result.positions) == (None, 1, 1, 0)
    plain = Deepening(start, query, 1, use_bound=False).run()
    assert (plain.rounds, plain.completed) == (None, 1) and plain.positions > 0


def test_the_goal_needs_five_rounds_by_the_bound() -> None:
    # A canoe banks at most one gem every two rounds, and only one canoe leaves the port in the first round (R-TURN-3):
    # four gems of one colour, the cheapest goal (R-END-1), need five rounds.
    start = _setup()
    assert rounds_needed(parse_query("goal(any)", NAMES), start, 9) == 5
    assert rounds_needed(parse_query("bank(red) >= 2", NAMES), start, 9) == 3
    assert rounds_needed(parse_query("bank(red) >= 2 or bank(blue) >= 1", NAMES), start, 9) == 2
    assert rounds_needed(parse_query("bank(red) >= 2 and bank(blue) >= 3", NAMES), start, 9) == 4
    assert rounds_needed(parse_query("cave(ruby) == 0", NAMES), start, 9) == 0


@pytest.mark.parametrize("text", ["bank(any) >= 1", "bank(red) >= 2", "goal(blue) or bank(red) >= 1"])
def test_the_two_walks_of_reach_give_the_same_fewest_rounds_and_a_trace_that_replays(text: str) -> None:
    from niagara_solver.games.bounds import query_bound
    from niagara_solver.games.search import reach

    start = _setup(SHORT)
    query = parse_query(text, NAMES, SHORT)
    decisions = reach(start, query, 4, bound=query_bound(query), walk="decisions")
    levels = reach(start, query, 4, bound=query_bound(query))
    assert (decisions.verdict, decisions.rounds) == (levels.verdict, levels.rounds)
    assert decisions.rounds is not None and len(decisions.trace) == decisions.rounds
    pos = start
    for step in decisions.trace:
        record = step.record(pos)
        assert record.end == step.position
        pos = record.end
    assert query.holds(pos)


THREE = ["red", "blue", "green"]


def test_the_dives_come_one_player_alone_then_each_with_each_partner() -> None:
    assert dive_plans(2) == [(0, frozenset({0})), (1, frozenset({1}))]
    assert dive_plans(3) == [(0, frozenset({0})), (1, frozenset({1})), (2, frozenset({2})),
                             (0, frozenset({0, 1})), (0, frozenset({0, 2})), (1, frozenset({1, 0})),
                             (1, frozenset({1, 2})), (2, frozenset({2, 0})), (2, frozenset({2, 1}))]


@pytest.mark.parametrize("text, rounds, expected, found_by", [
    ("fallen(any) >= 1", 2, (1, 0), {0}),
    ("lost >= 1", 2, (1, 0), {0}),
    ("stole(any) >= 1", 1, (None, 1), None),  # no dive finds one: the full walk says none
    ("fallen(red) >= 1 and loaded(blue) >= 1", 2, (1, 0), {0, 1}),  # red and blue together
    ("bank(red) >= 1 and fallen(blue) >= 1", 3, (2, 1), {1}),
])
def test_the_dives_give_the_full_walks_fewest_rounds_with_three_players(
        text: str, rounds: int, expected: tuple[int | None, int], found_by: set[int] | None) -> None:
    # A dive walks a part of a depth's plays after every shallower depth was walked in full: what it finds is a
    # real play (replayed by the engine) and as short as the full walk's. With three players the pairs dive too.
    start = Position.initial(THREE, SHORT, STANDARD)
    query = parse_query(text, THREE, SHORT)
    dived = Deepening(start, query, rounds)
    found = dived.run()
    full = Deepening(start, query, rounds, dives=False).run()
    assert (found.rounds, found.completed) == (full.rounds, full.completed) == expected
    assert dived.found_by == (frozenset(found_by) if found_by is not None else None)
    if found.rounds is not None:
        assert len(found.records) == found.rounds
        end = found.records[-1].end
        assert query.holds(end) or "lost" in text or "fell" in text  # lost reads the round's events


def test_a_dive_finds_the_earliest_steal_of_three_players_without_the_full_walk_of_its_round() -> None:
    # The full walk of round 2 lists every player's every card and turn before it meets a steal (some 200,000
    # positions, 20 s); the dive of red alone meets one in some 3,000. Round 1 is walked in full first: no steal.
    start = Position.initial(THREE, SHORT, STANDARD)
    query = parse_query("stole(any) >= 1", THREE, SHORT)
    dived = Deepening(start, query, 2)
    found = dived.run()
    assert (found.rounds, found.completed) == (2, 1) and found.positions < 10_000
    assert dived.found_by is not None and len(found.records) == 2


def test_a_walk_under_way_is_reported_by_name_then_each_depth_when_done() -> None:
    # A search of minutes says which dive or full walk it is in; a depth walked in full is reported once, unnamed.
    start = Position.initial(THREE, SHORT, STANDARD)
    calls: list[tuple[int, int, str | None]] = []
    dived = Deepening(start, parse_query("stole(any) >= 1", THREE, SHORT), 2,
                      progress=lambda depth, positions, seconds, walk: calls.append((depth, positions, walk)))
    dived.report_seconds = 0.0  # every 64 positions
    assert dived.run().rounds == 2
    assert calls[0] == (1, 64, "the dive of green")  # red's and blue's dives meet fewer positions
    assert (1, 3135, None) in calls and calls[-1][0] == 2  # round 1 done; round 2's dive of red finds the steal
    walks = [walk for _, _, walk in calls]
    assert {"the dive of red and blue", "the dive of green and blue", "the full walk"} <= set(walks)
    assert walks.index("the full walk") > walks.index("the dive of green and blue")  # the dives first
    assert all(positions % 64 == 0 for _, positions, walk in calls if walk is not None)
