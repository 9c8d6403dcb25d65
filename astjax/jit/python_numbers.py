"""Python's arithmetic on Python numbers, for compiled code (imports Numba).

Numba computes a Python int as an int64 that wraps, divides by zero without
raising (NumPy's error model), and gives nan for `(-8.0) ** (1/3)`. Python's
ints are unbounded, its `/`, `//` and `%` by zero raise ZeroDivisionError, and
a negative float to a fractional power is a complex number. The lowering pass
`lower/python_numbers.py` calls these helpers where both operands are Python
numbers; each either gives Python's answer or raises:

    ZeroDivisionError      where Python raises it (the same exception);
                           where the first call did not see the operands' types
                           (`where` starts with "?"), a PythonNumberError instead;
    PythonNumberError      where Python's answer does not fit compiled code (an
                           int beyond 64 bits, an int to a negative power, a
                           complex power): `compiled.py` turns it into a
                           JitError naming the user's line (`where`).

On arrays and NumPy scalars of other widths the helpers are the plain operator.
"""
import math
import operator

from numba import njit, types
from numba.extending import overload

from ..runtime.numba_build import WITHOUT_WRAPPERS
from .python_number_error import PythonNumberError

__all__ = ["PythonNumberError", "PYTHON_NUMBER_HELPERS"]

INT64_MIN = -(2 ** 63)


def _stub(name):
    def helper(a, b, where):
        raise NotImplementedError(f"{name} runs only in compiled code")
    helper.__name__ = name
    return helper


py_add, py_sub, py_mul, py_div, py_floordiv, py_mod, py_pow, py_lshift, py_rshift = (
    _stub(n) for n in ("py_add", "py_sub", "py_mul", "py_div", "py_floordiv", "py_mod", "py_pow", "py_lshift",
                       "py_rshift"))


def py_math1(result, a, where):
    raise NotImplementedError("py_math1 runs only in compiled code")


def py_math2(result, a, b, where):
    raise NotImplementedError("py_math2 runs only in compiled code")


def np_int_pow(a, b):
    raise NotImplementedError("np_int_pow runs only in compiled code")


def py_neg(a, where):
    raise NotImplementedError("py_neg runs only in compiled code")


def py_int(a, where):
    raise NotImplementedError("py_int runs only in compiled code")


def _int64(t):
    return isinstance(t, types.Integer) and t.signed and t.bitwidth == 64


def _number(t):
    return isinstance(t, (types.Integer, types.Float)) and not isinstance(t, types.Boolean)


def _ints(a, b):
    return _int64(a) and _int64(b)


def _floats(a, b):
    return _number(a) and _number(b) and not _ints(a, b)


def _plain(op):
    return lambda a, b, where: op(a, b)


# The checks compare before computing: LLVM may assume a signed operation does not overflow and fold
# a check made after it (`(a * b) // a == b`) to True.
INT64_MAX = 2 ** 63 - 1
_SAFE_PRODUCT = 9.2e18      # a float64 product below this is within 2 ** -53 of an exact one below 2 ** 63


@overload(py_add, jit_options=WITHOUT_WRAPPERS)
def _py_add(a, b, where):
    if _ints(a, b):
        def add(a, b, where):
            if (b > 0 and a > INT64_MAX - b) or (b < 0 and a < INT64_MIN - b):
                raise PythonNumberError("a Python int sum overflowed 64 bits", where)
            return a + b
        return add
    return _plain(operator.add)


@overload(py_sub, jit_options=WITHOUT_WRAPPERS)
def _py_sub(a, b, where):
    if _ints(a, b):
        def sub(a, b, where):
            if (b < 0 and a > INT64_MAX + b) or (b > 0 and a < INT64_MIN + b):
                raise PythonNumberError("a Python int difference overflowed 64 bits", where)
            return a - b
        return sub
    return _plain(operator.sub)


def _checked_mul(a, b, where):
    if abs(float(a) * float(b)) >= _SAFE_PRODUCT:
        raise PythonNumberError("a Python int product reached 64 bits", where)
    return a * b


_CHECKED_MUL = njit(inline="always")(_checked_mul)


def _zero_division(message, where):
    raise NotImplementedError("_zero_division runs only in compiled code")


