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
from niagara_solver.model.ruleset import RescueWhenNone, Ruleset

TURN, FLOW, RESCUE = "turn", "flow", "rescue"


@dataclass
class Context:
    """What a statement may read: the encoding's tables and switches, the positions, the declared choices."""

    enc: Encoding
    phase: str
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
    obligations: tuple[tuple[str, Statement], ...]
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
        paddles = [z3.If(z3.Or(c == 0, c >= 8), 99, c) for c in ctx.pre.card]
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
    held = z3.Or(pre.holder[P][k], post.holder[P][k],
                 z3.And(pre.moose == 0, post.moose == 2, post.place[P][k] == ctx.t.PORT))
    return n + z3.If(held, 2, 0)


def moose_held_once(ctx: Context) -> Expr:
    """X-PROP-1: at most one canoe holds the moose, exactly when it is held, and that canoe is on the river (or
    moored beside it)."""
    post, t = ctx.post, ctx.t
    if post.holder is None or post.moose is None:
        return z3.BoolVal(True)
    holders = [(p, k) for p in range(post.players) for k in range(2)]
    count = z3.Sum([z3.If(post.holder[p][k], 1, 0) for p, k in holders])
    return z3.And(count == z3.If(post.moose == 1, 1, 0),
                  *(z3.Implies(post.holder[p][k], t.is_disc(post.place[p][k])) for p, k in holders))


def riding(ctx: Context, p: int, k: int, at: Expr) -> Expr:
    """``at``, for a canoe that rides the flow: with the Lasso a moored canoe stays beside its place (X-CARDS-4),
    so the flow's per-canoe statements are restated for the canoes that are not moored."""
    if ctx.pre.moored is None:
        return at
    return z3.And(at, z3.Not(ctx.pre.moored[p][k]))


def actions(ops: list[Any]) -> Expr:
    """How many gem actions the canoe declared (each a one-gem transfer)."""
    return z3.Sum([x for op in ops for x in op.cells()])


def cost_of(ctx: Context, ops: list[Any], start: Expr, end: Expr) -> Expr:
    """Points a canoe spent, recomputed: 2 a gem action, 1 a disc between where it started and ended."""
    t = ctx.t
    distance = depth(t, end) - depth(t, start)
    return 2 * actions(ops) + z3.If(distance < 0, -distance, distance)


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
    return z3.And(parts)


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
                    at = riding(ctx, p, k, z3.And(pre.place[p][k] == x))
                    for e in range(len(chain) - o):
                        parts.append(z3.Implies(z3.And(at, got == e), post.place[p][k] == chain[o + e]))
                    if chain[-1] in t.brinks:
                        parts.append(z3.Implies(z3.And(at, got >= len(chain) - o), post.place[p][k] == t.FALLEN))
    return z3.And(parts) if parts else z3.BoolVal(True)


def main_bed_speed(ctx: Context) -> Expr:
    t, pre, post = ctx.t, ctx.pre, ctx.post
    k = reference_flow(ctx)
    chain = main_bed(t)
    parts = []
    for o, x in enumerate(chain):
        for p, c in probe(ctx):
            at = riding(ctx, p, c, pre.place[p][c] == x)
            for e in range(len(chain) - o):
                parts.append(z3.Implies(z3.And(at, k == e), post.place[p][c] == chain[o + e]))
            if chain[-1] in t.brinks:
                parts.append(z3.Implies(z3.And(at, k >= len(chain) - o), post.place[p][c] == t.FALLEN))
    return z3.And(parts)


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
            at = pre.place[p][c] == x
            b = post.place[p][c]
            moved = z3.If(b == t.FALLEN, fall_distance, depth(t, b) - t.depth[x])
            parts.append(z3.Implies(at, moved <= most))
    return z3.And(parts) if parts else z3.BoolVal(True)


# -- every phase ----------------------------------------------------------------------------------------

