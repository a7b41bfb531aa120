"""``niagara-solve crosscheck``: the engine and the encoding must agree, case by case.

For a position, the engine's distinct outcomes and the encoding's models (enumerated, blocked on the
canonical result) must be the same sets: for the turns of a player with a card, for the flow at every number
of steps, for phase I's rescues, for the end check, and for whole rounds given the cards. A disagreement is
shrunk to a small position and reported with the outcomes only one side produced.

Positions come from goals the solver is asked to meet (a position where a given rule clause matters: a steal
after an unload, both canoes banking, an odd flow with canoes in both branches, a rescue with an empty bank,
...), from seeded random playouts, from the bundled puzzles, and, in the tests, from Hypothesis strategies.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import z3

from niagara_solver.model.board import Board
from niagara_solver.encoding.core import Encoding, Mutant
from niagara_solver.encoding.end import encode_end
from niagara_solver.encoding.enumerate import Enumerator
from niagara_solver.encoding.flow import RescueChoice, encode_flow, encode_rescue
from niagara_solver.encoding.solver import fresh_context, make_solver
from niagara_solver.encoding.solver import shrink as shrink_model
from niagara_solver.encoding.state import NAMES, NCOL, SymPosition, decode, value, well_formed
from niagara_solver.encoding.turn import TurnChoice, encode_turn
from niagara_solver.engine.flow import flow_outcomes, flow_value
from niagara_solver.model.notation import Load, Move, Steal, Turn, Unload
from niagara_solver.engine.playout import random_playout
from niagara_solver.engine.rescue import apply_rescue, begin_turns, must_rescue, rescue_options
from niagara_solver.engine.round import winners
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.errors import NiagaraError
from niagara_solver.model.atoms import COLOURS, FULL_HAND, PORT, Card, Colour, Gems, Phase
from niagara_solver.model.invariants import position_problems
from niagara_solver.model.position import Canoe, Player, Position
from niagara_solver.model.ruleset import Ruleset

FLOW_STEPS = range(0, 9)
#: How many disagreements are shrunk (each takes many more comparisons); later ones are reported as found.
SHRINK_FIRST = 3


@dataclass
class Case:
    """One comparison: the engine's outcomes against the encoding's (outcome -> a label, e.g. a turn)."""

    kind: str
    position: Position
    player: int | None = None
    card: Card | None = None
    steps: int | None = None
    cards: dict[int, Card] | None = None
    engine: dict[Any, str] = field(default_factory=dict)
    encoding: dict[Any, str] = field(default_factory=dict)
    rules: set[str] = field(default_factory=set)

    @property
    def agrees(self) -> bool:
        return set(self.engine) == set(self.encoding)

    def describe(self) -> str:
        names = [p.name for p in self.position.players]
        if self.kind == "turn" and self.player is not None and self.card is not None:
            return f"the turns of {names[self.player]} with {self.card.label}"
        if self.kind == "flow":
            return f"the flow of {self.steps} step(s)"
        if self.kind == "round" and self.cards is not None:
            return "a round with cards " + ", ".join(f"{names[p]} {c.label}" for p, c in sorted(self.cards.items()))
        return {"rescue": "phase I rescues", "end": "the end check"}.get(self.kind, self.kind)


@dataclass
class Mismatch:
    """A disagreement, on a shrunk position."""

    case: Case
    source: str

    def to_json(self) -> dict[str, Any]:
        from niagara_solver.model.format import position_to_json

        def outcome(x: Any, label: str) -> Any:
            if isinstance(x, Position):
                return {"label": label, "position": position_to_json(x)}
            return {"label": label, "value": list(x) if isinstance(x, tuple) else x}
        case = self.case
        out: dict[str, Any] = {"kind": case.kind, "what": case.describe(), "source": self.source,
                               "position": position_to_json(case.position),
                               "engine_only": [outcome(x, case.engine[x]) for x in case.engine
                                               if x not in case.encoding],
                               "encoding_only": [outcome(x, case.encoding[x]) for x in case.encoding
                                                 if x not in case.engine]}
        if case.player is not None:
            out["player"] = case.position.players[case.player].name
        if case.card is not None:
            out["card"] = case.card.to_json()
        if case.steps is not None:
            out["steps"] = case.steps
        return out


@dataclass
class Report:
    """What was compared, how often each rule was exercised, and every disagreement."""

    positions: int = 0
    sources: Counter[str] = field(default_factory=Counter)
    cases: Counter[str] = field(default_factory=Counter)
    outcomes: int = 0
    coverage: Counter[str] = field(default_factory=Counter)
    goals: dict[str, str] = field(default_factory=dict)
    mismatches: list[Mismatch] = field(default_factory=list)
    seconds: float = 0.0
    skipped_rounds: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"positions": self.positions, "sources": dict(self.sources), "cases": dict(self.cases),
                "outcomes": self.outcomes, "coverage": dict(sorted(self.coverage.items())), "goals": self.goals,
                "mismatches": [m.to_json() for m in self.mismatches], "seconds": round(self.seconds, 3),
                "skipped_rounds": self.skipped_rounds}


# -- which rules a case exercises -----------------------------------------------------------------------

#: A gem stolen earlier in this phase and still in the thief's canoe: (thief's seat, disc, colour).
StolenMark = tuple[int, str, Colour]


def steals(pos: Position, player: int, turn: Turn) -> list[tuple[int, StolenMark]]:
    """Every steal of ``player``'s turn as (victim's seat, the gem's mark once stolen): the thief takes the gem
    on the disc where its movement ended (R-STEAL-1), and stays there until the flow (R-STEAL-3)."""
    seats = {p.name: i for i, p in enumerate(pos.players)}
    found = []
    for action in turn.actions:
        place = action.canoe.place
        for step in action.steps:
            if isinstance(step, Move):
                place = step.dest
            elif isinstance(step, Steal):
                found.append((seats[step.victim], (player, place, step.colour)))
    return found


def restolen(pos: Position, player: int, turn: Turn, stolen: frozenset[StolenMark]) -> bool:
    """Whether the turn takes a gem that was stolen earlier in this phase (R-STEAL-4)."""
    return any((victim, mark[1], mark[2]) in stolen for victim, mark in steals(pos, player, turn))


def turn_rules(pos: Position, turn: Turn, player: int | None = None,
               stolen: frozenset[StolenMark] = frozenset()) -> set[str]:
    """The rules a turn exercises, read from its notation and the position it starts from (and, for R-STEAL-4,
    the gems stolen earlier in this phase)."""
    if turn.is_cloud:
        return {"R-TURN-2", "R-WEATHER-1"}
    rules = {"R-TURN-3"} if not turn.actions else {"R-TURN-3", "R-MOVE-1", "R-MOVE-2", "R-MOVE-3"}
    if len(turn.actions) == 2:
        rules.add("R-TURN-4")
    board = pos.board
    for action in turn.actions:
        loads = {s.colour for s in action.steps if isinstance(s, Load)}
        unloads = {s.colour for s in action.steps if isinstance(s, Unload)}
        if loads or unloads:
            rules.update({"R-GEM-1", "R-GEM-2"})
        if unloads:
            rules.add("R-GEM-3")
        if loads and unloads:
            rules.add("R-GEM-4")
        if action.canoe.place == PORT:
            rules.add("R-MOVE-6")
        for step in action.steps:
            if isinstance(step, Move):
                if step.dest == PORT:
                    rules.update({"R-MOVE-5", "R-GEM-5"})
                elif step.downstream and any(f in board.above(step.dest) for f in board.forks) and (
                        action.canoe.place == PORT or not any(f in board.above(action.canoe.place)
                                                              for f in board.forks)):
                    rules.add("R-MOVE-4")
            if isinstance(step, Steal):
                rules.update({"R-STEAL-1", "R-STEAL-2", "R-STEAL-3"})
                if unloads:
                    rules.add("R-STEAL-5")
    if stolen and player is not None and restolen(pos, player, turn, stolen):
        rules.add("R-STEAL-4")
    return rules


# -- the checker ----------------------------------------------------------------------------------------

class CrossChecker:
    """Compares the engine and the encoding (or a mutant of it) for one board and ruleset."""

    def __init__(self, board: Board, rules: Ruleset, mutant: Mutant | None = None, timeout: float | None = 60) -> None:
        self.board = board
        self.rules = rules
        self.mutant = mutant
        self.timeout = timeout
        self._enumerators: dict[int, Enumerator] = {}

    def enumerator(self, players: int) -> Enumerator:
        if players not in self._enumerators:
            self._enumerators[players] = Enumerator(Encoding(self.board, self.rules, players, self.mutant),
                                                    self.timeout)
        return self._enumerators[players]

    def turn(self, pos: Position, player: int, card: Card, stolen: frozenset[StolenMark] = frozenset()) -> Case:
        """``stolen``: the gems stolen earlier in this phase (they only change which rules count as exercised)."""
        case = Case("turn", pos, player=player, card=card)
        case.rules = {"R-CARD-2"} | ({"R-CARD-1"} if pos.players[player].card is not None else set())
        turns = {}
        for outcome in legal_turns(pos, player, card):
            case.engine[outcome.position] = str(outcome.turn)
            turns[outcome.position] = outcome.turn
            case.rules |= turn_rules(pos, outcome.turn, player, stolen)
        case.encoding = self.enumerator(len(pos.players)).check_turns(pos, player, card, turns)
        return case

    def flow(self, pos: Position, steps: int | None) -> Case:
        """The flow of ``steps`` single steps, or with None the flow the round's cards and weather give."""
        case = Case("flow", pos, steps=steps)
        k = flow_value(pos) if steps is None else steps
        for choices, after in flow_outcomes(pos, k):
            case.engine[after] = ",".join("/".join(f"{f}={lab}" for f, lab in c) for c in choices)
        case.encoding = {p: "" for p in self.enumerator(len(pos.players)).flows(pos, steps)}
        case.rules = {"R-FLOW-3", "R-FLOW-5"}
        if steps is None:
            case.rules.add("R-FLOW-1")
            paddles = [int(p.card) for p in pos.players if p.card is not None and p.card.is_paddle]
            if (min(paddles) if paddles else 0) + pos.weather < pos.ruleset.min_flow:
                case.rules.add("R-FLOW-2")
        if steps and pos.board.forks:
            case.rules.add("R-FLOW-4")
        fallen = sum(1 for _, c in pos.canoes() if c.fallen)
        if any(sum(1 for _, c in after.canoes() if c.fallen) > fallen for after in case.engine):
            case.rules.add("R-FLOW-6")
        return case

    def rescue(self, pos: Position) -> Case:
        case = Case("rescue", pos)
        results: dict[Position, str] = {pos: ""}
        for i in pos.turn_order():
            grown: dict[Position, str] = {}
            for state, label in results.items():
                for option in rescue_options(state, i):
                    grown.setdefault(apply_rescue(state, i, option),
                                     (label + "; " if label else "") + f"{pos.players[i].name} {option}")
            results = grown
        case.engine = results
        case.encoding = {p: "" for p in self.enumerator(len(pos.players)).rescues(pos)}
        if any(c.fallen for _, c in pos.canoes()):
            case.rules.add("R-RESCUE-1")
        if any(must_rescue(p) for p in pos.players):
            case.rules.add("R-RESCUE-3" if pos.ruleset.rescue_when_none.value == "free" else "R-RESCUE-2")
        return case

    def end(self, pos: Position) -> Case:
        case = Case("end", pos)
        names = [p.name for p in pos.players]
        engine = tuple(winners(pos))
        encoding = self.enumerator(len(pos.players)).winners(pos)
        case.engine = {engine: "winners: " + (", ".join(names[i] for i in engine) or "none")}
        case.encoding = {encoding: "winners: " + (", ".join(names[i] for i in encoding) or "none")}
        case.rules = {"R-END-1", "R-END-2"} | ({"R-END-3"} if len(engine) else set())
        return case

    def round(self, pos: Position, cards: dict[int, Card], limit: int = 12) -> Case | None:
        """Every start of the next round from a start-of-round ``pos`` with the cards given; None when the engine
        finds more than ``limit`` intermediate positions (too many to enumerate in the encoding)."""
        case = Case("round", pos, cards=cards)
        rescued = {pos}
        for i in pos.turn_order():
            rescued = {apply_rescue(s, i, o) for s in rescued for o in rescue_options(s, i)}
        starts: dict[Position, str] = {}
        case.rules = {"R-ROUND-1", "R-TURN-1", "R-BUOY-1", "R-CARD-2", "R-FLOW-1"}
        for state in rescued:
            # Each position of phase II with the gems stolen on the way to it (for R-STEAL-4's coverage).
            frontier: set[tuple[Position, frozenset[StolenMark]]] = {(begin_turns(state, None, cards), frozenset())}
            for p in pos.turn_order():
                grown = set()
                for s, stolen in frontier:
                    for o in legal_turns(s, p):
                        if stolen and restolen(s, p, o.turn, stolen):
                            case.rules.add("R-STEAL-4")
                        grown.add((o.position, stolen | {mark for _, mark in steals(s, p, o.turn)}))
                frontier = grown
                if len({s for s, _ in frontier}) > limit:
                    return None
            for s in {s for s, _ in frontier}:
                for _, after in flow_outcomes(s, flow_value(s)):
                    starts[_next_round(after, s)] = ""
        case.engine = starts
        case.encoding = {p: "" for p in self.enumerator(len(pos.players)).rounds(pos, cards, 20 * limit)}
        return case


