"""Answers shared between tests: the ``shared`` fixture of conftest.py, which a test asks for by name.

The costliest answers of the suite are deterministic (every job and every cross-check starts from a fresh z3
context, so an answer depends only on its question), and several tests ask the very same questions: the catalogue
proved for a preset by ``check``, ``diff`` (of the presets, and of a module on and off, both ways round), ``sweep``,
``report``, the README's commands and the prover's tests; the witnesses of the presets' differences by ``diff``,
``report`` and the witness tests; the cross-check's goal positions and their comparisons by the bounded cross-check,
``report`` and the README's ``crosscheck``; the README's ``crosscheck`` again by the ``crosscheck`` command's test,
as JSON. With ``shared``, each such answer is computed once per test process and the later tests reuse it (a copy,
so no test can alter another's): jobs by their :attr:`~niagara_solver.jobs.Task.key` (the key by which a command
already runs a task shared by two of its sections once), the goal positions and the engine-against-encoding
comparisons by their exact arguments. A test about how answers are computed (in which process, with a patched rule)
does not ask for it.

The tests asking for ``shared`` are listed in :data:`GROUPS`; with pytest-xdist (``-n``) each group runs in one
worker (conftest.py schedules them), every other test is spread over the workers one by one.
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any, Callable, Iterator

import pytest

#: The tests sharing answers, in groups run by one worker each; a test is named by the start of its node id. One
#: group: ``report`` asks the questions of both kinds (the cross-check, and the presets' proofs and witnesses). A
#: group may also gather tests leaning on what a process proves once for all of them (the certificate's lemmas).
GROUPS: dict[str, tuple[str, ...]] = {
    "the standard rules and the presets: cross-check, proofs, puzzles, witnesses": (
        "test_cli_language.py::test_check_diff_and_report_find_the_bundled_puzzles_outside_the_repository",
        "test_crosscheck.py::test_bounded_crosscheck_agrees_on_every_goal_a_playout_and_first_rounds",
        "test_crosscheck.py::test_crosscheck_command",
        "test_crosscheck.py::test_crosscheck_in_two_processes_reports_what_one_process_reports",
        "test_designer.py::test_check_passes_with_junit_xml_one_case_per_property_and_puzzle",
        "test_designer.py::test_check_fails_naming_the_refuted_property_and_the_changed_puzzle",
        "test_designer.py::test_the_readme_ci_job_runs_the_check_it_documents",
        "test_designer.py::test_diff_standard_against_bga_shows_both_differences_with_witnesses",
        "test_designer.py::test_the_steal_witness_replays_in_the_engine_an_unload_then_a_steal",
        "test_designer.py::test_the_rescue_witness_is_an_option_under_one_preset_only",
        "test_designer.py::test_diff_of_a_ruleset_with_itself_is_empty",
        "test_designer.py::test_sweep_proves_every_combination_and_answers_the_puzzles_per_ruleset",
        "test_designer.py::test_sweep_reports_refuted_properties_per_combination",
        "test_designer.py::test_sweep_on_a_local_dask_cluster_gives_the_local_answer",
        "test_designer.py::test_sweep_over_a_module_proves_its_own_property_and_shows_the_puzzles_it_decides",
        "test_designer.py::test_report_writes_markdown_whose_pictures_exist_and_show_every_canoe",
        "test_fastest_win.py::test_diff_fastest_win_json_and_text",
        "test_prover.py::test_every_property_is_proved_for_the_standard_rules",
        "test_prover.py::test_diff_shows_a_property_not_applicable_under_one_ruleset_whichever_side",
        "test_readme.py::test_readme_output_is_real[niagara-solve check ",
        "test_readme.py::test_readme_output_is_real[niagara-solve crosscheck ",
        "test_readme.py::test_readme_output_is_real[niagara-solve diff ",
        "test_readme.py::test_readme_output_is_real[niagara-solve sweep ",
    ),
    # No shared answers here, but the lemmas every certificate check of the standard rules leans on (the frame of each
    # player's turn, with 3 and 4 players: solver/certify.py, _PROVED), proved once per process: in one worker,
    # once, not once in each (about 1 s a lemma).
    "the certificates of the standard rules with 3 and 4 players: the frames of their turns": (
        "test_sure_win.py::",
        "test_sure_steal.py::",
        "test_mine.py::",
        "test_certificate.py::test_certificates_of_bundled_puzzles_are_accepted",
        "test_readme.py::test_readme_output_is_real[niagara-solve mine ",
        "test_readme.py::test_readme_output_is_real[niagara-solve solve puzzles/a-sure-steal.json ",
    ),
}


def group_of(nodeid: str) -> str | None:
    """The group of the test with this node id, if any."""
    path, _, name = nodeid.partition("::")
    test = os.path.basename(path) + "::" + name
    return next((group for group, tests in GROUPS.items() if any(test.startswith(t) for t in tests)), None)


#: Answers by question, for the life of the test process (a pytest-xdist worker).
_ANSWERS: dict[Any, Any] = {}


def _question(value: Any) -> Any:
    """A hashable, exact form of an argument: JSON for boards and rulesets, the name of a mutant."""
    if hasattr(value, "to_json") and not hasattr(value, "players"):  # a board, a ruleset or a card; not a position
        return json.dumps(value.to_json(), sort_keys=True)
    if hasattr(value, "replacement") and hasattr(value, "name"):  # a mutant of the encoding
        return ("mutant", value.name)
    if isinstance(value, dict):
        return tuple(sorted((k, _question(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_question(v) for v in value)
    return value


def _answer(key: Any, compute: Callable[[], Any]) -> Any:
    if key not in _ANSWERS:
        _ANSWERS[key] = compute()
    return copy.deepcopy(_ANSWERS[key])


def share(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reuse, within this test process, the answers to questions an earlier test of the process already asked
    (until ``monkeypatch`` undoes it, at the end of the test)."""
    from niagara_solver.jobs import Task
    from niagara_solver.verify.crosscheck import compare, run

    from niagara_solver.verify.jobs import prove_job

    task_call = Task.__call__

    def call(self: Task) -> dict[str, Any]:
        if self.job is prove_job:
            return _proof(self, lambda: task_call(self))
        return _answer(("task", self.key), lambda: task_call(self))
    monkeypatch.setattr(Task, "__call__", call)

    goal_answers = run.goal_answers

    def goals(*args: Any, **kwargs: Any) -> Iterator[Any]:
        # The cache folder is not part of the question: kept answers are the answers.
        key = ("goals", _question(args), _question({k: v for k, v in kwargs.items() if k != "cache"}))
        return iter(_answer(key, lambda: list(goal_answers(*args, **kwargs))))
    monkeypatch.setattr(run, "goal_answers", goals)

    for method in ("turn", "flow", "rescue", "end", "round"):
        monkeypatch.setattr(compare.CrossChecker, method, _shared_case(method, getattr(compare.CrossChecker, method)))


