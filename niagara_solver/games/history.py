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

from niagara_solver.engine.round import RoundRecord
from niagara_solver.model.atoms import Phase
from niagara_solver.model.verdict import Verdict
from niagara_solver.model.position import Position, start_hand
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
    where no bound is known (an expansion module is on: :func:`.answers.bank_reach` reads the base game)."""
    if pos.ruleset.modules:
        return None
    setup = setup_for(pos, 1)
    need = 0
    for i, player in enumerate(pos.players):
        total = player.bank.total
        rounds = 0
        while total > 0 and bank_reach(setup, i, rounds) < total:
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
            if not pos.ruleset.modules:
                gained = then.bank.total - now.bank.total
                if gained > 0 and bank_reach(pos, i, left, one_departure=True, own_hand=True) < gained:
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
        return out


def history(pos: Position, rounds_limit: int = 4, max_positions: int = 2_000_000) -> HistoryResult:
    """A shortest history from the setup of ``pos``'s game to ``pos`` (a position at the start of a round), by the
    deepening search over the engine's rounds, cut by :class:`SamePosition`'s bound; or why there is none.

    The position's round fixes the history's length (``round - 1`` rounds): a search that explores every play of
    those rounds without meeting the position proves it unreachable. Beyond ``rounds_limit`` rounds the answer is
    unknown, unless counting settles it first (:func:`cheap_arguments`)."""
    began = time.monotonic()
    setup = setup_for(pos)
    if pos.phase is not Phase.CARDS or pos.acted or any(p.card is not None for p in pos.players):
        return HistoryResult(Verdict.UNKNOWN, pos, setup, "history answers positions at the start of a round "
                             "(phase I, no card chosen)", "FORMAT")
    cheap = cheap_arguments(pos)
    if cheap is not None:
        return HistoryResult(Verdict.REFUTED, pos, setup, cheap.reason, cheap.rule, seconds=time.monotonic() - began)
    rounds = pos.round - 1
    if rounds == 0:
        return HistoryResult(Verdict.CONFIRMED, pos, setup, "the setup itself", seconds=time.monotonic() - began)
    if rounds > rounds_limit:
        return HistoryResult(Verdict.UNKNOWN, pos, setup, f"its round needs {rounds} rounds of history, beyond the "
                             f"{rounds_limit} searched", "LIMITS", seconds=time.monotonic() - began)
    from niagara_solver.games.deepen import Deepening

    found = Deepening(setup, SamePosition(pos), rounds, max_positions).run()
    seconds = time.monotonic() - began
    if found.rounds is not None:
        return HistoryResult(Verdict.CONFIRMED, pos, setup, records=found.records, positions=found.positions,
                             seconds=seconds)
    if found.stopped is not None:
        return HistoryResult(Verdict.UNKNOWN, pos, setup, f"the search stopped: {found.stopped}", "LIMITS",
                             positions=found.positions, seconds=seconds)
    return HistoryResult(Verdict.REFUTED, pos, setup, f"no play of the {rounds} round{'s' if rounds != 1 else ''} "
                         f"before round {pos.round} reaches it (every play explored)", "R-ROUND-1",
                         positions=found.positions, seconds=seconds)
