"""A certificate checked against the encoding alone (docs/SOLVER.md, "Certified answers").

The checker walks the certificate (:mod:`.certificate`) from the question's position and asks the encoding, never
the engine:

* each chosen move (X's in a "yes", the others' in a "no") is a turn the encoding accepts from the position, and it
  leads to the stated position (one pinned question); a chosen rescue or flow is among the encoding's outcomes;
* at every node where all options must be covered (the others' and the flow's in a "yes", X's in a "no"), the
  encoding has no outcome outside those listed: one question for a turn (over every card in hand), the encoding's
  own outcome sets for rescues and flows (R-RESCUE-1, R-FLOW-1);
* every leaf's claim is the encoding's: the end check names the winners (R-END-1..3), a steal is a steal
  (R-STEAL-1), and ``rest`` — the horizon's last round after X's turn — is one question over the turns of the
  players still to act (and the flow, for the safe goal): can they defeat X? For the safe goal it is first shown by
  parts where it can be, each turn and the flow bounded apart (:meth:`_Checker.losses_fit`);
* the answer is recomputed by a tiny minimax (:func:`.certificate.bounds`) over the checked tree.

The positions between nodes are the checker's own: read from the encoding's models, or, for bookkeeping the rules
fix (a card chosen, the next round's hands and lifebuoy), computed here. An unknown (a timeout) makes the result
unknown, never accepted; a certificate that fails a check is refused, naming the node and the rule.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, NoReturn

import z3

from niagara_solver.encoding.enumerate import IncrementalEnumerator, Session, evaluate_turn
from niagara_solver.encoding.explain import ILLEGAL, explain_turn
from niagara_solver.encoding.relations import Decisions, Relations, SymPosition, TurnStep, canoe_order, value
# A question asked once (a pinned turn, "any turn outside the certificate?", a lemma) goes to a solver that
# simplifies it with the position's values in place first: 1.4 times faster at the median on the bundled puzzles'
# certificates (docs/SOLVER.md); so does the chain of the last round's turns, once per position.
from niagara_solver.encoding.solver import make_preprocessing_solver, make_solver
from niagara_solver.encoding.terms import all_of, z_and, z_or, z_sum
from niagara_solver.encoding.witness import witness_turn
from niagara_solver.model.atoms import FALLEN, Card, Gems, Phase
from niagara_solver.model.limits import OutOfTime, time_left
from niagara_solver.model.notation import Turn, turn_words
from niagara_solver.model.position import Player, Position
from niagara_solver.model.readings import UncoveredRulesError, require
from niagara_solver.model.ruleset import Reveal
from niagara_solver.model.verdict import Verdict
from niagara_solver.solver.answers import Goal, turn_capacity, x_gems
from niagara_solver.solver.certificate import Certificate, CNode, NodeKind, bounds
from niagara_solver.solver.smt import _next_round, _turns_phase


@dataclass(frozen=True)
class CertificateCheck:
    """The encoding's word on a certificate: CONFIRMED (accepted: the answer holds), REFUTED (refused: ``node``
    breaks ``rule``, for ``reason``) or UNKNOWN (the time ran out first)."""

    verdict: Verdict
    answer: bool
    node: int | None = None
    rule: str = ""
    reason: str = ""
    questions: int = 0
    nodes: int = 0
    seconds: float = 0.0

    @property
    def exit_status(self) -> int:
        """0 accepted, 1 refused, 3 unknown (as ``solve``)."""
        return {Verdict.CONFIRMED: 0, Verdict.REFUTED: 1}.get(self.verdict, 3)

    @property
    def word(self) -> str:
        """``accepted``, ``refused`` or ``unknown``."""
        return {Verdict.CONFIRMED: "accepted", Verdict.REFUTED: "refused"}.get(self.verdict, "unknown")

    def text(self) -> str:
        """One line for the command line."""
        said = f"certificate of a \"{'yes' if self.answer else 'no'}\" {self.word}"
        if self.verdict is Verdict.REFUTED:
            said += f" at node {self.node}{f' ({self.rule})' if self.rule else ''}: {self.reason}"
        elif self.verdict is Verdict.UNKNOWN:
            said += f": {self.reason}"
        return said + f" ({self.nodes} nodes, {self.questions} questions to the encoding, {self.seconds:.2f} s)"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"verdict": self.word, "answer": "yes" if self.answer else "no",
                               "nodes": self.nodes, "questions": self.questions, "seconds": round(self.seconds, 3)}
        if self.verdict is Verdict.REFUTED:
            out.update(node=self.node, rule=self.rule, reason=self.reason)
        elif self.reason:
            out["reason"] = self.reason
        return out


class Refused(Exception):
    """A check failed: the node, the rule and the reason."""

    def __init__(self, node: int, rule: str, reason: str) -> None:
        super().__init__(f"node {node} ({rule}): {reason}")
        self.node = node
        self.rule = rule
        self.reason = reason


Bounds = tuple[bool, bool]


class _Checker:
    """One certificate walked over the encoding."""

    def __init__(self, cert: Certificate, timeout: float | None) -> None:
        pos = cert.position
        require(pos.ruleset, "encoding")  # as the smt backend: a module the encoding lacks is refused (exit 2)
        if pos.ruleset.reveal is Reveal.AT_ONCE:
            raise UncoveredRulesError("ruleset.reveal", "reveal: \"at_once\" is not yet covered by the encoding, "
                                      "which checks a certificate", "R-TURN-1")
        self.cert = cert
        self.x = cert.x
        self.goal = cert.goal
        self.names = [p.name for p in pos.players]
        left = time_left(timeout if timeout else None)
        self.deadline = time.perf_counter() + left if left is not None else None
        kept = _kept(pos)
        self.relations = kept.relations
        self.enumerator = kept.enumerator
        self.sessions = kept.sessions
        self.chains = kept.chains
        self.lemmas = kept.lemmas
        self.kept = kept
        self.tag = f"cert.{self.goal.value}"
        self.memo: dict[Any, Bounds] = {}
        self.questions = 0
        #: The last position pinned for a turn: (the symbolic position, the position, its pins).
        self._pinned: tuple[SymPosition, Position, list[Any]] | None = None

    # -- the walk -------------------------------------------------------------------------------------------

    def node(self, i: int, pos: Position, kind: str | tuple[str, ...], rule: str) -> CNode:
        """The certificate's node ``i``, which must be of ``kind`` and stand at ``pos``."""
        n = self.cert.nodes[i]
        kinds = (kind,) if isinstance(kind, str) else kind
        if n.kind not in kinds:
            raise Refused(i, rule, f"expected a {' or '.join(kinds)} node here, found a {n.kind} node")
        if self.cert.positions[n.at] != pos:
            raise Refused(i, rule, "the node stands at another position than the one the encoding leads to")
        return n

    def _turn_leaf(self, i: int, pos: Position, goal: Goal, rule: str, what: str) -> CNode:
        """A leaf that stands for X's turn written in it (``what``: "a steal", "a win"), with X's card still to come
        here (R-CARD-2): the checks a sure leaf starts with, whatever it claims."""
        n = self.node(i, pos, "leaf", rule)
        me = pos.players[self.x]
        if self.goal is not goal or n.value is not True or n.card is None or n.turn is None:
            raise Refused(i, rule, f"the leaf claims {n.claim} {n.value}: it stands for {what} of X's turn "
                                   "written in it")
        if pos.phase is not Phase.TURNS or self.x in pos.acted or me.card != n.card:
            raise Refused(i, "R-CARD-2", f"{me.name} has no turn with the {n.card.label} still to come here")
        return n

    def start(self) -> Bounds:
        pos = self.cert.position
        if pos.phase is Phase.CARDS:
            return self.round_start(0, pos, self.cert.horizon, None)
        return self.card(0, pos, self.cert.horizon, None)

    def round_start(self, i: int, pos: Position, left: int, baseline: int | None) -> Bounds:
        won = self.winners(pos)
        if won:  # the game is over (R-END-1): only the question's own position can be past the end
            n = self.node(i, pos, "leaf", "R-END-1")
            value = self.goal is Goal.WIN and self.x in won
            if n.claim != "over" or n.value != value or set(n.winners) != set(won):
                raise Refused(i, "R-END-1", f"the game is over, {self._who(won)} winning; the leaf claims "
                                            f"{n.claim} {n.value} with {self._who(n.winners)}")
            return value, value
        self.questions += 1
        if not any(c.place == FALLEN for p in pos.players for c in p.canoes) and self.rescue_frame():
            outcomes = {pos}  # nobody to rescue: phase I leaves the position as it is (a lemma, proved once)
        else:
            outcomes = self.enumerator.rescues(pos, self.deadline)
        return self.rescue(i, pos, {_turns_phase(o) for o in outcomes}, 0, left, baseline)

    def rescue(self, i: int, pos: Position, outcomes: set[Position], k: int, left: int,
               baseline: int | None) -> Bounds:
        """Phase I (R-RESCUE-1): open decisions in seat order; the encoding's joint outcomes, split by each
        player's part (their canoes and bank) in turn."""
        order = pos.turn_order()
        if k == len(order):
            if len(outcomes) != 1:
                raise Refused(i, "R-RESCUE-1", f"the decisions leave {len(outcomes)} outcomes in the encoding")
            return self.card(i, next(iter(outcomes)), left, baseline)
        p = order[k]
        parts: dict[Any, set[Position]] = {}
        for outcome in outcomes:
            parts.setdefault(_part(outcome, p), set()).add(outcome)
        n = self.cert.nodes[i]
        if not (n.kind == "rescue" and n.player == p):
            if len(parts) > 1:
                raise Refused(i, "R-RESCUE-1", f"the encoding gives {self.names[p]} {len(parts)} rescue decisions; "
                                               "the certificate none")
            return self.rescue(i, pos, outcomes, k + 1, left, baseline)
        self.node(i, pos, "rescue", "R-RESCUE-1")
        mine = p == self.x
        every = mine != self.cert.answer
        listed = {_part(self.cert.positions[o.to], p) for o in n.options if o.to is not None}
        if every and set(parts) - listed:
            raise Refused(i, "R-RESCUE-1", f"the encoding allows {self.names[p]} a rescue the certificate does not "
                                           "cover")
        below = []
        for o in n.options:
            assert o.to is not None
            after = self.cert.positions[o.to]
            part = _part(after, p)
            if part not in parts:
                raise Refused(i, "R-RESCUE-1", f"the encoding does not allow {self.names[p]}'s rescue {o.rescue}")
            below.append(self.rescue(o.then, after, parts[part], k + 1, left, baseline))
        return bounds(mine, every, below)

    def card(self, i: int, pos: Position, left: int, baseline: int | None) -> Bounds:
        """X's card, chosen blind (R-CARD-1) from X's hand (R-CARD-2)."""
        me = pos.players[self.x]
        if self.x in pos.acted or me.card is not None:
            return self.turn(i, pos, left, baseline)
        if self.cert.nodes[i].kind == "leaf":
            if self.cert.nodes[i].claim == "empty":
                return self.nothing_to_steal(i, pos)
            return self.out_of_reach(i, pos, left)
        n = self.node(i, pos, "card", "R-CARD-1")
        every = not self.cert.answer
        cards = [o.card for o in n.options]
        for card in cards:
            if card not in me.hand:
                raise Refused(i, "R-CARD-2", f"{me.name} has no {card.label if card is not None else '?'} in hand")
        if every and set(me.hand) - set(cards):
            missing = sorted(set(me.hand) - set(cards))
            raise Refused(i, "R-CARD-1", f"{me.name}'s card {missing[0].label} is not covered")
        below = [self.turn(o.then, pos.with_player(self.x, Player(me.name, me.canoes, me.hand, me.bank, o.card)),
                           left, baseline) for o in n.options]
        return bounds(True, every, below)

    def turn(self, i: int, pos: Position, left: int, baseline: int | None) -> Bounds:
        key = (i, pos, baseline)
        if key in self.memo:
            return self.memo[key]
        self._time()
        p = pos.next_to_act()
        n = self.cert.nodes[i]
        if n.kind == "leaf" and n.claim in ("bound", "unreached"):
            result = self.out_of_reach(i, pos, left)
        elif n.kind == "leaf" and n.claim == "empty":
            result = self.nothing_to_steal(i, pos)
        elif n.kind == "leaf" and n.claim == "sure-steal":
            result = self.sure_steal(i, pos)
        elif n.kind == "leaf" and n.claim == "any-steal":
            result = self.any_steal(i, pos)
        elif n.kind == "leaf" and n.claim == "sure-win":
            result = self.sure_win(i, pos)
        elif left == 1 and self.x in pos.acted:
            n = self.node(i, pos, "leaf", "R-END-1")
            value = self.rest(i, pos, baseline, n.value is True)
            if n.claim != "rest" or n.value != value:
                raise Refused(i, "R-END-1" if self.goal is Goal.WIN else "R-FLOW-6" if self.goal is Goal.SAFE
                              else "R-STEAL-1", f"the rest of the round is {'won' if value else 'lost'} for "
                                                f"{self.names[self.x]} by the encoding; the leaf claims {n.claim} "
                                                f"{n.value}")
            result = (value, value)
        elif p is None:
            result = self.flow(i, pos, left, baseline)
        else:
            if p == self.x and self.goal is Goal.SAFE and baseline is None:
                baseline = x_gems(pos, self.x)  # X's gems when its first turn begins
            result = self.turns(i, pos, p, left, baseline)
        self.memo[key] = result
        return result

    def turns(self, i: int, pos: Position, p: int, left: int, baseline: int | None) -> Bounds:
        n = self.node(i, pos, "turn", "R-TURN-1")
        if n.player != p:
            raise Refused(i, "R-TURN-1", f"{self.names[p]} acts here, not {self.names[n.player or 0]}")
        player = pos.players[p]
        hand = [player.card] if player.card is not None else list(player.hand)
        mine = p == self.x
        every = mine != self.cert.answer
        for o in n.options:
            if o.card not in hand:
                raise Refused(i, "R-CARD-2", f"{player.name} cannot play "
                                             f"{o.card.label if o.card is not None else '?'} here")
        below = []
        if every:
            covered = [(o.card, self.cert.positions[o.to]) for o in n.options
                       if o.card is not None and o.to is not None]
            self.outside(i, pos, p, hand, covered, steal=mine and self.goal is Goal.STEAL)
            for o in n.options:
                assert o.to is not None and o.card is not None
                after = self.cert.positions[o.to]
                expected = (*pos.acted, p)
                if after.acted != expected or after.players[p].card != o.card or after.phase is not Phase.TURNS:
                    raise Refused(i, "R-TURN-1", f"the option {turn_words(player.name, o.card, str(o.turn))} does "
                                                 "not end that turn with the card played")
                below.append(self.turn(o.then, after, left, baseline))
            return bounds(mine, True, below)
        for o in n.options:
            assert o.card is not None and o.turn is not None and o.to is not None
            after, steals = self.pinned(i, pos, p, o.card, o.turn)
            if after != self.cert.positions[o.to]:
                raise Refused(i, "R-TURN-1", f"{turn_words(player.name, o.card, o.turn)} leads elsewhere in the "
                                             "encoding")
            then = self.cert.nodes[o.then]
            if then.kind == "leaf" and then.claim == "steal":
                self.node(o.then, after, "leaf", "R-STEAL-1")
                if not (mine and self.goal is Goal.STEAL and steals and then.value):
                    raise Refused(o.then, "R-STEAL-1", f"{turn_words(player.name, o.card, o.turn)} does not make the "
                                                       "steal X wants, by the encoding")
                below.append((True, True))
            else:
                below.append(self.turn(o.then, after, left, baseline))
        return bounds(mine, False, below)

    def out_of_reach(self, i: int, pos: Position, left: int) -> Bounds:
        """The leaves ``unreached`` and ``bound``: X's goal is out of reach from here (their value is False)."""
        n = self.node(i, pos, "leaf", "R-END-1")
        p = pos.next_to_act()
        acted = self.x in pos.acted
        name = self.names[self.x]
        if n.value is not False:
            raise Refused(i, "R-END-1", f"the leaf claims {n.claim} {n.value}: out of reach means False")
        if n.claim == "unreached" and self.goal is not Goal.SAFE and left == 1 and p == self.x:
            self.own_bank(i)
            found = self.x_turn(pos, lambda step: step.steals() if self.goal is Goal.STEAL else
                                self.relations.reached_goal(step.post, self.x))
            if found is not None:
                card, turn = found
                rule = "R-STEAL-1" if self.goal is Goal.STEAL else "R-END-1"
                what = "steals" if self.goal is Goal.STEAL else "reaches the goal"
                raise Refused(i, rule, f"{turn_words(name, card, turn)} {what} (by the encoding)")
            return False, False
        if n.claim == "bound" and self.goal is Goal.WIN and n.gems is not None and (p == self.x or
                                                                                     (acted and left > 1)):
            gems = 0 if acted else n.gems
            self.own_bank(i)
            if left > 1:
                self.later_rounds(i)
            if not acted:  # the search's bound on this turn (solver/answers.py, bankable), checked
                found = self.x_turn(pos, lambda step: z_sum(step.post.bank[self.x]) >
                                    sum(pos.players[self.x].bank) + gems)
                if found is not None:
                    card, turn = found
                    raise Refused(i, "R-GEM-5", f"{turn_words(name, card, turn)} banks more than {gems} gem(s) "
                                                "(by the encoding)")
            more = gems + turn_capacity(pos, self.x) * (left - 1)
            if self.reachable(pos, more):
                raise Refused(i, "R-END-1", f"{name}'s bank may reach the goal with {more} more gem(s)")
            return False, False
        raise Refused(i, "R-END-1", f"the leaf claims {n.claim} where it does not apply")

    def nothing_to_steal(self, i: int, pos: Position) -> Bounds:
        """The leaf ``empty`` (the steal goal; its value is False): no other player's canoe carries a gem, and the
        others can keep theirs empty to the end whatever X does, so X never steals. The position says the first; the
        encoding proves the rest once, over every well-formed position (:meth:`lemma`):

        * a player whose canoes carry no gem has, with every card in hand, a turn that keeps them empty: the witness
          turn of R-PROP-10 (encoding/witness.py) is legal there and leaves them empty (R-GEM-1, R-STEAL-1);
        * no player's turn adds a gem to another player's canoe (R-GEM-1, R-GEM-3, R-STEAL-1);
        * neither the flow nor the rescues add a gem to any canoe (R-FLOW-6, R-RESCUE-1);
        * X's turn steals nothing while no other player's canoe carries a gem (R-STEAL-1).

        So, with the others playing their witness turns, every position of the rest of the game has their canoes
        empty and X's turns steal nothing there."""
        n = self.node(i, pos, "leaf", "R-STEAL-1")
        x, names, relations = self.x, self.names, self.relations
        if self.goal is not Goal.STEAL or n.value is not False:
            raise Refused(i, "R-STEAL-1", f"the leaf claims {n.claim} {n.value}: it stands for \"no steal\" only")
        for q, player in enumerate(pos.players):
            if q != x and any(c.gems for c in player.canoes):
                raise Refused(i, "R-STEAL-1", f"{player.name}'s canoe carries a gem here")
        players = range(len(names))

        def grows(pre: SymPosition, post: SymPosition, owners: Iterable[int]) -> Any:
            return z_or([post.cargo[q][k][c] > pre.cargo[q][k][c] for q in owners for k in range(2)
                          for c in range(len(pre.cargo[q][k]))])

        def empty(sym: SymPosition, owners: Iterable[int]) -> list[Any]:
            return [g == 0 for q in owners for k in range(2) for g in sym.cargo[q][k]]
        for q in players:
            if q == x:
                continue

            def keeps(tag: str, q: int = q) -> list[Any]:
                pre = relations.position(tag)
                step = relations.turn(pre, q, tag)
                return [*[c for _, c in relations.well_formed(pre, Phase.TURNS, to_act=q)],
                        relations.card_in_hand(pre, q, step.card), *empty(pre, [q]), *witness_turn(relations, step),
                        z_or(z3.Not(all_of([c for _, c in step.constraints])), grows(pre, step.post, [q]))]
            self.lemma(i, f"keeps empty {q}", "R-PROP-10", f"{names[q]}, its canoes empty, may have no turn that "
                                                            "keeps them so", keeps)
        for a in players:
            def others(tag: str, a: int = a) -> list[Any]:
                return _counter(relations, "turn", tag, lambda pre, step: grows(pre, step.post, [
                    q for q in players if q != a]), a)
            self.lemma(i, f"others' cargo {a}", "R-GEM-1", f"a turn of {names[a]} can put a gem into another "
                                                           "player's canoe", others)

        def flow(tag: str) -> list[Any]:
            return _counter(relations, "flow", tag, lambda pre, step: grows(pre, step.post, players))

        def rescue(tag: str) -> list[Any]:
            return _counter(relations, "rescue", tag, lambda pre, step: grows(pre, step.post, players))

        def steal(tag: str) -> list[Any]:
            return _counter(relations, "turn", tag, lambda pre, step: z_and(
                *empty(pre, [q for q in players if q != x]), step.steals()), x)
        self.lemma(i, "flow fills", "R-FLOW-6", "the flow can put a gem into a canoe", flow)
        self.lemma(i, "rescue fills", "R-RESCUE-1", "a rescue can put a gem into a canoe", rescue)
        self.lemma(i, "steal from empty", "R-STEAL-1", f"{names[x]} can steal while no other canoe carries a gem",
                   steal)
        return False, False

    def sure_steal(self, i: int, pos: Position) -> Bounds:
        """The leaf ``sure-steal`` (the steal goal; its value is True): X's turn written in the leaf steals whatever
        the players still to act before X play. Asked of the encoding, never of the search's bound:

        * the turn, pinned here, is one the encoding allows (R-TURN-1): its choices are those of one model (the canoe
          order and the cave, victim and movement the notation leaves open included), and the canoes it robs are
          read from them; none of them belongs to a player before X (who might move it) or to X;
        * the position is well-formed (phase II), and for each player ``q`` before X the frame of ``q``'s turn holds
          (:meth:`frame`, a lemma over every well-formed position, proved once): it moves no other player's canoe,
          adds no gem to one, leaves the others' hands, cards and the fork markers alone and a well-formed position;
        * no turn of ``q``, with a card of its hand, from any well-formed position where ``q``'s canoes stand where
          they stand here with at most their gems (another player before ``q`` may have robbed them) and the robbed
          canoes as here, takes a gem from a robbed canoe (R-STEAL-1: one question per player);
        * so when X acts, X's canoes stand where they stand here with at most their gems, X holds its hand and card,
          the fork markers and the robbed canoes are as here: from every well-formed position of that kind, the
          turn's choices are allowed by the encoding and steal (one question: no counterexample).

        By induction over the players before X, each position before X's turn is of that kind, whatever they play."""
        n = self._turn_leaf(i, pos, Goal.STEAL, "R-STEAL-1", "a steal")
        assert n.card is not None and n.turn is not None  # as _turn_leaf checked
        x, names = self.x, self.names
        me = pos.players[x]
        order = pos.turn_order()
        before = [q for q in order[:order.index(x)] if q not in pos.acted]
        words = turn_words(me.name, n.card, n.turn)
        decisions, robbed, _ = self.choices(i, pos, x, n.card, n.turn)
        if not robbed:
            raise Refused(i, "R-STEAL-1", f"{words} does not steal (by the encoding)")
        for q, _ in robbed:
            if q in before or q == x:
                raise Refused(i, "R-STEAL-1", f"{words} robs {names[q]}, who acts before it or is {me.name}")
        if not self.well_formed(pos):
            raise Refused(i, "R-TURN-1", "the position is not a well-formed one of phase II by the encoding")
        for q in before:
            if not self.frame(q):
                raise Refused(i, "R-TURN-3", f"by the encoding a turn of {names[q]} may move another player's canoe, "
                                             "add a gem to it or change a hand, a card or a fork marker")
            if self.may_rob(pos, q, robbed):
                raise Refused(i, "R-STEAL-1", f"a turn of {names[q]} may take a gem {words} steals first (by the "
                                              "encoding)")
        if self.may_fail(pos, decisions, robbed):
            raise Refused(i, "R-STEAL-1", f"after some play of {self._who(before)}, {words} is not allowed or "
                                          "steals nothing (by the encoding)")
        return True, True

    def any_steal(self, i: int, pos: Position) -> Bounds:
        """The leaf ``any-steal`` (the steal goal; its value is True): whatever the players still to act before X play
        (each with a card of its hand), one of X's turns listed in the leaf steals. Asked of the encoding, never of the
        search:

        * each listed turn, pinned at the position the leaf gives for it, is one the encoding allows (R-TURN-1); the
          values of every choice of one model of it are kept (the canoe order set by where X's canoe acting first
          stands here; both orders where X's two canoes share a place, each a turn of its own);
        * one question over the chain of the turns of the players before X from this position (as the leaf ``rest``
          asks the turns after X) and, from the position it ends in, X's turn with each kept set of choices: is there
          a play of theirs after which none of them is allowed and steals? There must be none."""
        n = self.node(i, pos, "leaf", "R-STEAL-1")
        x, names = self.x, self.names
        me = pos.players[x]
        if self.goal is not Goal.STEAL or n.value is not True or n.card is None or not n.turns:
            raise Refused(i, "R-STEAL-1", f"the leaf claims {n.claim} {n.value}: it stands for a steal of one of X's "
                                          "turns written in it")
        if pos.phase is not Phase.TURNS or x in pos.acted or me.card != n.card:
            raise Refused(i, "R-CARD-2", f"{me.name} has no turn with the {n.card.label} still to come here")
        order = pos.turn_order()
        before = tuple(q for q in order[:order.index(x)] if q not in pos.acted)
        chosen: list[Decisions] = []
        for turn, at in n.turns:
            where = self.cert.positions[at]
            if where.phase is not Phase.TURNS or (sorted(c.place for c in where.players[x].canoes)
                                                  != sorted(c.place for c in me.canoes)):
                raise Refused(i, "R-TURN-1", f"{turn_words(me.name, n.card, turn)} is written where {me.name}'s "
                                             "canoes stand elsewhere")
            (values, swap), _, _ = self.choices(i, where, x, n.card, turn)
            assert swap is not None  # the steps of X's turns are made with the canoe order as a choice
            first = where.players[x].canoes[swap].place  # the canoe acting first, where the turn is written
            for k, canoe in enumerate(me.canoes):
                for each in self._victims(values):
                    if canoe.place == first and (each, k) not in chosen:
                        chosen.append((each, k))
        pre, steps, allowed = self.steal_chain(before, len(chosen))
        solver = make_preprocessing_solver()
        solver.add(allowed[0], *self.relations.pin(pre, pos),
                   *[z_or([s.plays(c) for c in _hand(pos.players[s.player])]) for s in steps[:len(before)]])
        mine = steps[len(before):]
        for (values, swap), step, holds in zip(chosen, mine, allowed[1:]):
            solver.add(*step.pin_decisions((values, swap)), z3.Not(z_and(holds, step.steals())))
        self.questions += 1
        if _ask(solver, self.deadline):
            model = solver.model()
            plays = "; ".join(turn_words(names[s.player], *self.relations.decode_turn(model, s, names))
                              for s in steps[:len(before)])
            raise Refused(i, "R-STEAL-1", f"after {plays or 'no play'}, none of {me.name}'s turns written in the leaf "
                                          "steals (by the encoding)")
        return True, True

    def _victims(self, values: list[int]) -> list[list[int]]:
        """X's turn's choices (:meth:`TurnStep.decisions`' values) with each steal taken from either canoe of its
        victim: a canoe is named by its place in the player's order, which the victim's own moves may change between
        the position where the turn is written and another (each a turn of its own)."""
        _, step, _ = self.session(self.x)
        index = {v.get_id(): k for k, v in enumerate(step.choice.variables())}
        out = [list(values)]
        for slot in step.choice.slots:
            for cells in slot.steals:
                taken = [(q, v, c) for q, canoes in enumerate(cells) for v, row in enumerate(canoes)
                         for c, cell in enumerate(row) if values[index[cell.get_id()]]]
                if len(taken) != 1:
                    continue
                q, v, c = taken[0]
                here, there = index[cells[q][v][c].get_id()], index[cells[q][1 - v][c].get_id()]
                for each in list(out):
                    other = list(each)
                    other[here], other[there] = 0, 1
                    out.append(other)
        return out

    def steal_chain(self, before: tuple[int, ...], copies: int) -> tuple[SymPosition, list[TurnStep], list[Any]]:
        """The turns of the players ``before`` X from a symbolic position, then ``copies`` turns of X from where they
        end (each its own choices): the steps, and the terms that the chain holds and that each of X's turns is
        allowed, made once per kind of game."""
        key = ("any", self.x, before)
        relations = self.relations
        tag = f"cert.any.x{self.x}." + "".join(map(str, before))
        if key not in self.kept.terms:
            pre = relations.position(tag)
            state: SymPosition = pre
            steps: list[TurnStep] = []
            constraints: list[Any] = []
            for q in before:
                step = relations.turn(state, q, f"{tag}.p{q}", swap=True)
                constraints += [c for _, c in step.constraints]
                steps.append(step)
                state = step.post
            self.kept.terms[key] = (pre, steps, [all_of(constraints)])
        pre, steps, allowed = self.kept.terms[key]
        # X's copies are made as a leaf first needs so many, and kept for the leaves that need fewer (each of them
        # one relation: the chain is not made again for another count).
        while len(allowed) <= copies:
            state = steps[len(before) - 1].post if before else pre
            step = relations.turn(state, self.x, f"{tag}.x{len(allowed) - 1}", swap=True)
            steps.append(step)
            allowed.append(all_of([c for _, c in step.constraints]))
        return pre, steps[:len(before) + copies], allowed[:copies + 1]

    def choices(self, i: int, pos: Position, p: int, card: Card, turn: Turn
                ) -> tuple[Decisions, tuple[tuple[int, int], ...], tuple[int, ...]]:
        """A written turn, pinned: the values of every choice of one model of it (:meth:`TurnStep.decisions`), the
        canoes it takes a gem from (seat, canoe in the position's order) and the player's bank after it (gems per
        colour); refused as :meth:`pinned` refuses a turn the encoding does not allow."""
        order, problem = canoe_order(pos, p, turn)
        if problem is not None:
            self.forbidden(i, pos, p, card, turn)
        pre, step, session = self.session(p)
        self.questions += 1
        pinned = self._pins(pre, pos)

        def read(model: Any) -> tuple[Decisions, tuple[tuple[int, int], ...], tuple[int, ...]]:
            robbed = {(q, v) for slot in step.choice.slots for cells in slot.steals for q, canoes in enumerate(cells)
                      for v, row in enumerate(canoes) if any(value(model, c) for c in row)}
            return step.decisions(model), tuple(sorted(robbed)), tuple(value(model, b) for b in step.post.bank[p])
        values = evaluate_turn(self.relations, step, session, pinned, pos, card, turn, order)
        if values is not None:
            return read(values)
        with session.scope(*pinned, step.plays(card), *self.relations.pin_turn(step, pos, card, turn),
                           step.swap == (order == (1, 0)), *(c for _, c in self.relations.written_order(step, turn))):
            if not session.check(self.deadline):
                self.forbidden(i, pos, p, card, turn)
            return read(session.model())

    def _robbed_pins(self, pre: SymPosition, pos: Position, robbed: tuple[tuple[int, int], ...]) -> list[Any]:
        """The robbed canoes stand where they stand in ``pos``, with its gems."""
        out = []
        for q, v in robbed:
            canoe = pos.players[q].canoes[v]
            out.append(pre.place[q][v] == self.relations.tables.index[canoe.place])
            gems = Gems.of(canoe.gems)
            out += [pre.cargo[q][v][c] == gems[c] for c in range(len(pre.cargo[q][v]))]
        return out

    def may_rob(self, pos: Position, q: int, robbed: tuple[tuple[int, int], ...]) -> bool:
        """Might a turn of ``q`` (with a card of its hand), from a well-formed position where ``q``'s canoes stand as
        in ``pos`` with at most its gems, ``q`` holds its hand and the ``robbed`` canoes are as in ``pos``, take a gem
        from one of them?"""
        them = pos.players[q]
        key = ("rob", q, them.canoes, them.hand, them.card,
               tuple((r, pos.players[r[0]].canoes[r[1]]) for r in robbed))
        if key not in self.kept.sure:
            pre, step, solver = self._turn_solver(q)
            pins = [*self._canoes(pre, pos, q), *[h == (Card(c) in them.hand) for c, h in enumerate(pre.hand[q])],
                    *self._robbed_pins(pre, pos, robbed), z_or([step.plays(c) for c in _hand(them)])]
            taken = z_or([step.post.cargo[v][k][c] < pre.cargo[v][k][c] for v, k in robbed
                           for c in range(len(pre.cargo[v][k]))])
            solver.push()
            try:
                solver.add(*pins, taken)
                self.questions += 1
                self.kept.sure[key] = _ask(solver, self.deadline)
            finally:
                solver.pop()
        return self.kept.sure[key]

    def may_fail(self, pos: Position, decisions: Decisions, robbed: tuple[tuple[int, int], ...]) -> bool:
        """Is there a well-formed position of phase II where X's canoes stand as in ``pos`` with at most its gems, X
        holds its hand and card, the fork markers and the ``robbed`` canoes are as in ``pos``, from which X's turn with
        the choices ``decisions`` is not allowed, or steals nothing?"""
        x = self.x
        me = pos.players[x]
        key = ("fail", x, me.canoes, me.hand, me.card, pos.forks, tuple((r, pos.players[r[0]].canoes[r[1]])
                                                                        for r in robbed), tuple(decisions[0]),
               decisions[1])
        if key not in self.kept.sure:
            pre, step, domain, allowed = self._sure_terms()
            assert me.card is not None
            solver = make_preprocessing_solver()
            solver.add(domain, *self._canoes(pre, pos, x), *[h == (Card(c) in me.hand) for c, h in
                                                             enumerate(pre.hand[x])],
                       pre.card[x] == int(me.card), *self.relations.pin_markers(pre, pos.forks),
                       *self._robbed_pins(pre, pos, robbed), *step.pin_decisions(decisions),
                       z3.Not(z_and(allowed, step.steals())))
            self.questions += 1
            self.kept.sure[key] = _ask(solver, self.deadline)
        return self.kept.sure[key]

    def _sure_terms(self) -> tuple[SymPosition, TurnStep, Any, Any]:
        """X's turn from a free position: the position, the step, the terms that the position is well-formed
        (:meth:`_domain`) and that the turn is allowed, made once per kind of game (the sure leaves' questions)."""
        x = self.x
        if ("sure", x) not in self.kept.terms:
            tag = f"cert.sure{x}"
            pre = self.relations.position(tag)
            step = self.relations.turn(pre, x, tag, swap=True)
            self.kept.terms["sure", x] = (pre, step, all_of(self._domain(pre)),
                                          all_of([c for _, c in step.constraints]))
        return self.kept.terms["sure", x]

    def sure_win(self, i: int, pos: Position) -> Bounds:
        """The leaf ``sure-win`` (the win goal; its value is True): X's turn written in the leaf brings the goal home
        whatever the players still to act before X play, and at the round's end nobody at the goal has a better bank
        (R-END-3): the game ends with X among the winners. Asked of the encoding, never of the search's bound:

        * the turn, pinned here, is one the encoding allows (R-TURN-1): the values of every choice of one model of it
          are kept (the canoe order and what the notation leaves open included);
        * the position is well-formed (phase II); for each player still to act the frame of its turn holds
          (:meth:`frame`: it moves no other player's canoe, adds no gem to one, leaves the others' hands, cards and
          the fork markers alone and a well-formed position) and its turn changes no other player's bank, and the
          flow changes no bank (R-GEM-5, R-FLOW-6: lemmas over every well-formed position, proved once);
        * for each player ``q`` before X: the most a turn of ``q``, with a card of its hand, can take from each of
          X's canoes and in all, from any well-formed position where X's and ``q``'s canoes stand where they stand
          here with at most their gems (exactly their gems for the first to act) and ``q`` holds its hand
          (R-STEAL-1: :meth:`step_loss`, the bounds the safe goal's last round reads by parts; nothing, in one
          question, where none of them can take anything);
        * so, by induction over them, when X acts its canoes stand where they stand here with at most their gems and
          at most the sum of those bounds fewer (per canoe and in all), and X's bank, hand and card and the fork
          markers are the leaf's; and at the round's end
          each player who has acted has the bank it has here, and each other player still to act the bank its own
          turn leaves from a well-formed position where its canoes stand where they stand here with at most their
          gems, with its bank and hand as here. One question over all of those together (X's turn with the choices
          kept, and each of the others' turns a copy of its own, not chained: every real play is among them): is
          there one where X's turn is not allowed, or the encoding's end of the game (R-END-1..3, the tie-break in
          force, read at the round's end) does not have X among the winners? There must be none."""
        n = self._turn_leaf(i, pos, Goal.WIN, "R-END-1", "a win")
        assert n.card is not None and n.turn is not None  # as _turn_leaf checked
        x, names = self.x, self.names
        me = pos.players[x]
        order = [q for q in pos.turn_order() if q not in pos.acted]
        before = order[:order.index(x)]
        words = turn_words(me.name, n.card, n.turn)
        decisions, _, _ = self.choices(i, pos, x, n.card, n.turn)
        if not self.well_formed(pos):
            raise Refused(i, "R-TURN-1", "the position is not a well-formed one of phase II by the encoding")
        for q in order:
            if not self.frame(q):
                raise Refused(i, "R-TURN-3", f"by the encoding a turn of {names[q]} may move another player's canoe, "
                                             "add a gem to it or change a hand, a card or a fork marker")
            self.others_banks(i, q)
        self.flow_keeps_banks(i)
        carried = tuple(len(c.gems) for c in me.canoes)
        takes: dict[int, _Loss] = {}
        for k, q in enumerate(before):
            took = self.step_loss(pos, q, None, k == 0) if any(carried) else _nothing(carried)
            if took is None:
                raise Refused(i, "R-STEAL-1", f"by the encoding a turn of {self._who([q])} may take more gems of "
                                              f"{me.name}'s than its canoes carry")
            takes[q] = took
        loss = (tuple(min(have, sum(took[0][k] for took in takes.values())) for k, have in enumerate(carried)),
                _most_taken(carried, list(takes.values())))
        failed = self.may_lose(pos, order, decisions, loss)
        if failed is None:
            return True, True
        if failed:
            raise Refused(i, "R-END-3", f"{failed} may end the round at the goal with a better bank than {me.name}'s "
                                        f"after {words}, as the tie-break reads banks (by the encoding)")
        thieves = [q for q, took in takes.items() if took[1]]
        raise Refused(i, "R-STEAL-1" if thieves else "R-END-1",
                      f"after some play of {self._who(before)}, {words} is not allowed or does not reach the goal (by "
                      "the encoding)" + (f": a turn of {self._who(thieves)} may take a gem of {me.name}'s first"
                                         if thieves else ""))

    def may_lose(self, pos: Position, order: list[int], decisions: Decisions, loss: "_Loss") -> str | None:
        """Can the round end without X among the winners (R-END-1..3), X acting with the choices ``decisions`` from a
        well-formed position of phase II where its canoes stand as in ``pos`` with at most their gems, at most
        ``loss`` fewer (per canoe and in all), its bank, hand, card and the fork markers as in ``pos``? The banks at
        the round's end:
        X's after that turn, those of the players who have acted as in ``pos``, and for each other player of ``order``
        (still to act) what its own turn banks from any well-formed position of phase II where its canoes stand as in
        ``pos`` with at most their gems, its bank and hand as in ``pos``, with a card of its hand. One question over
        X's turn and all of those, each from its own position: None where it cannot; "" where X's turn may be not
        allowed or miss the goal; else the player that may beat X, with its turn."""
        x = self.x
        me = pos.players[x]
        rivals = [q for q in order if q != x]
        key = ("lose", x, me.canoes, me.bank, me.hand, me.card, pos.forks, tuple(decisions[0]), decisions[1],
               loss, tuple((q, pos.players[q].canoes, pos.players[q].bank, pos.players[q].hand,
                               pos.players[q].card) for q in rivals),
               tuple(p.bank for q, p in enumerate(pos.players) if q not in order))
        if key not in self.kept.lost:
            assert me.card is not None
            end = self._end()
            pre, step, domain, allowed = self._sure_terms()
            solver = make_preprocessing_solver()
            pins = self._canoes(pre, pos, x, exact=not loss[1])
            taken = [len(canoe.gems) - z_sum(pre.cargo[x][k]) for k, canoe in enumerate(me.canoes)]
            pins += [*[t <= most for t, most in zip(taken, loss[0])], z_sum(taken) <= loss[1]]
            solver.add(domain, *pins, *[h == (Card(c) in me.hand) for c, h in enumerate(pre.hand[x])],
                       pre.card[x] == int(me.card), *[b == have for b, have in zip(pre.bank[x], me.bank)],
                       *self.relations.pin_markers(pre, pos.forks), *step.pin_decisions(decisions),
                       *[e == b for e, b in zip(end.bank[x], step.post.bank[x])])
            steps = self._banks_at_the_end(solver, pos, rivals, end)
            won = self.relations.end(end)
            solver.add(z3.Not(z_and(allowed, won[x])))
            self.questions += 1
            lost = None
            if _ask(solver, self.deadline):
                model = solver.model()
                lost = ""
                if z3.is_true(model.eval(allowed, model_completion=True)) and z3.is_true(
                        model.eval(self.relations.reached_goal(end, x), model_completion=True)):
                    # Reached, not won: a winner in X's place (the best score at the goal wins, R-END-3), with its
                    # turn where it is still to act.
                    who = next((q for q in range(len(self.names)) if q != x
                                and z3.is_true(model.eval(won[q], model_completion=True))), None)
                    turns = dict(steps)
                    lost = ("another player" if who is None else self.names[who] if who not in turns else
                            turn_words(self.names[who], *self.relations.decode_turn(model, turns[who], self.names)))
            self.kept.lost[key] = lost
        return self.kept.lost[key]

    def _end(self) -> SymPosition:
        """A free position where the round ends: only its banks are read (R-END-1..3), each pinned by a question."""
        if "end" not in self.kept.terms:
            self.kept.terms["end"] = self.relations.position("cert.end")
        end: SymPosition = self.kept.terms["end"]
        return end

    def _banks_at_the_end(self, solver: z3.Solver, pos: Position, rivals: list[int],
                          end: SymPosition) -> list[tuple[int, TurnStep]]:
        """The banks at the round's end on ``end``, but X's: those of the players who have acted as in ``pos``, and
        for each player of ``rivals`` (still to act) what its own turn banks from any well-formed position of phase II
        where its canoes stand as in ``pos`` with at most their gems, its bank and hand as in ``pos``, with a card of
        its hand (a copy of its turn each, from its own position; by the frame of the turns before it, its bank kept
        by them and by the flow, every real play is among them). The rivals' steps."""
        steps = []
        for q, player in enumerate(pos.players):
            if q == self.x:
                continue
            if q not in rivals:
                solver.add(*[e == have for e, have in zip(end.bank[q], player.bank)])
                continue
            self._turn_solver(q)
            them, their, term = self.kept.terms["turn", q]
            solver.add(term, *self._canoes(them, pos, q),
                       *[h == (Card(c) in player.hand) for c, h in enumerate(them.hand[q])],
                       *[b == have for b, have in zip(them.bank[q], player.bank)],
                       z_or([their.plays(c) for c in _hand(player)]),
                       *[e == b for e, b in zip(end.bank[q], their.post.bank[q])])
            steps.append((q, their))
        return steps

    def won_by_parts(self, i: int, pos: Position, order: tuple[int, ...]) -> bool:
        """The win goal's last round after X's turn, by parts: does X, at the goal, win at the round's end whatever
        the players of ``order`` (still to act) do? Shown as the leaf ``sure-win`` shows its tie-break: the frame of
        each of their turns, their turns and the flow keeping the others' banks (lemmas proved once), then one
        question over X's bank as it is, the banks of those who have acted and each of theirs after a turn of its own
        from any position its canoes, bank and hand allow (:meth:`_banks_at_the_end`): can the encoding's end of the
        game leave X out? True: it cannot (the leaf holds); False: not shown this way (the chain decides). One answer
        serves every leaf with the same banks and the same players to act, whatever the caves and the acted players'
        canoes."""
        x = self.x
        if not all(self.frame(q) for q in order) or not self.well_formed(pos):
            return False
        for q in order:
            self.others_banks(i, q)
        self.flow_keeps_banks(i)
        key = ("won", x, tuple(p.bank for p in pos.players),
               tuple((q, pos.players[q].canoes, pos.players[q].hand, pos.players[q].card) for q in order))
        if key not in self.kept.sure:
            end = self._end()
            solver = make_preprocessing_solver()
            solver.add(*[e == have for e, have in zip(end.bank[x], pos.players[x].bank)])
            self._banks_at_the_end(solver, pos, list(order), end)
            solver.add(z3.Not(self.relations.end(end)[x]))
            self.questions += 1
            self.kept.sure[key] = _ask(solver, self.deadline)
        return not self.kept.sure[key]

    def x_turn(self, pos: Position, claim: Callable[[TurnStep], Any]) -> tuple[Card, Turn] | None:
        """A turn of X from ``pos`` with a card X may play for which ``claim`` (a term of the turn's step) holds, by
        the encoding: the card and the turn, or None when there is none.

        Asked of X's incremental session, whose relation is internalized once: these questions are settled by
        propagation from the pinned position (a bank that cannot grow), and a fresh solver spent most of their
        time taking the whole relation in again, 2.5 times the session's (docs/SOLVER.md, "Certified answers").
        The question for a turn outside the certificate needs a search and keeps its fresh, simplifying solver."""
        pre, step, session = self.session(self.x)
        self.questions += 1
        with session.scope(*self._pins(pre, pos), z_or([step.plays(c) for c in _hand(pos.players[self.x])]),
                           claim(step)):
            if not session.check(self.deadline):
                return None
            return self.relations.decode_turn(session.model(), step, self.names)

    def reachable(self, pos: Position, more: int) -> bool:
        """Could X's bank meet the goal (R-END-1) with at most ``more`` gems gained, of any colours (and any lost)?"""
        sym = self.relations.position("cert.reach")
        bank = sym.bank[self.x]
        gained = [z3.Int(f"cert.reach.gained{c}") for c in range(len(bank))]
        lost = [z3.Int(f"cert.reach.lost{c}") for c in range(len(bank))]
        solver = make_preprocessing_solver()
        solver.add(*[g >= 0 for g in gained], *[v >= 0 for v in lost], z_sum(gained) <= more)
        solver.add(*[b == have + g - v for b, have, g, v in zip(bank, pos.players[self.x].bank, gained, lost)])
        solver.add(*[b >= 0 for b in bank], self.relations.reached_goal(sym, self.x))
        self.questions += 1
        return _ask(solver, self.deadline)

    def lemma(self, i: int, name: str, rule: str, reason: str, make: Any, mine: bool = True) -> None:
        """A rule a leaf leans on, proved once for the board, ruleset and player count over every well-formed
        position (and X's seat, where the rule is about X: ``mine``): ``make(tag)`` gives the constraints of a
        counterexample, which must not exist."""
        key = (name, self.x) if mine else (name,)
        if key in self.lemmas:
            return
        if ("lemma", key) in self.kept.proved:  # proved in an earlier z3 context
            self.lemmas.add(key)
            return
        solver = make_preprocessing_solver()
        solver.add(*make(f"cert.{name.replace(' ', '_')}{self.x if mine else ''}"))
        self.questions += 1
        if _ask(solver, self.deadline):
            raise Refused(i, rule, f"by the encoding {reason}")
        self.lemmas.add(key)
        self.kept.proved.add(("lemma", key))

    def own_bank(self, i: int, winner: bool = True) -> None:
        """Another player's turn never changes X's bank (R-GEM-5, R-STEAL-1); with ``winner``, a winner has reached
        the goal (R-END-1)."""
        relations, x = self.relations, self.x
        for q in range(len(self.names)):
            if q != x:
                def other(tag: str, q: int = q) -> list[Any]:
                    return _counter(relations, "turn", tag, lambda pre, step: z_or(
                        [a != b for a, b in zip(step.post.bank[x], pre.bank[x])]), q)
                self.lemma(i, f"own bank {q}", "R-GEM-5", f"a turn of {self.names[q]} can change "
                                                          f"{self.names[x]}'s bank", other)

        def reached(tag: str) -> list[Any]:
            sym = relations.position(tag)
            return [*[c for _, c in relations.well_formed(sym, Phase.CARDS)], relations.end(sym)[x],
                    z3.Not(relations.reached_goal(sym, x))]
        if winner:
            self.lemma(i, "winner", "R-END-1", f"{self.names[x]} can win without reaching the goal", reached)

    def flow_keeps_bank(self, i: int) -> None:
        """The flow never changes X's bank (R-FLOW-6)."""
        relations, x = self.relations, self.x

        def flow(tag: str) -> list[Any]:
            return _counter(relations, "flow", tag, lambda pre, step: z_or(
                [a != b for a, b in zip(step.post.bank[x], pre.bank[x])]))
        self.lemma(i, "flow banks", "R-FLOW-6", f"the flow can change {self.names[x]}'s bank", flow)

    def others_banks(self, i: int, a: int) -> None:
        """A turn of ``a`` changes no other player's bank (R-GEM-5, R-STEAL-1: a steal takes from a canoe)."""
        relations, names = self.relations, self.names

        def other(tag: str) -> list[Any]:
            return _counter(relations, "turn", tag, lambda pre, step: z_or(
                [v != w for b in range(len(names)) if b != a for v, w in zip(step.post.bank[b], pre.bank[b])]), a)
        self.lemma(i, f"others' banks {a}", "R-GEM-5", f"a turn of {names[a]} can change another player's bank",
                   other, mine=False)

    def flow_keeps_banks(self, i: int) -> None:
        """The flow changes no player's bank (R-FLOW-6: a canoe over the falls loses its cargo, never a bank)."""
        relations = self.relations

        def flow(tag: str) -> list[Any]:
            return _counter(relations, "flow", tag, lambda pre, step: z_or(
                [v != w for b in range(len(self.names)) for v, w in zip(step.post.bank[b], pre.bank[b])]))
        self.lemma(i, "flow keeps banks", "R-FLOW-6", "the flow can change a player's bank", flow, mine=False)

    def later_rounds(self, i: int) -> None:
        """X's turn banks at most what X's canoes carry (R-GEM-2, X-DOUBLE-1, R-MOVE-5: twice the capacity, one more
        with the double canoe, which every player has with ``x_double``); the flow never changes X's bank and phase
        I's rescues never raise it (R-FLOW-6, R-RESCUE-1): the search's bound over later rounds."""
        relations, x = self.relations, self.x
        most = turn_capacity(self.cert.position, x)

        def turn(tag: str) -> list[Any]:
            return _counter(relations, "turn", tag, lambda pre, step: z_sum(step.post.bank[x]) > z_sum(pre.bank[x])
                            + most, x)

        def rescue(tag: str) -> list[Any]:
            return _counter(relations, "rescue", tag, lambda pre, step: z_sum(step.post.bank[x]) > z_sum(pre.bank[x]))
        name = self.names[x]
        self.lemma(i, "turn banks", "R-GEM-2", f"a turn of {name} can bank more than {most} gems", turn)
        self.flow_keeps_bank(i)
        self.lemma(i, "rescue banks", "R-RESCUE-1", f"a rescue can raise {name}'s bank", rescue)

    def reached(self, pos: Position) -> bool:
        """Does X's bank in ``pos`` meet the goal, by the encoding's goal (R-END-1)?"""
        pre = self.relations.position("cert.goal")
        solver = make_preprocessing_solver()
        solver.add(*self.relations.pin(pre, pos), self.relations.reached_goal(pre, self.x))
        self.questions += 1
        return _ask(solver, self.deadline)

    def flow(self, i: int, pos: Position, left: int, baseline: int | None) -> Bounds:
        """Phase III (R-FLOW-1..6): the encoding's outcomes; then phase IV and the end of the round."""
        n = self.node(i, pos, "flow", "R-FLOW-1")
        self.questions += 1
        outcomes = self.enumerator.flows(pos, None, self.deadline)
        every = self.cert.answer
        stated = [self.cert.positions[o.to] for o in n.options if o.to is not None]
        if every and outcomes - set(stated):
            raise Refused(i, "R-FLOW-1", f"the encoding's flow has {len(outcomes - set(stated))} outcome(s) the "
                                         "certificate does not cover")
        below = []
        for o, after in zip(n.options, stated):
            if after not in outcomes:
                raise Refused(i, "R-FLOW-1", "the encoding's flow does not lead to a stated outcome")
            below.append(self.round_end(o.then, _next_round(after, pos), left, baseline))
        return bounds(False, every, below)

    def round_end(self, i: int, pos: Position, left: int, baseline: int | None) -> Bounds:
        """The end of a round: a gem of X lost (the safe goal), the game over (R-END-1), or the horizon reached."""
        value: bool | None = None
        rule = "R-END-1"
        if self.goal is Goal.SAFE and baseline is not None and x_gems(pos, self.x) < baseline:
            value, rule = False, "R-FLOW-6"
        else:
            won = self.winners(pos)
            if won:
                value = self.x in won if self.goal is Goal.WIN else self.goal is Goal.SAFE
            elif left == 1:
                value = self.goal is Goal.SAFE
        if value is None:
            return self.round_start(i, pos, left - 1, baseline)
        n = self.node(i, pos, "leaf", rule)
        if n.claim != "end" or n.value != value:
            raise Refused(i, rule, f"the round ends {'well' if value else 'badly'} for {self.names[self.x]} by the "
                                   f"encoding; the leaf claims {n.claim} {n.value}")
        return value, value

    # -- questions to the encoding ---------------------------------------------------------------------------

    def _time(self) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise OutOfTime()

    def winners(self, pos: Position) -> tuple[int, ...]:
        self.questions += 1
        return self.enumerator.winners(pos, self.deadline)

    def session(self, p: int) -> tuple[SymPosition, TurnStep, Session]:
        if p not in self.sessions:
            pre = self.relations.position(f"cert.turn{p}")
            step = self.relations.turn(pre, p, f"cert.turn{p}", swap=True)
            self.sessions[p] = (pre, step, Session(step))
        return self.sessions[p]

    def _after(self, model: Any, step: TurnStep, pos: Position, p: int, card: Card) -> Position:
        """The position a model of ``p``'s turn leads to, with the card played and ``p`` having acted."""
        after = self.relations.decode_position(model, step.post, pos)
        players = tuple(Player(q.name, a.canoes, a.hand if k == p else q.hand, a.bank, card if k == p else q.card,
                               a.card_budget if k == p else q.card_budget)
                        for k, (q, a) in enumerate(zip(pos.players, after.players)))
        return after.replace(players=players, acted=(*pos.acted, p))

    def _pins(self, pre: SymPosition, pos: Position) -> list[Any]:
        """``pos`` pinned on ``pre``, kept for the turns asked of it in a row (an evaluation reuses its values)."""
        if self._pinned is None or self._pinned[0] is not pre or self._pinned[1] != pos:
            self._pinned = (pre, pos, self.relations.pin(pre, pos))
        return self._pinned[2]

    def pinned(self, i: int, pos: Position, p: int, card: Card, turn: Turn) -> tuple[Position, bool]:
        """A written turn, pinned: the position the encoding says it leads to, and whether it steals."""
        order, problem = canoe_order(pos, p, turn)
        if problem is not None:  # a canoe the player does not have: refused as why refuses it
            self.forbidden(i, pos, p, card, turn)
        pre, step, session = self.session(p)
        self.questions += 1
        # Evaluated where every choice pinned makes the relation hold (a model as z3 would give one); else the
        # solver decides (the turn may be allowed with other choices).
        pinned = self._pins(pre, pos)
        values = evaluate_turn(self.relations, step, session, pinned, pos, card, turn, order)
        if values is not None:
            return (self._after(values, step, pos, p, card),
                    z3.is_true(values.eval(step.steals(), model_completion=True)))
        with session.scope(*pinned, step.plays(card), *self.relations.pin_turn(step, pos, card, turn),
                           step.swap == (order == (1, 0)), *(c for _, c in self.relations.written_order(step, turn))):
            if not session.check(self.deadline):
                self.forbidden(i, pos, p, card, turn)
            model = session.model()
            steals = z3.is_true(model.eval(step.steals(), model_completion=True))
            return self._after(model, step, pos, p, card), steals

    def forbidden(self, i: int, pos: Position, p: int, card: Card, turn: Turn) -> NoReturn:
        """Refuse a turn the encoding does not allow, naming the rules that forbid it as ``why`` names them (one
        explanation for both: :func:`~niagara_solver.encoding.explain.explain_turn`)."""
        left = None if self.deadline is None else max(0.0, self.deadline - time.perf_counter())
        if left is not None and left <= 0:
            raise OutOfTime()
        self.questions += 1
        explained = explain_turn(self.relations, pos, p, card, turn, left, others=False)
        words = turn_words(self.names[p], card, turn)
        if explained.answer != ILLEGAL or not explained.rules:  # refused, but which rules was not found in time
            raise Refused(i, "", f"the encoding does not allow {words} (which rule forbids it was not found in time; "
                                 "niagara-solve why names it)")
        rules = explained.rules
        because = f": {explained.detail}" if explained.detail else ""
        raise Refused(i, rules[0], f"the encoding does not allow {words}: forbidden by {' and '.join(rules)}"
                                   f"{' together' if len(rules) > 1 else ''}{because}")

    def outside(self, i: int, pos: Position, p: int, hand: list[Card], covered: list[tuple[Card, Position]],
                steal: bool) -> None:
        """No turn of ``p`` (with a card of ``hand``) leads outside ``covered``, nor, with ``steal``, steals: one
        question, put to a fresh solver (z3 simplifies the relation with the position's values in place)."""
        pre, step, _ = self.session(p)
        solver = make_preprocessing_solver()
        # One conjunction made through z3's C API: asserting each constraint through the Python API costs more, and
        # the solver's goal splits it into the same constraints.
        solver.add(all_of([*[c for _, c in step.constraints], *self.relations.pin(pre, pos)]))
        solver.add(z_or([step.plays(c) for c in hand]))
        outside = z_and([z3.Not(z_and(step.plays(c), self.relations.same_position(step.post, after)))
                          for c, after in covered])
        solver.add(z_or(outside, step.steals()) if steal else outside)
        self.questions += 1
        if _ask(solver, self.deadline):
            model = solver.model()
            card, turn = self.relations.decode_turn(model, step, self.names)
            what = "steals" if steal and z3.is_true(model.eval(step.steals(), model_completion=True)) else \
                "is not covered"
            raise Refused(i, "R-STEAL-1" if what == "steals" else "R-TURN-1",
                          f"{turn_words(self.names[p], card, turn)} {what} (by the encoding)")

    def rest(self, i: int, pos: Position, baseline: int | None, claimed: bool = False) -> bool:
        """The horizon's last round after X's turn: do X's goals hold whatever the players still to act (and the
        flow, for the safe goal) do? X's steals are over: X acts no more. Where the leaf ``claimed`` the win, it is
        first shown by parts (:meth:`won_by_parts`; they never show a loss)."""
        if self.goal is Goal.STEAL:
            return False
        order = tuple(q for q in pos.turn_order() if q not in pos.acted)
        if self.goal is Goal.WIN and not order:
            return self.x in self.winners(pos)
        if self.goal is Goal.WIN and not self.reached(pos):
            self.own_bank(i)  # X's bank is final: X cannot win this round
            return False
        if self.goal is Goal.WIN and claimed and self.won_by_parts(i, pos, order):
            return True
        if self.goal is Goal.SAFE and baseline is not None and pos.players[self.x].bank.total >= baseline:
            # X's bank alone keeps the count: the others' turns and the flow leave it as it is (R-GEM-5, R-FLOW-6),
            # and carried gems only add to it. Two rules proved once, instead of a question per position.
            self.own_bank(i, winner=False)
            self.flow_keeps_bank(i)
            return True
        if self.goal is Goal.SAFE and not order:  # the flow alone: the encoding's outcomes (evaluated, mostly)
            assert baseline is not None
            self.questions += 1
            return all(x_gems(after, self.x) >= baseline for after in self.enumerator.flows(pos, None, self.deadline))
        if self.goal is Goal.SAFE and baseline is not None and self.losses_fit(i, pos, order,
                                                                              x_gems(pos, self.x) - baseline):
            return True
        pre, pins, defeated = self.chain(order)
        self.questions += 1
        # Asked once per position, of a solver that simplifies the chain with the position's values in place
        # before searching: mid-game safe certificates checked 1.4 to 1.7 times faster than with the chain asserted
        # once on an incremental solver and the position pushed and popped (docs/SOLVER.md, "Mid-game questions").
        solver = make_preprocessing_solver()
        solver.add(defeated, *self.relations.pin(pre, pos), *pins(pos, baseline))
        return not _ask(solver, self.deadline)

    def chain(self, order: tuple[int, ...]) -> tuple[SymPosition, Any, Any]:
        """The turns of the players in ``order`` (and for the safe goal the flow) from a symbolic position, with
        X defeated at the end, as one term made once; the cards each may play and the baseline are pinned per
        position."""
        key = (self.goal, self.x, order)
        if key not in self.chains:
            relations = self.relations
            tag = f"{self.tag}.x{self.x}.rest" + "".join(map(str, order))
            pre = relations.position(tag)
            state: SymPosition = pre
            steps: list[TurnStep] = []
            constraints: list[Any] = []
            for q in order:
                step = relations.turn(state, q, f"{tag}.p{q}", swap=True)
                constraints += [c for _, c in step.constraints]
                steps.append(step)
                state = step.post
            floor = z3.Int(f"{tag}.baseline")
            if self.goal is Goal.SAFE:
                flow = relations.flow(state, f"{tag}.flow")
                constraints += [c for _, c in flow.constraints]
                state = flow.post
                gems = z_sum([*state.bank[self.x], *(g for k in range(2) for g in state.cargo[self.x][k])])
                lost = gems < floor
            else:
                lost = z3.Not(relations.end(state)[self.x])

            def pins(at: Position, base: int | None) -> list[Any]:
                out = [z_or([s.plays(c) for c in _hand(at.players[s.player])]) for s in steps]
                return [*out, floor == (base if base is not None else 0)]
            self.chains[key] = (pre, pins, all_of([*constraints, lost]))
        return self.chains[key]

    # -- the rest of the round by its parts (the safe goal) ----------------------------------------------------

    def losses_fit(self, i: int, pos: Position, order: tuple[int, ...], slack: int) -> bool:
        """Can the turns of the players in ``order`` and the flow take more than ``slack`` of X's carried gems from
        ``pos``? Asked by parts, each part once for all the positions that share what it reads, instead of one
        question over the chain per position. True: they cannot (the leaf holds); False: not shown this way (the
        chain decides).

        X's bank stays as it is (R-GEM-5, R-FLOW-6: :meth:`own_bank`, :meth:`flow_keeps_bank`), so X's count falls
        only by what the steps take from X's canoes. Each step's loss is bounded over a set of positions that holds
        the position the step really starts from, whatever the earlier steps did: the frame lemma
        (:meth:`frame`) says another player's turn moves nobody else's canoe, adds no gem to it, leaves the
        others' hands, cards and the fork markers alone, moves the weather only with a cloud and by one step, puts
        the card played on the table, and leaves a well-formed position. So before ``q``'s turn X's and ``q``'s
        canoes stand where they stand in ``pos`` with at most its gems, ``q`` holds its hand; before the flow the
        weather is within one step per cloud played; and the flow leaves no canoe below no gems
        (:meth:`flow_frame`). Each step's loss, per canoe of X and in all, is bounded by
        questions over those sets (:meth:`step_loss`, :meth:`flow_loss`): per card played where a card can take
        something, and per choice of cards for the flow where the bounds over every choice do not fit. A canoe
        loses at most what it carries; the whole loss is at most the sum of the steps' bounds."""
        if slack < 0:
            return False
        self.own_bank(i, winner=False)
        self.flow_keeps_bank(i)
        if not all(self.frame(a) for a in order) or not self.flow_frame() or not self.well_formed(pos):
            return False
        carried = tuple(len(c.gems) for c in pos.players[self.x].canoes)
        hands = [_hand(pos.players[q]) for q in order]
        takes: list[dict[Card, _Loss]] = []
        for q, hand in zip(order, hands):
            every = self.step_loss(pos, q, None, q == order[0])
            if every is None:
                return False
            if every == _nothing(carried):
                takes.append({c: every for c in hand})
                continue
            per: dict[Card, _Loss] = {}
            for card in hand:
                loss = self.step_loss(pos, q, card, q == order[0])
                if loss is None:
                    return False
                per[card] = loss
            takes.append(per)
        flow = self.flow_loss(pos, order, None)
        if flow is None:
            return False
        for cards in itertools.product(*hands):
            steps = [take[c] for take, c in zip(takes, cards)]
            if _most_taken(carried, [*steps, flow]) <= slack:
                continue
            these = self.flow_loss(pos, order, cards)
            if these is None or _most_taken(carried, [*steps, these]) > slack:
                return False
        return True

    def frame(self, a: int) -> bool:
        """The frame of another player's turn (a lemma over every well-formed position, proved once, or found not
        to hold, when the shortcut of :meth:`losses_fit` is not taken): ``a``'s turn moves no other player's canoe
        and adds no gem to it (R-TURN-3, R-GEM-1, R-STEAL-1), leaves the other players' hands and cards (R-CARD-2)
        and the fork markers (R-FLOW-4) as they are, changes the weather only with a cloud and by one step
        (R-TURN-2), puts the card played on the table (R-CARD-2), and leaves a well-formed position."""
        def broken_by(tag: str) -> list[Any]:
            relations = self.relations
            pre = relations.position(tag)
            step = relations.turn(pre, a, tag, swap=True)
            post = step.post
            broken: list[Any] = []
            for b in range(len(self.names)):
                if b == a:
                    continue
                broken += [post.place[b][k] != pre.place[b][k] for k in range(2)]
                broken += [post.cargo[b][k][c] > pre.cargo[b][k][c] for k in range(2)
                           for c in range(len(pre.cargo[b][k]))]
                broken += [post.hand[b][c] != pre.hand[b][c] for c in range(len(pre.hand[b]))]
                broken.append(post.card[b] != pre.card[b])
            broken += [post.marker[f] != pre.marker[f] for f in pre.marker]
            broken.append(z_and(z3.Not(step.plays(Card.CLOUD)), post.weather != pre.weather))
            broken.append(z_or(post.weather - pre.weather > 1, pre.weather - post.weather > 1))
            broken.append(post.card[a] != step.choice.card)
            broken.append(z3.Not(all_of(self._domain(post))))
            return [*self._domain(pre), *[c for _, c in step.constraints], z_or(broken)]
        return self._holds(("frame", a), f"cert.frame{a}", broken_by)

    def flow_frame(self) -> bool:
        """The flow from a well-formed position of phase II leaves no canoe with fewer than no gems (R-FLOW-6: a
        fallen canoe's gems go home): so a canoe of X loses at most what it carries (a lemma, as :meth:`frame`)."""
        def broken_by(tag: str) -> list[Any]:
            pre = self.relations.position(tag)
            flow = self.relations.flow(pre, tag)
            return [*self._domain(pre), *[c for _, c in flow.constraints],
                    z_or([g < 0 for canoes in flow.post.cargo for cargo in canoes for g in cargo])]
        return self._holds(("flow",), "cert.frame.flow", broken_by)

    def rescue_frame(self) -> bool:
        """Phase I with no fallen canoe leaves every well-formed position as it is (R-RESCUE-1: only a fallen canoe is
        rescued): a lemma over every such position, proved once (or found not to hold, and the encoding's rescue
        outcomes are asked position by position)."""
        def broken_by(tag: str) -> list[Any]:
            relations = self.relations
            pre = relations.position(tag)
            rescue = relations.rescue(pre, tag)
            fallen = relations.tables.FALLEN
            return [*[c for _, c in relations.well_formed(pre, Phase.CARDS)], *[c for _, c in rescue.constraints],
                    *[place != fallen for places in pre.place for place in places],
                    z_or([a != b for a, b in zip(rescue.post.variables(), pre.variables())])]
        return self._holds(("rescue",), "cert.frame.rescue", broken_by)

    def _holds(self, key: Any, tag: str, broken_by: Callable[[str], list[Any]]) -> bool:
        """A lemma a shortcut leans on, as :meth:`lemma` proves one, but one that may not hold (the shortcut is then
        not taken): ``broken_by(tag)`` gives the constraints of a counterexample. Asked once per kind of game."""
        if key not in self.kept.frames and ("frame", key) in self.kept.proved:  # proved in an earlier z3 context
            self.kept.frames[key] = True
        if key not in self.kept.frames:
            solver = make_preprocessing_solver()
            solver.add(*broken_by(tag))
            self.questions += 1
            self.kept.frames[key] = not _ask(solver, self.deadline)
            if self.kept.frames[key]:
                self.kept.proved.add(("frame", key))
        return self.kept.frames[key]

    def well_formed(self, pos: Position) -> bool:
        """``pos`` is a well-formed position of phase II by the encoding: it lies in the sets :meth:`step_loss`
        bounds the first turn over."""
        pre, solver = self._form()
        self.questions += 1
        solver.push()
        try:
            solver.add(*self.relations.pin(pre, pos))
            return _ask(solver, self.deadline)
        finally:
            solver.pop()

    def _domain(self, sym: SymPosition) -> list[Any]:
        """A well-formed position of phase II (FORMAT.md), less "a hand holds a card" (R-CARD-2): the player who
        just played may have played their last card."""
        return [c for rule, c in self.relations.well_formed(sym, Phase.TURNS) if rule != "R-CARD-2"]

    def _form(self) -> tuple[SymPosition, z3.Solver]:
        if "form" not in self.kept.terms:
            pre = self.relations.position("cert.form")
            solver = make_solver()
            solver.add(all_of(self._domain(pre)))
            self.kept.terms["form"] = (pre, solver)
        return self.kept.terms["form"]

    def _canoes(self, pre: SymPosition, pos: Position, p: int, exact: bool = False) -> list[Any]:
        """``p``'s canoes where they stand in ``pos`` (in its order, as :meth:`Relations.pin` pins them), with at
        most their gems of each colour (``exact``: their gems)."""
        return self.relations.pin_canoes(pre, p, pos.players[p].canoes, at_most=not exact)

    def step_loss(self, pos: Position, q: int, card: Card | None, first: bool = False) -> "_Loss | None":
        """The most ``q``'s turn (with ``card``, or any card of its hand) can take from X's canoes, per canoe and
        in all, from any well-formed position where X's and ``q``'s canoes stand as in ``pos`` with at most its
        gems (``first``: with its gems, no turn coming before) and ``q`` holds its hand in ``pos`` (R-STEAL-1..3);
        None where a loss could pass what a canoe holds."""
        me, them = pos.players[self.x], pos.players[q]
        key = ("turn", self.x, q, card, first, me.canoes, them.canoes, them.hand, them.card)
        if key not in self.kept.losses:
            pre, step, solver = self._turn_solver(q)
            hand = [card] if card is not None else _hand(them)
            pins = [*self._canoes(pre, pos, self.x, first), *self._canoes(pre, pos, q, first),
                    *[h == (Card(c) in them.hand) for c, h in enumerate(pre.hand[q])],
                    z_or([step.plays(c) for c in hand])]
            # Asked of an incremental solver holding the relation, the pins pushed and popped: 2.5 times faster here
            # than a fresh solver simplifying it each time (most of these questions share the relation and differ
            # in a few pins; a fresh solver spends its time taking the relation in again).
            solver.push()
            solver.add(*pins)
            try:
                self.kept.losses[key] = self._most(solver, pre, step.post, pos)
            finally:
                solver.pop()
        return self.kept.losses[key]

    def _turn_solver(self, q: int) -> tuple[SymPosition, TurnStep, z3.Solver]:
        """``q``'s turn from a well-formed position of phase II (:meth:`_domain`), held by an incremental solver
        made once per kind of game: questions that differ in a few pins are pushed and popped on it."""
        if ("turn", q) not in self.kept.terms:
            tag = f"cert.loss.turn{q}"
            pre = self.relations.position(tag)
            step = self.relations.turn(pre, q, tag, swap=True)
            term = all_of([*self._domain(pre), *[c for _, c in step.constraints]])
            self.kept.terms["turn", q] = (pre, step, term)
            self.kept.terms["solver", q] = make_solver()
            self.kept.terms["solver", q].add(term)
        pre, step, _ = self.kept.terms["turn", q]
        return pre, step, self.kept.terms["solver", q]

    def flow_loss(self, pos: Position, order: tuple[int, ...], cards: tuple[Card, ...] | None) -> "_Loss | None":
        """The most the flow can take from X's canoes (R-FLOW-6), per canoe and in all, from any well-formed position
        of phase II where X's canoes stand as in ``pos`` with at most its gems, the fork markers are those of
        ``pos``, the players who acted show their cards, the players of ``order`` show ``cards`` (or any card of
        their hands), and the weather is within one step per cloud among them of ``pos``'s (R-TURN-2)."""
        hands = tuple(tuple(_hand(pos.players[q])) for q in order)
        shown = tuple(p.card for p in pos.players)
        key = ("flow", self.x, order, cards or hands, pos.players[self.x].canoes, pos.weather, pos.forks, shown)
        if key not in self.kept.losses:
            if "flow" not in self.kept.terms:
                tag = "cert.loss.flow"
                pre = self.relations.position(tag)
                flow = self.relations.flow(pre, tag)
                self.kept.terms["flow"] = (pre, flow, all_of([
                    *self._domain(pre), *[c for _, c in flow.constraints]]))
            pre, flow, term = self.kept.terms["flow"]
            pins = self._canoes(pre, pos, self.x) + self.relations.pin_markers(pre, pos.forks)
            for q, player in enumerate(pos.players):
                if q not in order and player.card is not None:
                    pins.append(pre.card[q] == int(player.card))
            for k, q in enumerate(order):
                pins.append(z_or([pre.card[q] == int(c) for c in ((cards[k],) if cards is not None else hands[k])]))
            clouds = z_sum([z3.If(pre.card[q] == int(Card.CLOUD), 1, 0) for q in order])
            pins += [pre.weather >= pos.weather - clouds, pre.weather <= pos.weather + clouds]
            solver = make_preprocessing_solver()
            solver.add(term, *pins)
            self.kept.losses[key] = self._most(solver, pre, flow.post, pos)
        return self.kept.losses[key]

    def _most(self, solver: z3.Solver, pre: SymPosition, post: SymPosition, pos: Position) -> "_Loss | None":
        """The most a step (``pre`` to ``post``, over ``solver``'s assertions) takes from each of X's canoes and in
        all; None where it could take more than a canoe carries in ``pos``."""
        x = self.x
        carried = tuple(len(c.gems) for c in pos.players[x].canoes)
        losses = [z_sum(pre.cargo[x][k]) - z_sum(post.cargo[x][k]) for k in range(len(carried))]
        total = z_sum(losses)

        def may(claim: Any) -> bool:
            solver.push()
            solver.add(claim)
            self.questions += 1
            found = _ask(solver, self.deadline)
            solver.pop()
            return found
        # Per canoe first: the flow might move a gem from one of X's canoes to another, so "nothing in all" would not
        # say "nothing from each" (the turns cannot: the frame).
        if not may(z_or([loss > 0 for loss in losses])):
            return _nothing(carried)
        each = []
        for k, have in enumerate(carried):
            j = 0
            while may(losses[k] > j):
                j += 1
                if j > have:
                    return None
            each.append(j)
        most = max(each)  # the total cannot pass the sum of each canoe's bound: ask from the largest up to it
        while most < sum(each) and may(total > most):
            most += 1
        return tuple(each), most

    def _who(self, seats: Iterable[int]) -> str:
        return ", ".join(self.names[s] for s in seats) or "nobody"


