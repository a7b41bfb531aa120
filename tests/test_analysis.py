"""The analysis tables: steal chances, threats, fall risk and flows, on positions where they are known."""

from helpers import P, position
from niagara_solver.solver.analysis import analyze, flow_table, steal_table
from niagara_solver.solver.answers import Goal
from niagara_solver.solver.solve import answer_with, fall_risk, threats


def test_steal_chances_possible_and_sure():
    # Blue acts first and may rob green's amber on 2; either way a gem waits on 2 for red's 2.
    pos = position(P("blue", "3", "fallen", hand=[1]), P("red", "4", "fallen", hand=[2]),
                   P("green", "2:amber", "port", hand=[3]))
    table = steal_table(pos, 1)
    assert table["exact"] is True
    assert table["cards"]["2"] == {"possible": ["blue", "green"], "sure": []}
    answer = answer_with(pos, 1, Goal.STEAL, 1)
    assert answer.word == "yes" and answer.details["cards"]["2"]["a steal is sure"] is True


def test_threats_name_the_thief_and_its_cards():
    pos = position(P("red", "3:ruby", "fallen", hand=[1]), P("blue", "5", "6L", hand=[1, 2, 3, 4]))
    (entry,) = threats(pos, 0)
    assert entry == {"canoe": "3 (ruby)", "threats": [{"player": "blue", "cards": ["2", "3"]}]}


def test_fall_risk_follows_the_fork_marker():
    left = position(P("red", "7L:ruby", "port"), P("blue", "port", "port"), fork="L")
    right = position(P("red", "7L:ruby", "port"), P("blue", "port", "port"), fork="R")
    assert fall_risk(left, 0) == [{"canoe": "7L (ruby)", "falls at": [1, 2, 3, 4, 5, 6, 7, 8]}]
    assert fall_risk(right, 0) == [{"canoe": "7L (ruby)", "falls at": [2, 3, 4, 5, 6, 7, 8]}]
    free = position(P("red", "7L:ruby", "port"), P("blue", "port", "port"), ruleset={"fork_policy": "free"})
    assert fall_risk(free, 0) == [{"canoe": "7L (ruby)", "falls at": [], "may fall at": [1, 2, 3, 4, 5, 6, 7, 8]}]


def test_flow_table():
    pos = position(P("red", "port", "port", hand=[2, "cloud"]), P("blue", "port", "port", hand=[4, 5]), weather=1)
    rows = {r["smallest paddle"]: (r["flow now"], r["flow range with clouds"]) for r in flow_table(pos)}
    assert rows == {2: (3, [2, 4]), 4: (5, [4, 6]), 5: (6, [5, 7]), "only clouds": (1, [0, 2])}


def test_analysis_of_a_finished_game():
    pos = position(P("red", "port", "port", bank={"ruby": 4}), P("blue", "port", "port"), phase="cards")
    assert analyze(pos).to_json() == {"finished": True, "winners": ["red"]}


def test_a_no_answer_at_the_round_start_while_a_rival_must_choose_a_rescue():
    # Blue has no canoe in play and two colours banked: blue's rescue is a choice of blue's (R-RESCUE-2).
    # Red cannot win this round; the refutation starts at the round's start instead of guessing blue's rescue.
    pos = position(P("red", "3", "port", hand=[1, 2]),
                   P("blue", "fallen", "fallen", bank={"amethyst": 1, "amber": 1}, hand=[3]), phase="cards")
    answer = answer_with(pos, 0, Goal.WIN, 1)
    assert answer.word == "no"
    (refutation,) = answer.refutations
    assert refutation["option"] == "every choice of red"
    assert any("blue" in step and "rescue" in step for step in refutation["answer"])
