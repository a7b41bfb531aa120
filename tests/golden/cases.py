"""The golden transcripts: command lines whose output is kept in this folder and diffed by the tests."""

CASES = {
    "show-erratum.txt": ["show", "puzzles/erratum-two-canoes.json"],
    "turns-erratum.txt": ["turns", "puzzles/erratum-two-canoes.json", "--player", "red"],
    "analyze-steal.txt": ["puzzles/steal-on-the-way-home.json"],
    "show-long-river.txt": ["show", "puzzles/long-river.json"],
    # One seeded 4-player game, round by round (OpenSpiel-style golden playthrough).
    "play-4p-seed7.txt": ["play", "puzzles/start-4p.json", "--seed", "7"],
}
