"""Hostile input: every command refuses it the same way (docs/FORMAT.md, "Bad input" and "Limits").

Bad input → exit status 2, one line on standard error, ``niagara-solve: error: FILE: PATH: message (RULE)``,
no traceback, nothing on standard output (so ``--json`` output is never half written). Each test below is a
case that once failed otherwise: a traceback, a hang, memory without bound, exit 0 on nonsense, an error line
repeating a whole file, or a name that broke the turn notation or the pictures.
"""

from __future__ import annotations

import io
import json
import os
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from helpers import P, doc
from niagara_solver.cli.common import TIMEOUT, players_option
from niagara_solver.cli.main import main
from niagara_solver.design.sweep import parse_grid
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import Card, Colour
from niagara_solver.model.board import Board
from niagara_solver.model.errors import QUOTE_LIMIT, InputError
from niagara_solver.model.format import load_position, loads_position, parse_json_text
from niagara_solver.model.limits import (MAX_DISCS, MAX_FILE_BYTES, MAX_FLOW_STEPS, MAX_GEMS_PER_COLOUR,
                                         MAX_JSON_DEPTH)
from niagara_solver.model.notation import Turn

ROOT = Path(__file__).parent.parent
ERRATUM = str(ROOT / "puzzles" / "erratum-two-canoes.json")

#: Every colour beside a cave on a small test board (the caves are not what these tests are about).
COLOURS = [c.label for c in Colour]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def assert_refused(result: tuple[int, str, str], rule: str, *fragments: str) -> str:
    """Exit 2, nothing on standard output, one short line on standard error ending with the rule; the fragments
    (the file, the JSON path, words of the message) appear in it. Returns the line."""
    status, out, err = result
    assert status == 2, err
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    line = err.rstrip("\n")
    assert line.startswith("niagara-solve: error: ") and line.endswith(f"({rule})"), line
    assert "Traceback" not in err
    assert len(line) < 400, f"{len(line)} characters"
    for fragment in fragments:
        assert fragment in line, (fragment, line)
    return line


def write(tmp_path: Path, name: str, content: Any) -> str:
    """A file of ``content`` (JSON text as given, or a value written as JSON with \\u escapes)."""
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return str(path)


def two_players(**fields: Any) -> dict[str, Any]:
    return doc(P("red", "port", "4:ruby"), P("blue", "2", "6L"), phase="cards", **fields)


def chain_board(n: int) -> dict[str, Any]:
    """A board of ``n`` >= 5 discs in a line, d1 at the top, a cave of each colour beside d1..d5."""
    river: dict[str, Any] = {f"d{i}": f"d{i + 1}" for i in range(1, n)}
    river[f"d{n}"] = "falls"
    return {"river": river, "caves": {c: [f"d{k + 1}"] for k, c in enumerate(COLOURS)}}


# -- 1. timeouts: finite, positive, at most a day, on every command and in a sweep grid ------------------------------

TIMEOUT_COMMANDS = {
    "solve": ["solve", ERRATUM, "--player", "red", "--goal", "win"],
    "prove": ["prove", "--players", "2", "--property", "R-PROP-1"],
    "diff": ["diff", "standard", "bga-2013-05-09"],
    "crosscheck": ["crosscheck", "--count", "0"],
    "analyze": ["analyze", ERRATUM, "--json"],
    "check": ["check", "--players", "2", "--json"],
    "mutants": ["mutants"],
    "report": ["report"],
}


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1", "0", "1e400", "90000", "soon"])
@pytest.mark.parametrize("command", list(TIMEOUT_COMMANDS))
def test_a_timeout_that_is_not_a_finite_sane_number_of_seconds_is_refused(capsys, command, value):
    # Once: analyze --timeout nan --json answered (exit 0), prove --timeout inf raised OverflowError in z3.
    line = assert_refused(run(capsys, *TIMEOUT_COMMANDS[command], "--timeout", value), "LIMITS", "--timeout: ")
    assert "0.1 to 86400 seconds" in line or "a number of seconds" in line


def test_every_timeout_option_is_the_one_shared_type():
    from niagara_solver.cli.main import cli
    options = {(name, p.name): p.type for name, command in cli.commands.items() for p in command.params
               if p.name == "timeout"}
    assert {name for name, _ in options} == {"analyze", "prove", "mutants", "crosscheck", "solve", "certify", "check",
                                             "diff", "report", "reach", "invariant", "mine",
                                             "history"}
    assert all(kind is TIMEOUT for kind in options.values())
    assert TIMEOUT.convert("0.5", None, None) == 0.5 and TIMEOUT.convert(86400, None, None) == 86400.0


@pytest.mark.parametrize("timeout", ["NaN", "Infinity", "-1", "0", "1e300", "\"60\"", "true"])
def test_a_grid_timeout_that_is_not_a_sane_number_of_seconds_is_refused(tmp_path, capsys, timeout):
    grid = write(tmp_path, "grid.json", '{"players": 2, "timeout": ' + timeout + '}')
    rule = "FORMAT" if timeout in ("NaN", "Infinity") else "LIMITS"
    assert_refused(run(capsys, "sweep", grid, "--json"), rule, "grid.json: timeout: ")
    assert parse_grid({"timeout": 30}).timeout == 30.0