def _next_round(after_flow: Position, before_flow: Position) -> Position:
    """Phase IV after a flow result: the lifebuoy passes, cards leave the table, empty hands refill."""
    players = tuple(Player(p.name, p.canoes, p.hand or FULL_HAND, p.bank, None) for p in after_flow.players)
    return after_flow.replace(players=players, lifebuoy=(before_flow.lifebuoy + 1) % len(players),
                              round=before_flow.round + 1, phase=Phase.CARDS, acted=())


# -- positions where a rule clause matters (solver-directed) ------------------------------------------------

@dataclass(frozen=True)
class Goal:
    """A position the solver is asked for: a phase, a condition on its choices, and the rules it exercises."""

    name: str
    phase: str
    rules: tuple[str, ...]
    condition: Callable[..., Any]


def _slots(ctx: dict[str, Any]) -> list[Any]:
    return ctx["transition"].observations


def _taking(ctx: dict[str, Any], slot: int) -> Any:
    choice = ctx["choice"].slots[slot]
    return z3.Or([choice.taking(j) for j in range(len(choice.steals))])


def _unloads(s: Any) -> Any:
    return z3.Sum([op.unloads(c) for op in s.ops for c in range(NCOL)])


def _loads(s: Any) -> Any:
    return z3.Sum([op.loads(c) for op in s.ops for c in range(NCOL)])


