"""The designers' and CI's commands: ``render``, ``check``, ``diff``, ``report`` and ``sweep``.

Each is a thin layer over a library call (:mod:`..analysis.check`, :mod:`..analysis.diff`,
:mod:`..analysis.sweep`, :mod:`..report`). Long runs show a progress bar on standard error when it is a
terminal, and stay quiet with ``--json``.
"""

from __future__ import annotations

import errno
import os
from typing import Any

import click
from tabulate import tabulate

from niagara_solver.model.errors import InputError, quoted
from niagara_solver.model.limits import PROVE_TIMEOUT, REPORT_TIMEOUT
from niagara_solver.model.switches import value_text
from niagara_solver.report.text import play_text
from niagara_solver.cli.common import ruleset_option
from niagara_solver.design.simulate import MAX_GAMES
from niagara_solver.model.estimates import difference_row
from niagara_solver.play.playout import POLICIES
from niagara_solver.model.format import dumps_position, load_board, load_ruleset
from niagara_solver.cli.common import (BUNDLED, PUZZLES, board_option, command_time_limit, emit_json, jobs_option,
                                       load, parse_card, player_index, players_counts, players_option, scheduler_option,
                                       history_rounds_option, timeout_option)


@click.command()
@click.argument("position", type=click.Path(dir_okay=False))
@click.option("--ruleset", "ruleset_spec", metavar="PRESET|FILE.json",
              help="Play the position under this ruleset instead of its own.")
@click.option("--out", "out_path", metavar="FILE.svg|FILE.png",
              help="Write the picture here, as SVG or PNG by the name's ending (default: SVG on standard output).")
@click.option("--player", "player_name", metavar="NAME", help="Draw this player's turn (with --turn).")
@click.option("--card", "card_text", metavar="CARD",
              help="The card of the turn: 1..6 or cloud; with x_cards also 7, lasso, 123 (default: the player's "
                   "chosen card).")
@click.option("--turn", "turn_text", metavar="TURN", help="A turn in the notation, drawn as a path per acting canoe.")
@click.option("--title", help="The picture's heading.")
def render(position: str, ruleset_spec: str | None, out_path: str | None, player_name: str | None,
           card_text: str | None, turn_text: str | None, title: str | None) -> int:
    """Draw a position as SVG or PNG: the river from port to falls, caves, canoes and cargo, markers and banks.

    \b
    Examples:
      niagara-solve render puzzles/erratum-two-canoes.json --out position.svg
      niagara-solve render puzzles/erratum-two-canoes.json --out position.png
      niagara-solve render puzzles/steal-after-unloading.json --player red --card 4 \\
          --turn "4: -ruby <2 xblue/amber" --out answer.svg
    """
    from niagara_solver.engine.apply import apply_turn
    from niagara_solver.model.notation import Turn
    from niagara_solver.engine.rescue import begin_turns
    from niagara_solver.report.svg import render_svg
    from niagara_solver.model.atoms import Phase
    name = os.path.basename(out_path or "picture.svg")
    kind = os.path.splitext(name)[1].lower()
    if kind not in (".svg", ".png"):  # refused before any work: a picture is never written under a wrong name
        raise InputError("--out", f"a picture is written as FILE.svg or FILE.png, not {quoted(name)}", "FORMAT")
    pos, _ = load(position, ruleset_spec)
    turn = player = None
    if turn_text is not None or player_name is not None:
        if turn_text is None or player_name is None:
            raise InputError("--turn" if turn_text is None else "--player", "a turn is drawn with both --player and "
                             "--turn", "NOTATION")
        player = player_index(pos, player_name)
        turn = Turn.parse(turn_text)
        card = parse_card(card_text) if card_text is not None else None
        # Only a legal turn is drawn (the error names the rule). At a round's start, phase I comes first with
        # no rescue but the forced ones (R-ROUND-1, R-RESCUE-2).
        apply_turn(pos if pos.phase is Phase.TURNS else begin_turns(pos), player, turn, card)
    svg = render_svg(pos, turn, player, title)
    if out_path and kind == ".png":
        from niagara_solver.report.png import png_bytes
        data = png_bytes(svg)
        with open(out_path, "wb") as f:
            f.write(data)
        click.echo(f"wrote {out_path}")
    elif out_path:
        with open(out_path, "w", encoding="utf-8") as f:
            f.write(svg)
        click.echo(f"wrote {out_path}")
    else:
        click.echo(svg, nl=False)
    return 0


