"""Builders for readable test positions and outcome sets.

``P("red", "port", "4:ruby")`` is a player with a canoe in the port and one on disc 4 carrying a ruby.
``position(P(...), P(...), weather=1)`` builds a phase-II position (validated by the real loader) with
every gem not on a canoe or in a bank in its own cave.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Iterable, Iterator, Sequence, TypeVar

from niagara_solver.engine.apply import apply_turn
from niagara_solver.model.notation import Turn
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import Card
from niagara_solver.model.format import FORMAT_ID, position_from_json
from niagara_solver.model.position import Position


def P(name: str, *canoes: str | dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A player document; each canoe is ``PLACE`` or ``PLACE:colour`` (or ``PLACE:colour,colour``), or the canoe's
    object as a file writes it."""
    parsed = []
    for spec in canoes:
        if isinstance(spec, dict):  # a canoe written as in a file: {"at": "5", "moose": true}
            parsed.append(spec)
            continue
        place, _, cargo = spec.partition(":")
        entry: dict[str, Any] = {"at": place}
        if cargo:
            gems = cargo.split(",")
            if len(gems) == 1:
                entry["gem"] = gems[0]
            else:
                entry["gems"] = gems
        parsed.append(entry)
    return {"name": name, "canoes": parsed, **fields}


def doc(*players: dict[str, Any], phase: str = "turns", **fields: Any) -> dict[str, Any]:
    """A position document (lifebuoy to the first player unless given)."""
    out: dict[str, Any] = {"format": FORMAT_ID, "phase": phase, "lifebuoy": players[0]["name"],
                           "players": list(players)}
    out.update(fields)
    return out


def position(*players: dict[str, Any], phase: str = "turns", **fields: Any) -> Position:
    """A validated position; phase II by default so turns can be taken."""
    return position_from_json(doc(*players, phase=phase, **fields))


def card(value: int | str) -> Card:
    return Card.parse(value)


def outcomes(pos: Position, name: str, value: int | str) -> set[Position]:
    """The set of positions the generator says ``name`` can reach with that card."""
    return {o.position for o in legal_turns(pos, pos.index(name), card(value))}


def notations(pos: Position, name: str, value: int | str) -> list[str]:
    return [str(o.turn) for o in legal_turns(pos, pos.index(name), card(value))]


def expected(pos: Position, name: str, value: int | str, turns: Iterable[str]) -> set[Position]:
    """The positions the listed turns lead to, each checked rule by rule by the interpreter."""
    return {apply_turn(pos, pos.index(name), Turn.parse(t), card(value)).position for t in turns}


def assert_turns(pos: Position, name: str, value: int | str, turns: list[str]) -> None:
    """The generator's outcomes are exactly those of ``turns`` (and there are that many distinct ones)."""
    want = expected(pos, name, value, turns)
    assert len(want) == len(turns), "two listed turns lead to the same position"
    got = outcomes(pos, name, value)
    missing = [t for t in turns if expected(pos, name, value, [t]).isdisjoint(got)]
    extra = [n for n in notations(pos, name, value) if expected(pos, name, value, [n]).isdisjoint(want)]
    assert not missing and not extra, f"missing {missing}, unexpected {extra}"
    assert got == want


def pending_switches() -> set[str]:
    """The switches still pending in some reading of the rules (niagara_solver/model/readings.py): those with a
    value a reading does not cover yet, and the own switches of a pending module (its rules share the module's
    section, e.g. ``lasso_scope`` (X-CARDS-4) with ``x_cards`` (X-CARDS-1))."""
    from niagara_solver.model.readings import covered
    from niagara_solver.model.ruleset import SWITCHES

    pending = {name for name, row in SWITCHES.items() if not all(covered(name, v) for v in row.tries)}
    sections = {SWITCHES[m].rule.rsplit("-", 1)[0] for m in pending if m.startswith("x_")}
    return pending | {name for name, row in SWITCHES.items() if row.rule.rsplit("-", 1)[0] in sections}


