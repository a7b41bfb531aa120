"""Positions with the expansion's modules (docs/FORMAT.md, "Expansion fields"; RULES.md section X): the new
fields load, default to where each piece starts, round-trip, and bad expansion input is refused naming the JSON path
and the X rule."""

from __future__ import annotations

import copy
import json

import pytest

from niagara_solver.cli.main import main
from niagara_solver.model.atoms import EXPANSION_HAND, FULL_HAND, NEXT, PORT, CanoeKind, Colour, Moose
from niagara_solver.model.errors import PositionError
from niagara_solver.model.format import FORMAT_ID, dumps_position, loads_position, position_from_json
from niagara_solver.model.position import Canoe, Joe, Position
from niagara_solver.model.ruleset import EXPANSION_GEMS, PRESETS, Ruleset

#: The example of docs/FORMAT.md, "Expansion fields".
EXAMPLE = {
    "format": FORMAT_ID,
    "ruleset": "flussgeister-joe",
    "lifebuoy": "red",
    "whirlpool": "4",
    "beaver": "6R",
    "moose": "held",
    "joe": {"at": "5", "gem": "amber"},
    "players": [
        {"name": "red", "canoes": [{"at": "7L", "gem": "ruby", "moose": True},
                                   {"kind": "double", "at": "3", "gems": ["amethyst", "diamond"]}],
         "hand": [1, 2, 7, "lasso", "123", "cloud"]},
        {"name": "blue", "canoes": [{"at": "port"}, {"kind": "double", "at": "port"}]},
        {"name": "green", "canoes": [{"at": "2"}, {"kind": "double", "at": "fallen"}]},
    ],
}


def test_the_format_example_loads_with_every_piece_where_it_says():
    pos = position_from_json(EXAMPLE)
    assert pos.ruleset == PRESETS["flussgeister-joe"] and pos.gems_per_colour == 6  # X-GEMS-1: 3 players
    assert (pos.whirlpool, pos.beaver, pos.moose, pos.joe) == ("4", "6R", Moose.HELD, Joe("5", Colour.AMBER))
    red = pos.players[0]
    assert red.canoes == (Canoe("3", (Colour.AMETHYST, Colour.DIAMOND), CanoeKind.DOUBLE),
                          Canoe("7L", (Colour.RUBY,), moose=True))
    assert [c.label for c in red.hand] == ["1", "2", "7", "cloud", "lasso", "123"]
    # Joe's amber counts in the totals (X-JOE-1): the amber cave holds the other 5.
    assert pos.cave(Colour.AMBER).get(Colour.AMBER) == 5 and pos.gem_totals() == (6,) * 5


def test_an_expansion_position_round_trips_in_canonical_form():
    pos = position_from_json(EXAMPLE)
    text = dumps_position(pos)
    again = loads_position(text)
    assert again == pos and hash(again) == hash(pos) and dumps_position(again) == text
    doc = json.loads(text)
    assert doc["joe"] == {"at": "5", "gem": "amber"} and doc["moose"] == "held" and doc["beaver"] == "6R"
    assert doc["players"][0]["canoes"][1] == {"at": "7L", "kind": "single", "gem": "ruby", "moose": True}
    assert doc["players"][0]["canoes"][0] == {"at": "3", "kind": "double", "gems": ["amethyst", "diamond"]}


