"""jit of lax.scan: normalization writes the scan as a loop over xs, checked to be one array
(lax.internal.leading_axis_array); under jit that check is the identity on an array, so the loop compiles.
It was refused ("no Numba lowering for lax_leading_axis_array")."""
import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import lax


def cumulative(w, xs):
    def body(c, x):
        c = c * w + x
        return c, c * c
    c, ys = lax.scan(body, 0.0, xs)
    return c + jnp.sum(ys)


def test_a_scan_compiles_and_agrees_with_the_reference():
    xs = np.array([0.5, -1.0, 2.0])
    for w in (np.float64(0.7), np.float64(-1.3)):
        np.testing.assert_allclose(astjax.jit(cumulative)(w, xs), cumulative(w, xs), rtol=1e-12)
