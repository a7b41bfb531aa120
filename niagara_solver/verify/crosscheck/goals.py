"""Goal positions: positions the solver is asked for, where a given rule clause matters (a steal after an unload,
both canoes banking, an odd flow with canoes in both branches, a rescue with an empty bank, ...).

Each goal is a condition on one phase's relation from a well-formed symbolic position (a :class:`GoalQuestion`);
a model is shrunk to a small, plain position whose outcomes stay few enough to enumerate.

Finding them is the costliest part of a short cross-check (seconds per goal), and the answer depends only on the
question: the board, the ruleset, the player count, the goals asked and the code that reads the rules. So the
answers may be kept in a cache folder (:func:`goal_answers`, ``cache=``), under a key made of exactly those,
the code as the text of every module the search runs (the encoding, the model, this module) and z3's version: a
change to any of them is another key. An entry is read back only if it parses, names the same question, and
each position is valid; anything else is searched again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Callable, Iterator

import z3

from niagara_solver.encoding.relations import NAMES, NCOL, Relations, SymPosition, TurnStep, value
from niagara_solver.encoding.state import LASSO, ONE_TWO_THREE
from niagara_solver.encoding.solver import make_solver
from niagara_solver.encoding.solver import shrink as shrink_model
from niagara_solver.encoding.tables import BoardTables
from niagara_solver.model.atoms import Card, Phase
from niagara_solver.model.board import Board
from niagara_solver.model.errors import NiagaraError
from niagara_solver.model.format import position_from_json, position_to_json
from niagara_solver.model.invariants import position_problems
from niagara_solver.model.position import Player, Position
from niagara_solver.model.ruleset import SWITCHES, Ruleset
from niagara_solver.model.switches import SwitchPhase
from niagara_solver.encoding.terms import z_and, z_or, z_sum


#: The phases a goal position is asked of: a switch's parts of a game, no vocabulary of their own.
TURN, FLOW, RESCUE, END = SwitchPhase.TURN, SwitchPhase.FLOW, SwitchPhase.RESCUE, SwitchPhase.END


@dataclass(frozen=True)
class CoverageGoal:
    """A position the solver is asked for so that the cross-check covers a rule clause: a phase, a condition on
    its choices, and the rules it makes matter (not the solver's goals of a puzzle, win / steal / safe:
    :class:`niagara_solver.solver.answers.Goal`)."""

    name: str
    #: The phase whose relation the position is asked of (a turn, the flow, the rescues; the end check is asked of a
    #: position at the start of a round, as the rescues are).
    phase: SwitchPhase
    rules: tuple[str, ...]
    condition: Callable[["GoalQuestion"], Any]
    #: The switches the goal needs away from their defaults (an expansion module on, RULES.md section X); asked only
    #: with all of them so.
    switches: tuple[str, ...] = ()
    #: A switch of phase I: the goal is a position where the rescue relation with the switch as the ruleset has it
    #: and with the switch at its default disagree on some decision (what ``diff``'s witness asks). Such a goal is
    #: made for every switch whose row acts in phase I first (:func:`_where_it_matters`).
    against: str | None = None
    #: How many turns the goal follows, one after another (2: player 1's turn after player 0's, a steal back).
    turns: int = 1


@dataclass
class GoalQuestion:
    """What a goal's condition may read: the relations, the position before the phase, the phase's step (a turn,
    the flow or the rescues), who would win at the position before, and for two turns the second player's."""

    relations: Relations
    pre: SymPosition
    step: Any
    won: list[Any]
    second: TurnStep | None = None

    @property
    def tables(self) -> BoardTables:
        return self.relations.tables


def _slots(q: GoalQuestion) -> list[Any]:
    return q.step.observations


def _unloads(s: Any) -> Any:
    return z_sum([op.unloads(c) for op in s.ops for c in range(NCOL)])


def _loads(s: Any) -> Any:
    return z_sum([op.loads(c) for op in s.ops for c in range(NCOL)])


