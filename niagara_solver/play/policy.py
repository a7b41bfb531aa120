"""A playing policy that looks ahead through the flow (``lookahead``, the default of ``play`` and ``simulate``).

A player of Niagara decides three things a round: rescues (phase I, openly, R-RESCUE-1), a card (phase I, secretly
and all at once, R-CARD-1) and a turn with it (phase II, in order, R-TURN-1). The policy scores each option by
the position it leads to *after the flow* (phase III), in expectation over the flows the cards still unknown to it
can make:

* **the flow** is the smallest paddle played plus the weather (R-FLOW-1, R-FLOW-2). The cards of the players who
  have revealed theirs are known (with ``reveal: at_once`` every chosen card); every other player's card is drawn
  from that player's hand, with weights: a prior measured from the policy's own games (high paddles chosen two to
  three times as often as a uniform draw, the cloud half as often), tilted toward the cards this player itself
  likes on this position (the others often face a position much like it: at the start of a game, all of them the
  same one); a cloud among them moves the weather up or down alike. That gives a distribution over the flow *k*;
  the position after the player's option is carried *k* steps down the river with the discs' paths as the engine
  computes them (:func:`niagara_solver.engine.flow.flow_detail`), for each *k*.
* **the value** of a position for the player is how near their bank is to the goal (R-END-1: the gems still
  needed for the nearest of 7 gems, 5 colours or 4 of one colour), plus each carried gem's worth to that goal
  times its chance of reaching the port: lower the deeper it is and when no card left in hand can bring it home,
  and lower again for each canoe of another player that can reach it upstream with a card it holds (a steal,
  R-STEAL-1) — this round for the players still to act, next round for everyone. A canoe that goes over the
  falls costs a rescue (R-FLOW-6, R-RESCUE-1); an empty canoe next to a cave with a useful gem is worth a little,
  a canoe left on the last discs a little less. Gems that other players carry count against the player (so a
  steal counts twice).
* **the card** is scored by the best turn it allows on the position as it stands (as if the player acted now)
  under the flows that card leaves possible; the card is drawn with probabilities growing steeply with its score
  (a soft maximum, so that the same position is not always answered the same way by every seed).
* **the turn** is the best-scoring legal turn with the card, on the position as the earlier players left it.
* **a rescue** is bought when the canoe is worth more than the banked gem it costs to the goal.

It is a heuristic player, not a proof: the solver (``solve``) proves; this plays. Seeded: the same seed gives the
same choices (``random.Random`` with Python 3.11). It also serves the advice of the analysis and the designers'
simulations (``simulate``).
"""

from __future__ import annotations

import dataclasses
import math
import random
from dataclasses import dataclass
from typing import Mapping, Protocol, Sequence, TypeVar

from niagara_solver.engine.flow import flow_detail
from niagara_solver.engine.outcome import TurnOutcome
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import COLOURS, FALLEN, PORT, Card, Colour, Gems
from niagara_solver.model.board import Board
from niagara_solver.model.notation import Rescue
from niagara_solver.model.position import Canoe, Player, Position
from niagara_solver.model.ruleset import ForkPolicy, Reveal

#: R-END-1: seven gems, or one of each colour, or four of one colour.
GOAL_TOTAL, GOAL_SAME = 7, 4
T = TypeVar("T")


class Policy(Protocol):
    """What a seat's player decides in a round: rescues, a card, a turn (R-ROUND-1)."""

    name: str

    def rescue(self, pos: Position, player: int, options: list[Rescue]) -> Rescue:
        """One of ``options`` (:func:`niagara_solver.engine.rescue.rescue_options`) at the start of phase I."""

    def card(self, pos: Position, player: int) -> Card:
        """A card of the player's hand, on the position after every rescue (R-CARD-1)."""

    def turn(self, pos: Position, player: int, outcomes: list[TurnOutcome]) -> TurnOutcome:
        """One of the player's legal turns (:func:`niagara_solver.engine.turns.legal_turns`) with the chosen card."""


