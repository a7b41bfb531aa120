"""``niagara-solve sweep GRID.json``: the catalogue and the puzzles for every combination of a grid.

A grid names a base ruleset, lists of values for some switches, boards and player counts (docs/DIFF.md)::

    {"base": "standard",
     "switches": {"steal_after_unload": [true, false], "capacity": [1, 2]},
     "boards": ["standard", "boards/long-two-forks.json"],
     "players": "2-3",
     "puzzles": "../puzzles"}

Every combination of switch values is a ruleset variant; the catalogue is proved for each variant, board and
player count. Each puzzle is answered once per combination of switch values, under its own ruleset with those
switches changed (a puzzle carries its own board and may depend on other switches, such as its tie-break). Paths are
relative to the grid file. The tasks are independent: they run in one process, in ``--jobs`` local processes,
or on a Dask cluster.
"""

from __future__ import annotations

import itertools
import os
import time
from dataclasses import dataclass, field
from typing import Any

from niagara_solver.model.board import Board
from niagara_solver.model.errors import InputError, RulesetError
from niagara_solver.model.format import load_board, read_json_file
from niagara_solver.model.ruleset import SWITCHES, Ruleset
from niagara_solver.design.check import exit_status, merge_properties, puzzle_paths
from niagara_solver.jobs import Progress, Results, Task, run_all, task_key

KEYS = ("base", "switches", "boards", "players", "puzzles", "timeout", "comment")


@dataclass
class Grid:
    """A validated grid: ruleset variants, boards, player counts, a puzzle folder."""

    variants: list[tuple[dict[str, Any], Ruleset]]
    boards: list[tuple[str, Board]]
    players: list[int]
    puzzles: str | None
    timeout: float

    @property
    def size(self) -> int:
        return len(self.variants) * len(self.boards) * len(self.players)


def load_grid(path: str) -> Grid:
    """Read and validate a grid file; errors name the JSON path (exit status 2)."""
    obj = read_json_file(path)
    try:
        return parse_grid(obj, os.path.dirname(os.path.abspath(path)))
    except InputError as err:
        raise (err if err.source else err.with_source(path)) from None


def parse_grid(obj: object, folder: str = ".") -> Grid:
    """A grid from its JSON object (paths relative to ``folder``)."""
    if not isinstance(obj, dict):
        raise InputError("", "a grid is an object with \"switches\", \"boards\", \"players\"", "SWEEP")
    for key in obj:
        if key not in KEYS:
            raise InputError(key, f"unknown key {key!r}; a grid has {', '.join(KEYS)}", "SWEEP")
    base_obj = obj.get("base", "standard")
    if isinstance(base_obj, str) and (base_obj.endswith(".json") or "/" in base_obj):
        base_obj = read_json_file(os.path.join(folder, base_obj))
    base = Ruleset.from_json(base_obj, "base")
    switches = obj.get("switches", {})
    if not isinstance(switches, dict):
        raise InputError("switches", "write {SWITCH: [VALUE, ...]}", "SWEEP")
    axes: list[tuple[str, list[Any]]] = []
    for name, values in switches.items():
        if name not in SWITCHES:
            raise RulesetError(f"switches.{name}", f"unknown switch {name!r}; switches: {', '.join(SWITCHES)}",
                               "SWITCHES")
        if not isinstance(values, list) or not values:
            raise InputError(f"switches.{name}", "write a non-empty list of values", "SWEEP")
        parse, rule = SWITCHES[name]
        for i, value in enumerate(values):
            try:
                parse(value)
            except ValueError as err:
                raise RulesetError(f"switches.{name}[{i}]", str(err), rule) from None
        axes.append((name, values))
    variants = []
    for combo in itertools.product(*(values for _, values in axes)):
        changes = dict(zip((name for name, _ in axes), combo))
        spec = {**_as_object(base.to_json()), **changes}
        variants.append((changes, Ruleset.from_json(spec, "switches")))
    boards_obj = obj.get("boards", ["standard"])
    if not isinstance(boards_obj, list) or not boards_obj:
        raise InputError("boards", "write a non-empty list of board presets or board files", "SWEEP")
    boards = []
    for i, spec in enumerate(boards_obj):
        if not isinstance(spec, str):
            raise InputError(f"boards[{i}]", "write a board preset name or a board file", "SWEEP")
        board_path = spec if not (spec.endswith(".json") or "/" in spec) else os.path.join(folder, spec)
        try:
            boards.append((spec, load_board(board_path)))
        except InputError as err:
            raise InputError(f"boards[{i}]", f"{spec}: {err.message}", err.rule) from None
    players = _players(obj.get("players", [2]))
    puzzles = obj.get("puzzles")
    if puzzles is not None:
        if not isinstance(puzzles, str) or not os.path.isdir(os.path.join(folder, puzzles)):
            raise InputError("puzzles", f"not a folder: {puzzles!r}", "SWEEP")
        puzzles = os.path.join(folder, puzzles)
    timeout = obj.get("timeout", 60)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        raise InputError("timeout", f"write a positive number of seconds, got {timeout!r}", "SWEEP")
    return Grid(variants, boards, players, puzzles, float(timeout))


