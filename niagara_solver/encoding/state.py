"""Symbolic positions: z3 terms for every canoe's place and cargo, the caves, banks, weather, fork
markers, hands and chosen cards; the well-formedness predicate (what FORMAT.md accepts); and the
translation of a model back to a :class:`Position` file.

Colours are 0..4 here (a colour's value minus one); cards are 0 (the cloud) and 1..6, and with the expansion's
cards (``x_cards``) also 7, 8 (the Lasso) and 9 (the 1/2/3 card), as :class:`Card` numbers them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import z3

from niagara_solver.model.atoms import COLOURS, NEXT, CanoeKind, Card, Gems, Moose, Phase
from niagara_solver.model.position import Canoe, Joe, Player, Position
from niagara_solver.model.ruleset import Ruleset
from niagara_solver.encoding.tables import BoardTables
from niagara_solver.encoding.terms import equal, forget_equal, literal_int, z_and, z_or, z_sum

Expr = Any  # a z3 term (ArithRef or BoolRef); z3's Python types are too loose for more precision
NCOL = 5
CARDS = range(7)
#: The cards with ``x_cards`` (X-CARDS-1): the 7, the Lasso and the 1/2/3 card join the hand.
X_CARDS = range(10)
LASSO = int(Card.LASSO)
#: The moose's states by their number in the encoding (X-MOOSE-1..3).
MOOSE_STATES = (Moose.WAITING, Moose.HELD, Moose.RETURNING)
ONE_TWO_THREE = int(Card.ONE_TWO_THREE)
#: Names given to the players of a decoded position.
NAMES = ("red", "blue", "green", "yellow", "black", "white")

Constraint = tuple[str, Expr]  # (rule ID, z3 Bool)


@dataclass
class SymPosition:
    """A position as z3 terms. Fresh variables for a free position; expressions for one computed from it."""

    place: list[list[Expr]]
    cargo: list[list[list[Expr]]]
    cave: list[list[Expr]]
    bank: list[list[Expr]]
    weather: Expr
    marker: dict[int, Expr]
    hand: list[list[Expr]]
    card: list[Expr]
    extra: dict[str, Expr] = field(default_factory=dict)
    #: With ``x_cards``: whether each canoe is moored by a Lasso (X-CARDS-4), and each player's 1/2/3 budget
    #: (X-CARDS-3; 0 before the card is played or with another card). None without the module.
    moored: list[list[Expr]] | None = None
    budget: list[Expr] | None = None
    #: With ``x_double``: whether each canoe is the player's double canoe (X-DOUBLE-1); None without the module.
    double: list[list[Expr]] | None = None
    #: With ``x_beaver``: the place of the beaver's disc, 0 (the port's index) while it is off the river (X-BEAVER-1).
    beaver: Expr | None = None
    #: With ``x_moose``: where the moose is (0 waiting, 1 held, 2 returning) and which canoe holds it (X-MOOSE-1..3).
    moose: Expr | None = None
    holder: list[list[Expr]] | None = None
    #: With ``x_whirl``: the place of the whirlpool's disc, 0 (the port's index) while it waits as ``"next"`` to come
    #: back at the top (X-WHIRL-1).
    whirl: Expr | None = None
    #: With ``x_joe``: Diamond Joe's disc and his cargo per colour (X-JOE-1), and the lifebuoy holder's seat, whose
    #: card Joe paddles by (X-JOE-2).
    joe: Expr | None = None
    joe_gem: list[Expr] | None = None
    lifebuoy: Expr | None = None

    @classmethod
    def fresh(cls, tag: str, players: int, tables: "BoardTables | _Markers", x_cards: bool = False,
              x_double: bool = False, x_beaver: bool = False, x_moose: bool = False, x_whirl: bool = False,
              x_joe: bool = False) -> "SymPosition":
        integer, boolean = z3.Int, z3.Bool
        cards = X_CARDS if x_cards else CARDS
        return cls(
            place=[[integer(f"{tag}.place.{p}.{k}") for k in range(2)] for p in range(players)],
            cargo=[[[integer(f"{tag}.cargo.{p}.{k}.{c}") for c in range(NCOL)] for k in range(2)]
                   for p in range(players)],
            cave=[[integer(f"{tag}.cave.{cc}.{c}") for c in range(NCOL)] for cc in range(NCOL)],
            bank=[[integer(f"{tag}.bank.{p}.{c}") for c in range(NCOL)] for p in range(players)],
            weather=integer(f"{tag}.weather"),
            marker={f: integer(f"{tag}.marker.{f}") for f in tables.forks},
            hand=[[boolean(f"{tag}.hand.{p}.{c}") for c in cards] for p in range(players)],
            card=[integer(f"{tag}.card.{p}") for p in range(players)],
            moored=[[boolean(f"{tag}.moored.{p}.{k}") for k in range(2)] for p in range(players)] if x_cards else None,
            budget=[integer(f"{tag}.budget.{p}") for p in range(players)] if x_cards else None,
            double=[[boolean(f"{tag}.double.{p}.{k}") for k in range(2)] for p in range(players)] if x_double else None,
            beaver=integer(f"{tag}.beaver") if x_beaver else None,
            moose=integer(f"{tag}.moose") if x_moose else None,
            holder=[[boolean(f"{tag}.holder.{p}.{k}") for k in range(2)] for p in range(players)] if x_moose else None,
            whirl=integer(f"{tag}.whirl") if x_whirl else None,
            joe=integer(f"{tag}.joe") if x_joe else None,
            joe_gem=[integer(f"{tag}.joe.{c}") for c in range(NCOL)] if x_joe else None,
            lifebuoy=integer(f"{tag}.lifebuoy") if x_joe else None,
        )

    @property
    def players(self) -> int:
        return len(self.place)

    def copy(self) -> "SymPosition":
        """A shallow copy whose lists may be changed without touching this one."""
        return replace(self, place=[list(r) for r in self.place],
                       cargo=[[list(c) for c in r] for r in self.cargo], cave=[list(r) for r in self.cave],
                       bank=[list(r) for r in self.bank], marker=dict(self.marker),
                       hand=[list(r) for r in self.hand], card=list(self.card), extra=dict(self.extra),
                       moored=[list(r) for r in self.moored] if self.moored is not None else None,
                       budget=list(self.budget) if self.budget is not None else None,
                       double=[list(r) for r in self.double] if self.double is not None else None,
                       holder=[list(r) for r in self.holder] if self.holder is not None else None,
                       joe_gem=list(self.joe_gem) if self.joe_gem is not None else None)

    def materialize(self, tag: str) -> tuple["SymPosition", list["Constraint"]]:
        """Fresh variables equal to this position's terms (definitions tagged ``DEF``).

        Naming intermediate states keeps terms small: a later step reads variables instead of the nested
        terms of every earlier step (measured in docs/PROVER.md).
        """
        fresh = SymPosition.fresh(tag, self.players, _Markers(self.marker), x_cards=self.moored is not None,
                                  x_double=self.double is not None, x_beaver=self.beaver is not None,
                                  x_moose=self.moose is not None, x_whirl=self.whirl is not None,
                                  x_joe=self.joe is not None)
        defs: list[Constraint] = []
        for a, b in zip(_flat(fresh), _flat(self)):
            defs.append(("DEF", a == b))
        return fresh, defs

    def variables(self) -> list[Expr]:
        """Every term of the position, in a fixed order (places, cargo, caves, banks, weather, markers, hands,
        cards)."""
        return _flat(self)

    def capacity(self, p: int, k: int, base: int) -> Expr:
        """How many gems canoe ``k`` of player ``p`` carries at most: 2 for the double canoe (X-DOUBLE-1), else
        ``base`` (R-GEM-2)."""
        if self.double is None:
            return z3.IntVal(base)
        return z3.If(self.double[p][k], 2, base)

    def load(self, p: int, k: int) -> Expr:
        """How many gems canoe ``k`` of player ``p`` carries."""
        return z_sum(self.cargo[p][k])

    def total(self, c: int) -> Expr:
        """Gems of colour ``c`` in caves, on canoes (and on Diamond Joe, X-PROP-3) and in banks (R-PROP-3)."""
        return z_sum([self.cave[cc][c] for cc in range(NCOL)]
                      + [self.cargo[p][k][c] for p in range(self.players) for k in range(2)]
                      + [self.bank[p][c] for p in range(self.players)]
                      + ([self.joe_gem[c]] if self.joe_gem is not None else []))


class _Markers:
    """Stands in for the tables when only the fork list is needed."""

    def __init__(self, marker: dict[int, Expr]) -> None:
        self.forks = list(marker)


def _flat(pos: SymPosition) -> list[Expr]:
    expansion = ([m for row in pos.moored for m in row] + list(pos.budget or ())) if pos.moored is not None else []
    if pos.double is not None:
        expansion += [d for row in pos.double for d in row]
    if pos.beaver is not None:
        expansion.append(pos.beaver)
    if pos.moose is not None and pos.holder is not None:
        expansion += [pos.moose, *(h for row in pos.holder for h in row)]
    if pos.whirl is not None:
        expansion.append(pos.whirl)
    if pos.joe is not None and pos.joe_gem is not None and pos.lifebuoy is not None:
        expansion += [pos.joe, *pos.joe_gem, pos.lifebuoy]
    return ([x for row in pos.place for x in row] + [g for row in pos.cargo for k in row for g in k]
            + [g for row in pos.cave for g in row] + [g for row in pos.bank for g in row] + [pos.weather]
            + list(pos.marker.values()) + [h for row in pos.hand for h in row] + list(pos.card) + expansion)


def well_formed(pos: SymPosition, tables: BoardTables, rules: Ruleset, phase: Phase,
                all_acted: bool = False) -> list[Constraint]:
    """What FORMAT.md accepts, as rule-tagged constraints (docs/PROVER.md, "Well-formed positions").

    ``all_acted``: phase II is over (the position the flow starts from): every card is revealed and has left
    the hand, and hands may be empty.
    """
    out: list[Constraint] = []
    t = tables
    for p in range(pos.players):
        for k in range(2):
            x = pos.place[p][k]
            out.append(("R-BOARD-1", z_and(x >= 0, x <= t.FALLEN)))
            if pos.double is None:
                out.append(("R-GEM-2", pos.load(p, k) <= rules.capacity))
            else:
                out.append(("X-DOUBLE-1", pos.load(p, k) <= pos.capacity(p, k, rules.capacity)))
            out += [("R-COMP-3", g >= 0) for g in pos.cargo[p][k]]
            out.append(("R-GEM-5", z3.Implies(x == t.PORT, pos.load(p, k) == 0)))
            out.append(("R-FLOW-6", z3.Implies(x == t.FALLEN, pos.load(p, k) == 0)))
        out += [("R-COMP-3", g >= 0) for g in pos.bank[p]]
        out.append(("R-COMP-2", z_and(pos.card[p] >= 0, pos.card[p] <= len(pos.hand[p]) - 1)))
        if pos.moored is not None and pos.budget is not None:
            out += _cards_well_formed(pos, t, p, phase, all_acted)
        if pos.double is not None:  # X-DOUBLE-1: one single and one double canoe
            out.append(("X-DOUBLE-1", pos.double[p][0] != pos.double[p][1]))
        if all_acted:
            out.append(("R-CARD-2", z3.Not(card_in_hand(pos, p, pos.card[p]))))
        else:
            out.append(("R-CARD-2", z_or(pos.hand[p])))
        if phase is Phase.TURNS:
            out.append(("R-RESCUE-2", z_or([pos.place[p][k] != t.FALLEN for k in range(2)])))
    for cc in range(NCOL):
        out += [("R-COMP-3", g >= 0) for g in pos.cave[cc]]
    for c in range(NCOL):
        out.append(("R-COMP-3", pos.total(c) == rules.gems_for(pos.players)))
    out.append(("R-COMP-4", z_and(pos.weather >= rules.weather_min, pos.weather <= rules.weather_max)))
    if pos.beaver is not None:  # X-BEAVER-1: off the river, or on a disc
        out.append(("X-BEAVER-1", z_or(pos.beaver == 0, t.is_disc(pos.beaver))))
    if pos.moose is not None and pos.holder is not None:  # X-MOOSE-1..3, X-PROP-1
        holders = z_sum([z3.If(h, 1, 0) for row in pos.holder for h in row])
        out.append(("X-MOOSE-1", z_and(pos.moose >= 0, pos.moose <= (2 if phase is Phase.TURNS else 1))))
        out.append(("X-MOOSE-1", holders == z3.If(pos.moose == 1, 1, 0)))
        out += [("X-MOOSE-1", z3.Implies(pos.holder[p][k], t.is_disc(pos.place[p][k])))
                for p in range(pos.players) for k in range(2)]
    if pos.whirl is not None:  # X-WHIRL-1: on a disc, or "next"; X-PROP-2: no canoe on it but a moored one
        out.append(("X-WHIRL-1", z_or(pos.whirl == 0, t.is_disc(pos.whirl))))
        for p in range(pos.players):
            for k in range(2):
                free = z3.Not(pos.moored[p][k]) if pos.moored is not None else z3.BoolVal(True)
                out.append(("X-WHIRL-2", z3.Implies(z_and(free, t.is_disc(pos.whirl)), pos.place[p][k] != pos.whirl)))
    if pos.joe is not None and pos.joe_gem is not None and pos.lifebuoy is not None:  # X-JOE-1: a disc, one place
        out.append(("X-JOE-1", t.is_disc(pos.joe)))
        out += [("X-JOE-1", g >= 0) for g in pos.joe_gem]
        out.append(("X-JOE-1", z_sum(pos.joe_gem) <= 1))
        out.append(("R-COMP-5", z_and(pos.lifebuoy >= 0, pos.lifebuoy < pos.players)))
    for f, m in pos.marker.items():
        out.append(("R-FLOW-4", z_and(m >= 0, m < len(t.labels[f]))))
    return out


def _cards_well_formed(pos: SymPosition, t: BoardTables, p: int, phase: Phase, all_acted: bool) -> list[Constraint]:
    """X-CARDS-3, X-CARDS-4: a moored canoe is on a disc, only mid-round and only of a player who played the Lasso;
    a 1/2/3 budget is 1..3, only for the player who played that card (and, once everybody acted, always)."""
    assert pos.moored is not None and pos.budget is not None
    out: list[Constraint] = []
    budget = pos.budget[p]
    out.append(("X-CARDS-3", z_and(budget >= 0, budget <= 3)))
    out.append(("X-CARDS-3", z3.Implies(budget >= 1, pos.card[p] == ONE_TWO_THREE)))
    if all_acted:
        out.append(("X-CARDS-3", z3.Implies(pos.card[p] == ONE_TWO_THREE, budget >= 1)))
    for k in range(2):
        moored = pos.moored[p][k]
        if phase is Phase.TURNS:
            out.append(("X-CARDS-4", z3.Implies(moored, z_and(t.is_disc(pos.place[p][k]), pos.card[p] == LASSO))))
        else:
            out.append(("X-CARDS-4", z3.Not(moored)))
    if phase is not Phase.TURNS:
        out.append(("X-CARDS-3", budget == 0))
    return out


def card_in_hand(pos: SymPosition, p: int, card: Expr) -> Expr:
    """R-CARD-2: the card is one of the player's hand."""
    return z_or([z_and(card == c, pos.hand[p][c]) for c in range(len(pos.hand[p]))])


