"""Switch witnesses: for one switch that differs between two rulesets, a small position where that switch alone
changes what may happen, or a proof that it changes nothing (``niagara-solve diff``, docs/DIFF.md).

A witness is found by the solver. Both rulesets' relations of the phase the switch acts in are built over one
symbolic position and one symbolic choice; the solver looks for a position valid under both and a choice that
is legal under one and not the other (turns, rescues), or the same choices leading to different results (the
flow, the end check). The position is shrunk (fewest gems away from home, fewest canoes on the river), then
replayed by the engine under both rulesets: a witness the engine does not confirm is reported as such, never
hidden. The rule IDs involved are the switch's own and those of the rule groups the choice breaks on the other
side.

The switch is isolated: ruleset A against A with that one switch set as in B, so each witness shows one
switch's effect. ``gems_per_colour`` has no witness position: no position is valid under both (R-COMP-3).

The verdict of a witness (:attr:`Witness.verdict`) answers "does the switch change anything here?" in the words
of :data:`~niagara_solver.model.verdict.WITNESS`: *found* (CONFIRMED), *none* (REFUTED: proved for every
position) or *unknown*.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from niagara_solver.encoding.relations import NAMES, Constraint, Model, Question, Relations, Sat, SymPosition, value
from niagara_solver.encoding.solver import fresh_context
from niagara_solver.engine.apply import apply_turn
from niagara_solver.engine.flow import choices_text, flow_outcomes, flow_value
from niagara_solver.engine.rescue import rescue_options
from niagara_solver.engine.round import winners
from niagara_solver.engine.turns import legal_turns
from niagara_solver.jobs import Task
from niagara_solver.model.atoms import Card, Phase
from niagara_solver.model.board import Board
from niagara_solver.model.errors import NiagaraError
from niagara_solver.model.format import position_from_json, position_to_json
from niagara_solver.model.invariants import position_problems
from niagara_solver.model.limits import out_of_time, time_limit
from niagara_solver.model.notation import Rescue, Turn
from niagara_solver.model.position import Player, Position
from niagara_solver.model.puzzles import bundled_puzzles, puzzle_paths, without_modules
from niagara_solver.model.ruleset import SWITCHES, Ruleset
from niagara_solver.model.switches import SwitchPhase, as_json, value_text
from niagara_solver.model.verdict import WITNESS, Verdict
from niagara_solver.solver.answers import Goal
from niagara_solver.solver.solve import answer_with


@dataclass
class Witness:
    """A position where one switch changes the legal choices or the result, with the choice that shows it."""

    switch: str
    a: Any
    b: Any
    #: The part of a game whose relations the witness was sought in (the switch's row's first phase); None for a
    #: module's, found in a bundled puzzle instead (its JSON says :data:`MODULE_PHASE`).
    phase: SwitchPhase | None
    verdict: Verdict                   # CONFIRMED found, REFUTED none (proved: changes nothing), UNKNOWN
    rules: list[str] = field(default_factory=list)
    position: Position | None = None   # under ruleset A
    player: int | None = None
    card: Card | None = None
    turn: Turn | None = None
    legal_in: str = ""                 # "a" or "b": where the choice is legal
    summary: str = ""
    detail: list[str] = field(default_factory=list)
    engine: str = ""                   # the engine's replay of the witness
    confirmed: bool = False
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        phase = MODULE_PHASE if self.phase is None else self.phase.value
        out: dict[str, Any] = {"switch": self.switch, "a": self.a, "b": self.b, "phase": phase,
                               "verdict": WITNESS(self.verdict), "rules": self.rules, "summary": self.summary,
                               "detail": self.detail, "seconds": round(self.seconds, 3)}
        if self.position is not None:
            out["position"] = position_to_json(self.position)
            out["engine"] = self.engine
            out["confirmed"] = self.confirmed
        if self.player is not None and self.position is not None:
            out["player"] = self.position.players[self.player].name
        if self.card is not None:
            out["card"] = self.card.to_json()
        if self.turn is not None:
            out["turn"] = str(self.turn)
        if self.legal_in:
            out["legal_in"] = self.legal_in
        return out


def _value(rules: Ruleset, switch: str) -> str:
    """The switch's value under ``rules``, as a ruleset file spells it (``true``, not Python's ``True``)."""
    return value_text(rules.switches()[switch])


def switch_witness(board: Board, a: Ruleset, b: Ruleset, switch: str, players: int = 2,
                   timeout: float | None = 60) -> Witness:
    """A witness that ``switch`` set as in ``b`` (everything else as in ``a``) changes the game."""
    start = time.perf_counter()
    other = dataclasses.replace(a, **{switch: getattr(b, switch)})
    # The part of a round the switch acts in: its witness is sought there.
    phase: SwitchPhase | None = SWITCHES[switch].phases[0]
    values = (a.switches()[switch], other.switches()[switch])
    finder = {SwitchPhase.TURN: _turn, SwitchPhase.RESCUE: _rescue, SwitchPhase.FLOW: _flow, SwitchPhase.END: _end,
              SwitchPhase.SETUP: _setup, SwitchPhase.KNOWLEDGE: _knowledge}[SWITCHES[switch].phases[0]]
    if switch in MODULES:  # a module's pieces and cards are in no position valid under both rulesets
        finder, phase = _module, None
    with time_limit(timeout):
        if out_of_time():  # no relation is built past the time limit
            witness = Witness(switch, None, None, phase, Verdict.UNKNOWN,
                              summary="not sought: the time limit ran out")
        else:
            witness = finder(board, a, other, switch, players, timeout)
    witness.a, witness.b = values
    witness.rules = sorted({SWITCHES[switch].rule, *witness.rules}, key=_rule_order)
    witness.seconds = time.perf_counter() - start
    return witness


# -- the phases ---------------------------------------------------------------------------------------------

#: The expansion's modules that bring pieces or cards (RULES.md section X: the rows with ``pieces``);
#: ``x_sixth_player`` only changes who plays (a ``setup`` witness).
MODULES = tuple(name for name, row in SWITCHES.items() if row.pieces)
#: The phase a module's witness names in JSON (``Witness.phase`` None): it is sought in no phase's relations, but in
#: the module's bundled puzzles.
MODULE_PHASE = "module"


def _module(board: Board, a: Ruleset, b: Ruleset, switch: str, players: int, timeout: float | None) -> Witness:
    """A module's witness. A position valid under both rulesets has none of the module's pieces or cards, so a
    search over such positions would find that the module changes nothing, which is not so. Instead: a bundled
    puzzle of the module (``puzzles/expansion``) on this board whose answer, by the search over the engine, differs
    when the module is taken away (:func:`~niagara_solver.model.puzzles.without_modules`: the same position without
    its pieces and cards, the module off)."""
    folder = bundled_puzzles()
    for path in puzzle_paths(os.path.join(folder, "expansion") if folder else None):
        if out_of_time():
            return Witness(switch, None, None, None, Verdict.UNKNOWN,
                           summary="the time limit ran out before a puzzle of the module was answered")
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        puzzle = doc.get("puzzle")
        try:
            on = position_from_json({k: v for k, v in doc.items() if k not in ("puzzle", "comment")})
            off = position_from_json({k: v for k, v in without_modules(doc, [switch]).items()
                                      if k not in ("puzzle", "comment")})
        except NiagaraError:
            continue
        if puzzle is None or on.board != board or switch not in on.ruleset.modules:
            continue
        goal, horizon, name = Goal(puzzle["goal"]), puzzle["horizon"], os.path.basename(path)
        with_it = answer_with(on, on.index(puzzle["player"]), goal, horizon, "search", timeout)
        without = answer_with(off, off.index(puzzle["player"]), goal, horizon, "search", timeout)
        if Verdict.UNKNOWN in (with_it.verdict, without.verdict) or with_it.word == without.word:
            continue
        w = Witness(switch, None, None, None, Verdict.CONFIRMED, position=on, player=on.index(puzzle["player"]),
                    card=with_it.card, turn=with_it.turn, confirmed=True,
                    summary=(f"puzzle {name.removesuffix('.json')}: {puzzle['question']} "
                             f"{with_it.word.upper()} with {switch} on, {without.word.upper()} with it off (the same "
                             "position without the module's pieces and cards)"),
                    engine=(f"the search over the engine answers {with_it.word} with the module and {without.word} "
                            "without it"))
        w.rules = list(SWITCHES[switch].rules)  # the rules the module brings (its row's rule and ``also``)
        return w
    return Witness(switch, None, None, None, Verdict.UNKNOWN,
                   summary=("no bundled puzzle on this board shows the module deciding a question; a position valid "
                            "under both rulesets has none of its pieces or cards, so a position search cannot "
                            "compare them"))


def _base(board: Board, rules: Ruleset, players: int) -> Position:
    return Position.initial(list(_names(players)), board, rules)


def _names(players: int) -> tuple[str, ...]:
    return NAMES[:players]


def _witness_model(pre: SymPosition, rel_a: Relations, rel_b: Relations, phase: Phase,
                   differ: Callable[[], list[Any]],
                   switch: str, kind: SwitchPhase, timeout: float | None, all_acted: bool = False,
                   extra: Callable[[], Any] | None = None) -> Model | Witness:
    """A shrunk model of a position valid under both rulesets where ``differ`` holds, or the witness that says
    there is none (proved) or that the solver gave up. ``extra`` adds to the size to shrink.

    Both are functions that build their terms here, in a fixed order (validity, difference, first answer,
    extra size, size): z3's search follows the order in which terms are created, and a witness should not
    change with how its question is put together. The size shrunk is :meth:`Relations.size`: gems away from
    home, gems banked or carried, canoes on the river, cards out of hand."""
    question = Question(timeout)
    question.add(*_both_well_formed(pre, rel_a, rel_b, phase, all_acted))
    question.add(*differ())
    result = question.ask()
    if result is Sat.UNSAT:
        return Witness(switch, None, None, kind, Verdict.REFUTED,
                       summary="no position valid under both is affected: proved for all positions")
    if result is not Sat.SAT:
        return Witness(switch, None, None, kind, Verdict.UNKNOWN, summary="the solver gave no answer in time")
    model = question.model()
    if extra is None:
        return question.shrink(model, rel_a.size(pre))
    more = extra()
    return question.shrink(model, rel_a.size(pre) + more)


def _both_well_formed(pre: SymPosition, rel_a: Relations, rel_b: Relations, phase: Phase,
                      all_acted: bool = False) -> list[Any]:
    """A position valid under both rulesets (only such a position can tell them apart)."""
    return [c for relations in (rel_a, rel_b) for _, c in relations.well_formed(pre, phase, all_acted)]


def _broken(model: Model, constraints: list[Constraint]) -> list[str]:
    """The rule groups a model's choice breaks (the structural DOMAIN constraints are not rules)."""
    return sorted({r.split(":")[0] for r in Relations.broken(model, constraints)}, key=_rule_order)


