"""One comparison of a computed array with an expected one, for the batteries that check derivatives.

The absolute tolerance scales with the largest finite expected entry (a derivative of size 1e4 is
compared at 1e4 times the tolerance of one of size 1). Infinite entries are left out of that scale
(one would make the tolerance infinite and pass any number) and must match exactly, sign and place;
NaN must meet NaN.
"""
import numpy as np

__all__ = ["assert_scaled_close"]


def assert_scaled_close(actual, expected, rtol, atol, what):
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    finite = np.abs(expected[np.isfinite(expected)])
    scale = max(1.0, float(np.max(finite))) if finite.size else 1.0
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol * scale, err_msg=what)
