"""The safe goal's last-round leaf checked by parts (solver/certify.py, ``losses_fit``; docs/SOLVER.md, "Certified
answers"): each other player's turn and the flow bounded apart, over sets of positions the frame lemma vouches for,
instead of one question over the chain of all of them per position.

Each fact of the frame lemma has a planted bug that breaks it (the lemma is asked of the encoding, not assumed);
the bounds give the chain's word wherever they decide (generated leaves of seeded games); and a leaf the parts
cannot show is left to the chain, never accepted by them.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable

import pytest
import z3

from helpers import P, position
from niagara_solver.encoding.relations import Relations
from niagara_solver.encoding.solver import make_preprocessing_solver
from niagara_solver.model.atoms import Card
from niagara_solver.model.position import Position
from niagara_solver.model.verdict import Verdict
from niagara_solver.solver import certify, proof
from niagara_solver.solver.answers import Goal, x_gems
from niagara_solver.solver.certificate import Certificate
from niagara_solver.solver.certify import _Checker, _most_taken, check_certificate
from niagara_solver.solver.search import Search


def certificate_of(pos: Position, x: int, horizon: int = 1) -> Certificate:
    search = Search(x, Goal.SAFE, horizon, 120)
    value = search.value(pos).value
    assert value is not None
    return proof.certificate(search, pos, value)


def far_from_thieves() -> Position:
    """Red's ruby on disc 2, red to act first with a 1; blue's canoes in the port, with a 2: blue cannot paddle up
    to red, and the flow (1 + calm weather) keeps red's canoe on the river. Red keeps every gem."""
    return position(P("red", "2:ruby", "port", card=1), P("blue", "port", "port", card=2), lifebuoy="red")


def under_a_thief() -> Position:
    """Red has acted and left its ruby on disc 3; blue's empty canoe is on disc 5 with a 2 and a 3 in hand: blue may
    paddle up two discs and steal the ruby (R-STEAL-1)."""
    return position(P("red", "3:ruby", "1", card=1, hand=[2, 3, 4, 5, 6, "cloud"]),
                    P("blue", "5", "port", hand=[2, 3]), lifebuoy="red", acted=["red"])


# -- the arithmetic of the bound ------------------------------------------------------------------------------------

@pytest.mark.parametrize("carried, steps, most", [
    ((1, 1), [((0, 0), 0), ((0, 0), 0)], 0),
    ((1, 1), [((0, 1), 1), ((1, 0), 1)], 2),         # one step takes each canoe's gem
    ((1, 0), [((1, 0), 1), ((1, 0), 1)], 1),         # a canoe loses at most what it carries
    ((1, 1), [((1, 1), 1), ((0, 0), 0)], 1),         # one step takes from either canoe, not from both
    ((2, 1), [((2, 1), 2), ((1, 0), 1)], 3),
])
def test_the_most_a_sequence_of_steps_takes(carried, steps, most):
    assert _most_taken(carried, steps) == most


# -- the leaf decided by parts --------------------------------------------------------------------------------------

def test_a_safe_leaf_out_of_every_reach_is_accepted_without_the_chain(monkeypatch):
    cert = certificate_of(far_from_thieves(), 0)
    assert cert.answer is True
    rests = [n for n in cert.nodes if n.kind == "leaf" and n.claim == "rest"]
    assert rests, "the certificate ends in the rest of the round"
    monkeypatch.setattr(_Checker, "chain", lambda self, order: pytest.fail("the chain was asked"))
    check = check_certificate(cert, timeout=300)
    assert check.verdict is Verdict.CONFIRMED, check.reason


@functools.cache
def far_certificate() -> Certificate:
    """The certificate of red's safe goal at :func:`far_from_thieves`, found once (the engine's search alone: a bug
    planted in the encoding leaves it as it is; a certificate is frozen)."""
    return certificate_of(far_from_thieves(), 0)


def checker() -> _Checker:
    """A checker for red's safe goal in two-player games of the base game (the certificate of :func:`far_from_thieves`
    gives it; its relations serve any position of that kind)."""
    return _Checker(far_certificate(), 300)


def chain_says(check: _Checker, pos: Position, order: tuple[int, ...], baseline: int) -> bool:
    """The chain's word on the leaf: True where the others' turns and the flow cannot bring red below ``baseline``."""
    pre, pins, defeated = check.chain(order)
    solver = make_preprocessing_solver()
    solver.add(defeated, *check.relations.pin(pre, pos), *pins(pos, baseline))
    return solver.check() == z3.unsat


def test_a_steal_within_reach_is_not_shown_by_parts_and_the_chain_finds_it():
    pos, check = under_a_thief(), checker()
    assert check.losses_fit(0, pos, (1,), 0) is False
    assert chain_says(check, pos, (1,), x_gems(pos, 0)) is False  # blue's 2 steals the ruby
    # With a gem to spare (red had one gem fewer when its turn began), the steal is within the slack.
    assert check.losses_fit(0, pos, (1,), 1) is True
    assert chain_says(check, pos, (1,), x_gems(pos, 0) - 1) is True


