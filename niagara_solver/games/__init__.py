"""Whole games: what can happen from the setup over many rounds (reachable positions, shortest wins, proof games,
invariants), by an explicit search over the engine's rounds, with the encoding's round relation unrolled over a few
rounds as a second, independent reading (docs/QUERIES.md, docs/GAMES.md)."""
