"""Playtesting for designers (niagara_solver/design/simulate.py, ``niagara-solve simulate``): the counts of a run
add up, each is what the games' records show, two rulesets are compared game for game, the intervals are the
textbook ones, and the command line writes JSON and charts and refuses bad input with exit 2."""

import json
import math
import os

import pytest

from niagara_solver.cli.main import main
from niagara_solver.design.simulate import (GOALS, GameResult, Settings, compare, goals_reached, play_game,
                                            seat_policies, simulate, start_position)
from niagara_solver.play.playout import random_playout
from niagara_solver.engine.round import goal_reached, winners
from niagara_solver.model.atoms import Colour, Gems
from niagara_solver.model.board import standard_board
from niagara_solver.model.estimates import (mean_difference, median_difference, median_interval, newcombe,
                                            wilson)
from niagara_solver.model.ruleset import PRESETS


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def settings(**changes):
    base = dict(rules=PRESETS["standard"], board=standard_board(), players=3, games=12, seed=1, policy="uniform",
                against=None, max_rounds=6)
    return Settings(**{**base, **changes})


def test_the_counts_of_a_run_add_up():
    sim = simulate(settings(players=3, games=6, max_rounds=30, policy="lookahead", against="uniform"))
    data = sim.to_json()
    assert data["games"] == 6 == len(sim.games)
    finished = [g for g in sim.games if g.finished]
    assert len(finished) + data["length"]["unfinished"] == 6 and finished
    assert sum(n for _, n in data["length"]["histogram"]) == len(finished)
    assert all(g.rounds <= 30 for g in sim.games) and all(g.rounds == 30 for g in sim.games if not g.finished)
    # Every winner reached a goal (R-END-1), and the goals named are the winners' goals; a shared win counts once
    # per winner, so the seats' wins add up to the finished games plus the extra winners of shared wins.
    for g in finished:
        assert g.winners and g.goals and set(g.goals) <= set(GOALS)
    assert sum(s["wins"]["count"] for s in data["seats"]) == sum(len(g.winners) for g in finished)
    assert all(data["ends"][goal]["count"] == sum(goal in g.goals for g in finished) for goal in GOALS)
    # The lookahead seat turns with the games (game g: seat g mod 3) and its wins are the games it won.
    assert [g.policies.index("lookahead") for g in sim.games] == [g % 3 for g in range(6)]
    assert data["policy_wins"]["count"] == sum(1 for g in sim.games if any(g.policies[i] == "lookahead"
                                                                            for i in g.winners))
    assert data["policy_wins"]["fair_share"] == pytest.approx(1 / 3, abs=1e-4)
    # Each figure's interval holds its value.
    for what, v in data["per_game"].items():
        assert v["low"] <= v["value"] <= v["high"], what
        assert v["value"] == pytest.approx(sum(getattr(g, what) for g in sim.games) / 6, abs=1e-4)


def test_each_game_counts_what_its_records_show():
    # Uniform play falls and rescues often. The counts are read again here from the positions the rounds pass
    # through: a fall is a canoe afloat before the flow and fallen after it (R-FLOW-6), a rescue a fallen canoe
    # back in play after phase I (R-RESCUE-1), a steal a gem taken from a canoe by another player's turn.
    start = start_position(standard_board(), PRESETS["standard"], 4)
    result = play_game(start, 11, ["uniform"] * 4, 40)
    falls = rescues = steals = 0
    for record in random_playout(start, 11, 40, ["uniform"] * 4):
        def fallen(pos):
            return sum(c.fallen for _, c in pos.canoes())
        falls += fallen(record.end) - fallen(record.before_flow)
        rescues += fallen(record.start) - fallen(record.turns_start)
        previous = record.turns_start
        for turn in record.turns:
            for i, (before, after) in enumerate(zip(previous.players, turn.after.players)):
                if i != turn.player:  # another player's cargo shrinks only by a steal (R-PROP-7)
                    steals += max(0, before.gems_on_canoes().total - after.gems_on_canoes().total)
            previous = turn.after
        end = record.end
    assert (result.falls, result.rescues, result.steals) == (falls, rescues, steals)
    assert falls > 0 and rescues > 0
    assert result.banks == tuple(p.bank.total for p in end.players)
    assert result.finished == bool(winners(end))
    assert GameResult.from_json(json.loads(json.dumps(result.to_json()))) == result


