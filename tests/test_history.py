"""Proof games (games/history.py): the cheap arguments that settle a position without a search, each on a position
built to break exactly one of them."""

import dataclasses
import os

import pytest

from niagara_solver.games.history import (Unreachable, cheap_arguments, earliest_round, hand_size_at,
                                          rounds_for_hands, setup_for)
from niagara_solver.model.atoms import FULL_HAND, Colour
from niagara_solver.model.position import Position

NAMES = ["red", "blue"]


def _after(rounds: int, pos: Position | None = None) -> Position:
    """The setup with the round and the hands of ``rounds`` rounds later (the cards played: the highest first)."""
    pos = pos or Position.initial(NAMES)
    size = hand_size_at(pos, rounds + 1)
    players = tuple(dataclasses.replace(p, hand=FULL_HAND[:size]) for p in pos.players)
    return pos.replace(players=players, round=rounds + 1, lifebuoy=rounds % len(players))


def _banked(pos: Position, seat: int, colour: Colour, n: int) -> Position:
    """``pos`` with ``n`` gems of ``colour`` moved from their cave to a player's bank (gems conserved)."""
    caves = list(pos.caves)
    caves[colour - 1] = caves[colour - 1].minus(colour, n)
    player = pos.players[seat]
    return pos.with_player(seat, dataclasses.replace(player, bank=player.bank.plus(colour, n))).replace(
        caves=tuple(caves))


@pytest.mark.rule("R-BOARD-5")
def test_round_one_is_the_setup_itself() -> None:
    setup = Position.initial(NAMES, lifebuoy=1)
    assert cheap_arguments(setup) is None
    banked = _banked(setup, 0, Colour.RUBY, 1)
    found = cheap_arguments(banked)
    assert found == Unreachable("round 1 is the setup, and this position differs from it: red's bank holds 1 gem; "
                                "the caves are not full", "R-BOARD-5")


@pytest.mark.rule("R-CARD-2")
def test_hands_tell_the_round() -> None:
    assert [hand_size_at(Position.initial(NAMES), r) for r in (1, 2, 7, 8, 9)] == [7, 6, 1, 7, 6]
    three = _after(2)
    assert cheap_arguments(three) is None
    assert rounds_for_hands(three) == (3, 7)
    wrong = three.replace(round=4)
    assert str(cheap_arguments(wrong)) == ("at the start of round 4 every hand holds 4 cards, here 5 (R-CARD-2)")
    uneven = three.with_player(1, dataclasses.replace(three.players[1], hand=FULL_HAND[:4]))
    assert rounds_for_hands(uneven) is None
    assert str(cheap_arguments(uneven, any_round=True)) == (
        "every player plays one card a round, so all hands hold as many cards; here red 5, blue 4 (R-CARD-2)")


@pytest.mark.rule("R-MOVE-5")
def test_no_play_banks_a_gem_in_the_first_round() -> None:
    # A canoe leaves the port in round 1 at the earliest and can come home with a gem only in round 2 (R-MOVE-5).
    two = _banked(_after(1), 0, Colour.AMETHYST, 1)
    assert str(cheap_arguments(two)) == "red's bank holds 1 gem, and no play banks that many in 1 round (R-MOVE-5)"
    three = _banked(_after(2), 0, Colour.AMETHYST, 1)
    assert cheap_arguments(three) is None
    assert earliest_round(two.replace(round=1)) == 9  # hands of 6 cards: round 2, 9, ...; a gem banked: not round 2
    assert earliest_round(_banked(_after(7), 0, Colour.AMETHYST, 1)) == 8


@pytest.mark.rule("R-MOVE-5", "X-DOUBLE-4")
@pytest.mark.parametrize("preset, gems, reason", [
    ("flussgeister", 2, None),
    ("flussgeister", 3, "red's bank holds 3 gems, and no play banks that many in 2 rounds (R-MOVE-5)"),
    ("flussgeister-joe", 3, None),  # Joe's trades are in no bound (games/bounds.py): counting does not settle it
])
def test_with_the_expansion_no_play_banks_more_than_its_canoes_bring_home(preset: str, gems: int,
                                                                          reason: str | None) -> None:
    # Under the expansion's modules a canoe still needs a round out and a round back, the double canoe bringing two
    # gems home (games/bounds.py, module_reach): within two rounds a player banks at most 2.
    from niagara_solver.design.simulate import start_position
    from niagara_solver.model.board import standard_board
    from niagara_solver.model.position import start_hand
    from niagara_solver.model.ruleset import PRESETS
    setup = start_position(standard_board(), PRESETS[preset], 3)
    size = hand_size_at(setup, 3)
    players = tuple(dataclasses.replace(p, hand=start_hand(setup.ruleset)[:size]) for p in setup.players)
    pos = _banked(setup.replace(players=players, round=3, lifebuoy=2), 0, Colour.AMETHYST, gems)
    found = cheap_arguments(pos)
    assert (str(found) if found is not None else None) == reason


