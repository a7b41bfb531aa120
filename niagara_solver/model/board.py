"""The river as a graph (R-BOARD), built with networkx from a board description.

A board description is JSON (docs/FORMAT.md, "Boards")::

    {"name": "standard",
     "river": {"1": "2", "2": "3", "3": "4", "4": "5", "5": {"L": "6L", "R": "6R"},
               "6L": "7L", "7L": "falls", "6R": "7R", "7R": "falls"},
     "caves": {"amethyst": ["3"], "diamond": ["4"], "amber": ["5"],
               "sapphire": ["6L", "6R"], "ruby": ["7L", "7R"]}}

``river`` maps every disc to what lies just downstream of it: another disc, ``"falls"``, or, for a
fork, an object from branch label to the branch's first disc, in the order the fork sends discs to
them (R-FLOW-4). ``caves`` maps each gem colour to the discs beside its cave (R-BOARD-4).

Everything the engine needs to know about the river's shape (depths, the discs a canoe can reach,
branch choices, which discs flow where, which cave a disc touches) is derived here from the graph;
no disc name appears anywhere else but in the standard preset.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, Iterator, Mapping

import networkx as nx

from niagara_solver.model.errors import BoardError, did_you_mean, quoted
from niagara_solver.model.atoms import COLOURS, FALLS, PORT, RESERVED_PLACES, Colour, unwritable
from niagara_solver.model.limits import LIMITS, MAX_DISCS

#: River spec of one disc: the next disc, "falls", or branch label -> first disc of the branch.
NextSpec = str | tuple[tuple[str, str], ...]

#: Characters a disc name may not hold: the turn notation (``4[ruby]: >5; 6L: <port``, docs/NOTATION.md) and
#: ``--branches FORK=LABEL/FORK=LABEL,...`` use them.
DISC_FORBIDDEN = frozenset(";:[]<>,/=()~")
#: Characters a branch label may not hold: ``--branches`` uses them (``L,R`` or ``6=L/7R=A``).
LABEL_FORBIDDEN = frozenset(",/=")


def disc_name_problem(disc: str) -> str | None:
    """Why ``disc`` cannot name a disc (R-BOARD-2), or None: a reserved place in any case (the notation reads
    ``Port`` as the port), a space or control character, or a character of the notation."""
    if not disc:
        return "an empty name cannot name a disc"
    if disc.lower() in RESERVED_PLACES or disc.casefold() in RESERVED_PLACES:
        return (f"{quoted(disc)} cannot name a disc: {', '.join(sorted(RESERVED_PLACES))} are reserved, in any case "
                "(the turn notation reads Port as the port)")
    if unwritable(disc) or DISC_FORBIDDEN & set(disc):
        return (f"{quoted(disc)} cannot name a disc: no spaces, control characters or "
                f"{''.join(sorted(DISC_FORBIDDEN))} (the notation uses them)")
    return None


def _key(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


class Board:
    """An immutable river: discs joined by downstream edges, the port above, the falls below.

    Build one with :meth:`from_json` (validating a description) or :func:`standard_board`.
    Boards compare equal when their rivers and caves are the same (the name is only a label).
    """

    def __init__(self, river: Mapping[str, NextSpec], caves: Mapping[Colour, tuple[str, ...]],
                 name: str | None = None) -> None:
        self.name = name
        graph = nx.DiGraph()
        graph.add_node(PORT, depth=0)
        for disc in river:
            graph.add_node(disc)
        for disc, nxt in river.items():
            if isinstance(nxt, str):
                graph.add_edge(disc, nxt, label=None)
            else:
                for label, child in nxt:
                    graph.add_edge(disc, child, label=label)
        tops = [d for d in river if graph.in_degree(d) == 0]
        self.top: str = tops[0]
        graph.add_edge(PORT, self.top, label=None)
        for colour, discs in caves.items():
            for disc in discs:
                graph.nodes[disc]["cave"] = colour
        self.graph = graph
        self._river = dict(river)
        self._caves = {c: tuple(caves[c]) for c in COLOURS if c in caves}

        depth = nx.single_source_shortest_path_length(graph, PORT)
        depth.pop(FALLS, None)
        #: Distance in discs from the port (R-BOARD-3): port 0, the top disc 1.
        self.depth: dict[str, int] = depth
        #: Every disc, from the top down, branches in label order (breadth first).
        self.discs: tuple[str, ...] = tuple(
            n for n in nx.bfs_tree(graph, PORT, sort_neighbors=lambda ns: list(ns)) if n not in (PORT, FALLS))
        #: The place just upstream of each disc (the port above the top disc).
        self.up: dict[str, str] = {d: next(iter(graph.predecessors(d))) for d in self.discs}
        #: The discs just downstream of each place, in branch order (empty above the falls).
        self.down: dict[str, tuple[str, ...]] = {
            n: tuple(c for c in graph.successors(n) if c != FALLS) for n in (PORT, *self.discs)}
        #: The fork discs (discs with several branches), from the top down.
        self.forks: tuple[str, ...] = tuple(d for d in self.discs if len(self.down[d]) > 1)
        #: The branch labels of each fork, in the order discs are sent to them (R-FLOW-4).
        self.labels: dict[str, tuple[str, ...]] = {
            f: tuple(graph.edges[f, c]["label"] for c in self.down[f]) for f in self.forks}
        #: (fork, label) -> the first disc of that branch.
        self.branch: dict[tuple[str, str], str] = {
            (f, graph.edges[f, c]["label"]): c for f in self.forks for c in self.down[f]}
        #: The colour of the cave beside each disc, or None (R-BOARD-4).
        self.cave: dict[str, Colour | None] = {d: graph.nodes[d].get("cave") for d in self.discs}
        #: The discs beside each colour's cave.
        self.cave_discs: dict[Colour, tuple[str, ...]] = dict(self._caves)
        #: The last discs above the falls.
        self.brinks: tuple[str, ...] = tuple(d for d in self.discs if graph.has_edge(d, FALLS))
        self._key = (tuple((d, self._river[d]) for d in self.discs),
                     tuple((c, self._caves[c]) for c in COLOURS))

    # -- identity -------------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Board) and self._key == other._key)

    def __hash__(self) -> int:
        # Kept once computed: positions hash their board at every lookup of the solver's tables. Never pickled
        # (a string's hash differs from process to process).
        known: int | None = self.__dict__.get("_hash")
        if known is None:
            known = self.__dict__["_hash"] = hash(self._key)
        return known

    def __getstate__(self) -> dict[str, object]:
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    def __repr__(self) -> str:
        return f"<Board {self.name or 'inline'}: {len(self.discs)} discs, {len(self.forks)} fork(s)>"

    @cached_property
    def main_bed(self) -> tuple[str, ...]:
        """The discs of the main bed, from the top down to the first fork (that fork included); every disc of a
        river that never forks. The whirlpool starts on one of them (X-WHIRL-1)."""
        bed = [self.top]
        while len(self.down[bed[-1]]) == 1:
            bed.append(self.down[bed[-1]][0])
        return tuple(bed)

    @property
    def is_standard(self) -> bool:
        """True when this is the standard board of R-BOARD-1."""
        return self == standard_board()

    # -- reachability (R-MOVE-4, R-MOVE-6) ---------------------------------------------------------

    @cached_property
    def _above(self) -> dict[str, tuple[str, ...]]:
        above: dict[str, tuple[str, ...]] = {PORT: ()}
        for disc in self.discs:  # breadth first: the parent is always done before the child
            parent = self.up[disc]
            above[disc] = (parent, *above[parent])
        return above

    def above(self, place: str) -> tuple[str, ...]:
        """The places upstream of ``place``, nearest first, ending with the port (R-MOVE-4)."""
        return self._above[place]

    @cached_property
    def _below(self) -> dict[str, tuple[tuple[str, ...], ...]]:
        # From the falls up (children before parents): a place's ring at distance d is its children's rings at
        # d - 1, so each ring is built once from the rings below it (a search from every place and distance was
        # cubic in the river's length: seconds for a board of 200 discs).
        below: dict[str, tuple[tuple[str, ...], ...]] = {}
        order = {d: i for i, d in enumerate(self.discs)}
        for place in reversed((PORT, *self.discs)):
            rings: list[list[str]] = [[]]
            for child in self.down[place]:
                for d, ring in enumerate(((child,), *below[child][1:]), start=1):
                    if d == len(rings):
                        rings.append([])
                    rings[d].extend(ring)
            below[place] = tuple(tuple(sorted(ring, key=order.__getitem__)) for ring in rings)
        return below

    def below(self, place: str, distance: int) -> tuple[str, ...]:
        """The discs exactly ``distance`` discs downstream of ``place``, one per branch choice."""
        rings = self._below[place]
        return rings[distance] if 0 < distance < len(rings) else ()

    def is_upstream_of(self, upper: str, lower: str) -> bool:
        """True when ``upper`` (a disc or the port) lies on the way from ``lower`` up to the port."""
        return upper in self._above.get(lower, ())

    @cached_property
    def max_depth(self) -> int:
        """The depth of the deepest disc."""
        return max(self.depth[d] for d in self.discs)

    # -- flow (R-FLOW-3, R-FLOW-4) --------------------------------------------------------------

    def next_label(self, fork: str, label: str) -> str:
        """The branch a fork's marker points to after a disc entered ``label`` (R-FLOW-4)."""
        labels = self.labels[fork]
        return labels[(labels.index(label) + 1) % len(labels)]

    def flow_path(self, markers: Mapping[str, str]) -> tuple[str, ...]:
        """The discs one flow step pushes, from the top down, following the fork ``markers``."""
        path = [self.top]
        while self.down[path[-1]]:
            disc = path[-1]
            if disc in self.labels:
                path.append(self.branch[disc, markers[disc]])
            else:
                path.append(self.down[disc][0])
        return tuple(path)

    def flow_paths(self) -> Iterator[tuple[tuple[tuple[str, str], ...], tuple[str, ...]]]:
        """Every path a pushed disc can take (for ``fork_policy: free``): (branch choices, path)."""
        def walk(disc: str, choices: tuple[tuple[str, str], ...],
                 path: tuple[str, ...]) -> Iterator[tuple[tuple[tuple[str, str], ...], tuple[str, ...]]]:
            path = (*path, disc)
            if not self.down[disc]:
                yield choices, path
            elif disc in self.labels:
                for label in self.labels[disc]:
                    yield from walk(self.branch[disc, label], (*choices, (disc, label)), path)
            else:
                yield from walk(self.down[disc][0], choices, path)
        return walk(self.top, (), ())

    # -- description ----------------------------------------------------------------------------

    def to_json(self) -> str | dict[str, Any]:
        """The board as a position file writes it: ``"standard"``, or the inline description."""
        if self.is_standard:
            return "standard"
        return self.description()

    def description(self) -> dict[str, Any]:
        """The full board description in canonical form (discs breadth first, colours in order)."""
        river: dict[str, Any] = {}
        for disc in self.discs:
            nxt = self._river[disc]
            river[disc] = nxt if isinstance(nxt, str) else dict(nxt)
        out: dict[str, Any] = {}
        if self.name:
            out["name"] = self.name
        out["river"] = river
        out["caves"] = {c.label: list(self._caves[c]) for c in COLOURS}
        return out

    @classmethod
    def from_json(cls, obj: object, path: str = "board") -> "Board":
        """Validate a board description (or the name of a preset) and build the board.

        Raises :class:`BoardError` naming the JSON path and the rule for every defect: discs that
        join, several or no top discs, a path that never reaches the falls, caves on unknown discs.
        """
        if isinstance(obj, str):
            if obj in BOARD_PRESETS:
                return BOARD_PRESETS[obj]()
            raise BoardError(path, f"unknown board {quoted(obj)}; presets: {', '.join(BOARD_PRESETS)}"
                             f"{did_you_mean(obj, BOARD_PRESETS)}",
                             "R-BOARD-1")
        if not isinstance(obj, dict):
            raise BoardError(path, "a board is a preset name or an object with \"river\" and \"caves\"",
                             "FORMAT")
        for key in obj:
            if key not in ("name", "river", "caves"):
                raise BoardError(_key(path, key), "unknown board field; expected name, river, caves"
                                 + did_you_mean(key, ("name", "river", "caves")), "FORMAT")
        name = obj.get("name")
        if name is not None and (not isinstance(name, str) or not name or not name.isprintable()):
            raise BoardError(_key(path, "name"), "a board name is a non-empty string without line breaks or "
                                                 "control characters", "FORMAT")
        river = _parse_river(obj.get("river"), _key(path, "river"))
        caves = _parse_caves(obj.get("caves"), _key(path, "caves"), river)
        return cls(river, caves, name)


