"""The fastest possible win, a whole-game figure two rulesets are compared by (``diff --fastest-win``).

From the setup of a game of N players (every canoe in the port, every cave full, the lifebuoy with the first seat,
R-BOARD-5, R-COMP), the fewest rounds after which some player has reached the goal (R-END-1), over every play of all
the players together: ``reach 'goal(any)'`` by the deepening walk (:mod:`..games.deepen`), whose bound excludes the
first rounds without a search (docs/GAMES.md, "The deepening walk"). The figure is **proved minimal** when the walk
finds a win (every play of the rounds before explored, or excluded by the bound), a **lower bound** otherwise: no win
in rounds 1..k, by the bound or the rounds the walk completed before the time limit ran out, or before the rounds
searched ran out. Never a guess: a lower bound is said as one, and two rulesets' figures are compared only as far as
the bounds allow.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from niagara_solver.design.simulate import start_position
from niagara_solver.games.rounds import first_rounds
from niagara_solver.jobs import Task
from niagara_solver.model.board import Board
from niagara_solver.model.limits import FASTEST_WIN_ROUNDS
from niagara_solver.model.readings import require
from niagara_solver.model.ruleset import Ruleset
from niagara_solver.model.verdict import Verdict

__all__ = ["FastestWin", "FastestWinDiff", "fastest_win", "fastest_win_job", "fastest_win_task", "compare_wins"]

#: The target: some player has reached the goal (R-END-1), which ends the game (R-END-2).
GOAL = "goal(any)"


@dataclass(frozen=True)
class FastestWin:
    """The fewest rounds from the setup to a win under one ruleset, for ``players`` players.

    ``verdict``: CONFIRMED (a win in ``rounds`` rounds, proved minimal), REFUTED (no play wins within ``limit`` rounds,
    every play explored: at least ``limit + 1``) or UNKNOWN (the walk unfinished: ``stopped`` says why, and no win
    comes before round ``at_least``). ``excluded``: the rounds 1..excluded the bound alone rules out, before any
    search. ``trace``: the fastest win's trace file (docs/GAMES.md, "Traces"), which ``replay`` plays again."""

    players: int
    verdict: Verdict
    rounds: int | None
    at_least: int
    limit: int
    excluded: int
    positions: int
    seconds: float
    stopped: str | None = None
    trace: dict[str, Any] | None = None

    @property
    def proved(self) -> bool:
        """Is the figure exact (a win found, proved minimal)?"""
        return self.rounds is not None

    @property
    def text(self) -> str:
        """The figure in words: ``5 rounds, proved minimal`` or a lower bound and why."""
        if self.rounds is not None:
            before = self.rounds - 1
            if before <= 0:
                how = "no round before"
            elif self.excluded >= before:
                how = f"{first_rounds(before)} excluded by the bound"
            elif self.excluded:
                how = (f"{first_rounds(self.excluded)} excluded by the bound, every play of "
                       f"{first_rounds(before, self.excluded + 1)} explored")
            else:
                how = f"every play of {first_rounds(before)} explored"
            return f"{self.rounds} round{'s' if self.rounds != 1 else ''}, proved minimal ({how})"
        if self.verdict is Verdict.REFUTED:
            return f"≥ {self.at_least} rounds: no play wins within {self.limit} (every play explored)"
        walked = self.at_least - 1
        why = (f"{first_rounds(self.excluded)} excluded by the bound" if self.excluded else "")
        if walked > self.excluded:
            why += ("; " if why else "") + f"every play of {first_rounds(walked, self.excluded + 1)} explored"
        return (f"≥ {self.at_least} rounds{': ' + why if why else ''}; the walk of round {self.at_least} unfinished "
                f"({self.stopped})")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"players": self.players, "rounds": self.rounds, "proved_minimal": self.proved,
                               "at_least": self.at_least, "limit": self.limit, "excluded": self.excluded,
                               "stopped": self.stopped, "positions": self.positions,
                               "seconds": round(self.seconds, 3), "text": self.text}
        if self.trace is not None:
            out["trace"] = self.trace
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> "FastestWin":
        verdict = (Verdict.CONFIRMED if obj["rounds"] is not None else
                   Verdict.UNKNOWN if obj["stopped"] is not None else Verdict.REFUTED)
        return cls(obj["players"], verdict, obj["rounds"], obj["at_least"], obj["limit"], obj["excluded"],
                   obj["positions"], obj["seconds"], obj["stopped"], obj.get("trace"))