GOALS: tuple[Goal, ...] = (
    Goal("steal", "turn", ("R-STEAL-1", "R-STEAL-2"), lambda c: z3.Or(_taking(c, 0), _taking(c, 1))),
    Goal("steal-after-unload", "turn", ("R-STEAL-5",),
         lambda c: z3.Or([z3.And(_taking(c, i), _unloads(s) > 0) for i, s in enumerate(_slots(c))])),
    Goal("both-canoes-bank", "turn", ("R-MOVE-5", "R-GEM-5"),
         lambda c: z3.And([z3.And(s.home, c["pre"].load(0, s.who) > 0) for s in _slots(c)])),
    Goal("port-entry-with-spare-points", "turn", ("R-MOVE-5",),
         lambda c: z3.Or([z3.And(s.home, c["enc"].tables.depth_of(s.start) + 2 * z3.Sum(
             [x for op in s.pre_ops for x in op.cells()]) < c["choice"].card) for s in _slots(c)])),
    Goal("load-from-a-mixed-cave", "turn", ("R-GEM-3", "R-GEM-1"),
         lambda c: z3.Or([op.load[cc][col] == 1 for s in _slots(c) for op in s.ops
                          for cc in range(NCOL) for col in range(NCOL) if cc != col])),
    Goal("unload-one-colour-load-another", "turn", ("R-GEM-4",),
         lambda c: z3.Or([z3.And(_loads(s) > 0, _unloads(s) > 0) for s in _slots(c)])),
    Goal("last-gem-of-a-cave", "turn", ("R-TURN-4", "R-GEM-1"),
         lambda c: z3.And(_slots(c)[0].on, _slots(c)[1].on, z3.Or(
             [z3.And(op.load[cc][col] == 1, c["pre"].cave[cc][col] == 1) for s in _slots(c) for op in s.ops
              for cc in range(NCOL) for col in range(NCOL)]))),
    Goal("fork-choice", "turn", ("R-MOVE-4",),
         lambda c: z3.Or([z3.And(s.move == 1, c["enc"].tables.depth_of(s.end) > _fork_depth(c),
                                 c["enc"].tables.depth_of(s.start) <= _fork_depth(c)) for s in _slots(c)])),
    Goal("cloud-in-a-storm", "turn", ("R-WEATHER-1", "R-TURN-2"),
         lambda c: z3.And(c["choice"].card == 0, c["pre"].weather == 2)),
    Goal("port-canoe-stays", "turn", ("R-TURN-3",),
         lambda c: z3.And(c["pre"].place[0][0] == 0, c["enc"].tables.is_disc(c["pre"].place[0][1]),
                          z3.Not(_slots(c)[0].on), c["choice"].card != 0)),
    Goal("odd-flow-with-canoes-in-both-branches", "flow", ("R-FLOW-4", "R-FLOW-3"),
         lambda c: z3.And(c["transition"].extra["k"] % 2 == 1, *_both_branches(c))),
    Goal("fall-with-a-gem", "flow", ("R-FLOW-6",),
         lambda c: z3.Or([z3.And(c["transition"].post.place[p][k] == c["enc"].tables.FALLEN,
                                 c["pre"].place[p][k] != c["enc"].tables.FALLEN, c["pre"].load(p, k) > 0)
                          for p in range(c["pre"].players) for k in range(2)])),
    Goal("negative-flow-sum", "flow", ("R-FLOW-2",), lambda c: c["transition"].extra["sum"] < 0),
    Goal("two-players-reach-the-goal", "end", ("R-END-1", "R-END-3"), lambda c: z3.And(c["won"][0], c["won"][1])),
    Goal("rescue-with-an-empty-bank", "rescue", ("R-RESCUE-2",),
         lambda c: z3.And(c["pre"].place[0][0] == c["enc"].tables.FALLEN,
                          c["pre"].place[0][1] == c["enc"].tables.FALLEN, z3.Sum(c["pre"].bank[0]) == 0)),
    Goal("rescue-both-canoes", "rescue", ("R-RESCUE-1",),
         lambda c: z3.And(c["choice"].rescued[0][0], c["choice"].rescued[0][1])),
    Goal("steal-a-stolen-gem", "two-turns", ("R-STEAL-4",), lambda c: _steal_back(c)),
    Goal("rescue-with-none-in-play-and-gems", "rescue", ("R-RESCUE-2", "R-RESCUE-3"),
         lambda c: z3.And(c["pre"].place[0][0] == c["enc"].tables.FALLEN,
                          c["pre"].place[0][1] == c["enc"].tables.FALLEN, z3.Sum(c["pre"].bank[0]) > 0)),
)


