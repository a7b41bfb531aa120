"""SVG pictures of positions: the river as a graph from the port to the falls, caves with their gems, canoes in
their players' colours with their cargo, the weather, the fork markers, the lifebuoy and the banks. A turn can
be drawn on top as a path per acting canoe."""

from __future__ import annotations

from html import escape
from typing import Callable, Iterable

from niagara_solver.engine.round import is_finished, winners
from niagara_solver.model.board import Board
from niagara_solver.model.notation import Load, Move, Push, Steal, Turn, Unload
from niagara_solver.model.atoms import COLOURS, FALLEN, PORT, Colour
from niagara_solver.model.position import Position

GEM_FILL = {Colour.AMETHYST: "#8e44ad", Colour.DIAMOND: "#f4f6f7", Colour.AMBER: "#f1c40f",
            Colour.SAPPHIRE: "#2e6bd8", Colour.RUBY: "#e0245e"}
NAMED = {"red": "#d62828", "blue": "#1d4ed8", "green": "#2a9d3f", "yellow": "#e9b20e", "black": "#222222",
         "purple": "#7b2cbf", "orange": "#f77f00", "white": "#bbbbbb", "pink": "#ff5d8f", "brown": "#8d5524"}
PALETTE = ["#d62828", "#1d4ed8", "#2a9d3f", "#e9b20e", "#7b2cbf", "#f77f00"]
ROW, COL = 62, 150
LEFT, TOP = 40, 104
RIVER_WIDTH = 560
#: The side panel's width (weather, players, legend).
PANEL = 330
DISC_R = 15
#: The port: canoes per row and half its width (room for 6 canoes a row, two rows for 6 players' 12).
PORT_ROW = 6
PORT_HALF = 140


def player_colours(pos: Position) -> list[str]:
    """Each player's colour: the named colour for a player called after one, else the palette in seat order."""
    return [NAMED.get(p.name.lower(), PALETTE[i % len(PALETTE)]) for i, p in enumerate(pos.players)]


def layout(board: Board) -> dict[str, tuple[float, float]]:
    """Coordinates of every place: depth downwards, branches spread by their number of brinks."""
    order: list[str] = []

    def leaves(disc: str) -> None:
        if not board.down[disc]:
            order.append(disc)
        for child in board.down[disc]:
            leaves(child)
    leaves(board.top)
    span = max(1, len(order) - 1)
    column = {leaf: LEFT + 40 + i * (RIVER_WIDTH - 80) / span if len(order) > 1 else LEFT + RIVER_WIDTH / 2
              for i, leaf in enumerate(order)}

    def x_of(disc: str) -> float:
        if disc in column:
            return column[disc]
        xs = [x_of(c) for c in board.down[disc]]
        column[disc] = sum(xs) / len(xs)
        return column[disc]
    x_of(board.top)
    at: dict[str, tuple[float, float]] = {d: (column[d], float(TOP + board.depth[d] * ROW)) for d in board.discs}
    at[PORT] = (column[board.top], float(TOP))
    return at


def _gem(x: float, y: float, colour: Colour, r: float = 5.0) -> str:
    stroke = "#888" if colour is Colour.DIAMOND else "#333"
    return (f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{GEM_FILL[colour]}" stroke="{stroke}" '
            f'stroke-width="0.8"><title>{colour.label}</title></circle>')


