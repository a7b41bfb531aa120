"""The SMT encoding and the prover: verdicts over all positions, counterexamples the engine replays,
the mutation check, and the encoding agreeing with the engine on concrete positions.

Each mutant caught by its property, with a counterexample the engine rejects: tests/test_rule_coverage.py (a
mutant breaks one rule of the encoding; that it is caught is part of that rule's guard)."""

import os

import pytest
import z3

from helpers import P, position
from niagara_solver.jobs import run_all, task_key
from niagara_solver.verify.jobs import prove_task
from niagara_solver.verify.mutants import MUTANTS, check_mutants
from niagara_solver.verify.prove import prove
from niagara_solver.verify.properties import CATALOGUE
from niagara_solver.model.board import Board, standard_board
from niagara_solver.encoding.core import GROUPS
from niagara_solver.encoding.enumerate import turn_outcomes
from niagara_solver.encoding.relations import Relations
from niagara_solver.model.verdict import Verdict
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import Card
from niagara_solver.model.invariants import position_problems
from niagara_solver.model.ruleset import Ruleset
from niagara_solver.report.svg import render_svg, turn_from_json
from strategies import LONG_BOARD

#: A river forking right below its top disc: a port canoe reaches depth 3 at most, so a 6 cannot be spent.
SHORT = Board.from_json({"river": {"1": {"A": "2A", "B": "2B"}, "2A": "3A", "3A": "falls", "2B": "3B", "3B": "falls"},
                         "caves": {"amethyst": ["1"], "diamond": ["2A"], "amber": ["2B"], "sapphire": ["3A"],
                                   "ruby": ["3B"]}})


@pytest.mark.parametrize("players", [2, 5])
def test_every_property_is_proved_for_the_standard_rules(players, shared):
    # The proof as `check` makes it (the same job), shared with the tests that check the standard rules.
    task = prove_task(Ruleset().to_json(), standard_board().to_json(), players, None, 60.0)
    results = run_all([task])[task_key(task)]["properties"]
    assert [r["id"] for r in results] == [p.id for p in CATALOGUE]
    assert {r["id"]: r["verdict"] for r in results} == {p.id: "proved" for p in CATALOGUE}


def test_min_flow_one_keeps_every_property():
    results = prove(standard_board(), Ruleset.from_json({"min_flow": 1}), 3, timeout=60)
    assert {r.id: r.verdict for r in results} == {p.id: Verdict.PROVED for p in CATALOGUE}


def test_every_property_is_proved_on_an_inline_board_with_two_forks():
    results = prove(LONG_BOARD, Ruleset(), 2, timeout=60)
    assert {r.id: r.verdict for r in results} == {p.id: Verdict.PROVED for p in CATALOGUE}


def test_free_fork_refutes_fork_alternation_with_a_counterexample_the_engine_replays():
    rules = Ruleset.from_json({"fork_policy": "free"})
    (result,) = prove(standard_board(), rules, 2, ["R-PROP-2"], timeout=60)
    assert result.verdict is Verdict.REFUTED
    ce = result.counterexample
    assert ce is not None and ce.phase == "flow"
    assert not position_problems(ce.position)
    assert ce.replay == "the engine replays it to the same position"
    assert any("breaks R-PROP-2" in line for line in ce.trace)
    assert ce.position.forks == ce.after.forks  # the marker did not switch


def test_no_deadlock_is_refuted_on_a_river_too_short_for_a_six():
    (result,) = prove(SHORT, Ruleset(), 2, ["R-PROP-10"], timeout=60)
    assert result.verdict is Verdict.REFUTED
    ce = result.counterexample
    assert ce is not None and ce.replay == "the engine lists no turn here either"
    red = ce.position.players[0]
    assert [c.place for c in red.canoes] == ["port", "port"]
    assert legal_turns(ce.position, 0) == []  # with the card the counterexample holds
    (standard,) = prove(SHORT, Ruleset.from_json({"port_departure": "at_most_one"}), 2, ["R-PROP-10"], timeout=60)
    assert standard.verdict is Verdict.PROVED  # staying in the port is then a legal turn


