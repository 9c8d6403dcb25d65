"""Numba lowerings of shapes, creation, reshaping, indexing and the adjoint helpers that move values.

Static facts (axes, the rank of a shape, the kind of an index) must be known
when Numba types the call: literals, or tuples whose length is part of their
type. Results that NumPy returns as views may be views here too (astjax arrays
are never written in place); broadcast results are materialized, never
zero-stride views that a later write could spread.
"""
import numpy as np
from numba import types

from .. import numpy as jnp
from ..rules import helpers
from .numba_build import L as _L, build, lowers
from .numba_reductions import static_axes
from .numba_typing import agreed, dtype_of, is_array, is_none, is_scalar, literal_value, result_shape_dtype

ENV = {"np": np, "L": _L}


def _value(t):
    return (is_array(t) or is_scalar(t)) and dtype_of(t) is not None


def _ndim(t):
    return t.ndim if is_array(t) else 0


def _impl(params, body, **env):
    """An implementation from its body lines (indented by the caller's four spaces)."""
    source = f"def impl({', '.join(params)}):\n" + "\n".join("    " + line for line in body) + "\n"
    return build(source, ENV | env)


def _shape_rank(t):
    """The rank of a shape argument: an int (1) or a tuple of ints (its length); None otherwise."""
    if isinstance(types.unliteral(t), types.Integer):
        return 1
    if isinstance(t, types.BaseTuple) and all(isinstance(types.unliteral(e), types.Integer) for e in t.types):
        return len(t.types)
    return None


def _as_array(name, t):
    """Source reading the value `name` as an array (a scalar becomes 0-d)."""
    return name if is_array(t) else f"np.array({name})"


def _scalar_or(name, rank):
    """Source returning `name`, a scalar when its rank is 0."""
    return f"return {name}[()]" if rank == 0 else f"return {name}"


# ------------------------------------------------------------------ shape queries
@lowers("shape", ("a",), reference=jnp.shape)
def _shape(a):
    """shape: the shape tuple (() for a scalar)."""
    if is_array(a):
        return _impl(("a",), ["return a.shape"])
    if _value(a):
        return _impl(("a",), ["return ()"])
    return None


@lowers("ndim", ("a",), reference=jnp.ndim)
def _ndim_lowering(a):
    """ndim: the rank, an int."""
    if _value(a):
        return _impl(("a",), [f"return {_ndim(a)}"])
    return None


@lowers("size", ("a", "axis"), reference=jnp.size, prefer_literal=True)
def _size(a, axis):
    """size: the number of elements, or the length of a literal axis."""
    if not _value(a):
        return None
    if is_none(axis):
        return _impl(("a", "axis"), ["return a.size" if is_array(a) else "return 1"])
    axes = static_axes(axis, _ndim(a))
    if axes is None or len(axes) != 1:
        return None
    return _impl(("a", "axis"), [f"return a.shape[{axes[0]}]"])


@lowers("fill_broadcast", ("out", "src"))
def _fill_broadcast(out, src):
    """fill_broadcast: `out[...] = src`, src broadcast to out's shape, as a loop nest.

    Numba's own slice assignment compiles, the first time in a process, an error path that
    formats both shapes into its message: several seconds of every cold jit compile. The
    lowerings fill arrays through this instead.
    """
    if not is_array(out):
        return None
    n = out.ndim
    if is_array(src):
        m = src.ndim
        if m > n:
            return None
        lines = []
        for k in range(m):
            lines += [f"if src.shape[{k}] != 1 and src.shape[{k}] != out.shape[{n - m + k}]:",
                      "    raise ValueError('could not broadcast the input array into the shape of the output')",
                      f"e{k} = 0 if src.shape[{k}] == 1 else 1"]
        value = f"src[{', '.join(f'i{n - m + k} * e{k}' for k in range(m))}]" if m else "src[()]"
    elif _value(src):
        lines, value = [], "src"
    else:
        return None
    if n == 0:
        return _impl(("out", "src"), lines + [f"out[()] = {value}"])
    indent = ""
    for d in range(n):
        lines.append(f"{indent}for i{d} in range(out.shape[{d}]):")
        indent += "    "
    lines.append(f"{indent}out[{', '.join(f'i{d}' for d in range(n))}] = {value}")
    return _impl(("out", "src"), lines)


