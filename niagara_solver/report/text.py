"""Text pictures of positions, turns and rounds for the terminal."""

from __future__ import annotations

from typing import Any, Sequence

from tabulate import tabulate

from niagara_solver.engine.apply import CanoeReport
from niagara_solver.engine.flow import FlowReport, choices_text
from niagara_solver.engine.round import GOAL_SAME, GOAL_TOTAL, RoundRecord, goal_reached, winners
from niagara_solver.model.atoms import COLOURS, PORT, Colour, Phase
from niagara_solver.model.position import Player, Position
from niagara_solver.model.verdict import ANSWER, Verdict
from niagara_solver.play.playout import Playout

WEATHER_NAMES = {-1: "sun", 0: "calm", 1: "rain", 2: "storm"}


def weather_text(weather: int) -> str:
    """``+1 (rain)``."""
    return f"{weather:+d} ({WEATHER_NAMES.get(weather, '?')})" if weather else "0 (calm)"


def _canoes_at(pos: Position, place: str) -> str:
    """The canoes on a place, each as its owner and cargo; with the expansion also its kind and marks
    (``red:double(amethyst,diamond)``, ``red:moose``) and the pieces on the disc (whirlpool, beaver, Joe)."""
    labels = []
    for player in pos.players:
        for canoe in player.canoes:
            if canoe.place == place:
                marks = "".join(f":{m}" for m, on in (("double", canoe.double), ("moose", canoe.moose),
                                                     ("moored", canoe.moored)) if on)
                labels.append(f"{player.name}{marks}({','.join(g.label for g in canoe.gems)})" if canoe.gems
                              else f"{player.name}{marks}")
    if pos.whirlpool == place:
        labels.insert(0, "~whirlpool~")
    if pos.beaver == place:
        labels.append("beaver")
    if pos.joe is not None and pos.joe.place == place:
        labels.append(f"Joe({pos.joe.gem.label})" if pos.joe.gem is not None else "Joe")
    return "  ".join(labels)


def picture(pos: Position) -> str:
    """The river from the port to the falls, with forks, caves, canoes and markers."""
    board = pos.board
    shown_caves: set[int] = set()
    rows: list[tuple[str, str, str]] = [("port", "", _canoes_at(pos, PORT))]

    def cave_text(disc: str) -> str:
        colour = board.cave[disc]
        if colour is None:
            return ""
        if colour in shown_caves:
            return f"[{colour.label} cave]"
        shown_caves.add(colour)
        return f"[{colour.label} cave: {pos.cave(colour).describe()}]"

    def walk(disc: str, prefix: str) -> None:
        while True:
            rows.append((prefix + disc, cave_text(disc), _canoes_at(pos, disc)))
            down = board.down[disc]
            if not down:
                rows.append((prefix + "~ falls ~", "", ""))
                return
            if len(down) == 1:
                disc = down[0]
                continue
            marker = pos.marker(disc) if disc in board.labels else None
            labels = board.labels[disc]
            for k, label in enumerate(labels):
                last = k == len(labels) - 1
                flag = "  <- fork marker: the next disc goes here" if label == marker else ""
                rows.append((prefix + ("└─" if last else "├─") + f" {label}", "\0" + flag, ""))
                walk(board.branch[disc, label], prefix + ("   " if last else "│  "))
            return

    walk(board.top, "")
    fallen = _canoes_at(pos, "fallen")
    if fallen:
        rows.append(("fallen", "", fallen))
    plain = [r for r in rows if not r[1].startswith("\0")]
    width = max(len(r[0]) for r in plain) + 2
    cave_width = max(len(r[1]) for r in plain) + 2
    return "\n".join((f"  {a}{b[1:]}" if b.startswith("\0") else f"  {a:<{width}}{b:<{cave_width}}{c}").rstrip()
                     for a, b, c in rows)


