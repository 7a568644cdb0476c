"""Seminaive rounds as Spark SQL statements, for programs with no key (the
relational formulation of the columnar executor; see rounds.py)."""

from .fragment import NotRelational, check_rules, describe
from .rounds import prepare, reason

__all__ = ["NotRelational", "check_rules", "describe", "prepare", "reason"]