def gems_conserved(ctx: Context) -> Expr:
    return z3.And([ctx.post.total(c) == ctx.enc.rules.gems_for(ctx.post.players) for c in range(NCOL)])


def per_canoe(ctx: Context) -> list[tuple[int, int]]:
    """The canoes a statement about each canoe alone is checked on: one in the flow (see :func:`probe`),
    all of them in the other phases."""
    return probe(ctx) if ctx.phase == FLOW else canoes(ctx)


def canoes_conserved(ctx: Context) -> Expr:
    t, pre, post = ctx.t, ctx.pre, ctx.post
    parts = []
    for p, k in per_canoe(ctx):
        a, b = pre.place[p][k], post.place[p][k]
        parts.append(z3.And(b >= 0, b <= t.FALLEN))
        if ctx.phase != FLOW:  # only the flow sends canoes over the falls
            parts.append(z3.Implies(a != t.FALLEN, b != t.FALLEN))
    return z3.And(parts)


def capacity_kept(ctx: Context) -> Expr:
    post = ctx.post
    parts = []
    for p, k in per_canoe(ctx):
        # Restated with the double canoe: 2 gems for it, ``capacity`` for the single one (X-DOUBLE-1, X-PROP-3).
        parts.append(post.load(p, k) <= post.capacity(p, k, ctx.enc.rules.capacity) if post.double is not None
                     else post.load(p, k) <= ctx.enc.rules.capacity)
        parts += [g >= 0 for g in post.cargo[p][k]]
    return z3.And(parts)


def weather_kept(ctx: Context) -> Expr:
    pre, post = ctx.pre, ctx.post
    if ctx.phase == FLOW and pre.beaver is not None and post.beaver is not None:
        # Restated with the beaver: in phase III the weather stays, unless the beaver went over the falls and the
        # weather was set to 0 (X-BEAVER-2).
        return z3.Or(post.weather == pre.weather, z3.And(pre.beaver != 0, post.beaver == 0, post.weather == 0))
    return post.weather == pre.weather


def beaver_calm(ctx: Context) -> Expr:
    """X-PROP-4: after a flow in which the beaver went over the falls, the weather is 0."""
    pre, post = ctx.pre, ctx.post
    if pre.beaver is None or post.beaver is None:
        return z3.BoolVal(True)
    return z3.Implies(z3.And(pre.beaver != 0, post.beaver == 0), post.weather == 0)


def weather_in_turn(ctx: Context) -> Expr:
    rules, pre, post = ctx.enc.rules, ctx.pre, ctx.post
    step = post.weather - pre.weather
    return z3.And(post.weather >= rules.weather_min, post.weather <= rules.weather_max,
                  z3.If(card(ctx) == 0, z3.Or(step == 1, step == -1), step == 0))


def banks_grow(ctx: Context) -> Expr:
    return z3.And([ctx.post.bank[p][c] >= ctx.pre.bank[p][c] for p in range(ctx.pre.players) for c in range(NCOL)])


def banks_pay_rescues(ctx: Context) -> Expr:
    t, pre, post = ctx.t, ctx.pre, ctx.post
    parts = []
    for p in range(pre.players):
        rescued = z3.Sum([z3.If(z3.And(pre.place[p][k] == t.FALLEN, post.place[p][k] == t.PORT), 1, 0)
                          for k in range(2)])
        paid = z3.Sum(pre.bank[p]) - z3.Sum(post.bank[p])
        parts.append(z3.And(paid >= 0, paid <= rescued))
        parts += [post.bank[p][c] <= pre.bank[p][c] for c in range(NCOL)]
    return z3.And(parts)


# -- phase II -------------------------------------------------------------------------------------------

