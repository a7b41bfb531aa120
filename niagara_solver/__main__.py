"""``python -m niagara_solver`` runs the command line."""

from niagara_solver.cli.main import run

run()
