"""Python's own semantics on astjax values: builtins over arrays, rounding protocols.

Each test pins a fix found by tests/adversarial/semantics.py.
"""
import functools
import math
import operator

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.array import Array
from astjax.errors import TransformError


def _fd_grad(f, x, h=1e-6):
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += h
        down[idx] -= h
        g[idx] = (f(up) - f(down)) / (2 * h)
    return g


# ------------------------------------------------- the builtin sum iterating an array
def sum_of_vector(x):
    return sum(x) ** 3


def sum_of_rows(A):
    return jnp.sum(sum(A) ** 2 * jnp.array([1.0, 2.0, 3.0]))


def sum_of_slabs(T):
    return jnp.sum(jnp.sin(sum(T)))


@pytest.mark.parametrize("f, shape", [(sum_of_vector, (3,)), (sum_of_rows, (2, 3)), (sum_of_slabs, (2, 3, 2))])
def test_builtin_sum_of_an_array_has_an_array_gradient(f, shape):
    """`sum(A)` adds A's rows: its adjoint is the result's in every row (it used to be list-shaped: a crash)."""
    x = np.linspace(0.1, 0.9, int(np.prod(shape))).reshape(shape)
    g = astjax.grad(f)(x)
    assert isinstance(g, Array) and g.shape == shape and g.dtype == np.float64
    np.testing.assert_allclose(g, _fd_grad(f, x), rtol=1e-6, atol=1e-8)
    _, t = astjax.jvp(f, (x,), (np.ones(shape),))
    np.testing.assert_allclose(t, np.sum(g), rtol=1e-6)
    H = astjax.hessian(f)(x)
    np.testing.assert_allclose(astjax.jacfwd(astjax.grad(f))(x), H, rtol=1e-6, atol=1e-9)
    assert astjax.grad(f)(x.astype(np.float32)).dtype == np.float32


# ------------------------------------------------- round() and math.trunc() of an array item
def round_and_trunc_of_items(x):
    return round(x[0], 1) * x[1] + round(x[1]) + math.trunc(x[2]) * x[0]


def test_round_and_trunc_of_an_item_work_as_on_numpy_scalars():
    """A NumPy argument's item is a NumPy scalar (it has __round__ / __trunc__); astjax's 0-d array too."""
    x = np.array([0.37, 0.61, 2.7])
    value, g = astjax.value_and_grad(round_and_trunc_of_items)(x)
    assert value == pytest.approx(round_and_trunc_of_items(x))
    np.testing.assert_allclose(g, [2.0, 0.4, 0.0])     # round and trunc are piecewise constant


def test_round_of_astjax_arrays_follows_python_and_jax():
    a = jnp.asarray(np.float64(0.37))
    assert round(a) == 0 and isinstance(round(a), int)
    assert round(a, 1) == pytest.approx(0.4)
    b = jnp.asarray(np.array([0.37, 1.6]))
    np.testing.assert_allclose(round(b, 1), [0.4, 1.6])
    assert round(b).dtype == np.int32 and list(round(b)) == [0, 2]
    assert math.trunc(jnp.asarray(-2.7)) == -2
    with pytest.raises(TypeError):
        math.trunc(b)


# ------------------------------------------------- isinstance() and type() of values astjax holds as Arrays
def branch_on_isinstance_float(x):
    s = x[0]
    if isinstance(s, float):
        return s * 2.0
    return s * 3.0


def branch_on_type(x):
    if type(x) is np.ndarray:
        return jnp.sum(x ** 2)
    return jnp.sum(x ** 3)


def branch_on_unambiguous_isinstance(x, scale):
    if isinstance(x, np.ndarray) and not isinstance(x, tuple) and isinstance(scale, float):
        return jnp.sum(x ** 2) * scale
    return jnp.sum(x ** 3)


@pytest.mark.parametrize("f", [branch_on_isinstance_float, branch_on_type])
@pytest.mark.parametrize("transform", ["grad", "jvp"])
def test_type_tests_that_could_take_another_branch_are_refused(f, transform):
    """NumPy's x[0] is an np.float64 (a float) and type(x) is np.ndarray; astjax holds Arrays there, so the
    transformed function once took the other branch under grad (a silently wrong number)."""
    from astjax.errors import AstjaxError
    x = np.array([0.4, 0.7])
    with pytest.raises(AstjaxError, match="isinstance|type") as info:
        if transform == "grad":
            astjax.grad(f)(x)
        else:
            astjax.jvp(f, (x,), (np.ones(2),))
    assert "test_python_semantics.py" in str(info.value)


