"""A brute-force oracle for phase II: try every short action the notation can write, keep what the
rule-by-rule interpreter accepts. Slow, simple, and independent of the turn generator (``engine.paddling``, with the
rule decisions of ``engine.canoe``)."""

from __future__ import annotations

from itertools import product

from niagara_solver.engine.apply import _act, _Table, apply_turn, check_acting
from niagara_solver.model.notation import CanoeAction, CanoeRef, Load, Move, Push, Steal, Step, Turn, Unload
from niagara_solver.engine.turns import after_reveal
from niagara_solver.model.errors import TurnError
from niagara_solver.model.atoms import COLOURS, FALLEN, PORT, Card, Colour
from niagara_solver.model.position import Position


def _op_sequences(count: int, carried: tuple[Colour, ...]) -> list[tuple[Step, ...]]:
    """All sequences of ``count`` loads/unloads (unloads only of colours carried or loaded before)."""
    if count == 0:
        return [()]
    out = []
    for first in [*(Load(c) for c in COLOURS), *(Unload(c) for c in sorted(set(carried)))]:
        now = (*carried, first.colour) if isinstance(first, Load) else carried
        for rest in _op_sequences(count - 1, now):
            out.append((first, *rest))
    return out


def _after(gems: tuple[Colour, ...], ops: tuple[Step, ...]) -> tuple[Colour, ...]:
    carried = list(gems)
    for s in ops:
        if isinstance(s, Load):
            carried.append(s.colour)
        elif isinstance(s, Unload) and s.colour in carried:
            carried.remove(s.colour)
    return tuple(carried)


def canoe_candidates(pos: Position, player: int, place: str, gems: tuple[Colour, ...],
                     budget: int) -> list[tuple[Step, ...]]:
    """Every step list of at most a budget's worth of gem actions around at most one movement."""
    names = [p.name for i, p in enumerate(pos.players) if i != player]
    steals = [Steal(n, c) for n in names for c in COLOURS]
    cands: list[tuple[Step, ...]] = []
    for ops in range(budget // 2 + 1):  # no movement
        cands.extend(_op_sequences(ops, gems))
    depth = pos.board.depth
    for dest, down in product([PORT, *pos.board.discs], (True, False)):
        move = Move(dest, down)
        # Only a speed-up: candidates costing more than the budget are skipped; the interpreter judges the rest.
        distance = abs(depth[dest] - depth[place]) if place in depth else 0
        for pre_n in range(budget // 2 + 1):
            for pre in _op_sequences(pre_n, gems):
                if 2 * pre_n + distance > budget:
                    continue
                for post_n in range((budget - 2 * pre_n - distance) // 2 + 1):
                    for post in _op_sequences(post_n, _after(gems, pre)):
                        cands.append((*pre, move, *post))
                if dest == pos.whirlpool:  # X-WHIRL-2: every push the notation can write, to any place
                    for to in (*pos.board.discs, FALLEN):
                        cands.append((*pre, move, Push(to)))
                if not down:
                    for k in range(1, pos.ruleset.capacity + 1):
                        for chosen in product(steals, repeat=k):
                            cands.append((*pre, move, *chosen))
    return cands


def _key(table: _Table) -> tuple[object, ...]:
    return (tuple(table.caves), tuple(tuple((p, tuple(g)) for p, g in cs) for cs in table.canoes), tuple(table.banks),
            table.moose, table.holder, table.joe)


def _copy(table: _Table) -> _Table:
    new = _Table.__new__(_Table)
    new.caves = list(table.caves)
    new.canoes = [[(p, list(g)) for p, g in cs] for cs in table.canoes]
    new.banks = list(table.banks)
    new.moored, new.moose, new.holder = set(table.moored), table.moose, table.holder
    new.joe = table.joe
    return new


def brute_force_outcomes(pos: Position, player: int, card: Card) -> set[Position]:
    """Every position a legal turn of ``player`` with ``card`` reaches, found by trial and error.

    Canoes act one after the other (R-TURN-4): every candidate action of the first acting canoe is run by
    the interpreter; each distinct result is the start for every candidate of the second canoe.
    """
    if card is Card.CLOUD:
        found = set()
        for step in (1, -1):
            try:
                found.add(apply_turn(pos, player, Turn(weather=step), card).position)
            except TurnError:
                pass
        return found
    me = pos.players[player]
    budget = int(card)
    revealed = after_reveal(pos, player, card)
    found = set()
    for order in [(), (0,), (1,), (0, 1), (1, 0)]:
        try:  # which canoes act is the interpreter's call (R-TURN-3), not the generator's
            check_acting(me, list(order), pos.ruleset.port_departure)
        except TurnError:
            continue
        if True:
            # Working tables keep the canoes' indices (a Position would re-sort them); keyed for dedup.
            states = {_key(_Table(pos)): _Table(pos)}
            for index in order:
                place, gems = me.canoes[index].place, me.canoes[index].gems
                cands = canoe_candidates(pos, player, place, gems, budget)
                grown: dict[tuple[object, ...], _Table] = {}
                for state in states.values():
                    for steps in cands:
                        table = _copy(state)
                        try:
                            _act(pos, table, player, index, CanoeAction(CanoeRef(place, gems), steps), budget)
                        except TurnError:
                            continue
                        grown.setdefault(_key(table), table)
                states = grown
            for table in states.values():
                found.add(table.position(revealed))
    return found