@pytest.mark.rule("X-WHIRL-5")
def test_no_deadlock_asked_card_by_card_asks_every_value_of_the_card():
    # With the whirlpool, R-PROP-10's question is first asked one card at a time (verify/prove.py): only if every
    # one of them is unsat is the property proved, so together they must cover every value the card's term can
    # take. A question that holds at a single value, any card or one outside the cards, is not called proved.
    from niagara_solver.verify.prove import Prover
    prover = Prover(standard_board(), Ruleset.from_json({"x_whirl": True}), 2)
    card = z3.Int("card")
    for held in (-3, -1, *map(int, Card), 10, 99):
        assert not prover._no_deadlock_card_by_card([card == held], card), held
    assert prover._no_deadlock_card_by_card([card == 4, card != 4], card)


@pytest.mark.rule("X-WHIRL-5")
def test_no_deadlock_with_the_whirlpool_is_refuted_where_no_turn_exists():
    # A mutant that makes loading free gives a position with no legal turn in the encoding: with the whirlpool the
    # questions asked card by card find the failing card, and the one question then refutes the property as it
    # does everywhere, with a counterexample the engine disagrees with.
    from niagara_solver.verify.mutants import BY_NAME
    rules = Ruleset.from_json({"x_whirl": True, "x_cards": True})
    (result,) = prove(standard_board(), rules, 2, ["R-PROP-10"], timeout=60, mutant=BY_NAME["free-loading"])
    assert result.verdict is Verdict.REFUTED and result.counterexample is not None
    assert result.counterexample.replay == "the engine lists turns here: the encoding disagrees"


def test_no_deadlock_does_not_stop_at_a_failing_position_that_has_a_turn():
    # On the short fork with capacity 2, the first position z3 names where the witness fails has a turn (in a fresh
    # process this was UNKNOWN): that turn is added to the witnesses and the check goes on to a position with no
    # turn at all, which the engine confirms.
    from niagara_solver.model.format import load_board
    board = load_board(os.path.join(os.path.dirname(__file__), "..", "puzzles", "boards", "short-fork.json"))
    (result,) = prove(board, Ruleset.from_json({"capacity": 2}), 2, ["R-PROP-10"], timeout=60)
    assert result.verdict is Verdict.REFUTED
    ce = result.counterexample
    assert ce is not None and ce.replay == "the engine lists no turn here either"
    assert legal_turns(ce.position, 0) == []


@pytest.mark.rule("R-WEATHER-1")
def test_no_deadlock_is_proved_with_a_turn_found_where_the_witness_fails(monkeypatch):
    # Under the cloud-two-steps mutant the witness fails somewhere a turn exists; with that turn added, every
    # position has one of the two: proved. With no turn to be added, the same check can only say UNKNOWN.
    from niagara_solver.verify import prove as prover
    from niagara_solver.verify.mutants import BY_NAME
    mutant = BY_NAME["cloud-two-steps"]
    (result,) = prove(standard_board(), Ruleset(), 2, ["R-PROP-10"], timeout=60, mutant=mutant)
    assert result.verdict is Verdict.PROVED
    assert result.note == "proved with the witness turn and 1 turn found where it fails"
    monkeypatch.setattr(prover, "WITNESS_ROUNDS", 0)
    (result,) = prove(standard_board(), Ruleset(), 2, ["R-PROP-10"], timeout=60, mutant=mutant)
    assert result.verdict is Verdict.UNKNOWN and result.counterexample is None
    assert result.note == ("the witness turn and 0 turns found where it fails are not legal everywhere, and a turn "
                           "exists where they all fail")