def _steal_back(ctx: dict[str, Any]) -> Any:
    """Player 0, carrying nothing and loading nothing, steals; then player 1 steals: whatever player 1 takes
    from player 0 was stolen earlier in this phase. Low cards, one acting canoe for player 0 and empty banks
    keep the search short (about 2 s rather than 5) and the position's outcomes few."""
    pre, second = ctx["pre"], ctx["second"]
    return z3.And(pre.load(0, 0) == 0, pre.load(0, 1) == 0, z3.Sum([_loads(s) for s in _slots(ctx)]) == 0,
                  z3.Or(_taking(ctx, 0), _taking(ctx, 1)), z3.Or(_taking(second, 0), _taking(second, 1)),
                  ctx["choice"].card <= 3, second["choice"].card <= 3,
                  z3.Not(ctx["choice"].slots[1].on), *[g == 0 for row in pre.bank for g in row])


def _fork_depth(ctx: dict[str, Any]) -> int:
    t = ctx["enc"].tables
    return min((t.depth[f] for f in t.forks), default=t.max_depth)


def _both_branches(ctx: dict[str, Any]) -> list[Any]:
    t, pre = ctx["enc"].tables, ctx["pre"]
    if not t.forks:
        return [z3.BoolVal(False)]
    first = t.branch[t.forks[0]]
    return [z3.Or([pre.place[p][k] == b for p in range(pre.players) for k in range(2)]) for b in first[:2]]


