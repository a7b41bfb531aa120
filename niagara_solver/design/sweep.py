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
import math
import os
import time
from dataclasses import dataclass, field
from typing import Any

from niagara_solver.design.histories import with_histories
from niagara_solver.model.readings import require
from niagara_solver.model.board import Board
from niagara_solver.model.atoms import MIN_PLAYERS, MOST_PLAYERS
from niagara_solver.model.errors import InputError, RulesetError, did_you_mean, quoted
from niagara_solver.model.limits import (HISTORY_ROUNDS, LIMITS, MAX_GRID_PROOFS, PROVE_TIMEOUT, check_timeout,
                                         time_limit)
from niagara_solver.model.format import load_board, read_json_file
from niagara_solver.model.ruleset import SWITCHES, Ruleset
from niagara_solver.jobs import Progress, Results, Task, run_all, task_key
from niagara_solver.model.verdict import PROOF, STATUS, Verdict
from niagara_solver.solver.puzzles import PuzzleStatus, puzzle_paths, puzzle_task, status_of, status_verdict
from niagara_solver.verify.jobs import merge_properties, prove_task

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
            raise InputError(key, f"unknown key {quoted(key)}; a grid has {', '.join(KEYS)}{did_you_mean(key, KEYS)}",
                             "SWEEP")
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
            raise RulesetError(f"switches.{name}", f"unknown switch {quoted(name)}; switches: {', '.join(SWITCHES)}"
                               f"{did_you_mean(name, SWITCHES)}",
                               "SWITCHES")
        if not isinstance(values, list) or not values:
            raise InputError(f"switches.{name}", "write a non-empty list of values", "SWEEP")
        row = SWITCHES[name]
        parsed = []
        for i, value in enumerate(values):
            try:
                parsed.append(row.parse(value))
            except ValueError as err:
                raise RulesetError(f"switches.{name}[{i}]", str(err), row.rule) from None
            if parsed[-1] in parsed[:-1]:
                raise InputError(f"switches.{name}[{i}]", f"{quoted(value)} is listed twice", "SWEEP")
        axes.append((name, values))
    # The size first, from the lengths alone: a grid of millions of variants is refused before one is built.
    _check_size(math.prod(len(values) for _, values in axes), "switches")
    variants = []
    for combo in itertools.product(*(values for _, values in axes)):
        changes = dict(zip((name for name, _ in axes), combo))
        spec = {**_as_object(base.to_json()), **changes}
        variants.append((changes, Ruleset.from_json(spec, "switches")))
    boards_obj = obj.get("boards", ["standard"])
    if not isinstance(boards_obj, list) or not boards_obj:
        raise InputError("boards", "write a non-empty list of board presets or board files", "SWEEP")
    _check_size(len(variants) * len(boards_obj), "boards")
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
    _check_size(len(variants) * len(boards) * len(players), "players")
    for _, rules in variants:  # every count of players under every variant (R-COMP-1, X-SIX-1, X-GEMS-1)
        require(rules, "encoding")
        rules.check_players(players, "players")
    puzzles = obj.get("puzzles")
    if puzzles is not None:
        if not isinstance(puzzles, str) or not os.path.isdir(os.path.join(folder, puzzles)):
            raise InputError("puzzles", f"not a folder: {quoted(puzzles)}", "SWEEP")
        puzzles = os.path.join(folder, puzzles)
    timeout = check_timeout(obj.get("timeout", PROVE_TIMEOUT), "timeout")  # the same bounds as every --timeout
    return Grid(variants, boards, players, puzzles, timeout)


def _check_size(proofs: int, where: str) -> None:
    if proofs > MAX_GRID_PROOFS:
        raise InputError(where, f"the grid asks for {proofs:,} proofs of the catalogue (variants × boards × "
                                f"player counts); at most {MAX_GRID_PROOFS:,}", LIMITS)


def _as_object(spec: str | dict[str, Any]) -> dict[str, Any]:
    return {"base": spec} if isinstance(spec, str) else dict(spec)


def _players(value: object) -> list[int]:
    """2, "2-5" or [2, 3]; every count within R-COMP-1's bounds, checked before a range is listed."""
    if isinstance(value, int) and not isinstance(value, bool):
        ends = [value]
    elif isinstance(value, str):
        low, _, high = value.partition("-")
        try:
            ends = [int(low), int(high or low)] if len(value) <= 30 else []  # never int() of thousands of digits
        except ValueError:
            ends = []
        if not ends:
            raise InputError("players", f"write 2, \"2-5\" or [2, 3], got {quoted(value)}", "R-COMP-1")
    elif isinstance(value, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in value):
        ends = list(value)
    else:
        raise InputError("players", f"write 2, \"2-5\" or [2, 3], got {quoted(value)}", "R-COMP-1")
    if not ends or any(not MIN_PLAYERS <= n <= MOST_PLAYERS for n in ends):
        raise InputError("players", f"{MIN_PLAYERS} to {MOST_PLAYERS} players play (6 with x_sixth_player), "
                                    f"got {quoted(value)}", "R-COMP-1")
    counts = list(range(ends[0], ends[1] + 1)) if isinstance(value, str) else ends
    if not counts:
        raise InputError("players", f"an empty range of player counts: {quoted(value)}", "R-COMP-1")
    return counts


