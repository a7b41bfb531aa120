"""The turn generator's slow reference: paddle turns walked again on a plain state, for tests/test_paddling.py.

The engine's generator (niagara_solver/engine/paddling.py) carries a compact state, interned and memoised, with
unrolled loops and positions made on first use. This walk carries a plain :class:`Snapshot` (every canoe, cave and
bank as a tuple) from choice to choice, builds every turn and position outright, and identifies results by their
snapshot: what it checks is the generator's walk and bookkeeping. The rule at each choice is asked of the same
functions (niagara_solver/engine/canoe.py), so the two cannot disagree on a rule; the rule-by-rule interpreter
(engine/apply.py) and the brute force over the notation (brute.py) read the rules independently.

It walks the choices in the generator's order, so the two list the same turns (the first found for each result) in
the same order.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Iterator, NamedTuple

from niagara_solver.engine import canoe as rule
from niagara_solver.engine.canoe import CanoeState, GemRun
from niagara_solver.engine.outcome import TurnOutcome
from niagara_solver.engine.turns import check_turn_context, legal_turns, paddle_queries
from niagara_solver.model.atoms import DOUBLE_CAPACITY, FALLEN, NEXT, PORT, Card, Colour, Gems, Moose
from niagara_solver.model.notation import CanoeAction, CanoeRef, Move, Push, Step, TakeMoose, Turn
from niagara_solver.model.position import Joe, Position


class Snapshot(NamedTuple):
    """The parts of a position a paddle turn changes, as plain tuples (indices as in the position).

    With the moose (X-MOOSE-1..3): where it is, and which canoe (player, index) holds it. With Diamond Joe
    (X-JOE-1..3): his disc and his gem."""

    caves: tuple[Gems, ...]
    canoes: tuple[tuple[CanoeState, ...], ...]
    banks: tuple[Gems, ...]
    moose: Moose | None = None
    holder: tuple[int, int] | None = None
    #: Which canoes are double (X-DOUBLE-1), by player and index; None without the module (no turn changes it).
    doubles: tuple[tuple[bool, ...], ...] | None = None
    #: Diamond Joe's (disc, gem), None without the module; a trade changes his gem (X-JOE-3).
    joe: tuple[str, Colour | None] | None = None

    @classmethod
    def of(cls, pos: Position) -> "Snapshot":
        holder = next(((q, k) for q, p in enumerate(pos.players) for k, c in enumerate(p.canoes) if c.moose), None)
        doubles = (tuple(tuple(c.double for c in p.canoes) for p in pos.players) if pos.ruleset.x_double else None)
        return cls(pos.caves, tuple(tuple((c.place, c.gems) for c in p.canoes) for p in pos.players),
                   tuple(p.bank for p in pos.players), pos.moose, holder, doubles,
                   (pos.joe.place, pos.joe.gem) if pos.joe is not None else None)

    def key(self) -> tuple[object, ...]:
        """Identifies the resulting position: a player's canoes are compared as a sorted collection (with their
        kinds; the moose's holder by its canoe's state)."""
        held = None
        if self.holder is not None:
            held = (self.holder[0], self.canoes[self.holder[0]][self.holder[1]])
        canoes: tuple[object, ...]
        if self.doubles is None:
            canoes = tuple(tuple(sorted(cs)) for cs in self.canoes)
        else:
            canoes = tuple(tuple(sorted(zip(cs, ds))) for cs, ds in zip(self.canoes, self.doubles))
        return (self.caves, canoes, self.banks, self.moose, held, self.joe)

    def capacity(self, player: int, index: int, base: int) -> int:
        """The gems a canoe carries at most: 2 for a double canoe (X-DOUBLE-1), else ``capacity`` (R-GEM-2)."""
        return DOUBLE_CAPACITY if self.doubles is not None and self.doubles[player][index] else base

    def with_canoe(self, player: int, index: int, canoe: CanoeState) -> "Snapshot":
        canoes = list(self.canoes)
        mine = list(canoes[player])
        mine[index] = canoe
        canoes[player] = tuple(mine)
        return self._replace(canoes=tuple(canoes))

    def with_cave(self, colour: Colour, cave: Gems) -> "Snapshot":
        caves = list(self.caves)
        caves[colour - 1] = cave
        return self._replace(caves=tuple(caves))


_Emit = Callable[[tuple[Step, ...], Snapshot], Iterator[tuple[CanoeAction, Snapshot]]]


class _Generator:
    """Generates the actions of one player's canoes with one paddle card."""

    def __init__(self, pos: Position, player: int, budget: int) -> None:
        self.pos = pos
        self.board = pos.board
        self.rules = pos.ruleset
        self.player = player
        self.budget = budget
        self.names = [p.name for p in pos.players]
        #: Canoes moored by a Lasso earlier this round: off the river, so nobody steals from them (X-CARDS-4).
        self.moored = frozenset((q, k) for q, p in enumerate(pos.players) for k, c in enumerate(p.canoes)
                                if c.moored)
        #: The whirlpool's disc (X-WHIRL-1); None without the module or while it waits to come back ("next").
        self.whirl = pos.whirlpool if pos.whirlpool not in (None, NEXT) else None

    def canoe_options(self, snap: Snapshot, index: int, ref: CanoeRef) -> Iterator[tuple[CanoeAction, Snapshot]]:
        """Every distinct action of the canoe ``index`` of the player (R-MOVE-1), with its result; on a last disc
        with the moose waiting, also each action after taking it (X-MOOSE-1). With the whirlpool: an action pushed
        over the falls only where every action falls so (X-WHIRL-2), and staying put where the canoe has no action at
        all (X-WHIRL-5)."""
        place = snap.canoes[self.player][index][0]
        take = rule.may_take_moose(snap.moose, place, self.board.brinks, (self.player, index) in self.moored)
        taken = snap._replace(moose=Moose.HELD, holder=(self.player, index))
        options = list(self._canoe_options(snap, index, ref, ()))
        if take:
            options += self._canoe_options(taken, index, ref, (TakeMoose(),))
        if self.rules.x_whirl:
            options = rule.avoiding_the_falls(options, [falls(o[0]) for o in options], self.rules)
            if not options:  # X-WHIRL-5: it stays where it is, its points lost; it may still take the moose
                options = [(CanoeAction(ref, ()), snap)]
                if take:
                    options.append((CanoeAction(ref, (TakeMoose(),)), taken))
        yield from options

    def _canoe_options(self, snap: Snapshot, index: int, ref: CanoeRef,
                       first: tuple[Step, ...]) -> Iterator[tuple[CanoeAction, Snapshot]]:
        board, rules = self.board, self.rules
        n = rule.points(self.budget, snap.holder == (self.player, index))
        place, gems = snap.canoes[self.player][index]
        seen: set[Snapshot] = set()

        def emit(steps: tuple[Step, ...], result: Snapshot) -> Iterator[tuple[CanoeAction, Snapshot]]:
            for more, traded in self._trades(result, index, steps):
                if traded not in seen:
                    seen.add(traded)
                    yield CanoeAction(ref, (*first, *steps, *more)), traded

        here = board.cave.get(place) if place != PORT else None
        if here is None:
            pre = rule.no_gem_actions(gems)
        else:
            pre = rule.gem_runs(gems, snap.caves[here - 1], 0, 0, n,
                                snap.capacity(self.player, index, rules.capacity))
        for run in pre:
            after = snap.with_cave(here, run.cave) if here is not None and run.ops else snap
            rest = n - run.cost
            if rest == 0:
                if rule.may_stay_put(place, rules):
                    yield from emit(run.ops, after.with_canoe(self.player, index, (place, run.gems)))
                continue
            if place != PORT:
                yield from self._upstream(after, index, place, run, rest, emit)
            yield from self._downstream(after, index, place, run, rest, emit)

    def _trades(self, snap: Snapshot, index: int,
                steps: tuple[Step, ...]) -> Iterator[tuple[tuple[Step, ...], Snapshot]]:
        """The action as it is, then with each trade with Diamond Joe it may end with (X-JOE-3)."""
        yield (), snap
        place, gems = snap.canoes[self.player][index]
        paddled = any(isinstance(s, Move) for s in steps) and not any(isinstance(s, Push) for s in steps)
        if snap.joe is None or not rule.may_trade(place, snap.joe, paddled):
            return
        capacity = snap.capacity(self.player, index, self.rules.capacity)
        for step, cargo, gem in rule.joe_trades(gems, snap.joe[1], capacity):
            yield (step,), snap._replace(joe=(snap.joe[0], gem)).with_canoe(self.player, index, (place, cargo))

    def _arrive(self, snap: Snapshot, index: int, dest: str, run: GemRun, rest: int,
                prefix: tuple[Step, ...]) -> Iterator[tuple[tuple[Step, ...], Snapshot]]:
        """Gem actions where the canoe stops, spending exactly the ``rest`` of its budget (R-MOVE-3)."""
        colour = self.board.cave[dest]
        if not rule.may_stop(rest, colour, False):
            return
        if rest == 0:
            yield prefix, snap.with_canoe(self.player, index, (dest, run.gems))
            return
        assert colour is not None
        double = snap.doubles is not None and snap.doubles[self.player][index]
        if run.ops and rule.one_side(self.rules, double):
            return  # gem actions before the movement, so none after it
        capacity = snap.capacity(self.player, index, self.rules.capacity)
        for post in rule.gem_runs_costing(run.gems, snap.caves[colour - 1], run.loaded, run.unloaded, rest,
                                          capacity):
            yield (*prefix, *post.ops), snap.with_cave(colour, post.cave).with_canoe(self.player, index,
                                                                                      (dest, post.gems))

    def _upstream(self, snap: Snapshot, index: int, place: str, run: GemRun, rest: int,
                  emit: _Emit) -> Iterator[tuple[CanoeAction, Snapshot]]:
        above = self.board.above(place)
        costs = rule.upstream_costs(place, above, self.whirl, self.rules.whirl_cost_step)
        for dest, cost in zip(above[:-1], costs):
            if cost > rest:
                break
            move = Move(dest, downstream=False)
            if dest == self.whirl:
                if rule.may_stop(rest - cost, None, True):
                    yield from self._pushed(snap, index, run.gems, (*run.ops, move), emit)
                continue
            for steps, result in self._arrive(snap, index, dest, run, rest - cost, (*run.ops, move)):
                yield from emit(steps, result)
                if cost == rest:
                    yield from self._steals(result, index, dest, run, steps, emit)
        if rest >= costs[-1] and rule.may_enter_port(run.loaded, self.rules):
            banks = list(snap.banks)
            banks[self.player] = rule.banked(banks[self.player], run.gems)
            moose, holder = rule.moose_home(snap.moose, snap.holder, (self.player, index))
            result = snap._replace(banks=tuple(banks), moose=moose, holder=holder)
            yield from emit((*run.ops, Move(PORT, downstream=False)), result.with_canoe(self.player, index, (PORT, ())))

    def _pushed(self, snap: Snapshot, index: int, gems: tuple[Colour, ...], steps: tuple[Step, ...],
                emit: _Emit) -> Iterator[tuple[CanoeAction, Snapshot]]:
        """X-WHIRL-2: the canoe that ended its movement on the whirlpool is pushed on; over the falls its gems go home
        (R-FLOW-6) and the moose it holds returns (X-MOOSE-3)."""
        assert self.whirl is not None
        for dest in rule.pushed_to(self.board.below(self.whirl, 1)):
            if dest != FALLEN:
                yield from emit((*steps, Push(dest)), snap.with_canoe(self.player, index, (dest, gems)))
                continue
            moose, holder = rule.moose_home(snap.moose, snap.holder, (self.player, index))
            result = snap._replace(caves=rule.gems_home(snap.caves, gems), moose=moose, holder=holder)
            yield from emit((*steps, Push(FALLEN)), result.with_canoe(self.player, index, (FALLEN, ())))

    def _steals(self, snap: Snapshot, index: int, dest: str, run: GemRun, steps: tuple[Step, ...],
                emit: _Emit) -> Iterator[tuple[CanoeAction, Snapshot]]:
        """R-STEAL-1..5: a thief that paddled up and stopped with its budget spent takes gems."""
        double = snap.doubles is not None and snap.doubles[self.player][index]
        if not rule.may_steal(run.gems, run.unloaded, double, self.rules):
            return
        room = snap.capacity(self.player, index, self.rules.capacity) - len(run.gems)
        victims = rule.victims(snap.canoes, self.player, dest, self.moored)
        for chosen in rule.steal_choices(victims, room):
            notes, canoes = rule.robbed(snap.canoes, chosen, dest, self.names, snap.doubles)
            thief = tuple(sorted((*run.gems, *(colour for _, _, colour in chosen))))
            yield from emit((*steps, *notes), snap._replace(canoes=canoes).with_canoe(self.player, index,
                                                                                     (dest, thief)))

    def _downstream(self, snap: Snapshot, index: int, place: str, run: GemRun, rest: int,
                    emit: _Emit) -> Iterator[tuple[CanoeAction, Snapshot]]:
        # R-MOVE-4: any branch below a fork, never across branches, never over the falls.
        for distance in range(1, rest + 1):
            dests = self.board.below(place, distance)
            if not dests:
                break
            for dest in dests:
                move = Move(dest, downstream=True)
                if dest == self.whirl:
                    if rule.may_stop(rest - distance, None, True):
                        yield from self._pushed(snap, index, run.gems, (*run.ops, move), emit)
                    continue
                for steps, result in self._arrive(snap, index, dest, run, rest - distance, (*run.ops, move)):
                    yield from emit(steps, result)


