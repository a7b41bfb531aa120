"""The rule properties R-PROP-1..16 (docs/PROPERTIES.md), stated over the positions before and after a phase.

A property is proved **for all valid positions and all legal choices** of one phase (a one-phase proof): the
solver is asked for a well-formed position and choices that the phase's relation allows but the statement
breaks; unsat is a proof. Statements recompute what they need from the two positions (and, for a turn, the
gem actions the player declared) with their own arithmetic, never from the encoding's bookkeeping (its
points spent, its budget, its flow value), so that a mutant of a rule cannot hide behind it.

R-PROP-1..12 are RULES.md's; R-PROP-13..16 close gaps the mutation check found (docs/PROPERTIES.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import z3

from niagara_solver.encoding.core import Encoding
from niagara_solver.encoding.relations import Step
from niagara_solver.encoding.state import NCOL, Expr, SymPosition
from niagara_solver.encoding.tables import BoardTables
from niagara_solver.encoding.turn import SlotObservation, TurnChoice
from niagara_solver.model.ruleset import (Card123Canoes, LassoScope, RescueLimit, RescueWhenNone, Ruleset,
                                        WhirlCostStep)
from niagara_solver.model.switches import SwitchPhase
from niagara_solver.encoding.terms import z_and, z_or, z_sum

#: The phases a property is proved over: a switch's parts of a game (the words of ``prove --json``'s ``phases``).
TURN, FLOW, RESCUE = SwitchPhase.TURN, SwitchPhase.FLOW, SwitchPhase.RESCUE


@dataclass
class Context:
    """What a statement may read: the encoding's tables and switches, the positions, the declared choices."""

    enc: Encoding
    phase: SwitchPhase
    pre: SymPosition
    transition: Step
    choice: object = None
    player: int = 0

    @property
    def t(self) -> BoardTables:
        return self.enc.tables

    @property
    def post(self) -> SymPosition:
        return self.transition.post


#: A statement is a z3 Bool, or a list of them proved one by one (a conjunction, split for speed).
Statement = Callable[[Context], Any]


@dataclass(frozen=True)
class Property:
    """A catalogue entry: what must hold after which phases, and the rules it rests on."""

    id: str
    title: str
    rules: tuple[str, ...]
    obligations: tuple[tuple[SwitchPhase, Statement], ...]
    method: str = ""
    notes: str = ""
    #: The expansion module the property speaks of (RULES.md X-PROP): proved only with that module on.
    module: str | None = None

    def __post_init__(self) -> None:
        if not self.method:
            phases = ", ".join(p for p, _ in self.obligations)
            object.__setattr__(self, "method", f"one-phase proof ({phases})")


# -- helpers: the property side's own arithmetic --------------------------------------------------------

def depth(t: BoardTables, x: Expr) -> Expr:
    return t.depth_of(x)


def reference_flow(ctx: Context) -> Expr:
    """The flow RULES.md prescribes, computed here independently: smallest paddle (0 if only clouds) plus
    the weather, never below ``min_flow`` (R-FLOW-1, R-FLOW-2)."""
    if ctx.enc.rules.x_cards:  # X-CARDS-2: the 7 is a paddle; the Lasso (8) and the 1/2/3 card (9) are not
        paddles = [z3.If(z_or(c == 0, c >= 8), 99, c) for c in ctx.pre.card]
    else:
        paddles = [z3.If(c == 0, 99, c) for c in ctx.pre.card]
    smallest: Expr = paddles[0]
    for p in paddles[1:]:
        smallest = z3.If(p < smallest, p, smallest)
    total = z3.If(smallest == 99, 0, smallest) + ctx.pre.weather
    return z3.If(total < ctx.enc.rules.min_flow, ctx.enc.rules.min_flow, total)


def canoes(ctx: Context) -> list[tuple[int, int]]:
    return [(p, k) for p in range(ctx.pre.players) for k in range(2)]


def probe(ctx: Context) -> list[tuple[int, int]]:
    """The canoes a per-canoe flow statement is checked on: one, by symmetry.

    In the flow every canoe's new place is the same function of its own place, the flow and the fork markers
    (a test checks that the encoding's term for a canoe's place reads nothing else), so a statement about one
    canoe, for every position of that canoe and all the players' cards, holds for every canoe.
    """
    return [(0, 0)]


