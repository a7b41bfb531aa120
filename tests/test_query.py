"""Position predicates (docs/QUERIES.md, niagara_solver/model/query.py): read back to their text, every count and
flag on a hand-built position, the semantics of any, all and that, the last round's events and the tally, every
error with its column, and the goal and the winners as the engine's end of a round says them (R-END-1..3)."""

from __future__ import annotations

import os
import pickle
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import P, position
from strategies import positions
from niagara_solver.engine.round import goal_reached as engine_goal_reached
from niagara_solver.engine.round import is_finished as engine_is_finished
from niagara_solver.engine.round import winners as engine_winners
from niagara_solver.model.atoms import Card, Colour, Phase
from niagara_solver.model.board import standard_board
from niagara_solver.model.errors import InputError, QueryError
from niagara_solver.model.goal import goal_reached, is_finished, winners
from niagara_solver.model.position import Position
from niagara_solver.model.query import (COUNTS, FLAGS, And, Compare, Count, Flag, Not, Number, Or, Query, RoundEvents,
                                        Sum, Tally, Who, parse_query)

NAMES = ["red", "blue", "green"]

#: Red: a ruby on disc 4 and a fallen canoe, four cards, 2 amber and a ruby banked; blue: a canoe in the port and a
#: sapphire on 7L, holds the lifebuoy; green: both canoes fallen, one gem of each colour banked (the goal,
#: R-END-1). Round 3, rain, the fork's marker on its second branch.
POS = position(P("red", "4:ruby", "fallen", hand=[1, 3, 5, "cloud"], bank={"amber": 2, "ruby": 1}),
               P("blue", "port", "7L:sapphire", hand=[2, 4, 6]),
               P("green", "fallen", "fallen",
                 bank={"amethyst": 1, "diamond": 1, "amber": 1, "sapphire": 1, "ruby": 1}),
               phase="cards", weather=1, round=3, fork="R", lifebuoy="blue")


def holds(text: str, pos: Position = POS, events: RoundEvents | None = None, tally: Tally | None = None) -> bool:
    return parse_query(text, [p.name for p in pos.players]).holds(pos, events, tally)


# -- the text and the tree --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, normal", [
    ("bank(red)>=7", "bank(red) >= 7"),
    ("fallen(any)==2 and bank(that)==0", "fallen(any) == 2 and bank(that) == 0"),
    ("cave(ruby) == 0 and bank(any,ruby) == 0", "cave(ruby) == 0 and bank(any, ruby) == 0"),
    ("goal(any)", "goal(any)"),
    ("  stole( any ) >=1", "stole(any) >= 1"),
    ("lost>=3", "lost >= 3"),
    ("lost(blue) + 1 - round != weather", "lost(blue) + 1 - round != weather"),
    ("not not game_over", "not not game_over"),
    ("not (goal(red) or winner(all))", "not (goal(red) or winner(all))"),
    ("(goal(red) and goal(blue)) and goal(green)", "(goal(red) and goal(blue)) and goal(green)"),
    ("goal(red) and (goal(blue) or goal(green))", "goal(red) and (goal(blue) or goal(green))"),
    ("(goal(red) and goal(blue)) or goal(green)", "goal(red) and goal(blue) or goal(green)"),
    ("(goal(red) or goal(blue)) or goal(green)", "(goal(red) or goal(blue)) or goal(green)"),
    ("hand(red, cloud) == 1 and hand(blue,123) < 1 and hand(green, 7) <= hand(green)",
     "hand(red, cloud) == 1 and hand(blue, 123) < 1 and hand(green, 7) <= hand(green)"),
    ("canoes(all, 6L) + canoes(all,port) > 0", "canoes(all, 6L) + canoes(all, port) > 0"),
    ("marker(5)==1 or rescued(any)==1 and lifebuoy(that)==1",
     "marker(5) == 1 or rescued(any) == 1 and lifebuoy(that) == 1"),
])
def test_a_query_reads_back_as_its_normalised_text_and_that_text_reads_as_the_same_tree(text, normal):
    query = parse_query(text, NAMES)
    assert str(query) == normal
    again = parse_query(normal, NAMES)
    assert again == query and again.root == query.root
    assert pickle.loads(pickle.dumps(query)) == query


