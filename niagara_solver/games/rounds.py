"""Every distinct round from a position at the start of a round, by the engine's choices alone.

A round's open choices are the engine's (R-ROUND-1): phase I rescues in seat order from the lifebuoy holder
(:func:`.rescue.rescue_options`, R-RESCUE-1), each player's card and turn in turn order (:func:`.turns.legal_turns`
for every card of the hand, R-CARD-1, R-TURN-1; with ``reveal: at_once`` every card is chosen before the first
turn), the flow's branches under ``fork_policy: free`` and the pushes of canoes put back onto the whirlpool at a
fork (:func:`.flow.flow_choices`, R-FLOW-4, X-WHIRL-4), then phase IV (:func:`.round.next_round`, R-BUOY-1,
R-CARD-2). Nothing of the rules is read anew here: the walk only strings the engine's answers together.

Each successor comes with a :class:`RoundStep`: the choices that lead to it, which replay exactly with
:func:`.round.play_round` (:meth:`RoundStep.replay`), and what the round did per seat (steals, falls, gems lost
over the falls, rescues). Successors are told apart by their position (or by position and events, when asked):
the first record found, in the engine's order, is kept.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Iterator

from niagara_solver.engine.flow import StepChoice, flow_choices, flow_value
from niagara_solver.engine.rescue import apply_rescue, begin_turns, rescue_options
from niagara_solver.engine.round import RoundRecord, is_finished, next_round, play_round
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import Card, Phase
from niagara_solver.model.notation import Rescue, Steal, Turn
from niagara_solver.model.position import Player, Position
from niagara_solver.model.query import RoundEvents
from niagara_solver.model.ruleset import ForkPolicy, Reveal


def first_rounds(k: int, first: int = 1) -> str:
    """The rounds first..k in words: "round 3" for one, else "rounds 1..4"."""
    return f"round {k}" if k == first else f"rounds {first}..{k}"


def steals_in(turn: Turn) -> int:
    """How many steals a turn makes (R-STEAL-1): one per steal step of its canoe actions."""
    return sum(1 for action in turn.actions for step in action.steps if isinstance(step, Steal))


@dataclass(frozen=True)
class RoundStep:
    """One round's choices, and what it did per seat.

    ``rescues``: every seat's phase I decision, in seat order from the lifebuoy holder (R-RESCUE-1); ``cards``: each
    seat's card (R-CARD-1); ``turns``: each seat's turn, in the order taken (R-TURN-1); ``branches``: each flow
    step's branch choices with ``fork_policy: free`` on a board with forks, else None (R-FLOW-4); ``pushes``: where
    the whirlpool pushed each canoe put back onto it at a fork (X-WHIRL-4). Per seat: ``steals`` made by the
    seat's canoes (R-STEAL-1), ``falls`` its canoes that went over the falls in the flow and ``lost`` the gems they
    carried (R-FLOW-6), ``rescued`` its canoes brought back in phase I (R-RESCUE-1)."""

    rescues: tuple[tuple[int, Rescue], ...]
    cards: tuple[tuple[int, Card], ...]
    turns: tuple[tuple[int, Turn], ...]
    branches: tuple[StepChoice, ...] | None
    pushes: tuple[str, ...]
    steals: tuple[int, ...]
    falls: tuple[int, ...]
    lost: tuple[int, ...]
    rescued: tuple[int, ...]

    @property
    def events(self) -> RoundEvents:
        """What the round did, as the position predicates read it (stole, fell, rescued, lost: docs/QUERIES.md)."""
        return RoundEvents(steals=self.steals, falls=self.falls, rescues=self.rescued, lost=self.lost)

    @property
    def counts(self) -> tuple[tuple[int, ...], ...]:
        """The per-seat counts as one value (steals, falls, lost, rescued): what tells two rounds to the same
        position apart for a target that reads them."""
        return (self.steals, self.falls, self.lost, self.rescued)

    def replay(self, pos: Position) -> RoundRecord:
        """The round played again from ``pos`` by :func:`.round.play_round`, every rule checked."""
        return play_round(pos, dict(self.cards), dict(self.turns), dict(self.rescues),
                          list(self.branches) if self.branches is not None else None, list(self.pushes))


def rounds(pos: Position, *, events: bool = False) -> Iterator[tuple[Position, RoundStep]]:
    """Every distinct position one whole round after ``pos`` (at the start of a round, or in phase II, which is then
    finished), each with the first :class:`RoundStep` found that leads to it, in the engine's order. With
    ``events``, successors with the same position but different per-seat counts (:attr:`RoundStep.counts`) are
    listed apart. Nothing follows a position where the game is over (R-END-2)."""
    if is_finished(pos):
        return
    walk = _Walk(pos, events)
    yield from walk.run()


class _Walk:
    """The depth-first walk of one round. A stage reached again with the same position (and counts, with
    ``events``) is not walked again: it leads to the same successors, found first along the earlier path."""

    def __init__(self, start: Position, events: bool) -> None:
        self.start = start
        self.events = events
        self.n = len(start.players)
        self.seen: set[Any] = set()
        self.found: set[Any] = set()
        self.free = start.ruleset.fork_policy is ForkPolicy.FREE and bool(start.board.forks)

    def _first(self, key: Any) -> bool:
        if key in self.seen:
            return False
        self.seen.add(key)
        return True

    def run(self) -> Iterator[tuple[Position, RoundStep]]:
        pos = self.start
        if pos.phase is Phase.CARDS:
            yield from self._rescue(pos, 0, ())
        else:
            cards = tuple((i, p.card) for i, p in enumerate(pos.players) if p.card is not None)
            yield from self._turns(pos, (), cards, (), (0,) * self.n)

    def _rescue(self, pos: Position, i: int, made: tuple[tuple[int, Rescue], ...]) -> Iterator[tuple[Position,
                                                                                                  RoundStep]]:
        order = pos.turn_order()
        if i == len(order):
            yield from self._cards(begin_turns(pos), made)
            return
        p = order[i]
        for option in rescue_options(pos, p):
            after = apply_rescue(pos, p, option)
            key = ("rescue", i + 1, after, tuple(len(r.payments) for _, r in made) if self.events else None)
            if self._first(key):
                yield from self._rescue(after, i + 1, (*made, (p, option)))

    def _cards(self, pos: Position, rescues: tuple[tuple[int, Rescue], ...]) -> Iterator[tuple[Position,
                                                                                               RoundStep]]:
        if pos.ruleset.reveal is not Reveal.AT_ONCE:
            yield from self._turns(pos, rescues, (), (), (0,) * self.n)
            return
        # R-TURN-1 with ``reveal: at_once``: every card is chosen, then revealed, before the first turn.
        hidden = [i for i, p in enumerate(pos.players) if p.card is None]
        for chosen in itertools.product(*(pos.players[i].hand for i in hidden)):
            revealed = pos
            for i, card in zip(hidden, chosen):
                p = revealed.players[i]
                revealed = revealed.with_player(i, Player(p.name, p.canoes, p.hand, p.bank, card))
            yield from self._turns(revealed, rescues, tuple(zip(hidden, chosen)), (), (0,) * self.n)

    def _turns(self, pos: Position, rescues: tuple[tuple[int, Rescue], ...], cards: tuple[tuple[int, Card], ...],
               turns: tuple[tuple[int, Turn], ...], steals: tuple[int, ...]) -> Iterator[tuple[Position, RoundStep]]:
        p = pos.next_to_act()
        if p is None:
            yield from self._flow(pos, rescues, cards, turns, steals)
            return
        player = pos.players[p]
        choose = player.card is None  # a hidden card is chosen with the turn (R-CARD-1)
        for card in (player.hand if choose else (player.card,)):
            assert card is not None
            for outcome in legal_turns(pos, p, card):
                after = outcome.position
                stole = steals
                if self.events:
                    count = steals_in(outcome.turn)
                    if count:
                        stole = (*steals[:p], steals[p] + count, *steals[p + 1:])
                key = ("turn", after, (stole, tuple(len(r.payments) for _, r in rescues)) if self.events else None)
                if self._first(key):
                    yield from self._turns(after, rescues, (*cards, (p, card)) if choose else cards,
                                           (*turns, (p, outcome.turn)), stole)

    def _flow(self, pos: Position, rescues: tuple[tuple[int, Rescue], ...], cards: tuple[tuple[int, Card], ...],
              turns: tuple[tuple[int, Turn], ...], steals: tuple[int, ...]) -> Iterator[tuple[Position, RoundStep]]:
        rescued = [0] * self.n
        for i, r in rescues:
            rescued[i] = len(r.payments)
        fallen = [sum(1 for c in p.canoes if c.fallen) for p in pos.players]
        cargo = [sum(len(c.gems) for c in p.canoes) for p in pos.players]
        for outcome in flow_choices(pos, flow_value(pos)):
            after = next_round(outcome.position, pos)
            # Over the falls (R-FLOW-6): a canoe goes to the falls only in the flow, and its cargo home to the caves;
            # nothing else in phase III takes a gem off a canoe.
            falls = tuple(sum(1 for c in p.canoes if c.fallen) - fallen[i] for i, p in enumerate(after.players))
            lost = tuple(cargo[i] - sum(len(c.gems) for c in p.canoes) for i, p in enumerate(after.players))
            step = RoundStep(rescues, tuple(sorted(cards)), turns, outcome.choices if self.free else None,
                             outcome.pushes, steals, falls, lost, tuple(rescued))
            key = (after, step.counts) if self.events else after
            if key not in self.found:
                self.found.add(key)
                yield after, step
