"""The switch rows: everything the program knows about a ruleset switch, stated once.

A switch of RULES.md is one field of :class:`~niagara_solver.model.ruleset.Ruleset`, declared with
:func:`switch`. The declaration is the row: the field's name and type, its default, how a file's value is read
(:class:`Boolean`, :class:`Choice`, :class:`Integer`), the rule that states it and the other rules it changes,
the parts of a round it acts in, the values tests and ``diff`` try, the sentence of a rule that only states the
switch, and for an expansion module (RULES.md section X) that it is one and the pieces it brings to a position
file. :func:`rows_of` collects the rows, in the order of the fields, which is the order of RULES.md's switch table.

What is derived from the rows: reading and validating a ruleset (``Ruleset.from_json``, sweep grids), the fields
of a position file each module allows and the pieces taken away with it, the catalogue sentence of a switch's own
rule, the part of a round where ``diff`` looks for a switch's witness (and which switches are modules whose
witness is a puzzle), the rules the cross-check cannot exercise with a module off, the cross-check's goal and
coverage for a switch of phase I, the values the tests draw and the rulesets they combine, and the check that the
switch table of docs/RULES.md lists exactly these switches.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from niagara_solver.model.errors import quoted

T = TypeVar("T")

class SwitchPhase(StrEnum):
    """The parts of a game a switch may act in (a switch's ``phases``; the values are the words of ``diff --json``'s
    witnesses and docs/DIFF.md). Not :class:`~niagara_solver.model.atoms.Phase`, which says where in a round a
    position stands: a position of ``Phase.CARDS`` is before phase I's rescues, one of ``Phase.TURNS`` in phase II
    (after every turn, before phase III's flow)."""

    SETUP = "setup"            # which positions are valid at all (R-COMP)
    RESCUE = "rescue"          # phase I's rescues (R-RESCUE)
    TURN = "turn"              # phase II's turns (R-TURN, R-MOVE, R-GEM, R-STEAL)
    FLOW = "flow"              # phase III's flow (R-FLOW)
    END = "end"                # the end check (R-END)
    KNOWLEDGE = "knowledge"    # what a player knows when choosing: no legal move changes, only the solver's answers
                               # (R-TURN-1's ``reveal``)


#: Every part of a game, in a round's order.
PHASES: tuple[SwitchPhase, ...] = tuple(SwitchPhase)


class Boolean:
    """``true`` or ``false``."""

    domain: tuple[Any, ...] | None = (True, False)

    def parse(self, value: object) -> bool:
        if isinstance(value, bool):
            return value
        raise ValueError(f"expected true or false, got {quoted(value)}")


class Choice:
    """One of the values of an enumeration, written as its string."""

    def __init__(self, enum: type[StrEnum]) -> None:
        self.enum = enum
        self.domain: tuple[Any, ...] | None = tuple(m.value for m in enum)

    def parse(self, value: object) -> StrEnum:
        if isinstance(value, str):
            try:
                return self.enum(value)
            except ValueError:
                pass
        raise ValueError(f"expected one of {', '.join(repr(m.value) for m in self.enum)}, got {quoted(value)}")


#: The most values of an integer switch that are all listed (and all tried); a wider range is written "any ≥ LOW"
#: in RULES.md's table and is tried at the row's ``tries``.
LISTED_VALUES = 8


class Integer:
    """An integer from ``low`` to ``high`` (no upper bound when ``high`` is None).

    Its ``domain`` lists every value when there are few (at most :data:`LISTED_VALUES`), else is None."""

    def __init__(self, low: int, high: int | None = None) -> None:
        self.low, self.high = low, high
        self.domain: tuple[Any, ...] | None = (tuple(range(low, high + 1))
                                               if high is not None and high - low < LISTED_VALUES else None)

    def parse(self, value: object) -> int:
        if (isinstance(value, int) and not isinstance(value, bool) and value >= self.low
                and (self.high is None or value <= self.high)):
            return value
        upper = f"..{self.high}" if self.high is not None else " or more"
        raise ValueError(f"expected an integer {self.low}{upper}, got {quoted(value)}")


class Place:
    """The name of a board place, written as a string (whether the board has it is checked with the board)."""

    domain: tuple[Any, ...] | None = None

    def parse(self, value: object) -> str:
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)  # 3 is read as disc "3", as in a canoe's "at"
        if isinstance(value, str) and value and value.isprintable() and " " not in value and len(value) <= 40:
            return value
        raise ValueError(f"expected the name of a disc, e.g. \"3\", got {quoted(value)}")


