"""Certified answers (docs/SOLVER.md, "Certified answers"): the search writes the proof of its answer, the encoding
checks it alone. Certificates of bundled puzzles are accepted; tampered ones (a reply dropped, an illegal turn, a
wrong leaf) and one from a planted engine bug are refused, naming the node and the rule; saved ones load back."""

import dataclasses
import json
import os
from typing import Any

import pytest

from helpers import P, lookahead_start, position
from niagara_solver.cli.main import main
from niagara_solver.encoding.relations import Relations
from niagara_solver.model.atoms import Card
from niagara_solver.model.errors import InputError
from niagara_solver.model.format import dumps_position, load_document
from niagara_solver.model.notation import Turn
from niagara_solver.model.readings import UncoveredRulesError
from niagara_solver.model.ruleset import Reveal
from niagara_solver.model.verdict import Verdict
from niagara_solver.solver import proof, search as search_module
from niagara_solver.solver.answers import Backend, Goal, has_steal
from niagara_solver.solver.certificate import CERTIFICATE_FORMAT, Certificate, CNode, Option, load_certificate, \
    loads_certificate
from niagara_solver.solver import certify as certify_module
from niagara_solver.solver.certify import check_certificate
from niagara_solver.solver.search import Search
from niagara_solver.solver.solve import solve_with

ROOT = os.path.join(os.path.dirname(__file__), "..")
FOLDER = os.path.join(ROOT, "puzzles")


def _puzzle(name):
    pos, extras = load_document(os.path.join(FOLDER, name))
    puzzle = extras["puzzle"]
    return pos, pos.index(puzzle["player"]), Goal(puzzle["goal"]), puzzle


def _certificate(name, horizon=None):
    pos, x, goal, puzzle = _puzzle(name)
    search = Search(x, goal, horizon or puzzle["horizon"], 120)
    value = search.value(pos).value
    return proof.certificate(search, pos, value)


def _replace_node(cert, index, node):
    nodes = list(cert.nodes)
    nodes[index] = node
    return dataclasses.replace(cert, nodes=tuple(nodes))


#: Bundled puzzles whose certificates the suite checks at horizons 1 and 2 (yes and no, every goal, rescues,
#: players before and after X, the flow between rounds); `make bench` checks every bundled puzzle.
CHECKED = [("win-two-gems-home.json", 1, "yes"), ("win-two-gems-home.json", 2, "yes"),
           ("win-denied-by-a-steal.json", 1, "no"), ("a-sure-steal.json", 1, "yes"),
           ("a-sure-steal.json", 2, "yes"), ("a-cloud-decides-a-fall.json", 1, "yes"),
           ("fork-parity-loses-the-canoe.json", 1, "no"), ("win-on-the-tie-break.json", 2, "yes"),
           ("the-game-is-over.json", 1, "yes")]


@pytest.mark.parametrize("name, horizon, word", CHECKED, ids=[f"{n}-h{h}" for n, h, _ in CHECKED])
def test_certificates_of_bundled_puzzles_are_accepted(name, horizon, word):
    cert = _certificate(name, horizon)
    assert cert.answer is (word == "yes")
    check = check_certificate(cert, timeout=300)
    assert check.verdict is Verdict.CONFIRMED, check.text()
    assert (check.node, check.rule, check.exit_status) == (None, "", 0)


def test_a_yes_certificate_names_the_recorded_card_and_turn():
    cert = _certificate("win-two-gems-home.json")
    # Red chooses its 2 blind, then paddles both canoes home (R-MOVE-5); blue, acting after, is the rest's question.
    card_node = cert.nodes[0]
    assert card_node.kind == "card" and [o.card for o in card_node.options] == [Card.TWO]
    turn_node = cert.nodes[card_node.options[0].then]
    assert turn_node.kind == "turn" and [str(o.turn) for o in turn_node.options] == ["1: <port; 2: <port"]
    leaf = cert.nodes[turn_node.options[0].then]
    assert (leaf.kind, leaf.claim, leaf.value) == ("leaf", "rest", True)


