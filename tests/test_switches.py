"""Every ruleset switch of RULES.md: a position where its two values give different outcome sets, exactly.

Each such test is registered under its switch (:func:`shows`); a switch with no test here must have a ``diff``
witness test (tests/test_designer.py, ``WITNESS_VALUES``), and one with neither fails
:func:`test_every_switch_is_shown_to_change_what_may_happen`. The switch table of docs/RULES.md (the one table;
docs/FORMAT.md refers to it) is checked against the rows of the switches (``niagara_solver.model.switches``).
"""

import json
import os
import re
from typing import Callable

import pytest

from helpers import P, assert_turns, notations, pending_switches, position
from niagara_solver.engine.apply import apply_turn
from niagara_solver.engine.flow import flow_outcomes, flow_value
from niagara_solver.engine.rescue import apply_rescue, begin_turns, rescue_options
from niagara_solver.engine.round import end_round, winners
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.errors import IllegalTurnError, NiagaraError, PositionError, RulesetError
from niagara_solver.model.atoms import Card, Colour
from niagara_solver.model.notation import Rescue, Turn
from niagara_solver.model.position import Canoe
from niagara_solver.model.ruleset import PRESETS, SWITCHES, Ruleset
from niagara_solver.model.switches import GemCount, Integer, Place

DOCS = os.path.join(os.path.dirname(__file__), "..", "docs")

#: Switch -> the test here that shows its values giving different outcomes.
OUTCOME_TESTS: dict[str, Callable[[], None]] = {}


def shows(switch: str) -> Callable[[Callable[[], None]], Callable[[], None]]:
    """Register a test as the one showing that ``switch``'s values give different outcomes."""
    assert switch in SWITCHES, switch

    def register(test: Callable[[], None]) -> Callable[[], None]:
        OUTCOME_TESTS[switch] = test
        return test
    return register


def with_rules(rules, *players, **fields):
    return position(*players, ruleset=rules, **fields)


@shows("steal_after_unload")
def test_steal_after_unload():
    players = (P("a", "4:ruby", "fallen"), P("b", "2:amber", "port"))
    common = ["4: <port", "4: >6L -ruby", "4: >6R -ruby", "4: -ruby <2", "4: -ruby >6L", "4: -ruby >6R",
              "4: -ruby +diamond"]
    assert_turns(with_rules({"steal_after_unload": True}, *players), "a", 4, common + ["4: -ruby <2 xb/amber"])
    assert_turns(with_rules({"steal_after_unload": False}, *players), "a", 4, common)


@shows("rescue_when_none")
def test_rescue_when_none():
    players = (P("a", "fallen", "fallen", bank={"ruby": 1}), P("b", "port", "port"))
    pay = with_rules({"rescue_when_none": "pay_or_free"}, *players, phase="cards")
    free = with_rules({"rescue_when_none": "free"}, *players, phase="cards")
    assert [str(r) for r in rescue_options(pay, 0)] == ["ruby"]
    assert [str(r) for r in rescue_options(free, 0)] == ["free", "free,ruby"]


@shows("rescue_limit")
@pytest.mark.rule("R-RESCUE-4")
def test_rescue_limit():
    # R-RESCUE-4: with two fallen canoes and two gems, "each" may buy both back, "one" at most one; with no canoe in
    # play one must come back (R-RESCUE-2) and the other waits for a later round.
    players = (P("a", "fallen", "fallen", bank={"ruby": 1, "amber": 1}), P("b", "port", "port"))
    each = with_rules({"rescue_limit": "each"}, *players, phase="cards")
    one = with_rules({"rescue_limit": "one"}, *players, phase="cards")
    assert [str(r) for r in rescue_options(each, 0)] == ["amber", "ruby", "amber,ruby"]
    assert [str(r) for r in rescue_options(one, 0)] == ["amber", "ruby"]
    after = begin_turns(one, {0: Rescue((Colour.RUBY,))})
    assert after.players[0].canoes == (Canoe("port"), Canoe("fallen")) and after.players[0].bank.total == 1
    with pytest.raises(IllegalTurnError) as err:
        apply_rescue(one, 0, Rescue((Colour.AMBER, Colour.RUBY)))
    assert err.value.rule == "R-RESCUE-4"
    # The free canoe (rescue_when_none: free) is the one canoe: no second may be bought with it.
    free = {"rescue_when_none": "free"}
    assert [str(r) for r in rescue_options(with_rules(free, *players, phase="cards"), 0)] == [
        "free", "free,amber", "free,ruby"]
    assert [str(r) for r in rescue_options(with_rules({**free, "rescue_limit": "one"}, *players, phase="cards"), 0)] \
        == ["free"]
    # One fallen canoe and one in play: the limit changes nothing.
    single = (P("a", "fallen", "3", bank={"ruby": 2}), P("b", "port", "port"))
    for value in ("each", "one"):
        assert [str(r) for r in rescue_options(with_rules({"rescue_limit": value}, *single, phase="cards"), 0)] == [
            "none", "ruby"]