def slots(ctx: Context) -> list[SlotObservation]:
    return ctx.transition.observations


def card(ctx: Context) -> Expr:
    assert isinstance(ctx.choice, TurnChoice)
    return ctx.choice.card


def points(ctx: Context) -> Expr:
    """The points each acting canoe has: the card's value, or with the 1/2/3 card the budget the player recorded
    (X-CARDS-3), read from the position after the turn."""
    if not ctx.enc.rules.x_cards:
        return card(ctx)
    assert ctx.post.budget is not None
    return z3.If(card(ctx) == 9, ctx.post.budget[ctx.player], card(ctx))


def canoe_points(ctx: Context, slot: SlotObservation) -> Expr:
    """The points of one acting canoe: :func:`points`, and 2 more while it holds the moose (X-MOOSE-2): it held it
    before, holds it after, or took the waiting moose and brought it home (it is returning now)."""
    n = points(ctx)
    pre, post = ctx.pre, ctx.post
    if pre.holder is None or post.holder is None or pre.moose is None or post.moose is None:
        return n
    P, k = ctx.player, slot.who
    held = z_or(pre.holder[P][k], post.holder[P][k],
                 z_and(pre.moose == 0, post.moose == 2, post.place[P][k] == ctx.t.PORT))
    return n + z3.If(held, 2, 0)


def moose_held_once(ctx: Context) -> Expr:
    """X-PROP-1: at most one canoe holds the moose, exactly when it is held, and that canoe is on the river (or
    moored beside it)."""
    post, t = ctx.post, ctx.t
    if post.holder is None or post.moose is None:
        return z3.BoolVal(True)
    holders = [(p, k) for p in range(post.players) for k in range(2)]
    count = z_sum([z3.If(post.holder[p][k], 1, 0) for p, k in holders])
    return z_and(count == z3.If(post.moose == 1, 1, 0),
                  *(z3.Implies(post.holder[p][k], t.is_disc(post.place[p][k])) for p, k in holders))


def riding(ctx: Context, p: int, k: int, at: Expr) -> Expr:
    """``at``, for a canoe that rides the flow: with the Lasso a moored canoe stays beside its place (X-CARDS-4),
    so the flow's per-canoe statements are restated for the canoes that are not moored."""
    if ctx.pre.moored is None:
        return at
    return z_and(at, z3.Not(ctx.pre.moored[p][k]))


def actions(ops: list[Any]) -> Expr:
    """How many gem actions the canoe declared (each a one-gem transfer)."""
    return z_sum([x for op in ops for x in op.cells()])


def cost_of(ctx: Context, ops: list[Any], start: Expr, end: Expr) -> Expr:
    """Points a canoe spent, recomputed: 2 a gem action, 1 a disc between where it started and ended; restated with
    the whirlpool: 1 more for an upstream movement across it (X-WHIRL-3)."""
    t = ctx.t
    distance = depth(t, end) - depth(t, start)
    return 2 * actions(ops) + z3.If(distance < 0, -distance, distance) + whirl_toll(ctx, start, end)


def whirl_toll(ctx: Context, start: Expr, end: Expr) -> Expr:
    """X-WHIRL-3, recomputed: an upstream movement from ``start`` to ``end`` pays 1 more when the whirlpool lies on its
    way: strictly above the start and at or below the end (``whirl_cost_step: enter``: the step onto it; ``leave``:
    the step off it, so the end lies strictly above it)."""
    t, w = ctx.t, ctx.pre.whirl
    if w is None:
        return z3.IntVal(0)
    beyond = t.upstream_of(end, w)
    if ctx.enc.rules.whirl_cost_step is WhirlCostStep.ENTER:
        beyond = z_or(end == w, beyond)
    return z3.If(z_and(t.is_disc(w), t.upstream_of(w, start), beyond, depth(t, end) < depth(t, start)), 1, 0)


def pushed_to(ctx: Context, at: Expr) -> Expr:
    """``at`` is where the whirlpool pushes a canoe: one disc below it, or over the falls from a last disc
    (X-WHIRL-2)."""
    t, w = ctx.t, ctx.pre.whirl
    if w is None:
        return z3.BoolVal(False)
    return z_or([z_and(w == x, z_or([at == b for b in below]) if below else at == t.FALLEN)
                  for x, below in t.children.items()])