def test_missing_gems_are_no_game_position() -> None:
    pos = _after(2)
    caves = list(pos.caves)
    caves[0] = caves[0].minus(Colour(1), 1)
    found = cheap_arguments(pos.replace(caves=tuple(caves)))
    assert found is not None and found.rule == "R-PROP-3"


def test_the_setup_of_a_later_round_hands_the_lifebuoy_back() -> None:
    pos = _after(4)  # round 5, lifebuoy with seat 0 after four passes from seat 0
    assert pos.lifebuoy == 0
    assert setup_for(pos).lifebuoy == 0
    assert setup_for(pos.replace(lifebuoy=1)).lifebuoy == 1
    assert setup_for(_after(3)).lifebuoy == 0 and _after(3).lifebuoy == 1


# -- the search ---------------------------------------------------------------------------------------------------

def _played(rounds: int, seed: int) -> Position:
    from niagara_solver.play.playout import random_playout
    records = list(random_playout(Position.initial(NAMES, lifebuoy=1), seed, rounds=rounds, policy="greedy"))
    assert len(records) == rounds
    return records[-1].end


@pytest.mark.parametrize("seed", [3, 11])
def test_a_played_position_gets_a_history_the_engine_replays_to_it(seed: int) -> None:
    from niagara_solver.games.history import history
    pos = _played(2, seed)
    found = history(pos)
    assert (found.word, len(found.records)) == ("reachable", 2)
    assert found.records[0].start == setup_for(pos) and found.records[-1].end == pos
    assert found.exit_status == 0


def test_a_position_one_canoe_away_from_a_played_one_is_proved_unreachable_by_the_search() -> None:
    from niagara_solver.games.history import history
    pos = _played(1, 3)
    moved = [c for c in pos.players[0].canoes if c.on_river]
    assert moved, "the greedy first round moves a canoe"
    # The same canoe one disc further down: no first round leaves it there with everything else as it is.
    canoe = moved[0]
    below = pos.board.below(canoe.place, 1)[0]
    other = [c for c in pos.players[0].canoes if c is not canoe]
    changed = pos.with_player(0, dataclasses.replace(pos.players[0], canoes=(*other, dataclasses.replace(
        canoe, place=below))))
    found = history(changed)
    assert (found.word, found.exit_status) == ("not reachable", 1)
    assert found.reason == "no play of the 1 round before round 2 reaches it (every play explored)"
    assert found.positions > 0  # proved by the search, not by counting


def test_history_of_a_round_beyond_the_limit_is_unknown_and_of_the_setup_is_immediate() -> None:
    from niagara_solver.games.history import history
    assert history(Position.initial(NAMES)).word == "reachable"
    late = _after(9)
    found = history(late, rounds_limit=4)
    assert (found.word, found.rule, found.exit_status) == ("unknown", "LIMITS", 3)


def test_every_bundled_puzzle_says_whether_a_game_reaches_it() -> None:
    # Each puzzle file records its history's answer ("history" in its "puzzle" object); asked again, the same.
    from niagara_solver.games.history import history
    from niagara_solver.model.format import load_document
    from niagara_solver.model.puzzles import bundled_puzzles, puzzle_paths
    folder = bundled_puzzles()
    assert folder is not None
    paths = puzzle_paths(folder) + puzzle_paths(os.path.join(folder, "expansion"))
    recorded = 0
    for path in paths:
        pos, extras = load_document(path)
        if "puzzle" not in extras:
            continue
        assert extras["puzzle"].get("history") == history(pos, rounds_limit=4).to_json(), path
        recorded += 1
    assert recorded == 40
