"""The verification jobs (proofs, mutants, cross-checks) as independent tasks, and the merging of proofs made for
several player counts.

Each job starts from a fresh z3 context, so its answer (and its counterexample) is the same in one process, in a
pool of processes or on a cluster, whatever ran before.
"""

from __future__ import annotations

import time
from typing import Any

from niagara_solver.encoding.solver import fresh_context
from niagara_solver.jobs import Task
from niagara_solver.model.board import Board
from niagara_solver.model.limits import OutOfTime
from niagara_solver.model.ruleset import Ruleset
from niagara_solver.model.verdict import PROOF, Verdict, merge_applicable
from niagara_solver.verify.crosscheck import crosscheck
from niagara_solver.verify.mutants import check_mutants
from niagara_solver.verify.prove import prove


def prove_job(ruleset: Any, board: Any, players: int, ids: list[str] | None, timeout: float) -> dict[str, Any]:
    """Prove the catalogue (or the properties ``ids``) for one player count."""
    fresh_context()
    start = time.perf_counter()
    results = prove(Board.from_json(board), Ruleset.from_json(ruleset), players, ids, timeout)
    return {"kind": "prove", "players": players, "ruleset": ruleset, "board": board,
            "properties": [r.to_json() for r in results], "seconds": time.perf_counter() - start}


def mutant_job(name: str, ruleset: Any, board: Any, players: int, timeout: float) -> dict[str, Any]:
    """Check that the catalogue kills one mutant of the encoding."""
    fresh_context()
    (result,) = check_mutants(Board.from_json(board), Ruleset.from_json(ruleset), players, [name], timeout)
    return {"kind": "mutant", **result.to_json()}


def crosscheck_job(ruleset: Any, board: Any, count: int, seed: int, timeout: float) -> dict[str, Any]:
    """Cross-check the engine against the encoding on ``count`` seeded positions and the goal positions."""
    fresh_context()
    start = time.perf_counter()
    try:
        report = crosscheck(Board.from_json(board), Ruleset.from_json(ruleset), count, seed, timeout=timeout)
    except (TimeoutError, OutOfTime):  # the time limit ran out: nothing compared is claimed
        return {"kind": "crosscheck", "positions": 0, "sources": {}, "cases": {}, "outcomes": 0, "coverage": {},
                "goals": {}, "mismatches": [], "seconds": round(time.perf_counter() - start, 3), "skipped_rounds": 0,
                "unfinished": "the time limit ran out before the cross-check finished"}
    return {"kind": "crosscheck", **report.to_json()}


def prove_task(ruleset: Any, board: Any, players: int, ids: list[str] | None, timeout: float) -> Task:
    """The job of proving the catalogue for one player count (``ruleset`` and ``board`` as JSON)."""
    return Task(prove_job, (ruleset, board, players, ids, timeout))


def mutant_task(name: str, ruleset: Any, board: Any, players: int, timeout: float) -> Task:
    """The job of killing one mutant."""
    return Task(mutant_job, (name, ruleset, board, players, timeout))


def crosscheck_task(ruleset: Any, board: Any, count: int, seed: int, timeout: float) -> Task:
    """The job of one cross-check run."""
    return Task(crosscheck_job, (ruleset, board, count, seed, timeout))


def merge_properties(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per property over several player counts: the merged (worst) verdict, the first counterexample. A
    property that does not apply (its module is off) stays ``not applicable``, with the reason."""
    merged: dict[str, dict[str, Any]] = {}
    worst: dict[str, Verdict | None] = {}
    for result in results:
        for item in result["properties"]:
            entry = merged.setdefault(item["id"], {"id": item["id"], "title": item["title"], "verdict": item["verdict"],
                                                    "seconds": 0.0, "players": {}, "depends_on": item["depends_on"]})
            entry["seconds"] += item["seconds"]
            entry["players"][str(result["players"])] = item["verdict"]
            if "reason" in item:
                entry["reason"] = item["reason"]
            verdict = PROOF.parse_applicable(item["verdict"])
            before = worst.get(item["id"])
            if verdict is not None and (before is None or verdict > before):
                worst[item["id"]] = verdict
                entry["verdict"] = PROOF(verdict)
                for key in ("counterexample", "after", "flow", "trace", "choices", "replay"):
                    if key in item:
                        entry[key] = item[key]
    return list(merged.values())


def properties_verdict(properties: list[dict[str, Any]]) -> Verdict:
    """The merged verdict of merged properties (:func:`merge_properties`): the worst of those that apply, PROVED
    when none does (a property that does not apply is neither a pass nor a failure)."""
    merged = merge_applicable(PROOF.parse_applicable(p["verdict"]) for p in properties)
    return Verdict.PROVED if merged is None else merged
