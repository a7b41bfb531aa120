"""The steal goal's lower bound in the last round (solver/search.py ``Search._sure_steal``, docs/SOLVER.md "Cheap
bounds first"): where it claims that X steals whatever the players before X do, every play of theirs is tried and X's
card steals after each; and it saves the search the others' plays."""

from __future__ import annotations

import dataclasses
import json
from functools import lru_cache
from typing import Any

import pytest

from helpers import P, position
from niagara_solver.design.mine import themes_of
from niagara_solver.design.simulate import start_position
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import Card
from niagara_solver.model.board import standard_board
from niagara_solver.model.notation import Turn
from niagara_solver.model.position import Position
from niagara_solver.model.ruleset import PRESETS
from niagara_solver.play.playout import random_playout
from niagara_solver.solver.answers import Goal, has_steal
from niagara_solver.model.verdict import Verdict
from niagara_solver.solver.certificate import Certificate, Claim, CNode, NodeKind, loads_certificate
from niagara_solver.solver.certify import check_certificate
from niagara_solver.solver.proof import certificate
from niagara_solver.solver.search import PLAIN, Pruning, Search


def at_x(pos: Position, x: int) -> set[Position]:
    """Every position at X's turn this round, whatever the players before X play (their cards too)."""
    front = {pos}
    while (p := next(iter(front)).next_to_act()) != x:
        assert p is not None
        grown: set[Position] = set()
        for s in front:
            player = s.players[p]
            for c in player.playable:
                grown.update(o.position for o in legal_turns(s, p, c))
        front = grown
    return front


def x_steals_after_every_play(pos: Position, x: int) -> bool:
    card = pos.players[x].card
    return all(any(has_steal(o.turn) for o in legal_turns(s, x, card)) for s in at_x(pos, x))


@lru_cache(maxsize=None)
def rounds(players: int, seed: int) -> tuple[object, ...]:
    start = start_position(standard_board(), PRESETS["standard"], players)
    return tuple(random_playout(start, seed, 16, "lookahead"))


def test_the_claim_holds_on_the_positions_of_seeded_games() -> None:
    # Every phase II position of seeded 3- and 4-player games, each player still to act after some of the others
    # with the card it played: where the bound says yes, X's card steals after every play of those before X (with one
    # or two of them still to act: more make too many plays to try). It fires often enough to matter.
    claimed = checked = 0
    for players, seed in [(3, 5), (3, 6), (4, 11), (4, 0), (4, 1)]:
        for record in rounds(players, seed):
            states = [record.turns_start, *(t.after for t in record.turns)]
            for s in states:
                p = s.next_to_act()
                if p is None:
                    continue
                for x in range(players):
                    if x in s.acted or x == p:
                        continue
                    search = Search(x, Goal.STEAL, 1).values
                    if not search._sure_steal(s):
                        continue
                    claimed += 1
                    if len(search._before_x(s)) <= 2:
                        assert x_steals_after_every_play(s, x), (players, seed, s.round, x)
                        checked += 1
    assert claimed >= 10 and checked >= 8, (claimed, checked)


def test_a_gem_beyond_the_reach_of_those_before_x_is_stolen_whatever_they_do() -> None:
    # Red acts last with a 2: its empty canoe on 4 climbs onto 2 and takes green's amber (R-STEAL-1). Green has
    # acted, so its canoe stays; blue, still to act, has only port canoes, which only go down (R-MOVE-6).
    pos = position(P("blue", "port", "port"), P("green", "2:amber", "port", hand=[2], card=1),
                   P("red", "4", "port", card=2), lifebuoy="blue", acted=["green"])
    search = Search(2, Goal.STEAL, 1).values
    assert search._sure_steal(pos)
    assert x_steals_after_every_play(pos, 2)
    plain = Search(2, Goal.STEAL, 1, 60, pruning=PLAIN)
    pruned = Search(2, Goal.STEAL, 1, 60, pruning=Pruning(), _lines=False)
    assert plain.value(pos).value is pruned.value(pos).value is True
    assert pruned.nodes < plain.nodes
    # Green still to act before red: its canoe may paddle away with the amber (or bank it), so no claim.
    moving = position(P("blue", "port", "port"), P("green", "2:amber", "port"), P("red", "4", "port", card=2),
                      lifebuoy="blue")
    assert not Search(2, Goal.STEAL, 1).values._sure_steal(moving)
    # A canoe of blue on 3 may climb onto 2 with a 1 and take the amber first: no claim.
    thief = position(P("blue", "3", "port"), P("green", "2:amber", "port", hand=[2], card=1),
                     P("red", "4", "port", card=2), lifebuoy="blue", acted=["green"])
    assert not Search(2, Goal.STEAL, 1).values._sure_steal(thief)


