"""The abstract syntax of chronolog programs, shared by both dialects.

Both parsers (Temporal Vadalog and MeTeoR) produce these objects; the planner
consumes them.  Every node that a user wrote carries a :class:`Pos` so that
errors found after parsing (safety, arity, stratification) still point at the
file, line and column.

Operator windows are interval tuples (see :mod:`chronolog.language.timeline`).
"""

from __future__ import annotations

from . import records
from .records import field, record


@record(frozen=True)
class Pos:
    file: str = "<program>"
    line: int = 0
    column: int = 0

    def __str__(self) -> str:  # line/column 0: not known (a row of a table, an argument)
        if not self.line:
            return self.file
        return f"{self.file}:{self.line}:{self.column}" if self.column else f"{self.file}:{self.line}"


NOWHERE = Pos()


# ---------------------------------------------------------------- terms


@record(frozen=True)
class Var:
    name: str

    def __str__(self) -> str:
        return self.name


@record(frozen=True)
class Const:
    """A constant: ``str`` (identifiers and quoted strings alike), ``int``,
    ``Fraction`` or a boolean (language/booleans.py)."""

    value: object

    def __str__(self) -> str:
        from .text import format_term

        return format_term(self.value)


Term = Var | Const


@record(frozen=True)
class BinOp:
    """Arithmetic in conditions and assignments: ``+ - * /``."""

    op: str
    left: "Expr"
    right: "Expr"

    def __str__(self) -> str:
        return f"({self.left} {self.op} {self.right})"


@record(frozen=True)
class Call:
    """A built-in function call in an expression, e.g. ``abs(X)``."""

    name: str
    args: tuple

    def __str__(self) -> str:
        return f"{self.name}({', '.join(map(str, self.args))})"


Expr = Var | Const | BinOp | Call


def subexpressions(e) -> list:
    """``e`` and every expression inside it (operands, arguments)."""
    out, todo = [], [e]
    while todo:
        x = todo.pop()
        out.append(x)
        todo += [x.left, x.right] if isinstance(x, BinOp) else list(x.args) if isinstance(x, Call) else []
    return out


# ---------------------------------------------------------------- literals


@record(frozen=True)
class Atom:
    pred: str
    terms: tuple
    pos: Pos = field(default=NOWHERE, compare=False)

    def __str__(self) -> str:
        if not self.terms:
            return self.pred
        return f"{self.pred}({','.join(map(str, self.terms))})"


@record(frozen=True)
class Temporal:
    """A unary metric operator applied to a literal.

    ``op`` is one of ``"<->"`` (diamond-minus), ``"<+>"`` (diamond-plus),
    ``"[-]"`` (box-minus), ``"[+]"`` (box-plus).  ``window`` is the operator
    interval, non-negative.
    """

    op: str
    window: tuple
    inner: "Literal"
    pos: Pos = field(default=NOWHERE, compare=False)
    dialect: str = field(default="vadalog", compare=False)  # the dialect it was read in: printed in it

    def __str__(self) -> str:
        from .timeline import format_interval

        if self.dialect == "meteor":
            return f"{METEOR_OPERATORS[self.op]}{format_interval(self.window)}{_meteor_operand(self.inner)}"
        window = lars_window(self.op, self.window, self.inner) if self.dialect == "lars" else None
        if window is not None:
            return f"{window}{self.inner}"
        return f"{self.op}{format_interval(self.window)} {self.inner}"


@record(frozen=True)
class TimeGroup(Temporal):
    """Time grouping ``/\\[count unit] inner`` (language/time_grouping.py):
    holds on the whole period (of ``count`` units) around every point where
    ``inner`` holds.  ``op`` is ``"/\\"`` and ``window`` is None."""

    unit: str | None = None
    count: object = 1
    grouping: object = None  # the time_grouping.Grouping, set once the timeline is known

    def __str__(self) -> str:
        u = f" {self.unit}" if self.unit else ""
        return f"/\\[{self.count}{u}] {self.inner}"


