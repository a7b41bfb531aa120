"""``niagara-solve mine``: puzzles found in play — one card forces the goal, every answer certified by the encoding,
every refutation replayed by the engine, seeded, themed from the certificate, and read back by ``check``."""

from __future__ import annotations

import copy
import dataclasses
import json
import os
from typing import Any

import pytest

from niagara_solver.cli.main import main
from niagara_solver.design import mine as mining
from niagara_solver.design.check import check
from niagara_solver.design.mine import (Dropped, MineReport, MineSettings, MinedPuzzle, canonical_key, examine,
                                        load_mined, mine_job, puzzle_name, replay_problems, themes_of, write_puzzles)
from niagara_solver.model.board import Board
from niagara_solver.model.format import load_document, position_from_json
from niagara_solver.model.notation import Turn
from niagara_solver.model.position import Player
from niagara_solver.model.ruleset import Ruleset
from niagara_solver.model.verdict import Verdict
from niagara_solver.solver.answers import Goal
from niagara_solver.solver.proof import certificate
from niagara_solver.solver.puzzles import puzzle_question
from niagara_solver.solver.search import Search, trace

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def steal_position(red_hand: list[Any], green_second: dict[str, Any]) -> Any:
    """Blue acts first with a 1 (only a port canoe down to 1, R-MOVE-6), then red, whose canoe on 4 reaches green's
    amber on 2 with a 2 (R-STEAL-1), then green."""
    return position_from_json({
        "format": "niagara-position/1", "phase": "turns", "acted": [], "lifebuoy": "blue", "players": [
            {"name": "blue", "canoes": [{"at": "port"}, {"at": "port"}], "hand": [1]},
            {"name": "red", "canoes": [{"at": "4"}, {"at": "port"}], "hand": red_hand},
            {"name": "green", "canoes": [{"at": "2", "gem": "amber"}, green_second], "hand": [3]}]})


def test_one_winning_card_is_kept_and_a_planted_second_is_rejected() -> None:
    pos = steal_position([2, 5], {"at": "port"})
    puzzle = examine(pos, 1, Goal.STEAL, 1)
    assert (puzzle["card"], puzzle["turn"]) == (2, "4: <2 xgreen/amber")
    assert [r["card"] for r in puzzle["refutations"]] == [5]
    assert puzzle["refutations"][0]["line"][0] == "blue (1): port: >1"
    # A ruby on 1 puts a second victim in reach of red's 3 (4 up to 1): two cards force the steal.
    planted = steal_position([2, 3], {"at": "1", "gem": "ruby"})
    with pytest.raises(Dropped) as dropped:
        examine(planted, 1, Goal.STEAL, 1)
    assert (dropped.value.why, str(dropped.value)) == ("several cards", "several cards: 3 forces it too")
    # The same ruby with the 5 instead (red cannot stop on 1 with it): one card again.
    assert examine(steal_position([2, 5], {"at": "1", "gem": "ruby"}), 1, Goal.STEAL, 1)["card"] == 2


def test_a_refutation_the_engine_does_not_replay_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    pos = steal_position([2, 5], {"at": "port"})
    puzzle = examine(pos, 1, Goal.STEAL, 1)
    assert replay_problems(pos, puzzle) == []
    # Blue's 1 cannot take a port canoe down to 2 (R-MOVE-3): not a reply the engine replays.
    bad = copy.deepcopy(puzzle)
    bad["refutations"][0]["line"][0] = "blue (1): port: >2"
    assert replay_problems(pos, bad) == ["refutation of 5: the engine does not replay 'blue (1): port: >2' (step 1)"]
    # A line whose last words are not its reason's.
    bad = copy.deepcopy(puzzle)
    bad["refutations"][0]["line"][-1] = "red cannot steal"
    assert replay_problems(pos, bad) == ["refutation of 5: the engine does not replay 'red cannot steal' (step 2)"]
    # A solution whose steal is taken out of red's turn: the line's reason says red steals, the engine says not.
    bad = copy.deepcopy(puzzle)
    bad["solution"]["line"][2] = "red (2): 4: <2"
    assert replay_problems(pos, bad) == ["solution: X's turns on the line steal nothing (R-STEAL-1)"]
    # examine() itself drops a puzzle whose refutation does not replay.
    real = mining.refutation

    def tampered(*args: Any) -> Any:
        ref = real(*args)
        return {**ref, "line": ["blue (1): port: >2", *ref["line"][1:]]}
    monkeypatch.setattr(mining, "refutation", tampered)
    with pytest.raises(Dropped) as dropped:
        examine(pos, 1, Goal.STEAL, 1)
    assert dropped.value.why == "not replayed"