def test_type_tests_every_original_agrees_on_still_work():
    x = np.array([0.4, 0.7])
    np.testing.assert_allclose(astjax.grad(branch_on_unambiguous_isinstance)(x, 0.5), x)
    from astjax.rules.helpers import checked_isinstance, checked_type
    assert checked_isinstance(jnp.asarray(x), np.ndarray) and not checked_isinstance(jnp.asarray(x), (list, dict))
    assert checked_isinstance(0.5, float) and checked_type([1]) is list


# ------------------------------------------------- `x op= e` on a NumPy array keeps NumPy's shape and dtype
def iadd_into_float32(x):
    y = np.zeros(2, dtype=np.float32)
    y += x
    return (y[0] - 1.0) * 1e9 * x[1]


def iadd_broadcasting_up(x):
    y = x.copy()
    y += np.ones((2, 2))
    return jnp.sum(y * x)


def iadd_on_jnp_accumulator(x):
    acc = jnp.zeros(2)
    acc += x * 2.0
    return jnp.sum(acc ** 2)


def test_inplace_add_into_a_float32_numpy_array_rounds_as_numpy():
    """NumPy writes `y += x` into y: float32 stays float32 (value 0 here); `y = y + x` once gave 0.5."""
    x = np.array([1.000000001, 0.5])
    value, g = astjax.value_and_grad(iadd_into_float32)(x)
    assert value == iadd_into_float32(x) == 0.0
    np.testing.assert_allclose(g, [5e8, 0.0])


def test_inplace_add_that_would_broadcast_up_is_refused():
    from astjax.errors import AstjaxError
    with pytest.raises(ValueError):
        iadd_broadcasting_up(np.ones(2))        # NumPy: non-broadcastable output operand
    with pytest.raises(AstjaxError, match="shape") as info:
        astjax.grad(iadd_broadcasting_up)(np.ones(2))
    assert "test_python_semantics.py" in str(info.value)


def test_inplace_add_on_an_astjax_accumulator_promotes_as_jax():
    """jnp.zeros is float32; `acc += float64 values` gives a new float64 array (JAX): no rounding, no check."""
    x = np.array([1.000000001, 0.5])
    np.testing.assert_allclose(astjax.grad(iadd_on_jnp_accumulator)(x), 8.0 * x)
    assert "inplace_result" not in astjax.source(astjax.grad(iadd_on_jnp_accumulator))


# ------------------------------------------------- enumerate's start
def enumerate_from_one(x, y):
    acc = 0.0
    for i, p in enumerate(x, start=1):
        acc = acc + i * p * y[i - 1]
    for k, q in enumerate(y, 2):
        acc = acc + k * q
    return acc


def test_enumerate_start_shifts_the_position():
    """The loop normalization once read only enumerate's sequence: `i` started at 0 whatever `start` said."""
    x, y = np.array([0.3, 0.5, -0.2]), np.array([0.7, -0.1, 0.4])
    value, (gx, gy) = astjax.value_and_grad(enumerate_from_one, argnums=(0, 1))(x, y)
    assert value == pytest.approx(enumerate_from_one(x, y))
    np.testing.assert_allclose(gx, [1 * y[0], 2 * y[1], 3 * y[2]])
    np.testing.assert_allclose(gy, [1 * x[0] + 2, 2 * x[1] + 3, 3 * x[2] + 4])


# ------------------------------------------------- jnp.pad modes whose padding is not linear in the array
def pad_with_maximum(x):
    return jnp.sum(jnp.pad(x, (2, 1), mode="maximum") * jnp.arange(7.0))


def pad_with_mean(x):
    return jnp.sum(jnp.pad(x, (2, 1), mode="mean") * jnp.arange(7.0))


def test_pad_with_a_nonlinear_mode_is_refused_in_forward_mode():
    """The tangent of a 'maximum' pad is the tangent at the maximum, not the maximum of the tangents: the jvp
    once padded the tangent with its own maximum (34.0 where JAX gives 16.5)."""
    from astjax.errors import AstjaxError
    x, t = np.array([0.3, -0.2, 0.9, 0.1]), np.array([1.0, -2.0, 0.5, 3.0])
    with pytest.raises(AstjaxError, match="maximum"):
        astjax.jvp(pad_with_maximum, (x,), (t,))
    with pytest.raises(AstjaxError, match="maximum"):
        astjax.grad(pad_with_maximum)(x)
    _, tangent = astjax.jvp(pad_with_mean, (x,), (t,))       # a mean pad is linear: its tangent is right
    assert float(tangent) == pytest.approx(float(np.dot(_fd_grad(pad_with_mean, x), t)))


