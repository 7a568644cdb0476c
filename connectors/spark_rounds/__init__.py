"""Seminaive rounds as Spark SQL statements, for programs with no key (the
relational formulation of the columnar executor; see rounds.py)."""

from .rounds import NotRelational, check_rules, describe, prepare, reason

__all__ = ["NotRelational", "check_rules", "describe", "prepare", "reason"]
