"""Helpers shared by the command modules: JSON output and option parsing."""

from __future__ import annotations

import functools
import os
import time
from typing import Any, Callable, ContextManager, TypeVar

import click

from niagara_solver.model.atoms import MIN_PLAYERS, MOST_PLAYERS, Card
from niagara_solver.model.errors import InputError, quoted
from niagara_solver.model.format import dumps, load_document, load_ruleset
from niagara_solver.model.limits import (HISTORY_ROUNDS, LIMITS, MAX_REACH_ROUNDS, check_flow_steps, check_timeout,
                                         deadline_at)
from niagara_solver.model.position import Position

F = TypeVar("F", bound=Callable[..., Any])


def emit_json(obj: Any) -> None:
    """Write ``obj`` as JSON on standard output."""
    click.echo(dumps(obj))


def players_option(text: str) -> list[int]:
    """``5``, ``2-5`` or ``2,3,5``; every count within R-COMP-1's bounds, checked before a range is listed."""
    try:
        if "-" in text:
            ends = [int(x) for x in text.split("-", 1)]
        else:
            ends = [int(x) for x in text.split(",")]
    except ValueError:
        raise InputError("--players", f"write a count (5), a range (2-5) or a list (2,3,5), got {quoted(text)}",
                         "R-COMP-1") from None
    if any(not MIN_PLAYERS <= n <= MOST_PLAYERS for n in ends):
        raise InputError("--players", f"{MIN_PLAYERS} to {MOST_PLAYERS} players play (6 with x_sixth_player), "
                                      f"got {quoted(text)}", "R-COMP-1")
    counts = list(range(ends[0], ends[1] + 1)) if "-" in text else ends
    if not counts:
        raise InputError("--players", f"an empty range of player counts: {quoted(text)}", "R-COMP-1")
    return counts


class Seconds(click.ParamType):
    """The type of every ``--timeout``: seconds, finite, within the limits of docs/FORMAT.md ("Limits").

    A bad value is an :class:`InputError` (one line naming the option and ``LIMITS``), not a usage error."""

    name = "seconds"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        option = param.opts[0] if param is not None and param.opts else "--timeout"
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                raise InputError(option, f"a timeout is a number of seconds, got {quoted(value)}", LIMITS) from None
        return check_timeout(value, option)


class Steps(click.ParamType):
    """The type of ``flow --steps``: a whole number of flow steps within the limits of docs/FORMAT.md."""

    name = "integer"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        option = param.opts[0] if param is not None and param.opts else "--steps"
        if isinstance(value, str):
            try:
                if len(value) > 30:  # never int() of thousands of digits
                    raise ValueError(value)
                value = int(value)
            except ValueError:
                raise InputError(option, f"a whole number of steps, got {quoted(value)}", LIMITS) from None
        return check_flow_steps(value, option)


class PuzzleFolder(click.ParamType):
    """The type of ``--puzzles``: a folder of puzzle files, or ``bundled``, the puzzles installed with the tool
    (found wherever the command runs, not only in the repository)."""

    name = "folder"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from niagara_solver.model.puzzles import bundled_puzzles
        if value == BUNDLED:
            folder = bundled_puzzles()
            if folder is None:
                self.fail("this installation has no bundled puzzles", param, ctx)
            return folder
        if not os.path.isdir(value):
            self.fail(f"folder {quoted(value)} does not exist (or write {BUNDLED} for the bundled puzzles)", param,
                      ctx)
        return str(value)


#: The word ``--puzzles`` takes for the puzzles installed with the tool.
BUNDLED = "bundled"

#: The shared option types (``type=TIMEOUT`` on every ``--timeout``).
TIMEOUT = Seconds()
STEPS = Steps()
PUZZLES = PuzzleFolder()


#: When the running command began (``time.time()``): the start of the process for the console command, so that
#: its time limit counts the start-up too (loading the tool takes about a second); None when the command line is
#: run from Python (``main(argv)``), where the limit counts from the call.
_began: list[float] = []


def began_at_process_start() -> None:
    """Count the console command's time limit from the start of its process (read from /proc on Linux; from now
    elsewhere)."""
    _began[:] = [_process_start()]


def _process_start() -> float:
    try:
        with open("/proc/self/stat", encoding="ascii") as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])  # field 22, after the command's name
        with open("/proc/uptime", encoding="ascii") as f:
            uptime = float(f.read().split()[0])
        age = uptime - ticks / os.sysconf("SC_CLK_TCK")
        return time.time() - max(0.0, min(age, 60.0))  # a sane age: a command started moments ago
    except (OSError, ValueError, IndexError):
        return time.time()