# -- 2. player counts: bounded before any list is built -----------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["prove", "--players", "2-1000000000000"],
    ["check", "--players", "2-1000000000000"],
    ["diff", "standard", "standard", "--players", "2-1000000000000"],
    ["prove", "--players", "2-" + "9" * 5000],
    ["prove", "--players", "1-3"],
    ["prove", "--players", "3,7"],
    ["prove", "--players", "5-2"],
    ["mutants", "--players", "7"],
])
def test_a_player_count_outside_two_to_five_is_refused_before_a_list_is_built(capsys, argv):
    # Once: --players 2-1000000000000 raised MemoryError building a trillion-element list.
    assert_refused(run(capsys, *argv), "R-COMP-1", "--players: ")


@pytest.mark.parametrize("argv", [["prove", "--players", "3,6"], ["mutants", "--players", "6"]])
def test_six_players_need_the_sixth_player(capsys, argv):
    # 6 is within the tool's bounds (X-SIX-1) but not the standard ruleset's: refused before any proof runs.
    assert_refused(run(capsys, *argv), "X-SIX-1", "--players: 2 to 5 players play under standard, not 6")


def test_player_counts_within_the_bounds_are_read_as_before():
    assert players_option("2-5") == [2, 3, 4, 5]
    assert players_option("3") == [3] and players_option("2,3,5") == [2, 3, 5]


@pytest.mark.parametrize("players, rule", [("2-1000000000000", "R-COMP-1"), ([2, 1000000000000], "R-COMP-1"),
                                           ("2-" + "9" * 5000, "R-COMP-1"), (7, "R-COMP-1"), (6, "X-SIX-1")])
def test_a_grid_player_count_outside_two_to_five_is_refused(tmp_path, capsys, players, rule):
    grid = write(tmp_path, "grid.json", {"players": players})
    assert_refused(run(capsys, "sweep", grid), rule, "grid.json: players: ")


def test_a_grid_of_more_proofs_than_the_limit_is_refused_before_its_variants_are_built(tmp_path, capsys):
    # 2^10 × 98 variants: the product alone is refused, no ruleset of it is built.
    switches = {name: [True, False] for name in ("steal_after_unload", "bank_after_load", "must_move")}
    switches.update(min_flow=[0, 1], capacity=[1, 2], fork_policy=["alternate", "free"], tiebreak=["value", "count"],
                    gem_sides=["both", "one"], port_departure=["exactly_one", "at_most_one"],
                    rescue_when_none=["pay_or_free", "free"], gems_per_colour=list(range(1, 99)))
    grid = write(tmp_path, "grid.json", {"switches": switches})
    assert_refused(run(capsys, "sweep", grid), "LIMITS", "grid.json: switches: ", "100,352 proofs")
    repeated = write(tmp_path, "repeated.json", {"switches": {"capacity": [1, 2, 1]}})
    assert_refused(run(capsys, "sweep", repeated), "SWEEP", "repeated.json: switches.capacity[2]: ", "listed twice")


# -- 3. positions: numbers, nesting, text, repeated keys, names --------------------------------------------------

@pytest.mark.parametrize("where, edit, digits", [
    ("round", lambda d: d.update(round="BIG"), "1" * 5000),
    ("players[0].bank.ruby", lambda d: d["players"][0].update(bank={"ruby": "BIG"}), "-" + "9" * 5000),
    ("ruleset.gems_per_colour", lambda d: d.update(ruleset={"gems_per_colour": "BIG"}), "8" * 5000),
])
def test_an_integer_of_thousands_of_digits_is_refused_naming_its_path(tmp_path, capsys, where, edit, digits):
    # Once: ValueError ("Exceeds the limit (4300 digits) for integer string conversion") from the JSON parser.
    document = two_players()
    edit(document)
    file = write(tmp_path, "p.json", json.dumps(document).replace('"BIG"', digits))
    assert_refused(run(capsys, "show", file), "LIMITS", f"p.json: {where}: an integer of 5000 digits")


@pytest.mark.parametrize("number, rule", [("NaN", "FORMAT"), ("-Infinity", "FORMAT"), ("1e999", "LIMITS")])
def test_numbers_json_does_not_have_are_refused(tmp_path, capsys, number, rule):
    file = write(tmp_path, "p.json", json.dumps(two_players()).replace('"phase"', f'"weather": {number}, "phase"'))
    assert_refused(run(capsys, "show", file), rule, "p.json: weather: ")