@click.command()
@click.option("--ruleset", "ruleset_spec", metavar="PRESET|FILE.json",
              help="Prove under this ruleset and answer every puzzle under it (default: standard for the "
                   "proofs; each puzzle under its own ruleset).")
@board_option
@click.option("--puzzles", "puzzles_dir", type=PUZZLES, metavar="DIR|bundled",
              help="A folder of puzzles with recorded answers; bundled: the puzzles installed with the tool "
                   "(default: none, the proofs alone).")
@players_counts("2-5", "Player counts for the proofs")
@click.option("--property", "ids", multiple=True, metavar="R-PROP-N",
              help="Prove only these (repeatable; default: the catalogue and the X-PROP of every module on).")
@click.option("--junit", "junit_path", metavar="FILE.xml", help="Also write JUnit XML: a test case per property "
              "and per puzzle.")
@jobs_option("the proofs (one per player count) and the puzzles")
@scheduler_option("the proofs (one per player count) and the puzzles")
@timeout_option(PROVE_TIMEOUT)
@history_rounds_option
@click.option("--json", "as_json", is_flag=True, help="The whole report as JSON.")
def check(ruleset_spec: str | None, board_spec: str, puzzles_dir: str | None, players_text: str, ids: tuple[str, ...],
          junit_path: str | None, jobs: int, scheduler: str | None, timeout: float, history_rounds: int,
          as_json: bool) -> int:
    """Rule regressions for CI: prove the catalogue, answer every puzzle (exit 0 pass, 1 fail, 3 unknown).

    \b
    Examples:
      niagara-solve check --puzzles bundled --players 2
      niagara-solve check --puzzles puzzles --junit check-results.xml --jobs 2
    """
    from niagara_solver.design.check import check as run_check
    from niagara_solver.design.histories import history_line
    from niagara_solver.model.verdict import PROOF, STATUS, Verdict
    rules = load_ruleset(ruleset_spec or "standard")
    board = load_board(board_spec)
    counts = players_option(players_text)
    if junit_path and not os.path.isdir(os.path.dirname(os.path.abspath(junit_path))):
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", junit_path)  # now, not after the run
    report = run_check(board, rules, puzzles_dir, counts, ruleset_spec is not None, timeout, jobs, scheduler,
                       show_progress=not as_json, ids=list(ids) or None, history_rounds=history_rounds)
    if junit_path:
        with open(junit_path, "w", encoding="utf-8") as f:
            f.write(report.junit())
    if as_json:
        emit_json(report.to_json())
        return report.exit_status
    proved = len(report.properties_by(Verdict.PROVED))
    refuted = report.properties_by(Verdict.REFUTED)
    unknown = report.properties_by(Verdict.UNKNOWN)
    inapplicable = report.properties_by(None)
    click.echo(f"check · ruleset {rules.describe()} · board {board.name or 'inline'} · players "
               f"{players_text} · {len(report.puzzles)} puzzles · {report.seconds:.1f} s")
    click.echo(f"properties: {proved} proved, {len(refuted)} refuted, {len(unknown)} unknown"
               + (f", {len(inapplicable)} not applicable" if inapplicable else ""))
    invalid = report.puzzles_by(None)
    same = report.puzzles_by(Verdict.CONFIRMED)
    changed = report.puzzles_by(Verdict.REFUTED)
    lost = report.puzzles_by(Verdict.UNKNOWN)
    if report.puzzles:
        click.echo(f"puzzles: {len(same)} as recorded, {len(changed)} changed, {len(invalid)} invalid, "
                   f"{len(lost)} unknown")
    for p in refuted:
        click.echo(f"\nFAIL {p['id']} {p['title']}: refuted with "
                   + ", ".join(f"{n} players" for n, v in p["players"].items() if PROOF.parse(v) is Verdict.REFUTED))
        for line in p.get("trace", []):
            click.echo(f"  {line}")
        if "replay" in p:
            click.echo(f"  replay: {p['replay']}")
        if "history" in p:
            click.echo(f"  history: {history_line(p['history'])}")
    for p in changed:
        answer = p["answer"]
        click.echo(f"\nFAIL puzzle {p['name']}: recorded {p['recorded'].upper()}, now {answer['verdict'].upper()}")
        click.echo(f"  {p['question']}")
        if answer.get("turn"):
            click.echo(f"  now: {play_text(str(answer['card']), answer['turn'])}")
        for r in answer.get("refutations", [])[:5]:
            click.echo(f"  now: {r['option']}: " + (" → ".join(r["answer"]) or "no way through"))
    for p in invalid:
        click.echo(f"\nFAIL puzzle {p['name']}: {p['error']}")
    for p in unknown:
        click.echo(f"\nUNKNOWN {p['id']} {p['title']}: no answer within the time limit ({timeout:g} s)")
    for p in inapplicable:
        click.echo(f"\nNOT APPLICABLE {p['id']} {p['title']}: {p.get('reason', '')} (neither a pass nor a failure)")
    for p in lost:
        click.echo(f"\nUNKNOWN puzzle {p['name']}: no answer within the time limit ({timeout:g} s)")
    nothing = report.verdict is Verdict.CONFIRMED and report.checked_nothing
    click.echo("\n" + STATUS(report.verdict).upper() + (" (nothing that applies was checked)" if nothing else ""))
    if junit_path:
        click.echo(f"JUnit XML written to {junit_path}")
    return report.exit_status


