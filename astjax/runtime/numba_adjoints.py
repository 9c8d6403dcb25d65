"""Numba lowerings of indexing, functional updates and the helpers that derivative code calls.

Indices must be ints, slices, None or tuples of them (an index array is
declined). Updates follow `x.at[idx]`: a copy of x with the update applied; an
all-integer index out of range drops the update, as JAX's scatter does.
Sums in the adjoint helpers (unbroadcast, pad_adjoint's edges) run in loop
order, which may differ from NumPy's pairwise order in the last bits.
"""
import sys

import numpy as np
from numba import types

from .. import lax
from .. import numpy as jnp
from ..rules import helpers
from .numba_build import lowers
from .numba_build import implementation as _impl, is_value as _value, ndim_of as _ndim
from .numba_reductions import static_axes
from .numba_typing import dtype_of, is_array, is_none, literal_value, result_shape_dtype




def _index_parts(t, ndim=None):
    """The parts of a basic index ("int", "slice", "none"), or None for anything else (index arrays).
    Given the indexed array's `ndim`, one `...` counts as the slices it stands for (an index of ints and
    `...` that stands for none is declined: NumPy's meaning is then a 0-d view, not a scalar)."""
    parts = t.types if isinstance(t, types.BaseTuple) else (t,)
    kinds = []
    for part in parts:
        if isinstance(types.unliteral(part), types.Integer):
            kinds.append("int")
        elif isinstance(part, types.SliceType):
            kinds.append("slice")
        elif is_none(part):
            kinds.append("none")
        elif isinstance(part, types.EllipsisType) and ndim is not None:
            kinds.append("ellipsis")
        else:
            return None
    if "ellipsis" in kinds:
        spans = ndim - sum(k in ("int", "slice") for k in kinds)
        at = kinds.index("ellipsis")
        kinds[at:at + 1] = ["slice"] * spans
        if "ellipsis" in kinds or spans < 0 or all(k == "int" for k in kinds):
            return None
    return kinds


def _float_of(dtype):
    return np.result_type(dtype, np.float32).type


# ------------------------------------------------------------------ reading and updating
@lowers("getitem", ("x", "idx"), reference=helpers.getitem)
def _getitem(x, idx):
    """x[idx] for a basic index (an int out of range is an IndexError, as in NumPy)."""
    if not is_array(x) or dtype_of(x) is None:
        return None
    kinds = _index_parts(idx, x.ndim)
    if kinds is None or sum(k != "none" for k in kinds) > x.ndim:
        return None
    if "none" in kinds:
        return None         # Numba has no np.newaxis in an index
    return _impl(("x", "idx"), ["return x[idx]"])


def _in_range_check(idx_type, x_name):
    """Source lines returning the unchanged copy when an integer index is out of range, as the reference's
    `.at[]` drops it (JAX's scatter): an index of integers after only full slices (`i`, `i, j`, `:, i`).
    Any other index with an integer out of range is NumPy's IndexError there, as Numba's bounds check
    raises it. Numba holds a full slice `:` as start 0, stop sys.maxsize, step 1."""
    parts = idx_type.types if isinstance(idx_type, types.BaseTuple) else (idx_type,)
    is_int = [isinstance(types.unliteral(p), types.Integer) for p in parts]
    lead = is_int.index(True) if True in is_int else len(parts)
    if lead == len(parts) or not all(is_int[lead:]) or not all(isinstance(p, types.SliceType)
                                                             for p in parts[:lead]):
        return []
    reads = [f"idx[{k}]" for k in range(len(parts))] if isinstance(idx_type, types.BaseTuple) else ["idx"]
    checks = " or ".join(f"not (-{x_name}.shape[{k}] <= {reads[k]} < {x_name}.shape[{k}])"
                         for k in range(lead, len(parts)))
    full = "".join(f" and {reads[k]}.start == 0 and {reads[k]}.stop == {sys.maxsize} and {reads[k]}.step == 1"
                   for k in range(lead))
    return [f"if ({checks}){full}:", "    return out"]


def _is_mask(idx, x):
    """A boolean array index of x's rank (piecewise writes each piece where its condition holds)."""
    return is_array(idx) and isinstance(idx.dtype, types.Boolean) and idx.ndim == _ndim(x)


def _masked_lines(combine, v_is_array):
    """Lines applying `out[idx] (combine)= v` for a boolean mask idx, in the mask's C order (NumPy's): v a
    number, or a vector of one value or of one value per selected position (else NumPy's errors)."""
    lines = ["if idx.shape != out.shape:",
             "    raise IndexError('boolean index did not match indexed array')",
             "flat = out.reshape(out.size)",
             "mask = np.ascontiguousarray(idx).reshape(idx.size)"]
    value = "dtype(v)"
    if v_is_array:
        lines += ["count = 0",
                  "for k in range(mask.size):",
                  "    if mask[k]:",
                  "        count += 1",
                  "values = np.ascontiguousarray(v).reshape(v.size)",
                  "if v.ndim > 1 or (values.size != count and values.size != 1):",
                  "    raise ValueError('shape mismatch: value array cannot be broadcast to indexing result')",
                  "j = 0"]
        value = "dtype(values[j if values.size > 1 else 0])"
    lines += ["for k in range(mask.size):",
              "    if mask[k]:",
              f"        flat[k] = {value if combine is None else f'dtype(flat[k] {combine} {value})'}"]
    if v_is_array:
        lines.append("        j += 1")
    return lines


def _update(name, reference, combine):
    def typer(x, idx, v):
        if not is_array(x) or dtype_of(x) is None or not _value(v):
            return None
        if _is_mask(idx, x):
            target, value = dtype_of(x), dtype_of(v)
            if target.kind in "biu" and value.kind == "f":
                return None
            lines = ["out = x.copy()"] + _masked_lines(combine, is_array(v)) + ["return out"]
            return _impl(("x", "idx", "v"), lines, dtype=target.type)
        kinds = _index_parts(idx, x.ndim)
        if kinds is None or "none" in kinds or len(kinds) > x.ndim:
            return None
        target, value = dtype_of(x), dtype_of(v)
        if target.kind in "biu" and value.kind == "f":
            return None     # NumPy would truncate (the reference refuses it)
        cast = "v.astype(dtype)" if is_array(v) else "dtype(v)"
        lines = ["out = x.copy()"] + _in_range_check(idx, "out")
        if combine is None:
            lines.append(f"out[idx] = {cast}")
        elif all(k == "int" for k in kinds) and len(kinds) == x.ndim:
            lines.append(f"out[idx] = dtype(out[idx] {combine} {cast})")
        else:
            lines += ["part = out[idx]", f"part {combine}= {cast}"]
        lines.append("return out")
        return _impl(("x", "idx", "v"), lines, dtype=target.type)
    return lowers(name, ("x", "idx", "v"), reference=reference)(typer)