GOALS: tuple[CoverageGoal, ...] = (
    CoverageGoal("steal", TURN, ("R-STEAL-1", "R-STEAL-2"),
                 lambda c: z_or(c.step.steals_with(0), c.step.steals_with(1))),
    CoverageGoal("steal-after-unload", TURN, ("R-STEAL-5",),
                 lambda c: z_or([z_and(c.step.steals_with(i), _unloads(s) > 0) for i, s in enumerate(_slots(c))])),
    CoverageGoal("both-canoes-bank", TURN, ("R-MOVE-5", "R-GEM-5"),
                 lambda c: z_and([z_and(s.home, c.pre.load(0, s.who) > 0) for s in _slots(c)])),
    CoverageGoal("port-entry-with-spare-points", TURN, ("R-MOVE-5",),
                 lambda c: z_or([z_and(s.home, c.tables.depth_of(s.start) + 2 * z_sum(
                     [x for op in s.pre_ops for x in op.cells()]) < c.step.card) for s in _slots(c)])),
    CoverageGoal("load-from-a-mixed-cave", TURN, ("R-GEM-3", "R-GEM-1"),
                 lambda c: z_or([op.load[cc][col] >= 1 for s in _slots(c) for op in s.ops
                                  for cc in range(NCOL) for col in range(NCOL) if cc != col])),
    CoverageGoal("unload-one-colour-load-another", TURN, ("R-GEM-4",),
                 lambda c: z_or([z_and(_loads(s) > 0, _unloads(s) > 0) for s in _slots(c)])),
    CoverageGoal("last-gem-of-a-cave", TURN, ("R-TURN-4", "R-GEM-1"),
                 lambda c: z_and(_slots(c)[0].on, _slots(c)[1].on, z_or(
                     [z_and(op.load[cc][col] >= 1, c.pre.cave[cc][col] == 1) for s in _slots(c) for op in s.ops
                      for cc in range(NCOL) for col in range(NCOL)]))),
    CoverageGoal("fork-choice", TURN, ("R-MOVE-4",),
                 lambda c: z_or([z_and(s.move == 1, c.tables.depth_of(s.end) > _fork_depth(c),
                                         c.tables.depth_of(s.start) <= _fork_depth(c)) for s in _slots(c)])),
    CoverageGoal("cloud-in-a-storm", TURN, ("R-WEATHER-1", "R-TURN-2"),
                 lambda c: z_and(c.step.card == 0, c.pre.weather == 2)),
    CoverageGoal("port-canoe-stays", TURN, ("R-TURN-3",),
                 lambda c: z_and(c.pre.place[0][0] == 0, c.tables.is_disc(c.pre.place[0][1]),
                                  z3.Not(_slots(c)[0].on), c.step.card != 0)),
    CoverageGoal("odd-flow-with-canoes-in-both-branches", FLOW, ("R-FLOW-4", "R-FLOW-3"),
                 lambda c: z_and(c.step.k % 2 == 1, *_both_branches(c))),
    CoverageGoal("fall-with-a-gem", FLOW, ("R-FLOW-6",),
                 lambda c: z_or([z_and(c.step.post.place[p][k] == c.tables.FALLEN,
                                         c.pre.place[p][k] != c.tables.FALLEN, c.pre.load(p, k) > 0)
                                  for p in range(c.pre.players) for k in range(2)])),
    CoverageGoal("negative-flow-sum", FLOW, ("R-FLOW-2",), lambda c: c.step.total < 0),
    CoverageGoal("two-players-reach-the-goal", END, ("R-END-1", "R-END-3"), lambda c: z_and(c.won[0], c.won[1])),
    CoverageGoal("rescue-with-an-empty-bank", RESCUE, ("R-RESCUE-2",),
                 lambda c: z_and(c.pre.place[0][0] == c.tables.FALLEN,
                                  c.pre.place[0][1] == c.tables.FALLEN, z_sum(c.pre.bank[0]) == 0)),
    CoverageGoal("rescue-both-canoes", RESCUE, ("R-RESCUE-1",),
                 lambda c: z_and(c.step.choice.rescued[0][0], c.step.choice.rescued[0][1])),
    CoverageGoal("steal-a-stolen-gem", TURN, ("R-STEAL-4",), lambda c: _steal_back(c), turns=2),
    CoverageGoal("rescue-with-none-in-play-and-gems", RESCUE, ("R-RESCUE-2", "R-RESCUE-3"),
                 lambda c: z_and(c.pre.place[0][0] == c.tables.FALLEN,
                                  c.pre.place[0][1] == c.tables.FALLEN, z_sum(c.pre.bank[0]) > 0)),
    # The expansion's modules (RULES.md section X), each asked only with its module on.
    CoverageGoal("one-two-three", TURN, ("X-CARDS-1", "X-CARDS-3"),
                 lambda c: z_and(c.step.card == ONE_TWO_THREE, z_or([s.on for s in _slots(c)])), ("x_cards",)),
    CoverageGoal("lasso-moors", TURN, ("X-CARDS-4",),
                 lambda c: z_and(c.step.card == LASSO, c.tables.is_disc(c.pre.place[0][0])), ("x_cards",)),
    CoverageGoal("seven-and-lasso-in-the-flow", FLOW, ("X-CARDS-2",),
                 lambda c: z_and(c.pre.card[0] == int(Card.SEVEN), c.pre.card[1] == LASSO), ("x_cards",)),
    CoverageGoal("double-canoe-loads-a-second-gem", TURN, ("X-DOUBLE-1", "X-DOUBLE-2"),
                 lambda c: _second_gem(c), ("x_double",)),
    CoverageGoal("steal-two-gems", TURN, ("X-DOUBLE-3",),
                 lambda c: z_or([z_sum([z3.If(s.taking(j), 1, 0) for j in range(len(s.steals))]) >= 2
                                  for s in c.step.choice.slots]), ("x_double",)),
    CoverageGoal("cloud-brings-the-beaver", TURN, ("X-BEAVER-1",),
                 lambda c: z_and(c.step.card == 0, c.pre.weather == 1, c.pre.beaver == c.tables.PORT,
                                  c.step.post.weather == 2), ("x_beaver",)),
    CoverageGoal("beaver-over-the-falls", FLOW, ("X-BEAVER-2",),
                 lambda c: z_and(c.pre.beaver != c.tables.PORT, c.step.post.beaver == c.tables.PORT), ("x_beaver",)),
    CoverageGoal("take-the-moose", TURN, ("X-MOOSE-1", "X-MOOSE-2"),
                 lambda c: z_or(c.step.choice.take), ("x_moose",)),
    CoverageGoal("moose-returns", FLOW, ("X-MOOSE-3",),
                 lambda c: z_and(c.pre.moose == 1, c.step.post.moose != 1), ("x_moose",)),
    CoverageGoal("whirlpool-push-from-below", TURN, ("X-WHIRL-2", "X-WHIRL-3"),
                 lambda c: z_or([z_and(s.pushed, z3.Not(s.fell), c.tables.depth_of(s.start) > c.tables.depth_of(
                     c.pre.whirl)) for s in _slots(c)]), ("x_whirl",)),
    CoverageGoal("whirlpool-push-over-the-falls", TURN, ("X-WHIRL-2",),
                 lambda c: z_or([s.fell for s in _slots(c)]), ("x_whirl",)),
    CoverageGoal("stay-below-the-whirlpool", TURN, ("X-WHIRL-5", "X-WHIRL-3"),
                 lambda c: z_or([s.stayed for s in _slots(c)]), ("x_whirl",)),
    CoverageGoal("whirlpool-over-the-falls", FLOW, ("X-WHIRL-1",),
                 lambda c: c.step.extra["whirl_over"], ("x_whirl",)),
    CoverageGoal("whirlpool-comes-back", FLOW, ("X-WHIRL-1",),
                 lambda c: z_and(c.pre.whirl == 0, c.step.k >= 1), ("x_whirl",)),
    CoverageGoal("put-back-onto-the-whirlpool", FLOW, ("X-WHIRL-4", "X-CARDS-4"),
                 lambda c: c.step.extra["put_back_on_whirl"], ("x_whirl", "x_cards")),
    CoverageGoal("take-joes-gem", TURN, ("X-JOE-3",), lambda c: _trade(c, take=True, give=False), ("x_joe",)),
    CoverageGoal("swap-with-joe", TURN, ("X-JOE-3",), lambda c: _trade(c, take=True, give=True), ("x_joe",)),
    CoverageGoal("give-joe-a-gem", TURN, ("X-JOE-3",), lambda c: _trade(c, take=False, give=True), ("x_joe",)),
    CoverageGoal("joe-over-the-falls-with-a-gem", FLOW, ("X-JOE-1",),
                 lambda c: z_and(c.step.extra["joe_over"], z_sum(c.pre.joe_gem) == 1), ("x_joe",)),
    CoverageGoal("joe-loads-and-paddles", FLOW, ("X-JOE-2",),
                 lambda c: z_and(z_sum(c.pre.joe_gem) == 0, z_sum(c.step.post.joe_gem) == 1,
                                  c.step.post.joe != c.pre.joe), ("x_joe",)),
)


