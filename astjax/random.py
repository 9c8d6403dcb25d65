"""astjax.random: JAX's explicit-key random numbers, bit for bit, in NumPy.

JAX draws every random number from a key with the threefry-2x32 hash
(Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011).
This module runs the same hash on NumPy uint32 arrays, so a program gives the
same numbers under astjax as under JAX, and a key is a plain uint32 array of
shape (2,) that can be split, folded, stored and passed around like any value.

Semantics matched (checked bit for bit against jax 0.10.2 on x86-64 CPU):

* ``jax_threefry_partitionable=True``, JAX's default since 0.5: element
  ``i`` of a draw hashes the 64-bit counter ``i`` split into (hi, lo) words;
  32-bit bits are ``hi_out ^ lo_out``, 64-bit bits ``hi_out << 32 | lo_out``.
* Keys follow JAX's default ``jax_enable_x64=False``: ``PRNGKey(seed)`` is
  ``[0, seed mod 2**32]`` for any seed in ``[-2**63, 2**63)``. (With x64 on,
  JAX's first word is the seed's high 32 bits instead of 0.)
* Samplers follow the dtype asked for: float32/int32 (the defaults) and
  8/16-bit dtypes give JAX's default-mode numbers; float64, int64 and uint64
  give what JAX gives with ``jax_enable_x64=True`` (64 bits per element).
* XLA's CPU code fuses multiply-adds, and its float32 ``erf_inv``/``log1p``
  are polynomials; astjax repeats that arithmetic, so ``uniform`` with bounds
  and float16/float32 ``normal`` are bit-identical too.

Not bit-exact: float64 ``normal`` (NumPy's log1p, no fused multiply-add;
within a few ulps, relative error < 1e-14). ``permutation`` keeps elements
with tied 32-bit sort keys in order, as JAX's CPU sort was seen to do (equal
to JAX up to n = 3e6, where ties occur); a backend that breaks ties
differently would differ from it in a few places.
"""
import math
import numbers

import numpy as np

from . import dtypes
from .array import wrap

__all__ = [
    "PRNGKey", "split", "fold_in", "bits", "uniform", "normal", "randint",
    "bernoulli", "permutation", "threefry_2x32",
    "gumbel", "categorical", "exponential", "laplace", "logistic", "cauchy", "truncated_normal",
    "rademacher", "choice", "lognormal", "rayleigh", "maxwell",
    "gamma", "loggamma", "beta", "dirichlet", "chisquare", "t", "f", "generalized_normal", "ball",
    "poisson", "binomial", "multinomial", "geometric", "multivariate_normal", "orthogonal", "pareto",
    "weibull_min", "double_sided_maxwell", "wald", "triangular", "key", "key_data", "wrap_key_data",
    "key_impl", "key_dtype", "clone",
]

_U32 = np.uint32
_MASK32 = 0xFFFFFFFF

# ------------------------------------------------------------------ threefry
# Threefry-2x32 with 20 rounds: five groups of four rounds, alternating
# between these two rotation tables, with a key injection after each group.
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_KS_PARITY = 0x1BD11BDA

# Counters are hashed in blocks small enough to stay in cache (threads were
# tried and gave no gain on two cores: each ufunc call is only microseconds).
_BLOCK = 1 << 16


def _key_schedule(k0, k1):
    """The 3-word key schedule and the 5 injections (x0 += a, x1 += b)."""
    ks = (int(k0), int(k1), int(k0) ^ int(k1) ^ _KS_PARITY)
    return ks, [
        (_U32(ks[(i + 1) % 3]), _U32((ks[(i + 2) % 3] + i + 1) & _MASK32))
        for i in range(5)
    ]


def _threefry_inplace(ks, injections, x0, x1, tmp):
    """Hash the counter pairs (x0, x1) in place; `tmp` is scratch of x1's size."""
    x0 += _U32(ks[0])
    x1 += _U32(ks[1])
    for group, (inj0, inj1) in enumerate(injections):
        for r in _ROTATIONS[group % 2]:
            np.add(x0, x1, out=x0)
            np.left_shift(x1, _U32(r), out=tmp)       # x1 = rotl(x1, r) ^ x0
            np.right_shift(x1, _U32(32 - r), out=x1)
            np.bitwise_or(x1, tmp, out=x1)
            np.bitwise_xor(x1, x0, out=x1)
        x0 += inj0
        x1 += inj1


