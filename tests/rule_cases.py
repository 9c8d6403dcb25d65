"""The table behind tests/test_rules.py: one small function per way a primitive is used.

astjax reads a function's source, so every case is a module-level function in
this file. Each takes the primitive's differentiable operands first (the ones
named by the case's `argnums`), then any static or non-differentiable
arguments, and last a weight `w` shaped like the primitive's result; it
returns `jnp.sum(w * <primitive applied the way a user writes it>)`. The
random weight makes every output element count in the gradient.

`CASES` lists `Case(primitive, label, fn, args, argnums)`; the weight is added
by the test. Inputs are float64 and lie in each primitive's smooth domain
(away from kinks, ties and singularities) so central differences are accurate.
The first case listed for a primitive is its representative: the second-order
test differentiates its gradient again, so keep it a general one.
"""
import math
from collections import namedtuple

import numpy as np

import astjax.numpy as jnp
from astjax import lax
from astjax.rules.batching_eighth import batch_item_adjoint     # vmap's item_adjoint of a batched tree
from astjax.rules.helpers import (array_adjoint, array_items, jacobian_input, attribute_adjoint, broadcast_like, cumsum_adjoint, trace_adjoint, unbroadcast_to, take_adjoint, sum_adjoint, sum_items,
                                  concatenate_adjoint, concatenate_items, concatenate_part,
                                  concatenate_part_adjoint, dynamic_slice_adjoint, field_of_adjoint,
                                  index_adjoint, index_adjoint_part, item_adjoint, pad_adjoint, pad_tangent, pad_constant_adjoint, pad_constant_tangent, inplace_result, stack_adjoint, stack_items,
                                  stack_part, stack_part_adjoint, tree_item_adjoint, unbroadcast, unreduce,
                                  part_at, placed_at, cleared_at, list_items, tuple_items)

Case = namedtuple("Case", "primitive label fn args argnums")

_rng = np.random.default_rng(20240607)


def _array(values):
    """A float64 astjax Array (0-d for a scalar): what a user passes, `.at[]` included."""
    return jnp.asarray(np.asarray(values, dtype=np.float64))


def normal(*shape):
    """Standard normal float64 values (a 0-d array for shape ())."""
    return _array(_rng.standard_normal(shape))


def uniform(low, high, *shape):
    return _array(_rng.uniform(low, high, shape))


def nonzero(low, high, *shape):
    """Magnitudes in [low, high) with random signs: away from zero."""
    signs = np.where(_rng.random(shape) < 0.5, -1.0, 1.0)
    return _array(uniform(low, high, *shape) * signs)


def scalar(value):
    """A float64 0-d array (astjax would turn a Python float into float32)."""
    return _array(value)


CASES = []


def case(primitive, label, fn, *args, argnums=None):
    """Register a case; argnums defaults to the leading array arguments."""
    if argnums is None:
        argnums = tuple(range(len(args)))
    CASES.append(Case(primitive, label, fn, tuple(args), tuple(argnums)))


# ======================================================================= elementwise
# --------------------------------------------------------------- binary operators
def add_op(x1, x2, w):
    return jnp.sum(w * (x1 + x2))


def subtract_op(x1, x2, w):
    return jnp.sum(w * (x1 - x2))


def multiply_op(x1, x2, w):
    return jnp.sum(w * (x1 * x2))


def divide_op(x1, x2, w):
    return jnp.sum(w * (x1 / x2))


def power_op(x1, x2, w):
    return jnp.sum(w * x1 ** x2)


def mod_op(x1, x2, w):
    return jnp.sum(w * (x1 % x2))


def maximum_fn(x1, x2, w):
    return jnp.sum(w * jnp.maximum(x1, x2))


def minimum_fn(x1, x2, w):
    return jnp.sum(w * jnp.minimum(x1, x2))


def arctan2_fn(x1, x2, w):
    return jnp.sum(w * jnp.arctan2(x1, x2))


# The same primitives called as functions.
def add_fn(x1, x2, w):
    return jnp.sum(w * jnp.add(x1, x2))


def subtract_fn(x1, x2, w):
    return jnp.sum(w * jnp.subtract(x1, x2))


def multiply_fn(x1, x2, w):
    return jnp.sum(w * jnp.multiply(x1, x2))


def divide_fn(x1, x2, w):
    return jnp.sum(w * jnp.true_divide(x1, x2))


def power_fn(x1, x2, w):
    return jnp.sum(w * jnp.power(x1, x2))


def mod_fn(x1, x2, w):
    return jnp.sum(w * jnp.remainder(x1, x2))


def power_const_exponent(x, w):
    return jnp.sum(w * x ** 3.0)


def power_const_base(x, w):
    return jnp.sum(w * 1.7 ** x)


def divide_const_numerator(x, w):
    return jnp.sum(w * (2.0 / x))


BROADCAST_SHAPES = [  # (label, shape of x1, shape of x2)
    ("col_row", (3, 1), (1, 4)),
    ("same", (3, 4), (3, 4)),
    ("scalar_array", (), (3, 4)),
    ("array_scalar", (3, 4), ()),
    ("vec_rank3", (4,), (2, 3, 4)),
    ("rank3_vec", (2, 3, 4), (4,)),
]

BINARY_DOMAINS = {  # name -> (function, sample x1, sample x2)
    "add": (add_op, normal, normal),
    "subtract": (subtract_op, normal, normal),
    "multiply": (multiply_op, normal, normal),
    "divide": (divide_op, normal, lambda *s: nonzero(0.5, 2.0, *s)),
    "power": (power_op, lambda *s: uniform(0.5, 2.0, *s), lambda *s: uniform(-1.5, 1.5, *s)),
    "maximum": (maximum_fn, normal, normal),
    "minimum": (minimum_fn, normal, normal),
    "arctan2": (arctan2_fn, lambda *s: nonzero(0.3, 2.0, *s), lambda *s: nonzero(0.3, 2.0, *s)),
    "mod": (mod_op, lambda *s: uniform(-3.0, 3.0, *s), lambda *s: nonzero(0.7, 1.5, *s)),
}


for _name, (_fn, _s1, _s2) in BINARY_DOMAINS.items():
    for _label, _shape1, _shape2 in BROADCAST_SHAPES:
        _x1, _x2 = _s1(*_shape1), _s2(*_shape2)
        case(_name, _label, _fn, _x1, _x2)

for _name, _fn, _s1, _s2 in [("add", add_fn, normal, normal), ("subtract", subtract_fn, normal, normal),
                             ("multiply", multiply_fn, normal, normal),
                             ("divide", divide_fn, normal, lambda *s: nonzero(0.5, 2.0, *s)),
                             ("power", power_fn, lambda *s: uniform(0.5, 2.0, *s),
                              lambda *s: uniform(-1.5, 1.5, *s)),
                             ("mod", mod_fn, lambda *s: uniform(0.1, 0.9, *s), lambda *s: uniform(1.0, 1.5, *s))]:
    case(_name, "call_col_row", _fn, _s1(3, 1), _s2(1, 4))

case("power", "const_exponent_negative_base", power_const_exponent, normal(3, 4))
case("power", "const_base", power_const_base, normal(3, 4))
case("divide", "const_numerator", divide_const_numerator, nonzero(0.5, 2.0, 3, 4))

# Ties: central differences see half the slope on each side, and JAX gives 0.5 to each operand.
_TIES = normal(3, 4)
_TIES_OTHER = _array(np.where(_rng.random((3, 4)) < 0.5, np.asarray(_TIES), np.asarray(normal(3, 4))))
case("maximum", "ties", maximum_fn, _TIES, _TIES_OTHER)
case("minimum", "ties", minimum_fn, _TIES, _TIES_OTHER)
# A zero base with integer exponents (slope 0 in both), and zero exponents (slope 0 in the base).
case("power", "zero_base", power_op, _array([[0.0, 0.5, 0.0], [1.5, 0.0, 0.7]]),
     _array([[2.0, 3.0, 3.0], [2.0, 4.0, 1.5]]))
case("power", "zero_exponent", power_op, _array([[0.0, 0.5], [1.5, 0.0]]), _array([[0.0, 0.0], [0.0, 2.0]]),
     argnums=(0,))


# ------------------------------------------------------------------ unary functions
def negative_op(x, w):
    return jnp.sum(w * -x)


def positive_op(x, w):
    return jnp.sum(w * +x)


def negative_fn(x, w):
    return jnp.sum(w * jnp.negative(x))


def positive_fn(x, w):
    return jnp.sum(w * jnp.positive(x))


def square_fn(x, w):
    return jnp.sum(w * jnp.square(x))


def sqrt_fn(x, w):
    return jnp.sum(w * jnp.sqrt(x))


def reciprocal_fn(x, w):
    return jnp.sum(w * jnp.reciprocal(x))


def abs_fn(x, w):
    return jnp.sum(w * jnp.abs(x))


def abs_builtin(x, w):
    return jnp.sum(w * abs(x))


def exp_fn(x, w):
    return jnp.sum(w * jnp.exp(x))


def expm1_fn(x, w):
    return jnp.sum(w * jnp.expm1(x))


def log_fn(x, w):
    return jnp.sum(w * jnp.log(x))


def log1p_fn(x, w):
    return jnp.sum(w * jnp.log1p(x))


def log2_fn(x, w):
    return jnp.sum(w * jnp.log2(x))


def log10_fn(x, w):
    return jnp.sum(w * jnp.log10(x))


def sin_fn(x, w):
    return jnp.sum(w * jnp.sin(x))


def cos_fn(x, w):
    return jnp.sum(w * jnp.cos(x))


