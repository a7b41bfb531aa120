"""Rulesets: the switches of RULES.md for every disputed reading, and the presets that bundle them.

A ruleset is written in a position (``"ruleset"``) or in a file of its own, as a preset name or as an
object ``{"base": PRESET, SWITCH: VALUE, ...}``. Unknown switches and bad values are errors.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Callable

from niagara_solver.model.errors import RulesetError


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


@dataclass(frozen=True)
class Ruleset:
    """The value of every switch of RULES.md. Defaults are the ``standard`` preset (BGA 2013-05-11)."""

    steal_after_unload: bool = True                       # R-STEAL-5
    rescue_when_none: RescueWhenNone = RescueWhenNone.PAY_OR_FREE  # R-RESCUE-2, R-RESCUE-3
    port_departure: PortDeparture = PortDeparture.EXACTLY_ONE     # R-TURN-3
    bank_after_load: bool = True                          # R-GEM-5
    must_move: bool = False                               # R-MOVE-1
    min_flow: int = 0                                     # R-FLOW-2
    fork_policy: ForkPolicy = ForkPolicy.ALTERNATE        # R-FLOW-4
    tiebreak: Tiebreak = Tiebreak.VALUE                   # R-END-3
    gems_per_colour: int = 8                              # R-COMP-3
    capacity: int = 1                                     # R-GEM-2

    #: The weather marker's range (R-COMP-4, R-WEATHER-1).
    weather_min = -1
    weather_max = 2

    def switches(self) -> dict[str, Any]:
        """Every switch and its value, as JSON values."""
        return {f.name: _json_value(getattr(self, f.name)) for f in dataclasses.fields(self)}

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
            raise RulesetError(path, f"unknown ruleset preset {obj!r}; presets: {', '.join(PRESETS)}",
                               "SWITCHES")
        if not isinstance(obj, dict):
            raise RulesetError(path, "a ruleset is a preset name or an object {\"base\": PRESET, SWITCH: VALUE}",
                               "FORMAT")
        base_name = obj.get("base", "standard")
        if not isinstance(base_name, str) or base_name not in PRESETS:
            raise RulesetError(_join(path, "base"), f"unknown ruleset preset {base_name!r}; presets: "
                                               f"{', '.join(PRESETS)}", "SWITCHES")
        changes: dict[str, Any] = {}
        for key, value in obj.items():
            if key == "base":
                continue
            if key not in SWITCHES:
                raise RulesetError(_join(path, key), f"unknown switch {key!r}; switches: {', '.join(SWITCHES)}",
                                   "SWITCHES")
            parse, rules = SWITCHES[key]
            try:
                changes[key] = parse(value)
            except ValueError as err:
                raise RulesetError(_join(path, key), str(err), rules) from None
        return dataclasses.replace(PRESETS[base_name], **changes)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _json_value(value: Any) -> Any:
    return value.value if isinstance(value, StrEnum) else value


def _boolean(value: object) -> bool:
    if isinstance(value, bool):
        return value
    raise ValueError(f"expected true or false, got {value!r}")


def _choice(enum: type[StrEnum]) -> Callable[[object], Any]:
    def parse(value: object) -> StrEnum:
        if isinstance(value, str):
            try:
                return enum(value)
            except ValueError:
                pass
        raise ValueError(f"expected one of {', '.join(repr(m.value) for m in enum)}, got {value!r}")
    return parse


def _integer(low: int, high: int | None) -> Callable[[object], int]:
    def parse(value: object) -> int:
        if isinstance(value, int) and not isinstance(value, bool) and value >= low and (high is None or value <= high):
            return value
        upper = f"..{high}" if high is not None else " or more"
        raise ValueError(f"expected an integer {low}{upper}, got {value!r}")
    return parse


#: Switch name -> (value parser, the rule IDs it changes).
SWITCHES: dict[str, tuple[Callable[[object], Any], str]] = {
    "steal_after_unload": (_boolean, "R-STEAL-5"),
    "rescue_when_none": (_choice(RescueWhenNone), "R-RESCUE-3"),
    "port_departure": (_choice(PortDeparture), "R-TURN-3"),
    "bank_after_load": (_boolean, "R-GEM-5"),
    "must_move": (_boolean, "R-MOVE-1"),
    "min_flow": (_integer(0, 1), "R-FLOW-2"),
    "fork_policy": (_choice(ForkPolicy), "R-FLOW-4"),
    "tiebreak": (_choice(Tiebreak), "R-END-3"),
    "gems_per_colour": (_integer(1, None), "R-COMP-3"),
    "capacity": (_integer(1, 2), "R-GEM-2"),
}

#: The presets of RULES.md, by name.
PRESETS: dict[str, Ruleset] = {
    "standard": Ruleset(),
    "bga-2013-05-09": Ruleset(steal_after_unload=False, rescue_when_none=RescueWhenNone.FREE),
}

STANDARD = PRESETS["standard"]
