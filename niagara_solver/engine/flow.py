"""Phase III: the river flows (R-FLOW). Canoes ride their discs; discs leaving the brinks go over the falls."""

from __future__ import annotations

import itertools
import operator

from dataclasses import dataclass
from typing import Any, Iterable, NamedTuple, Sequence

from niagara_solver.model.readings import require
from niagara_solver.model.errors import IllegalTurnError, PhaseError
from niagara_solver.model.atoms import FALLEN, NEXT, Card, Colour, Moose, Phase
from niagara_solver.model.format import position_to_json
from niagara_solver.model.position import Canoe, Joe, Player, Position
from niagara_solver.model.ruleset import ForkPolicy, Ruleset
from niagara_solver.engine.joe import joe_step
from niagara_solver.engine.values import made

#: One step's branch choices: (fork disc, branch label) for every fork the pushed disc passes.
StepChoice = tuple[tuple[str, str], ...]


def flow_value_of(cards: Iterable[Card], weather: int, rules: Ruleset) -> int:
    """R-FLOW-1, R-FLOW-2: smallest paddle played (0 if only clouds) plus the weather, never below ``min_flow``."""
    paddles = [int(c) for c in cards if c.is_paddle]
    return max(rules.min_flow, (min(paddles) if paddles else 0) + weather)


def flow_value(pos: Position) -> int:
    """The flow of this round, once every player has revealed a card (R-FLOW-1)."""
    cards = [p.card for p in pos.players]
    if pos.phase is not Phase.TURNS or len(pos.acted) != len(pos.players) or any(c is None for c in cards):
        raise PhaseError("the flow is known once every player has acted in phase II", "R-FLOW-1")
    return flow_value_of([c for c in cards if c is not None], pos.weather, pos.ruleset)


class FlowResult(NamedTuple):
    """The result of the river flowing: the position, the canoes that fell, the path of every step."""

    position: Position
    fell: tuple[tuple[int, str, tuple[Colour, ...]], ...]  # (owner, disc it fell from, cargo returned)
    paths: tuple[tuple[str, ...], ...]


class FlowOutcome(NamedTuple):
    """One distinct result of phase III: the branch of each step (``fork_policy: free``), the disc each moored
    canoe put back onto the whirlpool at a fork is pushed to (its owner's choice, X-WHIRL-4), and the position."""

    choices: tuple[StepChoice, ...]
    pushes: tuple[str, ...]
    position: Position
    #: The player who picks each of ``pushes``: the owner of the canoe pushed.
    owners: tuple[int, ...] = ()


def _paths(pos: Position, steps: int, choices: Sequence[StepChoice] | None) -> tuple[list[tuple[str, ...]],
                                                                                      tuple[tuple[str, str], ...]]:
    """The discs each step pushes, and the fork markers afterwards (R-FLOW-3, R-FLOW-4)."""
    board = pos.board
    free = pos.ruleset.fork_policy is ForkPolicy.FREE
    if steps < 0:
        raise IllegalTurnError("the river never flows backwards", "R-FLOW-2")
    if choices is not None and not free:
        raise IllegalTurnError("the fork marker decides the branches (fork_policy: alternate)", "R-FLOW-4")
    if free and choices is None and board.forks and steps:
        raise IllegalTurnError("with fork_policy: free, say which branch each disc enters", "R-FLOW-4")
    if choices is not None and len(choices) != steps:
        raise IllegalTurnError(f"{steps} steps need {steps} branch choices, got {len(choices)}", "R-FLOW-4")
    markers = dict(pos.forks)
    paths = []
    for k in range(steps):
        chosen = dict(choices[k]) if choices is not None else markers
        path = [board.top]
        while board.down[path[-1]]:
            disc = path[-1]
            if disc in board.labels:
                if chosen.get(disc) not in board.labels[disc]:
                    raise IllegalTurnError(f"step {k + 1}: say which branch of fork {disc} the disc enters "
                                           f"({', '.join(board.labels[disc])})", "R-FLOW-4")
                path.append(board.branch[disc, chosen[disc]])
                if not free:  # R-FLOW-4: after each disc enters a branch the marker switches
                    markers[disc] = board.next_label(disc, markers[disc])
            else:
                path.append(board.down[disc][0])
        paths.append(tuple(path))
    return paths, tuple((f, markers[f]) for f in board.forks)