def _rule_order(rule: str) -> tuple[str, int]:
    head, _, number = rule.rpartition("-")
    return (head, int(number)) if number.isdigit() else (rule, 0)


def _key(pos: Position) -> Any:
    """A resulting position, whatever the ruleset and however canoes are ordered."""
    return (pos.caves, pos.weather, pos.forks,
            tuple((tuple(sorted((c.place, c.gems) for c in p.canoes)), p.bank) for p in pos.players))


def _turn(board: Board, a: Ruleset, b: Ruleset, switch: str, players: int, timeout: float | None) -> Witness:
    rel_a, rel_b = Relations(board, a, players), Relations(board, b, players)
    pre = rel_a.position("diff")
    # One choice for both relations, with room for the larger capacity's steals.
    turn_a = rel_a.turn(pre, 0, "diff", capacity=max(a.capacity, b.capacity))
    turn_b = rel_b.turn(pre, 0, choice=turn_a.choice)
    legal_a, legal_b = turn_a.holds(), turn_b.holds()
    # Small and plain: a low card, the second canoe idle when it can be. (A closure, not the bound method: closing over
    # turn_a changes when this frame releases its terms, and so the models of later questions in this z3 context.)
    model = _witness_model(pre, rel_a, rel_b, Phase.TURNS, lambda: [legal_a != legal_b], switch, SwitchPhase.TURN,
                           timeout, extra=lambda: turn_a.size())
    if isinstance(model, Witness):
        return model
    card, turn = rel_a.decode_turn(model, turn_a)
    base = _base(board, a, players).replace(phase=Phase.TURNS)
    pos = rel_a.decode_position(model, pre, base)
    pos = pos.replace(players=tuple(Player(p.name, p.canoes, p.hand, p.bank, card if i == 0 else None)
                                    for i, p in enumerate(pos.players)))
    legal_in = "a" if value(model, legal_a) else "b"
    broken = _broken(model, (turn_b if legal_in == "a" else turn_a).constraints)
    w = Witness(switch, None, None, SwitchPhase.TURN, Verdict.CONFIRMED, broken, pos, 0, card, turn, legal_in)
    here, there = (a, b) if legal_in == "a" else (b, a)
    mover = pos.players[0].name
    w.summary = (f"{mover} plays {card.label}: {turn} is legal when {switch} = {_value(here, switch)}, "
                 f"illegal when {switch} = {_value(there, switch)}")
    w.engine, w.confirmed = _confirm_turn(pos, card, turn, here, there)
    w.detail = _problems(pos, a, b)
    return w


