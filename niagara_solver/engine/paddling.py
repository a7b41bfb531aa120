"""The turn generator: paddle turns (R-TURN-3, R-TURN-4, R-MOVE, R-GEM, R-STEAL, and the expansion's X rules).

:func:`paddle_outcomes` answers what :func:`.turns.legal_turns` asks for a paddle card (1..7, or one budget of the
1/2/3 card): every distinct outcome of the acting canoes, each with the first turn found for it. It walks a canoe's
choices (gem actions where it stands, one movement, gem actions where it stops, steals, a trade with Diamond Joe)
and asks :mod:`.canoe` what the rules allow at each; what it adds is how it carries them along:

* a compact state: the acting player's canoes as ``(place, cargo)`` pairs, the rest of what a turn changes (caves,
  the other players' canoes, the moose, Diamond Joe) as one small integer naming a value interned once per query,
  the gems banked this turn and the moose's holder. No :class:`Position`, :class:`Turn` or notation is built for
  an intermediate step: only for the outcomes returned, and an outcome's position only when first asked for
  (:mod:`.outcome`; a search orders every turn and tries few);
* move tables per board (the discs above and below each place, the caves beside them, the whirlpool's upstream
  costs), computed once from the river graph and kept while the board is in use;
* each canoe's options memoised on what they depend on (its own place and cargo, the interned rest and the moose's
  holder), so the second canoe of a turn is worked out once for all the first canoe's actions that leave those
  alike; the gem actions at one cave are memoised across queries (:func:`.canoe.gem_runs`).

Coverage: every switch and module of RULES.md. A player's two canoes both acting, and one canoe acting alone, take
unrolled loops; other acting sets (none, more than two canoes) the general walk. The cloud and the Lasso move no
canoe and stay with :mod:`.turns`.

tests/reference_turns.py walks the same choices again on a plain state, asking :mod:`.canoe` the same questions,
and the tests hold this generator to it (the same outcomes, turns and order), to the rule-by-rule interpreter
(:mod:`.apply`) and to a brute force over the notation (tests/brute.py).
"""

from __future__ import annotations

from operator import itemgetter
from typing import Iterator, NamedTuple, Sequence

from niagara_solver.engine import canoe as rule
from niagara_solver.engine.canoe import (TAKE_MOOSE, CanoeState, GemRun, JoeState, avoiding_the_falls, banked,
                                         gem_runs, gem_runs_costing, gems_home, may_enter_port, may_stay_put,
                                         may_steal, may_take_moose, may_trade, moose_home, move, no_gem_actions,
                                         points, push, pushed_to, steps_text, upstream_costs)
from niagara_solver.engine.outcome import TurnOutcome, pending
from niagara_solver.engine.values import canoe as made_canoe
from niagara_solver.engine.values import clear as clear_values
from niagara_solver.engine.values import made, new, put
from niagara_solver.model.atoms import DOUBLE_CAPACITY, FALLEN, NEXT, PORT, Colour, Gems, Moose
from niagara_solver.model.board import Board
from niagara_solver.model.notation import CanoeAction, Step, Turn
from niagara_solver.model.position import Canoe, Joe, Player, Position
from niagara_solver.model.ruleset import WhirlCostStep

#: One canoe option: the number of its action (:attr:`_Paddle.acts`), the canoe's place and cargo after it, the
#: interned rest of the state, the gems banked, and the moose's holder (player, canoe index) after it.
Option = tuple[int, CanoeState, int, tuple[Colour, ...], "tuple[int, int] | None"]
#: A result of a whole turn: the numbers of its canoes' actions in the order they act, the acting player's canoes
#: after it (by index), the interned rest, the gems banked, the moose's holder.
Result = tuple[tuple[int, ...], tuple[CanoeState, ...], int, tuple[Colour, ...], "tuple[int, int] | None"]


# -- the river, once per board ---------------------------------------------------------------------------------------

#: A destination: the disc, the points left to spend there on gem actions, the movement, the index of the cave
#: beside it (when points are left), and whether the whirlpool there pushes the canoe on (X-WHIRL-2).
_Target = tuple[str, int, Step, int, bool]