def fastest_win(board: Board, rules: Ruleset, players: int, limit: int = FASTEST_WIN_ROUNDS) -> FastestWin:
    """The fewest rounds from the setup of ``players`` players to a win, searched up to ``limit`` rounds within the
    command's time limit (model.limits)."""
    from niagara_solver.games.bounds import query_bound
    from niagara_solver.games.search import reach
    from niagara_solver.games.trace import trace_json
    from niagara_solver.model.query import parse_query
    require(rules, "engine")
    began = time.perf_counter()
    start = start_position(board, rules, players)
    query = parse_query(GOAL, [p.name for p in start.players], board)
    result = reach(start, query, limit, bound=query_bound(query), walk="decisions")
    seconds = time.perf_counter() - began
    trace = trace_json(start, result.trace, str(query)) if result.rounds is not None else None
    at_least = (result.rounds if result.rounds is not None else
                limit + 1 if result.verdict is Verdict.REFUTED else result.depth + 1)
    stopped = None if result.stopped is None else f"out of {result.stopped}"
    return FastestWin(players, result.verdict, result.rounds, at_least, limit, result.excluded, result.distinct,
                      seconds, stopped, trace)


def fastest_win_job(ruleset: Any, board: Any, players: int, limit: int) -> dict[str, Any]:
    """The fastest win under one ruleset for one player count, as JSON (a task of ``diff --fastest-win``)."""
    return {"kind": "fastest-win", **fastest_win(Board.from_json(board), Ruleset.from_json(ruleset), players,
                                                  limit).to_json()}


def fastest_win_task(ruleset: Any, board: Any, players: int, limit: int = FASTEST_WIN_ROUNDS) -> Task:
    """The job of one fastest win (``ruleset`` and ``board`` as JSON)."""
    return Task(fastest_win_job, (ruleset, board, players, limit))


@dataclass(frozen=True)
class FastestWinDiff:
    """The fastest win under A and under B, for one player count, and what can be said of the change."""

    players: int
    a: FastestWin
    b: FastestWin

    @property
    def change(self) -> str:
        """From A to B in words, as far as the figures allow: ``same``, ``2 rounds fewer under B``, ``at least 2
        rounds more under B``, or ``unknown`` (a lower bound on a side that does not settle it)."""
        a_low, b_low = self.a.at_least, self.b.at_least
        a_high, b_high = self.a.rounds, self.b.rounds
        if a_high is not None and b_high is not None:
            return "same" if a_high == b_high else _rounds(b_high - a_high, exact=True)
        if a_high is not None and b_low > a_high:
            return _rounds(b_low - a_high, exact=False)
        if b_high is not None and a_low > b_high:
            return _rounds(b_high - a_low, exact=False)
        return "unknown"

    @property
    def decided(self) -> bool:
        """Are both figures settled (proved minimal, or no win within the rounds searched, every play explored)?"""
        return Verdict.UNKNOWN not in (self.a.verdict, self.b.verdict)

    def to_json(self) -> dict[str, Any]:
        return {"players": self.players, "a": self.a.to_json(), "b": self.b.to_json(), "change": self.change}


def _rounds(delta: int, exact: bool) -> str:
    """A change of ``delta`` rounds (B minus A) in words."""
    n = abs(delta)
    return (("" if exact else "at least ") + f"{n} round{'s' if n != 1 else ''} "
            + ("fewer" if delta < 0 else "more") + " under B")


def compare_wins(a: FastestWin, b: FastestWin) -> FastestWinDiff:
    """Two rulesets' fastest wins for the same player count, compared."""
    if a.players != b.players:
        raise ValueError(f"fastest wins for {a.players} and {b.players} players are not compared")
    return FastestWinDiff(a.players, a, b)
