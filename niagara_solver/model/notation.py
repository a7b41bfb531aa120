"""Turns, rescues and their notation (docs/NOTATION.md).

A turn is a small immutable value; its notation round-trips: ``Turn.parse(str(t)) == t``.

Examples::

    port: >3 +amethyst          a canoe leaves the port, paddles down to disc 3, loads an amethyst
    4: -ruby +diamond <3        unload the ruby at 4, load a diamond, paddle up to 3
    3: <1 xblue/ruby            paddle up from 3 to 1 and steal blue's ruby
    4: <port; port: >5          the canoe on 4 goes home (banking its gem), then the other leaves the port
    cloud up                    the cloud card moves the weather one step up
    stay                        no canoe acts (a port canoe may stay, R-TURN-3)

With the expansion (RULES.md section X)::

    as 2; port: >2              the 1/2/3 card played as a 2 (X-CARDS-3)
    lasso                       the Lasso moors the player's river canoes (X-CARDS-4); ``lasso 4``: the one on 4
    7L: moose <4                the canoe on 7L takes the moose, then paddles with 2 more points (X-MOOSE-1, -2)
    7L: moose; cloud up         the moose taken with the cloud card
    6L: <5 ~6R                  ends on the whirlpool on 5 and is pushed down the right branch (X-WHIRL-2)
    3(double): +amethyst +amethyst >4    the player's double canoe, where it shares a place with the single one
    3: <2 trade-ruby+amber      a trade with Diamond Joe: give him the ruby, take his amber (X-JOE-3)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from niagara_solver.model.errors import InvalidTurnError, quoted
from niagara_solver.model.atoms import PORT, Card, Colour


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
    disc carry that colour with different cargo (possible with capacity 2); ``victim_kind`` by its kind, when
    they carry the same cargo and one is the double canoe (X-DOUBLE-3).
    """

    victim: str
    colour: Colour
    victim_gems: tuple[Colour, ...] | None = None
    victim_kind: str | None = None

    def __str__(self) -> str:
        canoe = f"[{_gems_text(self.victim_gems)}]" if self.victim_gems is not None else ""
        kind = f"({self.victim_kind})" if self.victim_kind is not None else ""
        return f"x{self.victim}{kind}{canoe}/{self.colour.label}"


@dataclass(frozen=True)
class Push:
    """The whirlpool pushes the canoe that ended its movement on it one disc down, to ``dest`` (its owner picks
    the branch at a fork; ``fallen`` from a last disc): X-WHIRL-2."""

    dest: str

    def __str__(self) -> str:
        return f"~{self.dest}"


@dataclass(frozen=True)
class TakeMoose:
    """The canoe takes the waiting moose at the start of its action (X-MOOSE-1)."""

    def __str__(self) -> str:
        return "moose"


@dataclass(frozen=True)
class Trade:
    """A trade with Diamond Joe at the end of the canoe's action (X-JOE-3): give him ``give``, take his ``take``
    (take: ``trade+ruby``; give: ``trade-amber``; swap: ``trade-amber+ruby``)."""

    give: Colour | None = None
    take: Colour | None = None

    def __str__(self) -> str:
        give = f"-{self.give.label}" if self.give is not None else ""
        take = f"+{self.take.label}" if self.take is not None else ""
        return f"trade{give}{take}"


Step = Union[Load, Unload, Move, Steal, Push, TakeMoose, Trade]


