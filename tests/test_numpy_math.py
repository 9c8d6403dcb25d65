"""astjax.numpy's math, statistics and integer functions (issue 9): values against NumPy, JAX's dtypes,
the conventions at kinks, ties and NaNs, and which functions are refused or non-differentiable.

Derivatives against central differences live in tests/rule_cases_math.py (run by tests/test_rules.py).
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError
from astjax.rules import classification

_rng = np.random.default_rng(7)
X = _rng.standard_normal((3, 4))
POS = _rng.uniform(0.5, 2.0, (3, 4))
XNAN = X.copy()
XNAN.flat[[1, 6, 7]] = np.nan

# (name, args, NumPy's function or None for np.<name>): values must match NumPy's.
VALUES = [
    ("fmax", (X, XNAN), None), ("fmin", (X, XNAN), None), ("copysign", (X, -X.T[:1].T), None),
    ("sinc", (X,), None), ("logaddexp2", (X, X.T[:1].T), None), ("deg2rad", (X,), None), ("rad2deg", (X,), None),
    ("degrees", (X,), None), ("radians", (X,), None), ("fabs", (X,), None), ("float_power", (POS, X), None),
    ("heaviside", (np.array([-1.0, 0.0, 2.0]), 0.5), None), ("nan_to_num", (np.array([np.nan, np.inf, 1.0]),), None),
    ("signbit", (np.array([-0.0, 0.0, -1.0]),), None), ("rint", (X * 3,), None), ("fix", (X * 3,), None),
    ("fmod", (X * 3, 1.3), None), ("ldexp", (X, np.array([1, -2, 0, 3])), None), ("i0", (X,), None),
    ("spacing", (X,), None), ("nextafter", (X, 0.0), None), ("real", (X,), None), ("imag", (X,), None),
    ("conj", (X,), None), ("hypot", (X, POS), None), ("cbrt", (X,), None), ("exp2", (X,), None),
    ("acos", (X / 3,), None), ("asinh", (X,), None), ("acosh", (POS + 1,), None), ("atanh", (X / 3,), None),
    ("atan2", (X, POS), None), ("pow", (POS, X), None),
    ("nansum", (XNAN, 1), None), ("nanmean", (XNAN, 0), None), ("nanmax", (XNAN, 1), None), ("nanmin", (XNAN,), None),
    ("nanprod", (XNAN, 1), None), ("nanstd", (XNAN, 1), None), ("nanvar", (XNAN, None), None),
    ("nanargmax", (XNAN, 1), None), ("nanargmin", (XNAN, 0), None), ("nancumsum", (XNAN, 1), None),
    ("nancumprod", (XNAN,), None), ("median", (X, 1), None), ("nanmedian", (XNAN, 1), None),
    ("percentile", (X, [10.0, 50.0], 0), None), ("nanpercentile", (XNAN, 30.0, 1), None),
    ("quantile", (X, 0.3), None), ("nanquantile", (XNAN, [0.2, 0.9], 1), None),
    ("ptp", (X, 0), None), ("cov", (X,), None), ("corrcoef", (X,), None), ("count_nonzero", (np.eye(3), 0), None),
    ("cumulative_sum", (X[0],), None), ("cumulative_prod", (X[0],), None),
    ("bitwise_and", (np.array([5, 3]), 6), None), ("bitwise_or", (np.array([5, 3]), 6), None),
    ("bitwise_xor", (np.array([5, 3]), 6), None), ("invert", (np.array([5, 3]),), None),
    ("bitwise_not", (np.array([True, False]),), None), ("left_shift", (np.array([5, 3]), 2), None),
    ("right_shift", (np.array([5, 3]), 1), None), ("gcd", (np.array([12, 9]), 6), None),
    ("lcm", (np.array([4, 9]), 6), None), ("searchsorted", (np.array([1.0, 2.0, 4.0]), np.array([0.5, 3.0])), None),
    ("digitize", (np.array([0.5, 3.0, 9.0]), np.array([1.0, 2.0, 4.0])), None),
    ("bincount", (np.array([0, 2, 2, 5]),), None), ("argwhere", (X > 0,), None), ("flatnonzero", (X > 0,), None),
    ("isin", (np.array([1, 2, 3]), np.array([2, 5])), None), ("unique", (np.array([3, 1, 3, 2]),), None),
    ("intersect1d", (np.array([3, 1, 2]), np.array([2, 3, 7])), None), ("union1d", (np.array([3, 1]), np.array([2])), None),
    ("setdiff1d", (np.array([3, 1, 2]), np.array([2])), None), ("setxor1d", (np.array([3, 1, 2]), np.array([2, 5])), None),
    ("isneginf", (np.array([-np.inf, np.inf, 0.0]),), None), ("isposinf", (np.array([-np.inf, np.inf, 0.0]),), None),
    ("isreal", (X,), None), ("iscomplex", (X,), None), ("array_equal", (X, X), None), ("array_equiv", (X, X[0]), None),
    ("packbits", (np.array([1, 0, 1, 1, 0, 0, 0, 1], dtype=np.uint8),), None),
    ("unpackbits", (np.array([177], dtype=np.uint8),), None),
]


@pytest.mark.parametrize("name,args,reference", VALUES, ids=[v[0] for v in VALUES])
def test_value_matches_numpy(name, args, reference):
    got = getattr(jnp, name)(*args)
    expected = (reference or getattr(np, name))(*args)
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), np.asarray(expected, dtype=np.float64),
                               rtol=1e-12, atol=1e-12, equal_nan=True)


def test_nonzero_and_average_match_numpy():
    for got, expected in zip(jnp.nonzero(X > 0), np.nonzero(X > 0)):
        np.testing.assert_array_equal(got, expected)
    weights = POS[0]
    np.testing.assert_allclose(jnp.average(X, axis=1, weights=weights), np.average(X, axis=1, weights=weights))
    avg, total = jnp.average(X, axis=0, weights=POS, returned=True)
    np.testing.assert_allclose(avg, np.average(X, axis=0, weights=POS))
    np.testing.assert_allclose(total, POS.sum(axis=0))
    np.testing.assert_allclose(jnp.cov(X, X[0], rowvar=True, ddof=0), np.cov(X, X[0], ddof=0))
    np.testing.assert_allclose(jnp.corrcoef(X.T, rowvar=False), np.corrcoef(X.T, rowvar=False))
    for method in ("linear", "lower", "higher", "midpoint", "nearest"):
        np.testing.assert_allclose(jnp.quantile(X, [0.0, 0.33, 1.0], axis=(0, 1), method=method, keepdims=True),
                                   np.quantile(X, [0.0, 0.33, 1.0], axis=(0, 1), method=method, keepdims=True))


F32_NAMES = ["sinc", "deg2rad", "rad2deg", "fabs", "cbrt", "exp2", "i0", "spacing", "rint", "fix", "nan_to_num",
             "asinh", "real", "conj", "nansum", "nanmean", "nanmax", "nanprod", "nanstd", "nanvar", "nancumsum",
             "nancumprod", "median", "nanmedian", "ptp", "cov", "corrcoef", "average"]


@pytest.mark.parametrize("name", F32_NAMES)
def test_float32_stays_float32(name):
    assert getattr(jnp, name)(X.astype(np.float32)).dtype == np.float32


@pytest.mark.parametrize("name,args", [("fmax", (0.5,)), ("copysign", (-1.0,)), ("logaddexp2", (0.5,)),
                                       ("float_power", (2.0,)), ("heaviside", (0.5,)), ("fmod", (1.5,)),
                                       ("hypot", (2.0,)), ("nextafter", (0.0,))])
def test_binary_float32_with_a_python_scalar_stays_float32(name, args):
    assert getattr(jnp, name)(POS.astype(np.float32), *args).dtype == np.float32


def test_integer_inputs_give_jax_dtypes():
    ints = np.arange(6, dtype=np.int32).reshape(2, 3)
    for name in ("sinc", "deg2rad", "rint", "i0", "median", "nanmean", "cov"):
        assert getattr(jnp, name)(ints).dtype == np.float32, name
    assert jnp.quantile(ints, 0.5).dtype == np.float32
    assert jnp.percentile(ints, 50).dtype == np.float32
    assert jnp.fix(ints).dtype == np.int32
    for name in ("nanargmax", "count_nonzero", "searchsorted", "bincount", "argwhere", "flatnonzero"):
        fn = getattr(jnp, name)
        out = fn(ints.ravel(), ints.ravel()) if name == "searchsorted" else fn(ints.ravel())
        assert out.dtype == np.int32, name
    assert jnp.nanargmax(np.array([[np.nan, np.nan], [1.0, np.nan]]), axis=1).tolist() == [-1, 0]


# ------------------------------------------------------------ conventions, by grad
def _grad(fn, *args, argnums=0):
    return np.asarray(astjax.grad(fn, argnums=argnums)(*args))


def fmax_tie(x1, x2):
    return jnp.sum(jnp.fmax(x1, x2))


def fmin_tie(x1, x2):
    return jnp.sum(jnp.fmin(x1, x2))


def test_fmax_and_fmin_ties_go_to_x2_and_nan_gets_nothing():
    """As JAX's where((x1 > x2) | isnan(x2), x1, x2) (tests/test_primitive_boundaries.py checks it against JAX)."""
    x1 = np.array([1.0, np.nan, 2.0])
    x2 = np.array([1.0, 3.0, np.nan])
    for fn in (fmax_tie, fmin_tie):
        np.testing.assert_array_equal(_grad(fn, x1, x2, argnums=0), [0.0, 0.0, 1.0])
        np.testing.assert_array_equal(_grad(fn, x1, x2, argnums=1), [1.0, 1.0, 0.0])