@shows("port_departure")
def test_port_departure():
    players = (P("a", "port", "port"), P("b", "port", "port"))
    assert_turns(with_rules({"port_departure": "exactly_one"}, *players), "a", 1, ["port: >1"])
    assert_turns(with_rules({"port_departure": "at_most_one"}, *players), "a", 1, ["stay", "port: >1"])


@shows("bank_after_load")
def test_bank_after_load():
    players = (P("a", "3", "fallen"), P("b", "port", "port"))
    common = ["3: <port", "3: >6L +sapphire", "3: >6R +sapphire", "3: +amethyst >6L", "3: +amethyst >6R"]
    assert_turns(with_rules({"bank_after_load": True}, *players), "a", 5, common + ["3: +amethyst <port"])
    assert_turns(with_rules({"bank_after_load": False}, *players), "a", 5, common)


@shows("must_move")
def test_must_move():
    players = (P("a", "4:ruby", "fallen"), P("b", "port", "port"))
    common = ["4: -ruby <2", "4: -ruby >6L", "4: -ruby >6R", "4: <port", "4: >6L -ruby", "4: >6R -ruby"]
    assert_turns(with_rules({"must_move": False}, *players), "a", 4, common + ["4: -ruby +diamond"])
    assert_turns(with_rules({"must_move": True}, *players), "a", 4, common)


@shows("min_flow")
def test_min_flow():
    def after_turns(rules):  # both players have played a 1 with the weather at -1 (sun)
        return with_rules(rules, P("a", "2", "port", hand=[2, 3], card=1), P("b", "port", "port", hand=[2], card=1),
                          weather=-1, acted=["a", "b"])
    zero, one = after_turns({"min_flow": 0}), after_turns({"min_flow": 1})
    assert (flow_value(zero), flow_value(one)) == (0, 1)
    assert end_round(zero).players[0].canoes == (Canoe("port"), Canoe("2"))
    assert end_round(one).players[0].canoes == (Canoe("port"), Canoe("3"))


@shows("fork_policy")
def test_fork_policy():
    players = (P("a", "5", "port"), P("b", "port", "port"))
    alternate = with_rules({"fork_policy": "alternate"}, *players, fork="L")
    free = with_rules({"fork_policy": "free"}, *players, fork="L")
    ends = lambda pos: {o.players[0].canoes[1].place for _, o in flow_outcomes(pos, 2)}  # noqa: E731
    assert ends(alternate) == {"6L"}
    assert ends(free) == {"6L", "6R", "7L", "7R"}


@shows("tiebreak")
def test_tiebreak():
    players = (P("a", "port", "port", bank={"ruby": 4}), P("b", "port", "port", bank={"amethyst": 7}))
    assert winners(with_rules({"tiebreak": "value"}, *players, phase="cards")) == (0,)   # 20 against 7
    assert winners(with_rules({"tiebreak": "count"}, *players, phase="cards")) == (1,)   # 4 gems against 7
    # "shared" (BSW): everyone who reached the goal wins; nobody else does.
    three = (*players, P("c", "port", "port", bank={"ruby": 3, "amber": 3}))
    assert winners(with_rules({"tiebreak": "shared"}, *three, phase="cards")) == (0, 1)
    assert winners(with_rules({"tiebreak": "value"}, *three, phase="cards")) == (0,)


