"""A certificate: the proof of a solver answer, as a tree in the game's words (docs/SOLVER.md, "Certified answers").

A "yes" is X's strategy: at X's nodes the chosen card, turn or rescue; at the others' nodes (and the flow's) every
outcome, each with its subtree. A "no" is the refutation: at X's nodes every option, each with the others' answer
that defeats it. Leaves say why they are decided. Positions are stored once (``positions``) and named by index;
nodes may be shared (a transposition), so the tree is stored as a list of nodes named by index too.

The certificate is pure data: the search builds it over the engine (:mod:`.proof`), and the encoding checks it
(:mod:`.certify`) without consulting the engine; :func:`bounds` is the checker's tiny independent minimax.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Sequence

from niagara_solver.model.atoms import Card
from niagara_solver.model.errors import InputError, NiagaraError
from niagara_solver.model.format import parse_json_text, position_from_json, position_to_json, read_json_file
from niagara_solver.model.notation import Rescue, Turn
from niagara_solver.model.position import Position
from niagara_solver.solver.answers import Goal

#: The certificate format; a reader refuses any other.
CERTIFICATE_FORMAT = "niagara-certificate/1"

class NodeKind(StrEnum):
    """The kinds of node: X's blind card, a player's turn, a player's rescue decision, the flow, and a leaf (the
    values are the file's words)."""

    CARD = "card"
    TURN = "turn"
    RESCUE = "rescue"
    FLOW = "flow"
    LEAF = "leaf"


#: Every kind of node, in the file format's order.
KINDS: tuple[NodeKind, ...] = tuple(NodeKind)


class Claim(StrEnum):
    """Why a leaf is decided (the values are the file's words; :data:`CLAIMS` says what each claims)."""

    OVER = "over"
    END = "end"
    STEAL = "steal"
    REST = "rest"
    UNREACHED = "unreached"
    BOUND = "bound"
    EMPTY = "empty"
    SURE_STEAL = "sure-steal"
    ANY_STEAL = "any-steal"
    SURE_WIN = "sure-win"


#: Why a leaf is decided: ``over`` the game was over at a round's start (R-END-1); ``end`` a round ended (a gem of X
#: lost, the game over, or the horizon reached); ``steal`` X's turn stole (R-STEAL-1); ``rest`` the rest of the
#: horizon's last round after X's turn (the players after X, and the flow for the safe goal) decides, whatever they
#: do, as one question to the encoding; ``unreached`` in the horizon's last round, X to act: no turn of X with a
#: card it may play reaches the goal (R-END-1) or, for the steal goal, steals (R-STEAL-1); ``bound`` (the win goal)
#: X banks at most ``gems`` more gems this round and in each later round at most what its canoes carry (R-GEM-2,
#: X-DOUBLE-1), too few for the goal within the horizon; ``empty`` (the steal goal) no other player's canoe carries
#: a gem, and each can keep its canoes empty to the end of the game whatever X does, so X never steals;
#: ``sure-steal`` (the steal goal, X's card chosen, X still to act this round) X's turn written in the leaf (``card``,
#: ``turn``) steals whatever the players still to act before X play: it stands where it is (the canoes it moves and
#: robs keep their places, its robbed canoes their gems), and each of those players' turns leaves it so;
#: ``any-steal`` (the steal goal, the horizon's last round, X's card chosen, X still to act) whatever the players
#: still to act before X play, one of X's turns listed in the leaf (``turns``, each with a position where it is
#: written) steals; ``sure-win`` (the win goal, X's card chosen, X still to act this round) X's turn written in the
#: leaf (``card``, ``turn``) brings the goal home whatever the players still to act before X play, and nobody ends the
#: round at the goal with a better bank (R-END-3): the game ends with X among the winners.
CLAIMS: tuple[Claim, ...] = tuple(Claim)


@dataclass(frozen=True)
class Option:
    """One branch of a node: a card, a turn (with its card) or a rescue, the position it leads to (an index into
    :attr:`Certificate.positions`, None for X's blind card: the checker sets the card itself) and the node below."""

    then: int
    to: int | None = None
    card: Card | None = None
    turn: Turn | None = None
    rescue: Rescue | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.card is not None:
            out["card"] = self.card.to_json()
        if self.turn is not None:
            out["turn"] = str(self.turn)
        if self.rescue is not None:
            out["rescue"] = str(self.rescue)
        if self.to is not None:
            out["to"] = self.to
        out["then"] = self.then
        return out


