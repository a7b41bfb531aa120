"""Apply a turn written in the notation, checking every rule; explain the first one it breaks.

This is the engine's second reading of phase II: where :mod:`.turns` builds legal turns by
construction, this module executes a given turn step by step and raises :class:`IllegalTurnError`
naming the rule a step breaks. Tests hold the two to the same sets of outcomes.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Callable, Iterator, Sequence

from niagara_solver.model.errors import AmbiguousTurnError, IllegalTurnError
from niagara_solver.model.atoms import COLOURS, FALLEN, NEXT, PORT, Card, Colour, Gems, Moose
from niagara_solver.model.position import Joe, Player, Position
from niagara_solver.model.ruleset import Card123Canoes, GemSides, LassoScope, PortDeparture, WhirlBrink, WhirlCostStep
from niagara_solver.model.notation import (CanoeAction, CanoeRef, Load, Move, Push, Steal, Step, TakeMoose, Trade, Turn,
                                           Unload)
from niagara_solver.engine.canoe import MOOSE_BONUS
from niagara_solver.engine.turns import after_reveal, check_turn_context, weather_moved


@dataclass
class CanoeReport:
    """What one canoe did during a turn, for tables and traces."""

    start: str
    end: str = ""
    spent: int = 0
    loaded: list[Colour] = field(default_factory=list)
    unloaded: list[Colour] = field(default_factory=list)
    banked: list[Colour] = field(default_factory=list)
    stolen: list[tuple[str, Colour]] = field(default_factory=list)


@dataclass(frozen=True)
class TurnResult:
    """The position after a turn and, per acting canoe, what it did."""

    position: Position
    canoes: tuple[CanoeReport, ...]


class _Table:
    """Mutable working copy of the parts of a position a turn changes."""

    def __init__(self, pos: Position) -> None:
        self.caves = list(pos.caves)
        self.canoes = [[(c.place, list(c.gems)) for c in p.canoes] for p in pos.players]
        self.banks = [player.bank for player in pos.players]
        #: Canoes moored by a Lasso this round: off the river, nobody steals from them (X-CARDS-4).
        self.moored = {(q, k) for q, p in enumerate(pos.players) for k, c in enumerate(p.canoes) if c.moored}
        #: Where the moose is, and the canoe holding it (X-MOOSE-1..3).
        self.moose = pos.moose
        self.holder = next(((q, k) for q, p in enumerate(pos.players) for k, c in enumerate(p.canoes) if c.moose),
                           None)
        #: Diamond Joe's disc and gem (X-JOE-1..3); None without the module.
        self.joe: tuple[str, Colour | None] | None = (pos.joe.place, pos.joe.gem) if pos.joe is not None else None

    def copy(self) -> "_Table":
        """A copy to change apart from this one, as ``copy.deepcopy`` would give it: the lists, the set and every
        canoe's cargo list new, the immutable values (gem counts, places, the moose, the holder, Joe) shared."""
        new = _Table.__new__(_Table)
        new.caves = list(self.caves)
        new.canoes = [[(place, list(gems)) for place, gems in row] for row in self.canoes]
        new.banks = list(self.banks)
        new.moored = set(self.moored)
        new.moose = self.moose
        new.holder = self.holder
        new.joe = self.joe
        return new

    def position(self, base: Position) -> Position:
        """``base`` with the table's canoes (each keeping its kind and marks, the moose with its holder), banks
        and caves."""
        players = tuple(dataclasses.replace(p, canoes=tuple(
            dataclasses.replace(c, place=place, gems=tuple(sorted(gems)), moose=self.holder == (i, k))
            for k, (c, (place, gems)) in enumerate(zip(p.canoes, self.canoes[i]))), bank=self.banks[i])
            for i, p in enumerate(base.players))
        joe = Joe(*self.joe) if self.joe is not None else None
        return base.replace(players=players, caves=tuple(self.caves), moose=self.moose, joe=joe)

    def take_moose(self, pos: Position, player: int, index: int) -> None:
        """X-MOOSE-1: a canoe on a last disc, not moored, takes the waiting moose."""
        place = self.canoes[player][index][0]
        if self.moose is not Moose.WAITING:
            raise IllegalTurnError("the moose is not waiting at the ruby cave: nobody can take it now", "X-MOOSE-1")
        if place not in pos.board.brinks or (player, index) in self.moored:
            raise IllegalTurnError(f"only a canoe on a last disc ({', '.join(pos.board.brinks)}) takes the moose",
                                   "X-MOOSE-1")
        self.moose, self.holder = Moose.HELD, (player, index)


