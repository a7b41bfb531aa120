"""Position predicates (docs/QUERIES.md) as z3 terms over a symbolic position: the second reading of a
:class:`~niagara_solver.model.query.Query`, asked through the front door as ``Relations.holds_query``.

The walk of ``any``, ``all`` and ``that`` is the model's (:func:`~niagara_solver.model.query.evaluate`); each count
and flag is read here off the encoding's terms: banks, cargo, places, caves, hands, the weather and the fork
markers (:mod:`.state`), the goal and the winners by the encoding's own rule groups (R-END-1, R-END-3, so a mutant
of them changes them here too).

What the encoding does not hold is refused with ``QueryError``: the last round's events (``stole``, ``fell``,
``rescued``) and the tally (``lost``) always; the round number and the lifebuoy unless the caller gives them (a
symbolic position is of no round; the lifebuoy is a term only with Diamond Joe, X-JOE-2). The phase is the
caller's too: ``game_over`` holds only at the start of a round (R-END-2).
"""

from __future__ import annotations

from typing import Any, Iterable, Union

import z3

from niagara_solver.encoding.core import Encoding
from niagara_solver.encoding.end import encode_end
from niagara_solver.encoding.state import Expr, SymPosition
from niagara_solver.model.atoms import FALLEN, PORT, Card, Colour, Phase
from niagara_solver.model.errors import QueryError
from niagara_solver.model.query import EVENT_COUNTS, TALLY_COUNTS, Count, Flag, Query, check_place, evaluate
from niagara_solver.encoding.terms import z_and, z_or, z_sum


def query_term(relations_or_enc: Any, sym: SymPosition, query: Query, *, phase: Phase = Phase.CARDS,
               round: int | None = None, lifebuoy: int | None = None) -> Expr:
    """The query as a z3 Bool term over ``sym``, in ``phase`` (``game_over`` holds only at the start of a
    round), at round ``round`` and with the lifebuoy at seat ``lifebuoy`` when the query reads them.
    ``relations_or_enc``: the front door's :class:`Relations` or its :class:`Encoding`."""
    enc: Encoding = getattr(relations_or_enc, "enc", relations_or_enc)
    if sym.players != len(query.players):
        raise QueryError(f"the query was read for {len(query.players)} players, the position has {sym.players}")
    return evaluate(query, SymbolicReading(enc, sym, phase, round, lifebuoy))


class SymbolicReading:
    """The counts and flags of a symbolic position, as z3 terms."""

    def __init__(self, enc: Encoding, sym: SymPosition, phase: Phase, round: int | None,
                 lifebuoy: int | None) -> None:
        self.enc = enc
        self.sym = sym
        self.phase = phase
        self.round = round
        self.lifebuoy = lifebuoy
        self.players = sym.players
        self._won: list[Expr] | None = None

    def number(self, value: int) -> Expr:
        return z3.IntVal(value)

    def add(self, left: Expr, right: Expr) -> Expr:
        return left + right

    def sub(self, left: Expr, right: Expr) -> Expr:
        return left - right

    def compare(self, op: str, left: Expr, right: Expr) -> Expr:
        if op == "==":
            return left == right
        if op == "!=":
            return left != right
        if op == "<":
            return left < right
        if op == "<=":
            return left <= right
        if op == ">":
            return left > right
        return left >= right

    def negate(self, inner: Expr) -> Expr:
        return z3.Not(inner)

    def any_of(self, items: Iterable[Expr]) -> Expr:
        return z_or(list(items))

    def all_of(self, items: Iterable[Expr]) -> Expr:
        return z_and(list(items))

    def won(self) -> list[Expr]:
        """Who wins if the game ends here (R-END-2, R-END-3), made once."""
        if self._won is None:
            self._won = encode_end(self.enc, self.sym)
        return self._won

    def flag(self, node: Flag, seat: int | None) -> Expr:
        if node.name == "game_over":  # R-END-2: the goal is checked at the start of a round
            return z_or(self.won()) if self.phase is Phase.CARDS else z3.BoolVal(False)
        assert seat is not None
        if node.name == "goal":
            return self.enc.rule("R-END-1")(self.enc, self.sym.bank[seat])
        return self.won()[seat]

    def count(self, node: Count, seat: int | None) -> Expr:
        sym, t = self.sym, self.enc.tables
        name = node.name
        if name in EVENT_COUNTS or name in TALLY_COUNTS:
            raise QueryError(f"{name} counts what rounds did, which is not in the encoding", node.column)
        if seat is None:
            if name == "weather":
                return sym.weather
            if name == "round":
                if self.round is None:
                    raise QueryError("the round number is not in the encoding: give the round", node.column)
                return z3.IntVal(self.round)
            if name == "cave":
                cave = sym.cave[_colour(node.args[0]) - 1]
                return z_sum(cave) if len(node.args) == 1 else cave[_colour(node.args[1]) - 1]
            fork = str(node.args[0])  # marker
            check_place("fork", fork, self.enc.board, node.arg_column(0))
            return z3.If(sym.marker[t.index[fork]] == 0, 1, 0)
        places = sym.place[seat]
        if name == "bank":
            bank = sym.bank[seat]
            return z_sum(bank) if not node.args else bank[_colour(node.args[0]) - 1]
        if name == "cargo":
            return z_sum([g for k in range(2) for g in sym.cargo[seat][k]])
        if name == "loaded":
            return z_sum([z3.If(sym.load(seat, k) > 0, 1, 0) for k in range(2)])
        if name == "fallen":
            return z_sum([z3.If(x == t.FALLEN, 1, 0) for x in places])
        if name == "port":
            return z_sum([z3.If(x == t.PORT, 1, 0) for x in places])
        if name == "river":
            return z_sum([z3.If(t.is_disc(x), 1, 0) for x in places])
        if name == "canoes":
            place = str(node.args[0])
            check_place("place", place, self.enc.board, node.arg_column(0))
            index = t.FALLEN if place == FALLEN else t.PORT if place == PORT else t.index[place]
            return z_sum([z3.If(x == index, 1, 0) for x in places])
        if name == "hand":
            hand = sym.hand[seat]
            if not node.args:
                return z_sum([z3.If(h, 1, 0) for h in hand])
            card = int(_card(node.args[0]))
            return z3.If(hand[card], 1, 0) if card < len(hand) else z3.IntVal(0)  # a card this ruleset deals none of
        # lifebuoy(who)
        if sym.lifebuoy is not None:
            return z3.If(sym.lifebuoy == seat, 1, 0)
        if self.lifebuoy is None:
            raise QueryError("the lifebuoy is not in the encoding: give its holder", node.column)
        return z3.IntVal(int(self.lifebuoy == seat))


def _colour(arg: Union[Colour, Card, str]) -> Colour:
    assert isinstance(arg, Colour)
    return arg


def _card(arg: Union[Colour, Card, str]) -> Card:
    assert isinstance(arg, Card)
    return arg
