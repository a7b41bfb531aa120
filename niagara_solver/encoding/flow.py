"""Phases I and III as transition relations: rescues (R-RESCUE) and the river flowing (R-FLOW)."""

from __future__ import annotations

from dataclasses import dataclass

import z3

from niagara_solver.model.ruleset import ForkPolicy
from niagara_solver.encoding.core import Encoding
from niagara_solver.encoding.state import LASSO, NCOL, ONE_TWO_THREE, Constraint, Expr, SymPosition
from niagara_solver.encoding.tables import BoardTables
from niagara_solver.encoding.terms import and_of, equal, ite, z_and, z_or
from niagara_solver.encoding.turn import Transition

#: The most steps a river can flow: the largest paddle plus the stormiest weather.
MAX_STEPS = 6 + 2


def max_steps(enc: Encoding) -> int:
    """The most steps this ruleset's river can flow: with the expansion's cards the 7 is the largest paddle."""
    return MAX_STEPS + 1 if enc.rules.x_cards else MAX_STEPS


def pushes_put_back(enc: Encoding) -> bool:
    """Whether phase III may end in a choice of an owner: a moored canoe put back onto the whirlpool at a fork
    (X-WHIRL-4, with the Lasso of X-CARDS-4)."""
    return enc.rules.x_whirl and enc.rules.x_cards


@dataclass
class FlowChoice:
    """With ``fork_policy: free``, the branch each step's disc takes at each fork (label index); with the whirlpool
    and the Lasso, the place each moored canoe put back onto the whirlpool is pushed to (0: not pushed; X-WHIRL-4)."""

    branches: list[dict[int, Expr]]
    pushes: list[list[Expr]] | None = None

    @classmethod
    def fresh(cls, tag: str, enc: Encoding) -> "FlowChoice":
        pushes = ([[z3.Int(f"{tag}.push.{p}.{k}") for k in range(2)] for p in range(enc.players)]
                  if pushes_put_back(enc) else None)
        return cls([{f: z3.Int(f"{tag}.step{i}.fork{f}") for f in enc.tables.forks} for i in range(max_steps(enc))],
                   pushes)

    def variables(self) -> list[Expr]:
        return [v for step in self.branches for v in step.values()] + [v for row in self.pushes or () for v in row]


