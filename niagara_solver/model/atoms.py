"""The atoms of the game: gem colours, cards, special places and the phases of a round.

Closed sets are enums; gem counts are small immutable tuples indexed by colour.
"""

from __future__ import annotations

import dataclasses
import re
from enum import Enum, IntEnum, StrEnum
from functools import lru_cache
from operator import attrgetter
from typing import Callable, Iterable, Iterator, Mapping

from niagara_solver.model.errors import quoted

#: The landing above the river (R-BOARD-2): canoes start here and gems brought here are banked.
PORT = "port"
#: Where a canoe is after its disc went over the falls (R-FLOW-6), until it is rescued (R-RESCUE-1).
FALLEN = "fallen"
#: The falls below every last disc of the river (R-BOARD-2); a board node, never a canoe's place.
FALLS = "falls"
#: Names a disc may not take, in any case (the turn notation reads ``Port`` as the port, docs/NOTATION.md).
RESERVED_PLACES = frozenset({PORT, FALLEN, FALLS, "next"})


def unwritable(name: str) -> bool:
    """True when ``name`` cannot be written as a name (of a player, a disc, a branch) in the turn notation,
    a table or a picture: it holds a space, a line break or another control or format character, or a lone
    surrogate (what ``str.isprintable`` refuses, and the plain space, which separates the notation's steps)."""
    return not name.isprintable() or " " in name


#: How many players play the base game (R-COMP-1); a ruleset says which counts it allows
#: (``Ruleset.player_counts``: 3 to 6 with the sixth player, X-SIX-1).
MIN_PLAYERS = 2
MAX_PLAYERS = 5
#: The most players any ruleset allows (X-SIX-1).
MOST_PLAYERS = 6


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
    """A card of a player's hand: six paddles valued 1..6 and the cloud (R-COMP-2); with the expansion's cards
    (``x_cards``, X-CARDS-1) also the paddle 7, the Lasso and the 1/2/3 card."""

    CLOUD = 0
    ONE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    LASSO = 8
    ONE_TWO_THREE = 9

    @property
    def is_paddle(self) -> bool:
        """True for a paddle card valued 1..7: the cards that count for the flow (R-FLOW-1, X-CARDS-2)."""
        return Card.ONE <= self <= Card.SEVEN

    @property
    def paddles(self) -> bool:
        """True for a card with which canoes paddle: a paddle 1..7 or the 1/2/3 card (R-TURN-3, X-CARDS-3)."""
        return self.is_paddle or self is Card.ONE_TWO_THREE

    @property
    def is_expansion(self) -> bool:
        """True for a card of the expansion (X-CARDS-1): in a hand only with ``x_cards``."""
        return self >= Card.SEVEN

    @property
    def budgets(self) -> tuple[int, ...]:
        """The budgets a canoe may get from this card before the moose's bonus: the paddle's value, the three
        budgets of the 1/2/3 card (X-CARDS-3), none for the cloud and the Lasso."""
        if self.is_paddle:
            return (int(self),)
        return (1, 2, 3) if self is Card.ONE_TWO_THREE else ()

    @property
    def label(self) -> str:
        """``"cloud"``, ``"lasso"``, ``"123"`` or the paddle's value, as written in notation and tables."""
        return _CARD_WORDS.get(self, str(int(self)))

    def to_json(self) -> int | str:
        """The card as a position file writes it: an integer for a paddle, else its word."""
        return int(self) if self.is_paddle else _CARD_WORDS[self]

    @classmethod
    def parse(cls, value: object) -> "Card":
        """The card written as ``value``: 1..7 (int or digit string), ``"cloud"``, ``"lasso"`` or ``"123"``."""
        if isinstance(value, bool):
            raise ValueError(f"unknown card {quoted(value)}")
        if isinstance(value, int):
            if 1 <= value <= 7:
                return cls(value)
            raise ValueError(f"unknown card {quoted(value)}: paddles are 1..7")
        if isinstance(value, str):
            text = value.strip().lower()
            for card, word in _CARD_WORDS.items():
                if text == word:
                    return card
            # ASCII digits only, never int() of the whole text: "²" is a digit to isdigit(), and Python refuses
            # to read an integer of thousands of digits.
            if text.isascii() and text.isdigit() and text.lstrip("0") in ("1", "2", "3", "4", "5", "6", "7"):
                return cls(int(text))
        raise ValueError(f"unknown card {quoted(value)}: a card is 1..7, \"cloud\", \"lasso\" or \"123\"")

    def __str__(self) -> str:
        return self.label


