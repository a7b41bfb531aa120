"""Puzzles: position files with a recorded question and answer, answered again as a job.

A puzzle file is a position with a ``"puzzle"`` object (docs/FORMAT.md): the player, the goal, the horizon and
the recorded answer. ``check``, ``diff``, ``sweep`` and ``report`` answer puzzles again under a ruleset and compare
with the recorded answer: the same answer, a changed one, unknown (out of time) or invalid (the position breaks
the other ruleset).
"""

from __future__ import annotations

import os
import time
from typing import Any

from niagara_solver.jobs import Task
from niagara_solver.model.errors import NiagaraError
from niagara_solver.model.format import load_document
from niagara_solver.model.puzzles import bundled_puzzles, puzzle_paths
from niagara_solver.model.ruleset import Ruleset
from niagara_solver.model.verdict import ANSWER, PUZZLE, Verdict
from niagara_solver.solver.answers import Goal
from niagara_solver.solver.solve import solve

__all__ = ["INVALID", "NOT_A_PUZZLE", "bundled_puzzles", "puzzle_job", "puzzle_paths", "puzzle_status",
           "puzzle_task", "status_verdict"]

#: Statuses of a puzzle answered again, besides :data:`~niagara_solver.model.verdict.PUZZLE`'s words.
INVALID = "invalid"
NOT_A_PUZZLE = "not a puzzle"


def puzzle_status(answer: Verdict, recorded: str) -> str:
    """``same``, ``changed`` or ``unknown``: an answer against the recorded one (unknown is never the same)."""
    if answer is Verdict.UNKNOWN:
        return PUZZLE(Verdict.UNKNOWN)
    return PUZZLE(Verdict.of(ANSWER(answer) == recorded))


def status_verdict(status: str) -> Verdict:
    """The verdict of a puzzle's status for a regression run: an invalid puzzle fails like a changed one."""
    return Verdict.REFUTED if status == INVALID else PUZZLE.parse(status)


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
    except NiagaraError as err:
        return {"kind": "puzzle", "name": name, "path": path, "status": INVALID, "error": str(err),
                "seconds": time.perf_counter() - start}
    puzzle = extras.get("puzzle")
    if not isinstance(puzzle, dict):
        return {"kind": "puzzle", "name": name, "path": path, "status": NOT_A_PUZZLE, "seconds": 0.0}
    answer = solve(pos, pos.index(puzzle["player"]), Goal(puzzle["goal"]), int(puzzle.get("horizon", 1)),
                   "search", timeout)
    return {"kind": "puzzle", "name": name, "path": path, "status": puzzle_status(answer.verdict, puzzle["answer"]),
            "recorded": puzzle["answer"], "ruleset": pos.ruleset.to_json(), "answer": answer.to_json(),
            "question": puzzle.get("question", ""), "seconds": time.perf_counter() - start}


def puzzle_task(path: str, ruleset: Any, timeout: float, changes: dict[str, Any] | None = None) -> Task:
    """The job of answering one puzzle again (``ruleset``: a ruleset's JSON, or None for the puzzle's own)."""
    return Task(puzzle_job, (path, ruleset, timeout, changes))
