"""Stencil and kernel-gradient lowerings (stencil session, issue 7): values equal the reference backend's.

- stencil_loops unrolls four taps per pass over a row: the sum stays the nest's to the bit.
- recompute_windows: the blur's gradient keeps no window on a tape (the reverse sweep recomputes it).
- fuse_elementwise: `unbroadcast_to(g * w, ())` nested in a statement is hoisted and fused as one sum.
- shape_only_values: arrays read only for their shape are computed as shape tuples, and still raise
  where the arrays would not broadcast or the window would not fit.
Small shapes, float32 only; the default profile compiles one small gradient (a 1-d correlation), the
long profile the blur and its gradient too.
"""
import os

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.runtime.numba_shapes import broadcast_shape, window_shape
from jit_cases.programs import blur   # the founding blur, its window on a name of its own

rng = np.random.default_rng(7)
# The 81-tap blur's bit-for-bit test (tests/test_jit_perf_lowerings.py) covers the unrolled taps in the
# default profile; these compile more and run with ASTJAX_LONG_PROPERTIES=1.
long_only = pytest.mark.skipif(not os.environ.get("ASTJAX_LONG_PROPERTIES"), reason="long profile")


def blur_loss(kernel, image):
    return jnp.sum(blur(image, kernel) ** 2)


def taps(x, k):
    """A 1-d correlation: the blur's kernel-gradient passes at the cost of a small compile."""
    n = x.shape[0] - 2
    out = jnp.zeros_like(lax.dynamic_slice(x, (0,), (n,)))
    for i in range(3):
        window = lax.dynamic_slice(x, (i,), (n,))
        out = out + k[i] * window
    return out


def taps_loss(k, x):
    return jnp.sum(taps(x, k) ** 2)


def broadcast_taps(kernel, image, row):
    """The accumulated array broadcasts against a row: its shape changes after the first tap."""
    h, w = image.shape
    output = jnp.zeros((1, w), image.dtype)
    for i in range(kernel.shape[0]):
        output = output + kernel[i] * lax.dynamic_slice(image, (i, 0), (h - 2, w)) * row
    return jnp.sum(output ** 2)


def _array(shape):
    return rng.uniform(-1, 1, size=shape).astype(np.float32)


@long_only
def test_seven_taps_unrolled_by_four_keep_the_nests_sum_to_the_bit():
    image, kernel = _array((6, 11)), _array((1, 7))          # 7 taps: one pass of four, three one by one
    jitted = astjax.jit(blur)
    source = jitted.lower(image, kernel).source
    assert "range(0, len(c0) - 3, 4)" in source and "t3_c0" in source
    for shape in ((6, 11), (3, 2)):
        image = _array(shape)
        assert np.array_equal(np.asarray(jitted(image, kernel)), np.asarray(blur(image, kernel)))


def test_a_kernel_gradient_keeps_no_window_and_no_image_sized_primal():
    kernel, x = _array((3,)), _array((40,))
    jitted = astjax.jit(astjax.grad(taps_loss))
    source = jitted.lower(kernel, x).source
    vjp = source[source.index("def vjp_taps"):source.index("\ndef ", source.index("def vjp_taps") + 1)]
    assert "_tape_window" not in vjp                      # recomputed, not saved
    assert "_shape_of_out = broadcast_shape(" in vjp and " out = " not in vjp       # the primal's sum: shapes only
    assert "_total_1 = _fused_" in vjp                    # one fused sum pass per tap
    for k, xs in ((kernel, x), (_array((3,)), _array((40,)))):      # one signature: one compile
        np.testing.assert_allclose(np.asarray(jitted(k, xs)), np.asarray(astjax.grad(taps_loss)(k, xs)),
                                   rtol=1e-4, atol=1e-5)


@long_only
def test_the_blur_kernel_gradient_keeps_no_window_and_no_image_sized_primal():
    kernel, image = _array((3, 3)), _array((9, 13))
    jitted = astjax.jit(astjax.grad(blur_loss))
    source = jitted.lower(kernel, image).source
    vjp = source[source.index("def vjp_blur"):source.index("\ndef ", source.index("def vjp_blur") + 1)]
    assert "_tape_window" not in vjp
    assert "_shape_of_output = broadcast_shape(" in vjp
    assert "_total_1 = _fused_" in vjp
    for k, im in ((kernel, image), (_array((3, 3)), _array((9, 13)))):
        np.testing.assert_allclose(np.asarray(jitted(k, im)), np.asarray(astjax.grad(blur_loss)(k, im)),
                                   rtol=1e-4, atol=1e-5)


@long_only
def test_a_broadcasting_accumulation_in_the_gradient_agrees():
    kernel, image, row = _array((3,)), _array((5, 4)), _array((4,))
    grad = astjax.grad(broadcast_taps, argnums=(0, 2))
    jitted = astjax.jit(grad)
    for args in ((kernel, image, row), (_array((3,)), _array((5, 4)), _array((4,)))):
        for got, want in zip(jitted(*args), grad(*args)):
            np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-5)


def test_shape_helpers_follow_numpy_and_raise_where_the_arrays_would():
    assert broadcast_shape((3, 1), (4,)) == (3, 4) == tuple(np.broadcast_shapes((3, 1), (4,)))
    assert broadcast_shape((), (2, 5)) == (2, 5)
    assert window_shape((5, 6), (2, 6)) == (2, 6)
    with pytest.raises(ValueError):
        broadcast_shape((3,), (4,))
    with pytest.raises(ValueError):
        window_shape((5, 6), (2, 7))


def test_shape_helpers_compiled_agree():
    from numba import njit

    @njit
    def both(a, b, shape, sizes):
        return broadcast_shape(a, b), window_shape(shape, sizes)

    assert both((3, 1), (4,), (5, 6), (2, 6)) == ((3, 4), (2, 6))
    with pytest.raises(ValueError):
        both((3,), (4,), (5, 6), (2, 6))
    with pytest.raises(ValueError):
        both((3, 1), (4,), (5, 6), (9, 6))