def test_json_nested_100000_deep_is_refused(tmp_path, capsys):
    # Once: RecursionError from the JSON parser.
    file = write(tmp_path, "p.json", '{"comment": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert_refused(run(capsys, "show", file), "LIMITS", "p.json: nested deeper than 32 levels")


def test_json_nested_past_the_limit_is_refused_naming_the_path(tmp_path, capsys):
    deep: Any = "x"
    for _ in range(MAX_JSON_DEPTH):
        deep = [deep]
    document = two_players(comment=deep)  # 33 levels with the position itself
    file = write(tmp_path, "p.json", document)
    assert_refused(run(capsys, "show", file), "LIMITS", "p.json: comment" + "[0]" * (MAX_JSON_DEPTH - 1) + ": ")
    document["comment"] = deep[0]  # 32 levels: read
    assert run(capsys, "show", write(tmp_path, "q.json", document))[0] == 0


@pytest.mark.parametrize("command", [["show"], ["analyze", "--json"], ["render"]])
def test_a_lone_surrogate_in_a_player_name_is_refused(tmp_path, capsys, command):
    # Once: UnicodeEncodeError printing the name (show, analyze --json).
    document = doc(P("\ud800", "port", "4:ruby"), P("blue", "2", "6L"), phase="cards")
    file = write(tmp_path, "p.json", document)  # written as the escape \ud800, as JSON allows
    assert "\\ud800" in Path(file).read_text()
    assert_refused(run(capsys, *command[:1], file, *command[1:]), "FORMAT", "p.json: lifebuoy: ", "lone surrogate")


def test_a_lone_surrogate_anywhere_is_refused_naming_its_path(tmp_path, capsys):
    file = write(tmp_path, "p.json", two_players(puzzle={"question": "who wins \udfff?"}))
    assert_refused(run(capsys, "analyze", file, "--json"), "FORMAT", "p.json: puzzle.question: ", "lone surrogate")
    paired = write(tmp_path, "q.json", two_players(comment="a wave \U0001F30A"))  # a pair of surrogates: fine
    assert "\\ud83c\\udf0a" in Path(paired).read_text()
    assert run(capsys, "show", paired)[0] == 0


@pytest.mark.parametrize("text, path", [
    ('{"format": "niagara-position/1", "lifebuoy": "red", "lifebuoy": "blue"}', "lifebuoy"),
    ('{"format": "niagara-position/1", "players": [{"name": "a"}, {"name": "b", "hand": [1], "name": "c"}]}',
     "players[1].name"),
    ('{"format": "niagara-position/1", "ruleset": {"capacity": 2, "capacity": 1}}', "ruleset.capacity"),
    ('{"format": "niagara-position/1", "board": {"river": {"1": "2", "2": "falls", "1": "falls"}}}',
     "board.river.1"),
    ('{"format": "niagara-position/1", "caves": {"ruby": {"ruby": 1, "ruby": 7}}}', "caves.ruby.ruby"),
])
def test_a_key_given_twice_in_a_position_is_refused_naming_its_path(tmp_path, capsys, text, path):
    # Once: the last value silently won.
    file = write(tmp_path, "p.json", text)
    assert_refused(run(capsys, "show", file), "FORMAT", f"p.json: {path}: ", "given twice")


def test_a_key_given_twice_in_a_ruleset_board_or_grid_file_is_refused(tmp_path, capsys):
    ruleset = write(tmp_path, "r.json", '{"base": "standard", "steal_after_unload": false, "steal_after_unload": true}')
    assert_refused(run(capsys, "show", ERRATUM, "--ruleset", ruleset), "FORMAT", "r.json: steal_after_unload: ")
    board = write(tmp_path, "b.json", '{"river": {"1": {"L": "2", "L": "3"}, "2": "falls", "3": "falls"}}')
    assert_refused(run(capsys, "prove", "--board", board), "FORMAT", "b.json: river.1.L: ")
    grid = write(tmp_path, "g.json", '{"switches": {"capacity": [1, 2], "capacity": [1]}}')
    assert_refused(run(capsys, "sweep", grid), "FORMAT", "g.json: switches.capacity: ")


@pytest.mark.parametrize("name", ["re\rd", "re\vd", "re\x00d", "re\x1b[31md", "re\u2028d", "re\u00a0d", "re\u200bd",
                                  "red\n", "\tred", "re d"])
def test_a_player_name_with_a_control_or_space_character_is_refused(tmp_path, capsys, name):
    # Once: such names broke the tables and made render write invalid XML.
    file = write(tmp_path, "p.json", doc(P(name, "port", "4:ruby"), P("blue", "2", "6L"), phase="cards"))
    line = assert_refused(run(capsys, "render", file), "FORMAT", "p.json: players[0].name: ", "control characters")
    assert repr(name)[1:-1] in line  # quoted with its escapes, on one line


@pytest.mark.parametrize("disc", ["Port", "PORT", "pOrT", "Fallen", "FALLS", "6=L", "a/b", "six\u00a0L", "six\x00",
                                  "", " 1"])
def test_a_disc_name_the_turn_notation_cannot_write_is_refused(tmp_path, capsys, disc):
    # Once: a disc named Port made turns print "Port: >2", which reads back as the port.
    river = {disc: "2", "2": "falls"}
    board = {"river": river, "caves": {c: ["2"] for c in COLOURS}}
    file = write(tmp_path, "p.json", doc(P("a", "port", "port"), P("b", "port", "port"), board=board))
    assert_refused(run(capsys, "turns", file, "--player", "a", "--card", "1"), "R-BOARD-2", "p.json: board.river",
                   "cannot name a disc")


def test_disc_names_the_notation_can_write_still_round_trip():
    # "Portal" only starts like the port; "6-L" and "x+1" hold no character of the notation's syntax.
    discs = ["Portal", "6-L", "x+1", "d4", "d5"]
    board = {"river": dict(zip(discs, [*discs[1:], "falls"])), "caves": {c: [d] for c, d in zip(COLOURS, discs)}}
    pos = loads_position(json.dumps(doc(P("a", "port", "Portal"), P("b", "port", "port"), board=board)))
    turns = [o.turn for o in legal_turns(pos, 0, Card.TWO)]
    assert sorted(map(str, turns)) == ["Portal: +amethyst", "Portal: +amethyst; port: >6-L", "Portal: <port",
                                       "Portal: <port; port: >6-L", "Portal: >x+1", "Portal: >x+1; port: >6-L"]
    assert all(Turn.parse(str(turn)) == turn for turn in turns)


@pytest.mark.parametrize("label", ["L,R", "a/b", "x=y", "L R", "L\x00", ""])
def test_a_branch_label_that_branches_cannot_write_is_refused(tmp_path, capsys, label):
    # --branches writes a step as L or FORK=LABEL/FORK=LABEL, steps separated by commas.
    board = {"river": {"1": {label: "2", "R": "3"}, "2": "falls", "3": "falls"}, "caves": {c: ["2"] for c in COLOURS}}
    file = write(tmp_path, "p.json", doc(P("a", "port", "port"), P("b", "port", "port"), board=board))
    assert_refused(run(capsys, "flow", file, "--steps", "1"), "R-BOARD-1", "p.json: board.river.1.", "branch label")


def test_a_board_name_with_a_line_break_is_refused():
    with pytest.raises(InputError) as err:
        Board.from_json({"name": "long\nriver", **chain_board(5)}, "board")
    assert err.value.path == "board.name" and err.value.rule == "FORMAT"


# -- 4. files that are not regular files -------------------------------------------------------------------------

@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
@pytest.mark.parametrize("argv", [["show", "/dev/zero"], ["show", ERRATUM, "--ruleset", "/dev/zero"],
                                  ["prove", "--board", "/dev/zero"]])
def test_a_device_is_refused_unread(capsys, argv):
    # Once: show /dev/zero read without end, its memory growing without bound.
    assert_refused(run(capsys, *argv), "FORMAT", "/dev/zero: not a regular file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("as_ruleset", [False, True])
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path, capsys, as_ruleset):
    # Once: reading a FIFO waited for ever for a writer. Here a writer does wait, so that a regression fails
    # (reading the writer's empty text) instead of hanging.
    fifo = str(tmp_path / "p.json")
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: open(fifo, "w").close(), daemon=True)
    writer.start()
    try:
        argv = ["show", ERRATUM, "--ruleset", fifo] if as_ruleset else ["show", fifo]
        assert_refused(run(capsys, *argv), "FORMAT", "p.json: not a regular file (a device, a pipe or a socket)")
    finally:
        release = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # lets the writer go
        writer.join(5)
        os.close(release)


