"""What both solver backends share, on pure data only: the goals, the answer record, the time-out signal and the
sound bounds on what a player can still bank.

Nothing here calls the engine or the encoding, so the search backend (over the engine) and the smt backend (over
the encoding) stay two independent readings of the rules that meet only on these values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, StrEnum
from functools import lru_cache
from typing import Any, Collection, Iterable, Iterator, Protocol

from niagara_solver.model.atoms import FALLEN, PORT, Card
from niagara_solver.model.board import Board
from niagara_solver.model.limits import OutOfTime as OutOfTime  # the time-out signal both backends raise
from niagara_solver.model.notation import Steal, Turn
from niagara_solver.model.position import Canoe, Position
from niagara_solver.model.verdict import ANSWER, Verdict
from niagara_solver.solver.reasons import Reason


class Goal(Enum):
    """What X wants (docs/SOLVER.md)."""

    WIN = "win"      # the game ends within the horizon with X among the winners
    STEAL = "steal"  # X steals a gem within the horizon
    SAFE = "safe"    # X loses no gem from its first turn to the end of the horizon


class Backend(Enum):
    """Which reading of the rules answers: the engine (``search``), the encoding (``smt``), or both, compared."""

    SEARCH = "search"
    SMT = "smt"
    BOTH = "both"


class ProgressReport(Protocol):
    """Told now and then how far a backend has got: the positions it searched (explored), and a note of what it
    does (the smt backend: the candidate turns of X its loop tried and the refutations it found)."""

    def __call__(self, nodes: int, note: str = "") -> None: ...


class AnsweredBy(StrEnum):
    """Who gave an :class:`Answer`: the search over the engine, the smt backend over the encoding, or the encoding's
    check of the search's certificate (the second answer under ``--backend both``). The values are the JSON's
    ``"backend"`` words."""

    SEARCH = "search"
    SMT = "smt"
    CERTIFICATE = "certificate"


@dataclass
class Answer:
    """The answer to one question about one player: CONFIRMED is "yes", REFUTED "no" (:data:`ANSWER`)."""

    verdict: Verdict
    player: str
    goal: Goal
    horizon: int
    backend: AnsweredBy
    card: Card | None = None
    turn: Turn | None = None
    line: list[str] = field(default_factory=list)
    refutations: list[dict[str, Any]] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    note: str = ""
    seconds: float = 0.0
    nodes: int = 0
    #: Why the line ends as it does (its last choice, as data), when the line shows its end; for a game already
    #: over, that it is (kind ``over``).
    reason: Reason | None = None

    def __post_init__(self) -> None:
        self.backend = AnsweredBy(self.backend)  # its word is read back too (``"search"``)

    @property
    def word(self) -> str:
        """``yes``, ``no`` or ``unknown``."""
        return ANSWER(self.verdict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"verdict": self.word, "player": self.player, "goal": self.goal.value,
                               "horizon": self.horizon, "backend": self.backend.value,
                               "seconds": round(self.seconds, 3)}
        if self.verdict is Verdict.CONFIRMED:
            out["card"] = self.card.to_json() if self.card is not None else None
            out["turn"] = str(self.turn) if self.turn is not None else None
            out["line"] = self.line
        if self.reason is not None and self.verdict is not Verdict.UNKNOWN:
            out["reason"] = self.reason.to_json()
        if self.verdict is Verdict.REFUTED:
            out["refutations"] = self.refutations
        if self.details:
            out["details"] = self.details
        if self.note:
            out["note"] = self.note
        return out


def x_gems(pos: Position, x: int) -> int:
    """X's gems: banked and carried."""
    me = pos.players[x]
    return me.bank.total + sum(len(c.gems) for c in me.canoes)


def could_reach_goal(pos: Position, x: int, extra: int) -> bool:
    """An upper bound: could X's bank reach the goal (R-END-1) with ``extra`` more gems of any colours?"""
    bank = pos.players[x].bank
    missing = sum(1 for n in bank if n == 0)
    return bank.total + extra >= 7 or max(bank) + extra >= 4 or missing <= extra


