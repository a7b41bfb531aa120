"""Puzzles: position files with a recorded question and answer, answered again as a job.

A puzzle file is a position with a ``"puzzle"`` object (docs/FORMAT.md): the player, the goal, the horizon and
the recorded answer. ``check``, ``diff``, ``sweep`` and ``report`` answer puzzles again under a ruleset and compare
with the recorded answer: the same answer, a changed one, unknown (out of time) or invalid (the position breaks
the other ruleset).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from niagara_solver.jobs import Task
from niagara_solver.model.errors import InputError, NiagaraError
from niagara_solver.model.format import load_document
from niagara_solver.model.limits import MAX_HORIZON
from niagara_solver.model.position import Position
from niagara_solver.model.puzzles import bundled_puzzles, puzzle_paths
from niagara_solver.model.ruleset import Ruleset
from niagara_solver.model.verdict import ANSWER, PUZZLE, Verdict
from niagara_solver.solver.answers import Backend, Goal
from niagara_solver.solver.solve import answer_with

__all__ = ["PuzzleQuestion", "PuzzleStatus", "bundled_puzzles", "puzzle_job", "puzzle_paths", "puzzle_question",
           "puzzle_status", "puzzle_task", "question_asked", "status_of", "status_verdict"]


class PuzzleStatus(StrEnum):
    """A puzzle answered again against its recorded answer (``check``, ``diff``, ``sweep``, ``report``); the values are
    the words of the jobs' results and of ``check --json``."""

    # The answer now against the recorded one: PUZZLE's words for that verdict, so the two never part.
    SAME = PUZZLE(Verdict.CONFIRMED)
    UNKNOWN = PUZZLE(Verdict.UNKNOWN)
    CHANGED = PUZZLE(Verdict.REFUTED)
    INVALID = "invalid"            # the position breaks the ruleset it was answered under
    NOT_A_PUZZLE = "not a puzzle"  # a position file that asks no question: left out of every run


@dataclass(frozen=True)
class PuzzleQuestion:
    """The question a puzzle file asks (its ``"puzzle"`` object): the seat of the player asking, the goal, and the
    rounds to look ahead (1 when the file does not say)."""

    player: int
    goal: Goal
    horizon: int


def puzzle_question(pos: Position, extras: dict[str, Any], source: str | None = None) -> PuzzleQuestion | None:
    """The question of a position file's ``"puzzle"`` object (``extras`` as :func:`load_document` gives them), or
    None for a file that is no puzzle. A question that names no player of the position, a goal other than win,
    steal or safe, or a horizon outside 1..6 is an :class:`InputError` naming its JSON path."""
    puzzle = extras.get("puzzle")
    if puzzle is None:
        return None
    if not isinstance(puzzle, dict):
        raise InputError("puzzle", "must be an object with the question's player, goal and horizon", "FORMAT",
                         source)
    names = [p.name for p in pos.players]
    player = puzzle.get("player")
    if not isinstance(player, str) or player not in names:
        raise InputError("puzzle.player", f"{player!r} is no player of the position; the players: "
                         + ", ".join(names), "FORMAT", source)
    goal = puzzle.get("goal")
    if goal not in [g.value for g in Goal]:
        raise InputError("puzzle.goal", f"{goal!r} is not a goal; the goals: "
                         + ", ".join(g.value for g in Goal), "FORMAT", source)
    horizon = puzzle.get("horizon", 1)
    if isinstance(horizon, bool) or not isinstance(horizon, int) or not 1 <= horizon <= MAX_HORIZON:
        raise InputError("puzzle.horizon", f"{horizon!r} is not a number of rounds from 1 to {MAX_HORIZON}",
                         "FORMAT", source)
    return PuzzleQuestion(names.index(player), Goal(goal), horizon)


def question_asked(question: PuzzleQuestion | None, player: int | None = None, goal: Goal | None = None,
                   horizon: int | None = None) -> PuzzleQuestion:
    """The question to answer (``niagara-solve solve``): a puzzle's ``question``, each part given here replacing
    its own. Without a puzzle, ``player`` and ``goal`` are needed (ValueError otherwise) and the horizon is 1
    unless given."""
    if question is None:
        if player is None or goal is None:
            raise ValueError("a position that asks no question needs a player and a goal")
        return PuzzleQuestion(player, goal, horizon if horizon is not None else 1)
    return PuzzleQuestion(question.player if player is None else player, question.goal if goal is None else goal,
                          question.horizon if horizon is None else horizon)


def puzzle_status(answer: Verdict, recorded: str) -> PuzzleStatus:
    """``same``, ``changed`` or ``unknown``: an answer against the recorded one (unknown is never the same)."""
    if answer is Verdict.UNKNOWN:
        return PuzzleStatus.UNKNOWN
    return PuzzleStatus(PUZZLE(Verdict.of(ANSWER(answer) == recorded)))


def status_of(result: dict[str, Any]) -> PuzzleStatus:
    """The status of a puzzle job's result (:func:`puzzle_job`), which carries it as its word."""
    return PuzzleStatus(result["status"])


def status_verdict(status: PuzzleStatus) -> Verdict:
    """The verdict of a puzzle's status for a regression run: an invalid puzzle fails like a changed one. A file that
    is no puzzle has none (ValueError): it is left out before."""
    if status is PuzzleStatus.NOT_A_PUZZLE:
        raise ValueError("a file that asks no question has no verdict")
    return Verdict.REFUTED if status is PuzzleStatus.INVALID else PUZZLE.parse(status.value)


def puzzle_job(path: str, ruleset: Any, timeout: float, changes: dict[str, Any] | None = None) -> dict[str, Any]:
    """Answer a puzzle under ``ruleset`` (None: its own), or under its own ruleset with the switch values
    ``changes``, and compare with the recorded answer."""
    start = time.perf_counter()
    name = os.path.splitext(os.path.basename(path))[0]
    try:
        rules = Ruleset.from_json(ruleset) if ruleset is not None else None
        if changes:
            own = load_document(path)[0].ruleset.to_json()
            rules = Ruleset.from_json({**({"base": own} if isinstance(own, str) else own), **changes})
        pos, extras = load_document(path, rules)
        question = puzzle_question(pos, extras, path)
        recorded = extras["puzzle"].get("answer") if question is not None else None
        if question is not None and recorded not in ("yes", "no"):
            raise InputError("puzzle.answer", f"{recorded!r} is not a recorded answer (yes or no)", "FORMAT", path)
    except NiagaraError as err:
        return {"kind": "puzzle", "name": name, "path": path, "status": PuzzleStatus.INVALID.value, "error": str(err),
                "seconds": time.perf_counter() - start}
    if question is None:
        return {"kind": "puzzle", "name": name, "path": path, "status": PuzzleStatus.NOT_A_PUZZLE.value, "seconds": 0.0}
    puzzle = extras["puzzle"]
    assert isinstance(recorded, str)  # checked above
    answer = answer_with(pos, question.player, question.goal, question.horizon, Backend.SEARCH, timeout)
    return {"kind": "puzzle", "name": name, "path": path, "status": puzzle_status(answer.verdict, recorded).value,
            "recorded": recorded, "ruleset": pos.ruleset.to_json(), "answer": answer.to_json(),
            "question": puzzle.get("question", ""), "seconds": time.perf_counter() - start}


def puzzle_task(path: str, ruleset: Any, timeout: float, changes: dict[str, Any] | None = None) -> Task:
    """The job of answering one puzzle again (``ruleset``: a ruleset's JSON, or None for the puzzle's own)."""
    return Task(puzzle_job, (path, ruleset, timeout, changes))