@shows("gems_per_colour")
@pytest.mark.rule("X-GEMS-1")
def test_gems_per_colour():
    players = (P("a", "3", "fallen"), P("b", "port", "port", bank={"amethyst": 1}))
    assert_turns(with_rules({"gems_per_colour": 8}, *players), "a", 2, ["3: +amethyst", "3: <1", "3: >5"])
    assert_turns(with_rules({"gems_per_colour": 1}, *players), "a", 2, ["3: <1", "3: >5"])
    with pytest.raises(PositionError) as err:
        with_rules({"gems_per_colour": 6}, P("a", "port", "port", bank={"ruby": 7}), P("b", "port", "port"))
    assert err.value.rule == "R-COMP-3"
    # A table by player count (X-GEMS-1): the count of players picks the entry; a count without one is refused.
    table = {"gems_per_colour": {"2": 1, "3": 8}}
    assert_turns(with_rules(table, *players), "a", 2, ["3: <1", "3: >5"])
    three = with_rules(table, *players, P("c", "port", "port"))
    assert three.gems_per_colour == 8 and three.cave(Colour.RUBY).get(Colour.RUBY) == 8
    with pytest.raises(PositionError) as err:
        with_rules(table, *players, P("c", "port", "port"), P("d", "port", "port"))
    assert err.value.rule == "X-GEMS-1" and err.value.path == "ruleset.gems_per_colour"


@shows("x_sixth_player")
@pytest.mark.rule("X-SIX-1")
def test_x_sixth_player():
    # X-SIX-1: with the sixth player 3 to 6 play; without it 2 to 5.
    six = [P(name, "port", "port") for name in "abcdef"]
    with pytest.raises(PositionError) as err:
        with_rules({"x_sixth_player": False}, *six)
    assert err.value.rule == "X-SIX-1" and "x_sixth_player" in str(err.value)
    pos = with_rules({"x_sixth_player": True}, *six)
    assert pos.turn_order() == (0, 1, 2, 3, 4, 5)
    assert_turns(pos, "f", 2, ["port: >2"])
    with pytest.raises(PositionError) as err:
        with_rules({"x_sixth_player": True}, *six[:2])
    assert err.value.rule == "X-SIX-1"
    assert len(with_rules({"x_sixth_player": False}, *six[:2]).players) == 2


@shows("capacity")
def test_capacity():
    players = (P("a", "3:ruby", "fallen"), P("b", "port", "port"))
    assert_turns(with_rules({"capacity": 1}, *players), "a", 2, ["3: -ruby", "3: <1", "3: >5"])
    assert_turns(with_rules({"capacity": 2}, *players), "a", 2, ["3: -ruby", "3: +amethyst", "3: <1", "3: >5"])


@shows("gem_sides")
@pytest.mark.rule("R-MOVE-1")
def test_gem_sides():
    # R-MOVE-1: "both" lets a canoe unload, move, then load; "one" keeps its gem actions on one side of the
    # movement. A steal is not a gem action: unload, move, steal stays legal under both.
    players = (P("a", "5:ruby", "fallen"), P("b", "1:amber", "port"))
    common = ["5: -ruby +amber <3", "5: -ruby +amber >7L", "5: -ruby +amber >7R", "5: -ruby <1", "5: -ruby <1 xb/amber",
              "5: <3 -ruby +amethyst", "5: <port"]
    both, one = with_rules({"gem_sides": "both"}, *players), with_rules({"gem_sides": "one"}, *players)
    assert_turns(both, "a", 6, common + ["5: -ruby <3 +amethyst"])
    assert_turns(one, "a", 6, common)
    assert sorted(notations(both, "a", 6)) == sorted(common + ["5: -ruby <3 +amethyst"])
    assert sorted(notations(one, "a", 6)) == sorted(common)
    with pytest.raises(IllegalTurnError) as err:
        apply_turn(one, 0, Turn.parse("5: -ruby <3 +amethyst"), Card.SIX)
    assert err.value.rule == "R-MOVE-1"
    # A canoe that does not move (d = 0) has nothing to split: unload and load where it stands stays legal.
    still = (P("a", "4:ruby", "fallen"), P("b", "port", "port"))
    same = ["4: -ruby <2", "4: -ruby >6L", "4: -ruby >6R", "4: <port", "4: >6L -ruby", "4: >6R -ruby",
            "4: -ruby +diamond"]
    for sides in ("both", "one"):
        assert_turns(with_rules({"gem_sides": sides}, *still), "a", 4, same)


