"""Every distinct legal turn of a player with a card (phase II: R-TURN, R-CARD, R-WEATHER, and the expansion's cards).

:func:`legal_turns` lists one turn per distinct resulting position (the first found, in a fixed order). This module
decides the turn as a whole: whether it is the player's moment and card (R-TURN-1, R-CARD), the card revealed,
the cloud's weather step (R-TURN-2), the Lasso (X-CARDS-4), the moose taken before either (X-MOOSE-1), and which
canoes act with a paddle card (R-TURN-3, X-CARDS-3). The canoes' actions come from the turn generator of
:mod:`.paddling`, which asks :mod:`.canoe` what each rule allows.

The module :mod:`.apply` checks a given turn rule by rule; the two are independent readings of the rules and the
tests hold them to the same answers (and hold the generator to its slow reference, tests/reference_turns.py, and to
a brute force over the notation, tests/brute.py).
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

from niagara_solver.engine.canoe import TAKE_MOOSE, canoe_ref, may_take_moose
from niagara_solver.engine.outcome import TurnOutcome
from niagara_solver.engine.paddling import paddle_outcomes
from niagara_solver.engine.values import evolve
from niagara_solver.model.atoms import Card, Moose, Phase
from niagara_solver.model.errors import IllegalTurnError, PhaseError
from niagara_solver.model.notation import CanoeAction, CanoeRef, Turn
from niagara_solver.model.position import Player, Position
from niagara_solver.model.readings import require
from niagara_solver.model.ruleset import Card123Canoes, LassoScope, PortDeparture


def acting_sets(player: Player, rules_port_departure: PortDeparture) -> list[tuple[int, ...]]:
    """Which of the player's canoes act with a paddle card (R-TURN-3), as index tuples.

    A canoe on the river always acts. With one canoe on the river and one in the port, the port canoe
    may act or stay; with both in the port exactly one acts (``port_departure``: or at most one); a lone
    port canoe may act or stay. Two canoes in the port are interchangeable, so only the first is offered.
    """
    river = tuple(i for i, c in enumerate(player.canoes) if c.on_river)
    port = [i for i, c in enumerate(player.canoes) if c.in_port]
    if len(port) == 2:
        # Two alike port canoes are one choice; a single and a double canoe are two (X-DOUBLE-1).
        leaving: list[tuple[int, ...]] = ([(port[0],)] if player.canoes[port[0]] == player.canoes[port[1]]
                                          else [(port[0],), (port[1],)])
        if rules_port_departure is PortDeparture.AT_MOST_ONE:
            return [(), *leaving]
        return leaving
    if len(port) == 1:
        return [river, (*river, port[0])]
    return [river]


def check_turn_context(pos: Position, player: int, card: Card | None) -> Card:
    """The card a player acts with, after checking it is their moment to act (R-ROUND-1, R-TURN-1, R-CARD)."""
    require(pos.ruleset, "engine")
    if card is not None and not isinstance(card, Card):
        card = Card.parse(card)  # a paddle given as its value
    if pos.phase is not Phase.TURNS:
        raise PhaseError("turns are taken in phase II: this position is at the start of a round; resolve "
                         "phase I (rescues and cards) first")
    me = pos.players[player]
    if player in pos.acted:
        raise IllegalTurnError(f"{me.name} has already acted this round", "R-TURN-1")
    if card is None:
        card = me.card
        if card is None:
            raise IllegalTurnError(f"{me.name}'s card is not known: say which card is played", "R-CARD-1")
    elif me.card is not None and me.card != card:
        raise IllegalTurnError(f"{me.name} chose {me.card.label} this round, not {card.label}", "R-CARD-1")
    if card not in me.hand:
        raise IllegalTurnError(f"{card.label} is not in {me.name}'s hand ({', '.join(c.label for c in me.hand)})",
                               "R-CARD-2")
    return card


def after_reveal(pos: Position, player: int, card: Card, budget: int | None = None) -> Position:
    """The position once ``player`` revealed ``card``: the card leaves the hand (R-CARD-2, R-TURN-1), the player has
    acted; with the 1/2/3 card the chosen ``budget`` is recorded (X-CARDS-3)."""
    me = pos.players[player]
    played = evolve(me, hand=tuple(c for c in me.hand if c != card), card=card, card_budget=budget)
    return evolve(pos, players=(*pos.players[:player], played, *pos.players[player + 1:]),
                  acted=(*pos.acted, player))


def weather_moved(pos: Position, step: int) -> Position:
    """The cloud moves the weather one step (R-TURN-2); to +2, it brings the beaver onto the top disc when the
    beaver is not on the river (X-BEAVER-1)."""
    weather = pos.weather + step
    if pos.ruleset.x_beaver and weather == 2 and pos.beaver is None:
        return evolve(pos, weather=weather, beaver=pos.board.top)
    return evolve(pos, weather=weather)


def moose_options(pos: Position, player: int, revealed: Position) -> list[tuple[tuple[CanoeAction, ...], Position]]:
    """Before a cloud or a Lasso (X-MOOSE-1): take no moose, or let one canoe of the player on a last disc take the
    waiting moose; each with the position it leaves."""
    options: list[tuple[tuple[CanoeAction, ...], Position]] = [((), revealed)]
    taken: set[Position] = set()
    mine = revealed.players[player]
    for k, canoe in enumerate(mine.canoes):
        if may_take_moose(revealed.moose, canoe.place, pos.board.brinks, canoe.moored):
            canoes = tuple(dataclasses.replace(c, moose=True) if i == k else c for i, c in enumerate(mine.canoes))
            after = revealed.with_player(player, dataclasses.replace(mine, canoes=canoes)).replace(moose=Moose.HELD)
            if after not in taken:
                taken.add(after)
                options.append(((CanoeAction(canoe_ref(pos, player, k), (TAKE_MOOSE,)),), after))
    return options


def lasso_outcomes(pos: Position, player: int, revealed: Position) -> list[TurnOutcome]:
    """The Lasso (X-CARDS-4): no canoe paddles; the player's canoes on the river are moored, all of them
    (``lasso_scope: all``) or one chosen (``one``; none when none is on the river)."""
    me = pos.players[player]
    river = [k for k, c in enumerate(me.canoes) if c.on_river]
    if pos.ruleset.lasso_scope is LassoScope.ALL or not river:
        choices: list[tuple[CanoeRef | None, tuple[int, ...]]] = [(None, tuple(river))]
    else:
        choices = [(canoe_ref(pos, player, k), (k,)) for k in river]
    outcomes: dict[Position, TurnOutcome] = {}
    for ref, moored in choices:  # the canoes as revealed, the moose taken or not (X-MOOSE-1)
        canoes = tuple(dataclasses.replace(c, moored=True) if k in moored else c
                       for k, c in enumerate(revealed.players[player].canoes))
        after = revealed.with_player(player, dataclasses.replace(revealed.players[player], canoes=canoes))
        outcomes.setdefault(after, TurnOutcome(Turn(lasso=True, moored=ref), after))
    return sorted(outcomes.values(), key=lambda o: str(o.turn))


def card_123_sets(player: Player, rules_port_departure: PortDeparture, scope: Card123Canoes) -> list[tuple[int, ...]]:
    """Which canoes act with the 1/2/3 card (X-CARDS-3): with ``card_123_canoes: one`` exactly one of the canoes
    R-TURN-3 lets act (a port canoe too, with the other on the river), or none only where R-TURN-3 lets none act;
    with ``all`` the canoes of R-TURN-3."""
    sets = acting_sets(player, rules_port_departure)
    if scope is Card123Canoes.ALL:
        return sets
    none: list[tuple[int, ...]] = [()] if () in sets else []
    return none + sorted({(i,) for acting in sets for i in acting})


def acting_orders(player: Player, sets: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """The orders in which the canoes of each acting set may act (R-TURN-4: each finishes before the next starts, in
    the order the player chooses): two canoes in either order, unless they are alike."""
    orders = []
    for acting in sets:
        orders.append(acting)
        if len(acting) == 2 and player.canoes[acting[0]] != player.canoes[acting[1]]:
            orders.append((acting[1], acting[0]))
    return orders


class PaddleQuery(NamedTuple):
    """One budget a paddle card gives (X-CARDS-3: the 1/2/3 card gives three), the canoes that may act with it, and
    the position once the card is revealed: what the turn generator is asked."""

    budget: int
    #: The canoes that may act, in the orders they may act in: tuples of canoe indices (:func:`acting_orders`).
    orders: list[tuple[int, ...]]
    revealed: Position
    #: The budget named with the 1/2/3 card ("as 2"), None for a paddle 1..7.
    chosen: int | None


def paddle_queries(pos: Position, player: int, card: Card) -> list[PaddleQuery]:
    """The questions a paddle card (1..7, or the 1/2/3 card) asks of the turn generator, one per budget."""
    rules = pos.ruleset
    me = pos.players[player]
    if card is Card.ONE_TWO_THREE:
        orders = acting_orders(me, card_123_sets(me, rules.port_departure, rules.card_123_canoes))
        return [PaddleQuery(budget, orders, after_reveal(pos, player, card, budget), budget) for budget in card.budgets]
    orders = acting_orders(me, acting_sets(me, rules.port_departure))
    return [PaddleQuery(int(card), orders, after_reveal(pos, player, card), None)]


def cloud_or_lasso_turns(pos: Position, player: int, card: Card) -> list[TurnOutcome]:
    """The turns of the cloud and the Lasso, where no canoe paddles: the weather one step up or down within its range
    (R-TURN-2, R-WEATHER-1), or canoes moored (X-CARDS-4); either after the moose taken or not (X-MOOSE-1)."""
    rules = pos.ruleset
    outcomes: list[TurnOutcome] = []
    for take, revealed in moose_options(pos, player, after_reveal(pos, player, card)):
        if card is Card.LASSO:
            outcomes += [TurnOutcome(dataclasses.replace(o.turn, actions=take), o.position)
                         for o in lasso_outcomes(pos, player, revealed)]
        else:
            outcomes += [TurnOutcome(Turn(take, weather=step), weather_moved(revealed, step))
                         for step in (1, -1) if rules.weather_min <= pos.weather + step <= rules.weather_max]
    return outcomes


def legal_turns(pos: Position, player: int, card: Card | None = None) -> list[TurnOutcome]:
    """Every distinct legal turn of ``player`` with ``card`` (default: the card they chose), in phase II.

    One :class:`TurnOutcome` per distinct resulting position, sorted by notation (paddle turns by the number of
    canoe actions, then notation, for each budget of the card in turn)."""
    card = check_turn_context(pos, player, card)
    if card is Card.CLOUD or card is Card.LASSO:
        return cloud_or_lasso_turns(pos, player, card)
    outcomes: list[TurnOutcome] = []
    for query in paddle_queries(pos, player, card):
        outcomes += paddle_outcomes(pos, player, *query)
    return outcomes


def count_turns(pos: Position, player: int, card: Card | None = None) -> int:
    """The number of distinct legal turns (the size of :func:`legal_turns`)."""
    return len(legal_turns(pos, player, card))