def forget_terms() -> None:
    """Drop the terms kept for reuse (:func:`.terms.equal`, :func:`decode`'s bundles): for a new z3 context."""
    forget_equal()
    _BUNDLES.clear()


class Pins(list[Expr]):
    """Constraints ``variable == value`` pinning a symbolic position to a concrete one, each made by
    :func:`.terms.equal`, which keeps what it says: evaluating a relation at a pinned position reads that instead of
    taking every constraint apart again through z3's API (the larger part of the time of an evaluation)."""

    def pin(self, term: Expr, value: int | bool) -> None:
        """``term == value``; a Python ``bool`` is a Boolean literal, any other int an integer one."""
        self.append(equal(term, value)[0])


def fix(pos: SymPosition, concrete: Position, tables: BoardTables,
        order: dict[int, tuple[int, int]] | None = None) -> "Pins":
    """Constraints making ``pos`` equal to a concrete position.

    A player's canoes are in canonical order unless ``order`` gives another (symbolic canoe k is the
    concrete canoe ``order[p][k]``): the encoding's canoe 0 is the one that acts first.
    """
    out = Pins()
    pin = out.pin
    for p, player in enumerate(concrete.players):
        canoes = [player.canoes[i] for i in (order or {}).get(p, (0, 1))]
        for k, canoe in enumerate(canoes):
            pin(pos.place[p][k], tables.index[canoe.place])
            g = Gems.of(canoe.gems)
            for c in range(NCOL):
                pin(pos.cargo[p][k][c], g[c])
        for c in range(NCOL):
            pin(pos.bank[p][c], player.bank[c])
        for c in range(len(pos.hand[p])):
            pin(pos.hand[p][c], (Card(c) in player.hand))
        if player.card is not None:
            pin(pos.card[p], int(player.card))
        if pos.double is not None:
            for k, canoe in enumerate(canoes):
                pin(pos.double[p][k], canoe.double)
        if pos.moored is not None and pos.budget is not None:
            for k, canoe in enumerate(canoes):
                pin(pos.moored[p][k], canoe.moored)
            pin(pos.budget[p], (player.card_budget or 0))
    for cc in range(NCOL):
        for c in range(NCOL):
            pin(pos.cave[cc][c], concrete.caves[cc][c])
    pin(pos.weather, concrete.weather)
    if pos.beaver is not None:
        pin(pos.beaver, (tables.index[concrete.beaver] if concrete.beaver is not None else 0))
    if pos.moose is not None and pos.holder is not None:
        pin(pos.moose, MOOSE_STATES.index(concrete.moose or Moose.WAITING))
        for p, player in enumerate(concrete.players):
            canoes = [player.canoes[i] for i in (order or {}).get(p, (0, 1))]
            for k, canoe in enumerate(canoes):
                pin(pos.holder[p][k], canoe.moose)
    if pos.whirl is not None:
        pin(pos.whirl, (0 if concrete.whirlpool in (None, NEXT) else tables.index[concrete.whirlpool]))
    if pos.joe is not None and pos.joe_gem is not None and pos.lifebuoy is not None:
        joe = concrete.joe or Joe(concrete.board.top)
        pin(pos.joe, tables.index[joe.place])
        for c in range(NCOL):
            pin(pos.joe_gem[c], int(joe.gem is not None and joe.gem == COLOURS[c]))
        pin(pos.lifebuoy, concrete.lifebuoy)
        if concrete.players[concrete.lifebuoy].card is None:  # X-JOE-2: no card known yet is worth 0 points to Joe
            pin(pos.card[concrete.lifebuoy], 0)
    for fork, label in concrete.forks:
        f = tables.index[fork]
        pin(pos.marker[f], tables.labels[f].index(label))
    return out


