"""The lookahead policy (niagara_solver/play/policy.py) on positions where the right choice is plain, its pieces
(the flow it expects, the goal it counts), its determinism, and the advice built on it (solver/advice.py)."""

import json
import os
import random

import pytest

from helpers import P, doc, position
from niagara_solver.cli.main import main
from niagara_solver.play.playout import Greedy, Seats, Uniform, make_policy, random_playout
from niagara_solver.play.policy import Lookahead, flow_distribution, goal_need
from niagara_solver.engine.rescue import rescue_options
from niagara_solver.engine.round import goal_reached, is_finished, winners
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import Card, Colour, Gems
from niagara_solver.model.notation import Rescue
from niagara_solver.model.position import Player, Position
from niagara_solver.solver.advice import advise
from niagara_solver.solver.analysis import analyze


def lookahead(seed=0, temperature=0.1):
    return Lookahead(random.Random(seed), temperature)


def chosen_turn(pos, name):
    player = pos.index(name)
    return lookahead().turn(pos, player, legal_turns(pos, player))


def test_it_banks_a_gem_that_the_flow_would_otherwise_carry_over_the_falls():
    # Red's amber on 5 with a 5 in hand; blue can only play a 6, so the flow is 5 (R-FLOW-1): staying anywhere on
    # the river below the port leaves the canoe to go over the falls (5 -> 6L -> 7L -> falls, R-FLOW-3, R-FLOW-4).
    pos = position(P("red", "5:amber", "fallen", hand=[5], card=5), P("blue", "port", "port", hand=[6]))
    options = {str(o.turn) for o in legal_turns(pos, 0)}
    assert "5: <port" in options and len(options) > 1
    chosen = chosen_turn(pos, "red")
    assert str(chosen.turn) == "5: <port"
    assert chosen.position.players[0].bank == Gems.of([Colour.AMBER])


def test_it_does_not_leave_a_loaded_canoe_on_a_brink_the_flow_surely_empties():
    # Red's ruby on 7L, the fork marker on L: any flow of 1 or more sends 7L's disc over the falls (R-FLOW-4). With
    # a 2 red can unload the ruby there (and fall empty) or paddle up to 5 with it; blue holds only a 3, so the
    # flow is 2: the disc on 5 enters 6L, the next one 6R, and red's canoe stays afloat with its ruby.
    pos = position(P("red", "7L:ruby", "fallen", hand=[2], card=2), P("blue", "port", "port", hand=[3]), fork="L")
    assert {str(o.turn) for o in legal_turns(pos, 0)} == {"7L: <5", "7L: -ruby"}
    assert str(chosen_turn(pos, "red").turn) == "7L: <5"


def test_its_card_is_the_one_that_brings_the_gem_home():
    # The same amber on 5 with 1 and 5 in hand: only the 5 banks it (R-MOVE-5); the 1 leaves it to the flow.
    pos = position(P("red", "5:amber", "fallen", hand=[1, 5]), P("blue", "port", "port", hand=[6]))
    values = {v.card: v for v in lookahead().card_values(pos, 0)}
    assert set(values) == {Card.ONE, Card.FIVE}
    assert values[Card.FIVE].score > values[Card.ONE].score
    assert str(values[Card.FIVE].outcome.turn) == "5: <port"
    assert lookahead(temperature=0).card(pos, 0) is Card.FIVE


def test_it_rescues_with_a_spare_gem_and_keeps_the_gems_of_its_goal():
    # A fallen canoe is worth a gem that does not bring the goal nearer (R-RESCUE-1), not one of the three
    # amethysts that are one short of four of a colour (R-END-1).
    spare = position(P("red", "fallen", "3", bank={"amethyst": 3, "ruby": 1}), P("blue", "port", "port"),
                     phase="cards")
    options = rescue_options(spare, 0)
    assert set(options) == {Rescue(), Rescue((Colour.AMETHYST,)), Rescue((Colour.RUBY,))}
    assert lookahead().rescue(spare, 0, options) == Rescue((Colour.RUBY,))
    mine = position(P("red", "fallen", "3", bank={"amethyst": 3}), P("blue", "port", "port"), phase="cards")
    assert lookahead().rescue(mine, 0, rescue_options(mine, 0)) == Rescue()


def test_the_flow_it_expects_weighs_the_hidden_cards_of_each_hand():
    # Red plays 3 (known); blue's hidden card is the 1 (weight 0.7) or the cloud (weight 0.5), which moves the
    # weather up or down alike (R-WEATHER-1): flow 1 + 0, or 3 + 1, or 3 - 1 (R-FLOW-1).
    dist = flow_distribution([Card.THREE], [(Card.ONE, Card.CLOUD)], 0, 0)
    assert dist == pytest.approx({1: 0.7 / 1.2, 4: 0.25 / 1.2, 2: 0.25 / 1.2})
    # Only clouds, weather -1 going down no further: the flow is never below min_flow (R-FLOW-2).
    assert flow_distribution([Card.CLOUD], [(Card.CLOUD,)], -1, 0) == {0: 1.0}
    assert flow_distribution([Card.CLOUD], [], -1, 1) == {1: 1.0}


@pytest.mark.parametrize("bank, need", [
    ({}, 4), ({"amethyst": 3}, 1), ({"amethyst": 1, "diamond": 1, "amber": 1, "sapphire": 1}, 1),
    ({"amethyst": 2, "diamond": 2, "amber": 2}, 1), ({"ruby": 4}, 0), ({"amethyst": 2, "ruby": 1}, 2)])
def test_goal_need_counts_the_gems_to_the_nearest_goal(bank, need):
    gems = Gems.from_mapping({Colour.parse(c): n for c, n in bank.items()})
    assert goal_need(gems) == need
    assert (need == 0) == goal_reached(Player("red", bank=gems))


