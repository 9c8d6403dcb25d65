"""Shape helpers under vmap refuse by default (issue 8): a helper whose result depends only on shapes is
computed once, for example 0, only when every batched argument lands in a parameter it declares it reads
only the shape, dtype or type of (rules/shape_only_parameters.py); a batched value anywhere else makes the
statement run per example. Every batched result is checked against a Python loop over the batch."""
import re

import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import grad, vmap
from astjax.analyses.batching import _of_shapes_only
from astjax.rules.registry import PRIMITIVES
from astjax.rules.shape_only_parameters import READS_SHAPES_OF

RNG = np.random.default_rng(88)
X = RNG.normal(size=(3, 4)).astype(np.float32)


def loop_of(fun, *args):
    """fun run once per example (every argument mapped on axis 0), each output stacked."""
    results = [fun(*[jnp.asarray(a[b]) for a in args]) for b in range(len(args[0]))]
    if isinstance(results[0], tuple):
        return tuple(np.stack([np.asarray(r[i]) for r in results]) for i in range(len(results[0])))
    return np.stack([np.asarray(r) for r in results])


def loops_over_the_batch(fn):
    return "for _b" in astjax.source(fn)


def assert_all_close(got, want):
    for g, w in zip(got, want) if isinstance(want, tuple) else ((got, want),):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-6, atol=1e-6)


# ------------------------------------------------ helpers that read only a batched value's shape: no loop
def shape_only_uses(x):
    grid_a, grid_b = jnp.meshgrid(x, x[:2])
    return (jnp.zeros(x.shape) + x, jnp.zeros_like(x) + 2 * x, jnp.finfo(x.dtype).eps * x, jnp.eye(4)[1] * x,
            grid_a * grid_b, jnp.kron(x, jnp.ones(2)), jnp.tile(x, 2), jnp.pad(x, 1), jnp.diff(x))


def covariance(m):
    return jnp.cov(m)


def derivative_polynomial(p):
    return jnp.polyder(p)


def integral_polynomial(p):
    return jnp.polyint(p)


def shape_only_loss(y):
    return (jnp.sum(jnp.kron(y, jnp.arange(2.0)) ** 2) + jnp.sum(jnp.tile(y, 2) ** 3)
            + jnp.sum(jnp.pad(y, 1) * jnp.arange(6.0)) + jnp.sum(jnp.polyder(y) ** 2) + jnp.sum(jnp.polyint(y))
            + jnp.sum(jnp.linspace(y[0], y[1], 5) ** 2) + jnp.sum(jnp.sqrt(y * y + jnp.finfo(y.dtype).tiny)))


def test_helpers_that_read_only_shapes_stay_loop_free():
    """zeros(x.shape), zeros_like, eye, finfo, meshgrid, kron, tile, pad, diff, cov, polyder, polyint and
    their gradients' shape helpers read only the batched value's shape or dtype: computed once, no loop."""
    for fun, xs in ((shape_only_uses, X), (covariance, X.reshape(3, 2, 2)), (derivative_polynomial, X),
                    (integral_polynomial, X)):
        batched = vmap(fun)
        assert_all_close(batched(xs), loop_of(fun, xs))
        assert not loops_over_the_batch(batched), astjax.source(batched)    # the source of the call just made
    gradients = vmap(grad(shape_only_loss))
    assert_all_close(gradients(X), loop_of(grad(shape_only_loss), X))
    assert not loops_over_the_batch(gradients), astjax.source(gradients)


# ------------------------------------------------ a batched value where a helper reads values: per example
def value_reads(k, e, s):
    return jnp.eye(3, k=k), jnp.tri(3, k=k), jnp.linspace(s, 1.0, 5, endpoint=e)


def linspace_loss(s, e):
    return jnp.sum(jnp.linspace(s, 2.0, 5, endpoint=e) ** 2)


K = np.array([0, 1, -1])
E = np.array([True, False, True])
S = np.array([0.5, -1.0, 2.0], dtype=np.float32)


def test_a_batched_value_in_a_value_parameter_runs_per_example():
    """`jnp.eye(3, k=k)`, `jnp.tri(3, k=k)`, linspace's `endpoint`: read by value, so per example."""
    batched = vmap(value_reads)
    assert_all_close(batched(K, E, S), loop_of(value_reads, K, E, S))
    text = astjax.source(batched)
    assert "jnp.eye(3, k=k[_b" in text and "jnp.tri(3, k=k[_b" in text, text


def test_an_undeclared_parameter_is_read_by_value():
    """linspace_weights' `endpoint` was missing from the old allow-list of value parameters: vmap(grad) of
    linspace with a batched endpoint gave every example example 0's weights (a gradient off by 0.8). Now no
    declaration means a value read, and the gradient matches a loop of grads and central differences."""
    gradients = vmap(grad(linspace_loss))
    got = gradients(S, E)
    np.testing.assert_allclose(got, loop_of(grad(linspace_loss), S, E), rtol=1e-6)
    assert re.search(r"linspace_weights\(\w+\[_b\d+\], 5, e\[_b\d+\]\)", astjax.source(gradients)), astjax.source(
        gradients)
    h = 1e-3
    central = [(linspace_loss(np.float64(s) + h, e) - linspace_loss(np.float64(s) - h, e)) / (2 * h)
               for s, e in zip(S, E)]
    np.testing.assert_allclose(got, central, rtol=1e-4)


# ------------------------------------------------ the declarations themselves
def test_declarations_name_shape_helpers_whose_result_ignores_the_declared_values():
    """Each declared primitive is a shape helper (or an index helper of a shape), and a sample of them gives
    the same result for two arguments of one shape and dtype but other values in the declared parameters."""
    index_helpers = {"tril_indices_from", "triu_indices_from", "diag_indices_from"}
    assert {n for n in READS_SHAPES_OF if not _of_shapes_only(PRIMITIVES[n])} <= index_helpers

    def draw(*shape):
        return RNG.normal(size=shape).astype(np.float32)

    samples = {
        "triangle_mask": lambda: dict(x=draw(3, 4), k=1), "linspace_weights": lambda: dict(y=draw(2, 5), num=5),
        "polyder_factors": lambda: dict(p=draw(5), m=2), "polyint_factors": lambda: dict(p=draw(5), m=2),
        "leading": lambda: dict(p=draw(5), m=1), "kron_blocks": lambda: dict(a=draw(2, 3), b=draw(3)),
        "tile_blocks": lambda: dict(A=draw(2, 3), reps=(2, 1)),
        "conv_pad": lambda: dict(a=draw(6), v=draw(3), mode="same"),
        "diff_pad": lambda: dict(x=draw(3, 4), axis=1, prepend=draw(3, 2), append=draw(3, 1)),
        "zeros_like_shape": lambda: dict(x=draw(2, 3), like=draw(4)),
        "inexact_zero": lambda: dict(operands=(draw(2, 3), draw(3))),
        "batch_lstsq_cutoff": lambda: dict(a=draw(2, 3, 4)), "batch_kaiser_root": lambda: dict(M=5, beta=draw()),
        "meshgrid_axes": lambda: dict(k=0, y=[draw(2), draw(3), draw(4)], indexing="xy"),
    }
    for name, sample in samples.items():
        impl = PRIMITIVES[name].impl
        first, second = sample(), sample()
        assert set(READS_SHAPES_OF[name]) <= set(first), name
        second.update({p: v for p, v in first.items() if p not in READS_SHAPES_OF[name]})
        np.testing.assert_equal(impl(**first), impl(**second), err_msg=name)
