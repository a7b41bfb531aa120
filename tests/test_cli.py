"""The command line: every command through ``main(argv)``, checking outputs and exit codes."""

import io
import json
import os
import re

import pytest

from helpers import P, doc
from niagara_solver.cli.main import main
from niagara_solver.model.notation import Turn
from niagara_solver.model.format import loads_position, position_from_json

ROOT = os.path.join(os.path.dirname(__file__), "..")
ERRATUM = os.path.join(ROOT, "puzzles", "erratum-two-canoes.json")
START = os.path.join(ROOT, "puzzles", "start-4p.json")


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_turns_json_lists_every_turn_with_the_position_after_it(capsys):
    status, out, err = run(capsys, "turns", ERRATUM, "--player", "red", "--json")
    assert status == 0 and err == ""
    items = json.loads(out)
    assert len(items) == 37
    assert {"turn", "position", "canoes"} <= set(items[0])
    for item in items:
        Turn.parse(item["turn"])
        after = position_from_json(item["position"])
        assert after.acted == (0,) and after.players[0].card is not None
    home = [i for i in items if i["turn"] == "4: <port"][0]
    assert home["canoes"] == [{"start": "4", "end": "port", "spent": 4, "loaded": [], "unloaded": [],
                               "banked": ["ruby"], "stolen": []}]
    assert home["position"]["players"][0]["bank"] == {"ruby": 1}


def test_turns_table_and_notes(capsys):
    status, out, _ = run(capsys, "turns", ERRATUM, "--player", "blue", "--card", "3")
    assert status == 0
    assert "red acts before blue this round (R-TURN-1)" in out
    assert "blue with 3: 15 distinct legal turn(s)" in out
    assert "2: <port" in out


def test_turns_with_a_card_that_is_not_in_hand(capsys):
    status, out, err = run(capsys, "turns", ERRATUM, "--player", "blue", "--card", "2")
    assert status == 2 and out == ""
    assert "2 is not in blue's hand" in err and err.rstrip().endswith("(R-CARD-2)")


def test_unknown_player_and_bad_card_options(capsys):
    assert run(capsys, "turns", ERRATUM, "--player", "green", "--card", "1")[0] == 2
    status, _, err = run(capsys, "turns", ERRATUM, "--player", "red", "--card", "9")
    assert status == 2 and "(R-COMP-2)" in err


def test_turns_needs_the_forced_rescue(tmp_path, capsys):
    file = tmp_path / "p.json"
    file.write_text(json.dumps(doc(P("a", "fallen", "fallen", bank={"ruby": 1, "amber": 1}), P("b", "port", "port"),
                                   phase="cards")))
    status, _, err = run(capsys, "turns", str(file), "--player", "b", "--card", "1")
    assert status == 2 and "must rescue" in err and "(R-RESCUE-2)" in err
    status, out, _ = run(capsys, "turns", str(file), "--player", "a", "--card", "1", "--rescue", "a=ruby")
    assert status == 0 and "note: phase I: rescues a ruby" in out and "port: >1" in out


def test_flow_json_is_the_position_after_the_flow(capsys):
    status, out, _ = run(capsys, "flow", ERRATUM, "--steps", "3", "--json")
    assert status == 0
    after = loads_position(out)
    blue = after.players[1]
    assert [c.place for c in blue.canoes] == ["5", "7L"]  # 2 -> 5; the fork sends R, L, R: 6L moves once
    assert after.forks == (("5", "L"),)


def test_flow_free_lists_every_outcome(tmp_path, capsys):
    file = tmp_path / "p.json"
    file.write_text(json.dumps(doc(P("a", "5", "port"), P("b", "port", "port"), ruleset={"fork_policy": "free"})))
    status, out, _ = run(capsys, "flow", str(file), "--steps", "2", "--json")
    assert status == 0
    assert sorted(i["branches"] for i in json.loads(out)) == ["L,L", "L,R", "R,L", "R,R"]
    status, out, _ = run(capsys, "flow", str(file), "--steps", "2", "--branches", "R,R", "--json")
    assert loads_position(out).players[0].canoes[1].place == "7R"


