"""Rulesets: the switches of RULES.md for every disputed reading, and the presets that bundle them.

A ruleset is written in a position (``"ruleset"``) or in a file of its own, as a preset name or as an
object ``{"base": PRESET, SWITCH: VALUE, ...}``. Unknown switches and bad values are errors.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from niagara_solver.model.errors import RulesetError, did_you_mean, quoted
from niagara_solver.model.limits import MAX_GEMS_PER_COLOUR
from niagara_solver.model.atoms import MIN_PLAYERS, MAX_PLAYERS, MOST_PLAYERS, KeptHash
from niagara_solver.model.switches import (BOOLEAN, Choice, GemCount, GemTable, Integer, Place, Switch, SwitchPhase,
                                           as_json, rows_of, switch, value_text)


class RescueWhenNone(StrEnum):
    """R-RESCUE-3: what a player with no canoe in play gets back (``rescue_when_none``)."""

    PAY_OR_FREE = "pay_or_free"  # pay a banked gem if there is one, else free (R-RESCUE-2)
    FREE = "free"                # one canoe back for free, whatever the bank (BGA 2013-05-09)


class RescueLimit(StrEnum):
    """R-RESCUE-4: how many fallen canoes a player may bring back in one phase I (``rescue_limit``)."""

    EACH = "each"  # every fallen canoe, one gem each (R-RESCUE-1)
    ONE = "one"    # at most one a round; the other waits (BGA's tips page)


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

    VALUE = "value"    # highest total bank value
    COUNT = "count"    # most gems
    SHARED = "shared"  # every player who reached the goal wins (BSW)


class GemSides(StrEnum):
    """R-MOVE-1: on which sides of its movement a canoe makes its gem actions (``gem_sides``)."""

    BOTH = "both"  # before and after it, e.g. unload, move, load
    ONE = "one"    # all before it or all after it (a steal is not a gem action)


class Reveal(StrEnum):
    """R-TURN-1: when the chosen cards are revealed (``reveal``)."""

    IN_TURN = "in_turn"  # each card when its player acts (BGA, BSW)
    AT_ONCE = "at_once"  # all cards at the start of phase II (Hungarian help)


class Card123Canoes(StrEnum):
    """X-CARDS-3: which canoes act with the 1/2/3 card (``card_123_canoes``)."""

    ONE = "one"  # one chosen canoe acts with the chosen budget
    ALL = "all"  # every canoe R-TURN-3 lets act, each with the same budget


class LassoScope(StrEnum):
    """X-CARDS-4: which of the player's river canoes the Lasso moors (``lasso_scope``)."""

    ALL = "all"
    ONE = "one"


class WhirlBrink(StrEnum):
    """X-WHIRL-2: whether a canoe may end on a whirlpool whose push takes it over the falls (``whirl_brink``)."""

    AVOID = "avoid"      # only when every action of that canoe with the same budget does so
    ALLOWED = "allowed"  # always


class WhirlCostStep(StrEnum):
    """X-WHIRL-3: which upstream step beside the whirlpool costs 2 points (``whirl_cost_step``)."""

    ENTER = "enter"  # the step onto it
    LEAVE = "leave"  # the step off it


