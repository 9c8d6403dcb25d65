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
