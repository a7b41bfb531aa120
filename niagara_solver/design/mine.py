"""Puzzles found in play (``niagara-solve mine``): forced wins, steals and safe rounds mined from seeded games.

Seeded games are played by the ``lookahead`` policy (:mod:`niagara_solver.play`), as ``simulate`` plays them. At
every round of a game, on the position where the cards are chosen (after the rescues of phase I, before any card:
R-CARD-1), each player with more than one card in hand is asked the question of the solver: can they force the goal
(win, steal or safe) within the horizon whatever the others do (docs/SOLVER.md)? A position is kept as a puzzle only
when

* **exactly one card** forces it: the search proves the "yes" with that card, and a "no" with each other card (the
  others' reply that defeats it, recorded as a refutation);
* **the encoding certifies** every one of those answers (:mod:`niagara_solver.solver.certify`): the "yes" and each
  card's "no". A certificate refused, or an answer unknown (out of time), drops the position and is counted;
* **the engine replays** the solution's line and every refutation (:class:`niagara_solver.games.lines.LineReplay`):
  each choice legal where it is made, the line ending as its reason says;
* it is **new**: no puzzle kept before is the same position up to renaming the players (:func:`canonical_key`), and
  it is not the same puzzle one round later in the same game (the same player, goal and card).

Each puzzle is **rated** by how often the ``greedy`` and ``lookahead`` policies, sampled with their own seeded
randomness, choose another card than the winning one (its difficulty), and by the size of its proof (the
certificate's nodes); its **themes** are the rules its proof relies on, read from the certificate and the solution's
line (:func:`themes_of`), never guessed from the position.

The games are independent tasks (:data:`CHUNK` games each), run in this process, in local processes or on a Dask
cluster (:mod:`niagara_solver.jobs`); game *g* of a run with seed *s* is played from seed ``s * 1_000_003 + g``,
as ``simulate`` plays it, so ``niagara-solve play --players N --seed SEED --rounds ROUND-1`` plays the game a puzzle
came from up to the start of its round.
"""

from __future__ import annotations

import dataclasses
import os
import random
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

from niagara_solver.design.simulate import SEED_STRIDE, start_position
from niagara_solver.engine.rescue import begin_turns
from niagara_solver.engine.round import RoundRecord, goal_reached, is_finished, winners
from niagara_solver.engine.turns import legal_turns
from niagara_solver.games.lines import LineReplay
from niagara_solver.jobs import Progress, Task, run_all, task_key
from niagara_solver.model.atoms import FALLEN, PORT, Card, Phase
from niagara_solver.model.board import Board
from niagara_solver.model.errors import InputError
from niagara_solver.model.format import dumps_position, load_document, loads_position
from niagara_solver.model.limits import LIMITS, OutOfTime, out_of_time
from niagara_solver.model.notation import Push, Steal, TakeMoose, Trade, Turn
from niagara_solver.model.position import Player, Position
from niagara_solver.model.readings import require
from niagara_solver.model.ruleset import Reveal, Ruleset
from niagara_solver.model.verdict import Verdict
from niagara_solver.play.playout import Greedy, random_playout
from niagara_solver.play.policy import Lookahead
from niagara_solver.solver.answers import Goal, bankable, could_reach_goal, has_steal, x_choice
from niagara_solver.solver.certificate import Certificate, Claim, NodeKind
from niagara_solver.solver.proof import certificate as write_certificate
from niagara_solver.solver.search import Node, Search, line_reason, trace

#: Games per task: a task of a few seconds, so that a progress bar moves.
CHUNK = 5
#: The most games one run may ask for.
MAX_GAMES = 10_000
#: The horizons mined: the puzzles a reader solves in their head (docs/MINING.md).
HORIZONS = (1, 2)
#: Sampled card choices per policy for a puzzle's rating.
SAMPLES = 20
#: The policies whose card choices rate a puzzle.
RATERS = ("greedy", "lookahead")
#: The most turns of X listed with their refutation when X acts first with a losing card (the certificate covers
#: every turn; ``solve`` lists as many).
TURNS_LISTED = 12
#: Seconds per question by default (a position, a player and a goal): most are answered in well under a second.
MINE_TIMEOUT = 5.0
#: The phases of the work, for the time each takes.
PHASES = ("playing", "solving", "certifying", "replaying", "rating")
#: Why a position asked was not kept, in the summary's order.
DROPS = ("no", "several cards", "unknown", "refused", "not replayed", "duplicate", "near duplicate")

