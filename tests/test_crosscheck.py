"""The engine and the encoding checked against each other: bounded runs under several rulesets and boards,
Hypothesis positions, and planted bugs on either side that the cross-check must find and shrink."""

import json
from typing import Any, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from niagara_solver.verify.crosscheck import CrossChecker, GoalStatus, crosscheck, goals_for
from niagara_solver.verify.mutants import BY_NAME
from niagara_solver.model.board import standard_board
from niagara_solver.cli.main import main
from niagara_solver.model.ruleset import SWITCHES, Ruleset
from niagara_solver.model.switches import SwitchPhase
from helpers import pending_switches
from strategies import LONG_BOARD, positions, rulesets

GOALS = goals_for(Ruleset())  # the base game's goals; each module's own are asked only with it on
TURN_GOALS = [g.name for g in GOALS if g.phase is SwitchPhase.TURN and g.turns == 1]
OTHER_GOALS = [g.name for g in GOALS if g.phase is not SwitchPhase.TURN]


def test_bounded_crosscheck_agrees_on_every_goal_a_playout_and_first_rounds(shared):
    report = crosscheck(standard_board(), Ruleset(), count=1, seed=0)
    assert report.mismatches == []
    assert set(report.goals) == {g.name for g in GOALS}
    assert all(v is GoalStatus.MET for v in report.goals.values()), report.goals
    assert report.cases["round"] >= 1 and report.cases["turn"] >= len(TURN_GOALS)
    for rule in ("R-STEAL-4", "R-STEAL-5", "R-TURN-4", "R-MOVE-4", "R-MOVE-5", "R-GEM-4", "R-FLOW-1", "R-FLOW-2",
                 "R-FLOW-4", "R-FLOW-6", "R-RESCUE-2", "R-END-3", "R-TURN-1", "R-BUOY-1"):
        assert report.coverage[rule] > 0, rule


def other_values() -> dict[str, object]:
    """Every switch of the base game (the rows without a module, none that only changes what a player knows) at its
    row's first value other than the default (``tries``): one ruleset for the cross-check below. Read from the rows:
    a new switch joins it with no edit here."""
    return {name: row.tries[1] for name, row in SWITCHES.items()
            if row.of_module is None and "knowledge" not in row.phases and name not in pending_switches()}


def test_crosscheck_under_every_other_switch_value():
    rules = Ruleset.from_json(other_values())
    report = crosscheck(standard_board(), rules, count=0, rounds=False,
                        goals=["steal", "both-canoes-bank", "port-canoe-stays", "steal-a-stolen-gem", *OTHER_GOALS,
                               *[g.name for g in goals_for(rules) if g.switches]])
    assert report.mismatches == []
    assert report.goals["both-canoes-bank"] is GoalStatus.MET and report.coverage["R-RESCUE-3"] > 0
    assert report.coverage["R-STEAL-4"] > 0
    # Each switch of phase I has its own goal, a position where its value matters, whose case exercises its rule
    # (R-RESCUE-3 for rescue_when_none).
    for name, row in SWITCHES.items():
        if row.phases[0] == "rescue":
            assert report.goals[f"where-{name}-matters"] is GoalStatus.MET and report.coverage[row.rule] > 0, name


def test_crosscheck_with_a_free_fork():
    report = crosscheck(standard_board(), Ruleset.from_json({"fork_policy": "free"}), count=0, rounds=False,
                        goals=["fork-choice", *OTHER_GOALS])
    assert report.mismatches == [] and report.cases["flow"] >= 10


def test_crosscheck_on_an_inline_board_with_two_forks():
    report = crosscheck(LONG_BOARD, Ruleset(), count=1, seed=2, rounds=False,
                        goals=["steal", "fork-choice", "both-canoes-bank", *OTHER_GOALS])
    assert report.mismatches == []


@settings(max_examples=8)
@given(positions(max_players=2, rules=rulesets()), st.data())
def test_crosscheck_on_hypothesis_positions(pos, data):
    player = data.draw(st.integers(0, 1))
    card = data.draw(st.sampled_from(pos.players[player].hand))
    checker = CrossChecker(pos.board, pos.ruleset)
    assert checker.turn(pos, player, card).agrees
    assert checker.flow(pos, data.draw(st.integers(0, 8))).agrees