def resolve_canoe(player: Player, ref: CanoeRef, used: Sequence[int] = ()) -> int:
    """The index of the canoe ``ref`` names among the player's canoes (at the start of the turn), other than
    the ``used`` ones (two identical canoes are named alike)."""
    matches = [i for i, c in enumerate(player.canoes)
               if c.place == ref.place and (ref.gems is None or tuple(sorted(ref.gems)) == c.gems)]
    if ref.kind == "moose":  # the canoe holding the moose (X-MOOSE-2)
        matches = [i for i in matches if player.canoes[i].moose]
    elif ref.kind is not None:  # the single or the double canoe (X-DOUBLE-1)
        matches = [i for i in matches if player.canoes[i].kind.value == ref.kind]
    elif len(matches) == 2 and [player.canoes[i].moose for i in matches].count(True) == 1 and \
            player.canoes[0].gems == player.canoes[1].gems and player.canoes[0].kind is player.canoes[1].kind:
        matches = [i for i in matches if not player.canoes[i].moose]  # unmarked: the one without the moose
    if len(matches) == 2 and player.canoes[0] == player.canoes[1]:
        matches = [i for i in matches if i not in used] or matches
    if not matches:
        cargo = f" carrying {','.join(g.label for g in ref.gems) or 'nothing'}" if ref.gems is not None else ""
        where = "in the port" if ref.place == PORT else f"on {ref.place}"
        raise IllegalTurnError(f"{player.name} has no canoe {where}{cargo}", "R-TURN-3")
    if len(matches) == 2 and player.canoes[0] != player.canoes[1]:
        raise AmbiguousTurnError(f"both of {player.name}'s canoes are on {ref.place}: name one by its cargo, "
                                 f"e.g. {ref.place}[{','.join(g.label for g in player.canoes[0].gems) or 'empty'}]")
    return matches[0]


def check_acting(player: Player, acting: list[int], port_departure: PortDeparture) -> None:
    """R-TURN-3: every river canoe acts; port canoes act as the switch allows; fallen canoes never."""
    for i, canoe in enumerate(player.canoes):
        if canoe.on_river and i not in acting:
            raise IllegalTurnError(f"{player.name}'s canoe on {canoe.place} must act: a canoe on the river "
                                   "always acts", "R-TURN-3")
        if canoe.fallen and i in acting:
            raise IllegalTurnError("a fallen canoe cannot act", "R-TURN-3")
    in_port = [i for i, c in enumerate(player.canoes) if c.in_port]
    leaving = [i for i in acting if i in in_port]
    if len(in_port) == 2:
        if len(leaving) == 2:
            raise IllegalTurnError("with both canoes in the port only one of them acts", "R-TURN-3")
        if not leaving and port_departure is PortDeparture.EXACTLY_ONE:
            raise IllegalTurnError("with both canoes in the port exactly one of them acts "
                                   "(port_departure: exactly_one)", "R-TURN-3")


