"""Numba lowerings of the special functions (astjax.scipy.special, jnp.logaddexp, hypot, ...).

Each is a scalar kernel mapped over arrays by numba_elementwise's `lattice`
(the reference's dtype, operands cast to it). Kernels compute in float64 and
round to the result dtype: for float32 that is within rounding of SciPy's and
NumPy's float32 loops (most of which compute in double too). The formulas are
the ones SciPy (xsf, cephes) and NumPy use, so edge cases (0, +-inf, nan,
saturation, poles) give the reference's values.
"""
import math

import numpy as np

from .. import numpy as jnp
from ..scipy import special as sp
from .digamma_series import NEG_ROOT_ZETA, POS_ROOT_ZETA
from .numba_elementwise import _define, kernel, lattice, predicate

# ------------------------------------------------------------------ logistic functions (SciPy's _logit.h)


def _expit(x):
    v = np.float64(x)
    return 1.0 / (1.0 + math.exp(-v))


def _log_expit(x):
    v = np.float64(x)
    if v < 0:
        return v - math.log1p(math.exp(v))
    return -math.log1p(math.exp(-v))


def _logit(x):
    v = np.float64(x)
    if v < 0.3 or v > 0.65:
        return np.log(v / (1.0 - v))
    s = 2.0 * (v - 0.5)
    return math.log1p(s) - math.log1p(-s)


# ------------------------------------------------------------------ error functions (cephes ndtr, Faddeeva log_ndtr)
_SQRT1_2 = 0.7071067811865476
_LOG_SQRT_2PI = 0.9189385332046728     # log(sqrt(2 pi))


def _erf(x):
    return math.erf(np.float64(x))


def _erfc(x):
    return math.erfc(np.float64(x))


def _ndtr(x):
    v = np.float64(x)
    if v != v:
        return v
    t = v * _SQRT1_2
    z = abs(t)
    if z < _SQRT1_2:
        return 0.5 + 0.5 * math.erf(t)
    y = 0.5 * math.erfc(z)
    return 1.0 - y if t > 0 else y


def _log_ndtr(x):
    """log(ndtr(x)): log1p(-erfc(-t) / 2) above -1; below, log(erfc(-t) / 2) while erfc(-t) is a normal
    number, then the asymptotic series of log ndtr (terms below 1e-17 relative at x = -20)."""
    v = np.float64(x)
    if v != v:
        return v
    t = v * _SQRT1_2
    if v >= -1.0:
        return math.log1p(-math.erfc(t) / 2.0)      # 1 - ndtr(x) = erfc(t) / 2
    if v > -20.0:
        return math.log(math.erfc(-t) / 2.0)
    if v == -np.inf:
        return v
    # log ndtr(x) = -x^2/2 - log(-x) - log sqrt(2 pi) + log(1 + sum_k (-1)^k (2k-1)!! / x^(2k))
    inv2 = 1.0 / (v * v)
    term = 1.0
    total = 0.0
    for k in range(1, 12):
        term *= -(2 * k - 1) * inv2
        total += term
    return -0.5 * v * v - math.log(-v) - _LOG_SQRT_2PI + math.log1p(total)


# ------------------------------------------------------------------ gamma family (xsf digamma, cephes psi)
def _gammaln(x):
    v = np.float64(x)
    if not math.isfinite(v):
        return v                         # cephes lgam: nan, inf and -inf are their own values
    if v <= 0 and v == math.floor(v):
        return np.inf                    # the poles (SciPy's value)
    return math.lgamma(v)


_PSI_A = np.array([8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
                   -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
                   8.33333333333333333333E-2])
_PSI_P = np.array([-0.0020713321167745952, -0.045251321448739056, -0.28919126444774784,
                   -0.65031853770896507, -0.32555031186804491, 0.25479851061131551])
_PSI_Q = np.array([-0.55789841321675513e-6, 0.0021284987017821144, 0.054151797245674225, 0.43593529692665969,
                   1.4606242909763515, 2.0767117023730469, 1.0])
