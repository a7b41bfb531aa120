"""Where puzzle files are: the bundled folder and the position files of any folder.

A puzzle is a position file with a ``"puzzle"`` object (docs/FORMAT.md). The puzzles that come with
niagara-solver are installed with the package (``niagara_solver/puzzles``, the repository's ``puzzles/``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from niagara_solver.model.board import Board
from niagara_solver.model.errors import NiagaraError
from niagara_solver.model.format import load_document
from niagara_solver.model.position import Position
from niagara_solver.model.ruleset import SWITCHES, Ruleset


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


#: The expansion's cards as a position file writes them (X-CARDS-1).
EXPANSION_CARD_NAMES = (7, "lasso", "123")


def without_modules(doc: dict[str, Any], modules: list[str]) -> dict[str, Any]:
    """The puzzle's position with its modules off: their pieces and marks taken away (a double canoe becomes a
    single one keeping one gem, the moose leaves its canoe, Diamond Joe's gem goes back to its cave, the expansion's
    cards leave the hands, the sixth player leaves the table). ``modules`` may name other switches too (``tiebreak``):
    each named switch goes back to its default. ``doc`` is a position file's document (docs/FORMAT.md); a new
    document is returned. The expansion puzzles are shown to depend on their module this way
    (tests/test_puzzles.py), and ``diff`` uses it for a module's witness.

    The fields a module brings are its row's ``pieces`` (model/ruleset.py), taken away wherever a position file may
    hold them (the position, a player, a canoe); what else leaves with a module is said here by its rule."""
    doc = json.loads(json.dumps(doc))
    rules = doc.get("ruleset", "standard")
    rules = {"base": rules} if isinstance(rules, str) else rules
    doc["ruleset"] = {**rules, **{m: SWITCHES[m].default_json for m in modules}}
    pieces = [piece for m in modules for piece in SWITCHES[m].pieces]
    joe = doc.get("joe") if "x_joe" in modules else None
    if isinstance(joe, dict) and "gem" in joe and "caves" in doc:
        cave = doc["caves"].setdefault(joe["gem"], {})  # X-JOE-1: his gem goes to its own colour's cave
        cave[joe["gem"]] = cave.get(joe["gem"], 0) + 1
    if "x_sixth_player" in modules and len(doc["players"]) == 6:
        # X-SIX-1: the sixth seat leaves; the lifebuoy, if it was there, passes on to the first seat (R-BUOY-1).
        sixth = doc["players"].pop()
        if doc["lifebuoy"] == sixth["name"]:
            doc["lifebuoy"] = doc["players"][0]["name"]
    for holder in [doc, *doc["players"], *(canoe for player in doc["players"] for canoe in player["canoes"])]:
        for piece in pieces:
            holder.pop(piece, None)
    for player in doc["players"]:
        if "x_cards" in modules:  # X-CARDS-1: the expansion's cards
            hand = player.get("hand", [1, 2, 3, 4, 5, 6, "cloud"])
            player["hand"] = [c for c in hand if c not in EXPANSION_CARD_NAMES]
        for canoe in player["canoes"]:
            if "x_double" in modules:  # X-DOUBLE-1: a single canoe carries one gem
                gems = canoe.pop("gems", [])
                if gems:
                    canoe["gem"] = gems[0]
    return doc
