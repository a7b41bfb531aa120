"""Whole-game questions over the engine's rounds: can some play reach a position where a target holds, and in how
few rounds? (``reach``; ``invariant`` is the reach of its negation.)

The search is breadth-first by rounds, as an explicit-state model checker explores (TLC): level ``d`` holds every
distinct position ``d`` rounds after the start (:func:`.rounds.rounds`: every rescue, card, turn order, turn, branch
and push the rules leave open, all players' choices together). The target is asked of every position as it is
found, with what its round did (``RoundEvents``) and, when it reads them, the counts kept since the start (``Tally``):
the first level where it holds is the fewest rounds, every play of the rounds before explored. Positions are told
apart by their value (canonical, hashable: ``Position``), with the tally when the target reads it; each is stored
once with a pointer to the position it was first found from, and the shortest trace is rebuilt by following the
pointers back and finding each round again among its parent's rounds. The last level is checked, never stored.

Sound pruning (:mod:`.bounds`): with a lower bound on the rounds still needed before the target can hold, a
position at depth ``g`` is dropped when ``g + bound > K``; iterative deepening (K = the start's bound, then one
more each time) proves "none within K - 1" by exhausting the pruned space, and the last level is dived into, the
positions whose bound is smallest first.

Limits: the command's time limit (:func:`.limits.check_time`) and a number of stored positions
(:data:`.limits.MAX_REACH_POSITIONS`): past either the answer is UNKNOWN with the depth completed, never a guess.

Several processes (``jobs``, or a Dask cluster: :class:`..jobs.Workers`): each level's positions are split into
parts by the hash of their key, as TLC splits its states by fingerprint; each part's rounds are listed, and the
target (and the bound) asked of them, in a process of its own (:func:`_part_job`), and this process merges what
they send back in the order of the one-process walk — the same dedup, the same counts, the same first position
where the target holds and the same trace. The stored positions, the parent pointers and the limits stay here; the
positions travel and are stored packed (:func:`.position.pack`: plain tuples, several times cheaper to pickle than
the position's objects).

Player symmetry merges nothing here: from one start every position of a level has the same round and the same
lifebuoy holder (R-BUOY-1), so a rotation of the seats that keeps the turn order (the lifebuoy holder first) is the
identity, and positions of different levels differ in their round and in the size of every hand (R-CARD-2) until
the hands are refilled (docs/GAMES.md, "Symmetry").
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, NamedTuple, Protocol, Sequence

from niagara_solver.engine.round import RoundRecord
from niagara_solver.games.rounds import RoundStep, rounds
from niagara_solver.jobs import Task, Workers
from niagara_solver.model.errors import InputError
from niagara_solver.model.limits import MAX_REACH_POSITIONS, OutOfTime, check_time
from niagara_solver.model.board import Board
from niagara_solver.model.position import Packed, Position, pack, unpack
from niagara_solver.model.query import Query, RoundEvents, Tally
from niagara_solver.model.ruleset import Ruleset
from niagara_solver.model.verdict import Verdict


class Target(Protocol):
    """What the search asks of a position: a position predicate (``Query`` of :mod:`..model.query` is one)."""

    @property
    def named(self) -> frozenset[str]:
        """The player names the target mentions (empty: it treats players alike)."""

    @property
    def uses_events(self) -> bool:
        """Does it read what the last round did (stole, fell, rescued)?"""

    @property
    def uses_tally(self) -> bool:
        """Does it read counts since the start (lost)?"""

    def holds(self, pos: Position, events: RoundEvents | None = None, tally: Tally | None = None) -> bool:
        """Does it hold in ``pos``, reached by a round that did ``events``, with ``tally`` since the start?"""


#: A lower bound on the rounds before a target can hold, from a position at the start of a round (0: none known).
Bound = Callable[[Position], int]


@dataclass(frozen=True)
class Level:
    """Progress after a level: the rounds explored, the distinct positions stored and the successors listed so far (as
    TLC says distinct and generated states; the last level is listed, never stored), the next level's size, the
    successors listed per second, the memory."""

    depth: int
    distinct: int
    generated: int
    frontier: int
    per_second: float
    memory_mb: float
    #: The budget of rounds of the iteration under way (iterative deepening), else None.
    budget: int | None = None
    pruned: int = 0
    #: The walk under way within the budget's depth (the deepening walk's dives and full walk), else None.
    walk: str | None = None


@dataclass(frozen=True)
class TraceRound:
    """One round of a trace: the choices (:class:`.rounds.RoundStep`) and the position it leads to."""

    step: RoundStep
    position: Position

    def record(self, start: Position) -> RoundRecord:
        """The round replayed from ``start`` by the engine (:func:`.round.play_round`)."""
        return self.step.replay(start)


@dataclass
class ReachResult:
    """The answer of :func:`reach`.

    ``verdict``: CONFIRMED (the target is reached), REFUTED (not within ``limit`` rounds: every play explored up to
    there, with sound pruning only) or UNKNOWN (time or memory ran out: ``stopped`` says which, ``depth`` how many
    rounds were fully explored). ``rounds``: the fewest rounds to a position where it holds, proved minimal;
    ``trace``: one shortest play from ``start``."""

    verdict: Verdict
    start: Position
    limit: int
    rounds: int | None = None
    trace: list[TraceRound] = field(default_factory=list)
    depth: int = 0
    #: Distinct positions stored and successors listed, over every iteration.
    distinct: int = 0
    generated: int = 0
    seconds: float = 0.0
    stopped: str | None = None
    #: Every reachable position was explored before the limit (no play goes on: each ended, R-END-2).
    exhausted: bool = False
    pruned: int = 0
    bounded: bool = False
    #: Rounds 1..excluded: the bound alone proves no play of so few rounds reaches the target (the deepening walk).
    excluded: int = 0
    #: The seats whose every option the dive that found the trace walked (docs/GAMES.md, "Dives"); None: the full
    #: walk found it, or no dive ran.
    dived: tuple[int, ...] | None = None

    @property
    def exit_status(self) -> int:
        """0 reached, 1 not within the rounds, 3 unknown (as ``check`` and ``prove``)."""
        return self.verdict.exit_status

    @property
    def end(self) -> Position | None:
        """The position the trace ends at (None without a trace)."""
        return self.trace[-1].position if self.trace else (self.start if self.rounds == 0 else None)


def memory_mb() -> float:
    """The process's resident memory now, in MB (0 where it cannot be read)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 1e6
    except (OSError, ValueError, IndexError):
        return 0.0


