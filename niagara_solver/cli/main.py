"""The ``niagara-solve`` command line. Every command is a thin layer over a library call.

Exit status: 0 success, 2 bad input (a message on standard error naming the JSON path and the rule).
Standard output carries only the answer, so ``--json`` output can be piped.
"""

from __future__ import annotations

import difflib
import os
import sys
from typing import Any, Callable, Sequence

import click
from tabulate import tabulate

from niagara_solver.engine.apply import CanoeReport, apply_turn
from niagara_solver.engine.flow import flow_report, parse_choices
from niagara_solver.model.notation import Rescue, Turn
from niagara_solver.play.playout import POLICIES, play_out
from niagara_solver.engine.rescue import begin_turns, must_rescue, rescue_options
from niagara_solver.engine.round import goes_on, play_round
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.errors import (EXPECTED, GameOverError, InputError, NiagaraError, TurnError, failure_of,
                                         one_line, quoted)
from niagara_solver.model.atoms import Phase
from niagara_solver.model.limits import (ANALYZE_TIMEOUT, CASE_TIMEOUT, CROSSCHECK_TIMEOUT, MAX_HORIZON, PROVE_TIMEOUT,
                                         SOLVE_TIMEOUT)
from niagara_solver.model.catalogue import sentence
from niagara_solver.model.format import dumps, dumps_position, load_board, load_ruleset, position_to_json
from niagara_solver.model.position import Position
from niagara_solver.model.verdict import PROOF, Verdict
from niagara_solver.report import text as render
from niagara_solver.cli.common import emit_json as _emit_json
from niagara_solver.cli.common import load as _load
from niagara_solver.cli.common import parse_card as _card
from niagara_solver.cli.common import player_index as _player_index
from niagara_solver.cli.common import players_option as _players_option
from niagara_solver.jobs import tune_collector
from niagara_solver.cli.common import (STEPS, TIMEOUT, began_at_process_start, board_option, jobs_option,
                                       history_rounds_option, players_counts, ruleset_option, timeout_option)


class NoSuchCommand(NiagaraError):
    """The first word is not a command, but close to one's name (a mistyped command, not a position file)."""


class _Group(click.Group):
    """A group where ``niagara-solve POSITION`` means ``niagara-solve analyze POSITION``.

    A first word that is neither a command nor an existing file is not read as a position file: a word close to a
    command's name is a mistyped command (``shwo``), anything else a file that does not exist."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            if not os.path.exists(args[0]):
                raise self._not_a_command(args[0])
            args = ["analyze", *args]
        return super().parse_args(ctx, args)

    def resolve_command(self, ctx: click.Context,
                        args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        ctx.meta["niagara-solve.command"] = (name, command)
        return name, command, rest

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError as err:
            # The reader took what it wanted (``| head``). Click would end such a command with status 1, the status
            # of a failed check; it ends as failure_of says (0), in main.
            raise _OutputClosed() from err
        except click.UsageError as err:
            # Some of click's errors (an option without its value) do not say which command they belong to.
            if err.ctx is None and "niagara-solve.command" in ctx.meta:
                name, command = ctx.meta["niagara-solve.command"]
                err.ctx = click.Context(command, info_name=name, parent=ctx)
            raise

    def _not_a_command(self, word: str) -> NiagaraError:
        names = sorted(self.commands)
        # A bare word may be a mistyped command; a word with a dot or a slash is a file name.
        bare = len(word) <= 30 and not any(mark in word for mark in "./\\")
        close = difflib.get_close_matches(word, names, n=3, cutoff=0.6) if bare else []
        if close:
            options = [f'"{name}"' for name in close]
            listed = options[0] if len(options) == 1 else f"{', '.join(options[:-1])} or {options[-1]}"
            return NoSuchCommand(f'no such command "{one_line(word, 30)}"; did you mean {listed}?')
        return InputError("", "no such file, and no command of that name; the commands (niagara-solve --help): "
                          + ", ".join(names), "FORMAT", word)


def _ruleset_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--ruleset", "ruleset_spec", metavar="PRESET|FILE.json",
                        help="Play the position under this ruleset instead of its own.")(command)


#: How ``--rescue`` is written, in its help and in the notes that point to it: one spelling.
_RESCUE = "--rescue NAME=CHOICE"
#: What a CHOICE of ``--rescue`` is (R-RESCUE-1).
_RESCUE_CHOICES = "none, free, or the colour paid"


def _rescue_option(command: Callable[..., Any]) -> Callable[..., Any]:
    option, metavar = _RESCUE.split()
    return click.option(option, "rescue_texts", multiple=True, metavar=metavar,
                        help="A phase I decision for a start-of-round position, once per player (repeatable): "
                             f"{_RESCUE_CHOICES} (R-RESCUE-1).")(command)


#: Each player gives ``round`` one value of each kind, the rule that says so, and how to say it in an error.
_ONCE = {"card": ("R-CARD-1", "plays one card a round"), "turn": ("R-TURN-1", "acts once a round"),
         "rescue": ("R-RESCUE-1", "decides phase I once")}


def _pairs(pos: Position, values: Sequence[tuple[str, str]], kind: str) -> dict[int, tuple[str, str]]:
    """``NAME=VALUE`` options by seat: each player's value and the option that gave it, at most one per player."""
    out: dict[int, tuple[str, str]] = {}
    for option, value in values:
        name, eq, rest = value.partition("=")
        if not eq:
            raise InputError(option, f"write {option} NAME=VALUE, got {value!r}", "FORMAT")
        try:
            index = pos.index(name.strip())
        except KeyError:
            raise InputError(option, f"unknown player {name.strip()!r}; players: "
                             f"{', '.join(p.name for p in pos.players)}", "R-COMP-1") from None
        if index in out:
            rule, once = _ONCE[kind]
            raise InputError(option, f"{name.strip()} {once}, given twice: {quoted(out[index][1])} and "
                             f"{quoted(rest.strip())}", rule)
        out[index] = (option, rest.strip())
    return out