_update("at_set", helpers.at_set, None)
_update("at_add", helpers.at_add, "+")
_update("at_multiply", helpers.at_multiply, "*")


@lowers("index_adjoint", ("x", "idx", "g"), reference=helpers.index_adjoint)
def _index_adjoint(x, idx, g):
    """index_adjoint: g added at idx into zeros shaped like x (x an array, or a tuple: one adjoint per item,
    numba_list_adjoints; a list's adjoint is declined)."""
    if isinstance(x, types.BaseTuple):
        from .numba_list_adjoints import tuple_index_adjoint
        return tuple_index_adjoint(x, idx, g)
    if not _value(x) or not _value(g):
        return None
    if _is_mask(idx, x):
        lines = ["out = np.zeros(x.shape, dtype)", "v = g"] + _masked_lines("+", is_array(g)) + ["return out"]
        return _impl(("x", "idx", "g"), lines, dtype=_float_of(dtype_of(g)))
    kinds = _index_parts(idx, _ndim(x))
    if kinds is None or "none" in kinds or len(kinds) > _ndim(x):
        return None
    dtype = _float_of(dtype_of(g))
    if all(k == "int" for k in kinds) and len(kinds) == _ndim(x):
        body = ["out = np.zeros(x.shape, dtype)", "out[idx] += dtype(g)", "return out"]
    else:
        cast = "g.astype(dtype)" if is_array(g) else "dtype(g)"
        body = ["out = np.zeros(x.shape, dtype)", "part = out[idx]", f"part += {cast}", "return out"]
    return _impl(("x", "idx", "g"), body, dtype=dtype)


_MASK_SHAPE = ["if idx.shape != x.shape:", "    raise IndexError('boolean index did not match indexed array')",
               "idx = np.ascontiguousarray(idx)"]


def _ints_only(x, idx):
    """An index of one to x.ndim integers into the array x (`y.at[i].add(v)`, `A.at[i, j].set(v)`)."""
    kinds = _index_parts(idx, _ndim(x)) if is_array(x) else None
    return kinds is not None and 0 < len(kinds) <= x.ndim and all(k == "int" for k in kinds)


def _basic(x, idx):
    """An index of one to x.ndim integers and slices into the array x (`x.at[0, 1:3]`, `x.at[i, :]`)."""
    kinds = _index_parts(idx, _ndim(x)) if is_array(x) else None
    return kinds is not None and 0 < len(kinds) <= x.ndim and "none" not in kinds


def _int_count(idx):
    return len(idx.types) if isinstance(idx, types.BaseTuple) else 1


# The adjoints of an `.at[idx]` update (`y[1:] += y[:-1]`) for an array x and an index of slices (or a boolean
# mask of x's rank: piecewise's pieces, read and cleared in the mask's C order). g may be a
# placeholder's zeros of shape (1, ..., 1) or a scalar standing for a zero adjoint: it is read broadcast to
# x's shape, as the reference broadcasts a scalar.
@lowers("part_at", ("g", "x", "idx"), reference=helpers.part_at)
def _part_at(g, x, idx):
    """part_at: the part of g (broadcast to x's shape) at the slices idx, at the integers idx (zeros where
    they are out of range: JAX dropped that update, so its value gets no adjoint), or at a boolean mask."""
    if _value(g) and is_array(x) and _is_mask(idx, x) and _ndim(g) <= x.ndim:    # piecewise: the mask's C order
        return _impl(("g", "x", "idx"), _MASK_SHAPE + [
            "return np.ascontiguousarray(np.broadcast_to(g, x.shape)).reshape(x.size)[idx.reshape(idx.size)]"])
    if not _value(g) or _ndim(g) > _ndim(x):
        return None
    if _basic(x, idx) and not _ints_only(x, idx):     # slices, or integers and slices: NumPy's g[idx]
        return _impl(("g", "x", "idx"), ["return np.ascontiguousarray(np.broadcast_to(g, x.shape)[idx])"])
    if not _ints_only(x, idx):
        return None
    dtype = dtype_of(g).type
    count = _int_count(idx)
    if count == x.ndim:                  # one element
        return _impl(("g", "x", "idx"), ["out = dtype(0)"] + _in_range_check(idx, "x")
                     + ["return dtype(np.broadcast_to(g, x.shape)[idx])"], dtype=dtype)
    return _impl(("g", "x", "idx"), [f"out = np.zeros(x.shape[{count}:], dtype)"] + _in_range_check(idx, "x")
                 + ["return np.ascontiguousarray(np.broadcast_to(g, x.shape)[idx])"], dtype=dtype)


@lowers("placed_at", ("p", "x", "idx"), reference=helpers.placed_at)
def _placed_at(p, x, idx):
    """placed_at: p added at the integers and slices idx into zeros shaped like x (x's float dtype takes part)."""
    if not (_value(p) and _basic(x, idx)):
        return None
    primal = dtype_of(x)          # helpers._adjoint_dtype: x's float dtype takes part
    dtype = (np.result_type(primal, dtype_of(p)) if primal.kind in "fc" else np.result_type(dtype_of(p), np.float32)).type
    cast = "p.astype(dtype)" if is_array(p) else "dtype(p)"
    if _ints_only(x, idx) and _int_count(idx) == x.ndim:      # one element; out of range: dropped
        return _impl(("p", "x", "idx"), ["out = np.zeros(x.shape, dtype)"] + _in_range_check(idx, "out")
                     + [f"out[idx] += {cast}", "return out"], dtype=dtype)
    return _impl(("p", "x", "idx"), ["out = np.zeros(x.shape, dtype)"] + _in_range_check(idx, "out")
                 + ["part = out[idx]", f"part += {cast}", "return out"], dtype=dtype)


@lowers("cleared_at", ("g", "x", "idx"), reference=helpers.cleared_at)
def _cleared_at(g, x, idx):
    """cleared_at: g (broadcast to x's shape) with zeros at the integers and slices idx (out of range after
    full slices only, they clear nothing: JAX dropped that update), or at a boolean mask."""
    if _value(g) and is_array(x) and _is_mask(idx, x) and _ndim(g) <= x.ndim:
        return _impl(("g", "x", "idx"), _MASK_SHAPE + [
            "out = np.ascontiguousarray(np.broadcast_to(g, x.shape)).copy()",
            "flat = out.reshape(out.size)",
            "flat[idx.reshape(idx.size)] = 0",
            "return out"])
    if not (_value(g) and _basic(x, idx)) or _ndim(g) > x.ndim:
        return None
    return _impl(("g", "x", "idx"), ["out = np.broadcast_to(g, x.shape).copy()"] + _in_range_check(idx, "out")
                 + ["out[idx] = 0", "return out"])


