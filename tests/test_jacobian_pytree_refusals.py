"""A Jacobian transformed again (jacfwd(jacrev(f)), grad or vmap of jacrev(f)) runs jacobian_source.py's loop
over the entries of one array. With a dict argument it once read the dict as a single entry and returned the
gradient's shapes where JAX returns the Hessian's (a silently wrong result); with a dict output, a raw error.
Now both are refused with an astjax error; the array cases still agree with hessian."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError


def of_params(p):
    return jnp.sum(p["W"] ** 2) * p["U"][0]


def vector_of_params(p):
    return jnp.sum(p["W"] ** 2) * p["U"]


def dict_output(x):
    out = {"a": jnp.sin(x), "b": x * x}
    return out


PARAMS = {"W": np.array([[0.5, -1.0], [2.0, 0.3]]), "U": np.array([1.5, -0.7])}


@pytest.mark.parametrize("compose", [
    lambda f: astjax.jacfwd(astjax.jacrev(f)),
    lambda f: astjax.jacrev(astjax.jacfwd(f)),
    lambda f: astjax.jacrev(astjax.jacrev(f)),
    lambda f: astjax.jacfwd(astjax.jacfwd(f)),
], ids=["jacfwd_jacrev", "jacrev_jacfwd", "jacrev_jacrev", "jacfwd_jacfwd"])
def test_a_jacobian_of_a_jacobian_of_a_dict_argument_is_refused(compose):
    with pytest.raises(AstjaxError, match="takes and returns single arrays, and got a dict"):
        compose(of_params)(PARAMS)


def test_grad_and_vmap_of_a_jacobian_of_a_dict_argument_are_refused():
    with pytest.raises(AstjaxError, match="got a dict"):
        astjax.grad(lambda p: jnp.sum(astjax.jacrev(vector_of_params)(p)["W"]))(PARAMS)
    batch = {"W": np.ones((3, 2, 2)), "U": np.ones((3, 2))}
    with pytest.raises(AstjaxError, match="got a dict"):
        astjax.vmap(astjax.jacrev(vector_of_params))(batch)


def test_a_jacobian_with_a_dict_output_transformed_again_is_refused():
    x = np.array([0.3, -1.2])
    with pytest.raises(AstjaxError, match="got a dict"):
        astjax.jacfwd(astjax.jacrev(dict_output))(x)
    with pytest.raises(AstjaxError, match="got a dict"):
        astjax.jacrev(astjax.jacfwd(dict_output))(x)


def test_the_called_jacobian_and_hessian_of_a_dict_still_work():
    """Called directly (not transformed again) a Jacobian of a pytree is built at the API level."""
    jac = astjax.jacrev(vector_of_params)(PARAMS)
    assert np.shape(jac["W"]) == (2, 2, 2) and np.shape(jac["U"]) == (2, 2)
    hess = astjax.hessian(of_params)(PARAMS)
    assert np.shape(hess["W"]["W"]) == (2, 2, 2, 2) and np.shape(hess["U"]["W"]) == (2, 2, 2)
    np.testing.assert_allclose(hess["U"]["U"], np.zeros((2, 2)))
    np.testing.assert_allclose(hess["W"]["U"][..., 0], 2 * PARAMS["W"])


def test_jacobians_of_arrays_transformed_again_agree_with_hessian():
    def f(x):
        return jnp.sum(jnp.sin(x) * x[0] + x ** 3)
    x = np.array([0.3, -0.8, 1.1])
    expected = astjax.hessian(f)(x)
    for compose in (astjax.jacfwd(astjax.jacrev(f)), astjax.jacrev(astjax.jacfwd(f)),
                    astjax.jacrev(astjax.jacrev(f)), astjax.jacfwd(astjax.jacfwd(f))):
        np.testing.assert_allclose(compose(x), expected, rtol=1e-10, atol=1e-12)
