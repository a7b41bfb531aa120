"""``niagara-solve prove``: check the property catalogue for all valid positions, with counterexamples.

For each phase (I rescues, II one player's turn, III the flow) the relation is built once and asserted in
one solver with the well-formedness of the position before it; each property is then checked under
push/pop as "is there a position and choices breaking it?": unsat is PROVED, sat is REFUTED (the model is
decoded into a position file and the choices into a trace the engine replays), anything else UNKNOWN.

Symmetry: the player taking the turn is player 0 and holds the lifebuoy; every seat is the same up to
renaming, so this covers every player of every position.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from niagara_solver.model.board import Board
from niagara_solver.engine.apply import apply_turn
from niagara_solver.engine.flow import flow_detail, flow_value
from niagara_solver.engine.rescue import apply_rescue
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.errors import NiagaraError
from niagara_solver.model.format import position_to_json
from niagara_solver.model.limits import out_of_time, time_limit
from niagara_solver.encoding.relations import (NAMES, Model, Mutant, Question, Relations, Sat, SymPosition,
                                               TurnStep, value, verdict)
from niagara_solver.encoding.witness import witness_by_card, witness_turn
from niagara_solver.model.verdict import PROOF, Verdict
from niagara_solver.model.atoms import COLOURS, Card, Phase
from niagara_solver.model.invariants import position_problems
from niagara_solver.model.notation import Turn
from niagara_solver.model.position import Player, Position
from niagara_solver.model.ruleset import Ruleset
from niagara_solver.model.switches import SwitchPhase
from niagara_solver.verify.properties import (BY_ID, CATALOGUE, FLOW, RESCUE, TURN, Context, Property,
                                              catalogue_for, not_applicable)

#: How many turns R-PROP-10's check adds to the witness where the witness fails but a turn exists, before it
#: answers UNKNOWN (each is a copy of the turn relation with its choices fixed).
WITNESS_ROUNDS = 16


@dataclass
class Counterexample:
    """A position file and the choices of the phase that break a property, as the engine sees them."""

    phase: SwitchPhase
    position: Position
    after: Position
    choices: str
    trace: list[str]
    replay: str
    #: A flow's number of steps and the branch each step's disc took at each fork it passed (R-FLOW-3).
    steps: int | None = None
    branches: list[tuple[tuple[str, str], ...]] | None = None
    #: A turn's: the turn taken and its player (the picture draws the acting canoes' way).
    turn: Turn | None = None
    player: int | None = None


@dataclass
class PropertyResult:
    """The verdict on one property; ``None`` when the property does not apply under the ruleset (a property of
    an expansion module that is off), ``reason`` saying why."""

    id: str
    title: str
    verdict: Verdict | None
    seconds: float
    method: str
    rules: tuple[str, ...]
    phases: tuple[SwitchPhase, ...]
    counterexample: Counterexample | None = None
    note: str = ""
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "title": self.title, "verdict": PROOF.word(self.verdict),
                               "seconds": round(self.seconds, 3), "method": self.method,
                               "depends_on": list(self.rules), "phases": [p.value for p in self.phases]}
        if self.reason:
            out["reason"] = self.reason
        if self.note:
            out["note"] = self.note
        if self.counterexample is not None:
            ce = self.counterexample
            out["counterexample"] = position_to_json(ce.position)
            out["after"] = position_to_json(ce.after)
            out["choices"] = ce.choices
            out["trace"] = ce.trace
            out["replay"] = ce.replay
            if ce.steps is not None:
                out["flow"] = {"steps": ce.steps, "branches": None if ce.branches is None
                               else [[list(choice) for choice in step] for step in ce.branches]}
            if ce.turn is not None and ce.player is not None:
                out["turn"] = {"player": ce.position.players[ce.player].name, "turn": str(ce.turn)}
        return out


@dataclass
class _Phase:
    """One phase's relation from a well-formed position, asserted in its own solver."""

    name: SwitchPhase
    step: Any  # a TurnStep, FlowStep or RescueStep
    question: Question
    context: Context
    base: Position

    @property
    def pre(self) -> SymPosition:
        return self.step.pre