def test_capacity_two_steals_from_two_canoes():
    players = (P("a", "5", "fallen"), P("b", "3:ruby", "port"), P("c", "3:amber,diamond", "port"))
    pos = with_rules({"capacity": 2}, *players)
    steals = sorted(str(o.turn) for o in legal_turns(pos, 0, Card.TWO) if " x" in str(o.turn))
    assert steals == ["5: <3 xb/ruby", "5: <3 xb/ruby xc/amber", "5: <3 xb/ruby xc/diamond", "5: <3 xc/amber",
                      "5: <3 xc/diamond"]


def test_presets_and_unknown_switches():
    assert PRESETS["bga-2013-05-09"] == Ruleset(steal_after_unload=False, rescue_when_none="free")  # type: ignore[arg-type]
    assert Ruleset.from_json({"base": "bga-2013-05-09", "capacity": 2}).to_json() == {
        "base": "bga-2013-05-09", "capacity": 2}
    with pytest.raises(RulesetError) as err:
        Ruleset.from_json({"steal_after_unlaod": False})
    assert err.value.rule == "SWITCHES" and err.value.path == "ruleset.steal_after_unlaod"
    with pytest.raises(RulesetError) as err:
        Ruleset.from_json({"min_flow": 2})
    assert err.value.rule == "R-FLOW-2"


@shows("x_whirl")
def test_x_whirl():
    # X-WHIRL-2: a canoe ending its movement on the whirlpool (on 3) is pushed one disc down; without it, it stays.
    players = (P("a", "port", "fallen"), P("b", "port", "port"))
    assert_turns(position(*players, ruleset={"x_whirl": True}, whirlpool="3"), "a", 3, ["port: >3 ~4", "stay"])
    assert_turns(position(*players), "a", 3, ["port: >3", "stay"])


@pytest.mark.rule("X-WHIRL-1")
@shows("whirl_start")
def test_whirl_start():
    # X-WHIRL-1: the whirlpool starts on whirl_start's disc; on 3 the first canoe out with a 3 is pushed to 4.
    from niagara_solver.model.atoms import Phase
    from niagara_solver.model.position import Position
    for start, turns in (("3", ["port: >3 ~4"]), ("1", ["port: >3"])):
        pos = Position.initial(["a", "b"], ruleset=Ruleset.from_json({"x_whirl": True, "whirl_start": start}))
        assert pos.whirlpool == start
        assert sorted(notations(pos.replace(phase=Phase.TURNS), "a", 3)) == turns


@pytest.mark.rule("X-WHIRL-3")
@shows("whirl_cost_step")
def test_whirl_cost_step():
    # From 5 with 3 points, the whirlpool on 3: "enter" makes the step onto it cost 2 (1 + 2: onto it with the last
    # point, pushed to 4); "leave" makes only the step off it cost 2, so 3 points overshoot it and cannot stop there.
    players = (P("a", "5", "fallen"), P("b", "port", "port"))
    common = ["5: +amber <4", "5: +amber >6L", "5: +amber >6R", "5: <4 +diamond", "5: >6L +sapphire",
              "5: >6R +sapphire"]
    assert_turns(position(*players, ruleset={"x_whirl": True}, whirlpool="3"), "a", 3, [*common, "5: <3 ~4"])
    assert_turns(position(*players, ruleset={"x_whirl": True, "whirl_cost_step": "leave"}, whirlpool="3"), "a", 3,
                 common)


