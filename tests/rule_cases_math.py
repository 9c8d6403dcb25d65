"""Rule cases for the math, statistics and integer functions (issue 9), in tests/rule_cases.py's format.

Each case is `sum(w * f(...))` of a module-level function; tests/test_rules.py checks its VJP against
central differences, its JVP against the VJP and (for each primitive's first case) its second order.
Inputs stay away from kinks and ties, except where a case is about the convention there (a NaN that
gets no derivative, x1 == 0 for heaviside's x2) and central differences still see the same slope.
"""
import numpy as np

import astjax.numpy as jnp
from astjax.rules.elementwise import i0_slope, real_input_adjoint, sinc_slope
from astjax.rules.statistics import quantile_adjoint, quantile_tangent

from rule_cases import BROADCAST_SHAPES, Case, _array, nonzero, normal, uniform

CASES = []


def case(primitive, label, fn, *args, argnums=None):
    if argnums is None:
        argnums = tuple(range(len(args)))
    CASES.append(Case(primitive, label, fn, tuple(args), tuple(argnums)))


def _with_nans(x, positions):
    """A copy of the float64 Array x with NaN at the flat `positions`."""
    values = np.array(x, dtype=np.float64)
    values.flat[list(positions)] = np.nan
    return _array(values)


# ================================================================== unary
def cbrt_fn(x, w):
    return jnp.sum(w * jnp.cbrt(x))


def exp2_fn(x, w):
    return jnp.sum(w * jnp.exp2(x))


def arcsinh_fn(x, w):
    return jnp.sum(w * jnp.asinh(x))


def arccosh_fn(x, w):
    return jnp.sum(w * jnp.arccosh(x))


def arctanh_fn(x, w):
    return jnp.sum(w * jnp.atanh(x))


def deg2rad_fn(x, w):
    return jnp.sum(w * jnp.radians(x))


def rad2deg_fn(x, w):
    return jnp.sum(w * jnp.degrees(x))


def fabs_fn(x, w):
    return jnp.sum(w * jnp.fabs(x))


def sinc_fn(x, w):
    return jnp.sum(w * jnp.sinc(x))


def sinc_slope_fn(x, w):
    return jnp.sum(w * sinc_slope(x))


def i0_fn(x, w):
    return jnp.sum(w * jnp.i0(x))


def i0_slope_fn(x, w):
    return jnp.sum(w * i0_slope(x))


def real_fn(x, w):
    return jnp.sum(w * jnp.real(x) * x)


def imag_fn(x, w):
    return jnp.sum(w * (jnp.imag(x) + x))


def conjugate_fn(x, w):
    return jnp.sum(w * jnp.conj(x) * jnp.conjugate(x))


def real_input_adjoint_fn(g, w):
    return jnp.sum(w * real_input_adjoint(g, g))


def nan_to_num_fn(x, w):
    return jnp.sum(w * jnp.nan_to_num(x, nan=1.5, posinf=10.0, neginf=-10.0))


def ldexp_fn(x, e, w):
    return jnp.sum(w * jnp.ldexp(x, e))


_ZEROS = _array([0.0, 0.4, -1.3, 0.0, 2.2])
for _name, _fn, _x in (("cbrt", cbrt_fn, nonzero(0.3, 2.0, 3, 4)), ("exp2", exp2_fn, normal(3, 4)),
                       ("arcsinh", arcsinh_fn, normal(3, 4)), ("arccosh", arccosh_fn, uniform(1.2, 3.0, 3, 4)),
                       ("arctanh", arctanh_fn, uniform(-0.8, 0.8, 3, 4)), ("deg2rad", deg2rad_fn, normal(3, 4)),
                       ("rad2deg", rad2deg_fn, normal(3, 4)), ("fabs", fabs_fn, nonzero(0.2, 2.0, 3, 4)),
                       ("sinc", sinc_fn, normal(3, 4)), ("sinc", sinc_fn, _ZEROS),
                       ("sinc_slope", sinc_slope_fn, normal(3, 4)), ("sinc_slope", sinc_slope_fn, _ZEROS),
                       ("i0", i0_fn, normal(3, 4)), ("i0", i0_fn, _ZEROS),
                       ("i0_slope", i0_slope_fn, normal(3, 4)), ("i0_slope", i0_slope_fn, _ZEROS),
                       ("real", real_fn, normal(3, 4)), ("imag", imag_fn, normal(3, 4)),
                       ("conjugate", conjugate_fn, normal(3, 4)), ("real_input_adjoint", real_input_adjoint_fn, normal(3)),
                       ("nan_to_num", nan_to_num_fn, normal(3, 4))):
    case(_name, "at_zero" if _x is _ZEROS else "array", _fn, _x)