class GemTable(tuple[tuple[int, int], ...]):
    """Gems of each colour by player count (X-GEMS-1): pairs (players, gems) in player order."""

    __slots__ = ()

    def get_count(self, players: int) -> int | None:
        """The gems of each colour for ``players`` players, or None when the table has no entry."""
        for count, gems in self:
            if count == players:
                return gems
        return None

    def to_json(self) -> dict[str, int]:
        """The table as a file writes it: ``{"3": 6, "4": 7}``."""
        return {str(count): gems for count, gems in self}


class GemCount:
    """A number of gems of each colour, ``low`` to ``high``, or a table of such numbers by player count
    (an object from player count to number, X-GEMS-1)."""

    domain: tuple[Any, ...] | None = None

    def __init__(self, low: int, high: int, players: tuple[int, int]) -> None:
        self.number = Integer(low, high)
        self.players = players

    def parse(self, value: object) -> int | GemTable:
        if isinstance(value, dict):
            if not value:
                raise ValueError("a table of gems by player count has at least one entry")
            pairs = []
            low, high = self.players
            for key, number in value.items():
                if not (isinstance(key, str) and key.isascii() and key.isdigit() and low <= int(key) <= high):
                    raise ValueError(f"a table of gems by player count has keys \"{low}\" to \"{high}\", "
                                     f"got {quoted(key)}")
                try:
                    pairs.append((int(key), self.number.parse(number)))
                except ValueError as err:
                    raise ValueError(f"players {key}: {err}") from None
            return GemTable(sorted(pairs))
        try:
            return self.number.parse(value)
        except ValueError:
            raise ValueError(f"expected an integer {self.number.low}..{self.number.high}, or an object from player "
                             f"count to such an integer, got {quoted(value)}") from None


Values = Boolean | Choice | Integer | Place | GemCount
BOOLEAN = Boolean()


def as_json(value: Any) -> Any:
    """A switch value as a file writes it (an enumeration member as its string, a gem table as an object)."""
    if isinstance(value, StrEnum):
        return value.value
    return value.to_json() if isinstance(value, GemTable) else value


def value_text(value: Any) -> str:
    """A switch value as a ruleset file spells it, for people to read: ``true``, ``false``, ``free``, ``2``, a gem
    table as its JSON object (never Python's ``True``)."""
    value = as_json(value)
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(", ", ": "))


@dataclass(frozen=True)
class Switch:
    """One switch of RULES.md: one row of its switch table, and what the program needs to know about it."""

    name: str
    default: Any                       # the value in force when a ruleset does not set the switch
    values: Values                     # how a file's value is read, and every value when there are few
    rule: str                          # the rule that states the switch: bad values and diff witnesses name it
    also: tuple[str, ...]              # the other rules whose reading it changes (RULES.md's table lists them too)
    phases: tuple[SwitchPhase, ...]    # where it changes what may happen; diff seeks a witness in the first
    tries: tuple[Any, ...]             # the values (as JSON) tests and diff try, the default first
    says: str = ""                     # the catalogue's sentence for ``rule`` when the rule only states the switch
    module: bool = False               # the switch turns an expansion module on (RULES.md section X)
    pieces: tuple[str, ...] = ()       # a module's fields of a position file, allowed only with it on (FORMAT.md)
    #: The module whose rules the switch changes: a module itself, or the module of the same rule family (a
    #: module's own switch: ``lasso_scope``, X-CARDS-4, is ``x_cards``'); None in the base game. Set by :func:`rows_of`.
    of_module: str | None = None

    @property
    def family(self) -> str:
        """The rule family of the switch's rule: ``R-RESCUE`` for R-RESCUE-4, ``X-CARDS`` for X-CARDS-4."""
        return self.rule.rsplit("-", 1)[0]

    @property
    def rules(self) -> tuple[str, ...]:
        """Every rule the switch changes, in the order of RULES.md (its switch table's last column)."""
        return tuple(sorted((self.rule, *self.also), key=_rule_order))

    @property
    def default_json(self) -> Any:
        return as_json(self.default)

    def parse(self, value: object) -> Any:
        """The value of a ruleset file, read; ValueError says what was expected."""
        return self.values.parse(value)