class _Tables(NamedTuple):
    """The board's move tables (R-MOVE-2, R-MOVE-4, R-BOARD-4), read from its graph once."""

    #: The places upstream of each disc, nearest first, ending with the port.
    above: dict[str, tuple[str, ...]]
    #: The discs exactly d discs downstream of each place, at index d (index 0 empty).
    rings: dict[str, tuple[tuple[str, ...], ...]]
    #: The colour of the cave beside each disc, or None.
    cave: dict[str, Colour | None]
    brinks: frozenset[str]
    #: (place, whirlpool disc, whirl_cost_step) -> the points to each place above, cumulated (X-WHIRL-3); filled on
    #: first use.
    up_costs: dict[tuple[str, str | None, WhirlCostStep | None], tuple[int, ...]]
    #: (place, points, whirlpool disc, whirl_cost_step) -> the canoe's destinations: see ``_Paddle._targets``.
    targets: dict[tuple[str, int, str | None, WhirlCostStep | None],
                  tuple[tuple["_Target", ...], bool, tuple["_Target", ...]]]


#: Each board's tables. Boards are immutable values (equal boards have equal tables); a handful are in use at a time.
_BOARDS: dict[Board, _Tables] = {}


def _tables(board: Board) -> _Tables:
    cached = _BOARDS.get(board)
    if cached is not None:
        return cached
    rings = {}
    for place in (PORT, *board.discs):
        ring: list[tuple[str, ...]] = [()]
        while board.below(place, len(ring)):
            ring.append(board.below(place, len(ring)))
        rings[place] = tuple(ring)
    tables = _Tables({d: board.above(d) for d in board.discs}, rings, dict(board.cave), frozenset(board.brinks), {}, {})
    if len(_BOARDS) >= 64:
        _BOARDS.clear()
    _BOARDS[board] = tables
    return tables


def clear_caches() -> None:
    """Forget what is kept across queries (the gem actions at one cave, each board's move tables, the canoes made):
    a benchmark's pass then starts as a fresh process would."""
    rule.clear_caches()
    _BOARDS.clear()
    clear_values()


def _with(items: tuple[CanoeState, ...], index: int, value: CanoeState) -> tuple[CanoeState, ...]:
    return (*items[:index], value, *items[index + 1:])


def _with_cave(caves: tuple[Gems, ...], index: int, value: Gems) -> tuple[Gems, ...]:
    return (*caves[:index], value, *caves[index + 1:])


# -- one query: a player's canoes with one budget --------------------------------------------------------------------

#: What a canoe's action leaves before its trades with Joe: steps, the canoe's state, caves, the other players'
#: canoes (by number), the gems banked, the moose, its holder, and whether the canoe paddled to where it stops (it
#: moved, and the whirlpool did not push it on: so it may trade, X-JOE-3).
_Raw = tuple[tuple[Step, ...], CanoeState, tuple[Gems, ...], int, tuple[Colour, ...], "Moose | None",
             "tuple[int, int] | None", bool]
Others = tuple[tuple[CanoeState, ...], ...]
#: The other players' canoes as dealt stand for themselves in the identities of results: a steal takes a gem from
#: them, so no result with a steal has them again.
_AS_DEALT = object()