def test_a_planted_engine_bug_is_found_and_shrunk(monkeypatch):
    # The engine's turn generator (engine/paddling.py) forgets every branch but the first one at a fork (R-MOVE-4):
    # its move tables keep one disc per distance downstream.
    from niagara_solver.engine import paddling
    real_tables = paddling._tables

    def first_branch_only(board):
        tables = real_tables(board)
        rings = {p: tuple(ring[:1] for ring in rs) for p, rs in tables.rings.items()}
        return tables._replace(rings=rings, up_costs={}, targets={})
    monkeypatch.setattr(paddling, "_tables", first_branch_only)
    report = crosscheck(standard_board(), Ruleset(), count=0, rounds=False, goals=["fork-choice"])
    assert report.mismatches, "the cross-check missed the engine bug"
    found = report.mismatches[0].to_json()
    assert found["kind"] == "turn" and found["engine_only"] == [] and found["encoding_only"]
    assert any(">6R" in item["label"] or ">7R" in item["label"] for item in found["encoding_only"])
    shrunk = found["position"]
    assert len(shrunk["players"]) == 2
    others = shrunk["players"][1]
    assert [c["at"] for c in others["canoes"]] == ["port", "port"] and others["bank"] == {}


def test_a_planted_encoding_bug_is_found():
    report = crosscheck(standard_board(), Ruleset(), count=0, rounds=False, mutant=BY_NAME["fork-marker-stuck"],
                        goals=["odd-flow-with-canoes-in-both-branches"])
    assert report.mismatches and all(m.case.kind == "flow" for m in report.mismatches)
    # Free loading shows where a canoe loads: the goal whose turn loads a gem (any goal's position is a model z3
    # picks; one where nothing can be loaded would hide the bug).
    report = crosscheck(standard_board(), Ruleset(), count=0, rounds=False, mutant=BY_NAME["free-loading"],
                        goals=["load-from-a-mixed-cave"])
    assert report.mismatches and report.mismatches[0].to_json()["encoding_only"]