def test_a_no_certificate_covers_every_card_of_x():
    cert = _certificate("win-denied-by-a-steal.json")
    pos = cert.position
    red = pos.players[cert.x]
    cards = {o.card for n in cert.nodes if n.kind == "card" for o in n.options}
    assert cards == set(red.hand)
    # Blue's refuting reply, one per branch: the steal of red's ruby (R-STEAL-1) where red could still win, blue's
    # first turn (loading an amber) where a rescue paid with a banked gem already costs red the win (R-RESCUE-1).
    blue = [n for n in cert.nodes if n.kind == "turn" and n.player != cert.x]
    assert all(len(n.options) == 1 for n in blue)
    assert {str(n.options[0].turn) for n in blue} == {"5: <3 xred/ruby", "5: +amber"}


def test_a_dropped_option_of_x_is_refused():
    # A "no" must cover every option of X: drop one of red's turns and the encoding finds it.
    cert = _certificate("a-thief-behind-every-door.json")
    assert cert.answer is False
    index, node = next((i, n) for i, n in enumerate(cert.nodes) if n.kind == "turn" and n.player == cert.x)
    assert len(node.options) == 3
    tampered = _replace_node(cert, index, dataclasses.replace(node, options=node.options[1:]))
    check = check_certificate(tampered, timeout=300)
    assert check.verdict is Verdict.REFUTED and check.exit_status == 1
    assert (check.node, check.rule) == (index, "R-TURN-1")
    name = cert.position.players[cert.x].name
    assert check.reason.startswith(f"{name}'s turn ") and check.reason.endswith("is not covered (by the encoding)")


def test_a_dropped_card_of_x_is_refused():
    cert = _certificate("win-denied-by-a-steal.json")
    assert cert.nodes[0].kind == "rescue"  # red's rescue of its fallen canoe comes first (R-RESCUE-1)
    index, node = next((i, n) for i, n in enumerate(cert.nodes) if n.kind == "card")
    assert [o.card for o in node.options] == [Card.THREE, Card.FOUR]
    check = check_certificate(_replace_node(cert, index, dataclasses.replace(node, options=node.options[:1])))
    assert (check.verdict, check.node, check.rule) == (Verdict.REFUTED, index, "R-CARD-1")
    assert check.reason == "red's card 4 is not covered"


def test_a_dropped_reply_of_the_others_is_refused():
    # A "yes" must cover every reply of the others: two rounds ahead, the other player's turns of the second round.
    cert = _certificate("a-port-canoe-may-stay.json", 2)
    assert cert.answer
    index, node = next((i, n) for i, n in enumerate(cert.nodes) if n.kind == "turn" and n.player != cert.x
                       and len(n.options) > 1)
    tampered = _replace_node(cert, index, dataclasses.replace(node, options=node.options[:-1]))
    check = check_certificate(tampered, timeout=300)
    assert (check.verdict, check.node, check.rule) == (Verdict.REFUTED, index, "R-TURN-1")
    assert "is not covered (by the encoding)" in check.reason


def test_an_illegal_turn_of_x_is_refused_naming_the_rule_why_names():
    # Once: the check cited R-TURN-1 (players act in turn) where why cites R-MOVE-3 for the same turn, and wrote it
    # "red's turn 2: 1: >5; 2: <port", a card that reads as a disc.
    from niagara_solver.verify.why import why
    cert = _certificate("win-two-gems-home.json")
    index = cert.nodes[0].options[0].then
    node = cert.nodes[index]
    # With the 2 the canoe on disc 1 cannot paddle four discs down: it would spend 4 points of 2 (R-MOVE-3).
    turn = Turn.parse("1: >5; 2: <port")
    bad = dataclasses.replace(node.options[0], turn=turn)
    check = check_certificate(_replace_node(cert, index, dataclasses.replace(node, options=(bad,))))
    assert (check.verdict, check.node, check.rule) == (Verdict.REFUTED, index, "R-MOVE-3")
    assert check.reason == 'the encoding does not allow red\'s turn "1: >5; 2: <port" with the 2: forbidden by R-MOVE-3'
    assert why(cert.positions[node.at], 0, Card.TWO, turn).rules == ["R-MOVE-3"]  # the same rule, for the same turn
    assert check.text().startswith(f"certificate of a \"yes\" refused at node {index} (R-MOVE-3): the encoding")


