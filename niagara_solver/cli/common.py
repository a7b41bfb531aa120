"""Helpers shared by the command modules: JSON output and option parsing."""

from __future__ import annotations

from typing import Any

import click

from niagara_solver.model.errors import InputError
from niagara_solver.model.format import dumps


def emit_json(obj: Any) -> None:
    """Write ``obj`` as JSON on standard output."""
    click.echo(dumps(obj))


def players_option(text: str) -> list[int]:
    """``5``, ``2-5`` or ``2,3,5``."""
    try:
        if "-" in text:
            low, high = (int(x) for x in text.split("-", 1))
            counts = list(range(low, high + 1))
        else:
            counts = [int(x) for x in text.split(",")]
    except ValueError:
        raise InputError("--players", f"write a count (5), a range (2-5) or a list (2,3,5), got {text!r}",
                         "R-COMP-1") from None
    if not counts or any(not 2 <= n <= 5 for n in counts):
        raise InputError("--players", f"2 to 5 players play, got {text!r}", "R-COMP-1")
    return counts
