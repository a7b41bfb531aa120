"""Pages to step through (``play --html``, ``solve --html``, ``simulate --html``, niagara_solver/report/html.py): the
steps follow the game and the solver's lines exactly, every text is escaped, and in a real browser (headless
Chromium, tests/browser.py) next, previous, the keys and the slider step through a whole game without an error."""

from __future__ import annotations

import json
import os
import re
from html import escape, unescape

import pytest

from browser import Browser, find_chromium
from helpers import P, doc
from niagara_solver.cli.main import main
from niagara_solver.engine.apply import play_turn
from niagara_solver.play.playout import random_playout
from niagara_solver.engine.round import end_round
from niagara_solver.model.atoms import Card
from niagara_solver.model.format import dumps_position, load_document, position_from_json
from niagara_solver.report.html import LineReplay, game_chapters, line_chapter, notable_games, solve_page
from niagara_solver.solver.answers import Goal
from niagara_solver.solver.solve import answer_with

ROOT = os.path.join(os.path.dirname(__file__), "..")
START = os.path.join(ROOT, "puzzles", "start-4p.json")
#: The game the browser steps through: rounds of start-4p.json, seed 0 (one click per step: 31 steps, 1 to 2 s).
ROUNDS = 5


def page_data(page: str) -> dict:
    """The JSON block a page's script reads."""
    found = re.search(r'<script type="application/json" id="niagara-data">(.*?)</script>', page, re.S)
    assert found is not None
    data: dict = json.loads(found.group(1))
    return data


def game(rounds: int = ROUNDS):
    pos = load_document(START)[0]
    return pos, list(random_playout(pos, 0, rounds, "lookahead"))


# -- the steps ---------------------------------------------------------------------------------------------------

def test_a_game_is_the_start_then_per_round_its_cards_each_turn_and_the_flow():
    pos, records = game(2)
    chapters, steps = game_chapters(pos, records)
    assert [s.heading for s in steps] == [
        "Start · round 1, phase I (rescues and cards)",
        "Round 1 · I · rescues and cards", "Round 1 · II · red plays 5", "Round 1 · II · blue plays 5",
        "Round 1 · II · green plays 5", "Round 1 · II · yellow plays 5",
        "Round 1 · III · the river flows 5 · IV · lifebuoy to blue",
        "Round 2 · I · rescues and cards", "Round 2 · II · blue plays 2", "Round 2 · II · green plays 3",
        "Round 2 · II · yellow plays 2", "Round 2 · II · red plays 2",
        "Round 2 · III · the river flows 2 · IV · lifebuoy to green"]
    assert steps[0].position == pos and steps[1].position == records[0].turns_start
    for record, first in ((records[0], 1), (records[1], 7)):
        before = record.turns_start
        for k, t in enumerate(record.turns):  # each turn drawn on the position before it (R-TURN-1's order)
            step = steps[first + 1 + k]
            assert (step.position, step.turn, step.player) == (before, t.turn, t.player)
            assert chapters[step.chapter].lines[step.marks[0]] == f"II  {record.start.players[t.player].name} " \
                                                                  f"({t.card.label}): {t.turn}"
            before = t.after
        flow = steps[first + 1 + len(record.turns)]
        assert flow.position == record.end and flow.turn is None
        assert [chapters[flow.chapter].lines[m][:3] for m in flow.marks] == ["III", "IV ", "ban"]


def test_every_bundled_solver_line_is_replayed_turn_by_turn_as_the_rules_interpreter_plays_it():
    folder = os.path.join(ROOT, "puzzles")
    paths = [os.path.join(folder, f) for f in sorted(os.listdir(folder)) if f.endswith(".json")]
    paths += [os.path.join(folder, "expansion", f) for f in sorted(os.listdir(os.path.join(folder, "expansion")))]
    lines = turns = 0
    for path in paths:
        pos, extras = load_document(path)
        if "puzzle" not in extras:
            continue
        x = pos.index(extras["puzzle"]["player"])
        answer = answer_with(pos, x, Goal(extras["puzzle"]["goal"]), extras["puzzle"].get("horizon", 1), "search", 60)
        for labels in [answer.line] * bool(answer.line) + [[r["option"], *r["answer"]] for r in answer.refutations]:
            lines += 1
            steps = line_chapter(pos, x, "line", labels, 0)
            reasons = [s for s in steps if s.heading.startswith("line: ") and s.heading != "line: the position"]
            # Every choice is replayed; only the reason at the end (a leaf of the search) is said as text.
            assert len(reasons) <= 1 and all(len(s.marks) == 1 for s in steps[1:]), (path, labels)
            for step, after in zip(steps, steps[1:]):
                if step.turn is None or (after.turn is None and not after.heading.startswith("line: ")):
                    continue  # the position after the turn is the next step's (before its turn, or said as text)
                label = labels[step.marks[0]].removeprefix("whatever the others do, e.g. ")
                named = label.partition(" (")[2].partition("): ")[0]
                card = Card.parse(named) if step.position.players[step.player].card is None else None
                # The engine's reading of the turn, by the rule-by-rule interpreter (not the generator replayed).
                assert after.position == play_turn(step.position, step.player, step.turn, card), (path, label)
                turns += 1
    assert lines >= 40 and turns >= 40


