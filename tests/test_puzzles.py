"""Every bundled puzzle is answered as recorded, by both backends; the backends agree on random positions."""

import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from niagara_solver.solver.search import Goal
from niagara_solver.solver.solve import solve
from niagara_solver.cli.main import main
from niagara_solver.model.format import load_document
from niagara_solver.model.position import Player
from strategies import positions

ROOT = os.path.join(os.path.dirname(__file__), "..")
FOLDER = os.path.join(ROOT, "puzzles")
PUZZLES = sorted(n for n in os.listdir(FOLDER)
                 if n.endswith(".json") and "puzzle" in json.load(open(os.path.join(FOLDER, n))))


def test_there_are_at_least_twenty_puzzles_covering_the_required_themes():
    assert len(PUZZLES) >= 20
    names = " ".join(PUZZLES)
    for theme in ("two-gems", "denied-by-a-steal", "tie-break", "sure-steal", "steal-after-unloading", "fork-parity",
                  "cloud", "rescue", "port", "five-players", "long-river"):
        assert theme in names, theme


@pytest.mark.parametrize("backend", ["search", "smt"])
@pytest.mark.parametrize("name", PUZZLES)
def test_puzzle_answer(name, backend):
    pos, extras = load_document(os.path.join(FOLDER, name))
    puzzle = extras["puzzle"]
    assert {"question", "player", "goal", "horizon", "answer", "explanation"} <= set(puzzle)
    answer = solve(pos, pos.index(puzzle["player"]), Goal(puzzle["goal"]), puzzle["horizon"], backend, timeout=600)
    assert answer.verdict == puzzle["answer"], (name, backend)
    if backend == "search" and "card" in puzzle:
        assert answer.card is not None and answer.card.to_json() == puzzle["card"]


@settings(max_examples=6)
@given(positions(max_players=2, min_players=2), st.sampled_from(list(Goal)), st.data())
def test_the_backends_agree_on_random_positions(pos, goal, data):
    # Small hands keep the SMT backend's enumerations short.
    players = tuple(Player(p.name, p.canoes, p.hand[:2], p.bank, None) for p in pos.players)
    pos = pos.replace(players=players, acted=())
    x = data.draw(st.integers(0, 1))
    a = solve(pos, x, goal, 1, "search", timeout=120)
    b = solve(pos, x, goal, 1, "smt", timeout=600)
    assert a.verdict == b.verdict, (goal, a.verdict, b.verdict)


def test_solve_command(capsys):
    path = os.path.join(FOLDER, "win-two-gems-home.json")
    status = main(["solve", path, "--player", "red", "--goal", "win", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 0 and data["verdict"] == "yes" and data["card"] == 2 and data["turn"] == "1: <port; 2: <port"
    assert {"verdict", "player", "goal", "horizon", "card", "turn"} <= set(data)
    status = main(["solve", os.path.join(FOLDER, "win-denied-by-a-steal.json"), "--player", "red", "--goal", "win",
                   "--backend", "both"])
    out = capsys.readouterr().out
    assert status == 0 and "NO" in out and "blue (2): 5: <3 xred/ruby" in out
    assert main(["solve", path, "--player", "nobody", "--goal", "win"]) == 2
