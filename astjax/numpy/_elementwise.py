"""Element-wise functions: NumPy's ufuncs with JAX's dtype rules.

Each function is one conversion (see `_promote`), one ufunc call with
`subok=False` (which skips Array's Python-level `__array_wrap__`) and one
wrap. Transcendental functions give float32 for ints and Python scalars;
binary functions promote on JAX's lattice, Python scalars staying weak.
"""
import numpy as np

from ._promote import (
    check_no_out,
    inexact_arg as _f,
    out as _out,
    promote as _promote,
    promote_inexact as _promote_f,
    scalar_arg as _s,
)

# ------------------------------------------------------------ binary arithmetic


def add(x1, x2):
    """NumPy's add with JAX's type promotion."""
    x1, x2 = _promote(x1, x2)
    return _out(np.add(x1, x2, subok=False))


def subtract(x1, x2):
    """NumPy's subtract with JAX's type promotion."""
    x1, x2 = _promote(x1, x2)
    return _out(np.subtract(x1, x2, subok=False))


def multiply(x1, x2):
    """NumPy's multiply with JAX's type promotion."""
    x1, x2 = _promote(x1, x2)
    return _out(np.multiply(x1, x2, subok=False))


def divide(x1, x2):
    """NumPy's true_divide; integer operands give float32."""
    x1, x2 = _promote_f(x1, x2)
    return _out(np.true_divide(x1, x2, subok=False))


true_divide = divide


def floor_divide(x1, x2):
    """NumPy's floor_divide with JAX's type promotion."""
    x1, x2 = _promote(x1, x2)
    return _out(np.floor_divide(x1, x2, subok=False))


def mod(x1, x2):
    """NumPy's mod (sign of the divisor) with JAX's type promotion."""
    x1, x2 = _promote(x1, x2)
    return _out(np.mod(x1, x2, subok=False))


remainder = mod


def power(x1, x2):
    """NumPy's power with JAX's type promotion."""
    x1, x2 = _promote(x1, x2)
    return _out(np.power(x1, x2, subok=False))


def maximum(x1, x2):
    """NumPy's maximum (NaN-propagating) with JAX's type promotion."""
    x1, x2 = _promote(x1, x2)
    return _out(np.maximum(x1, x2, subok=False))


def minimum(x1, x2):
    """NumPy's minimum (NaN-propagating) with JAX's type promotion."""
    x1, x2 = _promote(x1, x2)
    return _out(np.minimum(x1, x2, subok=False))


def arctan2(x1, x2):
    """NumPy's arctan2; integer operands give float32."""
    x1, x2 = _promote_f(x1, x2)
    return _out(np.arctan2(x1, x2, subok=False))


def hypot(x1, x2):
    """NumPy's hypot; integer operands give float32."""
    x1, x2 = _promote_f(x1, x2)
    return _out(np.hypot(x1, x2, subok=False))


def logaddexp(x1, x2):
    """NumPy's logaddexp; integer operands give float32."""
    x1, x2 = _promote_f(x1, x2)
    return _out(np.logaddexp(x1, x2, subok=False))


def clip(a, a_min=None, a_max=None, out=None, *, min=None, max=None):
    """Clamp `a` to [min, max] (either may be None), with JAX's type promotion."""
    check_no_out(out, "clip")
    lo = a_min if min is None else min
    hi = a_max if max is None else max
    a = _s(a)
    if lo is not None:
        a, lo = _promote(a, lo)
        a = np.maximum(a, lo, subok=False)
    if hi is not None:
        a, hi = _promote(a, hi)
        a = np.minimum(a, hi, subok=False)
    return _out(a)


# ------------------------------------------------------- dtype-keeping unary


def negative(x):
    """NumPy's negative; Python scalars become float32/int32."""
    return _out(np.negative(_s(x), subok=False))


def positive(x):
    """NumPy's positive; Python scalars become float32/int32."""
    return _out(np.positive(_s(x), subok=False))


def square(x):
    """NumPy's square; integers stay integers."""
    return _out(np.square(_s(x), subok=False))


def abs(x):
    """NumPy's absolute; integers stay integers, complex gives float."""
    return _out(np.absolute(_s(x), subok=False))


absolute = abs


def sign(x):
    """NumPy's sign; integers stay integers."""
    return _out(np.sign(_s(x), subok=False))


def floor(x):
    """NumPy's floor; integers are returned unchanged (as int)."""
    return _out(np.floor(_s(x), subok=False))


def ceil(x):
    """NumPy's ceil; integers are returned unchanged (as int)."""
    return _out(np.ceil(_s(x), subok=False))


def trunc(x):
    """NumPy's trunc; integers are returned unchanged (as int)."""
    return _out(np.trunc(_s(x), subok=False))


def round(a, decimals=0, out=None):
    """NumPy's round (half to even); integers stay integers."""
    if out is not None:
        raise TypeError("round: out= is not supported; use the returned array instead.")
    a = _s(a)
    if a.dtype.kind in "fc":
        return _out(np.rint(a, subok=False) if decimals == 0 else np.round(a, decimals))
    return _out(a if decimals >= 0 else np.round(a, decimals))  # ints, bools


