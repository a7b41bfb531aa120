"""The front door to the encoding: a round's relations, built, pinned to concrete positions, and read back.

Every analysis over the encoding (the prover, ``why``, the cross-check, the switch witnesses, the SMT solver, the
enumerator) goes through :class:`Relations`, made for one board, ruleset and player count (and, for the mutation
check, one mutant). It gives

- symbolic positions (:meth:`Relations.position`), constrained well-formed (:meth:`Relations.well_formed`) or
  pinned to a concrete :class:`Position` (:meth:`Relations.pin`);
- the relations of a round's parts from a symbolic position: one player's turn (:meth:`Relations.turn`), the flow
  (:meth:`Relations.flow`), phase I's rescues (:meth:`Relations.rescue`), the end check (:meth:`Relations.end`)
  and the whole round (:meth:`Relations.round`), each a *step*: its rule-tagged constraints, the position after
  it, and the choices it ranges over;
- the way back from a model to the game's words: positions, turns in the notation, rescue decisions, the flow's
  branch choices, winners (``decode_*``);
- the questions put to z3 (:class:`Question`, from :mod:`.solver`), with three-valued answers (:class:`Sat`), their
  models read back by the ``decode_*`` methods and :func:`value`. An analysis outside the encoding imports z3 only
  where it is written in SMT by design (docs/ARCHITECTURE.md).

Behind the door is the machinery: :mod:`.state` (symbolic positions), :mod:`.tables` (the river as integer tables),
:mod:`.core` (the rule groups, and mutants), :mod:`.turn`, :mod:`.flow`, :mod:`.end`, :mod:`.round` (the
relations), :mod:`.pin` and :mod:`.trace` (the notation in and out), :mod:`.query` (position predicates as terms).
Property statements (R-PROP) read the terms of the steps (positions, declared choices, observations); they never
build relations themselves.

Term order: z3's search follows the order in which terms are created (:func:`.solver.fresh_context`). Each method
creates its terms in one fixed order, and a caller's calls create theirs in the order they are made, so a question
put the same way gets the same model (the same counterexample, witness or goal position) on every run. Within one
z3 context, later questions also depend on the order in which earlier terms were released (:class:`Step`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import z3

from niagara_solver.encoding.core import Encoding, Mutant
from niagara_solver.encoding.end import encode_end
from niagara_solver.encoding.flow import FlowChoice, RescueChoice, encode_flow, encode_rescue, pushes_put_back
from niagara_solver.encoding.pin import canoe_order, pin_rescues, pin_turn, same_position, written_order
from niagara_solver.encoding.query import query_term
from niagara_solver.encoding.round import RoundChoice, encode_round
from niagara_solver.encoding.solver import Question, Sat, verdict
from niagara_solver.encoding.state import (NAMES, NCOL, Constraint, Expr, SymPosition, card_in_hand, decode, fix,
                                           value, well_formed)
from niagara_solver.encoding.tables import BoardTables
from niagara_solver.encoding.trace import decode_branches, decode_rescues, decode_turn
from niagara_solver.encoding.turn import (OPS, SlotObservation, Transition, TurnChoice, encode_turn, gem_ops,
                                          swap_canoes)
from niagara_solver.model.atoms import Card, Gems, Phase
from niagara_solver.model.board import Board
from niagara_solver.model.notation import Rescue, Turn
from niagara_solver.model.position import Canoe, Player, Position
from niagara_solver.model.query import Query
from niagara_solver.model.ruleset import ForkPolicy, Ruleset
from niagara_solver.encoding.terms import z_and, z_or, z_sum

#: A model z3 gave: read it back with the ``decode_*`` methods and :func:`value`.
Model = z3.ModelRef


@dataclass(kw_only=True)
class Step:
    """A relation from the position ``pre``: its rule-tagged ``constraints`` (each tagged with the rule ID it comes
    from, so an unsat core names rules), the position ``post`` after it, and what statements may read of it
    (``observations`` of each canoe's action, named terms in ``extra``).

    Field order matters: a step that is dropped releases its terms in this order (the position before first), z3
    gives the identifiers of released terms to the next terms it creates, and the models of later questions in
    the same z3 context depend on them.
    """

    pre: SymPosition
    constraints: list[Constraint]
    post: SymPosition
    observations: list[SlotObservation] = field(default_factory=list)
    extra: dict[str, Expr] = field(default_factory=dict)

    def holds(self) -> Expr:
        """The relation holds: every constraint, as one term (made anew at each call)."""
        return z_and([c for _, c in self.constraints])

    def fails(self) -> Expr:
        """The relation does not hold: some constraint is broken (made anew at each call)."""
        return z3.Not(z_and([c for _, c in self.constraints]))


#: A turn's choices as values (:meth:`TurnStep.decisions`): every choice's, and the canoe order's (None for a step
#: made without it as a choice).
Decisions = tuple[list[int], int | None]


@dataclass(kw_only=True)
class TurnStep(Step):
    """One player's turn (phase II) from ``pre``: slot ``s`` of ``choice`` acts on canoe ``s``; with ``swap`` (a
    Bool) the player's two canoes trade places for the turn."""

    choice: TurnChoice
    player: int = 0
    swap: Expr | None = None

    @property
    def card(self) -> Expr:
        """The card played (0 the cloud, 1..6)."""
        return self.choice.card

    def plays(self, card: Card) -> Expr:
        """The turn is played with ``card``."""
        return self.choice.card == int(card)

    def size(self) -> Expr:
        """What makes the turn hard to read: its card (0 the cloud), and 3 more when the second canoe acts."""
        return self.card + z3.If(z_or(self.choice.slots[1].on), 3, 0)

    def steals_with(self, slot: int) -> Expr:
        """The canoe of slot ``slot`` takes a gem (R-STEAL-1)."""
        s = self.choice.slots[slot]
        return z_or([s.taking(j) for j in range(len(s.steals))])

    def steals(self) -> Expr:
        """Some canoe of the turn takes a gem (made once per step: a certificate check asks it of every pinned
        turn)."""
        made = self.__dict__.get("_steals")
        if made is None:
            made = self.__dict__["_steals"] = z_or([s.taking(j) for s in self.choice.slots
                                                     for j in range(len(s.steals))])
        return made

    def decisions(self, model: z3.ModelRef) -> Decisions:
        """The model's values of every choice of the turn (the canoe order last: None for a step made without it),
        for :meth:`pin_decisions`."""
        return ([value(model, v) for v in self.choice.variables()],
                value(model, self.swap) if self.swap is not None else None)

    def pin_decisions(self, values: Decisions) -> list[Expr]:
        """The turn's choices fixed to values :meth:`decisions` read (from another step's model, made with the
        canoe order as a choice if this one is)."""
        choices, swap = values
        assert (swap is None) == (self.swap is None)
        out = [v == (bool(x) if z3.is_bool(v) else x) for v, x in zip(self.choice.variables(), choices)]
        if self.swap is not None:
            out.append(self.swap == bool(swap))
        return out

    def fails_for(self, card: Expr) -> Expr:
        """This turn is no turn with ``card`` (a term): it is played with another card, or it breaks a rule."""
        return z3.Or(self.card != card, self.fails())


