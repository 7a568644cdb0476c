"""Laser's test cases (``test.py`` of the Laser stream reasoner) in
chronolog's LARS dialect.

Laser's ``test.py`` is read with Python's :mod:`ast`, never run (it is
Python 2 and imports Laser).  A case is a ``test*`` method of it: a stream
(``{tick: ["p(a,b)", "q", ...]}``) cut to the timeline of its
``TestStream(stream, start, end)``, a list of rules, and a sequence of
``prog.evaluate(t)`` calls, each followed by ``assertEquals(tuples, E)``:
``E`` maps a tick to the atoms Laser derives for it when it evaluates tick
``t`` (a head ``@(T, h)`` derives atoms at other ticks).

The rules translate into the LARS dialect (docs/language.md), following
Laser's own reading of a window's arguments (its parser and evaluation
units): ``time_win(n, f, u, X)`` is a window over the last ``n*u`` ticks
(``f``, the future part, is 0 throughout), ``tuple_win(n, ...)`` a tuple
window of ``n`` atoms:

* ``time_win(n,0,1, diamond(a))`` -> ``[n] <> a``, ``box(a)`` ->
  ``[n] [] a``, ``@(T, a)`` -> ``[n] @T a``, a bare ``a`` -> ``[n] a``;
  ``diamond(not(a))`` -> ``not [n] [] a`` and ``box(not(a))`` ->
  ``not [n] <> a`` (the dualities; the dialect has no ``not`` under a
  modality);
* the same without a window -> ``<> a``, ``[] a``, ``@T a``;
  ``tuple_win(n, X)`` -> ``[#n] X``;
* ``not(a)`` -> ``not a``; ``MATH(+, T1, T, 2)`` -> ``T1 = T + 2``;
  ``COMP(>=, V, 18)`` -> ``V >= 18``; a head ``@(T, h)`` -> ``@T h``;
* Laser clips every window at the stream's first tick:
  ``@streamStart(start).``;
* a predicate ``p`` of arity ``k`` is ``p_k`` (Laser's streams use one name
  at several arities; ``'p*2'`` becomes ``p_2_2``); a rule head that also
  arrives on the stream derives into ``p_k_derived`` (Laser reports the
  atoms its rules derive, not the stream's), read by the other rules
  through ``p_k :- p_k_derived``.

Anything else is :class:`Unsupported`.  With ``laser_tuple_windows`` a
tuple window is instead written as the time window that Laser's own count
gives at each tick (:func:`laser_tuple_window_starts`), to show that its
tuple windows differ from chronolog's by the counting alone.

:func:`differences` compares chronolog's model with Laser's expectations
tick by tick (tests/data/public/README.md says why so).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from public_suites import Unsupported, split_top, tokenize

TOKEN = re.compile(r"""(?P<ws>\s+)|(?P<quoted>'[^']*')|(?P<op>:-|[(),])|(?P<word>[^\s(),']+)""")

COMPARE = {">": ">", ">=": ">=", "<": "<", "<=": "<=", "=": "=="}


@dataclass
class Case:
    """One ``test*`` method of Laser's test.py."""

    name: str
    stream: dict = field(default_factory=dict)  # tick -> [atom text]
    start: int = 0
    end: int = 0
    rules: list = field(default_factory=list)
    evaluations: list = field(default_factory=list)  # [(tick, {tick: {atom text}})]


# ---------------------------------------------------------------- reading test.py


