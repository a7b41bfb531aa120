"""SVG pictures of positions: the river as a graph from the port to the falls, caves with their gems, canoes in
their players' colours with their cargo, the weather, the fork markers, the lifebuoy and the banks. A turn can
be drawn on top as a path per acting canoe, and what a phase changed (:class:`Change`) as the fork markers before
and after it with the branches the discs took.

Canoes are laid out beside their disc where they cover nothing else: every mark of the river is first noted as a
box or a thick line (:class:`_Room`), then each canoe takes the nearest free place, so that any number of canoes a
disc can hold (twelve with six players) stays inside the picture, off the branches, the caves and the markers."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from html import escape
from typing import Any, Callable, Iterable, Sequence

from niagara_solver.engine.round import is_finished, winners
from niagara_solver.model.board import Board
from niagara_solver.model.format import fork_markers
from niagara_solver.model.notation import Load, Move, Push, Steal, Turn, Unload
from niagara_solver.model.atoms import COLOURS, FALLEN, PORT, Colour, Moose
from niagara_solver.model.position import Position

GEM_FILL = {Colour.AMETHYST: "#8e44ad", Colour.DIAMOND: "#bfe9f7", Colour.AMBER: "#f1c40f",
            Colour.SAPPHIRE: "#2e6bd8", Colour.RUBY: "#e0245e"}
#: A diamond is drawn as a pale blue rhombus with a dark outline: a white dot read as an empty place.
DIAMOND_STROKE = "#1f6e8c"
NAMED = {"red": "#d62828", "blue": "#1d4ed8", "green": "#2a9d3f", "yellow": "#e9b20e", "black": "#222222",
         "purple": "#7b2cbf", "orange": "#f77f00", "white": "#bbbbbb", "pink": "#ff5d8f", "brown": "#8d5524"}
PALETTE = ["#d62828", "#1d4ed8", "#2a9d3f", "#e9b20e", "#7b2cbf", "#f77f00"]
ROW, COL = 62, 150
LEFT, TOP = 40, 104
#: The river's part of the picture; its leftmost branch keeps room on its left for a row of three canoes.
RIVER_WIDTH = 620
#: The side panel's width (weather, players, legend).
PANEL = 330
DISC_R = 15
#: The port: canoes per row and half its width (room for 6 canoes a row, two rows for 6 players' 12).
PORT_ROW = 6
PORT_HALF = 140
#: Half the length of a single and of a double canoe's hull (X-DOUBLE-1), and the pitch of canoes in a row.
SINGLE_HALF, DOUBLE_HALF = 14, 19
PITCH = 2 * DOUBLE_HALF + 2
#: The fork marker sits beside its branch (on the side towards the fork's other branches), clear of the river
#: and of the turns' paths drawn along it.
TAG_W, TAG_H, TAG_OFFSET = 22, 16, 17

Box = tuple[float, float, float, float]  # left, top, right, bottom


@dataclass(frozen=True)
class Change:
    """What one phase changed, for a counterexample's picture: the fork markers after it and, for a flow
    (R-FLOW-3), its number of steps and the branch each step's disc took at each fork it passed (None: not
    known). Only the markers are read from the position after the phase: under a mutated rule it may be one no
    valid game reaches."""

    forks: tuple[tuple[str, str], ...]
    steps: int | None = None
    branches: tuple[tuple[tuple[str, str], ...], ...] | None = None

    @classmethod
    def from_json(cls, item: dict[str, Any], board: Board) -> "Change | None":
        """The change of a counterexample as ``prove --json`` writes it (``after`` and, for a flow, ``flow``)."""
        after = item.get("after")
        if not isinstance(after, dict):
            return None
        flow = item.get("flow") or {}
        branches = flow.get("branches")
        return cls(fork_markers(after.get("fork"), board), flow.get("steps"),
                   None if branches is None else tuple(tuple((f, lab) for f, lab in step) for step in branches))


def turn_from_json(item: dict[str, Any], pos: Position) -> tuple[Turn | None, int | None]:
    """The turn of a turn's counterexample as ``prove --json`` writes it (``turn``: its player and notation), for
    the picture to draw; (None, None) for any other phase's."""
    taken = item.get("turn")
    if not isinstance(taken, dict):
        return None, None
    names = [p.name for p in pos.players]
    if taken.get("player") not in names:
        return None, None
    return Turn.parse(str(taken.get("turn"))), names.index(taken["player"])


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
    first, last = LEFT + 90, LEFT + RIVER_WIDTH - 100  # canoes to the left of a disc, its cave to the right
    column = {leaf: first + i * (last - first) / span if len(order) > 1 else LEFT + RIVER_WIDTH / 2
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


# -- room on the river ------------------------------------------------------------------------------------------

def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _crosses(line: tuple[float, float, float, float, float], box: Box) -> bool:
    """Whether a line ``(x0, y0, x1, y1, half-width)`` comes within its half-width of a box (the segment clipped
    against the box grown by the half-width)."""
    x0, y0, x1, y1, half = line
    left, top, right, bottom = box[0] - half, box[1] - half, box[2] + half, box[3] + half
    dx, dy = x1 - x0, y1 - y0
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, x0 - left), (dx, right - x0), (-dy, y0 - top), (dy, bottom - y0)):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True


