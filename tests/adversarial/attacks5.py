"""An attacker's corpus, fifth round: where the corpus was thin. Python semantics that
change which value flows (try/finally overriding a return, generator helpers, user
classes with operators, properties and __call__, itertools pair loops, keyword-only
parameters, star-unpacking of arrays, closures built in loops), lax control flow with
pytree carries and unread ys (`c, _ = lax.scan(...)` over steps returning None) under
every transform, custom_vjp/custom_jvp with nondiff_argnums, pytrees in and out, used
twice and inside loops, random keys split and folded in loops (reparameterization),
pytrees of parameters (unsorted dict keys, NamedTuples, nested lists), and JAX's
conventions at kinks checked against numbers JAX gives (confirmed with JAX 0.10)."""
import functools
import itertools
import math
from typing import NamedTuple

import numpy as np

import astjax
import astjax.nn as nn
import astjax.numpy as jnp
from astjax import lax, random

from .case import case, vec, mat, pos, scalar


def _x(*values):
    return np.array(values, dtype=np.float64)


# ============================================================ Python semantics that change which value flows
def finally_overrides_return(x):
    try:
        return jnp.sum(x * 2.0)
    finally:
        y = jnp.sum(x ** 3)          # runs, result unused


case(finally_overrides_return, lambda r: (vec(r, 3),), "either")


def return_inside_with_in_loop(x):
    s = 0.0
    for i in range(3):
        with np.errstate(all="ignore"):
            s = s + x[i] * x[(i + 1) % 3]
            if i == 1:
                return s * 2.0
    return s


case(return_inside_with_in_loop, lambda r: (vec(r, 3),), "either")


def _gen_powers(x, n):
    for k in range(1, n + 1):
        yield x ** k


def generator_helper_summed(x):
    return sum(jnp.sum(p) for p in _gen_powers(x, 3))


case(generator_helper_summed, lambda r: (vec(r, 3),), "either")


def generator_helper_listed(x):
    ps = list(_gen_powers(x, 2))
    return jnp.sum(ps[0] * ps[1])


case(generator_helper_listed, lambda r: (vec(r, 3),), "either")


class _Dual:
    def __init__(self, a, b):
        self.a = a
        self.b = b

    def __mul__(self, other):
        return _Dual(self.a * other.a, self.a * other.b + self.b * other.a)

    def __add__(self, other):
        return _Dual(self.a + other.a, self.b + other.b)

    @property
    def norm(self):
        return self.a * self.a + self.b * self.b


def user_class_operators(x):
    d = _Dual(x[0], x[1])
    e = d * d + _Dual(x[2], x[0])
    return e.norm


case(user_class_operators, lambda r: (vec(r, 3),), "either")


class _Affine:
    def __init__(self, w, b):
        self.w = w
        self.b = b

    def __call__(self, h):
        return jnp.tanh(h * self.w + self.b)


def callable_object_layers(x):
    layers = [_Affine(x[0], x[1]), _Affine(x[2], 0.5)]
    h = x[3]
    for layer in layers:
        h = layer(h)
    return h


case(callable_object_layers, lambda r: (vec(r, 4),), "either")


def itertools_combinations_energy(x):
    e = 0.0
    for i, j in itertools.combinations(range(4), 2):
        e = e + 1.0 / (1.0 + (x[i] - x[j]) ** 2)
    return e


case(itertools_combinations_energy, lambda r: (vec(r, 4),), "either")


def itertools_product_grid(x):
    e = 0.0
    for i, j in itertools.product(range(2), range(3)):
        e = e + x[i] * x[2 + j] * (i + 1)
    return e


case(itertools_product_grid, lambda r: (vec(r, 5),), "either")


def zip_shifted_pairs(x):
    return sum(a * b for a, b in zip(x[:-1], x[1:]))


case(zip_shifted_pairs, lambda r: (vec(r, 5),), "works")


def star_unpack_array(x):
    a, *middle, b = x
    return a * b + sum(m ** 2 for m in middle)


case(star_unpack_array, lambda r: (vec(r, 5),), "either")


def _three(a, b, c):
    return a * b - c


def star_call_of_array(x):
    return _three(*x[:3]) + _three(*x[1:4])


case(star_call_of_array, lambda r: (vec(r, 4),), "either")


def closures_built_in_loop(x):
    fs = []
    for k in range(3):
        fs.append(lambda v, k=k: v * (k + 1))
    return sum(f(x[0]) for f in fs) + fs[2](x[1])


case(closures_built_in_loop, lambda r: (vec(r, 2),), "either")


