"""The README's tour stays true: every quoted `$ niagara-solve ...` command is run and each line quoted
as its output (other than "...") must appear in the real output, in order."""

import contextlib
import io
import os
import shlex

import pytest

from niagara_solver.cli.main import main

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


CASES = [c for c in quoted_commands() if all(os.path.exists(os.path.join(ROOT, a)) for a in shlex.split(c[0])
                                             if a.endswith(".json"))]


def test_the_readme_quotes_commands():
    assert len(CASES) >= 7


@pytest.mark.parametrize("command, expected", CASES, ids=[c[0][:60] for c in CASES])
def test_readme_output_is_real(command, expected, monkeypatch, tmp_path):
    # In a scratch folder that sees the bundled puzzles, so that commands writing files (--out) leave no trace.
    os.symlink(os.path.abspath(os.path.join(ROOT, "puzzles")), tmp_path / "puzzles")
    monkeypatch.chdir(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        main(shlex.split(command)[1:])
    real = (out.getvalue() + err.getvalue()).splitlines()
    position = 0
    for line in expected:
        if line.strip() in ("...", ""):
            continue
        while position < len(real) and real[position].rstrip() != line.rstrip():
            position += 1
        assert position < len(real), f"README line not in the output of `{command}`:\n{line}"
        position += 1
