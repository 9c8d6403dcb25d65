"""Every primitive's Numba lowering gives its reference implementation's values and dtype.

Table-driven: CASES lists (primitive name, arguments); each case runs the
primitive's `impl` and its lowering inside `numba.njit` on the same NumPy
arguments (float32 and float64, 0-d, 1-d, 2-d and broadcasting shapes, ints
where the primitive takes them) and asserts the same dtype, the same shape and
the same values. Tolerances: exact for arithmetic, comparisons, structure and
indexing; a few units in the last place (rtol 4 eps of the dtype) where NumPy
and Numba call different libm or SIMD routines (exp, sin, ...); n eps for sums,
where NumPy's summation order differs from a loop's. One compiled wrapper per
primitive and arity is shared by all its cases (compiling is what costs).
"""
import os
import subprocess
import sys

import numpy as np
import pytest

numba = pytest.importorskip("numba")

import astjax  # noqa: E402,F401
from astjax.rules.registry import PRIMITIVES, lowering  # noqa: E402

RNG = np.random.default_rng(7)
F32, F64, I32, I64 = np.float32, np.float64, np.int32, np.int64


def normal(shape, dtype=F32):
    return RNG.standard_normal(shape).astype(dtype)


def positive(shape, dtype=F32, low=0.5, high=2.0):
    return RNG.uniform(low, high, shape).astype(dtype)


def ints(shape, dtype=I32, low=-5, high=6):
    return RNG.integers(low, high, shape).astype(dtype)


def unit(shape, dtype=F32):
    return RNG.uniform(-0.9, 0.9, shape).astype(dtype)


# Tolerances in units of the result dtype's eps.
EXACT = 0
ULPS = 4
TRANSCENDENTAL = {"exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "arcsin", "arccos",
                  "arctan", "sinh", "cosh", "tanh", "arctan2", "power", "sqrt"}


def shapes_and_dtypes(make, shapes=((), (5,), (3, 4)), dtypes=(F32, F64)):
    """One argument per (shape, dtype): 0-d arrays become NumPy scalars, as jit passes them."""
    out = []
    for dtype in dtypes:
        for shape in shapes:
            value = make(shape, dtype)
            out.append(value[()] if shape == () else value)
    return out


CASES = []
THOROUGH = bool(os.environ.get("ASTJAX_THOROUGH_LOWERINGS"))     # every shape and dtype (slow: minutes)


class Lit:
    """An argument written as a literal in the compiled source (a Python int there is weak, as in JAX)."""

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return f"Lit({self.value!r})"


_COUNTS = {}


def case(name, *args, tol=None, core=False):
    """Add a case. By default only a primitive's first case (and cases marked core) run; all run when THOROUGH."""
    _COUNTS[name] = _COUNTS.get(name, 0) + 1
    if THOROUGH or core or _COUNTS[name] == 1:
        CASES.append((name, args, tol))


# ------------------------------------------------------------ elementwise unary
UNARY_DOMAIN = {"sqrt": positive, "log": positive, "log2": positive, "log10": positive, "log1p": positive,
                "arcsin": unit, "arccos": unit, "reciprocal": positive}
UNARY = ("negative", "positive", "abs", "square", "sqrt", "reciprocal", "exp", "expm1", "log", "log1p",
         "log2", "log10", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
         "sign", "floor", "ceil", "trunc", "isnan", "isfinite", "isinf", "logical_not")
SCALAR_CHECKED = {"exp", "log", "sqrt", "sin", "tanh", "negative", "abs", "floor", "sign", "isnan", "add", "subtract",
                  "multiply", "divide", "power", "maximum", "mod", "less", "equal", "logical_and"}
for _name in UNARY:
    make = UNARY_DOMAIN.get(_name, normal)
    case(_name, make((3, 4), F32))
    if THOROUGH or _name in SCALAR_CHECKED:
        case(_name, make((), F64)[()], core=True)
    if THOROUGH:
        for _x in shapes_and_dtypes(make):
            case(_name, _x)
        case(_name, ints((4,)))
for _name in ("sign", "isnan", "isfinite", "isinf", "floor", "abs"):
    case(_name, np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, 2.5, -2.5], F32), core=True)
for _name in ("exp", "abs", "negative", "floor", "square", "sign"):
    case(_name, ints((5,), I32))
case("sqrt", ints((2, 3), I64, 0, 9))

# ------------------------------------------------------------ elementwise binary
BINARY_DOMAIN = {"divide": positive, "power": positive, "mod": positive, "floor_divide": positive}
BINARY = ("add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "arctan2", "mod", "floor_divide",
          "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
          "logical_xor")
