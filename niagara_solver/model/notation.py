"""Turns, rescues and their notation (docs/NOTATION.md).

A turn is a small immutable value; its notation round-trips: ``Turn.parse(str(t)) == t``.

Examples::

    port: >3 +amethyst          a canoe leaves the port, paddles down to disc 3, loads an amethyst
    4: -ruby +diamond <3        unload the ruby at 4, load a diamond, paddle up to 3
    3: <1 xblue/ruby            paddle up from 3 to 1 and steal blue's ruby
    4: <port; port: >5          the canoe on 4 goes home (banking its gem), then the other leaves the port
    cloud up                    the cloud card moves the weather one step up
    stay                        no canoe acts (a port canoe may stay, R-TURN-3)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from niagara_solver.model.errors import InvalidTurnError, quoted
from niagara_solver.model.atoms import PORT, Colour


def _colour(text: str, where: str) -> Colour:
    try:
        return Colour.parse(text)
    except ValueError:
        raise InvalidTurnError(f"{where}: unknown colour {quoted(text)}") from None


def _gems_text(gems: tuple[Colour, ...]) -> str:
    return ",".join(g.label for g in gems) if gems else "empty"


def _parse_gems(text: str, where: str) -> tuple[Colour, ...]:
    text = text.strip()
    if text.lower() == "empty":
        return ()
    return tuple(sorted(_colour(t, where) for t in text.split(",")))


@dataclass(frozen=True)
class Load:
    """Load a gem of ``colour`` from the cave beside the canoe (2 points, R-GEM-1)."""

    colour: Colour

    def __str__(self) -> str:
        return f"+{self.colour.label}"


@dataclass(frozen=True)
class Unload:
    """Unload the canoe's gem of ``colour`` into the cave beside it (2 points, R-GEM-1)."""

    colour: Colour

    def __str__(self) -> str:
        return f"-{self.colour.label}"


@dataclass(frozen=True)
class Move:
    """Paddle to ``dest`` in one direction: downstream (``>``) or upstream (``<``), 1 point a disc (R-MOVE-2)."""

    dest: str
    downstream: bool

    def __str__(self) -> str:
        return f"{'>' if self.downstream else '<'}{self.dest}"


@dataclass(frozen=True)
class Steal:
    """Take a gem of ``colour`` from a canoe of ``victim`` on the same disc (0 points, R-STEAL-1).

    ``victim_gems`` names the victim's canoe by its cargo, only when two of the victim's canoes on the
    disc carry that colour with different cargo (possible with capacity 2).
    """

    victim: str
    colour: Colour
    victim_gems: tuple[Colour, ...] | None = None

    def __str__(self) -> str:
        canoe = f"[{_gems_text(self.victim_gems)}]" if self.victim_gems is not None else ""
        return f"x{self.victim}{canoe}/{self.colour.label}"


Step = Union[Load, Unload, Move, Steal]


@dataclass(frozen=True)
class CanoeRef:
    """Names one of the player's canoes by its place at the start of the turn.

    ``gems`` (its cargo) is given only when the player's two canoes share that place with different
    cargo; otherwise it is None.
    """

    place: str
    gems: tuple[Colour, ...] | None = None

    def __str__(self) -> str:
        return self.place if self.gems is None else f"{self.place}[{_gems_text(self.gems)}]"


@dataclass(frozen=True)
class CanoeAction:
    """What one acting canoe does (R-MOVE-1): gem actions, one movement, gem actions, steals."""

    canoe: CanoeRef
    steps: tuple[Step, ...]

    def __str__(self) -> str:
        return f"{self.canoe}: " + " ".join(str(s) for s in self.steps) if self.steps else f"{self.canoe}:"

    @property
    def move(self) -> Move | None:
        """The movement, if the canoe moves."""
        for step in self.steps:
            if isinstance(step, Move):
                return step
        return None


