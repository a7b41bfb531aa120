"""Playing the game on the engine's rules: the players (policies), seeded rounds and games, and the advice's
continuations. The engine says what may happen and never imports this room (a contract in pyproject.toml)."""