# -- the certificate's leaf "sure-steal" (solver/proof.py writes it, solver/certify.py checks it) --------------------

def _forged(pos: Position, x: int, card: int | str, turn: str, value: bool = True) -> Certificate:
    """A "yes" certificate that is one ``sure-steal`` leaf at ``pos``: whatever it claims, the checker must show."""
    leaf = CNode(NodeKind.LEAF, 0, claim=Claim.SURE_STEAL, value=value, card=Card.parse(card), turn=Turn.parse(turn))
    return Certificate(x, Goal.STEAL, 1, True, (pos,), (leaf,))


def _sure() -> Position:
    """Red acts last with a 2; green (the victim) has acted; blue, still to act before red, has port canoes only."""
    return position(P("blue", "port", "port"), P("green", "2:amber", "port", hand=[2], card=1),
                    P("red", "4", "port", card=2), lifebuoy="blue", acted=["green"])


def test_the_certificate_stops_at_the_leaf_and_the_encoding_accepts_it(monkeypatch: pytest.MonkeyPatch) -> None:
    pos = _sure()
    search = Search(2, Goal.STEAL, 1, 60)
    assert search.value(pos).value
    proof = certificate(search, pos, True)
    [leaf] = proof.nodes
    assert (leaf.claim, leaf.value, leaf.card, str(leaf.turn)) == (Claim.SURE_STEAL, True, Card.parse(2),
                                                                  "4: <2 xgreen/amber")
    assert loads_certificate(json.dumps(proof.to_json())) == proof  # the file keeps the card and the turn
    check = check_certificate(proof)
    assert check.verdict is Verdict.CONFIRMED, check.text()
    # Without the leaf (nor an any-steal leaf) the certificate spells out blue's plays, and is accepted too.
    from niagara_solver.solver import proof as proof_module
    monkeypatch.setattr(Search, "sure_steal_turn", lambda self, pos, robbed=False: None)
    monkeypatch.setattr(proof_module._Writer, "any_steal", lambda self, pos, p, left: (False, None))
    spelled = certificate(Search(2, Goal.STEAL, 1, 60), pos, True)
    assert len(spelled.nodes) > 1 and all(n.claim is not Claim.SURE_STEAL for n in spelled.nodes)
    assert check_certificate(spelled).verdict is Verdict.CONFIRMED