class _Room:
    """What is drawn on the river so far, as boxes and thick lines, inside the river's part of the picture."""

    def __init__(self, bounds: Box) -> None:
        self.bounds = bounds
        self.boxes: list[Box] = []
        self.lines: list[tuple[float, float, float, float, float]] = []
        self.canoes: list[Box] = []

    def box(self, box: Box) -> None:
        self.boxes.append(box)

    def line(self, x0: float, y0: float, x1: float, y1: float, half: float) -> None:
        self.lines.append((x0, y0, x1, y1, half))

    def inside(self, box: Box) -> bool:
        b = self.bounds
        return b[0] <= box[0] and box[2] <= b[2] and b[1] <= box[1] and box[3] <= b[3]

    def free(self, box: Box) -> bool:
        return (self.inside(box) and not any(_overlap(box, c) for c in self.canoes)
                and not any(_overlap(box, b) for b in self.boxes) and not any(_crosses(li, box) for li in self.lines))

    def place(self, candidates: list[tuple[float, float]],
              extent: Callable[[float, float], Box]) -> tuple[float, float]:
        """The first candidate whose box is free; failing that the first that is inside and covers no canoe
        (then the first inside), so a canoe is always drawn and never off the picture."""
        for test in (self.free, lambda b: self.inside(b) and not any(_overlap(b, c) for c in self.canoes),
                     self.inside):
            for x, y in candidates:
                if test(extent(x, y)):
                    self.canoes.append(extent(x, y))
                    return x, y
        x, y = candidates[0]
        self.canoes.append(extent(x, y))
        return x, y


def _canoe_box(x: float, y: float, double: bool, moose: bool = False, moored: bool = False) -> Box:
    """The box of a canoe drawn at (x, y) by :func:`_canoe`: hull, cargo, antlers and rope."""
    half = DOUBLE_HALF if double else SINGLE_HALF
    return (x - half - 1, y - (16 if moose else 7), x + half + 1 + (18 if moored else 0), y + 7)


def _joe_box(x: float, y: float) -> Box:
    return (x - SINGLE_HALF - 1, y - 7, x + SINGLE_HALF + 1, y + 21)


def _slots(x: float, y: float, pitch: float) -> list[tuple[float, float]]:
    """Places for canoes beside a disc, nearest first: a row to the left of the disc, then rows above and below,
    then the right side beyond the cave; all within the disc's own height on the river (half a row up and down),
    so that no canoe reads as on the disc above or below. Places further up and down follow, for a board too
    crowded for that."""
    scored = []
    for k in range(-5, 6):
        for j in range(16):
            left = (x - DISC_R - 4 - pitch / 2 - j * pitch, y - 6 + 14 * k)
            right = (x + DISC_R + 4 + pitch / 2 + j * pitch, y - 6 + 14 * k)
            cost = j + 1.6 * abs(k) + (0.2 if k < 0 else 0) + (0 if -2 <= k <= 2 else 1000)
            scored += [(cost, 0, k, j, left), (cost + 5, 1, k, j, right)]
    return [spot for *_, spot in sorted(scored)]


def _tag_box(x: float, y: float) -> Box:
    return (x - TAG_W / 2 - 2, y - TAG_H / 2 - 2, x + TAG_W / 2 + 2, y + TAG_H / 2 + 2)


def _free_tag_spot(board: Board, at: dict[str, tuple[float, float]], fork: str, label: str,
                   shares: Sequence[float], room: _Room) -> tuple[float, float]:
    """The first of ``shares`` of the way down the branch where a fork marker covers nothing (a cave, another
    marker), beside the branch towards the other branches, else on its other side; failing all, the first."""
    spots = [_tag_spot(board, at, fork, label, share, side) for side in (1, -1) for share in shares]
    # Against the boxes alone: a marker stands against its own branch, and the lines are the river's.
    spot = next((s for s in spots if room.inside(_tag_box(*s)) and not any(_overlap(_tag_box(*s), b)
                                                                          for b in room.boxes)), spots[0])
    room.box(_tag_box(*spot))
    return spot