def value(model: z3.ModelRef, term: Expr) -> int:
    """The value a model gives a term (its default where the model leaves it free), as an int (1/0 for Booleans)."""
    got = model.eval(term, model_completion=True)
    return got.as_long() if z3.is_int_value(got) else int(z3.is_true(got))


_value = value


#: One term per symbolic position decoded, holding every term of it, so that one evaluation reads them all
#: (:func:`read_values`): by the position's identity, with the position kept so that the identity stays its own.
_BUNDLES: dict[int, tuple[SymPosition, Expr, list[int]]] = {}


def read_values(model: z3.ModelRef, pos: SymPosition) -> dict[int, int]:
    """The values a model gives the terms of ``pos``, by term id (Booleans as Python ``bool``), from one evaluation
    read through z3's C API (a term the model leaves free is missing: :func:`value` gives it its default).
    Evaluating each term through the Python API costs most of a decoding's time."""
    got = _BUNDLES.get(id(pos))
    if got is None or got[0] is not pos:
        if len(_BUNDLES) >= 256:
            _BUNDLES.clear()
        terms = _flat(pos)
        # An uninterpreted function the model does not know: evaluated without completion, its arguments are the
        # terms' values.
        bundle = z3.Function("decode", *[t.sort() for t in terms], z3.BoolSort())(*terms)
        got = _BUNDLES[id(pos)] = (pos, bundle, [t.get_id() for t in terms])
    _, bundle, ids = got
    evaluated = model.eval(bundle, model_completion=False)
    ctx = evaluated.ctx
    ref, ast = ctx.ref(), evaluated.as_ast()
    out: dict[int, int] = {}
    if z3.Z3_get_app_num_args(ref, ast) != len(ids):
        return out
    for i, term_id in enumerate(ids):
        literal = literal_int(ref, z3.Z3_get_app_arg(ref, ast, i))
        if literal is not None:
            out[term_id] = literal
    return out