@dataclass
class _Kept:
    """The relations of one board, ruleset and player count, with their sessions and solvers: built once per z3
    context (building a turn's relation takes longer than most questions to it) and reused by later checks."""

    relations: Relations
    enumerator: IncrementalEnumerator
    #: The lemmas and frames proved for the board, ruleset and player count in any z3 context (:data:`_PROVED`).
    proved: set[Any]
    sessions: dict[int, tuple[SymPosition, TurnStep, Session]] = field(default_factory=dict)
    chains: dict[Any, tuple[SymPosition, Any, Any]] = field(default_factory=dict)
    lemmas: set[Any] = field(default_factory=set)  # rules proved for every position (:meth:`_Checker.own_bank`)
    #: The frame lemma of each player's turn, proved (True) or not (:meth:`_Checker.frame`).
    frames: dict[Any, bool] = field(default_factory=dict)
    #: The terms of the questions by parts, made once (:meth:`_Checker.losses_fit`), and their answers by what they
    #: read.
    terms: dict[Any, Any] = field(default_factory=dict)
    losses: dict[Any, "_Loss | None"] = field(default_factory=dict)
    #: The sure steal's and sure win's questions (:meth:`_Checker.sure_steal`, :meth:`_Checker.sure_win`), by what
    #: they read.
    sure: dict[Any, bool] = field(default_factory=dict)
    #: The sure win's question (:meth:`_Checker.may_lose`), by what it reads: how X may lose, or None.
    lost: dict[Any, str | None] = field(default_factory=dict)


