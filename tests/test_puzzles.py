"""Every bundled puzzle is answered as recorded, by both backends; the backends agree on random positions and on a
question two rounds ahead.

The smt backend answers every bundled puzzle of horizon 1 here but win-denied-by-a-steal (the slowest; the search
answers it in test_solve_command, with its certificate checked by the encoding under ``--backend both``). The two
puzzles of horizon 2 take it minutes each (over 200 s), so their recorded answers are checked by the search backend,
and the two backends are compared two rounds ahead on a question of the same kind that the smt backend answers in
seconds (test_the_backends_agree_two_rounds_ahead). The smt backend's own card and turn, line and refutations are
replayed with the engine and confirmed by the search (:func:`assert_confirmed_by_the_engine`).
"""

import json
import os
import re
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import P, position
from niagara_solver.engine.apply import play_turn
from niagara_solver.engine.flow import flow_value, parse_choices
from niagara_solver.engine.paddling import TurnOutcome
from niagara_solver.engine.rescue import begin_turns
from niagara_solver.engine.round import end_round, winners
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import Phase
from niagara_solver.model.notation import Rescue, Turn
from niagara_solver.solver.answers import Goal, x_gems
from niagara_solver.solver.reasons import Reason
from niagara_solver.solver.search import PLAIN, Search
from niagara_solver.solver.solve import answer_with
from niagara_solver.cli.main import main
from niagara_solver.model.atoms import Card
from niagara_solver.model.puzzles import without_modules
from niagara_solver.model.format import load_document
from niagara_solver.model.position import Player
from niagara_solver.model.ruleset import SWITCHES
from strategies import SWITCH_VALUES, positions, rulesets
from test_reasons import Reached
from test_reasons import check as check_reason
from test_reasons import replay as replay_line

ROOT = os.path.join(os.path.dirname(__file__), "..")
FOLDER = os.path.join(ROOT, "puzzles")
PUZZLES = sorted(n for n in os.listdir(FOLDER)
                 if n.endswith(".json") and "puzzle" in json.load(open(os.path.join(FOLDER, n))))
#: The puzzles the smt backend answers in test_puzzle_answer (see the module's docstring for the others).
SMT_PUZZLES = [n for n in PUZZLES if json.load(open(os.path.join(FOLDER, n)))["puzzle"]["horizon"] == 1
               and n != "win-denied-by-a-steal.json"]


def test_there_are_at_least_twenty_puzzles_covering_the_required_themes():
    assert len(PUZZLES) >= 20
    names = " ".join(PUZZLES)
    for theme in ("two-gems", "denied-by-a-steal", "tie-break", "sure-steal", "steal-after-unloading", "fork-parity",
                  "cloud", "rescue", "port", "five-players", "long-river"):
        assert theme in names, theme


@pytest.mark.parametrize("name, backend", [pytest.param(n, b, id=f"{n}-{b}") for n in PUZZLES
                                           for b in ("search", "smt") if b == "search" or n in SMT_PUZZLES])
def test_puzzle_answer(name, backend):
    pos, extras = load_document(os.path.join(FOLDER, name))
    puzzle = extras["puzzle"]
    assert {"question", "player", "goal", "horizon", "answer", "explanation"} <= set(puzzle)
    answer = answer_with(pos, pos.index(puzzle["player"]), Goal(puzzle["goal"]), puzzle["horizon"], backend,
                         timeout=600)
    assert answer.word == puzzle["answer"], (name, backend)
    if backend == "search" and "card" in puzzle:
        assert answer.card is not None and answer.card.to_json() == puzzle["card"]
    if backend == "smt":  # the smt backend's own card and turn, or refutations, confirmed by the engine
        assert_confirmed_by_the_engine(pos, pos.index(puzzle["player"]), answer)


#: A player's card and turn in a line of play: "blue (2): 5: <3 xred/ruby", or the example of the others' answers.
_TURN = re.compile(r"^(\S+) \((\w+)\): (.+)$")
_FLOW = re.compile(r"^the river flows (\d+)(?: \((.*)\))?$")