def tan_fn(x, w):
    return jnp.sum(w * jnp.tan(x))


def arcsin_fn(x, w):
    return jnp.sum(w * jnp.arcsin(x))


def arccos_fn(x, w):
    return jnp.sum(w * jnp.arccos(x))


def arctan_fn(x, w):
    return jnp.sum(w * jnp.arctan(x))


def sinh_fn(x, w):
    return jnp.sum(w * jnp.sinh(x))


def cosh_fn(x, w):
    return jnp.sum(w * jnp.cosh(x))


def tanh_fn(x, w):
    return jnp.sum(w * jnp.tanh(x))


def sin_math(x, w):
    return w * math.sin(x)


def exp_math(x, w):
    return w * math.exp(x)


def log_math(x, w):
    return w * math.log(x)


def sqrt_math(x, w):
    return w * math.sqrt(x)


def sin_numpy(x, w):
    return jnp.sum(w * np.sin(x))


UNARY = {  # name -> (function, sample)
    "negative": (negative_fn, normal),
    "positive": (positive_fn, normal),
    "square": (square_fn, normal),
    "sqrt": (sqrt_fn, lambda *s: uniform(0.3, 2.0, *s)),
    "reciprocal": (reciprocal_fn, lambda *s: nonzero(0.5, 2.0, *s)),
    "abs": (abs_fn, lambda *s: nonzero(0.2, 2.0, *s)),
    "exp": (exp_fn, normal),
    "expm1": (expm1_fn, normal),
    "log": (log_fn, lambda *s: uniform(0.3, 2.0, *s)),
    "log1p": (log1p_fn, lambda *s: uniform(-0.6, 2.0, *s)),
    "log2": (log2_fn, lambda *s: uniform(0.3, 2.0, *s)),
    "log10": (log10_fn, lambda *s: uniform(0.3, 2.0, *s)),
    "sin": (sin_fn, normal),
    "cos": (cos_fn, normal),
    "tan": (tan_fn, lambda *s: uniform(-1.2, 1.2, *s)),
    "arcsin": (arcsin_fn, lambda *s: uniform(-0.9, 0.9, *s)),
    "arccos": (arccos_fn, lambda *s: uniform(-0.9, 0.9, *s)),
    "arctan": (arctan_fn, normal),
    "sinh": (sinh_fn, normal),
    "cosh": (cosh_fn, normal),
    "tanh": (tanh_fn, normal),
}

for _name, (_fn, _sample) in UNARY.items():
    case(_name, "scalar", _fn, _sample())
    case(_name, "2x3", _fn, _sample(2, 3))

case("negative", "operator", negative_op, normal(2, 3))
case("positive", "operator", positive_op, normal(2, 3))
case("abs", "builtin", abs_builtin, nonzero(0.2, 2.0, 2, 3))
case("sin", "math_scalar", sin_math, normal())
case("exp", "math_scalar", exp_math, normal())
case("log", "math_scalar", log_math, uniform(0.3, 2.0))
case("sqrt", "math_scalar", sqrt_math, uniform(0.3, 2.0))
case("sin", "numpy_alias", sin_numpy, normal(2, 3))


# ------------------------------------------------------------------------ selection
def where_fn(x1, x2, condition, w):
    return jnp.sum(w * jnp.where(condition, x1, x2))


def where_const_else(x1, condition, w):
    return jnp.sum(w * jnp.where(condition, x1, 0.0))


def clip_both(a, w):
    return jnp.sum(w * jnp.clip(a, -0.5, 0.8))


def clip_min_keyword(a, w):
    return jnp.sum(w * jnp.clip(a, a_min=0.0))


def clip_max_only(a, w):
    return jnp.sum(w * jnp.clip(a, None, 0.3))


def clip_method(a, w):
    return jnp.sum(w * a.clip(-0.5, 0.5))


def clip_keywords(a, w):
    return jnp.sum(w * jnp.clip(a, min=-0.5, max=0.5))


def clip_traced_bounds(a, lo, hi, w):
    return jnp.sum(w * jnp.clip(a, lo, hi))


def clip_traced_keywords(a, lo, hi, w):
    return jnp.sum(w * jnp.clip(a, min=lo, max=hi))


def _mask(*shape):
    return _rng.random(shape) < 0.5


for _label, _c, _s1, _s2 in [("same", (3, 4), (3, 4), (3, 4)), ("scalar_array", (3, 4), (), (3, 4)),
                             ("col_row", (3, 4), (3, 1), (1, 4)), ("cond_broadcasts", (2, 3, 4), (3, 4), (4,)),
                             ("cond_col", (3, 1), (1, 4), (3, 4))]:
    case("where", _label, where_fn, normal(*_s1), normal(*_s2), _mask(*_c), argnums=(0, 1))
case("where", "const_else", where_const_else, normal(3, 4), _mask(3, 4), argnums=(0,))


def _away(values, points, margin=0.05):
    """Values moved at least `margin` away from each of `points` (the kinks)."""
    values = np.array(values)
    for p in points:
        near = np.abs(values - p) < margin
        values[near] = p + np.where(values[near] >= p, margin, -margin) * 2
    return _array(values)


case("clip", "both", clip_both, _away(normal(3, 4), (-0.5, 0.8)))
case("clip", "min_keyword", clip_min_keyword, _away(normal(3, 4), (0.0,)))
case("clip", "max_only", clip_max_only, _away(normal(3, 4), (0.3,)))
case("clip", "method", clip_method, _away(normal(3, 4), (-0.5, 0.5)))
case("clip", "at_bounds", clip_both, _array([[-0.5, 0.8, 0.1], [0.8, -0.5, 2.0]]))
case("clip", "min_max_keywords", clip_keywords, _away(normal(3, 4), (-0.5, 0.5)))
# bounds that carry a derivative (JAX: clip is minimum(maximum(a, lo), hi)), broadcast against `a`
_clip_a = _array([[-1.2, -0.1, 0.3, 1.4], [0.9, -0.7, 0.05, 2.0], [-0.35, 0.45, 1.1, -2.0]])
case("clip", "traced_bounds_broadcast", clip_traced_bounds, _clip_a, _array([[-0.5], [0.2], [-0.1]]),
     _array([0.6, 0.8, 0.7, 1.0]), argnums=(0, 1, 2))
case("clip", "traced_scalar_bounds", clip_traced_bounds, _clip_a, _array(-0.2), _array(0.7), argnums=(0, 1, 2))
case("clip", "traced_keywords", clip_traced_keywords, _clip_a, _array(-0.2), _array(0.7), argnums=(0, 1, 2))


# ======================================================================= reductions
def sum_all(a, w):
    return w * jnp.sum(a)


def sum_axis1(a, w):
    return jnp.sum(w * jnp.sum(a, axis=1))


def sum_axes_keepdims(a, w):
    return jnp.sum(w * jnp.sum(a, axis=(0, 2), keepdims=True))


def sum_negative_axis(a, w):
    return jnp.sum(w * jnp.sum(a, -1))


def sum_method(a, w):
    return jnp.sum(w * a.sum(axis=0))


def mean_all(a, w):
    return w * jnp.mean(a)


def mean_axis1(a, w):
    return jnp.sum(w * jnp.mean(a, axis=1))


def mean_axes_keepdims(a, w):
    return jnp.sum(w * jnp.mean(a, axis=(0, 2), keepdims=True))


def mean_method(a, w):
    return jnp.sum(w * a.mean(-1))


def prod_all(a, w):
    return w * jnp.prod(a)


def prod_axis1(a, w):
    return jnp.sum(w * jnp.prod(a, axis=1))


def prod_keepdims(a, w):
    return jnp.sum(w * jnp.prod(a, axis=-1, keepdims=True))


def max_all(a, w):
    return w * jnp.max(a)


def max_axis1(a, w):
    return jnp.sum(w * jnp.max(a, axis=1))


def max_keepdims(a, w):
    return jnp.sum(w * jnp.max(a, axis=(0, 2), keepdims=True))


def max_amax(a, w):
    return jnp.sum(w * jnp.amax(a, axis=0))


def max_method(a, w):
    return jnp.sum(w * a.max(axis=-1))


def min_all(a, w):
    return w * jnp.min(a)


def min_axis1(a, w):
    return jnp.sum(w * jnp.min(a, axis=1))


def min_keepdims(a, w):
    return jnp.sum(w * jnp.min(a, axis=-1, keepdims=True))


def min_method(a, w):
    return jnp.sum(w * a.min(axis=0))


def var_all(a, w):
    return w * jnp.var(a)


def var_axis_ddof(a, w):
    return jnp.sum(w * jnp.var(a, axis=1, ddof=1))


def var_keepdims(a, w):
    return jnp.sum(w * jnp.var(a, axis=(0, 2), keepdims=True))


def std_all(a, w):
    return w * jnp.std(a)


def std_axis_ddof(a, w):
    return jnp.sum(w * jnp.std(a, axis=0, ddof=1))


def std_keepdims(a, w):
    return jnp.sum(w * jnp.std(a, axis=-1, keepdims=True))


def sum_where(a, where, w):
    return jnp.sum(w * jnp.sum(a, axis=1, where=where))


def mean_where(a, where, w):
    return jnp.sum(w * jnp.mean(a, axis=(0, 2), where=where))


def var_where(a, where, w):
    return jnp.sum(w * jnp.var(a, axis=1, where=where, keepdims=True))


def std_where(a, where, w):
    return jnp.sum(w * jnp.std(a, axis=-1, ddof=1, where=where))


def var_correction(a, w):
    return jnp.sum(w * jnp.var(a, axis=(0, 1), correction=1))


