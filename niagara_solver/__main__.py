"""``python -m niagara_solver`` runs the command line."""

from .cli.main import run

run()