def test_a_turn_written_in_an_order_the_rules_forbid_is_refused():
    # The encoding counts a stop's gem actions (GemActions); a certificate's turn is also held to the order it is
    # written in: loading into a full canoe before the unload that makes room is refused (R-GEM-2), the same
    # actions unloads first are accepted and lead where the engine says.
    from helpers import P, position
    from niagara_solver.engine.apply import apply_turn
    from niagara_solver.solver.certify import Refused, _Checker
    checker = _Checker(_certificate("win-two-gems-home.json"), None)  # the base game, 2 players
    pos = position(P("red", "3:ruby", "fallen", hand=[4]), P("blue", "port", "port", hand=[1]))
    good, bad = Turn.parse("3: -ruby +amethyst"), Turn.parse("3: +amethyst -ruby")
    after, steals = checker.pinned(5, pos, 0, Card.FOUR, good)
    engine = apply_turn(pos, 0, good, Card.FOUR).position
    assert (after.players[0].canoes, after.caves, steals) == (engine.players[0].canoes, engine.caves, False)
    with pytest.raises(Refused) as refused:
        checker.pinned(5, pos, 0, Card.FOUR, bad)
    assert (refused.value.node, refused.value.rule) == (5, "R-GEM-2")  # the rule why names for it
    from niagara_solver.verify.why import why
    assert why(pos, 0, Card.FOUR, bad).rules == ["R-GEM-2"]


def test_a_wrong_leaf_is_refused():
    cert = _certificate("win-two-gems-home.json")
    index = next(i for i, n in enumerate(cert.nodes) if n.kind == "leaf")
    leaf = cert.nodes[index]
    check = check_certificate(_replace_node(cert, index, dataclasses.replace(leaf, value=not leaf.value)))
    assert (check.verdict, check.node, check.rule) == (Verdict.REFUTED, index, "R-END-1")
    # The leaf is the certificate's only support: a "yes" whose leaf says "lost" is refused at the leaf.
    assert "the leaf claims rest False" in check.reason


def test_a_false_claim_that_the_goal_is_out_of_reach_is_refused():
    # Red's 2 takes both gems home (R-MOVE-5, R-END-1): a "no" claiming no turn of red reaches the goal is refused.
    cert = _certificate("win-two-gems-home.json")
    index = cert.nodes[0].options[0].then
    node = cert.nodes[index]
    leaf = CNode("leaf", node.at, claim="unreached", value=False)
    card = dataclasses.replace(cert.nodes[0], options=tuple(
        Option(index, card=c) for c in cert.position.players[cert.x].hand))
    tampered = dataclasses.replace(_replace_node(_replace_node(cert, index, leaf), 0, card), answer=False)
    check = check_certificate(tampered, timeout=300)
    assert check.verdict is Verdict.REFUTED and check.rule == "R-END-1"
    assert check.reason.endswith("reaches the goal (by the encoding)") and check.reason.startswith("red's turn")


def test_a_false_bound_on_what_x_banks_is_refused():
    # Red's 2 takes both gems home (R-MOVE-5, R-GEM-5): a "no" whose leaf bounds what red's turn banks at 1 gem is
    # refused; bounded at 2 the bound holds, and the leaf is refused for the goal in reach (R-END-1) instead.
    cert = _certificate("win-two-gems-home.json")
    index = cert.nodes[0].options[0].then
    node = cert.nodes[index]
    card = dataclasses.replace(cert.nodes[0], options=tuple(
        Option(index, card=c) for c in cert.position.players[cert.x].hand))

    def bounded(gems: int) -> object:
        leaf = CNode("leaf", node.at, claim="bound", value=False, gems=gems)
        tampered = dataclasses.replace(_replace_node(_replace_node(cert, index, leaf), 0, card), answer=False)
        return check_certificate(tampered, timeout=300)
    low = bounded(1)
    assert (low.verdict, low.node, low.rule) == (Verdict.REFUTED, index, "R-GEM-5")
    assert low.reason.startswith("red's turn \"") and low.reason.endswith(
        "\" with the 2 banks more than 1 gem(s) (by the encoding)")
    high = bounded(2)
    assert (high.verdict, high.node, high.rule) == (Verdict.REFUTED, index, "R-END-1")
    assert high.reason == "red's bank may reach the goal with 2 more gem(s)"


