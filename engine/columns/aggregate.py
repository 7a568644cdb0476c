"""AggregateNode on columns: time-point aggregation per group, as the rows'
engine/rows/aggregate.py defines it, as a sweep in numpy.

Each binding's intervals are coalesced first (it counts once at a point).
The interval codes of a group's rows cut its timeline into segments
``[p_i, p_i+1)`` (on the doubled grid a segment is exactly a run of the
rows' elementary pieces); every row covers a contiguous range of segments.
sum and count are a difference array and a cumulative sum; min and max a
sparse table turned around (:func:`_range_extreme`).  A segment with no row
gives nothing; adjacent segments with the same values coalesce.

Float results stay Float64 value columns (value_columns.py), rational
results (sums, means, min/max of decimals; a mean of ints that is not whole)
are exact value columns (exact_columns.py), integer sums and counts are
coded.  Exact as the rows: integer and rational sums in int64 over the
common denominator (bounds checked), float sums correctly rounded (each
float is an integer times a common power of two, summed exactly, rounded
once at the end -- what the rows' Fraction sum then ``float()`` gives).  Every
fold (language/builtins.py's FOLDS) is computed here: prod and munion by the rows' own folds, once per segment
over its bindings' values (:func:`_python_folds`); contributors fold twice
(:meth:`AggregateNode._by_contributors`).  A min or
max of strings, booleans or instants folds their ranks in term order
(:func:`_term_ranks`); terms of two kinds meeting: Fallback to rows, which
raise their error.
"""

from __future__ import annotations

import math

from chronolog.engine.coalescing import continues_equal
from chronolog.engine.exprs import frame_numpy, to_numpy
from chronolog.engine.segments import COUNT, E, S, points_of, segments
from chronolog.language import ast
from chronolog.language.builtins import FOLDS
from chronolog.language.exact_pairs import small_unique

from .base import ColumnMapNode, column, drain, frame_of_arrays
from .coalesce import coalesce, combined_key, key_steps, ordered_steps, stable_argsort
from .encoding import Fallback

from . import exact_columns as ex
from .expressions import EXACT, FLOAT, INT, RATIONAL, evaluate, whole_ints
from .scan import var_column
from .value_columns import float_rows, float_series, is_values, mixed

class AggregateNode(ColumnMapNode):
    """Drains the body; one batch of group columns, aggregate columns, s, e."""

    def __init__(self, child, group, aggregates, values, shared=None, key=None, tables=(), conditions=(), assignments=(),
                 touched=None):
        super().__init__(child)
        self.touched = touched  # in a recursion's later round: frames of the groups its deltas reach (lowering._touched)
        self.conditions = list(conditions)  # comparisons of group and aggregate variables: kept rows only (see Segments.fold)
        self.group = list(group)  # variable names
        self.aggregates = aggregates  # [(var, ast.Aggregate)], each aggregating a variable
        self.assignments = assignments  # [AssignNode] of the aggregated expressions (planner/aggregates.valued)
        self.values = values
        self.shared, self.key, self.tables = shared, key, tables  # SharedBody, and what identifies the body

    def next(self) -> bool:
        if self._batch is not None:
            return False
        sets: dict = {}  # the aggregates by their contributors, in order
        for var, agg in self.aggregates:
            sets.setdefault(agg.contributors, []).append((var, agg))
        if len(sets) > 1:
            self._batch = self._of_contributor_sets(list(sets.values()))
        elif any(a.contributors for _, a in self.aggregates):
            body = self._body()
            self._batch = None if body is None else self._by_contributors(body, self.aggregates, self.conditions)
        else:
            segments = self.shared.get(self.key, self.tables) if self.shared is not None else None
            if segments is None:
                body = self._body()
                if body is None:
                    return False
                segments = Segments(body, self.group)
                if self.shared is not None:
                    self.shared.put(self.key, self.tables, segments)
            self._batch = segments.fold(self.aggregates, self.values, self.conditions, self.assignments)
        return self._batch is not None and self._batch.height > 0

    def _of_contributor_sets(self, sets):
        """Aggregates of other contributors in one rule (``sum(X)`` beside
        ``count(<P>)``): each set folded alone over the one body, the
        results joined per group on their common pieces, then the
        conditions.  Each result is defined where its group has a binding,
        so they cover the same time; two adjacent common pieces differ in
        one of them, so they stay maximal."""
        import numpy as np

        from .code_frames import join
        from .expressions import compare

        body = self._body()
        if body is None:
            return None
        out = None
        for aggregates in sets:
            if aggregates[0][1].contributors:
                part = self._by_contributors(body, aggregates, ())
            else:
                part = Segments(body, self.group).fold(aggregates, self.values, (), self.assignments)
            if part is None or not part.height:
                return None
            out = part if out is None else join(out, part, [var_column(g) for g in self.group])
        out = out.select(*(var_column(g) for g in self.group), *(var_column(v) for v, _ in self.aggregates), "s", "e")
        if self.conditions:
            keep = np.ones(out.height, dtype=bool)
            for cmp in self.conditions:
                keep &= np.asarray(compare(cmp, out, self.values), dtype=bool)
            out = out.filter(keep)
        return out

    def _body(self):
        """The body's bindings, groups coded; in a recursion's later round
        only those of the groups its deltas reach (:attr:`touched`), where
        their columns are of one kind with the body's (else all of them)."""
        if self.touched is not None and not self.touched:
            return None  # (no group reached: nothing changes)
        body = drain(self.child)
        if body is None:
            return None
        body = self._coded(body, self.group)
        if self.touched:
            import polars as pl

            cols = [var_column(g) for g in self.group]
            reached = [self._coded(df, self.group) for df in self.touched]
            if all(df.schema == body.select(cols).schema for df in reached):
                body = body.join(pl.concat(reached).unique(), on=cols, how="semi")
        return body

    def _coded(self, body, group):
        from .value_columns import codes

        return codes(body, [c for c in (var_column(g) for g in group) if ex.is_exact(body[c])], self.values)  # groups are codes

    def _by_contributors(self, body, aggregates, conditions):
        """``msum(S, <Y>)``: each contributor tuple counts once at a time
        point, with the greatest of its bindings' values there (the least
        for min and mmin; docs/language.md, "Aggregation"): the body folded
        per group and contributor first, by max (min), into one binding per
        contributor and segment, which each aggregate then folds per group.
        ``count(<V>)`` counts those bindings.  ``aggregates`` share their
        contributors (:meth:`_of_contributor_sets` joins those of others)."""
        contributors = aggregates[0][1].contributors
        # (a constant contributor names every binding alike: as the rows, it adds nothing to the identity)
        by = [*self.group, *dict.fromkeys(c.name for c in contributors if isinstance(c, ast.Var) and c.name not in self.group)]
        first, rest = [], []
        for k, (var, agg) in enumerate(aggregates):
            one = f"{var}\0contributor{k}"
            fold = "count" if agg.expr is None else "min" if FOLDS[agg.func] == "min" else "max"
            first.append((one, ast.Aggregate(fold, agg.expr)))
            rest.append((var, ast.Aggregate(agg.func, None if agg.expr is None else ast.Var(one))))
        each = Segments(self._coded(body, by), by).fold(first, self.values, (), self.assignments)
        if not each.height:
            return None
        return Segments(each, self.group).fold(rest, self.values, conditions)