@lowers("index_adjoint_part", ("g", "x", "idx"), reference=helpers.index_adjoint_part)
def _index_adjoint_part(g, x, idx):
    """index_adjoint_part (the transpose of index_adjoint): the part of the array adjoint g at idx (x an
    array; a list's adjoint, or a bare zero, is declined)."""
    if not _value(x) or not is_array(g):
        return None
    if _is_mask(idx, x) and g.ndim == idx.ndim:       # the selected positions, in C order, as a vector
        return _impl(("g", "x", "idx"), [
            "if idx.shape != g.shape:",
            "    raise IndexError('boolean index did not match indexed array')",
            "values = np.ascontiguousarray(g).reshape(g.size)",
            "mask = np.ascontiguousarray(idx).reshape(idx.size)",
            "return values[mask]"])
    kinds = _index_parts(idx, _ndim(x))
    if kinds is None or "none" in kinds or len(kinds) > _ndim(x):
        return None
    return _impl(("g", "x", "idx"), ["return g[idx]"])


@lowers("distinct_index", ("x", "idx", "where"), reference=helpers.distinct_index)
def _distinct_index(x, idx, where):
    """distinct_index: a basic index never names a position twice, so it is returned as it is."""
    kinds = _index_parts(idx)
    if kinds is None:
        return None
    return _impl(("x", "idx", "where"), ["return idx"])


@lowers("unique_index", ("idx", "x"), reference=helpers.unique_index)
def _unique_index(idx, x):
    """unique_index: a basic index (or a boolean mask of x's rank) never names a position twice. An index of
    integers and slices is read once, bounds-checked: the reference's check reads x at it, and raises NumPy's
    IndexError for an integer out of range there (only an all-integer index is dropped, as JAX drops it)."""
    if _value(x) and _is_mask(idx, x):
        return _impl(("idx", "x"), ["return idx"])
    kinds = _index_parts(idx)
    if kinds is None:
        return None
    if is_array(x) and "int" in kinds and "slice" in kinds and "none" not in kinds and len(kinds) <= x.ndim:
        return _impl(("idx", "x"), ["x[idx]", "return idx"])
    return _impl(("idx", "x"), ["return idx"])


# ------------------------------------------------------------------ slices with runtime starts
def _starts_tuple(t, ndim):
    return isinstance(t, types.BaseTuple) and len(t.types) == ndim and \
        all(isinstance(types.unliteral(e), types.Integer) for e in t.types)


def _clamped(operand, sizes, ndim):
    lines = []
    for d in range(ndim):
        lines.append(f"s{d} = min(max(start_indices[{d}], 0), {operand}.shape[{d}] - {sizes}[{d}])")
    return lines


@lowers("dynamic_slice", ("operand", "start_indices", "slice_sizes"), reference=lax.dynamic_slice)
def _dynamic_slice(operand, start_indices, slice_sizes):
    """lax.dynamic_slice: the starts clamped into range, then a slice (a view)."""
    if not is_array(operand) or dtype_of(operand) is None:
        return None
    ndim = operand.ndim
    if not (_starts_tuple(start_indices, ndim) and _starts_tuple(slice_sizes, ndim)):
        return None
    index = ", ".join(f"s{d}:s{d} + slice_sizes[{d}]" for d in range(ndim))
    return _impl(("operand", "start_indices", "slice_sizes"),
                 _clamped("operand", "slice_sizes", ndim) + [f"return operand[{index}]"])


@lowers("dynamic_slice_adjoint", ("g", "operand", "start_indices"), reference=helpers.dynamic_slice_adjoint)
def _dynamic_slice_adjoint(g, operand, start_indices):
    """dynamic_slice_adjoint: g placed at the clamped starts in zeros shaped like operand."""
    if not (is_array(g) and _value(operand)) or dtype_of(g) is None or g.ndim != _ndim(operand):
        return None
    ndim = g.ndim
    if not _starts_tuple(start_indices, ndim):
        return None
    index = ", ".join(f"s{d}:s{d} + g.shape[{d}]" for d in range(ndim))
    return _impl(("g", "operand", "start_indices"),
                 ["out = np.zeros(operand.shape, dtype)"] + _clamped("operand", "g.shape", ndim) +
                 [f"part = out[{index}]", "part += g", "return out"], dtype=dtype_of(g).type)


# ------------------------------------------------------------------ pad
def _pad_widths(t, ndim):
    """Source expressions (before, after) per axis for a pad_width type; None when not supported."""
    if isinstance(types.unliteral(t), types.Integer):
        return [("pad_width", "pad_width")] * ndim
    if not isinstance(t, types.BaseTuple):
        return None
    elements = t.types
    if all(isinstance(types.unliteral(e), types.Integer) for e in elements):
        if len(elements) == 1:
            return [("pad_width[0]", "pad_width[0]")] * ndim
        if len(elements) == 2:
            return [("pad_width[0]", "pad_width[1]")] * ndim
        return None
    if all(isinstance(e, types.BaseTuple) and len(e.types) in (1, 2) and
           all(isinstance(types.unliteral(x), types.Integer) for x in e.types) for e in elements):
        if len(elements) not in (1, ndim):
            return None
        widths = []
        for d in range(ndim):
            k = 0 if len(elements) == 1 else d
            last = len(elements[k].types) - 1
            widths.append((f"pad_width[{k}][0]", f"pad_width[{k}][{last}]"))
        return widths
    return None


def _axis_index(ndim, d, part):
    return ", ".join(part if k == d else ":" for k in range(ndim))


@lowers("pad", ("array", "pad_width", "mode", "constant_values"), reference=jnp.pad, prefer_literal=True)
def _pad(array, pad_width, mode, constant_values):
    """pad with mode "constant" (a scalar constant_values, zeros by default) or "edge" (each axis in turn
    copies its edge outward)."""
    if literal_value(constant_values, None) != 0 and not isinstance(types.unliteral(constant_values),
                                                                   (types.Integer, types.Float)):
        return None
    return _padded(array, pad_width, mode, "array", constant=True)


@lowers("pad_tangent", ("t", "pad_width", "mode"), reference=helpers.pad_tangent, prefer_literal=True)
def _pad_tangent(t, pad_width, mode):
    """pad_tangent: the tangent padded as pad pads the array (constant and edge are linear in it)."""
    return _padded(t, pad_width, mode, "t")


def _is_number(t):
    return isinstance(types.unliteral(t), (types.Integer, types.Float)) or (is_array(t) and t.ndim == 0)


@lowers("pad_constant_tangent", ("t", "array", "pad_width"), reference=helpers.pad_constant_tangent,
        prefer_literal=True)