def test_a_turns_counterexample_carries_its_turn_and_its_picture_draws_it():
    # The mutant that lets a canoe carry two gems is refuted by R-PROP-6 in the turn phase: the counterexample names
    # the turn (red's load onto a canoe already full), in JSON too, and the picture draws it (what a designer opens).
    (result,) = check_mutants(standard_board(), Ruleset(), 2, ["two-gems"], timeout=60)
    (refuted,) = [r for r in result.results if r.counterexample is not None]
    ce = refuted.counterexample
    assert refuted.id == "R-PROP-6" and ce is not None and ce.phase == "turn" and ce.player == 0
    assert ce.turn is not None and ce.choices == f"red plays {ce.position.players[0].card.label}: {ce.turn}"
    item = refuted.to_json()
    assert item["turn"] == {"player": "red", "turn": str(ce.turn)}
    assert turn_from_json(item, ce.position) == (ce.turn, 0)
    svg = render_svg(ce.position, *turn_from_json(item, ce.position))
    assert '<g class="turn-step"><title>red loads on' in svg and '<g class="turn-step">' not in render_svg(ce.position)


def test_the_mutation_check_names_every_killing_property():
    (result,) = check_mutants(standard_board(), Ruleset(), 2, ["cloud-two-steps"], timeout=60)
    assert result.killed and result.by == ["R-PROP-8"]
    assert len(MUTANTS) >= 12
    assert {m.key for m in MUTANTS} <= set(GROUPS)


@pytest.mark.parametrize("players, card", [
    ((P("red", "port", "4:ruby"), P("blue", "2:amber", "port")), 5),
    ((P("a", "4", "2:ruby"), P("b", "3:amber", "2:diamond"), P("c", "2:amber", "port")), 2),
    ((P("a", "6L:sapphire", "5"), P("b", "5:ruby", "6L:amber")), 3),
    ((P("a", "3", "3:ruby"), P("b", "1:amber", "2")), "cloud"),
])
def test_the_encoding_and_the_engine_reach_the_same_positions(players, card):
    pos = position(*players)
    c = Card.parse(card)
    assert turn_outcomes(pos, 0, c) == {o.position for o in legal_turns(pos, 0, c)}


def test_each_canoe_moves_in_the_flow_by_its_own_place_alone():
    # The symmetry argument of the flow properties: a canoe's new place reads only its own place, the cards,
    # the weather and the fork markers.
    relations = Relations(standard_board(), Ruleset(), 3)
    pre = relations.position("pre")
    post = relations.flow(pre).post
    shared = {str(v) for v in [*pre.card, pre.weather, *pre.marker.values()]}
    for p in range(3):
        for k in range(2):
            names = {str(v) for v in _variables(post.place[p][k])}
            assert names - shared == {str(pre.place[p][k])}


def _variables(term):
    seen, out, stack = set(), set(), [term]
    while stack:
        t = stack.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            out.add(t)
        stack.extend(t.children())
    return out


def test_a_whole_round_in_the_encoding_matches_the_engine():
    from niagara_solver.encoding.pin import pin_turn  # the front door pins a turn step, not a round's turns
    from niagara_solver.encoding.solver import make_solver
    from niagara_solver.model.notation import Rescue, Turn
    from niagara_solver.engine.round import play_round
    from niagara_solver.model.atoms import Colour
    start = position(P("a", "4:ruby", "fallen", bank={"amber": 1}), P("b", "2:amber", "6L"),
                     P("c", "5", "port"), phase="cards", lifebuoy="b", weather=1)
    cards = {0: Card.FIVE, 1: Card.THREE, 2: Card.CLOUD}
    turns = {1: Turn.parse("2: <port; 6L: <3"), 2: Turn.parse("cloud up"),
             0: Turn.parse("4: <port; port: >3 +amethyst")}
    record = play_round(start, cards, turns, {0: Rescue((Colour.AMBER,))})
    relations = Relations.of(start)
    pre = relations.position("pre")
    transition = relations.round(pre, "round", lifebuoy=start.lifebuoy)
    choice = transition.choice
    solver = make_solver(60)
    solver.add(*relations.pin(pre, start))
    solver.add(*[c for _, c in transition.constraints])
    solver.add(choice.rescue.rescued[0][1], choice.rescue.colour[0][1] == int(Colour.AMBER))
    for p, turn in turns.items():
        solver.add(*pin_turn(relations.enc, start, cards[p], turn, choice.turns[p]))
    assert solver.check() == z3.sat
    end = relations.decode_position(solver.model(), transition.post, record.end)
    assert [p.canoes for p in end.players] == [p.canoes for p in record.end.players]
    assert end.caves == record.end.caves and [p.bank for p in end.players] == [p.bank for p in record.end.players]
    assert end.weather == record.end.weather and end.forks == record.end.forks