def _rescues(pos: Position, values: Sequence[str]) -> dict[int, Rescue]:
    return {i: Rescue.parse(text)
            for i, (_, text) in _pairs(pos, [("--rescue", v) for v in values], "rescue").items()}


class _TurnsTaken(dict[int, Turn]):
    """The turns of a round, remembering whose turn was taken last: when a turn breaks a rule, the error can name
    the player whose turn it was."""

    taken: int | None = None

    def __getitem__(self, player: int) -> Turn:
        self.taken = player
        return super().__getitem__(player)

    def get(self, player: int, default: Any = None) -> Any:
        self.taken = player
        return super().get(player, default)


def _to_turns_phase(pos: Position, rescues: dict[int, Rescue], notes: list[str]) -> Position:
    """A start-of-round position taken into phase II (R-ROUND-1), saying which rescues were assumed."""
    if pos.phase is Phase.TURNS:
        return pos
    pending = [p.name for i, p in enumerate(pos.players)
               if i not in rescues and len(rescue_options(pos, i)) > 1 and not must_rescue(p)]
    turned = begin_turns(pos, rescues)
    made = [f"{pos.players[i].name} {r}" for i, r in rescues.items() if r.payments]
    forced = [p.name for i, p in enumerate(pos.players) if i not in rescues and must_rescue(p)]
    if made or forced:
        notes.append("phase I: rescues " + ", ".join(made + [f"{n} free (R-RESCUE-2)" for n in forced]))
    if pending:
        notes.append(f"phase I: no rescue assumed for {', '.join(pending)} (R-RESCUE-1; use {_RESCUE}, CHOICE "
                     f"{_RESCUE_CHOICES})")
    return turned


def _canoe_json(report: CanoeReport) -> dict[str, Any]:
    return {"start": report.start, "end": report.end, "spent": report.spent,
            "loaded": [c.label for c in report.loaded], "unloaded": [c.label for c in report.unloaded],
            "banked": [c.label for c in report.banked],
            "stolen": [{"from": v, "gem": c.label} for v, c in report.stolen]}


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="niagara-solver")
def cli() -> None:
    """Rules verification and puzzle solving for the board game Niagara.

    \b
    niagara-solve POSITION          analyse a position file (same as: analyze POSITION)
    niagara-solve solve POSITION [--player NAME] [--goal win|steal|safe] [--horizon H] [--backend B]
    niagara-solve certify POSITION CERTIFICATE   check a solver answer's saved certificate
    niagara-solve show POSITION     picture of the river, caves, canoes and players
    niagara-solve turns POSITION --player NAME [--card CARD]
    niagara-solve flow POSITION --steps K
    niagara-solve round POSITION --play NAME=CARD ... --act NAME=TURN ...
    niagara-solve play POSITION [--seed S] [--rounds N]
    niagara-solve advise POSITION [--player NAME] [--continuations N]
    niagara-solve why POSITION --player NAME --card CARD --turn TURN
    niagara-solve prove [--ruleset R] [--board B] [--players COUNTS] [--property ID ...]
    niagara-solve mutants [--players COUNTS] [--mutant NAME ...]
    niagara-solve crosscheck [--count N] [--seed S]
    niagara-solve render POSITION [--out FILE.svg] [--player NAME --card CARD --turn TURN]
    niagara-solve check [--ruleset R] [--puzzles DIR] [--junit FILE.xml] [--jobs N]
    niagara-solve diff RULESET_A RULESET_B [--board B] [--players COUNTS] [--save DIR]
    niagara-solve report [--out reports/] [--jobs N]
    niagara-solve sweep GRID.json [--jobs N | --scheduler ADDRESS]
    niagara-solve simulate [--ruleset R | --compare A B] [--players COUNTS] [--games G] [--out DIR]
    niagara-solve mine [--players COUNTS] [--games G] [--goal win|steal|safe] [--horizon 1|2] [--out DIR]
    niagara-solve reach TARGET [--from POSITION | --players N] [--rounds K] [--trace FILE]
    niagara-solve invariant EXPR [--from POSITION | --players N] [--rounds K] [--trace FILE]
    niagara-solve replay TRACE [--html PAGE]
    niagara-solve history POSITION [--rounds K] [--trace FILE]

    Each command's --help lists its options and examples. An option means the same in every command that takes it
    (README.md, "Options").

    \b
    Examples:
      niagara-solve puzzles/steal-on-the-way-home.json
      niagara-solve turns puzzles/erratum-two-canoes.json --player red
      niagara-solve show --help
    """


@cli.command()
@click.argument("position", type=click.Path(dir_okay=False))
@_ruleset_option
def show(position: str, ruleset_spec: str | None) -> int:
    """Show a position: the river from port to falls, caves, canoes, markers, hands and banks.

    \b
    Examples:
      niagara-solve show puzzles/erratum-two-canoes.json
      niagara-solve show puzzles/erratum-two-canoes.json --ruleset bga-2013-05-09
    """
    click.echo(render.show(_load(position, ruleset_spec)[0]))
    return 0


@cli.command()
@click.argument("position", type=click.Path(dir_okay=False))
@_ruleset_option
@click.option("--player", "player_name", required=True, metavar="NAME", help="The player whose turns to list.")
@click.option("--card", "card_text", metavar="CARD",
              help="The card played: 1..6 or cloud; with x_cards also 7, lasso, 123 (default: the player's chosen "
                   "card).")
