"""The errors niagara-solver raises, each naming what is wrong and the rule it breaks.

Every error the user can cause is a :class:`NiagaraError`. The command line prints it on standard
error as one line and exits with status 2; no traceback reaches the user. How a command ends on each error it
expects (a bad input, a time limit that ran out, an output that cannot be written) is decided here, once:
:func:`failure_of` gives the exit status and the line.
"""

from __future__ import annotations

import difflib
import json
from typing import Iterable, NamedTuple

from niagara_solver.model.verdict import Verdict

#: How many characters of a bad value an error quotes: enough to recognise it, and an error stays one short line
#: even when the value is a whole file's worth of text.
QUOTE_LIMIT = 60
#: How long a JSON path or a message may grow in an error line (paths repeat a document's keys, which may be
#: long or hold line breaks); past it, the rest is cut.
PATH_LIMIT = 120
MESSAGE_LIMIT = 600


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def quoted(value: object) -> str:
    """``repr(value)`` for an error message, cut to :data:`QUOTE_LIMIT` characters and "…"; ``true``, ``false`` and
    ``null`` as a file writes them (never Python's ``True`` or ``None``), and arrays and objects too.

    Every error that quotes a value of the input goes through here, so an error line stays short and on one line
    (``repr`` escapes line breaks and control characters)."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int) and value.bit_length() > 4 * QUOTE_LIMIT:
        # Python writes no integer of more than 4300 digits (and this one would be cut anyway).
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    if isinstance(value, (str, bytes)) and len(value) > 2 * QUOTE_LIMIT:
        value = value[:2 * QUOTE_LIMIT]  # repr of the head only: the rest is cut anyway
    if isinstance(value, (list, dict)):
        try:  # as the file wrote it; a deep or huge value is cut as it is written
            return _cut(json.dumps(value, separators=(", ", ": "))[:4 * QUOTE_LIMIT], QUOTE_LIMIT)
        except (TypeError, ValueError, RecursionError):
            pass
    return _cut(repr(value), QUOTE_LIMIT)


def did_you_mean(word: object, known: Iterable[str]) -> str:
    """``; did you mean "player"?`` when ``word`` is close to one of ``known`` (a mistyped key or name), else ``""``:
    the hint an unknown option gets, for an unknown key of a file too."""
    if not isinstance(word, str) or len(word) > 2 * QUOTE_LIMIT:
        return ""
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f"; did you mean {quoted(close[0])}?" if close else ""


def one_line(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` fit for one line of an error: control characters and line breaks escaped, cut to ``limit``."""
    if len(text) > 2 * limit:
        text = text[:2 * limit]
    if not text.isprintable():
        text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
    return _cut(text, limit)


class NiagaraError(Exception):
    """Base class of every error caused by input (files, options, notation)."""

    exit_status = 2


class InputError(NiagaraError, ValueError):
    """A position, ruleset or board document is malformed or breaks a rule.

    ``path`` is the JSON path of the offending value (``players[1].canoes[0].gem``), ``rule`` the ID of
    the rule it breaks (``R-GEM-5``), or ``FORMAT`` for a shape the position format does not allow.
    """

    def __init__(self, path: str, message: str, rule: str, source: str | None = None) -> None:
        self.path = path
        self.message = message
        self.rule = rule
        self.source = source
        super().__init__(str(self))

    def with_source(self, source: str) -> "InputError":
        """The same error, prefixed with the file it came from."""
        return type(self)(self.path, self.message, self.rule, source)

    def __str__(self) -> str:
        where = f"{one_line(self.source, 4096)}: " if self.source else ""  # a file name is as long as it is
        path = f"{one_line(self.path, PATH_LIMIT)}: " if self.path else ""
        return f"{where}{path}{one_line(self.message)} ({self.rule})"


class BoardError(InputError):
    """A board description is not a valid river (R-BOARD)."""


class RulesetError(InputError):
    """A ruleset names an unknown switch or gives a switch a value it cannot take."""


class PositionError(InputError):
    """A position document is malformed or describes an impossible game state."""


class QueryError(InputError):
    """A position predicate (docs/QUERIES.md) that cannot be read, or asked where it cannot be answered.

    ``column`` is the 1-based column of the offending token in the query's text (None when the query as a whole is
    at fault, e.g. a count the encoding does not hold); it is the error's path, so the line reads
    ``column 9: unknown player 'pink' ... (QUERIES)``. The rule is ``QUERIES`` (``LIMITS`` for a query too long).
    """

    def __init__(self, message: str, column: int | None = None, rule: str = "QUERIES",
                 source: str | None = None) -> None:
        self.column = column
        super().__init__(f"column {column}" if column is not None else "", message, rule, source)

    def with_source(self, source: str) -> "QueryError":
        """The same error, prefixed with where the query came from (an option, a file)."""
        return QueryError(self.message, self.column, self.rule, source)


class TurnError(NiagaraError, ValueError):
    """Base class of errors about a turn written in the turn notation."""

    def __init__(self, message: str, rule: str) -> None:
        self.message = message
        self.rule = rule
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"{one_line(self.message)} ({self.rule})"


class InvalidTurnError(TurnError):
    """The text is not a turn in the notation (docs/NOTATION.md)."""

    def __init__(self, message: str, rule: str = "NOTATION") -> None:
        super().__init__(message, rule)


class IllegalTurnError(TurnError):
    """The turn is well formed but the rules forbid it; ``rule`` names the rule that does."""


class AmbiguousTurnError(TurnError):
    """The turn names a canoe that could be either of the player's two canoes."""

    def __init__(self, message: str, rule: str = "NOTATION") -> None:
        super().__init__(message, rule)


class PhaseError(NiagaraError, ValueError):
    """An operation was asked of a position in the wrong phase of the round (R-ROUND-1)."""

    def __init__(self, message: str, rule: str = "R-ROUND-1") -> None:
        self.message = message
        self.rule = rule
        super().__init__(f"{message} ({rule})")


class GameOverError(PhaseError):
    """A round was asked of a position where the game is over (R-END-2: a round starts and someone reached the goal):
    no round follows the one that ended the game."""

    def __init__(self, message: str, rule: str = "R-END-2") -> None:
        super().__init__(message, rule)


class DeadlockError(NiagaraError):
    """A player has a card but no legal turn with it (a board where R-PROP-10 fails)."""


class Failure(NamedTuple):
    """How a command ends on an error it expects: its exit status and the one line it says on standard error
    (None: nothing to say)."""

    exit_status: int
    message: str | None


#: The errors a command ends on with an exit status and one line rather than a traceback (:func:`failure_of`): a bad
#: input, and what the machine refuses (a time limit that ran out, an output that cannot be written).
EXPECTED = (NiagaraError, OSError)


def failure_of(err: NiagaraError | OSError) -> Failure:
    """How a command ends on ``err``: a bad input with its own exit status (2) and its message; a time limit that ran
    out 3, the answer unknown as any unknown verdict's; an output that cannot be written 2, like a bad input (inputs
    that cannot be read fail as :class:`InputError`); an output closed by its reader (``| head``) 0, silently: the
    reader took what it wanted."""
    if isinstance(err, NiagaraError):
        return Failure(err.exit_status, one_line(str(err), 4096))  # one line, whatever it says
    if isinstance(err, BrokenPipeError):
        return Failure(0, None)
    if isinstance(err, TimeoutError):  # an OSError too, but no output that cannot be written
        return Failure(Verdict.UNKNOWN.exit_status, f"the time limit ran out (--timeout): {one_line(str(err))}")
    where = f" {err.filename}" if err.filename else ""
    return Failure(2, f"cannot write{where}: {err.strerror or err}")
