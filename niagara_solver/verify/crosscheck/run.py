"""The cross-check run: goal positions, first rounds, seeded playouts and puzzles, each compared case by case; the
report of what was compared, how often each rule was exercised, every disagreement (the first few shrunk) and
every comparison whose time ran out (UNKNOWN: neither an agreement nor a mismatch)."""

from __future__ import annotations

import dataclasses
import multiprocessing
import random
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from niagara_solver.encoding.relations import NAMES, Mutant
from niagara_solver.encoding.solver import fresh_context
from niagara_solver.play.playout import random_playout
from niagara_solver.engine.rescue import begin_turns, rescue_options
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import Card, Phase
from niagara_solver.model.board import Board
from niagara_solver.model.catalogue import RULES
from niagara_solver.model.errors import NiagaraError
from niagara_solver.model.format import position_to_json
from niagara_solver.model.limits import deadline, deadline_at, out_of_time
from niagara_solver.model.position import Position
from niagara_solver.model.ruleset import MODULES, SWITCHES, Ruleset
from niagara_solver.model.switches import SwitchPhase, value_text
from niagara_solver.model.verdict import Verdict
from niagara_solver.verify.crosscheck.compare import ROUND_ONLY, Case, CrossChecker, StolenMark, restolen, steals
from niagara_solver.verify.crosscheck.goals import GoalStatus, goal_answers, goals_for
from niagara_solver.verify.crosscheck.shrink import shrunk as shrunk_case

#: The numbers of single steps each flow is compared at (besides the flow the cards give).
FLOW_STEPS = range(0, 9)
#: How the report's JSON words each goal's status: a goal met is a goal position compared.
GOAL_WORDS = {GoalStatus.MET: "checked", GoalStatus.UNREACHABLE: "unreachable under these rules",
              GoalStatus.UNKNOWN: "unknown: no position was found in time"}
#: How many disagreements are shrunk (each takes many more comparisons); later ones are reported as found.
SHRINK_FIRST = 3


@dataclass
class Mismatch:
    """A disagreement, on a shrunk position."""

    case: Case
    source: str

    def to_json(self) -> dict[str, Any]:

        def outcome(x: Any, label: str) -> Any:
            if isinstance(x, Position):
                return {"label": label, "position": position_to_json(x)}
            return {"label": label, "value": list(x) if isinstance(x, tuple) else x}
        case = self.case
        out: dict[str, Any] = {"kind": case.kind, "what": case.describe(), "source": self.source,
                               "position": position_to_json(case.position),
                               "engine_only": [outcome(x, case.engine[x]) for x in case.engine
                                               if x not in case.encoding],
                               "encoding_only": [outcome(x, case.encoding[x]) for x in case.encoding
                                                 if x not in case.engine]}
        if case.player is not None:
            out["player"] = case.position.players[case.player].name
        if case.card is not None:
            out["card"] = case.card.to_json()
        if case.steps is not None:
            out["steps"] = case.steps
        return out


@dataclass
class CrosscheckReport:
    """What was compared, how often each rule was exercised, every disagreement, and every comparison whose time
    ran out (``unknown``: what it was and where it came from; not counted in ``cases``, ``outcomes`` or
    ``coverage``)."""

    positions: int = 0
    sources: Counter[str] = field(default_factory=Counter)
    cases: Counter[str] = field(default_factory=Counter)
    outcomes: int = 0
    coverage: Counter[str] = field(default_factory=Counter)
    #: Each goal asked: its position found (and compared), none can be, or none found in time.
    goals: dict[str, GoalStatus] = field(default_factory=dict)
    mismatches: list[Mismatch] = field(default_factory=list)
    seconds: float = 0.0
    skipped_rounds: int = 0
    unknown: list[dict[str, str]] = field(default_factory=list)
    #: The rules no case can exercise under the ruleset, with the reason (:func:`unreachable_rules`).
    not_applicable: dict[str, str] = field(default_factory=dict)
    #: Why some positions planned were not taken up (the command's time limit ran out), or "".
    unfinished: str = ""

    @property
    def verdict(self) -> Verdict:
        """REFUTED with a mismatch, else UNKNOWN when a comparison or a goal ran out of time, or the command's time
        limit left positions unfinished, else CONFIRMED."""
        if self.mismatches:
            return Verdict.REFUTED
        if self.unknown or self.unfinished or self.unfound_goals:
            return Verdict.UNKNOWN
        return Verdict.CONFIRMED

    @property
    def exit_status(self) -> int:
        """0 the engine and the encoding agree on every case, 1 a mismatch, 3 unknown."""
        return self.verdict.exit_status

    @property
    def unreachable_goals(self) -> list[str]:
        """The goals no position meets under these rules."""
        return [name for name, status in self.goals.items() if status is GoalStatus.UNREACHABLE]

    @property
    def unfound_goals(self) -> list[str]:
        """The goals with no position found in time (the run is UNKNOWN)."""
        return [name for name, status in self.goals.items() if status is GoalStatus.UNKNOWN]

    def to_json(self) -> dict[str, Any]:
        return {"positions": self.positions, "sources": dict(self.sources), "cases": dict(self.cases),
                "outcomes": self.outcomes, "coverage": dict(sorted(self.coverage.items())),
                "goals": {name: GOAL_WORDS[status] for name, status in self.goals.items()},
                "mismatches": [m.to_json() for m in self.mismatches], "unknown": self.unknown,
                "seconds": round(self.seconds, 3), "skipped_rounds": self.skipped_rounds,
                "not_applicable": dict(sorted(self.not_applicable.items())),
                **({"unfinished": self.unfinished} if self.unfinished else {})}


