"""Independent test oracles (share no code with ``chronolog.engine``/``planner``)."""

from .pointwise import OracleError, OracleModel, evaluate, evaluate_text

__all__ = ["OracleError", "OracleModel", "evaluate", "evaluate_text"]
