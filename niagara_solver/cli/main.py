"""The ``niagara-solve`` command line. Every command is a thin layer over a library call.

Exit status: 0 success, 2 bad input (a message on standard error naming the JSON path and the rule).
Standard output carries only the answer, so ``--json`` output can be piped.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Sequence

import click
from tabulate import tabulate

from ..engine.apply import CanoeReport, apply_turn
from ..engine.flow import choices_text, flow_detail, flow_outcomes, parse_choices
from ..engine.notation import Rescue, Steal, Turn
from ..engine.playout import POLICIES, random_playout
from ..engine.rescue import begin_turns, must_rescue, rescue_options
from ..engine.round import RoundRecord, is_finished, play_round, winners
from ..engine.turns import legal_turns
from ..errors import InputError, NiagaraError
from ..rules.atoms import Card, Phase
from ..rules.format import dumps, load_document, load_ruleset, position_to_json
from ..rules.position import Position
from . import render


class _Group(click.Group):
    """A group where ``niagara-solve POSITION`` means ``niagara-solve analyze POSITION``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["analyze", *args]
        return super().parse_args(ctx, args)


def _ruleset_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--ruleset", "ruleset_spec", metavar="PRESET|FILE.json",
                        help="Play the position under this ruleset instead of its own.")(command)


def _load(position: str, ruleset_spec: str | None) -> tuple[Position, dict[str, Any]]:
    return load_document(position, load_ruleset(ruleset_spec) if ruleset_spec else None)


def _emit_json(obj: Any) -> None:
    click.echo(dumps(obj))


def _player_index(pos: Position, name: str) -> int:
    try:
        return pos.index(name)
    except KeyError:
        raise InputError("--player", f"unknown player {name!r}; players: "
                         f"{', '.join(p.name for p in pos.players)}", "R-COMP-1") from None


def _card(text: str, option: str = "--card") -> Card:
    try:
        return Card.parse(text)
    except ValueError as err:
        raise InputError(option, str(err), "R-COMP-2") from None