_PSI_Y = float(np.float32(0.99558162689208984))
_PSI_ROOT1 = 1569415565.0 / 1073741824.0
_PSI_ROOT2 = (381566830.0 / 1073741824.0) / 1073741824.0
_PSI_ROOT3 = 0.9016312093258695918615325266959189453125e-19
_EULER = 0.577215664901532860606512090082402431
_POS_ROOT, _POS_ROOT_VALUE = 1.4616321449683623, -9.2412655217294275e-17
_NEG_ROOT, _NEG_ROOT_VALUE = -0.504083008264455409, 7.2897639029768949e-17


# zeta(n + 1, root), n = 1..99: the Taylor coefficients of digamma about each root (SciPy's series)
_POS_ZETA, _NEG_ZETA = POS_ROOT_ZETA, NEG_ROOT_ZETA


@kernel
def _polevl(x, coef):
    ans = coef[0]
    for i in range(1, coef.size):
        ans = ans * x + coef[i]
    return ans


@kernel
def _zeta_series(z, root, root_value, coefficients):
    res = root_value
    coeff = -1.0
    z = z - root
    for n in range(coefficients.size):
        coeff *= -z
        term = coeff * coefficients[n]
        res += term
        if abs(term) < 2.220446049250313e-16 * abs(res):
            break
    return res


@kernel
def _psi(x):
    """cephes psi (SciPy's, via xsf)."""
    y = 0.0
    if x != x or x == np.inf:
        return x
    if x == -np.inf:
        return np.nan
    if x == 0:
        return math.copysign(np.inf, -x)
    if x < 0.0:
        r = x - math.trunc(x)
        if r == 0.0:
            return np.nan
        y = -np.pi / math.tan(np.pi * r)
        x = 1.0 - x
    if x <= 10.0 and x == math.floor(x):
        n = int(x)
        for i in range(1, n):
            y += 1.0 / i
        return y - _EULER
    if x < 1.0:
        y -= 1.0 / x
        x += 1.0
    elif x < 10.0:
        while x > 2.0:
            x -= 1.0
            y += 1.0 / x
    if 1.0 <= x <= 2.0:
        g = x - _PSI_ROOT1
        g -= _PSI_ROOT2
        g -= _PSI_ROOT3
        r = _polevl(x - 1.0, _PSI_P) / _polevl(x - 1.0, _PSI_Q)
        return y + (g * _PSI_Y + g * r)
    if x < 1.0e17:
        z = 1.0 / (x * x)
        asy = z * _polevl(z, _PSI_A)
    else:
        asy = 0.0
    return y + (math.log(x) - 0.5 / x - asy)


def _digamma(x):
    v = np.float64(x)
    if v == 0:
        return math.copysign(np.inf, -v)
    if abs(v - _NEG_ROOT) < 0.3:
        return _zeta_series(v, _NEG_ROOT, _NEG_ROOT_VALUE, _NEG_ZETA)
    if abs(v - _POS_ROOT) < 0.5:
        return _zeta_series(v, _POS_ROOT, _POS_ROOT_VALUE, _POS_ZETA)
    return _psi(v)


# ------------------------------------------------------------------ information theory (SciPy's)
def _xlogy(x, y):
    a, b = np.float64(x), np.float64(y)
    if a == 0 and b == b:
        return 0.0
    return a * np.log(b)


def _xlog1py(x, y):
    a, b = np.float64(x), np.float64(y)
    if a == 0 and b == b:
        return 0.0
    return a * np.log1p(b)


def _entr(x):
    v = np.float64(x)
    if v != v:
        return v
    if v > 0:
        return -v * math.log(v)
    if v == 0:
        return 0.0
    return -np.inf


# ------------------------------------------------------------------ NumPy's functions (npy_math)
_LOGE2 = 0.693147180559945309417232121458176568
_LOG2E = 1.442695040888963407359924681001892137


def _logaddexp(x1, x2):
    a, b = np.float64(x1), np.float64(x2)
    if a == b:
        return a + _LOGE2            # infinities of one sign
    d = a - b
    if d > 0:
        return a + math.log1p(math.exp(-d))
    if d <= 0:
        return b + math.log1p(math.exp(d))
    return d                          # nan