@lowers("batch_prepend", ("size", "shape"))
def _batch_prepend(size, shape):
    """batch_prepend (vmap's shapes): `(size,) + shape`, for a shape that is an int or a tuple of ints."""
    if not isinstance(types.unliteral(size), types.Integer) or _shape_rank(shape) is None:
        return None
    if isinstance(types.unliteral(shape), types.Integer):
        return _impl(("size", "shape"), ["return (size, shape)"])
    if len(shape.types) == 0:
        return _impl(("size", "shape"), ["return (size,)"])
    return _impl(("size", "shape"), ["return (size,) + shape"])


@lowers("batch_broadcast", ("value", "size", "likes"))
def _batch_broadcast(value, size, likes):
    """batch_broadcast (vmap's repeated value): a float scalar takes the widest float dtype of the arrays
    `likes` (float32 when none), anything else its own dtype."""
    if not _value(value) or not isinstance(types.unliteral(size), types.Integer) or not isinstance(likes, types.BaseTuple):
        return None
    if isinstance(types.unliteral(value), types.Float):
        floats = [dtype_of(t) for t in likes.types
                  if is_array(t) and dtype_of(t) is not None and dtype_of(t).kind == "f"]
        dtype = np.result_type(*floats) if floats else np.dtype(np.float32)
    else:
        dtype = dtype_of(value)
    shape = "(size,) + value.shape" if is_array(value) else "(size,)"
    return _impl(("value", "size", "likes"), [f"out = np.empty({shape}, dtype)", "L.fill_broadcast(out, value)",
                                              "return out"], dtype=dtype.type)


# ------------------------------------------------------------------ creation
def _creation_dtype(reference, *args):
    found = result_shape_dtype(reference, *args)
    return None if found is None else found[1].type


def _filled(name, reference, fill):
    def typer(shape, dtype):
        rank = _shape_rank(shape)
        out = _creation_dtype(reference, shape, dtype)
        if rank is None or out is None:
            return None
        return _impl(("shape", "dtype"), [f"return np.full(shape, {fill}, out_dtype)"], out_dtype=out)
    return lowers(name, ("shape", "dtype"), reference=reference)(typer)


_filled("zeros", jnp.zeros, 0)
_filled("ones", jnp.ones, 1)
_filled("empty", jnp.empty, 0)


def _filled_like(name, reference, fill):
    def typer(a, dtype, shape):
        if not _value(a):
            return None
        out = _creation_dtype(reference, a, dtype, shape)
        if out is None:
            return None
        if is_none(shape):
            if not is_array(a):
                return _impl(("a", "dtype", "shape"), [f"return out_dtype({fill})"], out_dtype=out)
            return _impl(("a", "dtype", "shape"), [f"return np.full(a.shape, {fill}, out_dtype)"], out_dtype=out)
        rank = _shape_rank(shape)
        if rank is None:
            return None
        return _impl(("a", "dtype", "shape"), [f"return np.full(shape, {fill}, out_dtype)"], out_dtype=out)
    return lowers(name, ("a", "dtype", "shape"), reference=reference)(typer)


_filled_like("zeros_like", jnp.zeros_like, 0)
_filled_like("ones_like", jnp.ones_like, 1)
_filled_like("empty_like", jnp.empty_like, 0)


@lowers("full", ("shape", "fill_value", "dtype"), reference=jnp.full)
def _full(shape, fill_value, dtype):
    """full: fill_value (a scalar, or an array broadcast) in the reference's dtype."""
    rank = _shape_rank(shape)
    if rank is None or not _value(fill_value):
        return None
    out = _creation_dtype(jnp.full, shape, fill_value, dtype)
    if out is None:
        return None
    if is_array(fill_value):
        return _impl(("shape", "fill_value", "dtype"),
                     ["out = np.empty(shape, out_dtype)", "L.fill_broadcast(out, fill_value)", "return out"],
                     out_dtype=out)
    return _impl(("shape", "fill_value", "dtype"), ["return np.full(shape, out_dtype(fill_value), out_dtype)"],
                 out_dtype=out)


@lowers("full_like", ("a", "fill_value", "dtype", "shape"), reference=jnp.full_like)
def _full_like(a, fill_value, dtype, shape):
    """full_like: fill_value with a's shape (or `shape`) in the reference's dtype."""
    if not (_value(a) and _value(fill_value)):
        return None
    out = _creation_dtype(jnp.full_like, a, fill_value, dtype, shape)
    if out is None:
        return None
    params = ("a", "fill_value", "dtype", "shape")
    if is_none(shape):
        if not is_array(a):
            if is_array(fill_value):
                return None
            return _impl(params, ["return out_dtype(fill_value)"], out_dtype=out)
        target = "a.shape"
    elif _shape_rank(shape) is not None:
        target = "shape"
    else:
        return None
    if is_array(fill_value):
        return _impl(params, [f"out = np.empty({target}, out_dtype)", "L.fill_broadcast(out, fill_value)",
                              "return out"], out_dtype=out)
    return _impl(params, [f"return np.full({target}, out_dtype(fill_value), out_dtype)"], out_dtype=out)


