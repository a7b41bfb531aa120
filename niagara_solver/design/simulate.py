"""Playtesting for designers (``niagara-solve simulate``): many seeded games played by a policy, and what they say
about a ruleset — how long games last, who wins from which seat, how often canoes fall, gems are stolen and canoes
rescued, and by which goal games end (R-END-1) — or what changes from one ruleset to another (``--compare``),
every figure with a 95% confidence interval.

Games start from the beginning (every canoe in the port, every cave full, R-BOARD-5) with the seats named red,
blue, green, ... in order and the lifebuoy with the first seat (R-COMP-5 draws it; here "seat 1" is the player
who acts first in round 1). Game *g* of a run with seed *s* is played from seed ``s * 1_000_003 + g``, so the same
run gives the same games on every machine, and two rulesets compared are played from the same seeds. With
``against``, one seat plays ``policy`` and every other seat ``against``; the seat of ``policy`` turns with the
games (game *g*: seat *g* mod *n*), so no seat's advantage is counted as the policy's.

The games are independent tasks (chunks of :data:`CHUNK` games) run in this process, in local processes or on a
Dask cluster (:mod:`niagara_solver.jobs`), like ``sweep``. Confidence intervals: Wilson's for a rate, Newcombe's
for a difference of rates, the normal approximation for a mean and a difference of means, the order statistics for
a median, and a seeded bootstrap for a difference of medians.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass
from typing import Any, Sequence

from niagara_solver.play.playout import POLICIES, random_playout
from niagara_solver.engine.round import GOAL_SAME, GOAL_TOTAL, winners
from niagara_solver.jobs import Progress, Results, Task, run_all, task_key
from niagara_solver.model.atoms import COLOURS, Gems
from niagara_solver.model.board import Board
from niagara_solver.model.errors import InputError, quoted
from niagara_solver.model.estimates import (interval_json, mean_difference, mean_interval, median_difference,
                                            median_interval, number, rate_difference, rate_json)
from niagara_solver.model.limits import LIMITS, out_of_time
from niagara_solver.model.notation import Steal
from niagara_solver.model.position import Position
from niagara_solver.model.readings import require
from niagara_solver.model.ruleset import Ruleset

#: The seats' names, in seat order.
SEATS = ("red", "blue", "green", "yellow", "black", "white")
#: Games per task: small enough for a progress bar that moves, large enough that a task outweighs its travel.
CHUNK = 10
#: The most games one run may ask for (each takes about a second).
MAX_GAMES = 100_000
#: How games end (R-END-1), in the order the rule lists them.
GOALS = ("7 gems", "5 colours", "4 of a colour")
#: What is counted in each game.
COUNTED = ("falls", "steals", "rescues")
#: The spacing of the seeds of a run's games.
SEED_STRIDE = 1_000_003


def goals_reached(bank: Gems) -> tuple[str, ...]:
    """Which of the goals of R-END-1 a bank reaches: 7 gems, one of each of the 5 colours, 4 of one colour."""
    reached = []
    if bank.total >= GOAL_TOTAL:
        reached.append(GOALS[0])
    if all(bank.get(c) >= 1 for c in COLOURS):
        reached.append(GOALS[1])
    if any(bank.get(c) >= GOAL_SAME for c in COLOURS):
        reached.append(GOALS[2])
    return tuple(reached)


@dataclass(frozen=True)
class GameResult:
    """One simulated game: its seed, the policy of each seat, how long it lasted and how it ended."""

    seed: int
    policies: tuple[str, ...]
    rounds: int
    finished: bool
    winners: tuple[int, ...]
    #: The goals of R-END-1 the winners reached (a game can end by several at once).
    goals: tuple[str, ...]
    falls: int
    steals: int
    rescues: int
    #: Each seat's banked gems at the end.
    banks: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        """The game as a JSON object (what a task sends back)."""
        return {"seed": self.seed, "policies": list(self.policies), "rounds": self.rounds, "finished": self.finished,
                "winners": list(self.winners), "goals": list(self.goals), "falls": self.falls, "steals": self.steals,
                "rescues": self.rescues, "banks": list(self.banks)}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> "GameResult":
        """The inverse of :meth:`to_json`."""
        return cls(obj["seed"], tuple(obj["policies"]), obj["rounds"], obj["finished"], tuple(obj["winners"]),
                   tuple(obj["goals"]), obj["falls"], obj["steals"], obj["rescues"], tuple(obj["banks"]))


def start_position(board: Board, rules: Ruleset, players: int) -> Position:
    """The start of a game with ``players`` seats (R-BOARD-5, R-COMP), the lifebuoy with the first seat."""
    return Position.initial(list(SEATS[:players]), board, rules, lifebuoy=0)


def seat_policies(game: int, players: int, policy: str, against: str | None) -> tuple[str, ...]:
    """The policy of each seat in game number ``game``: ``policy`` everywhere, or in seat ``game`` mod ``players``
    with ``against`` in every other seat."""
    if against is None:
        return (policy,) * players
    return tuple(policy if seat == game % players else against for seat in range(players))


def play_game(start: Position, seed: int, policies: Sequence[str], max_rounds: int) -> GameResult:
    """One game from ``start`` with a policy per seat, until someone reaches the goal (R-END-2) or ``max_rounds``."""
    rounds = falls = steals = rescues = 0
    end = start
    for record in random_playout(start, seed, max_rounds, list(policies)):
        rounds += 1
        falls += len(record.fell)
        rescues += sum(len(r.payments) for _, r in record.rescues)
        steals += sum(1 for t in record.turns for a in t.turn.actions for s in a.steps if isinstance(s, Steal))
        end = record.end
    won = winners(end)
    goals = sorted({g for i in won for g in goals_reached(end.players[i].bank)}, key=GOALS.index)
    return GameResult(seed, tuple(policies), rounds, bool(won), won, tuple(goals), falls, steals, rescues,
                      tuple(p.bank.total for p in end.players))


def simulate_job(ruleset: Any, board: Any, players: int, seed: int, first: int, count: int, policy: str,
                 against: str | None, max_rounds: int) -> dict[str, Any]:
    """Games ``first`` .. ``first + count - 1`` of a run (``ruleset`` and ``board`` as JSON)."""
    start = start_position(Board.from_json(board), Ruleset.from_json(ruleset), players)
    games = []
    for g in range(first, first + count):
        if out_of_time():  # the command's time limit: the games left are not played, and the run says so
            break
        games.append(play_game(start, seed * SEED_STRIDE + g, seat_policies(g, players, policy, against), max_rounds))
    return {"kind": "simulate", "games": [g.to_json() for g in games], "unplayed": count - len(games)}


@dataclass(frozen=True)
class Settings:
    """What one run plays: the ruleset and board, the seats, how many games, with which policies."""

    rules: Ruleset
    board: Board
    players: int
    games: int = 100
    seed: int = 0
    policy: str = "lookahead"
    against: str | None = None
    max_rounds: int = 100

    def check(self) -> None:
        """Refuse what cannot be played (exit 2, naming the option and the rule)."""
        require(self.rules, "engine")
        self.rules.check_players([self.players])
        for option, name in (("--policy", self.policy), ("--against", self.against)):
            if name is not None and name not in POLICIES:
                raise InputError(option, f"unknown policy {quoted(name)}; policies: {', '.join(sorted(POLICIES))}",
                                 "PLAY")
        if not 1 <= self.games <= MAX_GAMES:
            raise InputError("--games", f"play 1 to {MAX_GAMES:,} games, not {self.games}", LIMITS)

    def tasks(self) -> list[Task]:
        """The run's games as independent tasks."""
        rules, board = self.rules.to_json(), self.board.to_json()
        return [Task(simulate_job, (rules, board, self.players, self.seed, first, min(CHUNK, self.games - first),
                                    self.policy, self.against, self.max_rounds))
                for first in range(0, self.games, CHUNK)]


