"""A turn for every position and card, written as terms of the position: the witness the prover checks against every
rule for R-PROP-10 (no deadlock), and the certificate checker for the steal goal's bound (a player whose canoes carry
no gem can keep them so: in the base game the witness makes no gem action and no steal).

Part of the encoding: it reads the relations' terms only.
"""

from __future__ import annotations

from typing import Any

import z3

from niagara_solver.encoding.core import _bare_cases
from niagara_solver.encoding.relations import NCOL, Relations, SymPosition, TurnStep
from niagara_solver.encoding.tables import member
from niagara_solver.model.ruleset import Card123Canoes, PortDeparture, WhirlCostStep
from niagara_solver.encoding.terms import z_and, z_or, z_sum


def witness_by_card(relations: Relations) -> bool:
    """Whether the question "does the witness turn fail somewhere?" is best asked one card at a time, of a solver
    that simplifies first: with the whirlpool the witness has a part for each way past it (X-WHIRL-5,
    :func:`_whirl_witness`), and the one question took 4-6 s where the questions card by card took 1.5 s together
    (docs/SPEED.md); without it the one question takes under 0.1 s, less than asking one per card."""
    return relations.rules.x_whirl


def witness_turn(relations: Relations, step: TurnStep) -> list[Any]:
    """A turn for every position and card: the cloud moves the weather toward the middle; with a paddle,
    every river canoe paddles straight upstream (home if the budget reaches), and of two port canoes one paddles
    straight down (``exactly_one``) or none acts (``at_most_one``); a port canoe beside a river canoe stays.
    With the expansion's cards (X-CARDS-3, X-CARDS-4): the Lasso moors (under ``lasso_scope: one`` the first river
    canoe); the 1/2/3 card is played as a 1, and under ``card_123_canoes: one`` only the first river canoe acts
    (with none on the river, as R-TURN-3 lets port canoes act)."""
    t, rules = relations.tables, relations.rules
    pre, choice = step.pre, step.choice
    n = choice.card
    paddle = n != 0
    me = step.player
    places = pre.place[me]
    both_port = z_and(places[0] == t.PORT, places[1] == t.PORT)
    port_moves = both_port if rules.port_departure is PortDeparture.EXACTLY_ONE else z3.BoolVal(False)
    one_only = z3.BoolVal(False)
    out = []
    cave = pre.cave
    taken: list[Any] = []
    if rules.x_cards:
        assert choice.budget is not None
        is_123 = n == 9
        paddle = z_and(n != 0, n != 8)
        out.append(choice.budget == z3.If(is_123, 1, 0))
        if choice.moor is not None:
            first_river = [t.is_disc(places[0]), z_and(t.is_disc(places[1]), z3.Not(t.is_disc(places[0])))]
            out += [m == z_and(n == 8, r) for m, r in zip(choice.moor, first_river)]
        if rules.card_123_canoes is Card123Canoes.ONE:
            one_only = is_123
        n = z3.If(is_123, 1, n)
    out.append(choice.step == z3.If(paddle, 0, z3.If(pre.weather < rules.weather_max, 1, -1))
               if not rules.x_cards else
               choice.step == z3.If(z_or(paddle, choice.card == 8), 0,
                                    z3.If(pre.weather < rules.weather_max, 1, -1)))
    for s in choice.slots:
        x = places[s.who]
        river = t.is_disc(x)
        leaves = port_moves if s.who == 0 else z3.BoolVal(False)
        acts = z_or(river, leaves)
        if rules.x_cards:  # one canoe with the 1/2/3 card: the first on the river, else as R-TURN-3 allows
            alone = z_and(river, z3.Not(t.is_disc(places[0]))) if s.who == 1 else z_or(river, leaves)
            acts = z3.If(one_only, alone, acts)
        reach = n
        if choice.take is not None and pre.holder is not None:  # no moose taken; a holder has 2 more (X-MOOSE-2)
            reach = n + z3.If(pre.holder[me][s.who], 2, 0)
            if pre.whirl is not None and pre.moose is not None:
                # With the whirlpool, a canoe whose points no movement spends takes the waiting moose where its 2
                # more points make a movement (X-MOOSE-1, X-WHIRL-3).
                take = z_and(s.on, paddle, pre.moose == 0, *(z3.Not(t_) for t_ in taken),
                              member(x, t.brinks), _skipped(relations, x, pre.whirl, reach),
                              z3.Not(_skipped(relations, x, pre.whirl, reach + 2)))
                out.append(choice.take[s.who] == take)
                taken.append(choice.take[s.who])
                reach = reach + z3.If(take, 2, 0)
            else:
                out.append(z3.Not(choice.take[s.who]))
        out.append(s.on == z_and(paddle, acts))
        if pre.whirl is not None and s.push is not None:
            out += _whirl_witness(relations, pre, me, s, x, reach, cave)
            # The next canoe finds the caves as this one's gem actions left them.
            cave = [[cave[cc][c] - z_sum([op.load[cc][c] - op.unload[cc][c] for op in (s.pre, s.post)])
                     for c in range(NCOL)] for cc in range(NCOL)]
        else:
            out += [s.move == z3.If(s.on, z3.If(river, -1, 1), 0),
                    s.dest == z3.If(river, t.up_by(x, reach), z3.If(s.on, t.disc_at_depth(reach), x))]
            out += [cell == 0 for op in (s.pre, s.post) for cell in op.cells()]
        out += [cell == 0 for j in range(len(s.steals)) for cell in s.steal_cells(j)]
        if s.take_joe is not None and s.give_joe is not None:  # no trade with Diamond Joe
            out += [z3.Not(s.take_joe), *(g == 0 for g in s.give_joe)]
    return out