for _name in BINARY:
    make = BINARY_DOMAIN.get(_name, normal)
    case(_name, make((3, 4)), make((3, 4)))                   # same shapes
    case(_name, make((3, 4)), make((1, 4)), core=True)        # broadcasting (the same compiled code)
    if THOROUGH or _name in SCALAR_CHECKED:
        case(_name, make((), F64)[()], make((), F64)[()], core=True)     # NumPy scalars
        case(_name, make((5,)), Lit(2), core=True)                       # a weak Python int literal
    if THOROUGH:
        for dtype in (F32, F64):
            case(_name, make((3, 4), dtype), make((4,), dtype))
            case(_name, make((2, 1), dtype), make((), dtype)[()])
        case(_name, make((5,), F32), make((5,), F64))
        if _name != "power":
            case(_name, ints((5,)), ints((5,), I32, 1, 4))
            case(_name, ints((5,)), Lit(3))
for _name in ("mod", "floor_divide"):
    case(_name, normal((20,), F64) * 5, np.array([-3.0, -0.5, 0.0, 0.5, 3.0] * 4), core=True)
    case(_name, ints((20,), I32, -9, 9), np.array([-3, -1, 0, 1, 3] * 4, I32), core=True)
for _name in ("add", "less"):
    case(_name, ints((5,)), Lit(3), core=True)
    case(_name, ints((5,)), positive((5,), F32), core=True)
case("maximum", np.array([np.nan, 1.0, 2.0], F32), np.array([0.0, np.nan, 3.0], F32), core=True)
case("minimum", np.array([np.nan, 1.0, 2.0], F32), np.array([0.0, np.nan, 3.0], F32), core=True)
case("power", ints((5,), I32, 0, 4), ints((5,), I32, 0, 4))
case("equal", np.float32(0.1) + np.zeros(3, F32), np.float32(0.1), core=True)
case("divide", normal((3, 4), F32), normal((4,), F64), core=True)


# ------------------------------------------------------------ selection, clipping, rounding, casts
case("where", normal((3, 4)) > 0, normal((3, 4)), normal((1, 4)))
case("where", normal((3, 4)) > 0, normal((3, 4)), Lit(0))
case("where", np.bool_(True), normal((), F64)[()], normal((), F64)[()])
case("clip", normal((3, 4)), Lit(-1), Lit(1), None, None)
case("clip", normal((3, 4)), np.float32(-0.5), None, None, np.float32(0.5))
case("clip", normal((6,), F64), None, None, None, 0.25)
case("clip_mask", np.array([-2.0, -1.0, 0.0, 1.0, 2.0], F32), Lit(-1), Lit(1), None, None)
case("clip_mask", np.array([-2.0, -1.0, 0.0, 1.0, 2.0]), None, None, None, 1.0)
case("round", normal((3, 4)) * 10, Lit(0), None)
case("round", normal((3, 4), F64) * 10, Lit(2), None)
case("around", ints((4,)), Lit(0), None)
case("builtin_max", np.float32(1.5), np.float32(-2.0))
case("builtin_min", 3.0, np.nan)
case("to_float", ints((3,)))
case("to_float", np.int32(4))
case("to_float", normal((2, 2), F64))
case("astype", normal((3, 4)) * 5, np.int32)
case("astype", ints((4,)), np.float64)
case("astype", normal((4,)), np.bool_)

# ------------------------------------------------------------ reductions
X3 = normal((3, 4, 5))
case("sum", X3, None, None, None, Lit(False), None, None, tol=8)
case("sum", X3, Lit(1), None, None, Lit(False), None, None, tol=8)
case("sum", X3, Lit((0, 2)), None, None, Lit(True), None, None, tol=8, core=True)
case("sum", normal((1000,)), None, None, None, Lit(False), None, None, tol=8, core=True)
case("sum", ints((4, 5)), Lit(-1), None, None, Lit(False), None, None, core=True)
case("sum", normal((3, 4), F64), Lit(0), None, None, Lit(False), None, None, tol=8)
case("sum", normal((), F64)[()], None, None, None, Lit(False), None, None)
case("mean", X3, Lit(2), None, None, Lit(False), None, tol=8)
case("mean", ints((4, 5)), None, None, None, Lit(True), None, tol=8)
case("prod", positive((3, 4)), Lit(1), None, None, Lit(False), tol=8)
case("max", X3, Lit(1), None, Lit(False), None)
case("max", np.array([1.0, np.nan, 3.0], F32), None, None, Lit(False), None, core=True)
case("min", ints((4, 5)), Lit(0), None, Lit(True), None)
case("argmax", X3, Lit(1), None, Lit(False))
case("argmin", normal((7,), F64), None, None, Lit(False))
case("all", normal((3, 4)) > -1, Lit(1), None, Lit(False), None)
case("any", normal((3, 4)) > 1, None, None, Lit(False), None)
case("var", X3, Lit(2), None, None, Lit(0), Lit(False), None, None, tol=16)
case("std", normal((4, 6), F64), None, None, None, Lit(1), Lit(True), None, None, tol=16)
case("cumsum", X3, Lit(1), None, None, tol=8)
case("cumsum", ints((3, 4)), None, None, None)
case("cumsum_adjoint", X3, X3, Lit(-1), tol=8)
case("cumsum_adjoint", normal((12,)), normal((3, 4)), None, tol=8)