@pytest.mark.rule("X-WHIRL-2")
@shows("whirl_brink")
def test_whirl_brink():
    # A canoe on 6L with the whirlpool on 7L: pushed over the falls only with "allowed" (with "avoid" only where
    # every action falls, and here it may go up).
    players = (P("a", {"at": "6L", "gems": ["sapphire"]}, "fallen"), P("b", "port", "port"))
    assert_turns(position(*players, ruleset={"x_whirl": True}, whirlpool="7L"), "a", 1, ["6L: <5"])
    assert_turns(position(*players, ruleset={"x_whirl": True, "whirl_brink": "allowed"}, whirlpool="7L"), "a", 1,
                 ["6L: <5", "6L: >7L ~fallen"])


@pytest.mark.rule("X-JOE-3")
@shows("x_joe")
def test_x_joe():
    # X-JOE-3: a canoe that moved onto Diamond Joe's disc may take his gem; without Joe there is nothing to take.
    players = (P("a", "4", "fallen"), P("b", "port", "port"))
    assert_turns(position(*players, ruleset={"x_joe": True}, joe={"at": "3", "gem": "ruby"}), "a", 1,
                 ["4: <3", "4: <3 trade+ruby", "4: >5"])
    assert_turns(position(*players), "a", 1, ["4: <3", "4: >5"])


def test_every_switch_is_shown_to_change_what_may_happen():
    # A switch is shown to matter by an exact outcome test here or by a diff witness the engine confirms.
    from test_designer import WITNESS_VALUES
    assert set(OUTCOME_TESTS) <= set(SWITCHES) and set(WITNESS_VALUES) <= set(SWITCHES)
    # Pending: a switch with a value some reading does not cover yet (each reading refuses it:
    # tests/test_readings.py), and a module's own switches while the module is pending.
    pending = pending_switches()
    unshown = [name for name in SWITCHES if name not in OUTCOME_TESTS and name not in WITNESS_VALUES
               and name not in pending]
    assert unshown == [], f"switches with neither an outcome test here nor a diff witness test: {unshown}"
    assert all(OUTCOME_TESTS[name].__name__ == f"test_{name}" for name in OUTCOME_TESTS)


def test_every_switch_row_is_in_every_roster_read_from_the_rows():
    # The rosters that once listed switches by hand are read from the rows; each is held here to what the rows say,
    # so a row left out of one (a switch never drawn, never cross-checked, never witnessed, a module's piece allowed
    # without it) fails rather than going unnoticed.
    from strategies import SWITCH_VALUES
    from test_crosscheck import other_values
    from test_designer import WITNESS_VALUES
    from test_paddling import PHASE_II
    from niagara_solver.design.witnesses import MODULES as WITNESSED_BY_A_PUZZLE
    from niagara_solver.model.catalogue import RULES
    from niagara_solver.model.format import _MODULE_OF
    from niagara_solver.model.ruleset import MODULES
    from niagara_solver.verify.crosscheck.goals import GOALS
    from niagara_solver.verify.crosscheck.run import _FAMILIES
    from niagara_solver.verify.mutants import MUTANTS
    pending = pending_switches()
    goals = {g.name: g for g in GOALS}
    for name, row in SWITCHES.items():
        assert set(row.rules) <= set(RULES), name  # explanations and the coverage table name every rule it changes
        module = SWITCHES[row.of_module] if row.of_module else None
        in_base_game = module is None and "knowledge" not in row.phases and name not in pending
        # Hypothesis draws every value of a switch of the base game and of a module that brings nothing.
        assert SWITCH_VALUES[name] == (list(row.tries) if in_base_game or (module is not None and not module.pieces)
                                       else [row.tries[0]]), name
        assert (name in PHASE_II) == ("turn" in row.phases or (module is not None and "turn" in module.phases)), name
        assert WITNESS_VALUES.get(name) == (row.tries[1] if in_base_game else None), name
        assert other_values().get(name) == (row.tries[1] if in_base_game else None), name
        if row.phases[0] == "rescue":  # a goal position where the switch of phase I matters
            goal = goals[f"where-{name}-matters"]
            assert (goal.against, goal.switches, goal.rules) == (name, (name,), (row.rule,))
        if row.module:
            assert _FAMILIES[row.family] == name and (name in WITNESSED_BY_A_PUZZLE) == bool(row.pieces)
            assert all(_MODULE_OF[piece] == name for piece in row.pieces)
    assert list(MODULES) == [name for name, row in SWITCHES.items() if row.module]
    assert set(_MODULE_OF) == {piece for row in SWITCHES.values() for piece in row.pieces}
    # Every switch a mutant sets is a switch, at a value its row reads.
    for mutant in MUTANTS:
        assert all(SWITCHES[name].parse(value) is not None for name, value in mutant.switches), mutant.name