@record(frozen=True)
class Binary:
    """``left <S>window right`` (op ``"S"``) or ``left <U>window right``."""

    op: str
    window: tuple
    left: "Literal"
    right: "Literal"
    pos: Pos = field(default=NOWHERE, compare=False)
    dialect: str = field(default="vadalog", compare=False)  # the dialect it was read in: printed in it

    def __str__(self) -> str:
        from .timeline import format_interval

        if self.dialect == "meteor":
            return f"{_meteor_operand(self.left)} {METEOR_OPERATORS[self.op]}{format_interval(self.window)} {self.right}"
        return f"{self.left} <{self.op}>{format_interval(self.window)} {self.right}"


# an operator's MeTeoR name: a formula read in that dialect (proofs, messages)
# prints as a MeTeoR program writes it and reads back in it
METEOR_OPERATORS = {"<->": "Diamondminus", "<+>": "Diamondplus", "[-]": "Boxminus", "[+]": "Boxplus", "S": "Since", "U": "Until"}


def lars_window(op: str, window: tuple, inner=None):
    """The LARS spelling of a diamond-minus or box-minus with ``window``
    before ``inner`` (``[3] <> ``, ``[] ``, ``[3] `` before a time capture
    ``@T a``), or None where LARS writes no such window (one not starting
    at 0, or open): a formula a LARS program wrote prints as LARS writes it
    and reads back in it."""
    from .timeline import POS_INF

    modal = {"<->": "<> ", "[-]": "[] "}.get(op)
    if modal is None or window is None:
        return None
    if op == "<->" and isinstance(inner, Timed) and inner.end is None:
        modal = ""  # ([3] @T a: the window's diamond is the capture's)
    lo, hi, lc, hc = window
    if lo != 0 or not lc:
        return None
    if hi == POS_INF:
        return modal
    if hc and hi == int(hi):
        return f"[{int(hi)}] {modal}"
    return None


def _meteor_operand(x) -> str:
    """A unary operator's operand, or a Since/Until's left one, in MeTeoR:
    a Since/Until there is parenthesised (MeTeoR's Since/Until take the
    rest of the literal as their right operand)."""
    return f"({x})" if isinstance(x, Binary) else str(x)


@record(frozen=True)
class Negation:
    inner: "Literal"
    pos: Pos = field(default=NOWHERE, compare=False)

    def __str__(self) -> str:
        return f"not {self.inner}"


@record(frozen=True)
class Comparison:
    """``left op right`` with op in ``== != < <= > >=``."""

    op: str
    left: Expr
    right: Expr
    pos: Pos = field(default=NOWHERE, compare=False)

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


@record(frozen=True)
class Assignment:
    """``Var = expr``: binds a fresh variable from already bound ones."""

    var: Var
    expr: Expr
    pos: Pos = field(default=NOWHERE, compare=False)

    def __str__(self) -> str:
        return f"{self.var} = {self.expr}"


@record(frozen=True)
class Truth:
    """``Top`` (value True, holds everywhere) or ``Bottom`` (False)."""

    value: bool
    pos: Pos = field(default=NOWHERE, compare=False)

    def __str__(self) -> str:
        return "Top" if self.value else "Bottom"


@record(frozen=True)
class Aggregate:
    """``msum(X, <C1,C2>)`` on the right of an assignment: the aggregate
    function, the aggregated expression (``None`` for ``count()``) and the
    contributor terms (empty without ``<...>``).  See planner/aggregates.py."""

    func: str
    expr: object
    contributors: tuple = ()
    pos: Pos = field(default=NOWHERE, compare=False)

    def __str__(self) -> str:
        args = [] if self.expr is None else [str(self.expr)]
        if self.contributors:
            args.append("<" + ",".join(map(str, self.contributors)) + ">")
        return f"{self.func}({', '.join(args)})"


