"""The pictures (``render``, ``prove --save``, the report): PNG or SVG by the name asked for, every canoe laid out
inside the picture on crowded discs, the expansion's pieces where the rules put them, a legend with a sample of
every mark, and a counterexample's flow shown with the fork markers before and after it and the branches taken.

Boxes are read back from the SVG itself (hull paths, circles, polygons, rectangles), not from the drawing code."""

from __future__ import annotations

import io
import json
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from helpers import P, doc
from niagara_solver.cli.main import main
from niagara_solver.model.board import Board, standard_board
from niagara_solver.model.format import load_position, position_from_json
from niagara_solver.model.ruleset import Ruleset
from niagara_solver.model.notation import Turn
from niagara_solver.report.svg import DISC_R, render_svg

ROOT = Path(__file__).parent.parent
PUZZLES = ROOT / "puzzles"
NS = "{http://www.w3.org/2000/svg}"
NAMES = ["red", "blue", "green", "yellow", "black", "purple"]
LONG_BOARD = json.loads((PUZZLES / "long-river.json").read_text())["board"]
Box = tuple[float, float, float, float]


def run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def _class(root: ET.Element, name: str) -> list[ET.Element]:
    return [e for e in root.iter() if e.get("class") == name]


def _numbers(text: str) -> list[float]:
    return [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", text)]


def _box(group: ET.Element) -> Box:
    """The box of a canoe's marks: its hull (a quadratic curve below a straight gunwale), its cargo and the moose's
    head."""
    xs: list[float] = []
    ys: list[float] = []
    for e in group.iter():
        if e.tag == f"{NS}path" and (e.get("d") or "").startswith("M") and " Q " in (e.get("d") or ""):
            x0, y0, _, qy, x1, _ = _numbers(e.get("d") or "")
            xs += [x0, x1]
            ys += [y0, (y0 + qy) / 2]  # the curve's lowest point
        elif e.tag == f"{NS}circle":
            x, y, r = (float(e.get(k, 0)) for k in ("cx", "cy", "r"))
            xs += [x - r, x + r]
            ys += [y - r, y + r]
        elif e.tag == f"{NS}polygon":
            points = _numbers(e.get("points") or "")
            xs += points[0::2]
            ys += points[1::2]
    return min(xs), min(ys), max(xs), max(ys)


def _rect(e: ET.Element) -> Box:
    x, y, w, h = (float(e.get(k, 0)) for k in ("x", "y", "width", "height"))
    return x, y, x + w, y + h


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _discs(root: ET.Element) -> list[Box]:
    return [(float(c.get("cx", 0)) - DISC_R, float(c.get("cy", 0)) - DISC_R, float(c.get("cx", 0)) + DISC_R,
             float(c.get("cy", 0)) + DISC_R) for c in root.iter(f"{NS}circle") if c.get("r") == str(DISC_R)]


def assert_every_canoe_is_drawn_apart(pos: Any) -> ET.Element:
    """Every canoe (and Diamond Joe) drawn once, each inside the view box, none over another, a disc, a fork marker
    or a cave."""
    root = ET.fromstring(render_svg(pos))
    left, top, width, height = _numbers(root.get("viewBox") or "")
    groups = _class(root, "canoe")
    assert sorted((g.get("data-player"), g.get("data-place")) for g in groups) == sorted(
        (p.name, c.place) for p in pos.players for c in p.canoes)
    boxes = [(g.findtext(f"{NS}title"), _box(g)) for g in groups + _class(root, "joe")]
    assert len(boxes) == 2 * len(pos.players) + (pos.joe is not None)
    markers = [_rect(t.find(f"{NS}rect")) for t in _class(root, "fork-marker")]
    caves = [_rect(r) for r in root.iter(f"{NS}rect") if (r.findtext(f"{NS}title") or "").startswith("the ")]
    for k, (name, box) in enumerate(boxes):
        assert left <= box[0] and box[2] <= left + width and top <= box[1] and box[3] <= top + height, (name, box)
        for other, seen in boxes[:k]:
            assert not _overlap(box, seen), (name, other)
        if "fallen" not in (name or "") and "port" not in (name or ""):
            for mark in markers + _discs(root) + caves:
                assert not _overlap(box, mark), (name, mark)
    return root


# -- 6. crowded discs ---------------------------------------------------------------------------------------------

@st.composite
def crowded(draw: st.DrawFn) -> Any:
    """A position whose canoes crowd onto one or two discs: any board, six players with two canoes each or the
    expansion's double canoes, with the moose, Diamond Joe and the whirlpool among them."""
    rules = draw(st.sampled_from([{"base": "standard", "x_sixth_player": True}, "standard", "flussgeister",
                                  "flussgeister-joe"]))
    board = draw(st.sampled_from([None, LONG_BOARD]))
    ruleset = Ruleset.from_json(rules)
    discs = list((Board.from_json(board) if board else standard_board()).discs)
    whirl = draw(st.sampled_from(discs)) if ruleset.x_whirl else None
    spots = [d for d in discs if d != whirl]  # no canoe stands on the whirlpool (X-PROP-2)
    crowd = draw(st.lists(st.sampled_from(spots), min_size=1, max_size=2, unique=True))
    counts = ruleset.player_counts()
    n = draw(st.integers(max(3, counts[0]), counts[-1]))
    double = ruleset.x_double
    players = []
    for i in range(n):
        canoes = []
        for v in range(2):
            place = draw(st.sampled_from(crowd + crowd + ["port", "fallen", *spots]))
            gems = draw(st.lists(st.sampled_from(["amethyst", "diamond", "amber", "sapphire", "ruby"]),
                                 max_size=2 if double and v == 1 else 1)) if place not in ("port", "fallen") else []
            canoes.append({"at": place, **({"kind": "double" if v == 1 else "single"} if double else {}),
                           **({"gems": gems} if gems else {})})
        players.append(P(NAMES[i], *canoes))
    fields: dict[str, Any] = {"ruleset": rules, **({"board": board} if board else {})}
    if whirl is not None:
        fields["whirlpool"] = whirl
    river = [(i, v) for i, p in enumerate(players) for v, c in enumerate(p["canoes"]) if c["at"] in spots]
    if ruleset.x_moose and river and draw(st.booleans()):
        i, v = draw(st.sampled_from(river))
        players[i]["canoes"][v]["moose"] = True
        fields["moose"] = "held"
    if ruleset.x_joe:
        fields["joe"] = {"at": draw(st.sampled_from(crowd))}
    return position_from_json(doc(*players, **fields))


@given(crowded())
def test_every_canoe_of_a_crowded_position_is_drawn_inside_the_picture_apart_from_the_rest(pos):
    # Once: three canoes on 7L drew the third at x = -28..0, four on 6L lost one off the picture, five on 5 lay
    # over the L branch and the fork marker.
    assert_every_canoe_is_drawn_apart(pos)


def test_twelve_canoes_on_the_leftmost_last_disc_and_twelve_on_the_fork_stay_apart():
    six = {"base": "standard", "x_sixth_player": True}
    for disc in ("7L", "6L", "5", "7R"):
        assert_every_canoe_is_drawn_apart(position_from_json(doc(*(P(n, disc, f"{disc}:ruby") for n in NAMES),
                                                                 ruleset=six)))
    doubles = doc(*(P(n, {"at": "5", "kind": "single", "gem": "amber"},
                      {"at": "5", "kind": "double", "gems": ["ruby", "diamond"]}) for n in NAMES),
                  ruleset="flussgeister", moose="waiting", whirlpool="3")
    assert_every_canoe_is_drawn_apart(position_from_json(doubles))
    root = assert_every_canoe_is_drawn_apart(position_from_json(doc(*(P(n, "6", "7R") for n in NAMES), ruleset=six,
                                                                    board=LONG_BOARD)))
    assert len(_class(root, "canoe")) == 12


# -- 7. the expansion's pieces, the legend, the title --------------------------------------------------------------

def test_the_waiting_moose_stands_at_the_ruby_cave_between_its_discs_clear_of_the_cave_line():
    # Once: it stood beside 7L, its antlers on the dashed cave line, though a canoe on 7R takes it as well.
    pos = load_position(PUZZLES / "expansion" / "flussgeister-moose-whirlpool-double.json")
    root = ET.fromstring(render_svg(pos))
    (moose,) = _class(root, "moose-waiting")
    assert moose.findtext(f"{NS}title") == ("the moose, waiting at the ruby cave: a canoe on 7L or 7R may take it "
                                            "(X-MOOSE-1)")
    head = next(c for c in moose.iter(f"{NS}circle"))
    x, y = float(head.get("cx", 0)), float(head.get("cy", 0))
    discs = {t.text: (float(t.get("x", 0)), float(t.get("y", 0)) - 4) for t in root.iter(f"{NS}text")
             if t.text in ("7L", "7R")}
    assert discs["7L"][0] + 2 * DISC_R < x < discs["7R"][0] - 2 * DISC_R  # between them, beside neither
    link = next(p for p in _class(root, "cave-link") if "ruby" in (p.findtext(f"{NS}title") or ""))
    line_y = _numbers(link.get("d") or "")[-2]  # "M x y V low ... M x0 low H x1": low
    antler_tips = y - 1 - 7  # the antlers rise 7 above the head's top (svg._antlers)
    assert line_y - (y + 3.6) >= 6 and antler_tips < y  # the whole moose above the line, with room
    assert [t.text for t in moose.iter(f"{NS}text")] == ["moose: taken on 7L or 7R"]


def test_the_whirlpool_spiral_leaves_the_disc_number_free():
    # Once: the spiral was drawn over the disc's name.
    pos = load_position(PUZZLES / "expansion" / "flussgeister-moose-whirlpool-double.json")
    root = ET.fromstring(render_svg(pos))
    (whirl,) = _class(root, "whirlpool")
    ring = whirl.find(f"{NS}circle")
    cx, cy = float(ring.get("cx", 0)), float(ring.get("cy", 0))
    spiral = whirl.find(f"{NS}path").get("d") or ""
    x0, y0, r = _numbers(spiral)[:3]
    centre = (x0 + r, y0)  # "M x-r y a r r ...": the spiral winds around (x, y)
    assert math.dist(centre, (cx, cy)) - r > DISC_R


def test_the_legend_draws_a_sample_of_every_piece_not_a_dot():
    # Once: the whirlpool, the beaver, the moose, Joe and the double canoe had a dot each in the legend.
    pos = position_from_json(doc(P("red", {"at": "7L", "gem": "ruby", "moose": True}, {"kind": "double", "at": "3"}),
                                 P("blue", "port", {"kind": "double", "at": "port"}),
                                 P("green", "2", {"kind": "double", "at": "fallen"}),
                                 ruleset="flussgeister-joe", whirlpool="4", beaver="6R", moose="held",
                                 joe={"at": "5", "gem": "amber"}))
    root = ET.fromstring(render_svg(pos))
    legend = {"".join(g.findall(f"{NS}text")[-1].itertext()): g for g in _class(root, "legend")}
    samples = {words.split(":")[0]: g for words, g in legend.items()}
    whirl = samples["dashed ring and spiral"]
    assert whirl.find(f"{NS}circle").get("stroke-dasharray") and whirl.find(f"{NS}path") is not None
    assert samples["brown oval"].find(f"{NS}ellipse").get("fill") == "#8d5524"
    antlers = samples["antlers on a canoe"].find(f"{NS}g").find(f"{NS}path").get("d") or ""
    assert antlers.count(" l ") >= 6  # two antlers, not a dot
    joe = samples["grey canoe"].find(f"{NS}g").find(f"{NS}path")
    assert joe.get("fill") == "#b0b0b0" and " Q " in (joe.get("d") or "")
    double = samples["long hull"].find(f"{NS}g")
    assert " Q " in (double.find(f"{NS}path").get("d") or "") and double.find(f"{NS}line") is not None  # thwart
    for g in legend.values():
        assert not [c for c in g.iter(f"{NS}circle") if c.get("r") == "2"]


def test_a_diamond_has_a_visible_shape_and_outline_and_its_cave_is_not_white():
    # Once: diamonds were white circles with a light grey rim: a diamond cave looked empty.
    root = ET.fromstring(render_svg(load_position(PUZZLES / "erratum-two-canoes.json")))
    diamonds = [e for e in root.iter() if e.findtext(f"{NS}title") == "diamond" and e.tag != f"{NS}g"]
    assert len(diamonds) >= 8 and all(e.tag == f"{NS}polygon" for e in diamonds)

    def darkness(colour: str) -> float:
        r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
        return 255 - (0.299 * r + 0.587 * g + 0.114 * b)
    for e in diamonds:
        assert darkness(e.get("stroke", "#fff")) > 128 and darkness(e.get("fill", "#fff")) > 20
    cave = next(r for r in root.iter(f"{NS}rect") if r.findtext(f"{NS}title") == "the diamond cave")
    assert darkness(cave.get("fill", "#fff")) > 20


def test_a_loaded_red_double_canoe_reads_red():
    # Once: its thick black outline and two wide gem rings left little red to see.
    from PIL import Image
    from niagara_solver.report.png import ZOOM, png_bytes
    pos = position_from_json(doc(P("red", {"at": "2", "kind": "single"},
                                   {"at": "2", "kind": "double", "gems": ["ruby", "amber"]}),
                                 P("blue", "port", {"kind": "double", "at": "port"}),
                                 P("green", "port", {"kind": "double", "at": "port"}), ruleset="flussgeister"))
    svg = render_svg(pos)
    group = next(g for g in _class(ET.fromstring(svg), "canoe") if "double canoe" in (g.findtext(f"{NS}title") or ""))
    x0, y0, x1, y1 = _box(group)
    image = Image.open(io.BytesIO(png_bytes(svg))).convert("RGB")
    data = image.crop((int(x0 * ZOOM), int(y0 * ZOOM), int(x1 * ZOOM), int(y1 * ZOOM))).tobytes()
    pixels = list(zip(data[0::3], data[1::3], data[2::3]))
    red = sum(1 for r, g, b in pixels if r > 150 and g < 90 and b < 90)
    dark = sum(1 for r, g, b in pixels if r + g + b < 150)
    # Before: 116 red pixels against 230 dark ones in the canoe's box.
    assert red > 1.5 * dark and red > 0.15 * len(pixels), (red, dark, len(pixels))


def test_the_title_names_the_ruleset():
    pos = load_position(PUZZLES / "erratum-two-canoes.json")
    for rules, title, heading in [(None, None, "Round 4 · phase I · ruleset standard"),
                                  (None, "my title", "my title · ruleset standard")]:
        root = ET.fromstring(render_svg(pos, title=title))
        assert next(root.iter(f"{NS}text")).text == heading
    free = load_position(PUZZLES / "expansion" / "flussgeister-moose-whirlpool-double.json")
    assert next(ET.fromstring(render_svg(free)).iter(f"{NS}text")).text.endswith("· ruleset flussgeister")


def test_a_turns_path_on_the_two_fork_board_keeps_clear_of_every_fork_marker():
    # Once: red's way from 8RA up to 6 ran through the "A" marker on its branch.
    pos = load_position(PUZZLES / "long-river-second-fork.json")
    root = ET.fromstring(render_svg(pos, Turn.parse("8RA: <6 xblue/ruby"), 0))
    markers = [_rect(t.find(f"{NS}rect")) for t in _class(root, "fork-marker")]
    assert len(markers) == 2
    (path,) = _class(root, "turn")
    points = [tuple(map(float, p.split(","))) for p in (path.get("points") or "").split()]
    for (ax, ay), (bx, by) in zip(points, points[1:]):
        for k in range(101):  # the path's line (3 wide) point by point
            x, y = ax + (bx - ax) * k / 100, ay + (by - ay) * k / 100
            for left, top, right, bottom in markers:
                assert not (left - 1.5 < x < right + 1.5 and top - 1.5 < y < bottom + 1.5), (x, y)


# -- 7. a counterexample's flow --------------------------------------------------------------------------------------

def test_a_flow_counterexample_picture_shows_the_markers_before_and_after_and_the_branch_taken(tmp_path, capsys):
    # Once: "the river flows 1 step(s) taking 5=L" showed the position before the flow alone.
    status, out, _ = run(capsys, "prove", "--ruleset", str(PUZZLES / "rulesets" / "free-fork.json"), "--players",
                         "2", "--property", "R-PROP-2", "--save", str(tmp_path), "--json")
    assert status == 1
    (item,) = json.loads(out)["properties"]
    flow = item["flow"]
    assert flow["steps"] >= 1 and len(flow["branches"]) == flow["steps"]
    before, after = (position_from_json(item[k]).forks for k in ("counterexample", "after"))
    root = ET.parse(tmp_path / "R-PROP-2-2p.svg").getroot()
    assert [t.findtext(f"{NS}title") for t in _class(root, "fork-marker")] == [
        f"fork marker before the phase: the next disc goes down {label} (R-FLOW-4)" for _, label in before]
    assert [t.findtext(f"{NS}title") for t in _class(root, "fork-marker-after")] == [
        f"fork marker after the phase: the next disc goes down {label} (R-FLOW-4)" for _, label in after]
    taken: dict[tuple[str, str], list[int]] = {}
    for n, step in enumerate(flow["branches"], start=1):
        for fork, label in step:
            taken.setdefault((fork, label), []).append(n)
    assert sorted(g.findtext(f"{NS}title") for g in _class(root, "flow-branch")) == sorted(
        f"step{'s' if len(n) > 1 else ''} {', '.join(map(str, n))}: the disc leaving {f} goes down {lab} (R-FLOW-3)"
        for (f, lab), n in taken.items())
    # Alternation broken (R-PROP-2): the branches taken, or the marker left, are not those of alternation from the
    # marker before (which counterexample z3 returns first is its choice).
    fork, label = before[0]
    other = {"L": "R", "R": "L"}[label]
    alternating = [[[fork, label if n % 2 == 0 else other]] for n in range(flow["steps"])]
    marker_after = label if flow["steps"] % 2 == 0 else other
    assert flow["branches"] != alternating or after[0][1] != marker_after
    (caption,) = _class(root, "flow-caption")
    went = "/".join(lab for step in flow["branches"] for _, lab in step)
    assert caption.text == (f"the river flows {flow['steps']} step{'' if flow['steps'] == 1 else 's'}: at 5: marker "
                            f"{before[0][1]} before, the disc{'s' if '/' in went else ''} took {went}, marker "
                            f"{after[0][1]} after (R-FLOW-3, R-FLOW-4)")


def test_a_stuck_fork_marker_shows_every_step_down_the_same_branch(capsys):
    # The mutant's flow: the markers decide, and the encoding's branch of each step is read from the model.
    status, out, _ = run(capsys, "mutants", "--mutant", "fork-marker-stuck", "--json")
    assert status == 0
    (result,) = json.loads(out)
    first = next(c for c in result["counterexamples"] if c["id"] == "R-PROP-2")
    before = position_from_json(first["counterexample"]).forks
    steps = first["flow"]["steps"]
    assert steps >= 1 and first["flow"]["branches"] == [[[before[0][0], before[0][1]]]] * steps
    assert first["after"]["fork"] == before[0][1]  # stuck: never switched (R-FLOW-4)
    from niagara_solver.report.svg import Change
    pos = position_from_json(first["counterexample"])
    root = ET.fromstring(render_svg(pos, change=Change.from_json(first, pos.board)))
    (arrow,) = _class(root, "flow-branch")
    assert arrow.findtext(f"{NS}title") == (f"step{'s' if steps > 1 else ''} {', '.join(map(str, range(1, steps + 1)))}"
                                            f": the disc leaving 5 goes down {before[0][1]} (R-FLOW-3)")
    assert [t.findtext(f"{NS}title") for t in _class(root, "fork-marker-after")] == [
        f"fork marker after the phase: the next disc goes down {before[0][1]} (R-FLOW-4)"]


# -- 4. PNG or SVG ---------------------------------------------------------------------------------------------------

def test_render_writes_a_real_png_for_a_png_name(tmp_path, capsys):
    # Once: --out pos.png wrote SVG text into pos.png and exited 0.
    from PIL import Image
    from niagara_solver.report.png import ZOOM
    out = tmp_path / "pos.png"
    status, text, err = run(capsys, "render", str(PUZZLES / "erratum-two-canoes.json"), "--out", str(out))
    assert (status, text, err) == (0, f"wrote {out}\n", "")
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    svg = ET.fromstring(render_svg(load_position(PUZZLES / "erratum-two-canoes.json")))
    image = Image.open(io.BytesIO(data)).convert("RGB")
    assert image.size == (round(float(svg.get("width", 0)) * ZOOM), round(float(svg.get("height", 0)) * ZOOM))
    assert image.getpixel((4, 4)) == (0xfb, 0xfa, 0xf7)  # the background
    port = next(r for r in svg.iter(f"{NS}rect") if r.get("fill") == "#d9c7a3")
    left, top, _, _ = _rect(port)
    assert image.getpixel((int((left + 4) * ZOOM), int((top + 25) * ZOOM))) == (0xd9, 0xc7, 0xa3)  # the port


def test_render_refuses_a_picture_name_other_than_svg_or_png_in_one_line(tmp_path, capsys):
    for name in ("pos.jpg", "pos", "pos.svg.txt"):
        out = tmp_path / name
        status, text, err = run(capsys, "render", str(PUZZLES / "erratum-two-canoes.json"), "--out", str(out))
        assert (status, text) == (2, "") and not out.exists()
        assert err == (f"niagara-solve: error: --out: a picture is written as FILE.svg or FILE.png, not {name!r} "
                       "(FORMAT)\n")
    status, _, _ = run(capsys, "render", str(PUZZLES / "erratum-two-canoes.json"), "--out", str(tmp_path / "p.SVG"))
    assert status == 0 and (tmp_path / "p.SVG").read_text().startswith("<svg")
