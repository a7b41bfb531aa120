"""``niagara-solve why``: is this turn legal, and if not, which rules forbid it.

The position and the turn are pinned in the encoding; every rule group is asserted under a literal of its
own (:func:`~niagara_solver.encoding.explain.explain_turn`, which the certificate check asks too, so both name the
same rules). A legal turn is satisfiable and its result is decoded. An illegal one is unsatisfiable, and the unsat
core, minimised (no rule in it can be dropped), names the rules that together forbid it. The engine's own
verdict on the same turn is shown beside it, and a disagreement is reported as such.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from niagara_solver.engine.apply import CanoeReport, apply_turn
from niagara_solver.model.notation import Move, Push, Steal, Turn
from niagara_solver.model.errors import InvalidTurnError, NiagaraError, TurnError, quoted
from niagara_solver.encoding.explain import LEGAL, UNKNOWN, explain_turn
from niagara_solver.encoding.relations import Relations
from niagara_solver.model.atoms import FALLEN, FALLS, PORT, Card
from niagara_solver.model.catalogue import sentence
from niagara_solver.model.format import position_to_json
from niagara_solver.model.position import Player, Position


@dataclass
class WhyResult:
    """The answer: legal with its result, or the rules that forbid the turn."""

    turn: Turn
    player: str
    card: Card
    legal: bool
    rules: list[str] = field(default_factory=list)
    also: list[list[str]] = field(default_factory=list)
    after: Position | None = None
    engine: str = ""
    agree: bool = True
    detail: str = ""
    #: What each acting canoe did (the engine's account: spent, loaded, unloaded, banked, stolen), when legal.
    canoes: tuple[CanoeReport, ...] = ()

    @property
    def explanations(self) -> list[tuple[str, str]]:
        return [(r, sentence(r)) for r in self.rules]

    @property
    def exit_status(self) -> int:
        """0 when the engine and the encoding agree (legal or not: both are answers), 1 when they disagree."""
        return 0 if self.agree else 1

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"turn": str(self.turn), "player": self.player, "card": self.card.to_json(),
                               "legal": self.legal, "engine": self.engine, "agree": self.agree}
        if self.legal and self.after is not None:
            out["position"] = position_to_json(self.after)
            out["canoes"] = [{"start": r.start, "end": r.end, "spent": r.spent,
                              "loaded": [c.label for c in r.loaded], "unloaded": [c.label for c in r.unloaded],
                              "banked": [c.label for c in r.banked],
                              "stolen": [{"from": v, "gem": c.label} for v, c in r.stolen]} for r in self.canoes]
        else:
            out["rules"] = [{"id": r, "rule": s} for r, s in self.explanations]
            out["also"] = [[{"id": r, "rule": sentence(r)} for r in core] for core in self.also]
            if self.detail:
                out["detail"] = self.detail
        return out


#: The places a turn may name that are not discs: what the rules say of them (a canoe paddling over the falls,
#: a fallen canoe acting) is a rule's answer, not a misspelt name.
_PLACES = (PORT, FALLEN, FALLS)


def check_names(pos: Position, turn: Turn) -> None:
    """Every disc a turn names is a disc of the river, every victim a player of the game.

    A name that does not exist is a mistake in writing the turn, not a rule it breaks: it is refused as such
    (:class:`InvalidTurnError`, naming it and what exists), before any rule is asked."""
    discs = set(pos.board.discs)
    names = [p.name for p in pos.players]
    for k, action in enumerate(turn.actions, start=1):
        where = f"canoe action {k} ({quoted(str(action))})"
        places = [action.canoe.place, *(s.dest for s in action.steps if isinstance(s, (Move, Push)))]
        for place in places:
            if place not in discs and place.lower() not in _PLACES:
                shown = ", ".join(pos.board.discs[:12]) + (", ..." if len(discs) > 12 else "")
                raise InvalidTurnError(f"{where}: no such disc {quoted(place)} on this river; its discs: {shown}")
        for step in action.steps:
            if isinstance(step, Steal) and step.victim not in names:
                raise InvalidTurnError(f"{where}: no player is named {quoted(step.victim)}; the players: "
                                       f"{', '.join(names)}")


def why(pos: Position, player: int, card: Card, turn: Turn, timeout: float | None = 30) -> WhyResult:
    """Explain whether ``player`` may play ``turn`` with ``card`` in ``pos`` (a phase II position)."""
    me = pos.players[player]
    check_names(pos, turn)
    result = WhyResult(turn, me.name, card, legal=False)
    try:
        engine_result = apply_turn(pos, player, turn, card)
        engine_after = engine_result.position
        result.canoes = engine_result.canoes
        result.engine = "the engine accepts it"
    except TurnError as err:
        engine_after = None
        result.engine = f"the engine refuses it: {err}"
    except NiagaraError as err:
        engine_after = None
        result.engine = f"the engine refuses it: {err}"
    relations = Relations.of(pos)
    explained = explain_turn(relations, pos, player, card, turn, timeout)
    if explained.answer == LEGAL:
        assert explained.model is not None and explained.step is not None
        result.legal = True
        after = relations.decode_position(explained.model, explained.step.post, pos)
        # The decoded canoes are in the pinned order; decode_position re-sorts them canonically.
        revealed = tuple(Player(p.name, a.canoes, a.hand, a.bank, a.card) if i == player else
                         Player(p.name, a.canoes, p.hand, a.bank, p.card)
                         for i, (p, a) in enumerate(zip(pos.players, after.players)))
        result.after = after.replace(players=revealed, acted=(*pos.acted, player))
        result.agree = engine_after is not None and _same(engine_after, result.after)
        return result
    result.detail = explained.detail
    if explained.answer == UNKNOWN:
        result.agree = True
        return result
    result.rules, result.also = explained.rules, explained.also
    result.agree = engine_after is None
    return result


def _same(a: Position, b: Position) -> bool:
    return a.caves == b.caves and a.weather == b.weather and all(
        x.canoes == y.canoes and x.bank == y.bank for x, y in zip(a.players, b.players))