@record(frozen=True)
class Timed:
    """``lit@[S,E]`` in a body binds the ends of the maximal interval on which
    ``lit`` holds; ``p(X)@[S,E]`` as a head puts p on the interval with those
    ends (closed or open as written).  See planner/interval_terms.py.

    Time capture, ``lit@T`` in a body (``end`` is None): ``lit`` holds at
    ``t`` and ``T`` is the integer time point ``t`` falls in (``floor(t)``):
    a reading at 3 gives T = 3, ``lit`` on [2,4) gives T = 2 on [2,3) and
    T = 3 on [3,4)."""

    inner: object
    start: object  # Var (or Const in a head)
    end: object
    start_closed: bool = True
    end_closed: bool = True
    pos: Pos = field(default=NOWHERE, compare=False)
    dialect: str = field(default="vadalog", compare=False)  # the dialect it was read in: printed in it

    def __str__(self) -> str:
        if self.end is None:
            return f"@{self.start} {self.inner}" if self.dialect == "lars" else f"{self.inner}@{self.start}"
        lb = "[" if self.start_closed else "("
        rb = "]" if self.end_closed else ")"
        return f"{self.inner}@{lb}{self.start},{self.end}{rb}"


Literal = Atom | Temporal | Binary | Negation | Comparison | Assignment | Truth | Timed


@record(frozen=True)
class Described:
    """What a helper predicate a dialect made stands for, in words where no
    formula writes it (``"{atom} at the stream's start"``): proofs show it
    instead of the helper's name."""

    text: str
    atom: object = None

    def __str__(self) -> str:
        return self.text.format(atom=self.atom)


# ---------------------------------------------------------------- statements


@record
class Rule:
    """``head :- body``.  The head is an :class:`Atom`, a :class:`Temporal`
    with a box (``[-]``/``[+]``) around a head, or ``Truth(False)`` for a
    constraint (``⊥``)."""

    head: Atom | Temporal | Truth
    body: list
    pos: Pos = NOWHERE
    text: str = ""

    def __str__(self) -> str:
        return self.text or f"{self.head} :- {', '.join(map(str, self.body))}."


@record
class Fact:
    """A ground atom and the interval on which it holds."""

    pred: str
    terms: tuple  # python values
    interval: tuple
    pos: Pos = NOWHERE
    # repeats forever: the interval shifted by every k * every, k >= 0
    # (negative: into the past); None for an ordinary fact
    every: object = None


@record
class Annotation:
    """``@name(args).`` — args are python values (str, numbers, bools)."""

    name: str
    args: list
    pos: Pos = NOWHERE


@record
class Program:
    rules: list = field(default_factory=list)
    facts: list = field(default_factory=list)
    annotations: list = field(default_factory=list)
    source: str = "<program>"
    calendar: object = None  # a dates.Calendar on a calendar timeline, else None
    # facts written in the program text but read by the kernel fact reader
    # (FactColumns, language/program_facts.py): only a program that
    # reason() parses has them, and reason() takes them with the given facts
    fact_columns: list = field(default_factory=list)

    def extend(self, other: "Program") -> None:
        self.rules.extend(other.rules)
        self.facts.extend(other.facts)
        self.fact_columns.extend(other.fact_columns)
        self.annotations.extend(other.annotations)


def atoms_of(lit) -> list:
    """Every atom inside a literal, in order."""
    if type(lit) in _ATOMLESS:  # (most literals but atoms: no isinstance each)
        return []
    if isinstance(lit, Atom):
        return [lit]
    if isinstance(lit, Temporal):
        return atoms_of(lit.inner)
    if isinstance(lit, Binary):
        return atoms_of(lit.left) + atoms_of(lit.right)
    if isinstance(lit, Negation):
        return atoms_of(lit.inner)
    if isinstance(lit, Timed):
        return atoms_of(lit.inner)
    return []


_ATOMLESS = frozenset((Assignment, Comparison))  # (literals that hold no atom)


