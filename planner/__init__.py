"""The planner: validated program -> normalised rules -> strata -> node graph.

``plan(program)`` returns a :class:`Plan`; ``Plan.describe()`` is what
``chronolog plan`` prints.
"""

from __future__ import annotations

from chronolog.language import ast
from chronolog.language.errors import ProgramError
from chronolog.language.records import field, record

from .aggregates import check_aggregate_strata, lift_aggregates
from .existential import check_termination
from .interval_terms import check_interval_strata
from .ir import PlanRule, SinceRule, Stratum
from .normalize import normalize
from .stratify import stratify
from .validate import validate


@record
class Plan:
    program: ast.Program
    rules: list
    strata: list
    constraints: list
    uses_top: bool
    arities: dict
    outputs: list = field(default_factory=list)
    temporal: object = None  # (lo, hi) from @temporal, or None
    # predicate made by the planner or a dialect -> (its terms, the user's formula it stands for)
    meanings: dict = field(default_factory=dict)

    @property
    def physical(self):
        """The physical plan (planner/physical.py), lowered once on first use
        (again only if the strata are replaced: engine/termination.py mirrors a plan so)."""
        strata, lowered = self.__dict__.get("_physical", (None, None))
        if strata is not self.strata:
            from chronolog.language import allocators

            from .physical import lower

            with allocators.settled():  # (a command: the plan lives to its end, out of the collector's walks)
                lowered = lower(self)
            self.__dict__["_physical"] = (self.strata, lowered)
        return lowered

    def derived_predicates(self) -> set:
        return {r.head_pred for r in self.rules if r.head_pred is not None}

    def infinite_strata(self) -> list:
        """Recursive strata whose cycle moves time: their model may be infinite."""
        return [s for s in self.strata if s.recursive and s.shifting_rules]

    def check_horizon(self, horizon) -> None:
        """Refuse, before any work, to run a possibly infinite model without a
        horizon, or with one open on the side its recursion moves time to
        (``[0, +inf)`` on a recursion into the future: the rounds would not
        end; chronolog.api finds such a model where it repeats instead)."""
        bad = self.infinite_strata()
        if not bad:
            return
        if horizon is None:
            _refuse(bad, "the model of this program may be infinite: it is recursive through a temporal operator in",
                    "give an evaluation horizon: @temporal(0, 1000). in the program, "
                    "--horizon 0,1000 on the command line, or horizon=(0, 1000) in reason()")
        open_toward = self.open_toward(horizon)
        if open_toward:
            from chronolog.language.timeline import format_interval

            _refuse(open_toward, f"the horizon {format_interval(horizon)} is open on the side where this program's "
                    "recursion through a temporal operator moves time, so it does not bound it:",
                    "give the horizon a finite end on that side, or none: without a horizon "
                    "the model is found where it repeats and answered exactly")

    def unbounded_by(self, horizon) -> list:
        """The strata whose recursion moves time where ``horizon`` (None:
        none) does not bound it: rounds over them may not end."""
        return self.infinite_strata() if horizon is None else self.open_toward(horizon)

    def repeats_forever(self, horizon, repeating=None) -> str:
        """Why a run with ``horizon`` (``(lo, hi, ...)`` or None) finds its
        model where it repeats, every stratum on rows (engine/termination.py,
        chronolog/api.py), or "" (the strata run as placed,
        planner/backend_choice.py, whose placement reads this): with no
        horizon (or one of the whole line), a recursion that moves time or a
        given fact that repeats forever; with one open where a recursion
        moves time, that recursion; with one open the way a given fact
        repeats, that fact (infinitely many instances there).
        ``repeating``: the periods of the given facts that repeat forever
        with a gap between their instances (None: the program's own)."""
        from chronolog.language.timeline import NEG_INF, POS_INF

        if repeating is None:
            repeating = repeating_periods(self.program)
        if horizon is not None and (horizon[0], horizon[1]) == (NEG_INF, POS_INF):
            horizon = None  # (it confines nothing)
        if horizon is None:
            if self.infinite_strata():
                return "a recursion moves time and there is no horizon"
            return "a given fact repeats forever and there is no horizon" if repeating else ""
        if self.open_toward(horizon):
            return "a recursion moves time and the horizon is open that way"
        # (the rows unroll such a fact over the horizon and as far around it
        # as the rules read, a finite reach: endless only where the horizon is)
        if any(p > 0 and horizon[1] == POS_INF or p < 0 and horizon[0] == NEG_INF for p in repeating):
            return "a given fact repeats forever and the horizon is open that way"
        return ""

    def open_toward(self, horizon) -> list:
        """The strata whose recursion moves time toward an infinite end of
        ``horizon`` (which then bounds nothing there); none when both ends
        are finite, or for the whole line (a caller's "no bound" for a model
        known to stop: explain's re-run; a user's reads as none before here)."""
        from chronolog.language.timeline import NEG_INF, POS_INF

        from .fragment import direction

        lo, hi = horizon[0], horizon[1]
        if (lo == NEG_INF) == (hi == POS_INF):
            return []
        ways = {"forward": {POS_INF}, "backward": {NEG_INF}, "mixed": {POS_INF, NEG_INF}}
        return [s for s in self.infinite_strata() if {lo, hi} & ways.get(direction(s.rules, set(s.preds)).kind, set())]


