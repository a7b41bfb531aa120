"""Independent checks as picklable tasks, run in one process, in local processes (``--jobs N``) or on a Dask
cluster (``--scheduler ADDRESS``), with a progress bar on a terminal.

A task is a plain tuple of JSON values, so it travels to another process or machine unchanged, and its result
is a JSON-ready dict.
"""

from __future__ import annotations

import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, Callable, Iterable

Task = tuple[Any, ...]
Results = dict[str, dict[str, Any]]


def task_key(task: Task) -> str:
    """The task as a string: equal tasks have equal keys, so a task shared by two sections runs once."""
    return json.dumps(task, sort_keys=True, separators=(",", ":"))


def run_task(task: Task) -> dict[str, Any]:
    """Run one task, a tuple of JSON values:

    ("prove", ruleset, board, players, ids, timeout), ("puzzle", path, ruleset|None, timeout[, changes]),
    ("witness", ruleset_a, ruleset_b, switch, board, players, timeout),
    ("mutant", name, ruleset, board, players, timeout) or ("crosscheck", ruleset, board, count, seed, timeout).
    """
    from niagara_solver.model.board import Board
    from niagara_solver.model.ruleset import Ruleset
    from niagara_solver.encoding.solver import fresh_context
    fresh_context()  # the same answer whichever process runs the task, and after whatever
    kind = task[0]
    start = time.perf_counter()
    if kind == "prove":
        from niagara_solver.verify.prove import prove
        _, ruleset, board, players, ids, timeout = task
        results = prove(Board.from_json(board), Ruleset.from_json(ruleset), players, ids, timeout)
        return {"kind": kind, "players": players, "ruleset": ruleset, "board": board,
                "properties": [r.to_json() for r in results], "seconds": time.perf_counter() - start}
    if kind == "puzzle":
        return _puzzle(task, start)
    if kind == "witness":
        from niagara_solver.design.diff import switch_witness
        _, a, b, switch, board, players, timeout = task
        found = switch_witness(Board.from_json(board), Ruleset.from_json(a), Ruleset.from_json(b), switch, players,
                               timeout)
        return {"kind": kind, "switch": switch, "witness": found.to_json(), "seconds": time.perf_counter() - start}
    if kind == "mutant":
        from niagara_solver.verify.mutants import check_mutants
        _, name, ruleset, board, players, timeout = task
        (result,) = check_mutants(Board.from_json(board), Ruleset.from_json(ruleset), players, [name], timeout)
        return {"kind": kind, **result.to_json()}
    if kind == "crosscheck":
        from niagara_solver.verify.crosscheck import crosscheck
        _, ruleset, board, count, seed, timeout = task
        report = crosscheck(Board.from_json(board), Ruleset.from_json(ruleset), count, seed, timeout=timeout)
        return {"kind": kind, **report.to_json()}
    raise ValueError(f"unknown task {kind!r}")


def _puzzle(task: Task, start: float) -> dict[str, Any]:
    """("puzzle", path, ruleset, timeout[, changes]): answer a puzzle under ``ruleset`` (None: its own), or
    under its own ruleset with the switch values ``changes``, and compare with the recorded answer."""
    from niagara_solver.model.errors import NiagaraError
    from niagara_solver.model.format import load_document
    from niagara_solver.model.ruleset import Ruleset
    from niagara_solver.solver.search import Goal
    from niagara_solver.solver.solve import solve
    path, ruleset, timeout = task[1:4]
    changes = task[4] if len(task) > 4 else None
    name = os.path.splitext(os.path.basename(path))[0]
    try:
        rules = Ruleset.from_json(ruleset) if ruleset is not None else None
        if changes:
            own = load_document(path)[0].ruleset.to_json()
            rules = Ruleset.from_json({**({"base": own} if isinstance(own, str) else own), **changes})
        pos, extras = load_document(path, rules)
    except NiagaraError as err:
        return {"kind": "puzzle", "name": name, "path": path, "status": "invalid", "error": str(err),
                "seconds": time.perf_counter() - start}
    puzzle = extras.get("puzzle")
    if not isinstance(puzzle, dict):
        return {"kind": "puzzle", "name": name, "path": path, "status": "not a puzzle", "seconds": 0.0}
    answer = solve(pos, pos.index(puzzle["player"]), Goal(puzzle["goal"]), int(puzzle.get("horizon", 1)),
                   "search", timeout)
    status = "unknown" if answer.verdict == "unknown" else ("same" if answer.verdict == puzzle["answer"] else "changed")
    return {"kind": "puzzle", "name": name, "path": path, "status": status, "recorded": puzzle["answer"],
            "ruleset": pos.ruleset.to_json(), "answer": answer.to_json(), "question": puzzle.get("question", ""),
            "seconds": time.perf_counter() - start}


class Progress:
    """A one-line progress bar on standard error, only when it is a terminal and output is not JSON.

    With ``total`` 0 (not known in advance) it counts steps instead of drawing a bar.
    """

    def __init__(self, total: int, label: str, enabled: bool) -> None:
        self.total = total
        self.label = label
        self.done = 0
        self.enabled = enabled and sys.stderr.isatty()

    def step(self, note: str = "") -> None:
        self.done += 1
        self.show(note)

    def show(self, note: str = "") -> None:
        if not self.enabled:
            return
        if self.total > 0:
            width = 30
            filled = width * min(self.done, self.total) // self.total
            bar = f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}"
        else:
            bar = f"{self.done}"
        sys.stderr.write(f"\r{self.label} {bar} {note[:40]:40}")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\r" + " " * 100 + "\r")
            sys.stderr.flush()


def run_all(tasks: Iterable[Task], jobs: int = 1, scheduler: str | None = None, progress: Progress | None = None,
            runner: Callable[[Task], dict[str, Any]] = run_task) -> Results:
    """Run tasks (each distinct task once) and return their results by :func:`task_key`.

    One process by default; ``jobs`` > 1 spreads them over local processes; ``scheduler`` sends them to a Dask
    cluster. The results are the same whichever runs them: every task is deterministic.
    """
    unique = {task_key(t): t for t in tasks}
    results: Results = {}
    if progress is not None:
        progress.total = len(unique)

    def done(key: str, result: dict[str, Any]) -> None:
        results[key] = result
        if progress is not None:
            progress.step(str(unique[key][0]))

    if scheduler:
        try:
            from dask.distributed import Client
            from dask.distributed import as_completed as dask_completed
        except ImportError:
            from niagara_solver.model.errors import InputError
            raise InputError("--scheduler", "Dask is not installed: pip install 'niagara-solver[dask]'",
                             "FORMAT") from None
        with Client(scheduler) as client:
            futures = {client.submit(runner, t, pure=False): k for k, t in unique.items()}
            for future in dask_completed(list(futures)):
                done(futures[future], future.result())
    elif jobs > 1 and len(unique) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            pending = {pool.submit(runner, t): k for k, t in unique.items()}
            for future in as_completed(pending):
                done(pending[future], future.result())
    else:
        for k, t in unique.items():
            done(k, runner(t))
    if progress is not None:
        progress.close()
    return results
