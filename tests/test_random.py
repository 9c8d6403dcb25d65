"""Tests for astjax.random: JAX's threefry random numbers, bit for bit.

The known answers below were computed with jax 0.10.2 (CPU,
jax_threefry_partitionable=True, the default); 64-bit ones with
jax.enable_x64(True). They are hard-coded so these tests run without JAX.
"""
import numpy as np
import pytest

import astjax
from astjax import random
from astjax.array import Array

# ------------------------------------------------------------ known answers
KEYS = {0: [0, 0], 1: [0, 1], 42: [0, 42], -1: [0, 4294967295],
        2**31: [0, 2147483648], 2**32 + 5: [0, 5], 2**40 + 7: [0, 7],
        -2**63: [0, 0], 2**63 - 1: [0, 4294967295]}
SPLIT_0 = [[1797259609, 2579123966], [928981903, 3453687069]]
SPLIT_42_3 = [[1832780943, 270669613], [64467757, 2916123636],
              [2465931498, 255383827]]
SPLIT_42_2x2 = [[[1832780943, 270669613], [64467757, 2916123636]],
                [[2465931498, 255383827], [3134548294, 894150801]]]
FOLD_IN = {(0, 0): [1797259609, 2579123966], (0, 1): [928981903, 3453687069],
           (42, 7): [2547012911, 1371500959],
           (42, 2**32 - 1): [2398536845, 3890976714]}
BITS_U32 = [2098992034, 2919706841, 2646866425, 2409546199, 1935504149]
BITS_U8 = [162, 217, 249, 215, 21]
BITS_U16 = [5026, 12505, 63993, 49623, 29461]
BITS_U64 = [7871734211187709741, 276886910877598708, 10591095138341673235]
UNIFORM_F32 = [0.9476670026779175, 0.9785798788070679, 0.33229148387908936,
               0.46866846084594727, 0.569888710975647]
UNIFORM_F32_SCALAR = 0.48870956897735596
UNIFORM_F32_BOUNDS = [1.753627896308899, 3.8078196048736572,
                      3.1249184608459473, 2.5309228897094727,
                      1.344429612159729, 2.798058032989502]
UNIFORM_F16 = [0.076171875, 0.1904296875, 0.9755859375, 0.7568359375]
UNIFORM_F64 = [0.4267275666499091, 0.015010069515314584, 0.5741444178995352,
               0.7298188969046309]
UNIFORM_F64_BOUNDS = [1.137966693159054, -3.1438952770407282,
                      2.6711019461551655, 4.29011652780816]
BLOCK_IDX = [0, 1, 65535, 65536, 70000]  # across astjax's 65536-element blocks
UNIFORM_BLOCK = [0.9476670026779175, 0.9785798788070679, 0.7291754484176636,
                 0.37447047233581543, 0.40209341049194336]
NORMAL_F32 = [1.622642159461975, 2.0252647399902344, -0.4335944354534149,
              -0.07861734926700592, 0.17609089612960815, -0.9720892310142517]
NORMAL_F32_2x2 = [-0.02830461598932743, 0.4671318531036377,
                  0.2957029640674591, 0.15354591608047485]
NORMAL_F16 = [-1.4296875, -0.87548828125, 1.974609375, 0.69677734375]
NORMAL_F64 = [-0.18471174528191162, -2.169824560397754, 0.18693555179382582,
              0.6122653570510959]
NORMAL_BLOCK = [1.622642159461975, 2.0252647399902344, 0.6103212833404541,
                -0.32003605365753174, -0.24793218076229095]