def heaviside_sum(x1, x2):
    return jnp.sum(jnp.heaviside(x1, x2))


def test_heaviside_is_flat_in_x1_and_passes_x2_at_zero():
    x1 = np.array([-1.0, 0.0, 2.0])
    x2 = np.array([0.3, 0.3, 0.3])
    np.testing.assert_array_equal(_grad(heaviside_sum, x1, x2, argnums=0), [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(_grad(heaviside_sum, x1, x2, argnums=1), [0.0, 1.0, 0.0])


def median_even(x):
    return jnp.median(x)


def quantile_ties(x):
    return jnp.quantile(x, 0.5, method="lower")


def test_median_derivative_flows_to_the_order_statistics_used():
    np.testing.assert_allclose(_grad(median_even, np.array([4.0, 1.0, 3.0, 2.0])), [0.0, 0.0, 0.5, 0.5])
    # a tie: the element a stable sort puts at that position gets it all
    np.testing.assert_allclose(_grad(quantile_ties, np.array([2.0, 1.0, 2.0, 3.0, 2.0])), [0, 0, 1.0, 0, 0])


def quantile_with_nan(x):
    return jnp.sum(jnp.quantile(x, 0.5, axis=1))


def nanmean_all_nan(x):
    return jnp.sum(jnp.nanmean(x, axis=1))


def nanvar_all_nan(x):
    return jnp.nansum(jnp.nanvar(x, axis=1)) + jnp.nansum(jnp.nanstd(x, axis=1)) + jnp.nansum(jnp.nanmedian(x, axis=1))


def test_nan_slices_give_nan_values_and_no_derivative():
    x = np.array([[1.0, np.nan, 3.0], [0.5, 2.0, 1.0]])
    assert np.isnan(jnp.quantile(x, 0.5, axis=1)[0])
    grad = _grad(quantile_with_nan, x)
    np.testing.assert_array_equal(grad[0], [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(grad[1], [0.0, 0.0, 1.0])
    all_nan = np.array([[np.nan, np.nan], [1.0, 3.0]])
    np.testing.assert_array_equal(_grad(nanmean_all_nan, all_nan), [[0.0, 0.0], [0.5, 0.5]])
    np.testing.assert_allclose(_grad(nanvar_all_nan, all_nan), [[0.0, 0.0], [-1.0 - 0.5 + 0.5, 1.0 + 0.5 + 0.5]])


def sinc_sum(x):
    return jnp.sum(jnp.sinc(x))


def test_sinc_curvature_at_zero():
    second = astjax.grad(astjax.grad(sinc_sum))
    np.testing.assert_allclose(second(np.float64(0.0)), -np.pi ** 2 / 3, rtol=1e-12)
    np.testing.assert_allclose(astjax.grad(sinc_sum)(np.array([0.0, 1e-9])), [0.0, -np.pi ** 2 / 3 * 1e-9], rtol=1e-6)


# ------------------------------------------------------------ what is refused or declared
DECLARED = ["signbit", "rint", "fix", "spacing", "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "bitwise_not",
            "left_shift", "right_shift", "gcd", "lcm", "searchsorted", "digitize", "argwhere", "nonzero", "flatnonzero",
            "isin", "isneginf", "isposinf", "isreal", "iscomplex", "array_equal", "array_equiv", "packbits",
            "unpackbits", "count_nonzero", "nanargmax", "nanargmin"]
REFUSED = ["unique", "unique_values", "unique_counts", "unique_inverse", "unique_all", "intersect1d",
           "union1d", "setdiff1d", "setxor1d"]


@pytest.mark.parametrize("name", DECLARED)
def test_declared_non_differentiable(name):
    assert classification(getattr(jnp, name)).kind == "nondifferentiable"
    assert classification(getattr(np, name)).kind == "nondifferentiable"


@pytest.mark.parametrize("name", REFUSED)
def test_refused_where_values_carry_derivatives(name):
    assert classification(getattr(jnp, name)).kind == "refused"


def nextafter_sum(x1, x2):
    return jnp.sum(jnp.nextafter(x1, x2) * x1)


def test_nextafter_has_rules():
    """Refused before its rules (slope 1 in x1, 0 in x2; JAX has none): x1 moves by one unit in the last place."""
    assert classification(jnp.nextafter).kind == "rules" and classification(np.nextafter).kind == "rules"
    x1, x2 = np.array([0.5, -2.0, 3.0]), np.array([1.0, -3.0, 3.0])
    g1, g2 = astjax.grad(nextafter_sum, argnums=(0, 1))(x1, x2)
    np.testing.assert_allclose(np.asarray(g1), np.nextafter(x1, x2) + x1, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(g2), np.zeros(3))


def unique_of_input(x):
    return jnp.sum(jnp.unique(x * 2.0))


def unique_of_constant(x):
    return jnp.sum(x) * jnp.sum(jnp.unique(np.array([1.0, 1.0, 2.0])))


def average_returned(x):
    avg, total = jnp.average(x, weights=x, returned=True)
    return avg


def cov_keyword_y(x):
    return jnp.sum(jnp.cov(x, y=x * 2.0))


def quantile_of_q(q):
    return jnp.quantile(np.array([1.0, 2.0, 4.0]), q)


def test_refusals_are_errors_at_the_users_line():
    for fn in (unique_of_input, average_returned, cov_keyword_y):
        with pytest.raises(AstjaxError, match="test_numpy_math.py"):
            astjax.grad(fn)(np.array([0.3, 0.7, 0.9]))
    np.testing.assert_allclose(astjax.grad(unique_of_constant)(np.array([0.3, 0.7])), [3.0, 3.0])


def test_quantile_moves_with_q():
    """A q that depends on the input gets its derivative: (n - 1) (x[hi] - x[lo]) for method="linear"."""
    np.testing.assert_allclose(astjax.grad(quantile_of_q)(np.float64(0.4)), 2 * (2.0 - 1.0))
    np.testing.assert_allclose(astjax.grad(quantile_of_q)(np.float64(0.7)), 2 * (4.0 - 2.0))


def real_of_complex(x):
    return jnp.sum(jnp.real(x * (1.0 + 1.0j)))


def test_real_of_a_complex_value_is_differentiated_as_jax_does():
    """real(x * (1 + 1j)) = x: the complex literal makes a complex value (analyses/complex_flow.py)."""
    np.testing.assert_allclose(np.asarray(astjax.grad(real_of_complex)(np.array([0.3, 0.7]))), [1.0, 1.0])


def clip_bound_from_input(x):
    return jnp.sum(jnp.clip(np.array([1.0, 2.0, 4.0]), x, 3.0))


def nan_to_num_fill_from_input(x):
    return jnp.sum(jnp.nan_to_num(np.array([np.nan, 2.0]), nan=x))


def test_a_static_argument_carrying_a_derivative_is_refused_even_when_the_operands_are_constant():
    """Activity follows static arguments too: nan_to_num's fill gave a silent 0 before. clip's bounds gave one
    too (its true slope is 1 here); they are operands now, differentiated as JAX does."""
    with pytest.raises(AstjaxError, match="treats its argument"):
        astjax.grad(nan_to_num_fill_from_input)(np.float64(1.5))
    assert np.isclose(astjax.grad(clip_bound_from_input)(np.float64(1.5)), 1.0)
