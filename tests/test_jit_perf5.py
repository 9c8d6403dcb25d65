"""jit compile-time work of perf5: allocations written inline, `n // 2` without a checking helper, pad's
clamps as selects, fused multiply-adds inside fast_exp. Small shapes, few compiles; see docs/performance.md
("perf5").
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


def test_allocation_intrinsics_match_numpy():
    """empty_array, zeros_array and zeros_like_array: NumPy's shapes, dtypes, C order and zeros, and its
    ValueError for a negative dimension (runtime/numba_allocate.py)."""
    import numba
    from astjax.runtime.numba_allocate import empty_array, zeros_array, zeros_like_array

    @numba.njit
    def make(n, m, x):
        a = empty_array((n, m), np.float32)
        b = zeros_array((n, m), x.dtype)
        c = zeros_array(n, np.int64)
        return a, b, c, zeros_like_array(x), zeros_like_array(2.5)

    x = np.arange(6, dtype=np.float64).reshape(2, 3)[:, ::2]          # a strided view: the result is C order
    a, b, c, d, e = make(3, 4, x)
    assert a.shape == (3, 4) and a.dtype == np.float32 and a.flags.c_contiguous
    assert b.dtype == np.float64 and not b.any() and c.dtype == np.int64 and c.shape == (3,) and not c.any()
    assert d.shape == (2, 2) and d.dtype == np.float64 and d.flags.c_contiguous and not d.any()
    assert e.shape == () and e.dtype == np.float64 and e == 0
    with pytest.raises(ValueError, match="negative dimensions"):
        make(-1, 2, x)


def halves_and_remainders(x):
    n = x.shape[0] - 7
    return x * (n // 2) + (n % 3) + x.shape[0] // 4


def test_floor_division_by_a_positive_literal_is_the_plain_operator():
    """`n // 2` and `n % 3` of a Python int: Python's floor and sign rules (n = -4 here), no py_floordiv."""
    jitted = astjax.jit(halves_and_remainders)
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(jitted(x), halves_and_remainders(x))      # -2 * x + 2 + 0
    text = jitted.lower(x).source
    assert "py_floordiv" not in text and "py_mod" not in text and "n // 2" in text, text


def divided_by_a_count(x, k):
    return x * (x.shape[0] // k)


def test_floor_division_by_a_variable_still_refuses_zero():
    with pytest.raises(ZeroDivisionError):
        astjax.jit(divided_by_a_count)(np.ones(3, np.float32), 0)


def padded_sum(x):
    return jnp.sum(jnp.pad(x, ((2, 3), (1, 2)), mode="edge") * 2.0) + jnp.sum(jnp.pad(x[0], ((3, 1),), mode="edge"))


def test_pad_and_matrix_product_compile_no_numpy_allocation_function():
    """Numba's np.empty/np.zeros are overloads compiled per caller's flags; pad and gemm allocate inline.
    An empty inner dimension gives zeros."""
    import numba
    from numba.core import event
    from astjax.runtime.numba_gemm import matrix_product

    compiled = []

    class Names(event.Listener):
        def on_start(self, ev):
            compiled.append(getattr(getattr(ev.data.get("dispatcher"), "py_func", None), "__qualname__", ""))

        def on_end(self, ev):
            pass

    @numba.njit
    def products(a, b, c, d):
        return matrix_product(a, b, False, False), matrix_product(c.T.copy(), d, True, False)

    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 5)).astype(np.float32)
    with event.install_listener("numba:compile", Names()):
        got_pad = astjax.jit(padded_sum)(x)
        empty, full = products(x[:, :0], x[:0], x, x.T.copy())
    np.testing.assert_allclose(got_pad, padded_sum(x), rtol=1e-6)
    assert empty.shape == (4, 5) and not empty.any()
    np.testing.assert_allclose(full, x @ x.T, rtol=1e-5)
    allocations = [n for n in compiled if n.startswith(("ol_np_empty", "ol_np_zeros", "ol_np_ones"))]
    assert not allocations, compiled


def padded_by(x, a):
    return jnp.pad(x, ((a, a), (a, a)), mode="edge")


def test_pad_by_negative_widths_on_a_later_call_raises():
    """The widths are run-time ints of one signature: a later call with negative widths returned a
    cropped array from compiled code (the reference raises NumPy's ValueError); now it raises too."""
    jitted = astjax.jit(padded_by)
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    np.testing.assert_array_equal(jitted(x, 2), np.pad(x, 2, mode="edge"))
    with pytest.raises(ValueError, match="negative"):
        jitted(x, -1)