def _canoe(x: float, y: float, fill: str, owner: str, place: str, gems: Iterable[Colour], double: bool = False,
           moose: bool = False, moored: bool = False) -> str:
    """A canoe: a hull in its owner's colour with its cargo; the double canoe longer, with a thwart between its two
    places (X-DOUBLE-1); the moose's antlers above the canoe holding it (X-MOOSE-2); a rope for a moored one."""
    half = 18 if double else 14
    body = (f'<path d="M {x - half:.1f} {y - 4:.1f} Q {x:.1f} {y + 12:.1f} {x + half:.1f} {y - 4:.1f} Z" '
            f'fill="{fill}" stroke="#111" stroke-width="{1.6 if double else 0.8}"/>')
    if double:
        body += f'<line x1="{x:.1f}" y1="{y - 4:.1f}" x2="{x:.1f}" y2="{y + 3:.1f}" stroke="#111" stroke-width="1"/>'
    # Each gem on a white ring: a ruby in a red canoe (or a sapphire in a blue one) stays visible.
    cargo = "".join(f'<circle cx="{x - 4 + 8 * i:.1f}" cy="{y - 1:.1f}" r="5" fill="#fff"/>'
                    + _gem(x - 4 + 8 * i, y - 1, g, 3.6) for i, g in enumerate(gems))
    extra = _antlers(x, y - 8) if moose else ""
    if moored:
        extra += (f'<path d="M {x + half:.1f} {y - 3:.1f} q 8 -8 16 0" fill="none" stroke="#7a5230" '
                  f'stroke-width="1.5" stroke-dasharray="2 2"><title>moored (Lasso)</title></path>')
    kind = "double canoe" if double else "canoe"
    marks = "".join(f", {m}" for m, on in (("holds the moose", moose), ("moored", moored)) if on)
    return (f'<g class="canoe" data-player="{escape(owner)}" data-place="{escape(place)}">'
            f'<title>{escape(owner)} {kind} on {escape(place)}{marks}</title>{body}{cargo}{extra}</g>')


def _antlers(x: float, y: float) -> str:
    """The moose: a small head with two antlers (X-MOOSE-1)."""
    return (f'<g class="moose"><title>the moose</title>'
            f'<path d="M {x - 7:.1f} {y - 7:.1f} l 3 4 l 2 -4 M {x - 4:.1f} {y - 3:.1f} l 2 3 l 2 0 l 2 -3 '
            f'M {x + 7:.1f} {y - 7:.1f} l -3 4 l -2 -4" fill="none" stroke="#6b4226" stroke-width="1.6"/>'
            f'<circle cx="{x:.1f}" cy="{y + 1:.1f}" r="2.6" fill="#6b4226"/></g>')


