"""Phase II as a transition relation: one player's turn with a card, over symbolic choices.

The choices (:class:`TurnChoice`) are the card; the weather step for a cloud; and for each of the player's
two canoes, whether it acts, its gem actions where it stands (counted: up to three in the base game), its movement
(direction and destination), its gem actions where it stops, and its steals. The relation is the conjunction of the rule
groups of :mod:`.core`, each constraint tagged with its rule ID; the position after the turn is computed as
terms of the position before and the choices.

Gem actions and steals are transfer matrices (a stop's loads move ``load[cc][c]`` gems of colour c from cave cc to
the canoe; a steal is a 0/1 cell), so every gem movement is a linear transfer and conservation is arithmetic the
solver sees at once (docs/PROVER.md, "What made it fast"). A stop's gem actions are counted, not ordered
(:class:`GemActions`).

Symmetry: a position's two canoes are interchangeable, so the canoe acting first is canoe 0: slot 0 acts on
canoe 0, slot 1 on canoe 1. Turns where the second canoe of a concrete position acts first are found by
swapping its canoes (:func:`canoe_orders`).

This is the encoding's own reading of RULES.md: it shares nothing with :mod:`niagara_solver.engine` but the
board graph and the rule IDs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import z3

from niagara_solver.model.ruleset import Card123Canoes, LassoScope, Ruleset
from niagara_solver.encoding.core import Encoding
from niagara_solver.encoding.state import LASSO, NCOL, ONE_TWO_THREE, Constraint, Expr, SymPosition, card_in_hand
from niagara_solver.encoding.tables import member
from niagara_solver.encoding.terms import between, between_0_1, int_sum, z_and, z_or, z_sum

OPS = 3  # gem actions at one stop in the base game: at most three (six points)


def gem_ops(rules: Ruleset | None) -> int:
    """The most gem actions at one stop (2 points each, R-MOVE-2): the largest budget halved. A 6 in the base
    game, a 7 with the expansion's cards (X-CARDS-1), and 2 more points on a canoe holding the moose (X-MOOSE-2):
    four gem actions where a canoe with the moose stays put with a 6."""
    budget = 7 if rules is not None and rules.x_cards else 6
    if rules is not None and rules.x_moose:
        budget += 2
    return max(OPS, budget // 2)


def _bit(name: str) -> Expr:
    return z3.Int(name)


@dataclass
class GemActions:
    """The gem actions at one stop, by what they move: ``load[cc][c]`` gems of colour ``c`` loaded from the cave of
    colour ``cc``, ``unload[cc][c]`` unloaded into it; all zero: no gem action there. At most ``most`` in all.

    A stop's actions are counted, not sequenced, and this is the encoding's reading of R-GEM-1..4, not a shortcut:
    no colour is both loaded and unloaded in a turn (R-GEM-4), so a stop's unloads never need its loads, nor its
    loads its unloads, and the order of its actions changes nothing but the cargo on the way; unloading first keeps
    that cargo lowest. So a set of actions is legal at a stop in some order exactly when it is legal unloads first:
    each colour unloaded at most as often as the canoe carries it, each colour loaded at most as often as the cave
    holds it, and the cargo after them within the canoe's room (R-GEM-2). The search for turns then never tries
    the orders of one stop's actions (docs/PROVER.md, "A stop's gem actions, counted")."""

    load: list[list[Expr]]
    unload: list[list[Expr]]
    most: int

    @classmethod
    def fresh(cls, tag: str, most: int) -> "GemActions":
        return cls([[z3.Int(f"{tag}.L.{cc}.{c}") for c in range(NCOL)] for cc in range(NCOL)],
                   [[z3.Int(f"{tag}.U.{cc}.{c}") for c in range(NCOL)] for cc in range(NCOL)], most)

    def cells(self) -> list[Expr]:
        return [x for m in (self.load, self.unload) for row in m for x in row]

    def domain(self) -> list[Expr]:
        cells = self.cells()
        return [*(between(x, 0, self.most) for x in cells), int_sum(cells) <= self.most]

    def loads(self, c: int) -> Expr:
        """How many gems of colour ``c`` the canoe loads here."""
        return int_sum([self.load[cc][c] for cc in range(NCOL)])

    def unloads(self, c: int) -> Expr:
        """How many gems of colour ``c`` the canoe unloads here."""
        return int_sum([self.unload[cc][c] for cc in range(NCOL)])

    # The terms below are read many times while a turn is built: each made once (the same terms either way).

    @property
    def loading(self) -> Expr:
        """Some gem is loaded here."""
        made = self.__dict__.get("_loading")
        if made is None:
            made = self.__dict__["_loading"] = int_sum([x for row in self.load for x in row]) >= 1
        return made

    @property
    def unloading(self) -> Expr:
        """Some gem is unloaded here."""
        made = self.__dict__.get("_unloading")
        if made is None:
            made = self.__dict__["_unloading"] = int_sum([x for row in self.unload for x in row]) >= 1
        return made

    @property
    def any(self) -> Expr:
        """Some gem action here."""
        made = self.__dict__.get("_any")
        if made is None:
            made = self.__dict__["_any"] = int_sum(self.cells()) >= 1
        return made