def _replay(pos, x, items, goal, horizon):
    """The position after the steps of a line of play, each played by the engine (a turn the engine refuses is an
    error: the smt backend named an illegal one), and X's turn in it, if any, with the position before it and the
    count of X's gems then. Stops at the first step that is no player's choice (a reason)."""
    me = pos.players[x].name
    rescues = {}
    x_turn = None
    for item in items:
        item = item.removeprefix("whatever the others do, e.g. ")
        rescue = re.match(r"^(\S+) rescues (\S+)$", item)
        chosen = re.match(rf"^{re.escape(me)} chooses (\w+)$", item)
        turn, flow = _TURN.match(item), _FLOW.match(item)
        if rescue:
            rescues[pos.index(rescue[1])] = Rescue.parse(rescue[2])
            continue
        if pos.phase is Phase.CARDS and (chosen or turn):
            pos = begin_turns(pos, rescues)
        if chosen:
            card = Card.parse(chosen[1])
            pos = pos.with_player(x, replace(pos.players[x], card=card))
        elif turn:
            p, card = pos.index(turn[1]), Card.parse(turn[2])
            assert pos.next_to_act() == p, (item, pos.next_to_act())
            assert pos.players[p].card in (None, card), item
            after = play_turn(pos, p, turn[3], card)
            assert after in {o.position for o in legal_turns(pos, p, card)}, item
            if p == x and x_turn is None:
                x_turn = (pos, card, Turn.parse(turn[3]), x_gems(pos, x))
            pos = after
        elif flow:  # phases III and IV: the river flows as the cards say (branches as written), the next round
            steps = int(flow[1])
            assert flow_value(pos) == steps, item
            pos = end_round(pos, parse_choices(flow[2], pos, steps) if flow[2] else None)
            rescues = {}
        else:
            break
    return pos, x_turn


def assert_confirmed_by_the_engine(pos, x, answer, horizon=None):
    """An answer's card and turn (a "yes") or refutations (a "no"), confirmed by the engine and the search over it.

    A "yes": its line of play is legal for the engine up to X's first turn, which is the answer's turn with the
    answer's card, and the search confirms that this turn, there, achieves the goal whatever the others do after it.
    A "no": each card X may choose has a refutation; each refutation's line is legal for the engine; where it ends
    with X's turn and the others' replies (and the flow), the engine's position after them has X defeated (not among
    the winners, or a gem short); where it ends before X acts, the search confirms X cannot succeed from there.
    Every line ends with its reason, which holds where the line leads (tests/test_reasons.py's checks, kind by kind)."""
    goal, horizon = answer.goal, horizon or answer.horizon
    name = pos.players[x].name
    if answer.details.get("finished"):  # nothing to play: the game was over, with the winners the engine names
        won = winners(pos)
        assert answer.word == ("yes" if goal is Goal.WIN and x in won else "no")
        assert answer.reason is not None and answer.note == answer.reason.text()
        check_reason(answer.reason, Reached(pos, "start", horizon, None, []), x, goal, horizon)
        return
    if answer.word == "yes":
        assert answer.card is not None and answer.turn is not None and answer.line, answer
        before, x_turn = _replay(pos, x, answer.line, goal, horizon)
        assert x_turn is not None, answer.line
        at, card, turn, gems = x_turn
        assert (card, str(turn)) == (answer.card, str(answer.turn)), answer.line
        search = Search(x, goal, horizon, pruning=PLAIN)
        search.name, search.baseline = name, gems if goal is Goal.SAFE else None
        left = horizon - (at.round - pos.round)
        assert search._after_x(at, TurnOutcome(turn, play_turn(at, x, turn, card)), left).value, answer.line
        _reason_holds(pos, x, goal, horizon, answer.line, answer.reason)
        return
    assert answer.word == "no" and answer.refutations, answer
    me = pos.players[x]
    if me.card is None and x not in pos.acted:  # X chooses its card: each one is refuted
        chosen = {m[1] for r in answer.refutations if (m := re.search(r"plays (\w+)$", r["option"]))}
        assert chosen == {c.label for c in me.hand}, answer.refutations
    for r in answer.refutations:
        option = r["option"]
        start = pos
        rescue = re.match(rf"^{re.escape(name)} rescues (\S+), plays (\w+)$", option)
        plays = re.match(rf"^{re.escape(name)} plays (\w+)$", option)
        if rescue:
            start = begin_turns(pos, {x: Rescue.parse(rescue[1])})
        elif pos.phase is Phase.CARDS and plays:
            start = begin_turns(pos)
        card = Card.parse(rescue[2] if rescue else plays[1]) if rescue or plays else None
        if card is not None:
            start = start.with_player(x, replace(start.players[x], card=card))
        items = list(r["answer"])
        if option.startswith(f"{name}: "):  # X's card known and X first: the turn is the option
            items.insert(0, f"{name} ({start.players[x].card.label}): {option[len(name) + 2:]}")
        after, x_turn = _replay(start, x, items, goal, horizon)
        if x_turn is None:  # refuted before X acts: the search agrees X cannot succeed from here
            left = horizon - (after.round - pos.round)
            assert answer_with(after, x, goal, left, "search", timeout=120).word == "no", r
        elif goal is Goal.WIN:
            assert x not in winners(after), r
        elif goal is Goal.SAFE:
            assert x_gems(after, x) < x_turn[3], r
        else:
            raise AssertionError(f"a refutation of a steal names a turn of {name}: {r}")
        if re.fullmatch(rf"\d+ more turn\(s\) of {re.escape(name)} \(\w+\), each defeated too \(not listed\)",
                        items[-1]):
            continue  # the turns past the listed ones, counted: no line of its own
        _reason_holds(start, x, goal, horizon, items, Reason.from_json(r["reason"]))