def apply_turn(pos: Position, player: int, turn: Turn, card: Card | None = None) -> TurnResult:
    """The position after ``player`` plays ``turn`` with ``card`` (default: their chosen card).

    Raises :class:`IllegalTurnError` with the rule the turn breaks, :class:`AmbiguousTurnError` when a
    canoe is not named clearly enough.
    """
    card = check_turn_context(pos, player, card)
    rules = pos.ruleset
    me = pos.players[player]
    if turn.budget is not None and card is not Card.ONE_TWO_THREE:
        raise IllegalTurnError(f"\"as {turn.budget}\" chooses the 1/2/3 card's budget; the card played is "
                               f"{card.label}", "X-CARDS-3")
    if turn.lasso and card is not Card.LASSO:
        raise IllegalTurnError(f"only the Lasso moors canoes; the card played is {card.label}", "X-CARDS-4")
    if card is Card.LASSO or card is Card.CLOUD:
        pos = _moose_before(pos, player, turn, card)
    if card is Card.LASSO:
        return _lasso(pos, player, turn)
    budget = int(card)
    if card is Card.ONE_TWO_THREE:
        if turn.budget is None:
            raise IllegalTurnError("the 1/2/3 card is played as 1, 2 or 3: write \"as 2; ...\"", "X-CARDS-3")
        budget = turn.budget
    revealed = after_reveal(pos, player, card, turn.budget)
    if card is Card.CLOUD:
        if turn.weather not in (1, -1):
            raise IllegalTurnError("the cloud card must move the weather one step, up or down", "R-WEATHER-1")
        weather = pos.weather + turn.weather
        if not rules.weather_min <= weather <= rules.weather_max:
            raise IllegalTurnError(f"the weather is at {pos.weather} and stays within [{rules.weather_min}, "
                                   f"{rules.weather_max}]: it must go the other way", "R-WEATHER-1")
        return TurnResult(weather_moved(revealed, turn.weather), ())
    if turn.weather:
        raise IllegalTurnError("only the cloud card moves the weather", "R-TURN-2")
    acting: list[int] = []
    for action in turn.actions:
        acting.append(resolve_canoe(me, action.canoe, acting))
    if len(set(acting)) != len(acting):
        raise IllegalTurnError("each canoe acts once, finishing before the next starts", "R-TURN-4")
    if card is Card.ONE_TWO_THREE and rules.card_123_canoes is Card123Canoes.ONE:
        _check_123_acting(me, acting, rules.port_departure)
    else:
        check_acting(me, acting, rules.port_departure)
    table = _Table(pos)
    reports = tuple(_act(pos, table, player, index, action, budget) for index, action in zip(acting, turn.actions))
    return TurnResult(table.position(revealed), reports)


def _check_123_acting(player: Player, acting: list[int], port_departure: PortDeparture) -> None:
    """X-CARDS-3 (``card_123_canoes: one``): exactly one canoe that R-TURN-3 lets act, or none only where R-TURN-3
    lets none act."""
    if len(acting) > 1:
        raise IllegalTurnError("with the 1/2/3 card one canoe acts (card_123_canoes: one)", "X-CARDS-3")
    if any(player.canoes[i].fallen for i in acting):
        raise IllegalTurnError("a fallen canoe cannot act", "R-TURN-3")
    if not acting:
        try:
            check_acting(player, [], port_departure)
        except IllegalTurnError:
            raise IllegalTurnError("with the 1/2/3 card one canoe acts: a canoe on the river, or a port canoe "
                                   "where R-TURN-3 lets one leave", "X-CARDS-3") from None


def _moose_before(pos: Position, player: int, turn: Turn, card: Card) -> Position:
    """With the cloud or the Lasso the only canoe action is one canoe on a last disc taking the moose first
    (X-MOOSE-1); the position with it taken."""
    if not turn.actions:
        return pos
    what = "the cloud card" if card is Card.CLOUD else "the Lasso"
    if len(turn.actions) > 1 or turn.actions[0].steps != (TakeMoose(),):
        rule = "R-TURN-2" if card is Card.CLOUD else "X-CARDS-4"
        raise IllegalTurnError(f"with {what} no canoe paddles; one canoe on a last disc may only take the moose "
                               "first (\"7L: moose; ...\")", rule)
    if not pos.ruleset.x_moose:
        raise IllegalTurnError("there is no moose: the module x_moose is off", "X-MOOSE-1")
    table = _Table(pos)
    table.take_moose(pos, player, resolve_canoe(pos.players[player], turn.actions[0].canoe))
    return table.position(pos)