def flow_detail(pos: Position, steps: int, choices: Sequence[StepChoice] | None = None,
                pushes: Sequence[str] | None = None) -> FlowResult:
    """The river flows ``steps`` single steps (phase III alone), reporting the canoes that fell.

    In each step a new disc enters at the top and every disc on the pushed path moves one place down
    (R-FLOW-3); canoes ride their discs and the port never moves (R-FLOW-5). With ``fork_policy:
    alternate`` each fork sends discs to its branches in turn (R-FLOW-4) and ``choices`` must be None; with
    ``free`` ``choices`` gives each step's branches (see :func:`flow_outcomes` for all of them). Then what
    happens at the end of phase III (:func:`_phase_end`): moored canoes are put back, the beaver's weather reset.
    A moored canoe put back onto the whirlpool at a fork goes down the branch its owner picks: ``pushes`` gives
    the disc for each such canoe, in the order they are put back (X-WHIRL-4; :func:`put_back_choices`).
    """
    require(pos.ruleset, "engine")
    paths, markers = _paths(pos, steps, choices)
    ride = _ride(pos, paths)
    end = _put_back(ride.position.replace(forks=markers), pushes)
    return FlowResult(_phase_end(end.position, ride.beaver_fell), (*ride.fell, *end.fell), tuple(paths))


class _Ride(NamedTuple):
    position: Position
    fell: tuple[tuple[int, str, tuple[Colour, ...]], ...]
    beaver_fell: bool


def _ride(pos: Position, paths: Sequence[tuple[str, ...]], beaver_fell: bool = False) -> _Ride:
    """Canoes (and the beaver's disc) ride the pushed discs down, step by step; what leaves a last disc falls."""
    # A moored canoe stands beside its board place and does not ride (X-CARDS-4).
    places = [[c.place if not c.moored else "" for c in p.canoes] for p in pos.players]
    cargo = [[c.gems for c in p.canoes] for p in pos.players]
    caves = list(pos.caves)
    beaver = pos.beaver
    joe = pos.joe
    whirl = pos.whirlpool
    fell: list[tuple[int, str, tuple[Colour, ...]]] = []
    dropped: set[tuple[int, int]] = set()
    for path in paths:
        below = {disc: path[i + 1] if i + 1 < len(path) else FALLEN for i, disc in enumerate(path)}
        for owner, where in enumerate(places):
            for k, place in enumerate(where):
                nxt = below.get(place)
                if nxt is None:
                    continue
                if nxt == FALLEN:  # R-FLOW-6: fallen; the cargo goes back to the cave of its own colour
                    for gem in cargo[owner][k]:
                        caves[gem - 1] = caves[gem - 1].plus(gem)
                    fell.append((owner, place, cargo[owner][k]))
                    cargo[owner][k] = ()
                    dropped.add((owner, k))
                where[k] = nxt
        if whirl == NEXT:  # X-WHIRL-1: back over the falls, the whirlpool is the disc entering at the top
            whirl = path[0]
        elif whirl is not None and whirl in below:  # ... and rides the river like any disc
            whirl = below[whirl] if below[whirl] != FALLEN else NEXT
        if beaver is not None and beaver in below:  # the beaver rides its disc (X-BEAVER-1) ...
            beaver = below[beaver]
            if beaver == FALLEN:  # ... and leaves the river with it over the falls (X-BEAVER-2)
                beaver, beaver_fell = None, True
        if joe is not None and joe.place in below:  # X-JOE-1: Joe rides like a canoe (the whirlpool aside) ...
            if below[joe.place] == FALLEN:  # ... over the falls his gem goes home, and he starts again on top
                if joe.gem is not None:
                    caves[joe.gem - 1] = caves[joe.gem - 1].plus(joe.gem)
                joe = Joe(pos.board.top)
            else:
                joe = Joe(below[joe.place], joe.gem)
    # X-MOOSE-3: a canoe falling with the moose lets it go; it returns to the ruby cave at the end of phase III.
    moose = pos.moose
    if any(pos.players[q].canoes[k].moose for q, k in dropped):
        moose = Moose.RETURNING
    # Each canoe made by its constructor, as ``dataclasses.replace`` would make it, each player by :func:`_with_canoes`
    # (the canoes put in canonical order again); one the flow left as it was is kept.
    players = []
    for i, p in enumerate(pos.players):
        canoes = []
        for k, (c, at, gems) in enumerate(zip(p.canoes, places[i], cargo[i])):
            at = at or c.place
            holds = c.moose and (i, k) not in dropped
            canoes.append(c if at == c.place and gems is c.gems and holds == c.moose else
                          Canoe(at, gems, c.kind, holds, c.moored))
        players.append(p if all(map(operator.is_, canoes, p.canoes)) else _with_canoes(p, canoes))
    return _Ride(pos.replace(players=tuple(players), caves=tuple(caves), beaver=beaver, moose=moose, joe=joe,
                             whirlpool=whirl), tuple(fell), beaver_fell)