case("nan_to_num", "nan_and_inf", nan_to_num_fn, _array([0.5, np.nan, np.inf, -np.inf, -0.7]))
case("ldexp", "int_exponent", ldexp_fn, normal(3, 4), np.array([-2, 0, 1, 3], dtype=np.int32), argnums=(0,))
case("ldexp", "scalar_exponent", ldexp_fn, normal(4), np.int32(2), argnums=(0,))


# ================================================================== binary
def hypot_fn(x1, x2, w):
    return jnp.sum(w * jnp.hypot(x1, x2))


def logaddexp_fn(x1, x2, w):
    return jnp.sum(w * jnp.logaddexp(x1, x2))


def logaddexp2_fn(x1, x2, w):
    return jnp.sum(w * jnp.logaddexp2(x1, x2))


def fmax_fn(x1, x2, w):
    return jnp.sum(w * jnp.fmax(x1, x2))


def fmin_fn(x1, x2, w):
    return jnp.sum(w * jnp.fmin(x1, x2))


def copysign_fn(x1, x2, w):
    return jnp.sum(w * jnp.copysign(x1, x2))


def heaviside_fn(x1, x2, w):
    return jnp.sum(w * jnp.heaviside(x1, x2))


def fmod_fn(x1, x2, w):
    return jnp.sum(w * jnp.fmod(x1, x2))


def float_power_fn(x1, x2, w):
    return jnp.sum(w * jnp.float_power(x1, x2))


_BINARY = {
    "hypot": (hypot_fn, lambda *s: nonzero(0.3, 2.0, *s), lambda *s: nonzero(0.3, 2.0, *s)),
    "logaddexp": (logaddexp_fn, normal, normal),
    "logaddexp2": (logaddexp2_fn, normal, normal),
    "fmax": (fmax_fn, normal, normal),
    "fmin": (fmin_fn, normal, normal),
    "copysign": (copysign_fn, lambda *s: nonzero(0.2, 2.0, *s), lambda *s: nonzero(0.2, 2.0, *s)),
    "heaviside": (heaviside_fn, lambda *s: nonzero(0.2, 2.0, *s), normal),
    "fmod": (fmod_fn, lambda *s: uniform(-3.0, 3.0, *s), lambda *s: nonzero(1.1, 1.4, *s)),
    "float_power": (float_power_fn, lambda *s: uniform(0.5, 2.0, *s), lambda *s: uniform(-1.5, 1.5, *s)),
}
for _name, (_fn, _s1, _s2) in _BINARY.items():
    for _label, _shape1, _shape2 in BROADCAST_SHAPES:
        case(_name, _label, _fn, _s1(*_shape1), _s2(*_shape2))
# NaN loses to a number in fmax/fmin: the number gets the derivative, the NaN none.
case("fmax", "nan_operand", fmax_fn, _array([0.5, np.nan, -1.0, np.nan]), _array([np.nan, 0.3, -2.0, 1.2]))
case("fmin", "nan_operand", fmin_fn, _array([0.5, np.nan, -1.0, np.nan]), _array([np.nan, 0.3, -2.0, 1.2]))
# heaviside passes x2 through where x1 == 0 (x1's own slope is 0: no central difference across its jump).
case("heaviside", "x1_zero", heaviside_fn, _array([0.0, -1.0, 0.0, 2.0]), normal(4), argnums=(1,))


