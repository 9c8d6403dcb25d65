"""jit speed work of perf3: one pass for grad(sum(sigmoid)), sums that vectorize, buffers that stay.

Each test compiles few functions (one signature each) on small shapes; see docs/performance.md.
"""
import os
import sys

import numpy as np
import pytest

import astjax
import astjax.nn
import astjax.numpy as jnp
from astjax.scipy.special import logsumexp


def sigmoid(x):
    return 1.0 / (1.0 + jnp.exp(-x))


def sum_sigmoid(x):
    return jnp.sum(sigmoid(x))


def sum_exp_times(x):
    return jnp.sum(jnp.exp(-x * x) * x)


def sigmoid_read_twice(x, y):
    """The primal's sum is read by the adjoint of the product: the sum cannot move into its loop."""
    s = jnp.sum(sigmoid(x))
    return s * jnp.sum(y * y)


LONG = bool(os.environ.get("ASTJAX_LONG_PROPERTIES"))
DTYPES = [np.float32, np.float64] if LONG else [np.float32]
GRAD_SUM_SIGMOID = astjax.grad(sum_sigmoid)
JIT_GRAD_SUM_SIGMOID = astjax.jit(GRAD_SUM_SIGMOID)        # one compile (rank 1, float32) for two tests


def _close(got, want, dtype):
    rtol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=rtol)


def test_grad_of_a_sum_of_sigmoid_is_one_loop_reading_x_once():
    """The user's sigmoid is inlined: one kernel, one output buffer. jit(grad) computes no value where grad's
    check of it is decided per signature (jit/grad_value_check.py): no sum in the loop; value_and_grad's
    sum, in the adjoint's loop, is checked in the chunk-edge test below."""
    grad, jitted = GRAD_SUM_SIGMOID, JIT_GRAD_SUM_SIGMOID
    rng = np.random.default_rng(0)
    for n in (1, 255, 257, 9000):          # around the 256-element chunks of the sum (SUM_CHUNK)
        x = rng.normal(size=n).astype(np.float32) * 4
        _close(jitted(x), grad(x), np.float32)
    text = jitted.lower(x).source
    head = text.split("\n\n")[0]
    assert "jit_sigmoid" not in text and "vjp_sigmoid(" not in text
    assert head.count("_fused_") == 1, head                  # one loop computes the gradient
    assert text.count("astjax_empty(") == 1, text         # one output buffer (runtime/numba_allocate.py)
    assert "for k in range(256):" not in text and "total" not in text      # and no value


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc and getrusage's fault count")
def test_a_compiled_output_reuses_freed_memory():
    """A 4 MB output freed and allocated again costs no page faults (runtime/numba_memory.py)."""
    import os
    import resource
    if os.environ.get("ASTJAX_MALLOC_TUNING", "1") == "0":
        pytest.skip("malloc tuning switched off")
    jitted = JIT_GRAD_SUM_SIGMOID
    x = np.random.default_rng(1).normal(size=1_000_000).astype(np.float32)
    jitted(x)
    jitted(x)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(5):
        jitted(x)
    faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 5
    assert faults < 200, f"{faults} page faults a call (a 4 MB output faults in ~1000 pages)"


@pytest.mark.parametrize("dtype", DTYPES)
def test_value_and_grad_of_a_fused_sum_agrees_across_chunk_edges(dtype):
    value_and_grad = astjax.value_and_grad(sum_exp_times)
    jitted = astjax.jit(value_and_grad)
    rng = np.random.default_rng(2)
    for shape in ((3, 4095), (2, 4097), (1, 5)):
        x = rng.normal(size=shape).astype(dtype)
        (v1, g1), (v2, g2) = jitted(x), value_and_grad(x)
        _close(v1, v2, dtype)
        _close(g1, g2, dtype)
        assert np.asarray(g1).dtype == dtype and np.asarray(v1).dtype == dtype
    np.testing.assert_allclose(float(jitted(np.ones((2, 2 ** 19), dtype))[0]), 2 ** 20 * np.exp(-1.0), rtol=1e-6)
    text = jitted.lower(x).source
    assert "_and_" in text and "for k in range(256):" in text    # the value's sum in a gradient's loop, chunked


def test_a_sum_read_by_a_later_adjoint_stays_its_own_loop_and_agrees():
    grad = astjax.grad(sigmoid_read_twice, argnums=(0, 1))
    jitted = astjax.jit(grad)
    rng = np.random.default_rng(3)
    x, y = (rng.normal(size=50).astype(np.float32) for _ in range(2))
    for got, want in zip(jitted(x, y), grad(x, y)):
        _close(got, want, np.float32)


# ---------------------------------------------------------------- lowerings jit lacked (roll, linalg.norm)
def rolls(x):
    return (jnp.sum(jnp.roll(x, 2) * x) + jnp.sum(jnp.roll(x, -1, axis=1) ** 2 * x)
            + jnp.sum(jnp.roll(x, (1, -5), axis=(0, 1)) * jnp.sin(x)))