def test_a_folder_and_a_file_past_the_size_limit_are_refused(tmp_path, capsys):
    assert_refused(run(capsys, "show", ERRATUM, "--ruleset", str(tmp_path) + "/"), "FORMAT", "not a regular file "
                   "(a folder)")
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (MAX_FILE_BYTES + 1))
    assert_refused(run(capsys, "show", str(big)), "LIMITS", "big.json: the file is larger than 10,000,000 bytes")
    with pytest.raises(InputError) as err:
        parse_json_text(" " * (MAX_FILE_BYTES + 1))
    assert err.value.rule == "LIMITS"


def test_a_file_name_no_file_can_have_is_refused(tmp_path, capsys):
    grid = write(tmp_path, "grid.json", {"boards": ["river\u0000.json"]})
    assert_refused(run(capsys, "sweep", grid), "FORMAT", "grid.json: boards[0]: river\\x00.json: cannot read the file")


# -- 5. errors quote a short prefix of a bad value ---------------------------------------------------------------

MEGA = "x" * 1_000_000


@pytest.mark.parametrize("where, edit", [
    ("players[0].canoes[1].gem", lambda d: d["players"][0]["canoes"][1].update(gem=MEGA)),
    ("players[1].hand[0]", lambda d: d["players"][1].update(hand=[MEGA])),
    ("players[0].canoes[0].at", lambda d: d["players"][0]["canoes"][0].update(at=MEGA)),
    ("lifebuoy", lambda d: d.update(lifebuoy=MEGA)),
    ("format", lambda d: d.update(format=MEGA)),
    ("ruleset", lambda d: d.update(ruleset=MEGA)),
    ("ruleset.capacity", lambda d: d.update(ruleset={"capacity": MEGA})),
    ("board", lambda d: d.update(board=MEGA)),
    ("phase", lambda d: d.update(phase=MEGA)),
    ("fork", lambda d: d.update(fork=MEGA)),
    ("players[0].name", lambda d: d["players"][0].update(name=MEGA + ";")),
])
def test_an_error_quotes_only_a_short_prefix_of_a_huge_value(tmp_path, capsys, where, edit):
    # Once: a 1 MB colour name gave a 1 MB error line.
    document = two_players()
    edit(document)
    line = assert_refused(run(capsys, "show", write(tmp_path, "p.json", document)), rule=_rule_of(where))
    assert f"p.json: {where}: " in line and "'" + "x" * (QUOTE_LIMIT - 1) + "…" in line


