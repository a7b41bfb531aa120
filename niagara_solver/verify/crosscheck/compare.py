"""Comparing the engine and the encoding on one position: a turn, the flow, phase I's rescues, the end check or a
whole round, each a :class:`Case` of the engine's outcomes against the encoding's, with the rules it exercised.

The engine's side comes from :mod:`niagara_solver.engine`; the encoding's from its enumerator
(:class:`~niagara_solver.encoding.enumerate.IncrementalEnumerator`: each relation built and asserted once per player
count, the engine's outcomes confirmed and one question asked for any other; or, as the benchmark's reference, the
earlier :class:`~niagara_solver.encoding.enumerate.Enumerator`), over the relations of
:class:`~niagara_solver.encoding.relations.Relations`. The two readings meet only here, in their outcomes.

Each comparison has its own time limit for the encoding's side (``timeout``, within the command's time limit):
past it the case is UNKNOWN, neither an agreement nor a mismatch.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from niagara_solver.encoding.enumerate import Enumerator, IncrementalEnumerator, RoundPath
from niagara_solver.encoding.relations import Mutant, Relations
from niagara_solver.engine.flow import flow_outcomes, flow_value
from niagara_solver.engine.rescue import apply_rescue, begin_turns, must_rescue, rescue_options
from niagara_solver.engine.round import winners
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import FALLEN, PORT, Card, Colour, Moose, Phase
from niagara_solver.model.board import Board
from niagara_solver.model.limits import out_of_time, time_left
from niagara_solver.model.notation import CanoeRef, Load, Move, Push, Rescue, Steal, TakeMoose, Trade, Turn, Unload
from niagara_solver.model.position import Canoe, Player, Position, start_hand
from niagara_solver.model.ruleset import SWITCHES, GemTable, Ruleset


#: The rules only a whole round exercises (the order of the players' turns, the lifebuoy passing on, the phases in
#: order): without the round cases (``--no-rounds``) no case can.
ROUND_ONLY = ("R-ROUND-1", "R-TURN-1", "R-BUOY-1")


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
    #: Why the encoding's outcomes are not known (its time ran out): the case is UNKNOWN, and ``encoding`` empty.
    unknown: str | None = None

    @property
    def agrees(self) -> bool:
        """Both sides are known and have the same outcomes (an UNKNOWN case never agrees)."""
        return self.unknown is None and set(self.engine) == set(self.encoding)

    @property
    def disagrees(self) -> bool:
        """Both sides are known and their outcomes differ (an UNKNOWN case is no mismatch either)."""
        return self.unknown is None and set(self.engine) != set(self.encoding)

    def describe(self) -> str:
        names = [p.name for p in self.position.players]
        if self.kind == "turn" and self.player is not None and self.card is not None:
            return f"the turns of {names[self.player]} with {self.card.label}"
        if self.kind == "flow":
            return f"the flow of {self.steps} step(s)"
        if self.kind == "round" and self.cards is not None:
            return "a round with cards " + ", ".join(f"{names[p]} {c.label}" for p, c in sorted(self.cards.items()))
        return {"rescue": "phase I rescues", "end": "the end check"}.get(self.kind, self.kind)



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
    if turn.is_cloud:  # the weather moves; with the expansion the beaver may come, a canoe may take the moose
        return {"R-TURN-2", "R-WEATHER-1"} | (_x_turn_rules(pos, turn, player) if player is not None else set())
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
    if player is not None:
        rules |= _x_turn_rules(pos, turn, player)
    return rules


#: The expansion's cards: playing one exercises the ten-card hand (X-CARDS-1).
_X_CARDS = (Card.SEVEN, Card.LASSO, Card.ONE_TWO_THREE)


def position_rules(pos: Position) -> set[str]:
    """The expansion's rules every case from ``pos`` exercises: six players (X-SIX-1), a table of gems by player
    count (X-GEMS-1)."""
    rules = set()
    if len(pos.players) == 6:
        rules.add("X-SIX-1")
    if isinstance(pos.ruleset.gems_per_colour, GemTable):
        rules.add("X-GEMS-1")
    return rules


def _x_flow_rules(pos: Position, steps: int | None, outcomes: list[Position]) -> set[str]:
    """The expansion's rules a flow exercises (RULES.md section X): the cards counted (X-CARDS-2), moored canoes
    (X-CARDS-4) and those put back onto the whirlpool (X-WHIRL-4), the whirlpool's ride (X-WHIRL-1), the beaver over
    the falls (X-BEAVER-2), the moose returning (X-MOOSE-3), a double canoe falling (X-DOUBLE-4), Joe's ride and
    step (X-JOE-1, X-JOE-2)."""
    rules = set()
    if steps is None and any(p.card in _X_CARDS for p in pos.players):
        rules.add("X-CARDS-2")
    moored = [c for _, c in pos.canoes() if c.moored]
    if moored:
        rules.add("X-CARDS-4")
        # Put back onto the disc now at its board place: the whirlpool, if the flow left it there (X-WHIRL-4).
        if any(after.whirlpool is not None and c.place == after.whirlpool for c in moored for after in outcomes):
            rules.add("X-WHIRL-4")
    if pos.whirlpool is not None:
        rules.add("X-WHIRL-1")
    if pos.beaver is not None and any(after.beaver is None for after in outcomes):
        rules.add("X-BEAVER-2")
    if pos.moose is Moose.HELD and any(after.moose is not Moose.HELD for after in outcomes):
        rules.add("X-MOOSE-3")
    if any(c.double and c.gems and not c.fallen for _, c in pos.canoes()) and any(
            any(c.double and c.fallen for _, c in after.canoes()) for after in outcomes):
        rules.add("X-DOUBLE-4")
    if pos.joe is not None:
        rules.update({"X-JOE-1", "X-JOE-2"})
    return rules


def _canoe_of(pos: Position, player: int, ref: CanoeRef) -> Canoe | None:
    """The canoe of ``player`` a turn's reference names (its place, and its cargo or kind where they share it)."""
    for canoe in pos.players[player].canoes:
        if canoe.place != ref.place or (ref.gems is not None and canoe.gems != ref.gems):
            continue
        if ref.kind in ("single", "double") and canoe.double != (ref.kind == "double"):
            continue
        if ref.kind == "moose" and not canoe.moose:
            continue
        return canoe
    return None


