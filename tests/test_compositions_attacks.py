"""Compositions of transformations on programs from the compositions corpus
(tests/adversarial/compositions.py), pinned against numbers JAX gives (x64), so that a
change of semantics under composition shows up here and not only as a finite-difference mismatch.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax


def stop_gradient_on_carry(x):
    s = x[0]
    for i in range(3):
        s = lax.stop_gradient(s) * 0.5 + x[i] * s
    return s


# jax.hessian(stop_gradient_on_carry)(x) with jax_enable_x64: stop_gradient also blocks the outer
# derivative, so this is not the Jacobian of the first-order gradient formula.
_X = np.array([0.3, -0.7, 0.5])
_H_JAX = np.array([[-0.7, 0.3, -0.42],
                   [0.3, 0.0, 0.24],
                   [-0.42, 0.24, 0.0]])


@pytest.mark.parametrize("second", ["hessian", "jacfwd(grad)", "jacrev(grad)"])
def test_stop_gradient_second_order_follows_jax(second):
    make = {"hessian": astjax.hessian,
            "jacfwd(grad)": lambda f: astjax.jacfwd(astjax.grad(f)),
            "jacrev(grad)": lambda f: astjax.jacrev(astjax.grad(f))}[second]
    np.testing.assert_allclose(make(stop_gradient_on_carry)(_X), _H_JAX, atol=1e-12)


def straight_through(x):
    q = jnp.round(x * 4.0) / 4.0
    y = x + lax.stop_gradient(q - x)
    return jnp.sum(y * y * x)


def test_straight_through_hessian_follows_jax():
    x = np.array([0.31, -0.62, 0.9])
    # JAX: diag(2 x + 4 q), q = round(4 x) / 4
    np.testing.assert_allclose(astjax.hessian(straight_through)(x), np.diag([1.62, -3.24, 5.8]), atol=1e-12)


def while_until_large(x):
    def cond_fun(c):
        return c[0] < 5.0
    def body(c):
        v, s = c
        return (v * 1.5, s + jnp.sin(v))
    v, s = lax.while_loop(cond_fun, body, (x[0], 0.0))
    return s * x[1] + v


def test_vmap_of_while_loop_members_stop_at_their_own_trip_count():
    # the batch members leave the loop after 5, 3 and 2 trips
    xs = np.array([[0.7, 0.5], [1.3, 0.6], [3.0, -0.2]])
    np.testing.assert_allclose(astjax.vmap(while_until_large)(xs), [6.72705584, 7.27709092, 6.91728202], rtol=1e-8)
    try:
        jac = astjax.vmap(astjax.jacfwd(while_until_large))(xs)
    except astjax.errors.AstjaxError:
        return  # a clear refusal is allowed; a wrong number is not
    np.testing.assert_allclose(jac, [[4.81457365, 2.82286168], [2.92499156, 1.15973487],
                                     [2.51123724, -0.83641011]], rtol=1e-7)


def last_of_list(x):
    hs = [x, x * 2.0]
    y = hs[-1]
    return jnp.sum(y ** 3)


def test_reverse_over_reverse_reads_a_negative_list_index():
    # Was silently zero: the transpose of index_adjoint read key -1 of the list's adjoint (keyed 1).
    x = np.array([0.5, -1.0])
    truth = np.diag(48.0 * x)
    for second in (astjax.hessian, lambda f: astjax.jacrev(astjax.grad(f)), lambda f: astjax.jacfwd(astjax.grad(f))):
        np.testing.assert_allclose(second(last_of_list)(x), truth, atol=1e-12)


def rnn_list_of_states(Wh, xs):
    hs = [jnp.zeros(3)]
    for x in xs:
        hs.append(jnp.tanh(Wh @ hs[-1] + x))
    return jnp.sum(jnp.stack(hs[1:]) * xs)


def scan_tuple_carry(x):
    def step(c, xi):
        h, s = c
        h = jnp.tanh(0.7 * h + xi)
        return (h, s + h * h), h * 2.0
    (h, s), ys = lax.scan(step, (0.0, 0.0), x)
    return s + jnp.sum(ys * x) + h


def test_reverse_over_reverse_through_list_and_tuple_carries():
    # Crashed with IndexError (a bare zero adjoint indexed as a list's adjoint).
    r = np.random.default_rng(1)
    W, xs = r.uniform(-1, 1, (3, 3)) * 0.5, r.uniform(-1, 1, (3, 3))
    np.testing.assert_allclose(astjax.jacrev(astjax.grad(rnn_list_of_states))(W, xs),
                               astjax.jacfwd(astjax.grad(rnn_list_of_states))(W, xs), rtol=1e-7, atol=1e-9)
    x = np.array([0.3, -0.2, 0.5, 0.1])
    np.testing.assert_allclose(astjax.jacrev(astjax.grad(scan_tuple_carry))(x),
                               astjax.jacfwd(astjax.grad(scan_tuple_carry))(x), rtol=1e-6)


def test_index_adjoint_keeps_the_primal_float64():
    from astjax.rules.helpers import index_adjoint
    out = index_adjoint(np.zeros(3), 1, 2.123456789123)
    assert np.result_type(out) == np.float64 and float(np.asarray(out)[1]) == 2.123456789123
    assert np.result_type(index_adjoint(np.zeros(3, np.float32), 1, 2.5)) == np.float32
