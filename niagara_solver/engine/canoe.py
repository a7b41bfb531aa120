"""What one canoe may do in its action (phase II): the rule decisions of turn generation, each once, as a small pure
function with its rule ID.

A canoe's action is gem actions where it stands, one movement, gem actions where it stops, then steals or a trade
with Diamond Joe (R-MOVE-1). The turn generator (:mod:`.paddling`) walks those choices on its compact state and asks
this module what the rules allow at each; its slow reference (tests/reference_turns.py) walks them again on its own
state and asks the same functions, so the two differ only in how they walk, never in a rule. The rule-by-rule
interpreter (:mod:`.apply`) reads the rules again, independently, and the tests hold all three to the same outcomes.

Steps are made once each (:func:`move`, :func:`push`, :func:`trade`, the gem actions of :func:`gem_runs`) and their
notation written once (:func:`steps_text`): the generator lists tens of thousands of turns a second, and writing each
step's notation again was a large part of its time.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterator, NamedTuple, Sequence, TypeVar

from niagara_solver.model.atoms import FALLEN, PORT, Colour, Gems, Moose
from niagara_solver.model.notation import CanoeRef, Load, Move, Push, Steal, Step, TakeMoose, Trade, Unload
from niagara_solver.model.position import Position
from niagara_solver.model.ruleset import GemSides, Ruleset, WhirlBrink, WhirlCostStep

#: The moose's extra points on every action of the canoe holding it (X-MOOSE-2).
MOOSE_BONUS = 2

#: A canoe as a turn changes it: its place and its cargo (sorted).
CanoeState = tuple[str, tuple[Colour, ...]]
#: Every player's canoes, by player and canoe index.
Canoes = tuple[tuple[CanoeState, ...], ...]
#: Diamond Joe as a turn changes him: his disc and his gem.
JoeState = tuple[str, "Colour | None"]
Option = TypeVar("Option")


# -- steps, made once ------------------------------------------------------------------------------------------------

#: The notation of each step made here, by the step's identity: :data:`_KEPT` keeps each such step alive, so no other
#: object can take that identity while its entry stands. (By value, each lookup would hash the step in Python: the
#: dataclass's ``__hash__``, and Load and Unload of a colour hash alike.)
_TEXT: dict[int, str] = {}
_KEPT: list[Step] = []
S = TypeVar("S", bound=Step)


def _named(step: S) -> S:
    _KEPT.append(step)
    _TEXT[id(step)] = str(step)
    return step


LOAD = {c: _named(Load(c)) for c in Colour}
UNLOAD = {c: _named(Unload(c)) for c in Colour}
TAKE_MOOSE = _named(TakeMoose())
_MOVES: dict[tuple[str, bool], Move] = {}
_PUSHES: dict[str, Push] = {}
_TRADES: dict[tuple[Colour | None, Colour | None], Trade] = {}


def move(dest: str, downstream: bool) -> Move:
    """The movement to ``dest`` (R-MOVE-2)."""
    made = _MOVES.get((dest, downstream))
    if made is None:
        made = _MOVES[dest, downstream] = _named(Move(dest, downstream))
    return made


def push(dest: str) -> Push:
    """The whirlpool's push to ``dest`` (X-WHIRL-2)."""
    made = _PUSHES.get(dest)
    if made is None:
        made = _PUSHES[dest] = _named(Push(dest))
    return made


def trade(give: Colour | None, take: Colour | None) -> Trade:
    """A trade with Diamond Joe (X-JOE-3)."""
    made = _TRADES.get((give, take))
    if made is None:
        made = _TRADES[give, take] = _named(Trade(give, take))
    return made


def steps_text(steps: tuple[Step, ...]) -> str:
    """The notation of a canoe's steps, as :class:`CanoeAction` writes them after its canoe."""
    try:  # every step made here: looked up without a Python call a step
        return " ".join(map(_TEXT.__getitem__, map(id, steps)))
    except KeyError:  # a step made elsewhere: written afresh
        text = _TEXT.get
        return " ".join([text(id(s)) or str(s) for s in steps])


# -- naming a canoe ---------------------------------------------------------------------------------------------------

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


# -- before the movement: the moose, the points ----------------------------------------------------------------------