def command_time_limit(seconds: float | None) -> ContextManager[None]:
    """The command's time limit: ``seconds`` from when the command began (see :data:`_began`)."""
    if seconds is None:
        return deadline_at(None)
    return deadline_at((_began[0] if _began else time.time()) + seconds)


def timeout_option(default: float) -> Callable[[F], F]:
    """The one ``--timeout SECONDS`` option: the command's time limit, the same meaning in every command that
    takes one (README.md, "Time limits"); only the default differs, by what a run usually costs. The command runs
    within it (:func:`command_time_limit`): every solver question, search and task of the command stops by then."""
    def decorate(command: F) -> F:
        @functools.wraps(command)
        def within(*args: Any, **kwargs: Any) -> Any:
            with command_time_limit(kwargs["timeout"]):
                return command(*args, **kwargs)
        option = click.option("--timeout", type=TIMEOUT, default=default, show_default=True, metavar="SECONDS",
                              help="The command's time limit: it ends within it (10% + 1 s) and whatever is not "
                                   "answered by then is UNKNOWN.")
        return option(within)  # type: ignore[return-value]
    return decorate


#: ``--history-rounds K`` wherever counterexamples are printed (prove, check, diff, sweep): does a game reach each?
history_rounds_option = click.option(
    "--history-rounds", "history_rounds", type=click.IntRange(min=0, max=MAX_REACH_ROUNDS), default=HISTORY_ROUNDS,
    show_default=True, metavar="K",
    help="Ask of each counterexample whether a game reaches it, searching histories of at most K rounds within the "
         "time limit (0: counting alone).")


def players_counts(default: str, what: str = "Player counts") -> Callable[[F], F]:
    """The one ``--players COUNTS`` option (prove, mutants, check, diff, report), read by :func:`players_option`:
    a count, a range or a list everywhere, only the default differs by command."""
    return click.option("--players", "players_text", default=default, show_default=True, metavar="COUNTS",
                        help=f"{what}: a count (2), a range (2-5) or a list (2,3,5).")


#: ``--board`` wherever a command proves or checks (prove, mutants, crosscheck, check, diff, report).
board_option = click.option("--board", "board_spec", default="standard", show_default=True, metavar="PRESET|FILE.json",
                            help="The river: a board preset or a board file (docs/FORMAT.md).")


def jobs_option(tasks: str) -> Callable[[F], F]:
    """The one ``--jobs N`` option: the command's independent ``tasks`` (its proofs and puzzles, its games, ...) in
    N local processes, the same results whatever N; only the tasks named differ by command."""
    return click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
                        help=f"Run {tasks} in this many processes (the same results whatever N).")


def scheduler_option(tasks: str) -> Callable[[F], F]:
    """The one ``--scheduler ADDRESS`` option: the command's independent ``tasks`` on a Dask cluster."""
    return click.option("--scheduler", metavar="ADDRESS",
                        help=f"Run {tasks} on a Dask cluster (tcp://host:8786); needs the dask extra.")


#: ``--ruleset`` wherever a command proves or checks under one ruleset, the standard one unless told.
ruleset_option = click.option("--ruleset", "ruleset_spec", default="standard", show_default=True,
                              metavar="PRESET|FILE.json",
                              help="The rules: a preset (standard, bga-2013-05-09, ...) or a ruleset file.")


def load(position: str, ruleset_spec: str | None) -> tuple[Position, dict[str, Any]]:
    """A position file and its extra fields, under its own ruleset or under ``--ruleset``."""
    return load_document(position, load_ruleset(ruleset_spec) if ruleset_spec else None)


def player_index(pos: Position, name: str, option: str = "--player") -> int:
    """The seat of the player named ``name`` (an error naming the players otherwise)."""
    try:
        return pos.index(name)
    except KeyError:
        raise InputError(option, f"unknown player {quoted(name)}; players: "
                         f"{', '.join(p.name for p in pos.players)}", "R-COMP-1") from None


def parse_card(text: str, option: str = "--card") -> Card:
    """A card written as ``1``..``6`` or ``cloud`` (R-COMP-2)."""
    try:
        return Card.parse(text)
    except ValueError as err:
        raise InputError(option, str(err), "R-COMP-2") from None