def test_an_answer_dropped_gets_no_line_of_play(monkeypatch: pytest.MonkeyPatch) -> None:
    # A "no" at the card choice, and a second card that forces the goal, are dropped on the verdict of the search's
    # pruned half alone: the plain line (rebuilt by Search.value where a search has a pruned half) is never rebuilt
    # for them; for a puzzle kept it is.
    real = Search.value
    lines: list[Any] = []

    def value(self: Search, at: Any) -> Any:
        if self.oracle is not None:
            lines.append(at)
        return real(self, at)
    monkeypatch.setattr(Search, "value", value)
    for hand, second, why in [([5, 6], {"at": "port"}, "no"), ([2, 3], {"at": "1", "gem": "ruby"}, "several cards")]:
        with pytest.raises(Dropped) as dropped:
            examine(steal_position(hand, second), 1, Goal.STEAL, 1)
        assert dropped.value.why == why and lines == []
    examine(steal_position([2, 5], {"at": "port"}), 1, Goal.STEAL, 1)
    assert len(lines) == 2  # the solution's and the 5's refutation


def _job() -> dict[str, Any]:
    board = Board.from_json("standard").to_json()
    out = mine_job("standard", board, 3, 0, 0, 1, ["steal"], [1], 10.0, 5, 6)
    out.pop("seconds")
    return out


def test_seeded_runs_give_the_same_puzzles() -> None:
    first, again = _job(), _job()
    assert first == again
    found = [(p["puzzle"]["player"], p["puzzle"]["source"]["round"], p["puzzle"]["card"]) for p in first["puzzles"]]
    assert found == [("green", 6, 1)]
    puzzle = first["puzzles"][0]["puzzle"]
    assert puzzle["source"] == {"ruleset": "standard", "players": 3, "seed": 0, "game": 0, "game_seed": 0,
                                "round": 6, "policy": "lookahead"}
    assert puzzle["rating"]["samples"] == 5 and 0 <= puzzle["rating"]["difficulty"] <= 1


def _proof(path: str) -> tuple[Any, Any, Any]:
    pos, extras = load_document(os.path.join(ROOT, "puzzles", path))
    q = puzzle_question(pos, extras)
    assert q is not None
    search = Search(q.player, q.goal, q.horizon, 60)
    node = search.value(pos)
    assert node.value
    return certificate(search, pos, True), trace(node), pos


@pytest.mark.parametrize("path, themes", [
    ("a-sure-steal.json", ["R-STEAL-1"]),                 # X's turn in the certificate steals
    ("win-on-the-tie-break.json", ["R-END-3"]),           # blue may reach the goal too: the tie-break decides
    ("a-free-rescue-keeps-the-win.json", ["R-RESCUE-1"]),
    ("expansion/moose-carries-the-win-home.json", ["X-MOOSE-1"]),
    ("win-two-gems-home.json", []),                       # nothing but paddling home: no theme is guessed
])
def test_themes_are_the_rules_the_certificate_names(path: str, themes: list[str]) -> None:
    proof, line, pos = _proof(path)
    assert themes_of(proof, line, pos) == themes