# -- one run -------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Simulation:
    """The games of one run and what they say (every figure with its 95% interval)."""

    settings: Settings
    games: tuple[GameResult, ...]
    seconds: float = 0.0

    @property
    def players(self) -> int:
        """The number of seats."""
        return self.settings.players

    @property
    def lengths(self) -> list[int]:
        """The rounds each finished game lasted."""
        return [g.rounds for g in self.games if g.finished]

    @property
    def unfinished(self) -> int:
        """Games nobody won within the round limit."""
        return sum(1 for g in self.games if not g.finished)

    def seat_wins(self, seat: int) -> int:
        """Games the seat won (a shared win counts for every winner, R-END-3)."""
        return sum(1 for g in self.games if seat in g.winners)

    def policy_wins(self) -> int:
        """Games the seat playing ``policy`` won, when it plays ``against`` others."""
        return sum(1 for g in self.games
                   if any(g.policies[i] == self.settings.policy for i in g.winners))

    def ends(self, goal: str) -> int:
        """Finished games whose winners reached ``goal`` (one of :data:`GOALS`)."""
        return sum(1 for g in self.games if goal in g.goals)

    def per_game(self, what: str) -> list[float]:
        """``falls``, ``steals`` or ``rescues`` in each game."""
        return [float(getattr(g, what)) for g in self.games]

    def histogram(self) -> list[tuple[int, int]]:
        """(rounds, games) for every length a finished game had, shortest first."""
        counts: dict[int, int] = {}
        for n in self.lengths:
            counts[n] = counts.get(n, 0) + 1
        return sorted(counts.items())

    def to_json(self) -> dict[str, Any]:
        """Every figure of the run, and each game."""
        s = self.settings
        n = len(self.games)
        lengths = [float(x) for x in self.lengths]
        out: dict[str, Any] = {
            "ruleset": s.rules.to_json(), "board": s.board.name or "inline", "players": s.players, "games": n,
            "seed": s.seed, "policy": s.policy, "against": s.against, "max_rounds": s.max_rounds,
            "length": {"median": interval_json(median_interval(lengths)), "mean": interval_json(mean_interval(lengths)),
                       "quartiles": list(statistics.quantiles(lengths, n=4)) if len(lengths) > 1 else None,
                       "min": min(self.lengths, default=None), "max": max(self.lengths, default=None),
                       "histogram": [list(x) for x in self.histogram()], "unfinished": self.unfinished},
            "seats": [{"seat": SEATS[i], "wins": rate_json(self.seat_wins(i), n)} for i in range(s.players)],
            "per_game": {what: interval_json(_counted(mean_interval(self.per_game(what)))) for what in COUNTED},
            "ends": {goal: rate_json(self.ends(goal), n) for goal in GOALS},
            "shared_wins": sum(1 for g in self.games if len(g.winners) > 1),
            "seconds": round(self.seconds, 3),
            "game_list": [g.to_json() for g in self.games],
        }
        if s.against is not None:
            out["policy_wins"] = {**rate_json(self.policy_wins(), n), "fair_share": round(1 / s.players, 4)}
        return out