def _logaddexp2(x1, x2):
    a, b = np.float64(x1), np.float64(x2)
    if a == b:
        return a + 1.0
    d = a - b
    if d > 0:
        return a + _LOG2E * math.log1p(np.exp2(-d))
    if d <= 0:
        return b + _LOG2E * math.log1p(np.exp2(d))
    return d


def _heaviside(x1, x2):
    if x1 != x1:
        return x1
    if x1 == 0:
        return x2
    return 0.0 if x1 < 0 else 1.0


_define("expit", _expit)
_define("log_expit", _log_expit)
_define("logit", _logit)
_define("erf", _erf)
_define("erfc", _erfc)
_define("ndtr", _ndtr)
_define("log_ndtr", _log_ndtr)
_define("gammaln", _gammaln)
_define("digamma", _digamma)
_define("entr", _entr)
_define("xlogy", _xlogy)
_define("xlog1py", _xlog1py)
_define("logaddexp", _logaddexp)
_define("logaddexp2", _logaddexp2)
_define("hypot", lambda a, b: math.hypot(np.float64(a), np.float64(b)))
_define("cbrt", lambda x: np.cbrt(np.float64(x)))
_define("exp2", lambda x: np.exp2(np.float64(x)))
_define("arcsinh", lambda x: math.asinh(np.float64(x)))
_define("arccosh", lambda x: math.acosh(np.float64(x)) if x >= 1 else np.nan)
_define("arctanh", lambda x: math.atanh(np.float64(x)) if -1 < x < 1 else (
    math.copysign(np.inf, np.float64(x)) if abs(x) == 1 else np.nan))
_define("deg2rad", lambda x: x * (np.pi / 180.0))
_define("rad2deg", lambda x: x * (180.0 / np.pi))
_define("fabs", lambda x: abs(x))
_define("copysign", lambda a, b: math.copysign(np.float64(a), np.float64(b)))
_define("heaviside", _heaviside)
_define("signbit", lambda x: math.copysign(1.0, x) < 0, lambda x: x < 0, lambda x: False)
_define("fmax", lambda a, b: a if (a >= b or b != b) else b, lambda a, b: max(a, b), lambda a, b: a or b)
_define("fmin", lambda a, b: a if (a <= b or b != b) else b, lambda a, b: min(a, b), lambda a, b: a and b)

for _name in ("expit", "log_expit", "logit", "erf", "erfc", "ndtr", "log_ndtr", "gammaln", "digamma", "entr"):
    lattice(_name, getattr(sp, _name), params=("x",))
for _name in ("xlogy", "xlog1py"):
    lattice(_name, getattr(sp, _name))
for _name in ("cbrt", "exp2", "arcsinh", "arccosh", "arctanh", "deg2rad", "rad2deg", "fabs"):
    lattice(_name, getattr(jnp, _name), params=("x",))
predicate("signbit", jnp.signbit)
for _name in ("logaddexp", "logaddexp2", "hypot", "copysign", "heaviside", "fmax", "fmin"):
    lattice(_name, getattr(jnp, _name))


# ------------------------------------------------------------------ over an axis: logsumexp, softmax, log_softmax
from .numba_build import implementation, lowers  # noqa: E402
from .numba_reductions import reduce_impl, static_axes  # noqa: E402
from .numba_typing import dtype_of, is_array, is_none, is_scalar, literal_value, result_shape_dtype  # noqa: E402


@kernel
def _row_logsumexp(row, zero):
    """SciPy's logsumexp of a row: the first largest element a_max kept out of the sum,
    log1p(sum of the others' exp(a - a_max)) + a_max (exact for tiny sums); nan if any is nan,
    a_max itself when it is infinite, -inf for an empty row. Accumulated in float64."""
    n = row.size
    if n == 0:
        return -np.inf
    first = 0
    top = np.float64(row[0])
    for i in range(n):
        v = np.float64(row[i])
        if v != v:
            return v
        if v > top:
            top = v
            first = i
    if not math.isfinite(top):
        return top
    s = 0.0
    for i in range(n):
        if i != first:
            s += math.exp(np.float64(row[i]) - top)
    return math.log1p(s) + top


