"""Rule cases (tests/test_rules.py) for the last jax.numpy functions (astjax/numpy/_more.py, astjax/rules/more.py).

Same format as tests/rule_cases.py: the differentiable operands first, a weight `w`
shaped like the primitive's result last. Inputs stay away from the jumps of the
piecewise parts (modf's integers, divmod's quotient, unwrap's thresholds, ties in
partition).
"""
import numpy as np

import astjax.numpy as jnp
from rule_cases import Case, _array, normal, nonzero

CASES = []


def case(primitive, label, fn, *args, argnums=None):
    CASES.append(Case(primitive, label, fn, tuple(args), tuple(range(len(args))) if argnums is None else argnums))


_PUT_AT = _array([1, 4, 1, 0]).astype(np.int64)
_PLACE_MASK = _array([[True, False, True], [False, True, True]]).astype(bool)
_FIT_X = _array(np.linspace(-1.0, 1.5, 7))


# ------------------------------------------------------------------ products
def vecdot_fn(x1, x2, w):
    return jnp.sum(w * jnp.vecdot(x1, x2))


def vecdot_axis(x1, x2, w):
    return jnp.sum(w * jnp.vecdot(x1, x2, axis=0))


def matvec_fn(x1, x2, w):
    return jnp.sum(w * jnp.matvec(x1, x2))


def vecmat_fn(x1, x2, w):
    return jnp.sum(w * np.vecmat(x1, x2))


case("vecdot", "broadcast", vecdot_fn, normal(3, 4), normal(4))
case("vecdot", "axis0", vecdot_axis, normal(3, 2), normal(3, 2))
case("matvec", "batch", matvec_fn, normal(2, 3, 4), normal(4))
case("vecmat", "batch", vecmat_fn, normal(3), normal(2, 3, 4))


# ------------------------------------------------------------------ tuple-valued math
def modf_fn(x, w):
    fraction, integral = jnp.modf(x)
    return jnp.sum(w * (fraction * fraction + integral))


def frexp_fn(x, w):
    mantissa, exponent = jnp.frexp(x)
    return jnp.sum(w * (mantissa * mantissa * exponent))


def divmod_fn(x1, x2, w):
    quotient, remainder = jnp.divmod(x1, x2)
    return jnp.sum(w * (remainder * remainder + quotient))


case("modf", "signs", modf_fn, _array([2.3, -1.6, 0.45, -3.7]))
case("frexp", "signs", frexp_fn, _array([3.3, -0.3, 0.7, -5.1]))
case("divmod", "broadcast", divmod_fn, _array([[7.3, -4.6, 2.2], [-1.3, 5.4, 9.9]]), _array([2.1, 1.7, -3.2]))


# ------------------------------------------------------------------ elementwise
def unwrap_fn(p, w):
    return jnp.sum(w * jnp.unwrap(p) ** 2)


def angle_fn(z, w):
    return jnp.sum(w * jnp.angle(z) * z)


def partition_fn(a, w):
    return jnp.sum(w * jnp.partition(a, 2) ** 2)


def partition_axis(a, w):
    return jnp.sum(w * np.partition(a, 1, axis=0))


def kaiser_fn(beta, w):
    return jnp.sum(w * jnp.kaiser(7, beta))


case("unwrap", "jumps", unwrap_fn, _array([0.1, 3.9, 7.0, 0.4, -2.9, 2.5]))
case("angle", "real", angle_fn, nonzero(0.5, 2.0, 5))
case("partition", "vector", partition_fn, _array([0.3, -1.2, 2.5, 0.9, -0.4]))
case("partition", "axis0", partition_axis, _array([[0.3, 1.1], [-1.2, 2.4], [2.5, -0.7]]))
case("kaiser", "beta", kaiser_fn, _array(2.7))


# ------------------------------------------------------------------ immutable updates
def fill_diagonal_fn(a, val, w):
    return jnp.sum(w * jnp.fill_diagonal(a, val, inplace=False) ** 2)


def fill_diagonal_wrap(a, val, w):
    return jnp.sum(w * jnp.fill_diagonal(a, val, wrap=True, inplace=False))


def place_fn(arr, vals, w):
    return jnp.sum(w * jnp.place(arr, _PLACE_MASK, vals, inplace=False) ** 2)


def put_fn(a, v, w):
    return jnp.sum(w * jnp.put(a, _PUT_AT, v, inplace=False) ** 2)


case("fill_diagonal", "cyclic", fill_diagonal_fn, normal(3, 3), normal(2))
case("fill_diagonal", "wrap_scalar", fill_diagonal_wrap, normal(7, 3), normal())
case("place", "cyclic", place_fn, normal(2, 3), normal(3))
case("put", "repeated_index", put_fn, normal(5), normal(3))


_ALONG = _array([[0, 2], [1, 1], [2, 0]]).astype(np.int64)
_ALONG_ROW = _array([[1, 1, 0]]).astype(np.int64)


def put_along_axis_fn(arr, values, w):
    return jnp.sum(w * jnp.put_along_axis(arr, _ALONG, values, 1, inplace=False) ** 2)


def put_along_axis_repeated(arr, values, w):
    return jnp.sum(w * jnp.put_along_axis(arr, _ALONG_ROW, values, 0, inplace=False) ** 2)


case("put_along_axis", "broadcast_values", put_along_axis_fn, normal(3, 4), normal(3, 1))
case("put_along_axis", "repeated_index", put_along_axis_repeated, normal(2, 3), normal(1, 3))


# ------------------------------------------------------------------ fitting
def polyfit_fn(y, w):
    return jnp.sum(w * jnp.polyfit(_FIT_X, y, 2))


def polyfit_columns(y, w):
    return jnp.sum(w * np.polyfit(_FIT_X, y, 1))


case("polyfit", "vector", polyfit_fn, normal(7))
case("polyfit", "columns", polyfit_columns, normal(7, 2))