def whirl_above(ctx: Context, start: Expr) -> Expr:
    """The whirlpool is on a disc upstream of ``start`` (the only case in which a canoe may stay, X-WHIRL-5, or be
    pushed back where it started, X-WHIRL-2)."""
    w = ctx.pre.whirl
    if w is None:
        return z3.BoolVal(False)
    return z_and(ctx.t.is_disc(w), ctx.t.upstream_of(w, start))


def end_of(ctx: Context, slot: SlotObservation) -> Expr:
    """Where the slot's canoe is after the turn (slot s acts on canoe s)."""
    return ctx.post.place[ctx.player][slot.who]


def start_of(ctx: Context, slot: SlotObservation) -> Expr:
    return ctx.pre.place[ctx.player][slot.who]


def main_bed(t: BoardTables) -> list[int]:
    """The discs from the top down to the first fork (included), or to the brink."""
    chain = [t.index[t.board.top]]
    while chain[-1] not in t.branch and t.next.get(chain[-1]) is not None:
        chain.append(t.next[chain[-1]])  # type: ignore[arg-type]
    return chain


def segment(t: BoardTables, first: int) -> list[int]:
    """The discs of a branch from its first disc down to the next fork (included) or its brink."""
    chain = [first]
    while chain[-1] not in t.branch and t.next.get(chain[-1]) is not None:
        chain.append(t.next[chain[-1]])  # type: ignore[arg-type]
    return chain


def share(marker: Expr, received: Expr, branch: int, labels: int) -> Expr:
    """How many of ``received`` discs a fork sends to ``branch`` when they take its branches in turn from
    ``marker`` (R-FLOW-4): the t-th disc (t = 0, 1, ...) goes to branch (marker + t) mod labels."""
    offset = (branch - marker) % labels
    return z3.If(received > offset, (received - offset - 1) / labels + 1, 0)


# -- phase III ------------------------------------------------------------------------------------------

def no_reverse_flow(ctx: Context) -> Expr:
    t, pre, post = ctx.t, ctx.pre, ctx.post
    parts = [ctx.transition.extra["k"] >= 0]
    for p, k in probe(ctx):
        a, b = pre.place[p][k], post.place[p][k]
        parts.append(depth(t, b) >= depth(t, a))
        parts.append(z3.Implies(a == t.PORT, b == t.PORT))
        parts.append(z3.Implies(a == t.FALLEN, b == t.FALLEN))
    return z_and(parts)


def fork_alternation(ctx: Context) -> Expr:
    """Markers end where alternation puts them; canoes in each branch move by that branch's share."""
    t, pre, post = ctx.t, ctx.pre, ctx.post
    parts = []
    received: dict[int, Expr] = {}
    top = main_bed(t)[-1]
    if top in t.branch:
        received[top] = reference_flow(ctx)
    for f in t.forks:  # breadth first: a fork's parent branch is handled before it
        if f not in received:
            continue
        labels = len(t.labels[f])
        parts.append(post.marker[f] == (pre.marker[f] + received[f]) % labels)
        for j, first in enumerate(t.branch[f]):
            got = share(pre.marker[f], received[f], j, labels)
            chain = segment(t, first)
            if chain[-1] in t.branch:
                received[chain[-1]] = got
            for o, x in enumerate(chain):
                for p, k in probe(ctx):
                    at = riding(ctx, p, k, z_and(pre.place[p][k] == x))
                    for e in range(len(chain) - o):
                        parts.append(z3.Implies(z_and(at, got == e), post.place[p][k] == chain[o + e]))
                    if chain[-1] in t.brinks:
                        parts.append(z3.Implies(z_and(at, got >= len(chain) - o), post.place[p][k] == t.FALLEN))
    return z_and(parts) if parts else z3.BoolVal(True)


def main_bed_speed(ctx: Context) -> Expr:
    t, pre, post = ctx.t, ctx.pre, ctx.post
    k = reference_flow(ctx)
    chain = main_bed(t)
    parts = []
    for o, x in enumerate(chain):
        for p, c in probe(ctx):
            at = riding(ctx, p, c, pre.place[p][c] == x)
            for e in range(len(chain) - o):
                parts.append(z3.Implies(z_and(at, k == e), post.place[p][c] == chain[o + e]))
            if chain[-1] in t.brinks:
                parts.append(z3.Implies(z_and(at, k >= len(chain) - o), post.place[p][c] == t.FALLEN))
    return z_and(parts)


