"""Reading and writing position files (docs/FORMAT.md): validation, defaults, canonical form.

Every malformed or impossible position is refused with a :class:`PositionError` naming the JSON path
and the rule (``players[1].canoes[0].gem: a canoe in the port carries no gem ... (R-GEM-5)``).
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any, Mapping

from niagara_solver.model.board import Board
from niagara_solver.model.errors import InputError, PositionError, did_you_mean, quoted
from niagara_solver.model.atoms import (COLOURS, FALLEN, NEXT, PORT, CanoeKind, Card, Colour, Gems, Moose, Phase,
                                        unwritable)
from niagara_solver.model.limits import LIMITS, MAX_FILE_BYTES, MAX_INTEGER_DIGITS, MAX_JSON_DEPTH
from niagara_solver.model.invariants import canoe_problems, position_problems
from niagara_solver.model.position import Canoe, Joe, Player, Position, start_hand
from niagara_solver.model.ruleset import SWITCHES, Ruleset

FORMAT_ID = "niagara-position/1"

_FIELDS = ("format", "ruleset", "board", "round", "phase", "acted", "weather", "fork", "lifebuoy",
           "whirlpool", "beaver", "moose", "joe", "players", "caves", "puzzle", "comment")
_PLAYER_FIELDS = ("name", "canoes", "hand", "bank", "card", "card_budget")
_CANOE_FIELDS = ("at", "kind", "gem", "gems", "moose", "moored")

#: The expansion's fields (FORMAT.md, "Expansion fields"), each with its module (the module's row names them as its
#: ``pieces``): each is allowed only with its module on, and a file using one without it is refused naming the
#: module's first rule.
_MODULE_OF = {piece: name for name, row in SWITCHES.items() for piece in row.pieces}
#: Characters a player name may not hold: the turn notation and the NAME=VALUE options use them
#: (docs/NOTATION.md). Nor may it hold any other space or control character (see :func:`unwritable`).
_NAME_FORBIDDEN = set(" \t\n;:/[],=<>+()~")

#: Fields of a position file that are not part of the game state but are kept with it.
EXTRA_FIELDS = ("puzzle", "comment")


def _fail(path: str, message: str, rule: str = "FORMAT") -> PositionError:
    return PositionError(path, message, rule)


def _integer(obj: Mapping[str, Any], key: str, default: int, rule: str) -> int:
    value = obj.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(key, f"expected an integer, got {quoted(value)}", rule)
    return value


def _colour(value: object, path: str) -> Colour:
    if not isinstance(value, str):
        raise _fail(path, f"a colour is a name ({', '.join(c.label for c in COLOURS)}), got {quoted(value)}",
                    "R-COMP-3")
    try:
        return Colour.parse(value)
    except ValueError:
        raise _fail(path, f"unknown colour {quoted(value)}; colours: {', '.join(c.label for c in COLOURS)}",
                    "R-COMP-3") from None


def _card(value: object, path: str, rules: Ruleset) -> Card:
    cards = "1..7, \"cloud\", \"lasso\" or \"123\"" if rules.x_cards else "1..6 or \"cloud\""
    try:
        card = Card.parse(value)
    except ValueError:
        raise _fail(path, f"unknown card {quoted(value)}: a card is {cards}",
                    "X-CARDS-1" if rules.x_cards else "R-COMP-2") from None
    if card.is_expansion and not rules.x_cards:
        raise _fail(path, f"the card {card.label} is one of the expansion's cards, a module that is off: set "
                          "\"x_cards\": true in the ruleset", "X-CARDS-1")
    return card


def _gem_counts(value: object, path: str) -> Gems:
    if not isinstance(value, dict):
        raise _fail(path, "expected an object from colour to count", "FORMAT")
    counts: dict[Colour, int] = {}
    for key, number in value.items():
        colour = _colour(key, f"{path}.{key}")
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            raise _fail(f"{path}.{key}", f"a count is a non-negative integer, got {quoted(number)}", "R-COMP-3")
        counts[colour] = number
    return Gems.from_mapping(counts)


def _module(rules: Ruleset, key: str, path: str, what: str | None = None) -> None:
    """Refuse an expansion field (or value) whose module is off in the position's ruleset."""
    module = _MODULE_OF[key]
    if not getattr(rules, module):
        row = SWITCHES[module]
        raise _fail(path, f"{what or quoted(key)} belongs to a module of the expansion that is off: set "
                          f"\"{module}\": true in the ruleset", row.rule)


