"""Fuzzing every command: seeded mutations of positions, rulesets, boards, grids, turns in the notation and option
values, each fed to the command line (``main(argv)``), with three oracles:

* **no traceback**: ``main`` returns an exit status (0, 1, 2 or 3); no exception escapes it;
* **no hang**: every call ends within :data:`CALL_SECONDS` (commands that solve get ``--timeout`` 0.5 to 1);
* **no silent acceptance**: bad input is one error line on standard error with exit status 2 and nothing on
  standard output; input that is accepted is valid: a position passes every invariant and reads back equal from
  the file the tool writes, a ruleset reads back equal, a turn drawn or played is one the generator lists. And a
  mutation that always makes a document invalid (a key given twice, a lone surrogate, nesting past the limit, an
  integer past the limit, a truncated file, ...) is always refused.

The generator is seeded (the same cases every run) and bounded: the whole file runs in well under a minute.
"""

from __future__ import annotations

import copy
import json
import random
import signal
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from niagara_solver.cli.main import main
from niagara_solver.engine.apply import apply_turn
from niagara_solver.engine.rescue import begin_turns
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import Card
from niagara_solver.model.errors import NiagaraError
from niagara_solver.model.format import dumps_position, load_document, load_ruleset, loads_position
from niagara_solver.model.invariants import position_problems
from niagara_solver.model.notation import Turn

ROOT = Path(__file__).parent.parent
PUZZLES = ROOT / "puzzles"
POSITIONS = sorted(p for p in PUZZLES.glob("*.json"))
ERRATUM = str(PUZZLES / "erratum-two-canoes.json")

#: The longest any one call may take (a hang fails the test instead of blocking the suite).
CALL_SECONDS = 20

#: How many cases each fuzzing test draws.
CASES = {"positions": 500, "rulesets": 160, "boards": 160, "grids": 12, "turns": 400, "options": 300}


class Hang(Exception):
    """A call ran past :data:`CALL_SECONDS`."""


def call(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    """Run the command line once under the three oracles' first two: an exit status, within the time allowed. A
    refusal (exit 2) is checked to be one short error line with nothing on standard output."""
    def hang(*_: Any) -> None:
        raise Hang(f"{argv} ran past {CALL_SECONDS} s")
    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(CALL_SECONDS)
    try:
        status = main(argv)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    out, err = capsys.readouterr()
    assert status in (0, 1, 2, 3), (argv, status, err)
    assert "Traceback" not in err, (argv, err)
    if status == 2:
        assert out == "", (argv, out[:200])
        assert err.startswith("niagara-solve: error: ") and err.count("\n") == 1, (argv, err[:400])
        assert len(err) < 1000, (argv, len(err))
    return status, out, err


# -- mutations ---------------------------------------------------------------------------------------------------

#: Values put in place of any value of a document.
HOSTILE: list[Any] = [None, True, False, 0, -1, 1, 7, 99, 10 ** 19, -(10 ** 19), 1.5, float("nan"), float("inf"), "",
                      " ", "port", "Port", "fallen", "falls", "6L", "9", "cloud", "ruby", "Ruby", "re\rd", "x;y", "a b",
                      "\ud800", "\u2028", "x" * 5000, [], {}, [[[]]], {"a": 1}, [1, 2, 3], ["ruby", "ruby", "ruby"],
                      {"ruby": 99}, {"ruby": -1}]


def paths(value: Any, here: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path into a JSON value (keys and indexes), the value's own first."""
    yield here
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*here, key))
    elif isinstance(value, list):
        for k, item in enumerate(value):
            yield from paths(item, (*here, k))


#: Values of the game's own vocabulary, for changes a valid document may well survive.
NEAR = ["port", "1", "2", "3", "4", "5", "6L", "6R", "7L", "7R", "8RA", "fallen", "ruby", "amber", "diamond",
        "sapphire", "amethyst", "red", "blue", "green", "cloud", "free", "alternate", "count", "cards", "turns"]