@_rescue_option
@click.option("--json", "as_json", is_flag=True, help="A JSON array of {turn, position, canoes}.")
def turns(position: str, ruleset_spec: str | None, player_name: str, card_text: str | None,
          rescue_texts: tuple[str, ...], as_json: bool) -> int:
    """Every distinct legal turn of a player with a card, and where it leads.

    \b
    Examples:
      niagara-solve turns puzzles/erratum-two-canoes.json --player red
      niagara-solve turns puzzles/erratum-two-canoes.json --player blue --card 3 --json
    """
    pos = _load(position, ruleset_spec)[0]
    player = _player_index(pos, player_name)
    card = _card(card_text) if card_text is not None else None
    notes: list[str] = []
    pos = _to_turns_phase(pos, _rescues(pos, rescue_texts), notes)
    nxt = pos.next_to_act()
    if nxt is not None and nxt != player and player not in pos.acted:
        notes.append(f"{pos.players[nxt].name} acts before {player_name} this round (R-TURN-1); these are "
                     f"{player_name}'s turns as if it were their turn now")
    outcomes = legal_turns(pos, player, card)
    played = outcomes[0].position.players[player].card if outcomes else card
    rows, items = [], []
    for k, outcome in enumerate(outcomes, start=1):
        result = apply_turn(pos, player, outcome.turn, played)
        if as_json:
            items.append({"turn": str(outcome.turn), "position": position_to_json(outcome.position),
                          "canoes": [_canoe_json(r) for r in result.canoes]})
        elif outcome.turn.is_cloud:
            rows.append([k, str(outcome.turn), f"weather {pos.weather:+d} -> {outcome.position.weather:+d}",
                         "", "", "", "", ""])
        else:
            rows.append([k, str(outcome.turn), *render.report_cells(result.canoes)])
    if as_json:
        _emit_json(items)
        return 0
    for note in notes:
        click.echo(f"note: {note}")
    label = played.label if played is not None else "?"
    click.echo(f"{player_name} with {label}: {len(outcomes)} distinct legal turn(s)")
    if rows:
        click.echo(tabulate(rows, headers=["#", "turn", "spent", "ends", "loaded", "unloaded", "banked", "stolen"]))
    return 0


@cli.command()
@click.argument("position", type=click.Path(dir_okay=False))
@_ruleset_option
@click.option("--steps", type=STEPS, required=True, help="How many single steps the river flows.")
@click.option("--branches", metavar="L,R,...",
              help="With fork_policy free: each step's branch, e.g. L,R,L (default: every outcome).")
@click.option("--json", "as_json", is_flag=True, help="The resulting position (an array of outcomes under free).")
def flow(position: str, ruleset_spec: str | None, steps: int, branches: str | None, as_json: bool) -> int:
    """Let the river flow K single steps (phase III alone, R-FLOW).

    \b
    Examples:
      niagara-solve flow puzzles/long-river.json --steps 2
      niagara-solve flow puzzles/long-river.json --steps 2 --json
    """
    pos = _load(position, ruleset_spec)[0]
    report = flow_report(pos, steps, parse_choices(branches, pos, steps) if branches is not None else None)
    if as_json:
        _emit_json(report.to_json())
    else:
        click.echo(render.flow_text(report))
    return 0


@cli.command()
@click.argument("position", type=click.Path(dir_okay=False), required=False)
@_ruleset_option
@click.option("--players", "new_game", metavar="COUNTS",
              help="Without POSITION: a new game of this many players at the start of round 1, under --ruleset "
                   "(default standard), e.g. --ruleset flussgeister --players 5. Written as everywhere (a count, a "
                   "range, a list); play plays one game, so one count (simulate plays several).")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed (same seed, same game).")
@click.option("--rounds", type=click.IntRange(min=1), default=100, show_default=True,
              help="Stop after this many rounds if the game has not ended.")
@click.option("--policy", type=click.Choice(sorted(POLICIES)), default="lookahead", show_default=True,
              help="lookahead: looks ahead through the flow (docs/DECISIONS.md); greedy: usually the turn that banks, "
                   "steals or loads most; uniform: any legal choice alike.")
@click.option("--json", "as_json", is_flag=True, help="Every round and the final position as JSON.")
@click.option("--html", "html_file", type=click.Path(dir_okay=False), metavar="FILE",
              help="Also write the game as one page to step through in a browser: a picture per phase and turn, "
                   "each round's cards, rescues, turns and flow.")
def play(position: str | None, ruleset_spec: str | None, new_game: str | None, seed: int, rounds: int, policy: str,
         as_json: bool, html_file: str | None) -> int:
    """A seeded random playout, round by round, until the game ends or --rounds rounds were played: from a
    position, or a new game (--players N under --ruleset).

    \b
    Examples:
      niagara-solve play puzzles/start-4p.json --seed 7
      niagara-solve play puzzles/start-4p.json --seed 7 --rounds 5 --policy uniform --json
      niagara-solve play --ruleset flussgeister --players 6 --seed 3
      niagara-solve play puzzles/start-4p.json --seed 0 --html game.html
    """
    if (position is None) == (new_game is None):
        raise click.UsageError("give a POSITION, or --players N for a new game (not both)")
    if position is None:
        from niagara_solver.model.format import load_ruleset
        from niagara_solver.design.simulate import start_position
        from niagara_solver.model.board import standard_board
        rules = load_ruleset(ruleset_spec or "standard")
        assert new_game is not None
        counts = _players_option(new_game)  # COUNTS as in every command (R-COMP-1), then one of them
        if len(counts) != 1:
            raise InputError("--players", f"play plays one game: give one count of players, not {quoted(new_game)} "
                                          f"(simulate --players {new_game} plays games of several counts)", "R-COMP-1")
        rules.check_players(counts, "--players")
        pos = start_position(standard_board(), rules, counts[0])
    else:
        pos = _load(position, ruleset_spec)[0]
    game = play_out(pos, seed, rounds, policy, None if as_json else lambda r: click.echo(render.round_text(r)))
    if html_file:
        from niagara_solver.report.html import play_page, write_page
        source = position if position is not None else f"a new game of {len(pos.players)} players"
        write_page(html_file, play_page(pos, game.records, source, seed, policy))
    if as_json:
        _emit_json(game.to_json())
        return 0
    click.echo("\n" + render.playout_end(game))
    if html_file:
        click.echo(f"page: {html_file}")
    return 0


@cli.command(name="round")
@click.argument("position", type=click.Path(dir_okay=False))
@_ruleset_option
@click.option("--play", "play_texts", multiple=True, metavar="NAME=CARD",
              help="A player's card, 1..6 or cloud (with x_cards also 7, lasso, 123), once per player "
                   "(repeatable; R-CARD-1).")
