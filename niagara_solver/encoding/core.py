"""The encoding's context and its named rule groups.

Every rule of RULES.md that the encoding uses is a small function registered under its rule ID in
:data:`GROUPS`. Transitions call rules only through :meth:`Encoding.rule`, so a mutant (a deliberate error
in one rule, :mod:`..analysis.mutants`) replaces exactly one entry and nothing else; and every constraint a
transition asserts carries the ID of the rule it comes from, so an unsat core names rules.

Group keys are rule IDs, optionally with a part name after a colon (``R-WEATHER-1:step``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

import z3

from niagara_solver.model.readings import UncoveredRulesError, require
from niagara_solver.model.board import Board
from niagara_solver.model.ruleset import (SWITCHES, GemSides, LassoScope, PortDeparture, RescueLimit, RescueWhenNone,
                                          Ruleset, WhirlBrink, WhirlCostStep)
from niagara_solver.encoding.state import NCOL, Constraint, Expr
from niagara_solver.encoding.tables import BoardTables, member
from niagara_solver.encoding.terms import all_of, at_least, at_least_term, implies, z_and, z_or, z_sum

Group = Callable[..., Any]
GROUPS: dict[str, Group] = {}


def group(key: str) -> Callable[[Group], Group]:
    """Register the default implementation of a rule group."""
    def register(fn: Group) -> Group:
        GROUPS[key] = fn
        return fn
    return register


@dataclass(frozen=True)
class Mutant:
    """A deliberate error in one rule group, for the mutation check."""

    name: str
    key: str
    replacement: Group
    description: str
    #: The switch values (as a file writes them) under which the rule the mutant breaks is in force: an expansion
    #: module on, or another value of a switch whose rule it breaks; the mutant is checked under them (none: the base
    #: game).
    switches: tuple[tuple[str, Any], ...] = ()

    def ruleset(self, rules: Ruleset) -> Ruleset:
        """``rules`` with the mutant's switch values set."""
        return dataclasses.replace(rules, **{name: SWITCHES[name].parse(value) for name, value in self.switches})


class Encoding:
    """Board tables, ruleset and player count, with the rule groups in force (mutated or not)."""

    def __init__(self, board: Board, rules: Ruleset, players: int, mutant: Mutant | None = None) -> None:
        require(rules, "encoding")
        self.board = board
        self.tables = BoardTables(board)
        self.rules = rules
        self.players = players
        self.mutant = mutant
        #: Tables a rule group derives from the board once (X-WHIRL-5's cases).
        self.cache: dict[str, Any] = {}
        self._groups = dict(GROUPS)
        if mutant is not None:
            if mutant.key not in self._groups:
                raise KeyError(mutant.key)
            self._groups[mutant.key] = mutant.replacement

    def rule(self, key: str) -> Group:
        """The implementation of a rule group (the mutant's, if it replaces this one)."""
        return self._groups[key]

    @staticmethod
    def rule_id(key: str) -> str:
        return key.split(":", 1)[0]


# -- phase II: which canoes act, and in which order ----------------------------------------------------

@group("R-TURN-3")
def acting(enc: Encoding, place: list[Expr], acts: list[Expr], paddle: Expr) -> list[Constraint]:
    """A canoe on the river always acts; fallen canoes never; of two port canoes exactly (at most) one acts."""
    t = enc.tables
    out: list[Constraint] = []
    for k in range(2):
        out.append(("R-TURN-3", z3.Implies(z_and(paddle, t.is_disc(place[k])), acts[k])))
        out.append(("R-TURN-3", z3.Implies(place[k] == t.FALLEN, z3.Not(acts[k]))))
    both_port = z_and(place[0] == t.PORT, place[1] == t.PORT)
    count = z3.If(acts[0], 1, 0) + z3.If(acts[1], 1, 0)
    if enc.rules.port_departure is PortDeparture.EXACTLY_ONE:
        out.append(("R-TURN-3", z3.Implies(z_and(paddle, both_port), count == 1)))
    else:
        out.append(("R-TURN-3", z3.Implies(both_port, count <= 1)))
    return out