# ------------------------------------------------------------ shapes and creation
X2 = normal((3, 4))
case("shape", X3)
case("shape", np.float32(1.0))
case("ndim", X3)
case("size", X3, None)
case("size", X3, Lit(-1))
case("zeros", Lit((2, 3)), None)
case("ones", Lit(4), np.float64)
case("empty", Lit((2,)), np.int32)
case("zeros_like", X3, None, None)
case("ones_like", ints((3,)), np.float32, None)
case("ones_like", np.float64(2.0), None, None)
case("empty_like", X2, None, Lit((5,)))
case("full", Lit((2, 3)), np.float32(1.5), None)
case("full", Lit((2, 3)), normal((3,), F64), None)
case("full_like", X2, Lit(7), None, None)
case("full_like", X2, 0.5, np.float64, None)
case("eye", Lit(3), None, Lit(1), None)
case("eye", Lit(3), Lit(4), Lit(-1), np.float64)
case("identity", Lit(3), None)
case("arange", Lit(5), None, None, None)
case("arange", Lit(2), Lit(11), Lit(3), None)
case("arange", np.float32(0.5), np.float32(2.0), np.float32(0.3), None)
case("arange", Lit(-3), Lit(3), None, np.float64)

# ------------------------------------------------------------ reshaping
case("reshape", X3, Lit((4, -1)), Lit("C"), None, None)
case("reshape", X3.transpose(2, 0, 1), Lit((5, 12)), Lit("C"), None, None)
case("reshape", normal((1, 1)), Lit(()), Lit("C"), None, None)
case("ravel", X3.transpose(1, 0, 2), Lit("C"))
case("transpose", X3, None)
case("transpose", X3, Lit((1, 2, 0)))
case("swapaxes", X3, Lit(0), Lit(-1))
case("moveaxis", X3, Lit(0), Lit(-1))
case("moveaxis", X3, Lit((0, 1)), Lit((2, 0)))
case("flip", X3, Lit(1))
case("flip", X2, None)
case("expand_dims", X2, Lit(1))
case("expand_dims", X2, Lit((0, -1)))
case("squeeze", normal((3, 1, 4)), Lit(1))
case("squeeze", normal((1, 4, 1)), Lit((0, 2)))
case("broadcast_to", normal((4,)), Lit((3, 4)))
case("broadcast_to", normal((3, 1), F64), Lit((2, 3, 5)))
case("copy", X2, Lit("K"))

# ------------------------------------------------------------ indexing and updates
case("getitem", X3, Lit(1))
case("getitem", X3, Lit((-1, slice(1, 3))))
case("getitem", X3, Lit((0, 2, 4)))
case("getitem", X2, Lit(slice(None, None, -2)))
for _name in ("at_set", "at_add", "at_multiply"):
    case(_name, X2, Lit((1, slice(0, 3))), np.float32(2.0))
    case(_name, X2, Lit(2), normal((4,)))
    case(_name, X2, Lit((2, -1)), np.float32(3.0))
    case(_name, X2, Lit((7, 0)), np.float32(3.0), core=True)    # out of range: the update is dropped
