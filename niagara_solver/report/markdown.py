"""``niagara-solve report``: one Markdown page with pictures of what the tool knows about the rules.

Sections: the property proofs for each preset (verdicts per player count and times), the mutation table, the
cross-check coverage per rule, every puzzle's answer with a picture of the position and the answer's turn, and
the preset diffs with a picture of each witness, and the playtesting of the two BGA revisions (simulated games
compared, with charts). Every number comes from a run made while writing the report;
the tasks are independent, so ``--jobs`` and ``--scheduler`` spread them like ``check`` does.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any

from niagara_solver.design.diff import DiffReport, diff_from, diff_tasks
from niagara_solver.design.simulate import Comparison, simulation_from
from niagara_solver.design.simulate import Settings as SimulationSettings
from niagara_solver.model.estimates import difference_row
from niagara_solver.verify.mutants import MUTANTS
from niagara_solver.solver.puzzles import PuzzleStatus, puzzle_paths, puzzle_task, status_of
from niagara_solver.verify.jobs import crosscheck_task, merge_properties, mutant_task, prove_task
from niagara_solver.jobs import Progress, Results, Task, run_all, task_key
from niagara_solver.model import VERSION
from niagara_solver.model.board import Board
from niagara_solver.model.notation import Turn
from niagara_solver.model.catalogue import RULES, sentence
from niagara_solver.model.format import load_document, position_from_json
from niagara_solver.model.readings import require, uncovered
from niagara_solver.model.ruleset import PRESETS, SWITCHES, Ruleset
from niagara_solver.model.switches import value_text
from niagara_solver.model.verdict import PROOF, Verdict
from niagara_solver.report.charts import write_charts
from niagara_solver.report.html import answer_from_json, game_summary, play_page, solve_page, write_page
from niagara_solver.report.svg import Change, render_svg, turn_from_json
from niagara_solver.play.playout import random_playout
from niagara_solver.model.puzzles import bundled_puzzles

#: A proof's verdict in a table cell (the prover's words, a refutation in bold).
VERDICT = {Verdict.PROVED: PROOF(Verdict.PROVED), Verdict.REFUTED: f"**{PROOF(Verdict.REFUTED).upper()}**",
           Verdict.UNKNOWN: PROOF(Verdict.UNKNOWN)}


@dataclass
class ReportSettings:
    """What the report covers."""

    board: Board
    players: list[int]
    puzzles: str | None = "puzzles"
    presets: list[str] = field(default_factory=lambda: covered_presets())
    mutant_players: int = 2
    mutants: list[str] | None = None  # names; None: all of them
    crosscheck_count: int = 4
    crosscheck_seed: int = 0
    timeout: float = 60
    #: The playtesting section: games per ruleset (0: none), and the seats at the table.
    simulate_games: int = 150
    simulate_players: int = 4


def covered_presets() -> list[str]:
    """The base game's presets whose every switch the encoding covers (niagara_solver/model/readings.py): the
    report proves and compares them. The expansion's presets are named in it with the command that proves them:
    their proofs take many minutes per player count (README, "The expansion"), too long for one report."""
    return [name for name, rules in PRESETS.items() if not uncovered(rules, "encoding") and not rules.modules]


def report_tasks(settings: ReportSettings) -> list[Task]:
    """Every task the report needs (shared ones, such as a preset's proofs used by the diff, run once)."""
    s = settings
    board = s.board.to_json()
    for name in s.presets:  # refused before any task runs
        require(PRESETS[name], "encoding")
    tasks: list[Task] = []
    for name in s.presets:
        tasks += [prove_task(name, board, n, None, s.timeout) for n in counts(s, name)]
    standard = PRESETS["standard"].to_json()
    tasks += [mutant_task(m.name, standard, board, s.mutant_players, s.timeout) for m in _mutants(s)]
    tasks.append(crosscheck_task(standard, board, s.crosscheck_count, s.crosscheck_seed, s.timeout))
    tasks += [puzzle_task(path, None, s.timeout) for path in puzzle_paths(s.puzzles)]
    for a, b in _pairs(s.presets):
        if counts(s, a, b):
            tasks += diff_tasks(s.board, PRESETS[a], PRESETS[b], counts(s, a, b), s.puzzles, s.timeout)
    for run in _playtests(s):
        run.check()
        tasks += run.tasks()
    return tasks


#: The rulesets the playtesting section compares (``simulate --compare``): the two BGA revisions.
PLAYTESTED = ("standard", "bga-2013-05-09")


def _playtests(settings: ReportSettings) -> list[SimulationSettings]:
    """The two runs of the playtesting section, or none."""
    if settings.simulate_games <= 0:
        return []
    return [SimulationSettings(PRESETS[name], settings.board, settings.simulate_players, settings.simulate_games)
            for name in PLAYTESTED]


def _phase_i_note() -> str:
    """Why the rules of the switches of phase I count 0 under ``standard``: each is exercised only with its switch
    away from the default (verify/crosscheck/compare.py), e.g. R-RESCUE-3 only under ``rescue_when_none: free``."""
    rows = [(name, row) for name, row in SWITCHES.items() if row.phases[0] == "rescue"]
    under = " and ".join(f"{row.rule} only under `{name}: {row.tries[1]}`" if len(row.tries) == 2 else
                         f"{row.rule} only with `{name}` other than `{row.tries[0]}`" for name, row in rows)
    return (f"The rules of the switches of phase I apply only away from their defaults, {under}, which `standard` "
            "does not use, so their rows show `-` here by design (the test suite checks them under those values).")


def _mutants(settings: ReportSettings) -> list[Any]:
    return [m for m in MUTANTS if settings.mutants is None or m.name in settings.mutants]


def counts(settings: ReportSettings, *presets: str) -> list[int]:
    """The report's player counts that every one of ``presets`` allows and has gems for (R-COMP-1, X-SIX-1,
    X-GEMS-1): the expansion's presets are played by 3 to 6, so ``--players 2`` proves them for no count."""
    return [n for n in settings.players
            if all(n in PRESETS[p].player_counts() and PRESETS[p].gems_for(n) is not None for p in presets)]


def _pairs(presets: list[str]) -> list[tuple[str, str]]:
    return [(presets[0], other) for other in presets[1:]]


def make_report(out: str, settings: ReportSettings, jobs: int = 1, scheduler: str | None = None,
                show_progress: bool = False) -> list[str]:
    """Run everything and write ``out/README.md`` and its pictures; return the files written."""
    start = time.perf_counter()
    tasks = report_tasks(settings)
    results = run_all(tasks, jobs, scheduler, Progress(len(tasks), "report", show_progress))
    return write_report(out, settings, results, time.perf_counter() - start)


def write_report(out: str, settings: ReportSettings, results: Results, seconds: float) -> list[str]:
    """The report from the tasks' results."""
    s = settings
    img = os.path.join(out, "img")
    os.makedirs(img, exist_ok=True)
    written: list[str] = []

    def picture(name: str, svg: str) -> str:
        path = os.path.join(img, f"{name}.svg")
        with open(path, "w", encoding="utf-8") as f:
            f.write(svg)
        written.append(path)
        return f"img/{name}.svg"

    board = s.board.to_json()
    lines = [
        "# niagara-solver report",
        "",
        f"Written by `niagara-solve report` (niagara-solver {VERSION}) on the board "
        f"`{s.board.name or 'inline'}`, in {seconds:.0f} s. Regenerate with `make report`.",
        "",
        "1. [Rule properties per preset](#rule-properties-per-preset)",
        "2. [Mutation table](#mutation-table)",
        "3. [Cross-check coverage per rule](#cross-check-coverage-per-rule)",
        "4. [Puzzles](#puzzles)",
        "5. [Preset differences](#preset-differences)",
        *(["6. [Playtesting](#playtesting)"] if s.simulate_games > 0 else []),
        f"{7 if s.simulate_games > 0 else 6}. [A game, step by step](#a-game-step-by-step)",
        "",
        "## Rule properties per preset",
        "",
        "Each property is proved **for all valid positions and all legal choices** of the phases it is about, "
        "for each player count (docs/PROPERTIES.md). *unknown* means the solver ran out of time: it is never "
        "counted as a proof.",
        "",
    ]
    pending = [(name, uncovered(PRESETS[name], "encoding")) for name in PRESETS if name not in s.presets]
    if any(missing for _, missing in pending):
        lines += ["Not proved here: " + "; ".join(f"`{name}` (the encoding does not cover "
                                                  f"{', '.join(f'`{m}`' for m in missing)} yet)"
                                                  for name, missing in pending if missing) + ".", ""]
    apart = [name for name, missing in pending if not missing and PRESETS[name].modules]
    if apart:
        lines += ["The expansion's presets are proved apart, each for its player counts (many minutes each: README, "
                  "\"The expansion\"): " + "; ".join(f"`niagara-solve prove --ruleset {name} --players "
                                                   f"{PRESETS[name].player_counts()[0]}-{PRESETS[name].player_counts()[-1]}`"
                                                   for name in apart) + ".", ""]
    for name in s.presets:
        tally = counts(s, name)
        if not tally:
            lines += [f"### `{name}`", "", f"Not proved here: {PRESETS[name].describe()} is not played by "
                      f"{', '.join(map(str, s.players))} players (`--players`).", ""]
            continue
        runs = [results[task_key(prove_task(name, board, n, None, s.timeout))] for n in tally]
        merged = merge_properties(runs)
        header = ["property", "statement", *(f"{n}p" for n in tally), "seconds", "rests on"]
        rows = [[p["id"], p["title"], *(VERDICT[PROOF.parse(p["players"][str(n)])] for n in tally),
                 f"{p['seconds']:.2f}", ", ".join(p["depends_on"])] for p in merged]
        total = sum(r["seconds"] for r in runs)
        lines += [f"### `{name}`", "", f"Ruleset: {_switches(PRESETS[name])}. Total {total:.1f} s.", "",
                  *_table(header, rows), ""]
        for p in merged:
            if "trace" in p:
                lines += [f"{p['id']} is refuted:", "", "```", *p["trace"], "```", ""]
                pos = position_from_json(p["counterexample"])
                turn, player = turn_from_json(p, pos)
                svg = render_svg(pos, turn, player, title=p["id"], change=Change.from_json(p, pos.board))
                link = picture(f"{name}-{p['id']}", svg)
                lines += [f"![{p['id']} counterexample]({link})", ""]

    lines += ["## Mutation table", "",
              f"Each mutant breaks one rule group of the encoding; the catalogue ({s.mutant_players} players, "
              "standard rules) must refute at least one property for it (`niagara-solve mutants`). The picture is "
              "the first counterexample, as a position file would show it.", ""]
    rows = []
    shown = []
    for m in _mutants(s):
        r = results[task_key(mutant_task(m.name, PRESETS["standard"].to_json(), board, s.mutant_players, s.timeout))]
        word = "killed" if r["killed"] else "**SURVIVED**" if r.get("survived", True) else "unknown (time limit)"
        rows.append([f"`{m.name}`", m.key, m.description, word,
                     ", ".join(r["by"]), f"{r['seconds']:.1f}"])
        if r["counterexamples"]:
            first = r["counterexamples"][0]
            pos = position_from_json(first["counterexample"])
            title = f"mutant {m.name}: {first['id']} refuted"
            turn, player = turn_from_json(first, pos)
            svg = render_svg(pos, turn, player, title=title, change=Change.from_json(first, pos.board))
            shown.append((m.name, first, picture(f"mutant-{m.name}", svg)))
    lines += _table(["mutant", "rule", "error", "verdict", "refuted by", "seconds"], rows) + [""]
    for name, first, path in shown:
        lines += [f"<details><summary><code>{name}</code>: {first['id']} refuted, {first['choices']}</summary>", "",
                  f"![{name}]({path})", "", "```", *first["trace"], "```", "", "</details>", ""]

    cc = results[task_key(crosscheck_task(PRESETS["standard"].to_json(), board, s.crosscheck_count,
                           s.crosscheck_seed, s.timeout))]
    lines += ["## Cross-check coverage per rule", "",
              f"The engine and the encoding compared (`niagara-solve crosscheck --count {s.crosscheck_count} "
              f"--seed {s.crosscheck_seed}`): {cc['positions']} positions, "
              f"{sum(cc['cases'].values())} cases, {cc['outcomes']} outcomes, "
              f"**{len(cc['mismatches'])} mismatches**, {cc['seconds']:.0f} s. A rule's count is the number of "
              "compared cases (one player's turns with a card, a flow, the rescues, the end check, a round) whose "
              f"outcomes exercised it; `-` where no case can, for the reason given. {_phase_i_note()}", ""]
    coverage, none = cc["coverage"], cc.get("not_applicable", {})
    rows = [[rule, f"- ({none[rule]})" if rule in none else coverage.get(rule, 0), RULES[rule]] for rule in RULES
            if rule.startswith(("R-TURN", "R-MOVE", "R-GEM", "R-STEAL", "R-FLOW", "R-RESCUE", "R-WEATHER",
                                "R-END", "R-CARD"))]
    lines += _table(["rule", "cases", "statement"], rows) + [""]
    if cc.get("unfinished"):
        lines += [f"*Not compared: {cc['unfinished']}.*", ""]
    if cc["mismatches"]:
        lines += ["Mismatches:", "", "```", *(str(m) for m in cc["mismatches"]), "```", ""]

    lines += ["## Puzzles", "",
              "Every puzzle of the folder, answered by the search (the answers were checked against the SMT "
              "backend when the puzzles were written; `niagara-solve check` keeps them). The turn of a *yes* "
              "answer is drawn as a path from where each canoe starts to where it ends.", ""]
    for path in puzzle_paths(s.puzzles):
        r = results[task_key(puzzle_task(path, None, s.timeout))]
        if status_of(r) is PuzzleStatus.NOT_A_PUZZLE:
            continue
        pos, extras = load_document(path)
        puzzle = extras["puzzle"]
        answer = r["answer"]
        player = pos.index(puzzle["player"])
        turn = Turn.parse(answer["turn"]) if answer.get("turn") else None
        status = {PuzzleStatus.SAME: "as recorded", PuzzleStatus.CHANGED: "**CHANGED**",
                  PuzzleStatus.UNKNOWN: "unknown", PuzzleStatus.INVALID: "**INVALID**"}[status_of(r)]
        lines += [f"### {r['name']}", "", f"*{r['question']}* (`{_shown(path, s.puzzles)}`, ruleset "
                  f"{_ruleset_name(pos.ruleset)})", "",
                  f"Answer: **{answer['verdict'].upper()}** ({status})"
                  + (f": play card {answer['card']}, turn `{answer['turn']}`" if answer.get("turn") else "")]
        if answer.get("line"):
            lines += ["", "Line: " + " → ".join(answer["line"])]
        if answer.get("refutations"):
            lines += ["", "Every option fails:", ""]
            lines += [f"- {x['option']}: " + (" → ".join(x["answer"]) or "no way through")
                      for x in answer["refutations"][:6]]
        page = write_page(os.path.join(out, "pages", f"puzzle-{r['name']}.html"), solve_page(
            pos, answer_from_json(answer), f"niagara-solve solve: {_shown(path, s.puzzles)}",
            [r["question"]] if r["question"] else []))
        written.append(page)
        what = "the others' answer to each option" if answer.get("refutations") else "the line"
        lines += ["", f"[Step through the answer](pages/puzzle-{r['name']}.html): a picture of each step of {what}."]
        svg = render_svg(pos, turn, player if turn is not None else None, title=r["name"])
        lines += ["", f"![{r['name']}]({picture('puzzle-' + r['name'], svg)})", ""]

    lines += ["## Preset differences", "",
              "For each pair of presets (`niagara-solve diff A B`): the property verdicts that change, the "
              "puzzles whose answers change, and for every switch that differs a witness position found by the "
              "solver, shrunk, and replayed by the engine under both rulesets.", ""]
    for a, b in _pairs(s.presets):
        if not counts(s, a, b):
            lines += [f"### `{a}` against `{b}`", "",
                      f"Not compared here: no count of {', '.join(map(str, s.players))} players plays both.", ""]
            continue
        found = diff_from(s.board, PRESETS[a], PRESETS[b], counts(s, a, b), s.puzzles, s.timeout, results)
        lines += _diff_section(found, a, b, picture)

    playtests = _playtests(s)
    if playtests:
        played = Comparison(*(simulation_from(run, results) for run in playtests))
        lines += _playtest_section(played, img, written)
    lines += _game_section(out, written)

    path = os.path.join(out, "README.md")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines).rstrip() + "\n")
    written.append(path)
    return written


