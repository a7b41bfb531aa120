"""The full analysis of a position for every player (``niagara-solve POSITION``): forced wins this round,
steal chances per card, threats to each loaded canoe, fall risk per flow, and the flow each smallest paddle
would produce; beside these proved answers, an estimate for the player who decides next: each card ranked by
simulated continuations (:mod:`.advice`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from niagara_solver.engine.rescue import begin_turns
from niagara_solver.engine.round import is_finished, winners
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import Card, Phase
from niagara_solver.model.limits import OutOfTime, check_time, time_limit
from niagara_solver.model.position import Player, Position
from niagara_solver.solver.advice import CONTINUATIONS, ROUNDS, advice_player, advise
from niagara_solver.solver.answers import Backend, Goal, has_steal
from niagara_solver.solver.solve import answer_with, fall_risk, frontier, threats


def steal_table(pos: Position, x: int, limit: int = 3000) -> dict[str, Any]:
    """For each card: victims possible for some play before X and sure for every play (exact), or, when too many
    plays come before X, the victims X could rob if it acted now (``exact: false``)."""
    states = frontier(pos, x, limit)
    me = pos.players[x]
    cards = [me.card] if me.card is not None else list(me.hand)
    exact = states is not None
    if states is None:
        states = [pos if pos.phase is Phase.TURNS else begin_turns(pos)]
    rows: dict[str, Any] = {}
    for card in cards:
        possible: set[str] = set()
        sure: set[str] | None = None
        for state in states:
            check_time()
            bare = state.with_player(x, Player(me.name, state.players[x].canoes, state.players[x].hand,
                                               state.players[x].bank, None))
            bare = bare.replace(acted=tuple(a for a in bare.acted if a != x))
            victims = {step.victim for o in legal_turns(bare, x, card) if has_steal(o.turn)
                       for a in o.turn.actions for step in a.steps if hasattr(step, "victim")}
            possible |= victims
            sure = victims if sure is None else sure & victims
        rows[card.label] = {"possible": sorted(possible), "sure": sorted(sure or set())}
    return {"exact": exact, "cards": rows}


def flow_table(pos: Position) -> list[dict[str, Any]]:
    """The flow for each smallest paddle that can be played this round (R-FLOW-1, R-FLOW-2), with the weather
    as it is and as far as the cloud cards still in hand can move it."""
    rules = pos.ruleset
    unplayed = [p for i, p in enumerate(pos.players) if i not in pos.acted]
    clouds = sum(1 for p in unplayed if Card.CLOUD in ([p.card] if p.card is not None else p.hand))
    low = max(rules.weather_min, pos.weather - clouds)
    high = min(rules.weather_max, pos.weather + clouds)
    smallest = sorted({int(c) for p in pos.players for c in ([p.card] if p.card is not None else p.hand)
                       if c is not None and c.is_paddle})
    rows = []
    for s in [*smallest, 0]:
        def flow(w: int) -> int:
            return max(rules.min_flow, s + w)
        nothing = "no paddle 1–7" if rules.x_cards else "only clouds"  # the Lasso and 1/2/3 count for none (X-CARDS-2)
        rows.append({"smallest paddle": s if s else nothing, "flow now": flow(pos.weather),
                     "flow range with clouds": [flow(low), flow(high)]})
    return rows


#: The sections of a player's analysis that are reckoned within the time limit, in the order they are reckoned.
SECTIONS = ("win", "steals", "threats", "falls")


@dataclass
class Analysis:
    """The analysis of a position: for a game over, who won; else each player's sections (as JSON-ready dicts:
    ``name``, and ``win``, ``steals``, ``threats``, ``falls`` as reckoned in time, the others named under
    ``unfinished``), the flow table, and the advice to the player deciding next (an estimate; None without it)."""

    finished: bool
    winners: list[str] = field(default_factory=list)
    players: list[dict[str, Any]] = field(default_factory=list)
    flows: list[dict[str, Any]] = field(default_factory=list)
    advice: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"finished": self.finished}
        if self.finished:
            out["winners"] = self.winners
            return out
        if self.advice is not None:
            out["advice"] = self.advice
        out["players"] = self.players
        out["flows"] = self.flows
        return out


def analyze(pos: Position, timeout: float | None = 10,
            progress: Callable[[str], None] | None = None, continuations: int = CONTINUATIONS,
            rounds: int = ROUNDS) -> Analysis:
    """Everything a player wants to know about a position, for every player (docs/SOLVER.md), and the advice for
    the player who decides next: each card ranked by ``continuations`` simulated continuations of at most
    ``rounds`` rounds (:mod:`.advice`, an estimate; none with 0 continuations).

    The whole analysis stops within ``timeout`` seconds: a forced-win question still open is UNKNOWN, and a
    player's sections not reckoned in time are left out and named under ``"unfinished"`` (never guessed).
    ``progress`` is told each section as it starts (``"red: steals"``)."""
    if is_finished(pos):
        return Analysis(True, [pos.players[i].name for i in winners(pos)])
    out = Analysis(False)
    players = []
    with time_limit(timeout):
        for i, player in enumerate(pos.players):
            entry: dict[str, Any] = {"name": player.name}
            if i in pos.acted:
                entry["note"] = "has acted this round"
            reckon: dict[str, Callable[[], Any]] = {
                "win": lambda: answer_with(pos, i, Goal.WIN, 1, Backend.SEARCH, timeout).to_json(),
                "steals": lambda: steal_table(pos, i),
                "threats": lambda: threats(pos, i),
                "falls": lambda: fall_risk(pos, i)}
            for section in SECTIONS:
                if i in pos.acted and section in ("win", "steals"):
                    continue
                if progress is not None:
                    progress(f"{player.name}: {section}")
                try:
                    check_time()
                    entry[section] = reckon[section]()
                except OutOfTime:
                    entry.setdefault("unfinished", []).append(section)
            players.append(entry)
        advised = advice_player(pos) if continuations else None
        if advised is not None:  # an estimate beside the proofs, for whoever decides next
            if progress is not None:
                progress(f"{pos.players[advised].name}: advice")
            try:
                out.advice = advise(pos, advised, continuations, rounds).to_json()
            except OutOfTime:
                out.advice = {"player": pos.players[advised].name, "estimate": True, "unfinished": True}
    out.players = players
    out.flows = flow_table(pos)
    return out