def test_a_steal_theme_is_a_steal_in_the_certificate() -> None:
    proof, line, pos = _proof("a-sure-steal.json")
    # Blue acts before red and cannot reach the amber: the certificate ends in a sure-steal leaf naming red's turn.
    [leaf] = [n for n in proof.nodes if n.kind.value == "leaf"]
    assert (leaf.claim.value, str(leaf.turn)) == ("sure-steal", "4: <2 xgreen/amber")
    # The same certificate with X's turn paddling without the steal names no steal.
    bare = tuple(dataclasses.replace(n, turn=Turn.parse("4: <2")) if n is leaf else n for n in proof.nodes)
    assert themes_of(dataclasses.replace(proof, nodes=bare), [], pos) == []


def test_positions_equal_up_to_renaming_the_players_share_a_key() -> None:
    pos = steal_position([2, 5], {"at": "port"})
    renamed = pos.replace(players=tuple(Player(n, p.canoes, p.hand, p.bank)
                                        for n, p in zip(("a", "b", "c"), pos.players)))
    # The seats turned by one: the lifebuoy with the same player, who is now seat 1.
    turned = pos.replace(players=(pos.players[2], pos.players[0], pos.players[1]), lifebuoy=1)
    assert canonical_key(pos, 1, "steal", 1) == canonical_key(renamed, 1, "steal", 1)
    assert canonical_key(pos, 1, "steal", 1) == canonical_key(turned, 2, "steal", 1)
    assert canonical_key(pos, 1, "steal", 1) != canonical_key(pos, 2, "steal", 1)
    assert canonical_key(pos, 1, "steal", 1) != canonical_key(pos, 1, "steal", 2)


def test_a_mined_puzzle_round_trips_through_check_and_solve(tmp_path: Any) -> None:
    pos = steal_position([2, 5], {"at": "port"})
    puzzle = examine(pos, 1, Goal.STEAL, 1)
    puzzle["rating"] = {"difficulty": 0.5, "missed": {"greedy": 0.5, "lookahead": 0.5}, "samples": 2,
                        "certificate_nodes": puzzle.pop("certificate_nodes")}
    puzzle["source"] = {"ruleset": "standard", "players": 3, "seed": 0, "game": 0, "game_seed": 0, "round": 1,
                        "policy": "lookahead"}
    settings = MineSettings(Ruleset(), Board.from_json("standard"), (3,))
    report = MineReport(settings, [MinedPuzzle(pos, puzzle, puzzle_name(pos, puzzle))])
    [path] = write_puzzles(report, str(tmp_path))
    assert os.path.basename(path) == "standard-3p-steal-h1-g0-r1-red.json"
    back = load_mined(path)
    assert back.position == pos and back.puzzle == json.loads(json.dumps(puzzle))
    result = check(Board.from_json("standard"), Ruleset(), str(tmp_path), [3], False, ids=["R-PROP-1"])
    assert [p["name"] for p in result.puzzles_by(Verdict.CONFIRMED)] == ["standard-3p-steal-h1-g0-r1-red"]
    assert result.puzzles[0]["answer"]["card"] == 2


@pytest.mark.parametrize("args, message", [
    (["--players", "7"], "--players"),
    (["--games", "0"], "invalid value for '--games': 0 is not in the range 1<=x<=10000"),
    (["--horizon", "3"], "invalid value for '--horizon': 3 is not in the range 1<=x<=2"),
])
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str, tmp_path: Any,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mine", *args, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_an_unwritable_out_is_one_line_and_exit_2(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["mine", "--games", "1", "--out", str(blocker / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--out" in err and not os.path.exists(blocker / "out")


# -- the curated set: puzzles/mined/ --------------------------------------------------------------------------------

MINED = os.path.join(ROOT, "puzzles", "mined")


def _mined() -> list[MinedPuzzle]:
    return [load_mined(os.path.join(MINED, n)) for n in sorted(os.listdir(MINED)) if n.endswith(".json")]