def _rule_of(where: str) -> str:
    return {"players[0].canoes[1].gem": "R-COMP-3", "players[1].hand[0]": "R-COMP-2",
            "players[0].canoes[0].at": "R-BOARD-1", "lifebuoy": "R-COMP-5", "ruleset": "SWITCHES",
            "ruleset.capacity": "R-GEM-2", "board": "R-BOARD-1", "phase": "R-ROUND-1", "fork": "R-FLOW-4"}.get(where,
                                                                                                         "FORMAT")


def test_a_huge_key_with_line_breaks_stays_one_short_line(tmp_path, capsys):
    key = "\n".join(["line"] * 200_000)
    line = assert_refused(run(capsys, "show", write(tmp_path, "p.json", two_players(**{key: 1}))), "FORMAT",
                          "p.json: line\\nline\\n", "unknown field")
    assert "…" in line
    board = chain_board(5)
    board["river"] = {MEGA + "/": "d2", "d2": "falls"}
    line = assert_refused(run(capsys, "prove", "--board", write(tmp_path, "b.json", board)), "R-BOARD-2",
                          "b.json: river.xxx", "cannot name a disc")
    assert "'" + "x" * (QUOTE_LIMIT - 1) + "… cannot name a disc" in line


def test_a_huge_turn_is_quoted_short(capsys):
    line = assert_refused(run(capsys, "why", ERRATUM, "--player", "red", "--card", "5", "--turn", "4 " + MEGA),
                          "NOTATION")
    assert "canoe action 1 ('4 xxx" in line


# -- 6. flows, gem totals and boards that would take for ever or blow the stack ----------------------------------

def test_flow_steps_past_the_limit_are_refused(capsys):
    # Once: flow --steps 100000000000000 ran for ever.
    for steps in ("100000000000000", str(MAX_FLOW_STEPS + 1), "-1", "9" * 5000, "many"):
        assert_refused(run(capsys, "flow", ERRATUM, "--steps", steps), "LIMITS", "--steps: ")
    status, out, _ = run(capsys, "flow", ERRATUM, "--steps", str(MAX_FLOW_STEPS), "--json")
    after = loads_position(out)  # every canoe on the river fell; the port never moves (R-FLOW-5)
    assert status == 0 and [[c.place for c in p.canoes] for p in after.players] == [["port", "fallen"],
                                                                                     ["fallen", "fallen"]]


def test_gems_per_colour_is_bounded(tmp_path, capsys):
    # Once: render with gems_per_colour 10^30 built a list of every gem.
    huge = write(tmp_path, "huge.json", two_players(ruleset={"gems_per_colour": 10 ** 19}))
    assert_refused(run(capsys, "render", huge), "R-COMP-3", "huge.json: ruleset.gems_per_colour: ",
                   f"expected an integer 1..{MAX_GEMS_PER_COLOUR}, or an object from player count to such an integer, "
                   "got 10000000000000000000")
    # A table by player count (X-GEMS-1) is bounded the same way.
    table = write(tmp_path, "table.json", two_players(ruleset={"gems_per_colour": {"2": 10 ** 19}}))
    assert_refused(run(capsys, "render", table), "R-COMP-3", "table.json: ruleset.gems_per_colour: ",
                   f"players 2: expected an integer 1..{MAX_GEMS_PER_COLOUR}, got 10000000000000000000")
    over = write(tmp_path, "over.json", two_players(ruleset={"gems_per_colour": MAX_GEMS_PER_COLOUR + 1}))
    assert_refused(run(capsys, "render", over), "R-COMP-3", "over.json: ruleset.gems_per_colour: ")
    most = write(tmp_path, "most.json", two_players(ruleset={"gems_per_colour": MAX_GEMS_PER_COLOUR}))
    status, out, err = run(capsys, "render", most)
    assert status == 0 and err == "" and out.startswith("<svg") and out.rstrip().endswith("</svg>")


def test_a_board_of_more_discs_than_the_limit_is_refused_and_the_largest_is_drawn(tmp_path, capsys):
    # Once: render of a 1,000-disc board raised RecursionError.
    file = write(tmp_path, "p.json", doc(P("a", "port", "d1"), P("b", "port", "port"), board=chain_board(1000)))
    assert_refused(run(capsys, "render", file), "LIMITS", "p.json: board.river: a river of 1000 discs")
    largest = write(tmp_path, "q.json", doc(P("a", "port", f"d{MAX_DISCS}"), P("b", "port", "port"),
                                            board=chain_board(MAX_DISCS)))
    status, out, _ = run(capsys, "render", largest)
    assert status == 0 and out.rstrip().endswith("</svg>")
    assert all(f">d{i}</text>" in out for i in range(1, MAX_DISCS + 1))
    status, out, _ = run(capsys, "flow", largest, "--steps", "1", "--json")
    assert status == 0 and [c.place for c in loads_position(out).players[0].canoes] == ["port", "fallen"]


# -- 7. time limits that are limits: every command ends within 10% + 1 s of --timeout, with UNKNOWN where it ran out --

PUZZLES = ROOT / "puzzles"


def timed(capsys: pytest.CaptureFixture[str], seconds: float, *argv: str) -> tuple[int, str, str]:
    """Run a command with ``--timeout seconds`` and check that it ended within the margin (10% + 1 s)."""
    start = time.perf_counter()
    status = main([*argv, "--timeout", str(seconds)])
    elapsed = time.perf_counter() - start
    out, err = capsys.readouterr()
    assert elapsed <= 1.1 * seconds + 1, f"{argv[0]} --timeout {seconds} took {elapsed:.1f} s"
    return status, out, err


