"""jit's vectorizable exp against NumPy's, with the stated error bounds (float32: 3 ulp, float64: 1 ulp)."""
import numpy as np
import pytest

numba = pytest.importorskip("numba")

from astjax.jit.fast_math import fast_exp  # noqa: E402


@numba.njit(error_model="numpy")
def _apply(x):
    out = np.empty_like(x)
    for i in range(x.size):
        out[i] = fast_exp(x[i])
    return out


@pytest.mark.parametrize("dtype, low, high, bound", [(np.float32, -110.0, 90.0, 3.0), (np.float64, -750.0, 712.0, 1.0)])
def test_fast_exp_within_its_ulp_bound(dtype, low, high, bound):
    x = np.concatenate([np.linspace(low, high, 200_001).astype(dtype),
                        np.random.default_rng(0).normal(scale=5.0, size=20_000).astype(dtype)])
    got = _apply(x)
    with np.errstate(over="ignore", under="ignore"):
        want = np.exp(x)
    assert got.dtype == dtype
    finite = np.isfinite(want)
    error = np.abs(got[finite].astype(np.float64) - want[finite].astype(np.float64))
    assert np.max(error / np.spacing(np.abs(want[finite])).astype(np.float64)) <= bound
    np.testing.assert_array_equal(got[~finite], want[~finite])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fast_exp_of_special_values(dtype):
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e4, -1e4], dtype)
    got = _apply(x)
    assert np.isnan(got[0]) and got[1] == np.inf and got[2] == 0.0
    np.testing.assert_array_equal(got[3:], np.array([1.0, 1.0, np.inf, 0.0], dtype))