def std_correction(a, w):
    return w * jnp.std(a, correction=2)


def max_initial(a, w):
    return jnp.sum(w * jnp.max(a, axis=1, initial=1.0))


for _name, _fns, _sample in [
        ("sum", [sum_all, sum_axis1, sum_axes_keepdims, sum_negative_axis, sum_method], normal),
        ("mean", [mean_all, mean_axis1, mean_axes_keepdims, mean_method], normal),
        ("prod", [prod_all, prod_axis1, prod_keepdims], lambda *s: nonzero(0.6, 1.4, *s)),
        ("max", [max_all, max_axis1, max_keepdims, max_amax, max_method], normal),
        ("min", [min_all, min_axis1, min_keepdims, min_method], normal),
        ("var", [var_all, var_axis_ddof, var_keepdims], normal),
        ("std", [std_all, std_axis_ddof, std_keepdims], normal)]:
    for _fn in _fns:
        case(_name, _fn.__name__.split("_", 1)[1], _fn, _sample(2, 3, 4))
case("sum", "vector", sum_all, normal(5))
_MASK_2x3x4 = np.asarray(_rng.random((2, 3, 4)) < 0.6)
_MASK_2x3x4[:, 0, :] = True      # every slice keeps an element (var/std need two)
_MASK_2x3x4[:, 1, 0] = True
case("sum", "where", sum_where, normal(2, 3, 4), _MASK_2x3x4, argnums=(0,))
case("mean", "where", mean_where, normal(2, 3, 4), _MASK_2x3x4, argnums=(0,))
case("var", "where", var_where, normal(2, 3, 4), _MASK_2x3x4, argnums=(0,))
case("std", "where", std_where, normal(2, 3, 4), _MASK_2x3x4, argnums=(0,))
case("var", "correction", var_correction, normal(2, 3, 4))
case("std", "correction", std_correction, normal(2, 3, 4))
# prod with zeros: one zero in a slice (slope = product of the others), two zeros (slope 0).
case("prod", "zeros", prod_axis1, _array([[[0.0, 1.2, -0.7, 0.9], [0.8, 0.0, 1.1, 0.0], [1.3, 0.6, 0.9, 0.0]],
                                          [[1.1, -0.8, 0.7, 1.2], [0.9, 1.0, 0.0, 0.0], [0.0, 0.7, 0.0, 1.1]]]))
case("prod", "one_zero_all", prod_all, _array([[0.7, -1.2, 0.0], [1.1, 0.9, 1.3]]))
case("max", "tie_pair", max_axis1, _array([[[0.5, 1.0], [0.5, -1.0], [0.2, 1.0]]]))
case("min", "tie_pair", min_all, _array([[0.5, -1.0], [-1.0, 0.3]]))
case("max", "initial", max_initial, _array([[0.3, 1.5, -0.2], [0.1, -0.4, 0.2]]))


# =========================================================================== linalg
def matmul_op(x1, x2, w):
    return jnp.sum(w * (x1 @ x2))


def matmul_fn(x1, x2, w):
    return jnp.sum(w * jnp.matmul(x1, x2))


def dot_fn(a, b, w):
    return jnp.sum(w * jnp.dot(a, b))


def dot_method(a, b, w):
    return jnp.sum(w * a.dot(b))


def outer_fn(a, b, w):
    return jnp.sum(w * jnp.outer(a, b))


def inner_fn(a, b, w):
    return jnp.sum(w * jnp.inner(a, b))


MATMUL_SHAPES = [("mat_mat", (3, 4), (4, 2)), ("vec_mat", (4,), (4, 2)), ("mat_vec", (3, 4), (4,)),
                 ("vec_vec", (4,), (4,)), ("batch_mat", (2, 3, 4), (4, 5)), ("batch_batch", (2, 3, 4), (2, 4, 5)),
                 ("broadcast_batch", (1, 3, 4), (2, 4, 5)), ("mat_batch", (3, 4), (2, 4, 5)),
                 ("vec_batch", (4,), (2, 4, 5)), ("batch_vec", (2, 3, 4), (4,))]
for _label, _s1, _s2 in MATMUL_SHAPES:
    case("matmul", _label, matmul_op, normal(*_s1), normal(*_s2))
case("matmul", "call_mat_mat", matmul_fn, normal(3, 4), normal(4, 2))
case("matmul", "call_vec_mat", matmul_fn, normal(4,), normal(4, 2))

DOT_SHAPES = [("scalar_vec", (), (3,)), ("mat_scalar", (2, 3), ()), ("vec_vec", (4,), (4,)),
              ("mat_vec", (3, 4), (4,)), ("vec_mat", (4,), (4, 2)), ("mat_mat", (3, 4), (4, 2)),
              ("rank3_vec", (2, 3, 4), (4,)), ("rank3_mat", (2, 3, 4), (4, 5)), ("mat_rank3", (3, 4), (2, 4, 5))]
for _label, _s1, _s2 in DOT_SHAPES:
    case("dot", _label, dot_fn, normal(*_s1), normal(*_s2))
case("dot", "method_mat_vec", dot_method, normal(3, 4), normal(4))

for _label, _s1, _s2 in [("vec_vec", (3,), (4,)), ("mat_vec", (2, 2), (3,)), ("scalar_vec", (), (3,))]:
    case("outer", _label, outer_fn, normal(*_s1), normal(*_s2))

for _label, _s1, _s2 in [("vec_vec", (4,), (4,)), ("scalar_vec", (), (4,)), ("mat_vec", (3, 4), (4,)),
                         ("vec_mat", (4,), (3, 4)), ("mat_mat", (3, 4), (2, 4))]:
    case("inner", _label, inner_fn, normal(*_s1), normal(*_s2))


# ======================================================================= structural
def reshape_fn(a, w):
    return jnp.sum(w * jnp.reshape(a, (4, 6)))


def reshape_minus_one(a, w):
    return jnp.sum(w * jnp.reshape(a, (-1, 2)))


def reshape_method(a, w):
    return jnp.sum(w * a.reshape(6, 4))


def ravel_fn(a, w):
    return jnp.sum(w * jnp.ravel(a))


def ravel_flatten(a, w):
    return jnp.sum(w * a.flatten())


def ravel_fortran(a, w):
    return jnp.sum(w * jnp.ravel(a, order="F"))


def reshape_fortran(a, w):
    return jnp.sum(w * jnp.reshape(a, (4, 6), order="F"))


def expand_dims_fn(a, w):
    return jnp.sum(w * jnp.expand_dims(a, 1))


def expand_dims_tuple(a, w):
    return jnp.sum(w * jnp.expand_dims(a, (0, -1)))


def squeeze_all(a, w):
    return jnp.sum(w * jnp.squeeze(a))


def squeeze_axis(a, w):
    return jnp.sum(w * jnp.squeeze(a, axis=2))


def transpose_default(a, w):
    return jnp.sum(w * jnp.transpose(a))


def transpose_axes(a, w):
    return jnp.sum(w * jnp.transpose(a, (1, 2, 0)))


def transpose_attr(a, w):
    return jnp.sum(w * a.T)


def transpose_negative(a, w):
    return jnp.sum(w * jnp.transpose(a, (-1, 0, -2)))


def transpose_method(a, w):
    return jnp.sum(w * a.transpose(2, 0, 1))


def swapaxes_fn(a, w):
    return jnp.sum(w * jnp.swapaxes(a, 0, 2))


def moveaxis_fn(a, w):
    return jnp.sum(w * jnp.moveaxis(a, 0, -1))


def moveaxis_tuple(a, w):
    return jnp.sum(w * jnp.moveaxis(a, (0, 1), (2, 0)))


def flip_all(m, w):
    return jnp.sum(w * jnp.flip(m))


def flip_axis(m, w):
    return jnp.sum(w * jnp.flip(m, axis=1))


def broadcast_to_fn(array, w):
    return jnp.sum(w * jnp.broadcast_to(array, (2, 3, 4)))


def pad_constant(array, w):
    return jnp.sum(w * jnp.pad(array, ((1, 2), (0, 1))))


def pad_int(array, w):
    return jnp.sum(w * jnp.pad(array, 1))


def pad_edge(array, w):
    return jnp.sum(w * jnp.pad(array, ((1, 2), (0, 1)), mode="edge"))


def pad_edge_wide(array, w):
    return jnp.sum(w * jnp.pad(array, ((3, 0), (2, 2)), mode="edge"))


def pad_edge_pair(array, w):
    return jnp.sum(w * jnp.pad(array, (2, 1), mode="edge"))


def pad_reflect(array, w):
    return jnp.sum(w * jnp.pad(array, ((1, 2), (2, 1)), mode="reflect"))


def pad_symmetric(array, w):
    return jnp.sum(w * jnp.pad(array, ((2, 1), (0, 3)), mode="symmetric"))


def pad_wrap(array, w):
    return jnp.sum(w * jnp.pad(array, (2, 3), mode="wrap"))


def astype_method(x, w):
    return jnp.sum(w * x.astype(jnp.float64))


def astype_fn(x, w):
    return jnp.sum(w * jnp.astype(x, jnp.float64))


def copy_fn(a, w):
    return jnp.sum(w * jnp.copy(a))


def copy_method(a, w):
    return jnp.sum(w * a.copy())


def array_of_scalars(a, b, w):
    return jnp.sum(w * jnp.array([a, b]))


def array_of_vectors(a, b, w):
    return jnp.sum(w * jnp.array([a, b, a]))


def asarray_fn(object, w):
    return jnp.sum(w * jnp.asarray(object))


def array_fn(object, w):
    return jnp.sum(w * jnp.array(object))


