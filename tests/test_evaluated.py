"""The encoding's relations evaluated at a pinned position (encoding/enumerate.py: ``Session.evaluate`` for the flow,
``IncrementalEnumerator.winners`` for the end check) against the same relations asked of a solver (``Enumerator``):
the same results on the positions of seeded games, and the engine's (R-FLOW-1..6, R-END-1..3); the engine's turns
confirmed on the incremental solver (``IncrementalEnumerator.check_turns``) against the fresh solvers'; phase I's
rescue decisions evaluated (``IncrementalEnumerator.rescues`` with the engine's claimed) against every model
enumerated; and written turns evaluated with every choice pinned against the solver's models."""

from __future__ import annotations

from typing import Any

import pytest

from helpers import P, position

from niagara_solver.encoding.enumerate import Enumerator, IncrementalEnumerator
from niagara_solver.encoding.relations import NAMES, Relations
from niagara_solver.engine.flow import flow_choices, flow_value
from niagara_solver.verify.crosscheck.compare import rescue_results
from niagara_solver.play.playout import random_playout
from niagara_solver.engine.turns import legal_turns
from niagara_solver.engine.round import winners
from niagara_solver.model.board import standard_board
from niagara_solver.model.atoms import Card
from niagara_solver.model.notation import Load, Turn, Unload
from niagara_solver.model.position import Player, Position
from niagara_solver.model.ruleset import PRESETS


@pytest.mark.parametrize("preset,players,seed", [("standard", 3, 7), ("bga-2013-05-09", 2, 8), ("flussgeister", 3, 9)])
def test_evaluated_flows_and_winners_equal_the_solvers_and_the_engines(preset, players, seed):
    rules = PRESETS[preset]
    relations = Relations(standard_board(), rules, players)
    evaluated, asked = IncrementalEnumerator(relations), Enumerator(relations)
    start = Position.initial([f"p{i}" for i in range(players)], ruleset=rules)
    ends = flows = 0
    last = None
    for k, record in enumerate(random_playout(start, seed, rounds=None, policy="greedy")):
        for pos in (record.start, record.end):
            if pos is last:
                continue  # the round starts with the very position the last one ended with: asked already
            assert evaluated.winners(pos) == asked.winners(pos) == winners(pos)
            ends += bool(winners(pos))
        last = record.end
        if k % 4:
            continue  # a flow every fourth round: the solver's reading of a flow takes a second
        before = record.before_flow
        engine = {o.position for o in flow_choices(before, flow_value(before))}
        assert evaluated.flows(before, None) == asked.flows(before, None) == engine
        flows += 1
    assert flows >= 5 and ends >= 1  # the games end: some end check names a winner


def _gem_actions_at_one_stop(turn: Turn) -> int:
    """The most loads and unloads a canoe of the turn makes one after the other, without moving."""
    most = 0
    for action in turn.actions:
        run = 0
        for step in action.steps:
            run = run + 1 if isinstance(step, (Load, Unload)) else 0
            most = max(most, run)
    return most


@pytest.mark.parametrize("preset,players,seed,first,stop", [("standard", 3, 11, 2, 2),
                                                            ("flussgeister-joe", 3, 12, 5, 4)])
