"""The deepening search: the shortest play from a position to one where a target holds, by iterative deepening over
the decisions of each round, pruned by a sound bound on the rounds still needed.

Where the breadth-first search (:mod:`.search`) makes every distinct position a round leads to before it looks at
any, this search walks a round decision by decision — the rescues in seat order from the lifebuoy holder
(R-RESCUE-1), each player's card and turn in turn order (R-TURN-1), the flow's choices (R-FLOW) — as the engine
lists them, and asks the bound after every turn: a whole round of three players is some 200,000 paths, most of which
the bound cuts after the turn that makes them hopeless. Depth ``K`` is explored in full before depth ``K + 1`` is
tried, so the first target met is met in the fewest rounds; a depth is skipped without a search only where the bound
proves that no play reaches the target in so few rounds. Positions met again with no more rounds left than before are
not walked twice (one table for the starts of rounds, one for positions within a round).

The bound (:func:`rounds_needed`) is read from the query: the goal (R-END-1), a winner, the end of the game, a bank of
at least some gems — from :func:`..solver.answers.bank_reach`, the gems a player can bank at most in so many rounds in
a relaxation of the rules that every real play is one of; ``and`` takes the larger, ``or`` the smaller; any other
query gets none (0: every position may meet it). With expansion modules the bound is
:func:`.bounds.module_reach`'s wider relaxation; with Joe (``x_joe``) there is none.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterator, Protocol, Sequence

from niagara_solver.engine.flow import flow_choices, flow_value
from niagara_solver.engine.rescue import apply_rescue, begin_turns, rescue_options
from niagara_solver.engine.round import RoundRecord, next_round, play_round
from niagara_solver.engine.turns import legal_turns
from niagara_solver.games.bounds import banked_within, bounded, lost_together, query_rounds
from niagara_solver.model.atoms import Card, Phase
from niagara_solver.model.errors import NiagaraError
from niagara_solver.model.goal import is_finished
from niagara_solver.model.limits import time_left
from niagara_solver.model.notation import Rescue, Steal, Turn
from niagara_solver.model.position import Position
from niagara_solver.model.query import (Query, RoundEvents, Tally)
from niagara_solver.solver.answers import could_reach_goal

#: Where the bound gives up counting: a target needing more rounds than any search here explores.
NEVER = 1 << 20


# -- the bound ----------------------------------------------------------------------------------------------------

def rounds_needed(query: Query, pos: Position, limit: int, tally: Tally | None = None) -> int:
    """A lower bound on the round ends still to come before ``query`` can hold, counted from ``pos`` (a position at
    the start of a round or within one; the end of the round under way is the first), at most ``limit + 1``
    ("not within ``limit``"). 0 for a position at the start of a round where the query may hold already. With the
    ``tally`` since the setup, the gems gone over the falls are bounded too (base game only)."""
    if not bounded(pos.ruleset):
        return 0  # Joe's trades are in no relaxation (games/bounds.py, RELAXED_MODULES)
    lost = None
    if tally is not None and not pos.ruleset.modules:
        def lost(seat: int | None, n: int) -> int:
            return _rounds_to_lose(pos, seat, n, tally, limit)
    return query_rounds(query.root, pos, lambda p: _rounds_to(pos, p, None, None, limit),
                        lambda p, gems, colour: _rounds_to(pos, p, gems, colour, limit), that=None, lost=lost)


def _rounds_to_lose(pos: Position, seat: int | None, n: int, tally: Tally, limit: int) -> int:
    """The fewest round ends before the gems gone over the falls on ``seat``'s canoes (None: every player's) since
    the setup can number ``n``, by :func:`.bounds.lost_together`; ``limit + 1`` when not within ``limit``."""
    seats = range(len(pos.players)) if seat is None else (seat,)
    have = sum(tally.lost[s] for s in seats)
    if have >= n and not pos.acted and pos.phase is Phase.CARDS:
        return 0
    # The bound grows with the rounds: "not within the limit" in one question, else the fewest rounds by bisection.
    if have + lost_together(pos, seats, limit) < n:
        return limit + 1
    low, high = 1, limit
    while low < high:
        middle = (low + high) // 2
        if have + lost_together(pos, seats, middle) >= n:
            high = middle
        else:
            low = middle + 1
    return low


def _rounds_to(pos: Position, p: int, gems: int | None, colour: object, limit: int) -> int:
    """The fewest round ends before player ``p``'s bank reaches the goal (``gems`` None) or holds ``gems`` gems (of
    ``colour``), by :func:`bank_reach`; ``limit + 1`` when not within ``limit``. Remembered per board and rules: it
    reads the player, whether it acted and whether the round is at its start (what :func:`bank_reach` reads), so
    after one player's turn the others' bounds are not counted again (they were 80% of a walk's time)."""
    at_start = not pos.acted and pos.phase is Phase.CARDS
    table = _table(pos)
    key = (pos.players[p], p in pos.acted, at_start, gems, colour, limit)
    known = table.get(key)
    if known is None:
        if len(table) >= 1 << 18:
            table.clear()
        known = table[key] = _count_rounds_to(pos, p, gems, colour, limit, at_start)
    return known


#: The remembered bounds of :func:`_rounds_to`, per board and rules (held here, so that their ids stay theirs).
_TABLES: dict[tuple[int, int], tuple[object, object, dict[object, int]]] = {}


def _table(pos: Position) -> dict[object, int]:
    key = (id(pos.board), id(pos.ruleset))
    entry = _TABLES.get(key)
    if entry is None or entry[0] is not pos.board or entry[1] is not pos.ruleset:
        if len(_TABLES) >= 8:
            _TABLES.clear()
        entry = _TABLES[key] = (pos.board, pos.ruleset, {})
    return entry[2]


def _count_rounds_to(pos: Position, p: int, gems: int | None, colour: object, limit: int, at_start: bool) -> int:
    bank = pos.players[p].bank
    have = bank.total if colour is None else bank.get(colour)  # type: ignore[arg-type]

    def enough(extra: int) -> bool:
        return could_reach_goal(pos, p, extra) if gems is None else have + extra >= gems

    if at_start and enough(0):
        return 0
    for rounds in range(1, limit + 1):
        if enough(banked_within(pos, p, rounds)):
            return rounds
    return limit + 1


class Target(Protocol):
    """What the deepening search looks for: a condition on the position at the end of a round (after a round with
    ``events``, with ``tally`` since the start), and a sound lower bound on the round ends still needed."""

    @property
    def uses_events(self) -> bool: ...

    @property
    def uses_tally(self) -> bool: ...

    def holds(self, pos: Position, events: RoundEvents | None = None, tally: Tally | None = None) -> bool: ...

    def rounds_needed(self, pos: Position, limit: int) -> int: ...


@dataclass(frozen=True)
class QueryTarget:
    """A query as a target: the query's own condition, the bound of :func:`rounds_needed`."""

    query: Query

    @property
    def uses_events(self) -> bool:
        return self.query.uses_events

    @property
    def uses_tally(self) -> bool:
        return self.query.uses_tally

    def holds(self, pos: Position, events: RoundEvents | None = None, tally: Tally | None = None) -> bool:
        return self.query.holds(pos, events, tally)

    def rounds_needed(self, pos: Position, limit: int, tally: Tally | None = None) -> int:
        return rounds_needed(self.query, pos, limit, tally)


# -- the search ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RoundChoices:
    """The decisions of one round, as :func:`..engine.round.play_round` takes them."""

    rescues: tuple[tuple[int, Rescue], ...]
    cards: tuple[tuple[int, Card], ...]
    turns: tuple[tuple[int, Turn], ...]
    branches: tuple[object, ...]
    pushes: tuple[str, ...]


@dataclass
class DeepeningResult:
    """What the deepening search found: the rounds of the shortest play to the target (None: none within
    ``completed`` rounds, or the search stopped), the play, and what the search did."""

    rounds: int | None
    play: tuple[RoundChoices, ...]
    completed: int
    #: The depths the bound excluded without a search: no play meets the target in fewer rounds than this.
    excluded_below: int
    positions: int
    seconds: float
    stopped: str | None = None
    records: tuple[RoundRecord, ...] = field(default=())


def dive_plans(players: int) -> list[tuple[int, frozenset[int]]]:
    """The dives before each depth's full walk, in order: (the focus player, the seats whose every option is walked).
    First each player alone, then with more than two players each player with each partner (with two, a pair is
    the full walk)."""
    plans = [(focus, frozenset({focus})) for focus in range(players)]
    if players > 2:
        plans += [(focus, frozenset({focus, partner}))
                  for focus in range(players) for partner in range(players) if partner != focus]
    return plans


class _Stop(Exception):
    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


#: Told (the depth walked, the positions met so far, the seconds, the walk under way) after each depth walked in full
#: (the walk None), and every :attr:`Deepening.report_seconds` during a walk ("the dive of red and blue",
#: "the full walk"): a search of ten minutes shows where it is.
Progress = Callable[[int, int, float, "str | None"], None]


class Deepening:
    """Iterative deepening from ``start`` (a position at the start of a round) to a position where ``target`` (a
    :class:`Target`, or a query) holds at the end of a round, within ``max_rounds``.

    ``max_positions`` bounds the positions the tables keep (then the search stops: UNKNOWN with the depth it
    completed); the command's time limit stops it too."""

    def __init__(self, start: Position, target: Target | Query, max_rounds: int, max_positions: int = 2_000_000,
                 progress: Progress | None = None, use_bound: bool = True, dives: bool = True) -> None:
        self.start = start
        self.query: Target = QueryTarget(target) if isinstance(target, Query) else target
        self.max_rounds = max_rounds
        self.max_positions = max_positions
        self.progress = progress
        self.use_bound = use_bound
        self.dives = dives
        self.positions = 0
        #: During a dive, the players whose every option is walked (the others take their first); else None.
        self._walked: frozenset[int] | None = None
        #: During a dive, the player the others' first options are ranked for.
        self._focus = 0
        #: The seats whose every option the dive that found the play returned walked, if a dive did.
        self.found_by: frozenset[int] | None = None
        self._starts: dict[object, int] = {}
        self._within: dict[object, int] = {}
        self._began = 0.0
        #: How often a walk under way is reported (seconds; read every 64 positions), and what is walked: the depth,
        #: the walk's name.
        self.report_seconds = 5.0
        self._walking: tuple[int, str] = (0, "")
        self._reported = 0.0

    def run(self) -> DeepeningResult:
        """Deepen one round at a time until the target is met, the rounds run out or the search stops."""
        self._began = self._reported = time.monotonic()
        n = len(self.start.players)
        tally = Tally.zero(n)
        if self.query.holds(self.start, RoundEvents.none(n), tally):
            return self._result(0, (), 0, 0)
        first = 1
        if self.use_bound:
            first = max(1, min(self._bound(self.start, self.max_rounds, tally), self.max_rounds + 1))
        completed = first - 1
        for depth in range(first, self.max_rounds + 1):
            try:
                play = self._dives(depth, tally) if self.dives else None
                if play is None:
                    self._starts.clear()
                    self._within.clear()
                    self._walking = (depth, "the full walk")
                    play = self._round(self.start, 0, depth, tally, ())
            except _Stop as stop:
                return self._result(None, (), completed, first - 1, stop.why)
            if play is not None:
                return self._result(depth, play, depth - 1, first - 1)
            completed = depth
            if self.progress is not None:
                self.progress(depth, self.positions, time.monotonic() - self._began, None)
        return self._result(None, (), completed, first - 1)

    def _dives(self, depth: int, tally: Tally) -> tuple[RoundChoices, ...] | None:
        """Before depth ``depth`` is walked in full, the dives (:func:`dive_plans`): each walks every option of a
        player or two and gives each other player one option alone (the rescue the engine lists first; the card and
        turn after which the bound gives the focus player's goal the fewest rounds, the target's bound breaking
        ties). A dive walks a part of the plays of ``depth`` rounds, so a play it finds is a play of the game, and
        it is as short as any: every shallower depth was walked in full or excluded by the bound before this one. A
        dive that finds nothing proves nothing; the full walk follows. Where a player or two can meet the target
        with the others out of the way (the fastest win), a dive finds it without walking the others' choices,
        which multiply the walk: the fastest win of three players is found by the dive of red and blue, after
        some 300,000 positions, where the full walk ran out of 1,500 s (docs/GAMES.md)."""
        names = [p.name for p in self.start.players]
        for focus, walked in dive_plans(len(self.start.players)):
            self._focus, self._walked = focus, walked
            seats = [focus, *sorted(walked - {focus})]  # the focus first: (red, blue) and (blue, red) are two dives
            self._walking = (depth, "the dive of " + " and ".join(names[i] for i in seats))
            self._starts.clear()
            self._within.clear()
            try:
                play = self._round(self.start, 0, depth, tally, ())
            finally:
                self._walked = None
            if play is not None:
                self.found_by = walked
                return play
        return None

    def _result(self, rounds: int | None, play: tuple[RoundChoices, ...], completed: int, excluded: int,
                stopped: str | None = None) -> DeepeningResult:
        records = replay_choices(self.start, play) if play else ()
        return DeepeningResult(rounds, play, completed, excluded, self.positions, time.monotonic() - self._began,
                               stopped, records)

    def _bound(self, pos: Position, left: int, tally: Tally) -> int:
        if not self.use_bound:
            return 0
        if self.query.uses_tally:  # a count since the setup: the bound reads how far it has come
            return self.query.rounds_needed(pos, left, tally)  # type: ignore[call-arg]
        return self.query.rounds_needed(pos, left)

    def _visit(self, table: dict[object, int], key: object, left: int) -> bool:
        """True the first time a position is met with ``left`` rounds or more to go (else it was walked already)."""
        known = table.get(key)
        if known is not None and known >= left:
            return False
        if known is None:
            self.positions += 1
            if len(self._starts) + len(self._within) >= self.max_positions:
                raise _Stop(f"the tables hold {self.max_positions:,} positions (the memory limit)")
            if self.positions % 64 == 0:  # a few hundred positions a second: the clock read every tenth of one
                now = time.monotonic()
                if self.progress is not None and now - self._reported >= self.report_seconds:
                    self._reported = now
                    self.progress(self._walking[0], self.positions, now - self._began, self._walking[1])
                left_s = time_left(None)
                if left_s is not None and left_s <= 0:
                    raise _Stop("the time limit")
        table[key] = left
        return True

    # One round, decision by decision. Each returns the play from here to the target, or None.

    def _round(self, pos: Position, done: int, depth: int, tally: Tally,
               play: tuple[RoundChoices, ...]) -> tuple[RoundChoices, ...] | None:
        left = depth - done
        if left <= 0 or is_finished(pos):
            return None  # the game is over: no round follows (R-END-2)
        key = (pos, tally) if self.query.uses_tally else pos
        if not self._visit(self._starts, key, left):
            return None
        if self._bound(pos, left, tally) > left:
            return None
        return self._rescue(pos, 0, (), done, depth, tally, play)

    def _rescue(self, pos: Position, i: int, rescues: tuple[tuple[int, Rescue], ...], done: int, depth: int,
                tally: Tally, play: tuple[RoundChoices, ...]) -> tuple[RoundChoices, ...] | None:
        order = pos.turn_order()
        if i == len(order):
            turns_start = begin_turns(pos)
            return self._turn(turns_start, (), (), rescues, done, depth, tally, play)
        p = order[i]
        options = rescue_options(pos, p)
        if self._walked is not None and p not in self._walked:
            options = options[:1]
        for option in options:
            found = self._rescue(apply_rescue(pos, p, option), i + 1, (*rescues, (p, option)), done, depth, tally,
                                 play)
            if found is not None:
                return found
        return None

    def _turn(self, pos: Position, cards: tuple[tuple[int, Card], ...], turns: tuple[tuple[int, Turn], ...],
              rescues: tuple[tuple[int, Rescue], ...], done: int, depth: int, tally: Tally,
              play: tuple[RoundChoices, ...]) -> tuple[RoundChoices, ...] | None:
        p = pos.next_to_act()
        if p is None:
            return self._flow(pos, cards, turns, rescues, done, depth, tally, play)
        left = depth - done
        player = pos.players[p]
        options: list[tuple[int, Card, Turn, Position]] = []
        for card in player.playable:
            for outcome in legal_turns(pos, p, card):
                after = outcome.position
                need = self._bound(after, left, tally)
                if need > left:
                    continue
                options.append((need, card, outcome.turn, after))
        options.sort(key=lambda o: o[0])  # the most promising first: the bound's fewest rounds (stable otherwise)
        if self._walked is not None and p not in self._walked:
            focus = self._focus  # min keeps the first of equals: the target's bound breaks ties (the sort above)
            if options and bounded(pos.ruleset):  # Joe's trades are in no relaxation
                options = [min(options, key=lambda o: _rounds_to(o[3], focus, None, None, left))]
            options = options[:1]
        for _, card, turn, after in options:
            events = _steals(turns, p, turn) if self.query.uses_events else None
            key = (after, tally, events, rescues) if self.query.uses_events or self.query.uses_tally else after
            if not self._visit(self._within, key, left):
                continue
            found = self._turn(after, (*cards, (p, card)), (*turns, (p, turn)), rescues, done, depth, tally, play)
            if found is not None:
                return found
        return None

    def _flow(self, pos: Position, cards: tuple[tuple[int, Card], ...], turns: tuple[tuple[int, Turn], ...],
              rescues: tuple[tuple[int, Rescue], ...], done: int, depth: int, tally: Tally,
              play: tuple[RoundChoices, ...]) -> tuple[RoundChoices, ...] | None:
        steps = flow_value(pos)
        counted = self.query.uses_events or self.query.uses_tally
        for outcome in flow_choices(pos, steps):
            nxt = next_round(outcome.position, pos)
            choices = RoundChoices(rescues, cards, turns, outcome.choices, outcome.pushes)
            # A target that reads neither the round's events nor the tally is asked without them (counting them was
            # a tenth of a walk without a bound).
            events = round_events(pos, outcome.position, rescues, turns) if counted else None
            after_tally = tally.after(events) if events is not None else tally
            if self.query.holds(nxt, events, after_tally):
                return (*play, choices)
            found = self._round(nxt, done + 1, depth, after_tally, (*play, choices))
            if found is not None:
                return found
        return None


def _steals(turns: Sequence[tuple[int, Turn]], p: int, turn: Turn) -> tuple[int, ...]:
    """Steals made so far this round, per seat (for the key of a position within a round)."""
    counts: dict[int, int] = {}
    for seat, t in (*turns, (p, turn)):
        counts[seat] = counts.get(seat, 0) + _count_steals(t)
    return tuple(sorted(counts.items()))  # type: ignore[arg-type]


def _count_steals(turn: Turn) -> int:
    return sum(1 for action in turn.actions for step in action.steps if isinstance(step, Steal))


def round_events(before_flow: Position, after_flow: Position, rescues: Sequence[tuple[int, Rescue]],
                 turns: Sequence[tuple[int, Turn]]) -> RoundEvents:
    """What a round did, per seat: the steals of its turns (R-STEAL), the canoes that went over the falls in its flow
    and the gems they carried (R-FLOW-6), the canoes its rescues brought back (R-RESCUE-1)."""
    n = len(before_flow.players)
    steals = [0] * n
    for seat, turn in turns:
        steals[seat] += _count_steals(turn)
    falls = [0] * n
    lost = [0] * n
    for seat in range(n):
        before = before_flow.players[seat].canoes
        after = after_flow.players[seat].canoes
        fell_before = sum(1 for c in before if c.fallen)
        fell_after = sum(1 for c in after if c.fallen)
        falls[seat] = fell_after - fell_before
        if falls[seat]:
            carried = sum(len(c.gems) for c in before)
            lost[seat] = carried - sum(len(c.gems) for c in after)
    rescued = [0] * n
    for seat, rescue in rescues:
        rescued[seat] += len(rescue.payments)
    return RoundEvents(tuple(steals), tuple(falls), tuple(rescued), tuple(lost))


def replay_choices(start: Position, play: Sequence[RoundChoices]) -> tuple[RoundRecord, ...]:
    """Each round of a play replayed by the engine (:func:`..engine.round.play_round`): the records a trace holds.
    A play the engine refuses raises its error: the search made it from the engine's own lists, so it never should."""
    records = []
    pos = start
    for choices in play:
        try:
            record = play_round(pos, dict(choices.cards), dict(choices.turns), dict(choices.rescues),
                                list(choices.branches) if choices.branches else None,  # type: ignore[arg-type]
                                list(choices.pushes) if choices.pushes else None)
        except NiagaraError as error:  # pragma: no cover - a disagreement between the engine's list and its check
            raise AssertionError(f"round {pos.round} of the play found is refused by the engine: {error}") from error
        records.append(record)
        pos = record.end
    return tuple(records)


def plays(records: Sequence[RoundRecord]) -> Iterator[Position]:
    """The positions at the end of each round of a play."""
    for record in records:
        yield record.end