def stack_fn(a, b, w):
    return jnp.sum(w * jnp.stack([a, b]))


def stack_axis(a, b, w):
    return jnp.sum(w * jnp.stack([a, b, a], axis=1))


def stack_negative_axis(a, b, w):
    return jnp.sum(w * jnp.stack((b, a), axis=-1))


def concatenate_fn(a, b, w):
    return jnp.sum(w * jnp.concatenate([a, b]))


def concatenate_axis(a, b, w):
    return jnp.sum(w * jnp.concatenate([a, b, a], axis=1))


def concatenate_negative_axis(a, b, w):
    return jnp.sum(w * jnp.concatenate((b, a), axis=-1))


# A list held in a variable (not a literal): the adjoint of the whole list.
def stack_list(arrays, w):
    return jnp.sum(w * jnp.stack(arrays, axis=1))


def concatenate_list(arrays, w):
    return jnp.sum(w * jnp.concatenate(arrays, axis=-1))


def array_list(object, w):
    return jnp.sum(w * jnp.array(object))


Pair = namedtuple("Pair", ["first", "second"])


def attribute_fn(x, w):
    return jnp.sum(w * (x.first * x.second))


def attribute_one_field(x, w):
    return jnp.sum(w * x.second)


case("reshape", "fn", reshape_fn, normal(2, 3, 4))
case("reshape", "minus_one", reshape_minus_one, normal(2, 3, 4))
case("reshape", "method_varargs", reshape_method, normal(2, 3, 4))
case("ravel", "fn", ravel_fn, normal(2, 3, 4))
case("ravel", "flatten", ravel_flatten, normal(3, 4))
case("ravel", "order_F", ravel_fortran, normal(2, 3, 4))
case("reshape", "order_F", reshape_fortran, normal(2, 3, 4))
case("expand_dims", "axis1", expand_dims_fn, normal(3, 4))
case("expand_dims", "tuple", expand_dims_tuple, normal(3, 4))
case("squeeze", "all", squeeze_all, normal(1, 3, 1, 4))
case("squeeze", "axis", squeeze_axis, normal(3, 4, 1))
case("transpose", "default", transpose_default, normal(2, 3, 4))
case("transpose", "axes", transpose_axes, normal(2, 3, 4))
case("transpose", "attr_T", transpose_attr, normal(3, 4))
case("transpose", "negative_axes", transpose_negative, normal(2, 3, 4))
case("transpose", "method_varargs", transpose_method, normal(2, 3, 4))
case("swapaxes", "0_2", swapaxes_fn, normal(2, 3, 4))
case("moveaxis", "int", moveaxis_fn, normal(2, 3, 4))
case("moveaxis", "tuple", moveaxis_tuple, normal(2, 3, 4))
case("flip", "all", flip_all, normal(2, 3, 4))
case("flip", "axis", flip_axis, normal(2, 3, 4))
case("broadcast_to", "col", broadcast_to_fn, normal(3, 1))
case("broadcast_to", "vector", broadcast_to_fn, normal(4))
case("broadcast_to", "scalar", broadcast_to_fn, normal())
case("pad", "constant", pad_constant, normal(3, 4))
case("pad", "int", pad_int, normal(3, 4))
case("pad", "edge", pad_edge, normal(3, 4))
case("pad", "edge_wide", pad_edge_wide, normal(2, 3))
case("pad", "edge_pair", pad_edge_pair, normal(3, 4))
case("pad", "edge_1d", pad_edge_pair, normal(4))
case("pad", "reflect", pad_reflect, normal(3, 4))
case("pad", "symmetric", pad_symmetric, normal(3, 4))
case("pad", "wrap", pad_wrap, normal(3, 4))
case("pad", "wrap_1d", pad_wrap, normal(4))
case("astype", "fn", astype_fn, normal(3, 4))
case("astype", "method", astype_method, normal(3, 4))
case("copy", "fn", copy_fn, normal(3, 4))
case("copy", "method", copy_method, normal(3, 4))
case("array", "of_scalars", array_of_scalars, normal(), normal())
case("array", "of_vectors", array_of_vectors, normal(3), normal(3))
case("array", "asarray", asarray_fn, normal(3, 4))
case("array", "of_array", array_fn, normal(3, 4))
case("stack", "axis0", stack_fn, normal(3, 4), normal(3, 4))
case("stack", "scalars", stack_fn, normal(), normal())
case("stack", "axis1_repeat", stack_axis, normal(3, 4), normal(3, 4))
case("stack", "axis_neg_tuple", stack_negative_axis, normal(3, 4), normal(3, 4))
case("concatenate", "axis0", concatenate_fn, normal(2, 4), normal(3, 4))
case("concatenate", "axis1_repeat", concatenate_axis, normal(3, 2), normal(3, 1))
case("concatenate", "axis_neg_tuple", concatenate_negative_axis, normal(3, 2), normal(3, 4))
case("stack", "list_variable", stack_list, [normal(3, 2), normal(3, 2), normal(3, 2)])
case("concatenate", "list_variable", concatenate_list, [normal(3, 2), normal(3, 1), normal(3, 3)])
case("array", "list_variable", array_list, [normal(3), normal(3)])
case("attribute", "namedtuple", attribute_fn, Pair(normal(3, 2), normal(3, 2)))
case("attribute", "one_field", attribute_one_field, Pair(normal(3, 2), normal(2)))


# ----------------------------------------------------------------------- indexing
def getitem_slice(x, w):
    return jnp.sum(w * x[1:3])


def getitem_open_slice(x, w):
    return jnp.sum(w * x[1:])


def getitem_int(x, w):
    return jnp.sum(w * x[1])


def getitem_negative_int(x, w):
    return jnp.sum(w * x[-1, 2])


def getitem_tuple_slices(x, w):
    return jnp.sum(w * x[:, ::-2])


def getitem_step(x, w):
    return jnp.sum(w * x[::2, 1:])


def getitem_fancy_repeats(x, w):
    return jnp.sum(w * x[[0, 2, 0]])


def getitem_index_array(x, idx, w):
    return jnp.sum(w * x[idx])


def getitem_mask(x, mask, w):
    return jnp.sum(w * x[mask])


def getitem_newaxis(x, w):
    return jnp.sum(w * x[None, 1])


def getitem_ellipsis(x, w):
    return jnp.sum(w * x[..., 0])


def getitem_scalar_element(x, w):
    return w * x[1, 2]


def at_get(x, w):
    return jnp.sum(w * x.at[1:3].get())


def at_set_slice(x, v, w):
    return jnp.sum(w * x.at[1:3].set(v))


def at_set_point(x, v, w):
    return jnp.sum(w * x.at[1, 2].set(v))


def at_set_array(x, v, w):
    return jnp.sum(w * x.at[[0, 3]].set(v))


def at_add_slice(x, v, w):
    return jnp.sum(w * x.at[1:3].add(v))


def at_add_point(x, v, w):
    return jnp.sum(w * x.at[1, 2].add(v))


def at_add_repeats(x, v, w):
    return jnp.sum(w * x.at[[0, 2, 0]].add(v))


def at_multiply_slice(x, v, w):
    return jnp.sum(w * x.at[1:3].multiply(v))


def at_multiply_point(x, v, w):
    return jnp.sum(w * x.at[1, 2].multiply(v))


def at_multiply_array(x, v, w):
    return jnp.sum(w * x.at[[0, 3]].multiply(v))


def dynamic_slice_fn(operand, w):
    return jnp.sum(w * lax.dynamic_slice(operand, (1, 2), (2, 3)))


def dynamic_slice_variables(operand, i, j, w):
    return jnp.sum(w * lax.dynamic_slice(operand, (i, j), (2, 2)))


case("getitem", "slice", getitem_slice, normal(4, 3))
case("getitem", "open_slice", getitem_open_slice, normal(2, 3))
case("getitem", "int", getitem_int, normal(4, 3))
case("getitem", "negative_int", getitem_negative_int, normal(4, 3))
case("getitem", "tuple_slices", getitem_tuple_slices, normal(4, 5))
case("getitem", "step", getitem_step, normal(5, 3))
case("getitem", "fancy_repeats", getitem_fancy_repeats, normal(4, 3))
case("getitem", "index_array_arg", getitem_index_array, normal(4, 3), np.array([3, 1, 3, 3]), argnums=(0,))
case("getitem", "bool_mask", getitem_mask, normal(4, 3), _mask(4, 3), argnums=(0,))
case("getitem", "newaxis", getitem_newaxis, normal(4, 3))
case("getitem", "ellipsis", getitem_ellipsis, normal(2, 3, 4))
case("getitem", "scalar_element", getitem_scalar_element, normal(4, 3))
case("getitem", "at_get", at_get, normal(4, 3))
case("at_set", "slice", at_set_slice, normal(4, 3), normal(2, 3))
case("at_set", "slice_broadcast_v", at_set_slice, normal(4, 3), normal(3))
case("at_set", "slice_scalar_v", at_set_slice, normal(4, 3), normal())
case("at_set", "point", at_set_point, normal(4, 3), normal())
case("at_set", "index_list", at_set_array, normal(4, 3), normal(2, 3))
case("at_add", "slice", at_add_slice, normal(4, 3), normal(2, 3))
case("at_add", "slice_scalar_v", at_add_slice, normal(4, 3), normal())
case("at_add", "point", at_add_point, normal(4, 3), normal())
case("at_add", "repeats", at_add_repeats, normal(4, 3), normal(3, 3))
case("at_multiply", "slice", at_multiply_slice, normal(4, 3), normal(2, 3))
case("at_multiply", "slice_broadcast_v", at_multiply_slice, normal(4, 3), normal(1, 3))
case("at_multiply", "point", at_multiply_point, normal(4, 3), normal())
case("at_multiply", "index_list", at_multiply_array, normal(4, 3), normal(2, 3))
case("dynamic_slice", "const_starts", dynamic_slice_fn, normal(4, 6))
case("dynamic_slice", "variable_starts", dynamic_slice_variables, normal(4, 6), 1, 3, argnums=(0,))
case("dynamic_slice", "clamped_starts", dynamic_slice_variables, normal(4, 6), 3, 7, argnums=(0,))
case("dynamic_slice", "negative_starts", dynamic_slice_variables, normal(4, 6), -2, 1, argnums=(0,))