def falls(action: CanoeAction) -> bool:
    """Whether the whirlpool pushes the canoe over the falls in this action (X-WHIRL-2)."""
    return any(isinstance(s, Push) and s.dest == FALLEN for s in action.steps)


def _position_of(base: Position, start: Snapshot, snap: Snapshot) -> Position:
    """The position ``base`` with the changes of ``snap`` (players untouched by the turn are kept as they are;
    a changed canoe keeps its kind and marks, but the moose goes with the snapshot's holder)."""
    moose_moved = snap.holder != start.holder
    players = tuple(
        p if snap.canoes[i] == start.canoes[i] and snap.banks[i] == start.banks[i] and not moose_moved else
        dataclasses.replace(p, canoes=tuple(
            c if (c.place, c.gems) == state and c.moose == (snap.holder == (i, k)) else
            dataclasses.replace(c, place=state[0], gems=state[1], moose=snap.holder == (i, k))
            for k, (c, state) in enumerate(zip(p.canoes, snap.canoes[i]))), bank=snap.banks[i])
        for i, p in enumerate(base.players))
    joe = base.joe
    if snap.joe is not None and (joe is None or (joe.place, joe.gem) != snap.joe):
        joe = Joe(*snap.joe)
    return dataclasses.replace(base, players=players, caves=snap.caves, moose=snap.moose, joe=joe)


