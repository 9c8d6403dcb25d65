"""vmap's reduction rule for the nan-reductions, ptp, median and the nan-cumulative functions: the axis
shifts past the batch axis (axis=None reduces every axis but the batch's; the cumulative ones flatten each
example), checked against a Python loop over the batch, value and gradient."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.rules.batching import generic_rule, reduction_rule
from astjax.rules.registry import PRIMITIVES

RNG = np.random.default_rng(3)
REDUCTIONS = ["nansum", "nanmean", "nanprod", "nanmax", "nanmin", "nanvar", "nanstd", "ptp", "median", "nanmedian"]
CUMULATIVE = ["nancumsum", "nancumprod"]


def _loop(f, xs):
    return np.stack([np.asarray(f(x)) for x in xs])


def _cases(name):
    fn = getattr(jnp, name)
    cases = [lambda x: fn(x), lambda x: fn(x, axis=0), lambda x: fn(x, axis=-1)]
    if name not in CUMULATIVE:
        cases += [lambda x: fn(x, axis=(0, 1)), lambda x: fn(x, axis=1, keepdims=True),
                  lambda x: fn(x, keepdims=True)]
    return cases


@pytest.mark.parametrize("name", REDUCTIONS + CUMULATIVE)
def test_the_reduction_rule_batches_them_as_a_loop_does(name):
    assert generic_rule(PRIMITIVES[name]) is reduction_rule
    xs = RNG.normal(size=(3, 2, 4, 5))
    xs[0, 1, 2, 3] = np.nan                  # the nan-functions skip it; the others give nan, as the loop does
    if not name.startswith("nan"):
        xs = np.abs(xs) + 0.5
    for f in _cases(name):
        np.testing.assert_allclose(astjax.vmap(f)(xs), _loop(f, xs), rtol=1e-12, equal_nan=True)
    clean = np.abs(RNG.normal(size=(3, 2, 4, 5))) + 0.5     # distinct values: every gradient is defined
    for axis in (None, 0, -1):
        loss = _squared_sum(getattr(jnp, name), axis)
        np.testing.assert_allclose(astjax.vmap(astjax.grad(loss))(clean), _loop(astjax.grad(loss), clean),
                                   rtol=1e-10)


def _squared_sum(fn, axis):
    def loss(x):
        y = fn(x, axis=axis)
        return jnp.sum(y * y)
    return loss


def test_percentile_and_average_batch_as_a_loop_does():
    """An array q puts its own axis ahead of the batch, and average's weights are shaped like one example:
    their own rules (rules/batching_axes.py, not the reduction rule) move q's axes back and broadcast the
    weights; tests/test_vmap_rules_batch2.py checks more argument forms."""
    for name in ("percentile", "average"):
        assert generic_rule(PRIMITIVES[name]) not in (None, reduction_rule)
    xs = RNG.normal(size=(3, 6))
    f = (lambda x: jnp.percentile(x, np.array([10.0, 50.0, 90.0])))
    np.testing.assert_allclose(astjax.vmap(f)(xs), _loop(f, xs), rtol=1e-12)
    w = np.arange(1.0, 7.0)
    g = (lambda x: jnp.average(x, weights=w))
    np.testing.assert_allclose(astjax.vmap(g)(xs), _loop(g, xs), rtol=1e-12)