# ========================================================================= control
def to_float_fn(x, w):
    return w * float(x)


def to_float_element(x, w):
    return w * float(x[1])


def max_builtin(x1, x2, w):
    return w * max(x1, x2)


def min_builtin(x1, x2, w):
    return w * min(x1, x2)


def max_builtin_const(x1, w):
    return w * max(x1, 0.25)


def min_builtin_const(x2, w):
    return w * min(0.25, x2)


case("to_float", "scalar", to_float_fn, normal())
case("to_float", "element", to_float_element, normal(3))
case("builtin_max", "first_larger", max_builtin, scalar(0.7), scalar(-0.4))
case("builtin_max", "second_larger", max_builtin, scalar(-0.3), scalar(1.1))
case("builtin_max", "const_below", max_builtin_const, scalar(0.9))
case("builtin_max", "const_above", max_builtin_const, scalar(-0.9))
case("builtin_min", "first_smaller", min_builtin, scalar(-0.7), scalar(0.4))
case("builtin_min", "second_smaller", min_builtin, scalar(0.3), scalar(-1.1))
case("builtin_min", "const_above", min_builtin_const, scalar(0.9))
case("builtin_min", "const_below", min_builtin_const, scalar(-0.9))


# ===================================================== helpers that rules call
# They are primitives too: their own VJPs are what second derivatives use.
def unbroadcast_fn(g, x, w):
    return jnp.sum(w * unbroadcast(g, x))


def unreduce_fn(g, x, w):
    return jnp.sum(w * unreduce(g, x, 1, False))


def unreduce_keepdims(g, x, w):
    return jnp.sum(w * unreduce(g, x, (0, 2), True))


def unreduce_all(g, x, w):
    return jnp.sum(w * unreduce(g, x))


def unreduce_negative_axis(g, x, w):
    return jnp.sum(w * unreduce(g, x, -1, False))


def pad_adjoint_constant(g, w):
    return jnp.sum(w * pad_adjoint(g, ((1, 2), (0, 1)), "constant"))


def pad_adjoint_edge(g, w):
    return jnp.sum(w * pad_adjoint(g, ((1, 2), (0, 1)), "edge"))


def pad_adjoint_reflect(g, w):
    return jnp.sum(w * pad_adjoint(g, ((1, 2), (2, 1)), "reflect"))


def pad_tangent_wrap(t, w):
    return jnp.sum(w * pad_tangent(t, ((1, 2), (0, 1)), "wrap"))


def pad_traced_constant(a, c, w):
    return jnp.sum(w * jnp.pad(a, ((1, 2), (0, 1)), constant_values=c))


def pad_traced_constant_pairs(a, c, w):
    return jnp.sum(w * jnp.pad(a, ((1, 0), (2, 1)), "constant", constant_values=c))


def pad_constant_tangent_fn(t, w):
    return jnp.sum(w * pad_constant_tangent(t, np.zeros((2, 3)), ((1, 2), (0, 1))))


def pad_constant_adjoint_fn(g, w):
    return jnp.sum(w * pad_constant_adjoint(g, np.zeros((2, 3)), ((1, 2), (0, 1)), np.zeros((2, 2))))


def inplace_result_same_dtype(new, w):
    return jnp.sum(w * inplace_result(np.zeros((3, 4)), new))


def jacobian_input_fn(x, w):
    return jnp.sum(w * jnp.sin(jacobian_input(x)))


def pad_adjoint_edge_int(g, w):
    return jnp.sum(w * pad_adjoint(g, 1, mode="edge"))


def index_adjoint_slice(g, x, w):
    return jnp.sum(w * index_adjoint(x, slice(1, 3), g))


def index_adjoint_repeats(g, x, w):
    return jnp.sum(w * index_adjoint(x, [0, 2, 0], g))


def index_adjoint_tuple(g, x, w):
    return jnp.sum(w * index_adjoint(x, (slice(None), 1), g))


def index_adjoint_part_slice(g, x, w):
    return jnp.sum(w * index_adjoint_part(g, x, slice(1, 3)))


def index_adjoint_part_negative(g, x, w):
    return jnp.sum(w * index_adjoint_part(g, x, -1))


def stack_part_fn(g, w):
    return jnp.sum(w * stack_part(g, 1, 0))


def stack_part_axis(g, w):
    return jnp.sum(w * stack_part(g, 2, axis=1))


def stack_part_adjoint_fn(p, g, w):
    return jnp.sum(w * stack_part_adjoint(p, g, 1, 0))


def stack_part_adjoint_axis(p, g, w):
    return jnp.sum(w * stack_part_adjoint(p, g, 2, axis=-1))


def concatenate_part_fn(g, arrays, w):
    return jnp.sum(w * concatenate_part(g, arrays, 1, 0))


def concatenate_part_axis(g, arrays, w):
    return jnp.sum(w * concatenate_part(g, arrays, 2, axis=1))


def concatenate_part_adjoint_fn(p, g, arrays, w):
    return jnp.sum(w * concatenate_part_adjoint(p, g, arrays, 1, 0))


def concatenate_part_adjoint_axis(p, g, arrays, w):
    return jnp.sum(w * concatenate_part_adjoint(p, g, arrays, 0, axis=1))


def broadcast_like_fn(t, x1, x2, w):
    return jnp.sum(w * broadcast_like(t, x1, x2))


def dynamic_slice_adjoint_fn(g, operand, w):
    return jnp.sum(w * dynamic_slice_adjoint(g, operand, (1, 2)))


def dynamic_slice_adjoint_clamped(g, operand, w):
    return jnp.sum(w * dynamic_slice_adjoint(g, operand, (3, 9)))


_ZEROS_2x3x4 = np.zeros((2, 3, 4))
case("unbroadcast", "rank3_to_vec", unbroadcast_fn, normal(2, 3, 4), np.zeros(4), argnums=(0,))
case("unbroadcast", "to_col", unbroadcast_fn, normal(3, 4), np.zeros((3, 1)), argnums=(0,))
case("unbroadcast", "to_scalar", unbroadcast_fn, normal(3, 4), scalar(0.0), argnums=(0,))
case("unbroadcast", "rank3_to_row", unbroadcast_fn, normal(2, 3, 4), np.zeros((1, 4)), argnums=(0,))
case("unbroadcast", "same", unbroadcast_fn, normal(3, 4), np.zeros((3, 4)), argnums=(0,))
case("unreduce", "axis1", unreduce_fn, normal(2, 4), _ZEROS_2x3x4, argnums=(0,))
case("unreduce", "keepdims", unreduce_keepdims, normal(1, 3, 1), _ZEROS_2x3x4, argnums=(0,))
case("unreduce", "all", unreduce_all, normal(), _ZEROS_2x3x4, argnums=(0,))
case("unreduce", "negative_axis", unreduce_negative_axis, normal(2, 3), _ZEROS_2x3x4, argnums=(0,))
case("pad", "traced_constant", pad_traced_constant, normal(3, 4), normal(), argnums=(0, 1))
case("pad", "traced_constant_pairs", pad_traced_constant_pairs, normal(3, 4), normal(2, 2), argnums=(0, 1))
case("pad_constant_tangent", "pairs", pad_constant_tangent_fn, normal(2, 2))
case("pad_constant_adjoint", "pairs", pad_constant_adjoint_fn, normal(5, 4))
case("pad_adjoint", "constant", pad_adjoint_constant, normal(6, 5))
case("pad_adjoint", "edge", pad_adjoint_edge, normal(6, 5))
case("pad_adjoint", "edge_int", pad_adjoint_edge_int, normal(5, 4))
case("pad_adjoint", "reflect", pad_adjoint_reflect, normal(6, 5))
case("pad_tangent", "wrap", pad_tangent_wrap, normal(3, 4))
case("inplace_result", "same_dtype", inplace_result_same_dtype, normal(3, 4))
case("jacobian_input", "array", jacobian_input_fn, normal(3, 4))
case("index_adjoint", "slice", index_adjoint_slice, normal(2, 3), np.zeros((4, 3)), argnums=(0,))
case("index_adjoint", "repeats", index_adjoint_repeats, normal(3, 3), np.zeros((4, 3)), argnums=(0,))
case("index_adjoint", "tuple", index_adjoint_tuple, normal(4), np.zeros((4, 3)), argnums=(0,))
case("index_adjoint_part", "slice", index_adjoint_part_slice, normal(4, 3), np.zeros((4, 3)), argnums=(0,))
case("index_adjoint_part", "negative", index_adjoint_part_negative, normal(4, 3), np.zeros((4, 3)), argnums=(0,))
case("stack_part", "axis0", stack_part_fn, normal(3, 4))
case("stack_part", "axis1", stack_part_axis, normal(2, 3, 4))
case("stack_part_adjoint", "axis0", stack_part_adjoint_fn, normal(4), np.zeros((3, 4)), argnums=(0,))
case("stack_part_adjoint", "axis_neg", stack_part_adjoint_axis, normal(2, 3), np.zeros((2, 3, 4)), argnums=(0,))
_PARTS_AXIS0 = [np.zeros((2, 3)), np.zeros((1, 3)), np.zeros((2, 3))]
_PARTS_AXIS1 = [np.zeros((3, 1)), np.zeros((3, 2)), np.zeros((3, 2))]
case("concatenate_part", "axis0", concatenate_part_fn, normal(5, 3), _PARTS_AXIS0, argnums=(0,))
case("concatenate_part", "axis1", concatenate_part_axis, normal(3, 5), _PARTS_AXIS1, argnums=(0,))
case("concatenate_part_adjoint", "axis0", concatenate_part_adjoint_fn, normal(1, 3), np.zeros((5, 3)),
     _PARTS_AXIS0, argnums=(0,))
