"""Immutable game positions: canoes, players, caves and the markers, in one canonical form.

A :class:`Position` is a value: equal positions compare and hash equal whatever the order in which a
player's canoes or hand were given (FORMAT.md, "Canonical form"). Positions are changed only by
building new ones (``dataclasses.replace`` or the engine).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Iterator

from niagara_solver.model.board import Board, standard_board
from niagara_solver.model.atoms import (COLOURS, DOUBLE_CAPACITY, EXPANSION_HAND, FALLEN, FULL_HAND, NO_GEMS, PORT,
                                        CanoeKind, Card, Colour, Gems, KeptHash, Moose, Phase, hand_order,
                                        place_key)
from niagara_solver.model.ruleset import STANDARD, Ruleset


@dataclass(frozen=True, slots=True)
class Canoe:
    """One canoe: where it is (``"port"``, a disc, or ``"fallen"``) and the gems it carries.

    With the expansion also its kind (X-DOUBLE-1), whether it holds the moose (X-MOOSE-2) and whether it is moored
    by a Lasso this round (X-CARDS-4: it stands beside its place, off the river)."""

    place: str
    gems: tuple[Colour, ...] = ()
    kind: CanoeKind = CanoeKind.SINGLE
    moose: bool = False
    moored: bool = False

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
        """True on a disc of the river (a moored canoe stands beside its disc: see :attr:`afloat`)."""
        return self.place != PORT and self.place != FALLEN

    @property
    def afloat(self) -> bool:
        """True on a disc and not moored: the canoes that ride the flow, steal, are stolen from and act
        (X-CARDS-4)."""
        return self.place != PORT and self.place != FALLEN and not self.moored

    @property
    def double(self) -> bool:
        """True for the expansion's double canoe (X-DOUBLE-1)."""
        return self.kind is CanoeKind.DOUBLE

    def capacity(self, base: int) -> int:
        """The gems this canoe carries at most: 2 for a double canoe (X-DOUBLE-1), else the ruleset's
        ``capacity`` (R-GEM-2), given as ``base``."""
        return DOUBLE_CAPACITY if self.kind is CanoeKind.DOUBLE else base

    @property
    def in_play(self) -> bool:
        """True in the port or on the river (R-RESCUE-2)."""
        return self.place != FALLEN

    def sort_key(self) -> tuple[object, ...]:
        """The canonical order of a player's canoes: by place (port first, fallen last), then cargo, then kind
        and the expansion's marks."""
        return (place_key(self.place), tuple(self.gems), self.kind is CanoeKind.DOUBLE, self.moose, self.moored)

    def describe(self) -> str:
        """``4 (ruby)``, ``port``, ``fallen``; with the expansion ``3 double (amethyst, diamond)``, ``7L moose``,
        ``4 moored``."""
        marks = "".join(f" {m}" for m, on in (("double", self.double), ("moose", self.moose),
                                              ("moored", self.moored)) if on)
        cargo = ", ".join(c.label for c in self.gems)
        return f"{self.place}{marks} ({cargo})" if cargo else f"{self.place}{marks}"


#: Whether a hand is in hand order (strictly increasing), by the hand: a game meets a few hundred hands, and every
#: player made asks. Equal hands are in order alike (a card and its number look up the same order).
_HANDS_IN_ORDER: dict[tuple[Card, ...], bool] = {}


