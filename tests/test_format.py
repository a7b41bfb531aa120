"""Position files: defaults, canonical form, round trips, and every kind of bad input (FORMAT.md)."""

import copy
import json

import pytest
from hypothesis import given

from helpers import P, doc
from niagara_solver.cli.main import main
from niagara_solver.model.atoms import Colour, Gems, Phase
from niagara_solver.model.errors import InputError
from niagara_solver.model.format import dumps_position, loads_position, position_from_json, position_to_json
from niagara_solver.model.position import Canoe
from strategies import positions

FORMAT_EXAMPLE = {
    "format": "niagara-position/1", "ruleset": "standard", "board": "standard", "round": 3, "weather": 1,
    "fork": "L", "lifebuoy": "red",
    "players": [
        {"name": "red", "canoes": [{"at": "port"}, {"at": "4", "gem": "ruby"}],
         "hand": [1, 2, 4, 5, "cloud"], "bank": {"amethyst": 1, "sapphire": 2}},
        {"name": "blue", "canoes": [{"at": "6L", "gem": "sapphire"}, {"at": "fallen"}],
         "hand": [1, 2, 3, 4, 6], "bank": {}, "card": 3}],
    "caves": {"amethyst": {"amethyst": 7}, "diamond": {"diamond": 8}, "amber": {"amber": 8},
              "sapphire": {"sapphire": 5}, "ruby": {"ruby": 7}},
}


def test_the_format_example_loads():
    pos = position_from_json(FORMAT_EXAMPLE)
    assert pos.round == 3 and pos.weather == 1 and pos.forks == (("5", "L"),) and pos.lifebuoy == 0
    assert pos.players[0].canoes == (Canoe("port"), Canoe("4", (Colour.RUBY,)))
    assert pos.players[1].card is not None and pos.players[1].card.label == "3"
    assert pos.phase is Phase.CARDS


def test_defaults_fill_what_is_left_out():
    pos = position_from_json({"format": "niagara-position/1", "lifebuoy": "a",
                              "players": [P("a", "port", "3:ruby", bank={"ruby": 2}), P("b", "port", "port")]})
    assert pos.round == 1 and pos.weather == 0 and pos.forks == (("5", "L"),)
    assert len(pos.players[1].hand) == 7 and pos.players[1].bank == Gems()
    assert pos.cave(Colour.RUBY) == Gems.of([Colour.RUBY] * 5)  # 8 - 1 on a canoe - 2 banked
    assert pos.cave(Colour.AMETHYST) == Gems.of([Colour.AMETHYST] * 8)


def test_integer_disc_ids_are_read_as_discs():
    document = copy.deepcopy(FORMAT_EXAMPLE)
    document["players"][0]["canoes"][1]["at"] = 4
    assert position_from_json(document) == position_from_json(FORMAT_EXAMPLE)


def test_canonical_form_ignores_canoe_and_key_order():
    a = copy.deepcopy(FORMAT_EXAMPLE)
    b = copy.deepcopy(FORMAT_EXAMPLE)
    b["players"][0]["canoes"].reverse()
    b["players"][1]["hand"].reverse()
    b = dict(reversed(list(b.items())))
    pa, pb = position_from_json(a), position_from_json(b)
    assert pa == pb and hash(pa) == hash(pb)
    assert dumps_position(pa) == dumps_position(pb)


def test_mid_round_positions_round_trip():
    document = doc(P("a", "port", "3", hand=[1, 2], card=5), P("b", "2", "port", card=4), P("c", "port", "port"),
                   acted=["a"])
    pos = position_from_json(document)
    assert pos.phase is Phase.TURNS and pos.acted == (0,) and pos.next_to_act() == 1
    out = position_to_json(pos)
    assert out["phase"] == "turns" and out["acted"] == ["a"] and out["players"][0]["card"] == 5
    assert loads_position(dumps_position(pos)) == pos


