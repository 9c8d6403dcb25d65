"""The lowerings that make the founding workloads fast agree with the reference backend.

Each program is compiled on a first call (which jit checks against the reference), then called
again on fresh values of the same signature: those later calls run only compiled code, so they
are compared here with the reference backend, in float32 and float64, over several shapes
(size-1 dimensions, kernels of one tap, clamped windows, shapes that broadcast).
"""
import os

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax

pytest.importorskip("numba")

rng = np.random.default_rng(7)
DTYPES = [np.float32, np.float64]
# Tests that compile a whole gradient or a large stencil per dtype: float64 in the long profile
# (ASTJAX_LONG_PROPERTIES=1); the cheaper tests check both dtypes in the suite.
HEAVY_DTYPES = DTYPES if os.environ.get("ASTJAX_LONG_PROPERTIES") else [np.float32]


def blur(image, kernel):
    im_h, im_w = image.shape
    ker_h, ker_w = kernel.shape
    padded = jnp.pad(image, ((ker_h // 2, ker_h // 2), (ker_w // 2, ker_w // 2)), mode="edge")
    output = jnp.zeros_like(image)
    for i in range(ker_h):
        for j in range(ker_w):
            output += kernel[i, j] * lax.dynamic_slice(padded, (i, j), (im_h, im_w))
    return output


def clamped_taps(image, kernel):
    """Windows whose starts run past the end: dynamic_slice clamps them (offsets 0 and 1 only)."""
    im_h, im_w = image.shape
    out_h, out_w = im_h - 1, im_w - 1
    output = jnp.zeros((out_h, out_w), image.dtype)
    for i in range(kernel.shape[0]):
        for j in range(kernel.shape[1]):
            output = output + kernel[i, j] * lax.dynamic_slice(image, (i, j), (out_h, out_w))
    return output


def channels(volume, kernel):
    """A 3-d stencil: every channel blurred by the same taps, rows and columns innermost."""
    c, h, w = volume.shape
    padded = jnp.pad(volume, ((0, 0), (1, 1), (1, 1)), mode="constant")
    output = jnp.zeros_like(volume)
    for i in range(3):
        for j in range(3):
            output += kernel[i, j] * lax.dynamic_slice(padded, (0, i, j), (c, h, w))
    return output


def taps_and_offset(image, kernel, shift):
    """Two loop levels, a tap that reads a scalar argument too, and a loop variable read afterwards."""
    im_h, im_w = image.shape
    padded = jnp.pad(image, ((2, 2), (2, 2)), mode="edge")
    output = jnp.zeros_like(image)
    for i in range(kernel.shape[0]):
        for j in range(kernel.shape[1]):
            output = output + (kernel[i, j] * shift) * lax.dynamic_slice(padded, (i, j), (im_h, im_w))
    return output * (i + j)


def blur_loss(kernel, image):
    return jnp.sum(blur(image, kernel) ** 2)


def _check(fn, make_args, dtype, rtol=None):
    rtol = rtol or (2e-5 if dtype == np.float32 else 1e-12)
    jitted = astjax.jit(fn)
    jitted(*make_args())                       # compiles, and jit checks this call against the reference
    for _ in range(2):                         # compiled code only: compare here
        args = make_args()
        got, want = jitted(*args), fn(*args)
        for g, w in zip(astjax.tree_util.tree_leaves(got), astjax.tree_util.tree_leaves(want)):
            assert np.asarray(g).dtype == np.asarray(w).dtype
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=rtol)
    return jitted


def _array(shape, dtype):
    return rng.uniform(-1, 1, size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("image_shape, kernel_shape", [((12, 17), (3, 3)), ((1, 7), (3, 3)), ((5, 1), (3, 5)),
                                                       ((1, 1), (1, 1)), ((9, 6), (1, 5)), ((20, 30), (5, 3))])
def test_the_blur_as_one_stencil_kernel_agrees_with_the_reference(dtype, image_shape, kernel_shape):
    jitted = _check(blur, lambda: (_array(image_shape, dtype), _array(kernel_shape, dtype)), dtype)
    assert "_stencil_1(" in jitted.lower(_array(image_shape, dtype), _array(kernel_shape, dtype)).source


def test_the_stencil_keeps_each_elements_order_of_additions():
    image, kernel = _array((31, 40), np.float32), _array((9, 9), np.float32)
    assert np.array_equal(np.asarray(astjax.jit(blur)(image, kernel)), np.asarray(blur(image, kernel)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_clamped_windows_agree(dtype):
    _check(clamped_taps, lambda: (_array((6, 8), dtype), _array((3, 4), dtype)), dtype)


@pytest.mark.parametrize("dtype", HEAVY_DTYPES)
def test_a_three_dimensional_stencil_agrees(dtype):
    _check(channels, lambda: (_array((2, 5, 7), dtype), _array((3, 3), dtype)), dtype)


@pytest.mark.parametrize("dtype", HEAVY_DTYPES)
def test_taps_reading_a_scalar_argument_and_loop_variables_after_the_nest(dtype):
    _check(taps_and_offset, lambda: (_array((7, 9), dtype), _array((5, 5), dtype), dtype(rng.uniform(0.5, 2))),
           dtype)


@pytest.mark.parametrize("dtype", HEAVY_DTYPES)
def test_the_blurs_kernel_gradient_agrees(dtype):
    _check(astjax.grad(blur_loss), lambda: (_array((3, 3), dtype), _array((11, 13), dtype)), dtype,
           rtol=1e-4 if dtype == np.float32 else 1e-10)


def sigmoid(x):
    return 1.0 / (1.0 + jnp.exp(-x))


def sum_sigmoid(x):
    return jnp.sum(sigmoid(x))


def weighted(x, w):
    """A callee whose adjoint meets a broadcast weight (w is (1, n) or (n,) beside x's (m, n))."""
    return jnp.sum(sigmoid(x) * w)


def two_signatures(x, y):
    """One callee called with two ranks: it must stay a call (Numba specializes it twice)."""
    return jnp.sum(sigmoid(x)) * jnp.sum(sigmoid(y))


def softplus_twice(x):
    """A select that reads exp twice in each branch: shared calls inside a branch-free select."""
    return jnp.sum(jnp.where(x > 0, x + jnp.log1p(jnp.exp(-x)), jnp.log1p(jnp.exp(x))) * jnp.exp(-x))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1,), (7,), (3, 4), (1, 5), (4, 1)])
def test_the_inlined_adjoint_of_sigmoid_agrees(dtype, shape):
    jitted = _check(astjax.grad(sum_sigmoid), lambda: (_array(shape, dtype) * 4,), dtype)
    text = jitted.lower(_array(shape, dtype)).source
    assert "vjp_sigmoid(" not in text and "unreduce(" not in text.split("else")[0]


def test_a_fused_loop_computes_a_repeated_exp_once():
    from astjax.jit import fast_math
    text = astjax.jit(astjax.grad(sum_sigmoid)).lower(_array((9,), np.float32)).source
    exp = "fast_exp" if fast_math.enabled() else "np.exp"
    assert f"v0 = {exp}(" in text


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("w_shape", [(1, 5), (5,), (3, 5)])
def test_an_inlined_adjoint_beside_broadcasting_agrees(dtype, w_shape):
    _check(astjax.grad(weighted, argnums=(0, 1)), lambda: (_array((3, 5), dtype), _array(w_shape, dtype)), dtype)


def test_a_callee_seen_with_two_signatures_stays_a_call_and_agrees():
    make = lambda: (_array((6,), np.float32), _array((2, 3), np.float32))  # noqa: E731
    jitted = _check(astjax.grad(two_signatures, argnums=(0, 1)), make, np.float32)
    assert "vjp_sigmoid(" in jitted.lower(*make()).source


@pytest.mark.parametrize("dtype", HEAVY_DTYPES)
def test_shared_calls_inside_a_select_agree(dtype):
    _check(astjax.grad(softplus_twice), lambda: (_array((40,), dtype) * 30,), dtype)


def mlp_loss(w1, w2, x, y):
    h = jnp.tanh(jnp.dot(x, w1))
    return jnp.sum((jnp.dot(h, w2) - y) ** 2) / x.shape[0]


def tanh_of_product(a, b):
    return jnp.tanh(jnp.matmul(a, b))


@pytest.mark.parametrize("dtype", HEAVY_DTYPES)
@pytest.mark.parametrize("dims", [(4, 6, 3, 2), (1, 5, 1, 3), (3, 1, 4, 1)])
def test_the_mlp_gradient_with_a_fused_fast_tanh_agrees(dtype, dims):
    batch, n_in, hidden, n_out = dims
    make = lambda: (_array((n_in, hidden), dtype), _array((hidden, n_out), dtype),  # noqa: E731
                    _array((batch, n_in), dtype) * 3, _array((batch, n_out), dtype))
    jitted = _check(astjax.grad(mlp_loss, argnums=(0, 1)), make, dtype, rtol=1e-4 if dtype == np.float32 else 1e-11)
    from astjax.jit import fast_math
    if fast_math.enabled():
        assert "fast_tanh(" in jitted.lower(*make()).source


@pytest.mark.parametrize("dtype", DTYPES)
def test_tanh_of_a_matrix_product_agrees(dtype):
    _check(tanh_of_product, lambda: (_array((5, 3), dtype) * 4, _array((3, 7), dtype)), dtype)


@pytest.mark.parametrize("dtype, bound", [(np.float32, 2), (np.float64, 2)])
def test_fast_tanh_is_within_two_ulp_of_numpy(dtype, bound):
    import numba
    from astjax.jit.fast_math import fast_tanh

    @numba.njit
    def each(x):
        out = np.empty_like(x)
        for i in range(x.size):
            out[i] = fast_tanh(x[i])
        return out
    tiny = np.geomspace(1e-30 if dtype == np.float32 else 1e-300, 1, 5000)
    x = np.concatenate([np.linspace(-40, 40, 100001), tiny, -tiny, [0.625, -0.625, 20.0, -20.0]]).astype(dtype)
    got, want = each(x), np.tanh(x)
    assert np.max(np.abs(got - want) / np.spacing(np.abs(want))) <= bound
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan], dtype)
    got = each(special)
    np.testing.assert_array_equal(got, np.tanh(special))
    assert np.signbit(got[1])