def _x_turn_rules(pos: Position, turn: Turn, player: int) -> set[str]:
    """The expansion's rules a turn exercises (RULES.md section X), read from its notation and its position."""
    rules = set()
    board, card = pos.board, pos.players[player].card
    if card in _X_CARDS:
        rules.add("X-CARDS-1")
    if turn.budget is not None:
        rules.add("X-CARDS-3")
    if turn.lasso:
        rules.add("X-CARDS-4")
    if turn.weather > 0 and pos.beaver is None and pos.ruleset.x_beaver and pos.weather + turn.weather == 2:
        rules.add("X-BEAVER-1")
    for action in turn.actions:
        canoe = _canoe_of(pos, player, action.canoe)
        gem_steps = [s for s in action.steps if isinstance(s, (Load, Unload))]
        if canoe is not None and canoe.double:
            rules.add("X-DOUBLE-1")
            if len(gem_steps) > 1:
                rules.add("X-DOUBLE-2")
        if sum(1 for s in action.steps if isinstance(s, Steal)) > 1:
            rules.add("X-DOUBLE-3")
        if canoe is not None and canoe.moose:
            rules.add("X-MOOSE-2")
        if pos.whirlpool is not None and not action.steps and action.canoe.place not in (PORT, FALLEN):
            rules.add("X-WHIRL-5")  # a river canoe with no legal action stays
        place = action.canoe.place
        for step in action.steps:
            if isinstance(step, TakeMoose):
                rules.update({"X-MOOSE-1", "X-MOOSE-2"})
            elif isinstance(step, Trade):
                rules.add("X-JOE-3")
            elif isinstance(step, Push):
                rules.add("X-WHIRL-2")
            elif isinstance(step, Move):
                whirl = pos.whirlpool
                if (whirl is not None and not step.downstream and place != PORT and whirl in board.above(place)
                        and (step.dest == whirl or whirl not in board.above(step.dest))):
                    rules.add("X-WHIRL-3")  # an upstream movement onto or past the whirlpool
                place = step.dest
    return rules


def rescue_results(pos: Position) -> dict[Position, dict[int, Rescue]]:
    """Every position phase I's decisions lead to from ``pos`` by the engine (R-RESCUE-1..3, in seat order from the
    lifebuoy), each with the decisions by seat that lead to it first."""
    results: dict[Position, dict[int, Rescue]] = {pos: {}}
    for i in pos.turn_order():
        grown: dict[Position, dict[int, Rescue]] = {}
        for state, decisions in results.items():
            for option in rescue_options(state, i):
                grown.setdefault(apply_rescue(state, i, option), {**decisions, i: option})
        results = grown
    return results


def rescue_switch_rules(pos: Position, results: set[Position]) -> set[str]:
    """The rules of the switches of phase I that matter from ``pos``: each switch away from its default whose
    default would give the engine other ``results`` (its row's rule, e.g. R-RESCUE-3 where ``rescue_when_none:
    free`` gives a canoe back free to a player who has gems). Read from the rows: a new switch of phase I needs
    nothing here."""
    rules = set()
    for name, row in SWITCHES.items():
        if row.phases[0] == "rescue" and getattr(pos.ruleset, name) != row.default:
            default = dataclasses.replace(pos.ruleset, **{name: row.default})
            if {p.replace(ruleset=pos.ruleset) for p in rescue_results(pos.replace(ruleset=default))} != results:
                rules.add(row.rule)
    return rules