@dataclass
class SlotChoice:
    """The choices of one canoe's action (slot ``s`` acts on canoe ``s``)."""

    on: Expr
    who: int
    pre: GemActions
    move: Expr
    dest: Expr
    post: GemActions
    steals: list[list[list[list[Expr]]]]  # [j][player][canoe][colour] 0/1
    #: With the whirlpool: the place the canoe is pushed to (0: not pushed), its owner's choice at a fork (X-WHIRL-2).
    push: Expr | None = None
    #: With Diamond Joe: the trade at the end of the action (X-JOE-3): whether the canoe takes Joe's gem, and the
    #: colour of the gem it gives him (0/1 per colour).
    take_joe: Expr | None = None
    give_joe: list[Expr] | None = None

    @classmethod
    def fresh(cls, tag: str, capacity: int, who: int, players: int, x_whirl: bool = False,
              x_joe: bool = False, ops: int = OPS) -> "SlotChoice":
        return cls(on=z3.Bool(f"{tag}.on"), who=who,
                   pre=GemActions.fresh(f"{tag}.pre", ops),
                   move=z3.Int(f"{tag}.move"), dest=z3.Int(f"{tag}.dest"),
                   post=GemActions.fresh(f"{tag}.post", ops),
                   steals=[[[[_bit(f"{tag}.steal{j}.{q}.{v}.{c}") for c in range(NCOL)] for v in range(2)]
                            for q in range(players)] for j in range(capacity)],
                   push=z3.Int(f"{tag}.push") if x_whirl else None,
                   take_joe=z3.Bool(f"{tag}.joe.take") if x_joe else None,
                   give_joe=[_bit(f"{tag}.joe.give.{c}") for c in range(NCOL)] if x_joe else None)

    def trades(self) -> Expr:
        """The canoe trades with Diamond Joe (X-JOE-3)."""
        if self.take_joe is None or self.give_joe is None:
            return z3.BoolVal(False)
        return z_or(self.take_joe, z_sum(self.give_joe) >= 1)

    def steal_cells(self, j: int) -> list[Expr]:
        return [x for q in self.steals[j] for v in q for x in v]

    def taking(self, j: int) -> Expr:
        return z_sum(self.steal_cells(j)) == 1

    def variables(self) -> list[Expr]:
        whirl = [self.push] if self.push is not None else []
        joe = [self.take_joe, *self.give_joe] if self.take_joe is not None and self.give_joe is not None else []
        return [self.on, *self.pre.cells(), *self.post.cells(), self.move, self.dest,
                *(x for j in range(len(self.steals)) for x in self.steal_cells(j)), *whirl, *joe]


