"""What makes a position valid: the invariants every position satisfies (FORMAT.md, R-PROP-3/4/6).

:func:`position_problems` lists every broken invariant with a JSON path and a rule ID. The position
loader refuses a file with any problem; the random-simulation tests check that no phase of the engine
ever produces one.
"""

from __future__ import annotations

from typing import NamedTuple

from niagara_solver.model.atoms import COLOURS, Phase
from niagara_solver.model.position import Canoe, Position
from niagara_solver.model.ruleset import Ruleset


class Problem(NamedTuple):
    """One broken invariant: where (JSON path), what, and the rule."""

    path: str
    message: str
    rule: str


def canoe_problems(canoe: Canoe, ruleset: Ruleset, path: str) -> list[Problem]:
    """The problems of one canoe taken alone (cargo in the port or over the falls, capacity)."""
    problems = []
    if canoe.gems and canoe.in_port:
        problems.append(Problem(f"{path}.gem", "a canoe in the port carries no gem: it was banked", "R-GEM-5"))
    if canoe.gems and canoe.fallen:
        problems.append(Problem(f"{path}.gem", "a fallen canoe carries no gem: it went back to its cave",
                                "R-FLOW-6"))
    if len(canoe.gems) > ruleset.capacity:
        problems.append(Problem(f"{path}.gems", f"a canoe carries at most {ruleset.capacity} gem(s)", "R-GEM-2"))
    return problems


def position_problems(pos: Position) -> list[Problem]:
    """Every invariant ``pos`` breaks (an empty list for a valid position)."""
    problems: list[Problem] = []
    board, rules = pos.board, pos.ruleset
    n = len(pos.players)
    if not 2 <= n <= 5:
        problems.append(Problem("players", f"2 to 5 players play; found {n}", "R-COMP-1"))
    names = [p.name for p in pos.players]
    if len(set(names)) != len(names):
        problems.append(Problem("players", "player names must be unique", "R-COMP-1"))
    if not 0 <= pos.lifebuoy < n:
        problems.append(Problem("lifebuoy", "the lifebuoy holder must be a player", "R-COMP-5"))
    if not rules.weather_min <= pos.weather <= rules.weather_max:
        problems.append(Problem("weather", f"the weather is within [{rules.weather_min}, {rules.weather_max}]",
                                "R-COMP-4"))
    if pos.round < 1:
        problems.append(Problem("round", "rounds are numbered from 1", "R-ROUND-1"))
    if [f for f, _ in pos.forks] != list(board.forks):
        problems.append(Problem("fork", "one marker for every fork of the board", "R-FLOW-4"))
    for fork, label in pos.forks:
        if fork in board.labels and label not in board.labels[fork]:
            problems.append(Problem("fork", f"fork {fork!r} has branches {', '.join(board.labels[fork])}",
                                    "R-FLOW-4"))
    valid_places = {*board.discs, "port", "fallen"}
    for i, player in enumerate(pos.players):
        where = f"players[{i}]"
        if len(player.canoes) != 2:
            problems.append(Problem(f"{where}.canoes", "each player owns exactly 2 canoes", "R-COMP-2"))
        for j, canoe in enumerate(player.canoes):
            if canoe.place not in valid_places:
                problems.append(Problem(f"{where}.canoes[{j}].at", f"unknown place {canoe.place!r}", "R-BOARD-1"))
            problems.extend(canoe_problems(canoe, rules, f"{where}.canoes[{j}]"))
        if len(set(player.hand)) != len(player.hand):
            problems.append(Problem(f"{where}.hand", "each card is in a hand at most once", "R-COMP-2"))
        if any(k < 0 for k in player.bank):
            problems.append(Problem(f"{where}.bank", "bank counts are not negative", "R-COMP-3"))
        acted = i in pos.acted
        if not acted and not player.hand:
            problems.append(Problem(f"{where}.hand", "a hand is never empty before the player plays: "
                                                     "the 7 cards come back once all are played", "R-CARD-2"))
        if player.card is not None:
            if acted and player.card in player.hand:
                problems.append(Problem(f"{where}.card", "a card played this round has left the hand",
                                        "R-CARD-2"))
            if not acted and player.card not in player.hand:
                problems.append(Problem(f"{where}.card", f"the chosen card {player.card.label} is not in the hand",
                                        "R-CARD-2"))
        elif acted:
            problems.append(Problem(f"{where}.card", "a player who has acted has revealed a card", "R-TURN-1"))
        if pos.phase is Phase.TURNS and not player.canoes_in_play:
            problems.append(Problem(f"{where}.canoes", "after phase I every player has a canoe in the port or "
                                                       "on the river", "R-RESCUE-2"))
    if pos.phase is Phase.CARDS and pos.acted:
        problems.append(Problem("acted", "nobody has acted at the start of a round (phase \"cards\")",
                                "R-ROUND-1"))
    if len(set(pos.acted)) != len(pos.acted) or not all(0 <= a < n for a in pos.acted):
        problems.append(Problem("acted", "each player acts once a round", "R-TURN-1"))
    if len(pos.caves) != len(COLOURS):
        problems.append(Problem("caves", "one cave per colour", "R-BOARD-4"))
    elif any(k < 0 for cave in pos.caves for k in cave):
        problems.append(Problem("caves", "cave counts are not negative", "R-COMP-3"))
    else:
        totals = pos.gem_totals()
        for colour in COLOURS:
            if totals.get(colour) != rules.gems_per_colour:
                problems.append(Problem(
                    "caves", f"{totals.get(colour)} {colour.label} gems in caves, on canoes and in banks; there are "
                             f"exactly {rules.gems_per_colour} (gems are never created or destroyed)", "R-COMP-3"))
    return problems