@group("R-TURN-2")
def cloud(enc: Encoding, is_cloud: Expr, on: list[Expr], step: Expr) -> list[Constraint]:
    """With the cloud no canoe acts; the weather moves one step up or down."""
    return [("R-TURN-2", z3.Implies(is_cloud, z_and(z3.Not(on[0]), z3.Not(on[1])))),
            ("R-TURN-2", z3.Implies(is_cloud, z_or(step == 1, step == -1))),
            ("R-TURN-2", z3.Implies(z3.Not(is_cloud), step == 0))]


@group("X-CARDS-3")
def card_123(enc: Encoding, place: list[Expr], acts: list[Expr], is_123: Expr, budget: Expr) -> list[Constraint]:
    """The 1/2/3 card: the player chooses a budget of 1, 2 or 3 (none with another card)."""
    return [("X-CARDS-3", z3.Implies(is_123, z_and(budget >= 1, budget <= 3))),
            ("X-CARDS-3", z3.Implies(z3.Not(is_123), budget == 0))]


@group("X-CARDS-3:one")
def card_123_one(enc: Encoding, place: list[Expr], acts: list[Expr], is_123: Expr) -> list[Constraint]:
    """With ``card_123_canoes: one``: one canoe that R-TURN-3 lets act acts (a port canoe too, beside a river
    canoe); none only where R-TURN-3 lets none act (no canoe on the river, and the port canoes may stay)."""
    t = enc.tables
    count = z3.If(acts[0], 1, 0) + z3.If(acts[1], 1, 0)
    river = z_or(t.is_disc(place[0]), t.is_disc(place[1]))
    out = [("X-CARDS-3", z3.Implies(is_123, count <= 1)),
           ("X-CARDS-3", z3.Implies(z_and(is_123, river), count == 1))]
    if enc.rules.port_departure is PortDeparture.EXACTLY_ONE:
        both_port = z_and(place[0] == t.PORT, place[1] == t.PORT)
        out.append(("X-CARDS-3", z3.Implies(z_and(is_123, both_port), count == 1)))
    return out


@group("X-CARDS-4")
def lasso(enc: Encoding, is_lasso: Expr, acts: list[Expr], step: Expr) -> list[Constraint]:
    """With the Lasso no canoe paddles and the weather stays."""
    return [("X-CARDS-4", z3.Implies(is_lasso, z_and(z3.Not(acts[0]), z3.Not(acts[1])))),
            ("X-CARDS-4", z3.Implies(is_lasso, step == 0))]


@group("X-CARDS-4:moor")
def moor(enc: Encoding, place: list[Expr], is_lasso: Expr, chosen: list[Expr] | None) -> tuple[list[Expr],
                                                                                                list[Constraint]]:
    """Which canoes the Lasso moors: every canoe of the player on the river (``lasso_scope: all``), or the one
    chosen (``one``: exactly one river canoe, none when none is on the river)."""
    t = enc.tables
    on_river = [t.is_disc(x) for x in place]
    if enc.rules.lasso_scope is LassoScope.ALL or chosen is None:
        return [z_and(is_lasso, r) for r in on_river], []
    count = z3.If(chosen[0], 1, 0) + z3.If(chosen[1], 1, 0)
    out: list[Constraint] = [("X-CARDS-4", z3.Implies(c, z_and(is_lasso, r))) for c, r in zip(chosen, on_river)]
    out.append(("X-CARDS-4", z3.Implies(is_lasso, count == z3.If(z_or(on_river), 1, 0))))
    return list(chosen), out


@group("X-MOOSE-2")
def moose_bonus(enc: Encoding, held: Expr) -> Expr:
    """The canoe holding the moose gets 2 more points on every action."""
    return z3.If(held, 2, 0)


@group("X-BEAVER-1")
def beaver_jumps(enc: Encoding, beaver: Expr, is_cloud: Expr, weather: Expr) -> Expr:
    """A cloud that moves the weather to +2 brings the beaver, if it is off the river, onto the top disc."""
    top = enc.tables.index[enc.board.top]
    return z3.If(z_and(is_cloud, weather == 2, beaver == 0), top, beaver)


@group("X-BEAVER-2")
def beaver_calm(enc: Encoding, weather: Expr, fell: Expr) -> Expr:
    """After the beaver went over the falls, the weather is set to 0 at the end of phase III."""
    return z3.If(fell, 0, weather)


@group("R-WEATHER-1:step")
def weather_step(enc: Encoding, weather: Expr, step: Expr) -> Expr:
    """The weather after a cloud card: one step."""
    return weather + step