class _Paddle:
    """The canoes of one player acting with one budget each, on the compact state; the maker of the outcomes'
    positions (:class:`.outcome.Results`)."""

    def __init__(self, pos: Position, player: int, budget: int, revealed: Position) -> None:
        rules = pos.ruleset
        self.tables = _tables(pos.board)
        self.rules = rules
        self.player = player
        self.budget = budget
        #: The position once the card is revealed: the outcomes' positions are made from it.
        self.revealed = revealed
        self.players = players = pos.players
        self.names = tuple(p.name for p in players)
        #: The players before and after the acting one, as they are in the outcomes the turn leaves them alone.
        self.before, self.after = revealed.players[:player], revealed.players[player + 1:]
        #: The whirlpool's disc (X-WHIRL-1); None without the module or while it waits to come back ("next").
        self.whirl = pos.whirlpool if pos.whirlpool is not None and pos.whirlpool != NEXT else None
        self.up_step = rules.whirl_cost_step if self.whirl is not None else None
        moored: list[tuple[int, int]] = []
        holder: tuple[int, int] | None = None
        others: list[tuple[CanoeState, ...]] = []
        for q, p in enumerate(players):
            states = []
            for k, c in enumerate(p.canoes):
                states.append((c.place, c.gems))
                if c.moored:
                    moored.append((q, k))
                if c.moose and holder is None:
                    holder = (q, k)
            others.append(() if q == player else tuple(states))
            if q == player:
                self.start = tuple(states)
        #: Canoes moored by a Lasso earlier this round: off the river, so nobody steals from them (X-CARDS-4).
        self.moored = frozenset(moored)
        self.holder = holder
        #: Which canoes are double (X-DOUBLE-1), by player and index; None without the module.
        self.doubles = tuple(tuple(c.double for c in p.canoes) for p in players) if rules.x_double else None
        double = self.doubles[player] if self.doubles is not None else (False,) * len(self.start)
        self.double = double
        self.capacity = tuple(DOUBLE_CAPACITY if d else rules.capacity for d in double)
        self.one_side = tuple(rule.one_side(rules, d) for d in double)
        #: Every canoe's action found, by number: (canoe index, steps).
        self.acts: list[tuple[int, tuple[Step, ...]]] = []
        #: The other players' canoes (the acting player's entry empty), by number: 0 as dealt, then after steals.
        self.others: list[Others] = [tuple(others)]
        self.others_ids: dict[Others, int] = {self.others[0]: 0}
        self.others_keys: list[object] = [_AS_DEALT]
        self.victims: dict[tuple[int, str], list[tuple[int, int, tuple[Colour, ...]]]] = {}
        #: The interned rests (caves, other players' canoes, moose, Joe), by number; the number of each one's
        #: canonical form (the other players' canoes as collections), which identifies the resulting position.
        self.rests: list[tuple[tuple[Gems, ...], int, Moose | None, JoeState | None]] = []
        self.rest_ids: dict[tuple[tuple[Gems, ...], int, Moose | None, JoeState | None], int] = {}
        self.canonical: list[int] = []
        self.canonical_ids: dict[tuple[object, ...], int] = {}
        self.memo: dict[tuple[int, CanoeState, int, tuple[int, int] | None], list[Option]] = {}
        #: The acting player's canoes in the outcomes' positions, per canoe: place and cargo -> (canoe, sort key).
        self.made: list[dict[CanoeState, tuple[Canoe, tuple[object, ...]]]] = [{} for _ in self.start]
        #: The players after a result where only the acting player's two canoes changed, by their states and the
        #: gems banked.
        self.moved: dict[tuple[tuple[CanoeState, ...], tuple[Colour, ...]], tuple[Player, ...]] = {}
        #: The players' banked gems as revealed, by player, and the gems the other players' canoes carry, by their
        #: number and player (:meth:`gems_of`); made on first use.
        self.banks: tuple[int, ...] | None = None
        self.carried: dict[int, tuple[int, ...]] = {}
        self.rid = self.intern(pos.caves, 0, pos.moose, (pos.joe.place, pos.joe.gem) if pos.joe is not None else None)

    def others_id(self, others: Others) -> int:
        """The number of the other players' canoes after a steal, given on first sight."""
        oid = self.others_ids.get(others)
        if oid is None:
            oid = self.others_ids[others] = len(self.others)
            self.others.append(others)
            if self.doubles is None:
                self.others_keys.append(tuple(tuple(sorted(cs)) for cs in others))
            else:
                self.others_keys.append(tuple(tuple(sorted(zip(cs, ds))) for cs, ds in zip(others, self.doubles)))
        return oid

    def intern(self, caves: tuple[Gems, ...], oid: int, moose: Moose | None, joe: JoeState | None) -> int:
        """The number of the rest (caves, the other players' canoes, moose, Joe), interned on first sight."""
        rest = (caves, oid, moose, joe)
        rid = self.rest_ids.get(rest)
        if rid is None:
            rid = self.rest_ids[rest] = len(self.rests)
            self.rests.append(rest)
            key = (caves, self.others_keys[oid], moose, joe)
            cid = self.canonical_ids.get(key)
            if cid is None:
                cid = self.canonical_ids[key] = len(self.canonical_ids)
            self.canonical.append(cid)
        return rid

    # -- a canoe's options ---------------------------------------------------------------------------------------

    def options(self, index: int, state: CanoeState, rid: int, holder: tuple[int, int] | None) -> list[Option]:
        """Every distinct action of the canoe ``index`` from ``state`` (R-MOVE-1), with its result, memoised on what it
        depends on; on a last disc with the moose waiting, also each action after taking it (X-MOOSE-1). With the
        whirlpool: an action pushed over the falls only where every action falls so (``whirl_brink: avoid``,
        X-WHIRL-2), and staying put where the canoe has no action at all (X-WHIRL-5)."""
        key = (index, state, rid, holder)
        got = self.memo.get(key)
        if got is None:
            got = self.memo[key] = self._options(index, state, rid, holder)
        return got

    def _options(self, index: int, state: CanoeState, rid: int, holder: tuple[int, int] | None) -> list[Option]:
        caves, oid, moose, joe = self.rests[rid]
        me = (self.player, index)
        take = may_take_moose(moose, state[0], self.tables.brinks, me in self.moored)
        options = self._canoe(index, state, rid, holder, ())
        if take:
            options += self._canoe(index, state, self.intern(caves, oid, Moose.HELD, joe), me, (TAKE_MOOSE,))
        if not self.rules.x_whirl:
            return options
        # A canoe ends its own action fallen only when the whirlpool pushed it over the falls.
        options = avoiding_the_falls(options, [o[1][0] == FALLEN for o in options], self.rules)
        if not options:  # X-WHIRL-5: it stays where it is, its points lost; it may still take the moose
            options = [(self._act(index, ()), state, rid, (), holder)]
            if take:
                options.append((self._act(index, (TAKE_MOOSE,)), state, self.intern(caves, oid, Moose.HELD, joe),
                                (), me))
        return options

    def _act(self, index: int, steps: tuple[Step, ...]) -> int:
        """The number of a new action of the canoe ``index``."""
        self.acts.append((index, steps))
        return len(self.acts) - 1

    def _canoe(self, index: int, state: CanoeState, rid: int, holder: tuple[int, int] | None,
               first: tuple[Step, ...]) -> list[Option]:
        rules = self.rules
        caves, oid, moose, joe = self.rests[rid]
        me = (self.player, index)
        n = points(self.budget, holder == me)
        place, gems = state
        capacity = self.capacity[index]
        one_side = self.one_side[index]
        double = self.double[index]
        raw: list[_Raw] = []
        append = raw.append
        here = self.tables.cave.get(place) if place != PORT else None
        pre: Sequence[GemRun]
        if here is None:  # R-GEM-1: no gem actions in the port or beside no cave
            pre = no_gem_actions(gems)
        else:
            pre = gem_runs(gems, caves[here - 1], 0, 0, n, capacity)
        for run in pre:
            ops, carried, loaded, unloaded = run.ops, run.gems, run.loaded, run.unloaded
            after = caves
            if here is not None and ops:
                after = _with_cave(caves, here - 1, run.cave)
            rest = n - run.cost
            if rest == 0:
                if may_stay_put(place, rules):
                    append((ops, (place, carried), after, oid, (), moose, holder, False))
                continue
            up, port, down = self._targets(place, rest)
            thief = may_steal(carried, unloaded, double, rules)
            for targets in (up, down):  # the discs above (nearest first), then below (R-MOVE-4)
                for dest, left, step, cave, pushed in targets:
                    steps = (*ops, step)
                    if pushed:  # X-WHIRL-2: ending on the whirlpool with the last point, then pushed down
                        self._pushed(raw, index, carried, steps, after, oid, moose, holder)
                    elif not left:
                        append((steps, (dest, carried), after, oid, (), moose, holder, True))
                        if thief and targets is up:  # R-STEAL-3: a thief paddled up
                            self._steals(raw, dest, carried, capacity, steps, after, oid, moose, holder)
                    elif not (ops and one_side):  # R-MOVE-1 gem_sides: one; X-DOUBLE-2
                        for post in gem_runs_costing(carried, after[cave], loaded, unloaded, left, capacity):
                            append(((*steps, *post.ops), (dest, post.gems), _with_cave(after, cave, post.cave), oid,
                                    (), moose, holder, True))
                if targets is up and port and may_enter_port(loaded, rules):
                    # R-MOVE-5: the port may be entered with budget to spare; R-GEM-5: its cargo is banked free.
                    home, then = moose_home(moose, holder, me)
                    append(((*ops, move(PORT, False)), (PORT, ()), after, oid, carried, home, then, True))
        return self._finish(raw, index, rid, first)

    def _finish(self, raw: list[_Raw], index: int, rid: int, first: tuple[Step, ...]) -> list[Option]:
        """Each action as it is, then each trade with Diamond Joe it may end with (X-JOE-3); one per result."""
        out: list[Option] = []
        seen: set[tuple[object, ...]] = set()
        intern, rest_ids, acts = self.intern, self.rest_ids, self.acts
        caves0, oid0, moose0, joe = self.rests[rid]
        for steps, state, caves, oid, gained, moose, holder, paddled in raw:
            if joe is not None and may_trade(state[0], joe, paddled):
                for done, canoe, joe_after in self._trades(index, steps, state, joe):
                    result = (canoe, intern(caves, oid, moose, joe_after), gained, holder)
                    if result not in seen:
                        seen.add(result)
                        acts.append((index, first + done))
                        out.append((len(acts) - 1, *result))
                continue
            if caves is caves0 and oid == oid0 and moose is moose0:
                result = (state, rid, gained, holder)
            else:
                after = rest_ids.get((caves, oid, moose, joe))
                result = (state, intern(caves, oid, moose, joe) if after is None else after, gained, holder)
            if result not in seen:
                seen.add(result)
                acts.append((index, first + steps))
                out.append((len(acts) - 1, *result))
        return out

    def _trades(self, index: int, steps: tuple[Step, ...], state: CanoeState, joe: JoeState
                ) -> Iterator[tuple[tuple[Step, ...], CanoeState, JoeState]]:
        """The action as it is, then with each trade with Diamond Joe (X-JOE-3)."""
        yield steps, state, joe
        place, gems = state
        for step, cargo, gem in rule.joe_trades(gems, joe[1], self.capacity[index]):
            yield (*steps, step), (place, cargo), (joe[0], gem)

    def _targets(self, place: str, rest: int) -> tuple[tuple[_Target, ...], bool, tuple[_Target, ...]]:
        """Where a canoe on ``place`` with ``rest`` points may paddle and what it has left to spend there: the discs
        above (nearest first, R-MOVE-4), whether it reaches the port (R-MOVE-5), the discs below (by distance, in
        branch order, never over the falls). Only the discs it may stop on (:func:`.canoe.may_stop`). Computed once
        per board."""
        key = (place, rest, self.whirl, self.up_step)
        got = self.tables.targets.get(key)
        if got is not None:
            return got
        whirl, cave_of = self.whirl, self.tables.cave

        def target(dest: str, left: int, downstream: bool) -> list[_Target]:
            colour = cave_of[dest]
            if not rule.may_stop(left, colour, dest == whirl):
                return []
            cave = colour - 1 if colour is not None and dest != whirl else 0
            return [(dest, left, move(dest, downstream), cave, dest == whirl)]

        up: list[_Target] = []
        port = False
        if place != PORT:
            above = self.tables.above[place]
            costs = self._up_costs(place)
            for dest, cost in zip(above[:-1], costs):
                if cost > rest:
                    break
                up += target(dest, rest - cost, False)
            port = rest >= costs[-1]
        down: list[_Target] = []
        rings = self.tables.rings[place]
        for distance in range(1, min(rest + 1, len(rings))):
            for dest in rings[distance]:
                down += target(dest, rest - distance, True)
        got = self.tables.targets[key] = (tuple(up), port, tuple(down))
        return got

    def _up_costs(self, place: str) -> tuple[int, ...]:
        """The points to each place above ``place``, cumulated (:func:`.canoe.upstream_costs`), once per board."""
        key = (place, self.whirl, self.up_step)
        costs = self.tables.up_costs.get(key)
        if costs is None:
            costs = self.tables.up_costs[key] = upstream_costs(place, self.tables.above[place], self.whirl,
                                                               self.rules.whirl_cost_step)
        return costs

    def _pushed(self, raw: list[_Raw], index: int, gems: tuple[Colour, ...], steps: tuple[Step, ...],
                caves: tuple[Gems, ...], oid: int, moose: Moose | None, holder: tuple[int, int] | None) -> None:
        """X-WHIRL-2: the canoe that ended its movement on the whirlpool is pushed on (:func:`.canoe.pushed_to`); over
        the falls its gems go home (R-FLOW-6) and the moose it holds returns (X-MOOSE-3). A pushed canoe neither
        steals nor trades."""
        assert self.whirl is not None
        rings = self.tables.rings[self.whirl]
        for dest in pushed_to(rings[1] if len(rings) > 1 else ()):
            if dest == FALLEN:
                home, then = moose_home(moose, holder, (self.player, index))
                raw.append(((*steps, push(dest)), (FALLEN, ()), gems_home(caves, gems), oid, (), home, then, False))
            else:
                raw.append(((*steps, push(dest)), (dest, gems), caves, oid, (), moose, holder, False))

    def _steals(self, raw: list[_Raw], dest: str, carried: tuple[Colour, ...], capacity: int, steps: tuple[Step, ...],
                caves: tuple[Gems, ...], oid: int, moose: Moose | None, holder: tuple[int, int] | None) -> None:
        """R-STEAL-1..5: each choice of gems the thief stopped on ``dest`` takes (:func:`.canoe.steal_choices`)."""
        victims = self.victims.get((oid, dest))
        if victims is None:
            victims = self.victims[oid, dest] = rule.victims(self.others[oid], self.player, dest, self.moored)
        if not victims:
            return
        for chosen in rule.steal_choices(victims, capacity - len(carried)):
            notes, others = rule.robbed(self.others[oid], chosen, dest, self.names, self.doubles)
            thief = tuple(sorted((*carried, *(colour for _, _, colour in chosen))))
            raw.append(((*steps, *notes), (dest, thief), caves, self.others_id(others), (), moose, holder, True))

    # -- whole turns ---------------------------------------------------------------------------------------------

    def key(self, mine: tuple[CanoeState, ...], rid: int, gained: tuple[Colour, ...],
            holder: tuple[int, int] | None) -> tuple[object, ...]:
        """Identifies the resulting position: a player's canoes are compared as a collection (with their kinds; the
        moose's holder by its canoe's state)."""
        canoes: tuple[object, ...]
        if len(mine) == 2:  # the usual case, kept cheap: it runs for every pair of actions
            one: object = mine[0]
            two: object = mine[1]
            if self.doubles is not None:
                one, two = (one, self.double[0]), (two, self.double[1])
            canoes = (one, two) if one <= two else (two, one)  # type: ignore[operator]
        else:
            canoes = tuple(sorted(zip(mine, self.double) if self.doubles is not None else mine))
        ident = (self.canonical[rid], canoes, tuple(sorted(gained)) if gained else ())
        if holder is None:
            return ident
        q, k = holder
        return (*ident, (q, mine[k] if q == self.player else self.others[self.rests[rid][1]][q][k]))

    def outcomes(self, orders: list[tuple[int, ...]]) -> list[Result]:
        """The distinct results of the canoes acting in each of ``orders``; the first turn found for each."""
        found: dict[tuple[object, ...], Result] = {}
        pair = len(self.start) == 2
        for order in orders:
            if len(order) == 2 and pair:
                self._both(found, order)
            elif len(order) == 1:
                self._one(found, order[0])
            else:
                for result in self._sequences(order):
                    found.setdefault(self.key(*result[1:]), result)
        return list(found.values())

    def _one(self, found: dict[tuple[object, ...], Result], k: int) -> None:
        """:meth:`_sequences` for one canoe acting, unrolled."""
        start, key = self.start, self.key
        for number, state, rid, gained, holder in self.options(k, start[k], self.rid, self.holder):
            mine = _with(start, k, state)
            ident = key(mine, rid, gained, holder)
            if ident not in found:
                found[ident] = ((number,), mine, rid, gained, holder)

    def _both(self, found: dict[tuple[object, ...], Result], order: tuple[int, ...]) -> None:
        """:meth:`_sequences` for a player's two canoes both acting, unrolled: the inner loop runs for every pair of
        actions."""
        first, second = order
        start, key, options = self.start, self.key, self.options
        for number1, state1, rid1, gained1, holder1 in options(first, start[first], self.rid, self.holder):
            for number2, state2, rid2, gained2, holder2 in options(second, start[second], rid1, holder1):
                mine = (state1, state2) if first == 0 else (state2, state1)
                gained = gained1 + gained2 if gained2 else gained1
                ident = key(mine, rid2, gained, holder2)
                if ident not in found:
                    found[ident] = ((number1, number2), mine, rid2, gained, holder2)

    def _sequences(self, order: tuple[int, ...]) -> Iterator[Result]:
        """The canoes in ``order`` act one after the other, each finishing before the next (R-TURN-4)."""

        def walk(at: int, mine: tuple[CanoeState, ...], rid: int, gained: tuple[Colour, ...],
                 holder: tuple[int, int] | None, done: tuple[int, ...]) -> Iterator[Result]:
            if at == len(order):
                yield done, mine, rid, gained, holder
                return
            k = order[at]
            for number, state, after, more, then in self.options(k, mine[k], rid, holder):
                yield from walk(at + 1, _with(mine, k, state), after, gained + more, then, (*done, number))

        return walk(0, self.start, self.rid, (), self.holder, ())

    def done(self) -> None:
        """Forget what only the search of the outcomes needed: the outcomes keep this generator until their positions
        are made, and need only what :meth:`position_of` and :meth:`player_of` read."""
        self.memo.clear()
        self.rest_ids.clear()
        self.others_ids.clear()
        self.canonical_ids.clear()
        self.victims.clear()
        self.acts.clear()

    # -- the outcomes' positions (outcome.Results) ---------------------------------------------------------------

    def gems_of(self, result: Result, q: int) -> tuple[int, int]:
        """The gems of the player ``q`` after a result, (banked, carried)."""
        banks = self.banks
        if banks is None:
            banks = self.banks = tuple([p.bank.total for p in self.revealed.players])
        if q == self.player:
            mine = result[1]
            if len(mine) == 2:  # the usual case, kept cheap: a search reads X's gems after every turn it orders
                return banks[q] + len(result[3]), len(mine[0][1]) + len(mine[1][1])
            return banks[q] + len(result[3]), sum([len(gems) for _, gems in mine])
        oid = self.rests[result[2]][1]
        carried = self.carried.get(oid)
        if carried is None:
            carried = self.carried[oid] = tuple([sum([len(gems) for _, gems in states]) for states in self.others[oid]])
        return banks[q], carried[q]

    def places_of(self, result: Result, q: int) -> tuple[CanoeState, ...]:
        """The place and cargo of each canoe of the player ``q`` after a result, by the canoe's index."""
        if q == self.player:
            return result[1]
        return self.others[self.rests[result[2]][1]][q]

    def player_of(self, result: Result, q: int) -> Player:
        """The player ``q`` after a result: as revealed when the turn leaves them alone (another player, no gem stolen
        from them, the moose neither taken from nor given to them)."""
        holder, rid = result[4], result[2]
        if q != self.player and self.others[self.rests[rid][1]][q] == self.others[0][q] and (
                holder == self.holder or all(h is None or h[0] != q for h in (holder, self.holder))):
            return self.revealed.players[q]
        return self.players_after(result)[q]

    def players_after(self, result: Result) -> tuple[Player, ...]:
        """The players of the revealed position with a result's changes (players untouched by the turn are kept as
        they are; a changed canoe keeps its kind and marks, but the moose goes with the result's holder)."""
        _, mine, rid, gained, holder = result
        me, revealed = self.player, self.revealed
        oid = self.rests[rid][1]
        if oid == 0 and holder == self.holder:  # the usual case: only the acting player's canoes changed
            if len(mine) == 2:
                players = self.moved.get((mine, gained))  # outcomes differing only in the caves share them
                if players is not None:
                    return players
                one, two = mine
                first = self.made[0].get(one) or self._made_canoe(0, one)
                second = self.made[1].get(two) or self._made_canoe(1, two)
                # The canonical order of a player's canoes (Player.__post_init__), on the sort keys made once.
                ordered = (second[0], first[0]) if second[1] < first[1] else (first[0], second[0])
                player = revealed.players[me]
                fields = player.__dict__.copy()
                fields["canoes"] = ordered
                if gained:
                    fields["bank"] = banked(player.bank, gained)
                moved = new(Player)  # values.made, inline: a player an outcome
                put(moved, "__dict__", fields)
                players = self.moved[mine, gained] = (*self.before, moved, *self.after)
                return players
            if not gained and mine == self.start:
                return revealed.players
            canoes = [self._made_canoe(k, state) for k, state in enumerate(mine)]
            return (*self.before, self._player(revealed.players[me], canoes, gained), *self.after)
        others = self.others[oid]
        dealt = self.others[0]
        touched = {me} | {q for q, states in enumerate(others) if states != dealt[q]}
        if holder != self.holder:  # the moose changed hands: its old and new holders' players
            touched |= {h[0] for h in (holder, self.holder) if h is not None}
        after = list(revealed.players)
        for q in touched:
            player = after[q]
            states = mine if q == me else others[q]
            after[q] = self._player(player, [made_canoe(state[0], state[1], c.kind, holder == (q, k), c.moored)
                                           for k, (c, state) in enumerate(zip(player.canoes, states))],
                                  gained if q == me else ())
        return tuple(after)

    def position_of(self, result: Result) -> Position:
        """The revealed position with a result's rest (caves, moose, Joe) and players (:meth:`players_after`)."""
        caves, _, moose, joe = self.rests[result[2]]
        revealed = self.revealed
        joe_piece = revealed.joe
        if joe is not None and (joe_piece is None or (joe_piece.place, joe_piece.gem) != joe):
            joe_piece = Joe(*joe)
        fields = revealed.__dict__.copy()
        fields.pop("_hash", None)
        fields["players"] = self.players_after(result)
        fields["caves"] = caves
        fields["moose"] = moose
        fields["joe"] = joe_piece
        pos = new(Position)  # values.made, inline: a position a turn
        put(pos, "__dict__", fields)
        return pos

    def _made_canoe(self, index: int, state: CanoeState) -> tuple[Canoe, tuple[object, ...]]:
        """The acting player's canoe ``index`` with ``state``, the moose where it was (memoised per query)."""
        got = self.made[index].get(state)
        if got is None:
            c = self.players[self.player].canoes[index]
            got = self.made[index][state] = made_canoe(state[0], state[1], c.kind, c.moose, c.moored)
        return got

    @staticmethod
    def _player(player: Player, canoes: list[tuple[Canoe, tuple[object, ...]]], gained: tuple[Colour, ...]) -> Player:
        """``player`` with ``canoes`` (put in canonical order here, as ``Player.__post_init__`` does, on the sort keys
        made once) and the ``gained`` gems banked."""
        ordered: tuple[Canoe, ...]
        if len(canoes) == 2:
            ordered = ((canoes[1][0], canoes[0][0]) if canoes[1][1] < canoes[0][1] else
                       (canoes[0][0], canoes[1][0]))
        else:
            ordered = tuple(c for c, _ in sorted(canoes, key=itemgetter(1)))
        return made(Player, {**player.__dict__, "canoes": ordered, "bank": banked(player.bank, gained)})