def put_back_order(pos: Position) -> list[tuple[int, int]]:
    """The moored canoes, (player, canoe index), in the order they are put back: seat order from the lifebuoy
    holder (X-CARDS-4)."""
    return [(q, k) for q in pos.turn_order() for k, c in enumerate(pos.players[q].canoes) if c.moored]


def put_back_choices(pos: Position) -> list[tuple[int, int, tuple[str, ...]]]:
    """The moored canoes of a position at the end of the flow that go back onto the whirlpool at a fork, with the
    discs their owner may push them to (X-WHIRL-4), in put-back order."""
    whirl = pos.whirlpool
    if whirl in (None, NEXT):
        return []
    below = pos.board.below(whirl, 1)
    if len(below) < 2:
        return []
    return [(q, k, below) for q, k in put_back_order(pos) if pos.players[q].canoes[k].place == whirl]


class _PutBack(NamedTuple):
    position: Position
    fell: tuple[tuple[int, str, tuple[Colour, ...]], ...]


def _put_back(pos: Position, pushes: Sequence[str] | None) -> _PutBack:
    """X-CARDS-4, X-WHIRL-4: each moored canoe goes back onto the disc now at its board place, in seat order from
    the lifebuoy holder; one put back onto the whirlpool is pushed one disc down (to the disc of ``pushes`` its
    owner picked at a fork), or over the falls from a last disc (its gems home, its moose returning)."""
    moored = put_back_order(pos)
    if not moored:
        return _PutBack(pos, ())
    needed = put_back_choices(pos)
    given = list(pushes or ())
    if len(given) != len(needed):
        names = ", ".join(f"{pos.players[q].name}'s canoe on {pos.whirlpool} (to {' or '.join(d)})"
                          for q, k, d in needed) or "none"
        raise IllegalTurnError(f"say where the whirlpool pushes each canoe put back onto it at the fork: "
                               f"{len(needed)} choice(s) needed ({names}), got {len(given)}", "X-WHIRL-4")
    for (q, k, options), dest in zip(needed, given):
        if dest not in options:
            raise IllegalTurnError(f"the whirlpool on {pos.whirlpool} pushes {pos.players[q].name}'s canoe to "
                                   f"{' or '.join(options)}, not {dest!r}", "X-WHIRL-4")
    chosen = {(q, k): dest for (q, k, _), dest in zip(needed, given)}
    whirl = pos.whirlpool
    caves = list(pos.caves)
    moose = pos.moose
    fell: list[tuple[int, str, tuple[Colour, ...]]] = []
    # Each canoe by its index in ``pos``: a player's canoes are re-sorted when one changes (canonical order).
    canoes = [list(p.canoes) for p in pos.players]
    for q, k in moored:
        # Each canoe made by its constructor, as dataclasses.replace would make it.
        was = pos.players[q].canoes[k]
        canoe = Canoe(was.place, was.gems, was.kind, was.moose, False)
        if whirl not in (None, NEXT) and canoe.place == whirl:
            below = pos.board.below(whirl, 1)
            if below:
                canoe = Canoe(chosen.get((q, k), below[0]), canoe.gems, canoe.kind, canoe.moose, False)
            else:  # over the falls from a last disc (R-FLOW-6, X-MOOSE-3)
                for gem in canoe.gems:
                    caves[gem - 1] = caves[gem - 1].plus(gem)
                fell.append((q, canoe.place, canoe.gems))
                if canoe.moose:
                    moose = Moose.RETURNING
                canoe = Canoe(FALLEN, (), canoe.kind, False, False)
        canoes[q][k] = canoe
    players = tuple(_with_canoes(p, canoes[q]) if canoes[q] != list(p.canoes) else p
                    for q, p in enumerate(pos.players))
    return _PutBack(pos.replace(players=players, caves=tuple(caves), moose=moose), tuple(fell))