@dataclass(kw_only=True)
class FlowStep(Step):
    """The flow (phase III) from ``pre``. ``choice``: the branch each step's disc takes at each fork, read when
    the ruleset leaves it free (``free``: ``fork_policy: free``; else the markers decide); ``steps``: a term for
    the number of single steps (phase III alone) in place of the flow the cards give, or None."""

    choice: FlowChoice | None = None
    free: bool = False
    steps: Expr | None = None

    @property
    def branches(self) -> FlowChoice | None:
        """The branch choices in force (None: the fork markers decide)."""
        return self.choice if self.free else None

    @property
    def k(self) -> Expr:
        """How many single steps the river flows (R-FLOW-1, R-FLOW-2)."""
        return self.extra["k"]

    @property
    def total(self) -> Expr:
        """The flow sum before the clamp: smallest paddle plus the weather (R-FLOW-1)."""
        return self.extra["sum"]

    def decisions(self, model: z3.ModelRef) -> list[dict[int, int]] | None:
        """The model's branch choices (None when the ruleset leaves none), for :meth:`pin_decisions`."""
        if self.branches is None:
            return None
        return [{f: value(model, b) for f, b in step.items()} for step in self.branches.branches]

    def pin_decisions(self, values: list[dict[int, int]] | None) -> list[Expr]:
        """The branch choices fixed to values :meth:`decisions` read."""
        if self.branches is None or values is None:
            return []
        return [b == v for step, vals in zip(self.branches.branches, values) for f, b in step.items()
                for ff, v in vals.items() if ff == f]


