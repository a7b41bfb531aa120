"""Charts of simulated games (``simulate --out DIR``, the report's playtesting section), as SVG drawn by matplotlib.

Two charts per player count: how long games last (a bar per number of rounds, the median marked) and how often each
seat wins (a bar per seat with its 95% interval, the fair share marked). Comparing two rulesets draws both on the
same axes. matplotlib is imported here only, when a chart is drawn (the Agg backend: no display), so the other
commands do not pay for it; the SVG is the same on every run (no date, a fixed salt for its identifiers).
"""

from __future__ import annotations

import io
import math
import os
import statistics
from typing import TYPE_CHECKING, Any, Sequence

from niagara_solver.design.simulate import SEATS, Simulation
from niagara_solver.model.estimates import wilson

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: The colours of the first and second ruleset (colour-blind safe).
COLOURS = ("#1f77b4", "#ff7f0e")


def _figure(width: float = 7.0, height: float = 3.6) -> "Figure":
    # matplotlib is imported when a chart is drawn, not with the module: the other commands do not pay for it.
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams.update({"svg.hashsalt": "niagara-solver", "svg.fonttype": "none",
                                "font.family": "sans-serif", "font.size": 10})
    from matplotlib.figure import Figure
    return Figure(figsize=(width, height), layout="constrained")


def _svg(fig: "Figure") -> str:
    out = io.StringIO()
    fig.savefig(out, format="svg", metadata={"Date": None})
    return out.getvalue()


def _label(name: str, sim: Simulation, extra: str = "") -> str:
    return f"{name}{extra} ({len(sim.games)} games)"


def length_chart(runs: Sequence[tuple[str, Simulation]]) -> str:
    """Game lengths: for each number of rounds, the share of a run's games that lasted it; the medians dashed."""
    from matplotlib.ticker import MaxNLocator  # when a chart is drawn, as in _figure
    fig = _figure()
    ax = fig.subplots()
    width = 0.8 / len(runs)
    top = 0.0
    for k, (name, sim) in enumerate(runs):
        hist = sim.histogram()
        total = len(sim.games)
        xs = [r + (k - (len(runs) - 1) / 2) * width for r, _ in hist]
        median = statistics.median(sim.lengths) if sim.lengths else None
        extra = f": median {median:g} rounds" if median is not None else ""
        shares = [100 * n / total for _, n in hist]
        top = max([top, *shares])
        ax.bar(xs, shares, width=width, color=COLOURS[k % 2], label=_label(name, sim, extra))
        if median is not None:
            ax.axvline(median, color=COLOURS[k % 2], linestyle="--", linewidth=1.2)
    players = runs[0][1].players
    unfinished = ", ".join(f"{name} {sim.unfinished}" for name, sim in runs if sim.unfinished)
    ax.set_title(f"How long games last, {players} players" + (f" (unfinished: {unfinished})" if unfinished else ""))
    ax.set_xlabel("rounds until someone reaches the goal (R-END-1); dashed: the median")
    ax.set_ylabel("% of games")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(0, max(1.0, top) * (1.2 + 0.12 * len(runs)))  # room for the legend above the bars
    ax.legend(loc="upper right", frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    return _svg(fig)


def seat_chart(runs: Sequence[tuple[str, Simulation]]) -> str:
    """Wins by seat (seat 1 acts first in round 1): a bar per seat and run with its 95% interval; the fair share
    dashed. A shared win (R-END-3) counts for each winner."""
    fig = _figure()
    ax = fig.subplots()
    players = runs[0][1].players
    width = 0.8 / len(runs)
    top = 0.0
    for k, (name, sim) in enumerate(runs):
        n = len(sim.games)
        rates, lows, highs = [], [], []
        for seat in range(players):
            wins = sim.seat_wins(seat)
            low, high = wilson(wins, n)
            rates.append(100 * wins / n)
            lows.append(max(0.0, 100 * wins / n - 100 * low))  # never below 0 by a rounding error
            highs.append(max(0.0, 100 * high - 100 * wins / n))
            top = max(top, 100 * high)
        xs = [seat + (k - (len(runs) - 1) / 2) * width for seat in range(players)]
        ax.bar(xs, rates, width=width, color=COLOURS[k % 2], label=_label(name, sim),
               yerr=[lows, highs], capsize=3, error_kw={"elinewidth": 1, "ecolor": "#333333"})
    ax.axhline(100 / players, color="#555555", linestyle="--", linewidth=1, label=f"fair share {100 / players:.0f}%")
    ax.set_xticks(range(players), [f"{SEATS[s]}\n(seat {s + 1})" for s in range(players)])
    ax.set_title(f"Wins by seat, {players} players (seat 1 acts first in round 1)")
    ax.set_ylabel("% of games won (95% interval)")
    ax.set_ylim(0, min(100, 10 * math.ceil(top / 10) + 20))
    ax.legend(loc="upper right", frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    return _svg(fig)


def write_charts(folder: str, runs: Sequence[tuple[str, Simulation]], prefix: str = "") -> list[str]:
    """Write both charts of one player count into ``folder``; return the files written (none when a run played
    no game before its time limit: there is nothing to draw)."""
    if any(not sim.games for _, sim in runs):
        return []
    os.makedirs(folder, exist_ok=True)
    players = runs[0][1].players
    written = []
    for kind, draw in (("length", length_chart), ("seats", seat_chart)):
        path = os.path.join(folder, f"{prefix}{kind}-{players}p.svg")
        with open(path, "w", encoding="utf-8") as f:
            f.write(draw(runs))
        written.append(path)
    return written


def chart_names(players: int, prefix: str = "") -> dict[str, Any]:
    """The file names :func:`write_charts` gives the charts of ``players`` seats."""
    return {kind: f"{prefix}{kind}-{players}p.svg" for kind in ("length", "seats")}