def branch_speed(ctx: Context) -> Expr:
    t, pre, post = ctx.t, ctx.pre, ctx.post
    bed = set(main_bed(t))
    top = main_bed(t)[-1]
    labels = len(t.labels[top]) if top in t.labels else 1
    k = reference_flow(ctx)
    most = (k + labels - 1) / labels
    parts = []
    for x in t.disc_ids:
        if x in bed:
            continue
        below = [b for b in t.brinks if x in t.above[b] or b == x]
        fall_distance = min(t.depth[b] for b in below) - t.depth[x] + 1
        for p, c in probe(ctx):
            # Restated with the whirlpool like R-PROP-11: for a canoe that is not moored (a moored canoe put back
            # onto the whirlpool is pushed one disc more, X-WHIRL-4).
            at = riding(ctx, p, c, pre.place[p][c] == x) if pre.whirl is not None else pre.place[p][c] == x
            b = post.place[p][c]
            moved = z3.If(b == t.FALLEN, fall_distance, depth(t, b) - t.depth[x])
            parts.append(z3.Implies(at, moved <= most))
    return z_and(parts) if parts else z3.BoolVal(True)


# -- every phase ----------------------------------------------------------------------------------------

def gems_conserved(ctx: Context) -> Expr:
    return z_and([ctx.post.total(c) == ctx.enc.rules.gems_for(ctx.post.players) for c in range(NCOL)])


def per_canoe(ctx: Context) -> list[tuple[int, int]]:
    """The canoes a statement about each canoe alone is checked on: one in the flow (see :func:`probe`),
    all of them in the other phases."""
    return probe(ctx) if ctx.phase is FLOW else canoes(ctx)


def canoes_conserved(ctx: Context) -> Expr:
    t, pre, post = ctx.t, ctx.pre, ctx.post
    parts = []
    for p, k in per_canoe(ctx):
        a, b = pre.place[p][k], post.place[p][k]
        parts.append(z_and(b >= 0, b <= t.FALLEN))
        if ctx.phase is not FLOW:  # only the flow sends canoes over the falls; restated: or a whirlpool on a last disc
            # pushes a canoe over them in its own action (X-WHIRL-2)
            brink = z_or([pre.whirl == x for x in t.brinks]) if pre.whirl is not None else z3.BoolVal(False)
            parts.append(z3.Implies(a != t.FALLEN, z_or(b != t.FALLEN, brink if ctx.phase is TURN else False)))
    return z_and(parts)


def capacity_kept(ctx: Context) -> Expr:
    post = ctx.post
    parts = []
    for p, k in per_canoe(ctx):
        # Restated with the double canoe: 2 gems for it, ``capacity`` for the single one (X-DOUBLE-1, X-PROP-3).
        parts.append(post.load(p, k) <= post.capacity(p, k, ctx.enc.rules.capacity) if post.double is not None
                     else post.load(p, k) <= ctx.enc.rules.capacity)
        parts += [g >= 0 for g in post.cargo[p][k]]
    return z_and(parts)


def weather_kept(ctx: Context) -> Expr:
    pre, post = ctx.pre, ctx.post
    if ctx.phase is FLOW and pre.beaver is not None and post.beaver is not None:
        # Restated with the beaver: in phase III the weather stays, unless the beaver went over the falls and the
        # weather was set to 0 (X-BEAVER-2).
        return z_or(post.weather == pre.weather, z_and(pre.beaver != 0, post.beaver == 0, post.weather == 0))
    return post.weather == pre.weather


def beaver_calm(ctx: Context) -> Expr:
    """X-PROP-4: after a flow in which the beaver went over the falls, the weather is 0."""
    pre, post = ctx.pre, ctx.post
    if pre.beaver is None or post.beaver is None:
        return z3.BoolVal(True)
    return z3.Implies(z_and(pre.beaver != 0, post.beaver == 0), post.weather == 0)


def weather_in_turn(ctx: Context) -> Expr:
    rules, pre, post = ctx.enc.rules, ctx.pre, ctx.post
    step = post.weather - pre.weather
    return z_and(post.weather >= rules.weather_min, post.weather <= rules.weather_max,
                  z3.If(card(ctx) == 0, z_or(step == 1, step == -1), step == 0))