#: The themes a puzzle may have: the rule its proof relies on, and its name in the game's words.
THEMES: dict[str, str] = {
    "R-STEAL-1": "steal",
    "R-RESCUE-1": "rescue",
    "R-WEATHER-1": "the weather",
    "R-FLOW-4": "fork parity",
    "R-END-3": "the tie-break",
    "X-MOOSE-1": "the moose",
    "X-WHIRL-2": "the whirlpool",
    "X-JOE-3": "Diamond Joe",
    "X-CARDS-4": "the Lasso",
    "X-CARDS-3": "the 1/2/3 card",
    "X-DOUBLE-1": "the double canoe",
}

#: The goal's words in a puzzle's question.
_GOAL_WORDS = {Goal.WIN: "win the game", Goal.STEAL: "steal a gem", Goal.SAFE: "keep every gem"}


# -- one question --------------------------------------------------------------------------------------------------

class Clock:
    """Seconds spent in each phase of the work (:data:`PHASES`)."""

    def __init__(self) -> None:
        self.seconds = dict.fromkeys(PHASES, 0.0)

    @contextmanager
    def __call__(self, phase: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[phase] += time.perf_counter() - start


class Dropped(Exception):
    """A position asked and not kept, and why (one of :data:`DROPS`)."""

    def __init__(self, why: str, detail: str = "") -> None:
        super().__init__(why if not detail else f"{why}: {detail}")
        self.why = why


def card_position(record: RoundRecord) -> Position:
    """Where a round's cards are chosen: its start with the rescues of phase I made, no card chosen (R-CARD-1)."""
    return begin_turns(record.start, dict(record.rescues))


def with_card(pos: Position, x: int, card: Card) -> Position:
    """``pos`` with player ``x``'s card chosen."""
    me = pos.players[x]
    return pos.with_player(x, Player(me.name, me.canoes, me.hand, me.bank, card))


def _certified(search: Search, pos: Position, answer: bool, timeout: float, clock: Clock) -> Certificate:
    """The search's answer written as a certificate and checked by the encoding (:class:`Dropped` unless accepted).
    The lemmas the sure leaves lean on are proved once per process first, outside the question's time limit
    (:func:`~niagara_solver.solver.certify.prepare`: about 5 s for four players, once)."""
    from niagara_solver.solver.certify import check_certificate, prepare  # z3, loaded once a certificate is checked
    with clock("certifying"):
        try:
            proof = write_certificate(search, pos, answer)
        except OutOfTime:
            raise Dropped("unknown", "the certificate was not written in time") from None
        prepare(pos)
        check = check_certificate(proof, timeout)
    if check.verdict is Verdict.REFUTED:
        raise Dropped("refused", check.text())
    if check.verdict is not Verdict.CONFIRMED:
        raise Dropped("unknown", check.text())
    return proof


def _verdict(search: Search, pos: Position, clock: Clock) -> bool:
    """The search's verdict alone (its pruned half's, :meth:`.search.Search.verdict`): no line of play is rebuilt for
    an answer that is then dropped (a "no" at the card choice, a second card that forces the goal)."""
    with clock("solving"):
        try:
            return search.verdict(pos)
        except OutOfTime:
            raise Dropped("unknown", "the search ran out of time") from None


def _line(search: Search, pos: Position, timeout: float, clock: Clock) -> Node:
    """The search's answer with its line of play, for an answer kept: a fresh time budget, its pruned half's table
    as the verdict left it (:meth:`.search.Search.renew`)."""
    with clock("solving"):
        search.renew(timeout)
        try:
            return search.value(pos)
        except OutOfTime:
            raise Dropped("unknown", "the search ran out of time") from None


def _line_json(node: Node) -> dict[str, Any]:
    """A line of play and why it ends (as data), as the puzzle file keeps it."""
    out: dict[str, Any] = {"line": trace(node)}
    reason = line_reason(node)
    if reason is not None:
        out["reason"] = reason.to_json()
    return out


def refutation(pos: Position, x: int, card: Card, search: Search, timeout: float, clock: Clock) -> dict[str, Any]:
    """The others' answer to ``x`` choosing ``card``, a "no" by ``search`` (its verdict asked on that card): the line
    that defeats it; where ``x`` acts first, the answer to each of its turns with the card (up to
    :data:`TURNS_LISTED`)."""
    pinned = with_card(pos, x, card)
    node = _line(search, pinned, timeout, clock)
    assert not node.value, "a refutation is a no"
    out: dict[str, Any] = {"card": card.to_json(), **_line_json(node)}
    if pinned.next_to_act() == x:  # X's own turn comes first: the answer to each of them
        outcomes = legal_turns(pinned, x)
        replies = []
        with clock("solving"):
            for o in outcomes[:TURNS_LISTED]:
                try:
                    after = search.after_turn(pinned, o)
                except OutOfTime:
                    raise Dropped("unknown", "the search ran out of time") from None
                replies.append({"turn": str(o.turn), **_line_json(after)})
        out["turns"] = len(outcomes)
        out["answers"] = replies
    return out


def winning_turns(pos: Position, x: int, search: Search, clock: Clock) -> list[str] | None:
    """Every turn of ``x`` that forces the goal with its card on ``pos``, when ``x`` acts first (None otherwise:
    which turns win depends on the turns before)."""
    if pos.next_to_act() != x:
        return None
    with clock("solving"):
        try:
            return [str(o.turn) for o in legal_turns(pos, x) if search.after_turn(pos, o).value]
        except OutOfTime:
            raise Dropped("unknown", "the search ran out of time") from None


def examine(pos: Position, x: int, goal: Goal, horizon: int, timeout: float = MINE_TIMEOUT,
            clock: Clock | None = None) -> dict[str, Any]:
    """The puzzle ``pos`` makes for player ``x`` (a card-choice position: phase II, nobody acted, no card chosen),
    or :class:`Dropped` saying why it makes none: its question, solution, refutations and themes (no rating and no
    source: :func:`mine_job` adds them)."""
    clock = clock or Clock()
    me = pos.players[x]
    if pos.phase is not Phase.TURNS or pos.acted or any(p.card is not None for p in pos.players):
        raise ValueError("a card-choice position: phase II, nobody acted, no card chosen (R-CARD-1)")
    # The verdicts first, the lines only for a puzzle kept: the "yes", then a "no" for every other card.
    search = Search(x, goal, horizon, timeout)
    if not _verdict(search, pos, clock):
        raise Dropped("no")
    card, _ = x_choice(search.values.value(pos))  # the pruned half's node, as the verdict left it
    assert card is not None, "a yes at the card choice names its card"
    others: dict[Card, Search] = {}
    for c in me.hand:
        if c != card:
            others[c] = Search(x, goal, horizon, timeout)
            if _verdict(others[c], with_card(pos, x, c), clock):
                raise Dropped("several cards", f"{c.label} forces it too")
    root = _line(search, pos, timeout, clock)
    assert x_choice(root)[0] == card, "the one card that forces the goal"
    _, turn = x_choice(root)
    refutations = [refutation(pos, x, c, again, timeout, clock) for c, again in others.items()]
    proof = _certified(search, pos, True, timeout, clock)
    for c, again in others.items():  # each "no" certified as well
        _certified(again, with_card(pos, x, c), False, timeout, clock)
    # Which turns win with the card, where X acts first: asked of the search that proved the "yes" (its tables hold
    # the card's positions already; a fresh search gives the same values), with a budget of its own.
    search.renew(timeout)
    turns = winning_turns(with_card(pos, x, card), x, search, clock)
    solution: dict[str, Any] = {"card": card.to_json(), "turn": str(turn) if turn is not None else None,
                                **_line_json(root)}
    if turns is not None:
        solution["turns"] = turns
    n = len(pos.players)
    first = pos.next_to_act() == x
    question = (f"{me.name} chooses a card ({n} players; {pos.players[pos.lifebuoy].name} holds the lifebuoy"
                + (f", so {me.name} acts first" if first else "") + f"). Which card lets {me.name} "
                f"{_GOAL_WORDS[goal]} within {horizon} round{'s' if horizon > 1 else ''}, whatever the others do?")
    themes = narrowed(themes_of(proof, solution["line"], pos), turns if horizon == 1 else None)
    puzzle = {"question": question, "player": me.name, "goal": goal.value, "horizon": horizon, "answer": "yes",
              "card": card.to_json(), "turn": solution["turn"], "solution": solution, "refutations": refutations,
              "themes": themes, "certificate_nodes": len(proof.nodes)}
    with clock("replaying"):
        problems = replay_problems(pos, puzzle)
    if problems:
        raise Dropped("not replayed", problems[0])
    return puzzle


# -- the engine replays the lines -------------------------------------------------------------------------------

def _replay(pos: Position, x: int, labels: Sequence[str], because: str | None, goal: Goal,
            holds: bool) -> str | None:
    """What is wrong with a line of play from ``pos`` as the engine replays it, or None: every label a choice the
    engine lists where it is made, except a last one that is the line's reason (``because``); where the game ends
    on the line, X among the winners exactly when the line ``holds`` (R-END-3); for the steal goal, a turn of X
    on the line that steals exactly when it holds (R-STEAL-1)."""
    replay = LineReplay(pos, x)
    stole = False
    for k, label in enumerate(labels):
        made = replay.step(label)
        if made is None:
            if k == len(labels) - 1 and label == because:
                break
            return f"the engine does not replay {label!r} (step {k + 1})"
        _, _, turn, player = made
        if turn is not None and player == x and has_steal(turn):
            stole = True
        if is_finished(replay.pos) and replay.pos.phase is Phase.CARDS and goal is Goal.WIN:
            if (x in winners(replay.pos)) is not holds:
                return f"the game ends after {label!r} with {x in winners(replay.pos)} for X's win (R-END-3)"
    if goal is Goal.STEAL and because is not None and stole is not holds:
        return f"X's turns on the line {'steal' if stole else 'steal nothing'} (R-STEAL-1)"
    return None


def _because(line: dict[str, Any]) -> str | None:
    """The words of a recorded line's reason, if it has one."""
    reason = line.get("reason")
    return reason.get("text") if isinstance(reason, dict) else None


def replay_problems(pos: Position, puzzle: dict[str, Any]) -> list[str]:
    """What the engine does not replay of a mined puzzle (its ``"puzzle"`` object on ``pos``): the solution's line,
    each refutation's line and each answer to a turn of X; an empty list when all replay."""
    names = [p.name for p in pos.players]
    x = names.index(puzzle["player"])
    goal = Goal(puzzle["goal"])
    problems = []
    solution = puzzle["solution"]
    said = _replay(pos, x, solution["line"], _because(solution), goal, True)
    if said:
        problems.append(f"solution: {said}")
    for ref in puzzle["refutations"]:
        pinned = with_card(pos, x, Card.parse(str(ref["card"])))
        said = _replay(pinned, x, ref["line"], _because(ref), goal, False)
        if said:
            problems.append(f"refutation of {ref['card']}: {said}")
        for answer in ref.get("answers", []):
            labels = [f"{puzzle['player']}: {answer['turn']}", *answer["line"]]
            said = _replay(pinned, x, labels, _because(answer), goal, False)
            if said:
                problems.append(f"refutation of {ref['card']}, turn {answer['turn']}: {said}")
    return problems


# -- themes ------------------------------------------------------------------------------------------------------

def _below_forks(pos: Position, x: int) -> int:
    """How many of ``x``'s canoes are on a branch below a fork."""
    board = pos.board
    forks = [f for f in board.discs if len(board.down[f]) > 1]
    return sum(1 for c in pos.players[x].canoes if c.place not in (PORT, FALLEN)
               and any(board.is_upstream_of(f, c.place) for f in forks))


def _turn_themes(turn: Turn) -> set[str]:
    found = set()
    for action in turn.actions:
        for step in action.steps:
            if isinstance(step, Steal):
                found.add("R-STEAL-1")
            elif isinstance(step, TakeMoose):
                found.add("X-MOOSE-1")
            elif isinstance(step, Push):
                found.add("X-WHIRL-2")
            elif isinstance(step, Trade):
                found.add("X-JOE-3")
    return found


#: The themes read from a turn of X (:func:`_turn_themes`).
TURN_THEMES = ("R-STEAL-1", "X-MOOSE-1", "X-WHIRL-2", "X-JOE-3")


def narrowed(themes: Sequence[str], turns: Sequence[str] | None) -> list[str]:
    """The themes a puzzle relies on when every winning turn is known (``turns``: X acts first, within one round):
    a theme read from X's turn (:data:`TURN_THEMES`) is kept only when every winning turn has it, not only the turn
    the certificate chose (a whirlpool's push on the way home that another winning turn does without)."""
    if turns is None:
        return list(themes)
    every = [_turn_themes(Turn.parse(t)) for t in turns]
    return [t for t in themes if t not in TURN_THEMES or all(t in found for found in every)]


def themes_of(proof: Certificate, line: Sequence[str], pos: Position) -> list[str]:
    """The rules a puzzle's proof relies on (:data:`THEMES`), read from its certificate (X's choices in it, its
    flows and the ends of its rounds) and the solution's line, never from the position alone:

    * X's turns in the certificate (those of a ``sure-steal`` or ``any-steal`` leaf too): a steal (R-STEAL-1), the
      moose taken (X-MOOSE-1), a whirlpool's push (X-WHIRL-2), a trade with Diamond Joe (X-JOE-3); X's card: the
      cloud (R-WEATHER-1), the Lasso (X-CARDS-4), the 1/2/3 card (X-CARDS-3); a rescue X pays for (R-RESCUE-1); a
      double canoe of X banking two gems (X-DOUBLE-1);
    * a flow in the certificate that carries a canoe of X past a fork, where the fork marker chose its branch
      (R-FLOW-4);
    * a round's end in the certificate where X wins with another player at the goal too, or a leaf where the rest
      of the round decides with X at the goal (``rest``, or ``sure-win``: X's turn brings it home) and another player
      at it or able to bank enough to reach it: the tie-break decides (R-END-3);
    * the solution's line: a rescue of X (R-RESCUE-1), a turn of X that steals (R-STEAL-1)."""
    x = proof.x
    found: set[str] = set()
    name = pos.players[x].name
    for node in proof.nodes:
        at = proof.positions[node.at]
        if node.kind is NodeKind.CARD and node.player == x:
            for o in node.options:
                found |= {Card.CLOUD: {"R-WEATHER-1"}, Card.LASSO: {"X-CARDS-4"},
                          Card.ONE_TWO_THREE: {"X-CARDS-3"}}.get(o.card, set()) if o.card is not None else set()
        elif node.kind is NodeKind.TURN and node.player == x:
            for o in node.options:
                if o.turn is not None:
                    found |= _turn_themes(o.turn)
                if o.to is not None:
                    before, after = at.players[x].bank.total, proof.positions[o.to].players[x].bank.total
                    if after - before >= 2 and any(c.double for c in at.players[x].canoes):
                        found.add("X-DOUBLE-1")
        elif node.kind is NodeKind.RESCUE and node.player == x:
            if any(o.rescue is not None and any(p is not None for p in o.rescue.payments) for o in node.options):
                found.add("R-RESCUE-1")
        elif node.kind is NodeKind.FLOW and at.board.forks:
            if any(o.to is not None and _below_forks(proof.positions[o.to], x) > _below_forks(at, x)
                   for o in node.options):
                found.add("R-FLOW-4")
        elif node.kind is NodeKind.LEAF and node.claim in (Claim.SURE_STEAL, Claim.ANY_STEAL, Claim.SURE_WIN):
            # X's turns, named in the leaf: one of them steals (or wins) whatever those before X do
            for turn in ([node.turn] if node.turn is not None else []) + [t for t, _ in node.turns]:
                found |= _turn_themes(turn)
            if node.claim is Claim.SURE_WIN and _rivals_at_the_goal(at, x):
                found.add("R-END-3")
        elif node.kind is NodeKind.LEAF and node.value and node.claim in (Claim.END, Claim.OVER):
            if x in winners(at) and sum(1 for p in at.players if goal_reached(p)) > 1:
                found.add("R-END-3")
        elif node.kind is NodeKind.LEAF and node.value and node.claim is Claim.REST and proof.goal is Goal.WIN:
            if _rivals_at_the_goal(at, x):
                found.add("R-END-3")
    for label in line:
        if label.startswith(f"{name} rescues ") and not label.startswith(f"{name} rescues none"):
            found.add("R-RESCUE-1")
        if label.startswith(f"{name} (") and " x" in label:  # X's turn written with a steal: "xgreen/amber"
            found.add("R-STEAL-1")
    return sorted(found, key=list(THEMES).index)


def _rivals_at_the_goal(at: Position, x: int) -> bool:
    """Where the rest of the round decides with X at the goal: is another player at the goal, or still to act and able
    to bank enough to reach it (an upper bound)? The winner is then left to the tie-break (R-END-3)."""
    return any(i != x and (goal_reached(p) or (i not in at.acted and could_reach_goal(at, i, bankable(at, i)[0])))
               for i, p in enumerate(at.players))


# -- keys: duplicates -------------------------------------------------------------------------------------------

def canonical_key(pos: Position, x: int, goal: str, horizon: int) -> tuple[Any, ...]:
    """The same key for positions equal up to renaming the players: the seats turned so that the lifebuoy holder
    sits first (the turn order goes round from them, R-TURN-1) and named by seat; with the question's player's seat,
    the goal and the horizon."""
    n = len(pos.players)
    order = [(pos.lifebuoy + k) % n for k in range(n)]
    seat = {old: new for new, old in enumerate(order)}
    players = tuple(dataclasses.replace(pos.players[old], name=f"p{new}") for new, old in enumerate(order))
    renamed = pos.replace(players=players, lifebuoy=0, acted=tuple(seat[i] for i in pos.acted))
    return (renamed, seat[x], goal, horizon)


# -- one task: some games ---------------------------------------------------------------------------------------

def rate(pos: Position, x: int, card: Card, samples: int, seed: str) -> dict[str, Any]:
    """How often the rating policies (:data:`RATERS`), each sampled ``samples`` times with its own seeded
    randomness, choose another card than ``card``: the share that misses it per policy, and their mean (the
    puzzle's difficulty)."""
    misses = {}
    memo: dict[object, object] = {}
    for name in RATERS:
        missed = 0
        for k in range(samples):
            rng = random.Random(f"{seed}/{name}/{k}")
            chooser = Greedy(rng) if name == "greedy" else Lookahead(rng, memo=memo)
            missed += chooser.card(pos, x) != card
        misses[name] = round(missed / samples, 4)
    return {"difficulty": round(sum(misses.values()) / len(misses), 4), "missed": misses, "samples": samples}


def mine_job(ruleset: Any, board: Any, players: int, seed: int, first: int, count: int, goals: list[str],
             horizons: list[int], timeout: float, samples: int, max_rounds: int) -> dict[str, Any]:
    """Games ``first`` .. ``first + count - 1`` of a run mined (``ruleset`` and ``board`` as JSON): the puzzles
    kept (each position file's document), the positions dropped by reason, the seconds per phase."""
    rules = Ruleset.from_json(ruleset)
    start = start_position(Board.from_json(board), rules, players)
    clock = Clock()
    dropped = dict.fromkeys(DROPS, 0)
    found: list[dict[str, Any]] = []
    asked = unplayed = 0
    for g in range(first, first + count):
        if out_of_time():
            unplayed = first + count - g
            break
        game_seed = seed * SEED_STRIDE + g
        with clock("playing"):
            records = list(random_playout(start, game_seed, max_rounds, "lookahead"))
        last: dict[tuple[int, str, int], tuple[int, Any]] = {}  # (player, goal, horizon) -> (round, card) kept
        for record in records:
            with clock("playing"):
                pos = card_position(record)
            for x in pos.turn_order():
                if len(pos.players[x].hand) < 2:
                    continue  # no choice of card
                for goal in goals:
                    for horizon in horizons:
                        asked += 1
                        try:
                            puzzle = examine(pos, x, Goal(goal), horizon, timeout, clock)
                        except Dropped as why:
                            dropped[why.why] += 1
                            continue
                        seen = last.get((x, goal, horizon))
                        if seen is not None and seen == (pos.round - 1, puzzle["card"]):
                            dropped["near duplicate"] += 1  # the same puzzle one round later
                            last[x, goal, horizon] = (pos.round, puzzle["card"])
                            continue
                        last[x, goal, horizon] = (pos.round, puzzle["card"])
                        with clock("rating"):
                            rating = rate(pos, x, Card.parse(str(puzzle["card"])), samples,
                                          f"{game_seed}/{pos.round}/{x}")
                        puzzle["rating"] = {**rating, "certificate_nodes": puzzle.pop("certificate_nodes")}
                        puzzle["source"] = {"ruleset": rules.to_json(), "players": players, "seed": seed, "game": g,
                                            "game_seed": game_seed, "round": pos.round, "policy": "lookahead"}
                        found.append({"position": dumps_position(pos), "puzzle": puzzle})
    return {"kind": "mine", "puzzles": found, "dropped": dropped, "asked": asked, "unplayed": unplayed,
            "seconds": {k: round(v, 4) for k, v in clock.seconds.items()}}


# -- a run ---------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class MineSettings:
    """What one run mines: the ruleset and board, the player counts, the games per count, the questions."""

    rules: Ruleset
    board: Board
    players: tuple[int, ...] = (4,)
    games: int = 20
    goals: tuple[str, ...] = ("win", "steal")
    horizons: tuple[int, ...] = (1,)
    seed: int = 0
    timeout: float = MINE_TIMEOUT
    samples: int = SAMPLES
    max_rounds: int = 100

    def check(self) -> None:
        """Refuse what cannot be mined (exit 2, naming the option and the rule)."""
        require(self.rules, "engine")
        require(self.rules, "solver")
        if self.rules.reveal is Reveal.AT_ONCE:
            raise InputError("--ruleset", "reveal: \"at_once\" is not yet covered by the encoding, which certifies "
                             "every mined answer", "R-TURN-1")
        self.rules.check_players(list(self.players))
        if not 1 <= self.games <= MAX_GAMES:
            raise InputError("--games", f"mine 1 to {MAX_GAMES:,} games, not {self.games}", LIMITS)
        for goal in self.goals:
            if goal not in [g.value for g in Goal]:
                raise InputError("--goal", f"{goal!r} is not a goal; the goals: win, steal, safe", "SOLVER")
        for h in self.horizons:
            if h not in HORIZONS:
                raise InputError("--horizon", f"mine horizons {' or '.join(map(str, HORIZONS))}, not {h}", LIMITS)
        if not 1 <= self.samples <= 1000:
            raise InputError("--samples", f"sample 1 to 1000 card choices per policy, not {self.samples}", LIMITS)

    def tasks(self) -> list[Task]:
        """The run's games as independent tasks."""
        rules, board = self.rules.to_json(), self.board.to_json()
        return [Task(mine_job, (rules, board, n, self.seed, first, min(CHUNK, self.games - first), list(self.goals),
                                list(self.horizons), self.timeout, self.samples, self.max_rounds))
                for n in self.players for first in range(0, self.games, CHUNK)]


@dataclass
class MinedPuzzle:
    """One puzzle kept: its position and its ``"puzzle"`` object, and the file name it is written under."""

    position: Position
    puzzle: dict[str, Any]
    name: str = ""

    @property
    def difficulty(self) -> float:
        """The share of sampled card choices that miss the winning card."""
        return float(self.puzzle["rating"]["difficulty"])

    def sort_key(self) -> tuple[Any, ...]:
        """Easiest first: difficulty, then the size of the proof, then the name."""
        return (self.difficulty, self.puzzle["rating"]["certificate_nodes"], self.name)


@dataclass
class MineReport:
    """The puzzles of a run (deduplicated, easiest first) and what was dropped, and where the time went."""

    settings: MineSettings
    puzzles: list[MinedPuzzle] = field(default_factory=list)
    asked: int = 0
    dropped: dict[str, int] = field(default_factory=lambda: dict.fromkeys(DROPS, 0))
    phases: dict[str, float] = field(default_factory=lambda: dict.fromkeys(PHASES, 0.0))
    seconds: float = 0.0
    unplayed: int = 0
    files: list[str] = field(default_factory=list)

    @property
    def per_minute(self) -> float:
        """Puzzles kept per minute of the run."""
        return 60 * len(self.puzzles) / self.seconds if self.seconds else 0.0

    def to_json(self) -> dict[str, Any]:
        s = self.settings
        return {"ruleset": s.rules.to_json(), "board": s.board.name or "inline", "players": list(s.players),
                "games": s.games, "goals": list(s.goals), "horizons": list(s.horizons), "seed": s.seed,
                "asked": self.asked, "kept": len(self.puzzles), "dropped": self.dropped,
                "unplayed": self.unplayed, "seconds": round(self.seconds, 3),
                "phases": {k: round(v, 3) for k, v in self.phases.items()},
                "per_minute": round(self.per_minute, 2), "files": self.files,
                "puzzles": [{"name": p.name, **p.puzzle} for p in self.puzzles]}


def puzzle_name(pos: Position, puzzle: dict[str, Any]) -> str:
    """A puzzle's file name (without ``.json``): ruleset, players, goal, horizon, the game's seed and round, the
    player."""
    rules = pos.ruleset.to_json()
    source = puzzle["source"]
    return (f"{rules if isinstance(rules, str) else 'custom'}-{len(pos.players)}p-{puzzle['goal']}-"
            f"h{puzzle['horizon']}-g{source['game_seed']}-r{source['round']}-{puzzle['player']}")


def mine(settings: MineSettings, jobs: int = 1, scheduler: str | None = None,
         show_progress: bool = False) -> MineReport:
    """Mine the run's games (in this process, ``jobs`` local processes or on a Dask cluster): the puzzles kept,
    duplicates dropped (:func:`canonical_key`), easiest first."""
    settings.check()
    begin = time.perf_counter()
    tasks = settings.tasks()
    results = run_all(tasks, jobs, scheduler, Progress(len(tasks), "mine", show_progress))
    report = MineReport(settings)
    keys: set[tuple[Any, ...]] = set()
    for task in tasks:
        done = results[task_key(task)]
        report.asked += done["asked"]
        report.unplayed += done["unplayed"]
        for why, n in done["dropped"].items():
            report.dropped[why] += n
        for phase, seconds in done["seconds"].items():
            report.phases[phase] += seconds
        for item in done["puzzles"]:
            pos = loads_position(item["position"])
            puzzle = item["puzzle"]
            names = [p.name for p in pos.players]
            key = canonical_key(pos, names.index(puzzle["player"]), puzzle["goal"], puzzle["horizon"])
            if key in keys:
                report.dropped["duplicate"] += 1
                continue
            keys.add(key)
            report.puzzles.append(MinedPuzzle(pos, puzzle, puzzle_name(pos, puzzle)))
    report.puzzles.sort(key=MinedPuzzle.sort_key)
    report.seconds = time.perf_counter() - begin
    return report


def writable_folder(out: str) -> str:
    """The output folder, made if missing; :class:`InputError` naming ``--out`` (exit 2) when it cannot be."""
    try:
        os.makedirs(out, exist_ok=True)
        probe = os.path.join(out, ".niagara-mine-probe")
        with open(probe, "w"):
            pass
        os.remove(probe)
    except OSError as err:
        raise InputError("--out", f"cannot write to {out!r}: {err.strerror or err}", "FORMAT") from None
    return out


def write_puzzles(report: MineReport, out: str) -> list[str]:
    """Each puzzle as a position file with its ``"puzzle"`` object, in ``out``; the paths written."""
    writable_folder(out)
    paths = []
    for p in report.puzzles:
        path = os.path.join(out, p.name + ".json")
        with open(path, "w") as f:
            f.write(dumps_position(p.position, {"puzzle": p.puzzle}))
        paths.append(path)
    report.files = paths
    return paths


def load_mined(path: str) -> MinedPuzzle:
    """A mined puzzle file read back."""
    pos, extras = load_document(path)
    return MinedPuzzle(pos, extras["puzzle"], os.path.splitext(os.path.basename(path))[0])


__all__ = ["CHUNK", "DROPS", "HORIZONS", "MAX_GAMES", "PHASES", "THEMES", "TURN_THEMES", "Clock", "Dropped",
           "MineReport", "MineSettings", "MinedPuzzle", "canonical_key", "card_position", "examine", "load_mined",
           "mine", "mine_job", "narrowed", "puzzle_name", "rate", "refutation", "replay_problems", "themes_of",
           "winning_turns", "with_card", "write_puzzles", "writable_folder"]