def test_play_is_reproducible_and_json_reloads(capsys):
    first = run(capsys, "play", START, "--seed", "3", "--rounds", "5", "--json")
    second = run(capsys, "play", START, "--seed", "3", "--rounds", "5", "--json")
    assert first == second and first[0] == 0
    data = json.loads(first[1])
    assert data["seed"] == 3 and len(data["rounds"]) == 5
    for r in data["rounds"]:
        position_from_json(r["position"])
        assert len(r["turns"]) == 4
    other = run(capsys, "play", START, "--seed", "4", "--rounds", "5", "--json")
    assert other[1] != first[1]


def test_a_game_over_before_any_round_says_so_on_the_terminal_and_the_page(capsys, tmp_path):
    # R-END-2: the-game-is-over.json starts with the goal met; play plays no round and says the game was over before
    # any, on the terminal and on its page (not "after round 0", a round that does not exist).
    game = os.path.join(ROOT, "puzzles", "the-game-is-over.json")
    status, out, _ = run(capsys, "play", game)
    assert status == 0
    assert out.rstrip().splitlines()[-1] == "Game over before a round was played: red wins (R-END-2, R-END-3)."
    page = tmp_path / "game.html"
    status, _, _ = run(capsys, "play", game, "--html", str(page))
    assert status == 0 and "Game over before a round was played: red wins" in page.read_text()
    assert "round 0" not in out + page.read_text()


def test_round_replays_given_cards_and_turns(capsys):
    status, out, _ = run(capsys, "round", ERRATUM, "--card", "blue=3", "--turn", "red=4: <port; port: >5",
                         "--turn", "blue=2: <port; 6L: <3", "--json")
    assert status == 0
    data = json.loads(out)
    assert data["flow"] == 3 and [t["player"] for t in data["turns"]] == ["red", "blue"]
    end = position_from_json(data["position"])
    assert end.players[0].bank.total == 1 and end.players[1].bank.total == 2 and end.round == 5


def test_round_refuses_an_illegal_turn(capsys):
    status, out, err = run(capsys, "round", ERRATUM, "--card", "blue=3", "--turn", "red=4: <port; port: >6L",
                           "--turn", "blue=2: <port; 6L: <3")
    assert status == 2 and out == "" and "(R-MOVE-3)" in err


def test_default_command_is_analyze(capsys):
    assert run(capsys, ERRATUM) == run(capsys, "analyze", ERRATUM)
    status, out, _ = run(capsys, "analyze", ERRATUM, "--json")
    data = json.loads(out)
    assert status == 0 and data["finished"] is False
    red, blue = data["players"]
    assert red["win"]["verdict"] == "no" and blue["win"]["verdict"] == "no"
    assert red["steals"]["cards"]["5"] == {"possible": [], "sure": []}
    assert red["threats"] == [{"canoe": "4 (ruby)", "threats": []}]
    assert {"smallest paddle": 1, "flow now": 1, "flow range with clouds": [0, 2]} in data["flows"]


def test_finished_game_is_reported(tmp_path, capsys):
    file = tmp_path / "p.json"
    file.write_text(json.dumps(doc(P("a", "port", "port", bank={"ruby": 4}), P("b", "port", "port"), phase="cards")))
    status, out, _ = run(capsys, str(file))
    assert status == 0 and "The game is over: a wins (R-END-2, R-END-3)." in out
    data = json.loads(run(capsys, str(file), "--json")[1])
    assert data["finished"] is True and data["winners"] == ["a"]


def test_usage_errors_exit_2(capsys):
    assert run(capsys, "turns", ERRATUM)[0] == 2  # --player is required
    assert run(capsys, "frobnicate", "--x")[0] == 2
    assert run(capsys, "--help")[0] == 0


