"""Independent checks as picklable tasks, run in one process, in local processes (``--jobs N``) or on a Dask
cluster (``--scheduler ADDRESS``), with a progress bar on a terminal.

A task is a job function and its JSON arguments, so it travels to another process or machine unchanged, and its
result is a JSON-ready dict. This module knows no job: the rooms that define jobs build the tasks.
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from niagara_solver.model.errors import InputError

Results = dict[str, dict[str, Any]]


@dataclass(frozen=True)
class Task:
    """One independent job: a module-level function and its arguments, all JSON values.

    The runner knows no job by name: a task carries its function, which travels to another process or machine by
    reference (its module and name), and returns a JSON-ready dict. Each room defines its own jobs
    (``verify.jobs``, ``solver.puzzles``, ``design.witnesses``).
    """

    job: Callable[..., dict[str, Any]]
    args: tuple[Any, ...]

    @property
    def name(self) -> str:
        """The job's name, for progress bars."""
        return self.job.__name__.removesuffix("_job")

    @property
    def key(self) -> str:
        """Equal tasks have equal keys, so a task shared by two sections runs once."""
        return json.dumps([self.job.__module__, self.job.__qualname__, list(self.args)], sort_keys=True,
                          separators=(",", ":"))

    def __call__(self) -> dict[str, Any]:
        return self.job(*self.args)


def task_key(task: Task) -> str:
    """The task's key (:attr:`Task.key`)."""
    return task.key


def run_task(task: Task) -> dict[str, Any]:
    """Run one task (in this process, a pool worker or a Dask worker)."""
    return task()


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
            progress.step(unique[key].name)

    if scheduler:
        try:
            from dask.distributed import Client
            from dask.distributed import as_completed as dask_completed
        except ImportError:
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