def _pad_constant_tangent(t, array, pad_width):
    """pad_constant_tangent for one constant: `t` in every padded cell, zero inside."""
    if not _is_number(t) or not is_array(array) or array.ndim == 0:
        return None
    widths = _pad_widths(pad_width, array.ndim)
    if widths is None:
        return None
    ndim = array.ndim
    shape = ", ".join(f"{b} + array.shape[{d}] + {a}" for d, (b, a) in enumerate(widths))
    inner = ", ".join(f"{b}:{b} + array.shape[{d}]" for d, (b, _) in enumerate(widths))
    value = "t[()]" if is_array(t) else "t"
    t_dtype = dtype_of(t) if is_array(t) else np.dtype(np.float64 if isinstance(types.unliteral(t), types.Float)
                                                      else np.int64)
    dtype = np.result_type(t_dtype, np.float32)
    lines = [f"out = np.full(({shape},), dtype({value}))", f"out[{inner}] = 0"]
    del ndim
    return _impl(("t", "array", "pad_width"), lines + ["return out"], dtype=dtype.type)


@lowers("pad_constant_adjoint", ("g", "array", "pad_width", "constant_values"),
        reference=helpers.pad_constant_adjoint, prefer_literal=True)
def _pad_constant_adjoint(g, array, pad_width, constant_values):
    """pad_constant_adjoint for one constant: the sum of `g` over the padded cells."""
    if not is_array(g) or not _is_number(constant_values) or not is_array(array) or array.ndim != g.ndim:
        return None
    widths = _pad_widths(pad_width, array.ndim)
    if widths is None:
        return None
    inner = ", ".join(f"{b}:{b} + array.shape[{d}]" for d, (b, _) in enumerate(widths))
    dtype = np.result_type(dtype_of(g), np.float32)
    lines = [f"return dtype(np.sum(g) - np.sum(g[{inner}]))"]
    return _impl(("g", "array", "pad_width", "constant_values"), lines, dtype=dtype.type)


def _padded(array, pad_width, mode, parameter, constant=False):
    """The implementation padding the operand named `parameter` (pad's `array`, pad_tangent's `t`); with
    `constant`, pad's own `constant_values` parameter fills the padding."""
    mode_value = literal_value(mode)
    if not is_array(array) or dtype_of(array) is None or mode_value not in ("constant", "edge"):
        return None
    ndim = array.ndim
    widths = _pad_widths(pad_width, ndim)
    if widths is None or ndim == 0:
        return None
    lines = []
    for d, (before, after) in enumerate(widths):
        lines += [f"b{d} = {before}", f"a{d} = {after}", f"n{d} = array.shape[{d}]",
                  f"if b{d} < 0 or a{d} < 0:", "    raise ValueError('index can\\'t contain negative values')"]
    shape = ", ".join(f"b{d} + n{d} + a{d}" for d in range(ndim))
    inner = ", ".join(f"b{d}:b{d} + n{d}" for d in range(ndim))
    lines += [f"out = np.zeros(({shape},), dtype)"]
    if constant and mode_value == "constant":
        lines += ["out[...] = dtype(constant_values)"]
    lines += [f"L.fill_broadcast(out[{inner}], array)"]
    if mode_value == "edge":
        for d in range(ndim):
            lines += [f"if n{d} > 0:",
                      f"    for j in range(b{d}):",
                      f"        out[{_axis_index(ndim, d, 'j')}] = out[{_axis_index(ndim, d, f'b{d}')}]",
                      f"    for j in range(b{d} + n{d}, b{d} + n{d} + a{d}):",
                      f"        out[{_axis_index(ndim, d, 'j')}] = out[{_axis_index(ndim, d, f'b{d} + n{d} - 1')}]"]
    lines.append("return out")
    if parameter != "array":
        lines.insert(0, f"array = {parameter}")
    params = (parameter, "pad_width", "mode") + (("constant_values",) if constant else ())
    return _impl(params, lines, dtype=dtype_of(array).type)


@lowers("pad_adjoint", ("g", "pad_width", "mode"), reference=helpers.pad_adjoint, prefer_literal=True)
def _pad_adjoint(g, pad_width, mode):
    """pad_adjoint: crop g; with mode "edge" the padded cells are first added back onto the edge they copied."""
    mode_value = literal_value(mode)
    if not is_array(g) or dtype_of(g) is None or mode_value not in ("constant", "edge") or g.ndim == 0:
        return None
    ndim = g.ndim
    widths = _pad_widths(pad_width, ndim)
    if widths is None:
        return None
    lines = ["cur = g.copy()"]
    for d, (before, after) in enumerate(widths):
        lines += [f"b = {before}", f"a = {after}", f"n = cur.shape[{d}] - b - a",
                  f"inner = cur[{_axis_index(ndim, d, 'b:b + n')}].copy()"]
        if mode_value == "edge":
            lines += ["if n > 0:",
                      "    for j in range(b):",
                      f"        part = inner[{_axis_index(ndim, d, '0')}]" if ndim > 1 else "        pass",
                      f"        part += cur[{_axis_index(ndim, d, 'j')}]" if ndim > 1 else "        inner[0] += cur[j]",
                      "    for j in range(b + n, b + n + a):",
                      f"        part = inner[{_axis_index(ndim, d, 'n - 1')}]" if ndim > 1 else "        pass",
                      f"        part += cur[{_axis_index(ndim, d, 'j')}]" if ndim > 1 else "        inner[n - 1] += cur[j]"]
        lines.append("cur = inner")
    lines.append("return cur")
    return _impl(("g", "pad_width", "mode"), lines)


# ------------------------------------------------------------------ gathers
def _fill_value(dtype):
    if dtype.kind == "f":
        return np.nan
    if dtype.kind == "b":
        return True
    return np.iinfo(dtype).min if dtype.kind == "i" else np.iinfo(dtype).max


_MISSING_MODE = object()     # a mode that is not a literal: the lowering declines
_TAKE_PARAMS = ("a", "indices", "axis", "out", "mode", "unique_indices", "indices_are_sorted", "fill_value")
_FILL_MODES = (None, "fill", "promise_in_bounds")


def _take_position_lines(mode, index, n, target):
    """Lines setting `target` to where index `index` reads along an axis of length `n` (-1: out of range)."""
    if mode == "wrap":
        return [f"{target} = {index} % {n}"]
    if mode == "clip":
        return [f"{target} = min(max({index}, 0), {n} - 1)"]
    return [f"{target} = ({index} if {index} >= 0 else {index} + {n}) if -{n} <= {index} < {n} else -1"]