def test_the_tree_is_the_documented_one_with_columns_where_each_part_starts():
    query = parse_query("not fallen(any) == 2 and bank(that, ruby) + 1 > 3 or game_over", NAMES)
    chain = And((Not(Compare(Count("fallen", Who.ANY), "==", Number(2))),
                 Compare(Sum(Count("bank", Who.THAT, (Colour.RUBY,)), "+", Number(1)), ">", Number(3))))
    assert query.root == Or((chain, Flag("game_over")))
    assert query.root.column == 1
    first, second = query.root.parts[0].parts
    assert (first.column, first.inner.column, first.inner.left.column, first.inner.left.who_column) == (1, 5, 5, 12)
    assert (second.column, second.left.column, second.left.left.who_column) == (26, 26, 31)
    assert Count("hand", 1, (Card.CLOUD,)) == parse_query("hand(blue, cloud) == 1", NAMES).root.left


def test_what_a_query_reads_is_said_by_named_uses_events_and_uses_tally():
    plain = parse_query("fallen(any) == 2 and bank(that) == 0 and cave(ruby) == 0", NAMES)
    assert (plain.named, plain.uses_events, plain.uses_tally) == (frozenset(), False, False)
    named = parse_query("goal(blue) or bank(red, ruby) > 1 or stole(any) >= 1", NAMES)
    assert (named.named, named.uses_events, named.uses_tally) == (frozenset({"blue", "red"}), True, False)
    tally = parse_query("lost >= 3", NAMES)
    assert (tally.named, tally.uses_events, tally.uses_tally) == (frozenset(), False, True)


# -- every count and flag -----------------------------------------------------------------------------------

@pytest.mark.parametrize("count, value", [
    ("bank(red)", 3), ("bank(red, amber)", 2), ("bank(red, ruby)", 1), ("bank(blue)", 0), ("bank(green)", 5),
    ("cargo(red)", 1), ("cargo(blue)", 1), ("cargo(green)", 0),
    ("loaded(red)", 1), ("loaded(green)", 0),
    ("fallen(red)", 1), ("fallen(blue)", 0), ("fallen(green)", 2),
    ("port(red)", 0), ("port(blue)", 1),
    ("river(red)", 1), ("river(blue)", 1), ("river(green)", 0),
    ("canoes(red, 4)", 1), ("canoes(red, 7L)", 0), ("canoes(blue, 7L)", 1), ("canoes(blue, port)", 1),
    ("canoes(green, fallen)", 2), ("canoes(red, fallen)", 1),
    ("cave(ruby)", 5), ("cave(ruby, ruby)", 5), ("cave(ruby, amber)", 0), ("cave(amber)", 5), ("cave(sapphire)", 6),
    ("hand(red)", 4), ("hand(red, cloud)", 1), ("hand(red, 3)", 1), ("hand(red, 2)", 0), ("hand(blue)", 3),
    ("hand(green)", 7), ("hand(green, 7)", 0),
    ("weather", 1), ("round", 3),
    ("lifebuoy(blue)", 1), ("lifebuoy(red)", 0),
    ("marker(5)", 0),
    ("stole(red)", 0), ("fell(blue)", 0), ("rescued(green)", 0), ("lost(red)", 0), ("lost", 0),
    ("bank(red) + cargo(blue) - 1", 3), ("round - weather - 5", -3),
])
def test_each_count_reads_its_value_off_a_hand_built_position(count, value):
    # no negative numbers in a query: shifted by 10, the neighbours are never negative
    assert holds(f"{count} + 10 == {value + 10}")
    assert not holds(f"{count} + 10 == {value + 11}") and not holds(f"{count} + 10 == {value + 9}")
    if value >= 0:
        assert holds(f"{count} == {value}")