# ------------------------------------------------- max / min of several values
def max_min_of_several(x):
    return max(x[0], x[1], x[2]) * 2.0 + min([x[1], x[0]]) + min((x[2], 0.2))


def test_max_and_min_of_several_values_follow_python_ties():
    """`max(a, b, c)` keeps the first of equal values (Python): nested two-value calls do the same."""
    np.testing.assert_allclose(astjax.grad(max_min_of_several)(np.array([0.5, 0.5, 0.5])), [2.0, 1.0, 0.0])
    x = np.array([0.3, 0.9, 0.1])
    assert astjax.grad(max_min_of_several)(x) == pytest.approx(_fd_grad(max_min_of_several, x))


def _first_large_or_doubled(x):
    acc = 0.0
    for v in x:
        if v > 0.5:
            acc = acc + v * 10.0
            break
        acc = acc + v
    else:
        acc = acc * 2.0
    return acc


def test_for_else_runs_its_else_only_without_a_break_under_grad_and_jit():
    """(jit of this gradient is refused today: its adjoint of `x` starts as float32 0.0 in one branch and
    float64 in the other; tests/test_jit.py checks a break loop's gradient under jit.)"""
    for x in (np.array([0.1, 0.7, 0.2]), np.array([0.1, 0.2, 0.3])):
        value, gradient = astjax.value_and_grad(_first_large_or_doubled)(x)
        assert np.isclose(value, _first_large_or_doubled(x))
        expected = [1.0, 10.0, 0.0] if x[1] > 0.5 else [2.0, 2.0, 2.0]
        assert np.allclose(gradient, expected)
        assert np.isclose(astjax.jit(_first_large_or_doubled)(x), value)


def _walrus_everywhere(x):
    if (n := x.shape[0]) > 2:
        y = (a := jnp.sin(x)) * a + (b := a * 2.0) * b
    else:
        y = x * n
    return jnp.sum(y) + jnp.sum(b)


def _walrus_read_first(x):
    t = 1.0
    return t + (t := x[0])


def test_walrus_assignments_differentiate_and_a_read_before_the_walrus_is_refused():
    from adversarial.harness import fd_grad
    x = np.array([0.5, 1.5, 2.5])
    value, gradient = astjax.value_and_grad(_walrus_everywhere)(x)
    assert np.isclose(value, _walrus_everywhere(x))
    assert np.allclose(gradient, fd_grad(_walrus_everywhere, (x,), 0), atol=1e-6)
    with pytest.raises(TransformError, match="read before the `:=`"):
        astjax.grad(_walrus_read_first)(x)


def _ends_and_middle(x):
    first, *mid, last = x
    return first * last + sum(m * m for m in mid)


def _weighted_backwards(x):
    s = 0.0
    for i, v in enumerate(reversed(list(x))):
        s = s + (i + 1) * v * v
    return s


def test_list_of_an_array_and_star_unpacking_iterate_its_rows_under_grad():
    x = np.arange(1.0, 6.0)
    assert np.allclose(astjax.grad(_ends_and_middle)(x), [5.0, 4.0, 6.0, 8.0, 1.0])
    assert np.allclose(astjax.grad(_weighted_backwards)(x), [10.0, 16.0, 18.0, 16.0, 10.0])
    rows = np.arange(6.0).reshape(3, 2)
    assert np.allclose(astjax.grad(lambda a: _ends_and_middle(a).sum())(rows),
                       [[4.0, 5.0], [4.0, 6.0], [0.0, 1.0]])


def _wrapped_phase(x):
    turns, phase = divmod(x[0], 0.3)
    return turns * x[1] + phase * phase


def test_builtin_divmod_differentiates_as_floor_division_and_remainder():
    x = np.array([0.71, 0.4])
    value, gradient = astjax.value_and_grad(_wrapped_phase)(x)
    assert np.isclose(value, _wrapped_phase(x))
    phase = 0.71 % 0.3
    assert np.allclose(gradient, [2.0 * phase, 2.0])


_GLOBAL_WEIGHTS = np.array([1.0, 2.0, 3.0])