@pytest.mark.parametrize("name", sorted(n for n in os.listdir(os.path.join(ROOT, "puzzles")) if n.endswith(".json")))
def test_every_bundled_position_is_valid_and_shows(capsys, name):
    status, out, err = run(capsys, "show", os.path.join(ROOT, "puzzles", name))
    assert status == 0 and err == "" and "port" in out


def test_ruleset_option_replays_a_position_under_another_ruleset(tmp_path, capsys):
    # Under bga-2013-05-09 a canoe that unloaded cannot steal (R-STEAL-5): red's unload-then-steal turns vanish.
    file = tmp_path / "p.json"
    file.write_text(json.dumps(doc(P("a", "4:ruby", "fallen"), P("b", "2:amber", "port"))))
    standard = json.loads(run(capsys, "turns", str(file), "--player", "a", "--card", "4", "--json")[1])
    older = json.loads(run(capsys, "turns", str(file), "--player", "a", "--card", "4", "--json",
                           "--ruleset", "bga-2013-05-09")[1])
    assert {t["turn"] for t in standard} - {t["turn"] for t in older} == {"4: -ruby <2 xb/amber"}
    assert older[0]["position"]["ruleset"] == "bga-2013-05-09"
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"capacity": 3}))
    status, out, err = run(capsys, "show", str(file), "--ruleset", str(rules))
    assert status == 2 and err.strip().endswith("rules.json: capacity: expected an integer 1..2, got 3 (R-GEM-2)")


@pytest.mark.rule("X-SIX-1", "X-GEMS-1")
def test_play_starts_a_new_game_of_an_expansion_preset(capsys):
    import json as _json
    from niagara_solver.cli.main import main as _main
    # A new game of every module under flussgeister-joe, 3 players, to its end; and six players under flussgeister.
    assert _main(["play", "--ruleset", "flussgeister-joe", "--players", "3", "--seed", "1", "--rounds", "60",
                  "--json"]) == 0
    game = _json.loads(capsys.readouterr().out)
    assert game["finished"] and game["winners"] and game["rounds"][0]["round"] == 1
    assert "flussgeister-joe" in _json.dumps(game["position"]["ruleset"])
    assert _main(["play", "--ruleset", "flussgeister", "--players", "6", "--rounds", "1", "--json"]) == 0
    first = _json.loads(capsys.readouterr().out)["rounds"][0]["position"]
    assert len(first["players"]) == 6
    # Six players without the sixth player's module, and neither or both of POSITION and --players: exit 2.
    assert _main(["play", "--players", "6"]) == 2
    assert "X-SIX-1" in capsys.readouterr().err
    assert _main(["play"]) == 2


@pytest.mark.rule("R-END-2")
def test_a_round_that_ends_the_game_shows_no_phase_to_come_and_none_follows_it(tmp_path, capsys):
    # Red banks its fourth amethyst with its 2 (R-END-1): the game ends with the round. Once, the position after it
    # was headed "phase I (cards and rescues to come)" above "The game is over", and a round from it was played.
    file = tmp_path / "p.json"
    file.write_text(json.dumps(doc(P("red", "2:amethyst", "port", hand=[2, "cloud"], bank={"amethyst": 3}),
                                   P("blue", "port", "port", hand=[3, 4]), phase="cards")))
    status, out, _ = run(capsys, "round", str(file), "--play", "red=2", "--play", "blue=3", "--act", "red=2: <port",
                         "--act", "blue=port: >3")
    assert status == 0
    lines = out.splitlines()
    assert "  game over: red wins" in lines and "Round 2 · the game is over (R-END-2)" in lines
    assert "phase I (cards and rescues to come)" not in out
    assert lines[-1] == "The game is over: red wins (R-END-2, R-END-3)."
    status, out, _ = run(capsys, "round", str(file), "--play", "red=2", "--play", "blue=3", "--act", "red=2: <port",
                         "--act", "blue=port: >3", "--json")
    after = tmp_path / "after.json"
    after.write_text(json.dumps(json.loads(out)["position"]))
    status, out, err = run(capsys, "round", str(after), "--play", "red=cloud", "--play", "blue=4",
                           "--act", "red=cloud up", "--act", "blue=port: >4")
    assert status == 2 and out == "" and err == (f"niagara-solve: error: {after}: the game is over (red reached the "
                                                 "goal): no round is played after it (R-END-2)\n")