def encode_flow(enc: Encoding, pre: SymPosition, choice: FlowChoice | None = None,
                steps: Expr | None = None) -> Transition:
    """Phase III from ``pre`` (every player's card known): the river moves ``k`` single steps (R-FLOW-1..6).

    Each step pushes the discs on one path from the top to a brink, chosen by the fork markers; canoes on
    those discs move one place down, those on the last disc go over the falls. Unrolled to the largest
    possible flow; a negative ``k`` (which R-FLOW-2 forbids) would move canoes upstream. ``steps``, if given,
    replaces the flow computed from the cards (phase III alone, ``k`` steps).
    """
    t = enc.tables
    out: list[Constraint] = []
    total = enc.rule("R-FLOW-1")(enc, pre.card, pre.weather)
    k = enc.rule("R-FLOW-2")(enc, total) if steps is None else steps
    free = enc.rules.fork_policy is ForkPolicy.FREE
    if (free or pushes_put_back(enc)) and choice is None:
        choice = FlowChoice.fresh("flow", enc)
    state = pre.copy()
    joe_home: list[list[Expr]] = [[z3.IntVal(0)] * NCOL for _ in range(NCOL)]  # Joe's gems back to the caves
    # What the flow did on the way, for questions about it (the cross-check's goals): the whirlpool or Joe went over
    # the falls at some step (X-WHIRL-1, X-JOE-1), a moored canoe was put back onto the whirlpool (X-WHIRL-4).
    whirl_over: list[Expr] = []
    joe_over: list[Expr] = []
    put_back: list[Expr] = []
    # R-FLOW-3: the branch the disc of each step took at each fork it passed (label index; -1: it did not pass),
    # whoever decided it (the markers or the choices), to show a counterexample's flow.
    routes: dict[str, Expr] = {}
    for i in range(max_steps(enc)):
        active = k > i
        if free:
            assert choice is not None
            routing = choice.branches[i]
            out += [("R-FLOW-4", z_and(b >= 0, b < len(t.labels[f]))) for f, b in routing.items()]
        else:
            routing = state.marker
        # The terms are made through z3's C API (encoding/terms.py: the same terms as z3.And, z3.If and ==): this
        # loop makes most of a flow relation's terms, for every canoe, disc and step.
        on_path = {x: and_of([equal(routing[f], j)[0] for f, j in t.route[x]], active.ctx) for x in t.disc_ids}
        routes.update({f"route.{i}.{f}": z3.If(z_and(active, on_path[f]), routing[f], -1) for f in t.forks})
        new = state.copy()
        for p in range(state.players):
            for v in range(2):
                x = state.place[p][v]
                moved: Expr = x
                # X-CARDS-4: a moored canoe stands beside its board place and does not ride.
                riding = z3.Not(pre.moored[p][v]) if pre.moored is not None else None
                for d in t.disc_ids:
                    here = and_of([active, equal(x, d)[0], on_path[d]]) if riding is None else \
                        and_of([active, equal(x, d)[0], on_path[d], riding])
                    if d in t.branch:
                        nxt: Expr = z3.IntVal(t.branch[d][-1])
                        for j, child in reversed(list(enumerate(t.branch[d][:-1]))):
                            nxt = ite(equal(routing[d], j)[0], child, nxt)
                    elif t.next[d] is not None:
                        nxt = z3.IntVal(t.next[d])
                    else:
                        nxt = z3.IntVal(t.FALLEN)  # the disc leaving a brink goes over the falls
                    moved = ite(here, nxt, moved)
                # A negative flow (forbidden by R-FLOW-2) would push canoes back up, one disc a step.
                back = z_and(k < -i, t.is_disc(x)) if riding is None else z_and(k < -i, t.is_disc(x), riding)
                moved = z3.If(back, _parent(t, x), moved)
                new.place[p][v] = moved
        if state.beaver is not None:  # X-BEAVER-1: the beaver rides its disc; over the falls it leaves the river
            b = state.beaver
            rode: Expr = b
            for d in t.disc_ids:
                here = z_and(active, b == d, on_path[d])
                if d in t.branch:
                    nxt_b: Expr = z3.IntVal(t.branch[d][-1])
                    for j, child in reversed(list(enumerate(t.branch[d][:-1]))):
                        nxt_b = z3.If(routing[d] == j, child, nxt_b)
                elif t.next[d] is not None:
                    nxt_b = z3.IntVal(t.next[d])
                else:
                    nxt_b = z3.IntVal(0)  # off the river
                rode = z3.If(here, nxt_b, rode)
            new.beaver = rode
        if state.whirl is not None:  # X-WHIRL-1: "next" comes in at the top; on the river it rides its disc
            w = state.whirl
            went: Expr = w
            for d in t.disc_ids:
                went = z3.If(z_and(active, w == d, on_path[d]), _below(t, d, routing, 0), went)
            new.whirl = z3.If(z_and(active, w == 0), t.top, went)
            whirl_over.append(z_and(active, t.is_disc(w), went == 0))
        if state.joe is not None and state.joe_gem is not None:
            went_joe: Expr = state.joe
            for d in t.disc_ids:
                went_joe = z3.If(z_and(active, state.joe == d, on_path[d]), _below(t, d, routing, t.FALLEN), went_joe)
            over = went_joe == t.FALLEN
            joe_over.append(over)
            joe_home, new.joe_gem = enc.rule("X-JOE-1")(enc, joe_home, over, state.joe_gem)
            new.joe = z3.If(over, t.top, went_joe)
        if not free:
            for f in t.forks:
                new.marker[f] = z3.If(z_and(active, on_path[f]),
                                      enc.rule("R-FLOW-4")(enc, state.marker[f], len(t.labels[f])), state.marker[f])
        state = new
    if state.whirl is not None and pre.moored is not None and choice is not None and choice.pushes is not None:
        # X-WHIRL-4: a moored canoe put back onto the whirlpool is pushed one disc down (its owner picks the branch at
        # a fork), over the falls from a last disc (R-FLOW-6 below).
        for p in range(state.players):
            for v in range(2):
                push = choice.pushes[p][v]
                put = z_and(pre.moored[p][v], state.place[p][v] == state.whirl, t.is_disc(state.whirl))
                put_back.append(put)
                out += [("X-WHIRL-4", z3.Implies(put, e)) for _, e in enc.rule("X-WHIRL-2")(enc, state.whirl, push)]
                out.append(("X-WHIRL-4", z3.Implies(z3.Not(put), push == 0)))
                state.place[p][v] = z3.If(put, push, state.place[p][v])
    if state.joe is not None:  # X-JOE-1: the gems Joe carried over the falls are back in their caves
        state.cave = [[state.cave[cc][c] + joe_home[cc][c] for c in range(NCOL)] for cc in range(NCOL)]
    # R-FLOW-6: canoes that went over the falls are fallen; their cargo goes back to the caves.
    holder_fell = []
    for p in range(state.players):
        for v in range(2):
            fell = z_and(pre.place[p][v] != t.FALLEN, state.place[p][v] == t.FALLEN)
            if pre.holder is not None and state.holder is not None:  # X-MOOSE-3: the moose lets go of it
                holder_fell.append(z_and(pre.holder[p][v], fell))
                state.holder[p][v] = z_and(pre.holder[p][v], z3.Not(fell))
            # The cargo moves off the canoe as a transfer, so conservation is plain arithmetic.
            moved = [z3.If(fell, g, 0) for g in pre.cargo[p][v]]
            state.cave = enc.rule("R-FLOW-6")(enc, state.cave, moved)
            state.cargo[p][v] = [g - m for g, m in zip(pre.cargo[p][v], moved)]
    if pre.moose is not None:  # X-MOOSE-3: a returning moose (or one whose canoe fell) waits again at the very end
        state.moose = z3.If(z_or(pre.moose == 2, *holder_fell), 0, pre.moose)
    if pre.beaver is not None and state.beaver is not None:  # X-BEAVER-2: after the put-back, the calm
        state.weather = enc.rule("X-BEAVER-2")(enc, pre.weather, z_and(pre.beaver != 0, state.beaver == 0))
    if state.moored is not None:  # X-CARDS-4: at the end of phase III the moored canoes are put back
        state.moored = [[z3.BoolVal(False)] * 2 for _ in range(state.players)]
    if state.joe is not None and state.joe_gem is not None and state.lifebuoy is not None:
        # X-JOE-2: after phase III, Joe loads and paddles by the lifebuoy holder's card.
        state.joe, state.joe_gem, state.cave = enc.rule("X-JOE-2")(enc, state.joe, state.joe_gem, state.cave,
                                                                  _joe_points(enc, state))
    extra = {"k": k, "sum": total, "whirl_over": z_or(whirl_over), "joe_over": z_or(joe_over),
             "put_back_on_whirl": z_or(put_back), **routes}
    return Transition(out, state, extra=extra, choice=choice)