class Prover:
    """The relations of one (board, ruleset, players, mutant), built once, checked property by property."""

    def __init__(self, board: Board, rules: Ruleset, players: int, mutant: Mutant | None = None,
                 timeout: float | None = None) -> None:
        rules.check_players([players])  # R-COMP-1, X-SIX-1, X-GEMS-1
        self.relations = Relations(board, rules, players, mutant)
        self.enc = self.relations.enc
        self.rules = rules
        self.board = board
        self.players = players
        self.timeout = timeout
        self._phases: dict[SwitchPhase, _Phase] = {}
        self.build_seconds = 0.0

    def phase(self, name: SwitchPhase) -> _Phase:
        if name not in self._phases:
            start = time.perf_counter()
            self._phases[name] = self._build(name)
            self.build_seconds += time.perf_counter() - start
        return self._phases[name]

    def _build(self, name: SwitchPhase) -> _Phase:
        relations, n = self.relations, self.players
        pre = relations.position(f"{name}.pre")
        names = list(NAMES[:n])
        base = Position.initial(names, self.board, self.rules)
        step: Any
        if name is TURN:
            step = relations.turn(pre, 0, "turn")
            wf = relations.well_formed(pre, Phase.TURNS, to_act=0)
            base = base.replace(phase=Phase.TURNS)
        elif name is FLOW:
            step = relations.flow(pre, "flow")
            wf = relations.well_formed(pre, Phase.TURNS, all_acted=True)
            base = base.replace(phase=Phase.TURNS, acted=tuple(range(n)))
        else:
            step = relations.rescue(pre, "rescue")
            wf = relations.well_formed(pre, Phase.CARDS)
        question = Question(self.timeout)
        question.hold(wf)
        question.hold(step.constraints)
        return _Phase(name, step, question, Context(self.enc, name, pre, step, step.choice), base)

    # -- checking ---------------------------------------------------------------------------------------

    def check(self, prop: Property, minimize: bool = True) -> PropertyResult:
        """The verdict on one property (every phase it speaks of)."""
        start = time.perf_counter()
        if out_of_time():
            return not_asked(prop)
        if prop.id == "R-PROP-10":
            result = self._no_deadlock(prop)
            result.seconds = time.perf_counter() - start
            return result
        outcome = Verdict.PROVED
        counterexample = None
        for phase_name, statement in prop.obligations:
            if out_of_time():  # no phase built past the time limit: the rest is unknown
                outcome = Verdict.UNKNOWN
                break
            ph = self.phase(phase_name)
            stated = statement(ph.context)
            for part in (stated if isinstance(stated, list) else [stated]):
                with ph.question.breaking(part):
                    answer = verdict(ph.question.ask())
                    if answer is Verdict.REFUTED:
                        model = self._smallest(ph, ph.question.model()) if minimize else ph.question.model()
                        counterexample = self._counterexample(ph, model, prop)
                if answer is Verdict.REFUTED:
                    outcome = Verdict.REFUTED
                    break
                if answer is Verdict.UNKNOWN:
                    outcome = Verdict.UNKNOWN
            if outcome is Verdict.REFUTED:
                break
        return PropertyResult(prop.id, prop.title, outcome, time.perf_counter() - start, prop.method, prop.rules,
                              tuple(p for p, _ in prop.obligations), counterexample)

    def _smallest(self, ph: _Phase, model: Model, rounds: int = 4) -> Model:
        """Shrink a counterexample: few gems away from their own caves, the other players in the port."""
        size = self.relations.size(ph.pre, first=1, hands=False)
        return ph.question.shrink_by_halves(model, size, rounds)

    def _counterexample(self, ph: _Phase, model: Model, prop: Property) -> Counterexample:
        relations = self.relations
        pre = relations.decode_position(model, ph.step.pre, ph.base)
        post = relations.decode_position(model, ph.step.post, ph.base)
        if ph.name is TURN:
            card, turn = relations.decode_turn(model, ph.step)
            hidden = tuple(p if i == 0 else Player(p.name, p.canoes, p.hand, p.bank, None)
                           for i, p in enumerate(pre.players))
            pre = pre.replace(players=hidden)
            pre = pre.with_player(0, Player(pre.players[0].name, pre.players[0].canoes, pre.players[0].hand,
                                            pre.players[0].bank, card))
            post = post.replace(acted=(0,))
            choices = f"{NAMES[0]} plays {card.label}: {turn}"
            replay = _replay(lambda: apply_turn(pre, 0, turn, card).position, post)
        elif ph.name is FLOW:
            k = value(model, ph.step.k)
            branches = relations.decode_branches(model, ph.step, max(0, k))
            choices = f"the river flows {k} step(s)" + (
                " taking " + ",".join("/".join(f"{f}={lab}" for f, lab in step) for step in branches)
                if branches else "")
            replay = _replay(lambda: flow_detail(pre, _engine_flow(pre, k), branches).position if k >= 0 else pre,
                             post)
        else:
            rescues = relations.decode_rescues(model, ph.step)
            pre = pre.replace(players=tuple(Player(p.name, p.canoes, p.hand, p.bank, None) for p in pre.players))
            post = post.replace(players=tuple(Player(p.name, p.canoes, p.hand, p.bank, None) for p in post.players))
            choices = "; ".join(f"{NAMES[p]} rescues {r}" for p, r in rescues.items() if r.payments) or "no rescue"

            def replay_rescues() -> Position:
                state = pre
                for p, r in rescues.items():
                    state = apply_rescue(state, p, r)
                return state
            replay = _replay(replay_rescues, post)
        problems = position_problems(pre)
        trace = [f"phase: {ph.name}", f"choices: {choices}", *_diff(pre, post),
                 f"breaks {prop.id} ({prop.title}); rules involved: {', '.join(prop.rules)}"]
        if self.enc.mutant is not None:
            trace.append(f"mutated rule: {self.enc.mutant.key} ({self.enc.mutant.description})")
        if problems:
            trace.append("warning: the decoded position is not valid: " + "; ".join(p.message for p in problems))
        # A flow's picture shows the branch each step's disc took, whoever decided it (the markers or the choices).
        flow = (k, relations.decode_routes(model, ph.step, max(0, k))) if ph.name is FLOW else (None, None)
        taken = (turn, 0) if ph.name is TURN else (None, None)
        return Counterexample(ph.name, pre, post, choices, trace, replay, *flow, *taken)

    # -- R-PROP-10 ----------------------------------------------------------------------------------------

    def _no_deadlock(self, prop: Property) -> PropertyResult:
        """For all positions and cards in hand a turn exists: a witness turn is verified against every rule.

        If the witness fails somewhere, that position is checked for any legal turn at all: none refutes the
        property. Some turn there is added to the witnesses (those choices, for that card), and the question is
        asked again: a position where none of them is legal, up to :data:`WITNESS_ROUNDS` turns added. So the
        verdict does not hang on which failing position z3 names first: PROVED when the witness and the turns found
        cover every position, REFUTED at the first position with no turn, UNKNOWN when the rounds run out.
        """
        relations = self.relations
        if witness_by_card(relations) and self._no_deadlock_card_by_card(*self._witness_fails()):
            return PropertyResult(prop.id, prop.title, Verdict.PROVED, 0.0, prop.method, prop.rules, (TURN,))
        # The one question, its terms made and asserted one part at a time (z3's models depend on the terms' order
        # and lifetimes; this is the order the counterexamples of docs/PROVER.md were found in).
        pre = relations.position("nd.pre")
        step = relations.turn(pre, 0, "nd")
        question = Question(self.timeout)
        question.hold(relations.well_formed(pre, Phase.TURNS, to_act=0))
        card = step.card
        question.add(relations.card_in_hand(pre, 0, card))
        question.add(*witness_turn(relations, step))
        question.add(step.fails())
        answer = verdict(question.ask())
        found = 0
        again: TurnStep | None = None
        exists = Question(self.timeout)
        while answer is Verdict.REFUTED:
            # The witnesses fail at this position and card: does any turn exist there?
            model = question.model()
            fixed = relations.pin_model(pre, model, card)
            if again is None:
                again = relations.turn(pre, 0, "nd2")
                exists.hold(again.constraints)
            with exists.scope(*fixed, again.card == card):
                turn = exists.ask()
                decisions = again.decisions(exists.model()) if turn is Sat.SAT else None
            if turn is Sat.UNSAT:  # no legal turn at all
                return self._deadlock(prop, model, pre, card)
            if decisions is None:
                return PropertyResult(prop.id, prop.title, Verdict.UNKNOWN, 0.0, prop.method, prop.rules, (TURN,),
                                      note="the check for a turn where the witness fails timed out")
            if found == WITNESS_ROUNDS:
                return PropertyResult(prop.id, prop.title, Verdict.UNKNOWN, 0.0, prop.method, prop.rules, (TURN,),
                                      note=f"the witness turn and {_turns(found)} found where it fails are not "
                                           "legal everywhere, and a turn exists where they all fail")
            found += 1
            other = relations.turn(pre, 0, f"nd.{found}")
            question.add(*other.pin_decisions(decisions), other.fails_for(card))
            answer = verdict(question.ask())
        note = {Verdict.PROVED: "", Verdict.UNKNOWN: "the witness check timed out"}[answer]
        if answer is Verdict.PROVED and found:
            note = f"proved with the witness turn and {_turns(found)} found where it fails"
        return PropertyResult(prop.id, prop.title, answer, 0.0, prop.method, prop.rules, (TURN,), note=note)

    def _deadlock(self, prop: Property, model: Model, pre: SymPosition, card: Any) -> PropertyResult:
        """R-PROP-10 refuted: the position of ``model`` where player 0 holds ``card`` and has no legal turn."""
        relations, n = self.relations, self.players
        base = Position.initial(list(NAMES[:n]), self.board, self.rules).replace(phase=Phase.TURNS)
        position = relations.decode_position(model, pre, base)
        held = Card(value(model, card))
        position = position.replace(players=tuple(
            Player(p.name, p.canoes, p.hand, p.bank, held if i == 0 else None) for i, p in enumerate(position.players)))
        ce = Counterexample(TURN, position, position, f"{NAMES[0]} holds card {value(model, card)}",
                            [f"{NAMES[0]} has no legal turn with card {value(model, card)}",
                             f"breaks R-PROP-10; rules involved: {', '.join(prop.rules)}"],
                            "the engine lists no turn here either" if _engine_has_no_turn(position, model, card)
                            else "the engine lists turns here: the encoding disagrees")
        return PropertyResult(prop.id, prop.title, Verdict.REFUTED, 0.0, prop.method, prop.rules, (TURN,), ce)

    def _witness_fails(self) -> tuple[list[Any], Any]:
        """R-PROP-10's question, as terms: a valid position, player 0 to act with a card in hand, where the witness
        turn (encoding/witness.py) fails some rule. The terms, and the card's term."""
        relations = self.relations
        pre = relations.position("nd.pre")
        step = relations.turn(pre, 0, "nd")
        card = step.card
        terms = [c for _, c in relations.well_formed(pre, Phase.TURNS, to_act=0)]
        terms += [relations.card_in_hand(pre, 0, card), *witness_turn(relations, step), step.fails()]
        return terms, card

    def _no_deadlock_card_by_card(self, terms: list[Any], card: Any) -> bool:
        """Whether the witness turn holds everywhere, asked one card at a time of a solver that simplifies first
        (and for a value below and above every card, so that the questions together ask exactly the one question).

        Asked where the witness says so (:func:`.witness.witness_by_card`: with the whirlpool). Any other answer
        than "no" to any of them says nothing: the one question is then asked as it is everywhere else, so the
        verdict and the counterexample are those it gives."""
        cases = [card == int(c) for c in Card] + [card < int(min(Card)), card > int(max(Card))]
        for case in cases:
            question = Question(self.timeout, simplify=True)
            question.add(*terms, case)
            if question.ask() is not Sat.UNSAT:
                return False
        return True