def test_the_same_seed_plays_the_same_game_and_another_seed_another():
    start = Position.initial(["red", "blue", "green"])

    def game(seed):
        return [r.to_json() for r in random_playout(start, seed, 4, "lookahead")]
    assert game(5) == game(5)
    assert game(5) != game(6)


def test_a_whole_game_of_lookahead_players_ends_with_a_winner_at_the_goal():
    start = Position.initial(["red", "blue", "green"])
    records = list(random_playout(start, 1, 60, "lookahead"))
    end = records[-1].end
    assert is_finished(end) and len(records) <= 40
    assert winners(end) and all(goal_reached(end.players[i]) for i in winners(end))


def test_policies_by_seat():
    rng = random.Random(0)
    seats = make_policy(["lookahead", "greedy", "uniform"], rng)
    assert isinstance(seats, Seats) and seats.name == "lookahead,greedy,uniform"
    assert [type(p) for p in seats.policies] == [Lookahead, Greedy, Uniform]
    assert all(p.rng is rng for p in seats.policies)
    assert isinstance(make_policy("lookahead", rng), Lookahead)


# -- advice ---------------------------------------------------------------------------------------------------------

def one_gem_from_winning():
    # Red holds three amethysts and carries the fourth on 2: with the 2 it banks it and wins this round (R-END-1);
    # with the cloud it cannot, and blue, with nothing banked, cannot reach the goal in one round.
    return position(P("red", "2:amethyst", "fallen", hand=[2, "cloud"], bank={"amethyst": 3}),
                    P("blue", "port", "port", hand=[3, 4]), phase="cards")


def test_advice_ranks_the_winning_card_first():
    advice = advise(one_gem_from_winning(), 0, continuations=5, rounds=1)
    assert [c.card for c in advice.cards] == [Card.TWO, Card.CLOUD]
    two, cloud = advice.cards
    assert (two.wins, two.finished, two.gains) == (5, 5, (1, 1, 1, 1, 1))
    assert str(two.turn) == "2: <port"
    assert cloud.wins == 0 and cloud.gains == (0, 0, 0, 0, 0)
    data = advice.to_json()
    assert data["estimate"] is True and data["policy"] == "lookahead" and data["continuations"] == 5
    assert data["cards"][0]["wins"] == {"count": 5, "of": 5, "value": 1.0, "low": 0.5655, "high": 1.0}


def test_the_advice_splits_the_bank_change_into_gems_banked_and_rescues_paid(capsys):
    # Green must pay a gem to bring its fallen canoe back this round (R-RESCUE-1) and banks the amber with its 6:
    # the bank is where it was (0), though a gem was banked. Red's cloud leaves its ruby canoe on 7R to the flow,
    # and the rescue next round costs a gem: the change is below 0 with nothing banked, and says so.
    from niagara_solver.model.format import load_position
    path = os.path.join(os.path.dirname(__file__), "..", "puzzles", "steal-on-the-way-home.json")
    pos = load_position(path)
    green = {c.card: c for c in advise(pos, 1, continuations=4, rounds=1).cards}
    assert (green[Card.SIX].gains, green[Card.SIX].paid, green[Card.SIX].banked) == ((0,) * 4, (1,) * 4, (1,) * 4)
    red = {c.card: c for c in advise(pos, 0, continuations=4, rounds=2).cards}
    cloud = red[Card.CLOUD]
    assert cloud.gain < 0 and cloud.banked == (0,) * 4 and cloud.paid == tuple(-g for g in cloud.gains)
    for card in (*green.values(), *red.values()):
        assert all(b >= 0 for b in card.banked) and card.gains == tuple(b - p for b, p in zip(card.banked, card.paid))
        data = card.to_json()
        assert data["bank_change"]["value"] == round(data["banked"]["value"] - data["paid"]["value"], 4)
    assert main(["advise", path, "--player", "red", "--continuations", "4",
                 "--rounds", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2].split() == ["card", "turn", "if", "acting", "now", "wins", "(95%", "CI)", "bank", "change",
                              "(95%", "CI)", "banked", "/", "paid"]
    assert out[-1] == ("bank change = gems banked − gems paid for rescues (R-RESCUE-1; nothing else takes from a "
                       "bank, R-PROP-9), means over the continuations")
    (row,) = [line for line in out if line.startswith("cloud")]
    assert row.split()[-7:] == ["-1.00", "(-1.00", "to", "-1.00)", "0.00", "/", "1.00"]


def test_the_analysis_gives_the_advice_beside_the_proofs():
    pos = one_gem_from_winning()
    result = analyze(pos, 10, continuations=3, rounds=1)
    assert result.advice is not None and result.advice["player"] == "red" and result.advice["estimate"] is True
    assert [c["card"] for c in result.advice["cards"]] == [2, "cloud"]
    assert analyze(pos, 10, continuations=0).advice is None


def test_advise_command(capsys, tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc(P("red", "2:amethyst", "fallen", hand=[2, "cloud"], bank={"amethyst": 3}),
                                   P("blue", "port", "port", hand=[3, 4]), phase="cards")))
    status = main(["advise", str(path), "--continuations", "4", "--rounds", "1", "--json"])
    out, err = capsys.readouterr()
    assert status == 0 and err == ""
    data = json.loads(out)
    assert [(c["card"], c["turn"], c["wins"]["count"]) for c in data["cards"]] == [(2, "2: <port", 4),
                                                                                   ("cloud", "cloud down", 0)]
    assert main(["advise", str(path), "--player", "nobody"]) == 2
    assert "unknown player 'nobody'" in capsys.readouterr().err
    assert main(["advise", str(path), "--continuations", "0"]) == 2