def _lasso(pos: Position, player: int, turn: Turn) -> TurnResult:
    """X-CARDS-4: no canoe paddles; the player's river canoes are moored (all, or the one named under
    ``lasso_scope: one``)."""
    me = pos.players[player]
    if not turn.lasso or turn.weather or turn.budget is not None:
        raise IllegalTurnError("with the Lasso no canoe paddles: write \"lasso\" (or \"lasso PLACE\" with "
                               "lasso_scope: one)", "X-CARDS-4")
    river = [k for k, c in enumerate(me.canoes) if c.on_river]
    if pos.ruleset.lasso_scope is LassoScope.ALL:
        if turn.moored is not None:
            raise IllegalTurnError("the Lasso moors every canoe of the player on the river (lasso_scope: all): "
                                   "write \"lasso\"", "X-CARDS-4")
        moored = river
    elif turn.moored is None:
        if river:
            raise IllegalTurnError("the Lasso moors one chosen canoe on the river (lasso_scope: one): write "
                                   "\"lasso PLACE\"", "X-CARDS-4")
        moored = []
    else:
        k = resolve_canoe(me, turn.moored)
        if not me.canoes[k].on_river:
            raise IllegalTurnError("the Lasso moors a canoe on the river, not one in the port or fallen", "X-CARDS-4")
        moored = [k]
    revealed = after_reveal(pos, player, Card.LASSO)
    mine = revealed.players[player]
    canoes = tuple(dataclasses.replace(c, moored=True) if k in moored else c for k, c in enumerate(mine.canoes))
    return TurnResult(revealed.with_player(player, dataclasses.replace(mine, canoes=canoes)), ())