@lowers("eye", ("N", "M", "k", "dtype"), reference=jnp.eye)
def _eye(N, M, k, dtype):
    """eye: ones on the k-th diagonal."""
    if not isinstance(types.unliteral(N), types.Integer) or not isinstance(types.unliteral(k), types.Integer):
        return None
    if not (is_none(M) or isinstance(types.unliteral(M), types.Integer)):
        return None
    out = _creation_dtype(jnp.eye, N, M, k, dtype)
    if out is None:
        return None
    cols = "N" if is_none(M) else "M"
    return _impl(("N", "M", "k", "dtype"), [
        f"out = np.zeros((N, {cols}), out_dtype)",
        f"for i in range(max(0, -k), min(N, {cols} - k)):",
        "    out[i, i + k] = 1",
        "return out"], out_dtype=out)


@lowers("identity", ("n", "dtype"), reference=jnp.identity)
def _identity(n, dtype):
    """identity: the n x n identity matrix."""
    out = _creation_dtype(jnp.identity, n, dtype)
    if out is None or not isinstance(types.unliteral(n), types.Integer):
        return None
    return _impl(("n", "dtype"), ["out = np.zeros((n, n), out_dtype)", "for i in range(n):", "    out[i, i] = 1",
                                  "return out"], out_dtype=out)


@lowers("arange", ("start", "stop", "step", "dtype"), reference=jnp.arange)
def _arange(start, stop, step, dtype):
    """arange: NumPy's length and fill (the first two values in the dtype, then start + i * delta)."""
    if not all(is_none(t) or (is_scalar(t) and dtype_of(t) is not None) for t in (start, stop, step)):
        return None
    out = _creation_dtype(jnp.arange, start, stop, step, dtype)
    if out is None:
        return None
    lines = []
    if is_none(stop):
        lines += ["lo, hi = 0, start"]
    else:
        lines += ["lo, hi = start, stop"]
    lines += ["delta = 1" if is_none(step) else "delta = step"]
    lines += ["if delta == 0:", "    raise ZeroDivisionError('arange: step 0')",
              "n = int(np.ceil((np.float64(hi) - np.float64(lo)) / np.float64(delta)))",
              "n = max(n, 0)",
              "out = np.empty(n, out_dtype)"]
    if np.dtype(out).kind == "f":
        lines += ["if n > 0:", "    out[0] = out_dtype(lo)",
                  "if n > 1:", "    out[1] = out_dtype(lo + delta)",
                  "    first = out[0]", "    step_ = out[1] - out[0]",
                  "    for i in range(2, n):", "        out[i] = first + out_dtype(i) * step_"]
    else:
        lines += ["for i in range(n):", "    out[i] = lo + i * delta"]
    lines.append("return out")
    return _impl(("start", "stop", "step", "dtype"), lines, out_dtype=out)


# ------------------------------------------------------------------ reshaping
def _contiguous(name, t):
    return f"np.ascontiguousarray({_as_array(name, t)})"


@lowers("reshape", ("a", "shape", "order", "newshape", "copy"), reference=jnp.reshape, prefer_literal=True)
def _reshape(a, shape, order, newshape, copy):
    """reshape (C order): a contiguous copy of `a` if it is not one, then NumPy's reshape (one -1 allowed)."""
    if not _value(a) or literal_value(order) != "C" or not is_none(copy):
        return None
    target = newshape if is_none(shape) else shape
    name = "newshape" if is_none(shape) else "shape"
    rank = _shape_rank(target)
    if rank is None:
        return None
    params = ("a", "shape", "order", "newshape", "copy")
    if isinstance(target, types.BaseTuple) and rank == 0:
        return _impl(params, [f"return {_contiguous('a', a)}.reshape(1)[0]"])
    return _impl(params, [f"return {_contiguous('a', a)}.reshape({name})"])


@lowers("ravel", ("a", "order"), reference=jnp.ravel, prefer_literal=True)
def _ravel(a, order):
    """ravel (C order): the elements in one row."""
    if not _value(a) or literal_value(order) != "C":
        return None
    return _impl(("a", "order"), [f"return {_contiguous('a', a)}.reshape(-1)"])