def _turns(count: int) -> str:
    return f"{count} turn" if count == 1 else f"{count} turns"


def _engine_flow(pos: Position, k: int) -> int:
    """The flow the engine reads from the cards and the weather (R-FLOW-1, R-FLOW-2), so that a replay checks the
    encoding's flow value too; ``k`` where the position leaves it open (a flow of a given number of steps)."""
    try:
        return flow_value(pos)
    except NiagaraError:
        return k


def _engine_has_no_turn(position: Position, model: Model, card: Any) -> bool:
    return not legal_turns(position, 0)


def _replay(run: Any, expected: Position) -> str:
    try:
        got = run()
    except NiagaraError as err:
        return f"the engine refuses these choices: {err}"
    if _same(got, expected):
        return "the engine replays it to the same position"
    return "the engine replays it to a different position"


def _same(a: Position, b: Position) -> bool:
    return (a.caves == b.caves and a.weather == b.weather and a.forks == b.forks
            and all(x.canoes == y.canoes and x.bank == y.bank for x, y in zip(a.players, b.players)))


def _diff(pre: Position, post: Position) -> list[str]:
    """Only what changed, in the game's words."""
    lines = []
    for a, b in zip(pre.players, post.players):
        if a.canoes != b.canoes:
            lines.append(f"{a.name}'s canoes: {'; '.join(c.describe() for c in a.canoes)} -> "
                         f"{'; '.join(c.describe() for c in b.canoes)}")
        if a.bank != b.bank:
            lines.append(f"{a.name}'s bank: {a.bank.describe()} -> {b.bank.describe()}")
    for c, (x, y) in enumerate(zip(pre.caves, post.caves)):
        if x != y:
            lines.append(f"{_colour(c)} cave: {x.describe()} -> {y.describe()}")
    if pre.weather != post.weather:
        lines.append(f"weather: {pre.weather:+d} -> {post.weather:+d}")
    if pre.forks != post.forks:
        lines.append(f"fork marker: {dict(pre.forks)} -> {dict(post.forks)}")
    return lines


