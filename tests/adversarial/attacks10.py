"""An attacker's corpus, tenth round: the derivative side. grad, value_and_grad, jvp, jacfwd, jacrev and
hessian of ordinary-looking scientific and ML code: bound methods, classmethod and staticmethod helpers,
records and nested containers as parameters, recursion (with accumulators, mutual), generators consumed by
sum, early returns in nested loops, while/else and for/else, try/finally, helpers from another module of the
user, functools.partial/reduce, map/filter, sorted(key=...), zip(strict=True), star-unpacking; derivatives
at kinks and ties against JAX's numbers (abs, maximum, clip, sort, max, argmax, where with NaN in the branch
not taken, sqrt at 0, powers with integer exponents and negative bases, floor/round/sign, mod/fmod, hypot,
arctan2, logaddexp with -inf); dtypes (float32 with Python constants, bool masks, np.float32 scalars, 0-d
arguments, argnums tuples, has_aux with pytrees, allow_int); and second derivatives of loops, index
updates, cumulative operations, sort and small linear algebra against second differences."""
import functools
import itertools
import math
import operator
from collections import namedtuple
from typing import NamedTuple

import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import lax

from . import _attacks10_helpers as helpers
from ._attacks10_helpers import Scaler, accumulate, cube, layer, norm2, softplus
from .case import CASES, case, vec, mat, pos, spd, scalar


def _x(*values):
    return np.array(values, dtype=np.float64)


# ============================================================ methods, classes and records
class Model:
    def __init__(self, w):
        self.w = w
        self.bias = 0.25

    def loss(self, x):
        return jnp.sum(jnp.tanh(self.w * x) + self.bias * x ** 2)

    def predict(self, x):
        return self._hidden(x) @ self.w

    def _hidden(self, x):
        return jnp.sin(x) * self.bias

    @staticmethod
    def penalty(x):
        return jnp.sum(x ** 4)

    @classmethod
    def scale(cls, x):
        return x * cls.FACTOR

    FACTOR = 3.0

    def total(self, x):
        return self.predict(x) + Model.penalty(x) + jnp.sum(self.scale(x))


_MODEL = Model(np.array([0.5, -1.0, 2.0]))
bound_loss = _MODEL.loss
case(bound_loss, lambda r: (vec(r, 3),), "works", name="bound_method_as_f")
case(_MODEL.total, lambda r: (vec(r, 3),), "either", name="bound_method_calling_static_and_classmethod",
     note="refused today: `self.predict(x)` inside a bound method handed to grad has no rule (the line is named)")


def method_of_module_object(x):
    return _MODEL.predict(x) * 2.0 + Model.penalty(x)


case(method_of_module_object, lambda r: (vec(r, 3),), "works")


def classmethod_through_class(x):
    return jnp.sum(Model.scale(x) ** 2)


case(classmethod_through_class, lambda r: (vec(r, 3),), "works")


class Quadratic:
    def __init__(self, a, b):
        self.a = a
        self.b = b

    def __call__(self, x):
        return self.a * x ** 2 + self.b * x

    def grad_at(self, x):
        return 2.0 * self.a * x + self.b


def object_built_inside(x):
    q = Quadratic(x[0], 2.0)
    return jnp.sum(q(x)) + q.grad_at(x[1])


case(object_built_inside, lambda r: (vec(r, 3),), "works")


class Params(NamedTuple):
    w: np.ndarray
    b: np.ndarray


def namedtuple_params(p, x):
    return jnp.sum(jnp.tanh(x @ p.w + p.b) ** 2)


case(namedtuple_params, lambda r: (Params(mat(r, 3, 2), vec(r, 2)), mat(r, 4, 3)), "works")


def namedtuple_params_unpacked(p, x):
    w, b = p
    return jnp.sum((x @ w + b) ** 2)


case(namedtuple_params_unpacked, lambda r: (Params(mat(r, 3, 2), vec(r, 2)), mat(r, 4, 3)), "works")

Pair = namedtuple("Pair", "left right")


def namedtuple_replace_inside(x):
    p = Pair(x[0], x[1])
    q = p._replace(right=p.right * 3.0)
    return q.left * q.right + jnp.sum(x)


case(namedtuple_replace_inside, lambda r: (vec(r, 3),), "either")


def dict_with_nested_lists(params, x):
    h = x
    for w, b in zip(params["ws"], params["bs"]):
        h = jnp.tanh(h @ w + b)
    return jnp.sum(h ** 2) + params["scale"][0] * jnp.sum(x)


case(dict_with_nested_lists, lambda r: ({"ws": [mat(r, 3, 3), mat(r, 3, 2)], "bs": [vec(r, 3), vec(r, 2)],
                                         "scale": [scalar(r)]}, mat(r, 2, 3)), "works")


def list_of_dicts_params(layers, x):
    h = x
    for lay in layers:
        h = jnp.sin(h * lay["a"]) + lay["c"]
    return jnp.sum(h)


case(list_of_dicts_params, lambda r: ([{"a": vec(r, 3), "c": scalar(r)}, {"a": vec(r, 3), "c": scalar(r)}],
                                      vec(r, 3)), "works")


def dict_params_order_dependent(d):
    # the loop's result depends on the order: JAX flattens dicts with sorted keys, Python keeps insertion order
    acc = 1.0
    for k, v in d.items():
        acc = jnp.sin(acc) * v
    return acc


def _dict_in_sorted_order(d):
    return dict_params_order_dependent({k: d[k] for k in sorted(d)})


case(dict_params_order_dependent, lambda r: ({"b": scalar(r), "a": scalar(r)},), "works",
     reference=_dict_in_sorted_order, note="JAX flattens a dict argument with its keys sorted (docs/semantics.md)")

# ============================================================ recursion, generators, control flow
def _power_rec(x, n, acc):
    if n == 0:
        return acc
    return _power_rec(x, n - 1, acc * x)


def recursion_with_accumulator(x):
    return jnp.sum(_power_rec(x, 4, 1.0))


case(recursion_with_accumulator, lambda r: (vec(r, 3),), "works")


def _is_even_sum(x, n):
    if n == 0:
        return x
    return _is_odd_sum(jnp.sin(x), n - 1)


def _is_odd_sum(x, n):
    if n == 0:
        return -x
    return _is_even_sum(x * 1.5, n - 1)


def mutual_recursion(x):
    return jnp.sum(_is_even_sum(x, 5))


case(mutual_recursion, lambda r: (vec(r, 3),), "works")


def _fib_like(x, n):
    if n <= 1:
        return x
    return _fib_like(x, n - 1) * 0.5 + jnp.cos(_fib_like(x, n - 2))


def tree_recursion(x):
    return jnp.sum(_fib_like(x, 5))


case(tree_recursion, lambda r: (vec(r, 3),), "works")


def recursion_on_data(x):
    # recursion depth decided by the data
    if jnp.sum(x ** 2) < 0.1:
        return jnp.sum(x)
    return recursion_on_data(x * 0.5) + 1.0


case(recursion_on_data, lambda r: (vec(r, 3),), "works")


def generator_expression_sum(x):
    return sum(jnp.sin(v) * k for k, v in enumerate(x))


case(generator_expression_sum, lambda r: (vec(r, 4),), "works")


def _squares(x):
    for v in x:
        yield v * v


def user_generator_sum(x):
    return sum(_squares(x)) + sum(v for v in _squares(x) if v > 0.1)


case(user_generator_sum, lambda r: (vec(r, 4),), "works")


def _pairs(x):
    for i in range(len(x) - 1):
        yield x[i], x[i + 1]


def generator_of_tuples(x):
    return sum(a * jnp.exp(b) for a, b in _pairs(x))


case(generator_of_tuples, lambda r: (vec(r, 4),), "works")


def early_return_nested_loops(x):
    for i in range(3):
        for j in range(3):
            if x[i] * x[j] > 0.5:
                return x[i] * x[j] + i
    return jnp.sum(x ** 2)


case(early_return_nested_loops, lambda r: (vec(r, 3, 0.2, 1.0),), "works")
case(early_return_nested_loops, lambda r: (vec(r, 3, -0.6, 0.6),), "works", name="early_return_nested_loops_falls_off")


def while_break_else(x):
    s = x[0]
    k = 0
    while k < 5:
        s = s * 1.2 + x[1]
        if s > 3.0:
            break
        k += 1
    else:
        s = s - 10.0 * x[2]
    return s


case(while_break_else, lambda r: (_x(0.5, 0.3, 0.2),), "works")
case(while_break_else, lambda r: (_x(0.1, -0.2, 0.2),), "works", name="while_else_runs")


def for_else_search(x):
    for i in range(len(x)):
        if x[i] > 0.8:
            found = x[i] * i
            break
    else:
        found = jnp.sum(x) * 0.1
    return found + x[0]


case(for_else_search, lambda r: (_x(0.1, 0.9, 0.3),), "works")
case(for_else_search, lambda r: (_x(0.1, 0.2, 0.3),), "works", name="for_else_not_found")


def try_finally_returns(x):
    total = x[0]
    try:
        total = total * jnp.exp(x[1])
        return total
    finally:
        total = 0.0


case(try_finally_returns, lambda r: (vec(r, 3),), "works")


def nested_loops_continue(x):
    acc = 0.0
    for i in range(3):
        for j in range(3):
            if j == i:
                continue
            acc = acc + x[i] * jnp.cos(x[j])
    return acc


case(nested_loops_continue, lambda r: (vec(r, 3),), "works")


def helper_defined_after_use(x):
    return jnp.sum(_later_helper(x) ** 2)


def _later_helper(x):
    return jnp.tanh(x) + x


case(helper_defined_after_use, lambda r: (vec(r, 3),), "works")