def _act(pos: Position, table: _Table, player: int, index: int, action: CanoeAction, budget: int,
         probing: bool = False) -> CanoeReport:
    """Execute one canoe's action on ``table`` (R-MOVE-1..6, R-GEM-1..5, R-STEAL-1..5, and the expansion's X rules).

    ``probing``: only asking whether the action is possible at all, so the two whirlpool rules that compare an
    action with the canoe's other actions (X-WHIRL-2 ``whirl_brink: avoid``, X-WHIRL-5) are not applied."""
    board, rules = pos.board, pos.ruleset
    start_table = table.copy() if rules.x_whirl and not probing else None
    card_budget = budget  # the card's points, before the moose's bonus
    whirl = pos.whirlpool if pos.whirlpool not in (None, NEXT) else None
    names = [p.name for p in pos.players]
    place, gems = table.canoes[player][index]
    gems = list(gems)
    report = CanoeReport(start=place)
    steps = action.steps
    if steps and isinstance(steps[0], TakeMoose):  # X-MOOSE-1: at the very start of its action
        if not rules.x_moose:
            raise IllegalTurnError("there is no moose: the module x_moose is off", "X-MOOSE-1")
        table.take_moose(pos, player, index)
        steps = steps[1:]
    if table.holder == (player, index):  # X-MOOSE-2: 2 more points than the card gives
        budget += MOOSE_BONUS
    left = budget
    moved: Move | None = None
    distance = 0
    canoe = pos.players[player].canoes[index]
    capacity = canoe.capacity(rules.capacity)
    carried_while_moving = 0
    gem_ops_before_move = 0
    gem_ops_after_move = 0
    loaded: set[Colour] = set()
    unloaded: set[Colour] = set()
    home = False
    stole = False
    taken: list[tuple[int, int]] = []  # victim canoes already robbed by this canoe (R-STEAL-2)
    traded = False
    on_whirl = False  # the movement ended on the whirlpool: the push comes next (X-WHIRL-2)
    pushed = False

    def pay(points: int, what: str) -> None:
        nonlocal left
        if points > left:
            raise IllegalTurnError(f"{what} costs {points} point(s) but only {left} of {budget} remain", "R-MOVE-3")
        left -= points

    for step in steps:
        if home:
            raise IllegalTurnError("a canoe that entered the port stops there and does nothing more this turn",
                                   "R-MOVE-5")
        if pushed:
            raise IllegalTurnError("a canoe pushed by the whirlpool does nothing more this turn (no gem action, "
                                   "steal or trade)", "X-WHIRL-2")
        if on_whirl and not isinstance(step, Push):
            raise IllegalTurnError(f"a canoe ending its movement on the whirlpool ({whirl}) is pushed one disc down "
                                   "at once: write ~DISC next", "X-WHIRL-2")
        if isinstance(step, Push):
            if whirl is None:
                raise IllegalTurnError("there is no whirlpool on the river to push a canoe (module x_whirl off, or "
                                       "the whirlpool comes back with the next flow step)", "X-WHIRL-1")
            if not on_whirl:
                raise IllegalTurnError(f"only a canoe whose movement ended on the whirlpool ({whirl}) is pushed",
                                       "X-WHIRL-2")
            below = board.below(whirl, 1)
            allowed = below or (FALLEN,)
            if step.dest not in allowed:
                raise IllegalTurnError(f"the whirlpool on {whirl} pushes a canoe to {' or '.join(allowed)}, not "
                                       f"{step.dest!r}", "X-WHIRL-2")
            if step.dest == FALLEN:  # over the falls: its gems go back to their caves (R-FLOW-6, X-MOOSE-3)
                for colour in gems:
                    table.caves[colour - 1] = table.caves[colour - 1].plus(colour)
                gems = []
                if table.holder == (player, index):
                    table.moose, table.holder = Moose.RETURNING, None
            place = step.dest
            on_whirl, pushed = False, True
            continue
        if traded:
            raise IllegalTurnError("a trade with Diamond Joe ends the canoe's action", "X-JOE-3")
        if isinstance(step, TakeMoose):
            raise IllegalTurnError("a canoe takes the moose at the start of its action, before anything else",
                                   "X-MOOSE-1")
        if isinstance(step, (Load, Unload)):
            if stole:
                raise IllegalTurnError("a canoe cannot steal and then act again", "R-STEAL-3")
            if moved is not None and gem_ops_before_move and rules.gem_sides is GemSides.ONE:
                raise IllegalTurnError("a canoe's gem actions are all before its movement or all after it "
                                       "(gem_sides: one)", "R-MOVE-1")
            if moved is not None and gem_ops_before_move and canoe.double and rules.double_one_cave:
                raise IllegalTurnError("a double canoe makes all its gem actions at one cave, before its movement "
                                       "or after it (double_one_cave)", "X-DOUBLE-2")
            cave = board.cave.get(place) if place not in (PORT, FALLEN) else None
            if cave is None:
                where = "in the port" if place == PORT else f"on disc {place}, which has no cave"
                raise IllegalTurnError(f"no gem actions {where}", "R-GEM-1")
            if isinstance(step, Load):
                if table.caves[cave - 1].get(step.colour) == 0:
                    raise IllegalTurnError(f"the {cave.label} cave beside {place} holds no {step.colour.label}",
                                           "R-GEM-1")
                if len(gems) >= capacity:
                    raise IllegalTurnError(f"the canoe is full: it carries at most {capacity} gem(s)",
                                           "X-DOUBLE-2" if canoe.double else "R-GEM-2")
                if step.colour in unloaded:
                    raise IllegalTurnError(f"this canoe unloaded a {step.colour.label} this turn: it may not also "
                                           f"load one", "R-GEM-4")
                pay(2, "loading a gem")
                table.caves[cave - 1] = table.caves[cave - 1].minus(step.colour)
                gems.append(step.colour)
                loaded.add(step.colour)
                report.loaded.append(step.colour)
            else:
                if step.colour not in gems:
                    raise IllegalTurnError(f"the canoe carries no {step.colour.label}", "R-GEM-1")
                if step.colour in loaded:
                    raise IllegalTurnError(f"this canoe loaded a {step.colour.label} this turn: it may not also "
                                           f"unload one", "R-GEM-4")
                pay(2, "unloading a gem")
                table.caves[cave - 1] = table.caves[cave - 1].plus(step.colour)
                gems.remove(step.colour)
                unloaded.add(step.colour)
                report.unloaded.append(step.colour)
            if moved is None:
                gem_ops_before_move += 1
            else:
                gem_ops_after_move += 1
        elif isinstance(step, Move):
            if stole:
                raise IllegalTurnError("a canoe cannot steal and then move", "R-STEAL-3")
            if moved is not None:
                raise IllegalTurnError("one movement per turn: a canoe may not move, act on a gem and move "
                                       "again, nor change direction", "R-MOVE-1")
            if step.downstream:
                if step.dest not in board.depth or step.dest == PORT:
                    raise IllegalTurnError(f"{step.dest!r} is not a disc downstream; a canoe cannot paddle over "
                                           "the falls", "R-MOVE-4")
                if not board.is_upstream_of(place, step.dest):
                    raise IllegalTurnError(f"disc {step.dest} is not downstream of {place} on the river (no "
                                           "crossing between branches)", "R-MOVE-4")
                distance = board.depth[step.dest] - board.depth[place]
                pay(distance, f"paddling {distance} disc(s) down to {step.dest}")
            else:
                if place == PORT:
                    raise IllegalTurnError("a canoe in the port can only move downstream", "R-MOVE-6")
                if step.dest != PORT and step.dest not in board.depth:
                    raise IllegalTurnError(f"{step.dest!r} is not a disc of this river", "R-MOVE-4")
                if not board.is_upstream_of(step.dest, place):
                    raise IllegalTurnError(f"{step.dest} is not upstream of {place} (no crossing between "
                                           "branches)", "R-MOVE-4")
                distance = board.depth[place] - board.depth[step.dest]
                cost = _upstream_cost(pos, place, step.dest, whirl)
                if step.dest == PORT:
                    if left < cost:
                        raise IllegalTurnError(f"the port is {distance} disc(s) ({cost} point(s)) away but only "
                                               f"{left} point(s) remain", "X-WHIRL-3" if cost > distance
                                               else "R-MOVE-5")
                    if loaded and not rules.bank_after_load:
                        raise IllegalTurnError("a canoe carrying a gem it loaded this turn may not enter the port "
                                               "(bank_after_load: false)", "R-GEM-5")
                    report.spent = budget - left + cost
                    left = 0  # R-MOVE-5: the points left over are lost
                    home = True
                elif cost > left and cost > distance:
                    raise IllegalTurnError(f"paddling up to {step.dest} past the whirlpool costs {cost} point(s) "
                                           f"but only {left} of {budget} remain", "X-WHIRL-3")
                else:
                    pay(cost, f"paddling {distance} disc(s) up to {step.dest}")
            carried_while_moving = len(gems)
            moved = step
            place = step.dest
            if place == whirl:
                if left:
                    raise IllegalTurnError(f"a movement ends on the whirlpool ({whirl}) only with the canoe's last "
                                           f"point; {left} point(s) would remain", "X-WHIRL-2")
                on_whirl = True
        elif isinstance(step, Trade):
            _trade(table, step, place, gems, capacity, moved is not None and distance >= 1)
            traded = True
        elif isinstance(step, Steal):
            if moved is None or moved.downstream:
                raise IllegalTurnError("a canoe steals only after moving upstream", "R-STEAL-3")
            if canoe.double and carried_while_moving >= capacity:
                raise IllegalTurnError("a double canoe steals only with a free place while it moved", "X-DOUBLE-3")
            if not canoe.double and carried_while_moving:
                raise IllegalTurnError("only a canoe that was empty while it moved can steal", "R-STEAL-1")
            if gem_ops_after_move or left:
                raise IllegalTurnError("a thief stops with exactly its whole budget spent by the movement",
                                       "R-STEAL-1")
            if unloaded and not rules.steal_after_unload:
                raise IllegalTurnError("a canoe that unloaded this turn cannot steal (steal_after_unload: false)",
                                       "R-STEAL-5")
            if step.victim not in names:
                raise IllegalTurnError(f"unknown player {step.victim!r}", "R-STEAL-1")
            victim = names.index(step.victim)
            if victim == player:
                raise IllegalTurnError("a canoe steals only from another player's canoe", "R-STEAL-1")
            if len(gems) >= capacity:
                raise IllegalTurnError("a canoe steals at most as many gems as it has free room",
                                       "X-DOUBLE-3" if canoe.double else "R-STEAL-2")
            candidates = [k for k, (at, cargo) in enumerate(table.canoes[victim])
                          if at == place and step.colour in cargo and (victim, k) not in table.moored
                          and (step.victim_kind is None
                               or pos.players[victim].canoes[k].kind.value == step.victim_kind)
                          and (step.victim_gems is None or tuple(sorted(cargo)) == tuple(sorted(step.victim_gems)))
                          and (victim, k) not in taken]
            if not candidates:
                raise IllegalTurnError(f"no canoe of {step.victim} on {place} carries a {step.colour.label} "
                                       "(each steal takes from a different canoe)", "R-STEAL-1")
            cargos = {tuple(sorted(table.canoes[victim][k][1])) for k in candidates}
            if len(cargos) == 1 and len(candidates) > 1 and len({pos.players[victim].canoes[k].kind
                                                                 for k in candidates}) > 1:
                raise AmbiguousTurnError(f"{step.victim}'s single and double canoes on {place} carry the same: name "
                                         f"one by its kind, e.g. x{step.victim}(double)/{step.colour.label}",
                                         "X-DOUBLE-3")
            if len(cargos) > 1:
                raise AmbiguousTurnError(f"two canoes of {step.victim} on {place} carry a {step.colour.label}: "
                                         f"name one by its cargo, e.g. x{step.victim}[amber,ruby]/ruby")
            k = candidates[0]
            table.canoes[victim][k][1].remove(step.colour)
            gems.append(step.colour)
            report.stolen.append((step.victim, step.colour))
            taken.append((victim, k))
            stole = True
    if on_whirl:
        raise IllegalTurnError(f"a canoe ending its movement on the whirlpool ({whirl}) is pushed one disc down at "
                               "once: write ~DISC after the movement", "X-WHIRL-2")
    if start_table is not None and not [s for s in steps if not isinstance(s, TakeMoose)]:
        # X-WHIRL-5: a canoe with no legal action at all stays where it is, its points lost.
        if _possible(pos, start_table, player, index, card_budget, lambda a: True):
            raise IllegalTurnError("the canoe has a legal action, so it cannot stay where it is (a canoe stays "
                                   "only when it has no legal action at all)", "X-WHIRL-5")
        report.end = place
        return report
    if start_table is not None and pushed and place == FALLEN and rules.whirl_brink is WhirlBrink.AVOID:
        if _possible(pos, start_table, player, index, card_budget,
                     lambda a: not any(isinstance(s, Push) and s.dest == FALLEN for s in a.steps)):
            raise IllegalTurnError("the whirlpool would push the canoe over the falls, and it has another legal "
                                   "action (whirl_brink: avoid)", "X-WHIRL-2")
    if moved is None:
        if place == PORT:
            raise IllegalTurnError("a port canoe that acts leaves the port", "R-MOVE-1")
        if rules.must_move:
            raise IllegalTurnError("every acting canoe moves at least one disc (must_move: true)", "R-MOVE-1")
    if left and not home:
        raise IllegalTurnError(f"a canoe spends exactly its budget: {left} of {budget} point(s) unspent", "R-MOVE-3")
    if home:
        bank = table.banks[player]
        for colour in gems:
            bank = bank.plus(colour)
            report.banked.append(colour)
        table.banks[player] = bank
        gems = []
        if table.holder == (player, index):  # X-MOOSE-3: home with the moose, which returns to the ruby cave
            table.moose, table.holder = Moose.RETURNING, None
    else:
        report.spent = budget - left
    report.end = place
    table.canoes[player][index] = (place, gems)
    return report