def goal_positions(board: Board, rules: Ruleset, players: int = 2, timeout: float | None = 30,
                   names: list[str] | None = None) -> Iterator[tuple[Goal, Position | None, Card | None]]:
    """For each goal (or those named), a position meeting it (and, for a turn, the card), or None when no
    position can."""
    enc = Encoding(board, rules, players)
    base = Position.initial(list(NAMES[:players]), board, rules)
    for goal in GOALS:
        if names is not None and goal.name not in names:
            continue
        pre = SymPosition.fresh(f"goal.{goal.name}", players, enc.tables)
        choice: Any
        second: dict[str, Any] = {}
        if goal.phase in ("turn", "two-turns"):
            choice = TurnChoice.fresh(f"goal.{goal.name}", rules.capacity, players)
            transition = encode_turn(enc, pre, choice, 0)
            wf = well_formed(pre, enc.tables, rules, Phase.TURNS)
            start = base.replace(phase=Phase.TURNS)
            if goal.phase == "two-turns":  # player 1 acts next, from the position player 0's turn left
                then = TurnChoice.fresh(f"goal.{goal.name}.then", rules.capacity, players)
                second = {"choice": then, "transition": encode_turn(enc, transition.post, then, 1)}
        elif goal.phase == "flow":
            choice = None
            transition = encode_flow(enc, pre)
            wf = well_formed(pre, enc.tables, rules, Phase.TURNS, all_acted=True)
            start = base.replace(phase=Phase.TURNS, acted=tuple(range(players)))
        else:
            choice = RescueChoice.fresh(f"goal.{goal.name}", players)
            transition = encode_rescue(enc, pre, choice)
            wf = well_formed(pre, enc.tables, rules, Phase.CARDS)
            start = base
        solver = make_solver(timeout)
        solver.add(*[c for _, c in wf], *[c for _, c in transition.constraints])
        if second:
            solver.add(*[c for _, c in second["transition"].constraints])
        solver.add(goal.condition({"enc": enc, "pre": pre, "choice": choice, "transition": transition,
                                   "won": encode_end(enc, pre), "second": second}))
        if solver.check() != z3.sat:
            yield goal, None, None
            continue
        extra = []
        if goal.phase == "turn":  # a small card and an idle second canoe keep the turn's outcomes few
            extra = [choice.card, z3.If(z3.And(pre.place[0][1] != enc.tables.FALLEN, z3.Not(choice.slots[1].on)), 3, 0)]
        elif second:
            extra = [choice.card, second["choice"].card]
        model = _small(solver, pre, enc, solver.model(), extra)
        pos = decode(model, pre, enc.tables, rules, start)
        card = None
        if goal.phase in ("turn", "two-turns"):
            card = Card(value(model, choice.card))
            cards = {0: card, 1: Card(value(model, second["choice"].card))} if second else {0: card}
            pos = pos.replace(players=tuple(Player(p.name, p.canoes, p.hand, p.bank, cards.get(i))
                                            for i, p in enumerate(pos.players)))
        elif goal.phase != "flow":  # a start-of-round position: no card chosen yet
            pos = pos.replace(players=tuple(Player(p.name, p.canoes, p.hand, p.bank, None) for p in pos.players))
        yield goal, (pos if not position_problems(pos) else None), card


