"""Lower bounds on the rounds before a target can hold (docs/GAMES.md, "Bounds"): what lets the whole-game search
drop a position that cannot reach the target within the rounds left, without changing any answer.

Each bound is admissible: from a position at the start of a round, no play reaches the target in fewer rounds. They
rest on the solver's bound on banking (:func:`..solver.answers.bank_reach`, tested sound in tests/test_bank_reach.py):
a gem reaches a bank only in its owner's canoe entering the port (R-GEM-5, R-MOVE-5), and ``bank_reach(pos, x, k)``
is at least what player ``x`` can bank within ``k`` rounds. A bank grows only by banking (a rescue pays from it,
R-RESCUE-1), so a bank of ``n`` gems needs at least the fewest ``k`` whose reach covers the gems missing, and the
goal (R-END-1) the fewest ``k`` at which :func:`..solver.answers.could_reach_goal` allows it. With expansion
modules (:data:`RELAXED_MODULES`) the gems banked are :func:`module_reach`'s, a wider relaxation; with Joe every bound
is 0.

From a query (``Query`` of :mod:`..model.query`): ``goal(P)``, ``winner(P)`` (a winner has reached the goal,
R-END-2), ``game_over`` (some player has), ``bank(P[, colour]) >= n`` (also ``>``, ``==`` and the comparison turned
round); ``and`` takes the largest of its parts' bounds, ``or`` the smallest; ``any`` the smallest over the players,
``all`` the largest; anything else (``not``, ``that``, other counts) 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from typing import Callable, Sequence

from niagara_solver.model.atoms import FALLEN, PORT, Card, Colour, Phase
from niagara_solver.model.board import Board
from niagara_solver.model.limits import MAX_REACH_ROUNDS
from niagara_solver.model.position import Position, start_hand
from niagara_solver.model.query import And, Compare, Count, Flag, Node, Number, Or, Query, Who
from niagara_solver.model.ruleset import ForkPolicy, PortDeparture, Ruleset
from niagara_solver.solver.answers import bank_reach, could_reach_goal, relaxed_flow, relaxed_turn

#: The bound where no number of rounds up to the search's limit suffices: one more than the most rounds a search
#: looks ahead, still a lower bound.
BEYOND = MAX_REACH_ROUNDS + 1


def reach_within(pos: Position, x: int, rounds: int, cap: int) -> int:
    """An upper bound on the gems player ``x`` banks within ``rounds`` rounds from ``pos`` (at the start of a round),
    counted up to ``cap``: the smaller of :func:`bank_reach` and the player's relaxation (:func:`player_reach`); with
    expansion modules, :func:`module_reach`."""
    if pos.ruleset.modules:
        return module_reach(pos, x, rounds)
    loose = bank_reach(pos, x, rounds)
    if loose < cap or pos.phase is not Phase.CARDS or pos.players[x].card is not None:
        return loose  # (short of ``cap`` already: the tighter one is too)
    return min(loose, player_reach(pos, x, rounds, cap))


def banked_within(pos: Position, x: int, rounds: int) -> int:
    """An upper bound on the gems player ``x`` banks within ``rounds`` rounds from ``pos`` (a position at the start of
    a round or within one), for the rules :func:`bounded` accepts: :func:`bank_reach` keeping one departure from the
    port and the hand (R-TURN-3, R-CARD-2) in the base game, :func:`module_reach` with expansion modules."""
    if pos.ruleset.modules:
        return module_reach(pos, x, rounds)
    return bank_reach(pos, x, rounds, one_departure=True, own_hand=True)


#: The expansion modules :func:`module_reach` reads. Joe (``x_joe``) is not among them: a trade hands a canoe a gem
#: outside its gem actions and its steal (X-JOE-3), which the relaxation does not follow; with Joe there is no bound.
RELAXED_MODULES = frozenset({"x_cards", "x_double", "x_whirl", "x_beaver", "x_moose", "x_sixth_player"})


def bounded(rules: Ruleset) -> bool:
    """Do the bounds here read these rules' movement: the base game's, or modules :func:`module_reach` covers?"""
    return set(rules.modules) <= RELAXED_MODULES


def module_reach(pos: Position, x: int, rounds: int) -> int:
    """An upper bound on the gems player ``x`` banks within ``rounds`` rounds from ``pos`` (this round included) with
    expansion modules (:data:`RELAXED_MODULES`): :func:`..solver.answers.bank_reach`'s relaxation, each canoe alone,
    widened to what the modules allow, and R-TURN-3's one departure kept.

    A gem still reaches a bank only in its owner's canoe entering the port in its own action, at most the canoe's
    capacity (R-MOVE-5, R-GEM-5; the double canoe 2 and banking all it carries, X-DOUBLE-1, X-DOUBLE-4), and no
    module moves a canoe upstream but its own movement: the flow, a whirlpool's push (X-WHIRL-2, X-WHIRL-4) and a
    Lasso's put-back (X-CARDS-4) leave it on its disc or carry it down, which the relaxed flow covers (any number of
    discs down any branch, or none; over the falls and back to the port, empty, free). Widened:

    * every round any budget from 1 to the largest a card gives (the 7, X-CARDS-2), 2 more with the moose
      (X-MOOSE-2), whatever the hand: the 1/2/3 card's budgets, a whirlpool step costing 2 (X-WHIRL-3: the same path
      with fewer points) and the points X-WHIRL-5 loses are all among them, and a canoe may always not act (the
      cloud, the Lasso, a canoe X-CARDS-3 leaves out);
    * a stop may fill the canoe with stolen gems (X-DOUBLE-3: up to its free places), and the double canoe's gem
      actions are any loads and unloads at 2 points each (X-DOUBLE-2; ``double_one_cave`` not kept).

    Kept: of two canoes in the port, at most one leaves it this round (R-TURN-3; the other starts a round later),
    when ``x`` has not acted; a canoe that acted this round is only carried by this round's flow."""
    me = pos.players[x]
    rules, board = pos.ruleset, pos.board
    top = (7 if rules.x_cards else 6) + (2 if rules.x_moose else 0)
    acted = x in pos.acted
    canoes = [(PORT if c.place == FALLEN else c.place, len(c.gems), c.capacity(rules.capacity)) for c in me.canoes]
    if not acted and len(me.canoes) == 2 and all(c.place == PORT for c in me.canoes):
        (_, _, one), (_, _, two) = canoes
        leaving = _module_reach(board, one, top, (PORT, 0), rounds) + _module_reach(board, two, top, (PORT, 0),
                                                                                    rounds - 1)
        staying = _module_reach(board, two, top, (PORT, 0), rounds) + _module_reach(board, one, top, (PORT, 0),
                                                                                   rounds - 1)
        return max(leaving, staying)
    total = 0
    for place, carried, cap in canoes:
        if acted:
            if rounds > 1:
                total += max(_module_reach(board, cap, top, f, rounds - 1)
                             for f in relaxed_flow(board, (place, carried)))
        else:
            total += _module_reach(board, cap, top, (place, carried), rounds)
    return total