def test_claimed_turns_confirmed_on_the_incremental_solver_equal_the_solvers(preset, players, seed, first, stop):
    # The engine's turns pinned on the incremental solver and the question for any other result
    # (IncrementalEnumerator.check_turns) give the outcome set the fresh solvers give (Enumerator.check_turns) and
    # the engine's, every third round from round ``first + 1``; on flussgeister-joe's seeded game a canoe holding the
    # moose makes four gem actions at one stop (X-MOOSE-2, gem_ops: ``stop``, asserted below). Its third round (225
    # turns near the port, plain paddling that the standard game's third round covers) took the fresh solvers 10 of
    # the test's 18 s and is left out.
    rules = PRESETS[preset]
    relations = Relations(standard_board(), rules, players)
    incremental, asked = IncrementalEnumerator(relations), Enumerator(relations)
    start = Position.initial([f"p{i}" for i in range(players)], ruleset=rules)
    cases = most = 0
    for k, record in enumerate(random_playout(start, seed, rounds=12, policy="greedy")):
        if k % 3 != 2 or k < first:
            continue
        pos, p = record.turns_start, record.turns[0].player
        for card in pos.players[p].hand[:3]:
            bare = pos.with_player(p, Player(pos.players[p].name, pos.players[p].canoes, pos.players[p].hand,
                                             pos.players[p].bank, None, None))
            claimed = {o.position: o.turn for o in legal_turns(bare, p, card)}
            found = incremental.check_turns(bare, p, card, claimed)
            assert set(found) == set(asked.check_turns(bare, p, card, claimed)) == set(claimed)
            cases += 1
            most = max([most, *(_gem_actions_at_one_stop(t) for t in claimed.values())])
    assert cases >= 6 and most >= stop, (cases, most)


@pytest.mark.parametrize("preset,players,seed", [("standard", 5, 31), ("bga-2013-05-09", 4, 32),
                                                 ("flussgeister", 6, 33)])
def test_claimed_rescues_evaluated_equal_every_model_enumerated(preset, players, seed):
    # R-RESCUE-1..3, X-DOUBLE-4: the engine's decisions pinned and the relation evaluated, then one question for any
    # other result (IncrementalEnumerator.rescues with claimed), give the outcome set that enumerating every model
    # gives, on the incremental solver and on fresh solvers (Enumerator.rescues), and the engine's.
    rules = PRESETS[preset]
    relations = Relations(standard_board(), rules, players)
    confirmed, enumerated, asked = (IncrementalEnumerator(relations), IncrementalEnumerator(relations),
                                    Enumerator(relations))
    start = Position.initial([f"p{i}" for i in range(players)], ruleset=rules)
    sizes = []
    for record in random_playout(start, seed, rounds=None, policy="greedy"):
        pos = record.start
        engine = rescue_results(pos)
        if len(engine) < 2:
            continue
        found = confirmed.rescues(pos, None, engine)
        assert found == enumerated.rescues(pos) == asked.rescues(pos) == set(engine)
        sizes.append(len(engine))
        if len(sizes) == 3:
            break
    assert len(sizes) == 3 and max(sizes) >= 4, sizes  # positions with several players' decisions to combine


def test_claimed_rescues_that_are_wrong_neither_add_nor_hide_a_result():
    # A result claimed that the rules do not give (a canoe back for free to a player with one in play, R-RESCUE-2)
    # is not confirmed; a result left out of the claim is still found; a result claimed with decisions that lead
    # elsewhere is confirmed by itself.
    import dataclasses

    from niagara_solver.model.notation import Rescue

    pos = position(P("a", "fallen", "4", bank={"ruby": 1, "sapphire": 1}),
                   P("b", "fallen", "fallen", bank={"amber": 1}), phase="cards")
    engine = rescue_results(pos)
    assert len(engine) == 3  # a: none, ruby or sapphire; b must pay amber for one canoe (R-RESCUE-2)
    a = pos.players[0]
    back = tuple(dataclasses.replace(c, place="port") if c.fallen else c for c in a.canoes)
    refused = pos.with_player(0, dataclasses.replace(a, canoes=back))  # back without paying
    for result in engine:  # b's payment, as in every result
        refused = refused.with_player(1, result.players[1])
        break
    assert refused not in engine
    first, *rest = engine
    claimed = {r: engine[r] for r in rest}  # the first result left out
    claimed[refused] = {0: Rescue((None,))}  # not a possible decision: a has a canoe in play
    mislabelled = next(r for r in rest if engine[r][0] != Rescue())
    claimed[mislabelled] = {0: Rescue(), 1: engine[mislabelled][1]}  # decisions that lead elsewhere
    found = IncrementalEnumerator(Relations.of(pos)).rescues(pos, None, claimed)
    assert found == set(engine)


