"""Rulesets: the switches of RULES.md for every disputed reading, and the presets that bundle them.

A ruleset is written in a position (``"ruleset"``) or in a file of its own, as a preset name or as an
object ``{"base": PRESET, SWITCH: VALUE, ...}``. Unknown switches and bad values are errors.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from niagara_solver.model.errors import RulesetError, quoted
from niagara_solver.model.limits import MAX_GEMS_PER_COLOUR
from niagara_solver.model.switches import BOOLEAN, Choice, Integer, Switch, as_json, rows_of, switch


class RescueWhenNone(StrEnum):
    """R-RESCUE-3: what a player with no canoe in play gets back (``rescue_when_none``)."""

    PAY_OR_FREE = "pay_or_free"  # pay a banked gem if there is one, else free (R-RESCUE-2)
    FREE = "free"                # one canoe back for free, whatever the bank (BGA 2013-05-09)


class PortDeparture(StrEnum):
    """R-TURN-3: how many of two canoes in the port act with a paddle (``port_departure``)."""

    EXACTLY_ONE = "exactly_one"
    AT_MOST_ONE = "at_most_one"


class ForkPolicy(StrEnum):
    """R-FLOW-4: how discs entering a fork choose their branch (``fork_policy``)."""

    ALTERNATE = "alternate"  # the fork marker alternates the branches
    FREE = "free"            # any branch, each time (a designer's what-if)


class Tiebreak(StrEnum):
    """R-END-3: how winners are chosen among players who reached the goal (``tiebreak``)."""

    VALUE = "value"  # highest total bank value
    COUNT = "count"  # most gems


class GemSides(StrEnum):
    """R-MOVE-1: on which sides of its movement a canoe makes its gem actions (``gem_sides``)."""

    BOTH = "both"  # before and after it, e.g. unload, move, load
    ONE = "one"    # all before it or all after it (a steal is not a gem action)


@dataclass(frozen=True)
class Ruleset:
    """The value of every switch of RULES.md. Defaults are the ``standard`` preset (BGA 2013-05-11).

    Each field is a switch's whole row (:func:`~niagara_solver.model.switches.switch`): its type, default, values,
    rules and phases. :data:`SWITCHES` is built from these fields, in this order (RULES.md's switch table)."""

    steal_after_unload: bool = switch(True, values=BOOLEAN, rule="R-STEAL-5", phases=("turn",))
    rescue_when_none: RescueWhenNone = switch(RescueWhenNone.PAY_OR_FREE, values=Choice(RescueWhenNone),
                                              rule="R-RESCUE-3", also=("R-RESCUE-2",), phases=("rescue",))
    port_departure: PortDeparture = switch(PortDeparture.EXACTLY_ONE, values=Choice(PortDeparture), rule="R-TURN-3",
                                           phases=("turn",))
    bank_after_load: bool = switch(True, values=BOOLEAN, rule="R-GEM-5", phases=("turn",))
    must_move: bool = switch(False, values=BOOLEAN, rule="R-MOVE-1", phases=("turn",))
    min_flow: int = switch(0, values=Integer(0, 1), rule="R-FLOW-2", phases=("flow",))
    fork_policy: ForkPolicy = switch(ForkPolicy.ALTERNATE, values=Choice(ForkPolicy), rule="R-FLOW-4",
                                     phases=("flow",))
    tiebreak: Tiebreak = switch(Tiebreak.VALUE, values=Choice(Tiebreak), rule="R-END-3", phases=("end",))
    gems_per_colour: int = switch(8, values=Integer(1, MAX_GEMS_PER_COLOUR), rule="R-COMP-3", phases=("setup",),
                                  tries=(8, 3, 1))
    capacity: int = switch(1, values=Integer(1, 2), rule="R-GEM-2", phases=("turn",))
    gem_sides: GemSides = switch(GemSides.BOTH, values=Choice(GemSides), rule="R-MOVE-1", phases=("turn",))

    #: The weather marker's range (R-COMP-4, R-WEATHER-1).
    weather_min = -1
    weather_max = 2

    def switches(self) -> dict[str, Any]:
        """Every switch and its value, as JSON values."""
        return {name: as_json(getattr(self, name)) for name in SWITCHES}

    def to_json(self) -> str | dict[str, Any]:
        """The ruleset as a file writes it: a preset name, or the nearest preset and the differences."""
        best_name, best_diff = "standard", self._diff(PRESETS["standard"])
        for name, preset in PRESETS.items():
            diff = self._diff(preset)
            if len(diff) < len(best_diff):
                best_name, best_diff = name, diff
        if not best_diff:
            return best_name
        return {"base": best_name, **best_diff}

    def _diff(self, preset: "Ruleset") -> dict[str, Any]:
        mine, theirs = self.switches(), preset.switches()
        return {k: v for k, v in mine.items() if theirs[k] != v}

    def describe(self) -> str:
        """A one-line summary: the preset name and the switches that differ from it."""
        spec = self.to_json()
        if isinstance(spec, str):
            return spec
        base = spec.pop("base")
        return f"{base} with " + ", ".join(f"{k}={v}" for k, v in spec.items())

    @classmethod
    def from_json(cls, obj: object, path: str = "ruleset") -> "Ruleset":
        """Validate a ruleset (a preset name or an object) and build it."""
        if isinstance(obj, str):
            if obj in PRESETS:
                return PRESETS[obj]
            raise RulesetError(path, f"unknown ruleset preset {quoted(obj)}; presets: {', '.join(PRESETS)}",
                               "SWITCHES")
        if not isinstance(obj, dict):
            raise RulesetError(path, "a ruleset is a preset name or an object {\"base\": PRESET, SWITCH: VALUE}",
                               "FORMAT")
        base_name = obj.get("base", "standard")
        if not isinstance(base_name, str) or base_name not in PRESETS:
            raise RulesetError(_join(path, "base"), f"unknown ruleset preset {quoted(base_name)}; presets: "
                                               f"{', '.join(PRESETS)}", "SWITCHES")
        changes: dict[str, Any] = {}
        for key, value in obj.items():
            if key == "base":
                continue
            if key not in SWITCHES:
                raise RulesetError(_join(path, key), f"unknown switch {quoted(key)}; switches: {', '.join(SWITCHES)}",
                                   "SWITCHES")
            row = SWITCHES[key]
            try:
                changes[key] = row.parse(value)
            except ValueError as err:
                raise RulesetError(_join(path, key), str(err), row.rule) from None
        return dataclasses.replace(PRESETS[base_name], **changes)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


#: Every switch's row, by name, in the order of RULES.md's switch table (docs/RULES.md, "Switches and presets").
SWITCHES: dict[str, Switch] = rows_of(Ruleset)

#: The presets of RULES.md, by name.
PRESETS: dict[str, Ruleset] = {
    "standard": Ruleset(),
    "bga-2013-05-09": Ruleset(steal_after_unload=False, rescue_when_none=RescueWhenNone.FREE),
}

STANDARD = PRESETS["standard"]
