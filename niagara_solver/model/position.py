"""Immutable game positions: canoes, players, caves and the markers, in one canonical form.

A :class:`Position` is a value: equal positions compare and hash equal whatever the order in which a
player's canoes or hand were given (FORMAT.md, "Canonical form"). Positions are changed only by
building new ones (``dataclasses.replace`` or the engine).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Iterator

from niagara_solver.model.board import Board, standard_board
from niagara_solver.model.atoms import (COLOURS, FALLEN, FULL_HAND, NO_GEMS, PORT, Card, Colour, Gems, Phase,
                                        hand_order, place_key)
from niagara_solver.model.ruleset import STANDARD, Ruleset


@dataclass(frozen=True, slots=True)
class Canoe:
    """One canoe: where it is (``"port"``, a disc, or ``"fallen"``) and the gems it carries."""

    place: str
    gems: tuple[Colour, ...] = ()

    def __post_init__(self) -> None:
        if len(self.gems) > 1 and list(self.gems) != sorted(self.gems):
            object.__setattr__(self, "gems", tuple(sorted(self.gems)))

    @property
    def in_port(self) -> bool:
        """True in the port (R-BOARD-2)."""
        return self.place == PORT

    @property
    def fallen(self) -> bool:
        """True after going over the falls, until rescued (R-RESCUE-1)."""
        return self.place == FALLEN

    @property
    def on_river(self) -> bool:
        """True on a disc of the river."""
        return self.place != PORT and self.place != FALLEN

    @property
    def in_play(self) -> bool:
        """True in the port or on the river (R-RESCUE-2)."""
        return self.place != FALLEN

    def sort_key(self) -> tuple[object, ...]:
        """The canonical order of a player's canoes: by place (port first, fallen last), then cargo."""
        return (place_key(self.place), tuple(self.gems))

    def describe(self) -> str:
        """``4 (ruby)``, ``port``, ``fallen``."""
        cargo = ", ".join(c.label for c in self.gems)
        return f"{self.place} ({cargo})" if cargo else self.place


@dataclass(frozen=True)
class Player:
    """A player: name, canoes (canonical order), hand, bank, and the card chosen this round if known."""

    name: str
    canoes: tuple[Canoe, ...] = (Canoe(PORT), Canoe(PORT))
    hand: tuple[Card, ...] = FULL_HAND
    bank: Gems = NO_GEMS
    card: Card | None = None

    def __post_init__(self) -> None:
        canoes = self.canoes
        if len(canoes) == 2:  # the usual case, kept cheap: the engine builds many players
            if canoes[1].sort_key() < canoes[0].sort_key():
                object.__setattr__(self, "canoes", (canoes[1], canoes[0]))
        else:
            object.__setattr__(self, "canoes", tuple(sorted(canoes, key=Canoe.sort_key)))
        hand = self.hand
        if any(hand_order(a) >= hand_order(b) for a, b in zip(hand, hand[1:])):
            object.__setattr__(self, "hand", tuple(sorted(hand, key=hand_order)))

    @property
    def canoes_in_play(self) -> tuple[Canoe, ...]:
        """The canoes in the port or on the river."""
        return tuple(c for c in self.canoes if c.in_play)

    def gems_on_canoes(self) -> Gems:
        """The gems the player's canoes carry."""
        return Gems.of(g for c in self.canoes for g in c.gems)


@dataclass(frozen=True)
class Position:
    """A game position (FORMAT.md) in canonical form.

    ``caves`` holds one gem count per cave, indexed by the cave's colour (``caves[colour - 1]``).
    ``forks`` holds the fork marker of every fork of the board, as (fork disc, branch label).
    ``acted`` lists the indices of the players who have acted this round, in the order they acted.
    """

    players: tuple[Player, ...]
    caves: tuple[Gems, ...]
    lifebuoy: int = 0
    weather: int = 0
    forks: tuple[tuple[str, str], ...] = ()
    round: int = 1
    phase: Phase = Phase.CARDS
    acted: tuple[int, ...] = ()
    board: Board = field(default_factory=standard_board, compare=True)
    ruleset: Ruleset = STANDARD

    # -- construction -----------------------------------------------------------------------------

    @classmethod
    def initial(cls, names: list[str], board: Board | None = None, ruleset: Ruleset = STANDARD,
                lifebuoy: int = 0) -> "Position":
        """The start of a game (R-BOARD-5, R-COMP): canoes in the port, full hands, full caves."""
        board = board or standard_board()
        full = tuple(Gems.of([]).plus(c, ruleset.gems_per_colour) for c in COLOURS)
        return cls(players=tuple(Player(n) for n in names), caves=full, lifebuoy=lifebuoy,
                   forks=tuple((f, board.labels[f][0]) for f in board.forks), board=board, ruleset=ruleset)

    def replace(self, **changes: object) -> "Position":
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def with_player(self, index: int, player: Player) -> "Position":
        """A copy with one player replaced."""
        players = list(self.players)
        players[index] = player
        return dataclasses.replace(self, players=tuple(players))

    # -- queries ----------------------------------------------------------------------------------

    def index(self, name: str) -> int:
        """The seat index of the player called ``name`` (``KeyError`` if none)."""
        for i, player in enumerate(self.players):
            if player.name == name:
                return i
        raise KeyError(name)

    def cave(self, colour: Colour) -> Gems:
        """The gems in the cave of ``colour``."""
        return self.caves[colour - 1]

    def marker(self, fork: str) -> str:
        """The branch the next disc entering ``fork`` goes to (R-FLOW-4)."""
        for disc, label in self.forks:
            if disc == fork:
                return label
        raise KeyError(fork)

    def turn_order(self) -> tuple[int, ...]:
        """Seat indices in phase II order: the lifebuoy holder first, then seat order (R-TURN-1)."""
        n = len(self.players)
        return tuple((self.lifebuoy + i) % n for i in range(n))

    def next_to_act(self) -> int | None:
        """The player whose turn it is in phase II (R-TURN-1), or None when all have acted."""
        for i in self.turn_order():
            if i not in self.acted:
                return i
        return None

    def canoes(self) -> Iterator[tuple[int, Canoe]]:
        """Every canoe with its owner's index."""
        for i, player in enumerate(self.players):
            for canoe in player.canoes:
                yield i, canoe

    def gem_totals(self) -> Gems:
        """Gems in caves, on canoes and in banks, per colour (R-PROP-3: each equals gems_per_colour)."""
        total = Gems()
        for cave in self.caves:
            total = total.add(cave)
        for player in self.players:
            total = total.add(player.bank).add(player.gems_on_canoes())
        return total