class _Found(Exception):
    def __init__(self, key: Any, child: Position, step: RoundStep, depth: int) -> None:
        super().__init__()
        self.key, self.child, self.step, self.depth = key, child, step, depth


class _Full(Exception):
    """The stored positions reached the limit."""


def _key(target: Target, pos: Position | Packed, tally: Any) -> Any:
    """What tells two positions of a level apart: the position (or packed), with the tally when the target reads
    it."""
    return (pos, tally) if target.uses_tally else pos


def _holds(target: Target, pos: Position, step: RoundStep | None, tally: Any) -> bool:
    """Does ``target`` hold in ``pos``, reached by ``step`` (None: the start) with ``tally`` since the start?"""
    if not (target.uses_events or target.uses_tally):
        return target.holds(pos)
    events = step.events if step is not None else RoundEvents.none(len(pos.players))
    return target.holds(pos, events, tally)


class _Row(NamedTuple):
    """A successor as a part's process tells it (:func:`_part_job`): the position packed (:func:`.position.pack`)
    and its tally, whether the target holds there (then with the position itself and the round that leads to it),
    and its bound (0 without one, or where it is not asked)."""

    packed: Packed | None
    after: Any
    holds: bool
    bound: int
    child: Position | None = None
    step: RoundStep | None = None


#: A successor of the last level where the target does not hold: only counted (it is never stored).
_COUNTED = _Row(None, None, False, 0)