@pytest.mark.parametrize("players, card, turn, value, rule, words", [
    # A canoe of blue on 3 may climb onto 2 with its 1 and take the amber before red acts.
    ([P("blue", "3", "port", hand=[1]), P("green", "2:amber", "port", hand=[2], card=1), P("red", "4", "port", card=2)],
     2, "4: <2 xgreen/amber", True, "R-STEAL-1", "a turn of blue may take a gem"),
    # Green, the victim, acts before red: it may paddle away with the amber.
    ([P("blue", "port", "port"), P("green", "2:amber", "port", hand=[2]), P("red", "4", "port", card=2)],
     2, "4: <2 xgreen/amber", True, "R-STEAL-1", "robs green, who acts before it"),
    # Red's canoe must unload its ruby first (R-STEAL-5), and blue's canoe on 5 may take the ruby with its 1.
    ([P("blue", "5", "port", hand=[1]), P("green", "2:amber", "port", hand=[2], card=1),
      P("red", "4:ruby", "port", card=4)],
     4, "4: -ruby <2 xgreen/amber", True, "R-STEAL-1", "is not allowed or steals nothing"),
    # The turn steals nothing.
    ([P("blue", "port", "port"), P("green", "2:amber", "port", hand=[2], card=1), P("red", "4", "port", card=2)],
     2, "4: <2", True, "R-STEAL-1", "does not steal"),
    # Not red's card.
    ([P("blue", "port", "port"), P("green", "2:amber", "port", hand=[2], card=1), P("red", "4", "port", card=2)],
     3, "4: <1", True, "R-CARD-2", "no turn with the 3"),
    # A turn the rules forbid: a 2 does not climb three discs (R-MOVE-3).
    ([P("blue", "port", "port"), P("green", "1:amber", "port", hand=[2], card=1), P("red", "4", "port", card=2)],
     2, "4: <1 xgreen/amber", True, "R-MOVE-3", "does not allow"),
    # The leaf stands for a steal: "false" is not its word.
    ([P("blue", "port", "port"), P("green", "2:amber", "port", hand=[2], card=1), P("red", "4", "port", card=2)],
     2, "4: <2 xgreen/amber", False, "R-STEAL-1", "stands for a steal"),
])
def test_a_forged_sure_steal_leaf_is_refused(players: list[Any], card: int, turn: str, value: bool, rule: str,
                                             words: str) -> None:
    acted = ["green"] if players[1].get("card") is not None else []
    pos = position(*players, lifebuoy="blue", acted=acted)
    check = check_certificate(_forged(pos, 2, card, turn, value))
    assert check.verdict is Verdict.REFUTED and check.rule == rule and words in check.reason, check.text()


def test_a_search_that_claims_too_much_writes_a_leaf_the_checker_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    # A planted bug in the bound: any steal of X's card counts as sure. Green, still to act before red, paddles
    # away with its amber.
    pos = position(P("blue", "port", "port"), P("green", "2:amber", "port", hand=[2]), P("red", "4", "port", card=2),
                   lifebuoy="blue")
    monkeypatch.setattr(Search, "sure_steal_turn", lambda self, at, robbed=False: next(
        (o.turn for o in legal_turns(at, 2, at.players[2].card) if has_steal(o.turn)), None)
        if at.players[2].card is not None and 2 not in at.acted else None)
    assert Search(2, Goal.STEAL, 1, 60, pruning=PLAIN).value(pos).value is False  # the bug only claims it
    proof = certificate(Search(2, Goal.STEAL, 1, 60), pos, True)
    assert proof.nodes[0].claim is Claim.SURE_STEAL
    check = check_certificate(proof)
    assert check.verdict is Verdict.REFUTED and "robs green, who acts before it" in check.reason, check.text()


def test_a_thief_robbed_first_keeps_the_leaf_out() -> None:
    # Yellow's canoe on 3 carries a ruby: as it stands it cannot steal (R-STEAL-1). Blue may take the ruby first
    # with its 2, and yellow's empty canoe then climbs onto 2 with its 1 and takes the amber. The search's bound
    # counts the canoe as it stands; the leaf is written only where each count of its gems is out of reach too, as
    # the checker reads it, and the certificate spells out the plays here (red still steals, from yellow then).
    pos = position(P("blue", "5", "port", hand=[2]), P("yellow", "3:ruby", "port", hand=[1]),
                   P("green", "2:amber", "port", hand=[2], card=1), P("red", "4", "port", card=2),
                   lifebuoy="blue", acted=["green"])
    search = Search(3, Goal.STEAL, 1, 60)
    assert search.values.sure_steal_turn(pos) is not None and search.values.sure_steal_turn(pos, robbed=True) is None
    assert search.value(pos).value
    proof = certificate(search, pos, True)
    assert all(n.claim is not Claim.SURE_STEAL for n in proof.nodes)
    assert check_certificate(proof).verdict is Verdict.CONFIRMED
    forged = check_certificate(_forged(pos, 3, 2, "4: <2 xgreen/amber"))
    assert forged.verdict is Verdict.REFUTED and "a turn of yellow may take a gem" in forged.reason, forged.text()


