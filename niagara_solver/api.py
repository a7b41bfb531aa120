"""The flat public API: every command of the command line as one call, with friendly arguments.

    import niagara_solver as ns
    pos = ns.load_position("puzzles/erratum-two-canoes.json")
    for outcome in ns.legal_turns(pos, "red", 5):
        print(outcome.turn)
    print(ns.solve(pos, "red", "win").answer.word)
    print(ns.prove("standard", players=[3]).word)

Players may be named or given by seat index; cards as ``5``, ``"5"``, ``"cloud"`` or :class:`Card`; rulesets
and boards as preset names, file paths or values. The deeper modules stay available for everything else.
"""

from __future__ import annotations

from pathlib import Path

from niagara_solver.design.check import CheckReport
from niagara_solver.design.check import check as _check
from niagara_solver.design.diff import DiffReport
from niagara_solver.design.diff import diff as _diff
from niagara_solver.design.histories import prove_with_histories
from niagara_solver.design.simulate import Comparison, Settings, Simulation
from niagara_solver.design.simulate import compare as _compare
from niagara_solver.design.simulate import simulate as _simulate
from niagara_solver.engine.apply import play_turn as _play_turn
from niagara_solver.engine.flow import flow as _flow
from niagara_solver.engine.rescue import begin_turns
from niagara_solver.engine.outcome import TurnOutcome
from niagara_solver.engine.turns import legal_turns as _legal_turns
from niagara_solver.model.atoms import Card, Phase
from niagara_solver.model.board import Board
from niagara_solver.model.errors import InputError
from niagara_solver.model.format import load_board as _load_board
from niagara_solver.model.limits import (ANALYZE_TIMEOUT, CASE_TIMEOUT, CROSSCHECK_TIMEOUT, HISTORY_ROUNDS,
                                         PROVE_TIMEOUT, SOLVE_TIMEOUT, time_limit)
from niagara_solver.model.format import load_position as _load_position
from niagara_solver.model.format import load_ruleset as _load_ruleset
from niagara_solver.model.notation import Turn
from niagara_solver.model.position import Position
from niagara_solver.model.puzzles import bundled_puzzles
from niagara_solver.model.ruleset import Ruleset
from niagara_solver.solver.advice import Advice
from niagara_solver.solver.advice import advise as _advise
from niagara_solver.solver.analysis import Analysis
from niagara_solver.solver.analysis import analyze as _analyze
from niagara_solver.solver.answers import Backend, Goal
from niagara_solver.solver.certificate import load_certificate
from niagara_solver.solver.certify import CertificateCheck
from niagara_solver.solver.solve import Solution, check_saved_certificate, solve_with
from niagara_solver.verify.catalogue import CatalogueReport
from niagara_solver.verify.crosscheck import CrosscheckReport
from niagara_solver.verify.crosscheck import crosscheck as _crosscheck
from niagara_solver.verify.mutants import MutantReport, mutant_report
from niagara_solver.verify.why import WhyResult
from niagara_solver.verify.why import why as _why

PlayerRef = str | int
CardRef = Card | int | str
RulesetRef = Ruleset | str
BoardRef = Board | str

__all__ = ["load_position", "load_ruleset", "load_board", "legal_turns", "play_turn", "flow", "solve", "certify",
           "analyze", "advise", "why", "prove", "mutants", "crosscheck", "check", "diff", "simulate",
           "bundled_puzzles"]


def load_position(path: str | Path, ruleset: RulesetRef | None = None) -> Position:
    """A position file (docs/FORMAT.md), under its own ruleset or under ``ruleset``."""
    return _load_position(path, load_ruleset(ruleset) if ruleset is not None else None)


def load_ruleset(spec: RulesetRef) -> Ruleset:
    """A ruleset: a preset name (``standard``, ``bga-2013-05-09``), a file, or a :class:`Ruleset` as it is."""
    return spec if isinstance(spec, Ruleset) else _load_ruleset(spec)


def load_board(spec: BoardRef) -> Board:
    """A board: a preset name (``standard``), a file, or a :class:`Board` as it is."""
    return spec if isinstance(spec, Board) else _load_board(spec)


