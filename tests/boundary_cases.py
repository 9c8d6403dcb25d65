"""Boundary points of elementwise and reduction primitives: kinks, ties, zeros (tests/test_primitive_boundaries.py).

Each function takes float64 arrays and returns a scalar. The test runs the same function under astjax
and under JAX (its globals' `jnp` swapped for jax.numpy) and compares grad and jvp at the points listed
in BOUNDARY_CASES: (label, function, arguments).
"""
import numpy as np

import astjax.numpy as jnp


def _a(*values):
    return np.asarray(values, dtype=np.float64)


def abs_fn(x):
    return jnp.sum(jnp.abs(x) * jnp.arange(1.0, 4.0))


def maximum_fn(x, y):
    return jnp.sum(jnp.maximum(x, y) * jnp.arange(1.0, 4.0))


def minimum_fn(x, y):
    return jnp.sum(jnp.minimum(x, y) * jnp.arange(1.0, 4.0))


def relu_fn(x):
    return jnp.sum(jnp.maximum(x, 0.0) * jnp.arange(1.0, 4.0))


def relu_where(x):
    return jnp.sum(jnp.where(x > 0, x, 0.0) * jnp.arange(1.0, 4.0))


def max_fn(x):
    return jnp.max(x)


def min_fn(x):
    return jnp.min(x)


def max_axis(x):
    return jnp.sum(jnp.max(x, axis=1) * jnp.arange(1.0, 3.0))


def sort_fn(x):
    return jnp.sum(jnp.sort(x) * jnp.arange(1.0, 5.0))


def argsort_fn(x):
    return jnp.sum(x[jnp.argsort(x)] * jnp.arange(1.0, 5.0))


def clip_fn(x):
    return jnp.sum(jnp.clip(x, -1.0, 1.0) * jnp.arange(1.0, 4.0))


def sign_fn(x):
    return jnp.sum(jnp.sign(x) * x)


def floor_fn(x):
    return jnp.sum(jnp.floor(x) + jnp.round(x) + jnp.ceil(x) + x)


def sqrt_fn(x):
    return jnp.sum(jnp.sqrt(x))


def log_fn(x):
    return jnp.sum(jnp.log(x))


def power_base_fn(x):
    return jnp.sum(x ** 2.0 + x ** 3)


def power_half_fn(x):
    return jnp.sum(x ** 0.5)


def power_exponent_fn(x, y):
    return jnp.sum(x ** y)


def norm_fn(x):
    return jnp.linalg.norm(x)


def arctan2_fn(y, x):
    return jnp.sum(jnp.arctan2(y, x))


def hypot_fn(x, y):
    return jnp.sum(jnp.hypot(x, y))


def abs_square_fn(x):
    return jnp.sum(jnp.abs(x) ** 2)


BOUNDARY_CASES = [
    ("abs-at_zero", abs_fn, (_a(0.0, -0.0, 1.5),)),
    ("maximum-ties", maximum_fn, (_a(1.0, -2.0, 0.0), _a(1.0, -2.0, 0.0))),
    ("minimum-ties", minimum_fn, (_a(1.0, -2.0, 0.0), _a(1.0, -2.0, 0.0))),
    ("relu-maximum_at_zero", relu_fn, (_a(0.0, -1.0, 2.0),)),
    ("relu-where_at_zero", relu_where, (_a(0.0, -1.0, 2.0),)),
    ("max-ties", max_fn, (_a(3.0, 1.0, 3.0, 3.0),)),
    ("min-ties", min_fn, (_a(-3.0, 1.0, -3.0),)),
    ("max-axis_ties", max_axis, (np.array([[2.0, 2.0, 1.0], [0.0, 5.0, 5.0]]),)),
    ("sort-ties", sort_fn, (_a(2.0, 1.0, 2.0, 1.0),)),
    ("argsort-ties", argsort_fn, (_a(2.0, 1.0, 2.0, 1.0),)),
    ("clip-at_bounds", clip_fn, (_a(-1.0, 1.0, 0.5),)),
    ("sign-at_zero", sign_fn, (_a(0.0, 2.0, -3.0),)),
    ("floor_round_ceil-at_integers", floor_fn, (_a(1.0, 2.5, -0.5),)),
    ("sqrt-at_zero", sqrt_fn, (_a(0.0, 4.0),)),
    ("log-at_zero", log_fn, (_a(0.0, 2.0),)),
    ("power-base_at_zero", power_base_fn, (_a(0.0, 1.0),)),
    ("power-half_at_zero", power_half_fn, (_a(0.0, 1.0),)),
    ("power-zero_to_the_y", power_exponent_fn, (_a(0.0, 0.0, 2.0), _a(2.0, 0.0, 1.5))),
    ("norm-at_zero", norm_fn, (_a(0.0, 0.0, 0.0),)),
    ("arctan2-at_origin", arctan2_fn, (_a(0.0, 1.0), _a(0.0, 0.0))),
    ("hypot-at_origin", hypot_fn, (_a(0.0, 3.0), _a(0.0, 4.0))),
    ("abs_square-at_zero", abs_square_fn, (_a(0.0, -1.0, 2.0),)),
]