def test_crosscheck_command(capsys, tmp_path, shared):
    # The README's cross-check (tests/test_readme.py runs it for its text, sharing the answers), as JSON: the goals,
    # two playouts and the bundled puzzles on the standard board.
    status = main(["crosscheck", "--count", "2", "--no-rounds", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 0 and data["mismatches"] == [] and data["positions"] >= 1
    assert {"positions", "mismatches", "coverage"} <= set(data)
    assert data["sources"]["playouts"] == 2 and data["sources"]["puzzles"] >= 20 and "round" not in data["cases"]
    assert set(data["goals"]) == {g.name for g in GOALS}
    # Without the goals, on a river no bundled puzzle is on: the playout alone.
    board = tmp_path / "straight.json"
    board.write_text(json.dumps({"river": {"1": "2", "2": "3", "3": "4", "4": "5", "5": "6", "6": "falls"},
                                 "caves": {"amethyst": ["2"], "diamond": ["3"], "amber": ["4"], "sapphire": ["5"],
                                           "ruby": ["6"]}}))
    status = main(["crosscheck", "--count", "1", "--no-goals", "--no-rounds", "--board", str(board), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 0 and data["mismatches"] == [] and data["positions"] == 1
    assert data["sources"] == {"playouts": 1} and data["goals"] == {}


@pytest.mark.parametrize("name", ["steal-after-unload", "rescue-with-an-empty-bank", "two-players-reach-the-goal"])
def test_goals_are_met_by_their_positions(name):
    from niagara_solver.verify.crosscheck import goal_positions
    ((goal, pos, card),) = list(goal_positions(standard_board(), Ruleset(), names=[name]))
    assert pos is not None
    if name == "steal-after-unload":
        from niagara_solver.engine.turns import legal_turns
        assert any(" x" in str(o.turn) and "-" in str(o.turn).split(":")[1] for o in legal_turns(pos, 0, card))
    elif name == "rescue-with-an-empty-bank":
        red = pos.players[0]
        assert [c.place for c in red.canoes] == ["fallen", "fallen"] and red.bank.total == 0
    else:
        from niagara_solver.engine.round import goal_reached
        assert goal_reached(pos.players[0]) and goal_reached(pos.players[1])


@pytest.mark.rule("R-STEAL-4")
def test_R_STEAL_4_a_gem_stolen_this_phase_is_compared_when_it_is_stolen_back():
    # The solver builds a position where red steals and blue then takes the stolen gem back; blue's turns after
    # red's steal are compared, and only a steal of that very gem counts as exercising R-STEAL-4.
    from helpers import P, position
    from niagara_solver.verify.crosscheck import restolen, steals
    from niagara_solver.model.notation import Turn
    from niagara_solver.engine.turns import legal_turns
    report = crosscheck(standard_board(), Ruleset(), count=0, rounds=False, goals=["steal-a-stolen-gem"])
    assert report.mismatches == [] and report.cases["turn"] == 2 and report.coverage["R-STEAL-4"] == 1
    # red (card 1) steals blue's sapphire at 6L; blue's canoe below (card 1) can take it back.
    pos = position(P("red", "7L", "fallen", card=1), P("blue", "6L:sapphire", "7L", card=1), phase="turns")
    red = Turn.parse("7L: <6L xblue/sapphire")
    assert steals(pos, 0, red) == [(1, (0, "6L", 4))]
    after = {str(o.turn): o.position for o in legal_turns(pos, 0, 1)}["7L: <6L xblue/sapphire"]
    stolen = frozenset(mark for _, mark in steals(pos, 0, red))
    back = {str(o.turn): o.turn for o in legal_turns(after, 1, 1)}
    assert restolen(after, 1, back["6L: <5; 7L: <6L xred/sapphire"], stolen)
    assert not restolen(after, 1, back["6L: <5; 7L: <6L"], stolen)
    case = CrossChecker(standard_board(), Ruleset()).turn(after, 1, after.players[1].card, stolen)
    assert case.agrees and "R-STEAL-4" in case.rules


@pytest.mark.rule("R-RESCUE-3")
def test_R_RESCUE_3_the_encoding_gives_the_free_canoe_like_the_engine():
    # Found by the cross-check: under rescue_when_none: free the encoding let a player with no canoe in play pay
    # for every rescue instead of taking the free one; RULES.md (R-RESCUE-3) and the engine give one back free.
    from helpers import P, position
    rules = {"rescue_when_none": "free"}
    pos = position(P("red", "fallen", "fallen", bank={"diamond": 1, "amber": 1}), P("blue", "port", "port"),
                   phase="cards", ruleset=rules)
    case = CrossChecker(pos.board, pos.ruleset).rescue(pos)
    assert case.agrees
    assert sorted(case.engine.values()) == sorted(["red free; blue none", "red free,amber; blue none",
                                                   "red free,diamond; blue none"])


def test_the_incremental_enumerator_finds_the_outcomes_the_reference_finds():
    # The fast path (relations asserted once, the engine's outcomes confirmed, one question for any other, flows
    # evaluated) and the earlier one (a fresh solver per position) give the encoding's same outcome sets.
    from niagara_solver.engine.turns import legal_turns
    from niagara_solver.verify.crosscheck import FLOW_STEPS, playout_positions
    board, rules = standard_board(), Ruleset()
    fast, reference = CrossChecker(board, rules), CrossChecker(board, rules, reference=True)
    compared = 0
    for _, rec in playout_positions(board, rules, 3, 5):
        pos = rec.turns_start
        player = next(i for i in range(len(pos.players)) if i not in pos.acted)
        card = pos.players[player].card or pos.players[player].hand[0]
        assert legal_turns(pos, player, card)
        cases = [(fast.turn(pos, player, card), reference.turn(pos, player, card)),
                 (fast.rescue(rec.start), reference.rescue(rec.start)), (fast.end(rec.start), reference.end(rec.start))]
        cases += [(fast.flow(rec.before_flow, k), reference.flow(rec.before_flow, k)) for k in (None, *FLOW_STEPS)]
        for new, old in cases:
            assert new.unknown is None and old.unknown is None
            assert set(new.encoding) == set(old.encoding) == set(new.engine), new.describe()
            compared += 1
    assert compared == 3 * 13


def test_a_round_with_a_planted_bug_on_either_side_is_a_mismatch(monkeypatch):
    # Whole rounds are compared by confirming the engine's starts and asking once for any other start: an extra
    # start of the encoding (a mutant: the cloud moves the weather two steps) and a start the engine forgets (it
    # drops the cloud's step down) are both found, as exact sets.
    from niagara_solver.model.atoms import Card
    from niagara_solver.model.position import Position
    from niagara_solver.verify.crosscheck import compare
    board, rules = standard_board(), Ruleset()
    start = Position.initial(["red", "blue"], board, rules, lifebuoy=0)
    cards = {0: Card.CLOUD, 1: Card.ONE}
    case = CrossChecker(board, rules).round(start, cards)
    assert case.agrees and sorted(p.weather for p in case.engine) == [-1, 1]
    case = CrossChecker(board, rules, BY_NAME["cloud-two-steps"]).round(start, cards)
    assert case.disagrees
    assert sorted(p.weather for p in case.engine) == [-1, 1] and [p.weather for p in case.encoding] == [2]
    real = compare.legal_turns

    def no_step_down(pos, player, card=None):
        return [o for o in real(pos, player, card) if o.position.weather >= pos.weather]
    monkeypatch.setattr(compare, "legal_turns", no_step_down)
    case = CrossChecker(board, rules).round(start, cards)
    assert case.disagrees
    assert [p.weather for p in case.engine] == [1] and sorted(p.weather for p in case.encoding) == [-1, 1]


def test_a_comparison_past_its_time_limit_is_unknown_not_an_agreement():
    # --timeout holds: a comparison whose time runs out is UNKNOWN (neither agreement nor mismatch, not counted
    # among the cases compared), and the run's verdict is UNKNOWN (exit 3), never a pass.
    from niagara_solver.model.verdict import Verdict
    from helpers import P, position
    pos = position(P("red", "4:ruby", "port", card=2), P("blue", "port", "port", card=3))
    case = CrossChecker(standard_board(), Ruleset(), timeout=1e-9).turn(pos, 0, pos.players[0].card)
    assert case.unknown is not None and not case.agrees and not case.disagrees and case.encoding == {}
    assert case.engine  # the engine's side is known
    report = crosscheck(standard_board(), Ruleset(), count=1, seed=0, goals=False, rounds=False, timeout=1e-9)
    assert report.mismatches == [] and report.verdict is Verdict.UNKNOWN and report.verdict.exit_status == 3
    kinds = {item["kind"] for item in report.unknown}
    assert {"turn", "rescue"} <= kinds and "turn" not in report.cases
    assert all(item["source"].startswith("playout") for item in report.unknown)
    # Flows under alternation and the end check leave the encoding no choice once pinned: they are evaluated, not
    # asked, and count.
    assert report.cases["flow"] == 10 and report.cases["end"] == 1 and "end" not in kinds


def test_goal_positions_are_kept_in_a_cache_keyed_by_the_question(tmp_path, monkeypatch):
    from niagara_solver.verify.crosscheck import goal_answers, goals
    names = ["rescue-with-an-empty-bank", "two-players-reach-the-goal"]
    searched = list(goal_answers(standard_board(), Ruleset(), names=names, cache=tmp_path))
    entries = list(tmp_path.glob("goals-*.json"))
    assert len(entries) == 1 and [a.status for a in searched] == [GoalStatus.MET, GoalStatus.MET]

    def no_search(*args, **kwargs):
        raise AssertionError("searched although the answers are kept")
    monkeypatch.setattr(goals, "_search", no_search)
    kept = list(goal_answers(standard_board(), Ruleset(), names=names, cache=tmp_path))
    assert [(a.goal.name, a.position, a.card, a.status) for a in kept] == \
        [(a.goal.name, a.position, a.card, a.status) for a in searched]
    # Another question (another ruleset, other goals) is another key: searched again.
    other = Ruleset.from_json({"rescue_when_none": "free"})
    with pytest.raises(AssertionError, match="searched"):
        list(goal_answers(standard_board(), other, names=names, cache=tmp_path))
    with pytest.raises(AssertionError, match="searched"):
        list(goal_answers(standard_board(), Ruleset(), names=names[:1], cache=tmp_path))
    # An entry that does not parse, or holds an invalid position, is not read: the goals are searched again.
    entries[0].write_text("{not json")
    with pytest.raises(AssertionError, match="searched"):
        list(goal_answers(standard_board(), Ruleset(), names=names, cache=tmp_path))
    data = {"key": entries[0].name[len("goals-"):-len(".json")],
            "answers": [{"goal": n, "status": "met", "position": {"format": "niagara-position/1"}, "card": None}
                        for n in names]}
    entries[0].write_text(json.dumps(data))
    with pytest.raises(AssertionError, match="searched"):
        list(goal_answers(standard_board(), Ruleset(), names=names, cache=tmp_path))


def test_the_expansion_rules_a_turn_exercises_are_read_from_its_notation():
    from helpers import P, doc
    from niagara_solver.engine.turns import legal_turns
    from niagara_solver.model.atoms import Card
    from niagara_solver.model.format import position_from_json
    from niagara_solver.verify.crosscheck import turn_rules
    # The worked example of tests/test_x_cards.py: 16 turns with the 1/2/3 card, each with its budget (X-CARDS-3).
    pos = position_from_json(doc(P("a", "port", "4:ruby"), P("b", "2:amber", "port"), ruleset={"x_cards": True}))
    found = [turn_rules(pos, o.turn, 0) for o in legal_turns(pos, 0, Card.ONE_TWO_THREE)]
    assert len(found) == 16 and all({"X-CARDS-3"} <= rules for rules in found)
    assert all("X-CARDS-4" in turn_rules(pos, o.turn, 0) for o in legal_turns(pos, 0, Card.LASSO))
    assert all(not any(r.startswith("X-") for r in turn_rules(pos, o.turn, 1)) for o in legal_turns(pos, 1, Card.TWO))


def test_a_cloud_turn_exercises_the_expansion_rules_it_triggers():
    # A cloud to +2 with the beaver off the river brings it on (X-BEAVER-1); a cloud down does not.
    from helpers import P, doc
    from niagara_solver.engine.turns import legal_turns
    from niagara_solver.model.atoms import Card
    from niagara_solver.model.format import position_from_json
    from niagara_solver.verify.crosscheck import turn_rules
    pos = position_from_json(doc(P("a", "port", "4:ruby"), P("b", "2:amber", "port"), ruleset={"x_beaver": True},
                                 weather=1))
    found = {str(o.turn): turn_rules(pos, o.turn, 0) for o in legal_turns(pos, 0, Card.CLOUD)}
    assert found == {"cloud up": {"R-TURN-2", "R-WEATHER-1", "X-BEAVER-1"}, "cloud down": {"R-TURN-2", "R-WEATHER-1"}}


def test_rules_of_modules_that_are_off_are_shown_as_not_applicable_with_the_reason():
    from niagara_solver.verify.crosscheck import goals_for, player_counts, unreachable_rules
    from niagara_solver.model.ruleset import PRESETS
    off = unreachable_rules(Ruleset())
    assert off["X-WHIRL-1"] == "x_whirl is off" and off["X-JOE-3"] == "x_joe is off"
    assert off["X-GEMS-1"].startswith("gems_per_colour is one count")
    # Once: the table promised a reason for every rule no case can exercise, and gave none for these.
    base = {r: why for r, why in off.items() if r.startswith("R-")}
    assert set(base) == {*(f"R-COMP-{i}" for i in range(1, 6)), *(f"R-BOARD-{i}" for i in range(1, 7)), "R-RESCUE-3",
                         "R-RESCUE-4"}
    assert base["R-COMP-1"] == "a component of every position, exercised by no phase (checked where positions are read)"
    assert base["R-BOARD-4"] == "the river's shape, one for both readings (checked where boards are read)"
    assert base["R-RESCUE-3"] == "rescue_when_none is pay_or_free: R-RESCUE-2 decides instead"
    assert base["R-RESCUE-4"] == "rescue_limit is each: its rule binds only away from that default"
    assert "R-RESCUE-4" not in unreachable_rules(Ruleset.from_json({"rescue_limit": "one"}))
    assert unreachable_rules(PRESETS["bga-2013-05-09"])["R-RESCUE-2"] == (
        "rescue_when_none is free: R-RESCUE-3 decides instead")
    rounds = set(unreachable_rules(Ruleset(), rounds=False)) - set(off)
    assert rounds == {"R-ROUND-1", "R-TURN-1", "R-BUOY-1"}
    rules = PRESETS["flussgeister"]
    assert {r for r in unreachable_rules(rules) if r.startswith("X-")} == {"X-JOE-1", "X-JOE-2", "X-JOE-3"}
    assert player_counts(rules) == [3, 4, 5, 6] and player_counts(Ruleset()) == [2, 3, 4, 5]
    assert {g.name for g in goals_for(rules)} - {g.name for g in GOALS} == {
        "one-two-three", "lasso-moors", "seven-and-lasso-in-the-flow", "double-canoe-loads-a-second-gem",
        "steal-two-gems", "cloud-brings-the-beaver", "beaver-over-the-falls", "take-the-moose", "moose-returns",
        "whirlpool-push-from-below", "whirlpool-push-over-the-falls", "stay-below-the-whirlpool",
        "whirlpool-over-the-falls", "whirlpool-comes-back", "put-back-onto-the-whirlpool"}
    joe = {g.name for g in goals_for(PRESETS["flussgeister-joe"])} - {g.name for g in goals_for(rules)}
    assert joe == {"take-joes-gem", "swap-with-joe", "give-joe-a-gem", "joe-over-the-falls-with-a-gem",
                   "joe-loads-and-paddles"}
    # A goal needing two modules is asked only with both on (the put-back onto the whirlpool needs the Lasso).
    assert "put-back-onto-the-whirlpool" not in {g.name for g in goals_for(Ruleset(x_whirl=True))}


WHIRL_GOALS = ["whirlpool-push-from-below", "whirlpool-push-over-the-falls", "stay-below-the-whirlpool",
               "whirlpool-over-the-falls", "whirlpool-comes-back", "put-back-onto-the-whirlpool"]
JOE_GOALS = ["take-joes-gem", "swap-with-joe", "give-joe-a-gem", "joe-over-the-falls-with-a-gem",
             "joe-loads-and-paddles"]


@pytest.mark.parametrize("module, names, rules", [
    ("x_whirl", WHIRL_GOALS, ("X-WHIRL-1", "X-WHIRL-2", "X-WHIRL-3", "X-WHIRL-4", "X-WHIRL-5", "X-CARDS-4")),
    ("x_joe", JOE_GOALS, ("X-JOE-1", "X-JOE-2", "X-JOE-3")),
])
def test_the_whirlpools_and_joes_goals_make_each_of_their_rules_matter(module, names, rules):
    # Each goal is met by a position on which engine and encoding agree, and together they exercise every rule of
    # the module (the Lasso is on for the put-back onto the whirlpool, X-WHIRL-4).
    ruleset = Ruleset.from_json({module: True, "x_cards": True})
    report = crosscheck(standard_board(), ruleset, count=0, rounds=False, goals=names)
    assert report.mismatches == []
    # Under whirl_brink "avoid" no action is ever forced over the falls by a push: another action with the same
    # budget always exists (X-WHIRL-2), and the encoding proves it.
    unreachable = {"whirlpool-push-over-the-falls"} if module == "x_whirl" else set()
    assert report.goals == {n: GoalStatus.UNREACHABLE if n in unreachable else GoalStatus.MET for n in names}
    for rule in rules:
        assert report.coverage[rule] > 0, rule


def test_preprocessed_questions_find_the_outcomes_the_plain_solver_finds():
    # The question for other results goes to a solver that simplifies the pinned relation first (the default) or,
    # as before, to a plain solver: on seeded playout positions (each player's turns with every card of the hand,
    # under the standard rules and with the expansion's cards and Diamond Joe) and on a whole round, the two give
    # the same outcome sets, and a planted encoding bug (loading a gem costs no paddle point) still gives outcomes
    # the engine does not have.
    from niagara_solver.model.atoms import Card
    from niagara_solver.model.position import Position
    from niagara_solver.verify.crosscheck import playout_positions
    board = standard_board()

    def both(checker: CrossChecker, players: int, ask: Callable[..., Any], *args: Any) -> tuple[Any, Any]:
        """``ask(*args)`` with the question for other results simplified first, then plain: the relations are built
        and asserted once for both (only the solver of that question differs, IncrementalEnumerator.preprocess)."""
        incremental = checker.incremental(players)
        answers = []
        for preprocess in (True, False):
            incremental.preprocess = preprocess
            answers.append(ask(*args))
        return answers[0], answers[1]
    compared = 0
    for rules in (Ruleset(), Ruleset.from_json({"x_cards": True, "x_joe": True})):
        checker = CrossChecker(board, rules)
        for _, rec in playout_positions(board, rules, 2, 7):
            pos = rec.turns_start
            for player in (i for i in range(len(pos.players)) if i not in pos.acted):
                chosen = pos.players[player].card
                for card in [chosen] if chosen is not None else sorted(pos.players[player].hand)[:2]:
                    new, old = both(checker, len(pos.players), checker.turn, pos, player, card)
                    assert new.unknown is None and old.unknown is None
                    assert set(new.encoding) == set(old.encoding) == set(new.engine), new.describe()
                    compared += 1
    assert compared >= 8
    rules = Ruleset()
    start = Position.initial(["red", "blue"], board, rules, lifebuoy=1)
    cards = {0: Card.TWO, 1: Card.CLOUD}
    checker = CrossChecker(board, rules)
    new, old = both(checker, 2, checker.round, start, cards)
    assert new is not None and old is not None and new.agrees
    assert set(new.encoding) == set(old.encoding)
    from helpers import P, position
    pos = position(P("red", "4:ruby", "port", card=2), P("blue", "port", "port", card=3))
    for preprocess in (True, False):
        case = CrossChecker(board, rules, BY_NAME["free-loading"], preprocess=preprocess).turn(pos, 0, Card.TWO)
        assert case.disagrees and set(case.encoding) - set(case.engine)


@pytest.mark.rule("R-STEAL-1")
def test_the_encodings_turns_name_the_victim_and_the_canoe_as_the_position_does():
    # The symbolic positions seat the standard colours; a turn decoded at a position whose players have other
    # names names the victim by the position's name, as the engine's notation does. And where the model chose the
    # other canoe order (the relation's swap), the acting canoe is still the one on 4, not the one in the port.
    from helpers import P, position
    from niagara_solver.encoding.enumerate import IncrementalEnumerator
    from niagara_solver.engine.turns import legal_turns
    from niagara_solver.model.atoms import Card
    pos = position(P("ann", "4", "port"), P("bob", "3:ruby", "port"))
    engine = {o.position: str(o.turn) for o in legal_turns(pos, 0, Card.ONE)}
    encoding = IncrementalEnumerator.of(pos).check_turns(pos, 0, Card.ONE, {})
    assert set(encoding) == set(engine) and "4: <3 xbob/ruby" in engine.values()
    steals = [encoding[after] for after, turn in engine.items() if "xbob" in turn]
    assert len(steals) == 2 and all("4: <3 xbob/ruby" in label and "blue" not in label for label in steals), steals


def test_crosscheck_in_two_processes_reports_what_one_process_reports(shared):
    # --jobs: the goal positions are found first, in this process; each position is compared in a pool of two
    # spawned processes. The report is the same, case for case, its seconds aside. (With ``shared``, the goal
    # positions are found once for both runs, as the same question; the pool's comparisons are its own.)
    args = dict(count=2, seed=1, goals=["steal", "fall-with-a-gem", "steal-a-stolen-gem"], rounds=True, timeout=120)
    one, two = (crosscheck(standard_board(), Ruleset(), jobs=jobs, **args).to_json() for jobs in (1, 2))
    one.pop("seconds"), two.pop("seconds")
    assert one == two
    assert one["positions"] == 7 and one["mismatches"] == [] and one["unknown"] == []
    assert one["cases"]["round"] >= 2 and one["cases"]["turn"] >= 4 and one["cases"]["flow"] >= 20


def test_a_planted_bug_is_found_with_jobs_too():
    # A mutant stays in this process (the pool is for the plain encoding); the bug is found and shrunk as before.
    report = crosscheck(standard_board(), Ruleset(), count=0, rounds=False, mutant=BY_NAME["fork-marker-stuck"],
                        goals=["odd-flow-with-canoes-in-both-branches"], jobs=2)
    assert report.mismatches and all(m.case.kind == "flow" for m in report.mismatches)