NORMAL_TAIL_IDX, NORMAL_TAIL = 78702, -4.480391502380371  # erfinv's tail branch
RANDINT_0_10 = [9, 0, 2, 3, 1, 7, 2, 3]
RANDINT_M5_17 = [7, 7, 4, 14, 10, 12, 14, 2]
RANDINT_U8 = [196, 18, 183, 193, 141, 107]
RANDINT_FULL_I32 = [977810628, 1236381714, -1367112521, -1019495231]
RANDINT_I64 = [1035129181600, 739838481901, 137999678232, 1022454368980]
BERNOULLI = [False, False, False, False, False, True, False, False, False, True]
BERNOULLI_P = [False, False, False, True, True]
PERM_10 = [0, 1, 8, 5, 6, 4, 3, 2, 7, 9]
PERM_2x5_AXIS1 = [[4, 2, 3, 0, 1], [9, 7, 8, 5, 6]]
PERM_INDEPENDENT = [[2, 3, 0, 1], [7, 4, 5, 6], [10, 11, 8, 9]]


def key(seed):
    return random.PRNGKey(seed)


def assert_exact(actual, expected, dtype):
    assert isinstance(actual, Array)
    assert actual.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(np.asarray(actual), np.array(expected, dtype))


def test_threefry_random123_known_answers():
    # Threefry-2x32, 20 rounds: the known-answer vectors of Random123
    # (kat_vectors), also used by JAX's own tests.
    cases = [
        ((0x00000000, 0x00000000), (0x00000000, 0x00000000), (0x6B200159, 0x99BA4EFE)),
        ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
        ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
    ]
    for k, count, expected in cases:
        out = random.threefry_2x32(np.array(k, np.uint32), np.array(count, np.uint32))
        assert_exact(out, expected, np.uint32)


def test_threefry_2x32_odd_count_keeps_shape():
    out = random.threefry_2x32(np.array([3, 9], np.uint32), np.arange(5, dtype=np.uint32))
    assert out.shape == (5,) and out.dtype == np.uint32
    empty = random.threefry_2x32(np.array([3, 9], np.uint32), np.zeros((0, 2), np.uint32))
    assert empty.shape == (0, 2)


@pytest.mark.parametrize("seed", sorted(KEYS))
def test_prngkey(seed):
    assert_exact(key(seed), KEYS[seed], np.uint32)


def test_prngkey_numpy_seeds():
    assert_exact(key(np.int64(-7)), [0, 2**32 - 7], np.uint32)
    assert_exact(key(np.uint8(200)), [0, 200], np.uint32)
    assert_exact(key(np.array(5)), [0, 5], np.uint32)


def test_split():
    assert_exact(random.split(key(0)), SPLIT_0, np.uint32)
    assert_exact(random.split(key(42), 3), SPLIT_42_3, np.uint32)
    assert_exact(random.split(key(42), (2, 2)), SPLIT_42_2x2, np.uint32)
    assert random.split(key(0), 0).shape == (0, 2)


def test_split_rows_are_keys():
    k1, k2 = random.split(key(0))
    assert k2.shape == (2,) and k2.dtype == np.uint32
    np.testing.assert_array_equal(random.uniform(k1, (3,)),
                                  random.uniform(np.array(SPLIT_0[0], np.uint32), (3,)))


@pytest.mark.parametrize("seed,data", sorted(FOLD_IN))
def test_fold_in(seed, data):
    assert_exact(random.fold_in(key(seed), data), FOLD_IN[seed, data], np.uint32)


def test_fold_in_numpy_integers_wrap():
    assert_exact(random.fold_in(key(42), np.int64(-1)), FOLD_IN[42, 2**32 - 1], np.uint32)


def test_bits():
    assert_exact(random.bits(key(42), (5,)), BITS_U32, np.uint32)
    assert_exact(random.bits(key(42), (5,), np.uint8), BITS_U8, np.uint8)
    assert_exact(random.bits(key(42), (5,), np.uint16), BITS_U16, np.uint16)
    assert_exact(random.bits(key(42), (3,), np.uint64), BITS_U64, np.uint64)


