"""Proof games (games/history.py): the cheap arguments that settle a position without a search, each on a position
built to break exactly one of them."""

import dataclasses

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