def test_once_everybody_has_acted_a_player_may_have_no_canoe_in_play():
    # The position right after the flow (as a certificate writes it: "turns", everybody acted) may have a player
    # whose canoes all went over the falls (R-FLOW-6); with a player still to act, no (R-RESCUE-2).
    after_flow = doc(P("a", "port", "3", hand=[1, 2], card=5), P("b", "fallen", "fallen", hand=[3], card=4),
                     acted=["a", "b"])
    pos = position_from_json(after_flow)
    assert not pos.players[1].canoes_in_play and loads_position(dumps_position(pos)) == pos
    with pytest.raises(InputError, match=r"players\[1\]\.canoes: .*\(R-RESCUE-2\)"):
        position_from_json(doc(P("a", "port", "3", hand=[1, 2], card=5), P("b", "fallen", "fallen", hand=[3, 4],
                                                                           card=4), acted=["a"]))


@given(positions(phase=None))
def test_every_valid_position_round_trips_through_json(pos):
    text = dumps_position(pos)
    again = loads_position(text)
    assert again == pos
    assert dumps_position(again) == text
    assert json.loads(text)["format"] == "niagara-position/1"


# -- bad input: one case per kind, through the command line ------------------------------------------

def bad(mutate):
    document = copy.deepcopy(FORMAT_EXAMPLE)
    mutate(document)
    return document


def _set(path, value):
    def mutate(d):
        target = d
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return mutate


def _delete(path):
    def mutate(d):
        target = d
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return mutate