def test_uniform():
    assert_exact(random.uniform(key(0), (5,)), UNIFORM_F32, np.float32)
    assert_exact(random.uniform(key(42)), UNIFORM_F32_SCALAR, np.float32)
    assert random.uniform(key(42)).shape == ()
    out = random.uniform(key(42), (2, 3), minval=-3.5, maxval=7.25)
    assert_exact(out, np.reshape(UNIFORM_F32_BOUNDS, (2, 3)), np.float32)
    assert_exact(random.uniform(key(42), (4,), np.float16), UNIFORM_F16, np.float16)
    assert_exact(random.uniform(key(42), (4,), np.float64), UNIFORM_F64, np.float64)
    out = random.uniform(key(42), (4,), np.float64, -3.3, 7.1)
    assert_exact(out, UNIFORM_F64_BOUNDS, np.float64)


def test_uniform_across_blocks():
    out = random.uniform(key(0), (70001,))
    assert_exact(out[BLOCK_IDX], UNIFORM_BLOCK, np.float32)
    # The first values do not depend on the total size (partitionable threefry).
    assert_exact(random.uniform(key(0), (2,)), UNIFORM_BLOCK[:2], np.float32)


def test_normal():
    # astjax repeats XLA's float32 arithmetic, so these match JAX bit for
    # bit on x86-64; the tolerance only allows for other JAX backends.
    np.testing.assert_allclose(random.normal(key(0), (6,)), NORMAL_F32, rtol=1e-6)
    out = random.normal(key(42), (2, 2))
    assert out.shape == (2, 2) and out.dtype == np.float32
    np.testing.assert_allclose(out.ravel(), NORMAL_F32_2x2, rtol=1e-6)
    out = random.normal(key(0), (70001,))
    np.testing.assert_allclose(out[BLOCK_IDX], NORMAL_BLOCK, rtol=1e-6)
    out = random.normal(key(42), (100000,))
    np.testing.assert_allclose(out[NORMAL_TAIL_IDX], NORMAL_TAIL, rtol=1e-6)
    out = random.normal(key(42), (4,), np.float16)
    assert out.dtype == np.float16
    np.testing.assert_allclose(out.astype(np.float32), NORMAL_F16, rtol=1e-3)
    out = random.normal(key(42), (4,), np.float64)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, NORMAL_F64, rtol=1e-13)


def test_normal_float32_is_bit_exact_here():
    assert_exact(random.normal(key(0), (6,)), NORMAL_F32, np.float32)
    assert_exact(random.normal(key(42), (4,), np.float16), NORMAL_F16, np.float16)


def test_randint():
    assert_exact(random.randint(key(0), (8,), 0, 10), RANDINT_0_10, np.int32)
    out = random.randint(key(42), (2, 4), -5, 17)
    assert_exact(out, np.reshape(RANDINT_M5_17, (2, 4)), np.int32)
    assert_exact(random.randint(key(42), (6,), 0, 256, np.uint8), RANDINT_U8, np.uint8)
    out = random.randint(key(42), (4,), -2**31, 2**31 - 1)
    assert_exact(out, RANDINT_FULL_I32, np.int32)
    assert_exact(random.randint(key(42), (3,), 5, 3), [5, 5, 5], np.int32)
    out = random.randint(key(42), (4,), -7, 2**40, np.int64)
    assert_exact(out, RANDINT_I64, np.int64)


def test_bernoulli():
    assert_exact(random.bernoulli(key(0), 0.3, (10,)), BERNOULLI, np.bool_)
    p = np.array([0.0, 0.25, 0.5, 0.75, 1.0], np.float32)
    assert_exact(random.bernoulli(key(42), p), BERNOULLI_P, np.bool_)
    assert random.bernoulli(key(0)).shape == ()


def test_permutation():
    assert_exact(random.permutation(key(0), 10), PERM_10, np.int32)
    x = np.arange(10, dtype=np.int32).reshape(2, 5)
    assert_exact(random.permutation(key(42), x, axis=1), PERM_2x5_AXIS1, np.int32)
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    out = random.permutation(key(42), x, axis=1, independent=True)
    assert_exact(out, PERM_INDEPENDENT, np.int32)