# ------------------------------------------------------------------ vmap's masked while loops, per element
def newton_sqrt(a):
    """A data-dependent while loop per element: vmap runs it masked until no element is active."""
    x = a
    while jnp.abs(x * x - a) > 1e-5 * a:
        x = 0.5 * (x + a / x)
    return x


def steps_to_threshold(a, w):
    """The loop reads a reduction of an unbatched argument: its body is not elementwise over the batch."""
    x = a
    while x < jnp.sum(w):
        x = x * 2.0 + jnp.max(w)
    return x


def row_newton(a):
    """One mask per row (the loop test reduces over the row): carried values have more axes than the mask."""
    x = a
    while jnp.any(jnp.abs(x * x - a) > 1e-5 * a):
        x = 0.5 * (x + a / x)
    return x


def _positive(shape, dtype):
    return rng.uniform(0.5, 50.0, size=shape).astype(dtype)


LONG = bool(os.environ.get("ASTJAX_LONG_PROPERTIES"))


@pytest.mark.parametrize("dtype", HEAVY_DTYPES)
@pytest.mark.parametrize("shape", [(1,), (600,), (3, 4)] + ([(9,), (1, 5)] if LONG else []))
def test_a_masked_while_loop_runs_per_element_and_agrees(dtype, shape):
    fn = astjax.vmap(newton_sqrt) if len(shape) == 1 else astjax.vmap(astjax.vmap(newton_sqrt))
    jitted = _check(fn, lambda: (_positive(shape, dtype),), dtype, rtol=1e-30)      # to the bit
    if len(shape) == 1:          # nested vmap loops over the outer batch and runs the inner loop per element
        text = jitted.lower(_positive(shape, dtype)).source
        assert "_while_1(" in text and "while active:" in text