@dataclass(frozen=True)
class CanoeRef:
    """Names one of the player's canoes by its place at the start of the turn.

    ``gems`` (its cargo) is given only when the player's two canoes share that place with different
    cargo; ``kind`` only when they share it with the same cargo: ``"single"`` or ``"double"`` when they differ in
    kind (X-DOUBLE-1), else ``"moose"`` for the one holding the moose (X-MOOSE-2; the other is then named without
    a mark); otherwise both are None.
    """

    place: str
    gems: tuple[Colour, ...] | None = None
    kind: str | None = None

    def __str__(self) -> str:
        kind = f"({self.kind})" if self.kind is not None else ""
        return f"{self.place}{kind}" if self.gems is None else f"{self.place}{kind}[{_gems_text(self.gems)}]"


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
    """One player's turn in phase II: the canoe actions in the order they happen, or a weather step.

    With the expansion's cards (X-CARDS-3, X-CARDS-4): ``budget`` is the budget chosen with the 1/2/3 card;
    ``lasso`` marks a Lasso turn, mooring the player's river canoes, or only ``moored`` (``lasso_scope: one``).
    With the cloud or the Lasso, ``actions`` holds at most the taking of the moose (X-MOOSE-1)."""

    actions: tuple[CanoeAction, ...] = ()
    weather: int = 0
    budget: int | None = None
    lasso: bool = False
    moored: CanoeRef | None = None

    def __str__(self) -> str:
        parts = [str(a) for a in self.actions]
        if self.weather:
            parts.append("cloud up" if self.weather > 0 else "cloud down")
        elif self.lasso:
            parts.append("lasso" if self.moored is None else f"lasso {self.moored}")
        elif not self.actions:
            parts.append("stay")
        if self.budget is not None:
            parts.insert(0, f"as {self.budget}")
        return "; ".join(parts)

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
        parts = [part.strip() for part in text.split(";")]
        budget: int | None = None
        first = " ".join(parts[0].split()).lower()
        if first.startswith("as ") or first == "as":
            number = first[3:].strip()
            if number not in ("1", "2", "3") or len(parts) < 2:
                raise InvalidTurnError(f"{quoted(parts[0])}: the 1/2/3 card is played as 1, 2 or 3, then the canoe "
                                       "actions (or stay), e.g. \"as 2; port: >2\"", "X-CARDS-3")
            budget = int(number)
            parts = parts[1:]
        last = " ".join(parts[-1].split()).lower()
        weather, lasso, moored, actions = 0, False, None, parts
        if last in ("cloud up", "cloud +1", "cloud+"):
            weather, actions = 1, parts[:-1]
        elif last in ("cloud down", "cloud -1", "cloud-"):
            weather, actions = -1, parts[:-1]
        elif last == "lasso" or last.startswith("lasso "):
            lasso, actions = True, parts[:-1]
            target = " ".join(parts[-1].split())[6:].strip()
            if target:
                moored = _parse_ref(target, f"lasso ({quoted(parts[-1])})")
        elif last == "stay":
            if len(parts) > 1:
                raise InvalidTurnError("\"stay\" is a whole turn: no canoe acts")
            actions = []
        if (weather or lasso) and budget is not None:
            raise InvalidTurnError("\"as N\" is the 1/2/3 card; the cloud and the Lasso move no canoe", "X-CARDS-3")
        parsed = tuple(_parse_action(part, k) for k, part in enumerate(actions))
        if weather or lasso:
            for action in parsed:
                if action.steps != (TakeMoose(),):
                    raise InvalidTurnError(f"with the {'cloud' if weather else 'Lasso'} no canoe paddles: only "
                                           f"\"PLACE: moose\" may come before it, got {quoted(str(action))}",
                                           "X-MOOSE-1")
        return cls(parsed, weather, budget, lasso, moored)


_KINDS = ("single", "double", "moose")


def _split_kind(text: str, where: str) -> tuple[str, str | None]:
    """``4(double)`` -> ("4", "double"); ``4`` -> ("4", None)."""
    if not text.endswith(")"):
        if "(" in text or ")" in text:
            raise InvalidTurnError(f"{where}: a canoe's mark is written (single), (double) or (moose) after its "
                                   "place")
        return text, None
    head, _, kind = text[:-1].partition("(")
    if kind.lower() not in _KINDS:
        raise InvalidTurnError(f"{where}: a canoe's mark is written (single), (double) or (moose), got "
                               f"{quoted(kind)}", "X-DOUBLE-1")
    return head, kind.lower()


def _parse_ref(head: str, where: str) -> CanoeRef:
    head = head.strip()
    gems: tuple[Colour, ...] | None = None
    if "[" in head:
        if not head.endswith("]"):
            raise InvalidTurnError(f"{where}: write a canoe as PLACE or PLACE[cargo]")
        head, _, cargo = head[:-1].partition("[")
        gems = _parse_gems(cargo, where)
    head, kind = _split_kind(head, where)
    if not head:
        raise InvalidTurnError(f"{where}: missing the canoe's place")
    place = head.lower() if head.lower() == PORT else head
    return CanoeRef(place, gems, kind)