def _checklist() -> str:
    """The section "Checklist: adding a switch" of docs/ARCHITECTURE.md."""
    with open(os.path.join(DOCS, "ARCHITECTURE.md"), encoding="utf-8") as f:
        text = f.read()
    start = text.index("## Checklist: adding a switch")
    return text[start:text.index("\n## ", start)]


def test_every_file_that_reads_a_switch_is_named_in_the_switch_checklist():
    # docs/ARCHITECTURE.md sends the author of a new switch to every file that reads one (a ruleset's field,
    # ``rules.NAME``, ``pos.ruleset.NAME``): a file reading a switch that the checklist does not name fails here, and
    # so does a file the checklist names that no longer exists.
    package = os.path.join(os.path.dirname(__file__), "..", "niagara_solver")
    reads = re.compile(r"\b(?:rules|ruleset)\.(?:" + "|".join(SWITCHES) + r")\b")
    readers = set()
    for folder, _, files in os.walk(package):
        for file in files:
            if file.endswith(".py"):
                path = os.path.join(folder, file)
                with open(path, encoding="utf-8") as f:
                    if reads.search(f.read()):
                        readers.add(os.path.relpath(path, package).replace(os.sep, "/"))
    named = set(re.findall(r"`((?:[\w.]+/)*[\w.]+\.py)`", _checklist()))
    assert {"engine/rescue.py", "encoding/core.py", "solver/answers.py", "encoding/witness.py"} <= readers
    assert sorted(readers - named) == [], "files that read a switch and are not named in the checklist"
    root = os.path.join(package, "..")
    assert [n for n in named if not os.path.exists(os.path.join(package, n)) and not os.path.exists(
        os.path.join(root, n))] == [], "files the checklist names that do not exist"


def _switch_table(document: str) -> list[list[str]]:
    """The rows of the switch table of a document: the table whose header starts ``| switch | default``."""
    with open(os.path.join(DOCS, document), encoding="utf-8") as f:
        lines = f.read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| switch | default | other values | rules |"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def _json_cells(text: str) -> list[object]:
    """The values written as code in a cell (a switch named in a remark, such as `x_double`, is not a value)."""
    return [json.loads(code) for code in re.findall(r"`([^`]+)`", text) if code not in SWITCHES]


def test_the_switch_table_of_the_docs_is_the_switch_rows():
    # A row may name several switches (the modules of section X share one row).
    rows = [([cell.strip("`") for cell in row[0].split(", ")], *row[1:]) for row in _switch_table("RULES.md")]
    assert [name for row in rows for name in row[0]] == list(SWITCHES)
    for names, default, others, rules in rows:
        for name in names:
            switch = SWITCHES[name]
            assert _json_cells(default) == [switch.default_json], name
            values = switch.values
            if isinstance(values, Integer) and values.domain is None:  # no upper bound: "any ... ≥ LOW"
                assert re.fullmatch(rf"any (integer )?≥ {values.low}", others), name
            elif isinstance(values, GemCount):
                assert others == f"any ≥ {values.number.low}, or a table by player count", name
            elif isinstance(values, Place):
                assert others == "any main-bed place", name
            else:
                assert values.domain is not None
                assert _json_cells(others) == [v for v in values.domain if v != switch.default_json], name
            # A shared row names its rules by section; a switch's own row lists them all.
            assert rules == ("section X" if len(names) > 1 else ", ".join(switch.rules)), name


# -- the expansion's switches: each module's switch, and the modules' own switches (RULES.md section X) --------------

def _x(rules, *players, **fields):
    return position(*players, ruleset=rules, **fields)