def turn_capacity(pos: Position, q: int) -> int:
    """The most gems player ``q`` banks in one turn: what its canoes carry at most, each its capacity (R-GEM-2; the
    double canoe 2, X-DOUBLE-1), since a canoe banks what it carries on entering the port (R-MOVE-5, X-DOUBLE-4) and
    acts once a turn. Twice the ruleset's capacity without the double canoe; with it, one more than that."""
    cap = pos.ruleset.capacity
    return sum(c.capacity(cap) for c in pos.players[q].canoes)


def bankable(pos: Position, q: int) -> tuple[int, int]:
    """An upper bound on the gems (and their value) player ``q`` can bank in its next turn this round.

    Only a canoe that can reach the port banks (R-MOVE-5): one carrying gems whose card covers its depth, or one
    beside a cave that can load first (2 points a gem action, R-MOVE-2) and still reach the port; a loaded gem is
    counted at the highest value, 5. A canoe banks what it carries into the port: at most its capacity (R-GEM-2),
    and at most one gem more than it carried per gem action (an unload and a load swap a gem, they add none). A
    stolen gem cannot be banked in the same turn (a steal ends the action, R-STEAL-3).
    """
    player = pos.players[q]
    best = max((b for c in player.playable for b in c.budgets), default=0)  # 1/2/3: up to 3 (X-CARDS-3)
    if pos.ruleset.x_moose and best:
        best += 2  # the moose's bonus, if a canoe holds it or may take it (X-MOOSE-2): an upper bound stays one
    board, cap = pos.board, pos.ruleset.capacity
    gems = value = 0
    for canoe in player.canoes:
        if not canoe.on_river:
            continue
        depth = board.depth[canoe.place]
        if best < depth:
            continue
        carried = canoe.gems
        # Gem actions at the canoe's own cave before it goes home (its only stop on the way, R-MOVE-1).
        actions = (best - depth) // 2 if board.cave[canoe.place] is not None else 0
        banked = min(canoe.capacity(cap), len(carried) + actions)
        gems += banked
        value += min(sum(int(g) for g in carried) + 5 * actions, 5 * banked)
    return gems, value


#: The budgets a paddle card of the base game gives (R-CARD-1, R-TURN-3): 1 to 6.
_PADDLES = (1, 2, 3, 4, 5, 6)