def exact_budget(ctx: Context) -> Expr:
    t = ctx.t
    parts = []
    for s in slots(ctx):
        n = canoe_points(ctx, s)
        start, end = start_of(ctx, s), end_of(ctx, s)
        spent = cost_of(ctx, s.ops, start, end)
        before_home = 2 * actions(s.pre_ops) + depth(t, start)
        home = z3.And(end == t.PORT, start != t.PORT)
        parts.append(z3.Implies(s.on, z3.Or(spent == n, z3.And(home, before_home <= n))))
    return z3.And(parts)


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
            parts.append(z3.And([post.cargo[q][v][c] <= pre.cargo[q][v][c] for c in range(NCOL)]))
            lost = z3.Sum(post.cargo[q][v]) < z3.Sum(pre.cargo[q][v])
            thieves = []
            for s in slots(ctx):
                start, end = start_of(ctx, s), end_of(ctx, s)
                gems_before = z3.Sum(pre.cargo[P][s.who])
                loads = z3.Sum([op.loads(g) for op in s.pre_ops for g in range(NCOL)])
                unloads = z3.Sum([op.unloads(g) for op in s.pre_ops for g in range(NCOL)])
                unloaded_any = z3.Sum([op.unloads(g) for op in s.ops for g in range(NCOL)]) > 0
                moving = gems_before + loads - unloads
                # Empty while moving; restated for the double canoe: a free place while moving (X-DOUBLE-3).
                empty = moving == 0 if pre.double is None else \
                    z3.If(pre.double[P][s.who], moving <= 1, moving == 0)
                conditions = [s.on, t.is_disc(end), end == pre.place[q][v],
                              depth(t, end) < depth(t, start),                       # paddled upstream
                              empty,
                              actions(s.post_ops) == 0,                              # budget spent moving
                              cost_of(ctx, s.ops, start, end) == canoe_points(ctx, s),
                              z3.Sum(post.cargo[P][s.who]) >= 1]                     # and took the gem
                if not ctx.enc.rules.steal_after_unload:
                    conditions.append(z3.Not(unloaded_any))
                thieves.append(z3.And(conditions))
            parts.append(z3.Implies(lost, z3.Or(thieves)))
    return parts


def no_swap(ctx: Context) -> Expr:
    parts = []
    for s in slots(ctx):
        for c in range(NCOL):
            loads = z3.Sum([op.loads(c) for op in s.ops])
            unloads = z3.Sum([op.unloads(c) for op in s.ops])
            parts.append(z3.Implies(s.on, z3.Or(loads == 0, unloads == 0)))
    return z3.And(parts)


def along_the_river(ctx: Context) -> Expr:
    t = ctx.t
    parts = []
    for s in slots(ctx):
        start, end = start_of(ctx, s), end_of(ctx, s)
        down = z3.And(t.is_disc(end), t.upstream_of(start, end))
        up = z3.And(t.is_disc(start), t.upstream_of(end, start))
        parts.append(z3.Implies(s.on, z3.Or(end == start, down, up)))
    return z3.And(parts)


def river_canoes_act(ctx: Context) -> Expr:
    t, pre, post = ctx.t, ctx.pre, ctx.post
    P = ctx.player
    parts = []
    for k in range(2):
        on_river = t.is_disc(pre.place[P][k])
        same = z3.And(post.place[P][k] == pre.place[P][k],
                      z3.And([post.cargo[P][k][c] == pre.cargo[P][k][c] for c in range(NCOL)]))
        parts.append(z3.Implies(z3.And(every_canoe_acts(ctx), on_river), z3.Not(same)))
    if ctx.enc.rules.x_cards:  # restated: with the Lasso the river canoes are moored instead (X-CARDS-4)
        from niagara_solver.model.ruleset import LassoScope
        assert post.moored is not None
        lasso = card(ctx) == 8
        river = [t.is_disc(pre.place[P][k]) for k in range(2)]
        moored = post.moored[P]
        parts += [z3.Implies(moored[k], z3.And(lasso, river[k])) for k in range(2)]
        if ctx.enc.rules.lasso_scope is LassoScope.ALL:
            parts += [z3.Implies(z3.And(lasso, river[k]), moored[k]) for k in range(2)]
        else:
            parts.append(z3.Implies(z3.And(lasso, z3.Or(river)), z3.If(moored[0], 1, 0) + z3.If(moored[1], 1, 0) == 1))
    return z3.And(parts)


