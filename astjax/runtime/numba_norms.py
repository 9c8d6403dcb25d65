"""Numba lowerings of linalg.norm and its adjoint (vector norms of every ord; matrix norms 'fro', 1, inf).

Vector norms (a 1-D array, `axis` an int literal, or `ord=None` over the whole array) reduce each row
of the moved-last axis in float64 and return the array's float dtype: ord None and 2 the Euclidean
norm, inf / -inf the largest / smallest |x|, 0 the count of nonzeros, 1 the sum of |x|, any other p
(sum |x|^p)^(1/p). `ord` may be a runtime float (`jnp.inf` arrives as one), so the row chooses at
run time. Matrix norms of a 2-D array with `axis=None`: 'fro', and 1 / -1 / inf / -inf (largest or
smallest column or row sum of |x|); a runtime ord outside those raises ValueError (which jit reports
at the user's line), and the spectral and nuclear norms (literal 2, -2, 'nuc') and pairs of axes
are declined.

`norm_adjoint` (rules/decompositions.py's composite) follows the reference formulas: g / y * x for
the 2-norm, g sign(x) for ord 1, ties of the max / min |x| share g for inf / -inf, and
g / y^(p-1) sign(x) |x|^(p-1) otherwise; for matrix 1 / inf norms the columns or rows that attain
the norm share g.
"""
import numpy as np
from numba import njit, types

from .. import numpy as jnp
from ..rules import decompositions
from .numba_build import L, build, lowers
from .numba_linalg import COMPOSITES
from .numba_reductions import reduce_impl
from .numba_typing import dtype_of, is_array, is_none, literal_value

_NOT_STATIC = object()


@njit(error_model="numpy")
def _vector_norm(row, seed, p):
    if p == 2.0:
        total = 0.0
        for v in row:
            total += np.float64(v) * np.float64(v)
        return np.sqrt(total)
    if p == np.inf or p == -np.inf:
        best = np.inf if p < 0 else 0.0
        for v in row:
            a = abs(np.float64(v))
            best = (a if a < best else best) if p < 0 else (a if a > best else best)
        return best
    if p == 0.0:
        count = 0.0
        for v in row:
            count += 1.0 if v != 0 else 0.0
        return count
    if p == 1.0:
        total = 0.0
        for v in row:
            total += abs(np.float64(v))
        return total
    total = 0.0
    for v in row:
        total += abs(np.float64(v)) ** p
    return total ** (1.0 / p)


@njit(error_model="numpy")
def _abs_sums(x, by_rows):
    """Sums of |x| over each column (by_rows False) or each row (True) of a 2-D array, in float64."""
    m, n = x.shape
    sums = np.zeros(m if by_rows else n)
    for i in range(m):
        for j in range(n):
            if by_rows:
                sums[i] += abs(np.float64(x[i, j]))
            else:
                sums[j] += abs(np.float64(x[i, j]))
    return sums


@njit(error_model="numpy")
def _matrix_norm(x, p):
    if p == 1.0 or p == -1.0:
        sums = _abs_sums(x, False)
    elif p == np.inf or p == -np.inf:
        sums = _abs_sums(x, True)
    else:
        raise ValueError("jit computes the matrix norms 'fro', 1, -1, inf and -inf only")
    return sums.max() if p > 0 else sums.min()


def _ord_value(ord):
    """Source of ord as a float (2.0 for None), or None when ord's type is not a number."""
    if is_none(ord):
        return "2.0"
    if isinstance(types.unliteral(ord), (types.Integer, types.Float)) and not isinstance(ord, types.Boolean):
        return "np.float64(ord)"
    return None


def _form(x, ord, axis):
    """("vector", axes) or ("matrix", None) or ("fro", None) for norm's arguments, or None to decline."""
    ndim = x.ndim
    if is_none(axis):
        if is_none(ord) or ndim == 1:
            return ("vector", tuple(range(ndim))) if ndim == 1 or is_none(ord) else None
        if ndim != 2:
            return None
        value = literal_value(ord, _NOT_STATIC)
        if value == "fro":
            return ("vector", (0, 1))
        if value in (2, -2, "nuc") or isinstance(value, str) or value is _NOT_STATIC and not _ord_value(ord):
            return None
        return ("matrix", None)
    value = literal_value(axis, _NOT_STATIC)
    if isinstance(value, tuple) and len(value) == 1:
        value = value[0]
    if not isinstance(value, int) or isinstance(value, bool) or not -ndim <= value < ndim:
        return None
    return ("vector", (value % ndim,))


