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

import z3

from niagara_solver.model.board import Board
from niagara_solver.engine.apply import apply_turn
from niagara_solver.engine.flow import flow_detail
from niagara_solver.engine.rescue import apply_rescue
from niagara_solver.model.errors import NiagaraError
from niagara_solver.model.limits import out_of_time, time_limit
from niagara_solver.encoding.relations import NAMES, NCOL, Mutant, Relations, SymPosition, TurnStep, value
from niagara_solver.encoding.solver import SHRINK_RLIMIT, make_solver, verdict
from niagara_solver.encoding.tables import member
from niagara_solver.model.verdict import PROOF, Verdict
from niagara_solver.model.atoms import Phase
from niagara_solver.model.invariants import position_problems
from niagara_solver.model.position import Player, Position
from niagara_solver.model.ruleset import Ruleset
from niagara_solver.verify.properties import (BY_ID, CATALOGUE, FLOW, RESCUE, TURN, Context, Property,
                                              catalogue_for)


@dataclass
class Counterexample:
    """A position file and the choices of the phase that break a property, as the engine sees them."""

    phase: str
    position: Position
    after: Position
    choices: str
    trace: list[str]
    replay: str


@dataclass
class PropertyResult:
    """The verdict on one property."""

    id: str
    title: str
    verdict: Verdict
    seconds: float
    method: str
    rules: tuple[str, ...]
    phases: tuple[str, ...]
    counterexample: Counterexample | None = None
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        from niagara_solver.model.format import position_to_json
        out: dict[str, Any] = {"id": self.id, "title": self.title, "verdict": PROOF(self.verdict),
                               "seconds": round(self.seconds, 3), "method": self.method,
                               "depends_on": list(self.rules), "phases": list(self.phases)}
        if self.note:
            out["note"] = self.note
        if self.counterexample is not None:
            ce = self.counterexample
            out["counterexample"] = position_to_json(ce.position)
            out["after"] = position_to_json(ce.after)
            out["choices"] = ce.choices
            out["trace"] = ce.trace
            out["replay"] = ce.replay
        return out


