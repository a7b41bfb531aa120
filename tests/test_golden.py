"""Golden transcripts: the exact output of chosen commands, diffed line by line (``make golden`` rewrites)."""

import difflib
import os

import pytest

from golden.cases import CASES
from niagara_solver.cli.main import main

ROOT = os.path.join(os.path.dirname(__file__), "..")
GOLDEN = os.path.join(os.path.dirname(__file__), "golden")


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_transcript(name, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(CASES[name]) == 0
    out = capsys.readouterr().out
    with open(os.path.join(GOLDEN, name), encoding="utf-8") as f:
        want = f.read()
    diff = "".join(difflib.unified_diff(want.splitlines(True), out.splitlines(True), "golden/" + name, "now"))
    assert not diff, f"output changed (run `make golden` if deliberate):\n{diff}"
