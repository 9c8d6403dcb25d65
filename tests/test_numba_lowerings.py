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


def case(name, *args, tol=None):
    CASES.append((name, args, tol))


# ------------------------------------------------------------ elementwise unary
UNARY_DOMAIN = {"sqrt": positive, "log": positive, "log2": positive, "log10": positive, "log1p": positive,
                "arcsin": unit, "arccos": unit, "reciprocal": positive}
UNARY = ("negative", "positive", "abs", "square", "sqrt", "reciprocal", "exp", "expm1", "log", "log1p",
         "log2", "log10", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
         "sign", "floor", "ceil", "trunc", "isnan", "isfinite", "isinf", "logical_not")
for _name in UNARY:
    make = UNARY_DOMAIN.get(_name, normal)
    case(_name, make((3, 4), F32))
    case(_name, make((), F64)[()])
    if THOROUGH:
        for _x in shapes_and_dtypes(make):
            case(_name, _x)
        case(_name, ints((4,)))
for _name in ("sign", "isnan", "isfinite", "isinf", "floor", "abs"):
    case(_name, np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, 2.5, -2.5], F32))
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
    case(_name, make((3, 4)), make((1, 4)))                   # broadcasting (the same compiled code)
    case(_name, make((), F64)[()], make((), F64)[()])         # NumPy scalars
    case(_name, make((5,)), Lit(2))                           # a weak Python int literal
    if THOROUGH:
        for dtype in (F32, F64):
            case(_name, make((3, 4), dtype), make((4,), dtype))
            case(_name, make((2, 1), dtype), make((), dtype)[()])
        case(_name, make((5,), F32), make((5,), F64))
        if _name != "power":
            case(_name, ints((5,)), ints((5,), I32, 1, 4))
            case(_name, ints((5,)), Lit(3))
for _name in ("mod", "floor_divide"):
    case(_name, normal((20,), F64) * 5, np.array([-3.0, -0.5, 0.0, 0.5, 3.0] * 4))
    case(_name, ints((20,), I32, -9, 9), np.array([-3, -1, 0, 1, 3] * 4, I32))
for _name in ("add", "multiply", "less", "maximum"):
    case(_name, ints((5,)), Lit(3))
    case(_name, ints((5,)), positive((5,), F32))
case("maximum", np.array([np.nan, 1.0, 2.0], F32), np.array([0.0, np.nan, 3.0], F32))
case("minimum", np.array([np.nan, 1.0, 2.0], F32), np.array([0.0, np.nan, 3.0], F32))
case("power", ints((5,), I32, 0, 4), ints((5,), I32, 0, 4))
case("equal", np.float32(0.1) + np.zeros(3, F32), np.float32(0.1))
case("divide", normal((3, 4), F32), normal((4,), F64))


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
case("sum", X3, Lit((0, 2)), None, None, Lit(True), None, None, tol=8)
case("sum", normal((1000,)), None, None, None, Lit(False), None, None, tol=8)
case("sum", ints((4, 5)), Lit(-1), None, None, Lit(False), None, None)
case("sum", normal((3, 4), F64), Lit(0), None, None, Lit(False), None, None, tol=8)
case("sum", normal((), F64)[()], None, None, None, Lit(False), None, None)
case("mean", X3, Lit(2), None, None, Lit(False), None, tol=8)
case("mean", ints((4, 5)), None, None, None, Lit(True), None, tol=8)
case("prod", positive((3, 4)), Lit(1), None, None, Lit(False), tol=8)
case("max", X3, Lit(1), None, Lit(False), None)
case("max", np.array([1.0, np.nan, 3.0], F32), None, None, Lit(False), None)
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
        else:
            positional.append(value)
    return PRIMITIVES[name].impl(*positional, **keywords)


def _dtype_of(numba_type):
    from numba.np.numpy_support import as_dtype
    return as_dtype(numba_type.dtype if isinstance(numba_type, numba.types.Array) else numba_type)


def check_same(name, args, expected, got, numba_type, tol):
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


@pytest.mark.parametrize("name,args,tol", CASES, ids=[_id(c) for c in CASES])
def test_lowering_matches_reference(name, args, tol):
    expected = reference(name, args)
    got, numba_type = run_lowered(name, args)
    check_same(name, args, expected, got, numba_type, tol)
