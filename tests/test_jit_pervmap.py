"""Per-example gradients under jit: the batched outer product is one fused loop, and agrees with the reference.

`vmap(grad(loss), in_axes=(None, 0, 0))` of a dense layer's loss gives W's gradient per example, the outer
product `expand_dims(x, -1) * expand_dims(g, -2)` of shape (batch, in, out). jit fuses it into a loop that
reads x and g without their inserted axes (jit/lower/fuse_elementwise.py) when the other axes agree at run
time, and runs the broadcasting form otherwise. Each program is compiled once, then called on fresh values
and on shapes that take the other path, against the reference backend.

A whole per-example gradient takes 10-25 s to compile on the shared machine, so the suite checks the loop
on small programs (and tests/test_jit_perf_lowerings.py checks the per-example gradient and its fused
source); the per-example gradients themselves, a fused sum and an in-place accumulation run with
ASTJAX_LONG_PROPERTIES=1.
"""
import os

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.rules.helpers import unbroadcast_to

pytest.importorskip("numba")

rng = np.random.default_rng(11)
long_only = pytest.mark.skipif(not os.environ.get("ASTJAX_LONG_PROPERTIES"),
                               reason="compiles whole per-example gradients (ASTJAX_LONG_PROPERTIES=1)")


def layer_loss(w, x, y):
    return jnp.sum((jnp.tanh(jnp.dot(x, w)) - y) ** 2)


def biased_loss(w, b, x, y):
    return jnp.sum((jnp.tanh(x @ w + b) - y) ** 2)


def two_layer_loss(w1, w2, x, y):
    h = jnp.tanh(jnp.dot(x, w1))
    return jnp.sum((jnp.dot(h, w2) - y) ** 2)


def outer(a, b):
    return jnp.expand_dims(a, -1) * jnp.expand_dims(b, -2)


def scaled_outer(a, b, c):
    """An expanded leaf beside a plain one of the loop's rank, and inserted axes given as a tuple."""
    return jnp.expand_dims(a, (0, 2)) * c + 2.0 * jnp.expand_dims(b, 1)


def summed_outer(a, b):
    return jnp.sum(jnp.expand_dims(a, -1) * jnp.expand_dims(b, -2) * 0.5)


def accumulated_outers(a, b):
    """Outer products added in a loop into a fresh array (a fused loop may write it in place)."""
    acc = jnp.zeros((a.shape[1], b.shape[1]), a.dtype)
    for k in range(a.shape[0]):
        acc = acc + jnp.expand_dims(a[k], -1) * jnp.expand_dims(b[k], -2)
    return acc


def kept_batch(a, b):
    """unbroadcast_to a shape that is the loop's only when a's batch has one row: otherwise it sums."""
    return unbroadcast_to(jnp.expand_dims(a, -1) * jnp.expand_dims(b, -2), (1, a.shape[1], b.shape[1]))


def _array(*shape):
    return rng.normal(size=shape).astype(np.float32)


def _agree(jitted, fn, args, rtol=2e-5):
    got, want = jitted(*args), fn(*args)
    got_leaves, want_leaves = astjax.tree_util.tree_leaves(got), astjax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        assert np.shape(g) == np.shape(w) and np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=rtol)


@long_only
def test_per_example_gradients_are_one_fused_outer_product_and_agree():
    per_example = astjax.vmap(astjax.grad(layer_loss), in_axes=(None, 0, 0))
    jitted = astjax.jit(per_example)
    w, x, y = _array(5, 3), _array(4, 5), _array(4, 3)
    _agree(jitted, per_example, (w, x, y))
    source = jitted.lower(w, x, y).source
    assert "out[i0, i1, i2] = x0[i0, i1] * x1[i0, i2]" in source
    for batch in (1, 7):                          # other batch sizes, the same compiled code
        _agree(jitted, per_example, (_array(5, 3), _array(batch, 5), _array(batch, 3)))
    # the loop against a loop of gradients, one example at a time
    grads = jitted(w, x, y)
    for b in range(4):
        np.testing.assert_allclose(grads[b], astjax.grad(layer_loss)(w, x[b], y[b]), rtol=2e-5, atol=2e-5)


