"""The search's answer written out as a certificate (:mod:`.certificate`): the game walked again over the engine, the
search (:class:`.search.Search`, its transposition table warm) telling which branches hold.

For a "yes" the walk follows one winning option at X's nodes and every option at the others' nodes and the flow's;
for a "no" every option at X's nodes and one refuting option at the others'. Nothing is cut by a bound: where the
search prunes, the certificate either expands the node or ends in a leaf whose claim the encoding can check on its
own — ``rest`` for the horizon's last round once X has acted (the players after X, and for the safe goal the flow,
one question), ``unreached`` where the search's bound says X cannot bank enough in its last turn to reach the goal
(one question over every turn of X), ``empty`` where no other player carries a gem and each can keep it so (the
steal goal), ``sure-steal`` where X's card steals whatever the players before X play (the steal goal: the turn
named, its standing after their turns checked), ``any-steal`` where one of a few turns of X's card does, ``sure-win``
where X's card brings the goal home whatever they play and nobody beats X's bank (the win goal, the horizon's last
round), ``steal``, ``end`` and ``over``.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Callable

from niagara_solver.engine.apply import apply_turn
from niagara_solver.engine.flow import flow_choices, flow_value
from niagara_solver.engine.outcome import TurnOutcome
from niagara_solver.engine.rescue import apply_rescue, begin_turns, rescue_options
from niagara_solver.engine.round import goal_reached, is_finished, next_round, winners
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import Card, Phase
from niagara_solver.model.errors import TurnError
from niagara_solver.model.notation import Load, Move, Rescue, Steal, Turn, Unload
from niagara_solver.model.position import Player, Position
from niagara_solver.model.limits import OutOfTime
from niagara_solver.model.readings import UncoveredRulesError
from niagara_solver.model.ruleset import Reveal
from niagara_solver.solver.answers import Goal, bankable, could_reach_goal, has_steal, turn_capacity, x_gems
from niagara_solver.solver.certificate import Certificate, Claim, CNode, NodeKind, Option
from niagara_solver.solver.search import Search, nothing_to_steal

#: A branch as the walk meets it: how to write its option (without the node below), whether it holds for X (the
#: search's value) and how to write the node below. The option is written only where the node keeps it: a turn's
#: position is made only then (most of X's turns in a "yes", and of the others' in a "no", are never kept).
_Branch = tuple[Callable[[], Option], Callable[[], bool], Callable[[], int]]

#: The most turns of X an ``any-steal`` leaf lists (each is a copy of X's turn relation in the checker's question).
ANY_STEAL_TURNS = 6


class _Writer:
    """One certificate being written: positions and nodes, each stored once."""

    def __init__(self, search: Search, answer: bool) -> None:
        self.search = search
        self.x = search.x
        self.goal = search.goal
        self.answer = answer
        self.positions: list[Position] = []
        self.index: dict[Position, int] = {}
        self.nodes: list[CNode | None] = []
        self.memo: dict[Any, int] = {}
        #: Below a node whose plays were walked for an ``any-steal`` leaf in vain: not walked again.
        self.no_any = False
        #: Whether X's turn replays, by what it reads (:meth:`_replays`).
        self.replayed: dict[Any, bool] = {}

    def holds(self, stage: str, *args: Any) -> bool:
        """Does the branch below hold for X? The value of the search's stage there, asked of its pruned search
        (:attr:`.search.Search.values`: the values are exact, so the certificate is the one the plain walk gives,
        without walking the plain search's line to each value), with the safe goal's count of X's gems."""
        values = self.search.values
        values.baseline, values.name = self.search.baseline, self.search.name
        return bool(getattr(values, stage)(*args).value)

    def at(self, pos: Position) -> int:
        if pos not in self.index:
            self.index[pos] = len(self.positions)
            self.positions.append(pos)
        return self.index[pos]

    def node(self, key: Any, make: Callable[[int], CNode]) -> int:
        """The node for ``key`` (with the search's baseline: the safe goal's count of X's gems), written once."""
        key = (key, self.search.baseline)
        if key not in self.memo:
            self.memo[key] = len(self.nodes)
            self.nodes.append(None)  # a place kept, so that the node's index is known before its options
            self.nodes[self.memo[key]] = make(self.memo[key])
        return self.memo[key]

    def leaf(self, pos: Position, claim: Claim, value: bool, won: tuple[int, ...] = ()) -> int:
        return self.node(("leaf", claim, pos, value),
                         lambda _: CNode(NodeKind.LEAF, self.at(pos), claim=claim, value=value, winners=won))

    def decide(self, kind: NodeKind, pos: Position, player: int | None, key: Any, branches: list[_Branch]) -> int:
        """A node whose options are the branches: one that holds for X (X's node of a "yes") or fails it (the
        others' node of a "no"), or all of them (X's node of a "no", the others' of a "yes": the search found each
        going the answer's way)."""
        mine = player == self.x and kind is not NodeKind.FLOW

        def make(_: int) -> CNode:
            chosen: list[Option] = []
            for written, holds, below in branches:
                if mine != self.answer:  # every option: the checker shows there are no others
                    option = written()
                    chosen.append(Option(below(), option.to, option.card, option.turn, option.rescue))
                elif holds() == self.answer:
                    option = written()
                    chosen.append(Option(below(), option.to, option.card, option.turn, option.rescue))
                    break
            return CNode(kind, self.at(pos), player, tuple(chosen))
        return self.node((kind, pos, key), make)

    # -- the stages, as the search walks them --------------------------------------------------------------

    def round_start(self, pos: Position, left: int) -> int:
        if is_finished(pos):
            won = winners(pos)
            return self.leaf(pos, Claim.OVER, self.goal is Goal.WIN and self.x in won, won)
        return self.rescues(pos, 0, left)

    def rescues(self, pos: Position, i: int, left: int) -> int:
        order = pos.turn_order()
        if i == len(order):
            return self.card(begin_turns(pos), left)
        p = order[i]
        options = rescue_options(pos, p)
        if len(options) == 1:
            return self.rescues(apply_rescue(pos, p, options[0]), i + 1, left)

        def branch(o: Rescue) -> _Branch:
            after = apply_rescue(pos, p, o)
            return (lambda: Option(0, self.at(after), rescue=o), lambda: self.holds("rescue_stage", after, i + 1, left),
                    lambda: self.rescues(after, i + 1, left))
        return self.decide(NodeKind.RESCUE, pos, p, (i, left), [branch(o) for o in options])

    def cut(self, pos: Position, left: int) -> int | None:
        """A leaf in place of the node, where X's goal is out of reach (the leaf's value is False):

        * ``bound`` (the win goal; X to act, or X has acted this round): the search's bound, X's bank plus what X's
          canoes can still bank this turn (:func:`bankable`) and what they carry at most per later round
          (:func:`turn_capacity`) misses the goal;
        * ``unreached`` (the horizon's last round, X to act): no turn of X reaches the goal (or steals), every turn
          tried;
        * ``empty`` (the steal goal): no other player's canoe carries a gem, and they can keep theirs empty to the
          end (the search's bound, :func:`.search.nothing_to_steal`)."""
        p = pos.next_to_act()
        acted = self.x in pos.acted
        if self.goal is Goal.STEAL and nothing_to_steal(pos, self.x):
            return self.leaf(pos, Claim.EMPTY, False)
        if self.goal is Goal.WIN and (p == self.x or (acted and left > 1)):
            gems = 0 if acted else bankable(pos, self.x)[0]
            if not could_reach_goal(pos, self.x, gems + turn_capacity(pos, self.x) * (left - 1)):
                return self.node(("bound", pos, left),
                                 lambda _: CNode(NodeKind.LEAF, self.at(pos), claim=Claim.BOUND, value=False,
                                                 gems=gems))
        if left != 1 or p != self.x or self.goal is Goal.SAFE:
            return None
        me = pos.players[self.x]
        cards = [me.card] if me.card is not None else list(me.hand)
        if self.goal is Goal.WIN:
            reaches = any(goal_reached(o.player(self.x)) for c in cards for o in legal_turns(pos, self.x, c))
        else:
            reaches = any(has_steal(o.turn) for c in cards for o in legal_turns(pos, self.x, c))
        return None if reaches else self.leaf(pos, Claim.UNREACHED, False)

    def sure_steal(self, pos: Position, p: int) -> int | None:
        """A ``sure-steal`` leaf in place of the node (the steal goal, X's card chosen, players before X still to act,
        no expansion module): X's card has a turn that steals whatever they play, by the search's bound
        (:meth:`.search.Search.sure_steal_turn`, read as the checker reads the leaf: a thief before X may have been
        robbed first). The leaf names the turn; the checker shows it stays legal, with its steals, after every play
        of theirs, rather than the certificate spelling those plays out."""
        me = pos.players[self.x]
        if (self.goal is not Goal.STEAL or p == self.x or self.x in pos.acted or me.card is None
                or pos.ruleset.modules):
            return None
        turn = self.search.values.sure_steal_turn(pos, robbed=True)
        if turn is None:
            return None
        return self.node(("sure-steal", pos), lambda _: CNode(NodeKind.LEAF, self.at(pos), claim=Claim.SURE_STEAL,
                                                              value=True, card=me.card, turn=turn))

    def sure_win(self, pos: Position, p: int, left: int) -> int | None:
        """A ``sure-win`` leaf in place of the node (the win goal, the horizon's last round, X's card chosen, players
        before X still to act, no expansion module): X's card has a turn of movements alone that brings the goal home
        whatever they play, and nobody can end the round at the goal with a better bank, by the search's bound
        (:meth:`.search.Search.sure_win_turn`, read as the checker reads the leaf: a thief before X may have been
        robbed first). The leaf names the turn; the checker shows that nobody before X can take a gem of X's, that the
        turn stays allowed and reaches the goal from every position X may then face, and that the tie-break leaves X
        among the winners at the round's end, rather than the certificate spelling out the others' plays."""
        me = pos.players[self.x]
        if (self.goal is not Goal.WIN or left != 1 or p == self.x or self.x in pos.acted or me.card is None
                or pos.ruleset.modules):
            return None
        found = self.search.values.sure_win_turn(pos, robbed=True)
        if found is None:
            return None
        turn = found[0]
        return self.node(("sure-win", pos), lambda _: CNode(NodeKind.LEAF, self.at(pos), claim=Claim.SURE_WIN,
                                                            value=True, card=me.card, turn=turn))

    def any_steal(self, pos: Position, p: int, left: int) -> tuple[bool, int | None]:
        """An ``any-steal`` leaf in place of the node (the steal goal's "yes", the horizon's last round, X's card
        chosen, nobody before X has acted since): every play of the players before X is walked over the engine, and
        at each position where X acts a turn of X's card that steals is taken, one already taken where one does; the
        leaf lists those turns (at most :data:`ANY_STEAL_TURNS`), each with a position where it was taken. The checker
        asks the encoding once whether some play of those players leaves every listed turn disallowed or stealing
        nothing, rather than the certificate spelling out their plays. Whether the plays were walked, and the leaf, or
        None where a position of X has no steal (the search's "yes" rests on something else) or too many turns are
        needed: the node is expanded, without walking the plays below it again."""
        me = pos.players[self.x]
        if (self.goal is not Goal.STEAL or not self.answer or left != 1 or p == self.x or self.x in pos.acted
                or me.card is None or not self.holds("turn_stage", pos, left)):
            return False, None
        card = me.card
        found: dict[str, tuple[Turn, Position]] = {}
        seen: set[Position] = set()
        stack = [pos]
        while stack:
            at = stack.pop()
            if at in seen:
                continue
            seen.add(at)
            deadline = self.search.values.deadline
            if len(seen) % 64 == 1 and deadline is not None and time.perf_counter() > deadline:
                raise OutOfTime()
            q = at.next_to_act()
            if q is None:
                return True, None
            if q == self.x:
                # A turn taken already that steals here too (the interpreter replays it: far cheaper than listing
                # every turn of X's card at each of the positions the plays lead to).
                if any(self._replays(at, card, t) for t, _ in found.values()):
                    continue
                steals = [o.turn for o in legal_turns(at, q, card) if has_steal(o.turn)]
                if not steals:
                    return True, None
                if not any(str(t) in found for t in steals):
                    found[str(steals[0])] = (steals[0], at)
                    if len(found) > ANY_STEAL_TURNS:
                        return True, None
                continue
            player = at.players[q]
            for c in ([player.card] if player.card is not None else list(player.hand)):
                stack.extend(o.position for o in legal_turns(at, q, c))
        return True, self.node(("any-steal", pos), lambda _: CNode(
            NodeKind.LEAF, self.at(pos), claim=Claim.ANY_STEAL, value=True, card=card,
            turns=tuple((t, self.at(at)) for t, at in found.values())))

    def _replays(self, pos: Position, card: Card, turn: Turn) -> bool:
        """Is ``turn`` one X may play with ``card`` at ``pos``, by the engine's interpreter (R-TURN-1)? Asked once per
        turn and what it reads: X, the fork markers and the weather, the caves where it has gem actions, and the
        other players' canoes on the discs where it steals (no canoe blocks another, and a steal reads only the
        canoes on the disc where the thief stops, R-STEAL-1, R-STEAL-3)."""
        steals = {next((s.dest for s in reversed(a.steps) if isinstance(s, Move)), a.canoe.place)
                  for a in turn.actions if any(isinstance(s, Steal) for s in a.steps)}
        actions = any(isinstance(s, (Load, Unload)) for a in turn.actions for s in a.steps)
        key = (str(turn), card, pos.players[self.x], pos.forks, pos.weather, pos.caves if actions else None,
               tuple((q, c) for q, p in enumerate(pos.players) if q != self.x for c in p.canoes if c.place in steals))
        if key not in self.replayed:
            try:
                apply_turn(pos, self.x, turn, card)
                self.replayed[key] = True
            except TurnError:
                self.replayed[key] = False
        return self.replayed[key]

    def card(self, pos: Position, left: int) -> int:
        me = pos.players[self.x]
        if self.x in pos.acted or me.card is not None:
            return self.turn(pos, left)
        cut = self.cut(pos, left)
        if cut is not None:
            return cut

        def branch(c: Card) -> _Branch:
            chosen = pos.with_player(self.x, Player(me.name, me.canoes, me.hand, me.bank, c))
            return (lambda: Option(0, card=c), lambda: self.holds("reveal_stage", chosen, left),
                    lambda: self.turn(chosen, left))
        return self.decide(NodeKind.CARD, pos, self.x, left, [branch(c) for c in me.hand])

    def turn(self, pos: Position, left: int) -> int:
        p = pos.next_to_act()
        if left == 1 and self.x in pos.acted:  # the rest of the horizon: one question for the checker
            return self.leaf(pos, Claim.REST, self.holds("turn_stage", pos, left))
        if p is None:
            return self.flow(pos, left)
        cut = self.cut(pos, left)
        if cut is not None:
            return cut
        sure = self.sure_steal(pos, p)
        if sure is None:
            sure = self.sure_win(pos, p, left)
        if sure is not None:
            return sure
        if not self.no_any:
            walked, sure = self.any_steal(pos, p, left)
            if sure is not None:
                return sure
            if walked:  # the plays below are a part of those walked: not walked again
                self.no_any = True
                try:
                    return self.turn(pos, left)
                finally:
                    self.no_any = False
        if p == self.x and self.goal is Goal.SAFE and self.search.baseline is None:
            self.search.baseline = x_gems(pos, self.x)  # X's gems when its first turn begins (docs/SOLVER.md)
            try:
                return self.turn(pos, left)
            finally:
                self.search.baseline = None
        player = pos.players[p]
        cards = [player.card] if player.card is not None else list(player.hand)
        branches: list[_Branch] = []
        for card in cards:
            for o in legal_turns(pos, p, card):
                branches.append(self._turn_branch(p, card, o, left))
        return self.decide(NodeKind.TURN, pos, p, left, branches)

    def _turn_branch(self, p: int, card: Card, outcome: TurnOutcome, left: int) -> _Branch:
        """A turn's branch; its position (``outcome.position``) made only when the branch is asked or kept."""
        def option() -> Option:
            return Option(0, self.at(outcome.position), card, outcome.turn)
        if p == self.x and self.goal is Goal.STEAL and has_steal(outcome.turn):
            return option, lambda: True, lambda: self.leaf(outcome.position, Claim.STEAL, True)
        return (option, lambda: self.holds("turn_stage", outcome.position, left),
                lambda: self.turn(outcome.position, left))

    def flow(self, pos: Position, left: int) -> int:
        outcomes = flow_choices(pos, flow_value(pos))
        if any(o.pushes for o in outcomes):  # the whirlpool's pushes (X-WHIRL-4): not in the encoding yet
            raise UncoveredRulesError("ruleset.x_whirl", "the whirlpool is not yet covered by the encoding, which "
                                      "checks a certificate", "X-WHIRL-4")
        seen: dict[Position, None] = {o.position: None for o in outcomes}

        def branch(after: Position) -> _Branch:
            start = next_round(after, pos)
            return (lambda: Option(0, self.at(after)), lambda: self.holds("_round_end", start, left),
                    lambda: self.round_end(start, left))
        return self.decide(NodeKind.FLOW, pos, None, left, [branch(a) for a in seen])

    def round_end(self, pos: Position, left: int) -> int:
        baseline = self.search.baseline
        if self.goal is Goal.SAFE and baseline is not None and x_gems(pos, self.x) < baseline:
            return self.leaf(pos, Claim.END, False)
        if is_finished(pos):
            won = self.x in winners(pos) if self.goal is Goal.WIN else self.goal is Goal.SAFE
            return self.leaf(pos, Claim.END, won)
        if left == 1:
            return self.leaf(pos, Claim.END, self.goal is Goal.SAFE)
        return self.round_start(pos, left - 1)


def certificate(search: Search, pos: Position, answer: bool) -> Certificate:
    """The certificate of the search's answer (``answer``: its value at ``pos``) for X, its goal and horizon."""
    if pos.ruleset.reveal is Reveal.AT_ONCE:
        raise UncoveredRulesError("ruleset.reveal", "reveal: \"at_once\" is not yet covered by the encoding, which "
                                  "checks a certificate (--backend search answers it)", "R-TURN-1")
    writer = _Writer(search, answer)
    writer.at(pos)
    if pos.phase is Phase.CARDS:
        writer.round_start(pos, search.horizon)
    else:
        writer.card(pos, search.horizon)
    return _compact(Certificate(search.x, search.goal, search.horizon, answer, tuple(writer.positions),
                                tuple(n for n in writer.nodes if n is not None)))


def _compact(cert: Certificate) -> Certificate:
    """The nodes, from the root (node 0: its place is kept before its options) depth first, and the positions they
    name, renumbered in the order met: two certificates of one answer read (and diff) alike."""
    order: list[int] = []
    seen: set[int] = set()
    stack = [0]
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        order.append(i)
        stack.extend(reversed([o.then for o in cert.nodes[i].options]))
    number = {old: new for new, old in enumerate(order)}
    places: dict[int, int] = {0: 0}
    for i in order:
        n = cert.nodes[i]
        for at in (n.at, *(o.to for o in n.options if o.to is not None), *(at for _, at in n.turns)):
            places.setdefault(at, len(places))
    nodes = tuple(dataclasses.replace(
        cert.nodes[i], at=places[cert.nodes[i].at], turns=tuple((t, places[at]) for t, at in cert.nodes[i].turns),
        options=tuple(dataclasses.replace(o, then=number[o.then], to=None if o.to is None else places[o.to])
                      for o in cert.nodes[i].options)) for i in order)
    positions = tuple(cert.positions[old] for old, _ in sorted(places.items(), key=lambda item: item[1]))
    return dataclasses.replace(cert, positions=positions, nodes=nodes)
