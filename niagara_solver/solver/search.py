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

Five pruning ideas (:class:`Pruning`, docs/SOLVER.md "Pruning") make the search faster without changing any
verdict: iterative deepening with proofs shared across horizons, cheap bounds tried first, the others' last
refuting answer tried first, positions told apart only by what matters for the goal, and X's cards tried by their
budget. They decide values only: the line of play reported is the one the search without them finds, rebuilt child
by child with the pruned search telling which child holds, within a budget of positions (:meth:`Search.value`).
"""

from __future__ import annotations

import itertools
import time
from contextlib import contextmanager
from dataclasses import dataclass, fields
from typing import Any, Callable, Collection, Iterable, Iterator, TypeVar

from niagara_solver.model.board import Board
from niagara_solver.model.errors import NiagaraError

from niagara_solver.engine.flow import FlowOutcome, flow_choices, flow_value
from niagara_solver.engine.rescue import apply_rescue, begin_turns, rescue_options
from niagara_solver.engine.round import goal_reached, is_finished, next_round, winners
from niagara_solver.engine.outcome import TurnOutcome
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import COLOURS, FALLEN, PORT, Card, Gems, Phase
from niagara_solver.model.notation import Load, Move, Steal, Turn, Unload
from niagara_solver.model.position import Canoe, Player, Position, start_hand
from niagara_solver.model.ruleset import ForkPolicy, Reveal, Ruleset, Tiebreak
from niagara_solver.model.limits import time_left
from niagara_solver.solver.answers import (Goal, OutOfTime, bank_reach, bankable, could_reach_goal, has_steal,
                                          may_steal_on, turn_capacity, x_gems)
from niagara_solver.solver.reasons import Reason


T = TypeVar("T")


@dataclass
class Node:
    """A node's value and, for a decision, the choice that achieves it (X's) or refutes it (the others'); for a
    won AND node the first of the others' choices, as an example line. A leaf says why it is decided: ``reason``,
    whose words are its ``choice`` (:meth:`leaf`)."""

    value: bool
    choice: str = ""
    child: "Node | None" = None
    position: Position | None = None
    #: X's card and turn when the choice is X's (as data, for the answer; ``choice`` is their text).
    card: Card | None = None
    turn: Turn | None = None
    #: Why the node is decided, for a leaf (a bound, a cut, the round's end) and for X's decision that fails
    #: everywhere (kind ``no-choice``).
    reason: Reason | None = None

    @classmethod
    def leaf(cls, value: bool, reason: Reason) -> "Node":
        """A leaf decided for ``reason``, in its words."""
        return cls(value, reason.text(), reason=reason)


@dataclass(frozen=True)
class Pruning:
    """Which pruning ideas the search uses (all on by default; docs/SOLVER.md, "Pruning"). None of them changes a
    verdict or the reported line; they are switched off one by one to measure each (benchmarks/bench_horizon.py)."""

    #: Iterative deepening: horizon 1, 2, ... up to the question's, with one transposition table over all of
    #: them; a value proved with some rounds left settles the same node with more or fewer rounds left wherever
    #: the goal is monotone in the horizon (win and steal up, safe down).
    deepening: bool = True
    #: Cheap bounds tried before the search below a node: no win once X cannot bank enough within the horizon even
    #: unhindered; no steal once X has no turn left in the horizon or no canoe that could move upstream onto an
    #: enemy's gem, or once no other player carries a gem (they can keep it so); a steal once X's card steals a gem
    #: that nobody before X can reach; safe once X's bank alone keeps its count of gems.
    bounds: bool = True
    #: The others' answer that last refuted X at the same player's decision with as many rounds left is tried
    #: first (a killer move).
    killers: bool = True
    #: The others' choices told apart only by what matters for the goal: for the safe goal in the horizon's last
    #: round once X has acted, positions that differ only in what no longer touches X's gems share one value; for
    #: the steal goal in the last round before X has acted, positions that differ only in the acted players' empty
    #: canoes, banks and cards share one.
    focus: bool = True
    #: For the safe goal, X's blind cards tried by their budget, the highest first (the cloud last): the card that
    #: carries a gem home, or furthest from a thief, is most often the one that keeps it.
    cards: bool = True
    #: For the steal goal before X has acted, the others' turns that leave fewest of their loaded canoes on discs
    #: where X may steal are tried first: the play that takes a gem out of X's reach is most often the refutation.
    exposed: bool = True

    @property
    def any(self) -> bool:
        """Is any idea on?"""
        return any(getattr(self, f.name) for f in fields(self))

    def without(self, name: str) -> "Pruning":
        """The same pruning with the idea ``name`` off."""
        return Pruning(**{f.name: getattr(self, f.name) and f.name != name for f in fields(self)})


#: The budget of the plain line rebuilt after the pruned search's proof (:meth:`Search.value`), in positions: this
#: many, or LINE_FACTOR times the proof's if more. Past it the answer is the pruned search's own (same verdict).
LINE_NODES = 5_000
LINE_FACTOR = 4

#: The search as it was before any pruning idea: the reference that every pruned verdict and line must equal.
PLAIN = Pruning(deepening=False, bounds=False, killers=False, focus=False, cards=False, exposed=False)

#: Goals whose value can only grow with the horizon (a win or a steal within h rounds is one within h + 1);
#: the safe goal can only shrink (keeping every gem for h + 1 rounds keeps it for h).
_GROWS = (Goal.WIN, Goal.STEAL)


#: (board, ruleset) -> :func:`keeps_empty`'s answer, worked out once per process.
_KEEPS_EMPTY: dict[tuple[Board, Ruleset], bool] = {}


def keeps_empty(board: Board, ruleset: Ruleset) -> bool:
    """Can a player whose canoes carry no gem always keep them so? That is: with its two canoes anywhere (the port, any
    disc, fallen), with every card of a full hand (the cloud in every weather), the engine lists a turn after which
    both canoes are still empty (no load, no steal: R-GEM-1, R-STEAL-1). Checked over every such case, not argued;
    with no expansion module nothing else decides it, since without them a turn that moves no gem depends on its
    player's canoes, card and the weather only (R-TURN-2, R-TURN-3, R-MOVE): the other players' canoes, the caves and
    the fork markers do not enter. A case the engine refuses (no legal turn, an error) counts as "no". The search's
    bound for the steal goal rests on it (:meth:`Search._bound`)."""
    key = (board, ruleset)
    known = _KEEPS_EMPTY.get(key)
    if known is None:
        known = _KEEPS_EMPTY[key] = _keeps_empty(board, ruleset)
    return known


def _keeps_empty(board: Board, ruleset: Ruleset) -> bool:
    base = Position.initial(["a", "b"], board, ruleset).replace(phase=Phase.TURNS)
    me = base.players[0]
    weathers = list(range(ruleset.weather_min, ruleset.weather_max + 1))  # R-COMP-4
    for one, two in itertools.combinations_with_replacement([PORT, *board.discs, FALLEN], 2):
        for card in start_hand(ruleset):
            for weather in (weathers if card is Card.CLOUD else [base.weather]):
                pos = base.replace(weather=weather).with_player(
                    0, Player(me.name, (Canoe(one), Canoe(two)), me.hand, me.bank, None))
                try:
                    outcomes = legal_turns(pos, 0, card)
                except NiagaraError:
                    return False
                if not any(all(not c.gems for c in o.player(0).canoes) for o in outcomes):
                    return False
    return True


def nothing_to_steal(pos: Position, x: int) -> bool:
    """Can X never steal from here on, whatever X does (the steal goal's bound, :meth:`Search._bound`)? So it is when,
    with no expansion module, no canoe of another player carries a gem and every player can keep its canoes empty
    (:func:`keeps_empty`): the others then keep theirs empty to the end of the game. Their own turns can, by that
    check; X's turns never put a gem into another player's canoe (loads and unloads move gems between X's canoes and
    the caves, R-GEM-1, R-GEM-3; a steal takes one out of a canoe, R-STEAL-1); the flow moves canoes and empties those
    going over the falls (R-FLOW-3, R-FLOW-6); a rescue brings a fallen canoe, empty, back to the port (R-RESCUE-1).
    And a steal takes a gem from a canoe that carries one (R-STEAL-1)."""
    if pos.ruleset.modules:
        return False
    if any(c.gems for q, player in enumerate(pos.players) if q != x for c in player.canoes):
        return False
    return keeps_empty(pos.board, pos.ruleset)


class Search:
    """One query: player ``x``, a goal, a horizon in rounds, a time budget, the pruning to use.

    With any pruning on, two searches work together: this one walks the game exactly as the search without
    pruning does (same order, same cuts, same texts), but asks a second, pruned search (:attr:`values`) for the
    value of every child it would try; it descends only into the child the plain search would report. So the
    answer's card, turn and line are the plain search's, at the cost of the pruned search's values."""

    def __init__(self, x: int, goal: Goal, horizon: int, timeout: float | None = None,
                 progress: Callable[[int], None] | None = None, pruning: Pruning = Pruning(),
                 *, _lines: bool = True) -> None:
        self.x = x
        self.progress = progress  # told the number of nodes searched, now and then
        self.goal = goal
        self.horizon = horizon
        left = time_left(timeout if timeout else None)  # its own budget, within the command's time limit
        self.deadline = time.perf_counter() + left if left is not None else None
        self.memo: dict[Any, Node] = {}
        self._count = [0]  # nodes searched, shared with the pruned search below
        #: While the plain line is rebuilt, the count of nodes at which it stops (:meth:`value`); shared likewise.
        self._limit: list[int | None] = [None]
        self.baseline: int | None = None
        self.name = "X"
        self.pruning = pruning
        #: The pruning this search applies itself: none when it only rebuilds the plain search's line.
        self.active = PLAIN if pruning.any and _lines else pruning
        self.oracle: Search | None = None
        if self.active is not pruning:
            self.oracle = Search(x, goal, horizon, None, progress, pruning, _lines=False)
            self.oracle.deadline = self.deadline
            self.oracle._count = self._count
            self.oracle._limit = self._limit
        self._probing = False
        # Proofs across horizons (``deepening``): per node without its rounds left, the fewest (most) rounds left
        # at which it was proved to hold and the most (fewest) at which it was proved to fail, for a goal that
        # grows (shrinks) with the horizon.
        self._holds: dict[Any, tuple[int, Node]] = {}
        self._fails: dict[Any, tuple[int, Node]] = {}
        self._killers: dict[tuple[int, int], str] = {}  # (player, rounds left) -> the last refuting choice
        self._home: dict[Any, list[tuple[Player, Turn]]] = {}  # _movements_alone: each such turn, by what it reads
        self._steals: dict[Any, list[tuple[tuple[tuple[int, str], ...], Turn]]] = {}  # _steals_alone, likewise
        self._reach: dict[Any, frozenset[str]] = {}  # _steal_reach, likewise

    @property
    def nodes(self) -> int:
        """Positions searched so far (by this search and its pruned one)."""
        return self._count[0]

    @nodes.setter
    def nodes(self, value: int) -> None:
        self._count[0] = value

    @property
    def values(self) -> "Search":
        """The search that decides values: the pruned one, or this one when no pruning is on. Its nodes' values
        are exact; their lines may differ from the plain search's."""
        return self.oracle if self.oracle is not None else self

    # -- bookkeeping ----------------------------------------------------------------------------------------

    def _tick(self) -> None:
        self._count[0] += 1
        nodes = self._count[0]
        limit = self._limit[0]
        if limit is not None and nodes > limit:  # the line's own budget is spent (:meth:`value`)
            raise OutOfTime()
        # The first node too: a search begun past the time limit stops at once.
        if nodes % 64 == 1 and self.deadline is not None and time.perf_counter() > self.deadline:
            raise OutOfTime()
        if self.progress is not None and nodes % 4096 == 0:
            self.progress(nodes)

    def _key(self, stage: str, pos: Position, left: int, extra: Any = None) -> Any:
        return (stage, pos, left, extra, self.baseline)

    def _recall(self, key: Any) -> Node | None:
        """The node's value if known: with as many rounds left, or (``deepening``) with other rounds left where
        the goal's monotony in the horizon carries it over."""
        node = self.memo.get(key)
        if node is not None or not self.active.deepening:
            return node
        rest, left = (key[0], key[1], *key[3:]), key[2]
        grows = self.goal in _GROWS
        holds, fails = self._holds.get(rest), self._fails.get(rest)
        if holds is not None and (holds[0] <= left if grows else holds[0] >= left):
            return holds[1]
        if fails is not None and (fails[0] >= left if grows else fails[0] <= left):
            return fails[1]
        return None

    def _remember(self, key: Any, node: Node) -> Node:
        self.memo[key] = node
        if self.active.deepening:
            rest, left = (key[0], key[1], *key[3:]), key[2]
            # Keep the widest reach: the fewest rounds for a value that carries up, the most for one that carries
            # down (a win carries up, a loss down; for the safe goal the other way round).
            table, up = (self._holds, self.goal in _GROWS) if node.value else (self._fails, self.goal not in _GROWS)
            known = table.get(rest)
            if known is None or (left < known[0] if up else left > known[0]):
                table[rest] = (left, node)
        return node

    # -- the plain line, with the pruned search's values ----------------------------------------------------

    def _ask(self, stage: str, *args: Any) -> Node | None:
        """While probing a child's value, the pruned search answers instead (with this search's baseline)."""
        if not self._probing or self.oracle is None:
            return None
        self.oracle.baseline, self.oracle.name = self.baseline, self.name
        node: Node = getattr(self.oracle, stage)(*args)
        return node

    def _probe(self, child: Callable[[], Node]) -> Node:
        """The pruned search's node for a child (its value, and its reason where it is a leaf)."""
        self._probing = True
        try:
            return child()
        finally:
            self._probing = False

    # -- rounds ---------------------------------------------------------------------------------------------

    def verdict(self, pos: Position) -> bool:
        """The value of a position for X, the pruned search's alone: the plain line is not rebuilt (a caller that
        needs only the verdict, where it drops the answer, spares that walk). :meth:`value` then starts from the
        pruned search's table as this call left it."""
        self.name = pos.players[self.x].name
        if self.oracle is None:
            return bool(self.value(pos).value)
        self.oracle.name = self.name
        return bool(self.oracle.value(pos).value)

    def value(self, pos: Position) -> Node:
        """The value of a position for X (at the start of a round, or in phase II).

        With pruning on, the pruned search settles the value first; then the plain search's line is rebuilt with
        its help. Should the time run out while rebuilding, the pruned search's own node is the answer: the same
        verdict, with a line of play the plain search might not have picked."""
        self.name = pos.players[self.x].name
        if self.oracle is None:
            return self._deepen(pos) if self.active.deepening else self._at(pos, self.horizon)
        self.oracle.name = self.name
        proof = self.oracle.value(pos)
        try:
            with self.line_budget():
                line = self._at(pos, self.horizon)
        except OutOfTime:
            return proof
        if line.value != proof.value:  # both are exact: a difference is a bug in a bound, never to be hidden
            raise AssertionError(f"the pruned search says {proof.value}, the plain line {line.value}")
        return line

    @contextmanager
    def line_budget(self) -> Iterator[None]:
        """Within the block the search stops (OutOfTime) once it has searched :data:`LINE_NODES` more positions, or
        :data:`LINE_FACTOR` times as many as so far if more: the budget of the plain line rebuilt after the pruned
        search's proof (:meth:`value`) and of the refutations listed beside a "no". It is counted in positions, so
        that what is reported does not depend on the machine's speed."""
        self._limit[0] = self.nodes + max(LINE_NODES, LINE_FACTOR * self.nodes)
        try:
            yield
        finally:
            self._limit[0] = None

    def _at(self, pos: Position, left: int) -> Node:
        if pos.phase is Phase.CARDS:
            return self.round_start(pos, left)
        return self.card_stage(pos, left)

    def _deepen(self, pos: Position) -> Node:
        """Iterative deepening: horizons 1, 2, ... share the transposition table; a value that carries over to the
        question's horizon ends it early (a win or steal within fewer rounds, a gem lost within fewer)."""
        node = self._at(pos, 1)
        for h in range(2, self.horizon + 1):
            if node.value is (self.goal in _GROWS):
                return node
            node = self._at(pos, h)
        return node

    def round_start(self, pos: Position, left: int) -> Node:
        self._tick()
        if is_finished(pos):
            won = winners(pos)
            over = self._reason("over", winners=self._names(pos, won))
            return Node.leaf(self.goal is Goal.WIN and self.x in won, over)
        return self.rescue_stage(pos, 0, left)

    def rescue_stage(self, pos: Position, i: int, left: int) -> Node:
        """Phase I, open decisions in seat order from the lifebuoy holder (R-RESCUE-1)."""
        if (asked := self._ask("rescue_stage", pos, i, left)) is not None:
            return asked
        order = pos.turn_order()
        if i == len(order):
            return self.card_stage(begin_turns(pos), left)
        p = order[i]
        options = rescue_options(pos, p)
        if len(options) == 1:
            return self.rescue_stage(apply_rescue(pos, p, options[0]), i + 1, left)
        key = self._key("rescue", pos, left, i)
        if (known := self._recall(key)) is not None:
            return known
        name = pos.players[p].name
        children = ((f"{name} rescues {o}", lambda o=o: self.rescue_stage(apply_rescue(pos, p, o), i + 1, left))
                    for o in options)
        return self._remember(key, self._decide(p == self.x, children))

    def card_stage(self, pos: Position, left: int) -> Node:
        """X chooses a card blind, before any other choice of the round (R-CARD-1)."""
        me = pos.players[self.x]
        if self.x in pos.acted or me.card is not None:
            return self.reveal_stage(pos, left)
        key = self._key("card", pos, left)
        if (known := self._recall(key)) is not None:
            return known
        cards = list(me.hand)
        if self.active.cards and self.goal is Goal.SAFE:  # ordering only: the value is the same in any order
            cards.sort(key=lambda c: -max(c.budgets, default=0))
        children = ((f"{me.name} chooses {c.label}", lambda c=c: self.reveal_stage(
            pos.with_player(self.x, Player(me.name, me.canoes, me.hand, me.bank, c)), left), c, None)
            for c in cards)
        return self._remember(key, self._decide(True, children))

    def reveal_stage(self, pos: Position, left: int) -> Node:
        """With ``reveal: at_once`` every card is revealed at the start of phase II (R-TURN-1): the others' hidden
        cards are chosen now, all together (an AND node over them), so X's turn may depend on every card. With
        ``in_turn`` a hidden card is chosen at its player's turn, together with the turn."""
        if (asked := self._ask("reveal_stage", pos, left)) is not None:
            return asked
        if pos.ruleset.reveal is not Reveal.AT_ONCE:
            return self.turn_stage(pos, left)
        hidden = [i for i, p in enumerate(pos.players) if p.card is None and i not in pos.acted and i != self.x]
        if not hidden:
            return self.turn_stage(pos, left)
        key = self._key("reveal", pos, left)
        if (known := self._recall(key)) is not None:
            return known

        def revealed(cards: tuple[Card, ...]) -> Position:
            out = pos
            for i, card in zip(hidden, cards):
                p = out.players[i]
                out = out.with_player(i, Player(p.name, p.canoes, p.hand, p.bank, card))
            return out

        children = ((", ".join(f"{pos.players[i].name} reveals {c.label}" for i, c in zip(hidden, cards)),
                     lambda cards=cards: self.turn_stage(revealed(cards), left))
                    for cards in itertools.product(*(pos.players[i].hand for i in hidden)))
        return self._remember(key, self._decide(False, children))

    def turn_stage(self, pos: Position, left: int) -> Node:
        """Phase II: the next player in order (R-TURN-1); after everyone, the flow and the end of the round."""
        if (asked := self._ask("turn_stage", pos, left)) is not None:
            return asked
        self._tick()
        p = pos.next_to_act()
        if p is None:
            return self.end_stage(pos, left)
        key = self._key("turn", self._view(pos, left), left)
        if (known := self._recall(key)) is not None:
            return known
        if self.x in pos.acted or p == self.x:
            cut = self._cut(pos, left)
            if cut is not None:
                return self._remember(key, cut)
        if self.active.bounds:
            bound = self._bound(pos, p, left)
            if bound is not None:
                return self._remember(key, bound)
        player = pos.players[p]
        if p == self.x:
            if self.baseline is None and self.goal is Goal.SAFE:
                self.baseline = x_gems(pos, self.x)
                node = self.turn_stage(pos, left)
                self.baseline = None
                return node
            outcomes = self._order(pos, legal_turns(pos, p), mine=True)
            label = player.card.label if player.card is not None else "?"  # the cloud is card 0
            node = self._decide(True, ((f"{player.name} ({label}): {o.notation}",
                                        lambda o=o: self._after_x(pos, o, left), player.card, o.turn)
                                       for o in outcomes), pos)
        else:
            cards = [player.card] if player.card is not None else list(player.hand)
            killer = self._killers.get((p, left)) if self.active.killers else None
            if killer is not None:  # the card of the last refuting answer first (and its turn first, below)
                cards.sort(key=lambda c: not killer.startswith(f"{player.name} ({c.label}): "))
            node = self._decide(False, self._their_turns(pos, p, cards, left, killer))
            if self.active.killers and not node.value:
                self._killers[(p, left)] = node.choice
        return self._remember(key, node)

    def _their_turns(self, pos: Position, p: int, cards: list[Card], left: int,
                     killer: str | None = None) -> Iterable[tuple[str, Any]]:
        name = pos.players[p].name
        reach = self._steal_reach(pos) if self._exposing(pos) else None
        if reach is not None:
            # Every card's turns at once, those that leave fewest of the player's gems where X may steal first, the
            # killer first among them, then as :meth:`_order` orders them (and the cards' order): a killer that leaves
            # a gem in X's reach, first in its card, made the search prove that X steals after every later play
            # before trying the next.
            before = x_gems(pos, self.x)

            def exposed(item: tuple[Card, TurnOutcome]) -> int:  # its player alone made
                return sum([1 for place, gems in item[1].places(p) if gems and place in reach])

            def gain(item: tuple[Card, TurnOutcome]) -> int:
                return _gain(item[1], self.x, before)

            def steals(item: tuple[Card, TurnOutcome]) -> int:
                return _steals_first(item[1])

            keys: list[Callable[[tuple[Card, TurnOutcome]], Any]] = [exposed, gain, steals]
            turns: dict[Card, list[TurnOutcome]] = {}
            tried: set[int] = set()
            # The killer's turn, by its card: only that card's turns are read to find it.
            wanted = {c: killer[len(f"{name} ({c.label}): "):] for c in cards
                      if killer is not None and killer.startswith(f"{name} ({c.label}): ")}
            if wanted:
                def missed(item: tuple[Card, TurnOutcome]) -> bool:
                    turn = wanted.get(item[0])
                    return turn is None or turn != item[1].notation
                keys.insert(1, missed)
                if len(wanted) == 1 and len(set(cards)) == len(cards):
                    # The killer's turn, if it leaves none of the player's gems in X's reach, is first of all in
                    # that order (the least first key, and no other card's turn is the killer): it is tried before
                    # the other cards' turns are listed, and they only if the search asks for more (it rarely does:
                    # the killer mostly refutes again). The full order then goes on without it.
                    [(card, turn)] = wanted.items()
                    turns[card] = legal_turns(pos, p, card)
                    first = [(card, o) for o in turns[card]
                             if not exposed((card, o)) and o.notation == turn]
                    for card, o in _lazily_sorted(first, [gain, steals]):
                        tried.add(id(o))
                        yield f"{name} ({card.label}): {o.notation}", lambda o=o: self.turn_stage(o.position, left)
            each = [(card, o) for card in cards
                    for o in (turns[card] if card in turns else legal_turns(pos, p, card))]
            for card, o in _lazily_sorted(each, keys):
                if id(o) not in tried:
                    yield f"{name} ({card.label}): {o.notation}", lambda o=o: self.turn_stage(o.position, left)
            return
        for card in cards:
            prefix = f"{name} ({card.label}): "
            if killer is not None and killer.startswith(prefix):
                # The killer's turn first (stable: the others keep their order); only this card's turns' texts are
                # read to find it (TurnOutcome.notation), the others' only when their child is tried.
                turn = killer[len(prefix):]
                ordered = self._order(pos, legal_turns(pos, p, card), False, lambda o: o.notation != turn)
            else:
                ordered = self._order(pos, legal_turns(pos, p, card), False)
            for o in ordered:
                yield prefix + o.notation, lambda o=o: self.turn_stage(o.position, left)

    def renew(self, timeout: float | None) -> None:
        """A fresh time budget (``timeout`` seconds, within the command's time limit) for a further question on the
        same search: its tables stay, and every value in them is exact, so a later answer is the one a fresh search
        gives, found sooner."""
        left = time_left(timeout if timeout else None)
        self.deadline = time.perf_counter() + left if left is not None else None
        if self.oracle is not None:
            self.oracle.deadline = self.deadline

    def after_turn(self, pos: Position, outcome: TurnOutcome) -> Node:
        """X's value after X's turn ``outcome`` on ``pos``, a position of the question's first round (X to act):
        which of X's turns win, not only the first found (``mine`` records every winning turn)."""
        self.name = pos.players[self.x].name
        return self._after_x(pos, outcome, self.horizon)

    def _after_x(self, pos: Position, outcome: TurnOutcome, left: int) -> Node:
        if (asked := self._ask("_after_x", pos, outcome, left)) is not None:
            return asked
        if self.goal is Goal.STEAL and has_steal(outcome.turn):
            return Node.leaf(True, self._reason("steal"))
        return self.turn_stage(outcome.position, left)

    def end_stage(self, pos: Position, left: int) -> Node:
        """Phases III and IV and the end check (R-FLOW, R-BUOY-1, R-END)."""
        last = left == 1
        if last and self.goal is Goal.WIN:
            # The flow and the lifebuoy never change a bank: the last round's end check needs no flow.
            won = winners(pos)
            if not won:
                return Node.leaf(False, self._reason("no-goal"))
            return Node.leaf(self.x in won, self._reason("end", winners=self._names(pos, won)))
        if last and self.goal is Goal.STEAL:
            return Node.leaf(False, self._reason("no-steal"))
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
        if (asked := self._ask("_put_back", pos, outcomes, i, left)) is not None:
            return asked
        if i == len(outcomes[0].pushes):
            return self._round_end(next_round(outcomes[0].position, pos), left)
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
            return Node.leaf(False, self._reason("lost", gems=self.baseline))
        if is_finished(pos):
            won = winners(pos)
            end = self._reason("end", winners=self._names(pos, won))
            return Node.leaf(self.x in won if self.goal is Goal.WIN else self.goal is Goal.SAFE, end)
        if left == 1:
            # Only the safe goal gets here (the last round of a win or a steal ends in end_stage): X kept its gems.
            return Node.leaf(self.goal is Goal.SAFE, self._reason("horizon", gems=self.baseline))
        return self.round_start(pos, left - 1)

    def _view(self, pos: Position, left: int) -> Any:
        """What a turn's value depends on: the position, or less of it in the last round (:meth:`_projection`,
        and with ``focus`` :meth:`_safe_projection` and :meth:`_steal_projection`)."""
        if left == 1 and self.goal is Goal.WIN:
            return self._projection(pos)
        if (left == 1 and self.active.focus and self.goal is Goal.SAFE and self.x in pos.acted
                and not pos.ruleset.modules and pos.ruleset.capacity == 1):
            return self._safe_projection(pos)
        if (left == 1 and self.active.focus and self.goal is Goal.STEAL and self.x not in pos.acted
                and not pos.ruleset.modules):
            return self._steal_projection(pos)
        return pos

    def _steal_projection(self, pos: Position) -> Any:
        """What decides the steal goal in the last round before X has acted (no expansion module): whether X's turn,
        once the players before X have acted, steals (after it nothing can: a steal is only ever X's own). A turn
        reads its player's canoes, card and hand, the caves, the weather (the cloud's steps, R-TURN-2) and, of the
        other players, only the canoes carrying a gem (the victims, R-STEAL-1: nobody steals from an empty canoe, and
        no canoe blocks another); banks and the acted players' cards and hands enter no turn. So a player who has
        acted (not X) counts only by the places and cargo of its loaded canoes; the players still to act, X with
        them, count whole, as do the turn order and who has acted."""
        players = tuple((i, pos.players[i]) if i not in pos.acted else
                        (i, tuple((c.place, c.gems) for c in pos.players[i].canoes if c.gems))
                        for i in pos.turn_order())
        return ("steal, last round", players, frozenset(pos.acted), pos.weather, pos.caves, pos.ruleset, pos.board)

    def _safe_projection(self, pos: Position) -> Any:
        """What decides the safe goal in the last round once X has acted (no expansion module, canoes of one gem):
        X's gems can still go only to a steal by a player still to act (which needs only the thief's canoes and
        card, and X's canoes: a steal is no gem action and an unload goes into any cave, R-STEAL-1, R-GEM-1) or
        over the falls (which needs X's canoes, the fork markers and the flow: the smallest paddle played and the
        weather, R-FLOW-1). So the canoes and banks of the players who have acted, their cards beyond the
        smallest paddle, and the caves do not matter any more."""
        cards = [pos.players[i].card for i in pos.acted]
        played = [int(c) for c in cards if c is not None and c.is_paddle]
        remaining = tuple((i, pos.players[i].canoes, pos.players[i].hand, pos.players[i].card)
                          for i in pos.turn_order() if i not in pos.acted)
        me = pos.players[self.x]
        return ("safe, last round", me.canoes, me.bank.total, remaining, min(played, default=None), pos.weather,
                pos.forks, pos.ruleset, pos.board)

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
            # Each later round X banks at most what its canoes carry (R-GEM-2, X-DOUBLE-1).
            now = 0 if self.x in pos.acted else bankable(pos, self.x)[0]
            if not could_reach_goal(pos, self.x, now + turn_capacity(pos, self.x) * (left - 1)):
                return Node.leaf(False, self._reason("out-of-reach", rounds=left))
            # (X has acted in the last round: the cut above took every bank that misses the goal.)
            if left == 1 and self.x in pos.acted:
                if not self._rivals_can_beat(pos):
                    return Node.leaf(True, self._unbeaten("unbeaten", pos, pos.players[self.x].bank))
        if self.goal is Goal.SAFE and left == 1 and self.x in pos.acted and self.baseline is not None:
            if x_gems(pos, self.x) < self.baseline:
                return Node.leaf(False, self._reason("lost", gems=self.baseline))
        return None

    def _bound(self, pos: Position, p: int, left: int) -> Node | None:
        """Cheap bounds (``bounds``), tried at every turn before searching below; each is exact, not a guess.

        * win, any round, no expansion module: X's bank cannot meet the goal with as many gems as X's canoes can
          still bank within the horizon, each alone on a river relaxed in X's favour (:func:`.answers.bank_reach`).
        * steal, last round, X has acted: X has no turn left in which to steal (a steal is only ever X's own).
        * steal, last round, X still to act, no expansion module: a steal needs a canoe of X on the river below
          disc 1 (it must move upstream onto a disc, R-STEAL-1; a port canoe only moves down, R-MOVE-6), and an
          enemy canoe that may carry a gem upstream of it when X acts: one of a player still to act (who may move
          or load), or a loaded one nearer the port. Without the modules no turn moves another player's canoe.
        * steal, last round, X's card chosen and X still to act after some of the others, no expansion module: X's
          card has a turn of movements and steals alone whose gems no player before X can reach first
          (:meth:`_sure_steal`): yes.
        * steal, any round, no expansion module: no other player's canoe carries a gem, and every player can keep
          its canoes empty (:func:`nothing_to_steal`, :func:`keeps_empty`): the others keep theirs empty, so X
          never has anything to steal.
        * safe, X's count of gems known (``baseline``): in the last round once X has acted, a bank at least that
          count keeps it (a bank changes only by banking and by paying a rescue, in phase I of a later round);
          in any round, with no expansion module, the same holds if X also has a canoe in the port: X can keep it
          there (R-TURN-3), load nothing, and so never has to pay a rescue (R-RESCUE-2).
        * safe, any round, X's card chosen and X still to act, no expansion module: X's card brings that about
          whatever the players before X do (:meth:`_sure_safe`)."""
        x = self.x
        if self.goal is Goal.STEAL and left == 1:
            if x in pos.acted:
                return Node.leaf(False, self._reason("no-turn-left"))
            if not pos.ruleset.modules and not (self._steal_in_reach(pos) and self._steal_in_range(pos)):
                return Node.leaf(False, self._reason("out-of-range"))
        if (self.goal is Goal.WIN and not pos.ruleset.modules
                and not could_reach_goal(pos, x, bank_reach(pos, x, left))):
            return Node.leaf(False, self._reason("bank-reach", rounds=left))
        if self.goal is Goal.WIN and left == 1 and p != x and x not in pos.acted and not pos.ruleset.modules:
            home = self._sure_win(pos)
            if home is not None:
                return Node.leaf(True, self._unbeaten("sure-win", pos, home))
        if self.goal is Goal.STEAL and left == 1 and p != x and x not in pos.acted and not pos.ruleset.modules:
            if self._sure_steal(pos):
                return Node.leaf(True, self._reason("sure-steal"))
            if self._steal_stays(pos):
                return Node.leaf(True, self._reason("steal-stays"))
        if self.goal is Goal.STEAL and nothing_to_steal(pos, x):
            return Node.leaf(False, self._reason("nothing-to-steal"))
        if self.goal is Goal.SAFE:
            baseline = self.baseline if self.baseline is not None else (x_gems(pos, x) if p == x else None)
            me = pos.players[x]
            if baseline is not None and me.bank.total >= baseline:
                if left == 1 and x in pos.acted:
                    return Node.leaf(True, self._reason("bank-keeps", gems=baseline))
                if not pos.ruleset.modules and any(c.in_port for c in me.canoes):
                    return Node.leaf(True, self._reason("port-and-bank", gems=baseline))
            if (left == 1 and x in pos.acted and self.baseline is not None and not pos.ruleset.modules
                    and self._kept_to_the_end(pos)):
                return Node.leaf(True, self._reason("kept", gems=self.baseline))
            if x not in pos.acted and not pos.ruleset.modules and self._sure_safe(pos):
                need = self.baseline if self.baseline is not None else x_gems(pos, x)
                return Node.leaf(True, self._reason("sure-safe", gems=need))
        return None

    def _reason(self, kind: str, **what: Any) -> Reason:
        """A reason about X (:class:`.reasons.Reason`)."""
        return Reason(kind, self.name, **what)

    @staticmethod
    def _names(pos: Position, seats: Iterable[int]) -> tuple[str, ...]:
        return tuple(pos.players[i].name for i in seats)

    def _unbeaten(self, kind: str, pos: Position, bank: Gems) -> Reason:
        """X wins with ``bank`` whatever the others do (``unbeaten``, ``sure-win``): the reason says X's bank as the
        tie-break in force reads it (R-END-3), and none with ``shared``, where X needs no better bank than anyone's."""
        tiebreak = pos.ruleset.tiebreak
        score = None if tiebreak is Tiebreak.SHARED else bank.total if tiebreak is Tiebreak.COUNT else bank.value
        return self._reason(kind, tiebreak=tiebreak.value, score=score)

    def _may_be_robbed(self, pos: Position, thieves: list[int]) -> bool:
        """An upper bound (no expansion module): might a canoe of the players ``thieves``, acting in this round's
        phase II before X's gems are out of their reach, steal one of X's gems? Each acts with one of the cards it
        may still act with (:func:`may_steal_on`). The gems to guard are X's, and those of their own canoes below
        one of X's gems (robbed first, such a canoe might need fewer points to climb onto X's disc); no turn moves
        another player's canoe or adds to its cargo (R-GEM-1, R-STEAL-1), and a thief climbs onto its victim, so a
        canoe upstream of all of X's gems never reaches them, whatever it carries."""
        mine = {c.place for c in pos.players[self.x].canoes if c.on_river and c.gems}
        if not mine or not thieves:
            return False
        above = pos.board.above
        targets = mine | {c.place for q in thieves for c in pos.players[q].canoes
                          if c.on_river and c.gems and not mine.isdisjoint(above(c.place))}
        for q in thieves:
            player = pos.players[q]
            budgets = {b for c in player.playable for b in c.budgets}
            if any(may_steal_on(pos, canoe, budgets, targets) for canoe in player.canoes):
                return True
        return False

    def _thieves_of(self, pos: Position, thieves: list[int], discs: Collection[str]) -> int:
        """An upper bound (no expansion module): how many canoes of the players ``thieves`` might steal on one of
        ``discs`` in this round's phase II, each with a card its player may still act with and with each count of its
        gems down to none (another of them may have robbed it first, :func:`may_steal_on`)? Each takes at most one gem
        a turn (a steal ends the canoe's action, R-STEAL-3)."""
        return sum(1 for q in thieves for canoe in pos.players[q].canoes
                   if any(may_steal_on(pos, canoe, {b for c in pos.players[q].playable for b in c.budgets}, discs, n)
                          for n in range(len(canoe.gems) + 1)))

    def _kept_to_the_end(self, pos: Position) -> bool:
        """A lower bound for the safe goal in the horizon's last round once X has acted (no expansion module): X
        still has the goal's count of gems, and none of them can be lost before the round ends. In the rest of the
        round a gem leaves X only by a steal of a player still to act (R-STEAL-1) or over the falls (R-FLOW-6); no
        turn moves another player's canoe, and X's bank stays (R-GEM-5; rescues are paid in a later round's phase I).

        * No canoe of a player still to act may steal on a disc where X has a loaded canoe, or where one of them
          has a loaded canoe below one of X's gems (robbed first, it might climb onto X's disc): :meth:`_may_be_robbed`,
          an upper bound.
        * No loaded canoe of X can go over the falls: in one step of the flow a disc moves at most one place down
          (R-FLOW-3; a branch that does not receive the disc does not move), so a canoe goes over only after at
          least as many steps as it has places to the falls on its shortest way down; and the flow is at most the
          smallest paddle among the cards known now (or, with none known, the largest any player may act with)
          plus the weather raised by one for each player still to act who may play the cloud (R-FLOW-1, R-TURN-2),
          never below ``min_flow`` (R-FLOW-2)."""
        x = self.x
        me = pos.players[x]
        assert self.baseline is not None
        if x_gems(pos, x) < self.baseline:
            return False
        loaded = [c for c in me.canoes if c.on_river and c.gems]
        if not loaded:
            return True
        rules, board = pos.ruleset, pos.board
        still = [q for q in pos.turn_order() if q not in pos.acted]
        # A card is known once it is the only one a player may act with: always for those who acted (R-CARD-1).
        known = [int(c) for player in pos.players if len(player.playable) == 1 for c in player.playable if c.is_paddle]
        possible = [int(c) for player in pos.players for c in player.playable if c.is_paddle]
        smallest = min(known) if known else max(possible, default=0)
        clouds = sum(1 for q in still if Card.CLOUD in pos.players[q].playable)
        flow = max(rules.min_flow, smallest + min(rules.weather_max, pos.weather + clouds))
        if any(_places_to_falls(board, c.place) <= flow for c in loaded):
            return False
        return not self._may_be_robbed(pos, still)

    def _sure_safe(self, pos: Position) -> bool:
        """A lower bound for the safe goal, X's card chosen and X still to act (no expansion module): X keeps every
        gem for any horizon when

        * no canoe of a player acting before X may steal on a disc where X has a loaded canoe, or where a player
          still to act before X has a loaded canoe below one of X's gems (:meth:`_may_be_robbed`: without the
          modules no turn moves another player's canoe or adds to its cargo, R-GEM-1, R-STEAL-1, so X's canoes are
          as now when X acts, with the same gems), and
        * X's card has a turn of movements alone (no gem action, no steal: it reads only X's canoes, the card and the
          river, R-MOVE-1..5, so it stays legal whatever the others did before) that leaves X a canoe in the port
          and a bank of at least the goal's count of X's gems (what X carries banked on the way, R-GEM-5).

        After that turn the bound of a bank and a port canoe holds (:meth:`_bound`): X keeps that canoe in the port
        and loads nothing. Before X's first turn the goal's count is not fixed yet: it will be X's gems now, since
        nobody before X can take any."""
        if not self._untouched_until_x(pos):
            return False
        need = self.baseline if self.baseline is not None else x_gems(pos, self.x)
        return any(after.bank.total >= need and any(c.in_port for c in after.canoes)
                   for after, _ in self._movements_alone(pos))

    def _sure_win(self, pos: Position) -> Gems | None:
        """A lower bound for the win goal in the horizon's last round, X still to act after some of the others (no
        expansion module): X wins whatever the others do when

        * X's card has a turn of movements alone (no gem action, no steal) that reaches the goal: it reads nothing
          but X's canoes, the card and the river (R-MOVE-1..5, R-GEM-5), so it stays legal, with the same bank, while
          X's canoes are as they are now;
        * no canoe of a player acting before X may steal on a disc where X has a loaded canoe, or where a player
          still to act before X has a loaded canoe below one of X's gems (:func:`may_steal_on`, an upper bound).
          Without the modules no turn moves another player's canoe or adds to its cargo (R-GEM-1, R-STEAL-1), so,
          player by player, X's canoes and those of the players below X's gems are as now when each acts, and none
          of their turns steals from X (a thief climbs onto its victim, R-STEAL-1, so a canoe upstream of all of
          X's gems never reaches them, whatever it carries);
        * nobody can end the round at the goal with a better bank than X's after that turn (R-END-3): those who have
          acted keep their banks, the others bank at most :func:`bankable`, and X's bank, once banked, stays (a bank
          changes only by banking, and by a rescue in a later round's phase I).

        X's bank after that turn when it does (the best, as the tie-break reads banks), else None."""
        found = self.sure_win_turn(pos)
        return None if found is None else found[1]

    def sure_win_turn(self, pos: Position, robbed: bool = False) -> tuple[Turn, Gems] | None:
        """A turn of X's card that :meth:`_sure_win` finds winning whatever the others do, with X's bank after it,
        or None.

        With ``robbed``, the claim a certificate's ``sure-win`` leaf makes, as its checker reads it (docs/SOLVER.md,
        "Certified answers"): a loaded canoe of X on a disc where a canoe of a player before X may steal
        (:meth:`_thieves_of`, each of their canoes with each count of its gems) may lose gems before X acts, at most
        one to each such canoe, and the turn must win after each such robbery too, with the least bank it leaves as
        the tie-break reads banks; the rivals are read by the goal and the score of one bank each
        (:meth:`_rivals_may_outscore`, tighter than :meth:`_rivals_can_beat`). The turn is one of movements alone, so
        it stays allowed, with the same movements, whatever X's canoes carry; where two of X's canoes share a disc
        and a robbery tells them apart, each way of making the same movements counts."""
        me = pos.players[self.x]
        if me.card is None:
            return None
        before = self._before_x(pos)
        if not robbed:
            if self._may_be_robbed(pos, before):
                return None
            wins = [(turn, after.bank) for after, turn in self._movements_alone(pos) if goal_reached(after)]
            if not wins:
                return None
            best = max(wins, key=lambda win: _score(pos, win[1]))
            return None if self._rivals_can_beat(pos, _score(pos, best[1])) else best
        # X's canoes a thief before X may climb onto, and how many gems the thieves may take in all.
        exposed = [k for k, c in enumerate(me.canoes) if c.on_river and c.gems
                   and self._thieves_of(pos, before, {c.place})]
        most = self._thieves_of(pos, before, {me.canoes[k].place for k in exposed})
        # X's bank after each turn of movements alone, with each way the thieves may have robbed X first (each exposed
        # canoe keeping a part of its gems, at most ``most`` gems taken in all).
        banks: dict[Any, list[list[Gems]]] = {}
        ways = 0
        for kept in itertools.product(*[sorted({part for n in range(len(me.canoes[k].gems) + 1)
                                                for part in itertools.combinations(me.canoes[k].gems, n)})
                                        for k in exposed]):
            if sum(len(me.canoes[k].gems) - len(part) for k, part in zip(exposed, kept)) > most:
                continue
            ways += 1
            canoes = list(me.canoes)
            for k, part in zip(exposed, kept):
                c = canoes[k]
                canoes[k] = Canoe(c.place, part, c.kind, c.moose, c.moored)
            theft = pos.with_player(self.x, Player(me.name, tuple(canoes), me.hand, me.bank, me.card))
            found: dict[Any, list[Gems]] = {}
            for after, turn in self._movements_alone(theft):
                found.setdefault(_movements(turn), []).append(after.bank)
            for moves, each in found.items():
                banks.setdefault(moves, []).append(each)
        wins = []
        for _, turn in self._movements_alone(pos):
            # The same movements after every robbery (two canoes on one disc, told apart by their cargo, each way),
            # winning after each.
            ways_made = banks.get(_movements(turn), [])
            left = [bank for some in ways_made for bank in some]
            if len(ways_made) == ways and all(goal_reached(Player(me.name, bank=bank)) for bank in left):
                wins.append((turn, min(left, key=lambda bank: _score(pos, bank))))
        if not wins:
            return None
        best = max(wins, key=lambda win: _score(pos, win[1]))
        return None if self._rivals_may_outscore(pos, _score(pos, best[1])) else best

    def _sure_steal(self, pos: Position) -> bool:
        """A lower bound for the steal goal in the horizon's last round, X's card chosen and X still to act after some
        of the others (no expansion module): X steals whatever the players before X do when X's card has a turn

        * made of movements and steals alone (no gem action: it reads no cave), each steal by a canoe of X that
          carries nothing now: such a turn reads X's canoes, the card, the river and the victims' canoes on the discs
          where it steals (R-MOVE-1..5, R-STEAL-1). Without the modules no other player's turn moves a canoe of X or
          adds to its cargo (R-GEM-1, R-STEAL-1): a canoe of X empty now is empty when X acts, and X's other canoe,
          robbed or not, makes the same movements (a movement reads no cargo; entering the port banks what it
          carries, R-MOVE-5);
        * whose victims are players who do not act before X (their canoes stay where they are, with their gems), on
          discs where no canoe of a player acting before X may steal with any card it may act with
          (:func:`may_steal_on`, an upper bound): nobody takes those gems first, and nobody adds to a victim's cargo.

        So that turn stays legal, with the same steals, whatever the players before X do."""
        return self.sure_steal_turn(pos) is not None

    def _steal_stays(self, pos: Position) -> bool:
        """A lower bound for the steal goal in the horizon's last round, X's card chosen and X still to act after some
        of the others (no expansion module), wider than :meth:`_sure_steal`: X's card has a turn made of movements and
        steals alone, each steal by a canoe of X that carries nothing now, on discs all different, each from a player
        who does not act before X. A thief before X may take that gem first, but then stays on the disc with it (a
        canoe cannot steal and then move, R-STEAL-3; it acts once a round): when X acts some canoe of another player on
        that disc still carries a gem (its owner does not move it before X; a thief takes it whole into a canoe it
        brings there empty, R-STEAL-1, and may be robbed there in turn, R-STEAL-4). X's canoes stand as now, the
        stealing ones empty (nobody moves another's canoe or adds to its cargo), and a movement reads no cargo; so
        the same movements stop on those discs with the budget spent and steal there, from whoever holds the gem."""
        before = self._before_x(pos)
        return pos.players[self.x].card is not None and any(
            len({disc for _, disc in steals}) == len(steals) and all(v not in before for v, _ in steals)
            for steals, _ in self._steals_alone(pos))

    def sure_steal_turn(self, pos: Position, robbed: bool = False) -> Turn | None:
        """A turn of X's card that :meth:`_sure_steal` finds stealing whatever the players before X do, or None.
        With ``robbed`` the thieves' canoes are also tried with each count of gems down to none (a canoe of a player
        before X might be robbed by another of them first, and so climb farther: :func:`may_steal_on`): the claim a
        certificate's ``sure-steal`` leaf makes, which its checker reads that way (docs/SOLVER.md, "Certified
        answers")."""
        me = pos.players[self.x]
        if me.card is None:
            return None
        before = self._before_x(pos)
        safe_from: dict[str, bool] = {}

        def safe(disc: str) -> bool:
            if disc not in safe_from:
                safe_from[disc] = not any(
                    may_steal_on(pos, canoe, {b for c in pos.players[q].playable for b in c.budgets}, {disc}, n)
                    for q in before for canoe in pos.players[q].canoes
                    for n in (range(len(canoe.gems) + 1) if robbed else (None,)))
            return safe_from[disc]
        return next((turn for steals, turn in self._steals_alone(pos)
                     if all(v not in before and safe(disc) for v, disc in steals)), None)

    def _steals_alone(self, pos: Position) -> list[tuple[tuple[tuple[int, str], ...], Turn]]:
        """The steals, (victim, disc), of each turn of X's chosen card made of movements and steals alone, each steal
        by a canoe of X that carries nothing now (:meth:`_sure_steal`), with the turn. Kept by what it reads: X's
        canoes and card, and the other players' loaded canoes."""
        me = pos.players[self.x]
        victims = tuple((q, c.place, c.gems) for q, p in enumerate(pos.players) if q != self.x for c in p.canoes
                        if c.gems)
        key = (me.canoes, me.card, victims)
        found = self._steals.get(key)
        if found is None:
            names = [p.name for p in pos.players]
            found = []
            for o in legal_turns(pos, self.x, me.card):
                steals: list[tuple[int, str]] = []
                alone = True
                for action in o.turn.actions:
                    ref, at = action.canoe, action.canoe.place
                    for step in action.steps:
                        if isinstance(step, Move):
                            at = step.dest
                        elif isinstance(step, Steal):
                            # The canoe that acts: the one on its place (with its cargo, where two share the place).
                            alone &= not any(c.gems for c in me.canoes if c.place == ref.place
                                             and ref.gems in (None, c.gems))
                            steals.append((names.index(step.victim), at))
                        elif isinstance(step, (Load, Unload)):
                            alone = False
                if steals and alone:
                    found.append((tuple(steals), o.turn))
            self._steals[key] = found
        return found

    def _untouched_until_x(self, pos: Position) -> bool:
        """X's card is chosen and nobody acting before X may steal from X (:meth:`_may_be_robbed`): X's canoes are as
        now when X acts."""
        return pos.players[self.x].card is not None and not self._may_be_robbed(pos, self._before_x(pos))

    def _movements_alone(self, pos: Position) -> list[tuple[Player, Turn]]:
        """X after each turn of its chosen card made of movements alone (no gem action, no steal), with the turn: such
        a turn reads nothing but X's canoes, the card and the river (R-MOVE-1..5, R-GEM-5), so it stays legal, with
        the same result for X, whatever the others do before X while X's canoes are as now. Kept by what it reads."""
        me = pos.players[self.x]
        key = (me.canoes, me.card, me.bank)
        found = self._home.get(key)
        if found is None:
            found = self._home[key] = [
                (o.player(self.x), o.turn) for o in legal_turns(pos, self.x, me.card)
                if not any(isinstance(step, (Load, Unload, Steal)) for a in o.turn.actions for step in a.steps)]
        return found

    def _steal_in_reach(self, pos: Position) -> bool:
        """An upper bound: might X steal in its turn of this round (see :meth:`_bound`)?"""
        depth = pos.board.depth
        thieves = [depth[c.place] for c in pos.players[self.x].canoes if c.on_river]
        deepest = max(thieves, default=0)
        if deepest < 2:
            return False
        for q, player in enumerate(pos.players):
            if q == self.x:
                continue
            if q not in pos.acted and any(c.in_play for c in player.canoes):
                return True
            if any(c.gems and c.on_river and depth[c.place] < deepest for c in player.canoes):
                return True
        return False

    def _before_x(self, pos: Position) -> list[int]:
        """The players still to act before X in this round's phase II, in turn order (R-TURN-1)."""
        order = pos.turn_order()
        return [q for q in order[:order.index(self.x)] if q not in pos.acted]

    def _steal_in_range(self, pos: Position) -> bool:
        """Another upper bound for the same question, X still to act in the last round (no expansion module): might
        one of X's canoes climb onto a disc where an enemy's gem may be when X acts (:func:`may_steal_on`)? An enemy's
        gem may be where a loaded canoe of a player who has acted, or who acts after X, stands now (no turn moves
        another player's canoe), or anywhere a canoe of a player acting before X can get to with its best card, up
        or down (it may load on the way, R-MOVE-1). X's canoes stand as now; their cargo can only be stolen from
        them before X acts, never grow (R-GEM-1, R-STEAL-1), so each count of gems down to none is tried."""
        x = self.x
        board = pos.board
        before = self._before_x(pos)
        where: set[str] = set()
        for q, player in enumerate(pos.players):
            if q == x:
                continue
            if q not in before:
                where |= {c.place for c in player.canoes if c.on_river and c.gems}
                continue
            reach = max((b for c in player.playable for b in c.budgets), default=0)
            for c in player.canoes:
                if c.on_river:
                    where.add(c.place)
                    where.update(board.above(c.place)[:reach])
                if c.in_play:
                    for d in range(1, reach + 1):
                        where.update(board.below(c.place, d))
        where.discard(PORT)
        me = pos.players[x]
        budgets = {b for c in me.playable for b in c.budgets}
        return any(may_steal_on(pos, c, budgets, where, n) for c in me.canoes for n in range(len(c.gems) + 1))

    def _rivals_can_beat(self, pos: Position, score: int | None = None) -> bool:
        """Could another player end this round at the goal with a better bank than X's (``score``: its value or its
        count of gems, as the tiebreak reads it; X's bank now by default), X at the goal? An upper bound (see
        :func:`bankable`); a tie shares the win (R-END-3). With ``tiebreak: shared`` nobody can: every player at the
        goal wins, whatever the banks."""
        tiebreak = pos.ruleset.tiebreak
        if tiebreak is Tiebreak.SHARED:
            return False
        by_value = tiebreak is Tiebreak.VALUE
        if score is None:
            score = _score(pos, pos.players[self.x].bank)
        for q, rival in enumerate(pos.players):
            if q == self.x:
                continue
            gems, value = (0, 0) if q in pos.acted else bankable(pos, q)
            if not (goal_reached(rival) or (gems and could_reach_goal(pos, q, gems))):
                continue
            if (rival.bank.value + value if by_value else rival.bank.total + gems) > score:
                return True
        return False

    def _rivals_may_outscore(self, pos: Position, score: int) -> bool:
        """Could another player end this round at the goal with a better bank than ``score`` (read as the tie-break
        reads banks, R-END-3)? An upper bound, tighter than :meth:`_rivals_can_beat`: each rival still to act banks at
        most :func:`bankable`'s gems, worth at most its value, of any colours, and the goal and the score are read of
        the same bank (every bank it may end with is tried: a rival who reaches the goal only with a fourth amethyst
        does not score with a ruby). Those who have acted keep their banks."""
        tiebreak = pos.ruleset.tiebreak
        if tiebreak is Tiebreak.SHARED:
            return False
        for q, rival in enumerate(pos.players):
            if q == self.x:
                continue
            gems, value = (0, 0) if q in pos.acted else bankable(pos, q)
            for n in range(gems + 1):
                for added in itertools.combinations_with_replacement(COLOURS, n):
                    if sum(int(c) for c in added) > value:
                        continue
                    bank = rival.bank.add(Gems.of(added))
                    if goal_reached(Player(rival.name, bank=bank)) and _score(pos, bank) > score:
                        return True
        return False

    def _steal_reach(self, pos: Position) -> frozenset[str]:
        """The discs where a canoe of X may steal when X acts this round (:func:`may_steal_on`, with each card X may
        act with and each count of the canoe's gems down to none), kept by what it reads: X's canoes and cards."""
        me = pos.players[self.x]
        key = (me.canoes, me.playable)
        found = self._reach.get(key)
        if found is None:
            budgets = {b for c in me.playable for b in c.budgets}
            found = self._reach[key] = frozenset(
                d for d in pos.board.discs if any(may_steal_on(pos, c, budgets, {d}, n) for c in me.canoes
                                                  for n in range(len(c.gems) + 1)))
        return found

    def _exposing(self, pos: Position) -> bool:
        """Are the others' turns ordered by the gems they leave in X's reach (``exposed``: the steal goal, X still to
        act this round)?"""
        return self.goal is Goal.STEAL and self.active.exposed and self.x not in pos.acted

    def _order(self, pos: Position, outcomes: list[TurnOutcome], mine: bool,
               first: Callable[[TurnOutcome], Any] | None = None) -> Iterator[TurnOutcome]:
        """The outcomes in the order they are tried (after ``first``, a sort key put before the others): for X, a steal
        first when X is to steal, then the most banked, then the most gained; for another player, what leaves X fewest
        gems first, then a steal. Sorted as the search reaches them (:func:`_lazily_sorted`): it mostly stops at the
        first choice that decides the node."""
        x = self.x
        before, bank = x_gems(pos, x), pos.players[x].bank.total  # once, not per outcome
        keys: list[Callable[[TurnOutcome], Any]] = [] if first is None else [first]
        # Only X's gems are read: the positions of the turns never tried are never made (TurnOutcome).
        if mine:
            def kept(o: TurnOutcome) -> tuple[int, int]:
                banked, carried = o.gems(x)
                return bank - banked, before - banked - carried
            keys += [_steals_first, kept] if self.goal is Goal.STEAL else [kept]
        else:
            keys += [lambda o: _gain(o, x, before), _steals_first]
        return _lazily_sorted(outcomes, keys)

    # -- AND / OR ----------------------------------------------------------------------------------------------

    def _decide(self, mine: bool, children: Iterable[tuple[Any, ...]], pos: Position | None = None) -> Node:
        """OR over X's choices (the first that succeeds), AND over the others' (the first that refutes).

        A child is (text, thunk) or, for X's card and turn, (text, thunk, card, turn). When this search only
        rebuilds the plain line (:attr:`oracle` set), each child's value is asked of the pruned search and only the
        child the plain search would report is walked here."""
        example: tuple[str, Callable[[], Node]] | None = None
        #: Why X's choices failed, when each ended at a leaf (a bound, the round's end) and all for one reason.
        reasons: set[Reason | None] | None = set() if mine else None
        for label, child, *chosen in children:
            if self.oracle is not None:  # the pruned search's node: its value, and its reason where it is a leaf
                node = self._probe(child)
                if node.value == mine:
                    return Node(mine, label, child(), pos, *chosen)
                if example is None:
                    example = (label, child)
            else:
                node = child()
                if node.value == mine:
                    return Node(mine, label, node, pos, *chosen)
                if example is None:
                    example = (label, lambda node=node: node)
            if reasons is not None:
                reasons = reasons | {_leaf_reason(node)} if node.child is None else None
        # Every child went the other way (or there was none: X cannot act, the others cannot stop X).
        if not mine and example is not None:  # keep one line of the others' choices as an example
            return Node(True, f"whatever the others do, e.g. {example[0]}", example[1](), pos)
        if not mine:
            return Node(True, "whatever the others do", None, pos)
        one = reasons.pop() if reasons is not None and len(reasons) == 1 else None  # the one reason, said once
        failed = self._reason("no-choice", then=one)
        return Node(False, failed.text(), None, pos, reason=failed)


def _lazily_sorted(items: list[T], keys: list[Callable[[T], Any]]) -> Iterator[T]:
    """The items in the order ``sorted(items, key=lambda i: tuple(k(i) for k in keys))`` gives them (stable: equal
    items keep their order), each key worked out only for the items of the groups the caller reaches: the first key
    for every item, the next within the group of equal first keys when that group is reached, and so on. A search
    that stops at its first choice pays for one group, not for the sort of them all. Each key's values are hashable
    and ordered as ints are (equal exactly when neither is less)."""
    if len(items) <= 1 or not keys:
        yield from items
        return
    values = list(map(keys[0], items))
    rest = keys[1:]
    distinct = set(values)
    if len(distinct) == 1:
        yield from _lazily_sorted(items, rest)
        return
    # Each group picked out when it is reached; few values (the usual case) are cheaper so than a dict of groups.
    if len(distinct) <= 8:
        for k in sorted(distinct):
            yield from _lazily_sorted(list(itertools.compress(items, [v == k for v in values])), rest)
        return
    groups: dict[Any, list[T]] = {}
    for item, k in zip(items, values):
        group = groups.get(k)
        if group is None:
            groups[k] = [item]
        else:
            group.append(item)
    for k in sorted(groups):
        yield from _lazily_sorted(groups[k], rest)


def _gain(o: TurnOutcome, x: int, before: int) -> int:
    """X's gems after the turn less ``before``, X's gems before it."""
    banked, carried = o.gems(x)
    return banked + carried - before


def _steals_first(o: TurnOutcome) -> int:
    """-1 for a turn that steals, else 0: the sort key that puts steals first."""
    return -1 if has_steal(o.turn) else 0


def _movements(turn: Turn) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """A turn's movements without the cargo that names a canoe where two share a place: the same after a robbery."""
    return tuple((action.canoe.place, tuple(map(str, action.steps))) for action in turn.actions)


def _score(pos: Position, bank: Gems) -> int:
    """A bank as the tie-break in force reads it (R-END-3): its count of gems with ``tiebreak: count``, else its
    value (``shared`` reads none: any score does)."""
    return bank.total if pos.ruleset.tiebreak is Tiebreak.COUNT else bank.value


def _places_to_falls(board: Board, place: str) -> int:
    """The fewest single steps of the flow that take a canoe on the disc ``place`` over the falls: one more than the
    discs below it on its shortest way down."""
    steps, level = 1, board.down[place]
    while level:
        steps += 1
        if not all(board.down[d] for d in level):
            break
        level = tuple(c for d in level for c in board.down[d])
    return steps


def _leaf_reason(node: Node) -> Reason | None:
    """Why a leaf failed X: its own reason, or the reason a failed choice of X gave for all its options (None: none
    said)."""
    if node.reason is not None and node.reason.kind == "no-choice":
        return node.reason.then
    return node.reason


#: The most choices a line of play shows (:func:`trace`).
LINE_LIMIT = 12


def trace(node: Node | None, limit: int = LINE_LIMIT) -> list[str]:
    """The chain of choices below a node: X's winning line, or the others' refuting answer."""
    out: list[str] = []
    while node is not None and len(out) < limit:
        if node.choice:
            out.append(node.choice)
        node = node.child
    return out


def line_reason(node: Node | None, limit: int = LINE_LIMIT) -> Reason | None:
    """The reason the line below a node ends with (:func:`trace`'s last choice), when the line shows its leaf."""
    shown = 0
    while node is not None:
        if node.choice:
            shown += 1
        if shown > limit:
            return None
        if node.child is None:
            return node.reason
        node = node.child
    return None
