"""astjax.numpy against NumPy: values, Array results and JAX's dtypes."""
import types

import numpy as np
import pytest

import astjax.numpy as jnp
from astjax.array import Array

F32, F64, I32 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int32)
SHAPES = [(), (3,), (2, 3)]
FLOATS = [np.float32, np.float64]


def sample(shape, dtype, low=0.1, high=0.9, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(low, high, size=shape).astype(dtype)


def check(result, expected, dtype=None, rtol=None):
    """`result` is an Array with `expected`'s values and `dtype` (default: expected's)."""
    expected = np.asarray(expected)
    assert isinstance(result, Array), type(result)
    assert result.dtype == (expected.dtype if dtype is None else np.dtype(dtype))
    assert result.shape == expected.shape
    if rtol is None:
        rtol = 1e-5 if result.dtype in (F32, np.dtype(np.complex64)) else 1e-12
    if result.dtype.kind in "fc":
        np.testing.assert_allclose(np.asarray(result), expected, rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(np.asarray(result), expected)


# ------------------------------------------------------------------ the namespace

def test_public_functions_are_plain_python_functions_with_docstrings():
    for name in jnp.__all__:
        obj = getattr(jnp, name)
        if isinstance(obj, types.FunctionType):
            assert obj.__module__.startswith("astjax.numpy"), name
            assert obj.__doc__, name
        assert not isinstance(obj, np.ufunc), f"{name} must not alias a NumPy ufunc"
    for name in ["sin", "add", "sum", "reshape", "where", "dot", "array", "pad"]:
        assert isinstance(getattr(jnp, name), types.FunctionType)


def test_all_lists_every_public_name():
    public = {n for n in dir(jnp) if not n.startswith("_")}
    assert public == set(jnp.__all__)


def test_constants_and_dtype_names():
    assert jnp.pi == np.pi and jnp.e == np.e and np.isinf(jnp.inf) and np.isnan(jnp.nan)
    assert jnp.newaxis is None and jnp.ndarray is Array
    assert jnp.float32 is np.float32 and jnp.int32 is np.int32 and jnp.bool_ is np.bool_
    assert jnp.issubdtype(jnp.float32, jnp.floating)
    assert jnp.issubdtype(jnp.int8, jnp.integer) and jnp.issubdtype(jnp.float16, jnp.inexact)
    assert jnp.issubdtype(jnp.complex64, jnp.number)
    assert jnp.finfo(jnp.float32).eps == np.finfo(np.float32).eps
    assert jnp.iinfo(jnp.int32).max == 2**31 - 1
    assert jnp.dtype("float32") == F32
    assert jnp.zeros(2, dtype=jnp.float16).dtype == np.float16


# JAX's promotion table (jax.numpy.promote_types), x64 semantics for explicit dtypes.
PROMOTIONS = [
    ("int32", "float32", "float32"), ("int64", "float32", "float32"),
    ("int32", "float16", "float16"), ("int8", "uint8", "int16"),
    ("uint32", "int32", "int64"), ("bool", "int8", "int8"),
    ("bool", "float16", "float16"), ("float32", "float64", "float64"),
    ("float32", "complex64", "complex64"), ("float64", "complex64", "complex128"),
    ("uint8", "uint16", "uint16"), ("int16", "int32", "int32"),
]


@pytest.mark.parametrize("a,b,want", PROMOTIONS)
def test_promote_types_follows_jax_lattice(a, b, want):
    assert jnp.promote_types(a, b) == np.dtype(want)
    assert jnp.promote_types(b, a) == np.dtype(want)
    x, y = np.ones(2, a), np.ones(2, b)
    assert jnp.add(x, y).dtype == np.dtype(want)
    assert jnp.result_type(x, y) == np.dtype(want)


@pytest.mark.parametrize("dtype,scalar,want", [
    ("int32", 2.5, "float32"), ("int8", 2, "int8"), ("float16", 2.5, "float16"),
    ("float32", 2.5, "float32"), ("float64", 2.5, "float64"), ("uint8", 3, "uint8"),
    ("bool", 1, "int32"), ("bool", 1.5, "float32"), ("float32", 1j, "complex64"),
    ("int64", 2, "int64"),
])
def test_python_scalars_are_weak(dtype, scalar, want):
    x = np.ones(3, dtype)
    for fn in (jnp.add, jnp.multiply, jnp.maximum):
        assert fn(x, scalar).dtype == np.dtype(want), fn.__name__
        assert fn(scalar, x).dtype == np.dtype(want), fn.__name__
    assert jnp.where(x.astype(bool), x, scalar).dtype == np.dtype(want)
    assert jnp.result_type(x, scalar) == np.dtype(want)


def test_python_scalars_alone_are_32_bit():
    check(jnp.sin(2.0), np.sin(np.float32(2.0)), F32)
    check(jnp.sin(2), np.sin(np.float32(2.0)), F32)
    check(jnp.add(1, 2.5), np.float32(3.5), F32)
    check(jnp.add(1, 2), np.int32(3), I32)
    check(jnp.multiply(2, 3), np.int32(6), I32)
    check(jnp.negative(2.0), np.float32(-2.0), F32)
    check(jnp.divide(1, 2), np.float32(0.5), F32)
    check(jnp.where(True, 1.0, 0.0), np.float32(1.0), F32)
    check(jnp.sum(2.0), np.float32(2.0), F32)
    assert jnp.result_type(1, 2.0) == F32 and jnp.result_type(float) == F32


# ------------------------------------------------------------------ element-wise

UNARY_FLOAT = [
    ("sqrt", np.sqrt), ("cbrt", np.cbrt), ("exp", np.exp), ("exp2", np.exp2),
    ("expm1", np.expm1), ("log", np.log), ("log1p", np.log1p), ("log2", np.log2),
    ("log10", np.log10), ("sin", np.sin), ("cos", np.cos), ("tan", np.tan),
    ("arcsin", np.arcsin), ("arccos", np.arccos), ("arctan", np.arctan), ("sinh", np.sinh),
    ("cosh", np.cosh), ("tanh", np.tanh), ("arcsinh", np.arcsinh), ("arctanh", np.arctanh),
    ("reciprocal", np.reciprocal),
]


@pytest.mark.parametrize("name,ref", UNARY_FLOAT)
def test_float_unary(name, ref):
    fn = getattr(jnp, name)
    for shape in SHAPES:
        for dtype in FLOATS:
            x = sample(shape, dtype)
            check(fn(x), ref(x))
            check(fn(jnp.asarray(x)), ref(x))
    ints = np.int32([0]) if name in ("arcsin", "arccos", "arctanh") else np.int32([1, 2, 3])
    check(fn(ints), ref(ints.astype(np.float32)), F32)
    check(fn(int(ints[0])), ref(np.float32(ints[0])), F32)


def test_arccosh_and_int_inputs_give_float32():
    check(jnp.arccosh(np.array([1.5, 2.0], np.float32)), np.arccosh(np.float32([1.5, 2.0])))
    for dtype in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.bool_):
        assert jnp.sqrt(np.ones(2, dtype)).dtype == F32, dtype
        assert jnp.mean(np.ones(2, dtype)).dtype == F32, dtype
    assert jnp.sqrt(np.ones(2, np.float16)).dtype == np.float16


UNARY_KEEP = [
    ("negative", np.negative), ("positive", np.positive), ("square", np.square),
    ("abs", np.abs), ("absolute", np.absolute), ("sign", np.sign), ("floor", np.floor),
    ("ceil", np.ceil), ("trunc", np.trunc), ("round", np.round), ("around", np.round),
]


@pytest.mark.parametrize("name,ref", UNARY_KEEP)
def test_dtype_keeping_unary(name, ref):
    fn = getattr(jnp, name)
    for shape in SHAPES:
        for dtype in FLOATS + [np.int32]:
            x = sample(shape, np.float64, -3, 3).astype(dtype)
            check(fn(x), ref(x))
            check(fn(jnp.asarray(x)), ref(x))


def test_round_decimals_and_half_to_even():
    check(jnp.round(np.float32([0.5, 1.5, 2.5, -0.5])), np.float32([0, 2, 2, -0]))
    check(jnp.round(np.float32([1.234, 5.678]), 1), np.round(np.float32([1.234, 5.678]), 1))
    check(jnp.round(2.5), np.float32(2.0), F32)
    check(jnp.round(np.int32([15, 24]), -1), np.int32([20, 20]))
    check(jnp.round(np.array([True, False])), np.array([True, False]))


BINARY = [
    ("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
    ("divide", np.divide), ("true_divide", np.true_divide), ("floor_divide", np.floor_divide),
    ("mod", np.mod), ("remainder", np.remainder), ("power", np.power),
    ("maximum", np.maximum), ("minimum", np.minimum), ("arctan2", np.arctan2),
    ("hypot", np.hypot), ("logaddexp", np.logaddexp),
]


@pytest.mark.parametrize("name,ref", BINARY)
def test_binary_same_dtype(name, ref):
    fn = getattr(jnp, name)
    for shape in SHAPES:
        for dtype in FLOATS:
            x, y = sample(shape, dtype, seed=1), sample(shape, dtype, seed=2)
            check(fn(x, y), ref(x, y))
            check(fn(jnp.asarray(x), y), ref(x, y))
            check(fn(x, 0.5), ref(x, dtype(0.5)))  # weak scalar keeps the dtype
    check(fn(np.ones((2, 3), np.float32), np.ones(3, np.float32)),
          ref(np.ones((2, 3), np.float32), np.ones(3, np.float32)))  # broadcasting


@pytest.mark.parametrize("name,ref", BINARY)
def test_binary_int_promotion(name, ref):
    fn = getattr(jnp, name)
    i, f = np.arange(1, 5, dtype=np.int32), np.linspace(1, 2, 4, dtype=np.float32)
    check(fn(i, f), ref(i.astype(np.float32), f), F32)
    inexact = name in ("divide", "true_divide", "arctan2", "hypot", "logaddexp")
    check(fn(i, i), ref(i.astype(np.float32), i.astype(np.float32)) if inexact else ref(i, i),
          F32 if inexact else I32)
    check(fn(i, 2), ref(i.astype(np.float32), 2) if inexact else ref(i, 2),
          F32 if inexact else I32)


COMPARE = [
    ("equal", np.equal), ("not_equal", np.not_equal), ("less", np.less),
    ("less_equal", np.less_equal), ("greater", np.greater),
    ("greater_equal", np.greater_equal), ("logical_and", np.logical_and),
    ("logical_or", np.logical_or), ("logical_xor", np.logical_xor),
]


@pytest.mark.parametrize("name,ref", COMPARE)
def test_comparisons_and_logical(name, ref):
    fn = getattr(jnp, name)
    x, y = np.float32([0, 1, 2, 3]), np.float32([0, 2, 2, 1])
    check(fn(x, y), ref(x, y))
    check(fn(jnp.asarray(x), 1.0), ref(x, 1.0))
    check(fn(1.0, 2), ref(1.0, 2))


def test_predicates_and_logical_not():
    x = np.float32([0, np.nan, np.inf, -np.inf, 1])
    check(jnp.isnan(x), np.isnan(x))
    check(jnp.isfinite(x), np.isfinite(x))
    check(jnp.isinf(x), np.isinf(x))
    check(jnp.logical_not(np.array([True, False])), np.array([False, True]))
    check(jnp.isnan(2.0), np.False_)


def test_where_and_clip():
    c = np.array([True, False, True])
    x, y = np.float32([1, 2, 3]), np.float32([4, 5, 6])
    check(jnp.where(c, x, y), np.where(c, x, y))
    check(jnp.where(c, np.int32([1, 2, 3]), y), np.float32([1, 5, 3]), F32)
    idx = jnp.where(c)
    assert isinstance(idx, tuple) and idx[0].dtype == I32
    check(idx[0], np.array([0, 2], np.int32))
    with pytest.raises(TypeError, match="both x and y"):
        jnp.where(c, x)
    check(jnp.clip(x, 1.5, 2.5), np.clip(x, 1.5, 2.5))
    check(jnp.clip(x, max=2.0), np.float32([1, 2, 2]))
    check(jnp.clip(x, a_min=2.0), np.float32([2, 2, 3]))
    check(jnp.clip(np.int32([0, 1, 2]), 0.5, 1.5), np.float32([0.5, 1, 1.5]), F32)
    check(jnp.clip(np.float64([0, 5]), 1, 2), np.float64([1, 2]))


# ------------------------------------------------------------------ reductions

REDUCTIONS = [
    ("sum", np.sum), ("prod", np.prod), ("mean", np.mean), ("max", np.max),
    ("min", np.min), ("amax", np.max), ("amin", np.min), ("var", np.var), ("std", np.std),
]


@pytest.mark.parametrize("name,ref", REDUCTIONS)
def test_reductions(name, ref):
    fn = getattr(jnp, name)
    for dtype in FLOATS:
        x = sample((2, 3, 4), dtype)
        for axis in (None, 0, 1, -1, (0, 2)):
            for keepdims in (False, True):
                check(fn(x, axis=axis, keepdims=keepdims), ref(x, axis=axis, keepdims=keepdims))
        check(fn(jnp.asarray(x)), ref(x))


def test_reduction_dtypes_follow_jax():
    i = np.arange(1, 7, dtype=np.int32).reshape(2, 3)
    check(jnp.sum(i), np.int32(21), I32)
    check(jnp.prod(i, axis=0), np.int32([4, 10, 18]), I32)
    check(jnp.sum(i > 2), np.int32(4), I32)
    check(jnp.sum(np.uint8([200, 100])), np.uint32(300), np.uint32)
    check(jnp.sum(np.int64([1, 2])), np.int64(3), np.int64)
    check(jnp.sum(i, dtype=float), np.float32(21), F32)
    check(jnp.mean(i, axis=1), np.float32([2, 5]), F32)
    check(jnp.var(i), np.var(i).astype(np.float32), F32)
    check(jnp.std(i, ddof=1), np.std(i, ddof=1).astype(np.float32), F32)
    check(jnp.var(i, correction=1), np.var(i, ddof=1).astype(np.float32), F32)
    check(jnp.max(i), np.int32(6), I32)
    check(jnp.sum(np.ones(3, np.float32), where=np.array([True, False, True])), np.float32(2))
    check(jnp.max(np.float32([]), initial=-1.0), np.float32(-1))


def test_arg_reductions_and_cumulative():
    x = sample((3, 4), np.float32)
    for axis in (None, 0, 1):
        check(jnp.argmax(x, axis=axis), np.argmax(x, axis=axis).astype(np.int32), I32)
        check(jnp.argmin(x, axis=axis), np.argmin(x, axis=axis).astype(np.int32), I32)
        check(jnp.cumsum(x, axis=axis), np.cumsum(x, axis=axis))
        check(jnp.cumprod(x, axis=axis), np.cumprod(x, axis=axis))
    check(jnp.argmax(x, axis=1, keepdims=True), np.argmax(x, 1, keepdims=True).astype(np.int32))
    check(jnp.cumsum(np.int32([1, 2, 3])), np.int32([1, 3, 6]), I32)
    check(jnp.cumsum(np.array([True, True])), np.int32([1, 2]), I32)


def test_all_any_allclose_isclose():
    b = np.array([[True, False], [True, True]])
    for axis in (None, 0, 1):
        check(jnp.all(b, axis=axis), np.all(b, axis=axis))
        check(jnp.any(b, axis=axis), np.any(b, axis=axis))
    check(jnp.all(np.float32([1, 2])), np.True_)
    x = np.float32([1, 2, 3])
    check(jnp.allclose(x, x + 1e-7), np.True_)
    check(jnp.allclose(x, x + 1), np.False_)
    check(jnp.isclose(x, np.float32([1, 2.5, 3])), np.array([True, False, True]))


def test_out_argument_is_rejected_clearly():
    x = np.ones(3, np.float32)
    for fn in (jnp.sum, jnp.mean, jnp.max, jnp.argmax, jnp.cumsum):
        with pytest.raises(TypeError, match="out= .*not supported"):
            fn(x, out=np.empty(()))


# ------------------------------------------------------------------ creation

def test_creation_defaults_are_32_bit():
    cases = [
        (jnp.array([1.0, 2.0]), F32), (jnp.array([1, 2]), I32), (jnp.array(3.0), F32),
        (jnp.array([[1, 2], [3, 4.5]]), F32), (jnp.array([True, False]), np.bool_),
        (jnp.array([1 + 2j]), np.complex64), (jnp.array([]), F32),
        (jnp.arange(4.0), F32), (jnp.arange(4), I32), (jnp.arange(0, 1, 0.25), F32),
        (jnp.zeros(5), F32), (jnp.ones((3, 3)), F32), (jnp.empty(2), F32),
        (jnp.eye(3), F32), (jnp.identity(2), F32), (jnp.linspace(0, 1, 5), F32),
        (jnp.full((2,), 1.5), F32), (jnp.full((2,), 1), I32), (jnp.full((2,), True), np.bool_),
        (jnp.zeros(3, dtype=int), I32), (jnp.ones(3, dtype=float), F32),
        (jnp.arange(3, dtype=float), F32), (jnp.array([1, 2], dtype=float), F32),
    ]
    for result, dtype in cases:
        assert isinstance(result, Array)
        assert result.dtype == dtype, (result, dtype)


def test_numpy_arrays_keep_their_dtype():
    f64 = np.linspace(0, 1, 3)
    assert jnp.array(f64).dtype == F64 and jnp.asarray(f64).dtype == F64
    assert jnp.sin(f64).dtype == F64 and jnp.add(f64, 1.5).dtype == F64
    assert jnp.array([np.float64(1), 2.0]).dtype == F64  # a typed leaf is strong
    assert jnp.array([np.float16(1), 2.0]).dtype == np.float16
    assert jnp.array([f64, f64]).dtype == F64
    assert jnp.full((2,), np.float64(1)).dtype == F64
    assert jnp.zeros_like(f64).dtype == F64 and jnp.ones_like(3).dtype == I32
    assert jnp.linspace(np.float64(0), 1, 3).dtype == F64


def test_python_ints_too_big_for_int32_raise():
    with pytest.raises(OverflowError, match="int64"):
        jnp.array([1, 2**40])
    with pytest.raises(OverflowError):
        jnp.array(2**40)
    assert jnp.array([1, 2**40], dtype=np.int64).dtype == np.int64


def test_array_and_asarray_copy_semantics():
    x = np.arange(3, dtype=np.float32)
    a = jnp.asarray(x)
    assert isinstance(a, Array) and np.shares_memory(a, x)
    b = jnp.array(x)
    assert not np.shares_memory(b, x)
    assert jnp.asarray(a) is a
    check(jnp.copy(a), x)
    check(jnp.array(x, ndmin=3), x[None, None])
    check(jnp.array([1.0], ndmin=2), np.float32([[1.0]]))
    check(jnp.astype(np.int32([1, 2]), float), np.float32([1, 2]), F32)


def test_creation_values_match_numpy():
    check(jnp.arange(2, 10, 3), np.arange(2, 10, 3, dtype=np.int32))
    check(jnp.arange(5, step=2), np.int32([0, 2, 4]))
    check(jnp.linspace(0, 1, 5), np.linspace(0, 1, 5, dtype=np.float32))
    check(jnp.linspace(0, 1, 4, endpoint=False), np.float32([0, 0.25, 0.5, 0.75]))
    check(jnp.linspace(0, 10, 5, dtype=int), np.int32([0, 2, 5, 7, 10]))
    samples, step = jnp.linspace(0, 1, 3, retstep=True)
    check(samples, np.float32([0, 0.5, 1]))
    check(step, np.float32(0.5))
    check(jnp.linspace(np.zeros(2), np.ones(2), 3, axis=1), np.linspace(np.zeros(2), 1, 3, axis=1))
    check(jnp.eye(2, 3, k=1), np.eye(2, 3, k=1, dtype=np.float32))
    check(jnp.full((2, 2), np.float32([1, 2])), np.float32([[1, 2], [1, 2]]))
    check(jnp.full_like(np.int32([1, 2]), 7.9), np.int32([7, 7]))
    check(jnp.zeros_like(np.ones((2, 3), np.float32), shape=(4,)), np.zeros(4, np.float32))
    check(jnp.diag(np.float32([1, 2])), np.diag(np.float32([1, 2])))
    check(jnp.diag(np.arange(9.0).reshape(3, 3), k=1), np.float64([1, 5]))
    check(jnp.tril(np.ones((3, 3))), np.tril(np.ones((3, 3))))
    check(jnp.triu(np.ones((3, 3)), 1), np.triu(np.ones((3, 3)), 1))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
def test_meshgrid(indexing, sparse):
    x, y = np.arange(3.0, dtype=np.float32), [0.0, 1.0]
    got = jnp.meshgrid(x, y, indexing=indexing, sparse=sparse)
    want = np.meshgrid(x, np.float32(y), indexing=indexing, sparse=sparse)
    assert isinstance(got, list) and len(got) == 2
    for g, w in zip(got, want):
        check(g, w)
    with pytest.raises(ValueError, match="'xy' or 'ij'"):
        jnp.meshgrid(x, y, indexing="yx")


# ------------------------------------------------------------------ shapes

def test_shape_functions_match_numpy():
    x = sample((2, 3, 4), np.float32)
    cases = [
        (jnp.reshape(x, (4, 6)), x.reshape(4, 6)), (jnp.reshape(x, -1), x.reshape(-1)),
        (jnp.reshape(x, newshape=(6, -1)), x.reshape(6, -1)),
        (jnp.reshape(x, (4, 6), order="F"), np.reshape(x, (4, 6), order="F")),
        (jnp.ravel(x), x.ravel()), (jnp.transpose(x), x.T),
        (jnp.transpose(x, (1, 0, 2)), x.transpose(1, 0, 2)),
        (jnp.swapaxes(x, 0, 2), np.swapaxes(x, 0, 2)),
        (jnp.moveaxis(x, 0, -1), np.moveaxis(x, 0, -1)),
        (jnp.expand_dims(x, 1), np.expand_dims(x, 1)),
        (jnp.expand_dims(x, (0, 4)), np.expand_dims(x, (0, 4))),
        (jnp.squeeze(x[:, :1]), np.squeeze(x[:, :1])),
        (jnp.squeeze(x[:1, :1], axis=1), np.squeeze(x[:1, :1], axis=1)),
        (jnp.broadcast_to(x[0, 0], (5, 4)), np.broadcast_to(x[0, 0], (5, 4))),
        (jnp.tile(x[0], (2, 1)), np.tile(x[0], (2, 1))),
        (jnp.repeat(x[0], 2, axis=1), np.repeat(x[0], 2, axis=1)),
        (jnp.repeat(x[0], 2), np.repeat(x[0], 2)),
        (jnp.flip(x), np.flip(x)), (jnp.flip(x, 1), np.flip(x, 1)),
        (jnp.roll(x, 1, axis=2), np.roll(x, 1, axis=2)),
        (jnp.concatenate([x, x], axis=1), np.concatenate([x, x], axis=1)),
        (jnp.concatenate([x, x], axis=None), np.concatenate([x, x], axis=None)),
        (jnp.stack([x, x], axis=-1), np.stack([x, x], axis=-1)),
        (jnp.hstack([x[0, 0], x[1, 0]]), np.hstack([x[0, 0], x[1, 0]])),
        (jnp.vstack([x[0], x[1]]), np.vstack([x[0], x[1]])),
    ]
    for got, want in cases:
        check(got, want)
    assert jnp.shape(x) == (2, 3, 4) and jnp.ndim(x) == 3 and jnp.size(x) == 24
    assert jnp.size(x, 1) == 3 and jnp.shape(2.0) == ()
    parts = jnp.split(x, 2, axis=2)
    assert len(parts) == 2 and all(isinstance(p, Array) for p in parts)
    check(parts[1], x[:, :, 2:])


def test_joining_promotes_like_jax():
    i, f = np.int32([1, 2]), np.float32([3, 4])
    check(jnp.concatenate([i, f]), np.float32([1, 2, 3, 4]), F32)
    check(jnp.stack([i, f]), np.float32([[1, 2], [3, 4]]), F32)
    check(jnp.hstack([i, [5.0]]), np.float32([1, 2, 5]), F32)
    check(jnp.concatenate([i, i], dtype=np.int8), np.int8([1, 2, 1, 2]))


def test_repeat_total_repeat_length():
    x = np.int32([1, 2, 3])
    check(jnp.repeat(x, 2, total_repeat_length=4), np.int32([1, 1, 2, 2]))
    check(jnp.repeat(x, 2, total_repeat_length=8), np.int32([1, 1, 2, 2, 3, 3, 3, 3]))
    check(jnp.repeat(x, np.array([1, 0, 2])), np.int32([1, 3, 3]))


@pytest.mark.parametrize("dtype", FLOATS + [np.int32])
def test_pad_modes(dtype):
    x = np.arange(6).reshape(2, 3).astype(dtype)
    for pad_width in (1, (1, 2), ((0, 1), (2, 0))):
        check(jnp.pad(x, pad_width), np.pad(x, pad_width))
        check(jnp.pad(x, pad_width, mode="edge"), np.pad(x, pad_width, mode="edge"))
        check(jnp.pad(x, pad_width, constant_values=7), np.pad(x, pad_width, constant_values=7))
        check(jnp.pad(x, pad_width, mode="constant", constant_values=((1, 2), (3, 4))),
              np.pad(x, pad_width, constant_values=((1, 2), (3, 4))))
        for mode in ("reflect", "symmetric", "wrap", "maximum", "mean", "linear_ramp"):
            check(jnp.pad(x, pad_width, mode=mode), np.pad(x, pad_width, mode=mode))
    check(jnp.pad(x, 1, mode="empty"), np.pad(x, 1))
    check(jnp.pad(jnp.asarray(x), 1), np.pad(x, 1))


# ------------------------------------------------------------------ products

def test_products_match_numpy_and_promote():
    a, b = sample((3, 4), np.float32, seed=1), sample((4, 2), np.float32, seed=2)
    v, w = sample(4, np.float32, seed=3), sample(4, np.float32, seed=4)
    for dtype in FLOATS:
        A, B, V, W = (t.astype(dtype) for t in (a, b, v, w))
        check(jnp.dot(A, B), np.dot(A, B))
        check(jnp.matmul(A, B), np.matmul(A, B))
        check(jnp.dot(V, W), np.dot(V, W))
        check(jnp.outer(V, W), np.outer(V, W))
        check(jnp.inner(V, W), np.inner(V, W))
        check(jnp.vdot(V, W), np.vdot(V, W))
        check(jnp.tensordot(A, B, 1), np.tensordot(A, B, 1))
        check(jnp.einsum("ij,jk->ik", A, B), np.einsum("ij,jk->ik", A, B))
        check(jnp.einsum("ij,jk,k->i", A, B, B[0]), np.einsum("ij,jk,k->i", A, B, B[0]))
        check(jnp.einsum("ii", A[:3, :3]), np.einsum("ii", A[:3, :3]))
        check(jnp.trace(A), np.trace(A))
        check(jnp.trace(A, 1), np.trace(A, 1))
    i = np.arange(4, dtype=np.int32)
    check(jnp.dot(i, v), np.dot(i.astype(np.float32), v), F32)
    check(jnp.matmul(np.ones((2, 2), np.int32), np.ones((2, 2), np.float32)),
          np.full((2, 2), 2, np.float32), F32)
    check(jnp.einsum("i,i->", i, v), np.dot(i.astype(np.float32), v), F32)
    check(jnp.dot(2.0, v), 2 * v, F32)
    check(jnp.dot(np.int8([100, 100]), np.int8([2, 2]), preferred_element_type=np.int32),
          np.int32(400))
    check(jnp.trace(np.eye(3, dtype=np.int8)), np.int32(3), I32)


def test_linalg_namespace():
    a = np.float32([[4, 1], [1, 3]])
    b = np.float32([1, 2])
    check(jnp.linalg.inv(a), np.linalg.inv(a))
    check(jnp.linalg.solve(a, b), np.linalg.solve(a, b))
    check(jnp.linalg.det(a), np.linalg.det(a))
    check(jnp.linalg.norm(a), np.linalg.norm(a))
    check(jnp.linalg.norm(a, axis=1), np.linalg.norm(a, axis=1))
    check(jnp.linalg.cholesky(a), np.linalg.cholesky(a))
    check(jnp.linalg.pinv(a), np.linalg.pinv(a))
    check(jnp.linalg.det(np.int32([[2, 0], [0, 3]])), np.float32(6), F32)
    check(jnp.linalg.norm(np.int32([3, 4])), np.float32(5), F32)
    w, v = jnp.linalg.eigh(a)
    check(w, np.linalg.eigh(a)[0])
    assert isinstance(v, Array)
    sign, logdet = jnp.linalg.slogdet(a)
    check(sign, np.float32(1))
    check(logdet, np.log(np.float32(11)))
    u, s, vh = jnp.linalg.svd(a)
    check(u * s @ vh, a, rtol=1e-5)
    check(jnp.linalg.svd(a, compute_uv=False), np.linalg.svd(a, compute_uv=False))
    q, r = jnp.linalg.qr(a)
    check(q @ r, a)
    check(jnp.linalg.inv(np.eye(2)), np.eye(2))


# ------------------------------------------------------------------ selection

def test_take():
    x = sample((3, 4), np.float32)
    check(jnp.take(x, np.array([0, 2])), np.take(x, [0, 2]))
    check(jnp.take(x, [2, -1], axis=1), np.take(x, [2, -1], axis=1))
    check(jnp.take(x, 1, axis=0), x[1])
    check(jnp.take(x, [0, 9], axis=1, mode="clip"), np.take(x, [0, 9], axis=1, mode="clip"))
    check(jnp.take(x, [0, 9], axis=1, mode="wrap"), np.take(x, [0, 9], axis=1, mode="wrap"))
    # JAX's default mode="fill": out-of-bounds positions get NaN (or fill_value).
    got = jnp.take(x, np.array([1, 5, -3]), axis=0)
    check(got[0], x[1])
    check(got[2], x[0])
    assert np.isnan(got[1]).all()
    check(jnp.take(np.int32([1, 2]), [0, 3], fill_value=-1), np.int32([1, -1]))
    check(jnp.take(np.int32([1, 2]), [3]), np.int32([np.iinfo(np.int32).min]))
    with pytest.raises(IndexError):
        jnp.take(x, [99], mode="raise")
    with pytest.raises(ValueError, match="unsupported mode"):
        jnp.take(x, [0], mode="bogus")
    check(jnp.take_along_axis(x, np.argsort(x, axis=1), 1), np.sort(x, axis=1))


def test_sort_and_argsort():
    x = np.float32([[3, 1, 2], [0, 5, 5]])
    for axis in (-1, 0, None):
        check(jnp.sort(x, axis=axis), np.sort(x, axis=axis))
        check(jnp.argsort(x, axis=axis), np.argsort(x, axis=axis, kind="stable").astype(np.int32))
    check(jnp.sort(x, descending=True), np.sort(x)[:, ::-1])
    # Descending stays stable: equal elements keep their original order.
    check(jnp.argsort(np.int32([1, 2, 2, 0]), descending=True), np.int32([1, 2, 0, 3]), I32)


# ------------------------------------------------------------------ clear errors

def test_reshape_error_is_clear():
    with pytest.raises(ValueError, match=r"shape \(2, 3\) \(6 elements\) into shape \(4,\).*-1"):
        jnp.reshape(np.ones((2, 3)), (4,))
    with pytest.raises(TypeError, match="missing the new shape"):
        jnp.reshape(np.ones(3))


def test_join_errors_are_clear():
    with pytest.raises(ValueError, match=r"shapes \[\(2, 3\), \(2, 2\)\] along axis 0"):
        jnp.concatenate([np.ones((2, 3)), np.ones((2, 2))])
    with pytest.raises(ValueError, match="same shape"):
        jnp.stack([np.ones(3), np.ones(2)])
    with pytest.raises(ValueError, match="at least one array"):
        jnp.concatenate([])


def test_pad_errors_are_clear():
    with pytest.raises(ValueError, match="unsupported mode 'bogus'.*'constant', 'edge'"):
        jnp.pad(np.ones(3), 1, mode="bogus")
    with pytest.raises(ValueError, match="pad: cannot pad an array of shape \\(3,\\)"):
        jnp.pad(np.ones(3), 1, mode="edge", constant_values=1)


def test_other_errors_are_clear():
    with pytest.raises(ValueError, match=r"broadcast_to: .*shape \(3,\) to shape \(4,\)"):
        jnp.broadcast_to(np.ones(3), (4,))
    with pytest.raises(ValueError, match="only axes of length 1"):
        jnp.squeeze(np.ones((2, 3)), axis=0)


def test_results_are_arrays_even_for_0d():
    x = np.float32([1, 2])
    for result in (jnp.sum(x), jnp.max(x), jnp.sin(np.float32(1)), jnp.dot(x, x),
                   jnp.argmax(x), jnp.mean(x), jnp.add(x[0], x[1]), jnp.trace(np.eye(2)),
                   jnp.vdot(x, x), jnp.allclose(x, x), jnp.linalg.det(np.eye(2))):
        assert isinstance(result, Array) and result.ndim == 0
        assert result.block_until_ready() is result


# ------------------------------------------------------------------ `float` / `int` as the dtype of a conversion
@pytest.mark.parametrize("convert", [lambda x, t: x.astype(t), lambda x, t: jnp.asarray(x).astype(t),
                                     lambda x, t: jnp.astype(x, t), lambda x, t: jnp.asarray(x, dtype=t),
                                     lambda x, t: jnp.array(x, dtype=t)])
def test_python_types_keep_a_64_bit_array_64_bit(convert):
    """`x.astype(float)` of a float64 array is float64 (NumPy; JAX under x64), never rounded to float32; `int` of
    float64 data is int64 (7e9 must not wrap). 32-bit data keeps JAX's defaults (float32, int32)."""
    x64 = jnp.asarray(np.array([1.000000001, 7e9]))
    check(convert(x64, float), np.array([1.000000001, 7e9]), F64)
    check(convert(x64, int), np.array([1, 7000000000]), np.int64)
    check(convert(jnp.asarray(np.array([1, 2])), float), np.array([1.0, 2.0]), F64)
    x32 = jnp.asarray(np.float32([1.5, 2.5]))
    check(convert(x32, float), np.float32([1.5, 2.5]), F32)
    check(convert(x32, int), np.int32([1, 2]), I32)
    check(jnp.zeros(2, dtype=float), np.zeros(2, np.float32), F32)       # nothing converted: JAX's default