def _player(pos: Position, player: PlayerRef) -> int:
    if isinstance(player, int):
        if not 0 <= player < len(pos.players):
            raise InputError("player", f"no seat {player}; seats 0..{len(pos.players) - 1}", "R-COMP-1")
        return player
    try:
        return pos.index(player)
    except KeyError:
        raise InputError("player", f"unknown player {player!r}; players: "
                         f"{', '.join(p.name for p in pos.players)}", "R-COMP-1") from None


def _card(card: CardRef | None) -> Card | None:
    if card is None or isinstance(card, Card):
        return card
    try:
        return Card.parse(card)
    except ValueError as err:
        raise InputError("card", str(err), "R-COMP-2") from None


def _in_turns(pos: Position) -> Position:
    # A start-of-round position is taken into phase II with no optional rescue (forced ones are applied), as
    # ``niagara-solve turns`` does; pass a phase II position to choose rescues (engine.rescue.begin_turns).
    return begin_turns(pos) if pos.phase is Phase.CARDS else pos


def legal_turns(pos: Position, player: PlayerRef, card: CardRef | None = None) -> list[TurnOutcome]:
    """Every distinct legal turn of ``player`` with ``card`` (default: the card they chose), and where it leads."""
    return _legal_turns(_in_turns(pos), _player(pos, player), _card(card))


def play_turn(pos: Position, player: PlayerRef, turn: Turn | str, card: CardRef | None = None) -> Position:
    """The position after ``player`` plays ``turn`` (notation: docs/NOTATION.md) with ``card``."""
    return _play_turn(_in_turns(pos), _player(pos, player), turn, _card(card))


def flow(pos: Position, steps: int) -> Position:
    """The position after the river flows ``steps`` single steps (phase III alone, R-FLOW)."""
    return _flow(pos, steps)


def solve(pos: Position, player: PlayerRef, goal: Goal | str = Goal.WIN, horizon: int = 1,
          backend: Backend | str = Backend.SEARCH, timeout: float | None = SOLVE_TIMEOUT,
          certificate: str | Path | None = None) -> Solution:
    """Can ``player`` force ``goal`` (win, steal, safe) within ``horizon`` rounds, whatever the others do?
    (``backend="both"``: the search's answer with its certificate checked by the encoding; ``certificate``: a file
    to save the certificate to.)"""
    return solve_with(pos, _player(pos, player), Goal(goal), horizon, Backend(backend), timeout,
                      certificate=certificate)


def certify(pos: Position, certificate: str | Path, timeout: float | None = SOLVE_TIMEOUT) -> CertificateCheck:
    """Check a saved certificate of a solver answer about ``pos`` against the encoding alone
    (``niagara-solve certify``)."""
    return check_saved_certificate(pos, load_certificate(certificate), timeout)


def analyze(pos: Position, timeout: float = ANALYZE_TIMEOUT) -> Analysis:
    """The full analysis of a position for every player (``niagara-solve POSITION``); ``.to_json()`` is the
    command's ``--json``."""
    return _analyze(pos, timeout)


def advise(pos: Position, player: PlayerRef, continuations: int = 40, rounds: int = 4, seed: int = 0) -> Advice:
    """Rank ``player``'s cards by seeded simulated continuations (an estimate, not a proof): wins and gems banked."""
    return _advise(pos, _player(pos, player), continuations, rounds, seed)


def why(pos: Position, player: PlayerRef, card: CardRef, turn: Turn | str, timeout: float | None = 30) -> WhyResult:
    """Is the turn legal, and if not, which rule forbids it (engine and encoding both asked)."""
    played = _card(card)
    assert played is not None
    return _why(_in_turns(pos), _player(pos, player), played, Turn.parse(turn) if isinstance(turn, str) else turn,
                timeout)