@click.option("--act", "act_texts", multiple=True, metavar="NAME=TURN",
              help="A player's turn in the notation (docs/NOTATION.md), once per player (repeatable; R-TURN-1).")
@click.option("--card", "card_texts", multiple=True, hidden=True, metavar="NAME=CARD",
              help="The earlier spelling of --play.")
@click.option("--turn", "turn_texts", multiple=True, hidden=True, metavar="NAME=TURN",
              help="The earlier spelling of --act.")
@_rescue_option
@click.option("--branches", metavar="L,R,...", help="With fork_policy free: each flow step's branch, e.g. L,R.")
@click.option("--json", "as_json", is_flag=True, help="The round and the position after it, as JSON.")
def round_(position: str, ruleset_spec: str | None, play_texts: tuple[str, ...], act_texts: tuple[str, ...],
           card_texts: tuple[str, ...], turn_texts: tuple[str, ...], rescue_texts: tuple[str, ...],
           branches: str | None, as_json: bool) -> int:
    """Play one whole round from given cards and turns, checking every rule (replays traces).

    Each player's card is --play NAME=CARD (unless the position records it), each player's turn --act NAME=TURN,
    in any order: players act from the lifebuoy holder on (R-TURN-1).

    \b
    Examples:
      niagara-solve round puzzles/erratum-two-canoes.json --play blue=3 \\
          --act 'red=4: <port; port: >5' --act 'blue=2: <port; 6L: <3'
      niagara-solve round puzzles/erratum-two-canoes.json --play blue=3 \\
          --act 'red=4: <port; port: >5' --act 'blue=2: <port; 6L: <3' --json
    """
    pos = _load(position, ruleset_spec)[0]
    try:
        goes_on(pos)  # no round follows the one that ended the game
    except GameOverError as err:
        raise InputError("", err.message, err.rule, position) from None
    played = _pairs(pos, [("--play", v) for v in play_texts] + [("--card", v) for v in card_texts], "card")
    cards = {i: _card(text, f"{option} {pos.players[i].name}") for i, (option, text) in played.items()}
    acts = _pairs(pos, [("--act", v) for v in act_texts] + [("--turn", v) for v in turn_texts], "turn")
    turn_map = _TurnsTaken()
    for i, (option, text) in acts.items():
        try:
            turn_map[i] = Turn.parse(text)
        except TurnError as err:
            raise InputError(f"{option} {pos.players[i].name}", err.message, err.rule) from None
    rescues = _rescues(pos, rescue_texts)
    try:
        record = play_round(pos, cards, turn_map, rescues, None)
    except TurnError as err:
        if turn_map.taken is None:  # before any turn: phase I (rescues, cards)
            raise
        option = acts[turn_map.taken][0] if turn_map.taken in acts else "--act"
        raise InputError(f"{option} {pos.players[turn_map.taken].name}", err.message, err.rule) from None
    if branches is not None:
        choices = parse_choices(branches, record.before_flow, record.flow)
        record = play_round(pos, cards, turn_map, rescues, choices)
    if as_json:
        _emit_json(record.to_json())
        return 0
    click.echo(render.round_text(record))
    click.echo("")
    click.echo(render.show(record.end))
    return 0


@cli.command()
@click.argument("position", type=click.Path(dir_okay=False))
@_ruleset_option
@_rescue_option
@timeout_option(ANALYZE_TIMEOUT)
@click.option("--continuations", type=click.IntRange(min=0), default=20, show_default=True,
              help="Simulated continuations per card for the advice to the player deciding next (an estimate; 0: "
                   "none; niagara-solve advise for more).")
@click.option("--json", "as_json", is_flag=True, help="The analysis as JSON.")
def analyze(position: str, ruleset_spec: str | None, rescue_texts: tuple[str, ...], timeout: float,
            continuations: int, as_json: bool) -> int:
    """Analyse a position for every player: forced wins this round, steal chances, threats, falls, flows.

    The default command: niagara-solve POSITION is niagara-solve analyze POSITION.

    \b
    Examples:
      niagara-solve puzzles/steal-on-the-way-home.json
      niagara-solve analyze puzzles/erratum-two-canoes.json --json
    """
    from niagara_solver.solver.analysis import analyze as run_analysis
    pos, extras = _load(position, ruleset_spec)
    rescues = _rescues(pos, rescue_texts)
    notes: list[str] = []
    target = pos
    if rescues:
        target = _to_turns_phase(pos, rescues, notes)
    from niagara_solver.jobs import Progress
    with Progress(0, "analyze:", not as_json) as bar:  # on a terminal only
        result = run_analysis(target, timeout, progress=bar.step if bar.enabled else None,
                              continuations=continuations)
    if as_json:
        _emit_json({"position": position_to_json(pos), **result.to_json(), "notes": notes})
        return 0
    click.echo(render.show(pos))
    puzzle = extras.get("puzzle")
    if isinstance(puzzle, dict) and puzzle.get("question"):
        click.echo(f"\npuzzle: {puzzle['question']}")
    if result.finished:
        return 0
    for note in notes:
        click.echo(f"note: {note}")
    click.echo(render.analysis_text(result.to_json()))
    return 0


def _save_counterexample(folder: str, name: str, ce: Any) -> str:
    import os
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{name}.json")
    with open(path, "w", encoding="utf-8") as f:
        f.write(dumps_position(ce.position, {"comment": " | ".join([*ce.trace, ce.replay])}))
    from niagara_solver.report.svg import Change, render_svg
    # And its picture, with what the phase changed: the fork markers after it, the branches a flow took.
    change = Change(ce.after.forks, ce.steps, None if ce.branches is None else tuple(ce.branches))
    with open(os.path.join(folder, f"{name}.svg"), "w", encoding="utf-8") as f:
        f.write(render_svg(ce.position, ce.turn, ce.player, title=f"{name}: {ce.choices}", change=change))
    return path


