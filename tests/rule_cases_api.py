"""Rule cases (tests/test_rules.py) for the API-coverage additions: numpy.linalg's array-API names, vdot,
nextafter, insert, choose, trim_zeros, block and broadcast_arrays.

Same format as tests/rule_cases.py: each function takes the differentiable operands, then
the weight `w` test_rules.py makes shaped like the primitive's result. trim_zeros' input keeps its zeros exactly
zero (central differences would move the trimmed edges) by passing them as a constant.
"""
import numpy as np

import astjax.numpy as jnp
from astjax.numpy._shape import block_flat
from astjax.rules.casts import dtype_adjoint
from astjax.rules.more import broadcast_list
from rule_cases import BROADCAST_SHAPES, Case, normal, nonzero

CASES = []


def case(primitive, label, fn, *args, argnums=None):
    CASES.append(Case(primitive, label, fn, tuple(args), tuple(range(len(args))) if argnums is None else argnums))


# ------------------------------------------------------------------ numpy.linalg's array-API names
def linalg_diagonal_fn(x, w):
    return jnp.sum(w * jnp.linalg.diagonal(x, offset=1))


def linalg_trace_fn(x, w):
    return jnp.sum(w * jnp.linalg.trace(x))


def matrix_norm_fro(x, w):
    return jnp.sum(w * jnp.linalg.matrix_norm(x))


def matrix_norm_nuc(x, w):
    return jnp.sum(w * np.linalg.matrix_norm(x, ord="nuc", keepdims=True))


def vector_norm_all(x, w):
    return jnp.sum(w * jnp.linalg.vector_norm(x))


def vector_norm_axes(x, w):
    return jnp.sum(w * jnp.linalg.vector_norm(x, axis=(0, 2), keepdims=True, ord=3))


case("linalg_diagonal", "batch_offset", linalg_diagonal_fn, normal(2, 3, 4))
case("linalg_trace", "batch", linalg_trace_fn, normal(2, 3, 3))
case("matrix_norm", "fro_batch", matrix_norm_fro, normal(2, 3, 4))
case("matrix_norm", "nuc_keepdims", matrix_norm_nuc, normal(2, 3, 3))
case("vector_norm", "all", vector_norm_all, normal(2, 3))
case("vector_norm", "axes_ord3", vector_norm_axes, nonzero(0.3, 2.0, 2, 3, 4))


# ------------------------------------------------------------------ products and elementwise
def vdot_fn(a, b, w):
    return w * jnp.vdot(a, b)


def nextafter_fn(x1, x2, w):
    return jnp.sum(w * jnp.nextafter(x1, x2))


case("vdot", "reshaped", vdot_fn, normal(2, 3), normal(6))
case("nextafter", "broadcast", nextafter_fn, normal(3, 2), normal(2))
for _label, _shape1, _shape2 in BROADCAST_SHAPES:
    case("nextafter", _label, nextafter_fn, normal(*_shape1), normal(*_shape2))


# ------------------------------------------------------------------ insert, choose, trim_zeros
def insert_axis(arr, values, w):
    return jnp.sum(w * jnp.insert(arr, 1, values, axis=0))


def insert_flat(arr, values, w):
    return jnp.sum(w * jnp.insert(arr, [0, 2, 2], values))


def choose_list(c0, c1, w):
    return jnp.sum(w * jnp.choose(np.array([[0, 1, 1], [1, 0, 1]]), [c0, c1]))


def choose_array(choices, w):
    return jnp.sum(w * jnp.choose(np.array([[0, 2, 4], [3, 1, 0]]), choices, mode="wrap"))


def trim_zeros_fn(x, w):
    padded = jnp.concatenate([jnp.zeros(2), x, jnp.zeros(1)])
    return jnp.sum(w * jnp.trim_zeros(padded))


case("insert", "row", insert_axis, normal(3, 2), normal(2))
case("insert", "flat_broadcast", insert_flat, normal(2, 2), normal())
case("choose", "list", choose_list, normal(2, 3), normal(3))
case("choose", "array_wrap", choose_array, normal(3, 3))
case("trim_zeros", "both", trim_zeros_fn, nonzero(0.5, 2.0, 4))


# ------------------------------------------------------------------ block and broadcast_arrays
def block_fn(a, b, w):
    return jnp.sum(w * jnp.block([[a, b], [b, a]]))


def block_flat_fn(a, b, w):
    return jnp.sum(w * block_flat([a, b, 2.0], (0, 1, 2)))


def broadcast_arrays_fn(a, b, w):
    x, y = jnp.broadcast_arrays(a, b)
    return jnp.sum(w * (x * y + x))


def broadcast_list_fn(a, b, w):
    x, y = broadcast_list([a, b])
    return jnp.sum(w * (x - 2.0 * y))


case("block_flat", "nested", block_fn, normal(2, 2), normal(2, 3))
case("block_flat", "flat", block_flat_fn, normal(3), normal(2))
case("broadcast_arrays", "two", broadcast_arrays_fn, normal(3, 1), normal(4))
case("broadcast_list", "two", broadcast_list_fn, normal(3, 1), normal(4))


# ------------------------------------------------------------------ identity-like conversions
def ascontiguousarray_fn(a, w):
    return jnp.sum(w * jnp.ascontiguousarray(a))


def asanyarray_fn(a, w):
    return jnp.sum(w * np.asanyarray(a, np.float64))


def asarray_chkfinite_fn(a, w):
    return jnp.sum(w * jnp.asarray_chkfinite(a))


def require_fn(a, w):
    return jnp.sum(w * np.require(a, None, "C"))


case("ascontiguousarray", "matrix", ascontiguousarray_fn, normal(2, 3))
case("asanyarray", "dtype", asanyarray_fn, normal(3))
case("asarray_chkfinite", "vector", asarray_chkfinite_fn, normal(4))
case("require", "requirements", require_fn, normal(2, 2))


# ------------------------------------------------------------------ dtype_adjoint (an integer dtype= zeroes derivatives)
def dtype_adjoint_float(g, w):
    return jnp.sum(w * dtype_adjoint(g, jnp.float64))


def dtype_adjoint_int(g, w):
    return jnp.sum(w * dtype_adjoint(g, jnp.int32))


case("dtype_adjoint", "float", dtype_adjoint_float, normal(2, 3))
case("dtype_adjoint", "int", dtype_adjoint_int, normal(3))