def _float_operand(t):
    dtype = dtype_of(t) if (is_array(t) or is_scalar(t)) else None
    return dtype is not None and dtype.kind == "f"


@kernel
def _weighted_logsumexp(a, b, sign_out):
    """log|sum(b exp(a))| of two rows (and its sign through sign_out[0]), as SciPy computes it: the
    largest a where b != 0 factored out, accumulated in float64. Without return_sign a negative sum is nan."""
    top = -np.inf
    for i in range(a.size):
        if b[i] != 0 and np.float64(a[i]) > top:
            top = np.float64(a[i])
    shift = top if math.isfinite(top) else 0.0
    s = 0.0
    for i in range(a.size):
        if b[i] != 0:
            s += np.float64(b[i]) * math.exp(np.float64(a[i]) - shift)
    sign_out[0] = 1.0 if s > 0 else (-1.0 if s < 0 else 0.0)
    return np.log(abs(s)) + shift


def _weighted_impl(a, axes, keep, out, signed):
    """Code for logsumexp(a, axis, b, keepdims, return_sign) with weights b broadcast to a's shape."""
    ndim = a.ndim
    kept = [d for d in range(ndim) if d not in axes]
    perm = tuple(kept) + tuple(axes)
    inner = " * ".join(f"a.shape[{d}]" for d in axes) or "1"
    outer = " * ".join(f"a.shape[{d}]" for d in kept) or "1"
    moved = (lambda x: f"np.ascontiguousarray(np.transpose({x}, {perm!r}))") if perm != tuple(range(ndim)) \
        else (lambda x: f"np.ascontiguousarray({x})")
    shape = [("1" if d in axes else f"a.shape[{d}]") for d in range(ndim)] if keep else [f"a.shape[{d}]" for d in kept]
    lines = ["bb = np.broadcast_to(b, a.shape)",
             f"rows = {moved('a')}.reshape(({outer}, {inner}))",
             f"weights = {moved('bb')}.reshape(({outer}, {inner}))",
             f"values = np.empty({outer}, out)",
             f"signs = np.empty({outer}, out)",
             "sign = np.empty(1)",
             f"for o in range({outer}):",
             "    values[o] = out(_weighted_logsumexp(rows[o], weights[o], sign))",
             "    signs[o] = out(sign[0])"]
    if not signed:
        lines.append("values = np.where(signs < 0, out(np.nan), values)")
    if shape:
        lines += [f"values = values.reshape(({', '.join(shape)},))", f"signs = signs.reshape(({', '.join(shape)},))"]
        result = "(values, signs)" if signed else "values"
    else:
        result = "(values[0], signs[0])" if signed else "values[0]"
    lines.append(f"return {result}")
    source = "def impl(a, axis, b, keepdims, return_sign):\n" + "".join(f"    {line}\n" for line in lines)
    from .numba_build import build
    return build(source, {"np": np, "out": out, "_weighted_logsumexp": _weighted_logsumexp})


@lowers("logsumexp", ("a", "axis", "b", "keepdims", "return_sign"), reference=sp.logsumexp, prefer_literal=True)
def _logsumexp(a, axis, b, keepdims, return_sign):
    """logsumexp over a literal axis; with weights `b` (an array broadcasting to a's shape) and return_sign,
    a row of a and a row of b at a time."""
    signed = literal_value(return_sign, None)
    if not _float_operand(a) or not isinstance(signed, bool):
        return None
    weighted = not is_none(b)
    if weighted and not (is_array(a) and a.ndim and (_float_operand(b) or is_scalar(b))):
        return None
    keep = literal_value(keepdims, None)
    if not isinstance(keep, bool):
        return None
    ndim = a.ndim if is_array(a) else 0
    axes = static_axes(axis, ndim) if ndim else (() if is_none(axis) else None)
    if axes is None:
        return None
    shape_dtype = result_shape_dtype(sp.logsumexp, a, axis, b, keepdims, return_sign)
    if shape_dtype is None:
        return None
    out = shape_dtype[1].type
    if weighted or signed:
        if not is_array(a) or not a.ndim:
            return None
        return _weighted_impl(a, axes, keep, out, signed)
    return reduce_impl(("a", "axis", "b", "keepdims", "return_sign"), "a", a, axes, keep, _row_logsumexp,
                       np.float64(0), out, True)