def switch(default: T, *, values: Values, rule: str, phases: tuple[SwitchPhase, ...], also: tuple[str, ...] = (),
           tries: tuple[Any, ...] | None = None, says: str = "", module: bool = False,
           pieces: tuple[str, ...] = ()) -> T:
    """A ruleset field that is a switch: its default, with the rest of its row kept in the field's metadata.

    ``tries`` may be left out when the switch has few values: then every value is tried, the default first.
    ``says``: the one sentence of the switch's own rule for explanations, when that rule states nothing but the
    switch (model/catalogue.py takes it from here). ``module``: the switch turns an expansion module on;
    ``pieces``: the fields of a position file the module brings (allowed only with it on, taken away with it)."""
    if tries is None:
        if values.domain is None:
            raise TypeError(f"a switch whose values have no end says which values to try (default {default!r})")
        tries = (as_json(default), *(v for v in values.domain if v != as_json(default)))
    row = Switch("", default, values, rule, also, phases, tries, says, module, pieces)
    return dataclasses.field(default=default, metadata={"switch": row})


def rows_of(cls: type) -> dict[str, Switch]:
    """The rows of a dataclass's switch fields, by name, in field order; every field must be a switch.

    Each row is checked here, so a mistake in a declaration fails at import rather than in a test."""
    rows: dict[str, Switch] = {}
    for f in dataclasses.fields(cls):
        row = f.metadata.get("switch")
        if not isinstance(row, Switch):
            raise TypeError(f"{cls.__name__}.{f.name} is not declared with switch(...)")
        row = dataclasses.replace(row, name=f.name)
        problems = []
        if not row.phases or any(p not in PHASES for p in row.phases):
            problems.append(f"phases must be among {', '.join(PHASES)}")
        if len(row.tries) < 2 or row.tries[0] != row.default_json or len(set(map(repr, row.tries))) < len(row.tries):
            problems.append("tries must list the default first and at least one other value, each once")
        for value in row.tries:
            try:
                parsed = row.parse(value)
            except ValueError as err:
                problems.append(f"tries: {err}")
            else:
                if as_json(parsed) != value or type(as_json(parsed)) is not type(value):
                    problems.append(f"tries: {value!r} is not written as a file writes it")
        if row.module and (row.default is not False or not row.rule.startswith("X-")):
            problems.append("a module is off by default and states a rule of section X")
        if row.pieces and not row.module:
            problems.append("only a module brings pieces")
        if problems:
            raise TypeError(f"switch {f.name}: " + "; ".join(problems))
        rows[f.name] = row
    modules = {row.family: name for name, row in rows.items() if row.module}
    for name, row in rows.items():
        of_module = modules.get(row.family)
        if row.rule.startswith("X-") and of_module is None and not row.module:
            raise TypeError(f"switch {name}: rule {row.rule} belongs to no module")
        rows[name] = dataclasses.replace(row, of_module=of_module)
    return rows


def _rule_order(rule: str) -> tuple[str, int]:
    head, _, number = rule.rpartition("-")
    return (head, int(number)) if number.isdigit() else (rule, 0)
