"""The fast generator of paddle turns (R-TURN-3, R-TURN-4, R-MOVE, R-GEM, R-STEAL, and the expansion's X rules).

:func:`paddle_outcomes` answers what :func:`.turns.legal_turns` asks for a paddle card (1..7, or one budget of the
1/2/3 card): every distinct outcome of the acting canoes, each with the first turn found for it, in the same order
and with the same turns as the generator of :mod:`.turns` it replaces (``legal_turns_reference``), which stays as
its slow reference beside the rule-by-rule interpreter of :mod:`.apply`. It walks the same choices in the same
order; what differs is what it carries along:

* a compact state: the acting player's canoes as ``(place, cargo)`` pairs, the rest of what a turn changes (caves,
  the other players' canoes, the moose, Diamond Joe) as one small integer naming a value interned once per query,
  the gems banked this turn and the moose's holder. No :class:`Position`, :class:`Turn` or notation is built for
  an intermediate step: only for the outcomes returned, and an outcome's position only when first asked for
  (:class:`TurnOutcome`; a search orders every turn and tries few);
* move tables per board (the discs above and below each place, the caves beside them, the whirlpool's upstream
  costs), computed once from the river graph and kept while the board lives;
* each canoe's options memoised on what they depend on (its own place and cargo, the interned rest and the moose's
  holder), so the second canoe of a turn is worked out once for all the first canoe's actions that leave those
  alike; the gem actions at one cave are memoised across queries.

Coverage: every switch and module of RULES.md (``x_cards``' 1/2/3 card, ``x_double``, ``x_whirl``, ``x_moose``,
``x_joe``, ``gem_sides``, ``must_move``, ``steal_after_unload``, ``bank_after_load``, ``capacity``,
``port_departure``, ``double_one_cave``, ``whirl_brink``, ``whirl_cost_step``): no ruleset falls back to the
reference generator. A player's two canoes both acting, and one canoe acting alone, take unrolled loops; other
acting sets (none, more than two canoes) the general walk. The cloud and the Lasso move no canoe and stay with
:mod:`.turns` (two or three outcomes each), which builds their positions with this module's :func:`revealed` and
:func:`weather_moved`.

Positions, players and turns are built by :func:`_made` (the fields stored as given, as ``__init__`` stores them)
rather than ``dataclasses.replace``; the canoes, whose ``__post_init__`` sorts their cargo, by their constructor,
once each; the acting player after a result once per canoes and gems banked.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from functools import lru_cache
from operator import itemgetter
from typing import Any, Callable, Iterator, NamedTuple, Sequence, TypeVar

from niagara_solver.model.atoms import DOUBLE_CAPACITY, FALLEN, NEXT, PORT, CanoeKind, Card, Colour, Gems, Moose
from niagara_solver.model.board import Board
from niagara_solver.model.notation import (CanoeAction, CanoeRef, Load, Move, Push, Steal, Step, TakeMoose, Trade,
                                           Turn, Unload)
from niagara_solver.model.position import Canoe, Joe, Player, Position
from niagara_solver.model.ruleset import GemSides, WhirlBrink, WhirlCostStep

#: The moose's extra points on every action of the canoe holding it (X-MOOSE-2).
MOOSE_BONUS = 2

CanoeState = tuple[str, tuple[Colour, ...]]
#: One canoe option: its steps (the moose taken first, if so), the canoe's place and cargo after it, the interned
#: rest of the state, the gems banked, and the moose's holder (player, canoe index) after it.
Option = tuple[tuple[Step, ...], CanoeState, int, tuple[Colour, ...], "tuple[int, int] | None"]
V = TypeVar("V")


# -- values built without re-running what their constructors check --------------------------------------------------

class TurnOutcome:
    """A legal turn and the position right after it (phase II, the player marked as having acted).

    A value: two outcomes are equal when their turns and positions are. The fast generator hands its outcomes out
    with their positions still to be made, each made on first use (``position``, or one of its players with
    :meth:`player`): a search lists every turn of a player to order them and tries only a few (at horizon 3, one in
    ten or fewer), so most positions are never needed. Once made, the position is kept.
    """

    __slots__ = ("turn", "_made")

    turn: Turn
    #: The position, or until it is made, its generator and what it reads there: (generator, revealed position,
    #: the acting player's canoes, the rest, the gems banked, the moose's holder), see :meth:`_Paddle.players_after`.
    _made: "Position | tuple[Any, ...]"

    def __init__(self, turn: Turn, position: Position) -> None:
        _set_turn(self, turn)
        _set_made(self, position)

    @property
    def position(self) -> Position:
        """The position right after the turn."""
        made = self._made
        if made.__class__ is tuple:
            paddle, revealed, mine, rid, banked, holder = made
            made = paddle.position(revealed, paddle.players_after(revealed, mine, rid, banked, holder), rid)
            _set_made(self, made)  # the generator's state is no longer needed
        return made  # type: ignore[return-value]

    def player(self, index: int) -> Player:
        """``position.players[index]``, without making the rest of the position when it is not made yet."""
        made = self._made
        if made.__class__ is tuple:
            paddle, revealed, mine, rid, banked, holder = made
            if paddle.untouched(index, rid, holder):  # another player, whom the turn leaves alone
                return revealed.players[index]
            return paddle.players_after(revealed, mine, rid, banked, holder)[index]
        return made.players[index]  # type: ignore[union-attr]

    def gems(self, index: int) -> tuple[int, int]:
        """The gems of the player ``index`` right after the turn, (banked, carried), read without making the
        position when it is not made yet."""
        made = self._made
        if made.__class__ is tuple:
            paddle, revealed, mine, rid, banked, _ = made
            return paddle.gems_after(index, revealed, mine, rid, banked)
        player = made.players[index]  # type: ignore[union-attr]
        return player.bank.total, sum(len(c.gems) for c in player.canoes)

    @property
    def notation(self) -> str:
        return str(self.turn)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not TurnOutcome:
            return NotImplemented
        assert isinstance(other, TurnOutcome)
        return self.turn == other.turn and self.position == other.position

    def __hash__(self) -> int:
        return hash((self.turn, self.position))

    def __repr__(self) -> str:
        return f"TurnOutcome(turn={self.turn!r}, position={self.position!r})"

    def __reduce__(self) -> tuple[type["TurnOutcome"], tuple[Turn, Position]]:
        return TurnOutcome, (self.turn, self.position)

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")


#: The slots' setters: an outcome is written once, by its maker, and frozen for everyone else.
_set_turn: Callable[[TurnOutcome, Turn], None] = TurnOutcome.__dict__["turn"].__set__
_set_made: Callable[[TurnOutcome, object], None] = TurnOutcome.__dict__["_made"].__set__


def _made(cls: type[V], fields: dict[str, Any]) -> V:
    """An instance of a frozen dataclass with ``fields`` as they are, as its ``__init__`` would store them, for the
    classes whose ``__init__`` only stores the fields (:class:`Position`, :class:`Player` given its canoes in
    canonical order and its hand in hand order, :class:`Turn`, :class:`CanoeAction`):
    ``dataclasses.replace`` re-runs ``__init__`` and ``__post_init__`` for each outcome, the largest cost of the
    generator once its search is compact. ``fields`` names every field and becomes the instance's own; a copied
    instance's kept hash (Position.__hash__) is dropped, since the copy's fields differ."""
    fields.pop("_hash", None)
    new = object.__new__(cls)
    object.__setattr__(new, "__dict__", fields)
    return new


_new, _put = object.__new__, object.__setattr__


def _evolve(value: V, **changes: Any) -> V:
    """A copy of ``value`` (a class :func:`_made` may build) with some fields changed, as ``dataclasses.replace``
    gives it."""
    return _made(type(value), {**value.__dict__, **changes})


#: Canoes, made once each with their sort keys (the canonical order of a player's canoes, Player.__post_init__):
#: (place, cargo, kind, holds the moose, moored) -> (canoe, sort key). Canoes are values; a game meets a few
#: hundred of them.
_CANOES: dict[tuple[str, tuple[Colour, ...], CanoeKind, bool, bool], tuple[Canoe, tuple[object, ...]]] = {}


def _canoe(place: str, gems: tuple[Colour, ...], kind: CanoeKind, moose: bool, moored: bool
           ) -> tuple[Canoe, tuple[object, ...]]:
    key = (place, gems, kind, moose, moored)
    got = _CANOES.get(key)
    if got is None:
        if len(_CANOES) >= 1 << 16:
            _CANOES.clear()
        canoe = Canoe(place, gems, kind, moose, moored)
        got = _CANOES[key] = (canoe, canoe.sort_key())
    return got


# -- steps, made once and named once ---------------------------------------------------------------------------------

#: The notation of every step made once below, by the step's identity: the sort of the outcomes reads it instead of
#: formatting each step again (the interned steps live as long as the module, so their identities stay theirs).
_TEXT: dict[int, str] = {}
S = TypeVar("S", bound=Step)


def _named(step: S) -> S:
    _TEXT[id(step)] = str(step)
    return step


_LOAD = {c: _named(Load(c)) for c in Colour}
_UNLOAD = {c: _named(Unload(c)) for c in Colour}
_TAKE = _named(TakeMoose())
_MOVES: dict[tuple[str, bool], Move] = {}
_PUSHES: dict[str, Push] = {}
_TRADES: dict[tuple[Colour | None, Colour | None], Trade] = {}


def _move(dest: str, downstream: bool) -> Move:
    move = _MOVES.get((dest, downstream))
    if move is None:
        move = _MOVES[dest, downstream] = _named(Move(dest, downstream))
    return move


def _push(dest: str) -> Push:
    push = _PUSHES.get(dest)
    if push is None:
        push = _PUSHES[dest] = _named(Push(dest))
    return push


def _trade(give: Colour | None, take: Colour | None) -> Trade:
    trade = _TRADES.get((give, take))
    if trade is None:
        trade = _TRADES[give, take] = _named(Trade(give, take))
    return trade


def _steps_text(steps: tuple[Step, ...]) -> str:
    text = _TEXT.get
    return " ".join([text(id(s)) or str(s) for s in steps])


# -- the river, once per board ---------------------------------------------------------------------------------------

#: A destination: the disc, the points left to spend there on gem actions, the movement, the index of the cave
#: beside it (when points are left), and whether the whirlpool there pushes the canoe on (X-WHIRL-2).
_Target = tuple[str, int, Move, int, bool]


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


#: Board identity -> (the board, its tables); the board is kept so its identity is not reused while cached. Boards
#: are immutable; a handful are in use at a time.
_BOARDS: dict[int, tuple[Board, _Tables]] = {}


def _tables(board: Board) -> _Tables:
    cached = _BOARDS.get(id(board))
    if cached is not None and cached[0] is board:
        return cached[1]
    rings = {}
    for place in (PORT, *board.discs):
        ring: list[tuple[str, ...]] = [()]
        while board.below(place, len(ring)):
            ring.append(board.below(place, len(ring)))
        rings[place] = tuple(ring)
    tables = _Tables({d: board.above(d) for d in board.discs}, rings, dict(board.cave), frozenset(board.brinks), {}, {})
    if len(_BOARDS) >= 64:
        _BOARDS.clear()
    _BOARDS[id(board)] = (board, tables)
    return tables


# -- gem actions at one cave (R-GEM-1..4), across queries ------------------------------------------------------------

class _Run(NamedTuple):
    """A sequence of gem actions at one cave and where it leaves the canoe (colour sets as bit masks)."""

    ops: tuple[Step, ...]
    gems: tuple[Colour, ...]
    cave: Gems
    loaded: int
    unloaded: int
    cost: int


@lru_cache(maxsize=1 << 16)
def _runs(gems: tuple[Colour, ...], cave: Gems, loaded: int, unloaded: int, budget: int,
          capacity: int) -> tuple[_Run, ...]:
    """Every distinct sequence of loads and unloads at one cave costing at most ``budget`` (R-GEM-1..4), in the
    order the reference generator lists them: by cost, then unloads before loads, colours in value order.

    A canoe may unload any gem it carries unless it loaded that colour this turn, and load any colour in the cave
    unless it unloaded that colour this turn (R-GEM-4), while it has room (R-GEM-2)."""
    start = _Run((), gems, cave, loaded, unloaded, 0)
    runs = [start]
    seen = {(gems, cave, loaded, unloaded)}
    frontier = [start]
    cost = 0
    while frontier and cost + 2 <= budget:
        cost += 2
        nxt: list[_Run] = []
        for run in frontier:
            candidates: list[_Run] = []
            for colour in sorted(set(run.gems)):
                if run.loaded >> colour & 1:
                    continue  # R-GEM-4: not a colour loaded this turn
                rest = list(run.gems)
                rest.remove(colour)
                candidates.append(_Run((*run.ops, _UNLOAD[colour]), tuple(rest), run.cave.plus(colour),
                                       run.loaded, run.unloaded | 1 << colour, cost))
            if len(run.gems) < capacity:
                for colour in run.cave.colours():
                    if run.unloaded >> colour & 1:
                        continue  # R-GEM-4: not a colour unloaded this turn
                    candidates.append(_Run((*run.ops, _LOAD[colour]), tuple(sorted((*run.gems, colour))),
                                           run.cave.minus(colour), run.loaded | 1 << colour, run.unloaded, cost))
            for cand in candidates:
                state = (cand.gems, cand.cave, cand.loaded, cand.unloaded)
                if state not in seen:
                    seen.add(state)
                    nxt.append(cand)
        runs.extend(nxt)
        frontier = nxt
    return tuple(runs)


@lru_cache(maxsize=1 << 16)
def _runs_costing(gems: tuple[Colour, ...], cave: Gems, loaded: int, unloaded: int, cost: int,
                  capacity: int) -> tuple[_Run, ...]:
    """The runs of :func:`_runs` costing exactly ``cost`` (R-MOVE-3: a canoe spends its whole budget)."""
    return tuple(r for r in _runs(gems, cave, loaded, unloaded, cost, capacity) if r.cost == cost)


def clear_caches() -> None:
    """Forget what is kept across queries (the gem actions at one cave, each board's move tables, the canoes made):
    a benchmark's pass then starts as a fresh process would."""
    _runs.cache_clear()
    _runs_costing.cache_clear()
    _BOARDS.clear()
    _CANOES.clear()


def _with(items: tuple[V, ...], index: int, value: V) -> tuple[V, ...]:
    return (*items[:index], value, *items[index + 1:])


# -- one query: a player's canoes with one budget --------------------------------------------------------------------

#: What a canoe's action leaves before its trades with Joe: steps, the canoe's state, caves, the other players'
#: canoes (by number), the gems banked, the moose, its holder, and whether the canoe moved to a disc without being
#: pushed (so it may trade, X-JOE-3).
_Raw = tuple[tuple[Step, ...], CanoeState, tuple[Gems, ...], int, tuple[Colour, ...], "Moose | None",
             "tuple[int, int] | None", bool]
Others = tuple[tuple[CanoeState, ...], ...]
JoeState = tuple[str, "Colour | None"]
#: The other players' canoes as dealt stand for themselves in the identities of results: a steal takes a gem from
#: them, so no result with a steal has them again.
_AS_DEALT = object()


class _Paddle:
    """The canoes of one player acting with one budget each, on the compact state."""

    def __init__(self, pos: Position, player: int, budget: int) -> None:
        rules = pos.ruleset
        self.tables = _tables(pos.board)
        self.rules = rules
        self.player = player
        self.budget = budget
        self.players = players = pos.players
        #: The players before and after the acting one, as they are in the outcomes the turn leaves them alone.
        self.before, self.after = players[:player], players[player + 1:]
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
        #: R-MOVE-1 (gem_sides: one), X-DOUBLE-2 (double_one_cave): gem actions on one side of the movement only.
        self.one_side = tuple(rules.gem_sides is GemSides.ONE or (d and rules.double_one_cave) for d in double)
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
        take = moose is Moose.WAITING and state[0] in self.tables.brinks and me not in self.moored
        options = self._canoe(index, state, rid, holder, ())
        if take:
            options += self._canoe(index, state, self.intern(caves, oid, Moose.HELD, joe), me, (_TAKE,))
        if not self.rules.x_whirl:
            return options
        if self.rules.whirl_brink is WhirlBrink.AVOID:
            fall = _push(FALLEN)
            kept = [o for o in options if not (o[0] and o[0][-1] is fall)]  # a push is an action's last step
            options = kept or options
        if not options:  # X-WHIRL-5: it stays where it is, its points lost; it may still take the moose
            options = [((), state, rid, (), holder)]
            if take:
                options.append(((_TAKE,), state, self.intern(caves, oid, Moose.HELD, joe), (), me))
        return options

    def _canoe(self, index: int, state: CanoeState, rid: int, holder: tuple[int, int] | None,
               first: tuple[Step, ...]) -> list[Option]:
        rules = self.rules
        caves, oid, moose, joe = self.rests[rid]
        # X-MOOSE-2: the canoe holding the moose gets 2 more points, from the action in which it took it on.
        me = (self.player, index)
        n = self.budget + (MOOSE_BONUS if holder == me else 0)
        place, gems = state
        capacity = self.capacity[index]
        one_side = self.one_side[index]
        raw: list[_Raw] = []
        append = raw.append
        here = self.tables.cave.get(place) if place != PORT else None
        pre: Sequence[_Run]
        if here is None:  # R-GEM-1: no gem actions in the port or beside no cave
            pre = (_Run((), gems, Gems(), 0, 0, 0),)
        else:
            pre = _runs(gems, caves[here - 1], 0, 0, n, capacity)
        for run in pre:
            ops, carried, loaded, unloaded = run.ops, run.gems, run.loaded, run.unloaded
            after = caves
            if here is not None and ops:
                after = _with(caves, here - 1, run.cave)
            rest = n - run.cost
            if rest == 0:
                # d = 0: the canoe spent its budget where it stands (R-MOVE-1), unless it must move.
                if place != PORT and not rules.must_move:
                    append((ops, (place, carried), after, oid, (), moose, holder, False))
                continue
            up, port, down = self._targets(place, rest)
            # R-STEAL-1, R-STEAL-5, X-DOUBLE-3: who may steal on stopping with the budget spent by paddling up.
            thief = (not carried or self.double[index]) and (not unloaded or rules.steal_after_unload)
            for targets in (up, down):  # the discs above (nearest first), then below (R-MOVE-4)
                for dest, left, move, cave, pushed in targets:
                    steps = (*ops, move)
                    if pushed:  # X-WHIRL-2: ending on the whirlpool with the last point, then pushed down
                        self._pushed(raw, index, carried, steps, after, oid, moose, holder)
                    elif not left:
                        append((steps, (dest, carried), after, oid, (), moose, holder, True))
                        if thief and targets is up:
                            self._steals(raw, index, dest, carried, steps, after, oid, moose, holder)
                    elif not (ops and one_side):
                        # Gem actions where the canoe stops, spending exactly the rest of its budget (R-MOVE-3);
                        # none after the movement if some came before it (R-MOVE-1 gem_sides: one; X-DOUBLE-2).
                        for post in _runs_costing(carried, after[cave], loaded, unloaded, left, capacity):
                            append(((*steps, *post.ops), (dest, post.gems), _with(after, cave, post.cave), oid, (),
                                    moose, holder, True))
                if targets is up and port and (rules.bank_after_load or not loaded):
                    # R-MOVE-5: the port may be entered with budget to spare; R-GEM-5: its cargo is banked free.
                    if holder == me:  # X-MOOSE-3: home with the moose, which returns
                        append(((*ops, _move(PORT, False)), (PORT, ()), after, oid, carried, Moose.RETURNING, None,
                                True))
                    else:
                        append(((*ops, _move(PORT, False)), (PORT, ()), after, oid, carried, moose, holder, True))
        return self._finish(raw, index, rid, first)

    def _finish(self, raw: list[_Raw], index: int, rid: int, first: tuple[Step, ...]) -> list[Option]:
        """Each action as it is, then each trade with Diamond Joe it may end with (X-JOE-3); one per result."""
        out: list[Option] = []
        seen: set[tuple[object, ...]] = set()
        intern, rest_ids = self.intern, self.rest_ids
        caves0, oid0, moose0, joe = self.rests[rid]
        for steps, state, caves, oid, banked, moose, holder, may_trade in raw:
            if may_trade and joe is not None and joe[0] == state[0]:
                for done, canoe, joe_after in self._trades(index, steps, state, joe):
                    result = (canoe, intern(caves, oid, moose, joe_after), banked, holder)
                    if result not in seen:
                        seen.add(result)
                        out.append((first + done, *result))
                continue
            if caves is caves0 and oid == oid0 and moose is moose0:
                result = (state, rid, banked, holder)
            else:
                after = rest_ids.get((caves, oid, moose, joe))
                result = (state, intern(caves, oid, moose, joe) if after is None else after, banked, holder)
            if result not in seen:
                seen.add(result)
                out.append((first + steps, *result))
        return out

    def _trades(self, index: int, steps: tuple[Step, ...], state: CanoeState, joe: JoeState
                ) -> Iterator[tuple[tuple[Step, ...], CanoeState, JoeState]]:
        """X-JOE-3: a canoe that moved and stopped on Joe's disc takes his gem into a free place, swaps one of its
        gems with his (of another colour), or gives one of its gems to an empty Joe; free, after its gem actions and
        its steal (a pushed canoe does not trade, X-WHIRL-2)."""
        yield steps, state, joe
        place, gems = state
        joe_place, joe_gem = joe
        if joe_gem is not None and len(gems) < self.capacity[index]:
            yield (*steps, _trade(None, joe_gem)), (place, tuple(sorted((*gems, joe_gem)))), (joe_place, None)
        for colour in sorted(set(gems)):
            if colour == joe_gem:
                continue  # a swap is of two different colours
            rest = list(gems)
            rest.remove(colour)
            if joe_gem is not None:
                rest.append(joe_gem)
            yield (*steps, _trade(colour, joe_gem)), (place, tuple(sorted(rest))), (joe_place, colour)

    def _targets(self, place: str, rest: int) -> tuple[tuple[_Target, ...], bool, tuple[_Target, ...]]:
        """Where a canoe on ``place`` with ``rest`` points may paddle and what it has left to spend there: the discs
        above (nearest first, R-MOVE-4), whether it reaches the port (R-MOVE-5), the discs below (by distance, in
        branch order, never over the falls). Only the discs it can stop on with its budget spent exactly
        (R-MOVE-3): none left, or an even number left beside a cave (R-GEM-1); the whirlpool only with the last
        point (X-WHIRL-2). Computed once per board."""
        key = (place, rest, self.whirl, self.up_step)
        got = self.tables.targets.get(key)
        if got is not None:
            return got
        whirl, cave_of = self.whirl, self.tables.cave

        def target(dest: str, left: int, downstream: bool) -> list[_Target]:
            if dest == whirl:
                return [(dest, 0, _move(dest, downstream), 0, True)] if left == 0 else []
            colour = cave_of[dest]
            if left == 0 or (left % 2 == 0 and colour is not None):
                return [(dest, left, _move(dest, downstream), colour - 1 if colour is not None else 0, False)]
            return []

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
        """The points to each place above ``place``, cumulated: 1 a step, or 2 onto the whirlpool (``whirl_cost_step:
        enter``) or off it (``leave``), X-WHIRL-3."""
        key = (place, self.whirl, self.up_step)
        costs = self.tables.up_costs.get(key)
        if costs is None:
            out: list[int] = []
            here = place
            for there in self.tables.above[place]:
                step = 1
                if self.whirl is not None:
                    on = there if self.up_step is WhirlCostStep.ENTER else here
                    step = 2 if on == self.whirl else 1
                out.append((out[-1] if out else 0) + step)
                here = there
            costs = self.tables.up_costs[key] = tuple(out)
        return costs

    def _pushed(self, raw: list[_Raw], index: int, gems: tuple[Colour, ...], steps: tuple[Step, ...],
                caves: tuple[Gems, ...], oid: int, moose: Moose | None, holder: tuple[int, int] | None) -> None:
        """X-WHIRL-2: the canoe that ended its movement on the whirlpool goes one disc down, into the branch its
        owner picks at a fork, or over the falls from a last disc (R-FLOW-6: its gems go back to their caves, the
        moose it holds returns, X-MOOSE-3). A pushed canoe neither steals nor trades."""
        assert self.whirl is not None
        rings = self.tables.rings[self.whirl]
        below = rings[1] if len(rings) > 1 else ()
        for dest in below:
            raw.append(((*steps, _push(dest)), (dest, gems), caves, oid, (), moose, holder, False))
        if not below:
            for gem in gems:
                caves = _with(caves, gem - 1, caves[gem - 1].plus(gem))
            if holder == (self.player, index):
                moose, holder = Moose.RETURNING, None
            raw.append(((*steps, _push(FALLEN)), (FALLEN, ()), caves, oid, (), moose, holder, False))

    def _steals(self, raw: list[_Raw], index: int, dest: str, carried: tuple[Colour, ...], steps: tuple[Step, ...],
                caves: tuple[Gems, ...], oid: int, moose: Moose | None, holder: tuple[int, int] | None) -> None:
        """R-STEAL-1..5: an empty canoe that paddled up and stopped with its budget spent may steal; a double canoe
        with a free place while it moved, as many gems as it has free places (X-DOUBLE-3)."""
        free = (DOUBLE_CAPACITY - len(carried)) if self.double[index] else self.rules.capacity
        if free <= 0:
            return
        victims = self.victims.get((oid, dest))
        if victims is None:
            victims = self.victims[oid, dest] = [
                (q, k, gems) for q, canoes in enumerate(self.others[oid]) if q != self.player
                for k, (at, gems) in enumerate(canoes) if at == dest and gems and (q, k) not in self.moored]
        if not victims:
            return

        def pick(start: int, chosen: tuple[tuple[int, int, Colour], ...],
                 free: int) -> Iterator[tuple[tuple[int, int, Colour], ...]]:
            if chosen:
                yield chosen
            if free == 0:
                return
            for v in range(start, len(victims)):  # R-STEAL-2: one gem from each chosen canoe
                q, k, gems = victims[v]
                for colour in sorted(set(gems)):
                    yield from pick(v + 1, (*chosen, (q, k, colour)), free - 1)

        for chosen in pick(0, (), free):
            result = self.others[oid]
            thief: list[Colour] = list(carried)
            notes: list[Step] = []
            for q, k, colour in chosen:
                at, gems = result[q][k]
                named, kind = self._victim_ref(result, q, k, dest, colour)
                notes.append(Steal(self.players[q].name, colour, named, kind))
                left = list(gems)
                left.remove(colour)
                result = _with(result, q, _with(result[q], k, (at, tuple(left))))
                thief.append(colour)
            raw.append(((*steps, *notes), (dest, tuple(sorted(thief))), caves, self.others_id(result), (), moose,
                        holder, True))

    def _victim_ref(self, others: Others, q: int, k: int, dest: str,
                    colour: Colour) -> tuple[tuple[Colour, ...] | None, str | None]:
        """How a steal names the victim's canoe: by its cargo where two of the victim's canoes on the disc carry
        the colour with different cargo, by its kind where they carry the same (X-DOUBLE-3); else not at all."""
        gems = others[q][k][1]
        for j, (at, other) in enumerate(others[q]):
            if j != k and at == dest and colour in other:
                if other != gems:
                    return gems, None
                if self.doubles is not None and self.doubles[q][j] != self.doubles[q][k]:
                    return None, "double" if self.doubles[q][k] else "single"
        return None, None

    # -- whole turns ---------------------------------------------------------------------------------------------

    def key(self, mine: tuple[CanoeState, ...], rid: int, banked: tuple[Colour, ...],
            holder: tuple[int, int] | None) -> tuple[object, ...]:
        """Identifies the resulting position: a player's canoes are compared as a collection (with their kinds; the
        moose's holder by its canoe's state)."""
        if self.doubles is None:
            canoes: object = tuple(sorted(mine))
        else:
            canoes = tuple(sorted(zip(mine, self.double)))
        ident = (self.canonical[rid], canoes, tuple(sorted(banked)) if banked else ())
        if holder is None:
            return ident
        q, k = holder
        return (*ident, (q, mine[k] if q == self.player else self.others[self.rests[rid][1]][q][k]))

    def sequences(self, order: tuple[int, ...]) -> Iterator[tuple[tuple[tuple[int, tuple[Step, ...]], ...],
                                                                  tuple[CanoeState, ...], int, tuple[Colour, ...],
                                                                  tuple[int, int] | None]]:
        """The canoes in ``order`` act one after the other, each finishing before the next (R-TURN-4)."""

        def walk(at: int, mine: tuple[CanoeState, ...], rid: int, banked: tuple[Colour, ...],
                 holder: tuple[int, int] | None, done: tuple[tuple[int, tuple[Step, ...]], ...]) -> Iterator[Any]:
            if at == len(order):
                yield done, mine, rid, banked, holder
                return
            k = order[at]
            for steps, state, after, more, then in self.options(k, mine[k], rid, holder):
                yield from walk(at + 1, _with(mine, k, state), after, banked + more, then, (*done, (k, steps)))

        return walk(0, self.start, self.rid, (), self.holder, ())

    def outcomes(self, sets: list[tuple[int, ...]], canoes: tuple[Canoe, ...]) -> list[tuple[Any, ...]]:
        """The distinct results of the canoes of ``sets`` acting, in either order; the first turn found for each: two
        canoes both acting as (first canoe, its steps, second canoe, its steps, canoes, rest, banked, holder), other
        turns as ((canoe, steps) per action, canoes, rest, banked, holder)."""
        found: dict[tuple[object, ...], Any] = {}
        pair = len(self.start) == 2
        for acting in sets:
            orders = [acting]
            if len(acting) == 2 and canoes[acting[0]] != canoes[acting[1]]:
                orders.append((acting[1], acting[0]))  # R-TURN-4: the player chooses the order
            for order in orders:
                if len(order) == 2 and pair:
                    self._both(found, order)
                elif len(order) == 1:
                    self._one(found, order[0])
                else:
                    for found_turn in self.sequences(order):
                        found.setdefault(self.key(*found_turn[1:]), found_turn)
        return list(found.values())

    def _one(self, found: dict[tuple[object, ...], Any], k: int) -> None:
        """:meth:`sequences` and :meth:`key` for one canoe acting, unrolled."""
        start, canonical, key, plain = self.start, self.canonical, self.key, self.doubles is None
        for steps, state, rid, banked, holder in self.options(k, start[k], self.rid, self.holder):
            mine = _with(start, k, state)
            if plain and holder is None:  # key() inlined
                ident: tuple[object, ...] = (canonical[rid], tuple(sorted(mine)),
                                             tuple(sorted(banked)) if banked else ())
            else:
                ident = key(mine, rid, banked, holder)
            if ident not in found:
                found[ident] = (((k, steps),), mine, rid, banked, holder)

    def _both(self, found: dict[tuple[object, ...], Any], order: tuple[int, ...]) -> None:
        """:meth:`sequences` and :meth:`key` for a player's two canoes both acting, unrolled: the inner loop runs for
        every pair of actions, and builds the outcomes' identities without a call per pair."""
        first, second = order
        start, canonical, others, rests, me = self.start, self.canonical, self.others, self.rests, self.player
        mark = None
        if self.doubles is not None:
            mark = self.double if first == 0 else (self.double[1], self.double[0])
        options = self.options
        for steps1, state1, rid1, banked1, holder1 in options(first, start[first], self.rid, self.holder):
            for steps2, state2, rid2, banked2, holder2 in options(second, start[second], rid1, holder1):
                if mark is None:
                    canoes: tuple[object, ...] = (state1, state2) if state1 <= state2 else (state2, state1)
                else:
                    one, two = (state1, mark[0]), (state2, mark[1])
                    canoes = (one, two) if one <= two else (two, one)
                banked = banked1 + banked2 if banked2 else banked1
                if holder2 is None:
                    ident: tuple[object, ...] = (canonical[rid2], canoes, tuple(sorted(banked)) if banked else ())
                else:
                    q, k = holder2
                    held = (state1 if k == first else state2) if q == me else others[rests[rid2][1]][q][k]
                    ident = (canonical[rid2], canoes, tuple(sorted(banked)) if banked else (), (q, held))
                if ident not in found:
                    found[ident] = (first, steps1, second, steps2,
                                    (state1, state2) if first == 0 else (state2, state1), rid2, banked, holder2)

    def done(self) -> None:
        """Forget what only the search of the outcomes needed: the outcomes keep this generator until their positions
        are made (:class:`TurnOutcome`), and need only what :meth:`players_after` and :meth:`position` read."""
        self.memo.clear()
        self.rest_ids.clear()
        self.others_ids.clear()
        self.canonical_ids.clear()
        self.victims.clear()

    def gems_after(self, q: int, revealed: Position, mine: tuple[CanoeState, ...], rid: int,
                   banked: tuple[Colour, ...]) -> tuple[int, int]:
        """The gems of the player ``q`` after a result, (banked, carried)."""
        bank = revealed.players[q].bank.total
        if q == self.player:
            return bank + len(banked), sum([len(gems) for _, gems in mine])
        return bank, sum([len(gems) for _, gems in self.others[self.rests[rid][1]][q]])

    def untouched(self, q: int, rid: int, holder: tuple[int, int] | None) -> bool:
        """Whether a result leaves the player ``q`` as dealt: another player, no gem stolen from them, the moose
        neither taken from nor given to them."""
        if q == self.player:
            return False
        others = self.others[self.rests[rid][1]]
        if others[q] != self.others[0][q]:
            return False
        return holder == self.holder or all(h is None or h[0] != q for h in (holder, self.holder))

    def players_after(self, revealed: Position, mine: tuple[CanoeState, ...], rid: int, banked: tuple[Colour, ...],
                      holder: tuple[int, int] | None) -> tuple[Player, ...]:
        """The players of the position ``revealed`` with a result's changes (players untouched by the turn are kept as
        they are; a changed canoe keeps its kind and marks, but the moose goes with the result's holder)."""
        me = self.player
        oid = self.rests[rid][1]
        if oid == 0 and holder == self.holder:  # the usual case: only the acting player's canoes changed
            if len(mine) == 2:
                players = self.moved.get((mine, banked))  # outcomes differing only in the caves share them
                if players is not None:
                    return players
                one, two = mine
                made = self.made
                first = made[0].get(one) or self._made_canoe(0, one)
                second = made[1].get(two) or self._made_canoe(1, two)
                player = revealed.players[me]
                # The canonical order of a player's canoes (Player.__post_init__), on the sort keys made once.
                ordered = (second[0], first[0]) if second[1] < first[1] else (first[0], second[0])
                bank = player.bank
                if banked:
                    bank = _banked(bank, banked)
                fields = player.__dict__.copy()
                fields["canoes"] = ordered
                fields["bank"] = bank
                moved = _new(Player)
                _put(moved, "__dict__", fields)
                players = self.moved[mine, banked] = (*self.before, moved, *self.after)
                return players
            if not banked and mine == self.start:
                return revealed.players
            player = revealed.players[me]
            canoes = [self._made_canoe(k, state) for k, state in enumerate(mine)]
            return (*self.before, self._player(player, canoes, banked), *self.after)
        others = self.others[oid]
        dealt = self.others[0]
        touched = {me} | {q for q, states in enumerate(others) if states != dealt[q]}
        if holder != self.holder:  # the moose changed hands: its old and new holders' players
            touched |= {h[0] for h in (holder, self.holder) if h is not None}
        new = list(revealed.players)
        for q in touched:
            player = new[q]
            states = mine if q == me else others[q]
            new[q] = self._player(player, [_canoe(state[0], state[1], c.kind, holder == (q, k), c.moored)
                                           for k, (c, state) in enumerate(zip(player.canoes, states))],
                                  banked if q == me else ())
        return tuple(new)

    def position(self, revealed: Position, players: tuple[Player, ...], rid: int) -> Position:
        """The position ``revealed`` with the result ``rid``'s rest (caves, moose, Joe) and ``players``
        (:meth:`players_after`)."""
        caves, _, moose, joe = self.rests[rid]
        joe_piece = revealed.joe
        if joe is not None and (joe_piece is None or (joe_piece.place, joe_piece.gem) != joe):
            joe_piece = Joe(*joe)
        fields = revealed.__dict__.copy()
        fields.pop("_hash", None)
        fields["players"] = players
        fields["caves"] = caves
        fields["moose"] = moose
        fields["joe"] = joe_piece
        pos = _new(Position)
        _put(pos, "__dict__", fields)
        return pos

    def _made_canoe(self, index: int, state: CanoeState) -> tuple[Canoe, tuple[object, ...]]:
        """The acting player's canoe ``index`` with ``state``, the moose where it was (memoised per query)."""
        got = self.made[index].get(state)
        if got is None:
            c = self.players[self.player].canoes[index]
            got = self.made[index][state] = _canoe(state[0], state[1], c.kind, c.moose, c.moored)
        return got

    @staticmethod
    def _player(player: Player, canoes: list[tuple[Canoe, tuple[object, ...]]], banked: tuple[Colour, ...]) -> Player:
        """``player`` with ``canoes`` (put in canonical order here, as ``Player.__post_init__`` does, on the sort keys
        made once) and ``banked`` gems more in the bank."""
        ordered: tuple[Canoe, ...]
        if len(canoes) == 2:
            ordered = ((canoes[1][0], canoes[0][0]) if canoes[1][1] < canoes[0][1] else
                       (canoes[0][0], canoes[1][0]))
        else:
            ordered = tuple(c for c, _ in sorted(canoes, key=itemgetter(1)))
        return _made(Player, {**player.__dict__, "canoes": ordered, "bank": _banked(player.bank, banked)})


def _banked(bank: Gems, gems: tuple[Colour, ...]) -> Gems:
    """``bank`` with ``gems`` banked (R-GEM-5)."""
    if not gems:
        return bank
    counts = list(bank)
    for colour in gems:
        counts[colour - 1] += 1
    return Gems(counts)


def revealed(pos: Position, player: int, card: Card, budget: int | None = None) -> Position:
    """The position once ``player`` revealed ``card``, as :func:`.turns.after_reveal` gives it: the card leaves the
    hand (R-CARD-2, R-TURN-1), the player has acted; with the 1/2/3 card the chosen ``budget`` is recorded
    (X-CARDS-3)."""
    me: Player = pos.players[player]
    played = _evolve(me, hand=tuple(c for c in me.hand if c != card), card=card, card_budget=budget)
    return _evolve(pos, players=_with(pos.players, player, played), acted=(*pos.acted, player))


def weather_moved(pos: Position, step: int) -> Position:
    """The cloud moves the weather one step (R-TURN-2), as :func:`.turns.weather_moved` gives it; to +2, it brings the
    beaver onto the top disc when the beaver is not on the river (X-BEAVER-1)."""
    weather = pos.weather + step
    if pos.ruleset.x_beaver and weather == 2 and pos.beaver is None:
        return _evolve(pos, weather=weather, beaver=pos.board.top)
    return _evolve(pos, weather=weather)


def canoe_ref(pos: Position, player: int, index: int) -> CanoeRef:
    """How the turn notation names the canoe ``index`` of ``player`` at the start of the turn: by its place, and
    where two of the player's canoes share it, by cargo, kind (X-DOUBLE-1) or the moose (X-MOOSE-2)."""
    canoes = pos.players[player].canoes
    canoe = canoes[index]
    for k, other in enumerate(canoes):
        if k != index and other.place == canoe.place:
            if other.gems != canoe.gems:
                return CanoeRef(canoe.place, canoe.gems)
            if other.kind is not canoe.kind:  # X-DOUBLE-1: same place and cargo
                return CanoeRef(canoe.place, kind=canoe.kind.value)
            if canoe.moose:  # X-MOOSE-2: the holder; the other goes unmarked
                return CanoeRef(canoe.place, kind="moose")
    return CanoeRef(canoe.place)


def paddle_outcomes(pos: Position, player: int, budget: int, sets: list[tuple[int, ...]], revealed: Position,
                    chosen: int | None) -> list[TurnOutcome]:
    """The distinct outcomes of the canoes of ``sets`` acting with ``budget`` each, in either order (R-TURN-3,
    R-TURN-4): one turn per resulting position (the player marked as having acted, as in ``revealed``), sorted by
    the number of canoe actions, then by notation. ``chosen`` is the budget named with the 1/2/3 card (X-CARDS-3)."""
    paddle = _Paddle(pos, player, budget)
    canoes = pos.players[player].canoes
    refs = [canoe_ref(pos, player, k) for k in range(len(canoes))]
    texts = [str(r) for r in refs]
    # The sort key of an outcome is its number of canoe actions, then its notation (Turn.__str__), written here from
    # each action's notation, made once per option.
    head = f"as {chosen}; " if chosen is not None else ""
    rows = []
    #: Per canoe: the identity of an option's steps -> the canoe action and its notation. An option's steps are one
    #: tuple, kept by the memo of options while the query runs and shared by every outcome that option starts.
    actions: list[dict[int, tuple[CanoeAction, str]]] = [{} for _ in canoes]

    def action(k: int, steps: tuple[Step, ...]) -> tuple[CanoeAction, str]:
        made = actions[k].get(id(steps))
        if made is None:
            made = actions[k][id(steps)] = (_made(CanoeAction, {"canoe": refs[k], "steps": steps}),
                                            f"{texts[k]}: {_steps_text(steps)}" if steps else f"{texts[k]}:")
        return made

    new, put, set_turn, set_made = _new, _put, _set_turn, _set_made
    for found in paddle.outcomes(sets, canoes):
        turn = new(Turn)
        if len(found) == 8:
            first, steps1, second, steps2, mine, rid, banked, holder = found
            one = actions[first].get(id(steps1)) or action(first, steps1)
            two = actions[second].get(id(steps2)) or action(second, steps2)
            sort = f"2{head}{one[1]}; {two[1]}"
            put(turn, "__dict__", {"actions": (one[0], two[0]), "weather": 0, "budget": chosen, "lasso": False,
                                   "moored": None})
        else:
            done, mine, rid, banked, holder = found
            made = [action(k, steps) for k, steps in done]
            sort = f"{len(made)}{head}" + ("; ".join([t for _, t in made]) if made else "stay")
            put(turn, "__dict__", {"actions": tuple([a for a, _ in made]), "weather": 0, "budget": chosen,
                                   "lasso": False, "moored": None})
        outcome = new(TurnOutcome)  # its position made on first use
        set_turn(outcome, turn)
        set_made(outcome, (paddle, revealed, mine, rid, banked, holder))
        rows.append((sort, outcome))
    paddle.done()
    rows.sort(key=itemgetter(0))
    return [outcome for _, outcome in rows]
