"""Pinning a written turn, or phase I's written rescue decisions, in the encoding: the choices the notation writes,
as constraints; and a symbolic position compared with a concrete one (:func:`same_position`)."""

from __future__ import annotations

from typing import Any, Sequence

import z3

from niagara_solver.model.notation import Load, Move, Push, Rescue, Steal, TakeMoose, Trade, Turn, Unload
from niagara_solver.model.atoms import NEXT, Card, Gems, Moose
from niagara_solver.model.position import Canoe, Position
from niagara_solver.encoding.core import Encoding
from niagara_solver.encoding.flow import RescueChoice
from niagara_solver.encoding.state import MOOSE_STATES, NCOL, Constraint, SymPosition
from niagara_solver.encoding.terms import all_of, equal, z_or, z_sum, zeros
from niagara_solver.encoding.turn import GemActions, SlotObservation, TurnChoice

# The turn notation is the project's shared vocabulary (docs/NOTATION.md); this module only reads it.


def canoe_order(pos: Position, player: int, turn: Turn) -> tuple[tuple[int, int], tuple[str, str] | None]:
    """The player's canoe order with the first-named canoe first, or the reason a canoe does not exist."""
    me = pos.players[player]
    used: list[int] = []
    for action in turn.actions:
        ref = action.canoe
        found = [i for i, c in enumerate(me.canoes) if c.place == ref.place and i not in used
                 and (ref.gems is None or tuple(sorted(ref.gems)) == c.gems)
                 and (ref.kind not in ("single", "double") or c.kind.value == ref.kind)
                 and (ref.kind != "moose" or c.moose)]
        if not found:
            where = "in the port" if ref.place == "port" else f"on {ref.place}"
            return (0, 1), ("R-TURN-3", f"{me.name} has no canoe {where} to act")
        used.append(found[0])
    if used and used[0] == 1:
        return (1, 0), None
    return (0, 1), None


def rescued_slots(canoes: Sequence[Canoe], decision: Rescue) -> list[int]:
    """The canoes a written rescue decision brings back, by index: the n-th payment on the n-th fallen canoe (of the
    kind the decision names, X-DOUBLE-4), as the engine brings them back (R-RESCUE-1)."""
    fallen = [k for k, c in enumerate(canoes) if c.fallen and decision.canoe in (None, c.kind.value)]
    return fallen[:len(decision.payments)]


def pin_rescues(pos: Position, choice: RescueChoice, decisions: dict[int, Rescue]) -> list[Any]:
    """Every choice of phase I's relation fixed to written rescue decisions (a player left out decides "none"),
    each ``variable == value``, so that the relation can be evaluated rather than solved.

    The notation writes the payments, not which canoe each pays for: the n-th payment is pinned on the player's
    n-th fallen canoe (of the kind ``canoe`` names, X-DOUBLE-4), as the engine brings them back. That is one of the
    relation's models for the decisions where it allows them (a fallen canoe comes back empty, so which of two
    alike ones is brought back is no difference); where it does not, evaluation says so, and a solver decides.
    The symbolic canoe ``k`` of a player is their concrete canoe ``k`` (the position pinned without an order)."""
    out: list[Any] = []
    for p, player in enumerate(pos.players):
        decision = decisions.get(p, Rescue())
        paid = dict(zip(rescued_slots(player.canoes, decision), decision.payments))  # R-RESCUE-1: one per canoe
        for k in range(2):
            back = k in paid
            colour = paid.get(k)
            out.append(equal(choice.rescued[p][k], back)[0])
            out.append(equal(choice.colour[p][k], int(colour) if colour is not None else 0)[0])
    return out