@overload(_zero_division, prefer_literal=True, jit_options=WITHOUT_WRAPPERS)
def _zero_division_raise(message, where):
    """Python's ZeroDivisionError; a refusal where the first call did not see the operands' types (a `where`
    starting with "?"): NumPy's scalars give inf or nan there, Python's numbers raise, and jit cannot tell.

    The lowering writes `where` as a string constant, and the division helpers take literal types
    (prefer_literal): the test on its "?" is decided when Numba compiles. Tested at run time,
    `where.startswith("?")` compiled Numba's string slicing and comparison into every function that
    divides Python numbers, 1-3 s of its first call; a helper compiled per call site costs far less."""
    if isinstance(where, types.StringLiteral) and isinstance(message, types.StringLiteral):
        where_text, message_text = where.literal_value, message.literal_value
        if where_text.startswith("?"):
            def refuse(message, where):
                raise PythonNumberError(_UNSEEN_DIVISION, where_text)
            return refuse

        def zero_division(message, where):
            raise ZeroDivisionError(message_text)
        return zero_division

    def at_run_time(message, where):
        if where.startswith("?"):
            raise PythonNumberError(_UNSEEN_DIVISION, where)
        raise ZeroDivisionError(message)
    return at_run_time


_UNSEEN_DIVISION = ("a division by zero: Python numbers raise ZeroDivisionError, NumPy scalars give inf or nan, "
                    "and the first call did not run this line to tell which these are")


@overload(py_mul, jit_options=WITHOUT_WRAPPERS)
def _py_mul(a, b, where):
    if _ints(a, b):
        checked = _CHECKED_MUL
        return lambda a, b, where: checked(a, b, where)
    return _plain(operator.mul)


@overload(py_div, prefer_literal=True, jit_options=WITHOUT_WRAPPERS)
def _py_div(a, b, where):
    if _number(a) and _number(b):
        if _seen(where):            # raised here: no _zero_division helper for Numba to compile as well
            def div_seen(a, b, where):
                if b == 0:
                    raise ZeroDivisionError("division by zero")
                return a / b
            return div_seen

        def div(a, b, where):
            if b == 0:
                _zero_division("division by zero", where)
            return a / b
        return div
    return _plain(operator.truediv)


def _seen(where):
    """Whether `where` is a string constant for a line whose operand types the first call saw (not "?")."""
    return isinstance(where, types.StringLiteral) and not where.literal_value.startswith("?")


@overload(py_floordiv, prefer_literal=True, jit_options=WITHOUT_WRAPPERS)
def _py_floordiv(a, b, where):
    if _ints(a, b):
        def floordiv(a, b, where):
            if b == 0:
                _zero_division("integer division or modulo by zero", where)
            if a == INT64_MIN and b == -1:
                raise PythonNumberError("a Python int quotient overflowed 64 bits", where)
            return a // b
        return floordiv
    if _floats(a, b):
        def floordiv_float(a, b, where):
            if b == 0:
                _zero_division("float floor division by zero", where)
            return a // b
        return floordiv_float
    return _plain(operator.floordiv)


@overload(py_mod, prefer_literal=True, jit_options=WITHOUT_WRAPPERS)
def _py_mod(a, b, where):
    if _ints(a, b):
        def mod(a, b, where):
            if b == 0:
                _zero_division("integer modulo by zero", where)
            if b == -1:
                return a - a      # Python: always 0 (and INT64_MIN % -1 must not reach the hardware)
            return a % b
        return mod
    if _floats(a, b):
        def mod_float(a, b, where):
            if b == 0:
                _zero_division("float modulo by zero", where)
            return a % b
        return mod_float
    return _plain(operator.mod)


@overload(py_pow, prefer_literal=True, jit_options=WITHOUT_WRAPPERS)
def _py_pow(a, b, where):
    if _ints(a, b):
        checked = _CHECKED_MUL

        def power(a, b, where):
            if b < 0:
                raise PythonNumberError("a Python int to a negative power is a float in Python", where)
            r = a - a + 1
            base, e = a, b
            while e > 0:
                if e & 1:
                    r = checked(r, base, where)
                e >>= 1
                if e > 0:
                    base = checked(base, base, where)
            return r
        return power
    if _floats(a, b):

        def power_float(a, b, where):
            fa, fb = float(a), float(b)
            if fa == 0.0 and fb < 0.0:
                _zero_division("0.0 cannot be raised to a negative power", where)
            if fa < 0.0 and math.isfinite(fb) and math.floor(fb) != fb:
                raise PythonNumberError("a negative float to a fractional power is a complex number in Python",
                                        where)
            r = fa ** fb
            if math.isinf(r) and math.isfinite(fa) and math.isfinite(fb):
                raise OverflowError("(34, 'Numerical result out of range')")
            return r
        return power_float
    return _plain(operator.pow)


