"""Every distinct legal turn of a player with a card (phase II: R-TURN, R-MOVE, R-GEM, R-STEAL, R-WEATHER).

The generator builds turns by construction, canoe by canoe, and never produces an illegal one:

* which canoes act is fixed at the start of the turn (R-TURN-3) and they act in either order (R-TURN-4);
* each canoe's action is gem actions where it stands, one movement in one direction, gem actions where
  it stops (with ``gem_sides: one``, on one side of the movement only), then optional steals (R-MOVE-1),
  spending exactly its budget (R-MOVE-3) unless it enters the port (R-MOVE-5);
* outcomes are deduplicated on the fly by their resulting position, so a turn list holds one turn per
  distinct result (the first found, in a fixed order).

The module :mod:`.apply` checks a given turn rule by rule; the two are independent readings of the rules
and the tests hold them to the same answers.

:func:`legal_turns` generates paddle turns with :mod:`.paddling`, the same walk on a compact state (every switch and
module covered); :func:`legal_turns_reference` keeps this module's own generator, on :class:`Snapshot`, as its slow
reference. The cloud and the Lasso are the same in both.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Iterator, NamedTuple, TypeVar

from niagara_solver.model.readings import require
from niagara_solver.model.errors import IllegalTurnError, PhaseError
from niagara_solver.model.atoms import DOUBLE_CAPACITY, FALLEN, NEXT, PORT, Card, Colour, Gems, Moose, Phase
from niagara_solver.model.position import Joe, Player, Position
from niagara_solver.model.ruleset import (Card123Canoes, GemSides, LassoScope, PortDeparture, WhirlBrink,
                                          WhirlCostStep)
from niagara_solver.model.notation import (CanoeAction, CanoeRef, Load, Move, Push, Steal, Step, TakeMoose, Trade,
                                           Turn, Unload)
from niagara_solver.engine import paddling
from niagara_solver.engine.paddling import MOOSE_BONUS, TurnOutcome, paddle_outcomes

CanoeState = tuple[str, tuple[Colour, ...]]
T = TypeVar("T")


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


_Emit = Callable[[tuple[Step, ...], Snapshot], Iterator[tuple[CanoeAction, Snapshot]]]


class _Run(NamedTuple):
    """A sequence of gem actions at one cave and where it leaves the canoe."""

    ops: tuple[Step, ...]
    gems: tuple[Colour, ...]
    cave: Gems
    loaded: frozenset[Colour]
    unloaded: frozenset[Colour]
    cost: int


def _gem_runs(gems: tuple[Colour, ...], cave: Gems, loaded: frozenset[Colour], unloaded: frozenset[Colour],
              budget: int, capacity: int) -> list[_Run]:
    """Every distinct sequence of loads and unloads at one cave costing at most ``budget`` (R-GEM-1..4).

    A canoe may unload any gem it carries unless it loaded that colour this turn, and load any colour in
    the cave unless it unloaded that colour this turn (R-GEM-4), while it has room (R-GEM-2).
    """
    start = _Run((), gems, cave, loaded, unloaded, 0)
    runs = [start]
    seen = {(gems, cave, loaded, unloaded)}
    frontier = [start]
    while frontier and frontier[0].cost + 2 <= budget:
        nxt: list[_Run] = []
        for run in frontier:
            candidates: list[_Run] = []
            for colour in sorted(set(run.gems)):
                if colour in run.loaded:
                    continue  # R-GEM-4: not a colour loaded this turn
                rest = list(run.gems)
                rest.remove(colour)
                candidates.append(_Run((*run.ops, Unload(colour)), tuple(rest), run.cave.plus(colour),
                                       run.loaded, run.unloaded | {colour}, run.cost + 2))
            if len(run.gems) < capacity:
                for colour in run.cave.colours():
                    if colour in run.unloaded:
                        continue  # R-GEM-4: not a colour unloaded this turn
                    candidates.append(_Run((*run.ops, Load(colour)), tuple(sorted((*run.gems, colour))),
                                           run.cave.minus(colour), run.loaded | {colour}, run.unloaded,
                                           run.cost + 2))
            for cand in candidates:
                state = (cand.gems, cand.cave, cand.loaded, cand.unloaded)
                if state not in seen:
                    seen.add(state)
                    nxt.append(cand)
        runs.extend(nxt)
        frontier = nxt
    return runs


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

    def up_cost(self, frm: str, to: str) -> int:
        """The points of one upstream step from ``frm`` to ``to``: 1, or 2 onto the whirlpool (``whirl_cost_step:
        enter``) or off it (``leave``), X-WHIRL-3."""
        if self.whirl is None:
            return 1
        if self.rules.whirl_cost_step is WhirlCostStep.ENTER:
            return 2 if to == self.whirl else 1
        return 2 if frm == self.whirl else 1

    def _ref(self, snap: Snapshot, index: int) -> CanoeRef:
        place, gems = snap.canoes[self.player][index]
        canoes = self.pos.players[self.player].canoes
        for k, (other_place, other_gems) in enumerate(snap.canoes[self.player]):
            if k != index and other_place == place:
                if other_gems != gems:
                    return CanoeRef(place, gems)
                if canoes[k].kind is not canoes[index].kind:  # X-DOUBLE-1: same place and cargo
                    return CanoeRef(place, kind=canoes[index].kind.value)
                if snap.holder == (self.player, index):  # X-MOOSE-2: the holder; the other goes unmarked
                    return CanoeRef(place, kind="moose")
        return CanoeRef(place)

    def canoe_options(self, snap: Snapshot, index: int, ref: CanoeRef) -> Iterator[tuple[CanoeAction, Snapshot]]:
        """Every distinct action of the canoe ``index`` of the player (R-MOVE-1), with its result; on a last disc
        with the moose waiting, also each action after taking it (X-MOOSE-1). With the whirlpool: an action pushed
        over the falls only where every action falls so (``whirl_brink: avoid``, X-WHIRL-2), and staying put where
        the canoe has no action at all (X-WHIRL-5)."""
        if not self.rules.x_whirl:
            yield from self._canoe_options(snap, index, ref, ())
            if self.may_take_moose(snap, index):
                yield from self._canoe_options(self._taken(snap, index), index, ref, (TakeMoose(),))
            return
        options = list(self._canoe_options(snap, index, ref, ()))
        if self.may_take_moose(snap, index):
            options += self._canoe_options(self._taken(snap, index), index, ref, (TakeMoose(),))
        if self.rules.whirl_brink is WhirlBrink.AVOID:
            kept = [o for o in options if not falls(o[0])]
            options = kept or options
        if not options:  # X-WHIRL-5: it stays where it is, its points lost; it may still take the moose
            options = [(CanoeAction(ref, ()), snap)]
            if self.may_take_moose(snap, index):
                options.append((CanoeAction(ref, (TakeMoose(),)), self._taken(snap, index)))
        yield from options

    def _taken(self, snap: Snapshot, index: int) -> Snapshot:
        return snap._replace(moose=Moose.HELD, holder=(self.player, index))

    def may_take_moose(self, snap: Snapshot, index: int) -> bool:
        """X-MOOSE-1: the waiting moose may be taken by a canoe on a last disc, not moored."""
        return (snap.moose is Moose.WAITING and snap.canoes[self.player][index][0] in self.board.brinks
                and (self.player, index) not in self.moored)

    def _canoe_options(self, snap: Snapshot, index: int, ref: CanoeRef,
                       first: tuple[Step, ...]) -> Iterator[tuple[CanoeAction, Snapshot]]:
        board, rules = self.board, self.rules
        # X-MOOSE-2: the canoe holding the moose gets 2 more points, from the action in which it took it on.
        n = self.budget + (MOOSE_BONUS if snap.holder == (self.player, index) else 0)
        place, gems = snap.canoes[self.player][index]
        seen: set[Snapshot] = set()

        def emit(steps: tuple[Step, ...], result: Snapshot) -> Iterator[tuple[CanoeAction, Snapshot]]:
            for more, traded in self._trades(result, index, steps):
                if traded not in seen:
                    seen.add(traded)
                    yield CanoeAction(ref, (*first, *steps, *more)), traded

        here = board.cave.get(place) if place != PORT else None
        if here is None:  # R-GEM-1: no gem actions in the port or beside no cave
            pre = [_Run((), gems, Gems(), frozenset(), frozenset(), 0)]
        else:
            pre = _gem_runs(gems, snap.caves[here - 1], frozenset(), frozenset(), n,
                            snap.capacity(self.player, index, rules.capacity))
        for run in pre:
            caves = snap.caves
            if here is not None and run.ops:
                caves = _replace_at(caves, here - 1, run.cave)
            rest = n - run.cost
            if rest == 0:
                # d = 0: the canoe spent its budget where it stands (R-MOVE-1), unless it must move.
                if place != PORT and not rules.must_move:
                    yield from emit(run.ops, snap._replace(caves=caves).with_canoe(self.player, index,
                                                                                   (place, run.gems)))
                continue
            after = snap._replace(caves=caves)
            if place != PORT:
                yield from self._upstream(after, index, place, run, rest, emit)
            yield from self._downstream(after, index, place, run, rest, emit)

    def _trades(self, snap: Snapshot, index: int,
                steps: tuple[Step, ...]) -> Iterator[tuple[tuple[Step, ...], Snapshot]]:
        """The action as it is, then each trade with Diamond Joe it may end with (X-JOE-3): a canoe that moved and
        stopped on Joe's disc takes his gem into a free place, swaps one of its gems with his (of another colour),
        or gives one of its gems to an empty Joe; free, after its gem actions and its steal."""
        yield (), snap
        place, gems = snap.canoes[self.player][index]
        if snap.joe is None or snap.joe[0] != place or not any(isinstance(s, Move) for s in steps):
            return
        if any(isinstance(s, Push) for s in steps):
            return  # X-WHIRL-2: a pushed canoe does not trade
        joe_place, joe_gem = snap.joe
        if joe_gem is not None:
            if len(gems) < snap.capacity(self.player, index, self.rules.capacity):
                yield ((Trade(take=joe_gem),), snap._replace(joe=(joe_place, None)).with_canoe(
                    self.player, index, (place, tuple(sorted((*gems, joe_gem))))))
        for colour in sorted(set(gems)):
            if colour == joe_gem:
                continue  # a swap is of two different colours
            rest = list(gems)
            rest.remove(colour)
            if joe_gem is not None:
                rest.append(joe_gem)
            yield ((Trade(give=colour, take=joe_gem),), snap._replace(joe=(joe_place, colour)).with_canoe(
                self.player, index, (place, tuple(sorted(rest)))))

    def _arrive(self, snap: Snapshot, index: int, dest: str, run: _Run, rest: int,
                prefix: tuple[Step, ...]) -> Iterator[tuple[tuple[Step, ...], Snapshot]]:
        """Gem actions where the canoe stops, spending exactly the ``rest`` of its budget (R-MOVE-3)."""
        if rest == 0:
            yield prefix, snap.with_canoe(self.player, index, (dest, run.gems))
            return
        colour = self.board.cave[dest]
        if colour is None or rest % 2:
            return
        if run.ops and self._one_side(snap, index):
            return  # gem actions before the movement, so none after it (R-MOVE-1 gem_sides: one; X-DOUBLE-2)
        capacity = snap.capacity(self.player, index, self.rules.capacity)
        for post in _gem_runs(run.gems, snap.caves[colour - 1], run.loaded, run.unloaded, rest, capacity):
            if post.cost == rest:
                moved = snap._replace(caves=_replace_at(snap.caves, colour - 1, post.cave))
                yield (*prefix, *post.ops), moved.with_canoe(self.player, index, (dest, post.gems))

    def _one_side(self, snap: Snapshot, index: int) -> bool:
        """Whether the canoe's gem actions all happen on one side of its movement: ``gem_sides: one`` (R-MOVE-1),
        or a double canoe at one cave with ``double_one_cave`` (X-DOUBLE-2)."""
        if self.rules.gem_sides is GemSides.ONE:
            return True
        return snap.doubles is not None and snap.doubles[self.player][index] and self.rules.double_one_cave

    def _upstream(self, snap: Snapshot, index: int, place: str, run: _Run, rest: int,
                  emit: _Emit) -> Iterator[tuple[CanoeAction, Snapshot]]:
        board, rules = self.board, self.rules
        above = board.above(place)
        costs: list[int] = []  # the points to each place above, the port last (X-WHIRL-3: 2 for one step)
        here = place
        for there in above:
            costs.append((costs[-1] if costs else 0) + self.up_cost(here, there))
            here = there
        for dest, cost in zip(above[:-1], costs):
            if cost > rest:
                break
            move = Move(dest, downstream=False)
            if dest == self.whirl:  # X-WHIRL-2: ending there only with the last point, then pushed down
                if cost == rest:
                    yield from self._pushed(snap, index, run.gems, (*run.ops, move), emit)
                continue
            for steps, result in self._arrive(snap, index, dest, run, rest - cost, (*run.ops, move)):
                yield from emit(steps, result)
                if cost == rest:
                    yield from self._steals(result, index, dest, run, steps, emit)
        # R-MOVE-5: the port may be entered with budget to spare; R-GEM-5: its cargo is banked for free.
        if rest >= costs[-1] and (rules.bank_after_load or not run.loaded):
            banks = snap.banks
            if run.gems:
                bank = banks[self.player]
                for colour in run.gems:
                    bank = bank.plus(colour)
                banks = _replace_at(banks, self.player, bank)
            result = snap._replace(banks=banks).with_canoe(self.player, index, (PORT, ()))
            if result.holder == (self.player, index):  # X-MOOSE-3: home with the moose, which returns
                result = result._replace(moose=Moose.RETURNING, holder=None)
            yield from emit((*run.ops, Move(PORT, downstream=False)), result)

    def _pushed(self, snap: Snapshot, index: int, gems: tuple[Colour, ...], steps: tuple[Step, ...],
                emit: _Emit) -> Iterator[tuple[CanoeAction, Snapshot]]:
        """X-WHIRL-2: the canoe that ended its movement on the whirlpool goes one disc down, into the branch its
        owner picks at a fork, or over the falls from a last disc (R-FLOW-6: its gems go back to their caves, the
        moose it holds returns, X-MOOSE-3). A pushed canoe neither steals nor trades."""
        assert self.whirl is not None
        below = self.board.below(self.whirl, 1)
        for dest in below:
            yield from emit((*steps, Push(dest)), snap.with_canoe(self.player, index, (dest, gems)))
        if not below:
            caves = snap.caves
            for gem in gems:
                caves = _replace_at(caves, gem - 1, caves[gem - 1].plus(gem))
            result = snap._replace(caves=caves).with_canoe(self.player, index, (FALLEN, ()))
            if result.holder == (self.player, index):
                result = result._replace(moose=Moose.RETURNING, holder=None)
            yield from emit((*steps, Push(FALLEN)), result)

    def _steals(self, snap: Snapshot, index: int, dest: str, run: _Run, steps: tuple[Step, ...],
                emit: _Emit) -> Iterator[tuple[CanoeAction, Snapshot]]:
        """R-STEAL-1..5: an empty canoe that paddled up and stopped with its budget spent may steal; a double canoe
        with a free place while it moved, as many gems as it has free places (X-DOUBLE-3)."""
        double = snap.doubles is not None and snap.doubles[self.player][index]
        if (run.gems and not double) or (run.unloaded and not self.rules.steal_after_unload):
            return
        free = (DOUBLE_CAPACITY - len(run.gems)) if double else self.rules.capacity
        if free <= 0:
            return
        victims = [(q, k, gems) for q, canoes in enumerate(snap.canoes) if q != self.player
                   for k, (at, gems) in enumerate(canoes) if at == dest and gems and (q, k) not in self.moored]
        if not victims:
            return

        def pick(start: int, chosen: tuple[tuple[int, int, Colour], ...],
                 free: int) -> Iterator[tuple[tuple[int, int, Colour], ...]]:
            if chosen:
                yield chosen
            if free == 0:
                return
            for v in range(start, len(victims)):  # R-STEAL-2: one gem from each chosen canoe
                q, k, gems = victims[v]
                for colour in sorted(set(gems)):
                    yield from pick(v + 1, (*chosen, (q, k, colour)), free - 1)

        for chosen in pick(0, (), free):
            result = snap
            thief: list[Colour] = list(run.gems)
            notes: list[Step] = []
            for q, k, colour in chosen:
                at, gems = result.canoes[q][k]
                named, kind = self._victim_ref(result, q, k, dest, colour)
                notes.append(Steal(self.names[q], colour, named, kind))
                rest = list(gems)
                rest.remove(colour)
                result = result.with_canoe(q, k, (at, tuple(rest)))
                thief.append(colour)
            result = result.with_canoe(self.player, index, (dest, tuple(sorted(thief))))
            yield from emit((*steps, *notes), result)

    @staticmethod
    def _victim_ref(snap: Snapshot, q: int, k: int, dest: str,
                    colour: Colour) -> tuple[tuple[Colour, ...] | None, str | None]:
        """How a steal names the victim's canoe: by its cargo where two of the victim's canoes on the disc carry
        the colour with different cargo, by its kind where they carry the same (X-DOUBLE-3); else not at all."""
        gems = snap.canoes[q][k][1]
        for j, (at, other) in enumerate(snap.canoes[q]):
            if j != k and at == dest and colour in other:
                if other != gems:
                    return gems, None
                if snap.doubles is not None and snap.doubles[q][j] != snap.doubles[q][k]:
                    return None, "double" if snap.doubles[q][k] else "single"
        return None, None

    def _downstream(self, snap: Snapshot, index: int, place: str, run: _Run, rest: int,
                    emit: _Emit) -> Iterator[tuple[CanoeAction, Snapshot]]:
        # R-MOVE-4: any branch below a fork, never across branches, never over the falls.
        for distance in range(1, rest + 1):
            dests = self.board.below(place, distance)
            if not dests:
                break
            for dest in dests:
                move = Move(dest, downstream=True)
                if dest == self.whirl:  # X-WHIRL-2: passed freely, ended on only with the last point
                    if distance == rest:
                        yield from self._pushed(snap, index, run.gems, (*run.ops, move), emit)
                    continue
                for steps, result in self._arrive(snap, index, dest, run, rest - distance, (*run.ops, move)):
                    yield from emit(steps, result)


def falls(action: CanoeAction) -> bool:
    """Whether the whirlpool pushes the canoe over the falls in this action (X-WHIRL-2)."""
    return any(isinstance(s, Push) and s.dest == FALLEN for s in action.steps)


def _replace_at(items: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    out = list(items)
    out[index] = value
    return tuple(out)


def acting_sets(player: Player, rules_port_departure: PortDeparture) -> list[tuple[int, ...]]:
    """Which of the player's canoes act with a paddle card (R-TURN-3), as index tuples.

    A canoe on the river always acts. With one canoe on the river and one in the port, the port canoe
    may act or stay; with both in the port exactly one acts (``port_departure``: or at most one); a lone
    port canoe may act or stay. Two canoes in the port are interchangeable, so only the first is offered.
    """
    river = tuple(i for i, c in enumerate(player.canoes) if c.on_river)
    port = [i for i, c in enumerate(player.canoes) if c.in_port]
    if len(port) == 2:
        # Two alike port canoes are one choice; a single and a double canoe are two (X-DOUBLE-1).
        leaving: list[tuple[int, ...]] = ([(port[0],)] if player.canoes[port[0]] == player.canoes[port[1]]
                                          else [(port[0],), (port[1],)])
        if rules_port_departure is PortDeparture.AT_MOST_ONE:
            return [(), *leaving]
        return leaving
    if len(port) == 1:
        return [river, (*river, port[0])]
    return [river]


def check_turn_context(pos: Position, player: int, card: Card | None) -> Card:
    """The card a player acts with, after checking it is their moment to act (R-ROUND-1, R-TURN-1, R-CARD)."""
    require(pos.ruleset, "engine")
    if card is not None and not isinstance(card, Card):
        card = Card.parse(card)  # a paddle given as its value
    if pos.phase is not Phase.TURNS:
        raise PhaseError("turns are taken in phase II: this position is at the start of a round; resolve "
                         "phase I (rescues and cards) first")
    me = pos.players[player]
    if player in pos.acted:
        raise IllegalTurnError(f"{me.name} has already acted this round", "R-TURN-1")
    if card is None:
        card = me.card
        if card is None:
            raise IllegalTurnError(f"{me.name}'s card is not known: say which card is played", "R-CARD-1")
    elif me.card is not None and me.card != card:
        raise IllegalTurnError(f"{me.name} chose {me.card.label} this round, not {card.label}", "R-CARD-1")
    if card not in me.hand:
        raise IllegalTurnError(f"{card.label} is not in {me.name}'s hand ({', '.join(c.label for c in me.hand)})",
                               "R-CARD-2")
    return card


def after_reveal(pos: Position, player: int, card: Card, budget: int | None = None) -> Position:
    """The position once ``player`` revealed ``card``: the card leaves the hand (R-CARD-2, R-TURN-1); with the
    1/2/3 card the chosen ``budget`` is recorded (X-CARDS-3)."""
    me = pos.players[player]
    played = Player(me.name, me.canoes, tuple(c for c in me.hand if c != card), me.bank, card, budget)
    return pos.with_player(player, played).replace(acted=(*pos.acted, player))


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


def weather_moved(pos: Position, step: int) -> Position:
    """The cloud moves the weather one step (R-TURN-2); to +2, it brings the beaver onto the top disc when the
    beaver is not on the river (X-BEAVER-1)."""
    weather = pos.weather + step
    if pos.ruleset.x_beaver and weather == 2 and pos.beaver is None:
        return pos.replace(weather=weather, beaver=pos.board.top)
    return pos.replace(weather=weather)


def moose_options(pos: Position, player: int, revealed: Position) -> list[tuple[tuple[CanoeAction, ...], Position]]:
    """Before a cloud or a Lasso (X-MOOSE-1): take no moose, or let one canoe of the player on a last disc take the
    waiting moose; each with the position it leaves."""
    options: list[tuple[tuple[CanoeAction, ...], Position]] = [((), revealed)]
    if revealed.moose is not Moose.WAITING:
        return options
    start = Snapshot.of(pos)
    gen = _Generator(pos, player, 0)
    taken: set[Position] = set()
    for k in range(len(pos.players[player].canoes)):
        if gen.may_take_moose(start, k):
            after = _position_of(revealed, start, start._replace(moose=Moose.HELD, holder=(player, k)))
            if after not in taken:
                taken.add(after)
                options.append(((CanoeAction(gen._ref(start, k), (TakeMoose(),)),), after))
    return options


def lasso_outcomes(pos: Position, player: int, revealed: Position) -> list[TurnOutcome]:
    """The Lasso (X-CARDS-4): no canoe paddles; the player's canoes on the river are moored, all of them
    (``lasso_scope: all``) or one chosen (``one``; none when none is on the river)."""
    me = pos.players[player]
    river = [k for k, c in enumerate(me.canoes) if c.on_river]
    if pos.ruleset.lasso_scope is LassoScope.ALL or not river:
        choices: list[tuple[CanoeRef | None, tuple[int, ...]]] = [(None, tuple(river))]
    else:
        start = Snapshot.of(pos)
        gen = _Generator(pos, player, 0)
        choices = [(gen._ref(start, k), (k,)) for k in river]
    outcomes: dict[Position, TurnOutcome] = {}
    for ref, moored in choices:  # the canoes as revealed, the moose taken or not (X-MOOSE-1)
        canoes = tuple(dataclasses.replace(c, moored=True) if k in moored else c
                       for k, c in enumerate(revealed.players[player].canoes))
        after = revealed.with_player(player, dataclasses.replace(revealed.players[player], canoes=canoes))
        outcomes.setdefault(after, TurnOutcome(Turn(lasso=True, moored=ref), after))
    return sorted(outcomes.values(), key=lambda o: str(o.turn))


def card_123_sets(player: Player, rules_port_departure: PortDeparture, scope: Card123Canoes) -> list[tuple[int, ...]]:
    """Which canoes act with the 1/2/3 card (X-CARDS-3): with ``card_123_canoes: one`` exactly one of the canoes
    R-TURN-3 lets act (a port canoe too, with the other on the river), or none only where R-TURN-3 lets none act;
    with ``all`` the canoes of R-TURN-3."""
    sets = acting_sets(player, rules_port_departure)
    if scope is Card123Canoes.ALL:
        return sets
    none: list[tuple[int, ...]] = [()] if () in sets else []
    return none + sorted({(i,) for acting in sets for i in acting})


def legal_turns(pos: Position, player: int, card: Card | None = None) -> list[TurnOutcome]:
    """Every distinct legal turn of ``player`` with ``card`` (default: the card they chose), in phase II.

    One :class:`TurnOutcome` per distinct resulting position, sorted by notation (paddle turns by the number of
    canoe actions, then notation). Paddle turns come from the fast generator of :mod:`.paddling`; the outcomes are
    those of :func:`legal_turns_reference`, turn for turn and in the same order.
    """
    return _legal_turns(pos, player, card, fast=True)


def legal_turns_reference(pos: Position, player: int, card: Card | None = None) -> list[TurnOutcome]:
    """:func:`legal_turns` by this module's own generator, on :class:`Snapshot`: the slow reference the fast
    generator is tested against (with the rule-by-rule interpreter of :mod:`.apply`)."""
    return _legal_turns(pos, player, card, fast=False)


def _legal_turns(pos: Position, player: int, card: Card | None, fast: bool) -> list[TurnOutcome]:
    card = check_turn_context(pos, player, card)
    rules = pos.ruleset
    outcomes: list[TurnOutcome] = []
    if card is Card.CLOUD or card is Card.LASSO:
        # X-MOOSE-1: with the cloud or the Lasso one canoe on a last disc may take the moose first.
        reveal, weather = (paddling.revealed, paddling.weather_moved) if fast else (after_reveal, weather_moved)
        for take, revealed in moose_options(pos, player, reveal(pos, player, card)):
            if card is Card.LASSO:
                outcomes += [TurnOutcome(dataclasses.replace(o.turn, actions=take), o.position)
                             for o in lasso_outcomes(pos, player, revealed)]
            else:
                # R-TURN-2, R-WEATHER-1: the weather moves exactly one step and stays within its range.
                outcomes += [TurnOutcome(Turn(take, weather=step), weather(revealed, step))
                             for step in (1, -1) if rules.weather_min <= pos.weather + step <= rules.weather_max]
        return outcomes
    me = pos.players[player]
    for budget in card.budgets:  # one paddle value, or the 1/2/3 card's three budgets (X-CARDS-3)
        chosen = budget if card is Card.ONE_TWO_THREE else None
        revealed = (paddling.revealed if fast else after_reveal)(pos, player, card, chosen)
        if card is Card.ONE_TWO_THREE:
            sets = card_123_sets(me, rules.port_departure, rules.card_123_canoes)
        else:
            sets = acting_sets(me, rules.port_departure)
        if fast:
            outcomes += paddle_outcomes(pos, player, budget, sets, revealed, chosen)
        else:
            outcomes += _paddle_outcomes(pos, player, budget, sets, revealed, chosen)
    return outcomes


def _paddle_outcomes(pos: Position, player: int, budget: int, sets: list[tuple[int, ...]], revealed: Position,
                     chosen: int | None) -> list[TurnOutcome]:
    """The distinct outcomes of the canoes of ``sets`` acting with ``budget`` each, in either order."""
    gen = _Generator(pos, player, budget)
    start = Snapshot.of(pos)
    found: dict[tuple[object, ...], tuple[Turn, Snapshot]] = {}
    canoes = pos.players[player].canoes
    for acting in sets:
        orders = [acting]
        if len(acting) == 2 and canoes[acting[0]] != canoes[acting[1]]:
            orders.append((acting[1], acting[0]))  # R-TURN-4: the player chooses the order
        for order in orders:
            refs = [gen._ref(start, i) for i in order]
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


def count_turns(pos: Position, player: int, card: Card | None = None) -> int:
    """The number of distinct legal turns (the size of :func:`legal_turns`)."""
    return len(legal_turns(pos, player, card))
