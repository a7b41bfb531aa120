"""``niagara-solve crosscheck``: the engine and the encoding must agree, case by case.

For a position, the engine's distinct outcomes and the encoding's models (enumerated, blocked on the
canonical result) must be the same sets: for the turns of a player with a card, for the flow at every number
of steps, for phase I's rescues, for the end check, and for whole rounds given the cards. A disagreement is
shrunk to a small position and reported with the outcomes only one side produced.

Positions come from goals the solver is asked to meet (a position where a given rule clause matters: a steal
after an unload, both canoes banking, an odd flow with canoes in both branches, a rescue with an empty bank,
...), from seeded random playouts, from the bundled puzzles, and, in the tests, from Hypothesis strategies.

The parts, by job: :mod:`.compare` (one position, engine against encoding: :class:`CrossChecker`, :class:`Case`),
:mod:`.goals` (the solver-built goal positions, and the cache that keeps them between runs), :mod:`.shrink`
(simpler positions for a disagreement) and :mod:`.run` (the run over every source, and its
:class:`CrosscheckReport`).
"""

from niagara_solver.verify.crosscheck.compare import Case, CrossChecker, StolenMark, restolen, steals, turn_rules
from niagara_solver.verify.crosscheck.goals import (GOALS, CoverageGoal, GoalAnswer, GoalQuestion, GoalStatus,
                                                    default_cache, goal_answers, goal_positions, goals_for)
from niagara_solver.verify.crosscheck.run import (FLOW_STEPS, SHRINK_FIRST, CrosscheckReport, Mismatch, crosscheck,
                                                  player_counts, playout_positions, positions_planned,
                                                  unreachable_rules)
from niagara_solver.verify.crosscheck.shrink import shrink, shrunk, simpler

__all__ = ["crosscheck", "CrosscheckReport", "Mismatch", "CrossChecker", "Case", "StolenMark", "steals", "restolen",
           "turn_rules", "CoverageGoal", "GoalQuestion", "GoalAnswer", "GoalStatus", "GOALS", "goal_positions",
           "goal_answers", "goals_for", "default_cache", "player_counts", "unreachable_rules",
           "shrink", "shrunk", "simpler", "playout_positions", "positions_planned", "FLOW_STEPS", "SHRINK_FIRST"]