def header(pos: Position) -> str:
    """Round, phase, ruleset, board, weather, lifebuoy, fork markers."""
    names = [p.name for p in pos.players]
    if pos.phase is Phase.CARDS and winners(pos):  # no phase is to come: the game ended with the last round
        phase = "the game is over (R-END-2)"
    elif pos.phase is Phase.CARDS:
        phase = "phase I (cards and rescues to come)"
    else:
        phase = "phase II (" + (f"acted: {', '.join(names[i] for i in pos.acted)}" if pos.acted
                                else "nobody has acted") + ")"
    forks = ", ".join(f"{f} -> {lab}" for f, lab in pos.forks) or "none"
    board = pos.board.name or "inline"
    lines = [f"Round {pos.round} · {phase}",
             f"ruleset {pos.ruleset.describe()} · board {board} · weather {weather_text(pos.weather)} · "
             f"lifebuoy {names[pos.lifebuoy]} · fork marker {forks}"]
    pieces = []
    if pos.whirlpool is not None:
        pieces.append(f"whirlpool {pos.whirlpool}")
    if pos.ruleset.x_beaver:
        pieces.append(f"beaver {pos.beaver or 'off the river'}")
    if pos.moose is not None:
        pieces.append(f"moose {pos.moose.value}")
    if pos.joe is not None:
        pieces.append(f"Diamond Joe {pos.joe.describe()}")
    if pieces:
        lines.append(" · ".join(pieces))
    nxt = pos.next_to_act() if pos.phase is Phase.TURNS else None
    if nxt is not None:
        lines.append(f"next to act: {names[nxt]}")
    return "\n".join(lines)


def gems_to_goal(player: Player) -> int:
    """The fewest gems the player must still bank to reach the goal (R-END-1): the nearest of 7 gems, one of each
    colour and 4 of one colour; 0 when reached."""
    bank = player.bank
    if goal_reached(player):
        return 0
    return max(0, min(GOAL_TOTAL - bank.total, sum(1 for c in COLOURS if bank.get(c) == 0),
                      GOAL_SAME - max(bank.get(c) for c in COLOURS)))


def goal_text(player: Player) -> str:
    """``reached``, or how many gems the player must still bank (``2 to bank``)."""
    short = gems_to_goal(player)
    return "reached" if short == 0 else f"{short} to bank"


#: What the marks of the players table mean, printed under it.
PLAYERS_KEY = ("* holds the lifebuoy: acts first in phase II (R-COMP-5, R-TURN-1)\n"
               "goal: reached, or the fewest gems still to bank for 7 gems, one of each colour or 4 of one (R-END-1)")


def players_table(pos: Position) -> str:
    """One row per player: canoes, hand, chosen card, bank, value, goal; and what ``*`` and the goal mean."""
    rows = []
    for i, p in enumerate(pos.players):
        card = "-" if p.card is None else (p.card.label + (" (played)" if i in pos.acted else ""))
        rows.append([p.name + (" *" if i == pos.lifebuoy else ""), "; ".join(c.describe() for c in p.canoes),
                     " ".join(c.label for c in p.hand), card, p.bank.describe(), p.bank.value, goal_text(p)])
    return tabulate(rows, headers=["player", "canoes", "hand", "card", "bank", "value", "goal"]) + "\n" + PLAYERS_KEY


def show(pos: Position) -> str:
    """The whole picture: header, river, players (``*`` marks the lifebuoy holder)."""
    parts = [header(pos), "", picture(pos), "", players_table(pos)]
    if pos.phase is Phase.CARDS:
        won = winners(pos)
        if won:
            parts += ["", "The game is over: " + ", ".join(pos.players[i].name for i in won)
                      + (" win" if len(won) > 1 else " wins") + " (R-END-2, R-END-3)."]
    return "\n".join(parts)


def report_cells(reports: Sequence[CanoeReport]) -> list[str]:
    """Table cells for a turn: spent, ends, loaded, unloaded, banked, stolen."""
    def join(parts: list[str]) -> str:
        return "; ".join(p or "-" for p in parts) if any(parts) else ""
    return [join([f"{r.start}: {r.spent}" for r in reports]),
            join([r.end for r in reports]),
            join([",".join(c.label for c in r.loaded) for r in reports]),
            join([",".join(c.label for c in r.unloaded) for r in reports]),
            join([",".join(c.label for c in r.banked) for r in reports]),
            join([",".join(f"{v}'s {c.label}" for v, c in r.stolen) for r in reports])]


def falls_text(fell: Sequence[tuple[int, str, tuple[Colour, ...]]], pos: Position) -> str:
    """The canoes that went over the falls, each with the disc it fell from and the gems it carried back to their
    caves (R-FLOW-6): ``red from 7L (ruby back to its cave), blue from 8``; ``pos`` names the owners."""
    names = [p.name for p in pos.players]
    return ", ".join(f"{names[o]} from {d}" + (f" ({','.join(g.label for g in gems)} back to its cave)" if gems else "")
                     for o, d, gems in fell)


