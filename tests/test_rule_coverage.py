"""Every rule of docs/RULES.md has a test named after it (``test_R_MOVE_5_...``)."""

import os
import re

import pytest

HERE = os.path.dirname(__file__)
RULES = os.path.join(HERE, "..", "docs", "RULES.md")
#: Rules whose statement is a property of all positions, proved by the prover rather than a test here.
PROPERTIES = re.compile(r"R-PROP-\d+")


def rule_ids() -> list[str]:
    with open(RULES, encoding="utf-8") as f:
        text = f.read()
    return sorted({m for m in re.findall(r"\*\*(R-[A-Z]+-\d+)\*\*", text) if not PROPERTIES.fullmatch(m)})


def _test_names() -> set[str]:
    names = set()
    for name in os.listdir(HERE):
        if name.startswith("test_") and name.endswith(".py"):
            with open(os.path.join(HERE, name), encoding="utf-8") as f:
                names.update(re.findall(r"def (test_R_[A-Z]+_\d+)", f.read()))
    return names



@pytest.mark.parametrize("rule", rule_ids())
def test_every_rule_has_a_test_named_after_it(rule):
    prefix = "test_" + rule.replace("-", "_")
    assert any(n == prefix or n.startswith(prefix + "_") for n in _test_names()), f"no test named {prefix}_..."