@group("R-WEATHER-1:bounds")
def weather_bounds(enc: Encoding, weather: Expr) -> list[Constraint]:
    """The weather never leaves [-1, 2]: at 2 the cloud must bring it down, at -1 up."""
    return [("R-WEATHER-1", z_and(weather >= enc.rules.weather_min, weather <= enc.rules.weather_max))]


# -- phase II: one canoe's action ----------------------------------------------------------------------

@group("R-MOVE-1")
def structure(enc: Encoding, active: Expr, pre: Expr, post: Expr, move: Expr, start: Expr,
              home: Expr) -> list[Constraint]:
    """Gem actions, one movement in one direction, gem actions (``pre``, ``post``: some gem action before, after
    it); a port canoe that acts leaves the port; with ``must_move`` every acting canoe moves; with ``gem_sides:
    one`` a canoe that moves makes gem actions before it or after it, not both (one that stays has nothing to
    split)."""
    out: list[Constraint] = [("R-MOVE-1", z3.Implies(z3.Not(active), z3.Not(z_or(pre, post))))]
    out.append(("R-MOVE-1", z_or(move == -1, move == 0, move == 1)))
    out.append(("R-MOVE-1", z3.Implies(z3.Not(active), move == 0)))
    out.append(("R-MOVE-1", z3.Implies(z_and(active, start == enc.tables.PORT), move != 0)))
    if enc.rules.must_move:
        out.append(("R-MOVE-1", z3.Implies(active, move != 0)))
    if enc.rules.gem_sides is GemSides.ONE:
        out.append(("R-MOVE-1", z3.Implies(move != 0, z3.Not(z_and(pre, post)))))
    return out


@group("R-MOVE-6")
def port_downstream(enc: Encoding, start: Expr, move: Expr) -> list[Constraint]:
    """A canoe in the port can only move downstream."""
    return [("R-MOVE-6", z3.Implies(start == enc.tables.PORT, move != -1))]


@group("R-MOVE-4")
def movement(enc: Encoding, start: Expr, dest: Expr, move: Expr) -> list[Constraint]:
    """Downstream: to a disc below (any branch at a fork, never over the falls); upstream: to a place on the
    way home; never across branches; no movement: stay."""
    t = enc.tables
    return [("R-MOVE-4", z3.Implies(move == 1, z_and(t.is_disc(dest), t.upstream_of(start, dest)))),
            ("R-MOVE-4", z3.Implies(move == -1, z_and(t.is_disc(start), t.upstream_of(dest, start)))),
            ("R-MOVE-4", z3.Implies(move == 0, dest == start))]


@group("R-MOVE-2")
def cost(enc: Encoding, ops: list[Any], distance: Expr) -> Expr:
    """Points spent: 1 a disc, 2 a load or an unload."""
    return distance + 2 * z_sum([x for op in ops for x in op.cells()])


@group("R-MOVE-3")
def budget(enc: Encoding, active: Expr, spent: Expr, budget_points: Expr, home: Expr, start: Expr,
           pre_spent: Expr, extra: Expr = 0) -> list[Constraint]:
    """Exactly the budget; a canoe entering the port needs the distance and loses the rest (R-MOVE-5). ``extra``:
    the whirlpool's extra point on the way home (X-WHIRL-3: the remaining distance is counted in points)."""
    t = enc.tables
    return [("R-MOVE-3", z3.Implies(z_and(active, z3.Not(home)), spent == budget_points)),
            ("R-MOVE-5", z3.Implies(z_and(active, home), pre_spent + t.depth_of(start) + extra <= budget_points))]


@group("R-GEM-1")
def gem_action(enc: Encoding, op: Any, place: Expr, cave: list[list[Expr]], cargo: list[Expr]) -> list[Constraint]:
    """Load a colour present in the cave beside; unload a gem carried, into the cave beside; only on a disc
    beside a cave (so never in the port, nor on a disc without a cave). ``op`` is a stop's gem actions, counted
    (turn.GemActions): a colour loaded as often as the cave holds it at most, unloaded as often as the canoe carries
    it (R-GEM-4 keeps a colour from being both, so the cave and the cargo as the canoe finds them are the measure)."""
    t = enc.tables
    here = t.cave_of(place)
    out: list[Constraint] = []
    # Fifty implications a stop, made through z3's C API (encoding/terms.py: the same terms as z3.Implies, z3.And
    # and >=); the Python API's checks of every argument were 40% of building a turn relation.
    for cc in range(NCOL):
        beside = z_and(t.is_disc(place), here == cc + 1)
        for c in range(NCOL):
            load, unload = op.load[cc][c], op.unload[cc][c]
            out.append(("R-GEM-1", implies(at_least(load, 1), all_of([beside, at_least_term(cave[cc][c], load)]))))
            out.append(("R-GEM-1", implies(at_least(unload, 1), all_of([beside, at_least_term(cargo[c], unload)]))))
    return out