@dataclass(frozen=True)
class Weights:
    """The policy's tastes, in units of "one gem nearer the goal"."""

    #: Reaching the goal (the game ends with this round, R-END-2).
    goal: float = 3.0
    #: Every banked gem, useful to the nearest goal or not (7 gems is a goal too, and the tie-break counts value).
    gem: float = 0.3
    #: Each point of bank value (R-END-3's tie-break).
    value: float = 0.02
    #: A canoe over the falls: a rescue to pay, a turn or more without it.
    fall: float = 1.0
    #: A canoe on the last discs after the flow (it may fall next round).
    brink: float = 0.35
    #: An empty canoe beside a cave holding a gem that would bring the goal nearer, by that gem's worth.
    ready: float = 0.2
    #: A gem carried: its chance to come home from depth d is 1 - ``depth_risk`` * d, ...
    depth_risk: float = 0.06
    #: ... times this when no card left in hand can bring it home in one turn (R-MOVE-5).
    no_card: float = 0.75
    #: The share of an opponent's carried gem worth that counts against the player.
    rival: float = 0.4
    #: A canoe in play beyond the first, for rescues.
    second_canoe: float = 0.8
    #: A later player's chance to steal with a card that allows it next round.
    next_steal: float = 0.5


@dataclass(frozen=True)
class CardValue:
    """A card's score for a player, with the turn the policy would take with it on the position as it stands."""

    card: Card
    score: float
    outcome: TurnOutcome


def goal_need(bank: Gems) -> int:
    """The fewest gems still to bank to reach the goal (R-END-1): 7 gems, 5 colours or 4 of one colour."""
    total = sum(bank)
    colours = sum(1 for n in bank if n)
    return max(0, min(GOAL_TOTAL - total, len(COLOURS) - colours, GOAL_SAME - max(bank)))


def goal_potential(bank: Gems, weights: Weights = Weights()) -> float:
    """How good a bank is: minus the gems still needed, plus a little for every gem and its value."""
    need = goal_need(bank)
    return (-need + weights.gem * sum(bank) + weights.value * sum(n * c for n, c in zip(bank, COLOURS))
            + (weights.goal if need == 0 else 0.0))


#: How much likelier a player is to choose each card than a card drawn uniformly from the hand, as the policy itself
#: chose in its own games (4 players, measured once: high paddles two to three times as often, the cloud half as
#: often). Other players' hidden cards are drawn with these weights.
CARD_PRIOR: dict[Card, float] = {Card.CLOUD: 0.5, Card.ONE: 0.7, Card.TWO: 0.8, Card.THREE: 1.2, Card.FOUR: 1.3,
                                 Card.FIVE: 2.4, Card.SIX: 2.8, Card.SEVEN: 2.8, Card.LASSO: 0.5,
                                 Card.ONE_TWO_THREE: 1.0}


#: The spread (in score units) of the tilt of the others' hidden cards toward the cards the player itself likes.
SELF_MODEL = 0.3


def _tilted(scores: Mapping[Card, float], spread: float) -> dict[Card, float]:
    """:data:`CARD_PRIOR` times each card's liking, ``exp((score - best) / spread)``; a card the player does not
    hold keeps the mean liking."""
    top = max(scores.values())
    liking = {card: math.exp((score - top) / spread) for card, score in scores.items()}
    mean = sum(liking.values()) / len(liking)
    return {card: weight * liking.get(card, mean) for card, weight in CARD_PRIOR.items()}