#: A position of a level: the position (packed, when the level is listed by parts), its tally (or None), its key and
#: its bound (0 without one).
_Item = tuple[Any, Any, Any, int]
#: A successor as the merge reads it: what its key is made of (the position, or packed), its tally, the position
#: and the round to it, and what a part's process asked of it (None: ask here).
_Child = tuple[Any, Any, Position | None, RoundStep | None, _Row | None]


def _part_job(target: Target, bound: Bound | None, last: bool, board: Board, ruleset: Ruleset,
              items: Sequence[tuple[Packed, Any]]) -> dict[str, Any]:
    """One part of a level, in a process of its own: each position's rounds in the engine's order, the target
    asked of every distinct successor of the part (distinct with its counts, when the target reads them), and its
    bound unless it is on the last level or the target holds there.

    ``told``: per position, the rows of its successors in order (``rows`` indices); on the last level only how many
    successors it has where the target does not hold. Listing stops at the part's first successor where the target
    holds (``found``: then the last position told ends with it, and on the last level it is ``rows[0]``): the
    merge stops there too, or sooner, at a successor of another part earlier in the level."""
    reads = target.uses_events or target.uses_tally
    rows: list[_Row] = []
    index: dict[Any, int] = {}
    told: list[Any] = []
    listed = 0
    for code, tally in items:
        check_time()
        ids: list[int] = []
        counted = 0
        for child, step in rounds(unpack(code, board, ruleset), events=reads):
            listed += 1
            if listed % 64 == 0:
                check_time()  # a position's rounds and their bounds may take seconds
            after = tally.after(step.events) if tally is not None else None
            ckey = _key(target, child, after)
            seen = (ckey, step.counts) if target.uses_events else ckey
            r = index.get(seen)
            if r is None:
                holds = _holds(target, child, step, after)
                if last and not holds:
                    counted += 1
                    continue
                if holds:
                    row = _Row(pack(child), after, True, 0, child, step)
                else:
                    row = _Row(pack(child), after, False, bound(child) if bound is not None else 0)
                r = index[seen] = len(rows)
                rows.append(row)
            elif last:
                counted += 1  # a successor asked before, where the target does not hold
                continue
            if rows[r].holds:
                told.append(counted if last else [*ids, r])
                return {"told": told, "rows": rows, "found": True}
            ids.append(r)
        told.append(counted if last else ids)
    return {"told": told, "rows": [] if last else rows, "found": False}


class _Parts:
    """A level listed by parts (:func:`_part_job`), read back position by position in the level's order."""

    def __init__(self, workers: Workers, target: Target, bound: Bound | None, last: bool, start: Position,
                 frontier: list[_Item]) -> None:
        n = workers.width
        parts: list[list[tuple[Packed, Any]]] = [[] for _ in range(n)]
        self.where: list[tuple[int, int]] = []
        for code, tally, key, _ in frontier:
            part = hash(key) % n  # this process's hash: the parts need only be fixed for this level
            self.where.append((part, len(parts[part])))
            parts[part].append((code, tally))
        busy = [p for p in range(n) if parts[p]]
        results = workers.run([Task(_part_job, (target, bound, last, start.board, start.ruleset, parts[p]))
                               for p in busy])
        self.results = dict(zip(busy, results))
        self.last = last

    def children(self, i: int) -> Iterator[_Child]:
        """The successors of the level's ``i``-th position, in the order its rounds were listed."""
        part, j = self.where[i]
        result = self.results[part]
        told, rows = result["told"], result["rows"]
        if j >= len(told):  # pragma: no cover - the merge stops at the part's first hit, the last position told
            raise AssertionError("a position past where its part stopped was read")
        if self.last:
            for _ in range(told[j]):
                yield None, None, None, None, _COUNTED
            if result["found"] and j == len(told) - 1:
                row = rows[0]
                yield row.packed, row.after, row.child, row.step, row
            return
        for r in told[j]:
            row = rows[r]
            yield row.packed, row.after, row.child, row.step, row