@dataclass(frozen=True)
class CNode:
    """A node at a position (``at``): whose choice it is (``player``, a seat; None for the flow and for leaves), its
    options, and for a leaf the claim, its value for X, for ``over`` the winners' seats, for ``bound`` the gems, for
    ``sure-steal`` and ``sure-win`` X's card and turn, for ``any-steal`` X's card and its turns, each with a position
    (an index) where it is written."""

    kind: NodeKind
    at: int
    player: int | None = None
    options: tuple[Option, ...] = ()
    claim: Claim | None = None
    value: bool | None = None
    winners: tuple[int, ...] = ()
    gems: int | None = None
    card: Card | None = None
    turn: Turn | None = None
    turns: tuple[tuple[Turn, int], ...] = ()

    def __post_init__(self) -> None:  # the file's words are read as the kinds and claims they name
        object.__setattr__(self, "kind", NodeKind(self.kind))
        if self.claim is not None:
            object.__setattr__(self, "claim", Claim(self.claim))

    def to_json(self, names: Sequence[str]) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind.value, "at": self.at}
        if self.player is not None:
            out["player"] = names[self.player]
        if self.kind is NodeKind.LEAF:
            out["claim"] = self.claim.value if self.claim is not None else None
            out["value"] = self.value
            if self.claim is Claim.OVER:
                out["winners"] = [names[i] for i in self.winners]
            if self.gems is not None:
                out["gems"] = self.gems
            if self.card is not None:
                out["card"] = self.card.to_json()
            if self.turn is not None:
                out["turn"] = str(self.turn)
            if self.turns:
                out["turns"] = [{"turn": str(t), "at": at} for t, at in self.turns]
        else:
            out["options"] = [o.to_json() for o in self.options]
        return out


@dataclass(frozen=True)
class Certificate:
    """The proof of one answer: player ``x``'s ``goal`` within ``horizon`` rounds from ``positions[0]`` is
    ``answer`` (True "yes", False "no"); the tree starts at ``nodes[0]``."""

    x: int
    goal: Goal
    horizon: int
    answer: bool
    positions: tuple[Position, ...]
    nodes: tuple[CNode, ...]

    @property
    def position(self) -> Position:
        """The position the question is asked about."""
        return self.positions[0]

    def to_json(self) -> dict[str, Any]:
        names = [p.name for p in self.position.players]
        return {"format": CERTIFICATE_FORMAT,
                "question": {"player": names[self.x], "goal": self.goal.value, "horizon": self.horizon,
                             "answer": "yes" if self.answer else "no"},
                "positions": [position_to_json(p) for p in self.positions],
                "nodes": [n.to_json(names) for n in self.nodes]}

    def save(self, path: str | Path) -> None:
        """Write the certificate as JSON (one node per line, so that two certificates diff readably)."""
        data = self.to_json()
        lines = ["{", f'  "format": {json.dumps(data["format"])},', f'  "question": {json.dumps(data["question"])},',
                 '  "positions": [']
        lines += [f"    {json.dumps(p)}{',' if i + 1 < len(data['positions']) else ''}"
                  for i, p in enumerate(data["positions"])]
        lines += ["  ],", '  "nodes": [']
        lines += [f"    {json.dumps(n)}{',' if i + 1 < len(data['nodes']) else ''}"
                  for i, n in enumerate(data["nodes"])]
        lines += ["  ]", "}"]
        Path(path).write_text("\n".join(lines) + "\n")


def load_certificate(path: str | Path) -> Certificate:
    """Read a certificate file; :class:`InputError` (exit 2) naming the file, the JSON path and the rule for any
    malformed part."""
    try:
        return certificate_from_json(read_json_file(path), str(path))
    except InputError as err:
        if err.source is None:
            raise InputError(err.path, err.message, err.rule, str(path)) from None
        raise


def loads_certificate(text: str) -> Certificate:
    """A certificate from JSON text."""
    return certificate_from_json(parse_json_text(text))


def _fail(path: str, message: str, source: str | None = None) -> InputError:
    return InputError(path, message, "CERTIFICATE", source)