@click.command()
@click.argument("ruleset_a", metavar="RULESET_A")
@click.argument("ruleset_b", metavar="RULESET_B")
@board_option
@players_counts("fewest", "Player counts for the proofs (fewest: the fewest players both rulesets allow, 2 for the "
                "base game, 3 with the expansion's sixth player)")
@click.option("--puzzles", "puzzles_dir", type=PUZZLES, default=BUNDLED, show_default=True, metavar="DIR|bundled",
              help="Answer these puzzles under both rulesets; bundled: the puzzles installed with the tool.")
@click.option("--save", "save_dir", metavar="DIR", help="Write each witness as a position file and an SVG here.")
@jobs_option("the proofs, the puzzles and the witnesses")
@scheduler_option("the proofs, the puzzles and the witnesses")
@timeout_option(PROVE_TIMEOUT)
@history_rounds_option
@click.option("--fastest-win", is_flag=True,
              help="Also the fewest rounds from the setup to a win under each ruleset, per player count (a whole-game "
                   "search: minutes on the standard board, within the time limit; docs/DIFF.md).")
@click.option("--json", "as_json", is_flag=True,
              help="The whole comparison as JSON: switches, properties, puzzles and witnesses.")
def diff(ruleset_a: str, ruleset_b: str, board_spec: str, players_text: str, puzzles_dir: str | None,
         save_dir: str | None, jobs: int, scheduler: str | None, timeout: float, history_rounds: int,
         fastest_win: bool, as_json: bool) -> int:
    """What changes between two rulesets: properties, puzzle answers, and a witness per switch (0, or 3 unknown).

    RULESET_A and RULESET_B are preset names or ruleset files.

    \b
    Examples:
      niagara-solve diff standard bga-2013-05-09 --players 2
      niagara-solve diff standard puzzles/rulesets/free-fork.json --players 2 --save witnesses
    """
    from niagara_solver.design.diff import diff as run_diff
    from niagara_solver.design.diff import fewest_players
    from niagara_solver.design.histories import history_line
    from niagara_solver.report.svg import render_svg
    from niagara_solver.model.catalogue import sentence
    a, b = load_ruleset(ruleset_a, "RULESET_A"), load_ruleset(ruleset_b, "RULESET_B")
    board = load_board(board_spec)
    if players_text == "fewest":
        players_text = str(fewest_players(a, b))
    counts = players_option(players_text)
    if save_dir:
        os.makedirs(save_dir, exist_ok=True)  # fail now, not after the whole run
    report = run_diff(board, a, b, counts, puzzles_dir, timeout, jobs, scheduler, show_progress=not as_json,
                      history_rounds=history_rounds, fastest_win=fastest_win)
    saved: dict[str, list[str]] = {}
    if save_dir:
        os.makedirs(save_dir, exist_ok=True)
        for w in report.witnesses:
            if w.position is None:
                continue
            base = os.path.join(save_dir, f"witness-{w.switch}")
            with open(base + ".json", "w", encoding="utf-8") as f:
                f.write(dumps_position(w.position, {"comment": f"{w.switch}: {w.summary}"}))
            with open(base + ".svg", "w", encoding="utf-8") as f:
                f.write(render_svg(w.position, w.turn, w.player if w.turn is not None else None,
                                   f"{w.switch}: {value_text(w.a)} → {value_text(w.b)}"))
            saved[w.switch] = [base + ".json", base + ".svg"]
    if as_json:
        data = report.to_json()
        for item in data["witnesses"]:
            if item["switch"] in saved:
                item["saved"] = saved[item["switch"]]
        emit_json(data)
        return report.exit_status
    click.echo(f"A: {a.describe()}\nB: {b.describe()}\nboard {board.name or 'inline'} · players {players_text} · "
               f"{report.seconds:.1f} s")
    switches = report.to_json()["switches"]
    if not switches:
        click.echo("\nThe rulesets are the same: nothing differs.")
    else:
        click.echo("\nswitches that differ:")
        click.echo(tabulate([[k, value_text(x), value_text(y)] for k, (x, y) in switches.items()],
                            headers=["switch", "A", "B"], disable_numparse=True))
    click.echo("\nproperties (for all positions):")
    click.echo(tabulate([[p.id, p.title, *(w.upper() for w in p.words), p.change]
                         for p in report.properties], headers=["id", "property", "A", "B", "A → B"]))
    for p in report.properties:
        for side, trace, history in zip("AB", p.traces, p.histories):
            if trace is not None:
                click.echo(f"\n{p.id} is refuted under {side}:")
                for line in trace:
                    click.echo(f"  {line}")
                if history is not None:
                    click.echo(f"  history: {history_line(history)}")
    if report.fastest_wins:
        click.echo("\nfastest possible win (from the setup, every play of all the players):")
        click.echo(tabulate([[f.players, f.a.text, f.b.text, f.change] for f in report.fastest_wins],
                            headers=["players", "A", "B", "A → B"], disable_numparse=True))
    if report.puzzles:
        moved = report.changed_puzzles
        click.echo(f"\npuzzles: {len(report.puzzles) - len(moved)} of {len(report.puzzles)} answer the same; "
                   f"{len(moved)} change")
        if moved:
            click.echo(tabulate([[p.name, *(w.upper() for w in p.words)] for p in moved],
                                headers=["puzzle", "A", "B"]))
    for w in report.witnesses:
        click.echo(f"\nwitness for {w.switch} ({value_text(w.a)} → {value_text(w.b)}):")
        click.echo(f"  {w.summary}")
        for r in w.rules:
            click.echo(f"  {r}: {sentence(r)}")
        if w.engine:
            click.echo(f"  engine: {w.engine}")
        for line in w.detail:
            click.echo(f"  {line}")
        if w.position is not None:
            if w.switch in saved:
                click.echo(f"  written to {saved[w.switch][0]} and {saved[w.switch][1]}")
            else:
                click.echo("  position (position file):")
                click.echo("    " + dumps_position(w.position).rstrip().replace("\n", "\n    "))
    return report.exit_status