def test_the_marker_is_1_on_the_first_branch_of_the_fork():
    assert holds("marker(5) == 1", POS.replace(forks=(("5", "L"),)))


def test_the_flags_read_the_goal_the_winners_and_the_end_of_the_game():
    assert holds("goal(green)") and not holds("goal(red)") and not holds("goal(blue)")
    assert holds("winner(green)") and not holds("winner(red)")
    assert holds("game_over")  # at the start of a round, green reached the goal (R-END-2)
    assert not holds("game_over", POS.replace(phase=Phase.TURNS))  # within a round the goal is not checked
    assert holds("winner(green)", POS.replace(phase=Phase.TURNS))


def test_the_winner_is_the_best_bank_of_those_at_the_goal_by_the_ruleset_s_tiebreak():
    # Red: 4 amethyst (value 4); blue: 4 diamond (value 8); both at the goal, 4 of one colour (R-END-1).
    players = (P("red", "port", "port", bank={"amethyst": 4}), P("blue", "port", "port", bank={"diamond": 4}))
    by_value = position(*players, phase="cards")
    assert holds("winner(blue) and not winner(red) and goal(all)", by_value)
    by_count = position(*players, phase="cards", ruleset={"tiebreak": "count"})
    assert holds("winner(all)", by_count)  # four gems each: a shared win (R-END-3)


def test_events_are_the_last_round_s_and_the_tally_counts_since_the_setup():
    events = RoundEvents(steals=(0, 2, 0), falls=(1, 0, 0), rescues=(0, 0, 2), lost=(1, 0, 3))
    assert holds("stole(blue) == 2 and stole(red) == 0 and fell(red) == 1 and rescued(green) == 2", events=events)
    assert holds("stole(any) >= 1") is False  # no round played: every event 0
    assert holds("stole(any) >= 1", events=events)
    tally = Tally.zero(3).after(events).after(RoundEvents((0,) * 3, (0,) * 3, (0,) * 3, (2, 0, 0)))
    assert tally == Tally((3, 0, 3))
    assert holds("lost == 6 and lost(red) == 3 and lost(blue) == 0 and lost(all) <= 3", tally=tally)
    assert not holds("lost >= 3", tally=Tally.zero(3)) and holds("lost >= 3", tally=tally)
    assert RoundEvents.none(2) == RoundEvents((0, 0), (0, 0), (0, 0), (0, 0))


# -- any, all and that ---------------------------------------------------------------------------------------

#: Red: both canoes fallen, a gem banked; blue: one canoe fallen, an empty bank; green: the same as blue.
SPLIT = position(P("red", "fallen", "fallen", bank={"ruby": 1}), P("blue", "fallen", "port"),
                 P("green", "3", "port"), phase="cards")
#: The same, but blue has both canoes fallen too.
JOINED = position(P("red", "fallen", "fallen", bank={"ruby": 1}), P("blue", "fallen", "fallen"),
                  P("green", "3", "port"), phase="cards")


def test_that_is_the_player_of_the_first_any_before_it_where_two_anys_are_any_two_players():
    assert holds("fallen(any) == 2 and bank(any) == 0", SPLIT)       # red, and blue
    assert not holds("fallen(any) == 2 and bank(that) == 0", SPLIT)  # red alone has both fallen, and a gem
    assert holds("fallen(any) == 2 and bank(that) == 0", JOINED)     # blue
    assert holds("fallen(any) == 2 and bank(that) == 1", SPLIT)
    # that refers to the first any: the second any is another player
    assert holds("fallen(any) == 2 and port(any) == 1 and bank(that) == 1", SPLIT)
    assert not holds("fallen(any) == 2 and port(any) == 1 and port(that) == 1", SPLIT)


