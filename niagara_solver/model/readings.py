"""Which switch values each reading of the rules covers, while the expansion (RULES.md section X) is being built.

The rules are read three times over: by the engine (turns, flow, rounds), by the encoding (the proofs, the
cross-check, diff's witnesses, the smt solver backend) and by the solver's search (what a player knows and can
force). A switch value that a reading does not cover yet is listed in :data:`NOT_COVERED`; that reading refuses a
ruleset using it with :class:`UncoveredRulesError` (exit status 2, naming the switch and its rule) instead of
answering by the base game's rules. A position file with the module on still loads, prints and draws.

Covering a value is removing its entry here, with the tests that show the reading now follows the rule (see
docs/ARCHITECTURE.md, "Adding a switch"). The test suite checks that every entry is refused by its reading.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from niagara_solver.model.errors import InputError
from niagara_solver.model.ruleset import SWITCHES, Ruleset

#: The three readings of the rules.
Reading = Literal["engine", "encoding", "solver"]
READINGS: tuple[Reading, ...] = ("engine", "encoding", "solver")

#: Reading -> switch -> the values (as a file writes them) that reading does not cover yet.
NOT_COVERED: dict[Reading, dict[str, tuple[Any, ...]]] = {
    "engine": {},
    "encoding": {},
    "solver": {},
}

_WHAT = {"engine": "the rules engine (turns, flow, rounds)",
         "encoding": "the symbolic encoding (proofs, cross-check, witnesses, the smt backend)",
         "solver": "the solver"}


class UncoveredRulesError(InputError):
    """A ruleset uses a switch value that this reading of the rules does not cover yet."""


def uncovered(rules: Ruleset, reading: Reading) -> list[str]:
    """The switches whose value in ``rules`` ``reading`` does not cover yet, in RULES.md's order."""
    missing = NOT_COVERED[reading]
    if not missing:
        return []  # every value covered: no need to write out the switches (this runs once per generated turn list)
    values = rules.switches()
    return [name for name in SWITCHES if name in missing and values[name] in missing[name]]


def covered(name: str, value: Any) -> bool:
    """True when every reading covers switch ``name`` set to ``value`` (as a file writes it)."""
    return all(value not in NOT_COVERED[r].get(name, ()) for r in READINGS)


def require(rules: Ruleset, reading: Reading) -> None:
    """Refuse ``rules`` if ``reading`` does not cover one of its switch values yet."""
    missing = uncovered(rules, reading)
    if missing:
        name = missing[0]
        value = rules.switches()[name]
        raise UncoveredRulesError(f"ruleset.{name}", f"{name}: {json.dumps(value)} is not yet covered by "
                                                     f"{_WHAT[reading]}; nothing is answered by the base game's rules "
                                                     "in its place", SWITCHES[name].rule)