def _value(node):
    """A literal of test.py, with ``set([...])`` read as a set."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "set" and len(node.args) <= 1:
        return set(_value(node.args[0])) if node.args else set()
    if isinstance(node, ast.Dict):
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_value(e) for e in node.elts]
    if isinstance(node, ast.Set):
        return {_value(e) for e in node.elts}
    if isinstance(node, ast.Constant):
        return node.value
    raise Unsupported(f"the expression at line {node.lineno} of test.py")


def _call(node, name):
    """The arguments of a call of ``name`` (a function or method), or None."""
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    called = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
    return node.args if called == name else None


def read(path: Path) -> list:
    """The cases of Laser's test.py at ``path``, in the file's order."""
    tree = ast.parse(Path(path).read_text())
    out = []
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for fn in (n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test")):
            out.append(_case(fn))
    return out


def _case(fn) -> Case:
    case = Case(fn.name)
    now = None
    for st in fn.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1:
            target, value = st.targets[0], st.value
            name = target.id if isinstance(target, ast.Name) else None
            if name == "stream":
                case.stream = _value(value)
            elif name == "rules":
                case.rules = _value(value)
            elif _call(value, "TestStream") is not None:
                args = _call(value, "TestStream")
                case.start, case.end = _value(args[1]), _value(args[2])
            elif _call(value, "evaluate") is not None:
                now = _value(_call(value, "evaluate")[0])
        elif isinstance(st, ast.Expr) and _call(st.value, "assertEquals") is not None:
            args = _call(st.value, "assertEquals")
            if isinstance(args[0], ast.Name) and args[0].id == "tuples":
                case.evaluations.append((now, _value(args[1])))
    return case


# ---------------------------------------------------------------- translating


def pred_name(pred: str, arity: int) -> str:
    """chronolog's name for Laser's predicate ``pred`` at ``arity``."""
    base = re.sub(r"\W", "_", pred)
    if not base[:1].islower():
        base = "p_" + base
    return f"{base}_{arity}"


def term(text: str) -> str:
    if text[:1].isupper() and text.isupper():
        return text  # a variable, as Laser reads one (upper case)
    if re.fullmatch(r"-?\d+", text):
        return text
    if re.fullmatch(r"[a-z][A-Za-z0-9_]*", text) and text not in ("not", "inf", "infty", "infinity"):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def stream_atom(text: str):
    """(predicate, args) of a stream atom as Laser's TestStream reads it,
    or None for the empty string (a tick with no atom)."""
    text = text.replace(" ", "")
    if not text:
        return None
    if "(" not in text:
        return text, []
    if not text.endswith(")"):
        raise Unsupported(f"the stream atom {text}")
    pred, args = text[:-1].split("(", 1)
    return pred, args.split(",")


class Translation:
    """A case's program and facts in the LARS dialect, and which chronolog
    predicate holds which of Laser's derived atoms."""

    def __init__(self, case: Case, laser_tuple_windows: bool = False):
        self.case = case
        self.laser_tuple_windows = laser_tuple_windows
        self.tuple_sizes: set = set()  # of the tuple windows read Laser's way
        self.fresh = 0
        self.given = {}  # (pred, arity) of the stream
        for t in self.ticks():
            for text in case.stream.get(t, ()):
                a = stream_atom(text)
                if a is not None:
                    self.given[(a[0], len(a[1]))] = True
        self.derived: dict = {}  # chronolog predicate -> (Laser pred, arity)
        self.lines = [f"@streamStart({case.start})."]
        self.extra = []
        for r in case.rules:
            self.lines.append(self.rule(r))
        names = {}
        for key in list(self.given) + list(self.derived.values()):
            n = pred_name(*key)
            if names.setdefault(n, key) != key:
                raise Unsupported(f"two predicates named {n}")

    def ticks(self) -> list:
        """The ticks of Laser's timeline that the stream gives."""
        return [t for t in sorted(self.case.stream) if self.case.start <= t <= self.case.end]

    def program(self) -> str:
        return "\n".join(self.lines + sorted(set(self.extra))) + "\n"

    def facts(self) -> str:
        out = []
        for t in self.ticks():
            for text in self.case.stream[t]:
                a = stream_atom(text)
                if a is not None:
                    out.append(self.atom_text(a[0], [term(x) for x in a[1]]) + f"@{t}")
        for n in sorted(self.tuple_sizes):
            out += [f"{_window_start(n)}({s})@{t}" for t, s in laser_tuple_window_starts(self.case, n).items()]
        return "\n".join(dict.fromkeys(out)) + "\n"

    @staticmethod
    def atom_text(pred, args) -> str:
        name = pred_name(pred, len(args))
        return f"{name}({', '.join(args)})" if args else name

    # -------------------------------------------------------- rules

    def rule(self, text: str) -> str:
        toks = tokenize(text, TOKEN)
        parts = split_top(toks, ":-")
        if len(parts) != 2:
            raise Unsupported(f"the rule {text}")
        head, body = parts
        lits = [self.literal(lit) for lit in self._split_and(body)]
        return f"{self.head(head)} :- {', '.join(lits)}."

    @staticmethod
    def _split_and(toks: list) -> list:
        out, cur, depth = [], [], 0
        for t in toks:
            depth += t == ("op", "(")
            depth -= t == ("op", ")")
            if t == ("word", "and") and depth == 0:
                out.append(cur)
                cur = []
            else:
                cur.append(t)
        return out + [cur]

    def head(self, toks: list) -> str:
        if toks[:2] == [("word", "@"), ("op", "(")] and toks[-1] == ("op", ")"):
            when, atom = split_top(toks[2:-1])
            if len(when) != 1:
                raise Unsupported("a head time that is not a variable or a tick")
            return f"@{term(when[0][1])} {self.head_atom(atom)}"
        return self.head_atom(toks)

    def head_atom(self, toks: list) -> str:
        pred, args = self.atom(toks)
        key = (pred, len(args))
        name = pred_name(*key)
        if key in self.given:  # derived apart from the stream's atoms, which the body still reads
            vs = ", ".join(f"X{i}" for i in range(len(args)))
            self.extra.append(f"{name}({vs}) :- {name}_derived({vs})." if args else f"{name} :- {name}_derived.")
            name += "_derived"
        self.derived[name] = key
        return f"{name}({', '.join(args)})" if args else name

    def atom(self, toks: list) -> tuple:
        """(Laser predicate, [term text]) of ``p`` or ``p(args)``."""
        if not toks or toks[0][0] not in ("word", "quoted"):
            raise Unsupported("an atom of another form: " + " ".join(t[1] for t in toks))
        pred = toks[0][1].strip("'")
        if len(toks) == 1:
            return pred, []
        if toks[1] != ("op", "(") or toks[-1] != ("op", ")"):
            raise Unsupported("an atom of another form: " + " ".join(t[1] for t in toks))
        args = split_top(toks[2:-1])
        if any(len(a) != 1 for a in args):
            raise Unsupported("a nested term in " + pred)
        return pred, [term(a[0][1]) for a in args]

    def atom_of(self, toks: list) -> str:
        pred, args = self.atom(toks)
        return self.atom_text(pred, args)

    @staticmethod
    def call(toks: list):
        """(operator, [argument token lists]) of ``op(a, b, ...)``, or None."""
        if len(toks) >= 3 and toks[0][0] == "word" and toks[1] == ("op", "(") and toks[-1] == ("op", ")"):
            return toks[0][1], split_top(toks[2:-1])
        return None

    def literal(self, toks: list) -> str:
        c = self.call(toks)
        op, args = c if c else (None, [])
        if op == "MATH":
            sign, new, var, const = (a[0][1] for a in args)
            if sign not in "+-":
                raise Unsupported(f"MATH({sign}, ...)")
            return f"{new} = {var} {sign} {term(const)}"
        if op == "COMP":
            cmp, left, right = (a[0][1] for a in args)
            return f"{term(left)} {COMPARE[cmp]} {term(right)}"
        if op == "not" and len(args) == 1:
            return "not " + self.literal(args[0])
        if op == "time_win":
            n, future, unit = (int(a[0][1]) for a in args[:3])
            if future != 0:
                raise Unsupported("a time window reaching into the future")
            return self.windowed(f"[{n * unit}]", args[3])
        if op == "tuple_win":
            if self.laser_tuple_windows:
                return self.counted_window(int(args[0][0][1]), args[-1])
            return self.windowed(f"[#{int(args[0][0][1])}]", args[-1])
        return self.windowed("", toks)

    def windowed(self, window: str, toks: list) -> str:
        """``toks`` (diamond, box, @ or an atom) under ``window`` ('' for none)."""
        c = self.call(toks)
        op, args = c if c else (None, [])
        w = window + " " if window else ""
        if op in ("diamond", "box") and len(args) == 1:
            inner = self.call(args[0])
            if inner and inner[0] == "not":  # ◇¬a = ¬□a, □¬a = ¬◇a
                dual = "[]" if op == "diamond" else "<>"
                return f"not {w}{dual} {self.atom_of(inner[1][0])}"
            return f"{w}{'<>' if op == 'diamond' else '[]'} {self.atom_of(args[0])}"
        if op == "@" and len(args) == 2:
            return f"{w}@{term(args[0][0][1])} {self.atom_of(args[1])}"
        if op in ("not", "time_win", "tuple_win", "predicate_win", "MATH", "COMP"):
            raise Unsupported(f"{op} inside a window")
        return f"{w}{self.atom_of(toks)}"


    def counted_window(self, n: int, toks: list) -> str:
        """Laser's tuple window of ``n`` as a time window from the tick its
        count starts at (:func:`laser_tuple_window_starts`): ``diamond(a)``
        and ``@(T, a)`` hold for an ``a`` at a tick ``T`` from that start on."""
        op, args = self.call(toks) or (None, [])
        if op not in ("diamond", "box", "@"):
            return self.atom_of(toks)  # Laser: the atom now
        self.tuple_sizes.add(n)
        self.fresh += 1
        k = self.fresh  # Laser's variables are all upper case: Sw1, Tw1 are free
        start = f"Sw{k}"
        if op == "diamond" and (self.call(args[0]) or ("",))[0] != "not":
            when, atom = f"Tw{k}", args[0]
        elif op == "@" and len(args) == 2:
            when, atom = term(args[0][0][1]), args[1]
        else:
            raise Unsupported(f"{op} in a tuple window counted Laser's way")
        return f"{_window_start(n)}({start}), @{when} {self.atom_of(atom)}, {when} >= {start}"