def test_the_readme_counts_the_mined_puzzles_as_the_folder_holds_them() -> None:
    import re
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = " ".join(f.read().split())
    said = re.search(r"`puzzles/mined/` holds (\d+) puzzles mined from played games: (\d+), (\d+) and (\d+) of 3, 4 "
                     r"and 5 players; (\d+) wins and (\d+) steals; (\d+) within one round and (\d+) within two; "
                     r"(\d+) under the expansion presets", text)
    assert said is not None
    found = _mined()
    expansion = [p for p in found if str(p.puzzle["source"]["ruleset"]).startswith("flussgeister")]
    assert [int(n) for n in said.groups()] == [
        len(found), *(sum(1 for p in found if len(p.position.players) == n) for n in (3, 4, 5)),
        *(sum(1 for p in found if p.puzzle["goal"] == g) for g in ("win", "steal")),
        *(sum(1 for p in found if p.puzzle["horizon"] == h) for h in (1, 2)), len(expansion)]


def test_the_mined_puzzles_replay_and_check_answers_them_as_recorded() -> None:
    found = _mined()
    assert len(found) >= 40
    for p in found:
        assert replay_problems(p.position, p.puzzle) == [], p.name
        assert set(p.puzzle["themes"]) <= set(mining.THEMES), p.name
        turns = p.puzzle["solution"].get("turns") if p.puzzle["horizon"] == 1 else None
        assert p.puzzle["themes"] == mining.narrowed(p.puzzle["themes"], turns), p.name
        assert p.name == puzzle_name(p.position, p.puzzle)
    result = check(Board.from_json("standard"), Ruleset(), MINED, [3], False, timeout=120, ids=["R-PROP-1"])
    assert len(result.puzzles_by(Verdict.CONFIRMED)) == len(found)
    assert {p["name"]: p["answer"]["card"] for p in result.puzzles} == {p.name: p.puzzle["card"] for p in found}


def test_a_theme_of_one_winning_turn_that_another_does_without_is_not_kept() -> None:
    # Blue wins with its 6 either way home: once pushed by the whirlpool on 1 (X-WHIRL-2), once not.
    turns = ["3: +amethyst <port; 4: +diamond <1 ~2", "3: +amethyst <port; 4: <port"]
    assert mining.narrowed(["R-END-3", "X-WHIRL-2"], turns) == ["R-END-3"]
    assert mining.narrowed(["R-END-3", "X-WHIRL-2"], turns[:1]) == ["R-END-3", "X-WHIRL-2"]
    assert mining.narrowed(["R-STEAL-1"], None) == ["R-STEAL-1"]


def test_the_library_refuses_what_the_command_line_cannot_ask() -> None:
    settings = MineSettings(Ruleset(), Board.from_json("standard"), (4,), games=0)
    with pytest.raises(mining.InputError, match=r"^--games: mine 1 to 10,000 games, not 0 \(LIMITS\)$"):
        settings.check()
    with pytest.raises(mining.InputError, match=r"^--horizon: mine horizons 1 or 2, not 3 \(LIMITS\)$"):
        MineSettings(Ruleset(), Board.from_json("standard"), (4,), horizons=(3,)).check()


def test_the_gallery_links_a_picture_and_a_page_per_puzzle_easiest_first(tmp_path: Any) -> None:
    from niagara_solver.games.lines import LineReplay
    from niagara_solver.report.gallery import puzzle_answer, write_gallery, write_pages
    pos = steal_position([2, 5], {"at": "port"})
    puzzle = examine(pos, 1, Goal.STEAL, 1)
    puzzle["rating"] = {"difficulty": 0.25, "missed": {"greedy": 0.5, "lookahead": 0.0}, "samples": 2,
                        "certificate_nodes": puzzle.pop("certificate_nodes")}
    puzzle["source"] = {"ruleset": "standard", "players": 3, "seed": 0, "game": 0, "game_seed": 0, "round": 1,
                        "policy": "lookahead"}
    easy = MinedPuzzle(pos, puzzle, "easy")
    hard = MinedPuzzle(pos, {**puzzle, "rating": {**puzzle["rating"], "difficulty": 0.75}}, "hard")
    answer = puzzle_answer(easy)
    # The others' answer to red's 5, as the page replays it: red's card, then blue's turn, then the reason.
    assert answer.refutations == [{"option": "red plays 5", "answer": puzzle["refutations"][0]["line"]}]
    replay = LineReplay(pos, 1)
    assert all(replay.step(label) is not None for label in ["red plays 5", *answer.refutations[0]["answer"][:-1]])
    pages = write_pages(str(tmp_path / "pages"), str(tmp_path), [hard, easy])
    page = write_gallery(str(tmp_path), None, [hard, easy], pages=pages)
    text = open(page, encoding="utf-8").read()
    assert text.index("## 1. easy") < text.index("## 2. hard")  # easiest first
    assert "![easy](pictures/easy.svg)" in text and "[Step through the solution and the refutations](pages/easy.html)" \
        in text
    assert text.count("<details><summary>Solution</summary>") == 2
    assert "Play **2**, turn `4: <2 xgreen/amber`." in text
    assert os.path.isfile(tmp_path / "pictures" / "hard.svg") and os.path.isfile(tmp_path / "pages" / "hard.html")