def _reason_holds(start, x, goal, horizon, steps, reason):
    """The line ends with its reason, in its words, and the reason holds where the line, replayed, leads."""
    assert reason is not None and steps[-1] == reason.text(), (steps, reason)
    check_reason(reason, replay_line(start, x, goal, horizon, steps[:-1], reason.kind), x, goal, horizon)


#: The switches and values the backends are compared under on random positions: those of the base game before the
#: expansion's (no "shared" tie-break, no gem table, no sixth player). Under the later values the smt backend took
#: over 7 minutes on one drawn position (its speed is being worked on); those values are compared by the proofs
#: and the cross-check (tests/test_crosscheck.py) instead.
AGREEMENT_VALUES = {name: [v for v in values if v != "shared" and not isinstance(v, dict)]
                    for name, values in SWITCH_VALUES.items() if SWITCHES[name].rule.startswith("R-")
                    and name != "reveal"}


@settings(max_examples=6)
@given(positions(max_players=2, min_players=2, rules=rulesets(AGREEMENT_VALUES)), st.sampled_from(list(Goal)),
       st.data())
def test_the_backends_agree_on_random_positions(pos, goal, data):
    # Small hands keep the SMT backend's enumerations short.
    players = tuple(Player(p.name, p.canoes, p.hand[:2], p.bank, None) for p in pos.players)
    pos = pos.replace(players=players, acted=())
    x = data.draw(st.integers(0, 1))
    a = answer_with(pos, x, goal, 1, "search", timeout=120)
    b = answer_with(pos, x, goal, 1, "smt", timeout=600)
    assert a.verdict is b.verdict, (goal, a.verdict, b.verdict)
    assert a.word != "unknown", "an unknown answer agrees with nothing"


def test_the_backends_agree_two_rounds_ahead():
    # Red's canoe on 3 can carry a fourth amethyst home (R-END-1), but not this round, and next round only if red
    # paddles its 1 now: blue has played its 2, the smallest paddle sets the flow and the sun takes one off (R-FLOW-1),
    # so red's 2 now (up to 1) would let the river carry the canoe to 2, out of reach of red's last card, the 1.
    pos = position(P("red", "3:amethyst", "fallen", hand=[2, 1], bank={"amethyst": 3}),
                   P("blue", "2", "fallen", hand=[1], card=2), phase="turns", weather=-1, lifebuoy="blue",
                   acted=["blue"])
    now = [answer_with(pos, 0, Goal.WIN, 1, backend, timeout=120) for backend in ("search", "smt")]
    assert [a.word for a in now] == ["no", "no"]
    assert_confirmed_by_the_engine(pos, 0, now[1])  # each card refuted, read from the encoding
    search = answer_with(pos, 0, Goal.WIN, 2, "search", timeout=120)
    assert search.word == "yes" and search.card is Card.ONE and str(search.turn) == "3: <2"
    smt = answer_with(pos, 0, Goal.WIN, 2, "smt", timeout=120)  # a few seconds
    assert smt.word in ("yes", "unknown")
    if smt.word == "unknown":
        pytest.skip("the smt backend ran out of time two rounds ahead: no agreement shown")
    # The smt backend's own card and turn (the only ones: the 2 now leaves red out of reach next round).
    assert smt.card is Card.ONE and str(smt.turn) == "3: <2"
    assert_confirmed_by_the_engine(pos, 0, smt)