@dataclass(frozen=True)
class Ruleset:
    """The value of every switch of RULES.md. Defaults are the ``standard`` preset (BGA 2013-05-11).

    Each field is a switch's whole row (:func:`~niagara_solver.model.switches.switch`): its type, default, values,
    rules and phases. :data:`SWITCHES` is built from these fields, in this order (RULES.md's switch table)."""

    steal_after_unload: bool = switch(True, values=BOOLEAN, rule="R-STEAL-5", phases=(SwitchPhase.TURN,),
                                      says="With steal_after_unload: false, a canoe that unloaded this turn cannot "
                                           "steal.")
    rescue_when_none: RescueWhenNone = switch(RescueWhenNone.PAY_OR_FREE, values=Choice(RescueWhenNone),
                                              rule="R-RESCUE-3", also=("R-RESCUE-2",), phases=(SwitchPhase.RESCUE,),
                                              says="With rescue_when_none: free, a player with no canoe in play gets "
                                                   "one back free.")
    rescue_limit: RescueLimit = switch(RescueLimit.EACH, values=Choice(RescueLimit), rule="R-RESCUE-4",
                                       phases=(SwitchPhase.RESCUE,),
                                       says="With rescue_limit: one, a player brings back at most one canoe a round.")
    port_departure: PortDeparture = switch(PortDeparture.EXACTLY_ONE, values=Choice(PortDeparture), rule="R-TURN-3",
                                           phases=(SwitchPhase.TURN,))
    bank_after_load: bool = switch(True, values=BOOLEAN, rule="R-GEM-5", phases=(SwitchPhase.TURN,))
    must_move: bool = switch(False, values=BOOLEAN, rule="R-MOVE-1", phases=(SwitchPhase.TURN,))
    min_flow: int = switch(0, values=Integer(0, 1), rule="R-FLOW-2", phases=(SwitchPhase.FLOW,))
    fork_policy: ForkPolicy = switch(ForkPolicy.ALTERNATE, values=Choice(ForkPolicy), rule="R-FLOW-4",
                                     phases=(SwitchPhase.FLOW,))
    tiebreak: Tiebreak = switch(Tiebreak.VALUE, values=Choice(Tiebreak), rule="R-END-3", phases=(SwitchPhase.END,))
    gems_per_colour: int | GemTable = switch(8, values=GemCount(1, MAX_GEMS_PER_COLOUR, (MIN_PLAYERS, MOST_PLAYERS)),
                                             rule="R-COMP-3", also=("X-GEMS-1",), phases=(SwitchPhase.SETUP,),
                                             tries=(8, 3, 1, {"2": 5, "3": 6, "4": 7, "5": 7, "6": 8}))
    capacity: int = switch(1, values=Integer(1, 2), rule="R-GEM-2", phases=(SwitchPhase.TURN,))
    gem_sides: GemSides = switch(GemSides.BOTH, values=Choice(GemSides), rule="R-MOVE-1", phases=(SwitchPhase.TURN,))
    reveal: Reveal = switch(Reveal.IN_TURN, values=Choice(Reveal), rule="R-TURN-1", phases=(SwitchPhase.KNOWLEDGE,))
    # The expansion's modules (RULES.md section X), each off by default and usable alone or with the others.
    # A module's pieces are the fields of a position file it brings (docs/FORMAT.md, "Expansion fields").
    x_cards: bool = switch(False, values=BOOLEAN, rule="X-CARDS-1", also=("X-CARDS-2", "X-CARDS-3", "X-CARDS-4"),
                           phases=(SwitchPhase.TURN, SwitchPhase.FLOW), module=True, pieces=("card_budget", "moored"))
    x_double: bool = switch(False, values=BOOLEAN, rule="X-DOUBLE-1", also=("X-DOUBLE-2", "X-DOUBLE-3", "X-DOUBLE-4"),
                            phases=(SwitchPhase.TURN, SwitchPhase.SETUP), module=True, pieces=("kind",))
    x_whirl: bool = switch(False, values=BOOLEAN, rule="X-WHIRL-1",
                           also=("X-WHIRL-2", "X-WHIRL-3", "X-WHIRL-4", "X-WHIRL-5"),
                           phases=(SwitchPhase.TURN, SwitchPhase.FLOW), module=True, pieces=("whirlpool",))
    x_beaver: bool = switch(False, values=BOOLEAN, rule="X-BEAVER-1", also=("X-BEAVER-2",),
                            phases=(SwitchPhase.FLOW, SwitchPhase.TURN), module=True, pieces=("beaver",))
    x_moose: bool = switch(False, values=BOOLEAN, rule="X-MOOSE-1", also=("X-MOOSE-2", "X-MOOSE-3"),
                           phases=(SwitchPhase.TURN, SwitchPhase.FLOW), module=True, pieces=("moose",))
    x_joe: bool = switch(False, values=BOOLEAN, rule="X-JOE-1", also=("X-JOE-2", "X-JOE-3"),
                         phases=(SwitchPhase.FLOW, SwitchPhase.TURN), module=True, pieces=("joe",))
    x_sixth_player: bool = switch(False, values=BOOLEAN, rule="X-SIX-1", phases=(SwitchPhase.SETUP,), module=True)
    card_123_canoes: Card123Canoes = switch(Card123Canoes.ONE, values=Choice(Card123Canoes), rule="X-CARDS-3",
                                            phases=(SwitchPhase.TURN,))
    lasso_scope: LassoScope = switch(LassoScope.ALL, values=Choice(LassoScope), rule="X-CARDS-4",
                                     phases=(SwitchPhase.TURN,))
    double_one_cave: bool = switch(True, values=BOOLEAN, rule="X-DOUBLE-2", phases=(SwitchPhase.TURN,))
    whirl_start: str = switch("3", values=Place(), rule="X-WHIRL-1", phases=(SwitchPhase.SETUP,), tries=("3", "2"))
    whirl_brink: WhirlBrink = switch(WhirlBrink.AVOID, values=Choice(WhirlBrink), rule="X-WHIRL-2",
                                     phases=(SwitchPhase.TURN,))
    whirl_cost_step: WhirlCostStep = switch(WhirlCostStep.ENTER, values=Choice(WhirlCostStep), rule="X-WHIRL-3",
                                            phases=(SwitchPhase.TURN,))

    #: The weather marker's range (R-COMP-4, R-WEATHER-1).
    weather_min = -1
    weather_max = 2

    # Every position hashes its ruleset: the hash is kept (KeptHash).
    __hash__ = KeptHash.__hash__
    __getstate__ = KeptHash.__getstate__

    def player_counts(self) -> range:
        """How many players may play: 2 to 5 (R-COMP-1), 3 to 6 with the sixth player (X-SIX-1)."""
        return range(3, MOST_PLAYERS + 1) if self.x_sixth_player else range(MIN_PLAYERS, MAX_PLAYERS + 1)

    def check_players(self, counts: list[int], where: str = "--players") -> None:
        """Refuse a count of players this ruleset does not allow (R-COMP-1, X-SIX-1) or has no gems for
        (X-GEMS-1), naming ``where`` (an option or a JSON path)."""
        allowed = self.player_counts()
        for n in counts:
            if n not in allowed:
                raise RulesetError(where, f"{allowed[0]} to {allowed[-1]} players play under {self.describe()}, not "
                                          f"{n}", "X-SIX-1" if self.x_sixth_player or n > allowed[-1] else "R-COMP-1")
            if self.gems_for(n) is None:
                raise RulesetError(where, f"the ruleset's gems_per_colour has no entry for {n} players", "X-GEMS-1")

    def gems_for(self, players: int) -> int | None:
        """The gems of each colour with ``players`` players (R-COMP-3), or None when ``gems_per_colour`` is a
        table without that count (X-GEMS-1: such a position is refused)."""
        if isinstance(self.gems_per_colour, GemTable):
            return self.gems_per_colour.get_count(players)
        return self.gems_per_colour

    @property
    def modules(self) -> tuple[str, ...]:
        """The expansion modules that are on (the rows with ``module=True``), in RULES.md's order."""
        known: tuple[str, ...] | None = self.__dict__.get("_modules")
        if known is None:  # asked at every node of the solver's search
            known = self.__dict__["_modules"] = tuple(name for name in MODULES if getattr(self, name))
        return known

    def switches(self) -> dict[str, Any]:
        """Every switch and its value, as JSON values."""
        return {name: as_json(getattr(self, name)) for name in SWITCHES}

    def _switch_values(self) -> dict[str, Any]:
        """:meth:`switches`, kept (read only): the file form of a ruleset compares it with every preset's."""
        known: dict[str, Any] | None = self.__dict__.get("_switches")
        if known is None:
            known = self.__dict__["_switches"] = self.switches()
        return known

    def to_json(self) -> str | dict[str, Any]:
        """The ruleset as a file writes it: a preset name, or the nearest preset and the differences."""
        known: str | dict[str, Any] | None = self.__dict__.get("_json")
        if known is None:  # written with every position (a playout writes thousands): found once, handed out as copies
            best_name, best_diff = "standard", self._diff(PRESETS["standard"])
            for name, preset in PRESETS.items():
                diff = self._diff(preset)
                if len(diff) < len(best_diff):
                    best_name, best_diff = name, diff
            known = self.__dict__["_json"] = best_name if not best_diff else {"base": best_name, **best_diff}
        return copy.deepcopy(known)

    def _diff(self, preset: "Ruleset") -> dict[str, Any]:
        mine, theirs = self._switch_values(), preset._switch_values()
        return {k: v for k, v in mine.items() if theirs[k] != v}

    def describe(self) -> str:
        """A one-line summary: the preset name and the switches that differ from it."""
        spec = self.to_json()
        if isinstance(spec, str):
            return spec
        base = spec.pop("base")
        return f"{base} with " + ", ".join(f"{k}={value_text(v)}" for k, v in spec.items())

    @classmethod
    def from_json(cls, obj: object, path: str = "ruleset") -> "Ruleset":
        """Validate a ruleset (a preset name or an object) and build it."""
        if isinstance(obj, str):
            if obj in PRESETS:
                return PRESETS[obj]
            raise RulesetError(path, f"unknown ruleset preset {quoted(obj)}; presets: {', '.join(PRESETS)}"
                               f"{did_you_mean(obj, PRESETS)}", "SWITCHES")
        if not isinstance(obj, dict):
            raise RulesetError(path, "a ruleset is a preset name or an object {\"base\": PRESET, SWITCH: VALUE}",
                               "FORMAT")
        base_name = obj.get("base", "standard")
        if not isinstance(base_name, str) or base_name not in PRESETS:
            raise RulesetError(_join(path, "base"), f"unknown ruleset preset {quoted(base_name)}; presets: "
                                               f"{', '.join(PRESETS)}{did_you_mean(base_name, PRESETS)}", "SWITCHES")
        changes: dict[str, Any] = {}
        for key, value in obj.items():
            if key == "base":
                continue
            if key not in SWITCHES:
                raise RulesetError(_join(path, key), f"unknown switch {quoted(key)}; switches: {', '.join(SWITCHES)}"
                                   f"{did_you_mean(key, SWITCHES)}", "SWITCHES")
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
#: The expansion's modules (RULES.md section X), in the table's order.
MODULES: tuple[str, ...] = tuple(name for name, row in SWITCHES.items() if row.module)

#: The presets of RULES.md, by name.
_BSW = Ruleset(tiebreak=Tiebreak.SHARED)
#: The expansion's gems of each colour by player count (X-GEMS-1).
EXPANSION_GEMS = GemTable(((3, 6), (4, 7), (5, 7), (6, 8)))
_FLUSSGEISTER = dataclasses.replace(_BSW, x_cards=True, x_double=True, x_whirl=True, x_beaver=True, x_moose=True,
                                    x_sixth_player=True, gems_per_colour=EXPANSION_GEMS)
PRESETS: dict[str, Ruleset] = {
    "standard": Ruleset(),
    "bga-2013-05-09": Ruleset(steal_after_unload=False, rescue_when_none=RescueWhenNone.FREE),
    "bsw": _BSW,
    "flussgeister": _FLUSSGEISTER,
    "flussgeister-joe": dataclasses.replace(_FLUSSGEISTER, x_joe=True),
}

STANDARD = PRESETS["standard"]