def _parse_action(text: str, k: int) -> CanoeAction:
    where = f"canoe action {k + 1} ({quoted(text)})"
    if ":" not in text:
        raise InvalidTurnError(f"{where}: start with the canoe's place and a colon, e.g. \"4: <port\"")
    head, _, body = text.partition(":")
    ref = _parse_ref(head, where)
    steps: list[Step] = []
    for token in body.split():
        first, rest = token[0], token[1:]
        if token.lower() == "moose":
            steps.append(TakeMoose())
        elif token.lower().startswith("trade"):
            steps.append(_parse_trade(token, where))
        elif first == "~":
            if not rest:
                raise InvalidTurnError(f"{where}: {quoted(token)} needs the disc the whirlpool pushes to, e.g. \"~6R\"",
                                       "X-WHIRL-2")
            steps.append(Push(rest.lower() if rest.lower() == "fallen" else rest))
        elif first == "+":
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
            victim, victim_kind = _split_kind(victim, where)
            if not victim or not slash:
                raise InvalidTurnError(f"{where}: write a steal as xPLAYER/colour, e.g. \"xblue/ruby\"")
            steps.append(Steal(victim, _colour(colour, where), victim_gems, victim_kind))
        else:
            raise InvalidTurnError(f"{where}: unknown step {quoted(token)}; steps are +colour (load), -colour "
                                   "(unload), >disc or <disc (move), xPLAYER/colour (steal), ~disc (a whirlpool's "
                                   "push), moose, trade-colour+colour")
    return CanoeAction(ref, tuple(steps))


def _parse_trade(token: str, where: str) -> Trade:
    """``trade+ruby``, ``trade-amber``, ``trade-amber+ruby`` (X-JOE-3)."""
    body = token[5:]
    give = take = None
    if body.startswith("-"):
        name, plus, rest = body[1:].partition("+")
        give = _colour(name, where)
        body = f"+{rest}" if plus else ""
    if body.startswith("+") and len(body) > 1:
        take = _colour(body[1:], where)
        body = ""
    if body or (give is None and take is None):
        raise InvalidTurnError(f"{where}: write a trade with Diamond Joe as trade+COLOUR (take), trade-COLOUR "
                               f"(give) or trade-COLOUR+COLOUR (swap), got {quoted(token)}", "X-JOE-3")
    return Trade(give, take)


@dataclass(frozen=True)
class Rescue:
    """A player's rescue decision in phase I (R-RESCUE-1): one payment per canoe brought back.

    A payment is a banked colour, or None for a free rescue (R-RESCUE-2, R-RESCUE-3). ``canoe`` names the canoe
    brought back (``"single"`` or ``"double"``) when one of two fallen canoes of different kinds comes back
    (X-DOUBLE-4): ``ruby(double)``.
    """

    payments: tuple[Colour | None, ...] = ()
    canoe: str | None = None

    def __post_init__(self) -> None:
        ordered = tuple(sorted(self.payments, key=lambda c: 0 if c is None else int(c)))
        if ordered != self.payments:
            object.__setattr__(self, "payments", ordered)

    def __str__(self) -> str:
        if not self.payments:
            return "none"
        text = ",".join("free" if c is None else c.label for c in self.payments)
        return f"{text}({self.canoe})" if self.canoe is not None else text

    def __repr__(self) -> str:
        return f"Rescue.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> "Rescue":
        """Read ``none``, ``ruby``, ``free``, ``ruby,amber`` or ``free,ruby``."""
        words = text.strip().lower()
        if words in ("none", ""):
            return cls()
        canoe = None
        if words.endswith(")") and "(" in words:
            words, _, kind = words[:-1].rpartition("(")
            if kind not in ("single", "double"):
                raise InvalidTurnError(f"rescue {quoted(text)}: the canoe brought back is (single) or (double)",
                                       "X-DOUBLE-4")
            canoe = kind
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
        return cls(tuple(payments), canoe)


def turn_words(player: str, card: Card, turn: Turn | str) -> str:
    """A player's turn in the game's words, the player, the turn and the card named: ``red's turn "1: >5; 2: <port"
    with the 2`` (a bare ``2: 1: >5`` reads as a disc and a move)."""
    return f'{player}\'s turn "{turn}" with the {card.label}'