# --------------------------------------------------------------- properties
def test_same_key_same_numbers():
    for sample in (lambda k: random.uniform(k, (100,)),
                   lambda k: random.normal(k, (100,)),
                   lambda k: random.randint(k, (100,), 0, 7),
                   lambda k: random.permutation(k, 100)):
        np.testing.assert_array_equal(sample(key(3)), sample(key(3)))
        assert not np.array_equal(sample(key(3)), sample(key(4)))


def test_counters_beyond_32_bits():
    # Draws of more than 2**32 values hash (i >> 32, i & 0xFFFFFFFF); check
    # the block that crosses 2**32 without drawing 16 GiB.
    ks, injections = random._key_schedule(0, 42)
    hi, lo = np.empty(4, np.uint32), np.empty(4, np.uint32)
    random._hash_block(ks, injections, 2**32 - 2, hi, lo)
    counts = np.arange(2**32 - 2, 2**32 + 2, dtype=np.uint64)
    want = random._threefry((0, 42), counts >> np.uint64(32), counts & np.uint64(0xFFFFFFFF))
    np.testing.assert_array_equal(hi, want[0])
    np.testing.assert_array_equal(lo, want[1])


def test_split_keys_differ():
    keys = np.asarray(random.split(key(0), 100))
    assert len({tuple(k) for k in keys}) == 100
    assert not any((k == np.asarray(key(0))).all() for k in keys)
    a, b = random.split(key(0))
    assert not np.array_equal(random.uniform(a, (10,)), random.uniform(b, (10,)))


def test_fold_in_differs_by_data():
    keys = {tuple(np.asarray(random.fold_in(key(0), d))) for d in range(50)}
    assert len(keys) == 50


def test_results_are_immutable_arrays():
    out = random.uniform(key(0), (3,))
    assert isinstance(out, Array)
    with pytest.raises(TypeError):
        out[0] = 1.0


def test_uniform_range():
    u = random.uniform(key(1), (100000,))
    assert u.min() >= 0.0 and u.max() < 1.0
    u = random.uniform(key(1), (100000,), minval=-2.0, maxval=3.0)
    assert u.min() >= -2.0 and u.max() < 3.0
    assert abs(float(u.mean()) - 0.5) < 0.05
    lo = np.array([0.0, 10.0, -5.0], np.float32)
    u = random.uniform(key(1), (1000, 3), minval=lo, maxval=lo + 1)
    assert ((u >= lo) & (u < lo + 1)).all()
    u = random.uniform(key(1), (1000,), np.float64)
    assert u.dtype == np.float64
    assert (u != u.astype(np.float32)).any()  # 52 random mantissa bits, not 23


def test_normal_moments():
    x = random.normal(key(2), (100000,))
    assert abs(float(x.mean())) < 0.02
    assert abs(float(x.std()) - 1.0) < 0.02
    assert np.isfinite(x).all()
    x64 = random.normal(key(2), (100000,), np.float64)
    assert abs(float(x64.mean())) < 0.02 and abs(float(x64.std()) - 1.0) < 0.02


def test_randint_bounds():
    x = random.randint(key(5), (10000,), -3, 4)
    assert x.min() == -3 and x.max() == 3
    assert set(np.unique(x).tolist()) == set(range(-3, 4))
    x = random.randint(key(5), (10000,), 0, 256, np.uint8)
    assert x.dtype == np.uint8 and x.max() == 255  # maxval above uint8's range
    hi = np.array([1, 10, 100])
    x = random.randint(key(5), (1000, 3), 0, hi)
    assert ((x >= 0) & (x < hi)).all()
    x = random.randint(key(5), (1000,), 2**40, 2**40 + 3, np.int64)
    assert x.min() >= 2**40 and x.max() < 2**40 + 3


def test_bernoulli_mean():
    x = random.bernoulli(key(6), 0.3, (100000,))
    assert x.dtype == np.bool_
    assert abs(float(x.mean()) - 0.3) < 0.01
    x = random.bernoulli(key(6), 1e-9, (100000,), mode="high")
    assert not x.any()