@lowers("norm", ("x", "ord", "axis", "keepdims"), reference=jnp.linalg.norm, prefer_literal=True)
def _norm(x, ord, axis, keepdims):
    """linalg.norm of a float array: vector norms of every ord over all or one axis; matrix 'fro', 1, inf."""
    if not is_array(x) or x.ndim == 0 or dtype_of(x) is None or dtype_of(x).kind != "f":
        return None
    keep = literal_value(keepdims, _NOT_STATIC)
    if not isinstance(keep, bool):
        return None
    form = _form(x, ord, axis)
    if form is None:
        return None
    out = dtype_of(x).type
    kind, axes = form
    if kind == "vector":
        p = "2.0" if literal_value(ord, None) == "fro" else _ord_value(ord)
        if p is None:
            return None
        return reduce_impl(("x", "ord", "axis", "keepdims"), "x", x, axes, keep, _vector_norm, 0.0, out, True,
                           extra=p)
    p = _ord_value(ord)
    shape = "(1, 1)" if keep else None
    body = f"    value = out(_matrix_norm(x, {p}))\n"
    body += f"    return np.full({shape}, value)\n" if shape else "    return value\n"
    return build("def impl(x, ord, axis, keepdims):\n" + body, {"np": np, "_matrix_norm": _matrix_norm, "out": out})


@njit(error_model="numpy")
def _vector_adjoint(g2, x3, y2, p):
    """The adjoint of each row's norm: x3 is (before, n, after), g2 and y2 (before, after)."""
    pre, n, post = x3.shape
    out = np.empty_like(x3)
    zero = x3.dtype.type(0)
    for a in range(pre):
        for c in range(post):
            gv, yv = g2[a, c], y2[a, c]
            if p == np.inf or p == -np.inf:
                count = 0
                for b in range(n):
                    count += 1 if abs(x3[a, b, c]) == yv else 0
                share = gv / (count if count > 1 else 1)
            for b in range(n):
                v = x3[a, b, c]
                sign = (v > zero) - (v < zero)
                if p == 2.0:
                    out[a, b, c] = gv / yv * v
                elif p == 0.0:
                    out[a, b, c] = zero * v
                elif p == 1.0:
                    out[a, b, c] = gv * sign
                elif p == np.inf or p == -np.inf:
                    out[a, b, c] = share * sign if abs(v) == yv else zero * v
                else:
                    out[a, b, c] = gv / yv ** (p - 1) * sign * abs(v) ** (p - 1)
    return out


@njit(error_model="numpy")
def _matrix_adjoint(g, x, y, p):
    by_rows = not (p == 1.0 or p == -1.0)
    sums = _abs_sums(x, by_rows)
    best = sums.max() if p > 0 else sums.min()
    count = 0
    for s in sums:
        count += 1 if s == best else 0
    share = g / (count if count > 1 else 1)
    out = np.empty_like(x)
    zero = x.dtype.type(0)
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            v = x[i, j]
            hit = sums[i] == best if by_rows else sums[j] == best
            out[i, j] = share * ((v > zero) - (v < zero)) if hit else zero * v
    return out


@lowers("norm_adjoint", ("g", "x", "y", "ord", "axis", "keepdims"), reference=decompositions.norm_adjoint,
        prefer_literal=True)
def _norm_adjoint(g, x, y, ord, axis, keepdims):
    """x's adjoint of y = norm(x, ord, axis, keepdims), for the forms `norm` lowers."""
    if not is_array(x) or x.ndim == 0 or dtype_of(x) is None or dtype_of(x).kind != "f":
        return None
    keep = literal_value(keepdims, _NOT_STATIC)
    form = _form(x, ord, axis)
    if form is None or not isinstance(keep, bool):
        return None
    kind, axes = form
    dtype = dtype_of(x).type
    env = {"np": np, "_vector_adjoint": _vector_adjoint, "_matrix_adjoint": _matrix_adjoint, "dt": dtype}
    if kind == "matrix":
        read = "np.asarray(g).reshape(1)[0]" if is_array(g) else "g"
        body = [f"gv = dt({read})", f"return _matrix_adjoint(gv, np.ascontiguousarray(x), y, {_ord_value(ord)})"]
    else:
        p = "2.0" if literal_value(ord, None) == "fro" else _ord_value(ord)
        if p is None:
            return None
        ndim = x.ndim
        if len(axes) == ndim:
            before, after = "1", "1"
        else:
            k = axes[0]
            before = " * ".join(f"x.shape[{d}]" for d in range(k)) or "1"
            after = " * ".join(f"x.shape[{d}]" for d in range(k + 1, ndim)) or "1"
        body = ["c = np.ascontiguousarray(x)",
                f"pre, post = {before}, {after}",
                "x3 = c.reshape((pre, c.size // (pre * post) if pre * post else 0, post))",
                _per_row("g2", "g", g), _per_row("y2", "y", y),
                f"return _vector_adjoint(g2, x3, y2, {p}).reshape(c.shape)"]
    source = "def impl(g, x, y, ord, axis, keepdims):\n" + "".join(f"    {line}\n" for line in body)
    return build(source, env)


def _per_row(target, name, t):
    """A line reading `name` (a scalar, or an array with one value per row) as a (pre, post) array of dt."""
    if is_array(t) and t.ndim > 0:
        return f"{target} = np.ascontiguousarray({name}).reshape((pre, post)).astype(dt)"
    value = f"{name}[()]" if is_array(t) else name
    return f"{target} = np.full((pre, post), dt({value}))"


COMPOSITES["norm_adjoint"] = L.norm_adjoint