@group("R-GEM-2")
def capacity(enc: Encoding, cargo: list[Expr]) -> list[Constraint]:
    """A canoe carries at most ``capacity`` gems."""
    return [("R-GEM-2", z_sum(cargo) <= enc.rules.capacity)]


@group("X-DOUBLE-1")
def double_room(enc: Encoding, cargo: list[Expr]) -> list[Constraint]:
    """The double canoe carries at most two gems."""
    return [("X-DOUBLE-1", z_sum(cargo) <= 2)]


@group("R-GEM-4")
def no_swap(enc: Encoding, ops: list[Any]) -> list[Constraint]:
    """A canoe may not both load and unload gems of one colour in one turn."""
    return [("R-GEM-4", z_or(z_sum([op.loads(c) for op in ops]) == 0, z_sum([op.unloads(c) for op in ops]) == 0))
            for c in range(NCOL)]


@group("R-GEM-5")
def bank_after_load(enc: Encoding, home: Expr, loaded: Expr) -> list[Constraint]:
    """With ``bank_after_load: false`` a canoe that loaded this turn may not enter the port."""
    if enc.rules.bank_after_load:
        return []
    return [("R-GEM-5", z3.Implies(home, z3.Not(loaded)))]


@group("R-STEAL-3")
def steal_direction(enc: Encoding, move: Expr) -> Expr:
    """Only after moving upstream."""
    return move == -1


@group("R-STEAL-1")
def steal(enc: Encoding, taking: Expr, move_ok: Expr, home: Expr, dest: Expr, empty_moving: Expr,
          post_ops: Expr, spent_exactly: Expr, victim_here: Expr, victim_is_other: Expr,
          has_gem: Expr) -> list[Constraint]:
    """A canoe that moved upstream, empty, and stopped on a disc with its budget spent by the movement may take
    a gem from another player's canoe there."""
    t = enc.tables
    return [("R-STEAL-3", z3.Implies(taking, move_ok)),
            ("R-STEAL-1", z3.Implies(taking, z_and(z3.Not(home), t.is_disc(dest), empty_moving,
                                                    z3.Not(post_ops), spent_exactly))),
            ("R-STEAL-1", z3.Implies(taking, z_and(victim_is_other, victim_here, has_gem)))]


@group("R-STEAL-5")
def steal_after_unload(enc: Encoding, taking: Expr, unloaded: Expr) -> list[Constraint]:
    """With ``steal_after_unload: false`` a canoe that unloaded this turn cannot steal."""
    if enc.rules.steal_after_unload:
        return []
    return [("R-STEAL-5", z3.Implies(taking, z3.Not(unloaded)))]


# -- the whirlpool (x_whirl) ------------------------------------------------------------------------------

@group("X-WHIRL-3")
def whirl_step(enc: Encoding, start: Expr, dest: Expr, move: Expr, whirl: Expr) -> Expr:
    """The extra point of an upstream movement across the whirlpool: its step onto the whirlpool costs 2
    (``whirl_cost_step: enter``: the whirlpool lies above the start and is the destination or below it), or its step
    off it (``leave``: the whirlpool lies strictly between the start and the destination); downstream none."""
    t = enc.tables
    above_start = t.upstream_of(whirl, start)
    beyond = t.upstream_of(dest, whirl)
    if enc.rules.whirl_cost_step is WhirlCostStep.ENTER:
        beyond = z_or(dest == whirl, beyond)
    return z3.If(z_and(move == -1, t.is_disc(whirl), above_start, beyond), 1, 0)


