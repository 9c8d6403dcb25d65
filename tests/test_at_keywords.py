"""`x.at[i]` with JAX's keywords (`mode`, `fill_value`, `indices_are_sorted`, `unique_indices`) and the
`.mul` alias: the values JAX gives, derivatives that honour them, and refusals where a rule is missing.

Found by probing the API against JAX: `.mul(v)` skipped the repeated-position check that `.multiply(v)`
has (grad gave [4, 3.2, 1], the truth is [4, 5.4, 1]), keywords were ignored (`mode="clip"` dropped the
update JAX clamps), and a keyword on `.multiply` skipped the check too.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.backends.numba_cpu import JitError
from astjax.errors import AstjaxError, TransformError

IDX_REPEATED = np.array([0, 0])
IDX_DISTINCT = np.array([0, 2])


def _fd(f, v, h=1e-6):
    v = np.asarray(v, np.float64)
    return np.array([(float(f(jnp.array(v + h * e))) - float(f(jnp.array(v - h * e)))) / (2 * h)
                     for e in np.eye(v.size)])


# --------------------------------------------------------------- values, as JAX gives them (JAX 0.10)
def test_get_modes_match_jax():
    x = jnp.arange(3.0)
    np.testing.assert_array_equal(x.at[np.array([5, -5, 1])].get(mode="clip"), [2.0, 0.0, 1.0])
    np.testing.assert_array_equal(x.at[np.array([5, -5, -1])].get(mode="fill", fill_value=-7), [-7.0, -7.0, 2.0])
    assert np.isnan(x.at[np.array([5, 1])].get(mode="fill")[0])
    assert int(jnp.arange(3).at[5].get(mode="fill")) == np.iinfo(jnp.arange(3).dtype).min
    assert float(jnp.arange(6.0).reshape(2, 3).at[5, -9].get(mode="clip")) == 3.0
    rows = jnp.arange(6.0).reshape(2, 3).at[np.array([0, 4])].get(mode="fill", fill_value=0)
    np.testing.assert_array_equal(rows, [[0.0, 1.0, 2.0], [0.0, 0.0, 0.0]])


def test_update_modes_match_jax():
    x = jnp.arange(3.0)
    np.testing.assert_array_equal(x.at[np.array([5, -5])].set(9.0, mode="clip"), [9.0, 1.0, 9.0])
    np.testing.assert_array_equal(x.at[5].set(9.0), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(x.at[5].set(9.0, mode="fill"), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(x.at[1].add(9.0, mode="promise_in_bounds", indices_are_sorted=True),
                                  [0.0, 10.0, 2.0])
    np.testing.assert_array_equal(x.at[np.array([1, 1])].mul(3.0), [0.0, 9.0, 2.0])


def test_unknown_keyword_and_mode_are_errors():
    x = jnp.arange(3.0)
    with pytest.raises(TypeError, match="foo"):
        x.at[1].set(9.0, foo=1)
    with pytest.raises(ValueError, match="mode"):
        x.at[1].set(9.0, mode="wrap")


# --------------------------------------------------------------- derivatives
@pytest.mark.parametrize("update", [
    lambda v, i: v.at[i].mul(v[1]),
    lambda v, i: v.at[i].multiply(v[1], mode="drop"),
    lambda v, i: v.at[i].multiply(v[1], unique_indices=True),
    lambda v, i: v.at[i].divide(v[1], mode="drop"),
    lambda v, i: v.at[i].min(v[1] * 0.1, mode="fill"),
    lambda v, i: v.at[i].power(v[1], indices_are_sorted=True),
    lambda v, i: v.at[i].set(v[1] * v[2], mode="promise_in_bounds") ** 2,
], ids=["mul", "multiply_mode", "multiply_unique", "divide_mode", "min_mode", "power_sorted", "set_promise"])
def test_keywords_keep_the_derivative_right_and_repeats_refused(update):
    def f(v, i):
        return jnp.sum(update(v, i))

    v = jnp.array([1.1, 2.0, 3.0])
    grad = astjax.grad(f)(v, IDX_DISTINCT)
    np.testing.assert_allclose(grad, _fd(lambda w: f(w, IDX_DISTINCT), v), rtol=1e-5, atol=1e-6)
    with pytest.raises(AstjaxError, match="repeats a position"):
        astjax.grad(f)(v, IDX_REPEATED)


def test_mul_alias_under_jit_of_grad_never_returns_a_number_for_a_repeat():
    """jit either agrees with the reference backend or refuses (today: no Numba lowering of an
    integer-array `part_at`); with a repeated position it never returns a number."""
    def f(v, i):
        return jnp.sum(v.at[i].mul(v[1]))

    v = jnp.array([1.1, 2.0, 3.0])
    compiled = astjax.jit(astjax.grad(f))
    try:
        np.testing.assert_allclose(compiled(v, IDX_DISTINCT), astjax.grad(f)(v, IDX_DISTINCT), rtol=1e-6)
    except JitError:
        pass
    with pytest.raises(AstjaxError):
        compiled(v, IDX_REPEATED)


@pytest.mark.parametrize("call", [
    lambda v: v.at[np.array([5, 1])].set(v[0], mode="clip"),
    lambda v: v.at[np.array([5, 1])].get(mode="fill", fill_value=0.0),
    lambda v: v.at[1].get(mode="clip"),
], ids=["set_clip", "get_fill", "get_clip"])
def test_modes_without_a_rule_are_refused_at_the_users_line(call):
    def f(v):
        return jnp.sum(call(v))

    with pytest.raises(TransformError, match=r"test_at_keywords.py.*\n.*lambda v: v.at"):
        astjax.grad(f)(jnp.array([1.0, 2.0, 3.0]))


def test_unknown_keyword_is_refused_under_a_transformation():
    def f(v):
        return jnp.sum(v.at[1].set(v[0], foo=True))

    with pytest.raises(TransformError, match="unexpected keyword argument `foo`"):
        astjax.grad(f)(jnp.array([1.0, 2.0, 3.0]))