def _where_it_matters(name: str) -> CoverageGoal:
    """The goal of a switch of phase I: a position where its value, against its default, changes which rescue
    decisions are legal, so that the case compared there exercises the switch's rule (asked with the switch away
    from its default). Made from the switch's row: a new switch of phase I needs nothing here."""
    return CoverageGoal(f"where-{name}-matters", RESCUE, (SWITCHES[name].rule,), lambda c: z3.BoolVal(True),
                        (name,), against=name)


GOALS += tuple(_where_it_matters(name) for name, row in SWITCHES.items() if row.phases[0] is RESCUE)


def goals_for(rules: Ruleset) -> tuple[CoverageGoal, ...]:
    """The goals asked under ``rules``: every base goal, each module's goals with the module on, and each switch's
    own goal with the switch away from its default."""
    return tuple(g for g in GOALS if all(getattr(rules, s) != SWITCHES[s].default for s in g.switches))


def _second_gem(q: GoalQuestion) -> Any:
    """Player 0's double canoe, carrying one gem, loads a second one (X-DOUBLE-1, X-DOUBLE-2)."""
    double = q.pre.double
    assert double is not None  # asked only with x_double
    return z_or([z_and(double[0][k], q.pre.load(0, k) == 1, q.step.post.load(0, k) == 2) for k in range(2)])


