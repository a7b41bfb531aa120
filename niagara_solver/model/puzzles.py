"""Where puzzle files are: the bundled folder and the position files of any folder.

A puzzle is a position file with a ``"puzzle"`` object (docs/FORMAT.md). The puzzles that come with
niagara-solver are installed with the package (``niagara_solver/puzzles``, the repository's ``puzzles/``).
"""

from __future__ import annotations

import os
from pathlib import Path

from niagara_solver.model.board import Board
from niagara_solver.model.errors import NiagaraError
from niagara_solver.model.format import load_document
from niagara_solver.model.position import Position
from niagara_solver.model.ruleset import Ruleset


def bundled_puzzles() -> str | None:
    """The folder of puzzles that comes with niagara-solver, or None in an installation without it."""
    here = Path(__file__).resolve().parent.parent / "puzzles"
    return str(here) if here.is_dir() else None


def puzzle_paths(folder: str | None) -> list[str]:
    """The position files of a puzzle folder, sorted by name."""
    if not folder:
        return []
    return sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".json"))


def positions_under(folder: str | None, board: Board, rules: Ruleset) -> list[Position]:
    """The valid positions of a folder that are on ``board`` under ``rules`` (others are left out)."""
    found = []
    for path in puzzle_paths(folder):
        try:
            pos = load_document(path)[0]
        except NiagaraError:
            continue
        if pos.board == board and pos.ruleset == rules:
            found.append(pos)
    return found