def near(value: Any, rng: random.Random) -> Any:
    """A value like ``value``: another small number, another word of the game, the other truth value."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return rng.randint(-1, 9)
    if isinstance(value, str):
        return rng.choice(NEAR)
    if isinstance(value, list) and value:
        return [near(v, rng) for v in value]
    return value


def mutate(document: Any, rng: random.Random) -> Any:
    """A copy of ``document`` with one to three changes: a value replaced by a hostile one, a key removed, a list
    item repeated or dropped, an unknown key added."""
    document = copy.deepcopy(document)
    for _ in range(rng.randint(1, 3)):
        where = rng.choice(list(paths(document))[1:] or [()])
        if not where:
            return rng.choice(HOSTILE)
        parent = document
        for step in where[:-1]:
            parent = parent[step]
        last = where[-1]
        kind = rng.random()
        if kind < 0.3:
            parent[last] = near(parent[last], rng)
        elif kind < 0.6:
            parent[last] = copy.deepcopy(rng.choice(HOSTILE))
        elif kind < 0.75 and isinstance(parent, dict):
            del parent[last]
        elif kind < 0.9 and isinstance(parent, list):
            parent.insert(last, copy.deepcopy(parent[last])) if rng.random() < 0.5 else parent.pop(last)
        elif isinstance(parent, dict):
            key = rng.choice(["extra", "Players", "cave", "x_unknown", f"{last}_"])
            parent[key] = rng.choice(HOSTILE)
    return document


def as_text(document: Any) -> str:
    """JSON text as a file holds it (lone surrogates as escapes, NaN and Infinity as Python writes them)."""
    return json.dumps(document, ensure_ascii=True)


#: Text edits after which no document is valid (each must be refused, exit 2).
def _duplicate_key(text: str, rng: random.Random) -> str:
    return text.replace("{", '{"comment": 1, "comment": 2, ', 1)


def _deep(text: str, rng: random.Random) -> str:
    return text.replace("{", '{"comment": ' + "[" * 40 + "]" * 40 + ", ", 1)


def _long_integer(text: str, rng: random.Random) -> str:
    return text.replace("{", '{"comment": ' + "9" * rng.randint(21, 6000) + ", ", 1)


def _not_a_number(text: str, rng: random.Random) -> str:
    return text.replace("{", '{"comment": ' + rng.choice(["NaN", "Infinity", "-Infinity"]) + ", ", 1)


def _lone_surrogate(text: str, rng: random.Random) -> str:
    return text.replace("{", '{"comment": "a\\ud83c", ', 1)


def _truncated(text: str, rng: random.Random) -> str:
    return text[:rng.randint(0, len(text) - 2)]


def _garbage(text: str, rng: random.Random) -> str:
    k = rng.randint(0, len(text))
    return text[:k] + rng.choice(["\x00", "}", "]]", ",,", "\"", "\\x"]) + text[k:]


BREAKERS: list[Callable[[str, random.Random], str]] = [_duplicate_key, _deep, _long_integer, _not_a_number,
                                                       _lone_surrogate, _truncated]


def documents(kind: str, seed: int, base: list[Any]) -> Iterator[tuple[str, bool]]:
    """``CASES[kind]`` texts: (JSON text, must it be refused?). Most are value mutations (either answer may be
    right, and the oracles check it); one in five is a text edit that no valid document survives."""
    rng = random.Random(f"{kind}-{seed}")
    for _ in range(CASES[kind] // 2):
        original = rng.choice(base)
        text = as_text(mutate(original, rng))
        if rng.random() < 0.2:
            yield rng.choice(BREAKERS)(as_text(original), rng), True
        elif rng.random() < 0.1:
            yield _garbage(text, rng), False
        else:
            yield text, False


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


# -- positions ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1])
def test_fuzzed_positions(tmp_path, capsys, seed):
    base = [_load(p) for p in POSITIONS]
    for k, (text, broken) in enumerate(documents("positions", seed, base)):
        file = tmp_path / f"p{k}.json"
        file.write_text(text, encoding="utf-8")
        status, out, err = call(capsys, ["show", str(file)])
        if broken:
            assert status == 2, (text[:300], out[:300])
        if status != 0:
            assert status == 2, err
            continue
        # Accepted: a valid position, which the tool writes and reads back equal.
        pos, extras = load_document(str(file))
        assert position_problems(pos) == [], text[:300]
        assert loads_position(dumps_position(pos, extras)) == pos
        player = pos.players[0].name
        for argv in (["turns", str(file), "--player", player], ["render", str(file)],
                     ["flow", str(file), "--steps", str(k % 9)],
                     ["play", str(file), "--rounds", "2", "--seed", str(k)]):
            call(capsys, argv)
        if k % 12 == 0:  # the solving commands, bounded by their time limit
            call(capsys, ["analyze", str(file), "--timeout", "0.5", "--json"])
            call(capsys, ["solve", str(file), "--player", player, "--goal", ["win", "steal", "safe"][k % 3],
                          "--timeout", "0.5"])


# -- rulesets and boards -----------------------------------------------------------------------------------------

RULESETS: list[Any] = [{"base": "standard", "fork_policy": "free"}, {"base": "bga-2013-05-09"},
                       {"steal_after_unload": False, "capacity": 2, "min_flow": 1},
                       {"base": "flussgeister", "x_joe": True}, {"tiebreak": "count", "gems_per_colour": {"2": 6}}]


def test_fuzzed_rulesets(tmp_path, capsys):
    for k, (text, broken) in enumerate(documents("rulesets", 0, RULESETS)):
        file = tmp_path / f"r{k}.json"
        file.write_text(text, encoding="utf-8")
        status, _, err = call(capsys, ["show", ERRATUM, "--ruleset", str(file)])
        if broken:
            assert status == 2, text[:300]
        if status == 0:
            rules = load_ruleset(str(file))  # accepted: it reads back equal from what the tool writes
            assert type(rules).from_json(rules.to_json()) == rules
        if k % 10 == 0:
            call(capsys, ["prove", "--ruleset", str(file), "--players", "2", "--property", "R-PROP-3", "--timeout",
                          "1"])


def test_fuzzed_boards(tmp_path, capsys):
    long_river = _load(PUZZLES / "long-river.json")
    boards = [long_river["board"], _load(PUZZLES / "boards" / "long-two-forks.json")]
    for k, (text, broken) in enumerate(documents("boards", 0, boards)):
        file = tmp_path / f"b{k}.json"
        file.write_text(text, encoding="utf-8")
        # Inside a position (its canoes on the port, so any river can hold them) and as a board file.
        try:
            board = json.loads(text)
        except ValueError:
            board = None
        if board is not None:
            document = {**long_river, "board": board, "fork": {}}
            for player in document["players"]:
                player["canoes"] = [{"at": "port"}, {"at": "port"}]
            position = tmp_path / f"q{k}.json"
            position.write_text(as_text(document), encoding="utf-8")
            status, _, _ = call(capsys, ["show", str(position)])
            if broken:
                assert status == 2
            if status == 0:
                for argv in (["render", str(position)], ["flow", str(position), "--steps", "3"],
                             ["turns", str(position), "--player", "blue", "--card", "3"]):
                    call(capsys, argv)
        status, _, _ = call(capsys, ["prove", "--board", str(file), "--players", "2", "--property", "R-PROP-1",
                                     "--timeout", "0.5"])
        if broken:
            assert status == 2


def test_fuzzed_grids(tmp_path, capsys):
    grids = [{"switches": {"steal_after_unload": [True, False]}, "players": 2, "timeout": 0.5},
             {"base": "standard", "switches": {"capacity": [1, 2]}, "boards": ["standard"], "players": "2",
              "timeout": 0.5}]
    for k, (text, broken) in enumerate(documents("grids", 0, grids)):
        file = tmp_path / f"g{k}.json"
        file.write_text(text, encoding="utf-8")
        status, _, _ = call(capsys, ["sweep", str(file), "--json"])
        if broken:
            assert status == 2


# -- turns in the notation -----------------------------------------------------------------------------------------

TOKENS = ["4", "port", "5", "6L", "7R", "9", "falls", "fallen", "x", ":", ": ", ";", "; ", " ", ">", "<", "+", "-",
          "xblue/", "xred/", "xnobody/", "ruby", "amber", "diamond", "sapphire", "amethyst", "cloud", "up", "down",
          "stay", "[", "]", "(double)", ",", "/", "~", "moose", "trade", "as 2", "lasso", "\u00e9", "\x00", "\n"]


def turns(rng: random.Random) -> Iterator[str]:
    """Texts near the notation: legal turns with an edit, and strings of the notation's tokens."""
    for _ in range(CASES["turns"]):
        if rng.random() < 0.5:
            good = rng.choice(["4: <port; port: >5", "4: -ruby +diamond <3", "port: >5", "4: <2", "cloud up",
                               "port: >3 +amethyst; 4: <1", "stay"])
            k = rng.randint(0, len(good))
            yield good[:k] + rng.choice(TOKENS) + good[k + rng.randint(0, 2):]
        else:
            yield "".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 12)))