@click.command()
@click.option("--out", "out_dir", default="reports", show_default=True, metavar="DIR",
              help="Write the report (README.md and img/) into this folder.")
@board_option
@players_counts("2-5", "Player counts for the proofs")
@click.option("--puzzles", "puzzles_dir", type=PUZZLES, default=BUNDLED, show_default=True, metavar="DIR|bundled",
              help="The puzzles to answer and draw; bundled: the puzzles installed with the tool.")
@click.option("--crosscheck-count", type=click.IntRange(min=0), default=4, show_default=True,
              help="Random playout positions in the cross-check section.")
@click.option("--games", type=click.IntRange(0, MAX_GAMES), default=150, show_default=True,
              help="Simulated games per ruleset in the playtesting section (0: no such section).")
@jobs_option("the report's proofs, mutants, cross-check, puzzles, diffs and games")
@scheduler_option("the report's proofs, mutants, cross-check, puzzles, diffs and games")
@timeout_option(REPORT_TIMEOUT)
def report(out_dir: str, board_spec: str, players_text: str, puzzles_dir: str, crosscheck_count: int, games: int,
           jobs: int, scheduler: str | None, timeout: float) -> int:
    """Write a Markdown report with pictures: proofs, mutants, cross-check coverage, puzzles, diffs, playtesting.

    \b
    Examples:
      niagara-solve report --out reports --jobs 2
      niagara-solve report --out /tmp/report --players 2 --crosscheck-count 0 --games 0
    """
    from niagara_solver.report.markdown import ReportSettings, make_report
    os.makedirs(os.path.join(out_dir, "img"), exist_ok=True)  # fail now, not after the whole run
    settings = ReportSettings(load_board(board_spec), players_option(players_text), puzzles_dir,
                              crosscheck_count=crosscheck_count, timeout=timeout, simulate_games=games)
    written = make_report(out_dir, settings, jobs, scheduler, show_progress=True)
    pictures = sum(p.endswith(".svg") for p in written)
    click.echo(f"wrote {os.path.join(out_dir, 'README.md')} and {pictures} pictures")
    return 0