def test_a_start_position_with_every_module_needs_no_new_field():
    doc = {"format": FORMAT_ID, "ruleset": "flussgeister-joe", "lifebuoy": "a",
           "players": [{"name": n, "canoes": [{"at": "port"}, {"kind": "double", "at": "port"}]} for n in "abcd"]}
    pos = position_from_json(doc)
    assert pos == Position.initial(list("abcd"), ruleset=PRESETS["flussgeister-joe"])
    assert (pos.whirlpool, pos.beaver, pos.moose, pos.joe) == ("3", None, Moose.WAITING, Joe("1"))  # X-WHIRL-1 ...
    assert all(p.hand == EXPANSION_HAND and len(p.hand) == 10 for p in pos.players)                 # X-CARDS-1
    assert all(sorted(c.kind for c in p.canoes) == [CanoeKind.DOUBLE, CanoeKind.SINGLE] for p in pos.players)
    assert pos.gems_per_colour == 7 and EXPANSION_GEMS.get_count(4) == 7                            # X-GEMS-1
    # Without the modules nothing changes: seven cards, two single canoes, no pieces.
    base = Position.initial(list("abcd"))
    assert base.players[0].hand == FULL_HAND and base.players[0].canoes == (Canoe(PORT), Canoe(PORT))
    assert (base.whirlpool, base.beaver, base.moose, base.joe) == (None, None, None, None)


def test_each_module_alone_loads_its_own_fields():
    def one(module: str, **fields: object) -> Position:
        doc = {"format": FORMAT_ID, "ruleset": {module: True}, "lifebuoy": "a",
               "players": [{"name": "a", "canoes": [{"at": "port"}, {"at": "4"}]},
                           {"name": "b", "canoes": [{"at": "port"}, {"at": "port"}]}], **fields}
        return position_from_json(doc)

    assert one("x_whirl", whirlpool=NEXT).whirlpool == NEXT
    assert one("x_beaver", beaver="2").beaver == "2"
    assert one("x_joe", joe={"at": "6L"}).joe == Joe("6L")
    assert one("x_moose").moose is Moose.WAITING
    assert one("x_cards").players[0].hand == EXPANSION_HAND


def _bad(edit) -> dict:
    doc = copy.deepcopy(EXAMPLE)
    edit(doc)
    return doc


def _canoe(player: int, k: int, **fields):
    def edit(doc):
        doc["players"][player]["canoes"][k] = fields
    return edit


def _ruleset(**switches):
    def edit(doc):
        doc["ruleset"] = {"base": "flussgeister-joe", **switches}
    return edit


def _set(key, value):
    def edit(doc):
        doc[key] = value
    return edit