def pending_rules(rules: Iterable[str]) -> set[str]:
    """Among ``rules``, those of an expansion module still pending in the engine (niagara_solver/model/readings.py:
    each reading refuses it, tests/test_readings.py): their outcome tests come with the module."""
    from niagara_solver.model.readings import NOT_COVERED
    from niagara_solver.model.ruleset import SWITCHES

    sections = {SWITCHES[m].rule.rsplit("-", 1)[0] for m in NOT_COVERED["engine"] if m.startswith("x_")}
    return {r for r in rules if r.rsplit("-", 1)[0] in sections}


def replayed_games(rules_of: Callable[[random.Random], Any], seeds: Iterable[int], players: Sequence[int],
                   rounds: int = 40, every_turn_each: int = 0) -> Iterator[tuple[Any, list[Any]]]:
    """Seeded random games under ``rules_of(rng)``, every played turn checked on the way: the position stays valid,
    round-trips through JSON, the rule-by-rule interpreter replays the turn to the same position (the two readings
    of phase II) and its notation round-trips; with ``every_turn_each`` = k, every legal turn of every k-th round
    is replayed too. Yields each round's record and its turns, for the test's own checks."""
    from niagara_solver.play.playout import random_playout
    from niagara_solver.model.format import dumps_position, loads_position
    from niagara_solver.model.invariants import position_problems

    for seed in seeds:
        rng = random.Random(seed)
        rules = rules_of(rng)
        start = Position.initial([f"p{i}" for i in range(rng.choice(list(players)))], ruleset=rules)
        for record in random_playout(start, seed, rounds):
            previous = record.turns_start
            for turn in record.turns:
                assert position_problems(turn.after) == []
                assert loads_position(dumps_position(turn.after)) == turn.after
                if every_turn_each and record.start.round % every_turn_each == 0:
                    for outcome in legal_turns(previous, turn.player, turn.card):
                        assert apply_turn(previous, turn.player, outcome.turn, turn.card).position == outcome.position
                assert apply_turn(previous, turn.player, turn.turn, turn.card).position == turn.after
                assert Turn.parse(str(turn.turn)) == turn.turn
                previous = turn.after
            assert position_problems(record.end) == []
            assert loads_position(dumps_position(record.end)) == record.end
            yield record, list(record.turns)


_LOOKAHEAD: dict[tuple[int, int, int], Position] = {}


def lookahead_start(players: int, seed: int, round_: int) -> Position:
    """The start of round ``round_`` of a seeded lookahead game, as benchmarks/bench_horizon.py takes its positions."""
    key = (players, seed, round_)
    if key not in _LOOKAHEAD:
        from niagara_solver.play.playout import random_playout
        start = Position.initial([f"p{i}" for i in range(players)])
        _LOOKAHEAD[key] = next(r.start for r in random_playout(start, seed, rounds=round_, policy="lookahead")
                               if r.start.round == round_)
    return _LOOKAHEAD[key]


E = TypeVar("E")

#: Enumerators by kind and the relations they ask (board, ruleset, player count), with the z3 context they were built
#: in; the oldest dropped past :data:`KEPT_ENUMERATORS`.
_ENUMERATORS: dict[Any, tuple[Any, Any]] = {}
KEPT_ENUMERATORS = 12


def kept_enumerator(kind: type[E], pos: Position) -> E:
    """An enumerator of ``kind`` (``Enumerator`` or ``IncrementalEnumerator``) for the relations ``pos`` is played
    under, kept for the later questions of this test process about positions of the same board, ruleset and player
    count: building a turn's relation takes longer than most questions asked of it. Each question pins its own
    position in a scope of its own, so the answers are those of a new enumerator. Kept per z3 context (a job starts
    a fresh one: encoding/solver.py, ``fresh_context``); not for a test that patches the encoding (a planted bug)."""
    import z3

    context = z3.main_ctx()
    key = (kind, pos.board, pos.ruleset, len(pos.players))
    entry = _ENUMERATORS.get(key)
    if entry is None or entry[0] is not context:
        while len(_ENUMERATORS) >= KEPT_ENUMERATORS:
            del _ENUMERATORS[next(iter(_ENUMERATORS))]
        entry = _ENUMERATORS[key] = (context, kind.of(pos))  # type: ignore[attr-defined]
    return entry[1]  # type: ignore[no-any-return]