@dataclass(kw_only=True)
class RescueStep(Step):
    """Phase I's rescues from ``pre``: each player's decision per canoe (``choice``)."""

    choice: RescueChoice


@dataclass(kw_only=True)
class RoundStep(Step):
    """A whole round from a start-of-round ``pre`` whose lifebuoy is held by seat ``lifebuoy``; made with its
    parts (``Relations.round(..., parts=True)``), also each phase's relation from the position before it: the
    rescues, the turns in order of play, the flow (read back by :meth:`Relations.decode_round`)."""

    choice: RoundChoice
    lifebuoy: int = 0
    rescue_step: RescueStep | None = None
    turn_steps: list[TurnStep] = field(default_factory=list)
    flow_step: FlowStep | None = None

    def plays(self, player: int, card: Card) -> Expr:
        """``player`` plays ``card`` this round."""
        return self.choice.turns[player].card == int(card)


@dataclass(frozen=True)
class DecodedRound:
    """A whole round read back from a model (:meth:`Relations.decode_round`), in the words the engine's
    ``play_round`` takes: ``rescues`` by seat, ``turns`` as (seat, card, turn) in order of play (R-TURN-1), the
    number of single steps the river flowed (``flow``, R-FLOW-1), the branch each step's disc took at each fork
    where the ruleset leaves it free (``branches``; None: the markers decide, R-FLOW-4), and ``position``, the
    start of the next round."""

    rescues: dict[int, Rescue]
    turns: tuple[tuple[int, Card, Turn], ...]
    flow: int
    branches: tuple[tuple[tuple[str, str], ...], ...] | None
    position: Position

    @property
    def cards(self) -> dict[int, Card]:
        """The card each seat played."""
        return {p: card for p, card, _ in self.turns}