def _threefry(k, x0, x1):
    """Hash uint32 counter words (x0, x1) under key words k; new arrays."""
    x0, x1 = np.broadcast_arrays(np.asarray(x0, _U32), np.asarray(x1, _U32))
    x0, x1 = np.array(x0, _U32).reshape(-1), np.array(x1, _U32).reshape(-1)
    ks, injections = _key_schedule(*k)
    _threefry_inplace(ks, injections, x0, x1, np.empty_like(x1))
    return x0, x1


def threefry_2x32(keypair, count):
    """The threefry-2x32 hash of a uint32 array `count` under a key.

    Same contract as JAX's internal ``prng.threefry_2x32``: the flattened
    count (padded to even length) is hashed as the word pairs
    (first half, second half), and the result has count's shape.
    """
    k = _check_key("threefry_2x32", np.asarray(keypair))
    count = np.asarray(count)
    if count.dtype != np.uint32:
        raise TypeError(f"threefry_2x32: count must be uint32, got {count.dtype}.")
    flat = count.reshape(-1)
    half = (flat.size + 1) // 2
    padded = np.zeros(2 * half, _U32)
    padded[:flat.size] = flat
    y0, y1 = _threefry(k, padded[:half], padded[half:])
    return wrap(np.concatenate([y0, y1])[:flat.size].reshape(count.shape))


def _hash_block(ks, injections, start, out0, out1):
    """Hash counters start .. start+len(out0) into out0 (hi) and out1 (lo)."""
    n = out0.shape[0]
    stop = start + n
    if stop <= 1 << 32:
        out0.fill(0)
        out1[:] = np.arange(start, stop, dtype=_U32)
    else:
        counts = np.arange(start, stop, dtype=np.uint64)
        out0[:] = counts >> np.uint64(32)
        out1[:] = counts  # keeps the low 32 bits
    _threefry_inplace(ks, injections, out0, out1, np.empty(n, _U32))


def _hash_iota(key, n):
    """threefry(key, hi(i), lo(i)) for i in range(n): JAX's partitionable iota."""
    k0, k1 = key
    ks, injections = _key_schedule(k0, k1)
    out0 = np.empty(n, _U32)
    out1 = np.empty(n, _U32)

    for start in range(0, n, _BLOCK):
        stop = min(start + _BLOCK, n)
        _hash_block(ks, injections, start, out0[start:stop], out1[start:stop])
    return out0, out1


def _random_bits(key, bit_width, shape):
    """`bit_width` uniformly random bits per element, as an unsigned array."""
    n = math.prod(shape)
    hi, lo = _hash_iota(key, n)
    if bit_width == 64:
        out = hi.astype(np.uint64)
        out <<= np.uint64(32)
        out |= lo
    else:
        np.bitwise_xor(hi, lo, out=hi)
        out = hi if bit_width == 32 else hi.astype(_UINT[bit_width])
    return out.reshape(shape)


_UINT = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16),
         32: np.dtype(np.uint32), 64: np.dtype(np.uint64)}

# ---------------------------------------------------------- argument checks
_KEY_HINT = "pass a key made by astjax.random.PRNGKey(seed) or split()"


def _check_key(name, key):
    """The two uint32 words of a single threefry key, or a clear error."""
    if not isinstance(key, np.ndarray):
        raise TypeError(
            f"{name}: expected a PRNG key (a uint32 array of shape (2,)), got "
            f"{type(key).__name__}; {_KEY_HINT}.")
    if key.dtype != np.uint32:
        raise TypeError(
            f"{name}: a PRNG key must have dtype uint32, got {key.dtype}; "
            f"{_KEY_HINT}.")
    if key.ndim > 1 and key.shape[-1] == 2:
        raise ValueError(
            f"{name} accepts a single key of shape (2,), but was given a key "
            f"array of shape {key.shape}; loop over the keys (or vmap).")
    if key.shape != (2,):
        raise TypeError(
            f"{name}: a PRNG key must have shape (2,), got {key.shape}; "
            f"{_KEY_HINT}.")
    return int(key[0]), int(key[1])