def bank_reach(pos: Position, x: int, left: int, one_departure: bool = False, own_hand: bool = False) -> int:
    """An upper bound on the gems X can still bank within ``left`` rounds (this one included), without an expansion
    module: each of X's canoes alone on a river relaxed in X's favour (:func:`_canoe_reach`), summed.

    A gem reaches X's bank only in one of X's canoes entering the port (R-GEM-5, R-MOVE-5); no other player's turn
    moves X's canoes or adds to their cargo, and the flow only carries them down (R-FLOW-3, R-FLOW-5). The relaxation
    lets each canoe choose its own budget (the cards X may play this round, any paddle later: R-CARD-1), act or
    not (R-TURN-3), load, unload or steal whatever it has room for (caves never empty, victims everywhere: R-GEM-1,
    R-STEAL-1), ride the flow any number of discs down any branch, and come back from the falls to the port,
    empty, free (R-FLOW-6, R-RESCUE-1); only the movement is the rules' own: exact spend (R-MOVE-3) except into the
    port (R-MOVE-5), 1 point a disc and 2 a gem action (R-MOVE-2), up or down (R-MOVE-4). Every play of the real
    game is one of the relaxation's, so its best is a bound.

    With ``one_departure`` the relaxation keeps one more rule: when both of X's canoes are in the port and X has not
    acted this round, at most one of them leaves it this round (R-TURN-3, either ``port_departure``), so the other
    starts a round later; every real play still is one of the relaxation's. With ``own_hand``, the later rounds' budgets
    are those of the cards left in X's hand when the rounds counted end before the hand comes back full (a played card
    stays out until every card was played, R-CARD-2), each still allowed in every round."""
    me = pos.players[x]
    board, rules = pos.board, pos.ruleset
    acted = x in pos.acted
    cards = [me.card] if me.card is not None else list(me.hand)
    now = tuple(sorted({b for c in cards if c is not None for b in c.budgets}))
    later: tuple[int, ...] = _PADDLES
    if own_hand and not rules.modules:
        # The rounds after this one use the cards left in the hand until it comes back full (R-CARD-2): this round's
        # card (if X has not acted) is one of the hand, so one card fewer is left for them.
        left_in_hand = len(me.hand) - (0 if acted else 1)
        if left - 1 <= left_in_hand:
            later = tuple(sorted({b for c in me.hand for b in c.budgets}))
    if one_departure and not acted and len(me.canoes) == 2 and all(c.place == PORT for c in me.canoes):
        # R-TURN-3: one canoe may leave the port this round, the other waits in the port (which never flows).
        waiting = _canoe_reach(board, rules.capacity, rules.must_move, later, later, (PORT, 0), left - 1)
        return _canoe_reach(board, rules.capacity, rules.must_move, now, later, (PORT, 0), left) + waiting
    total = 0
    for canoe in me.canoes:
        start = (PORT if canoe.place == FALLEN else canoe.place, len(canoe.gems))
        if acted:  # this round's flow, then the later rounds
            total += max((_canoe_reach(board, rules.capacity, rules.must_move, later, later, f, left - 1)
                          for f in relaxed_flow(board, start)), default=0) if left > 1 else 0
        else:
            total += _canoe_reach(board, rules.capacity, rules.must_move, now, later, start, left)
    return total


@lru_cache(maxsize=1 << 14)
def _canoe_reach(board: Board, cap: int, must_move: bool, first: tuple[int, ...], later: tuple[int, ...],
                 state: tuple[str, int], rounds: int) -> int:
    """The most one canoe (``state``: place and cargo) banks in ``rounds`` rounds of the relaxation of
    :func:`bank_reach`, its turn first (with a budget of ``first``, then of ``later``), each round ending with the
    flow."""
    if rounds <= 0:
        return 0
    best = 0
    for budget in first:
        for after, banked in relaxed_turn(board, cap, must_move, state, budget):
            gained = banked
            if rounds > 1:
                gained += max(_canoe_reach(board, cap, must_move, later, later, f, rounds - 1)
                              for f in relaxed_flow(board, after))
            best = max(best, gained)
    if rounds > 1:  # the canoe does not act this round (a cloud, or R-TURN-3)
        best = max(best, max(_canoe_reach(board, cap, must_move, later, later, f, rounds - 1)
                             for f in relaxed_flow(board, state)))
    return best


@lru_cache(maxsize=1 << 14)
def relaxed_flow(board: Board, state: tuple[str, int]) -> tuple[tuple[str, int], ...]:
    """Where the flow may leave a canoe, relaxed: any number of discs down any branch, or over the falls and back to
    the port, empty (R-FLOW-3, R-FLOW-6, R-RESCUE-1); a port canoe stays (R-FLOW-5)."""
    place, carried = state
    if place == PORT:
        return (state,)
    out = [state, (PORT, 0)]
    d = 1
    while board.below(place, d):
        out += [(disc, carried) for disc in board.below(place, d)]
        d += 1
    return tuple(out)