# ================================================================== NaN-ignoring reductions
_A = normal(3, 4)
_A_NAN = _with_nans(normal(3, 4), (1, 6, 7))


def nansum_fn(a, w):
    return jnp.sum(w * jnp.nansum(a, axis=1))


def nansum_all(a, w):
    return w * jnp.nansum(a)


def nanmean_fn(a, w):
    return jnp.sum(w * jnp.nanmean(a, axis=0, keepdims=True))


def nanmean_all(a, w):
    return w * jnp.nanmean(a)


def nanmax_fn(a, w):
    return jnp.sum(w * jnp.nanmax(a, axis=1))


def nanmin_fn(a, w):
    return jnp.sum(w * jnp.nanmin(a, axis=0))


def nanmax_initial(a, w):
    return jnp.sum(w * jnp.nanmax(a, axis=1, initial=0.2))


def nanvar_fn(a, w):
    return jnp.sum(w * jnp.nanvar(a, axis=1))


def nanvar_ddof(a, w):
    return jnp.sum(w * jnp.nanvar(a, axis=0, ddof=1, keepdims=True))


def nanstd_fn(a, w):
    return jnp.sum(w * jnp.nanstd(a, axis=1))


def nanstd_all(a, w):
    return w * jnp.nanstd(a, ddof=1)


def nanprod_fn(a, w):
    return jnp.sum(w * jnp.nanprod(a, axis=1))


def nanprod_all(a, w):
    return w * jnp.nanprod(a)


def nancumsum_fn(a, w):
    return jnp.sum(w * jnp.nancumsum(a, axis=1))


def nancumsum_flat(a, w):
    return jnp.sum(w * jnp.nancumsum(a))


def nancumprod_fn(a, w):
    return jnp.sum(w * jnp.nancumprod(a, axis=1))


def ptp_fn(a, w):
    return jnp.sum(w * jnp.ptp(a, axis=0))


def ptp_all(a, w):
    return jnp.sum(w * jnp.ptp(a, keepdims=True))


def cumulative_sum_fn(x, w):
    return jnp.sum(w * jnp.cumulative_sum(x, axis=1))


def cumulative_sum_initial(x, w):
    return jnp.sum(w * jnp.cumulative_sum(x, include_initial=True))


def cumulative_prod_fn(x, w):
    return jnp.sum(w * jnp.cumulative_prod(x, axis=0))


def cumulative_prod_initial(x, w):
    return jnp.sum(w * jnp.cumulative_prod(x, axis=1, include_initial=True))


_POSITIVE = uniform(0.5, 1.5, 3, 4)
_WITH_ZERO = _array([[0.5, 0.0, 1.2, -0.8], [0.0, 1.1, 0.0, 0.9], [0.7, -1.3, 0.6, 1.4]])
case("nansum", "axis", nansum_fn, _A)
case("nansum", "nan", nansum_fn, _A_NAN)
case("nansum", "all_nan", nansum_all, _A_NAN)
case("nanmean", "keepdims", nanmean_fn, _A)
case("nanmean", "nan", nanmean_fn, _A_NAN)
case("nanmean", "all_nan", nanmean_all, _A_NAN)
case("nanmax", "axis", nanmax_fn, _A)
case("nanmax", "nan", nanmax_fn, _A_NAN)
case("nanmax", "initial", nanmax_initial, _array([[0.3, 1.5, -0.2], [0.1, -0.4, 0.15]]))
case("nanmin", "axis", nanmin_fn, _A)
case("nanmin", "nan", nanmin_fn, _A_NAN)
case("nanvar", "axis", nanvar_fn, _A)
case("nanvar", "nan", nanvar_fn, _A_NAN)
case("nanvar", "ddof", nanvar_ddof, _A_NAN)
case("nanstd", "axis", nanstd_fn, _A)
case("nanstd", "nan", nanstd_fn, _A_NAN)
case("nanstd", "all_ddof", nanstd_all, _A_NAN)
case("nanprod", "axis", nanprod_fn, _POSITIVE)
case("nanprod", "nan", nanprod_fn, _with_nans(_POSITIVE, (2, 5)))
case("nanprod", "zeros", nanprod_fn, _with_nans(_WITH_ZERO, (3,)))
case("nanprod", "all", nanprod_all, _with_nans(_POSITIVE, (0,)))
case("nancumsum", "axis", nancumsum_fn, _A)
case("nancumsum", "flat_nan", nancumsum_flat, _A_NAN)
case("nancumprod", "axis", nancumprod_fn, _POSITIVE)
case("nancumprod", "nan", nancumprod_fn, _with_nans(_POSITIVE, (1, 4)))
case("ptp", "axis", ptp_fn, _A)
case("ptp", "all", ptp_all, _A)
case("cumulative_sum", "axis", cumulative_sum_fn, _A)
case("cumulative_sum", "initial", cumulative_sum_initial, normal(5))
case("cumulative_prod", "axis", cumulative_prod_fn, _POSITIVE)
case("cumulative_prod", "initial", cumulative_prod_initial, _POSITIVE)