# -- the run ----------------------------------------------------------------------------------------------

#: Each expansion module's rule family and its switch (RULES.md section X: X-CARDS, ``x_cards``): with the module
#: off, no case can exercise the family's rules.
_FAMILIES = {SWITCHES[name].family: name for name in MODULES}
#: The rules of phase I's switches other than R-RESCUE-3 (read above with R-RESCUE-2), which a rescue case exercises
#: only with the switch away from its default (compare.py): R-RESCUE-4 under ``rescue_limit: one``.
_AT_DEFAULT = {row.rule: row for row in SWITCHES.values() if row.phases[0] == "rescue" and row.rule != "R-RESCUE-3"}


#: Why no case exercises the components and the river's shape: they are what every position is, not something a
#: phase does (docs/CROSSCHECK.md, "Coverage and mismatches").
_STATIC = {"R-COMP": "a component of every position, exercised by no phase (checked where positions are read)",
           "R-BOARD": "the river's shape, one for both readings (checked where boards are read)"}


def unreachable_rules(rules: Ruleset, rounds: bool = True) -> dict[str, str]:
    """The rules no case can exercise under ``rules`` (and, with ``rounds`` False, without the whole-round cases),
    each with the reason: the components and the river's shape, static; a switch's rule its value leaves out (the
    rescues' R-RESCUE-2 and R-RESCUE-3); an expansion module switched off; gems_per_colour a single count rather
    than a table (X-GEMS-1); the rules only a whole round exercises."""
    out = {}
    free = rules.rescue_when_none.value == "free"
    for rule in RULES:
        family = rule.rsplit("-", 1)[0]
        if family in _STATIC:
            out[rule] = _STATIC[family]
        elif rule == "R-RESCUE-3" and not free:
            out[rule] = f"rescue_when_none is {rules.rescue_when_none.value}: R-RESCUE-2 decides instead"
        elif rule == "R-RESCUE-2" and free:
            out[rule] = "rescue_when_none is free: R-RESCUE-3 decides instead"
        elif rule in _AT_DEFAULT and getattr(rules, _AT_DEFAULT[rule].name) == _AT_DEFAULT[rule].default:
            row = _AT_DEFAULT[rule]
            out[rule] = f"{row.name} is {value_text(row.default)}: its rule binds only away from that default"
        elif family in _FAMILIES and not getattr(rules, _FAMILIES[family]):
            out[rule] = f"{_FAMILIES[family]} is off"
        elif family == "X-GEMS" and isinstance(rules.gems_per_colour, int):
            out[rule] = "gems_per_colour is one count, not a table"
        elif rule in ROUND_ONLY and not rounds:
            out[rule] = "only a whole round exercises it, and whole rounds were left out (--no-rounds)"
    return out


def player_counts(rules: Ruleset) -> list[int]:
    """The player counts the cross-check plays: every count the ruleset allows and has gems for (2 to 5 players,
    R-COMP-1; 3 to 6 with the sixth player, X-SIX-1; X-GEMS-1)."""
    return [n for n in rules.player_counts() if rules.gems_for(n) is not None]


def playout_positions(board: Board, rules: Ruleset, count: int, seed: int) -> Iterator[tuple[str, Any]]:
    """Positions from seeded random games, of every player count the ruleset allows in turn: (source, round
    record)."""
    rng = random.Random(seed)
    made = 0
    game = 0
    counts = player_counts(rules)
    while made < count:
        players = counts[(seed + game) % len(counts)]
        start = Position.initial(list(NAMES[:players]), board, rules, lifebuoy=rng.randrange(players))
        for record in random_playout(start, seed * 1000 + game, rounds=rng.randint(1, 30),
                                     policy="greedy" if game % 2 else "uniform"):
            last = record
        game += 1
        yield f"playout {seed * 1000 + game - 1}, round {last.start.round}", last
        made += 1