def _tag_spot(board: Board, at: dict[str, tuple[float, float]], fork: str, label: str,
              share: float, side: int = 1) -> tuple[float, float]:
    """Where a fork marker goes: ``share`` of the way down the branch, beside it towards the other branches
    (``side`` -1: on its other side)."""
    fx, fy = at[fork]
    tx, ty = at[board.branch[fork, label]]
    px, py = fx + (tx - fx) * share, fy + (ty - fy) * share
    length = max(1e-9, ((tx - fx) ** 2 + (ty - fy) ** 2) ** 0.5)
    nx, ny = -(ty - fy) / length, (tx - fx) / length
    others = [at[board.branch[fork, lab]] for lab in board.labels[fork] if lab != label]
    cx = sum(o[0] for o in others) / len(others) if others else fx
    cy = sum(o[1] for o in others) / len(others) if others else fy + ROW
    if nx * (cx - px) + ny * (cy - py) < 0:
        nx, ny = -nx, -ny
    return px + side * nx * TAG_OFFSET, py + side * ny * TAG_OFFSET


# -- the picture ------------------------------------------------------------------------------------------------

def render_svg(pos: Position, turn: Turn | None = None, player: int | None = None, title: str | None = None,
               change: Change | None = None) -> str:
    """The position as an SVG document; ``turn`` (of ``player``) is drawn as a path per acting canoe from start to
    end, with what it loads, unloads, steals and banks where it does so; ``change``: what a phase did from this
    position (the fork markers after it, the branches its flow took)."""
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
    rules = _cut(pos.ruleset.describe(), 48)
    heading = title or f"Round {pos.round} · {'phase I' if pos.phase.value == 'cards' else 'phase II'}"
    heading = f"{_cut(heading, 84 - len(rules))} · ruleset {rules}"
    parts.append(f'<text x="{LEFT}" y="26" font-size="16" font-weight="bold">{escape(heading)}</text>')
    won = [pos.players[i].name for i in winners(pos)] if is_finished(pos) else []
    caption_y = 46
    if won:
        parts.append(f'<text x="{LEFT}" y="46" font-weight="bold" fill="#1b7a3a">Game over: '
                     f'{escape(_cut(", ".join(won), 60))} {"win" if len(won) > 1 else "wins"} (R-END-2, R-END-3)'
                     '</text>')
        caption_y = 62
    room = _Room((4, TOP - 30, LEFT + RIVER_WIDTH + 8, bottom + 22))
    room.box((px - PORT_HALF, py - 30, px + PORT_HALF, port_bottom))

    # The river: edges, the caves' links, then the falls; turns go under the discs, so no label is covered.
    for disc in board.discs:
        x1, y1 = at[disc]
        x0, y0 = at[board.up[disc]]
        parts.append(f'<line x1="{x0:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y1:.1f}" stroke="#9cc9e8" '
                     f'stroke-width="16" stroke-linecap="round"/>')
        room.line(x0, y0, x1, y1, 9)
        room.box((x1 - DISC_R - 2, y1 - DISC_R - 2, x1 + DISC_R + 2, y1 + DISC_R + 2))
        if not board.down[disc]:
            parts.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x1:.1f}" y2="{bottom:.1f}" stroke="#9cc9e8" '
                         f'stroke-width="16" stroke-dasharray="4 4"/>')
            parts.append(f'<text x="{x1:.1f}" y="{bottom + 16:.1f}" text-anchor="middle" fill="#1f5f8b">falls</text>')
            room.line(x1, y1, x1, bottom, 9)
            room.box((x1 - 16, bottom + 4, x1 + 16, bottom + 20))
    parts += _cave_links(pos, at, room)
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
            parts += _cave(pos, cave, disc, x, y, cave not in shown, room)
            shown.add(cave)
    # Fork markers: a tag beside the branch the next disc takes (a token, not an arrow: nothing moves there).
    for fork, label in pos.forks:
        tx, ty = _free_tag_spot(board, at, fork, label, (0.42, 0.3, 0.55), room)
        parts.append(_fork_tag(tx, ty, label, before=change is not None))
    flow_caption = _change(pos, change, at, room, parts) if change is not None else ""
    pieces = _pieces(pos, at, room)

    # Canoes: beside their disc where they cover nothing, in the port, or among the fallen.
    joe_at: tuple[float, float] | None = None
    spot: dict[tuple[int, int], tuple[float, float]] = {}
    for disc in board.discs:
        here = [(i, k) for i, p in enumerate(pos.players) for k, c in enumerate(p.canoes) if c.place == disc]
        joe_here = pos.joe is not None and pos.joe.place == disc
        if not here and not joe_here:
            continue
        x, y = at[disc]
        candidates = _slots(x, y, PITCH if any(pos.players[i].canoes[k].double for i, k in here) else 32)
        for i, k in here:
            canoe = pos.players[i].canoes[k]
            spot[i, k] = room.place(candidates, functools.partial(_canoe_box, double=canoe.double,
                                                                  moose=canoe.moose, moored=canoe.moored))
        if joe_here:
            joe_at = room.place(candidates, _joe_box)
    fallen = 0
    port = 0
    fallen_row = max(1, int((RIVER_WIDTH - 40) // PITCH))
    for i, p in enumerate(pos.players):
        for k, canoe in enumerate(p.canoes):
            if canoe.place == PORT:
                x, y = px - PORT_HALF + 62 + 38 * (port % PORT_ROW), py - 14 + 18 * (port // PORT_ROW)
                port += 1
            elif canoe.place == FALLEN:
                x, y = LEFT + 20 + PITCH * (fallen % fallen_row), bottom + 50 + 20 * (fallen // fallen_row)
                fallen += 1
            else:
                x, y = spot[i, k]
            parts.append(_canoe(x, y, colours[i], p.name, canoe.place, canoe.gems, canoe.double, canoe.moose,
                                canoe.moored))
    if fallen:
        parts.append(f'<text x="{LEFT}" y="{bottom + 34:.1f}" fill="#555">fallen</text>')
    parts += pieces
    if pos.joe is not None and joe_at is not None:
        parts.append(_joe(*joe_at, pos.joe.gem))

    # What the turn does on its way: loads, unloads, steals, and what it banks in the port.
    if drawn:
        assert turn is not None and player is not None
        parts += _turn_steps(pos, turn, player, at, (px + PORT_HALF + 8, py - 22))
        parts.append(f'<text x="{LEFT}" y="{caption_y}" fill="{colours[player]}">'
                     f'{escape(_cut(f"{pos.players[player].name}: {turn}", 120))}</text>')
    elif flow_caption:
        parts.append(f'<text class="flow-caption" x="{LEFT}" y="{caption_y}" fill="#8c3b22">'
                     f'{escape(_cut(flow_caption, 120))}</text>')

    panel_bottom = _panel(parts, pos, colours, won, drawn, any(len(d) > 1 for d in board.cave_discs.values()),
                          change)
    lowest = max([bottom + 50 + 20 * ((fallen - 1) // fallen_row) if fallen else 0, *(c[3] for c in room.canoes)])
    height = max(bottom + 90, panel_bottom + 20, lowest + 20)
    head = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="12">',
            _defs(colours), f'<rect width="{width}" height="{height}" fill="#fbfaf7"/>']
    return "\n".join([*head, *parts, "</svg>"])


def _cut(text: str, limit: int) -> str:
    """A text cut to ``limit`` characters with "…", so it stays inside the picture."""
    return text if len(text) <= limit else text[:max(0, limit - 1)] + "…"


def _defs(colours: list[str]) -> str:
    """Arrowheads: one per player colour, for the turns (the tip ends where the path ends), and one for the branch
    a flow's disc took."""
    markers = "".join(f'<marker id="arrow-{i}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5" '
                      f'markerHeight="5" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="{c}" '
                      f'stroke="#111" stroke-width="0.6"/></marker>' for i, c in enumerate(colours))
    markers += ('<marker id="arrow-flow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="4" markerHeight="4" '
                'orient="auto"><path d="M 0 0 L 10 5 L 0 10 z" fill="#8c3b22"/></marker>')
    return f"<defs>{markers}</defs>"


# -- pieces -----------------------------------------------------------------------------------------------------

def _gem(x: float, y: float, colour: Colour, r: float = 5.0) -> str:
    """A gem: a dot of its colour; a diamond a pale blue rhombus, so a diamond never reads as an empty place."""
    if colour is Colour.DIAMOND:
        h = r * 1.25
        return (f'<polygon points="{x:.1f},{y - h:.1f} {x + r:.1f},{y:.1f} {x:.1f},{y + h:.1f} {x - r:.1f},{y:.1f}" '
                f'fill="{GEM_FILL[colour]}" stroke="{DIAMOND_STROKE}" stroke-width="1.1"><title>{colour.label}'
                '</title></polygon>')
    return (f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{GEM_FILL[colour]}" stroke="#333" '
            f'stroke-width="0.8"><title>{colour.label}</title></circle>')


def _hull(x: float, y: float, fill: str, double: bool) -> str:
    """A canoe's hull; the double canoe longer and deeper, with a thwart between its two places (X-DOUBLE-1)."""
    half = DOUBLE_HALF if double else SINGLE_HALF
    body = (f'<path d="M {x - half:.1f} {y - 4:.1f} Q {x:.1f} {y + (14 if double else 12):.1f} {x + half:.1f} '
            f'{y - 4:.1f} Z" fill="{fill}" stroke="#111" stroke-width="0.8"/>')
    if double:  # the thwart: thin, so a loaded double canoe keeps its owner's colour
        body += (f'<line x1="{x:.1f}" y1="{y - 4:.1f}" x2="{x:.1f}" y2="{y + 4:.1f}" stroke="#111" '
                 'stroke-width="0.7"/>')
    return body


def _canoe(x: float, y: float, fill: str, owner: str, place: str, gems: Iterable[Colour], double: bool = False,
           moose: bool = False, moored: bool = False) -> str:
    """A canoe: a hull in its owner's colour with its cargo; the double canoe longer, with a thwart between its two
    places (X-DOUBLE-1); the moose's antlers above the canoe holding it (X-MOOSE-2); a rope for a moored one."""
    half = DOUBLE_HALF if double else SINGLE_HALF
    body = _hull(x, y, fill, double)
    # Each gem on a white ring: a ruby in a red canoe (or a sapphire in a blue one) stays visible. In a double
    # canoe one gem a place, either side of the thwart, on smaller rings, so the hull's colour shows around them.
    cargo = list(gems)
    step, ring, dot = (10, 4.4, 3.3) if double else (8, 5.0, 3.6)
    spots = [x + step * (i - (len(cargo) - 1) / 2) for i in range(len(cargo))] if not double else \
        [x - 5 if len(cargo) == 1 else x - 5 + step * i for i in range(len(cargo))]
    body += "".join(f'<circle cx="{gx:.1f}" cy="{y - 1:.1f}" r="{ring}" fill="#fff"/>' + _gem(gx, y - 1, g, dot)
                    for gx, g in zip(spots, cargo))
    extra = _antlers(x, y - 8) if moose else ""
    if moored:
        extra += (f'<path d="M {x + half:.1f} {y - 3:.1f} q 8 -8 16 0" fill="none" stroke="#7a5230" '
                  f'stroke-width="1.5" stroke-dasharray="2 2"><title>moored (Lasso)</title></path>')
    kind = "double canoe" if double else "canoe"
    marks = "".join(f", {m}" for m, on in (("holds the moose", moose), ("moored", moored)) if on)
    return (f'<g class="canoe" data-player="{escape(owner)}" data-place="{escape(place)}">'
            f'<title>{escape(owner)} {kind} on {escape(place)}{marks}</title>{body}{extra}</g>')


def _antlers(x: float, y: float, sample: bool = False) -> str:
    """The moose: a small head with two antlers (X-MOOSE-1); ``sample``: the legend's."""
    return (('<g>' if sample else '<g class="moose"><title>the moose</title>') +
            f'<path d="M {x - 7:.1f} {y - 7:.1f} l 3 4 l 2 -4 M {x - 4:.1f} {y - 3:.1f} l 2 3 l 2 0 l 2 -3 '
            f'M {x + 7:.1f} {y - 7:.1f} l -3 4 l -2 -4" fill="none" stroke="#6b4226" stroke-width="1.6"/>'
            f'<circle cx="{x:.1f}" cy="{y + 1:.1f}" r="2.6" fill="#6b4226"/></g>')


def _spiral(x: float, y: float, r: float = 5.0) -> str:
    """The whirlpool's sign: a small spiral."""
    return (f'<path d="M {x - r:.1f} {y:.1f} a {r} {r} 0 1 1 {r} {r} a {0.6 * r:.1f} {0.6 * r:.1f} 0 1 1 '
            f'{-0.6 * r:.1f} {-0.6 * r:.1f}" fill="none" stroke="#1d3557" stroke-width="1.3"/>')


def _joe(x: float, y: float, gem: Colour | None) -> str:
    """Diamond Joe's neutral canoe (X-JOE-1): grey, named below."""
    cargo = _gem(x, y - 1, gem, 3.6) if gem is not None else ""
    return (f'<g class="joe"><title>Diamond Joe (X-JOE-1)</title>{_hull(x, y, "#b0b0b0", False)}{cargo}'
            f'<text x="{x:.1f}" y="{y + 18:.1f}" text-anchor="middle" font-size="9" fill="#333">Joe</text></g>')


def _cave(pos: Position, cave: Colour, disc: str, x: float, y: float, first: bool, room: _Room) -> list[str]:
    """A cave beside a disc. A cave beside several discs (R-BOARD-4) shows its gems once, beside its first disc;
    beside the others it is drawn pale, linked to the first (see :func:`_cave_links`)."""
    cx = x + 22
    beside = pos.board.cave_discs.get(cave, (disc,))
    where = f"the {cave.label} cave" + (f", beside {' and '.join(beside)} (R-BOARD-4)" if len(beside) > 1 else "")
    pale = "" if first else ' opacity="0.45" stroke-dasharray="3 2"'
    out = [f'<rect x="{cx:.1f}" y="{y - 10:.1f}" width="14" height="20" rx="3" fill="{GEM_FILL[cave]}" '
           f'stroke="#555"{pale}><title>{escape(where)}</title></rect>']
    room.box((cx - 1, y - 11, cx + 15, y + 11))
    if not first:
        return out
    gems = [c for c, n in pos.cave(cave).items() for _ in range(n)]
    for i, g in enumerate(gems[:10]):
        out.append(_gem(cx + 22 + (i % 5) * 10, y - 5 + (i // 5) * 10, g, 4))
    if gems:
        room.box((cx + 16, y - 11, cx + 22 + 10 * min(4, len(gems) - 1) + 6, y + 11))
    if len(gems) > 10:
        out.append(f'<text x="{cx + 72:.1f}" y="{y + 9:.1f}" font-size="9" fill="#555">+{len(gems) - 10}</text>')
        room.box((cx + 70, y, cx + 72 + 6 * len(str(len(gems) - 10)) + 8, y + 11))
    if not gems:
        out.append(f'<text x="{cx + 20:.1f}" y="{y + 4:.1f}" fill="#777">empty</text>')
        room.box((cx + 18, y - 8, cx + 56, y + 7))
    return out


def _cave_links(pos: Position, at: dict[str, tuple[float, float]], room: _Room) -> list[str]:
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
        for x, y in points:
            room.line(x, y, x, low, 2)
        room.line(min(xs), low, max(xs), low, 2)
        out.append(f'<path class="cave-link" d="{path}" fill="none" stroke="{GEM_FILL[cave]}" stroke-width="2" '
                   f'stroke-dasharray="5 3" opacity="0.8"><title>one {cave.label} cave beside '
                   f'{escape(" and ".join(discs))} (R-BOARD-4)</title></path>')
    return out


def _fork_tag(x: float, y: float, label: str, sample: bool = False, before: bool = False, after: bool = False) -> str:
    """The fork marker: an orange tag beside the branch the next disc takes (R-FLOW-4); ``sample``: the legend's;
    ``before``/``after``: the marker before and (hollow) after the phase of a counterexample."""
    when = " before the phase" if before else " after the phase" if after else ""
    head = ("<g>" if sample else
            f'<g class="{"fork-marker-after" if after else "fork-marker"}"><title>fork marker{when}: the next disc '
            f'goes down {escape(label)} (R-FLOW-4)</title>')
    fill, stroke, ink, dash = ("#fff", "#c4512d", "#c4512d", ' stroke-dasharray="3 2" stroke-width="1.6"') if after \
        else ("#e76f51", "#8c3b22", "#fff", "")
    return (f'{head}<rect x="{x - TAG_W / 2:.1f}" y="{y - TAG_H / 2:.1f}" width="{TAG_W}" height="{TAG_H}" rx="8" '
            f'fill="{fill}" stroke="{stroke}"{dash}/>'
            f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" font-size="10" font-weight="bold" '
            f'fill="{ink}">{escape(_cut(label, 3))}</text></g>')


def _change(pos: Position, change: Change, at: dict[str, tuple[float, float]], room: _Room,
            parts: list[str]) -> str:
    """What the phase changed at the forks: the markers after it (hollow) and, for a flow, an arrow down each
    branch a disc took, with its steps. Returns the caption that says it in words."""
    board = pos.board
    before = dict(pos.forks)
    after = dict(change.forks)
    is_flow = change.steps is not None
    if not is_flow and after == before:
        return ""
    for fork, label in change.forks:
        tx, ty = _free_tag_spot(board, at, fork, label, (0.72, 0.6, 0.84, 0.25), room)
        parts.append(_fork_tag(tx, ty, label, after=True))
    taken: dict[tuple[str, str], list[int]] = {}
    for n, step in enumerate(change.branches or (), start=1):
        for fork, label in step:
            taken.setdefault((fork, label), []).append(n)
    for (fork, label), steps in taken.items():
        if (fork, label) not in board.branch:
            continue
        fx, fy = at[fork]
        tx, ty = at[board.branch[fork, label]]
        length = max(1e-9, ((tx - fx) ** 2 + (ty - fy) ** 2) ** 0.5)
        ux, uy = (tx - fx) / length, (ty - fy) / length
        # From the fork's rim two thirds down the branch: the arrow says which way, and stops short of the cave.
        sx, sy = fx + ux * (DISC_R + 3), fy + uy * (DISC_R + 3)
        ex, ey = fx + ux * length * 0.66, fy + uy * length * 0.66
        word = f"step{'s' if len(steps) > 1 else ''} {', '.join(map(str, steps))}"
        # The words on the outer side of the branch: the markers are on the inner side.
        mx, my = _tag_spot(board, at, fork, label, 0.58)
        ox, oy = 2 * (fx + (tx - fx) * 0.58) - mx, 2 * (fy + (ty - fy) * 0.58) - my
        parts.append(f'<g class="flow-branch"><title>{escape(word)}: the disc leaving {escape(fork)} goes down '
                     f'{escape(label)} (R-FLOW-3)</title><line x1="{sx:.1f}" y1="{sy:.1f}" x2="{ex:.1f}" y2="{ey:.1f}" '
                     'stroke="#8c3b22" stroke-width="3" marker-end="url(#arrow-flow)"/>'
                     f'<text x="{ox:.1f}" y="{oy + 4:.1f}" text-anchor="middle" font-size="10" font-weight="bold" '
                     f'fill="#8c3b22">{escape(word)}</text></g>')
        room.box((ox - 3 * len(word) - 2, oy - 6, ox + 3 * len(word) + 2, oy + 7))
    said = []
    for fork in board.forks:
        went = "/".join(lab for n, step in enumerate(change.branches or ()) for f, lab in step if f == fork)
        took = f", the disc{'s' if '/' in went else ''} took {went}" if went else ""
        said.append(f"at {fork}: marker {before.get(fork, '?')} before{took}, marker {after.get(fork, '?')} after")
    flows = f"the river flows {change.steps} step{'' if change.steps == 1 else 's'}: " if is_flow else ""
    return flows + "; ".join(said) + " (R-FLOW-3, R-FLOW-4)"


def _pieces(pos: Position, at: dict[str, tuple[float, float]], room: _Room) -> list[str]:
    """The expansion's pieces on the river (RULES.md section X), each drawn and named so a player recognises it;
    noted in the room before the canoes are laid out, so no canoe covers them. Diamond Joe is laid out with the
    canoes."""
    out: list[str] = []
    board = pos.board
    if pos.whirlpool is not None and pos.whirlpool in at:
        x, y = at[pos.whirlpool]
        # A dashed ring around the disc and the spiral beside it, not on the disc's name.
        out.append(f'<g class="whirlpool"><title>the whirlpool (X-WHIRL-1)</title>'
                   f'<circle cx="{x:.1f}" cy="{y:.1f}" r="19" fill="none" stroke="#1d3557" stroke-width="2" '
                   f'stroke-dasharray="9 4"/>{_spiral(x - 21, y - 21, 6)}</g>')
        room.box((x - 29, y - 29, x + 21, y + 21))
    if pos.beaver is not None and pos.beaver in at:
        x, y = at[pos.beaver]
        out.append(f'<g class="beaver"><title>the beaver (X-BEAVER-1)</title><ellipse cx="{x:.1f}" '
                   f'cy="{y + 24:.1f}" rx="16" ry="7" fill="#8d5524" stroke="#4a2c12"/><text x="{x:.1f}" '
                   f'y="{y + 27:.1f}" text-anchor="middle" font-size="8" fill="#fff">beaver</text></g>')
        room.box((x - 17, y + 16, x + 17, y + 32))
    ruby = board.cave_discs.get(Colour.RUBY, ())
    if pos.moose is Moose.WAITING and ruby:
        # X-MOOSE-1: the moose waits at the ruby cave, and a canoe on a last disc takes it. A cave beside several
        # discs is one cave: the moose stands on its link, not beside one of its discs.
        if len(ruby) > 1:
            x0, x1 = at[ruby[0]][0], at[ruby[1]][0]
            low = max(at[d][1] for d in ruby) + 22
            mx, my = (x0 + x1) / 2 + 29, low - 13
            tx, ty, anchor = mx, low + 14, "middle"
        else:
            x0, y0 = at[ruby[0]]
            mx, my = x0 + 29, y0 + 27
            tx, ty, anchor = mx + 11, my + 3, "start"
        brinks = " or ".join(board.brinks) if len(board.brinks) < 4 else "a last disc"
        word = _cut(f"moose: taken on {brinks}", 40)
        out.append(f'<g class="moose-waiting"><title>the moose, waiting at the ruby cave: a canoe on {escape(brinks)} '
                   f'may take it (X-MOOSE-1)</title>{_antlers(mx, my)}<text x="{tx:.1f}" y="{ty:.1f}" '
                   f'text-anchor="{anchor}" font-size="9" fill="#6b4226">{escape(word)}</text></g>')
        room.box((mx - 9, my - 9, mx + 9, my + 5))
        half = 2.6 * len(word)
        room.box((tx - half - 2, ty - 8, tx + half + 2, ty + 3) if anchor == "middle"
                 else (tx - 2, ty - 8, tx + 5.2 * len(word) + 2, ty + 3))
    return out


# -- turns ------------------------------------------------------------------------------------------------------

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


# -- the side panel ---------------------------------------------------------------------------------------------

def _panel(parts: list[str], pos: Position, colours: list[str], won: list[str], drawn: bool,
           shared_caves: bool, change: Change | None = None) -> float:
    """The side panel: weather, the players (lifebuoy, name, hand and card, bank), the gems' values and a legend of
    every mark the picture uses, each with a sample of the mark. Returns how far down it reaches."""
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
    if change is not None and (change.steps is not None or dict(change.forks) != dict(pos.forks)):
        legend.append((lambda at: _fork_tag(sx + 9, at, "L", sample=True, after=True),
                       "hollow fork marker: the marker after the phase"))
        if change.branches:
            legend.append((lambda at: f'<line x1="{sx}" y1="{at}" x2="{sx + 16}" y2="{at}" stroke="#8c3b22" '
                                      'stroke-width="3" marker-end="url(#arrow-flow)"/>',
                           "brown arrow: the branch a flow step's disc took"))
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
    if pos.whirlpool is not None:
        over = pos.whirlpool not in pos.board.discs
        legend.append((lambda at: f'<circle cx="{sx + 9}" cy="{at}" r="7" fill="none" stroke="#1d3557" '
                                  f'stroke-width="1.6" stroke-dasharray="4 2"/>{_spiral(sx + 9, at - 1, 3.5)}',
                       "the whirlpool: over the falls, back next flow (X-WHIRL-1)" if over
                       else "dashed ring and spiral: the whirlpool (X-WHIRL-1)"))
    if pos.beaver is not None:
        legend.append((lambda at: f'<ellipse cx="{sx + 9}" cy="{at}" rx="10" ry="5" fill="#8d5524" '
                                  'stroke="#4a2c12"/>', "brown oval: the beaver (X-BEAVER-1)"))
    if pos.moose is not None:
        legend.append((lambda at: _antlers(sx + 9, at + 3, sample=True),
                       {Moose.WAITING: "antlers: the moose, waiting (X-MOOSE-1)",
                        Moose.HELD: "antlers on a canoe: it holds the moose (X-MOOSE-2)",
                        Moose.RETURNING: "the moose: returning, waits after phase III (X-MOOSE-3)"}[pos.moose]))
    if pos.joe is not None:
        legend.append((lambda at: _small(_hull(0, 0, "#b0b0b0", False), sx + 9, at - 1),
                       "grey canoe: Diamond Joe (X-JOE-1)"))
    if pos.ruleset.x_double:
        legend.append((lambda at: _small(_hull(0, 0, "#999999", True), sx + 9, at - 1),
                       "long hull: a double canoe (X-DOUBLE-1)"))
    for icon, text in legend:
        parts.append(f'<g class="legend">{icon(y)}<text x="{sx + 26}" y="{y + 4}" font-size="10" fill="#1d3557">'
                     f'{escape(text)}</text></g>')
        y += 18
    return y


def _small(mark: str, x: float, y: float) -> str:
    """A mark drawn around (0, 0), shrunk to fit the legend's sample column at (x, y)."""
    return f'<g transform="translate({x:.1f} {y:.1f}) scale(0.6)">{mark}</g>'


def _route(board: Board, start: str, move: Move) -> list[str]:
    """The places a movement passes, from start to destination along the river."""
    if move.downstream:
        chain = [move.dest, *board.above(move.dest)]
        return list(reversed(chain[: chain.index(start) + 1])) if start in chain else [start, move.dest]
    chain = [start, *board.above(start)]
    return chain[: chain.index(move.dest) + 1] if move.dest in chain else [start, move.dest]