def _permutation_impl(params, a_name, a_type, perm):
    if perm == tuple(range(len(perm))):
        return _impl(params, [f"return {a_name}"])
    return _impl(params, [f"return np.transpose({a_name}, {perm!r})"])


@lowers("transpose", ("a", "axes"), reference=jnp.transpose, prefer_literal=True)
def _transpose(a, axes):
    """transpose: the axes reversed (None) or permuted by a literal tuple; a view."""
    if not _value(a):
        return None
    ndim = _ndim(a)
    if ndim == 0:
        return _impl(("a", "axes"), ["return a"]) if is_none(axes) else None
    if is_none(axes):
        return _permutation_impl(("a", "axes"), "a", a, tuple(range(ndim - 1, -1, -1)))
    value = literal_value(axes)
    if not isinstance(value, tuple) or sorted(v % ndim for v in value) != list(range(ndim)) or \
            not all(-ndim <= v < ndim for v in value):
        return None
    return _permutation_impl(("a", "axes"), "a", a, tuple(v % ndim for v in value))


@lowers("swapaxes", ("a", "axis1", "axis2"), reference=jnp.swapaxes, prefer_literal=True)
def _swapaxes(a, axis1, axis2):
    """swapaxes with literal axes: a view."""
    ndim = _ndim(a)
    first, second = literal_value(axis1), literal_value(axis2)
    if not is_array(a) or not all(isinstance(v, int) and -ndim <= v < ndim for v in (first, second)):
        return None
    perm = list(range(ndim))
    perm[first % ndim], perm[second % ndim] = perm[second % ndim], perm[first % ndim]
    return _permutation_impl(("a", "axis1", "axis2"), "a", a, tuple(perm))