case("at_set", ints((5,)), Lit(slice(1, 3)), Lit(9))
case("index_adjoint", X2, Lit(1), normal((4,)))
case("index_adjoint", X2, Lit((slice(None), 2)), normal((3,), F64))
case("index_adjoint", X2, Lit((0, 3)), np.float32(2.0))
case("distinct_index", X2, Lit((1, 2)), Lit("here"))
case("unique_index", Lit(2), X2)
case("dynamic_slice", X3, Lit((1, -2, 3)), Lit((2, 2, 2)), core=True)
case("dynamic_slice", normal((8,), F64), Lit((6,)), Lit((4,)))
case("dynamic_slice_adjoint", normal((2, 2)), X2, Lit((2, 1)))
case("pad", X2, Lit(((1, 2), (0, 3))), Lit("constant"))
case("pad", X2, Lit(((2, 1), (1, 2))), Lit("edge"), core=True)
case("pad", normal((5,), F64), Lit(2), Lit("edge"))
case("pad", X2, Lit((1, 2)), Lit("constant"))
case("pad_adjoint", normal((6, 7)), Lit(((1, 2), (0, 3))), Lit("constant"))
case("pad_adjoint", normal((6, 7)), Lit(((2, 1), (1, 2))), Lit("edge"), tol=8, core=True)
case("pad_adjoint", normal((9,), F64), Lit(2), Lit("edge"), tol=8)
case("take", X2, np.array([0, -1, 9, 2]), Lit(1))
case("take", X3, np.array([[0, 2], [1, 1]]), Lit(0))
case("take", X2, np.array([3, 40]), None, core=True)
case("take", ints((3, 4)), np.array([1, 9]), Lit(0))
case("take_adjoint", normal((3, 4)), X2, np.array([0, 0, 2, -1]), Lit(1))
case("take_adjoint", normal((2, 2, 4, 5)), X3, np.array([[0, 2], [1, 1]]), Lit(0))
case("take_adjoint", normal((5,)), X2, np.array([0, 3, 3, 11, -1]), None)

# ------------------------------------------------------------ adjoint helpers
case("unbroadcast", normal((2, 3, 4)), normal((3, 1)), tol=8)
case("unbroadcast", normal((3, 4)), normal((3, 4)))
case("unbroadcast", normal((3, 4), F64), np.float64(1.0), tol=8)
case("unbroadcast", np.float32(2.0), normal((2, 3)), core=True)
case("unbroadcast", normal((4,)), normal((3, 4)))
case("unbroadcast_to", normal((2, 3, 4)), Lit((1, 4)), tol=8)
case("unreduce", normal((3,)), X2, Lit(1), Lit(False), None)
case("unreduce", normal((1, 4)), X2, Lit(0), Lit(True), None)
case("unreduce", np.float32(1.5), X3, None, Lit(False), None, core=True)
case("unreduce", normal((4,), F64), X3, Lit((0, 2)), Lit(False), None)
case("extremum_mask", np.array([[1, 3, 3], [2, 0, 1]], F32), np.array([3, 2], F32), Lit(1), Lit(False))
case("extremum_mask", np.array([[1, 3, 3], [2, 0, 1]], F64), np.float64(3.0), None, Lit(False))
case("zero_like", X2)
case("zero_like", ints((3,)))
case("zero_like", np.float64(2.0))
case("cast_adjoint", X2, ints((3, 4)))
case("cast_adjoint", X2, normal((3, 4), F64))
case("broadcast_like", np.float32(2.0), (X2, normal((4,))))
case("broadcast_like", normal((4,), F64), (X2,))
case("reduced_size", X3, Lit((0, 2)), Lit(1), None, None)
case("reduced_size", X3, None, Lit(0), Lit(2), None)
case("invert_permutation", Lit((2, 0, 1)), None)
case("stack", (X2, X2 + 1), Lit(1))
case("stack", (np.float32(1.0), np.float32(2.0)), Lit(0))
case("stack", (normal((3,)), normal((3,), F64)), Lit(-1))
case("concatenate", (X2, normal((2, 4))), Lit(0))
case("concatenate", (X2, normal((3, 1), F64)), Lit(-1))
case("stack_part", X3, Lit(1), Lit(1))
case("stack_part_adjoint", normal((3, 5)), X3, Lit(2), Lit(1))
case("concatenate_part", normal((5, 4)), (X2, normal((2, 4))), Lit(1), Lit(0))
case("concatenate_part_adjoint", normal((2, 4)), normal((5, 4)), (X2, normal((2, 4))), Lit(1), Lit(0))

# ------------------------------------------------------------ products
A, B, V = normal((3, 4)), normal((4, 5)), normal((4,))
for _name in ("matmul", "dot"):
    case(_name, A, B, None, None, tol=8)
    case(_name, A, V, None, None, tol=8, core=True)
    case(_name, V, B, None, None, tol=8)
    case(_name, V, V, None, None, tol=8)
    case(_name, A.astype(F64), B, None, None, tol=8)
case("matmul", normal((2, 3, 4)), B, None, None, tol=8, core=True)
case("matmul", normal((2, 3, 4)), normal((1, 4, 2)), None, None, tol=8)
case("dot", np.float32(2.0), A, None, None)
case("inner", A, normal((5, 4)), None, None, tol=8)
case("inner", V, A, None, None, tol=8)
case("outer", A, V, None)
case("outer", V, normal((2,), F64), None)


