"""What both solver backends share, on pure data only: the goals, the answer record, the time-out signal and the
sound bounds on what a player can still bank.

Nothing here calls the engine or the encoding, so the search backend (over the engine) and the smt backend (over
the encoding) stay two independent readings of the rules that meet only on these values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from niagara_solver.model.atoms import Card
from niagara_solver.model.limits import OutOfTime as OutOfTime  # the time-out signal both backends raise
from niagara_solver.model.notation import Steal, Turn
from niagara_solver.model.position import Position
from niagara_solver.model.verdict import ANSWER, Verdict


class Goal(Enum):
    """What X wants (docs/SOLVER.md)."""

    WIN = "win"      # the game ends within the horizon with X among the winners
    STEAL = "steal"  # X steals a gem within the horizon
    SAFE = "safe"    # X loses no gem from its first turn to the end of the horizon


class Backend(Enum):
    """Which reading of the rules answers: the engine (``search``), the encoding (``smt``), or both, compared."""

    SEARCH = "search"
    SMT = "smt"
    BOTH = "both"




@dataclass
class Answer:
    """The answer to one question about one player: CONFIRMED is "yes", REFUTED "no" (:data:`ANSWER`)."""

    verdict: Verdict
    player: str
    goal: Goal
    horizon: int
    backend: str
    card: Card | None = None
    turn: Turn | None = None
    line: list[str] = field(default_factory=list)
    refutations: list[dict[str, Any]] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    note: str = ""
    seconds: float = 0.0
    nodes: int = 0

    @property
    def word(self) -> str:
        """``yes``, ``no`` or ``unknown``."""
        return ANSWER(self.verdict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"verdict": self.word, "player": self.player, "goal": self.goal.value,
                               "horizon": self.horizon, "backend": self.backend, "seconds": round(self.seconds, 3)}
        if self.verdict is Verdict.CONFIRMED:
            out["card"] = self.card.to_json() if self.card is not None else None
            out["turn"] = str(self.turn) if self.turn is not None else None
            out["line"] = self.line
        if self.verdict is Verdict.REFUTED:
            out["refutations"] = self.refutations
        if self.details:
            out["details"] = self.details
        if self.note:
            out["note"] = self.note
        return out


def x_gems(pos: Position, x: int) -> int:
    """X's gems: banked and carried."""
    me = pos.players[x]
    return me.bank.total + sum(len(c.gems) for c in me.canoes)


def could_reach_goal(pos: Position, x: int, extra: int) -> bool:
    """An upper bound: could X's bank reach the goal (R-END-1) with ``extra`` more gems of any colours?"""
    bank = pos.players[x].bank
    missing = sum(1 for n in bank if n == 0)
    return bank.total + extra >= 7 or max(bank) + extra >= 4 or missing <= extra


def bankable(pos: Position, q: int) -> tuple[int, int]:
    """An upper bound on the gems (and their value) player ``q`` can bank in its next turn this round.

    Only a canoe that can reach the port banks (R-MOVE-5): one carrying gems whose card covers its depth, or one
    beside a cave that can load first (2 points) and still reach the port; a loaded gem is counted at the highest
    value, 5. A stolen gem cannot be banked in the same turn (a steal ends the action, R-STEAL-3).
    """
    player = pos.players[q]
    cards = [player.card] if player.card is not None else list(player.hand)
    best = max((b for c in cards if c is not None for b in c.budgets), default=0)  # 1/2/3: up to 3 (X-CARDS-3)
    if pos.ruleset.x_moose and best:
        best += 2  # the moose's bonus, if a canoe holds it or may take it (X-MOOSE-2): an upper bound stays one
    board, cap = pos.board, pos.ruleset.capacity
    gems = value = 0
    for canoe in player.canoes:
        if not canoe.on_river:
            continue
        depth = board.depth[canoe.place]
        carried = list(canoe.gems)
        room = canoe.capacity(cap) - len(carried)
        extra = 0
        if board.cave[canoe.place] is not None:  # load (or unload and load) before going home
            extra = min(canoe.capacity(cap), (best - depth) // 2) if best >= depth + 2 else 0
        if best >= depth:
            gems += len(carried) + min(room + len(carried), extra) if extra else len(carried)
            value += sum(int(g) for g in carried) + 5 * (min(room + len(carried), extra) if extra else 0)
    return gems, value


def has_steal(turn: Turn, victim: str | None = None) -> bool:
    """Does the turn steal (from ``victim``, if given)?"""
    return any(isinstance(s, Steal) and (victim is None or s.victim == victim) for a in turn.actions for s in a.steps)