@lru_cache(maxsize=1 << 14)
def _module_reach(board: Board, cap: int, top: int, state: tuple[str, int], rounds: int) -> int:
    """The most one canoe (place and cargo) of capacity ``cap`` banks in ``rounds`` rounds of :func:`module_reach`'s
    relaxation, its action first (any budget 1..``top``, or none), each round ending with the flow."""
    if rounds <= 0:
        return 0
    best = 0
    if rounds > 1:  # the canoe does not act this round
        best = max(_module_reach(board, cap, top, f, rounds - 1) for f in relaxed_flow(board, state))
    for budget in range(1, top + 1):
        for after, banked in _module_turn(board, cap, state, budget):
            gained = banked
            if rounds > 1:
                gained += max(_module_reach(board, cap, top, f, rounds - 1) for f in relaxed_flow(board, after))
            best = max(best, gained)
    return best


@lru_cache(maxsize=1 << 16)
def _module_turn(board: Board, cap: int, state: tuple[str, int], budget: int) -> tuple[tuple[tuple[str, int], int],
                                                                                       ...]:
    """:func:`..solver.answers.relaxed_turn` (``must_move`` off: staying is among the options), where any stop on the
    river may also fill the canoe with stolen gems (X-DOUBLE-3)."""
    out = set(relaxed_turn(board, cap, False, state, budget))
    out |= {((place, cap), banked) for (place, cargo), banked in out if place != PORT and cargo < cap}
    return tuple(sorted(out))


def lost_reach(pos: Position, x: int, rounds: int) -> int:
    """An upper bound on the gems that go over the falls on player ``x``'s canoes within ``rounds`` round ends from
    ``pos`` (the end of the round under way the first), in the base game (no expansion module): the player's
    relaxation of falls (:class:`_Falls`)."""
    return _lost(pos, x, rounds, _flow_cap(pos) if pos.phase is Phase.TURNS else None)


def _lost(pos: Position, x: int, rounds: int, now: int | None) -> int:
    """:func:`lost_reach`, this round's flow at most ``now`` if given (:func:`_flow_cap`)."""
    me = pos.players[x]
    falls = _falls_of(pos)
    canoes = tuple(sorted((c.place, len(c.gems)) for c in me.canoes))
    bank = min(me.bank.total, _BANK_CAP)
    hand = _values(me.hand)
    weather = _weather_cap(pos, x, rounds)
    if x in pos.acted:  # only this round's flow is left of it
        played = _value(me.card) if me.card is not None else 0
        # (a cloud played has moved the weather already: the relaxation's step for it is not taken again)
        return falls.after_turn(canoes, bank, hand, played, rounds, weather - (played == 0), now)
    if pos.phase is Phase.CARDS and not pos.acted:  # the rescues of phase I to come
        return falls.round_start(canoes, bank, hand, rounds, weather)
    if me.card is not None:  # a card chosen, the turn to come
        return falls.turns(canoes, bank, (_value(me.card),), hand, rounds, weather, now)
    return falls.turns(canoes, bank, hand, hand, rounds, weather, now)