def positions_planned(count: int, goals: bool | list[str] = True, rounds: bool = True,
                      puzzles: list[Position] | None = None, rules: Ruleset | None = None) -> int:
    """How many positions :func:`crosscheck` takes up under ``rules`` (default: the standard rules), one
    ``progress`` note each (for a progress bar)."""
    chosen = len(goals_for(rules or Ruleset())) if goals is True else len(goals) if goals else 0
    return chosen + (2 if rounds else 0) + count + len(puzzles or [])


#: One comparison planned: ("turn", position, player, card, stolen) | ("rescue", position) | ("end", position) |
#: ("flow", position, steps) | ("round", position, cards). A round's position is a first round's start under
#: :func:`_round_rules`.
Op = tuple[Any, ...]


@dataclass(frozen=True)
class _Unit:
    """One position's comparisons, planned with every random choice made, so that it runs the same in this process
    or in another (``jobs``)."""

    source: str
    ops: tuple[Op, ...]
    #: A first round of a game (counted as a position only if the encoding could take it up).
    first_round: bool = False
    #: Already noted for the progress bar (a goal's position, noted as its search starts).
    noted: bool = False


def _round_rules(rules: Ruleset) -> Ruleset:
    """The rules whole rounds are compared under: a round of three players is too large a question for the
    encoding (over a minute), so with the sixth player (3 to 6 players, X-SIX-1) the rounds are 2-player rounds of
    the same modules, with the gems of the fewest players allowed: the sixth player changes only how many play,
    not what a round does."""
    smallest = player_counts(rules)[0]
    if smallest == 2:
        return rules
    gems = rules.gems_for(smallest)
    assert gems is not None  # player_counts keeps only counts with gems
    return dataclasses.replace(rules, x_sixth_player=False, gems_per_colour=gems)


class _Checkers:
    """The cross-checkers of one run: the ruleset's, and the round rules' where they differ (built when first
    asked, so that a process that only shrinks or only runs some units builds what it needs)."""

    def __init__(self, board: Board, rules: Ruleset, mutant: Mutant | None, timeout: float | None, reference: bool,
                 preprocess: bool) -> None:
        self.spec = (board, rules, mutant, timeout, reference, preprocess)
        self._made: dict[Ruleset, CrossChecker] = {}

    def __call__(self, rules: Ruleset) -> CrossChecker:
        if rules not in self._made:
            board, _, mutant, timeout, reference, preprocess = self.spec
            self._made[rules] = CrossChecker(board, rules, mutant, timeout, reference=reference, preprocess=preprocess)
        return self._made[rules]

    def run(self, unit: _Unit) -> list[Case | None]:
        """The unit's cases, in order (None: a round the encoding could not set up in time, skipped)."""
        rules = self.spec[1]
        out: list[Case | None] = []
        for op in unit.ops:
            kind, pos, *args = op
            if kind == "turn":
                out.append(self(rules).turn(pos, *args))
            elif kind == "rescue":
                out.append(self(rules).rescue(pos))
            elif kind == "end":
                out.append(self(rules).end(pos))
            elif kind == "flow":
                out.append(self(rules).flow(pos, *args))
            else:
                try:
                    out.append(self(pos.ruleset).round(pos, *args))
                except TimeoutError:
                    out.append(None)
        return out


#: The checkers of a worker process (``jobs``), made by :func:`_start_worker`.
_WORKER: _Checkers | None = None


def _start_worker(spec: tuple[Any, ...]) -> None:
    global _WORKER
    fresh_context()
    _WORKER = _Checkers(*spec)


def _run_in_worker(unit: _Unit, moment: float | None) -> list[Case | None]:
    assert _WORKER is not None
    with deadline_at(moment):
        return _WORKER.run(unit)