def _check_shape(name, shape):
    """`shape` as a tuple of non-negative Python ints (an int means (int,))."""
    if shape is None:
        raise TypeError(f"{name}: shape must be a tuple of ints, got None.")
    dims = (shape,) if _is_int(shape) else shape
    try:
        dims = tuple(dims)
    except TypeError:
        raise TypeError(f"{name}: shape must be a tuple of ints, got {shape!r}.") from None
    if not all(_is_int(d) for d in dims):
        raise TypeError(
            f"{name}: shape must be a tuple of ints, got {shape!r}; e.g. "
            f"shape=(3, 4) (use int(d) for computed sizes).")
    dims = tuple(int(d) for d in dims)
    if any(d < 0 for d in dims):
        raise ValueError(f"{name}: shape dimensions must be non-negative, got {dims}.")
    return dims


def _is_int(x):
    if isinstance(x, (bool, np.bool_)):
        return False
    if isinstance(x, numbers.Integral):
        return True
    return isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind in "iu"


def _float_dtype(name, dtype):
    dt = dtypes.canonicalize(float if dtype is None else dtype)
    if dt.kind != "f" or dt.itemsize not in (2, 4, 8):
        raise ValueError(
            f"dtype argument to `{name}` must be a float dtype (float16, "
            f"float32 or float64), got {dt}; for integers use randint.")
    return dt


def _check_broadcast(name, shape, *params):
    """Parameters must broadcast to exactly `shape`, as in JAX."""
    shapes = [np.shape(p) for p in params]
    try:
        result = np.broadcast_shapes(shape, *shapes)
    except ValueError:
        result = None
    if result != shape:
        raise ValueError(
            f"{name}: parameter shapes {shapes} must broadcast to the shape "
            f"argument {shape}; pass a shape that matches them.")


# ------------------------------------------------------------------- keys
def PRNGKey(seed):
    """A key from an integer seed: uint32 [0, seed mod 2**32], as JAX (x64 off).

    The seed may be any int in [-2**63, 2**63) or a NumPy integer scalar.
    """
    if isinstance(seed, np.ndarray):
        if seed.ndim:
            raise TypeError(
                f"PRNGKey accepts a scalar seed, but was given an array of "
                f"shape {seed.shape}; make one key per seed (or split one key).")
        seed = seed[()]
    if isinstance(seed, (np.integer, np.bool_)):
        seed = int(seed)  # NumPy integers keep their low 32 bits, any width
    elif not isinstance(seed, numbers.Integral):
        raise TypeError(f"PRNGKey: the seed must be an integer, got {seed!r}.")
    elif not -(1 << 63) <= seed < (1 << 63):
        raise OverflowError(
            f"PRNGKey: seed {seed} does not fit in a signed 64-bit integer "
            f"(JAX rejects it too); pass seed % 2**32.")
    return wrap(np.array([0, int(seed) & _MASK32], dtype=_U32))


def split(key, num=2):
    """`num` new independent keys from `key`, shape (num, 2) (or (*num, 2))."""
    k = _check_key("split", key)
    shape = _check_shape("split", num)
    hi, lo = _hash_iota(k, math.prod(shape))
    return wrap(np.stack([hi, lo], axis=-1).reshape(*shape, 2))


def fold_in(key, data):
    """A new key that mixes the 32-bit integer `data` into `key`."""
    k0, k1 = _check_key("fold_in", key)
    if np.ndim(data):
        raise TypeError(
            f"fold_in accepts a scalar, but was given an array of shape "
            f"{np.shape(data)}; fold in one value at a time.")
    if isinstance(data, np.ndarray):
        data = data[()]
    if isinstance(data, (bool, np.bool_)):
        data = int(data)
    if isinstance(data, np.integer):
        data = int(data) & _MASK32  # NumPy integers convert with wraparound
    elif not isinstance(data, numbers.Integral):
        raise TypeError(f"fold_in: data must be an integer, got {data!r}.")
    elif not 0 <= data <= _MASK32:
        raise OverflowError(
            f"fold_in: Python integer {data} out of bounds for uint32; pass "
            f"data % 2**32 (JAX raises here too).")
    # JAX hashes the seed-key of `data`, [0, data], as one counter pair.
    y0, y1 = _threefry((k0, k1), 0, data)
    return wrap(np.concatenate([y0, y1]))