#: The last few kinds of game checked, by board, ruleset, player count and z3 context (a fresh context,
#: encoding/solver.py, makes the terms of the old one unusable).
_KEPT: dict[Any, _Kept] = {}

#: The lemmas and frames proved (:meth:`_Checker.lemma`, :meth:`_Checker._holds`: the answer unsat, never a timeout
#: nor a counterexample), by board, ruleset and player count, whatever the z3 context: a fact about the encoding,
#: which a fresh context (encoding/solver.py, ``fresh_context``) does not change, so not proved again in it. Held
#: with the :data:`_KEPT` it was filled beside: a test that plants a bug in the encoding starts a :data:`_KEPT` of its
#: own, and so reads no lemma proved without the bug (nor leaves one proved with it); once the first :data:`_KEPT` is
#: back, so are the lemmas proved beside it. The first table is always kept, and the last three others.
_PROVED: list[tuple[dict[Any, _Kept], dict[Any, set[Any]]]] = [(_KEPT, {})]


def _proved(pos: Position) -> set[Any]:
    table = next((table for kept, table in _PROVED if kept is _KEPT), None)
    if table is None:
        table = {}
        _PROVED.append((_KEPT, table))
        if len(_PROVED) > 4:
            del _PROVED[1]
    key = (pos.board, pos.ruleset, len(pos.players))
    if key not in table:
        while len(table) >= 64:
            del table[next(iter(table))]
        table[key] = set()
    return table[key]