def legal_turns_reference(pos: Position, player: int, card: Card | None = None) -> list[TurnOutcome]:
    """``legal_turns`` with the paddle turns walked by this module: the same outcomes, turns and order. The cloud
    and the Lasso, where no canoe paddles, are the engine's own (engine/turns.py)."""
    card = check_turn_context(pos, player, card)
    if card is Card.CLOUD or card is Card.LASSO:
        return legal_turns(pos, player, card)
    return [o for query in paddle_queries(pos, player, card) for o in _paddle_outcomes(pos, player, *query)]


def _paddle_outcomes(pos: Position, player: int, budget: int, orders: list[tuple[int, ...]], revealed: Position,
                     chosen: int | None) -> list[TurnOutcome]:
    """The distinct outcomes of the canoes acting with ``budget`` each, one after the other in each of ``orders``."""
    gen = _Generator(pos, player, budget)
    start = Snapshot.of(pos)
    found: dict[tuple[object, ...], tuple[Turn, Snapshot]] = {}
    for order in orders:
        refs = [rule.canoe_ref(pos, player, i) for i in order]
        for actions, result in _sequence(gen, start, order, refs):
            key = result.key()
            if key not in found:
                found[key] = (Turn(actions, budget=chosen), result)
    outcomes = [TurnOutcome(turn, _position_of(revealed, start, snap)) for turn, snap in found.values()]
    outcomes.sort(key=lambda o: (len(o.turn.actions), str(o.turn)))
    return outcomes


def _sequence(gen: _Generator, snap: Snapshot, order: tuple[int, ...],
              refs: list[CanoeRef]) -> Iterator[tuple[tuple[CanoeAction, ...], Snapshot]]:
    """The canoes in ``order`` act one after the other, each finishing before the next (R-TURN-4)."""
    if not order:
        yield (), snap
        return
    for action, after in gen.canoe_options(snap, order[0], refs[0]):
        for rest, final in _sequence(gen, after, order[1:], refs[1:]):
            yield (action, *rest), final