def decode(model: z3.ModelRef, pos: SymPosition, tables: BoardTables, rules: Ruleset, base: Position) -> Position:
    """The concrete position a model gives ``pos`` (board, ruleset, round, phase and lifebuoy from ``base``)."""
    read: dict[int, int] | None = None
    if isinstance(model, z3.ModelRef):
        read = read_values(model, pos)
    elif hasattr(model, "ints"):  # values evaluated at a pinned position (encoding/enumerate.py, _Values)
        read = model.ints()
    if read is not None:
        found = read

        def value(model: z3.ModelRef, term: Expr) -> int:
            got = found.get(term.get_id())
            return int(got) if got is not None else _value(model, term)
    else:
        value = _value
    players = []
    for p in range(pos.players):
        canoes = []
        for k in range(2):
            place = tables.name.get(value(model, pos.place[p][k]), "port")
            cargo: list[Any] = []
            for c in range(NCOL):
                cargo += [COLOURS[c]] * max(0, value(model, pos.cargo[p][k][c]))
            moored = pos.moored is not None and bool(value(model, pos.moored[p][k]))
            kind = (CanoeKind.DOUBLE if pos.double is not None and value(model, pos.double[p][k])
                    else CanoeKind.SINGLE)
            held = pos.holder is not None and bool(value(model, pos.holder[p][k]))
            canoes.append(Canoe(place, tuple(cargo), kind, moose=held, moored=moored))
        hand = tuple(Card(c) for c in range(len(pos.hand[p])) if value(model, pos.hand[p][c]))
        bank = Gems(max(0, value(model, pos.bank[p][c])) for c in range(NCOL))
        card_value = value(model, pos.card[p])
        card = Card(card_value) if 0 <= card_value < len(pos.hand[p]) else None
        budget = value(model, pos.budget[p]) if pos.budget is not None else 0
        players.append(Player(NAMES[p], tuple(canoes), hand, bank, card,
                              budget if card is Card.ONE_TWO_THREE and budget >= 1 else None))
    caves = tuple(Gems(max(0, value(model, pos.cave[cc][c])) for c in range(NCOL)) for cc in range(NCOL))
    forks = tuple((tables.name[f], tables.labels[f][value(model, m) % len(tables.labels[f])])
                  for f, m in pos.marker.items())
    beaver = None
    if pos.beaver is not None and value(model, pos.beaver) != 0:
        beaver = tables.name.get(value(model, pos.beaver))
    moose = MOOSE_STATES[value(model, pos.moose) % 3] if pos.moose is not None else None
    whirlpool = base.whirlpool
    if pos.whirl is not None:
        whirlpool = tables.name.get(value(model, pos.whirl), NEXT) if value(model, pos.whirl) != 0 else NEXT
    joe = base.joe
    if pos.joe is not None and pos.joe_gem is not None:
        carried = [COLOURS[c] for c in range(NCOL) if value(model, pos.joe_gem[c]) >= 1]
        joe = Joe(tables.name.get(value(model, pos.joe), base.board.top), carried[0] if carried else None)
    return base.replace(players=tuple(players), caves=caves, weather=value(model, pos.weather), forks=forks,
                        beaver=beaver, moose=moose, whirlpool=whirlpool, joe=joe)
