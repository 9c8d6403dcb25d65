"""astjax.numpy's shape, stacking, signal and polynomial functions: values, dtypes, refusals.

Derivatives are checked in tests/test_rules.py (cases in tests/rule_cases_shape.py:
VJP and JVP against central differences, second order through the rules'
own code). Here: each function's value against NumPy's, float32 staying
float32, and the refusals, each an astjax error at the user's line.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError
from astjax.rules import classification

_rng = np.random.default_rng(7)


def _normal(*shape, dtype=np.float64):
    return _rng.standard_normal(shape).astype(dtype)


A23, B23, V3, V4, V5 = _normal(2, 3), _normal(2, 3), _normal(3), _normal(4), _normal(5)
A234 = _normal(2, 3, 4)
KNOTS = np.array([-1.0, -0.2, 0.5, 1.3, 2.0])

# name -> (args, kwargs): the same call to jnp.<name> and np.<name> gives the same value.
VALUES = {
    "column_stack": ((([V3, A23.T]),), {}),
    "dstack": (([A23, B23],), {}),
    "row_stack": (([V3, A23],), {}),
    "hstack": (([A23, B23],), {}),
    "vstack": (([V3, A23],), {}),
    "concat": (([A23, B23],), {"axis": 1}),
    "append": ((A23, V3), {}),
    "atleast_1d": ((2.5,), {}),
    "atleast_2d": ((V3,), {}),
    "atleast_3d": ((A23,), {}),
    "fliplr": ((A23,), {}),
    "flipud": ((A234,), {}),
    "rot90": ((A234, 3, (1, 2)), {}),
    "rollaxis": ((A234, 2, 1), {}),
    "permute_dims": ((A234, (1, 2, 0)), {}),
    "matrix_transpose": ((A234,), {}),
    "resize": ((A23, (4, 4)), {}),
    "delete": ((A234, [0, 2], 2), {}),
    "insert": ((V4, 1, 9.0), {}),
    "trim_zeros": ((np.array([0.0, 0.0, 1.5, 0.0, 2.0, 0.0]),), {}),
    "diagflat": ((A23, -1), {}),
    "tri": ((3, 4, 1), {}),
    "vander": ((V3, 4), {}),
    "indices": (((2, 3),), {}),
    "roll": ((A234, (1, -1), (0, 2)), {}),
    "tile": ((A23, (2, 1, 2)), {}),
    "tril": ((A234, 1), {}),
    "triu": ((A23, -1), {}),
    "take_along_axis": ((A23, np.array([[2, 0], [1, 1]]), 1), {}),
    "sort": ((A234, 1), {}),
    "compress": ((np.array([True, False, True]), A23, 1), {}),
    "extract": ((A23 > 0, A23), {}),
    "choose": ((np.array([0, 1, 0]), [V3, -V3]), {}),
    "select": (([V3 > 0, V3 < -0.5], [V3, 2 * V3], 0.5), {}),
    "diff": ((A234, 2, 1), {"prepend": 0.5}),
    "ediff1d": ((V5,), {"to_begin": np.array([1.0, 2.0]), "to_end": -1.0}),
    "kron": ((A23, V3), {}),
    "cross": ((_normal(4, 3), V3), {}),
    "convolve": ((V4, V5, "same"), {}),
    "correlate": ((V3, V5, "same"), {}),
    "interp": ((np.array([-2.0, -0.5, 0.5, 1.0, 3.0]), KNOTS, V5), {"left": -7.0}),
    "polyval": ((V4, A23), {}),
    "polyadd": ((V3, V5), {}),
    "polysub": ((V5, V3), {}),
    "polymul": ((V3, V4), {}),
    "polyder": ((V5, 2), {}),
    "polyint": ((V3, 2, [1.0, -1.0]), {}),
    "trapezoid": ((A23,), {"dx": 0.5}),
    "gradient": ((V5, 0.5), {}),
    "geomspace": ((0.5, 8.0, 5), {}),
    "logspace": ((0.0, 2.0, 5), {"base": 2.0}),
}
LISTS = {
    "array_split": ((V5, 3), {}),
    "hsplit": ((_normal(2, 4), 2), {}),
    "vsplit": ((_normal(4, 2), [1]), {}),
    "dsplit": ((_normal(1, 2, 4), 2), {}),
    "unstack": ((A23,), {"axis": 1}),
    "broadcast_arrays": ((V3, A23), {}),
    "tril_indices": ((4, 1), {}),
    "triu_indices_from": ((A23,), {}),
    "diag_indices": ((3,), {}),
    "ix_": ((np.array([0, 1]), np.array([2, 0, 1])), {}),
}


_NUMPY_NAMES = {"row_stack": "vstack"}      # NumPy 2.5 removed row_stack, the old name of vstack


@pytest.mark.parametrize("name", sorted(VALUES))
def test_value_matches_numpy(name):
    args, kwargs = VALUES[name]
    got = getattr(jnp, name)(*args, **kwargs)
    expected = getattr(np, name if hasattr(np, name) else _NUMPY_NAMES[name])(*args, **kwargs)
    tolerance = 1e-6 if np.asarray(got).dtype == np.float32 else 1e-12     # JAX: Python scalars give float32
    np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=tolerance, atol=tolerance)
    assert np.shape(got) == np.shape(expected)


@pytest.mark.parametrize("name", sorted(LISTS))
def test_list_value_matches_numpy(name):
    args, kwargs = LISTS[name]
    got = getattr(jnp, name)(*args, **kwargs)
    expected = getattr(np, name)(*args, **kwargs)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(e))


def test_block_matches_numpy():
    np.testing.assert_array_equal(np.asarray(jnp.block([[A23, B23], [B23, A23]])), np.block([[A23, B23], [B23, A23]]))


def _float32(value):
    return np.asarray(value, dtype=np.float32) if isinstance(value, np.ndarray) and value.dtype == np.float64 else value


@pytest.mark.parametrize("name", sorted(n for n in VALUES if classification(getattr(jnp, n)).kind == "rules"))
def test_float32_stays_float32(name):
    args, kwargs = VALUES[name]
    args = tuple([_float32(a) for a in arg] if isinstance(arg, list) else _float32(arg) for arg in args)
    result = getattr(jnp, name)(*args, **kwargs)
    assert np.asarray(result).dtype == np.float32, (name, np.asarray(result).dtype)


def test_integer_index_functions_are_int32():
    for result in (jnp.tril_indices(3), jnp.diag_indices_from(A23[:, :2]), (jnp.indices((2, 2)),)):
        assert all(np.asarray(r).dtype == np.int32 for r in result)


# ------------------------------------------------------------ refusals, each at the user's line
def block_of(x):
    return jnp.sum(jnp.block([[x, x]]))


def insert_into(x):
    return jnp.sum(jnp.insert(x, 1, x[0]))


def trimmed(x):
    return jnp.sum(jnp.trim_zeros(x))


def two_at_once(x):
    a, b = jnp.atleast_2d(x, x)
    return jnp.sum(a * b)


def periodic_interp(x):
    return jnp.sum(jnp.interp(x, np.array([0.0, 1.0]), np.array([1.0, 2.0]), period=1.0))


def knots_from_input(x):
    return jnp.sum(jnp.interp(0.5, x, x * 2.0))


def cross_other_axis(x):
    a = jnp.reshape(x, (3, 1))
    return jnp.sum(jnp.cross(a, a, axisa=0, axisb=0))


def put_into(x):
    y = x * 2.0
    np.put(y, [0], 5.0)
    return jnp.sum(y)


def stacked_from_variable(x):
    parts = [x, x * 2.0]
    return jnp.sum(jnp.hstack(parts))


def condition_from_input(x):
    return jnp.sum(jnp.compress(x, x))


def block_of_variable(x):
    rows = [[x, x]]
    return jnp.sum(jnp.block(rows))


REFUSED = [(block_of_variable, "jnp.block("),
           (two_at_once, "jnp.atleast_2d(x, x)"), (periodic_interp, "jnp.interp("), (knots_from_input, "jnp.interp("),
           (cross_other_axis, "jnp.cross("), (put_into, "np.put("),
           (condition_from_input, "jnp.compress(")]


@pytest.mark.parametrize("fn, line", REFUSED, ids=lambda f: getattr(f, "__name__", ""))
def test_refused_at_the_users_line(fn, line):
    x = np.array([0.7, -1.3, 0.4])
    with pytest.raises(AstjaxError) as error:
        astjax.grad(fn)(x)
    assert "test_numpy_shape.py" in str(error.value) and line in str(error.value), str(error.value)


@pytest.mark.parametrize("fn", [block_of, insert_into, trimmed], ids=lambda f: f.__name__)
def test_block_insert_trim_zeros_have_rules(fn):
    """Refused before their rules existed (tests/test_api_coverage.py tests them further): now the gradient
    is the central differences' (trim_zeros: x has no zeros, so the trimmed edges do not move)."""
    x = np.array([0.7, -1.3, 0.4])
    eps = 1e-6
    expected = [(float(fn(x + eps * e)) - float(fn(x - eps * e))) / (2 * eps) for e in np.eye(3)]
    np.testing.assert_allclose(np.asarray(astjax.grad(fn)(x)), expected, rtol=1e-6, atol=1e-8)