BAD_INPUTS = [
    ("invalid JSON", '{"format": "niagara-position/1", "players": [}', "line 1 column 46", "FORMAT"),
    ("not an object", "[1, 2]", "a position is a JSON object", "FORMAT"),
    ("wrong format", bad(_set(["format"], "niagara/2")), "format:", "FORMAT"),
    ("wrong type: weather", bad(_set(["weather"], "rain")), "weather:", "R-COMP-4"),
    ("wrong type: canoes", bad(_set(["players", 0, "canoes"], "port")), "players[0].canoes:", "R-COMP-2"),
    ("wrong type: bank count", bad(_set(["players", 0, "bank", "amethyst"], -1)), "players[0].bank.amethyst:",
     "R-COMP-3"),
    ("unknown field", bad(_set(["colour"], "red")), "colour:", "FORMAT"),
    ("unknown player: lifebuoy", bad(_set(["lifebuoy"], "green")), "lifebuoy:", "R-COMP-5"),
    ("unknown player: acted", bad(lambda d: d.update(phase="turns", acted=["green"])), "acted[0]:", "R-TURN-1"),
    ("unknown disc", bad(_set(["players", 0, "canoes", 0, "at"], "8")), "players[0].canoes[0].at:", "R-BOARD-1"),
    ("unknown colour", bad(_set(["players", 0, "canoes", 1, "gem"], "emerald")), "players[0].canoes[1].gem:",
     "R-COMP-3"),
    ("unknown card", bad(_set(["players", 0, "hand"], [1, 2, 8])), "players[0].hand[2]:", "R-COMP-2"),
    ("an expansion card without x_cards", bad(_set(["players", 0, "hand"], [1, 2, 7])), "players[0].hand[2]:",
     "X-CARDS-1"),
    ("unknown switch", bad(_set(["ruleset"], {"steal_after_unlaod": False})), "ruleset.steal_after_unlaod:",
     "SWITCHES"),
    ("bad switch value", bad(_set(["ruleset"], {"capacity": 3})), "ruleset.capacity:", "R-GEM-2"),
    ("unknown preset", bad(_set(["ruleset"], "bga-2099")), "ruleset:", "SWITCHES"),
    ("gem on a port canoe", bad(_set(["players", 0, "canoes", 0, "gem"], "ruby")), "players[0].canoes[0].gem:",
     "R-GEM-5"),
    ("gem on a fallen canoe", bad(_set(["players", 1, "canoes", 1, "gem"], "ruby")), "players[1].canoes[1].gem:",
     "R-FLOW-6"),
    ("two gems on a canoe", bad(_set(["players", 0, "canoes", 1], {"at": "4", "gems": ["ruby", "amber"]})),
     "players[0].canoes[1].gems:", "R-GEM-2"),
    ("conservation broken", bad(_set(["caves", "ruby", "ruby"], 8)), "caves:", "R-COMP-3"),
    ("too many gems without caves", bad(lambda d: (d.pop("caves"), d["players"][0]["bank"].update(ruby=8))),
     "players:", "R-COMP-3"),
    ("empty hand", bad(_set(["players", 0, "hand"], [])), "players[0].hand:", "R-CARD-2"),
    ("card not in hand", bad(_set(["players", 1, "card"], 5)), "players[1].card:", "R-CARD-2"),
    ("duplicate card", bad(_set(["players", 0, "hand"], [1, 1, 2])), "players[0].hand:", "R-COMP-2"),
    ("too few players", bad(lambda d: d["players"].pop()), "players:", "R-COMP-1"),
    ("a sixth player", bad(lambda d: d["players"].extend(
        {"name": f"x{i}", "canoes": [{"at": "port"}, {"at": "port"}]} for i in range(4))), "players:", "X-SIX-1"),
    ("too many players", bad(lambda d: d["players"].extend(
        {"name": f"x{i}", "canoes": [{"at": "port"}, {"at": "port"}]} for i in range(5))), "players:", "R-COMP-1"),
    ("duplicate names", bad(_set(["players", 1, "name"], "red")), "players[1].name:", "R-COMP-1"),
    ("three canoes", bad(lambda d: d["players"][0]["canoes"].append({"at": "port"})), "players[0].canoes:",
     "R-COMP-2"),
    ("bad fork marker", bad(_set(["fork"], "M")), "fork:", "R-FLOW-4"),
    ("missing lifebuoy", bad(_delete(["lifebuoy"])), "lifebuoy:", "R-COMP-5"),
    ("bad phase", bad(_set(["phase"], "flow")), "phase:", "R-ROUND-1"),
    ("acted at the start of a round", bad(_set(["acted"], ["red"])), "acted:", "R-ROUND-1"),
    ("acted without a card", bad(lambda d: d.update(phase="turns", acted=["red"])), "players[0].card:", "R-TURN-1"),
    ("no canoe in play in phase II", bad(lambda d: (d.update(phase="turns"),
                                                    d["players"][1]["canoes"].__setitem__(0, {"at": "fallen"}),
                                                    d["caves"]["sapphire"].update(sapphire=6))),
     "players[1].canoes:", "R-RESCUE-2"),
    ("bad board: join", bad(_set(["board"], {"river": {"1": "2", "2": {"L": "3", "R": "4"}, "3": "5", "4": "5",
                                                       "5": "falls"},
                                             "caves": {c: ["5"] for c in ["amethyst"]}})),
     "board.river.4:", "R-BOARD-1"),
    ("bad board: two tops", bad(_set(["board"], {"river": {"1": "falls", "2": "falls"}, "caves": {}})),
     "board.river:", "R-BOARD-2"),
    ("bad board: loop", bad(_set(["board"], {"river": {"1": "2", "2": "falls", "3": "4", "4": "3"}, "caves": {}})),
     "board.river.3:", "R-BOARD-2"),
    ("bad board: cave on no disc", bad(_set(["board"], {
        "river": {"1": "2", "2": "falls"},
        "caves": {"amethyst": ["1"], "diamond": ["2"], "amber": ["9"], "sapphire": ["1"], "ruby": ["2"]}})),
     "board.caves.amber[0]:", "R-BOARD-4"),
    ("bad board: colour without a cave", bad(_set(["board"], {"river": {"1": "falls"}, "caves": {"amethyst": ["1"]}})),
     "board.caves:", "R-BOARD-5"),
    ("unknown board preset", bad(_set(["board"], "huge")), "board:", "R-BOARD-1"),
]