@dataclass(frozen=True)
class Player:
    """A player: name, canoes (canonical order), hand, bank, and the card chosen this round if known.

    ``card_budget`` is the budget chosen with the 1/2/3 card once the player has acted (X-CARDS-3, X-JOE-2)."""

    name: str
    canoes: tuple[Canoe, ...] = (Canoe(PORT), Canoe(PORT))
    hand: tuple[Card, ...] = FULL_HAND
    bank: Gems = NO_GEMS
    card: Card | None = None
    card_budget: int | None = None

    def __post_init__(self) -> None:
        canoes = self.canoes
        if len(canoes) == 2:  # the usual case, kept cheap: the engine builds many players
            one, two = canoes
            # The sort keys compared as tuples are: by place first, the rest only between canoes at one place.
            second, first = place_key(two.place), place_key(one.place)
            if second < first or second == first and two.sort_key() < one.sort_key():
                object.__setattr__(self, "canoes", (two, one))
        else:
            object.__setattr__(self, "canoes", tuple(sorted(canoes, key=Canoe.sort_key)))
        hand = self.hand
        try:
            in_order = _HANDS_IN_ORDER.get(hand)
        except TypeError:  # not hashable: asked afresh, with the error as it always was
            in_order = None
        if in_order is None:
            in_order = not any(hand_order(a) >= hand_order(b) for a, b in zip(hand, hand[1:]))
            if len(_HANDS_IN_ORDER) < 1 << 12 and hand.__class__ is tuple:
                try:
                    _HANDS_IN_ORDER[hand] = in_order
                except TypeError:
                    pass
        if not in_order:
            object.__setattr__(self, "hand", tuple(sorted(hand, key=hand_order)))

    @property
    def playable(self) -> tuple[Card, ...]:
        """The cards the player may still act with this round: the card chosen, or else every card of the hand
        (R-CARD-1)."""
        return (self.card,) if self.card is not None else self.hand

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

    The expansion's pieces are None unless their module is on (RULES.md section X): ``whirlpool`` is the board place
    of the whirlpool disc or ``"next"`` (X-WHIRL-1); ``beaver`` the place of the beaver's disc (None: off the
    river, X-BEAVER-1); ``moose`` where the moose is (X-MOOSE-1); ``joe`` Diamond Joe's canoe (X-JOE-1).
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
    whirlpool: str | None = None
    beaver: str | None = None
    moose: Moose | None = None
    joe: Joe | None = None

    # The solver looks positions up in its tables many times: the hash is kept (KeptHash).
    __hash__ = KeptHash.__hash__
    __getstate__ = KeptHash.__getstate__

    # -- construction -----------------------------------------------------------------------------

    @classmethod
    def initial(cls, names: list[str], board: Board | None = None, ruleset: Ruleset = STANDARD,
                lifebuoy: int = 0) -> "Position":
        """The start of a game (R-BOARD-5, R-COMP): canoes in the port, full hands, full caves; with the
        expansion's modules their pieces where they start (section X)."""
        board = board or standard_board()
        gems = ruleset.gems_for(len(names))
        if gems is None:
            raise ValueError(f"the ruleset's gems_per_colour has no entry for {len(names)} players (X-GEMS-1)")
        full = tuple(Gems.of([]).plus(c, gems) for c in COLOURS)
        player = Player("", start_canoes(ruleset), start_hand(ruleset))
        return cls(players=tuple(dataclasses.replace(player, name=n) for n in names), caves=full, lifebuoy=lifebuoy,
                   forks=tuple((f, board.labels[f][0]) for f in board.forks), board=board, ruleset=ruleset,
                   whirlpool=ruleset.whirl_start if ruleset.x_whirl else None,
                   moose=Moose.WAITING if ruleset.x_moose else None,
                   joe=Joe(board.top) if ruleset.x_joe else None)

    def replace(self, **changes: object) -> "Position":
        """A copy with some fields changed, as ``dataclasses.replace`` makes it: a position's constructor only stores
        its fields, so the copy takes them as they are, without the kept hash (the copy's fields differ)."""
        if type(self) is not Position or not _POSITION_FIELDS.issuperset(changes):
            return dataclasses.replace(self, **changes)  # type: ignore[arg-type]  # (an unknown field: its error)
        fields = self.__dict__.copy()
        fields.pop("_hash", None)
        fields.update(changes)
        copy = _new(Position)
        _put(copy, "__dict__", fields)
        return copy

    def with_player(self, index: int, player: Player) -> "Position":
        """A copy with one player replaced."""
        players = list(self.players)
        players[index] = player
        return self.replace(players=tuple(players))

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

    @property
    def gems_per_colour(self) -> int | None:
        """How many gems of each colour this game has (R-COMP-3, X-GEMS-1), None if the ruleset's table has no
        entry for this many players."""
        return self.ruleset.gems_for(len(self.players))

    def gem_totals(self) -> Gems:
        """Gems in caves, on canoes (moored ones too), on Joe and in banks, per colour (R-PROP-3, X-PROP-3: each
        equals gems_per_colour)."""
        total = Gems()
        for cave in self.caves:
            total = total.add(cave)
        for player in self.players:
            total = total.add(player.bank).add(player.gems_on_canoes())
        if self.joe is not None and self.joe.gem is not None:
            total = total.plus(self.joe.gem)
        return total


