"""Red team 13: NumPy's edge values in compiled code, jnp.diff under jit, `.at` of NumPy arguments, eval_shape.

Each attack compares a transformed program with running the program itself (NumPy):

- int64 `iinfo.min // -1` wraps to min in NumPy; Numba's `//` gave 0 (LLVM's division is undefined there).
  The first call (small values) passes jit's check; the later call with the edge values runs compiled code.
- `maximum(-0.0, 0.0)` is 0.0 and `maximum(0.0, -0.0)` -0.0 in NumPy (the second of two equal operands),
  a NaN on either side wins; compiled code (Numba's np.maximum, the fused loop) gave the first.
- `a / b` of two int16 arrays is float64 in NumPy; Numba divided in float32 (7 digits, returned as float64).
- jnp.diff had no Numba lowering; now it has one (prepend/append too), and its adjoint under jit(grad).
- `x.at[i].set(v)` of a NumPy array argument raised a bare AttributeError from jit's reference run; it is
  still Python's AttributeError (the function raises it too), now naming the user's line and what to write.
- eval_shape of `x[x > 3.0]` returned shape (0,): every stand-in run was empty. Reading values in a way
  that can choose a shape is now refused at the user's line, as JAX refuses it.

The default profile compiles two programs; ASTJAX_LONG_PROPERTIES=1 runs every integer width, scalars
and jit(grad) of diff (docs/testing.md).
"""
import warnings

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import ShapeDtypeStruct

from sampling import LONG

numba = pytest.importorskip("numba")


def numpy_edges(a, b, x, y, c, d):
    return a // b, jnp.maximum(x, y), jnp.minimum(x, y), jnp.maximum(x, y) * 2.0 + y, c / d


def _numpy(a, b, x, y, c, d):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return a // b, np.maximum(x, y), np.minimum(x, y), np.maximum(x, y) * 2.0 + y, c / d


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert [repr(v) for v in got.ravel().tolist()] == [repr(v) for v in want.ravel().tolist()]   # signed zeros, nan


_EDGE_INT = np.iinfo(np.int64).min
_FIRST = (np.array([7, -7, 9], np.int64), np.array([2, 3, -4], np.int64), np.array([1.0, 2.0, 3.0]),
          np.array([2.0, 1.0, 3.5]), np.array([5, 7, 1], np.int16), np.array([2, 3, 3], np.int16))
_EDGES = (np.array([_EDGE_INT, _EDGE_INT, 5], np.int64), np.array([-1, 0, 0], np.int64),
          np.array([-0.0, 0.0, np.nan]), np.array([0.0, -0.0, 1.0]), np.array([7, 1, -3], np.int16),
          np.array([3, 7, 9], np.int16))


def test_jit_gives_numpys_edge_values_on_a_later_call():
    jitted = astjax.jit(numpy_edges)
    for args in (_FIRST, _EDGES):        # the first call is checked against the reference; the second is not
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = jitted(*args)
        for g, w in zip(got, _numpy(*args)):
            _same(g, w)