def imported_helpers(x, w):
    h = layer(w, x)
    return jnp.sum(softplus(h)) + accumulate(h, cube) + norm2(x)


case(imported_helpers, lambda r: (vec(r, 3), mat(r, 3, 3)), "works")
case(imported_helpers, lambda r: (vec(r, 3), mat(r, 3, 3)), "works", argnums=1, name="imported_helpers_wrt_w")


def module_attribute_helpers(x):
    return jnp.sum(helpers.softplus(x * helpers.SCALE)) + helpers.cube(x[0])


case(module_attribute_helpers, lambda r: (vec(r, 3),), "works")


def imported_callable_object(x):
    s = Scaler(x[0])
    return jnp.sum(s(x) ** 2)


case(imported_callable_object, lambda r: (vec(r, 3),), "either")


def partial_of_helper(x):
    f = functools.partial(_power_rec, n=3, acc=1.0)
    return jnp.sum(f(x))


case(partial_of_helper, lambda r: (vec(r, 3),), "works")


def reduce_with_lambda(x):
    return functools.reduce(lambda a, b: a * jnp.cos(b) + b, x, 1.0)


case(reduce_with_lambda, lambda r: (vec(r, 4),), "works")


def reduce_operator_mul(x):
    return functools.reduce(operator.mul, [x[0], x[1], x[2] + 1.0])


case(reduce_operator_mul, lambda r: (vec(r, 3),), "works")


def map_and_filter(x):
    ys = list(map(lambda v: v * v, x))
    zs = list(filter(lambda v: v > 0.1, ys))
    return sum(zs) + len(zs) * x[0]


case(map_and_filter, lambda r: (vec(r, 5),), "either")


def map_two_sequences(x):
    return sum(map(lambda a, b: a * b, x, x[::-1]))


case(map_two_sequences, lambda r: (vec(r, 4),), "works")


def sorted_by_key(x):
    items = [(x[i] ** 2, x[i]) for i in range(len(x))]
    ordered = sorted(items, key=lambda t: t[0])
    return sum(k * t[1] for k, t in enumerate(ordered))


case(sorted_by_key, lambda r: (vec(r, 4),), "works")


def sorted_reverse_with_abs(x):
    vs = sorted(list(x), key=abs, reverse=True)
    return vs[0] * 3.0 + vs[-1]


case(sorted_reverse_with_abs, lambda r: (vec(r, 4),), "works")


def enumerate_start(x):
    return sum(k * v ** 2 for k, v in enumerate(x, start=2))


case(enumerate_start, lambda r: (vec(r, 4),), "works")


def zip_strict(x):
    return sum(a * b for a, b in zip(x, jnp.sin(x), strict=True))


case(zip_strict, lambda r: (vec(r, 4),), "works")


def star_unpack_assign(x):
    first, *middle, last = x
    return first * last + sum(middle) * 2.0


case(star_unpack_assign, lambda r: (vec(r, 5),), "works")


def _three(a, b, c):
    return a * b - c


def star_unpack_call(x):
    parts = (x[0], x[1], x[2])
    return _three(*parts) + _three(*x[1:4])


case(star_unpack_call, lambda r: (vec(r, 4),), "works")


def star_in_list_display(x):
    ys = [*x[:2], x[3] * 2.0, *x[2:3]]
    return ys[0] * ys[1] + ys[2] * ys[3]


case(star_in_list_display, lambda r: (vec(r, 4),), "either", note="refused today: a starred item in a list display")


def kwargs_dict_to_helper(x):
    opts = {"n": 2, "acc": x[0]}
    return jnp.sum(_power_rec(x, **opts))


case(kwargs_dict_to_helper, lambda r: (vec(r, 3),), "works")


def itertools_product_pairs(x):
    return sum(x[i] * x[j] for i, j in itertools.product(range(3), repeat=2) if i < j)


case(itertools_product_pairs, lambda r: (vec(r, 3),), "works")


def math_functions_on_items(x):
    return math.exp(0.5) * x[0] + math.pi * x[1] ** 2


case(math_functions_on_items, lambda r: (vec(r, 3),), "works")


def math_sqrt_of_item(x):
    # math.sqrt of a differentiated value
    return math.sqrt(x[0] ** 2 + 1.0) * x[1]


case(math_sqrt_of_item, lambda r: (vec(r, 3),), "either")


def conditional_expression_chain(x):
    a = x[0]
    y = a * 2.0 if a > 0.5 else (a ** 2 if a > -0.5 else -a)
    return y + x[1]


case(conditional_expression_chain, lambda r: (_x(0.2, 0.1),), "works")
case(conditional_expression_chain, lambda r: (_x(-0.8, 0.1),), "works", name="conditional_expression_chain_neg")


def walrus_in_while(x):
    s = x[0]
    n = 0
    while (t := s * s) < 4.0 and n < 10:
        s = s + t * 0.1 + x[1]
        n += 1
    return s


case(walrus_in_while, lambda r: (_x(0.5, 0.2),), "works")


def lax_fori_inside_helper(x):
    return lax.fori_loop(0, 3, lambda i, c: c * jnp.cos(c) + x[i], x[3])


case(lax_fori_inside_helper, lambda r: (vec(r, 4),), "works")


def lax_while_newton(a):
    def cond(c):
        return jnp.abs(c[0] * c[0] - a) > 1e-12

    def body(c):
        return (0.5 * (c[0] + a / c[0]), c[1] + 1)
    root, _ = lax.while_loop(cond, body, (a, 0))
    return root


case(lax_while_newton, lambda r: (scalar(r, 1.5, 3.0),), "works", rtol=1e-4)


def lax_scan_cumulative(x):
    def step(c, v):
        c = c * 0.9 + jnp.sin(v)
        return c, c * v
    final, ys = lax.scan(step, 0.0, x)
    return final + jnp.sum(ys)


case(lax_scan_cumulative, lambda r: (vec(r, 5),), "works")


def lax_cond_branches(x):
    return lax.cond(x[0] > 0, lambda v: jnp.sum(v ** 2), lambda v: jnp.sum(jnp.sin(v)), x)


case(lax_cond_branches, lambda r: (vec(r, 3),), "works")


# ============================================================ kinks and ties: JAX's numbers
_NAN = float("nan")


def _grad_at(point, expected, expected_jvp):
    """A check: grad, and jvp along ones, at `point` give JAX's numbers (JAX 0.10.2, x64): JAX's reverse mode
    gives nan where the branch a `where` does not take has an infinite slope, its forward mode does not."""
    def check(fn, args):
        x = np.array(point, dtype=np.float64)
        g = astjax.grad(fn)(x.copy())
        _, t = astjax.jvp(fn, (x.copy(),), (np.ones_like(x),))
        return [(np.isnan(g), np.isnan(expected), "grad is nan where JAX's is"),
                (np.nan_to_num(g), np.nan_to_num(expected), "grad vs JAX at the kink"),
                (np.isnan(t), np.isnan(expected_jvp), "jvp is nan where JAX's is"),
                (np.nan_to_num(t), np.nan_to_num(expected_jvp), "jvp along ones vs JAX")]
    return check


def _kink(fn, point, expected, expected_jvp, name=None, outcome="works"):
    case(fn, lambda r: (np.array(point, dtype=np.float64),), outcome, mode="custom",
         check=_grad_at(point, expected, expected_jvp), name=name or fn.__name__ + "_at_kink")


def abs_at_zero(x):
    return jnp.sum(jnp.abs(x) * _x(1.0, 2.0, 3.0))


_kink(abs_at_zero, [0.0, -1.0, 2.0], [1.0, -2.0, 3.0], 2.0)


def maximum_tie(x):
    return jnp.sum(jnp.maximum(x, x[::-1]))


_kink(maximum_tie, [1.0, 0.5, 1.0], [1.0, 1.0, 1.0], 3.0)


def minimum_tie_constant(x):
    return jnp.sum(jnp.minimum(x, 0.5) * _x(1.0, 2.0, 3.0))


_kink(minimum_tie_constant, [0.5, 0.2, 0.9], [0.5, 2.0, 0.0], 2.5)


def clip_at_bounds(x):
    return jnp.sum(jnp.clip(x, 0.0, 1.0) * _x(1.0, 2.0, 3.0))


_kink(clip_at_bounds, [0.0, 1.0, 0.5], [0.5, 1.0, 3.0], 4.5)


def max_reduce_tie(x):
    return jnp.max(x * _x(1.0, 1.0, 2.0))


_kink(max_reduce_tie, [1.0, 1.0, 0.5], [0.333333, 0.333333, 0.666667], 1.333333)


def min_axis_tie(x):
    return jnp.sum(jnp.min(jnp.stack([x, x[::-1]]), axis=0))


_kink(min_axis_tie, [1.0, 2.0, 1.0], [1.0, 1.0, 1.0], 3.0)


def sort_with_ties(x):
    return jnp.sum(jnp.sort(x) * _x(1.0, 2.0, 3.0))


_kink(sort_with_ties, [1.0, 0.5, 1.0], [2.0, 1.0, 3.0], 6.0)


def argmax_tie_picks_first(x):
    return x[jnp.argmax(x)] * 3.0 + jnp.sum(x)


_kink(argmax_tie_picks_first, [1.0, 0.5, 1.0], [4.0, 1.0, 1.0], 6.0)


def where_log_nan_in_untaken_branch(x):
    return jnp.sum(jnp.where(x > 0, jnp.log(x), 0.0))


_kink(where_log_nan_in_untaken_branch, [-1.0, 0.0, 2.0], [-0.0, _NAN, 0.5], 0.5)


def where_sqrt_untaken_at_zero(x):
    return jnp.sum(jnp.where(x > 0, jnp.sqrt(x), x))