def late_binding_comprehension_lambdas(x):
    fs = [lambda v: v * k for k in range(3)]
    return fs[0](x[0]) + fs[1](x[1])         # both use k = 2


case(late_binding_comprehension_lambdas, lambda r: (vec(r, 2),), "either")


def dict_comprehension_then_sum(x):
    d = {f"w{i}": x[i] ** 2 for i in range(3)}
    return d["w0"] + 2.0 * d["w2"]


case(dict_comprehension_then_sum, lambda r: (vec(r, 3),), "either")


def sorted_by_key_on_data(x):
    rows = [x[0:2], x[2:4], x[4:6]]
    ordered = sorted(rows, key=lambda r: float(r[0]))
    return ordered[0][1] * 3.0 + ordered[2][1]


case(sorted_by_key_on_data, lambda r: (_x(0.3, 1.0, -0.5, 2.0, 0.9, -1.0),), "either")


def min_with_key(x):
    best = min([x[0:2], x[2:4]], key=lambda r: float(jnp.sum(r)))
    return jnp.sum(best ** 2)


case(min_with_key, lambda r: (_x(0.3, 1.0, -0.5, 0.2),), "either")


def functools_reduce_product(x):
    return functools.reduce(lambda a, b: a * b + 1.0, [x[0], x[1], x[2]])


case(functools_reduce_product, lambda r: (vec(r, 3),), "either")


def while_else_with_break_on_data(x):
    s = 0.0
    i = 0
    while i < 3:
        s = s + x[i]
        if s > 10.0:
            break
        i += 1
    else:
        s = s * 2.0
    return s


case(while_else_with_break_on_data, lambda r: (vec(r, 3),), "works")


def nonlocal_in_nested_loop_closure(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v * v

    for i in range(3):
        add(x[i])
    return total


case(nonlocal_in_nested_loop_closure, lambda r: (vec(r, 3),), "either")


def conditional_import_free_math(x):
    return math.fsum([1.0, 2.0]) * jnp.sum(x) + math.hypot(3.0, 4.0) * x[0]


case(conditional_import_free_math, lambda r: (vec(r, 2),), "works")


def augmented_on_list_item(x):
    acc = [x[0], x[1]]
    acc[0] += x[1] * 2.0
    acc[1] *= acc[0]
    return acc[0] + acc[1]


case(augmented_on_list_item, lambda r: (vec(r, 2),), "either")


def tuple_swap_in_loop(x):
    a, b = x[0], x[1]
    for _ in range(3):
        a, b = b, a * b + 0.5
    return a + 2.0 * b


case(tuple_swap_in_loop, lambda r: (vec(r, 2),), "works")


def keyword_only_helper(x):
    return _kw_helper(x, scale=2.0) + _kw_helper(x, scale=x[0])


def _kw_helper(v, *, scale):
    return jnp.sum(v ** 2) * scale


case(keyword_only_helper, lambda r: (vec(r, 3),), "either")


def default_array_argument(x, w=np.array([1.0, 2.0, 3.0])):
    return jnp.sum(x * w)


case(default_array_argument, lambda r: (vec(r, 3),), "works")


def negative_step_2d(x):
    m = x.reshape(3, 3)
    return jnp.sum(m[::-1, ::-2] * jnp.arange(6.0).reshape(3, 2))


case(negative_step_2d, lambda r: (vec(r, 9),), "works")


def ellipsis_none_index(x):
    m = x.reshape(2, 3)
    return jnp.sum(m[..., None, 1] * m[None, ..., 0])


case(ellipsis_none_index, lambda r: (vec(r, 6),), "works")


def argmax_index_reused(x):
    i = jnp.argmax(x)
    return x[i] ** 2 + x[(i + 1) % 4] * 3.0


case(argmax_index_reused, lambda r: (vec(r, 4),), "works")


def match_on_shape(x):
    match x.shape:
        case (n,) if n > 2:
            return jnp.sum(x[:2] ** 2)
        case _:
            return jnp.sum(x)


case(match_on_shape, lambda r: (vec(r, 3),), "either")


def assert_then_value(x):
    assert x.shape == (3,), "shape"
    y = x * 2.0
    assert jnp.all(jnp.isfinite(y))
    return jnp.sum(y ** 2)


case(assert_then_value, lambda r: (vec(r, 3),), "works")


def del_in_loop_then_rebind(x):
    s = 0.0
    for i in range(3):
        t = x[i] * 2.0
        s = s + t
        del t
    t = s * s
    return t


case(del_in_loop_then_rebind, lambda r: (vec(r, 3),), "either")