def lost_together(pos: Position, seats: Sequence[int], rounds: int) -> int:
    """An upper bound on the gems that go over the falls on the canoes of ``seats`` within ``rounds`` round ends from
    ``pos``: the sum of :func:`lost_reach`'s, except at the start of a round, every player counted, for up to
    :data:`TOGETHER_MAX` players: there the round's flow is one for all (R-FLOW-1: the smallest paddle the players
    choose, plus the weather with a step per cloud among them), so the bound is the most, over every choice of one
    card per player (R-CARD-1), of what each player's relaxation loses with that card and at most that flow in the
    round, and as :func:`lost_reach` has it in the rounds after."""
    players = len(pos.players)
    if pos.phase is not Phase.CARDS or pos.acted or sorted(seats) != list(range(players)) or players > TOGETHER_MAX \
            or not all(p.hand for p in pos.players):
        now = _flow_cap(pos) if pos.phase is Phase.TURNS else None
        return sum(_lost(pos, s, rounds, now) for s in seats)
    rules = pos.ruleset
    falls = _falls_of(pos)
    states = []
    for x, me in enumerate(pos.players):
        canoes = tuple(sorted((c.place, len(c.gems)) for c in me.canoes))
        states.append((falls._rescues(canoes, min(me.bank.total, _BANK_CAP)), _values(me.hand),
                       _weather_cap(pos, x, rounds)))
    best = 0
    for cards in product(*(sorted(set(hand)) for _, hand, _ in states)):
        paddles = [c for c in cards if c]
        flow = max((min(paddles) if paddles else 0)
                   + min(rules.weather_max, pos.weather + len(cards) - len(paddles)), rules.min_flow)
        total = 0
        for (rescued, hand, weather), card in zip(states, cards):
            total += max(falls.turns(after, paid, (card,), hand, rounds, weather, flow) for after, paid in rescued)
        best = max(best, total)
    return best


#: The most players :func:`lost_together` reads together (a choice of card each: 7 ** 3 at most).
TOGETHER_MAX = 3


def _flow_cap(pos: Position) -> int:
    """The longest flow of the round under way (phase II, every card chosen, R-CARD-1): the smallest paddle chosen
    (R-FLOW-1; 0 if only clouds; a card not given may be any of its player's hand) plus the weather with a step up
    for each player still to act who may play a cloud (R-WEATHER-1), at least ``min_flow`` (R-FLOW-2)."""
    rules = pos.ruleset
    paddles: list[int] = []
    clouds = 0
    for i, player in enumerate(pos.players):
        cards = [player.card] if player.card is not None else list(player.hand)
        values = [_value(c) for c in cards]
        if any(values):
            paddles.append(max(values))
        clouds += i not in pos.acted and 0 in values
    weather = min(rules.weather_max, pos.weather + clouds)
    return max((min(paddles) if paddles else 0) + weather, rules.min_flow)


def _weather_cap(pos: Position, x: int, rounds: int) -> int:
    """The most the weather can be within ``rounds`` rounds from ``pos`` before player ``x`` plays its cloud: a cloud
    moves it one step (R-WEATHER-1) and the other players have their clouds, the one in the hand (or chosen) and one
    more each if the hand may be played out and refilled in time (R-CARD-2), all counted as played at once (a cloud
    already played this round is in the weather now)."""
    clouds = 0
    for i, other in enumerate(pos.players):
        if i != x:
            # (a card played has left the hand and moved the weather already; the cloud is a false card: None is asked)
            chosen = () if other.card is None or i in pos.acted else (other.card,)
            clouds += any(_value(c) == 0 for c in (*other.hand, *chosen))
            clouds += len(other.hand) <= rounds
    return min(pos.ruleset.weather_max, pos.weather + clouds)


#: The most banked gems the relaxation of falls counts: enough to pay a rescue of each canoe in each of the rounds
#: any search here looks ahead (one gem each, R-RESCUE-1).
_BANK_CAP = 2 * MAX_REACH_ROUNDS


@lru_cache(maxsize=None)
def _value(card: Card) -> int:
    """A base game card's paddle value, 0 for the cloud (R-TURN-2)."""
    return max(card.budgets, default=0)


@lru_cache(maxsize=4096)
def _values(hand: tuple[Card, ...]) -> tuple[int, ...]:
    return tuple(sorted(_value(c) for c in hand))


def _falls_of(pos: Position) -> "_Falls":
    """The relaxation of falls of the position's board and rules."""
    key = (pos.board, pos.ruleset)
    known = _GAMES.get(key)
    if known is None:
        if len(_GAMES) >= 16:
            _GAMES.clear()
        rules = pos.ruleset
        known = _GAMES[key] = _falls(pos.board, rules.capacity, rules.port_departure is PortDeparture.AT_MOST_ONE,
                                     _values(start_hand(rules)), rules.fork_policy is ForkPolicy.ALTERNATE,
                                     rules.min_flow)
    return known


#: The relaxation of falls by board and rules (:func:`_falls_of`).
_GAMES: dict[tuple[Board, Ruleset], "_Falls"] = {}


def _falls(board: Board, cap: int, may_stay: bool, full: tuple[int, ...], alternate: bool, least: int) -> "_Falls":
    key = (board, cap, may_stay, full, alternate, least)
    known = _FALLS.get(key)
    if known is None:
        if len(_FALLS) >= 16:
            _FALLS.clear()
        known = _FALLS[key] = _Falls(board, cap, may_stay, full, alternate, least)
    return known


#: The relaxation of falls per board, capacity, ``port_departure``, full hand, ``fork_policy`` and ``min_flow``, its
#: values kept.
_FALLS: dict[tuple[Board, int, bool, tuple[int, ...], bool, int], "_Falls"] = {}

