"""What makes a position valid: the invariants every position satisfies (FORMAT.md, R-PROP-3/4/6).

:func:`position_problems` lists every broken invariant with a JSON path and a rule ID. The position
loader refuses a file with any problem; the random-simulation tests check that no phase of the engine
ever produces one.
"""

from __future__ import annotations

from typing import NamedTuple

from niagara_solver.model.atoms import COLOURS, FALLEN, NEXT, PORT, CanoeKind, Moose, Phase
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
    capacity = canoe.capacity(ruleset.capacity)
    if len(canoe.gems) > capacity:
        if canoe.double:
            problems.append(Problem(f"{path}.gems", "a double canoe carries at most 2 gems", "X-DOUBLE-2"))
        elif ruleset.x_double:
            problems.append(Problem(f"{path}.gems", "a single canoe carries one gem at most (two gems need the "
                                                    "double canoe)", "X-DOUBLE-2"))
        else:
            problems.append(Problem(f"{path}.gems", f"a canoe carries at most {capacity} gem(s)", "R-GEM-2"))
    if canoe.double and not ruleset.x_double:
        problems.append(Problem(f"{path}.kind", "the double canoe belongs to a module of the expansion that is off",
                                "X-DOUBLE-1"))
    if canoe.moose and (canoe.in_port or canoe.fallen):
        problems.append(Problem(f"{path}.moose", f"only a canoe on the river holds the moose; this one is "
                                                 f"{'in the port' if canoe.in_port else 'fallen'}", "X-PROP-1"))
    if canoe.moored and not canoe.on_river:
        problems.append(Problem(f"{path}.moored", "only a canoe on a disc is moored by a Lasso", "X-CARDS-4"))
    return problems


def position_problems(pos: Position) -> list[Problem]:
    """Every invariant ``pos`` breaks (an empty list for a valid position)."""
    problems: list[Problem] = []
    board, rules = pos.board, pos.ruleset
    n = len(pos.players)
    counts = rules.player_counts()
    if n not in counts:
        problems.append(Problem("players", f"{counts[0]} to {counts[-1]} players play; found {n}",
                                "X-SIX-1" if rules.x_sixth_player or n > counts[-1] else "R-COMP-1"))
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
    valid_places = {*board.discs, PORT, FALLEN}
    everybody_acted = set(pos.acted) == set(range(len(pos.players)))
    for i, player in enumerate(pos.players):
        where = f"players[{i}]"
        if len(player.canoes) != 2:
            problems.append(Problem(f"{where}.canoes", "each player owns exactly 2 canoes", "R-COMP-2"))
        elif rules.x_double and sorted(c.kind for c in player.canoes) != [CanoeKind.DOUBLE, CanoeKind.SINGLE]:
            problems.append(Problem(f"{where}.canoes", "each player owns one single and one double canoe",
                                    "X-DOUBLE-1"))
        for j, canoe in enumerate(player.canoes):
            if canoe.place not in valid_places:
                problems.append(Problem(f"{where}.canoes[{j}].at", f"unknown place {canoe.place!r}", "R-BOARD-1"))
            problems.extend(canoe_problems(canoe, rules, f"{where}.canoes[{j}]"))
            if canoe.moored and pos.phase is not Phase.TURNS:
                problems.append(Problem(f"{where}.canoes[{j}].moored", "canoes are moored only during phase II and "
                                                                       "III (a Lasso played this round)", "X-CARDS-4"))
            if pos.whirlpool is not None and canoe.place == pos.whirlpool and not canoe.moored:
                problems.append(Problem(f"{where}.canoes[{j}].at", f"no canoe stands on the whirlpool "
                                                                   f"({pos.whirlpool}): it is pushed on at once",
                                        "X-PROP-2"))
        if player.card_budget is not None and (player.card is None or i not in pos.acted):
            problems.append(Problem(f"{where}.card_budget", "a budget is chosen with the 1/2/3 card when the player "
                                                            "acts", "X-CARDS-3"))
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
        # X-WHIRL-2: with the whirlpool a canoe may be pushed over the falls in its owner's own turn. Once everybody
        # has acted the position may also stand right after the flow (a certificate's flow leads there), which may
        # have carried every canoe of a player over the falls (R-FLOW-6) before the next round's rescues.
        if (pos.phase is Phase.TURNS and not player.canoes_in_play and not (acted and rules.x_whirl)
                and not everybody_acted):
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
    elif pos.gems_per_colour is None:
        problems.append(Problem("ruleset.gems_per_colour", f"the table of gems by player count has no entry for "
                                                           f"{n} players", "X-GEMS-1"))
    else:
        totals = pos.gem_totals()
        joe = " and on Diamond Joe" if pos.joe is not None else ""
        for colour in COLOURS:
            if totals.get(colour) != pos.gems_per_colour:
                problems.append(Problem(
                    "caves", f"{totals.get(colour)} {colour.label} gems in caves, on canoes{joe} and in banks; there "
                             f"are exactly {pos.gems_per_colour} (gems are never created or destroyed)",
                    "X-PROP-3" if joe else "R-COMP-3"))
    problems.extend(_piece_problems(pos))
    return problems


def _piece_problems(pos: Position) -> list[Problem]:
    """The expansion's pieces: each present exactly when its module is on, in a place it can be (section X)."""
    problems: list[Problem] = []
    rules, board = pos.ruleset, pos.board
    pieces = (("whirlpool", pos.whirlpool, rules.x_whirl, "X-WHIRL-1"), ("moose", pos.moose, rules.x_moose,
                                                                          "X-MOOSE-1"),
              ("joe", pos.joe, rules.x_joe, "X-JOE-1"))
    for name, piece, on, rule in pieces:
        if on and piece is None:
            problems.append(Problem(name, f"the {name} is in play with its module on", rule))
        if not on and piece is not None:
            problems.append(Problem(name, f"the {name} belongs to a module of the expansion that is off", rule))
    if pos.beaver is not None and not rules.x_beaver:
        problems.append(Problem("beaver", "the beaver belongs to a module of the expansion that is off", "X-BEAVER-1"))
    if pos.whirlpool is not None and pos.whirlpool != NEXT and pos.whirlpool not in board.discs:
        problems.append(Problem("whirlpool", f"unknown disc {pos.whirlpool!r}", "X-WHIRL-1"))
    if pos.beaver is not None and pos.beaver not in board.discs:
        problems.append(Problem("beaver", f"unknown disc {pos.beaver!r}", "X-BEAVER-1"))
    if pos.joe is not None and pos.joe.place not in board.discs:
        problems.append(Problem("joe.at", f"Diamond Joe is always on a disc of the river, never {pos.joe.place!r}",
                                "X-JOE-1"))
    holders = [(i, j) for i, p in enumerate(pos.players) for j, c in enumerate(p.canoes) if c.moose]
    if len(holders) > 1:
        i, j = holders[1]
        problems.append(Problem(f"players[{i}].canoes[{j}].moose", "at most one canoe holds the moose", "X-PROP-1"))
    if pos.moose is not None and (pos.moose is Moose.HELD) != bool(holders):
        problems.append(Problem("moose", "the moose is \"held\" exactly when a canoe on the river has "
                                         "\"moose\": true", "X-PROP-1"))
    if pos.moose is Moose.RETURNING and pos.phase is not Phase.TURNS:
        problems.append(Problem("moose", "the moose returns during a round: at the start of a round it waits or is "
                                         "held", "X-MOOSE-3"))
    return problems