def test_solve_with_both_backends_on_five_players_ends_within_its_limit(capsys):
    # Once: solve --timeout 1 answered UNKNOWN after 28 s on a 5-player position (each backend and each z3
    # question had the whole second again), and a backend out of time counted as a disagreement (exit 1).
    status, out, _ = timed(capsys, 1, "solve", str(PUZZLES / "five-players-a-thief-first.json"), "--player", "red",
                           "--goal", "win", "--horizon", "3", "--backend", "both", "--json")
    data = json.loads(out)
    assert status == 3 and data["agree"] is True
    assert "unknown" in {b["verdict"] for b in data["backends"].values()}


def test_analyze_of_the_largest_board_ends_within_its_limit_naming_what_it_left_out(tmp_path, capsys):
    # Once: analyze --timeout 2 took 70 s (the limit held for each player's win search only, and the board's
    # distances were searched again and again: cubic in the river's length).
    file = write(tmp_path, "p.json", doc(P("a", "d1", "d150"), P("b", "port", "d3"), board=chain_board(MAX_DISCS),
                                         phase="cards"))
    status, out, _ = timed(capsys, 1, "analyze", file, "--json")
    assert status == 0
    for player in json.loads(out)["players"]:
        done = {s for s in ("win", "steals", "threats", "falls") if s in player}
        assert done | set(player.get("unfinished", [])) == {"win", "steals", "threats", "falls"}
        assert not done & set(player.get("unfinished", []))


def test_prove_ends_within_its_limit_and_every_property_left_is_unknown(capsys):
    status, out, _ = timed(capsys, 1, "prove", "--players", "2-5", "--json")
    properties = json.loads(out)["properties"]
    assert status == 3 and len(properties) == 16
    # Which properties the second leaves unasked depends on what this process has already built (a worker that
    # built the 2-player relations for an earlier test proves all 16 for 2 players within it), so the test holds
    # only what does not: the limit held, nothing was guessed, something was left unknown, and a note says why.
    assert {p["verdict"] for p in properties} <= {"proved", "unknown"}
    assert any("unknown" in p["players"].values() for p in properties)
    # A note says why: not asked once the limit ran out, or (R-PROP-10) its witness check stopped by the limit.
    assert {p["note"] for p in properties if p.get("note")} <= {"not asked: the time limit ran out",
                                                                "the witness check timed out"}


def test_mutants_out_of_time_are_unknown_not_survivors(capsys):
    # A mutant no property refuted before the time limit did not survive: exit 3, not 1.
    status, out, _ = timed(capsys, 1, "mutants", "--json")
    results = json.loads(out)
    assert status == 3 and not any(m["survived"] for m in results)
    assert any(not m["killed"] for m in results)


@pytest.mark.parametrize("argv", [["check", "--puzzles", "bundled", "--players", "2-5"],
                                  ["check", "--puzzles", "bundled", "--players", "2-5", "--jobs", "2"],
                                  ["diff", "standard", "bga-2013-05-09", "--players", "2-3"]])
def test_designers_commands_end_within_their_limit_in_every_process(capsys, argv):
    # The time limit travels with the tasks to the worker processes (--jobs 2). 2 s: starting the worker processes
    # (measured: up to 1.4 s on a busy machine) falls within it, and each command needs longer to finish (on the quiet
    # development machine: check 6.1 s, with two jobs 3.8 s, so that a limit of 5 s let the two jobs finish; diff
    # 6.2 s). Measured with --jobs 2 and two other processes busy: 2.1 s.
    status, _, _ = timed(capsys, 2, *argv, "--json")
    assert status == 3


def test_a_sweep_ends_within_its_grids_time_limit(tmp_path, capsys):
    grid = write(tmp_path, "grid.json", {"switches": {"steal_after_unload": [True, False]}, "players": "2-5",
                                         "puzzles": str(PUZZLES), "timeout": 1})
    start = time.perf_counter()
    status, out, _ = run(capsys, "sweep", grid, "--json")
    assert time.perf_counter() - start <= 1.1 + 1
    assert status in (1, 3) and any(r["unknown"] for r in json.loads(out)["rows"])


def test_the_console_commands_time_limit_counts_its_start_up():
    # Loading the tool takes about a second: the console command's limit counts from the start of its process.
    from niagara_solver.cli import common
    age = time.time() - common._process_start()
    assert 0 <= age <= 60.5  # the process's age, capped at a minute (a command started moments ago)
    try:
        common.began_at_process_start()
        with common.command_time_limit(5):
            from niagara_solver.model.limits import time_left
            left = time_left()
            assert left is not None and left < 5
    finally:
        common._began.clear()
    with common.command_time_limit(5):  # main(argv) from Python: from the call
        left = time_left()
        assert left is not None and 4.5 < left <= 5