#: A canoe as the relaxation of falls reads it: its place (``port``, ``fallen`` or a disc) and its cargo.
_Canoe = tuple[str, int]


class _Falls:
    """The most gems a player's two canoes take over the falls in some rounds, in a relaxation of the base game that
    every real play of the player is one of:

    * the player's own rules kept: one card a round from its own hand, each once until the hand is empty and
      refilled (R-CARD-1, R-CARD-2); with the cloud no canoe acts (R-TURN-2); with a paddle every canoe on the river
      acts and, of two in the port, exactly one (``at_most_one``: at most one) leaves (R-TURN-3);
    * each canoe's action relaxed as :func:`..solver.answers.relaxed_turn` relaxes it (caves never empty, a canoe
      stopping empty may take a gem: every load and steal there is), banking what it brings home (R-MOVE-5);
    * the flow: the same ``k`` for both canoes (R-FLOW-3), any ``k`` from ``min_flow`` to the player's own paddle
      value + the weather's cap — the smallest paddle played is at most the player's own (R-FLOW-1); the cap is what
      the weather can be with every cloud of the other players played (:func:`_weather_cap`), one step more once the
      player has played its own cloud (R-WEATHER-1) — with the cloud up to 6 + that cap. With ``fork_policy:
      alternate`` the steps push the discs as the fork markers send them, each marker switching after each disc
      that enters a branch (R-FLOW-4), from any markers (the relaxation does not keep them); with ``free`` each step
      may push a canoe along any branch. A canoe the flow takes over the falls loses its cargo (R-FLOW-6) and is
      fallen;
    * rescues (R-RESCUE-1, R-RESCUE-2): any fallen canoes paid for with banked gems, one each, and one for free
      when no canoe is in the port or on the river (``pay_or_free`` and ``free`` alike, ``rescue_limit`` either way).

    Other players' turns only take gems from the player's canoes (R-STEAL), never add them or move the canoes."""

    def __init__(self, board: Board, cap: int, may_stay: bool, full: tuple[int, ...], alternate: bool,
                 least: int) -> None:
        self.board, self.cap, self.may_stay, self.full, self.alternate = board, cap, may_stay, full, alternate
        self.least = least
        self.weather_max = 2  # (R-COMP-4)
        #: Every setting of the fork markers (R-FLOW-4), when they alternate.
        self.markers = [dict(zip(board.forks, labels)) for labels in product(*(board.labels[f] for f in board.forks))]
        self.together: dict[tuple[tuple[_Canoe, ...], int], set[tuple[tuple[_Canoe, ...], int]]] = {}
        self.start: dict[tuple[tuple[_Canoe, ...], int, tuple[int, ...], int, int], int] = {}
        self.played: dict[tuple[tuple[_Canoe, ...], int, tuple[int, ...], tuple[int, ...], int, int, int | None],
                          int] = {}
        self.flowed: dict[tuple[_Canoe, int], tuple[tuple[_Canoe, int], ...]] = {}
        self.ended: dict[tuple[tuple[_Canoe, ...], int, tuple[int, ...], int, int, int], int] = {}
        self.acted: dict[tuple[tuple[_Canoe, ...], int], tuple[tuple[tuple[_Canoe, ...], int], ...]] = {}
        self.flows: dict[tuple[tuple[_Canoe, ...], int], tuple[tuple[tuple[_Canoe, ...], int], ...]] = {}

    def round_start(self, canoes: tuple[_Canoe, ...], bank: int, hand: tuple[int, ...], rounds: int,
                    weather: int) -> int:
        """From the start of a round (phase I to come), the weather at most ``weather`` before the player's cloud."""
        if rounds <= 0:
            return 0
        bank = min(bank, 2 * rounds)  # a gem pays one rescue, of two canoes at most, in each phase I to come
        key = (canoes, bank, hand, rounds, weather)
        known = self.start.get(key)
        if known is None:
            known = self.start[key] = max(self.turns(after, paid, hand, hand, rounds, weather)
                                          for after, paid in self._rescues(canoes, bank))
        return known

    def _rescues(self, canoes: tuple[_Canoe, ...], bank: int) -> set[tuple[tuple[_Canoe, ...], int]]:
        out = {(canoes, bank)}
        fallen = [i for i, c in enumerate(canoes) if c[0] == FALLEN]
        for chosen in range(1, 1 << len(fallen)):
            picked = [fallen[j] for j in range(len(fallen)) if chosen >> j & 1]
            if len(picked) <= bank:
                out.add((self._back(canoes, picked), bank - len(picked)))
        if fallen and len(fallen) == len(canoes):  # none in the port or on the river: one back for free
            out.add((self._back(canoes, fallen[:1]), bank))
        return out

    @staticmethod
    def _back(canoes: tuple[_Canoe, ...], picked: list[int]) -> tuple[_Canoe, ...]:
        return tuple(sorted((PORT, 0) if i in picked else c for i, c in enumerate(canoes)))

    def turns(self, canoes: tuple[_Canoe, ...], bank: int, cards: tuple[int, ...], hand: tuple[int, ...],
              rounds: int, weather: int, now: int | None = None) -> int:
        """From phase II of a round, the player still to act with one of ``cards`` (each taken from ``hand``); this
        round's flow at most ``now`` if given."""
        bank = min(bank, 2 * (rounds - 1))  # (as in round_start: more pays for nothing within the rounds)
        key = (canoes, bank, cards, hand, rounds, weather, now)
        known = self.played.get(key)
        if known is not None:
            return known
        best = 0
        ended, cap = self.ended, min(_BANK_CAP, 2 * (rounds - 1))
        for k, card in enumerate(cards):
            if k and cards[k - 1] == card:
                continue
            rest = _without(hand, card)
            top, after_weather = self._top(card, weather, now)
            for after, banked in self._acts(canoes, card):
                paid = min(bank + banked, cap)
                known = ended.get((after, paid, rest, top, rounds, after_weather))
                if known is None:
                    known = self._ended(after, paid, rest, top, rounds, after_weather)
                if known > best:
                    best = known
        self.played[key] = best
        return best

    def after_turn(self, canoes: tuple[_Canoe, ...], bank: int, hand: tuple[int, ...], card: int, rounds: int,
                   weather: int, now: int | None = None) -> int:
        """This round's flow (the player has played ``card``; at most ``now`` steps if given), then the rounds after
        it."""
        top, weather = self._top(card, weather, now)
        return self._ended(canoes, min(bank, 2 * (rounds - 1)), hand, top, rounds, weather)

    def _top(self, card: int, weather: int, now: int | None) -> tuple[int, int]:
        """The longest flow after the player played ``card`` (at most ``now`` if given), and the weather's cap after
        it."""
        if not card:  # the player's own cloud: one step more (R-WEATHER-1), the smallest paddle anyone's
            weather = min(weather + 1, self.weather_max)
        top = max((card if card else max(self.full)) + weather, self.least)
        return (top if now is None else min(top, now)), weather

    def _ended(self, canoes: tuple[_Canoe, ...], bank: int, hand: tuple[int, ...], top: int, rounds: int,
               weather: int) -> int:
        """A flow of at most ``top`` steps, then the rounds after it (``bank`` capped as :meth:`after_turn` caps
        it)."""
        key = (canoes, bank, hand, top, rounds, weather)
        known = self.ended.get(key)
        if known is not None:
            return known
        best = 0
        for after, lost in self._flows(canoes, top):
            best = max(best, lost + (self.round_start(after, bank, hand or self.full, rounds - 1, weather)
                                     if rounds > 1 else 0))
        self.ended[key] = best
        return best

    def _flows(self, canoes: tuple[_Canoe, ...], top: int) -> tuple[tuple[tuple[_Canoe, ...], int], ...]:
        """The canoes after a flow of ``min_flow`` to ``top`` steps, each with the gems taken over the falls."""
        key = (canoes, top)
        known = self.flows.get(key)
        if known is None:
            found: set[tuple[tuple[_Canoe, ...], int]] = set()
            for k in range(self.least, top + 1):
                found |= self._flow(canoes, k)
            known = self.flows[key] = tuple(sorted(found))
        return known

    def _acts(self, canoes: tuple[_Canoe, ...], card: int) -> tuple[tuple[tuple[_Canoe, ...], int], ...]:
        """The canoes after the player's turn with ``card`` (0: the cloud), each with the gems banked."""
        key = (canoes, card)
        known = self.acted.get(key)
        if known is None:
            known = self.acted[key] = tuple(sorted(self._turn(canoes, card)))
        return known

    def _turn(self, canoes: tuple[_Canoe, ...], card: int) -> set[tuple[tuple[_Canoe, ...], int]]:
        if card == 0:
            return {(canoes, 0)}
        port = [i for i, c in enumerate(canoes) if c[0] == PORT]
        river = [i for i, c in enumerate(canoes) if c[0] not in (PORT, FALLEN)]
        if len(port) == 2:
            acting = [{port[0]}, {port[1]}] + ([set()] if self.may_stay else [])
        else:
            acting = [set(river), set(river) | set(port)]
        out: set[tuple[tuple[_Canoe, ...], int]] = set()
        for group in acting:
            options = [relaxed_turn(self.board, self.cap, False, c, card) if i in group else ((c, 0),)
                       for i, c in enumerate(canoes)]
            for first, b1 in options[0]:
                for second, b2 in options[1]:
                    out.add((tuple(sorted((first, second))), b1 + b2))
        return out

    def _flow(self, canoes: tuple[_Canoe, ...], k: int) -> set[tuple[tuple[_Canoe, ...], int]]:
        """The canoes after a flow of ``k`` steps, each with the gems it took over the falls."""
        if self.alternate:
            return self._alternating(canoes, k)
        out: set[tuple[tuple[_Canoe, ...], int]] = set()
        for first, l1 in self._ride(canoes[0], k):
            for second, l2 in self._ride(canoes[1], k):
                out.add((tuple(sorted((first, second))), l1 + l2))
        return out

    def _alternating(self, canoes: tuple[_Canoe, ...], k: int) -> set[tuple[tuple[_Canoe, ...], int]]:
        """The canoes after ``k`` steps pushed as the fork markers send them (R-FLOW-3, R-FLOW-4), from every
        setting of the markers: a branch takes every other disc, so it flows at half the speed of the main bed."""
        key = (canoes, k)
        known = self.together.get(key)
        if known is not None:
            return known
        out: set[tuple[tuple[_Canoe, ...], int]] = set()
        for start in self.markers:
            markers = dict(start)
            places = [place for place, _ in canoes]
            lost = 0
            for _ in range(k):
                path = self.board.flow_path(markers)
                for i, place in enumerate(places):
                    if place in path:
                        at = path.index(place)
                        if at + 1 < len(path):
                            places[i] = path[at + 1]
                        else:  # its disc left the last disc of the path: over the falls (R-FLOW-6)
                            places[i] = FALLEN
                            lost += canoes[i][1]
                for disc in path:
                    if disc in markers:
                        markers[disc] = self.board.next_label(disc, markers[disc])
            out.add((tuple(sorted((place, 0 if place == FALLEN else cargo)
                                  for place, (_, cargo) in zip(places, canoes))), lost))
        self.together[key] = out
        return out

    def _ride(self, canoe: _Canoe, k: int) -> tuple[tuple[_Canoe, int], ...]:
        """One canoe after ``k`` flow steps along any branch: where it is, and the gems lost (it fell)."""
        key = (canoe, k)
        known = self.flowed.get(key)
        if known is not None:
            return known
        place, cargo = canoe
        if place in (PORT, FALLEN) or k == 0:
            out: set[tuple[_Canoe, int]] = {(canoe, 0)}
        else:
            out = set()
            for nxt in self.board.below(place, 1) or (FALLEN,):
                if nxt == FALLEN:
                    out.add(((FALLEN, 0), cargo))
                else:
                    out |= set(self._ride((nxt, cargo), k - 1))
        found = self.flowed[key] = tuple(sorted(out))
        return found