@click.command()
@click.argument("grid_path", metavar="GRID.json", type=click.Path(dir_okay=False))
@jobs_option("the grid's proofs and puzzles")
@scheduler_option("the grid's proofs and puzzles")
@history_rounds_option
@click.option("--json", "as_json", is_flag=True, help="Every combination's verdicts and the puzzles' answers as JSON.")
def sweep(grid_path: str, jobs: int, scheduler: str | None, history_rounds: int, as_json: bool) -> int:
    """Prove the catalogue and answer the puzzles for every combination of a grid (exit 0, 1 or 3 as check).

    GRID.json lists values for some switches, boards and player counts (docs/DIFF.md).

    \b
    Examples:
      niagara-solve sweep puzzles/grids/steal-after-unload.json
      niagara-solve sweep puzzles/grids/disputed-readings.json --jobs 2
    """
    from niagara_solver.design.histories import history_line
    from niagara_solver.design.sweep import load_grid
    from niagara_solver.design.sweep import sweep as run_sweep
    grid = load_grid(grid_path)
    with command_time_limit(grid.timeout):  # the grid's time limit, for the whole sweep
        result = run_sweep(grid, jobs, scheduler, show_progress=not as_json, history_rounds=history_rounds)
    if as_json:
        emit_json(result.to_json())
        return result.exit_status
    names = list(grid.variants[0][0]) if grid.variants else []
    rows: list[list[Any]] = []
    for r in result.rows:
        verdict = (f"{len(r['proved'])} proved" + (f", REFUTED {' '.join(r['refuted'])}" if r["refuted"] else "")
                   + (f", unknown {' '.join(r['unknown'])}" if r["unknown"] else ""))
        rows.append([*(value_text(r["switches"][n]) for n in names), r["board"], r["players"], verdict,
                     f"{r['seconds']:.1f}"])
    click.echo(f"{_count(len(grid.variants), 'ruleset')} × {_count(len(grid.boards), 'board')} × "
               f"{_count(len(grid.players), 'player count')} = {_count(grid.size, 'proof')} of the catalogue · "
               f"{result.seconds:.1f} s")
    click.echo(tabulate(rows, headers=[*names, "board", "players", "properties", "seconds"]))
    if grid.puzzles:
        prow = []
        for p in result.puzzles:
            changed = ", ".join(f"{c['name']} {c['recorded']}→{c['now']}" for c in p["changed"])
            prow.append([*(value_text(p["switches"][n]) for n in names), len(p["same"]), changed or "-",
                         len(p["invalid"]) or "-", len(p["unknown"]) or "-"])
        click.echo("\npuzzles per ruleset:")
        click.echo(tabulate(prow, headers=[*names, "as recorded", "changed", "invalid", "unknown"]))
    for r in result.rows:
        for pid, trace in r["counterexamples"].items():
            settings = ", ".join(f"{k}={value_text(v)}" for k, v in r["switches"].items())
            click.echo(f"\n{pid} refuted with {settings or 'the base ruleset'}, board {r['board']}, "
                       f"{r['players']} players:")
            for line in trace:
                click.echo(f"  {line}")
            if pid in r["histories"]:
                click.echo(f"  history: {history_line(r['histories'][pid])}")
    return result.exit_status


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


@click.command()
@ruleset_option
@click.option("--compare", "compare_specs", nargs=2, metavar="RULESET_A RULESET_B",
              help="Play the same games (same seeds, same seats) under two rulesets, presets or files, and give each "
                   "figure's change from A to B with its 95% interval.")
