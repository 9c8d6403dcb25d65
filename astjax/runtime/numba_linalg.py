"""Numba lowerings of the products (dot, matmul, outer, inner) and Numba twins of their adjoint composites.

Products of floats stay on BLAS (`np.dot` inside Numba), operands first cast
to the reference's result dtype when they differ. Integer products and ranks
above 3 are declined. `COMPOSITES` maps the names of astjax/rules/linalg.py's
composite functions to lowerings that compose the other lowerings the same way.
"""

from .. import numpy as jnp
from ..rules import linalg as rules_linalg
from .numba_build import L, lowers
from .numba_build import implementation as _impl, is_value as _value, ndim_of as _ndim
from .numba_typing import dtype_of, is_array, is_none, result_shape_dtype




def _product_dtype(reference, *args):
    found = result_shape_dtype(reference, *args)
    if found is None or found[1].kind != "f":
        return None
    return found[1]


def _cast(name, t, dtype):
    """Source of the operand `name` in `dtype`, contiguous (BLAS takes it as it is, without a copy of its own)."""
    if dtype_of(t) != dtype:
        return f"{name}.astype(dtype)"
    return name if t.layout == "C" or t.ndim < 2 else f"np.ascontiguousarray({name})"


def _batched_lines(x1, x2):
    """Lines for a matmul where one operand is 3-d and the other 2-d or 3-d: one BLAS call per batch item,
    or one for all of them when a 3-d `a` meets a 2-d `b` (its rows, all batches together, times b)."""
    if x1.ndim == 3 and x2.ndim == 2:
        return ["if a.shape[2] != b.shape[0]:",
                "    raise ValueError('matmul: the inner dimensions do not match')",
                "rows = np.ascontiguousarray(a).reshape((a.shape[0] * a.shape[1], a.shape[2]))",
                "return np.dot(rows, np.ascontiguousarray(b)).reshape((a.shape[0], a.shape[1], b.shape[1]))"]
    b1 = "a.shape[0]" if x1.ndim == 3 else "1"
    b2 = "b.shape[0]" if x2.ndim == 3 else "1"
    first = "a[i if a.shape[0] != 1 else 0]" if x1.ndim == 3 else "a"
    second = "b[i if b.shape[0] != 1 else 0]" if x2.ndim == 3 else "b"
    rows = "a.shape[1]" if x1.ndim == 3 else "a.shape[0]"
    cols = "b.shape[2]" if x2.ndim == 3 else "b.shape[1]"
    return [f"batch = max({b1}, {b2})",
            f"if {b1} != batch and {b1} != 1 or {b2} != batch and {b2} != 1:",
            "    raise ValueError('matmul: the batch dimensions do not broadcast')",
            f"out = np.empty((batch, {rows}, {cols}), dtype)",
            "for i in range(batch):",
            f"    out[i] = np.dot(np.ascontiguousarray({first}), np.ascontiguousarray({second}))",
            "return out"]