def _parse_river(obj: object, path: str) -> dict[str, NextSpec]:
    if not isinstance(obj, dict) or not obj:
        raise BoardError(path, "the river is a non-empty object from each disc to what lies below it",
                         "R-BOARD-1")
    if len(obj) > MAX_DISCS:
        raise BoardError(path, f"a river of {len(obj)} discs; a board has at most {MAX_DISCS}", LIMITS)
    river: dict[str, NextSpec] = {}
    for disc, nxt in obj.items():
        where = _key(path, disc)
        problem = disc_name_problem(disc)
        if problem is not None:
            raise BoardError(where, problem, "R-BOARD-2")
        if isinstance(nxt, str):
            river[disc] = nxt
        elif isinstance(nxt, dict):
            if len(nxt) < 2:
                raise BoardError(where, "a fork has at least two branches", "R-BOARD-1")
            branches: list[tuple[str, str]] = []
            for label, child in nxt.items():
                if not label or unwritable(label) or LABEL_FORBIDDEN & set(label):
                    raise BoardError(_key(where, label), "a branch label is a non-empty word without spaces, "
                                     "control characters or any of ,/= (--branches uses them)", "R-BOARD-1")
                if not isinstance(child, str):
                    raise BoardError(_key(where, label), "a branch leads to a disc", "FORMAT")
                if child == FALLS:
                    raise BoardError(_key(where, label), "a fork's branch must be a disc, not the falls",
                                     "R-BOARD-1")
                branches.append((label, child))
            river[disc] = tuple(branches)
        else:
            raise BoardError(where, "below a disc lies another disc, \"falls\", or a fork "
                                    "(an object from branch label to disc)", "FORMAT")
    inflow: dict[str, str] = {}
    for disc, nxt in river.items():
        children = [nxt] if isinstance(nxt, str) else [c for _, c in nxt]
        for child in children:
            if child == FALLS:
                continue
            if child not in river:
                raise BoardError(_key(path, disc), f"unknown disc {quoted(child)} below {quoted(disc)}", "R-BOARD-1")
            if child == disc:
                raise BoardError(_key(path, disc), "a disc cannot flow into itself", "R-BOARD-2")
            if child in inflow:
                raise BoardError(_key(path, disc), f"disc {quoted(child)} is below both {quoted(inflow[child])} "
                                                   f"and {quoted(disc)}: a river only splits, never joins", "R-BOARD-1")
            inflow[child] = disc
    tops = [d for d in river if d not in inflow]
    if len(tops) != 1:
        what = "no disc" if not tops else ", ".join(quoted(t) for t in tops)
        raise BoardError(path, f"exactly one top disc lies below the port; found {what}", "R-BOARD-2")
    # Every disc reachable from the top, with one inflow each, makes a tree whose leaves all flow
    # over the falls: so every path ends at the falls.
    seen = {tops[0]}
    stack = [tops[0]]
    while stack:
        nxt = river[stack.pop()]
        for child in ([nxt] if isinstance(nxt, str) else [c for _, c in nxt]):
            if child != FALLS and child not in seen:
                seen.add(child)
                stack.append(child)
    unreached = [d for d in river if d not in seen]
    if unreached:
        raise BoardError(_key(path, unreached[0]), "this disc is not downstream of the top disc (the river "
                                                   "loops): every path must end at the falls", "R-BOARD-2")
    return river