def _small(solver: z3.Solver, pre: SymPosition, enc: Encoding, model: z3.ModelRef,
           extra: list[Any]) -> z3.ModelRef:
    """A goal position with few gems away from home and few canoes on the river besides player 0's first,
    so that its outcomes stay few enough to enumerate (and the same every run: see ``shrink``)."""
    t = enc.tables
    size = (z3.Sum([g for row in pre.cargo for canoe in row for g in canoe]) + z3.Sum([g for r in pre.bank for g in r])
            + z3.Sum([pre.cave[cc][c] for cc in range(NCOL) for c in range(NCOL) if cc != c])
            + z3.Sum([z3.If(pre.place[p][k] != t.PORT, 1, 0) for p in range(1, pre.players) for k in range(2)])
            + z3.If(t.is_disc(pre.place[0][1]), 2, 0) + z3.Sum([0, *extra]))
    return shrink_model(solver, model, size)


# -- shrinking ------------------------------------------------------------------------------------------

def _home(caves: list[Gems], gems: tuple[Any, ...] | Gems) -> None:
    """Put gems back in the caves of their own colours."""
    colours = [c for c, n in gems.items() for _ in range(n)] if isinstance(gems, Gems) else list(gems)
    for colour in colours:
        caves[colour - 1] = caves[colour - 1].plus(colour)