def paddle_outcomes(pos: Position, player: int, budget: int, orders: list[tuple[int, ...]], revealed: Position,
                    chosen: int | None) -> list[TurnOutcome]:
    """The distinct outcomes of the canoes acting with ``budget`` each, one after the other in each of ``orders``
    (R-TURN-3, R-TURN-4: :func:`.turns.acting_orders`): one turn per resulting position (the player marked as having
    acted, as in ``revealed``), sorted by the number of canoe actions, then by notation. ``chosen`` is the budget
    named with the 1/2/3 card (X-CARDS-3)."""
    paddle = _Paddle(pos, player, budget, revealed)
    refs = [rule.canoe_ref(pos, player, k) for k in range(len(pos.players[player].canoes))]
    texts = [str(r) for r in refs]
    # The sort key of an outcome is its number of canoe actions, then its notation (Turn.__str__), written here from
    # each action's notation, made once per action; the outcome keeps the notation (TurnOutcome.notation).
    head = f"as {chosen}; " if chosen is not None else ""
    acts = paddle.acts
    actions: dict[int, tuple[CanoeAction, str]] = {}

    def action(number: int) -> tuple[CanoeAction, str]:
        k, steps = acts[number]
        got = actions[number] = (made(CanoeAction, {"canoe": refs[k], "steps": steps}),
                                 f"{texts[k]}: {steps_text(steps)}" if steps else f"{texts[k]}:")
        return got

    rows = []
    for result in paddle.outcomes(orders):
        numbers = result[0]
        if len(numbers) == 2:  # the usual case, kept cheap
            one = actions.get(numbers[0]) or action(numbers[0])
            two = actions.get(numbers[1]) or action(numbers[1])
            done: tuple[CanoeAction, ...] = (one[0], two[0])
            text = f"{head}{one[1]}; {two[1]}"
        else:
            got = [actions.get(number) or action(number) for number in numbers]
            done = tuple([a for a, _ in got])
            # No canoe acts: R-TURN-3, both canoes in the port with port_departure: at_most_one.
            text = head + ("; ".join([t for _, t in got]) if got else "stay")
        turn = new(Turn)  # values.made, inline: a turn an outcome
        put(turn, "__dict__", {"actions": done, "weather": 0, "budget": chosen, "lasso": False, "moored": None})
        rows.append((f"{len(numbers)}{text}", (turn, result, text)))
    paddle.done()
    rows.sort(key=itemgetter(0))
    return pending(paddle, map(itemgetter(1), rows))