_kink(where_sqrt_untaken_at_zero, [0.0, -1.0, 4.0], [_NAN, _NAN, 0.25], 2.25, outcome="either")


def relu_at_zero(x):
    return jnp.sum(astjax.nn.relu(x) + jnp.maximum(x, 0.0))


_kink(relu_at_zero, [0.0, -1.0, 2.0], [0.5, 0.0, 2.0], 2.5)


def integer_power_of_negative(x):
    return jnp.sum(x ** 3.0 + jnp.power(x, 2.0) + x ** 2)


_kink(integer_power_of_negative, [-2.0, -1.5, 0.0], [4.0, 0.75, 0.0], 4.75)


def power_by_int_array(x):
    return jnp.sum(x ** jnp.array([1, 2, 3]))


_kink(power_by_int_array, [-2.0, -1.5, 0.0], [1.0, -3.0, 0.0], -2.0)


def zero_to_the_x(x):
    return jnp.sum(jnp.zeros(3) ** x)


_kink(zero_to_the_x, [0.5, 1.0, 2.0], [0.0, 0.0, 0.0], 0.0)


def floor_round_sign_kill(x):
    return jnp.sum(jnp.floor(x) * x + jnp.round(x) + jnp.sign(x) * x + jnp.trunc(x) + jnp.ceil(x))


_kink(floor_round_sign_kill, [-1.5, 0.0, 2.3], [-3.0, 0.0, 3.0], 0.0)


def mod_fmod_remainder(x):
    return jnp.sum(jnp.mod(x, 0.7) + jnp.fmod(x, 0.7) + jnp.remainder(x * 3, x + 2.0))


_kink(mod_fmod_remainder, [-1.0, 0.1, 2.0], [8.0, 5.0, 4.0], 17.0)