def _without(hand: tuple[int, ...], card: int) -> tuple[int, ...]:
    """The hand once ``card`` is played (one of it taken out)."""
    if card not in hand:
        return hand  # (a card already chosen, read from a position whose hand still holds it or not)
    k = hand.index(card)
    return hand[:k] + hand[k + 1:]


def player_reach(pos: Position, x: int, rounds: int, cap: int) -> int:
    """An upper bound on the gems player ``x`` banks within ``rounds`` rounds from ``pos`` (at the start of a round,
    no expansion module), counted up to ``cap``: the relaxation of :func:`bank_reach` (each canoe's action, the flow
    and the falls relaxed as there: caves never empty, victims everywhere, the flow any number of discs down, a fallen
    canoe back in the port for free), with two of the rules kept for the player's two canoes together:

    * one card a round for both canoes, from the player's own hand, each card once until the hand is empty and
      refilled at the end of the round (R-CARD-1, R-CARD-2); with the cloud no canoe paddles (R-TURN-2);
    * of two canoes in the port at most one leaves (R-TURN-3; a fallen canoe counts as in the port: it comes back
      there, if at all, in phase I, R-RESCUE-1).

    Every play of the real game is one of the relaxation's for this player, so its best is a bound."""
    me = pos.players[x]
    rules = pos.ruleset
    canoes = tuple(sorted((PORT if c.place == FALLEN else c.place, len(c.gems)) for c in me.canoes))
    key = (pos.board, rules.capacity, rules.must_move, _budgets(start_hand(rules)))
    relaxation = _RELAXATIONS.get(key)
    if relaxation is None:
        if len(_RELAXATIONS) >= 16:
            _RELAXATIONS.clear()
        relaxation = _RELAXATIONS[key] = _Relaxation(*key)
    return relaxation.best(canoes, _budgets(me.hand), rounds, cap)