def test_fuzzed_turns(capsys):
    pos = begin_turns(load_document(ERRATUM)[0])
    legal = {o.position for o in legal_turns(pos, 0, Card.FIVE)}
    rng = random.Random("turns")
    for k, text in enumerate(turns(rng)):
        status, _, _ = call(capsys, ["render", ERRATUM, "--player", "red", "--card", "5", "--turn", text])
        if status == 0:  # drawn: then it is a legal turn, one the generator lists
            assert apply_turn(pos, 0, Turn.parse(text), Card.FIVE).position in legal, text
        status, out, _ = call(capsys, ["round", ERRATUM, "--play", "blue=3", "--act", f"red={text}", "--act",
                                       "blue=2: <port; 6L: <3"])
        if status == 0:
            assert "Round 4" in out
        if k % 30 == 0:
            call(capsys, ["why", ERRATUM, "--player", "red", "--card", "5", "--turn", text])


# -- option values -------------------------------------------------------------------------------------------------

VALUES = ["", "-", "--", "0", "1", "2", "-1", "3.5", "1e3", "1e400", "nan", "inf", "-inf", "9" * 40, "2-5", "5-2",
          "2-", "-2", "2,3", "2,,3", "cloud", "red", "blue", "nobody", "\u00e9", "0x10", " 2", "2 ", "7", "100", "101",
          "blue=3", "red=4: <port"]