def _kept(pos: Position) -> _Kept:
    key = (pos.board, pos.ruleset, len(pos.players), id(z3.main_ctx()))
    if key not in _KEPT:
        while len(_KEPT) >= 4:
            del _KEPT[next(iter(_KEPT))]
        relations = Relations.of(pos)
        _KEPT[key] = _Kept(relations, IncrementalEnumerator(relations), _proved(pos))
    return _KEPT[key]


def _counter(relations: Relations, kind: str, tag: str, claim: Callable[[SymPosition, Any], Any],
             player: int = 0) -> list[Any]:
    """The constraints of a counterexample to a lemma (:meth:`_Checker.lemma`) over every well-formed position: the
    relation ``kind`` from a free position (``"turn"``: ``player``'s, the canoes in either order; ``"flow"``;
    ``"rescue"``) and ``claim(pre, step)``."""
    pre = relations.position(tag)
    step: Any
    if kind == "turn":
        step, wf = relations.turn(pre, player, tag, swap=True), relations.well_formed(pre, Phase.TURNS)
    elif kind == "flow":
        step, wf = relations.flow(pre, tag), relations.well_formed(pre, Phase.TURNS, all_acted=True)
    else:
        step, wf = relations.rescue(pre, tag), relations.well_formed(pre, Phase.CARDS)
    return [*[c for _, c in wf], *[c for _, c in step.constraints], claim(pre, step)]