# ---------------------------------------------------------------- samplers
def bits(key, shape=(), dtype=None):
    """Uniformly random unsigned integers (uint32 unless `dtype` says so)."""
    k = _check_key("bits", key)
    dt = np.dtype(np.uint32) if dtype is None else dtypes.canonicalize(dtype)
    if dt.kind != "u":
        raise ValueError(
            f"dtype argument to `bits` must be an unsigned int dtype (uint8, "
            f"uint16, uint32 or uint64), got {dt}.")
    shape = _check_shape("bits", shape)
    return wrap(_random_bits(k, dt.itemsize * 8, shape))


def _fma(a, b, c, dt):
    """a * b + c with one rounding to `dt`, as XLA's CPU code (which fuses
    multiply-add) computes it. float16 goes through float32, as in XLA."""
    if dt == np.float64:
        return _fma64(np.asarray(a, np.float64), np.asarray(b, np.float64),
                      np.asarray(c, np.float64))
    # A float32 product is exact in float64, so only the sum rounds (twice,
    # float64 then float32: off by an ulp only if the float64 sum lands on
    # a float32 rounding midpoint, which is rare).
    exact = np.asarray(a, np.float64) * np.asarray(b, np.float64)
    exact += c
    return exact.astype(np.float32).astype(dt, copy=False)


def _fma64(a, b, c):
    """Fused multiply-add in float64 via Dekker's error-free product and sum
    (correctly rounded except in rare near-tie cases)."""
    p = a * b
    split = 134217729.0  # 2**27 + 1: Veltkamp splitting into 26-bit halves
    ta, tb = split * a, split * b
    ah, bh = ta - (ta - a), tb - (tb - b)
    al, bl = a - ah, b - bh
    perr = ((ah * bh - p) + ah * bl + al * bh) + al * bl  # p + perr == a * b
    s = p + c
    v = s - p
    serr = (p - (s - v)) + (c - v)                         # s + serr == p + c
    out = s + (serr + perr)
    return np.where(np.isfinite(out), out, a * b + c)


def _uniform(k, shape, dt, minval, maxval):
    finfo = np.finfo(dt)
    nbits, nmant = finfo.bits, finfo.nmant
    udt = _UINT[nbits]
    raw = _random_bits(k, nbits, shape)
    # Random mantissa under exponent 0 gives a float in [1, 2); subtract 1.
    raw >>= udt.type(nbits - nmant)
    raw |= np.array(1.0, dt).view(udt)
    floats = raw.view(dt)
    floats -= dt.type(1.0)
    lo = np.asarray(minval, dt)
    hi = np.asarray(maxval, dt)
    if lo.shape == () and hi.shape == ():
        if lo == 0 and hi == 1:
            return floats  # x * 1 + 0 and max(0, x) are exact no-ops
        scale = lambda f: np.maximum(lo, _fma(f, hi - lo, lo, dt))
        return _map_blocks(scale, floats.reshape(-1)).reshape(shape)
    return np.maximum(lo, _fma(floats, hi - lo, lo, dt))


def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0):
    """Uniform floats in [minval, maxval), float32 by default."""
    k = _check_key("uniform", key)
    dt = _float_dtype("uniform", dtype)
    shape = _check_shape("uniform", shape)
    _check_broadcast("uniform", shape, minval, maxval)
    return wrap(_uniform(k, shape, dt, minval, maxval))


# ------------------------------------------------------------- erf_inv
# normal() is sqrt(2) * erf_inv(uniform(-1, 1)). XLA evaluates erf_inv with
# Giles' polynomials ("Approximating the erfinv function", GPU Computing Gems,
# 2011) and log1p with Cephes' formulas, all with fused multiply-adds. For
# float32 the code below repeats XLA's CPU arithmetic step by step, so the
# normals are bit-identical to JAX's; float64 uses the same polynomials with
# NumPy's log1p and agrees to within a few ulps.

def _f32(bits):
    return np.array(bits, np.uint32).view(np.float32)[()]