@dataclass
class _Phase:
    """One phase's relation from a well-formed position, asserted in its own solver."""

    name: str
    step: Any  # a TurnStep, FlowStep or RescueStep
    solver: z3.Solver
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
        self._phases: dict[str, _Phase] = {}
        self.build_seconds = 0.0

    def phase(self, name: str) -> _Phase:
        if name not in self._phases:
            start = time.perf_counter()
            self._phases[name] = self._build(name)
            self.build_seconds += time.perf_counter() - start
        return self._phases[name]

    def _build(self, name: str) -> _Phase:
        relations, n = self.relations, self.players
        pre = relations.position(f"{name}.pre")
        names = list(NAMES[:n])
        base = Position.initial(names, self.board, self.rules)
        step: Any
        if name == TURN:
            step = relations.turn(pre, 0, "turn")
            wf = relations.well_formed(pre, Phase.TURNS, to_act=0)
            base = base.replace(phase=Phase.TURNS)
        elif name == FLOW:
            step = relations.flow(pre, "flow")
            wf = relations.well_formed(pre, Phase.TURNS, all_acted=True)
            base = base.replace(phase=Phase.TURNS, acted=tuple(range(n)))
        else:
            step = relations.rescue(pre, "rescue")
            wf = relations.well_formed(pre, Phase.CARDS)
        solver = make_solver(self.timeout)
        for _, c in wf:
            solver.add(c)
        for _, c in step.constraints:
            solver.add(c)
        return _Phase(name, step, solver, Context(self.enc, name, pre, step, step.choice), base)

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
                ph.solver.push()
                ph.solver.add(z3.Not(part))
                answer = verdict(ph.solver.check())
                if answer is Verdict.REFUTED:
                    model = self._smallest(ph, ph.solver.model()) if minimize else ph.solver.model()
                    counterexample = self._counterexample(ph, model, prop)
                    ph.solver.pop()
                    outcome = Verdict.REFUTED
                    break
                ph.solver.pop()
                if answer is Verdict.UNKNOWN:
                    outcome = Verdict.UNKNOWN
            if outcome is Verdict.REFUTED:
                break
        return PropertyResult(prop.id, prop.title, outcome, time.perf_counter() - start, prop.method, prop.rules,
                              tuple(p for p, _ in prop.obligations), counterexample)

    def _smallest(self, ph: _Phase, model: z3.ModelRef, rounds: int = 4) -> z3.ModelRef:
        """Shrink a counterexample: few gems away from their own caves, the other players in the port."""
        pre = ph.pre
        size = (z3.Sum([g for row in pre.cargo for canoe in row for g in canoe])
                + z3.Sum([g for row in pre.bank for g in row])
                + z3.Sum([pre.cave[cc][c] for cc in range(NCOL) for c in range(NCOL) if cc != c])
                + z3.Sum([z3.If(pre.place[p][k] != ph.context.t.PORT, 1, 0)
                          for p in range(1, pre.players) for k in range(2)]))
        best = model
        for _ in range(rounds):
            bound = value(best, size)
            if bound == 0:
                break
            ph.solver.push()
            ph.solver.set("rlimit", SHRINK_RLIMIT)  # a resource limit, not a clock: the same shrink every run
            ph.solver.add(size <= bound // 2 if bound > 3 else size < bound)
            answer = ph.solver.check()
            if answer == z3.sat:
                best = ph.solver.model()
            ph.solver.pop()
            if answer != z3.sat:
                ph.solver.push()
                ph.solver.add(size < bound)
                again = ph.solver.check()
                if again == z3.sat:
                    best = ph.solver.model()
                ph.solver.pop()
                if again != z3.sat:
                    break
        ph.solver.set("rlimit", 0)
        return best

    def _counterexample(self, ph: _Phase, model: z3.ModelRef, prop: Property) -> Counterexample:
        relations = self.relations
        pre = relations.decode_position(model, ph.step.pre, ph.base)
        post = relations.decode_position(model, ph.step.post, ph.base)
        if ph.name == TURN:
            card, turn = relations.decode_turn(model, ph.step)
            hidden = tuple(p if i == 0 else Player(p.name, p.canoes, p.hand, p.bank, None)
                           for i, p in enumerate(pre.players))
            pre = pre.replace(players=hidden)
            pre = pre.with_player(0, Player(pre.players[0].name, pre.players[0].canoes, pre.players[0].hand,
                                            pre.players[0].bank, card))
            post = post.replace(acted=(0,))
            choices = f"{NAMES[0]} plays {card.label}: {turn}"
            replay = _replay(lambda: apply_turn(pre, 0, turn, card).position, post)
        elif ph.name == FLOW:
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
        return Counterexample(ph.name, pre, post, choices, trace, replay)

    # -- R-PROP-10 ----------------------------------------------------------------------------------------

    def _no_deadlock(self, prop: Property) -> PropertyResult:
        """For all positions and cards in hand a turn exists: a witness turn is verified against every rule.

        If the witness fails somewhere, that position is checked for any legal turn at all: none refutes the
        property; some means the witness was incomplete, and the answer is UNKNOWN.
        """
        relations = self.relations
        n = self.players
        pre = relations.position("nd.pre")
        step = relations.turn(pre, 0, "nd")
        solver = make_solver(self.timeout)
        for _, c in relations.well_formed(pre, Phase.TURNS, to_act=0):
            solver.add(c)
        card = step.card
        solver.add(relations.card_in_hand(pre, 0, card))
        solver.add(*_witness(relations, step))
        solver.add(z3.Not(z3.And([c for _, c in step.constraints])))
        answer = verdict(solver.check())
        if answer is not Verdict.REFUTED:
            return PropertyResult(prop.id, prop.title, answer, 0.0, prop.method, prop.rules, (TURN,),
                                  note="" if answer is Verdict.PROVED else "the witness check timed out")
        # The witness fails at this position and card: does any turn exist there?
        model = solver.model()
        fixed = relations.pin_model(pre, model) + [card == model.eval(card, model_completion=True)]
        again = relations.turn(pre, 0, "nd2")
        exists = make_solver(self.timeout)
        exists.add(*fixed)
        exists.add(again.card == card)
        for _, c in again.constraints:
            exists.add(c)
        found = verdict(exists.check())
        base = Position.initial(list(NAMES[:n]), self.board, self.rules).replace(phase=Phase.TURNS)
        position = relations.decode_position(model, pre, base)
        from niagara_solver.model.atoms import Card
        held = Card(value(model, card))
        position = position.replace(players=tuple(
            Player(p.name, p.canoes, p.hand, p.bank, held if i == 0 else None) for i, p in enumerate(position.players)))
        if found is Verdict.PROVED:  # unsat: no legal turn at all
            ce = Counterexample(TURN, position, position, f"{NAMES[0]} holds card {value(model, card)}",
                                [f"{NAMES[0]} has no legal turn with card {value(model, card)}",
                                 f"breaks R-PROP-10; rules involved: {', '.join(prop.rules)}"],
                                "the engine lists no turn here either" if _engine_has_no_turn(position, model, card)
                                else "the engine lists turns here: the encoding disagrees")
            return PropertyResult(prop.id, prop.title, Verdict.REFUTED, 0.0, prop.method, prop.rules, (TURN,), ce)
        return PropertyResult(prop.id, prop.title, Verdict.UNKNOWN, 0.0, prop.method, prop.rules, (TURN,),
                              note="the witness turn is not legal everywhere and a turn exists where it fails")


def _engine_flow(pos: Position, k: int) -> int:
    """The flow the engine reads from the cards and the weather (R-FLOW-1, R-FLOW-2), so that a replay checks the
    encoding's flow value too; ``k`` where the position leaves it open (a flow of a given number of steps)."""
    from niagara_solver.engine.flow import flow_value
    from niagara_solver.model.errors import NiagaraError
    try:
        return flow_value(pos)
    except NiagaraError:
        return k


def _engine_has_no_turn(position: Position, model: z3.ModelRef, card: Any) -> bool:
    from niagara_solver.engine.turns import legal_turns
    return not legal_turns(position, 0)


def _witness(relations: Relations, step: TurnStep) -> list[Any]:
    """A turn for every position and card: the cloud moves the weather toward the middle; with a paddle,
    every river canoe paddles straight upstream (home if the budget reaches), and of two port canoes one paddles
    straight down (``exactly_one``) or none acts (``at_most_one``); a port canoe beside a river canoe stays.
    With the expansion's cards (X-CARDS-3, X-CARDS-4): the Lasso moors (under ``lasso_scope: one`` the first river
    canoe); the 1/2/3 card is played as a 1, and under ``card_123_canoes: one`` only the first river canoe acts
    (with none on the river, as R-TURN-3 lets port canoes act)."""
    from niagara_solver.model.ruleset import Card123Canoes, PortDeparture
    t, rules = relations.tables, relations.rules
    pre, choice = step.pre, step.choice
    n = choice.card
    paddle = n != 0
    places = pre.place[0]
    both_port = z3.And(places[0] == t.PORT, places[1] == t.PORT)
    port_moves = both_port if rules.port_departure is PortDeparture.EXACTLY_ONE else z3.BoolVal(False)
    one_only = z3.BoolVal(False)
    out = []
    cave = pre.cave
    taken: list[Any] = []
    if rules.x_cards:
        assert choice.budget is not None
        is_123 = n == 9
        paddle = z3.And(n != 0, n != 8)
        out.append(choice.budget == z3.If(is_123, 1, 0))
        if choice.moor is not None:
            first_river = [t.is_disc(places[0]), z3.And(t.is_disc(places[1]), z3.Not(t.is_disc(places[0])))]
            out += [m == z3.And(n == 8, r) for m, r in zip(choice.moor, first_river)]
        if rules.card_123_canoes is Card123Canoes.ONE:
            one_only = is_123
        n = z3.If(is_123, 1, n)
    out.append(choice.step == z3.If(paddle, 0, z3.If(pre.weather < rules.weather_max, 1, -1))
               if not rules.x_cards else
               choice.step == z3.If(z3.Or(paddle, choice.card == 8), 0,
                                    z3.If(pre.weather < rules.weather_max, 1, -1)))
    for s in choice.slots:
        x = places[s.who]
        river = t.is_disc(x)
        leaves = port_moves if s.who == 0 else z3.BoolVal(False)
        acts = z3.Or(river, leaves)
        if rules.x_cards:  # one canoe with the 1/2/3 card: the first on the river, else as R-TURN-3 allows
            alone = z3.And(river, z3.Not(t.is_disc(places[0]))) if s.who == 1 else z3.Or(river, leaves)
            acts = z3.If(one_only, alone, acts)
        reach = n
        if choice.take is not None and pre.holder is not None:  # no moose taken; a holder has 2 more (X-MOOSE-2)
            reach = n + z3.If(pre.holder[0][s.who], 2, 0)
            if pre.whirl is not None and pre.moose is not None:
                # With the whirlpool, a canoe whose points no movement spends takes the waiting moose where its 2
                # more points make a movement (X-MOOSE-1, X-WHIRL-3).
                take = z3.And(s.on, paddle, pre.moose == 0, *(z3.Not(t_) for t_ in taken),
                              member(x, t.brinks), _skipped(relations, x, pre.whirl, reach),
                              z3.Not(_skipped(relations, x, pre.whirl, reach + 2)))
                out.append(choice.take[s.who] == take)
                taken.append(choice.take[s.who])
                reach = reach + z3.If(take, 2, 0)
            else:
                out.append(z3.Not(choice.take[s.who]))
        out.append(s.on == z3.And(paddle, acts))
        if pre.whirl is not None and s.push is not None:
            out += _whirl_witness(relations, pre, s, x, reach, cave)
            # The next canoe finds the caves as this one's gem actions left them.
            cave = [[cave[cc][c] - z3.Sum([op.load[cc][c] - op.unload[cc][c] for op in (s.pre, s.post)])
                     for c in range(NCOL)] for cc in range(NCOL)]
        else:
            out += [s.move == z3.If(s.on, z3.If(river, -1, 1), 0),
                    s.dest == z3.If(river, t.up_by(x, reach), z3.If(s.on, t.disc_at_depth(reach), x))]
            out += [cell == 0 for op in (s.pre, s.post) for cell in op.cells()]
        out += [cell == 0 for j in range(len(s.steals)) for cell in s.steal_cells(j)]
        if s.take_joe is not None and s.give_joe is not None:  # no trade with Diamond Joe
            out += [z3.Not(s.take_joe), *(g == 0 for g in s.give_joe)]
    return out


def _whirl_witness(relations: Relations, pre: SymPosition, s: Any, x: Any, reach: Any,
                   cave: list[list[Any]]) -> list[Any]:
    """The witness with the whirlpool (X-WHIRL-2..5): a river canoe paddles upstream with exactly its points counted
    as X-WHIRL-3 counts them (or home); where the whirlpool's extra point skips that cost, downstream; where no
    movement alone spends the points, one gem action where it stands (unload its first gem, or load the first colour
    of the cave) before a movement of the rest, or a load after a movement; with nothing to load or unload, it
    stays (X-WHIRL-5). A port canoe paddles down to a disc at the depth of its points, not the whirlpool if another
    disc lies there; a canoe ending on the whirlpool is pushed down its first branch."""
    from niagara_solver.encoding.core import _bare_cases
    from niagara_solver.model.ruleset import WhirlCostStep
    enc = relations.enc
    t = enc.tables
    assert pre.whirl is not None
    leave = enc.rules.whirl_cost_step is WhirlCostStep.LEAVE
    me = pre.place[0][s.who]
    cargo = pre.cargo[0][s.who]
    bare = {(c[0], c[1], c[2]): c[3] for c in _bare_cases(enc)}
    most = 11

    def first(counts: list[Any], c: int) -> Any:
        return z3.And(counts[c] >= 1, *(counts[d] == 0 for d in range(c)))

    def push_of(dest: int, w: int) -> int:
        if not w or dest != w:
            return 0
        return t.children[w][0] if t.children[w] else t.FALLEN

    w_ = pre.whirl
    # A movement alone: upstream the disc whose cost (X-WHIRL-3) is the points: as many discs, one fewer past the
    # whirlpool's extra point (home if they reach); where that cost is the one skipped, downstream; from the port,
    # a disc at that depth, another than the whirlpool if there is one.
    above = z3.And(t.is_disc(w_), t.upstream_of(w_, x))
    gap = t.depth_of(x) - t.depth_of(w_)
    off = 1 if leave else 0
    toll = z3.If(z3.And(above, reach >= gap + 1 + off), 1, 0)
    skipped = z3.And(above, reach == gap + off)
    down_first: Any = x
    for d in t.disc_ids:
        for n in range(1, most + 1):
            below = t.down_at(d, n)
            if below:
                down_first = z3.If(z3.And(x == d, reach == n), below[0], down_first)
    from_port: Any = z3.IntVal(t.PORT)
    for n in range(1, most + 1):
        below = t.down_at(t.PORT, n)
        for w in [0, *t.disc_ids]:
            if below:
                from_port = z3.If(z3.And(reach == n, w_ == w), next((d for d in below if d != w), below[0]), from_port)
    move: Any = z3.If(x == t.PORT, 1, z3.If(skipped, 1, -1))
    dest: Any = z3.If(x == t.PORT, from_port, z3.If(skipped, down_first, t.up_by(x, reach - toll)))
    first_child: Any = z3.IntVal(0)
    for d, below in t.children.items():
        first_child = z3.If(w_ == d, below[0] if below else t.FALLEN, first_child)
    push: Any = z3.If(z3.And(t.is_disc(w_), dest == w_), first_child, 0)
    pre_load: dict[tuple[int, int], Any] = {}
    pre_unload: dict[tuple[int, int], Any] = {}
    post_load: dict[tuple[int, int], Any] = {}
    post_load2: dict[tuple[int, int], Any] = {}
    carrying = z3.Sum(cargo) >= 1
    for (start, w, n), shapes in bare.items():
        here = z3.And(x == start, w_ == w, reach == n)
        # A case of X-WHIRL-5's expansion: one gem action before a movement, or loads after one, or stay.
        move = z3.If(here, 0, move)
        dest = z3.If(here, start, dest)
        push = z3.If(here, 0, push)
        cc = t.cave.get(start, 0)
        options: list[tuple[Any, int, int, Any]] = []  # (condition, move, dest, which op)
        if cc and n >= 2 and not (n == 2 and enc.rules.must_move):
            then = (0, start) if n == 2 else _up_at(t, start, w or None, n - 2, leave)
            if then is not None:
                can = z3.Or(carrying, z3.Sum(cave[cc - 1]) >= 1)
                options.append((can, then[0], then[1], ("pre", cc)))
        room = pre.capacity(0, s.who, enc.rules.capacity)
        for e, ops, c in shapes:
            ce = t.cave.get(e, 0)
            if ops in (1, 2) and c >= 1 and ce and e != start:
                direction = -1 if e in t.above.get(start, []) else 1
                can = z3.And(z3.Not(carrying), z3.Sum(cave[ce - 1]) >= ops, room >= ops)
                options.append((can, direction, e, ("post" if ops == 1 else "post2", ce)))
        chosen = z3.BoolVal(False)
        for can, mv, dst, (side, colour) in options:
            pick = z3.And(here, z3.Not(chosen), can)
            move = z3.If(pick, mv, move)
            dest = z3.If(pick, dst, dest)
            push = z3.If(pick, push_of(dst, w), push)
            for c in range(NCOL):
                if side == "pre":
                    un = z3.And(pick, carrying, first(cargo, c))
                    ld = z3.And(pick, z3.Not(carrying), first(cave[colour - 1], c))
                    pre_unload[colour - 1, c] = z3.Or(pre_unload.get((colour - 1, c), False), un)
                    pre_load[colour - 1, c] = z3.Or(pre_load.get((colour - 1, c), False), ld)
                else:
                    ld = z3.And(pick, first(cave[colour - 1], c))
                    post_load[colour - 1, c] = z3.Or(post_load.get((colour - 1, c), False), ld)
                    if side == "post2":  # the second load: the first colour left after the first
                        left = [cave[colour - 1][d] - z3.If(first(cave[colour - 1], d), 1, 0)
                                for d in range(NCOL)]
                        ld2 = z3.And(pick, first(left, c))
                        post_load2[colour - 1, c] = z3.Or(post_load2.get((colour - 1, c), False), ld2)
            chosen = z3.Or(chosen, can)
    out = [s.move == z3.If(s.on, move, 0), s.dest == z3.If(s.on, dest, me), s.push == z3.If(s.on, push, 0)]
    # The gem actions counted at each stop (GemActions): the two loads after a movement may be of one colour.
    for cells, tables in ((s.pre.load, (pre_load,)), (s.pre.unload, (pre_unload,)),
                          (s.post.load, (post_load, post_load2))):
        out += [cells[cc][c] == z3.Sum([z3.If(z3.And(s.on, table.get((cc, c), False)), 1, 0) for table in tables])
                for cc in range(NCOL) for c in range(NCOL)]
    out += [cell == 0 for row in s.post.unload for cell in row]
    return out


def _skipped(relations: Relations, x: Any, whirl: Any, points: Any) -> Any:
    """No movement alone spends ``points`` from ``x`` with the whirlpool on ``whirl`` (X-WHIRL-5's cases)."""
    from niagara_solver.encoding.core import _bare_cases
    return z3.Or([z3.And(x == c[0], whirl == c[1], points == c[2]) for c in _bare_cases(relations.enc)])


def _up_at(t: Any, start: int, whirl: int | None, cost: int, leave: bool) -> tuple[int, int] | None:
    """The upstream movement from ``start`` costing exactly ``cost`` points (X-WHIRL-3), or home if they reach."""
    costs = t.up_costs(start, whirl, leave)
    for place, c in costs[:-1]:
        if c == cost:
            return -1, place
    return (-1, t.PORT) if costs and cost >= costs[-1][1] else None


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
    from niagara_solver.model.atoms import COLOURS
    return COLOURS[c].label


def not_asked(prop: Property) -> PropertyResult:
    """The verdict on a property the time limit left no time to ask: UNKNOWN."""
    return PropertyResult(prop.id, prop.title, Verdict.UNKNOWN, 0.0, prop.method, prop.rules,
                          tuple(p for p, _ in prop.obligations), note="not asked: the time limit ran out")


def prove(board: Board, rules: Ruleset, players: int, ids: Iterable[str] | None = None,
          timeout: float | None = None, mutant: Mutant | None = None, minimize: bool = True,
          progress: Callable[[str], None] | None = None) -> list[PropertyResult]:
    """Check the catalogue (or the properties ``ids``) for ``players`` players, within ``timeout`` seconds in all
    (the properties not settled by then are UNKNOWN); ``progress`` is told each property as it starts."""
    chosen = [BY_ID[i] for i in ids] if ids else list(catalogue_for(rules))
    with time_limit(timeout):
        if out_of_time():  # not even the relations are built
            return [not_asked(p) for p in chosen]
        prover = Prover(board, rules, players, mutant, timeout)
        results = []
        for p in chosen:
            if progress is not None:
                progress(f"{p.id} {players}p")
            results.append(prover.check(p, minimize))
        return results


__all__ = ["prove", "not_asked", "Prover", "PropertyResult", "Counterexample", "CATALOGUE", "RESCUE", "field"]