def floor_divide_times_x(x):
    return jnp.sum(jnp.floor_divide(x, 0.3) * x + x // 0.7)


_kink(floor_divide_times_x, [-1.0, 0.1, 2.0], [-4.0, 0.0, 6.0], 2.0)


def hypot_with_zero(x):
    return jnp.sum(jnp.hypot(x, x[::-1]))


_kink(hypot_with_zero, [3.0, 0.5, 4.0], [1.2, 1.414214, 1.6], 4.214214)


def arctan2_quadrants(x):
    return jnp.sum(jnp.arctan2(x, x[::-1] * _x(1.0, -1.0, -1.0)))


_kink(arctan2_quadrants, [-1.0, 2.0, 1.0], [1.0, 0.0, 1.0], 2.0)


def logaddexp_minus_inf(x):
    return jnp.sum(jnp.logaddexp(x, -jnp.inf) + jnp.logaddexp(x, x))


_kink(logaddexp_minus_inf, [-1.0, 0.0, 2.0], [2.0, 2.0, 2.0], 6.0)


def logsumexp_with_minus_inf_entries(x):
    return astjax.scipy.special.logsumexp(jnp.where(x > 0, x, -jnp.inf))


_kink(logsumexp_with_minus_inf_entries, [-1.0, 0.0, 2.0], [0.0, 0.0, 1.0], 1.0)


def softmax_masked_minus_inf(x):
    return jnp.sum(astjax.nn.softmax(jnp.where(x > 0, x, -jnp.inf)) * _x(1.0, 2.0, 3.0))


_kink(softmax_masked_minus_inf, [-1.0, 0.5, 2.0], [0.0, -0.149146, 0.149146], 0.0, name="softmax_masked_minus_inf")


def sqrt_of_sum_of_squares_at_zero(x):
    return jnp.sqrt(jnp.sum(x ** 2))


_kink(sqrt_of_sum_of_squares_at_zero, [0.0, 0.0, 0.0], [_NAN, _NAN, _NAN], _NAN, outcome="either")


def norm_at_zero(x):
    return jnp.linalg.norm(x)


_kink(norm_at_zero, [0.0, 0.0, 0.0], [_NAN, _NAN, _NAN], _NAN, outcome="either")


def median_even_count(x):
    return jnp.median(jnp.concatenate([x, _x(0.0)]))


_kink(median_even_count, [-1.0, 0.5, 2.0], [0.0, 0.5, 0.0], 0.5)


def std_of_constant(x):
    return jnp.std(x * 0.0 + 1.0) + jnp.sum(x)


_kink(std_of_constant, [1.0, 2.0, 3.0], [_NAN, _NAN, _NAN], _NAN, outcome="either")


def prod_with_one_zero(x):
    return jnp.prod(x) + jnp.sum(jnp.cumprod(x))


_kink(prod_with_one_zero, [2.0, 0.0, 3.0], [1.0, 14.0, 0.0], 15.0)


def prod_with_two_zeros(x):
    return jnp.prod(x)


_kink(prod_with_two_zeros, [0.0, 0.0, 3.0], [0.0, 0.0, 0.0], 0.0)


def heaviside_and_copysign(x):
    return jnp.sum(jnp.heaviside(x, 0.5) * x + jnp.copysign(x, -x[::-1]))


_kink(heaviside_and_copysign, [-1.0, 0.5, 2.0], [1.0, 0.0, 2.0], 3.0)


def fmax_with_nan(x):
    return jnp.sum(jnp.fmax(x, jnp.where(x > 0, jnp.nan, 0.5)))


_kink(fmax_with_nan, [-1.0, 0.5, 2.0], [0.0, 1.0, 1.0], 2.0, outcome="either")


def nanmax_of_masked(x):
    return jnp.nanmax(jnp.where(x > 0, x, jnp.nan)) + jnp.nansum(jnp.where(x > 0, x, jnp.nan) * x)


_kink(nanmax_of_masked, [-1.0, 0.5, 2.0], [_NAN, 1.0, 5.0], 6.0)


def cbrt_and_abs_power(x):
    return jnp.sum(jnp.abs(x) ** 3 + jnp.abs(x) ** 2 + jnp.sqrt(x ** 2))


_kink(cbrt_and_abs_power, [-1.0, 0.5, 2.0], [-6.0, 2.75, 17.0], 13.75)


def builtin_max_tie_first(x):
    return max(x[0], x[2]) * 2.0 + min(x[1], x[2])


_kink(builtin_max_tie_first, [1.0, 0.5, 1.0], [2.0, 1.0, 0.0], 3.0)


def leaky_relu_at_zero(x):
    return jnp.sum(astjax.nn.leaky_relu(x, 0.1) + astjax.nn.relu6(x * 6.0))


_kink(leaky_relu_at_zero, [0.0, 1.0, -1.0], [1.0, 1.0, 0.1], 2.1)


# ============================================================ dtypes under derivatives
def _f32(*values):
    return np.array(values, dtype=np.float32)


def _dtype_check(point):
    """A check: value_and_grad and jvp of float32 inputs stay float32 (JAX's rule: Python scalars are weak),
    and their numbers agree with the float64 program's (value, finite differences) to float32 precision."""
    def check(fn, args):
        from .harness import fd_grad
        x32 = np.array(point, dtype=np.float32)
        x64 = x32.astype(np.float64)
        v, g = astjax.value_and_grad(fn)(x32.copy())
        _, t = astjax.jvp(fn, (x32.copy(),), (np.ones_like(x32),))
        fd = fd_grad(fn, (x64,), 0)[0]
        return [(np.asarray(v).dtype, np.dtype(np.float32), "value dtype"),
                (np.asarray(g).dtype, np.dtype(np.float32), "gradient dtype"),
                (np.asarray(t).dtype, np.dtype(np.float32), "tangent dtype"),
                (np.float64(v), np.float64(fn(x64.copy())), "value vs the float64 program"),
                (np.asarray(g, np.float64), fd, "gradient vs finite differences"),
                (np.float64(t), fd.sum(), "jvp vs finite differences")]
    return check


def _dtype_case(fn, point, outcome="works", name=None):
    case(fn, lambda r: (np.array(point, dtype=np.float64),), outcome, mode="custom", check=_dtype_check(point), rtol=2e-3, name=name or fn.__name__ + "_float32")


def float32_with_python_constants(x):
    return jnp.sum(0.5 * x ** 2 + 3.0 * jnp.sin(x) - 1e-3 / (x + 2.0))


_dtype_case(float32_with_python_constants, [0.3, -0.7, 1.1])


def float32_with_math_constants(x):
    return jnp.sum(jnp.exp(-x * math.pi) * math.e) + math.sqrt(2.0) * x[0]


_dtype_case(float32_with_math_constants, [0.3, -0.7, 1.1])


def float32_times_float64_numpy_scalar(x):
    # np.float64 is a strong type: NumPy and JAX's x64 mode give a float64 value; the gradient has x's dtype
    return jnp.sum(x * np.float64(2.5))


def _strong_scalar_check(fn, args):
    x32 = np.array([0.3, -0.7, 1.1], dtype=np.float32)
    v, g = astjax.value_and_grad(fn)(x32)
    return [(np.asarray(v).dtype, np.dtype(np.float64), "value dtype (NumPy, JAX x64)"),
            (np.asarray(g).dtype, np.dtype(np.float32), "gradient dtype (x's)"), (g, np.full(3, 2.5), "gradient")]


case(float32_times_float64_numpy_scalar, lambda r: (vec(r, 3),), "works", mode="custom", check=_strong_scalar_check)


def float32_with_bool_mask(x):
    m = x > 0
    return jnp.sum(x * m + (1 - m) * x ** 2) + jnp.sum(m * 1.0)


_dtype_case(float32_with_bool_mask, [0.3, -0.7, 1.1])


def float32_with_int_array(x):
    k = jnp.arange(3)
    return jnp.sum(x * k + x ** k)


_dtype_case(float32_with_int_array, [0.3, -0.7, 1.1])


def float32_mean_and_var(x):
    return jnp.mean(x) * jnp.var(x) + jnp.std(x)


_dtype_case(float32_mean_and_var, [0.3, -0.7, 1.1])


def float32_through_astype_float(x):
    # astype(float) of float32 data is float32 (docs/semantics.md: a float64 NumPy array stays float64)
    return jnp.sum(x.astype(float) ** 2)


_dtype_case(float32_through_astype_float, [0.3, -0.7, 1.1], outcome="either")


def float32_with_float32_scalar(x):
    return jnp.sum(x * np.float32(1.5) + np.float32(0.25))


_dtype_case(float32_with_float32_scalar, [0.3, -0.7, 1.1])


def float32_softmax_xent(x):
    p = astjax.nn.softmax(x)
    return -jnp.log(p[1] + 1e-7)


_dtype_case(float32_softmax_xent, [0.3, -0.7, 1.1])


def float32_linalg(x):
    a = jnp.eye(3) * 2.0 + jnp.outer(x, x) * 0.1
    return jnp.linalg.slogdet(a)[1] + jnp.sum(jnp.linalg.solve(a, x))


_dtype_case(float32_linalg, [0.3, -0.7, 1.1])


def int_input_cast_inside(x, n):
    return jnp.sum(x * n.astype(jnp.float64) + x ** 2 * (n > 1))


case(int_input_cast_inside, lambda r: (vec(r, 4), np.array([0, 1, 2, 3])), "works")


def int_counts_as_weights(x, counts):
    return jnp.sum(counts * jnp.log1p(x ** 2)) / jnp.sum(counts)


case(int_counts_as_weights, lambda r: (vec(r, 4), np.array([1, 3, 0, 2])), "works")


def bool_mask_argument(x, m):
    return jnp.sum(jnp.where(m, x ** 2, -x)) + jnp.sum(x * m)


case(bool_mask_argument, lambda r: (vec(r, 4), np.array([True, False, True, False])), "works")


def zero_d_argument(x):
    return jnp.sin(x) * x ** 2


case(zero_d_argument, lambda r: (scalar(r),), "works")


def _argnums_check(fn, args):
    from .harness import fd_grad
    a, b, c = args
    v, (ga, gc) = astjax.value_and_grad(fn, argnums=(0, 2))(a.copy(), b, c.copy())
    gb = astjax.grad(fn, argnums=1)(a.copy(), b, c.copy())
    jac = astjax.jacrev(fn, argnums=(2, 0))(a.copy(), b, c.copy())
    jf = astjax.jacfwd(fn, argnums=(2, 0))(a.copy(), b, c.copy())
    return [(v, fn(a, b, c), "value"), (ga, fd_grad(fn, args, 0)[0], "d/da"), (gc, fd_grad(fn, args, 2)[0], "d/dc"),
            (gb, fd_grad(fn, args, 1)[0], "d/db"), (jac[0], fd_grad(fn, args, 2)[0], "jacrev d/dc"),
            (jac[1], fd_grad(fn, args, 0)[0], "jacrev d/da"), (jf[0], fd_grad(fn, args, 2)[0], "jacfwd d/dc"),
            (jf[1], fd_grad(fn, args, 0)[0], "jacfwd d/da")]


def three_arguments(a, b, c):
    return jnp.sum(a * b) + jnp.sum(jnp.tanh(c) * a[0]) + b[0] * c[1]


case(three_arguments, lambda r: (vec(r, 3), vec(r, 3), vec(r, 2)), "works", mode="custom", check=_argnums_check,
     name="argnums_tuples_in_any_order")


def _aux_check(fn, args):
    from .harness import fd_grad
    x, = args
    (v, aux), g = astjax.value_and_grad(fn, has_aux=True)(x.copy())
    g2, aux2 = astjax.grad(fn, has_aux=True)(x.copy())
    primal, vjp_fn, aux3 = astjax.vjp(fn, x.copy(), has_aux=True)
    (gv,) = vjp_fn(np.float64(1.0))
    jr, aux4 = astjax.jacrev(fn, has_aux=True)(x.copy())
    jf, aux5 = astjax.jacfwd(fn, has_aux=True)(x.copy())
    want_v, want_aux = fn(x.copy())
    fd = fd_grad(lambda t: fn(t)[0], (x,), 0)[0]
    out = [(v, want_v, "value"), (g, fd, "grad"), (g2, fd, "grad(has_aux)"), (gv, fd, "vjp(has_aux)"),
           (jr, fd, "jacrev(has_aux)"), (jf, fd, "jacfwd(has_aux)")]
    for a in (aux, aux2, aux3, aux4, aux5):
        out += [(a["stats"][0], want_aux["stats"][0], "aux list item"), (a["stats"][1], want_aux["stats"][1], "aux"),
                (a["n"], want_aux["n"], "aux int"), (a["nested"]["h"], want_aux["nested"]["h"], "aux nested")]
    return out


def loss_with_pytree_aux(x):
    h = jnp.tanh(x)
    loss = jnp.sum(h ** 2)
    return loss, {"stats": [jnp.mean(h), jnp.max(h)], "n": 3, "nested": {"h": h * 2.0}}


case(loss_with_pytree_aux, lambda r: (vec(r, 4),), "works", mode="custom", check=_aux_check)


def _allow_int_check(fn, args):
    x, n = args
    gx, gn = astjax.grad(fn, argnums=(0, 1), allow_int=True)(x.copy(), n)
    from .harness import fd_grad
    return [(gx, fd_grad(fn, args, 0)[0], "float argument"), (np.asarray(gn).dtype.names is not None or
            str(np.asarray(gn).dtype) == "[('float0', 'V')]", True, "float0 for the int argument"),
            (np.shape(gn), np.shape(n), "float0 shape")]


def int_argument_allowed(x, n):
    return jnp.sum(x ** n)


case(int_argument_allowed, lambda r: (vec(r, 3), np.array([1, 2, 3])), "works", mode="custom",
     check=_allow_int_check)


def int_argument_without_allow_int(x, n):
    return jnp.sum(x ** n)


case(int_argument_without_allow_int, lambda r: (vec(r, 3), np.array([1, 2, 3])), "refuse", argnums=1,
     errors=(TypeError,), error_match="integer|int")


def complex_holomorphic(z):
    return jnp.sum(z * z)


case(complex_holomorphic, lambda r: (vec(r, 3) + 1j * vec(r, 3),), "refuse", errors=(TypeError,),
     error_match="complex|holomorphic")


def _python_float_check(fn, args):
    g = astjax.grad(fn)(0.7)
    gi = astjax.grad(fn, argnums=1)(0.7, 2.0)
    return [(g, np.cos(0.7) * 2.0 + 2 * 0.7, "grad at a Python float"), (np.asarray(g).dtype, np.dtype(np.float32),
            "a differentiated Python float is float32"), (gi, np.sin(0.7), "d/dk at Python floats")]


def python_float_argument(x, k=2.0):
    return jnp.sin(x) * k + x ** 2


case(python_float_argument, lambda r: (scalar(r),), "works", mode="custom", check=_python_float_check, rtol=1e-5)


# ============================================================ second derivatives against second differences
def _hess_check(fn, args):
    """hessian, jacfwd(jacrev), jacrev(jacfwd), jacrev(grad) and jvp(grad) against second differences."""
    from .harness import fd_hessian
    x = args[0]
    H = fd_hessian(fn, args)
    rest = tuple(args[1:])
    v = np.linspace(-1.0, 1.0, x.size).reshape(x.shape)
    return [(astjax.hessian(fn)(x.copy(), *rest), H, "hessian"),
            (astjax.jacfwd(astjax.jacrev(fn))(x.copy(), *rest), H, "jacfwd(jacrev)"),
            (astjax.jacrev(astjax.jacfwd(fn))(x.copy(), *rest), H, "jacrev(jacfwd)"),
            (astjax.jacrev(astjax.grad(fn))(x.copy(), *rest), H, "jacrev(grad)"),
            (astjax.jvp(astjax.grad(fn), (x.copy(),) + rest, (v,) + tuple(np.zeros_like(a) for a in rest))[1],
             np.tensordot(H, v, axes=v.ndim), "jvp(grad)")]


def _hess(fn, make_args, outcome="works", name=None, rtol=1e-4):
    case(fn, make_args, outcome, mode="custom", check=_hess_check, rtol=rtol, name=name or fn.__name__ + "_hess")


def loop_with_helper(x):
    h = x
    for k in range(3):
        h = jnp.tanh(h * (k + 1.0)) + _later_helper(h) * 0.1
    return jnp.sum(h ** 2)


_hess(loop_with_helper, lambda r: (vec(r, 3),))


def loop_break_on_data(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + jnp.exp(x[i]) * x[i - 1]
        if s > 2.0:
            break
    return s


_hess(loop_break_on_data, lambda r: (_x(0.2, 0.9, 1.1, 0.4),))


def while_fixed_point(x):
    y = x
    k = 0
    while k < 4:
        y = 0.5 * jnp.cos(y) + 0.3 * x
        k += 1
    return jnp.sum(y * x)


_hess(while_fixed_point, lambda r: (vec(r, 3),))


def at_set_then_use(x):
    y = jnp.zeros(4, dtype=jnp.float64).at[1:3].set(x[:2] ** 2).at[0].add(x[2] * x[0])
    return jnp.sum(y * jnp.sin(y)) + y[1] * x[2]


_hess(at_set_then_use, lambda r: (vec(r, 3),))


def at_mul_and_min_max(x):
    y = jnp.asarray(x).at[0].multiply(x[1]).at[2].min(x[0]).at[1].max(0.1)
    return jnp.sum(y ** 3)


_hess(at_mul_and_min_max, lambda r: (_x(0.7, 0.4, 1.3),))


def at_add_repeated_indices(x):
    y = jnp.zeros(3, dtype=jnp.float64).at[jnp.array([0, 0, 2])].add(x * x)
    return jnp.sum(jnp.exp(y) * jnp.arange(1.0, 4.0))


_hess(at_add_repeated_indices, lambda r: (vec(r, 3),))


def numpy_setitem_in_loop(x):
    y = np.zeros(3)
    for i in range(3):
        y[i] = x[i] * x[(i + 1) % 3]
    return np.sum(y ** 2)


_hess(numpy_setitem_in_loop, lambda r: (vec(r, 3),))


def cumsum_cumprod(x):
    return jnp.sum(jnp.cumsum(x) ** 2) + jnp.sum(jnp.cumprod(x))


_hess(cumsum_cumprod, lambda r: (vec(r, 4),))


def sort_then_weights(x):
    return jnp.sum(jnp.sort(x) ** 2 * jnp.arange(4.0)) + jnp.sum(jnp.sort(x ** 3))


_hess(sort_then_weights, lambda r: (_x(0.3, -0.8, 1.1, 0.5),))


def take_along_axis_argsort(x):
    m = x.reshape(2, 3)
    idx = jnp.argsort(m, axis=1)
    s = jnp.take_along_axis(m, idx, axis=1)
    return jnp.sum(s[:, 0] * s[:, 2] ** 2)


_hess(take_along_axis_argsort, lambda r: (_x(0.3, -0.8, 1.1, 0.5, 0.2, -0.4),))


def logsumexp_softmax(x):
    return astjax.scipy.special.logsumexp(x) + jnp.sum(astjax.nn.softmax(x) ** 2)


_hess(logsumexp_softmax, lambda r: (vec(r, 4),))


def linalg_solve(x):
    a = jnp.array([[3.0, 0.5, 0.1], [0.2, 2.0, 0.3], [0.1, 0.4, 4.0]]) + jnp.diag(x)
    return jnp.sum(jnp.linalg.solve(a, x))


_hess(linalg_solve, lambda r: (vec(r, 3),))


def linalg_inv_det(x):
    a = jnp.eye(3) * 2.0 + jnp.outer(x, x[::-1]) * 0.3
    return jnp.sum(jnp.linalg.inv(a)) + jnp.linalg.det(a)


_hess(linalg_inv_det, lambda r: (vec(r, 3),))


def linalg_slogdet(x):
    a = x.reshape(2, 2) + 3.0 * jnp.eye(2)
    sign, logdet = jnp.linalg.slogdet(a)
    return sign * logdet


_hess(linalg_slogdet, lambda r: (vec(r, 4),))


def linalg_cholesky(x):
    a = jnp.outer(x, x) + 2.0 * jnp.eye(3)
    c = jnp.linalg.cholesky(a)
    return jnp.sum(c * jnp.arange(9.0).reshape(3, 3))


_hess(linalg_cholesky, lambda r: (vec(r, 3),))


def linalg_eigh(x):
    a = jnp.array([[2.0, 0.3, 0.0], [0.3, 1.0, 0.2], [0.0, 0.2, -1.0]]) + jnp.diag(x)
    w, v = jnp.linalg.eigh(a)
    return w[0] * w[2] + jnp.sum(v[:, 1] ** 4)


_hess(linalg_eigh, lambda r: (vec(r, 3, -0.2, 0.2),))


def linalg_svd_values(x):
    a = x.reshape(2, 3)
    s = jnp.linalg.svd(a, compute_uv=False)
    return jnp.sum(s ** 3)


_hess(linalg_svd_values, lambda r: (_x(1.0, 0.2, -0.3, 0.1, 0.8, 0.5),))


def linalg_qr(x):
    a = x.reshape(3, 2)
    q, rr = jnp.linalg.qr(a)
    return jnp.sum(rr ** 2) + jnp.sum(jnp.abs(jnp.diag(rr)))


_hess(linalg_qr, lambda r: (_x(1.0, 0.2, -0.3, 0.1, 0.8, 0.5),))


def linalg_norms(x):
    a = x.reshape(2, 2)
    return jnp.linalg.norm(x) + jnp.linalg.norm(a) + jnp.linalg.norm(a, "fro") + jnp.linalg.norm(x, 2)


_hess(linalg_norms, lambda r: (vec(r, 4),))


def linalg_norm_ord1_and_inf(x):
    return jnp.linalg.norm(x, 1) + jnp.linalg.norm(x, jnp.inf) + jnp.linalg.norm(x.reshape(2, 2), 1)


_hess(linalg_norm_ord1_and_inf, lambda r: (_x(0.3, -0.8, 1.1, 0.5),), outcome="either")


def linalg_matrix_power_and_trace(x):
    a = x.reshape(2, 2)
    return jnp.trace(jnp.linalg.matrix_power(a, 3)) + jnp.sum(a @ a.T)


_hess(linalg_matrix_power_and_trace, lambda r: (vec(r, 4),))


def recursion_hess(x):
    return jnp.sum(_fib_like(x, 4))


_hess(recursion_hess, lambda r: (vec(r, 3),))


def generator_sum_hess(x):
    return sum(a * jnp.exp(b) for a, b in _pairs(x))


_hess(generator_sum_hess, lambda r: (vec(r, 4),))


def imported_helpers_hess(x):
    return jnp.sum(softplus(x * 2.0)) + accumulate(x, cube) + norm2(x)


_hess(imported_helpers_hess, lambda r: (vec(r, 3),))


def sorted_key_hess(x):
    ordered = sorted([x[0], x[1] * 2.0, x[2] - 0.5], key=lambda t: t)
    return ordered[0] * ordered[2] ** 2


_hess(sorted_key_hess, lambda r: (_x(0.3, -0.8, 1.1),))


def reduce_hess(x):
    return functools.reduce(lambda a, b: a * jnp.cos(b) + b * b, x, 1.0)


_hess(reduce_hess, lambda r: (vec(r, 3),))


def maximum_smooth_region_hess(x):
    return jnp.sum(jnp.maximum(x, 0.0) ** 3 + jnp.abs(x) ** 3 + jnp.clip(x, -0.5, 0.5) ** 2)


_hess(maximum_smooth_region_hess, lambda r: (_x(0.3, -0.8, 1.1),))


def where_branches_hess(x):
    return jnp.sum(jnp.where(x > 0, jnp.sqrt(jnp.abs(x) + 1.0) * x, x ** 3))


_hess(where_branches_hess, lambda r: (_x(0.3, -0.8, 1.1),))


def power_xy_hess(x):
    return jnp.sum(x ** x) + jnp.sum(jnp.power(x, 2.5)) + jnp.sum(x ** -1.5)


_hess(power_xy_hess, lambda r: (pos(r, 3),))


def hypot_arctan2_hess(x):
    return jnp.sum(jnp.hypot(x, x[::-1]) + jnp.arctan2(x, x[::-1] + 2.0))


_hess(hypot_arctan2_hess, lambda r: (_x(0.3, -0.8, 1.1),))


def scan_hess(x):
    def step(c, v):
        return c * jnp.sin(v) + v ** 2, c
    c, ys = lax.scan(step, 1.0, x)
    return c + jnp.sum(ys ** 2)


_hess(scan_hess, lambda r: (vec(r, 4),))


def mlp_params_hess(w):
    x = jnp.array([[0.5, -0.3], [0.1, 0.9], [-0.7, 0.2]])
    h = jnp.tanh(x @ w.reshape(2, 2))
    return jnp.mean(jnp.sum(h, axis=1) ** 2)


_hess(mlp_params_hess, lambda r: (vec(r, 4),))


def matrix_argument_hess(a):
    return jnp.sum(jnp.tanh(a @ a.T)) + jnp.trace(a) ** 2


_hess(matrix_argument_hess, lambda r: (mat(r, 2, 2),))


def two_args_hess(x, y):
    return jnp.sum(jnp.sin(x) * y) + jnp.sum(x ** 2) * jnp.sum(y ** 2)


_hess(two_args_hess, lambda r: (vec(r, 3), vec(r, 3)))


def method_hess(x):
    return _MODEL.loss(x) + _MODEL.predict(x) ** 2


_hess(method_hess, lambda r: (vec(r, 3),))


def while_break_else_hess(x):
    return while_break_else(x) * x[0]


_hess(while_break_else_hess, lambda r: (_x(0.5, 0.3, 0.2),))


def try_finally_hess(x):
    return try_finally_returns(x) ** 2


_hess(try_finally_hess, lambda r: (vec(r, 3),))


def float_power_and_reciprocal_hess(x):
    return jnp.sum(jnp.float_power(x, 3) + jnp.reciprocal(x) + jnp.cbrt(x) + jnp.log10(x) + jnp.exp2(x))


_hess(float_power_and_reciprocal_hess, lambda r: (pos(r, 3),))


def special_functions_hess(x):
    sp = astjax.scipy.special
    return jnp.sum(sp.erf(x) + sp.gammaln(x + 2.0) + sp.xlogy(x, x) + sp.expit(x) + sp.log_ndtr(x))


_hess(special_functions_hess, lambda r: (pos(r, 3),))


def nn_activations_hess(x):
    nn = astjax.nn
    return jnp.sum(nn.gelu(x) + nn.silu(x) + nn.softplus(x) + nn.elu(x) + nn.log_sigmoid(x) + nn.swish(x))


_hess(nn_activations_hess, lambda r: (vec(r, 3),))


# ============================================================ an adjoint nothing reached on the path taken (fixed here)
# A variable defined only in a branch or a loop starts with a bare 0.0 adjoint; where nothing on the path
# taken reaches it (a floor, a sign, a branch that ignores it), the rule of its definition moved or reshaped
# that bare 0.0 and crashed (AxisError, ValueError) instead of giving zeros.
def moved_axes_then_sign_on_one_branch(x, k):
    if k == 0:
        return jnp.sum(x ** 2)
    xm = jnp.moveaxis(x, (0, 1), (-2, -1))
    if k == 1:
        gm = jnp.sign(xm) * 2.0
    else:
        gm = jnp.sin(xm)
    return jnp.sum(gm * jnp.array([[1.0, 2.0], [3.0, 4.0]]))


case(moved_axes_then_sign_on_one_branch, lambda r: (mat(r, 2, 2), 1), "works",
     name="moved_axes_then_sign_on_one_branch_k1")
case(moved_axes_then_sign_on_one_branch, lambda r: (mat(r, 2, 2), 2), "works",
     name="moved_axes_then_sign_on_one_branch_k2")


def swapped_in_loop_used_on_some_passes(x, k):
    s = 0.0
    for i in range(2):
        xm = jnp.swapaxes(x, 0, 1)
        if i < k:
            s = s + jnp.sum(jnp.sin(xm) * i)
    return s + jnp.sum(x)


case(swapped_in_loop_used_on_some_passes, lambda r: (mat(r, 2, 2), 1), "works")


def reshaped_in_branch_then_floored(x, k):
    if k > 0:
        y = jnp.reshape(x, (4,))
        z = y * 2.0
        if k > 1:
            return jnp.sum(z)
        return jnp.sum(jnp.floor(z)) + x[0, 0]
    return jnp.sum(x)


case(reshaped_in_branch_then_floored, lambda r: (mat(r, 2, 2), 1), "works")


def _row_energy(v):
    return jnp.sum(v[0] ** 2)


def helper_result_in_branch_unused(x, k):
    if k > 0:
        e = _row_energy(x.T)
        if k > 1:
            return e
        return jnp.round(e) + jnp.sum(x)
    return jnp.sum(x)


case(helper_result_in_branch_unused, lambda r: (mat(r, 2, 2), 1), "works")


def transposed_in_branch_by_data(x):
    if x[0, 0] > 0:
        t = x.T.reshape(-1)
        out = jnp.sum(jnp.floor(t * 3.0))
    else:
        out = 0.0
    return out + jnp.sum(x ** 2)


case(transposed_in_branch_by_data, lambda r: (np.array([[0.4, 0.2], [0.3, -0.1]]),), "works")


def matrix_norm_ord1_inf_second_order(x):
    a = x.reshape(2, 2)
    return jnp.linalg.norm(a, 1) + jnp.linalg.norm(a, jnp.inf) + jnp.linalg.norm(a, 2) ** 2


_hess(matrix_norm_ord1_inf_second_order, lambda r: (_x(0.3, -0.8, 1.1, 0.5),))


# ============================================================ transformations composed over ordinary code
def _vector_program(x):
    h = jnp.tanh(x[:3] * x[1:])
    return jnp.concatenate([h, jnp.cumsum(h)[1:]])


case(_vector_program, lambda r: (vec(r, 4),), "works", mode="jac", name="jacobian_concat_cumsum")


def jac_of_loop_with_setitem(x):
    y = np.zeros(3)
    for i in range(3):
        y[i] = jnp.sin(x[i]) * x[(i + 1) % 3]
    return y


case(jac_of_loop_with_setitem, lambda r: (vec(r, 3),), "works", mode="jac")


def jac_of_sorted_key(x):
    return jnp.stack(sorted([x[0] * 2.0, x[1] - 0.3, x[2] ** 2], key=lambda t: -t))


case(jac_of_sorted_key, lambda r: (_x(0.3, 0.8, -0.6),), "works", mode="jac")


def jac_of_linalg_solve(x):
    a = jnp.array([[3.0, 0.5, 0.1], [0.2, 2.0, 0.3], [0.1, 0.4, 4.0]]) + jnp.outer(x, x) * 0.1
    return jnp.linalg.solve(a, jnp.sin(x))


case(jac_of_linalg_solve, lambda r: (vec(r, 3),), "works", mode="jac")


def jac_of_eigh_values(x):
    a = jnp.array([[2.0, 0.3, 0.0], [0.3, 1.0, 0.2], [0.0, 0.2, -1.0]]) + jnp.diag(x)
    return jnp.linalg.eigh(a)[0]


case(jac_of_eigh_values, lambda r: (vec(r, 3, -0.2, 0.2),), "works", mode="jac")


def jac_of_take_along_axis(x):
    m = x.reshape(2, 3)
    return jnp.take_along_axis(m, jnp.argsort(m, axis=1), axis=1).ravel() * jnp.arange(6.0)


case(jac_of_take_along_axis, lambda r: (_x(0.3, -0.8, 1.1, 0.5, 0.2, -0.4),), "works", mode="jac")


def jac_of_at_updates(x):
    y = jnp.asarray(x).at[1].set(x[0] * x[2]).at[0].add(x[1])
    return y.at[2].multiply(y[1])


case(jac_of_at_updates, lambda r: (vec(r, 3),), "works", mode="jac")


def jac_of_tuple_output(x):
    return jnp.sin(x) * x[0], jnp.sum(x ** 2)


case(jac_of_tuple_output, lambda r: (vec(r, 3),), "works", mode="jac")


def _vjp_check(fn, args):
    from .harness import fd_jacobian
    x, = args
    out, pullback = astjax.vjp(fn, x.copy())
    J = fd_jacobian(fn, args, 0)[0]
    ct = np.linspace(-1.0, 1.0, np.size(out)).reshape(np.shape(out))
    (g,) = pullback(ct)
    _, t = astjax.jvp(fn, (x.copy(),), (np.ones_like(x),))
    return [(out, fn(x.copy()), "vjp's value"), (g, np.tensordot(ct, J, axes=ct.ndim), "vjp vs finite differences"),
            (t, J @ np.ones_like(x), "jvp vs finite differences")]


def vjp_of_recursive_program(x):
    return _fib_like(x, 4) * jnp.cos(x)


case(vjp_of_recursive_program, lambda r: (vec(r, 3),), "works", mode="custom", check=_vjp_check)


def vjp_of_generator_program(x):
    return jnp.stack([a * jnp.exp(b) for a, b in _pairs(x)])


case(vjp_of_generator_program, lambda r: (vec(r, 4),), "works", mode="custom", check=_vjp_check)


def vjp_of_method_program(x):
    return _MODEL._hidden(x) * _MODEL.w


case(vjp_of_method_program, lambda r: (vec(r, 3),), "works", mode="custom", check=_vjp_check)


def _inner_grad(x):
    return astjax.grad(lambda t: jnp.sum(jnp.sin(t) * t))(x)


def grad_of_function_calling_grad(x):
    return jnp.sum(_inner_grad(x) ** 2)


case(grad_of_function_calling_grad, lambda r: (vec(r, 3),), "either")


def _energy(x):
    return jnp.sum(jnp.sin(x) * x ** 2)


def grad_of_function_calling_grad_of_module_function(x):
    return jnp.sum(astjax.grad(_energy)(x) ** 2)


case(grad_of_function_calling_grad_of_module_function, lambda r: (vec(r, 3),), "works")


def grad_of_function_calling_hessian(x):
    return jnp.trace(astjax.hessian(_energy)(x)) + jnp.sum(x)


case(grad_of_function_calling_hessian, lambda r: (vec(r, 3),), "works")


def grad_of_function_calling_jacfwd(x):
    return jnp.sum(astjax.jacfwd(_vector_program)(x) ** 2)


case(grad_of_function_calling_jacfwd, lambda r: (vec(r, 4),), "works")


def _hess_tree_check(fn, args):
    from .harness import fd_hessian
    p, = args
    H = astjax.hessian(fn)(p)
    flat = np.concatenate([p["a"], p["b"]])

    def flat_fn(v):
        return fn({"a": v[:2], "b": v[2:]})
    Hf = fd_hessian(flat_fn, (flat,))
    return [(H["a"]["a"], Hf[:2, :2], "d2/da2"), (H["a"]["b"], Hf[:2, 2:], "d2/da db"),
            (H["b"]["a"], Hf[2:, :2], "d2/db da"), (H["b"]["b"], Hf[2:, 2:], "d2/db2")]


def dict_params_hessian(p):
    return jnp.sum(jnp.tanh(p["a"]) * p["b"][0]) + jnp.sum(p["b"] ** 3) * p["a"][1]


case(dict_params_hessian, lambda r: ({"a": vec(r, 2), "b": vec(r, 3)},), "works", mode="custom",
     check=_hess_tree_check, rtol=1e-4)


def _hess_argnums_check(fn, args):
    from .harness import fd_hessian
    x, y = args
    Hy = astjax.hessian(fn, argnums=1)(x.copy(), y.copy())
    Hxy = astjax.hessian(fn, argnums=(0, 1))(x.copy(), y.copy())
    both = np.concatenate([x, y])
    Hf = fd_hessian(lambda v: fn(v[:3], v[3:]), (both,))
    return [(Hy, Hf[3:, 3:], "hessian argnums=1"), (Hxy[0][0], Hf[:3, :3], "H[0][0]"), (Hxy[0][1], Hf[:3, 3:], "H[0][1]"),
            (Hxy[1][0], Hf[3:, :3], "H[1][0]"), (Hxy[1][1], Hf[3:, 3:], "H[1][1]")]


def two_args_for_argnums_hessian(x, y):
    return jnp.sum(jnp.sin(x) * y) + jnp.sum(x ** 2) * jnp.sum(y ** 2)


case(two_args_for_argnums_hessian, lambda r: (vec(r, 3), vec(r, 3)), "works", mode="custom",
     check=_hess_argnums_check, rtol=1e-4)


def _jvp_tree_check(fn, args):
    from .harness import fd_directional
    p, x = args
    tp = {"w": np.ones_like(p["w"]), "b": np.full_like(p["b"], 0.5)}
    tx = np.zeros_like(x)
    primal, tangent = astjax.jvp(fn, (p, x), (tp, tx))
    [want] = fd_directional(fn, args, (tp, tx), (0,))
    return [(primal, fn(p, x), "primal"), (tangent, want, "jvp with a dict tangent")]


def dict_params_jvp(p, x):
    return jnp.sum(jnp.tanh(x @ p["w"] + p["b"]))


case(dict_params_jvp, lambda r: ({"w": mat(r, 3, 2), "b": vec(r, 2)}, mat(r, 4, 3)), "works", mode="custom",
     check=_jvp_tree_check)



# ============================================================ casts and Python numbers inside derivatives
def float_of_an_item(x):
    # float() of a 0-d value keeps the number: its derivative flows (or the cast is refused)
    return float(x[0]) * x[1] + x[2]


case(float_of_an_item, lambda r: (vec(r, 3),), "either")


def astype_int_kills_the_derivative(x):
    return jnp.sum(x * (x * 10.0).astype(jnp.int32))


case(astype_int_kills_the_derivative, lambda r: (_x(0.33, -0.47, 0.81),), "works")


def int_of_an_item_as_an_index(x):
    i = int(abs(x[0]) * 2.0)
    return x[i] ** 2 + x[2]


case(int_of_an_item_as_an_index, lambda r: (_x(0.7, 0.2, 0.4),), "either",
     note="refused today: int() of a differentiated value has no rule (JAX raises a concretization error)")


def python_round_of_an_item(x):
    return round(float(x[0]) * 3.0) * x[1] + x[0]


case(python_round_of_an_item, lambda r: (_x(0.7, 0.2, 0.4),), "either")


def bool_of_comparison_times_value(x):
    return (x[0] > 0.5) * x[1] + (x[1] < 0.0) * x[0] ** 2


case(bool_of_comparison_times_value, lambda r: (_x(0.7, 0.2, 0.4),), "works")


def numpy_float64_scalar_arithmetic(x):
    s = np.float64(0.5) * x[0] + np.sqrt(np.float64(2.0)) * x[1]
    return s * np.exp(x[2])


case(numpy_float64_scalar_arithmetic, lambda r: (vec(r, 3),), "works")


def where_with_python_scalars(x):
    return jnp.sum(jnp.where(x > 0.0, x, 0.1 * x) ** 2)


case(where_with_python_scalars, lambda r: (_x(0.7, -0.2, 0.4),), "works")


def sum_with_dtype_and_initial(x):
    return jnp.sum(x ** 2, initial=1.5) + jnp.prod(x, where=x > 0) + jnp.max(x, initial=-5.0)


case(sum_with_dtype_and_initial, lambda r: (_x(0.7, -0.2, 0.4),), "either",
     note="refused today: jnp.prod with where= has no rule")


def mean_with_where(x):
    return jnp.mean(x ** 2, where=x > 0) + jnp.var(x, ddof=1)


case(mean_with_where, lambda r: (_x(0.7, -0.2, 0.4, 0.9),), "works")


def norm_keepdims_axis(x):
    a = x.reshape(2, 2)
    n = jnp.linalg.norm(a, axis=1, keepdims=True)
    return jnp.sum(a / n * jnp.array([[1.0, 2.0], [3.0, 4.0]]))


case(norm_keepdims_axis, lambda r: (vec(r, 4),), "works")


def cumprod_reverse_and_diff(x):
    return jnp.sum(jnp.diff(jnp.cumprod(x[::-1])) ** 2) + jnp.sum(jnp.diff(x, n=2) * x[1:-1])


case(cumprod_reverse_and_diff, lambda r: (vec(r, 5),), "works")


def outer_trace_kron(x):
    return jnp.trace(jnp.outer(x, x[::-1])) + jnp.sum(jnp.kron(x[:2], x[1:3]) ** 2)


case(outer_trace_kron, lambda r: (vec(r, 3),), "works")


def polyval_and_interp(x):
    return jnp.polyval(x, 0.7) + jnp.sum(jnp.interp(jnp.array([0.25, 0.5]), jnp.array([0.0, 0.4, 1.0]), x))


case(polyval_and_interp, lambda r: (vec(r, 3),), "works")


def einsum_batch_contract(x):
    a = x.reshape(2, 2, 2)
    return jnp.sum(jnp.einsum("bij,bjk->bik", a, a) ** 2) + jnp.einsum("iij->", a)


case(einsum_batch_contract, lambda r: (vec(r, 8),), "works")


def matmul_chain_with_transpose(x):
    a = x.reshape(2, 3)
    return jnp.sum((a @ a.T) @ a * 0.5) + jnp.linalg.multi_dot([a, a.T, a]).sum()


case(matmul_chain_with_transpose, lambda r: (vec(r, 6),), "works")


def segment_like_with_at(x):
    ids = jnp.array([0, 1, 0, 2, 1])
    s = jnp.zeros(3, dtype=jnp.float64).at[ids].add(x)
    m = jnp.full(3, -jnp.inf, dtype=jnp.float64).at[ids].max(x)
    return jnp.sum(s ** 2) + jnp.sum(m * jnp.arange(1.0, 4.0))


case(segment_like_with_at, lambda r: (_x(0.1, 0.5, -0.3, 0.8, 0.2),), "either",
     note="refused today: .at[ids].max with a repeated index (JAX splits the adjoint)")


def gather_with_negative_and_fancy(x):
    return jnp.sum(x[jnp.array([-1, 0, -2, 0])] ** 2) + x[-1] * x[::2].sum()


case(gather_with_negative_and_fancy, lambda r: (vec(r, 4),), "works")


def boolean_mask_sum(x):
    return jnp.sum(x[x > 0] ** 2) + jnp.sum(jnp.where(x > 0, 0.0, x))


case(boolean_mask_sum, lambda r: (_x(0.1, 0.5, -0.3, 0.8, -0.2),), "works")


def stack_split_concat(x):
    a, b = jnp.split(x, 2)
    return jnp.sum(jnp.stack([a * b, a + b]) ** 2) + jnp.sum(jnp.concatenate([b, a]) * jnp.arange(4.0))


case(stack_split_concat, lambda r: (vec(r, 4),), "works")


def roll_flip_tile(x):
    return jnp.sum(jnp.roll(x, 1) * x) + jnp.sum(jnp.tile(x, 2) * jnp.arange(6.0)) + jnp.sum(jnp.flip(x) * x ** 2)


case(roll_flip_tile, lambda r: (vec(r, 3),), "works")



# ============================================================ library calls a scientist reaches for
def quantiles_and_median(x):
    return jnp.percentile(x, 30.0) + jnp.quantile(x, 0.75) + jnp.median(x) * 2.0


case(quantiles_and_median, lambda r: (_x(0.1, 0.5, -0.3, 0.8, 0.2, 1.3),), "works")


def nanquantile_and_nanmean(x):
    y = jnp.where(x > 0.0, x, jnp.nan)
    return jnp.nanmean(y) * jnp.nanstd(y) + jnp.nanmedian(y)


case(nanquantile_and_nanmean, lambda r: (_x(0.1, 0.5, -0.3, 0.8, 0.2, 1.3),), "works")


def sort_descending_along_axis(x):
    m = x.reshape(2, 3)
    s = -jnp.sort(-m, axis=0)
    return jnp.sum(s * jnp.arange(6.0).reshape(2, 3)) + jnp.sum(jnp.sort(m, axis=-1)[:, -1] ** 2)


case(sort_descending_along_axis, lambda r: (_x(0.1, 0.5, -0.3, 0.8, 0.2, 1.3),), "works")


def searchsorted_bins(x):
    edges = jnp.array([0.0, 0.25, 0.5, 0.75])
    k = jnp.searchsorted(edges, x)
    return jnp.sum(x * k) + jnp.sum(x[jnp.argsort(k)] * jnp.arange(4.0))


case(searchsorted_bins, lambda r: (_x(0.1, 0.6, 0.3, 0.8),), "works")


def clip_with_array_bounds(x, lo):
    return jnp.sum(jnp.clip(x, lo, lo + 1.0) ** 2)


case(clip_with_array_bounds, lambda r: (_x(0.1, 0.6, 1.3, -0.8), _x(0.0, 0.0, 0.1, -0.5)), "works", argnums=(0, 1))


def stop_gradient_in_target(x):
    target = astjax.lax.stop_gradient(jnp.tanh(x))
    return jnp.sum((x - target) ** 2) + jnp.sum(astjax.lax.stop_gradient(x) * x)


def _stop_gradient_reference(x):
    return jnp.sum((x - jnp.tanh(x.copy())) ** 2)


def _stop_gradient_check(fn, args):
    x, = args
    g = astjax.grad(fn)(x.copy())
    _, t = astjax.jvp(fn, (x.copy(),), (np.ones_like(x),))
    want = 2.0 * (x - np.tanh(x)) + x
    return [(fn(x.copy()), np.sum((x - np.tanh(x)) ** 2) + np.sum(x * x), "value"),
            (g, want, "grad treats the stopped values as constants"), (t, want.sum(), "jvp likewise")]


case(stop_gradient_in_target, lambda r: (vec(r, 3),), "works", mode="custom", check=_stop_gradient_check)


def one_hot_cross_entropy(logits):
    labels = jnp.array([2, 0])
    lp = astjax.nn.log_softmax(logits.reshape(2, 3), axis=-1)
    return -jnp.mean(jnp.sum(astjax.nn.one_hot(labels, 3) * lp, axis=-1))


case(one_hot_cross_entropy, lambda r: (vec(r, 6),), "works")


def logsumexp_with_weights_and_sign(x):
    lse, sign = astjax.scipy.special.logsumexp(x, b=jnp.array([1.0, -0.5, 2.0]), return_sign=True)
    return lse * sign + astjax.scipy.special.logsumexp(x.reshape(1, 3), axis=1, keepdims=True).sum()


case(logsumexp_with_weights_and_sign, lambda r: (vec(r, 3),), "either",
     note="refused today: logsumexp with return_sign=True under a derivative")


def cumsum_reverse_and_cummax(x):
    rc = jnp.flip(jnp.cumsum(jnp.flip(x)))
    return jnp.sum(rc * x) + jnp.sum(astjax.lax.cummax(x) * jnp.arange(4.0))


case(cumsum_reverse_and_cummax, lambda r: (_x(0.1, 0.6, 0.3, 0.8),), "works")


def triangular_solve_and_cho(x):
    a = jnp.outer(x, x) + 2.0 * jnp.eye(3)
    c = jnp.linalg.cholesky(a)
    y = astjax.scipy.linalg.solve_triangular(c, x, lower=True)
    z = astjax.scipy.linalg.cho_solve((c, True), x)
    return jnp.sum(y ** 2) + jnp.sum(z * x)


case(triangular_solve_and_cho, lambda r: (vec(r, 3),), "works")


def pinv_lstsq_matrix_rank(x):
    a = x.reshape(3, 2)
    sol = jnp.linalg.lstsq(a, jnp.array([1.0, 2.0, 0.5]))[0]
    return jnp.sum(jnp.linalg.pinv(a) ** 2) + jnp.sum(sol ** 2) + jnp.linalg.matrix_rank(a) * 0.0


case(pinv_lstsq_matrix_rank, lambda r: (_x(1.0, 0.2, -0.3, 0.9, 0.4, 0.5),), "works")


def expm_and_logdet(x):
    a = x.reshape(2, 2) * 0.3
    return jnp.sum(astjax.scipy.linalg.expm(a)) + jnp.linalg.slogdet(a + 2.0 * jnp.eye(2))[1]


case(expm_and_logdet, lambda r: (vec(r, 4),), "works")


def fft_power_spectrum(x):
    spec = jnp.fft.rfft(x)
    return jnp.sum(jnp.abs(spec) ** 2) + jnp.sum(jnp.real(jnp.fft.ifft(jnp.fft.fft(x) * 2.0)))


case(fft_power_spectrum, lambda r: (vec(r, 6),), "works")


def convolve_and_correlate(x):
    k = jnp.array([0.25, 0.5, 0.25])
    return jnp.sum(jnp.convolve(x, k, mode="same") ** 2) + jnp.sum(jnp.correlate(x, x[:2], mode="valid"))


case(convolve_and_correlate, lambda r: (vec(r, 5),), "works")



# ============================================================ structure under second derivatives
def _sum_list_of_powers(xs, k=2):
    return sum(v ** k for v in xs)


def defaults_and_keywords_hess(x):
    return _sum_list_of_powers(x, k=3) + _sum_list_of_powers([x[0], x[1] * x[2]])


_hess(defaults_and_keywords_hess, lambda r: (vec(r, 3),))


def list_accumulate_then_stack_hess(x):
    out = []
    h = x[0]
    for i in range(1, 3):
        h = jnp.sin(h) * x[i] + h
        out.append(h)
    return jnp.sum(jnp.stack(out) ** 2)


_hess(list_accumulate_then_stack_hess, lambda r: (vec(r, 3),))


def dict_built_in_loop_hess(x):
    d = {}
    for i, name in enumerate(["a", "b", "c"]):
        d[name] = x[i] ** (i + 1)
    return d["a"] * d["b"] + jnp.sin(d["c"])


_hess(dict_built_in_loop_hess, lambda r: (vec(r, 3),))


def while_with_data_bound_hess(x):
    s = x[0]
    n = 0
    while s < 2.0 and n < 20:
        s = s * 1.3 + x[1] ** 2
        n += 1
    return s * x[2]


_hess(while_with_data_bound_hess, lambda r: (_x(0.4, 0.3, 0.7),))


def nested_function_closure_hess(x):
    scale = x[0] ** 2

    def inner(v):
        return jnp.tanh(v * scale)
    return jnp.sum(inner(x) * inner(x[::-1]))


_hess(nested_function_closure_hess, lambda r: (vec(r, 3),))


def early_return_in_loop_hess(x):
    acc = 0.0
    for i in range(3):
        acc = acc + x[i] ** 3
        if acc > 0.5:
            return acc * x[0]
    return acc


_hess(early_return_in_loop_hess, lambda r: (_x(0.5, 0.6, 0.7),))


def numpy_inplace_ops_hess(x):
    y = x.copy()
    y *= 2.0
    y[1] += x[0] ** 2
    y -= y.mean()
    return np.sum(y ** 3)


_hess(numpy_inplace_ops_hess, lambda r: (vec(r, 3),))


def star_unpack_and_zip_hess(x):
    a, *rest = x
    return a * sum(u * v for u, v in zip(rest, rest[::-1]))


_hess(star_unpack_and_zip_hess, lambda r: (vec(r, 4),), outcome="either")


def comprehension_with_condition_hess(x):
    return sum(v ** 2 * w for v, w in zip(x, x[1:]) if w > 0)


_hess(comprehension_with_condition_hess, lambda r: (_x(0.5, -0.6, 0.7, 0.2),))


def matrix_loop_rows_hess(a):
    total = 0.0
    for row in a:
        total = total + jnp.dot(row, row) * row[0]
    return total


_hess(matrix_loop_rows_hess, lambda r: (mat(r, 2, 2),))


def softmax_attention_hess(x):
    q = x.reshape(2, 2)
    w = astjax.nn.softmax(q @ q.T / jnp.sqrt(2.0), axis=-1)
    return jnp.sum(w @ q)


_hess(softmax_attention_hess, lambda r: (vec(r, 4),))


def layer_norm_hess(x):
    mu = jnp.mean(x)
    var = jnp.mean((x - mu) ** 2)
    return jnp.sum(((x - mu) / jnp.sqrt(var + 1e-5)) * jnp.arange(1.0, 5.0))


_hess(layer_norm_hess, lambda r: (vec(r, 4),))



# ============================================================ values shared between names, under derivatives
def alias_then_numpy_write(x):
    y = x.copy()
    z = y
    z[0] = x[1] * 3.0
    return np.sum(y * x)


case(alias_then_numpy_write, lambda r: (vec(r, 3),), "either")


def list_alias_append(x):
    a = [x[0]]
    b = a
    b.append(x[1] ** 2)
    return sum(a) * x[2]


case(list_alias_append, lambda r: (vec(r, 3),), "either")


def rebinding_inside_loop_reads_old(x):
    y = x
    for _ in range(2):
        y_old = y
        y = jnp.sin(y) + y_old * x
    return jnp.sum(y)


case(rebinding_inside_loop_reads_old, lambda r: (vec(r, 3),), "works")


def swap_in_loop(x):
    a, b = x[0], x[1]
    for _ in range(3):
        a, b = b, a * b + x[2]
    return a + 2.0 * b


case(swap_in_loop, lambda r: (vec(r, 3),), "works")


def row_view_written_then_read(x):
    m = np.array(x).reshape(2, 2)
    r = m[0]
    r *= 2.0
    return np.sum(m ** 2)


case(row_view_written_then_read, lambda r: (vec(r, 4),), "either")


def closure_late_binding_in_loop(x):
    fs = [lambda t, k=k: t * x[k] for k in range(3)]
    return sum(f(x[0]) for f in fs)


case(closure_late_binding_in_loop, lambda r: (vec(r, 3),), "either")


_CALLS = []


def global_list_not_changed(x):
    scale = len(_CALLS) + 2.0
    return jnp.sum(x ** 2) * scale


case(global_list_not_changed, lambda r: (vec(r, 3),), "works")


def default_array_argument(x, w=np.array([1.0, 2.0, 3.0])):
    return jnp.sum(x * w) + jnp.sum(w ** 2) * x[0]


case(default_array_argument, lambda r: (vec(r, 3),), "works")


# Default profile (the suite's time budget): the cases of the mechanism fixed here, then every third other case
# and the first of each kind of check; ASTJAX_LONG_PROPERTIES=1 runs them all.
from .case import long_only  # noqa: E402

_FIXED_HERE = {"moved_axes_then_sign_on_one_branch_k1", "swapped_in_loop_used_on_some_passes",
               "reshaped_in_branch_then_floored", "helper_result_in_branch_unused", "transposed_in_branch_by_data"}
# The second-derivative batteries (a few hundred ms to 2 s each) run in the long profile, but for the first
# (tests/test_attacks10.py checks the norms' second derivatives fixed here); of the other cases every second
# of long_only's default sample runs.
_BATTERIES = {c.name for c in CASES if c.category == "attacks10" and c.name.endswith("_hess")}
_KEPT_BATTERIES = {"attacks10.loop_with_helper_hess"}
LONG_ONLY = (long_only("attacks10", _FIXED_HERE, batteries=("_hess",)) | _BATTERIES) - _KEPT_BATTERIES
LONG_ONLY |= {c.name for k, c in enumerate(c for c in CASES if c.category == "attacks10"
                                              and c.name not in LONG_ONLY and not c.name.endswith("_hess")
                                              and c.name.split(".", 1)[1] not in _FIXED_HERE) if k % 2}