def _steal_back(q: GoalQuestion) -> Any:
    """Player 0, carrying nothing and loading nothing, steals; then player 1 steals: whatever player 1 takes
    from player 0 was stolen earlier in this phase. Low cards, one acting canoe for player 0 and empty banks
    keep the search short (about 2 s rather than 5) and the position's outcomes few."""
    pre, step, second = q.pre, q.step, q.second
    assert second is not None
    return z_and(pre.load(0, 0) == 0, pre.load(0, 1) == 0, z_sum([_loads(s) for s in _slots(q)]) == 0,
                  z_or(step.steals_with(0), step.steals_with(1)), z_or(second.steals_with(0), second.steals_with(1)),
                  step.card <= 3, second.card <= 3,
                  z3.Not(step.choice.slots[1].on), *[g == 0 for row in pre.bank for g in row])


def _trade(q: GoalQuestion, take: bool, give: bool) -> Any:
    """One of player 0's canoes trades with Joe (X-JOE-3): takes his gem, gives him one, or both (a swap)."""
    out = []
    for s in q.step.choice.slots:
        assert s.take_joe is not None and s.give_joe is not None  # asked only with x_joe
        gives = z_sum(s.give_joe) >= 1
        out.append(z_and(s.take_joe if take else z3.Not(s.take_joe), gives if give else z3.Not(gives)))
    return z_or(out)


def _fork_depth(q: GoalQuestion) -> int:
    t = q.tables
    return min((t.depth[f] for f in t.forks), default=t.max_depth)


def _both_branches(q: GoalQuestion) -> list[Any]:
    t, pre = q.tables, q.pre
    if not t.forks:
        return [z3.BoolVal(False)]
    first = t.branch[t.forks[0]]
    return [z_or([pre.place[p][k] == b for p in range(pre.players) for k in range(2)]) for b in first[:2]]


class GoalStatus(StrEnum):
    """Whether a goal position was found (the values are the cache's words)."""

    MET = "met"                  # a position meets the goal
    UNREACHABLE = "unreachable"  # no position can meet it under the rules
    UNKNOWN = "unknown"          # the solver ran out of time


@dataclass(frozen=True)
class GoalAnswer:
    """A goal's position (and, for a turn, the card), or why there is none (``status``)."""

    goal: CoverageGoal
    position: Position | None
    card: Card | None
    status: GoalStatus


def goal_positions(board: Board, rules: Ruleset, players: int = 2, timeout: float | None = 30,
                   names: list[str] | None = None) -> Iterator[tuple[CoverageGoal, Position | None, Card | None]]:
    """For each goal (or those named), a position meeting it (and, for a turn, the card), or None when no
    position can or none was found in time (:func:`goal_answers` tells which)."""
    for answer in goal_answers(board, rules, players, timeout, names):
        yield answer.goal, answer.position, answer.card