def flow_text(report: FlowReport) -> str:
    """``flow``'s answer: every outcome of the open branches with its picture (R-FLOW-4), or the one flow, what
    went over the falls and the picture after it."""
    if report.result is None:
        return "\n".join([f"fork_policy free: {len(report.outcomes)} distinct outcome(s) of {report.steps} step(s) "
                          "(R-FLOW-4)", *(f"\nbranches {choices_text(made, report.start)}:\n{picture(after)}"
                                          for made, after in report.outcomes)])
    fell = falls_text(report.result.fell, report.start) or "nothing"
    return f"The river flows {report.steps} step(s); over the falls: {fell}.\n\n{picture(report.result.position)}"


def round_text(record: RoundRecord) -> str:
    """A played round, phase by phase."""
    start = record.start
    names = [p.name for p in start.players]
    lines = [f"Round {start.round} · lifebuoy {names[start.lifebuoy]} · weather {weather_text(start.weather)}"
             + (f" · fork {', '.join(lab for _, lab in start.forks)}" if start.forks else "")]
    made = [f"{names[i]} {r}" for i, r in record.rescues if r.payments]
    cards = record.turns_start
    lines.append("  I   rescues: " + (", ".join(made) if made else "none") + " · cards: "
                 + ", ".join(f"{p.name} {p.card.label if p.card is not None else '?'}" for p in cards.players))
    for t in record.turns:
        lines.append(f"  II  {names[t.player]} ({t.card.label}): {t.turn}")
    before = record.before_flow
    paddles = [p.card for p in before.players if p.card is not None and p.card.is_paddle]
    smallest = min(int(c) for c in paddles) if paddles else 0
    flow_line = f"  III flow {record.flow} = smallest paddle {smallest} + weather {before.weather:+d}"
    if before.ruleset.min_flow or smallest + before.weather < 0:
        flow_line += f", at least {before.ruleset.min_flow} (R-FLOW-2)"
    if record.choices is not None:
        flow_line += f" branches {choices_text(record.choices, before)}"
    if record.fell:
        flow_line += "; over the falls: " + falls_text(record.fell, start)
    lines.append(flow_line)
    lines.append(f"  IV  lifebuoy -> {names[record.end.lifebuoy]}")
    lines.append("  banks: " + "; ".join(f"{p.name} {p.bank.describe()}" for p in record.end.players))
    won = winners(record.end)
    if won:
        lines.append("  game over: " + ", ".join(names[i] for i in won) + (" win" if len(won) > 1 else " wins"))
    return "\n".join(lines)


def game_end(played: int, last_round: int, won: Sequence[str] | None) -> str:
    """How a game ended, in one wording for every page: its winners (R-END-2, R-END-3), or that it stopped before it
    was over. ``played``: the rounds played; ``last_round``: the number of the last one; ``won``: the winners' names,
    None while the game is not over. A game over before any round was played (a position whose players already met
    the goal) says so, not "after round 0"."""
    if won is None:
        return f"Stopped after {played} round(s); the game is not over."
    verb = "win" if len(won) > 1 else "wins"
    when = f"after round {last_round}" if played else "before a round was played"
    return f"Game over {when}: {', '.join(won)} {verb} (R-END-2, R-END-3)."


def playout_end(game: Playout) -> str:
    """How a played game ended: its winners (R-END-2, R-END-3), or that it stopped before it was over."""
    return game_end(len(game.records), game.last_round, game.winners if game.finished else None)


GOAL_QUESTIONS = {"win": "force a win", "steal": "force a steal", "safe": "keep every gem safe"}


def play_text(card: str | None, turn: object) -> str:
    """A solver's advice in words: ``play card 2, turn "1: <port; 2: <port"``. The turn is quoted, so its own
    colons and semicolons do not read as more cards; a turn that only repeats its card (the Lasso's ``lasso``) is
    not written twice."""
    text = f"play card {card}" if card is not None else "play the chosen card"
    return text + (f', turn "{turn}"' if turn and str(turn) != card else "")


def _options_text(options: list[str]) -> str:
    """Options listed together: ``red plays 1, 2, cloud`` where they share the words before the card, else each in
    full, separated by semicolons."""
    if len(options) > 1:
        head = options[0].rpartition(" ")[0] + " "
        if head.strip() and all(o.startswith(head) and " " not in o[len(head):] for o in options):
            return head + ", ".join(o[len(head):] for o in options)
    return "; ".join(options)