# -- the checker ----------------------------------------------------------------------------------------

class CrossChecker:
    """Compares the engine and the encoding (or a mutant of it) for one board and ruleset.

    ``timeout``: the seconds the encoding's side of one comparison may take (None: no limit); past it the case
    is UNKNOWN. ``reference``: ask the earlier :class:`Enumerator` (a fresh solver per position for turns), which
    the benchmark runs beside the incremental one; both give the same outcome sets. ``preprocess``: the incremental
    enumerator's questions for other results simplify the pinned relation first (with False, a plain solver, as
    before; the same outcome sets)."""

    def __init__(self, board: Board, rules: Ruleset, mutant: Mutant | None = None, timeout: float | None = 60,
                 reference: bool = False, preprocess: bool = True) -> None:
        self.board = board
        self.rules = rules
        self.mutant = mutant
        self.timeout = timeout
        self.reference = reference
        self.preprocess = preprocess
        self._enumerators: dict[int, Enumerator] = {}
        self._incremental: dict[int, IncrementalEnumerator] = {}

    def enumerator(self, players: int) -> Enumerator:
        """The reference enumerator for a player count (each solver question has ``timeout`` seconds)."""
        if players not in self._enumerators:
            self._enumerators[players] = Enumerator(Relations(self.board, self.rules, players, self.mutant),
                                                    self.timeout)
        return self._enumerators[players]

    def incremental(self, players: int) -> IncrementalEnumerator:
        """The incremental enumerator for a player count: its relations are built and asserted once, on first use."""
        if players not in self._incremental:
            self._incremental[players] = IncrementalEnumerator(Relations(self.board, self.rules, players,
                                                                         self.mutant), self.preprocess)
        return self._incremental[players]

    def _encoding(self, case: Case, ask: Callable[[float | None], dict[Any, str]]) -> None:
        """The encoding's outcomes, asked with this case's deadline; UNKNOWN when it passes."""
        left = time_left(self.timeout)  # this comparison's limit, within the command's time limit
        try:
            case.encoding = ask(None if left is None else time.perf_counter() + left)
        except TimeoutError as error:
            case.encoding = {}
            if out_of_time():  # the command's limit, not this comparison's, ran out
                case.unknown = "the command's time limit ran out"
            else:
                case.unknown = f"{error} (limit {self.timeout} s)" if self.timeout is not None else str(error)

    def turn(self, pos: Position, player: int, card: Card, stolen: frozenset[StolenMark] = frozenset()) -> Case:
        """``stolen``: the gems stolen earlier in this phase (they only change which rules count as exercised)."""
        case = Case("turn", pos, player=player, card=card)
        case.rules = {"R-CARD-2"} | ({"R-CARD-1"} if pos.players[player].card is not None else set())
        turns = {}
        for outcome in legal_turns(pos, player, card):
            case.engine[outcome.position] = str(outcome.turn)
            turns[outcome.position] = outcome.turn
            case.rules |= turn_rules(pos, outcome.turn, player, stolen)
        case.rules |= position_rules(pos) | ({"X-CARDS-1"} if card in _X_CARDS else set())
        n = len(pos.players)
        if self.reference:
            self._encoding(case, lambda _: self.enumerator(n).check_turns(pos, player, card, turns))
        else:
            self._encoding(case, lambda deadline: self.incremental(n).check_turns(pos, player, card, turns, deadline))
        return case

    def flow(self, pos: Position, steps: int | None) -> Case:
        """The flow of ``steps`` single steps, or with None the flow the round's cards and weather give."""
        case = Case("flow", pos, steps=steps)
        k = flow_value(pos) if steps is None else steps
        for choices, after in flow_outcomes(pos, k):
            case.engine[after] = ",".join("/".join(f"{f}={lab}" for f, lab in c) for c in choices)
        n = len(pos.players)
        if self.reference:
            self._encoding(case, lambda _: {p: "" for p in self.enumerator(n).flows(pos, steps)})
        else:
            self._encoding(case, lambda deadline: {p: "" for p in self.incremental(n).flows(pos, steps, deadline)})
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
        case.rules |= position_rules(pos) | _x_flow_rules(pos, steps, list(case.engine))
        return case

    def rescue(self, pos: Position) -> Case:
        case = Case("rescue", pos)
        results = rescue_results(pos)  # with their decisions: the encoding confirms them first
        names = [p.name for p in pos.players]
        case.engine = {result: "; ".join(f"{names[i]} {option}" for i, option in decisions.items())
                       for result, decisions in results.items()}
        n = len(pos.players)
        if self.reference:
            self._encoding(case, lambda _: {p: "" for p in self.enumerator(n).rescues(pos)})
        else:
            self._encoding(case, lambda deadline: {p: "" for p in self.incremental(n).rescues(pos, deadline,
                                                                                             results)})
        if any(c.fallen for _, c in pos.canoes()):
            case.rules.add("R-RESCUE-1")
        if any(must_rescue(p) for p in pos.players):
            case.rules.add("R-RESCUE-3" if pos.ruleset.rescue_when_none.value == "free" else "R-RESCUE-2")
        if any(c.fallen and c.double for _, c in pos.canoes()):
            case.rules.add("X-DOUBLE-4")
        case.rules |= position_rules(pos) | rescue_switch_rules(pos, set(case.engine))
        return case

    def end(self, pos: Position) -> Case:
        case = Case("end", pos)
        names = [p.name for p in pos.players]
        engine = tuple(winners(pos))
        case.engine = {engine: "winners: " + (", ".join(names[i] for i in engine) or "none")}

        def named(found: tuple[int, ...]) -> dict[Any, str]:
            return {found: "winners: " + (", ".join(names[i] for i in found) or "none")}
        n = len(pos.players)
        if self.reference:
            self._encoding(case, lambda _: named(self.enumerator(n).winners(pos)))
        else:
            self._encoding(case, lambda deadline: named(self.incremental(n).winners(pos, deadline)))
        case.rules = {"R-END-1", "R-END-2"} | ({"R-END-3"} if len(engine) else set()) | position_rules(pos)
        return case

    def round(self, pos: Position, cards: dict[int, Card], limit: int = 12) -> Case | None:
        """Every start of the next round from a start-of-round ``pos`` with the cards given; None when the engine
        finds more than ``limit`` intermediate positions (too many to enumerate in the encoding)."""
        case = Case("round", pos, cards=cards)
        # Dicts rather than sets: one path to each start is kept, the first in a fixed order (the turns the
        # encoding is asked to confirm first).
        # Each position after phase I with the decisions that lead to it, then each start of the next round with the
        # turns and those decisions: the encoding confirms them first.
        rescued = rescue_results(pos)
        starts: dict[Position, str] = {}
        paths: dict[Position, RoundPath] = {}
        decided: dict[Position, dict[int, Rescue]] = {}
        case.rules = {*ROUND_ONLY, "R-CARD-2", "R-FLOW-1"}
        for state in rescued:
            # Each position of phase II with the gems stolen on the way to it (for R-STEAL-4's coverage), and the
            # turns that led there.
            frontier: dict[tuple[Position, frozenset[StolenMark]], RoundPath] = {
                (begin_turns(state, None, cards), frozenset()): ()}
            for p in pos.turn_order():
                grown: dict[tuple[Position, frozenset[StolenMark]], RoundPath] = {}
                for (s, stolen), path in frontier.items():
                    for o in legal_turns(s, p):
                        if stolen and restolen(s, p, o.turn, stolen):
                            case.rules.add("R-STEAL-4")
                        card = cards.get(p, s.players[p].card)
                        assert card is not None
                        grown.setdefault((o.position, stolen | {mark for _, mark in steals(s, p, o.turn)}),
                                         (*path, (p, s, card, o.turn)))
                frontier = grown
                if len({s for s, _ in frontier}) > limit:
                    return None
            for (s, _), path in frontier.items():
                for _, after in flow_outcomes(s, flow_value(s)):
                    start = _next_round(after, s)
                    starts[start] = ""
                    if start not in paths:
                        paths[start], decided[start] = path, rescued[state]
        case.engine = starts
        n = len(pos.players)
        if self.reference:
            self._encoding(case, lambda _: {p: "" for p in self.enumerator(n).rounds(pos, cards, 20 * limit)})
        else:
            self._encoding(case, lambda deadline: {p: "" for p in self.incremental(n).check_rounds(
                pos, cards, paths, 20 * limit, deadline, decided)})
        return case


def _next_round(after_flow: Position, before_flow: Position) -> Position:
    """Phase IV after a flow result: the lifebuoy passes, cards leave the table, empty hands refill."""
    players = tuple(Player(p.name, p.canoes, p.hand or start_hand(after_flow.ruleset), p.bank,
                           None) for p in after_flow.players)
    return after_flow.replace(players=players, lifebuoy=(before_flow.lifebuoy + 1) % len(players),
                              round=before_flow.round + 1, phase=Phase.CARDS, acted=())