def test_a_certificate_from_a_planted_engine_bug_is_refused(monkeypatch):
    # The engine forgets every steal (R-STEAL-1): blue can no longer rob red's ruby, so the search answers "yes"
    # for red in win-denied-by-a-steal. Its certificate lists blue's replies without the steal, and the encoding
    # finds it.
    real = search_module.legal_turns

    def no_steals(pos, player, card=None):
        return [o for o in real(pos, player, card) if not has_steal(o.turn)]
    monkeypatch.setattr(search_module, "legal_turns", no_steals)
    monkeypatch.setattr(proof, "legal_turns", no_steals)
    cert = _certificate("win-denied-by-a-steal.json")
    assert cert.answer is True
    check = check_certificate(cert, timeout=300)
    assert check.verdict is Verdict.REFUTED and check.rule == "R-TURN-1"
    node = cert.nodes[check.node]
    assert node.kind == "turn" and node.player == 0  # blue's reply, not covered
    # Whichever turn the encoding names (its model picks one, and which one depends on what the process asked z3
    # before), it is a turn of blue robbing red's ruby.
    assert check.reason.startswith("blue's turn \"") and check.reason.endswith(
        "\" with the 2 is not covered (by the encoding)")
    assert "xred/ruby" in check.reason


def test_a_certificate_is_saved_and_loaded_back(tmp_path):
    cert = _certificate("win-denied-by-a-steal.json")
    path = tmp_path / "red.cert.json"
    cert.save(path)
    again = load_certificate(path)
    assert again == cert
    data = json.loads(path.read_text())
    assert data["format"] == CERTIFICATE_FORMAT
    assert data["question"] == {"player": "red", "goal": "win", "horizon": 1, "answer": "no"}


def test_a_malformed_certificate_is_refused_as_input(tmp_path):
    cert = _certificate("win-two-gems-home.json")
    data = cert.to_json()
    data["nodes"][0]["options"][0]["then"] = 99
    with pytest.raises(InputError) as err:
        loads_certificate(json.dumps(data))
    assert (err.value.path, err.value.rule) == ("nodes[0].options[0].then", "CERTIFICATE")
    data = cert.to_json()
    data["format"] = "niagara-certificate/0"
    with pytest.raises(InputError) as err:
        loads_certificate(json.dumps(data))
    assert err.value.path == "format"


def test_rules_the_encoding_does_not_cover_are_refused_as_the_smt_backend_does(tmp_path):
    # reveal: "at_once" (R-TURN-1): the search answers it, the encoding's levels follow the cards revealed in turn.
    pos, x, goal, _ = _puzzle("win-two-gems-home.json")
    pos = pos.replace(ruleset=dataclasses.replace(pos.ruleset, reveal=Reveal.AT_ONCE))
    cert = Certificate(x, goal, 1, True, (pos,), (CNode("leaf", 0, claim="rest", value=True),))
    with pytest.raises(UncoveredRulesError) as err:
        check_certificate(cert)
    assert (err.value.path, err.value.rule) == ("ruleset.reveal", "R-TURN-1")
    rules = tmp_path / "at-once.json"
    rules.write_text(json.dumps({"base": "standard", "reveal": "at_once"}))
    assert main(["solve", os.path.join(FOLDER, "win-two-gems-home.json"), "--player", "red", "--goal", "win",
                 "--ruleset", str(rules), "--backend", "both"]) == 2


def test_a_check_out_of_time_is_unknown_never_accepted():
    cert = _certificate("win-denied-by-a-steal.json")
    check = check_certificate(cert, timeout=0.001)
    assert check.verdict is Verdict.UNKNOWN and check.exit_status == 3


def test_both_backends_means_the_search_and_its_certificate_checked():
    pos, x, goal, _ = _puzzle("win-two-gems-home.json")
    solution = solve_with(pos, x, goal, 1, Backend.BOTH, timeout=300)
    assert [a.backend for a in solution.answers] == ["search", "certificate"]
    assert [a.word for a in solution.answers] == ["yes", "yes"]
    assert solution.check is not None and solution.check.verdict is Verdict.CONFIRMED
    assert solution.agree and solution.exit_status == 0
    assert solution.to_json()["certificate"]["verdict"] == "accepted"


