"""niagara-solver: rules verification and puzzle solving for the board game Niagara.

The flat public API (:mod:`niagara_solver.api`)::

    import niagara_solver as ns
    pos = ns.load_position("puzzles/erratum-two-canoes.json")
    ns.legal_turns(pos, "red", 5)
    ns.solve(pos, "red", "win", horizon=1)
    ns.prove("standard", players=[2, 3])

The rooms, from the ground floor up (docs/ARCHITECTURE.md): ``model`` (atoms, board, positions, notation,
rulesets, the file format) → ``engine`` | ``encoding`` (two independent readings of the rules) → ``verify`` |
``solver`` → ``design`` → ``report`` → ``cli``.
"""

# ruff: noqa: F401
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from niagara_solver.model import VERSION as __version__

if TYPE_CHECKING:  # the names as the type checker sees them (loaded lazily below)
    from niagara_solver.api import (advise, analyze, bundled_puzzles, certify, check, crosscheck, diff, flow,
                                    legal_turns, load_board, load_position, load_ruleset, mutants, play_turn, prove,
                                    simulate, solve, why)
    from niagara_solver.model.atoms import Card, Colour
    from niagara_solver.model.board import Board
    from niagara_solver.model.errors import NiagaraError
    from niagara_solver.model.notation import Turn
    from niagara_solver.model.position import Position
    from niagara_solver.model.ruleset import Ruleset
    from niagara_solver.model.verdict import Verdict
    from niagara_solver.solver.answers import Goal

#: Public name -> the module that defines it. Loaded on first use, so that a command that only draws a position
#: does not pay for z3 and the analyses at start-up (importing everything takes seconds).
_PUBLIC = {
    **{name: "niagara_solver.api" for name in (
        "advise", "analyze", "bundled_puzzles", "certify", "check", "crosscheck", "diff", "flow", "legal_turns",
        "load_board", "load_position", "load_ruleset", "mutants", "play_turn", "prove", "simulate", "solve", "why")},
    "Card": "niagara_solver.model.atoms", "Colour": "niagara_solver.model.atoms",
    "Board": "niagara_solver.model.board", "NiagaraError": "niagara_solver.model.errors",
    "Turn": "niagara_solver.model.notation", "Position": "niagara_solver.model.position",
    "Ruleset": "niagara_solver.model.ruleset", "Verdict": "niagara_solver.model.verdict",
    "Goal": "niagara_solver.solver.answers",
}

__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'niagara_solver' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
