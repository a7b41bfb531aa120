"""``niagara-solve advise POSITION``: a player's cards ranked by seeded simulated continuations (an estimate beside
the proved answers of ``solve`` and the analysis). A thin layer over :func:`niagara_solver.solver.advice.advise`."""

from __future__ import annotations

import click

from niagara_solver.cli.common import emit_json, load, player_index
from niagara_solver.model.errors import InputError
from niagara_solver.solver.advice import MAX_CONTINUATIONS, advice_player, advise as run_advice


@click.command()
@click.argument("position", type=click.Path(dir_okay=False))
@click.option("--ruleset", "ruleset_spec", metavar="PRESET|FILE.json",
              help="Play the position under this ruleset instead of its own.")
@click.option("--player", "player_name", metavar="NAME",
              help="The player advised (default: the one deciding next: the player to act, or the lifebuoy holder "
                   "at a round's start).")
@click.option("--continuations", type=click.IntRange(1, MAX_CONTINUATIONS), default=40, show_default=True,
              help="Simulated continuations per card; more narrows the intervals.")
@click.option("--rounds", type=click.IntRange(min=1), default=4, show_default=True,
              help="Rounds each continuation is played at most (fewer if the game ends, R-END-2).")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed (same seed, same continuations).")
@click.option("--json", "as_json", is_flag=True, help="The ranking as JSON, each card with its intervals.")
def advise(position: str, ruleset_spec: str | None, player_name: str | None, continuations: int, rounds: int,
           seed: int, as_json: bool) -> int:
    """Rank a player's cards by simulated continuations: wins and gems banked, with 95% intervals (an estimate).

    Each card is played on from the position --continuations times, for at most --rounds rounds, every other
    choice made by the lookahead policy; the same seeds for every card. The proved answers are solve's.

    \b
    Examples:
      niagara-solve advise puzzles/steal-on-the-way-home.json
      niagara-solve advise puzzles/start-4p.json --player blue --continuations 20 --rounds 3 --json
    """
    from niagara_solver.report.text import advice_text
    pos = load(position, ruleset_spec)[0]
    if player_name is not None:
        player = player_index(pos, player_name)
    else:
        found = advice_player(pos)
        if found is None:
            raise InputError("--player", "every player has acted this round: no card is left to choose", "R-TURN-1")
        player = found
    result = run_advice(pos, player, continuations, rounds, seed).to_json()
    if as_json:
        emit_json(result)
    else:
        click.echo(advice_text(result))
    return 0


COMMANDS = [advise]