def test_the_bounds_of_a_steal_are_by_the_card_played():
    pos, check = under_a_thief(), checker()
    ruby = tuple(int(bool(c.gems)) for c in pos.players[0].canoes)  # per canoe of red, in the position's order
    assert check.step_loss(pos, 1, None) == (ruby, 1)
    assert check.step_loss(pos, 1, Card.TWO) == (ruby, 1)      # up two discs onto red's canoe
    assert check.step_loss(pos, 1, Card.THREE) == ((0, 0), 0)  # three discs: past it


# -- the frame lemma, asked of the encoding ----------------------------------------------------------------------

def planted(monkeypatch, change: Callable[[Any, Any, int, int], Any]) -> None:
    """A planted bug in the encoding: every turn's resulting position changed by ``change(step, post, acting,
    other)`` (two players: ``other`` is the one not acting); the lemmas are proved afresh."""
    real = Relations.turn

    def bugged(self, *args, **kwargs):
        step = real(self, *args, **kwargs)
        acting = args[1] if len(args) > 1 else kwargs.get("player", 0)
        step.post = change(step, step.post, acting, 1 - acting)
        return step
    monkeypatch.setattr(Relations, "turn", bugged)
    monkeypatch.setattr(certify, "_KEPT", {})


def _rows(rows: list[list[Any]], p: int, k: int, value: Any) -> list[list[Any]]:
    out = [list(row) for row in rows]
    out[p][k] = value
    return out


BUGS = {
    "moves another player's canoe":
        lambda step, post, a, o: dataclasses.replace(post, place=_rows(post.place, o, 0, post.place[o][0] + 1)),
    "puts a gem into another player's canoe":
        lambda step, post, a, o: dataclasses.replace(post, cargo=[[list(c) for c in p] for p in post.cargo[:o]] + [
            [[post.cargo[o][0][0] + 1, *post.cargo[o][0][1:]], list(post.cargo[o][1])]] + [
            [list(c) for c in p] for p in post.cargo[o + 1:]]),
    "changes another player's hand":
        lambda step, post, a, o: dataclasses.replace(post, hand=_rows(post.hand, o, 0, z3.Not(post.hand[o][0]))),
    "changes another player's card":
        lambda step, post, a, o: dataclasses.replace(post, card=[c + (p == o) for p, c in enumerate(post.card)]),
    "moves the weather without a cloud":
        lambda step, post, a, o: dataclasses.replace(post, weather=post.weather + 1),
    "keeps the card played off the table":
        lambda step, post, a, o: dataclasses.replace(post, card=[c + (p == a) for p, c in enumerate(post.card)]),
    "switches the fork marker":
        lambda step, post, a, o: dataclasses.replace(post, marker={f: 1 - m for f, m in post.marker.items()}),
    "leaves a position that is not well formed":
        lambda step, post, a, o: dataclasses.replace(post, cave=_rows(post.cave, 0, 0, post.cave[0][0] + 1)),
}


def test_the_frame_of_a_turn_and_of_the_flow_hold_in_the_base_game():
    check = checker()
    assert check.frame(0) is True and check.frame(1) is True and check.flow_frame() is True


def test_a_flow_that_leaves_a_canoe_below_no_gems_breaks_its_frame(monkeypatch):
    real = Relations.flow

    def bugged(self, *args, **kwargs):
        step = real(self, *args, **kwargs)
        cargo = [[list(c) for c in p] for p in step.post.cargo]
        cargo[1][0][2] = cargo[1][0][2] - 1
        step.post = dataclasses.replace(step.post, cargo=cargo)
        return step
    monkeypatch.setattr(Relations, "flow", bugged)
    monkeypatch.setattr(certify, "_KEPT", {})
    assert checker().flow_frame() is False


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_each_fact_of_the_frame_is_asked_of_the_encoding(monkeypatch, bug):
    planted(monkeypatch, BUGS[bug])
    assert checker().frame(1) is False


def red_acted_far_from_thieves() -> Position:
    return position(P("red", "2:ruby", "1", card=1, hand=[2, 3]), P("blue", "port", "port", card=2), lifebuoy="red",
                    acted=["red"])


def test_the_parts_show_the_leaf_only_with_the_frame(monkeypatch):
    assert checker().losses_fit(0, red_acted_far_from_thieves(), (1,), 0) is True
    planted(monkeypatch, BUGS["moves another player's canoe"])
    assert checker().losses_fit(0, red_acted_far_from_thieves(), (1,), 0) is False