def test_goals_reached_names_each_goal_of_r_end_1():
    def bank(**counts):
        return Gems.from_mapping({Colour.parse(c): n for c, n in counts.items()})
    assert goals_reached(bank(ruby=4)) == ("4 of a colour",)
    assert goals_reached(bank(amethyst=1, diamond=1, amber=1, sapphire=1, ruby=3)) == ("7 gems", "5 colours")
    assert goals_reached(bank(amethyst=2, diamond=2, amber=2)) == ()
    assert seat_policies(4, 3, "lookahead", "greedy") == ("greedy", "lookahead", "greedy")
    assert seat_policies(4, 3, "lookahead", None) == ("lookahead",) * 3


def test_a_run_is_the_same_in_one_process_and_in_two():
    one = simulate(settings(games=12))
    two = simulate(settings(games=12), jobs=2)
    assert one.games == two.games
    assert [g.seed for g in one.games] == [1 * 1_000_003 + g for g in range(12)]


def test_two_rulesets_are_compared_on_the_same_seeds():
    c = compare(settings(games=12, max_rounds=8), settings(rules=PRESETS["bga-2013-05-09"], games=12, max_rounds=8))
    assert [g.seed for g in c.a.games] == [g.seed for g in c.b.games]
    rows = {r["measure"]: r for r in c.to_json()["differences"]}
    assert list(rows) == ["median game length", "mean game length", "unfinished games",
                          *(f"{s} (seat {k + 1}) wins" for k, s in enumerate(["red", "blue", "green"])),
                          "falls per game", "steals per game", "rescues per game",
                          *(f"games ended by {g}" for g in GOALS)]
    for name, r in rows.items():
        d = r["difference"]
        if r["a"] is None or r["b"] is None:
            continue
        assert d["value"] == pytest.approx(r["b"] - r["a"], abs=1e-3), name
        if d["low"] is not None:
            assert d["low"] <= d["value"] <= d["high"], name
    falls_a = sum(g.falls for g in c.a.games) / 12
    assert rows["falls per game"]["a"] == pytest.approx(falls_a, abs=1e-4)


def test_runs_stopped_before_any_game_compare_as_not_available():
    # A time limit may stop a run before its first game (the report's playtesting under a short --timeout): every
    # figure is then n/a, not a division by zero.
    from niagara_solver.design.simulate import Comparison, Simulation
    c = Comparison(Simulation(settings(), ()), Simulation(settings(rules=PRESETS["bga-2013-05-09"]), ()))
    rows = c.to_json()["differences"]
    assert len(rows) == 3 + 3 + 3 + len(GOALS)
    assert all(r["a"] is None and r["b"] is None and r["difference"]["value"] is None for r in rows)


def test_the_intervals_are_the_textbook_ones():
    assert wilson(0, 10) == pytest.approx((0.0, 0.27753), abs=1e-5)
    assert wilson(5, 5)[1] == 1.0 and wilson(5, 5)[0] == pytest.approx(0.56552, abs=1e-5)
    # The median of 1..100 lies between the 40th and the 61st values (the order-statistic interval).
    assert median_interval([float(x) for x in range(1, 101)]) == (50.5, 40.0, 61.0)
    low, high = newcombe(10, 100, 10, 100)
    assert low == pytest.approx(-high) and low < 0 < high
    d = mean_difference([1.0, 2.0, 3.0], [2.0, 3.0, 4.0])
    assert d[0] == 1.0 and d[1] < 1.0 < d[2]
    assert median_difference([1.0, 2.0, 3.0], [5.0, 6.0, 7.0])[0] == 4.0
    assert all(math.isnan(x) for x in mean_difference([1.0], [2.0]))


def test_settings_refuse_what_cannot_be_played():
    with pytest.raises(Exception, match="X-SIX-1|R-COMP-1"):
        settings(players=7).check()
    with pytest.raises(Exception, match="unknown policy 'clever'"):
        settings(policy="clever").check()


# -- the command line ---------------------------------------------------------------------------------------------

def test_simulate_writes_its_figures_as_json(capsys):
    status, out, err = run(capsys, "simulate", "--players", "2-3", "--games", "3", "--rounds", "4", "--policy",
                           "uniform", "--json")
    assert status == 0 and err == ""
    data = json.loads(out)
    assert [s["players"] for s in data["simulations"]] == [2, 3] and data["charts"] == []
    first = data["simulations"][0]
    assert first["games"] == 3 and first["policy"] == "uniform" and first["against"] is None
    assert [s["seat"] for s in first["seats"]] == ["red", "blue"]
    assert set(first["ends"]) == set(GOALS) and set(first["per_game"]) == {"falls", "steals", "rescues"}
    assert len(first["game_list"]) == 3


