"""Regression tests for the silent wrong numbers and crashes found by the fifth attacker's corpus
(tests/adversarial/attacks5.py): each mechanism fixed once, checked with closed forms."""
import collections
import functools
import itertools
from typing import NamedTuple

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.errors import AstjaxError


# ------------------------------------------------------------ custom_vjp / custom_jvp with pytree arguments
@astjax.custom_vjp
def _merge(d):
    return {"p": d["a"] * d["b"], "q": jnp.sin(d["a"])}


def _merge_fwd(d):
    return _merge(d), (d["a"], d["b"])


def _merge_bwd(res, g):
    a, b = res
    return ({"a": g["p"] * b + g["q"] * jnp.cos(a) * 10.0, "b": g["p"] * a},)


_merge.defvjp(_merge_fwd, _merge_bwd)


def _merge_loss(d):
    out = _merge(d)
    return out["p"] * 2.0 + out["q"]


def _merge_loss_built(x):
    out = _merge({"a": x[0], "b": x[1]})
    return out["p"] * 2.0 + out["q"]


def test_custom_vjp_dict_argument_gets_the_bwd_cotangents():
    a, b = 0.4, 0.7
    want_a, want_b = 2 * b + 10 * np.cos(a), 2 * a       # the rule's numbers (10x on q's path)
    g = astjax.grad(_merge_loss)({"a": np.float64(a), "b": np.float64(b)})     # was {'a': 0, 'b': 0}
    np.testing.assert_allclose([g["a"], g["b"]], [want_a, want_b])
    g = astjax.grad(_merge_loss_built)(np.array([a, b]))                          # was a TypeError
    np.testing.assert_allclose(g, [want_a, want_b])


@astjax.custom_vjp
def _half_none(x, y):
    return x * y


_half_none.defvjp(lambda x, y: (x * y, x), lambda x, g: (None, g * x))


def _half_none_loss(v):
    return jnp.sum(_half_none(v[:2], v[2:]))