def _upstream_cost(pos: Position, place: str, dest: str, whirl: str | None) -> int:
    """The points of paddling up from ``place`` to ``dest`` (a disc above it, or the port): one a step, but the step
    onto the whirlpool (``whirl_cost_step: enter``) or off it (``leave``) costs 2 (X-WHIRL-3)."""
    path = [place]
    for above in pos.board.above(place):
        path.append(above)
        if above == dest:
            break
    cost = 0
    for frm, to in zip(path, path[1:]):
        if whirl is None:
            cost += 1
        elif pos.ruleset.whirl_cost_step is WhirlCostStep.ENTER:
            cost += 2 if to == whirl else 1
        else:
            cost += 2 if frm == whirl else 1
    return cost


def _possible(pos: Position, table: _Table, player: int, index: int, budget: int,
              wanted: Callable[[CanoeAction], bool]) -> bool:
    """Whether the canoe has a legal action (with the moose taken or not) that ``wanted`` accepts: every candidate
    action is written out and checked by :func:`_act` on a copy of the table (X-WHIRL-2, X-WHIRL-5)."""
    ref = CanoeRef(table.canoes[player][index][0])
    for steps in _candidates(pos, table, player, index, budget):
        action = CanoeAction(ref, steps)
        if not wanted(action):
            continue
        try:
            _act(pos, table.copy(), player, index, action, budget, probing=True)
        except IllegalTurnError:
            continue
        return True
    return False