def _whirl_witness(relations: Relations, pre: SymPosition, player: int, s: Any, x: Any, reach: Any,
                   cave: list[list[Any]]) -> list[Any]:
    """The witness with the whirlpool (X-WHIRL-2..5): a river canoe paddles upstream with exactly its points counted
    as X-WHIRL-3 counts them (or home); where the whirlpool's extra point skips that cost, downstream; where no
    movement alone spends the points, one gem action where it stands (unload its first gem, or load the first colour
    of the cave) before a movement of the rest, or a load after a movement; with nothing to load or unload, it
    stays (X-WHIRL-5). A port canoe paddles down to a disc at the depth of its points, not the whirlpool if another
    disc lies there; a canoe ending on the whirlpool is pushed down its first branch."""
    enc = relations.enc
    t = enc.tables
    assert pre.whirl is not None
    leave = enc.rules.whirl_cost_step is WhirlCostStep.LEAVE
    me = pre.place[player][s.who]
    cargo = pre.cargo[player][s.who]
    bare = {(c[0], c[1], c[2]): c[3] for c in _bare_cases(enc)}
    most = 11

    def first(counts: list[Any], c: int) -> Any:
        return z_and(counts[c] >= 1, *(counts[d] == 0 for d in range(c)))

    def push_of(dest: int, w: int) -> int:
        if not w or dest != w:
            return 0
        return t.children[w][0] if t.children[w] else t.FALLEN

    w_ = pre.whirl
    # A movement alone: upstream the disc whose cost (X-WHIRL-3) is the points: as many discs, one fewer past the
    # whirlpool's extra point (home if they reach); where that cost is the one skipped, downstream; from the port,
    # a disc at that depth, another than the whirlpool if there is one.
    above = z_and(t.is_disc(w_), t.upstream_of(w_, x))
    gap = t.depth_of(x) - t.depth_of(w_)
    off = 1 if leave else 0
    toll = z3.If(z_and(above, reach >= gap + 1 + off), 1, 0)
    skipped = z_and(above, reach == gap + off)
    down_first: Any = x
    for d in t.disc_ids:
        for n in range(1, most + 1):
            below = t.down_at(d, n)
            if below:
                down_first = z3.If(z_and(x == d, reach == n), below[0], down_first)
    from_port: Any = z3.IntVal(t.PORT)
    for n in range(1, most + 1):
        below = t.down_at(t.PORT, n)
        for w in [0, *t.disc_ids]:
            if below:
                from_port = z3.If(z_and(reach == n, w_ == w), next((d for d in below if d != w), below[0]), from_port)
    move: Any = z3.If(x == t.PORT, 1, z3.If(skipped, 1, -1))
    dest: Any = z3.If(x == t.PORT, from_port, z3.If(skipped, down_first, t.up_by(x, reach - toll)))
    first_child: Any = z3.IntVal(0)
    for d, below in t.children.items():
        first_child = z3.If(w_ == d, below[0] if below else t.FALLEN, first_child)
    push: Any = z3.If(z_and(t.is_disc(w_), dest == w_), first_child, 0)
    pre_load: dict[tuple[int, int], Any] = {}
    pre_unload: dict[tuple[int, int], Any] = {}
    post_load: dict[tuple[int, int], Any] = {}
    post_load2: dict[tuple[int, int], Any] = {}
    carrying = z_sum(cargo) >= 1
    for (start, w, n), shapes in bare.items():
        here = z_and(x == start, w_ == w, reach == n)
        # A case of X-WHIRL-5's expansion: one gem action before a movement, or loads after one, or stay.
        move = z3.If(here, 0, move)
        dest = z3.If(here, start, dest)
        push = z3.If(here, 0, push)
        cc = t.cave.get(start, 0)
        options: list[tuple[Any, int, int, Any]] = []  # (condition, move, dest, which op)
        if cc and n >= 2 and not (n == 2 and enc.rules.must_move):
            then = (0, start) if n == 2 else _up_at(t, start, w or None, n - 2, leave)
            if then is not None:
                can = z_or(carrying, z_sum(cave[cc - 1]) >= 1)
                options.append((can, then[0], then[1], ("pre", cc)))
        room = pre.capacity(player, s.who, enc.rules.capacity)
        for e, ops, c in shapes:
            ce = t.cave.get(e, 0)
            if ops in (1, 2) and c >= 1 and ce and e != start:
                direction = -1 if e in t.above.get(start, []) else 1
                can = z_and(z3.Not(carrying), z_sum(cave[ce - 1]) >= ops, room >= ops)
                options.append((can, direction, e, ("post" if ops == 1 else "post2", ce)))
        chosen = z3.BoolVal(False)
        for can, mv, dst, (side, colour) in options:
            pick = z_and(here, z3.Not(chosen), can)
            move = z3.If(pick, mv, move)
            dest = z3.If(pick, dst, dest)
            push = z3.If(pick, push_of(dst, w), push)
            for c in range(NCOL):
                if side == "pre":
                    un = z_and(pick, carrying, first(cargo, c))
                    ld = z_and(pick, z3.Not(carrying), first(cave[colour - 1], c))
                    pre_unload[colour - 1, c] = z_or(pre_unload.get((colour - 1, c), False), un)
                    pre_load[colour - 1, c] = z_or(pre_load.get((colour - 1, c), False), ld)
                else:
                    ld = z_and(pick, first(cave[colour - 1], c))
                    post_load[colour - 1, c] = z_or(post_load.get((colour - 1, c), False), ld)
                    if side == "post2":  # the second load: the first colour left after the first
                        left = [cave[colour - 1][d] - z3.If(first(cave[colour - 1], d), 1, 0)
                                for d in range(NCOL)]
                        ld2 = z_and(pick, first(left, c))
                        post_load2[colour - 1, c] = z_or(post_load2.get((colour - 1, c), False), ld2)
            chosen = z_or(chosen, can)
    out = [s.move == z3.If(s.on, move, 0), s.dest == z3.If(s.on, dest, me), s.push == z3.If(s.on, push, 0)]
    # The gem actions counted at each stop (GemActions): the two loads after a movement may be of one colour.
    for cells, tables in ((s.pre.load, (pre_load,)), (s.pre.unload, (pre_unload,)),
                          (s.post.load, (post_load, post_load2))):
        out += [cells[cc][c] == z_sum([z3.If(z_and(s.on, table.get((cc, c), False)), 1, 0) for table in tables])
                for cc in range(NCOL) for c in range(NCOL)]
    out += [cell == 0 for row in s.post.unload for cell in row]
    return out


def _skipped(relations: Relations, x: Any, whirl: Any, points: Any) -> Any:
    """No movement alone spends ``points`` from ``x`` with the whirlpool on ``whirl`` (X-WHIRL-5's cases)."""
    return z_or([z_and(x == c[0], whirl == c[1], points == c[2]) for c in _bare_cases(relations.enc)])


def _up_at(t: Any, start: int, whirl: int | None, cost: int, leave: bool) -> tuple[int, int] | None:
    """The upstream movement from ``start`` costing exactly ``cost`` points (X-WHIRL-3), or home if they reach."""
    costs = t.up_costs(start, whirl, leave)
    for place, c in costs[:-1]:
        if c == cost:
            return -1, place
    return (-1, t.PORT) if costs and cost >= costs[-1][1] else None
