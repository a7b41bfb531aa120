"""Phase I: rescuing fallen canoes (R-RESCUE) and choosing cards (R-CARD), up to the start of phase II."""

from __future__ import annotations

import dataclasses

from itertools import combinations_with_replacement
from typing import Mapping

from niagara_solver.model.readings import require
from niagara_solver.model.errors import IllegalTurnError, PhaseError
from niagara_solver.model.atoms import PORT, Card, Colour, Phase
from niagara_solver.model.position import Player, Position
from niagara_solver.model.ruleset import RescueLimit, RescueWhenNone
from niagara_solver.model.notation import Rescue


def must_rescue(player: Player) -> bool:
    """R-RESCUE-2: a player with no canoe in the port or on the river must bring one back."""
    return not player.canoes_in_play


def rescue_options(pos: Position, index: int) -> list[Rescue]:
    """Every distinct rescue decision of a player at the start of phase I (R-RESCUE-1..4).

    Each fallen canoe may be brought back for one banked gem of the player's choice. A player with no
    canoe in play must bring one back: paying if they can, free otherwise (``rescue_when_none:
    pay_or_free``), or always free (``free``); the other fallen canoe may then be bought back too, unless
    ``rescue_limit: one`` keeps it in the falls until a later round (R-RESCUE-4).
    """
    require(pos.ruleset, "engine")
    player = pos.players[index]
    fallen = sum(1 for c in player.canoes if c.fallen)
    if fallen == 0:
        return [Rescue()]
    colours = list(player.bank.colours())

    def paid(count: int, first: tuple[Colour | None, ...] = ()) -> list[Rescue]:
        options = []
        for combo in combinations_with_replacement(colours, count):
            need = player.bank
            ok = True
            for colour in combo:
                need = need.minus(colour)
                ok = ok and need.get(colour) >= 0
            if ok:
                options.append(Rescue((*first, *combo)))
        return options

    if not must_rescue(player):
        return [Rescue(), *paid(1)]
    free_rescue = pos.ruleset.rescue_when_none is RescueWhenNone.FREE or player.bank.total == 0
    second = pos.ruleset.rescue_limit is RescueLimit.EACH  # R-RESCUE-4: may the other canoe come back too?
    if free_rescue:
        # One canoe comes back for free; the second may still be bought back with a gem.
        return [*_which(player, [Rescue((None,))]), *(paid(1, (None,)) if second else [])]
    return [*_which(player, paid(1)), *(paid(2) if second else [])]


def _which(player: Player, rescues: list[Rescue]) -> list[Rescue]:
    """One canoe back of two fallen ones: with a single and a double canoe, the player says which (X-DOUBLE-4)."""
    kinds = sorted({c.kind.value for c in player.canoes if c.fallen})
    if len(kinds) < 2:
        return rescues
    return [dataclasses.replace(r, canoe=kind) for r in rescues for kind in kinds]


def apply_rescue(pos: Position, index: int, rescue: Rescue) -> Position:
    """The position after a player's rescue decision; :class:`IllegalTurnError` if it is not allowed."""
    require(pos.ruleset, "engine")
    if pos.phase is not Phase.CARDS:
        raise PhaseError("rescues happen at the start of phase I, before any card is chosen", "R-RESCUE-1")
    if rescue not in rescue_options(pos, index):
        player = pos.players[index]
        options = ", ".join(str(r) for r in rescue_options(pos, index))
        fallen = sum(1 for c in player.canoes if c.fallen)
        rule = "R-RESCUE-2" if must_rescue(player) else "R-RESCUE-1"
        if rescue.payments and None in rescue.payments and not must_rescue(player):
            reason = "a rescue is free only for a player with no canoe in play"
        elif len(rescue.payments) > fallen:
            reason = f"{player.name} has {fallen} fallen canoe(s)"
        elif len(rescue.payments) > 1 and pos.ruleset.rescue_limit is RescueLimit.ONE:
            reason, rule = "a player brings back at most one canoe a round (rescue_limit: one)", "R-RESCUE-4"
        else:
            reason = "not a possible decision"
        if rule != "R-RESCUE-4" and None in rescue.payments:
            rule = "R-RESCUE-3"
        raise IllegalTurnError(f"rescue {rescue} for {player.name}: {reason}; possible: {options}", rule)
    if not rescue.payments:
        return pos
    player = pos.players[index]
    caves = list(pos.caves)
    bank = player.bank
    canoes = list(player.canoes)
    for payment in rescue.payments:
        if payment is not None:
            bank = bank.minus(payment)
            caves[payment - 1] = caves[payment - 1].plus(payment)  # the gem goes back to its own cave
        back = [k for k, c in enumerate(canoes) if c.fallen and rescue.canoe in (None, c.kind.value)]
        canoes[back[0]] = dataclasses.replace(canoes[back[0]], place=PORT)  # back, empty, to the port
    rescued = dataclasses.replace(player, canoes=tuple(canoes), bank=bank)
    return pos.with_player(index, rescued).replace(caves=tuple(caves))


def begin_turns(pos: Position, rescues: Mapping[int, Rescue] | None = None,
                cards: Mapping[int, Card] | None = None) -> Position:
    """Phase I: apply rescues in seat order from the lifebuoy holder, then record the chosen cards.

    Players not in ``rescues`` make no rescue (which is refused when R-RESCUE-2 forces one with a choice
    of gem; a forced free rescue is applied). Cards not given stay hidden (a free choice for solvers).
    """
    if pos.phase is not Phase.CARDS:
        raise PhaseError("phase I happens at the start of a round")
    rescues = dict(rescues or {})
    cards = dict(cards or {})
    for i in pos.turn_order():  # R-RESCUE-1: in seat order from the lifebuoy holder, openly
        decision = rescues.get(i)
        if decision is None:
            options = rescue_options(pos, i)
            if len(options) == 1:
                decision = options[0]
            elif must_rescue(pos.players[i]):
                raise IllegalTurnError(f"{pos.players[i].name} has no canoe in play and must rescue one; "
                                       f"choose among {', '.join(str(r) for r in options)}", "R-RESCUE-2")
            else:
                decision = Rescue()
        pos = apply_rescue(pos, i, decision)
    players = list(pos.players)
    for i, card in cards.items():
        player = players[i]
        if player.card is not None and player.card != card:
            raise IllegalTurnError(f"{player.name} already chose {player.card.label}", "R-CARD-1")
        if card not in player.hand:
            raise IllegalTurnError(f"{card.label} is not in {player.name}'s hand", "R-CARD-2")
        players[i] = Player(player.name, player.canoes, player.hand, player.bank, card)
    return pos.replace(players=tuple(players), phase=Phase.TURNS, acted=())