def _save_trace(folder: str, name: str, trace: dict[str, Any]) -> str:
    import os
    path = os.path.join(folder, f"{name}.json")
    with open(path, "w", encoding="utf-8") as f:
        f.write(dumps(trace) + "\n")
    return path


@cli.command()
@ruleset_option
@board_option
@players_counts("2-5")
@click.option("--property", "ids", multiple=True, metavar="R-PROP-N", help="Check only these (repeatable).")
@timeout_option(PROVE_TIMEOUT)
@click.option("--save", "save_dir", metavar="DIR", help="Write each counterexample as a position file here (and the "
              "history of one a game reaches as a trace file).")
@history_rounds_option
@click.option("--json", "as_json", is_flag=True, help="An object with a \"properties\" array.")
def prove(ruleset_spec: str, board_spec: str, players_text: str, ids: tuple[str, ...], timeout: float,
          save_dir: str | None, history_rounds: int, as_json: bool) -> int:
    """Prove the rule properties R-PROP-1..16 for all valid positions (exit 0 proved, 1 refuted, 3 unknown).

    \b
    Examples:
      niagara-solve prove --ruleset bga-2013-05-09 --players 2 --property R-PROP-3
      niagara-solve prove --ruleset puzzles/rulesets/free-fork.json --players 2 --property R-PROP-2 --save cex
    """
    from niagara_solver.design.histories import history_line, prove_with_histories
    from niagara_solver.verify.catalogue import check_ids
    rules, board = load_ruleset(ruleset_spec), load_board(board_spec)
    if save_dir:
        import os
        os.makedirs(save_dir, exist_ok=True)  # fail now, not after the proofs
    check_ids(ids)
    counts = _players_option(players_text)
    from niagara_solver.jobs import Progress
    from niagara_solver.verify.properties import BY_ID, catalogue_for, not_applicable
    asked = [BY_ID[i] for i in ids] if ids else catalogue_for(rules)
    steps = sum(not not_applicable(p, rules) for p in asked) * len(counts)
    with Progress(steps, "prove", not as_json) as bar:  # on a terminal only
        report = prove_with_histories(board, rules, counts, list(ids) or None, timeout,
                                      progress=bar.step if bar.enabled else None, history_rounds=history_rounds)
    rows, items = [], []
    for merged in report.properties:
        result = merged.result
        item = merged.to_json()
        if merged.refuted is not None and save_dir:
            n, refuted = merged.refuted
            assert refuted.counterexample is not None
            item["saved"] = _save_counterexample(save_dir, f"{merged.id}-{n}p", refuted.counterexample)
            if merged.history is not None and "trace" in merged.history:
                item["history"]["saved"] = _save_trace(save_dir, f"{merged.id}-{n}p-history", merged.history["trace"])
        items.append(item)
        rows.append([merged.id, result.title, PROOF.word(merged.verdict).upper(),
                     f"{merged.seconds:.2f}" if merged.verdict is not None else "-", result.method,
                     ", ".join(result.rules)])
    status = report.exit_status
    if as_json:
        _emit_json({**report.to_json(), "properties": items})
        return status
    span = f"{counts[0]}-{counts[-1]}" if len(counts) > 1 and counts == list(range(counts[0], counts[-1] + 1)) \
        else ",".join(map(str, counts))
    click.echo(f"ruleset {rules.describe()} · board {board.name or 'inline'} · {span} players · "
               "for all valid positions and all legal choices of each phase")
    click.echo(tabulate(rows, headers=["id", "property", "verdict", "seconds", "method", "depends on"]))
    for item in items:
        if "trace" in item:
            click.echo(f"\n{item['id']} is refuted ({item['counterexample_players']} players):")
            for line in item["trace"]:
                click.echo(f"  {line}")
            click.echo(f"  replay: {item['replay']}")
            if "history" in item:
                click.echo(f"  history: {history_line(item['history'])}")
                if "saved" in item["history"]:
                    click.echo(f"  its history written to {item['history']['saved']} (replay plays it)")
            if "saved" in item:
                click.echo(f"  counterexample written to {item['saved']}")
            else:
                click.echo("  counterexample (position file, before the phase):")
                click.echo("    " + dumps(item["counterexample"]).replace("\n", "\n    "))
        elif item.get("reason"):
            click.echo(f"\n{item['id']} is not applicable: {item['reason']}; nothing was proved "
                       "(neither a pass nor a failure)")
        elif item.get("note"):
            click.echo(f"\n{item['id']}: {item['note']}")
    return status


@cli.command()
@ruleset_option
@board_option
@players_counts("2", "Player counts for the proofs (a mutant is killed when one count refutes it)")
@click.option("--mutant", "names", multiple=True, metavar="NAME", help="Check only these mutants (repeatable).")
@timeout_option(PROVE_TIMEOUT)
@click.option("--json", "as_json", is_flag=True, help="An array of {mutant, killed, by, ...}.")
def mutants(ruleset_spec: str, board_spec: str, players_text: str, names: tuple[str, ...], timeout: float,
            as_json: bool) -> int:
    """Check that the property catalogue catches every rule mutant (exit 0 all killed, 1 one survived, 3 unknown).

    \b
    Examples:
      niagara-solve mutants
      niagara-solve mutants --players 2-3 --mutant two-gems --json
    """
    from niagara_solver.verify.mutants import BY_NAME, mutant_report
    rules, board = load_ruleset(ruleset_spec), load_board(board_spec)
    counts = _players_option(players_text)
    from niagara_solver.jobs import Progress
    with Progress(len(names or BY_NAME) * len(counts), "mutants", not as_json) as bar:  # on a terminal only
        report = mutant_report(board, rules, counts, list(names) or None, timeout,
                               progress=bar.step if bar.enabled else None)
    if as_json:
        _emit_json(report.to_json())
    else:
        rows = [[r.mutant.name, r.mutant.key, r.mutant.description, r.word,
                 ", ".join(r.by), f"{r.seconds:.1f}"] for r in report.mutants]
        click.echo(tabulate(rows, headers=["mutant", "rule", "error", "verdict", "refuted by", "seconds"]))
        for r in report.mutants:
            first = next((x for x in r.results if x.counterexample is not None), None)
            if first is not None and first.counterexample is not None:
                ce = first.counterexample
                click.echo(f"\n{r.mutant.name}: {first.id} refuted: {ce.choices}")
                for line in ce.trace[2:-1]:
                    click.echo(f"  {line}")
                click.echo(f"  replay: {ce.replay}")
    return report.exit_status