# -- the certificate's leaf "any-steal": one of X's turns listed steals after every play of those before X --------

def _any(pos: Position, x: int, card: int, turns: list[str], value: bool = True) -> Certificate:
    """A "yes" certificate that is one ``any-steal`` leaf at ``pos``, each turn written at ``pos``."""
    leaf = CNode(NodeKind.LEAF, 0, claim=Claim.ANY_STEAL, value=value, card=Card.parse(card),
                 turns=tuple((Turn.parse(t), 0) for t in turns))
    return Certificate(x, Goal.STEAL, 1, True, (pos,), (leaf,))


def _thief() -> Position:
    """Blue's canoe on 3 may climb onto 2 with its 1 and take green's amber before red acts: it then sits on 2 with
    the amber, and red takes it from blue."""
    return position(P("blue", "3", "port", hand=[1]), P("green", "2:amber", "port", hand=[2], card=1),
                    P("red", "4", "port", card=2), lifebuoy="blue", acted=["green"])


def test_the_certificate_lists_x_turns_in_an_any_steal_leaf_and_the_encoding_accepts_it() -> None:
    pos = _thief()
    search = Search(2, Goal.STEAL, 1, 60)
    assert search.value(pos).value and search.values.sure_steal_turn(pos, robbed=True) is None
    proof = certificate(search, pos, True)
    [leaf] = proof.nodes
    assert leaf.claim is Claim.ANY_STEAL and leaf.card == Card.parse(2)
    assert sorted(str(t) for t, _ in leaf.turns) == ["4: <2 xblue/amber", "4: <2 xgreen/amber"]
    assert loads_certificate(json.dumps(proof.to_json())) == proof  # the file keeps the turns and their positions
    check = check_certificate(proof)
    assert check.verdict is Verdict.CONFIRMED, check.text()
    assert themes_of(proof, [], pos) == ["R-STEAL-1"]


def test_an_any_steal_leaf_missing_the_turn_one_play_needs_is_refused() -> None:
    # The writer lists both of red's steals (above); without the steal from blue, blue's steal of the amber leaves red
    # nothing listed.
    pos = _thief()
    one = check_certificate(_any(pos, 2, 2, ["4: <2 xgreen/amber"]))
    assert one.verdict is Verdict.REFUTED and one.rule == "R-STEAL-1", one.text()
    # (What blue's port canoe does in that play is the model's choice: it depends on what else z3 was asked before.)
    assert "after blue's turn \"" in one.reason and "3: <2 xgreen/amber" in one.reason
    assert "none of red's turns" in one.reason


@pytest.mark.parametrize("players, card, turns, value, rule, words", [
    # Green, the victim, acts before red: it may paddle away with the amber (or bank it).
    ([P("blue", "port", "port"), P("green", "2:amber", "port", hand=[2]), P("red", "4", "port", card=2)],
     2, ["4: <2 xgreen/amber"], True, "R-STEAL-1", "none of red's turns"),
    # A turn the rules forbid: a 2 does not climb three discs (R-MOVE-3).
    ([P("blue", "port", "port"), P("green", "1:amber", "port", hand=[2], card=1), P("red", "4", "port", card=2)],
     2, ["4: <1 xgreen/amber"], True, "R-MOVE-3", "does not allow"),
    # The turn steals nothing.
    ([P("blue", "port", "port"), P("green", "2:amber", "port", hand=[2], card=1), P("red", "4", "port", card=2)],
     2, ["4: <2"], True, "R-STEAL-1", "none of red's turns"),
    # Not red's card.
    ([P("blue", "port", "port"), P("green", "2:amber", "port", hand=[2], card=1), P("red", "4", "port", card=2)],
     3, ["4: <1"], True, "R-CARD-2", "no turn with the 3"),
    # The leaf stands for a steal: "false" is not its word.
    ([P("blue", "port", "port"), P("green", "2:amber", "port", hand=[2], card=1), P("red", "4", "port", card=2)],
     2, ["4: <2 xgreen/amber"], False, "R-STEAL-1", "stands for a steal"),
])
def test_a_forged_any_steal_leaf_is_refused(players: list[Any], card: int, turns: list[str], value: bool, rule: str,
                                            words: str) -> None:
    acted = ["green"] if players[1].get("card") is not None else []
    pos = position(*players, lifebuoy="blue", acted=acted)
    check = check_certificate(_any(pos, 2, card, turns, value))
    assert check.verdict is Verdict.REFUTED and check.rule == rule and words in check.reason, check.text()