# ------------------------------------------------------------ diagonals and linear algebra
case("diagonal", X2, Lit(1), Lit(0), Lit(1))
case("diagonal", X3, Lit(-1), Lit(2), Lit(1), core=True)
case("diagonal_adjoint", normal((3, 4)), X3, Lit(-1), Lit(2), Lit(1))
case("trace", X2, Lit(0), Lit(0), Lit(1), None, None, tol=8)
case("trace", X3, Lit(1), Lit(1), Lit(2), None, None, tol=8, core=True)
case("trace_adjoint", normal((5,)), X3, Lit(0), Lit(0), Lit(1))
M4 = normal((4, 4)) + 4 * np.eye(4, dtype=F32)
case("inv", M4, tol=64)
case("det", M4.astype(F64), tol=64)
case("solve", M4, normal((4,)), tol=64)
case("solve", M4.astype(F64), normal((4, 2), F64), tol=64, core=True)


# ------------------------------------------------------------ closeness, spacing, arrays
CLOSE_A = np.array([1.0, np.nan, np.inf, 2.0, 1e-9, -np.inf], F32)
CLOSE_B = np.array([1.0, np.nan, np.inf, 2.00001, 0.0, np.inf], F32)
case("isclose", CLOSE_A, CLOSE_B, 1e-05, 1e-08, Lit(False))
case("isclose", CLOSE_A, CLOSE_B, 1e-05, 1e-08, Lit(True), core=True)
case("isclose", ints((4,)), ints((4,)), 1e-05, 1e-08, Lit(False), core=True)
case("allclose", CLOSE_A[3:5], CLOSE_B[3:5], 1e-05, 1e-08, Lit(False))
case("linspace", np.float32(0.0), np.float32(1.0), Lit(7), Lit(True), Lit(False), None, Lit(0))
case("linspace", 0.5, 2.0, Lit(4), Lit(False), Lit(False), np.float32, Lit(0), core=True)
case("linspace", np.float64(-1.0), np.float64(3.0), Lit(1), Lit(True), Lit(False), None, Lit(0), core=True)
case("linspace_weights", X2, Lit(4), Lit(True), Lit(1))
case("array", (np.float32(1.0), np.float32(2.5)), None)
case("array", X2, np.float64, core=True)
case("builtin_len", X3)


case("cumprod", positive((3, 4)), Lit(1), tol=8)
case("cumprod", ints((5,), I32, 1, 4), None, core=True)
case("diag", normal((4,)), Lit(1))
case("diag", normal((3,), F64), Lit(-2), core=True)
case("diag", X2, Lit(1), core=True)


# ------------------------------------------------------------ special functions (runtime/numba_special.py)
# Computed in float64 and rounded: within a few ulps of SciPy's and NumPy's float32 loops.
SPECIAL_DOMAIN = {"logit": lambda shape, dtype=F32: RNG.uniform(0.02, 0.98, shape).astype(dtype),
                  "arccosh": lambda shape, dtype=F32: positive(shape, dtype, 1.0, 5.0), "arctanh": unit,
                  "entr": positive, "gammaln": lambda shape, dtype=F32: RNG.uniform(-4.5, 30.0, shape).astype(dtype)}
SPECIAL_UNARY = ("expit", "log_expit", "logit", "erf", "erfc", "ndtr", "log_ndtr", "gammaln", "digamma", "entr",
                 "cbrt", "exp2", "arcsinh", "arccosh", "arctanh", "deg2rad", "rad2deg", "fabs", "signbit")
for _name in SPECIAL_UNARY:
    _make = SPECIAL_DOMAIN.get(_name, lambda shape, dtype=F32: (RNG.standard_normal(shape) * 6.0).astype(dtype))
    case(_name, _make((3, 4), F32), tol=ULPS)
    case(_name, _make((5,), F64), tol=ULPS, core=_name in ("log_ndtr", "digamma", "gammaln"))
for _name in ("xlogy", "xlog1py", "logaddexp", "logaddexp2", "hypot", "copysign", "heaviside", "fmax", "fmin"):
    case(_name, normal((3, 4)), positive((1, 4)) if _name.startswith("xlog") else normal((1, 4)), tol=ULPS)
    case(_name, normal((4,), F64), normal((), F64)[()], tol=ULPS)