def pin_turn(enc: Encoding, pos: Position, card: Card, turn: Turn, choice: TurnChoice, player: int = 0,
             every: bool = False) -> list[Any]:
    """Constraints fixing the symbolic choices to the written turn (its first canoe acting in slot 0).

    The notation leaves some choices to the relation: the cave a gem action uses (the one beside the canoe,
    R-GEM-1), between a victim's two alike canoes which one a steal takes from (R-STEAL-2), and where an idle or
    staying canoe "moves" (R-MOVE-1, R-MOVE-4). With ``every`` these are fixed too: the cave beside the canoe where
    the action is written (the canoe's place, or the disc it moves to), the victim's first such canoe not robbed
    yet in the turn, no movement. Every choice is then ``variable == value`` and the relation can be evaluated
    rather than solved: the constraints are one of the models of those without ``every`` (or none, should the
    relation decide otherwise: ask the solver then)."""
    t = enc.tables
    names = [p.name for p in pos.players]
    out: list[Any] = [choice.card == int(card)]
    out.append(choice.step == turn.weather)
    if choice.budget is not None:  # the 1/2/3 card's budget (X-CARDS-3)
        out.append(choice.budget == (turn.budget or 0))
    if choice.moor is not None:  # the canoe the Lasso moors (X-CARDS-4, lasso_scope: one)
        ref = turn.moored
        chosen = -1
        if ref is not None:
            chosen = next((i for i, c in enumerate(pos.players[player].canoes) if c.place == ref.place
                           and (ref.gems is None or tuple(sorted(ref.gems)) == c.gems)), -2)
        out += [m == (k == chosen) for k, m in enumerate(choice.moor)]
        if chosen == -2:
            out.append(z3.BoolVal(False))  # no such canoe
    slots = choice.slots
    acting = list(turn.actions)
    if choice.take is not None:  # the moose taken first, by the slot's canoe (X-MOOSE-1)
        out += [take == (s < len(acting) and bool(acting[s].steps) and isinstance(acting[s].steps[0], TakeMoose))
                for s, take in enumerate(choice.take)]
    if card in (Card.CLOUD, Card.LASSO):  # no canoe paddles: an action here only takes the moose
        for slot in slots:
            out.append(z3.Not(slot.on))
            out += zeros([*slot.pre.cells(), *slot.post.cells()])
            out += zeros(x for j in range(len(slot.steals)) for x in slot.steal_cells(j))
        return out
    # The first action belongs to slot 0 (canoe 0 after the reordering), the second to slot 1.
    for s, slot in enumerate(slots):
        if s >= len(acting):
            out.append(z3.Not(slot.on))
            if every:  # R-MOVE-1: an idle slot does not move
                out.append(slot.move == 0)
            out += zeros([*slot.pre.cells(), *slot.post.cells()])
            out += zeros(x for j in range(len(slot.steals)) for x in slot.steal_cells(j))
            continue
        action = acting[s]
        out.append(slot.on)
        steps = list(action.steps)
        moves = [i for i, st in enumerate(steps) if isinstance(st, Move)]
        split = moves[0] if moves else len(steps)
        before = [st for st in steps[:split] if isinstance(st, (Load, Unload))]
        after = [st for st in steps[split:] if isinstance(st, (Load, Unload))]
        places = (action.canoe.place, steps[moves[0]].dest if moves else action.canoe.place)  # type: ignore[union-attr]
        for op, gems, place in ((slot.pre, before, places[0]), (slot.post, after, places[1])):
            # The cave beside (by its colour, R-GEM-1); None where the notation leaves it to the relation.
            cave = t.cave.get(t.index.get(place, -1), 0) - 1 if every else -1
            out += _pin_stop(op, gems, cave if cave >= 0 else None)
        pushes = [st for st in steps if isinstance(st, Push)]
        if slot.push is not None:  # X-WHIRL-2: where the whirlpool pushed the canoe (0: not pushed)
            out.append(slot.push == (t.index.get(pushes[0].dest, -1) if pushes else 0))
        elif pushes:
            out.append(z3.BoolVal(False))
        trades = [st for st in steps if isinstance(st, Trade)]
        if slot.take_joe is not None and slot.give_joe is not None:  # X-JOE-3: the trade with Diamond Joe
            trade = trades[0] if trades else None
            out.append(slot.take_joe == (trade is not None and trade.take is not None))
            given = int(trade.give) - 1 if trade is not None and trade.give is not None else -1
            out += [g == int(c == given) for c, g in enumerate(slot.give_joe)]
        elif trades:
            out.append(z3.BoolVal(False))
        if moves:
            move = steps[moves[0]]
            assert isinstance(move, Move)
            out.append(slot.move == (1 if move.downstream else -1))
            out.append(slot.dest == t.index.get(move.dest, -1))
        else:
            out.append(slot.move == 0)
            if every:  # R-MOVE-4: it stays where it is
                out.append(slot.dest == t.index.get(action.canoe.place, -1))
        thefts = [st for st in steps if isinstance(st, Steal)]
        robbed: set[tuple[int, int]] = set()
        for j in range(len(slot.steals)):
            cells = slot.steals[j]
            if j < len(thefts):
                q = names.index(thefts[j].victim) if thefts[j].victim in names else -1
                c = int(thefts[j].colour) - 1
                out += zeros(x for qq, canoes in enumerate(cells) for v, row in enumerate(canoes)
                             for cc, x in enumerate(row) if qq != q or cc != c)
                if q >= 0:
                    # A victim named by its kind (X-DOUBLE-3) is that canoe; the other players' canoes keep their order.
                    kind = thefts[j].victim_kind
                    theirs = pos.players[q].canoes
                    named = [v for v in range(2) if kind is None or theirs[v].kind.value == kind]
                    cargo = thefts[j].victim_gems
                    if cargo is not None:  # a victim named by its cargo (R-STEAL-2) is that canoe
                        named = [v for v in named if v < len(theirs) and theirs[v].gems == tuple(sorted(cargo))]
                    free = [v for v in named if (q, v) not in robbed]  # R-STEAL-2: one gem from each canoe
                    if every and free:  # the first of alike canoes not robbed yet (see above)
                        robbed.add((q, free[0]))
                        out += zeros(cells[q][v][c] for v in range(2) if v != free[0])
                        out.append(equal(cells[q][free[0]][c], 1)[0])
                        continue
                    out += zeros(cells[q][v][c] for v in range(2) if v not in named)
                    # No such canoe: Sum([]) == 1 does not hold.
                    out.append(z_sum([cells[q][v][c] for v in named]) == 1 if named else z3.BoolVal(False))
                else:
                    out.append(z3.BoolVal(False))
            else:
                out += zeros(x for x in slot.steal_cells(j))
    return out


