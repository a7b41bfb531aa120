"""Pages to step through: one self-contained HTML file per game or solver's line, for any browser, from ``file://``.

A page holds a list of *steps*, each a picture of a position (:func:`.svg.render_svg`, the acting player's turn
drawn on it) and the text of its *chapter* (a round of a game, or a line of the solver) with the lines the step
is about marked. Previous and next buttons, the arrow keys and a slider move between the steps; ``#step=N`` in the
address opens step N. The page needs no server and loads nothing: its data is one JSON block
(``<script type="application/json">``), read by a few lines of plain JavaScript that set every text with
``textContent``.

* :func:`game_page` — a played game, round by round (``play --html``): the start, each round's rescues and
  cards (phase I), each turn (phase II), the flow and the lifebuoy (phases III and IV);
* :func:`solve_page` — a solver's answer (``solve --html``): the question, the answer and its reasons, and each
  line of play (the winning line of a *yes*, the others' answer to each option of a *no*) replayed by the engine;
* :func:`simulation_pages` — a run of simulated games (``simulate --html``): an index of every game, and a page for
  each notable one.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from html import escape
from typing import Any, Iterable, Sequence

from niagara_solver.design.simulate import SEATS, GameResult, Simulation, start_position
from niagara_solver.play.playout import random_playout
from niagara_solver.engine.round import RoundRecord, is_finished, winners
from niagara_solver.games.lines import LineReplay
from niagara_solver.model.atoms import Card, Phase
from niagara_solver.model.board import standard_board
from niagara_solver.model.notation import Turn
from niagara_solver.model.position import Position
from niagara_solver.model.verdict import ANSWER
from niagara_solver.report.svg import render_svg
from niagara_solver.report.text import answer_text, game_end, round_text
from niagara_solver.solver.answers import Answer, AnsweredBy, Goal
from niagara_solver.solver.reasons import Reason

@dataclass(frozen=True)
class Chapter:
    """A round of a game, or a line of the solver: a title and the lines the steps point at."""

    title: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Step:
    """One picture of a page: the position (with ``turn`` of ``player`` drawn on it, when a turn is the step), its
    heading, and the lines of its chapter (by index) the step is about."""

    heading: str
    position: Position
    chapter: int
    marks: tuple[int, ...] = ()
    turn: Turn | None = None
    player: int | None = None


@dataclass(frozen=True)
class Page:
    """What a page shows: a title, lines under it, an answer (a solver's page), the chapters and the steps."""

    title: str
    summary: tuple[str, ...]
    chapters: tuple[Chapter, ...]
    steps: tuple[Step, ...]
    verdict: str | None = None
    reasons: str | None = None
    #: Links under the title (a page of a run: back to its index), as (text, address).
    links: tuple[tuple[str, str], ...] = ()


# -- a played game ---------------------------------------------------------------------------------------------

def game_chapters(start: Position, records: Sequence[RoundRecord]) -> tuple[list[Chapter], list[Step]]:
    """The chapters and steps of a played game: the start, then per round its phase I (rescues and cards), each
    turn of phase II (drawn on the position before it), and phases III and IV (the position after the flow)."""
    chapters = [Chapter("The start", (_phase_name(start),))]
    steps = [Step(f"Start · round {start.round}, {_phase_name(start)}", start, 0, (0,))]
    for record in records:
        text = round_text(record).splitlines()
        k = len(chapters)
        lines = tuple(line.strip() for line in text[1:])
        chapters.append(Chapter(text[0], lines))
        r = record.start.round
        names = [p.name for p in record.start.players]
        steps.append(Step(f"Round {r} · I · rescues and cards", record.turns_start, k, _marked(lines, "I ")))
        before = record.turns_start
        turn_lines = _marked(lines, "II ")
        for n, t in enumerate(record.turns):
            steps.append(Step(f"Round {r} · II · {names[t.player]} plays {t.card.label}", before, k,
                              turn_lines[n:n + 1], t.turn, t.player))
            before = t.after
        ends = _marked(lines, "III ", "IV ", "banks:", "game over:")
        steps.append(Step(f"Round {r} · III · the river flows {record.flow} · IV · lifebuoy to "
                          f"{names[record.end.lifebuoy]}", record.end, k, ends))
    return chapters, steps


def _marked(lines: Sequence[str], *prefixes: str) -> tuple[int, ...]:
    """The lines starting with one of ``prefixes``, in order."""
    return tuple(i for i, line in enumerate(lines) if line.startswith(prefixes))


def _phase_name(pos: Position) -> str:
    return "phase I (rescues and cards)" if pos.phase is Phase.CARDS else "phase II (turns)"


def game_summary(start: Position, records: Sequence[RoundRecord]) -> str:
    """How the game ended: its winners (R-END-2, R-END-3), or that it stopped before anyone reached the goal."""
    final = records[-1].end if records else start
    won = [final.players[i].name for i in winners(final)] if is_finished(final) else None
    return game_end(len(records), final.round - 1, won)


def game_page(start: Position, records: Sequence[RoundRecord], title: str, notes: Iterable[str] = (),
              links: Sequence[tuple[str, str]] = ()) -> str:
    """The page of a played game (``records``: its rounds, from ``start``); ``notes``: more lines under the
    title (how it was played)."""
    chapters, steps = game_chapters(start, records)
    page = Page(title, (*notes, game_summary(start, records)), tuple(chapters), tuple(steps), links=tuple(links))
    return render_page(page)


def play_page(start: Position, records: Sequence[RoundRecord], source: str, seed: int, policy: str) -> str:
    """The page of ``play SOURCE --seed SEED --policy POLICY --html FILE`` (``source``: the position file, or the
    new game's words)."""
    return game_page(start, records, f"niagara-solve play: {source}",
                     [f"seed {seed} · policy {policy} · ruleset {start.ruleset.describe()}"])


# -- a solver's line -------------------------------------------------------------------------------------------

def line_chapter(pos: Position, x: int, title: str, labels: Sequence[str], chapter: int) -> list[Step]:
    """The steps of one line of play from ``pos``: the position, then one step per label (a choice replayed by
    :class:`LineReplay`, or a reason, said on the position reached). A label that cannot be replayed ends the
    pictures: it and every label after it are said on the last position."""
    replay = LineReplay(pos, x)
    steps = [Step(f"{title}: the position", pos, chapter)]
    for k, label in enumerate(labels):
        made = replay.step(label)
        if made is None:
            steps.append(Step(f"{title}: {label}", replay.pos, chapter, tuple(range(k, len(labels)))))
            break
        heading, drawn, turn, player = made
        steps.append(Step(heading, drawn, chapter, (k,), turn, player))
    else:
        if steps[-1].turn is not None:  # the line ends on a turn: show where it leads
            steps.append(Step(f"{title}: after {labels[-1]}", replay.pos, chapter, (len(labels) - 1,)))
    return steps


def answer_from_json(data: dict[str, Any]) -> Answer:
    """A solver's answer from its JSON (:meth:`Answer.to_json`), as ``report`` keeps a puzzle's answer."""
    card = data.get("card")
    return Answer(ANSWER.parse(data["verdict"]), data["player"], Goal(data["goal"]), data["horizon"],
                  AnsweredBy(data.get("backend", "search")), Card.parse(str(card)) if card is not None else None,
                  Turn.parse(data["turn"]) if data.get("turn") else None, list(data.get("line", [])),
                  list(data.get("refutations", [])), dict(data.get("details", {})), data.get("note", ""),
                  float(data.get("seconds", 0.0)),
                  reason=Reason.from_json(data["reason"]) if data.get("reason") else None)


def solve_page(pos: Position, answer: Answer, title: str, notes: Iterable[str] = ()) -> str:
    """The page of a solver's answer about ``pos``: the answer and its reasons (as ``solve`` prints them), and each
    line of play stepped through: the winning line of a *yes*; for a *no*, each option of the player with the
    others' answer to it."""
    x = pos.index(answer.player)
    chapters: list[Chapter] = []
    steps: list[Step] = []
    if answer.line:
        chapters.append(Chapter(f"{answer.player}'s line", tuple(answer.line)))
        steps += line_chapter(pos, x, "The line", answer.line, 0)
    for r in answer.refutations:
        labels = (r["option"], *r["answer"])
        steps += line_chapter(pos, x, r["option"], labels, len(chapters))
        chapters.append(Chapter(f"{r['option']}: the others' answer", tuple(labels)))
    if not steps:
        chapters.append(Chapter("The position", (answer.note or "no line of play to show",)))
        steps.append(Step("The position", pos, 0, (0,)))
    page = Page(title, tuple(notes), tuple(chapters), tuple(steps), answer.word, answer_text(answer))
    return render_page(page)


# -- a run of simulated games ----------------------------------------------------------------------------------

#: The notable games of a run that get a page, each with what makes it one (the first game that is).
NOTABLE = (("the first game", lambda g: 0), ("the shortest game", lambda g: g.rounds if g.finished else 10**9),
           ("the longest game", lambda g: -g.rounds), ("the most falls", lambda g: -g.falls),
           ("the most steals", lambda g: -g.steals), ("the most rescues", lambda g: -g.rescues))


def notable_games(games: Sequence[GameResult]) -> dict[int, list[str]]:
    """The games of a run that get a page (by number), and why: the first, the shortest finished and the longest
    game, and the game with the most falls, steals and rescues (the first such game)."""
    out: dict[int, list[str]] = {}
    for why, key in NOTABLE:
        if not games:
            break
        best = min(range(len(games)), key=lambda g: key(games[g]))
        out.setdefault(best, []).append(why)
    return out


def simulation_pages(folder: str, runs: Sequence[tuple[str, Simulation]]) -> list[str]:
    """Write ``folder/index.html`` (every game of every run, with the command that replays it) and a page per
    notable game (:func:`notable_games`), each game played again from its seed; return the files written."""
    os.makedirs(folder, exist_ok=True)
    written: list[str] = []
    sections: list[str] = []
    for k, (name, sim) in enumerate(runs):
        s = sim.settings
        start = start_position(s.board, s.rules, s.players)
        chosen = notable_games(sim.games)
        rows = []
        for g, game in enumerate(sim.games):
            page = f"run{k + 1}-game{g + 1}.html"
            # play starts a new game on the standard board, with one policy for every seat
            command = (f"niagara-solve play --ruleset {name} --players {s.players} --seed {game.seed} "
                       f"--rounds {s.max_rounds} --policy {game.policies[0]}"
                       if s.board == standard_board() and len(set(game.policies)) == 1 else "")
            if g in chosen:
                records = list(random_playout(start, game.seed, s.max_rounds, list(game.policies)))
                notes = [f"Game {g + 1} of {len(sim.games)} · ruleset {name} · {s.players} players · seed "
                         f"{game.seed} · " + ", ".join(f"{SEATS[i]} {p}" for i, p in enumerate(game.policies)),
                         f"Shown as {', '.join(chosen[g])} of the run."]
                html = game_page(start, records, f"simulate · {name} · game {g + 1}", notes,
                                 [("all games of the run", "index.html")])
                written.append(_write(os.path.join(folder, page), html))
            won = ", ".join(SEATS[i] for i in game.winners) or "nobody (unfinished)"
            link = f'<a href="{escape(page)}">game {g + 1}</a>' if g in chosen else f"game {g + 1}"
            cells = [link, escape(", ".join(chosen.get(g, []))), str(game.rounds), escape(won), str(game.falls),
                     str(game.steals), str(game.rescues), escape(" ".join(map(str, game.banks))),
                     f"<code>{escape(command or '-')}</code>"]
            rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        sections.append(f"<h2>Run {k + 1}: ruleset {escape(name)} · {s.players} players · {len(sim.games)} games "
                        f"(seed {s.seed}) · {escape(s.policy)}" + (f" against {escape(s.against)}" if s.against
                                                                     else "") + "</h2>"
                        "<table><thead><tr><th>game</th><th>a page as</th><th>rounds</th><th>winners</th><th>falls</th>"
                        "<th>steals</th><th>rescues</th><th>banked gems by seat</th><th>replay with --html FILE"
                        "</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")
    index = (_HEAD.format(title="simulate: the games") + "<h1>simulate: the games</h1>"
             "<p>Every game of the run. The notable ones (the first, the shortest and the longest, the most falls, "
             "steals and rescues) have a page to step through; the command beside each game plays it again "
             "(add <code>--html FILE</code> for its page).</p>" + "".join(sections) + "</main></body></html>\n")
    written.insert(0, _write(os.path.join(folder, "index.html"), index))
    return written


# -- the page --------------------------------------------------------------------------------------------------

def _write(path: str, text: str) -> str:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def write_page(path: str, html: str) -> str:
    """Write a page (its folder made if missing); return the path."""
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    return _write(path, html)


def page_data(page: Page) -> dict[str, Any]:
    """What the page's script reads: the chapters, and per step its heading, chapter, marked lines and picture.
    The pictures share most of their lines (the river, the caves, the legend), so each line is stored once, in
    ``svg``, and a picture is the list of its lines' numbers."""
    pool: dict[str, int] = {}

    def lines(svg: str) -> list[int]:
        return [pool.setdefault(line, len(pool)) for line in svg.split("\n")]

    steps = [{"heading": s.heading, "chapter": s.chapter, "marks": list(s.marks),
              "svg": lines(render_svg(s.position, s.turn, s.player, title=s.heading))} for s in page.steps]
    return {"chapters": [{"title": c.title, "lines": list(c.lines)} for c in page.chapters], "steps": steps,
            "svg": list(pool)}


def _json_for_script(data: Any) -> str:
    """JSON safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` (so no ``</script>``), as escapes JSON
    reads back."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_page(page: Page) -> str:
    """The page as one HTML document."""
    parts = [_HEAD.format(title=escape(page.title)), f"<h1>{escape(page.title)}</h1>"]
    if page.links:
        parts.append("<p>" + " · ".join(f'<a href="{escape(href)}">{escape(text)}</a>' for text, href in page.links)
                     + "</p>")
    parts += [f'<p class="summary">{escape(line)}</p>' for line in page.summary]
    if page.verdict is not None:
        parts.append(f'<section class="answer" id="answer"><p class="verdict {escape(page.verdict)}">'
                     f'{escape(page.verdict.upper())}</p><pre id="reasons">{escape(page.reasons or "")}</pre>'
                     "</section>")
    parts.append(_BODY)
    parts.append(f'<script type="application/json" id="niagara-data">{_json_for_script(page_data(page))}</script>')
    parts.append(f"<script>{_SCRIPT}</script></body></html>\n")
    return "\n".join(parts)


_HEAD = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font-family: Helvetica, Arial, sans-serif; margin: 0; background: #f4f1ea; color: #1d3557; }}
main {{ padding: 12px 20px 24px; }}
h1 {{ font-size: 20px; margin: 4px 0 6px; }}
h2 {{ font-size: 16px; margin: 18px 0 6px; }}
p.summary {{ margin: 2px 0; }}
.answer {{ display: flex; gap: 14px; align-items: flex-start; background: #fff; border: 1px solid #c9c1ae;
  border-radius: 6px; padding: 8px 12px; margin: 8px 0; }}
.verdict {{ font-size: 22px; font-weight: bold; margin: 0; padding: 4px 10px; border-radius: 4px; color: #fff;
  background: #777; }}
.verdict.yes {{ background: #1b7a3a; }}
.verdict.no {{ background: #b23a3a; }}
#reasons {{ margin: 0; white-space: pre-wrap; font-size: 13px; }}
.controls {{ display: flex; gap: 8px; align-items: center; margin: 10px 0; flex-wrap: wrap; }}
.controls button {{ font-size: 15px; padding: 4px 12px; border: 1px solid #8a7350; border-radius: 4px;
  background: #fff; cursor: pointer; }}
.controls button:disabled {{ opacity: 0.4; cursor: default; }}
#slider {{ flex: 1; min-width: 200px; }}
#counter {{ min-width: 120px; font-variant-numeric: tabular-nums; }}
.stage {{ display: flex; gap: 16px; align-items: flex-start; flex-wrap: wrap; }}
#picture {{ flex: 0 1 auto; min-width: 0; background: #fbfaf7; border: 1px solid #c9c1ae; border-radius: 6px;
  padding: 0 0 0 24px; line-height: 0; overflow: hidden; }}
#picture svg {{ display: block; max-width: 100%; height: auto; overflow: visible; }}
aside {{ flex: 1; min-width: 280px; max-width: 520px; background: #fff; border: 1px solid #c9c1ae;
  border-radius: 6px; padding: 8px 14px; }}
#heading {{ font-size: 16px; font-weight: bold; margin: 4px 0 8px; }}
#chapter-title {{ font-size: 13px; color: #555; margin: 0 0 6px; }}
#chapter-lines {{ margin: 0; padding-left: 0; list-style: none; font-size: 13px; }}
#chapter-lines li {{ padding: 3px 6px; border-left: 4px solid transparent; margin: 1px 0; }}
#chapter-lines li.now {{ border-left-color: #e76f51; background: #fdf0e6; font-weight: bold; }}
.keys {{ font-size: 12px; color: #666; margin-top: 10px; }}
table {{ border-collapse: collapse; font-size: 13px; background: #fff; }}
td, th {{ border: 1px solid #c9c1ae; padding: 3px 8px; text-align: left; }}
td:first-child {{ white-space: nowrap; }}
code {{ font-size: 12px; }}
</style></head><body><main>
"""

_BODY = """<div class="controls">
<button type="button" id="first" title="first step (Home)">&#xAB; first</button>
<button type="button" id="prev" title="previous step (&#x2190;)">&#x25C0; previous</button>
<button type="button" id="next" title="next step (&#x2192;)">next &#x25B6;</button>
<button type="button" id="last" title="last step (End)">last &#xBB;</button>
<input type="range" id="slider" min="0" max="0" value="0" step="1" aria-label="step">
<span id="counter"></span>
</div>
<div class="stage">
<div id="picture" role="img" aria-label="the position"></div>
<aside><p id="heading"></p><p id="chapter-title"></p><ol id="chapter-lines"></ol>
<p class="keys">&#x2190; &#x2192; a step · Page Up / Page Down a round (or a line) · Home / End the first and the
last step</p></aside>
</div></main>"""

_SCRIPT = """
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("niagara-data").textContent);
  var steps = data.steps, chapters = data.chapters, pool = data.svg;
  var picture = document.getElementById("picture"), slider = document.getElementById("slider");
  var heading = document.getElementById("heading"), counter = document.getElementById("counter");
  var chapterTitle = document.getElementById("chapter-title"), chapterLines = document.getElementById("chapter-lines");
  var buttons = {first: document.getElementById("first"), prev: document.getElementById("prev"),
                 next: document.getElementById("next"), last: document.getElementById("last")};
  var current = -1;
  slider.max = String(steps.length - 1);

  function show(i) {
    i = Math.max(0, Math.min(steps.length - 1, i));
    if (i === current) { return; }
    current = i;
    var step = steps[i], chapter = chapters[step.chapter];
    picture.innerHTML = step.svg.map(function (k) { return pool[k]; }).join("\\n");
    heading.textContent = step.heading;
    chapterTitle.textContent = chapter.title;
    chapterLines.textContent = "";
    chapter.lines.forEach(function (line, k) {
      var item = document.createElement("li");
      item.textContent = line;
      if (step.marks.indexOf(k) >= 0) { item.className = "now"; item.setAttribute("aria-current", "step"); }
      chapterLines.appendChild(item);
    });
    slider.value = String(i);
    counter.textContent = "step " + (i + 1) + " of " + steps.length;
    buttons.first.disabled = buttons.prev.disabled = i === 0;
    buttons.next.disabled = buttons.last.disabled = i === steps.length - 1;
    if (location.hash !== "#step=" + (i + 1)) { location.replace("#step=" + (i + 1)); }
  }

  function chapterStart(i, direction) {
    var k = i, now = steps[i].chapter;
    if (direction > 0) {
      while (k < steps.length - 1 && steps[k].chapter === now) { k++; }
      return k;
    }
    while (k > 0 && steps[k - 1].chapter === now) { k--; }
    if (k === i && k > 0) { return chapterStart(k - 1, -1); }
    return k;
  }

  function fromHash() {
    var found = /^#step=(\\d+)$/.exec(location.hash);
    return found ? parseInt(found[1], 10) - 1 : 0;
  }

  buttons.first.addEventListener("click", function () { show(0); });
  buttons.prev.addEventListener("click", function () { show(current - 1); });
  buttons.next.addEventListener("click", function () { show(current + 1); });
  buttons.last.addEventListener("click", function () { show(steps.length - 1); });
  slider.addEventListener("input", function () { show(parseInt(slider.value, 10)); });
  window.addEventListener("hashchange", function () { show(fromHash()); });
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) { return; }
    if (event.target === slider && event.key.indexOf("Arrow") === 0) { return; }  // the slider moves itself
    var to = {ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: steps.length - 1,
              PageDown: chapterStart(current, 1), PageUp: chapterStart(current, -1)}[event.key];
    if (to === undefined) { return; }
    event.preventDefault();
    show(to);
  });
  show(fromHash());
})();
"""