def _static_axis_ok(x, axis):
    ndim = x.ndim if is_array(x) else 0
    return static_axes(axis, ndim) is not None if ndim else is_none(axis)


@lowers("softmax", ("x", "axis"), reference=sp.softmax, prefer_literal=True)
def _softmax(x, axis):
    """SciPy's softmax: exp(x - max) / sum(exp(x - max)) over a literal axis, in x's dtype."""
    if not _float_operand(x) or not is_array(x) or not _static_axis_ok(x, axis):
        return None
    if result_shape_dtype(sp.softmax, x, axis) is None:
        return None
    return implementation(("x", "axis"), [
        "shifted = L.exp(L.subtract(x, L.max(x, axis, None, True, None)))",
        "return L.divide(shifted, L.sum(shifted, axis, None, None, True, None, None))"])


@lowers("log_softmax", ("x", "axis"), reference=sp.log_softmax, prefer_literal=True)
def _log_softmax(x, axis):
    """SciPy's log_softmax: x - m - log(sum(exp(x - m))), m the max over a literal axis (0 where not finite)."""
    if not _float_operand(x) or not is_array(x) or not _static_axis_ok(x, axis):
        return None
    if result_shape_dtype(sp.log_softmax, x, axis) is None:
        return None
    return implementation(("x", "axis"), [
        "top = L.max(x, axis, None, True, None)",
        "shifted = L.subtract(x, L.where(L.isfinite(top), top, 0))",
        "return L.subtract(shifted, L.log(L.sum(L.exp(shifted), axis, None, None, True, None, None)))"])


# ------------------------------------------------------------------ one_hot
def _one_hot_reference(x, num_classes, dtype=None, axis=-1):
    from .. import nn
    return nn.one_hot(x, num_classes, dtype, axis)


@lowers("one_hot", ("x", "num_classes", "dtype", "axis"), reference=_one_hot_reference, prefer_literal=True)
def _one_hot(x, num_classes, dtype, axis):
    """one_hot with the classes on the last axis: out[..., j] = (x == j) in the reference's dtype."""
    from numba import types
    if not (is_array(x) or is_scalar(x)) or dtype_of(x) is None:
        return None
    if not isinstance(types.unliteral(num_classes), types.Integer):
        return None
    ndim = x.ndim if is_array(x) else 0
    axis_value = literal_value(axis, None)
    if axis_value not in (-1, ndim):
        return None
    shape_dtype = result_shape_dtype(_one_hot_reference, x, num_classes, dtype, axis)
    if shape_dtype is None:
        return None
    out = shape_dtype[1].type
    flat = "np.array(x).reshape(1)" if not is_array(x) else "np.ascontiguousarray(x).reshape(x.size)"
    shape = "(n,)" if ndim == 0 else "x.shape + (n,)"
    return implementation(("x", "num_classes", "dtype", "axis"), [
        "n = int(num_classes)",
        f"values = {flat}",
        "hot = np.zeros((values.size, n), out_dtype)",
        "for k in range(values.size):",
        "    for j in range(n):",
        "        if values[k] == j:",
        "            hot[k, j] = 1",
        f"return hot.reshape({shape})"], out_dtype=out)


@lowers("weight_or_one", ("b",), reference=sp._weight_or_one)
def _weight_or_one(b):
    """logsumexp's weights, or for none the factor 1 that its rules multiply float values by. The reference
    gives a weak 1.0 (the product keeps the other factor's dtype); here it is np.True_, which a product
    promotes to the other factor's float dtype as JAX promotes the weak 1.0, with the same values."""
    if is_none(b):
        return implementation(("b",), ["return np.True_"])
    if not _float_operand(b):
        return None
    return implementation(("b",), ["return b"])