def test_a_claimed_turn_the_rules_refuse_is_refused():
    # A turn of the 3 claimed with the 2 (R-MOVE-3: the budget is spent exactly): the encoding's outcomes are the
    # 2's alone.
    pos = position(P("a", "4", "port"), P("b", "port", "port"))
    incremental = IncrementalEnumerator(Relations.of(pos))
    two = {o.position: o.turn for o in legal_turns(pos, 0, Card.TWO)}
    three = legal_turns(pos, 0, Card.THREE)[0]
    found = incremental.check_turns(pos, 0, Card.TWO, {**two, three.position: three.turn})
    assert set(found) == set(two)


def _evaluated_is_solved(relations: Relations, pre: Any, step: Any, session: Any, pos: Position, p: int, card: Card,
                         turn: Any) -> bool:
    """A written turn evaluated with every choice pinned against the solver's model of its plain pins: the relation
    holds there, with the same position and steal. Returns whether the turn steals."""
    import z3

    from niagara_solver.encoding.enumerate import canoe_order

    order, problem = canoe_order(pos, p, turn)
    assert problem is None
    pinned = relations.pin(pre, pos)
    swap = step.swap == (order == (1, 0))
    evaluated = session.evaluate(pinned, [step.plays(card), swap, *relations.pin_turn(step, pos, card, turn,
                                                                                      every=True)], free=True)
    assert evaluated is not None and evaluated[0], turn
    with session.scope(*pinned, step.plays(card), swap, *relations.pin_turn(step, pos, card, turn)):
        assert session.check(None)
        model = session.model()
        assert relations.decode_position(evaluated[1], step.post, pos) == relations.decode_position(
            model, step.post, pos), turn
        steal = z3.is_true(model.eval(step.steals(), model_completion=True))
        assert z3.is_true(evaluated[1].eval(step.steals(), model_completion=True)) == steal
    return steal


@pytest.mark.parametrize("preset,players,seed", [("standard", 3, 21), ("bga-2013-05-09", 2, 22),
                                                 ("flussgeister-joe", 4, 23)])
def test_written_turns_evaluated_with_every_choice_pinned_equal_the_solvers_models(preset, players, seed):
    # A written turn with every choice pinned (the caves and alike victims too: pin_turn's ``every``) and what it
    # does not read at its default is evaluated rather than solved (Session.evaluate, ``free``; used by the
    # certificate check and the cross-check): for the engine's turns in seeded games, the relation holds there and
    # gives the position and the steal the solver's model of the plain pins gives (R-TURN-1, R-GEM-1, R-MOVE-4).
    from niagara_solver.encoding.enumerate import Session

    rules = PRESETS[preset]
    relations = Relations(standard_board(), rules, players)
    pre = relations.position("eval.turn")
    steps = {p: relations.turn(pre, p, f"eval.turn{p}", swap=True) for p in range(players)}
    sessions = {p: Session(step) for p, step in steps.items()}
    start = Position.initial([f"p{i}" for i in range(players)], ruleset=rules)
    turns = 0
    for record in random_playout(start, seed, rounds=10, policy="greedy"):
        pos, p = record.turns_start, record.turns[0].player
        me = pos.players[p]
        bare = pos.with_player(p, Player(me.name, me.canoes, me.hand, me.bank, None, None))
        for card in me.hand[:3]:
            for outcome in legal_turns(bare, p, card)[::3]:
                _evaluated_is_solved(relations, pre, steps[p], sessions[p], pos, p, card, outcome.turn)
                turns += 1
    assert turns >= 40


