"""The SMT backend of the puzzle solver: the same questions answered over the z3 encoding.

Every successor comes from the encoding (its models, enumerated: rescues, the other players' turns, flows),
never from the engine. X's decisive turn — X's turn in the last round of the horizon — is an exists/forall
question settled by a counterexample-guided loop (CEGIS, as in z3's ``efsmt`` example):

1. a synthesis solver proposes a turn of X (the turn relation from the pinned position) that succeeds
   against every reply found so far;
2. a verification solver looks for a reply of the players after X (their cards and turns, and for the safe
   goal the flow) that defeats it;
3. a reply found is added to the synthesis solver as "if this reply is legal after X's turn, X still
   succeeds", and the loop goes on; no proposal left means X cannot succeed; no defeating reply means X can.

Earlier levels (phase I, X's card chosen blind, the players before X, earlier rounds) are explored in Python
over the encoding's enumerated outcomes, with the same quantifier order as the search backend.

The answer is the same kind as the search backend's, read from this backend's own models through the encoding's
front door (:meth:`Relations.decode_turn` and the enumerator's decoded outcomes), never from the engine: a "yes"
names X's card and the turn the synthesis solver proposed, with one line of play; a "no" gives, for each option
of X, the others' answer that defeats it, and where that is X's decisive turn, for each turn of X the reply a
verification solver finds against it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

import z3

from niagara_solver.encoding.enumerate import Enumerator
from niagara_solver.encoding.relations import NCOL, FlowStep, Relations, SymPosition, TurnStep, value
from niagara_solver.encoding.solver import make_preprocessing_solver, make_solver
from niagara_solver.model.atoms import Card, Phase
from niagara_solver.model.notation import Rescue, Turn
from niagara_solver.model.position import Player, Position, start_hand
from niagara_solver.model.readings import UncoveredRulesError
from niagara_solver.model.ruleset import Reveal, Tiebreak
from niagara_solver.model.verdict import Verdict
from niagara_solver.model.limits import check_time, time_left
from niagara_solver.solver.answers import (Answer, Goal, OutOfTime, ProgressReport, could_reach_goal, turn_capacity,
                                          x_gems)
from niagara_solver.solver.answers import AnsweredBy, x_choice
from niagara_solver.solver.reasons import Reason
from niagara_solver.encoding.terms import z_and, z_sum


@dataclass
class Node:
    """A node's value and the choice that achieves it (X's) or refutes it (the others'), in the words the search
    backend uses; for a won AND node the first of the others' choices, as an example line."""

    value: bool
    choice: str = ""
    child: "Node | None" = None
    #: X's card and turn when the choice is X's (as data, for the answer; ``choice`` is their text).
    card: Card | None = None
    turn: Turn | None = None
    #: Why the node is decided, for a leaf (the round's end, the bound, X's decisive turn) and for X's decision that
    #: fails everywhere (kind ``no-choice``): the search backend's reasons (:mod:`.reasons`), the same claims.
    reason: Reason | None = None
    #: X's decisive turn refuted by replies the loop found: the position before it, X's card and the count of gems X
    #: must keep (the safe goal), so that the refutations can give the reply that defeats each turn of X.
    decisive: tuple[Position, Card, int | None] | None = None

    @classmethod
    def leaf(cls, value: bool, reason: Reason, decisive: tuple[Position, Card, int | None] | None = None) -> "Node":
        """A leaf decided for ``reason``, in its words."""
        return cls(value, reason.text(), reason=reason, decisive=decisive)


#: How many turns of X a refutation lists at X's decisive turn, each with the reply that defeats it (as many as the
#: search backend lists); the others are counted.
REFUTED_TURNS = 12

#: A choice at a node: its text, the node below it (made when asked for), and X's card and turn when the choice is
#: X's. (Any: the thunks are lambdas binding a loop variable by default argument, whose type mypy does not infer.)
Child = tuple[Any, ...]


class SmtSolver:
    """One query over the encoding. ``progress`` is told, now and then, the positions explored and a note: the
    candidate turns of X the loop proposed and the replies it found that refute them."""

    def __init__(self, pos: Position, x: int, goal: Goal, horizon: int, timeout: float | None,
                 progress: ProgressReport | None = None) -> None:
        if pos.ruleset.reveal is Reveal.AT_ONCE:  # the levels below follow the cards revealed in turn (R-TURN-1)
            raise UncoveredRulesError("ruleset.reveal", "reveal: \"at_once\" is not yet covered by the smt backend "
                                      "(the search answers it: --backend search)", "R-TURN-1")
        self.x = x
        self.name = pos.players[x].name
        self.names = [p.name for p in pos.players]
        self.goal = goal
        self.horizon = horizon
        left = time_left(timeout if timeout else None)  # its own budget, within the command's time limit
        self.deadline = time.perf_counter() + left if left is not None else None
        self.timeout = timeout
        self.relations = Relations.of(pos)
        self.enumerator = Enumerator(self.relations, timeout)
        self.memo: dict[Any, Node] = {}
        self.baseline: int | None = None
        self.nodes = 0
        #: Turns of X the synthesis solver proposed, and replies the verification solver found that defeat one.
        self.candidates = 0
        self.refuted = 0
        self.progress = progress
        self.cards: dict[int, Card | None] = {}
        #: The chains of replies :meth:`_defeat` asks about, by the players in order and their known cards: the same
        #: terms each time (the same names), so built once (building the turns took half of a question's time).
        self._chains: dict[Any, tuple[SymPosition, list[Any], SymPosition, dict[str, Any]]] = {}
        #: X's symbolic turn that :meth:`decisive` synthesizes, and the reply chains after it that :meth:`_survives`
        #: asks X's turn to survive, by their tag, players and known cards: the same names give the same terms each
        #: time, so each is built once per query (rebuilding them was most of a decisive question's Python time).
        self._x_turn: tuple[SymPosition, Any] | None = None
        self._after: dict[Any, tuple[Any, SymPosition, dict[str, Any]]] = {}

    def _tick(self) -> None:
        self.nodes += 1
        self._report()
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise OutOfTime()

    def _report(self) -> None:
        """Tell ``progress`` what has been done (each time: it is told little, and rarely, next to a solver's work)."""
        if self.progress is not None:
            self.progress(self.nodes, f"candidate turns {self.candidates}, refutations {self.refuted}")

    # -- the levels explored in Python ----------------------------------------------------------------------

    def value(self, pos: Position) -> Node:
        """The value of a position for X (at the start of a round, or in phase II), with its line of play."""
        if pos.phase is Phase.CARDS:
            return self.round_start(pos, self.horizon)
        return self.card_stage(pos, self.horizon)

    def round_start(self, pos: Position, left: int) -> Node:
        self._tick()
        won = self.enumerator.winners(pos)
        if won:
            return Node.leaf(self.goal is Goal.WIN and self.x in won, self._reason("over", winners=self._named(won)))
        decided = self.enumerator.rescues_decoded(pos)
        outcomes = sorted(decided, key=lambda p: repr(p))
        return self._rescue_level(outcomes, decided, pos.turn_order(), 0, left)

    def _rescue_level(self, outcomes: list[Position], decided: dict[Position, dict[int, Rescue]],
                      order: tuple[int, ...], i: int, left: int) -> Node:
        """Open rescue decisions in seat order: each player's part of the joint outcomes, in turn."""
        if len(outcomes) == 1 or i == len(order):
            return self.card_stage(_turns_phase(outcomes[0]), left)
        p = order[i]
        parts: dict[Any, list[Position]] = {}
        for o in outcomes:
            parts.setdefault((o.players[p].canoes, o.players[p].bank), []).append(o)
        if len(parts) == 1:  # no decision of this player's changes anything
            return self._rescue_level(outcomes, decided, order, i + 1, left)
        name = self.names[p]
        return self._decide(p == self.x, ((f"{name} rescues {decided[group[0]][p]}",
                                           lambda group=group: self._rescue_level(group, decided, order, i + 1, left),
                                           None, None) for group in parts.values()))

    def card_stage(self, pos: Position, left: int) -> Node:
        """X chooses a card blind, before any other choice of the round (R-CARD-1)."""
        me = pos.players[self.x]
        if self.x in pos.acted or me.card is not None:
            return self.turn_stage(pos, left)
        return self._decide(True, ((f"{me.name} chooses {c.label}", lambda c=c: self.turn_stage(
            pos.with_player(self.x, Player(me.name, me.canoes, me.hand, me.bank, c)), left), c, None)
            for c in me.hand))

    def turn_stage(self, pos: Position, left: int) -> Node:
        """Phase II: the next player in order (R-TURN-1); after everyone, the flow and the end of the round."""
        self._tick()
        key = (pos, left, self.baseline)
        if key in self.memo:
            return self.memo[key]
        p = pos.next_to_act()
        node: Node | None = None
        if p is None:
            node = self.end_stage(pos, left)
        elif self.goal is Goal.WIN and not could_reach_goal(
                pos, self.x, turn_capacity(pos, self.x) * ((0 if self.x in pos.acted else 1) + left - 1)):
            # X cannot bank enough in time even unhindered: each turn X banks at most what its canoes carry (the
            # search's bound, X-DOUBLE-1), and nobody else's turn adds to X's bank. Said as the search says it where
            # X acts or has acted, and before X's turn as the claim about every play of the players before X.
            kind = "out-of-reach" if p == self.x or self.x in pos.acted else "bank-reach"
            node = Node.leaf(False, self._reason(kind, rounds=left))
        elif p == self.x:
            if self.goal is Goal.SAFE and self.baseline is None:
                self.baseline = x_gems(pos, self.x)
                node = self.turn_stage(pos, left)
                self.baseline = None
                return node
            card = pos.players[self.x].card
            assert card is not None
            if left == 1:
                node = self.decisive(pos, card)
            elif self.goal is Goal.STEAL:
                node = self.decisive(pos, card, steal_only=True)  # a steal now reaches the goal
                if not node.value:
                    node = None
            if node is None:
                turns = self.enumerator.turns_decoded(pos, self.x, card)
                node = self._decide(True, ((f"{self.name} ({card.label}): {turns[after]}",
                                            lambda after=after: self.turn_stage(after, left), card, turns[after])
                                           for after in self._ordered(pos, turns, best=True)))
        else:
            player = pos.players[p]
            cards = [player.card] if player.card is not None else list(player.hand)
            node = self._decide(False, self._their_turns(pos, p, cards, left))
        self.memo[key] = node
        return node

    def _their_turns(self, pos: Position, p: int, cards: list[Card], left: int) -> Iterator[Child]:
        """Another player's turns, card by card, each enumerated only when the ones before have not refuted X."""
        for card in cards:
            turns = self.enumerator.turns_decoded(pos, p, card)
            for after in self._ordered(pos, turns, best=False):
                yield (f"{self.names[p]} ({card.label}): {turns[after]}",
                       lambda after=after: self.turn_stage(after, left), None, None)

    def _ordered(self, pos: Position, outcomes: dict[Position, Turn], best: bool) -> list[Position]:
        """The most telling outcomes first: X's gains for X's choices, X's losses for the others'; then as the turns
        are listed (:func:`_listed`), so that the line reported does not depend on the order z3 found them in."""
        before = x_gems(pos, self.x)
        return sorted(outcomes, key=lambda after: ((-1 if best else 1) * (x_gems(after, self.x) - before),
                                                   *_listed(outcomes[after])))

    def end_stage(self, pos: Position, left: int) -> Node:
        """Phases III and IV and the end check (R-FLOW, R-BUOY-1, R-END)."""
        if left == 1:
            if self.goal is Goal.WIN:  # the flow never changes a bank
                won = self.enumerator.winners(pos)
                if not won:
                    return Node.leaf(False, self._reason("no-goal"))
                return Node.leaf(self.x in won, self._reason("end", winners=self._named(won)))
            if self.goal is Goal.STEAL:
                return Node.leaf(False, self._reason("no-steal"))
        flows = self.enumerator.flows_decoded(pos, None)
        return self._decide(False, ((_flow_text(*how), lambda after=after: self._round_end(_next_round(after, pos),
                                                                                            left), None, None)
                                    for after, how in flows.items()))

    def _round_end(self, pos: Position, left: int) -> Node:
        if self.goal is Goal.SAFE and self.baseline is not None and x_gems(pos, self.x) < self.baseline:
            return Node.leaf(False, self._reason("lost", gems=self.baseline))
        won = self.enumerator.winners(pos)
        if won:
            end = self._reason("end", winners=self._named(won))
            return Node.leaf((self.x in won) if self.goal is Goal.WIN else self.goal is Goal.SAFE, end)
        if left == 1:  # only the safe goal gets here (the last round of a win or a steal ends in end_stage)
            return Node.leaf(self.goal is Goal.SAFE, self._reason("horizon", gems=self.baseline))
        return self.round_start(pos, left - 1)

    def _decide(self, mine: bool, children: Iterable[Child]) -> Node:
        """OR over X's choices (the first that succeeds), AND over the others' (the first that refutes); a child
        is (text, thunk, X's card, X's turn)."""
        example: tuple[str, Node] | None = None
        #: Why X's choices failed, when each ended at a leaf (a bound, the round's end) and all for one reason.
        reasons: set[Reason | None] | None = set() if mine else None
        for label, child, card, turn in children:
            node = child()
            if node.value == mine:
                return Node(mine, label, node, card, turn)
            if example is None:
                example = (label, node)
            if reasons is not None:
                reasons = reasons | {_leaf_reason(node)} if node.child is None else None
        if not mine:  # every answer of the others failed (or there was none): one of them as an example
            if example is not None:
                return Node(True, f"whatever the others do, e.g. {example[0]}", example[1])
            return Node(True, "whatever the others do")
        one = reasons.pop() if reasons is not None and len(reasons) == 1 else None  # the one reason, said once
        return Node.leaf(False, self._reason("no-choice", then=one))

    def _reason(self, kind: str, **what: Any) -> Reason:
        """A reason about X (:class:`.reasons.Reason`)."""
        return Reason(kind, self.name, **what)

    def _named(self, seats: Iterable[int]) -> tuple[str, ...]:
        return tuple(self.names[i] for i in seats)

    def _unbeaten(self, pos: Position) -> Reason:
        """X has acted in the last round, its bank at the goal, and stays among the winners whatever the others do:
        its bank as the tie-break in force reads it (R-END-3; none with ``shared``, where no better bank is needed)."""
        tiebreak, bank = pos.ruleset.tiebreak, pos.players[self.x].bank
        score = None if tiebreak is Tiebreak.SHARED else bank.total if tiebreak is Tiebreak.COUNT else bank.value
        return self._reason("unbeaten", tiebreak=tiebreak.value, score=score)

    # -- X's decisive turn: exists/forall by CEGIS ---------------------------------------------------------

    def decisive(self, pos: Position, card: Card, steal_only: bool = False) -> Node:
        """Is there a turn of X, with ``card``, that succeeds against every reply of the players after X? The node
        names the turn the synthesis solver found (decoded from its model), or says why there is none."""
        relations = self.relations
        order = self._after_x(pos)
        if self._x_turn is None:
            pre = relations.position("dec.pre")
            self._x_turn = (pre, relations.turn(pre, self.x, "dec.x", swap=True))
        pre, x_turn = self._x_turn
        synth = make_solver(self.timeout)
        synth.add(*relations.pin(pre, pos), x_turn.plays(card))
        synth.add(*[c for _, c in x_turn.constraints])
        if self.goal is Goal.STEAL or steal_only:
            synth.add(x_turn.steals())
            if self._check(synth) == z3.unsat:  # X is next to act: no turn of X this round steals
                return Node.leaf(False, self._reason("out-of-range"))
            self.candidates += 1
            return self._chosen(synth.model(), x_turn, card, self._reason("steal"))
        if self.goal is Goal.WIN:
            # X's bank is final once X has acted this round: X must reach the goal in this turn (R-END-1).
            synth.add(relations.reached_goal(x_turn.post, self.x))
            if self._check(synth) == z3.unsat:
                return Node.leaf(False, self._reason("out-of-reach", rounds=1))
        if self.goal is Goal.WIN and not order:  # X acts last: the round's end decides
            won = relations.end(x_turn.post)
            synth.add(won[self.x])
            if self._check(synth) == z3.unsat:
                return Node.leaf(False, self._reason("no-choice"))
            self.candidates += 1
            model = synth.model()
            end = self._reason("end", winners=self._named(relations.decode_winners(model, won)))
            return self._chosen(model, x_turn, card, end)
        # A necessary condition, which the others cannot change after X's turn: X's gems can only go down after it.
        if self.goal is Goal.SAFE:
            assert self.baseline is not None
            synth.add(z_sum([*x_turn.post.bank[self.x], *(g for k in range(2) for g in x_turn.post.cargo[self.x][k])])
                      >= self.baseline)
        replies = 0
        for rounds in range(200):
            answer = self._check(synth)
            if answer == z3.unsat:
                if not replies:  # (the win goal's condition was asked above) every turn of X gives a gem away
                    return Node.leaf(False, self._reason("no-choice", then=self._reason("lost", gems=self.baseline)))
                # Every turn of X meets one of the replies found: the refutations list a defeating reply per turn.
                return Node.leaf(False, self._reason("no-choice"), decisive=(pos, card, self.baseline))
            model = synth.model()
            after_x = self._decode_after(model, x_turn, pos, card)
            found = self._defeat(after_x, order)
            self.candidates += 1
            if found is not None:
                self.refuted += 1
            self._report()
            if found is None:
                return self._chosen(model, x_turn, card, self._holds(after_x))
            replies += 1
            synth.add(*self._survives(x_turn.post, found[0], order, f"dec.cex{rounds}"))
        raise OutOfTime()

    def _after_x(self, pos: Position) -> list[int]:
        """The players still to act after X this round, in turn order; their known cards kept for :meth:`_defeat`."""
        order = [p for p in pos.turn_order() if p not in pos.acted and p != self.x]
        self.cards = {p: pos.players[p].card for p in order}
        return order

    def _chosen(self, model: z3.ModelRef, x_turn: TurnStep, card: Card, then: Reason) -> Node:
        """X's turn a model of the synthesis solver chose, in the notation, and why it succeeds."""
        _, turn = self.relations.decode_turn(model, x_turn, self.names)
        return Node(True, f"{self.name} ({card.label}): {turn}", Node.leaf(True, then), card, turn)

    def _holds(self, after_x: Position) -> Reason:
        """Why X's decisive turn holds, once no reply of the players after X (and for the safe goal, no flow)
        defeats it: X stays among the winners (its bank at the goal), or keeps its count of gems."""
        if self.goal is Goal.WIN:
            return self._unbeaten(after_x)
        return self._reason("kept", gems=self.baseline)

    def _check(self, solver: z3.Solver) -> Any:
        answer = solver.check()
        if answer == z3.unknown:
            raise OutOfTime()
        return answer

    def _decode_after(self, model: z3.ModelRef, transition: Any, pos: Position, card: Card) -> Position:
        after = self.relations.decode_position(model, transition.post, pos)
        players = tuple(Player(p.name, a.canoes, a.hand if i == self.x else p.hand, a.bank,
                               card if i == self.x else p.card)
                        for i, (p, a) in enumerate(zip(pos.players, after.players)))
        return after.replace(players=players, acted=(*pos.acted, self.x))

    def _reply_chain(self, start: SymPosition, order: list[int], tag: str,
                     pinned: dict[str, Any] | None) -> tuple[list[Any], list[Any], SymPosition, dict[str, Any]]:
        """The players after X act in order (each with a card of the hand), then for the safe goal the flow:
        the relation's constraints, the constraints pinning the choices to ``pinned`` (if given), the final
        state and the steps (whose choices a reply is read from)."""
        relations = self.relations
        state = start
        constraints: list[Any] = []
        variables: dict[str, Any] = {}
        for p in order:
            turn = relations.turn(state, p, f"{tag}.p{p}", swap=True)
            constraints += [c for _, c in turn.constraints]
            known = self.cards.get(p)
            if known is not None:  # a card already chosen is fixed (R-CARD-1)
                constraints.append(turn.plays(known))
            variables[f"p{p}"] = turn
            state = turn.post
        if self.goal is Goal.SAFE:
            flow = relations.flow(state, f"{tag}.flow")
            constraints += [c for _, c in flow.constraints]
            variables["flow"] = flow
            state = flow.post
        pins = self._pin(variables, pinned) if pinned is not None else []
        return constraints, pins, state, variables

    def _lost(self, state: SymPosition) -> Any:
        if self.goal is Goal.WIN:
            return z3.Not(self.relations.end(state)[self.x])
        gems = z_sum([*state.bank[self.x], *(g for k in range(2) for g in state.cargo[self.x][k])])
        assert self.baseline is not None
        return gems < self.baseline

    def _defeat(self, after_x: Position, order: list[int], said: bool = False
                ) -> tuple[dict[str, Any], list[str], Reason | None] | None:
        """A reply of the players after X that defeats X, as values of their choices and (with ``said``) in words,
        each player's card and turn, and the flow, with why X is defeated at its end (None if there is none)."""
        key = (tuple(order), tuple(self.cards.get(p) for p in order))
        if key not in self._chains:
            start = self.relations.position("ver.pre")
            constraints, _, final, steps = self._reply_chain(start, order, "ver", None)
            self._chains[key] = (start, constraints, final, steps)
        start, constraints, final, steps = self._chains[key]
        solver = make_preprocessing_solver(self.timeout)
        solver.add(*self.relations.pin(start, after_x), *constraints, self._lost(final))
        if self._check(solver) == z3.unsat:
            return None
        model = solver.model()
        choices = {key: step.decisions(model) for key, step in steps.items()}
        if not said:
            return choices, [], None
        if self.goal is Goal.SAFE:
            return choices, self._said(model, steps), self._reason("lost", gems=self.baseline)
        won = self._named(self.relations.decode_winners(model, self.relations.end(final)))
        return choices, self._said(model, steps), self._reason("end", winners=won) if won else self._reason("no-goal")

    def _said(self, model: z3.ModelRef, steps: dict[str, Any]) -> list[str]:
        """A reply in words, read from the verification solver's model (:meth:`Relations.decode_turn`)."""
        out = []
        for key, step in steps.items():
            if isinstance(step, FlowStep):
                k = value(model, step.k)
                out.append(_flow_text(k, self.relations.decode_branches(model, step, k)))
            else:
                card, turn = self.relations.decode_turn(model, step, self.names)
                out.append(f"{self.names[step.player]} ({card.label}): {turn}")
        return out

    def _pin(self, steps: dict[str, Any], reply: dict[str, Any]) -> list[Any]:
        return [c for key, step in steps.items() for c in step.pin_decisions(reply[key])]

    def _survives(self, after_x: SymPosition, reply: dict[str, Any], order: list[int], tag: str) -> list[Any]:
        """If the reply (its choices fixed, hard) is legal after X's symbolic turn, X is not defeated by it."""
        key = (id(after_x), tag, tuple(order), tuple(self.cards.get(p) for p in order))
        kept = self._after.get(key)
        if kept is None:  # the terms made in the order they always were: the chain, its pins, the conjunction
            constraints, pins, final, variables = self._reply_chain(after_x, order, tag, reply)
            legal = z_and(constraints)
            self._after[key] = (legal, final, variables)
        else:
            legal, final, variables = kept
            pins = self._pin(variables, reply)
        return [*pins, z3.Implies(legal, z3.Not(self._lost(final)))]

    # -- the refutations of a "no" -----------------------------------------------------------------------------

    def refutations(self, pos: Position, out: list[dict[str, Any]]) -> None:
        """For each option of X (each card, or each turn when the card is known; with each of X's rescue decisions
        when phase I leaves X one), the others' answer that defeats it, appended to ``out`` as they are found."""
        x = self.x
        if pos.phase is not Phase.CARDS:
            self._options(pos, "", out)
            return
        decided = self.enumerator.rescues_decoded(pos)
        outcomes = sorted(decided, key=lambda p: repr(p))
        parts = [{(o.players[p].canoes, o.players[p].bank) for o in outcomes} for p in range(len(pos.players))]
        if any(len(part) > 1 for p, part in enumerate(parts) if p != x):
            # Another player decides in phase I too: one refuting line from the round's start.
            self._explain("every choice of " + self.name, self.value(pos), out)
            return
        groups: dict[Any, list[Position]] = {}  # X's decisions alone, grouped as _rescue_level groups them
        for o in outcomes:
            groups.setdefault((o.players[x].canoes, o.players[x].bank), []).append(o)
        for group in groups.values():
            rescue = f"{self.name} rescues {decided[group[0]][x]}" if len(groups) > 1 else ""
            self._options(_turns_phase(group[0]), rescue, out)

    def _options(self, start: Position, rescue: str, out: list[dict[str, Any]]) -> None:
        """The refutations of X's options in phase II from ``start``: each card X may choose, or X's turn with the
        card X holds (after X's rescue decision ``rescue``, if there was one to take)."""
        x, name = self.x, self.name
        me = start.players[x]
        if x not in start.acted and me.card is None:
            for card in me.hand:
                chosen = start.with_player(x, Player(me.name, me.canoes, me.hand, me.bank, card))
                option = f"{rescue}, plays {card.label}" if rescue else f"{name} plays {card.label}"
                self._explain(option, self.turn_stage(chosen, self.horizon), out)
            return
        self._explain(rescue or "every choice of " + name, self.turn_stage(start, self.horizon), out,
                      turns=not rescue)

    def _explain(self, option: str, node: Node, out: list[dict[str, Any]], turns: bool = False) -> None:
        """The line that refutes an option. Where it ends at X's decisive turn, refuted by the replies the loop
        found, each turn of X is listed with the reply that defeats it (up to :data:`REFUTED_TURNS`), read from a
        verification solver's model for that turn; with ``turns``, where X acts first, each turn is an option of
        its own (as the search backend lists X's turns when X's card is known)."""
        line: list[str] = []
        last = node
        while True:
            if last.choice:
                line.append(last.choice)
            if last.child is None:
                break
            last = last.child
        if last.value or last.decisive is None:
            entry: dict[str, Any] = {"option": option, "answer": line[:12]}
            reason = line_reason(node)
            if reason is not None:
                entry["reason"] = reason.to_json()
            out.append(entry)
            return
        before, card, baseline = last.decisive
        prefix = line[:-1]
        saved, self.baseline = self.baseline, baseline
        try:
            order = self._after_x(before)
            outcomes = self.enumerator.turns_decoded(before, self.x, card)
            for after in sorted(outcomes, key=lambda after: _listed(outcomes[after]))[:REFUTED_TURNS]:
                turn = outcomes[after]
                found = self._defeat(after, order, said=True)
                if found is None:  # the loop proved otherwise: one of the two questions is wrong, never to be hidden
                    raise AssertionError(f"no reply defeats {self.name}'s turn {turn}, which the loop refuted")
                _, said, why = found
                assert why is not None
                reply = [*said, why.text()]
                if turns and not prefix:
                    out.append({"option": f"{self.name}: {turn}", "answer": reply, "reason": why.to_json()})
                else:
                    out.append({"option": option, "answer": [*prefix, f"{self.name} ({card.label}): {turn}", *reply],
                                "reason": why.to_json()})
            if len(outcomes) > REFUTED_TURNS:
                more = len(outcomes) - REFUTED_TURNS
                out.append({"option": option, "answer": [*prefix, f"{more} more turn(s) of {self.name} "
                                                         f"({card.label}), each defeated too (not listed)"]})
        finally:
            self.baseline = saved


def trace(node: Node | None) -> list[str]:
    """The chain of choices below a node: X's winning line, or the others' refuting answer (12 at most)."""
    out: list[str] = []
    while node is not None and len(out) < 12:
        if node.choice:
            out.append(node.choice)
        node = node.child
    return out



def _listed(turn: Turn) -> tuple[int, str]:
    """The order turns are listed in: by the number of acting canoes, then by notation (as docs/NOTATION.md lists
    distinct outcomes)."""
    return len(turn.actions), str(turn)


def _leaf_reason(node: Node) -> Reason | None:
    """Why a leaf failed X: its own reason, or the reason a failed choice of X gave for all its options (None: none
    said)."""
    if node.reason is not None and node.reason.kind == "no-choice":
        return node.reason.then
    return node.reason


def line_reason(node: Node | None) -> Reason | None:
    """The reason the line below a node ends with (:func:`trace`'s last choice), when the line shows its leaf."""
    shown = 0
    while node is not None:
        shown += bool(node.choice)
        if shown > 12:
            return None
        if node.child is None:
            return node.reason
        node = node.child
    return None


def _flow_text(steps: int, branches: list[tuple[tuple[str, str], ...]] | None) -> str:
    """The flow in words, as the search backend says it: its steps, and with a free fork the branch each step's
    disc took (R-FLOW-1, R-FLOW-4)."""
    text = f"the river flows {steps}"
    if branches is not None:
        text += f" ({','.join('/'.join(label for _, label in step) for step in branches)})"
    return text


def _turns_phase(pos: Position) -> Position:
    """The start of phase II after phase I's decisions (every card still to be chosen)."""
    return pos.replace(phase=Phase.TURNS, acted=())


def _next_round(after_flow: Position, before_flow: Position) -> Position:
    """Phase IV: the lifebuoy passes (R-BUOY-1); cards leave the table, empty hands refill (R-CARD-2)."""
    players = tuple(Player(p.name, p.canoes, p.hand or start_hand(after_flow.ruleset), p.bank,
                           None) for p in after_flow.players)
    return after_flow.replace(players=players, lifebuoy=(before_flow.lifebuoy + 1) % len(players),
                              round=before_flow.round + 1, phase=Phase.CARDS, acted=())


def solve_smt(pos: Position, player: int, goal: Goal, horizon: int = 1, timeout: float | None = 60,
              progress: ProgressReport | None = None) -> Answer:
    """Answer ``goal`` for ``player`` over the encoding: for a "yes" X's card and turn and a line of play, for a
    "no" the refutation of each option, all read from the encoding's models (``progress``: :class:`SmtSolver`)."""
    start = time.perf_counter()
    name = pos.players[player].name
    answer = Answer(Verdict.UNKNOWN, name, goal, horizon, AnsweredBy.SMT)
    solver: SmtSolver | None = None
    try:
        check_time()  # no encoding is built past the time limit
        solver = SmtSolver(pos, player, goal, horizon, timeout, progress)
        won = solver.enumerator.winners(pos) if pos.phase is Phase.CARDS else ()
        if won:
            answer.verdict = Verdict.of(goal is Goal.WIN and player in won)
            answer.reason = Reason("over", name, winners=tuple(pos.players[i].name for i in won))
            answer.note = answer.reason.text()
            answer.details["finished"] = True
        else:
            root = solver.value(pos)
            answer.verdict = Verdict.of(root.value)
            if root.value:
                answer.card, answer.turn = x_choice(root)
                answer.line = trace(root)
                answer.reason = line_reason(root)
    except (OutOfTime, TimeoutError):
        answer.verdict = Verdict.UNKNOWN
        answer.note = "the solver ran out of time"
    if solver is not None and answer.verdict is Verdict.REFUTED and not answer.details.get("finished"):
        try:  # the answer stands; only the list of refutations may be cut short
            solver.refutations(pos, answer.refutations)
        except (OutOfTime, TimeoutError):
            answer.note = "the refutations were cut short (the time limit)"
    answer.nodes = solver.nodes if solver is not None else 0
    answer.seconds = time.perf_counter() - start
    return answer


__all__ = ["solve_smt", "SmtSolver", "Node", "trace", "line_reason", "NCOL"]