#: What a step can take from X's canoes at most: per canoe (in the position's order), and in all.
_Loss = tuple[tuple[int, ...], int]


def _nothing(carried: tuple[int, ...]) -> _Loss:
    return (0,) * len(carried), 0


def _most_taken(carried: tuple[int, ...], steps: list[_Loss]) -> int:
    """The most a sequence of steps can take from X's canoes, given each step's bounds: a canoe loses at most what
    it carries and at most the sum of the steps' bounds for it; all canoes at most the sum of the steps' totals."""
    per_canoe = sum(min(have, sum(step[0][k] for step in steps)) for k, have in enumerate(carried))
    return min(per_canoe, sum(step[1] for step in steps))


def _hand(player: Player) -> list[Card]:
    return [player.card] if player.card is not None else list(player.hand)


def _part(pos: Position, p: int) -> Any:
    """A player's part of a rescue outcome: their canoes and bank."""
    return pos.players[p].canoes, pos.players[p].bank


def _ask(solver: z3.Solver, deadline: float | None) -> bool:
    """sat or unsat; TimeoutError (the result unknown) for z3's unknown or a passed deadline."""
    if deadline is not None:
        left = deadline - time.perf_counter()
        if left <= 0:
            raise TimeoutError("the time for the check ran out")
        solver.set("timeout", max(1, int(left * 1000)))
    answer = solver.check()
    if answer == z3.unknown:
        raise TimeoutError("the encoding gave no answer in time")
    return bool(answer == z3.sat)


