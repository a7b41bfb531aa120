"""The whole-game commands: ``reach``, ``invariant`` and ``replay`` (docs/GAMES.md).

Each is a thin layer over :mod:`..games`: the question is parsed (a position predicate, docs/QUERIES.md), the start
set up (a position file, or the setup of a game of N players), the search run within the command's time limit, and
its answer printed as an explicit-state model checker prints one: the levels as they are explored (on standard
error, on a terminal), the verdict, what makes the round count minimal, and the trace round by round.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Callable

import click

from niagara_solver.cli.common import emit_json, jobs_option, load, players_option, scheduler_option, timeout_option
from niagara_solver.design.simulate import start_position
from niagara_solver.engine.round import RoundRecord
from niagara_solver.games.rounds import first_rounds
from niagara_solver.games.search import Level, ReachResult, invariant, reach
from niagara_solver.games.trace import load_trace, replay, trace_json
from niagara_solver.model.errors import InputError, quoted
from niagara_solver.model.format import dumps, load_board, load_ruleset
from niagara_solver.model.limits import MAX_REACH_POSITIONS, MAX_REACH_ROUNDS, REACH_TIMEOUT
from niagara_solver.model.position import Position
from niagara_solver.model.verdict import ANSWER, INVARIANT, Verdict
from niagara_solver.report.html import game_page, write_page
from niagara_solver.report.text import round_text

def _start(from_path: str | None, players: str | None, ruleset_spec: str | None, board_spec: str | None) -> Position:
    """The position the search starts from: a position file (under ``--ruleset`` if given), or the setup of a game of
    ``--players`` seats on ``--board`` under ``--ruleset`` (R-BOARD-5, R-COMP), as ``simulate`` sets one up."""
    if from_path is not None:
        if players is not None:
            raise InputError("--players", "give --from POSITION or --players N, not both", "FORMAT")
        if board_spec is not None:
            raise InputError("--board", "a position file has its own board: --board goes with --players", "FORMAT")
        return load(from_path, ruleset_spec)[0]
    rules = load_ruleset(ruleset_spec or "standard")
    board = load_board(board_spec or "standard")
    counts = players_option(players or "2")  # COUNTS as in every command (R-COMP-1), then one of them
    if len(counts) != 1:
        raise InputError("--players", f"a search starts from one game: give one count of players, not "
                                      f"{quoted(players)}", "R-COMP-1")
    rules.check_players(counts, "--players")
    return start_position(board, rules, counts[0])


def _progress(as_json: bool) -> Callable[[Level], None] | None:
    """Each level on standard error as it is done, on a terminal (never with ``--json``)."""
    if as_json or not sys.stderr.isatty():
        return None

    def show(level: Level) -> None:
        budget = f"[within {level.budget}] " if level.budget is not None else ""
        if level.walk is not None:  # a walk under way: where it is
            click.echo(f"{budget}{level.walk}: {level.distinct:,} positions, {level.per_second:,.0f}/s, "
                       f"{level.memory_mb:,.0f} MB", err=True)
            return
        click.echo(f"{budget}depth {level.depth}: {level.distinct:,} distinct, {level.generated:,} generated, "
                   f"frontier {level.frontier:,}, {level.per_second:,.0f}/s, {level.memory_mb:,.0f} MB", err=True)
    return show


def _facts(pos: Position) -> str:
    """The position's key facts on one line: each player's canoes and bank."""
    parts = []
    for i, p in enumerate(pos.players):
        star = "*" if i == pos.lifebuoy else ""
        parts.append(f"{p.name}{star} {'; '.join(c.describe() for c in p.canoes)} · bank {p.bank.describe()}")
    return "  = " + " | ".join(parts)


def _why_minimal(result: ReachResult, what: str, falls: bool = False) -> str:
    """What makes the answer's round count the fewest, or the "no" a proof."""
    pruned = (f"; {result.pruned:,} positions dropped by the bound on banking (docs/GAMES.md, \"Bounds\")"
              if result.pruned else "")
    if result.verdict is Verdict.UNKNOWN:
        done = (f"no play of {first_rounds(result.depth)} {what}" if result.depth else "no level completed")
        return f"out of {result.stopped} ({done})"
    if result.excluded and result.verdict is not Verdict.UNKNOWN:
        explored = result.rounds - 1 if result.rounds is not None else result.limit
        walked = first_rounds(explored, result.excluded + 1)
        searched = (f", every play of {walked} explored, cut after each turn by the bound"
                    if explored > result.excluded else "")
        proved = "proved minimal" if result.rounds is not None else "proved"
        bound = "the bound on falls" if falls else "the bound on banking"
        return (f"{proved}: no play of {first_rounds(result.excluded)} {what} by {bound} alone "
                f"(docs/GAMES.md, \"Bounds\"){searched}{_dived(result)}")
    if result.rounds is not None:
        if result.rounds == 0:
            return "proved minimal: the start itself"
        if result.rounds == 1:
            return "proved minimal: one round" + pruned
        return f"proved minimal: every play of {first_rounds(result.rounds - 1)} explored" + pruned
    if result.exhausted:
        return f"proved: every play explored, each ended before round {result.limit} (R-END-2)"
    return f"proved: every play of {first_rounds(result.limit)} explored" + pruned