def _budgets(hand: tuple[Card, ...]) -> tuple[int, ...]:
    """A hand as the relaxation reads it: each card's budget, 0 for the cloud (no canoe paddles), sorted."""
    return tuple(sorted(max(c.budgets, default=0) for c in hand))


#: The player's relaxation of each board and rules, its tables kept: (board, capacity, must_move, full hand) -> it.
_RELAXATIONS: dict[tuple[Board, int, bool, tuple[int, ...]], "_Relaxation"] = {}


class _Relaxation:
    """:func:`player_reach` on one board under one capacity, ``must_move`` and full hand, its values kept (the board
    is hashed once, not at every step)."""

    def __init__(self, board: Board, cap: int, must_move: bool, full: tuple[int, ...]) -> None:
        self.board, self.cap, self.must_move, self.full = board, cap, must_move, full
        self.values: dict[tuple[tuple[tuple[str, int], ...], tuple[int, ...], int], int] = {}
        self.moved: dict[tuple[tuple[tuple[str, int], ...], int], tuple[tuple[tuple[tuple[str, int], ...], int],
                                                                         ...]] = {}

    def best(self, canoes: tuple[tuple[str, int], ...], hand: tuple[int, ...], rounds: int, goal: int) -> int:
        """The most the two canoes bank in ``rounds`` rounds with ``hand``, counted up to ``goal``."""
        return min(goal, self._best(canoes, hand, rounds))

    def _best(self, canoes: tuple[tuple[str, int], ...], hand: tuple[int, ...], rounds: int) -> int:
        if rounds <= 0:
            return 0
        key = (canoes, hand, rounds)
        known = self.values.get(key)
        if known is not None:
            return known
        most = 2 * self.cap  # what two canoes bank at most in a round (R-GEM-2)
        best = 0
        for k, budget in enumerate(hand):
            if k and hand[k - 1] == budget:
                continue  # the same card twice: one choice
            rest = hand[:k] + hand[k + 1:] or self.full
            for after, banked in self.moves(canoes, budget):  # the most banked first
                if banked + most * (rounds - 1) <= best:
                    break  # no later option can do better
                gained = banked + (self._best(after, rest, rounds - 1) if rounds > 1 else 0)
                if gained > best:
                    best = gained
        self.values[key] = best
        return best

    def moves(self, canoes: tuple[tuple[str, int], ...],
              budget: int) -> tuple[tuple[tuple[tuple[str, int], ...], int], ...]:
        """The two canoes after a turn with a card of ``budget`` points (0: the cloud) and the flow, relaxed, for every
        choice of acting canoes (R-TURN-3): their places and cargo, sorted, each with the most gems banked; the most
        banked first."""
        key = (canoes, budget)
        known = self.moved.get(key)
        if known is not None:
            return known
        one, two = canoes
        in_port = [c[0] == PORT for c in canoes]
        if budget == 0:
            acting: list[tuple[bool, bool]] = [(False, False)]
        elif all(in_port):
            acting = [(False, False), (True, False), (False, True)]  # at most one leaves the port
        else:
            acting = [(a, b) for a in (False, True) for b in (False, True)
                      if (a or in_port[0]) and (b or in_port[1])]  # a river canoe acts; a port canoe may stay
        pairs: dict[tuple[tuple[str, int], ...], int] = {}
        for a, b in acting:
            firsts, seconds = self._after(one, a, budget), self._after(two, b, budget)
            for s1, g1 in firsts.items():
                for s2, g2 in seconds.items():
                    pair = (s1, s2) if s1 <= s2 else (s2, s1)
                    if pairs.get(pair, -1) < g1 + g2:
                        pairs[pair] = g1 + g2
        found = self.moved[key] = tuple(sorted(pairs.items(), key=lambda item: -item[1]))
        return found

    def _after(self, canoe: tuple[str, int], acts: bool, budget: int) -> dict[tuple[str, int], int]:
        """One canoe after its action (:func:`..solver.answers.relaxed_turn`, when it acts) and the flow
        (:func:`..solver.answers.relaxed_flow`): each place and cargo with the most gems banked."""
        out: dict[tuple[str, int], int] = {}
        steps = relaxed_turn(self.board, self.cap, self.must_move, canoe, budget) if acts else ((canoe, 0),)
        for moved, banked in steps:
            for flowed in relaxed_flow(self.board, moved):
                if out.get(flowed, -1) < banked:
                    out[flowed] = banked
        return out