def _phase_end(pos: Position, beaver_fell: bool) -> Position:
    """The end of phase III, after the moored canoes were put back (:func:`_put_back`): if the beaver went over
    the falls, the weather is set to 0 (X-BEAVER-2); a returning moose waits
    again at the ruby cave (X-MOOSE-3). Then, after phase III and before phase IV, Diamond Joe loads and paddles
    (X-JOE-2, :func:`.joe.joe_step`): here, so that every reading of a round's end (rounds, the free fork's
    outcomes, the solver's search) takes his step."""
    if beaver_fell:
        pos = pos.replace(weather=0)
    if pos.moose is Moose.RETURNING:  # X-MOOSE-3: at the very end of phase III it waits again
        pos = pos.replace(moose=Moose.WAITING)
    return joe_step(pos)


def flow(pos: Position, steps: int, choices: Sequence[StepChoice] | None = None,
         pushes: Sequence[str] | None = None) -> Position:
    """The position after the river flows ``steps`` single steps (see :func:`flow_detail`)."""
    return flow_detail(pos, steps, choices, pushes).position


def flow_outcomes(pos: Position, steps: int) -> list[tuple[tuple[StepChoice, ...], Position]]:
    """Every distinct result of ``steps`` flow steps with the branch choices that give it.

    One outcome under ``fork_policy: alternate``; under ``free`` one per distinct result of the branch
    choices (the first choice sequence found, in branch order). Where a moored canoe put back onto the whirlpool
    at a fork gives its owner a choice (X-WHIRL-4), see :func:`flow_choices`, which also says the pushes.
    """
    return [(o.choices, o.position) for o in flow_choices(pos, steps)]


@dataclass(frozen=True)
class FlowReport:
    """Phase III alone from ``start``, ``steps`` single steps, as ``flow`` shows it: with ``fork_policy: free``, a
    fork on the river, some steps and no branches said, the branches are open and every distinct outcome is given
    (``outcomes``, R-FLOW-4); otherwise the one flow, with the canoes that fell (``result``)."""

    start: Position
    steps: int
    #: Every distinct outcome with the branch choices that give it, when the branches are open (else empty).
    outcomes: tuple[tuple[tuple[StepChoice, ...], Position], ...]
    #: The one flow, when the fork markers or the branches said decide it (else None).
    result: FlowResult | None

    @property
    def branches_open(self) -> bool:
        """Whether every outcome of the open branches is listed rather than one flow (R-FLOW-4)."""
        return self.result is None

    def to_json(self) -> Any:
        """``flow --json``: the position after the flow, or an array of outcomes with their branches."""
        if self.result is None:
            return [{"branches": choices_text(made, self.start), "position": position_to_json(after)}
                    for made, after in self.outcomes]
        return position_to_json(self.result.position)


