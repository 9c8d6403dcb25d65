"""custom_vjp patterns from JAX programs: an implicit function whose fwd calls the function itself,
tuple outputs whose cotangent bwd unpacks, and their second derivatives, each against finite
differences or a closed form."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError

from adversarial.harness import fd_grad


@astjax.custom_vjp
def fixed_point(a, x):
    """z = a cos(z) + x, solved by iteration; its derivative by the implicit function theorem."""
    z = x
    for _ in range(60):
        z = a * jnp.cos(z) + x
    return z


def _fixed_point_fwd(a, x):
    z = fixed_point(a, x)            # fwd calls the custom function itself, as JAX programs do
    return z, (a, z)


def _fixed_point_bwd(res, g):
    a, z = res
    dz = 1.0 / (1.0 + a * jnp.sin(z))
    return jnp.sum(g * dz * jnp.cos(z)), g * dz


fixed_point.defvjp(_fixed_point_fwd, _fixed_point_bwd)


def _implicit_loss(x):
    return jnp.sum(fixed_point(0.5, x) ** 2)


@astjax.custom_vjp
def _pair(x):
    return x * 2.0, jnp.sin(x)


def _pair_fwd(x):
    return (x * 2.0, jnp.sin(x)), jnp.cos(x)


def _pair_bwd(cos_x, g):
    g_double, g_sin = g              # a tuple cotangent, unpacked
    return (g_double * 2.0 + g_sin * cos_x,)


_pair.defvjp(_pair_fwd, _pair_bwd)


def _uses_both(x):
    a, b = _pair(x)
    return jnp.sum(a * b)


def _uses_one(x):
    a, b = _pair(x)
    return jnp.sum(jnp.exp(b))       # the first output's cotangent is zeros, as JAX passes it


X = np.array([0.3, -0.5, 0.8])


def _fd(fn, x):
    return fd_grad(fn, (x,), 0)[0]


@pytest.mark.parametrize("fn", [_implicit_loss, _uses_both, _uses_one])
def test_custom_vjp_patterns_match_finite_differences(fn):
    np.testing.assert_allclose(astjax.grad(fn)(X), _fd(fn, X), rtol=1e-6, atol=1e-8)


def test_second_derivative_through_a_tuple_output_custom_vjp():
    """f = sum(2 x sin x): f'' = 4 cos x - 2 x sin x."""
    np.testing.assert_allclose(astjax.hessian(_uses_both)(X), np.diag(4.0 * np.cos(X) - 2.0 * X * np.sin(X)),
                               rtol=1e-10, atol=1e-12)


def test_an_adjoint_of_a_container_cannot_be_iterated():
    from astjax.rules.helpers import TreeAdjoint
    with pytest.raises(AstjaxError, match="cannot be iterated"):
        a, b = TreeAdjoint({0: 1.0})
