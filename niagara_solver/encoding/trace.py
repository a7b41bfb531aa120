"""From a model back to the game's words: a turn in the notation, rescue decisions, flow branch choices."""

from __future__ import annotations

from typing import Sequence

import z3

from niagara_solver.model.notation import (CanoeAction, CanoeRef, Load, Move, Push, Rescue, Steal, Step, TakeMoose,
                                           Trade, Turn, Unload)
from niagara_solver.model.atoms import COLOURS, Card, Colour
from niagara_solver.encoding.flow import FlowChoice, RescueChoice
from niagara_solver.encoding.state import NAMES, SymPosition, value
from niagara_solver.encoding.tables import BoardTables
from niagara_solver.encoding.turn import GemActions, TurnChoice

# The notation module is the shared vocabulary of the project (like the rule IDs); decoding a model into it
# lets the engine replay a counterexample. Nothing here decides what is legal.


def decode_turn(model: z3.ModelRef, choice: TurnChoice, tables: BoardTables, pre: SymPosition,
                player: int = 0, names: Sequence[str] | None = None) -> tuple[Card, Turn]:
    """The card and the turn a model chose (canoes named by their place, and cargo when needed; a steal's victim
    by ``names``, the players' names in seat order, or else the standard seat colours the symbolic positions use)."""
    card = Card(value(model, choice.card))
    seats = names if names is not None else NAMES

    def canoe(p: int, k: int) -> tuple[str, tuple[Colour, ...]]:
        cargo: list[Colour] = []
        for c in range(len(COLOURS)):
            cargo += [COLOURS[c]] * value(model, pre.cargo[p][k][c])
        return tables.name.get(value(model, pre.place[p][k]), "port"), tuple(cargo)

    def took(k: int) -> bool:
        return choice.take is not None and bool(value(model, choice.take[k]))

    def ref_of(k: int) -> CanoeRef:
        place, gems = canoe(player, k)
        other_place, other_gems = canoe(player, 1 - k)
        if other_place == place and other_gems != gems:
            return CanoeRef(place, gems)
        if other_place == place and pre.double is not None:
            mine, theirs = value(model, pre.double[player][k]), value(model, pre.double[player][1 - k])
            if mine != theirs:  # X-DOUBLE-1: by its kind
                return CanoeRef(place, kind="double" if mine else "single")
        if other_place == place and pre.holder is not None and value(model, pre.holder[player][k]):
            return CanoeRef(place, kind="moose")  # X-MOOSE-2: the holder; the other goes unmarked
        return CanoeRef(place)

    # With the cloud or the Lasso the only canoe action is taking the moose first (X-MOOSE-1).
    quiet = tuple(CanoeAction(ref_of(k), (TakeMoose(),)) for k in range(2) if took(k))
    if card is Card.CLOUD:
        return card, Turn(quiet, weather=value(model, choice.step))

    if card is Card.LASSO:  # X-CARDS-4: no canoe paddles; under lasso_scope one, the canoe moored
        moored = None
        for k, m in enumerate(choice.moor or ()):
            if value(model, m):
                place, gems = canoe(player, k)
                other_place, other_gems = canoe(player, 1 - k)
                moored = CanoeRef(place, gems if other_place == place and other_gems != gems else None)
        return card, Turn(quiet, lasso=True, moored=moored)

    def double(p: int, k: int) -> bool:
        return pre.double is not None and bool(value(model, pre.double[p][k]))

    actions = []
    joe = [COLOURS[c] for c, g in enumerate(pre.joe_gem or ()) if value(model, g)]
    for slot in choice.slots:
        if not value(model, slot.on):
            continue
        ref = ref_of(slot.who)
        steps: list[Step] = [TakeMoose()] if took(slot.who) else []
        steps += _ops(model, slot.pre)
        move = value(model, slot.move)
        if move:
            steps.append(Move(tables.name[value(model, slot.dest)], move == 1))
        if slot.push is not None and value(model, slot.push):  # X-WHIRL-2: pushed one disc down
            steps.append(Push(tables.name[value(model, slot.push)]))
        steps += _ops(model, slot.post)
        for j in range(len(slot.steals)):
            for q, canoes in enumerate(slot.steals[j]):
                for v, cells in enumerate(canoes):
                    for c, cell in enumerate(cells):
                        if value(model, cell):
                            at, cargo = canoe(q, v)
                            twin_at, twin = canoe(q, 1 - v)
                            named = cargo if twin_at == at and COLOURS[c] in twin and twin != cargo else None
                            kind = None
                            if twin_at == at and twin == cargo and pre.double is not None:  # X-DOUBLE-3
                                kind = "double" if double(q, v) else "single"
                            steps.append(Steal(seats[q], COLOURS[c], named, kind))
        if slot.take_joe is not None and slot.give_joe is not None:  # X-JOE-3: Joe's gem as earlier trades left it
            given = [COLOURS[c] for c, g in enumerate(slot.give_joe) if value(model, g)]
            taken = joe[0] if value(model, slot.take_joe) and joe else None
            if given or taken is not None:
                steps.append(Trade(given[0] if given else None, taken))
                joe = [*(g for g in joe if g != taken), *given]
        actions.append(CanoeAction(ref, tuple(steps)))
    if card is Card.ONE_TWO_THREE and choice.budget is not None:  # X-CARDS-3: the budget chosen
        return card, Turn(tuple(actions), budget=value(model, choice.budget))
    return card, Turn(tuple(actions))


def _ops(model: z3.ModelRef, op: GemActions) -> list[Step]:
    """A stop's gem actions as the notation writes them: the unloads, then the loads, colours in order (counted,
    GemActions; unloads first is an order in which they are legal whenever some order is)."""
    out: list[Step] = []
    for cells, make in ((op.unload, Unload), (op.load, Load)):
        for c in range(len(COLOURS)):
            n = sum(value(model, cells[cc][c]) for cc in range(len(COLOURS)))
            out += [make(COLOURS[c])] * n
    return out


def decode_rescues(model: z3.ModelRef, choice: RescueChoice) -> dict[int, Rescue]:
    """Each player's rescue decision."""
    out = {}
    for p, (rescued, colours) in enumerate(zip(choice.rescued, choice.colour)):
        payments = []
        for r, c in zip(rescued, colours):
            if value(model, r):
                paid = value(model, c)
                payments.append(COLOURS[paid - 1] if paid else None)
        out[p] = Rescue(tuple(payments))
    return out


def decode_branches(model: z3.ModelRef, choice: FlowChoice, tables: BoardTables,
                    steps: int) -> list[tuple[tuple[str, str], ...]]:
    """The branch every flow step's disc took at each fork (``fork_policy: free``)."""
    out = []
    for i in range(steps):
        out.append(tuple((tables.name[f], tables.labels[f][value(model, b) % len(tables.labels[f])])
                         for f, b in choice.branches[i].items()))
    return out
