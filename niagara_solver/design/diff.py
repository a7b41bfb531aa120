"""``niagara-solve diff``: what changes between two rulesets.

Three answers, side by side: the property verdicts under each ruleset, the puzzles whose answers change, and,
for every switch that differs, a **witness**: a small position where that switch alone changes what may happen
(found by the solver and replayed by the engine: :mod:`niagara_solver.design.witnesses`).

A diff reports, it does not judge: a property refuted under one ruleset, a changed answer, a switch proved to
change nothing are all answers. Its exit status says only whether everything was decided (0) or something is
unknown (3).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any

from niagara_solver.design.fastest import FastestWin, FastestWinDiff, compare_wins, fastest_win_task
from niagara_solver.design.histories import counterexample_history
from niagara_solver.design.witnesses import Witness, witness_from_json, witness_task
from niagara_solver.jobs import Progress, Results, Task, run_all, task_key
from niagara_solver.model.errors import InputError
from niagara_solver.model.limits import HISTORY_ROUNDS, time_limit
from niagara_solver.model.readings import require
from niagara_solver.model.board import Board
from niagara_solver.model.ruleset import SWITCHES, Ruleset
from niagara_solver.model.verdict import ANSWER, NOT_APPLICABLE, PROOF, Verdict, merge
from niagara_solver.solver.puzzles import PuzzleStatus, puzzle_paths, puzzle_task, status_of
from niagara_solver.verify.jobs import merge_properties, prove_task
from niagara_solver.verify.properties import CATALOGUE, EXPANSION, not_applicable

__all__ = ["DiffReport", "PropertyDiff", "PuzzleDiff", "diff", "diff_from", "diff_tasks", "differing_switches",
           "fewest_players", "players_for_witnesses", "shared_players"]


def differing_switches(a: Ruleset, b: Ruleset) -> list[str]:
    """The switches whose values differ, in the order of RULES.md."""
    sa, sb = a.switches(), b.switches()
    return [k for k in SWITCHES if sa[k] != sb[k]]


def shared_players(a: Ruleset, b: Ruleset) -> list[int]:
    """The counts of players both rulesets play, each with gems for that count (R-COMP-1, X-SIX-1, X-GEMS-1)."""
    return [n for n in a.player_counts() if n in b.player_counts() and None not in (a.gems_for(n), b.gems_for(n))]


def fewest_players(a: Ruleset, b: Ruleset) -> int:
    """The fewest players both rulesets play (``diff --players fewest``: 2 for the base game, 3 with the
    expansion's sixth player); an :class:`InputError` naming ``--players`` when no count plays both."""
    shared = shared_players(a, b)
    if not shared:
        raise InputError("--players", f"no count of players plays both {a.describe()} and {b.describe()}", "X-SIX-1")
    return shared[0]


def players_for_witnesses(a: Ruleset, b: Ruleset, players: list[int]) -> int:
    """How many players the witnesses are sought with: 2 where both rulesets allow it (the smallest positions),
    else the fewest of the counts asked."""
    return 2 if 2 in shared_players(a, b) else min(players)


@dataclass(frozen=True)
class PropertyDiff:
    """One property of the catalogue under both rulesets: its verdict under each (merged over the player counts),
    with the trace and the counterexample of a refutation. A property of an expansion module that one ruleset has
    off is not applicable there (``None``, with the reason)."""

    id: str
    title: str
    a: Verdict | None
    b: Verdict | None
    seconds: tuple[float, float]
    traces: tuple[list[str] | None, list[str] | None] = (None, None)   # None: not refuted there
    counterexamples: tuple[Any, Any] = (None, None)                     # position files (JSON)
    reasons: tuple[str, str] = ("", "")                                 # why it does not apply, per side
    #: Whether a game reaches each side's counterexample (JSON, :func:`.histories.counterexample_history`).
    histories: tuple[Any, Any] = (None, None)

    @property
    def changed(self) -> bool:
        """Whether the verdicts differ, both being known (an UNKNOWN, out of time, changes nothing we know) and the
        property applying under both rulesets (one that applies under one only is told apart: :attr:`applies`)."""
        return self.a is not self.b and Verdict.UNKNOWN not in (self.a, self.b) and None not in (self.a, self.b)

    @property
    def applies(self) -> tuple[bool, bool]:
        """Whether the property applies under A and under B (its module on)."""
        return self.a is not None, self.b is not None

    @property
    def change(self) -> str:
        """From A to B in words: ``changed``, ``same``, ``unknown`` (a side ran out of time), or where the property
        does not apply when one ruleset has its module off (``not applicable in A (x_moose is off)``)."""
        if self.applies != (True, True):
            return "; ".join(f"not applicable in {side} ({reason})" for side, reason in zip("AB", self.reasons)
                             if reason)
        return "changed" if self.changed else "unknown" if Verdict.UNKNOWN in (self.a, self.b) else "same"

    @property
    def words(self) -> tuple[str, str]:
        """Both verdicts in the prover's words (:data:`~niagara_solver.model.verdict.PROOF`), ``not applicable``
        for a side that has the property's module off."""
        return PROOF.word(self.a), PROOF.word(self.b)

    def to_json(self) -> dict[str, Any]:
        a, b = self.words
        out: dict[str, Any] = {"id": self.id, "title": self.title, "a": a, "b": b, "changed": self.changed,
                               "seconds": [round(s, 3) for s in self.seconds]}
        for side, reason in zip("ab", self.reasons):
            if reason:
                out[f"reason_{side}"] = reason
        for side, trace, counterexample in zip("ab", self.traces, self.counterexamples):
            if trace is not None:
                out[f"trace_{side}"] = trace
                out[f"counterexample_{side}"] = counterexample
        for side, history in zip("ab", self.histories):
            if history is not None:
                out[f"history_{side}"] = history
        return out


@dataclass(frozen=True)
class PuzzleDiff:
    """One puzzle answered under both rulesets: the answer under each, None where the position is invalid."""

    name: str
    question: str
    a: Verdict | None
    b: Verdict | None
    answers: tuple[Any, Any] = (None, None)    # each side's answer (JSON), or the error that makes it invalid

    @property
    def changed(self) -> bool:
        """Whether the answers differ, both being known (an answer against an invalid position does; an unknown
        answer, out of time, changes nothing we know)."""
        return self.a is not self.b and Verdict.UNKNOWN not in (self.a, self.b)

    @property
    def words(self) -> tuple[str, str]:
        """Both answers in the solver's words (:data:`~niagara_solver.model.verdict.ANSWER`), or ``invalid``."""
        return _answer_word(self.a), _answer_word(self.b)

    def to_json(self) -> dict[str, Any]:
        a, b = self.words
        out: dict[str, Any] = {"name": self.name, "question": self.question, "a": a, "b": b, "changed": self.changed}
        if self.changed:
            out["answer_a"], out["answer_b"] = self.answers
        return out


def _answer_word(answer: Verdict | None) -> str:
    return PuzzleStatus.INVALID.value if answer is None else ANSWER(answer)


def _puzzle_answer(result: dict[str, Any]) -> Verdict | None:
    """The answer of a puzzle job's result; None when the position is invalid under the ruleset."""
    if "answer" in result:
        return ANSWER.parse(result["answer"]["verdict"])
    if status_of(result) is not PuzzleStatus.INVALID:
        raise ValueError(f"a puzzle result with neither an answer nor an error: {result['status']!r}")
    return None


@dataclass
class DiffReport:
    """Two rulesets compared: properties, puzzles and a witness per differing switch."""

    a: Ruleset
    b: Ruleset
    board: Board
    players: list[int]
    properties: list[PropertyDiff] = field(default_factory=list)
    puzzles: list[PuzzleDiff] = field(default_factory=list)
    witnesses: list[Witness] = field(default_factory=list)
    seconds: float = 0.0
    #: The fastest possible win under A and B per player count (``diff --fastest-win``; empty when not asked).
    fastest_wins: list[FastestWinDiff] = field(default_factory=list)

    @property
    def verdicts(self) -> list[Verdict]:
        """Every verdict of the diff: both sides of each property and each valid puzzle, and each witness."""
        return ([v for p in self.properties for v in (p.a, p.b) if v is not None]
                + [v for p in self.puzzles for v in (p.a, p.b) if v is not None]
                + [w.verdict for w in self.witnesses]
                + [Verdict.CONFIRMED if f.decided else Verdict.UNKNOWN for f in self.fastest_wins])

    @property
    def changed_puzzles(self) -> list[PuzzleDiff]:
        """The puzzles whose answers change from A to B (:attr:`PuzzleDiff.changed`)."""
        return [p for p in self.puzzles if p.changed]

    @property
    def exit_status(self) -> int:
        """0 when everything was decided, 3 when a verdict or a witness is unknown.

        Refuted is an answer here, not a failure: each verdict counts as decided (CONFIRMED) or not (UNKNOWN),
        and their merge gives the exit status."""
        decided = merge([Verdict.UNKNOWN if v is Verdict.UNKNOWN else Verdict.CONFIRMED for v in self.verdicts])
        return decided.exit_status

    status = exit_status  # its earlier name

    def to_json(self) -> dict[str, Any]:
        out = {"a": self.a.to_json(), "b": self.b.to_json(), "board": self.board.to_json(),
               "players": self.players, "switches": {s: [self.a.switches()[s], self.b.switches()[s]]
                                                     for s in differing_switches(self.a, self.b)},
               "properties": [p.to_json() for p in self.properties], "puzzles": [p.to_json() for p in self.puzzles],
               "witnesses": [w.to_json() for w in self.witnesses], "seconds": round(self.seconds, 3)}
        if self.fastest_wins:
            out["fastest_win"] = [f.to_json() for f in self.fastest_wins]
        return out


def diff_tasks(board: Board, a: Ruleset, b: Ruleset, players: list[int], puzzles: str | None = None,
               timeout: float = 60, witness_players: int = 2, fastest_win: bool = False) -> list[Task]:
    """The independent tasks of a diff: both catalogues, every puzzle under both rulesets, one witness per switch
    (sought with ``witness_players`` players: :func:`players_for_witnesses` says how many), and with
    ``fastest_win`` the fastest win from the setup under each ruleset for each player count, last (minutes each)."""
    for rules in (a, b):  # refused before any task runs
        require(rules, "encoding")
        if fastest_win:
            require(rules, "engine")
        rules.check_players(players)
    # The quick tasks first (a witness or a puzzle takes seconds, a catalogue under the expansion many minutes), so a
    # time limit that runs out leaves the slow proofs unknown rather than every witness unsought.
    tasks: list[Task] = [witness_task(a.to_json(), b.to_json(), s, board.to_json(), witness_players, timeout)
                         for s in differing_switches(a, b)]
    for rules in (a, b):
        tasks += [puzzle_task(path, rules.to_json(), timeout) for path in puzzle_paths(puzzles)]
    for rules in (a, b):
        tasks += [prove_task(rules.to_json(), board.to_json(), n, None, timeout) for n in players]
    if fastest_win:
        tasks += [fastest_win_task(rules.to_json(), board.to_json(), n) for n in players for rules in (a, b)]
    return tasks


def diff_from(board: Board, a: Ruleset, b: Ruleset, players: list[int], puzzles: str | None, timeout: float,
              results: Results, seconds: float = 0.0, witness_players: int = 2,
              fastest_win: bool = False) -> DiffReport:
    """The diff from the results of :func:`diff_tasks` (same arguments)."""
    report = DiffReport(a, b, board, players, seconds=seconds)
    merged = [{p["id"]: p for p in merge_properties(
        [results[task_key(prove_task(rules.to_json(), board.to_json(), n, None, timeout))] for n in players])}
        for rules in (a, b)]
    # Every property either ruleset proves, in the catalogue's order: one of a module that only one has on is not
    # applicable under the other, with the reason (a side without it is never read as a pass).
    for prop in (*CATALOGUE, *EXPANSION):
        if prop.id not in merged[0] and prop.id not in merged[1]:
            continue
        p, q = (side.get(prop.id, {"verdict": NOT_APPLICABLE, "seconds": 0.0,
                                   "reason": not_applicable(prop, rules)}) for side, rules in zip(merged, (a, b)))
        report.properties.append(PropertyDiff(
            prop.id, prop.title, PROOF.parse_applicable(p["verdict"]), PROOF.parse_applicable(q["verdict"]),
            (p["seconds"], q["seconds"]), (p.get("trace"), q.get("trace")),
            (p.get("counterexample"), q.get("counterexample")), (p.get("reason", ""), q.get("reason", ""))))
    for path in puzzle_paths(puzzles):
        x, y = (results[task_key(puzzle_task(path, rules.to_json(), timeout))] for rules in (a, b))
        if PuzzleStatus.NOT_A_PUZZLE in (status_of(x), status_of(y)):
            continue
        report.puzzles.append(PuzzleDiff(x["name"], x.get("question", ""), _puzzle_answer(x), _puzzle_answer(y),
                                         (x.get("answer") or x.get("error"), y.get("answer") or y.get("error"))))
    report.witnesses = [
        witness_from_json(results[task_key(witness_task(a.to_json(), b.to_json(), s, board.to_json(), witness_players,
                                                        timeout))]["witness"]) for s in differing_switches(a, b)]
    if fastest_win:
        report.fastest_wins = [compare_wins(*(FastestWin.from_json(
            results[task_key(fastest_win_task(rules.to_json(), board.to_json(), n))]) for rules in (a, b)))
            for n in players]
    return report


def diff(board: Board, a: Ruleset, b: Ruleset, players: list[int], puzzles: str | None = None,
         timeout: float = 60, jobs: int = 1, scheduler: str | None = None, show_progress: bool = False,
         witness_players: int | None = None, history_rounds: int = HISTORY_ROUNDS,
         fastest_win: bool = False) -> DiffReport:
    """Compare two rulesets: properties for each player count, every puzzle of a folder, a witness per switch
    (sought with ``witness_players`` players; by default as :func:`players_for_witnesses` says), whether a game
    reaches each counterexample (histories of at most ``history_rounds`` rounds), and with ``fastest_win`` the fewest
    rounds from the setup to a win under each (:mod:`.fastest`), within ``timeout`` seconds in all."""
    start = time.perf_counter()
    with time_limit(timeout):
        seats = witness_players if witness_players is not None else players_for_witnesses(a, b, players)
        tasks = diff_tasks(board, a, b, players, puzzles, timeout, seats, fastest_win)
        results = run_all(tasks, jobs, scheduler, Progress(len(tasks), "diff", show_progress))
        report = diff_from(board, a, b, players, puzzles, timeout, results, 0.0, seats, fastest_win)
        report.properties = [with_side_histories(p, history_rounds) for p in report.properties]
    report.seconds = time.perf_counter() - start
    return report


def with_side_histories(prop: PropertyDiff, rounds: int = HISTORY_ROUNDS) -> PropertyDiff:
    """A property's diff with whether a game reaches each side's counterexample."""
    histories = tuple(None if ce is None else counterexample_history(ce, rounds) for ce in prop.counterexamples)
    return dataclasses.replace(prop, histories=(histories[0], histories[1]))