def matrix_norms(x):
    return (jnp.linalg.norm(x) + jnp.linalg.norm(x, ord=1) + jnp.linalg.norm(x, ord=jnp.inf)
            + jnp.linalg.norm(x, "fro") + jnp.sum(jnp.linalg.norm(x, axis=0))
            + jnp.sum(jnp.linalg.norm(x, ord=1, axis=1, keepdims=True))
            + jnp.sum(jnp.linalg.norm(x, ord=-jnp.inf, axis=-1)) + jnp.sum(jnp.linalg.norm(x, ord=3, axis=0)))


def vector_norms(v):
    return (jnp.linalg.norm(v) + 2.0 * jnp.linalg.norm(v, 2) + jnp.linalg.norm(v, 1) + jnp.linalg.norm(v, jnp.inf)
            + jnp.linalg.norm(v, -jnp.inf) + jnp.linalg.norm(v, 0) + jnp.linalg.norm(v, 3))


def exact_gelu(x):
    """gelu's adjoint holds both branches; the untaken one (approximate=True) still types as float32."""
    return jnp.sum(astjax.nn.gelu(x, approximate=False))


def weighted_logsumexp(x):
    return jnp.sum(logsumexp(x, axis=1, b=x * x + 0.1, keepdims=True)) + logsumexp(x, b=jnp.ones_like(x) * 0.5)


def signed_logsumexp(x):
    value, sign = logsumexp(x, axis=0, b=x, return_sign=True)
    return value * sign


def sorts(x):
    return (jnp.sum(jnp.sort(x) * jnp.cos(x)) + jnp.sum(jnp.sort(x, axis=0) ** 2 * x)
            + jnp.sum(jnp.sort(x, axis=None, descending=True)[:3]) + jnp.sum(jnp.sort(x, descending=True) * jnp.sin(x)))


def argsorts(v):
    return jnp.sum(v[jnp.argsort(v)] * v) + jnp.sum(v[jnp.argsort(v, descending=True)] * jnp.sin(v))


def quantiles(x):
    return (jnp.median(x) + jnp.sum(jnp.median(x, axis=0) * jnp.cos(x[0])) + jnp.percentile(x, 30.0)
            + jnp.sum(jnp.quantile(x, 0.7, axis=1, keepdims=True) ** 2))


def spectral_norm(x):
    return jnp.linalg.norm(x, ord=2)


# Each case compiles a dozen lowerings (2 to 30 s on the shared machine): the default profile runs the
# cheapest; ASTJAX_LONG_PROPERTIES=1 runs them all.
LOWERING_CASES = [(exact_gelu, (6,))] + ([(rolls, (3, 4)), (matrix_norms, (3, 4)), (vector_norms, (7,)),
                                          (weighted_logsumexp, (3, 4)), (sorts, (3, 4)), (quantiles, (3, 4))]
                                         if LONG else [])


@pytest.mark.parametrize("fn, shape", LOWERING_CASES, ids=[fn.__name__ for fn, _ in LOWERING_CASES])
def test_a_new_lowering_agrees_with_the_reference_in_value_and_gradient(fn, shape):
    x = np.random.default_rng(4).normal(size=shape).astype(np.float32)
    x.flat[1] = x.flat[2]             # a tie: sorts and their adjoints keep the reference's (stable) order
    _close(astjax.jit(fn)(x), fn(x), np.float32)
    _close(astjax.jit(astjax.grad(fn))(x), astjax.grad(fn)(x), np.float32)


@pytest.mark.skipif(not LONG, reason="compiles for 9 s: ASTJAX_LONG_PROPERTIES=1")
def test_argsort_agrees_ties_included():
    v = np.random.default_rng(6).normal(size=7).astype(np.float32)
    v[1] = v[4]
    _close(astjax.jit(argsorts)(v), argsorts(v), np.float32)


def stacked_generator(x):
    return jnp.stack(tuple(x[i] * 2.0 for i in range(3))) + jnp.stack(list(jnp.sin(x[i]) for i in range(3)))


def indexed_generator(x):
    pair = tuple(x[i] for i in range(2))
    return pair[0] * pair[1]


def test_tuple_of_a_generator_stacked_agrees_and_one_indexed_is_refused():
    x = np.random.default_rng(7).normal(size=(4, 2)).astype(np.float32)
    _close(astjax.jit(stacked_generator)(x), stacked_generator(x), np.float32)
    with pytest.raises(astjax.errors.AstjaxError):
        astjax.jit(indexed_generator)(x)


@pytest.mark.skipif(not LONG, reason="compiles for 9 s: ASTJAX_LONG_PROPERTIES=1")
def test_logsumexp_with_return_sign_agrees():
    x = np.random.default_rng(5).normal(size=(3, 4)).astype(np.float32)
    _close(astjax.jit(signed_logsumexp)(x), signed_logsumexp(x), np.float32)


def test_the_spectral_norm_of_a_matrix_is_refused_under_jit_at_the_users_line():
    with pytest.raises(astjax.errors.AstjaxError) as info:
        astjax.jit(spectral_norm)(np.eye(3, dtype=np.float32))
    assert "test_jit_perf3.py" in str(info.value)