@board_option
@players_counts("4", "Player counts to simulate")
@click.option("--games", type=click.IntRange(1, MAX_GAMES), default=100, show_default=True,
              help="Games per player count (and per ruleset with --compare).")
@click.option("--rounds", type=click.IntRange(min=1), default=100, show_default=True,
              help="Stop a game after this many rounds if nobody has reached the goal; it counts as unfinished.")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed (same seed, same games).")
@click.option("--policy", type=click.Choice(sorted(POLICIES)), default="lookahead", show_default=True,
              help="Who plays: lookahead looks ahead through the flow; greedy usually banks, steals or loads most; "
                   "uniform takes any legal choice alike.")
@click.option("--against", type=click.Choice(sorted(POLICIES)), default=None,
              help="Mixed games: one seat plays --policy and every other seat this policy, the seat turning with "
                   "the games; adds --policy's win rate against the fair share.")
@click.option("--out", "out_dir", metavar="DIR",
              help="Write the charts here as SVG, per player count: game lengths and wins by seat.")
@click.option("--html", "html_dir", metavar="DIR",
              help="Write DIR/index.html, every game with the command that plays it again, and a page to step "
                   "through in a browser for each notable game (the first, the shortest, the longest, the most "
                   "falls, steals and rescues).")
@jobs_option("the games (10 to a task)")
@scheduler_option("the games (10 to a task)")
@click.option("--json", "as_json", is_flag=True, help="Every figure with its interval, and every game, as JSON.")
def simulate(ruleset_spec: str, compare_specs: tuple[str, str] | None, board_spec: str, players_text: str,
             games: int, rounds: int, seed: int, policy: str, against: str | None, out_dir: str | None,
             html_dir: str | None, jobs: int, scheduler: str | None, as_json: bool) -> int:
    """Playtest a ruleset: seeded games played by a policy; game length, wins by seat, falls, steals, rescues.

    Also how games end (7 gems, 5 colours or 4 of a colour, R-END-1), every figure with its 95% interval. With
    --compare, the same games under two rulesets and what changes. The figures are estimates from simulated play,
    not proofs.

    \b
    Examples:
      niagara-solve simulate --players 3-5 --games 200 --jobs 2 --out charts
      niagara-solve simulate --compare standard bga-2013-05-09 --games 100 --out charts
      niagara-solve simulate --players 4 --against greedy --games 100
      niagara-solve simulate --players 4 --games 20 --html games
    """
    from niagara_solver.design.simulate import Settings, compare, simulate as run_simulate
    board = load_board(board_spec)
    counts = players_option(players_text)
    if compare_specs:
        a = load_ruleset(compare_specs[0], "--compare RULESET_A")
        b = load_ruleset(compare_specs[1], "--compare RULESET_B")
        pairs = [(Settings(a, board, n, games, seed, policy, against, rounds),
                  Settings(b, board, n, games, seed, policy, against, rounds)) for n in counts]
    else:
        rules = load_ruleset(ruleset_spec)
        runs = [Settings(rules, board, n, games, seed, policy, against, rounds) for n in counts]
    for settings in ([s for pair in pairs for s in pair] if compare_specs else runs):
        settings.check()  # every count and ruleset refused now, not after the first run
    for folder in (out_dir, html_dir):
        if folder:
            os.makedirs(folder, exist_ok=True)  # fail now, not after the games
    charts: list[str] = []
    pages: list[str] = []
    if compare_specs:
        names = _ruleset_names(compare_specs)
        found = [compare(x, y, jobs, scheduler, show_progress=not as_json) for x, y in pairs]
        if out_dir:
            from niagara_solver.report.charts import write_charts
            for c in found:
                charts += write_charts(out_dir, [(names[0], c.a), (names[1], c.b)])
        if html_dir:
            from niagara_solver.report.html import simulation_pages
            pages = simulation_pages(html_dir, [run for c in found
                                                for run in ((compare_specs[0], c.a), (compare_specs[1], c.b))])
        if as_json:
            emit_json({"comparisons": [c.to_json() for c in found], "charts": charts,
                       **({"pages": pages} if html_dir else {})})
            return 0
        for c in found:
            click.echo(_comparison_text(c, names))
    else:
        done = [run_simulate(s, jobs, scheduler, show_progress=not as_json) for s in runs]
        if out_dir:
            from niagara_solver.report.charts import write_charts
            for sim in done:
                charts += write_charts(out_dir, [(ruleset_spec, sim)])
        if html_dir:
            from niagara_solver.report.html import simulation_pages
            pages = simulation_pages(html_dir, [(ruleset_spec, sim) for sim in done])
        if as_json:
            emit_json({"simulations": [sim.to_json() for sim in done], "charts": charts,
                       **({"pages": pages} if html_dir else {})})
            return 0
        click.echo("\n\n".join(_simulation_text(sim, ruleset_spec) for sim in done))
    if charts:
        click.echo(f"\ncharts: {', '.join(charts)}")
    if pages:
        click.echo(f"\npages: {pages[0]} (and {len(pages) - 1} game page(s) beside it)")
    return 0