@pytest.mark.parametrize("kind, content, path, rule", BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_input_names_the_path_and_the_rule(tmp_path, capsys, kind, content, path, rule):
    file = tmp_path / "position.json"
    file.write_text(content if isinstance(content, str) else json.dumps(content))
    for argv in (["show", str(file)], ["turns", str(file), "--player", "red", "--card", "1"], [str(file)]):
        status = main(argv)
        out, err = capsys.readouterr()
        assert status == 2, kind
        assert out == ""
        assert err.startswith("niagara-solve: error: ") and err.count("\n") == 1
        assert f"position.json: {path}" in err, err
        assert err.rstrip().endswith(f"({rule})"), err
        assert "Traceback" not in err


def test_missing_file_is_a_clear_error(tmp_path, capsys):
    assert main(["show", str(tmp_path / "nowhere.json")]) == 2
    assert "cannot read the file" in capsys.readouterr().err


# -- errors in the words of the file: true, null, "missing", and a hint for a mistyped key ------------------------

@pytest.mark.parametrize("mutate, line", [
    # Once: "got None" for a file without "format".
    (_delete(["format"]), 'format: missing: a position file starts with "format": "niagara-position/1" (FORMAT)'),
    (_set(["format"], None), 'format: expected "format": "niagara-position/1", got null (FORMAT)'),
    (_set(["players", 0, "hand"], [1, True]), "players[0].hand[1]:"),
    # Once: a mistyped key listed every field but offered no "did you mean", as a mistyped option does.
    (lambda d: d.update(plyers=d.pop("players")), "plyers: unknown field; a position has format, ruleset, board, "
     "round, phase, acted, weather, fork, lifebuoy, whirlpool, beaver, moose, joe, players, caves, puzzle, comment; "
     "did you mean 'players'? (FORMAT)"),
    (lambda d: d["players"][0].update(hnad=d["players"][0].pop("hand")), "players[0].hnad: unknown player field; "
     "expected name, canoes, hand, bank, card, card_budget; did you mean 'hand'? (FORMAT)"),
    (_set(["ruleset"], {"steal_after_unlaod": False}), "; did you mean 'steal_after_unload'? (SWITCHES)"),
    (_set(["ruleset"], "standrad"), "; did you mean 'standard'? (SWITCHES)"),
    (_set(["board"], {"rivre": {"1": "falls"}, "caves": {}}), "board.rivre: unknown board field; expected name, "
     "river, caves; did you mean 'river'? (FORMAT)"),
])
def test_errors_speak_the_files_words_and_suggest_the_key_meant(tmp_path, capsys, mutate, line):
    file = tmp_path / "position.json"
    file.write_text(json.dumps(bad(mutate)))
    assert main(["show", str(file)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "None" not in err and "True" not in err
    assert err.rstrip("\n").endswith(line) if line.endswith(")") else line in err, err


def test_a_far_off_key_gets_no_guess():
    from niagara_solver.model.errors import did_you_mean, quoted
    assert did_you_mean("zzz", ["players", "caves"]) == "" and did_you_mean(3, ["players"]) == ""
    assert did_you_mean("cave", ["players", "caves"]) == "; did you mean 'caves'?"
    assert (quoted(True), quoted(False), quoted(None), quoted([1, True]), quoted("x")) == (
        "true", "false", "null", "[1, true]", "'x'")


def test_switch_values_read_as_the_file_writes_them():
    # Once: x_joe=True and True/False in diff and sweep, where a ruleset file says true.
    from niagara_solver.model.ruleset import Ruleset
    from niagara_solver.model.switches import value_text
    assert Ruleset.from_json({"x_joe": True, "min_flow": 1}).describe() == "standard with min_flow=1, x_joe=true"
    assert [value_text(v) for v in (True, False, None, 2, "free")] == ["true", "false", "null", "2", "free"]