def test_all_is_every_player_and_any_some_player_in_an_atom():
    assert holds("fallen(any) >= 1", SPLIT) and not holds("fallen(all) >= 1", SPLIT)
    assert holds("fallen(all) <= 2", SPLIT) and holds("river(all) + fallen(all) >= 1", SPLIT)
    # every any of one atom is the same player: fallen + port is 2 for blue alone, never 3 across players
    assert holds("fallen(any) + port(any) == 2", SPLIT) and not holds("fallen(any) + port(any) == 3", SPLIT)
    assert not holds("not fallen(any) >= 1", SPLIT) and holds("not fallen(all) >= 1", SPLIT)


def test_that_is_bound_through_not_or_and_nested_chains():
    assert not holds("fallen(any) == 2 and not bank(that) >= 1", SPLIT)
    assert holds("fallen(any) == 2 and not bank(that) >= 1", JOINED)
    assert holds("fallen(any) == 2 and (bank(that) == 0 or river(that) == 1)", JOINED)
    assert not holds("fallen(any) == 2 and (bank(that) == 0 or river(that) == 1)", SPLIT)
    # an inner chain binds its own that; the outer that is the outer any
    assert holds("fallen(any) == 2 and (river(any) == 1 and port(that) == 1) and bank(that) == 1", SPLIT)
    assert not holds("fallen(any) == 2 and (river(any) == 1 and fallen(that) == 1) and bank(that) == 1", SPLIT)
    # the first any binds both chains that start with it: one player throughout
    assert not holds("(fallen(any) == 2 and bank(that) == 0) and port(that) == 0", SPLIT)
    assert holds("(fallen(any) == 2 and bank(that) == 0) and port(that) == 0", JOINED)
    # a that before the inner any belongs to the outer chain
    assert holds("fallen(any) == 2 and (bank(that) == 1 and river(any) == 1)", SPLIT)
    assert not holds("fallen(any) == 2 and (bank(that) == 0 and river(any) == 1)", SPLIT)


# -- errors ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, column, message", [
    ("bank(pink) > 1", 6, "unknown player 'pink' (players: red, blue, green); any, all or that"),
    ("bank(rde) > 1", 6, "unknown player 'rde' (players: red, blue, green); any, all or that; did you mean 'red'?"),
    ("bank(red, rubi) > 1", 11,
     "unknown colour 'rubi' (colours: amethyst, diamond, amber, sapphire, ruby); did you mean 'ruby'?"),
    ("hand(red, 8) == 1", 11, "unknown card '8' (cards: 1..7, cloud, lasso, 123)"),
    ("hand(red, clowd) == 1", 11, "unknown card 'clowd' (cards: 1..7, cloud, lasso, 123); did you mean 'cloud'?"),
    ("bnak(red) > 1", 1, "unknown name 'bnak'; a query reads bank, cargo, loaded, fallen, port, river, canoes, cave, "
                         "hand, weather, round, lifebuoy, marker, stole, fell, rescued, lost, game_over, goal, winner; "
                         "did you mean 'bank'?"),
    ("bank(red) = 1", 11, "'=' is no comparison; did you mean '=='?"),
    ("bank(red) ! 1", 11, "'!' alone means nothing; write != or not"),
    ("bank(red) > 1; goal(red)", 14, "unexpected character ';'"),
    ("(bank(red) > 1", 15, "unbalanced parentheses: the '(' at column 1 is never closed"),
    ("bank(red > 1", 10, "expected ')' to close the '(' at column 5, got '>'"),
    ("bank(red) > 1)", 14, "unbalanced parentheses: ')' without its '('"),
    ("bank(red) > 1 goal(red)", 15, "unexpected 'goal' after a whole condition; join conditions with and, or"),
    ("bank(that) == 0 and fallen(any) == 2", 6,
     "'that' has no 'any' before it in its and-chain: write the any first, e.g. fallen(any) == 2 and bank(that) == 0"),
    ("fallen(any) == 2 or bank(that) == 0", 26,
     "'that' has no 'any' before it in its and-chain: write the any first, e.g. fallen(any) == 2 and bank(that) == 0"),
    ("bank(any) + 1 > bank(red)", 17, "a count over any in arithmetic is compared with a number only: bank(red) is no "
                                      "number"),
    ("bank(all) > bank(any)", 18, "a condition reads any or all, not both: split it with and"),
    ("weather(red) > 1", 8, "weather takes no arguments: write weather"),
    ("bank > 1", 6, "bank reads a player: write bank(who) or bank(who, colour)"),
    ("cave > 1", 6, "cave reads a colour: write cave(colour) or cave(colour, colour)"),
    ("canoes(red) > 1", 11, "canoes reads canoes(who, place); expected ',' and a place, got ')'"),
    ("bank(red, ruby, ruby) > 1", 15, "too many arguments: bank reads bank(who) or bank(who, colour)"),
    ("goal(red) + 1 > 1", 1, "goal is a condition, not a number: use it alone (goal(any) and bank(that) < 5)"),
    ("game_over == 1", 1, "game_over is a condition, not a number: use it alone (goal(any) and bank(that) < 5)"),
    ("1 + goal(red) > 1", 5, "goal is a condition, not a number: use it alone (goal(any) and bank(that) < 5)"),
    ("bank(red) > 1 and", 18, "expected a number, a count or a condition, got the end of the query"),
    ("bank(red)", 10, "expected a comparison (==, !=, <, <=, >, >=) after bank(red), got the end of the query"),
    ("", 1, "an empty query"),
    ("bank(red) > 123456789012345678901", 13, "a number of 21 digits; at most 20"),
])
def test_every_error_names_its_column_and_the_nearest_name(text, column, message):
    with pytest.raises(QueryError) as caught:
        parse_query(text, NAMES)
    error = caught.value
    assert (error.column, error.message) == (column, message)
    rule = "LIMITS" if "digits" in message else "QUERIES"
    assert str(error) == f"column {column}: {message} ({rule})"
    assert isinstance(error, InputError) and error.exit_status == 2


