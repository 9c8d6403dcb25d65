"""jit of what ran without jit but was refused under it (issue 7, continued): each compiles and agrees with
the reference backend (no jit) and, for derivatives, with central finite differences; later calls run the
compiled code alone.

1. Runtime helpers that had no Numba lowering: cumprod_adjoint and cumprod_tangent (jit(grad), jit(jacfwd)
   of jnp.cumprod), jnp.nancumsum and jnp.nancumprod, np.maximum.accumulate / lax.cummin and their
   derivatives (cumulative_argext, scatter_along, gather_along; a tie runs the reference, which refuses it),
   array_adjoint (jit(grad) of
   jnp.copy and of jnp.array of a list variable), not_a_view (`a[i], a[j] = a[j], a[i]`), and vmap's
   batch_take_index (vmap of `x[i]` with a batched index), batch_pad_width, axis_pad and diff_kept;
2. `.at[]` updates with an index of integers and slices (`x.at[0, 1:3].set(v)`, `x.at[i, :].add(v)`) under
   jit and jit(grad), an integer out of range dropped or raised exactly where the reference drops or raises;
3. `where(c, 0.1, 0.2)` of Python floats: float64 for NumPy's where, float32 for astjax's, as without jit.

Shapes are small and float64 throughout; each compiled function is built once. Numba's compiles cost seconds
each, so the default profile runs the mixed index and where; ASTJAX_LONG_PROPERTIES=1 runs all.
"""
import numpy as np
import pytest
from finite_differences import central_difference, jit_gradient_agrees
from sampling import LONG

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.errors import RuntimeRefusal

long_only = pytest.mark.skipif(not LONG, reason="Numba compiles of several seconds: ASTJAX_LONG_PROPERTIES=1")




def _same_values(f, calls):
    """jit(f) on each call against f run without jit (a sum to rounding, the same dtype)."""
    compiled = astjax.jit(f)
    for call in calls:
        got, want = np.asarray(compiled(*call)), np.asarray(f(*call))
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)
    return compiled


X = jnp.asarray(np.array([[0.5, -1.2, 2.0, 0.7], [0.1, 1.5, 0.2, -0.3], [1.1, 0.4, 0.9, 1.3]]))


# ------------------------------------------------------------------ 2. .at[] of integers and slices
def row_added(x, v, i):
    y = jnp.asarray(x).at[i, :].add(v * x[1, 0])
    return jnp.sum(y * y)


def middle_set(x, v):
    y = jnp.asarray(x).at[0, 1:3].set(v)
    return jnp.sum(jnp.sin(y) * y)


def column_set(x, v, i):
    return jnp.asarray(x).at[:, i].set(v)


def test_jit_of_grad_of_at_with_integers_and_slices_agrees():
    """A row `x.at[i, :]` (i out of range raises IndexError with and without jit: NumPy's index there)."""
    v = np.array([1.0, -2.0, 0.5, 3.0])
    compiled = jit_gradient_agrees(row_added, [(X, v, 2), (X * 0.5, v, -1)])
    for bad in (3, -4):
        with pytest.raises(IndexError):
            astjax.grad(row_added)(X, v, bad)
        with pytest.raises(IndexError):
            compiled(X, v, bad)


@long_only
def test_jit_of_at_with_integers_and_slices_agrees():
    """`x.at[0, 1:3]` with respect to both operands, and `x.at[:, i]` whose i out of range is dropped, as the
    reference (and JAX) drop it."""
    jit_gradient_agrees(middle_set, [(X, np.array([1.0, 2.0])), (X * -1.5, np.array([0.3, -0.4]))])
    jit_gradient_agrees(middle_set, [(X, np.array([1.0, 2.0]))], argnum=1)
    column = np.array([9.0, 8.0, 7.0])
    _same_values(middle_set, [(X, np.array([1.0, 2.0]))])
    _same_values(column_set, [(X, column, 1), (X, column, -1), (X, column, 4), (X, column, -5)])


# ------------------------------------------------------------------ 1. cumprod's derivatives
def products_along_rows(x):
    return jnp.sum(jnp.cumprod(x, axis=1) ** 2)


def products_flat(x):
    return jnp.sum(jnp.cos(jnp.cumprod(x)))


def running_products(x):
    return jnp.cumprod(x, axis=0)


@long_only
def test_jit_of_grad_and_jacfwd_of_cumprod_agrees():
    """Exact at zeros, as the reference's products that skip one factor are."""
    zeros = np.array([[0.5, -1.2, 2.0, 0.7], [0.0, 1.5, 0.0, -0.3], [1.1, 0.0, 0.9, 1.3]])
    jit_gradient_agrees(products_along_rows, [(zeros,), (zeros * -0.7,), (np.ones((2, 5)),)])
    jit_gradient_agrees(products_flat, [(zeros,), (zeros[:2] * 0.3,)])
    forward = astjax.jit(astjax.jacfwd(running_products))
    for x in (zeros, zeros * 1.3):
        np.testing.assert_allclose(forward(x), astjax.jacfwd(running_products)(x), rtol=1e-12, atol=1e-14)


def skipping_nan_sums(x):
    return jnp.sum(jnp.nancumsum(x, axis=0) ** 2)


def skipping_nan_products(x):
    return jnp.sum(jnp.sin(jnp.nancumprod(x, axis=1)))