@lowers("take", _TAKE_PARAMS, reference=jnp.take, prefer_literal=True)
def _take(a, indices, axis, out, mode, unique_indices, indices_are_sorted, fill_value):
    """take: mode "wrap"/"clip" as NumPy; otherwise an index out of range gives the fill value (NaN for
    floats unless `fill_value` says), as JAX's default mode "fill"."""
    mode_value = literal_value(mode, _MISSING_MODE)
    if not is_array(a) or dtype_of(a) is None or not is_none(out) or mode_value not in _FILL_MODES + ("wrap", "clip"):
        return None
    if not is_none(fill_value) and not isinstance(types.unliteral(fill_value), (types.Integer, types.Float, types.Boolean)):
        return None
    index_scalar = isinstance(types.unliteral(indices), types.Integer)
    if not index_scalar and not (is_array(indices) and dtype_of(indices) is not None and
                                 dtype_of(indices).kind in "iu"):
        return None
    dtype = dtype_of(a)
    if is_none(axis):
        ax, src = 0, "np.ascontiguousarray(a).reshape(-1)"
        rest_dims = []
        ndim = 1
    else:
        axes = static_axes(axis, a.ndim)
        if axes is None or len(axes) != 1:
            return None
        ax, ndim = axes[0], a.ndim
        perm = (ax,) + tuple(d for d in range(ndim) if d != ax)
        src = f"np.ascontiguousarray(np.transpose(a, {perm!r}))" if ax else "np.ascontiguousarray(a)"
        rest_dims = [f"a.shape[{d}]" for d in range(ndim) if d != ax]
    index_ndim = 0 if index_scalar else indices.ndim
    lines = [f"moved = {src}", "n = moved.shape[0]", "rows = moved.reshape((n, -1))",
             "flat_idx = np.array(indices).reshape(-1)" if index_scalar else "flat_idx = indices.reshape(-1)",
             "out = np.empty((flat_idx.size, rows.shape[1]), dtype)",
             "fill = default_fill" if is_none(fill_value) else "fill = dtype(fill_value)",
             "for i in range(flat_idx.size):",
             *["    " + line for line in _take_position_lines(mode_value, "flat_idx[i]", "n", "k")],
             "    if k >= 0:",
             "        out[i] = rows[k]",
             "    else:",
             "        out[i] = fill"]
    env = dict(dtype=dtype.type, default_fill=dtype.type(_fill_value(dtype)))
    idx_dims = [f"indices.shape[{d}]" for d in range(index_ndim)]
    shaped = "(" + "".join(f"{s}, " for s in idx_dims + rest_dims) + ")"
    if not idx_dims and not rest_dims:
        lines.append("return out[0, 0]")
        return _impl(_TAKE_PARAMS, lines, **env)
    lines.append(f"result = out.reshape({shaped})")
    if ax and index_ndim != 1 or (ax and index_ndim == 1):
        # indices' dims go where the axis was: move them back from the front.
        total = index_ndim + len(rest_dims)
        order = list(range(index_ndim, index_ndim + ax)) + list(range(index_ndim)) + \
            list(range(index_ndim + ax, total))
        lines.append(f"return np.transpose(result, {tuple(order)!r})")
    else:
        lines.append("return result")
    return _impl(_TAKE_PARAMS, lines, **env)


@lowers("take_adjoint", ("g", "a", "indices", "axis", "mode"), reference=helpers.take_adjoint, prefer_literal=True)
def _take_adjoint(g, a, indices, axis, mode):
    """take_adjoint: g added back at the indices (repeats add up) into zeros shaped like a; under mode
    "fill" an index out of range read a constant and adds nothing."""
    mode_value = literal_value(mode, _MISSING_MODE)
    if not _value(g) or not is_array(a) or not (is_array(indices) and dtype_of(indices).kind in "iu") or \
            mode_value not in _FILL_MODES + ("wrap", "clip"):
        return None
    dtype = _float_of(dtype_of(g))
    g_read = "np.ascontiguousarray(g)" if is_array(g) else "np.array(g)"
    if is_none(axis):
        lines = ["out = np.zeros(a.size, dtype)", f"flat_g = {g_read}.reshape(-1)", "flat_idx = indices.reshape(-1)",
                 "n = a.size",
                 "for i in range(flat_idx.size):",
                 *["    " + line for line in _take_position_lines(mode_value, "flat_idx[i]", "n", "k")],
                 "    if k >= 0:",
                 "        out[k] += flat_g[i]",
                 "return out.reshape(a.shape)"]
        return _impl(("g", "a", "indices", "axis", "mode"), lines, dtype=dtype)
    axes = static_axes(axis, a.ndim)
    if axes is None or len(axes) != 1 or not is_array(g):
        return None
    ax, ndim = axes[0], a.ndim
    perm = (ax,) + tuple(d for d in range(ndim) if d != ax)
    inverse = tuple(int(i) for i in np.argsort(perm))
    k = indices.ndim
    # g's dims: a's dims before ax, then indices' dims, then a's dims after ax; bring indices' dims first.
    g_order = tuple(range(ax, ax + k)) + tuple(range(ax)) + tuple(range(ax + k, g.ndim))
    moved_shape = ", ".join(f"a.shape[{d}]" for d in perm)
    lines = [f"moved = np.zeros(({moved_shape},), dtype)", "n = moved.shape[0]", "rows = moved.reshape((n, -1))",
             f"grows = np.ascontiguousarray(np.transpose(g, {g_order!r})).reshape((indices.size, -1))",
             "flat_idx = indices.reshape(-1)",
             "for i in range(flat_idx.size):",
             *["    " + line for line in _take_position_lines(mode_value, "flat_idx[i]", "n", "j")],
             "    if j >= 0:",
             "        rows[j] += grows[i]",
             f"return np.transpose(moved, {inverse!r})" if ax else "return moved"]
    return _impl(("g", "a", "indices", "axis", "mode"), lines, dtype=dtype)


# ------------------------------------------------------------------ summing and spreading adjoints back
def _sum_into_lines(g_ndim, x_ndim, x_shape):
    """Lines adding every element of g into `out` (shaped like x) at g's index with broadcast axes at 0.

    An axis where g has length 1 and x does not is first broadcast up: jit stands for a zero adjoint
    that has not reached anything yet (the reference's scalar 0.0) by zeros of shape (1, ..., 1).
    """
    extra = g_ndim - x_ndim
    full = ", ".join([f"g.shape[{d}]" for d in range(extra)]
                     + [f"max(g.shape[{extra + k}], {x_shape}[{k}]) if g.shape[{extra + k}] == 1 else g.shape[{extra + k}]"
                        for k in range(x_ndim)])
    lines = ["g = np.ascontiguousarray(g)",
             "if " + " or ".join(f"(g.shape[{extra + k}] == 1 and {x_shape}[{k}] != 1)" for k in range(x_ndim)) + ":",
             f"    up = np.empty(({full},), g.dtype)",
             "    L.fill_broadcast(up, g)",
             "    g = up"] if x_ndim else []
    for k in range(x_ndim):
        lines += [f"if {x_shape}[{k}] != 1 and {x_shape}[{k}] != g.shape[{extra + k}]:",
                  "    raise ValueError('unbroadcast: the shapes do not broadcast')",
                  f"e{k} = 0 if {x_shape}[{k}] == 1 else 1"]
    indent = ""
    for d in range(g_ndim):
        lines.append(f"{indent}for i{d} in range(g.shape[{d}]):")
        indent += "    "
    target = ", ".join(f"i{extra + k} * e{k}" for k in range(x_ndim))
    source = ", ".join(f"i{d}" for d in range(g_ndim))
    lines.append(f"{indent}out[{target}] += g[{source}]")
    return lines