def _diff_section(d: DiffReport, a: str, b: str, picture: Any) -> list[str]:
    lines = [f"### `{a}` against `{b}`", ""]
    switches = [f"`{k}`: {value_text(x)} → {value_text(y)}" for k, (x, y) in d.to_json()["switches"].items()]
    lines += ["Switches that differ: " + "; ".join(switches) + ".", ""]
    changed = [p for p in d.properties if p.changed]
    lines += [f"Properties: {len(d.properties) - len(changed)} of {len(d.properties)} have the same verdict under "
              "both." + ("" if not changed else " Changed: " + ", ".join(f"{p.id} {p.words[0]} → {p.words[1]}"
                                                                       for p in changed)), ""]
    moved = [p for p in d.puzzles if p.changed]
    if moved:
        lines += _table(["puzzle", "question", a, b], [[p.name, p.question, *p.words] for p in moved])
        lines.append("")
    else:
        lines += ["No puzzle changes its answer.", ""]
    for w in d.witnesses:
        lines += [f"#### `{w.switch}`: {value_text(w.a)} → {value_text(w.b)}", "", f"{w.summary}.", "",
                  "Rules: " + ", ".join(f"{r} ({sentence(r)})" for r in w.rules), "",
                  f"Engine: {w.engine}."]
        if w.detail:
            lines += ["", *(f"- {x}" for x in w.detail)]
        if w.position is not None:
            svg = render_svg(w.position, w.turn, w.player if w.turn is not None else None,
                             title=f"{w.switch}: {value_text(w.a)} → {value_text(w.b)}")
            lines += ["", f"![witness for {w.switch}]({picture(f'diff-{a}-{b}-{w.switch}', svg)})"]
        lines.append("")
    return lines