def _confirm_turn(pos: Position, card: Card, turn: Turn, here: Ruleset, there: Ruleset) -> tuple[str, bool]:
    """Replay: the turn's result under ``here`` is none of the engine's legal outcomes under ``there``."""
    try:
        result = apply_turn(pos.replace(ruleset=here), 0, turn, card).position
    except NiagaraError as err:
        return f"the engine refuses the turn where the encoding allows it: {err}", False
    try:
        outcomes = {_key(o.position) for o in legal_turns(pos.replace(ruleset=there), 0, card)}
    except NiagaraError as err:
        return f"the engine cannot list the other ruleset's turns: {err}", False
    if _key(result) in outcomes:
        return "the engine reaches the same result by another turn under the other ruleset", False
    count = len(outcomes)
    return (f"the engine agrees: legal with one ruleset; with the other it is none of the {count} legal "
            f"outcome{'s' if count != 1 else ''}"), True


def _rescue(board: Board, a: Ruleset, b: Ruleset, switch: str, players: int, timeout: float | None) -> Witness:
    rel_a, rel_b = Relations(board, a, players), Relations(board, b, players)
    pre = rel_a.position("diff")
    res_a = rel_a.rescue(pre, "diff")
    res_b = rel_b.rescue(pre, choice=res_a.choice)
    legal_a, legal_b = res_a.holds(), res_b.holds()
    model = _witness_model(pre, rel_a, rel_b, Phase.CARDS, lambda: [legal_a != legal_b], switch, SwitchPhase.RESCUE,
                           timeout)
    if isinstance(model, Witness):
        return model
    pos = rel_a.decode_position(model, pre, _base(board, a, players))
    pos = pos.replace(players=tuple(Player(p.name, p.canoes, p.hand, p.bank, None) for p in pos.players))
    legal_in = "a" if value(model, legal_a) else "b"
    broken = _broken(model, (res_b if legal_in == "a" else res_a).constraints)
    here, there = (a, b) if legal_in == "a" else (b, a)
    decisions = rel_a.decode_rescues(model, res_a)
    w = Witness(switch, None, None, SwitchPhase.RESCUE, Verdict.CONFIRMED, broken, pos, None, None, None, legal_in)
    # The engine: which player's decision is an option under one ruleset and not the other.
    confirmed, shown = False, []
    for i, rescue in decisions.items():
        mine = rescue_options(pos.replace(ruleset=here), i)
        theirs = rescue_options(pos.replace(ruleset=there), i)
        if rescue in mine and rescue not in theirs:
            confirmed = True
            w.player = i
            shown.append(f"{pos.players[i].name} {_rescue_text(rescue)}")
            w.detail.append(f"options of {pos.players[i].name} when {switch} = {_value(here, switch)}: "
                            + ", ".join(_rescue_text(r) for r in mine))
            w.detail.append(f"options of {pos.players[i].name} when {switch} = {_value(there, switch)}: "
                            + ", ".join(_rescue_text(r) for r in theirs))
    choice_text = ", ".join(shown) or ", ".join(f"{pos.players[i].name} {_rescue_text(r)}"
                                                for i, r in decisions.items())
    w.summary = (f"phase I rescue {choice_text} is legal when {switch} = {_value(here, switch)}, "
                 f"illegal when {switch} = {_value(there, switch)}")
    w.engine = ("the engine agrees: the decision is an option under one ruleset only" if confirmed else
                "the engine does not confirm: the decision has the same standing under both rulesets")
    w.confirmed = confirmed
    w.detail += _problems(pos, a, b)
    return w