#: Each command with an option whose value is fuzzed (``{}`` is where the value goes).
OPTIONS: list[list[str]] = [
    ["flow", ERRATUM, "--steps", "{}"],
    ["turns", ERRATUM, "--player", "{}"],
    ["turns", ERRATUM, "--player", "red", "--card", "{}"],
    ["solve", ERRATUM, "--player", "red", "--goal", "win", "--horizon", "{}", "--timeout", "0.5"],
    ["solve", ERRATUM, "--player", "red", "--goal", "win", "--timeout", "{}"],
    ["play", ERRATUM, "--rounds", "{}", "--seed", "1"],
    ["play", ERRATUM, "--rounds", "1", "--seed", "{}"],
    ["round", ERRATUM, "--play", "{}"],
    ["round", ERRATUM, "--rescue", "{}", "--play", "blue=3"],
    ["mutants", "--players", "{}", "--mutant", "no-such-mutant"],
    ["prove", "--players", "{}", "--property", "R-PROP-0"],
    ["check", "--players", "{}", "--puzzles", "/nowhere"],
    ["crosscheck", "--count", "{}", "--timeout", "0"],
    ["analyze", ERRATUM, "--timeout", "{}", "--json"],
    ["render", ERRATUM, "--player", "{}", "--turn", "4: <port"],
    ["{}", ERRATUM],
]


def test_fuzzed_option_values(capsys):
    rng = random.Random("options")
    for _ in range(CASES["options"]):
        template = rng.choice(OPTIONS)
        value = rng.choice(VALUES)
        call(capsys, [value if part == "{}" else part for part in template])


def test_the_fuzzer_finds_what_it_is_meant_to_find(tmp_path, capsys, monkeypatch):
    # The oracles are not vacuous: a refusal that is not one line, an acceptance of a broken document and a
    # traceback are each caught.
    file = tmp_path / "p.json"
    file.write_text(_duplicate_key(as_text(_load(PUZZLES / "erratum-two-canoes.json")), random.Random(0)))
    assert call(capsys, ["show", str(file)])[0] == 2

    def crash(*_: Any) -> None:
        raise RuntimeError("a bug")
    monkeypatch.setattr("niagara_solver.report.text.show", crash)
    with pytest.raises(RuntimeError):
        call(capsys, ["show", ERRATUM])

    def half_an_answer(*_: Any) -> None:
        print("half an answer")
        raise NiagaraError("then a refusal")
    monkeypatch.setattr("niagara_solver.report.text.show", half_an_answer)
    with pytest.raises(AssertionError):
        call(capsys, ["show", ERRATUM])
