"""Red team 11: jit's compile cache and Numba's integer semantics, and cleanup's folds under vmap, jit and grad.

Each attack compares a transformed program with running the program itself (or a loop over the batch):

- jit of narrow integer arithmetic (int8, int16, int32 and unsigned): the first call, with small values,
  passes jit's check; a later call through the compiled code with values that overflow must wrap between
  operations as NumPy and JAX do. Numba computed `(a * b + 3) // 2` in int64 and stored only the end result
  in int32 (jit/lower/narrow_integers.py now wraps), and `(a + b) * 3` of booleans as ints (6, not 3).
- a Python int argument meeting an int8 array: `a * k` with k = 300 raises OverflowError in NumPy; the
  compiled code's cast wrapped it to 44 after a first call with k = 3.
- `(x > 0) * 1.0` is a float indicator: cleanup folded `e * 1.0` to `e`, so the sum of two indicators
  became `bool + bool` (logical or) under vmap, jit and grad; `img * 1.0 - ref * 1.0` on uint8 images
  wrapped (246 for 10 - 20).

The default profile runs one program of each kind (one Numba compile); ASTJAX_LONG_PROPERTIES=1 runs the
other dtypes and shapes (docs/testing.md).
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp

from sampling import LONG

numba = pytest.importorskip("numba")


def product_halved(a, b):
    return (a * b + 3) // 2


def first_product_halved(a, b):
    return (a[0] * b[0] + 3) // 2


def squares_accumulated(a):
    acc = a[0]
    for i in range(1, a.shape[0]):
        acc += a[i] * a[i]
    return acc // 2


def negated_third(a):
    return -a[0] // 3


def doubled_shifted(a):
    return (a + a) >> 1


def sign_of_product(a, b):
    return jnp.where(a * b > 0, 1.0, -1.0)


def either_tripled(a, b):
    return (a + b) * 3


def either_above_one_tripled(x, y):
    return ((x > 1.0) + (y > 1.0)) * 3


def _pair(dtype, small, big):
    return [tuple(np.array(v, dtype) for v in small), tuple(np.array(v, dtype) for v in big)]


# (program, argument tuples: the first small, the later ones overflow the dtype), all through one jit.
NARROW = [
    (product_halved, _pair(np.int32, ([1, 2], [2, 3]), ([50000, 2], [50000, 3]))),
    (product_halved, _pair(np.int8, ([1, 2], [2, 3]), ([100, 120], [2, 3]))),
    (product_halved, _pair(np.int16, ([3], [3]), ([300], [300]))),
    (product_halved, _pair(np.uint32, ([1], [2]), ([70000], [70000]))),
    (product_halved, _pair(np.int32, (1, 2), (50000, 50000))),                  # 0-d: scalars in compiled code
    (first_product_halved, _pair(np.int32, ([1], [2]), ([50000], [50000]))),
    (squares_accumulated, [(np.array([1, 2, 3], np.int32),), (np.array([1, 50000, 50000], np.int32),)]),
    (negated_third, [(np.array([5], np.int8),), (np.array([-128], np.int8),)]),
    (doubled_shifted, [(np.array([3], np.int8),), (np.array([100], np.int8),)]),
    (sign_of_product, _pair(np.int8, ([1, 2], [2, 3]), ([100, 120], [2, 3]))),
    # NumPy's True + True is True (or): Numba's 2 gave (a + b) * 3 == 6 once both were True
    (either_tripled, _pair(bool, ([True, False], [False, False]), ([True, True], [True, False]))),
    (either_above_one_tripled, [(np.array([2.0, 0.0]), np.array([0.0, 0.0])), (np.array([2.0]), np.array([2.0]))]),
]
NARROW_RUN = NARROW if LONG else [NARROW[0], NARROW[-2]]


@pytest.mark.parametrize("program, argsets", NARROW_RUN,
                         ids=[f"{p.__name__}-{a[0][0].dtype}-{a[0][0].ndim}d" for p, a in NARROW_RUN])
def test_jit_narrow_integers_wrap_between_operations(program, argsets):
    jitted = astjax.jit(program)
    for args in argsets:
        with np.errstate(over="ignore"):
            want = np.asarray(program(*args))
        got = np.asarray(jitted(*args))
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.astype(want.dtype), want)


def scaled(a, k):
    return a * k


@pytest.mark.parametrize("dtype, k", [(np.int8, 300), (np.uint8, -1), (np.int32, 2 ** 31)][:None if LONG else 1])
def test_jit_python_int_out_of_the_arrays_range_raises(dtype, k):
    """NumPy (and the reference backend) raise OverflowError for `int8_array * 300`; compiled code wrapped
    the later call's 300 to 44 (`weak_int` now checks the range)."""
    jitted = astjax.jit(scaled)
    a = np.array([1, 2], dtype)
    np.testing.assert_array_equal(jitted(a, 3), a * 3)
    with pytest.raises(OverflowError):
        scaled(a, k)
    with pytest.raises(OverflowError):
        jitted(a, k)


def indicator_sum(x):
    return (x > 0) * 1.0 + (x > 1) * 1.0


def indicator_and(x):
    return (x > 0 and x < 2) * 1.0


def weighted_by_indicators(w):
    return jnp.sum(w * ((w > 0) * 1.0 + (w > 1) * 1.0))


INDICATORS = np.array([-1.0, 1.0, 3.0])


def image_difference(a, b):
    return a * 1.0 - b * 1.0


def pixel_error(w, a, b):
    return jnp.sum(w * (a / 1 - b / 1))


IMAGES = (np.array([[10, 200], [0, 5]], np.uint8), np.array([[20, 100], [1, 5]], np.uint8))


@pytest.mark.parametrize("program, args", [(indicator_sum, (INDICATORS,)), (indicator_and, (INDICATORS,)),
                                           (image_difference, IMAGES)],
                         ids=["indicator_sum", "indicator_and", "image_difference"])
def test_vmap_of_a_float_conversion_by_one_is_a_float(program, args):
    want = np.array([np.asarray(program(*(jnp.asarray(a) for a in example))) for example in zip(*args)])
    got = np.asarray(astjax.vmap(program)(*args))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_grad_through_a_difference_of_uint8_pixels():
    got = np.asarray(astjax.grad(pixel_error)(np.ones(2), IMAGES[0][0], IMAGES[1][0]))
    np.testing.assert_array_equal(got, [-10.0, 100.0])


def test_grad_through_a_sum_of_indicators():
    got = np.asarray(astjax.grad(weighted_by_indicators)(INDICATORS))
    np.testing.assert_array_equal(got, [0.0, 1.0, 2.0])        # d/dw of w * (count of thresholds below w)


@pytest.mark.skipif(not LONG, reason="a Numba compile: long profile (ASTJAX_LONG_PROPERTIES=1)")
def test_jit_of_float_conversions_by_one():
    np.testing.assert_array_equal(astjax.jit(indicator_sum)(INDICATORS), indicator_sum(INDICATORS))
    np.testing.assert_array_equal(astjax.jit(image_difference)(*IMAGES), image_difference(*IMAGES))