def banks_grow(ctx: Context) -> Expr:
    return z_and([ctx.post.bank[p][c] >= ctx.pre.bank[p][c] for p in range(ctx.pre.players) for c in range(NCOL)])


def banks_pay_rescues(ctx: Context) -> Expr:
    t, pre, post = ctx.t, ctx.pre, ctx.post
    parts = []
    for p in range(pre.players):
        rescued = z_sum([z3.If(z_and(pre.place[p][k] == t.FALLEN, post.place[p][k] == t.PORT), 1, 0)
                          for k in range(2)])
        paid = z_sum(pre.bank[p]) - z_sum(post.bank[p])
        parts.append(z_and(paid >= 0, paid <= rescued))
        parts += [post.bank[p][c] <= pre.bank[p][c] for c in range(NCOL)]
    return z_and(parts)


# -- phase II -------------------------------------------------------------------------------------------

def exact_budget(ctx: Context) -> Expr:
    """Restated with the whirlpool: a pushed canoe spent its points where its movement ended (its declared
    destination, the whirlpool), and is one disc below it; a canoe may stay, spending nothing, only with the
    whirlpool upstream of it (X-WHIRL-5)."""
    t = ctx.t
    parts = []
    for s in slots(ctx):
        n = canoe_points(ctx, s)
        start, end = start_of(ctx, s), end_of(ctx, s)
        landed: Expr = z3.BoolVal(True)
        stayed: Expr = z3.BoolVal(False)
        if ctx.pre.whirl is not None:
            landed = z_or(end == s.end, z_and(s.end == ctx.pre.whirl, pushed_to(ctx, end)))
            stayed = z_and(end == start, actions(s.ops) == 0, whirl_above(ctx, start),
                            z_and([g == h for g, h in zip(ctx.pre.cargo[ctx.player][s.who],
                                                           ctx.post.cargo[ctx.player][s.who])]))
            end = s.end
        spent = cost_of(ctx, s.ops, start, end)
        before_home = 2 * actions(s.pre_ops) + depth(t, start) + whirl_toll(ctx, start, z3.IntVal(t.PORT))
        home = z_and(end == t.PORT, start != t.PORT)
        parts.append(z3.Implies(s.on, z_or(z_and(landed, z_or(spent == n, z_and(home, before_home <= n))),
                                            stayed)))
    return z_and(parts)


def steal_soundness(ctx: Context) -> Expr:
    """Every gem an enemy canoe lost went to a canoe of the player that paddled up to it, empty, and stopped
    there with its whole budget spent by the movement (R-STEAL-1..3, and -5).

    Checked for the first canoe of the next player: the other players and their canoes are interchangeable as
    far as one player's turn is concerned, so this covers every victim.
    """
    t, pre, post = ctx.t, ctx.pre, ctx.post
    P = ctx.player
    parts = []
    for q in (P + 1,):
        for v in (0,):
            # Another player's canoe never gains a gem in this turn, and loses one only to a thief.
            parts.append(z_and([post.cargo[q][v][c] <= pre.cargo[q][v][c] for c in range(NCOL)]))
            lost = z_sum(post.cargo[q][v]) < z_sum(pre.cargo[q][v])
            thieves = []
            for s in slots(ctx):
                start, end = start_of(ctx, s), end_of(ctx, s)
                gems_before = z_sum(pre.cargo[P][s.who])
                loads = z_sum([op.loads(g) for op in s.pre_ops for g in range(NCOL)])
                unloads = z_sum([op.unloads(g) for op in s.pre_ops for g in range(NCOL)])
                unloaded_any = z_sum([op.unloads(g) for op in s.ops for g in range(NCOL)]) > 0
                moving = gems_before + loads - unloads
                # Empty while moving; restated for the double canoe: a free place while moving (X-DOUBLE-3).
                empty = moving == 0 if pre.double is None else \
                    z3.If(pre.double[P][s.who], moving <= 1, moving == 0)
                conditions = [s.on, t.is_disc(end), end == pre.place[q][v],
                              depth(t, end) < depth(t, start),                       # paddled upstream
                              empty,
                              actions(s.post_ops) == 0,                              # budget spent moving
                              cost_of(ctx, s.ops, start, end) == canoe_points(ctx, s),
                              z_or(z_sum(post.cargo[P][s.who]) >= 1, gave_joe(ctx))]  # and took the gem
                if not ctx.enc.rules.steal_after_unload:
                    conditions.append(z3.Not(unloaded_any))
                thieves.append(z_and(conditions))
            parts.append(z3.Implies(lost, z_or(thieves)))
    return parts


