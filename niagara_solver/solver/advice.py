"""Advice for a position: each card of a player ranked by seeded simulated continuations (an **estimate**, not a
proof; the proved answers are :mod:`.solve`'s).

For each card the player may play (the hand, or the card already chosen), the game is played on from the
position ``continuations`` times, for at most ``rounds`` rounds or until it ends (R-END-2): the player plays that
card this round and every decision else — the player's turn with it, the other players' cards and turns, every
rescue — is the ``lookahead`` policy's (:mod:`niagara_solver.play.policy`), played by
:mod:`niagara_solver.play.continuations`. Continuation *j* is played from the same seed for every card, so the cards
are compared on the same draws of the others' choices. A card's figures:
how often the player won (among the winners, R-END-3) within the rounds, with Wilson's 95% interval, and the change
of the player's bank meanwhile (its mean, with a 95% interval): the gems banked less the gems paid for rescues
(R-RESCUE-1, this round's phase I included when the position is at a round's start; nothing else takes from a bank,
R-PROP-9), each also given alone, so that a change below 0 reads as the rescues it paid. The turn shown with a card
is the policy's turn with it on the position as it stands, as if the player acted now.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Any

from niagara_solver.engine.round import is_finished, winners
from niagara_solver.model.atoms import Card, Phase
from niagara_solver.model.errors import InputError
from niagara_solver.model.estimates import interval_json, mean_interval, rate_json
from niagara_solver.model.limits import LIMITS, check_time
from niagara_solver.model.notation import Turn
from niagara_solver.model.position import Position
from niagara_solver.play.continuations import Continuations

#: Continuations per card in the analysis (``--continuations``) and rounds each is played at most: a few seconds
#: for a full hand of seven cards with four players.
CONTINUATIONS = 20
ROUNDS = 2
#: Bounds on what one advice may ask for (continuations × cards × rounds is the work).
MAX_CONTINUATIONS = 10_000
MAX_ROUNDS = 200


@dataclass(frozen=True)
class CardAdvice:
    """One card's continuations: the player's turn with it now, wins, and per continuation the change of the
    player's bank (``gains``: gems banked less gems paid for rescues) and the gems paid for rescues (``paid``)."""

    card: Card
    turn: Turn
    wins: int
    finished: int
    gains: tuple[int, ...]
    paid: tuple[int, ...]

    @property
    def rate(self) -> float:
        """The share of continuations the player won."""
        return self.wins / len(self.gains) if self.gains else 0.0

    @property
    def gain(self) -> float:
        """The change of the player's bank (gems banked less gems paid for rescues), on average over the
        continuations: below 0 when the rescues paid outweigh the gems banked."""
        return statistics.fmean(self.gains) if self.gains else 0.0

    @property
    def banked(self) -> tuple[int, ...]:
        """The gems the player banked in each continuation (never below 0: the change plus the rescues paid)."""
        return tuple(g + p for g, p in zip(self.gains, self.paid))

    def to_json(self) -> dict[str, Any]:
        """The card's estimate as JSON: ``bank_change`` = ``banked`` less ``paid`` (for rescues), each a mean with
        its 95% interval."""
        def mean(values: tuple[int, ...]) -> dict[str, float | None]:
            return interval_json(mean_interval([float(v) for v in values]))
        return {"card": self.card.to_json(), "turn": str(self.turn), "wins": rate_json(self.wins, len(self.gains)),
                "bank_change": mean(self.gains), "banked": mean(self.banked), "paid": mean(self.paid),
                "finished": self.finished}


@dataclass(frozen=True)
class Advice:
    """Every card of a player ranked by its continuations, best first (win rate, then gems banked)."""

    player: str
    continuations: int
    rounds: int
    seed: int
    cards: tuple[CardAdvice, ...]
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """The advice as JSON, labelled as an estimate."""
        return {"player": self.player, "estimate": True, "policy": Continuations.policy,
                "continuations": self.continuations, "rounds": self.rounds, "seed": self.seed,
                "cards": [c.to_json() for c in self.cards], "seconds": round(self.seconds, 3)}


def advice_player(pos: Position) -> int | None:
    """Whose decision comes next: the player to act in phase II, the lifebuoy holder at a round's start (the first
    to act, R-TURN-1); None when every player has acted."""
    return pos.next_to_act() if pos.phase is Phase.TURNS else pos.lifebuoy


def advise(pos: Position, player: int, continuations: int = CONTINUATIONS, rounds: int = ROUNDS,
           seed: int = 0) -> Advice:
    """Rank the player's cards by ``continuations`` seeded continuations of at most ``rounds`` rounds each."""
    if not 1 <= continuations <= MAX_CONTINUATIONS:
        raise InputError("--continuations", f"1 to {MAX_CONTINUATIONS:,} continuations, not {continuations}", LIMITS)
    if not 1 <= rounds <= MAX_ROUNDS:
        raise InputError("--rounds", f"1 to {MAX_ROUNDS} rounds, not {rounds}", LIMITS)
    me = pos.players[player]
    if is_finished(pos):
        raise InputError("position", "the game is over: a player reached the goal", "R-END-2")
    if player in pos.acted:
        raise InputError("--player", f"{me.name} has already acted this round", "R-TURN-1")
    begin = time.perf_counter()
    games = Continuations(pos, seed)
    banked = me.bank.total
    found = []
    for card, turn in games.card_turns(player).items():
        wins = finished = 0
        gains, paid = [], []
        for j in range(continuations):
            check_time()  # within the command's time limit (OutOfTime past it)
            played = games.play(player, card, j, rounds)
            state = played[-1].end if played else pos
            if is_finished(state):
                finished += 1
                wins += player in winners(state)
            gains.append(state.players[player].bank.total - banked)
            paid.append(sum(c is not None for record in played for i, rescue in record.rescues if i == player
                            for c in rescue.payments))  # a free rescue (None) costs nothing (R-RESCUE-3)
        found.append(CardAdvice(card, turn, wins, finished, tuple(gains), tuple(paid)))
    found.sort(key=lambda c: (-c.rate, -c.gain))
    return Advice(me.name, continuations, rounds, seed, tuple(found), time.perf_counter() - begin)