def test_discs_and_forks_are_checked_against_the_board_when_read_or_else_when_asked():
    board = standard_board()
    with pytest.raises(QueryError, match=r"^column 13: unknown place '7LL' \(discs: 1, 2, 3, 4, 5, 6L, 6R, 7L, 7R; "
                                         r"port, fallen\); did you mean '7L'\? \(QUERIES\)$"):
        parse_query("canoes(red, 7LL) == 1", NAMES, board)
    with pytest.raises(QueryError, match=r"^column 8: '4' is no fork of the board \(forks: 5\) \(QUERIES\)$"):
        parse_query("marker(4) == 1", NAMES, board)
    unchecked = parse_query("canoes(red, 6X) == 1", NAMES)  # no board given: read, and refused when asked
    with pytest.raises(QueryError, match=r"^column 13: unknown place '6X'"):
        unchecked.holds(POS)
    long_river = parse_query("canoes(any, 8RA) == 1", NAMES)
    with pytest.raises(QueryError, match="unknown place '8RA'"):
        long_river.holds(POS)


def test_a_query_is_asked_of_a_position_of_its_players():
    with pytest.raises(QueryError, match=r"^the query was read for the players red, blue, green, the position has "
                                         r"red, blue \(QUERIES\)$"):
        parse_query("goal(any)", NAMES).holds(SPLIT.replace(players=SPLIT.players[:2]))
    with pytest.raises(QueryError, match="read for the players"):
        parse_query("goal(red)", ["red", "blue", "yellow"]).holds(POS)
    assert parse_query("goal(any)", ["a", "b", "c"]).holds(POS)  # a query naming nobody reads any three players


def test_too_long_or_too_deep_a_query_is_refused():
    with pytest.raises(QueryError, match=r"^column 1: a query of 10001 characters; a query has at most 10000 "
                                         r"\(LIMITS\)$"):
        parse_query("x" * 10_001, NAMES)
    with pytest.raises(QueryError, match=r"^column 102: parentheses and not nested more than 100 deep \(LIMITS\)$"):
        parse_query("(" * 101 + "goal(red)" + ")" * 101, NAMES)
    assert parse_query("not " * 50 + "goal(red)", NAMES).holds(POS) is False