def flow_distribution(known: Sequence[Card], hidden: Sequence[Sequence[Card]], weather: int,
                      min_flow: int, weather_min: int = -1, weather_max: int = 2,
                      prior: Mapping[Card, float] = CARD_PRIOR) -> dict[int, float]:
    """The flow *k* (R-FLOW-1, R-FLOW-2) as a distribution: ``known`` cards played, one card of each of ``hidden``
    hands drawn with the weights of :data:`CARD_PRIOR` (a cloud moving the weather up or down alike, within its
    range, R-WEATHER-1), from the weather ``weather``."""
    paddles = [int(c) for c in known if c.is_paddle]
    states: dict[tuple[int | None, int], float] = {(min(paddles) if paddles else None, weather): 1.0}
    for hand in hidden:
        if not hand:
            continue
        total = sum(prior[c] for c in hand)
        nxt: dict[tuple[int | None, int], float] = {}
        for (low, w), p in states.items():
            for card in hand:
                share = prior[card] / total
                if card is Card.CLOUD:
                    moves = [w + d for d in (1, -1) if weather_min <= w + d <= weather_max]
                    for m in moves:
                        nxt[low, m] = nxt.get((low, m), 0.0) + p * share / len(moves)
                elif card.is_paddle:
                    key = (int(card) if low is None else min(low, int(card)), w)
                    nxt[key] = nxt.get(key, 0.0) + p * share
                else:  # the Lasso and the 1/2/3 card count for no flow (X-CARDS-2)
                    nxt[low, w] = nxt.get((low, w), 0.0) + p * share
        states = nxt
    out: dict[int, float] = {}
    for (low, w), p in states.items():
        k = max(min_flow, (low or 0) + w)
        out[k] = out.get(k, 0.0) + p
    return out


class _Rides:
    """Where each place is carried by *k* flow steps from given fork markers: the engine's paths of the discs
    (:func:`niagara_solver.engine.flow.flow_detail`), read once per board, markers and *k*."""

    def __init__(self) -> None:
        self._tables: dict[tuple[int, tuple[tuple[str, str], ...], int], dict[str, str]] = {}
        self._boards: list[Board] = []  # keeps the boards alive while their id() is a key

    def table(self, pos: Position, k: int) -> dict[str, str]:
        key = (id(pos.board), pos.forks, k)
        found = self._tables.get(key)
        if found is not None:
            return found
        probe = pos
        if pos.ruleset.fork_policy is ForkPolicy.FREE:
            # With a free fork the branches are somebody's choice; the alternating markers stand in for them.
            probe = pos.replace(ruleset=dataclasses.replace(pos.ruleset, fork_policy=ForkPolicy.ALTERNATE))
        paths = flow_detail(probe, k).paths
        table: dict[str, str] = {}
        for place in pos.board.discs:
            at = place
            for path in paths:
                if at in path:
                    i = path.index(at)
                    at = path[i + 1] if i + 1 < len(path) else FALLEN
                    if at == FALLEN:
                        break
            table[place] = at
        if pos.board not in self._boards:
            self._boards.append(pos.board)
        self._tables[key] = table
        return table