def test_a_line_with_revealed_cards_and_a_flow_replays_to_the_position_the_engine_reaches():
    pos = position_from_json(doc(
        P("red", "5:ruby", "fallen", hand=[1], bank={"amber": 1}), P("blue", "7L", "7R", hand=[1, 3]),
        phase="cards", ruleset={"reveal": "at_once"}, round=3))
    answer = answer_with(pos, 0, Goal.SAFE, 1, "search", 60)
    steps = line_chapter(pos, 0, "line", answer.line, 0)
    assert [s.heading for s in steps] == [
        "line: the position", "Round 3 · I · red rescues none", "Round 3 · I · red chooses 1",
        "Round 3 · II · blue reveals 1", "Round 3 · II · red (1): 5: <4", "Round 3 · II · blue (1): 7L: <6L; 7R: <6R",
        "Round 3 · III · the river flows 1", "line: the horizon ends and red still has its 2 gem(s)"]
    assert [p.card.label for p in steps[3].position.players] == ["1", "1"]  # both cards shown from phase II on
    red, blue, flowed = steps[4:7]
    assert blue.position == play_turn(red.position, 0, red.turn)
    assert flowed.position == end_round(play_turn(blue.position, 1, blue.turn)) == steps[7].position
    # red paddled up from 5 to 4, the flow of 1 (smallest paddle 1, calm, R-FLOW-1) carried it back to 5, its ruby safe
    assert flowed.position.round == 4 and flowed.position.players[0].canoes[0].place == "5"


def test_a_canoe_put_back_onto_the_whirlpool_is_pushed_where_the_line_says():
    # X-WHIRL-4: a's moored canoe on 5 is put back onto the whirlpool coming from 4 and pushed to the branch named.
    pos = position_from_json(doc(
        P("a", {"at": "5", "gems": ["amber"], "moored": True}, "fallen", card="lasso", hand=[2, 3]),
        P("b", "port", "port", card=1, hand=[2, 3]), whirlpool="4", acted=["a", "b"],
        ruleset={"x_whirl": True, "x_cards": True}))
    replay = LineReplay(pos, 0)
    made = replay.step("the river flows 1")
    assert made is not None and made[1] == pos  # the push is still to be said: the position before the flow
    made = replay.step("a's canoe put back onto the whirlpool is pushed to 6R")
    assert made is not None and made[1] == end_round(pos, None, ["6R"]) == replay.pos
    assert replay.pos.players[0].canoes[0].place == "6R"
    assert LineReplay(pos, 0).step("a's canoe put back onto the whirlpool is pushed to 6R") is None  # no flow yet


def test_notable_games_are_the_first_and_the_extremes_each_named_once():
    from niagara_solver.design.simulate import GameResult
    games = [GameResult(s, ("greedy",) * 2, rounds, finished, (0,) if finished else (), (), falls, steals, 0, (1, 2))
             for s, rounds, finished, falls, steals in [(0, 9, True, 1, 0), (1, 4, True, 0, 2), (2, 30, False, 3, 2)]]
    assert notable_games(games) == {0: ["the first game", "the most rescues"], 1: ["the shortest game",
                                                                                     "the most steals"],
                                    2: ["the longest game", "the most falls"]}


# -- the commands ------------------------------------------------------------------------------------------------