# ================================================================== quantiles
def quantile_fn(a, w):
    return jnp.sum(w * jnp.quantile(a, jnp.array([0.1, 0.5, 0.85]), axis=1))


def quantile_linear(a, w):
    return jnp.sum(w * jnp.quantile(a, 0.37, axis=0, method="linear"))


def quantile_lower(a, w):
    return jnp.sum(w * jnp.quantile(a, 0.37, axis=0, method="lower"))


def quantile_higher(a, w):
    return jnp.sum(w * jnp.quantile(a, 0.37, axis=0, method="higher"))


def quantile_midpoint(a, w):
    return jnp.sum(w * jnp.quantile(a, 0.37, axis=0, method="midpoint"))


def quantile_nearest(a, w):
    return jnp.sum(w * jnp.quantile(a, 0.37, axis=0, method="nearest"))


def quantile_axes(a, w):
    return jnp.sum(w * jnp.quantile(a, 0.6, axis=(0, 2), keepdims=True))


def quantile_all(a, w):
    return w * jnp.quantile(a, 0.3)


def quantile_q(a, q, w):
    return jnp.sum(w * jnp.quantile(a, q, axis=0))


def percentile_q(a, q, w):
    return jnp.sum(w * jnp.percentile(a, q, axis=1, keepdims=True))


def nanquantile_fn(a, w):
    return jnp.sum(w * jnp.nanquantile(a, jnp.array([0.25, 0.75]), axis=1))


def percentile_fn(a, w):
    return jnp.sum(w * jnp.percentile(a, 40.0, axis=1))


def percentile_list(a, w):
    return jnp.sum(w * jnp.percentile(a, [10.0, 90.0], axis=0, method="midpoint"))


def nanpercentile_fn(a, w):
    return jnp.sum(w * jnp.nanpercentile(a, 65.0, axis=0))


def median_fn(a, w):
    return jnp.sum(w * jnp.median(a, axis=1))


def median_all(a, w):
    return w * jnp.median(a)


def nanmedian_fn(a, w):
    return jnp.sum(w * jnp.nanmedian(a, axis=1, keepdims=True))


def quantile_tangent_fn(t, a, w):
    return jnp.sum(w * quantile_tangent(t, a, 0.3, 1, "linear", False, "quantile"))


def quantile_tangent_q(t, q, a, w):
    return jnp.sum(w * quantile_tangent(t, a, q, 1, "linear", False, "quantile"))


def quantile_adjoint_q(g, q, a, w):
    return jnp.sum(w * quantile_adjoint(g, a, q, 1, "linear", False, "quantile"))


def quantile_adjoint_fn(g, a, w):
    return jnp.sum(w * quantile_adjoint(g, a, 0.3, 1, "linear", False, "quantile"))