case("concatenate_part_adjoint", "axis1", concatenate_part_adjoint_axis, normal(3, 1), np.zeros((3, 5)),
     _PARTS_AXIS1, argnums=(0,))
case("broadcast_like", "col_to_rank3", broadcast_like_fn, normal(3, 1), np.zeros((3, 1)), np.zeros((2, 1, 4)),
     argnums=(0,))
case("broadcast_like", "scalar", broadcast_like_fn, normal(), np.zeros(4), np.zeros((3, 1)), argnums=(0,))
case("broadcast_like", "same", broadcast_like_fn, normal(3, 4), np.zeros((3, 4)), np.zeros(4), argnums=(0,))
case("dynamic_slice_adjoint", "inside", dynamic_slice_adjoint_fn, normal(2, 3), np.zeros((4, 6)), argnums=(0,))
case("dynamic_slice_adjoint", "clamped", dynamic_slice_adjoint_clamped, normal(2, 3), np.zeros((4, 6)),
     argnums=(0,))


# ============================================== non-scalar outputs, for astjax.vjp
# One per rule family: vjp(raw, *args)(w) must equal grad(weighted, argnums)(*args, w).
def vjp_elementwise(x1, x2):
    return x1 / x2


def vjp_elementwise_weighted(x1, x2, w):
    return jnp.sum(w * (x1 / x2))


def vjp_reduction(a):
    return jnp.var(a, axis=1)


def vjp_reduction_weighted(a, w):
    return jnp.sum(w * jnp.var(a, axis=1))


def vjp_linalg(x1, x2):
    return x1 @ x2


def vjp_linalg_weighted(x1, x2, w):
    return jnp.sum(w * (x1 @ x2))


def vjp_structural(array):
    return jnp.pad(array, ((1, 2), (0, 1)), mode="edge")


def vjp_structural_weighted(array, w):
    return jnp.sum(w * jnp.pad(array, ((1, 2), (0, 1)), mode="edge"))


def vjp_sequence(a, b):
    return jnp.concatenate([a, b, a], axis=1)


def vjp_sequence_weighted(a, b, w):
    return jnp.sum(w * jnp.concatenate([a, b, a], axis=1))


def vjp_indexing(x, v):
    return x.at[[0, 2, 0]].add(v)


def vjp_indexing_weighted(x, v, w):
    return jnp.sum(w * x.at[[0, 2, 0]].add(v))


def vjp_control(x1, x2):
    return max(x1, x2)


def vjp_control_weighted(x1, x2, w):
    return w * max(x1, x2)


def vjp_helper(g):
    return pad_adjoint(g, ((1, 2), (0, 1)), "edge")


def vjp_helper_weighted(g, w):
    return jnp.sum(w * pad_adjoint(g, ((1, 2), (0, 1)), "edge"))


VJP_CASES = [  # (family, raw function, weighted function, args)
    ("elementwise", vjp_elementwise, vjp_elementwise_weighted, (normal(3, 1), nonzero(0.5, 2.0, 1, 4))),
    ("reductions", vjp_reduction, vjp_reduction_weighted, (normal(2, 3, 4),)),
    ("linalg", vjp_linalg, vjp_linalg_weighted, (normal(2, 3, 4), normal(4, 5))),
    ("structural", vjp_structural, vjp_structural_weighted, (normal(3, 4),)),
    ("sequence", vjp_sequence, vjp_sequence_weighted, (normal(3, 2), normal(3, 1))),
    ("indexing", vjp_indexing, vjp_indexing_weighted, (normal(4, 3), normal(3, 3))),
    ("control", vjp_control, vjp_control_weighted, (scalar(0.2), scalar(0.9))),
    ("helpers", vjp_helper, vjp_helper_weighted, (normal(6, 5),)),
]


# ================================================ second derivatives, array inputs
# The gradient of one case, contracted with a fixed random v, is a scalar function
# again: its gradient is a Hessian-vector product (rules of rules, composites, helpers).
def hvp_function(gradient, nargs, container=False):
    """`sum(v * gradient(a0, ..., a{nargs-1}))` as a function of (a0, ..., v).

    With container=True the gradient is a list or tuple of arrays, contracted item by item.
    """
    if container:
        return _hvp2_container(gradient)
    return {2: _hvp2, 3: _hvp3, 4: _hvp4}[nargs](gradient)


def _hvp2(gradient):
    def hvp2(a0, a1, v):
        return jnp.sum(v * gradient(a0, a1))
    return hvp2


def _hvp3(gradient):
    def hvp3(a0, a1, a2, v):
        return jnp.sum(v * gradient(a0, a1, a2))
    return hvp3


def _hvp4(gradient):
    def hvp4(a0, a1, a2, a3, v):
        return jnp.sum(v * gradient(a0, a1, a2, a3))
    return hvp4


def _hvp2_container(gradient):
    def hvp2_container(a0, a1, v):
        g = gradient(a0, a1)
        total = 0.0
        for k in range(len(v)):
            total = total + jnp.sum(v[k] * g[k])
        return total
    return hvp2_container


# A loop that overwrites a variable a rule reads puts it on the tape (push/pop in
# the generated code); its second derivative differentiates the tape operations.
def overwritten_by_constant(x):
    y = x * 2.0
    z = y * 3.0
    y = 0.0
    return z + y


def tape_square(x, w):
    for i in range(3):
        x = x * x
    return x * w


def tape_sin_plus_square(x, w):
    for i in range(3):
        x = jnp.sin(x) * w + x * x
    return x


def tape_sin_of_product(x, w):
    for i in range(3):
        x = jnp.sin(x * w)
    return x


# ================================================ second derivatives, scalar input
# f(x) = prim(x) with x a float64 0-d array: grad(grad(f)) against finite
# differences of grad(f). Reuses the unary table (its functions with w = 1).
UNARY_SECOND_ORDER = [(name, fn, sample()) for name, (fn, sample) in UNARY.items()]


# ------------------------------------------------ list and namedtuple adjoints (round trips)
# These helpers turn an array into the adjoint of a list or namedtuple and back; each pair is
# tested as a round trip, listed under both names.
Point = namedtuple("Point", "u v")


def item_round_trip(g, w):
    return jnp.sum(w * item_adjoint(tree_item_adjoint(1, g), 1))


def stack_round_trip(g, w):
    return jnp.sum(w * stack_items(stack_adjoint(g, 1), g, 1))


def concatenate_round_trip(g, a, b, w):
    return jnp.sum(w * concatenate_items(concatenate_adjoint(g, [a, b], 0), g, [a, b], 0))


def array_round_trip(g, a, b, w):
    return jnp.sum(w * array_items(array_adjoint(g, [a, b]), g, [a, b]))


def field_round_trip(g, point, w):
    return jnp.sum(w * field_of_adjoint(attribute_adjoint(point, "v", g), point, "v"))


def batched_item_round_trip(g, w):
    return jnp.sum(w * batch_item_adjoint(tree_item_adjoint(1, g), 1, 3))


for _name in ("item_adjoint", "tree_item_adjoint"):
    case(_name, "round_trip", item_round_trip, normal(3))
case("batch_item_adjoint", "round_trip", batched_item_round_trip, normal(3))
for _name in ("stack_adjoint", "stack_items"):
    case(_name, "round_trip", stack_round_trip, normal(2, 3))
for _name in ("concatenate_adjoint", "concatenate_items"):
    case(_name, "round_trip", concatenate_round_trip, normal(5, 2), normal(2, 2), normal(3, 2), argnums=(0,))
for _name in ("array_adjoint", "array_items"):
    case(_name, "round_trip", array_round_trip, normal(2, 3), normal(3), normal(3), argnums=(0,))
for _name in ("attribute_adjoint", "field_of_adjoint"):
    case(_name, "round_trip", field_round_trip, normal(3), Point(normal(3), normal(3)), argnums=(0,))



# ------------------------------------------------ cumulative sums and traces
def cumsum_axis(a, w):
    return jnp.sum(w * jnp.cumsum(a, axis=1))


def cumsum_flat(a, w):
    return jnp.sum(w * jnp.cumsum(a))


def cumsum_adjoint_fn(g, a, w):
    return jnp.sum(w * cumsum_adjoint(g, a, 0))


def trace_fn(a, w):
    return jnp.sum(w * jnp.trace(a))


def trace_offset(a, w):
    return jnp.sum(w * jnp.trace(a, offset=1, axis1=1, axis2=2))


def trace_adjoint_fn(g, a, w):
    return jnp.sum(w * trace_adjoint(g, a, 0, 0, 1))


