"""``niagara-solve check``: the one command a CI pipeline runs for rule regressions.

It proves the property catalogue and answers every puzzle of a folder against its recorded answer. Exit 0
when all hold, 1 when a property is refuted or a puzzle's answer changed (naming which, with the counterexample
or the new answer), 3 when something is unknown. ``--junit`` writes one test case per property and per puzzle.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from niagara_solver.design.histories import history_line, with_histories
from niagara_solver.model.limits import HISTORY_ROUNDS, time_limit
from niagara_solver.model.readings import require
from niagara_solver.model.board import Board
from niagara_solver.model.ruleset import Ruleset
from niagara_solver.jobs import Progress, Results, Task, run_all, task_key
from niagara_solver.model.verdict import NOT_APPLICABLE, PROOF, STATUS, Verdict
from niagara_solver.solver.puzzles import PuzzleStatus, puzzle_paths, puzzle_task, status_of, status_verdict
from niagara_solver.verify.catalogue import check_ids
from niagara_solver.verify.jobs import merge_properties, properties_verdict, prove_task


@dataclass
class CheckReport:
    """Every property's merged verdict and every puzzle's status."""

    properties: list[dict[str, Any]] = field(default_factory=list)
    puzzles: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def verdict(self) -> Verdict:
        """The merged verdict: REFUTED when a property is refuted or a puzzle changed or became invalid, else
        UNKNOWN when anything is unknown (never counted as a pass), else CONFIRMED."""
        return max([properties_verdict(self.properties), *(status_verdict(status_of(p)) for p in self.puzzles)])

    @property
    def exit_status(self) -> int:
        """The exit status: 0 pass, 1 fail, 3 unknown."""
        return self.verdict.exit_status

    status = exit_status  # its earlier name

    def properties_by(self, verdict: Verdict | None) -> list[dict[str, Any]]:
        """The properties whose merged verdict is ``verdict``: proved, refuted, unknown, or (None) not applicable."""
        return [p for p in self.properties if PROOF.parse_applicable(p["verdict"]) is verdict]

    def puzzles_by(self, verdict: Verdict | None) -> list[dict[str, Any]]:
        """The puzzles whose answer is as recorded (CONFIRMED), changed (REFUTED) or unknown, or (None) that are
        invalid under the ruleset."""
        return [p for p in self.puzzles
                if (None if status_of(p) is PuzzleStatus.INVALID else status_verdict(status_of(p))) is verdict]

    @property
    def checked_nothing(self) -> bool:
        """No property applies (none proved) and there is no puzzle: a pass that checked nothing."""
        return not self.properties_by(Verdict.PROVED) and not self.puzzles

    def to_json(self) -> dict[str, Any]:
        return {"status": STATUS(self.verdict), "properties": self.properties,
                "puzzles": self.puzzles, "seconds": round(self.seconds, 3)}

    def junit(self) -> str:
        """JUnit XML: one test case per property and per puzzle."""
        cases = []
        failures = skipped = 0

        def case(classname: str, name: str, seconds: float, failure: tuple[str, str] | None, unknown: str) -> None:
            nonlocal failures, skipped
            body = ""
            if failure is not None:
                failures += 1
                body = f'<failure message={quoteattr(failure[0])}>{escape(failure[1])}</failure>'
            elif unknown:
                skipped += 1
                body = f'<skipped message={quoteattr(unknown)}/>'
            cases.append(f'<testcase classname="{classname}" name={quoteattr(name)} '
                         f'time="{seconds:.3f}">{body}</testcase>')

        for p in self.properties:
            verdict = PROOF.parse_applicable(p["verdict"])
            history = [f"history: {history_line(p['history'])}"] if "history" in p else []
            case("properties", p["id"] + " " + p["title"], p["seconds"],
                 (p["id"] + " refuted", "\n".join([*p.get("trace", []), *history]))
                 if verdict is Verdict.REFUTED else None,
                 "unknown: the solver gave no answer in time" if verdict is Verdict.UNKNOWN else
                 f"{NOT_APPLICABLE}: {p.get('reason', '')}" if verdict is None else "")
        for p in self.puzzles:
            failure = None
            verdict = status_verdict(status_of(p))
            if status_of(p) is PuzzleStatus.INVALID:
                failure = (f'invalid under this ruleset: {p["error"]}', p.get("question", ""))
            elif verdict is Verdict.REFUTED:  # the answer changed
                failure = (f'answer changed: recorded {p["recorded"]}, now {p["answer"]["verdict"]}',
                           p.get("question", ""))
            case("puzzles", p["name"], p["seconds"], failure,
                 "unknown: the search ran out of time" if verdict is Verdict.UNKNOWN else "")
        total = len(cases)
        return ('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n'
                f'<testsuite name="niagara-solve check" tests="{total}" failures="{failures}" errors="0" '
                f'skipped="{skipped}" time="{self.seconds:.3f}">\n' + "\n".join(cases)
                + "\n</testsuite>\n</testsuites>\n")


def check_tasks(board: Board, rules: Ruleset, puzzles: str | None, players: list[int], override: bool,
                timeout: float = 60, ids: list[str] | None = None) -> list[Task]:
    """The independent tasks of a check: the catalogue (or the properties ``ids``) per player count, then each
    puzzle."""
    require(rules, "encoding")
    rules.check_players(players)  # refused before any task runs
    if ids:
        check_ids(ids)
    tasks: list[Task] = [prove_task(rules.to_json(), board.to_json(), n, ids or None, timeout) for n in players]
    tasks += [puzzle_task(path, rules.to_json() if override else None, timeout) for path in puzzle_paths(puzzles)]
    return tasks


def check_from(tasks: list[Task], results: Results, seconds: float = 0.0,
               history_rounds: int = HISTORY_ROUNDS) -> CheckReport:
    """The report from the tasks' results, each counterexample with whether a game reaches it (histories of at most
    ``history_rounds`` rounds, within the time left)."""
    done = [results[task_key(t)] for t in tasks]
    report = CheckReport(seconds=seconds)
    report.properties = with_histories(merge_properties([r for r in done if r["kind"] == "prove"]), history_rounds)
    report.puzzles = [r for r in done if r["kind"] == "puzzle" and status_of(r) is not PuzzleStatus.NOT_A_PUZZLE]
    return report


def check(board: Board, rules: Ruleset, puzzles: str | None, players: list[int], override: bool,
          timeout: float = 60, jobs: int = 1, scheduler: str | None = None, show_progress: bool = False,
          ids: list[str] | None = None, history_rounds: int = HISTORY_ROUNDS) -> CheckReport:
    """Prove the catalogue (or the properties ``ids``) for each player count and answer every puzzle in the folder.

    ``override``: answer the puzzles under ``rules`` instead of the ruleset each puzzle file names. A property asked
    by ID whose module is off is not applicable: a skipped case in the JUnit XML, neither a pass nor a failure.
    Each counterexample says whether a game reaches it (histories of at most ``history_rounds`` rounds), within
    ``timeout`` seconds in all.
    """
    start = time.perf_counter()
    with time_limit(timeout):
        tasks = check_tasks(board, rules, puzzles, players, override, timeout, ids)
        results = run_all(tasks, jobs, scheduler, Progress(len(tasks), "check", show_progress))
        report = check_from(tasks, results, history_rounds=history_rounds)
    report.seconds = time.perf_counter() - start
    return report