case("quantile", "q_operand", quantile_q, normal(5, 3), uniform(0.05, 0.85, 2))  # q stays in [0, 1] when the sweep scales it by 1.1
case("quantile", "q_vector", quantile_fn, normal(3, 5))
for _fn in (quantile_linear, quantile_lower, quantile_higher, quantile_midpoint, quantile_nearest):
    case("quantile", _fn.__name__.replace("quantile_", "method_"), _fn, normal(6, 2))
case("quantile", "axes_keepdims", quantile_axes, normal(3, 2, 4))
case("quantile", "all", quantile_all, normal(3, 4))
case("nanquantile", "nan", nanquantile_fn, _with_nans(normal(3, 6), (0, 7, 8, 17)))
case("percentile", "q_operand", percentile_q, normal(2, 6), uniform(5.0, 95.0, 3))
case("percentile", "axis", percentile_fn, normal(3, 5))
case("percentile", "midpoint_list", percentile_list, normal(5, 3))
case("nanpercentile", "nan", nanpercentile_fn, _with_nans(normal(5, 3), (0, 4)))
case("median", "odd", median_fn, normal(2, 5))
case("median", "even_all", median_all, normal(2, 3))
case("nanmedian", "nan", nanmedian_fn, _with_nans(normal(3, 4), (1, 5, 6)))
case("quantile_tangent", "q_operand", quantile_tangent_q, normal(3, 4), uniform(0.1, 0.9, 2), normal(3, 4),
     argnums=(0, 1))
case("quantile_tangent", "axis", quantile_tangent_fn, normal(3, 4), normal(3, 4), argnums=(0,))
case("quantile_adjoint", "q_operand", quantile_adjoint_q, normal(2, 3), uniform(0.1, 0.9, 2), normal(3, 4),
     argnums=(0, 1))
case("quantile_adjoint", "axis", quantile_adjoint_fn, normal(3), normal(3, 4), argnums=(0,))


# ================================================================== average, cov, corrcoef, bincount
def average_weighted(a, weights, w):
    return jnp.sum(w * jnp.average(a, axis=1, weights=weights))


def average_plain(a, w):
    return jnp.sum(w * jnp.average(a, axis=0, keepdims=True))


def average_full_weights(a, weights, w):
    return w * jnp.average(a, weights=weights)


def cov_fn(m, w):
    return jnp.sum(w * jnp.cov(m))


def cov_columns(m, w):
    return jnp.sum(w * jnp.cov(m, rowvar=False, bias=True))


def cov_pair(m, y2, w):
    return jnp.sum(w * jnp.cov(m, y2, ddof=0))


def cov_vector(m, w):
    return w * jnp.cov(m)


def corrcoef_fn(x, w):
    return jnp.sum(w * jnp.corrcoef(x))


def corrcoef_pair(x, y2, w):
    return jnp.sum(w * jnp.corrcoef(x, y2, rowvar=False))


def bincount_fn(weights, x, w):
    return jnp.sum(w * jnp.bincount(x, weights, minlength=6))


case("average", "weights_along_axis", average_weighted, normal(3, 4), uniform(0.5, 2.0, 4))
case("average", "no_weights", average_plain, normal(3, 4))
case("average", "full_weights", average_full_weights, normal(2, 3), uniform(0.5, 2.0, 2, 3))
case("cov", "rows", cov_fn, normal(3, 5))
case("cov", "columns_bias", cov_columns, normal(5, 2))
case("cov", "pair_ddof", cov_pair, normal(2, 4), normal(4))
case("cov", "vector", cov_vector, normal(5))
case("corrcoef", "rows", corrcoef_fn, normal(3, 5))
case("corrcoef", "pair_columns", corrcoef_pair, normal(5, 2), normal(5, 1))
case("bincount", "weights", bincount_fn, normal(7), np.array([0, 1, 1, 3, 0, 4, 1], dtype=np.int32), argnums=(0,))
