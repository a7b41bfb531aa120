"""The property catalogue proved for several player counts, merged per property (``niagara-solve prove``).

A property's merged verdict is the worst over the player counts (``max`` of :class:`Verdict`); the first refuted
player count gives the counterexample shown. A property asked by ID whose expansion module is off is not applicable
(verdict ``None``, with the reason): the run's verdict leaves it out (docs/PROVER.md, "Properties that do not
apply").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from niagara_solver.model.readings import require
from niagara_solver.model.board import Board
from niagara_solver.model.errors import InputError, did_you_mean
from niagara_solver.model.limits import time_limit
from niagara_solver.model.ruleset import Ruleset
from niagara_solver.model.verdict import PROOF, Verdict, merge_applicable
from niagara_solver.verify.properties import BY_ID
from niagara_solver.verify.prove import PropertyResult, prove

_COUNTEREXAMPLE_KEYS = ("counterexample", "after", "flow", "choices", "trace", "replay")


@dataclass(frozen=True)
class MergedProperty:
    """One property over several player counts."""

    result: PropertyResult                       # the first player count's result (title, method, rules)
    by_players: tuple[tuple[int, Verdict | None], ...]
    seconds: float
    refuted: tuple[int, PropertyResult] | None   # the first refuted player count and its result
    #: Whether a game reaches the counterexample shown (JSON, docs/PROVER.md "Does a game reach it?"), told by a
    #: floor that asks whole games (``design.histories``); None where nobody asked.
    history: Mapping[str, Any] | None = None

    @property
    def id(self) -> str:
        return self.result.id

    @property
    def verdict(self) -> Verdict | None:
        """The worst verdict over the player counts; ``None`` when the property does not apply (its module is
        off: the same for every player count)."""
        return merge_applicable(v for _, v in self.by_players)

    @property
    def reason(self) -> str:
        """Why the property does not apply (``"x_moose is off"``), or ``""``."""
        return self.result.reason

    @property
    def word(self) -> str:
        """The verdict in the prover's words, as the command line says it: ``proved``, ``refuted``, ``unknown`` or
        ``not applicable``."""
        return PROOF.word(self.verdict)

    def to_json(self) -> dict[str, Any]:
        item = self.result.to_json()
        item["verdict"], item["seconds"] = PROOF.word(self.verdict), round(self.seconds, 3)
        item["players"] = {str(n): PROOF.word(v) for n, v in self.by_players}
        for key in _COUNTEREXAMPLE_KEYS:
            item.pop(key, None)
        if self.refuted is not None:
            n, refuted = self.refuted
            item.update({k: v for k, v in refuted.to_json().items() if k in _COUNTEREXAMPLE_KEYS})
            item["counterexample_players"] = n
            if self.history is not None:
                item["history"] = dict(self.history)
        return item


@dataclass(frozen=True)
class CatalogueReport:
    """Every property asked, merged over the player counts."""

    board: Board
    rules: Ruleset
    players: tuple[int, ...]
    properties: tuple[MergedProperty, ...]

    @property
    def verdict(self) -> Verdict:
        """The worst verdict of the properties that apply (CONFIRMED when every one of them is proved, and when
        none applies: a property that does not apply is neither proved nor a failure)."""
        merged = merge_applicable(p.verdict for p in self.properties)
        return Verdict.PROVED if merged is None else merged

    @property
    def word(self) -> str:
        """The merged verdict in the prover's words, as the command line says it: ``proved``, ``refuted`` or
        ``unknown`` (:attr:`verdict` is the :class:`Verdict` itself, whose CONFIRMED the prover calls PROVED)."""
        return PROOF(self.verdict)

    @property
    def exit_status(self) -> int:
        """0 proved (every property that applies), 1 refuted, 3 unknown."""
        return self.verdict.exit_status

    def to_json(self) -> dict[str, Any]:
        return {"ruleset": self.rules.to_json(), "board": self.board.to_json(), "players": list(self.players),
                "properties": [p.to_json() for p in self.properties]}


def check_ids(ids: list[str] | tuple[str, ...]) -> None:
    """Refuse an unknown property ID (``--property``)."""
    for pid in ids:
        if pid not in BY_ID:
            raise InputError("--property", f"unknown property {pid!r}; properties: {', '.join(BY_ID)}"
                                           f"{did_you_mean(pid, BY_ID)}", "R-PROP")


def prove_catalogue(board: Board, rules: Ruleset, players: list[int], ids: list[str] | None = None,
                    timeout: float | None = 60, progress: Callable[[str], None] | None = None) -> CatalogueReport:
    """Prove the catalogue (or the properties ``ids``) for every player count in ``players``, within ``timeout``
    seconds in all (what is not settled by then is UNKNOWN); ``progress`` is told each proof as it starts."""
    require(rules, "encoding")
    rules.check_players(players)
    if ids:
        check_ids(ids)
    runs: dict[str, list[tuple[int, PropertyResult]]] = {}
    with time_limit(timeout):
        for n in players:
            for result in prove(board, rules, n, list(ids) if ids else None, timeout, progress=progress):
                runs.setdefault(result.id, []).append((n, result))
    merged = []
    for results in runs.values():
        refuted = next(((n, r) for n, r in results if r.verdict is Verdict.REFUTED), None)
        merged.append(MergedProperty(results[0][1], tuple((n, r.verdict) for n, r in results),
                                     sum(r.seconds for _, r in results), refuted))
    return CatalogueReport(board, rules, tuple(players), tuple(merged))