def _gem_sequences(gems: list[Colour], cave: Gems | None, points: int) -> Iterator[tuple[Step, ...]]:
    """Every sequence of loads and unloads at one cave the points can pay for (checked later by :func:`_act`)."""
    yield ()
    if cave is None or points < 2:
        return
    for colour in COLOURS:
        if cave.get(colour):
            for rest in _gem_sequences(sorted((*gems, colour)), cave.minus(colour), points - 2):
                yield (Load(colour), *rest)
    for colour in sorted(set(gems)):
        left = list(gems)
        left.remove(colour)
        for rest in _gem_sequences(left, cave.plus(colour), points - 2):
            yield (Unload(colour), *rest)


def _candidates(pos: Position, table: _Table, player: int, index: int, budget: int) -> Iterator[tuple[Step, ...]]:
    """Candidate actions of a canoe, the moose taken first or not: gem actions, one movement to any place (and the
    whirlpool's push), gem actions; most are illegal, and :func:`_act` says which."""
    board = pos.board
    place, gems = table.canoes[player][index]
    firsts: list[tuple[Step, ...]] = [()]
    if pos.ruleset.x_moose and table.moose is Moose.WAITING:
        firsts.append((TakeMoose(),))

    def cave_of(at: str) -> Gems | None:
        colour = board.cave.get(at)
        return table.caves[colour - 1] if colour is not None else None

    places = [PORT, *board.discs]
    for first in firsts:
        points = budget + (MOOSE_BONUS if first or table.holder == (player, index) else 0)
        for pre in _gem_sequences(list(gems), cave_of(place) if place != PORT else None, points):
            yield (*first, *pre)
            for dest in places:
                if dest == place:
                    continue
                if board.is_upstream_of(dest, place):
                    move = Move(dest, downstream=False)
                elif place == PORT or board.is_upstream_of(place, dest):
                    move = Move(dest, downstream=True)
                else:
                    continue
                if dest == pos.whirlpool:
                    for push in board.below(dest, 1) or (FALLEN,):
                        yield (*first, *pre, move, Push(push))
                    continue
                yield (*first, *pre, move)
                if dest != PORT:
                    for post in _gem_sequences(list(gems), cave_of(dest), points - 2 * len(pre) - 1):
                        if post:
                            yield (*first, *pre, move, *post)