# -- properties that do not apply -----------------------------------------------------------------------------

def test_a_property_of_a_module_that_is_off_is_not_applicable_not_proved():
    # Under the standard rules there is no moose and no Diamond Joe: X-PROP-1 and X-PROP-3 speak of nothing.
    results = prove(standard_board(), Ruleset(), 2, ["X-PROP-1", "R-PROP-8", "X-PROP-3"], timeout=60)
    assert [(r.id, r.verdict, r.reason) for r in results] == [
        ("X-PROP-1", None, "x_moose is off"), ("R-PROP-8", Verdict.PROVED, ""), ("X-PROP-3", None, "x_joe is off")]
    assert results[0].to_json()["verdict"] == "not applicable" and results[0].to_json()["reason"] == "x_moose is off"
    # With the module on, the same ID is proved.
    (moose,) = prove(standard_board(), Ruleset.from_json({"x_moose": True}), 2, ["X-PROP-1"], timeout=60)
    assert moose.verdict is Verdict.PROVED and moose.reason == ""


def test_merging_leaves_a_property_that_is_not_applicable_out_of_the_verdict():
    from niagara_solver.verify.catalogue import prove_catalogue
    from niagara_solver.verify.jobs import merge_properties, properties_verdict
    report = prove_catalogue(standard_board(), Ruleset(), [2, 3], ["X-PROP-4"], timeout=60)
    (only,) = report.properties
    assert only.verdict is None and only.reason == "x_beaver is off" and report.verdict is Verdict.PROVED
    assert only.to_json()["players"] == {"2": "not applicable", "3": "not applicable"}
    na = {"id": "X-PROP-4", "title": "beaver calm", "verdict": "not applicable", "seconds": 0.0,
          "depends_on": [], "reason": "x_beaver is off"}
    refuted = {"id": "R-PROP-2", "title": "fork alternation", "verdict": "refuted", "seconds": 0.1, "depends_on": [],
               "trace": ["..."]}
    unknown = {**refuted, "id": "R-PROP-3", "verdict": "unknown"}
    for others, expected in (([], Verdict.PROVED), ([refuted], Verdict.REFUTED), ([unknown], Verdict.UNKNOWN)):
        merged = merge_properties([{"players": 2, "properties": [na, *others]}])
        assert merged[0]["verdict"] == "not applicable" and merged[0]["reason"] == "x_beaver is off"
        assert properties_verdict(merged) is expected


def test_prove_reports_a_property_that_is_not_applicable_in_text_and_json(capsys):
    from niagara_solver.cli.main import main
    status = main(["prove", "--players", "2", "--property", "X-PROP-1", "--property", "X-PROP-3"])
    out = capsys.readouterr().out
    assert status == 0  # nothing refuted, nothing unknown: not a failure (docs/PROVER.md)
    rows = [" ".join(line.split()) for line in out.splitlines() if line.startswith("X-PROP-") and "  " in line]
    assert [r.split(" one-phase")[0] for r in rows] == ["X-PROP-1 one moose NOT APPLICABLE -",
                                                        "X-PROP-3 Joe's one gem NOT APPLICABLE -"]
    assert "PROVED" not in out and out.count("NOT APPLICABLE") == 2
    assert "X-PROP-1 is not applicable: x_moose is off; nothing was proved (neither a pass nor a failure)" in out
    assert "X-PROP-3 is not applicable: x_joe is off" in out
    status = main(["prove", "--players", "2", "--property", "X-PROP-1", "--json"])
    (item,) = __import__("json").loads(capsys.readouterr().out)["properties"]
    assert status == 0 and (item["verdict"], item["reason"], item["players"]) == (
        "not applicable", "x_moose is off", {"2": "not applicable"})