def crosscheck(board: Board, rules: Ruleset, count: int = 10, seed: int = 0, mutant: Mutant | None = None,
               puzzles: list[Position] | None = None, goals: bool | list[str] = True, rounds: bool = True,
               timeout: float | None = 60, progress: Callable[[str], None] | None = None,
               reference: bool = False, cache: str | Path | None = None,
               preprocess: bool = True, jobs: int = 1) -> CrosscheckReport:
    """Compare the engine and the encoding on goal positions, ``count`` playout positions and ``puzzles``.

    ``timeout``: the seconds each comparison's encoding side (and each goal's search) may take; past it the
    comparison is UNKNOWN. ``progress`` is called with a note as each position is taken up
    (:func:`positions_planned` of them). ``reference``: compare with the earlier enumerator, a fresh solver per
    position (the benchmark's "before"). ``preprocess``: False puts the incremental enumerator's questions for other
    results to a plain solver rather than one that simplifies the pinned relation first (the same outcome sets;
    the benchmark's middle variant). ``cache``: a folder where the goal positions are kept between runs
    (:func:`~niagara_solver.verify.crosscheck.goals.goal_answers`). ``jobs``: compare the positions in this many
    processes (the goal positions are found first, in this one); the report is the same whatever the number, its
    seconds aside. With a ``mutant`` the comparisons stay in this process.

    Runs in a fresh z3 context, so the goal positions (and so the report) are the same whatever the process
    asked z3 before (``fresh_context``)."""
    fresh_context()
    start = time.perf_counter()
    checkers = _Checkers(board, rules, mutant, timeout, reference, preprocess)
    report = CrosscheckReport(not_applicable=unreachable_rules(rules, rounds))

    def record(case: Case, source: str) -> None:
        if case.unknown is not None:  # the encoding's side is not known: neither agreement nor mismatch
            report.unknown.append({"kind": case.kind, "what": case.describe(), "source": source,
                                   "reason": case.unknown})
            return
        report.cases[case.kind] += 1
        report.outcomes += len(set(case.engine) | set(case.encoding))
        for rule in case.rules:
            report.coverage[rule] += 1
        if case.disagrees:
            # Shrinking costs many more comparisons: the first few disagreements are shrunk, the rest shown as found.
            shrunk = (shrunk_case(checkers(case.position.ruleset), case) if len(report.mismatches) < SHRINK_FIRST
                      else case)
            report.mismatches.append(Mismatch(shrunk, source))

    def note(text: str) -> None:
        if progress:
            progress(text)
    def results(units: Iterator[_Unit]) -> Iterator[tuple[_Unit, list[Case | None]]]:
        """Each unit with its cases, in the order planned: from a pool of ``jobs`` processes (each unit handed over
        as soon as it is planned, so the pool compares while goal positions are still searched here), or one by
        one. A goal's position is noted as its search starts, any other as its comparisons start (one by one) or
        end (in the pool)."""
        if jobs > 1 and mutant is None:
            context = multiprocessing.get_context("spawn")  # a process running z3 is never forked
            with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_start_worker,
                                     initargs=(checkers.spec,)) as pool:
                futures = [(unit, pool.submit(_run_in_worker, unit, deadline())) for unit in units]
                for unit, future in futures:
                    cases = future.result()
                    if not unit.noted:
                        note(unit.source)
                    yield unit, cases
        else:
            for unit in units:
                if not unit.noted:
                    note(unit.source)
                yield unit, checkers.run(unit)

    def in_time(units: Iterator[_Unit]) -> Iterator[_Unit]:
        """The units planned until the command's time limit runs out: none is taken up past it (each of its
        comparisons would be UNKNOWN at once), and the report says the run is unfinished."""
        while not out_of_time():  # asked before the next unit is planned (and its position counted)
            unit = next(units, None)
            if unit is None:
                return
            yield unit
        report.unfinished = "the time limit ran out before every position planned was compared"

    for unit, cases in results(in_time(_plan(board, rules, count, seed, puzzles, goals, rounds, timeout, cache,
                                             report, note))):
        for case in cases:
            if case is None:
                report.skipped_rounds += 1
            else:
                record(case, unit.source)
        if unit.first_round and cases[0] is not None:  # a first round counts once the encoding could take it up
            report.positions += 1
            report.sources["first rounds"] += 1
    report.seconds = time.perf_counter() - start
    return report