@long_only
def test_per_example_gradients_of_a_biased_and_a_two_layer_loss_agree():
    biased = astjax.vmap(astjax.grad(biased_loss, argnums=(0, 1)), in_axes=(None, None, 0, 0))
    _agree(astjax.jit(biased), biased, (_array(5, 3), _array(3), _array(4, 5), _array(4, 3)))
    two_layer = astjax.vmap(astjax.grad(two_layer_loss, argnums=(0, 1)), in_axes=(None, None, 0, 0))
    args = (_array(5, 4), _array(4, 3), _array(6, 5), _array(6, 3))
    _agree(astjax.jit(two_layer), two_layer, args, rtol=1e-4)


def test_an_outer_product_whose_axes_broadcast_at_run_time_runs_unfused():
    jitted = astjax.jit(outer)
    _agree(jitted, outer, (_array(4, 3), _array(4, 2)))
    assert "x0[i0, i1] * x1[i0, i2]" in jitted.lower(_array(4, 3), _array(4, 2)).source
    _agree(jitted, outer, (_array(1, 3), _array(4, 2)))     # a's batch broadcasts: NumPy's broadcasting
    _agree(jitted, outer, (_array(4, 3), _array(1, 2)))
    with pytest.raises(Exception):
        jitted(_array(4, 3), _array(5, 2))                    # as NumPy: the shapes do not broadcast


def test_expanded_and_plain_leaves_in_one_loop_agree():
    jitted = astjax.jit(scaled_outer)
    _agree(jitted, scaled_outer, (_array(3), _array(2, 4), _array(2, 3, 4)))
    _agree(jitted, scaled_outer, (_array(1), _array(2, 4), _array(2, 3, 4)))   # a broadcasts along axis 1
    _agree(jitted, scaled_outer, (_array(3), _array(2, 4), _array(2, 1, 4)))   # c broadcasts along axis 1


@long_only
def test_a_fused_sum_of_an_outer_product_agrees():
    summed = astjax.jit(summed_outer)
    _agree(summed, summed_outer, (_array(4, 3), _array(4, 2)), rtol=1e-4)
    _agree(summed, summed_outer, (_array(1, 3), _array(4, 2)), rtol=1e-4)


@long_only
def test_outer_products_accumulated_in_place_agree():
    _agree(astjax.jit(accumulated_outers), accumulated_outers, (_array(5, 3), _array(5, 4)), rtol=1e-4)


def test_unbroadcast_to_another_shape_sums_as_the_reference_does():
    jitted = astjax.jit(kept_batch)
    _agree(jitted, kept_batch, (_array(1, 3), _array(1, 2)))      # the loop's shape: read through
    _agree(jitted, kept_batch, (_array(4, 3), _array(4, 2)), rtol=1e-4)    # (4, 3, 2) summed to (1, 3, 2)


def rank_helper(a):
    if jnp.ndim(a) == 1:
        return a * 2.0
    return a[0] - a[1]


def pick(x, m, flag):
    """The first call reaches rank_helper with a 1-d array only; a later one, with a 2-d one."""
    if flag > 0:
        return rank_helper(x)
    return rank_helper(m)


def test_a_callee_folded_for_its_observed_rank_still_runs_other_ranks():
    """jit/lower/static_ranks.py keeps only the branch of the observed rank, behind a test Numba decides
    per compiled version: the call with the other rank runs the unfolded body."""
    jitted = astjax.jit(pick)
    x, m = _array(3), _array(2, 3)
    _agree(jitted, pick, (x, m, np.float32(1.0)))
    source = jitted.lower(x, m, np.float32(1.0)).source
    assert "if a.ndim != 1:" in source
    _agree(jitted, pick, (x, m, np.float32(-1.0)))


def batch_times_matrix(a, b):
    return a @ b


def test_a_batch_times_a_matrix_is_one_product_and_agrees():
    """`@` of a 3-d operand goes to matmul's lowering (Numba's `@` takes 1-d and 2-d only): one BLAS call."""
    jitted = astjax.jit(batch_times_matrix)
    _agree(jitted, batch_times_matrix, (_array(3, 4, 5), _array(5, 2)), rtol=1e-5)
    _agree(jitted, batch_times_matrix, (_array(1, 2, 5), _array(5, 3)), rtol=1e-5)
    with pytest.raises(Exception):
        jitted(_array(3, 4, 5), _array(4, 2))                    # as NumPy: the inner dimensions differ
