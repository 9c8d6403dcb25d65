"""Compositions of jacfwd/jacrev/grad/hessian/jvp/vjp, checked against finite differences and each other."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import grad, hessian, jacfwd, jacrev, jvp, value_and_grad, vjp

X = np.array([0.3, 0.7, 1.1])


def f(x):
    return jnp.sin(x) * x[0] + x ** 3


def scalar(x):
    return jnp.sum(jnp.sin(x) * x[0] + x ** 3)


def two_args(x, y):
    return jnp.tanh(x * y) + x ** 2


def pair(x):
    return jnp.sin(x), x[0] * x


def numerical_jacobian(fn, x, h=1e-6):
    """Central differences in float64: shape fn(x).shape + x.shape."""
    x = np.asarray(x, dtype=np.float64)
    columns = []
    for k in range(x.size):
        step = np.zeros(x.size)
        step[k] = h
        step = step.reshape(x.shape)
        columns.append((np.asarray(fn(x + step), dtype=np.float64) - np.asarray(fn(x - step), dtype=np.float64))
                       / (2 * h))
    out = np.stack(columns, axis=-1)
    return out.reshape(np.shape(fn(x)) + x.shape)


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), rtol=tol, atol=tol)


@pytest.mark.parametrize("outer", [jacfwd, jacrev])
@pytest.mark.parametrize("inner", [jacfwd, jacrev])
def test_second_jacobians_match_finite_differences(outer, inner):
    truth = numerical_jacobian(lambda x: np.asarray(jacrev(f)(x)), X)
    close(outer(inner(f))(X), truth)


def test_the_four_second_jacobians_agree():
    results = [o(i(f))(X) for o in (jacfwd, jacrev) for i in (jacfwd, jacrev)]
    for r in results[1:]:
        close(r, results[0], 1e-10)


def test_third_order_composition():
    truth = numerical_jacobian(lambda x: np.asarray(jacfwd(jacrev(f))(x)), X)
    close(jacrev(jacfwd(jacrev(f)))(X), truth, 1e-4)


def test_jacobian_of_second_argument_and_of_both():
    y = np.array([0.5, -0.4, 0.9])
    jy = jacfwd(jacrev(two_args, argnums=1), argnums=1)(X, y)
    truth = numerical_jacobian(lambda v: np.asarray(jacrev(two_args, argnums=1)(X, v)), y)
    close(jy, truth)
    jx = jacrev(jacfwd(two_args, argnums=1), argnums=0)(X, y)
    close(jx, numerical_jacobian(lambda v: np.asarray(jacfwd(two_args, argnums=1)(v, y)), X))
    both = jacrev(two_args, argnums=(0, 1))(X, y)
    close(both[0], numerical_jacobian(lambda v: two_args(v, y), X))
    close(both[1], numerical_jacobian(lambda v: two_args(X, v), y))


@pytest.mark.parametrize("inside", [
    lambda x: jnp.sum(jacrev(f)(x) ** 2),
    lambda x: jnp.sum(jacfwd(f)(x) ** 2),
    lambda x: jnp.sum(hessian(scalar)(x)),
    lambda x: jnp.sum(grad(scalar)(x) ** 2),
], ids=["jacrev", "jacfwd", "hessian", "grad"])
def test_grad_of_a_function_calling_a_transformation(inside):
    g = grad(inside)(X)
    close(g, numerical_jacobian(lambda x: np.asarray(inside(x)), X))
    # forward mode agrees with reverse mode
    close(jvp(inside, (X,), (np.ones(3),))[1], np.sum(np.asarray(g)), 1e-8)


def test_jvp_and_vjp_of_grad_match_the_hessian():
    h = hessian(scalar)(X)
    close(h, numerical_jacobian(lambda x: np.asarray(grad(scalar)(x)), X))
    v = np.array([1.0, -2.0, 0.5])
    close(jvp(grad(scalar), (X,), (v,))[1], np.asarray(h) @ v, 1e-8)
    close(vjp(grad(scalar), X)[1](v)[0], v @ np.asarray(h), 1e-8)


def test_jacobians_of_a_tuple_output_are_a_tuple():
    for jac in (jacfwd, jacrev):
        result = jac(pair)(X)
        assert isinstance(result, tuple) and len(result) == 2
        close(result[0], numerical_jacobian(lambda x: pair(x)[0], X))
        close(result[1], numerical_jacobian(lambda x: pair(x)[1], X))


def test_vjp_of_a_tuple_output():
    out, pullback = vjp(pair, X)
    ct = (np.array([1.0, 2.0, 3.0]), np.array([-1.0, 0.5, 2.0]))
    (g,) = pullback(ct)
    truth = ct[0] @ numerical_jacobian(lambda x: pair(x)[0], X) + ct[1] @ numerical_jacobian(lambda x: pair(x)[1], X)
    close(g, truth)
    with pytest.raises(ValueError, match="structure"):
        pullback(np.ones(3))


def with_aux(x):
    return jnp.sin(x) * x[1], jnp.sum(x)


@pytest.mark.parametrize("jac", [jacfwd, jacrev])
def test_jacobian_has_aux(jac):
    jacobian, aux = jac(with_aux, has_aux=True)(X)
    close(jacobian, numerical_jacobian(lambda x: with_aux(x)[0], X))
    close(aux, np.sum(X))


def test_float32_stays_float32_through_compositions():
    x = X.astype(np.float32)
    assert jacfwd(jacrev(f))(x).dtype == np.float32
    assert jacrev(jacfwd(f))(x).dtype == np.float32


def test_source_of_a_jacobian_shows_generated_code():
    assert "def " in astjax.source(jacrev(f)) and "def " in astjax.source(jacfwd(f))


@pytest.mark.parametrize("outer", [jacfwd, jacrev, grad])
def test_a_jacobian_of_a_tuple_output_transformed_again_is_refused(outer):
    inner = jacfwd(pair)
    fn = (lambda x: jnp.sum(inner(x)[0])) if outer is grad else inner
    with pytest.raises(astjax.errors.TransformError, match="returns a tuple"):
        outer(fn)(X)


class Model:
    def __init__(self):
        self.w = np.array([1.0, 2.0, 3.0])

    def predict(self, x):
        return jnp.sin(x * self.w)


def test_compositions_of_a_method_and_of_tuple_argnums():
    model = Model()
    close(jacrev(jacfwd(model.predict))(X), numerical_jacobian(lambda x: np.asarray(jacfwd(model.predict)(x)), X))
    inside = lambda x: jnp.sum(jacrev(model.predict)(x) ** 2)
    close(grad(inside)(X), numerical_jacobian(lambda x: np.asarray(inside(x)), X))
    y = np.array([0.5, -0.4, 0.9])
    both = jacfwd(jacrev(two_args, argnums=(0, 1)))(X, y)
    assert isinstance(both, tuple) and len(both) == 2
    for k in range(2):
        close(both[k], numerical_jacobian(lambda x: np.asarray(jacrev(two_args, argnums=(0, 1))(x, y)[k]), X))


def test_generated_zero_like_is_a_primitive_without_derivative():
    """A fourth derivative through a loop differentiates third-order code that calls zero_like; it must
    meet it as a primitive with no derivative, not read it as user code (which failed inside astjax)."""
    from astjax.rules import helpers, lookup_callable
    primitive = lookup_callable(helpers.zero_like)
    assert primitive is not None and not primitive.differentiable


def cube_of_sine(x):
    return jnp.sum(jnp.sin(x) ** 3)


def third_derivative_of_cube_of_sine(x):
    s, c = np.sin(x), np.cos(x)
    truth = np.zeros((x.size,) * 3)
    for i in range(x.size):
        truth[i, i, i] = 6 * c[i] ** 3 - 21 * s[i] ** 2 * c[i]
    return truth


@pytest.mark.parametrize("chain", ["fff", "rff", "ffr", "frf", "rfr", "rrr", "frr"])
def test_third_order_jacobians(chain):
    fn = cube_of_sine
    for letter in reversed(chain):
        fn = (jacfwd if letter == "f" else jacrev)(fn)
    x = np.array([0.2, 0.4])
    close(fn(x), third_derivative_of_cube_of_sine(x), 1e-10)


def nested_tuple_inside(x):
    t = ((x, x * 2.0), x * 3.0)
    return t[0][1] + t[1]


def nested_tuple_output(x):
    return (x * 2.0, x), (x * 5.0, x)


def test_nested_tuples_carry_derivatives_in_both_modes():
    x = np.float64(1.0)
    close(grad(nested_tuple_inside)(x), 5.0, 1e-12)
    close(jvp(nested_tuple_inside, (x,), (1.0,))[1], 5.0, 1e-12)
    _, pullback = vjp(nested_tuple_output, x)
    close(pullback(((1.0, 0.0), (1.0, 0.0)))[0], 7.0, 1e-12)
    close(pullback(((0.0, 1.0), (0.0, 1.0)))[0], 2.0, 1e-12)
    tangent = jvp(nested_tuple_output, (x,), (1.0,))[1]
    close(tangent[0][0], 2.0, 1e-12)
    close(tangent[1][0], 5.0, 1e-12)


def split_pair(p):
    return p[0], p[1]


def uses_split_pair(p):
    a, b = split_pair(p)
    return jnp.sin(a) * b ** 2


def test_hessian_through_a_helper_returning_a_tuple():
    """Forward over reverse: the tangent of a tuple's adjoint must stay a container (it read as zeros)."""
    p = np.array([0.3, 0.7])
    truth = numerical_jacobian(lambda v: np.asarray(grad(uses_split_pair)(v)), p)
    close(hessian(uses_split_pair)(p), truth)
    close(jacfwd(grad(uses_split_pair))(p), truth)
    close(jvp(grad(uses_split_pair), (p,), (np.array([1.0, -1.0]),))[1], truth @ np.array([1.0, -1.0]))