def test_a_list_variable_joined_is_refused_in_reverse_mode_and_right_in_forward_mode():
    x = np.array([0.7, -1.3, 0.4])
    with pytest.raises(AstjaxError, match="no derivative with respect to its argument"):
        astjax.grad(stacked_from_variable)(x)
    np.testing.assert_allclose(np.asarray(astjax.jacfwd(stacked_from_variable)(x)), np.full(3, 3.0))


# ------------------------------------------------------------ derivatives through programs users write
def smoothed_energy(x):
    kernel = jnp.array([0.25, 0.5, 0.25], dtype=x.dtype)
    smooth = jnp.convolve(x, kernel, mode="same")
    slope = jnp.diff(smooth)
    return jnp.sum(slope ** 2) + jnp.sum(jnp.interp(jnp.linspace(-1.0, 1.0, 4), jnp.linspace(-2.0, 2.0, 5), x[:5]))


def test_a_program_of_several_functions_matches_central_differences():
    x = _normal(6)
    grad = np.asarray(astjax.grad(smoothed_energy)(x))
    fwd = np.asarray(astjax.jacfwd(smoothed_energy)(x))
    expected = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = 1e-6
        expected[i] = (float(smoothed_energy(jnp.asarray(x + e))) - float(smoothed_energy(jnp.asarray(x - e)))) / 2e-6
    np.testing.assert_allclose(grad, expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(fwd, expected, rtol=1e-6, atol=1e-8)


def test_vmap_of_a_rearranging_function():
    xs = _normal(4, 2, 3)
    got = astjax.vmap(lambda m: jnp.sum(jnp.rot90(m) * jnp.arange(6.0).reshape(3, 2)))(xs)
    expected = [np.sum(np.rot90(m) * np.arange(6.0).reshape(3, 2)) for m in xs]
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-12)