def nesting(x) -> int:
    """How deeply operators, calls and arithmetic nest in ``x`` (a literal,
    expression or rule): walked with a stack of its own, so that a formula
    too deep for the recursive passes after the reader is measured, not
    recursed into."""
    deepest, stack = 0, [(x, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        kind = type(node)
        if kind is Rule:
            stack += [(node.head, depth)] + [(lit, depth) for lit in node.body]
        elif kind is Comparison:
            stack += [(node.left, depth), (node.right, depth)]
        elif kind is BinOp or kind is Binary:
            stack += [(node.left, depth + 1), (node.right, depth + 1)]
        elif kind is Call:
            stack += [(a, depth + 1) for a in node.args]
        elif isinstance(node, (Temporal, Negation, Timed)):
            stack.append((node.inner, depth + 1))
        elif kind is Assignment:
            stack.append((node.expr, depth))
        elif kind is Aggregate and node.expr is not None:
            stack.append((node.expr, depth + 1))
    return deepest


def variables_of(x) -> set:
    """Variables occurring in a term, expression, atom or literal."""
    out: set = set()
    _add_variables(x, out)
    return out


def _add_variables(x, out: set) -> None:
    """Add ``x``'s variables to ``out``: one set per call, not one per node
    (every planner pass walks each rule: 10,000-rule programs, issue 37)."""
    kind = type(x)
    if kind is Var:
        out.add(x.name)
    elif kind is Const:
        return
    elif kind is BinOp or kind is Comparison or kind is Binary:
        _add_variables(x.left, out)
        _add_variables(x.right, out)
    elif kind is Atom:
        for t in x.terms:  # (terms: variables and constants, no call each)
            if type(t) is Var:
                out.add(t.name)
    elif kind is Call:
        for a in x.args:
            _add_variables(a, out)
    elif isinstance(x, (Temporal, Negation)):  # (TimeGroup is a Temporal)
        _add_variables(x.inner, out)
    elif kind is Assignment:
        out.add(x.var.name)
        _add_variables(x.expr, out)
    elif kind is Aggregate:
        if x.expr is not None:
            _add_variables(x.expr, out)
        for c in x.contributors:
            _add_variables(c, out)
    elif kind is Timed:
        _add_variables(x.inner, out)
        _add_variables(x.start, out)
        _add_variables(x.end, out)
    elif isinstance(x, BinOp):  # (a subclass: the Spark rounds' exact quotient, connectors/spark_rounds/arithmetic.py)
        _add_variables(x.left, out)
        _add_variables(x.right, out)


def head_atom(head) -> Atom | None:
    """The atom under any head boxes, or None for a constraint."""
    while isinstance(head, (Temporal, Timed)):
        head = head.inner
    return head if isinstance(head, Atom) else None


def substitute(x, values: dict, atoms=None):
    """``x`` (a term, expression or literal) with the variables ``values``
    names replaced (by terms, or constants of the values given): a formula
    shown for one binding.  ``atoms(atom)``, where it returns a formula,
    replaces an atom (a helper predicate shown as what it stands for)."""
    if isinstance(x, Var):
        if x.name not in values:
            return x
        v = values[x.name]
        return v if isinstance(v, (Var, Const)) else Const(v)
    if isinstance(x, (tuple, list)):
        return type(x)(substitute(e, values, atoms) for e in x)
    if isinstance(x, (Atom, Temporal, Binary, Negation, Comparison, Assignment, Timed, Described, BinOp, Call, Aggregate)):
        x = records.replace(x, **{f.name: substitute(getattr(x, f.name), values, atoms) for f in records.fields(x) if f.init})
        if atoms is not None and isinstance(x, Atom):
            return atoms(x) or x
    return x


def is_lars(program) -> bool:
    """Whether ``program`` was read as LARS (language/lars.py), whose facts
    are given at ticks: here, so that asking does not import the LARS reader."""
    return getattr(program, "tuple_windows", None) is not None
