"""jit compile-time work of perf4: one gemm for every layout, identical loops compiled once, guards on
names a pass introduced, fused operands of matrix products.

Small shapes, one compile per signature; see docs/performance.md ("seventh session").
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from test_jit_perf_lowerings import blur    # the founding workload's blur, one definition for both files


def mlp_loss(w1, w2, x, y):
    h1 = jnp.tanh(jnp.dot(x, w1))
    h2 = jnp.tanh(jnp.dot(h1, w2))
    return jnp.sum((h2 - y) ** 2) / x.shape[0]


def product(a, b):
    return jnp.dot(a, b)


def _mlp_args(rng, dtype=np.float32):
    w1 = rng.normal(scale=0.3, size=(6, 5)).astype(dtype)
    w2 = rng.normal(scale=0.3, size=(5, 4)).astype(dtype)
    x = rng.normal(size=(3, 6)).astype(dtype)
    y = rng.normal(size=(3, 4)).astype(dtype)
    return w1, w2, x, y


def test_mlp_gradient_is_one_gemm_helper_and_each_loop_compiled_once():
    grad = astjax.grad(mlp_loss, argnums=(0, 1))
    jitted = astjax.jit(grad)
    args = _mlp_args(np.random.default_rng(0))
    got = jitted(*args)
    for g, w in zip(got, grad(*args)):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-6)
    text = jitted.lower(*args).source
    head = text.split("\n\n")[0]
    assert "np.dot" not in head and ".T" not in head, head          # every product: matrix_product(a, b, ta, tb)
    assert head.count("matrix_product(") == 5, head
    assert "np.tanh" not in head, head            # the shape test on `_product_k` is a guard, no unfused branch
    assert "_operand_1 = _fused_" in head, head   # `bh1 * (1 - h1 * h1)` fused before its product
    assert "unreduce(" not in head and "unbroadcast(" not in head, head      # the seed's broadcast, in a loop
    kernels = [k for k in text.split("\n\n") if k.startswith("def _fused_")]
    bodies = [k.split("\n", 1)[1] for k in kernels]
    assert len(bodies) == len(set(bodies)), text   # no loop compiled twice under two names


@pytest.mark.parametrize("layout", ["C", "strided", "empty"])
def test_matrix_product_agrees_with_numpy_for_every_layout(layout):
    from astjax.runtime.numba_gemm import matrix_product
    rng = np.random.default_rng(1)
    a = rng.normal(size=(4, 6)).astype(np.float32)
    b = rng.normal(size=(6, 3)).astype(np.float32)
    if layout == "strided":
        a = rng.normal(size=(4, 12)).astype(np.float32)[:, ::2]
    elif layout == "empty":
        a, b = a[:, :0], b[:0]
    jitted = astjax.jit(product)
    np.testing.assert_allclose(jitted(a, b), a @ b, rtol=1e-5, atol=1e-6)
    if layout == "C":
        np.testing.assert_array_equal(jitted(a, b), np.dot(a, b))
        assert "matrix_product(a, b, False, False)" in jitted.lower(a, b).source
        # the transposed forms, through the Python twin (the compiled one runs in the gradient test above)
        np.testing.assert_array_equal(matrix_product(a.T.copy(), b, True, False), a @ b)
        np.testing.assert_array_equal(matrix_product(a, b.T.copy(), False, True), a @ b)
    with pytest.raises(Exception):
        jitted(a, a)                                    # (4, 6) @ (4, 6): the inner dimensions differ


def test_stencil_taps_are_arrays_and_window_offsets_are_selects():
    """The stencil's per-tap operands go to arrays of the tap count (no list append helpers), the window
    offsets' clamp is two selects (no min/max helpers); the result is the reference's to the bit."""
    rng = np.random.default_rng(2)
    image = rng.uniform(size=(7, 9)).astype(np.float32)
    kernel = rng.uniform(size=(3, 5)).astype(np.float32)
    jitted = astjax.jit(blur)
    np.testing.assert_array_equal(jitted(image, kernel), blur(image, kernel))
    head = jitted.lower(image, kernel).source.split("\n\n")[0]
    assert "_stencil_empty(" in head and ".append(" not in head, head
    assert "builtin_min" not in head and "min(" not in head, head