def test_a_mined_puzzle_comes_from_the_game_its_source_names() -> None:
    from niagara_solver.design.mine import card_position
    from niagara_solver.design.simulate import start_position
    from niagara_solver.play.playout import random_playout
    found = {p.name: p for p in _mined()}
    for name in ("standard-4p-steal-h1-g1000003-r6-blue", "standard-3p-steal-h2-g7000021-r4-red",
                 "flussgeister-4p-steal-h1-g11000036-r6-blue"):
        p = found[name]
        source = p.puzzle["source"]
        rules = Ruleset.from_json(source["ruleset"])
        start = start_position(p.position.board, rules, source["players"])
        records = list(random_playout(start, source["game_seed"], source["round"], source["policy"]))
        assert card_position(records[source["round"] - 1]) == p.position, name


def test_a_seeded_run_keeps_the_puzzles_it_kept_before_the_search_was_made_faster() -> None:
    # The first 7 rounds of the bench's first four-player game (seed 0, game 0), each question with a minute (none
    # comes near it, so nothing here depends on the machine's speed): the same 48 questions, the same answers, the
    # same puzzle, as the code mined them before the steal's focus, the sure steal and the winning turns asked of the
    # search that proved the yes (docs/MINING.md, "Speed"). Round 3's blue (three players act before it, no) was the
    # dearest question: 5.1 s of CPU then.
    from niagara_solver.model.board import standard_board
    from niagara_solver.model.ruleset import PRESETS
    done = mine_job(PRESETS["standard"].to_json(), standard_board().to_json(), 4, 0, 0, 1, ["win", "steal"], [1],
                    60.0, 20, 7)
    assert done["asked"] == 48 and done["dropped"] == {**dict.fromkeys(mining.DROPS, 0), "no": 47}
    [found] = done["puzzles"]
    puzzle = found["puzzle"]
    assert (puzzle["source"]["round"], puzzle["player"], puzzle["goal"], puzzle["card"], puzzle["turn"]) == (
        6, "blue", "steal", 1, "5: <4 xgreen/amber; 6R: <5")
    assert puzzle["solution"]["line"] == ["blue chooses 1", "blue (1): 5: <4 xgreen/amber; 6R: <5",
                                          "blue steals (R-STEAL-1)"]
    assert puzzle["solution"]["turns"] == ["5: <4 xgreen/amber; 6R: <5", "5: <4 xgreen/amber; 6R: >7R",
                                           "5: <4 xgreen/diamond; 6R: <5", "5: <4 xgreen/diamond; 6R: >7R"]
    assert [(r["card"], r["line"]) for r in puzzle["refutations"]] == [
        ("cloud", ["no choice of blue works: blue has already had its turn this round: it can steal no more "
                   "(R-STEAL-1)"])]
    assert puzzle["rating"] == {"difficulty": 0.275, "missed": {"greedy": 0.55, "lookahead": 0.0}, "samples": 20,
                                "certificate_nodes": 3}
    assert puzzle["themes"] == ["R-STEAL-1"]
