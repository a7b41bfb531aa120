"""The steal goal's bound (solver/search.py ``nothing_to_steal``, docs/SOLVER.md "Pruning"): where no other player's
canoe carries a gem and every player can keep its canoes empty, X never steals. The lemma is checked by the engine
over every case (``keeps_empty``); the search answers the tracker's own example (a steal within 3 rounds from the
4-player start) at once; and its certificate's leaf ``empty`` is checked by the encoding, which refuses it where it
does not hold: each lemma it rests on is asked of the encoding, and one planted bug per lemma makes it refuse."""

import dataclasses
import os
from typing import Callable

import pytest
import z3

from helpers import P, position
from niagara_solver.encoding import core
from niagara_solver.encoding.relations import Relations
from niagara_solver.model.board import Board
from niagara_solver.model.format import load_document
from niagara_solver.model.position import Position
from niagara_solver.model.ruleset import PRESETS, PortDeparture
from niagara_solver.model.verdict import Verdict
from niagara_solver.solver import certify, proof
from niagara_solver.solver.answers import Goal
from niagara_solver.solver.certificate import Certificate, CNode
from niagara_solver.solver.certify import check_certificate
from niagara_solver.solver.search import PLAIN, Search, keeps_empty, nothing_to_steal

FOLDER = os.path.join(os.path.dirname(__file__), "..", "puzzles")

#: A river of five discs: a port canoe cannot paddle 6 discs down it.
SHORT = {"name": "short", "river": {"1": "2", "2": "3", "3": "4", "4": "5", "5": "falls"},
         "caves": {"amethyst": ["1"], "diamond": ["2"], "amber": ["3"], "sapphire": ["4"], "ruby": ["5"]}}


def start_4p() -> Position:
    pos, _ = load_document(os.path.join(FOLDER, "start-4p.json"))
    return pos


def test_every_player_can_keep_empty_canoes_empty_in_the_base_game():
    board = Position.initial(["a", "b"]).board
    for name in ("standard", "bga-2013-05-09", "bsw"):
        assert keeps_empty(board, PRESETS[name]), name


def test_a_river_too_short_for_a_six_breaks_the_lemma():
    # Two canoes in the port with a 6 and exactly one must leave (R-TURN-3): no disc 6 discs down, no turn at all.
    short = Board.from_json(SHORT, "")
    rules = dataclasses.replace(PRESETS["standard"], port_departure=PortDeparture.EXACTLY_ONE)
    assert not keeps_empty(short, rules)
    assert keeps_empty(Position.initial(["a", "b"]).board, rules)


def test_the_bound_needs_every_other_canoe_empty_and_no_module():
    assert nothing_to_steal(start_4p(), 0)
    loaded = position(P("red", "port", "3"), P("blue", "port", "5:ruby"))
    assert not nothing_to_steal(loaded, 0)
    assert nothing_to_steal(loaded, 1)  # blue's own gem is not one blue could steal
    expansion = Position.initial(["a", "b", "c"], ruleset=PRESETS["flussgeister"])
    assert not nothing_to_steal(expansion, 0)


def test_the_bound_gives_the_plain_answer():
    # Where the plain search can finish, the bound changes nothing: every seat, horizons 1 and 2.
    pos = position(P("red", "port", "2"), P("blue", "4", "port"), P("green", "port", "port"))
    for x in range(3):
        for horizon in (1, 2):
            plain = Search(x, Goal.STEAL, horizon, 120, pruning=PLAIN).value(pos).value
            assert plain is False
            assert Search(x, Goal.STEAL, horizon, 120).value(pos).value is False


def test_a_steal_within_three_rounds_from_the_four_player_start_is_answered():
    # The tracker's example: nobody carries a gem at the start, and nobody has to load one. Without the bound the
    # search ran out of 120 s here.
    search = Search(0, Goal.STEAL, 3, 60)
    assert search.value(start_4p()).value is False
    assert search.nodes < 1000


def test_its_certificate_rests_on_the_leaf_empty_and_is_accepted():
    pos = start_4p()
    search = Search(0, Goal.STEAL, 3, 60)
    cert = proof.certificate(search, pos, search.value(pos).value)
    assert [n.claim for n in cert.nodes if n.kind == "leaf"] == ["empty"]
    check = check_certificate(cert, timeout=300)
    assert check.verdict is Verdict.PROVED, check.reason