def _field(obj: Any, key: str, kind: type | tuple[type, ...], path: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise _fail(path, f"missing '{key}'")
    value = obj[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise _fail(f"{path}.{key}", f"expected {getattr(kind, '__name__', 'a value')}")
    return value


def _index(value: Any, size: int, path: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < size:
        raise _fail(path, f"expected an index from 0 to {size - 1}")
    return value


def certificate_from_json(obj: Any, source: str | None = None) -> Certificate:
    """A certificate from parsed JSON, every part checked for shape (not for truth: that is :mod:`.certify`'s)."""
    if not isinstance(obj, dict) or obj.get("format") != CERTIFICATE_FORMAT:
        raise _fail("format", f"not a certificate: expected \"format\": \"{CERTIFICATE_FORMAT}\"", source)
    question = _field(obj, "question", dict, "")
    raw_positions = _field(obj, "positions", list, "")
    raw_nodes = _field(obj, "nodes", list, "")
    if not raw_positions or not raw_nodes:
        raise _fail("positions" if not raw_positions else "nodes", "empty", source)
    positions = []
    for i, raw in enumerate(raw_positions):
        try:
            positions.append(position_from_json(raw))
        except NiagaraError as err:
            raise _fail(f"positions[{i}]", str(err), source) from None
    names = [p.name for p in positions[0].players]
    player = _field(question, "player", str, "question")
    if player not in names:
        raise _fail("question.player", f"no player named {player!r}", source)
    try:
        goal = Goal(_field(question, "goal", str, "question"))
    except ValueError:
        raise _fail("question.goal", "expected win, steal or safe", source) from None
    horizon = _field(question, "horizon", int, "question")
    answer = _field(question, "answer", str, "question")
    if answer not in ("yes", "no") or horizon < 1:
        raise _fail("question", "expected an answer yes or no and a horizon of at least 1", source)
    nodes = []
    for i, raw in enumerate(raw_nodes):
        where = f"nodes[{i}]"
        try:
            nodes.append(_node(raw, where, names, len(positions), len(raw_nodes)))
        except InputError as err:
            raise InputError(err.path, err.message, err.rule, source) from None
        except NiagaraError as err:  # a card, turn or rescue the notation does not read
            raise _fail(where, str(err), source) from None
    return Certificate(names.index(player), goal, horizon, answer == "yes", tuple(positions), tuple(nodes))


def _node(raw: Any, where: str, names: list[str], npositions: int, nnodes: int) -> CNode:
    word = _field(raw, "kind", str, where)
    if word not in KINDS:
        raise _fail(f"{where}.kind", f"expected one of {', '.join(KINDS)}")
    kind = NodeKind(word)
    at = _index(raw.get("at"), npositions, f"{where}.at")
    player = None
    if "player" in raw:
        name = _field(raw, "player", str, where)
        if name not in names:
            raise _fail(f"{where}.player", f"no player named {name!r}")
        player = names.index(name)
    if kind is NodeKind.LEAF:
        said = _field(raw, "claim", str, where)
        if said not in CLAIMS:
            raise _fail(f"{where}.claim", f"expected one of {', '.join(CLAIMS)}")
        claim = Claim(said)
        value = _field(raw, "value", bool, where)
        won = raw.get("winners", [])
        if not isinstance(won, list) or any(w not in names for w in won):
            raise _fail(f"{where}.winners", "expected a list of player names")
        gems = raw.get("gems")
        if gems is not None and (not isinstance(gems, int) or isinstance(gems, bool) or not 0 <= gems <= 100):
            raise _fail(f"{where}.gems", "expected a number of gems from 0 to 100")
        card = Card.parse(raw["card"]) if "card" in raw else None
        turn = Turn.parse(_field(raw, "turn", str, where)) if "turn" in raw else None
        if claim in (Claim.SURE_STEAL, Claim.SURE_WIN) and (card is None or turn is None):
            raise _fail(where, "missing the card or the turn")
        raw_turns = raw.get("turns", [])
        if not isinstance(raw_turns, list):
            raise _fail(f"{where}.turns", "expected a list of turns, each with the index of a position")
        turns = tuple((Turn.parse(_field(t, "turn", str, f"{where}.turns[{k}]")),
                       _index(t.get("at") if isinstance(t, dict) else None, npositions, f"{where}.turns[{k}].at"))
                      for k, t in enumerate(raw_turns))
        if claim is Claim.ANY_STEAL and (card is None or not turns):
            raise _fail(where, "missing the card or the turns")
        return CNode(kind, at, player, claim=claim, value=value, winners=tuple(names.index(w) for w in won),
                     gems=gems, card=card, turn=turn, turns=turns)
    if kind is not NodeKind.FLOW and player is None:
        raise _fail(where, "missing 'player'")
    options = []
    for k, o in enumerate(_field(raw, "options", list, where)):
        here = f"{where}.options[{k}]"
        then = _index(o.get("then") if isinstance(o, dict) else None, nnodes, f"{here}.then")
        to = _index(o["to"], npositions, f"{here}.to") if "to" in o else None
        card = Card.parse(o["card"]) if "card" in o else None
        turn = Turn.parse(_field(o, "turn", str, here)) if "turn" in o else None
        rescue = Rescue.parse(_field(o, "rescue", str, here)) if "rescue" in o else None
        if kind in (NodeKind.TURN, NodeKind.RESCUE, NodeKind.FLOW) and to is None:
            raise _fail(here, "missing 'to'")
        if (kind is NodeKind.TURN and (card is None or turn is None)) or (kind is NodeKind.CARD and card is None):
            raise _fail(here, "missing the card or the turn")
        options.append(Option(then, to, card, turn, rescue))
    return CNode(kind, at, player, tuple(options))


def bounds(x_chooses: bool, complete: bool, below: Sequence[tuple[bool, bool]]) -> tuple[bool, bool]:
    """The minimax step: bounds (low, high) on X's value at a node from its options' bounds. X's node is the best
    of its options, the others' (and the flow's) the worst; an option list not shown complete gives only the bound
    its side can force (X can at least take a listed option; the others can at least play a listed reply). A "yes"
    holds when low is True at the root, a "no" when high is False."""
    lows = [b[0] for b in below]
    highs = [b[1] for b in below]
    if x_chooses:
        return any(lows), (any(highs) if complete else True)
    return (all(lows) if complete else False), all(highs)