def _dived(result: ReachResult) -> str:
    """Which dive found the trace, if one did: the players whose every option it walked."""
    if result.dived is None:
        return ""
    names = [p.name for p in result.start.players]
    walked = " and ".join(names[i] for i in result.dived)
    others = [names[i] for i in range(len(names)) if i not in result.dived]
    rest = (f" ({', '.join(others[:-1]) + ' and ' if len(others) > 1 else ''}{others[-1]} one option each decision)"
            if others else "")
    return f"; found by the dive that walked every option of {walked}{rest} (docs/GAMES.md, \"Dives\")"


def _print(result: ReachResult, head: str, word: str, what: str, falls: bool = False) -> None:
    click.echo(head)
    rounds = "" if result.rounds is None else f" in {result.rounds} round{'s' if result.rounds != 1 else ''}"
    click.echo(f"{word}{rounds} · {result.distinct:,} distinct positions, {result.generated:,} generated · "
               f"{result.seconds:.1f} s")
    click.echo(_why_minimal(result, what, falls))
    pos = result.start
    for item in result.trace:
        record: RoundRecord = item.record(pos)
        click.echo("")
        click.echo(round_text(record))
        click.echo(_facts(record.end))
        pos = record.end


def _json(result: ReachResult, command: str, text: str, word: str) -> dict[str, Any]:
    return {"command": command, "target": text, "verdict": word, "rounds": result.rounds, "limit": result.limit,
            "depth": result.depth, "distinct": result.distinct, "generated": result.generated,
            "pruned": result.pruned, "seconds": round(result.seconds, 3), "stopped": result.stopped,
            "dived": [result.start.players[i].name for i in result.dived] if result.dived is not None else None,
            "trace": trace_json(result.start, result.trace, text) if result.trace or result.rounds == 0 else None}


def _write_trace(path: str | None, result: ReachResult, text: str) -> None:
    """Write the trace to ``--trace``'s file; with none to write (no position reached), leave the file alone and say
    so on stderr: the answer, worth the search's time, is still printed and its exit status kept."""
    if path is None:
        return
    if result.rounds is None:
        click.echo(f"niagara-solve: --trace: {path} not written: no position was reached", err=True)
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(dumps(trace_json(result.start, result.trace, text)) + "\n")


#: What ``--jobs`` and ``--scheduler`` spread (docs/GAMES.md, "Several processes").
_LEVELS = "each level's rounds, its positions split by hash (the levels walk),"