case("logsumexp", normal((3, 4)) * 10, Lit(1), None, Lit(False), Lit(False), tol=8, core=True)
case("logsumexp", normal((3, 4), F64), None, None, Lit(True), Lit(False), tol=8)
case("softmax", normal((3, 4)) * 10, Lit(1), tol=8, core=True)
case("log_softmax", normal((3, 4), F64), Lit(0), tol=8, core=True)
case("one_hot", ints((5,), I64, -1, 5), Lit(4), None, Lit(-1), core=True)
case("weight_or_one", normal((3,)))

# ------------------------------------------------------------ running a case
_WRAPPERS = {}


def _wrapper(name, args):
    """One compiled caller per primitive and arity (and literal arguments), shared by its cases."""
    key = (name, len(args), tuple(repr(a) for a in args if isinstance(a, Lit)))
    if key not in _WRAPPERS:
        fn = lowering(PRIMITIVES[name], "numba")
        assert fn is not None, f"{name} has no Numba lowering"
        params = [f"a{i}" for i, a in enumerate(args) if not isinstance(a, Lit)]
        values = [repr(a.value) if isinstance(a, Lit) else f"a{i}" for i, a in enumerate(args)]
        namespace = {"L": fn, "np": np}
        exec(f"def w({', '.join(params)}):\n    return L({', '.join(values)})\n", namespace)
        _WRAPPERS[key] = numba.njit(namespace["w"])
    return _WRAPPERS[key]


def _return_type(wrapper, args):
    key = tuple(numba.typeof(a) for a in args)
    return wrapper.overloads[key].signature.return_type


def run_lowered(name, args):
    """(result, its Numba return type) of the lowering of `name` on `args`."""
    wrapper = _wrapper(name, args)
    runtime = [a for a in args if not isinstance(a, Lit)]
    result = wrapper(*runtime)
    return result, _return_type(wrapper, runtime)


def reference(name, args):
    """prim.impl on the arguments the lowering takes positionally (keyword-only ones passed by name)."""
    import inspect
    values = [a.value if isinstance(a, Lit) else a for a in args]
    positional, keywords = [], {}
    for param, value in zip(PRIMITIVES[name].signature.parameters.values(), values):
        if param.kind is inspect.Parameter.KEYWORD_ONLY:
            keywords[param.name] = value
        elif param.kind is inspect.Parameter.VAR_POSITIONAL:
            positional.extend(value)          # a sequence operand arrives as one tuple
        else:
            positional.append(value)
    with np.errstate(all="ignore"):        # mod and floor_divide by zero are among the cases
        return PRIMITIVES[name].impl(*positional, **keywords)


def _dtype_of(numba_type):
    from numba.np.numpy_support import as_dtype
    return as_dtype(numba_type.dtype if isinstance(numba_type, numba.types.Array) else numba_type)


