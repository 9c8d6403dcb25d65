"""Rule cases for the API fill (issue 9): sici, fresnel and bessel_jn (astjax/rules/special_fill.py).
tests/test_rules.py runs them (see tests/rule_cases.py): each is `sum(w * f(...))` in float64, with
cases where only one item of a tuple result is read and where the argument is 0 (si's slope 1)."""
from collections import namedtuple

import numpy as np

import astjax.numpy as jnp
from astjax.scipy import special

Case = namedtuple("Case", "primitive label fn args argnums")
CASES = []
_rng = np.random.default_rng(20261127)


def _array(values):
    return jnp.asarray(np.asarray(values, dtype=np.float64))


def case(primitive, label, fn, *args, argnums=None):
    CASES.append(Case(primitive, label, fn, tuple(args), tuple(range(len(args))) if argnums is None else argnums))


def sici_both_fn(x, w):
    si, ci = special.sici(x)
    return jnp.sum(w * (si * ci + si))


def sici_si_only_fn(x, w):
    si, ci = special.sici(x)
    return jnp.sum(w * si)


def sici_ci_only_fn(x, w):
    si, ci = special.sici(x)
    return jnp.sum(w * ci)


def fresnel_both_fn(x, w):
    s, c = special.fresnel(x)
    return jnp.sum(w * (s * c + c))


def fresnel_c_only_fn(x, w):
    s, c = special.fresnel(x)
    return jnp.sum(w * c)


def bessel_jn_fn(z, w):
    return jnp.sum(w * special.bessel_jn(z, v=3))


def bessel_jn_order_zero_fn(z, w):
    return jnp.sum(w * special.bessel_jn(z, v=0))


case("sici", "both", sici_both_fn, _array(_rng.uniform(0.3, 4.0, 5)))
case("sici", "negative", sici_both_fn, _array(-_rng.uniform(0.3, 4.0, 4)))
case("sici", "si_only_at_zero", sici_si_only_fn, _array([0.0, 0.5, -2.0]))
case("sici", "ci_only", sici_ci_only_fn, _array(_rng.uniform(0.3, 4.0, 4)))
case("fresnel", "both", fresnel_both_fn, _array(_rng.normal(0.0, 1.5, 5)))
case("fresnel", "c_only", fresnel_c_only_fn, _array([0.0, 0.8, -1.7]))
case("bessel_jn", "v3", bessel_jn_fn, _array(_rng.normal(0.0, 3.0, 4)))
case("bessel_jn", "v0", bessel_jn_order_zero_fn, _array(_rng.normal(0.0, 3.0, 3)))