@dataclass(frozen=True)
class Turn:
    """One player's turn in phase II: the canoe actions in the order they happen, or a weather step."""

    actions: tuple[CanoeAction, ...] = ()
    weather: int = 0

    def __str__(self) -> str:
        if self.weather:
            return "cloud up" if self.weather > 0 else "cloud down"
        if not self.actions:
            return "stay"
        return "; ".join(str(a) for a in self.actions)

    def __repr__(self) -> str:
        return f"Turn.parse({str(self)!r})"

    @property
    def is_cloud(self) -> bool:
        """True for a cloud card's weather step (R-TURN-2)."""
        return self.weather != 0

    @classmethod
    def parse(cls, text: str) -> "Turn":
        """Read a turn written in the notation; :class:`InvalidTurnError` says what is wrong."""
        if not isinstance(text, str) or not text.strip():
            raise InvalidTurnError("empty turn: write canoe actions, \"stay\", \"cloud up\" or \"cloud down\"")
        words = " ".join(text.split()).lower()
        if words in ("cloud up", "cloud +1", "cloud+"):
            return cls(weather=1)
        if words in ("cloud down", "cloud -1", "cloud-"):
            return cls(weather=-1)
        if words == "stay":
            return cls()
        return cls(tuple(_parse_action(part.strip(), k) for k, part in enumerate(text.split(";"))))


def _parse_action(text: str, k: int) -> CanoeAction:
    where = f"canoe action {k + 1} ({quoted(text)})"
    if ":" not in text:
        raise InvalidTurnError(f"{where}: start with the canoe's place and a colon, e.g. \"4: <port\"")
    head, _, body = text.partition(":")
    head = head.strip()
    gems: tuple[Colour, ...] | None = None
    if "[" in head:
        if not head.endswith("]"):
            raise InvalidTurnError(f"{where}: write a canoe as PLACE or PLACE[cargo]")
        head, _, cargo = head[:-1].partition("[")
        gems = _parse_gems(cargo, where)
    if not head:
        raise InvalidTurnError(f"{where}: missing the canoe's place")
    place = head.lower() if head.lower() == PORT else head
    steps: list[Step] = []
    for token in body.split():
        first, rest = token[0], token[1:]
        if first == "+":
            steps.append(Load(_colour(rest, where)))
        elif first == "-":
            steps.append(Unload(_colour(rest, where)))
        elif first in "<>":
            if not rest:
                raise InvalidTurnError(f"{where}: {quoted(token)} needs a destination, e.g. \">5\" or \"<port\"")
            steps.append(Move(rest.lower() if rest.lower() == PORT else rest, first == ">"))
        elif first in "xX":
            victim, slash, colour = rest.partition("/")
            victim_gems: tuple[Colour, ...] | None = None
            if "[" in victim:
                if not victim.endswith("]"):
                    raise InvalidTurnError(f"{where}: write a steal as xPLAYER/colour")
                victim, _, cargo = victim[:-1].partition("[")
                victim_gems = _parse_gems(cargo, where)
            if not victim or not slash:
                raise InvalidTurnError(f"{where}: write a steal as xPLAYER/colour, e.g. \"xblue/ruby\"")
            steps.append(Steal(victim, _colour(colour, where), victim_gems))
        else:
            raise InvalidTurnError(f"{where}: unknown step {quoted(token)}; steps are +colour (load), -colour "
                                   "(unload), >disc or <disc (move), xPLAYER/colour (steal)")
    return CanoeAction(CanoeRef(place, gems), tuple(steps))


@dataclass(frozen=True)
class Rescue:
    """A player's rescue decision in phase I (R-RESCUE-1): one payment per canoe brought back.

    A payment is a banked colour, or None for a free rescue (R-RESCUE-2, R-RESCUE-3).
    """

    payments: tuple[Colour | None, ...] = ()

    def __post_init__(self) -> None:
        ordered = tuple(sorted(self.payments, key=lambda c: 0 if c is None else int(c)))
        if ordered != self.payments:
            object.__setattr__(self, "payments", ordered)

    def __str__(self) -> str:
        if not self.payments:
            return "none"
        return ",".join("free" if c is None else c.label for c in self.payments)

    def __repr__(self) -> str:
        return f"Rescue.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> "Rescue":
        """Read ``none``, ``ruby``, ``free``, ``ruby,amber`` or ``free,ruby``."""
        words = text.strip().lower()
        if words in ("none", ""):
            return cls()
        payments: list[Colour | None] = []
        for word in words.split(","):
            word = word.strip()
            if word == "free":
                payments.append(None)
            else:
                try:
                    payments.append(Colour.parse(word))
                except ValueError:
                    raise InvalidTurnError(f"rescue {quoted(text)}: unknown colour {quoted(word)}; write none, free, "
                                           "or the colours paid, e.g. ruby,amber", "R-RESCUE-1") from None
        return cls(tuple(payments))