@shows("x_cards")
def test_x_cards():
    # With the module the Lasso is a card of the hand and moors the river canoe (X-CARDS-4); without it, no such card.
    on = _x({"x_cards": True}, P("a", "4", "fallen", hand=["lasso", 1]), P("b", "port", "port"))
    assert notations(on, "a", "lasso") == ["lasso"]
    with pytest.raises(NiagaraError) as err:
        _x({}, P("a", "4", "fallen", hand=["lasso", 1]), P("b", "port", "port"))
    assert err.value.rule == "X-CARDS-1"


@shows("x_double")
def test_x_double():
    # A double canoe on 3 loads two amethysts with a 4 (X-DOUBLE-2); a single canoe there loads one at most.
    on = _x({"x_double": True}, P("a", {"kind": "double", "at": "3"}, {"kind": "single", "at": "fallen"}),
            P("b", {"kind": "single", "at": "port"}, {"kind": "double", "at": "port"}))
    off = _x({}, P("a", "3", "fallen"), P("b", "port", "port"))
    assert "3: +amethyst +amethyst" in notations(on, "a", 4)
    assert not [t for t in notations(off, "a", 4) if t.count("+") > 1]


@shows("x_beaver")
def test_x_beaver():
    # A cloud up to +2 brings the beaver onto the top disc (X-BEAVER-1); without the module nothing more happens.
    for rules, beaver in (({"x_beaver": True}, "1"), ({}, None)):
        pos = _x(rules, P("a", "4", "fallen", hand=["cloud"]), P("b", "port", "port"), weather=1)
        up = [o.position for o in legal_turns(pos, 0, Card.CLOUD) if o.position.weather == 2]
        assert [p.beaver for p in up] == [beaver]


@shows("x_moose")
def test_x_moose():
    # On a last disc, the waiting moose may be taken and gives 2 more points (X-MOOSE-1, X-MOOSE-2).
    on = _x({"x_moose": True}, P("a", "7L", "fallen"), P("b", "port", "port"))
    off = _x({}, P("a", "7L", "fallen"), P("b", "port", "port"))
    assert notations(off, "a", 1) == ["7L: <6L"]
    assert "7L: moose <4" in notations(on, "a", 1)


@shows("card_123_canoes")
def test_card_123_canoes():
    # With the 1/2/3 card one canoe acts ("one") or both river canoes act with the same budget ("all") (X-CARDS-3).
    def turns(value):
        pos = _x({"x_cards": True, "card_123_canoes": value}, P("a", "3", "5", hand=["123"]), P("b", "port", "port"))
        return {len(o.turn.actions) for o in legal_turns(pos, 0, Card.ONE_TWO_THREE)}
    assert turns("one") == {1} and turns("all") == {2}


@shows("lasso_scope")
def test_lasso_scope():
    # The Lasso moors every river canoe ("all") or the one chosen ("one") (X-CARDS-4).
    def turns(value):
        pos = _x({"x_cards": True, "lasso_scope": value}, P("a", "3", "5", hand=["lasso"]), P("b", "port", "port"))
        return notations(pos, "a", "lasso")
    assert turns("all") == ["lasso"] and turns("one") == ["lasso 3", "lasso 5"]


@shows("double_one_cave")
def test_double_one_cave():
    # A double canoe's gem actions at one cave only (true), or on both sides of its movement (false) (X-DOUBLE-2).
    def turns(value):
        pos = _x({"x_double": True, "double_one_cave": value},
                 P("a", {"kind": "double", "at": "3"}, {"kind": "single", "at": "fallen"}),
                 P("b", {"kind": "single", "at": "port"}, {"kind": "double", "at": "port"}))
        return notations(pos, "a", 5)
    assert "3: +amethyst >4 +diamond" in turns(False) and "3: +amethyst >4 +diamond" not in turns(True)


@shows("reveal")
def test_reveal():
    # The cards revealed at once let the first player dodge the thief (R-TURN-1; tests/test_reveal.py): the legal
    # moves are the same, the solver's answer differs.
    from test_reveal import dodge
    from niagara_solver.solver.answers import Goal
    from niagara_solver.solver.solve import answer_with
    assert answer_with(dodge("at_once"), 0, Goal.SAFE, 1, "search", 60).word == "yes"
    assert answer_with(dodge("in_turn"), 0, Goal.SAFE, 1, "search", 60).word == "no"
