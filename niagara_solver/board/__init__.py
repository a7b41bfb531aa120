"""The river graph (R-BOARD)."""

from .graph import BOARD_PRESETS, Board, standard_board

__all__ = ["BOARD_PRESETS", "Board", "standard_board"]