def _matmul_reference(x1, x2, precision=None, preferred_element_type=None):
    return jnp.matmul(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


@lowers("matmul", ("x1", "x2", "precision", "preferred_element_type"), reference=_matmul_reference)
def _matmul(x1, x2, precision, preferred_element_type):
    """matmul of 1-d and 2-d operands (np.dot), or one batch of 3-d ones (a loop of np.dot)."""
    if not (is_array(x1) and is_array(x2)) or not (is_none(precision) and is_none(preferred_element_type)):
        return None
    dtype = _product_dtype(_matmul_reference, x1, x2)
    if dtype is None or x1.ndim == 0 or x2.ndim == 0 or max(x1.ndim, x2.ndim) > 3:
        return None
    params = ("x1", "x2", "precision", "preferred_element_type")
    lines = [f"a = {_cast('x1', x1, dtype)}", f"b = {_cast('x2', x2, dtype)}"]
    if max(x1.ndim, x2.ndim) <= 2:
        return _impl(params, lines + ["return np.dot(a, b)"], dtype=dtype.type)
    if min(x1.ndim, x2.ndim) < 2:
        return None
    return _impl(params, lines + _batched_lines(x1, x2), dtype=dtype.type)


def _dot_reference(a, b, precision=None, preferred_element_type=None):
    return jnp.dot(a, b, precision=precision, preferred_element_type=preferred_element_type)


@lowers("dot", ("a", "b", "precision", "preferred_element_type"), reference=_dot_reference)
def _dot(a, b, precision, preferred_element_type):
    """dot: a product with a scalar multiplies; 1-d and 2-d operands go to np.dot."""
    if not (_value(a) and _value(b)) or not (is_none(precision) and is_none(preferred_element_type)):
        return None
    params = ("a", "b", "precision", "preferred_element_type")
    if _ndim(a) == 0 or _ndim(b) == 0:
        if result_shape_dtype(_dot_reference, a, b) is None:
            return None
        return _impl(params, ["return L.multiply(a, b)"])
    dtype = _product_dtype(_dot_reference, a, b)
    if dtype is None or max(a.ndim, b.ndim) > 2:
        return None
    return _impl(params, [f"return np.dot({_cast('a', a, dtype)}, {_cast('b', b, dtype)})"], dtype=dtype.type)


def _inner_reference(a, b, precision=None, preferred_element_type=None):
    return jnp.inner(a, b, precision=precision, preferred_element_type=preferred_element_type)


@lowers("inner", ("a", "b", "precision", "preferred_element_type"), reference=_inner_reference)
def _inner(a, b, precision, preferred_element_type):
    """inner: the sum over the last axes of a and b (ranks up to 2)."""
    if not (_value(a) and _value(b)) or not (is_none(precision) and is_none(preferred_element_type)):
        return None
    params = ("a", "b", "precision", "preferred_element_type")
    if _ndim(a) == 0 or _ndim(b) == 0:
        if result_shape_dtype(_inner_reference, a, b) is None:
            return None
        return _impl(params, ["return L.multiply(a, b)"])
    dtype = _product_dtype(_inner_reference, a, b)
    if dtype is None or max(a.ndim, b.ndim) > 2:
        return None
    first, second = _cast("a", a, dtype), _cast("b", b, dtype)
    if b.ndim == 1:
        line = f"return np.dot({first}, {second})"
    elif a.ndim == 1:
        line = f"return np.dot({second}, {first})"
    else:
        line = f"return np.dot({first}, np.ascontiguousarray({second}.T))"
    return _impl(params, [line], dtype=dtype.type)


@lowers("outer", ("a", "b", "out"), reference=jnp.outer)
def _outer(a, b, out):
    """outer: every product a[i] * b[j] of the flattened operands, in the reference's dtype."""
    if not (_value(a) and _value(b)) or not is_none(out):
        return None
    found = result_shape_dtype(jnp.outer, a, b, out)
    if found is None:
        return None
    dtype = found[1].type
    first = "np.ascontiguousarray(a).reshape(-1)" if is_array(a) else "np.array([a])"
    second = "np.ascontiguousarray(b).reshape(-1)" if is_array(b) else "np.array([b])"
    return _impl(("a", "b", "out"), [
        f"u = {first}", f"v = {second}", "result = np.empty((u.size, v.size), dtype)",
        "for i in range(u.size):", "    for j in range(v.size):",
        "        result[i, j] = dtype(u[i]) * dtype(v[j])", "return result"], dtype=dtype)


# ------------------------------------------------------------------ the composites of rules/linalg.py
def _composite(name, choose):
    """A lowering of the composite `name(g, a, b)` whose body `choose(g, a, b)` picks by the operands' ranks."""
    def typer(g, a, b):
        if not all(_value(t) for t in (g, a, b)):
            return None
        body = choose(_ndim(g), _ndim(a), _ndim(b))
        return None if body is None else _impl(("g", "a", "b"), body)
    typer.__doc__ = f"Numba twin of rules.linalg.{name}."
    return lowers(name, ("g", "a", "b"), reference=getattr(rules_linalg, name), prefer_literal=True)(typer)


def _matmul_lhs(g, x1, x2):
    if x2 == 1:
        return ["return L.multiply(g, b)"] if x1 == 1 else ["return L.multiply(L.expand_dims(g, -1), b)"]
    if x1 == 1:
        return ["return L.unbroadcast(L.matmul(L.expand_dims(g, -2), L.swapaxes(b, -1, -2), None, None), a)"]
    return ["return L.unbroadcast(L.matmul(g, L.swapaxes(b, -1, -2), None, None), a)"]


def _matmul_rhs(g, x1, x2):
    if x1 == 1:
        if x2 == 1:
            return ["return L.multiply(g, a)"]
        return ["return L.unbroadcast(L.multiply(L.expand_dims(a, -1), L.expand_dims(g, -2)), b)"]
    if x2 == 1:
        return ["return L.unbroadcast(L.sum(L.multiply(a, L.expand_dims(g, -1)), -2, None, None, False, None, None), b)"]
    return ["return L.unbroadcast(L.matmul(L.swapaxes(a, -1, -2), g, None, None), b)"]


def _dot_lhs(g, a, b):
    if a == 0 or b == 0:
        return ["return L.unbroadcast(L.multiply(g, b), a)"]
    return _matmul_lhs(g, a, b) if b <= 2 else None


def _dot_rhs(g, a, b):
    if a == 0 or b == 0:
        return ["return L.unbroadcast(L.multiply(g, a), b)"]
    return _matmul_rhs(g, a, b) if b <= 2 else None


def _inner_lhs(g, a, b):
    if a == 0 or b == 0:
        return ["return L.unbroadcast(L.multiply(g, b), a)"]
    return ["b2 = L.reshape(b, (-1, np.shape(b)[-1]), 'C', None, None)",
            "g2 = L.reshape(g, (-1, b2.shape[0]), 'C', None, None)",
            "return L.reshape(L.matmul(g2, b2, None, None), np.shape(a), 'C', None, None)"]


def _inner_rhs(g, a, b):
    if a == 0 or b == 0:
        return ["return L.unbroadcast(L.multiply(g, a), b)"]
    return ["a2 = L.reshape(a, (-1, np.shape(a)[-1]), 'C', None, None)",
            "g2 = L.reshape(g, (a2.shape[0], -1), 'C', None, None)",
            "return L.reshape(L.matmul(L.transpose(g2, None), a2, None, None), np.shape(b), 'C', None, None)"]


COMPOSITES = {name: _composite(name, choose) for name, choose in (
    ("matmul_lhs_adjoint", _matmul_lhs), ("matmul_rhs_adjoint", _matmul_rhs),
    ("dot_lhs_adjoint", _dot_lhs), ("dot_rhs_adjoint", _dot_rhs),
    ("inner_lhs_adjoint", _inner_lhs), ("inner_rhs_adjoint", _inner_rhs))}


# ------------------------------------------------------------------ linear algebra (LAPACK through Numba)
def _square_float(a):
    return is_array(a) and a.ndim == 2 and dtype_of(a) is not None and dtype_of(a).kind == "f"


@lowers("inv", ("a",), reference=jnp.linalg.inv)
def _inv(a):
    """linalg.inv of one float matrix (LAPACK's getrf/getri, as NumPy's gesv gives up to rounding)."""
    if not _square_float(a) or _product_dtype(jnp.linalg.inv, a) != dtype_of(a):
        return None
    return _impl(("a",), ["return np.linalg.inv(a)"])


@lowers("det", ("a",), reference=jnp.linalg.det)
def _det(a):
    """linalg.det of one float matrix (LU, as NumPy's)."""
    if not _square_float(a) or _product_dtype(jnp.linalg.det, a) != dtype_of(a):
        return None
    return _impl(("a",), ["return np.linalg.det(a)"])


@lowers("solve", ("a", "b"), reference=jnp.linalg.solve)
def _solve(a, b):
    """linalg.solve for one float matrix and a vector or matrix of the same dtype."""
    if not (_square_float(a) and is_array(b) and b.ndim in (1, 2) and dtype_of(b) == dtype_of(a)):
        return None
    if _product_dtype(jnp.linalg.solve, a, b) != dtype_of(a):
        return None
    return _impl(("a", "b"), ["return np.linalg.solve(a, b)"])


@lowers("solve_lhs_adjoint", ("g", "a", "y"), reference=rules_linalg.solve_lhs_adjoint)
def _solve_lhs_adjoint(g, a, y):
    """Numba twin of rules.linalg.solve_lhs_adjoint: -(solve(a.T, g)) y.T for one matrix a."""
    if not (_square_float(a) and is_array(g) and is_array(y)):
        return None
    lines = ["gb = L.solve(np.ascontiguousarray(L.swapaxes(a, -1, -2)), g)"]
    if y.ndim == a.ndim - 1:
        lines.append("return L.negative(L.multiply(L.expand_dims(gb, -1), L.expand_dims(y, -2)))")
    else:
        lines.append("return L.negative(L.matmul(gb, L.swapaxes(y, -1, -2), None, None))")
    return _impl(("g", "a", "y"), lines)


@lowers("solve_rhs_adjoint", ("g", "a", "b"), reference=rules_linalg.solve_rhs_adjoint)
def _solve_rhs_adjoint(g, a, b):
    """Numba twin of rules.linalg.solve_rhs_adjoint for one matrix a and b of g's rank: solve(a.T, g)."""
    if not (_square_float(a) and is_array(g) and is_array(b) and b.ndim == g.ndim and dtype_of(g) == dtype_of(a)):
        return None
    return _impl(("g", "a", "b"), ["return L.solve(np.ascontiguousarray(L.swapaxes(a, -1, -2)), g)"])


@lowers("solve_lhs_tangent", ("t", "a", "y"), reference=rules_linalg.solve_lhs_tangent)
def _solve_lhs_tangent(t, a, y):
    """Numba twin of rules.linalg.solve_lhs_tangent for one matrix a: -solve(a, t y)."""
    if not (_square_float(a) and is_array(t) and is_array(y) and y.ndim in (1, 2)):
        return None
    return _impl(("t", "a", "y"), ["return L.negative(L.solve(a, L.matmul(t, y, None, None)))"])


def _diag_adjoint_reference(g, v, k):
    from ..rules.creation import diag_adjoint
    return diag_adjoint(g, v, k)


@lowers("diag_adjoint", ("g", "v", "k"), reference=_diag_adjoint_reference, prefer_literal=True)
def _diag_adjoint(g, v, k):
    """Numba twin of rules.creation.diag_adjoint: g's k-th diagonal (v a vector), else g put on it."""
    if not (is_array(g) and is_array(v)):
        return None
    if v.ndim == 1:
        return _impl(("g", "v", "k"), ["return L.diagonal(g, k, 0, 1)"])
    return _impl(("g", "v", "k"), ["return L.diagonal_adjoint(g, v, k, 0, 1)"])


COMPOSITES["solve_lhs_adjoint"] = L.solve_lhs_adjoint
COMPOSITES["diag_adjoint"] = L.diag_adjoint
COMPOSITES["solve_rhs_adjoint"] = L.solve_rhs_adjoint
COMPOSITES["solve_lhs_tangent"] = L.solve_lhs_tangent