class Segments:
    """A body's bindings cut into each group's segments, the part of an
    aggregation that does not depend on the aggregates: rules with the same
    body and group (a rolling sum, mean, min and max of one series) share it
    (:class:`SharedBody`), where each rule used to recompute it (half of
    each rule's time).

    The interval codes of a group's rows cut its timeline into segments
    ``[p_i, p_i+1)``; ``i_s``/``i_e`` are each row's first and after-last
    segment; ``seg`` the segments some row covers, ``n_seg`` how many."""

    def __init__(self, df, group):
        binding = [c for c in df.columns if c.startswith("v:")]
        self.df = df = coalesce(df, binding)
        self.gcols = gcols = [var_column(g) for g in group]
        n = df.height
        # the segments of each group (engine/segments.py, the rounds' too), and
        # each row's first and after-last segment: its events' point numbers
        frame, memo = segments(gcols), {}
        got = frame_numpy(frame, {c: df[c].to_numpy() for c in [*gcols, "s", "e"]}, memo)
        number = memo[id(points_of(frame))]["inverse"]
        self.i_s, self.i_e = number[:n], number[n:]
        self.m = len(memo[id(points_of(frame))]["cols"]["p"])
        self.seg = memo[id(frame)]["kept"]  # a segment is [p_i, p_i+1), within one group (count > 0)
        self.groups = {c: got[c] for c in gcols}
        self.s, self.e = got[S], got[E]
        self.n_seg = count = got[COUNT]
        self.most = int(count.max(initial=1))
        self._count = None
        self._keep = None  # (conditions and the arrays they read, the mask: _kept)
        self._sums: dict = {}  # expression -> {"value": its evaluation, "sum"/"total": its sums per segment}
        self._assigned: dict = {}  # an aggregated expression's text -> its column over the bindings

    def fold(self, aggregates, values, conditions=(), assignments=()):
        """One batch: group columns, one column per aggregate, ``s``, ``e``;
        ``conditions``: comparisons of those columns (``N == 20``), applied
        to the segments before their answers are coalesced and sorted (a
        polars filter of the answers afterwards cost 3-5 ms per 500,000 rows
        and rule; a condition of a row's own values holds on all the
        segments it merges or on none).  ``assignments``: the AssignNodes of
        the aggregated expressions, run over the coalesced bindings (a
        value is a function of its binding), each expression once for the
        rules that share these segments."""
        import polars as pl

        df, m, seg, n_seg = self.df, self.m, self.seg, self.n_seg
        expr_of = {}
        for a in assignments:
            expr_of[a.var] = key = repr(a.expr)
            col = self._assigned.get(key)
            if col is None:
                col = self._assigned[key] = a.process(self.df)[var_column(a.var)]
            df = df.hstack([col.alias(var_column(a.var))])
        cols = {}
        for var, agg in aggregates:
            fold = FOLDS[agg.func]
            key = expr_of.get(agg.expr.name, agg.expr) if agg.expr is not None else None  # (the memos: by expression)
            ranked = _term_ranks(agg.expr, df, values) if fold in ("min", "max") else None
            if fold in PYTHON_FOLDS:
                codes = _int_products(agg.expr, df, self.i_s, self.i_e, seg, values) if fold == "prod" else None
                if codes is None:
                    codes = _python_folds(fold, df[var_column(agg.expr.name)], self.i_s, self.i_e, seg, values)
                if isinstance(codes, pl.Series):
                    codes = codes.to_numpy()  # float values
            elif fold == "count":
                if self._count is None:
                    self._count = values.encode(INT, n_seg)
                codes = self._count
            elif ranked is not None:  # strings, booleans, instants: the extreme rank of each segment, the code of that term
                ranks, code_of_rank = ranked
                memo = self._sums.setdefault(("ranks", key), {})
                codes = code_of_rank[_range_extreme(m, self.i_s, self.i_e, ranks, fold == "min", memo)[seg]]
            else:
                memo = self._sums.setdefault(key, {})
                got = memo.get("value")
                if got is None:
                    kind, v = evaluate(agg.expr, df, values)
                    den = 1
                    if kind == EXACT:  # integers over the common denominator
                        kind = RATIONAL
                        v, den = ex.common(*v)
                    got = memo["value"] = (kind, v, den)  # (a sum, mean, min and max of one expression: evaluated once)
                kind, v, den = got
                codes = _fold(fold, kind, v, m, self.i_s, self.i_e, seg, n_seg, values, den, self.most, memo)
                if isinstance(codes, pl.Series):
                    codes = codes.to_numpy()  # float values
                    if mixed(agg.expr, df, values):
                        if fold in ("sum", "avg"):
                            codes = _exact_where_no_float(self, agg, fold, codes, df, values)
                        else:
                            codes = _codes_of_extremes(agg.expr, df, values, codes)
            cols[var_column(var)] = codes
        keep = self._kept(conditions, {**self.groups, **cols}, values) if conditions else None
        return _coalesce_segments(self.groups, cols, self.s, self.e, None if keep is None or keep.all() else keep)


    def _kept(self, conditions, columns, values):
        """:func:`_holds`, kept for the next rule when its conditions read
        the same arrays (``N == 20`` of the shared count: four rolling
        rules, one mask)."""
        names = sorted({var_column(v) for cmp in conditions for v in ast.variables_of(cmp)})
        read = [columns.get(c) for c in names]
        last = self._keep
        if last is not None and last[0] == (conditions, names) and all(a is b for a, b in zip(last[1], read)):
            return last[2]
        keep = _holds(conditions, columns, values)
        self._keep = ((list(conditions), names), read, keep)  # (the arrays held: an id is not reused while kept)
        return keep