@dataclass
class TurnChoice:
    """Everything a player decides in a turn; with the expansion's cards also the 1/2/3 card's budget (X-CARDS-3)
    and, with ``lasso_scope: one``, which canoe the Lasso moors (X-CARDS-4)."""

    card: Expr
    step: Expr
    slots: list[SlotChoice]
    budget: Expr | None = None
    moor: list[Expr] | None = None
    #: With the moose: whether the canoe of each slot takes the waiting moose first (X-MOOSE-1).
    take: list[Expr] | None = None

    @classmethod
    def fresh(cls, tag: str, capacity: int, players: int, rules: Ruleset | None = None) -> "TurnChoice":
        x_cards = rules is not None and rules.x_cards
        if rules is not None and rules.x_double:  # a double canoe steals up to two gems (X-DOUBLE-3)
            capacity = max(capacity, 2)
        x_whirl = rules is not None and rules.x_whirl
        x_joe = rules is not None and rules.x_joe
        return cls(card=z3.Int(f"{tag}.card"), step=z3.Int(f"{tag}.weather_step"),
                   slots=[SlotChoice.fresh(f"{tag}.slot{s}", capacity, s, players, x_whirl, x_joe, gem_ops(rules))
                          for s in range(2)],
                   budget=z3.Int(f"{tag}.budget") if x_cards else None,
                   moor=([z3.Bool(f"{tag}.moor{k}") for k in range(2)]
                         if x_cards and rules is not None and rules.lasso_scope is LassoScope.ONE else None),
                   take=[z3.Bool(f"{tag}.take{k}") for k in range(2)] if rules is not None and rules.x_moose else None)

    def variables(self) -> list[Expr]:
        extra = [*([self.budget] if self.budget is not None else []), *(self.moor or []), *(self.take or [])]
        return [self.card, self.step, *(v for s in self.slots for v in s.variables()), *extra]


@dataclass
class SlotObservation:
    """What one canoe action did, as terms: where it started and ended, its gem actions, its steals."""

    on: Expr
    who: int
    start: Expr
    end: Expr
    home: Expr
    #: The gem actions at each stop: both stops, the one before the movement, the one after it.
    ops: list[GemActions]
    pre_ops: list[GemActions]
    post_ops: list[GemActions]
    move: Expr
    #: With the whirlpool: the movement ended on it and the canoe was pushed (X-WHIRL-2), over the falls (``fell``);
    #: the canoe had no legal action and stayed (X-WHIRL-5).
    pushed: Expr = field(default_factory=lambda: z3.BoolVal(False))
    fell: Expr = field(default_factory=lambda: z3.BoolVal(False))
    stayed: Expr = field(default_factory=lambda: z3.BoolVal(False))
    #: With Diamond Joe: the canoe traded with him (X-JOE-3).
    traded: Expr = field(default_factory=lambda: z3.BoolVal(False))
    #: The canoe's cargo at each stop before its gem actions (where it stands, where it stops), and its room
    #: (R-GEM-2, X-DOUBLE-1): what a written order of a stop's actions is checked against (pin.written_order).
    arrival: list[list[Expr]] = field(default_factory=list)
    room: Expr = field(default_factory=lambda: z3.IntVal(0))


@dataclass
class Transition:
    """A phase's relation: its rule-tagged constraints, the position after it, and the choices it ranges over."""

    constraints: list[Constraint]
    post: SymPosition
    observations: list[SlotObservation] = field(default_factory=list)
    extra: dict[str, Expr] = field(default_factory=dict)
    choice: Any = None


def swap_canoes(pos: SymPosition, player: int, swap: Expr) -> SymPosition:
    """The position with the player's two canoes exchanged when ``swap`` holds (they are interchangeable)."""
    out = pos.copy()
    a, b = pos.place[player]
    out.place[player] = [z3.If(swap, b, a), z3.If(swap, a, b)]
    ca, cb = pos.cargo[player]
    out.cargo[player] = [[z3.If(swap, y, x) for x, y in zip(ca, cb)], [z3.If(swap, x, y) for x, y in zip(ca, cb)]]
    if pos.moored is not None and out.moored is not None:
        ma, mb = pos.moored[player]
        out.moored[player] = [z3.If(swap, mb, ma), z3.If(swap, ma, mb)]
    if pos.double is not None and out.double is not None:
        da, db = pos.double[player]
        out.double[player] = [z3.If(swap, db, da), z3.If(swap, da, db)]
    if pos.holder is not None and out.holder is not None:
        ha, hb = pos.holder[player]
        out.holder[player] = [z3.If(swap, hb, ha), z3.If(swap, ha, hb)]
    return out