def _search_options(command: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option("--from", "from_path", type=click.Path(dir_okay=False), metavar="POSITION",
                     help="Start from this position file (at the start of a round, or in phase II)."),
        click.option("--players", metavar="COUNTS",
                     help="Start from the setup of a game of N players (default 2): every canoe in the port, every "
                          "cave full, the lifebuoy with the first seat."),
        click.option("--ruleset", "ruleset_spec", metavar="PRESET|FILE.json",
                     help="The rules (default: the position's own, or standard)."),
        click.option("--board", "board_spec", metavar="PRESET|FILE.json",
                     help="The river of the setup (with --players; default standard)."),
        click.option("--rounds", "rounds_limit", type=click.IntRange(min=1, max=MAX_REACH_ROUNDS), default=3,
                     show_default=True, help="Look this many rounds ahead (K)."),
        click.option("--trace", "trace_path", metavar="FILE.json",
                     help="Write the shortest trace here (docs/GAMES.md, \"Traces\"); replay it with replay."),
        click.option("--max-positions", type=click.IntRange(min=1), default=MAX_REACH_POSITIONS, show_default=True,
                     metavar="N", help="Store at most this many positions; past it the answer is UNKNOWN."),
        jobs_option(_LEVELS),
        scheduler_option(_LEVELS),
        timeout_option(REACH_TIMEOUT),
        click.option("--json", "as_json", is_flag=True, help="The answer and its trace as JSON."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@click.command(name="reach")
@click.argument("target")
@_search_options
@click.option("--no-prune", is_flag=True, help="Breadth-first without the bounds (the plain search, to compare).")
@click.option("--walk", type=click.Choice(["decisions", "levels"]), default="decisions", show_default=True,
              help="With a bound: deepen decision by decision, depth first, cut after every turn (decisions), or "
                   "level by level, breadth first (levels). Both give the fewest rounds.")
def reach_command(target: str, from_path: str | None, players: str | None, ruleset_spec: str | None,
                  board_spec: str | None, rounds_limit: int, trace_path: str | None, max_positions: int,
                  jobs: int, scheduler: str | None, timeout: float, as_json: bool, no_prune: bool, walk: str) -> int:
    """Can some play reach a position where TARGET holds within K rounds? (exit 0 yes, 1 no, 3 unknown)

    TARGET is a position predicate (docs/QUERIES.md). Every choice of every player is explored, breadth-first by
    rounds: YES with a shortest trace and its round count proved minimal, NO when no play of K rounds reaches it.
    A target with a bound (the goal, a winner, a bank, the gems gone over the falls) is walked decision by
    decision instead, each round after dives that walk one or two players' every option first (docs/GAMES.md,
    "Dives"); the answers are the same.

    With --jobs N (or --scheduler) each level's positions are split by hash across N processes, the answer the
    same; the decisions walk runs in one process, so a target with a bound needs --walk levels (or --no-prune).

    \b
    Examples:
      niagara-solve reach 'fallen(any) >= 1' --players 2 --board puzzles/boards/short-fork.json --rounds 1
      niagara-solve reach 'goal(any)' --players 3 --rounds 5 --timeout 1800
      niagara-solve reach 'stole(any) >= 1' --players 3 --rounds 2 --jobs 2
    """
    from niagara_solver.games.bounds import query_bound
    from niagara_solver.model.query import parse_query
    began = time.perf_counter()
    start = _start(from_path, players, ruleset_spec, board_spec)
    limit = rounds_limit
    query = parse_query(target, [p.name for p in start.players], start.board)
    bound = None if no_prune else query_bound(query)
    result = reach(start, query, limit, bound=bound, max_positions=max_positions, progress=_progress(as_json),
                   walk=walk, jobs=jobs, scheduler=scheduler)
    result.seconds = time.perf_counter() - began
    _write_trace(trace_path, result, str(query))
    word = ANSWER(result.verdict)
    if as_json:
        emit_json(_json(result, "reach", str(query), word))
    else:
        _print(result, _head("reach", str(query), start, limit), word, "reaches it", falls=query.uses_tally)
    return result.exit_status


@click.command(name="invariant")
@click.argument("expr")
@_search_options
def invariant_command(expr: str, from_path: str | None, players: str | None, ruleset_spec: str | None,
                      board_spec: str | None, rounds_limit: int, trace_path: str | None, max_positions: int,
                      jobs: int, scheduler: str | None, timeout: float, as_json: bool) -> int:
    """Does EXPR hold in every position reachable within K rounds? (exit 0 holds, 1 broken, 3 unknown)

    The reach of its negation: when some play breaks it, the shortest such trace.

    \b
    Examples:
      niagara-solve invariant 'bank(any) == 0' --players 2 --rounds 1
    """
    from niagara_solver.model.query import parse_query
    began = time.perf_counter()
    start = _start(from_path, players, ruleset_spec, board_spec)
    limit = rounds_limit
    query = parse_query(expr, [p.name for p in start.players], start.board)
    result = invariant(start, query, limit, max_positions=max_positions, progress=_progress(as_json), jobs=jobs,
                       scheduler=scheduler)
    result.seconds = time.perf_counter() - began
    _write_trace(trace_path, result, f"not ({query})")
    word = INVARIANT(result.verdict)
    if as_json:
        emit_json(_json(result, "invariant", str(query), word))
    else:
        _print(result, _head("invariant", str(query), start, limit), word, "breaks it")
    return result.exit_status


def _head(command: str, text: str, start: Position, limit: int) -> str:
    names = ", ".join(p.name for p in start.players)
    return (f"{command} {text} · {len(start.players)} players ({names}) · ruleset {start.ruleset.describe()} · board "
            f"{start.board.name or 'inline'} · round {start.round} · within {limit} round{'s' if limit != 1 else ''}")


@click.command(name="replay")
@click.argument("trace", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="The rounds replayed and the first failure, as JSON.")
@click.option("--html", "html_file", type=click.Path(dir_okay=False), metavar="FILE",
              help="Also write the rounds replayed as one page to step through in a browser (a picture per phase and "
                   "turn; up to the first illegal step, named on the page).")
def replay_command(trace: str, as_json: bool, html_file: str | None) -> int:
    """Replay a trace file round by round with the engine (exit 0 every step legal, 1 at the first that is not).

    Every rescue, card and turn is checked by the rules, the flow taken with the recorded branches, and the
    position reached compared with the recorded one; the first illegal or differing step is named.

    \b
    Examples:
      niagara-solve replay puzzles/traces/fall-on-the-short-fork.json
      niagara-solve replay puzzles/traces/fall-on-the-short-fork.json --html fall.html
    """
    read = load_trace(trace)
    result = replay(read)
    if html_file:
        notes = [f"{len(result.records)} of {len(read.rounds)} round(s) replayed by the engine"
                 + (f"; illegal: {result.failure.text()}" if result.failure is not None else ", each legal")]
        write_page(html_file, game_page(read.setup, result.records, f"niagara-solve replay: {trace}", notes))
    if as_json:
        emit_json({"command": "replay", "rounds": len(read.rounds), "replayed": len(result.records),
                   "ok": result.ok, "failure": None if result.failure is None else {
                       "round": result.failure.round, "player": result.failure.player,
                       "what": result.failure.what}})
        return result.exit_status
    for record in result.records:
        click.echo(round_text(record))
        click.echo(_facts(record.end))
    if result.failure is None:
        click.echo(f"legal: {len(result.records)} round{'s' if len(result.records) != 1 else ''} replayed by the "
                   "engine, each to its recorded position")
    else:
        click.echo(f"illegal: {result.failure.text()}")
    if html_file:
        click.echo(f"page: {html_file}")
    return result.exit_status


@click.command(name="history")
@click.argument("position", type=click.Path(dir_okay=False))
@click.option("--rounds", "rounds_limit", type=click.IntRange(min=1, max=MAX_REACH_ROUNDS), default=4,
              show_default=True, help="Search histories of at most this many rounds (K); a later round is answered "
                                      "only by counting.")
@click.option("--trace", "trace_path", metavar="FILE.json",
              help="Write the history found as a trace file (replay it with replay).")
@click.option("--ruleset", "ruleset_spec", metavar="PRESET|FILE.json",
              help="The rules (default: the position's own).")
@timeout_option(REACH_TIMEOUT)
@click.option("--json", "as_json", is_flag=True, help="The answer as JSON.")
def history_command(position: str, rounds_limit: int, trace_path: str | None, ruleset_spec: str | None,
                    timeout: float, as_json: bool) -> int:
    """Can POSITION arise in a real game, and by what history? (exit 0 reachable, 1 not, 3 unknown)

    A proof game: a shortest history from the setup of the position's game (its players, ruleset and board; the
    lifebuoy passed once a round) that ends in exactly this position, hands, round and lifebuoy included; or why
    none does — a counting argument (the hands a round leaves, the gems no play banks so soon, round 1 is the
    setup), or every play of the rounds before its round explored (docs/GAMES.md, "Proof games").

    \b
    Examples:
      niagara-solve history puzzles/start-4p.json
      niagara-solve history puzzles/the-game-is-over.json
    """
    from niagara_solver.games.history import history
    pos, _ = load(position, ruleset_spec)
    result = history(pos, rounds_limit)
    if trace_path is not None:
        if result.verdict is not Verdict.CONFIRMED:
            click.echo(f"niagara-solve: --trace: {trace_path} not written: no history was found", err=True)
        else:
            with open(trace_path, "w", encoding="utf-8") as f:
                f.write(dumps(result.trace_json()) + "\n")
    if as_json:
        emit_json({"command": "history", **result.to_json(), "positions": result.positions,
                   "seconds": round(result.seconds, 3)})
        return result.exit_status
    rounds = f" in {len(result.records)} round{'s' if len(result.records) != 1 else ''}" if result.records else ""
    click.echo(f"history of {position} · round {pos.round} · {len(pos.players)} players")
    click.echo(f"{result.word}{rounds}" + (f": {result.reason}" + (f" ({result.rule})" if result.rule else "")
                                          if result.reason else ""))
    for record in result.records:
        click.echo(round_text(record))
        click.echo(_facts(record.end))
    if result.then:
        click.echo(f"then, in round {pos.round}: {result.then}")
    return result.exit_status


#: The commands this module adds to ``niagara-solve``.
COMMANDS = [reach_command, invariant_command, replay_command, history_command]