def rounds_to_bank(pos: Position, x: int, gems: int, colour: Colour | None = None) -> int:
    """The fewest rounds, by :func:`reach_within`, before player ``x``'s bank can hold ``gems`` gems (of ``colour``):
    0 when it does; :data:`BEYOND` when no count of rounds up to the limit suffices; 0 with an expansion module."""
    me = pos.players[x]
    missing = gems - (me.bank.get(colour) if colour is not None else me.bank.total)
    if missing <= 0 or not bounded(pos.ruleset):
        return 0
    # What reach_within reads of the position: the player, whether it acted, whether the round is at its start
    # (and the board and rules, one table each). A search asks this of every position it keeps, and the players'
    # states repeat across them: counted once each.
    table = _bank_table(pos)
    key = (me, x in pos.acted, pos.phase is Phase.CARDS, missing)
    known = table.get(key)
    if known is None:
        if len(table) >= 1 << 16:
            table.clear()
        known = table[key] = _count_rounds_to_bank(pos, x, missing)
    return known


def _count_rounds_to_bank(pos: Position, x: int, missing: int) -> int:
    for k in range(1, BEYOND):
        if reach_within(pos, x, k, missing) >= missing:
            return k
    return BEYOND


#: The remembered bounds of :func:`rounds_to_bank`, per board and rules (held here, so that their ids stay theirs).
_BANK_TABLES: dict[tuple[int, int], tuple[Board, object, dict[object, int]]] = {}


def _bank_table(pos: Position) -> dict[object, int]:
    key = (id(pos.board), id(pos.ruleset))
    entry = _BANK_TABLES.get(key)
    if entry is None or entry[0] is not pos.board or entry[1] is not pos.ruleset:
        if len(_BANK_TABLES) >= 8:
            _BANK_TABLES.clear()
        entry = _BANK_TABLES[key] = (pos.board, pos.ruleset, {})
    return entry[2]


def rounds_to_goal(pos: Position, x: int) -> int:
    """The fewest rounds, by :func:`reach_within` and :func:`could_reach_goal`, before player ``x`` can reach the goal
    (R-END-1): 0 when it has; :data:`BEYOND` when no count of rounds up to the limit suffices; 0 with a module."""
    if could_reach_goal(pos, x, 0) or not bounded(pos.ruleset):
        return 0
    need = _gems_to_goal(pos, x)
    for k in range(1, BEYOND):
        if could_reach_goal(pos, x, reach_within(pos, x, k, need)):
            return k
    return BEYOND