def every_canoe_acts(ctx: Context) -> Expr:
    """The cards with which every river canoe acts: the paddles (R-TURN-3); restated with the expansion's cards,
    whose Lasso moors the canoes instead (X-CARDS-4) and whose 1/2/3 card makes one canoe act under
    ``card_123_canoes: one`` (X-CARDS-3)."""
    if not ctx.enc.rules.x_cards:
        return card(ctx) != 0
    from niagara_solver.model.ruleset import Card123Canoes
    paddle = z3.And(card(ctx) >= 1, card(ctx) <= 7)
    return z3.Or(paddle, card(ctx) == 9) if ctx.enc.rules.card_123_canoes is Card123Canoes.ALL else paddle


# -- phase I --------------------------------------------------------------------------------------------

def rescue_price(ctx: Context) -> Expr:
    """Each canoe brought back costs one banked gem, which goes to the cave of its colour; one may come back
    free only for a player with no canoe in play (and an empty bank, unless ``rescue_when_none: free``)."""
    t, pre, post, rules = ctx.t, ctx.pre, ctx.post, ctx.enc.rules
    parts = []
    for p in range(pre.players):
        rescued = z3.Sum([z3.If(z3.And(pre.place[p][k] == t.FALLEN, post.place[p][k] == t.PORT), 1, 0)
                          for k in range(2)])
        paid = z3.Sum(pre.bank[p]) - z3.Sum(post.bank[p])
        none_in_play = z3.And([pre.place[p][k] == t.FALLEN for k in range(2)])
        free_ok = none_in_play if rules.rescue_when_none is RescueWhenNone.FREE else \
            z3.And(none_in_play, z3.Sum(pre.bank[p]) == 0)
        # Exactly one canoe is free exactly when the rules give one (R-RESCUE-2, R-RESCUE-3).
        parts.append(z3.If(free_ok, paid == rescued - 1, paid == rescued))
        for k in range(2):
            parts.append(z3.Implies(pre.place[p][k] != t.FALLEN, post.place[p][k] == pre.place[p][k]))
    for cc in range(NCOL):
        for c in range(NCOL):
            gained = post.cave[cc][c] - pre.cave[cc][c]
            if cc == c:
                parts.append(gained == z3.Sum([pre.bank[p][c] - post.bank[p][c] for p in range(pre.players)]))
            else:
                parts.append(gained == 0)
    return z3.And(parts)


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
    Property("R-PROP-15", "rescue price", ("R-RESCUE-1", "R-RESCUE-2", "R-RESCUE-3"), ((RESCUE, rescue_price),)),
    Property("R-PROP-16", "river canoes act", ("R-TURN-3", "R-MOVE-1"), ((TURN, river_canoes_act),)),
)

#: The expansion's own properties (RULES.md X-PROP), each proved with its module on.
EXPANSION: tuple[Property, ...] = (
    Property("X-PROP-1", "one moose", ("X-MOOSE-1", "X-MOOSE-3"),
             ((RESCUE, moose_held_once), (TURN, moose_held_once), (FLOW, moose_held_once)), module="x_moose"),
    Property("X-PROP-4", "beaver calm", ("X-BEAVER-1", "X-BEAVER-2"), ((FLOW, beaver_calm),), module="x_beaver"),
)

BY_ID = {p.id: p for p in (*CATALOGUE, *EXPANSION)}


def catalogue_for(rules: Ruleset) -> tuple[Property, ...]:
    """The properties proved under ``rules``: the catalogue, and the X-PROP of every module that is on."""
    return (*CATALOGUE, *(p for p in EXPANSION if p.module is not None and getattr(rules, p.module)))

