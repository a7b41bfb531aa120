"""Position predicates: a small language of conditions on a position (docs/QUERIES.md), e.g.
``fallen(any) == 2 and bank(that) == 0``, read into a :class:`Query` and evaluated on a :class:`Position`.

The whole-game search looks for a position where a query holds; the encoding reads the same query as a z3 term
(``encoding/query.py``). Both readings walk the query the same way (:func:`evaluate`, over an :class:`Algebra`):
what differs is how each reads a count or a flag off its position.

The grammar (keywords are case-sensitive, whitespace is free)::

    expr    := or ; or := and ("or" and)* ; and := unary ("and" unary)*
    unary   := "not" unary | "(" expr ")" | atom
    atom    := flag | term cmp term               cmp := == != < <= > >=
    term    := INT | count | term ("+" | "-") term
    flag    := "game_over" | "goal(" who ")" | "winner(" who ")"
    count   := "bank(" who ["," colour] ")" | "cargo(" who ")" | "loaded(" who ")" | "fallen(" who ")"
             | "port(" who ")" | "river(" who ")" | "canoes(" who "," place ")" | "cave(" colour ["," colour] ")"
             | "hand(" who ["," card] ")" | "weather" | "round" | "lifebuoy(" who ")" | "marker(" disc ")"
             | "stole(" who ")" | "fell(" who ")" | "rescued(" who ")" | "lost(" who ")" | "lost"
    who     := a player's name | "any" | "all" | "that"

The tree (frozen dataclasses, each with the 1-based ``column`` where it starts in the text; columns are not
compared, so a query read again from its normalised text is equal to it): :class:`Number`, :class:`Count`,
:class:`Flag`, :class:`Sum`, :class:`Compare`, :class:`Not`, :class:`And`, :class:`Or`. A player is a seat index,
or :class:`Who` (``any``, ``all``, ``that``).

Semantics. An atom (a flag or a comparison) that reads ``any`` holds when it holds for some player, one that
reads ``all`` when it holds for every player; every ``any`` of one atom is the same player, and an atom reads
``any`` or ``all``, not both. ``that`` is the player bound by the first ``any`` to its left in its and-chain: an
and-chain in which a ``that`` refers to it is read as "for some player p, the chain with that first ``any`` and
every such ``that`` replaced by p". A count over ``any`` or ``all`` inside arithmetic (``bank(any) + 1 > 3``) is
allowed only in a comparison whose other side is a number.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Generic, Iterable, Iterator, Protocol, Sequence, TypeVar

from niagara_solver.model.atoms import COLOURS, FALLEN, PORT, Card, Colour, Phase
from niagara_solver.model.board import Board
from niagara_solver.model.errors import QueryError, did_you_mean, quoted
from niagara_solver.model.goal import goal_reached, winners
from niagara_solver.model.limits import LIMITS, MAX_INTEGER_DIGITS
from niagara_solver.model.position import Position

#: The rule ID of every error in a query.
QUERIES = "QUERIES"
#: The longest query read (characters): a query is a line; a cap keeps a runaway argument from being parsed.
MAX_QUERY_LENGTH = 10_000
#: How deeply parentheses and ``not`` may nest: the parser is recursive, and no condition needs more.
MAX_QUERY_DEPTH = 100


class Who(Enum):
    """A player a count or a flag reads when it names none: some player, every player, the player bound before."""

    ANY = "any"
    ALL = "all"
    THAT = "that"


#: The player of a count or a flag: a seat index, a :class:`Who`, or None (a count of no player: ``weather``).
WhoRef = int | Who | None
#: An argument of a count besides the player: a colour, a card, or a place (a disc's name, ``port``, ``fallen``).
Arg = Colour | Card | str

COMPARISONS: dict[str, Callable[[int, int], bool]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


@dataclass(frozen=True)
class Number:
    """A non-negative integer."""

    value: int
    column: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Count:
    """A number read off the position: ``name`` (``bank``, ``cave``, ...), the player it reads (``who``) and its
    other arguments (``args``: a colour, a card, a place). ``who_column`` and ``arg_columns`` are where the player
    and the arguments are written."""

    name: str
    who: WhoRef
    args: tuple[Arg, ...] = ()
    column: int = field(default=0, compare=False)
    who_column: int = field(default=0, compare=False)
    arg_columns: tuple[int, ...] = field(default=(), compare=False)

    def arg_column(self, k: int) -> int:
        """Where argument ``k`` is written (the count's column when not known: a tree built by hand)."""
        return self.arg_columns[k] if k < len(self.arg_columns) else self.column


@dataclass(frozen=True)
class Flag:
    """A condition read off the position: ``game_over``, ``goal(who)``, ``winner(who)``."""

    name: str
    who: WhoRef = None
    column: int = field(default=0, compare=False)
    who_column: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Sum:
    """``left + right`` or ``left - right``."""

    left: "Term"
    op: str
    right: "Term"
    column: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Compare:
    """``left op right``, ``op`` one of ``== != < <= > >=``."""

    left: "Term"
    op: str
    right: "Term"
    column: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Not:
    """``not inner``."""

    inner: "Node"
    column: int = field(default=0, compare=False)


@dataclass(frozen=True)
class And:
    """``parts[0] and parts[1] and ...``: an and-chain (where ``that`` is bound)."""

    parts: tuple["Node", ...]
    column: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Or:
    """``parts[0] or parts[1] or ...``."""

    parts: tuple["Node", ...]
    column: int = field(default=0, compare=False)


Term = Number | Count | Sum
Atom = Flag | Compare
Node = Flag | Compare | Not | And | Or


@dataclass(frozen=True)
class Signature:
    """What a count or a flag reads: a player (``who``: required, optional, or not at all), its other arguments'
    kinds (``colour``, ``card``, ``place``, ``fork``) and how many of them may be left out, whether it is written
    bare (``weather``) and what it says (for docs/QUERIES.md and errors)."""

    who: bool | None                     # True: required; None: optional (lost); False: none
    args: tuple[str, ...] = ()
    optional: int = 0                    # how many of the last args may be left out
    bare: bool = False                   # written without parentheses (weather, round, game_over, lost)
    says: str = ""

    def usage(self, name: str) -> str:
        """How the count is written, e.g. ``bank(who)`` or ``bank(who, colour)``."""
        forms = []
        if self.bare:
            forms.append(name)
        if self.who is not False or self.args:
            head = ["who"] if self.who is not False else []
            for left_out in range(self.optional, -1, -1):
                forms.append(f"{name}({', '.join(head + list(self.args[:len(self.args) - left_out]))})")
        return " or ".join(forms)


#: Every count, with what it reads (docs/QUERIES.md lists each form of each: tests/test_query.py holds it to this).
COUNTS: dict[str, Signature] = {
    "bank": Signature(True, ("colour",), 1, says="gems in the player's bank (of a colour)"),
    "cargo": Signature(True, says="gems the player's canoes carry"),
    "loaded": Signature(True, says="the player's canoes carrying a gem"),
    "fallen": Signature(True, says="the player's canoes fallen, waiting for a rescue"),
    "port": Signature(True, says="the player's canoes in the port"),
    "river": Signature(True, says="the player's canoes on a disc"),
    "canoes": Signature(True, ("place",), says="the player's canoes at a place: a disc, port or fallen"),
    "cave": Signature(False, ("colour", "colour"), 1, says="gems in the cave of a colour (of a gem colour)"),
    "hand": Signature(True, ("card",), 1, says="cards in the player's hand; with a card, 1 if it is in the hand"),
    "weather": Signature(False, bare=True, says="the weather marker"),
    "round": Signature(False, bare=True, says="the round number"),
    "lifebuoy": Signature(True, says="1 if the player holds the lifebuoy"),
    "marker": Signature(False, ("fork",), says="1 if the fork's marker shows its first branch"),
    "stole": Signature(True, says="steals the player's canoes made in the last round"),
    "fell": Signature(True, says="the player's canoes that went over the falls in the last round"),
    "rescued": Signature(True, says="the player's canoes rescued at the start of the last round"),
    "lost": Signature(None, bare=True, says="gems gone over the falls on the player's canoes since the setup "
                                            "(bare: every player's)"),
}
#: Every flag.
FLAGS: dict[str, Signature] = {
    "game_over": Signature(False, bare=True, says="the game is over: a round starts and someone reached the goal"),
    "goal": Signature(True, says="the player's bank meets the goal (R-END-1)"),
    "winner": Signature(True, says="the player wins if the game ends now (R-END-2, R-END-3)"),
}
#: The counts of the last round's events and of the tally since the setup.
EVENT_COUNTS = frozenset({"stole", "fell", "rescued"})
TALLY_COUNTS = frozenset({"lost"})
KEYWORDS = ("and", "or", "not")
WHO_WORDS = tuple(w.value for w in Who)
NAMES = (*COUNTS, *FLAGS)


# -- what the last round did, and what the search keeps -------------------------------------------------------

@dataclass(frozen=True)
class RoundEvents:
    """What the last round did, per seat: steals made by the player's canoes, their canoes that went over the
    falls, their canoes rescued, and the gems that went over the falls on their canoes."""

    steals: tuple[int, ...]
    falls: tuple[int, ...]
    rescues: tuple[int, ...]
    lost: tuple[int, ...]

    @staticmethod
    def none(players: int) -> "RoundEvents":
        """No round played (the setup): every count 0."""
        zero = (0,) * players
        return RoundEvents(zero, zero, zero, zero)


@dataclass(frozen=True)
class Tally:
    """Counts since the setup, per seat, kept by the search: the gems that went over the falls on each player's
    canoes."""

    lost: tuple[int, ...]

    def after(self, events: RoundEvents) -> "Tally":
        """The tally once a round with these events is played."""
        return Tally(tuple(a + b for a, b in zip(self.lost, events.lost)))

    @staticmethod
    def zero(players: int) -> "Tally":
        """The tally at the setup."""
        return Tally((0,) * players)


# -- the query ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Query:
    """A position predicate read by :func:`parse_query`: its text, its tree and the players it was read for.

    ``str(query)`` is the text normalised (one space around operators, parentheses only where needed).
    ``named``: the players it names (empty: it treats every player alike); ``uses_events``: it reads the last
    round's events (``stole``, ``fell``, ``rescued``); ``uses_tally``: it reads the tally (``lost``).
    """

    text: str = field(compare=False)
    root: Node
    players: tuple[str, ...]
    named: frozenset[str] = field(init=False, compare=False)
    uses_events: bool = field(init=False, compare=False)
    uses_tally: bool = field(init=False, compare=False)
    #: The and-chains that bind a ``that`` (by path from the root) → the atom holding their first ``any``; the
    #: atoms reading ``that`` → their chain. Paths, not objects: they survive pickling.
    binders: dict[tuple[int, ...], tuple[int, ...]] = field(init=False, compare=False, repr=False)
    bound_by: dict[tuple[int, ...], tuple[int, ...]] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        counts = list(_counts(self.root))
        seats = {c.who for c in counts if isinstance(c.who, int)}
        seats |= {f.who for f in _atoms(self.root) if isinstance(f, Flag) and isinstance(f.who, int)}
        for seat in seats:
            if not 0 <= seat < len(self.players):
                raise QueryError(f"no player at seat {seat} (players: {', '.join(self.players)})")
        object.__setattr__(self, "named", frozenset(self.players[s] for s in seats))
        object.__setattr__(self, "uses_events", any(c.name in EVENT_COUNTS for c in counts))
        object.__setattr__(self, "uses_tally", any(c.name in TALLY_COUNTS for c in counts))
        _check_atoms(self.root, self.players)
        binders, bound_by = _resolve(self.root)
        object.__setattr__(self, "binders", binders)
        object.__setattr__(self, "bound_by", bound_by)

    def __str__(self) -> str:
        return render(self.root, self.players)

    def holds(self, pos: Position, events: RoundEvents | None = None, tally: Tally | None = None) -> bool:
        """Whether the query holds at ``pos``, after a round with ``events`` and with ``tally`` since the setup
        (None: no round played, every such count 0). ``QueryError`` when the position is not of the players the
        query was read for, or has no disc or fork the query names."""
        n = len(pos.players)
        if n != len(self.players) or (self.named and any(p.name != name for p, name in zip(pos.players,
                                                                                            self.players))):
            raise QueryError(f"the query was read for the players {', '.join(self.players)}, the position has "
                             f"{', '.join(p.name for p in pos.players)}")
        return compiled(self)(ConcreteReading(pos, events or RoundEvents.none(n), tally or Tally.zero(n)))

    def holds_as_read(self, pos: Position, events: RoundEvents | None = None, tally: Tally | None = None) -> bool:
        """:meth:`holds` by the walk every reading shares (:func:`evaluate`): the reference :meth:`holds` is tested
        against (tests/test_query.py), without the players' check."""
        n = len(pos.players)
        return evaluate(self, ConcreteReading(pos, events or RoundEvents.none(n), tally or Tally.zero(n)))

    def __getstate__(self) -> dict[str, object]:
        # The compiled walk is made of closures, which do not pickle: a copy makes its own when it is first asked.
        return {k: v for k, v in self.__dict__.items() if k != "_compiled"}


def parse_query(text: str, players: Sequence[str], board: Board | None = None) -> Query:
    """The query written as ``text`` for a game of ``players`` (names in seat order). With ``board``, the discs
    and forks it names are checked at once (else when it is evaluated). ``QueryError`` naming the column of the
    first thing wrong, with the nearest name when a name is unknown."""
    if len(text) > MAX_QUERY_LENGTH:
        raise QueryError(f"a query of {len(text)} characters; a query has at most {MAX_QUERY_LENGTH}", 1, LIMITS)
    root = _Parser(text, tuple(players), board).parse()
    return Query(text, root, tuple(players))


# -- reading the text ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Token:
    """A word, a number, a comparison or a sign, with its 1-based column (``end`` past the text)."""

    kind: str  # "name", "int", "cmp", "(", ")", ",", "+", "-", "end"
    text: str
    column: int


_SINGLE = {"(": "(", ")": ")", ",": ",", "+": "+", "-": "-"}
#: Characters that end a word; those a name can hold no more of (a player's or a disc's, FORMAT.md) are refused.
_BREAKS = frozenset("(),+-<>=!")
_NEVER = frozenset(";:[]/~")


def tokenize(text: str) -> list[Token]:
    """The tokens of ``text``, ending with an ``end`` token; ``QueryError`` at a character no query holds."""
    out: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        col = i + 1
        if ch.isspace():
            i += 1
        elif ch in _SINGLE:
            out.append(Token(_SINGLE[ch], ch, col))
            i += 1
        elif ch in "<>=!":
            two = text[i:i + 2]
            if two in ("==", "!=", "<=", ">="):
                out.append(Token("cmp", two, col))
                i += 2
            elif ch in "<>":
                out.append(Token("cmp", ch, col))
                i += 1
            elif ch == "=":
                raise QueryError("'=' is no comparison; did you mean '=='?", col)
            else:
                raise QueryError("'!' alone means nothing; write != or not", col)
        elif ch in _NEVER or not ch.isprintable():
            raise QueryError(f"unexpected character {quoted(ch)}", col)
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in _BREAKS and text[j] not in _NEVER \
                    and text[j].isprintable():
                j += 1
            word = text[i:j]
            if word.isascii() and word.isdigit():
                if len(word) > MAX_INTEGER_DIGITS:
                    raise QueryError(f"a number of {len(word)} digits; at most {MAX_INTEGER_DIGITS}", col, LIMITS)
                out.append(Token("int", word, col))
            else:
                out.append(Token("name", word, col))
            i = j
    out.append(Token("end", "", n + 1))
    return out


def _describe(tok: Token) -> str:
    return "the end of the query" if tok.kind == "end" else quoted(tok.text)


class _Parser:
    """Recursive descent over the tokens (the grammar in the module's docstring)."""

    def __init__(self, text: str, players: tuple[str, ...], board: Board | None) -> None:
        self.tokens = tokenize(text)
        self.i = 0
        self.players = players
        self.board = board
        self.opened: list[Token] = []   # the "(" still open, for an unbalanced one's column

    def peek(self) -> Token:
        return self.tokens[self.i]

    def take(self) -> Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def is_word(self, word: str) -> bool:
        tok = self.peek()
        return tok.kind == "name" and tok.text == word

    def parse(self) -> Node:
        if self.peek().kind == "end":
            raise QueryError("an empty query", 1)
        node = self.expr(0)
        tok = self.peek()
        if tok.kind == ")":
            raise QueryError("unbalanced parentheses: ')' without its '('", tok.column)
        if tok.kind != "end":
            raise QueryError(f"unexpected {quoted(tok.text)} after a whole condition; join conditions with and, "
                             "or", tok.column)
        return node

    def expr(self, depth: int) -> Node:
        first = self.peek()
        parts = [self.conjunction(depth)]
        while self.is_word("or"):
            self.take()
            parts.append(self.conjunction(depth))
        return parts[0] if len(parts) == 1 else Or(tuple(parts), first.column)

    def conjunction(self, depth: int) -> Node:
        first = self.peek()
        parts = [self.unary(depth)]
        while self.is_word("and"):
            self.take()
            parts.append(self.unary(depth))
        return parts[0] if len(parts) == 1 else And(tuple(parts), first.column)

    def unary(self, depth: int) -> Node:
        tok = self.peek()
        if depth > MAX_QUERY_DEPTH:
            raise QueryError(f"parentheses and not nested more than {MAX_QUERY_DEPTH} deep", tok.column, LIMITS)
        if self.is_word("not"):
            self.take()
            return Not(self.unary(depth + 1), tok.column)
        if tok.kind == "(":
            self.take()
            self.opened.append(tok)
            inner = self.expr(depth + 1)
            self.close(tok)
            return inner
        return self.atom()

    def close(self, opening: Token) -> None:
        tok = self.peek()
        if tok.kind == "end":
            raise QueryError(f"unbalanced parentheses: the '(' at column {opening.column} is never closed",
                             tok.column)
        if tok.kind != ")":
            raise QueryError(f"expected ')' to close the '(' at column {opening.column}, got {_describe(tok)}",
                             tok.column)
        self.take()
        self.opened.pop()

    def atom(self) -> Atom:
        tok = self.peek()
        if tok.kind == "name" and tok.text in FLAGS:
            flag = self.flag()
            if self.peek().kind in ("cmp", "+", "-"):
                raise QueryError(f"{tok.text} is a condition, not a number: use it alone (goal(any) and "
                                 "bank(that) < 5)", tok.column)
            return flag
        left = self.term()
        op = self.peek()
        if op.kind != "cmp":
            raise QueryError(f"expected a comparison (==, !=, <, <=, >, >=) after {render_term(left, self.players)}, "
                             f"got {_describe(op)}", op.column)
        self.take()
        right = self.term()
        return Compare(left, op.text, right, tok.column)

    def term(self) -> Term:
        left = self.operand()
        while self.peek().kind in ("+", "-"):
            op = self.take()
            right = self.operand()
            left = Sum(left, op.text, right, left.column)
        return left

    def operand(self) -> Term:
        tok = self.peek()
        if tok.kind == "int":
            self.take()
            return Number(int(tok.text), tok.column)
        if tok.kind == "name" and tok.text in COUNTS:
            return self.count()
        if tok.kind == "name" and tok.text in FLAGS:
            raise QueryError(f"{tok.text} is a condition, not a number: use it alone (goal(any) and bank(that) < 5)",
                             tok.column)
        if tok.kind == "name" and tok.text not in KEYWORDS and tok.text not in WHO_WORDS:
            raise QueryError(f"unknown name {quoted(tok.text)}; a query reads {', '.join(NAMES)}"
                             f"{did_you_mean(tok.text, NAMES)}", tok.column)
        if tok.kind == "(":
            raise QueryError("parentheses group conditions, not numbers: write bank(red) + 1 > 3", tok.column)
        if tok.kind == ")":
            raise QueryError("unbalanced parentheses: ')' without its '('" if not self.opened else
                             f"expected a number or a count, got {_describe(tok)}", tok.column)
        raise QueryError(f"expected a number, a count or a condition, got {_describe(tok)}", tok.column)

    def flag(self) -> Flag:
        name = self.take()
        sig = FLAGS[name.text]
        who, who_column, _, _ = self.arguments(name, sig)
        return Flag(name.text, who, name.column, who_column)

    def count(self) -> Count:
        name = self.take()
        sig = COUNTS[name.text]
        who, who_column, args, columns = self.arguments(name, sig)
        return Count(name.text, who, args, name.column, who_column, columns)

    def arguments(self, name: Token, sig: Signature) -> tuple[WhoRef, int, tuple[Arg, ...], tuple[int, ...]]:
        opening = self.peek()
        if opening.kind != "(":
            if sig.bare:
                return None, 0, (), ()
            raise QueryError(f"{name.text} reads {'a player' if sig.who else 'a ' + sig.args[0]}: write "
                             f"{sig.usage(name.text)}", opening.column)
        if sig.who is False and not sig.args:
            raise QueryError(f"{name.text} takes no arguments: write {name.text}", opening.column)
        self.take()
        self.opened.append(opening)
        who: WhoRef = None
        who_column = 0
        args: list[Arg] = []
        columns: list[int] = []
        kinds = list(sig.args)
        if sig.who is not False:
            tok = self.take()
            who, who_column = self.player(tok), tok.column
        else:
            columns.append(self.peek().column)
            args.append(self.argument(kinds.pop(0), self.take()))
        while kinds and self.peek().kind == ",":
            self.take()
            columns.append(self.peek().column)
            args.append(self.argument(kinds.pop(0), self.take()))
        if len(kinds) > sig.optional:
            tok = self.peek()
            raise QueryError(f"{name.text} reads {sig.usage(name.text)}; expected ',' and a {kinds[0]}, got "
                             f"{_describe(tok)}", tok.column)
        tok = self.peek()
        if tok.kind == ",":
            raise QueryError(f"too many arguments: {name.text} reads {sig.usage(name.text)}", tok.column)
        self.close(opening)
        return who, who_column, tuple(args), tuple(columns)

    def player(self, tok: Token) -> int | Who:
        if tok.kind == "name" and tok.text in WHO_WORDS:
            return Who(tok.text)
        if tok.kind == "name" and tok.text in self.players:
            return self.players.index(tok.text)
        if tok.kind in ("name", "int"):
            raise QueryError(f"unknown player {quoted(tok.text)} (players: {', '.join(self.players)}); any, all or "
                             f"that{did_you_mean(tok.text, (*self.players, *WHO_WORDS))}", tok.column)
        raise QueryError(f"expected a player ({', '.join(self.players)}; any, all or that), got {_describe(tok)}",
                         tok.column)

    def argument(self, kind: str, tok: Token) -> Arg:
        if tok.kind not in ("name", "int"):
            raise QueryError(f"expected a {kind}, got {_describe(tok)}", tok.column)
        word = tok.text
        if kind == "colour":
            labels = [c.label for c in COLOURS]
            if word not in labels:
                raise QueryError(f"unknown colour {quoted(word)} (colours: {', '.join(labels)})"
                                 f"{did_you_mean(word, labels)}", tok.column)
            return COLOURS[labels.index(word)]
        if kind == "card":
            words = ("1", "2", "3", "4", "5", "6", "7", "cloud", "lasso", "123")
            if word not in words:
                raise QueryError(f"unknown card {quoted(word)} (cards: 1..7, cloud, lasso, 123)"
                                 f"{did_you_mean(word, words)}", tok.column)
            return Card.parse(word)
        if self.board is not None:
            check_place(kind, word, self.board, tok.column)
        return word


def check_place(kind: str, word: str, board: Board, column: int) -> None:
    """``QueryError`` unless ``word`` is a place of ``board`` (``kind`` ``place``: a disc, port or fallen) or one
    of its forks (``fork``)."""
    if kind == "place":
        places = (*board.discs, PORT, FALLEN)
        if word not in places:
            raise QueryError(f"unknown place {quoted(word)} (discs: {', '.join(board.discs)}; port, fallen)"
                             f"{did_you_mean(word, places)}", column)
    elif word not in board.forks:
        forks = ", ".join(board.forks) or "none"
        what = "is no fork of the board" if word in board.discs else "is no disc of the board"
        raise QueryError(f"{quoted(word)} {what} (forks: {forks}){did_you_mean(word, board.forks)}", column)


# -- the rules of any, all and that -------------------------------------------------------------------------

def _terms(term: Term) -> Iterator[Count]:
    if isinstance(term, Count):
        yield term
    elif isinstance(term, Sum):
        yield from _terms(term.left)
        yield from _terms(term.right)


def _atoms(node: Node, path: tuple[int, ...] = ()) -> Iterator[Atom]:
    for atom, _ in _atoms_at(node, path):
        yield atom


def _atoms_at(node: Node, path: tuple[int, ...] = ()) -> Iterator[tuple[Atom, tuple[int, ...]]]:
    """Every atom with its path from the root, left to right."""
    if isinstance(node, (Flag, Compare)):
        yield node, path
    elif isinstance(node, Not):
        yield from _atoms_at(node.inner, (*path, 0))
    else:
        for i, part in enumerate(node.parts):
            yield from _atoms_at(part, (*path, i))


def _counts(node: Node) -> Iterator[Count]:
    for atom in _atoms(node):
        if isinstance(atom, Compare):
            yield from _terms(atom.left)
            yield from _terms(atom.right)


def _readers(atom: Atom) -> list[Count | Flag]:
    """The counts and flags of an atom that read a player, left to right."""
    if isinstance(atom, Flag):
        return [atom]
    return [c for c in (*_terms(atom.left), *_terms(atom.right))]


def quantifier(atom: Atom) -> Who | None:
    """``Who.ANY`` or ``Who.ALL`` when the atom reads some or every player, else None."""
    for reader in _readers(atom):
        if reader.who is Who.ANY or reader.who is Who.ALL:
            return reader.who
    return None


def _constant(term: Term) -> bool:
    return not any(True for _ in _terms(term))


def _check_atoms(root: Node, players: Sequence[str]) -> None:
    for atom in _atoms(root):
        readers = _readers(atom)
        quantified = [r for r in readers if r.who is Who.ANY or r.who is Who.ALL]
        if any(r.who is not quantified[0].who for r in quantified):
            second = next(r for r in quantified if r.who is not quantified[0].who)
            raise QueryError("a condition reads any or all, not both: split it with and", second.who_column)
        if isinstance(atom, Compare) and quantified:
            for side, other in ((atom.left, atom.right), (atom.right, atom.left)):
                if isinstance(side, Sum) and any(r.who is Who.ANY or r.who is Who.ALL for r in _terms(side)) \
                        and not _constant(other):
                    raise QueryError(f"a count over {quantified[0].who.value} in arithmetic is compared with a "  # type: ignore[union-attr]
                                     f"number only: {render_term(other, players)} is no number", other.column)


def _resolve(root: Node) -> tuple[dict[tuple[int, ...], tuple[int, ...]], dict[tuple[int, ...], tuple[int, ...]]]:
    """Which and-chain each ``that`` refers to (the innermost one with an ``any`` in an atom to its left) and
    which atom binds each such chain (its first atom reading ``any``); ``QueryError`` at a ``that`` with no
    ``any`` before it. A chain whose first ``any`` also binds an enclosing chain leaves its ``that`` to that one:
    both name the same player."""
    first_any: dict[tuple[int, ...], tuple[int, ...]] = {}   # chain → its first atom reading any
    refers: dict[tuple[int, ...], tuple[int, ...]] = {}      # atom reading that → chain
    for atom, path in _atoms_at(root):
        chains = [path[:k] for k in range(len(path), -1, -1) if isinstance(_at(root, path[:k]), And)]
        that = next((r for r in _readers(atom) if r.who is Who.THAT), None)
        if that is not None:
            chain = next((c for c in chains if c in first_any), None)
            if chain is None:
                raise QueryError("'that' has no 'any' before it in its and-chain: write the any first, e.g. "
                                 "fallen(any) == 2 and bank(that) == 0", that.who_column)
            refers[path] = chain
        if any(r.who is Who.ANY for r in _readers(atom)):
            for chain in chains:
                first_any.setdefault(chain, path)
    binders: dict[tuple[int, ...], tuple[int, ...]] = {}
    for chain in sorted(set(refers.values()), key=lambda c: (len(c), c)):   # outermost first
        binder = first_any[chain]
        if binder not in binders.values():
            binders[chain] = binder
    owner = {binder: chain for chain, binder in binders.items()}
    bound_by = {path: owner[first_any[chain]] for path, chain in refers.items()}
    return binders, bound_by


def _at(root: Node, path: tuple[int, ...]) -> Node:
    node = root
    for i in path:
        node = node.inner if isinstance(node, Not) else node.parts[i]  # type: ignore[union-attr]
    return node


# -- writing it back --------------------------------------------------------------------------------------

def _who_text(who: WhoRef, players: Sequence[str] | None) -> str:
    if isinstance(who, Who):
        return who.value
    if isinstance(who, int):
        return players[who] if players is not None and 0 <= who < len(players) else f"#{who}"
    return ""


def _arg_text(arg: Arg) -> str:
    return arg.label if isinstance(arg, (Colour, Card)) else str(arg)


def render_term(term: Term, players: Sequence[str] | None) -> str:
    """A number or count as the query writes it."""
    if isinstance(term, Number):
        return str(term.value)
    if isinstance(term, Sum):
        right = render_term(term.right, players)
        if isinstance(term.right, Sum):
            right = f"({right})"  # never read back: the parser groups sums to the left
        return f"{render_term(term.left, players)} {term.op} {right}"
    words = ([_who_text(term.who, players)] if term.who is not None else []) + [_arg_text(a) for a in term.args]
    return f"{term.name}({', '.join(words)})" if words else term.name


def render(node: Node, players: Sequence[str] | None) -> str:
    """The condition as the query writes it, normalised."""
    if isinstance(node, Flag):
        return f"{node.name}({_who_text(node.who, players)})" if node.who is not None else node.name
    if isinstance(node, Compare):
        return f"{render_term(node.left, players)} {node.op} {render_term(node.right, players)}"
    if isinstance(node, Not):
        inner = render(node.inner, players)
        return f"not ({inner})" if isinstance(node.inner, (And, Or)) else f"not {inner}"
    if isinstance(node, And):
        return " and ".join(f"({render(p, players)})" if isinstance(p, (And, Or)) else render(p, players)
                            for p in node.parts)
    return " or ".join(f"({render(p, players)})" if isinstance(p, Or) else render(p, players) for p in node.parts)


# -- evaluation ---------------------------------------------------------------------------------------------

N = TypeVar("N")
B = TypeVar("B")


class Algebra(Protocol, Generic[N, B]):
    """How one reading answers a query's parts: numbers ``N`` and truths ``B`` (Python's, or z3 terms)."""

    players: int

    def number(self, value: int) -> N: ...
    def count(self, node: Count, seat: int | None) -> N: ...
    def flag(self, node: Flag, seat: int | None) -> B: ...
    def add(self, left: N, right: N) -> N: ...
    def sub(self, left: N, right: N) -> N: ...
    def compare(self, op: str, left: N, right: N) -> B: ...
    def negate(self, inner: B) -> B: ...
    def any_of(self, items: Iterable[B]) -> B: ...
    def all_of(self, items: Iterable[B]) -> B: ...


#: A query's walk, made once from its tree: an atom with its quantifier, the chain whose ``any`` it binds (if that
#: chain binds one) and the chain its ``that`` refers to; ``not``; ``or``; ``and`` with its key when it binds.
Plan = tuple  # ("atom", Atom, Who | None, key | None, key | None) | ("not", Plan) | ("or", plans) | ("and", plans, key)


def plan(query: Query) -> Plan:
    """The walk of ``query``'s tree, its bindings resolved (made once per query)."""
    made = query.__dict__.get("_plan")
    if made is None:
        owner = {atom: chain for chain, atom in query.binders.items()}

        def walk(node: Node, path: tuple[int, ...]) -> Plan:
            if isinstance(node, (Flag, Compare)):
                return ("atom", node, quantifier(node), owner.get(path), query.bound_by.get(path))
            if isinstance(node, Not):
                return ("not", walk(node.inner, (*path, 0)))
            parts = tuple(walk(p, (*path, i)) for i, p in enumerate(node.parts))
            if isinstance(node, Or):
                return ("or", parts)
            return ("and", parts, path if path in query.binders else None)

        made = walk(query.root, ())
        object.__setattr__(query, "_plan", made)
    return made


def evaluate(query: Query, reading: "Algebra[N, B]") -> B:
    """The query's truth in a reading: the walk of any, all and that (the module's docstring), the counts and
    flags read by ``reading``. ``any_of`` and ``all_of`` are given their items lazily, so a reading may stop at
    the first that decides."""
    seats = range(reading.players)

    def term(t: Term, seat: int | None, that: int | None) -> N:
        if isinstance(t, Count):
            return reading.count(t, _seat(t.who, seat, that))
        if isinstance(t, Number):
            return reading.number(t.value)
        left, right = term(t.left, seat, that), term(t.right, seat, that)
        return reading.add(left, right) if t.op == "+" else reading.sub(left, right)

    def atom(a: Atom, seat: int | None, that: int | None) -> B:
        if isinstance(a, Flag):
            return reading.flag(a, _seat(a.who, seat, that))
        return reading.compare(a.op, term(a.left, seat, that), term(a.right, seat, that))

    def walk(step: Plan, env: dict[tuple[int, ...], int]) -> B:
        kind = step[0]
        if kind == "atom":
            _, node, q, own, refers = step
            that = env[refers] if refers is not None else None
            if own is not None and own in env:
                return atom(node, env[own], that)
            if q is Who.ANY:
                return reading.any_of(atom(node, s, that) for s in seats)
            if q is Who.ALL:
                return reading.all_of(atom(node, s, that) for s in seats)
            return atom(node, None, that)
        if kind == "not":
            return reading.negate(walk(step[1], env))
        if kind == "or":
            return reading.any_of(walk(p, env) for p in step[1])
        key = step[2]
        if key is not None:
            return reading.any_of(reading.all_of(walk(p, {**env, key: s}) for p in step[1]) for s in seats)
        return reading.all_of(walk(p, env) for p in step[1])

    return walk(plan(query), {})


#: A compiled atom or term: its value read off a concrete reading for a seat (``any``/``all``) and a ``that``.
_Read = Callable[["ConcreteReading", "int | None", "int | None"], int]
#: A compiled step of the walk: its truth in a concrete reading, with the seats the and-chains have bound.
_Walk = Callable[["ConcreteReading", "dict[tuple[int, ...], int]"], bool]


def compiled(query: Query) -> Callable[["ConcreteReading"], bool]:
    """The query's truth in a concrete reading, as :func:`evaluate` walks it with a :class:`ConcreteReading`: the
    same reads of counts and flags, in the same order, stopping where the walk stops, and the same errors; the walk
    made once per query into closures, so that reading it on every position of a search pays no dispatch on the
    tree (the search reads one query on each of hundreds of thousands of positions)."""
    made = query.__dict__.get("_compiled")
    if made is None:
        walk = _compile_step(plan(query))

        def made(reading: ConcreteReading) -> bool:
            return walk(reading, {})
        object.__setattr__(query, "_compiled", made)
    return made


def _for_seat(read: Callable[..., Any], node: Count | Flag) -> Callable[["ConcreteReading", "int | None",
                                                                          "int | None"], Any]:
    """``read(reading, node, player)`` (:meth:`ConcreteReading.count` or ``.flag``) with the player ``_seat`` gives
    the node: the seat of ``any``/``all``, the ``that``, or the node's own."""
    who = node.who
    if who is Who.ANY or who is Who.ALL:
        return lambda r, seat, that: read(r, node, seat)
    if who is Who.THAT:
        return lambda r, seat, that: read(r, node, that)
    return lambda r, seat, that: read(r, node, who)


def _compile_term(t: Term) -> _Read:
    if isinstance(t, Count):
        return _for_seat(ConcreteReading.count, t)
    if isinstance(t, Number):
        number = t.value
        return lambda r, seat, that: number
    left, right = _compile_term(t.left), _compile_term(t.right)
    if t.op == "+":
        return lambda r, seat, that: left(r, seat, that) + right(r, seat, that)
    return lambda r, seat, that: left(r, seat, that) - right(r, seat, that)


def _compile_atom(a: Atom) -> Callable[["ConcreteReading", "int | None", "int | None"], bool]:
    if isinstance(a, Flag):
        return _for_seat(ConcreteReading.flag, a)
    compare = COMPARISONS[a.op]
    left, right = _compile_term(a.left), _compile_term(a.right)
    return lambda r, seat, that: compare(left(r, seat, that), right(r, seat, that))


def _compile_step(step: Plan) -> _Walk:
    """One step of :func:`evaluate`'s walk, compiled (its branches, in its order)."""
    kind = step[0]
    if kind == "atom":
        _, node, q, own, refers = step
        atom = _compile_atom(node)

        def read(r: ConcreteReading, env: dict[tuple[int, ...], int]) -> bool:
            that = env[refers] if refers is not None else None
            if own is not None and own in env:
                return atom(r, env[own], that)
            if q is Who.ANY:
                for s in range(r.players):
                    if atom(r, s, that):
                        return True
                return False
            if q is Who.ALL:
                for s in range(r.players):
                    if not atom(r, s, that):
                        return False
                return True
            return atom(r, None, that)
        return read
    if kind == "not":
        inner = _compile_step(step[1])
        return lambda r, env: not inner(r, env)
    parts = tuple(_compile_step(p) for p in step[1])
    if kind == "or":
        def either(r: ConcreteReading, env: dict[tuple[int, ...], int]) -> bool:
            for part in parts:
                if part(r, env):
                    return True
            return False
        return either
    key = step[2]

    def every(r: ConcreteReading, env: dict[tuple[int, ...], int]) -> bool:
        for part in parts:
            if not part(r, env):
                return False
        return True
    if key is None:
        return every

    def bound(r: ConcreteReading, env: dict[tuple[int, ...], int]) -> bool:
        for s in range(r.players):
            if every(r, {**env, key: s}):
                return True
        return False
    return bound


def _seat(who: WhoRef, seat: int | None, that: int | None) -> int | None:
    if who is Who.ANY or who is Who.ALL:
        return seat
    if who is Who.THAT:
        return that
    return who


class ConcreteReading:
    """The counts and flags of a concrete position (with the last round's events and the tally)."""

    def __init__(self, pos: Position, events: RoundEvents, tally: Tally) -> None:
        self.pos = pos
        self.events = events
        self.tally = tally
        self.players = len(pos.players)

    def number(self, value: int) -> int:
        return value

    def add(self, left: int, right: int) -> int:
        return left + right

    def sub(self, left: int, right: int) -> int:
        return left - right

    def compare(self, op: str, left: int, right: int) -> bool:
        return COMPARISONS[op](left, right)

    def negate(self, inner: bool) -> bool:
        return not inner

    def any_of(self, items: Iterable[bool]) -> bool:
        return any(items)

    def all_of(self, items: Iterable[bool]) -> bool:
        return all(items)

    def flag(self, node: Flag, seat: int | None) -> bool:
        pos = self.pos
        if node.name == "game_over":  # R-END-2: checked at the start of a round
            return pos.phase is Phase.CARDS and bool(winners(pos))
        assert seat is not None
        if node.name == "goal":
            return goal_reached(pos.players[seat])
        return seat in winners(pos)

    def count(self, node: Count, seat: int | None) -> int:
        pos = self.pos
        name = node.name
        if seat is None:
            if name == "weather":
                return pos.weather
            if name == "round":
                return pos.round
            if name == "lost":
                return sum(self.tally.lost)
            if name == "cave":
                cave = pos.cave(node.args[0])  # type: ignore[arg-type]
                return cave.total if len(node.args) == 1 else cave.get(node.args[1])  # type: ignore[arg-type]
            if name == "marker":
                fork = str(node.args[0])
                check_place("fork", fork, pos.board, node.arg_column(0))
                return int(pos.marker(fork) == pos.board.labels[fork][0])
            raise QueryError(f"{name} reads a player", node.column)
        player = pos.players[seat]
        canoes = player.canoes
        if name == "bank":
            return player.bank.total if not node.args else player.bank.get(node.args[0])  # type: ignore[arg-type]
        if name == "cargo":
            return sum(len(c.gems) for c in canoes)
        if name == "loaded":
            return sum(1 for c in canoes if c.gems)
        if name == "fallen":
            return sum(1 for c in canoes if c.place == FALLEN)
        if name == "port":
            return sum(1 for c in canoes if c.place == PORT)
        if name == "river":
            return sum(1 for c in canoes if c.on_river)
        if name == "canoes":
            place = str(node.args[0])
            check_place("place", place, pos.board, node.arg_column(0))
            return sum(1 for c in canoes if c.place == place)
        if name == "hand":
            return len(player.hand) if not node.args else int(node.args[0] in player.hand)
        if name == "lifebuoy":
            return int(pos.lifebuoy == seat)
        if name == "stole":
            return self.events.steals[seat]
        if name == "fell":
            return self.events.falls[seat]
        if name == "rescued":
            return self.events.rescues[seat]
        return self.tally.lost[seat]  # lost(who)