class _Search:
    """One breadth-first search with a budget of rounds (and, with a bound, pruning); with ``workers``, each level
    listed by parts in their processes and merged here, the positions kept packed (module docstring)."""

    def __init__(self, start: Position, target: Target, budget: int, bound: Bound | None, max_positions: int,
                 progress: Callable[[Level], None] | None, began: float, iteration: int | None,
                 workers: Workers | None = None) -> None:
        self.start, self.target, self.budget, self.bound = start, target, budget, bound
        self.max_positions, self.progress, self.began, self.iteration = max_positions, progress, began, iteration
        self.workers = workers
        self.events = target.uses_events or target.uses_tally
        self.parents: dict[Any, Any] = {}
        self.distinct = 0
        self.generated = 0
        self.pruned = 0
        self.depth = 0  # levels fully checked

    def key(self, pos: Position, tally: Any) -> Any:
        """The key ``pos`` is stored under: packed when the levels are listed by parts."""
        return _key(self.target, pos if self.workers is None else pack(pos), tally)

    def holds(self, pos: Position, step: RoundStep | None, tally: Any) -> bool:
        return _holds(self.target, pos, step, tally)

    def _rounds(self, pos: Position, tally: Any) -> Iterator[_Child]:
        """The successors of ``pos``, listed here: the target and the bound are asked of them by the merge."""
        for child, step in rounds(pos, events=self.events):
            yield child, tally.after(step.events) if tally is not None else None, child, step, None

    def run(self) -> _Found | None:
        start = self.start
        tally = Tally.zero(len(start.players)) if self.target.uses_tally else None
        root = self.key(start, tally)
        self.parents[root] = None
        self.distinct = 1
        if self.holds(start, None, tally):
            raise _Found(None, start, None, 0)  # type: ignore[arg-type]
        frontier: list[_Item] = [(start if self.workers is None else pack(start), tally, root, 0)]
        for depth in range(1, self.budget + 1):
            last = depth == self.budget
            if last and self.bound is not None:  # the dive: the positions nearest the target first
                frontier.sort(key=lambda item: item[3])
            parts = (_Parts(self.workers, self.target, self.bound, last, start, frontier)
                     if self.workers is not None else None)
            nxt: list[_Item] = []
            for i, (pos, tally, key, _) in enumerate(frontier):
                check_time()
                for kept, after, child, step, asked in (self._rounds(pos, tally) if parts is None
                                                        else parts.children(i)):
                    # kept: the successor as stored (the position, or packed); asked: the part's answers, if any
                    self.generated += 1
                    if self.generated % 64 == 0:
                        check_time()  # a position's rounds and their bounds may take seconds
                    if not last and not self.target.uses_events and _key(self.target, kept, after) in self.parents:
                        continue  # found before, and asked then (the target reads nothing of the round)
                    if self.holds(child, step, after) if asked is None else asked.holds:  # type: ignore[arg-type]
                        raise _Found(key, child, step, depth)  # type: ignore[arg-type]
                    if last:
                        continue
                    ckey = _key(self.target, kept, after)
                    if ckey in self.parents:
                        continue
                    b = 0
                    if self.bound is not None:
                        b = self.bound(child) if asked is None else asked.bound  # type: ignore[arg-type]
                        if depth + b > self.budget:
                            self.pruned += 1
                            continue
                    self.parents[ckey] = key
                    self.distinct += 1
                    if len(self.parents) > self.max_positions:
                        raise _Full()
                    nxt.append((kept, after, ckey, b))
            self.depth = depth
            frontier = nxt
            self._report(depth, len(nxt))
            if not frontier and not last:
                break
        return None

    def _report(self, depth: int, frontier: int) -> None:
        if self.progress is None:
            return
        seconds = max(time.perf_counter() - self.began, 1e-9)
        self.progress(Level(depth, self.distinct, self.generated, frontier, self.generated / seconds, memory_mb(),
                            self.iteration, self.pruned))

    def trace(self, found: _Found) -> list[TraceRound]:
        """The rounds from the start to the position found: the parent pointers back, each round found again."""
        if found.key is None:
            return []
        keys = [found.key]
        while (parent := self.parents[keys[-1]]) is not None:
            keys.append(parent)
        keys.reverse()
        out: list[TraceRound] = []
        pos = self.start
        tally = Tally.zero(len(pos.players)) if self.target.uses_tally else None
        for want in keys[1:]:
            for child, step in rounds(pos, events=self.events):
                after = tally.after(step.events) if tally is not None else None
                if self.key(child, after) == want:
                    out.append(TraceRound(step, child))
                    pos, tally = child, after
                    break
            else:  # pragma: no cover - the rounds of a position are the same each time they are listed
                raise AssertionError("a stored position is not found again among its parent's rounds")
        out.append(TraceRound(found.step, found.child))
        return out


