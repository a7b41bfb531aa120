"""The limits on what the tool reads (docs/FORMAT.md, "Limits"), each with the reason for its number.

A hand-written position is a few hundred bytes, six levels deep, with numbers below a hundred; a board has a
dozen discs. The limits lie far above anything a game or a designer needs and far below what would exhaust
memory, the stack or the patience of the user: input beyond them is refused (exit status 2, rule ``LIMITS``)
before any work is done with it, instead of failing with a traceback, hanging or filling the memory.
"""

from __future__ import annotations

import math
import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

from niagara_solver.model.errors import InputError, quoted

#: The rule ID of every limit below (docs/FORMAT.md, "Limits").
LIMITS = "LIMITS"

#: The largest file read (bytes). Positions, rulesets, boards and grids are kilobytes; a cap keeps a device
#: (``/dev/zero``) or a runaway file from filling the memory.
MAX_FILE_BYTES = 10_000_000

#: How deeply arrays and objects may nest in a file. A position nests 6 levels (players, a player, canoes, a
#: canoe, its gems); deeper nesting only exhausts the stack of the parser and of everything that walks the value.
MAX_JSON_DEPTH = 32

#: The most digits an integer of a file may have. Every count of the game is below a hundred, and a 64-bit
#: integer has 19 digits; Python refuses to read integers of more than 4300 digits at all.
MAX_INTEGER_DIGITS = 20

#: The most discs a board may have. The standard board has 9; every disc adds places to every search and
#: picture, and drawing or encoding a river of thousands of discs runs out of stack or time.
MAX_DISCS = 200

#: The most rounds a solver question may look ahead (``solve --horizon``, a puzzle's ``horizon``): each round
#: multiplies the positions searched many times over.
MAX_HORIZON = 6

#: The shortest and longest time limit (seconds) of a command. z3 counts its timeout in
#: milliseconds as a 32-bit number (at most about 49 days); beyond a day, a question is better left unknown.
MIN_TIMEOUT = 0.1
MAX_TIMEOUT = 86_400.0

#: Each command's default time limit (seconds), one number for the command line's ``--timeout`` and the library's
#: ``timeout``: what a run usually needs (README.md, "Time limits"). ``analyze``: every player's tables and the
#: advice of a position.
ANALYZE_TIMEOUT = 30.0
#: ``solve`` and ``certify``: a question a few rounds ahead, or its certificate checked.
SOLVE_TIMEOUT = 120.0
#: ``prove``, ``mutants``, ``check``, ``diff`` and a sweep grid: the catalogue for several player counts, minutes
#: with the expansion's modules.
PROVE_TIMEOUT = 600.0
#: ``reach`` and ``invariant``: a whole-game search, level by level; the first rounds from a setup take seconds, each
#: further one many times more (docs/GAMES.md).
REACH_TIMEOUT = 600.0
#: ``report``: every preset's catalogue, the mutants, a cross-check, the puzzles, the diffs and the games.
REPORT_TIMEOUT = 1800.0
#: ``crosscheck``'s default time limit for the whole command (``--timeout``): the default run takes under a minute,
#: a run of every expansion module with a few playouts several minutes (README.md, "The expansion").
CROSSCHECK_TIMEOUT = 1800.0
#: The seconds the encoding's side of one cross-check comparison, or one goal's search, may take by default
#: (``crosscheck --case-timeout``), within the command's limit: the slowest comparisons, whole rounds of five
#: players, take seconds; past it the comparison is UNKNOWN, never agreement.
CASE_TIMEOUT = 60.0

#: The most flow steps ``flow --steps`` takes at once. A round flows at most 8 steps (the 6 paddle in a storm,
#: R-FLOW-1), so a hundred is a dozen rounds' flow; a bound keeps a typo from running for ever (under
#: ``fork_policy: free`` every step multiplies the outcomes to follow).
MAX_FLOW_STEPS = 100

#: The most positions a whole-game search (``reach``, ``invariant``) stores before it answers UNKNOWN: each stored
#: position with its pointer to the one it was found from takes about 2 KB (benchmarks/bench_reach.py measures
#: it: 1.9 KB), so two million fill about 4 GB, what a laptop can spare; the level checked last is never stored.
MAX_REACH_POSITIONS = 2_000_000

#: The most rounds a whole-game search looks ahead (``reach --rounds``): a game from the setup lasts about ten
#: rounds (docs/GAMES.md); twenty is beyond any game, and a bigger number is a typo, not a plan.
MAX_REACH_ROUNDS = 20