def goal_answers(board: Board, rules: Ruleset, players: int = 2, timeout: float | None = 30,
                 names: list[str] | None = None, cache: str | Path | None = None) -> Iterator[GoalAnswer]:
    """For each goal (or those named), in the order of :data:`GOALS`, its answer. With ``cache`` (a folder), the
    answers are read from there when a clean entry for exactly this question exists, and written there after a
    search that ran to the end with no unknown answer."""
    key = _cache_key(board, rules, players, names) if cache is not None else None
    if cache is not None and key is not None:
        kept = _read_cache(Path(cache), key, names, rules)
        if kept is not None:
            yield from kept
            return
    answers = []
    for answer in _search(board, rules, players, timeout, names):
        answers.append(answer)
        yield answer
    if cache is not None and key is not None and all(a.status is not GoalStatus.UNKNOWN for a in answers):
        _write_cache(Path(cache), key, answers)


def _search(board: Board, rules: Ruleset, players: int, timeout: float | None,
            names: list[str] | None) -> Iterator[GoalAnswer]:
    relations = Relations(board, rules, players)
    base = Position.initial(list(NAMES[:players]), board, rules)
    for goal in goals_for(rules):
        if names is not None and goal.name not in names:
            continue
        pre = relations.position(f"goal.{goal.name}")
        step: Any
        second: TurnStep | None = None
        if goal.phase is TURN:
            step = relations.turn(pre, 0, f"goal.{goal.name}")
            wf = relations.well_formed(pre, Phase.TURNS)
            start = base.replace(phase=Phase.TURNS)
            if goal.turns == 2:  # player 1 acts next, from the position player 0's turn left
                second = relations.turn(step.post, 1, f"goal.{goal.name}.then")
        elif goal.phase is FLOW:
            step = relations.flow(pre)
            wf = relations.well_formed(pre, Phase.TURNS, all_acted=True)
            start = base.replace(phase=Phase.TURNS, acted=tuple(range(players)))
        else:
            step = relations.rescue(pre, f"goal.{goal.name}")
            wf = relations.well_formed(pre, Phase.CARDS)
            start = base
        solver = make_solver(timeout)
        if goal.against is not None:
            # Valid under both, and one decision legal under one only (the rescue relation is small: both are built).
            at_default = Relations(board, dataclasses.replace(rules, **{goal.against: SWITCHES[goal.against].default}),
                                   players)
            other = at_default.rescue(pre, choice=step.choice)
            solver.add(*[c for _, c in wf], *[c for _, c in at_default.well_formed(pre, Phase.CARDS)])
            solver.add(z_and([c for _, c in step.constraints]) != z_and([c for _, c in other.constraints]))
        else:
            solver.add(*[c for _, c in wf], *[c for _, c in step.constraints])
        if second is not None:
            solver.add(*[c for _, c in second.constraints])
        solver.add(goal.condition(GoalQuestion(relations, pre, step, relations.end(pre), second)))
        answer = solver.check()
        if answer != z3.sat:
            yield GoalAnswer(goal, None, None, GoalStatus.UNREACHABLE if answer == z3.unsat else GoalStatus.UNKNOWN)
            continue
        extra = []
        if goal.phase is TURN and second is None:  # a small card and an idle second canoe keep the turn's outcomes few
            extra = [step.card, z3.If(z_and(pre.place[0][1] != relations.tables.FALLEN,
                                             z3.Not(step.choice.slots[1].on)), 3, 0)]
        elif second is not None:
            extra = [step.card, second.card]
        model = _small(solver, pre, relations.tables, solver.model(), extra)
        pos = relations.decode_position(model, pre, start)
        card = None
        if goal.phase is TURN:
            card = Card(value(model, step.card))
            cards = {0: card, 1: Card(value(model, second.card))} if second is not None else {0: card}
            pos = pos.replace(players=tuple(Player(p.name, p.canoes, p.hand, p.bank, cards.get(i))
                                            for i, p in enumerate(pos.players)))
        elif goal.phase is not FLOW:  # a start-of-round position: no card chosen yet
            pos = pos.replace(players=tuple(Player(p.name, p.canoes, p.hand, p.bank, None) for p in pos.players))
        if position_problems(pos):
            yield GoalAnswer(goal, None, None, GoalStatus.UNREACHABLE)
        else:
            yield GoalAnswer(goal, pos, card, GoalStatus.MET)