def test_steals_from_alike_canoes_evaluated_equal_the_solvers_models():
    # R-STEAL-2: b's two canoes on 3 both carry a ruby; a written steal names neither, and the evaluation takes the
    # first: the same position as the solver's model, whichever canoe that takes the ruby from.
    from niagara_solver.encoding.enumerate import Session

    pos = position(P("a", "4", "port"), P("b", "3:ruby", "3:ruby"), ruleset={"capacity": 2})
    relations = Relations.of(pos)
    pre = relations.position("eval.steal")
    step = relations.turn(pre, 0, "eval.steal", swap=True)
    session = Session(step)
    turns = legal_turns(pos, 0, Card.ONE)
    steals = [_evaluated_is_solved(relations, pre, step, session, pos, 0, Card.ONE, o.turn) for o in turns]
    assert steals == ["xb/ruby" in str(o.turn) for o in turns] and sum(steals) == 4


def test_a_written_turn_the_rules_refuse_does_not_hold_when_evaluated():
    # The 3's turn evaluated as the 2's (R-MOVE-3: the budget is spent exactly): the relation does not hold there,
    # and the solver finds no other choices that make it hold either.
    from niagara_solver.encoding.enumerate import Session

    pos = position(P("a", "4", "port"), P("b", "port", "port"))
    relations = Relations.of(pos)
    pre = relations.position("eval.refused")
    step = relations.turn(pre, 0, "eval.refused", swap=True)
    session = Session(step)
    three = legal_turns(pos, 0, Card.THREE)[0].turn
    pins = [step.plays(Card.TWO), step.swap == False, *relations.pin_turn(step, pos, Card.TWO, three)]  # noqa: E712
    evaluated = session.evaluate(relations.pin(pre, pos), [*pins[:2], *relations.pin_turn(step, pos, Card.TWO, three,
                                                                                          every=True)], free=True)
    assert evaluated is not None and not evaluated[0]
    with session.scope(*relations.pin(pre, pos), *pins):
        assert not session.check(None)


@pytest.mark.parametrize("preset,seed", [("standard", 41), ("bga-2013-05-09", 42)])
def test_claimed_round_starts_evaluated_equal_the_solvers(preset, seed, monkeypatch):
    # A whole round's claimed starts confirmed with every choice pinned and the relation evaluated (the rescue
    # decisions, each turn, each canoe order: IncrementalEnumerator.check_rounds given ``rescues``) give the set the
    # solver gives from the turns alone, and the engine's; with the rescue decisions wrong (nobody brings a canoe
    # back), the starts are still confirmed, by the solver.
    from niagara_solver.model.notation import Rescue
    from niagara_solver.verify.crosscheck.compare import CrossChecker

    rules = PRESETS[preset]
    checker = CrossChecker(standard_board(), rules)
    asked: list[tuple[Any, ...]] = []
    real = IncrementalEnumerator.check_rounds

    def spy(self: IncrementalEnumerator, *args: Any) -> Any:
        asked.append(args)
        return real(self, *args)
    monkeypatch.setattr(IncrementalEnumerator, "check_rounds", spy)
    start = Position.initial(list(NAMES[:2]), ruleset=rules)  # a round's results are named as the encoding's seats
    rounds = rescued = 0
    for record in random_playout(start, seed, rounds=None, policy="greedy"):
        pos = record.start
        cards = {i: p.card for i, p in enumerate(record.turns_start.players) if p.card is not None}
        case = checker.round(pos, cards)
        if case is None:
            continue
        pos_, cards_, paths, limit, _, decided = asked[-1]
        incremental = checker.incremental(2)
        plain = real(incremental, pos_, cards_, paths, limit, None, None)
        wrong = real(incremental, pos_, cards_, paths, limit, None, {s: {0: Rescue(), 1: Rescue()} for s in decided})
        assert set(case.encoding) == plain == wrong == set(case.engine)
        rounds += 1
        rescued += any(c.fallen for _, c in pos.canoes())
        if rounds == 6:
            break
    assert rounds == 6 and rescued >= 1
