"""The atoms of the game: gem colours, cards, special places and the phases of a round.

Closed sets are enums; gem counts are small immutable tuples indexed by colour.
"""

from __future__ import annotations

import re
from enum import Enum, IntEnum
from functools import lru_cache
from typing import Iterable, Iterator, Mapping

from niagara_solver.model.errors import quoted

#: The landing above the river (R-BOARD-2): canoes start here and gems brought here are banked.
PORT = "port"
#: Where a canoe is after its disc went over the falls (R-FLOW-6), until it is rescued (R-RESCUE-1).
FALLEN = "fallen"
#: The falls below every last disc of the river (R-BOARD-2); a board node, never a canoe's place.
FALLS = "falls"
#: Names a disc may not take, in any case (the turn notation reads ``Port`` as the port, docs/NOTATION.md).
RESERVED_PLACES = frozenset({PORT, FALLEN, FALLS})


def unwritable(name: str) -> bool:
    """True when ``name`` cannot be written as a name (of a player, a disc, a branch) in the turn notation,
    a table or a picture: it holds a space, a line break or another control or format character, or a lone
    surrogate (what ``str.isprintable`` refuses, and the plain space, which separates the notation's steps)."""
    return not name.isprintable() or " " in name


#: How many players play (R-COMP-1): every count of players the tool accepts, in positions and options.
MIN_PLAYERS = 2
MAX_PLAYERS = 5


class Colour(IntEnum):
    """A gem colour. The value is the gem's value for the tie-break (R-COMP-3)."""

    AMETHYST = 1
    DIAMOND = 2
    AMBER = 3
    SAPPHIRE = 4
    RUBY = 5

    @property
    def label(self) -> str:
        """The colour's name in files and notation (``"amethyst"``)."""
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> "Colour":
        """The colour named ``text`` (case-insensitive); ``ValueError`` if there is none."""
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown colour {quoted(text)}") from None

    def __str__(self) -> str:
        return self.label


#: The five colours in value order.
COLOURS: tuple[Colour, ...] = tuple(Colour)


class Card(IntEnum):
    """A card of a player's hand (R-COMP-2): six paddles valued 1..6 and the cloud."""

    CLOUD = 0
    ONE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6

    @property
    def is_paddle(self) -> bool:
        """True for a paddle card (every card but the cloud)."""
        return self is not Card.CLOUD

    @property
    def label(self) -> str:
        """``"cloud"`` or the paddle's value, as written in notation and tables."""
        return "cloud" if self is Card.CLOUD else str(int(self))

    def to_json(self) -> int | str:
        """The card as a position file writes it: an integer, or ``"cloud"``."""
        return "cloud" if self is Card.CLOUD else int(self)

    @classmethod
    def parse(cls, value: object) -> "Card":
        """The card written as ``value``: 1..6 (int or digit string) or ``"cloud"``."""
        if isinstance(value, bool):
            raise ValueError(f"unknown card {quoted(value)}")
        if isinstance(value, int):
            if 1 <= value <= 6:
                return cls(value)
            raise ValueError(f"unknown card {quoted(value)}: paddles are 1..6")
        if isinstance(value, str):
            text = value.strip().lower()
            if text == "cloud":
                return cls.CLOUD
            # ASCII digits only, never int() of the whole text: "²" is a digit to isdigit(), and Python refuses
            # to read an integer of thousands of digits.
            if text.isascii() and text.isdigit() and text.lstrip("0") in ("1", "2", "3", "4", "5", "6"):
                return cls(int(text))
        raise ValueError(f"unknown card {quoted(value)}: a card is 1..6 or \"cloud\"")

    def __str__(self) -> str:
        return self.label


#: A full hand (R-COMP-2), in canonical order: paddles 1..6, then the cloud.
FULL_HAND: tuple[Card, ...] = (Card.ONE, Card.TWO, Card.THREE, Card.FOUR, Card.FIVE, Card.SIX, Card.CLOUD)


def hand_order(card: Card) -> int:
    """Sort key putting paddles in value order and the cloud last."""
    return 7 if card is Card.CLOUD else int(card)


class Phase(Enum):
    """Where in the round (R-ROUND-1) a position stands."""

    #: The start of a round: rescues (R-RESCUE) and card choice (R-CARD-1) are still to come.
    CARDS = "cards"
    #: Phase II under way: rescues are done, every card is chosen, ``acted`` players have played.
    TURNS = "turns"


_NATURAL = re.compile(r"(\d+)")


@lru_cache(maxsize=4096)
def place_key(place: str) -> tuple[int, tuple[tuple[int, int | str], ...]]:
    """A board-independent sort key for places: the port, then discs in natural order, then fallen."""
    if place == PORT:
        return (0, ())
    if place == FALLEN:
        return (2, ())
    parts = tuple((0, int(p)) if p.isdigit() else (1, p) for p in _NATURAL.split(place) if p)
    return (1, parts)


class Gems(tuple[int, ...]):
    """An immutable count of gems per colour (index ``colour - 1``), e.g. a bank or a cave."""

    __slots__ = ()

    def __new__(cls, counts: Iterable[int] = (0, 0, 0, 0, 0)) -> "Gems":
        return super().__new__(cls, counts)

    @classmethod
    def of(cls, colours: Iterable[Colour]) -> "Gems":
        """The count of a collection of gems given one colour per gem."""
        counts = [0, 0, 0, 0, 0]
        for colour in colours:
            counts[colour - 1] += 1
        return cls(counts)

    @classmethod
    def from_mapping(cls, mapping: Mapping[Colour, int]) -> "Gems":
        """The count given as colour → number."""
        counts = [0, 0, 0, 0, 0]
        for colour, number in mapping.items():
            counts[colour - 1] += number
        return cls(counts)

    def get(self, colour: Colour) -> int:
        """How many gems of ``colour`` (index with this, never with ``[colour]``)."""
        return self[colour - 1]

    def plus(self, colour: Colour, number: int = 1) -> "Gems":
        """This count with ``number`` more gems of ``colour``."""
        counts = list(self)
        counts[colour - 1] += number
        return Gems(counts)

    def minus(self, colour: Colour, number: int = 1) -> "Gems":
        """This count with ``number`` fewer gems of ``colour``."""
        return self.plus(colour, -number)

    def add(self, other: Iterable[int]) -> "Gems":
        """The sum of two counts."""
        return Gems(a + b for a, b in zip(self, other))

    @property
    def total(self) -> int:
        """The number of gems."""
        return sum(self)

    @property
    def value(self) -> int:
        """The total value of the gems (R-COMP-3), used by the tie-break (R-END-3)."""
        return sum(n * c for n, c in zip(self, COLOURS))

    def colours(self) -> Iterator[Colour]:
        """The colours present, in value order."""
        return (c for c, n in zip(COLOURS, self) if n > 0)

    def items(self) -> Iterator[tuple[Colour, int]]:
        """(colour, count) for every colour present, in value order."""
        return ((c, n) for c, n in zip(COLOURS, self) if n > 0)

    def to_json(self) -> dict[str, int]:
        """Colour name → count, for the colours present."""
        return {c.label: n for c, n in self.items()}

    def describe(self) -> str:
        """A short text such as ``2 amethyst, 1 ruby`` (``none`` when empty)."""
        return ", ".join(f"{n} {c.label}" for c, n in self.items()) or "none"

    def __repr__(self) -> str:
        return f"Gems({tuple(self)!r})"


NO_GEMS = Gems()