def _unbroadcast_impl(params, g, x_ndim, x_shape):
    """g summed over the axes it was broadcast along, shaped `x_shape` (a source expression of rank x_ndim)."""
    if not _value(g):
        return None
    dtype = dtype_of(g).type
    if not is_array(g) or g.ndim == 0:
        if x_ndim == 0:
            return _impl(params, ["return g" if not is_array(g) else "return g[()]"])
        return _impl(params, [f"return np.full({x_shape}, g, dtype)"], dtype=dtype)
    if x_ndim == 0:
        return _impl(params, ["return L.sum(g, None, None, None, False, None, None)"])
    if g.ndim < x_ndim:
        return _impl(params, [f"out = np.empty({x_shape}, dtype)", "L.fill_broadcast(out, g)", "return out"], dtype=dtype)
    lines = []
    if g.ndim == x_ndim:
        lines += [f"if g.shape == {x_shape}:", "    return np.ascontiguousarray(g)"]   # g itself, as the reference returns
    lines += [f"out = np.zeros({x_shape}, dtype)"] + _sum_into_lines(g.ndim, x_ndim, x_shape) + ["return out"]
    return _impl(params, lines, dtype=dtype)


@lowers("unbroadcast", ("g", "x"), reference=helpers.unbroadcast)
def _unbroadcast(g, x):
    """unbroadcast: g summed back to x's shape (g's dtype; a float64 scalar g is an np.float64)."""
    if not _value(x):
        return None
    return _unbroadcast_impl(("g", "x"), g, _ndim(x), "x.shape" if is_array(x) else "()")


@lowers("unbroadcast_to", ("g", "shape"), reference=helpers.unbroadcast_to)
def _unbroadcast_to(g, shape):
    """unbroadcast_to: unbroadcast to a shape tuple."""
    if not isinstance(shape, types.BaseTuple) or \
            not all(isinstance(types.unliteral(e), types.Integer) for e in shape.types):
        return None
    return _unbroadcast_impl(("g", "shape"), g, len(shape.types), "shape")


@lowers("unreduce", ("g", "x", "axis", "keepdims", "where"), reference=helpers.unreduce, prefer_literal=True)
def _unreduce(g, x, axis, keepdims, where):
    """unreduce: g (the result of reducing x over the literal axis) spread back to x's shape, materialized."""
    if not (_value(g) and _value(x)) or not is_none(where):
        return None
    keep = literal_value(keepdims)
    if not isinstance(keep, bool):
        return None
    ndim = _ndim(x)
    dtype = dtype_of(g).type
    params = ("g", "x", "axis", "keepdims", "where")
    if ndim == 0:
        return _impl(params, ["return dtype(g)" if not is_array(g) else "return g[()]"], dtype=dtype)
    axes = static_axes(axis, ndim)
    if axes is None:
        return None
    if not is_array(g) or g.ndim == 0:
        value = "g[()]" if is_array(g) else "g"
        return _impl(params, [f"return np.full(x.shape, {value}, dtype)"], dtype=dtype)
    if not keep and not is_none(axis):
        shape = "(" + "".join(("1, " if d in axes else f"x.shape[{d}], ") for d in range(ndim)) + ")"
        lines = [f"spread = np.ascontiguousarray(g).reshape({shape})"]
    else:
        lines = ["spread = g"]
    lines += ["out = np.empty(x.shape, dtype)", "L.fill_broadcast(out, spread)", "return out"]
    return _impl(params, lines, dtype=dtype)


@lowers("extremum_mask", ("a", "y", "axis", "keepdims"), reference=helpers.extremum_mask, prefer_literal=True)
def _extremum_mask(a, y, axis, keepdims):
    """extremum_mask: 1/count where a attains its max/min y along the literal axis, else 0."""
    if not (is_array(a) and _value(y)) or dtype_of(a).kind != "f":
        return None
    if result_shape_dtype(helpers.extremum_mask, a, y, axis, keepdims) is None:
        return None
    return _impl(("a", "y", "axis", "keepdims"), [
        "spread = L.unreduce(y, a, axis, keepdims, None)",
        "hit = L.astype(L.equal(a, spread), dtype)",
        "count = L.sum(hit, axis, None, None, True, None, None)",
        "return L.divide(hit, L.maximum(count, 1))"], dtype=dtype_of(a).type)


@lowers("lone_zero", ("a", "axis", "keepdims"), reference=helpers.lone_zero, prefer_literal=True)
def _lone_zero(a, axis, keepdims):
    """lone_zero: 1 where a slice along the literal axis holds exactly one zero, else 0 (a's float dtype)."""
    if not is_array(a) or dtype_of(a).kind != "f":
        return None
    if result_shape_dtype(helpers.lone_zero, a, axis, keepdims) is None:
        return None
    return _impl(("a", "axis", "keepdims"), [
        "zeros = L.astype(L.equal(a, dtype(0)), dtype)",
        "count = L.sum(zeros, axis, None, None, keepdims, None, None)",
        "return L.astype(L.equal(count, dtype(1)), dtype)"], dtype=dtype_of(a).type)


@lowers("lone_zero_derivative", ("t", "a", "axis", "keepdims", "like"), reference=helpers.lone_zero_derivative,
        prefer_literal=True)
def _lone_zero_derivative(t, a, axis, keepdims, like):
    """lone_zero_derivative: zeros shaped like `like` (lone_zero is piecewise constant), refusing, as the
    reference does, where a slice of `a` along the literal axis holds two or more zeros (prod's second
    derivative is not exact there): the reference's RuntimeRefusal, with its message."""
    from ..errors import RuntimeRefusal
    if not (is_array(a) and _value(t) and _value(like)) or dtype_of(a).kind != "f":
        return None
    if static_axes(axis, a.ndim) is None:
        return None
    dtype = np.result_type(dtype_of(like), dtype_of(t)).type
    zeros = "np.zeros(like.shape, dtype)" if is_array(like) else "dtype(0)"
    return _impl(("t", "a", "axis", "keepdims", "like"), [
        "count = L.sum(L.astype(L.equal(a, a.dtype.type(0)), np.int64), axis, None, None, False, None, None)",
        "if np.any(np.asarray(count) >= 2):",
        "    raise RuntimeRefusal(message)",
        f"return {zeros}"], dtype=dtype, message=helpers.PROD_AT_ZEROS, RuntimeRefusal=RuntimeRefusal)