def _plan(board: Board, rules: Ruleset, count: int, seed: int, puzzles: list[Position] | None,
          goals: bool | list[str], rounds: bool, timeout: float | None, cache: str | Path | None,
          report: CrosscheckReport, note: Callable[[str], None]) -> Iterator[_Unit]:
    """Every position to compare, with its comparisons, in order: the goal positions (searched now, or read from
    the cache; noted as each search starts), the first rounds, the playouts and the puzzles. Counts the positions
    and their sources in ``report`` (a first round once it could be compared: :func:`crosscheck`)."""
    rng = random.Random(seed)
    smallest = player_counts(rules)[0]

    def turn(pos: Position, only: tuple[int, Card] | None = None) -> Op:
        if pos.phase is Phase.CARDS:
            pos = begin_turns(pos, {i: rescue_options(pos, i)[0] for i in range(len(pos.players))})
        if only is None:  # one player of the position, with their card (or a card of their hand)
            player = rng.choice([i for i in range(len(pos.players)) if i not in pos.acted])
            chosen = pos.players[player].card
            only = (player, chosen if chosen is not None else rng.choice(pos.players[player].hand))
        return ("turn", pos, *only)

    def counted(kind: str) -> None:
        report.positions += 1
        report.sources[kind] += 1

    if goals:
        chosen = goals if isinstance(goals, list) else None
        asked = iter([g.name for g in goals_for(rules) if chosen is None or g.name in chosen])
        note(f"goal {next(asked, '')}")  # the search for each goal is noted before it starts
        # The fewest players the ruleset allows keep the goal positions' outcomes few. Every goal is searched
        # before any comparison, so that what z3 finds does not depend on what it compared before (or where).
        answers = []
        for answer in goal_answers(board, rules, players=smallest, timeout=timeout, names=chosen, cache=cache):
            answers.append(answer)
            upcoming = next(asked, None)
            if upcoming is not None:
                note(f"goal {upcoming}")
        for answer in answers:
            goal, pos, card = answer.goal, answer.position, answer.card
            if pos is None:
                report.goals[goal.name] = answer.status
            else:
                report.goals[goal.name] = GoalStatus.MET
                counted("goals")
                ops: list[Op] = []
                if goal.phase is SwitchPhase.TURN and goal.turns == 1 and card is not None:
                    ops.append(turn(pos, (0, card)))
                elif goal.phase is SwitchPhase.TURN and card is not None:  # two turns: a steal taken back
                    ops.append(turn(pos, (0, card)))
                    after = _after_a_steal(pos, card)
                    if after is not None:  # player 1's turns, once player 0 has stolen a gem they can take back
                        mid, stolen = after
                        second_card = mid.players[1].card
                        assert second_card is not None
                        ops.append(("turn", mid, 1, second_card, stolen))
                elif goal.phase is SwitchPhase.FLOW:
                    ops.extend(("flow", pos, steps) for steps in (None, *FLOW_STEPS))
                else:  # a start-of-round position: rescues and the end check
                    ops.extend((("rescue", pos), ("end", pos)))
                yield _Unit(f"goal {goal.name}", tuple(ops), noted=True)
    if rounds:
        # Whole rounds from the first round of 2-player games: every canoe in the port keeps the outcomes few.
        round_rules = _round_rules(rules)
        for game in range(2):
            source = f"the first round of game {seed * 100 + game}"
            start_pos = Position.initial(list(NAMES[:2]), board, round_rules, lifebuoy=game)
            first = next(random_playout(start_pos, seed * 100 + game, rounds=1))
            cards = {i: p.card for i, p in enumerate(first.turns_start.players) if p.card is not None}
            yield _Unit(source, (("round", start_pos, cards),), first_round=True)
    for source, rec in playout_positions(board, rules, count, seed):
        counted("playouts")
        ops = [("rescue", rec.start), ("end", rec.start), turn(rec.turns_start)]
        ops.extend(("flow", rec.before_flow, steps) for steps in (None, *FLOW_STEPS))
        if rounds and len(rec.start.players) == 2:
            ops.append(("round", rec.start, {i: p.card for i, p in enumerate(rec.turns_start.players)
                                             if p.card is not None}))
        yield _Unit(source, tuple(ops))
    for pos in puzzles or []:
        counted("puzzles")
        ops = [("rescue", pos), ("end", pos)] if pos.phase is Phase.CARDS else []
        try:
            ops.append(turn(pos))
        except NiagaraError:
            pass  # a puzzle whose phase I needs a choice of rescue: its turns are checked from the goals instead
        yield _Unit("puzzle", tuple(ops))


def _after_a_steal(pos: Position, card: Card) -> tuple[Position, frozenset[StolenMark]] | None:
    """The first (by notation) turn of player 0 with ``card`` after which player 1 can take back a stolen gem:
    the position it leaves and the gems it stole."""
    then = pos.players[1].card
    if then is None:
        return None
    for outcome in sorted(legal_turns(pos, 0, card), key=lambda o: str(o.turn)):
        stolen = frozenset(mark for _, mark in steals(pos, 0, outcome.turn))
        if stolen and any(restolen(outcome.position, 1, o.turn, stolen)
                          for o in legal_turns(outcome.position, 1, then)):
            return outcome.position, stolen
    return None