@pytest.mark.parametrize("n", [0, 1, 2, 100, 3000])  # 3000: two sort rounds
def test_permutation_is_a_permutation(n):
    p = random.permutation(key(7), n)
    assert p.dtype == np.int32
    np.testing.assert_array_equal(np.sort(p), np.arange(n))


def test_permutation_of_array_moves_whole_slices():
    x = np.arange(20).reshape(5, 4)
    rows = random.permutation(key(8), x)
    np.testing.assert_array_equal(np.sort(rows, axis=0), x)
    assert all(any((r == xr).all() for xr in x) for r in rows)
    cols = random.permutation(key(8), x, axis=-1)
    np.testing.assert_array_equal(np.sort(cols, axis=1), x)
    ind = random.permutation(key(8), x, axis=1, independent=True)
    np.testing.assert_array_equal(np.sort(ind, axis=1), x)
    assert x.tolist() == np.arange(20).reshape(5, 4).tolist()  # input untouched


# ------------------------------------------------------------------- errors
def test_bad_keys():
    with pytest.raises(TypeError, match="uint32"):
        random.uniform(np.array([0, 1], np.int32))
    with pytest.raises(TypeError, match=r"shape \(2,\)"):
        random.normal(np.zeros(3, np.uint32))
    with pytest.raises(TypeError, match="PRNGKey"):
        random.split([0, 1])
    with pytest.raises(ValueError, match="single key"):
        random.uniform(random.split(key(0), 3))


def test_bad_shapes():
    with pytest.raises(TypeError, match="tuple of ints"):
        random.uniform(key(0), (2.0,))
    with pytest.raises(TypeError, match="tuple of ints"):
        random.normal(key(0), "3")
    with pytest.raises(ValueError, match="non-negative"):
        random.uniform(key(0), (-1,))
    with pytest.raises(ValueError, match="non-negative"):
        random.split(key(0), -1)
    with pytest.raises(ValueError, match="broadcast"):
        random.uniform(key(0), (3,), minval=np.zeros(2))
    with pytest.raises(ValueError, match="broadcast"):
        random.randint(key(0), (3,), 0, np.array([1, 2]))
    assert random.uniform(key(0), 3).shape == (3,)  # an int means (int,)


def test_bad_dtypes():
    with pytest.raises(ValueError, match="float dtype"):
        random.uniform(key(0), (2,), np.int32)
    with pytest.raises(ValueError, match="float dtype"):
        random.normal(key(0), (2,), int)
    with pytest.raises(TypeError, match="integer dtypes"):
        random.randint(key(0), (2,), 0, 5, np.float32)
    with pytest.raises(ValueError, match="unsigned"):
        random.bits(key(0), (2,), np.int32)
    with pytest.raises(TypeError, match="floating dtype"):
        random.bernoulli(key(0), 1, (2,))
    with pytest.raises(ValueError, match="mode"):
        random.bernoulli(key(0), 0.5, mode="medium")
    with pytest.raises(TypeError, match="uint32"):
        random.threefry_2x32(np.zeros(2, np.uint32), np.arange(4))


def test_bad_seeds_and_data():
    with pytest.raises(TypeError, match="integer"):
        random.PRNGKey(1.5)
    with pytest.raises(TypeError, match="scalar seed"):
        random.PRNGKey(np.array([1, 2]))
    with pytest.raises(OverflowError):
        random.PRNGKey(2**64)
    with pytest.raises(TypeError, match="integer"):
        random.fold_in(key(0), 1.5)
    with pytest.raises(OverflowError, match="uint32"):
        random.fold_in(key(0), -1)
    with pytest.raises(TypeError, match="scalar"):
        random.fold_in(key(0), np.array([1, 2]))