def _colour(c: int) -> str:
    return COLOURS[c].label


def not_asked(prop: Property) -> PropertyResult:
    """The verdict on a property the time limit left no time to ask: UNKNOWN."""
    return PropertyResult(prop.id, prop.title, Verdict.UNKNOWN, 0.0, prop.method, prop.rules,
                          tuple(p for p, _ in prop.obligations), note="not asked: the time limit ran out")


def inapplicable(prop: Property, reason: str) -> PropertyResult:
    """The result on a property that does not apply under the ruleset (``reason``: its module is off): no verdict,
    nothing asked of the solver."""
    return PropertyResult(prop.id, prop.title, None, 0.0, prop.method, prop.rules,
                          tuple(p for p, _ in prop.obligations), reason=reason)


def prove(board: Board, rules: Ruleset, players: int, ids: Iterable[str] | None = None,
          timeout: float | None = None, mutant: Mutant | None = None, minimize: bool = True,
          progress: Callable[[str], None] | None = None) -> list[PropertyResult]:
    """Check the catalogue (or the properties ``ids``) for ``players`` players, within ``timeout`` seconds in all
    (the properties not settled by then are UNKNOWN); ``progress`` is told each property as it starts. A property
    asked by ID whose expansion module is off is not applicable (verdict ``None``, with the reason), never proved."""
    chosen = [BY_ID[i] for i in ids] if ids else list(catalogue_for(rules))
    reasons = {p.id: not_applicable(p, rules) for p in chosen}
    if all(reasons.values()):  # nothing to prove: no relation is built
        return [inapplicable(p, reasons[p.id]) for p in chosen]
    with time_limit(timeout):
        if out_of_time():  # not even the relations are built
            return [inapplicable(p, reasons[p.id]) if reasons[p.id] else not_asked(p) for p in chosen]
        prover = Prover(board, rules, players, mutant, timeout)
        results = []
        for p in chosen:
            if reasons[p.id]:
                results.append(inapplicable(p, reasons[p.id]))
                continue
            if progress is not None:
                progress(f"{p.id} {players}p")
            results.append(prover.check(p, minimize))
        return results


__all__ = ["prove", "not_asked", "Prover", "PropertyResult", "Counterexample", "CATALOGUE", "RESCUE", "field"]