def _as_object(spec: str | dict[str, Any]) -> dict[str, Any]:
    return {"base": spec} if isinstance(spec, str) else dict(spec)


def _players(value: object) -> list[int]:
    if isinstance(value, int) and not isinstance(value, bool):
        counts = [value]
    elif isinstance(value, str):
        try:
            low, _, high = value.partition("-")
            counts = list(range(int(low), int(high or low) + 1))
        except ValueError:
            raise InputError("players", f"write 2, \"2-5\" or [2, 3], got {value!r}", "R-COMP-1") from None
    elif isinstance(value, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in value):
        counts = list(value)
    else:
        raise InputError("players", f"write 2, \"2-5\" or [2, 3], got {value!r}", "R-COMP-1")
    if not counts or any(not 2 <= n <= 5 for n in counts):
        raise InputError("players", f"2 to 5 players play, got {value!r}", "R-COMP-1")
    return counts


@dataclass
class SweepReport:
    """One row per (variant, board, player count), and the puzzles per variant."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    puzzles: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def status(self) -> int:
        """0 all proved and every puzzle as recorded, 1 something refuted or changed, 3 something unknown."""
        return exit_status(
            failed=any(r["refuted"] for r in self.rows) or any(p["changed"] or p["invalid"] for p in self.puzzles),
            unknown=any(r["unknown"] for r in self.rows) or any(p["unknown"] for p in self.puzzles))

    def to_json(self) -> dict[str, Any]:
        return {"status": {0: "pass", 1: "fail", 3: "unknown"}[self.status], "rows": self.rows,
                "puzzles": self.puzzles, "seconds": round(self.seconds, 3)}


def sweep_tasks(grid: Grid) -> list[Task]:
    """Every proof and every puzzle answer of the grid, as independent tasks."""
    tasks: list[Task] = []
    for _, rules in grid.variants:
        for _, board in grid.boards:
            tasks += [("prove", rules.to_json(), board.to_json(), n, None, grid.timeout) for n in grid.players]
    for changes, _ in grid.variants:
        tasks += [_puzzle_task(path, changes, grid.timeout) for path in puzzle_paths(grid.puzzles)]
    return tasks


def _puzzle_task(path: str, changes: dict[str, Any], timeout: float) -> Task:
    # A puzzle keeps its own ruleset; only the grid's switches change (a tie-break puzzle keeps its tie-break).
    return ("puzzle", path, None, timeout, changes)


def sweep_from(grid: Grid, results: Results, seconds: float = 0.0) -> SweepReport:
    """The table from the tasks' results."""
    report = SweepReport(seconds=seconds)
    for changes, rules in grid.variants:
        for name, board in grid.boards:
            for n in grid.players:
                result = results[task_key(("prove", rules.to_json(), board.to_json(), n, None, grid.timeout))]
                props = merge_properties([result])
                report.rows.append({
                    "switches": changes, "ruleset": rules.to_json(), "board": board.name or name, "players": n,
                    "proved": [p["id"] for p in props if p["verdict"] == "proved"],
                    "refuted": [p["id"] for p in props if p["verdict"] == "refuted"],
                    "unknown": [p["id"] for p in props if p["verdict"] == "unknown"],
                    "counterexamples": {p["id"]: p["trace"] for p in props if "trace" in p},
                    "seconds": round(result["seconds"], 3)})
        answers = [results[task_key(_puzzle_task(path, changes, grid.timeout))] for path in puzzle_paths(grid.puzzles)]
        answers = [a for a in answers if a["status"] != "not a puzzle"]
        report.puzzles.append({
            "switches": changes, "ruleset": rules.to_json(),
            "same": [a["name"] for a in answers if a["status"] == "same"],
            "changed": [{"name": a["name"], "recorded": a["recorded"], "now": a["answer"]["verdict"]}
                        for a in answers if a["status"] == "changed"],
            "invalid": [{"name": a["name"], "error": a["error"]} for a in answers if a["status"] == "invalid"],
            "unknown": [a["name"] for a in answers if a["status"] == "unknown"]})
    return report


def sweep(grid: Grid, jobs: int = 1, scheduler: str | None = None, show_progress: bool = False) -> SweepReport:
    """Run the whole grid."""
    start = time.perf_counter()
    tasks = sweep_tasks(grid)
    results = run_all(tasks, jobs, scheduler, Progress(len(tasks), "sweep", show_progress))
    return sweep_from(grid, results, time.perf_counter() - start)