def test_solve_command(capsys):
    path = os.path.join(FOLDER, "win-two-gems-home.json")
    status = main(["solve", path, "--player", "red", "--goal", "win", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 0 and data["verdict"] == "yes" and data["card"] == 2 and data["turn"] == "1: <port; 2: <port"
    assert {"verdict", "player", "goal", "horizon", "card", "turn"} <= set(data)
    status = main(["solve", os.path.join(FOLDER, "win-denied-by-a-steal.json"), "--player", "red", "--goal", "win",
                   "--backend", "both", "--timeout", "600"])
    out = capsys.readouterr().out
    assert status == 0 and "NO" in out and "blue (2): 5: <3 xred/ruby" in out
    # The puzzle's recorded answer, with the search's certificate checked by the encoding (docs/SOLVER.md).
    assert "backends: search NO (" in out and ", certificate NO (" in out and 'certificate of a "no" accepted' in out
    assert main(["solve", path, "--player", "nobody", "--goal", "win"]) == 2


EXPANSION = os.path.join(FOLDER, "expansion")
#: The expansion's puzzles (RULES.md section X), each a question a module decides.
EXPANSION_PUZZLES = sorted(n for n in os.listdir(EXPANSION) if n.endswith(".json"))


#: Cards of the expansion whose puzzles are decided by the card itself (X-CARDS-1..4): the question is asked again
#: without the card in the player's hand, the module kept on.
DECIDING_CARDS = (7, "lasso", "123")


@pytest.mark.parametrize("name", EXPANSION_PUZZLES)
def test_expansion_puzzle_answer_and_the_module_decides_it(name):
    # The search backend answers as recorded (card and turn for a "yes"); with the puzzle's module off (the position
    # without its pieces), the answer is different: the module decides the question. The smt backend's answers are
    # compared below for the puzzles one round ahead.
    path = os.path.join(EXPANSION, name)
    pos, extras = load_document(path)
    puzzle = extras["puzzle"]
    assert {"question", "player", "goal", "horizon", "answer", "explanation"} <= set(puzzle)
    answer = answer_with(pos, pos.index(puzzle["player"]), Goal(puzzle["goal"]), puzzle["horizon"], "search",
                         timeout=600)
    assert answer.word == puzzle["answer"], name
    if puzzle["answer"] == "yes":
        assert answer.card is not None and answer.card.to_json() == puzzle["card"]
        if "turn" in puzzle:
            assert str(answer.turn) == puzzle["turn"], name
    else:
        assert "card" not in puzzle and answer.card is None
    doc = json.load(open(path))
    switches = _deciding_switches(pos.ruleset)
    assert switches, name
    if puzzle.get("card") in DECIDING_CARDS:
        # Without the card the question is answered otherwise.
        for player in doc["players"]:
            if player["name"] == puzzle["player"]:
                player["hand"] = [c for c in player["hand"] if c != puzzle["card"]]
    else:
        doc = without_modules(doc, switches)
    from niagara_solver.model.format import position_from_json
    without = position_from_json({k: v for k, v in doc.items() if k not in ("puzzle", "comment")})
    other = answer_with(without, without.index(puzzle["player"]), Goal(puzzle["goal"]), puzzle["horizon"], "search",
                        600)
    assert other.word != puzzle["answer"], name


def _in_the_encoding(name: str) -> bool:
    """The encoding covers the puzzle's modules, and the question is one round ahead: at horizon 2 the smt backend
    takes minutes (docs/SPEED.md; beaver-calms-the-storm: 285 s, agreeing), too long for the suite."""
    from niagara_solver.model.readings import uncovered
    pos, extras = load_document(os.path.join(EXPANSION, name))
    return not uncovered(pos.ruleset, "encoding") and extras["puzzle"]["horizon"] == 1


@pytest.mark.parametrize("name", [n for n in EXPANSION_PUZZLES if _in_the_encoding(n)])
def test_expansion_puzzles_the_encoding_covers_get_the_same_answer_from_the_smt_backend(name):
    """The smt backend, a second reading of the rules (it covers every module), gives the recorded answer too, on the
    puzzles one round ahead."""
    pos, extras = load_document(os.path.join(EXPANSION, name))
    puzzle = extras["puzzle"]
    answer = answer_with(pos, pos.index(puzzle["player"]), Goal(puzzle["goal"]), puzzle["horizon"], "smt", timeout=600)
    assert answer.word == puzzle["answer"], name
    assert_confirmed_by_the_engine(pos, pos.index(puzzle["player"]), answer)


def _deciding_switches(rules) -> list[str]:
    """The expansion's modules that are on, and ``tiebreak`` when it is BSW's ``"shared"`` (R-END-3)."""
    return [*rules.modules, *(["tiebreak"] if rules.switches()["tiebreak"] == "shared" else [])]


