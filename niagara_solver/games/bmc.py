"""The second reading of whole games: the encoding's round relation unrolled over a few rounds (bounded model
checking).

From a concrete start-of-round position (the setup, say) and a target over positions, :func:`bounded_reach` asks
z3, for k = 0, 1, 2, ... up to a bound K, whether some play of k whole rounds (R-ROUND-1: rescues, every
player's card and turn in order from the lifebuoy holder, the flow, phase IV) ends in a position where the target
holds. The k-th question chains k round relations (:meth:`Relations.round`), each from the position the last one
ended with, the lifebuoy passing one seat a round (R-BUOY-1), and the game going on only while no bank meets the
goal (R-END-2). The questions are asked in increasing k, so the first k answered ``sat`` is the minimal number of
rounds, and every earlier k was proved impossible.

The answer carries the play the model found, read back through the encoding's front door
(:meth:`Relations.decode_round`): each round's rescues, cards, turns, flow, branches and the position it ended
with. Nothing here asks the engine which plays are legal: :func:`replay` gives the trace to the engine
(``play_round``), which must accept every round and end each one in exactly the decoded position: the two
readings of the rules checked against each other over whole rounds (docs/GAMES.md, "The second reading").

A target is a position predicate (a :class:`Query`, docs/QUERIES.md, asked in its z3 form
``relations.holds_query``, with the round number and the lifebuoy's seat of each round's end), or any function
``(relations, sym) -> term`` giving a Bool term over a symbolic position. Events of the round and counts over the
history are not in the encoding: a query reading them is refused (``QueryError``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from enum import Enum
from typing import Callable, Sequence

from niagara_solver.encoding.relations import (Constraint, DecodedRound, Expr, Mutant, Question, Relations, RoundStep,
                                               Sat, SymPosition)
from niagara_solver.engine.round import RoundRecord, is_finished, play_round
from niagara_solver.model.atoms import Phase
from niagara_solver.model.errors import PhaseError
from niagara_solver.model.position import Position
from niagara_solver.model.query import Query

#: A target as a term: a Bool term over a symbolic position, built from the front door's relations.
Term = Callable[[Relations, SymPosition], Expr]


class Reach(Enum):
    """What the bounded check found: the target ``reached`` after some number of rounds, ``not-within`` the bound
    (every k up to it proved impossible), or ``unknown`` (z3 gave no answer in time for some k)."""

    REACHED = "reached"
    NOT_WITHIN = "not-within"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class BmcResult:
    """The answer of :func:`bounded_reach`.

    ``rounds``: the bound K asked; ``k``: the fewest rounds after which the target holds (None unless reached; 0
    when it holds in the start position); ``trace``: the k rounds the model found, from ``start``; ``seconds`` and
    ``cpu``: the wall-clock and processor time of each question, k = 0 first (building the relations, asking,
    reading the model back); the questions stop at the first ``sat`` or ``unknown``."""

    reach: Reach
    rounds: int
    start: Position
    k: int | None
    trace: tuple[DecodedRound, ...]
    seconds: tuple[float, ...]
    cpu: tuple[float, ...]

    @property
    def end(self) -> Position:
        """The position the trace ends with (the start for an empty trace)."""
        return self.trace[-1].position if self.trace else self.start


def bounded_reach(position: Position, target: Query | Term, rounds: int, timeout: float | None = None,
                  mutant: Mutant | None = None) -> BmcResult:
    """Whether ``target`` holds after some k ≤ ``rounds`` whole rounds from the start-of-round ``position``, and
    the fewest such k, by the encoding alone (the module's docstring). ``timeout``: seconds for each question (a
    question cut short makes the answer ``unknown``; the command's time limit is heeded too). ``mutant``: a rule
    group of the encoding replaced by a wrong one (verify/mutants.py), whose plays :func:`replay` should refuse."""
    if position.phase is not Phase.CARDS or position.acted:
        raise PhaseError("the bounded check starts at the start of a round (phase I)", "R-ROUND-1")
    if rounds < 0:
        raise ValueError(f"rounds: at least 0, got {rounds}")
    relations = Relations.of(position, mutant)
    state = relations.position("bmc.0")
    pins = relations.pin(state, position)
    held: list[Constraint] = []  # the rounds so far, their ends named, the game going on before each
    steps: list[RoundStep] = []
    seconds: list[float] = []
    cpu: list[float] = []
    # Once the game is over no round is played (R-END-2): only the start itself may meet the target.
    last = 0 if is_finished(position) else rounds
    for k in range(last + 1):
        began, used = time.perf_counter(), time.process_time()
        if k:
            if k > 1:  # R-END-2: a round is played only while no bank meets the goal
                held.append(("R-END-2", relations.goes_on(state)))
            step = relations.round(state, f"bmc.{k}", (position.lifebuoy + k - 1) % len(position.players), parts=True)
            held += step.constraints
            steps.append(step)
            # The round's end as fresh variables: the next round and the target read variables, not the nested
            # terms of every round before (SymPosition.materialize).
            state, definitions = step.post.materialize(f"bmc.{k}.end")
            held += definitions
        # A fresh question for each k, simplified with the start's values in place before the search
        # (Question(simplify=True)): measured 2-3 times faster on these chains than one incremental solver asked
        # k after k (docs/GAMES.md, "The second reading").
        question = Question(timeout, simplify=True)
        question.add(*pins)
        question.hold(held)
        if isinstance(target, Query):  # the round and the lifebuoy's seat after k rounds (R-BUOY-1)
            question.add(relations.holds_query(state, target, round=position.round + k,
                                               lifebuoy=(position.lifebuoy + k) % len(position.players)))
        else:
            question.add(target(relations, state))
        answer = question.ask()
        trace = _decode(relations, question, steps, position) if answer is Sat.SAT else ()
        seconds.append(time.perf_counter() - began)
        cpu.append(time.process_time() - used)
        if answer is Sat.SAT:
            return BmcResult(Reach.REACHED, rounds, position, k, trace, tuple(seconds), tuple(cpu))
        if answer is Sat.UNKNOWN:
            return BmcResult(Reach.UNKNOWN, rounds, position, None, (), tuple(seconds), tuple(cpu))
    return BmcResult(Reach.NOT_WITHIN, rounds, position, None, (), tuple(seconds), tuple(cpu))


def _decode(relations: Relations, question: Question, steps: Sequence[RoundStep],
            start: Position) -> tuple[DecodedRound, ...]:
    """The rounds of the last model, each read from the concrete position the one before ended with."""
    model = question.model()
    out = []
    for step in steps:
        decoded = relations.decode_round(model, step, start)
        out.append(decoded)
        start = decoded.position
    return tuple(out)


class ReplayMismatch(AssertionError):
    """The engine ended a decoded round elsewhere than the encoding's model did: the two readings disagree."""


def replay(result: BmcResult) -> list[RoundRecord]:
    """The trace played by the engine (``play_round``), round by round from the start: an illegal decision raises
    the engine's error naming its rule; a round the engine ends in another position than the decoded one raises
    :class:`ReplayMismatch`. Returns the engine's record of each round."""
    records = []
    pos = result.start
    for i, decoded in enumerate(result.trace, 1):
        record = play_round(pos, decoded.cards, {p: turn for p, _, turn in decoded.turns}, decoded.rescues,
                            list(decoded.branches) if decoded.branches is not None else None)
        if record.end != decoded.position:
            raise ReplayMismatch(f"round {i}: the engine ends in\n{record.end}\nthe encoding's model in\n"
                                 f"{decoded.position}")
        records.append(record)
        pos = record.end
    return records