def may_take_moose(moose: Moose | None, place: str, brinks: Sequence[str] | frozenset[str], moored: bool) -> bool:
    """X-MOOSE-1: the waiting moose may be taken by a canoe on a last disc, not moored (X-CARDS-4)."""
    return moose is Moose.WAITING and place in brinks and not moored


def points(budget: int, holds_moose: bool) -> int:
    """The points a canoe spends in its action: the card's budget, 2 more for the canoe holding the moose, from the
    action in which it took it on (X-MOOSE-2)."""
    return budget + MOOSE_BONUS if holds_moose else budget


def may_stay_put(place: str, rules: Ruleset) -> bool:
    """Whether a canoe may spend its whole budget on gem actions where it stands, moving no disc (R-MOVE-1): not
    from the port, and not with ``must_move``."""
    return place != PORT and not rules.must_move


def one_side(rules: Ruleset, double: bool) -> bool:
    """Whether all the canoe's gem actions happen on one side of its movement: ``gem_sides: one`` (R-MOVE-1), or a
    double canoe at one cave with ``double_one_cave`` (X-DOUBLE-2)."""
    return rules.gem_sides is GemSides.ONE or (double and rules.double_one_cave)


# -- gem actions at one cave (R-GEM-1..4) ------------------------------------------------------------------------------

class GemRun(NamedTuple):
    """A sequence of gem actions at one cave and where it leaves the canoe: its cargo, the cave, the colours loaded
    and unloaded this turn (bit masks, bit ``colour``) and the points spent."""

    ops: tuple[Step, ...]
    gems: tuple[Colour, ...]
    cave: Gems
    loaded: int
    unloaded: int
    cost: int