# folds computed by the rows' own functions per segment: a product rounded
# once (engine/rows/aggregate._prod) and a set have no array form in numpy
PYTHON_FOLDS = ("prod", "munion")


def _segment_rows(i_s, i_e, seg):
    """``(rows, at, bounds)``: each binding's row repeated over the kept
    segments ``seg`` it covers (from ``i_s`` to ``i_e``), grouped by
    segment, the segment of each, and where each segment's rows start
    (and the last ends)."""
    import numpy as np

    from .code_frames import ranges

    count = i_e - i_s
    rows = np.repeat(np.arange(len(i_s), dtype=np.int64), count)
    at = np.searchsorted(seg, ranges(i_s, count))  # (every point a binding covers is a kept segment's)
    order = np.argsort(at, kind="stable")
    rows, at = rows[order], at[order]
    return rows, at, np.searchsorted(at, np.arange(len(seg) + 1, dtype=np.int64))


def _int_products(expr, df, i_s, i_e, seg, values):
    """The codes of prod of ``expr`` per segment where its values are
    64-bit integers (None otherwise, for the rows' fold): numpy's products
    per segment, in int64 where no product can leave 63 bits (the bit
    lengths of its factors sum to at most 63, or one is zero: a wrapped
    product is the true one modulo 2^64, so exact below 2^63), the others
    over Python ints in numpy's loop (exact, as the rows multiply ints).
    The rows' fold, a Python call per segment, took 1 s of a 1.4 s command
    over 200,000 bindings."""
    import numpy as np

    from .code_frames import ranges

    try:
        if float_rows(expr, df, values).any():
            return None
        kind, v = whole_ints(*evaluate(expr, df, values))
    except Fallback:  # (integers past 62 bits, names: the rows' fold takes them, or reports them)
        return None
    if kind != INT:
        return None
    v = np.asarray(v, dtype=np.int64)
    rows, _, bounds = _segment_rows(i_s, i_e, seg)
    starts = bounds[:-1]
    if not len(starts) or (np.diff(bounds) == 0).any():
        return None
    x = v[rows]
    size = np.abs(x.astype(np.float64))
    with np.errstate(divide="ignore"):  # (a zero's bit length: 0; floor(log2) never under a float's rounding)
        bits = np.where(size == 0, 0, np.floor(np.log2(size)) + 1)
    fits = (np.add.reduceat(bits, starts) <= 63) | np.logical_or.reduceat(x == 0, starts)
    with np.errstate(over="ignore"):
        products = np.multiply.reduceat(x, starts)
    if fits.all():
        return values.encode(INT, products)
    codes = np.zeros(len(starts), dtype=np.int64)
    codes[fits] = values.encode(INT, products[fits])  # (a wrapped product is no value: never coded)
    big = np.flatnonzero(~fits)
    lo, n = bounds[big], np.diff(bounds)[big]
    exact = np.multiply.reduceat(x[ranges(lo, n)].astype(object), np.cumsum(n) - n).tolist()  # (Python ints)
    distinct = list(dict.fromkeys(exact))
    coded = dict(zip(distinct, values.terms.code_all(distinct).tolist()))
    codes[big] = [coded[p] for p in exact]
    return codes