# -- the cache of goal answers ---------------------------------------------------------------------------------

def default_cache() -> Path:
    """The command line's cache folder for goal answers: ``$XDG_CACHE_HOME/niagara-solver``, else
    ``~/.cache/niagara-solver``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "niagara-solver"


#: The modules whose text is part of a cache key: everything the goal search runs (the encoding reads the rules,
#: the model builds and checks positions, this module states the goals).
_KEYED = ("encoding", "model", "verify/crosscheck/goals.py")
#: The version of the cache's entries (a different layout is another key).
_CACHE_FORMAT = 1


def _source_digest() -> str:
    """A digest of the text of every module in :data:`_KEYED`."""
    root = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for part in _KEYED:
        path = root / part
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for file in files:
            digest.update(str(file.relative_to(root)).encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()


def _cache_key(board: Board, rules: Ruleset, players: int, names: list[str] | None) -> str | None:
    """The key of a question: its every part and the code's digest (None when the code cannot be read)."""
    try:
        source = _source_digest()
    except OSError:
        return None
    question = {"format": _CACHE_FORMAT, "source": source, "z3": z3.get_version_string(),
                "board": board.to_json(), "ruleset": rules.to_json(), "players": players,
                "goals": [g.name for g in goals_for(rules) if names is None or g.name in names]}
    return hashlib.sha256(json.dumps(question, sort_keys=True).encode()).hexdigest()


def _read_cache(folder: Path, key: str, names: list[str] | None, rules: Ruleset) -> list[GoalAnswer] | None:
    """The kept answers of this question, or None when there is no clean entry."""
    try:
        data = json.loads((folder / f"goals-{key}.json").read_text(encoding="utf-8"))
        by_name = {g.name: g for g in GOALS}
        asked = [g.name for g in goals_for(rules) if names is None or g.name in names]
        if data.get("key") != key or [a["goal"] for a in data["answers"]] != asked:
            return None
        answers = []
        for item in data["answers"]:
            status = GoalStatus(item["status"])
            if status is GoalStatus.MET:
                pos = position_from_json(item["position"])
                card = Card(item["card"]) if item["card"] is not None else None
                if position_problems(pos):
                    return None
                answers.append(GoalAnswer(by_name[item["goal"]], pos, card, status))
            elif status is GoalStatus.UNREACHABLE:
                answers.append(GoalAnswer(by_name[item["goal"]], None, None, status))
            else:
                return None
        return answers
    except (OSError, ValueError, KeyError, TypeError, NiagaraError):
        return None


def _write_cache(folder: Path, key: str, answers: list[GoalAnswer]) -> None:
    """Keep the answers (written whole, then renamed, so a reader never sees half an entry); a folder that
    cannot be written is no error, only no cache."""
    items: list[dict[str, Any]] = []
    for a in answers:
        if a.position is not None and position_from_json(position_to_json(a.position)) != a.position:
            return  # a position the file format does not carry exactly is searched again next time
        items.append({"goal": a.goal.name, "status": a.status.value,
                      "position": position_to_json(a.position) if a.position is not None else None,
                      "card": int(a.card) if a.card is not None else None})
    temporary = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".goals-", suffix=".json")
        with os.fdopen(handle, "w", encoding="utf-8") as f:
            json.dump({"key": key, "answers": items}, f)
        os.replace(temporary, folder / f"goals-{key}.json")
    except OSError:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def _small(solver: z3.Solver, pre: SymPosition, t: BoardTables, model: z3.ModelRef,
           extra: list[Any]) -> z3.ModelRef:
    """A goal position with few gems away from home and few canoes on the river besides player 0's first,
    so that its outcomes stay few enough to enumerate (and the same every run: see ``shrink``)."""
    size = (z_sum([g for row in pre.cargo for canoe in row for g in canoe]) + z_sum([g for r in pre.bank for g in r])
            + z_sum([pre.cave[cc][c] for cc in range(NCOL) for c in range(NCOL) if cc != c])
            + z_sum([z3.If(pre.place[p][k] != t.PORT, 1, 0) for p in range(1, pre.players) for k in range(2)])
            + z3.If(t.is_disc(pre.place[0][1]), 2, 0) + z_sum([0, *extra]))
    return shrink_model(solver, model, size)
