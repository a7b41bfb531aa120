"""The README's tour stays true: every quoted `$ niagara-solve ...` command is run, exits with the status the
README gives it, and each line quoted as its output (other than "...") must appear in the real output, in order.

A file a command reads must exist: in the repository, or, for the README's example of a bad file, as written here.
"""

import contextlib
import io
import json
import os
import shlex

import pytest

from helpers import P, doc
from niagara_solver.cli.main import main
from shared import group_of

ROOT = os.path.join(os.path.dirname(__file__), "..")


def quoted_commands() -> list[tuple[str, list[str]]]:
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    blocks: list[list[str]] = []
    inside = False
    for line in text.splitlines():
        if line.startswith("```"):
            inside = not inside
            if inside:
                blocks.append([])
        elif inside:
            blocks[-1].append(line)
    out = []
    for lines in blocks:
        current: tuple[str, list[str]] | None = None
        for line in lines:
            if line.startswith("$ niagara-solve "):
                current = (line[2:], [])
                out.append(current)
            elif current is not None:
                current[1].append(line)
    return out


CASES = quoted_commands()

#: Files the README's commands read that are not in the repository: its example of a bad position file (a canoe in
#: the port still carrying a gem), written into the scratch folder the commands run in.
FILES = {"bad.json": doc(P("red", "port:ruby", "3"), P("blue", "port", "port"))}

#: The exit status of the README's commands that do not exit 0, as the README gives it (besides the commands whose
#: quoted output is an error line, which exit 2): a refuted property exits 1 (`prove`), and so does a sweep in which
#: a puzzle's answer changes ("so the exit status is 1").
STATUS = {
    "niagara-solve prove --ruleset puzzles/rulesets/free-fork.json --players 2 --property R-PROP-2": 1,
    "niagara-solve sweep puzzles/grids/steal-after-unload.json": 1,
    "niagara-solve history puzzles/the-game-is-over.json": 1,
}


def expected_status(command: str, expected: list[str]) -> int:
    """The exit status the README implies: 2 when its quoted output is an error, else as :data:`STATUS` says, else 0."""
    if any(line.startswith("niagara-solve: error: ") for line in expected):
        return 2
    return STATUS.get(command, 0)


def test_the_readme_quotes_commands():
    assert len(CASES) >= 18
    commands = [c for c, _ in CASES]
    assert set(STATUS) <= set(commands)
    # Every file a command reads exists (nothing is skipped): in the repository or in FILES.
    for command in commands:
        for arg in shlex.split(command):
            if arg.endswith(".json"):
                assert arg in FILES or os.path.isfile(os.path.join(ROOT, arg)), f"`{command}`: no file {arg}"


def test_the_readme_counts_the_puzzles_as_the_folder_holds_them():
    # Once: the README counted 23 puzzles where 27 files were, without saying what the other 4 were.
    import re
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = " ".join(f.read().split())
    said = re.search(r"The (\d+) curated puzzles in `puzzles/` are the position files there with a `\"puzzle\"` "
                     r"object \(.*?\): (\d+) of its (\d+) position files; the other (\d+) are positions the tour "
                     r"opens\. `puzzles/expansion/` holds the (\d+) puzzles", text)
    assert said is not None
    folder = os.path.join(ROOT, "puzzles")

    def documents(where: str) -> dict[str, dict]:
        out = {}
        for name in sorted(os.listdir(where)):
            if name.endswith(".json"):
                with open(os.path.join(where, name), encoding="utf-8") as f:
                    out[name] = json.load(f)
        return out
    files = documents(folder)
    puzzles = [name for name, d in files.items() if "puzzle" in d]
    expansion = documents(os.path.join(folder, "expansion"))
    assert all("puzzle" in d for d in expansion.values())
    assert [int(n) for n in said.groups()] == [len(puzzles), len(puzzles), len(files), len(files) - len(puzzles),
                                               len(expansion)]
    # The others are positions the tour opens by name.
    tour = {os.path.basename(arg) for command, _ in CASES for arg in shlex.split(command) if arg.endswith(".json")}
    assert set(files) - set(puzzles) <= tour


@pytest.mark.parametrize("command, expected", CASES, ids=[c[:60] for c, _ in CASES])
def test_readme_output_is_real(command, expected, monkeypatch, tmp_path, request):
    if group_of(request.node.nodeid):  # a command asking what other tests ask too (tests/shared.py)
        request.getfixturevalue("shared")
    # In a scratch folder that sees the bundled puzzles, so that commands writing files (--out) leave no trace.
    os.symlink(os.path.abspath(os.path.join(ROOT, "puzzles")), tmp_path / "puzzles")
    for name, content in FILES.items():
        (tmp_path / name).write_text(json.dumps(content))
    monkeypatch.chdir(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(shlex.split(command)[1:])
    real = (out.getvalue() + err.getvalue()).splitlines()
    assert status == expected_status(command, expected), (command, status, err.getvalue())
    position = 0
    for line in expected:
        if line.strip() in ("...", ""):
            continue
        while position < len(real) and real[position].rstrip() != line.rstrip():
            position += 1
        assert position < len(real), f"README line not in the output of `{command}`:\n{line}"
        position += 1
