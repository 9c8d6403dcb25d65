"""astjax.numpy's index tricks (mgrid, ogrid, r_, c_, s_, index_exp, euler_gamma): NumPy's values, JAX's dtypes,
and a refusal under a derivative when the index carries one."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError


def test_values_are_numpys_and_dtypes_are_jaxs():
    np.testing.assert_array_equal(jnp.mgrid[0:2, 0:3], np.mgrid[0:2, 0:3])
    assert jnp.mgrid[0:2, 0:3].dtype == np.int32 and jnp.mgrid[0:1:3j].dtype == np.float32
    assert [a.shape for a in jnp.ogrid[0:2, 0:3]] == [(2, 1), (1, 3)]
    np.testing.assert_array_equal(jnp.r_[1.0, 2, np.array([3.0])], [1.0, 2.0, 3.0])
    assert jnp.r_[1.0, 2].dtype == np.float32 and jnp.r_[0:3].dtype == np.int32
    assert jnp.r_[np.ones(2, np.float32), 2.0].dtype == np.float32
    assert jnp.r_[np.ones(2), 2.0].dtype == np.float64          # a float64 array stays float64 in astjax
    assert jnp.r_["0,2", [1, 2], [3, 4]].shape == (2, 2)
    np.testing.assert_array_equal(jnp.c_[np.ones(2), np.zeros(2)], np.c_[np.ones(2), np.zeros(2)])
    assert jnp.s_[1:3] == slice(1, 3) and jnp.index_exp[1:3] == (slice(1, 3),)
    assert jnp.euler_gamma == np.euler_gamma


def concatenated(x):
    return jnp.sum(jnp.r_[x, 2 * x] ** 2)


def constant_grid(x):
    return jnp.sum(jnp.mgrid[0:3] * x) + jnp.sum(x[jnp.s_[0:1]])


def test_a_grid_of_constants_under_grad():
    assert float(astjax.grad(constant_grid)(np.float64(2.0)[None])[0]) == 4.0


def test_an_index_that_carries_a_derivative_is_refused():
    with pytest.raises(AstjaxError, match="r_"):
        astjax.grad(concatenated)(np.float64(2.0))