def prepare(pos: Position, timeout: float | None = 120) -> None:
    """Prove, once per process for the board, ruleset and player count of ``pos``, the lemmas the leaves ``sure-win``
    and ``sure-steal`` lean on: the frame of each player's turn (:meth:`_Checker.frame`), that a turn changes no other
    player's bank and that the flow changes no bank. A check proves those it needs itself, within its own time limit;
    proved here first, they cost no certificate its time (mining: about 5 s for 4 players, then nothing). A lemma
    that does not hold, or is not proved in ``timeout`` seconds, is left to the checks that need it."""
    checker = _Checker(Certificate(0, Goal.WIN, 1, True, (pos,), (CNode(NodeKind.LEAF, 0),)), timeout)
    try:
        for q in range(len(pos.players)):
            checker.frame(q)
            checker.others_banks(0, q)
        checker.flow_keeps_banks(0)
    except (Refused, OutOfTime, TimeoutError):
        pass


def check_certificate(cert: Certificate, timeout: float | None = 60) -> CertificateCheck:
    """Check a certificate against the encoding alone: accepted (CONFIRMED), refused (REFUTED, with the node and the
    rule) or UNKNOWN. Modules the encoding does not cover are refused with :class:`UncoveredRulesError` (exit 2)."""
    start = time.perf_counter()
    checker = _Checker(cert, timeout)

    def result(verdict: Verdict, **more: Any) -> CertificateCheck:
        return CertificateCheck(verdict, cert.answer, questions=checker.questions, nodes=len(cert.nodes),
                                seconds=time.perf_counter() - start, **more)
    try:
        low, high = checker.start()
    except Refused as err:
        return result(Verdict.REFUTED, node=err.node, rule=err.rule, reason=err.reason)
    except (OutOfTime, TimeoutError):
        return result(Verdict.UNKNOWN, reason="the time ran out before every node was checked")
    if (low if cert.answer else not high):
        return result(Verdict.CONFIRMED)
    return result(Verdict.REFUTED, node=0, rule="R-END-1",
                  reason=f"the checked tree does not prove a \"{'yes' if cert.answer else 'no'}\" (its value lies "
                         f"between {low} and {high})")