case("cumsum", "axis", cumsum_axis, normal(3, 4))
case("cumsum", "flat", cumsum_flat, normal(2, 3))
case("cumsum_adjoint", "axis0", cumsum_adjoint_fn, normal(4, 2), np.zeros((4, 2)), argnums=(0,))
case("trace", "matrix", trace_fn, normal(3, 3))
case("trace", "offset_batched", trace_offset, normal(2, 3, 4))
case("trace_adjoint", "matrix", trace_adjoint_fn, scalar(0.7), np.zeros((3, 4)), argnums=(0,))


# ------------------------------------------------ linear algebra
def _well_conditioned(n):
    return _array(np.eye(n) * 3.0 + _rng.standard_normal((n, n)) * 0.3)


def inv_fn(a, w):
    return jnp.sum(w * jnp.linalg.inv(a))


def det_fn(a, w):
    return jnp.sum(w * jnp.linalg.det(a))


def solve_vector(a, b, w):
    return jnp.sum(w * jnp.linalg.solve(a, b))


def solve_matrix(a, b, w):
    return jnp.sum(w * jnp.linalg.solve(a, b))


def norm_vector(x, w):
    return jnp.sum(w * jnp.linalg.norm(x))


def norm_rows(x, w):
    return jnp.sum(w * jnp.linalg.norm(x, axis=1))


case("inv", "matrix", inv_fn, _well_conditioned(3))
case("det", "matrix", det_fn, _well_conditioned(3))
case("solve", "vector", solve_vector, _well_conditioned(3), normal(3))
case("solve", "matrix", solve_matrix, _well_conditioned(3), normal(3, 2))
case("norm", "vector", norm_vector, normal(4))
case("norm", "rows", norm_rows, normal(3, 4))


def unbroadcast_to_fn(g, w):
    return jnp.sum(w * unbroadcast_to(g, (3, 1)))


case("unbroadcast_to", "shape", unbroadcast_to_fn, normal(2, 3, 4))


# ------------------------------------------------ einsum (rules built from the subscripts)
def einsum_matmul(a, b, w):
    return jnp.sum(w * jnp.einsum("ij,jk->ik", a, b))


def einsum_summed_out(a, b, w):
    return jnp.sum(w * jnp.einsum("ij,kl->k", a, b))


def einsum_implicit_transpose(a, w):
    return jnp.sum(w * jnp.einsum("ji", a))


case("einsum", "matmul", einsum_matmul, normal(3, 4), normal(4, 2))
case("einsum", "summed_out", einsum_summed_out, normal(2, 3), normal(4, 2))
case("einsum", "implicit_transpose", einsum_implicit_transpose, normal(3, 4))


def einsum_ellipsis_batched(a, b, w):
    return jnp.sum(w * jnp.einsum("...ij,...jk->...ik", a, b))


def einsum_ellipsis_implicit(a, b, w):
    return jnp.sum(w * jnp.einsum("...j,jk", a, b))


# `...` stands for as many axes as the operand has beyond its letters; they broadcast (a size-1 axis of one
# operand against the other's): the adjoint is summed back over it.
case("einsum", "ellipsis_batched_broadcast", einsum_ellipsis_batched, normal(2, 1, 3, 4), normal(5, 4, 2))
case("einsum", "ellipsis_implicit_output", einsum_ellipsis_implicit, normal(2, 3), normal(3, 4))


# ------------------------------------------------ take (a gather; repeated indices add up)
def take_rows(a, w):
    return jnp.sum(w * jnp.take(a, np.array([2, 0, 2]), axis=0))


def take_flat(a, w):
    return jnp.sum(w * jnp.take(a, np.array([[1, 5], [5, 3]])))


def take_wrap_cols(a, w):
    return jnp.sum(w * jnp.take(a, np.array([[0, 5], [-6, 2]]), axis=1, mode="wrap"))


def take_clip_flat(a, w):
    return jnp.sum(w * jnp.take(a, np.array([-3, 1, 9]), mode="clip"))


def take_fill_out_of_range(a, w):
    return jnp.sum(w * jnp.take(a, np.array([2, 7, -1, -9]), axis=0, fill_value=0.5))


def take_adjoint_fn(g, a, w):
    return jnp.sum(w * take_adjoint(g, a, np.array([1, 1, 0]), 1))


case("take", "rows", take_rows, normal(3, 4))
case("take", "flat", take_flat, normal(2, 3))
case("take", "wrap_cols", take_wrap_cols, normal(3, 4))
case("take", "clip_flat", take_clip_flat, normal(2, 3))
case("take", "fill_out_of_range", take_fill_out_of_range, normal(3, 2))
case("take_adjoint", "axis1", take_adjoint_fn, normal(2, 3), np.zeros((2, 4)), argnums=(0,))


# ------------------------------------------------ the builtin sum of a list
def builtin_sum_literal(a, b, w):
    return jnp.sum(w * sum([a * 2.0, b]))


def builtin_sum_generator(a, w):
    return jnp.sum(w * sum(row * row for row in a))


def sum_round_trip(g, a, b, w):
    return jnp.sum(w * sum_items(sum_adjoint(g, [a, b]), g, [a, b]))


case("builtin_sum", "literal", builtin_sum_literal, normal(3), normal(2, 3))
case("builtin_sum", "generator", builtin_sum_generator, normal(4, 3), argnums=(0,))


def builtin_sum_traced_start(a, start, w):
    return jnp.sum(w * sum([a, 2.0 * a], start))


case("builtin_sum", "traced_start", builtin_sum_traced_start, normal(3), normal(2, 3))
for _name in ("sum_adjoint", "sum_items"):
    case(_name, "round_trip", sum_round_trip, normal(2, 3), normal(3), normal(2, 3), argnums=(0,))


# ================================================ builders and gathers (rules/creation.py)
from astjax import tree_util  # noqa: E402
from astjax.rules.helpers import (adjugate, cast_adjoint, diagonal_adjoint, meshgrid_list, repeat_adjoint,  # noqa: E402
                                  tree_leaves_adjoint, tree_leaves_of, adjoint_leaves, leaves_adjoint,
                                  leaves_like, tree_rebuilt, cotangent_like, square_unless_reduced,
                                  batch_broadcast)


def full_fn(fill_value, w):
    return jnp.sum(w * jnp.full((2, 3), fill_value))


def full_row(fill_value, w):
    return jnp.sum(w * jnp.full((4, 3), fill_value))     # a (3,) fill value broadcast over rows


def full_like_fn(fill_value, like, w):
    return jnp.sum(w * jnp.full_like(like, fill_value))


def linspace_fn(start, stop, w):
    return jnp.sum(w * jnp.linspace(start, stop, 5))


def linspace_open(start, stop, w):
    return jnp.sum(w * jnp.linspace(start, stop, 4, endpoint=False))


def linspace_vector(start, stop, w):
    return jnp.sum(w * jnp.linspace(start, stop, 3, axis=1))


def meshgrid_xy(x, y, w):
    a, b = jnp.meshgrid(x, y)
    return jnp.sum(w * (a * b + a ** 2))


def meshgrid_ij(x, y, z, w):
    a, b, c = jnp.meshgrid(x, y, z, indexing="ij")
    return jnp.sum(w * (a * b * c))


def meshgrid_list_fn(x, y, w):
    a, b = meshgrid_list([x, y], False, "xy")
    return jnp.sum(w * (a - 2.0 * b))


def diagonal_fn(a, w):
    return jnp.sum(w * jnp.diagonal(a))


def diagonal_offset(a, w):
    return jnp.sum(w * a.diagonal(1, 1, 2))


def diag_matrix(v, w):
    return jnp.sum(w * jnp.diag(v, 1))


def diag_of_matrix(a, w):
    return jnp.sum(w * jnp.diag(a, -1))


def diagonal_adjoint_fn(g, a, w):
    return jnp.sum(w * diagonal_adjoint(g, a, 0, 0, 1))


def repeat_flat(a, w):
    return jnp.sum(w * jnp.repeat(a, 2))


def repeat_axis(a, w):
    return jnp.sum(w * a.repeat(np.array([1, 0, 3]), axis=1))


def repeat_adjoint_fn(g, a, w):
    return jnp.sum(w * repeat_adjoint(g, a, 2, None))


def cumprod_axis(a, w):
    return jnp.sum(w * jnp.cumprod(a, axis=1))


def cumprod_flat(a, w):
    return jnp.sum(w * a.cumprod())


def cumprod_zero(a, w):
    return jnp.sum(w * jnp.cumprod(a * jnp.array([1.0, 0.0, 1.0, 1.0])))     # exact through a zero


def tree_leaves_fn(params, w):
    leaves = tree_util.tree_leaves(params)
    return jnp.sum(w * jnp.stack([leaves[0] * leaves[1], leaves[2] ** 2]))


def tree_leaves_of_fn(a, b, w):
    leaves = tree_leaves_of([a, (b, a)])
    return jnp.sum(w * (leaves[0] * leaves[1] + leaves[2]))


def tree_leaves_adjoint_fn(g, w):
    t = tree_leaves_adjoint([np.zeros(3), np.zeros(3)], [g, 2.0 * g])
    return jnp.sum(w * (t[0] + 3.0 * t[1]))


def adjoint_leaves_fn(g, w):
    leaves = adjoint_leaves({"p": g, "q": 2.0 * g}, {"p": np.zeros(3), "q": np.zeros(3)})
    return jnp.sum(w * (leaves[0] - 3.0 * leaves[1]))


def leaves_adjoint_fn(g, w):
    t = leaves_adjoint([g * g, 2.0 * g], [np.zeros(3), np.zeros(3)])
    return jnp.sum(w * (t[0] + 3.0 * t[1]))


def leaves_like_fn(a, b, w):
    tree = {"u": a, "v": b, "w": a}
    leaves = leaves_like(tree, {"u": 0.0, "v": 0.0, "w": 0.0})
    return jnp.sum(w * (leaves[0] * leaves[1] + leaves[2] ** 2))