def flow_report(pos: Position, steps: int, choices: Sequence[StepChoice] | None = None) -> FlowReport:
    """The river flows ``steps`` single steps from ``pos`` (phase III alone), with the branches ``choices`` if given:
    every distinct outcome when the branches are open (``fork_policy: free``, a fork, no choices: R-FLOW-4), else
    the one flow (:func:`flow_detail`)."""
    if choices is None and pos.ruleset.fork_policy is ForkPolicy.FREE and pos.board.forks and steps:
        return FlowReport(pos, steps, tuple(flow_outcomes(pos, steps)), None)
    return FlowReport(pos, steps, (), flow_detail(pos, steps, choices))


#: Where each disc ends after some steps of the flow with given fork markers, and the markers afterwards:
#: (board, markers, steps) -> ({disc: disc or FALLEN}, markers). A board has a handful of markers and flows.
_CARRIED: dict[tuple[object, ...], tuple[dict[str, str], tuple[tuple[str, str], ...]]] = {}


def _carried(pos: Position, steps: int) -> tuple[dict[str, str], tuple[tuple[str, str], ...]]:
    key = (pos.board, pos.forks, steps)
    known = _CARRIED.get(key)
    if known is None:
        paths, markers = _paths(pos, steps, None)
        where = {disc: disc for disc in pos.board.discs}
        for path in paths:  # R-FLOW-3: each step pushes the discs of its path one place down
            below = {disc: path[i + 1] if i + 1 < len(path) else FALLEN for i, disc in enumerate(path)}
            for disc, now in where.items():
                if now in below:
                    where[disc] = below[now]
        known = _CARRIED[key] = ({d: w for d, w in where.items() if w != d}, markers)
    return known


def _quick_flow(pos: Position, steps: int) -> Position | None:
    """The flow of a position with no expansion piece on the board and no moored canoe, by a table of where
    each disc ends (:func:`_carried`) instead of riding step by step; None where it does not apply. The same result
    as :func:`_ride` (``flow_choices(..., reference=True)``, tested on generated positions)."""
    if (pos.whirlpool is not None or pos.beaver is not None or pos.joe is not None or pos.moose is not None
            or pos.ruleset.fork_policy is ForkPolicy.FREE and pos.board.forks):
        return None
    moved, markers = _carried(pos, steps)
    caves = list(pos.caves)
    players = []
    for player in pos.players:
        canoes = []
        carried = False
        for canoe in player.canoes:
            if canoe.moored:
                return None
            to = moved.get(canoe.place)
            if to is None:
                canoes.append(canoe)
                continue
            carried = True
            gems = canoe.gems
            if to == FALLEN:  # R-FLOW-6: the cargo goes back to the cave of its own colour
                for gem in gems:
                    caves[gem - 1] = caves[gem - 1].plus(gem)
                gems = ()
            canoes.append(Canoe(to, gems, canoe.kind))
        # A player none of whose canoes the flow carried is kept: its canoes are in canonical order already.
        players.append(_with_canoes(player, canoes) if carried else player)
    return pos.replace(players=tuple(players), caves=tuple(caves), forks=markers)


def _with_canoes(player: Player, canoes: list[Canoe]) -> Player:
    """``Player(player.name, tuple(canoes), player.hand, ...)``, as its constructor makes it: the canoes put in
    canonical order as ``Player.__post_init__`` puts them, the other fields as they are (the hand of a player is in
    hand order already)."""
    ordered: tuple[Canoe, ...]
    if len(canoes) == 2:
        one, two = canoes
        ordered = (two, one) if two.sort_key() < one.sort_key() else (one, two)
    else:
        ordered = tuple(sorted(canoes, key=Canoe.sort_key))
    return made(Player, {**player.__dict__, "canoes": ordered})