def _flag(value: object, path: str, rule: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(path, f"expected true or false, got {quoted(value)}", rule)
    return value


def _canoe(value: object, path: str, board: Board, rules: Ruleset) -> Canoe:
    if not isinstance(value, dict):
        raise _fail(path, "a canoe is an object {\"at\": PLACE, \"gem\": COLOUR}", "FORMAT")
    for key in value:
        if key not in _CANOE_FIELDS:
            raise _fail(f"{path}.{key}", f"unknown canoe field; expected {', '.join(_CANOE_FIELDS)}"
                                         f"{did_you_mean(key, _CANOE_FIELDS)}")
    place = value.get("at")
    if isinstance(place, int) and not isinstance(place, bool):
        place = str(place)  # "at": 4 is read as disc "4"
    if not isinstance(place, str):
        raise _fail(f"{path}.at", "every canoe says where it is: \"port\", a disc or \"fallen\"")
    if place not in board.depth and place != FALLEN:
        raise _fail(f"{path}.at", f"unknown place {quoted(place)}; discs: {', '.join(board.discs)}, or port, fallen",
                    "R-BOARD-1")
    kind = CanoeKind.SINGLE
    if "kind" in value:
        _module(rules, "kind", f"{path}.kind", "a canoe's kind")
        try:
            kind = CanoeKind(value["kind"]) if isinstance(value["kind"], str) else None  # type: ignore[assignment]
        except ValueError:
            kind = None  # type: ignore[assignment]
        if kind is None:
            raise _fail(f"{path}.kind", f"a canoe is \"single\" or \"double\", got {quoted(value['kind'])}",
                        "X-DOUBLE-1")
    if "gem" in value and "gems" in value:
        raise _fail(path, "give either \"gem\" or \"gems\", not both", "X-DOUBLE-2" if rules.x_double else "FORMAT")
    gems: tuple[Colour, ...] = ()
    if value.get("gem") is not None:
        gems = (_colour(value["gem"], f"{path}.gem"),)
    elif "gems" in value:
        if not isinstance(value["gems"], list):
            raise _fail(f"{path}.gems", "a list of colours")
        if rules.x_double and kind is CanoeKind.SINGLE and len(value["gems"]) > rules.capacity:
            raise _fail(f"{path}.gems", "a single canoe carries one gem, written \"gem\"; \"gems\" is the cargo "
                                        "of a double canoe", "X-DOUBLE-2")
        gems = tuple(_colour(g, f"{path}.gems[{k}]") for k, g in enumerate(value["gems"]))
    moose = moored = False
    if "moose" in value:
        if not rules.x_moose:
            raise _fail(f"{path}.moose", "the moose belongs to a module of the expansion that is off: set "
                                         "\"x_moose\": true in the ruleset", "X-MOOSE-1")
        moose = _flag(value["moose"], f"{path}.moose", "X-MOOSE-2")
    if "moored" in value:
        _module(rules, "moored", f"{path}.moored", "mooring (the Lasso)")
        moored = _flag(value["moored"], f"{path}.moored", "X-CARDS-4")
    canoe = Canoe(place, gems, kind, moose, moored)
    problems = canoe_problems(canoe, rules, path)
    if problems:
        raise _fail(*problems[0])
    return canoe


def _player(value: object, path: str, board: Board, rules: Ruleset) -> Player:
    if not isinstance(value, dict):
        raise _fail(path, "a player is an object with name, canoes, hand, bank, card")
    for key in value:
        if key not in _PLAYER_FIELDS:
            raise _fail(f"{path}.{key}", f"unknown player field; expected {', '.join(_PLAYER_FIELDS)}"
                                         f"{did_you_mean(key, _PLAYER_FIELDS)}")
    name = value.get("name")
    if not isinstance(name, str) or not name:
        raise _fail(f"{path}.name", "every player has a non-empty name", "R-COMP-1")
    if _NAME_FORBIDDEN & set(name) or unwritable(name):
        raise _fail(f"{path}.name", f"a name may not contain spaces, control characters or any of ;:/[],=<>+()~ "
                                    f"(the turn notation uses them): {quoted(name)}")
    canoes = value.get("canoes")
    if not isinstance(canoes, list) or len(canoes) != 2:
        raise _fail(f"{path}.canoes", "each player owns exactly 2 canoes", "R-COMP-2")
    parsed = tuple(_canoe(c, f"{path}.canoes[{k}]", board, rules) for k, c in enumerate(canoes))
    hand: tuple[Card, ...] = start_hand(rules)
    if "hand" in value:
        raw = value["hand"]
        if not isinstance(raw, list):
            raise _fail(f"{path}.hand", "a hand is a list of cards (1..6 and \"cloud\")", "R-COMP-2")
        hand = tuple(_card(c, f"{path}.hand[{k}]", rules) for k, c in enumerate(raw))
        if len(set(hand)) != len(hand):
            raise _fail(f"{path}.hand", "each card is in a hand at most once",
                        "X-CARDS-1" if rules.x_cards else "R-COMP-2")
    bank = _gem_counts(value.get("bank", {}), f"{path}.bank")
    card = _card(value["card"], f"{path}.card", rules) if value.get("card") is not None else None
    budget = None
    if "card_budget" in value:
        _module(rules, "card_budget", f"{path}.card_budget", "the 1/2/3 card's budget")
        budget = value["card_budget"]
        if card is not Card.ONE_TWO_THREE:
            raise _fail(f"{path}.card_budget", "only a player who played the 1/2/3 card (\"card\": \"123\") has "
                                               "chosen a budget", "X-CARDS-3")
        if budget not in (1, 2, 3) or isinstance(budget, bool):
            raise _fail(f"{path}.card_budget", f"the 1/2/3 card's budget is 1, 2 or 3, got {quoted(budget)}",
                        "X-CARDS-3")
    return Player(name=name, canoes=parsed, hand=hand, bank=bank, card=card, card_budget=budget)


def _board_place(value: object, path: str, board: Board, rule: str, extra: tuple[str, ...] = ()) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or (value not in board.discs and value not in extra):
        others = "".join(f", or {e}" for e in extra)
        raise _fail(path, f"unknown disc {quoted(value)}; discs: {', '.join(board.discs)}{others}", rule)
    return value


def _expansion(obj: Mapping[str, Any], rules: Ruleset, board: Board,
               players: tuple[Player, ...]) -> dict[str, Any]:
    """The expansion's pieces of a position: the whirlpool, the beaver, the moose and Diamond Joe, each only with
    its module on, each defaulting to where it starts (FORMAT.md, "Expansion fields")."""
    pieces: dict[str, Any] = {}
    for key in ("whirlpool", "beaver", "moose", "joe"):
        if key in obj:
            _module(rules, key, key, f"the {key}" if key != "joe" else "Diamond Joe")
    if rules.x_whirl:
        if rules.whirl_start not in board.main_bed:
            raise _fail("ruleset.whirl_start", f"the whirlpool starts on a disc of the main bed "
                                               f"({', '.join(board.main_bed)}), got {quoted(rules.whirl_start)}",
                        "X-WHIRL-1")
        pieces["whirlpool"] = _board_place(obj.get("whirlpool", rules.whirl_start), "whirlpool", board, "X-WHIRL-1",
                                           (NEXT,))
    if rules.x_beaver and obj.get("beaver") is not None:
        pieces["beaver"] = _board_place(obj["beaver"], "beaver", board, "X-BEAVER-1")
    if rules.x_moose:
        held = any(c.moose for p in players for c in p.canoes)
        raw = obj.get("moose", Moose.HELD.value if held else Moose.WAITING.value)
        try:
            pieces["moose"] = Moose(raw) if isinstance(raw, str) else None
        except ValueError:
            pieces["moose"] = None
        if pieces["moose"] is None:
            raise _fail("moose", f"the moose is \"waiting\", \"held\" or \"returning\", got {quoted(raw)}",
                        "X-MOOSE-1")
    if rules.x_joe:
        raw = obj.get("joe", {"at": board.top})
        if not isinstance(raw, dict):
            raise _fail("joe", "Diamond Joe is an object {\"at\": DISC, \"gem\": COLOUR}", "X-JOE-1")
        for key in raw:
            if key not in ("at", "gem"):
                raise _fail(f"joe.{key}", "unknown field of Diamond Joe; expected at, gem"
                            + did_you_mean(key, ("at", "gem")), "X-JOE-1")
        place = raw.get("at", board.top)
        if place in (PORT, FALLEN):
            raise _fail("joe.at", f"Diamond Joe is always on a disc of the river, never {quoted(place)}", "X-JOE-1")
        gem = _colour(raw["gem"], "joe.gem") if raw.get("gem") is not None else None
        pieces["joe"] = Joe(_board_place(place, "joe.at", board, "X-JOE-1"), gem)
    return pieces


def _forks(value: object, board: Board) -> tuple[tuple[str, str], ...]:
    if value is None:
        return tuple((f, board.labels[f][0]) for f in board.forks)
    if not board.forks:
        raise _fail("fork", "this board has no fork", "R-FLOW-4")
    markers: dict[str, str] = {}
    if isinstance(value, str):
        if len(board.forks) != 1:
            raise _fail("fork", "this board has several forks: give an object from fork disc to branch",
                        "R-FLOW-4")
        markers[board.forks[0]] = value
    elif isinstance(value, dict):
        for fork, label in value.items():
            if fork not in board.labels:
                raise _fail(f"fork.{fork}", f"{quoted(fork)} is not a fork; forks: {', '.join(board.forks)}",
                            "R-FLOW-4")
            if not isinstance(label, str):
                raise _fail(f"fork.{fork}", "a fork marker is a branch label", "R-FLOW-4")
            markers[fork] = label
    else:
        raise _fail("fork", "the fork marker is a branch label, or an object from fork disc to label", "R-FLOW-4")
    out = []
    for fork in board.forks:
        label = markers.get(fork, board.labels[fork][0])
        if label not in board.labels[fork]:
            where = "fork" if isinstance(value, str) else f"fork.{fork}"
            raise _fail(where, f"unknown branch {quoted(label)}; fork {fork!r} has {', '.join(board.labels[fork])}",
                        "R-FLOW-4")
        out.append((fork, label))
    return tuple(out)


def fork_markers(value: object, board: Board) -> tuple[tuple[str, str], ...]:
    """The fork markers a position file's ``fork`` field gives on ``board`` (R-FLOW-4): each fork's first branch
    where it says none. Raises PositionError naming the field."""
    return _forks(value, board)


def position_from_json(obj: object) -> Position:
    """Validate a position document (already parsed from JSON) and build the position."""
    if not isinstance(obj, dict):
        raise _fail("", "a position is a JSON object")
    for key in obj:
        if key not in _FIELDS:
            raise _fail(key, f"unknown field; a position has {', '.join(_FIELDS)}{did_you_mean(key, _FIELDS)}")
    if "format" not in obj:
        raise _fail("format", f"missing: a position file starts with \"format\": \"{FORMAT_ID}\"")
    if obj["format"] != FORMAT_ID:
        raise _fail("format", f"expected \"format\": \"{FORMAT_ID}\", got {quoted(obj['format'])}")
    rules = Ruleset.from_json(obj.get("ruleset", "standard"), "ruleset")
    board = Board.from_json(obj.get("board", "standard"), "board")
    round_no = _integer(obj, "round", 1, "R-ROUND-1")
    if round_no < 1:
        raise _fail("round", "rounds are numbered from 1", "R-ROUND-1")
    phase_name = obj.get("phase", Phase.CARDS.value)
    try:
        phase = Phase(phase_name)
    except ValueError:
        raise _fail("phase", f"unknown phase {quoted(phase_name)}; phases: cards (the start of a round), turns "
                             "(phase II under way)", "R-ROUND-1") from None
    weather = _integer(obj, "weather", 0, "R-COMP-4")
    if not rules.weather_min <= weather <= rules.weather_max:
        raise _fail("weather", f"the weather is -1 (sun), 0, 1 (rain) or 2 (storm), got {weather}", "R-COMP-4")
    forks = _forks(obj.get("fork"), board)

    raw_players = obj.get("players")
    counts = rules.player_counts()
    seats = f"{counts[0]} to {counts[-1]}"
    rule = "X-SIX-1" if rules.x_sixth_player else "R-COMP-1"
    if not isinstance(raw_players, list):
        raise _fail("players", f"players is a list of {seats} players in seat order", rule)
    if len(raw_players) not in counts:
        more = (" (a sixth player needs the expansion's \"x_sixth_player\": true)"
                if len(raw_players) == counts[-1] + 1 and not rules.x_sixth_player else "")
        raise _fail("players", f"{seats} players play; found {len(raw_players)}{more}",
                    "X-SIX-1" if more else rule)
    gems_per_colour = rules.gems_for(len(raw_players))
    if gems_per_colour is None:
        raise _fail("ruleset.gems_per_colour", f"the table of gems by player count has no entry for "
                                               f"{len(raw_players)} players", "X-GEMS-1")
    players = tuple(_player(p, f"players[{i}]", board, rules) for i, p in enumerate(raw_players))
    names = [p.name for p in players]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise _fail(f"players[{i}].name", f"duplicate player name {quoted(name)}", "R-COMP-1")

    holder = obj.get("lifebuoy")
    if holder not in names:
        raise _fail("lifebuoy", f"the lifebuoy is held by a player ({', '.join(names)}), got {quoted(holder)}",
                    "R-COMP-5")
    acted: tuple[int, ...] = ()
    if "acted" in obj:
        raw_acted = obj["acted"]
        if not isinstance(raw_acted, list):
            raise _fail("acted", "acted is a list of player names", "R-TURN-1")
        if raw_acted and phase is not Phase.TURNS:
            raise _fail("acted", "players act in phase II: give \"phase\": \"turns\"", "R-ROUND-1")
        seen: list[int] = []
        for k, name in enumerate(raw_acted):
            if name not in names:
                raise _fail(f"acted[{k}]", f"unknown player {quoted(name)}", "R-TURN-1")
            if names.index(name) in seen:
                raise _fail(f"acted[{k}]", f"{name} acts once a round", "R-TURN-1")
            seen.append(names.index(name))
        acted = tuple(seen)

    pieces = _expansion(obj, rules, board, players)
    on_canoes = Gems.of(g for p in players for c in p.canoes for g in c.gems)
    if pieces.get("joe") is not None and pieces["joe"].gem is not None:
        on_canoes = on_canoes.plus(pieces["joe"].gem)  # Joe's gem counts in the totals (X-JOE-1)
    banked = Gems()
    for p in players:
        banked = banked.add(p.bank)
    if "caves" in obj:
        raw_caves = obj["caves"]
        if not isinstance(raw_caves, dict):
            raise _fail("caves", "caves is an object from cave (named by colour) to colour -> count", "R-BOARD-4")
        caves = [Gems() for _ in COLOURS]
        for key, content in raw_caves.items():
            colour = _colour(key, f"caves.{key}")
            caves[colour - 1] = _gem_counts(content, f"caves.{key}")
        cave_tuple = tuple(caves)
    else:
        # FORMAT.md: every gem not on a canoe or in a bank lies in the cave of its own colour.
        cave_tuple = tuple(Gems().plus(c, gems_per_colour - on_canoes.get(c) - banked.get(c))
                           for c in COLOURS)
        for c in COLOURS:
            if cave_tuple[c - 1].get(c) < 0:
                raise _fail("players", f"{on_canoes.get(c) + banked.get(c)} {c.label} gems on canoes and in banks; "
                                       f"there are only {gems_per_colour}", "R-COMP-3")
    pos = Position(players=players, caves=cave_tuple, lifebuoy=names.index(holder), weather=weather, forks=forks,
                   round=round_no, phase=phase, acted=acted, board=board, ruleset=rules, **pieces)
    problems = position_problems(pos)
    if problems:
        raise _fail(*problems[0])
    return pos


def position_to_json(pos: Position) -> dict[str, Any]:
    """The position in canonical form, every field explicit (docs/FORMAT.md)."""
    names = [p.name for p in pos.players]
    out: dict[str, Any] = {"format": FORMAT_ID, "ruleset": pos.ruleset.to_json(), "board": pos.board.to_json(),
                           "round": pos.round, "phase": pos.phase.value}
    if pos.phase is Phase.TURNS:
        out["acted"] = [names[i] for i in pos.acted]
    out["weather"] = pos.weather
    if len(pos.forks) == 1:
        out["fork"] = pos.forks[0][1]
    elif pos.forks:
        out["fork"] = dict(pos.forks)
    out["lifebuoy"] = names[pos.lifebuoy]
    if pos.whirlpool is not None:
        out["whirlpool"] = pos.whirlpool
    if pos.ruleset.x_beaver:
        out["beaver"] = pos.beaver
    if pos.moose is not None:
        out["moose"] = pos.moose.value
    if pos.joe is not None:
        out["joe"] = {"at": pos.joe.place, **({"gem": pos.joe.gem.label} if pos.joe.gem is not None else {})}
    players = []
    for p in pos.players:
        entry: dict[str, Any] = {"name": p.name, "canoes": [_canoe_json(c, pos.ruleset) for c in p.canoes],
                                 "hand": [c.to_json() for c in p.hand], "bank": p.bank.to_json()}
        if p.card is not None:
            entry["card"] = p.card.to_json()
        if p.card_budget is not None:
            entry["card_budget"] = p.card_budget
        players.append(entry)
    out["players"] = players
    out["caves"] = {c.label: pos.cave(c).to_json() for c in COLOURS}
    return out


def _canoe_json(canoe: Canoe, rules: Ruleset) -> dict[str, Any]:
    entry: dict[str, Any] = {"at": canoe.place}
    if rules.x_double:
        entry["kind"] = canoe.kind.value
    if canoe.double:
        entry["gems"] = [g.label for g in canoe.gems]
    elif len(canoe.gems) == 1:
        entry["gem"] = canoe.gems[0].label
    elif canoe.gems:
        entry["gems"] = [g.label for g in canoe.gems]
    if canoe.moose:
        entry["moose"] = True
    if canoe.moored:
        entry["moored"] = True
    return entry


#: ``json.dumps(value, ensure_ascii=False)``, with one encoder made once: :func:`dumps` asks it some hundred times per
#: position, and making the encoder anew took half the time of each question.
_one_line = json.JSONEncoder(ensure_ascii=False).encode


def dumps(obj: Any, width: int = 100, indent: int = 0) -> str:
    """JSON text, one value per line unless it fits on the line (stable, diff-friendly)."""
    flat = _one_line(obj)
    if len(flat) + indent <= width or not isinstance(obj, (dict, list)) or not obj:
        return flat
    pad = " " * (indent + 2)
    if isinstance(obj, dict):
        items = [f"{pad}{_one_line(k)}: {dumps(v, width, indent + 2).lstrip()}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + dumps(v, width, indent + 2).lstrip() for v in obj]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def dumps_position(pos: Position, extras: Mapping[str, Any] | None = None) -> str:
    """The canonical text of a position file (with ``puzzle``/``comment`` kept if given)."""
    doc = position_to_json(pos)
    for key in EXTRA_FIELDS:
        if extras and key in extras:
            doc[key] = extras[key]
    return dumps(doc) + "\n"


class _Refused:
    """A value the parser met but will not hand on (too long an integer, NaN, ...); the check names its path."""

    def __init__(self, message: str, rule: str = LIMITS) -> None:
        self.message = message
        self.rule = rule


class _Repeated(dict[str, Any]):
    """A JSON object that gave a key twice; ``key`` is the first key repeated."""

    key = ""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    repeated = _Repeated(obj)
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            repeated.key = key
            break
        seen.add(key)
    return repeated


def _integer_text(text: str) -> int | _Refused:
    digits = len(text.lstrip("-"))
    if digits > MAX_INTEGER_DIGITS:
        return _Refused(f"an integer of {digits} digits; integers have at most {MAX_INTEGER_DIGITS}")
    return int(text)


def _float_text(text: str) -> float | _Refused:
    value = float(text)
    return value if math.isfinite(value) else _Refused(f"the number {quoted(text)} is out of range")


def _constant(text: str) -> _Refused:
    return _Refused(f"{text} is not a JSON number", "FORMAT")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _check_text(text: str, path: str, source: str | None) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(path, "a lone surrogate (\\ud800..\\udfff) is not a character: write the character "
                               "itself, or its pair of surrogates", "FORMAT", source) from None


def _check_document(doc: Any, source: str | None) -> None:
    """Refuse what the parser let through: repeated keys, nesting deeper than :data:`MAX_JSON_DEPTH`, integers
    of too many digits, NaN and infinities, lone surrogates. Walks the document without recursion."""
    stack: list[tuple[Any, str, int]] = [(doc, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, (dict, list)) and depth >= MAX_JSON_DEPTH:
            raise InputError(path, f"nested deeper than {MAX_JSON_DEPTH} levels", LIMITS, source)
        if isinstance(value, dict):
            if isinstance(value, _Repeated):
                raise InputError(_join(path, value.key), "this key is given twice in one object (which one "
                                                          "counts?): give it once", "FORMAT", source)
            children = []
            for key, item in value.items():
                _check_text(key, _join(path, key), source)
                children.append((item, _join(path, key), depth + 1))
            stack.extend(reversed(children))  # report the first problem in the document's order
        elif isinstance(value, list):
            stack.extend(reversed([(item, f"{path}[{i}]", depth + 1) for i, item in enumerate(value)]))
        elif isinstance(value, _Refused):
            raise InputError(path, value.message, value.rule, source)
        elif isinstance(value, str):
            _check_text(value, path, source)


def parse_json_text(text: str, source: str | None = None) -> Any:
    """Parse JSON, turning a syntax error into an :class:`InputError` that says where.

    Also refused, naming the JSON path: a key given twice in one object (JSON leaves it to the reader which
    one counts), and what breaks the limits of docs/FORMAT.md ("Limits"): more than :data:`MAX_FILE_BYTES`
    characters, nesting deeper than :data:`MAX_JSON_DEPTH`, integers of more than :data:`MAX_INTEGER_DIGITS`
    digits, ``NaN`` and infinities, lone surrogates (which no file can hold as UTF-8).
    """
    if len(text) > MAX_FILE_BYTES:
        raise InputError("", f"more than {MAX_FILE_BYTES:,} characters", LIMITS, source)
    try:
        doc = json.loads(text, object_pairs_hook=_object, parse_int=_integer_text, parse_float=_float_text,
                         parse_constant=_constant)
    except json.JSONDecodeError as err:
        raise InputError(f"line {err.lineno} column {err.colno}", f"invalid JSON: {err.msg}", "FORMAT",
                         source) from None
    except RecursionError:  # the parser's own stack ran out, far deeper than the limit
        raise InputError("", f"nested deeper than {MAX_JSON_DEPTH} levels", LIMITS, source) from None
    _check_document(doc, source)
    return doc


def read_json_file(path: str | Path) -> Any:
    """Read a JSON file, with a clear error for a missing file or bad JSON.

    Only regular files are read (a FIFO would block, a device never end), and at most :data:`MAX_FILE_BYTES`.
    """
    source = str(path)
    try:
        info = os.stat(path)
    except OSError as err:
        raise InputError("", f"cannot read the file: {err.strerror}", "FORMAT", source) from None
    except ValueError:  # a name no file can have (a NUL character)
        raise InputError("", "cannot read the file: no file has such a name", "FORMAT", source) from None
    if not stat.S_ISREG(info.st_mode):
        what = "a folder" if stat.S_ISDIR(info.st_mode) else "a device, a pipe or a socket"
        raise InputError("", f"not a regular file ({what}): positions, rulesets, boards and grids are read "
                             "from files", "FORMAT", source)
    if info.st_size > MAX_FILE_BYTES:
        raise InputError("", f"the file is larger than {MAX_FILE_BYTES:,} bytes", LIMITS, source)
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as err:
        raise InputError("", f"cannot read the file: {err.strerror}", "FORMAT", source) from None
    if len(data) > MAX_FILE_BYTES:  # it grew since
        raise InputError("", f"the file is larger than {MAX_FILE_BYTES:,} bytes", LIMITS, source)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("", "the file is not UTF-8 text", "FORMAT", source) from None
    # Line ends as a text file reads them (the line numbers of a JSON error count these).
    return parse_json_text(text.replace("\r\n", "\n").replace("\r", "\n"), source)


def load_document(path: str | Path, ruleset: Ruleset | None = None) -> tuple[Position, dict[str, Any]]:
    """Read a position file: the position and its extra fields (``puzzle``, ``comment``).

    ``ruleset``, if given, replaces the file's ruleset (a designer's what-if); the position is validated under it.
    """
    obj = read_json_file(path)
    if ruleset is not None and isinstance(obj, dict):
        obj = {**obj, "ruleset": ruleset.to_json()}
    try:
        pos = position_from_json(obj)
    except InputError as err:
        raise err.with_source(str(path)) from None
    extras = {k: obj[k] for k in EXTRA_FIELDS if k in obj}
    return pos, extras


def load_position(path: str | Path, ruleset: Ruleset | None = None) -> Position:
    """Read and validate a position file (under ``ruleset`` instead of its own, if given)."""
    return load_document(path, ruleset)[0]


def loads_position(text: str) -> Position:
    """Parse and validate a position given as JSON text."""
    return position_from_json(parse_json_text(text))


def load_ruleset(spec: str, where: str = "--ruleset") -> Ruleset:
    """A ruleset from a preset name or a ruleset JSON file (the same object as in a position); ``where`` names
    the option or argument in errors about a preset name."""
    if spec.endswith(".json") or "/" in spec:
        obj = read_json_file(spec)
        try:
            return Ruleset.from_json(obj, "")
        except InputError as err:
            raise err.with_source(spec) from None
    return Ruleset.from_json(spec, where)


def load_board(spec: str) -> Board:
    """A board from a preset name or a board JSON file."""
    if spec.endswith(".json") or "/" in spec:
        obj = read_json_file(spec)
        try:
            return Board.from_json(obj, "")
        except InputError as err:
            raise err.with_source(spec) from None
    return Board.from_json(spec, "--board")


__all__ = ["FORMAT_ID", "position_from_json", "position_to_json", "dumps", "dumps_position", "load_position",
           "load_document", "loads_position", "load_ruleset", "load_board", "parse_json_text", "read_json_file",
           "PORT"]