@lru_cache(maxsize=1 << 16)
def gem_runs(gems: tuple[Colour, ...], cave: Gems, loaded: int, unloaded: int, budget: int,
             capacity: int) -> tuple[GemRun, ...]:
    """Every distinct sequence of loads and unloads at one cave costing at most ``budget`` (R-GEM-1..4), by cost,
    then unloads before loads, colours in value order; one per resulting cargo, cave and colours touched.

    A canoe may unload any gem it carries unless it loaded that colour this turn, and load any colour in the cave
    unless it unloaded that colour this turn (R-GEM-4), while it has room (R-GEM-2)."""
    start = GemRun((), gems, cave, loaded, unloaded, 0)
    runs = [start]
    seen = {(gems, cave, loaded, unloaded)}
    frontier = [start]
    cost = 0
    while frontier and cost + 2 <= budget:
        cost += 2
        nxt: list[GemRun] = []
        for run in frontier:
            candidates: list[GemRun] = []
            for colour in sorted(set(run.gems)):
                if run.loaded >> colour & 1:
                    continue  # R-GEM-4: not a colour loaded this turn
                rest = list(run.gems)
                rest.remove(colour)
                candidates.append(GemRun((*run.ops, UNLOAD[colour]), tuple(rest), run.cave.plus(colour),
                                         run.loaded, run.unloaded | 1 << colour, cost))
            if len(run.gems) < capacity:
                for colour in run.cave.colours():
                    if run.unloaded >> colour & 1:
                        continue  # R-GEM-4: not a colour unloaded this turn
                    candidates.append(GemRun((*run.ops, LOAD[colour]), tuple(sorted((*run.gems, colour))),
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
def gem_runs_costing(gems: tuple[Colour, ...], cave: Gems, loaded: int, unloaded: int, cost: int,
                     capacity: int) -> tuple[GemRun, ...]:
    """The runs of :func:`gem_runs` costing exactly ``cost``: where the canoe stops, it spends its whole budget
    (R-MOVE-3)."""
    return tuple(r for r in gem_runs(gems, cave, loaded, unloaded, cost, capacity) if r.cost == cost)


def no_gem_actions(gems: tuple[Colour, ...]) -> tuple[GemRun, ...]:
    """The one run of a canoe in the port or beside no cave: no gem action (R-GEM-1)."""
    return (GemRun((), gems, Gems(), 0, 0, 0),)


# -- the movement (R-MOVE-2..5, X-WHIRL-2, X-WHIRL-3) -----------------------------------------------------------------

def upstream_costs(place: str, above: tuple[str, ...], whirl: str | None,
                   cost_step: WhirlCostStep) -> tuple[int, ...]:
    """The points from ``place`` to each place ``above`` it (nearest first, the port last), cumulated: 1 a disc
    (R-MOVE-2), but 2 for the step onto the whirlpool (``whirl_cost_step: enter``) or off it (``leave``),
    X-WHIRL-3."""
    out: list[int] = []
    here = place
    for there in above:
        step = 1
        if whirl is not None:
            on = there if cost_step is WhirlCostStep.ENTER else here
            step = 2 if on == whirl else 1
        out.append((out[-1] if out else 0) + step)
        here = there
    return tuple(out)


def may_stop(left: int, cave: Colour | None, whirlpool: bool) -> bool:
    """Whether a canoe may end its movement on a disc with ``left`` points still to spend: it spends its budget
    exactly (R-MOVE-3), so with none left, or an even number left for gem actions at the ``cave`` beside the disc
    (R-GEM-1); on the whirlpool only with its last point (X-WHIRL-2)."""
    if whirlpool:
        return left == 0
    return left == 0 or (left % 2 == 0 and cave is not None)


def may_enter_port(loaded: int, rules: Ruleset) -> bool:
    """Whether a canoe may paddle into the port (R-MOVE-5), given the colours it loaded this turn: not while
    carrying a gem loaded this turn with ``bank_after_load: false`` (R-GEM-5)."""
    return rules.bank_after_load or not loaded


def banked(bank: Gems, gems: tuple[Colour, ...]) -> Gems:
    """``bank`` with a canoe's cargo banked in the port (R-GEM-5)."""
    if not gems:
        return bank
    counts = list(bank)
    for colour in gems:
        counts[colour - 1] += 1
    return Gems(counts)


def moose_home(moose: Moose | None, holder: tuple[int, int] | None,
               canoe: tuple[int, int]) -> tuple[Moose | None, tuple[int, int] | None]:
    """The moose and its holder after ``canoe`` (player, index) entered the port or went over the falls: a moose it
    held returns to the ruby cave (X-MOOSE-3)."""
    if holder == canoe:
        return Moose.RETURNING, None
    return moose, holder


def pushed_to(below: tuple[str, ...]) -> tuple[str, ...]:
    """Where the whirlpool pushes a canoe that ended its movement on it (X-WHIRL-2): one disc down, into the branch
    its owner picks at a fork (``below``, the discs just below the whirlpool), or over the falls (``fallen``) from
    a last disc."""
    return below or (FALLEN,)


def gems_home(caves: tuple[Gems, ...], gems: tuple[Colour, ...]) -> tuple[Gems, ...]:
    """The caves once the gems of a canoe gone over the falls went back, each to its own cave (R-FLOW-6)."""
    if not gems:
        return caves
    out = list(caves)
    for gem in gems:
        out[gem - 1] = out[gem - 1].plus(gem)
    return tuple(out)


def avoiding_the_falls(options: list[Option], falls: list[bool], rules: Ruleset) -> list[Option]:
    """A canoe's actions with the whirlpool (X-WHIRL-2), ``falls`` saying of each whether the whirlpool pushes the
    canoe over the falls in it: with ``whirl_brink: avoid`` such an action only where every action falls so."""
    if rules.whirl_brink is WhirlBrink.AVOID and any(falls):
        return [o for o, fall in zip(options, falls) if not fall] or options
    return options


# -- after the movement: steals (R-STEAL-1..5, X-DOUBLE-3) ------------------------------------------------------------

def may_steal(carried: tuple[Colour, ...], unloaded: int, double: bool, rules: Ruleset) -> bool:
    """Whether a canoe that paddled up and stopped with its budget spent may steal (R-STEAL-1, R-STEAL-3): an empty
    canoe, or a double canoe with a free place while it moved (X-DOUBLE-3); not after unloading this turn with
    ``steal_after_unload: false`` (R-STEAL-5)."""
    return (not carried or double) and (not unloaded or rules.steal_after_unload)


def victims(canoes: Canoes, thief: int, dest: str,
            moored: frozenset[tuple[int, int]]) -> list[tuple[int, int, tuple[Colour, ...]]]:
    """The canoes a thief of player ``thief`` on ``dest`` may take a gem from, as (player, index, cargo): another
    player's canoe on the disc carrying a gem (R-STEAL-1), not moored (X-CARDS-4)."""
    return [(q, k, gems) for q, states in enumerate(canoes) if q != thief
            for k, (at, gems) in enumerate(states) if at == dest and gems and (q, k) not in moored]


def steal_choices(victims: list[tuple[int, int, tuple[Colour, ...]]],
                  room: int) -> Iterator[tuple[tuple[int, int, Colour], ...]]:
    """Every choice of gems a thief with ``room`` free places takes (R-STEAL-2: one gem from each chosen canoe, as
    many as it has free places, X-DOUBLE-3), as (player, index, colour) per gem, in the order of ``victims``."""

    def pick(start: int, chosen: tuple[tuple[int, int, Colour], ...],
             free: int) -> Iterator[tuple[tuple[int, int, Colour], ...]]:
        if chosen:
            yield chosen
        if free <= 0:
            return
        for v in range(start, len(victims)):
            q, k, gems = victims[v]
            for colour in sorted(set(gems)):
                yield from pick(v + 1, (*chosen, (q, k, colour)), free - 1)

    return pick(0, (), room)


def victim_named(states: tuple[CanoeState, ...], doubles: tuple[bool, ...] | None, k: int, dest: str,
                 colour: Colour) -> tuple[tuple[Colour, ...] | None, str | None]:
    """How a steal names the victim's canoe ``k`` (of the victim's ``states``; ``doubles`` their kinds, None without
    the module): by its cargo where two of the victim's canoes on the disc carry the colour with different cargo, by
    its kind where they carry the same (X-DOUBLE-3); else not at all."""
    gems = states[k][1]
    for j, (at, other) in enumerate(states):
        if j != k and at == dest and colour in other:
            if other != gems:
                return gems, None
            if doubles is not None and doubles[j] != doubles[k]:
                return None, "double" if doubles[k] else "single"
    return None, None


def robbed(canoes: Canoes, chosen: tuple[tuple[int, int, Colour], ...], dest: str, names: Sequence[str],
           doubles: tuple[tuple[bool, ...], ...] | None) -> tuple[tuple[Steal, ...], Canoes]:
    """The steps of the steals ``chosen`` on ``dest`` (each victim's canoe named as :func:`victim_named` says, at the
    moment of its steal) and every player's canoes after them."""
    notes: list[Steal] = []
    for q, k, colour in chosen:
        states = canoes[q]
        at, gems = states[k]
        named, kind = victim_named(states, doubles[q] if doubles is not None else None, k, dest, colour)
        notes.append(Steal(names[q], colour, named, kind))
        left = list(gems)
        left.remove(colour)
        canoes = (*canoes[:q], (*states[:k], (at, tuple(left)), *states[k + 1:]), *canoes[q + 1:])
    return tuple(notes), canoes


# -- after the movement: a trade with Diamond Joe (X-JOE-3) -----------------------------------------------------------

def may_trade(place: str, joe: JoeState | None, paddled: bool) -> bool:
    """Whether a canoe on ``place`` may end its action with a trade with Diamond Joe (X-JOE-3): it ``paddled`` there
    (it moved, and the whirlpool did not push it on, X-WHIRL-2) and stopped on his disc."""
    return joe is not None and paddled and joe[0] == place


def joe_trades(gems: tuple[Colour, ...], joe_gem: Colour | None,
               capacity: int) -> Iterator[tuple[Trade, tuple[Colour, ...], Colour | None]]:
    """Every trade with Diamond Joe (X-JOE-3), as (the trade, the canoe's cargo after it, Joe's gem after it): take
    his gem into a free place, swap one of its gems with his (of another colour), or give one of its gems to an
    empty Joe; free, after its gem actions and its steal."""
    if joe_gem is not None and len(gems) < capacity:
        yield trade(None, joe_gem), tuple(sorted((*gems, joe_gem))), None
    for colour in sorted(set(gems)):
        if colour == joe_gem:
            continue  # a swap is of two different colours
        rest = list(gems)
        rest.remove(colour)
        if joe_gem is not None:
            rest.append(joe_gem)
        yield trade(colour, joe_gem), tuple(sorted(rest)), colour


def clear_caches() -> None:
    """Forget the gem actions worked out (a benchmark's pass then starts as a fresh process would)."""
    gem_runs.cache_clear()
    gem_runs_costing.cache_clear()
