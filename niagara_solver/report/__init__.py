"""Pictures and reports: SVG renderings of positions and turns, the Markdown report, designer diffs."""