def reach(start: Position, target: Target, rounds_limit: int, *, bound: Bound | None = None,
          max_positions: int = MAX_REACH_POSITIONS, progress: Callable[[Level], None] | None = None,
          walk: str = "levels", jobs: int = 1, scheduler: str | None = None) -> ReachResult:
    """Does some play from ``start`` reach, within ``rounds_limit`` rounds, a position where ``target`` holds?

    Without ``bound``: one breadth-first search to ``rounds_limit`` levels. With ``bound`` (a lower bound on the rounds
    still needed, sound: :mod:`.bounds`): iterative deepening, budgets K from the start's bound up to the limit, each a
    breadth-first search that drops a position at depth ``g`` once ``g + bound > K``. Either way the answer's round
    count is the fewest: a shorter play would have been found by an earlier level (or iteration), every position on
    it kept by the bound. With ``walk="decisions"`` and a query with a bound, the deepening search of
    :mod:`.deepen` answers instead: each budget walked decision by decision, depth first, cut after every turn by
    its own bound (the same fewest rounds: tests/test_deepen.py holds the two to it). Past the time limit or
    ``max_positions`` stored positions the verdict is UNKNOWN with the depth completed (the rounds within which the
    target was proved not to hold).

    ``jobs`` > 1 (local processes) or ``scheduler`` (a Dask cluster) list each level by parts in other processes
    (module docstring): the same answer, counts and trace; ``target`` and ``bound`` must then pickle (a ``Query``
    and :func:`.bounds.query_bound`'s bound do). The deepening walk runs in one process: with it, either is refused
    (docs/GAMES.md, "Several processes")."""
    began = time.perf_counter()
    if bound is not None and walk == "decisions" and isinstance(target, Query):
        if jobs > 1 or scheduler:
            raise InputError("--scheduler" if scheduler else "--jobs",
                             "the decisions walk (the default for a target with a bound) runs in one process; give "
                             "--walk levels to split each level across processes", "FORMAT")
        return _deepened(start, target, rounds_limit, max_positions, progress, began)
    with Workers(jobs, scheduler) as workers:
        return _levels(start, target, rounds_limit, bound, max_positions, progress, began,
                       workers if jobs > 1 or scheduler else None)


def _levels(start: Position, target: Target, rounds_limit: int, bound: Bound | None, max_positions: int,
            progress: Callable[[Level], None] | None, began: float, workers: Workers | None) -> ReachResult:
    """:func:`reach` answered level by level (one breadth-first search, or iterative deepening with a bound)."""
    result = ReachResult(Verdict.UNKNOWN, start, rounds_limit, bounded=bound is not None)
    if bound is None:
        budgets: Iterator[int] = iter([rounds_limit])
    else:
        first = max(1, min(bound(start), rounds_limit + 1))
        budgets = iter(range(first, rounds_limit + 1))
        result.depth = first - 1  # the bound alone proves no play of fewer rounds reaches the target
    proved = result.depth
    for budget in budgets:
        search = _Search(start, target, budget, bound, max_positions, progress, began,
                         budget if bound is not None else None, workers)
        try:
            found = search.run()
        except _Found as hit:
            result.verdict, result.rounds, result.trace = Verdict.CONFIRMED, hit.depth, search.trace(hit)
            result.depth = hit.depth - 1 if hit.depth else 0
            result.distinct += search.distinct
            result.generated += search.generated
            result.pruned += search.pruned
            break
        except (OutOfTime, _Full) as err:
            result.stopped = "time" if isinstance(err, OutOfTime) else "memory"
            result.depth = max(proved, search.depth if bound is None else proved)
            result.distinct += search.distinct
            result.generated += search.generated
            result.pruned += search.pruned
            break
        result.distinct += search.distinct
        result.generated += search.generated
        result.pruned += search.pruned
        if found is None and search.depth < budget and bound is None:
            result.exhausted = True  # every play ended before the limit: nothing more is reachable
        proved = budget
        result.depth = budget
    else:
        result.verdict = Verdict.REFUTED
        result.depth = rounds_limit
    result.seconds = time.perf_counter() - began
    return result


