"""A whole round (R-ROUND-1): phase I rescues and cards, phase II turns, phase III flow, phase IV the
lifebuoy (R-BUOY), then the end check (R-END)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from niagara_solver.model.errors import GameOverError, IllegalTurnError, PhaseError
from niagara_solver.model.atoms import Card, Colour, Phase
from niagara_solver.model.format import position_to_json
# The goal and the winners are pure functions of a position (R-END-1..3), kept in the model so that the position
# predicates (model/query.py) read them too; re-exported here, where the end of a round uses them.
from niagara_solver.model.goal import GOAL_SAME, GOAL_TOTAL, goal_reached, is_finished, winners
from niagara_solver.model.position import Position, start_hand
from niagara_solver.engine.apply import apply_turn
from niagara_solver.engine.flow import FlowResult, StepChoice, choices_text, flow_detail, flow_value
from niagara_solver.model.notation import Rescue, Turn
from niagara_solver.engine.rescue import begin_turns
from niagara_solver.engine.values import made

__all__ = ["GOAL_SAME", "GOAL_TOTAL", "goal_reached", "winners", "is_finished", "goes_on", "end_round",
           "end_round_detail", "TurnRecord", "RoundRecord", "play_round"]


def end_round(pos: Position, choices: Sequence[StepChoice] | None = None,
              pushes: Sequence[str] | None = None) -> Position:
    """Phases III and IV once every player has acted: the river flows (R-FLOW), the lifebuoy passes
    (R-BUOY-1), played cards stay out and empty hands are refilled (R-CARD-2), the next round begins.
    ``choices`` and ``pushes`` are the flow's choices (:func:`.flow.flow_detail`)."""
    return end_round_detail(pos, choices, pushes)[0]


def end_round_detail(pos: Position, choices: Sequence[StepChoice] | None = None,
                     pushes: Sequence[str] | None = None) -> tuple[Position, FlowResult]:
    """:func:`end_round`, also returning what the flow did."""
    steps = flow_value(pos)
    result = flow_detail(pos, steps, choices, pushes)
    return next_round(result.position, pos), result


def next_round(after_flow: Position, before_flow: Position) -> Position:
    """Phase IV after the flow (R-BUOY-1, R-CARD-2): the lifebuoy passes to the next seat, the cards played stay
    out, an empty hand is refilled, and the next round begins. ``after_flow`` is the position the flow left
    (:func:`.flow.flow_detail` or one of :func:`.flow.flow_choices`), ``before_flow`` the one it started from: the
    lifebuoy and the round count are read there."""
    # Made without re-running the constructors (:func:`.values.evolve`, inline): the hands stay in hand order, a full
    # hand is in it, and the canoes are not touched; a player keeps no hash, the position's kept hash is dropped.
    full = start_hand(after_flow.ruleset)
    players = tuple([made(type(p), {**p.__dict__, "hand": p.hand or full, "card": None, "card_budget": None})
                     for p in after_flow.players])
    fields = {**after_flow.__dict__, "players": players, "lifebuoy": (before_flow.lifebuoy + 1) % len(players),
              "round": before_flow.round + 1, "phase": Phase.CARDS, "acted": ()}
    fields.pop("_hash", None)
    return made(type(after_flow), fields)


@dataclass(frozen=True)
class TurnRecord:
    """One player's turn in a played round."""

    player: int
    card: Card
    turn: Turn
    after: Position


@dataclass(frozen=True)
class RoundRecord:
    """What happened in one round, phase by phase."""

    start: Position
    rescues: tuple[tuple[int, Rescue], ...]
    turns_start: Position
    turns: tuple[TurnRecord, ...]
    flow: int
    choices: tuple[StepChoice, ...] | None
    before_flow: Position
    fell: tuple[tuple[int, str, tuple[Colour, ...]], ...]
    end: Position
    #: Where the whirlpool pushed each moored canoe put back onto it at a fork (X-WHIRL-4), in put-back order.
    pushes: tuple[str, ...] = ()

    @property
    def winners(self) -> tuple[int, ...]:
        """The winners if the game ended with this round (R-END-2)."""
        return winners(self.end)

    def to_json(self) -> dict[str, Any]:
        """The round as ``round --json`` and ``play --json`` write it."""
        start = self.start
        names = [p.name for p in start.players]
        return {"round": start.round,
                "rescues": {names[i]: str(r) for i, r in self.rescues},
                "cards": {p.name: p.card.to_json() for p in self.turns_start.players if p.card is not None},
                "turns": [{"player": names[t.player], "card": t.card.to_json(), "turn": str(t.turn)}
                          for t in self.turns],
                "flow": self.flow,
                "branches": choices_text(self.choices, start) if self.choices is not None else None,
                "fell": [{"player": names[o], "from": d, "gems": [g.label for g in gems]} for o, d, gems in self.fell],
                **({"pushes": list(self.pushes)} if self.pushes else {}),
                "position": position_to_json(self.end)}


def goes_on(pos: Position) -> None:
    """Raise :class:`GameOverError` where the game is over (R-END-2): at the start of a round some player has
    reached the goal, and no round is played after it."""
    if pos.phase is Phase.CARDS and is_finished(pos):
        won = ", ".join(pos.players[i].name for i in winners(pos))
        raise GameOverError(f"the game is over ({won} reached the goal): no round is played after it")


def play_round(pos: Position, cards: Mapping[int, Card], turns: Mapping[int, Turn | str],
               rescues: Mapping[int, Rescue] | None = None,
               choices: Sequence[StepChoice] | None = None, pushes: Sequence[str] | None = None) -> RoundRecord:
    """Play one whole round from given rescues, cards and turns (a position at the start of a round, or in
    phase II, which is then finished). Every turn is checked (:func:`apply_turn`); players act in order from
    the lifebuoy holder (R-TURN-1). ``choices`` and ``pushes`` are the flow's choices (:func:`.flow.flow_detail`)."""
    goes_on(pos)
    start = pos
    done: list[tuple[int, Rescue]] = []
    if pos.phase is Phase.CARDS:
        rescues = dict(rescues or {})
        missing = [pos.players[i].name for i in range(len(pos.players))
                   if i not in cards and pos.players[i].card is None]
        if missing:
            raise IllegalTurnError(f"every player chooses a card (R-CARD-1); missing: {', '.join(missing)}",
                                   "R-CARD-1")
        pos = begin_turns(pos, rescues, cards)
        done = [(i, rescues.get(i, Rescue())) for i in start.turn_order()]
    elif rescues:
        raise PhaseError("rescues happen at the start of phase I", "R-RESCUE-1")
    turns_start = pos
    records = []
    while (player := pos.next_to_act()) is not None:
        if player not in turns:
            raise IllegalTurnError(f"no turn given for {pos.players[player].name}", "R-TURN-1")
        turn = turns[player]
        parsed = Turn.parse(turn) if isinstance(turn, str) else turn
        card = pos.players[player].card
        if card is None:
            card = cards.get(player)
        if card is None:
            raise IllegalTurnError(f"no card given for {pos.players[player].name}", "R-CARD-1")
        pos = apply_turn(pos, player, parsed, card).position
        records.append(TurnRecord(player, card, parsed, pos))
    steps = flow_value(pos)
    end, result = end_round_detail(pos, choices, pushes)
    return RoundRecord(start, tuple(done), turns_start, tuple(records), steps,
                       tuple(choices) if choices is not None else None, pos, result.fell, end, tuple(pushes or ()))
