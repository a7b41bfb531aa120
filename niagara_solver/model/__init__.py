"""The ground floor: atoms, the board graph, positions, the turn notation, rulesets, the file format, invariants,
the rule catalogue, verdicts and errors. It imports nothing above it."""

#: The version of niagara-solver (the package's public face re-exports it).
VERSION = "0.1.0"