def _pin_stop(op: GemActions, steps: list[Load | Unload], cave: int | None = None) -> list[Any]:
    """A stop's written gem actions, counted (GemActions): how many gems of each colour are loaded and unloaded; the
    cave is whichever lies beside the canoe, or ``cave`` (an index) when given."""
    out: list[Any] = []
    for kind, cells in ((Load, op.load), (Unload, op.unload)):
        for c in range(NCOL):
            n = sum(1 for step in steps if isinstance(step, kind) and int(step.colour) - 1 == c)
            if cave is not None:
                out += [equal(cells[cc][c], n if cc == cave else 0)[0] for cc in range(NCOL)]
            elif n:
                out.append(z_sum([cells[cc][c] for cc in range(NCOL)]) == n)
            else:
                out += zeros(cells[cc][c] for cc in range(NCOL))
    return out


def written_order(observations: list[SlotObservation], turn: Turn) -> list[Constraint]:
    """R-GEM-2 on the order a turn is written in: the relation counts a stop's gem actions (:class:`GemActions`),
    legal in some order when legal unloads first; a written turn names one order, and a load written before an
    unload needs room then. For each stop whose written order carries more at some load than after all its
    actions: the cargo on arrival plus that peak within the room. The first action is slot 0's (as pin_turn pins
    it)."""
    out: list[Constraint] = []
    for action, obs in zip(turn.actions, observations):
        steps = action.steps
        moves = [i for i, step in enumerate(steps) if isinstance(step, Move)]
        split = moves[0] if moves else len(steps)
        for arrival, written in zip(obs.arrival, (steps[:split], steps[split:])):
            net, peak = 0, None
            for step in written:
                if isinstance(step, Unload):
                    net -= 1
                elif isinstance(step, Load):
                    net += 1
                    peak = net if peak is None else max(peak, net)
            if peak is not None and peak > net:  # unloads first would carry no more than after the stop
                out.append(("R-GEM-2", z3.Implies(obs.on, z_sum(arrival) + peak <= obs.room)))
    return out