@lowers("moveaxis", ("a", "source", "destination"), reference=jnp.moveaxis, prefer_literal=True)
def _moveaxis(a, source, destination):
    """moveaxis with literal axes: a view."""
    ndim = _ndim(a)
    src, dst = literal_value(source), literal_value(destination)
    if not is_array(a):
        return None
    if src is None or dst is None:            # axes known at run time only (runtime/numba_per_slice.py)
        from .numba_per_slice import run_time_moveaxis
        return run_time_moveaxis(a, source, destination)
    src = src if isinstance(src, tuple) else (src,)
    dst = dst if isinstance(dst, tuple) else (dst,)
    if len(src) != len(dst) or not all(isinstance(v, int) and -ndim <= v < ndim for v in src + dst):
        return None
    src, dst = [v % ndim for v in src], [v % ndim for v in dst]
    order = [d for d in range(ndim) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _permutation_impl(("a", "source", "destination"), "a", a, tuple(order))


@lowers("flip", ("m", "axis"), reference=jnp.flip, prefer_literal=True)
def _flip(m, axis):
    """flip along literal axes (all for None): a view with negative strides."""
    if not _value(m):
        return None
    ndim = _ndim(m)
    if ndim == 0:
        return _impl(("m", "axis"), ["return m"]) if is_none(axis) else None
    axes = static_axes(axis, ndim)
    if axes is None:
        return None
    index = ", ".join("::-1" if d in axes else ":" for d in range(ndim))
    return _impl(("m", "axis"), [f"return m[{index}]"])


def _new_shape_source(a, ndim, inserted):
    """Source of a shape with 1 at the positions `inserted` and a's dims elsewhere."""
    dims, k = [], 0
    for d in range(ndim + len(inserted)):
        if d in inserted:
            dims.append("1")
        else:
            dims.append(f"{a}.shape[{k}]")
            k += 1
    return "(" + ", ".join(dims) + ",)"


@lowers("expand_dims", ("a", "axis"), reference=jnp.expand_dims, prefer_literal=True)
def _expand_dims(a, axis):
    """expand_dims at literal axes."""
    if not _value(a):
        return None
    ndim = _ndim(a)
    value = literal_value(axis)
    values = value if isinstance(value, tuple) else (value,)
    out_ndim = ndim + len(values)
    if not all(isinstance(v, int) and -out_ndim <= v < out_ndim for v in values):
        return None
    inserted = {v % out_ndim for v in values}
    if len(inserted) != len(values):
        return None
    return _impl(("a", "axis"), [f"return {_contiguous('a', a)}.reshape({_new_shape_source('a', ndim, inserted)})"])


@lowers("squeeze", ("a", "axis"), reference=jnp.squeeze, prefer_literal=True)
def _squeeze(a, axis):
    """squeeze at literal axes (each must have length 1); axis=None is declined (its rank depends on values)."""
    if not is_array(a) or is_none(axis):
        return None
    ndim = a.ndim
    axes = static_axes(axis, ndim)
    if axes is None:
        return None
    kept = [d for d in range(ndim) if d not in axes]
    lines = [f"if a.shape[{d}] != 1:\n        raise ValueError('cannot select an axis to squeeze out which has "
             f"size not equal to one')" for d in axes]
    shape = "(" + "".join(f"a.shape[{d}], " for d in kept) + ")"
    if not kept:
        lines.append("return np.ascontiguousarray(a).reshape(1)[0]")
    else:
        lines.append(f"return np.ascontiguousarray(a).reshape({shape})")
    return _impl(("a", "axis"), lines)


@lowers("broadcast_to", ("array", "shape"), reference=jnp.broadcast_to)
def _broadcast_to(array, shape):
    """broadcast_to, materialized (a copy, never a zero-stride view)."""
    rank = _shape_rank(shape)
    if not _value(array) or rank is None or rank < _ndim(array):
        return None
    dtype = dtype_of(array).type
    return _impl(("array", "shape"), ["out = np.empty(shape, dtype)", "L.fill_broadcast(out, array)", "return out"], dtype=dtype)


@lowers("copy", ("a", "order"), reference=jnp.copy, prefer_literal=True)
def _copy(a, order):
    """copy: a new array (a scalar as it is)."""
    if not _value(a) or literal_value(order) not in ("K", "C", "A"):
        return None
    return _impl(("a", "order"), ["return a.copy()" if is_array(a) else "return a"])


# ------------------------------------------------------------------ diagonals
def _diagonal_lines(a_type, axis1, axis2, offset_name):
    """Lines moving the literal axis1, axis2 of `a` last (`moved`) and finding the diagonal's rows and length."""
    ndim = a_type.ndim
    first, second = literal_value(axis1), literal_value(axis2)
    if not all(isinstance(v, int) and -ndim <= v < ndim for v in (first, second)) or first % ndim == second % ndim:
        return None
    first, second = first % ndim, second % ndim
    perm = tuple(d for d in range(ndim) if d not in (first, second)) + (first, second)
    return perm, [f"moved = np.transpose(a, {perm!r})" if perm != tuple(range(ndim)) else "moved = a",
                  "n = moved.shape[-2]", "m = moved.shape[-1]",
                  f"k = {offset_name}",
                  "start = max(0, -k)", "length = max(0, min(n, m - k) - start)"]


@lowers("diagonal", ("a", "offset", "axis1", "axis2"), reference=jnp.diagonal, prefer_literal=True)
def _diagonal(a, offset, axis1, axis2):
    """diagonal along literal axes: the batch axes first, the diagonal last (a copy)."""
    if not is_array(a) or a.ndim < 2 or dtype_of(a) is None or not isinstance(types.unliteral(offset), types.Integer):
        return None
    found = _diagonal_lines(a, axis1, axis2, "offset")
    if found is None:
        return None
    _, lines = found
    batch = a.ndim - 2
    if batch == 0:
        lines += ["out = np.empty(length, a.dtype)", "for i in range(length):",
                  "    out[i] = moved[start + i, start + i + k]", "return out"]
    else:
        lines += ["rows = np.ascontiguousarray(moved).reshape((-1, n, m))",
                  "out = np.empty((rows.shape[0], length), a.dtype)",
                  "for b in range(rows.shape[0]):", "    for i in range(length):",
                  "        out[b, i] = rows[b, start + i, start + i + k]",
                  "return out.reshape(moved.shape[:-2] + (length,))"]
    return _impl(("a", "offset", "axis1", "axis2"), lines)


@lowers("trace", ("a", "offset", "axis1", "axis2", "dtype", "out"), reference=jnp.trace, prefer_literal=True)
def _trace(a, offset, axis1, axis2, dtype, out):
    """trace: the diagonal summed (in the reference's dtype)."""
    if not is_array(a) or a.ndim < 2 or not is_none(out):
        return None
    found = result_shape_dtype(jnp.trace, a, offset, axis1, axis2, dtype, out)
    if found is None:
        return None
    return _impl(("a", "offset", "axis1", "axis2", "dtype", "out"), [
        "d = L.diagonal(a, offset, axis1, axis2)",
        "return L.sum(L.astype(d, out_dtype), -1, None, None, False, None, None)"], out_dtype=found[1].type, L=_L)


def _adjoint_onto_diagonal(name, reference, batch_last):
    def typer(g, a, offset, axis1, axis2):
        if not (_value(g) and is_array(a)) or a.ndim < 2 or not isinstance(types.unliteral(offset), types.Integer):
            return None
        found = _diagonal_lines(a, axis1, axis2, "offset")
        if found is None:
            return None
        perm, lines = found
        inverse = tuple(int(i) for i in np.argsort(perm))
        dtype = np.result_type(dtype_of(g), np.float32).type
        moved_shape = "(" + "".join(f"a.shape[{d}], " for d in perm) + ")"
        lines = [f"zeros = np.zeros({moved_shape}, dtype)"] + [line.replace("moved", "zeros") for line in lines[1:]]
        lines += ["rows = zeros.reshape((-1, n, m))"]
        if batch_last:       # diagonal_adjoint: g is (batch..., length)
            lines += ["gg = np.ascontiguousarray(g).reshape((rows.shape[0], -1))" if is_array(g) and g.ndim else
                      "gg = np.full((rows.shape[0], length), g, dtype)"]
            lines += ["for b in range(rows.shape[0]):", "    for i in range(length):",
                      "        rows[b, start + i, start + i + k] = gg[b, i]"]
        else:                # trace_adjoint: g is (batch...), one value per diagonal
            lines += ["gg = np.ascontiguousarray(g).reshape(-1)" if is_array(g) and g.ndim else
                      "gg = np.full(rows.shape[0], g, dtype)"]
            lines += ["for b in range(rows.shape[0]):", "    for i in range(length):",
                      "        rows[b, start + i, start + i + k] = gg[b]"]
        lines.append(f"return np.transpose(zeros, {inverse!r})" if inverse != tuple(range(a.ndim)) else "return zeros")
        return _impl(("g", "a", "offset", "axis1", "axis2"), lines, dtype=dtype)
    return lowers(name, ("g", "a", "offset", "axis1", "axis2"), reference=reference, prefer_literal=True)(typer)


_adjoint_onto_diagonal("diagonal_adjoint", helpers.diagonal_adjoint, True)
_adjoint_onto_diagonal("trace_adjoint", helpers.trace_adjoint, False)


# ------------------------------------------------------------------ evenly spaced values
def _linspace_reference(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    return jnp.linspace(start, stop, num, endpoint, retstep, dtype, axis)


def _linspace_lines(compute, out):
    """NumPy's linspace for scalar ends: i * step + start in `compute` (i / div * delta where step is 0)."""
    return ["div = num - 1 if endpoint else num",
            "if num < 0:", "    raise ValueError('Number of samples must be non-negative.')",
            "first = compute(start)", "delta = compute(stop) - first",
            "y = np.empty(num, compute)",
            "if div > 0:",
            "    step = delta / compute(div)",
            "    for i in range(num):",
            "        y[i] = (compute(i) * step if step != 0 else compute(i) / compute(div) * delta) + first",
            "else:",
            "    for i in range(num):",
            "        y[i] = compute(i) * delta + first",
            "if endpoint and num > 1:",
            "    y[num - 1] = compute(stop)",
            "result = y.astype(out_dtype)"]


@lowers("linspace", ("start", "stop", "num", "endpoint", "retstep", "dtype", "axis"), reference=_linspace_reference,
        prefer_literal=True)
def _linspace(start, stop, num, endpoint, retstep, dtype, axis):
    """linspace between scalar ends (retstep False): NumPy's arithmetic in its dtype, then the reference's dtype."""
    if not (is_scalar(start) and is_scalar(stop)) or literal_value(retstep) is not False:
        return None
    if not isinstance(types.unliteral(num), types.Integer) or literal_value(axis) not in (0, -1):
        return None
    if not isinstance(types.unliteral(endpoint), types.Boolean):
        return None
    found = result_shape_dtype(_linspace_reference, start, stop, types.literal(3), endpoint, retstep, dtype, axis)
    compute = _agreed_compute(start, stop)
    if found is None or compute is None:
        return None
    return _impl(("start", "stop", "num", "endpoint", "retstep", "dtype", "axis"),
                 _linspace_lines(compute, found[1].type) + ["return result"],
                 compute=compute, out_dtype=found[1].type)


def _agreed_compute(start, stop):
    from .numba_typing import agreed
    found = agreed(lambda a, b: np.result_type(a, b, 1.0), start, stop)
    return None if found is None else found.type


@lowers("inexact_zero", ("operands",), reference=helpers.inexact_zero)
def _inexact_zero(operands):
    """inexact_zero: zeros of the operands' broadcast shape in the dtype the reference gives their stand-ins."""
    if not isinstance(operands, types.BaseTuple) or not all(_value(t) for t in operands.types):
        return None
    dtype = agreed(lambda *values: np.asarray(helpers.inexact_zero(values)).dtype, *operands.types)
    if dtype is None:
        return None
    shapes = [f"operands[{i}].shape" for i, t in enumerate(operands.types) if is_array(t)]
    if not shapes:
        return _impl(("operands",), ["return out_dtype(0)"], out_dtype=dtype.type)
    return _impl(("operands",), [f"return np.zeros(np.broadcast_shapes({', '.join(shapes)}), out_dtype)"],
                 out_dtype=dtype.type)


@lowers("linspace_weights", ("y", "num", "endpoint", "axis"), reference=helpers.linspace_weights, prefer_literal=True)
def _linspace_weights(y, num, endpoint, axis):
    """linspace_weights: linspace(0, 1, num) in float64, shaped along the literal axis, in y's float dtype."""
    if not _value(y) or not isinstance(types.unliteral(num), types.Integer):
        return None
    ndim = _ndim(y)
    axis_value = literal_value(axis)
    if not isinstance(axis_value, int) or not -max(ndim, 1) <= axis_value < max(ndim, 1):
        return None
    out = np.result_type(dtype_of(y), np.float32).type
    shape = ["1"] * ndim
    if ndim:
        shape[axis_value % ndim] = "num"
    lines = ["start, stop = 0.0, 1.0"] + _linspace_lines(np.float64, out)
    lines.append(f"return result.reshape(({', '.join(shape)},))" if ndim else "return result")
    return _impl(("y", "num", "endpoint", "axis"), lines, compute=np.float64, out_dtype=out)


@lowers("array", ("object", "dtype"), reference=jnp.array, prefer_literal=True)
def _array(object, dtype):
    """array: an array copied (or a tuple of values stacked) in the reference's dtype."""
    if isinstance(object, types.List):
        return _array_of_list(object, dtype)
    found = result_shape_dtype(lambda o, d: jnp.array(list(o) if isinstance(o, tuple) else o, d), object, dtype)
    if found is None:
        return None
    out = found[1].type
    if isinstance(object, types.BaseTuple):
        stacked = _nested_stack(object, "object")
        if stacked is None:
            return None
        return _impl(("object", "dtype"), [f"return L.astype({stacked}, out_dtype)"], out_dtype=out, L=_L)
    if not _value(object):
        return None
    if is_array(object):
        return _impl(("object", "dtype"), ["return object.astype(out_dtype)"], out_dtype=out)
    return _impl(("object", "dtype"), ["return out_dtype(object)"], out_dtype=out)


def _array_of_list(object, dtype):
    """array of a list variable (`rows = [...]`, a list comprehension) of arrays or numbers of one type: its
    items stacked along a new first axis in the reference's dtype. Items of different shapes raise NumPy's
    ValueError; an empty list runs on the reference backend (compiled code cannot tell its items' shape)."""
    from ..errors import RuntimeRefusal
    item = object.dtype
    if not _value(item):
        return None
    found = result_shape_dtype(lambda o, d: jnp.array([o], d), item, dtype)
    if found is None:
        return None
    shape = "object[0].shape" if is_array(item) else "()"
    return _impl(("object", "dtype"), [
        "if len(object) == 0:",
        "    raise RuntimeRefusal('astjax: jnp.array of an empty list runs on the reference backend')",
        f"first = {shape}",
        "out = np.empty((len(object),) + first, out_dtype)",
        "for k in range(len(object)):",
        *(["    if object[k].shape != first:",
           "        raise ValueError('setting an array element with a sequence: the items differ in shape')"]
          if is_array(item) else []),
        "    out[k] = object[k]",
        "return out"], out_dtype=found[1].type, RuntimeRefusal=RuntimeRefusal)


def _nested_stack(t, path):
    """Source stacking the tuple type `t` (held at `path`) into one array, nested tuples (a matrix
    literal `[[a, b], [c, d]]`) row by row; None when an item is neither a value nor such a tuple."""
    if not isinstance(t, types.BaseTuple) or not t.types:
        return None
    if all(_value(e) for e in t.types):
        return f"L.stack({path}, 0)"
    rows = [_nested_stack(e, f"{path}[{i}]") for i, e in enumerate(t.types)]
    if any(r is None for r in rows):
        return None
    return f"L.stack(({', '.join(rows)},), 0)"


@lowers("builtin_len", ("obj",), reference=len)
def _builtin_len(obj):
    """len: an array's first dimension, a tuple's length."""
    if is_array(obj) and obj.ndim > 0:
        return _impl(("obj",), ["return obj.shape[0]"])
    if isinstance(obj, types.BaseTuple):
        return _impl(("obj",), [f"return {len(obj.types)}"])
    return None


@lowers("iterated", ("x",), reference=helpers.iterated)
def _iterated(x):
    """iterated: what Numba code iterates (an array, a tuple) is never a dict: nothing to check."""
    if is_array(x) or isinstance(x, types.BaseTuple):
        return _impl(("x",), ["return None"])
    return None


@lowers("array_holder", ("y",), reference=helpers.array_holder)
def _array_holder(y):
    """array_holder: an array passes (its item update writes into it alone); anything else is not lowered."""
    if is_array(y):
        return _impl(("y",), ["return None"])
    return None


@lowers("not_a_row", ("y", "b"), reference=helpers.not_a_row)
def _not_a_row(y, b):
    """not_a_row: a number read from an array passes; a row (or anything else) is not lowered."""
    if isinstance(y, (types.Number, types.Boolean)) or (is_array(y) and y.ndim == 0):
        return _impl(("y", "b"), ["return None"])
    return None


@lowers("basic_index", ("index",), reference=helpers.basic_index)
def _basic_index(index):
    """basic_index: an integer, a slice or a tuple of them passes; anything else (an array, a bool) is not lowered."""
    parts = list(index.types) if isinstance(index, types.BaseTuple) else [index]
    if all(isinstance(p, (types.Integer, types.SliceType, types.NoneType)) for p in parts):
        return _impl(("index",), ["return None"])
    return None


def _byte_range_reference(a):
    a = np.asarray(a)
    low = high = a.ctypes.data
    for n, stride in zip(a.shape, a.strides):
        low, high = low + min(0, (n - 1) * stride), high + max(0, (n - 1) * stride)
    return low, high + a.itemsize


@lowers("byte_range", ("a",), reference=_byte_range_reference)
def _byte_range(a):
    """(first byte, one past the last byte) of the memory a non-empty array spans."""
    if not is_array(a):
        return None
    return _impl(("a",), ["low = a.ctypes.data", "high = a.ctypes.data",
                          "for d in range(a.ndim):",
                          "    step = (a.shape[d] - 1) * a.strides[d]",
                          "    low += min(0, step)",
                          "    high += max(0, step)",
                          "return low, high + a.itemsize"])


@lowers("not_a_view", ("value", "target"), reference=helpers.not_a_view)
def _not_a_view(value, target):
    """not_a_view (before `a[i], a[j] = a[j], a[i]`): a number passes; an array value whose memory may overlap
    the array target's (a row of it: Numba's rows are views too; Numba has no np.shares_memory, so the byte
    ranges are compared, as np.may_share_memory does) raises a RuntimeRefusal, and the call runs on the
    reference backend, which refuses it at the user's line where the two share memory and runs it otherwise."""
    from ..errors import RuntimeRefusal
    if is_array(value) and is_array(target):
        return _impl(("value", "target"), [
            "if value.size and target.size and L.byte_range(value)[0] < L.byte_range(target)[1] \\",
            "        and L.byte_range(target)[0] < L.byte_range(value)[1]:",
            "    raise RuntimeRefusal('astjax: a value assigned by a tuple assignment may be a view of its target')",
            "return None"], RuntimeRefusal=RuntimeRefusal, L=_L)
    if isinstance(value, (types.Number, types.Boolean)) or is_none(value) or is_array(value) or is_array(target):
        return _impl(("value", "target"), ["return None"])
    return None


@lowers("diag", ("v", "k"), reference=jnp.diag, prefer_literal=True)
def _diag(v, k):
    """diag: a vector laid on the k-th diagonal of a square matrix, or a matrix's k-th diagonal."""
    if not is_array(v) or dtype_of(v) is None or not isinstance(types.unliteral(k), types.Integer):
        return None
    if v.ndim == 2:
        return _impl(("v", "k"), ["return L.diagonal(v, k, 0, 1)"], L=_L)
    if v.ndim != 1:
        return None
    return _impl(("v", "k"), ["n = v.shape[0] + abs(k)", "out = np.zeros((n, n), v.dtype)",
                              "for i in range(v.shape[0]):",
                              "    if k >= 0:", "        out[i, i + k] = v[i]", "    else:", "        out[i - k, i] = v[i]",
                              "return out"])