def _gems_to_goal(pos: Position, x: int) -> int:
    """The fewest gems of any colours that could bring player ``x``'s bank to the goal (R-END-1): what
    :func:`could_reach_goal` needs as its ``extra``."""
    return next(n for n in range(0, 8) if could_reach_goal(pos, x, n))


def query_bound(query: Query) -> Callable[[Position], int] | None:
    """The bound of a query (module docstring), as the search takes it (:data:`.search.Bound`); None where the query
    has no part the bounds read (every position might meet it at once)."""
    if not _bounded(query.root):
        return None
    return QueryBound(query.root)


@dataclass(frozen=True)
class QueryBound:
    """A query's bound as a value: called with a position like any bound, and it pickles (the search's processes,
    ``reach --jobs``, each get one)."""

    root: Node

    def __call__(self, pos: Position) -> int:
        return _rounds(self.root, pos)


def _bounded(node: Node) -> bool:
    if isinstance(node, Flag):
        return node.name == "game_over" or node.name in ("goal", "winner") and node.who is not Who.THAT
    if isinstance(node, Compare):
        need = bank_need(node)
        if need is None:  # the gems gone over the falls: the deepening walk reads them with the tally
            gone = count_need(node, "lost")
            return gone is not None and gone[0].who is not Who.THAT
        return need[0].who is not Who.THAT
    if isinstance(node, And):
        return any(_bounded(p) for p in node.parts)
    if isinstance(node, Or):
        return all(_bounded(p) for p in node.parts)
    return False


def _rounds(node: Node, pos: Position) -> int:
    return query_rounds(node, pos, lambda x: rounds_to_goal(pos, x),
                        lambda x, gems, colour: rounds_to_bank(pos, x, gems, colour), that=0)


#: A player's bound for the goal: seat -> rounds.
GoalRounds = Callable[[int], int]
#: A player's bound for a bank: (seat, gems, colour or None) -> rounds.
BankRounds = Callable[[int, int, "Colour | None"], int]


#: The gems gone over the falls, since the setup: (seat, or None for all the players' together; gems) -> rounds.
LostRounds = Callable[[int | None, int], int]


def query_rounds(node: Node, pos: Position, goal: GoalRounds, bank: BankRounds, that: int | None,
                 lost: LostRounds | None = None) -> int:
    """A query's bound (module docstring) from a player's bounds for the goal and for a bank: ``and`` the largest of
    its parts, ``or`` the smallest; ``any`` the smallest over the players, ``all`` the largest; ``that`` (the player
    an earlier ``any`` bound) the number ``that``, or with None the smallest over the players (whoever it is needs
    at least that); every other part 0. The deepening walk and the breadth-first search each give their own players'
    bounds (:func:`.deepen.rounds_needed`, :func:`query_bound`)."""
    if isinstance(node, And):
        return max(query_rounds(p, pos, goal, bank, that, lost) for p in node.parts)
    if isinstance(node, Or):
        return min(query_rounds(p, pos, goal, bank, that, lost) for p in node.parts)
    if isinstance(node, Flag):
        if node.name == "game_over":  # the game is over once a round starts with someone at the goal (R-END-2)
            return _over(Who.ANY, pos, goal, that)
        if node.name in ("goal", "winner"):  # a winner has reached the goal (R-END-2)
            return _over(node.who, pos, goal, that)
        return 0
    if isinstance(node, Compare):
        need = bank_need(node)
        if need is None:
            gone = count_need(node, "lost") if lost is not None else None
            if gone is None or lost is None:
                return 0
            count, n = gone
            if count.who is None:  # lost: every player's canoes together
                return lost(None, n)
            return _over(count.who, pos, lambda x: lost(x, n), that)
        count, gems = need
        colour = count.args[0] if count.args and isinstance(count.args[0], Colour) else None
        return _over(count.who, pos, lambda x: bank(x, gems, colour), that)
    return 0


def _over(who: object, pos: Position, rounds: Callable[[int], int], that: int | None) -> int:
    """A player's bound for a seat; the smallest over the players for ``any``, the largest for ``all``; for ``that``
    the number given, or the smallest over the players."""
    if isinstance(who, int):
        return rounds(who)
    if who is Who.ALL:
        return max(rounds(x) for x in range(len(pos.players)))
    if (who is Who.THAT or who is None) and that is not None:
        return that
    return min(rounds(x) for x in range(len(pos.players)))  # any, or that


def bank_need(node: Compare) -> tuple[Count, int] | None:
    """``bank(P[, colour]) >= n`` (``>``, ``==``, or the comparison turned round) as (the count, the gems n it needs
    at least); None for any other comparison."""
    return count_need(node, "bank")


def count_need(node: Compare, name: str) -> tuple[Count, int] | None:
    """``name(...) >= n`` (``>``, ``==``, or the comparison turned round) for the count ``name`` as (the count, the n
    it needs at least); None for any other comparison."""
    left, op, right = node.left, node.op, node.right
    if isinstance(left, Number) and isinstance(right, Count):
        left, right, op = right, left, _TURNED.get(op, op)
    if not (isinstance(left, Count) and left.name == name and isinstance(right, Number)):
        return None
    if op in (">=", "=="):
        return left, right.value
    if op == ">":
        return left, right.value + 1
    return None


#: A comparison with its sides swapped: ``n <= bank(P)`` is ``bank(P) >= n``.
_TURNED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
