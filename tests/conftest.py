"""Set-up shared by every test: the helpers on the import path, the Hypothesis profile, the ``shared`` fixture
(answers reused between tests, tests/shared.py) and, with pytest-xdist, how the tests are spread over the workers."""

import json
import os
import sys
from collections import defaultdict
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(__file__))

from shared import group_of, share  # noqa: E402

from niagara_solver.jobs import tune_collector  # noqa: E402

# The tests run the library as the command line does: with its collector thresholds (niagara_solver/jobs.py).
tune_collector()

# Deterministic, reasonably quick property tests; CI uses the same profile.
settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

#: Where the seconds each test took last time are kept (pytest's cache, .pytest_cache/).
DURATIONS = "niagara-solver/durations"

#: The seconds of the longer tests of one whole run, committed: the order of a run whose cache knows none (a fresh
#: clone, CI, ``-p no:cacheprovider``). ``NIAGARA_DURATIONS=write pytest -n 2`` writes it anew from that run.
COMMITTED = os.path.join(os.path.dirname(__file__), "durations.json")


def _committed() -> dict[str, float]:
    try:
        with open(COMMITTED, encoding="utf-8") as f:
            return dict(json.load(f))
    except (OSError, ValueError):
        return {}


@pytest.fixture
def shared(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reuse, within this test process, the answers to questions an earlier test of the process already asked
    (tests/shared.py says which)."""
    # Listed in a group, or another worker would compute the same answers again.
    assert group_of(request.node.nodeid), f"{request.node.nodeid} shares answers: list it in tests/shared.py GROUPS"
    share(monkeypatch)


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """With ``-n`` (the default distribution), each group of tests sharing answers goes to one worker, as one unit;
    every other test is a unit of its own. Units are handed out one at a time to a worker running out of work, the
    longest first (by the seconds their tests took last time, as pytest's cache knows them, else as tests/durations.json
    has them), so that no long test is left to run alone at the end."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    cache = getattr(config, "cache", None)
    last: dict[str, float] = (cache.get(DURATIONS, {}) if cache is not None else {}) or _committed()

    class GroupScheduling(LoadScopeScheduling):  # type: ignore[misc]
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid) or nodeid

        def _assign_work_unit(self, node: Any) -> None:
            if not self.ordered:  # the work queue is complete before the first unit is handed out
                self.ordered = True
                units = sorted(self.workqueue.items(), key=lambda unit: -sum(last.get(t, 0.0) for t in unit[1]))
                self.workqueue.clear()
                self.workqueue.update(units)
            super()._assign_work_unit(node)

    return GroupScheduling(config, log)


_seconds: dict[str, float] = defaultdict(float)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _seconds[report.nodeid] += report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    if hasattr(session.config, "workerinput") or not _seconds:
        return  # the controller (or a run without pytest-xdist) keeps the record
    cache = getattr(session.config, "cache", None)
    if cache is not None:
        cache.set(DURATIONS, {**cache.get(DURATIONS, {}), **_seconds})
    if os.environ.get("NIAGARA_DURATIONS") == "write":  # the tests of a second or more: enough to order the rest
        with open(COMMITTED, "w", encoding="utf-8") as f:
            json.dump({t: round(s, 1) for t, s in sorted(_seconds.items()) if s >= 1.0}, f, indent=0)
            f.write("\n")
