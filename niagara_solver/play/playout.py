"""Seeded random playouts of whole games.

Three policies (:data:`POLICIES`) choose among the distinct legal options (:func:`rescue_options`, the hand, the
outcomes of :func:`legal_turns`, and with ``fork_policy: free`` the distinct flows):

* ``uniform``: every option equally likely. Uniform play almost never banks a gem, so its games do not
  end (measured: no 2..5-player game over in 3000 rounds); it is the policy for invariant testing.
* ``greedy``: a random player with simple tastes; it usually (80%) takes the turn that banks, steals or loads the
  most and keeps its canoes off the brinks, and otherwise picks uniformly. Its games end, typically within a few
  dozen rounds.
* ``lookahead`` (the default for ``play`` and ``simulate``): a player that weighs each card against the others'
  likely replies (:mod:`niagara_solver.play.policy`).

The same seed gives the same game on every machine (``random.Random`` with Python 3.11).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

from niagara_solver.model.errors import DeadlockError
from niagara_solver.model.format import position_to_json
from niagara_solver.model.atoms import Card, Phase
from niagara_solver.model.position import Position
from niagara_solver.model.ruleset import ForkPolicy
from niagara_solver.engine.flow import StepChoice, flow_choices, flow_value
from niagara_solver.play.policy import Lookahead, Policy
from niagara_solver.model.notation import Rescue
from niagara_solver.engine.rescue import begin_turns, rescue_options
from niagara_solver.engine.round import RoundRecord, TurnRecord, end_round_detail, is_finished, winners
from niagara_solver.engine.outcome import TurnOutcome
from niagara_solver.engine.turns import legal_turns


class Uniform:
    """Every distinct legal option is equally likely."""

    name = "uniform"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def rescue(self, pos: Position, player: int, options: list[Rescue]) -> Rescue:
        return self.rng.choice(options)

    def card(self, pos: Position, player: int) -> Card:
        return self.rng.choice(pos.players[player].hand)

    def turn(self, pos: Position, player: int, outcomes: list[TurnOutcome]) -> TurnOutcome:
        return self.rng.choice(outcomes)


class Greedy(Uniform):
    """Usually the turn that banks, steals or loads most while keeping canoes off the brinks."""

    name = "greedy"
    #: How often the best-scoring turn is taken rather than a uniformly random one.
    focus = 0.8

    def rescue(self, pos: Position, player: int, options: list[Rescue]) -> Rescue:
        # Buy a canoe back only when forced to, or with gems to spare.
        cheap = [o for o in options if not o.payments or None in o.payments]
        if cheap and pos.players[player].bank.total < 4:
            return self.rng.choice(cheap)
        return self.rng.choice(options)

    def _score(self, pos: Position, player: int, outcome: TurnOutcome) -> int:
        before, after = pos.players[player], outcome.player(player)  # the rest of the position is not needed
        brinks = {d for d in pos.board.discs if pos.board.depth[d] >= pos.board.max_depth - 1}
        carried = sum(len(c.gems) for c in after.canoes) - sum(len(c.gems) for c in before.canoes)
        risky = sum(1 for c in after.canoes if c.place in brinks)
        loaded_up = sum(pos.board.max_depth - pos.board.depth[c.place] for c in after.canoes
                        if c.gems and c.on_river)
        return 20 * (after.bank.total - before.bank.total) + 5 * carried - 3 * risky + loaded_up

    def turn(self, pos: Position, player: int, outcomes: list[TurnOutcome]) -> TurnOutcome:
        if self.rng.random() >= self.focus:
            return self.rng.choice(outcomes)
        scores = [self._score(pos, player, o) for o in outcomes]
        best = max(scores)
        return self.rng.choice([o for o, s in zip(outcomes, scores) if s == best])


#: The policies by name, each made from the game's seeded generator.
POLICIES: dict[str, Callable[[random.Random], Policy]] = {"greedy": Greedy, "lookahead": Lookahead,
                                                          "uniform": Uniform}


class Seats:
    """A policy per seat (mixed games): each decision goes to the policy of the player who makes it."""

    def __init__(self, policies: Sequence[Policy]) -> None:
        self.policies = tuple(policies)
        self.name = ",".join(p.name for p in self.policies)

    def rescue(self, pos: Position, player: int, options: list[Rescue]) -> Rescue:
        return self.policies[player].rescue(pos, player, options)

    def card(self, pos: Position, player: int) -> Card:
        return self.policies[player].card(pos, player)

    def turn(self, pos: Position, player: int, outcomes: list[TurnOutcome]) -> TurnOutcome:
        return self.policies[player].turn(pos, player, outcomes)


def make_policy(names: str | Sequence[str], rng: random.Random) -> Policy:
    """The policy called ``names`` for every seat, or one policy per seat (:class:`Seats`), on one generator."""
    if isinstance(names, str):
        return POLICIES[names](rng)
    return Seats([POLICIES[name](rng) for name in names])


def random_round(pos: Position, rng: random.Random, policy: Policy | None = None) -> RoundRecord:
    """Play one round (from its start, or from phase II under way) with the policy's choices (uniform: random).

    Rescues are decided in seat order from the lifebuoy holder (R-RESCUE-1), then every card on the position after
    the rescues, each player alone (R-CARD-1), then the turns in order (R-TURN-1)."""
    policy = policy or Uniform(rng)
    start = pos
    rescues: list[tuple[int, Rescue]] = []
    if pos.phase is Phase.CARDS:
        decided: dict[int, Rescue] = {}
        for i in pos.turn_order():
            decided[i] = policy.rescue(pos, i, rescue_options(pos, i))
            rescues.append((i, decided[i]))
        rescued = begin_turns(pos, decided)
        cards = {i: p.card if p.card is not None else policy.card(rescued, i) for i, p in enumerate(rescued.players)}
        pos = begin_turns(pos, decided, cards)
    else:
        hidden = pos
        for i, p in enumerate(hidden.players):
            if p.card is None:
                pos = pos.with_player(i, type(p)(p.name, p.canoes, p.hand, p.bank, policy.card(hidden, i)))
    turns_start = pos
    records = []
    while (player := pos.next_to_act()) is not None:
        outcomes = legal_turns(pos, player)
        if not outcomes:
            raise DeadlockError(f"{pos.players[player].name} has no legal turn with "
                                f"{pos.players[player].card} (R-PROP-10)")
        chosen = policy.turn(pos, player, outcomes)
        card = pos.players[player].card
        assert card is not None
        pos = chosen.position
        records.append(TurnRecord(player, card, chosen.turn, pos))
    steps = flow_value(pos)
    choices: tuple[StepChoice, ...] | None = None
    pushes: tuple[str, ...] = ()
    free = pos.ruleset.fork_policy is ForkPolicy.FREE and pos.board.forks
    if free or any(c.moored for p in pos.players for c in p.canoes):  # X-WHIRL-4: a put-back push is chosen
        flowed = rng.choice(flow_choices(pos, steps))
        choices, pushes = (flowed.choices if free else None), flowed.pushes
    end, result = end_round_detail(pos, choices, pushes)
    return RoundRecord(start, tuple(rescues), turns_start, tuple(records), steps, choices, pos, result.fell, end,
                       pushes)


def random_playout(pos: Position, seed: int, rounds: int | None = None,
                   policy: str | Sequence[str] = "uniform") -> Iterator[RoundRecord]:
    """Rounds from ``pos`` chosen by ``policy`` (a name, or a name per seat) until the game ends (R-END-2) or
    ``rounds`` rounds were played."""
    rng = random.Random(seed)
    chooser = make_policy(policy, rng)
    played = 0
    while not is_finished(pos) and (rounds is None or played < rounds):
        record = random_round(pos, rng, chooser)
        yield record
        pos = record.end
        played += 1


@dataclass(frozen=True)
class Playout:
    """A seeded game played from ``start``: its rounds, where it stopped, whether it is over and who won.

    ``finished`` when the game is over (R-END-2: at the start of a round some player has reached the goal), and then
    ``winners`` names who won (R-END-3); a game stopped after its rounds before that is not finished and has no
    winners, whoever may have reached the goal within a round (R-END-1: the goal is checked at a round's end)."""

    start: Position
    seed: int
    #: The policy's name, or one name per seat.
    policy: str | tuple[str, ...]
    records: tuple[RoundRecord, ...]
    #: Where the game stopped: the end of the last round played, or ``start`` when none was.
    final: Position
    finished: bool
    winners: tuple[str, ...]

    @property
    def last_round(self) -> int:
        """The number of the last round played: ``final`` stands at the start of the round after it."""
        return self.final.round - 1

    def to_json(self) -> dict[str, Any]:
        """The game as ``play --json`` writes it: every round and the final position."""
        return {"seed": self.seed, "policy": self.policy if isinstance(self.policy, str) else list(self.policy),
                "rounds": [r.to_json() for r in self.records], "finished": self.finished,
                "winners": list(self.winners), "position": position_to_json(self.final)}


def play_out(start: Position, seed: int, rounds: int | None = None, policy: str | Sequence[str] = "uniform",
             each_round: Callable[[RoundRecord], None] | None = None) -> Playout:
    """The game :func:`random_playout` plays from ``start``, with whether it is over and its winners (R-END-2,
    R-END-3). ``each_round`` is given every round as soon as it is played (``play`` prints it then, a long game
    shows as it goes)."""
    records = []
    for record in random_playout(start, seed, rounds, policy):
        records.append(record)
        if each_round is not None:
            each_round(record)
    final = records[-1].end if records else start
    finished = is_finished(final)
    won = tuple(final.players[i].name for i in winners(final)) if finished else ()
    return Playout(start, seed, policy if isinstance(policy, str) else tuple(policy), tuple(records), final,
                   finished, won)