@lru_cache(maxsize=1 << 16)
def relaxed_turn(board: Board, cap: int, must_move: bool, state: tuple[str, int],
                budget: int) -> tuple[tuple[tuple[str, int], int], ...]:
    """One action of a canoe with ``budget`` points in the relaxation of :func:`bank_reach`: (its place and cargo
    after, gems banked). Gem actions where it stands and where it stops change the cargo by one each, or spend 2
    points in pairs without changing it (R-GEM-1, R-GEM-4 relaxed); a canoe stopping empty may take a gem
    (R-STEAL-1 relaxed)."""
    place, carried = state
    out: set[tuple[tuple[str, int], int]] = set()

    def stops(at: str, cargo: int, points: int) -> Iterator[tuple[int, int]]:
        """(cargo, points left) after gem actions on ``at`` costing some even number of points."""
        yield cargo, points
        if at == PORT or board.cave[at] is None:
            return
        for spent in range(2, points + 1, 2):
            for after in range(max(0, cargo - spent // 2), min(cap, cargo + spent // 2) + 1):
                yield after, points - spent

    for moving, rest in stops(place, carried, budget):
        if rest == 0:
            if place != PORT and not must_move:
                out.add(((place, moving), 0))
            continue
        if place != PORT and board.depth[place] <= rest:  # home, the rest lost; the cargo banked (R-MOVE-5)
            out.add(((PORT, 0), moving))
        targets = [(d, m) for m, d in enumerate(board.above(place)[:-1], start=1) if m <= rest] if place != PORT else []
        targets += [(d, m) for m in range(1, rest + 1) for d in board.below(place, m)]
        for dest, distance in targets:
            for cargo, spare in stops(dest, moving, rest - distance):
                if spare == 0:
                    out.add(((dest, cargo), 0))
                    if cargo == 0 and cap >= 1:
                        out.add(((dest, 1), 0))  # a steal on stopping (relaxed)
    return tuple(sorted(out))


def may_steal_on(pos: Position, canoe: Canoe, budgets: Iterable[int], targets: Collection[str],
                 carried: int | None = None) -> bool:
    """An upper bound, without an expansion module: might ``canoe`` steal on one of the discs ``targets`` with one of
    the ``budgets``? A thief paddles up and stops on the victim's disc with its budget spent (R-STEAL-1, R-MOVE-3), 1
    point a disc (R-MOVE-2), carrying nothing when it stops: its gem actions before the movement can only be the
    unloading of every gem it carries, 2 points each, beside a cave, where ``steal_after_unload`` allows a steal
    after them (R-STEAL-5; a load would leave a gem aboard, and a colour loaded this turn is not unloaded, R-GEM-4).
    So the budget is the climb plus 2 points a gem carried (``carried``: so many gems rather than the canoe's)."""
    if not canoe.on_river:
        return False
    if carried is None:
        carried = len(canoe.gems)
    if carried and (pos.board.cave[canoe.place] is None or not pos.ruleset.steal_after_unload):
        return False
    climbs = {k + 2 * carried for k, place in enumerate(pos.board.above(canoe.place)[:-1], start=1)
              if place in targets}
    return any(b in climbs for b in budgets)


def has_steal(turn: Turn, victim: str | None = None) -> bool:
    """Does the turn steal (from ``victim``, if given)?"""
    return any(isinstance(s, Steal) and (victim is None or s.victim == victim) for a in turn.actions for s in a.steps)


class LineStep(Protocol):
    """A step of a line of choices, as both backends write one: the card and the turn chosen there (either may be
    None), and the step after it."""

    @property
    def card(self) -> Card | None: ...

    @property
    def turn(self) -> Turn | None: ...

    @property
    def child(self) -> "LineStep | None": ...


def x_choice(node: LineStep | None) -> tuple[Card | None, Turn | None]:
    """X's card and first turn along a line of choices: the card X chose blind (or held when its turn came), and
    X's first turn. Both backends name their answer's card and turn so."""
    card: Card | None = None
    turn: Turn | None = None
    while node is not None:
        if node.card is not None and card is None:
            card = node.card
        if node.turn is not None and turn is None:
            turn = node.turn
        node = node.child
    return card, turn