def test_a_writer_that_lists_too_few_turns_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # A planted bug in the writer: the first steal found at X's first position is taken for every position.
    from niagara_solver.solver import proof as proof_module
    pos = _thief()
    real = proof_module._Writer.any_steal

    def first_only(self: Any, at: Position, p: int, left: int) -> Any:
        walked, made = real(self, at, p, left)
        if made is not None:
            leaf = self.nodes[made]
            self.nodes[made] = dataclasses.replace(leaf, turns=tuple(t for t in leaf.turns
                                                                     if str(t[0]) == "4: <2 xgreen/amber"))
        return walked, made
    monkeypatch.setattr(proof_module._Writer, "any_steal", first_only)
    check = check_certificate(certificate(Search(2, Goal.STEAL, 1, 60), pos, True))
    assert check.verdict is Verdict.REFUTED and "none of red's turns" in check.reason, check.text()


# -- the search's wider bound: the gem stays on its disc, with its owner or a thief ------------------------------------

def test_a_gem_taken_first_by_a_thief_stays_on_its_disc_and_is_stolen_anyway() -> None:
    # Blue's canoe on 3 may climb onto 2 with its 1 and take green's amber before red acts: the sure steal does not
    # hold. But blue's canoe then stays on 2 with the amber (R-STEAL-3), and red's 2 takes it from blue there
    # (R-STEAL-4): the steal stays sure, and the search says so at once, with the plain search's value.
    pos = _thief()
    search = Search(2, Goal.STEAL, 1).values
    assert not search._sure_steal(pos) and search._steal_stays(pos)
    assert x_steals_after_every_play(pos, 2)
    node = search._bound(pos, pos.next_to_act(), 1)
    assert node is not None and node.value and node.reason is not None and node.reason.kind == "steal-stays"
    assert node.reason.text() == ("X's card steals whatever the players before it do: the gem stays on its disc, "
                                  "with its owner or with whoever steals it first (R-STEAL-1, R-STEAL-4)")
    plain = Search(2, Goal.STEAL, 1, 60, pruning=PLAIN)
    pruned = Search(2, Goal.STEAL, 1, 60, pruning=Pruning(), _lines=False)
    assert plain.value(pos).value is pruned.value(pos).value is True and pruned.nodes < plain.nodes
    # Green, the victim, still to act before red: it may paddle away with the amber (or bank it), so no claim.
    moving = position(P("blue", "3", "port", hand=[1]), P("green", "2:amber", "port", hand=[2]),
                      P("red", "4", "port", card=2), lifebuoy="blue")
    assert not Search(2, Goal.STEAL, 1).values._steal_stays(moving)


def test_the_wider_claim_holds_on_the_positions_of_seeded_games() -> None:
    # As for the sure steal: every phase II position of seeded 3- and 4-player games where the wider bound claims a
    # steal the sure steal does not, X's card steals after every play of those before X (one or two of them).
    claimed = checked = 0
    for players, seed in [(3, 5), (3, 6), (4, 11), (4, 0), (4, 1)]:
        for record in rounds(players, seed):
            for s in [record.turns_start, *(t.after for t in record.turns)]:
                p = s.next_to_act()
                if p is None:
                    continue
                for x in range(players):
                    if x in s.acted or x == p:
                        continue
                    search = Search(x, Goal.STEAL, 1).values
                    if not search._steal_stays(s) or search._sure_steal(s):
                        continue
                    claimed += 1
                    if len(search._before_x(s)) <= 2:
                        assert x_steals_after_every_play(s, x), (players, seed, s.round, x)
                        checked += 1
    assert claimed >= 5 and checked >= 4, (claimed, checked)