#: Settled proofs by their question less the time limit (a prove job's last argument): (ruleset, board, players, ids).
_SETTLED: dict[str, Any] = {}


def _proof(task: Any, compute: Callable[[], Any]) -> Any:
    """A prove job's answer. The commands ask the same proofs within different limits (``check`` and ``diff`` 600 s,
    ``report`` 60, the prover's tests 60.0: three keys for one proof of the standard rules). A proof settled (no
    property unknown) in well under a limit is the proof asked within that limit: z3 searches the same way with any
    timeout (fixed seeds, a fresh context per job), the limit only cuts the search short, and no part of the answer
    states the limit. Otherwise the answer is shared by its exact key only."""
    from niagara_solver.model.verdict import PROOF

    *question, timeout = task.args
    key = json.dumps(question, sort_keys=True)
    settled = _SETTLED.get(key)
    if settled is not None and 2 * settled["seconds"] < timeout:
        return copy.deepcopy(settled)
    answer = _answer(("task", task.key), compute)
    if all(p["verdict"] != PROOF.unknown for p in answer["properties"]):
        _SETTLED.setdefault(key, copy.deepcopy(answer))
    return answer


def _shared_case(method: str, real: Callable[..., Any]) -> Callable[..., Any]:
    def case(self: Any, *args: Any, **kwargs: Any) -> Any:
        key = ("case", method, _question(self.board), _question(self.rules), _question(self.mutant), self.timeout,
               _question(args), _question(kwargs))
        return _answer(key, lambda: real(self, *args, **kwargs))
    return case
