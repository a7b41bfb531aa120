"""Traces: a play of whole rounds from a setup, as a file (docs/GAMES.md, "Traces"), and its replay by the engine.

The file is JSON::

    {"format": "niagara-trace", "version": 1, "setup": <position>, "target": "<query text>",
     "rounds": [<round>, ...]}

each round as :meth:`.round.RoundRecord.to_json` writes it (``rescues``, ``cards``, ``turns``, ``branches``,
``pushes``, ``position``; ``round``, ``flow`` and ``fell`` are said for the reader and not read back). A file that
is not of this shape is refused with one line naming the JSON path (exit status 2). :func:`replay` plays every round
again with :func:`.round.play_round` from the recorded choices, each rule checked, and compares the position reached
with the recorded one: the first illegal or differing step is named (round, player, what; exit status 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from niagara_solver.engine.flow import StepChoice, parse_choices
from niagara_solver.engine.round import RoundRecord, is_finished, play_round, winners
from niagara_solver.games.search import TraceRound
from niagara_solver.model.atoms import Card
from niagara_solver.model.errors import InputError, NiagaraError, TurnError, quoted
from niagara_solver.model.format import position_from_json, position_to_json, read_json_file
from niagara_solver.model.notation import Rescue, Turn
from niagara_solver.model.position import Position

#: The ``format`` and ``version`` of a trace file.
TRACE_FORMAT = "niagara-trace"
TRACE_VERSION = 1


def trace_json(start: Position, trace: Sequence[TraceRound], target: str | None = None) -> dict[str, Any]:
    """The trace file of a play from ``start``: each round replayed by the engine and written as ``round --json``
    writes one."""
    rounds = []
    pos = start
    for item in trace:
        record = item.record(pos)
        rounds.append(record.to_json())
        pos = record.end
    out: dict[str, Any] = {"format": TRACE_FORMAT, "version": TRACE_VERSION, "setup": position_to_json(start)}
    if target is not None:
        out["target"] = target
    out["rounds"] = rounds
    return out


@dataclass(frozen=True)
class RecordedRound:
    """One round of a trace file, as read: each seat's decision, card and turn (in the order listed), the flow's
    branch choices as written, the pushes, and the position recorded after it."""

    rescues: Mapping[int, Rescue]
    cards: Mapping[int, Card]
    turns: tuple[tuple[int, Turn], ...]
    branches: str | None
    pushes: tuple[str, ...]
    position: Position


@dataclass(frozen=True)
class Trace:
    """A trace file, read: the setup, the rounds, the target it was written for (if said)."""

    setup: Position
    rounds: tuple[RecordedRound, ...]
    target: str | None = None


def _object(value: object, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(path, f"expected an object, got {quoted(value)}", "FORMAT")
    return value


def _seat(pos: Position, name: object, path: str) -> int:
    try:
        if not isinstance(name, str):
            raise KeyError(name)
        return pos.index(name)
    except KeyError:
        raise InputError(path, f"unknown player {quoted(name)}; players: "
                               f"{', '.join(p.name for p in pos.players)}", "R-COMP-1") from None


def _position(value: object, path: str) -> Position:
    try:
        return position_from_json(value)
    except InputError as err:
        inner = f"{path}.{err.path}" if err.path else path
        raise type(err)(inner, err.message, err.rule) from None


def trace_from_json(obj: object) -> Trace:
    """Read a trace file's document; :class:`InputError` naming the JSON path for anything not of its shape."""
    top = _object(obj, "")
    if top.get("format") != TRACE_FORMAT:
        raise InputError("format", f"a trace file says \"format\": \"{TRACE_FORMAT}\", got "
                                   f"{quoted(top.get('format'))}", "FORMAT")
    if top.get("version") != TRACE_VERSION:
        raise InputError("version", f"trace version {TRACE_VERSION} is read, got {quoted(top.get('version'))}",
                         "FORMAT")
    unknown = sorted(set(top) - {"format", "version", "setup", "rounds", "target"})
    if unknown:
        raise InputError(unknown[0], "not a field of a trace file (format, version, setup, target, rounds)",
                         "FORMAT")
    if "setup" not in top:
        raise InputError("setup", "a trace file starts from a setup position", "FORMAT")
    setup = _position(top["setup"], "setup")
    target = top.get("target")
    if target is not None and not isinstance(target, str):
        raise InputError("target", f"the target is the query's text, got {quoted(target)}", "FORMAT")
    rounds = top.get("rounds")
    if not isinstance(rounds, list):
        raise InputError("rounds", f"expected a list of rounds, got {quoted(rounds)}", "FORMAT")
    return Trace(setup, tuple(_round(setup, r, f"rounds[{i}]") for i, r in enumerate(rounds)), target)