def _counted(values: tuple[float, float, float]) -> tuple[float, float, float]:
    """A mean count's interval, never below 0 (the normal approximation can reach below)."""
    return (values[0], max(0.0, values[1]), values[2])


def simulation_from(settings: Settings, results: Results, seconds: float = 0.0) -> Simulation:
    """The run from its tasks' results."""
    games = [GameResult.from_json(g) for t in settings.tasks() for g in results[task_key(t)]["games"]]
    return Simulation(settings, tuple(games), seconds)


def simulate(settings: Settings, jobs: int = 1, scheduler: str | None = None,
             show_progress: bool = False) -> Simulation:
    """Play the run's games (in this process, ``jobs`` local processes or on a Dask cluster)."""
    settings.check()
    begin = time.perf_counter()
    tasks = settings.tasks()
    results = run_all(tasks, jobs, scheduler, Progress(len(tasks), "simulate", show_progress))
    return simulation_from(settings, results, time.perf_counter() - begin)


# -- two rulesets compared -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Comparison:
    """Two runs with the same seeds and seats under two rulesets, and each figure's change from A to B."""

    a: Simulation
    b: Simulation

    def rows(self) -> list[dict[str, Any]]:
        """One row per figure: A's value, B's, and B minus A with its 95% interval."""
        a, b = self.a, self.b
        na, nb = len(a.games), len(b.games)
        rows = []

        def row(name: str, va: float, vb: float, diff: tuple[float, float, float], unit: str) -> None:
            rows.append({"measure": name, "a": va, "b": vb, "unit": unit, "difference": interval_json(diff)})

        # A run the time limit stopped before any game was played has no rates and no means: NaN ("n/a").
        def share(hits: int, n: int) -> float:
            return hits / n if n else math.nan

        def shares(ha: int, hb: int) -> tuple[float, float, float]:
            return rate_difference(ha, na, hb, nb) if na and nb else (math.nan, math.nan, math.nan)

        def mean(values: list[float]) -> float:
            return statistics.fmean(values) if values else math.nan

        la, lb = [float(x) for x in a.lengths], [float(x) for x in b.lengths]
        row("median game length", statistics.median(la) if la else math.nan,
            statistics.median(lb) if lb else math.nan, median_difference(la, lb), "rounds")
        row("mean game length", mean(la), mean(lb), mean_difference(la, lb), "rounds")
        row("unfinished games", share(a.unfinished, na), share(b.unfinished, nb), shares(a.unfinished, b.unfinished),
            "share")
        for seat in range(a.players):
            wa, wb = a.seat_wins(seat), b.seat_wins(seat)
            row(f"{SEATS[seat]} (seat {seat + 1}) wins", share(wa, na), share(wb, nb), shares(wa, wb), "share")
        for what in COUNTED:
            fa, fb = a.per_game(what), b.per_game(what)
            row(f"{what} per game", mean(fa), mean(fb), mean_difference(fa, fb), "count")
        for goal in GOALS:
            ea, eb = a.ends(goal), b.ends(goal)
            row(f"games ended by {goal}", share(ea, na), share(eb, nb), shares(ea, eb), "share")
        return rows

    def to_json(self) -> dict[str, Any]:
        """Both runs and the differences."""
        return {"players": self.a.players, "a": self.a.to_json(), "b": self.b.to_json(),
                "differences": [{**r, "a": number(r["a"]), "b": number(r["b"])} for r in self.rows()]}


def compare(a: Settings, b: Settings, jobs: int = 1, scheduler: str | None = None,
            show_progress: bool = False) -> Comparison:
    """Play both runs (their tasks together, so ``jobs`` keeps every process busy) and compare them."""
    a.check()
    b.check()
    begin = time.perf_counter()
    tasks = [*a.tasks(), *b.tasks()]
    results = run_all(tasks, jobs, scheduler, Progress(len(tasks), "simulate", show_progress))
    seconds = time.perf_counter() - begin
    return Comparison(simulation_from(a, results, seconds), simulation_from(b, results, seconds))