def _rescue_text(rescue: Rescue) -> str:
    if not rescue.payments:
        return "rescues nothing"
    return "rescues " + " and ".join("one canoe free" if c is None else f"one canoe for {c.label}"
                                     for c in rescue.payments)


def _flow(board: Board, a: Ruleset, b: Ruleset, switch: str, players: int, timeout: float | None) -> Witness:
    rel_a, rel_b = Relations(board, a, players), Relations(board, b, players)
    pre = rel_a.position("diff")
    # One set of branch choices for both relations, read by the one whose forks are free.
    shared = rel_a.flow_choice("diff.flow") if rel_a.free_forks or rel_b.free_forks else None
    flow_a = rel_a.flow(pre, choice=shared)
    flow_b = rel_b.flow(pre, choice=shared)
    def differ() -> list[Any]:
        # The same branch choices, and some canoe's place or fork marker differs.
        return [flow_a.holds(), flow_b.holds(),
                Relations.differ([*_places(flow_a.post), *_markers(flow_a.post)],
                                 [*_places(flow_b.post), *_markers(flow_b.post)])]
    model = _witness_model(pre, rel_a, rel_b, Phase.TURNS, differ, switch, SwitchPhase.FLOW, timeout, all_acted=True)
    if isinstance(model, Witness):
        return model
    base = _base(board, a, players).replace(phase=Phase.TURNS, acted=tuple(range(players)))
    pos = rel_a.decode_position(model, pre, base)
    w = Witness(switch, None, None, SwitchPhase.FLOW, Verdict.CONFIRMED, [], pos)
    outcomes = {}
    for side, rules in (("a", a), ("b", b)):
        here = pos.replace(ruleset=rules)
        steps = flow_value(here)
        outcomes[side] = (rules, steps, {_key(p): (choices, p) for choices, p in flow_outcomes(here, steps)})
    (ra, ka, oa), (rb, kb, ob) = outcomes["a"], outcomes["b"]
    only_a = [v for k, v in oa.items() if k not in ob]
    only_b = [v for k, v in ob.items() if k not in oa]
    for rules, steps, reached in (outcomes["a"], outcomes["b"]):
        w.detail.append(f"when {switch} = {_value(rules, switch)}: the river flows {steps} step"
                        f"{'s' if steps != 1 else ''}, {len(reached)} outcome{'s' if len(reached) != 1 else ''}")
    for side, only in (("a", only_a), ("b", only_b)):
        rules = a if side == "a" else b
        for choices, after in only[:2]:
            how = f" (branches {choices_text(choices, pos)})" if choices else ""
            w.detail.append(f"only when {switch} = {_value(rules, switch)}{how}: {_places_text(after)}")
    w.confirmed = bool(only_a or only_b)
    w.engine = ("the engine agrees: the flow's outcomes differ" if w.confirmed else
                "the engine does not confirm: the flow's outcomes are the same under both rulesets")
    w.summary = (f"the flow from this position ({ka} step{'s' if ka != 1 else ''} when {switch} = "
                 f"{_value(ra, switch)}, {kb} when {_value(rb, switch)}) ends differently")
    w.detail += _problems(pos, a, b)
    return w