class Negation:
    """A target's negation, for invariants: ``invariant EXPR`` is the reach of ``not EXPR``."""

    def __init__(self, inner: Target) -> None:
        self.inner = inner

    @property
    def named(self) -> frozenset[str]:
        """The inner target's names."""
        return self.inner.named

    @property
    def uses_events(self) -> bool:
        """As the inner target."""
        return self.inner.uses_events

    @property
    def uses_tally(self) -> bool:
        """As the inner target."""
        return self.inner.uses_tally

    def holds(self, pos: Position, events: RoundEvents | None = None, tally: Tally | None = None) -> bool:
        """The inner target does not hold."""
        return not self.inner.holds(pos, events, tally)


def invariant(start: Position, target: Target, rounds_limit: int, *, max_positions: int = MAX_REACH_POSITIONS,
              progress: Callable[[Level], None] | None = None, jobs: int = 1,
              scheduler: str | None = None) -> ReachResult:
    """Does ``target`` hold in every position reachable from ``start`` within ``rounds_limit`` rounds? The reach of
    its negation (:class:`Negation`), breadth-first without pruning: REFUTED with the shortest trace to a position
    where it fails (the invariant broken), CONFIRMED when no play breaks it within the rounds (it holds), UNKNOWN
    past a limit. The verdict is the invariant's: the reach's turned round. ``jobs`` and ``scheduler`` as
    :func:`reach`'s."""
    result = reach(start, Negation(target), rounds_limit, max_positions=max_positions, progress=progress, jobs=jobs,
                   scheduler=scheduler)
    if result.verdict is not Verdict.UNKNOWN:
        result.verdict = Verdict.REFUTED if result.verdict is Verdict.CONFIRMED else Verdict.CONFIRMED
    return result


def _deepened(start: Position, query: Query, rounds_limit: int, max_positions: int,
              progress: Callable[[Level], None] | None, began: float) -> ReachResult:
    """:func:`reach` answered by the deepening search (:class:`.deepen.Deepening`), its play as a trace."""
    from niagara_solver.games.deepen import Deepening, round_events

    def report(depth: int, positions: int, seconds: float, walk: str | None) -> None:
        if progress is not None:
            done = depth if walk is None else depth - 1
            progress(Level(done, positions, positions, 0, positions / max(seconds, 1e-9), memory_mb(), depth,
                           walk=walk))

    dive = Deepening(start, query, rounds_limit, max_positions, report)
    found = dive.run()
    result = ReachResult(Verdict.UNKNOWN, start, rounds_limit, bounded=True, distinct=found.positions,
                         generated=found.positions, depth=found.completed, stopped=found.stopped,
                         excluded=found.excluded_below)
    if found.rounds is not None:
        result.verdict, result.rounds = Verdict.CONFIRMED, found.rounds
        result.dived = tuple(sorted(dive.found_by)) if dive.found_by is not None else None
        for choices, record in zip(found.play, found.records):
            events = round_events(record.before_flow, record.end, choices.rescues, choices.turns)
            step = RoundStep(choices.rescues, choices.cards, choices.turns,
                             tuple(choices.branches) if choices.branches else None,  # type: ignore[arg-type]
                             tuple(choices.pushes), events.steals, events.falls, events.lost, events.rescues)
            result.trace.append(TraceRound(step, record.end))
    elif found.stopped is None:
        result.verdict, result.depth = Verdict.REFUTED, rounds_limit
    else:
        result.stopped = "memory" if "memory" in found.stopped else "time"
    result.seconds = time.perf_counter() - began
    return result

