"""Python's ``repr`` of many binary floats at once, byte for byte.

chronolog prints a float as Python does (the shortest text that reads back
to the same float).  ``repr`` one float at a time cost about 1 µs each, a
third of printing a rolling-window answer.  Arrow's cast from float64 to
string finds the same shortest digits, but writes them differently: an
exponent from another threshold (``1e+15`` where Python writes
``1000000000000000.0``, ``0.00001`` where it writes ``1e-05``, ``1.5e-7``
for ``1.5e-07``) and no ``.0`` on whole numbers (``1000``).  So the cast is
kept where it is certainly Python's text -- no exponent, a point, and a
magnitude in Python's fixed range -- whole numbers get ``.0`` appended, and
only the remaining rows (exponents, tiny magnitudes: rare in measured data)
go through ``repr``.  tests/test_float_text.py checks byte identity on
random floats and the edge cases.
"""

from __future__ import annotations


def float_texts(values):
    """``repr`` of each float of the numpy array ``values`` as an Arrow
    string array (``inf``, ``nan``, ``-0.0`` as Python writes them)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    values = np.ascontiguousarray(values, dtype=np.float64)
    arr = pa.array(values, pa.float64())
    text = pc.cast(arr, pa.string())
    with np.errstate(invalid="ignore"):
        mag = np.abs(values)
        # Python's fixed notation is for 1e-4 <= |x| < 1e16; Arrow's ends earlier
        fixed_range = (mag >= 1e-4) & (mag < 1e15)
    finite = np.isfinite(values)
    has_e = pc.match_substring(text, "e").to_numpy(zero_copy_only=False)
    has_dot = pc.match_substring(text, ".").to_numpy(zero_copy_only=False)
    whole = finite & ~has_e & ~has_dot & ((mag < 1e15))  # "1000", "0", "-0": Python adds ".0"
    if whole.any():
        text = pc.if_else(pa.array(whole), pc.binary_join_element_wise(text, ".0", ""), text)
    redo = finite & ~whole & (has_e | ~fixed_range)
    if not redo.any():
        return text
    at = np.flatnonzero(redo)
    fixed = pa.array([repr(v) for v in values[at].tolist()], pa.string())
    return pc.replace_with_mask(text, pa.array(redo), fixed)