def test_the_certify_command(tmp_path, capsys):
    path = os.path.join(FOLDER, "win-two-gems-home.json")
    cert = tmp_path / "red.cert.json"
    assert main(["solve", path, "--player", "red", "--goal", "win", "--certificate", str(cert)]) == 0
    capsys.readouterr()
    assert main(["certify", path, str(cert), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "accepted"
    # Tampered: red's chosen card is one red does not hold (R-CARD-2).
    data = json.loads(cert.read_text())
    data["nodes"][0]["options"][0]["card"] = 6
    cert.write_text(json.dumps(data))
    assert main(["certify", path, str(cert)]) == 1
    assert "refused at node 0 (R-CARD-2): red has no 6 in hand" in capsys.readouterr().out
    # Another position's certificate, or no certificate at all: bad input, one line, no traceback.
    other = os.path.join(FOLDER, "win-denied-by-a-steal.json")
    assert main(["solve", other, "--player", "red", "--goal", "win", "--certificate", str(cert)]) == 0
    capsys.readouterr()
    assert main(["certify", path, str(cert)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "positions[0]" in err and "CERTIFICATE" in err
    cert.write_text("{}")
    assert main(["certify", path, str(cert)]) == 2
    err = capsys.readouterr().err
    assert str(cert) in err and "format" in err and "Traceback" not in err


def test_both_backends_on_the_command_line(capsys):
    path = os.path.join(FOLDER, "win-two-gems-home.json")
    assert main(["solve", path, "--player", "red", "--goal", "win", "--backend", "both", "--timeout", "300"]) == 0
    out = capsys.readouterr().out
    assert "backends: search YES (" in out and ", certificate YES (" in out
    assert 'certificate of a "yes" accepted (3 nodes' in out
    assert Option(0).to_json() == {"then": 0}


def test_the_flat_api_certifies(tmp_path):
    import niagara_solver as ns
    pos = ns.load_position(os.path.join(FOLDER, "win-two-gems-home.json"))
    path = tmp_path / "red.cert.json"
    assert ns.solve(pos, "red", "win", certificate=path).answer.word == "yes"
    check = ns.certify(pos, path)
    assert (check.word, check.exit_status, check.answer) == ("accepted", 0, True)


def test_a_certificate_asked_for_and_not_written_is_said_and_exits_3(tmp_path, capsys):
    # Out of time before the search answers: no file, and the command says why instead of exiting 0. The
    # question is one of the fixed set of benchmarks/bench_horizon.py still unanswered after 60 s, so a one-second
    # limit runs out on any machine (a question the bounds decide at once would not).
    path = tmp_path / "position.json"
    path.write_text(dumps_position(lookahead_start(3, 501, 6)))
    out = tmp_path / "p0.certificate"
    status = main(["solve", str(path), "--player", "p0", "--goal", "safe",
                   "--horizon", "3", "--timeout", "1", "--certificate", str(out)])
    text = capsys.readouterr().out
    assert status == 3 and not out.exists()
    assert "certificate UNKNOWN" in text and "no certificate written" in text


def banked_home():
    """Red carries a ruby on disc 1 with a 1 to play, acting first: home, it banks the ruby, and its bank alone keeps
    its count whatever blue does after it (safe, horizon 1)."""
    pos = position(P("red", "1:ruby", "port", card=1), P("blue", "port", "3", card=2), lifebuoy="red")
    search = Search(0, Goal.SAFE, 1, 60)
    assert search.value(pos).value is True
    return proof.certificate(search, pos, True)


def test_a_safe_leaf_where_the_bank_keeps_the_count_needs_no_question_per_position(monkeypatch):
    # X's bank is at least the count X started with: the others' turns and the flow never change it (two rules
    # proved once), so the leaf holds without asking the chain of the others' turns and the flow.
    cert = banked_home()
    assert [n.claim for n in cert.nodes if n.kind == "leaf"] == ["rest"]
    monkeypatch.setattr(certify_module._Checker, "chain", lambda self, order: pytest.fail("the chain was asked"))
    check = check_certificate(cert, timeout=300)
    assert check.verdict is Verdict.CONFIRMED, check.reason


def test_a_flow_that_changes_a_bank_breaks_that_leaf(monkeypatch):
    # A planted bug in the encoding: the flow takes a gem from red's bank. The rule the leaf leans on is asked, not
    # assumed, and the leaf is refused with it.
    cert = banked_home()
    real = Relations.flow

    def bugged(self, *args, **kwargs):
        step = real(self, *args, **kwargs)
        bank = [list(row) for row in step.post.bank]
        bank[0][4] = bank[0][4] - 1
        step.post = dataclasses.replace(step.post, bank=bank)
        return step
    monkeypatch.setattr(Relations, "flow", bugged)
    monkeypatch.setattr(certify_module, "_KEPT", {})
    check = check_certificate(cert, timeout=300)
    assert (check.verdict, check.rule) == (Verdict.REFUTED, "R-FLOW-6")
    assert check.reason == "by the encoding the flow can change red's bank"


@pytest.mark.rule("X-DOUBLE-1")
def test_the_bound_counts_what_a_double_canoe_carries():
    # Red's single canoe carries an amethyst, its double canoe a ruby and a sapphire, on disc 1; its bank is empty and
    # its only card the cloud: nothing banked this round, at most three gems the next (its canoes carry three,
    # R-GEM-2, X-DOUBLE-1), too few for the goal within two rounds (R-END-1). The "no" ends at once in a bound leaf,
    # which the encoding accepts: a turn of red banks at most three gems. The bound once counted twice the capacity,
    # two gems, and the encoding refused it (a turn of red banks three).
    pos = position(P("red", "1:amethyst", {"kind": "double", "at": "1", "gems": ["ruby", "sapphire"]}, hand=["cloud"]),
                   P("blue", "port", {"kind": "double", "at": "port"}, hand=[1], bank={"amethyst": 1}),
                   phase="cards", lifebuoy="red", round=11, ruleset={"x_double": True})
    solution = solve_with(pos, 0, Goal.WIN, 2, Backend.BOTH, timeout=300)
    assert [a.word for a in solution.answers] == ["no", "no"]
    assert solution.check is not None and solution.check.verdict is Verdict.CONFIRMED, solution.check
    (refutation,) = solution.answer.refutations
    assert refutation["answer"] == ["red cannot reach the goal in time, even unhindered (R-END-1)"]
    assert refutation["reason"] == {"kind": "out-of-reach", "player": "red", "rounds": 2,
                                    "text": "red cannot reach the goal in time, even unhindered (R-END-1)"}


def test_a_lemma_proved_in_one_z3_context_is_not_asked_again_in_a_fresh_one(monkeypatch):
    # A lemma is a fact about the encoding of a board, ruleset and player count: proved once, it is not proved again
    # after a fresh z3 context (as jobs and the cross-check start), and the check gives the same verdict. Only the
    # lemma questions are saved: every other question is asked again in the new context.
    from niagara_solver.encoding.solver import fresh_context
    cert = banked_home()
    monkeypatch.setattr(certify_module, "_KEPT", {})  # nothing proved earlier in this process
    first = check_certificate(cert, timeout=300)
    proved = certify_module._kept(cert.position).proved
    by_check = len(proved)
    assert first.verdict is Verdict.CONFIRMED and by_check >= 2, proved
    certify_module.prepare(cert.position)  # the frames of the turns too
    assert any(kind == "frame" for kind, _ in proved), proved
    fresh_context()
    asked: list[str] = []
    real = certify_module.make_preprocessing_solver

    def made(*args, **kwargs):
        import inspect
        asked.append(inspect.stack()[1].function)
        return real(*args, **kwargs)
    monkeypatch.setattr(certify_module, "make_preprocessing_solver", made)
    second = check_certificate(cert, timeout=300)
    assert (second.verdict, second.node, second.rule, second.reason) == \
        (first.verdict, first.node, first.rule, first.reason)
    assert second.questions == first.questions - by_check
    certify_module.prepare(cert.position)
    assert "lemma" not in asked and "_holds" not in asked, asked
    assert certify_module._kept(cert.position).proved is proved


def test_the_lemmas_proved_before_a_planted_bug_are_known_again_after_it(monkeypatch):
    # A test planting a bug starts a table of kept terms of its own (certify._KEPT): it reads no lemma proved without
    # the bug and leaves none proved with it. Once it ends and the first table is back, so are the lemmas proved
    # beside that table, for every z3 context to come (certify._proved): they are not asked again.
    cert = banked_home()
    mine: dict[Any, Any] = {}
    monkeypatch.setattr(certify_module, "_KEPT", mine)
    certify_module.prepare(cert.position)
    proved = set(certify_module._kept(cert.position).proved)
    assert any(kind == "frame" for kind, _ in proved), proved
    with monkeypatch.context() as planted:
        planted.setattr(certify_module, "_KEPT", {})
        assert certify_module._kept(cert.position).proved == set()  # nothing proved without the bug is read
    assert certify_module._KEPT is mine
    assert certify_module._proved(cert.position) == proved