def test_a_tree_built_by_hand_is_checked_as_a_read_one():
    with pytest.raises(QueryError, match="'that' has no 'any' before it"):
        Query("", Flag("goal", Who.THAT), ("red", "blue"))
    assert Query("", Flag("goal", 2), tuple(NAMES)).holds(POS)


# -- the goal and the winners, as the engine says them --------------------------------------------------------

def test_the_engine_reads_the_goal_and_the_winners_from_the_model():
    assert (engine_goal_reached, engine_winners, engine_is_finished) == (goal_reached, winners, is_finished)


@settings(max_examples=40)
@given(positions(phase=None), st.data())
def test_goal_winner_and_game_over_agree_with_the_engine_s_end_of_a_round(pos, data):
    names = [p.name for p in pos.players]
    found = engine_winners(pos)
    assert holds("game_over", pos) is engine_is_finished(pos)
    assert holds("winner(any)", pos) is bool(found)
    for seat, name in enumerate(names):
        assert holds(f"winner({name})", pos) is (seat in found)
        assert holds(f"goal({name})", pos) is engine_goal_reached(pos.players[seat])
    seat = data.draw(st.integers(0, len(names) - 1))
    player = pos.players[seat]
    name, cargo = names[seat], sum(len(c.gems) for c in player.canoes)
    assert holds(f"bank({name}) == {player.bank.total} and hand({name}) == {len(player.hand)} and "
                 f"cargo({name}) == {cargo} and weather + 1 == {pos.weather + 1} and round == {pos.round}", pos)


# -- the compiled walk against the walk every reading shares -----------------------------------------------------

#: Every count and flag, any, all and that bound through not, or and nested chains, arithmetic, the events and the
#: tally; ``{0}``, ``{1}`` two seats' names, ``{disc}`` a disc of the board, ``{fork}`` its first fork.
FORMS = (
    "bank({0}) >= 2", "bank(any, ruby) + bank(any, amber) >= 1", "bank(all) <= 3", "cargo({1}) - 1 == 0",
    "loaded(all) == 0 or loaded({0}) + loaded({1}) >= 2", "river(any) == 2 and cargo(that) == 0",
    "canoes({0}, {disc}) >= 1", "canoes(any, port) + 1 == 2", "canoes(all, fallen) == 0", "port({1}) < 2",
    "cave(ruby) <= 5", "cave(sapphire, sapphire) + cave(amber, sapphire) >= 5", "cave(amethyst) != cave(diamond)",
    "hand(any, cloud) == 1 and hand(that, 1) == 0", "hand(all, 6) + hand(all, cloud) >= 1", "hand({1}) > 3",
    "weather + 1 >= 2", "round > 3", "lifebuoy(any) == 1 and bank(that) >= 1", "marker({fork}) == 1",
    "goal(any)", "not winner(all)", "game_over and not winner({1})", "goal(any) and winner(that)",
    "stole(any) >= 1", "fell({0}) + rescued({0}) >= 1", "lost >= 2 or lost({1}) == 1", "lost(all) <= 1",
    "fallen(any) == 2 and not bank(that) >= 1",
    "fallen(any) == 1 and (port(that) == 1 or river(any) == 2 and bank(that) <= bank(any))",
    "fallen(any) >= 1 and (river(any) == 1 and port(that) == 1) and bank(that) >= 1",
    "(fallen(any) >= 1 and bank(that) == 0) and port(that) == 0 or not (weather > 0 and fell(any) == 0)",
)


