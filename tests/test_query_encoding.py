"""Position predicates in the encoding (niagara_solver/encoding/query.py, ``Relations.holds_query``): on generated
positions, the z3 term pinned to the position holds exactly when the query holds there (model/query.py), for
queries over every count and flag the encoding holds; and what it does not hold is refused."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import P, position
from strategies import positions
from test_query import JOINED, SPLIT
from niagara_solver.encoding.relations import Question, Relations, Sat
from niagara_solver.model.atoms import FALLEN, Gems, Phase
from niagara_solver.model.position import Canoe, Position
from niagara_solver.model.errors import QueryError
from niagara_solver.model.query import COUNTS, FLAGS, parse_query

#: Queries over every count and flag the encoding holds, with any, all and that; ``{0}``, ``{1}`` are two seats'
#: names, ``{disc}`` a disc of the board, ``{fork}`` its first fork.
QUERIES = (
    "bank({0}) >= 2", "bank(any, ruby) + bank(any, amber) >= 1", "bank(all) <= 3",
    "cargo({1}) == 1 or cargo(any) >= 2", "loaded(all) == 0", "loaded({0}) + loaded({1}) >= 2",
    "fallen(any) >= 1 and bank(that) == 0", "port({0}) == 2", "river(any) == 2 and cargo(that) == 0",
    "canoes({0}, {disc}) >= 1", "canoes(any, port) + 1 == 2", "canoes(all, fallen) == 0",
    "cave(ruby) <= 5", "cave(sapphire, sapphire) + cave(amber, sapphire) >= 5", "cave(amethyst) != cave(diamond)",
    "hand({0}) >= 4", "hand(any, cloud) == 1 and hand(that, 1) == 0", "hand(all, 6) + hand(all, cloud) >= 1",
    "hand({1}, 7) == 0",
    "weather + 1 >= 2", "round > 10", "lifebuoy({1}) == 1", "lifebuoy(any) == 1 and bank(that) >= 1",
    "marker({fork}) == 1", "not marker({fork}) == 1 or weather < 0",
    "goal(any)", "goal({0}) or goal({1})", "winner({0})", "not winner(all)", "game_over",
    "game_over and not winner({1})",
    "fallen(any) == 1 and (port(that) == 1 or river(any) == 2 and bank(that) <= bank(any))",
)


def test_the_queries_cover_every_count_and_flag_but_events_and_the_tally():
    read = {name for text in QUERIES for name in re.findall(r"([a-z_]+)\(", text)}
    read |= {word for text in QUERIES for word in text.split() if word in ("weather", "round", "game_over")}
    assert read == (set(COUNTS) | set(FLAGS)) - {"stole", "fell", "rescued", "lost"}


@st.composite
def varied(draw: st.DrawFn) -> Position:
    """A generated position, some banks redrawn (0 to 4 gems of each colour: the goal and ties come up) and some
    canoes fallen. Gems are no longer conserved, which neither reading of a query asks."""
    pos = draw(positions(phase=None))
    players = list(pos.players)
    for seat, player in enumerate(players):
        if draw(st.booleans()):
            player = replace(player, bank=Gems(draw(st.lists(st.integers(0, 4), min_size=5, max_size=5))))
        if draw(st.booleans()):
            player = replace(player, canoes=(player.canoes[0], Canoe(FALLEN)))
        players[seat] = player
    return pos.replace(players=tuple(players))


@settings(max_examples=12)
@given(varied(), st.data())
def test_the_term_pinned_to_a_position_holds_exactly_when_the_query_does(pos, data):
    names = [p.name for p in pos.players]
    first, second = data.draw(st.permutations(range(len(names))))[:2]
    disc = data.draw(st.sampled_from(pos.board.discs))
    fork = pos.board.forks[0]
    relations = Relations.of(pos)
    sym = relations.position("query")
    question = Question(30)
    question.add(*relations.pin(sym, pos))
    for text in QUERIES:
        query = parse_query(text.format(names[first], names[second], disc=disc, fork=fork), names, pos.board)
        term = relations.holds_query(sym, query, phase=pos.phase, round=pos.round, lifebuoy=pos.lifebuoy)
        expected = Sat.SAT if query.holds(pos) else Sat.UNSAT
        assert question.ask(term) is expected, str(query)


def _pinned(pos):
    relations = Relations.of(pos)
    sym = relations.position("query")
    question = Question(30)
    question.add(*relations.pin(sym, pos))
    return relations, sym, question


#: Red at the goal (one gem of each colour, R-END-1), blue not; the lifebuoy with blue, round 4.
GOAL = position(P("red", "port", "3", bank={"amethyst": 1, "diamond": 1, "amber": 1, "sapphire": 1, "ruby": 1}),
                P("blue", "fallen", "5:ruby"), phase="cards", round=4, lifebuoy="blue")


def test_game_over_holds_in_the_encoding_at_the_start_of_a_round_only():
    relations, sym, question = _pinned(GOAL)
    query = parse_query("game_over and winner(red) and goal(any) and lifebuoy(blue) == 1 and round == 4",
                        ["red", "blue"])
    assert question.ask(relations.holds_query(sym, query, round=4, lifebuoy=1)) is Sat.SAT
    assert question.ask(relations.holds_query(sym, query, round=5, lifebuoy=1)) is Sat.UNSAT
    assert question.ask(relations.holds_query(sym, query, phase=Phase.TURNS, round=4, lifebuoy=1)) is Sat.UNSAT


def test_events_the_tally_the_round_and_the_lifebuoy_are_refused_where_the_encoding_does_not_hold_them():
    relations, sym, _ = _pinned(GOAL)
    names = ["red", "blue"]
    for text, column, what in (("stole(any) >= 1", 1, "stole"), ("fell(red) == 0", 1, "fell"),
                               ("goal(red) and rescued(blue) > 0", 15, "rescued"), ("lost >= 3", 1, "lost"),
                               ("lost(red) >= 3", 1, "lost")):
        with pytest.raises(QueryError) as caught:
            relations.holds_query(sym, parse_query(text, names))
        assert str(caught.value) == (f"column {column}: {what} counts what rounds did, which is not in the encoding "
                                     "(QUERIES)")
    with pytest.raises(QueryError, match=r"^column 1: the round number is not in the encoding: give the round "
                                         r"\(QUERIES\)$"):
        relations.holds_query(sym, parse_query("round >= 2", names))
    with pytest.raises(QueryError, match=r"^column 1: the lifebuoy is not in the encoding: give its holder "
                                         r"\(QUERIES\)$"):
        relations.holds_query(sym, parse_query("lifebuoy(red) == 1", names))
    with pytest.raises(QueryError, match=r"^the query was read for 3 players, the position has 2 \(QUERIES\)$"):
        relations.holds_query(sym, parse_query("goal(any)", ["red", "blue", "green"]))
    with pytest.raises(QueryError, match=r"^column 8: '3' is no fork of the board \(forks: 5\) \(QUERIES\)$"):
        relations.holds_query(sym, parse_query("marker(3) == 1", names))


def test_a_free_position_has_what_a_query_asks_and_the_model_read_back_holds_it():
    # Asked of a free, well-formed position: z3 finds one where blue has a canoe fallen and an empty bank while
    # red banked 2 rubies; decoded, the model's reading agrees.
    relations = Relations.of(GOAL)
    sym = relations.position("free")
    question = Question(30)
    question.hold(relations.well_formed(sym, Phase.CARDS))
    query = parse_query("fallen(any) == 1 and bank(that) == 0 and bank(red, ruby) == 2 and cave(ruby) == 0",
                        ["red", "blue"])
    assert question.ask(relations.holds_query(sym, query)) is Sat.SAT
    found = relations.decode_position(question.model(), sym, GOAL)
    assert query.holds(found)
    assert found.players[0].bank.get(5) == 2 and found.caves[4].total == 0


#: The bindings of tests/test_query.py, asked of the positions built there to tell any, all and that apart.
BINDINGS = (
    "fallen(any) == 2 and bank(any) == 0", "fallen(any) == 2 and bank(that) == 0",
    "fallen(any) == 2 and port(any) == 1 and port(that) == 1", "fallen(any) + port(any) == 2",
    "not fallen(any) >= 1", "not fallen(all) >= 1", "fallen(any) == 2 and not bank(that) >= 1",
    "fallen(any) == 2 and (bank(that) == 0 or river(that) == 1)",
    "fallen(any) == 2 and (river(any) == 1 and port(that) == 1) and bank(that) == 1",
    "(fallen(any) == 2 and bank(that) == 0) and port(that) == 0",
    "fallen(any) == 2 and (bank(that) == 1 and river(any) == 1)",
)


@pytest.mark.parametrize("seat", [0, 1])
def test_any_all_and_that_read_the_same_in_the_encoding(seat):
    pos = (SPLIT, JOINED)[seat]
    relations, sym, question = _pinned(pos)
    names = [p.name for p in pos.players]
    answers = []
    for text in BINDINGS:
        query = parse_query(text, names)
        answers.append(query.holds(pos))
        assert question.ask(relations.holds_query(sym, query)) is (Sat.SAT if answers[-1] else Sat.UNSAT), text
    assert answers == [[True, False, False, True, False, True, False, False, True, False, True],
                       [True, True, False, True, False, True, True, True, True, True, True]][seat]