def _window_start(n: int) -> str:
    return f"tuple_window_start{n}"


def laser_tuple_window_starts(case: Case, n: int) -> dict:
    """The first tick of Laser's tuple window of ``n`` at each tick ``t``:
    Laser keeps the atoms of a tick ``u`` while at most ``n`` atoms arrived
    in the ticks ``u`` to ``t-1`` (every predicate counted, and the empty
    string of a tick with no atom too; its evaluation units' tuple
    counter).  The LARS paper's window instead holds the last ``n`` atoms,
    the current tick's included."""
    ticks = [t for t in sorted(case.stream) if case.start <= t <= case.end]
    size = {t: len(case.stream[t]) for t in ticks}
    out = {}
    for t in ticks:
        start, count = t, 0
        for u in reversed([u for u in ticks if u < t]):
            count += size[u]
            if count > n:
                break
            start = u
        out[t] = start
    return out


# ---------------------------------------------------------------- comparing


def evaluated(case: Case) -> list:
    """The ticks of ``case.evaluations`` inside Laser's timeline (outside it
    Laser's evaluate answers nothing whatever the rules say)."""
    return [t for t, _ in case.evaluations if case.start <= t <= case.end and t in case.stream]


def expected(case: Case) -> dict:
    """Laser's atoms per tick: the union of what its evaluations derive for
    that tick (a head ``@(T, h)`` derives for other ticks too)."""
    ticks = set(evaluated(case))
    out: dict = {}
    for t, answer in case.evaluations:
        if t in ticks:
            for k, atoms in answer.items():
                out.setdefault(k, set()).update(atoms)
    return out