def encode_turn(enc: Encoding, pre: SymPosition, choice: TurnChoice, player: int = 0,
                swap: Expr | None = None) -> Transition:
    """The turn of ``player`` (by symmetry, player 0 stands for any) from ``pre`` with ``choice``.

    Slot 0 acts on canoe 0. Where the canoes' order is fixed by other players' turns (a whole round), ``swap``
    is a choice too: when it holds, the player's canoes trade places for the turn (slot 0 acts on canoe 1).
    """
    out: list[Constraint] = []
    P = player
    t = enc.tables
    if swap is not None:
        pre = swap_canoes(pre, P, swap)
    card = choice.card
    is_cloud = card == 0
    x_cards = pre.moored is not None and choice.budget is not None
    # A paddle card makes canoes act: 1..6, and with the expansion the 7 and the 1/2/3 card (not the Lasso).
    is_lasso = card == LASSO if x_cards else None
    is_123 = card == ONE_TWO_THREE if x_cards else None
    paddle = z3.Not(is_cloud) if not x_cards else z_and(z3.Not(is_cloud), z3.Not(is_lasso))
    points: Expr = card
    out.append(("R-CARD-2", card_in_hand(pre, P, card)))
    slots = choice.slots
    on = [s.on for s in slots]
    out += enc.rule("R-TURN-2")(enc, is_cloud, on, choice.step)
    if x_cards:
        assert choice.budget is not None
        points = z3.If(is_123, choice.budget, card)
        out += enc.rule("X-CARDS-3")(enc, pre.place[P], on, is_123, choice.budget)
        out += enc.rule("X-CARDS-4")(enc, is_lasso, on, choice.step)
        assert pre.moored is not None
        # The player acting has not played a Lasso yet this round: none of its canoes is moored (R-TURN-1).
        out.append(("X-CARDS-4", z_and([z3.Not(m) for m in pre.moored[P]])))
    one_canoe = x_cards and enc.rules.card_123_canoes is Card123Canoes.ONE
    out += enc.rule("R-TURN-3")(enc, pre.place[P], on, z_and(paddle, z3.Not(is_123)) if one_canoe else paddle)
    if one_canoe:
        out += enc.rule("X-CARDS-3:one")(enc, pre.place[P], on, is_123)

    state = pre.copy()
    state.weather = enc.rule("R-WEATHER-1:step")(enc, pre.weather, choice.step)
    if pre.beaver is not None:
        state.beaver = enc.rule("X-BEAVER-1")(enc, pre.beaver, is_cloud, state.weather)
    out += [(r, z3.Implies(is_cloud, c)) for r, c in enc.rule("R-WEATHER-1:bounds")(enc, state.weather)]
    observations = []
    quiet = is_cloud if not x_cards else z_or(is_cloud, is_lasso)  # cards with which no canoe paddles
    for s in slots:
        active = z_and(s.on, paddle)
        slot_points = points
        stuck = _stuck(enc, state, P, s.who, points) if state.whirl is not None else None
        if choice.take is not None and state.holder is not None and state.moose is not None:
            k = s.who
            take = choice.take[k]
            # X-MOOSE-1: a canoe on a last disc, not moored, takes the waiting moose first: an acting canoe, or with
            # the cloud or the Lasso one canoe of the player (the first to take it is the only one).
            free = z3.Not(state.moored[P][k]) if state.moored is not None else z3.BoolVal(True)
            out.append(("X-MOOSE-1", z3.Implies(take, z_and(state.moose == 0, member(state.place[P][k], t.brinks),
                                                              free, z_or(active, quiet)))))
            state = state.copy()
            state.moose = z3.If(take, 1, state.moose)
            assert state.holder is not None
            state.holder[P][k] = z_or(state.holder[P][k], take)
            slot_points = points + enc.rule("X-MOOSE-2")(enc, state.holder[P][k])
        obs, state, cons = _slot(enc, state, P, s, active, slot_points, stuck)
        out += cons
        observations.append(obs)
        if state.holder is not None and state.moose is not None:  # X-MOOSE-3: home (or over the falls, pushed by
            k = s.who                                              # the whirlpool) with the moose, it returns
            gone = z_or(obs.home, obs.fell)
            state.moose = z3.If(z_and(gone, state.holder[P][k]), 2, state.moose)
            state.holder[P][k] = z_and(state.holder[P][k], z3.Not(gone))
    # The card leaves the hand and is on the table (R-CARD-2).
    state.hand[P] = [z_and(h, card != c) for c, h in enumerate(pre.hand[P])]
    state.card[P] = card
    if x_cards:
        assert state.moored is not None and state.budget is not None and choice.budget is not None
        state.budget[P] = z3.If(is_123, choice.budget, 0)
        moor, cons = enc.rule("X-CARDS-4:moor")(enc, pre.place[P], is_lasso, choice.moor)
        out += cons
        state.moored[P] = moor
    if swap is not None:
        state = swap_canoes(state, P, swap)
    return Transition(out, state, observations, choice=choice)