#: The rounds of history ``prove``, ``check``, ``diff`` and ``sweep`` search for each counterexample by default
#: (``--history-rounds``), within the command's time limit: a counterexample's hands fix the rounds it may arise in
#: (R-CARD-2). Two rounds take seconds for 2 to 5 players; three take 4 s for 2 players but over five minutes for 3
#: (docs/PROVER.md, "Does a game reach it?").
HISTORY_ROUNDS = 2

#: The rounds ``diff --fastest-win`` searches for a win from the setup: a game lasts about ten rounds (docs/GAMES.md);
#: the time limit stops the walk long before on the standard board (5 rounds for 2 players take minutes).
FASTEST_WIN_ROUNDS = 10

#: The most gems of each colour a ruleset may set (``gems_per_colour``; the game has 8). Pictures draw every gem
#: and the solver counts them one by one; two digits keep every count of a cave readable.
MAX_GEMS_PER_COLOUR = 99

#: The most catalogue proofs (ruleset variants × boards × player counts) a sweep grid may ask for. Each proof
#: takes seconds to minutes: a bigger grid is a typo (a repeated value list), not a plan.
MAX_GRID_PROOFS = 1_000


def check_timeout(seconds: object, where: str) -> float:
    """A time limit in seconds, finite and within :data:`MIN_TIMEOUT`..:data:`MAX_TIMEOUT`.

    ``where`` names the option or JSON path in the error (``--timeout``, ``timeout``)."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise InputError(where, f"a timeout is a number of seconds, got {quoted(seconds)}", LIMITS)
    if not (math.isfinite(seconds) and MIN_TIMEOUT <= seconds <= MAX_TIMEOUT):
        raise InputError(where, f"a timeout is from {MIN_TIMEOUT:g} to {MAX_TIMEOUT:g} seconds (a day), "
                                f"got {quoted(seconds)}", LIMITS)
    return float(seconds)


def check_flow_steps(steps: int, where: str = "--steps") -> int:
    """A number of flow steps, from 0 to :data:`MAX_FLOW_STEPS`."""
    if not 0 <= steps <= MAX_FLOW_STEPS:
        raise InputError(where, f"the river flows 0 to {MAX_FLOW_STEPS} steps at once (a round flows at most 8, "
                                f"R-FLOW-1), got {quoted(steps)}", LIMITS)
    return steps


# -- a command's time limit ----------------------------------------------------------------------------------

class OutOfTime(Exception):
    """The time limit ran out: whatever was being answered is UNKNOWN, never a guess."""


#: The moment (``time.time()``) the running command must be done by, or None. One value for the whole command,
#: read by every layer that can run long (each z3 question, the searches, the analysis, tasks in other processes):
#: a limit passed down as a number of seconds per call would start again at every call and add up instead.
_DEADLINE: ContextVar[float | None] = ContextVar("niagara_deadline", default=None)


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Within the block, everything stops by ``seconds`` from now (None: no limit), or by the limit already set,
    whichever comes first: solver questions answer unknown, searches and analyses raise :class:`OutOfTime`."""
    with deadline_at(None if seconds is None else time.time() + seconds):
        yield


@contextmanager
def deadline_at(moment: float | None) -> Iterator[None]:
    """Within the block, everything stops by ``moment`` (``time.time()``; a task in another process gets its
    command's moment this way), or by the limit already set, whichever comes first."""
    current = _DEADLINE.get()
    if moment is None or (current is not None and current <= moment):
        yield
        return
    token = _DEADLINE.set(moment)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def deadline() -> float | None:
    """The moment (``time.time()``) the running command must be done by, or None."""
    return _DEADLINE.get()


def time_left(cap: float | None = None) -> float | None:
    """Seconds left before the time limit (0 once past it), at most ``cap``; None when neither limits."""
    moment = _DEADLINE.get()
    left = None if moment is None else max(0.0, moment - time.time())
    if cap is None:
        return left
    return cap if left is None else min(cap, left)


def out_of_time() -> bool:
    """Has the time limit run out?"""
    moment = _DEADLINE.get()
    return moment is not None and time.time() >= moment


def check_time() -> None:
    """Raise :class:`OutOfTime` once the time limit has run out (called between steps of long work)."""
    if out_of_time():
        raise OutOfTime()