def _parse_caves(obj: object, path: str, river: Mapping[str, NextSpec]) -> dict[Colour, tuple[str, ...]]:
    if not isinstance(obj, dict):
        raise BoardError(path, "caves is an object from each colour to the discs beside its cave",
                         "R-BOARD-4")
    caves: dict[Colour, tuple[str, ...]] = {}
    owner: dict[str, Colour] = {}
    for name, discs in obj.items():
        where = _key(path, name)
        try:
            colour = Colour.parse(name)
        except ValueError:
            raise BoardError(where, f"unknown colour {quoted(name)}", "R-COMP-3") from None
        if not isinstance(discs, list) or not discs or not all(isinstance(d, str) for d in discs):
            raise BoardError(where, "a cave lies beside a non-empty list of discs", "R-BOARD-4")
        for i, disc in enumerate(discs):
            if disc not in river:
                raise BoardError(f"{where}[{i}]", f"unknown disc {quoted(disc)}", "R-BOARD-4")
            if disc in owner:
                raise BoardError(f"{where}[{i}]", f"disc {quoted(disc)} is already beside the {owner[disc].label} "
                                                  "cave; a disc sits beside at most one cave", "R-BOARD-4")
            owner[disc] = colour
        caves[colour] = tuple(discs)
    missing = [c.label for c in COLOURS if c not in caves]
    if missing:
        raise BoardError(path, f"every colour needs a cave (gems return to the cave of their own colour, "
                               f"R-FLOW-6); missing: {', '.join(missing)}", "R-BOARD-5")
    return caves


_STANDARD_DESCRIPTION: dict[str, Any] = {
    "name": "standard",
    # R-BOARD-1: a main bed 1..5, then a fork around a rock into 6L-7L and 6R-7R.
    "river": {"1": "2", "2": "3", "3": "4", "4": "5", "5": {"L": "6L", "R": "6R"},
              "6L": "7L", "7L": "falls", "6R": "7R", "7R": "falls"},
    # R-BOARD-4: the five caves and the discs beside them.
    "caves": {"amethyst": ["3"], "diamond": ["4"], "amber": ["5"],
              "sapphire": ["6L", "6R"], "ruby": ["7L", "7R"]},
}

_standard: Board | None = None


def standard_board() -> Board:
    """The standard board of R-BOARD-1 (one shared instance)."""
    global _standard
    if _standard is None:
        _standard = Board.from_json(_STANDARD_DESCRIPTION, "board")
    return _standard


#: Board presets by name.
BOARD_PRESETS = {"standard": standard_board}