def simpler(pos: Position, keep: int | None) -> Iterator[tuple[Position, int | None]]:
    """Positions a little simpler than ``pos`` (fewer players, canoes in the port, gems back home), with the
    new index of player ``keep``."""
    n = len(pos.players)
    if n > 2:
        for q in range(n):
            if q == keep:
                continue
            caves = list(pos.caves)
            for c in pos.players[q].canoes:
                _home(caves, c.gems)
            _home(caves, pos.players[q].bank)
            players = tuple(p for i, p in enumerate(pos.players) if i != q)
            remap = {i: i - (i > q) for i in range(n) if i != q}
            lifebuoy = remap.get(pos.lifebuoy, 0)
            yield (pos.replace(players=players, caves=tuple(caves), lifebuoy=lifebuoy,
                               acted=tuple(remap[a] for a in pos.acted if a in remap)),
                   remap[keep] if keep is not None else None)
    for q, player in enumerate(pos.players):
        for k, canoe in enumerate(player.canoes):
            if canoe.place != PORT and (q != keep or canoe.gems):
                caves = list(pos.caves)
                _home(caves, canoe.gems)
                target = Canoe(PORT) if q != keep else Canoe(canoe.place)
                canoes = tuple(target if i == k else c for i, c in enumerate(player.canoes))
                yield pos.with_player(q, Player(player.name, canoes, player.hand, player.bank, player.card)).replace(
                    caves=tuple(caves)), keep
        if player.bank.total:
            caves = list(pos.caves)
            _home(caves, player.bank)
            yield pos.with_player(q, Player(player.name, player.canoes, player.hand, Gems(), player.card)).replace(
                caves=tuple(caves)), keep
    for cc, cave in enumerate(pos.caves):
        for colour in COLOURS:
            if colour - 1 != cc and cave.get(colour):
                caves = list(pos.caves)
                caves[cc] = caves[cc].minus(colour)
                caves[colour - 1] = caves[colour - 1].plus(colour)
                yield pos.replace(caves=tuple(caves)), keep
    if pos.weather:
        yield pos.replace(weather=0), keep


def shrink(case: Case, recheck: Callable[[Position, int | None], Case | None], budget: float = 60) -> Case:
    """Greedily simplify a disagreeing case while it still disagrees (``recheck`` returns the new case, or None
    when the simpler position is invalid or agrees)."""
    deadline = time.perf_counter() + budget
    changed = True
    while changed and time.perf_counter() < deadline:
        changed = False
        for candidate, keep in simpler(case.position, case.player):
            if time.perf_counter() > deadline:
                break
            if position_problems(candidate):
                continue
            again = recheck(candidate, keep)
            if again is not None and not again.agrees:
                case = again
                changed = True
                break
    return case


# -- the run ----------------------------------------------------------------------------------------------

def playout_positions(board: Board, rules: Ruleset, count: int, seed: int) -> Iterator[tuple[str, Any]]:
    """Positions from seeded random games, 2 to 5 players: (source, round record)."""
    rng = random.Random(seed)
    made = 0
    game = 0
    while made < count:
        players = 2 + (seed + game) % 4
        start = Position.initial(list(NAMES[:players]), board, rules, lifebuoy=rng.randrange(players))
        for record in random_playout(start, seed * 1000 + game, rounds=rng.randint(1, 30),
                                     policy="greedy" if game % 2 else "uniform"):
            last = record
        game += 1
        yield f"playout {seed * 1000 + game - 1}, round {last.start.round}", last
        made += 1