BAD = [
    ("a double canoe without x_double", _ruleset(x_double=False), "players[0].canoes[1].kind", "X-DOUBLE-1"),
    ("two gems on a single canoe", _canoe(0, 0, at="7L", gems=["ruby", "amber"]), "players[0].canoes[0].gems",
     "X-DOUBLE-2"),
    ("three gems on a double canoe", _canoe(0, 1, kind="double", at="3", gems=["amethyst", "diamond", "ruby"]),
     "players[0].canoes[1].gems", "X-DOUBLE-2"),
    ("gem and gems together", _canoe(0, 1, kind="double", at="3", gem="ruby", gems=["amethyst"]),
     "players[0].canoes[1]", "X-DOUBLE-2"),
    ("two single canoes with x_double", _canoe(1, 1, at="port"), "players[1].canoes", "X-DOUBLE-1"),
    ("an unknown kind", _canoe(1, 1, kind="triple", at="port"), "players[1].canoes[1].kind", "X-DOUBLE-1"),
    ("two whirlpools", _set("whirlpool", ["3", "4"]), "whirlpool", "X-WHIRL-1"),
    ("a whirlpool off the board", _set("whirlpool", "9"), "whirlpool", "X-WHIRL-1"),
    ("a canoe standing on the whirlpool", _set("whirlpool", "3"), "players[0].canoes[0].at", "X-PROP-2"),
    ("a whirlpool starting below the fork", _ruleset(whirl_start="6L"), "ruleset.whirl_start", "X-WHIRL-1"),
    ("the moose held by a canoe in the port", _canoe(1, 0, at="port", moose=True), "players[1].canoes[0].moose",
     "X-PROP-1"),
    ("the moose on two canoes", _canoe(2, 0, at="2", moose=True), "players[2].canoes[0].moose", "X-PROP-1"),
    ("the moose waiting while a canoe holds it", _set("moose", "waiting"), "moose", "X-PROP-1"),
    ("the moose returning at the start of a round", lambda d: (d.update(moose="returning"),
                                                               d["players"][0]["canoes"][1].pop("moose", None),
                                                               d["players"][0]["canoes"][0].pop("moose")),
     "moose", "X-MOOSE-3"),
    ("an unknown moose state", _set("moose", "asleep"), "moose", "X-MOOSE-1"),
    ("Joe in the port", _set("joe", {"at": "port"}), "joe.at", "X-JOE-1"),
    ("Joe fallen", _set("joe", {"at": "fallen"}), "joe.at", "X-JOE-1"),
    ("Joe with an unknown field", _set("joe", {"at": "1", "gems": ["ruby"]}), "joe.gems", "X-JOE-1"),
    ("a sixth player without x_sixth_player", lambda d: (
        d.update(ruleset={"base": "flussgeister-joe", "x_sixth_player": False, "gems_per_colour": 8}),
        d["players"].extend({"name": f"p{i}", "canoes": [{"at": "port"}, {"kind": "double", "at": "port"}]}
                            for i in range(3))), "players", "X-SIX-1"),
    ("two players with x_sixth_player", lambda d: d["players"].pop(), "players", "X-SIX-1"),
    ("a player count missing from the gem table", _ruleset(gems_per_colour={"4": 7}), "ruleset.gems_per_colour",
     "X-GEMS-1"),
    ("gem totals that forget Joe's gem", lambda d: d.update(caves={
        "amethyst": {"amethyst": 5}, "diamond": {"diamond": 5}, "amber": {"amber": 6}, "sapphire": {"sapphire": 6},
        "ruby": {"ruby": 5}}), "caves", "X-PROP-3"),
    ("a card twice in a hand", lambda d: d["players"][0].update(hand=[7, 7, "lasso"]), "players[0].hand",
     "X-CARDS-1"),
    ("an unknown card", lambda d: d["players"][0].update(hand=[8]), "players[0].hand[0]", "X-CARDS-1"),
    ("a moored canoe at the start of a round", _canoe(2, 0, at="2", moored=True), "players[2].canoes[0].moored",
     "X-CARDS-4"),
    ("a moored canoe in the port", lambda d: (d.update(phase="turns"), _canoe(1, 0, at="port", moored=True)(d)),
     "players[1].canoes[0].moored", "X-CARDS-4"),
    ("a 1/2/3 budget without the 1/2/3 card", lambda d: d["players"][0].update(card=2, card_budget=2),
     "players[0].card_budget", "X-CARDS-3"),
    ("a 1/2/3 budget of 4", lambda d: d["players"][0].update(card="123", card_budget=4), "players[0].card_budget",
     "X-CARDS-3"),
    ("a 1/2/3 budget before acting", lambda d: (d.update(phase="turns"),
                                                d["players"][0].update(card="123", card_budget=2)),
     "players[0].card_budget", "X-CARDS-3"),
]


@pytest.mark.parametrize("name, edit, path, rule", BAD, ids=[b[0] for b in BAD])
def test_bad_expansion_input_names_the_path_and_the_x_rule(name, edit, path, rule):
    with pytest.raises(PositionError) as err:
        position_from_json(_bad(edit))
    assert (err.value.path, err.value.rule) == (path, rule), str(err.value)


OFF = [
    ("whirlpool", lambda d: d.update(whirlpool="4"), "whirlpool", "X-WHIRL-1"),
    ("beaver", lambda d: d.update(beaver="2"), "beaver", "X-BEAVER-1"),
    ("moose", lambda d: d.update(moose="waiting"), "moose", "X-MOOSE-1"),
    ("a canoe holding the moose", lambda d: d["players"][0]["canoes"][1].update(moose=True),
     "players[0].canoes[1].moose", "X-MOOSE-1"),
    ("joe", lambda d: d.update(joe={"at": "1"}), "joe", "X-JOE-1"),
    ("kind", lambda d: d["players"][0]["canoes"][0].update(kind="single"), "players[0].canoes[0].kind", "X-DOUBLE-1"),
    ("moored", lambda d: (d.update(phase="turns"), d["players"][0]["canoes"][1].update(moored=True)),
     "players[0].canoes[1].moored", "X-CARDS-1"),
    ("card_budget", lambda d: d["players"][0].update(card="cloud", card_budget=1), "players[0].card_budget",
     "X-CARDS-1"),
    ("the 7", lambda d: d["players"][0].update(hand=[1, 7]), "players[0].hand[1]", "X-CARDS-1"),
    ("the lasso", lambda d: d["players"][0].update(card="lasso"), "players[0].card", "X-CARDS-1"),
]