def test_custom_vjp_bwd_none_is_a_zero_cotangent():
    v = np.array([0.5, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(astjax.grad(_half_none_loss)(v), [0.0, 0.0, 0.5, 2.0])


@astjax.custom_vjp
def _pair_product(xs):
    return xs[0] * xs[1]


_pair_product.defvjp(lambda xs: (_pair_product(xs), xs), lambda xs, g: ((g * xs[1], g * xs[0]),))


def _pair_loss(t):
    return jnp.sum(_pair_product(t)) + jnp.sum(t[0] ** 2)


def test_custom_vjp_tuple_cotangent_adds_to_other_reads():
    a, b = np.array([0.5, 1.0]), np.array([2.0, -1.0])
    ga, gb = astjax.grad(_pair_loss)((a, b))          # was a TypeError adding a tuple to a TreeAdjoint
    np.testing.assert_allclose(ga, b + 2 * a)
    np.testing.assert_allclose(gb, a)


@astjax.custom_jvp
def _scaled(d):
    return d["a"] * jnp.sin(d["b"])


@_scaled.defjvp
def _scaled_jvp(primals, tangents):
    d, = primals
    t, = tangents
    return _scaled(d), t["a"] * jnp.sin(d["b"]) * 2.0 + t["b"] * d["a"] * jnp.cos(d["b"])


def _scaled_loss(d):
    return _scaled(d) ** 2


def test_custom_jvp_dict_argument_is_transposed_leaf_by_leaf():
    a, b = 1.2, 0.3
    g = astjax.grad(_scaled_loss)({"b": np.float64(b), "a": np.float64(a)})      # was {'a': 0, 'b': 0}
    y = a * np.sin(b)
    np.testing.assert_allclose([g["a"], g["b"]], [2 * y * np.sin(b) * 2.0, 2 * y * a * np.cos(b)])


def test_custom_jvp_dict_argument_second_derivative_is_refused_clearly():
    def loss(x):
        return _scaled({"a": x[0], "b": x[1]}) * x[2]
    with pytest.raises(AstjaxError, match="dict, list or tuple argument"):
        astjax.hessian(loss)(np.array([1.2, 0.3, 0.7]))


# ------------------------------------------------------------ None leaves of parameters
def _with_none(p):
    return p["a"] * 2.0 + p["c"] * 3.0


def test_gradient_of_a_none_leaf_is_none_and_does_not_shift_the_others():
    d = {"a": np.float64(1.0), "b": None, "c": np.float64(2.0)}
    for transform in (astjax.grad, astjax.jacrev, astjax.jacfwd):
        g = transform(_with_none)(d)
        assert g["b"] is None
        np.testing.assert_allclose([g["a"], g["c"]], [2.0, 3.0])      # jacrev gave c: 0


# ------------------------------------------------------------ keyword arguments through the API
def _kw_only(x, *, scale):
    return jnp.sum(x ** 3) * scale


def _kw_default(x, scale=1.0):
    return jnp.sum(x ** 3) * scale


def test_keyword_arguments_reach_every_transform():
    x = np.array([0.5, -1.0])
    g, h = 6.0 * x ** 2, np.diag(12.0 * x)
    np.testing.assert_allclose(astjax.grad(_kw_only)(x, scale=2.0), g)            # was a TypeError
    np.testing.assert_allclose(astjax.jacfwd(_kw_only)(x, scale=2.0), g)
    np.testing.assert_allclose(astjax.hessian(_kw_only)(x, scale=2.0), h)
    np.testing.assert_allclose(astjax.jacrev(_kw_default)(x, scale=2.0), g)       # was a TypeError
    np.testing.assert_allclose(astjax.hessian(_kw_default)(x, scale=2.0), h)


# ------------------------------------------------------------ lax.scan whose ys the function never reads
def _none_step(c, x):
    return {"w": c["w"] * x, "s": c["s"] + c["w"]}, None


def _scan_none(x):
    c, _ = lax.scan(_none_step, {"w": x[0], "s": 0.0 * x[0]}, x[1:])
    return c["s"] + c["w"]


def test_scan_with_unread_none_ys_is_differentiated():
    x = np.array([0.5, 0.9, 1.1])
    # w = x0 x1 x2, s = x0 + x0 x1
    np.testing.assert_allclose(astjax.grad(_scan_none)(x), [x[1] * x[2] + 1 + x[1], x[0] * x[2] + x[0], x[0] * x[1]])


# ------------------------------------------------------------ loops over itertools iterators
def _pairs(x):
    e = 0.0
    for i, j in itertools.combinations(range(3), 2):
        e = e + x[i] * x[j]
    return e


def _cycled(x):
    s = 0.0
    for a, w in zip(x, itertools.cycle([1.0, 2.0])):
        s = s + a * w
    return s


def test_itertools_loops_run_or_are_refused_at_the_loop():
    x = np.array([0.5, 2.0, -1.0])
    np.testing.assert_allclose(astjax.grad(_pairs)(x), [x[1] + x[2], x[0] + x[2], x[0] + x[1]])   # was a TypeError
    with pytest.raises(AstjaxError, match="itertools.cycle"):
        astjax.grad(_cycled)(x)


# ------------------------------------------------------------ dict displays with ** and dict union
def _star_star(d):
    e = {**d, "a": d["a"] * 3.0}
    return e["a"] * e["b"]


def _union(d):
    e = d | {"b": d["a"] ** 2}
    return e["a"] * e["b"]


def test_dict_star_star_and_union_are_refused():
    d = {"a": np.float64(0.7), "b": np.float64(0.2)}
    with pytest.raises(AstjaxError, match=r"\*\*"):          # was {'a': d}: a KeyError
        astjax.grad(_star_star)(d)
    with pytest.raises(AstjaxError, match="merging dicts"):    # was a silently zero gradient
        astjax.grad(_union)(d)


# ------------------------------------------------------------ forward mode over a NamedTuple carry
class _S(NamedTuple):
    a: object
    b: object


def _nt_loop(x):
    c = _S(1.0, 0.0)
    for i in range(3):
        c = _S(c.a * x[i], c.b + c.a)
    return c.a + c.b


def test_forward_mode_through_a_namedtuple_carry():
    x = np.array([0.5, 1.5, -0.7])
    want = [x[1] * x[2] + 1 + x[1], x[0] * x[2] + x[0], x[0] * x[1]]
    np.testing.assert_allclose(astjax.jacfwd(_nt_loop)(x), want)          # was an AttributeError
    np.testing.assert_allclose(astjax.grad(_nt_loop)(x), want)


def _constant_dict(x):
    d = {"a": 1.0, "b": np.ones(2)}
    return d


def test_forward_mode_of_an_output_dict_the_input_does_not_reach():
    x = np.array([0.5, 1.5])
    j = astjax.jacfwd(_constant_dict)(x)                  # was an IndexError (zeros_like of the dict)
    np.testing.assert_allclose(j["a"], np.zeros(2))
    np.testing.assert_allclose(j["b"], np.zeros((2, 2)))
    _, t = astjax.jvp(_constant_dict, (x,), (np.ones(2),))
    np.testing.assert_allclose(t["b"], np.zeros(2))