def tree_rebuilt_fn(a, b, w):
    t = tree_rebuilt({"u": 0.0, "v": [0.0, 0.0]}, [a * b, jnp.sin(a), b])
    return jnp.sum(w * (t["u"] * t["v"][0] + t["v"][1] ** 2))


def cotangent_like_fn(g, w):
    return jnp.sum(w * cotangent_like(g * g, g))


def square_unless_reduced_fn(a, w):
    return jnp.sum(w * square_unless_reduced(a * a, True))


def batch_broadcast_fn(a, w):
    return jnp.sum(w * batch_broadcast(a * a, 4, (a,)))


def adjugate_fn(a, w):
    return jnp.sum(w * adjugate(a))


def det_singular(a, w):
    return jnp.sum(w * jnp.linalg.det(a * jnp.array([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]])))


def norm_spectral(x, w):
    return jnp.sum(w * jnp.linalg.norm(x, 2))


_SPECTRAL_ORD = 2


def norm_spectral_global(x, w):
    return jnp.sum(w * jnp.linalg.norm(x, _SPECTRAL_ORD))


def at_max_fn(x, v, w):
    return jnp.sum(w * x.at[jnp.array([0, 2])].max(v))


def at_min_fn(x, v, w):
    return jnp.sum(w * x.at[1].min(v))


def at_multiply_distinct(x, v, w):
    return jnp.sum(w * x.at[jnp.array([2, 0])].multiply(v))


def list_sum(x, y, w):
    return jnp.sum(w * np.sum([x, 2.0 * y, x * y], axis=0))


def list_mean(x, y, w):
    return jnp.sum(w * jnp.mean([x, y * y], axis=0))


def list_prod(x, y, w):
    return jnp.sum(w * np.prod([x, y, x + 1.0], axis=0))


def array_of_scalars(c, s, w):
    return jnp.sum(w * jnp.array([[c, -s], [s * c, c]]))


case("full", "scalar", full_fn, scalar(0.7))
case("full", "row", full_row, normal(3))
case("full_like", "scalar", full_like_fn, scalar(-1.3), np.zeros((2, 2)), argnums=(0,))
case("linspace", "closed", linspace_fn, scalar(0.4), scalar(2.5))
case("linspace", "open", linspace_open, scalar(-1.0), scalar(0.5))
case("linspace", "vector", linspace_vector, normal(2), normal(2))
case("meshgrid", "xy", meshgrid_xy, normal(3), normal(2))
case("meshgrid", "ij", meshgrid_ij, normal(2), normal(3), normal(2))
case("meshgrid_list", "xy", meshgrid_list_fn, normal(3), normal(2))
case("diagonal", "main", diagonal_fn, normal(3, 3))
case("diagonal", "offset_axes", diagonal_offset, normal(2, 3, 4))
case("diag", "vector", diag_matrix, normal(3))
case("diag", "matrix", diag_of_matrix, normal(3, 3))
case("diagonal_adjoint", "main", diagonal_adjoint_fn, normal(3), np.zeros((3, 4)), argnums=(0,))
case("repeat", "flat", repeat_flat, normal(2, 2))
case("repeat", "axis_counts", repeat_axis, normal(2, 3))
case("repeat_adjoint", "flat", repeat_adjoint_fn, normal(8), np.zeros((2, 2)), argnums=(0,))
case("cumprod", "axis", cumprod_axis, nonzero(0.5, 1.5, 2, 4))
case("cumprod", "flat", cumprod_flat, nonzero(0.5, 1.5, 2, 3))
case("cumprod", "zero", cumprod_zero, nonzero(0.5, 1.5, 4))
case("tree_leaves", "of_list", tree_leaves_of_fn, normal(2), normal(2))
case("tree_leaves", "dict", tree_leaves_fn, {"b": normal(3), "a": [normal(3), normal(3)]})
case("tree_leaves_adjoint", "list", tree_leaves_adjoint_fn, normal(3))
case("adjoint_leaves", "dict", adjoint_leaves_fn, normal(3))
case("leaves_adjoint", "list", leaves_adjoint_fn, normal(3))
case("leaves_like", "dict", leaves_like_fn, normal(2), normal(2))
case("tree_rebuilt", "dict", tree_rebuilt_fn, normal(2), normal(2))
case("cotangent_like", "array", cotangent_like_fn, normal(3))
case("square_unless_reduced", "square", square_unless_reduced_fn, normal(3, 3))
case("batch_broadcast", "rows", batch_broadcast_fn, normal(3))
case("adjugate", "square", adjugate_fn, normal(3, 3) + 3.0 * _array(np.eye(3)))
case("det", "singular", det_singular, normal(3, 3))
case("norm", "spectral", norm_spectral, normal(3, 2))
case("norm", "spectral_global_ord", norm_spectral_global, normal(2, 3))
case("at_set", "max", at_max_fn, normal(4), normal(2))
case("at_set", "min", at_min_fn, normal(3), scalar(0.1))
case("at_multiply", "distinct", at_multiply_distinct, normal(3), normal(2))


# Out-of-bounds updates are dropped, as in JAX: the dropped values get no adjoint, x keeps its own.
def at_set_out_of_bounds(x, v, w):
    return jnp.sum(w * x.at[5].set(v))


def at_add_partly_out_of_bounds(x, v, w):
    return jnp.sum(w * x.at[jnp.array([0, 7, -1, -9])].add(v))


def at_multiply_partly_out_of_bounds(x, v, w):
    return jnp.sum(w * x.at[jnp.array([2, 9, -4])].multiply(v))


def part_at_array(g, w):
    return jnp.sum(w * part_at(g, g, jnp.array([0, 5, -1, -7])))


def part_at_point(g, w):
    return jnp.sum(w * part_at(g, g, 9))


def part_at_slice(g, w):
    return jnp.sum(w * part_at(g, g, slice(1, 3)))


def placed_at_array(p, w):
    return jnp.sum(w * placed_at(p, jnp.zeros((4, 3)), jnp.array([0, 5, -1, 0])))


def cleared_at_array(g, w):
    return jnp.sum(w * cleared_at(g, g, jnp.array([1, 7, -1])))


case("at_set", "out_of_bounds", at_set_out_of_bounds, normal(4, 3), normal(3))
case("at_add", "partly_out_of_bounds", at_add_partly_out_of_bounds, normal(4, 3), normal(4, 3))
case("at_multiply", "partly_out_of_bounds", at_multiply_partly_out_of_bounds, normal(4, 3), normal(3, 3))
case("part_at", "array", part_at_array, normal(4, 3))
case("part_at", "point", part_at_point, normal(4, 3))
case("part_at", "slice", part_at_slice, normal(4, 3))
case("placed_at", "array", placed_at_array, normal(4, 3))
case("cleared_at", "array", cleared_at_array, normal(4, 3))
case("sum", "list_of_arrays", list_sum, normal(3), normal(3))
case("mean", "list_of_arrays", list_mean, normal(2), normal(2))
case("prod", "list_of_arrays", list_prod, nonzero(0.5, 1.5, 3), nonzero(0.5, 1.5, 3))
case("array", "nested_scalars", array_of_scalars, scalar(0.3), scalar(-0.8))


def cast_adjoint_float(g, w):
    return jnp.sum(w * cast_adjoint(g, np.zeros(3)))


def cast_adjoint_int(g, w):
    return jnp.sum(w * cast_adjoint(g, np.zeros(3, dtype=np.int32)))


def astype_int(x, w):
    return jnp.sum(w * x * x.astype(jnp.int32))


case("cast_adjoint", "float", cast_adjoint_float, normal(3))
case("cast_adjoint", "int", cast_adjoint_int, normal(3))
case("astype", "to_int", astype_int, uniform(0.2, 0.8, 3) + _array([1.0, -3.0, 5.0]))
from rule_cases_math import CASES as _math; CASES += _math
from rule_cases_shape import CASES as _shape; CASES += _shape
from rule_cases_special import CASES as _special; CASES += _special  # noqa: E402 (astjax.scipy.special)
from rule_cases_linalg import CASES as _linalg; CASES += _linalg
from rule_cases_fft import CASES as _fft; CASES += _fft  # noqa: E402 (jnp.fft, complex values)
from rule_cases_lax import CASES as _lax; CASES += _lax


def list_items_copy(a, b, w):
    """`list(xs)` is normalized through list_items (normalize/container_idioms.py)."""
    xs = list_items([a, b])
    return jnp.sum(w * xs[0] * jnp.sin(xs[1]))


case("list_items", "of_list", list_items_copy, normal(3), normal(3))


def tuple_items_of_list(a, b, w):
    """`tuple(...)` is normalized through tuple_items (normalize/container_idioms.py)."""
    xs = tuple_items([a, b])
    return jnp.sum(w * xs[0] * jnp.sin(xs[1]))


case("tuple_items", "of_list", tuple_items_of_list, normal(3), normal(3))
from rule_cases_tensordot import CASES as _tensordot; CASES += _tensordot
from rule_cases_more import CASES as _more; CASES += _more  # noqa: E402 (astjax/numpy/_more.py)
from rule_cases_api import CASES as _api; CASES += _api  # noqa: E402 (API coverage: linalg array-API names, block, ...)
from rule_cases_fill import CASES as _fill; CASES += _fill  # noqa: E402 (API fill: sici, fresnel, bessel_jn)
from rule_cases_scipy_linalg import CASES as _scipy_linalg; CASES += _scipy_linalg  # noqa: E402 (the rest of jax.scipy.linalg)
