# niagara-solver: two commands do everything on a fresh machine with Python 3.11.
#   make run    set up .venv if missing with the tool alone (pip install -e .), then analyse a bundled puzzle
#   make test   set up .venv if missing with the tool and the test extra (pip install -e '.[test]'), then run the
#               whole test suite, the type check, the linter and the architecture contracts (import-linter:
#               docs/ARCHITECTURE.md)
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
# One stamp per install: the tool alone, and the tool with the test extra (which includes the tool).
TOOL   := $(VENV)/.installed-tool
STAMP  := $(VENV)/.installed-test

.PHONY: run test bench report games check golden typecheck clean

$(TOOL): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(TOOL)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP) $(TOOL)

run: $(TOOL)
	$(BIN)/niagara-solve puzzles/steal-on-the-way-home.json

test: $(STAMP)
	$(BIN)/python -m pytest -n auto
	$(BIN)/python -m mypy niagara_solver
	$(BIN)/ruff check niagara_solver tests benchmarks
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/python -m mypy niagara_solver

bench: $(TOOL)
	$(BIN)/python benchmarks/bench_engine.py
	$(BIN)/python benchmarks/bench_prover.py
	$(BIN)/python benchmarks/bench_crosscheck.py
	$(BIN)/python benchmarks/bench_solver.py
	$(BIN)/python benchmarks/bench_jobs.py
	$(BIN)/python benchmarks/bench_policy.py
	$(BIN)/python benchmarks/bench_horizon.py
	$(BIN)/python benchmarks/bench_bmc.py --targets loaded,fallen,banked,banked-two
	$(BIN)/python benchmarks/bench_certify.py --horizons 1
	$(BIN)/python benchmarks/bench_certify.py --commands --horizons 1,2
	$(BIN)/python benchmarks/bench_reach.py
	$(BIN)/python benchmarks/bench_query.py
	$(BIN)/python benchmarks/bench_enumerate.py
	$(BIN)/python benchmarks/bench_mine.py --games 2

# The report in reports/ (proofs, mutants, cross-check coverage, puzzles, preset diffs, with pictures).
report: $(TOOL)
	$(BIN)/niagara-solve report --out reports --jobs 2

# The whole-game headline results in reports/games/: the fastest win from the setup for 2 to 5 players (standard),
# each a trace replayed by the engine into a page to step through (some 40 minutes on 2 cores; docs/GAMES.md).
games: $(TOOL)
	for n in 2 3 4 5; do \
	  $(BIN)/niagara-solve reach 'goal(any)' --players $$n --rounds 5 --timeout 2400 \
	    --trace reports/games/fastest-win-$${n}p.json > reports/games/fastest-win-$${n}p.txt || exit 1; \
	  (cd reports/games && ../../$(BIN)/niagara-solve replay fastest-win-$${n}p.json \
	    --html fastest-win-$${n}p.html > /dev/null) || exit 1; \
	done
	for n in 3 4 5 6; do \
	  $(BIN)/niagara-solve reach 'goal(any)' --players $$n --ruleset flussgeister --rounds 5 \
	    --trace reports/games/fastest-win-flussgeister-$${n}p.json \
	    > reports/games/fastest-win-flussgeister-$${n}p.txt || exit 1; \
	  (cd reports/games && ../../$(BIN)/niagara-solve replay fastest-win-flussgeister-$${n}p.json \
	    --html fastest-win-flussgeister-$${n}p.html > /dev/null) || exit 1; \
	done

# What a CI pipeline runs for rule regressions (exit 0 pass, 1 fail, 3 unknown; JUnit XML for the CI's test view).
check: $(TOOL)
	$(BIN)/niagara-solve check --puzzles puzzles --junit check-results.xml --jobs 2
	$(BIN)/niagara-solve check --puzzles puzzles/mined --property R-PROP-1 --junit check-mined.xml --jobs 2

# Rewrite the golden transcripts after a deliberate change of output (review the diff before committing).
golden: $(TOOL)
	$(BIN)/python tests/golden/regenerate.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .hypothesis
