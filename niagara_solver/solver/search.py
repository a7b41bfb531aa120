"""The search backend of the puzzle solver: an AND-OR game-tree search over the engine.

Player X's choices are OR nodes, everybody else's AND nodes (the worst case: the others may do anything
legal, as if in league against X). The information structure of a round (docs/SOLVER.md):

* phase I rescues are open, in seat order from the lifebuoy holder: each decision may depend on the earlier
  ones;
* X's card is chosen blind: it is chosen before anything else of the round is known (an OR node above every
  other player's choices);
* in phase II each player acts knowing the cards and turns of those before; another player's hidden card is
  chosen at that player's turn together with the turn (X never sees it before acting, so this is exact); with
  ``reveal: at_once`` every card is revealed at the start of phase II, so the others' cards are chosen (an AND
  node) right after X's blind choice and X's turn may depend on all of them;
* the flow is fixed by the cards (an AND node over the branches with ``fork_policy: free``).

Goals add their own success and failure conditions (:class:`Goal`). Nodes are memoised on the canonical
position (a transposition table), children are ordered so that the most telling ones come first (X's
bankings and steals; the others' steals from X), and a branch is cut as soon as its value is known.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from niagara_solver.engine.flow import FlowOutcome, flow_choices, flow_value
from niagara_solver.engine.rescue import apply_rescue, begin_turns, rescue_options
from niagara_solver.engine.round import goal_reached, is_finished, winners
from niagara_solver.engine.turns import TurnOutcome, legal_turns
from niagara_solver.model.atoms import Card, Phase
from niagara_solver.model.notation import Turn
from niagara_solver.model.position import Player, Position, start_hand
from niagara_solver.model.ruleset import ForkPolicy, Reveal
from niagara_solver.model.limits import time_left
from niagara_solver.solver.answers import Goal, OutOfTime, bankable, could_reach_goal, has_steal, x_gems


@dataclass
class Node:
    """A node's value and, for a decision, the choice that achieves it (X's) or refutes it (the others'); for a
    won AND node the first of the others' choices, as an example line."""

    value: bool
    choice: str = ""
    child: "Node | None" = None
    position: Position | None = None
    #: X's card and turn when the choice is X's (as data, for the answer; ``choice`` is their text).
    card: Card | None = None
    turn: Turn | None = None


def _next_round(after_flow: Position, before_flow: Position) -> Position:
    players = tuple(Player(p.name, p.canoes, p.hand or start_hand(after_flow.ruleset), p.bank,
                           None) for p in after_flow.players)
    return after_flow.replace(players=players, lifebuoy=(before_flow.lifebuoy + 1) % len(players),
                              round=before_flow.round + 1, phase=Phase.CARDS, acted=())


class Search:
    """One query: player ``x``, a goal, a horizon in rounds, a time budget."""

    def __init__(self, x: int, goal: Goal, horizon: int, timeout: float | None = None,
                 progress: Callable[[int], None] | None = None) -> None:
        self.x = x
        self.progress = progress  # told the number of nodes searched, now and then
        self.goal = goal
        self.horizon = horizon
        left = time_left(timeout if timeout else None)  # its own budget, within the command's time limit
        self.deadline = time.perf_counter() + left if left is not None else None
        self.memo: dict[Any, Node] = {}
        self.nodes = 0
        self.baseline: int | None = None
        self.name = "X"

    # -- bookkeeping ----------------------------------------------------------------------------------------

    def _tick(self) -> None:
        self.nodes += 1
        # The first node too: a search begun past the time limit stops at once.
        if self.nodes % 64 == 1 and self.deadline is not None and time.perf_counter() > self.deadline:
            raise OutOfTime()
        if self.progress is not None and self.nodes % 4096 == 0:
            self.progress(self.nodes)

    def _key(self, stage: str, pos: Position, left: int, extra: Any = None) -> Any:
        return (stage, pos, left, extra, self.baseline)

    # -- rounds ---------------------------------------------------------------------------------------------

    def value(self, pos: Position) -> Node:
        """The value of a position for X (at the start of a round, or in phase II)."""
        self.name = pos.players[self.x].name
        if pos.phase is Phase.CARDS:
            return self.round_start(pos, self.horizon)
        return self.card_stage(pos, self.horizon)

    def round_start(self, pos: Position, left: int) -> Node:
        self._tick()
        if is_finished(pos):
            return Node(self.goal is Goal.WIN and self.x in winners(pos), "the game is over")
        return self.rescue_stage(pos, 0, left)

    def rescue_stage(self, pos: Position, i: int, left: int) -> Node:
        """Phase I, open decisions in seat order from the lifebuoy holder (R-RESCUE-1)."""
        order = pos.turn_order()
        if i == len(order):
            return self.card_stage(begin_turns(pos), left)
        p = order[i]
        options = rescue_options(pos, p)
        if len(options) == 1:
            return self.rescue_stage(apply_rescue(pos, p, options[0]), i + 1, left)
        key = self._key("rescue", pos, left, i)
        if key in self.memo:
            return self.memo[key]
        name = pos.players[p].name
        children = ((f"{name} rescues {o}", lambda o=o: self.rescue_stage(apply_rescue(pos, p, o), i + 1, left))
                    for o in options)
        node = self._decide(p == self.x, children)
        self.memo[key] = node
        return node

    def card_stage(self, pos: Position, left: int) -> Node:
        """X chooses a card blind, before any other choice of the round (R-CARD-1)."""
        me = pos.players[self.x]
        if self.x in pos.acted or me.card is not None:
            return self.reveal_stage(pos, left)
        key = self._key("card", pos, left)
        if key in self.memo:
            return self.memo[key]
        children = ((f"{me.name} chooses {c.label}", lambda c=c: self.reveal_stage(
            pos.with_player(self.x, Player(me.name, me.canoes, me.hand, me.bank, c)), left), c, None)
            for c in me.hand)
        node = self._decide(True, children)
        self.memo[key] = node
        return node

    def reveal_stage(self, pos: Position, left: int) -> Node:
        """With ``reveal: at_once`` every card is revealed at the start of phase II (R-TURN-1): the others' hidden
        cards are chosen now, all together (an AND node over them), so X's turn may depend on every card. With
        ``in_turn`` a hidden card is chosen at its player's turn, together with the turn."""
        if pos.ruleset.reveal is not Reveal.AT_ONCE:
            return self.turn_stage(pos, left)
        hidden = [i for i, p in enumerate(pos.players) if p.card is None and i not in pos.acted and i != self.x]
        if not hidden:
            return self.turn_stage(pos, left)
        key = self._key("reveal", pos, left)
        if key in self.memo:
            return self.memo[key]

        def revealed(cards: tuple[Card, ...]) -> Position:
            out = pos
            for i, card in zip(hidden, cards):
                p = out.players[i]
                out = out.with_player(i, Player(p.name, p.canoes, p.hand, p.bank, card))
            return out

        children = ((", ".join(f"{pos.players[i].name} reveals {c.label}" for i, c in zip(hidden, cards)),
                     lambda cards=cards: self.turn_stage(revealed(cards), left))
                    for cards in itertools.product(*(pos.players[i].hand for i in hidden)))
        node = self._decide(False, children)
        self.memo[key] = node
        return node

    def turn_stage(self, pos: Position, left: int) -> Node:
        """Phase II: the next player in order (R-TURN-1); after everyone, the flow and the end of the round."""
        self._tick()
        p = pos.next_to_act()
        if p is None:
            return self.end_stage(pos, left)
        key = self._key("turn", self._projection(pos) if left == 1 and self.goal is Goal.WIN else pos, left)
        if key in self.memo:
            return self.memo[key]
        if self.x in pos.acted or p == self.x:
            cut = self._cut(pos, left)
            if cut is not None:
                self.memo[key] = cut
                return cut
        player = pos.players[p]
        if p == self.x:
            if self.baseline is None and self.goal is Goal.SAFE:
                self.baseline = x_gems(pos, self.x)
                node = self.turn_stage(pos, left)
                self.baseline = None
                return node
            outcomes = self._order(pos, legal_turns(pos, p), mine=True)
            label = player.card.label if player.card else "?"
            node = self._decide(True, ((f"{player.name} ({label}): {o.turn}",
                                        lambda o=o: self._after_x(pos, o, left), player.card, o.turn)
                                       for o in outcomes), pos)
        else:
            cards = [player.card] if player.card is not None else list(player.hand)
            node = self._decide(False, self._their_turns(pos, p, cards, left))
        self.memo[key] = node
        return node

    def _their_turns(self, pos: Position, p: int, cards: list[Card], left: int) -> Iterable[tuple[str, Any]]:
        name = pos.players[p].name
        for card in cards:
            for o in self._order(pos, legal_turns(pos, p, card), mine=False):
                yield f"{name} ({card.label}): {o.turn}", lambda o=o: self.turn_stage(o.position, left)

    def _after_x(self, pos: Position, outcome: TurnOutcome, left: int) -> Node:
        if self.goal is Goal.STEAL and has_steal(outcome.turn):
            return Node(True, "a steal")
        return self.turn_stage(outcome.position, left)

    def end_stage(self, pos: Position, left: int) -> Node:
        """Phases III and IV and the end check (R-FLOW, R-BUOY-1, R-END)."""
        last = left == 1
        if last and self.goal is Goal.WIN:
            # The flow and the lifebuoy never change a bank: the last round's end check needs no flow.
            won = winners(pos)
            return Node(bool(won) and self.x in won, "the game ends" if won else "nobody reaches the goal")
        if last and self.goal is Goal.STEAL:
            return Node(False, "no steal")
        steps = flow_value(pos)
        free = pos.ruleset.fork_policy is ForkPolicy.FREE and pos.board.forks
        groups: dict[Any, list[FlowOutcome]] = {}
        for outcome in flow_choices(pos, steps):
            groups.setdefault(outcome.choices, []).append(outcome)
        children = ((f"the river flows {steps}" + (
            f" ({','.join('/'.join(lab for _, lab in c) for c in choice)})" if free else ""),
            lambda group=group: self._put_back(pos, group, 0, left)) for choice, group in groups.items())
        return self._decide(False, children)

    def _put_back(self, pos: Position, outcomes: list[FlowOutcome], i: int, left: int) -> Node:
        """The pushes of moored canoes put back onto the whirlpool at a fork (X-WHIRL-4), in put-back order: each
        its owner's choice (X's: an OR node; another player's: an AND node)."""
        if i == len(outcomes[0].pushes):
            return self._round_end(_next_round(outcomes[0].position, pos), left)
        owner = outcomes[0].owners[i]
        options: dict[str, list[FlowOutcome]] = {}
        for outcome in outcomes:
            options.setdefault(outcome.pushes[i], []).append(outcome)
        name = pos.players[owner].name
        return self._decide(owner == self.x, ((f"{name}'s canoe put back onto the whirlpool is pushed to {dest}",
                                              lambda group=group: self._put_back(pos, group, i + 1, left))
                                             for dest, group in options.items()))

    def _round_end(self, pos: Position, left: int) -> Node:
        if self.goal is Goal.SAFE and self.baseline is not None and x_gems(pos, self.x) < self.baseline:
            return Node(False, f"a gem of {self.name} is lost")
        if is_finished(pos):
            if self.goal is Goal.WIN:
                return Node(self.x in winners(pos), "the game ends")
            return Node(self.goal is Goal.SAFE, "the game ends")
        if left == 1:
            return Node(self.goal is Goal.SAFE, "the horizon is reached")
        return self.round_start(pos, left - 1)

    @staticmethod
    def _projection(pos: Position) -> Any:
        """What decides a win in the last round: banks can change only through the canoes of the players still to
        act and the caves (a stolen gem cannot be banked in the same turn), so the canoes of the players who have
        acted, the weather and the fork markers do not matter any more."""
        remaining = tuple((i, pos.players[i].canoes, pos.players[i].hand, pos.players[i].card)
                          for i in pos.turn_order() if i not in pos.acted)
        return ("last round", pos.caves, tuple(p.bank for p in pos.players), remaining, pos.ruleset, pos.board)

    # -- pruning and ordering -------------------------------------------------------------------------------

    def _cut(self, pos: Position, left: int) -> Node | None:
        """A value known without searching below (sound bounds only)."""
        if self.goal is Goal.WIN:
            cap = pos.ruleset.capacity
            now = 0 if self.x in pos.acted else bankable(pos, self.x)[0]
            if not could_reach_goal(pos, self.x, now + 2 * cap * (left - 1)):
                return Node(False, f"{self.name} cannot reach the goal in time, even unhindered")
            if left == 1 and self.x in pos.acted:
                if not goal_reached(pos.players[self.x]):
                    return Node(False, f"{self.name} has not reached the goal this round")
                if not self._rivals_can_beat(pos):
                    return Node(True, f"nobody acting after {self.name} can reach the goal with a better bank")
        if self.goal is Goal.SAFE and left == 1 and self.x in pos.acted and self.baseline is not None:
            if x_gems(pos, self.x) < self.baseline:
                return Node(False, f"{self.name} gave a gem away")
        return None

    def _rivals_can_beat(self, pos: Position) -> bool:
        """Could another player end this round at the goal with a better bank than X's? An upper bound (see
        :func:`bankable`); a tie shares the win (R-END-3)."""
        by_value = pos.ruleset.tiebreak.value == "value"
        mine = pos.players[self.x].bank
        score = mine.value if by_value else mine.total
        for q, rival in enumerate(pos.players):
            if q == self.x:
                continue
            gems, value = (0, 0) if q in pos.acted else bankable(pos, q)
            if not (goal_reached(rival) or (gems and could_reach_goal(pos, q, gems))):
                continue
            if (rival.bank.value + value if by_value else rival.bank.total + gems) > score:
                return True
        return False

    def _order(self, pos: Position, outcomes: list[TurnOutcome], mine: bool) -> list[TurnOutcome]:
        x = self.x

        def score(o: TurnOutcome) -> tuple[int, ...]:
            after = o.position
            gain = x_gems(after, x) - x_gems(pos, x)
            banked = after.players[x].bank.total - pos.players[x].bank.total
            steal = 1 if has_steal(o.turn) else 0
            return (-(steal if self.goal is Goal.STEAL else 0), -banked, -gain) if mine else (gain, -steal)
        return sorted(outcomes, key=score)

    # -- AND / OR ----------------------------------------------------------------------------------------------

    def _decide(self, mine: bool, children: Iterable[tuple[Any, ...]], pos: Position | None = None) -> Node:
        """OR over X's choices (the first that succeeds), AND over the others' (the first that refutes).

        A child is (text, thunk) or, for X's card and turn, (text, thunk, card, turn)."""
        example: tuple[str, Node] | None = None
        for label, child, *chosen in children:
            node = child()
            if node.value == mine:
                return Node(mine, label, node, pos, *chosen)
            if example is None:
                example = (label, node)
        # Every child went the other way (or there was none: X cannot act, the others cannot stop X).
        if not mine and example is not None:  # keep one line of the others' choices as an example
            return Node(True, f"whatever the others do, e.g. {example[0]}", example[1], pos)
        return Node(not mine, f"no choice of {self.name} works" if mine else "whatever the others do", None, pos)


def trace(node: Node | None, limit: int = 12) -> list[str]:
    """The chain of choices below a node: X's winning line, or the others' refuting answer."""
    out: list[str] = []
    while node is not None and len(out) < limit:
        if node.choice:
            out.append(node.choice)
        node = node.child
    return out