@pytest.mark.skipif(not LONG, reason="one Numba compile per width: long profile (ASTJAX_LONG_PROPERTIES=1)")
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64])
def test_jit_floor_division_and_remainder_by_zero_and_minus_one(dtype):
    info = np.iinfo(dtype)
    a = np.array([info.min, info.max, 7, 0], dtype)
    divisors = [0, 3] + ([-1] if info.min < 0 else [])
    quotient = astjax.jit(lambda a, b: (a // b, a % b))
    for k in divisors:
        b = np.full_like(a, k)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            got, want = quotient(a, b), (a // b, a % b)
            scalar = astjax.jit(lambda a, b: a // b)(a[0], b[0])
        for g, w in zip(got, want):
            _same(g, w)
        assert scalar == a[0] // b[0] and np.asarray(scalar).dtype == dtype


@pytest.mark.skipif(not LONG, reason="a Numba compile: long profile (ASTJAX_LONG_PROPERTIES=1)")
def test_jit_floor_division_of_int64_by_a_narrower_int():
    quotient = astjax.jit(lambda a, b: a // b)
    quotient(np.array([7, 9], np.int64), np.array([2, 2], np.int32))
    a, b = np.array([_EDGE_INT, 7], np.int64), np.array([-1, -2], np.int32)
    _same(quotient(a, b), a // b)


def clipped(x, y):
    return jnp.clip(x, y, None), jnp.clip(x, None, y)


@pytest.mark.skipif(not LONG, reason="a Numba compile: long profile (ASTJAX_LONG_PROPERTIES=1)")
def test_jit_clip_keeps_numpys_signed_zeros_and_nan():
    jitted = astjax.jit(clipped)
    for x, y in ((_FIRST[2], _FIRST[3]), (_EDGES[2], _EDGES[3])):
        for g, w in zip(jitted(x, y), (np.clip(x, y, None), np.clip(x, None, y))):
            _same(g, w)


def differences(x, edge):
    return jnp.diff(x, n=2, axis=0), jnp.diff(x, prepend=0.0), jnp.diff(x, axis=0, append=edge), jnp.diff(x > 0.5)


def test_jit_lowers_diff_with_prepend_and_append():
    x = np.random.default_rng(13).random((4, 3))
    signatures = [(x, x[:1]), (x.astype(np.float32), x[:1].astype(np.float32)), (x.T.copy().T, x[:1])]
    for args in signatures[:None if LONG else 1]:      # float32 and a transposed layout: one compile each
        for g, w in zip(astjax.jit(differences)(*args), differences(*args)):
            assert np.asarray(g).dtype == np.asarray(w).dtype
            np.testing.assert_allclose(g, w, rtol=1e-6)


def diff_loss(x):
    return jnp.sum(jnp.sin(jnp.diff(x, n=2, axis=1, append=2.0)) ** 2) + jnp.sum(jnp.diff(x, axis=0) ** 3)


@pytest.mark.skipif(not LONG, reason="a Numba compile of a derivative: long profile (ASTJAX_LONG_PROPERTIES=1)")
def test_jit_grad_of_diff_matches_grad_and_forward_mode():
    x = np.random.default_rng(3).random((3, 5))
    want = astjax.grad(diff_loss)(x)
    np.testing.assert_allclose(astjax.jit(astjax.grad(diff_loss))(x), want, rtol=1e-12)
    np.testing.assert_allclose(astjax.jacfwd(diff_loss)(x), want, rtol=1e-10)


def set_second(x, v):
    return x.at[1].set(v)


def test_jit_refuses_at_of_a_numpy_argument_at_the_users_line():
    x = np.arange(4.0)
    with pytest.raises(AttributeError, match=r"(?s)test_jit_vmap_attacks13.py.*x.at\[1\].set.*NumPy arrays have no `.at`"):
        astjax.jit(set_second)(x, 5.0)
    np.testing.assert_array_equal(x, np.arange(4.0))


def larger_than_any_stand_in(x):
    return x[x > 3.0]


def sized_by_a_value(x):
    return jnp.zeros(int(jnp.max(x) > 10.0))


def nonzero_entries(x):
    return jnp.nonzero(x > 5.0)[0]


def shape_fixed_by_shapes(x):
    return jnp.where(x > 3.0, x, 0.0), jnp.nonzero(x > 5.0, size=2)[0], x[jnp.array([0, 2])]


@pytest.mark.parametrize("fn, what", [(larger_than_any_stand_in, "boolean mask"),
                                      (sized_by_a_value, "__int__"), (nonzero_entries, "jnp.nonzero")])
def test_eval_shape_refuses_value_reads_that_stand_ins_cannot_show(fn, what):
    # every stand-in run agreed on these (x[x > 3.0] was empty on all four): eval_shape returned (0,)
    with pytest.raises(ValueError, match=rf"(?s)depend on the\s+values.*{what}.*test_jit_vmap_attacks13.py"):
        astjax.eval_shape(fn, ShapeDtypeStruct((5,), jnp.float32))


def test_eval_shape_of_shapes_fixed_by_shapes_still_answers():
    s = ShapeDtypeStruct((5,), jnp.float32)
    assert astjax.eval_shape(shape_fixed_by_shapes, s) == (s, ShapeDtypeStruct((2,), np.int32),
                                                           ShapeDtypeStruct((2,), np.float32))
