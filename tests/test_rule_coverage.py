"""Every rule (the rule IDs of model/catalogue.py ``RULES``, those of docs/RULES.md) is guarded by a test that
fails when the rule breaks, in the engine and, where a mutant breaks it, in the encoding.

How it is tied together:

* An outcome test states exact outcomes (exact sets of legal turns, exact positions, the rule an illegal turn
  breaks) and carries ``@pytest.mark.rule("R-…")`` for the rules whose breaking in the engine makes it fail
  (tests/test_rules_turns.py, tests/test_rules_round.py, ...). ``test_every_rule_has_outcome_tests_marked_with_it``
  finds, for each rule, the tests marked with it (through the marks pytest itself reads, on every test module,
  whatever subset of the suite is run) and fails when there is none, or when a marked test asserts nothing. The
  marked tests run in the same suite: when the engine breaks a rule, they are what fails.
* Where the encoding has a mutant for a rule (verify/mutants.py ``MUTANTS``: each replaces one named rule of the
  encoding with a deliberate error), ``test_breaking_the_rule_in_the_encoding_is_caught`` runs it: the
  catalogue's killing property must be refuted, with a counterexample the engine rejects and a trace naming the
  mutated rule. ``test_every_mutant_is_run_here`` keeps that list complete.
* A mark naming no rule of the catalogue (a typo) fails ``test_marks_name_rules_of_the_catalogue``.

Rules R-PROP-… are properties of all positions: the prover proves them (tests/test_prover.py).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import textwrap
from functools import lru_cache
from typing import Any, Callable, Iterator

import pytest

from helpers import pending_rules
from niagara_solver.model.board import standard_board
from niagara_solver.model.catalogue import RULES
from niagara_solver.model.ruleset import Ruleset
from niagara_solver.model.verdict import Verdict
from niagara_solver.verify.mutants import MUTANTS
from niagara_solver.verify.properties import BY_ID
from niagara_solver.verify.prove import Prover

HERE = os.path.dirname(__file__)
THIS = os.path.splitext(os.path.basename(__file__))[0]

#: For each mutant of the encoding, the property of the catalogue that kills it.
KILLERS = {
    "fork-marker-stuck": "R-PROP-2", "negative-flow": "R-PROP-1", "steal-after-downstream": "R-PROP-7",
    "free-loading": "R-PROP-5", "fallen-gem-vanishes": "R-PROP-3", "cloud-two-steps": "R-PROP-8",
    "port-canoe-unlimited": "R-PROP-5", "same-colour-swap": "R-PROP-13", "cross-branches": "R-PROP-14",
    "weather-unbounded": "R-PROP-8", "free-rescue": "R-PROP-15", "two-gems": "R-PROP-6",
    "river-canoe-stays": "R-PROP-16", "rescue-limit-ignored": "R-PROP-15", "seven-not-a-paddle": "R-PROP-2",
    "lasso-moors-nothing": "R-PROP-16",
    "double-three-gems": "R-PROP-6", "beaver-no-calm": "X-PROP-4",
    "moose-no-bonus": "R-PROP-5", "whirl-step-free": "R-PROP-5", "joe-gem-vanishes": "R-PROP-3",
}


def rule_of(mutant_key: str) -> str:
    """The rule ID a mutant breaks (its key names a rule, or a part of one: ``R-WEATHER-1:step``)."""
    return mutant_key.split(":", 1)[0]


def _rule_marks(obj: Any) -> Iterator[tuple[str, ...]]:
    """The arguments of every ``rule`` mark on a test function, its parameter sets included."""
    for mark in getattr(obj, "pytestmark", []):
        if mark.name == "rule":
            yield tuple(mark.args)
        elif mark.name == "parametrize":
            for value in mark.args[1]:
                for inner in getattr(value, "marks", ()):
                    if inner.name == "rule":
                        yield tuple(inner.args)


def _asserts(fn: Callable[..., Any]) -> bool:
    """Whether the test's body asserts: an ``assert``, or a call of an ``assert_…`` helper or ``pytest.raises``."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name.startswith("assert_") or name == "raises":
                return True
    return False


@lru_cache(maxsize=None)
def marked_tests() -> dict[str, list[tuple[str, Callable[..., Any]]]]:
    """Rule ID -> the tests marked with it, as (``module::name``, function), over every test module."""
    out: dict[str, list[tuple[str, Callable[..., Any]]]] = {}
    for file in sorted(os.listdir(HERE)):
        if not (file.startswith("test_") and file.endswith(".py")):
            continue
        module = importlib.import_module(file[:-3])  # the module pytest imported (tests/ is on sys.path)
        module_marks = [tuple(m.args) for m in getattr(module, "pytestmark", []) if m.name == "rule"]
        for name, fn in vars(module).items():
            if not (name.startswith("test_") and callable(fn)):
                continue
            for ids in [*module_marks, *_rule_marks(fn)]:
                for rule in ids:
                    out.setdefault(rule, []).append((f"{module.__name__}::{name}", fn))
    return out


#: The rules of expansion modules the engine does not cover yet: refused by the engine instead (tests/test_readings.py).
PENDING = pending_rules(RULES)


@pytest.mark.parametrize("rule", sorted(set(RULES) - PENDING))
def test_every_rule_has_outcome_tests_marked_with_it(rule):
    tests = [(name, fn) for name, fn in marked_tests().get(rule, []) if not name.startswith(THIS + "::")]
    assert tests, f"no test is marked @pytest.mark.rule({rule!r})"
    silent = [name for name, fn in tests if not _asserts(fn)]
    assert not silent, f"marked with {rule} but asserting nothing: {silent}"


def test_marks_name_rules_of_the_catalogue():
    assert set(marked_tests()) - set(RULES) == set()


def test_every_mutant_is_run_here():
    assert set(KILLERS) == {m.name for m in MUTANTS}
    assert {rule_of(m.key) for m in MUTANTS} <= set(RULES)


@pytest.mark.parametrize("mutant", [pytest.param(m, marks=pytest.mark.rule(rule_of(m.key)), id=f"{m.key}-{m.name}")
                                    for m in MUTANTS])
def test_breaking_the_rule_in_the_encoding_is_caught(mutant):
    rules = mutant.ruleset(Ruleset())  # with the switch values the mutated rule needs (a module on)
    prover = Prover(standard_board(), rules, 2, mutant, timeout=60)
    result = prover.check(BY_ID[KILLERS[mutant.name]])
    assert result.verdict is Verdict.REFUTED
    ce = result.counterexample
    assert ce is not None
    assert ce.replay != "the engine replays it to the same position", ce.trace
    assert any(f"mutated rule: {mutant.key}" in line for line in ce.trace)