def _weights_with_first_replaced(x):
    w = _GLOBAL_WEIGHTS.copy()
    w[0] = x[0]
    return jnp.sum(w * x) + jnp.sum(_GLOBAL_WEIGHTS.T * x)


def test_methods_of_a_global_array_are_astjax_numpy_functions_under_grad():
    x = np.array([0.5, 1.0, 1.5])
    assert np.allclose(astjax.grad(_weights_with_first_replaced)(x), [2 * 0.5 + 1.0, 2.0 + 2.0, 3.0 + 3.0])
    assert np.allclose(_GLOBAL_WEIGHTS, [1.0, 2.0, 3.0])


def tuple_of_generator(x):
    ys = tuple(x[i] * 2.0 for i in range(3))
    return ys[0] * ys[2] + jnp.sin(ys[1])


def tuple_of_rows(x):
    rows = tuple(x)
    return rows[0] * rows[1] + len(rows)


def tuple_of_list_literal(x):
    ys = tuple([x[0], x[1] * x[2]])
    return ys[0] + ys[1]


def squares_as_a_tuple(x):
    return tuple(v * v for v in x)


def tuple_of_a_dict(x):
    keys = tuple({"a": x[0], "b": x[1]})
    return x[0] * len(keys)


@pytest.mark.parametrize("f", [tuple_of_generator, tuple_of_rows, tuple_of_list_literal])
def test_tuple_of_a_sequence_differentiates_in_both_modes(f):
    """`tuple(v * 2 for v in xs)`, `tuple(array)` (its rows) and `tuple([a, b])` are the list's items, as a tuple."""
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(astjax.grad(f)(x), _fd_grad(f, x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(astjax.jacfwd(f)(x), astjax.grad(f)(x), rtol=1e-12)
    batch = np.stack([x, x + 1.0])
    np.testing.assert_allclose(astjax.vmap(astjax.grad(f))(batch), [astjax.grad(f)(b) for b in batch], rtol=1e-12)


def test_a_tuple_built_from_a_generator_stays_a_tuple_output():
    x = np.array([1.0, 2.0, 3.0])
    y, pull = astjax.vjp(squares_as_a_tuple, x)
    assert isinstance(y, tuple) and [float(v) for v in y] == [1.0, 4.0, 9.0]
    np.testing.assert_allclose(pull((1.0, 2.0, 3.0))[0], [2.0, 8.0, 18.0])


def test_tuple_of_a_dict_is_refused():
    """Python's tuple(d) is d's keys: astjax refuses it (as list(d)) rather than guess."""
    with pytest.raises(astjax.errors.AstjaxError):
        astjax.grad(tuple_of_a_dict)(np.array([1.0, 2.0]))


def _product(a, b):
    return a * b


def reduce_with_a_function(x):
    return functools.reduce(_product, [x[0], x[1], x[2]])


def reduce_with_an_operator_and_initial(x):
    return functools.reduce(operator.mul, x, 2.0)


def reduce_with_a_lambda(x):
    return functools.reduce(lambda acc, v: acc + v * v, (v * 2.0 for v in x), 0.0)


def operator_functions(x):
    return operator.mul(x[0], x[1]) + operator.truediv(x[2], operator.neg(x[1])) + operator.getitem(x, 0) ** 2


@pytest.mark.parametrize("f", [reduce_with_a_function, reduce_with_an_operator_and_initial, reduce_with_a_lambda,
                               operator_functions])
def test_functools_reduce_and_operator_functions_differentiate(f):
    """functools.reduce is the loop Python runs; operator.mul(a, b) is a * b."""
    x = np.array([1.5, 2.0, 3.0])
    np.testing.assert_allclose(astjax.grad(f)(x), _fd_grad(f, x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(astjax.jacfwd(f)(x), astjax.grad(f)(x), rtol=1e-12)


def test_operator_functions_compile_under_jit():
    x = np.array([1.5, 2.0, 3.0])
    assert float(astjax.jit(operator_functions)(x)) == pytest.approx(float(operator_functions(x)), rel=1e-12)
    np.testing.assert_allclose(astjax.jit(astjax.grad(operator_functions))(x), astjax.grad(operator_functions)(x))


def reduce_over_a_dict(d):
    return functools.reduce(_product, d)


def test_reduce_over_a_dict_is_refused():
    """Python reduces a dict's keys: astjax refuses it rather than reduce its values."""
    with pytest.raises(astjax.errors.AstjaxError):
        astjax.grad(reduce_over_a_dict)({"a": 1.0, "b": 2.0})