around = round

# ------------------------------------------------------------ float-valued unary


def sqrt(x):
    """NumPy's sqrt; float32 for Python scalars and integers."""
    return _out(np.sqrt(_f(x), subok=False))


def cbrt(x):
    """NumPy's cbrt; float32 for Python scalars and integers."""
    return _out(np.cbrt(_f(x), subok=False))


def reciprocal(x):
    """1 / x; float32 for Python scalars and integers (unlike NumPy's)."""
    return _out(np.reciprocal(_f(x), subok=False))


def exp(x):
    """NumPy's exp; float32 for Python scalars and integers."""
    return _out(np.exp(_f(x), subok=False))


def exp2(x):
    """NumPy's exp2; float32 for Python scalars and integers."""
    return _out(np.exp2(_f(x), subok=False))


def expm1(x):
    """NumPy's expm1; float32 for Python scalars and integers."""
    return _out(np.expm1(_f(x), subok=False))


def log(x):
    """NumPy's log; float32 for Python scalars and integers."""
    return _out(np.log(_f(x), subok=False))


def log1p(x):
    """NumPy's log1p; float32 for Python scalars and integers."""
    return _out(np.log1p(_f(x), subok=False))


def log2(x):
    """NumPy's log2; float32 for Python scalars and integers."""
    return _out(np.log2(_f(x), subok=False))


def log10(x):
    """NumPy's log10; float32 for Python scalars and integers."""
    return _out(np.log10(_f(x), subok=False))


def sin(x):
    """NumPy's sin; float32 for Python scalars and integers."""
    return _out(np.sin(_f(x), subok=False))


def cos(x):
    """NumPy's cos; float32 for Python scalars and integers."""
    return _out(np.cos(_f(x), subok=False))


def tan(x):
    """NumPy's tan; float32 for Python scalars and integers."""
    return _out(np.tan(_f(x), subok=False))


def arcsin(x):
    """NumPy's arcsin; float32 for Python scalars and integers."""
    return _out(np.arcsin(_f(x), subok=False))


def arccos(x):
    """NumPy's arccos; float32 for Python scalars and integers."""
    return _out(np.arccos(_f(x), subok=False))


def arctan(x):
    """NumPy's arctan; float32 for Python scalars and integers."""
    return _out(np.arctan(_f(x), subok=False))


def sinh(x):
    """NumPy's sinh; float32 for Python scalars and integers."""
    return _out(np.sinh(_f(x), subok=False))


def cosh(x):
    """NumPy's cosh; float32 for Python scalars and integers."""
    return _out(np.cosh(_f(x), subok=False))


def tanh(x):
    """NumPy's tanh; float32 for Python scalars and integers."""
    return _out(np.tanh(_f(x), subok=False))


def arcsinh(x):
    """NumPy's arcsinh; float32 for Python scalars and integers."""
    return _out(np.arcsinh(_f(x), subok=False))


def arccosh(x):
    """NumPy's arccosh; float32 for Python scalars and integers."""
    return _out(np.arccosh(_f(x), subok=False))


def arctanh(x):
    """NumPy's arctanh; float32 for Python scalars and integers."""
    return _out(np.arctanh(_f(x), subok=False))


# ------------------------------------------------------------- predicates


def isnan(x):
    """NumPy's isnan (bool result)."""
    return _out(np.isnan(_s(x), subok=False))


def isfinite(x):
    """NumPy's isfinite (bool result)."""
    return _out(np.isfinite(_s(x), subok=False))


def isinf(x):
    """NumPy's isinf (bool result)."""
    return _out(np.isinf(_s(x), subok=False))


# Comparisons and logical functions return bool whatever the promotion, so
# they use NumPy's own (exact) promotion and need no conversion.


def equal(x1, x2):
    """NumPy's equal (bool result)."""
    return _out(np.equal(x1, x2, subok=False))


def not_equal(x1, x2):
    """NumPy's not_equal (bool result)."""
    return _out(np.not_equal(x1, x2, subok=False))


def less(x1, x2):
    """NumPy's less (bool result)."""
    return _out(np.less(x1, x2, subok=False))


def less_equal(x1, x2):
    """NumPy's less_equal (bool result)."""
    return _out(np.less_equal(x1, x2, subok=False))


def greater(x1, x2):
    """NumPy's greater (bool result)."""
    return _out(np.greater(x1, x2, subok=False))


def greater_equal(x1, x2):
    """NumPy's greater_equal (bool result)."""
    return _out(np.greater_equal(x1, x2, subok=False))


def logical_and(x1, x2):
    """NumPy's logical_and (bool result)."""
    return _out(np.logical_and(x1, x2, subok=False))


def logical_or(x1, x2):
    """NumPy's logical_or (bool result)."""
    return _out(np.logical_or(x1, x2, subok=False))


def logical_xor(x1, x2):
    """NumPy's logical_xor (bool result)."""
    return _out(np.logical_xor(x1, x2, subok=False))