def _ruleset_names(specs: tuple[str, str]) -> tuple[str, str]:
    """Short names of the compared rulesets (a file by its name), told apart when they would read the same."""
    a, b = (os.path.splitext(os.path.basename(s))[0] for s in specs)
    return (a, b) if a != b else ("A: " + specs[0], "B: " + specs[1])


def _ci(values: dict[str, Any], digits: int = 1, share: bool = False) -> str:
    """``17.0 (16.0–18.0)`` or, for a share, ``30% (21–40%)``."""
    value, low, high = values["value"], values["low"], values["high"]
    if value is None:
        return "-"
    if low is None or high is None:  # one game: no interval
        return f"{100 * value:.0f}%" if share else f"{value:.{digits}f}"
    if share:
        return f"{100 * value:.0f}% ({100 * low:.0f}–{100 * high:.0f}%)"
    return f"{value:.{digits}f} ({low:.{digits}f}–{high:.{digits}f})"


def _simulation_text(sim: Any, ruleset: str) -> str:
    data = sim.to_json()
    s = sim.settings
    length = data["length"]
    head = (f"simulate · ruleset {ruleset} · board {data['board']} · {s.players} players · {len(sim.games)} games "
            f"(seed {s.seed}) · {s.policy}" + (f" against {s.against}" if s.against else "")
            + f" · {sim.seconds:.1f} s")
    lines = [head, "estimates from simulated play, with 95% intervals", "",
             f"game length (rounds, finished games): median {_ci(length['median'], 0)}, mean {_ci(length['mean'])}"
             + (f", quartiles {length['quartiles'][0]:g}–{length['quartiles'][2]:g}" if length["quartiles"] else "")
             + (f", range {length['min']}–{length['max']}" if length["min"] is not None else "")
             + f"; unfinished after {s.max_rounds} rounds: {length['unfinished']}",
             "per game: " + ", ".join(f"{what} {_ci(v)}" for what, v in data["per_game"].items()),
             "games ended by (R-END-1; a game may end by several): "
             + ", ".join(f"{goal} {_ci(v, share=True)}" for goal, v in data["ends"].items()),
             "", tabulate([[f"{x['seat']} (seat {k + 1})", x["wins"]["count"], _ci(x["wins"], share=True)]
                           for k, x in enumerate(data["seats"])], headers=["seat", "wins", "win rate (95% CI)"])]
    if s.against:
        won = data["policy_wins"]
        lines += ["", f"{s.policy} in one seat against {s.against} (the seat turning game by game): won "
                      f"{_ci(won, share=True)} of games; fair share {100 * won['fair_share']:.0f}%"]
    if data["shared_wins"]:
        lines.append(f"shared wins (R-END-3): {data['shared_wins']}; each winner counts one")
    return "\n".join(lines)


def _comparison_text(c: Any, names: tuple[str, str]) -> str:
    s = c.a.settings
    head = (f"simulate --compare · A: {names[0]} · B: {names[1]} · board {s.board.name or 'inline'} · {s.players} "
            f"players · {len(c.a.games)} games each, same seeds (seed {s.seed}) · {s.policy}"
            + (f" against {s.against}" if s.against else "") + f" · {c.a.seconds:.1f} s")
    rows = [difference_row(r) for r in c.to_json()["differences"]]
    return "\n".join([head, "estimates from simulated play; B − A with its 95% interval (an interval that does not "
                            "hold 0 is a difference the games show)", "",
                      tabulate(rows, headers=["measure", "A", "B", "B − A", "95% CI"], disable_numparse=True)])


COMMANDS = [render, check, diff, report, sweep, simulate]
