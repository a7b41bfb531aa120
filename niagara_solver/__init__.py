"""niagara-solver: rules verification and puzzle solving for the board game Niagara.

Layers, from the bottom up: :mod:`.board` (the river graph) → :mod:`.rules` (atoms, rulesets,
positions and their file format) → :mod:`.engine` (the imperative rules engine) → :mod:`.cli`.
"""

__version__ = "0.1.0"
