"""The encoding's front door asked what the analyses above it ask (docs/ARCHITECTURE.md, "The encoding's front
door"): a symbolic position compared with a concrete one, pinned in parts and measured, and questions with
three-valued answers. The prover, ``why`` and the switch witnesses import no z3 and ask only
through these (tests/test_prover.py, tests/test_designer.py hold their answers)."""

import time

import z3

from helpers import P, position
from niagara_solver.encoding.relations import Question, Relations, Sat, value
from niagara_solver.model.limits import time_limit
from niagara_solver.model.position import Canoe, Player

#: Red: a ruby on disc 4, an empty canoe on 6L, an amber banked; blue: an amber on 2 and a canoe in the port.
POS = position(P("red", "4:ruby", "6L", hand=[1, 3, 5], bank={"amber": 1}),
               P("blue", "2:amber", "port", hand=[2, 4, 6]))


def _pinned(pos, order=None):
    relations = Relations.of(pos)
    sym = relations.position("door")
    question = Question(30)
    question.add(*relations.pin(sym, pos, order))
    return relations, sym, question


def _with_canoes(pos, seat, canoes):
    p = pos.players[seat]
    return pos.with_player(seat, Player(p.name, canoes, p.hand, p.bank, p.card))


def test_same_position_holds_whichever_canoe_comes_first_and_fails_for_another_position():
    relations, sym, question = _pinned(POS, {0: (1, 0)})  # red's canoes pinned the other way round
    with question.scope(relations.same_position(sym, POS)):
        assert question.ask() is Sat.SAT
    moved = _with_canoes(POS, 0, (Canoe("4"), Canoe("6L", POS.players[0].canoes[0].gems)))  # the ruby on 6L
    with question.scope(relations.same_position(sym, moved)):
        assert question.ask() is Sat.UNSAT


def test_pin_canoes_pins_one_players_canoes_with_their_gems_or_at_most_those():
    relations = Relations.of(POS)
    sym = relations.position("door")
    question = Question(30)
    empty = z3.Sum(sym.cargo[0][0]) == 0
    with question.scope(*relations.pin_canoes(sym, 0, POS.players[0].canoes), empty):
        assert question.ask() is Sat.UNSAT  # the canoe on 4 carries its ruby
    with question.scope(*relations.pin_canoes(sym, 0, POS.players[0].canoes, at_most=True), empty):
        assert question.ask() is Sat.SAT  # at most the ruby: none will do
        model = question.model()
        assert value(model, sym.place[0][0]) == relations.tables.index["4"]
        assert value(model, sym.place[0][1]) == relations.tables.index["6L"]


def test_pin_markers_pins_each_fork_marker_to_its_branch():
    relations, sym, question = _pinned(POS)
    fork, label = POS.forks[0]
    other = next(b for b in POS.board.labels[fork] if b != label)
    with question.scope(*relations.pin_markers(sym, ((fork, other),))):
        assert question.ask() is Sat.UNSAT
    with question.scope(*relations.pin_markers(sym, POS.forks)):
        assert question.ask() is Sat.SAT


def test_size_counts_gems_away_from_home_canoes_on_the_river_and_cards_out_of_hand():
    relations, sym, question = _pinned(POS)
    assert question.ask() is Sat.SAT
    model = question.model()
    # 2 gems carried, 1 banked, no cave holds another colour; red's 2 canoes and blue's 1 on the river; of the 7
    # cards (the cloud, 1 to 6) each player holds 3.
    assert [len(row) for row in sym.hand] == [7, 7]
    assert value(model, relations.size(sym)) == 2 + 1 + 3 + (4 + 4)
    assert value(model, relations.size(sym, first=1, hands=False)) == 2 + 1 + 1


def test_a_question_answers_sat_unsat_or_unknown_and_breaking_asks_for_a_counterexample():
    x = z3.Int("door.x")
    question = Question(30)
    question.add(x > 0, x < 3)
    with question.breaking(x < 5):
        assert question.ask() is Sat.UNSAT  # no counterexample to x < 5
    with question.breaking(x < 2):
        assert question.ask() is Sat.SAT
        assert value(question.model(), x) == 2
    assert question.ask() is Sat.SAT  # the scopes are gone
    with time_limit(0.001):
        time.sleep(0.01)
        assert question.ask() is Sat.UNKNOWN  # no time left: never an answer
