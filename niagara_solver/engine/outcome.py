"""One legal turn and where it leads (phase II): :class:`TurnOutcome`, what :func:`.turns.legal_turns` lists.

An outcome may be handed out before its position is made (:func:`pending`): the search lists every turn of a player
to order them and tries only a few (at horizon 3, one in ten or fewer), so most positions are never needed. The
generator that made it (:class:`Results`, in :mod:`.paddling`) makes the position on first use, or reads one player
or a player's gems from its compact state without making the rest.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from typing import Any, Callable, Iterable, Protocol

from niagara_solver.model.atoms import Colour
from niagara_solver.model.notation import Turn
from niagara_solver.model.position import Player, Position


class Results(Protocol):
    """A generator whose outcomes are still to be made: each outcome keeps the generator and its own result (a value
    only the generator reads)."""

    def position_of(self, result: Any) -> Position:
        """The position right after the turn of ``result``."""

    def player_of(self, result: Any, index: int) -> Player:
        """``position_of(result).players[index]``, made alone where the turn leaves the others as they were."""

    def gems_of(self, result: Any, index: int) -> tuple[int, int]:
        """The gems of the player ``index`` after the turn of ``result``: (banked, carried)."""

    def places_of(self, result: Any, index: int) -> tuple[tuple[str, tuple[Colour, ...]], ...]:
        """The place and cargo of each canoe of the player ``index`` after the turn of ``result`` (in no set order)."""


class TurnOutcome:
    """A legal turn and the position right after it (phase II, the player marked as having acted).

    A value: two outcomes are equal when their turns and positions are. An outcome made by :func:`pending` makes its
    position on first use (``position``, or one of its players with :meth:`player`) and keeps it once made.
    """

    __slots__ = ("turn", "_made", "_text")

    turn: Turn
    #: The position, or until it is made, the generator that makes it and the result it reads there.
    _made: "Position | tuple[Results, Any]"
    #: The turn's notation when its maker wrote it already (:func:`pending`), else None.
    _text: str | None

    def __init__(self, turn: Turn, position: Position) -> None:
        _set_turn(self, turn)
        _set_made(self, position)
        _set_text(self, None)

    @property
    def position(self) -> Position:
        """The position right after the turn."""
        made = self._made
        if made.__class__ is tuple:
            maker, result = made
            made = maker.position_of(result)
            _set_made(self, made)  # the generator's state is no longer needed
        return made  # type: ignore[return-value]

    def player(self, index: int) -> Player:
        """``position.players[index]``, without making the rest of the position when it is not made yet."""
        made = self._made
        if made.__class__ is tuple:
            maker, result = made
            return maker.player_of(result, index)
        return made.players[index]  # type: ignore[union-attr]

    def gems(self, index: int) -> tuple[int, int]:
        """The gems of the player ``index`` right after the turn, (banked, carried), read without making the
        position when it is not made yet."""
        made = self._made
        if made.__class__ is tuple:
            maker, result = made
            return maker.gems_of(result, index)
        player = made.players[index]  # type: ignore[union-attr]
        return player.bank.total, sum(len(c.gems) for c in player.canoes)

    def places(self, index: int) -> tuple[tuple[str, tuple[Colour, ...]], ...]:
        """The place and cargo of each canoe of the player ``index`` right after the turn, in no set order (the
        position's order once it is made), read without making the position when it is not made yet."""
        made = self._made
        if made.__class__ is tuple:
            maker, result = made
            return maker.places_of(result, index)
        return tuple([(c.place, c.gems) for c in made.players[index].canoes])  # type: ignore[union-attr]

    @property
    def notation(self) -> str:
        """``str(turn)``: written by the maker with the outcome, where it wrote it to sort the outcomes."""
        text = self._text
        return str(self.turn) if text is None else text

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not TurnOutcome:
            return NotImplemented
        assert isinstance(other, TurnOutcome)
        return self.turn == other.turn and self.position == other.position

    def __hash__(self) -> int:
        return hash((self.turn, self.position))

    def __repr__(self) -> str:
        return f"TurnOutcome(turn={self.turn!r}, position={self.position!r})"

    def __reduce__(self) -> tuple[type["TurnOutcome"], tuple[Turn, Position]]:
        return TurnOutcome, (self.turn, self.position)

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")


#: The slots' setters: an outcome is written once, by its maker, and frozen for everyone else.
_set_turn: Callable[[TurnOutcome, Turn], None] = TurnOutcome.__dict__["turn"].__set__
_set_made: Callable[[TurnOutcome, object], None] = TurnOutcome.__dict__["_made"].__set__
_set_text: Callable[[TurnOutcome, "str | None"], None] = TurnOutcome.__dict__["_text"].__set__
_new = object.__new__


def pending(maker: Results, turns: Iterable[tuple[Turn, Any]] | Iterable[tuple[Turn, Any, str]]
            ) -> list[TurnOutcome]:
    """Outcomes whose positions ``maker`` makes on first use: one per turn and the result it reads, and the turn's
    notation (``str(turn)``) where the maker has it."""
    outcomes = []
    for turn, result, *text in turns:
        outcome: TurnOutcome = _new(TurnOutcome)
        _set_turn(outcome, turn)
        _set_made(outcome, (maker, result))
        _set_text(outcome, text[0] if text else None)
        outcomes.append(outcome)
    return outcomes