def _stuck(enc: Encoding, state: SymPosition, P: int, k: int, points: Expr) -> Expr:
    """X-WHIRL-5: the canoe ``k`` of player ``P`` has no legal action at all with the card's ``points`` (and the
    moose's 2 if it holds it), nor with 2 more after taking the waiting moose if it may."""
    assert state.whirl is not None
    t = enc.tables
    start = state.place[P][k]
    capacity = state.capacity(P, k, enc.rules.capacity)
    held = state.holder[P][k] if state.holder is not None else z3.BoolVal(False)
    n = points + z3.If(held, 2, 0)
    has = enc.rule("X-WHIRL-5")(enc, start, n, state.whirl, state.cargo[P][k], state.cave, capacity)
    if state.moose is not None:  # X-MOOSE-1: a canoe on a last disc, not moored, may take the waiting moose first
        free = z3.Not(state.moored[P][k]) if state.moored is not None else z3.BoolVal(True)
        may = z_and(state.moose == 0, member(start, t.brinks), free)
        has = z_or(has, z_and(may, enc.rule("X-WHIRL-5")(enc, start, n + 2, state.whirl, state.cargo[P][k],
                                                           state.cave, capacity)))
    return z3.Not(has)


def _slot(enc: Encoding, state: SymPosition, P: int, s: SlotChoice, on: Expr, budget_points: Expr,
          stuck: Expr | None = None) -> tuple[SlotObservation, SymPosition, list[Constraint]]:
    """One canoe's action (R-MOVE-1): gem actions, a movement, gem actions, steals; with Diamond Joe a trade. A canoe
    with no legal action (``stuck``, X-WHIRL-5) acts by staying: like an idle slot."""
    t = enc.tables
    out: list[Constraint] = []
    k = s.who
    start = state.place[P][k]
    double = state.double[P][k] if state.double is not None else None
    whirl = state.whirl
    stayed = z_and(on, stuck) if stuck is not None else z3.BoolVal(False)
    active = z_and(on, z3.Not(stuck)) if stuck is not None else on

    def room(cargo: list[Expr]) -> list[Constraint]:
        """R-GEM-2, or for the double canoe its two places (X-DOUBLE-1)."""
        single = enc.rule("R-GEM-2")(enc, cargo)
        if double is None:
            return single
        return ([(r, z3.Implies(z3.Not(double), e)) for r, e in single]
                + [(r, z3.Implies(double, e)) for r, e in enc.rule("X-DOUBLE-1")(enc, cargo)])
    cargo = list(state.cargo[P][k])
    cave = [list(row) for row in state.cave]
    ops = [s.pre, s.post]
    for op in ops:
        out += [("DOMAIN", d) for d in op.domain()]

    def stop(op: GemActions, at: Expr, cargo: list[Expr],
             cave: list[list[Expr]]) -> tuple[list[Expr], list[list[Expr]]]:
        # R-GEM-1 on the cargo and the cave as the canoe finds them (GemActions: a stop's actions counted).
        out.extend(enc.rule("R-GEM-1")(enc, op, at, cave, cargo))
        cargo = [cargo[c] + op.loads(c) - op.unloads(c) for c in range(NCOL)]
        # R-GEM-3: an unloaded gem stays in the cave beside the disc; a loaded one leaves it.
        cave = [[cave[cc][c] - op.load[cc][c] + op.unload[cc][c] for c in range(NCOL)] for cc in range(NCOL)]
        # R-GEM-2 after the stop's loads (its unloads first: the cargo never higher on the way).
        out.extend((r, z3.Implies(op.loading, e)) for r, e in room(cargo))
        return cargo, cave

    arrival = list(cargo)
    cargo, cave = stop(s.pre, start, cargo, cave)
    moving = list(cargo)
    dest = s.dest
    home = z_and(active, s.move == -1, dest == t.PORT)
    out += enc.rule("R-MOVE-1")(enc, active, s.pre.any, s.post.any, s.move,
                                start, home)
    if double is not None and enc.rules.double_one_cave:  # X-DOUBLE-2: all its gem actions at one cave
        out.append(("X-DOUBLE-2", z3.Implies(z_and(double, s.move != 0),
                                             z3.Not(z_and(s.pre.any, s.post.any)))))
    out += [(r, z3.Implies(active, e)) for r, e in enc.rule("R-MOVE-6")(enc, start, s.move)]
    out += [(r, z3.Implies(active, e)) for r, e in enc.rule("R-MOVE-4")(enc, start, dest, s.move)]
    distance = z3.If(s.move == 1, t.depth_of(dest) - t.depth_of(start),
                     z3.If(s.move == -1, t.depth_of(start) - t.depth_of(dest), 0))
    extra: Expr = z3.IntVal(0)
    pushed: Expr = z3.BoolVal(False)
    fell: Expr = z3.BoolVal(False)
    if whirl is not None:
        assert s.push is not None
        extra = enc.rule("X-WHIRL-3")(enc, start, dest, s.move, whirl)
        distance = distance + extra
        # X-WHIRL-2: a movement ending on the whirlpool spends the last point there (R-MOVE-3 holds: the destination
        # is a disc), with no gem action after it; the canoe is pushed one disc down.
        pushed = z_and(active, s.move != 0, dest == whirl, t.is_disc(whirl))
        fell = z_and(pushed, s.push == t.FALLEN)
        out += [(r, z3.Implies(pushed, e)) for r, e in enc.rule("X-WHIRL-2")(enc, whirl, s.push)]
        out.append(("X-WHIRL-2", z3.Implies(z3.Not(pushed), s.push == 0)))
        out.append(("X-WHIRL-2", z3.Implies(pushed, z3.Not(s.post.any))))
        out += enc.rule("X-WHIRL-2:brink")(enc, z_and(pushed, member(whirl, t.brinks)), start, budget_points,
                                           whirl, state.cave, state.capacity(P, k, enc.rules.capacity))
    out.append(("R-MOVE-5", z3.Implies(home, z3.Not(s.post.any))))
    cargo, cave = stop(s.post, dest, cargo, cave)
    out += [(r, z3.Implies(active, e)) for r, e in enc.rule("R-GEM-4")(enc, ops)]
    spent = enc.rule("R-MOVE-2")(enc, ops, distance)
    pre_spent = enc.rule("R-MOVE-2")(enc, [s.pre], z3.IntVal(0))
    out += enc.rule("R-MOVE-3")(enc, active, spent, budget_points, home, start, pre_spent,
                                *([extra] if whirl is not None else []))
    loaded = z_or([op.loading for op in ops])
    unloaded = z_or([op.unloading for op in ops])
    out += enc.rule("R-GEM-5")(enc, home, loaded)

    # R-GEM-5: a canoe entering the port banks its cargo at no cost (a transfer from canoe to bank).
    banked = [z3.If(home, cargo[c], 0) for c in range(NCOL)]
    bank = [state.bank[P][c] + banked[c] for c in range(NCOL)]
    cargo = [cargo[c] - banked[c] for c in range(NCOL)]
    if whirl is not None:  # R-FLOW-6: pushed over the falls, its gems go back to the caves of their own colours
        lost = [z3.If(fell, cargo[c], 0) for c in range(NCOL)]
        cave = enc.rule("R-FLOW-6")(enc, cave, lost)
        cargo = [cargo[c] - lost[c] for c in range(NCOL)]

    # Steals (R-STEAL-1..5): one gem from each chosen canoe of another player on the disc.
    others = [[list(state.cargo[q][v]) for v in range(2)] for q in range(state.players)]
    post_ops = s.post.any
    # R-STEAL-1: a single canoe steals only empty; the double canoe with a free place while it moved (X-DOUBLE-3).
    empty_moving = z_sum(moving) == 0 if double is None else z3.If(double, z_sum(moving) <= 1, z_sum(moving) == 0)
    move_ok = enc.rule("R-STEAL-3")(enc, s.move)
    for j in range(len(s.steals)):
        cells = s.steals[j]
        out += [("DOMAIN", between_0_1(x)) for x in s.steal_cells(j)]
        out.append(("DOMAIN", z_sum(s.steal_cells(j)) <= 1))
        taking = s.taking(j)
        victim_here = z_and([z3.Implies(z_sum(cells[q][v]) == 1, state.place[q][v] == dest)
                              for q in range(state.players) for v in range(2)])
        has_gem = z_and([z3.Implies(cells[q][v][c] == 1, others[q][v][c] >= 1)
                          for q in range(state.players) for v in range(2) for c in range(NCOL)])
        is_other = z_sum([x for v in cells[P] for x in v]) == 0
        if state.moored is not None:  # X-CARDS-4: a moored canoe is off the river, nobody steals from it
            out += [("X-CARDS-4", z3.Implies(z_sum(cells[q][v]) == 1, z3.Not(state.moored[q][v])))
                    for q in range(state.players) for v in range(2)]
        out.append(("R-STEAL-2", z3.Implies(taking, active)))
        if whirl is not None:  # X-WHIRL-2: a pushed canoe cannot steal
            out.append(("X-WHIRL-2", z3.Implies(taking, z3.Not(pushed))))
        if j > 0:
            out.append(("R-STEAL-2", z3.Implies(taking, s.taking(j - 1))))
            out += [("R-STEAL-2", z_sum(cells[q][v]) + z_sum(s.steals[j - 1][q][v]) <= 1)
                    for q in range(state.players) for v in range(2)]
        out += enc.rule("R-STEAL-1")(enc, taking, move_ok, home, dest, empty_moving, post_ops,
                                     spent == budget_points, victim_here, is_other, has_gem)
        out += enc.rule("R-STEAL-5")(enc, taking, unloaded)
        for q in range(state.players):
            for v in range(2):
                others[q][v] = [others[q][v][c] - cells[q][v][c] for c in range(NCOL)]
        cargo = [cargo[c] + z_sum([cells[q][v][c] for q in range(state.players) for v in range(2)])
                 for c in range(NCOL)]
        # R-STEAL-2: a canoe steals at most as many gems as it has room for (R-GEM-2).
        out += [("R-STEAL-2", z3.Implies(taking, e)) for _, e in room(cargo)]

    traded: Expr = z3.BoolVal(False)
    joe_gem = state.joe_gem
    if state.joe is not None and state.joe_gem is not None:
        assert s.take_joe is not None and s.give_joe is not None
        out += [("DOMAIN", z_and(x >= 0, x <= 1)) for x in s.give_joe]
        traded = s.trades()
        # X-JOE-3: a canoe that moved (not pushed, not home) and ended its action on Joe's disc.
        out.append(("X-JOE-3", z3.Implies(traded, z_and(active, s.move != 0, z3.Not(pushed), z3.Not(home),
                                                          dest == state.joe))))
        out += enc.rule("X-JOE-3")(enc, s.take_joe, s.give_joe, state.joe_gem, cargo)
        out += [("X-JOE-3", z3.Implies(traded, e)) for _, e in room(
            [cargo[c] + z3.If(s.take_joe, state.joe_gem[c], 0) - s.give_joe[c] for c in range(NCOL)])]
        cargo = [cargo[c] + z3.If(s.take_joe, state.joe_gem[c], 0) - s.give_joe[c] for c in range(NCOL)]
        joe_gem = [state.joe_gem[c] - z3.If(s.take_joe, state.joe_gem[c], 0) + s.give_joe[c] for c in range(NCOL)]

    # An idle slot has no gem action, movement, banking or steal (R-MOVE-1, R-STEAL-2): caves, banks and cargo
    # come out unchanged without a case split.
    new = state.copy()
    new.joe_gem = joe_gem
    new.cave = cave
    new.bank[P] = bank
    for q in range(state.players):
        for v in range(2):
            new.cargo[q][v] = list(others[q][v])
    new.place[P][k] = z3.If(active, z3.If(pushed, s.push, dest) if s.push is not None else dest, start)
    new.cargo[P][k] = cargo
    obs = SlotObservation(on=on, who=k, start=start, end=dest, home=home, ops=ops, pre_ops=[s.pre],
                          post_ops=[s.post], move=s.move, pushed=pushed, fell=fell, stayed=stayed,
                          traded=traded, arrival=[arrival, moving], room=state.capacity(P, k, enc.rules.capacity))
    return obs, new, out

