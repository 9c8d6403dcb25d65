"""custom_vjp / custom_jvp with `nondiff_argnums`, as JAX: the rules take the nondiff arguments first and
give cotangents (tangents) of the others only; a value carrying the derivative at a nondiff position is
refused. The fixed point below is the implicit-differentiation example of JAX's custom-derivatives guide,
checked against the closed form and finite differences."""
from functools import partial

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import TransformError


@partial(astjax.custom_vjp, nondiff_argnums=(1,))
def scaled(x, k):
    return x * k


scaled.defvjp(lambda x, k: (x * k, None), lambda k, res, g: (g * k * 10,))


def test_bwd_takes_the_nondiff_argument_first():
    assert float(astjax.grad(lambda x: scaled(x, 2.0))(1.0)) == 20.0            # JAX gives 20.0
    np.testing.assert_allclose(astjax.grad(lambda x: jnp.sum(scaled(x, 3.0)))(jnp.ones(2)), [30.0, 30.0])


def test_a_differentiated_value_at_a_nondiff_position_is_refused():
    with pytest.raises(TransformError, match="nondiff_argnums"):
        astjax.grad(lambda x: scaled(x, x))(1.0)


@partial(astjax.custom_vjp, nondiff_argnums=(0,))
def fixed_point(f, a, x_guess):
    def cond(carry):
        x_prev, x = carry
        return jnp.abs(x_prev - x) > 1e-10

    def body(carry):
        _, x = carry
        return x, f(a, x)

    _, x_star = astjax.lax.while_loop(cond, body, (x_guess, f(a, x_guess)))
    return x_star


def _fixed_point_fwd(f, a, x_init):
    x_star = fixed_point(f, a, x_init)
    return x_star, (a, x_star)


def _fixed_point_rev(f, res, x_star_bar):
    a, x_star = res
    _, vjp_a = astjax.vjp(lambda a: f(a, x_star), a)
    dx = 1.0 / (1.0 - astjax.grad(f, argnums=1)(a, x_star))
    return vjp_a(x_star_bar * dx)[0], 0.0


fixed_point.defvjp(_fixed_point_fwd, _fixed_point_rev)


def newton_sqrt_step(a, x):
    return 0.5 * (x + a / x)


def sqrt_by_fixed_point(a):
    return fixed_point(newton_sqrt_step, a, 1.0)


def test_implicit_differentiation_of_a_fixed_point():
    a = 2.0
    assert abs(float(sqrt_by_fixed_point(a)) - np.sqrt(a)) < 1e-6
    # d sqrt(a) / da = 0.5 / sqrt(a)
    np.testing.assert_allclose(float(astjax.grad(sqrt_by_fixed_point)(a)), 0.5 / np.sqrt(a), rtol=1e-5)


@partial(astjax.custom_jvp, nondiff_argnums=(0,))
def apply_with_rule(fn, x):
    return fn(x)


@apply_with_rule.defjvp
def _apply_jvp(fn, primals, tangents):
    (x,), (t,) = primals, tangents
    return fn(x), 7.0 * t


def test_custom_jvp_rule_takes_the_nondiff_argument_first():
    value, tangent = astjax.jvp(lambda x: apply_with_rule(jnp.sin, x), (1.0,), (2.0,))
    assert abs(float(value) - np.sin(1.0)) < 1e-6 and float(tangent) == 14.0      # JAX: (sin 1, 14)
    assert float(astjax.grad(lambda x: apply_with_rule(jnp.sin, x))(1.0)) == 7.0   # JAX: 7
    with pytest.raises(TransformError, match="nondiff_argnums"):
        astjax.jvp(lambda x: apply_with_rule(x, x), (1.0,), (1.0,))


def test_bad_nondiff_argnums_and_bwd_results_are_clear_errors():
    with pytest.raises(ValueError, match="out of range"):
        astjax.custom_vjp(lambda x: x, nondiff_argnums=(1,))
    with pytest.raises(TypeError, match="integers"):
        astjax.custom_vjp(lambda x, y: x, nondiff_argnums=("y",))
    wrong = astjax.custom_vjp(lambda x, k: x * k, nondiff_argnums=(1,))
    wrong.defvjp(lambda x, k: (x * k, None), lambda k, res, g: (g, g))       # two cotangents for one argument
    with pytest.raises(TypeError, match="1 cotangent"):
        astjax.grad(lambda x: wrong(x, 2.0))(1.0)


def test_custom_rules_of_a_lambda():
    """A custom_vjp made of a lambda is named `<lambda>`: generated code spells it as a name (it was a
    SyntaxError inside astjax)."""
    doubled = astjax.custom_vjp(lambda x: x * 2.0)
    doubled.defvjp(lambda x: (x * 2.0, None), lambda res, g: (g * 5.0,))
    assert float(astjax.grad(lambda x: doubled(x))(1.0)) == 5.0
