"""``niagara-solve mine``: puzzles found in play, a thin layer over :func:`niagara_solver.design.mine.mine` and the
gallery of :mod:`niagara_solver.report.gallery`."""

from __future__ import annotations

import os

import click
from tabulate import tabulate

from niagara_solver.cli.common import (board_option, emit_json, jobs_option, players_counts, players_option,
                                       ruleset_option, scheduler_option, timeout_option)
from niagara_solver.design.mine import HORIZONS, MAX_GAMES
from niagara_solver.model.errors import InputError
from niagara_solver.model.format import load_board, load_ruleset
from niagara_solver.model.limits import REPORT_TIMEOUT

#: Where ``mine`` writes unless told.
DEFAULT_OUT = "mined"


@click.command()
@ruleset_option
@board_option
@players_counts("4", "Player counts of the games")
@click.option("--games", type=click.IntRange(1, MAX_GAMES), default=20, show_default=True,
              help="Games per player count.")
@click.option("--goal", "goals", multiple=True, type=click.Choice(["win", "steal", "safe"]),
              help="A goal to ask at each card choice (repeat for several; default: win and steal).")
@click.option("--horizon", "horizons", multiple=True, type=click.IntRange(min(HORIZONS), max(HORIZONS)),
              help="Rounds to look ahead, 1 or 2 (repeat for both; default: 1).")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed (same seed, same games, same "
                                                                     "puzzles).")
@click.option("--out", "out_dir", default=DEFAULT_OUT, show_default=True, metavar="DIR",
              help="Write each puzzle as a position file here, and gallery.md with a picture per puzzle.")
@click.option("--question-timeout", type=float, default=5.0, show_default=True, metavar="SECONDS",
              help="Time for each question (a position, a player, a goal, a horizon): an answer not proved and "
                   "certified by then is dropped as unknown.")
@click.option("--samples", type=int, default=20, show_default=True,
              help="Card choices sampled per policy (greedy, lookahead) to rate each puzzle.")
@click.option("--rounds", type=click.IntRange(min=1), default=100, show_default=True,
              help="Stop a game after this many rounds.")
@click.option("--html", "html_dir", metavar="DIR",
              help="Also write a page to step through per puzzle here (NAME.html: the solution and each refutation "
                   "replayed by the engine), linked from the gallery.")
@click.option("--gallery-of", "gallery_of", metavar="DIR",
              help="Play no games: write the gallery of the mined puzzle files in DIR into --out (a curated set).")
@jobs_option("the games (5 to a task)")
@scheduler_option("the games (5 to a task)")
@timeout_option(REPORT_TIMEOUT)
@click.option("--json", "as_json", is_flag=True, help="The summary and every puzzle as JSON.")
def mine(ruleset_spec: str, board_spec: str, players_text: str, games: int, goals: tuple[str, ...],
         horizons: tuple[int, ...], seed: int, out_dir: str, question_timeout: float, samples: int, rounds: int,
         html_dir: str | None, gallery_of: str | None, jobs: int, scheduler: str | None, timeout: float,
         as_json: bool) -> int:
    """Mine puzzles from seeded games: positions where exactly one card forces a win, a steal or a safe round.

    Each game is played by the lookahead policy; at every card choice each player is asked the goal within the
    horizon. A position is kept when exactly one card forces it, every answer is certified by the encoding and
    every refutation replayed by the engine; duplicates are dropped. Each puzzle is rated (how often sampled
    policies miss the card) and themed (the rules its proof relies on). docs/MINING.md.

    \b
    Examples:
      niagara-solve mine --players 4 --games 10 --out mined
      niagara-solve mine --players 3-5 --goal steal --horizon 1 --horizon 2 --jobs 2
      niagara-solve mine --ruleset flussgeister --players 4 --games 5 --json
      niagara-solve mine --gallery-of puzzles/mined --out reports/mined
    """
    from niagara_solver.design.mine import DROPS, PHASES, MineSettings, mine as run_mine, write_puzzles, \
        writable_folder
    from niagara_solver.report.gallery import theme_words, write_gallery, write_pages
    if gallery_of is not None:
        from niagara_solver.design.mine import load_mined
        from niagara_solver.model.puzzles import puzzle_paths
        if not os.path.isdir(gallery_of):
            raise InputError("--gallery-of", f"no folder {gallery_of!r}", "FORMAT")
        curated = [load_mined(path) for path in puzzle_paths(gallery_of)]
        pages = write_pages(html_dir, writable_folder(out_dir), curated) if html_dir else None
        page = write_gallery(out_dir, None, curated, f"Mined puzzles: {gallery_of}", pages)
        click.echo(f"gallery of {len(curated)} puzzles: {page}")
        return 0
    settings = MineSettings(load_ruleset(ruleset_spec), load_board(board_spec), tuple(players_option(players_text)),
                            games, goals or ("win", "steal"), horizons or (1,), seed, question_timeout, samples,
                            rounds)
    settings.check()
    for folder in (out_dir, html_dir):
        if folder:
            writable_folder(folder)  # refused now, not after the games
    report = run_mine(settings, jobs, scheduler, show_progress=not as_json)
    write_puzzles(report, out_dir)
    pages = write_pages(html_dir, out_dir, report.puzzles) if html_dir else None
    gallery = write_gallery(out_dir, report, report.puzzles, pages=pages)
    if as_json:
        emit_json({**report.to_json(), "gallery": gallery})
        return 0
    d = report.to_json()
    click.echo(f"mine · ruleset {ruleset_spec} · {', '.join(map(str, settings.players))} players · "
               f"{_count(games, 'game')} each · goals {', '.join(settings.goals)} · horizons "
               f"{', '.join(map(str, settings.horizons))} · seed {seed} · {report.seconds:.1f} s")
    click.echo(f"{_count(d['asked'], 'question')} asked, {_count(d['kept'], 'puzzle')} kept "
               f"({d['per_minute']:.1f} a minute); dropped: "
               + ", ".join(f"{why} {report.dropped[why]}" for why in DROPS)
               + (f"; {report.unplayed} game(s) not played (--timeout)" if report.unplayed else ""))
    click.echo("time: " + ", ".join(f"{ph} {report.phases[ph]:.1f} s" for ph in PHASES))
    rows = [[p.name, p.puzzle["card"], f"{p.difficulty:.0%}", p.puzzle["rating"]["certificate_nodes"],
             theme_words(p.puzzle["themes"])] for p in report.puzzles]
    if rows:
        click.echo("")
        click.echo(tabulate(rows, headers=["puzzle", "card", "difficulty", "proof nodes", "themes"],
                            disable_numparse=True))
    click.echo(f"\npuzzles: {out_dir} · gallery: {gallery}")
    return 0


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


COMMANDS = [mine]