def test_a_masked_while_loop_of_converged_elements_and_empty_batches_agrees():
    jitted = astjax.jit(astjax.vmap(newton_sqrt))
    for a in (np.array([4.0, 9.0, 1.0], np.float32), np.ones(5, np.float32), np.zeros(0, np.float32),
              np.array([4.0, np.nan, 2.0], np.float32)[:2]):
        np.testing.assert_array_equal(np.asarray(jitted(a)), np.asarray(astjax.vmap(newton_sqrt)(a)))


def test_a_masked_while_loop_with_a_reduction_inside_keeps_its_masked_form():
    fn = astjax.vmap(steps_to_threshold, in_axes=(0, None))
    jitted = _check(fn, lambda: (_positive((6,), np.float32), _positive((3,), np.float32)), np.float32,
                    rtol=1e-30)
    assert "_while_" not in jitted.lower(_positive((6,), np.float32), _positive((3,), np.float32)).source


def test_a_masked_while_loop_with_one_mask_per_row_keeps_its_masked_form():
    jitted = _check(astjax.vmap(row_newton), lambda: (_positive((3, 4), np.float32),), np.float32, rtol=1e-30)
    assert "_while_" not in jitted.lower(_positive((3, 4), np.float32)).source


# ------------------------------------------------------------------ unbroadcast between equal shapes
def layer_loss(w, x, y):
    return jnp.sum((jnp.tanh(jnp.dot(x, w)) - y) ** 2)


def repeated_sum(x, y):
    """Adjoints that are the spread seed itself (unbroadcast to an equal shape), added into several times."""
    return jnp.sum(x + x + y * x + y)


@pytest.mark.parametrize("dtype", HEAVY_DTYPES)
@pytest.mark.parametrize("dims", [(4, 5, 3)] + ([(1, 5, 1), (3, 1, 2)] if LONG else []))
def test_per_example_gradients_agree(dtype, dims):
    batch, n_in, n_out = dims
    fn = astjax.vmap(astjax.grad(layer_loss), in_axes=(None, 0, 0))
    make = lambda: (_array((n_in, n_out), dtype), _array((batch, n_in), dtype), _array((batch, n_out), dtype))  # noqa: E731
    jitted = _check(fn, make, dtype, rtol=1e-5 if dtype == np.float32 else 1e-12)
    # the batched outer product is one loop writing the output once (tests/test_jit_pervmap.py)
    assert "out[i0, i1, i2] = x0[i0, i1] * x1[i0, i2]" in jitted.lower(*make()).source


@pytest.mark.parametrize("dtype", HEAVY_DTYPES)
def test_adjoints_that_alias_the_seed_are_never_added_into_in_place(dtype):
    make = lambda: (_array((3, 4), dtype), _array((3, 4), dtype))  # noqa: E731
    jitted = _check(astjax.grad(repeated_sum, argnums=(0, 1)), make, dtype)
    x, y = make()
    gx, gy = jitted(x, y)
    np.testing.assert_allclose(np.asarray(gx), 2 + y, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(gy), 1 + x, rtol=1e-6)