@lowers("zero_like", ("x",), reference=helpers.zero_like)
def _zero_like(x):
    """zero_like: zeros shaped like x in its float dtype (a tuple: one zero per item, numba_list_adjoints;
    a list or tape is declined)."""
    if isinstance(x, types.BaseTuple):
        from .numba_list_adjoints import tuple_zero_like
        return tuple_zero_like(x)
    if not _value(x):
        return None
    dtype = _float_of(dtype_of(x))
    if not is_array(x):
        return _impl(("x",), ["return dtype(0)"], dtype=dtype)
    return _impl(("x",), ["return np.zeros(x.shape, dtype)"], dtype=dtype)


def _zeros_shaped_reference(shape, like):
    return helpers.zeros_shaped(shape, like)


@lowers("zeros_shaped", ("shape", "like"), reference=_zeros_shaped_reference)
def _zeros_shaped(shape, like):
    """zeros_shaped: zeros of a saved shape in like's float dtype (float32 unless like is an array)."""
    if not isinstance(shape, types.BaseTuple):
        return None
    dtype = _float_of(dtype_of(like)) if is_array(like) and dtype_of(like) is not None else np.float32
    return _impl(("shape", "like"), ["return np.zeros(shape, dtype)"], dtype=dtype)


@lowers("cast_adjoint", ("g", "like"), reference=helpers.cast_adjoint)
def _cast_adjoint(g, like):
    """cast_adjoint: g when the cast's result is a float, zeros (g's float dtype) when it is int or bool."""
    if not (_value(g) and _value(like)):
        return None
    if dtype_of(like).kind == "f":
        return _impl(("g", "like"), ["return g"])
    dtype = _float_of(dtype_of(g))
    if is_array(g):
        return _impl(("g", "like"), ["return np.zeros(g.shape, dtype)"], dtype=dtype)
    return _impl(("g", "like"), ["return dtype(0)"], dtype=dtype)


def _dtype_adjoint_reference(g, dtype):
    from ..rules.casts import dtype_adjoint
    return dtype_adjoint(g, dtype)


@lowers("dtype_adjoint", ("g", "dtype"), reference=_dtype_adjoint_reference)
def _dtype_adjoint(g, dtype):
    """dtype_adjoint: g when `dtype` (a NumPy scalar type, or None) is a float, zeros (g's float dtype) when it
    names an integer or boolean type (astype(x, dtype)'s adjoint; jit folds piecewise's dtypes to `np.<dtype>`)."""
    if not _value(g):
        return None
    if is_none(dtype):
        return _impl(("g", "dtype"), ["return g"])
    if not isinstance(dtype, types.NumberClass) or dtype_of(dtype.instance_type) is None:
        return None
    if dtype_of(dtype.instance_type).kind in "fc":
        return _impl(("g", "dtype"), ["return g"])
    zero = _float_of(dtype_of(g))
    if is_array(g):
        return _impl(("g", "dtype"), ["return np.zeros(g.shape, zero)"], zero=zero)
    return _impl(("g", "dtype"), ["return zero(0)"], zero=zero)


@lowers("broadcast_like", ("t", "operands"), reference=lambda t, operands: helpers.broadcast_like(t, *operands))
def _broadcast_like(t, operands):
    """broadcast_like: t broadcast to the shape its operands (a tuple) broadcast to, materialized (the
    adjoint of a tuple, one per item, is itself: nothing is broadcast, as in the reference)."""
    if isinstance(operands, types.BaseTuple) and (isinstance(t, types.BaseTuple) or any(
            isinstance(o, types.BaseTuple) for o in operands.types)):
        return _impl(("t", "operands"), ["return t"])
    if not _value(t) or not isinstance(operands, types.BaseTuple) or not all(_value(o) for o in operands.types):
        return None
    shapes = [f"operands[{k}].shape" for k, o in enumerate(operands.types) if is_array(o)]
    out_ndim = max([o.ndim for o in operands.types if is_array(o)] + [0])
    dtype = dtype_of(t).type
    if out_ndim == 0:
        return _impl(("t", "operands"), ["return t" if not is_array(t) else "return t[()]"])
    if _ndim(t) > out_ndim:
        return None
    shape = shapes[0] if len(shapes) == 1 else f"np.broadcast_shapes({', '.join(shapes)})"
    lines = [f"shape = {shape}"]
    if is_array(t) and t.ndim == out_ndim and t.layout == "C":     # already that shape (a gradient): as it is
        lines += ["if t.shape == shape:", "    return t"]
    return _impl(("t", "operands"), lines + ["out = np.empty(shape, dtype)", "L.fill_broadcast(out, t)", "return out"],
                 dtype=dtype)


@lowers("reduced_size", ("x", "axis", "ddof", "correction", "where"), reference=helpers.reduced_size,
        prefer_literal=True)
def _reduced_size(x, axis, ddof, correction, where):
    """reduced_size: how many elements a reduction over the literal axis combines, less ddof (an int)."""
    if not _value(x) or not is_none(where):
        return None
    ndim = _ndim(x)
    axes = static_axes(axis, ndim) if ndim else (() if is_none(axis) else None)
    if axes is None:
        return None
    count = " * ".join(f"x.shape[{d}]" for d in axes) or "1"
    less = "ddof" if is_none(correction) else "correction"
    return _impl(("x", "axis", "ddof", "correction", "where"), [f"return {count} - {less}"])


@lowers("invert_permutation", ("axes", "ndim"), reference=helpers.invert_permutation, prefer_literal=True)
def _invert_permutation(axes, ndim):
    """invert_permutation of literal axes: a constant tuple (None stays None)."""
    if is_none(axes):
        return _impl(("axes", "ndim"), ["return None"])
    value = literal_value(axes)
    if not isinstance(value, tuple):
        return None
    inverse = helpers.invert_permutation(value)
    return _impl(("axes", "ndim"), [f"return {inverse!r}"])


# ------------------------------------------------------------------ stack and concatenate
def _sequence(t):
    return isinstance(t, types.BaseTuple) and len(t.types) > 0 and all(_value(e) for e in t.types)


def _stack_reference(arrays, axis=0):
    return jnp.stack(list(arrays), axis)


def _concatenate_reference(arrays, axis=0):
    return jnp.concatenate(list(arrays), axis)


