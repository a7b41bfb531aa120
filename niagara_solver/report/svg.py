"""SVG pictures of positions: the river as a graph from the port to the falls, caves with their gems, canoes in
their players' colours with their cargo, the weather, the fork markers, the lifebuoy and the banks. A turn can
be drawn on top as a path per acting canoe."""

from __future__ import annotations

from html import escape
from typing import Iterable

from niagara_solver.model.board import Board
from niagara_solver.model.notation import Move, Turn
from niagara_solver.model.atoms import COLOURS, FALLEN, PORT, Colour
from niagara_solver.model.position import Position

GEM_FILL = {Colour.AMETHYST: "#8e44ad", Colour.DIAMOND: "#f4f6f7", Colour.AMBER: "#f1c40f",
            Colour.SAPPHIRE: "#2e6bd8", Colour.RUBY: "#e0245e"}
NAMED = {"red": "#d62828", "blue": "#1d4ed8", "green": "#2a9d3f", "yellow": "#e9b20e", "black": "#222222",
         "purple": "#7b2cbf", "orange": "#f77f00", "white": "#bbbbbb", "pink": "#ff5d8f", "brown": "#8d5524"}
PALETTE = ["#d62828", "#1d4ed8", "#2a9d3f", "#e9b20e", "#7b2cbf"]
ROW, COL = 62, 150
LEFT, TOP = 40, 96
RIVER_WIDTH = 560


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
    cargo = "".join(_gem(x - 4 + 8 * i, y - 1, g, 3.6) for i, g in enumerate(gems))
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
    """The position as an SVG document; ``turn`` (of ``player``) is drawn as paths from start to end."""
    board = pos.board
    at = layout(board)
    colours = player_colours(pos)
    bottom = TOP + (board.max_depth + 1) * ROW
    width = LEFT + RIVER_WIDTH + 300
    height = max(bottom + 90, TOP + 60 + 34 * len(pos.players) + 200)
    parts: list[str] = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                        f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="12">',
                        f'<rect width="{width}" height="{height}" fill="#fbfaf7"/>']
    heading = title or f"Round {pos.round} · {'phase I' if pos.phase.value == 'cards' else 'phase II'}"
    parts.append(f'<text x="{LEFT}" y="26" font-size="16" font-weight="bold">{escape(heading)}</text>')

    # The river: edges, then the falls, then the discs with their caves.
    for disc in board.discs:
        x1, y1 = at[disc]
        parent = board.up[disc]
        x0, y0 = at[parent]
        parts.append(f'<line x1="{x0:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y1:.1f}" stroke="#9cc9e8" '
                     f'stroke-width="16" stroke-linecap="round"/>')
        if not board.down[disc]:
            parts.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x1:.1f}" y2="{bottom:.1f}" stroke="#9cc9e8" '
                         f'stroke-width="16" stroke-dasharray="4 4"/>')
            parts.append(f'<text x="{x1:.1f}" y="{bottom + 16:.1f}" text-anchor="middle" fill="#1f5f8b">falls</text>')
    px, py = at[PORT]
    parts.append(f'<rect x="{px - 90:.1f}" y="{py - 30:.1f}" width="180" height="32" rx="6" fill="#d9c7a3" '
                 f'stroke="#8a7350"/><text x="{px - 84:.1f}" y="{py - 10:.1f}" fill="#5a4a2f">port</text>')
    shown: set[Colour] = set()
    for disc in board.discs:
        x, y = at[disc]
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="15" fill="#cfe8f7" stroke="#5b9ac4"/>'
                     f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" font-size="11" fill="#1f5f8b">'
                     f'{escape(disc)}</text>')
        cave = board.cave[disc]
        if cave is not None:
            cx = x + 22
            parts.append(f'<rect x="{cx:.1f}" y="{y - 10:.1f}" width="14" height="20" rx="3" fill="{GEM_FILL[cave]}" '
                         f'stroke="#555"><title>{cave.label} cave</title></rect>')
            if cave not in shown:
                shown.add(cave)
                content = pos.cave(cave)
                gems = [c for c, n in content.items() for _ in range(n)]
                for i, g in enumerate(gems[:10]):
                    parts.append(_gem(cx + 22 + (i % 5) * 10, y - 5 + (i // 5) * 10, g, 4))
                if not gems:
                    parts.append(f'<text x="{cx + 20:.1f}" y="{y + 4:.1f}" fill="#777">empty</text>')
    # Fork markers: an arrow toward the branch the next disc takes.
    for fork, label in pos.forks:
        fx, fy = at[fork]
        tx, ty = at[board.branch[fork, label]]
        parts.append(f'<line x1="{fx:.1f}" y1="{fy + 16:.1f}" x2="{fx + (tx - fx) * 0.45:.1f}" '
                     f'y2="{fy + (ty - fy) * 0.45:.1f}" stroke="#e76f51" stroke-width="3" '
                     f'marker-end="url(#arrow)"><title>fork marker: {escape(label)}</title></line>')

    # Canoes: stacked beside their disc, in the port, or among the fallen.
    slots: dict[str, int] = {}
    fallen_x = LEFT
    for i, p in enumerate(pos.players):
        for canoe in p.canoes:
            n = slots.get(canoe.place, 0)
            slots[canoe.place] = n + 1
            if canoe.place == PORT:
                x, y = px - 40 + 24 * (n % 5), py - 12 + 12 * (n // 5)
            elif canoe.place == FALLEN:
                x, y = fallen_x + 20 + 30 * n, bottom + 50
            else:
                dx, dy = at[canoe.place]
                x, y = dx - 34 - 30 * (n % 3), dy - 6 + 14 * (n // 3)
            parts.append(_canoe(x, y, colours[i], p.name, canoe.place, canoe.gems, canoe.double, canoe.moose,
                                canoe.moored))
    if slots.get(FALLEN):
        parts.append(f'<text x="{LEFT}" y="{bottom + 34:.1f}" fill="#555">fallen</text>')
    parts += _pieces(pos, at, slots)

    # The turn, as a path per acting canoe.
    if turn is not None and player is not None:
        for action in turn.actions:
            move = action.move
            if move is None or action.canoe.place not in at or move.dest not in at:
                continue
            route = _route(board, action.canoe.place, move)
            points = " ".join(f"{at[r][0]:.1f},{at[r][1]:.1f}" for r in route)
            parts.append(f'<polyline class="turn" points="{points}" fill="none" stroke="{colours[player]}" '
                         f'stroke-width="3" stroke-dasharray="7 4" marker-end="url(#arrow)">'
                         f'<title>{escape(str(action))}</title></polyline>')
        parts.append(f'<text x="{LEFT}" y="48" fill="{colours[player]}">{escape(pos.players[player].name)}: '
                     f'{escape(str(turn))}</text>')

    # The side panel: weather, lifebuoy, players.
    sx = LEFT + RIVER_WIDTH + 20
    parts.append(f'<text x="{sx}" y="{TOP - 24}" font-weight="bold">weather</text>')
    for k, w in enumerate(range(pos.ruleset.weather_min, pos.ruleset.weather_max + 1)):
        fill = "#f4a261" if w == pos.weather else "#eeeeee"
        name = {-1: "sun", 0: "calm", 1: "rain", 2: "storm"}.get(w, str(w))
        parts.append(f'<rect x="{sx + k * 58}" y="{TOP - 14}" width="54" height="20" rx="4" fill="{fill}" '
                     f'stroke="#999"/><text x="{sx + k * 58 + 27}" y="{TOP}" text-anchor="middle">'
                     f'{w:+d} {name}</text>')
    y = TOP + 40
    parts.append(f'<text x="{sx}" y="{y}" font-weight="bold">players (seat order)</text>')
    for i, p in enumerate(pos.players):
        y += 34
        lifebuoy = (f'<circle cx="{sx + 6}" cy="{y - 4}" r="7" fill="none" stroke="#e63946" stroke-width="4">'
                    f'<title>lifebuoy</title></circle>') if i == pos.lifebuoy else ""
        parts.append(f'{lifebuoy}<rect x="{sx + 18}" y="{y - 12}" width="12" height="12" fill="{colours[i]}"/>'
                     f'<text x="{sx + 36}" y="{y - 2}">{escape(p.name)}</text>')
        hand = " ".join(c.label for c in p.hand)
        card = f" · card {p.card.label}" if p.card is not None else ""
        parts.append(f'<text x="{sx + 36}" y="{y + 12}" font-size="10" fill="#555">hand {escape(hand)}{card}</text>')
        gems = [c for c, n in p.bank.items() for _ in range(n)]
        for k, g in enumerate(gems):
            parts.append(_gem(sx + 130 + 11 * k, y - 6, g, 4.5))
    legend_y = y + 40
    for k, colour in enumerate(COLOURS):
        parts.append(_gem(sx + 8, legend_y + 16 * k, colour, 5) +
                     f'<text x="{sx + 18}" y="{legend_y + 16 * k + 4}" font-size="10">{colour.label} '
                     f'({int(colour)})</text>')
    pieces = [name for name, on in (("dashed ring: the whirlpool", pos.whirlpool is not None),
                                    ("brown oval: the beaver", pos.beaver is not None),
                                    ("antlers: the moose", pos.moose is not None),
                                    ("grey canoe: Diamond Joe", pos.joe is not None),
                                    ("long hull: a double canoe", pos.ruleset.x_double)) if on]
    for k, name in enumerate(pieces):
        parts.append(f'<text x="{sx + 8}" y="{legend_y + 16 * (len(COLOURS) + k) + 8}" font-size="10" '
                     f'fill="#1d3557">{escape(name)}</text>')
    parts.insert(1, '<defs><marker id="arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="6" '
                    'markerHeight="6" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#333"/>'
                    '</marker></defs>')
    parts.append("</svg>")
    return "\n".join(parts)


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