def _places(pos: SymPosition) -> list[Any]:
    return [x for row in pos.place for x in row]


def _markers(pos: SymPosition) -> list[Any]:
    return list(pos.marker.values())


def _places_text(pos: Position) -> str:
    canoes = "; ".join(f"{p.name} " + ", ".join(c.place for c in p.canoes) for p in pos.players)
    forks = ", ".join(f"fork {f} next {b}" for f, b in pos.forks)
    return canoes + (f"; {forks}" if forks else "")


def _end(board: Board, a: Ruleset, b: Ruleset, switch: str, players: int, timeout: float | None) -> Witness:
    rel_a, rel_b = Relations(board, a, players), Relations(board, b, players)
    pre = rel_a.position("diff")
    won_a, won_b = rel_a.end(pre), rel_b.end(pre)
    model = _witness_model(pre, rel_a, rel_b, Phase.CARDS, lambda: [Relations.differ(won_a, won_b)],
                           switch, SwitchPhase.END, timeout)
    if isinstance(model, Witness):
        return model
    pos = rel_a.decode_position(model, pre, _base(board, a, players))
    pos = pos.replace(players=tuple(Player(p.name, p.canoes, p.hand, p.bank, None) for p in pos.players))
    w = Witness(switch, None, None, SwitchPhase.END, Verdict.CONFIRMED, [], pos)
    names = []
    for rules in (a, b):
        won = winners(pos.replace(ruleset=rules))
        names.append(won)
        who = ", ".join(pos.players[i].name for i in won) or "nobody"
        plural = "s" if len(won) > 1 else ""
        w.detail.append(f"when {switch} = {_value(rules, switch)}: the game ends, winner{plural} {who}")
    for p in pos.players:
        w.detail.append(f"{p.name} banked {', '.join(f'{n} {c.label}' for c, n in p.bank.items() if n) or 'nothing'}")
    w.confirmed = names[0] != names[1]
    w.engine = ("the engine agrees: the winners differ" if w.confirmed else
                "the engine does not confirm: the same winners under both rulesets")
    w.summary = "the game ends here and the winners differ"
    w.detail += _problems(pos, a, b)
    return w


