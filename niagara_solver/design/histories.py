"""Does a real game reach a counterexample? Each counterexample of ``prove``, ``check``, ``diff`` and ``sweep`` says so.

The prover proves for every *valid* position, and many valid positions arise in no game. A counterexample is
annotated with its history (:func:`..games.history.arises`): **reachable** (a game reaches it in round N: the trace
of its rounds, which ``replay`` plays again), **not reachable** (counting proves no game reaches it in any round: the
argument and its rule), or **unknown** (why: a position further into a round than the search asks about, the rounds
its hands allow beyond the rounds of history searched, or the time limit). The prover's positions carry no round (the
round written is 1 for every one), so the round is left free: the hands say which rounds may leave them (R-CARD-2).

This floor may ask both the prover (``verify``) and whole games (``games``); the prover never asks whole games. The
history gets the time the command has left (``model.limits``): out of time is unknown, never a guess.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Mapping

from niagara_solver.games.history import ARISES_ROUNDS, arises
from niagara_solver.model.errors import NiagaraError
from niagara_solver.model.format import position_from_json
from niagara_solver.model.board import Board
from niagara_solver.model.limits import OutOfTime, out_of_time, time_limit
from niagara_solver.model.position import Position
from niagara_solver.model.verdict import Verdict
from niagara_solver.model.ruleset import Ruleset
from niagara_solver.verify.catalogue import CatalogueReport, prove_catalogue

__all__ = ["ARISES_ROUNDS", "counterexample_history", "history_line", "with_histories",
           "catalogue_with_histories", "prove_with_histories"]

#: The words of a history's verdict, as the JSON's ``"verdict"`` says them.
REACHABLE, NOT_REACHABLE, UNKNOWN = "reachable", "not reachable", "unknown"


def counterexample_history(position: Position | Mapping[str, Any], rounds: int = ARISES_ROUNDS) -> dict[str, Any]:
    """Whether a game reaches a counterexample (a position, or its position file as JSON), searching histories of at
    most ``rounds`` rounds within the time the command has left, as JSON:

    ``verdict`` (``reachable``, ``not reachable``, ``unknown``), ``reason`` and ``rule`` (why not, or why unknown),
    ``round`` (reachable: the round it arises in), ``rounds`` (the rounds of its history), ``then`` (phase I's rescues
    and cards after them, for a position in phase II), ``trace`` (a trace file, docs/GAMES.md "Traces": ``replay``
    plays it again), ``searched`` (the rounds of history searched)."""
    out: dict[str, Any]
    if out_of_time():
        out = {"verdict": UNKNOWN, "reason": "the time limit ran out before it was asked", "rule": "LIMITS"}
    else:
        try:
            pos = position if isinstance(position, Position) else position_from_json(dict(position))
        except NiagaraError as err:  # a decoded position the format refuses (the prover says so in its trace)
            return {"verdict": UNKNOWN, "reason": f"the counterexample is not a valid position: {err}",
                    "rule": "FORMAT", "searched": rounds}
        try:
            result = arises(pos, rounds)
        except OutOfTime:
            out = {"verdict": UNKNOWN, "reason": "the time limit ran out", "rule": "LIMITS"}
        else:
            out = result.to_json()
            if result.verdict is Verdict.CONFIRMED:
                out["rounds"] = len(result.records)
                out["trace"] = result.trace_json()
    out["searched"] = rounds
    return out


def history_line(history: Mapping[str, Any]) -> str:
    """A counterexample's history in one line, as the commands print it."""
    verdict = history["verdict"]
    if verdict == REACHABLE:
        rounds = history["rounds"]
        then = f"; then {history['then']}" if history.get("then") else ""
        return (f"a game reaches it: round {history['round']}, after {rounds} round{'s' if rounds != 1 else ''} "
                f"from the setup{then} (its trace: --json, history.trace; replay plays it)")
    rule = f" ({history['rule']})" if history.get("rule") else ""
    if verdict == NOT_REACHABLE:
        return f"no game reaches it: {history['reason']}{rule}"
    return f"whether a game reaches it is unknown: {history['reason']}{rule}"


def with_histories(properties: list[dict[str, Any]], rounds: int = ARISES_ROUNDS,
                   key: str = "counterexample") -> list[dict[str, Any]]:
    """Merged properties as JSON (``check``'s, ``sweep``'s: :func:`..verify.jobs.merge_properties`), each with a
    counterexample under ``key`` given its ``"history"`` (new dicts; the others as they were)."""
    return [{**p, "history": counterexample_history(p[key], rounds)} if key in p else p for p in properties]


def catalogue_with_histories(report: CatalogueReport, rounds: int = ARISES_ROUNDS) -> CatalogueReport:
    """The catalogue's report with the history of each refuted property's counterexample (its first refuted player
    count's, the one shown)."""
    merged = []
    for prop in report.properties:
        if prop.refuted is not None and prop.refuted[1].counterexample is not None:
            prop = dataclasses.replace(prop, history=counterexample_history(
                prop.refuted[1].counterexample.position, rounds))
        merged.append(prop)
    return dataclasses.replace(report, properties=tuple(merged))


def prove_with_histories(board: Board, rules: Ruleset, players: list[int], ids: list[str] | None = None,
                         timeout: float | None = 60, progress: Callable[[str], None] | None = None,
                         history_rounds: int = ARISES_ROUNDS) -> CatalogueReport:
    """``prove``: the catalogue (:func:`..verify.catalogue.prove_catalogue`), then whether a game reaches each
    counterexample, within ``timeout`` seconds in all: the histories get what the proofs left."""
    with time_limit(timeout):
        report = prove_catalogue(board, rules, players, ids, timeout, progress)
        return catalogue_with_histories(report, history_rounds)