@lowers("stack", ("arrays", "axis"), reference=_stack_reference, prefer_literal=True)
def _stack(arrays, axis):
    """stack a tuple of arrays of one shape along a literal axis, in the reference's dtype."""
    if not _sequence(arrays):
        return None
    ndims = {_ndim(e) for e in arrays.types}
    if len(ndims) != 1:
        return None
    ndim = ndims.pop()
    found = result_shape_dtype(_stack_reference, arrays, axis)
    axes = static_axes(axis, ndim + 1)
    if found is None or axes is None:
        return None
    ax = axes[0]
    dtype = found[1].type
    count = len(arrays.types)
    first = "arrays[0].shape" if ndim else "()"
    dims = [f"{first}[{d}]" for d in range(ndim)]
    dims.insert(ax, str(count))
    lines = [f"out = np.empty(({', '.join(dims)},), dtype)"]
    for k, e in enumerate(arrays.types):
        index = ", ".join([":"] * ax + [str(k)] + [":"] * (ndim - ax))
        if ndim:
            lines += [f"if arrays[{k}].shape != arrays[0].shape:",
                      "    raise ValueError('all input arrays must have the same shape')",
                      f"L.fill_broadcast(out[{index}], arrays[{k}])"]
        else:
            lines.append(f"out[{k}] = dtype({'arrays[%d][()]' % k if is_array(e) else 'arrays[%d]' % k})")
    lines.append("return out")
    return _impl(("arrays", "axis"), lines, dtype=dtype)


@lowers("concatenate", ("arrays", "axis"), reference=_concatenate_reference, prefer_literal=True)
def _concatenate(arrays, axis):
    """concatenate a tuple of arrays along a literal axis, in the reference's dtype."""
    if not _sequence(arrays) or not all(is_array(e) and e.ndim > 0 for e in arrays.types):
        return None
    ndims = {e.ndim for e in arrays.types}
    if len(ndims) != 1:
        return None
    ndim = ndims.pop()
    found = result_shape_dtype(_concatenate_reference, arrays, axis)
    axes = static_axes(axis, ndim)
    if found is None or axes is None:
        return None
    ax = axes[0]
    total = " + ".join(f"arrays[{k}].shape[{ax}]" for k in range(len(arrays.types)))
    dims = [f"arrays[0].shape[{d}]" if d != ax else f"({total})" for d in range(ndim)]
    lines = [f"out = np.empty(({', '.join(dims)},), dtype)", "start = 0"]
    for k in range(len(arrays.types)):
        for d in range(ndim):
            if d != ax:
                lines += [f"if arrays[{k}].shape[{d}] != arrays[0].shape[{d}]:",
                          "    raise ValueError('all the input array dimensions except for the concatenation axis "
                          "must match exactly')"]
        index = ", ".join(f"start:start + arrays[{k}].shape[{ax}]" if d == ax else ":" for d in range(ndim))
        lines += [f"L.fill_broadcast(out[{index}], arrays[{k}])", f"start += arrays[{k}].shape[{ax}]"]
    lines.append("return out")
    return _impl(("arrays", "axis"), lines, dtype=found[1].type)


def _axis_of(axis, ndim):
    axes = static_axes(axis, ndim)
    return None if axes is None or len(axes) != 1 else axes[0]


@lowers("stack_part", ("g", "k", "axis"), reference=helpers.stack_part, prefer_literal=True)
def _stack_part(g, k, axis):
    """stack_part: the k-th slice of stack's adjoint along the literal axis."""
    if not is_array(g) or not isinstance(types.unliteral(k), types.Integer):
        return None
    ax = _axis_of(axis, g.ndim)
    if ax is None:
        return None
    index = ", ".join([":"] * ax + ["k"] + [":"] * (g.ndim - ax - 1))
    return _impl(("g", "k", "axis"), [f"return g[{index}]" if g.ndim > 1 else "return g[k]"])


@lowers("stack_part_adjoint", ("p", "g", "k", "axis"), reference=helpers.stack_part_adjoint, prefer_literal=True)
def _stack_part_adjoint(p, g, k, axis):
    """stack_part_adjoint: p at position k of zeros shaped like g."""
    if not (_value(p) and is_array(g)) or not isinstance(types.unliteral(k), types.Integer):
        return None
    ax = _axis_of(axis, g.ndim)
    if ax is None:
        return None
    index = ", ".join([":"] * ax + ["k"] + [":"] * (g.ndim - ax - 1))
    place = f"L.fill_broadcast(out[{index}], p)" if g.ndim > 1 else f"out[{index}] = p"
    return _impl(("p", "g", "k", "axis"), ["out = np.zeros(g.shape, dtype)", place, "return out"],
                 dtype=_float_of(dtype_of(p)))


def _part_bounds(arrays, ax):
    """Lines computing `start` and `size` of input k's rows along axis ax (scalars count 1)."""
    sizes = ", ".join((f"arrays[{i}].shape[{ax}]" if is_array(e) and e.ndim else "1")
                      for i, e in enumerate(arrays.types))
    return [f"sizes = ({sizes},)", "start = 0", "for i in range(k):", "    start += sizes[i]", "size = sizes[k]"]


@lowers("concatenate_part", ("g", "arrays", "k", "axis"), reference=helpers.concatenate_part, prefer_literal=True)
def _concatenate_part(g, arrays, k, axis):
    """concatenate_part: input k's rows of concatenate's adjoint."""
    if not is_array(g) or not _sequence(arrays) or not isinstance(types.unliteral(k), types.Integer):
        return None
    ax = _axis_of(axis, g.ndim)
    if ax is None:
        return None
    index = ", ".join("start:start + size" if d == ax else ":" for d in range(g.ndim))
    return _impl(("g", "arrays", "k", "axis"), _part_bounds(arrays, ax) + [f"return g[{index}].copy()"])


@lowers("concatenate_part_adjoint", ("p", "g", "arrays", "k", "axis"), reference=helpers.concatenate_part_adjoint,
        prefer_literal=True)
def _concatenate_part_adjoint(p, g, arrays, k, axis):
    """concatenate_part_adjoint: p at input k's rows of zeros shaped like g."""
    if not (_value(p) and is_array(g)) or not _sequence(arrays) or not isinstance(types.unliteral(k), types.Integer):
        return None
    ax = _axis_of(axis, g.ndim)
    if ax is None:
        return None
    index = ", ".join("start:start + size" if d == ax else ":" for d in range(g.ndim))
    return _impl(("p", "g", "arrays", "k", "axis"), ["out = np.zeros(g.shape, dtype)"] + _part_bounds(arrays, ax) +
                 [f"L.fill_broadcast(out[{index}], p)", "return out"], dtype=_float_of(dtype_of(p)))