@pytest.mark.parametrize("canoe, bound", [(1, ((0, 1), 1)), (0, None)])
def test_a_flow_that_takes_a_gem_is_seen_by_its_bound(monkeypatch, canoe, bound):
    # A planted bug: the flow takes an amethyst from red's canoe ``canoe`` (in the position's order: 0 on disc 1,
    # empty; 1 on disc 2, with the amethyst). The flow's bound reads it: one gem from the amethyst's canoe, or no
    # bound at all where it would take more than the canoe holds. Either way the leaf is left to the chain.
    real = Relations.flow

    def bugged(self, *args, **kwargs):
        step = real(self, *args, **kwargs)
        cargo = [[list(c) for c in p] for p in step.post.cargo]
        cargo[0][canoe][0] = cargo[0][canoe][0] - 1
        step.post = dataclasses.replace(step.post, cargo=cargo)
        return step
    monkeypatch.setattr(Relations, "flow", bugged)
    monkeypatch.setattr(certify, "_KEPT", {})
    check = checker()
    after = position(P("red", "2:amethyst", "1", card=1, hand=[2, 3]), P("blue", "port", "port", card=2),
                     lifebuoy="red", acted=["red"])
    assert [c.place for c in after.players[0].canoes] == ["1", "2"]
    assert check.flow_loss(after, (1,), None) == bound
    assert check.losses_fit(0, after, (1,), 0) is False


# -- the parts against the chain, on leaves of seeded games --------------------------------------------------------

def seeded_positions() -> list[tuple[Position, int]]:
    """Start-of-round positions of seeded 3-player games (the greedy policy), with the player asked about: seed 3
    round 9, seed 8 rounds 4 and 9, whose safe certificates end in 241 leaves of the last round."""
    from niagara_solver.play.playout import random_playout
    out = []
    for seed, rounds in ((3, (9,)), (8, (4, 9))):
        start = Position.initial(["p0", "p1", "p2"])
        for record in random_playout(start, seed, rounds=max(rounds), policy="greedy"):
            if record.start.round in rounds:
                out.append((record.start, record.start.round % 3))
    return out


def test_wherever_the_parts_show_a_leaf_the_chain_agrees(monkeypatch):
    leaves: list[tuple[_Checker, Position, tuple[int, ...], int, bool]] = []
    real = _Checker.losses_fit

    def recorded(self, i, pos, order, slack):
        fits = real(self, i, pos, order, slack)
        leaves.append((self, pos, order, slack, fits))
        return fits
    monkeypatch.setattr(_Checker, "losses_fit", recorded)
    for pos, x in seeded_positions():
        cert = certificate_of(pos, x)
        assert check_certificate(cert, timeout=300).verdict is Verdict.CONFIRMED
    shown = [leaf for leaf in leaves if leaf[4]]
    assert len(shown) >= 200, f"only {len(shown)} of {len(leaves)} leaves shown by parts"
    for check, pos, order, slack, _ in shown[::12]:  # one in twelve: a chain question takes a tenth of a second or more
        assert chain_says(check, pos, order, x_gems(pos, check.x) - slack), pos


# -- phase I with nobody to rescue ---------------------------------------------------------------------------------

def test_phase_one_with_no_fallen_canoe_is_the_encodings_own_outcome():
    # The checker takes the position as phase I's only outcome where no canoe is fallen (a lemma, proved once); the
    # encoding's outcome set says the same at every such start of a round of a seeded game.
    from niagara_solver.play.playout import random_playout
    assert checker().rescue_frame() is True
    starts = [record.start for seed in (3, 8, 11)
              for record in random_playout(Position.initial(["p0", "p1", "p2"]), seed, rounds=12, policy="greedy")]
    calm = [pos for pos in starts if not any(c.place == "fallen" for p in pos.players for c in p.canoes)]
    assert len(calm) >= 6
    enumerator = certify._kept(calm[0]).enumerator
    for pos in calm:
        assert enumerator.rescues(pos) == {pos}


def test_a_rescue_that_pays_without_a_fallen_canoe_breaks_that_lemma(monkeypatch):
    real = Relations.rescue

    def bugged(self, *args, **kwargs):
        step = real(self, *args, **kwargs)
        bank = [list(row) for row in step.post.bank]
        bank[0][0] = bank[0][0] + 1
        step.post = dataclasses.replace(step.post, bank=bank)
        return step
    monkeypatch.setattr(Relations, "rescue", bugged)
    monkeypatch.setattr(certify, "_KEPT", {})
    assert checker().rescue_frame() is False


@pytest.mark.parametrize("preset", ["flussgeister", "flussgeister-joe"])
def test_the_lemmas_hold_with_the_expansion(preset):
    double = {"kind": "double", "at": "port"}
    pos = position(P("red", "port", double, card=1), P("blue", "port", double, card=2), P("green", "port", double),
                   lifebuoy="red", ruleset=preset)
    check = _Checker(certificate_of(pos, 0), 300)
    assert (check.frame(1), check.frame(2), check.flow_frame(), check.rescue_frame()) == (True, True, True, True)