def test_simulate_text_and_charts(capsys, tmp_path):
    out_dir = tmp_path / "charts"
    status, out, _ = run(capsys, "simulate", "--players", "3", "--games", "3", "--rounds", "4", "--policy",
                         "uniform", "--out", str(out_dir))
    assert status == 0
    assert "3 players · 3 games (seed 0) · uniform" in out and "red (seat 1)" in out
    assert "unfinished after 4 rounds: 3" in out
    assert sorted(os.listdir(out_dir)) == ["length-3p.svg", "seats-3p.svg"]
    svg = (out_dir / "seats-3p.svg").read_text()
    assert svg.startswith("<?xml") and "Wins by seat, 3 players" in svg and "fair share 33%" in svg
    assert "How long games last, 3 players" in (out_dir / "length-3p.svg").read_text()


def test_simulate_compare(capsys, tmp_path):
    status, out, _ = run(capsys, "simulate", "--compare", "standard", "bga-2013-05-09", "--players", "3",
                         "--games", "3", "--rounds", "3", "--policy", "uniform", "--json", "--out", str(tmp_path))
    assert status == 0
    data = json.loads(out)
    (c,) = data["comparisons"]
    assert c["a"]["ruleset"] == "standard" and c["b"]["ruleset"] == "bga-2013-05-09"
    assert [r["measure"] for r in c["differences"]][:3] == ["median game length", "mean game length",
                                                           "unfinished games"]
    assert data["charts"] == [str(tmp_path / "length-3p.svg"), str(tmp_path / "seats-3p.svg")]
    status, out, _ = run(capsys, "simulate", "--compare", "standard", "bga-2013-05-09", "--players", "3",
                         "--games", "3", "--rounds", "3", "--policy", "uniform")
    assert status == 0 and "A: standard · B: bga-2013-05-09" in out and "steals per game" in out


@pytest.mark.parametrize("argv, where", [
    (["--players", "7"], "--players"),
    (["--ruleset", "nosuch"], "nosuch"),
    (["--compare", "standard", "missing.json"], "missing.json"),
    (["--games", "0"], "--games"),
    (["--policy", "clever"], "--policy"),
])
def test_simulate_refuses_bad_input_in_one_line(capsys, argv, where):
    status, out, err = run(capsys, "simulate", "--games", "1", *argv) if "--games" not in argv else \
        run(capsys, "simulate", *argv)
    assert status == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("niagara-solve: error: ") and where in err


def test_play_defaults_to_the_lookahead_policy(capsys):
    status, out, _ = run(capsys, "play", os.path.join(os.path.dirname(__file__), "..", "puzzles", "start-4p.json"),
                         "--rounds", "1", "--json")
    data = json.loads(out)
    assert status == 0 and data["policy"] == "lookahead" and len(data["rounds"]) == 1
    assert not any(goal_reached(p) for p in start_position(standard_board(), PRESETS["standard"], 4).players)


def test_the_library_front_door_simulates_and_compares():
    import niagara_solver as ns
    from niagara_solver.design.simulate import Comparison, Simulation
    one = ns.simulate("standard", players=2, games=2, policy="uniform", max_rounds=2)
    assert isinstance(one, Simulation) and len(one.games) == 2 and all(g.rounds == 2 for g in one.games)
    both = ns.simulate("standard", players=2, games=2, policy="uniform", max_rounds=2, compare_with="bga-2013-05-09")
    assert isinstance(both, Comparison) and both.a.games == one.games
    assert both.b.settings.rules == PRESETS["bga-2013-05-09"]


def test_simulate_on_a_local_dask_cluster_plays_the_local_games(capsys):
    distributed = pytest.importorskip("distributed")
    argv = ["simulate", "--players", "2", "--games", "12", "--rounds", "3", "--policy", "uniform", "--json"]
    status, local, _ = run(capsys, *argv)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        status_dask, remote, _ = run(capsys, *argv, "--scheduler", cluster.scheduler_address)
    assert status == status_dask == 0
    games = [json.loads(text)["simulations"][0]["game_list"] for text in (local, remote)]
    assert games[0] == games[1] and len(games[0]) == 12


def test_one_game_has_figures_without_intervals(capsys):
    # Once: a single game's mean had no interval and the text table raised a TypeError.
    status, out, err = run(capsys, "simulate", "--players", "2", "--games", "1", "--rounds", "2", "--policy",
                           "uniform")
    assert status == 0 and err == ""
    assert "unfinished after 2 rounds: 1" in out and "per game: falls " in out and "(seat 2)" in out
    status, out, err = run(capsys, "simulate", "--compare", "standard", "bsw", "--players", "2", "--games", "1",
                           "--rounds", "2", "--policy", "uniform")
    assert status == 0 and "mean game length" in out and "falls per game" in out