@settings(max_examples=30)
@given(positions(phase=None), st.data())
def test_the_compiled_walk_of_a_query_reads_what_the_shared_walk_reads(pos, data):
    # Query.holds walks a query compiled once into closures (model/query.py ``compiled``); the walk every reading
    # shares (``evaluate``, here through ``holds_as_read``) is its reference: the same truth on generated positions,
    # events and tallies, for every form, and a query read again from its pickle reads the same.
    names = [p.name for p in pos.players]
    n = len(names)
    first, second = data.draw(st.permutations(range(n)))[:2]
    counts = st.tuples(*[st.integers(0, 2)] * n)
    events = RoundEvents(data.draw(counts), data.draw(counts), data.draw(counts), data.draw(counts))
    tally = Tally(data.draw(counts))
    disc = data.draw(st.sampled_from(pos.board.discs))
    seen = set()
    for form in FORMS:
        query = parse_query(form.format(names[first], names[second], disc=disc, fork=pos.board.forks[0]), names)
        for args in ((events, tally), ()):
            expected = query.holds_as_read(pos, *args)
            assert query.holds(pos, *args) is expected, (str(query), args)
            seen.add(expected)
        again = pickle.loads(pickle.dumps(query))
        assert again == query and again.holds(pos, events, tally) is query.holds_as_read(pos, events, tally)
    assert seen == {True, False}


def test_the_compiled_walk_stops_where_the_shared_walk_stops_and_fails_where_it_fails():
    # A disc the board lacks is found when the count is read (QUERIES): both walks read it, or both stop before it.
    unknown = "canoes(red, 9Z) >= 1"
    for text, fails in ((f"bank(red) >= 0 or {unknown}", False), (f"bank(red) >= 9 or {unknown}", True),
                        (f"bank(red) >= 9 and {unknown}", False), (f"fallen(any) == 2 and {unknown}", True)):
        query = parse_query(text, NAMES)
        for walk in (query.holds, query.holds_as_read):
            if fails:
                with pytest.raises(QueryError, match="unknown place '9Z'"):
                    walk(POS)
            else:
                assert walk(POS) is text.startswith("bank(red) >= 0")


# -- docs/QUERIES.md ----------------------------------------------------------------------------------------

def _docs() -> str:
    with open(os.path.join(os.path.dirname(__file__), "..", "docs", "QUERIES.md"), encoding="utf-8") as f:
        return f.read()


def test_the_examples_of_docs_queries_read_and_the_two_anys_differ_as_it_says():
    examples = re.findall(r"^\| `([^`]+)` \| (.+) \|$", _docs().split("## The language")[0], re.M)
    assert len(examples) == 10
    for text, _ in examples:
        assert str(parse_query(text, NAMES)) == text
    assert holds("fallen(any) == 2 and bank(any) == 0", SPLIT) and not holds("fallen(any) == 2 and bank(that) == 0",
                                                                            SPLIT)


def test_the_errors_docs_queries_shows_are_the_errors_given():
    shown = re.findall(r"^(column \d+: .+ \((?:QUERIES|LIMITS)\))$", _docs().split("## Errors")[1], re.M)
    texts = ["bank(rde) > 1", "bank(red, rubi) > 1", "hand(red, clowd) == 1", "canoes(red, 7LL) == 1",
             "marker(4) == 1", None, "bank(red) = 1", "bank(red) > 1; goal(red)", "(bank(red) > 1", "bank(red) > 1)",
             "bank(red) > 1 goal(red)", "bank(that) == 0 and fallen(any) == 2", "bank(any) + 1 > bank(red)",
             "bank(all) > bank(any)", "bank > 1", "weather(red) > 1", "goal(red) + 1 > 1"]
    assert len(shown) == len(texts)
    for line, text in zip(shown, texts):
        if text is None:  # the list of names, cut short in the docs
            continue
        with pytest.raises(QueryError) as caught:
            parse_query(text, NAMES, standard_board())
        assert str(caught.value) == line


def test_docs_queries_lists_every_form_of_every_count_and_flag():
    docs = _docs()
    for name, signature in {**COUNTS, **FLAGS}.items():
        for form in signature.usage(name).split(" or "):
            assert f"`{form}`" in docs, form