def _setup(board: Board, a: Ruleset, b: Ruleset, switch: str, players: int, timeout: float | None) -> Witness:
    if switch == "x_sixth_player":
        counts = [f"{r.player_counts()[0]} to {r.player_counts()[-1]}" for r in (a, b)]
        return Witness(switch, None, None, SwitchPhase.SETUP, Verdict.CONFIRMED,
                       summary=(f"{counts[0]} against {counts[1]} players: a game of 2 or of 6 players is valid under "
                                "one ruleset only; with 3 to 5 players the switch changes nothing else"),
                       confirmed=True, engine="no replay needed: the counts of players differ (X-SIX-1)")
    gems = [json.dumps(as_json(r.gems_per_colour)) for r in (a, b)]
    return Witness(switch, None, None, SwitchPhase.SETUP, Verdict.CONFIRMED,
                   summary=(f"{gems[0]} against {gems[1]} gems of each colour: no position is "
                            "valid under both, so every position and puzzle of one ruleset is invalid under the other"),
                   confirmed=True, engine="no replay needed: the gem totals differ (R-COMP-3)")


def _knowledge(board: Board, a: Ruleset, b: Ruleset, switch: str, players: int,
               timeout: float | None) -> Witness:
    """A switch that changes no legal move, only what a player knows when choosing (``reveal``, R-TURN-1): no
    witness position exists; the solver's answers are where it shows."""
    return Witness(switch, None, None, SwitchPhase.KNOWLEDGE, Verdict.REFUTED,
                   summary="no position: the switch changes no legal move, only what a player knows when acting "
                           "(when the cards are revealed); the solver's answers depend on it",
                   confirmed=True, engine="no replay needed: the engine's turns, flow and rounds do not read it")


def _problems(pos: Position, a: Ruleset, b: Ruleset) -> list[str]:
    """A witness must be a valid position under both rulesets; say so loudly if not."""
    out = []
    for rules in (a, b):
        for problem in position_problems(pos.replace(ruleset=rules)):
            out.append(f"INVALID under {rules.describe()}: {problem}")
    return out


# -- as a job ----------------------------------------------------------------------------------------------

def witness_job(a: Any, b: Any, switch: str, board: Any, players: int, timeout: float) -> dict[str, Any]:
    """A position where ``switch`` (its value under ruleset ``a`` against ``b``) changes the outcome, or a proof
    that there is none."""
    fresh_context()
    start = time.perf_counter()
    found = switch_witness(Board.from_json(board), Ruleset.from_json(a), Ruleset.from_json(b), switch, players,
                           timeout)
    return {"kind": "witness", "switch": switch, "witness": found.to_json(), "seconds": time.perf_counter() - start}


def witness_task(a: Any, b: Any, switch: str, board: Any, players: int, timeout: float) -> Task:
    """The job of finding one switch's witness (rulesets and board as JSON)."""
    return Task(witness_job, (a, b, switch, board, players, timeout))


def witness_from_json(obj: dict[str, Any]) -> Witness:
    """A witness back from the JSON a task returned (positions are parsed again, so they can be drawn)."""
    pos = position_from_json(obj["position"]) if "position" in obj else None
    player = pos.index(obj["player"]) if pos is not None and "player" in obj else None
    phase = None if obj["phase"] == MODULE_PHASE else SwitchPhase(obj["phase"])
    return Witness(obj["switch"], obj["a"], obj["b"], phase, WITNESS.parse(obj["verdict"]), list(obj["rules"]),
                   pos, player, Card.parse(obj["card"]) if "card" in obj else None,
                   Turn.parse(obj["turn"]) if "turn" in obj else None, obj.get("legal_in", ""), obj["summary"],
                   list(obj["detail"]), obj.get("engine", ""), bool(obj.get("confirmed", False)), obj["seconds"])