def gave_joe(ctx: Context) -> Expr:
    """Restated with Diamond Joe: a thief may give the stolen gem to Joe at the end of its action, and the player's
    other canoe may take it from him (X-JOE-3): the thief carries a gem after, or a canoe of the player traded."""
    if ctx.pre.joe_gem is None:
        return z3.BoolVal(False)
    assert isinstance(ctx.choice, TurnChoice)
    return z_or([slot.trades() for slot in ctx.choice.slots])


def no_swap(ctx: Context) -> Expr:
    parts = []
    for s in slots(ctx):
        for c in range(NCOL):
            loads = z_sum([op.loads(c) for op in s.ops])
            unloads = z_sum([op.unloads(c) for op in s.ops])
            parts.append(z3.Implies(s.on, z_or(loads == 0, unloads == 0)))
    return z_and(parts)


def along_the_river(ctx: Context) -> Expr:
    t = ctx.t
    parts = []
    for s in slots(ctx):
        start, end = start_of(ctx, s), end_of(ctx, s)
        down = z_and(t.is_disc(end), t.upstream_of(start, end))
        up = z_and(t.is_disc(start), t.upstream_of(end, start))
        # Restated with the whirlpool: or where the whirlpool pushed it (X-WHIRL-2).
        parts.append(z3.Implies(s.on, z_or(end == start, down, up, pushed_to(ctx, end))))
    return z_and(parts)


def river_canoes_act(ctx: Context) -> Expr:
    t, pre, post = ctx.t, ctx.pre, ctx.post
    P = ctx.player
    parts = []
    for k in range(2):
        on_river = t.is_disc(pre.place[P][k])
        same = z_and(post.place[P][k] == pre.place[P][k],
                      z_and([post.cargo[P][k][c] == pre.cargo[P][k][c] for c in range(NCOL)]))
        # Restated with the whirlpool: unless the whirlpool is upstream of it, which may push it back where it
        # started or leave it no action (X-WHIRL-2, X-WHIRL-5).
        parts.append(z3.Implies(z_and(every_canoe_acts(ctx), on_river),
                                z_or(z3.Not(same), whirl_above(ctx, pre.place[P][k]))))
    if ctx.enc.rules.x_cards:  # restated: with the Lasso the river canoes are moored instead (X-CARDS-4)
        assert post.moored is not None
        lasso = card(ctx) == 8
        river = [t.is_disc(pre.place[P][k]) for k in range(2)]
        moored = post.moored[P]
        parts += [z3.Implies(moored[k], z_and(lasso, river[k])) for k in range(2)]
        if ctx.enc.rules.lasso_scope is LassoScope.ALL:
            parts += [z3.Implies(z_and(lasso, river[k]), moored[k]) for k in range(2)]
        else:
            parts.append(z3.Implies(z_and(lasso, z_or(river)), z3.If(moored[0], 1, 0) + z3.If(moored[1], 1, 0) == 1))
    return z_and(parts)


def every_canoe_acts(ctx: Context) -> Expr:
    """The cards with which every river canoe acts: the paddles (R-TURN-3); restated with the expansion's cards,
    whose Lasso moors the canoes instead (X-CARDS-4) and whose 1/2/3 card makes one canoe act under
    ``card_123_canoes: one`` (X-CARDS-3)."""
    if not ctx.enc.rules.x_cards:
        return card(ctx) != 0
    paddle = z_and(card(ctx) >= 1, card(ctx) <= 7)
    return z_or(paddle, card(ctx) == 9) if ctx.enc.rules.card_123_canoes is Card123Canoes.ALL else paddle


def off_the_whirlpool(ctx: Context) -> Expr:
    """X-PROP-2: no canoe that is not moored stands on the whirlpool's disc."""
    post = ctx.post
    if post.whirl is None:
        return z3.BoolVal(True)
    parts = []
    for p, k in canoes(ctx):
        free = z3.Not(post.moored[p][k]) if post.moored is not None else z3.BoolVal(True)
        parts.append(z3.Implies(z_and(free, ctx.t.is_disc(post.whirl)), post.place[p][k] != post.whirl))
    return z_and(parts)


