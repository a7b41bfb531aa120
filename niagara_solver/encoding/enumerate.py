"""Every outcome of a phase from a concrete position, by enumerating the encoding's models.

Each model found is blocked on its resulting position *up to the order of a player's two canoes* (the canonical
form), so every distinct result is found exactly once; results are canonical positions, comparable with the
engine's.

Two enumerators give the same outcome sets. :class:`IncrementalEnumerator` (the cross-check's) asserts each
relation once, on one incremental solver per relation and player count, pins each position in a push/pop scope,
confirms another reader's outcomes (the engine's) one by one and then asks once for any other result (of a
solver that first simplifies the relation with the position's values in place); where a
pinned position leaves the relation no choice (the flow under alternation) it evaluates the relation instead of
asking (docs/CROSSCHECK.md, "Speed"). :class:`Enumerator` is the earlier reading, kept as the reference the
benchmark measures against: a fresh solver per position and canoe order for turns, every model of a round
enumerated.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from itertools import islice, product
from typing import Any, Callable, Iterator, Sequence, cast

import z3

from niagara_solver.model.notation import Rescue, Turn
from niagara_solver.model.atoms import PORT, Card, Phase
from niagara_solver.model.position import Player, Position
from niagara_solver.encoding.pin import canoe_terms, rescued_slots, same_position
from niagara_solver.encoding.relations import NCOL, Mutant, Relations, Step, SymPosition, canoe_order, value
from niagara_solver.encoding.solver import (ARITH_SOLVER, TimedSolver, make_enumerating_solver,
                                            make_preprocessing_solver, make_solver)
from niagara_solver.encoding.state import read_values
from niagara_solver.encoding.terms import all_of, and_of, equal, literal_int, pinned_value, said, z_and, z_or


#: The turns that lead to a start of the next round, in turn order: (seat, the position before the turn, the card,
#: the turn).
RoundPath = tuple[tuple[int, Position, Card, Turn], ...]


def _same(post: SymPosition, model: z3.ModelRef) -> Any:
    """The result equals the model's, the two canoes of each player taken in either order. The model's values are
    read in one evaluation and the equalities kept for reuse (:func:`.state.read_values`, :func:`.state.equal`)."""
    values = read_values(model, post)

    def same(x: Any) -> Any:
        got = values.get(x.get_id())
        return equal(x, got)[0] if got is not None else x == model.eval(x, model_completion=True)
    parts = []
    for p in range(post.players):
        here = [canoe_terms(post, p, 0), canoe_terms(post, p, 1)]
        got = [[values.get(x.get_id()) for x in terms] for terms in here]
        if None in got[0] or None in got[1]:  # a value the model leaves free: its default, as model completion gives
            a = [model.eval(x, model_completion=True) for x in here[0]]
            b = [model.eval(x, model_completion=True) for x in here[1]]
            straight = z_and([x == v for x, v in zip(here[0], a)] + [x == v for x, v in zip(here[1], b)])
            crossed = z_and([x == v for x, v in zip(here[0], b)] + [x == v for x, v in zip(here[1], a)])
        else:
            a, b = cast(list[int], got[0]), cast(list[int], got[1])
            straight = all_of([equal(x, v)[0] for x, v in zip(here[0], a)] +
                              [equal(x, v)[0] for x, v in zip(here[1], b)])
            crossed = all_of([equal(x, v)[0] for x, v in zip(here[0], b)] +
                             [equal(x, v)[0] for x, v in zip(here[1], a)])
        parts.append(z_or(straight, crossed))
        parts += [same(x) for x in post.bank[p]]
        if post.budget is not None:  # the 1/2/3 card's budget is part of the result (X-CARDS-3)
            parts.append(same(post.budget[p]))
    parts += [same(post.cave[cc][c]) for cc in range(NCOL) for c in range(NCOL)]
    parts.append(same(post.weather))
    parts += [same(m) for m in post.marker.values()]
    if post.beaver is not None:  # X-BEAVER-1
        parts.append(same(post.beaver))
    if post.moose is not None:  # X-MOOSE-1
        parts.append(same(post.moose))
    parts += [same(x) for x in _pieces(post)]  # X-WHIRL-1, X-JOE-1
    return all_of(parts)


def _pieces(post: SymPosition) -> list[Any]:
    """The whirlpool's place, and Diamond Joe's place and gems: parts of a result."""
    return [*([post.whirl] if post.whirl is not None else []),
            *([post.joe, *post.joe_gem] if post.joe is not None and post.joe_gem is not None else [])]


class Enumerator:
    """The encoding's outcomes for concrete positions, for one board, ruleset and player count.

    Every solver it makes lists models one blocking clause after another (:func:`.solver.make_enumerating_solver`,
    with ``arith_solver``: z3's older arithmetic solver unless told otherwise)."""

    def __init__(self, relations: Relations, timeout: float | None = 60,
                 arith_solver: int | None = ARITH_SOLVER) -> None:
        self.relations = relations
        self.tables = relations.tables
        self.timeout = timeout
        self.arith_solver = arith_solver
        self._cache: dict[Any, tuple[SymPosition, Any, z3.Solver]] = {}

    @classmethod
    def of(cls, pos: Position, mutant: Mutant | None = None) -> "Enumerator":
        return cls(Relations.of(pos, mutant))

    def _relation(self, key: Any) -> tuple[SymPosition, Any, z3.Solver]:
        """The position before, the step (turn, flow, rescue or round) and a solver holding its relation."""
        if key not in self._cache:
            relations, tag = self.relations, f"enum.{key}"
            pre = relations.position(tag)
            step: Any
            if key[0] == "turn":
                step = relations.turn(pre, key[1], tag)
            elif key[0] == "flow":
                # Branch choices under either fork policy (read only when free), so the flow's terms come in one
                # order whatever the policy; with "steps", phase III alone, the number of steps is free.
                step = relations.flow(pre, tag, choice=relations.flow_choice(tag), steps=key[1] == "steps")
            elif key[0] == "rescue":
                step = relations.rescue(pre, tag)
            else:
                step = relations.round(pre, tag, key[1])
            solver = make_enumerating_solver(self.timeout, self.arith_solver)
            for _, c in step.constraints:
                solver.add(c)
            self._cache[key] = (pre, step, solver)
        return self._cache[key]

    def _collect(self, solver: z3.Solver, post: SymPosition, base: Position, finish: Any,
                 limit: int) -> set[Position]:
        found: set[Position] = set()
        while len(found) < limit:
            answer = solver.check()
            if answer != z3.sat:
                if answer != z3.unsat:
                    raise TimeoutError("the solver gave no answer in time")
                break
            model = solver.model()
            found.add(finish(model))
            solver.add(z3.Not(_same(post, model)))
        return found

    # -- phases -------------------------------------------------------------------------------------------

    def turns(self, pos: Position, player: int, card: Card, limit: int = 100000) -> set[Position]:
        """Every position ``player`` can reach with ``card`` (a phase II position)."""
        return set(self.turns_with_notation(pos, player, card, limit))

    def turns_with_notation(self, pos: Position, player: int, card: Card, limit: int = 100000) -> dict[Position, str]:
        """Every position ``player`` can reach with ``card``, with a turn (in the notation) that reaches it."""
        return {after: str(turn) for after, turn in self.turns_decoded(pos, player, card, limit).items()}

    def turns_decoded(self, pos: Position, player: int, card: Card, limit: int = 100000) -> dict[Position, Turn]:
        """Every position ``player`` can reach with ``card``, with a turn that reaches it, decoded from the model
        that found the position (:meth:`Relations.decode_turn`)."""
        relations = self.relations
        pre, step, _ = self._relation(("turn", player))
        me = pos.players[player]
        found: dict[Position, Turn] = {}
        # Slot 0 acts on canoe 0: with different canoes, either may act first. A fresh solver per order was
        # measured faster than push/pop on a shared one for this many models (docs/PROVER.md).
        for order in ([(0, 1)] if me.canoes[0] == me.canoes[1] else [(0, 1), (1, 0)]):
            solver = make_enumerating_solver(self.timeout, self.arith_solver)
            solver.add(*[c for _, c in step.constraints])
            solver.add(*relations.pin(pre, pos, {player: order}))
            solver.add(step.plays(card))
            for known in found:
                solver.add(z3.Not(same_position(step.post, known, self.tables)))

            def finish(model: z3.ModelRef) -> Position:
                after = relations.decode_position(model, step.post, pos)
                players = tuple(Player(p.name, a.canoes, a.hand if i == player else p.hand, a.bank,
                                       card if i == player else p.card,
                                       a.card_budget if i == player else p.card_budget)
                                for i, (p, a) in enumerate(zip(pos.players, after.players)))
                result = after.replace(players=players, acted=(*pos.acted, player))
                found.setdefault(result, relations.decode_turn(model, step, _names(pos))[1])
                return result
            self._collect(solver, step.post, pos, finish, limit)
        return found

    def check_turns(self, pos: Position, player: int, card: Card, claimed: dict[Position, Turn]) -> dict[Position, str]:
        """The encoding's outcomes, found by checking a claimed set (another reader's turns and results).

        Each claimed turn is pinned and its result decoded (it may be refused, or lead elsewhere); then one
        question per canoe order asks for any result outside the claimed set, and every such result is
        enumerated. The answer is the encoding's whole outcome set, as :meth:`turns_with_notation` would give,
        several times faster when the claim is right (docs/PROVER.md).
        """
        relations = self.relations
        pre, step, _ = self._relation(("turn", player))
        me = pos.players[player]
        orders = [(0, 1)] if me.canoes[0] == me.canoes[1] else [(0, 1), (1, 0)]
        solvers = {}
        for order in orders:
            solver = make_enumerating_solver(self.timeout, self.arith_solver)
            solver.add(*[c for _, c in step.constraints])
            solver.add(*relations.pin(pre, pos, {player: order}))
            solver.add(step.plays(card))
            solvers[order] = solver

        def result(model: z3.ModelRef) -> Position:
            after = relations.decode_position(model, step.post, pos)
            players = tuple(Player(p.name, a.canoes, a.hand if i == player else p.hand, a.bank,
                                   card if i == player else p.card,
                                   a.card_budget if i == player else p.card_budget)
                            for i, (p, a) in enumerate(zip(pos.players, after.players)))
            return after.replace(players=players, acted=(*pos.acted, player))
        found: dict[Position, str] = {}
        for _, turn in claimed.items():
            order, problem = canoe_order(pos, player, turn)
            if problem is not None:
                continue
            solver = solvers[order if order in solvers else (0, 1)]
            solver.push()
            solver.add(*relations.pin_turn(step, pos, card, turn), *(c for _, c in relations.written_order(step, turn)))
            answer = solver.check()
            if answer == z3.sat:
                found.setdefault(result(solver.model()), str(turn))
            elif answer != z3.unsat:
                solver.pop()
                raise TimeoutError("the solver gave no answer in time")
            solver.pop()
        for order, solver in solvers.items():
            solver.add(*[z3.Not(same_position(step.post, known, self.tables)) for known in claimed])
            solver.add(*[z3.Not(same_position(step.post, known, self.tables)) for known in found])
            while True:
                answer = solver.check()
                if answer == z3.unsat:
                    break
                if answer != z3.sat:
                    raise TimeoutError("the solver gave no answer in time")
                model = solver.model()
                extra = result(model)
                found.setdefault(extra, str(relations.decode_turn(model, step, _names(pos))[1]))
                solver.add(z3.Not(same_position(step.post, extra, self.tables)))
        return found

    def flows(self, pos: Position, steps: int | None, limit: int = 100000) -> set[Position]:
        """Every position the flow leads to (one under alternation; several with a free fork): ``steps`` single
        steps, or, with None, as many as the cards played and the weather give (R-FLOW-1, R-FLOW-2)."""
        return set(self.flows_decoded(pos, steps, limit))

    def flows_decoded(self, pos: Position, steps: int | None,
                      limit: int = 100000) -> dict[Position, tuple[int, list[tuple[tuple[str, str], ...]] | None]]:
        """Every position the flow leads to (as :meth:`flows`), with how it got there, decoded from the model that
        found it: the number of single steps (R-FLOW-1, R-FLOW-2) and, with ``fork_policy: free``, the branch each
        step's disc took at each fork (None: the markers decide, R-FLOW-4)."""
        pre, step, solver = self._relation(("flow", "steps" if steps is not None else "cards"))
        solver.push()
        solver.add(*self.relations.pin(pre, pos))
        if steps is not None:
            solver.add(step.steps == steps)
        keep = self._keeping_hands(step, pos)
        found: dict[Position, tuple[int, list[tuple[tuple[str, str], ...]] | None]] = {}

        def finish(model: z3.ModelRef) -> Position:
            after = keep(model)
            k = value(model, step.k)
            found.setdefault(after, (k, self.relations.decode_branches(model, step, k)))
            return after
        self._collect(solver, step.post, pos, finish, limit)
        solver.pop()
        return found

    def rescues(self, pos: Position, limit: int = 100000) -> set[Position]:
        """Every position phase I's rescue decisions lead to (a start-of-round position)."""
        return set(self.rescues_decoded(pos, limit))

    def rescues_decoded(self, pos: Position, limit: int = 100000) -> dict[Position, dict[int, Rescue]]:
        """Every position phase I's rescue decisions lead to (as :meth:`rescues`), with each player's decision,
        decoded from the model that found it (R-RESCUE-1)."""
        pre, step, solver = self._relation(("rescue",))
        solver.push()
        solver.add(*self.relations.pin(pre, pos))
        keep = self._keeping_hands(step, pos)
        found: dict[Position, dict[int, Rescue]] = {}

        def finish(model: z3.ModelRef) -> Position:
            after = keep(model)
            found.setdefault(after, self.relations.decode_rescues(model, step))
            return after
        self._collect(solver, step.post, pos, finish, limit)
        solver.pop()
        return found

    def _keeping_hands(self, step: Step, pos: Position) -> Callable[[z3.ModelRef], Position]:
        """The position a model of a rescue or flow leads to: canoes, banks, caves and markers from the model;
        hands and cards as in ``pos`` (phases I and III never touch them)."""
        def finish(model: z3.ModelRef) -> Position:
            after = self.relations.decode_position(model, step.post, pos)
            players = tuple(Player(p.name, a.canoes, p.hand, a.bank, p.card, p.card_budget)
                            for p, a in zip(pos.players, after.players))
            return after.replace(players=players)
        return finish

    def winners(self, pos: Position) -> tuple[int, ...]:
        """The winners the encoding's end check names for the banks of ``pos``."""
        pre = self.relations.position("end.pre")
        won = self.relations.end(pre)
        solver = make_enumerating_solver(self.timeout, self.arith_solver)
        solver.add(*self.relations.pin(pre, pos))
        answer = solver.check()
        if answer == z3.unknown:  # the time limit ran out (a pinned position is never unsat)
            raise TimeoutError("the solver gave no answer in time")
        assert answer == z3.sat
        return self.relations.decode_winners(solver.model(), won)

    def rounds(self, pos: Position, cards: dict[int, Card], limit: int = 100000) -> set[Position]:
        """Every position at the start of the next round, from a start-of-round position and given cards."""
        pre, step, solver = self._relation(("round", pos.lifebuoy))
        solver.push()
        solver.add(*self.relations.pin(pre, pos))
        for p, card in cards.items():
            solver.add(step.plays(p, card))
        n = len(pos.players)

        def finish(model: z3.ModelRef) -> Position:
            after = self.relations.decode_position(model, step.post, pos)
            players = tuple(Player(a.name, a.canoes, a.hand, a.bank, None) for a in after.players)
            return after.replace(players=players, lifebuoy=(pos.lifebuoy + 1) % n, round=pos.round + 1,
                                 phase=Phase.CARDS, acted=())
        found = self._collect(solver, step.post, pos, finish, limit)
        solver.pop()
        return found


class Session:
    """One relation asserted once on an incremental solver; a concrete position is pinned in a scope (push/pop).

    The relation is internalized once, for every position after it; a scope holds what is true of one position
    (its pinned values and the results already found) and is dropped with it. A relation with no choice left
    once a position is pinned (the flow under alternation) is not asked at all but evaluated (:meth:`evaluate`).
    """

    def __init__(self, step: Step) -> None:
        self.step = step
        self.solver = make_solver()
        for _, c in step.constraints:
            self.solver.add(c)
        self._bundle: tuple[Any, list[Any], list[int]] | None = None
        self._given: tuple[list[Any], z3.ModelRef] | None = None

    def _evaluable(self) -> tuple[Any, list[Any], list[int]]:
        """One term holding every result term and the relation (so that one evaluation reads them all), the result
        terms and their ids; made on first use."""
        if self._bundle is None:
            results = self.step.post.variables()
            held = [c for _, c in self.step.constraints]
            holds = and_of(held) if held and all(c.__class__ is z3.BoolRef for c in held) else z_and(held)
            bundle = z3.Function("evaluate", *[t.sort() for t in results], z3.BoolSort(), z3.BoolSort())(
                *results, holds)
            self._bundle = (bundle, results, [t.get_id() for t in results])
        return self._bundle

    def check(self, deadline: float | None) -> bool:
        """Whether the relation has a model in the current scope; TimeoutError past ``deadline`` (a
        ``time.perf_counter()`` value), at the command's time limit or when z3 gives up: never an answer."""
        return _check(self.solver, deadline)

    def model(self) -> z3.ModelRef:
        return self.solver.model()

    @contextmanager
    def scope(self, *constraints: Any) -> Iterator[None]:
        """Within the block, ``constraints`` and every clause added hold; after it, none does."""
        self.solver.push()
        try:
            self.solver.add(all_of(constraints))  # one term: asserting each through Python costs more
            yield
        finally:
            self.solver.pop()

    def add(self, *constraints: Any) -> None:
        self.solver.add(*constraints)

    def evaluate(self, pins: list[Any], more: Sequence[Any] = (), free: bool = False
                 ) -> tuple[bool, "_Values"] | None:
        """The relation evaluated at pinned values (each pin ``variable == value``; ``more`` are pins that change
        between calls with the same ``pins``, such as the number of flow steps): whether it holds, and the values
        of the results; None when the pins leave some term of the relation free (then ask the solver).

        With every variable of the relation given, it has exactly one model or none, so this answers the same
        as enumerating its models, without a solver.

        ``free``: a variable no pin gives takes its default (0, false). Where the relation holds, the values are
        then one of its models with the pins, as good as any the solver gives; where it does not, that says only
        that the defaults do not fit: ask the solver."""
        bundle, _, ids = self._evaluable()
        if self._given is None or self._given[0] is not pins:  # the same position again: its values are set
            base = z3.Model()
            if not _assign(base, pins):
                return None
            self._given = (pins, base)
        _, base = self._given
        # A copy for each evaluation: z3 keeps what a model has evaluated, so a changed value needs a new model.
        given = base.translate(base.ctx)
        if not _assign(given, more):
            return None
        # A term that evaluates to a literal with some variable left out has that value whatever the variable's:
        # the pins decide it. With ``free``, what is still open is completed with the defaults (z3's model
        # completion gives 0 and false), one argument at a time: completing the bundle itself would interpret the
        # function ``evaluate``, not its arguments.
        values = _literal_args(given.eval(bundle, model_completion=False), given if free else None)
        if values is None:
            return None
        return values[-1] is True, _Values(dict(zip(ids, values[:-1])), given)


def evaluate_turn(relations: Relations, step: Any, session: Session, pinned: list[Any], pos: Position, card: Card,
                  turn: Turn, order: tuple[int, int]) -> "_Values | None":
    """A written turn of ``step``'s relation (on ``session``) at the position ``pos`` (``pinned`` on the relation's
    position before, as :meth:`Relations.pin` makes it; the canoes in ``order``, from :func:`canoe_order`), with every
    choice pinned, the notation's open ones too (:func:`.pin.pin_turn`, ``every``), evaluated rather than solved:
    the values of one model of the turn's plain pins; None where the relation does not hold so (ask the solver,
    which may find other choices)."""
    choices = [step.plays(card), step.swap == (order == (1, 0)),
               *relations.pin_turn(step, pos, card, turn, every=True)]
    evaluated = session.evaluate(pinned, choices, free=True)
    if evaluated is None or not evaluated[0]:
        return None
    values = evaluated[1]
    # The order the turn is written in (R-GEM-2), where it matters: read at the same values.
    if not all(z3.is_true(values.eval(c, model_completion=True)) for _, c in relations.written_order(step, turn)):
        return None
    return values


def _literal_args(term: Any, complete: z3.ModelRef | None = None) -> list[int] | None:
    """The arguments of an evaluated term as Python ints (Booleans as ``bool``) when each is an integer or Boolean
    literal (else None), read through z3's C API: ``children()``, a test and a wrapper per argument through the
    Python API cost several times more. With ``complete`` (the model that evaluated ``term``), an argument left open
    is evaluated again there with model completion: its variables without a value get the defaults 0 and false,
    kept in the model."""
    ctx = term.ctx
    ref, ast = ctx.ref(), term.as_ast()
    out: list[int] = []
    for i in range(z3.Z3_get_app_num_args(ref, ast)):
        arg = z3.Z3_get_app_arg(ref, ast, i)
        got = literal_int(ref, arg)
        if got is None and complete is not None:
            held = complete.eval(z3.z3._to_expr_ref(arg, ctx), model_completion=True)  # wrapped: held while read
            got = literal_int(ref, held.as_ast())
        if got is None:
            return None
        out.append(got)
    return out


def _assign(model: z3.ModelRef, pins: Any) -> bool:
    """Give each pin's variable its value in ``model``; False when a pin is not ``variable == value`` (or a Boolean
    variable, or its negation)."""
    # A pin made by terms.equal (every pin of Relations.pin, most of pin_turn's) says what it pins without asking
    # z3; any other is read through z3's C API (the Python API's wrappers cost 50 ms for a turn's 700 pins).
    ref, raw = model.ctx.ref(), model.model
    truth = (z3.BoolVal(False, model.ctx), z3.BoolVal(True, model.ctx))  # held while their terms are used
    sides = (truth[0].as_ast(), truth[1].as_ast())
    for pin in pins:
        known = said(pin)  # made by terms.equal: what it says is kept
        if known is not None and known[1] is not None:
            z3.Z3_add_const_interp(ref, raw, known[1], known[2])
            continue
        read = pinned_value(ref, pin.as_ast(), sides)
        if read is True:
            continue
        if read is None or read is False:
            return False
        variable, decl, given = read
        z3.Z3_add_const_interp(ref, raw, decl, given)
    return True


class _Values:
    """Evaluated result terms, read like a model (``eval``) by the decoders."""

    def __init__(self, values: dict[int, int], given: z3.ModelRef) -> None:
        self.values = values
        self.given = given

    def ints(self) -> dict[int, int]:
        """The evaluated result terms as Python ints and bools, by term id: for :func:`.state.decode`, which reads
        the rest from :meth:`eval`."""
        return self.values

    def eval(self, term: Any, model_completion: bool = False) -> Any:
        found = self.values.get(term.get_id())
        if found is None:
            return self.given.eval(term, model_completion=model_completion)
        return z3.BoolVal(found, term.ctx) if found.__class__ is bool else z3.IntVal(found, term.ctx)


def _check(solver: z3.Solver, deadline: float | None) -> bool:
    """sat or unsat; TimeoutError for unknown (the deadline, the command's time limit or z3 giving up)."""
    if deadline is not None:
        left = deadline - time.perf_counter()
        if left <= 0:
            raise TimeoutError("the time for this comparison ran out")
        solver.set("timeout", max(1, int(left * 1000)))
        if isinstance(solver, TimedSolver):
            solver.own_timeout = left  # within the command's time limit too
    answer = solver.check()
    if answer == z3.sat:
        return True
    if answer == z3.unsat:
        return False
    raise TimeoutError("the solver gave no answer in time")


def _same_result(post: SymPosition, known: Position, tables: Any) -> Any:
    """The result equals a concrete position, fork markers included (a round's flow moves them)."""
    markers = dict(known.forks)
    return z_and(same_position(post, known, tables),
                  *[m == tables.labels[f].index(markers[tables.name[f]]) for f, m in post.marker.items()])


class IncrementalEnumerator:
    """The encoding's outcomes for concrete positions, for one board, ruleset and player count: each relation
    asserted once on its own incremental solver (a :class:`Session`), every position pinned in a scope.

    Where another reader's outcomes are known (``claimed``: the engine's), they are confirmed first (each turn
    pinned; a round's models enumerated among the claimed starts), and then one question asks for any result
    outside them, and every such result is enumerated: the answer is the encoding's whole outcome set, as
    enumerating every model would give.

    Each method takes a ``deadline`` (a ``time.perf_counter()`` value, or None) for all its questions together,
    and raises TimeoutError when it passes: an outcome set is complete or not given at all.

    ``preprocess``: the question for other results (of a turn or a round) goes to a solver that simplifies the
    relation with the position's values in place before searching (:func:`make_preprocessing_solver`); without
    it, to a plain solver (the earlier way, kept to compare against: both give the same outcome sets).
    """

    def __init__(self, relations: Relations, preprocess: bool = True) -> None:
        self.relations = relations
        self.tables = relations.tables
        self.preprocess = preprocess
        self._sessions: dict[Any, tuple[SymPosition, Any, Session]] = {}
        self._won: tuple[SymPosition, list[Any], z3.Solver, Any] | None = None
        self._pinned: dict[Any, tuple[Position, list[Any]]] = {}

    @classmethod
    def of(cls, pos: Position, mutant: Mutant | None = None) -> "IncrementalEnumerator":
        return cls(Relations.of(pos, mutant))

    def _outside(self) -> z3.Solver:
        """A fresh solver for the question asked once per position: any result outside the known ones (every one of
        them is then listed). Without ``preprocess``, a plain one that lists models as :class:`Enumerator`'s do."""
        return make_preprocessing_solver() if self.preprocess else make_enumerating_solver()

    def _session(self, key: Any) -> tuple[SymPosition, Any, Session]:
        """The position before, the step and the session of one relation: a turn (with the canoe order a choice),
        the flow, the rescues or a round."""
        if key not in self._sessions:
            relations, tag = self.relations, f"inc.{'.'.join(map(str, key))}"
            pre = relations.position(tag)
            step: Any
            if key[0] == "turn":
                step = relations.turn(pre, key[1], tag, swap=True)
            elif key[0] == "flow":
                step = relations.flow(pre, tag, choice=relations.flow_choice(tag), steps=key[1] == "steps")
            elif key[0] == "rescue":
                step = relations.rescue(pre, tag)
            else:
                step = relations.round(pre, tag, key[1])
            self._sessions[key] = (pre, step, Session(step))
        return self._sessions[key]

    def _enumerate(self, session: Session, post: SymPosition, finish: Callable[[z3.ModelRef], Any],
                   known: list[Position], deadline: float | None, limit: int = 100000) -> None:
        """Every result of the current scope outside ``known`` (results already found), each model passed to
        ``finish``. Each model is blocked on its own values (``_same``), as :meth:`Enumerator._collect` does."""
        session.add(*[z3.Not(same_position(post, position, self.tables)) for position in known])
        found = 0
        while found < limit and session.check(deadline):
            model = session.model()
            finish(model)
            found += 1
            session.add(z3.Not(_same(post, model)))

    # -- phases -------------------------------------------------------------------------------------------

    def check_turns(self, pos: Position, player: int, card: Card, claimed: dict[Position, Turn],
                    deadline: float | None = None) -> dict[Position, str]:
        """The encoding's outcomes of ``player``'s turns with ``card``, found by checking a claimed set (another
        reader's turns and results), as :meth:`Enumerator.check_turns`: each claimed turn is pinned and its
        result decoded (it may be refused, or lead elsewhere); then one question asks for any result outside
        the claimed set, and every such result is enumerated.

        The turn relation leaves the canoe order to a choice (``swap``), so one question covers both orders. The
        pinned turns are asked of the incremental solver (each is settled by propagation); the question for other
        results, which needs a search, of a fresh solver, which simplifies the relation with the position's
        values in place before searching (:meth:`_outside`)."""
        relations = self.relations
        pre, step, session = self._session(("turn", player))

        def result(model: z3.ModelRef) -> Position:
            after = relations.decode_position(model, step.post, pos)
            players = tuple(Player(p.name, a.canoes, a.hand if i == player else p.hand, a.bank,
                                   card if i == player else p.card,
                                   a.card_budget if i == player else p.card_budget)
                            for i, (p, a) in enumerate(zip(pos.players, after.players)))
            return after.replace(players=players, acted=(*pos.acted, player))
        found: dict[Position, str] = {}
        pinned = relations.pin(pre, pos)
        pins = [*pinned, step.plays(card)]
        refused = []
        for turn in claimed.values():
            order, problem = canoe_order(pos, player, turn)
            if problem is None:
                values = evaluate_turn(relations, step, session, pinned, pos, card, turn, order)
                if values is not None:
                    found.setdefault(result(cast(z3.ModelRef, values)), str(turn))
                else:  # the solver decides below
                    refused.append((turn, order))
        with session.scope(*pins):
            for turn, order in refused:
                with session.scope(*relations.pin_turn(step, pos, card, turn), step.swap == (order == (1, 0)),
                                   *(c for _, c in relations.written_order(step, turn))):
                    if session.check(deadline):
                        found.setdefault(result(session.model()), str(turn))
        outside = self._outside()
        outside.add(all_of([*[c for _, c in step.constraints], *pins]))  # one term; the goal splits it again
        outside.add(*[z3.Not(same_position(step.post, known, self.tables)) for known in {*claimed, *found}])
        while _check(outside, deadline):
            model = outside.model()
            known = result(model)
            found.setdefault(known, str(relations.decode_turn(model, step, _names(pos))[1]))
            outside.add(z3.Not(_same(step.post, model)))
        return found

    def flows(self, pos: Position, steps: int | None, deadline: float | None = None) -> set[Position]:
        """Every position the flow leads to, as :meth:`Enumerator.flows`; under alternation (no branch to
        choose) the relation is evaluated at the pinned position rather than asked."""
        key = ("flow", "steps" if steps is not None else "cards")
        pre, step, session = self._session(key)
        if key not in self._pinned or self._pinned[key][0] != pos:  # the flows of a position come together
            self._pinned[key] = (pos, self.relations.pin(pre, pos))
        pins = self._pinned[key][1]
        more = [step.steps == steps] if steps is not None else []
        finish = self._keeping_hands(step, pos)
        evaluated = session.evaluate(pins, more)
        if evaluated is not None:
            holds, values = evaluated
            return {finish(cast(z3.ModelRef, values))} if holds else set()
        found: set[Position] = set()
        with session.scope(*pins, *more):
            self._enumerate(session, step.post, lambda m: found.add(finish(m)), [], deadline)
        return found

    def rescues(self, pos: Position, deadline: float | None = None,
                claimed: dict[Position, dict[int, Rescue]] | None = None) -> set[Position]:
        """Every position phase I's rescue decisions lead to, as :meth:`Enumerator.rescues`.

        With ``claimed`` (another reader's results, each with the players' decisions that lead to it), each
        claimed result is confirmed first: its decisions pinned and the relation evaluated (no solver), or, where
        the relation refuses them or leads elsewhere, the result itself pinned and asked. Then one question asks
        for any result outside those, and every such result is enumerated: the same set as enumerating every
        model, without a question per result (five players with two fallen canoes each have 150 of them)."""
        relations = self.relations
        pre, step, session = self._session(("rescue",))
        found: set[Position] = set()
        finish = self._keeping_hands(step, pos)
        pinned = relations.pin(pre, pos)
        unconfirmed = []
        for result, decisions in (claimed or {}).items():
            evaluated = session.evaluate(pinned, relations.pin_rescues(step, pos, decisions), free=True)
            reached = finish(cast(z3.ModelRef, evaluated[1])) if evaluated is not None and evaluated[0] else None
            if reached is not None:
                found.add(reached)
            if reached != result:
                unconfirmed.append(result)
        with session.scope(*pinned):
            for result in unconfirmed:
                with session.scope(same_position(step.post, result, self.tables)):
                    if session.check(deadline):
                        found.add(finish(session.model()))
            self._enumerate(session, step.post, lambda m: found.add(finish(m)), list(found), deadline)
        return found

    def _keeping_hands(self, step: Step, pos: Position) -> Callable[[z3.ModelRef], Position]:
        def finish(model: z3.ModelRef) -> Position:
            after = self.relations.decode_position(model, step.post, pos)
            players = tuple(Player(p.name, a.canoes, p.hand, a.bank, p.card, p.card_budget)
                            for p, a in zip(pos.players, after.players))
            return after.replace(players=players)
        return finish

    def winners(self, pos: Position, deadline: float | None = None) -> tuple[int, ...]:
        """The winners the encoding's end check names for the banks of ``pos``: its terms evaluated at the pinned
        position (they read nothing else), or, should some term stay open, asked of a solver."""
        if self._won is None:
            pre = self.relations.position("inc.end")
            won = self.relations.end(pre)
            bundle = z3.Function("winners", *[t.sort() for t in won], z3.BoolSort())(*won)
            self._won = (pre, won, make_solver(), bundle)
        pre, won, solver, bundle = self._won
        pins = self.relations.pin(pre, pos)
        given = z3.Model()
        if _assign(given, pins):
            values = _literal_args(given.eval(bundle, model_completion=False))
            if values is not None:
                return tuple(p for p, v in enumerate(values) if v)
        solver.push()
        try:
            solver.add(*pins)
            if not _check(solver, deadline):
                raise ValueError("the end check has no model for a pinned position")
            return self.relations.decode_winners(solver.model(), won)
        finally:
            solver.pop()

    def check_rounds(self, pos: Position, cards: dict[int, Card], claimed: dict[Position, RoundPath],
                     limit: int = 100000, deadline: float | None = None,
                     rescues: dict[Position, dict[int, Rescue]] | None = None) -> set[Position]:
        """Every position at the start of the next round, as :meth:`Enumerator.rounds`, found by checking a
        claimed set (each start with the turns that lead to it, in turn order): each claimed start is confirmed,
        then one question asks for any result outside the claimed ones, and every such result is enumerated.

        A start is confirmed with its turns pinned (rescues, canoe orders and branches left to the solver, so
        the question is settled by propagation), or, when the encoding refuses those turns or they lead
        elsewhere, with the start itself pinned as the result: a start the encoding reaches by other turns is
        still found. The question for other results is put to a fresh solver: z3 preprocesses a question it is
        asked once (eliminating the pinned variables), which for the whole round's relation answers "no other
        result" faster than the incremental solver does (measured 4-7 s against 6-20 s), and faster still with the
        simplifying steps of :meth:`_outside` (0.7-1.1 s against 1.3-3.4 s).

        With ``rescues`` (each claimed start's rescue decisions), a start is first confirmed with every choice of the
        round pinned and the relation evaluated (:meth:`_evaluate_round`), the solver asked only where that does not
        reach it."""
        relations = self.relations
        pre, step, session = self._session(("round", pos.lifebuoy))
        n = len(pos.players)
        found: set[Position] = set()

        def result(model: z3.ModelRef) -> Position:
            after = relations.decode_position(model, step.post, pos)
            players = tuple(Player(a.name, a.canoes, a.hand, a.bank, None) for a in after.players)
            return after.replace(players=players, lifebuoy=(pos.lifebuoy + 1) % n, round=pos.round + 1,
                                 phase=Phase.CARDS, acted=())
        pins = [*relations.pin(pre, pos), *(step.plays(p, c) for p, c in cards.items())]
        unconfirmed = dict(claimed)
        if rescues is not None and step.choice.flow is None:
            for start, path in claimed.items():
                evaluated = (self._evaluate_round(pos, step, session, pins, path, rescues[start], result, start)
                             if start in rescues else set())
                found |= evaluated
                if start in evaluated:
                    del unconfirmed[start]
        with session.scope(*pins):
            for start, path in unconfirmed.items():
                written = [c for p, at, card, turn in path for c in relations.pin_round_turn(step, p, at, card, turn)]
                with session.scope(*written):
                    reached = result(session.model()) if session.check(deadline) else None
                if reached is not None:
                    found.add(reached)
                if reached != start:
                    with session.scope(_same_result(step.post, start, self.tables)):
                        if session.check(deadline):
                            found.add(result(session.model()))
        outside = self._outside()
        outside.add(all_of([*[c for _, c in step.constraints], *pins]))  # one term; the goal splits it again
        outside.add(*[z3.Not(_same_result(step.post, start, self.tables)) for start in {*claimed, *found}])
        extra = 0
        while extra < limit and _check(outside, deadline):
            model = outside.model()
            found.add(result(model))
            extra += 1
            outside.add(z3.Not(_same(step.post, model)))
        return found

    def _evaluate_round(self, pos: Position, step: Any, session: Session, pins: list[Any], path: RoundPath,
                        decisions: dict[int, Rescue], result: Callable[[Any], Position],
                        start: Position) -> set[Position]:
        """The results a claimed path reaches with every choice of the round relation pinned (the rescue decisions,
        each turn with the choices its notation leaves open, each player's canoe order) and the relation evaluated
        rather than asked, until one is ``start``; each is one of the relation's models, so a result of the
        encoding. Empty where the relation does not hold so (then the solver decides).

        The relation's canoe slots are the round start's canoes (pinned without an order); a turn names its first
        canoe by its place before the turn. A slot's place then is its place at the start, or the port if phase I
        brought it back: where that tells the slots apart, the canoe order is the one that puts the named canoe
        first; where it does not, both orders are tried (at most four evaluations in all)."""
        relations = self.relations
        fixed = relations.pin_round_rescues(step, pos, decisions)
        orders: list[list[tuple[int, bool]]] = []
        for p, at, card, turn in path:
            fixed += relations.pin_round_turn(step, p, at, card, turn, every=True)
            canoes = pos.players[p].canoes
            back = rescued_slots(canoes, decisions.get(p, Rescue()))
            places = [PORT if k in back else c.place for k, c in enumerate(canoes)]
            named = turn.actions[0].canoe.place if turn.actions else None
            if len(places) != 2 or named is None:
                orders.append([(p, False)])
            elif places[0] != places[1] and named in places:
                orders.append([(p, places.index(named) == 1)])
            else:
                orders.append([(p, False), (p, True)])
        reached: set[Position] = set()
        for chosen in islice(product(*orders), 4):
            swaps = [equal(step.choice.swaps[p], swap)[0] for p, swap in chosen]
            evaluated = session.evaluate(pins, [*fixed, *swaps], free=True)
            if evaluated is not None and evaluated[0]:
                reached.add(result(cast(z3.ModelRef, evaluated[1])))
                if start in reached:
                    break
        return reached


def turn_outcomes(pos: Position, player: int, card: Card, limit: int = 100000,
                  timeout: float | None = 60) -> set[Position]:
    """The positions ``player`` can reach with ``card`` according to the encoding (phase II position)."""
    return Enumerator.of(pos).turns(pos, player, card, limit)


def _names(pos: Position) -> list[str]:
    """The players' names in seat order, for the turns decoded from a model at ``pos``."""
    return [p.name for p in pos.players]