def _round(setup: Position, value: object, path: str) -> RecordedRound:
    obj = _object(value, path)
    for key in ("cards", "turns", "position"):
        if key not in obj:
            raise InputError(f"{path}.{key}", "missing: a round of a trace says its cards, turns and position",
                             "FORMAT")
    rescues: dict[int, Rescue] = {}
    for name, text in _object(obj.get("rescues", {}), f"{path}.rescues").items():
        where = f"{path}.rescues.{name}"
        if not isinstance(text, str):
            raise InputError(where, f"a rescue is written none, free or the colours paid, got {quoted(text)}",
                             "R-RESCUE-1")
        try:
            rescues[_seat(setup, name, where)] = Rescue.parse(text)
        except TurnError as err:
            raise InputError(where, err.message, err.rule) from None
    cards: dict[int, Card] = {}
    for name, text in _object(obj["cards"], f"{path}.cards").items():
        where = f"{path}.cards.{name}"
        try:
            cards[_seat(setup, name, where)] = Card.parse(text)
        except ValueError as err:
            if isinstance(err, InputError):
                raise
            raise InputError(where, str(err), "R-COMP-2") from None
    turns = obj["turns"]
    if not isinstance(turns, list):
        raise InputError(f"{path}.turns", f"expected a list of turns, got {quoted(turns)}", "FORMAT")
    taken: list[tuple[int, Turn]] = []
    for k, item in enumerate(turns):
        where = f"{path}.turns[{k}]"
        one = _object(item, where)
        seat = _seat(setup, one.get("player"), f"{where}.player")
        text = one.get("turn")
        if not isinstance(text, str):
            raise InputError(f"{where}.turn", f"a turn in the notation, got {quoted(text)}", "NOTATION")
        try:
            taken.append((seat, Turn.parse(text)))
        except TurnError as err:
            raise InputError(f"{where}.turn", err.message, err.rule) from None
    branches = obj.get("branches")
    if branches is not None and not isinstance(branches, str):
        raise InputError(f"{path}.branches", f"each flow step's branch, e.g. L,R, got {quoted(branches)}",
                         "R-FLOW-4")
    pushes = obj.get("pushes", [])
    if not isinstance(pushes, list) or not all(isinstance(p, str) for p in pushes):
        raise InputError(f"{path}.pushes", f"a list of discs, got {quoted(pushes)}", "X-WHIRL-4")
    return RecordedRound(rescues, cards, tuple(taken), branches, tuple(pushes),
                         _position(obj["position"], f"{path}.position"))


def load_trace(path: str | Path) -> Trace:
    """Read a trace file (errors name the file and the JSON path)."""
    try:
        return trace_from_json(read_json_file(path))
    except InputError as err:
        raise err.with_source(str(path)) from None


@dataclass(frozen=True)
class Failure:
    """The first step of a trace that does not replay: its round (1 = the first of the trace), the player whose
    step it is (None: the round as a whole, or its flow), and what is wrong."""

    round: int
    player: str | None
    what: str

    def text(self) -> str:
        """``round 2, blue: ...``."""
        return f"round {self.round}" + (f", {self.player}" if self.player else "") + f": {self.what}"