@pytest.mark.parametrize("name, edit, path, rule", OFF, ids=[o[0] for o in OFF])
def test_an_expansion_field_whose_module_is_off_is_refused(name, edit, path, rule):
    doc = {"format": FORMAT_ID, "lifebuoy": "a",
           "players": [{"name": "a", "canoes": [{"at": "port"}, {"at": "4"}]},
                       {"name": "b", "canoes": [{"at": "port"}, {"at": "port"}]}]}
    edit(doc)
    with pytest.raises(PositionError) as err:
        position_from_json(doc)
    assert (err.value.path, err.value.rule) == (path, rule), str(err.value)
    assert "module" in str(err.value) or "expansion" in str(err.value)


def test_the_cli_refuses_bad_expansion_input_in_one_line_with_exit_two(tmp_path, capsys):
    file = tmp_path / "p.json"
    file.write_text(json.dumps(_bad(_set("joe", {"at": "port"}))))
    assert main(["show", str(file)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "p.json: joe.at: " in err and err.rstrip().endswith("(X-JOE-1)")


def test_presets_of_the_expansion():
    bsw, fg, joe = (PRESETS[n] for n in ("bsw", "flussgeister", "flussgeister-joe"))
    assert bsw == Ruleset.from_json({"tiebreak": "shared"})
    assert fg.modules == ("x_cards", "x_double", "x_whirl", "x_beaver", "x_moose", "x_sixth_player")
    assert fg.tiebreak.value == "shared" and fg.gems_per_colour == EXPANSION_GEMS and not fg.x_joe
    assert joe.modules == (*fg.modules[:5], "x_joe", "x_sixth_player")
    assert fg.player_counts() == range(3, 7) and PRESETS["standard"].player_counts() == range(2, 6)
    assert [fg.gems_for(n) for n in range(2, 7)] == [None, 6, 7, 7, 8]
    assert Ruleset.from_json({"base": "flussgeister", "x_joe": True}) == joe and joe.to_json() == "flussgeister-joe"


def test_the_picture_shows_every_piece_of_the_expansion():
    from niagara_solver.report.svg import render_svg
    import xml.etree.ElementTree as ET
    svg = render_svg(position_from_json(EXAMPLE))
    ET.fromstring(svg)  # well-formed
    for piece in ('class="whirlpool"', 'class="beaver"', 'class="joe"', 'class="moose"'):
        assert svg.count(piece) == 1, piece
    assert "red double canoe on 3" in svg and "red canoe on 7L, holds the moose" in svg
    assert svg.count('class="canoe"') == 6  # Joe is nobody's canoe


def test_show_names_every_piece_of_the_expansion():
    from niagara_solver.report.text import show
    text = show(position_from_json(EXAMPLE))
    assert "whirlpool 4 · beaver 6R · moose held · Diamond Joe 5 (amber)" in text
    lines = {line.replace("│", "").split()[0]: line for line in text.splitlines() if line.startswith("  ")
             and line.replace("│", "").split()}
    assert lines["3"].endswith("red:double(amethyst,diamond)") and lines["4"].endswith("~whirlpool~")
    assert lines["5"].endswith("Joe(amber)") and lines["7L"].endswith("red:moose(ruby)")
    assert "3 double (amethyst, diamond); 7L moose (ruby)" in text
