"""Text pictures of positions, turns and rounds for the terminal."""

from __future__ import annotations

from typing import Sequence

from tabulate import tabulate

from ..engine.apply import CanoeReport
from ..engine.flow import choices_text
from ..engine.round import RoundRecord, goal_reached, winners
from ..rules.atoms import PORT, Phase
from ..rules.position import Position

WEATHER_NAMES = {-1: "sun", 0: "calm", 1: "rain", 2: "storm"}


def weather_text(weather: int) -> str:
    """``+1 (rain)``."""
    return f"{weather:+d} ({WEATHER_NAMES.get(weather, '?')})" if weather else "0 (calm)"


def _canoes_at(pos: Position, place: str) -> str:
    labels = []
    for player in pos.players:
        for canoe in player.canoes:
            if canoe.place == place:
                labels.append(f"{player.name}({','.join(g.label for g in canoe.gems)})" if canoe.gems
                              else player.name)
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
    phase = ("phase I (cards and rescues to come)" if pos.phase is Phase.CARDS
             else "phase II (" + (f"acted: {', '.join(names[i] for i in pos.acted)}" if pos.acted
                                  else "nobody has acted") + ")")
    forks = ", ".join(f"{f} -> {lab}" for f, lab in pos.forks) or "none"
    board = pos.board.name or "inline"
    lines = [f"Round {pos.round} · {phase}",
             f"ruleset {pos.ruleset.describe()} · board {board} · weather {weather_text(pos.weather)} · "
             f"lifebuoy {names[pos.lifebuoy]} · fork marker {forks}"]
    nxt = pos.next_to_act() if pos.phase is Phase.TURNS else None
    if nxt is not None:
        lines.append(f"next to act: {names[nxt]}")
    return "\n".join(lines)


def players_table(pos: Position) -> str:
    """One row per player: canoes, hand, chosen card, bank, value, goal."""
    rows = []
    for i, p in enumerate(pos.players):
        card = "-" if p.card is None else (p.card.label + (" (played)" if i in pos.acted else ""))
        rows.append([p.name + (" *" if i == pos.lifebuoy else ""), "; ".join(c.describe() for c in p.canoes),
                     " ".join(c.label for c in p.hand), card, p.bank.describe(), p.bank.value,
                     "reached" if goal_reached(p) else ""])
    return tabulate(rows, headers=["player", "canoes", "hand", "card", "bank", "value", "goal"])


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
        flow_line += "; over the falls: " + ", ".join(
            f"{names[o]} from {d}" + (f" ({','.join(g.label for g in gems)} back to its cave)" if gems else "")
            for o, d, gems in record.fell)
    lines.append(flow_line)
    lines.append(f"  IV  lifebuoy -> {names[record.end.lifebuoy]}")
    lines.append("  banks: " + "; ".join(f"{p.name} {p.bank.describe()}" for p in record.end.players))
    won = winners(record.end)
    if won:
        lines.append("  game over: " + ", ".join(names[i] for i in won) + (" win" if len(won) > 1 else " wins"))
    return "\n".join(lines)