@cli.command()
@click.argument("position", type=click.Path(dir_okay=False))
@_ruleset_option
@click.option("--player", "player_name", required=True, metavar="NAME", help="The player who acts.")
@click.option("--card", "card_text", required=True, metavar="CARD",
              help="The card played: 1..6 or cloud; with x_cards also 7, lasso, 123.")
@click.option("--turn", "turn_text", required=True, metavar="TURN",
              help="The turn, in the notation (docs/NOTATION.md).")
@_rescue_option
@click.option("--json", "as_json", is_flag=True,
              help="The verdict as JSON: legal, the rules that forbid the turn, the engine's word, the position after.")
def why(position: str, ruleset_spec: str | None, player_name: str, card_text: str, turn_text: str,
        rescue_texts: tuple[str, ...], as_json: bool) -> int:
    """Is this turn legal? If so, where it leads; if not, the rules that forbid it (from a minimal unsat core).

    \b
    Examples:
      niagara-solve why puzzles/erratum-two-canoes.json --player red --card 5 --turn '4: <port; port: >6L'
      niagara-solve why puzzles/erratum-two-canoes.json --player red --card 5 --turn '4: <port; port: >5' --json
    """
    from niagara_solver.verify.why import why as explain
    pos = _load(position, ruleset_spec)[0]
    player = _player_index(pos, player_name)
    card = _card(card_text)
    turn = Turn.parse(turn_text)
    notes: list[str] = []
    pos = _to_turns_phase(pos, _rescues(pos, rescue_texts), notes)
    if player in pos.acted:
        raise InputError("--player", f"{player_name} has already acted this round", "R-TURN-1")
    result = explain(pos, player, card, turn)
    if as_json:
        _emit_json(result.to_json())
        return result.exit_status
    for note in notes:
        click.echo(f"note: {note}")
    click.echo(f"{player_name} plays {card.label}: {turn}")
    if result.legal:
        click.echo("LEGAL.")
        if result.canoes:  # what the turn did, canoe by canoe, as turns lists it
            click.echo(tabulate([render.report_cells(result.canoes)],
                                headers=["spent", "ends", "loaded", "unloaded", "banked", "stolen"]))
        click.echo("\nThe position after it:\n")
        assert result.after is not None
        click.echo(render.picture(result.after))
    elif result.rules:
        click.echo("ILLEGAL. Forbidden by:")
        for rule, text in result.explanations:
            click.echo(f"  {rule:11} {text}")
        if result.detail:
            click.echo(f"  ({result.detail})")
        for core in result.also:
            click.echo("and, independently, by:")
            for rule in core:
                click.echo(f"  {rule:11} {sentence(rule)}")
    else:
        click.echo(f"UNKNOWN: {result.detail}")
    engine = result.engine + (" and reaches the same position" if result.legal and result.agree else "")
    click.echo(f"\n{engine}" + ("" if result.agree else
                                         "\nDISAGREEMENT: the engine and the encoding judge this turn differently"))
    return result.exit_status


@cli.command()
@click.option("--count", type=click.IntRange(min=0), default=10, show_default=True,
              help="How many positions from seeded random games (besides the solver-directed ones).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Random seed of the playouts (same seed, same positions).")
@ruleset_option
@board_option
@click.option("--no-goals", is_flag=True, help="Skip the solver-directed positions.")
@click.option("--no-rounds", is_flag=True, help="Skip the whole-round comparisons.")
@click.option("--no-cache", is_flag=True,
              help="Search the goal positions again instead of reading them from the cache folder "
                   "($XDG_CACHE_HOME/niagara-solver, else ~/.cache/niagara-solver).")
@click.option("--case-timeout", "case_timeout", type=TIMEOUT, default=CASE_TIMEOUT, show_default=True,
              metavar="SECONDS",
              help="Seconds the encoding may take for each comparison (and each goal's search), within --timeout; "
                   "past it that comparison is UNKNOWN (exit 3).")
