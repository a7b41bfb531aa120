"""The gallery of mined puzzles (``niagara-solve mine``): one Markdown page, a picture per puzzle, the solution below
a fold, the puzzles sorted by difficulty (the easiest first)."""

from __future__ import annotations

import os
from typing import Any, Sequence

from niagara_solver.design.mine import DROPS, PHASES, THEMES, MinedPuzzle, MineReport
from niagara_solver.model.atoms import Card
from niagara_solver.model.notation import Turn
from niagara_solver.model.verdict import Verdict
from niagara_solver.report.html import solve_page, write_page
from niagara_solver.report.svg import render_svg
from niagara_solver.solver.answers import Answer, AnsweredBy, Goal
from niagara_solver.solver.reasons import Reason

#: The gallery page's name in the output folder.
GALLERY = "gallery.md"
#: The folder of the pictures, beside the page.
PICTURES = "pictures"


def puzzle_answer(p: MinedPuzzle) -> Answer:
    """A mined puzzle's solution as the solver's answer, with each other card's refutation as an option of the
    player and the others' answer to it (as ``solve --html`` shows a "no"), for its page."""
    z = p.puzzle
    solution = z["solution"]
    refutations = []
    for ref in z["refutations"]:
        option = f"{z['player']} plays {_card(ref['card'])}"
        if ref.get("answers"):
            refutations += [{"option": option, "answer": [f"{z['player']}: {a['turn']}", *a["line"]]}
                            for a in ref["answers"]]
        else:
            refutations.append({"option": option, "answer": list(ref["line"])})
    reason = solution.get("reason")
    return Answer(Verdict.CONFIRMED, z["player"], Goal(z["goal"]), z["horizon"], AnsweredBy.SEARCH,
                  Card.parse(str(z["card"])), Turn.parse(z["turn"]) if z.get("turn") else None,
                  list(solution["line"]), refutations, reason=Reason.from_json(reason) if reason else None)


def write_pages(pages: str, folder: str, puzzles: Sequence[MinedPuzzle]) -> dict[str, str]:
    """A page to step through per puzzle (``pages/NAME.html``): the solution's line and each other card's
    refutation, replayed by the engine; each page's path as the gallery in ``folder`` links it, by puzzle name."""
    out = {}
    for p in puzzles:
        path = write_page(os.path.join(pages, f"{p.name}.html"),
                          solve_page(p.position, puzzle_answer(p), p.name, [p.puzzle["question"]]))
        out[p.name] = os.path.relpath(path, folder).replace(os.sep, "/")
    return out


def theme_words(themes: Sequence[str]) -> str:
    """The themes in the game's words, each with its rule: ``steal (R-STEAL-1)``."""
    return ", ".join(f"{THEMES.get(t, t)} ({t})" for t in themes) or "none named"


def _card(value: Any) -> str:
    return Card.parse(str(value)).label


def _puzzle_section(k: int, p: MinedPuzzle, picture: str, page: str | None = None) -> list[str]:
    z = p.puzzle
    rating, source, solution = z["rating"], z["source"], z["solution"]
    missed = ", ".join(f"{name} {share:.0%}" for name, share in rating["missed"].items())
    lines = [f"## {k}. {p.name}", "",
             f"{z['goal']} · horizon {z['horizon']} · {source['players']} players · ruleset "
             f"{source['ruleset'] if isinstance(source['ruleset'], str) else 'custom'} · difficulty "
             f"{rating['difficulty']:.0%} (missed by {missed}; {rating['samples']} choices each) · proof "
             f"{rating['certificate_nodes']} certificate nodes · themes: {theme_words(z['themes'])}", "",
             f"![{p.name}]({picture})", "", z["question"], "",
             *([f"[Step through the solution and the refutations]({page})", ""] if page else []),
             "<details><summary>Solution</summary>", "",
             f"Play **{_card(z['card'])}**" + (f", turn `{z['turn']}`" if z.get("turn") else "") + ".", ""]
    if solution.get("turns"):
        lines += ["Every winning turn with that card: " + "; ".join(f"`{t}`" for t in solution["turns"]) + ".", ""]
    lines += ["The line: " + " → ".join(solution["line"]), "", "Every other card fails:", ""]
    for ref in z["refutations"]:
        said = " → ".join(ref["line"])
        lines.append(f"- {_card(ref['card'])}: {said}")
        for answer in ref.get("answers", [])[:3]:
            lines.append(f"  - `{answer['turn']}`: " + " → ".join(answer["line"]))
        more = ref.get("turns", 0) - min(3, len(ref.get("answers", [])))
        if ref.get("answers") and more > 0:
            lines.append(f"  - and {more} more turn(s), each answered in the file and the certificate")
    replay = (f"`niagara-solve play --players {source['players']} --seed {source['game_seed']} --rounds "
              f"{source['round'] - 1}` plays the game to the start of that round" if source["round"] > 1 else
              "the game's first round")
    ruleset = source["ruleset"]
    if isinstance(ruleset, str) and ruleset != "standard" and source["round"] > 1:
        replay = replay.replace("niagara-solve play ", f"niagara-solve play --ruleset {ruleset} ")
    lines += ["", f"From game {source['game']} (seed {source['game_seed']}) of a run with seed {source['seed']}, "
                  f"round {source['round']}, before the cards are chosen: {replay}.", "", "</details>", ""]
    return lines


def write_gallery(folder: str, report: MineReport | None, puzzles: Sequence[MinedPuzzle],
                  title: str = "Mined puzzles", pages: dict[str, str] | None = None) -> str:
    """Write ``folder/gallery.md`` and a picture per puzzle (``folder/pictures/NAME.svg``); the page's path.
    ``report``: the run's summary (None for a gallery of puzzle files read back); ``pages``: each puzzle's page to
    step through (:func:`write_pages`), linked from its entry."""
    os.makedirs(os.path.join(folder, PICTURES), exist_ok=True)
    ordered = sorted(puzzles, key=MinedPuzzle.sort_key)
    lines = [f"# {title}", "",
             f"{len(ordered)} puzzles, the easiest first: each is a position from a seeded game where exactly one "
             "card forces the goal whatever the others do, proved by the search and certified by the encoding, "
             "every refutation replayed by the engine (docs/MINING.md). Difficulty: the share of sampled card "
             "choices of the greedy and lookahead policies that miss the winning card.", ""]
    if report is not None:
        d = report.to_json()
        lines += [f"Mined from {d['games']} game(s) per player count ({', '.join(map(str, d['players']))} players), "
                  f"seed {d['seed']}, goals {', '.join(d['goals'])}, horizons "
                  f"{', '.join(map(str, d['horizons']))}: {d['asked']} questions asked, {d['kept']} kept; dropped: "
                  + ", ".join(f"{why} {report.dropped[why]}" for why in DROPS) + f"; {report.seconds:.0f} s ("
                  + ", ".join(f"{ph} {report.phases[ph]:.0f} s" for ph in PHASES) + ").", ""]
    for k, p in enumerate(ordered, start=1):
        picture = f"{PICTURES}/{p.name}.svg"
        svg = render_svg(p.position, title=f"{k}. {p.puzzle['player']} to choose a card: "
                                           f"{p.puzzle['goal']} within {p.puzzle['horizon']}")
        with open(os.path.join(folder, picture), "w") as f:
            f.write(svg)
        lines += _puzzle_section(k, p, picture, (pages or {}).get(p.name))
    path = os.path.join(folder, GALLERY)
    with open(path, "w") as f:
        f.write("\n".join(lines).rstrip() + "\n")
    return path