def test_play_html_writes_one_page_with_a_step_per_phase_and_turn(tmp_path, capsys):
    out = tmp_path / "sub" / "game.html"
    assert main(["play", START, "--seed", "0", "--rounds", "2", "--html", str(out)]) == 0
    assert capsys.readouterr().out.endswith(f"page: {out}\n")
    page = out.read_text(encoding="utf-8")
    data = page_data(page)
    assert len(data["steps"]) == 13 and len(data["chapters"]) == 3
    assert data["steps"][2]["heading"] == "Round 1 · II · red plays 5"
    assert "Stopped after 2 round(s); the game is not over." in page
    # Self-contained: no address outside the page (the SVG namespace is a name, not a download).
    assert not re.search(r"(src|href)=\"(?!#)", page) and "http" not in page.replace(
        "http://www.w3.org/2000/svg", "")


def test_solve_html_shows_the_answer_its_reasons_and_the_line(tmp_path, capsys):
    out = tmp_path / "steal.html"
    assert main(["solve", os.path.join(ROOT, "puzzles", "a-sure-steal.json"), "--html", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert '<p class="verdict yes">YES</p>' in page
    assert escape('play card 2, turn "4: <2 xgreen/amber"') in page
    data = page_data(page)
    assert [s["heading"] for s in data["steps"]] == [
        "The line: the position", "Round 1 · I · red chooses 2", "Round 1 · II · blue (1): port: >1",
        "Round 1 · II · red (2): 4: <2 xgreen/amber", "The line: red steals (R-STEAL-1)"]
    assert data["chapters"][0]["lines"][-1] == "red steals (R-STEAL-1)"


def test_solve_html_of_a_no_steps_through_the_others_answer_to_each_option(tmp_path, capsys):
    out = tmp_path / "no.html"
    assert main(["solve", os.path.join(ROOT, "puzzles", "win-denied-by-a-steal.json"), "--html", str(out)]) == 0
    data = page_data(out.read_text(encoding="utf-8"))
    assert [c["title"] for c in data["chapters"]] == ["red plays 3: the others' answer",
                                                      "red plays 4: the others' answer"]
    assert [s["heading"] for s in data["steps"] if s["chapter"] == 1] == [
        "red plays 4: the position", "Round 1 · I · red plays 4", "Round 1 · II · blue (2): 5: <3 xred/ruby",
        "red plays 4: red cannot reach the goal in time, even unhindered (R-END-1)"]


def test_every_text_of_a_page_is_escaped(tmp_path, capsys):
    hostile = '</script><script>window.injected = 1</script> & <b>'
    position = position_from_json(doc(P("Tom&Jerry\"", "3:ruby", "port"), P("O'Neil", "port", "port")))
    file = tmp_path / "<b>odd&.json"
    text = json.loads(dumps_position(position))
    text["puzzle"] = {"question": hostile, "player": "Tom&Jerry\"", "goal": "win", "answer": "no"}
    file.write_text(json.dumps(text))
    out = tmp_path / "odd.html"
    assert main(["solve", str(file), "--html", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert page.count("<script") == 2 and "window.injected" not in page.replace(escape(hostile), "")
    assert escape(hostile) in page and "&lt;b&gt;odd&amp;.json" in page and "<b>" not in page
    data = page_data(page)
    assert data["chapters"][0]["title"] == "Tom&Jerry\" plays 1: the others' answer"  # raw in JSON, shown as text
    assert unescape(escape(hostile)) == hostile


def test_an_unwritable_html_file_is_one_error_line(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["play", START, "--rounds", "1", "--html", str(blocker / "game.html")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("niagara-solve: error: cannot write") and err.count("\n") == 1


def test_simulate_html_writes_an_index_and_a_page_per_notable_game(tmp_path, capsys):
    folder = tmp_path / "games"
    assert main(["simulate", "--players", "2", "--games", "3", "--rounds", "4", "--policy", "greedy",
                 "--html", str(folder), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    pages = result["pages"]
    assert pages[0] == str(folder / "index.html") and all(os.path.exists(p) for p in pages)
    index = (folder / "index.html").read_text(encoding="utf-8")
    games = result["simulations"][0]["game_list"]
    for k, g in enumerate(games):
        assert f"--seed {g['seed']} --rounds 4 --policy greedy" in index
        linked = f'href="run1-game{k + 1}.html"' in index
        assert linked == (str(folder / f"run1-game{k + 1}.html") in pages)
    # A game's page is that game played again: its rounds and its end.
    first = page_data((folder / "run1-game1.html").read_text(encoding="utf-8"))
    assert len([s for s in first["steps"] if "· I · rescues and cards" in s["heading"]]) == games[0]["rounds"]


# -- in a browser --------------------------------------------------------------------------------------------------

STATE = """(function () {
  function text(id) { return document.getElementById(id).textContent; }
  return {heading: text("heading"), picture: document.getElementById("picture").innerHTML,
          aside: document.querySelector("aside").textContent, counter: text("counter"),
          slider: document.getElementById("slider").value, now: Array.prototype.map.call(
            document.querySelectorAll("#chapter-lines li.now"), function (li) { return li.textContent; }),
          next: document.getElementById("next").disabled, prev: document.getElementById("prev").disabled,
          svgTitle: document.querySelector("#picture svg text").textContent, hash: location.hash};
})()"""


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    binary = find_chromium()
    if binary is None:
        if os.environ.get("NIAGARA_REQUIRE_BROWSER"):
            pytest.fail("no browser was found (chromium), and NIAGARA_REQUIRE_BROWSER asks for one")
        pytest.skip("no browser was found (chromium): the pages are not tried in a browser")
    with Browser(binary, str(tmp_path_factory.mktemp("chromium-profile"))) as b:
        yield b


def test_the_browser_reports_a_console_error_and_an_uncaught_exception(browser):
    # The check below would be empty if the browser's errors were not collected: they are.
    browser.open("data:text/html,<script>console.error('one'); null.two;</script>")
    browser.evaluate("1")
    assert [e.split(":")[0] for e in browser.errors] == ["console.error", "uncaught"]
    browser.errors.clear()


def test_next_steps_through_a_whole_game_in_a_browser(browser, tmp_path, capsys):
    page = tmp_path / "game.html"
    assert main(["play", START, "--seed", "0", "--rounds", str(ROUNDS), "--html", str(page)]) == 0
    pos, records = game()
    chapters, steps = game_chapters(pos, records)
    n = len(steps)
    browser.open(page.as_uri())
    state = browser.evaluate(STATE)
    assert (state["heading"], state["counter"], state["prev"], state["next"]) == (steps[0].heading, f"step 1 of {n}",
                                                                                  True, False)
    for i in range(1, n):
        browser.click("#next")
        now = browser.evaluate(STATE)
        step = steps[i]
        # The picture is the step's: its title is the step's heading with the ruleset (svg.render_svg).
        assert now["heading"] == step.heading
        assert now["svgTitle"] == f"{step.heading} · ruleset {step.position.ruleset.describe()}"
        assert now["counter"] == f"step {i + 1} of {n}" and now["slider"] == str(i) and now["hash"] == f"#step={i + 1}"
        assert now["now"] == [chapters[step.chapter].lines[m] for m in step.marks]
        assert now["picture"] != state["picture"] and now["aside"] != state["aside"], i
        state = now
    assert state["next"] and not state["prev"] and state["now"][-1] == chapters[-1].lines[-1]
    assert chapters[-1].lines[-1].startswith("banks: ")

    def at() -> str:
        return str(browser.evaluate("document.getElementById('counter').textContent"))
    browser.press("ArrowLeft")
    assert at() == f"step {n - 1} of {n}"
    browser.press("ArrowRight")
    browser.press("ArrowRight")  # past the end: stays
    assert at() == f"step {n} of {n}"
    browser.press("Home")
    assert at() == f"step 1 of {n}"
    browser.press("PageDown")
    browser.press("PageDown")
    assert at() == f"step 8 of {n}"  # round 2's first step: the start, then round 1's 6 steps
    browser.press("PageUp")
    assert at() == f"step 2 of {n}"
    browser.evaluate("var s = document.getElementById('slider'); s.value = '20';"
                     "s.dispatchEvent(new Event('input'))")
    assert at() == f"step 21 of {n}"
    browser.press("End")
    assert at() == f"step {n} of {n}"
    browser.evaluate("location.hash = '#step=3'")
    browser.evaluate("new Promise(function (done) { setTimeout(done, 50); })")
    assert at() == f"step 3 of {n}"
    assert browser.errors == []


def test_a_solver_page_and_its_escaped_names_in_a_browser(browser, tmp_path, capsys):
    position = position_from_json(doc(P("Tom&Jerry\"", "3:ruby", "port"), P("O'Neil", "port", "port")))
    answer = answer_with(position, 0, Goal.WIN, 1, "search", 60)
    page = tmp_path / "odd.html"
    page.write_text(solve_page(position, answer, "<script>window.injected = 1</script>",
                               ["</script><script>window.injected = 2</script>"]), encoding="utf-8")
    browser.open(page.as_uri())
    assert browser.evaluate("typeof window.injected") == "undefined"
    assert browser.evaluate("document.querySelector('h1').textContent") == "<script>window.injected = 1</script>"
    assert browser.evaluate("document.querySelector('.verdict').textContent") == "NO"
    browser.press("End")
    aside = browser.evaluate("document.querySelector('aside').textContent")
    assert "Tom&Jerry\" plays" in aside
    assert browser.errors == []


def test_a_turn_written_in_another_canoe_order_and_a_rescue_with_its_card_are_replayed():
    # The smt backend writes the turns it decodes from z3's models: the same outcome as the engine's turn, its canoes
    # acting in another order (R-TURN-4); and it names a rescue with the card in an option of a "no". Both once ended
    # the page with StopIteration.
    pos, _ = load_document(os.path.join(ROOT, "puzzles", "a-thief-behind-every-door.json"))
    labels = ["red plays 2", "red (2): 3: >5", "blue (2): 7L: <5 xred/ruby; 6L: <4", "the river flows 2",
              "a gem of red is lost"]
    steps = line_chapter(pos, 0, "red plays 2", labels, 0)
    assert [s.heading for s in steps] == [
        "red plays 2: the position", "Round 1 · I · red plays 2", "Round 1 · II · red (2): 3: >5",
        "Round 1 · II · blue (2): 7L: <5 xred/ruby; 6L: <4", "Round 1 · III · the river flows 2",
        "red plays 2: a gem of red is lost"]
    red, blue, flowed = steps[2:5]
    assert str(blue.turn) == "7L: <5 xred/ruby; 6L: <4"
    assert blue.position == play_turn(red.position, 0, "3: >5", Card.TWO)
    robbed = play_turn(blue.position, 1, "6L: <4; 7L: <5 xred/ruby", Card.TWO)  # the engine's words for it
    assert flowed.position == end_round(robbed)
    pos, _ = load_document(os.path.join(ROOT, "puzzles", "win-denied-by-a-steal.json"))
    made = LineReplay(pos, 1).step("red rescues amethyst, plays 3")
    assert made is not None and made[1].players[1].card is Card.THREE and made[1].players[1].bank.total == 5
    assert LineReplay(pos, 1).step("red rescues ruby, plays 3") is None  # no ruby banked: a reason, not a crash
    # Under a free fork the first disc to the right takes red's canoe from 7R over the falls (R-FLOW-4, R-FLOW-6): the
    # engine lists that outcome once, as L,L,R; the smt backend may name R,L,L, which the page plays as written.
    pos = position_from_json(doc(P("red", "7R:ruby", "port", hand=["cloud"]), P("blue", "port", "port", hand=[1]),
                                 phase="cards", weather=1, fork="L", ruleset={"fork_policy": "free"}))
    labels = ["red plays cloud", "red (cloud): cloud up", "blue (1): port: >1", "the river flows 3 (R,L,L)",
              "a gem of red is lost"]
    steps = line_chapter(pos, 0, "red plays cloud", labels, 0)
    assert steps[-2].heading == "Round 1 · III · the river flows 3 (R,L,L)" and len(steps) == 6
    assert steps[-2].position.players[0].canoes[1].fallen and steps[-2].position.round == 2


def test_replay_html_writes_the_rounds_replayed_and_names_an_illegal_step(tmp_path, capsys):
    trace = os.path.join(ROOT, "puzzles", "traces", "fall-on-the-short-fork.json")
    out = tmp_path / "fall.html"
    assert main(["replay", trace, "--html", str(out)]) == 0
    assert capsys.readouterr().out.endswith(f"page: {out}\n")
    data = page_data(out.read_text(encoding="utf-8"))
    # The start, then round 1: its rescues and cards, one step per turn (two players), its flow.
    assert [s["heading"] for s in data["steps"]][:2] == ["Start · round 1, phase I (rescues and cards)",
                                                         "Round 1 · I · rescues and cards"]
    assert len(data["steps"]) == 5
    assert "1 of 1 round(s) replayed by the engine, each legal" in out.read_text(encoding="utf-8")
    # A trace whose red paddles two with a card of one: the page holds what replayed (nothing) and names the failure.
    with open(trace, encoding="utf-8") as f:
        written = json.load(f)
    written["rounds"][0]["turns"][0]["turn"] = "port: >2"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(written), encoding="utf-8")
    assert main(["replay", str(bad), "--html", str(out)]) == 1
    page = out.read_text(encoding="utf-8")
    assert len(page_data(page)["steps"]) == 1 and "0 of 1 round(s) replayed by the engine; illegal: round 1" in page