class Lookahead:
    """Looks ahead through the flow: scores every option by the expected position after phase III (see the
    module's docstring). ``temperature`` is the soft maximum's spread over card scores (0: always a best card)."""

    name = "lookahead"

    def __init__(self, rng: random.Random, temperature: float = 0.1, weights: Weights = Weights(),
                 memo: dict[object, object] | None = None, self_model: float = SELF_MODEL) -> None:
        self.rng = rng
        self.temperature = temperature
        self.weights = weights
        #: The spread of the tilt of the others' cards toward the cards this player likes (0: the prior alone).
        self.self_model = self_model
        #: The weights of the others' hidden cards each player used for its card this round (for its turn).
        self._priors: dict[tuple[int, int], Mapping[Card, float]] = {}
        self._rides = _Rides()
        self._flows: dict[object, dict[int, float]] = {}
        #: Scores already reckoned, by position, player and card: scores depend on nothing else (never on the
        #: generator), so policies that play many continuations of one position may share one memo.
        self.memo = memo

    # -- phase I: rescues --------------------------------------------------------------------------------------

    def rescue(self, pos: Position, player: int, options: list[Rescue]) -> Rescue:
        """The rescue worth most: a canoe in play against the banked gem it costs (R-RESCUE-1, R-RESCUE-2)."""
        me = pos.players[player]
        in_play = len(me.canoes_in_play)
        w = self.weights

        def worth(option: Rescue) -> float:
            bank = me.bank
            for colour in option.payments:
                if colour is not None:
                    bank = bank.minus(colour)
            canoes = in_play + len(option.payments)
            return goal_potential(bank, w) + (w.second_canoe if canoes >= 2 else 0.0) - (10.0 if canoes == 0 else 0)
        return self._best(options, [worth(o) for o in options])

    # -- phase I: the card ---------------------------------------------------------------------------------------

    def card(self, pos: Position, player: int) -> Card:
        """A card drawn by a soft maximum over :meth:`card_values`."""
        values = self.card_values(pos, player)
        if len(values) == 1:
            return values[0].card
        if self.temperature <= 0:
            return self._best([v.card for v in values], [v.score for v in values])
        top = max(v.score for v in values)
        weights = [math.exp((v.score - top) / self.temperature) for v in values]
        return self.rng.choices([v.card for v in values], weights)[0]

    def card_values(self, pos: Position, player: int) -> list[CardValue]:
        """Each card of the player's hand (or the chosen card, once chosen) with its score: the best turn it allows
        on ``pos`` (a phase II position; the player not having acted), scored after the flows it leaves possible."""
        key = ("cards", pos, player)
        found = self.memo.get(key) if self.memo is not None else None
        if isinstance(found, list):
            return found
        me = pos.players[player]
        cards = [me.card] if me.card is not None else list(me.hand)
        bare = pos.with_player(player, Player(me.name, me.canoes, me.hand, me.bank, None))
        options = [(card, legal_turns(bare, player, card)) for card in cards]
        prior = CARD_PRIOR
        if self.self_model and len(cards) > 1:
            # The others choose their cards too, often on a position much like this one: their hidden cards are
            # drawn with the prior tilted toward the cards this player likes (first by the prior alone).
            first = {card: max(self._scores(bare, player, card, outcomes, prior)) for card, outcomes in options}
            prior = _tilted(first, self.self_model)
        out = []
        for card, outcomes in options:
            scores = self._scores(bare, player, card, outcomes, prior)
            best = max(range(len(outcomes)), key=scores.__getitem__)
            out.append(CardValue(card, scores[best], outcomes[best]))
        self._priors[pos.round, player] = prior
        if self.memo is not None:
            self.memo[key] = out
        return out

    # -- phase II: the turn --------------------------------------------------------------------------------------

    def turn(self, pos: Position, player: int, outcomes: list[TurnOutcome]) -> TurnOutcome:
        """The best-scoring turn (ties broken by the seeded generator)."""
        if len(outcomes) == 1:
            return outcomes[0]
        card = pos.players[player].card
        assert card is not None, "the card is chosen before the turn (R-CARD-1)"
        prior = self._priors.get((pos.round, player), CARD_PRIOR)  # as this player saw the others when choosing
        key = ("turn", pos, player, tuple(sorted(prior.items())))
        found = self.memo.get(key) if self.memo is not None else None
        scores = found if isinstance(found, list) else self._scores(pos, player, card, outcomes, prior)
        if self.memo is not None:
            self.memo[key] = scores
        return self._best(outcomes, scores)

    # -- scoring --------------------------------------------------------------------------------------------------

    def _best(self, options: Sequence[T], scores: Sequence[float]) -> T:
        """The best-scoring option; among equals, one drawn by the seeded generator."""
        top = max(scores)
        best = [o for o, s in zip(options, scores) if s >= top - 1e-9]
        return best[0] if len(best) == 1 else self.rng.choice(best)

    def _scores(self, pos: Position, player: int, card: Card, outcomes: list[TurnOutcome],
                prior: Mapping[Card, float]) -> list[float]:
        """The expected value after the flow of each outcome of ``player``'s turn with ``card`` on ``pos``, the
        others' hidden cards drawn with the weights ``prior``."""
        rules = pos.ruleset
        n = len(pos.players)
        at_once = rules.reveal is Reveal.AT_ONCE
        order = pos.turn_order()
        mine = order.index(player)
        later = [i for i in order[mine + 1:] if i not in pos.acted]
        known = [card]
        hidden: list[tuple[Card, ...]] = []
        for i in range(n):
            if i == player:
                continue
            p = pos.players[i]
            if i in pos.acted or (at_once and p.card is not None):
                if p.card is not None:
                    known.append(p.card)
            else:
                hidden.append(p.hand)
        hand_next = tuple(c for c in pos.players[player].hand if c != card) or pos.players[player].hand
        reach = max((b for c in hand_next for b in c.budgets), default=0)
        context = _Context(self, pos, player, later, reach)
        flows: dict[int, list[tuple[float, dict[str, str]]]] = {}
        scores = []
        for outcome in outcomes:
            after = outcome.position
            rides = flows.get(after.weather)
            if rides is None:  # the flows this outcome's weather leaves possible, each with where it carries a place
                key = (tuple(known), tuple(hidden), after.weather, rules.min_flow, id(prior))
                dist = self._flows.get(key) if prior is CARD_PRIOR else None
                if dist is None:
                    dist = flow_distribution(known, hidden, after.weather, rules.min_flow, rules.weather_min,
                                             rules.weather_max, prior)
                    if prior is CARD_PRIOR:
                        self._flows[key] = dist
                rides = flows[after.weather] = [(p, self._rides.table(pos, k)) for k, p in sorted(dist.items())]
            scores.append(context.value(after, rides))
        return scores