def _pairs(pos: Position, values: Sequence[str], option: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for value in values:
        name, eq, rest = value.partition("=")
        if not eq:
            raise InputError(option, f"write {option} NAME=VALUE, got {value!r}", "FORMAT")
        try:
            index = pos.index(name.strip())
        except KeyError:
            raise InputError(option, f"unknown player {name.strip()!r}; players: "
                             f"{', '.join(p.name for p in pos.players)}", "R-COMP-1") from None
        out[index] = rest.strip()
    return out


def _rescues(pos: Position, values: Sequence[str]) -> dict[int, Rescue]:
    return {i: Rescue.parse(text) for i, text in _pairs(pos, values, "--rescue").items()}


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
        notes.append(f"phase I: no rescue assumed for {', '.join(pending)} (R-RESCUE-1; use --rescue NAME=COLOUR)")
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
    niagara-solve show POSITION     picture of the river, caves, canoes and players
    niagara-solve turns POSITION --player NAME --card CARD
    niagara-solve flow POSITION --steps K
    niagara-solve round POSITION --card NAME=CARD ... --turn NAME=TURN ...
    niagara-solve play POSITION --seed S --rounds N
    """


@cli.command()
@click.argument("position", type=click.Path(dir_okay=False))
@_ruleset_option
def show(position: str, ruleset_spec: str | None) -> int:
    """Show a position: the river from port to falls, caves, canoes, markers, hands and banks."""
    click.echo(render.show(_load(position, ruleset_spec)[0]))
    return 0


@cli.command()
@click.argument("position", type=click.Path(dir_okay=False))
@_ruleset_option
@click.option("--player", "player_name", required=True, help="The player whose turns to list.")
@click.option("--card", "card_text", help="The card played: 1..6 or cloud (default: the player's chosen card).")
@click.option("--rescue", "rescue_texts", multiple=True, metavar="NAME=CHOICE",
              help="Phase I decision for a start-of-round position: none, free, or the colours paid.")
@click.option("--json", "as_json", is_flag=True, help="A JSON array of {turn, position, canoes}.")
def turns(position: str, ruleset_spec: str | None, player_name: str, card_text: str | None,
          rescue_texts: tuple[str, ...], as_json: bool) -> int:
    """Every distinct legal turn of a player with a card, and where it leads."""
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
@click.option("--steps", type=click.IntRange(min=0), required=True, help="How many single steps the river flows.")
@click.option("--branches", help="With fork_policy free: each step's branch, e.g. L,R,L (default: every outcome).")
@click.option("--json", "as_json", is_flag=True, help="The resulting position (an array of outcomes under free).")
def flow(position: str, ruleset_spec: str | None, steps: int, branches: str | None, as_json: bool) -> int:
    """Let the river flow K single steps (phase III alone, R-FLOW)."""
    pos = _load(position, ruleset_spec)[0]
    choices = parse_choices(branches, pos, steps) if branches is not None else None
    if choices is None and pos.ruleset.fork_policy.value == "free" and pos.board.forks and steps:
        outcomes = flow_outcomes(pos, steps)
        if as_json:
            _emit_json([{"branches": choices_text(made, pos), "position": position_to_json(after)}
                        for made, after in outcomes])
            return 0
        click.echo(f"fork_policy free: {len(outcomes)} distinct outcome(s) of {steps} step(s) (R-FLOW-4)")
        for made, after in outcomes:
            click.echo(f"\nbranches {choices_text(made, pos)}:\n{render.picture(after)}")
        return 0
    result = flow_detail(pos, steps, choices)
    if as_json:
        _emit_json(position_to_json(result.position))
        return 0
    names = [p.name for p in pos.players]
    fell = ", ".join(f"{names[o]} from {d}" + (f" ({','.join(g.label for g in gems)} back to its cave)" if gems else "")
                     for o, d, gems in result.fell) or "nothing"
    click.echo(f"The river flows {steps} step(s); over the falls: {fell}.\n")
    click.echo(render.picture(result.position))
    return 0


def _record_json(record: RoundRecord) -> dict[str, Any]:
    start = record.start
    names = [p.name for p in start.players]
    return {"round": start.round,
            "rescues": {names[i]: str(r) for i, r in record.rescues},
            "cards": {p.name: p.card.to_json() for p in record.turns_start.players if p.card is not None},
            "turns": [{"player": names[t.player], "card": t.card.to_json(), "turn": str(t.turn)}
                      for t in record.turns],
            "flow": record.flow,
            "branches": choices_text(record.choices, start) if record.choices is not None else None,
            "fell": [{"player": names[o], "from": d, "gems": [g.label for g in gems]} for o, d, gems in record.fell],
            "position": position_to_json(record.end)}


@cli.command()
@click.argument("position", type=click.Path(dir_okay=False))
@_ruleset_option
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed (same seed, same game).")
@click.option("--rounds", type=click.IntRange(min=1), default=100, show_default=True,
              help="Stop after this many rounds if the game has not ended.")
@click.option("--policy", type=click.Choice(sorted(POLICIES)), default="greedy", show_default=True,
              help="greedy: usually the turn that banks, steals or loads most; uniform: any legal choice alike.")
@click.option("--json", "as_json", is_flag=True, help="Every round and the final position as JSON.")
def play(position: str, ruleset_spec: str | None, seed: int, rounds: int, policy: str, as_json: bool) -> int:
    """A seeded random playout, round by round, until the game ends or --rounds rounds were played."""
    pos = _load(position, ruleset_spec)[0]
    records = []
    for record in random_playout(pos, seed, rounds, policy):
        records.append(record)
        if not as_json:
            click.echo(render.round_text(record))
    final = records[-1].end if records else pos
    names = [p.name for p in final.players]
    won = [names[i] for i in winners(final)] if is_finished(final) else []
    if as_json:
        _emit_json({"seed": seed, "policy": policy, "rounds": [_record_json(r) for r in records], "finished": bool(won),
                    "winners": won, "position": position_to_json(final)})
        return 0
    if won:
        click.echo(f"\nGame over after round {final.round - 1}: {', '.join(won)} "
                   f"{'win' if len(won) > 1 else 'wins'} (R-END-2, R-END-3).")
    else:
        click.echo(f"\nStopped after {len(records)} round(s); the game is not over.")
    return 0


@cli.command(name="round")
@click.argument("position", type=click.Path(dir_okay=False))
@_ruleset_option
@click.option("--card", "card_texts", multiple=True, metavar="NAME=CARD", help="Each player's card.")
@click.option("--turn", "turn_texts", multiple=True, metavar="NAME=TURN", help="Each player's turn, in notation.")
@click.option("--rescue", "rescue_texts", multiple=True, metavar="NAME=CHOICE", help="Phase I rescue decisions.")
@click.option("--branches", help="With fork_policy free: each flow step's branch, e.g. L,R.")
@click.option("--json", "as_json", is_flag=True, help="The round and the position after it, as JSON.")
def round_(position: str, ruleset_spec: str | None, card_texts: tuple[str, ...], turn_texts: tuple[str, ...],
           rescue_texts: tuple[str, ...], branches: str | None, as_json: bool) -> int:
    """Play one whole round from given cards and turns, checking every rule (replays traces)."""
    pos = _load(position, ruleset_spec)[0]
    cards = {i: _card(text, "--card") for i, text in _pairs(pos, card_texts, "--card").items()}
    turn_map = {i: Turn.parse(text) for i, text in _pairs(pos, turn_texts, "--turn").items()}
    rescues = _rescues(pos, rescue_texts)
    record = play_round(pos, cards, turn_map, rescues, None)
    if branches is not None:
        choices = parse_choices(branches, record.before_flow, record.flow)
        record = play_round(pos, cards, turn_map, rescues, choices)
    if as_json:
        _emit_json(_record_json(record))
        return 0
    click.echo(render.round_text(record))
    click.echo("")
    click.echo(render.show(record.end))
    return 0


def _analysis_rows(pos: Position, player: int) -> list[list[Any]]:
    me = pos.players[player]
    cards = [me.card] if me.card is not None else list(me.hand)
    rows = []
    for card in cards:
        if card is None:
            continue
        outcomes = legal_turns(pos, player, card)
        steals = sum(1 for o in outcomes if _has_steal(o.turn))
        banks = sum(1 for o in outcomes if o.position.players[player].bank.total > me.bank.total)
        rows.append([me.name, card.label, len(outcomes), steals or "", banks or ""])
    return rows


def _has_steal(turn: Turn) -> bool:
    return any(isinstance(s, Steal) for a in turn.actions for s in a.steps)


@cli.command()
@click.argument("position", type=click.Path(dir_okay=False))
@_ruleset_option
@click.option("--rescue", "rescue_texts", multiple=True, metavar="NAME=CHOICE", help="Phase I rescue decisions.")
@click.option("--json", "as_json", is_flag=True, help="The analysis as JSON.")
def analyze(position: str, ruleset_spec: str | None, rescue_texts: tuple[str, ...], as_json: bool) -> int:
    """Analyse a position: the picture, then per player and card the legal turns, steals and bankings."""
    pos, extras = _load(position, ruleset_spec)
    finished = is_finished(pos)
    notes: list[str] = []
    rows: list[list[Any]] = []
    if not finished:
        turned = _to_turns_phase(pos, _rescues(pos, rescue_texts), notes)
        for i in turned.turn_order():
            if i not in turned.acted:
                rows.extend(_analysis_rows(turned, i))
    if as_json:
        _emit_json({"position": position_to_json(pos), "finished": finished,
                    "winners": [pos.players[i].name for i in winners(pos)] if finished else [],
                    "notes": notes,
                    "turns": [{"player": r[0], "card": r[1], "turns": r[2], "steals": r[3] or 0, "bankings": r[4] or 0}
                              for r in rows]})
        return 0
    click.echo(render.show(pos))
    if "puzzle" in extras and isinstance(extras["puzzle"], dict) and extras["puzzle"].get("question"):
        click.echo(f"\npuzzle: {extras['puzzle']['question']}")
    if finished:
        return 0
    click.echo("")
    for note in notes:
        click.echo(f"note: {note}")
    click.echo("Legal turns per card, in turn order (R-TURN-1); steals and bankings count the turns that make one:")
    click.echo(tabulate(rows, headers=["player", "card", "turns", "with a steal", "with a banking"]))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``) and return the exit status."""
    try:
        result = cli.main(args=list(argv) if argv is not None else None, prog_name="niagara-solve",
                          standalone_mode=False)
    except click.exceptions.UsageError as err:
        err.show()
        return 2
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 1
    except click.exceptions.Exit as err:
        return err.exit_code
    except NiagaraError as err:
        click.echo(f"niagara-solve: error: {err}", err=True)
        return err.exit_status
    except BrokenPipeError:
        return 0
    return result if isinstance(result, int) else 0


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())

