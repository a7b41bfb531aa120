"""Lookup tables for the SMT encoding, computed once from the networkx river graph.

Places are small integers: 0 is the port, 1..D the discs in breadth-first order, D + 1 fallen. Every
relation the encoding uses (depth, up- and downstream reachability, caves, the branch a disc lies in, the
next disc in a flow step) is a finite table derived here from :class:`Board`, and turned into z3 terms
as ``If`` chains or disjunctions (never arrays: see docs/PROVER.md).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, Iterable, Mapping

import z3

from niagara_solver.model.board import Board
from niagara_solver.model.atoms import FALLEN, PORT, Colour
from niagara_solver.encoding.terms import between, equal, ite, z_and, z_or

IntLike = Any  # a z3 integer term or a Python int


def lookup(var: Any, table: Mapping[int, IntLike], default: IntLike = 0) -> Any:
    """``table[var]`` as an ``If`` chain (``default`` outside the table)."""
    out: Any = default
    if not isinstance(var, z3.ArithRef):
        for key, value in sorted(table.items(), reverse=True):
            out = z3.If(var == key, value, out)
        return out
    for key, value in sorted(table.items(), reverse=True):  # through z3's C API: the same terms (terms.py)
        out = ite(equal(var, key)[0], value, out)
    return out


def member(var: z3.ArithRef, values: Iterable[int]) -> z3.BoolRef:
    """``var`` is one of ``values``."""
    values = list(values)
    return z_or([var == v for v in values]) if values else z3.BoolVal(False)


class BoardTables:
    """The river graph as integer tables."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.discs: tuple[str, ...] = board.discs
        self.D = len(board.discs)
        self.PORT = 0
        self.FALLEN = self.D + 1
        #: place name -> index, and back
        self.index: dict[str, int] = {PORT: 0, FALLEN: self.FALLEN, **{d: i + 1 for i, d in enumerate(self.discs)}}
        self.name: dict[int, str] = {i: n for n, i in self.index.items()}
        self.disc_ids = list(range(1, self.D + 1))
        self.max_depth = board.max_depth
        #: depth of each place; a fallen canoe counts as one disc beyond the deepest brink
        self.depth: dict[int, int] = {self.index[p]: d for p, d in board.depth.items()}
        self.depth[self.FALLEN] = self.max_depth + 1
        #: cave colour beside each disc (0: none)
        self.cave: dict[int, int] = {self.index[d]: (int(c) if c is not None else 0) for d, c in board.cave.items()}
        #: upstream places of each disc, nearest first (ending with the port)
        self.above: dict[int, list[int]] = {self.index[d]: [self.index[u] for u in board.above(d)] for d in self.discs}
        self.forks: list[int] = [self.index[f] for f in board.forks]
        self.labels: dict[int, tuple[str, ...]] = {self.index[f]: board.labels[f] for f in board.forks}
        #: fork -> branch label index -> first disc of that branch
        self.branch: dict[int, list[int]] = {
            self.index[f]: [self.index[board.branch[f, lab]] for lab in board.labels[f]] for f in board.forks}
        #: the single next disc below a non-fork disc (None above the falls)
        self.next: dict[int, int | None] = {
            self.index[d]: (self.index[board.down[d][0]] if len(board.down[d]) == 1 else None)
            for d in self.discs if len(board.down[d]) <= 1}
        self.brinks = [self.index[b] for b in board.brinks]
        self.top = self.index[board.top]
        #: the discs one disc below each disc (several below a fork, none below a brink)
        self.children: dict[int, list[int]] = {self.index[d]: [self.index[b] for b in board.below(d, 1)]
                                               for d in self.discs}

    # -- relations --------------------------------------------------------------------------------------

    @cached_property
    def route(self) -> dict[int, list[tuple[int, int]]]:
        """For each disc, the (fork, branch index) choices on the way from the top to it."""
        out: dict[int, list[tuple[int, int]]] = {}
        for d in self.discs:
            x = self.index[d]
            choices = []
            path = [x, *self.above[x]]
            for child, parent in zip(path, path[1:]):
                if parent in self.branch:
                    choices.append((parent, self.branch[parent].index(child)))
            out[x] = list(reversed(choices))
        return out

    def upstream_of(self, a: z3.ArithRef, b: z3.ArithRef) -> z3.BoolRef:
        """``a`` lies strictly upstream of disc ``b`` (the port included): the way home from ``b`` passes ``a``."""
        return z_or([z_and(b == x, member(a, self.above[x])) for x in self.disc_ids])

    def depth_of(self, x: z3.ArithRef) -> z3.ArithRef:
        return lookup(x, self.depth, 0)

    def cave_of(self, x: z3.ArithRef) -> z3.ArithRef:
        """The colour of the cave beside place ``x`` (0: none; the port and the falls have none)."""
        return lookup(x, {i: c for i, c in self.cave.items() if c}, 0)

    def is_disc(self, x: z3.ArithRef) -> z3.BoolRef:
        return between(x, 1, self.D)

    def up_by(self, x: z3.ArithRef, n: z3.ArithRef) -> z3.ArithRef:
        """The place ``n`` discs upstream of disc ``x``, or the port if that is farther (a witness move)."""
        out: Any = 0
        for d in self.disc_ids:
            chain = self.above[d]
            by_n: Any = 0
            for k in range(len(chain), 0, -1):
                by_n = z3.If(n == k, chain[k - 1], by_n)
            out = z3.If(x == d, by_n, out)
        return out

    def disc_at_depth(self, n: z3.ArithRef) -> z3.ArithRef:
        """Some disc at depth ``n`` (0 if none): where a port canoe paddling ``n`` discs may stop."""
        first: dict[int, int] = {}
        for d in self.disc_ids:
            first.setdefault(self.depth[d], d)
        return lookup(n, first, 0)

    def up_costs(self, x: int, whirl: int | None, leave: bool) -> list[tuple[int, int]]:
        """Every place upstream of place ``x`` (the port last) with the points an upstream movement there costs: 1 a
        step, and 2 for the step onto the whirlpool on disc ``whirl`` (or, with ``leave``, off it): X-WHIRL-3."""
        out: list[tuple[int, int]] = []
        here, total = x, 0
        for there in self.above.get(x, []):
            total += 2 if whirl is not None and (here if leave else there) == whirl else 1
            out.append((there, total))
            here = there
        return out

    def down_at(self, x: int, distance: int) -> list[int]:
        """The discs ``distance`` discs downstream of place ``x`` (the top disc is one disc below the port)."""
        return [self.index[d] for d in self.board.below(self.name[x], distance)] if distance >= 1 else []

    def colours(self) -> list[int]:
        return [int(c) for c in Colour]