class _Context:
    """One decision's fixed facts: who acts later this round, the player's reach next round, the ride tables, and
    memos of what many outcomes of one decision share (the rivals' canoes, the banks' potentials)."""

    def __init__(self, policy: Lookahead, pos: Position, player: int, later: list[int], reach: int) -> None:
        self.policy = policy
        self.w = policy.weights
        self.board = pos.board
        self.depth = pos.board.depth
        self.last = pos.board.max_depth
        self.player = player
        self.later = later
        self.reach = reach
        self.rivals = [i for i in range(len(pos.players)) if i != player]
        # Each rival's budgets in hand: what a steal of a given distance needs (R-STEAL-1).
        self.values = {i: _budgets(pos.players[i]) for i in self.rivals}
        self._potential: dict[Gems, float] = {}
        self._memo: dict[object, float] = {}
        self._terms: dict[object, list[float]] = {}

    def potential(self, bank: Gems) -> float:
        found = self._potential.get(bank)
        if found is None:
            found = self._potential[bank] = goal_potential(bank, self.w)
        return found

    def value(self, after: Position, rides: list[tuple[float, dict[str, str]]]) -> float:
        """The player's expected value after the flow, each flow with its chance and where it carries a place."""
        players = after.players
        me = players[self.player]
        bank = me.bank
        base = self.potential(bank)
        # The rivals as the turn left them: a player the turn did not touch is the same object in every outcome.
        rivals = tuple(players[i] for i in self.rivals)
        ident = tuple(id(p) for p in rivals)
        total = 0.0
        terms_of = self._terms
        for c in me.canoes:
            place = c.place
            if place == PORT or place == FALLEN:
                continue
            # A canoe's terms depend on its place, cargo and mooring, the bank, the rivals and the flows (and for an
            # empty canoe the caves): many outcomes of one decision share them. Added one by one, as reckoned.
            gems = c.gems
            key = (place, gems, c.moored, bank, ident, id(rides), after.caves if not gems else None)
            terms = terms_of.get(key)
            if terms is None:
                terms = terms_of[key] = self._canoe_terms(after, c, rides, bank, base, rivals, ident)
            for term in terms:
                total += term
        return base + total - self.w.rival * self._rivals(rivals, ident)

    def _canoe_terms(self, after: Position, c: Canoe, rides: list[tuple[float, dict[str, str]]], bank: Gems,
                     base: float, rivals: tuple[Player, ...], ident: tuple[int, ...]) -> list[float]:
        """What one canoe of the player on the river adds to :meth:`value`, flow by flow (a fall as its negated
        cost: ``x - y`` is ``x + -y``)."""
        w = self.w
        depth, last, reach = self.depth, self.last, self.reach
        place = c.place
        # Steals still to come this round, from the players acting after this one (before the flow).
        risk = self._threat_now(place, rivals, ident) if c.gems and c.afloat else 0.0
        worth = [self.potential(bank.plus(g)) - base for g in c.gems]
        gain = sum(worth)
        terms = []
        for p, table in rides:
            at = place if c.moored else table[place]
            if at == FALLEN:
                terms.append(-(p * w.fall))
                continue
            d = depth[at]
            v = 0.0
            if d >= last - 1:
                v -= w.brink * (d - last + 2) / 2
            if worth:
                home = max(0.05, 1.0 - w.depth_risk * d) * (1.0 if reach >= d else w.no_card)
                keep = home * (1.0 - risk) * (1.0 - self._threat_next(at, table, rivals, ident))
                v += keep * gain
            else:
                v += w.ready * self._ready(after, at, bank, base)
            terms.append(p * v)
        return terms

    def _ready(self, after: Position, at: str, bank: Gems, base: float) -> float:
        """The worth of the best gem an empty canoe on ``at`` could load there (R-GEM-1)."""
        colour = self.board.cave.get(at)
        if colour is None:
            return 0.0
        cave = after.caves[colour - 1]
        key = ("ready", cave, bank)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = max((self.potential(bank.plus(g)) - base for g in COLOURS if cave[g - 1]),
                                          default=0.0)
        return found

    def _threat_now(self, place: str, rivals: tuple[Player, ...], ident: tuple[int, ...]) -> float:
        """The chance that a player still to act robs a gem on ``place`` this round: an empty canoe of theirs below
        it, on its way up, and a card of exactly the distance (R-STEAL-1)."""
        key = ("now", place, ident)
        found = self._memo.get(key)
        if found is not None:
            return found
        safe = 1.0
        for i, rival in zip(self.rivals, rivals):
            if i not in self.later:
                continue
            values = self.values[i]
            best = 0.0
            for q in rival.canoes:
                if q.gems or not q.afloat or q.place == place or not self.board.is_upstream_of(place, q.place):
                    continue
                best = max(best, values.get(self.depth[q.place] - self.depth[place], 0.0))
            safe *= 1.0 - best
        self._memo[key] = 1.0 - safe
        return 1.0 - safe

    def _threat_next(self, at: str, table: dict[str, str], rivals: tuple[Player, ...], ident: tuple[int, ...]) -> float:
        """Next round's steal threat on ``at``, every rival's canoes carried by the same flow."""
        key = ("next", at, id(table), ident)
        found = self._memo.get(key)
        if found is not None:
            return found
        safe = 1.0
        for i, rival in zip(self.rivals, rivals):
            values = self.values[i]
            for q in rival.canoes:
                if q.gems or not q.afloat:
                    continue
                there = table[q.place]
                if there == FALLEN or there == at or not self.board.is_upstream_of(at, there):
                    continue
                if values.get(self.depth[there] - self.depth[at]):
                    safe *= 1.0 - self.w.next_steal
                    break
        self._memo[key] = 1.0 - safe
        return 1.0 - safe

    def _rivals(self, rivals: tuple[Player, ...], ident: tuple[int, ...]) -> float:
        """What the rivals' carried gems are worth to them (a steal takes one away)."""
        key = ("rivals", ident)
        found = self._memo.get(key)
        if found is not None:
            return found
        total = 0.0
        for rival in rivals:
            bank = rival.bank
            base = self.potential(bank)
            for c in rival.canoes:
                if c.gems and c.place != PORT and c.place != FALLEN:
                    home = max(0.05, 1.0 - self.w.depth_risk * self.depth[c.place])
                    total += sum(home * (self.potential(bank.plus(g)) - base) for g in c.gems)
        self._memo[key] = total
        return total


def _budgets(player: Player) -> dict[int, float]:
    """The share of a player's hand giving each budget (the 1/2/3 card gives 1, 2 or 3, X-CARDS-3)."""
    hand = player.hand
    if not hand:
        return {}
    out: dict[int, float] = {}
    for card in hand:
        for b in card.budgets:
            out[b] = out.get(b, 0.0) + 1.0 / len(hand)
    return out


def colour_worth(bank: Gems, colour: Colour, weights: Weights = Weights()) -> float:
    """What one more gem of ``colour`` adds to a bank's potential (:func:`goal_potential`)."""
    return goal_potential(bank.plus(colour), weights) - goal_potential(bank, weights)
