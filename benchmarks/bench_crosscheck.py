"""Cross-check benchmark (``make bench``): positions cross-checked per second, and cases and outcomes per
second, over the goal positions and seeded playout positions of one run (standard rules and board)."""

from __future__ import annotations

import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)

from niagara_solver.verify.crosscheck import crosscheck  # noqa: E402
from niagara_solver.model.board import standard_board  # noqa: E402
from niagara_solver.model.ruleset import Ruleset  # noqa: E402


def main() -> None:
    report = crosscheck(standard_board(), Ruleset(), count=6, seed=11)
    cases = sum(report.cases.values())
    print(f"crosscheck: {report.positions} positions, {cases} cases, {report.outcomes} outcomes in "
          f"{report.seconds:.1f} s: {report.positions / report.seconds:.2f} positions/s, "
          f"{cases / report.seconds:.1f} cases/s, {report.outcomes / report.seconds:.1f} outcomes/s; "
          f"mismatches {len(report.mismatches)}")
    by_kind = ", ".join(f"{k} {v}" for k, v in sorted(report.cases.items()))
    print(f"  cases by kind: {by_kind}")


if __name__ == "__main__":
    main()