def logical_not(x):
    """NumPy's logical_not (bool result)."""
    return _out(np.logical_not(x, subok=False))


# ----------------------------------------------- more binary functions (issue 9)


def fmax(x1, x2):
    """NumPy's fmax (a NaN loses to a number) with JAX's type promotion."""
    x1, x2 = _promote(x1, x2)
    return _out(np.fmax(x1, x2, subok=False))


def fmin(x1, x2):
    """NumPy's fmin (a NaN loses to a number) with JAX's type promotion."""
    x1, x2 = _promote(x1, x2)
    return _out(np.fmin(x1, x2, subok=False))


def copysign(x1, x2):
    """|x1| with the sign of x2; integer operands give float32."""
    x1, x2 = _promote_f(x1, x2)
    return _out(np.copysign(x1, x2, subok=False))


def logaddexp2(x1, x2):
    """log2(2**x1 + 2**x2) without overflow; integer operands give float32."""
    x1, x2 = _promote_f(x1, x2)
    return _out(np.logaddexp2(x1, x2, subok=False))


def float_power(x1, x2):
    """x1 ** x2 computed in floating point (JAX: the promoted float dtype, float32 for ints)."""
    x1, x2 = _promote_f(x1, x2)
    return _out(np.power(x1, x2, subok=False))


def heaviside(x1, x2):
    """The step function: 0 for x1 < 0, x2 at x1 == 0, 1 for x1 > 0; integer operands give float32."""
    x1, x2 = _promote_f(x1, x2)
    return _out(np.heaviside(x1, x2, subok=False))


def fmod(x1, x2):
    """NumPy's fmod (the remainder has the sign of the dividend, as C's fmod), with JAX's promotion."""
    x1, x2 = _promote(x1, x2)
    return _out(np.fmod(x1, x2, subok=False))


def ldexp(x1, x2):
    """x1 * 2 ** x2 for an integer x2; an integer x1 gives float32."""
    x1 = _f(x1)
    x2 = _s(x2)
    if np.result_type(x2).kind not in "biu":
        raise TypeError("ldexp: the exponent x2 must be an integer array")
    return _out(np.ldexp(x1, x2, subok=False))


def nextafter(x1, x2):
    """The next floating-point value after x1 towards x2; integer operands give float32."""
    x1, x2 = _promote_f(x1, x2)
    return _out(np.nextafter(x1, x2, subok=False))


# ------------------------------------------------ more unary functions (issue 9)


def sinc(x):
    """sin(pi x) / (pi x), 1 at 0 (NumPy's normalized sinc); float32 for Python scalars and integers."""
    x = np.asarray(_f(x))
    return _out(np.sinc(x).astype(x.dtype, copy=False))


def deg2rad(x):
    """Degrees to radians; float32 for Python scalars and integers."""
    return _out(np.deg2rad(_f(x), subok=False))


def rad2deg(x):
    """Radians to degrees; float32 for Python scalars and integers."""
    return _out(np.rad2deg(_f(x), subok=False))


radians = deg2rad
degrees = rad2deg


def fabs(x):
    """|x| as a float (NumPy's fabs); float32 for Python scalars and integers."""
    return _out(np.fabs(_f(x), subok=False))


def rint(x):
    """Round to the nearest integer, half to even; float32 for Python scalars and integers (as JAX)."""
    return _out(np.rint(_f(x), subok=False))


def fix(x, out=None):
    """Round towards zero; integers are returned unchanged."""
    check_no_out(out, "fix")
    x = _s(x)
    if x.dtype.kind in "biu":
        return _out(np.asarray(x))
    return _out(np.trunc(x, subok=False))


def signbit(x):
    """Whether the sign bit is set (-0.0 included); bool result."""
    return _out(np.signbit(_s(x), subok=False))


def spacing(x):
    """The distance from x to the next float away from zero; float32 for Python scalars and integers."""
    return _out(np.spacing(_f(x), subok=False))


def i0(x):
    """The modified Bessel function of the first kind, order 0; float32 for Python scalars and integers."""
    x = np.asarray(_f(x))
    return _out(np.i0(x).astype(x.dtype, copy=False))


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN -> nan, +inf -> posinf, -inf -> neginf (the dtype's largest magnitudes by default); dtype kept."""
    x = _s(x)
    return _out(np.nan_to_num(np.asarray(x), copy=True, nan=nan, posinf=posinf, neginf=neginf))


def real(val):
    """The real part (the array itself, for real input); dtype kept."""
    return _out(np.real(np.asarray(_s(val))))


def imag(val):
    """The imaginary part (zeros of the same dtype, for real input)."""
    return _out(np.imag(np.asarray(_s(val))))


def conjugate(x):
    """The complex conjugate (x itself, for real input); dtype kept."""
    return _out(np.conjugate(_s(x), subok=False))


conj = conjugate

# -------------------------------------------- Array API names (aliases, as in JAX)
acos = arccos
asin = arcsin
atan = arctan
acosh = arccosh
asinh = arcsinh
atanh = arctanh
atan2 = arctan2
pow = power