def test_bad_permutation_arguments():
    with pytest.raises(TypeError, match="integer or at least 1-dimensional"):
        random.permutation(key(0), 1.5)
    with pytest.raises(ValueError, match="out of bounds"):
        random.permutation(key(0), np.zeros((2, 3)), axis=2)
    with pytest.raises(ValueError, match="non-negative"):
        random.permutation(key(0), -1)


# ----------------------------------------------------- oracle (needs jax)
def test_matches_jax_on_random_shapes():
    jax = pytest.importorskip("jax")
    jr = pytest.importorskip("jax.random")
    rng = np.random.default_rng(0)
    for trial in range(6):  # each new shape costs JAX a compile
        seed = int(rng.integers(-2**40, 2**40))
        shape = tuple(int(d) for d in rng.integers(0, 6, size=rng.integers(0, 4)))
        k, kj = random.PRNGKey(seed), jr.PRNGKey(seed)
        np.testing.assert_array_equal(k, kj)
        np.testing.assert_array_equal(random.split(k, 3), jr.split(kj, 3))
        np.testing.assert_array_equal(random.fold_in(k, trial), jr.fold_in(kj, trial))
        np.testing.assert_array_equal(random.bits(k, shape), jr.bits(kj, shape))
        np.testing.assert_array_equal(random.uniform(k, shape), jr.uniform(kj, shape))
        np.testing.assert_array_equal(random.uniform(k, shape, minval=-2.5, maxval=0.7),
                                      jr.uniform(kj, shape, minval=-2.5, maxval=0.7))
        np.testing.assert_allclose(random.normal(k, shape), jr.normal(kj, shape),
                                   rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(random.randint(k, shape, -9, 1000),
                                      jr.randint(kj, shape, -9, 1000))
        np.testing.assert_array_equal(random.bernoulli(k, 0.4, shape),
                                      jr.bernoulli(kj, 0.4, shape))
        n = int(rng.integers(0, 3000))
        np.testing.assert_array_equal(random.permutation(k, n), jr.permutation(kj, n))
        with jax.enable_x64(True):
            np.testing.assert_array_equal(random.uniform(k, shape, np.float64),
                                          jr.uniform(kj, shape, np.float64))
            np.testing.assert_allclose(random.normal(k, shape, np.float64),
                                       jr.normal(kj, shape, np.float64), rtol=1e-13)
            np.testing.assert_array_equal(random.randint(k, shape, -5, 2**40, np.int64),
                                          jr.randint(kj, shape, -5, 2**40, np.int64))


# ------------------------------------------------ NumPy's global random state inside a differentiated function
def _seeded_inside(w):
    np.random.seed(0)                   # its value is unused: it was dropped as dead code (a silent wrong value)
    np.random.randn(2)                  # a draw thrown away still moves the state on
    noise = np.random.randn(3)
    return np.sum((w * noise) ** 2) + np.sum(np.random.rand(3) * w)


def test_seeding_and_unused_draws_of_numpys_global_state_are_kept():
    w = np.array([0.3, -0.5, 0.8])
    expected = _seeded_inside(w)
    value, grad = astjax.value_and_grad(_seeded_inside)(w)
    fd = np.array([(_seeded_inside(w + 1e-6 * e) - _seeded_inside(w - 1e-6 * e)) / 2e-6 for e in np.eye(3)])
    np.testing.assert_allclose(float(value), expected, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(grad), fd, rtol=1e-6, atol=1e-8)
    primal, tangent = astjax.jvp(_seeded_inside, (w,), (np.ones(3),))
    np.testing.assert_allclose(float(primal), expected, rtol=1e-12)
    np.testing.assert_allclose(float(tangent), fd.sum(), rtol=1e-6)
    hessian = astjax.hessian(_seeded_inside)(w)
    np.random.seed(0)
    np.random.randn(2)
    noise = np.random.randn(3)
    np.testing.assert_allclose(np.asarray(hessian), np.diag(2 * noise ** 2), rtol=1e-9, atol=1e-12)