def prove(ruleset: RulesetRef = "standard", board: BoardRef = "standard", players: list[int] | None = None,
          ids: list[str] | None = None, timeout: float | None = PROVE_TIMEOUT,
          history_rounds: int = HISTORY_ROUNDS) -> CatalogueReport:
    """Prove the rule properties R-PROP-1..16 for all valid positions with 2 to 5 players (or ``players``); each
    counterexample says whether a game reaches it (``MergedProperty.history``: histories of at most
    ``history_rounds`` rounds, within ``timeout``)."""
    return prove_with_histories(load_board(board), load_ruleset(ruleset), players or [2, 3, 4, 5], ids, timeout,
                                history_rounds=history_rounds)


def crosscheck(ruleset: RulesetRef = "standard", board: BoardRef = "standard", count: int = 10, seed: int = 0,
               case_timeout: float | None = CASE_TIMEOUT, jobs: int = 1,
               timeout: float | None = CROSSCHECK_TIMEOUT) -> CrosscheckReport:
    """Compare the engine and the encoding outcome by outcome (a report with ``mismatches`` and coverage).

    ``case_timeout``: each comparison's limit; ``timeout``: the whole run's, as the command's ``--timeout`` (past
    it no further position is compared and the report is unfinished). ``jobs``: compare the positions in that many
    spawned processes (the same report); a script calling this with ``jobs`` above 1 runs it under
    ``if __name__ == "__main__":``, as any script starting processes must."""
    with time_limit(timeout):
        return _crosscheck(load_board(board), load_ruleset(ruleset), count, seed, timeout=case_timeout, jobs=jobs)


def mutants(ruleset: RulesetRef = "standard", board: BoardRef = "standard", players: list[int] | None = None,
            names: list[str] | None = None, timeout: float | None = PROVE_TIMEOUT) -> MutantReport:
    """Check that the property catalogue kills every rule mutant (or those ``names``) with 2 players (or for
    ``players``: a mutant is killed when one count refutes it); ``.exit_status`` as ``niagara-solve mutants``."""
    return mutant_report(load_board(board), load_ruleset(ruleset), players or [2], names, timeout)


def check(ruleset: RulesetRef = "standard", board: BoardRef = "standard", puzzles: str | None = None,
          players: list[int] | None = None, timeout: float = PROVE_TIMEOUT, jobs: int = 1,
          ids: list[str] | None = None) -> CheckReport:
    """Rule regressions: prove the catalogue (or the properties ``ids``) and answer every puzzle of ``puzzles``
    (default: the bundled ones). A property asked whose expansion module is off is not applicable, never a pass."""
    return _check(load_board(board), load_ruleset(ruleset), puzzles or bundled_puzzles(), players or [2, 3, 4, 5],
                  False, timeout, jobs, ids=ids)


def diff(ruleset_a: RulesetRef, ruleset_b: RulesetRef, board: BoardRef = "standard",
         players: list[int] | None = None, puzzles: str | None = None, timeout: float = PROVE_TIMEOUT,
         jobs: int = 1, fastest_win: bool = False) -> DiffReport:
    """What changes between two rulesets: properties, puzzle answers, a witness per switch; with ``fastest_win``
    the fewest rounds from the setup to a win under each (``DiffReport.fastest_wins``)."""
    return _diff(load_board(board), load_ruleset(ruleset_a), load_ruleset(ruleset_b), players or [2, 3, 4, 5],
                 puzzles, timeout, jobs, fastest_win=fastest_win)


def simulate(ruleset: RulesetRef = "standard", players: int = 4, games: int = 100, policy: str = "lookahead",
             against: str | None = None, seed: int = 0, board: BoardRef = "standard", max_rounds: int = 100,
             jobs: int = 1, compare_with: RulesetRef | None = None) -> Simulation | Comparison:
    """Playtest a ruleset: ``games`` seeded games by ``policy`` (with ``against``, in one seat against it); with
    ``compare_with``, the same games under a second ruleset too, and each figure's change (a :class:`Comparison`)."""
    first = Settings(load_ruleset(ruleset), load_board(board), players, games, seed, policy, against, max_rounds)
    if compare_with is None:
        return _simulate(first, jobs)
    second = Settings(load_ruleset(compare_with), first.board, players, games, seed, policy, against, max_rounds)
    return _compare(first, second, jobs)