def _trade(table: _Table, trade: Trade, place: str, gems: list[Colour], capacity: int, moved: bool) -> None:
    """X-JOE-3: a canoe that moved and stopped on Diamond Joe's disc takes his gem into a free place, swaps one of
    its gems with his (two different colours), or gives one of its gems to an empty Joe; ``gems`` is changed."""
    if table.joe is None:
        raise IllegalTurnError("there is no Diamond Joe: the module x_joe is off", "X-JOE-1")
    joe_place, joe_gem = table.joe
    if not moved:
        raise IllegalTurnError("only a canoe that moved this turn trades with Diamond Joe", "X-JOE-3")
    if place != joe_place:
        raise IllegalTurnError(f"Diamond Joe is on {joe_place}: a canoe trades with him on his disc, not on {place}",
                               "X-JOE-3")
    if trade.give is None and trade.take is None:
        raise IllegalTurnError("a trade gives Joe a gem, takes his gem, or both", "X-JOE-3")
    if trade.take is not None and trade.take != joe_gem:
        have = f"carries {joe_gem.label}" if joe_gem is not None else "carries nothing"
        raise IllegalTurnError(f"Diamond Joe {have}, not {trade.take.label}", "X-JOE-3")
    if trade.take is None and joe_gem is not None:
        raise IllegalTurnError(f"Diamond Joe carries {joe_gem.label}: give him a gem only in a swap "
                               f"(trade-COLOUR+{joe_gem.label}) or when he is empty", "X-JOE-3")
    if trade.give is not None:
        if trade.give not in gems:
            raise IllegalTurnError(f"the canoe carries no {trade.give.label} to give Diamond Joe", "X-JOE-3")
        if trade.give == trade.take:
            raise IllegalTurnError("a swap with Diamond Joe is of two different colours", "X-JOE-3")
        gems.remove(trade.give)
    if trade.take is not None:
        if len(gems) >= capacity:
            raise IllegalTurnError(f"the canoe is full: it carries at most {capacity} gem(s)", "X-JOE-3")
        gems.append(trade.take)
    table.joe = (joe_place, trade.give)


def play_turn(pos: Position, player: int, turn: Turn | str, card: Card | None = None) -> Position:
    """The position after a turn given as a :class:`Turn` or as notation."""
    if isinstance(turn, str):
        turn = Turn.parse(turn)
    return apply_turn(pos, player, turn, card).position
