"""Shrinking a disagreement: simpler positions (fewer players, canoes in the port, gems back home, calm weather)
tried greedily while the engine and the encoding still disagree on them."""

from __future__ import annotations

import time
from typing import Any, Callable, Iterator

from niagara_solver.model.atoms import COLOURS, PORT, Gems
from niagara_solver.model.errors import NiagaraError
from niagara_solver.model.invariants import position_problems
from niagara_solver.model.position import Canoe, Player, Position
from niagara_solver.verify.crosscheck.compare import Case, CrossChecker


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
    when the simpler position is invalid; a case that agrees, or whose time ran out, is not taken)."""
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
            if again is not None and again.disagrees:  # an UNKNOWN comparison is no disagreement
                case = again
                changed = True
                break
    return case


def shrunk(checker: CrossChecker, case: Case) -> Case:
    """A disagreeing case shrunk by rechecking it on simpler positions (a whole round is kept as found)."""
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