def answer_text(answer: Any) -> str:
    """A solver answer in words: the verdict, the card and turn, the line, or the refutations."""
    rounds = "this round" if answer.horizon == 1 else f"within {answer.horizon} rounds"
    lines = [f"Can {answer.player} {GOAL_QUESTIONS[answer.goal.value]} {rounds}, whatever the others do? "
             f"{answer.word.upper()} ({answer.backend}, {answer.seconds:.2f} s)"]
    if answer.note:
        lines.append(f"  {answer.note}")
    if answer.verdict is Verdict.CONFIRMED:
        if answer.card is not None or answer.turn:
            lines.append("  " + play_text(answer.card.label if answer.card is not None else None, answer.turn))
        if answer.line:
            lines.append("  for example: " + " → ".join(answer.line))
    elif answer.verdict is Verdict.REFUTED and answer.refutations:
        lines.append("  every option fails:")
        # Options that fail the same way are said once (every card of X cut by one bound: one line, not seven).
        failures: dict[str, list[str]] = {}
        for r in answer.refutations:
            failures.setdefault(" → ".join(r["answer"]) or "no way through", []).append(r["option"])
        for why, options in failures.items():
            lines.append(f"    {_options_text(options)}: {why}")
    details = answer.details
    if "cards" in details:
        rows = [[card, ", ".join(v.get("possible", [])) or "-", ", ".join(v.get("sure", [])) or "-"]
                for card, v in details["cards"].items()]
        lines.append("  steals this round by card (possible: for some play before; sure: for every play):")
        lines.append("    " + tabulate(rows, headers=["card", "possible from", "sure from"]).replace("\n", "\n    "))
    if "threats" in details:
        for t in details["threats"]:
            who = ", ".join(f"{x['player']} with {'/'.join(x['cards'])}" for x in t["threats"]) or "nobody"
            lines.append(f"  threats to {t['canoe']}: {who}")
    if "falls" in details:
        for f in details["falls"]:
            falls = (f"over the falls at a flow of {_flows(f['falls at'])}" if f["falls at"]
                     else "no flow this round takes it over the falls")
            lines.append(f"  the canoe on {f['canoe']}: {falls}" + (
                f" (and perhaps at {_flows(f['may fall at'])}, by the branches taken)" if f.get("may fall at") else ""))
    return "\n".join(lines)


def _flows(values: list[int]) -> str:
    """Flows in words, runs of consecutive flows as ranges: ``3``, ``3 or 5``, ``2 to 8``, ``1, 3 to 5 or 7``."""
    runs: list[list[int]] = []
    for v in sorted(values):
        if runs and v == runs[-1][-1] + 1:
            runs[-1].append(v)
        else:
            runs.append([v])
    shown = [item for r in runs for item in ([f"{r[0]} to {r[-1]}"] if len(r) > 2 else map(str, r))]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