_CARD_WORDS = {Card.CLOUD: "cloud", Card.LASSO: "lasso", Card.ONE_TWO_THREE: "123"}

#: A full hand (R-COMP-2), in canonical order: paddles 1..6, then the cloud.
FULL_HAND: tuple[Card, ...] = (Card.ONE, Card.TWO, Card.THREE, Card.FOUR, Card.FIVE, Card.SIX, Card.CLOUD)
#: A full hand with the expansion's cards (X-CARDS-1), in canonical order: paddles 1..7, cloud, Lasso, 1/2/3.
EXPANSION_HAND: tuple[Card, ...] = (Card.ONE, Card.TWO, Card.THREE, Card.FOUR, Card.FIVE, Card.SIX, Card.SEVEN,
                                    Card.CLOUD, Card.LASSO, Card.ONE_TWO_THREE)


def hand_order(card: Card) -> int:
    """Sort key putting paddles in value order, then the cloud, the Lasso and the 1/2/3 card."""
    return _HAND_ORDER[card]


_HAND_ORDER = {card: k for k, card in enumerate(EXPANSION_HAND)}


class CanoeKind(StrEnum):
    """A canoe's kind: every canoe is single (R-GEM-2) unless the expansion's double canoe is used (X-DOUBLE-1)."""

    SINGLE = "single"
    DOUBLE = "double"   # carries up to 2 gems (X-DOUBLE-1)


#: The gems a double canoe carries at most (X-DOUBLE-1).
DOUBLE_CAPACITY = 2


class Moose(StrEnum):
    """Where the moose is (X-MOOSE-1..3)."""

    WAITING = "waiting"      # at the ruby cave: a canoe on a last disc may take it
    HELD = "held"            # a canoe on the river (or moored) holds it
    RETURNING = "returning"  # its holder banked or fell this round: it waits again after phase III


#: The whirlpool's place after it went over the falls: it enters at the top with the next flow step (X-WHIRL-1).
NEXT = "next"


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


class KeptHash:
    """For a frozen dataclass looked up many times (a position in the solver's tables, the ruleset every position
    hashes): its hash, over the fields it is compared by, is computed once and kept. It is never pickled (a string's
    hash differs between processes); a copy made by taking another instance's ``__dict__`` must drop ``_hash``."""

    def __hash__(self) -> int:
        known: int | None = self.__dict__.get("_hash")
        if known is None:
            compared = _COMPARED.get(type(self))
            if compared is None:
                compared = _COMPARED[type(self)] = _compared(self)
            known = self.__dict__["_hash"] = hash(compared(self))
        return known

    def __getstate__(self) -> dict[str, object]:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}


#: For each class with a kept hash, what reads the tuple of the fields it is compared by, in field order.
_COMPARED: dict[type, Callable[[object], tuple[object, ...]]] = {}


def _compared(value: object) -> Callable[[object], tuple[object, ...]]:
    names = [f.name for f in dataclasses.fields(value) if f.compare]  # type: ignore[arg-type]
    if len(names) < 2:  # attrgetter of one name gives the value, not a tuple
        return lambda v: tuple(getattr(v, name) for name in names)
    return attrgetter(*names)


class Gems(tuple[int, ...]):
    """An immutable count of gems per colour (index ``colour - 1``), e.g. a bank or a cave: ``Gems(diamond=1,
    ruby=2)`` or ``Gems((0, 1, 0, 0, 2))``. It prints as the game says it (``1 diamond, 2 ruby``) and its repr is
    the first form, which evaluates to it."""

    __slots__ = ()

    def __new__(cls, counts: Iterable[int] = (0, 0, 0, 0, 0), **by_colour: int) -> "Gems":
        if by_colour:  # Gems(diamond=1): counts by colour name (R-COMP-3)
            counted = list(counts)
            for name, number in by_colour.items():
                counted[Colour.parse(name) - 1] += number
            counts = counted
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

    def __str__(self) -> str:
        return self.describe()

    def __repr__(self) -> str:
        return "Gems(" + ", ".join(f"{c.label}={n}" for c, n in zip(COLOURS, self) if n) + ")"


NO_GEMS = Gems()
