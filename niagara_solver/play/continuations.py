"""The advice's continuations (:mod:`niagara_solver.solver.advice`): a position played on by the ``lookahead``
player, one card pinned for one player this round.

Continuation *j* of a card is played from the same seed for every card, so the cards are compared on the same draws
of the other players' choices; what the player works out along the way (its memo) is shared by all of them.
"""

from __future__ import annotations

import random

from niagara_solver.engine.outcome import TurnOutcome
from niagara_solver.engine.rescue import begin_turns, rescue_options
from niagara_solver.engine.round import RoundRecord, is_finished
from niagara_solver.model.atoms import Card, Phase
from niagara_solver.model.notation import Rescue, Turn
from niagara_solver.model.position import Position
from niagara_solver.play.playout import random_round
from niagara_solver.play.policy import Lookahead, Policy

#: The spacing of the continuations' seeds.
SEED_STRIDE = 1_000_003


class _Pinned:
    """A policy that plays a given card for one player in the given round, and otherwise defers to another."""

    def __init__(self, inner: Policy, player: int, card: Card, round_: int) -> None:
        self.inner, self.player, self.pinned, self.round = inner, player, card, round_
        self.name = inner.name

    def rescue(self, pos: Position, player: int, options: list[Rescue]) -> Rescue:
        return self.inner.rescue(pos, player, options)

    def card(self, pos: Position, player: int) -> Card:
        if player == self.player and pos.round == self.round:
            return self.pinned
        return self.inner.card(pos, player)

    def turn(self, pos: Position, player: int, outcomes: list[TurnOutcome]) -> TurnOutcome:
        return self.inner.turn(pos, player, outcomes)


class Continuations:
    """Seeded continuations of the position ``pos`` by the ``lookahead`` player."""

    #: The player of every decision not pinned.
    policy = Lookahead.name

    def __init__(self, pos: Position, seed: int) -> None:
        self.pos, self.seed = pos, seed
        self.memo: dict[object, object] = {}
        self.chooser = Lookahead(random.Random(seed), memo=self.memo)

    def card_turns(self, player: int) -> dict[Card, Turn]:
        """The player's cards (the hand, or the card already chosen) with the player's turn with each on the position
        as it stands, as if the player acted now; at a round's start, after the rescues the player would choose, in
        order (R-RESCUE-1)."""
        now = self.pos
        if now.phase is Phase.CARDS:
            now = begin_turns(now, {i: self.chooser.rescue(now, i, rescue_options(now, i)) for i in now.turn_order()})
        return {value.card: value.outcome.turn for value in self.chooser.card_values(now, player)}

    def play(self, player: int, card: Card, j: int, rounds: int) -> list[RoundRecord]:
        """Continuation ``j``, the rounds played: at most ``rounds``, or until the game ends (R-END-2), ``player``
        playing ``card`` this round and the ``lookahead`` player every other decision."""
        rng = random.Random(self.seed * SEED_STRIDE + j)
        policy = _Pinned(Lookahead(rng, memo=self.memo), player, card, self.pos.round)
        played: list[RoundRecord] = []
        state = self.pos
        for _ in range(rounds):
            if is_finished(state):
                break
            played.append(random_round(state, rng, policy))
            state = played[-1].end
        return played