def repeating_periods(program: ast.Program, given=None) -> list:
    """The periods of the given facts that repeat forever with a gap between
    their instances (instances that meet hold for good instead, as the run
    reads them: engine/periodic.py, ``given_repetition``): the program's own
    and those of ``given`` (FactRows, e.g. a fact file's ``every`` lines),
    what :meth:`Plan.repeats_forever` is told."""
    from chronolog.language.timeline import instances_meet

    facts = [(f.interval, f.every) for f in program.facts if f.every is not None]
    facts += [(iv, every) for lst in getattr(given, "repeating", {}).values() for _, iv, every, _ in lst]
    return [every for iv, every in facts if not instances_meet(iv, every)]


def _refuse(strata, message: str, hint: str):
    """A :class:`ProgramError` naming the rules that move time in ``strata``."""
    rules = []
    for s in strata:
        for r in s.shifting_rules:
            src = r.source
            text = src.text if src is not None and src.text else r.describe()
            where = f"{src.pos}: " if src is not None and src.pos.line else ""
            if f"{where}{text}" not in rules:
                rules.append(f"{where}{text}")
    first = strata[0].shifting_rules[0].source
    raise ProgramError(message + "\n  " + "\n  ".join(rules), first.pos if first is not None else None, hint=hint)


def plan(program: ast.Program, extra_facts=None) -> Plan:
    arities = validate(program, extra_facts)
    rules, uses_top, meanings = normalize(program.rules)
    rules = lift_aggregates(rules)
    constraints = [r for r in rules if r.head_pred is None]
    meanings.update(getattr(program, "helper_meanings", {}))
    strata = stratify([r for r in rules if r.head_pred is not None], meanings)
    check_aggregate_strata(strata, meanings)
    check_interval_strata(strata)
    check_termination(rules)
    outputs = list(dict.fromkeys(a.args[0] for a in program.annotations if a.name == "output"))  # (each once)
    temporal = None
    for a in program.annotations:
        if a.name == "temporal":
            lo, hi = a.args
            if not all(isinstance(x, (int, float)) or type(x).__name__ in ("Fraction", "Point") for x in (lo, hi)):
                raise ProgramError("@temporal(from, to) needs two numbers", a.pos,
                                   hint="e.g. @temporal(0, 1000). or, for no end, @temporal(0, inf).")
            from chronolog.language.timeline import format_number, make, why_empty

            if lo > hi or make(lo, hi, True, True) is None:
                raise ProgramError(f"@temporal({format_number(lo)}, {format_number(hi)}) holds no time point", a.pos,
                                   hint="from must not be after to" if lo > hi else why_empty(lo, hi))
            temporal = (lo, hi)
    return Plan(program, rules, strata, constraints, uses_top, arities, outputs, temporal, meanings)


__all__ = ["Plan", "plan", "PlanRule", "SinceRule", "Stratum"]