def flow_choices(pos: Position, steps: int, *, reference: bool = False) -> list[FlowOutcome]:
    """Every distinct result of phase III: per distinct result of the branch choices (``fork_policy: free``),
    each choice of the owners of canoes put back onto the whirlpool at a fork (X-WHIRL-4).

    ``reference`` rides every step even where the quick table applies (the slow reference the tests hold the quick
    one to)."""
    require(pos.ruleset, "engine")
    if not reference and (quick := _quick_flow(pos, steps)) is not None:
        return [FlowOutcome((), (), quick)]
    frontier: dict[tuple[Position, bool], tuple[StepChoice, ...]]
    if pos.ruleset.fork_policy is not ForkPolicy.FREE or not pos.board.forks:
        paths, markers = _paths(pos, steps, None)
        ride = _ride(pos, paths)
        frontier = {(ride.position.replace(forks=markers), ride.beaver_fell): ()}
    else:
        per_step = [choice for choice, _ in pos.board.flow_paths()]
        frontier = {(pos, False): ()}
        for _ in range(steps):
            nxt: dict[tuple[Position, bool], tuple[StepChoice, ...]] = {}
            for (state, beaver_fell), made in frontier.items():
                for choice in per_step:
                    paths, markers = _paths(state, 1, [choice])
                    ride = _ride(state, paths, beaver_fell)
                    key = (ride.position.replace(forks=markers), ride.beaver_fell)
                    if key not in nxt:
                        nxt[key] = (*made, choice)
            frontier = nxt
    # Outcomes are told apart by their position; where owners choose pushes, by the whole choice too, so that every
    # owner's every option stays listed under each branch choice (the solver reads them as a tree of decisions).
    out: dict[object, FlowOutcome] = {}
    for (state, beaver_fell), made in frontier.items():
        needed = put_back_choices(state)
        owners = tuple(q for q, _, _ in needed)
        for pushes in itertools.product(*(d for _, _, d in needed)):
            end = _phase_end(_put_back(state, pushes).position, beaver_fell)
            out.setdefault((end, made, pushes) if needed else end, FlowOutcome(made, tuple(pushes), end, owners))
    return list(out.values())


def parse_choices(text: str, pos: Position, steps: int) -> list[StepChoice]:
    """Branch choices written one per step, separated by commas (``L,R,L``); on boards with several forks a
    step is written ``FORK=LABEL/FORK=LABEL``."""
    board = pos.board
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if len(parts) != steps:
        raise IllegalTurnError(f"{steps} flow step(s) need {steps} branch choice(s), got {len(parts)}", "R-FLOW-4")
    out: list[StepChoice] = []
    for part in parts:
        if "=" in part:
            pairs = tuple(tuple(x.split("=", 1)) for x in part.split("/"))
            choice = tuple((f.strip(), lab.strip()) for f, lab in pairs)
        elif len(board.forks) == 1:
            choice = ((board.forks[0], part),)
        else:
            raise IllegalTurnError("with several forks write each step as FORK=LABEL/FORK=LABEL", "R-FLOW-4")
        for fork, label in choice:
            if fork not in board.labels or label not in board.labels[fork]:
                raise IllegalTurnError(f"unknown branch {fork}={label}", "R-FLOW-4")
        out.append(choice)
    return out


def choices_text(choices: Sequence[StepChoice], pos: Position) -> str:
    """The inverse of :func:`parse_choices`."""
    if len(pos.board.forks) == 1:
        return ",".join(c[0][1] if c else "-" for c in choices)
    return ",".join("/".join(f"{f}={lab}" for f, lab in c) or "-" for c in choices)