def laser_atom(pred: str, terms) -> str:
    """An atom as Laser's test.py writes it."""
    from public_suites import value_text

    return f"{pred}({','.join(str(value_text(v)) for v in terms)})" if terms else pred


def holds_at(iv, k) -> bool:
    lo, hi, lc, hc = iv
    return (lo < k or (lc and lo == k)) and (k < hi or (hc and k == hi))


def derived_per_tick(model, translation: Translation, ticks) -> dict:
    """The atoms chronolog derives at each of ``ticks``, as Laser writes them."""
    from chronolog.language.errors import ChronologError

    out = {k: set() for k in ticks}
    for name, (pred, _arity) in translation.derived.items():
        try:
            facts = model.facts_within(name, (min(ticks), max(ticks)))  # ticks; repeating facts unrolled
        except ChronologError:
            facts = []  # a predicate no rule derives anything for
        for terms, iv in facts:
            for k in ticks:
                if holds_at(iv, k):
                    out[k].add(laser_atom(pred, terms))
    return out


def run(translation: Translation):
    """chronolog's model of a translated case."""
    import warnings

    import chronolog

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # notes on predicates no rule derives
        return chronolog.reason(translation.program(), translation.facts(), dialect="lars")


def differences(case: Case, translation: Translation, model) -> list:
    """Where chronolog's model and Laser's expectations differ, per tick.
    At a tick Laser evaluates the atoms must be equal; at a tick after its
    timeline (where a head ``@(T, h)`` puts atoms) Laser's must hold in
    chronolog too, which goes on evaluating rules there and Laser does not."""
    want = expected(case)
    ticks = set(evaluated(case))
    got = derived_per_tick(model, translation, sorted(ticks | set(want)))
    out = []
    for k, atoms in sorted(got.items()):
        w = want.get(k, set())
        extra = atoms - w if k in ticks else set()
        if w - atoms or extra:
            out.append(f"tick {k}: only Laser {sorted(w - atoms)}, only chronolog {sorted(extra)}")
    return out


def cases(root: Path) -> list:
    """The names of the cases in the suite at ``root``."""
    return [c.name for c in read(root / "test.py")]


def case(root: Path, name: str) -> Case:
    return next(c for c in read(root / "test.py") if c.name == name)