def analysis_text(result: dict[str, Any]) -> str:
    """The analysis of every player, as tables."""
    out = [""]
    wins, steals, threat_rows, fall_rows = [], [], [], []
    for p in result["players"]:
        name = p["name"]
        if "win" in p:
            w = p["win"]
            how = ""
            if ANSWER.parse(w["verdict"]) is Verdict.CONFIRMED:
                card = w.get("card")
                how = play_text(None if card is None else str(card), w.get("turn"))
            elif w.get("note"):
                how = w["note"]
            wins.append([name, w["verdict"].upper(), how])
        if "steals" in p:
            exact = p["steals"]["exact"]
            for card, v in p["steals"]["cards"].items():
                if v["possible"]:
                    steals.append([name, card, ", ".join(v["possible"]), ", ".join(v["sure"]) or "-", exact])
        for t in p.get("threats", []):
            threat_rows.append([name, t["canoe"], "; ".join(f"{x['player']} with {'/'.join(x['cards'])}"
                                                            for x in t["threats"]) or "nobody"])
        for f in p.get("falls", []):
            fall_rows.append([name, f["canoe"], ", ".join(map(str, f["falls at"])) or "never",
                              ", ".join(map(str, f.get("may fall at", []))) or "-"])
    out.append("Forced win this round, whatever the others do (R-END-1..3):")
    out.append(tabulate(wins, headers=["player", "answer", "how"]))
    out.append("\nSteal chances this round (possible: for some play of the players before; sure: for every play):")
    if steals and all(row[4] for row in steals):
        out.append(tabulate([row[:4] for row in steals], headers=["player", "card", "possible from", "sure from"]))
    elif steals:
        # Too many plays come before some player to go through them all: their row is what they could steal
        # acting on the position as it is, and the table says which rows are such.
        out.append(tabulate([[*row[:4], "every play before" if row[4] else "acting now"] for row in steals],
                            headers=["player", "card", "possible from", "sure from", "reckoned over"]))
    elif any("steals" in p.get("unfinished", []) for p in result["players"]):
        out.append("  no steal found among the players reckoned in time")
    else:
        out.append("  no player can steal this round")
    out.append("\nThreats to loaded canoes (who could take the gem, acting on the position as it is):")
    out.append(tabulate(threat_rows, headers=["player", "canoe", "threatened by"]) if threat_rows
               else "  no loaded canoe on the river")
    out.append("\nFall risk (flows that carry a canoe over the falls if it stays):")
    if any(row[3] != "-" for row in fall_rows):
        # Only with fork_policy free do the branches taken decide a fall (R-FLOW-4).
        out.append(tabulate(fall_rows, headers=["player", "canoe", "falls at flow", "may fall at flow"]))
        out.append("  (falls at: whichever branches the discs take; may fall at: on some branches only, "
                   "fork_policy free, R-FLOW-4)")
    elif fall_rows:
        out.append(tabulate([row[:3] for row in fall_rows], headers=["player", "canoe", "falls at flow"]))
    else:
        out.append("  no canoe on the river")
    unfinished = [f"{p['name']}: {', '.join(p['unfinished'])}" for p in result["players"] if p.get("unfinished")]
    if unfinished:
        out.append("\nNot reckoned within the time limit (--timeout), so left out above: " + "; ".join(unfinished))
    out.append("\nFlow by the smallest paddle played (R-FLOW-1, R-FLOW-2):")
    out.append(tabulate([[r["smallest paddle"], r["flow now"], "{}..{}".format(*r["flow range with clouds"])]
                         for r in result["flows"]], headers=["smallest paddle", "flow", "if clouds move the weather"]))
    if "advice" in result:
        out.append("\n" + advice_text(result["advice"]))
    return "\n".join(out)


def advice_text(advice: dict[str, Any]) -> str:
    """A player's cards ranked by simulated continuations (:mod:`niagara_solver.solver.advice`), labelled as the
    estimate it is."""
    name = advice["player"]
    if advice.get("unfinished"):
        return f"Advice for {name}: not reckoned within the time limit (--timeout)."
    head = (f"Advice for {name} (an ESTIMATE from simulated play, not a proof): each card played on "
            f"{advice['continuations']} times,\nat most {advice['rounds']} round(s) each, every other choice by the "
            f"{advice['policy']} policy (seed {advice['seed']}); best first:")
    rows = []
    for c in advice["cards"]:
        wins, change = c["wins"], c["bank_change"]
        rate = f"{100 * wins['value']:.0f}% ({100 * wins['low']:.0f}–{100 * wins['high']:.0f}%)"
        rows.append([c["card"], c["turn"], rate, _change_interval(change),
                     f"{c['banked']['value']:.2f} / {c['paid']['value']:.2f}"])
    legend = ("bank change = gems banked − gems paid for rescues (R-RESCUE-1; nothing else takes from a bank, "
              "R-PROP-9), means over the continuations")
    return "\n".join([head, tabulate(rows, headers=["card", "turn if acting now", "wins (95% CI)",
                                                     "bank change (95% CI)", "banked / paid"],
                                     disable_numparse=True), legend])


def _change_interval(figure: dict[str, Any]) -> str:
    """A mean change with its interval: ``+1.65 (1.44–1.86)``, or ``-0.95 (-1.05 to -0.85)`` where a bound is below
    0 (a dash between negative numbers would read as a minus)."""
    value, low, high = figure["value"], figure["low"], figure["high"]
    if low is None or high is None:
        return f"{value:+.2f}"
    if low < 0:
        return f"{value:+.2f} ({low:.2f} to {high:.2f})"
    return f"{value:+.2f} ({low:.2f}–{high:.2f})"