def _python_folds(fold, column, i_s, i_e, seg, values):
    """The codes of ``fold`` (prod or munion) of ``column``'s values per
    segment ``seg``: each binding's values repeated over the segments it
    covers (as many pairs as the rows' sweep folds values), grouped by
    segment, folded by the rows' function (engine/rows/aggregate.py: the
    same value, whatever the order), each distinct result coded once, by
    type (``2`` and ``2.0`` stay two terms).  What the rows report as an
    error (a product of an infinity and zero, a string) falls back for
    them to report it."""
    import numpy as np

    from chronolog.engine.rows.aggregate import _FOLD
    from chronolog.language.builtins import is_number

    from .value_columns import python_list

    rows, at, bounds = _segment_rows(i_s, i_e, seg)
    if fold == "munion" and (whole := _whole_numbers(column)) is not None:  # (ranks by numpy, no Python int a row)
        sets = _sets_of_ranks(*whole, rows, at, len(seg))
        if sets is not None:
            return _set_codes(sets, values)
    vals = python_list(column, values.terms)
    if fold == "prod" and not all(map(is_number, vals)):
        raise Fallback("a product of a value that is no number: the rows report it")
    if fold == "munion":
        sets = _sets_of_one_kind(vals, rows, at, len(seg))
        if sets is not None:
            return _set_codes(sets, values)
    fold_of = _FOLD[fold]
    out, distinct = [], {}
    bounds = bounds.tolist()
    rows = rows.tolist()
    alone: dict = {}  # a value's result where its binding is a segment's only one (most segments): folded once
    try:
        for j in range(len(seg)):
            lo, hi = bounds[j], bounds[j + 1]
            if hi - lo == 1:
                one = vals[rows[lo]]
                got = alone.get((type(one), one))
                if got is not None:
                    out.append(got)
                    continue
            v = fold_of([vals[r] for r in rows[lo:hi]])
            if v != v:  # (NaN: a product of an infinity and zero)
                raise ArithmeticError
            got = distinct.setdefault((type(v), v), len(distinct))
            if hi - lo == 1:
                alone[(type(one), one)] = got
            out.append(got)
    except (ArithmeticError, TypeError, ValueError):
        raise Fallback(f"a {fold} the rows report as an error") from None
    found = [v for _, v in distinct]
    at = np.asarray(out, dtype=np.int64)
    if all(type(v) is float and math.isfinite(v) for v in found):  # (a float value column: value_columns.py)
        return float_series("", np.asarray(found, dtype=np.float64)[at])
    return np.asarray(values.terms.code_all(found), dtype=np.int64)[at]


def _sets_of_one_kind(vals, rows, at, n):
    """munion's ``n`` sets, one per segment, where every value is a string
    or every one an integer (no set among them to union, no -0.0; term
    order is their own order): the pairs ``(at, rows)`` made distinct and
    ordered by one numpy sort of segment and rank, each set a slice of
    them, as language/text.make_set would build it; None for other
    values (the rows' fold then)."""
    import numpy as np

    kinds = set(map(type, vals))
    if kinds != {str} and kinds != {int}:
        return None
    members = sorted(set(vals))
    rank = {v: i for i, v in enumerate(members)}
    return _sets_of_ranks(members, np.fromiter(map(rank.__getitem__, vals), dtype=np.int64, count=len(vals)), rows, at, n)


def _set_codes(sets, values):
    """The codes of munion's ``sets`` (each distinct one coded once)."""
    import numpy as np

    distinct: dict = {}
    at = np.fromiter((distinct.setdefault(v, len(distinct)) for v in sets), dtype=np.int64, count=len(sets))
    return np.asarray(values.terms.code_all(list(distinct)), dtype=np.int64)[at]


def _whole_numbers(column):
    """``(members, ranks)`` of an exact column of whole numbers: its
    distinct ints ascending (Python ints) and each row's rank among them
    (numpy), or None for another column."""
    import numpy as np

    from .coalesce import distinct

    num = ex.numerators(column)
    if num is None:
        return None
    members = distinct(num)
    return members.tolist(), np.searchsorted(members, num)