def pushed_never_steal(ctx: Context) -> Expr:
    """X-PROP-5: a canoe whose movement ended on the whirlpool (so it was pushed), or that is moored, takes no gem
    from another canoe and trades none with Diamond Joe in that action."""
    pre, post = ctx.pre, ctx.post
    assert isinstance(ctx.choice, TurnChoice)
    P = ctx.player
    parts = []
    for slot in ctx.choice.slots:
        k = slot.who
        took = z_or([z_sum(slot.steal_cells(j)) >= 1 for j in range(len(slot.steals))] + [slot.trades()])
        pushed = (z_and(slot.move != 0, slot.dest == pre.whirl, ctx.t.is_disc(pre.whirl))
                  if pre.whirl is not None else z3.BoolVal(False))
        moored = (z_or(pre.moored[P][k], post.moored[P][k]) if pre.moored is not None and post.moored is not None
                  else z3.BoolVal(False))
        parts.append(z3.Implies(z_or(pushed, moored), z3.Not(took)))
    return z_and(parts)


def joe_carries_one(ctx: Context) -> Expr:
    """X-PROP-3 (Diamond Joe): Joe carries at most one gem, and gem conservation counts it."""
    post = ctx.post
    if post.joe_gem is None:
        return z3.BoolVal(True)
    return z_and(z_sum(post.joe_gem) <= 1, *(g >= 0 for g in post.joe_gem), gems_conserved(ctx))


# -- phase I --------------------------------------------------------------------------------------------

def rescue_price(ctx: Context) -> Expr:
    """Each canoe brought back costs one banked gem, which goes to the cave of its colour; one may come back
    free only for a player with no canoe in play (and an empty bank, unless ``rescue_when_none: free``); with
    ``rescue_limit: one`` a player brings back at most one canoe."""
    t, pre, post, rules = ctx.t, ctx.pre, ctx.post, ctx.enc.rules
    parts = []
    for p in range(pre.players):
        rescued = z_sum([z3.If(z_and(pre.place[p][k] == t.FALLEN, post.place[p][k] == t.PORT), 1, 0)
                          for k in range(2)])
        paid = z_sum(pre.bank[p]) - z_sum(post.bank[p])
        none_in_play = z_and([pre.place[p][k] == t.FALLEN for k in range(2)])
        free_ok = none_in_play if rules.rescue_when_none is RescueWhenNone.FREE else \
            z_and(none_in_play, z_sum(pre.bank[p]) == 0)
        # Exactly one canoe is free exactly when the rules give one (R-RESCUE-2, R-RESCUE-3).
        parts.append(z3.If(free_ok, paid == rescued - 1, paid == rescued))
        if rules.rescue_limit is RescueLimit.ONE:  # R-RESCUE-4
            parts.append(rescued <= 1)
        for k in range(2):
            parts.append(z3.Implies(pre.place[p][k] != t.FALLEN, post.place[p][k] == pre.place[p][k]))
    for cc in range(NCOL):
        for c in range(NCOL):
            gained = post.cave[cc][c] - pre.cave[cc][c]
            if cc == c:
                parts.append(gained == z_sum([pre.bank[p][c] - post.bank[p][c] for p in range(pre.players)]))
            else:
                parts.append(gained == 0)
    return z_and(parts)


# -- the catalogue --------------------------------------------------------------------------------------

