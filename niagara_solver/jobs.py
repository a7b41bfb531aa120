"""Independent checks as picklable tasks, run in one process, in local processes (``--jobs N``) or on a Dask
cluster (``--scheduler ADDRESS``), with a progress bar on a terminal.

A task is a job function and its JSON arguments, so it travels to another process or machine unchanged, and its
result is a JSON-ready dict. This module knows no job: the rooms that define jobs build the tasks.

:func:`run_all` runs one batch of tasks; :class:`Workers` keeps the processes (or the cluster's connection) for a
run of batches, each waiting on the one before (the levels of a search, :mod:`.games.search`), whose tasks and
results need only pickle. ``run_all`` is one batch of ``Workers``.
"""

from __future__ import annotations

import gc
import json
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence

from niagara_solver.model.errors import InputError
from niagara_solver.model.limits import deadline, deadline_at

Results = dict[str, dict[str, Any]]


@dataclass(frozen=True)
class Task:
    """One independent job: a module-level function and its arguments, all JSON values (:func:`run_all` keys a task
    by them; a batch of :meth:`Workers.run` asks only that they pickle).

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


def run_until(moment: float | None, runner: Callable[[Task], dict[str, Any]], task: Task) -> dict[str, Any]:
    """Run one task in another process (a pool or Dask worker) within its command's time limit: ``moment`` is
    when the command must be done by (``time.time()``), which the worker does not otherwise know."""
    with deadline_at(moment):
        return runner(task)


class Progress:
    """A one-line progress bar on standard error, only when it is a terminal and output is not JSON.

    With ``total`` 0 (not known in advance) it counts steps instead of drawing a bar. The line shows the seconds
    since the start and is redrawn every second, also while one long step (a solver question) runs, so a long
    command never sits silent.
    """

    #: Seconds between redraws while no step ends.
    TICK = 1.0

    def __init__(self, total: int, label: str, enabled: bool) -> None:
        self.total = total
        self.label = label
        self.done = 0
        self.note = ""
        self.enabled = enabled and sys.stderr.isatty()
        self.start = time.monotonic()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        if self.enabled:
            self._ticker = threading.Thread(target=self._tick, name="progress", daemon=True)
            self._ticker.start()

    def _tick(self) -> None:
        while not self._stop.wait(self.TICK):
            self.show(self.note)

    def step(self, note: str = "") -> None:
        self.done += 1
        self.show(note)

    def show(self, note: str = "") -> None:
        if not self.enabled:
            return
        self.note = note
        if self.total > 0:
            width = 30
            filled = width * min(self.done, self.total) // self.total
            bar = f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}"
        else:
            bar = f"{self.done}"
        seconds = int(time.monotonic() - self.start)
        with self._lock:
            if self._stop.is_set():
                return
            sep = ", " if note else "  "  # "positions explored 12, candidate turns 3, ..."
            sys.stderr.write(f"\r{self.label} {bar}{sep}{note[:40]:40} {seconds} s")
            sys.stderr.flush()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop redrawing and clear the line (safe to call twice)."""
        if self.enabled and not self._stop.is_set():
            with self._lock:
                self._stop.set()
                sys.stderr.write("\r" + " " * 110 + "\r")
                sys.stderr.flush()
            if self._ticker is not None:
                self._ticker.join()


#: The cyclic collector's thresholds for a command (Python's own: 700, 10, 10). The analyses make millions of small,
#: short-lived objects (z3's term wrappers, positions, turns, table entries) and almost no cycles: a collection every
#: 700 allocations took 10 to 20% of the CPU time of a search and of building a relation, measured
#: (docs/SPEED.md, "The collector"). Set by the command line for its process and the processes it forks.
COLLECTOR_THRESHOLDS = (50_000, 20, 20)


def tune_collector() -> None:
    """Collect cycles less often (:data:`COLLECTOR_THRESHOLDS`): for a command's process, not for a program that
    imports the library, whose collector is its own business."""
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


class Workers:
    """Where tasks run: in this process (``jobs`` 1), in ``jobs`` local processes or on the Dask cluster at
    ``scheduler``. A context manager: the processes are started at the first batch that needs them (a batch of one
    task runs here) and kept for the next, the cluster is connected to on entry; both are closed on exit, the
    tasks not yet started cancelled. Every task runs within the command's time limit, wherever it runs
    (:func:`run_until`)."""

    def __init__(self, jobs: int = 1, scheduler: str | None = None) -> None:
        self.jobs = jobs
        self.scheduler = scheduler
        self._pool: ProcessPoolExecutor | None = None
        self._client: Any = None

    def __enter__(self) -> "Workers":
        if self.scheduler:
            try:  # imported here: Dask is an optional extra, and slow to import where no cluster is used
                from dask.distributed import Client
            except ImportError:
                raise InputError("--scheduler", "Dask is not installed: pip install 'niagara-solver[dask]'",
                                 "FORMAT") from None
            self._client = Client(self.scheduler)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._client is not None:
            self._client.close()
            self._client = None

    @property
    def width(self) -> int:
        """How many tasks run at once: the local processes, or the cluster's threads (at least 1)."""
        if self._client is not None:
            return max(1, sum(self._client.nthreads().values()))
        return max(1, self.jobs)

    def completed(self, tasks: Sequence[Task], runner: Callable[[Task], dict[str, Any]] = run_task
                  ) -> Iterator[tuple[int, dict[str, Any]]]:
        """Run ``tasks``: each one's index and result as it is done (in order when run here). A task's error is
        raised here, as the task raised it."""
        moment = deadline()  # the command's time limit, carried to the tasks run elsewhere
        if self._client is not None:
            from dask.distributed import as_completed as dask_completed
            futures = {self._client.submit(run_until, moment, runner, t, pure=False): i for i, t in enumerate(tasks)}
            for future in dask_completed(list(futures)):
                yield futures[future], future.result()
        elif self.jobs > 1 and len(tasks) > 1:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(max_workers=self.jobs)
            pending = {self._pool.submit(run_until, moment, runner, t): i for i, t in enumerate(tasks)}
            for future in as_completed(pending):
                yield pending[future], future.result()
        else:
            for i, t in enumerate(tasks):
                yield i, runner(t)

    def run(self, tasks: Sequence[Task], runner: Callable[[Task], dict[str, Any]] = run_task
            ) -> list[dict[str, Any]]:
        """Run ``tasks`` and return their results in the tasks' order."""
        results: list[dict[str, Any]] = [{} for _ in tasks]
        for i, result in self.completed(tasks, runner):
            results[i] = result
        return results


def run_all(tasks: Iterable[Task], jobs: int = 1, scheduler: str | None = None, progress: Progress | None = None,
            runner: Callable[[Task], dict[str, Any]] = run_task) -> Results:
    """Run tasks (each distinct task once) and return their results by :func:`task_key`.

    One process by default; ``jobs`` > 1 spreads them over local processes; ``scheduler`` sends them to a Dask
    cluster (:class:`Workers`). The results are the same whichever runs them: every task is deterministic.
    """
    unique = {task_key(t): t for t in tasks}
    keys = list(unique)
    results: Results = {}
    if progress is not None:
        progress.total = len(unique)
    with Workers(jobs, scheduler) as workers:
        for i, result in workers.completed([unique[k] for k in keys], runner):
            results[keys[i]] = result
            if progress is not None:
                progress.step(unique[keys[i]].name)
    if progress is not None:
        progress.close()
    return results
