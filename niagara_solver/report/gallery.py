"""The gallery of mined puzzles (``niagara-solve mine``): one Markdown page, a picture per puzzle, the solution below
a fold, the puzzles sorted by difficulty (the easiest first)."""

from __future__ import annotations

import os
from typing import Any, Sequence

from niagara_solver.design.mine import DROPS, PHASES, THEMES, MinedPuzzle, MineReport
from niagara_solver.model.atoms import Card
from niagara_solver.report.svg import render_svg

#: The gallery page's name in the output folder.
GALLERY = "gallery.md"
#: The folder of the pictures, beside the page.
PICTURES = "pictures"


def theme_words(themes: Sequence[str]) -> str:
    """The themes in the game's words, each with its rule: ``steal (R-STEAL-1)``."""
    return ", ".join(f"{THEMES.get(t, t)} ({t})" for t in themes) or "none named"


def _card(value: Any) -> str:
    return Card.parse(str(value)).label


def _puzzle_section(k: int, p: MinedPuzzle, picture: str) -> list[str]:
    z = p.puzzle
    rating, source, solution = z["rating"], z["source"], z["solution"]
    missed = ", ".join(f"{name} {share:.0%}" for name, share in rating["missed"].items())
    lines = [f"## {k}. {p.name}", "",
             f"{z['goal']} · horizon {z['horizon']} · {source['players']} players · ruleset "
             f"{source['ruleset'] if isinstance(source['ruleset'], str) else 'custom'} · difficulty "
             f"{rating['difficulty']:.0%} (missed by {missed}; {rating['samples']} choices each) · proof "
             f"{rating['certificate_nodes']} certificate nodes · themes: {theme_words(z['themes'])}", "",
             f"![{p.name}]({picture})", "", z["question"], "",
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
    lines += ["", f"From game {source['game']} (seed {source['game_seed']}) of a run with seed {source['seed']}, "
                  f"round {source['round']}: `niagara-solve play --players {source['players']} --seed "
                  f"{source['game_seed']} --rounds {source['round']}`.", "", "</details>", ""]
    return lines


def write_gallery(folder: str, report: MineReport | None, puzzles: Sequence[MinedPuzzle],
                  title: str = "Mined puzzles") -> str:
    """Write ``folder/gallery.md`` and a picture per puzzle (``folder/pictures/NAME.svg``); the page's path.
    ``report``: the run's summary (None for a gallery of puzzle files read back)."""
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
        lines += _puzzle_section(k, p, picture)
    path = os.path.join(folder, GALLERY)
    with open(path, "w") as f:
        f.write("\n".join(lines).rstrip() + "\n")
    return path