def _below(t: BoardTables, d: int, routing: dict[int, Expr], over: int) -> Expr:
    """The place a disc on ``d`` reaches in one flow step: the next disc, at a fork the routed branch, and ``over``
    from a last disc."""
    if d in t.branch:
        nxt: Expr = z3.IntVal(t.branch[d][-1])
        for j, child in reversed(list(enumerate(t.branch[d][:-1]))):
            nxt = z3.If(routing[d] == j, child, nxt)
        return nxt
    if t.next[d] is not None:
        return z3.IntVal(t.next[d])
    return z3.IntVal(over)


def _joe_points(enc: Encoding, pos: SymPosition) -> Expr:
    """X-JOE-2: the value of the lifebuoy holder's card: a paddle at face value, the cloud and the Lasso 0, the 1/2/3
    card its chosen budget (never the moose's bonus)."""
    assert pos.lifebuoy is not None
    out: Expr = z3.IntVal(0)
    for p in range(pos.players):
        card = pos.card[p]
        worth: Expr = card
        if pos.budget is not None:  # X-CARDS-3: the 1/2/3 card is worth the budget chosen; the Lasso nothing
            worth = z3.If(card == ONE_TWO_THREE, pos.budget[p], z3.If(card == LASSO, 0, card))
        out = z3.If(pos.lifebuoy == p, worth, out)
    return out


def _parent(t: BoardTables, x: Expr) -> Expr:
    out: Expr = x
    for d in t.disc_ids:
        out = ite(equal(x, d)[0], t.above[d][0], out)
    return out


@dataclass
class RescueChoice:
    """Each player's rescue decision per canoe: bring it back, and the colour paid (1..5; 0: free)."""

    rescued: list[list[Expr]]
    colour: list[list[Expr]]

    @classmethod
    def fresh(cls, tag: str, players: int) -> "RescueChoice":
        return cls([[z3.Bool(f"{tag}.{p}.{k}.rescued") for k in range(2)] for p in range(players)],
                   [[z3.Int(f"{tag}.{p}.{k}.colour") for k in range(2)] for p in range(players)])

    def variables(self) -> list[Expr]:
        return [v for rows in (self.rescued, self.colour) for row in rows for v in row]


def encode_rescue(enc: Encoding, pre: SymPosition, choice: RescueChoice) -> Transition:
    """Phase I rescues (R-RESCUE-1..3): each player independently, in seat order from the lifebuoy."""
    t = enc.tables
    out: list[Constraint] = []
    state = pre.copy()
    for p in range(pre.players):
        out += enc.rule("R-RESCUE-2")(enc, pre.place[p], choice.rescued[p], choice.colour[p], pre.bank[p])
        bank, cave = list(state.bank[p]), state.cave
        for k in range(2):
            rescued, colour = choice.rescued[p][k], choice.colour[p][k]
            # R-RESCUE-1: the gem paid must be in the bank (after the player's other payment).
            out.append(("R-RESCUE-1", z3.Implies(z_and(rescued, colour >= 1),
                                                 z_or([z_and(colour == c + 1, bank[c] >= 1) for c in range(NCOL)]))))
            bank, cave = enc.rule("R-RESCUE-1:payment")(enc, bank, cave, rescued, colour)
            state.place[p][k] = z3.If(rescued, t.PORT, state.place[p][k])
        state.bank[p] = bank
        state.cave = cave
    return Transition(out, state, choice=choice)