@group("X-WHIRL-2")
def whirl_push(enc: Encoding, whirl: Expr, push: Expr) -> list[Constraint]:
    """Where a canoe ending its movement on the whirlpool is pushed: one disc down (at a fork the branch its owner
    picks), over the falls from a last disc."""
    t = enc.tables
    return [("X-WHIRL-2", z_or([z_and(whirl == x, member(push, below) if below else push == t.FALLEN)
                                 for x, below in t.children.items()]))]


@group("X-WHIRL-2:brink")
def whirl_brink(enc: Encoding, falls: Expr, start: Expr, points: Expr, whirl: Expr, cave: list[list[Expr]],
                capacity: Expr) -> list[Constraint]:
    """``whirl_brink: avoid``: an action pushed over the falls is legal only if every action of the canoe with the
    same points falls so.

    The whirlpool is then on a last disc. A canoe on a disc always has an action that does not fall: paddling
    straight up with all its points, or into the port (a last disc is upstream of nothing, so no step of it costs
    more, and the canoe does not stand on the whirlpool). A canoe leaving the port (empty) has one exactly when it
    can stop on another disc: at the depth of its points, or 2 or 4 points shallower with one or two loads there."""
    if enc.rules.whirl_brink is WhirlBrink.ALLOWED:
        return []
    t = enc.tables
    empty = [z3.IntVal(0)] * NCOL
    other = []
    runs: dict[tuple[int, int], Expr] = {}  # per cave and loads: the discs beside one cave share them
    for e in t.disc_ids:
        stops = [points == t.depth[e]]
        colour = t.cave.get(e, 0)
        if colour:
            for k in (1, 2):
                if (colour, k) not in runs:
                    runs[colour, k] = gem_run(k, empty, cave[colour - 1], capacity)
                stops.append(z_and(points == t.depth[e] + 2 * k, runs[colour, k]))
        other.append(z_and(whirl != e, z_or(stops)))
    return [("X-WHIRL-2", z3.Implies(falls, z_and(start == t.PORT, z3.Not(z_or(other)))))]


@group("X-WHIRL-5")
def whirl_has_action(enc: Encoding, start: Expr, points: Expr, whirl: Expr, cargo: list[Expr],
                     cave: list[list[Expr]], capacity: Expr) -> Expr:
    """Whether a canoe with ``points`` has any legal action (X-WHIRL-5 lets it stay when it has none).

    A finite expansion over the board: where a movement alone (no gem action) spends the points exactly, or reaches
    the port, there is an action. The other cases, (start, whirlpool, points) of :func:`_bare_cases`, are few (an
    upstream movement skips one cost, the one the whirlpool's extra point jumps over); in each the canoe has an
    action exactly when gem actions fill the gap: before a movement, where it stands (*d* = 0), or after a
    movement."""
    t = enc.tables
    stuck = []
    empty = [z3.IntVal(0)] * NCOL  # a port canoe carries nothing (R-GEM-5)
    # The same few runs (gem actions, cave, in the port or not) recur across the cases, and across the two questions
    # of one canoe (with and without the moose's points): each made once per canoe (the terms are the same either
    # way; building them again took most of the time of building a turn with the whirlpool). The canoe's terms are
    # kept with the runs, so that their identities stay theirs.
    kept = enc.cache.setdefault("X-WHIRL-5 runs", {})
    key = (id(cargo), id(cave), id(capacity))
    if key not in kept:
        kept[key] = (cargo, cave, capacity, {})
    runs: dict[tuple[int, int, bool], Expr] = kept[key][3]
    for s, w, n, shapes in _bare_cases(enc):
        fills = []
        port = s == t.PORT
        for where, ops, _ in shapes:
            colour = t.cave.get(where, 0)
            if colour:
                run = runs.get((ops, colour, port))
                if run is None:
                    run = runs[ops, colour, port] = gem_run(ops, empty if port else cargo, cave[colour - 1], capacity)
                fills.append(run)
        stuck.append(z_and(start == s, whirl == w, points == n, z3.Not(z_or(fills)) if fills else z3.BoolVal(True)))
    return z3.Not(z_or(stuck)) if stuck else z3.BoolVal(True)