def _playtest_section(c: Comparison, img: str, written: list[str]) -> list[str]:
    """The playtesting section: the two rulesets' simulated games compared, with the charts."""
    a, b = PLAYTESTED
    s = c.a.settings
    lines = ["## Playtesting", "",
             f"`niagara-solve simulate --compare {a} {b} --players {s.players} --games {s.games}`: {s.games} games "
             f"under each ruleset, from the same seeds, {s.players} players, every seat played by the `{s.policy}` "
             "policy (docs/DECISIONS.md). These are **estimates from simulated play**, not proofs: each difference "
             "(B − A) has its 95% interval, and an interval that holds 0 is no difference these games show.", ""]
    played = (len(c.a.games), len(c.b.games))
    if played != (s.games, s.games):  # the report's time limit ran out before every game was played
        lines += [f"*The time limit ran out: {played[0]} and {played[1]} of the {s.games} games were played; the "
                  "figures are from those.*", ""]

    rows = [difference_row(r) for r in c.to_json()["differences"]]
    lines += _table(["measure", f"A: `{a}`", f"B: `{b}`", "B − A", "95% interval"], rows) + [""]
    for path in write_charts(img, [(a, c.a), (b, c.b)], prefix="playtest-"):
        written.append(path)
        name = os.path.basename(path)
        lines += [f"![{name.removesuffix('.svg')}](img/{name})", ""]
    return lines