def test_check_shows_a_property_that_is_not_applicable_as_skipped_in_junit(tmp_path, capsys):
    import json
    import xml.etree.ElementTree as ET
    from niagara_solver.cli.main import main
    junit = tmp_path / "results.xml"
    status = main(["check", "--players", "2", "--property", "X-PROP-4", "--property", "R-PROP-8",
                   "--junit", str(junit)])
    out = capsys.readouterr().out
    assert status == 0
    assert "properties: 1 proved, 0 refuted, 0 unknown, 1 not applicable" in out
    assert "NOT APPLICABLE X-PROP-4 beaver calm: x_beaver is off (neither a pass nor a failure)" in out
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("2", "0", "1")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    skipped = cases["X-PROP-4 beaver calm"].find("skipped")
    assert skipped is not None and skipped.get("message") == "not applicable: x_beaver is off"
    assert list(cases["R-PROP-8 weather bounds"]) == []  # passed
    # Alone, it checks nothing, and says so.
    status = main(["check", "--players", "2", "--property", "X-PROP-4"])
    assert status == 0 and capsys.readouterr().out.rstrip().endswith("PASS (nothing that applies was checked)")
    status = main(["check", "--players", "2", "--property", "X-PROP-4", "--json"])
    (item,) = json.loads(capsys.readouterr().out)["properties"]
    assert item["verdict"] == "not applicable" and item["reason"] == "x_beaver is off"


def test_diff_shows_a_property_not_applicable_under_one_ruleset_whichever_side(tmp_path, capsys, shared):
    # The expansion's own property is proved with the module on and not applicable with it off, whichever ruleset
    # is A (before, a property only A had ended the diff with a KeyError, and one only B had was left out). The three
    # diffs ask the same proofs and witness, made once (tests/shared.py).
    import json
    from niagara_solver.cli.main import main
    beaver, empty = tmp_path / "beaver.json", tmp_path / "none"
    beaver.write_text(json.dumps({"x_beaver": True}))
    empty.mkdir()
    for a, b, side in ((str(beaver), "standard", "B"), ("standard", str(beaver), "A")):
        status = main(["diff", a, b, "--players", "2", "--puzzles", str(empty), "--json"])
        data = json.loads(capsys.readouterr().out)
        assert status == 0
        (x,) = [p for p in data["properties"] if p["id"] == "X-PROP-4"]
        words = {"A": "not applicable", "B": "proved"} if side == "A" else {"A": "proved", "B": "not applicable"}
        assert (x["a"], x["b"], x["changed"], x[f"reason_{side.lower()}"]) == (
            words["A"], words["B"], False, "x_beaver is off")
        assert [p["id"] for p in data["properties"]][-1] == "X-PROP-4" and len(data["properties"]) == 17
    # In text, the switch's values as the ruleset file writes them (once: True and False).
    assert main(["diff", str(beaver), "standard", "--players", "2", "--puzzles", str(empty)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "A: standard with x_beaver=true" and "witness for x_beaver (true → false):" in lines
    assert ["x_beaver", "true", "false"] in [line.split() for line in lines]
    assert [line.split()[:4] + [line.split(None, 4)[4]] for line in lines if line.startswith("X-PROP-4")] == [
        ["X-PROP-4", "beaver", "calm", "PROVED", "NOT APPLICABLE  not applicable in B (x_beaver is off)"]]