def _sets_of_ranks(members, ranks, rows, at, n):
    """:func:`_sets_of_one_kind` of values given as their ``ranks`` among
    the sorted ``members``."""
    import numpy as np

    from chronolog.language.booleans import sets_made

    width = max(len(members), 1)
    if n * width >= 2**62:
        return None
    key = np.sort(np.asarray(at, dtype=np.int64) * width + ranks[np.asarray(rows, dtype=np.int64)])
    key = key[np.concatenate(([True], key[1:] != key[:-1]))]  # (distinct by a sort: numpy's unique hashes, 4x slower here)
    bounds = np.searchsorted(key // width, np.arange(n + 1, dtype=np.int64)).tolist()
    ordered = [members[i] for i in (key % width).tolist()]
    sets_made[0] = True  # (as make_set marks it: booleans.any_changed looks into sets from now on)
    return [tuple(ordered[bounds[j]:bounds[j + 1]]) for j in range(n)]


def _pairs(v):
    """``(num, den)`` of an exact aggregate: ``(num, den)``, or ``(None,
    None, key, L)`` (the values ``key / L``, reduced here)."""
    if v[0] is None:
        return ex.reduce(v[2], v[3])
    return v[0], v[1]


def _holds(conditions, columns, values):
    """The mask of the rows where every comparison of ``conditions`` holds
    over ``columns`` (numpy codes, float values, or exact aggregates'
    tuples, :func:`_pairs`), evaluated as ConditionNode does on a frame of just the
    columns they name."""
    import numpy as np
    import polars as pl

    from .expressions import compare

    names = {var_column(v) for cmp in conditions for v in ast.variables_of(cmp)}
    series = [column(c, _pairs(columns[c]) if isinstance(columns[c], tuple) else columns[c]) for c in names]
    frame = pl.DataFrame(series) if series else pl.DataFrame({"_": np.zeros(len(next(iter(columns.values()))) if columns else 0)})
    keep = np.ones(frame.height, dtype=bool)
    for cmp in conditions:
        keep &= np.asarray(compare(cmp, frame, values), dtype=bool)
    return keep


def _exact_where_no_float(segments, agg, fold, floats, df, values):
    """The codes of a sum or mean over ints beside floats (``floats``: the
    float result of every segment): a segment with no float among its values
    is summed exactly (the rows' sum of ints is an int, their mean a
    rational), the others keep the float.  The exact ones are coded first:
    a float equal to one then shares its code, not the other way round."""
    import numpy as np
    import polars as pl

    fl = float_rows(agg.expr, df, values)
    if fl.all():
        return values.encode(FLOAT, floats)
    m, seg, n_seg = segments.m, segments.seg, segments.n_seg
    has_float = _range_sum(m, segments.i_s, segments.i_e, fl.astype(np.int64))[seg] > 0
    v = np.zeros(df.height, dtype=np.int64)
    kind, exact = evaluate(agg.expr, df.filter(pl.Series(~fl)), values)
    if kind != INT:
        raise Fallback("a sum of exact numbers beside floats")
    v[~fl] = exact
    total = _int_sums(m, segments.i_s, segments.i_e, v, seg, segments.most)
    out = np.zeros(len(seg), dtype=np.int64)
    ok = ~has_float  # (only these are coded: a partial sum of a float segment is no value of the run)
    if fold == "sum":
        out[ok] = values.encode(INT, total[ok])
    else:
        out[ok] = values.encode_rational(total[ok], n_seg[ok])
    if has_float.any():
        out[has_float] = values.encode(FLOAT, floats[has_float])
    return out


def _term_ranks(expr, df, values):
    """For a min or max of strings, of booleans or of instants: each row's
    rank among the distinct terms in term order (strings: code points,
    Python's order of str; #F before #T; instants by time) and the code of
    each rank; None where a value is none of these or two kinds meet
    (numbers go through the kernels; a mix is the rows' error)."""
    import numpy as np

    col = df[var_column(expr.name)]
    if is_values(col):
        return None
    codes = col.to_numpy()
    used, at = small_unique(codes)  # (numpy 2.4's unique without an inverse hashes: 20x slower than this)
    keyed = values.order_keys(used)
    if keyed is not None:
        order = np.argsort(keyed[1], kind="stable")
        rank_of = np.empty(len(used), dtype=np.int64)
        rank_of[order] = np.arange(len(used), dtype=np.int64)
    else:
        from chronolog.language.term_ranks import term_ranks

        vals = values.terms.values.take(used)
        if not all(type(v) is str for v in vals):
            return None
        rank_of = term_ranks(vals)  # (the output's order of strings: polars' sort for many)
        order = np.argsort(rank_of, kind="stable")
    return rank_of[at], used[order]


def _codes_of_extremes(expr, df, values, extremes):
    """The codes of a min or max over ints beside floats (``extremes``: the
    float value of each segment's): the extreme is one of the values, so
    it keeps its own kind (the rows' ``max`` returns the object itself),
    found by its float among the rows' floats.  (Coding the float would give
    an int extreme a float's type.)  No float and int of equal value meet
    here: coding both would have sent the stratum to the rows already."""
    import numpy as np

    row_codes = df[var_column(expr.name)].to_numpy()
    _, floats = evaluate(expr, df, values)
    order = np.argsort(floats, kind="stable")
    at = np.searchsorted(floats[order], extremes)
    return np.asarray(row_codes, dtype=np.int64)[order[at]]


class SharedBody:
    """The :class:`Segments` of the last aggregation, kept for the next rule
    when its body, its group and the relations its body reads are the same
    (aggregations run in non-recursive strata: a relation they read no
    longer changes).  One entry: memory for one body at a time."""

    def __init__(self):
        self.key = None
        self.tables = ()
        self.segments = None

    def get(self, key, tables):
        if key is not None and key == self.key and len(tables) == len(self.tables) and all(a is b for a, b in zip(tables, self.tables)):
            return self.segments
        return None

    def put(self, key, tables, segments):
        self.key, self.tables, self.segments = key, tables, segments


def _coalesce_segments(groups: dict, values: dict, s, e, keep=None):
    """The answers (numpy columns: the group's, the aggregates', ``s``,
    ``e``; float arrays are value columns, int64 codes) as one DataFrame,
    coalesced and sorted as :func:`coalesce` gives them, without its sort:
    the segments come in group order, each group's in time order and
    disjoint, so an answer's pieces that touch are adjacent rows (a segment
    between them would have another value): runs of equal rows that meet
    merge in one pass (engine/coalescing.continues_equal, as on Spark).  Then a stable sort by the group and the values
    keeps each answer's intervals in time order (a polars sort of the rows
    and a merge by rank took 60% of the rolling-window job).

    ``keep``: the rows the rule's conditions keep (a mask), taken with the
    runs: a condition reads only these columns, so it holds on all the rows
    of a run or on none, and each column is gathered once for both (the
    kept rows gathered first, then merged and sorted, cost 1.4 ms of the
    rolling bench's four rules)."""
    import numpy as np

    exact = {c for c, v in values.items() if isinstance(v, tuple)}  # (num, den) pairs, and a key in value order when known
    cols = {**groups}
    ride = []  # the pairs: compared and sorted by their key (injective), carried along
    scaled = {}  # exact columns whose key is the value over a common denominator: pairs made after the order
    for c, v in values.items():
        if c in exact and len(v) == 4:  # (the key is gathered, not the pairs: one gather, then a reduction in order)
            cols[c + "\0k"] = v[2]
            scaled[c] = v[3]
        elif c in exact:  # sorted by value (exact_columns.order_key); the pair rides along when the key tells values apart
            key, injective = ex.order_key(v[0], v[1])
            cols[c + "\0k"] = key
            if injective:
                ride += [(c + "\0n", v[0]), (c + "\0d", v[1])]
            else:
                cols[c + "\0n"], cols[c + "\0d"] = v[0], v[1]
        else:
            cols[c] = v
    keys = list(cols.values())
    carried = [a for _, a in ride]
    n = len(s)
    first = last = None  # the rows kept: each run's first (its start) and last (its end)
    if n > 1:
        cont = continues_equal(list(groups), [c for c in cols if c not in groups])  # (engine/coalescing.py: Spark's too)
        same = to_numpy(cont, {**cols, "s": s, "e": e})[1:]
        if same.any():
            first = np.flatnonzero(np.concatenate([[True], ~same]))
            last = np.append(first[1:], n) - 1
    if keep is not None:
        if first is None:
            first = last = np.flatnonzero(keep)
        else:
            kept = keep[first]
            first, last = first[kept], last[kept]
    if n > 1 and (first is None or len(first) > 1):
        if values:
            # one key for the order, made on all rows when few merged (then only it is
            # gathered, and each column once below), else on the merged rows
            few = first is None or 2 * len(first) > n
            kept = keys if first is None else None if few else [k[first] for k in keys]
            ck = combined_key(keys if few else kept)
            if ck is not None:
                ck = ck if first is None or not few else ck[first]
                order = None if bool(np.all(ck[1:] >= ck[:-1])) else stable_argsort(ck)
            else:
                kept = kept if kept is not None else [k[first] for k in keys]
                order = None if _sorted_by(kept) else np.lexsort(kept[::-1])
            if order is not None:  # stable: equal keys keep their time order
                first, last = (order, order) if first is None else (first[order], last[order])
    if first is not None:  # (one gather per column for the three steps; the order key not at all)
        keys = [k if c.endswith("\0k") and c[:-2] not in scaled else k[first] for c, k in zip(cols, keys)]
        s, e = s[first], e[last]
        carried = [a[first] for a in carried]
    data = {c: k for c, k in zip(cols, keys) if not c.endswith("\0k")} | dict(zip([c for c, _ in ride], carried))
    for c, den in scaled.items():
        data[c + "\0n"], data[c + "\0d"] = ex.reduce(keys[list(cols).index(c + "\0k")], den)
    names = [*groups, *values]  # (a frame from Series, the pairs as exact value columns in their place: no polars query)
    return frame_of_arrays(names, [(data[c + "\0n"], data[c + "\0d"]) if c in exact else data[c] for c in names], s, e)


def _sorted_by(keys) -> bool:
    """Whether the rows are in the order of ``keys`` (the first key first)."""
    greater, equal = ordered_steps(len(keys[0]), key_steps(keys))
    return bool((greater | equal).all())


def _range_sum(m, i_s, i_e, v):
    """Per segment, the sum of ``v`` over the rows covering it.  int64 wraps
    around, so the running sum is exact whenever every segment's sum fits,
    however large the prefix sums in between."""
    import numpy as np

    diff = np.zeros(m + 1, dtype=v.dtype)
    np.add.at(diff, i_s, v)
    np.subtract.at(diff, i_e, v)
    return np.cumsum(diff, out=diff)[:m]  # (in place: no temporary of -v nor of the sums)


def _int_sums(m, i_s, i_e, v, seg, most):
    """Per segment, the sum of the int64 ``v`` over the rows covering it,
    refused where one may leave 64 bits (``most`` rows of the largest)."""
    import numpy as np

    if v.size and float(np.abs(v).max()) * most >= 2**62:
        raise Fallback("an integer sum that may leave 64 bits")
    return _range_sum(m, i_s, i_e, v)[seg]


def _range_extreme(m, i_s, i_e, v, least, memo=None):
    """Per segment, the max (min when ``least``) of ``v`` over the rows
    covering it, as a sparse table turned around: a row's range [i_s, i_e)
    of length L is the union of two blocks of length 2**k (k = floor(log2
    L)) starting at i_s and at i_e - 2**k, overlapping, which max and min do
    not mind; each block is written at its level, then each level is pushed
    down into the two halves of its blocks, from the top level to level 0
    (the answer), one level's array beside the next (two arrays of the
    segments, where a table of every level's took a page fault per 512
    segments and level).  Cost: 2 scattered writes per row and log2(longest
    range) passes over the segments, where a segment tree took
    log2(segments) passes of fancy indexing over the rows (14 of the 35 ms
    of a 20-day rolling max over 100,000 days).  ``memo``: the blocks'
    places and values by level, kept for the other extreme of the same
    values (a rolling min and max)."""
    import numpy as np

    fill = np.inf if least else -np.inf
    if v.dtype == np.int64:
        fill = np.iinfo(np.int64).max if least else np.iinfo(np.int64).min
    if m == 0:
        return np.full(0, fill, dtype=v.dtype)
    blocks = memo.get("blocks") if memo is not None else None
    if blocks is None:
        length = i_e - i_s
        level = np.frexp(length.astype(np.float64))[1].astype(np.int64) - 1  # floor(log2 L), exact below 2**53
        top = int(level.max(initial=0)) + 1
        levels = np.concatenate([level, level])
        by_level = np.argsort(levels, kind="stable")  # (one level, as a rolling window's: in order already)
        where = np.concatenate([i_s, i_e - (1 << level)])[by_level]
        bounds = np.searchsorted(levels[by_level], np.arange(top + 1)).tolist()
        blocks = (top, where, np.concatenate([v, v])[by_level], bounds)
        if memo is not None:
            memo["blocks"] = blocks
    top, where, both, bounds = blocks
    pick = np.minimum if least else np.maximum

    def level_array(k):
        out = np.full(m, fill, dtype=v.dtype)
        if bounds[k + 1] > bounds[k]:
            pick.at(out, where[bounds[k] : bounds[k + 1]], both[bounds[k] : bounds[k + 1]])
        return out

    cur = level_array(top - 1)
    for k in range(top - 1, 0, -1):
        half = 1 << (k - 1)
        below = level_array(k - 1)
        pick(below, cur, out=below)  # the first half of each block
        pick(below[half:], cur[: m - half], out=below[half:])  # the second half
        cur = below
    return cur


def _fold(fold, kind, v, m, i_s, i_e, seg, n_seg, values, den=1, most=1, memo=None):
    """The codes of one aggregate (``fold``: sum, avg, min or max) per segment (a float aggregate: a Float64
    value column, value_columns.py); a RATIONAL ``v`` is ``v / den``;
    ``most``: the most rows covering one segment (bounds every sum)."""
    if fold in ("min", "max"):
        r = _range_extreme(m, i_s, i_e, v, fold == "min", memo)[seg]
        if kind == FLOAT:
            return float_series("", r)
        return (None, None, r, den) if kind == RATIONAL else values.encode(kind, r)  # (r / den, r a key in value order: _pairs)
    if kind in (INT, RATIONAL):
        total = memo.get("total") if memo is not None else None
        if total is None:
            total = _int_sums(m, i_s, i_e, v, seg, most)
            if memo is not None:
                memo["total"] = total  # (a sum and a mean of one expression: summed once)
        if kind == RATIONAL:  # an exact value column (exact_columns.py)
            if fold == "avg" and float(den) * float(n_seg.max(initial=1)) >= ex.BOUND:
                raise Fallback("a mean's denominator beyond 64 bits")
            if fold == "sum":
                return (None, None, total, den)  # (total / den, total a key in value order: _pairs)
            return ex.reduce(total, den * n_seg)
        if fold == "sum":
            return values.encode(INT, total)
        whole = total % n_seg == 0
        if whole.all():
            return values.encode(INT, total // n_seg)
        return ex.reduce(total, n_seg)  # a Fraction where a mean is not whole: exact pairs
    exact = memo.get("exact") if memo is not None else None
    if exact is None:
        exact = _exact_float_sums(m, i_s, i_e, v, seg, most)
        if memo is not None:
            memo["exact"] = exact  # (a sum and a mean of one expression: summed once, rounded each)
    # a mean: the exact sum divided by the count, rounded once (as the rows: finite where the mean is)
    return float_series("", exact(n_seg if fold == "avg" else None))


def _exact_float_sums(m, i_s, i_e, v, seg, most):
    """The exact sums of floats per segment, as a function of ``counts``
    that rounds them once: ``None`` gives the correctly rounded sums, a
    count per segment the means (divided exactly before rounding), as the
    rows' exact sums: each float is ``mant * 2**exp`` with a 53-bit integer
    ``mant``; scaled to the least exponent they are integers, summed exactly
    and rounded once.  The integers are split into two int64 limbs,
    ``hi * 2**32 + lo``, summed separately; the carry is moved into ``hi``;
    then ``float(hi) * 2**32 + float(lo)`` is one IEEE addition of two exact
    doubles, which is correctly rounded.  Floats too far apart in magnitude
    for two limbs (or tiny) take K limbs (:func:`_wide_float_sum`).  Python
    ints only where a limb could leave int64 (more than 2**28 rows over one
    segment); subnormal results take Python's exact division per segment
    (float_mean.py: ``ldexp`` would round them a second time)."""
    import numpy as np

    mant, exp = np.frexp(v)
    mant *= 2.0**53  # (in place where it can be: each temporary of n values costs its page faults)
    mant = mant.astype(np.int64)
    exp = exp.astype(np.int64)
    exp -= 53
    nz = mant != 0
    if not nz.any():
        return lambda counts: np.zeros(len(seg))
    k = int(exp[nz].min())
    shift = exp
    shift -= k
    shift[~nz] = 0
    span = int(shift.max())
    if k > -1000 and span <= 32 and span + int(np.ceil(np.log2(most + 1))) < 31:
        lo = np.left_shift(mant, shift)
        lo &= 0xFFFFFFFF  # the low 32 bits survive the wrap-around
        np.subtract(32, shift, out=shift)
        hi = np.right_shift(mant, shift, out=mant)  # floor: mant * 2**shift == hi * 2**32 + lo
        lo_sum = _range_sum(m, i_s, i_e, lo)[seg]
        hi_sum = _range_sum(m, i_s, i_e, hi)[seg] + (lo_sum >> 32)
        lo_sum &= 0xFFFFFFFF

        def rounded(counts):
            if counts is None:
                total = hi_sum.astype(np.float64) * 2.0**32 + lo_sum.astype(np.float64)
                with np.errstate(over="ignore"):  # beyond the float range: +-inf, as the rows' float() of the sum
                    return np.ldexp(total, k)
            from .float_mean import float_means

            return float_means(hi_sum, lo_sum, k, counts)  # (a mean: the exact sum over the count, vectorised)

        return rounded
    if most < 1 << 28:
        return lambda counts: _wide_float_sum(m, i_s, i_e, mant, shift, seg, k, counts)
    scaled = np.array([int(a) << int(b) for a, b in zip(mant.tolist(), shift.tolist())], dtype=object)
    total = _range_sum(m, i_s, i_e, scaled)[seg].tolist()

    def rounded_by_python(counts):
        n = [1] * len(total) if counts is None else counts.tolist()
        if k >= 0:
            return np.array([_to_float(t << k, c) for t, c in zip(total, n)], dtype=np.float64)
        d = 1 << -k
        return np.array([_to_float(t, d * c) for t, c in zip(total, n)], dtype=np.float64)

    return rounded_by_python


LIMB = 0xFFFFFFFF


def _wide_float_sum(m, i_s, i_e, mant, shift, seg, k, counts):
    """The exact sums in K limbs of 32 bits, rounded once.  Each row's
    ``mant << shift`` touches three limbs from ``shift // 32`` (its 53 bits
    shifted by ``shift % 32`` below 85); each limb is summed per segment by
    :func:`_range_sum` (a limb's terms are below 2**33, 2**28 rows of them
    fit int64), the carries moved up from the low limb, negative sums
    negated (sign and magnitude).  The top 83 bits ``W`` of the magnitude,
    its lowest bit or-ed with a sticky bit from every bit below (rounded to
    odd: ``W`` and the exact sum lie in the same open interval between two
    integers, and no rounding boundary of a sum or of a mean over at most
    2**28 rows -- even integers at that scale, the quotient being at least
    2**54 -- lies inside), go to float_mean.py's two-limb division (by 1
    for a sum), scaled by ``2**(k + dropped bits)``.  Hand-written: numpy
    has no integers wider than 64 bits."""
    import numpy as np

    q = shift >> 5
    r = shift & 31
    low = (mant & LIMB) << r  # < 2**63
    high = (mant >> 32) << r  # |high| < 2**52
    parts = ((0, low & LIMB), (1, (low >> 32) + (high & LIMB)), (2, high >> 32))
    n_limbs = int(q.max()) + 4  # (three limbs a row, one for the carries)
    limbs = np.zeros((n_limbs + 1, len(seg)), dtype=np.int64)  # (a zero limb on top: the window below reads one past)
    order = np.argsort(q, kind="stable")
    bounds = np.searchsorted(q[order], np.arange(n_limbs + 1)).tolist()
    for at in range(n_limbs - 3):
        if bounds[at] == bounds[at + 1]:
            continue  # (no row starts in this limb)
        rows = order[bounds[at] : bounds[at + 1]]
        starts, ends = i_s[rows], i_e[rows]
        for up, terms in parts:
            limbs[at + up] += _range_sum(m, starts, ends, terms[rows])[seg]
    _carry(limbs)
    negative = limbs[-1] < 0
    limbs *= np.where(negative, -1, 1)  # (a product broadcast along the limbs: a column gather of each costs 4x)
    _carry(limbs)
    by_segment = np.ascontiguousarray(limbs.T)  # (a segment's limbs side by side: the gathers below stay in its cache line)
    width = by_segment.shape[1]
    flat = by_segment.reshape(-1)
    base = np.arange(len(seg)) * width
    top = np.zeros(len(seg), dtype=np.int64)  # the highest and the lowest non-zero limbs (0 where none is),
    lowest = np.full(len(seg), width, dtype=np.int64)  # a pass a limb: argmax along rows of K costs ~20 ns a segment
    for at in range(width):
        nonzero = limbs[at] != 0
        top[nonzero] = at
        np.minimum(lowest, np.where(nonzero, at, width), out=lowest)
    bits = np.frexp(flat[base + top].astype(np.float64))[1].astype(np.int64)  # the top limb's bit length (exact: < 2**32)
    dropped = np.maximum(32 * top + bits - 83, 0)

    def bits_at(p):  # the 32 bits of the magnitude from bit p up
        at = base + (p >> 5)
        r = p & 31
        return (flat[at] >> r) | ((flat[at + 1] << (32 - r)) & LIMB)

    lo = bits_at(dropped)
    hi = bits_at(dropped + 32) + (bits_at(dropped + 64) << 32)  # < 2**51
    j, r = dropped >> 5, dropped & 31
    sticky = (flat[base + j] & ((1 << r) - 1)) != 0
    sticky |= lowest < j  # a non-zero limb below the window's lowest
    lo |= sticky
    borrow = negative & (lo != 0)
    hi = np.where(negative, -hi - borrow, hi)
    lo = np.where(borrow, (1 << 32) - lo, lo)
    from .float_mean import float_means

    n = np.ones(len(seg), dtype=np.int64) if counts is None else counts
    with np.errstate(over="ignore"):  # beyond the float range: +-inf, as the rows' float() of the sum
        return float_means(hi, lo, k + dropped, n)


def _carry(limbs):
    """Each limb brought into [0, 2**32), its carry (signed) added to the
    next; the top limb keeps the sign."""
    for j in range(len(limbs) - 1):
        limbs[j + 1] += limbs[j] >> 32
        limbs[j] &= LIMB


def _to_float(t: int, d: int) -> float:
    """``t / d`` correctly rounded; beyond the float range an infinity (as
    the rows' sum gives: 1e308 + 1e308 is +inf)."""
    try:
        return t / d
    except OverflowError:
        return math.inf if t > 0 else -math.inf