def test_the_time_limit_is_one_for_the_whole_command():
    from niagara_solver.encoding.solver import make_solver
    from niagara_solver.model.limits import OutOfTime, check_time, deadline, time_left, time_limit
    import z3
    assert time_left() is None and time_left(5) == 5
    with time_limit(10):
        outer = deadline()
        with time_limit(100):  # a later limit inside changes nothing
            assert deadline() == outer
        with time_limit(0.05):  # an earlier one holds inside only
            assert deadline() < outer
            solver = make_solver(60)
            solver.add(z3.Int("x") > 1)
            time.sleep(0.06)
            assert solver.check() == z3.unknown  # asked with no time left: unknown, without asking z3
            with pytest.raises(OutOfTime):
                check_time()
        assert deadline() == outer and solver.check() == z3.sat
    assert deadline() is None


def _time_left_job(*_: Any) -> dict[str, Any]:
    from niagara_solver.model.limits import time_left
    return {"left": time_left()}


def test_tasks_in_worker_processes_get_the_commands_time_limit():
    from niagara_solver.jobs import Task, run_all
    from niagara_solver.model.limits import time_limit
    with time_limit(30):
        results = run_all([Task(_time_left_job, ()), Task(_time_left_job, (1,))], jobs=2)
    assert all(0 < r["left"] <= 30 for r in results.values())
    assert all(r["left"] is None for r in run_all([Task(_time_left_job, ()), Task(_time_left_job, (1,))], jobs=2)
               .values())


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_redrawn_while_a_long_step_runs(monkeypatch):
    # Once: crosscheck (and prove, analyze, solve) sat silent on a terminal while one long question ran.
    from niagara_solver.jobs import Progress
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    monkeypatch.setattr(Progress, "TICK", 0.05)
    with Progress(3, "prove", True) as bar:
        bar.step("R-PROP-1 2p")
        time.sleep(0.3)  # one long step: the line is still redrawn
    assert terminal.getvalue().count("prove [##########....................] 1/3, R-PROP-1 2p") >= 3
    assert terminal.getvalue().endswith("\r" + " " * 110 + "\r")
    quiet = _Terminal()
    monkeypatch.setattr("sys.stderr", quiet)
    with Progress(3, "prove", False):  # --json
        time.sleep(0.1)
    assert quiet.getvalue() == ""


# -- 8. pictures a player can read -----------------------------------------------------------------------------------

SVG_NS = "{http://www.w3.org/2000/svg}"


def _svg(pos_or_file: Any, **turn: Any) -> ET.Element:
    from niagara_solver.report.svg import render_svg
    pos = load_position(pos_or_file) if isinstance(pos_or_file, (str, Path)) else pos_or_file
    return ET.fromstring(render_svg(pos, **turn))


def _class(root: ET.Element, name: str) -> list[ET.Element]:
    return [e for e in root.iter() if e.get("class") == name]


def _words(text: ET.Element) -> str:
    """What a text element shows (its own text and its tspans, not its tooltip)."""
    return (text.text or "") + "".join((t.text or "" if t.tag == f"{SVG_NS}tspan" else "") + (t.tail or "")
                                       for t in text)


def test_a_turns_path_runs_under_the_discs_and_its_arrowhead_stops_at_the_rim(capsys):
    # Once: the arrowhead covered the label of the disc it pointed at, and the path ran over other discs' labels.
    from niagara_solver.report.svg import DISC_R, layout
    pos = load_position(PUZZLES / "erratum-two-canoes.json")
    root = _svg(pos, turn=Turn.parse("4: <port; port: >5"), player=0)
    order = list(root.iter())
    paths = _class(root, "turn")
    discs = [e for e in order if e.tag == f"{SVG_NS}circle" and e.get("r") == str(DISC_R)]
    assert len(paths) == 2 and all(order.index(p) < order.index(discs[0]) for p in paths)
    x, y = layout(pos.board)["5"]
    ex, ey = map(float, paths[1].get("points", "").split()[-1].split(","))
    assert paths[1].findtext(f"{SVG_NS}title") == "port: >5" and ((ex - x) ** 2 + (ey - y) ** 2) ** 0.5 > DISC_R
    starts = [p.get("points", "").split()[0] for p in paths]
    assert starts[0] != starts[1]  # two canoes' paths side by side, not one on the other


def test_unloads_steals_and_banks_are_drawn_where_they_happen():
    # Once: only the caption said what the turn unloaded and stole.
    steps = _class(_svg(PUZZLES / "steal-after-unloading.json", turn=Turn.parse("4: -ruby <2 xblue/amber"), player=0),
                   "turn-step")
    assert [s.findtext(f"{SVG_NS}title") for s in steps] == ["red unloads into the cave on 4: − ruby",
                                                             "red steals (R-STEAL-1) on 2: steals blue's amber"]
    banks = _class(_svg(PUZZLES / "erratum-two-canoes.json", turn=Turn.parse("4: <port; port: >5"), player=0),
                   "turn-step")
    assert [s.findtext(f"{SVG_NS}title") for s in banks] == ["red banks (R-GEM-4) on port: banks ruby"]


def test_the_fork_marker_is_a_tag_not_an_arrow():
    root = _svg(PUZZLES / "long-river.json")
    tags = _class(root, "fork-marker")
    assert sorted(t.findtext(f"{SVG_NS}title") for t in tags) == [
        "fork marker: the next disc goes down B (R-FLOW-4)", "fork marker: the next disc goes down R (R-FLOW-4)"]
    assert not [e for e in root.iter() if e.get("marker-end")]  # arrowheads belong to turns only


