"""Rewrite the golden transcripts (``make golden``) after a deliberate change; review the diff."""

import contextlib
import io
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.chdir(os.path.join(HERE, "..", ".."))

from cases import CASES  # noqa: E402

from niagara_solver.cli.main import main  # noqa: E402

for name, argv in CASES.items():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(argv)
    assert status == 0, (name, status)
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        f.write(out.getvalue())
    print("wrote", name)