def test_the_leaf_empty_where_another_canoe_carries_a_gem_is_refused():
    pos = position(P("red", "port", "3"), P("blue", "port", "5:ruby"))
    search = Search(0, Goal.STEAL, 2, 60)
    cert = proof.certificate(search, pos, False)
    leaf = CNode("leaf", cert.nodes[0].at, claim="empty", value=False)
    check = check_certificate(dataclasses.replace(cert, nodes=(leaf,)), timeout=300)
    assert (check.verdict, check.node, check.rule) == (Verdict.REFUTED, 0, "R-STEAL-1")
    assert check.reason == "blue's canoe carries a gem here"


def test_the_encoding_checks_that_the_others_can_keep_their_canoes_empty(monkeypatch):
    # Without the witness turn, "some turn keeps the canoes empty" is not shown: the encoding finds a turn that
    # fills a canoe, and the leaf is refused with the lemma's rule. The lemma is asked, not assumed.
    pos = start_4p()
    search = Search(0, Goal.STEAL, 3, 60)
    cert = proof.certificate(search, pos, False)
    monkeypatch.setattr(certify, "_KEPT", {})  # no lemma proved earlier in this process
    monkeypatch.setattr(certify, "witness_turn", lambda relations, step: [])
    check = check_certificate(cert, timeout=300)
    assert (check.verdict, check.rule) == (Verdict.REFUTED, "R-PROP-10")
    assert check.reason.endswith("its canoes empty, may have no turn that keeps them so")


def empty_leaf_at_the_start() -> Certificate:
    """The certificate of "no steal within 3 rounds" made of the one leaf ``empty``, at phase II of a 4-player game
    with every canoe in the port (so that the position is checked as it stands, with no rescue before it)."""
    pos = position(*(P(name, "port", "port") for name in ("red", "blue", "green", "yellow")))
    cert = proof.certificate(Search(0, Goal.STEAL, 3, 60), pos, False)
    return dataclasses.replace(cert, nodes=(CNode("leaf", cert.nodes[0].at, claim="empty", value=False),))


def a_gem_appears(monkeypatch, kind: str, owner: Callable[[tuple], int]) -> None:
    """A planted bug in the encoding: the relation ``kind`` (turn, flow, rescue) ends with one gem more in the first
    canoe of the player ``owner(arguments)``; the lemmas are proved afresh."""
    real = getattr(Relations, kind)

    def bugged(self, *args, **kwargs):
        step = real(self, *args, **kwargs)
        cargo = [[list(canoe) for canoe in canoes] for canoes in step.post.cargo]
        q = owner(args)
        cargo[q][0][0] = cargo[q][0][0] + 1
        step.post = dataclasses.replace(step.post, cargo=cargo)
        return step
    monkeypatch.setattr(Relations, kind, bugged)
    monkeypatch.setattr(certify, "_KEPT", {})


@pytest.mark.parametrize("kind,owner,rule,reason", [
    # A turn that puts a gem into the next player's canoe (the acting player is the second argument).
    ("turn", lambda args: (args[1] + 1) % 4, "R-GEM-1", "can put a gem into another player's canoe"),
    ("flow", lambda args: 1, "R-FLOW-6", "the flow can put a gem into a canoe"),
    ("rescue", lambda args: 1, "R-RESCUE-1", "a rescue can put a gem into a canoe"),
])
def test_each_lemma_of_the_leaf_empty_is_asked_of_the_encoding(monkeypatch, kind, owner, rule, reason):
    # A relation that fills a canoe breaks "the others stay empty": the lemma that reads it refuses the leaf.
    cert = empty_leaf_at_the_start()
    a_gem_appears(monkeypatch, kind, owner)
    check = check_certificate(cert, timeout=300)
    assert (check.verdict, check.node, check.rule) == (Verdict.REFUTED, 0, rule)
    assert check.reason.endswith(reason)


def test_a_steal_from_an_empty_canoe_breaks_the_leaf_empty(monkeypatch):
    # The encoding's R-STEAL-1 without "the victim's canoe carries the gem" (a mutant of its rule group: the last
    # argument, has_gem, always true).
    rule = core.GROUPS["R-STEAL-1"]
    monkeypatch.setitem(core.GROUPS, "R-STEAL-1", lambda enc, *terms: rule(enc, *terms[:-1], z3.BoolVal(True)))
    monkeypatch.setattr(certify, "_KEPT", {})
    check = check_certificate(empty_leaf_at_the_start(), timeout=300)
    assert (check.verdict, check.node, check.rule) == (Verdict.REFUTED, 0, "R-STEAL-1")
    assert check.reason == "by the encoding red can steal while no other canoe carries a gem"