def crosscheck(board: Board, rules: Ruleset, count: int = 10, seed: int = 0, mutant: Mutant | None = None,
               puzzles: list[Position] | None = None, goals: bool | list[str] = True, rounds: bool = True,
               timeout: float | None = 60, progress: Callable[[str], None] | None = None) -> Report:
    """Compare the engine and the encoding on goal positions, ``count`` playout positions and ``puzzles``.

    Runs in a fresh z3 context, so the goal positions (and so the report) are the same whatever the process
    asked z3 before (``fresh_context``)."""
    fresh_context()
    start = time.perf_counter()
    checker = CrossChecker(board, rules, mutant, timeout)
    report = Report()
    rng = random.Random(seed)

    def record(case: Case, source: str) -> None:
        report.cases[case.kind] += 1
        report.outcomes += len(set(case.engine) | set(case.encoding))
        for rule in case.rules:
            report.coverage[rule] += 1
        if not case.agrees:
            # Shrinking costs many more comparisons: the first few disagreements are shrunk, the rest shown as found.
            shrunk = _shrunk(checker, case) if len(report.mismatches) < SHRINK_FIRST else case
            report.mismatches.append(Mismatch(shrunk, source))

    def turns(pos: Position, source: str, only: tuple[int, Card] | None = None) -> None:
        if pos.phase is Phase.CARDS:
            pos = begin_turns(pos, {i: rescue_options(pos, i)[0] for i in range(len(pos.players))})
        if only is None:  # one player of the position, with their card (or a card of their hand)
            player = rng.choice([i for i in range(len(pos.players)) if i not in pos.acted])
            chosen = pos.players[player].card
            only = (player, chosen if chosen is not None else rng.choice(pos.players[player].hand))
        record(checker.turn(pos, *only), source)

    def note(text: str) -> None:
        if progress:
            progress(text)

    if goals:
        chosen = goals if isinstance(goals, list) else None
        for goal, pos, card in goal_positions(board, rules, timeout=timeout, names=chosen):
            if pos is None:
                report.goals[goal.name] = "unreachable under these rules"
                continue
            report.goals[goal.name] = "checked"
            report.positions += 1
            report.sources["goals"] += 1
            source = f"goal {goal.name}"
            note(source)
            if goal.phase == "turn" and card is not None:
                turns(pos, source, (0, card))
            elif goal.phase == "two-turns" and card is not None:
                turns(pos, source, (0, card))
                after = _after_a_steal(pos, card)
                if after is not None:  # player 1's turns, once player 0 has stolen a gem they can take back
                    mid, stolen = after
                    second_card = mid.players[1].card
                    assert second_card is not None
                    record(checker.turn(mid, 1, second_card, stolen), source)
            elif goal.phase == "flow":
                for steps in (None, *FLOW_STEPS):
                    record(checker.flow(pos, steps), source)
            else:  # a start-of-round position: rescues and the end check
                record(checker.rescue(pos), source)
                record(checker.end(pos), source)
    if rounds:
        # Whole rounds from the first round of small games: every canoe in the port keeps the outcomes few.
        for game in range(2):
            start_pos = Position.initial(list(NAMES[:2]), board, rules, lifebuoy=game)
            first = next(random_playout(start_pos, seed * 100 + game, rounds=1))
            cards = {i: p.card for i, p in enumerate(first.turns_start.players) if p.card is not None}
            try:
                case = checker.round(start_pos, cards)
            except TimeoutError:
                case = None
            if case is None:
                report.skipped_rounds += 1
            else:
                report.positions += 1
                report.sources["first rounds"] += 1
                record(case, f"the first round of game {seed * 100 + game}")
    for source, rec in playout_positions(board, rules, count, seed):
        report.positions += 1
        report.sources["playouts"] += 1
        note(source)
        record(checker.rescue(rec.start), source)
        record(checker.end(rec.start), source)
        turns(rec.turns_start, source)
        for steps in (None, *FLOW_STEPS):
            record(checker.flow(rec.before_flow, steps), source)
        if rounds and len(rec.start.players) == 2:
            cards = {i: p.card for i, p in enumerate(rec.turns_start.players) if p.card is not None}
            try:
                case = checker.round(rec.start, cards)
            except TimeoutError:
                case = None
            if case is None:
                report.skipped_rounds += 1
            else:
                record(case, source)
    for pos in puzzles or []:
        report.positions += 1
        report.sources["puzzles"] += 1
        note("puzzle")
        if pos.phase is Phase.CARDS:
            record(checker.rescue(pos), "puzzle")
            record(checker.end(pos), "puzzle")
        try:
            turns(pos, "puzzle")
        except NiagaraError:
            pass  # a puzzle whose phase I needs a choice of rescue: its turns are checked from the goals instead
    report.seconds = time.perf_counter() - start
    return report


def _after_a_steal(pos: Position, card: Card) -> tuple[Position, frozenset[StolenMark]] | None:
    """The first (by notation) turn of player 0 with ``card`` after which player 1 can take back a stolen gem:
    the position it leaves and the gems it stole."""
    then = pos.players[1].card
    if then is None:
        return None
    for outcome in sorted(legal_turns(pos, 0, card), key=lambda o: str(o.turn)):
        stolen = frozenset(mark for _, mark in steals(pos, 0, outcome.turn))
        if stolen and any(restolen(outcome.position, 1, o.turn, stolen)
                          for o in legal_turns(outcome.position, 1, then)):
            return outcome.position, stolen
    return None


def _shrunk(checker: CrossChecker, case: Case) -> Case:
    def recheck(pos: Position, keep: int | None) -> Case | None:
        try:
            if case.kind == "turn" and keep is not None and case.card is not None:
                if case.card not in pos.players[keep].hand:
                    return None
                return checker.turn(pos, keep, case.card)
            if case.kind == "flow" and case.steps is not None:
                return checker.flow(pos, case.steps)
            if case.kind == "rescue":
                return checker.rescue(pos)
            if case.kind == "end":
                return checker.end(pos)
        except (NiagaraError, TimeoutError):
            return None
        return None
    if case.kind == "round":
        return case
    return shrink(case, recheck)