def test_a_gem_in_a_canoe_of_its_own_colour_stands_on_a_white_ring():
    # Once: a red canoe carrying a ruby was red on red.
    canoe = next(g for g in _class(_svg(PUZZLES / "erratum-two-canoes.json"), "canoe") if g.get("data-place") == "4")
    circles = [c for c in canoe if c.tag == f"{SVG_NS}circle"]
    assert [c.get("fill") for c in circles] == ["#fff", "#e0245e"] and float(circles[0].get("r", 0)) > float(
        circles[1].get("r", 0))


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("board", ["standard", "long-two-forks"])
def test_every_mark_stays_inside_the_picture_and_the_port_holds_its_canoes(players, board):
    # Once: with 5 players the port's canoes overflowed its box, a long name ran off the picture under the bank
    # dots, and "+2 storm" overflowed its box.
    from niagara_solver.model.format import position_from_json
    names = ["Maximiliane-Annabella-Wilhelmina-von-Niagara", "b", "averyveryveryverylongplayernamewithoutspaces",
             "d", "e", "f"][:players]
    rules = {"x_sixth_player": True} if players == 6 else "standard"
    board_json = json.loads((PUZZLES / "long-river.json").read_text())["board"] if board != "standard" else None
    document = doc(*(P(n, "port", "port", bank={"ruby": 1, "amber": 1, "diamond": 1}) for n in names), phase="cards",
                   weather=2, ruleset=rules, **({"board": board_json} if board_json else {}))
    root = _svg(position_from_json(document))
    width, height = float(root.get("width", 0)), float(root.get("height", 0))
    port = next(e for e in root.iter(f"{SVG_NS}rect") if e.get("fill") == "#d9c7a3")
    left, top = float(port.get("x", 0)), float(port.get("y", 0))
    right, bottom = left + float(port.get("width", 0)), top + float(port.get("height", 0))
    hulls = [g for g in _class(root, "canoe") if g.get("data-place") == "port"]
    assert len(hulls) == 2 * players
    for hull in hulls:
        xs = [float(v) for v in hull.find(f"{SVG_NS}path").get("d", "").replace("M", "").replace("Q", "")
              .replace("Z", "").split()]
        assert left < min(xs[0::2]) and max(xs[0::2]) < right and top < min(xs[1::2]) and max(xs[1::2]) < bottom
    for text in root.iter(f"{SVG_NS}text"):
        words = _words(text)
        x = float(text.get("x", 0))
        size = float(text.get("font-size", 12))
        extent = 0.55 * size * len(words)  # above Helvetica's average width (digits, capitals included)
        start = x - extent / 2 if text.get("text-anchor") == "middle" else x
        assert 0 <= start and start + extent <= width and float(text.get("y", 0)) <= height, words
    storm = [e for e in root.iter(f"{SVG_NS}text") if _words(e) == "+2 storm"]
    box = [e for e in root.iter(f"{SVG_NS}rect") if e.get("fill") == "#f4a261"][0]
    assert storm and 0.6 * 11 * len("+2 storm") < float(box.get("width", 0))
    long_name = [t for t in root.iter(f"{SVG_NS}text") if t.findtext(f"{SVG_NS}title") == names[0]]
    assert long_name and _words(long_name[0]).startswith("Maximiliane-Annabella-W")


def test_a_finished_game_shows_who_won():
    root = _svg(PUZZLES / "the-game-is-over.json")
    texts = [_words(t) for t in root.iter(f"{SVG_NS}text")]
    assert "Game over: red wins (R-END-2, R-END-3)" in texts and "red ★ wins" in texts


def test_the_legend_explains_the_lifebuoy_the_bank_dots_and_every_other_mark():
    root = _svg(PUZZLES / "erratum-two-canoes.json", turn=Turn.parse("4: <port; port: >5"), player=0)
    assert [_words(g.findall(f"{SVG_NS}text")[-1]) for g in _class(root, "legend")] == [
        "lifebuoy: this player acts first (R-COMP-5)", "dots after bank: the gems a player banked",
        "fork marker: the next disc's branch (R-FLOW-4)",
        "dashed link: one cave by several discs (R-BOARD-4)", "dashed path: an acting canoe's way",
        "label: gem loaded +, unloaded −, stolen, banked"]


def test_a_cave_beside_two_discs_is_drawn_once_with_its_gems():
    # Once: the sapphire and ruby caves were drawn twice, once empty.
    pos = load_position(PUZZLES / "erratum-two-canoes.json")
    root = _svg(pos)
    sapphires = [c for c in root.iter(f"{SVG_NS}circle") if c.findtext(f"{SVG_NS}title") == "sapphire"
                 and c.get("r") == "4"]
    assert len(sapphires) == pos.cave(Colour.SAPPHIRE).get(Colour.SAPPHIRE) == 8
    assert "".join(t.findtext(f"{SVG_NS}title") or "" for t in _class(root, "cave-link")) == (
        "one sapphire cave beside 6L and 6R (R-BOARD-4)one ruby cave beside 7L and 7R (R-BOARD-4)")
    assert not [t for t in root.iter(f"{SVG_NS}text") if _words(t) == "empty"]
