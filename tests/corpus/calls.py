"""Calls to other user functions (same module and another module), call chains,
recursion, closures returned by factories, lambdas, and module-level constants.
"""
import numpy as np

import astjax.numpy as jnp

from . import helpers
from .helpers import poly_eval, softplus
from .registry import entry, mat, register, scalar, vec


def _square_plus_sine(x):
    return x * x + jnp.sin(x)


def _scaled_norm(x, w):
    return jnp.sqrt(jnp.sum(w * x * x) + 1.0)


def _inner_most(x):
    return jnp.exp(-x * x)


def _middle(x):
    return _inner_most(x) * x + 1.0


def _clipped_step(x):
    if x > 0.0:
        return x * x
    return -x * 0.5


def _loop_helper(x, n):
    acc = x * 0.0
    for i in range(n):
        acc = acc + jnp.cos(x * (i + 1.0))
    return acc


# ----------------------------------------------------------------- calls
@entry(args=lambda r: (scalar(r, -1.0, 1.0),), tags={"call", "same_module"})
def calls_local_helper(x):
    y = _square_plus_sine(x)
    return y * _square_plus_sine(2.0 * x)


@entry(args=lambda r: (vec(r, 4),), tags={"call", "other_module"})
def calls_helper_from_other_module(x):
    return jnp.sum(softplus(x) * x)


@entry(args=lambda r: (vec(r, 4),), tags={"call", "other_module", "module_attribute", "fixed_float_arg"})
def calls_helper_via_module_attribute(x):
    return jnp.sum(helpers.smooth_abs(x, 0.01))


@entry(args=lambda r: (vec(r, 4), vec(r, 4, 0.5, 1.5)), argnums=(0, 1), tags={"call", "two_active_args"})
def calls_helper_with_two_active_args(x, w):
    return _scaled_norm(x, w) * _scaled_norm(w, x)


@entry(args=lambda r: (scalar(r, -1.0, 1.0),), tags={"call", "call_chain"})
def call_chain(x):
    return _middle(_middle(x))


@entry(case="pos", args=lambda r: (scalar(r, 0.5, 1.5),), tags={"call", "callee_branches"})
@entry(case="neg", args=lambda r: (scalar(r, -1.5, -0.5),), tags={"call", "callee_branches"})
def calls_branching_helper(x):
    return _clipped_step(x) * jnp.cos(x)


@entry(args=lambda r: (vec(r, 4), scalar(r, -0.8, 0.8), 4), argnums=(0, 1),
       tags={"call", "other_module", "callee_loop", "int_arg"})
def calls_polynomial_helper(coeffs, x, n):
    return poly_eval(coeffs, x, n) ** 2


@entry(args=lambda r: (vec(r, 3), 3), argnums=0, tags={"call", "call_in_loop", "callee_loop", "int_arg"})
def call_inside_loop(x, n):
    acc = 0.0
    for i in range(n):
        acc = acc + _loop_helper(x[i], i + 1)
    return acc


# ----------------------------------------------------------------- recursion
def recursive_power(x, n):
    if n == 1:
        return x
    return x * recursive_power(x, n - 1)


entry(args=lambda r: (scalar(r, 0.5, 1.5), 5), argnums=0, tags={"recursion", "int_arg"})(recursive_power)


@entry(args=lambda r: (scalar(r, 0.2, 0.9), 4), argnums=0, tags={"recursion", "int_arg", "continued_fraction"})
def continued_fraction(x, depth):
    if depth == 0:
        return x
    return x + 1.0 / (1.0 + continued_fraction(x, depth - 1))


@entry(args=lambda r: (vec(r, 8),), tags={"recursion", "slicing", "divide_and_conquer"})
def recursive_pairwise_sum(x):
    if x.shape[0] == 1:
        return jnp.sin(x[0])
    half = x.shape[0] // 2
    return recursive_pairwise_sum(x[:half]) * recursive_pairwise_sum(x[half:]) + x[0]


# ----------------------------------------------------------------- closures
def make_gaussian_logpdf(mu, sigma):
    def gaussian_logpdf(x):
        z = (x - mu) / sigma
        return jnp.sum(-0.5 * z * z) - x.shape[0] * jnp.log(sigma)
    return gaussian_logpdf


register(make_gaussian_logpdf(0.3, 1.7), "closure_gaussian_logpdf", args=lambda r: (vec(r, 4),),
         tags={"closure", "factory"})


def make_polynomial(coeffs):
    def polynomial(x):
        acc = x * 0.0
        for c in coeffs:
            acc = acc * x + c
        return acc
    return polynomial


register(make_polynomial(np.array([0.5, -1.0, 2.0, 0.25])), "closure_captures_array_loop",
         args=lambda r: (scalar(r, -1.0, 1.0),), tags={"closure", "factory", "for_array", "captured_array"})


def make_scaled_activation(scale):
    def activation(x):
        return jnp.tanh(scale * x)

    def model(w, x):
        return jnp.sum(activation(w @ x) ** 2)
    return model


register(make_scaled_activation(1.3), "closure_calls_closure",
         args=lambda r: (mat(r, 2, 3), vec(r, 3)), argnums=(0, 1), tags={"closure", "factory", "call", "matmul"})


@entry(args=lambda r: (scalar(r, -1.0, 1.0),), tags={"nested_def", "call"})
def defines_and_calls_inner(x):
    def inner(t):
        return jnp.sin(t) * t
    return inner(x) + inner(x * x)


square_then_sine = lambda x: jnp.sin(x * x) + x  # noqa: E731

entry(args=lambda r: (scalar(r, -1.0, 1.0),), tags={"lambda"})(square_then_sine)

WEIGHTS = np.array([0.5, -1.5, 2.0, 1.0])


@entry(args=lambda r: (vec(r, 4),), tags={"module_constant", "global"})
def uses_module_constant(x):
    return jnp.sum(WEIGHTS * jnp.sin(x) ** 2)


@entry(case="pos", args=lambda r: (scalar(r, 0.5, 1.5), scalar(r, -1.5, -0.5)), argnums=(0, 1),
       tags={"builtin_min_max", "two_args"})
def builtin_min_and_max(x, y):
    return max(x, y) * 2.0 + min(x * x, y) + float(x * y)
