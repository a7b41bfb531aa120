"""Proof games: can a position arise in a real game, and by what history?

A position's history starts from the setup of its own game: the same players in the same seats, ruleset and board,
every canoe in the port, full hands and full caves (R-BOARD-5, R-COMP), and the lifebuoy with the player who, passing
it once a round (R-BUOY-1), holds it in the position's round. A history reaches the position when its last round
ends in a position equal to it as the format defines equality (FORMAT.md: hands, round and lifebuoy included).

Before any search, cheap arguments settle many positions for good (:func:`cheap_arguments`): the hands every round
leaves (R-CARD-2), the gems no play can bank in the rounds played (R-GEM-5, R-MOVE-5), gems that are not all there
(R-PROP-3), and round 1, which is the setup itself.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from typing import Any

from niagara_solver.engine.rescue import apply_rescue, begin_turns, rescue_options
from niagara_solver.engine.round import RoundRecord
from niagara_solver.games.bounds import banked_within, bounded, module_reach
from niagara_solver.games.rounds import first_rounds
from niagara_solver.model.atoms import Card, Phase
from niagara_solver.model.limits import HISTORY_ROUNDS, out_of_time
from niagara_solver.model.errors import NiagaraError
from niagara_solver.model.notation import Rescue
from niagara_solver.model.verdict import Verdict
from niagara_solver.model.position import Player, Position, start_hand
from niagara_solver.solver.answers import bank_reach


@dataclass(frozen=True)
class Unreachable:
    """Why no game reaches a position: a sentence and the rule it rests on."""

    reason: str
    rule: str

    def __str__(self) -> str:
        return f"{self.reason} ({self.rule})"


def setup_for(pos: Position, round_: int | None = None) -> Position:
    """The setup of ``pos``'s game: its players, ruleset and board at the start of round 1, the lifebuoy with the
    player who holds it again in round ``round_`` (default: the position's round), one seat a round (R-BUOY-1)."""
    rounds_played = (round_ if round_ is not None else pos.round) - 1
    names = [p.name for p in pos.players]
    return Position.initial(names, pos.board, pos.ruleset, lifebuoy=(pos.lifebuoy - rounds_played) % len(names))


def hand_size_at(pos: Position, round_: int) -> int:
    """How many cards every hand holds at the start of round ``round_``: one card is played a round and the hand
    comes back full once every card was played (R-CARD-1, R-CARD-2; ten cards with X-CARDS-1)."""
    full = len(start_hand(pos.ruleset))
    return full - (round_ - 1) % full


def rounds_for_hands(pos: Position) -> tuple[int, int] | None:
    """The rounds whose start leaves the position's hands, as ``(first, period)``: round ``first``, ``first +
    period``, ... (R-CARD-2); None when the players' hands differ in size, which no round leaves."""
    sizes = {len(p.hand) for p in pos.players}
    if len(sizes) != 1:
        return None
    full = len(start_hand(pos.ruleset))
    (size,) = sizes
    return full - size + 1, full


def fewest_rounds_to_bank(pos: Position) -> int | None:
    """A lower bound on the rounds a game plays before any player's bank holds what it holds in ``pos``, or None
    where no bound is known (Joe: :func:`.bounds.bounded`). The base game's by :func:`.answers.bank_reach`, with
    expansion modules by :func:`.bounds.module_reach`."""
    if not bounded(pos.ruleset):
        return None
    setup = setup_for(pos, 1)
    reach = module_reach if pos.ruleset.modules else bank_reach
    need = 0
    for i, player in enumerate(pos.players):
        total = player.bank.total
        rounds = 0
        while total > 0 and reach(setup, i, rounds) < total:
            rounds += 1
            if rounds > 64:  # the bound grows with the rounds: never reached for a total this large
                break
        need = max(need, rounds)
    return need


def cheap_arguments(pos: Position, any_round: bool = False) -> Unreachable | None:
    """A proof that no game reaches ``pos``, from counting alone, or None when counting does not settle it.

    With ``any_round`` the position's round number is left free: can the position arise at the start of some round?
    Only positions at the start of a round (phase I, no card chosen) are asked about here."""
    totals = pos.gem_totals()
    per_colour = pos.gems_per_colour
    if per_colour is not None and any(n != per_colour for n in totals):
        return Unreachable(f"the game has {per_colour} gems of each colour, this position {_counts(totals)}",
                           "R-PROP-3")
    sizes = rounds_for_hands(pos)
    if sizes is None:
        hands = ", ".join(f"{p.name} {len(p.hand)}" for p in pos.players)
        return Unreachable(f"every player plays one card a round, so all hands hold as many cards; here {hands}",
                           "R-CARD-2")
    if not any_round:
        expected = hand_size_at(pos, pos.round)
        if len(pos.players[0].hand) != expected:
            return Unreachable(f"at the start of round {pos.round} every hand holds {expected} "
                               f"card{'s' if expected != 1 else ''}, here {len(pos.players[0].hand)}", "R-CARD-2")
        if pos.round == 1:
            setup = setup_for(pos)
            if pos != setup:
                return Unreachable("round 1 is the setup, and this position differs from it: "
                                   + _differences(setup, pos), "R-BOARD-5")
            return None
    fewest = fewest_rounds_to_bank(pos)
    if fewest is not None and not any_round and pos.round - 1 < fewest:
        banker = max(pos.players, key=lambda p: p.bank.total)
        gems = banker.bank.total
        return Unreachable(f"{banker.name}'s bank holds {gems} gem{'s' if gems != 1 else ''}, and no play banks that "
                           f"many in "
                           f"{pos.round - 1} round{'s' if pos.round != 2 else ''}", "R-MOVE-5")
    return None


def earliest_round(pos: Position) -> int:
    """The earliest round whose start may leave ``pos`` by counting alone: its hands (R-CARD-2) and its banks
    (R-MOVE-5); a search from the setup goes no shallower."""
    first, period = rounds_for_hands(pos) or (1, 1)
    fewest = fewest_rounds_to_bank(pos) or 0
    round_ = first
    while round_ - 1 < fewest:
        round_ += period
    if round_ == 1 and pos.replace(round=1) != setup_for(pos, 1):
        round_ += period
    return round_


def _counts(gems: object) -> str:
    return ", ".join(str(n) for n in gems)  # type: ignore[attr-defined]


def _differences(setup: Position, pos: Position) -> str:
    """What differs between the setup and a position, in a few words."""
    out = []
    for a, b in zip(setup.players, pos.players):
        if a.bank != b.bank:
            out.append(f"{b.name}'s bank holds {b.bank.total} gem{'s' if b.bank.total != 1 else ''}")
        if a.canoes != b.canoes:
            out.append(f"{b.name}'s canoes are at {', '.join(c.describe() for c in b.canoes)}")
        if a.hand != b.hand:
            out.append(f"{b.name}'s hand has {len(b.hand)} cards")
    if setup.caves != pos.caves:
        out.append("the caves are not full")
    if setup.weather != pos.weather:
        out.append(f"the weather is {pos.weather}")
    if setup.forks != pos.forks:
        out.append("a fork marker has moved")
    if pos.phase is not Phase.CARDS or pos.acted:
        out.append("the round is under way")
    for name in ("whirlpool", "beaver", "moose", "joe"):
        if getattr(setup, name) != getattr(pos, name):
            out.append(f"the {name} has moved")
    return "; ".join(out[:3]) + ("; ..." if len(out) > 3 else "")


# -- the search for a proof game ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class SamePosition:
    """A target: the very position (as the format compares positions), with a sound bound on the round ends still
    needed read from the round number, the hands (R-CARD-2) and the banks (:func:`..solver.answers.bank_reach`)."""

    position: Position

    @property
    def uses_events(self) -> bool:
        return False

    @property
    def uses_tally(self) -> bool:
        return False

    def holds(self, pos: Position, events: object = None, tally: object = None) -> bool:
        return pos == self.position

    def rounds_needed(self, pos: Position, limit: int) -> int:
        target = self.position
        at_start = pos.phase is Phase.CARDS and not pos.acted
        left = target.round - pos.round
        if left < (0 if at_start else 1):
            return limit + 1
        if left == 0:
            return 0 if pos == target else limit + 1
        full = len(start_hand(pos.ruleset))
        for i, (now, then) in enumerate(zip(pos.players, target.players)):
            plays = left - (1 if i in pos.acted else 0)  # the cards still to be played before the target's round
            if not _hand_reaches(set(now.hand), set(then.hand), plays, full):
                return limit + 1
            gained = then.bank.total - now.bank.total
            if gained > 0 and bounded(pos.ruleset) and banked_within(pos, i, left) < gained:
                return limit + 1
        return left


def _hand_reaches(now: set[object], then: set[object], plays: int, full: int) -> bool:
    """Can a hand go from ``now`` to ``then`` in ``plays`` cards played, one a round, refilled when empty (R-CARD-2)?"""
    if plays < len(now):
        return then <= now and len(then) == len(now) - plays
    return len(then) == full - (plays - len(now)) % full


@dataclass
class HistoryResult:
    """The answer of :func:`history`: ``verdict`` CONFIRMED (a history reaches the position: ``records``, round by
    round from ``setup``), REFUTED (no game reaches it: ``reason`` says why — a counting argument, or every play
    of the rounds before its round explored) or UNKNOWN (the search stopped, or the position's round is beyond
    ``rounds_limit``: ``reason`` says which)."""

    verdict: Verdict
    position: Position
    setup: Position
    reason: str = ""
    rule: str = ""
    records: tuple[RoundRecord, ...] = ()
    positions: int = 0
    seconds: float = 0.0
    #: The round the position was found in (:func:`arises` leaves the round free; :func:`history` keeps its own).
    round: int | None = None
    #: What happens after the last round of ``records`` to reach a position in phase II: the rescues and the cards.
    then: str = ""

    @property
    def exit_status(self) -> int:
        """0 reachable, 1 not reachable, 3 unknown (as ``reach``)."""
        return self.verdict.exit_status

    @property
    def word(self) -> str:
        """``reachable``, ``not reachable`` or ``unknown``."""
        return {Verdict.CONFIRMED: "reachable", Verdict.REFUTED: "not reachable"}.get(self.verdict, "unknown")

    def to_json(self) -> dict[str, object]:
        """The answer as ``history --json`` writes it (and a puzzle file's ``"history"`` records it)."""
        out: dict[str, object] = {"verdict": self.word}
        if self.verdict is Verdict.CONFIRMED:
            out["rounds"] = len(self.records)
        if self.reason:
            out["reason"] = self.reason
        if self.rule:
            out["rule"] = self.rule
        if self.round is not None:
            out["round"] = self.round
        if self.then:
            out["then"] = self.then
        return out

    def trace_json(self) -> dict[str, Any]:
        """The history as a trace file (docs/GAMES.md, "Traces"): ``replay`` plays it again from the setup."""
        from niagara_solver.games.trace import TRACE_FORMAT, TRACE_VERSION
        from niagara_solver.model.format import position_to_json
        return {"format": TRACE_FORMAT, "version": TRACE_VERSION, "setup": position_to_json(self.setup),
                "target": "the position itself" + (f", then {self.then}" if self.then else ""),
                "rounds": [r.to_json() for r in self.records]}


def history(pos: Position, rounds_limit: int = 4, max_positions: int = 2_000_000) -> HistoryResult:
    """A shortest history from the setup of ``pos``'s game to ``pos`` (a position at the start of a round, or in phase
    II before anyone acted), by the deepening search over the engine's rounds, cut by :class:`SamePosition`'s bound;
    or why there is none. For a position in phase II the search looks for a start of its round from which phase I's
    rescues and cards lead to it (:class:`AfterRescues`), and ``then`` says which.

    The position's round fixes the history's length (``round - 1`` rounds): a search that explores every play of
    those rounds without meeting the position proves it unreachable. Beyond ``rounds_limit`` rounds the answer is
    unknown, unless counting settles it first (:func:`cheap_arguments`)."""
    began = time.monotonic()
    setup = setup_for(pos)
    in_phase_two = before_turns(pos)
    if not (at_round_start(pos) or in_phase_two):
        return HistoryResult(Verdict.UNKNOWN, pos, setup, "history answers positions at the start of a round "
                             "(phase I, no card chosen) or in phase II before anyone acted", "FORMAT")
    start = _as_round_start(pos) if in_phase_two else pos
    cheap = cheap_arguments(start)
    if cheap is not None:
        return HistoryResult(Verdict.REFUTED, pos, setup, cheap.reason, cheap.rule, seconds=time.monotonic() - began)
    rounds = pos.round - 1
    if rounds > rounds_limit:
        return HistoryResult(Verdict.UNKNOWN, pos, setup, f"its round needs {rounds} rounds of history, beyond the "
                             f"{rounds_limit} searched", "LIMITS", seconds=time.monotonic() - began)
    walked = _walk(setup, pos, in_phase_two, max_positions)
    seconds = time.monotonic() - began
    if walked.rounds is not None:
        return HistoryResult(Verdict.CONFIRMED, pos, setup, "the setup itself" if rounds == 0 else "",
                             records=walked.records, positions=walked.positions, seconds=seconds, round=pos.round,
                             then=walked.then)
    if walked.stopped is not None:
        return HistoryResult(Verdict.UNKNOWN, pos, setup, f"the search stopped: {walked.stopped}", "LIMITS",
                             positions=walked.positions, seconds=seconds)
    return HistoryResult(Verdict.REFUTED, pos, setup, f"no play of the {rounds} round{'s' if rounds != 1 else ''} "
                         f"before round {pos.round} reaches it (every play explored)", "R-ROUND-1",
                         positions=walked.positions, seconds=seconds)


@dataclass(frozen=True)
class _Walked:
    """What the walk from a setup to a position of its round found: its rounds (None: none, or ``stopped``)."""

    rounds: int | None
    records: tuple[RoundRecord, ...]
    positions: int
    stopped: str | None
    then: str


def _walk(game: Position, pos: Position, in_phase_two: bool, max_positions: int) -> _Walked:
    """The deepening walk from ``game`` (a setup) over ``pos.round - 1`` rounds to ``pos`` itself, or, for a position
    in phase II before anyone acted, to a start of its round from which phase I leads to it."""
    target: SamePosition | AfterRescues = AfterRescues(pos) if in_phase_two else SamePosition(pos)
    rounds = pos.round - 1
    if rounds == 0:
        found_rounds: int | None = 0 if target.holds(game) else None
        records: tuple[RoundRecord, ...] = ()
        positions, stopped = 0, None
    else:
        from niagara_solver.games.deepen import Deepening

        found = Deepening(game, target, rounds, max_positions).run()
        found_rounds, records, positions, stopped = found.rounds, found.records, found.positions, found.stopped
    then = ""
    if found_rounds is not None and in_phase_two:
        steps = phase_one(records[-1].end if records else game, pos)
        assert steps is not None  # the target held there
        then = _phase_one_text(pos, steps[0])
    return _Walked(found_rounds, records, positions, stopped, then)


# -- a position of any round: a counterexample's history -------------------------------------------------------------

#: How many rounds of history :func:`arises` searches unless told (``model.limits.HISTORY_ROUNDS``).
ARISES_ROUNDS = HISTORY_ROUNDS


def before_turns(pos: Position) -> bool:
    """Is ``pos`` in phase II before anyone acted: phase I done (rescues made, cards chosen), no turn taken?"""
    return pos.phase is Phase.TURNS and not pos.acted


def at_round_start(pos: Position) -> bool:
    """Is ``pos`` at the start of a round: phase I, before any rescue or card?"""
    return pos.phase is Phase.CARDS and not pos.acted and all(p.card is None for p in pos.players)


def _as_round_start(pos: Position) -> Position:
    """A phase II position before anyone acted, read as the start of its round with its hands, its round and its
    lifebuoy (what phase I leaves unchanged, R-RESCUE-1, R-CARD-1); the canoes, banks and caves are the rescues' and
    may differ from the start's (:class:`AfterRescues` compares them)."""
    players = tuple(Player(p.name, p.canoes, p.hand, p.bank) for p in pos.players)
    return pos.replace(phase=Phase.CARDS, players=players)


def phase_one(start: Position, pos: Position) -> tuple[tuple[tuple[int, Rescue], ...], Position] | None:
    """The rescues (in seat order from the lifebuoy holder, R-RESCUE-1) and cards (R-CARD-1) that lead from ``start``
    (at the start of a round) to ``pos`` (phase II, before anyone acted; its known cards chosen, the others hidden),
    or None when none does. Every rescue the engine allows is tried (:func:`..engine.rescue.rescue_options`)."""
    if not at_round_start(start) or not before_turns(pos) or start.round != pos.round:
        return None
    cards: dict[int, Card] = {i: p.card for i, p in enumerate(pos.players) if p.card is not None}
    states: list[tuple[tuple[tuple[int, Rescue], ...], Position]] = [((), start)]
    for seat in start.turn_order():
        states = [((*done, (seat, option)), apply_rescue(state, seat, option))
                  for done, state in states for option in rescue_options(state, seat)]
    for done, _ in states:
        try:  # phase I from the start: these rescues in seat order, then the cards
            after = begin_turns(start, dict(done), cards)
        except NiagaraError:  # a known card not in this hand: not this start
            continue
        if after == pos:
            return done, after
    return None


@dataclass(frozen=True)
class AfterRescues:
    """A target: a start of round from which phase I (the rescues, the cards) leads to ``position``, a phase II
    position before anyone acted. Phase I keeps the hands, the round and the lifebuoy and only takes gems from the
    banks (a rescue is paid, R-RESCUE-1), so :class:`SamePosition`'s bound for the start with those hands and
    ``position``'s banks is a bound here too."""

    position: Position

    @property
    def uses_events(self) -> bool:
        return False

    @property
    def uses_tally(self) -> bool:
        return False

    def holds(self, pos: Position, events: object = None, tally: object = None) -> bool:
        return phase_one(pos, self.position) is not None

    def rounds_needed(self, pos: Position, limit: int) -> int:
        if pos.round == self.position.round:
            return 0 if self.holds(pos) else limit + 1
        return SamePosition(_as_round_start(self.position)).rounds_needed(pos, limit)


def _hands_in_round(pos: Position) -> Unreachable | None:
    """Hands within a round: every player holds as many cards at its start, and a player who has acted holds one card
    fewer (the card played left the hand, R-CARD-2); None when the hands agree with that."""
    sizes = {len(p.hand) + (1 if i in pos.acted else 0) for i, p in enumerate(pos.players)}
    if len(sizes) == 1:
        return None
    hands = ", ".join(f"{p.name} {len(p.hand)}" + (" (has played)" if i in pos.acted else "")
                      for i, p in enumerate(pos.players))
    return Unreachable("every player plays one card a round, so all hands hold as many cards at the start of a round "
                       f"and one fewer once played; here {hands}", "R-CARD-2")


def arises(pos: Position, rounds_limit: int = ARISES_ROUNDS, max_positions: int = 2_000_000) -> HistoryResult:
    """Does some game reach ``pos`` in some round? The position's round number is left free (a prover's position
    stands for every round: its round is written 1 by default), the lifebuoy of its game's setup chosen so that it is
    the position's in that round (R-COMP-5, R-BUOY-1).

    Counting settles some positions for every round (gems of each colour all there, R-PROP-3; the hands all of one
    size, R-CARD-2): not reachable. Otherwise the rounds its hands allow (R-CARD-2: round ``first``, ``first + 7``,
    ...) are searched in turn while their history has at most ``rounds_limit`` rounds — the deepening walk to the very
    position, for a position at the start of a round (:func:`history`), or to a start of round from which phase I's
    rescues and cards lead to it, for a position in phase II before anyone acted (:class:`AfterRescues`): reachable
    with the shortest history found. A position further into a round (a turn taken, the flow to come) is not searched.
    Past the rounds searched, or out of time (the command's time limit, read by the walk), the answer is unknown,
    with the rounds excluded said: a later round may still reach it."""
    began = time.monotonic()

    def answer(verdict: Verdict, reason: str = "", rule: str = "", setup: Position | None = None,
               records: tuple[RoundRecord, ...] = (), positions: int = 0, round_: int | None = None,
               then: str = "") -> HistoryResult:
        return HistoryResult(verdict, pos, setup or setup_for(pos), reason, rule, records, positions,
                             time.monotonic() - began, round_, then)

    totals = pos.gem_totals()
    per_colour = pos.gems_per_colour
    if per_colour is not None and any(n != per_colour for n in totals):
        return answer(Verdict.REFUTED, f"the game has {per_colour} gems of each colour, this position "
                                       f"{_counts(totals)}", "R-PROP-3")
    hands = _hands_in_round(pos)
    if hands is not None:
        return answer(Verdict.REFUTED, hands.reason, hands.rule)
    in_phase_two = before_turns(pos)
    if at_round_start(pos):
        start = pos
    elif in_phase_two:
        start = _as_round_start(pos)
    else:
        return answer(Verdict.UNKNOWN, "a position within a round (a turn taken, or the flow to come): only a start "
                                       "of round, or phase II before anyone acted, is searched", "FORMAT")
    first, period = rounds_for_hands(start) or (1, 1)
    excluded: list[str] = []
    positions = 0
    round_ = first
    while round_ - 1 <= rounds_limit:
        if out_of_time():
            return answer(Verdict.UNKNOWN, _excluded(excluded, "the time limit ran out"), "LIMITS",
                          positions=positions)
        there = start.replace(round=round_)
        target_pos = pos.replace(round=round_)
        cheap = cheap_arguments(there)
        game = setup_for(there)
        if cheap is not None:
            excluded.append(f"round {round_}: {cheap}")
            round_ += period
            continue
        walked = _walk(game, target_pos, in_phase_two, max_positions)
        positions += walked.positions
        if walked.rounds is not None:
            return answer(Verdict.CONFIRMED, setup=game, records=walked.records, positions=positions, round_=round_,
                          then=walked.then)
        stopped = walked.stopped
        if stopped is not None:
            return answer(Verdict.UNKNOWN, _excluded(excluded, f"the search of round {round_} stopped: {stopped}"),
                          "LIMITS", positions=positions)
        excluded.append(f"round {round_}: every play of {first_rounds(round_ - 1)} explored")
        round_ += period
    cards = len(start.players[0].hand)
    later = (f"its hands ({cards} card{'s' if cards != 1 else ''} each) are those of rounds {first}, {first + period}, "
             f"... (R-CARD-2); round {round_} needs {round_ - 1} rounds of history, more than the {rounds_limit} "
             "searched")
    return answer(Verdict.UNKNOWN, _excluded(excluded, later), "LIMITS", positions=positions)


def _excluded(excluded: list[str], then: str) -> str:
    """Why the answer is unknown: the rounds excluded, then what stopped the search."""
    return ("no game reaches it in " + "; ".join(excluded) + "; " if excluded else "") + then


def _phase_one_text(pos: Position, rescues: tuple[tuple[int, Rescue], ...]) -> str:
    """Phase I in words: each rescue made, the cards known."""
    done = [f"{pos.players[seat].name} rescues {rescue}" for seat, rescue in rescues if rescue.payments]
    cards = [f"{p.name} chooses {p.card.label}" for p in pos.players if p.card is not None]
    return "; ".join([*(done or ["no rescue"]), *cards])
