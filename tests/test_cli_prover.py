"""The prover's commands: prove, mutants, why — outputs, JSON shapes and exit codes."""

import json
import os

from helpers import P, doc
from niagara_solver.cli.main import main
from niagara_solver.model.format import load_position, position_from_json

ROOT = os.path.join(os.path.dirname(__file__), "..")
ERRATUM = os.path.join(ROOT, "puzzles", "erratum-two-canoes.json")


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_prove_json_and_exit_zero(capsys):
    status, out, err = run(capsys, "prove", "--players", "2", "--property", "R-PROP-3", "--property", "R-PROP-8",
                           "--json")
    assert status == 0 and err == ""
    data = json.loads(out)
    assert [p["id"] for p in data["properties"]] == ["R-PROP-3", "R-PROP-8"]
    assert all(p["verdict"] == "proved" and p["players"] == {"2": "proved"} for p in data["properties"])
    assert {"id", "verdict", "seconds", "depends_on", "method"} <= set(data["properties"][0])


def test_prove_refuted_exits_one_with_a_counterexample_file(tmp_path, capsys):
    rules = tmp_path / "free.json"
    rules.write_text(json.dumps({"fork_policy": "free"}))
    status, out, _ = run(capsys, "prove", "--ruleset", str(rules), "--players", "2", "--property", "R-PROP-2",
                         "--json", "--save", str(tmp_path / "ce"))
    assert status == 1
    item = json.loads(out)["properties"][0]
    assert item["verdict"] == "refuted" and item["trace"] and item["counterexample"]["format"] == "niagara-position/1"
    position_from_json(item["counterexample"])
    saved = item["saved"]
    assert load_position(saved).ruleset.fork_policy.value == "free"
    picture = open(saved[:-len(".json")] + ".svg", encoding="utf-8").read()  # and its picture beside it
    assert picture.count('<g class="canoe"') == 4
    status, out, _ = run(capsys, "show", saved)  # the counterexample opens like any position
    assert status == 0 and "port" in out


def test_prove_text_and_bad_options(capsys):
    status, out, _ = run(capsys, "prove", "--players", "2", "--property", "R-PROP-11")
    assert status == 0 and "R-PROP-11" in out and "PROVED" in out
    assert run(capsys, "prove", "--property", "R-PROP-99")[0] == 2
    status, _, err = run(capsys, "prove", "--players", "7")
    assert status == 2 and "(R-COMP-1)" in err
    assert run(capsys, "prove", "--board", "nowhere.json")[0] == 2


def test_mutants_json(capsys):
    status, out, _ = run(capsys, "mutants", "--mutant", "two-gems", "--json")
    assert status == 0
    (item,) = json.loads(out)
    assert item["mutant"] == "two-gems" and item["killed"] is True and item["by"] == ["R-PROP-6"]
    assert item["counterexamples"][0]["trace"]


def test_why_illegal_names_the_rule(capsys):
    status, out, _ = run(capsys, "why", ERRATUM, "--player", "red", "--card", "5", "--turn", "4: <port; port: >6L")
    assert status == 0
    assert "ILLEGAL. Forbidden by:" in out
    assert ("  R-MOVE-3    A canoe spends exactly its budget, the card's points, unless it enters the port moving "
            "upstream, where the points left over are lost (R-MOVE-5).") in out.splitlines()
    assert "the engine refuses it" in out


def test_why_legal_shows_the_result(capsys):
    status, out, _ = run(capsys, "why", ERRATUM, "--player", "red", "--card", "5", "--turn",
                         "4: <3 -ruby +amethyst; port: >3 +ruby", "--json")
    data = json.loads(out)
    assert status == 0 and data["legal"] is True and data["agree"] is True
    after = position_from_json(data["position"])
    assert [c.describe() for c in after.players[0].canoes] == ["3 (amethyst)", "3 (ruby)"]


def test_why_explains_independent_reasons(tmp_path, capsys):
    file = tmp_path / "p.json"
    file.write_text(json.dumps(doc(P("a", "4:ruby", "fallen"), P("b", "2:amber", "port"))))
    status, out, _ = run(capsys, "why", str(file), "--player", "a", "--card", "2", "--turn", "4: <2 xb/amber",
                         "--json")
    data = json.loads(out)
    reasons = [[r["id"] for r in data["rules"]], *[[r["id"] for r in core] for core in data["also"]]]
    assert sorted(reasons) == [["R-STEAL-1"], ["R-STEAL-2"]]
    assert data["legal"] is False and "R-STEAL-1" in data["engine"]