class Relations:
    """The relations of a round for one board, ruleset and player count (with a mutant's rule group, if given)."""

    def __init__(self, board: Board, rules: Ruleset, players: int, mutant: Mutant | None = None) -> None:
        self.enc = Encoding(board, rules, players, mutant)

    @classmethod
    def of(cls, pos: Position, mutant: Mutant | None = None) -> "Relations":
        """The relations a concrete position is played under (its board, ruleset and player count)."""
        return cls(pos.board, pos.ruleset, len(pos.players), mutant)

    @property
    def tables(self) -> BoardTables:
        return self.enc.tables

    @property
    def rules(self) -> Ruleset:
        return self.enc.rules

    @property
    def players(self) -> int:
        return self.enc.players

    @property
    def mutant(self) -> Mutant | None:
        return self.enc.mutant

    @property
    def free_forks(self) -> bool:
        """Whether the flow's branches are choices (``fork_policy: free``) rather than the markers' alternation."""
        return self.rules.fork_policy is ForkPolicy.FREE

    # -- positions --------------------------------------------------------------------------------------------

    def position(self, tag: str) -> SymPosition:
        """A free symbolic position, its variables named after ``tag``."""
        return SymPosition.fresh(tag, self.players, self.tables, x_cards=self.rules.x_cards,
                                 x_double=self.rules.x_double, x_beaver=self.rules.x_beaver,
                                 x_moose=self.rules.x_moose, x_whirl=self.rules.x_whirl, x_joe=self.rules.x_joe)

    def well_formed(self, sym: SymPosition, phase: Phase, all_acted: bool = False,
                    to_act: int | None = None) -> list[Constraint]:
        """What FORMAT.md accepts of a position in ``phase`` (``all_acted``: phase II is over, as before the
        flow), as rule-tagged constraints; ``to_act``: a player who has yet to act this round (with the expansion's
        cards, none of their canoes is moored and they chose no 1/2/3 budget: R-TURN-1)."""
        out = well_formed(sym, self.tables, self.rules, phase, all_acted)
        if to_act is not None and sym.moored is not None and sym.budget is not None:
            out += [("R-TURN-1", z3.Not(m)) for m in sym.moored[to_act]]
            out.append(("R-TURN-1", sym.budget[to_act] == 0))
        return out

    def pin(self, sym: SymPosition, position: Position, order: dict[int, tuple[int, int]] | None = None) -> list[Expr]:
        """``sym`` equals a concrete position; ``order`` gives a player's canoes in another order (symbolic canoe
        ``k`` of player ``p`` is the concrete canoe ``order[p][k]``: the canoe acting first is canoe 0)."""
        return fix(sym, position, self.tables, order)

    def pin_model(self, sym: SymPosition, model: z3.ModelRef, *terms: Expr) -> list[Expr]:
        """``sym`` equals the position a model gives it, and each of ``terms`` (a step's card, say) its value."""
        return [v == model.eval(v, model_completion=True) for v in [*sym.variables(), *terms]]

    def pin_canoes(self, sym: SymPosition, player: int, canoes: Sequence[Canoe], at_most: bool = False
                   ) -> list[Expr]:
        """The player's canoes stand where ``canoes`` stand, in their order (as :meth:`pin` pins them), with their
        gems (``at_most``: at most their gems of each colour); nothing else of the position is pinned."""
        out = []
        for k, canoe in enumerate(canoes):
            out.append(sym.place[player][k] == self.tables.index[canoe.place])
            gems = Gems.of(canoe.gems)
            out += [(sym.cargo[player][k][c] <= gems[c]) if at_most else (sym.cargo[player][k][c] == gems[c])
                    for c in range(len(sym.cargo[player][k]))]
        return out

    def pin_markers(self, sym: SymPosition, forks: Sequence[tuple[str, str]]) -> list[Expr]:
        """The fork markers of ``forks`` (fork, the branch its marker shows, as :attr:`Position.forks`) stand so."""
        t = self.tables
        out = []
        for fork, label in forks:
            f = t.index[fork]
            out.append(sym.marker[f] == t.labels[f].index(label))
        return out

    def same_position(self, sym: SymPosition, position: Position) -> Expr:
        """``sym`` is the concrete ``position``, each player's canoes in either order, the fork markers aside: one
        term, to negate or combine (:func:`.pin.same_position`)."""
        return same_position(sym, position, self.tables)

    def size(self, sym: SymPosition, first: int = 0, hands: bool = True) -> Expr:
        """What makes a position hard to read: the gems carried and banked, those in another colour's cave, the
        canoes of players from seat ``first`` on that are out of the port, and (``hands``) the cards out of hand.
        A counterexample or a witness is shrunk on it."""
        t = self.tables
        size = (z_sum([g for row in sym.cargo for canoe in row for g in canoe])
                + z_sum([g for r in sym.bank for g in r])
                + z_sum([sym.cave[cc][c] for cc in range(NCOL) for c in range(NCOL) if cc != c])
                + z_sum([z3.If(sym.place[p][k] != t.PORT, 1, 0) for p in range(first, sym.players) for k in range(2)]))
        if hands:
            size = size + z_sum([z3.If(h, 0, 1) for row in sym.hand for h in row])
        return size

    def card_in_hand(self, sym: SymPosition, player: int, card: Expr) -> Expr:
        """The card is one of the player's hand (R-CARD-2)."""
        return card_in_hand(sym, player, card)

    def reached_goal(self, sym: SymPosition, player: int) -> Expr:
        """The player's bank meets the goal (R-END-1)."""
        return self.enc.rule("R-END-1")(self.enc, sym.bank[player])

    def holds_query(self, sym: SymPosition, query: Query, *, phase: Phase = Phase.CARDS, round: int | None = None,
                    lifebuoy: int | None = None) -> Expr:
        """A position predicate (docs/QUERIES.md) holds at ``sym``: one Bool term. ``phase``: where in the round
        ``sym`` stands (``game_over`` holds only at the start of one, R-END-2); ``round``, ``lifebuoy``: the round
        number and the lifebuoy's seat, which a symbolic position does not hold, for a query that reads them.
        ``QueryError`` for what the encoding does not hold: the last round's events and the tally
        (:func:`.query.query_term`)."""
        return query_term(self.enc, sym, query, phase=phase, round=round, lifebuoy=lifebuoy)

    def goes_on(self, sym: SymPosition) -> Expr:
        """The game goes on from the start-of-round position ``sym``: no player's bank meets the goal (R-END-1),
        which would end the game there (R-END-2)."""
        return z3.Not(z_or([self.reached_goal(sym, p) for p in range(self.players)]))

    # -- the relations -------------------------------------------------------------------------------------

    def turn(self, pre: SymPosition, player: int = 0, tag: str = "turn", *, choice: TurnChoice | None = None,
             swap: bool = False, capacity: int | None = None) -> TurnStep:
        """The turn of ``player`` from ``pre``, over fresh choices named after ``tag`` (or ``choice``, shared with
        another relation's turn; ``capacity``: how many gems a fresh choice may steal, the ruleset's by default).
        With ``swap`` the canoe order is a choice too (a Bool named ``tag.swap``): needed where other turns fix
        the order of the player's canoes, as in a sequence of turns."""
        if choice is None:
            choice = TurnChoice.fresh(tag, self.rules.capacity if capacity is None else capacity, self.players,
                                      self.rules)
        flip = z3.Bool(f"{tag}.swap") if swap else None
        t = encode_turn(self.enc, pre, choice, player, flip)
        return TurnStep(pre=pre, constraints=t.constraints, post=t.post, observations=t.observations, extra=t.extra,
                        choice=choice, player=player, swap=flip)

    def pin_turn(self, step: TurnStep, position: Position, card: Card, turn: Turn, every: bool = False
                 ) -> list[Expr]:
        """The step's choices fixed to a written turn with ``card`` (its first canoe acting in slot 0: pin the
        position with :func:`canoe_order`'s order); with ``every``, also the choices the notation leaves to the
        relation, so that it can be evaluated (:func:`.pin.pin_turn`)."""
        return pin_turn(self.enc, position, card, turn, step.choice, step.player, every)

    def written_order(self, step: TurnStep, turn: Turn) -> list[Constraint]:
        """R-GEM-2 on the order a pinned turn writes each stop's gem actions in (the relation counts them,
        :func:`.pin.written_order`): assert these with :meth:`pin_turn`'s pins where the order written matters."""
        return written_order(step.observations, turn)

    def pin_rescues(self, step: RescueStep, position: Position, decisions: dict[int, Rescue]) -> list[Expr]:
        """The step's choices fixed to written rescue decisions of the players (by seat; "none" for a player left
        out), every one ``variable == value``, so that the relation can be evaluated (:func:`.pin.pin_rescues`)."""
        return pin_rescues(position, step.choice, decisions)

    def pin_round_turn(self, step: RoundStep, player: int, position: Position, card: Card,
                       turn: Turn, every: bool = False) -> list[Expr]:
        """A round's turn of ``player`` fixed to a written turn with ``card``, written from ``position`` (the
        position before that turn); which of the player's canoes acts first is left to the round's choice of
        canoe order. With ``every``, also the choices the notation leaves open, as :meth:`pin_turn`."""
        return pin_turn(self.enc, position, card, turn, step.choice.turns[player], player, every)

    def pin_round_rescues(self, step: RoundStep, position: Position, decisions: dict[int, Rescue]) -> list[Expr]:
        """A round's phase I fixed to written rescue decisions, as :meth:`pin_rescues` (``position``: the round's
        start, pinned without an order)."""
        return pin_rescues(position, step.choice.rescue, decisions)

    def flow_choice(self, tag: str) -> FlowChoice:
        """Branch choices for the flow (read only with ``fork_policy: free``), shareable between relations."""
        return FlowChoice.fresh(tag, self.enc)

    def flow(self, pre: SymPosition, tag: str | None = None, *, choice: FlowChoice | None = None,
             steps: bool = False) -> FlowStep:
        """The flow from ``pre`` (every player's card known).

        With ``fork_policy: free`` the branches are choices: ``choice`` if given (it may be shared with another
        relation's flow, and is kept but not read under alternation), else fresh ones named after ``tag``, or,
        without a tag, made by the relation once the flow's value is built (named ``flow``). With ``steps`` the
        number of single steps is a free variable ``tag.steps`` (phase III alone) instead of the flow the cards
        and the weather give.
        """
        if steps and tag is None:
            raise ValueError("a free number of steps needs a tag to name it")
        chosen = self.free_forks or pushes_put_back(self.enc)  # X-WHIRL-4: an owner's push is a choice too
        if choice is None and tag is not None and chosen:
            choice = self.flow_choice(tag)
        count = z3.Int(f"{tag}.steps") if steps else None
        t = encode_flow(self.enc, pre, choice if chosen else None, steps=count)
        return FlowStep(pre=pre, constraints=t.constraints, post=t.post, observations=t.observations, extra=t.extra,
                        choice=t.choice if chosen else choice, free=self.free_forks, steps=count)

    def rescue(self, pre: SymPosition, tag: str = "rescue", *, choice: RescueChoice | None = None) -> RescueStep:
        """Phase I's rescues from ``pre`` (a start-of-round position), over fresh decisions named after ``tag``
        (or ``choice``, shared with another relation's rescues)."""
        if choice is None:
            choice = RescueChoice.fresh(tag, self.players)
        t = encode_rescue(self.enc, pre, choice)
        return RescueStep(pre=pre, constraints=t.constraints, post=t.post, observations=t.observations,
                          extra=t.extra, choice=choice)

    def end(self, sym: SymPosition) -> list[Expr]:
        """For each player, whether they win if the game ends at ``sym`` (R-END-1..3)."""
        return encode_end(self.enc, sym)

    def round(self, pre: SymPosition, tag: str = "round", lifebuoy: int = 0, *, parts: bool = False) -> RoundStep:
        """A whole round from the start-of-round position ``pre`` with the lifebuoy at seat ``lifebuoy``: rescues,
        every turn in order, the flow, phase IV. With ``parts`` the step also keeps each phase's relation (the
        same terms, no new ones), so that a model can be read back as the round's decisions
        (:meth:`decode_round`)."""
        choice = RoundChoice.fresh(tag, self.enc)
        made: list[tuple[SymPosition, Transition]] | None = [] if parts else None
        t = encode_round(self.enc, pre, choice, lifebuoy, made)
        step = RoundStep(pre=pre, constraints=t.constraints, post=t.post, observations=t.observations,
                         extra=t.extra, choice=choice, lifebuoy=lifebuoy)
        if made:
            (rescue_pre, rescue), *turns, (flow_pre, flow) = made
            step.rescue_step = RescueStep(pre=rescue_pre, constraints=rescue.constraints, post=rescue.post,
                                          observations=rescue.observations, extra=rescue.extra,
                                          choice=choice.rescue)
            order = [(lifebuoy + i) % self.players for i in range(self.players)]  # R-TURN-1, as encode_round
            step.turn_steps = [TurnStep(pre=turn_pre, constraints=turn.constraints, post=turn.post,
                                        observations=turn.observations, extra=turn.extra, choice=choice.turns[p],
                                        player=p, swap=choice.swaps[p])
                               for p, (turn_pre, turn) in zip(order, turns)]
            step.flow_step = FlowStep(pre=flow_pre, constraints=flow.constraints, post=flow.post,
                                      observations=flow.observations, extra=flow.extra, choice=choice.flow,
                                      free=self.free_forks)
        return step

    # -- from a model back to the game's words ------------------------------------------------------------

    def decode_position(self, model: z3.ModelRef, sym: SymPosition, base: Position) -> Position:
        """The concrete position a model gives ``sym`` (board, ruleset, round, phase and lifebuoy from ``base``;
        each player's canoes in canonical order)."""
        return decode(model, sym, self.tables, self.rules, base)

    def decode_turn(self, model: z3.ModelRef, step: TurnStep, names: Sequence[str] | None = None) -> tuple[Card, Turn]:
        """The card and the turn (in the notation) a model chose; ``names``: the players' names in seat order, for a
        steal's victim (default: the standard seat colours of the symbolic positions)."""
        pre = step.pre
        if step.swap is not None and z3.is_true(model.eval(step.swap, model_completion=True)):
            # The canoe order was a choice and the model exchanged the player's canoes: slot s acted on canoe 1 - s.
            pre = swap_canoes(pre, step.player, z3.BoolVal(True))
        return decode_turn(model, step.choice, self.tables, pre, step.player, names)

    def decode_rescues(self, model: z3.ModelRef, step: RescueStep) -> dict[int, Rescue]:
        """Each player's rescue decision."""
        return decode_rescues(model, step.choice)

    def decode_branches(self, model: z3.ModelRef, step: FlowStep,
                        steps: int) -> list[tuple[tuple[str, str], ...]] | None:
        """The branch the disc of each of the first ``steps`` steps took at each fork (None: no branch choice,
        the markers decide)."""
        if step.branches is None:
            return None
        return decode_branches(model, step.branches, self.tables, steps)

    def decode_routes(self, model: z3.ModelRef, step: FlowStep, steps: int) -> list[tuple[tuple[str, str], ...]]:
        """The branch the disc of each of the first ``steps`` steps took at each fork it passed (R-FLOW-3), whether
        the markers or the choices decided it: what a counterexample's picture shows."""
        t = self.tables
        out = []
        for i in range(steps):
            taken = ((f, value(model, step.extra[f"route.{i}.{f}"])) for f in t.forks if f"route.{i}.{f}" in step.extra)
            out.append(tuple((t.name[f], t.labels[f][j]) for f, j in taken if 0 <= j < len(t.labels[f])))
        return out

    def decode_round(self, model: z3.ModelRef, step: RoundStep, start: Position) -> "DecodedRound":
        """The round a model chose from the concrete start-of-round position ``start`` (which the step's ``pre``
        is pinned to), in the game's words: each player's rescue decision, each turn with its card in order of
        play, the flow's steps and branch choices, and the position at the start of the next round (phase IV
        done: the lifebuoy passed, R-BUOY-1; the round counted). The step must keep its parts
        (:meth:`round` with ``parts``). The pushes of canoes put back onto the whirlpool at a fork (X-WHIRL-4, an
        owner's choice with the whirlpool and the Lasso) are not read back: such a round is refused."""
        if step.rescue_step is None or step.flow_step is None:
            raise ValueError("the round was made without its parts (Relations.round(..., parts=True))")
        if step.choice.flow is not None and step.choice.flow.pushes is not None:
            raise ValueError("a round's pushes onto the whirlpool's branches (X-WHIRL-4) are not read back")
        names = [p.name for p in start.players]
        rescues = self.decode_rescues(model, step.rescue_step)
        turns = tuple((s.player, *self.decode_turn(model, s, names)) for s in step.turn_steps)
        steps = value(model, step.flow_step.k)
        branches = self.decode_branches(model, step.flow_step, steps)
        base = start.replace(round=start.round + 1, lifebuoy=(step.lifebuoy + 1) % self.players, phase=Phase.CARDS,
                             acted=())
        after = self.decode_position(model, step.post, base)
        players = tuple(Player(name, a.canoes, a.hand, a.bank, None) for name, a in zip(names, after.players))
        return DecodedRound(rescues=rescues, turns=turns, flow=steps,
                            branches=tuple(branches) if branches is not None else None,
                            position=after.replace(players=players))

    @staticmethod
    def decode_winners(model: z3.ModelRef, won: list[Expr]) -> tuple[int, ...]:
        """The seats :meth:`end` names as winners in a model."""
        return tuple(p for p, w in enumerate(won) if value(model, w))

    @staticmethod
    def broken(model: z3.ModelRef, constraints: list[Constraint]) -> list[str]:
        """The tags of the constraints a model breaks, in their order (the structural ``DOMAIN`` constraints, which
        are no rules, are not evaluated)."""
        return [r for r, c in constraints if r != "DOMAIN" and z3.is_false(model.eval(c, model_completion=True))]

    @staticmethod
    def differ(these: Sequence[Expr], those: Sequence[Expr]) -> Expr:
        """Some term of ``these`` differs from its partner in ``those`` (the places, markers or winners two rulesets
        give): one term."""
        return z_or([x != y for x, y in zip(these, those)])


__all__ = ["Relations", "Step", "TurnStep", "FlowStep", "RescueStep", "RoundStep", "DecodedRound", "SymPosition",
           "Mutant", "Constraint", "Expr", "Model", "Question", "Sat", "Decisions", "NAMES", "NCOL", "OPS", "gem_ops",
           "value", "verdict", "canoe_order"]