#: The game the report steps through: a bundled position, the seed and the policy that play it (``play``).
STEPPED_GAME = ("start-4p.json", 0, "lookahead")


def _game_section(out: str, written: list[str]) -> list[str]:
    """A whole game played from a bundled position, as a page to step through (``play --html``)."""
    folder = bundled_puzzles()
    name, seed, policy = STEPPED_GAME
    if folder is None or not os.path.exists(os.path.join(folder, name)):
        return []
    pos = load_document(os.path.join(folder, name))[0]
    records = list(random_playout(pos, seed, 100, policy))  # play's default --rounds
    source = f"puzzles/{name}"
    written.append(write_page(os.path.join(out, "pages", "game.html"), play_page(pos, records, source, seed, policy)))
    return ["## A game, step by step", "",
            f"`niagara-solve play {source} --seed {seed} --html game.html`: [a whole game]"
            f"(pages/game.html), {len(pos.players)} players of the `{policy}` policy from the start. "
            f"{game_summary(pos, records)} "
            "The page shows a picture for each round's phase I (rescues and cards), each turn of phase II (drawn on "
            "the position before it) and phases III and IV (the flow, the lifebuoy), with the round's text beside "
            "it; previous and next, the arrow keys and a slider step through it. It is one file that needs no "
            "server: open it in a browser.", ""]


def _switches(rules: Ruleset) -> str:
    return ", ".join(f"`{k}={value_text(v)}`" for k, v in rules.switches().items())


def _ruleset_name(rules: Ruleset) -> str:
    return f"`{rules.describe()}`"


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    def cell(x: Any) -> str:
        return str(x).replace("|", "\\|").replace("\n", " ")
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cell(x) for x in row) + " |" for row in rows]
    return out


def _shown(path: str, folder: str | None) -> str:
    """A puzzle's file as the report names it: under its folder's name (``puzzles/x.json``), the same whether the
    folder is the repository's or the one installed with the tool."""
    return os.path.join(os.path.basename(os.path.normpath(folder)), os.path.relpath(path, folder)) if folder else path