_POSITION_FIELDS = frozenset(f.name for f in dataclasses.fields(Position))
_new, _put = object.__new__, object.__setattr__


@dataclass(frozen=True)
class Joe:
    """Diamond Joe's neutral canoe (X-JOE-1): where it is (always a disc) and the gem it carries, if any."""

    place: str
    gem: Colour | None = None

    def describe(self) -> str:
        """``5 (amber)`` or ``1``."""
        return f"{self.place} ({self.gem.label})" if self.gem is not None else self.place


def start_canoes(ruleset: Ruleset) -> tuple[Canoe, ...]:
    """A player's canoes at the start: two single canoes in the port (R-COMP-2), or a single and a double one
    (X-DOUBLE-1)."""
    if ruleset.x_double:
        return (Canoe(PORT), Canoe(PORT, kind=CanoeKind.DOUBLE))
    return (Canoe(PORT), Canoe(PORT))


def start_hand(ruleset: Ruleset) -> tuple[Card, ...]:
    """A full hand: the seven cards (R-COMP-2), or ten with the expansion's cards (X-CARDS-1); hands come back
    full once every card was played (R-CARD-2)."""
    return EXPANSION_HAND if ruleset.x_cards else FULL_HAND


#: A position packed by :func:`pack`: nested tuples of ints, strings, booleans and None.
Packed = tuple[object, ...]


def pack(pos: Position) -> Packed:
    """Every field of ``pos`` that compares but its board and ruleset, as nested tuples of plain values (each enum as
    its value, each gem count as a plain tuple): what the processes of one search send each other (``reach
    --jobs``), whose positions share one board and ruleset. Two such positions pack equal exactly when they are
    equal, and :func:`unpack` gives the position back; a plain tuple pickles, unpickles and hashes several times
    faster than the position's objects (docs/GAMES.md, "Several processes"). A field added to these classes must be
    added here: tests/test_reach_jobs.py lists them."""
    joe = pos.joe
    return (tuple((p.name, tuple((c.place, tuple(map(int, c.gems)), c.kind.value, c.moose, c.moored) for c in p.canoes),
                   tuple(map(int, p.hand)), tuple(p.bank), None if p.card is None else int(p.card), p.card_budget)
                  for p in pos.players),
            tuple(tuple(cave) for cave in pos.caves), pos.lifebuoy, pos.weather, pos.forks, pos.round, pos.phase.value,
            pos.acted, pos.whirlpool, pos.beaver, None if pos.moose is None else pos.moose.value,
            None if joe is None else (joe.place, None if joe.gem is None else int(joe.gem)))


def unpack(packed: Packed, board: Board, ruleset: Ruleset) -> Position:
    """The position :func:`pack` packed, on ``board`` under ``ruleset``."""
    fields: Any = packed
    players, caves, lifebuoy, weather, forks, round_, phase, acted, whirlpool, beaver, moose, joe = fields
    return Position(
        players=tuple(Player(name, tuple(Canoe(place, tuple(Colour(g) for g in gems), CanoeKind(kind), on, moored)
                                         for place, gems, kind, on, moored in canoes),
                             tuple(Card(c) for c in hand), Gems(bank), None if card is None else Card(card), budget)
                      for name, canoes, hand, bank, card, budget in players),
        caves=tuple(Gems(cave) for cave in caves), lifebuoy=lifebuoy, weather=weather, forks=forks, round=round_,
        phase=Phase(phase), acted=acted, board=board, ruleset=ruleset, whirlpool=whirlpool, beaver=beaver,
        moose=None if moose is None else Moose(moose),
        joe=None if joe is None else Joe(joe[0], None if joe[1] is None else Colour(joe[1])))