@dataclass
class SweepReport:
    """One row per (variant, board, player count), and the puzzles per variant."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    puzzles: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def verdict(self) -> Verdict:
        """REFUTED when a property is refuted or a puzzle's answer changed (or it became invalid), else UNKNOWN
        when something is unknown, else CONFIRMED."""
        verdicts = [Verdict.REFUTED if r["refuted"] else Verdict.UNKNOWN if r["unknown"] else Verdict.CONFIRMED
                    for r in self.rows]
        verdicts += [Verdict.REFUTED if p["changed"] or p["invalid"] else
                     Verdict.UNKNOWN if p["unknown"] else Verdict.CONFIRMED for p in self.puzzles]
        return max(verdicts, default=Verdict.CONFIRMED)

    @property
    def exit_status(self) -> int:
        """0 all proved and every puzzle as recorded, 1 something refuted or changed, 3 something unknown."""
        return self.verdict.exit_status

    status = exit_status  # its earlier name

    def to_json(self) -> dict[str, Any]:
        return {"status": STATUS(self.verdict), "rows": self.rows,
                "puzzles": self.puzzles, "seconds": round(self.seconds, 3)}


def sweep_tasks(grid: Grid) -> list[Task]:
    """Every proof and every puzzle answer of the grid, as independent tasks."""
    tasks: list[Task] = []
    for _, rules in grid.variants:
        for _, board in grid.boards:
            tasks += [prove_task(rules.to_json(), board.to_json(), n, None, grid.timeout) for n in grid.players]
    for changes, _ in grid.variants:
        tasks += [_puzzle_task(path, changes, grid.timeout) for path in puzzle_paths(grid.puzzles)]
    return tasks


def _puzzle_task(path: str, changes: dict[str, Any], timeout: float) -> Task:
    # A puzzle keeps its own ruleset; only the grid's switches change (a tie-break puzzle keeps its tie-break).
    return puzzle_task(path, None, timeout, changes)


def sweep_from(grid: Grid, results: Results, seconds: float = 0.0,
               history_rounds: int = HISTORY_ROUNDS) -> SweepReport:
    """The table from the tasks' results, each counterexample with whether a game reaches it (histories of at most
    ``history_rounds`` rounds, within the time left)."""
    report = SweepReport(seconds=seconds)
    for changes, rules in grid.variants:
        for name, board in grid.boards:
            for n in grid.players:
                result = results[task_key(prove_task(rules.to_json(), board.to_json(), n, None, grid.timeout))]
                # The catalogue of each variant: the X-PROP of the modules it has on, none that does not apply (a
                # property not applicable would be in none of these lists: never a pass, nor a failure).
                props = [(p, PROOF.parse_applicable(p["verdict"]))
                         for p in with_histories(merge_properties([result]), history_rounds)]
                report.rows.append({
                    "switches": changes, "ruleset": rules.to_json(), "board": board.name or name, "players": n,
                    "proved": [p["id"] for p, v in props if v is Verdict.PROVED],
                    "refuted": [p["id"] for p, v in props if v is Verdict.REFUTED],
                    "unknown": [p["id"] for p, v in props if v is Verdict.UNKNOWN],
                    "counterexamples": {p["id"]: p["trace"] for p, _ in props if "trace" in p},
                    "histories": {p["id"]: p["history"] for p, _ in props if "history" in p},
                    "seconds": round(result["seconds"], 3)})
        answers = [results[task_key(_puzzle_task(path, changes, grid.timeout))] for path in puzzle_paths(grid.puzzles)]
        answers = [a for a in answers if status_of(a) is not PuzzleStatus.NOT_A_PUZZLE]
        valid = [(a, status_verdict(status_of(a))) for a in answers if status_of(a) is not PuzzleStatus.INVALID]
        report.puzzles.append({
            "switches": changes, "ruleset": rules.to_json(),
            "same": [a["name"] for a, verdict in valid if verdict is Verdict.CONFIRMED],
            "changed": [{"name": a["name"], "recorded": a["recorded"], "now": a["answer"]["verdict"]}
                        for a, verdict in valid if verdict is Verdict.REFUTED],
            "invalid": [{"name": a["name"], "error": a["error"]} for a in answers
                        if status_of(a) is PuzzleStatus.INVALID],
            "unknown": [a["name"] for a, verdict in valid if verdict is Verdict.UNKNOWN]})
    return report


def sweep(grid: Grid, jobs: int = 1, scheduler: str | None = None, show_progress: bool = False,
          history_rounds: int = HISTORY_ROUNDS) -> SweepReport:
    """Run the whole grid within its time limit, whether a game reaches each counterexample included."""
    start = time.perf_counter()
    with time_limit(grid.timeout):
        tasks = sweep_tasks(grid)
        results = run_all(tasks, jobs, scheduler, Progress(len(tasks), "sweep", show_progress))
        report = sweep_from(grid, results, history_rounds=history_rounds)
    report.seconds = time.perf_counter() - start
    return report