def canoe_terms(post: SymPosition, p: int, k: int) -> list[Any]:
    """The terms of canoe ``k`` of player ``p``: its place, its cargo, and the expansion's marks on it."""
    moored = [post.moored[p][k]] if post.moored is not None else []  # X-CARDS-4
    double = [post.double[p][k]] if post.double is not None else []  # X-DOUBLE-1
    holder = [post.holder[p][k]] if post.holder is not None else []  # X-MOOSE-2
    return [post.place[p][k], *post.cargo[p][k], *moored, *double, *holder]


def same_position(post: SymPosition, known: Position, tables: Any) -> Any:
    """The position ``post`` equals a concrete position (canoes of a player in either order; the fork markers
    aside), as one term. The equalities are made once and kept (:func:`.state.equal`): the positions compared repeat
    the same few values."""
    parts = []
    for p, player in enumerate(known.players):
        cs = [[tables.index[c.place], *Gems.of(c.gems), *([c.moored] if post.moored is not None else []),
               *([c.double] if post.double is not None else []), *([c.moose] if post.holder is not None else [])]
              for c in player.canoes]
        here = [canoe_terms(post, p, 0), canoe_terms(post, p, 1)]
        straight = all_of([equal(x, v)[0] for x, v in zip(here[0], cs[0])] +
                          [equal(x, v)[0] for x, v in zip(here[1], cs[1])])
        crossed = all_of([equal(x, v)[0] for x, v in zip(here[0], cs[1])] +
                         [equal(x, v)[0] for x, v in zip(here[1], cs[0])])
        parts.append(z_or(straight, crossed))
        parts += [equal(post.bank[p][c], player.bank[c])[0] for c in range(NCOL)]
        if post.budget is not None:
            parts.append(equal(post.budget[p], player.card_budget or 0)[0])
    parts += [equal(post.cave[cc][c], known.caves[cc][c])[0] for cc in range(NCOL) for c in range(NCOL)]
    parts.append(equal(post.weather, known.weather)[0])
    if post.beaver is not None:  # X-BEAVER-1
        parts.append(equal(post.beaver, tables.index[known.beaver] if known.beaver is not None else 0)[0])
    if post.moose is not None:  # X-MOOSE-1
        parts.append(equal(post.moose, MOOSE_STATES.index(known.moose or Moose.WAITING))[0])
    return all_of(parts + _known_pieces(post, known, tables))


def _known_pieces(post: SymPosition, known: Position, tables: Any) -> list[Any]:
    """The whirlpool and Diamond Joe of a result equal those of a concrete position (X-WHIRL-1, X-JOE-1)."""
    out = []
    if post.whirl is not None:
        out.append(post.whirl == (tables.index[known.whirlpool] if known.whirlpool not in (None, NEXT) else 0))
    if post.joe is not None and post.joe_gem is not None and known.joe is not None:
        out.append(post.joe == tables.index[known.joe.place])
        out += [g == int(known.joe.gem is not None and int(known.joe.gem) == c + 1) for c, g in enumerate(post.joe_gem)]
    return out