# Branches (w bound, shift, Horner coefficients from the highest power) of
# erfinv(x) = x * P(t), w = -log1p(-x*x): t = w - shift in the first branch,
# t = sqrt(w) - shift in the others (the tails, |x| > 0.9966 or so).
_ERFINV_F32 = tuple((bound, shift, tuple(map(np.float32, coeffs))) for bound, shift, coeffs in (
    (5.0, 2.5, (2.81022636e-08, 3.43273939e-07, -3.5233877e-06,
                -4.39150654e-06, 0.00021858087, -0.00125372503,
                -0.00417768164, 0.246640727, 1.50140941)),
    (np.inf, 3.0, (-0.000200214257, 0.000100950558, 0.00134934322,
                   -0.00367342844, 0.00573950773, -0.0076224613,
                   0.00943887047, 1.00167406, 2.83297682)),
))
_ERFINV_F64 = (
    (6.25, 3.125, (
        -3.6444120640178196996e-21, -1.685059138182016589e-19,
        1.2858480715256400167e-18, 1.115787767802518096e-17,
        -1.333171662854620906e-16, 2.0972767875968561637e-17,
        6.6376381343583238325e-15, -4.0545662729752068639e-14,
        -8.1519341976054721522e-14, 2.6335093153082322977e-12,
        -1.2975133253453532498e-11, -5.4154120542946279317e-11,
        1.051212273321532285e-09, -4.1126339803469836976e-09,
        -2.9070369957882005086e-08, 4.2347877827932403518e-07,
        -1.3654692000834678645e-06, -1.3882523362786468719e-05,
        0.0001867342080340571352, -0.00074070253416626697512,
        -0.0060336708714301490533, 0.24015818242558961693,
        1.6536545626831027356)),
    (16.0, 3.25, (
        2.2137376921775787049e-09, 9.0756561938885390979e-08,
        -2.7517406297064545428e-07, 1.8239629214389227755e-08,
        1.5027403968909827627e-06, -4.013867526981545969e-06,
        2.9234449089955446044e-06, 1.2475304481671778723e-05,
        -4.7318229009055733981e-05, 6.8284851459573175448e-05,
        2.4031110387097893999e-05, -0.0003550375203628474796,
        0.00095328937973738049703, -0.0016882755560235047313,
        0.0024914420961078508066, -0.0037512085075692412107,
        0.005370914553590063617, 1.0052589676941592334,
        3.0838856104922207635)),
    (np.inf, 5.0, (
        -2.7109920616438573243e-11, -2.5556418169965252055e-10,
        1.5076572693500548083e-09, -3.7894654401267369937e-09,
        7.6157012080783393804e-09, -1.4960026627149240478e-08,
        2.9147953450901080826e-08, -6.7711997758452339498e-08,
        2.2900482228026654717e-07, -9.9298272942317002539e-07,
        4.5260625972231537039e-06, -1.9681778105531670567e-05,
        7.5995277030017761139e-05, -0.00021503011930044477347,
        -0.00013871931833623122026, 1.0103004648645343977,
        4.8499064014085844221)),
)

# XLA's float32 log1p(z): a Cephes rational function for |z| < sqrt(2) - 1,
# else log(1 + z) with Cephes' logf (mantissa polynomial in three chains).
_LOG1P_SMALL = _f32(0x3ED413CD)                       # sqrt(2) - 1
_LOG1P_NUM = tuple(map(np.float32, (
    4.5270000862445199635215e-5, 4.9854102823193375972212e-1,
    6.5787325942061044846969e0, 2.9911919328553073277375e1,
    6.0949667980987787057556e1, 5.7112963590585538103336e1,
    2.0039553499201281259648e1)))
_LOG1P_DEN = tuple(map(np.float32, (
    1.0, 1.5062909083469192043167e1, 8.3047565967967209469434e1,
    2.2176239823732856465394e2, 3.0909872225312059774938e2,
    2.1642788614495947685003e2, 6.0118660497603843919306e1)))
_LOGF_P = tuple(map(_f32, (                           # three Horner chains
    (0x3D9021BB, 0xBDEBD1B8, 0x3DEF251A),
    (0xBDFE5D4F, 0x3E11E9BF, 0xBE2AAE50),
    (0x3E4CCEAC, 0xBE7FFFFC, 0x3EAAAAAA))))
_LOGF_Q1, _LOGF_Q2 = _f32(0xB95E8083), _f32(0x3F318000)  # ln 2 = Q2 - Q1


# The float32 path below keeps float32 values in float64 arrays: a product
# of two float32s is exact there, so `a * b + c` then _round32 is XLA's fused
# multiply-add, and `a op b` then _round32 is the plain float32 operation.

def _round32(x):
    """Round a float64 array, in place, to the nearest float32 values."""
    np.copyto(x, x.astype(np.float32))
    return x


def _fma32(a, b, c):
    out = a * b
    out += c
    return _round32(out)