CATALOGUE: tuple[Property, ...] = (
    Property("R-PROP-1", "no reverse flow", ("R-FLOW-1", "R-FLOW-2", "R-FLOW-5"),
             ((FLOW, no_reverse_flow),)),
    Property("R-PROP-2", "fork alternation", ("R-FLOW-3", "R-FLOW-4"), ((FLOW, fork_alternation),)),
    Property("R-PROP-3", "gem conservation", ("R-COMP-3", "R-GEM-1", "R-GEM-3", "R-GEM-5", "R-STEAL-1", "R-FLOW-6",
                                               "R-RESCUE-1"),
             ((RESCUE, gems_conserved), (TURN, gems_conserved), (FLOW, gems_conserved))),
    Property("R-PROP-4", "canoe conservation", ("R-COMP-2", "R-RESCUE-1", "R-FLOW-6"),
             ((RESCUE, canoes_conserved), (TURN, canoes_conserved), (FLOW, canoes_conserved))),
    Property("R-PROP-5", "exact budget", ("R-MOVE-2", "R-MOVE-3", "R-MOVE-5"), ((TURN, exact_budget),)),
    Property("R-PROP-6", "capacity", ("R-GEM-2", "R-STEAL-2"),
             ((RESCUE, capacity_kept), (TURN, capacity_kept), (FLOW, capacity_kept))),
    Property("R-PROP-7", "steal soundness", ("R-STEAL-1", "R-STEAL-2", "R-STEAL-3", "R-STEAL-5"),
             ((TURN, steal_soundness),)),
    Property("R-PROP-8", "weather bounds", ("R-COMP-4", "R-TURN-2", "R-WEATHER-1"),
             ((RESCUE, weather_kept), (TURN, weather_in_turn), (FLOW, weather_kept))),
    Property("R-PROP-9", "bank monotone", ("R-GEM-5", "R-RESCUE-1"),
             ((RESCUE, banks_pay_rescues), (TURN, banks_grow), (FLOW, banks_grow))),
    Property("R-PROP-10", "no deadlock", ("R-TURN-2", "R-TURN-3", "R-MOVE-1", "R-MOVE-3", "R-MOVE-5",
                                          "R-WEATHER-1"), (),
             method="witness turn verified for all positions",
             notes="for every position and card in hand, a witness turn (river canoes paddle up, one port canoe "
                   "down, or the weather one step) is shown to satisfy every rule"),
    Property("R-PROP-11", "main-bed speed", ("R-FLOW-1", "R-FLOW-3"), ((FLOW, main_bed_speed),)),
    Property("R-PROP-12", "branch speed", ("R-FLOW-3", "R-FLOW-4"), ((FLOW, branch_speed),)),
    Property("R-PROP-13", "no same-colour swap", ("R-GEM-4",), ((TURN, no_swap),)),
    Property("R-PROP-14", "along the river", ("R-MOVE-4", "R-MOVE-6"), ((TURN, along_the_river),)),
    Property("R-PROP-15", "rescue price", ("R-RESCUE-1", "R-RESCUE-2", "R-RESCUE-3", "R-RESCUE-4"),
             ((RESCUE, rescue_price),)),
    Property("R-PROP-16", "river canoes act", ("R-TURN-3", "R-MOVE-1"), ((TURN, river_canoes_act),)),
)

#: The expansion's own properties (RULES.md X-PROP), each proved with its module on.
EXPANSION: tuple[Property, ...] = (
    Property("X-PROP-1", "one moose", ("X-MOOSE-1", "X-MOOSE-3"),
             ((RESCUE, moose_held_once), (TURN, moose_held_once), (FLOW, moose_held_once)), module="x_moose"),
    Property("X-PROP-2", "off the whirlpool", ("X-WHIRL-1", "X-WHIRL-2", "X-WHIRL-4"),
             ((TURN, off_the_whirlpool), (FLOW, off_the_whirlpool)), module="x_whirl"),
    Property("X-PROP-3", "Joe's one gem", ("X-JOE-1", "X-JOE-2", "X-JOE-3", "R-COMP-3"),
             ((RESCUE, joe_carries_one), (TURN, joe_carries_one), (FLOW, joe_carries_one)), module="x_joe"),
    Property("X-PROP-4", "beaver calm", ("X-BEAVER-1", "X-BEAVER-2"), ((FLOW, beaver_calm),), module="x_beaver"),
    Property("X-PROP-5", "no theft when pushed", ("X-WHIRL-2", "X-CARDS-4", "X-JOE-3"),
             ((TURN, pushed_never_steal),), module="x_whirl"),
)

BY_ID = {p.id: p for p in (*CATALOGUE, *EXPANSION)}


def catalogue_for(rules: Ruleset) -> tuple[Property, ...]:
    """The properties proved under ``rules``: the catalogue, and the X-PROP of every module that is on."""
    return tuple(p for p in (*CATALOGUE, *EXPANSION) if not not_applicable(p, rules))


def not_applicable(prop: Property, rules: Ruleset) -> str:
    """Why ``prop`` does not apply under ``rules`` (its expansion module is off: ``"x_moose is off"``), or ``""``
    when it does. Such a property is not proved, nor refuted: it speaks of pieces the game does not have."""
    if prop.module is not None and not getattr(rules, prop.module):
        return f"{prop.module} is off"
    return ""