@long_only
def test_jit_of_nan_skipping_running_sums_and_products_and_their_gradients_agrees():
    with_nans = np.array([[0.5, np.nan, 2.0, 0.7], [0.1, 1.5, 0.2, -0.3], [np.nan, 0.4, 0.9, 1.3]])
    for f in (skipping_nan_sums, skipping_nan_products):
        compiled = astjax.jit(astjax.grad(f))
        for x in (with_nans, with_nans * -0.5):
            np.testing.assert_allclose(compiled(x), astjax.grad(f)(x), rtol=1e-12, atol=1e-14)
        filled = np.nan_to_num(with_nans, nan=0.3)
        np.testing.assert_allclose(compiled(filled), central_difference(f, (filled,), 0), rtol=1e-5, atol=1e-7)
    _same_values(lambda x: jnp.nancumprod(x), [(with_nans,), (with_nans.astype(np.float32),)])


# ------------------------------------------------------------------ 1. running extrema
def running_max(x):
    return np.maximum.accumulate(x)


def running_max_loss(x):
    return jnp.sum(np.maximum.accumulate(x) ** 2 * jnp.sin(x))


def running_min_loss(x):
    return jnp.sum(jnp.exp(lax.cummin(x, axis=1, reverse=True)))


@long_only
def test_jit_of_running_extrema_and_their_gradients_agrees():
    """NaN propagates and an int array keeps its dtype, as NumPy's; a tie met by compiled code runs the
    reference, which refuses it."""
    _same_values(running_max, [(np.asarray(X),), (np.array([1.0, np.nan, 3.0, 0.5]),)])
    _same_values(running_max, [(np.array([1, 5, 3, 7], np.int32),)])
    x = np.array([0.5, -1.2, 2.0, 0.7, 3.0])
    compiled = jit_gradient_agrees(running_max_loss, [(x,), (x * -0.7,)])
    with pytest.raises(RuntimeRefusal, match="tie"):
        compiled(np.array([1.0, 2.0, 2.0, 0.5, 0.1]))
    jit_gradient_agrees(running_min_loss, [(np.asarray(X),), (np.asarray(X) * -2.0,)])


# ------------------------------------------------------------------ 1. array_adjoint, not_a_view
def copied(x):
    return jnp.sum(jnp.sin(jnp.copy(x)) * x)


def rows_of_a_list(x, n):
    rows = [jnp.sin(x * k) for k in range(n)]
    return jnp.sum(jnp.array(rows) ** 2)


def swapped(x, k):
    a = np.array(x)
    source = a * 1.0 if k < 0 else a
    a[0], a[1] = source[1], source[0]
    return a


@long_only
def test_jit_of_array_adjoint_and_tuple_assignment_agrees():
    x = np.array([0.5, -1.2, 2.0])
    jit_gradient_agrees(copied, [(x,), (x * 2.0,)])
    jit_gradient_agrees(rows_of_a_list, [(x, 3), (x * -0.5, 2)])
    compiled = _same_values(swapped, [(np.asarray(X), -1)])
    with pytest.raises(RuntimeRefusal, match="view"):     # rows of `a` itself: the reference refuses them
        compiled(np.asarray(X), 1)


# ------------------------------------------------------------------ 1. vmap's index and pad helpers
def doubled_row(x, i):
    return x[i] * 2.0


def padded(x):
    return jnp.pad(x, 1) * 2.0


def squared_differences(x):
    return jnp.sum(jnp.diff(x) ** 2)


@long_only
def test_jit_of_vmap_of_batched_indices_pads_and_diff_gradients_agrees():
    B = np.asarray(X)
    cube = np.arange(24.0).reshape(2, 3, 4) / 7 - 1.0
    for f, calls in ((astjax.vmap(doubled_row, in_axes=(None, 0)), [(B, np.array([0, 2])), (B, np.array([-1]))]),
                     (astjax.vmap(doubled_row), [(cube, np.array([0, 2])), (cube * 2.0, np.array([1, -1]))]),
                     (astjax.vmap(padded), [(B,), (cube,)]),
                     (astjax.vmap(astjax.grad(squared_differences)), [(B,), (B * 3.0,)])):
        compiled = astjax.jit(f)
        for call in calls:
            np.testing.assert_allclose(compiled(*call), f(*call), rtol=1e-12, atol=1e-14)
    with pytest.raises(IndexError):
        astjax.jit(astjax.vmap(doubled_row))(cube, np.array([0, 3]))


# ------------------------------------------------------------------ weak floats in where
def numpy_where(x):
    return np.where(x > 0, 0.1, 0.2) * x


def astjax_where(x):
    c = x > 0
    return jnp.where(c, 0.1, 0.2) * x


def test_jit_of_where_of_python_floats_keeps_numpy_float64_and_jax_float32():
    """NumPy's where makes 0.1 a float64 and astjax's (JAX's) a float32: compiled code had rounded NumPy's to
    float32 (relative 1.5e-8, inside the first call's 1e-7 check: silently)."""
    x = np.array([1.0, -2.0, 3.0])
    for f in (numpy_where, astjax_where):
        np.testing.assert_array_equal(astjax.jit(f)(x), f(x))
    assert np.asarray(numpy_where(x))[0] == 0.1 and np.asarray(astjax_where(x))[0] == np.float32(0.1)