def _horner(coeffs, t, f32=False):
    """Horner's rule; with f32=True, a float32 fused multiply-add per step."""
    acc = np.full(t.shape, coeffs[0], t.dtype)
    for c in coeffs[1:]:
        acc *= t
        acc += c
        if f32:
            _round32(acc)
    return acc


def _logf(a):
    """XLA's float32 log(a) for a in (0, 1] (float64 array of float32 values)."""
    a = np.maximum(a.astype(np.float32), np.finfo(np.float32).tiny)
    b = a.view(np.uint32)
    e = ((b >> np.uint32(23)).astype(np.int32) - 126).astype(np.float64)
    m = ((b & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(np.float32)
    low = m < _f32(0x3F3504F3)                         # m < sqrt(1/2)
    m = m.astype(np.float64)
    t = (m - 1) + m * low     # exact: 2m - 1 or m - 1 (np.where is slow on
    e -= low                  # random masks)
    t2 = _round32(t * t)
    t3 = _round32(t2 * t)
    y1, y2, y3 = (_horner(chain, t, True) for chain in _LOGF_P)
    y = _fma32(_fma32(y1, t3, y2), t3, y3)
    y = _fma32(y, t3, _round32(e * _LOGF_Q1))
    return _round32(_round32(_round32(t - t2 * 0.5) + y) + e * _LOGF_Q2)


def _log1p_neg_square(x):
    """XLA's float32 log1p(-x * x) (float64 array of float32 values)."""
    z = _round32(x * -x)
    small = np.abs(z) < _LOG1P_SMALL
    out = np.empty_like(z)
    # Integer indices: NumPy's boolean-mask gathers are several times slower.
    i = np.flatnonzero(small)
    zs = z.take(i)
    r = _round32(_horner(_LOG1P_NUM, zs, True) / _horner(_LOG1P_DEN, zs, True))
    zs2 = _round32(zs * zs)
    tail = _round32(_round32(zs * zs2) * r)
    out.put(i, _round32(zs + _round32(zs2 * -0.5 + tail)))
    i = np.flatnonzero(~small)
    out.put(i, _logf(_round32(z.take(i) + 1)))
    return out


def _erfinv(x):
    """Inverse error function of x in (-1, 1), computed as XLA does."""
    dt = x.dtype
    if dt == np.float32:
        x = x.astype(np.float64)  # holding float32 values, see above
        w = -_log1p_neg_square(x)
        table = _ERFINV_F32
    else:
        w = -np.log1p(-(x * x))
        table = _ERFINV_F64
    f32 = dt == np.float32
    rnd = _round32 if f32 else (lambda v: v)
    # The first branch covers all but the tails: evaluate it everywhere, then
    # redo the few tail values.
    bound, shift, coeffs = table[0]
    p = _horner(coeffs, rnd(w - shift), f32)
    done = w < bound
    for bound, shift, coeffs in table[1:]:
        sel = ~done & (w < bound)
        i = np.flatnonzero(sel)
        if i.size:
            t = rnd(rnd(np.sqrt(w.take(i))) - shift)
            p.put(i, _horner(coeffs, t, f32))
        done |= sel
    out = (p * x).astype(dt)
    edge = np.abs(x) == 1  # erfinv(+-1) = +-inf
    out[edge] = x[edge] * np.inf
    return out


def _map_blocks(fn, x):
    """fn applied block by block over a 1-d array (keeps temporaries in cache)."""
    if x.size <= _BLOCK:
        return fn(x)
    out = np.empty_like(x)
    for start in range(0, x.size, _BLOCK):
        out[start:start + _BLOCK] = fn(x[start:start + _BLOCK])
    return out


def normal(key, shape=(), dtype=None):
    """Standard normal floats (mean 0, std 1), float32 by default."""
    k = _check_key("normal", key)
    dt = _float_dtype("normal", dtype)
    shape = _check_shape("normal", shape)
    lo = np.nextafter(dt.type(-1), dt.type(0))
    u = _uniform(k, shape, dt, lo, dt.type(1)).reshape(-1)
    if dt == np.float16:  # XLA evaluates half-precision erf_inv in float32
        out = _map_blocks(_erfinv, u.astype(np.float32)).astype(dt)
    else:
        out = _map_blocks(_erfinv, u)
    out *= dt.type(np.sqrt(2))
    return wrap(out.reshape(shape))


def _int_bound(name, value, dt):
    """An integer bound as an array of `dt`, clipped to its range, and where
    it lay above dt's maximum (so randint(0, 256, uint8) can still draw 255).
    Float bounds truncate, as JAX's astype(int).
    """
    info = np.iinfo(dt)
    a = np.asarray(value)
    if a.dtype.kind in "fb":
        a = a.astype(np.int64)
    elif a.dtype.kind not in "iuO":  # "O": Python ints beyond 64 bits
        raise TypeError(f"randint: {name} must be an integer, got {value!r}.")
    above = np.asarray(a > info.max)
    below = np.asarray(a < info.min)
    inside = np.where(above | below, 0, a).astype(dt)
    return np.where(above, info.max, np.where(below, info.min, inside)).astype(dt), above


def _split2(k):
    """split(key) for internal use: two key tuples."""
    hi, lo = _hash_iota(k, 2)
    return (int(hi[0]), int(lo[0])), (int(hi[1]), int(lo[1]))


def _randint(k, shape, minval, maxval, dt):
    udt = _UINT[np.iinfo(dt).bits]
    nbits = udt.itemsize * 8
    lo, _ = _int_bound("minval", minval, dt)
    hi, out_of_range = _int_bound("maxval", maxval, dt)

    # Two draws of nbits each reduce the modulo bias, as in JAX.
    k1, k2 = _split2(k)
    higher = _random_bits(k1, nbits, shape)
    lower = _random_bits(k2, nbits, shape)

    with np.errstate(over="ignore"):  # unsigned arithmetic wraps, as in XLA
        span = np.asarray(hi.view(udt) - lo.view(udt), udt)
        span = np.where(hi <= lo, udt.type(1), span)  # then minval is returned
        span = np.where(out_of_range & (hi > lo), span + udt.type(1), span).astype(udt)
        # span may wrap to 0 (the full range): XLA's x % 0 == x handles it.
        multiplier = _urem(udt.type(1 << (nbits // 2)), span)
        multiplier = _urem((multiplier * multiplier).astype(udt), span)
        offset = _urem(_urem(higher, span) * multiplier + _urem(lower, span), span)
        return (lo.view(udt) + offset).astype(udt).view(dt)


def _urem(x, y):
    """Unsigned x % y with XLA's convention x % 0 == x."""
    zero = y == 0
    if not np.any(zero):
        return x % y
    return np.where(zero, x, x % np.where(zero, y.dtype.type(1), y))


def randint(key, shape, minval, maxval, dtype=None):
    """Uniform integers in [minval, maxval), int32 by default.

    Like JAX, uses a modulus of 2*nbits random bits: slightly biased unless
    maxval - minval is a power of two. 8/16-bit dtypes are drawn at 32 bits.
    """
    k = _check_key("randint", key)
    dt = dtypes.canonicalize(int if dtype is None else dtype)
    if dt.kind not in "iu":
        raise TypeError(
            f"randint only accepts integer dtypes, got {dt}; for floats use "
            f"uniform(key, shape, dtype, minval, maxval).")
    shape = _check_shape("randint", shape)
    _check_broadcast("randint", shape, minval, maxval)
    info = np.iinfo(dt)
    if info.bits < 32:
        lo = np.clip(_exact_int(minval), info.min, info.max)
        hi = np.clip(_exact_int(maxval), info.min, info.max + 1)
        out = _randint(k, shape, lo, hi, np.dtype(np.int32)).astype(dt)
    else:
        out = _randint(k, shape, minval, maxval, dt)
    return wrap(np.asarray(out).reshape(shape))


def _exact_int(v):
    a = np.asarray(v)
    if a.dtype.kind in "fb":
        return a.astype(np.int64)
    if a.dtype.kind not in "iuO":
        raise TypeError(f"randint: bounds must be integers, got {v!r}.")
    return a


def bernoulli(key, p=0.5, shape=None, mode="low"):
    """Random booleans that are True with probability `p` (a float or array).

    `shape` defaults to p's shape. mode="high" spends two uniforms per value
    for correct results at tiny p (below ~1e-7 in float32).
    """
    k = _check_key("bernoulli", key)
    if mode not in ("low", "high"):
        raise ValueError(f"bernoulli: got mode={mode!r}, expected 'low' or 'high'.")
    dt = dtypes.default_dtype_of(p)
    if dt.kind != "f":
        raise TypeError(
            f"bernoulli probability `p` must have a floating dtype, got {dt}; "
            f"pass e.g. p=0.5 rather than an integer.")
    p = np.asarray(p, dt)
    if shape is None:
        shape = p.shape
    else:
        shape = _check_shape("bernoulli", shape)
        _check_broadcast("bernoulli", shape, p)
    if mode == "high":
        u1, u2 = _uniform(k, (2, *shape), dt, 0.0, 1.0)
        u2 = u2 * dt.type(2.0 ** -np.finfo(dt).nmant)
        return wrap(u2 < p - u1)
    return wrap(_uniform(k, shape, dt, 0.0, 1.0) < p)


def _shuffle(k, x, axis):
    """Sort along `axis` by fresh 32-bit random keys, as JAX does; the number
    of rounds (JAX's heuristic) makes ties across all rounds unlikely."""
    exponent = 3
    num_rounds = int(np.ceil(exponent * np.log(max(1, x.size)) / np.log(_MASK32)))
    for _ in range(num_rounds):
        k, sub = _split2(k)
        sort_keys = _random_bits(sub, 32, x.shape)
        x = np.take_along_axis(x, _stable_argsort(sort_keys, axis), axis=axis)
    return x


def _stable_argsort(keys, axis):
    """argsort of uint32 keys that keeps tied keys in order, as JAX's sort."""
    if keys.ndim != 1:
        return np.argsort(keys, axis=axis, kind="stable")
    # Sorting (key << 32 | index) is stable and faster than a stable argsort.
    packed = keys.astype(np.uint64) << np.uint64(32)
    packed |= np.arange(keys.size, dtype=np.uint64)
    packed.sort()
    return (packed & np.uint64(_MASK32)).astype(np.intp)


def permutation(key, x, axis=0, independent=False):
    """A random permutation of range(x) (x an int), or of x along `axis`.

    With independent=True each slice along `axis` is shuffled separately.
    """
    k = _check_key("permutation", key)
    arr = np.asarray(x)
    if arr.ndim == 0:
        if arr.dtype.kind not in "iu":
            raise TypeError(
                f"permutation: x must be an integer or at least 1-dimensional, "
                f"got {x!r}.")
        if int(arr) < 0:
            raise ValueError(f"permutation: x must be non-negative, got {int(arr)}.")
        return wrap(_shuffle(k, np.arange(int(arr), dtype=dtypes.default_int), 0))
    if not -arr.ndim <= axis < arr.ndim:
        raise ValueError(
            f"permutation: axis {axis} is out of bounds for an array of "
            f"dimension {arr.ndim}.")
    axis %= arr.ndim
    if independent or arr.ndim == 1:
        return wrap(_shuffle(k, arr, axis))
    ind = _shuffle(k, np.arange(arr.shape[axis], dtype=dtypes.default_int), 0)
    return wrap(np.take(arr, ind, axis=axis))


from .random_distributions import (  # noqa: E402  (built on the samplers above)
    categorical, cauchy, choice, exponential, gumbel, laplace, logistic, lognormal, maxwell, rademacher, rayleigh,
    truncated_normal,
)
from .random_gamma import (  # noqa: E402  (JAX's gamma family, on the samplers above)
    ball, beta, chisquare, dirichlet, f, gamma, generalized_normal, loggamma, t,
)
from .random_more import (  # noqa: E402  (counts, vectors, closed forms, key helpers)
    binomial, clone, double_sided_maxwell, geometric, key, key_data, key_impl, multinomial, multivariate_normal,
    key_dtype, orthogonal, pareto, poisson, triangular, wald, weibull_min, wrap_key_data,
)


def _mark_samplers():
    """Every sampler is a library function of astjax.random (so a derivative that reaches its parameters
    is refused at the user's line, never transformed as astjax's own Python), and says why."""
    import sys
    reason = ("a random sample has no derivative with respect to its parameters in astjax (JAX "
              "differentiates some by reparameterization, e.g. gamma implicitly; astjax does not)")
    hint = ("reparameterize: draw a standard sample from the key and transform it with astjax.numpy "
            "(e.g. mu + sigma * normal(key, shape)), or keep the parameters out of the derivative")
    module = sys.modules[__name__]
    for name in __all__:
        fn = getattr(module, name)
        fn.__module__ = __name__
        fn.__astjax_no_derivative__ = (reason, hint)


_mark_samplers()