def fabs_fn(x):
    return jnp.sum(jnp.fabs(x) * jnp.arange(1.0, 4.0))


def abs_builtin_fn(x):
    return jnp.sum(abs(x) * jnp.arange(1.0, 4.0))


BOUNDARY_CASES += [
    ("fabs-at_zero", fabs_fn, (_a(0.0, -0.0, -1.5),)),
    ("abs-builtin_at_zero", abs_builtin_fn, (_a(0.0, -0.0, -1.5),)),
]


def std_fn(x):
    return jnp.std(x)


def prod_fn(x):
    return jnp.prod(x)


def cumprod_fn(x):
    return jnp.sum(jnp.cumprod(x) * jnp.arange(1.0, 4.0))


def fmax_fn(x, y):
    return jnp.sum(jnp.fmax(x, y) * jnp.arange(1.0, 4.0))


def fmin_fn(x, y):
    return jnp.sum(jnp.fmin(x, y) * jnp.arange(1.0, 4.0))


def amax_keepdims_fn(x):
    return jnp.sum(jnp.max(x, axis=0, keepdims=True) * jnp.arange(1.0, 3.0))


def clip_upper_fn(x):
    return jnp.sum(jnp.clip(x, None, 0.0) * jnp.arange(1.0, 4.0))


def copysign_fn(x, y):
    return jnp.sum(jnp.copysign(x, y) * jnp.arange(1.0, 4.0))


def sinc_fn(x):
    return jnp.sum(jnp.sinc(x))


def logaddexp_fn(x, y):
    return jnp.sum(jnp.logaddexp(x, y))


def cbrt_fn(x):
    return jnp.sum(jnp.cbrt(x))


def norm_rows_fn(x):
    return jnp.sum(jnp.linalg.norm(x, axis=1) * jnp.arange(1.0, 3.0))


def where_same_fn(x):
    return jnp.sum(jnp.where(x >= 0.0, x * x, -x))


BOUNDARY_CASES += [
    ("std-constant", std_fn, (_a(2.0, 2.0, 2.0),)),
    ("prod-one_zero", prod_fn, (_a(0.0, 2.0, 3.0),)),
    ("prod-two_zeros", prod_fn, (_a(0.0, 2.0, 0.0),)),
    ("cumprod-zero", cumprod_fn, (_a(2.0, 0.0, 3.0),)),
    ("fmax-ties", fmax_fn, (_a(1.0, 0.0, -2.0), _a(1.0, 0.0, 3.0))),
    ("fmin-ties", fmin_fn, (_a(1.0, 0.0, -2.0), _a(1.0, 0.0, 3.0))),
    ("max-keepdims_ties", amax_keepdims_fn, (np.array([[1.0, 2.0], [1.0, 2.0], [0.0, 2.0]]),)),
    ("clip-upper_at_bound", clip_upper_fn, (_a(0.0, -1.0, 1.0),)),
    ("copysign-at_zero", copysign_fn, (_a(0.0, 2.0, -1.0), _a(0.0, -0.0, 1.0))),
    ("sinc-at_zero", sinc_fn, (_a(0.0, 0.5),)),
    ("logaddexp-equal", logaddexp_fn, (_a(0.0, 1.0), _a(0.0, 1.0))),
    ("cbrt-at_zero", cbrt_fn, (_a(0.0, 8.0),)),
    ("norm-rows_at_zero", norm_rows_fn, (np.array([[0.0, 0.0], [3.0, 4.0]]),)),
    ("where-kink_at_zero", where_same_fn, (_a(0.0, -1.0, 2.0),)),
]


def fmax_nan_fn(x, y):
    return jnp.sum(jnp.fmax(x, y) * jnp.arange(1.0, 4.0))


BOUNDARY_CASES += [
    ("fmax-nan_operands", fmax_nan_fn, (_a(np.nan, 1.0, np.nan), _a(1.0, np.nan, np.nan))),
    ("fmin-nan_operands", fmin_fn, (_a(np.nan, 1.0, np.nan), _a(1.0, np.nan, np.nan))),
]