def test_solve_under_smt_names_the_card_and_turn_and_refutes_each_card_as_the_search_does(capsys):
    # Once the smt backend printed only "YES (smt, 0.43 s)", its JSON "card": null, "turn": null, and a "no" had no
    # refutation. Its card, turn and line are read from its own z3 models; here they are the search's (one steal).
    answers = {}
    for name in ("a-sure-steal.json", "no-steal-downstream.json"):
        for backend in ("search", "smt"):
            status, out, err = run(capsys, "solve", os.path.join(ROOT, "puzzles", name), "--backend", backend, "--json")
            assert status == 0
            answers[name, backend] = json.loads(out)
    yes, search = answers["a-sure-steal.json", "smt"], answers["a-sure-steal.json", "search"]
    assert set(yes) == set(search) - {"details"}  # the steal table beside it is the engine's (R-STEAL-1)
    assert (yes["verdict"], yes["backend"], yes["card"], yes["turn"]) == ("yes", "smt", 2, "4: <2 xgreen/amber")
    assert yes["line"] == search["line"] == ["red chooses 2", "whatever the others do, e.g. blue (1): port: >1",
                                             "red (2): 4: <2 xgreen/amber", "red steals (R-STEAL-1)"]
    assert yes["reason"] == search["reason"] == {"kind": "steal", "player": "red", "text": "red steals (R-STEAL-1)"}
    no, search = answers["no-steal-downstream.json", "smt"], answers["no-steal-downstream.json", "search"]
    assert set(no) == set(search) - {"details"}
    # Upstream only a steal (R-STEAL-3): the encoding has no turn of red's 2 that steals.
    said = "no canoe of red can reach an enemy's gem this round (R-STEAL-1)"
    assert no["refutations"] == [{"option": "red plays 2", "answer": [said],
                                  "reason": {"kind": "out-of-range", "player": "red", "text": said}}]
    assert [set(r) for r in search["refutations"]] == [{"option", "answer", "reason"}]
    assert [r["option"] for r in search["refutations"]] == ["red plays 2"]
    status, out, err = run(capsys, "solve", os.path.join(ROOT, "puzzles", "a-sure-steal.json"), "--backend", "smt")
    assert status == 0 and out.splitlines()[1:] == [
        '  play card 2, turn "4: <2 xgreen/amber"',
        "  for example: red chooses 2 → whatever the others do, e.g. blue (1): port: >1 → red (2): 4: <2 xgreen/amber"
        " → red steals (R-STEAL-1)"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_solve_under_smt_shows_its_candidate_turns_and_refutations_while_it_works(monkeypatch):
    # Once the line read "positions searched 0" for seconds: the smt backend's work is the loop for X's decisive turn.
    from niagara_solver.jobs import Progress
    from niagara_solver.model.format import load_document
    from niagara_solver.solver.answers import Goal
    from niagara_solver.solver.solve import answer_with
    path = os.path.join(ROOT, "puzzles", "a-thief-dodged.json")
    told = []
    answer = answer_with(load_document(path)[0], 0, Goal.SAFE, 1, "smt",
                         progress=lambda n, note="": told.append((n, note)))
    assert answer.word == "yes" and told
    # Red acts first: one decisive turn, whose last candidate holds and every earlier one was refuted.
    tried, refuted = map(int, re.fullmatch(r"candidate turns (\d+), refutations (\d+)", told[-1][1]).groups())
    assert tried == refuted + 1 and told[-1][0] == answer.nodes
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    monkeypatch.setattr(Progress, "TICK", 0.02)
    assert main(["solve", path, "--backend", "smt"]) == 0
    assert re.search(r"solve \(smt\): positions explored \d+, candidate turns \d+, refutations \d+ +\d+ s",
                     terminal.getvalue())