@dataclass
class ReplayResult:
    """A trace replayed: the rounds played by the engine, and the first failure (None: every round legal and
    reaching its recorded position)."""

    trace: Trace
    records: list[RoundRecord] = field(default_factory=list)
    failure: Failure | None = None

    @property
    def ok(self) -> bool:
        """Every round replayed legal, to its recorded position."""
        return self.failure is None

    @property
    def exit_status(self) -> int:
        """0 when every round replays, 1 at the first failure."""
        return 0 if self.failure is None else 1


class _Taken(dict[int, Turn]):
    """The turns of a round, remembering whose turn was asked last (the error names that player)."""

    taken: int | None = None

    def __getitem__(self, player: int) -> Turn:
        self.taken = player
        return super().__getitem__(player)


def replay(trace: Trace) -> ReplayResult:
    """Replay every round of ``trace`` with the engine (:func:`.round.play_round`), from its setup: each rescue, card
    and turn checked by the rules, the flow with the recorded branches and pushes; then the position reached compared
    with the one recorded. Stops at the first failure, named."""
    result = ReplayResult(trace)
    pos = trace.setup
    for number, recorded in enumerate(trace.rounds, start=1):
        names = [p.name for p in pos.players]
        if is_finished(pos):
            won = ", ".join(names[i] for i in winners(pos))
            result.failure = Failure(number, None, f"the game is over ({won} reached the goal): no round is played "
                                                   "after it (R-END-2)")
            return result
        turns = _Taken(recorded.turns)
        try:
            choices: list[StepChoice] | None = None
            if recorded.branches is not None:
                parts = [p for p in recorded.branches.split(",") if p.strip()]
                choices = parse_choices(recorded.branches, pos, len(parts))
            record = play_round(pos, recorded.cards, turns, recorded.rescues, choices, recorded.pushes)
        except NiagaraError as err:
            who = names[turns.taken] if turns.taken is not None else None
            result.failure = Failure(number, who, str(err))
            return result
        order = [t.player for t in record.turns]
        listed = [seat for seat, _ in recorded.turns]
        if listed != order:
            result.failure = Failure(number, None, "the turns are listed as "
                                     f"{', '.join(names[i] for i in listed)}, but players act in order from the "
                                     f"lifebuoy holder: {', '.join(names[i] for i in order)} (R-TURN-1)")
            return result
        if record.end != recorded.position:
            who, what = _difference(record.end, recorded.position)
            result.failure = Failure(number, who, f"the position after the round differs from the recorded one: "
                                                  f"{what}")
            return result
        result.records.append(record)
        pos = record.end
    return result


def _difference(played: Position, recorded: Position) -> tuple[str | None, str]:
    """The first difference between the position played and the one recorded: (player or None, what)."""
    if len(played.players) != len(recorded.players):
        return None, f"{len(recorded.players)} players recorded, {len(played.players)} play"
    for mine, theirs in zip(played.players, recorded.players):
        if mine.name != theirs.name:
            return None, f"player {quoted(theirs.name)} recorded where {quoted(mine.name)} plays"
        for what in ("canoes", "bank", "hand", "card"):
            a, b = getattr(mine, what), getattr(theirs, what)
            if a != b:
                return mine.name, f"{what}: played {_text(what, a)}, recorded {_text(what, b)}"
    for what in ("caves", "lifebuoy", "weather", "forks", "round", "phase", "whirlpool", "beaver", "moose", "joe",
                 "ruleset", "board"):
        if getattr(played, what) != getattr(recorded, what):
            return None, f"{what}: played {getattr(played, what)!r}, recorded {getattr(recorded, what)!r}"
    return None, "the positions differ"


def _text(what: str, value: Any) -> str:
    if what == "canoes":
        return ", ".join(c.describe() for c in value)
    if what == "hand":
        return ",".join(c.label for c in value)
    if what == "bank":
        return str(value.total) + " gems"
    return repr(value)
