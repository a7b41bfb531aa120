"""The one verdict type (model/verdict.py) and the generic job runner (jobs.py)."""

import pickle

import pytest

from niagara_solver.jobs import Task, run_all, task_key
from niagara_solver.model.verdict import ANSWER, MUTANT, PROOF, PUZZLE, STATUS, WITNESS, Verdict, merge
from niagara_solver.solver.puzzles import PuzzleStatus, puzzle_status, status_of, status_verdict
from niagara_solver.verify.jobs import merge_properties, prove_task

C, U, R = Verdict.CONFIRMED, Verdict.UNKNOWN, Verdict.REFUTED


def test_verdicts_are_ordered_and_merging_is_max():
    assert C < U < R and max(C, R, U) is R and max(C, U) is U
    assert merge([]) is C and merge([C, C]) is C and merge([C, U, C]) is U and merge([U, R, C]) is R
    assert Verdict.PROVED is C


def test_unknown_is_never_a_pass():
    assert (C.exit_status, R.exit_status, U.exit_status) == (0, 1, 3)


@pytest.mark.parametrize("words, expected", [
    (PROOF, ("proved", "unknown", "refuted")), (ANSWER, ("yes", "unknown", "no")),
    (WITNESS, ("found", "unknown", "none")), (STATUS, ("pass", "unknown", "fail")),
    (PUZZLE, ("same", "unknown", "changed")), (MUTANT, ("killed", "unknown", "survived"))])
def test_each_command_names_the_verdicts_in_its_words_and_reads_them_back(words, expected):
    assert tuple(words(v) for v in (C, U, R)) == expected
    assert [words.parse(w) for w in expected] == [C, U, R]
    with pytest.raises(ValueError):
        words.parse("maybe")


def test_a_puzzle_answer_against_the_recorded_one():
    assert puzzle_status(C, "yes") is PuzzleStatus.SAME and puzzle_status(R, "yes") is PuzzleStatus.CHANGED
    assert puzzle_status(R, "no") is PuzzleStatus.SAME and puzzle_status(U, "no") is PuzzleStatus.UNKNOWN
    # The statuses are a closed set, whose words are the jobs' results' and check --json's as before.
    assert [s.value for s in PuzzleStatus] == ["same", "unknown", "changed", "invalid", "not a puzzle"]
    assert [status_verdict(status_of({"status": w})) for w in ("same", "changed", "unknown", "invalid")] == [C, R, U, R]
    with pytest.raises(ValueError):  # a file that asks nothing is left out of a run, never judged
        status_verdict(PuzzleStatus.NOT_A_PUZZLE)
    with pytest.raises(ValueError):
        status_of({"status": "maybe"})


def test_merging_proofs_over_player_counts_keeps_the_worst_and_its_counterexample():
    def run(n, verdict, trace=None):
        item = {"id": "R-PROP-2", "title": "t", "verdict": verdict, "seconds": 1.0, "depends_on": []}
        if trace:
            item["trace"] = trace
        return {"players": n, "properties": [item]}
    (merged,) = merge_properties([run(2, "proved"), run(3, "unknown"), run(4, "refuted", ["a"]),
                                  run(5, "refuted", ["b"])])
    assert merged["verdict"] == "refuted" and merged["trace"] == ["a"] and merged["seconds"] == 4.0
    assert merged["players"] == {"2": "proved", "3": "unknown", "4": "refuted", "5": "refuted"}


def _double(x: int) -> dict:
    return {"kind": "double", "value": 2 * x}


def test_tasks_carry_their_job_and_equal_tasks_run_once():
    a, b = Task(_double, (2,)), Task(_double, (2,))
    assert task_key(a) == task_key(b) != task_key(Task(_double, (3,)))
    assert a.name == "_double" and prove_task("standard", {}, 2, None, 1).name == "prove"
    assert pickle.loads(pickle.dumps(a)) == a  # travels to another process by reference
    calls = []

    def runner(task):
        calls.append(task)
        return task()
    results = run_all([a, b, Task(_double, (3,))], runner=runner)
    assert len(calls) == 2 and results[task_key(a)] == {"kind": "double", "value": 4}


def test_tasks_give_the_same_results_in_a_pool_of_processes():
    tasks = [Task(_double, (n,)) for n in range(4)]
    assert run_all(tasks, jobs=2) == run_all(tasks)