@overload(py_lshift, jit_options=WITHOUT_WRAPPERS)
def _py_lshift(a, b, where):
    if _ints(a, b):
        def lshift(a, b, where):
            if b < 0:
                raise ValueError("negative shift count")
            if a == 0:
                return a
            if b >= 63 or (a > 0 and a > (INT64_MAX >> b)) or (a < 0 and a < (INT64_MIN >> b)):
                raise PythonNumberError("a Python int shift overflowed 64 bits", where)
            return a << b
        return lshift
    return _plain(operator.lshift)


@overload(py_rshift, jit_options=WITHOUT_WRAPPERS)
def _py_rshift(a, b, where):
    if _ints(a, b):
        def rshift(a, b, where):
            if b < 0:
                raise ValueError("negative shift count")
            if b >= 63:
                return a - a - 1 if a < 0 else a - a
            return a >> b
        return rshift
    return _plain(operator.rshift)


@overload(py_neg, jit_options=WITHOUT_WRAPPERS)
def _py_neg(a, where):
    if _int64(a):
        def neg(a, where):
            if a == INT64_MIN:
                raise PythonNumberError("a Python int negation overflowed 64 bits", where)
            return -a
        return neg
    return lambda a, where: -a


@overload(py_int, jit_options=WITHOUT_WRAPPERS)
def _py_int(a, where):
    if isinstance(a, types.Float):

        def to_int(a, where):
            if math.isnan(a):
                raise ValueError("cannot convert float NaN to integer")
            if math.isinf(a):
                raise OverflowError("cannot convert float infinity to integer")
            if not -9.223372036854775e18 <= a <= 9.223372036854775e18:
                raise PythonNumberError("int() of this float exceeds 64 bits", where)
            return int(a)
        return to_int
    return lambda a, where: int(a)


@njit(inline="always")
def _math_check(result, finite, nan, where):
    if math.isnan(result) and not nan:
        raise ValueError("math domain error")
    if math.isinf(result) and finite:
        raise PythonNumberError("Python's math module raises here (a pole or an overflow); Numba gives inf",
                                where)
    return result


def _float(t):
    return isinstance(t, (types.Float, types.Integer)) and not isinstance(t, types.Boolean)


@overload(py_math1, jit_options=WITHOUT_WRAPPERS)
def _py_math1(result, a, where):
    if _float(result) and _float(a):
        def check1(result, a, where):
            _math_check(float(result), math.isfinite(float(a)), math.isnan(float(a)), where)
            return result
        return check1
    return lambda result, a, where: result


@overload(py_math2, jit_options=WITHOUT_WRAPPERS)
def _py_math2(result, a, b, where):
    if _float(result) and _float(a) and _float(b):
        def check2(result, a, b, where):
            fa, fb = float(a), float(b)
            _math_check(float(result), math.isfinite(fa) and math.isfinite(fb), math.isnan(fa) or math.isnan(fb), where)
            return result
        return check2
    return lambda result, a, b, where: result


def _integer(t):
    t = t.dtype if isinstance(t, types.Array) else t
    return isinstance(t, types.Integer)


@overload(np_int_pow, jit_options=WITHOUT_WRAPPERS)
def _np_int_pow(a, b):
    """NumPy's integer power: a negative exponent raises ValueError (Numba would give 0 or 1)."""
    if not (_integer(a) and _integer(b)):
        return lambda a, b: a ** b
    if isinstance(b, types.Array):
        def power_arrays(a, b):
            if b.size and b.min() < 0:
                raise ValueError("Integers to negative integer powers are not allowed.")
            return a ** b
        return power_arrays

    def power(a, b):
        if b < 0:
            raise ValueError("Integers to negative integer powers are not allowed.")
        return a ** b
    return power


PYTHON_NUMBER_HELPERS = {f.__name__: f for f in (py_add, py_sub, py_mul, py_div, py_floordiv, py_mod, py_pow,
                                                 py_lshift, py_rshift, py_neg, py_int, py_math1, py_math2,
                                                 np_int_pow)}
PYTHON_NUMBER_HELPERS["PythonNumberError"] = PythonNumberError