@timeout_option(CROSSCHECK_TIMEOUT)
@jobs_option("the positions' comparisons (once the goal positions are found)")
@click.option("--json", "as_json", is_flag=True, help="An object with positions, mismatches and coverage.")
def crosscheck(count: int, seed: int, ruleset_spec: str, board_spec: str, no_goals: bool, no_rounds: bool,
               no_cache: bool, case_timeout: float, timeout: float, jobs: int, as_json: bool) -> int:
    """Compare the engine and the SMT encoding outcome by outcome (exit 0 agreement, 1 a mismatch, 3 unknown).

    The report is the same whatever --jobs (the goal positions are found first, then the positions are compared in
    that many processes). --timeout is the command's time limit, as everywhere; --case-timeout each comparison's.

    \b
    Examples:
      niagara-solve crosscheck --count 2 --no-rounds
      niagara-solve crosscheck --ruleset bga-2013-05-09 --seed 3 --json
      niagara-solve crosscheck --count 100 --jobs 2
    """
    from niagara_solver.model.puzzles import bundled_puzzles, positions_under
    from niagara_solver.verify.crosscheck import crosscheck as run_crosscheck
    from niagara_solver.verify.crosscheck import default_cache, positions_planned
    from niagara_solver.model.catalogue import RULES
    rules, board = load_ruleset(ruleset_spec), load_board(board_spec)
    puzzles = positions_under(bundled_puzzles(), board, rules)
    from niagara_solver.jobs import Progress
    bar = Progress(positions_planned(count, not no_goals, not no_rounds, puzzles, rules), "crosscheck: positions",
                   not as_json)  # on a terminal only
    report = run_crosscheck(board, rules, count, seed, puzzles=puzzles, goals=not no_goals, rounds=not no_rounds,
                            timeout=case_timeout, progress=bar.step if bar.enabled else None,
                            cache=None if no_cache else default_cache(), jobs=jobs)
    bar.close()
    if as_json:
        _emit_json(report.to_json())
        return report.exit_status
    cases = ", ".join(f"{k} {v}" for k, v in sorted(report.cases.items()))
    sources = ", ".join(f"{k} {v}" for k, v in sorted(report.sources.items()))
    click.echo(f"ruleset {rules.describe()} · board {board.name or 'inline'} · seed {seed}")
    click.echo(f"{report.positions} positions ({sources}); cases: {cases}; {report.outcomes} outcomes compared "
               f"in {report.seconds:.1f} s")
    if report.unreachable_goals:
        click.echo("goals no position meets under these rules: " + ", ".join(report.unreachable_goals))
    if report.unfound_goals:
        click.echo(f"UNKNOWN: goals with no position found in time (--case-timeout {case_timeout:g} s, --timeout "
                   f"{timeout:g} s): " + ", ".join(report.unfound_goals))
    rows = [[rule, "-" if rule in report.not_applicable else report.coverage.get(rule, 0),
             report.not_applicable.get(rule, "")] for rule in RULES]
    click.echo("\ncoverage (checked cases exercising each rule; - where no case can, and why):")
    click.echo(tabulate(rows, headers=["rule", "cases", ""]))
    if report.unfinished:
        click.echo(f"\nUNKNOWN: {report.unfinished} (--timeout {timeout:g} s): the positions left are not compared")
    if report.unknown:
        click.echo(f"\nUNKNOWN: {len(report.unknown)} comparison(s) ran out of time (--case-timeout "
                   f"{case_timeout:g} s each, --timeout {timeout:g} s for the command), counted neither as agreement "
                   "nor as mismatch:")
        for item in report.unknown[:10]:
            click.echo(f"  {item['what']} (from {item['source']}): {item['reason']}")
    if not report.mismatches:
        if report.verdict is Verdict.CONFIRMED:
            click.echo("\nno mismatch: the engine and the encoding agree on every case.")
        else:
            click.echo("\nno mismatch on the cases compared.")
        return report.exit_status
    for m in report.mismatches:
        data = m.to_json()
        click.echo(f"\nMISMATCH in {data['what']} (from {m.source}), on this position:")
        click.echo("  " + dumps(data["position"]).replace("\n", "\n  "))
        for side in ("engine_only", "encoding_only"):
            click.echo(f"  only the {side.split('_')[0]} finds {len(data[side])}:")
            for item in data[side][:10]:
                click.echo(f"    {item['label'] or item.get('value', '')}")
    return report.exit_status


@cli.command(name="solve")
@click.argument("position", type=click.Path(dir_okay=False))
@_ruleset_option
@click.option("--player", "player_name", metavar="NAME",
              help="The player asking (X). [default: the puzzle's, in a puzzle file]")
@click.option("--goal", type=click.Choice(["win", "steal", "safe"]),
              help="win: be among the winners; steal: make a steal; safe: lose no gem (docs/SOLVER.md). "
                   "[default: the puzzle's, in a puzzle file]")
@click.option("--horizon", type=click.IntRange(1, MAX_HORIZON),
              help="Rounds to look ahead. [default: the puzzle's in a puzzle file, else 1]")
@click.option("--backend", type=click.Choice(["search", "smt", "both"]), default="search", show_default=True,
              help="search: game-tree search over the engine; smt: over the z3 encoding; both: the search's answer "
                   "with its certificate checked by the encoding, which must accept it.")
