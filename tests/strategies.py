"""Hypothesis strategies for valid positions (any board, ruleset, 2 to 6 players as the ruleset allows, either
phase)."""

from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

from niagara_solver.model.board import Board, standard_board
from niagara_solver.model.atoms import COLOURS, FALLEN, FULL_HAND, PORT, Colour, Gems, Phase
from niagara_solver.model.position import Canoe, Player, Position
from niagara_solver.model.readings import covered
from niagara_solver.model.ruleset import SWITCHES, Ruleset

#: A longer main bed and two forks (one on the main bed, one on a branch), caves in new places.
LONG_BOARD = Board.from_json({
    "name": "long-two-forks",
    "river": {"1": "2", "2": "3", "3": "4", "4": "5", "5": "6", "6": {"L": "7L", "R": "7R"},
              "7L": "8L", "8L": "falls", "7R": {"A": "8RA", "B": "8RB"}, "8RA": "falls", "8RB": "falls"},
    "caves": {"amethyst": ["2"], "diamond": ["4"], "amber": ["5", "6"], "sapphire": ["7L", "7R"],
              "ruby": ["8L", "8RA", "8RB"]},
})

#: Switch -> the values tests try, the default first (each switch's row says which: ``tries``), among those every
#: reading of the rules covers (niagara_solver/model/readings.py; tests/test_readings.py checks the others are
#: refused).
# The expansion's modules that bring pieces or cards, with their own switches, and the switches of what a player
# knows (``reveal``, which the smt backend refuses at once) stay at their defaults here: each has its own tests
# (tests/test_x_*.py, tests/test_reveal.py), and the random tests built on these draws compare readings that speak
# the base game (the brute force over the notation, both solver backends). Read from the rows: nothing to add here
# for a new switch.


def own_tests(name: str) -> bool:
    """Whether switch ``name`` stays at its default in the draws: a module with pieces or one of its own switches,
    or a switch of what a player knows."""
    row = SWITCHES[name]
    return bool(row.of_module and SWITCHES[row.of_module].pieces) or "knowledge" in row.phases


SWITCH_VALUES = {name: [v for v in row.tries if covered(name, v)] if not own_tests(name) else [row.tries[0]]
                 for name, row in SWITCHES.items()}


@st.composite
def rulesets(draw: st.DrawFn, values: dict[str, list[object]] | None = None) -> Ruleset:
    """Any combination of switches (``values``: those to draw from, default :data:`SWITCH_VALUES`)."""
    spec = {name: draw(st.sampled_from(tried)) for name, tried in (values or SWITCH_VALUES).items()}
    return Ruleset.from_json(spec)


@st.composite
def positions(draw: st.DrawFn, boards: st.SearchStrategy[Board] | None = None,
              rules: st.SearchStrategy[Ruleset] | None = None, min_players: int = 2, max_players: int = 5,
              phase: Phase | None = Phase.TURNS) -> Position:
    """A valid position; phase II (nobody has acted) by default so that any player may take a turn."""
    board = draw(boards if boards is not None else st.sampled_from([standard_board(), LONG_BOARD]))
    ruleset = draw(rules if rules is not None else rulesets())
    phase = phase if phase is not None else draw(st.sampled_from(list(Phase)))
    counts = ruleset.player_counts()
    low, high = max(min_players, counts[0]), min(max_players, counts[-1])
    assume(low <= high)
    n = draw(st.integers(low, high))
    gems = ruleset.gems_for(n)
    assume(gems is not None)
    left = [gems] * 5

    def take(colour: Colour) -> bool:
        if left[colour - 1] > 0:
            left[colour - 1] -= 1
            return True
        return False

    colours = st.sampled_from(COLOURS)
    places = st.sampled_from([PORT, PORT, FALLEN, *board.discs, *board.discs])
    players = []
    for i in range(n):
        canoes = []
        for _ in range(2):
            place = draw(places)
            gems: list[Colour] = []
            if place not in (PORT, FALLEN):
                for _ in range(draw(st.integers(0, ruleset.capacity))):
                    colour = draw(colours)
                    if take(colour):
                        gems.append(colour)
            canoes.append(Canoe(place, tuple(gems)))
        if phase is Phase.TURNS and not any(c.in_play for c in canoes):
            canoes[0] = Canoe(PORT)
        bank = [0] * 5
        for _ in range(draw(st.integers(0, 4))):
            colour = draw(colours)
            if take(colour):
                bank[colour - 1] += 1
        hand = tuple(draw(st.sets(st.sampled_from(FULL_HAND), min_size=1)))
        players.append(Player(f"p{i}", tuple(canoes), hand, Gems(bank), None))
    caves = [[0] * 5 for _ in COLOURS]
    for colour in COLOURS:
        for _ in range(left[colour - 1]):
            # Most gems lie in their own cave; some were unloaded elsewhere (R-GEM-3).
            cave = colour if draw(st.integers(0, 5)) else draw(colours)
            caves[cave - 1][colour - 1] += 1
    weather = draw(st.integers(ruleset.weather_min, ruleset.weather_max))
    forks = tuple((f, draw(st.sampled_from(board.labels[f]))) for f in board.forks)
    return Position(players=tuple(players), caves=tuple(Gems(c) for c in caves), lifebuoy=draw(st.integers(0, n - 1)),
                    weather=weather, forks=forks, round=draw(st.integers(1, 30)), phase=phase, board=board,
                    ruleset=ruleset)