def check_same(name, args, expected, got, numba_type, tol):
    if isinstance(expected, tuple) or expected is None:     # shapes, permutations, indices
        assert got == expected, f"{name}: {got!r} != {expected!r}"
        return
    expected = np.asarray(expected)
    if isinstance(numba_type, numba.types.Array):
        assert numba_type.ndim == expected.ndim, f"{name}: ndim {numba_type.ndim} != {expected.ndim}"
    else:
        assert expected.ndim == 0, f"{name}: the lowering gave a scalar, the reference shape {expected.shape}"
    got_dtype = _dtype_of(numba_type)
    assert got_dtype == expected.dtype, f"{name}{tuple(map(_describe, args))}: dtype {got_dtype} != {expected.dtype}"
    got = np.asarray(got)
    assert got.shape == expected.shape
    if tol is None:
        tol = ULPS if name in TRANSCENDENTAL else EXACT
    if expected.dtype.kind == "f" and tol:
        eps = np.finfo(expected.dtype).eps
        np.testing.assert_allclose(got, expected, rtol=tol * eps, atol=tol * eps, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


def _describe(a):
    return f"{np.asarray(a).dtype}{list(np.shape(a))}" if isinstance(a, (np.ndarray, np.generic)) else repr(a)


def _id(c):
    return f"{c[0]}-" + "-".join(_describe(a) for a in c[1])


# Each case compiles a lowering (about 0.5 s): the default run takes every fifth case, which keeps the
# suite inside its time budget; ASTJAX_THOROUGH_LOWERINGS=1 runs every case (several minutes).
RUN = CASES if THOROUGH else CASES[::5]


@pytest.mark.parametrize("name,args,tol", RUN, ids=[_id(c) for c in RUN])
def test_lowering_matches_reference(name, args, tol):
    expected = reference(name, args)
    got, numba_type = run_lowered(name, args)
    check_same(name, args, expected, got, numba_type, tol)


COMPOSITE_CASES = [
    ("matmul_lhs_adjoint", normal((3, 5)), A, B), ("matmul_rhs_adjoint", normal((3, 5)), A, B),
    ("matmul_lhs_adjoint", normal((3,)), A, V), ("matmul_rhs_adjoint", normal((3,)), A, V),
    ("matmul_lhs_adjoint", normal((5,)), V, B), ("matmul_rhs_adjoint", normal((5,)), V, B),
    ("dot_lhs_adjoint", normal((3, 5)), A, B), ("dot_rhs_adjoint", normal((3, 5)), A, B),
    ("dot_lhs_adjoint", normal((3, 4)), np.float32(2.0), A), ("dot_rhs_adjoint", normal((3, 4)), np.float32(2.0), A),
    ("inner_lhs_adjoint", normal((3, 3)), A, A), ("inner_rhs_adjoint", normal((3, 3)), A, A),
    ("solve_lhs_adjoint", normal((4,)), M4, normal((4,))), ("solve_lhs_adjoint", normal((4, 2)), M4, normal((4, 2))),
    ("diag_adjoint", X2[:, :3].copy(), normal((2,)), Lit(1)), ("diag_adjoint", normal((3,)), X2[:, :3].copy(), Lit(0)),
]


COMPOSITES_RUN = COMPOSITE_CASES if THOROUGH else COMPOSITE_CASES[::4]


@pytest.mark.parametrize("name,g,a,b", COMPOSITES_RUN, ids=[c[0] for c in COMPOSITES_RUN])
def test_composites_match_rules(name, g, a, b):
    from astjax.rules import linalg
    from astjax.runtime import numba_cpu
    literal = isinstance(b, Lit)
    key = ("composite", name, repr(b) if literal else None)
    if key not in _WRAPPERS:
        namespace = {"L": numba_cpu.COMPOSITES[name]}
        params, last = ("g, a", repr(b.value)) if literal else ("g, a, b", "b")
        exec(f"def w({params}):\n    return L(g, a, {last})\n", namespace)
        _WRAPPERS[key] = numba.njit(namespace["w"])
    wrapper = _WRAPPERS[key]
    runtime = (g, a) if literal else (g, a, b)
    got = wrapper(*runtime)
    expected = linalg.COMPOSITES[name](g, a, b.value if literal else b)
    check_same(name, runtime, expected, got, _return_type(wrapper, runtime), 64 if "solve" in name else 8)


def test_every_composite_has_a_twin():
    from astjax.runtime import numba_cpu
    products = {"matmul_lhs_adjoint", "matmul_rhs_adjoint", "dot_lhs_adjoint", "dot_rhs_adjoint",
                "inner_lhs_adjoint", "inner_rhs_adjoint", "solve_lhs_adjoint", "diag_adjoint"}
    assert products <= set(numba_cpu.COMPOSITES)


def test_ambiguous_and_unsupported_types_fail_at_typing():
    """A runtime Python int next to an int32 array (int32 if weak, int64 if np.int64) and float16 are refused."""
    from numba.core.errors import TypingError
    with pytest.raises(TypingError):
        run_lowered("add", (ints((3,)), 3))
    with pytest.raises(TypingError):
        run_lowered("exp", (np.ones(3, np.float16),))
    with pytest.raises(TypingError):
        run_lowered("at_set", (ints((3,)), 1, np.float32(2.5)))      # NumPy would truncate
    with pytest.raises(TypingError):
        run_lowered("squeeze", (normal((1, 3)), None))                # rank depends on the values


def test_importing_astjax_does_not_import_numba():
    code = "import astjax, astjax.rules, sys; assert 'numba' not in sys.modules, 'numba imported'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=os.path.dirname(os.path.dirname(__file__)))


# Functions of the acceptance programs that run as plain Python/NumPy, never compiled or differentiated.
NOT_COMPILED = {"gaussian_kernel", "first_finite_differences", "blur_numpy", "selu_numpy", "scaled", "timed", "block"}
# Adjoints of lists (stack_adjoint and friends build one adjoint per list item): the jit pass lowers
# those containers itself, item by item (stack_part), so they need no array lowering.
CONTAINER_HELPERS = {"stack_adjoint", "stack_items", "concatenate_adjoint", "concatenate_items", "array_adjoint",
                     "array_items", "item_adjoint", "tree_item_adjoint", "sum_adjoint", "sum_items"}


def _primitives_of_acceptance():
    """Primitives called in the acceptance programs' compiled functions, and the ones their rules call."""
    import ast
    import glob
    import math
    import gast
    import astjax.numpy as jnp
    from astjax import lax
    from astjax.rules.linalg import COMPOSITES
    from astjax.rules.registry import lookup_callable, lookup_operator
    modules = {"jnp": jnp, "np": np, "lax": lax, "math": math}
    found = set()
    here = os.path.dirname(os.path.abspath(__file__))
    paths = []
    for up in ("..", os.path.join("..", "..")):        # ../shared beside the checkout, or beside a worktree's parent
        paths = paths or sorted(glob.glob(os.path.join(here, "..", up, "shared", "acceptance", "seed_*.py")))
    for path in paths:
        for fn in ast.walk(ast.parse(open(path).read())):
            if not isinstance(fn, (ast.FunctionDef, ast.Lambda)) or getattr(fn, "name", "") in NOT_COMPILED:
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                        isinstance(node.func.value, ast.Name) and node.func.value.id in modules:
                    prim = lookup_callable(getattr(modules[node.func.value.id], node.func.attr, None))
                    if prim is not None:
                        found.add(prim.name)
                ops = node.ops if isinstance(node, ast.Compare) else \
                    [node.op] if isinstance(node, (ast.BinOp, ast.UnaryOp)) else []
                for op in ops:
                    prim = lookup_operator(getattr(gast, type(op).__name__)())
                    if prim is not None:
                        found.add(prim.name)
                if isinstance(node, ast.Subscript):
                    found.add("getitem")
    if not found:
        pytest.skip("the acceptance programs are not beside this checkout")
    # The calls their derivative rules make (helpers, composites, other primitives), and the helpers the
    # reverse pass itself writes (broadcast operands summed back, zero adjoints, negation, float()).
    found |= {"unbroadcast", "unreduce", "zero_like", "negative", "to_float"}
    queue, seen = list(found), set(found)
    while queue:
        prim = PRIMITIVES[queue.pop()]
        for template in list(prim.vjp.values()) + list(prim.jvp.values()):
            for node in gast.walk(template):
                if not isinstance(node, gast.Call):
                    continue
                name = None
                if isinstance(node.func, gast.Name):
                    name = node.func.id
                elif isinstance(node.func, gast.Attribute) and isinstance(node.func.value, gast.Name):
                    target = lookup_callable(getattr(modules.get(node.func.value.id), node.func.attr, None))
                    name = target.name if target is not None else None
                if name in COMPOSITES:
                    seen.add(name)
                elif name in PRIMITIVES and name not in seen:
                    seen.add(name)
                    queue.append(name)
            for node in gast.walk(template):
                op = getattr(node, "op", None)
                prim_op = lookup_operator(op) if op is not None else None
                if prim_op is not None and prim_op.name not in seen:
                    seen.add(prim_op.name)
                    queue.append(prim_op.name)
    return seen


def test_acceptance_primitives_have_lowerings():
    from astjax.rules.linalg import COMPOSITES
    from astjax.runtime import numba_cpu
    missing = []
    for name in sorted(_primitives_of_acceptance() - CONTAINER_HELPERS):
        if name in COMPOSITES:
            if name not in numba_cpu.COMPOSITES:
                missing.append(name)
        elif lowering(PRIMITIVES[name], "numba") is None:
            missing.append(name)
    assert not missing, f"primitives of the acceptance programs without a Numba lowering: {missing}"


@pytest.mark.parametrize("out_shape, src", [
    ((2, 3), np.arange(3.0)), ((2, 3), np.arange(2.0).reshape(2, 1)), ((2, 3), np.ones((1, 1))),
    ((4,), 2.5), ((), np.array(7.0)), ((2, 3, 4), np.arange(12.0).reshape(3, 4)), ((3,), np.arange(3, dtype=np.int32)),
])
def test_fill_broadcast_is_numpys_broadcasting_assignment(out_shape, src):
    """The lowerings fill arrays with fill_broadcast (Numba's own slice assignment costs seconds to compile)."""
    import numba
    from astjax.runtime.numba_cpu import STUBS
    fill = STUBS["fill_broadcast"]
    run = numba.njit(lambda out, value: fill(out, value))
    out, expected = np.zeros(out_shape, np.float32), np.zeros(out_shape, np.float32)
    expected[...] = src
    run(out, src)
    np.testing.assert_array_equal(out, expected)


def test_fill_broadcast_refuses_shapes_that_do_not_broadcast():
    import numba
    from astjax.runtime.numba_cpu import STUBS
    fill = STUBS["fill_broadcast"]
    run = numba.njit(lambda out, value: fill(out, value))
    with pytest.raises(ValueError, match="could not broadcast"):
        run(np.zeros((2, 3)), np.ones(2))