def render_svg(pos: Position, turn: Turn | None = None, player: int | None = None, title: str | None = None) -> str:
    """The position as an SVG document; ``turn`` (of ``player``) is drawn as a path per acting canoe from start to
    end, with what it loads, unloads, steals and banks where it does so."""
    board = pos.board
    at = layout(board)
    colours = player_colours(pos)
    bottom = TOP + (board.max_depth + 1) * ROW
    width = LEFT + RIVER_WIDTH + PANEL
    in_port = sum(1 for p in pos.players for c in p.canoes if c.place == PORT)
    port_rows = max(1, -(-in_port // PORT_ROW))
    px, py = at[PORT]
    port_bottom = py - 30 + 16 + 18 * port_rows
    drawn = turn is not None and player is not None
    parts: list[str] = []
    heading = title or f"Round {pos.round} · {'phase I' if pos.phase.value == 'cards' else 'phase II'}"
    parts.append(f'<text x="{LEFT}" y="26" font-size="16" font-weight="bold">{escape(_cut(heading, 90))}</text>')
    won = [pos.players[i].name for i in winners(pos)] if is_finished(pos) else []
    caption_y = 46
    if won:
        parts.append(f'<text x="{LEFT}" y="46" font-weight="bold" fill="#1b7a3a">Game over: '
                     f'{escape(_cut(", ".join(won), 60))} {"win" if len(won) > 1 else "wins"} (R-END-2, R-END-3)'
                     '</text>')
        caption_y = 62

    # The river: edges, the caves' links, then the falls; turns go under the discs, so no label is covered.
    for disc in board.discs:
        x1, y1 = at[disc]
        x0, y0 = at[board.up[disc]]
        parts.append(f'<line x1="{x0:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y1:.1f}" stroke="#9cc9e8" '
                     f'stroke-width="16" stroke-linecap="round"/>')
        if not board.down[disc]:
            parts.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x1:.1f}" y2="{bottom:.1f}" stroke="#9cc9e8" '
                         f'stroke-width="16" stroke-dasharray="4 4"/>')
            parts.append(f'<text x="{x1:.1f}" y="{bottom + 16:.1f}" text-anchor="middle" fill="#1f5f8b">falls</text>')
    parts += _cave_links(pos, at)
    parts.append(f'<rect x="{px - PORT_HALF:.1f}" y="{py - 30:.1f}" width="{2 * PORT_HALF}" '
                 f'height="{port_bottom - py + 30:.1f}" rx="6" fill="#d9c7a3" stroke="#8a7350"/>'
                 f'<text x="{px - PORT_HALF + 6:.1f}" y="{py - 10:.1f}" fill="#5a4a2f">port</text>')
    if drawn:
        assert turn is not None and player is not None
        parts += _turn_paths(board, turn, at, (px, port_bottom), colours[player], player)
    shown: set[Colour] = set()
    for disc in board.discs:
        x, y = at[disc]
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{DISC_R}" fill="#cfe8f7" stroke="#5b9ac4"/>'
                     f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" font-size="11" fill="#1f5f8b">'
                     f'{escape(disc)}</text>')
        cave = board.cave[disc]
        if cave is not None:
            parts += _cave(pos, cave, disc, x, y, cave not in shown)
            shown.add(cave)
    # Fork markers: a tag on the branch the next disc takes (a token, not an arrow: nothing moves there).
    for fork, label in pos.forks:
        fx, fy = at[fork]
        tx, ty = at[board.branch[fork, label]]
        parts.append(_fork_tag(fx + (tx - fx) * 0.42, fy + (ty - fy) * 0.42, label))

    # Canoes: stacked beside their disc, in the port, or among the fallen.
    slots: dict[str, int] = {}
    for i, p in enumerate(pos.players):
        for canoe in p.canoes:
            n = slots.get(canoe.place, 0)
            slots[canoe.place] = n + 1
            if canoe.place == PORT:
                x, y = px - PORT_HALF + 62 + 34 * (n % PORT_ROW), py - 14 + 18 * (n // PORT_ROW)
            elif canoe.place == FALLEN:
                x, y = LEFT + 20 + 30 * n, bottom + 50
            else:
                dx, dy = at[canoe.place]
                x, y = dx - 34 - 30 * (n % 3), dy - 6 + 14 * (n // 3)
            parts.append(_canoe(x, y, colours[i], p.name, canoe.place, canoe.gems, canoe.double, canoe.moose,
                                canoe.moored))
    if slots.get(FALLEN):
        parts.append(f'<text x="{LEFT}" y="{bottom + 34:.1f}" fill="#555">fallen</text>')
    parts += _pieces(pos, at, slots)

    # What the turn does on its way: loads, unloads, steals, and what it banks in the port.
    if drawn:
        assert turn is not None and player is not None
        parts += _turn_steps(pos, turn, player, at, (px + PORT_HALF + 8, py - 22))
        parts.append(f'<text x="{LEFT}" y="{caption_y}" fill="{colours[player]}">'
                     f'{escape(_cut(f"{pos.players[player].name}: {turn}", 120))}</text>')

    panel_bottom = _panel(parts, pos, colours, won, drawn, any(len(d) > 1 for d in board.cave_discs.values()))
    height = max(bottom + 90, panel_bottom + 20)
    head = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="12">',
            _defs(colours), f'<rect width="{width}" height="{height}" fill="#fbfaf7"/>']
    return "\n".join([*head, *parts, "</svg>"])


def _cut(text: str, limit: int) -> str:
    """A text cut to ``limit`` characters with "…", so it stays inside the picture."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _defs(colours: list[str]) -> str:
    """Arrowheads: one per player colour, for the turns (the tip ends where the path ends)."""
    markers = "".join(f'<marker id="arrow-{i}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5" '
                      f'markerHeight="5" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="{c}" '
                      f'stroke="#111" stroke-width="0.6"/></marker>' for i, c in enumerate(colours))
    return f"<defs>{markers}</defs>"


def _cave(pos: Position, cave: Colour, disc: str, x: float, y: float, first: bool) -> list[str]:
    """A cave beside a disc. A cave beside several discs (R-BOARD-4) shows its gems once, beside its first disc;
    beside the others it is drawn pale, linked to the first (see :func:`_cave_links`)."""
    cx = x + 22
    beside = pos.board.cave_discs.get(cave, (disc,))
    where = f"the {cave.label} cave" + (f", beside {' and '.join(beside)} (R-BOARD-4)" if len(beside) > 1 else "")
    pale = "" if first else ' opacity="0.45" stroke-dasharray="3 2"'
    out = [f'<rect x="{cx:.1f}" y="{y - 10:.1f}" width="14" height="20" rx="3" fill="{GEM_FILL[cave]}" '
           f'stroke="#555"{pale}><title>{escape(where)}</title></rect>']
    if not first:
        return out
    gems = [c for c, n in pos.cave(cave).items() for _ in range(n)]
    for i, g in enumerate(gems[:10]):
        out.append(_gem(cx + 22 + (i % 5) * 10, y - 5 + (i // 5) * 10, g, 4))
    if len(gems) > 10:
        out.append(f'<text x="{cx + 72:.1f}" y="{y + 9:.1f}" font-size="9" fill="#555">+{len(gems) - 10}</text>')
    if not gems:
        out.append(f'<text x="{cx + 20:.1f}" y="{y + 4:.1f}" fill="#777">empty</text>')
    return out


def _cave_links(pos: Position, at: dict[str, tuple[float, float]]) -> list[str]:
    """A dashed line, under the river, joining the places of one cave beside several discs: one cave, not two."""
    out = []
    for cave, discs in pos.board.cave_discs.items():
        if len(discs) < 2:
            continue
        points = [(at[d][0] + 29, at[d][1] + 10) for d in discs]
        low = max(y for _, y in points) + 12
        path = " ".join(f"M {x:.1f} {y:.1f} V {low:.1f}" for x, y in points)
        xs = [x for x, _ in points]
        path += f" M {min(xs):.1f} {low:.1f} H {max(xs):.1f}"
        out.append(f'<path class="cave-link" d="{path}" fill="none" stroke="{GEM_FILL[cave]}" stroke-width="2" '
                   f'stroke-dasharray="5 3" opacity="0.8"><title>one {cave.label} cave beside '
                   f'{escape(" and ".join(discs))} (R-BOARD-4)</title></path>')
    return out


def _fork_tag(x: float, y: float, label: str, sample: bool = False) -> str:
    """The fork marker: an orange tag on the branch the next disc takes (R-FLOW-4); ``sample``: the legend's."""
    head = ("<g>" if sample else
            f'<g class="fork-marker"><title>fork marker: the next disc goes down {escape(label)} (R-FLOW-4)</title>')
    return (f'{head}<rect x="{x - 11:.1f}" y="{y - 8:.1f}" width="22" height="16" rx="8" fill="#e76f51" '
            'stroke="#8c3b22"/>'
            f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" font-size="10" font-weight="bold" '
            f'fill="#fff">{escape(_cut(label, 3))}</text></g>')


def _turn_paths(board: Board, turn: Turn, at: dict[str, tuple[float, float]], port_door: tuple[float, float],
                colour: str, player: int) -> list[str]:
    """A dashed path per acting canoe, from the rim of its disc (or the port's edge) to the rim of where it ends,
    drawn under the discs: the arrowhead points at the destination's label without covering it."""
    out = []
    moving = [a for a in turn.actions if a.move is not None and a.canoe.place in at and a.move.dest in at]
    for k, action in enumerate(moving):
        move = action.move
        assert move is not None
        route = _route(board, action.canoe.place, move)
        shift = (k - (len(moving) - 1) / 2) * 8  # two canoes' paths side by side, not on top of each other
        points = [((port_door if r == PORT else at[r])[0] + shift, (port_door if r == PORT else at[r])[1])
                  for r in route]
        if len(points) < 2:
            continue
        points[0] = _towards(points[0], points[1], 0 if route[0] == PORT else DISC_R + 1)
        points[-1] = _towards(points[-1], points[-2], 0 if route[-1] == PORT else DISC_R + 2)
        text = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        out.append(f'<polyline class="turn" points="{text}" fill="none" stroke="{colour}" stroke-width="3" '
                   f'stroke-dasharray="7 4" marker-end="url(#arrow-{player})">'
                   f'<title>{escape(str(action))}</title></polyline>')
    return out


def _towards(a: tuple[float, float], b: tuple[float, float], distance: float) -> tuple[float, float]:
    """The point ``distance`` from ``a`` on the way to ``b``."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = (dx * dx + dy * dy) ** 0.5
    if length == 0 or distance == 0:
        return a
    k = min(distance, length / 2) / length
    return a[0] + dx * k, a[1] + dy * k


def _turn_steps(pos: Position, turn: Turn, player: int, at: dict[str, tuple[float, float]],
                port_spot: tuple[float, float]) -> list[str]:
    """What each acting canoe does where it does it, as small labels: a gem loaded (+), unloaded (−), stolen, or
    banked in the port (read from the turn's notation and the canoe's cargo before it)."""
    badges: dict[str, list[tuple[str, Colour | None, str]]] = {}
    me = pos.players[player]
    for action in turn.actions:
        ref = action.canoe
        canoe = next((c for c in me.canoes if c.place == ref.place and (ref.gems is None or c.gems == ref.gems)),
                     None)
        cargo = list(canoe.gems) if canoe is not None else []
        here = ref.place
        for step in action.steps:
            if isinstance(step, (Move, Push)):
                here = step.dest
            elif isinstance(step, Load):
                cargo.append(step.colour)
                badges.setdefault(here, []).append((f"+ {step.colour.label}", step.colour, "loads"))
            elif isinstance(step, Unload):
                if step.colour in cargo:
                    cargo.remove(step.colour)
                badges.setdefault(here, []).append((f"− {step.colour.label}", step.colour, "unloads into the cave"))
            elif isinstance(step, Steal):
                cargo.append(step.colour)
                badges.setdefault(here, []).append((f"steals {step.victim}'s {step.colour.label}", step.colour,
                                                    "steals (R-STEAL-1)"))
            else:
                badges.setdefault(here, []).append((str(step), None, "acts"))
        if here == PORT and ref.place != PORT and cargo:
            for gem in cargo:
                badges.setdefault(PORT, []).append((f"banks {gem.label}", gem, "banks (R-GEM-4)"))
    out = []
    limit = LEFT + RIVER_WIDTH + 10
    for place, items in badges.items():
        if place not in at:
            continue
        for k, (full, shown_gem, what) in enumerate(items):
            text = _cut(full, 26)
            w = 16 + 6 * len(text)
            if place == PORT:
                x, y = port_spot[0] + (k // 2) * (w + 4), port_spot[1] + 16 * (k % 2)
            else:
                dx, dy = at[place]
                x, y = dx + 20 + (k // 2) * (w + 4), dy - 35 - 15 * (k % 2)
                if x + w > limit:  # near the panel: to the left of the disc instead
                    x = dx - 20 - w - (k // 2) * (w + 4)
            dot = _gem(x + 7, y + 6, shown_gem, 3.5) if shown_gem is not None else ""
            out.append(f'<g class="turn-step"><title>{escape(f"{me.name} {what} on {place}: {text}")}</title>'
                       f'<rect x="{x:.1f}" y="{y - 1:.1f}" width="{w}" height="14" rx="4" fill="#fff" '
                       f'stroke="#555" stroke-width="0.8"/>{dot}<text x="{x + 13:.1f}" y="{y + 9.5:.1f}" '
                       f'font-size="10">{escape(text)}</text></g>')
    return out


def _panel(parts: list[str], pos: Position, colours: list[str], won: list[str], drawn: bool,
           shared_caves: bool) -> float:
    """The side panel: weather, the players (lifebuoy, name, hand and card, bank), the gems' values and a legend of
    every mark the picture uses. Returns how far down it reaches."""
    sx = LEFT + RIVER_WIDTH + 20
    parts.append(f'<text x="{sx}" y="{TOP - 24}" font-weight="bold">weather</text>')
    values = range(pos.ruleset.weather_min, pos.ruleset.weather_max + 1)
    box = min(64, (PANEL - 30) // max(1, len(values)) - 4)
    for k, w in enumerate(values):
        fill = "#f4a261" if w == pos.weather else "#eeeeee"
        name = {-1: "sun", 0: "calm", 1: "rain", 2: "storm"}.get(w, "")
        parts.append(f'<rect x="{sx + k * (box + 4)}" y="{TOP - 14}" width="{box}" height="20" rx="4" fill="{fill}" '
                     f'stroke="#999"/><text x="{sx + k * (box + 4) + box / 2:.1f}" y="{TOP}" text-anchor="middle" '
                     f'font-size="11">{w:+d} {name}</text>')
    y = TOP + 40
    parts.append(f'<text x="{sx}" y="{y}" font-weight="bold">players (seat order)</text>')
    for i, p in enumerate(pos.players):
        y += 22
        lifebuoy = (f'<circle cx="{sx + 6}" cy="{y - 4}" r="7" fill="none" stroke="#e63946" stroke-width="4">'
                    f'<title>lifebuoy: {escape(p.name)} acts first (R-COMP-5)</title></circle>'
                    if i == pos.lifebuoy else "")
        wins = p.name in won
        name = _cut(p.name, 24 if wins else 32)
        parts.append(f'{lifebuoy}<rect x="{sx + 18}" y="{y - 12}" width="12" height="12" fill="{colours[i]}"/>'
                     f'<text x="{sx + 36}" y="{y - 2}"><title>{escape(p.name)}</title>{escape(name)}'
                     + (' <tspan font-weight="bold" fill="#1b7a3a">★ wins</tspan>' if wins else "") + "</text>")
        hand = " ".join(c.label for c in p.hand)
        card = f" · card {p.card.label}" if p.card is not None else ""
        parts.append(f'<text x="{sx + 36}" y="{y + 12}" font-size="10" fill="#555">'
                     f'{escape(_cut(f"hand {hand}{card}", 44))}</text>')
        gems = [c for c, n in p.bank.items() for _ in range(n)]
        parts.append(f'<text x="{sx + 36}" y="{y + 26}" font-size="10" fill="#555">bank</text>')
        for k, g in enumerate(gems[:14]):
            parts.append(_gem(sx + 68 + 11 * k, y + 22, g, 4.5))
        more = f"+{len(gems) - 14} " if len(gems) > 14 else ""
        parts.append(f'<text x="{sx + 68 + 11 * min(len(gems), 14):.0f}" y="{y + 26}" font-size="10" fill="#555">'
                     f'{more}{"none · " if not gems else ""}value {p.bank.value}</text>')
        y += 28
    y += 26
    for k, colour in enumerate(COLOURS):
        parts.append(_gem(sx + 8, y + 16 * k, colour, 5) +
                     f'<text x="{sx + 18}" y="{y + 16 * k + 4}" font-size="10">{colour.label} '
                     f'(value {int(colour)})</text>')
    y += 16 * len(COLOURS) + 6
    legend: list[tuple[Callable[[float], str], str]] = [
        (lambda at: f'<circle cx="{sx + 8}" cy="{at}" r="6" fill="none" stroke="#e63946" stroke-width="3.5"/>',
         "lifebuoy: this player acts first (R-COMP-5)"),
        (lambda at: _gem(sx + 4, at, Colour.RUBY, 3.5) + _gem(sx + 13, at, Colour.AMBER, 3.5),
         "dots after bank: the gems a player banked"),
        (lambda at: _fork_tag(sx + 9, at, "L", sample=True), "fork marker: the next disc's branch (R-FLOW-4)")]
    if shared_caves:
        legend.append((lambda at: f'<line x1="{sx}" y1="{at}" x2="{sx + 18}" y2="{at}" stroke="#2e6bd8" '
                                  'stroke-width="2" stroke-dasharray="5 3"/>',
                       "dashed link: one cave by several discs (R-BOARD-4)"))
    if drawn:
        legend.append((lambda at: f'<line x1="{sx}" y1="{at}" x2="{sx + 18}" y2="{at}" stroke="#555" '
                                  'stroke-width="3" stroke-dasharray="7 4"/>',
                       "dashed path: an acting canoe's way"))
        legend.append((lambda at: f'<rect x="{sx}" y="{at - 7}" width="18" height="13" rx="4" fill="#fff" '
                                  'stroke="#555"/>', "label: gem loaded +, unloaded −, stolen, banked"))
    legend += [((lambda at: f'<circle cx="{sx + 8}" cy="{at}" r="2" fill="#1d3557"/>'), name)
               for name, on in (("dashed ring: the whirlpool", pos.whirlpool is not None),
                                ("brown oval: the beaver", pos.beaver is not None),
                                ("antlers: the moose", pos.moose is not None),
                                ("grey canoe: Diamond Joe", pos.joe is not None),
                                ("long hull: a double canoe", pos.ruleset.x_double)) if on]
    for icon, text in legend:
        parts.append(f'<g class="legend">{icon(y)}<text x="{sx + 26}" y="{y + 4}" font-size="10" fill="#1d3557">'
                     f'{escape(text)}</text></g>')
        y += 18
    return y


def _pieces(pos: Position, at: dict[str, tuple[float, float]], slots: dict[str, int]) -> list[str]:
    """The expansion's pieces (RULES.md section X), each drawn and named so a player recognises it."""
    out: list[str] = []
    board = pos.board
    px, py = at[PORT]
    notes: list[str] = []
    if pos.whirlpool is not None:
        if pos.whirlpool in at:
            x, y = at[pos.whirlpool]
            out.append(f'<g class="whirlpool"><title>the whirlpool (X-WHIRL-1)</title>'
                       f'<circle cx="{x:.1f}" cy="{y:.1f}" r="19" fill="none" stroke="#1d3557" stroke-width="2" '
                       f'stroke-dasharray="9 4"/><path d="M {x - 8:.1f} {y:.1f} a 8 8 0 1 1 8 8 a 5 5 0 1 1 -5 -5" '
                       f'fill="none" stroke="#1d3557" stroke-width="1.3" opacity="0.6"/></g>')
        else:
            notes.append("whirlpool: over the falls, enters at the top with the next flow step")
    if pos.beaver is not None and pos.beaver in at:
        x, y = at[pos.beaver]
        out.append(f'<g class="beaver"><title>the beaver (X-BEAVER-1)</title><ellipse cx="{x:.1f}" '
                   f'cy="{y + 24:.1f}" rx="16" ry="7" fill="#8d5524" stroke="#4a2c12"/><text x="{x:.1f}" '
                   f'y="{y + 27:.1f}" text-anchor="middle" font-size="8" fill="#fff">beaver</text></g>')
    if pos.moose is not None and pos.moose.value != "held":
        ruby = board.cave_discs.get(Colour.RUBY, ())
        if pos.moose.value == "waiting" and ruby:
            x, y = at[ruby[0]]
            out.append(f'<g class="moose-waiting"><title>the moose, waiting at the ruby cave (X-MOOSE-1)</title>'
                       f'{_antlers(x + 30, y + 24)}<text x="{x + 40:.1f}" y="{y + 28:.1f}" font-size="9" '
                       f'fill="#6b4226">moose</text></g>')
        else:
            notes.append("moose: returning to the ruby cave after phase III")
    if pos.joe is not None and pos.joe.place in at:
        x, y = at[pos.joe.place]
        n = slots.get(pos.joe.place, 0)
        jx, jy = x - 34 - 30 * (n % 3), y - 6 + 14 * (n // 3)
        gems = [pos.joe.gem] if pos.joe.gem is not None else []
        hull = (f'<path d="M {jx - 14:.1f} {jy - 4:.1f} Q {jx:.1f} {jy + 12:.1f} {jx + 14:.1f} {jy - 4:.1f} Z" '
                f'fill="#b0b0b0" stroke="#111" stroke-width="0.8"/>')
        cargo = "".join(_gem(jx, jy - 1, g, 3.6) for g in gems)
        out.append(f'<g class="joe"><title>Diamond Joe (X-JOE-1)</title>{hull}{cargo}<text x="{jx:.1f}" '
                   f'y="{jy + 18:.1f}" text-anchor="middle" font-size="9" fill="#333">Joe</text></g>')
    for k, note in enumerate(notes):
        out.append(f'<text x="{px + 100:.1f}" y="{py - 16 + 13 * k:.1f}" font-size="10" fill="#1d3557">'
                   f'{escape(note)}</text>')
    return out


def _route(board: Board, start: str, move: Move) -> list[str]:
    """The places a movement passes, from start to destination along the river."""
    if move.downstream:
        chain = [move.dest, *board.above(move.dest)]
        return list(reversed(chain[: chain.index(start) + 1])) if start in chain else [start, move.dest]
    chain = [start, *board.above(start)]
    return chain[: chain.index(move.dest) + 1] if move.dest in chain else [start, move.dest]
