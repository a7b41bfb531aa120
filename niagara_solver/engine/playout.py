"""Seeded random playouts of whole games: every choice uniform among the distinct legal ones.

Rescues are drawn among :func:`rescue_options`, unknown cards among the hand, turns among the distinct
outcomes of :func:`legal_turns`, and, with ``fork_policy: free``, branches among the distinct flows.
The same seed gives the same game on every machine (``random.Random`` with Python 3.11).
"""

from __future__ import annotations

import random
from typing import Iterator

from ..errors import DeadlockError
from ..rules.atoms import Phase
from ..rules.position import Position
from ..rules.ruleset import ForkPolicy
from .flow import StepChoice, flow_outcomes, flow_value
from .notation import Rescue
from .rescue import begin_turns, rescue_options
from .round import RoundRecord, TurnRecord, end_round_detail, is_finished
from .turns import legal_turns


def random_round(pos: Position, rng: random.Random) -> RoundRecord:
    """Play one round (from its start, or from phase II under way) with random choices."""
    start = pos
    rescues: list[tuple[int, Rescue]] = []
    if pos.phase is Phase.CARDS:
        decided: dict[int, Rescue] = {}
        for i in pos.turn_order():
            decided[i] = rng.choice(rescue_options(pos, i))
            rescues.append((i, decided[i]))
        cards = {i: p.card if p.card is not None else rng.choice(p.hand) for i, p in enumerate(pos.players)}
        pos = begin_turns(pos, decided, cards)
    else:
        cards = {}
        for i, p in enumerate(pos.players):
            if p.card is None:
                pos = pos.with_player(i, type(p)(p.name, p.canoes, p.hand, p.bank, rng.choice(p.hand)))
    turns_start = pos
    records = []
    while (player := pos.next_to_act()) is not None:
        outcomes = legal_turns(pos, player)
        if not outcomes:
            raise DeadlockError(f"{pos.players[player].name} has no legal turn with "
                                f"{pos.players[player].card} (R-PROP-10)")
        chosen = rng.choice(outcomes)
        card = pos.players[player].card
        assert card is not None
        pos = chosen.position
        records.append(TurnRecord(player, card, chosen.turn, pos))
    steps = flow_value(pos)
    choices: tuple[StepChoice, ...] | None = None
    if pos.ruleset.fork_policy is ForkPolicy.FREE and pos.board.forks:
        choices = rng.choice(flow_outcomes(pos, steps))[0]
    end, result = end_round_detail(pos, choices)
    return RoundRecord(start, tuple(rescues), turns_start, tuple(records), steps, choices, pos, result.fell, end)


def random_playout(pos: Position, seed: int, rounds: int | None = None) -> Iterator[RoundRecord]:
    """Random rounds from ``pos`` until the game ends (R-END-2) or ``rounds`` rounds were played."""
    rng = random.Random(seed)
    played = 0
    while not is_finished(pos) and (rounds is None or played < rounds):
        record = random_round(pos, rng)
        yield record
        pos = record.end
        played += 1