@click.option("--certificate", "certificate_file", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Write the search's certificate (the proof of its answer) to FILE, for niagara-solve certify.")
@timeout_option(SOLVE_TIMEOUT)
@click.option("--json", "as_json", is_flag=True, help="The answer as JSON, with each backend's answer.")
@click.option("--html", "html_file", type=click.Path(dir_okay=False), metavar="FILE",
              help="Also write the answer as one page to step through in a browser: the answer and its reasons, and "
                   "a picture of each step of its line of play (for a no, of the others' answer to each option).")
def solve_command(position: str, ruleset_spec: str | None, player_name: str | None, goal: str | None,
                  horizon: int | None, backend: str, certificate_file: str | None, timeout: float, as_json: bool,
                  html_file: str | None) -> int:
    """Can the player force a win / a steal / keep every gem, whatever the others do? (0 definite, 3 unknown)

    A puzzle file asks its own question (its "puzzle" object: player, goal, horizon); an option given here
    replaces that part of it. Any other position file needs --player and --goal.

    \b
    Examples:
      niagara-solve solve puzzles/a-sure-steal.json
      niagara-solve solve puzzles/win-two-gems-home.json --player red --goal win --backend both
      niagara-solve solve puzzles/win-denied-by-a-steal.json --player red --goal win --json
      niagara-solve solve puzzles/win-two-gems-home.json --player red --goal win --certificate red.certificate
      niagara-solve solve puzzles/a-sure-steal.json --html a-sure-steal.html
    """
    from niagara_solver.jobs import Progress
    from niagara_solver.solver.answers import Backend, Goal
    from niagara_solver.solver.puzzles import puzzle_question, question_asked
    from niagara_solver.solver.solve import solve_with
    pos, extras = _load(position, ruleset_spec)
    question = puzzle_question(pos, extras, position)
    if question is None and (player_name is None or goal is None):
        missing = " and ".join(o for o, v in (("--player", player_name), ("--goal", goal)) if v is None)
        verb = "are" if " and " in missing else "is"
        raise click.UsageError(f"{missing} {verb} needed: {position} asks no question (it has no \"puzzle\" "
                               "object)")
    ask = question_asked(question, None if player_name is None else _player_index(pos, player_name),
                         None if goal is None else Goal(goal), horizon)
    # On a terminal only. The smt backend's positions are few and dear: its line also says what its loop for X's
    # decisive turn has done (candidate turns tried, refutations found).
    label = "solve (smt): positions explored" if backend == "smt" else "solve: positions searched"
    with Progress(0, label, not as_json) as bar:

        def searched(nodes: int, note: str = "") -> None:
            bar.done, bar.note = nodes, note  # drawn by the bar's own clock, every second
        solution = solve_with(pos, ask.player, ask.goal, ask.horizon, Backend(backend), timeout,
                              progress=searched if bar.enabled else None, certificate=certificate_file)
    if html_file:
        from niagara_solver.report.html import solve_page, write_page
        asked = extras.get("puzzle", {}).get("question") if isinstance(extras.get("puzzle"), dict) else None
        write_page(html_file, solve_page(pos, solution.answer, f"niagara-solve solve: {position}",
                                         [str(asked)] if asked else []))
    if as_json:
        _emit_json(solution.to_json())
    else:
        click.echo(render.answer_text(solution.answer))
        if len(solution.answers) > 1:
            click.echo("\nbackends: " + ", ".join(f"{a.backend} {a.word.upper()} ({a.seconds:.2f} s)"
                                                    for a in solution.answers))
            if solution.check is not None:
                click.echo(solution.check.text())
            else:  # no certificate was checked: say why (out of time, or nothing to certify)
                click.echo("\n".join(a.note for a in solution.answers[1:] if a.note))
            if not solution.agree:
                click.echo("BACKENDS DISAGREE: one of the engine and the encoding is wrong here", err=True)
        if solution.certificate_file is not None:  # said as render, prove --save and check --junit say theirs
            click.echo(f"\ncertificate written to {solution.certificate_file} (niagara-solve certify {position} "
                       f"{solution.certificate_file} checks it)")
        if html_file:
            click.echo(f"\npage: {html_file}")
    return solution.exit_status


@cli.command(name="certify")
@click.argument("position", type=click.Path(dir_okay=False))
@click.argument("certificate", type=click.Path(dir_okay=False))
@_ruleset_option
@timeout_option(SOLVE_TIMEOUT)
@click.option("--json", "as_json", is_flag=True, help="The check's result as JSON.")
def certify_command(position: str, certificate: str, ruleset_spec: str | None, timeout: float, as_json: bool) -> int:
    """Check a saved certificate against the encoding alone (0 accepted, 1 refused, 2 bad input, 3 unknown).

    The certificate is written by: niagara-solve solve POSITION ... --certificate FILE.

    \b
    Examples:
      niagara-solve certify puzzles/win-two-gems-home.json red.certificate
      niagara-solve certify puzzles/win-two-gems-home.json red.certificate --json
    """
    from niagara_solver.solver.certificate import load_certificate
    from niagara_solver.solver.solve import check_saved_certificate
    pos = _load(position, ruleset_spec)[0]
    result = check_saved_certificate(pos, load_certificate(certificate), timeout)
    if as_json:
        _emit_json(result.to_json())
    else:
        click.echo(result.text())
    return result.exit_status


#: What click (8.2 on) raises for a bare ``niagara-solve``; click 8.1 shows the help itself and exits 0.
_NO_COMMAND: tuple[type[click.ClickException], ...] = tuple(
    getattr(click.exceptions, name) for name in ("NoArgsIsHelpError",) if hasattr(click.exceptions, name))


def usage_line(err: click.ClickException) -> str:
    """click's own error (an unknown option, a missing argument, a bad value) as one line, like the tool's own:
    ``niagara-solve: error: COMMAND: message (niagara-solve COMMAND --help)``."""
    message = " ".join(err.format_message().split()).rstrip(".").replace(". Did you mean", "; did you mean")
    message = message[:1].lower() + message[1:]
    ctx = getattr(err, "ctx", None)
    path = ctx.command_path if ctx is not None else "niagara-solve"
    where = f"{path.split(' ', 1)[1]}: " if " " in path else ""
    return f"niagara-solve: error: {where}{one_line(message)} ({path} --help)"


class _OutputClosed(Exception):
    """Standard output was closed by its reader while a command wrote to it (carried past click to :func:`main`)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``) and return the exit status."""
    try:
        result = cli.main(args=list(argv) if argv is not None else None, prog_name="niagara-solve",
                          standalone_mode=False)
    except _NO_COMMAND as err:  # no command at all: the help, as click shows it
        err.show()
        return 2
    except click.exceptions.ClickException as err:  # usage errors (2) and click's other errors, as one line
        click.echo(usage_line(err), err=True)
        return err.exit_code
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 1
    except click.exceptions.Exit as err:
        return err.exit_code
    except _OutputClosed as err:
        cause = err.__cause__
        return failure_of(cause if isinstance(cause, OSError) else BrokenPipeError()).exit_status
    except EXPECTED as err:  # a bad input, a time limit, an output: the library says how each ends
        ended = failure_of(err)
        if ended.message is not None:
            click.echo(f"niagara-solve: error: {ended.message}", err=True)
        return ended.exit_status
    return result if isinstance(result, int) else 0


from niagara_solver.cli.designer import COMMANDS  # noqa: E402  (the designers' commands register on the group above)
from niagara_solver.cli.advice import COMMANDS as ADVICE  # noqa: E402
from niagara_solver.cli.games import COMMANDS as GAMES  # noqa: E402
from niagara_solver.cli.mining import COMMANDS as MINING  # noqa: E402

for _command in [*COMMANDS, *ADVICE, *GAMES, *MINING]:
    cli.add_command(_command)


def run() -> None:
    """Console-script entry point."""
    began_at_process_start()  # a time limit counts the start-up too
    tune_collector()
    status = main()
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader is gone: what is left goes nowhere, and the exit flush says nothing
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(status)



if __name__ == "__main__":  # python -m niagara_solver.cli.main, as python -m niagara_solver
    run()