def _bare_cases(enc: Encoding) -> list[tuple[int, int, int, list[tuple[int, int, int]]]]:
    """The (start, whirlpool, points) where no movement alone is an action, each with the gem-action shapes that
    would make one: (place, number of gem actions there, points of the movement).

    Shapes: gem actions where the canoe stands, then a movement of the remaining points (any direction; ending on
    the whirlpool with the last point is a push); gem actions where it stands with no movement (unless
    ``must_move``); a movement, then gem actions where it stops (not on the whirlpool). Gem actions on both sides
    need one before the movement, and then the first shape already has an action: in these cases every movement
    cost below the points is available upstream (only the skipped cost is missing), which the build checks."""
    t = enc.tables
    leave = enc.rules.whirl_cost_step is WhirlCostStep.LEAVE
    if "X-WHIRL-5" in enc.cache:
        return enc.cache["X-WHIRL-5"]
    out = []
    most = 7 + 2 + 2  # the 7, the moose's 2, and 2 more for taking it (X-CARDS-1, X-MOOSE-2)
    for s in [t.PORT, *t.disc_ids]:
        for w in [0, *t.disc_ids]:
            if w and w == s:
                continue  # no canoe acts from the whirlpool (X-PROP-2)
            whirl = w or None
            if s == t.PORT:
                ups: list[tuple[int, int]] = []
                port_cost = None
            else:
                costs = t.up_costs(s, whirl, leave)
                ups, port_cost = costs[:-1], costs[-1][1]
            downs = [(e, d) for d in range(1, most + 1) for e in t.down_at(s, d)]
            moves = [*ups, *downs]
            for n in range(1, most + 1):
                if any(c == n for _, c in moves) or (port_cost is not None and n >= port_cost):
                    continue
                shapes = []
                if s != t.PORT:
                    costs_below = {c for _, c in moves if c < n}
                    shapes += [(s, k, n - 2 * k) for k in range(1, 5) if n - 2 * k in costs_below]
                    if n % 2 == 0 and not enc.rules.must_move:
                        shapes.append((s, n // 2, 0))
                    if n >= 5 and n - 2 not in costs_below:
                        # A board whose X-WHIRL-5 case needs gem actions on both sides of a movement (none of the
                        # presets): refused in one line (exit 2) rather than encoded wrongly.
                        raise UncoveredRulesError("board", "the encoding of X-WHIRL-5 does not cover this board: a "
                                                  "canoe's only action would need gem actions on both sides of its "
                                                  "movement", "X-WHIRL-5")
                shapes += [(e, (n - c) // 2, c) for e, c in moves if e != w and c < n and (n - c) % 2 == 0]
                out.append((s, w, n, shapes))
    enc.cache["X-WHIRL-5"] = out
    return out


def gem_run(k: int, cargo: list[Expr], cave: list[Expr], capacity: Expr) -> Expr:
    """A canoe carrying ``cargo`` can make exactly ``k`` gem actions at a cave holding ``cave`` (R-GEM-1, R-GEM-2,
    R-GEM-4): it unloads ``u`` of its gems and loads ``k - u`` gems of other colours from the cave, unloading first to
    make room."""
    carried = z_sum(cargo)
    options = []
    for u in range(0, 3):
        loads = k - u
        if loads < 0 or loads > 2:
            continue
        room = carried - u + loads <= capacity
        if u == 0:
            options.append(z_and(room, z_sum(cave) >= loads))
            continue
        pairs = [(x,) for x in range(NCOL)] if u == 1 else [(x, y) for x in range(NCOL) for y in range(x, NCOL)]
        for pair in pairs:
            have = (cargo[pair[0]] >= 2 if len(pair) == 2 and pair[0] == pair[1]
                    else z_and([cargo[x] >= 1 for x in pair]))
            rest = z_sum([cave[c] for c in range(NCOL) if c not in pair])
            options.append(z_and(room, have, rest >= loads))
    return z_or(options) if options else z3.BoolVal(False)


# -- Diamond Joe (x_joe) -------------------------------------------------------------------------------------

@group("X-JOE-1")
def joe_falls(enc: Encoding, home: list[list[Expr]], over: Expr,
              gem: list[Expr]) -> tuple[list[list[Expr]], list[Expr]]:
    """Joe over the falls: his gem goes back to the cave of its own colour (he is put on the top disc, empty)."""
    out = [list(row) for row in home]
    for c in range(NCOL):
        out[c][c] = out[c][c] + z3.If(over, gem[c], 0)
    return out, [z3.If(over, 0, g) for g in gem]


@group("X-JOE-2")
def joe_step(enc: Encoding, joe: Expr, gem: list[Expr], cave: list[list[Expr]],
             points: Expr) -> tuple[Expr, list[Expr], list[list[Expr]]]:
    """After phase III: Joe, if empty and beside a cave holding a gem of its own colour, loads one (free); then he
    paddles ``points`` discs up, turns on the top disc and goes down by the right branch, stopping on a last disc."""
    t = enc.tables
    empty = z_sum(gem) == 0
    here = t.cave_of(joe)
    loads = [z_and(empty, here == c + 1, cave[c][c] >= 1) for c in range(NCOL)]
    new_cave = [list(row) for row in cave]
    for c in range(NCOL):
        new_cave[c][c] = new_cave[c][c] - z3.If(loads[c], 1, 0)
    new_gem = [gem[c] + z3.If(loads[c], 1, 0) for c in range(NCOL)]
    place: Expr = joe
    for x in t.disc_ids:
        for n in range(1, max_joe_points(enc) + 1):
            place = z3.If(z_and(joe == x, points == n), joe_paddle(t, x, n), place)
    return place, new_gem, new_cave


def max_joe_points(enc: Encoding) -> int:
    """The largest card value: the 7 with the expansion's cards (X-CARDS-1), else the 6."""
    return 7 if enc.rules.x_cards else 6


def joe_paddle(t: BoardTables, x: int, n: int) -> int:
    """Where Joe stops paddling ``n`` discs from disc ``x`` (X-JOE-2): up toward the top disc; from there down,
    by each fork's last branch (the right one on the standard board); on a last disc he stops."""
    chain = [a for a in t.above[x] if a != t.PORT]
    if n <= len(chain):
        return chain[n - 1]
    place, n = t.top, n - len(chain)
    while n and (place in t.branch or t.next.get(place) is not None):
        place = t.branch[place][-1] if place in t.branch else t.next[place]  # type: ignore[assignment]
        n -= 1
    return place


@group("X-JOE-3")
def joe_trade(enc: Encoding, take: Expr, give: list[Expr], joe: list[Expr], cargo: list[Expr]) -> list[Constraint]:
    """One trade with Joe: take his gem, give him one of the canoe's gems (only to an empty Joe), or swap (a gem of
    another colour than his). Joe carries one gem at most."""
    return [("X-JOE-3", z3.Implies(take, z_sum(joe) == 1)),
            ("X-JOE-3", z_sum(give) <= 1),
            *(("X-JOE-3", z3.Implies(give[c] == 1, z_and(cargo[c] >= 1, joe[c] == 0))) for c in range(NCOL)),
            ("X-JOE-3", z_sum(joe) - z3.If(take, z_sum(joe), 0) + z_sum(give) <= 1)]


# -- phase III -----------------------------------------------------------------------------------------

@group("R-FLOW-1")
def flow_sum(enc: Encoding, cards: list[Expr], weather: Expr) -> Expr:
    """Smallest paddle played (0 if only clouds) plus the weather; with the expansion's cards the 7 is a paddle,
    the Lasso and the 1/2/3 card count like the cloud (X-CARDS-2)."""
    if enc.rules.x_cards:
        least: Expr = z3.IntVal(8)
        for card in cards:
            least = z3.If(z_and(card >= 1, card <= 7, card < least), card, least)
        return z3.If(least == 8, 0, least) + weather
    smallest: Expr = z3.IntVal(7)
    for card in cards:
        smallest = z3.If(z_and(card != 0, card < smallest), card, smallest)
    return z3.If(smallest == 7, 0, smallest) + weather


@group("R-FLOW-2")
def flow_clamp(enc: Encoding, total: Expr) -> Expr:
    """No reverse flow (at least ``min_flow``)."""
    return z3.If(total < enc.rules.min_flow, enc.rules.min_flow, total)


@group("R-FLOW-4")
def next_marker(enc: Encoding, marker: Expr, labels: int) -> Expr:
    """After a disc enters a branch the marker points to the next branch."""
    return z3.If(marker + 1 >= labels, 0, marker + 1)


@group("R-FLOW-6")
def fall(enc: Encoding, cave: list[list[Expr]], cargo: list[Expr]) -> list[list[Expr]]:
    """The cargo of a canoe that went over the falls goes back to the cave of each gem's own colour."""
    out = [list(row) for row in cave]
    for c in range(NCOL):
        out[c][c] = out[c][c] + cargo[c]
    return out


# -- the end ---------------------------------------------------------------------------------------------

@group("R-END-1")
def goal(enc: Encoding, bank: list[Expr]) -> Expr:
    """Seven gems, or one of each colour, or four of one colour."""
    return z_or(z_sum(bank) >= 7, z_and([g >= 1 for g in bank]), z_or([g >= 4 for g in bank]))


@group("R-END-3")
def score(enc: Encoding, bank: list[Expr]) -> Expr:
    """The tie-break: the bank's value (amethyst 1 .. ruby 5), or its gem count with ``tiebreak: count``; with
    ``tiebreak: shared`` every score is the same, so every player who reached the goal wins."""
    if enc.rules.tiebreak.value == "shared":
        return z3.IntVal(0)
    if enc.rules.tiebreak.value == "count":
        return z_sum(bank)
    return z_sum([(c + 1) * g for c, g in enumerate(bank)])


# -- phase I -------------------------------------------------------------------------------------------

@group("R-RESCUE-1:payment")
def pay(enc: Encoding, bank: list[Expr], cave: list[list[Expr]], rescued: Expr,
        colour: Expr) -> tuple[list[Expr], list[list[Expr]]]:
    """A paid gem leaves the bank for the cave of its own colour (``colour`` 1..5, 0: free)."""
    new_bank = [bank[c] - z3.If(z_and(rescued, colour == c + 1), 1, 0) for c in range(NCOL)]
    new_cave = [list(row) for row in cave]
    for c in range(NCOL):
        new_cave[c][c] = new_cave[c][c] + z3.If(z_and(rescued, colour == c + 1), 1, 0)
    return new_bank, new_cave


@group("R-RESCUE-2")
def rescue_rules(enc: Encoding, place: list[Expr], rescued: list[Expr], colour: list[Expr],
                 bank: list[Expr]) -> list[Constraint]:
    """Who may or must bring canoes back, and when it is free (R-RESCUE-1..3)."""
    t = enc.tables
    none_in_play = z_and(place[0] == t.FALLEN, place[1] == t.FALLEN)
    empty_bank = z_sum(bank) == 0
    free_allowed = none_in_play if enc.rules.rescue_when_none is RescueWhenNone.FREE else \
        z_and(none_in_play, empty_bank)
    out: list[Constraint] = []
    for k in range(2):
        out.append(("R-RESCUE-1", z3.Implies(rescued[k], place[k] == t.FALLEN)))
        out.append(("R-RESCUE-1", z_and(colour[k] >= 0, colour[k] <= NCOL)))
        out.append(("R-RESCUE-1", z3.Implies(z3.Not(rescued[k]), colour[k] == 0)))
        out.append(("R-RESCUE-3" if enc.rules.rescue_when_none is RescueWhenNone.FREE else "R-RESCUE-2",
                    z3.Implies(z_and(rescued[k], colour[k] == 0), free_allowed)))
    # At most one canoe comes back for free; with a gem to pay, the first rescue is paid (R-RESCUE-2).
    out.append(("R-RESCUE-2", z3.Not(z_and(rescued[0], rescued[1], colour[0] == 0, colour[1] == 0))))
    out.append(("R-RESCUE-2", z3.Implies(none_in_play, z_or(rescued[0], rescued[1]))))
    if enc.rules.rescue_when_none is RescueWhenNone.FREE:
        # R-RESCUE-3: a player with no canoe in play gets one back for free (and may buy the other back).
        out.append(("R-RESCUE-3", z3.Implies(none_in_play, z_or([z_and(rescued[k], colour[k] == 0)
                                                                   for k in range(2)]))))
    return out + enc.rule("R-RESCUE-4")(enc, rescued)


@group("R-RESCUE-4")
def rescue_limit(enc: Encoding, rescued: list[Expr]) -> list[Constraint]:
    """With ``rescue_limit: one`` a player brings back at most one canoe a round; with the default, nothing (every
    fallen canoe may come back, R-RESCUE-1)."""
    if enc.rules.rescue_limit is RescueLimit.ONE:
        return [("R-RESCUE-4", z3.Not(z_and(rescued[0], rescued[1])))]
    return []
